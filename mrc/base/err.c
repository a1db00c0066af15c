/* SPDX-License-Identifier: BSD-2-Clause */
/* err: formatting an error message into a caller's buffer. */
#include "mrc/base/err.h"

#include <stdarg.h>
#include <stdio.h>

void mrc_errf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
