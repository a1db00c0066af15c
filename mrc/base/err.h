/* SPDX-License-Identifier: BSD-2-Clause */
/* err: formatting an error message into a caller's buffer. */
#ifndef MRC_ERR_H
#define MRC_ERR_H

#include <stddef.h>

/*
 * printf-style message into @err (@errlen bytes, always NUL-terminated, truncated to fit);
 * does nothing when @err is NULL or @errlen is 0, so callers may pass no buffer.
 */
void mrc_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
