// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_wire: libFuzzer entry for the mrc/wire decoders (docs/wire-format.md, RFC 8754): every EV
 * format, with and without the outer header, the SRH and plain IPv6/UDP decoders, the
 * checksum helper and the trim; a packet that decodes whole must survive
 * encode -> decode with the same fields. The ICMPv6 decoder reads the input too, and the
 * Time Exceeded a switch would send about it must decode, quoting its first bytes.
 */
#include "mrc/engine/wire.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[MRC_PKT_MAX];

/* Re-encodes a decoded packet and requires the second decode to agree. */
static void round_trip(const struct mrc_wire_cfg *cfg, struct mrc_pkt *p)
{
	struct mrc_pkt q;
	int n, r;

	if (p->n_segs)
		p->outer_dst = p->segs[0];
	n = mrc_wire_encode(cfg, p, out, sizeof(out));
	if (n < 0)
		abort();
	r = mrc_wire_decode(cfg, out, (size_t)n, true, &q);
	if (r != MRC_WIRE_OK || q.trimmed)
		abort();
	if (q.opcode != p->opcode || q.psn != p->psn || q.dest_qp != p->dest_qp ||
	    q.flags != p->flags || q.ev != p->ev || q.pkey != p->pkey || q.dscp != p->dscp ||
	    q.n_segs != p->n_segs || memcmp(q.src.b, p->src.b, 16) || memcmp(q.dst.b, p->dst.b, 16))
		abort();
	if (q.payload_len != p->payload_len ||
	    (q.payload_len && memcmp(q.payload, p->payload, q.payload_len)))
		abort();
	if (q.va != p->va || q.rkey != p->rkey || q.imm != p->imm || q.msn != p->msn)
		abort();
	switch (p->opcode) {
	case MRC_OP_SACK:
		if (memcmp(&q.seth, &p->seth, sizeof(q.seth)))
			abort();
		break;
	case MRC_OP_NACK:
		if (memcmp(&q.neth, &p->neth, sizeof(q.neth)))
			abort();
		break;
	case MRC_OP_EP_RESPONSE:
		if (memcmp(&q.eeth, &p->eeth, sizeof(q.eeth)))
			abort();
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mrc_wire_cfg cfg;
	struct mrc_ip6_udp h;
	struct mrc_srh srh;
	struct mrc_icmp6 ic;
	struct mrc_pkt p;
	uint8_t *copy;
	uint16_t c;

	mrc_wire_cfg_default(&cfg);
	for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
		cfg.ev_format = (enum mrc_ev_format)f;
		for (int outer = 0; outer < 2; outer++) {
			for (int io = 0; io < (f == MRC_EVF_SRV6 ? 2 : 1); io++) {
				cfg.icrc_outer = io;
				if (mrc_wire_decode(&cfg, data, size, outer, &p) == MRC_WIRE_OK &&
				    !p.trimmed && (outer || f != MRC_EVF_SRV6))
					round_trip(&cfg, &p);
			}
		}
	}
	/* inner-style packets with a repaired UDP checksum reach the header parsers */
	if (size >= 48 && data[6] == 17 && (copy = malloc(size))) {
		memcpy(copy, data, size);
		copy[46] = copy[47] = 0;
		if (mrc_wire_udp6_csum(copy, size, &c) == 0) {
			copy[46] = (uint8_t)(c >> 8);
			copy[47] = (uint8_t)c;
			cfg.icrc_outer = false;
			cfg.check_icrc = false;
			for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
				cfg.ev_format = (enum mrc_ev_format)f;
				if (mrc_wire_decode(&cfg, copy, size, false, &p) == MRC_WIRE_OK &&
				    !p.trimmed && f != MRC_EVF_SRV6)
					round_trip(&cfg, &p);
			}
			cfg.check_icrc = true;
		}
		free(copy);
	}
	mrc_wire_decode_ip6_udp(data, size, &h);
	mrc_wire_decode_icmp6(data, size, &ic);
	{
		static const struct mrc_ip6 sw = {{0xfc, 0, 0, 0, 0x08, 0x01}};
		int n = mrc_wire_icmp6_time_exceeded(&sw, data, size, 0, out, sizeof(out));

		if (n > 0 && (mrc_wire_decode_icmp6(out, (size_t)n, &ic) != MRC_WIRE_OK ||
				     ic.type != 3 || ic.code != 0 ||
				     ic.body_len + 48 != (size_t)n || ic.body_len > 1232 ||
				     memcmp(ic.body, data, ic.body_len) != 0))
			abort();
	}
	mrc_wire_srh_decode(data, size, &srh);
	mrc_wire_udp6_csum(data, size, &c);
	if (size >= 40) {
		copy = malloc(size);
		if (!copy)
			return 0;
		memcpy(copy, data, size);
		if (mrc_wire_trim(copy, size, 40 + data[0] % (size - 39), data[1] >> 2) >= 0) {
			cfg.ev_format = MRC_EVF_SRV6;
			mrc_wire_decode(&cfg, copy, size, true, &p);
		}
		free(copy);
	}
	return 0;
}
