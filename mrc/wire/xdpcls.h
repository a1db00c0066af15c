/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xdpcls: which frames of a NIC port the XDP program of the xdp dataplane hands to the
 * port's AF_XDP socket — one rule, compiled twice: into the BPF program
 * (mrc/wire/bpf/mrc_xdp.c, by clang -target bpf) and into the unit tests (xsk_test.c), so
 * the rule the kernel runs is the rule the tests check. Plain C over byte pointers: every
 * read is bounds-checked against @end first, as the BPF verifier demands.
 *
 * "The host's MRC packets" (docs/wire-format.md "Packet stack", "Other EV format modes"):
 * an Ethernet frame carrying IPv6 whose destination is the port's outer locator
 * (<block>:<port uSID>::, the DA once the last uN has shifted the container: EV format
 * srv6), or a UDP datagram to port 4791 addressed to the port's inner address (EV formats
 * stev and udp, no outer header). Everything else (neighbour discovery, other traffic)
 * passes to the kernel. A frame of ours whose headers do not hold together — an IPv6
 * payload length past the frame, next header neither 41 (IPv6) nor 43 (routing) after the
 * locator, an SRH or inner header cut short, an inner header that is not IPv6, a UDP
 * header cut short — is malformed: dropped there and counted, never handed to the engine.
 */
#ifndef MRC_XDPCLS_H
#define MRC_XDPCLS_H

#ifdef __bpf__
#include <linux/types.h>
typedef __u8 mrc_xdp_u8;
typedef __u16 mrc_xdp_u16;
typedef __u32 mrc_xdp_u32;
#define MRC_XDP_INLINE static __attribute__((always_inline)) inline
#else
#include <stdint.h>
typedef uint8_t mrc_xdp_u8;
typedef uint16_t mrc_xdp_u16;
typedef uint32_t mrc_xdp_u32;
#define MRC_XDP_INLINE static inline
#endif

#define MRC_XDP_ETH_HLEN 14
#define MRC_XDP_ROCE_PORT 4791 /* RoCEv2's UDP port (IBTA Annex A17) */

/* The port's addresses: what the program's config map holds (one entry). */
struct mrc_xdp_cfg {
	mrc_xdp_u8 locator[16];	/* outer: <block>:<port uSID>:: */
	mrc_xdp_u8 inner[16];	/* inner: <host prefix>:plane:host:1 */
};

/* Verdicts; the program counts each in its per-CPU counter of the same index. */
enum mrc_xdp_verdict {
	MRC_XDP_OURS = 0,	/* to the port's AF_XDP socket */
	MRC_XDP_PASS = 1,	/* not MRC: to the kernel */
	MRC_XDP_MALFORMED = 2,	/* MRC by its address, headers broken: dropped */
	MRC_XDP_NO_XSK = 3,	/* MRC, but no socket on the queue it came in on: dropped */
	MRC_XDP_NCOUNT = 4,
};

MRC_XDP_INLINE int mrc_xdp_addr_eq(const mrc_xdp_u8 *a, const mrc_xdp_u8 *b)
{
	mrc_xdp_u8 d = 0;

#ifdef __bpf__
#pragma unroll
#endif
	for (int i = 0; i < 16; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/*
 * The verdict on a frame whose first bytes are at @p (Ethernet header first) and end at
 * @end, @frame_len bytes long in all (more than @end - @p for a multi-buffer frame, whose
 * later buffers the program cannot read; their length still counts against the IPv6
 * payload length). Returns enum mrc_xdp_verdict (never MRC_XDP_NO_XSK: that is the
 * redirect's).
 */
MRC_XDP_INLINE int mrc_xdp_classify(const mrc_xdp_u8 *p, const mrc_xdp_u8 *end,
	mrc_xdp_u32 frame_len, const struct mrc_xdp_cfg *c)
{
	const mrc_xdp_u8 *ip = p + MRC_XDP_ETH_HLEN;
	mrc_xdp_u32 plen, nh, off = 40; /* off: the inner header's, from the outer's start */

	if (ip + 40 > end || p[12] != 0x86 || p[13] != 0xdd || ip[0] >> 4 != 6)
		return MRC_XDP_PASS;
	plen = (mrc_xdp_u32)ip[4] << 8 | ip[5];
	nh = ip[6];
	if (mrc_xdp_addr_eq(ip + 24, c->locator)) {
		if (plen == 0 || frame_len < MRC_XDP_ETH_HLEN + 40 + plen)
			return MRC_XDP_MALFORMED;
		if (nh == 43) { /* SRH (RFC 8754): 8 bytes, then 8 per Hdr Ext Len */
			if (ip + 48 > end)
				return MRC_XDP_MALFORMED;
			if (ip[40] != 41)
				return MRC_XDP_MALFORMED;
			off += 8 + 8 * (mrc_xdp_u32)ip[41];
		} else if (nh != 41) {
			return MRC_XDP_MALFORMED;
		}
		if (off + 40 > 40 + plen)
			return MRC_XDP_MALFORMED;
		off &= 0x7ff; /* at most 40 + 8 + 8 * 255: a bound the verifier can see */
		if (ip + off + 40 > end || ip[off] >> 4 != 6)
			return MRC_XDP_MALFORMED;
		return MRC_XDP_OURS;
	}
	if (nh == 17 && mrc_xdp_addr_eq(ip + 24, c->inner)) {
		if (ip + 48 > end)
			return MRC_XDP_MALFORMED;
		if (((mrc_xdp_u32)ip[42] << 8 | ip[43]) != MRC_XDP_ROCE_PORT)
			return MRC_XDP_PASS;
		if (plen < 8 || frame_len < MRC_XDP_ETH_HLEN + 40 + plen)
			return MRC_XDP_MALFORMED;
		return MRC_XDP_OURS;
	}
	return MRC_XDP_PASS;
}

#endif
