/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_ep.h: the record format of fuzz_ep's inputs, shared with its corpus generator.
 *
 * An input is a sequence of records, each fed to host 0's endpoint while it and host 1
 * run a write to each other:
 *
 *   u8 head   bit 0: arrival plane; bits 2:1: inner source (enum fe_src); bit 3: ECN CE;
 *             bits 7:4: the opcode template (enum fe_kind), FE_RAW: raw bytes
 *   u8 delta  the simulated time run before the record: delta^2 * FE_DELTA_PS
 *   FE_PORT:  nothing more: mrc_ep_port_status of host 0's port on that plane, up when
 *             the CE bit is set (the scripted network still delivers to a port that is down)
 *   FE_RAW:   u16 length (big endian, mod MRC_PKT_MAX), then that many bytes (fewer if the
 *             input ends): a packet as it arrives, outer IPv6 first
 *   template: the fields below in order, read as far as the input goes (0 past its end),
 *             then encoded by mrc_wire_encode so the packet passes decode and its checks:
 *             u8 ev sel (mod 9: the EV of that index, 8: u32 raw), i16 PSN offset (data and
 *             PROBE: from host 0's next expected PSN; SACK, NACK, ACK: from its oldest
 *             unacknowledged PSN; endpoint packets: the id itself), u8 BTH flags, u8 DestQP
 *             sel (mod 4: 1 the live QP, 2 MRC_EP_DEST_QP, 3 u24 raw, 0 the live QP),
 *             then the opcode's own fields (fuzz_ep.c fe_template()).
 */
#ifndef HARNESS_FUZZ_FUZZ_EP_H
#define HARNESS_FUZZ_FUZZ_EP_H

#include "mrc/engine/wire.h"

#define FE_DELTA_PS 20000ull /* 20 ns: delta 255 runs 1.3 ms */

/* The inner source address of a template packet. */
enum fe_src {
	FE_SRC_PEER = 0,	/* host 1 on the arrival plane: passes the source checks */
	FE_SRC_OTHER_HOST = 1,	/* host 2: rx_spoofed */
	FE_SRC_FOREIGN = 2,	/* outside the job: rx_foreign */
	FE_SRC_OTHER_PLANE = 3, /* host 1 on the other plane: rx_wrong_plane */
};

/* Opcode templates, by the high nibble of a record's head byte. */
enum fe_kind {
	FE_WRITE_FIRST = 0,
	FE_WRITE_MIDDLE,
	FE_WRITE_LAST,
	FE_WRITE_LAST_IMM,
	FE_WRITE_ONLY,
	FE_WRITE_ONLY_IMM,
	FE_ACK,
	FE_EP_REQUEST,
	FE_EP_RESPONSE,
	FE_SACK,
	FE_NACK,
	FE_PROBE,
	FE_PORT = 14, /* host 0's port on the record's plane goes down (CE bit clear) or up */
	FE_RAW = 15,
};

static const uint8_t fe_opcode[FE_PROBE + 1] = {MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE,
	MRC_OP_WRITE_LAST, MRC_OP_WRITE_LAST_IMM, MRC_OP_WRITE_ONLY, MRC_OP_WRITE_ONLY_IMM,
	MRC_OP_ACK, MRC_OP_EP_REQUEST, MRC_OP_EP_RESPONSE, MRC_OP_SACK, MRC_OP_NACK,
	MRC_OP_PROBE};

/* A record's head byte. */
static inline uint8_t fe_head(unsigned plane, enum fe_src src, bool ce, enum fe_kind kind)
{
	return (uint8_t)((plane & 1) | (unsigned)src << 1 | (ce ? 8 : 0) | (unsigned)kind << 4);
}

#endif
