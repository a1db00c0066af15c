/* SPDX-License-Identifier: BSD-2-Clause */
/* rng: xoshiro256** seeded through splitmix64; see rng.h. */
#include "mrc/rng.h"
#include "mrc/st.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void mrc_rng_seed(struct mrc_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t mrc_rng_next(struct mrc_rng *r)
{
	uint64_t *s = r->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t mrc_rng_below(struct mrc_rng *r, uint64_t n)
{
	uint64_t lim = -n % n, x; /* reject the low 2^64 mod n values */

	do
		x = mrc_rng_next(r);
	while (x < lim);
	return x % n;
}

MRC_SELFTEST(rng)
{
	struct mrc_rng r;
	uint64_t x = 0, bad = 0;

	mrc_st_case(st, "rng: splitmix64/xoshiro256** reference outputs; below() stays in range");
	/* splitmix64 from state 0: first output 0xE220A8397B1DCDAF (Vigna's reference) */
	ST_EQ(st, splitmix64(&x), 0xE220A8397B1DCDAFull);
	ST_EQ(st, splitmix64(&x), 0x6E789E6AA1B965F4ull);
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
