/* SPDX-License-Identifier: BSD-2-Clause */
/* ecmp: the switches' keyed ECMP hash and group pick; see ecmp.h. */
#include "mrc/sim/ecmp.h"
#include "mrc/base/bytes.h"
#include "mrc/base/rng.h"

/* One absorbed word: the state takes it in and goes through a splitmix64 step. */
static inline uint64_t absorb(uint64_t h, uint64_t v)
{
	h ^= v;
	return mrc_splitmix64(&h);
}

uint64_t mrc_ecmp_hash(const uint8_t *ip6, size_t len, unsigned fields, uint64_t seed)
{
	uint8_t hdr[44] = {0}; /* IPv6 header and the first 4 bytes after it (the ports) */
	uint64_t h = seed, w;
	uint8_t nh;

	for (size_t i = 0; i < sizeof(hdr) && i < len; i++)
		hdr[i] = ip6[i];
	nh = hdr[6];
	if (fields & MRC_ECMP_SRC) {
		h = absorb(h, get_be64(hdr + 8));
		h = absorb(h, get_be64(hdr + 16));
	}
	if (fields & MRC_ECMP_DST) {
		h = absorb(h, get_be64(hdr + 24));
		h = absorb(h, get_be64(hdr + 32));
	}
	w = 0;
	if (fields & MRC_ECMP_NH)
		w |= (uint64_t)nh << 56;
	if (fields & MRC_ECMP_FLOW) /* RFC 8200 §3: 20 bits, bytes 1-3 */
		w |= (uint64_t)((hdr[1] & 0x0F) << 16 | hdr[2] << 8 | hdr[3]) << 32;
	if ((nh == 17 || nh == 6) && len >= sizeof(hdr)) {
		if (fields & MRC_ECMP_SPORT)
			w |= (uint64_t)get_be16(hdr + 40) << 16;
		if (fields & MRC_ECMP_DPORT)
			w |= get_be16(hdr + 42);
	}
	return absorb(h, w);
}

int mrc_ecmp_pick(uint64_t hash, const uint64_t *a, const uint64_t *b, unsigned words)
{
	unsigned n = 0, k;

	for (unsigned i = 0; i < words; i++)
		n += (unsigned)__builtin_popcountll(a[i] & (b ? b[i] : ~0ull));
	if (!n)
		return -1;
	k = (unsigned)((hash >> 32) % n); /* the k-th member, from 0 */
	for (unsigned i = 0;; i++) {
		uint64_t m = a[i] & (b ? b[i] : ~0ull);
		unsigned c = (unsigned)__builtin_popcountll(m);

		if (k >= c) {
			k -= c;
			continue;
		}
		while (k--)
			m &= m - 1; /* drop the lowest member */
		return (int)(i * 64 + (unsigned)__builtin_ctzll(m));
	}
}

uint64_t mrc_ecmp_switch_seed(uint64_t seed, bool per_switch, uint32_t index)
{
	uint64_t x = seed ^ (uint64_t)index * 0xD1B54A32D192ED03ull;

	return per_switch ? mrc_splitmix64(&x) : seed;
}
