/* SPDX-License-Identifier: BSD-2-Clause */
/* ecmp_test: unit tests of mrc/sim/ecmp.c (`mrcgen-test ecmp`). */
#include "mrc/sim/ecmp.c"
#include "mrc/base/st.h"

#include <string.h>

/* A plain IPv6/UDP packet's first 44 bytes: flow label @fl, src ::@s, dst ::@d, UDP ports
 * @sp -> @dp, next header @nh. */
static void t_pkt(uint8_t *b, uint32_t fl, uint32_t s, uint32_t d, uint8_t nh, uint16_t sp,
	uint16_t dp)
{
	memset(b, 0, 44);
	b[0] = 0x60;
	b[1] = (uint8_t)(fl >> 16 & 0x0F);
	b[2] = (uint8_t)(fl >> 8);
	b[3] = (uint8_t)fl;
	b[6] = nh;
	b[7] = 64;
	b[8] = 0xfd;
	put_be32(b + 20, s);
	b[24] = 0xfd;
	put_be32(b + 36, d);
	put_be16(b + 40, sp);
	put_be16(b + 42, dp);
}

MRC_SELFTEST(ecmp)
{
	uint8_t a[44], b[44];

	mrc_st_case(st, "hash: a field outside the set changes nothing, one inside changes it");
	{
		static const struct {
			unsigned field;
			uint32_t fl, s, d;
			uint8_t nh;
			uint16_t sp, dp;
		} alt[] = {
			{MRC_ECMP_SRC, 0, 2, 0, 17, 0, 0},
			{MRC_ECMP_DST, 0, 0, 2, 17, 0, 0},
			{MRC_ECMP_NH, 0, 0, 0, 6, 0, 0},
			{MRC_ECMP_SPORT, 0, 0, 0, 17, 1, 0},
			{MRC_ECMP_DPORT, 0, 0, 0, 17, 0, 1},
			{MRC_ECMP_FLOW, 1, 0, 0, 17, 0, 0},
		};

		for (size_t i = 0; i < sizeof(alt) / sizeof(alt[0]); i++) {
			/* the base packet: flow 0x12345, ::1 -> ::1, UDP 49152 -> 4791; alt[i]
			 * changes one field (by adding its values) */
			t_pkt(a, 0x12345, 1, 1, 17, 49152, 4791);
			t_pkt(b, 0x12345 + alt[i].fl, 1 + alt[i].s, 1 + alt[i].d,
				(uint8_t)(alt[i].nh == 6 ? 6 : 17), (uint16_t)(49152 + alt[i].sp),
				(uint16_t)(4791 + alt[i].dp));
			ST_TRUE(st, mrc_ecmp_hash(a, 44, MRC_ECMP_ALL & ~alt[i].field, 7) ==
				mrc_ecmp_hash(b, 44, MRC_ECMP_ALL & ~alt[i].field, 7));
			ST_TRUE(st, mrc_ecmp_hash(a, 44, alt[i].field, 7) !=
				mrc_ecmp_hash(b, 44, alt[i].field, 7));
		}
		/* ports are only read behind UDP or TCP, and only when the packet holds them */
		t_pkt(a, 0, 1, 1, 58, 1, 2);
		t_pkt(b, 0, 1, 1, 58, 3, 4);
		ST_EQ(st, mrc_ecmp_hash(a, 44, MRC_ECMP_ALL, 7), mrc_ecmp_hash(b, 44, MRC_ECMP_ALL, 7));
		t_pkt(a, 0, 1, 1, 17, 1, 2);
		t_pkt(b, 0, 1, 1, 17, 3, 4);
		ST_EQ(st, mrc_ecmp_hash(a, 40, MRC_ECMP_ALL, 7), mrc_ecmp_hash(b, 40, MRC_ECMP_ALL, 7));
		ST_TRUE(st, mrc_ecmp_hash(a, 44, MRC_ECMP_ALL, 7) != mrc_ecmp_hash(a, 44, MRC_ECMP_ALL, 8));
	}

	mrc_st_case(st, "pick: modulo over the members, counted from bit 0; empty group -1");
	{
		uint64_t full[1] = {0xF}, odd[1] = {0xA}, none[1] = {0}, two[3] = {0, 1ull << 6, 1};
		uint64_t mask2[3] = {~0ull, ~0ull, ~0ull};

		/* hash >> 32 = 7: full group of 4 -> 7 mod 4 = 3; members {1, 3} -> 7 mod 2 = 1,
		 * the second member, 3 */
		ST_EQ_I(st, mrc_ecmp_pick(7ull << 32, full, NULL, 1), 3);
		ST_EQ_I(st, mrc_ecmp_pick(7ull << 32, full, odd, 1), 3);
		ST_EQ_I(st, mrc_ecmp_pick(6ull << 32, full, odd, 1), 1);
		ST_EQ_I(st, mrc_ecmp_pick(6ull << 32 | 0xFFFFFFFF, full, none, 1), -1);
		/* members 70 and 128 over 3 words: 5 mod 2 = 1 -> 128; 4 -> 70 */
		ST_EQ_I(st, mrc_ecmp_pick(5ull << 32, two, mask2, 3), 128);
		ST_EQ_I(st, mrc_ecmp_pick(4ull << 32, two, mask2, 3), 70);
		ST_EQ_I(st, mrc_ecmp_pick(4ull << 32, two, NULL, 3), 70);
	}

	mrc_st_case(st, "uniform: 64000 flows (source ports) onto 8 next hops, binomial bounds");
	{
		/*
		 * Each count is Binomial(64000, 1/8) for a hash that spreads uniformly: mean 8000,
		 * sd sqrt(64000 * 1/8 * 7/8) = 83.7. 4.5 sd either side (+-376) holds all 8 with
		 * probability about 1 - 8 * 6.8e-6; a hash that favours a next hop by 5% fails.
		 */
		unsigned cnt[8] = {0};
		uint64_t all = 0xFF;

		for (uint32_t k = 0; k < 64000; k++) {
			t_pkt(a, 0, 1 + k / 16000, 9, 17, (uint16_t)(0xC000 + k % 16000), 4791);
			cnt[mrc_ecmp_pick(mrc_ecmp_hash(a, 44, MRC_ECMP_5TUPLE, 1), &all, NULL, 1)]++;
		}
		for (int i = 0; i < 8; i++)
			ST_TRUE(st, cnt[i] >= 8000 - 376 && cnt[i] <= 8000 + 376);
	}

	mrc_st_case(st, "seeds: 'same' gives every switch one seed; per switch, picks independent");
	{
		/*
		 * Two switches picking among 8 next hops for the same 8000 flows: with one seed
		 * they agree on every flow; with seeds of their own, each flow agrees with
		 * probability 1/8 if the picks are independent: 1000 expected, sd
		 * sqrt(8000 * 1/8 * 7/8) = 29.6, bound +-150 (5 sd).
		 */
		uint64_t all = 0xFF, s0 = mrc_ecmp_switch_seed(42, true, 0),
			 s1 = mrc_ecmp_switch_seed(42, true, 1);
		unsigned same = 0, agree = 0;

		ST_EQ(st, mrc_ecmp_switch_seed(42, false, 0), 42);
		ST_EQ(st, mrc_ecmp_switch_seed(42, false, 17), 42);
		ST_TRUE(st, s0 != s1 && s0 != 42);
		for (uint32_t k = 0; k < 8000; k++) {
			uint64_t x;

			t_pkt(a, 0, 1, 2 + k % 40, 17, (uint16_t)(0xC000 + k), 4791);
			x = mrc_ecmp_hash(a, 44, MRC_ECMP_5TUPLE, 42);
			same += mrc_ecmp_pick(x, &all, NULL, 1) ==
				mrc_ecmp_pick(mrc_ecmp_hash(a, 44, MRC_ECMP_5TUPLE, 42), &all, NULL, 1);
			agree += mrc_ecmp_pick(mrc_ecmp_hash(a, 44, MRC_ECMP_5TUPLE, s0), &all, NULL,
					 1) ==
				 mrc_ecmp_pick(mrc_ecmp_hash(a, 44, MRC_ECMP_5TUPLE, s1), &all, NULL, 1);
		}
		ST_EQ(st, same, 8000);
		ST_TRUE(st, agree >= 1000 - 150 && agree <= 1000 + 150);
	}
}
