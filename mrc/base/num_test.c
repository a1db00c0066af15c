/* SPDX-License-Identifier: BSD-2-Clause */
/* num_test: unit tests of mrc/base/num.c (`mrcgen-test num`). */
#include "mrc/base/num.c"
#include "mrc/base/st.h"

MRC_SELFTEST(num)
{
	static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "1x", "0x10",
		"4294967296", "99999999999999999999" };
	uint32_t v = 7;

	mrc_st_case(st, "num: decimal uint32, digits only, 0..2^32-1");
	ST_EQ_I(st, mrc_parse_u32("0", &v), 0);
	ST_EQ(st, v, 0);
	ST_EQ_I(st, mrc_parse_u32("007", &v), 0);
	ST_EQ(st, v, 7);
	ST_EQ_I(st, mrc_parse_u32("4294967295", &v), 0);
	ST_EQ(st, v, 4294967295u);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 5;
		ST_EQ_I(st, mrc_parse_u32(bad[i], &v), -EINVAL);
		ST_EQ(st, v, 5);
	}
	ST_EQ_I(st, mrc_parse_u32(NULL, &v), -EINVAL);
}
