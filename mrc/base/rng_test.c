/* SPDX-License-Identifier: BSD-2-Clause */
/* rng_test: unit tests of mrc/base/rng.c (`mrcgen-test rng`). */
#include "mrc/base/rng.c"
#include "mrc/base/st.h"

MRC_SELFTEST(rng)
{
	struct mrc_rng r;
	uint64_t x = 0, bad = 0;

	mrc_st_case(st, "rng: splitmix64/xoshiro256** reference outputs; below() stays in range");
	/* splitmix64 from state 0: first output 0xE220A8397B1DCDAF (Vigna's reference) */
	ST_EQ(st, mrc_splitmix64(&x), 0xE220A8397B1DCDAFull);
	ST_EQ(st, mrc_splitmix64(&x), 0x6E789E6AA1B965F4ull);
	/* xoshiro256** with s = {1, 2, 3, 4}: first outputs 11520, 0, 1509978240 */
	r.s[0] = 1, r.s[1] = 2, r.s[2] = 3, r.s[3] = 4;
	ST_EQ(st, mrc_rng_next(&r), 11520);
	ST_EQ(st, mrc_rng_next(&r), 0);
	ST_EQ(st, mrc_rng_next(&r), 1509978240);
	mrc_rng_seed(&r, 7);
	for (int i = 0; i < 1000; i++)
		bad += mrc_rng_below(&r, 3) >= 3;
	ST_EQ(st, bad, 0);
}
