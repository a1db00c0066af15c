/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wire: MRC packet codecs — outer IPv6 [+SRH] / inner IPv6 / UDP 4791 / BTH / MRC
 * extension headers / payload / ICRC, as in shared/design/WIRE.md ("Packet stack",
 * "Opcodes", "Control headers"). Pure: no I/O, no allocation.
 */
#ifndef MRC_WIRE_H
#define MRC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRC_UDP_PORT	  4791
#define MRC_IP6_HLEN	  40
#define MRC_UDP_HLEN	  8
#define MRC_BTH_LEN	  12
#define MRC_METH_LEN	  4
#define MRC_TSETH_LEN	  4
#define MRC_RETH_LEN	  16
#define MRC_IMM_LEN	  4
#define MRC_AETH_LEN	  4
#define MRC_SETH_LEN	  28
#define MRC_CC_STATE_LEN  8
#define MRC_NETH_LEN	  20
#define MRC_PETH_LEN	  16
#define MRC_ERTH_LEN	  16
#define MRC_EETH_LEN	  36
#define MRC_ICRC_LEN	  4
#define MRC_SRH_MAX_SEGS  8	/* segments one SRH may carry in mrcgen */
#define MRC_PKT_MAX	  9216	/* largest packet mrcgen builds or accepts, bytes */

/* EV format modes (WIRE.md "Packet stack" and "Other EV format modes"). */
enum mrc_ev_format {
	MRC_EVF_SRV6 = 0, /* outer IPv6 [+SRH] with a uSID container, inner IPv6/UDP */
	MRC_EVF_STEV,	  /* no outer header; EV over inner UDP sport + flow label */
	MRC_EVF_UDP,	  /* no outer header; EV in the UDP source port only */
};

/* BTH opcodes, IBTA manufacturer range (WIRE.md "Opcodes"). */
enum mrc_opcode {
	MRC_OP_WRITE_FIRST = 0xC6,
	MRC_OP_WRITE_MIDDLE = 0xC7,
	MRC_OP_WRITE_LAST = 0xC8,
	MRC_OP_WRITE_LAST_IMM = 0xC9,
	MRC_OP_WRITE_ONLY = 0xCA,
	MRC_OP_WRITE_ONLY_IMM = 0xCB,
	MRC_OP_ACK = 0xD1,
	MRC_OP_EP_REQUEST = 0xD8,
	MRC_OP_EP_RESPONSE = 0xD9,
	MRC_OP_SACK = 0xDC,
	MRC_OP_NACK = 0xDD,
	MRC_OP_PROBE = 0xDE,
};

/* BTH flags byte (byte 8 of BTH in mrcgen's layout; WIRE.md "BTH"). */
enum {
	MRC_BTH_F_ACKREQ = 0x80,
	MRC_BTH_F_RTX = 0x20,
	MRC_BTH_F_TS = 0x10,
};

/* NACK reasons, same values as UET PDS (WIRE.md "Control headers"). */
enum mrc_nack_reason {
	MRC_NACK_TRIMMED = 0x01,
	MRC_NACK_TRIMMED_LASTHOP = 0x02,
	MRC_NACK_NO_BITMAP = 0x06,
	MRC_NACK_NO_PKT_BUFFER = 0x07,
	MRC_NACK_NO_RESOURCE = 0x0A,
	MRC_NACK_PSN_OOR_WINDOW = 0x0B,
	MRC_NACK_UNEXP_EVENT = 0x19,
};

/* SETH m field (bits 6:5 of the flags): what the echoed EV saw. */
enum mrc_sack_m {
	MRC_SACK_M_NONE = 0,
	MRC_SACK_M_SKIP_ONCE = 1,   /* the EV saw ECN */
	MRC_SACK_M_ALWAYS_SKIP = 2, /* the EV is bad */
};

/* Decode results: 0 is success, each failure has its own kind (negative). */
enum mrc_wire_err {
	MRC_WIRE_OK = 0,
	MRC_WIRE_TRUNCATED = -1,     /* a header or length field runs past the buffer */
	MRC_WIRE_BAD_VERSION = -2,   /* IPv6 version != 6, or BTH TVer != 0 */
	MRC_WIRE_BAD_SRH = -3,	     /* RFC 8754 §4.3.1 consistency rules (C02, C03) */
	MRC_WIRE_BAD_CHECKSUM = -4,  /* UDP checksum wrong, or 0x0000 over IPv6 (C01) */
	MRC_WIRE_BAD_ICRC = -5,
	MRC_WIRE_BAD_OPCODE = -6,
	MRC_WIRE_NOT_MRC = -7,	     /* not IPv6/UDP to port 4791 (next header, port) */
	MRC_WIRE_BAD_LENGTH = -8,    /* length fields disagree (and the packet is not trimmed) */
};

/* An IPv6 address as 16 network-order bytes. */
struct mrc_ip6 {
	uint8_t b[16];
};

/* SETH + CC_STATE (SACK). Field meanings: WIRE.md "Control headers". */
struct mrc_seth {
	uint8_t m;		/* enum mrc_sack_m */
	bool pr;		/* answers a probe */
	int16_t ack_psn_offset; /* acked PSN = cack_psn + offset */
	uint32_t ev;		/* the EV echoed */
	uint16_t spdcid, dpdcid;
	uint32_t cack_psn;     /* 24 bits, cumulative and inclusive */
	uint8_t cc_type, cc_flags; /* 4 bits each */
	uint8_t mpr;	       /* receive window, units of 128 PSNs */
	int16_t sack_offset;   /* bitmap base = cack_psn + sack_offset */
	uint64_t sack_bitmap;  /* bit i => PSN base + i received */
	/* CC_STATE */
	uint16_t tx_ts_echo;
	uint16_t ooo_count;	/* 15 bits */
	bool restore_cwnd;
	uint8_t rcv_cwnd_pen;	/* 7 bits */
	uint32_t rcvd_bytes;	/* 24 bits, units of 256 bytes, wrapping */
};

/* NETH (NACK). */
struct mrc_neth {
	uint8_t reason; /* enum mrc_nack_reason */
	uint8_t vendor;
	uint32_t ev;
	uint16_t spdcid, dpdcid;
	uint32_t nack_psn; /* 24 bits */
	uint8_t cc_type, cc_flags;
	uint16_t tx_ts_echo;
};

/* PETH (PROBE). */
struct mrc_peth {
	uint8_t vendor;
	uint16_t probe_id;
	uint16_t spdcid, dpdcid;
	uint16_t tx_ts;
	bool tsr;
	uint8_t ftype; /* 4 bits */
};

/* AETH (IBTA ACK extended transport header). */
struct mrc_aeth {
	uint8_t syndrome;
	uint32_t msn; /* 24 bits */
};

/*
 * ERTH/EETH (ENDPOINT_REQUEST / RESPONSE). WIRE.md fixes only their sizes (16 B, 36 B)
 * and purpose; mrcgen's layout is documented in wire.c and the README.
 */
enum mrc_ep_kind {
	MRC_EP_PORT_STATUS = 1, /* a NIC port (plane) changed state */
	MRC_EP_EV_PROBE = 2,	/* probe of one EV */
};

struct mrc_erth {
	uint8_t kind; /* enum mrc_ep_kind */
	uint8_t plane;
	bool port_up;
	uint16_t req_id;
	uint32_t ev;
	uint16_t spdcid, dpdcid;
	uint16_t tx_ts;
};

struct mrc_eeth {
	uint8_t kind;
	uint8_t plane;
	bool port_up;
	uint16_t req_id;
	uint32_t ev;
	uint16_t spdcid, dpdcid;
	uint16_t tx_ts_echo;
	uint32_t status;
	uint64_t plane_mask; /* planes up at the responder, bit p = plane p */
	uint32_t rsvd_vendor;
};

/*
 * One MRC packet, decoded or to be encoded. The engine works on this struct; only
 * mrc_wire_encode/decode touch bytes. Fields not used by the opcode are ignored.
 */
struct mrc_pkt {
	/* outer IPv6 [+SRH]: EV format srv6 only */
	struct mrc_ip6 outer_src, outer_dst; /* outer_dst: the current uSID container */
	uint8_t hop_limit;		     /* outer, or the only IPv6 header; 64 */
	uint8_t n_segs;			     /* SRH segments, 0 = no SRH */
	bool srh_reduced;		     /* H.Encaps.Red: segs[0] of travel order only in DA */
	struct mrc_ip6 segs[MRC_SRH_MAX_SEGS]; /* in TRAVEL order; encoder reverses (RFC 8754) */
	uint8_t segments_left;		       /* decoded SRH SL (encode: derived) */

	/* inner IPv6 / UDP */
	uint8_t dscp;		/* 6 bits, on outer and inner */
	uint8_t ecn;		/* 2 bits, on outer and inner (ECT(0) = 2 on data) */
	struct mrc_ip6 src, dst; /* port addresses on the plane */
	uint32_t ev;		 /* entropy value; placement per EV format */
	uint16_t udp_sport;	 /* decode: as on the wire; encode: derived from ev */

	/* BTH */
	uint8_t opcode;
	bool se, mig;
	uint8_t pad_cnt;
	uint16_t pkey;
	uint32_t dest_qp; /* 24 bits */
	uint8_t flags;	  /* MRC_BTH_F_* */
	uint32_t psn;	  /* 24 bits */

	/* data packets */
	uint16_t rqmsn, msn; /* METH */
	uint16_t tx_ts;	     /* TSETH, when flags & MRC_BTH_F_TS */
	bool tsr;
	uint64_t va; /* RETH */
	uint32_t rkey, dma_len;
	uint32_t imm; /* ImmDt, *_IMM opcodes */
	const uint8_t *payload;
	uint32_t payload_len;

	/* control packets */
	union {
		struct mrc_aeth aeth;
		struct mrc_seth seth;
		struct mrc_neth neth;
		struct mrc_peth peth;
		struct mrc_erth erth;
		struct mrc_eeth eeth;
	};

	/* decode only */
	bool trimmed;	     /* payload cut by a switch; headers valid, payload/ICRC not */
	uint32_t orig_len;   /* trimmed: the packet length before the cut, from UDP length */
};

/* Per-run codec settings (config `mrc` section). */
struct mrc_wire_cfg {
	enum mrc_ev_format ev_format;
	bool icrc_outer;		   /* ICRC covers the outer header too (default false) */
	uint8_t dscp_trimmed, dscp_trimmed_lasthop; /* DSCPs a trimming switch writes */
	bool check_icrc;		   /* verify ICRC on decode (default true) */
};

/*
 * Writes @p as bytes into @buf (capacity @cap). Computes lengths, the UDP checksum
 * over the inner pseudo-header (RFC 8200 §8.1; 0 sent as 0xFFFF) and the ICRC.
 * Returns the packet length in bytes, or -ENOSPC when @cap is too small, -EINVAL for
 * an inconsistent @p (unknown opcode, n_segs > MRC_SRH_MAX_SEGS, payload_len too big).
 */
int mrc_wire_encode(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p, uint8_t *buf,
	size_t cap);

/*
 * Parses @len bytes at @buf into @p. Checks the length before every field. @p->payload
 * points into @buf. A packet whose payload was cut by a trimming switch decodes with
 * p->trimmed set and returns MRC_WIRE_OK (C11). The inner packet alone (as a protocol-41
 * raw socket delivers it) decodes when @outer is false. Returns enum mrc_wire_err.
 */
int mrc_wire_decode(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t len, bool outer,
	struct mrc_pkt *p);

/* Human name of an error kind, opcode or NACK reason ("truncated", "SACK", "TRIMMED"). */
const char *mrc_wire_strerror(int err);
const char *mrc_wire_opcode_name(uint8_t opcode);
const char *mrc_wire_nack_name(uint8_t reason);

#endif
