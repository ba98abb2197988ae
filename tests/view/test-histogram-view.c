/* The histogram view at more bins than pixel columns (issue 8), drawn in an offscreen window:
 *
 *   - at 65536 bins, a lone busy bin that is not the first of its pixel column still reaches the
 *     top of the plot, where it belongs, and a run of 128 quiet bins stays low: each column draws
 *     the LARGEST count of its bins, not the first and not their sum (histogram-view.h);
 *   - the hover text of such a column names its bins and gives the exact number of samples in
 *     them, and the columns cover a power of two of bins that brings them to the plot's width;
 *   - at 256 bins every bin has a column of its own and the hover text says "Level N";
 *   - the range from the keyboard (Shift with the arrow keys stretches it, Escape clears it) and
 *     its shading (issue 15);
 *   - every curve's line over every channel's shade (green under luminance's shade, issue 26).
 *
 * Exit status: 0 passed, 1 failed, 77 skipped (no display: meson runs it under xvfb-run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gdk/gdkkeysyms.h>
#include <gtk/gtk.h>

#include "gtk-compat.h"
#include "histogram-view.h"

#define VIEW_WIDTH 600
#define VIEW_HEIGHT 300

static int failures;

#define CHECK(cond, ...)                                                                           \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        {                                                                                          \
          failures++;                                                                              \
          printf ("not ok - ");                                                                    \
        }                                                                                          \
      else                                                                                         \
        printf ("ok - ");                                                                          \
      printf (__VA_ARGS__);                                                                        \
      printf ("\n");                                                                               \
    }                                                                                              \
  while (0)

/* Where the red curve's stroke is, column by column: the highest reddish pixel (-1: none). */
typedef struct
{
  int width;
  int top[VIEW_WIDTH + 64];
  int left, right;   /* the baseline's first and last column: the plot's width */
  int top_y, base_y; /* the highest stroke pixel, and the baseline's row */
} Curve;

static gboolean drawn;

static gboolean
note_drawn (GtkWidget *widget, cairo_t *cr, gpointer data)
{
  (void) widget;
  (void) cr;
  (void) data;
  drawn = TRUE;
  return FALSE;
}

static gboolean
reddish (const guchar *p)
{
  /* The stroke is (217, 26, 26); the fill under it, 30 % of that on white, is far lighter. */
  return p[0] > 150 && p[1] < 100 && p[2] < 100;
}

/* Gives the view these counts and waits until it has drawn them. */
static void
show_counts (GtkWidget *view, const uint64_t *counts, int channels, int bins,
             const char *const *names)
{
  drawn = FALSE;
  gpuhist_histogram_view_set_data (GPUHIST_HISTOGRAM_VIEW (view), counts, channels, bins, names);
  for (int i = 0; i < 2000 && !drawn; i++)
    {
      while (gtk_events_pending ())
        gtk_main_iteration ();
      if (!drawn)
        g_usleep (1000);
    }
  while (gtk_events_pending ())
    gtk_main_iteration ();
}

/* Draws the view with these counts (one channel, "red") and reads the curve back. */
static void
render (GtkWidget *window, GtkWidget *view, const uint64_t *counts, int bins, Curve *curve)
{
  static const char *const names[] = { "red" };
  GdkPixbuf *pixbuf;
  int rowstride, channels, x, y, base_count = 0;
  const guchar *pixels;

  show_counts (view, counts, 1, bins, names);

  memset (curve, 0, sizeof *curve);
  pixbuf = gtk_offscreen_window_get_pixbuf (GTK_OFFSCREEN_WINDOW (window));
  if (pixbuf == NULL)
    return;
  curve->width = MIN (gdk_pixbuf_get_width (pixbuf), (int) G_N_ELEMENTS (curve->top));
  rowstride = gdk_pixbuf_get_rowstride (pixbuf);
  channels = gdk_pixbuf_get_n_channels (pixbuf);
  pixels = gdk_pixbuf_get_pixels (pixbuf);

  curve->top_y = G_MAXINT;
  curve->base_y = -1;
  for (x = 0; x < curve->width; x++)
    {
      curve->top[x] = -1;
      for (y = 0; y < gdk_pixbuf_get_height (pixbuf); y++)
        if (reddish (pixels + y * rowstride + x * channels))
          {
            if (curve->top[x] < 0)
              curve->top[x] = y;
            curve->top_y = MIN (curve->top_y, y);
          }
    }
  /* The baseline: the row holding the most stroke pixels (empty bins run along it). */
  for (y = 0; y < gdk_pixbuf_get_height (pixbuf); y++)
    {
      int n = 0;

      for (x = 0; x < curve->width; x++)
        n += reddish (pixels + y * rowstride + x * channels);
      if (n > base_count)
        {
          base_count = n;
          curve->base_y = y;
        }
    }
  curve->left = -1;
  for (x = 0; x < curve->width; x++)
    if (reddish (pixels + curve->base_y * rowstride + x * channels))
      {
        if (curve->left < 0)
          curve->left = x;
        curve->right = x;
      }
  g_object_unref (pixbuf);
}

/* The column where a bin is drawn, from the plot's width as the baseline shows it. */
static int
x_of_bin (const Curve *curve, double bin, int bins)
{
  return curve->left + (int) ((bin + 0.5) / bins * (curve->right - curve->left + 1));
}

/* The highest stroke pixel within `slack` columns of x. */
static int
top_near (const Curve *curve, int x, int slack)
{
  int best = G_MAXINT;

  for (int i = MAX (x - slack, 0); i <= MIN (x + slack, curve->width - 1); i++)
    if (curve->top[i] >= 0)
      best = MIN (best, curve->top[i]);
  return best;
}

/* As a share of the plot's height above the baseline: 1 at the top, 0 on the baseline. */
static double
height_at (const Curve *curve, int y)
{
  return (double) (curve->base_y - y) / MAX (curve->base_y - curve->top_y, 1);
}

static void
test_wide (GtkWidget *window, GtkWidget *view)
{
  enum
  {
    BINS = 65536,
    LONE = 40001, /* odd: never the first bin of a column */
    HALF = 101,
    QUIET_FIRST = 20480,
    QUIET_N = 128
  };
  uint64_t *counts = g_new0 (uint64_t, BINS);
  Curve curve;
  gchar *text;
  int first = -1, last = -1, per_column = 0, plot_width;
  guint64 sum = 0;
  int tall_elsewhere = 0;

  counts[LONE] = 1000;
  counts[HALF] = 500;
  for (int i = 0; i < QUIET_N; i++)
    counts[QUIET_FIRST + i] = 10; /* 1280 in all: taller than LONE if columns were summed */
  render (window, view, counts, BINS, &curve);
  CHECK (curve.base_y > 0 && curve.top_y < curve.base_y - 50 && curve.right - curve.left > 400,
         "65536 bins: the plot was drawn (baseline row %d, top row %d, columns %d-%d)",
         curve.base_y, curve.top_y, curve.left, curve.right);
  plot_width = curve.right - curve.left + 1;

  CHECK (height_at (&curve, top_near (&curve, x_of_bin (&curve, LONE, BINS), 3)) > 0.97,
         "65536 bins: the lone bin %d reaches the top of the plot (%.2f of its height)", LONE,
         height_at (&curve, top_near (&curve, x_of_bin (&curve, LONE, BINS), 3)));
  {
    double half = height_at (&curve, top_near (&curve, x_of_bin (&curve, HALF, BINS), 3));

    CHECK (half > 0.44 && half < 0.56, "65536 bins: bin %d, half as full, is drawn at %.2f", HALF,
           half);
  }
  {
    double quiet = 0.0;

    for (int i = 0; i < QUIET_N; i += 8)
      quiet
          = MAX (quiet, height_at (&curve,
                                   top_near (&curve, x_of_bin (&curve, QUIET_FIRST + i, BINS), 0)));
    CHECK (quiet < 0.05,
           "65536 bins: 128 neighbouring bins of 10 stay low (%.2f): a column draws its largest "
           "bin, not their sum",
           quiet);
  }
  for (int x = 0; x < curve.width; x++)
    if (curve.top[x] >= 0 && height_at (&curve, curve.top[x]) > 0.9
        && abs (x - x_of_bin (&curve, LONE, BINS)) > 3)
      tall_elsewhere++;
  CHECK (tall_elsewhere == 0, "65536 bins: nothing else reaches the top (%d columns)",
         tall_elsewhere);

  text = gpuhist_histogram_view_describe_bin (GPUHIST_HISTOGRAM_VIEW (view), LONE);
  if (text != NULL && sscanf (text, "Bins %d\xe2\x80\x93%d of 65536:", &first, &last) == 2)
    per_column = last - first + 1;
  CHECK (first <= LONE && LONE <= last && per_column > 1 && (per_column & (per_column - 1)) == 0
             && BINS / per_column <= plot_width && BINS / per_column * 2 > plot_width,
         "65536 bins: the hover text names the column's bins, a power of two that fits %d "
         "columns: \"%s\"",
         plot_width, text ? text : "(none)");
  CHECK (text != NULL && g_str_has_suffix (text, ": Red 1000"),
         "65536 bins: and the exact samples in them: \"%s\"", text ? text : "(none)");
  g_free (text);

  text = gpuhist_histogram_view_describe_bin (GPUHIST_HISTOGRAM_VIEW (view), QUIET_FIRST + 5);
  if (text != NULL && sscanf (text, "Bins %d\xe2\x80\x93%d of 65536:", &first, &last) == 2)
    for (int i = first; i <= last; i++)
      sum += counts[i];
  {
    gchar *want = g_strdup_printf (": Red %" G_GUINT64_FORMAT, sum);

    CHECK (text != NULL && sum > 0 && g_str_has_suffix (text, want),
           "65536 bins: a quiet column's hover text adds up its bins exactly: \"%s\"",
           text ? text : "(none)");
    g_free (want);
  }
  g_free (text);
  CHECK (gpuhist_histogram_view_describe_bin (GPUHIST_HISTOGRAM_VIEW (view), BINS) == NULL,
         "65536 bins: no hover text past the last bin");
  g_free (counts);
}

static void
test_narrow (GtkWidget *window, GtkWidget *view)
{
  uint64_t counts[256] = { 0 };
  Curve curve;
  gchar *text;

  counts[7] = 3;
  counts[200] = 6;
  render (window, view, counts, 256, &curve);
  CHECK (height_at (&curve, top_near (&curve, x_of_bin (&curve, 200, 256), 1)) > 0.97,
         "256 bins: level 200 reaches the top");
  {
    double half = height_at (&curve, top_near (&curve, x_of_bin (&curve, 7, 256), 1));

    CHECK (half > 0.44 && half < 0.56, "256 bins: level 7, half as full, is drawn at %.2f", half);
  }
  text = gpuhist_histogram_view_describe_bin (GPUHIST_HISTOGRAM_VIEW (view), 7);
  CHECK (text != NULL && strcmp (text, "Level 7: Red 3") == 0, "256 bins: one bin a column, \"%s\"",
         text ? text : "(none)");
  g_free (text);
}

/* A key press as the view gets it; TRUE when the view took it. */
static gboolean
press (GtkWidget *view, guint keyval, GdkModifierType state)
{
  GdkEvent *event = gdk_event_new (GDK_KEY_PRESS);
  gboolean taken;

  event->key.window = g_object_ref (gtk_widget_get_window (view));
  event->key.send_event = TRUE;
  event->key.keyval = keyval;
  event->key.state = state;
  taken = gtk_widget_event (view, event);
  gdk_event_free (event);
  return taken;
}

static gboolean
range_is (GtkWidget *view, int lo, int hi)
{
  int got_lo, got_hi;

  gpuhist_histogram_view_get_range (GPUHIST_HISTOGRAM_VIEW (view), &got_lo, &got_hi);
  return got_lo == lo && got_hi == hi;
}

/* Columns of the plot shaded as the range is: pale yellow on white (histogram-view-draw.c). */
static int
shaded_columns (GtkWidget *window)
{
  GdkPixbuf *pixbuf = gtk_offscreen_window_get_pixbuf (GTK_OFFSCREEN_WINDOW (window));
  int n = 0;

  for (int x = 0; pixbuf != NULL && x < gdk_pixbuf_get_width (pixbuf); x++)
    {
      const guchar *p = gdk_pixbuf_get_pixels (pixbuf) + x * gdk_pixbuf_get_n_channels (pixbuf)
                        + (VIEW_HEIGHT / 2) * gdk_pixbuf_get_rowstride (pixbuf);

      n += abs (p[0] - 249) < 12 && abs (p[1] - 238) < 12 && abs (p[2] - 180) < 16;
    }
  if (pixbuf != NULL)
    g_object_unref (pixbuf);
  return n;
}

/* The range from the keyboard: the arrow keys move the mark and a one-bin range with it, Shift
 * stretches the range from where the mark was, Escape clears it (and only then is left to the
 * dialog); the range is shaded, in its columns only. */
static void
test_range_keys (GtkWidget *window, GtkWidget *view)
{
  uint64_t counts[256] = { 0 };
  Curve curve;
  int shaded;

  counts[100] = 5;
  render (window, view, counts, 256, &curve);
  CHECK (press (view, GDK_KEY_Home, 0) && range_is (view, 0, 0), "Home: the range is level 0");
  press (view, GDK_KEY_Right, 0);
  press (view, GDK_KEY_Right, 0);
  press (view, GDK_KEY_Right, 0);
  CHECK (range_is (view, 3, 3), "Right three times: the range is level 3 alone");
  for (int i = 0; i < 4; i++)
    press (view, GDK_KEY_Right, GDK_SHIFT_MASK);
  CHECK (range_is (view, 3, 7), "Shift+Right four times: levels 3-7");
  for (int i = 0; i < 6; i++)
    press (view, GDK_KEY_Left, GDK_SHIFT_MASK);
  CHECK (range_is (view, 1, 3), "Shift+Left six times: levels 1-3, from the same anchor");
  press (view, GDK_KEY_Page_Down, 0);
  CHECK (range_is (view, 17, 17), "Page Down: 16 levels on, one level");
  for (int i = 0; i < 40; i++)
    press (view, GDK_KEY_Right, GDK_SHIFT_MASK);

  render (window, view, counts, 256, &curve);
  shaded = shaded_columns (window);
  /* 41 levels wide, less the edges and the mark of level 57 */
  CHECK (range_is (view, 17, 57) && shaded > 36 * (curve.right - curve.left) / 256
             && shaded < 44 * (curve.right - curve.left) / 256,
         "levels 17-57 survive new counts of as many bins, and are shaded: %d columns", shaded);
  CHECK (press (view, GDK_KEY_Escape, 0) && range_is (view, -1, -1),
         "Escape clears the range and the mark");
  CHECK (!press (view, GDK_KEY_Escape, 0), "a second Escape is left to the dialog (it closes)");
  render (window, view, counts, 256, &curve);
  CHECK (shaded_columns (window) == 0, "no range, no shading");
}

/* Columns holding a pixel of exactly this colour (within a rounding step or two). */
static int
columns_of_colour (GtkWidget *window, const guchar rgb[3])
{
  GdkPixbuf *pixbuf = gtk_offscreen_window_get_pixbuf (GTK_OFFSCREEN_WINDOW (window));
  int n = 0;

  for (int x = 0; pixbuf != NULL && x < gdk_pixbuf_get_width (pixbuf); x++)
    for (int y = 0; y < gdk_pixbuf_get_height (pixbuf); y++)
      {
        const guchar *p = gdk_pixbuf_get_pixels (pixbuf) + x * gdk_pixbuf_get_n_channels (pixbuf)
                          + y * gdk_pixbuf_get_rowstride (pixbuf);

        if (abs (p[0] - rgb[0]) <= 3 && abs (p[1] - rgb[1]) <= 3 && abs (p[2] - rgb[2]) <= 3)
          {
            n++;
            break;
          }
      }
  if (pixbuf != NULL)
    g_object_unref (pixbuf);
  return n;
}

/* Luminance is shaded on top of green everywhere here, yet green's line keeps its own colour
 * along the whole plot: every shade is drawn before any line. */
static void
test_lines_over_shades (GtkWidget *window, GtkWidget *view)
{
  static const char *const names[] = { "green", "luminance" };
  static const guchar green[3] = { 13, 166, 26 }; /* gpuhist_channel_color's green, in 8 bits */
  uint64_t counts[2 * 256];
  int columns;

  for (int i = 0; i < 256; i++)
    {
      counts[i] = 40 + i % 7;
      counts[256 + i] = 100;
    }
  show_counts (view, counts, 2, 256, names);
  columns = columns_of_colour (window, green);
  CHECK (columns > VIEW_WIDTH * 3 / 4,
         "green's line is drawn over luminance's shade: %d of %d columns in its own colour",
         columns, VIEW_WIDTH);
}

int
main (int argc, char **argv)
{
  GtkWidget *window, *view;

  if (!gtk_init_check (&argc, &argv))
    {
      printf ("1..0 # SKIP no display\n");
      return 77;
    }
  window = gtk_offscreen_window_new ();
  view = gpuhist_histogram_view_new ();
  gtk_widget_set_size_request (view, VIEW_WIDTH, VIEW_HEIGHT);
  gtk_container_add (GTK_CONTAINER (window), view);
  gpuhist_compat_connect_draw (view, note_drawn, NULL);
  gtk_widget_show_all (window);

  test_wide (window, view);
  test_narrow (window, view);
  test_range_keys (window, view);
  test_lines_over_shades (window, view);

  gtk_widget_destroy (window);
  printf (failures ? "# %d failed\n" : "# all passed\n", failures);
  return failures ? 1 : 0;
}
