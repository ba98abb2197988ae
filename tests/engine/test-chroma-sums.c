/* gpu-histogram: the CPU's vectorscope cells, from packed lookups (cpu/chroma_sums.h) and eight
 * at a time (cpu/chroma_cells.h, where the processor runs it), against gh_vectorscope_cell's
 * arithmetic (scope_rules.h), for every one of the 2^24 8-bit colours, as RGB and as RGBA. */
#include "backend.h"
#include "chroma_cells.h"
#include "chroma_sums.h"
#include "test-util.h"

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
