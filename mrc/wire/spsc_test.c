/* SPDX-License-Identifier: BSD-2-Clause */
/* spsc_test: unit tests of mrc/wire/spsc.c (`mrcgen-test spsc`). */
#include "mrc/wire/spsc.c"
#include "mrc/base/st.h"

#include <pthread.h>

#define N_ITEMS 1000000u

static void *producer(void *arg)
{
	struct mrc_spsc *r = arg;

	for (uint64_t i = 1; i <= N_ITEMS; i++)
		while (!mrc_spsc_push(r, &i))
			;
	return NULL;
}

MRC_SELFTEST(spsc)
{
	struct mrc_spsc r;
	uint32_t v;
	uint64_t x, sum = 0, last = 0;
	bool order = true;
	pthread_t th;

	mrc_st_case(st, "bad capacities are refused");
	ST_EQ_I(st, mrc_spsc_init(&r, 3, 4), -EINVAL);
	ST_EQ_I(st, mrc_spsc_init(&r, 1, 4), -EINVAL);
	ST_EQ_I(st, mrc_spsc_init(&r, 4, 0), -EINVAL);

	mrc_st_case(st, "4 entries: a fifth push fails, pops come in order, then empty");
	ST_EQ_I(st, mrc_spsc_init(&r, 4, sizeof(v)), 0);
	for (v = 10; v < 14; v++)
		ST_TRUE(st, mrc_spsc_push(&r, &v));
	ST_TRUE(st, !mrc_spsc_push(&r, &v));
	ST_EQ(st, mrc_spsc_count(&r), 4);
	for (uint32_t want = 10; want < 14; want++) {
		ST_TRUE(st, mrc_spsc_pop(&r, &v));
		ST_EQ(st, v, want);
	}
	ST_TRUE(st, !mrc_spsc_pop(&r, &v));
	/* past the wrap of the indices' low bits: each entry comes back as it went in */
	for (uint32_t i = 0; i < 6; i++) {
		uint32_t out = 99;

		ST_TRUE(st, mrc_spsc_push(&r, &i));
		ST_TRUE(st, mrc_spsc_pop(&r, &out));
		ST_EQ(st, out, i);
	}
	mrc_spsc_free(&r);

	mrc_st_case(st, "two threads: 10^6 items arrive once each, in order (sum n(n+1)/2)");
	ST_EQ_I(st, mrc_spsc_init(&r, 64, sizeof(uint64_t)), 0);
	pthread_create(&th, NULL, producer, &r);
	for (uint64_t got = 0; got < N_ITEMS;) {
		if (!mrc_spsc_pop(&r, &x))
			continue;
		order &= x == last + 1;
		last = x;
		sum += x;
		got++;
	}
	pthread_join(th, NULL);
	ST_TRUE(st, order);
	ST_EQ(st, sum, (uint64_t)N_ITEMS * (N_ITEMS + 1) / 2);
	mrc_spsc_free(&r);
}
