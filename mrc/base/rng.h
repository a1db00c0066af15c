/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rng: the seeded pseudo-random generator every module uses (xoshiro256** seeded through
 * splitmix64, Blackman and Vigna): the same seed gives the same sequence on every machine,
 * which is what makes a run reproducible bit for bit.
 */
#ifndef MRC_RNG_H
#define MRC_RNG_H

#include <stdint.h>

struct mrc_rng {
	uint64_t s[4];
};

/* Seeds @r from @seed (any value, 0 included). */
void mrc_rng_seed(struct mrc_rng *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t mrc_rng_next(struct mrc_rng *r);

/* Uniform in [0, @n), @n > 0, without modulo bias (rejection of the low 2^64 mod n). */
uint64_t mrc_rng_below(struct mrc_rng *r, uint64_t n);

/*
 * One splitmix64 step (Steele, Lea and Flood; Vigna's reference splitmix64.c): adds the
 * golden-ratio increment 0x9E3779B97F4A7C15 to *@x and returns the mixed result, a
 * bijection of the new *@x. What seeds the generator above, and what the simulated
 * switches mix their ECMP hash with (mrc/sim/ecmp.h).
 */
uint64_t mrc_splitmix64(uint64_t *x);

#endif
