/* SPDX-License-Identifier: BSD-2-Clause */
/* rng: xoshiro256** seeded through splitmix64; see rng.h. */
#include "mrc/base/rng.h"

uint64_t mrc_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void mrc_rng_seed(struct mrc_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = mrc_splitmix64(&seed);
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
