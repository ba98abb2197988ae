/* gpu-histogram: the CPU's vectorscope cells, from packed lookups (cpu/chroma_sums.h) and eight
 * at a time (cpu/chroma_cells.h, where the processor runs it), against gh_vectorscope_cell's
 * arithmetic (scope_rules.h), for every one of the 2^24 8-bit colours, as RGB and as RGBA; and
 * the reachable cells' rows (vectorscope_rows.h) against the cells of every colour. */
#include "backend.h"
#include "chroma_cells.h"
#include "chroma_sums.h"
#include "test-util.h"
#include "vectorscope_rows.h"

/* Every colour with red `r`, 65536 pixels of `channels` bytes (alpha random), through
 * cpu_chroma_cells; returns how many land in another cell. */
static size_t
check_groups (int r, int channels, uint8_t *pixels, uint32_t *cells)
{
  for (uint32_t gb = 0; gb < 65536; gb++)
    {
      uint8_t *p = pixels + (size_t) gb * channels;
      p[0] = (uint8_t) r;
      p[1] = (uint8_t) (gb >> 8);
      p[2] = (uint8_t) gb;
      if (channels == 4)
        p[3] = (uint8_t) test_random ();
    }
  cpu_chroma_cells (pixels, channels, 65536 / CPU_CHROMA_GROUP, cells);
  size_t wrong = 0;
  for (uint32_t gb = 0; gb < 65536; gb++)
    wrong += cells[gb] != (uint32_t) gh_vectorscope_cell (r, (int) (gb >> 8), (int) (gb & 255));
  return wrong;
}

/* Every colour's cell lies in its row's run of vectorscope_rows.h, every cell of the runs is
 * some colour's, and the runs hold GH_VECTORSCOPE_REACHABLE cells. */
static void
check_reachable_rows (void)
{
  uint8_t *reached = calloc (GH_VECTORSCOPE_SIZE * GH_VECTORSCOPE_SIZE, 1);
  size_t outside = 0, in_runs = 0, unreached = 0;
  for (uint32_t rgb = 0; rgb < (1u << 24); rgb++)
    {
      const int cell
          = gh_vectorscope_cell ((int) (rgb >> 16), (int) (rgb >> 8 & 255), (int) (rgb & 255));
      const int cr = cell / GH_VECTORSCOPE_SIZE, cb = cell % GH_VECTORSCOPE_SIZE;
      outside += cb < gh_vectorscope_row_first[cr] || cb > gh_vectorscope_row_last[cr];
      reached[cell] = 1;
    }
  for (int cr = 0; cr < GH_VECTORSCOPE_SIZE; cr++)
    for (int cb = gh_vectorscope_row_first[cr]; cb <= gh_vectorscope_row_last[cr]; cb++)
      {
        in_runs++;
        unreached += !reached[cr * GH_VECTORSCOPE_SIZE + cb];
      }
  CHECK (outside == 0, "%zu colours land outside their row's run", outside);
  CHECK (unreached == 0, "%zu cells of the runs are no colour's", unreached);
  CHECK (in_runs == GH_VECTORSCOPE_REACHABLE, "the runs hold %zu cells, not %d", in_runs,
         GH_VECTORSCOPE_REACHABLE);
  free (reached);
}

int
main (void)
{
  test_init ();
  cpu_chroma_sums sums;
  cpu_chroma_sums_init (&sums);
  size_t wrong = 0;
  uint32_t first = 0;
  for (uint32_t rgb = 0; rgb < (1u << 24); rgb++)
    {
      const int r = (int) (rgb >> 16), g = (int) (rgb >> 8 & 255), b = (int) (rgb & 255);
      if (cpu_chroma_cell (&sums, (uint8_t) r, (uint8_t) g, (uint8_t) b)
          != (uint32_t) gh_vectorscope_cell (r, g, b))
        first = wrong++ ? first : rgb;
    }
  CHECK (wrong == 0, "%zu colours land in another cell, the first #%06x", wrong, first);
  check_reachable_rows ();
  if (!cpu_chroma_cells_available ())
    {
      printf ("# no AVX2 here: eight at a time not checked\n");
      return test_finish ("chroma-sums");
    }
  /* 4 bytes to spare after the last of 3-byte pixels (chroma_cells.h) */
  uint8_t *pixels = malloc (65536 * 4 + 4);
  uint32_t *cells = malloc (65536 * sizeof *cells);
  for (int channels = 3; channels <= 4; channels++)
    {
      size_t groups_wrong = 0;
      for (int r = 0; r < 256; r++)
        groups_wrong += check_groups (r, channels, pixels, cells);
      CHECK (groups_wrong == 0, "%d channels, eight at a time: %zu colours in another cell",
             channels, groups_wrong);
    }
  free (pixels);
  free (cells);
  return test_finish ("chroma-sums");
}
