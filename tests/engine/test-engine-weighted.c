/* gpu-histogram: weighted runs (coverage plane, alpha weighting) and derived channels (value,
 * luminance) on the CPU backend, every method, against the test's own exact reference: GIMP's
 * rule read straight from gpuhist.h, with GIMP's arithmetic from gimp-literal.h. */
#include "backend.h"
#include "gimp-literal.h"
#include "test-util.h"

#include <math.h>

typedef unsigned __int128 u128;

static unsigned
sample (const void *row, int bytes, size_t i)
{
  return bytes == 1 ? ((const uint8_t *) row)[i] : ((const uint16_t *) row)[i];
}

/* The bin of a stored level under the spec's rule (gpuhist.h), GIMP's floats from the literal. */
static int
level_bin (const gh_run_spec *spec, int bins, float v, unsigned level)
{
  if (spec->bytes_per_sample == 1)
    return gimp_bin (v, 256);
  if (spec->binning == GH_BINNING_GIMP)
    return gimp_bin (v, bins);
  return (int) (level >> shift_for (bins));
}

/* One pixel's bins: the channels', then value's and luminance's. */
static void
expected_bins (const gh_run_spec *spec, int bins, const unsigned *s, int *bin)
{
  const unsigned full = spec->bytes_per_sample == 1 ? 255 : 65535;
  float f[GH_MAX_CHANNELS];
  for (int c = 0; c < spec->channels; c++)
    {
      f[c] = babl_float (s[c], full);
      bin[c] = level_bin (spec, bins, f[c], s[c]);
    }
  if (!spec->derived)
    return;
  const unsigned top = s[0] > s[1] ? (s[0] > s[2] ? s[0] : s[2]) : (s[1] > s[2] ? s[1] : s[2]);
  bin[spec->channels] = level_bin (spec, bins, gimp_max (f[0], f[1], f[2]), top);
  const float l = spec->luminance == GH_LUMINANCE_GIMP3 ? gimp3_luminance (f[0], f[1], f[2])
                  : spec->luminance == GH_LUMINANCE_GIMP3_LINEAR
                      ? gimp3_luminance_linear (f[0], f[1], f[2])
                      : gimp_luminance (f[0], f[1], f[2]);
  bin[spec->channels + 1] = spec->bytes_per_sample == 2 && spec->binning == GH_BINNING_SHIFT
                                ? gimp_bin (l, 65536) >> shift_for (bins)
                                : level_bin (spec, bins, l, 0);
}

/* The exact sums: a pixel adds m * a to its colour bins (and value, luminance), m * full to its
 * alpha bin; m the coverage (1 without a plane), a the alpha (1 unless alpha weighted). */
static void
expected_sums (const gh_run_spec *spec, int bins, const void *pixels, size_t stride,
               const void *coverage, size_t coverage_stride, u128 *sums)
{
  const int channels = spec->channels, out = channels + (spec->derived ? 2 : 0);
  const unsigned full = spec->bytes_per_sample == 1 ? 255 : 65535;
  for (int y = 0; y < spec->height; y++)
    for (int x = 0; x < spec->width; x++)
      {
        const void *row = (const uint8_t *) pixels + (size_t) y * stride;
        unsigned s[GH_MAX_CHANNELS];
        int bin[GH_MAX_CHANNELS + 2];
        for (int c = 0; c < channels; c++)
          s[c] = sample (row, spec->bytes_per_sample, (size_t) x * channels + c);
        expected_bins (spec, bins, s, bin);
        const u128 m = spec->coverage_bytes
                           ? sample ((const uint8_t *) coverage + (size_t) y * coverage_stride,
                                     spec->coverage_bytes, (size_t) x)
                           : 1;
        for (int c = 0; c < out; c++)
          {
            u128 w = m;
            if (spec->alpha_weighted)
              w *= c == channels - 1 ? full : s[channels - 1];
            sums[(size_t) c * bins + bin[c]] += w;
          }
      }
}

/* Noise samples, alpha and coverage random (or all full when `full`). */
static void
image_new (weighted_image *im, const gh_run_spec *spec, int bins, int full)
{
  im->spec = *spec;
  im->bins = bins;
  const int bytes = spec->bytes_per_sample, channels = spec->channels;
  im->stride = (size_t) spec->width * channels * bytes + (size_t) (test_random () % 3) * 2 * bytes;
  im->pixels = bytes == 1
                   ? test_image (IMAGE_NOISE, spec->width, spec->height, channels, im->stride)
                   : (uint8_t *) test_image16 (IMAGE_NOISE, spec->width, spec->height, channels,
                                               im->stride);
  const unsigned sample_full = bytes == 1 ? 255 : 65535;
  const unsigned coverage_full = spec->coverage_bytes == 1 ? 255 : 65535;
  im->coverage_stride
      = (size_t) spec->width * (spec->coverage_bytes ? spec->coverage_bytes : 1) + 4;
  im->coverage = calloc (im->coverage_stride * spec->height, 1);
  for (int y = 0; y < spec->height; y++)
    for (int x = 0; x < spec->width; x++)
      {
        uint8_t *row = im->pixels + (size_t) y * im->stride;
        const size_t alpha = (size_t) x * channels + channels - 1;
        if (spec->alpha_weighted && bytes == 1)
          row[alpha] = (uint8_t) (full ? sample_full : random_weight (sample_full));
        else if (spec->alpha_weighted)
          ((uint16_t *) row)[alpha] = (uint16_t) (full ? sample_full : random_weight (sample_full));
        uint8_t *mask = im->coverage + (size_t) y * im->coverage_stride;
        const unsigned m = full ? coverage_full : random_weight (coverage_full);
        if (spec->coverage_bytes == 1)
          mask[x] = (uint8_t) m;
        else if (spec->coverage_bytes == 2)
          ((uint16_t *) mask)[x] = (uint16_t) m;
      }
}

static void
image_free (weighted_image *im)
{
  free (im->pixels);
  free (im->coverage);
}

static void
describe (char *what, size_t size, const weighted_image *im, unsigned methods, size_t budget)
{
  const gh_run_spec *s = &im->spec;
  snprintf (what, size,
            "%dx%d, %d ch of %d bytes, %d bins%s, coverage %d bytes%s%s (luminance %d), "
            "methods 0x%x, budget %zu",
            s->width, s->height, s->channels, s->bytes_per_sample,
            s->bytes_per_sample == 1 ? 256 : im->bins,
            s->binning == GH_BINNING_GIMP ? " (GIMP's rule)" : "", s->coverage_bytes,
            s->alpha_weighted ? ", alpha weighted" : "", s->derived ? ", derived" : "",
            (int) s->luminance, methods, budget);
}

/* The result's fields against the spec, and every sum against the test's reference. */
static void
check_result (const weighted_image *im, const gh_result *result, const char *what)
{
  const gh_run_spec *s = &im->spec;
  const int bins = s->bytes_per_sample == 1 ? 256 : im->bins;
  const int out = s->channels + (s->derived ? 2 : 0);
  const int weighted = s->coverage_bytes || s->alpha_weighted;
  const uint64_t coverage_full = s->coverage_bytes == 0 ? 1 : s->coverage_bytes == 1 ? 255 : 65535;
  const uint64_t alpha_full = !s->alpha_weighted ? 1 : s->bytes_per_sample == 1 ? 255 : 65535;
  const uint64_t denominator = coverage_full * alpha_full;
  CHECK (result->channels == out && result->input_channels == s->channels
             && result->derived == s->derived && result->weighted == weighted
             && result->bins == bins && result->denominator == denominator,
         "%s: channels %d/%d, derived %d, weighted %d, bins %d, denominator %" PRIu64, what,
         result->channels, result->input_channels, result->derived, result->weighted, result->bins,
         result->denominator);
  CHECK ((result->counts == NULL) == weighted && (result->numerators == NULL) == !weighted
             && result->values != NULL,
         "%s: which tables", what);
  if (result->channels != out || result->bins != bins || !result->values
      || (weighted ? !result->numerators : !result->counts))
    return;
  u128 *want = calloc ((size_t) out * bins, sizeof *want);
  expected_sums (s, bins, im->pixels, im->stride, im->coverage, im->coverage_stride, want);
  for (size_t i = 0; i < (size_t) out * bins; i++)
    {
      const u128 got = weighted ? ((u128) result->numerators[i].hi << 64) | result->numerators[i].lo
                                : result->counts[i];
      const double value = (double) want[i] / (double) denominator;
      if (got != want[i] || result->values[i] != value)
        {
          CHECK (got == want[i] && result->values[i] == value,
                 "%s: channel %zu bin %zu: %.17g counted (%.6f pixels), %.17g expected", what,
                 i / bins, i % bins, (double) got, result->values[i], (double) want[i]);
          break;
        }
    }
  free (want);
}

/* The engine's own reference (gh_reference_count_spec), which other tests lean on. */
static void
check_engine_reference (const weighted_image *im)
{
  const int bins = im->spec.bytes_per_sample == 1 ? 256 : im->bins;
  const size_t n = (size_t) (im->spec.channels + (im->spec.derived ? 2 : 0)) * bins;
  gh_u128 *sums = calloc (n, sizeof *sums);
  u128 *want = calloc (n, sizeof *want);
  gh_reference_count_spec (&im->spec, bins, im->pixels, im->stride, im->coverage,
                           im->coverage_stride, sums);
  expected_sums (&im->spec, bins, im->pixels, im->stride, im->coverage, im->coverage_stride, want);
  size_t wrong = 0;
  for (size_t i = 0; i < n; i++)
    wrong += (((u128) sums[i].hi << 64) | sums[i].lo) != want[i];
  char what[256];
  describe (what, sizeof what, im, 0, 0);
  CHECK (wrong == 0, "gh_reference_count_spec, %s: %zu bins off", what, wrong);
  free (sums);
  free (want);
}

static void
run_and_check (const weighted_image *im, unsigned methods, int repetitions, size_t budget)
{
  char what[256];
  describe (what, sizeof what, im, methods, budget);
  gh_engine *engine = test_cpu_engine (methods, repetitions, budget, im->bins);
  gh_result result;
  gh_error error;
  gh_status status = gh_histogram_spec (engine, &im->spec, im->pixels, im->stride, im->coverage,
                                        im->coverage_stride, &result, &error);
  CHECK (status == GH_OK, "%s: %s", what, error.message);
  if (status == GH_OK && methods != GH_METHOD_BIT (GH_METHOD_READ_ONLY))
    check_result (im, &result, what);
  gh_result_clear (&result);
  gh_engine_free (engine);
}

/* Full coverage and opaque alpha: every sum is today's count times the denominator. */
static void
test_full_weights (void)
{
  static const int shapes[][3] = { { 2, 1, 1 }, { 4, 1, 1 }, { 4, 1, 2 }, { 4, 2, 2 },
                                   { 2, 2, 1 }, { 1, 1, 1 }, { 3, 1, 2 }, { 3, 2, 1 } };
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
    {
      const int channels = shapes[k][0], bytes = shapes[k][1], coverage = shapes[k][2];
      const int width = 1 + (int) (test_random () % 200), height = 1 + (int) (test_random () % 30);
      gh_run_spec spec;
      gh_run_spec_init (&spec, width, height, channels, bytes);
      spec.coverage_bytes = coverage;
      spec.alpha_weighted = channels == 2 || channels == 4;
      weighted_image im;
      image_new (&im, &spec, bytes == 1 ? 256 : 1024, 1);
      const size_t n = (size_t) channels * im.bins;
      uint64_t *today = calloc (n, sizeof *today);
      if (bytes == 1)
        gh_reference_count (im.pixels, width, height, channels, im.stride, today);
      else
        gh_reference_count16 ((const uint16_t *) im.pixels, width, height, channels, im.stride,
                              im.bins, today);
      gh_engine *engine
          = test_cpu_engine (GH_ALL_METHODS, 1, 4 * (size_t) width * channels * 2, im.bins);
      gh_result result;
      gh_error error;
      gh_status status = gh_histogram_spec (engine, &spec, im.pixels, im.stride, im.coverage,
                                            im.coverage_stride, &result, &error);
      CHECK (status == GH_OK, "full weights, shape %zu: %s", k, error.message);
      for (size_t i = 0; status == GH_OK && i < n; i++)
        if (result.numerators[i].hi != 0 || result.numerators[i].lo != today[i] * result.denominator
            || result.values[i] != (double) today[i])
          {
            CHECK (0,
                   "full weights, shape %zu: bin %zu holds %" PRIu64 " / %" PRIu64
                   ", today's count %" PRIu64,
                   k, i, result.numerators[i].lo, result.denominator, today[i]);
            break;
          }
      gh_result_clear (&result);
      gh_engine_free (engine);
      free (today);
      image_free (&im);
    }
}

/* Random specs, weights and strip sizes; each method alone and all together. */
static void
test_random_specs (void)
{
  static const int bins_choice[] = { 256, 1024, 65536 };
  for (int round = 0; round < 40; round++)
    {
      const int channels = 1 + (int) (test_random () % 4), bytes = 1 + (int) (test_random () % 2);
      gh_run_spec spec;
      gh_run_spec_init (&spec, 1 + (int) (test_random () % 150), 1 + (int) (test_random () % 20),
                        channels, bytes);
      spec.coverage_bytes = (int) (test_random () % 3);
      spec.alpha_weighted = (channels == 2 || channels == 4) && test_random () % 4 != 0;
      spec.derived = channels >= 3 && test_random () % 3 != 0;
      spec.binning = test_random () % 2 ? GH_BINNING_GIMP : GH_BINNING_SHIFT;
      spec.luminance = (gh_luminance) (test_random () % 3);
      weighted_image im;
      image_new (&im, &spec, bins_choice[test_random () % 3], 0);
      const size_t row = (size_t) spec.width * (channels * bytes + spec.coverage_bytes);
      const size_t budget = round % 3 ? 2 * row * (1 + test_random () % 4) : 0;
      for (int m = -1; m < GH_N_METHODS; m++)
        run_and_check (&im, m < 0 ? GH_ALL_METHODS : GH_METHOD_BIT (m), 1, budget);
      check_engine_reference (&im);
      run_and_check (&im, 0, 0, budget); /* FASTEST, in the background strip by strip */
      image_free (&im);
    }
}

/* An 8-bit RGBA image as the plug-in counts it: coverage, alpha weighting, value and luminance. */
static void
rgba_image_new (weighted_image *im, int width, int height, int full)
{
  gh_run_spec spec;
  gh_run_spec_init (&spec, width, height, 4, 1);
  spec.coverage_bytes = 1;
  spec.alpha_weighted = 1;
  spec.derived = 1;
  image_new (im, &spec, 256, full);
}

/* The narrow 32-bit counters of FASTEST, flushed before they overflow: one bin takes every
 * pixel of a strip at the largest 8-bit weight, 255 * 255, far past 2^32 / 65025 pixels. */
static void
test_narrow_flush (void)
{
  weighted_image im;
  rgba_image_new (&im, 1000, 300, 1);
  memset (im.pixels, 255, im.stride * im.spec.height);
  for (int m = 0; m < GH_N_METHODS; m++)
    run_and_check (&im, GH_METHOD_BIT (m), 1, 0);
  image_free (&im);
}

/* Unweighted 16-bit runs under GIMP's rule (the CPU backend's table of every level's bin):
 * every level in every channel, each channel's levels in its own order, at every bin count, each
 * method alone and all together, in several strips and in the background. */
static void
test_gimp_binned_unweighted (void)
{
  for (int channels = 1; channels <= GH_MAX_CHANNELS; channels++)
    for (size_t b = 0; b < sizeof test_bin_counts / sizeof test_bin_counts[0]; b++)
      {
        gh_run_spec spec;
        gh_run_spec_init (&spec, 256, 256, channels, 2);
        spec.binning = GH_BINNING_GIMP;
        weighted_image im;
        image_new (&im, &spec, test_bin_counts[b], 0);
        for (int y = 0; y < spec.height; y++)
          for (int x = 0; x < spec.width; x++)
            for (int c = 0; c < channels; c++)
              {
                const uint32_t pixel = (uint32_t) (y * spec.width + x);
                ((uint16_t *) (im.pixels + (size_t) y * im.stride))[x * channels + c]
                    = (uint16_t) (pixel * (2u * c + 1) + 7919u * c);
              }
        const size_t budget = 2 * (size_t) spec.width * channels * 2 * (1 + b);
        for (int m = -1; m < GH_N_METHODS; m++)
          run_and_check (&im, m < 0 ? GH_ALL_METHODS : GH_METHOD_BIT (m), 1, budget);
        run_and_check (&im, 0, 0, budget);
        image_free (&im);
      }
}

static void
test_bad_specs (void)
{
  gh_engine *engine = test_cpu_engine (0, 0, 0, 0);
  static const struct
  {
    int channels, coverage_bytes, alpha_weighted, derived;
    const char *needle;
  } bad[] = {
    { 4, 3, 0, 0, "coverage plane has 1 or 2 bytes" }, { 4, -1, 0, 0, "coverage plane" },
    { 1, 0, 1, 0, "alpha weighting needs" },           { 3, 1, 1, 0, "2- or 4-channel" },
    { 1, 0, 0, 1, "value and luminance need" },        { 2, 0, 1, 1, "3- or 4-channel run" },
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    {
      gh_run_spec spec;
      gh_run_spec_init (&spec, 8, 8, bad[k].channels, 1);
      spec.coverage_bytes = bad[k].coverage_bytes;
      spec.alpha_weighted = bad[k].alpha_weighted;
      spec.derived = bad[k].derived;
      gh_error error = { GH_OK, "" };
      gh_run *run = gh_run_begin_spec (engine, &spec, &error);
      CHECK (run == NULL && error.status == GH_ERROR_INVALID_ARGUMENT
                 && strstr (error.message, bad[k].needle),
             "bad spec %zu: %s", k, error.message);
      uint8_t pixels[8 * 8 * 4] = { 0 }, coverage[8 * 8 * 2] = { 0 };
      gh_result result = { 0 };
      gh_status status = gh_histogram_spec (engine, &spec, pixels, 8 * bad[k].channels, coverage,
                                            16, &result, &error);
      CHECK (status == GH_ERROR_INVALID_ARGUMENT && result.counts == NULL
                 && result.numerators == NULL,
             "bad spec %zu through gh_histogram_spec: %s", k, error.message);
      gh_run_abort (run);
    }
  gh_run_spec spec;
  gh_run_spec_init (&spec, 8, 8, 4, 1);
  spec.coverage_bytes = 1;
  gh_error error = { GH_OK, "" };
  gh_result result;
  uint8_t pixels[8 * 8 * 4] = { 0 };
  CHECK (gh_histogram_spec (engine, &spec, pixels, 32, NULL, 0, &result, &error)
             == GH_ERROR_INVALID_ARGUMENT,
         "a spec with a coverage plane and none given");
  gh_engine_free (engine);
}

/* A hand-made weighted result: CSV integers where exact, else 6 decimals; JSON numerators as
 * strings past 2^64; GIMP's statistics. */
static void
test_text_and_statistics (void)
{
  gh_u128 numerators[2 * 4] = { { 0, 0 }, { 0, 65025 }, { 0, 65025 * 3 + 1 }, { 0, 0 },
                                { 0, 0 }, { 0, 1 },     { 2, 65025 },         { 0, 0 } };
  double values[8];
  for (int i = 0; i < 8; i++)
    values[i] = ((double) numerators[i].hi * 18446744073709551616.0 + numerators[i].lo) / 65025;
  gh_result result = { 0 };
  result.channels = result.input_channels = 2;
  result.weighted = 1;
  result.bins = 4;
  result.numerators = numerators;
  result.values = values;
  result.denominator = 65025;
  static const char *const names[] = { "gray", "alpha" };
  char *text = NULL;
  size_t size = 0;
  FILE *out = open_memstream (&text, &size);
  CHECK (gh_write_csv (out, &result, names) == 0, "CSV written");
  fclose (out);
  CHECK (strcmp (text, "bin,gray,alpha\n0,0,0\n1,1,0.000015\n2,3.000015,567373904612367.062776\n"
                       "3,0,0\n")
             == 0,
         "CSV: %s", text);
  free (text);
  out = open_memstream (&text, &size);
  CHECK (gh_write_json (out, &result, names) == 0, "JSON written");
  fclose (out);
  CHECK (strstr (text, "\"denominator\": 65025") && strstr (text, "\"36893488147419168257\"")
             && strstr (text, "\"values\": [0,1,3.000015,0]") && !strstr (text, "\"counts\""),
         "JSON: %s", text);
  free (text);

  gh_channel_stats s;
  const double gray[4] = { 1, 0, 2, 1 };
  gh_stats_compute_values (gray, 4, &s);
  /* GIMP: mean of 0, 2/3, 2/3, 1 = 7/12 of the range, the median where 2 * sum > 4. */
  CHECK (fabs (s.mean - 1.75) < 1e-12 && s.median == 2 && s.weight == 4 && s.pixels == 4
             && s.min == 0 && s.max == 3 && s.bins_used == 3,
         "statistics: mean %f median %d weight %f", s.mean, s.median, s.weight);
  const double expect_sd = sqrt ((1 * 1.75 * 1.75 + 2 * 0.25 * 0.25 + 1 * 1.25 * 1.25) / 4);
  CHECK (fabs (s.stddev - expect_sd) < 1e-12, "stddev %f, want %f", s.stddev, expect_sd);
}

/* The CPU backend's fold of each strip's 64-bit sums into 128 bits, past 2^64: driven through
 * backend.h with sink tables that already hold nearly 2^64 (a full-size run would need 2^32
 * full-weight pixels in one bin, minutes here; the GPU huge test counts one). */
static void
test_fold_past_2_64 (void)
{
  const size_t pixels = 5000, bins = 1024, start = UINT64_MAX - 1000;
  gh_options options;
  gh_options_init (&options);
  options.cpu_threads = 2;
  char line[64];
  gh_error error = { GH_OK, "" };
  void *backend = gh_cpu_backend_ops.open (&options, GH_FAULT_NONE, line, sizeof line, &error);
  gh_run_plan plan = { .channels = 2,
                       .bytes_per_sample = 2,
                       .bins = (int) bins,
                       .shift = 6,
                       .coverage_bytes = 2,
                       .alpha_weighted = 1,
                       .out_channels = 2,
                       .coverage_offset = pixels * 4,
                       .strip_capacity = pixels * 4,
                       .methods = GH_ALL_METHODS,
                       .repetitions = 1 };
  gh_run_sink sink = { 0 };
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      sink.rep_ms[m] = calloc (1, sizeof (double));
      sink.weighted[m] = m == GH_METHOD_READ_ONLY ? NULL : calloc (2 * bins, sizeof (gh_u128));
      for (size_t i = 0; sink.weighted[m] && i < 2 * bins; i++)
        sink.weighted[m][i].lo = start;
    }
  void *run = gh_cpu_backend_ops.run_begin (backend, &plan, &sink, &error);
  uint8_t *staging = gh_cpu_backend_ops.staging (run);
  uint16_t *samples = (uint16_t *) staging, *coverage = (uint16_t *) (staging + pixels * 4);
  u128 want[2 * 1024];
  for (size_t i = 0; i < 2 * bins; i++)
    want[i] = start;
  const u128 full = (u128) 65535 * 65535;
  for (size_t p = 0; p < pixels; p++)
    {
      samples[2 * p] = (uint16_t) test_random ();
      samples[2 * p + 1] = 65535;
      coverage[p] = 65535;
      want[samples[2 * p] >> 6] += 3 * full;
      want[bins + 1023] += 3 * full;
    }
  for (int strip = 0; strip < 3; strip++)
    CHECK (gh_cpu_backend_ops.strip (run, pixels * 4, &error) == GH_OK, "strip: %s", error.message);
  gh_cpu_backend_ops.run_end (run, &error);
  for (int m = 0; m < GH_METHOD_READ_ONLY; m++)
    {
      size_t wrong = 0, carried = 0;
      for (size_t i = 0; i < 2 * bins; i++)
        {
          const u128 got = (u128) sink.weighted[m][i].hi << 64 | sink.weighted[m][i].lo;
          wrong += got != want[i];
          carried += sink.weighted[m][i].hi != 0;
        }
      CHECK (wrong == 0 && carried > 0, "%s: %zu sums off, %zu past 2^64",
             gh_method_name ((gh_method) m), wrong, carried);
    }
  for (int m = 0; m < GH_N_METHODS; m++)
    {
      free (sink.weighted[m]);
      free (sink.rep_ms[m]);
    }
  gh_cpu_backend_ops.close (backend);
}

/* Every 8-bit RGB triple once (a 4096 x 4096 RGBA image, alpha and coverage random), value and
 * luminance through the engine, every method, against GIMP's literal arithmetic. */
static void
test_every_triple (void)
{
  weighted_image im;
  rgba_image_new (&im, 4096, 4096, 0);
  for (uint32_t rgb = 0; rgb < (1u << 24); rgb++)
    {
      uint8_t *pixel = im.pixels + (size_t) (rgb >> 12) * im.stride + (size_t) (rgb & 4095) * 4;
      pixel[0] = (uint8_t) (rgb >> 16);
      pixel[1] = (uint8_t) (rgb >> 8);
      pixel[2] = (uint8_t) rgb;
    }
  run_and_check (&im, GH_ALL_METHODS, 1, 0);
  image_free (&im);
}

int
main (void)
{
  test_init ();
  test_full_weights ();
  test_random_specs ();
  test_narrow_flush ();
  test_gimp_binned_unweighted ();
  test_bad_specs ();
  test_text_and_statistics ();
  test_fold_past_2_64 ();
  test_every_triple ();
  return test_finish ("engine-weighted");
}
