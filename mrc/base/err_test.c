/* SPDX-License-Identifier: BSD-2-Clause */
/* err_test: unit tests of mrc/base/err.c (`mrcgen-test err`); includes err.c. */
#include "mrc/base/err.c"
#include "mrc/base/st.h"

#include <string.h>

MRC_SELFTEST(err)
{
	char buf[8];

	mrc_st_case(st, "E01 formatted into the buffer, cut to fit, always terminated");
	mrc_errf(buf, sizeof(buf), "%s %d", "ab", 42);
	ST_EQ_STR(st, buf, "ab 42");
	mrc_errf(buf, sizeof(buf), "%s", "0123456789"); /* 8 bytes: 7 characters and NUL */
	ST_EQ_STR(st, buf, "0123456");

	mrc_st_case(st, "E02 no buffer, or one of 0 bytes: nothing written");
	memcpy(buf, "keep", 5);
	mrc_errf(NULL, 8, "x");
	mrc_errf(buf, 0, "x");
	ST_EQ_STR(st, buf, "keep");
}
