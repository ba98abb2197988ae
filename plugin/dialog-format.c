/* gpu-histogram: the dialog's texts and table cells.  See dialog-format.h. */
#include <glib/gi18n-lib.h>

#include "dialog-format.h"
#include "report.h"

gchar *
gpuhist_format_number_ms (double ms)
{
  if (ms < 1.0)
    return g_strdup_printf ("%.3f", ms);
  if (ms < 100.0)
    return g_strdup_printf ("%.2f", ms);
  return g_strdup_printf ("%.0f", ms);
}

gchar *
gpuhist_format_ms (double ms)
{
  gchar *number;
  gchar *text;

  if (ms < 0.0)
    return g_strdup (_ ("—"));
  number = gpuhist_format_number_ms (ms);
  /* TRANSLATORS: a time in milliseconds, e.g. "1.23 ms" */
  text = g_strdup_printf (_ ("%s ms"), number);
  g_free (number);
  return text;
}

/* Three significant digits or so: small layers move little data. */
gchar *
gpuhist_format_gbps (double gbps)
{
  if (gbps <= 0.0)
    return g_strdup (_ ("—"));
  if (gbps < 1.0)
    return g_strdup_printf ("%.3f", gbps);
  if (gbps < 10.0)
    return g_strdup_printf ("%.2f", gbps);
  return g_strdup_printf ("%.1f", gbps);
}

gchar *
gpuhist_format_percent (double percent)
{
  if (percent < 10.0)
    return g_strdup_printf (_ ("%.1f %%"), percent);
  return g_strdup_printf (_ ("%.0f %%"), percent);
}

gchar *
gpuhist_format_speedup (double speedup)
{
  if (speedup <= 0.0)
    return g_strdup (_ ("—"));
  /* TRANSLATORS: how many times faster, e.g. "12.3×" */
  return g_strdup_printf (_ ("%.1f×"), speedup);
}

double
gpuhist_timing_median (const gh_result *result, gh_timing_kind kind)
{
  if (result == NULL || result->channels == 0 || result->timing[kind].runs <= 0)
    return -1.0;
  return result->timing[kind].median_ms;
}

double
gpuhist_speedup_over_global (const gh_result *result, gh_timing_kind kind)
{
  double global = gpuhist_timing_median (result, GH_TIME_GLOBAL_ATOMICS);
  double other = gpuhist_timing_median (result, kind);

  if (global <= 0.0 || other <= 0.0)
    return 0.0;
  return global / other;
}

/* The busiest-bin share and the bins used of the channel that has the most contention. */
static void
contention_of (const gh_result *result, double *busiest_share, int *bins_used)
{
  int c;

  *busiest_share = 0.0;
  *bins_used = 0;
  for (c = 0; c < result->channels; c++)
    {
      gh_channel_stats stats;

      if (!gpuhist_result_channel_stats (result, c, &stats))
        break;
      *busiest_share = MAX (*busiest_share, stats.busiest_share);
      *bins_used = MAX (*bins_used, stats.bins_used);
    }
}

/* The first cell of a timing row, and the engine's timing it shows (rows up to UPLOAD). */
static gchar *
timing_row_name (GpuhistTimingRow row, gh_timing_kind *kind)
{
  static const gh_timing_kind kinds[] = { GH_TIME_GLOBAL_ATOMICS, GH_TIME_PRIVATIZED,
                                          GH_TIME_FASTEST, GH_TIME_READ_ONLY, GH_TIME_UPLOAD };

  *kind = row <= GPUHIST_ROW_UPLOAD ? kinds[row] : GH_TIME_GLOBAL_ATOMICS;
  switch (row)
    {
    case GPUHIST_ROW_GLOBAL: return g_strdup (_ ("Global atomics"));
    case GPUHIST_ROW_PRIVATIZED: return g_strdup (_ ("Privatized (the seed's kernel)"));
    case GPUHIST_ROW_FASTEST: return g_strdup (_ ("<b>Fastest</b>"));
    case GPUHIST_ROW_READ_ONLY: return g_strdup (_ ("Read-only ceiling"));
    case GPUHIST_ROW_UPLOAD: return g_strdup (_ ("Upload to the GPU"));
    case GPUHIST_ROW_FETCH: return g_strdup (_ ("Fetch from GIMP"));
    default: return g_strdup (_ ("Total"));
    }
}

void
gpuhist_format_timing_cells (const GpuhistReport *report, GpuhistTimingRow row, gchar **cells)
{
  const gh_result *layer = &report->layer;
  double ceiling = gpuhist_timing_median (layer, GH_TIME_READ_ONLY);
  gh_timing_kind kind;
  gboolean kernel = row <= GPUHIST_ROW_READ_ONLY;
  double ms = row == GPUHIST_ROW_FETCH ? report->fetch_ms : report->total_ms;

  cells[0] = timing_row_name (row, &kind);
  if (row <= GPUHIST_ROW_UPLOAD)
    {
      const gh_timing *timing = &layer->timing[kind];

      if (timing->runs <= 0)
        {
          cells[1] = g_strdup (_ ("not run"));
          cells[2] = g_strdup (_ ("—"));
          cells[3] = g_strdup (_ ("—"));
        }
      else
        {
          gchar *min = gpuhist_format_number_ms (timing->min_ms);
          gchar *max = gpuhist_format_number_ms (timing->max_ms);

          cells[1] = gpuhist_format_ms (timing->median_ms);
          /* TRANSLATORS: the range of a timing in ms, e.g. "1.20 – 1.31" */
          cells[2] = g_strdup_printf (_ ("%s – %s"), min, max);
          cells[3] = gpuhist_format_gbps (gh_timing_gbps (layer, kind));
          g_free (min);
          g_free (max);
        }
      ms = timing->runs > 0 ? timing->median_ms : -1.0;
    }
  else
    {
      cells[1] = gpuhist_format_ms (ms > 0.0 ? ms : -1.0);
      cells[2] = g_strdup (_ ("—"));
      cells[3] = gpuhist_format_gbps (ms > 0.0 ? (double) layer->bytes / (ms * 1.0e6) : 0.0);
    }

  if (kernel && ms > 0.0 && ceiling > 0.0)
    cells[4] = gpuhist_format_percent (100.0 * ceiling / ms);
  else
    cells[4] = g_strdup (_ ("—"));

  cells[5] = kernel && row != GPUHIST_ROW_READ_ONLY
                 ? gpuhist_format_speedup (gpuhist_speedup_over_global (layer, kind))
                 : g_strdup (_ ("—"));
  if (row == GPUHIST_ROW_FASTEST)
    {
      gchar *bold = g_strdup_printf ("<b>%s</b>", cells[5]);

      g_free (cells[5]);
      cells[5] = bold;
    }
}

void
gpuhist_format_compare_cells (const gh_result *result, const char *name, gchar **cells)
{
  double busiest_share;
  int bins_used;

  contention_of (result, &busiest_share, &bins_used);
  cells[0] = g_markup_escape_text (name, -1);
  cells[1] = gpuhist_format_percent (100.0 * busiest_share);
  cells[2] = g_strdup_printf ("%d", bins_used);
  cells[3] = gpuhist_format_ms (gpuhist_timing_median (result, GH_TIME_GLOBAL_ATOMICS));
  cells[4] = gpuhist_format_ms (gpuhist_timing_median (result, GH_TIME_PRIVATIZED));
  cells[5] = gpuhist_format_ms (gpuhist_timing_median (result, GH_TIME_FASTEST));
  cells[6] = gpuhist_format_speedup (gpuhist_speedup_over_global (result, GH_TIME_FASTEST));
}

void
gpuhist_format_stats_cells (const gh_channel_stats *stats, gchar **cells)
{
  cells[0] = g_strdup_printf ("%.2f", stats->mean);
  cells[1] = g_strdup_printf ("%.2f", stats->stddev);
  cells[2] = g_strdup_printf ("%d", stats->median);
  cells[3] = stats->min >= 0 ? g_strdup_printf ("%d", stats->min) : g_strdup (_ ("—"));
  cells[4] = stats->max >= 0 ? g_strdup_printf ("%d", stats->max) : g_strdup (_ ("—"));
  cells[5] = gpuhist_format_percent (100.0 * stats->busiest_share);
  cells[6] = g_strdup_printf ("%d", stats->bins_used);
  cells[7] = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->pixels);
}

gchar *
gpuhist_format_headline (const GpuhistReport *report)
{
  double fastest = gpuhist_speedup_over_global (&report->layer, GH_TIME_FASTEST);
  gchar *speed, *markup;

  if (fastest <= 0.0)
    return g_markup_printf_escaped ("<span size=\"xx-large\" weight=\"bold\">%s</span>",
                                    _ ("No timings: the histogram was counted once"));
  speed = gpuhist_format_speedup (fastest);
  /* TRANSLATORS: the headline, e.g. "12.3× faster than global atomics" */
  markup = g_markup_printf_escaped (_ ("<span size=\"xx-large\" weight=\"bold\">%s faster than "
                                       "global atomics</span>"),
                                    speed);
  g_free (speed);
  return markup;
}

gchar *
gpuhist_format_subline (const GpuhistReport *report)
{
  double privatized = gpuhist_speedup_over_global (&report->layer, GH_TIME_PRIVATIZED);
  gchar *speed, *markup;

  if (privatized <= 0.0)
    return g_markup_printf_escaped ("<span size=\"large\" weight=\"bold\">%s</span>",
                                    _ ("Set Repetitions above 0 and press Re-run to time the "
                                       "kernels."));
  speed = gpuhist_format_speedup (privatized);
  /* TRANSLATORS: under the headline: the speedup of the seed's kernel */
  markup = g_markup_printf_escaped (_ ("<span size=\"large\" weight=\"bold\">Privatized (the "
                                       "seed's kernel): %s faster than global atomics</span>"),
                                    speed);
  g_free (speed);
  return markup;
}

gchar *
gpuhist_format_info (const GpuhistReport *report, int width, int height, gboolean linear)
{
  return g_strdup_printf (_ ("Layer “%s”, %d × %d pixels, %d channels, %s levels, %d timed "
                             "runs per kernel; fastest kernel: %s"),
                          report->drawable_name != NULL ? report->drawable_name : "", width, height,
                          report->layer.channels, linear ? _ ("linear-light") : _ ("perceptual"),
                          report->layer.timing[GH_TIME_FASTEST].runs,
                          report->layer.layout[0] != '\0' ? report->layer.layout : _ ("—"));
}

gchar *
gpuhist_format_backend (const GpuhistReport *report)
{
  if (report->layer.used_gpu)
    return g_markup_printf_escaped (_ ("<b>GPU:</b> %s"), report->layer.backend);
  return g_markup_printf_escaped (_ ("<b>The CPU ran this, not a GPU.</b>  %s"),
                                  report->layer.backend);
}

gchar *
gpuhist_format_strategy (const GpuhistReport *report)
{
  const gh_result *layer = &report->layer;
  double fastest = gpuhist_timing_median (layer, GH_TIME_FASTEST);
  double ceiling = gpuhist_timing_median (layer, GH_TIME_READ_ONLY);
  GString *text = g_string_new (NULL);

  if (layer->counts == NULL && layer->values == NULL)
    return g_string_free (text, FALSE);
  /* TRANSLATORS: e.g. "4096 bins a channel; the fastest kernel ran as: shared, 4 ch x 4096
   * bins, 64 KiB shared" */
  g_string_printf (text, _ ("%d bins a channel; the fastest kernel ran as: %s"), layer->bins,
                   layer->layout[0] != '\0' ? layer->layout : _ ("—"));
  if (fastest > 0.0 && ceiling > 0.0)
    {
      gchar *times = g_strdup_printf ("%.2f", fastest / ceiling);

      g_string_append (text, "\n");
      /* TRANSLATORS: the fastest kernel's time over the read-only pass's, e.g. "1.35" */
      g_string_append_printf (text, _ ("It took %s× the read-only ceiling's time."), times);
      g_free (times);
    }
  if (report->requested_bins > layer->bins)
    {
      g_string_append (text, "\n");
      g_string_append_printf (text,
                              _ ("This layer has 8 bits a channel: its 256 levels were counted "
                                 "into 256 bins, not the %d asked for."),
                              report->requested_bins);
    }
  return g_string_free (text, FALSE);
}
