/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * num: strict decimal numbers from text a launcher or a user wrote (rank numbers and counts
 * in environment variables, host names hN).
 */
#ifndef MRC_NUM_H
#define MRC_NUM_H

#include <stdint.h>

/*
 * @s as a decimal uint32 into *@v: digits only, 0..4294967295 (leading zeros allowed).
 * Returns 0, or -EINVAL for NULL, empty text, a sign or space, trailing text, or a value
 * past UINT32_MAX (*@v untouched then).
 */
int mrc_parse_u32(const char *s, uint32_t *v);

#endif
