/* gpu-histogram: the CPU's vectorscope cell from packed lookups (cpu/chroma_sums.h) against
 * gh_vectorscope_cell's arithmetic (scope_rules.h), for every one of the 2^24 8-bit colours. */
#include "backend.h"
#include "chroma_sums.h"
#include "test-util.h"

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
  return test_finish ("chroma-sums");
}
