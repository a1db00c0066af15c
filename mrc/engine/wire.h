/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wire: MRC packet codecs — outer IPv6 [+SRH] / inner IPv6 / UDP 4791 / BTH / MRC
 * extension headers / payload / ICRC, as in docs/wire-format.md ("Packet stack",
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
#define MRC_CNP_RSVD_LEN  16	/* IBTA Annex A17: a CNP's reserved bytes after its BTH */
#define MRC_ICRC_LEN	  4
#define MRC_SRH_MAX_SEGS  8	/* segments one SRH may carry in mrcgen */
#define MRC_SRH_FIXED_LEN 8	/* RFC 8754 §2: SRH bytes before segment list[0] */
#define MRC_SRH_TYPE	  4	/* RFC 8754 §2: routing type of the SRH */
#define MRC_NH_ROUTING	  43	/* RFC 8200 §4.4: IPv6 next header of a routing header */
#define MRC_PKT_MAX	  9216	/* largest packet mrcgen builds or accepts, bytes */
#define MRC_NH_ICMP6	  58	/* RFC 4443 §1: IPv6 next header of ICMPv6 */
#define MRC_ICMP6_HLEN	  8	/* RFC 4443 §3.3: type, code, checksum, 4 unused bytes */
#define MRC_ICMP6_TIME_EXCEEDED 3 /* RFC 4443 §3.3: type; code 0 = hop limit in transit */
#define MRC_IP6_MIN_MTU	  1280	/* RFC 8200 §5: an ICMPv6 error fits it (RFC 4443 §2.4(c)) */

/* EV format modes (docs/wire-format.md "Packet stack" and "Other EV format modes"). */
enum mrc_ev_format {
	MRC_EVF_SRV6 = 0, /* outer IPv6 [+SRH] with a uSID container, inner IPv6/UDP */
	MRC_EVF_STEV,	  /* no outer header; EV over inner UDP sport + flow label */
	MRC_EVF_UDP,	  /* no outer header; EV in the UDP source port only */
};

/* BTH opcodes, IBTA manufacturer range (docs/wire-format.md "Opcodes"), and RoCEv2's CNP. */
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
	MRC_OP_CNP = 0x81, /* RoCEv2 congestion notification (IBTA Annex A17): BTH + 16 B */
};

/* BTH byte 4 (reserved in RoCEv2 but for these; the ICRC masks the byte): BECN, set on a
 * CNP (IBTA Annex A17, as ConnectX NICs send it). */
#define MRC_BTH_BECN 0x40

/* BTH flags byte (byte 8 of BTH in mrcgen's layout; docs/wire-format.md "BTH"). */
enum {
	MRC_BTH_F_ACKREQ = 0x80,
	MRC_BTH_F_RTX = 0x20,
	MRC_BTH_F_TS = 0x10,
};

/* NACK reasons, same values as UET PDS (docs/wire-format.md "Control headers"). */
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
	MRC_WIRE_BAD_ICMP6 = -9,     /* ICMPv6 checksum wrong (RFC 4443 §2.3) */
};

/* An IPv6 address as 16 network-order bytes. */
struct mrc_ip6 {
	uint8_t b[16];
};

/* SETH + CC_STATE (SACK). Field meanings: docs/wire-format.md "Control headers". */
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
 * ERTH/EETH (ENDPOINT_REQUEST / RESPONSE), the MRC 1.0 header tables as reconstructed in
 * anichol67/MRC-Client core/mrc_headers.py (docs/wire-format.md "Endpoint operations").
 * Endpoint operations are connectionless: BTH DestQP is MRC_EP_DEST_QP and the request
 * id travels in BTH PSN[15:0], echoed by the response.
 */
enum mrc_ep_op {
	MRC_EP_OP_PORT_STATUS = 0, /* PORT_STATUS_UPDATE: the sender's ports, as a mask */
	MRC_EP_OP_EV_PROBE = 1,	   /* EV_PROBE: answered at once, the answer's RTT measured */
};

/* BTH DestQP of endpoint requests and responses (MRC-Client core/probing.py). */
#define MRC_EP_DEST_QP 2

/* No EV: a control packet that answers none, or a plane out of range. */
#define MRC_NO_EV UINT32_MAX

struct mrc_erth {
	uint8_t op;	      /* enum mrc_ep_op, 2 bits (byte 1 bits 1:0) */
	uint8_t vendor;	      /* vendor_info */
	uint32_t port_status; /* PORT_STATUS_UPDATE: bit N = port N up, N 1-based (mrc_ctl.h) */
	uint16_t tx_ts;	      /* ns mod 2^16 at the requester */
	bool tsr;
	uint8_t ftype; /* 4 bits; 1 */
};

struct mrc_eeth {
	uint8_t op;	     /* the request's op, 2 bits (byte 1 bits 5:4) */
	uint16_t tx_ts_echo; /* the request's tx_ts */
};

/* The extension headers of a control packet, one at a time: struct mrc_pkt's union, and
 * whatever keeps them apart from a packet (mrc/ep's control queue). */
#define MRC_PKT_XH_MEMBERS                                                                   \
	struct mrc_aeth aeth;                                                                \
	struct mrc_seth seth;                                                                \
	struct mrc_neth neth;                                                                \
	struct mrc_peth peth;                                                                \
	struct mrc_erth erth;                                                                \
	struct mrc_eeth eeth;

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
	bool becn;	  /* byte 4's BECN bit (MRC_BTH_BECN): a CNP's */
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
		MRC_PKT_XH_MEMBERS
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
	bool check_csum;		   /* verify the UDP checksum on decode (default true;
					    * 0x0000 is rejected either way, but see below) */
	bool csum_offload;		   /* encode leaves the UDP checksum and ICRC zero for
					    * mrc_wire_csum_finish (a NIC's checksum offload);
					    * decode with check_csum off then takes a zero UDP
					    * checksum as "not yet filled" (default false) */
};

/*
 * Writes @p as bytes into @buf (capacity @cap). Computes lengths, PadCnt (payload padded
 * to 4 bytes), the UDP checksum over the inner pseudo-header (RFC 8200 §8.1; 0 sent as
 * 0xFFFF) and the ICRC (mrc_wire_icrc; cfg->icrc_outer). EV placement (docs/wire-format.md
 * "EV placement"): srv6/stev UDP sport = EV[31:16], flow label = EV[15:0]; udp: sport = EV,
 * 16 bits. With n_segs > 0 the outer DA is segs[0] (outer_dst must be :: or equal it).
 * hop_limit 0 means 64. Returns the packet length in bytes, or -ENOSPC when @cap is too
 * small, -EINVAL for an inconsistent @p (unknown opcode, n_segs > MRC_SRH_MAX_SEGS, PSN
 * or DestQP above 24 bits, EV above 16 bits in udp mode, packet above MRC_PKT_MAX).
 */
int mrc_wire_encode(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p, uint8_t *buf,
	size_t cap);

/* Where the rest of a packet from mrc_wire_encode_gather is. */
struct mrc_wire_gather {
	size_t hlen;		/* bytes in the buffer: the whole packet unless payload_len */
	const uint8_t *payload; /* payload_len bytes to lay after them; NULL: zeros */
	uint32_t payload_len;	/* then zeros (pad, ICRC) up to the packet's length */
};

/*
 * mrc_wire_encode for a NIC that gathers the payload from memory, as an RDMA NIC DMAs it
 * from the registered buffer: a data packet's payload is not copied. Writes the @g->hlen
 * bytes before it (headers and extension headers) and returns the whole packet's
 * length; the rest is p->payload_len bytes from p->payload (zeros when NULL), PadCnt zero
 * bytes and a zero ICRC, for the caller to lay out (mrc_wire_csum_finish then fills the
 * UDP checksum and ICRC). A packet without payload is written whole (@g->hlen = its
 * length). Needs cfg->csum_offload (-EINVAL without: the checksums would cover bytes not
 * written here); other errors as mrc_wire_encode, -ENOSPC when @cap cannot hold @g->hlen.
 */
int mrc_wire_encode_gather(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p,
	uint8_t *buf, size_t cap, struct mrc_wire_gather *g);

/*
 * Fills in the UDP checksum and the ICRC of an MRC packet encoded with cfg->csum_offload
 * (@cfg->icrc_outer must be the encoder's), in place, exactly as mrc_wire_encode would
 * have: what a NIC's checksum offload does at egress. The simulated fabric calls it where
 * bytes become observable (a capture) or are cut (a trim), so no other packet pays for
 * two passes over its payload. @buf holds the whole @len-byte packet as it is on the link
 * (the outer DA, SRH Segments Left, traffic class and hop limit may have changed since:
 * the ICRC masks them). Returns 0, or -EINVAL when the bytes are not IPv6 [+SRH] + IPv6 +
 * UDP or a plain IPv6 + UDP packet of consistent lengths.
 */
int mrc_wire_csum_finish(const struct mrc_wire_cfg *cfg, uint8_t *buf, size_t len);

/*
 * Parses @len bytes at @buf into @p. Checks the length before every field. @p->payload
 * points into @buf. A packet whose payload was cut by a trimming switch decodes with
 * p->trimmed set and returns MRC_WIRE_OK (C11; classification rules in wire.c and
 * docs/wire-format.md "Trimming"): orig_len is then the length before the cut, payload/payload_len
 * the bytes left, and checksum/ICRC are not checked. The inner packet alone (as a protocol-41 raw
 * socket delivers it) decodes when @outer is false; @outer is ignored in stev/udp mode.
 * With an outer header, dscp is the outer one and ecn is CE when either header has CE
 * (RFC 6040). Returns enum mrc_wire_err.
 */
int mrc_wire_decode(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t len, bool outer,
	struct mrc_pkt *p);

/*
 * mrc_wire_decode for a NIC that receives a gathered packet (mrc_wire_encode_gather's
 * output, still in pieces): the @len-byte packet's first @g->hlen bytes are at @buf, its
 * payload is @g->payload_len bytes at @g->payload (zeros when NULL), then pad and ICRC,
 * which are not read. The headers are checked as mrc_wire_decode checks them (docs/wire-format.md
 * "Packet stack"; a read past @g->hlen is MRC_WIRE_TRUNCATED), and they must be a data
 * packet's, not cut by a trim, ending exactly at @g->hlen, with a payload length (from
 * the UDP length and PadCnt) equal to @g->payload_len (else MRC_WIRE_BAD_LENGTH).
 * @p->payload is then @g->payload, which may be NULL with payload_len > 0. @g->hlen ==
 * @len is a whole packet: exactly mrc_wire_decode. With the payload apart the checksums
 * cannot be verified: cfg->check_csum or check_icrc gives MRC_WIRE_BAD_CHECKSUM (lay the
 * packet out and use mrc_wire_decode); @g->hlen > @len gives MRC_WIRE_BAD_LENGTH.
 * Returns enum mrc_wire_err.
 */
int mrc_wire_decode_gather(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t len,
	const struct mrc_wire_gather *g, bool outer, struct mrc_pkt *p);

/*
 * Fills @cfg with the defaults: ev_format srv6, icrc_outer false, check_icrc and
 * check_csum true, dscp_trimmed 12, dscp_trimmed_lasthop 13 (knobs; docs/wire-format.md "DSCP and
 * ECN").
 */
void mrc_wire_cfg_default(struct mrc_wire_cfg *cfg);

/*
 * Packet-length of the MRC part of @p: bytes from the first IPv6 header to the end of the
 * ICRC, as mrc_wire_encode would write it. Returns the length or -EINVAL (as encode).
 */
int mrc_wire_encoded_len(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p);

/*
 * A switch's packet trim (C11, UET-style): keeps the first @cut bytes of the @len-byte
 * packet at @buf, sets the FIRST IPv6 header's payload length to @cut - 40 and its DSCP
 * to @dscp (ECN kept); nothing else changes (inner lengths, UDP length, checksums stay
 * as sent). In srv6 mode the first header is the outer one. Returns the new length
 * (@len when @cut >= @len), or -EINVAL when @cut < 40 or @buf is not IPv6.
 */
int mrc_wire_trim(uint8_t *buf, size_t len, size_t cut, uint8_t dscp);

/* ---- ICMPv6 (RFC 4443): what a switch sends when a hop limit runs out ---- */

/*
 * Writes into @buf (capacity @cap) the ICMPv6 Time Exceeded message, code 0 "hop limit
 * exceeded in transit" (RFC 4443 §3.3), that a node owning address @src sends about the
 * invoking packet @pkt (@len bytes, from its first IPv6 header, as the node received it):
 * IPv6 header (traffic class and flow label 0, next header 58, hop limit @hop_limit, 0
 * meaning 64; source @src, destination the invoking packet's source, RFC 4443 §2.2 and
 * §3.3), then type 3, code 0, the checksum, 4 zero bytes, then the invoking packet's
 * first min(@len, 1280 - 40 - 8) bytes: as much as fits without the message exceeding
 * the minimum IPv6 MTU (RFC 4443 §2.4(c), RFC 8200 §5). Checksum: RFC 4443 §2.3, the
 * ones' complement sum over the IPv6 pseudo-header of RFC 8200 §8.1 (source,
 * destination, 32-bit upper-layer length, next header 58) and the ICMPv6 message.
 * Returns the message's length (40 + 8 + quote), or -EBADMSG (@pkt is no IPv6 header),
 * -EPERM (RFC 4443 §2.4(e): never about an ICMPv6 error message (next header 58 right
 * after the IPv6 header, type < 128), nor a packet from the unspecified or a multicast
 * source address), -ENOSPC (@cap too small).
 */
int mrc_wire_icmp6_time_exceeded(const struct mrc_ip6 *src, const uint8_t *pkt, size_t len,
	uint8_t hop_limit, uint8_t *buf, size_t cap);

/* An ICMPv6 message as mrc_wire_decode_icmp6 reads it. */
struct mrc_icmp6 {
	uint8_t type, code;
	struct mrc_ip6 src, dst;    /* of the IPv6 header that carried it */
	const uint8_t *body;	    /* after the 8-byte header (the invoking packet of an
				     * error message), in the caller's buffer */
	size_t body_len;
	bool quoted_ip6;	    /* body starts with a whole IPv6 header: */
	struct mrc_ip6 q_src, q_dst; /* its source and destination addresses */
};

/*
 * Decodes the ICMPv6 message of the @len-byte packet at @buf: one IPv6 header with next
 * header 58 (no extension headers: mrcgen's switches send none), the payload length
 * within @len, at least the 8-byte header, and the checksum (RFC 4443 §2.3, over the RFC
 * 8200 §8.1 pseudo-header) right. Returns MRC_WIRE_OK, or MRC_WIRE_TRUNCATED,
 * MRC_WIRE_BAD_VERSION, MRC_WIRE_NOT_MRC (next header not 58), MRC_WIRE_BAD_LENGTH
 * (payload length below 8), MRC_WIRE_BAD_ICMP6 (checksum).
 */
int mrc_wire_decode_icmp6(const uint8_t *buf, size_t len, struct mrc_icmp6 *out);

/*
 * RoCEv2 ICRC (IBTA Annex A17, as Linux rxe computes it) of an IPv6/UDP/BTH/... packet
 * of @len bytes at @ip6, the ICRC field itself excluded: CRC-32 (IEEE 802.3 polynomial,
 * reflected, init ~0, final xor ~0) over 8 bytes of 0xFF, then the IPv6 header with
 * traffic class, flow label and hop limit set to 1s, the UDP header with its checksum set
 * to 1s, BTH with byte 4 set to 1s, then the rest. The wire carries the value
 * little-endian (least significant byte first). @len must be >= 60 (IPv6+UDP+BTH).
 */
uint32_t mrc_wire_icrc(const uint8_t *ip6, size_t len);

/*
 * UDP-over-IPv6 checksum (RFC 8200 §8.1): ones' complement sum of the pseudo-header
 * (@src, @final_dst, @udp_len, next header 17) and the @udp_len bytes at @udp with the
 * checksum field taken as zero. Returns the value to put in the header: a computed
 * 0x0000 is returned as 0xFFFF. @final_dst is the final destination: with an SRH, the
 * segment list[0] (RFC 8754 §4.3 / RFC 8200 §8.1), never the current DA.
 */
uint16_t mrc_wire_csum_udp6(const struct mrc_ip6 *src, const struct mrc_ip6 *final_dst,
	const uint8_t *udp, size_t udp_len);

/*
 * Checksum a UDP header directly after an IPv6 header or an SRH should carry, for the
 * @len-byte IPv6 packet at @pkt (IPv6 [+SRH] + UDP): applies the final-destination rule
 * (segment list[0] when an SRH is present, else the DA). Stores it in *@csum.
 * Returns 0, -EMSGSIZE when a header or the UDP length runs past @len, -EPROTO when
 * the packet is not IPv6 [+SRH] + UDP, -EBADMSG on an SRH failing RFC 8754 §4.3.1.
 */
int mrc_wire_udp6_csum(const uint8_t *pkt, size_t len, uint16_t *csum);

/*
 * SRH (RFC 8754 §2, routing type 4) codec, the only one: mrc/srv6's End processing uses it
 * too. Segments are given in TRAVEL order (@segs[0] is visited first); the header stores
 * them reversed, list[0] = the final segment. Normal form: n entries, last_entry =
 * segments_left = n-1. Reduced form (H.Encaps.Red, RFC 8986 §5.2): the first segment lives
 * only in the DA, n-1 entries, last_entry = n-2, segments_left = n-1; for n == 1 there is
 * no SRH (C03). hdr_ext_len = 2 * entries; no TLVs; flags and tag 0.
 */
struct mrc_srh {
	uint8_t next_header;
	uint8_t hdr_ext_len;
	uint8_t segments_left;
	uint8_t last_entry;
	uint8_t flags;
	uint16_t tag;
	bool reduced;	     /* segments_left == last_entry + 1: first segment only in DA */
	const uint8_t *list; /* list[0] (final) .. list[last_entry], 16 bytes each */
	size_t len;	     /* header length in bytes, (hdr_ext_len + 1) * 8 */
};

/* Bytes the SRH for @n travel-order segments takes: 0 (no SRH), or 8 + 16 * entries. */
size_t mrc_wire_srh_len(unsigned n, bool reduced);

/*
 * Writes the SRH for the @n travel-order segments @segs (next header @nh) at @buf; the
 * caller puts @segs[0] in the IPv6 DA. Returns the bytes written (0 for n == 1 reduced:
 * the DA alone carries the path, no SRH), -EINVAL when n == 0 (a path has at least one
 * segment; callers without segments write no SRH) or n > MRC_SRH_MAX_SEGS, -ENOSPC when
 * @cap is too small (C02, C03).
 */
int mrc_wire_srh_encode(const struct mrc_ip6 *segs, unsigned n, bool reduced, uint8_t nh,
	uint8_t *buf, size_t cap);

/*
 * Parses the SRH at @buf (@len bytes available) into @srh with the RFC 8754 §4.3.1
 * rules (C02, C03): the header length (hdr_ext_len+1)*8 fits @len; routing type 4;
 * last_entry <= hdr_ext_len/2 - 1; segments_left <= last_entry + 1, where
 * segments_left == last_entry + 1 marks a reduced SRH; the bytes after list[last_entry]
 * parse as TLVs (Pad1, PadN, or type/length/value) that end exactly at the header end.
 * Returns the header length in bytes, MRC_WIRE_TRUNCATED or MRC_WIRE_BAD_SRH.
 */
int mrc_wire_srh_decode(const uint8_t *buf, size_t len, struct mrc_srh *srh);

/* Copies segment list[@i] (0 = final) of a decoded SRH into *@out; i <= last_entry. */
void mrc_wire_srh_segment(const struct mrc_srh *srh, unsigned i, struct mrc_ip6 *out);

/*
 * A plain IPv6 [+SRH] + UDP packet (no MRC headers), for C01 and for any SRH-carrying
 * UDP packet mrcgen builds, forwards or checks.
 */
struct mrc_ip6_udp {
	struct mrc_ip6 src;
	struct mrc_ip6 dst;	/* the DA; encode: ignored when n_segs > 0 (DA = segs[0]) */
	uint8_t tclass;		/* DSCP<<2 | ECN */
	uint32_t flow_label;	/* 20 bits */
	uint8_t hop_limit;
	uint8_t n_segs;		/* 0 = no SRH */
	bool srh_reduced;
	struct mrc_ip6 segs[MRC_SRH_MAX_SEGS]; /* travel order */
	uint8_t segments_left;		       /* decode only */
	uint16_t sport, dport;
	uint16_t csum; /* decode: as on the wire */
	const uint8_t *payload;
	uint32_t payload_len;
};

/*
 * Writes @h as IPv6 [+SRH] + UDP + payload with the checksum computed under the
 * final-destination rule. Returns the length, -EINVAL or -ENOSPC.
 */
int mrc_wire_encode_ip6_udp(const struct mrc_ip6_udp *h, uint8_t *buf, size_t cap);

/*
 * Parses and validates an IPv6 [+SRH] + UDP packet: lengths, SRH rules, UDP checksum
 * (final-destination rule; a received 0x0000 is MRC_WIRE_BAD_CHECKSUM, RFC 8200 §8.1).
 * Valid for any segments_left/DA a segment endpoint may have set. Returns enum
 * mrc_wire_err. @h->payload points into @buf.
 */
int mrc_wire_decode_ip6_udp(const uint8_t *buf, size_t len, struct mrc_ip6_udp *h);

/*
 * Sample packets, one of every type, for tests, the fuzz corpus and `mrcgen sample`.
 * Sample @i (0 <= i < mrc_wire_sample_count(cfg)) is fully determined by @i and
 * cfg->ev_format: i % MRC_WIRE_SAMPLE_TYPES picks the type (data opcodes with and
 * without TSETH, ACK, endpoint request/response, SACK, NACK of every reason, PROBE, CNP);
 * in srv6 mode i / MRC_WIRE_SAMPLE_TYPES picks no SRH, a 3-segment SRH or a reduced one.
 * The payload points into static storage.
 */
#define MRC_WIRE_SAMPLE_TYPES 25
int mrc_wire_sample_count(const struct mrc_wire_cfg *cfg);
/* Fills *@p with sample @i. Returns 0 or -ENOENT when @i is out of range. */
int mrc_wire_sample_pkt(unsigned i, const struct mrc_wire_cfg *cfg, struct mrc_pkt *p);
/* Encodes sample @i into @buf. Returns its length, -ENOENT or -ENOSPC. */
int mrc_wire_sample(unsigned i, const struct mrc_wire_cfg *cfg, uint8_t *buf, size_t cap);

/* Human name of an error kind, opcode or NACK reason ("truncated", "SACK", "TRIMMED"). */
const char *mrc_wire_strerror(int err);
const char *mrc_wire_opcode_name(uint8_t opcode);
const char *mrc_wire_nack_name(uint8_t reason);

#endif
