// SPDX-License-Identifier: BSD-2-Clause
/*
 * wire: MRC packet encode/decode (docs/wire-format.md "Packet stack", "Opcodes",
 * "Control headers"), the RFC 8754 SRH codec, the RFC 8200 §8.1 UDP checksum and the
 * RoCEv2 ICRC (IBTA Annex A17).
 *
 * Layouts mrcgen fixes where docs/wire-format.md gives only sizes (byte offsets inside the header):
 *
 * ERTH (16 B, ENDPOINT_REQUEST):
 *   0 kind | 1 plane | 2 flags (0x80 port_up) | 3 rsvd | 4-5 req_id | 6-7 tx_ts |
 *   8-11 ev | 12-13 spdcid | 14-15 dpdcid
 * EETH (36 B, ENDPOINT_RESPONSE):
 *   0 kind | 1 plane | 2 flags (0x80 port_up) | 3 rsvd | 4-5 req_id | 6-7 tx_ts_echo |
 *   8-11 ev | 12-13 spdcid | 14-15 dpdcid | 16-19 status | 20-27 plane_mask |
 *   28-31 rsvd_vendor | 32-35 rsvd (0)
 * SETH bytes 0-1 are one big-endian 16-bit word, bit 0 least significant: m = bits 6:5,
 * pr = bit 1. The SACK bitmap (bytes 20-27) is one big-endian 64-bit word; bit i (bit 0
 * least significant, in byte 27) stands for PSN base + i.
 *
 * EV placement (inner IPv6/UDP): srv6 and stev: UDP source port = EV[31:16], flow label
 * = EV[15:0] (its top 4 bits 0); the srv6 outer header carries the same flow label.
 * udp: the EV is 16 bits wide and is the UDP source port; flow label 0.
 *
 * ICRC coverage: mrc_wire_icrc() over the inner packet. With cfg->icrc_outer the CRC
 * first covers the outer IPv6 header (traffic class, flow label, hop limit and the DA
 * masked to 1s: uN rewrites the DA hop by hop) and the SRH (segments_left masked to 1s),
 * then continues over the inner packet exactly as without the knob.
 */
#include "mrc/engine/wire.h"

#include "mrc/base/bytes.h"

#include <errno.h>
#include <string.h>
#include <isa-l/crc.h>

#define NH_UDP	   17
#define NH_IPV6	   41
#define ECN_CE	   3

static const uint8_t ones8[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* ---- CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320): ISA-L's crc32_gzip_refl ---- */

/*
 * Running CRC register (no pre/post inversion here; callers start at ~0 and invert).
 * crc32_gzip_refl(c, ...) is zlib's crc32: it inverts on entry and exit, so the raw
 * register r maps to c = ~r. ISA-L folds with carry-less multiplies (about 3x zlib here).
 */
static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	return ~crc32_gzip_refl(~crc, p, n);
}

/* Masks the RoCEv2 variant fields of a 40-byte IPv6 header copy: TC, flow label, HL. */
static void mask_ip6(uint8_t *h)
{
	h[0] |= 0x0f;
	h[1] = h[2] = h[3] = 0xff;
	h[7] = 0xff;
}

/* CRC register after the inner packet (@len bytes, ICRC excluded), from @crc. */
static uint32_t icrc_inner(uint32_t crc, const uint8_t *ip6, size_t len)
{
	uint8_t h[MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN];

	memcpy(h, ip6, sizeof(h));
	mask_ip6(h);
	h[MRC_IP6_HLEN + 6] = h[MRC_IP6_HLEN + 7] = 0xff; /* UDP checksum */
	h[MRC_IP6_HLEN + MRC_UDP_HLEN + 4] = 0xff;	  /* BTH byte 4 (rsvd) */
	crc = crc_update(crc, h, sizeof(h));
	return crc_update(crc, ip6 + sizeof(h), len - sizeof(h));
}

uint32_t mrc_wire_icrc(const uint8_t *ip6, size_t len)
{
	uint32_t crc = crc_update(~0u, ones8, sizeof(ones8));

	if (len < MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN)
		return 0;
	return ~icrc_inner(crc, ip6, len);
}

/* ICRC of a whole packet: @outer_len bytes of outer IPv6 [+SRH] (0 if none), then inner. */
static uint32_t icrc_pkt(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t outer_len,
	size_t inner_len)
{
	uint32_t crc = crc_update(~0u, ones8, sizeof(ones8));

	if (cfg->icrc_outer && outer_len >= MRC_IP6_HLEN) {
		uint8_t h[MRC_IP6_HLEN];

		memcpy(h, buf, sizeof(h));
		mask_ip6(h);
		memset(h + 24, 0xff, 16); /* DA: the uSID container shifts per hop */
		crc = crc_update(crc, h, sizeof(h));
		if (outer_len > MRC_IP6_HLEN + 4) {
			const uint8_t *srh = buf + MRC_IP6_HLEN;

			crc = crc_update(crc, srh, 3);
			crc = crc_update(crc, ones8, 1); /* segments_left */
			crc = crc_update(crc, srh + 4, outer_len - MRC_IP6_HLEN - 4);
		}
	}
	return ~icrc_inner(crc, buf + outer_len, inner_len);
}

/* ---- UDP checksum (RFC 8200 §8.1) ---- */

/*
 * One's complement sum of @p as 16-bit big-endian words (an odd tail byte is the high
 * half of a last word), added to @s, RFC 1071. The sum is byte-order independent (RFC 1071
 * §2(B)): add native 64-bit loads into 128 bits (2^16 = 1 mod 0xffff), fold to 16 bits,
 * and read the folded value's two bytes as big-endian.
 */
static uint64_t sum16(uint64_t s, const uint8_t *p, size_t n)
{
	unsigned __int128 wide = 0; /* 2^64 = 1 mod 0xffff too: fold the carries later */
	uint64_t acc;
	uint16_t w16, f;
	size_t i = 0;
	uint8_t b[2];

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		wide += w;
	}
	acc = (uint64_t)(wide >> 64) + ((uint64_t)wide >> 32) + ((uint64_t)wide & 0xffffffffu);
	for (; i + 2 <= n; i += 2) {
		memcpy(&w16, p + i, 2);
		acc += w16;
	}
	if (i < n) {
		b[0] = p[i];
		b[1] = 0;
		memcpy(&w16, b, 2);
		acc += w16;
	}
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	f = (uint16_t)acc;
	memcpy(b, &f, 2);
	return s + get_be16(b);
}

uint16_t mrc_wire_csum_udp6(const struct mrc_ip6 *src, const struct mrc_ip6 *final_dst,
	const uint8_t *udp, size_t udp_len)
{
	uint64_t s = 0;
	uint16_t c;

	s = sum16(s, src->b, 16);
	s = sum16(s, final_dst->b, 16);
	s += (uint32_t)(udp_len >> 16) + (uint32_t)(udp_len & 0xffff);
	s += NH_UDP;
	s = sum16(s, udp, 6); /* ports and length; the checksum field counts as zero */
	if (udp_len > MRC_UDP_HLEN)
		s = sum16(s, udp + MRC_UDP_HLEN, udp_len - MRC_UDP_HLEN);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	c = (uint16_t)~s;
	return c ? c : 0xffff;
}

/* ---- IPv6 header ---- */

static void put_ip6(uint8_t *h, uint8_t tclass, uint32_t flow, uint16_t plen, uint8_t nh,
	uint8_t hl, const struct mrc_ip6 *src, const struct mrc_ip6 *dst)
{
	put_be32(h, 6u << 28 | (uint32_t)tclass << 20 | (flow & 0xfffff));
	put_be16(h + 4, plen);
	h[6] = nh;
	h[7] = hl;
	memcpy(h + 8, src->b, 16);
	memcpy(h + 24, dst->b, 16);
}

static uint8_t ip6_tclass(const uint8_t *h)
{
	return (uint8_t)(get_be16(h) >> 4);
}

/* ---- SRH (RFC 8754) ---- */

static unsigned srh_entries(unsigned n, bool reduced)
{
	return reduced ? (n ? n - 1 : 0) : n;
}

size_t mrc_wire_srh_len(unsigned n, bool reduced)
{
	unsigned e = srh_entries(n, reduced);

	return e ? MRC_SRH_FIXED_LEN + 16 * (size_t)e : 0;
}

int mrc_wire_srh_encode(const struct mrc_ip6 *segs, unsigned n, bool reduced, uint8_t nh,
	uint8_t *buf, size_t cap)
{
	unsigned e = srh_entries(n, reduced);
	size_t len = mrc_wire_srh_len(n, reduced);

	if (n == 0 || n > MRC_SRH_MAX_SEGS)
		return -EINVAL;
	if (!e)
		return 0;
	if (cap < len)
		return -ENOSPC;
	buf[0] = nh;
	buf[1] = (uint8_t)(2 * e);
	buf[2] = MRC_SRH_TYPE;
	buf[3] = (uint8_t)(n - 1); /* segments left: the DA is the first travel segment */
	buf[4] = (uint8_t)(e - 1); /* last entry */
	buf[5] = 0;		   /* flags */
	put_be16(buf + 6, 0);	   /* tag */
	/* list[i] is the i-th segment counted from the END of the travel order */
	for (unsigned i = 0; i < e; i++)
		memcpy(buf + MRC_SRH_FIXED_LEN + 16 * i, segs[n - 1 - i].b, 16);
	return (int)len;
}

/* RFC 8754 §2.1: TLVs after the segment list: Pad1 (type 0) is one byte; others T,L,V. */
static bool srh_tlvs_ok(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (p[i] == 0) {
			i++;
			continue;
		}
		if (n - i < 2)
			return false;
		if ((size_t)p[i + 1] > n - i - 2)
			return false;
		i += 2 + (size_t)p[i + 1];
	}
	return true;
}

int mrc_wire_srh_decode(const uint8_t *buf, size_t len, struct mrc_srh *srh)
{
	size_t hlen, list_end;

	memset(srh, 0, sizeof(*srh));
	if (len < MRC_SRH_FIXED_LEN)
		return MRC_WIRE_TRUNCATED;
	srh->next_header = buf[0];
	srh->hdr_ext_len = buf[1];
	srh->segments_left = buf[3];
	srh->last_entry = buf[4];
	srh->flags = buf[5];
	srh->tag = get_be16(buf + 6);
	hlen = ((size_t)buf[1] + 1) * 8;
	srh->len = hlen;
	if (hlen > len)
		return MRC_WIRE_TRUNCATED;
	if (buf[2] != MRC_SRH_TYPE)
		return MRC_WIRE_BAD_SRH;
	if (buf[1] < 2 || srh->last_entry > buf[1] / 2 - 1)
		return MRC_WIRE_BAD_SRH;
	if (srh->segments_left > srh->last_entry + 1)
		return MRC_WIRE_BAD_SRH;
	srh->reduced = srh->segments_left == srh->last_entry + 1;
	list_end = MRC_SRH_FIXED_LEN + 16 * ((size_t)srh->last_entry + 1);
	if (!srh_tlvs_ok(buf + list_end, hlen - list_end))
		return MRC_WIRE_BAD_SRH;
	srh->list = buf + MRC_SRH_FIXED_LEN;
	return (int)hlen;
}

void mrc_wire_srh_segment(const struct mrc_srh *srh, unsigned i, struct mrc_ip6 *out)
{
	memcpy(out->b, srh->list + 16 * (size_t)i, 16);
}

/* Travel-order segments of a decoded SRH (@da: the DA, first segment when reduced). */
static int srh_travel(const struct mrc_srh *srh, const uint8_t *da, struct mrc_ip6 *segs,
	uint8_t *n_out)
{
	unsigned e = srh->last_entry + 1u, n = e + (srh->reduced ? 1u : 0u), j = 0;

	if (n > MRC_SRH_MAX_SEGS)
		return MRC_WIRE_BAD_SRH;
	if (srh->reduced)
		memcpy(segs[j++].b, da, 16);
	for (unsigned i = 0; i < e; i++)
		mrc_wire_srh_segment(srh, e - 1 - i, &segs[j++]);
	*n_out = (uint8_t)n;
	return 0;
}

/*
 * Decodes the SRH right after the IPv6 header at @pkt (@len bytes in all, at least the
 * header) into travel-order @segs, @n_segs, @reduced, @sl and the next header @nh.
 * Returns the SRH length or an error kind (enum mrc_wire_err).
 */
static int srh_read(const uint8_t *pkt, size_t len, struct mrc_ip6 *segs, uint8_t *n_segs,
	bool *reduced, uint8_t *sl, uint8_t *nh)
{
	struct mrc_srh srh;
	int r = mrc_wire_srh_decode(pkt + MRC_IP6_HLEN, len - MRC_IP6_HLEN, &srh);

	if (r < 0)
		return r;
	r = srh_travel(&srh, pkt + 24, segs, n_segs);
	if (r < 0)
		return r;
	*reduced = srh.reduced;
	*sl = srh.segments_left;
	*nh = srh.next_header;
	return (int)srh.len;
}

/* ---- plain IPv6 [+SRH] + UDP (C01) ---- */

int mrc_wire_udp6_csum(const uint8_t *pkt, size_t len, uint16_t *csum)
{
	struct mrc_ip6 src, fdst;
	size_t off = MRC_IP6_HLEN, ulen;
	uint8_t nh;

	if (len < MRC_IP6_HLEN)
		return -EMSGSIZE;
	if (pkt[0] >> 4 != 6)
		return -EPROTO;
	memcpy(src.b, pkt + 8, 16);
	memcpy(fdst.b, pkt + 24, 16);
	nh = pkt[6];
	if (nh == MRC_NH_ROUTING) {
		struct mrc_srh srh;
		int r = mrc_wire_srh_decode(pkt + off, len - off, &srh);

		if (r == MRC_WIRE_TRUNCATED)
			return -EMSGSIZE;
		if (r < 0)
			return -EBADMSG;
		mrc_wire_srh_segment(&srh, 0, &fdst); /* RFC 8754: list[0] is the final DA */
		nh = srh.next_header;
		off += (size_t)r;
	}
	if (nh != NH_UDP)
		return -EPROTO;
	if (len - off < MRC_UDP_HLEN)
		return -EMSGSIZE;
	ulen = get_be16(pkt + off + 4);
	if (ulen < MRC_UDP_HLEN || ulen > len - off)
		return -EMSGSIZE;
	*csum = mrc_wire_csum_udp6(&src, &fdst, pkt + off, ulen);
	return 0;
}

int mrc_wire_encode_ip6_udp(const struct mrc_ip6_udp *h, uint8_t *buf, size_t cap)
{
	size_t srh_len = mrc_wire_srh_len(h->n_segs, h->srh_reduced);
	size_t ulen = MRC_UDP_HLEN + (size_t)h->payload_len;
	size_t total = MRC_IP6_HLEN + srh_len + ulen;
	const struct mrc_ip6 *da = h->n_segs ? &h->segs[0] : &h->dst;
	const struct mrc_ip6 *fdst = h->n_segs ? &h->segs[h->n_segs - 1] : &h->dst;
	uint8_t *u;
	int r;

	if (h->n_segs > MRC_SRH_MAX_SEGS || ulen > 0xffff || total > MRC_PKT_MAX)
		return -EINVAL;
	if (total > cap)
		return -ENOSPC;
	put_ip6(buf, h->tclass, h->flow_label, (uint16_t)(total - MRC_IP6_HLEN),
		srh_len ? MRC_NH_ROUTING : NH_UDP, h->hop_limit, &h->src, da);
	if (h->n_segs) {
		r = mrc_wire_srh_encode(h->segs, h->n_segs, h->srh_reduced, NH_UDP,
			buf + MRC_IP6_HLEN, cap - MRC_IP6_HLEN);
		if (r < 0)
			return r;
	}
	u = buf + MRC_IP6_HLEN + srh_len;
	put_be16(u, h->sport);
	put_be16(u + 2, h->dport);
	put_be16(u + 4, (uint16_t)ulen);
	put_be16(u + 6, 0);
	if (h->payload_len)
		memcpy(u + MRC_UDP_HLEN, h->payload, h->payload_len);
	put_be16(u + 6, mrc_wire_csum_udp6(&h->src, fdst, u, ulen));
	return (int)total;
}

int mrc_wire_decode_ip6_udp(const uint8_t *buf, size_t len, struct mrc_ip6_udp *h)
{
	size_t off = MRC_IP6_HLEN, plen, ulen;
	uint8_t nh;
	uint16_t want;
	int r;

	memset(h, 0, sizeof(*h));
	if (len < MRC_IP6_HLEN)
		return MRC_WIRE_TRUNCATED;
	if (buf[0] >> 4 != 6)
		return MRC_WIRE_BAD_VERSION;
	h->tclass = ip6_tclass(buf);
	h->flow_label = get_be32(buf) & 0xfffff;
	plen = get_be16(buf + 4);
	nh = buf[6];
	h->hop_limit = buf[7];
	memcpy(h->src.b, buf + 8, 16);
	memcpy(h->dst.b, buf + 24, 16);
	if (MRC_IP6_HLEN + plen > len)
		return MRC_WIRE_TRUNCATED;
	len = MRC_IP6_HLEN + plen;
	if (nh == MRC_NH_ROUTING) {
		r = srh_read(buf, len, h->segs, &h->n_segs, &h->srh_reduced, &h->segments_left,
			&nh);
		if (r < 0)
			return r;
		off += (size_t)r;
	}
	if (nh != NH_UDP)
		return MRC_WIRE_NOT_MRC;
	if (len - off < MRC_UDP_HLEN)
		return MRC_WIRE_TRUNCATED;
	h->sport = get_be16(buf + off);
	h->dport = get_be16(buf + off + 2);
	ulen = get_be16(buf + off + 4);
	h->csum = get_be16(buf + off + 6);
	if (ulen != len - off)
		return MRC_WIRE_BAD_LENGTH;
	r = mrc_wire_udp6_csum(buf, len, &want);
	if (r < 0)
		return MRC_WIRE_BAD_LENGTH;
	if (h->csum == 0 || h->csum != want)
		return MRC_WIRE_BAD_CHECKSUM;
	h->payload = buf + off + MRC_UDP_HLEN;
	h->payload_len = (uint32_t)(ulen - MRC_UDP_HLEN);
	return MRC_WIRE_OK;
}

/* ---- MRC packets ---- */

void mrc_wire_cfg_default(struct mrc_wire_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ev_format = MRC_EVF_SRV6;
	cfg->icrc_outer = false;
	cfg->check_icrc = true;
	cfg->check_csum = true;
	cfg->dscp_trimmed = 12;
	cfg->dscp_trimmed_lasthop = 13;
}

static bool op_is_data(uint8_t op)
{
	return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM;
}

static bool op_has_imm(uint8_t op)
{
	return op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY_IMM;
}

/* Bytes of extension headers after BTH for @op (data: with TSETH when @ts); -1 unknown. */
static int op_ext_len(uint8_t op, bool ts)
{
	if (op_is_data(op))
		return MRC_METH_LEN + (ts ? MRC_TSETH_LEN : 0) + MRC_RETH_LEN +
		       (op_has_imm(op) ? MRC_IMM_LEN : 0);
	switch (op) {
	case MRC_OP_ACK:
		return MRC_AETH_LEN;
	case MRC_OP_EP_REQUEST:
		return MRC_ERTH_LEN;
	case MRC_OP_EP_RESPONSE:
		return MRC_EETH_LEN;
	case MRC_OP_SACK:
		return MRC_SETH_LEN + MRC_CC_STATE_LEN;
	case MRC_OP_NACK:
		return MRC_NETH_LEN;
	case MRC_OP_PROBE:
		return MRC_PETH_LEN;
	case MRC_OP_CNP:
		return MRC_CNP_RSVD_LEN;
	}
	return -1;
}

/* Lengths of one packet: outer part, UDP datagram, payload padding. */
struct lens {
	size_t srh, outer, udp, pad, total;
	int ext;
};

static int pkt_lens(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p, struct lens *l)
{
	size_t pay;

	l->ext = op_ext_len(p->opcode, p->flags & MRC_BTH_F_TS);
	if (l->ext < 0 || p->n_segs > MRC_SRH_MAX_SEGS)
		return -EINVAL;
	if (p->psn > MRC_PSN_MASK || p->dest_qp > 0xffffff)
		return -EINVAL;
	if (cfg->ev_format == MRC_EVF_UDP && p->ev > 0xffff)
		return -EINVAL;
	pay = op_is_data(p->opcode) ? p->payload_len : 0;
	if (pay > MRC_PKT_MAX)
		return -EINVAL;
	l->pad = (4 - pay % 4) % 4;
	l->udp = MRC_UDP_HLEN + MRC_BTH_LEN + (size_t)l->ext + pay + l->pad + MRC_ICRC_LEN;
	l->srh = 0;
	l->outer = 0;
	if (cfg->ev_format == MRC_EVF_SRV6) {
		l->srh = mrc_wire_srh_len(p->n_segs, p->srh_reduced);
		l->outer = MRC_IP6_HLEN + l->srh;
	}
	l->total = l->outer + MRC_IP6_HLEN + l->udp;
	if (l->total > MRC_PKT_MAX)
		return -EINVAL;
	return 0;
}

int mrc_wire_encoded_len(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p)
{
	struct lens l;
	int r = pkt_lens(cfg, p, &l);

	return r < 0 ? r : (int)l.total;
}

static bool ip6_is_zero(const struct mrc_ip6 *a)
{
	static const struct mrc_ip6 zero;

	return memcmp(a->b, zero.b, 16) == 0;
}

/* Writes the extension headers of @p after BTH at @h (@l->ext bytes). */
static void put_ext(const struct mrc_pkt *p, uint8_t *h)
{
	const struct mrc_seth *s = &p->seth;
	const struct mrc_neth *n = &p->neth;
	const struct mrc_peth *pe = &p->peth;
	const struct mrc_erth *er = &p->erth;
	const struct mrc_eeth *ee = &p->eeth;

	if (op_is_data(p->opcode)) {
		put_be16(h, p->rqmsn);
		put_be16(h + 2, p->msn);
		h += MRC_METH_LEN;
		if (p->flags & MRC_BTH_F_TS) {
			put_be16(h, p->tx_ts);
			put_be16(h + 2, (uint16_t)((p->tsr ? 0x8000 : 0) | 1)); /* ftype 1 */
			h += MRC_TSETH_LEN;
		}
		put_be64(h, p->va);
		put_be32(h + 8, p->rkey);
		put_be32(h + 12, p->dma_len);
		h += MRC_RETH_LEN;
		if (op_has_imm(p->opcode))
			put_be32(h, p->imm);
		return;
	}
	switch (p->opcode) {
	case MRC_OP_ACK:
		h[0] = p->aeth.syndrome;
		put_be24(h + 1, p->aeth.msn);
		break;
	case MRC_OP_SACK:
		put_be16(h, (uint16_t)((s->m & 3) << 5 | (s->pr ? 1 << 1 : 0)));
		put_be16(h + 2, (uint16_t)s->ack_psn_offset);
		put_be32(h + 4, s->ev);
		put_be16(h + 8, s->spdcid);
		put_be16(h + 10, s->dpdcid);
		h[12] = 0;
		put_be24(h + 13, s->cack_psn);
		h[16] = (uint8_t)((s->cc_type & 0xf) << 4 | (s->cc_flags & 0xf));
		h[17] = s->mpr;
		put_be16(h + 18, (uint16_t)s->sack_offset);
		put_be64(h + 20, s->sack_bitmap);
		h += MRC_SETH_LEN;
		put_be16(h, s->tx_ts_echo);
		put_be16(h + 2, s->ooo_count & 0x7fff);
		h[4] = (uint8_t)((s->restore_cwnd ? 0x80 : 0) | (s->rcv_cwnd_pen & 0x7f));
		put_be24(h + 5, s->rcvd_bytes);
		break;
	case MRC_OP_NACK:
		put_be16(h, 0);
		h[2] = n->reason;
		h[3] = n->vendor;
		put_be32(h + 4, n->ev);
		put_be16(h + 8, n->spdcid);
		put_be16(h + 10, n->dpdcid);
		h[12] = 0;
		put_be24(h + 13, n->nack_psn);
		h[16] = (uint8_t)((n->cc_type & 0xf) << 4 | (n->cc_flags & 0xf));
		h[17] = 0;
		put_be16(h + 18, n->tx_ts_echo);
		break;
	case MRC_OP_PROBE:
		put_be16(h, 0);
		h[2] = 0;
		h[3] = pe->vendor;
		put_be16(h + 4, pe->probe_id);
		put_be16(h + 6, 0);
		put_be16(h + 8, pe->spdcid);
		put_be16(h + 10, pe->dpdcid);
		put_be16(h + 12, pe->tx_ts);
		put_be16(h + 14, (uint16_t)((pe->tsr ? 0x8000 : 0) | (pe->ftype & 0xf)));
		break;
	case MRC_OP_EP_REQUEST: /* bytes 0, 2, 8-11 and reserved bits zero */
		memset(h, 0, MRC_ERTH_LEN);
		h[1] = er->op & 3;
		h[3] = er->vendor;
		put_be32(h + 4, er->port_status);
		put_be16(h + 12, er->tx_ts);
		put_be16(h + 14, (uint16_t)((er->tsr ? 0x8000 : 0) | (er->ftype & 0xf)));
		break;
	case MRC_OP_EP_RESPONSE: /* all but the op and the echo reserved (zero) */
		memset(h, 0, MRC_EETH_LEN);
		h[1] = (uint8_t)((ee->op & 3) << 4);
		put_be16(h + 28, ee->tx_ts_echo);
		break;
	case MRC_OP_CNP: /* reserved: sent as zero, ignored on receipt */
		memset(h, 0, MRC_CNP_RSVD_LEN);
		break;
	}
}

/* mrc_wire_encode, or with @hlen the bytes before the payload only (encode_gather) */
static int encode(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p, uint8_t *buf,
	size_t cap, size_t *hlen)
{
	struct lens l;
	uint8_t tclass = (uint8_t)((p->dscp & 0x3f) << 2 | (p->ecn & 3));
	uint8_t hl = p->hop_limit ? p->hop_limit : 64;
	uint32_t flow = cfg->ev_format == MRC_EVF_UDP ? 0 : p->ev & 0xffff;
	uint16_t sport = (uint16_t)(cfg->ev_format == MRC_EVF_UDP ? p->ev : p->ev >> 16);
	uint8_t *in, *u, *h;
	size_t pay;
	uint32_t icrc;
	int r;

	r = pkt_lens(cfg, p, &l);
	if (r < 0)
		return r;
	if ((hlen ? l.total - l.udp + MRC_UDP_HLEN + MRC_BTH_LEN + (size_t)l.ext : l.total) > cap)
		return -ENOSPC;
	if (l.outer) {
		const struct mrc_ip6 *da = &p->outer_dst;

		if (p->n_segs) {
			if (!ip6_is_zero(da) && memcmp(da->b, p->segs[0].b, 16) != 0)
				return -EINVAL;
			da = &p->segs[0];
		}
		put_ip6(buf, tclass, flow, (uint16_t)(l.total - MRC_IP6_HLEN),
			l.srh ? MRC_NH_ROUTING : NH_IPV6, hl, &p->outer_src, da);
		if (p->n_segs) {
			r = mrc_wire_srh_encode(p->segs, p->n_segs, p->srh_reduced, NH_IPV6,
				buf + MRC_IP6_HLEN, l.srh);
			if (r < 0)
				return r;
		}
		hl = 64;
	}
	in = buf + l.outer;
	put_ip6(in, tclass, flow, (uint16_t)l.udp, NH_UDP, hl, &p->src, &p->dst);
	u = in + MRC_IP6_HLEN;
	put_be16(u, sport);
	put_be16(u + 2, MRC_UDP_PORT);
	put_be16(u + 4, (uint16_t)l.udp);
	put_be16(u + 6, 0);
	h = u + MRC_UDP_HLEN;
	h[0] = p->opcode;
	h[1] = (uint8_t)((p->se ? 0x80 : 0) | (p->mig ? 0x40 : 0) | l.pad << 4); /* TVer 0 */
	put_be16(h + 2, p->pkey);
	h[4] = p->becn ? MRC_BTH_BECN : 0;
	put_be24(h + 5, p->dest_qp);
	h[8] = p->flags;
	put_be24(h + 9, p->psn);
	h += MRC_BTH_LEN;
	put_ext(p, h);
	h += l.ext;
	if (hlen) {
		*hlen = (size_t)(h - buf);
		return (int)l.total;
	}
	pay = op_is_data(p->opcode) ? p->payload_len : 0;
	if (pay && p->payload)
		memcpy(h, p->payload, pay);
	else if (pay) /* no source bytes (traffic.verify off): zeros */
		memset(h, 0, pay);
	memset(h + pay, 0, l.pad);
	h += pay + l.pad;
	if (cfg->csum_offload) {
		memset(h, 0, MRC_ICRC_LEN);
		return (int)l.total;
	}
	icrc = icrc_pkt(cfg, buf, l.outer, (size_t)(h - in));
	h[0] = (uint8_t)icrc;
	h[1] = (uint8_t)(icrc >> 8);
	h[2] = (uint8_t)(icrc >> 16);
	h[3] = (uint8_t)(icrc >> 24);
	put_be16(u + 6, mrc_wire_csum_udp6(&p->src, &p->dst, u, l.udp));
	return (int)l.total;
}

int mrc_wire_encode(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p, uint8_t *buf,
	size_t cap)
{
	return encode(cfg, p, buf, cap, NULL);
}

int mrc_wire_encode_gather(const struct mrc_wire_cfg *cfg, const struct mrc_pkt *p,
	uint8_t *buf, size_t cap, struct mrc_wire_gather *g)
{
	int n;

	if (!cfg->csum_offload)
		return -EINVAL;
	g->payload = NULL;
	g->payload_len = 0;
	if (!op_is_data(p->opcode) || !p->payload_len) {
		n = encode(cfg, p, buf, cap, NULL);
		g->hlen = n > 0 ? (size_t)n : 0;
		return n;
	}
	n = encode(cfg, p, buf, cap, &g->hlen);
	if (n > 0) {
		g->payload = p->payload;
		g->payload_len = p->payload_len;
	}
	return n;
}

int mrc_wire_csum_finish(const struct mrc_wire_cfg *cfg, uint8_t *buf, size_t len)
{
	size_t outer = 0, in_len, ulen;
	struct mrc_ip6 src, dst;
	uint8_t *u, *ic;
	uint32_t icrc;

	if (len < MRC_IP6_HLEN || buf[0] >> 4 != 6)
		return -EINVAL;
	if (buf[6] == MRC_NH_ROUTING || buf[6] == NH_IPV6) { /* outer [+SRH] + inner */
		outer = MRC_IP6_HLEN;
		if (buf[6] == MRC_NH_ROUTING) {
			if (len < outer + 8 || buf[outer] != NH_IPV6)
				return -EINVAL;
			outer += ((size_t)buf[outer + 1] + 1) * 8;
		}
		if (len < outer + MRC_IP6_HLEN || buf[outer] >> 4 != 6)
			return -EINVAL;
	}
	in_len = len - outer;
	if (in_len < MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN + MRC_ICRC_LEN ||
		buf[outer + 6] != NH_UDP)
		return -EINVAL;
	ulen = get_be16(buf + outer + 4);
	if (ulen != in_len - MRC_IP6_HLEN)
		return -EINVAL;
	u = buf + outer + MRC_IP6_HLEN;
	put_be16(u + 6, 0);
	ic = buf + len - MRC_ICRC_LEN;
	icrc = icrc_pkt(cfg, buf, outer, in_len - MRC_ICRC_LEN);
	ic[0] = (uint8_t)icrc;
	ic[1] = (uint8_t)(icrc >> 8);
	ic[2] = (uint8_t)(icrc >> 16);
	ic[3] = (uint8_t)(icrc >> 24);
	memcpy(src.b, buf + outer + 8, 16);
	memcpy(dst.b, buf + outer + 24, 16);
	put_be16(u + 6, mrc_wire_csum_udp6(&src, &dst, u, ulen));
	return 0;
}

int mrc_wire_trim(uint8_t *buf, size_t len, size_t cut, uint8_t dscp)
{
	uint32_t w;

	if (len < MRC_IP6_HLEN || cut < MRC_IP6_HLEN || buf[0] >> 4 != 6)
		return -EINVAL;
	if (cut >= len)
		return (int)len;
	w = get_be32(buf);
	w = (w & ~(0xfcu << 20)) | (uint32_t)(dscp & 0x3f) << 22;
	put_be32(buf, w);
	put_be16(buf + 4, (uint16_t)(cut - MRC_IP6_HLEN));
	return (int)cut;
}

/* Parses the data headers after BTH that fit in @n bytes at @h; returns bytes used. */
static size_t get_data_ext(struct mrc_pkt *p, const uint8_t *h, size_t n, bool *all)
{
	size_t used = 0;

	*all = false;
	if (n < MRC_METH_LEN)
		return used;
	p->rqmsn = get_be16(h);
	p->msn = get_be16(h + 2);
	used += MRC_METH_LEN;
	if (p->flags & MRC_BTH_F_TS) {
		if (n - used < MRC_TSETH_LEN)
			return used;
		p->tx_ts = get_be16(h + used);
		p->tsr = h[used + 2] & 0x80;
		used += MRC_TSETH_LEN;
	}
	if (n - used < MRC_RETH_LEN)
		return used;
	p->va = get_be64(h + used);
	p->rkey = get_be32(h + used + 8);
	p->dma_len = get_be32(h + used + 12);
	used += MRC_RETH_LEN;
	if (op_has_imm(p->opcode)) {
		if (n - used < MRC_IMM_LEN)
			return used;
		p->imm = get_be32(h + used);
		used += MRC_IMM_LEN;
	}
	*all = true;
	return used;
}

/* Parses a control header of exactly op_ext_len() bytes at @h. */
static void get_ctl_ext(struct mrc_pkt *p, const uint8_t *h)
{
	struct mrc_seth *s = &p->seth;
	struct mrc_neth *n = &p->neth;
	struct mrc_peth *pe = &p->peth;
	struct mrc_erth *er = &p->erth;
	struct mrc_eeth *ee = &p->eeth;
	uint16_t f;

	switch (p->opcode) {
	case MRC_OP_ACK:
		p->aeth.syndrome = h[0];
		p->aeth.msn = get_be24(h + 1);
		break;
	case MRC_OP_SACK:
		f = get_be16(h);
		s->m = (uint8_t)(f >> 5 & 3);
		s->pr = f >> 1 & 1;
		s->ack_psn_offset = (int16_t)get_be16(h + 2);
		s->ev = get_be32(h + 4);
		s->spdcid = get_be16(h + 8);
		s->dpdcid = get_be16(h + 10);
		s->cack_psn = get_be24(h + 13);
		s->cc_type = h[16] >> 4;
		s->cc_flags = h[16] & 0xf;
		s->mpr = h[17];
		s->sack_offset = (int16_t)get_be16(h + 18);
		s->sack_bitmap = get_be64(h + 20);
		h += MRC_SETH_LEN;
		s->tx_ts_echo = get_be16(h);
		s->ooo_count = get_be16(h + 2) & 0x7fff;
		s->restore_cwnd = h[4] & 0x80;
		s->rcv_cwnd_pen = h[4] & 0x7f;
		s->rcvd_bytes = get_be24(h + 5);
		break;
	case MRC_OP_NACK:
		n->reason = h[2];
		n->vendor = h[3];
		n->ev = get_be32(h + 4);
		n->spdcid = get_be16(h + 8);
		n->dpdcid = get_be16(h + 10);
		n->nack_psn = get_be24(h + 13);
		n->cc_type = h[16] >> 4;
		n->cc_flags = h[16] & 0xf;
		n->tx_ts_echo = get_be16(h + 18);
		break;
	case MRC_OP_PROBE:
		pe->vendor = h[3];
		pe->probe_id = get_be16(h + 4);
		pe->spdcid = get_be16(h + 8);
		pe->dpdcid = get_be16(h + 10);
		pe->tx_ts = get_be16(h + 12);
		pe->tsr = h[14] & 0x80;
		pe->ftype = h[15] & 0xf;
		break;
	case MRC_OP_EP_REQUEST:
		er->op = h[1] & 3;
		er->vendor = h[3];
		er->port_status = get_be32(h + 4);
		er->tx_ts = get_be16(h + 12);
		er->tsr = h[14] & 0x80;
		er->ftype = h[15] & 0xf;
		break;
	case MRC_OP_EP_RESPONSE:
		ee->op = h[1] >> 4 & 3;
		ee->tx_ts_echo = get_be16(h + 28);
		break;
	}
}

static bool dscp_is_trimmed(const struct mrc_wire_cfg *cfg, uint8_t dscp)
{
	return dscp == cfg->dscp_trimmed || dscp == cfg->dscp_trimmed_lasthop;
}

/*
 * Trim classification (C11). The first IPv6 header in the buffer defines the packet:
 * a buffer shorter than its payload length is TRUNCATED (a capture cut, never a trim).
 * A trimming switch rewrites that header, so a trim shows as a UDP datagram longer than
 * what the header carries; it is a trim when the opcode is a data opcode, the full BTH
 * is present and (where the rewritten header is visible) its DSCP is a trimmed class.
 * In srv6 mode with @outer false (a protocol-41 socket strips the outer header) the
 * inner header still says the original length, so an inner packet shorter than its own
 * payload length with a data opcode and a full BTH is classified trimmed.
 */
/*
 * mrc_wire_decode, or with @g (hlen < len) a packet whose bytes from @g->hlen on are not
 * at @buf: its headers are, its payload is @g->payload (zeros when NULL), its pad and
 * ICRC are never read. Every header read is bounded by @avail, the bytes at @buf.
 */
static int decode(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t len,
	const struct mrc_wire_gather *g, bool outer, struct mrc_pkt *p)
{
	size_t avail = g ? g->hlen : len;
	size_t off = 0, iplen, ulen, carried, u, hb, need, tail;
	bool srv6_outer = cfg->ev_format == MRC_EVF_SRV6 && outer;
	bool hidden_trim = cfg->ev_format == MRC_EVF_SRV6 && !outer;
	bool short_pkt = false, all;
	uint8_t first_dscp, first_ecn, inner_tc;
	uint32_t w;
	int ext;

	memset(p, 0, sizeof(*p));
	if (avail < MRC_IP6_HLEN)
		return MRC_WIRE_TRUNCATED;
	if (buf[0] >> 4 != 6)
		return MRC_WIRE_BAD_VERSION;
	first_dscp = ip6_tclass(buf) >> 2;
	first_ecn = ip6_tclass(buf) & 3;
	p->hop_limit = buf[7];
	if (srv6_outer) {
		uint8_t nh = buf[6];

		if (MRC_IP6_HLEN + (size_t)get_be16(buf + 4) > len)
			return MRC_WIRE_TRUNCATED;
		len = MRC_IP6_HLEN + get_be16(buf + 4);
		if (avail > len)
			avail = len;
		memcpy(p->outer_src.b, buf + 8, 16);
		memcpy(p->outer_dst.b, buf + 24, 16);
		off = MRC_IP6_HLEN;
		if (nh == MRC_NH_ROUTING) {
			int r = srh_read(buf, avail, p->segs, &p->n_segs, &p->srh_reduced,
				&p->segments_left, &nh);

			if (r < 0)
				return r;
			off += (size_t)r;
		}
		if (nh != NH_IPV6)
			return MRC_WIRE_NOT_MRC;
		if (avail - off < MRC_IP6_HLEN)
			return MRC_WIRE_TRUNCATED;
		if (buf[off] >> 4 != 6)
			return MRC_WIRE_BAD_VERSION;
	}
	/* inner IPv6 (the only one in stev/udp mode) */
	inner_tc = ip6_tclass(buf + off);
	iplen = get_be16(buf + off + 4);
	if (buf[off + 6] != NH_UDP)
		return MRC_WIRE_NOT_MRC;
	memcpy(p->src.b, buf + off + 8, 16);
	memcpy(p->dst.b, buf + off + 24, 16);
	w = get_be32(buf + off);
	if (!srv6_outer) {
		if (off + MRC_IP6_HLEN + iplen > len) {
			if (!hidden_trim)
				return MRC_WIRE_TRUNCATED;
			short_pkt = true;
		} else {
			len = off + MRC_IP6_HLEN + iplen;
			if (avail > len)
				avail = len;
		}
	}
	p->dscp = first_dscp;
	/* RFC 6040 decapsulation: CE on either header is CE */
	p->ecn = (inner_tc & 3) == ECN_CE ? ECN_CE : first_ecn;
	u = off + MRC_IP6_HLEN;
	if (avail - u < MRC_UDP_HLEN)
		return MRC_WIRE_TRUNCATED;
	p->udp_sport = get_be16(buf + u);
	if (get_be16(buf + u + 2) != MRC_UDP_PORT)
		return MRC_WIRE_NOT_MRC;
	ulen = get_be16(buf + u + 4);
	if (cfg->ev_format == MRC_EVF_UDP)
		p->ev = p->udp_sport;
	else
		p->ev = (uint32_t)p->udp_sport << 16 | (w & 0xffff);
	carried = len - u;
	if (cfg->ev_format == MRC_EVF_SRV6) {
		/* the inner header is never rewritten: its length equals the UDP length */
		if (ulen != iplen)
			return MRC_WIRE_BAD_LENGTH;
	} else if (ulen < iplen) {
		return MRC_WIRE_BAD_LENGTH;
	}
	if (ulen < carried)
		return MRC_WIRE_BAD_LENGTH;
	if (ulen > carried)
		short_pkt = true;
	/* BTH */
	if (avail - u < MRC_UDP_HLEN + MRC_BTH_LEN)
		return MRC_WIRE_TRUNCATED;
	hb = u + MRC_UDP_HLEN;
	p->opcode = buf[hb];
	ext = op_ext_len(p->opcode, buf[hb + 8] & MRC_BTH_F_TS);
	if (short_pkt && (ext < 0 || !op_is_data(p->opcode)))
		return MRC_WIRE_TRUNCATED;
	if (short_pkt && !hidden_trim && !dscp_is_trimmed(cfg, first_dscp))
		return MRC_WIRE_BAD_LENGTH;
	if (ext < 0)
		return MRC_WIRE_BAD_OPCODE;
	if (buf[hb + 1] & 0x0f)
		return MRC_WIRE_BAD_VERSION;
	p->se = buf[hb + 1] & 0x80;
	p->mig = buf[hb + 1] & 0x40;
	p->pad_cnt = buf[hb + 1] >> 4 & 3;
	p->pkey = get_be16(buf + hb + 2);
	p->becn = buf[hb + 4] & MRC_BTH_BECN;
	p->dest_qp = get_be24(buf + hb + 5);
	p->flags = buf[hb + 8];
	p->psn = get_be24(buf + hb + 9);
	hb += MRC_BTH_LEN;
	if (avail < len) { /* gathered: whole data headers here, nothing after them, not cut */
		if (short_pkt || !op_is_data(p->opcode) || avail != hb + (size_t)ext)
			return MRC_WIRE_BAD_LENGTH;
	}
	if (short_pkt) {
		size_t got = get_data_ext(p, buf + hb, len - hb, &all);

		p->trimmed = true;
		p->orig_len = (uint32_t)(u + ulen);
		if (all) {
			p->payload = buf + hb + got;
			p->payload_len = (uint32_t)(len - hb - got);
		}
		return MRC_WIRE_OK;
	}
	need = MRC_UDP_HLEN + MRC_BTH_LEN + (size_t)ext + MRC_ICRC_LEN;
	if (ulen < need)
		return MRC_WIRE_BAD_LENGTH;
	if (!op_is_data(p->opcode) && ulen != need)
		return MRC_WIRE_BAD_LENGTH;
	tail = ulen - need; /* payload + pad */
	if (tail < p->pad_cnt)
		return MRC_WIRE_BAD_LENGTH;
	/* RFC 8200 §8.1: a zero UDP checksum is invalid, unless offload left it to be filled */
	if (get_be16(buf + u + 6) == 0 && (cfg->check_csum || !cfg->csum_offload))
		return MRC_WIRE_BAD_CHECKSUM;
	if (cfg->check_csum &&
		get_be16(buf + u + 6) != mrc_wire_csum_udp6(&p->src, &p->dst, buf + u, ulen))
		return MRC_WIRE_BAD_CHECKSUM;
	/* with icrc_outer the outer header is part of the ICRC: unverifiable without it */
	if (cfg->check_icrc && !(cfg->icrc_outer && hidden_trim)) {
		const uint8_t *ic = buf + len - MRC_ICRC_LEN;
		uint32_t got_icrc = (uint32_t)ic[0] | (uint32_t)ic[1] << 8 |
				    (uint32_t)ic[2] << 16 | (uint32_t)ic[3] << 24;

		if (got_icrc != icrc_pkt(cfg, buf, off, len - off - MRC_ICRC_LEN))
			return MRC_WIRE_BAD_ICRC;
	}
	if (op_is_data(p->opcode)) {
		get_data_ext(p, buf + hb, (size_t)ext, &all);
		p->payload = buf + hb + ext;
		p->payload_len = (uint32_t)(tail - p->pad_cnt);
		if (avail < len) {
			if (g->payload_len != p->payload_len)
				return MRC_WIRE_BAD_LENGTH;
			p->payload = g->payload;
		}
	} else {
		get_ctl_ext(p, buf + hb);
	}
	p->orig_len = (uint32_t)len;
	return MRC_WIRE_OK;
}

int mrc_wire_decode(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t len, bool outer,
	struct mrc_pkt *p)
{
	return decode(cfg, buf, len, NULL, outer, p);
}

int mrc_wire_decode_gather(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t len,
	const struct mrc_wire_gather *g, bool outer, struct mrc_pkt *p)
{
	if (g->hlen > len) {
		memset(p, 0, sizeof(*p));
		return MRC_WIRE_BAD_LENGTH;
	}
	if (g->hlen == len)
		return decode(cfg, buf, len, NULL, outer, p);
	if (cfg->check_csum || cfg->check_icrc) { /* they cover bytes that are not here */
		memset(p, 0, sizeof(*p));
		return MRC_WIRE_BAD_CHECKSUM;
	}
	return decode(cfg, buf, len, g, outer, p);
}

/* ---- ICMPv6 (RFC 4443) ---- */

/* RFC 4443 §2.3: ones' complement of the sum over the RFC 8200 §8.1 pseudo-header (@src,
 * @dst, 32-bit length, next header 58) and the @n-byte message at @m, whose checksum field
 * counts as zero. */
static uint16_t icmp6_csum(const uint8_t *src, const uint8_t *dst, const uint8_t *m, size_t n)
{
	uint64_t s = 0;

	s = sum16(s, src, 16);
	s = sum16(s, dst, 16);
	s += (uint32_t)(n >> 16) + (uint32_t)(n & 0xffff);
	s += MRC_NH_ICMP6;
	s = sum16(s, m, 2); /* type, code; the checksum field counts as zero */
	if (n > 4)
		s = sum16(s, m + 4, n - 4);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int mrc_wire_icmp6_time_exceeded(const struct mrc_ip6 *src, const uint8_t *pkt, size_t len,
	uint8_t hop_limit, uint8_t *buf, size_t cap)
{
	static const size_t quote_max = MRC_IP6_MIN_MTU - MRC_IP6_HLEN - MRC_ICMP6_HLEN;
	size_t q = len < quote_max ? len : quote_max;
	struct mrc_ip6 dst;
	uint8_t *m = buf + MRC_IP6_HLEN;

	if (len < MRC_IP6_HLEN || pkt[0] >> 4 != 6)
		return -EBADMSG;
	/* RFC 4443 §2.4(e): not about an error message, nor to :: or a multicast source */
	if (pkt[6] == MRC_NH_ICMP6 && (len <= MRC_IP6_HLEN || pkt[MRC_IP6_HLEN] < 128))
		return -EPERM;
	memcpy(dst.b, pkt + 8, 16);
	if (dst.b[0] == 0xff || ip6_is_zero(&dst))
		return -EPERM;
	if (cap < MRC_IP6_HLEN + MRC_ICMP6_HLEN + q)
		return -ENOSPC;
	put_ip6(buf, 0, 0, (uint16_t)(MRC_ICMP6_HLEN + q), MRC_NH_ICMP6, hop_limit ? hop_limit : 64,
		src, &dst);
	m[0] = MRC_ICMP6_TIME_EXCEEDED;
	m[1] = 0; /* hop limit exceeded in transit */
	memset(m + 2, 0, 6);
	memcpy(m + MRC_ICMP6_HLEN, pkt, q);
	put_be16(m + 2, icmp6_csum(src->b, dst.b, m, MRC_ICMP6_HLEN + q));
	return (int)(MRC_IP6_HLEN + MRC_ICMP6_HLEN + q);
}

int mrc_wire_decode_icmp6(const uint8_t *buf, size_t len, struct mrc_icmp6 *out)
{
	const uint8_t *m = buf + MRC_IP6_HLEN;
	uint16_t sum;
	size_t plen;

	memset(out, 0, sizeof(*out));
	if (len < MRC_IP6_HLEN)
		return MRC_WIRE_TRUNCATED;
	if (buf[0] >> 4 != 6)
		return MRC_WIRE_BAD_VERSION;
	if (buf[6] != MRC_NH_ICMP6)
		return MRC_WIRE_NOT_MRC;
	plen = get_be16(buf + 4);
	if (MRC_IP6_HLEN + plen > len)
		return MRC_WIRE_TRUNCATED;
	if (plen < MRC_ICMP6_HLEN)
		return MRC_WIRE_BAD_LENGTH;
	sum = icmp6_csum(buf + 8, buf + 24, m, plen);
	/* ones' complement: 0xffff is the other zero (a sender may write either) */
	if (get_be16(m + 2) != sum && (sum || get_be16(m + 2) != 0xffff))
		return MRC_WIRE_BAD_ICMP6;
	out->type = m[0];
	out->code = m[1];
	memcpy(out->src.b, buf + 8, 16);
	memcpy(out->dst.b, buf + 24, 16);
	out->body = m + MRC_ICMP6_HLEN;
	out->body_len = plen - MRC_ICMP6_HLEN;
	if (out->body_len >= MRC_IP6_HLEN && out->body[0] >> 4 == 6) {
		out->quoted_ip6 = true;
		memcpy(out->q_src.b, out->body + 8, 16);
		memcpy(out->q_dst.b, out->body + 24, 16);
	}
	return MRC_WIRE_OK;
}

/* ---- names ---- */

const char *mrc_wire_strerror(int err)
{
	switch (err) {
	case MRC_WIRE_OK:
		return "ok";
	case MRC_WIRE_TRUNCATED:
		return "truncated";
	case MRC_WIRE_BAD_VERSION:
		return "bad version";
	case MRC_WIRE_BAD_SRH:
		return "bad SRH";
	case MRC_WIRE_BAD_CHECKSUM:
		return "bad UDP checksum";
	case MRC_WIRE_BAD_ICRC:
		return "bad ICRC";
	case MRC_WIRE_BAD_OPCODE:
		return "unknown opcode";
	case MRC_WIRE_NOT_MRC:
		return "not MRC";
	case MRC_WIRE_BAD_LENGTH:
		return "bad length";
	case MRC_WIRE_BAD_ICMP6:
		return "bad ICMPv6 checksum";
	}
	return "unknown error";
}

const char *mrc_wire_opcode_name(uint8_t opcode)
{
	switch (opcode) {
	case MRC_OP_WRITE_FIRST:
		return "WRITE_FIRST";
	case MRC_OP_WRITE_MIDDLE:
		return "WRITE_MIDDLE";
	case MRC_OP_WRITE_LAST:
		return "WRITE_LAST";
	case MRC_OP_WRITE_LAST_IMM:
		return "WRITE_LAST_IMM";
	case MRC_OP_WRITE_ONLY:
		return "WRITE_ONLY";
	case MRC_OP_WRITE_ONLY_IMM:
		return "WRITE_ONLY_IMM";
	case MRC_OP_ACK:
		return "ACK";
	case MRC_OP_EP_REQUEST:
		return "ENDPOINT_REQUEST";
	case MRC_OP_EP_RESPONSE:
		return "ENDPOINT_RESPONSE";
	case MRC_OP_SACK:
		return "SACK";
	case MRC_OP_NACK:
		return "NACK";
	case MRC_OP_PROBE:
		return "PROBE";
	case MRC_OP_CNP:
		return "CNP";
	}
	return "UNKNOWN";
}

const char *mrc_wire_nack_name(uint8_t reason)
{
	switch (reason) {
	case MRC_NACK_TRIMMED:
		return "TRIMMED";
	case MRC_NACK_TRIMMED_LASTHOP:
		return "TRIMMED_LASTHOP";
	case MRC_NACK_NO_BITMAP:
		return "NO_BITMAP";
	case MRC_NACK_NO_PKT_BUFFER:
		return "NO_PKT_BUFFER";
	case MRC_NACK_NO_RESOURCE:
		return "NO_RESOURCE";
	case MRC_NACK_PSN_OOR_WINDOW:
		return "PSN_OOR_WINDOW";
	case MRC_NACK_UNEXP_EVENT:
		return "UNEXP_EVENT";
	}
	return "UNKNOWN";
}

/* ---- samples ---- */

static const uint8_t nack_reasons[] = {
	MRC_NACK_TRIMMED, MRC_NACK_TRIMMED_LASTHOP, MRC_NACK_NO_BITMAP, MRC_NACK_NO_PKT_BUFFER,
	MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOR_WINDOW, MRC_NACK_UNEXP_EVENT,
};

static uint8_t sample_payload[1500];

static void ip6_set(struct mrc_ip6 *a, uint32_t hi, uint16_t w2, uint16_t low)
{
	memset(a->b, 0, 16);
	put_be32(a->b, hi);
	put_be16(a->b + 4, w2);
	put_be16(a->b + 14, low);
}

int mrc_wire_sample_count(const struct mrc_wire_cfg *cfg)
{
	return MRC_WIRE_SAMPLE_TYPES * (cfg->ev_format == MRC_EVF_SRV6 ? 3 : 1);
}

int mrc_wire_sample_pkt(unsigned i, const struct mrc_wire_cfg *cfg, struct mrc_pkt *p)
{
	static const uint8_t data_ops[6] = {
		MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE, MRC_OP_WRITE_LAST,
		MRC_OP_WRITE_LAST_IMM, MRC_OP_WRITE_ONLY, MRC_OP_WRITE_ONLY_IMM,
	};
	static const uint32_t pay_len[6] = { 1, 2, 3, 64, 5, 0 };
	unsigned t = i % MRC_WIRE_SAMPLE_TYPES, v = i / MRC_WIRE_SAMPLE_TYPES;

	if (i >= (unsigned)mrc_wire_sample_count(cfg))
		return -ENOENT;
	for (size_t k = 0; k < sizeof(sample_payload); k++)
		sample_payload[k] = (uint8_t)(k * 7 + 3);
	memset(p, 0, sizeof(*p));
	p->hop_limit = 64;
	p->dscp = 26;
	p->ecn = 2;
	ip6_set(&p->src, 0x20010db8, 0x00a0, 0x0001 + (uint16_t)t);
	ip6_set(&p->dst, 0x20010db8, 0x00b0, 0x0002);
	p->ev = cfg->ev_format == MRC_EVF_UDP ? 0xc000u + 17 * t : 0x3a5c0000u + 0x101u * t;
	if (cfg->ev_format == MRC_EVF_SRV6) {
		ip6_set(&p->outer_src, 0x20010db8, 0x00a0, 0x0001);
		ip6_set(&p->outer_dst, 0xfc000000, 0x0001, 0);
		if (v) {
			p->n_segs = 3;
			p->srh_reduced = v == 2;
			ip6_set(&p->segs[0], 0xfc000000, 0x0001, 0x0001);
			ip6_set(&p->segs[1], 0xfc000000, 0x0002, 0x0001);
			ip6_set(&p->segs[2], 0x20010db8, 0x00b0, 0x0002);
			p->outer_dst = p->segs[0];
			p->segments_left = 2;
		}
	}
	p->pkey = 0xffff;
	p->dest_qp = 0x000a11 + t;
	p->psn = (0xfffff0 + t) & MRC_PSN_MASK; /* across the 24-bit wrap */
	if (t < 12) {
		p->opcode = data_ops[t % 6];
		p->flags = t >= 6 ? MRC_BTH_F_TS | MRC_BTH_F_ACKREQ : (t & 1 ? MRC_BTH_F_RTX : 0);
		p->se = op_has_imm(p->opcode);
		p->rqmsn = (uint16_t)(0x1200 + t);
		p->msn = (uint16_t)(0x3400 + t);
		p->tx_ts = (uint16_t)(0xbeef - t);
		p->tsr = t == 7;
		p->va = 0x00007f0012340000ull + 4096ull * t;
		p->rkey = 0xabcd0000u + t;
		p->dma_len = 65536;
		p->imm = 0xdead0000u + t;
		p->payload = sample_payload;
		p->payload_len = t >= 6 ? 1024 + (uint32_t)t : pay_len[t];
		p->pad_cnt = (uint8_t)((4 - p->payload_len % 4) % 4);
		return 0;
	}
	p->dscp = 48;
	p->ecn = 0;
	if (t == 12) {
		p->opcode = MRC_OP_ACK;
		p->aeth.syndrome = 0x1f;
		p->aeth.msn = 0x123456;
	} else if (t == 13) {
		struct mrc_erth *e = &p->erth;

		p->opcode = MRC_OP_EP_REQUEST;
		p->dest_qp = MRC_EP_DEST_QP;
		p->psn = 0x4242; /* the request id */
		e->op = MRC_EP_OP_PORT_STATUS;
		e->vendor = 0x5a;
		e->port_status = 0x0000000a; /* ports 1 and 3 up */
		e->tx_ts = 0x7777;
		e->tsr = true;
		e->ftype = 1;
	} else if (t == 14) {
		struct mrc_eeth *e = &p->eeth;

		p->opcode = MRC_OP_EP_RESPONSE;
		p->dest_qp = MRC_EP_DEST_QP;
		p->psn = 0x4243;
		e->op = MRC_EP_OP_EV_PROBE;
		e->tx_ts_echo = 0x7777;
	} else if (t == 15) {
		struct mrc_seth *s = &p->seth;

		p->opcode = MRC_OP_SACK;
		s->m = MRC_SACK_M_ALWAYS_SKIP;
		s->pr = true;
		s->ack_psn_offset = -3;
		s->ev = 0x3a5c1234;
		s->spdcid = 0x1001;
		s->dpdcid = 0x2002;
		s->cack_psn = 0xfffffe;
		s->cc_type = 0x9;
		s->cc_flags = 0x6;
		s->mpr = 8;
		s->sack_offset = 2;
		s->sack_bitmap = 0x8000000000000005ull;
		s->tx_ts_echo = 0xfeed;
		s->ooo_count = 0x7ffe;
		s->restore_cwnd = true;
		s->rcv_cwnd_pen = 0x55;
		s->rcvd_bytes = 0xabcdef;
	} else if (t < 23) {
		struct mrc_neth *n = &p->neth;

		p->opcode = MRC_OP_NACK;
		n->reason = nack_reasons[t - 16];
		n->vendor = 0x5a;
		n->ev = 0x3a5c0000u + t;
		n->spdcid = 0x1001;
		n->dpdcid = 0x2002;
		n->nack_psn = 0xfffff1;
		n->cc_type = 0x1;
		n->cc_flags = 0xe;
		n->tx_ts_echo = 0x0102;
	} else if (t == 24) {
		/* CNP, as a ConnectX NIC sends one (IBTA Annex A17): BECN, PSN 0, 16 B
		 * reserved; the DSCP of ConnectX's cnp_dscp */
		p->opcode = MRC_OP_CNP;
		p->becn = true;
		p->psn = 0;
	} else {
		struct mrc_peth *pe = &p->peth;

		p->opcode = MRC_OP_PROBE;
		pe->vendor = 0x77;
		pe->probe_id = 0x0909;
		pe->spdcid = 0x1001;
		pe->dpdcid = 0x2002;
		pe->tx_ts = 0x3333;
		pe->tsr = true;
		pe->ftype = 1;
	}
	return 0;
}

int mrc_wire_sample(unsigned i, const struct mrc_wire_cfg *cfg, uint8_t *buf, size_t cap)
{
	struct mrc_pkt p;
	int r = mrc_wire_sample_pkt(i, cfg, &p);

	return r < 0 ? r : mrc_wire_encode(cfg, &p, buf, cap);
}
