/* gpu-histogram: what the Netpbm reader's two files share: pnm.c (parsing the bytes) and
 * pnm-load.c (reading them from a stream or a file).  Not part of pnm.h. */
#ifndef GPUHIST_PNM_PRIVATE_H
#define GPUHIST_PNM_PRIVATE_H

#include "pnm.h"

#include <stddef.h>

/* Writes the message into error (when there is room) and returns status. */
pnm_status pnm_fail (char *error, size_t error_size, pnm_status status, const char *format, ...)
    __attribute__ ((format (printf, 4, 5)));

/* An image that holds nothing. */
void pnm_clear_image (pnm_image *image);

#endif /* GPUHIST_PNM_PRIVATE_H */
