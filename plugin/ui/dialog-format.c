/* gpu-histogram: the dialog's texts and table cells.  See dialog-format.h. */
#include <math.h>

#include <glib/gi18n-lib.h>

#include "dialog-format.h"
#include "report.h"

/* Whole pixels as integers, coverage totals to a tenth of a pixel. */
static gchar *
format_pixels (double pixels)
{
  if (fabs (pixels - floor (pixels + 0.5)) < 1e-6)
    return g_strdup_printf ("%.0f", floor (pixels + 0.5));
  return g_strdup_printf ("%.1f", pixels);
}

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

/* A scope table's contention: the busiest cell's share of the pixels that can reach it (its
 * column's in a waveform, whose blocks own columns; the whole table's in the vectorscope) and
 * the cells used, of the table that has the most. */
static void
scope_contention_of (const gh_scope *table, int scope, double *busiest_share, int *cells_used)
{
  const size_t group
      = scope == GH_SCOPE_WAVEFORM ? (size_t) table->bins : (size_t) table->columns * table->bins;
  const size_t cells = (size_t) table->columns * table->bins;

  *busiest_share = 0.0;
  *cells_used = 0;
  for (int t = 0; t < table->tables && table->values != NULL; t++)
    {
      const double *values = table->values + (size_t) t * cells;
      int used = 0;

      for (size_t g = 0; g < cells; g += group)
        {
          double total = 0.0, busiest = 0.0;

          for (size_t i = g; i < g + group; i++)
            {
              total += values[i];
              busiest = MAX (busiest, values[i]);
              used += values[i] > 0.0;
            }
          if (total > 0.0)
            *busiest_share = MAX (*busiest_share, busiest / total);
        }
      *cells_used = MAX (*cells_used, used);
    }
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
    case GPUHIST_ROW_PRIVATIZED: return g_strdup (_ ("Privatized (one copy per block)"));
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
gpuhist_format_compare_cells (const gh_result *result, int scope, const char *name, gchar **cells)
{
  double busiest_share;
  int bins_used;

  if (scope >= 0 && scope < GH_N_SCOPES)
    scope_contention_of (&result->scopes[scope], scope, &busiest_share, &bins_used);
  else
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
gpuhist_format_stats_cells (const gh_channel_stats *stats, double shadows, double highlights,
                            gchar **cells)
{
  cells[0] = g_strdup_printf ("%.2f", stats->mean);
  cells[1] = g_strdup_printf ("%.2f", stats->stddev);
  cells[2] = g_strdup_printf ("%d", stats->median);
  cells[3] = stats->min >= 0 ? g_strdup_printf ("%d", stats->min) : g_strdup (_ ("—"));
  cells[4] = stats->max >= 0 ? g_strdup_printf ("%d", stats->max) : g_strdup (_ ("—"));
  cells[5] = gpuhist_format_percent (100.0 * stats->busiest_share);
  cells[6] = g_strdup_printf ("%d", stats->bins_used);
  cells[7] = g_strdup_printf ("%" G_GUINT64_FORMAT, stats->pixels);
  cells[8] = gpuhist_format_share (shadows);
  cells[9] = gpuhist_format_share (highlights);
}

gchar *
gpuhist_format_share (double share)
{
  /* Two decimals: a clipped highlight of 0.04 % is worth seeing, and reads back exactly
   * enough to check. */
  return g_strdup_printf (_ ("%.2f %%"), 100.0 * share);
}

void
gpuhist_format_range_cells (const GpuhistRangeStats *stats, gchar **cells)
{
  cells[0] = format_pixels (stats->weight);
  cells[1] = gpuhist_format_share (stats->share);
  if (stats->median < 0)
    {
      for (int i = 2; i < GPUHIST_RANGE_COLUMNS - 1; i++)
        cells[i] = g_strdup (_ ("—"));
      return;
    }
  cells[2] = g_strdup_printf ("%.2f", stats->mean);
  cells[3] = g_strdup_printf ("%d", stats->median);
  cells[4] = g_strdup_printf ("%.2f", stats->stddev);
}

gchar *
gpuhist_format_range (int lo, int hi, int bins)
{
  if (bins > GH_BINS)
    /* TRANSLATORS: the selected range at more bins than levels, e.g. "Bins 4096–8191 of
     * 65536" */
    return g_strdup_printf (_ ("Bins %d–%d of %d"), lo, hi, bins);
  if (lo == hi)
    /* TRANSLATORS: the selected range when it is one level, e.g. "Level 100" */
    return g_strdup_printf (_ ("Level %d"), lo);
  /* TRANSLATORS: the selected range, e.g. "Levels 100–150 (51 levels)" */
  return g_strdup_printf (_ ("Levels %d–%d (%d levels)"), lo, hi, hi - lo + 1);
}

/* A kernel slower than global atomics is said to be slower ("2.5× slower"): "0.4× faster" reads
 * as a speedup to anyone who does not stop at the number. */
static gchar *
speed_for_headline (double speedup, gboolean *slower)
{
  *slower = speedup < 1.0;
  return gpuhist_format_speedup (*slower ? 1.0 / speedup : speedup);
}

gchar *
gpuhist_format_headline (const GpuhistReport *report)
{
  double fastest = gpuhist_speedup_over_global (&report->layer, GH_TIME_FASTEST);
  gboolean slower;
  gchar *speed, *markup;

  if (fastest <= 0.0)
    return g_markup_printf_escaped ("<span size=\"xx-large\" weight=\"bold\">%s</span>",
                                    _ ("No timings: the histogram was counted once"));
  speed = speed_for_headline (fastest, &slower);
  markup = g_markup_printf_escaped (
      slower
          /* TRANSLATORS: the headline when the fastest kernel lost, e.g. "2.5× slower than
           * global atomics" */
          ? _ ("<span size=\"xx-large\" weight=\"bold\">%s slower than global atomics</span>")
          /* TRANSLATORS: the headline, e.g. "12.3× faster than global atomics" */
          : _ ("<span size=\"xx-large\" weight=\"bold\">%s faster than global atomics</span>"),
      speed);
  g_free (speed);
  return markup;
}

gchar *
gpuhist_format_subline (const GpuhistReport *report)
{
  double privatized = gpuhist_speedup_over_global (&report->layer, GH_TIME_PRIVATIZED);
  gboolean slower;
  gchar *speed, *markup;

  if (privatized <= 0.0)
    return g_markup_printf_escaped ("<span size=\"large\" weight=\"bold\">%s</span>",
                                    _ ("Set Repetitions above 0 and press Re-run to time the "
                                       "kernels."));
  speed = speed_for_headline (privatized, &slower);
  markup = g_markup_printf_escaped (
      slower
          /* TRANSLATORS: under the headline, when the privatized kernel lost to global atomics */
          ? _ ("<span size=\"large\" weight=\"bold\">Privatized (one copy per block): %s slower "
               "than global atomics</span>")
          /* TRANSLATORS: under the headline: the speedup of the privatized kernel */
          : _ ("<span size=\"large\" weight=\"bold\">Privatized (one copy per block): %s faster "
               "than global atomics</span>"),
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

/* The fastest kernel's time over the read-only pass's, on a line of its own; nothing when
 * either did not run. */
static void
append_ceiling_ratio (GString *text, const gh_result *layer)
{
  double fastest = gpuhist_timing_median (layer, GH_TIME_FASTEST);
  double ceiling = gpuhist_timing_median (layer, GH_TIME_READ_ONLY);

  if (fastest > 0.0 && ceiling > 0.0)
    {
      gchar *times = g_strdup_printf ("%.2f", fastest / ceiling);

      g_string_append (text, "\n");
      /* TRANSLATORS: the fastest kernel's time over the read-only pass's, e.g. "1.35" */
      g_string_append_printf (text, _ ("It took %s× the read-only ceiling's time."), times);
      g_free (times);
    }
}

static void
take_scope_timings (gh_result *result, int scope)
{
  static const gh_timing_kind kernels[]
      = { GH_TIME_GLOBAL_ATOMICS, GH_TIME_PRIVATIZED, GH_TIME_FASTEST };
  const gh_timing none = { 0 };

  for (gsize k = 0; k < G_N_ELEMENTS (kernels); k++)
    result->timing[kernels[k]]
        = result->scopes[scope].tables > 0 ? result->scopes[scope].timing[kernels[k]] : none;
}

void
gpuhist_report_scope_view (const GpuhistReport *report, int scope, GpuhistReport *view)
{
  *view = *report;
  if (scope < 0 || scope >= GH_N_SCOPES)
    return;
  take_scope_timings (&view->layer, scope);
  for (int p = 0; p < GH_N_PATTERNS; p++)
    take_scope_timings (&view->patterns[p], scope);
}

const char *
gpuhist_format_contention_caption (int scope)
{
  if (scope == GH_SCOPE_WAVEFORM)
    return _ ("Busiest cell: the share of its column's pixels in the fullest cell (one "
              "column's level), largest over the columns and channels.");
  if (scope == GH_SCOPE_VECTORSCOPE)
    return _ ("Busiest cell: the share of all the pixels in the fullest cell (one Cb and Cr).");
  return _ ("Busiest bin: the share of the samples in the fullest level, largest over the "
            "channels.");
}

gchar *
gpuhist_format_scope_strategy (const GpuhistReport *view, int scope)
{
  const gh_scope *table = &view->layer.scopes[scope];
  GString *text = g_string_new (NULL);

  if (table->tables == 0)
    return g_string_free (text, FALSE);
  if (scope == GH_SCOPE_WAVEFORM)
    g_string_printf (text, _ ("The waveform's table: %d columns × %d levels × %d channels."),
                     table->columns, table->bins, table->tables);
  else
    g_string_printf (text, _ ("The vectorscope's table: %d × %d cells."), table->columns,
                     table->bins);
  append_ceiling_ratio (text, &view->layer);
  return g_string_free (text, FALSE);
}

gchar *
gpuhist_format_strategy (const GpuhistReport *report)
{
  const gh_result *layer = &report->layer;
  GString *text = g_string_new (NULL);

  if (layer->counts == NULL && layer->values == NULL)
    return g_string_free (text, FALSE);
  /* TRANSLATORS: e.g. "4096 bins a channel; the fastest kernel ran as: shared, 4 ch x 4096
   * bins, 64 KiB shared" */
  g_string_printf (text, _ ("%d bins a channel; the fastest kernel ran as: %s"), layer->bins,
                   layer->layout[0] != '\0' ? layer->layout : _ ("—"));
  append_ceiling_ratio (text, layer);
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

/* The counted line's first part: what was read. */
static const char *
counted_what (const GpuhistReport *report)
{
  gboolean visible = report->source_kind == GPUHIST_SOURCE_VISIBLE;

  if (report->selection)
    return visible ? _ ("The selection of the visible image") : _ ("The selection");
  if (visible)
    return _ ("The whole visible image");
  return report->drawable_kind == GPUHIST_DRAWABLE_LAYER ? _ ("The whole layer")
                                                         : _ ("The whole channel");
}

/* The counted line's last part: how the pixels weighed, or NULL when each counted once. */
static const char *
counted_how (const GpuhistReport *report)
{
  if (report->weighting == GPUHIST_WEIGHTING_PIXELS)
    {
      if (report->selection)
        return report->layer_alpha ? _ ("each pixel whose selection coverage is at least one "
                                        "half counted once, alpha ignored")
                                   : _ ("each pixel whose selection coverage is at least one "
                                        "half counted once");
      return report->layer_alpha ? _ ("each pixel counted once, alpha ignored") : NULL;
    }
  if (report->selection)
    return report->layer_alpha ? _ ("weighted by coverage and alpha") : _ ("weighted by coverage");
  return report->layer_alpha ? _ ("weighted by alpha") : NULL;
}

gchar *
gpuhist_format_counted (const GpuhistReport *report)
{
  const gh_result *layer = &report->layer;
  const char *how = counted_how (report);
  gchar *amount, *line, *text;

  if (layer->values == NULL || layer->input_channels < 1 || layer->bins < 1)
    return g_strdup ("");
  if (report->selection)
    {
      /* The last channel of the layer's own: weighted by the coverage alone (alpha, or any
       * channel of a layer without alpha), so its total is the selection's. */
      const double *v = layer->values + (size_t) (layer->input_channels - 1) * layer->bins;
      double covered = 0.0;
      gchar *weight, *pixels;

      for (int b = 0; b < layer->bins; b++)
        covered += v[b];
      weight = format_pixels (covered);
      pixels = format_pixels ((double) layer->samples);
      /* TRANSLATORS: what the selection covers of its bounding rectangle, e.g. "7854.7 of the
       * 10000 pixels in its bounds" */
      amount = g_strdup_printf (_ ("%s of the %s pixels in its bounds"), weight, pixels);
      g_free (weight);
      g_free (pixels);
    }
  else
    {
      gchar *pixels = format_pixels ((double) layer->samples);

      /* TRANSLATORS: the pixels counted, e.g. "10000 pixels" */
      amount = g_strdup_printf (_ ("%s pixels"), pixels);
      g_free (pixels);
    }
  /* TRANSLATORS: what was counted and how much of it, e.g. "The selection: 7854.7 of the 10000
   * pixels in its bounds" */
  line = g_strdup_printf (_ ("%s: %s"), counted_what (report), amount);
  g_free (amount);
  if (how == NULL)
    return line;
  /* TRANSLATORS: the counted line, then how the pixels weighed, e.g. "The whole layer: 10000
   * pixels, weighted by alpha" */
  text = g_strdup_printf (_ ("%s, %s"), line, how);
  g_free (line);
  return text;
}
