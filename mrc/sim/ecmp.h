/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ecmp: how a simulated switch picks one next hop of an ECMP group for a plain packet
 * (stev/udp EV formats, the RoCE baseline, ICMPv6): a keyed hash of the header fields the
 * switch is configured to read, with the switch's own seed, reduced onto the group's
 * members (docs/roce-baseline.md "ECMP hashing"). Pure functions: no state, no I/O.
 */
#ifndef MRC_ECMP_H
#define MRC_ECMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Header fields a switch may hash (fabric.ecmp.hash_fields), one bit each. */
enum mrc_ecmp_field {
	MRC_ECMP_SRC = 1,	 /* IPv6 source address */
	MRC_ECMP_DST = 2,	 /* IPv6 destination address */
	MRC_ECMP_NH = 4,	 /* IPv6 next header */
	MRC_ECMP_SPORT = 8,	 /* UDP/TCP source port */
	MRC_ECMP_DPORT = 16,	 /* UDP/TCP destination port */
	MRC_ECMP_FLOW = 32,	 /* IPv6 flow label (RFC 6438) */
};

/* The default: the 5-tuple (src, dst, next header, source and destination port). */
#define MRC_ECMP_5TUPLE (MRC_ECMP_SRC | MRC_ECMP_DST | MRC_ECMP_NH | MRC_ECMP_SPORT | \
			 MRC_ECMP_DPORT)
#define MRC_ECMP_ALL (MRC_ECMP_5TUPLE | MRC_ECMP_FLOW)

/*
 * The ECMP hash of the IPv6 packet at @ip6 (@len bytes, from its IPv6 header): the fields
 * of @fields (enum mrc_ecmp_field bits), each absorbed into a 64-bit state started from
 * @seed by a splitmix64 round, so that two seeds give unrelated hashes (a CRC with a
 * different initial value would only XOR a constant into it: the same grouping of flows).
 * The ports are read only when the next header is UDP (17) or TCP (6) and the packet
 * holds them (else 0). A field not in @fields does not change the hash. @len below 40
 * hashes what is there as zeros.
 */
uint64_t mrc_ecmp_hash(const uint8_t *ip6, size_t len, unsigned fields, uint64_t seed);

/*
 * The member of an ECMP group that @hash picks: the group is the bits set in both @a and
 * @b (@words 64-bit words each, bit j of word j / 64 = next hop j; @b NULL: @a alone), and
 * the pick is member number (hash >> 32) mod (members), counted from bit 0 — so with every
 * bit set it is next hop (hash >> 32) mod (bits), the plain modulo-N ECMP of a full group.
 * Returns the next hop's index, or -1 for an empty group.
 */
int mrc_ecmp_pick(uint64_t hash, const uint64_t *a, const uint64_t *b, unsigned words);

/*
 * Switch number @index's seed under fabric.ecmp: @per_switch false gives every switch
 * @seed itself (identical hashing everywhere), true a seed of its own derived from @seed
 * and @index (a splitmix64 step).
 */
uint64_t mrc_ecmp_switch_seed(uint64_t seed, bool per_switch, uint32_t index);

#endif
