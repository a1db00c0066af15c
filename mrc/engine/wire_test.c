/* SPDX-License-Identifier: BSD-2-Clause */
/* wire_test: unit tests of mrc/engine/wire.c (`mrcgen-test wire`). */
#include "mrc/engine/wire.c"
#include "mrc/base/st.h"

/* ---- selftest ---- */


#include <stdlib.h>

static void ip6_parse(struct mrc_ip6 *a, const char *hex)
{
	mrc_st_hex(hex, a->b, 16);
}

/* The hand-built vectors' packet: 2001:db8:a::1 -> 2001:db8:b::2, hop limit 64, the rest 0. */
static void vec_pkt(struct mrc_pkt *p)
{
	memset(p, 0, sizeof(*p));
	ip6_parse(&p->src, "20010db8000a00000000000000000001");
	ip6_parse(&p->dst, "20010db8000b00000000000000000002");
	p->hop_limit = 64;
}

/* mrc_wire_icmp6_time_exceeded with the default hop limit */
static int st_te(const struct mrc_ip6 *sw, const uint8_t *inv, size_t len, uint8_t *out,
	size_t cap)
{
	return mrc_wire_icmp6_time_exceeded(sw, inv, len, 0, out, cap);
}

/* C01/C02/C03 segments in travel order: S1, S2, final. */
static void c0x_segs(struct mrc_ip6 *s)
{
	ip6_parse(&s[0], "fc000000000100000000000000000001");
	ip6_parse(&s[1], "fc000000000200000000000000000001");
	ip6_parse(&s[2], "20010db8000b00000000000000000002");
}

static const char c01_hex[] =
	"6000000000482b40 20010db8000a0000 0000000000000001"
	"fc00000000010000 0000000000000001"
	"1106040202000000"
	"20010db8000b0000 0000000000000002"
	"fc00000000020000 0000000000000001"
	"fc00000000010000 0000000000000001"
	"c00012b70010c57c 0001020304050607";

static void c01_hdr(struct mrc_ip6_udp *h, const uint8_t *payload)
{
	memset(h, 0, sizeof(*h));
	ip6_parse(&h->src, "20010db8000a00000000000000000001");
	h->hop_limit = 64;
	h->n_segs = 3;
	c0x_segs(h->segs);
	h->sport = 49152;
	h->dport = 4791;
	h->payload = payload;
	h->payload_len = 8;
}

static bool has_aa_run(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (p[i] == 0xaa && p[i + 1] == 0xaa)
			return true;
	return false;
}

/* Field-by-field comparison of an encoded and a decoded packet; returns mismatches. */
static int pkt_cmp(struct mrc_st *st, const struct mrc_wire_cfg *cfg, const struct mrc_pkt *a,
	const struct mrc_pkt *b, bool outer)
{
	int bad = 0;

#define CMP(f)                                                                                     \
	do {                                                                                       \
		if ((a->f) != (b->f)) {                                                            \
			bad++;                                                                     \
			mrc_st_check(st, false, __FILE__, __LINE__,                        \
				"op 0x%x evf %d: %s: %llx != %llx", a->opcode, cfg->ev_format, #f, \
				(unsigned long long)(a->f),                                        \
				(unsigned long long)(b->f));                                       \
		}                                                                                  \
	} while (0)
#define CMPA(f)                                                                                    \
	do {                                                                                       \
		if (memcmp(a->f.b, b->f.b, 16)) {                                                  \
			bad++;                                                                     \
			mrc_st_check(st, false, __FILE__, __LINE__, "op 0x%x: %s differs",         \
				a->opcode, #f);                                                    \
		}                                                                                  \
	} while (0)
	if (cfg->ev_format == MRC_EVF_SRV6 && outer) {
		CMPA(outer_src);
		CMPA(outer_dst);
		CMP(n_segs);
		CMP(segments_left);
		if (a->n_segs)
			CMP(srh_reduced);
		for (unsigned i = 0; i < a->n_segs && i < MRC_SRH_MAX_SEGS; i++)
			CMPA(segs[i]);
	}
	CMP(hop_limit);
	CMP(dscp);
	CMP(ecn);
	CMPA(src);
	CMPA(dst);
	CMP(ev);
	CMP(opcode);
	CMP(se);
	CMP(mig);
	CMP(pad_cnt);
	CMP(pkey);
	CMP(becn);
	CMP(dest_qp);
	CMP(flags);
	CMP(psn);
	CMP(trimmed);
	if (op_is_data(a->opcode)) {
		CMP(rqmsn);
		CMP(msn);
		if (a->flags & MRC_BTH_F_TS) {
			CMP(tx_ts);
			CMP(tsr);
		}
		CMP(va);
		CMP(rkey);
		CMP(dma_len);
		if (op_has_imm(a->opcode))
			CMP(imm);
		CMP(payload_len);
		if (a->payload_len == b->payload_len && b->payload &&
		    memcmp(a->payload, b->payload, a->payload_len)) {
			bad++;
			mrc_st_check(st, false, __FILE__, __LINE__, "payload differs");
		}
	}
	switch (a->opcode) {
	case MRC_OP_ACK:
		CMP(aeth.syndrome);
		CMP(aeth.msn);
		break;
	case MRC_OP_SACK:
		CMP(seth.m);
		CMP(seth.pr);
		CMP(seth.ack_psn_offset);
		CMP(seth.ev);
		CMP(seth.spdcid);
		CMP(seth.dpdcid);
		CMP(seth.cack_psn);
		CMP(seth.cc_type);
		CMP(seth.cc_flags);
		CMP(seth.mpr);
		CMP(seth.sack_offset);
		CMP(seth.sack_bitmap);
		CMP(seth.tx_ts_echo);
		CMP(seth.ooo_count);
		CMP(seth.restore_cwnd);
		CMP(seth.rcv_cwnd_pen);
		CMP(seth.rcvd_bytes);
		break;
	case MRC_OP_NACK:
		CMP(neth.reason);
		CMP(neth.vendor);
		CMP(neth.ev);
		CMP(neth.spdcid);
		CMP(neth.dpdcid);
		CMP(neth.nack_psn);
		CMP(neth.cc_type);
		CMP(neth.cc_flags);
		CMP(neth.tx_ts_echo);
		break;
	case MRC_OP_PROBE:
		CMP(peth.vendor);
		CMP(peth.probe_id);
		CMP(peth.spdcid);
		CMP(peth.dpdcid);
		CMP(peth.tx_ts);
		CMP(peth.tsr);
		CMP(peth.ftype);
		break;
	case MRC_OP_EP_REQUEST:
		CMP(erth.op);
		CMP(erth.vendor);
		CMP(erth.port_status);
		CMP(erth.tx_ts);
		CMP(erth.tsr);
		CMP(erth.ftype);
		break;
	case MRC_OP_EP_RESPONSE:
		CMP(eeth.op);
		CMP(eeth.tx_ts_echo);
		break;
	}
#undef CMP
#undef CMPA
	return bad;
}

/* Offset of the inner IPv6 header in an encoded srv6 packet (40 + SRH length). */
static size_t inner_off(const uint8_t *buf)
{
	return MRC_IP6_HLEN + (buf[6] == MRC_NH_ROUTING ? ((size_t)buf[41] + 1) * 8 : 0);
}

/* Decodes a malloc'd copy of exactly @cut bytes so ASan sees any read past the end. */
static int decode_cut(const struct mrc_wire_cfg *cfg, const uint8_t *buf, size_t cut, bool outer,
	struct mrc_pkt *p)
{
	uint8_t *c = malloc(cut ? cut : 1);
	int r;

	if (!c)
		return -ENOMEM;
	memcpy(c, buf, cut);
	r = mrc_wire_decode(cfg, c, cut, outer, p);
	free(c);
	return r;
}

MRC_SELFTEST(wire)
{
	struct mrc_wire_cfg cfg;
	struct mrc_ip6_udp h, hd;
	static const struct mrc_ip6 big[MRC_SRH_MAX_SEGS + 1];
	struct mrc_ip6 segs[3], a;
	struct mrc_srh srh;
	struct mrc_pkt p, d;
	uint8_t want[256], buf[MRC_PKT_MAX], pay[8];
	uint16_t c;
	int n, r;

	mrc_wire_cfg_default(&cfg);
	for (int i = 0; i < 8; i++)
		pay[i] = (uint8_t)i;

	mrc_st_case(st, "C01 UDP checksum under an SRH uses the final destination");
	n = mrc_st_hex(c01_hex, want, sizeof(want));
	ST_EQ(st, n, 112);
	c01_hdr(&h, pay);
	ST_EQ(st, mrc_wire_encode_ip6_udp(&h, buf, sizeof(buf)), 112);
	ST_EQ_MEM(st, buf, want, 112);
	ST_EQ(st, get_be16(buf + 102), 0xc57c);
	ST_EQ(st, mrc_wire_udp6_csum(want, 112, &c), 0);
	ST_EQ(st, c, 0xc57c);
	ST_EQ_I(st, mrc_wire_decode_ip6_udp(want, 112, &hd), MRC_WIRE_OK);
	ST_EQ(st, hd.n_segs, 3);
	ST_EQ(st, hd.segments_left, 2);
	ST_EQ_MEM(st, hd.segs[2].b, h.segs[2].b, 16);
	ST_EQ(st, hd.payload_len, 8);
	/* the bug: the current DA in the pseudo-header gives 0xf73f, which must not pass */
	memcpy(buf, want, 112);
	put_be16(buf + 102, 0xf73f);
	ST_EQ_I(st, mrc_wire_decode_ip6_udp(buf, 112, &hd), MRC_WIRE_BAD_CHECKSUM);

	mrc_st_case(st, "C01 replays with SL=1/DA=S2 and SL=0/DA=final stay valid");
	memcpy(buf, want, 112);
	buf[43] = 1;
	memcpy(buf + 24, h.segs[1].b, 16);
	ST_EQ_I(st, mrc_wire_decode_ip6_udp(buf, 112, &hd), MRC_WIRE_OK);
	ST_EQ(st, hd.segments_left, 1);
	ST_EQ(st, mrc_wire_udp6_csum(buf, 112, &c), 0);
	ST_EQ(st, c, 0xc57c);
	buf[43] = 0;
	memcpy(buf + 24, h.segs[2].b, 16);
	ST_EQ_I(st, mrc_wire_decode_ip6_udp(buf, 112, &hd), MRC_WIRE_OK);
	ST_EQ(st, hd.segments_left, 0);

	mrc_st_case(st, "C01 computed 0x0000 goes out as 0xffff; a received 0x0000 is rejected");
	mrc_st_hex("00 01 02 03 04 05 cb 83", pay, 8);
	ST_EQ(st, mrc_wire_encode_ip6_udp(&h, buf, sizeof(buf)), 112);
	ST_EQ(st, get_be16(buf + 102), 0xffff);
	ST_EQ_I(st, mrc_wire_decode_ip6_udp(buf, 112, &hd), MRC_WIRE_OK);
	put_be16(buf + 102, 0x0000);
	ST_EQ_I(st, mrc_wire_decode_ip6_udp(buf, 112, &hd), MRC_WIRE_BAD_CHECKSUM);

	mrc_st_case(st, "C02 SRH fixed fields, reversed list, last entry read back");
	c0x_segs(segs);
	memset(buf, 0xaa, sizeof(buf));
	ST_EQ_I(st, mrc_wire_srh_encode(segs, 3, false, 17, buf, sizeof(buf)), 56);
	mrc_st_hex("11 06 04 02 02 00 00 00", want, 8);
	ST_EQ_MEM(st, buf, want, 8);
	ST_EQ(st, buf[4], 2);
	ST_EQ_MEM(st, buf + 8, segs[2].b, 16);
	ST_EQ_MEM(st, buf + 24, segs[1].b, 16);
	ST_EQ_MEM(st, buf + 40, segs[0].b, 16);
	ST_TRUE(st, !has_aa_run(buf, 56));
	ST_EQ(st, buf[56], 0xaa);
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 56, &srh), 56);
	ST_EQ(st, srh.next_header, 17);
	ST_EQ(st, srh.segments_left, 2);
	ST_EQ(st, srh.last_entry, 2);
	ST_EQ(st, srh.len, 56);
	ST_TRUE(st, !srh.reduced);
	mrc_wire_srh_segment(&srh, 0, &a);
	ST_EQ_MEM(st, a.b, segs[2].b, 16);
	mrc_wire_srh_segment(&srh, 2, &a);
	ST_EQ_MEM(st, a.b, segs[0].b, 16);
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 55, &srh), MRC_WIRE_TRUNCATED);
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 7, &srh), MRC_WIRE_TRUNCATED);
	ST_EQ(st, mrc_wire_srh_len(3, false), 56);
	/* encoder limits: no segments is no path, 9 > MRC_SRH_MAX_SEGS, one byte short */
	ST_EQ_I(st, mrc_wire_srh_encode(segs, 0, false, 17, buf, sizeof(buf)), -EINVAL);
	ST_EQ_I(st, mrc_wire_srh_encode(segs, 0, true, 17, buf, sizeof(buf)), -EINVAL);
	ST_EQ_I(st, mrc_wire_srh_encode(big, 9, false, 17, buf, sizeof(buf)), -EINVAL);
	ST_EQ_I(st, mrc_wire_srh_encode(segs, 3, false, 17, buf, 55), -ENOSPC);

	mrc_st_case(st, "C02 SRH decoder rejects inconsistent headers (RFC 8754 4.3.1)");
	memset(buf, 0, sizeof(buf));
	mrc_st_hex("11 06 04 02 00 00 00 00", buf, 8); /* SL 2 > LE+1 */
	memcpy(buf + 8, segs[2].b, 16);
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 56, &srh), MRC_WIRE_BAD_SRH);
	buf[3] = 1; /* SL = LE+1 = 1, TLV area all Pad1: valid, reduced */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 56, &srh), 56);
	ST_TRUE(st, srh.reduced);
	mrc_st_hex("11 04 04 01 00 00 00 00", buf, 8); /* LE 0, 16 bytes after the list */
	memset(buf + 24, 0xaa, 16);		      /* trailing garbage, not TLVs */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 40, &srh), MRC_WIRE_BAD_SRH);
	mrc_st_hex("04 0e", buf + 24, 2); /* PadN covering the 16 bytes: valid TLVs */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 40, &srh), 40);
	mrc_st_hex("00 04 0c 000000000000000000000000 00", buf + 24, 16); /* Pad1 PadN Pad1 */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 40, &srh), 40);
	buf[26] = 0x0e; /* that PadN now runs one byte past the header end */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 40, &srh), MRC_WIRE_BAD_SRH);
	mrc_st_hex("11 06 04 02 03 00 00 00", buf, 8); /* LE 3 > hdr_ext_len/2 - 1 = 2 */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 56, &srh), MRC_WIRE_BAD_SRH);
	mrc_st_hex("11 02 04 00 01 00 00 00", buf, 8); /* LE 1 > hdr_ext_len/2 - 1 = 0 */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 24, &srh), MRC_WIRE_BAD_SRH);
	mrc_st_hex("11 02 05 00 00 00 00 00", buf, 8); /* routing type 5 */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 24, &srh), MRC_WIRE_BAD_SRH);
	mrc_st_hex("11 06 04 02 02 00 00 00", buf, 8); /* needs 56 bytes */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 40, &srh), MRC_WIRE_TRUNCATED);

	mrc_st_case(st, "C03 reduced SRH bytes, DA progression S1 -> S2 -> S3");
	memset(buf, 0xaa, sizeof(buf));
	ST_EQ_I(st, mrc_wire_srh_encode(segs, 3, true, 17, buf, sizeof(buf)), 40);
	mrc_st_hex("11 04 04 02 01 00 00 00", want, 8);
	ST_EQ_MEM(st, buf, want, 8);
	ST_EQ_MEM(st, buf + 8, segs[2].b, 16);
	ST_EQ_MEM(st, buf + 24, segs[1].b, 16);
	ST_TRUE(st, !has_aa_run(buf, 40));
	ST_EQ(st, buf[40], 0xaa);
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 40, &srh), 40);
	ST_TRUE(st, srh.reduced);
	{
		/* endpoint processing (RFC 8754 4.3.1.1): SL--, DA = list[SL]; starts at S1 */
		const uint8_t *da = segs[0].b;
		const uint8_t *seen[3];
		unsigned k = 0, sl = buf[3];

		seen[k++] = da;
		while (sl > 0 && k < 3) {
			sl--;
			seen[k++] = buf + 8 + 16 * sl;
		}
		ST_EQ(st, k, 3);
		ST_EQ_MEM(st, seen[1], segs[1].b, 16);
		ST_EQ_MEM(st, seen[2], segs[2].b, 16);
	}
	buf[3] = 3; /* SL = LE+2 */
	ST_EQ_I(st, mrc_wire_srh_decode(buf, 40, &srh), MRC_WIRE_BAD_SRH);
	memset(buf, 0xaa, sizeof(buf));
	ST_EQ_I(st, mrc_wire_srh_encode(segs + 1, 2, true, 17, buf, sizeof(buf)), 24);
	mrc_st_hex("11 02 04 01 00 00 00 00", want, 8);
	ST_EQ_MEM(st, buf, want, 8);
	ST_EQ_MEM(st, buf + 8, segs[2].b, 16);
	ST_TRUE(st, !has_aa_run(buf, 24));
	ST_EQ(st, buf[24], 0xaa);
	ST_EQ_I(st, mrc_wire_srh_encode(segs + 2, 1, true, 17, buf, sizeof(buf)), 0);
	/* a full MRC packet with the reduced SRH: DA = S1, 40-byte SRH, next header 41 */
	ST_EQ(st, mrc_wire_sample_pkt(2 * MRC_WIRE_SAMPLE_TYPES + 4, &cfg, &p), 0);
	memset(buf, 0xaa, sizeof(buf));
	n = mrc_wire_encode(&cfg, &p, buf, sizeof(buf));
	ST_TRUE(st, n > 0);
	ST_EQ(st, buf[6], 43);
	ST_EQ_MEM(st, buf + 24, segs[0].b, 16);
	mrc_st_hex("29 04 04 02 01 00 00 00", want, 8);
	ST_EQ_MEM(st, buf + 40, want, 8);
	ST_TRUE(st, !has_aa_run(buf, (size_t)n));
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_OK);
	ST_TRUE(st, d.srh_reduced);
	ST_EQ(st, d.n_segs, 3);

	mrc_st_case(st, "ICRC of a RoCEv2 RC WRITE_ONLY over IPv6 (independent vector)");
	/*
	 * Built and checked with python3 (zlib.crc32 over b'\xff'*8 + the packet with TC/FL
	 * 1s, HL 0xff, UDP csum 0xffff, BTH byte 4 0xff): crc = 0xdbc0ac00, on the wire LE.
	 */
	n = mrc_st_hex("6020beef0030114020010db8000a0000000000000000000120010db8000b0000"
		       "0000000000000002c12312b70030425c0a00ffff000001238000000500000000"
		       "000010000000200000000008414243444546474800acc0db",
		want, sizeof(want));
	ST_EQ(st, n, 88);
	ST_EQ(st, mrc_wire_icrc(want, 84), 0xdbc0ac00);
	want[7] = 3;	       /* hop limit: masked */
	want[1] ^= 0x0f;       /* flow label bits: masked */
	want[48 + 4] = 0x5a;   /* BTH rsvd byte: masked */
	ST_EQ(st, mrc_wire_icrc(want, 84), 0xdbc0ac00);
	want[48 + 11] ^= 1;    /* PSN: covered */
	ST_TRUE(st, mrc_wire_icrc(want, 84) != 0xdbc0ac00);

	mrc_st_case(st, "MRC WRITE_ONLY (stev) equals hand-built bytes; checksum and ICRC");
	/* hand-built (docs/wire-format.md "Packet stack", "ICRC"); ICRC 0xca94ac99, csum 0xab1a */
	n = mrc_st_hex("66a056780034114020010db8000a0000000000000000000120010db8000b0000"
		       "0000000000000002123412b70034ab1aca20ffff000001238000000500010002"
		       "00000000000010000000200000000006616263646566000099ac94ca",
		want, sizeof(want));
	ST_EQ(st, n, 92);
	cfg.ev_format = MRC_EVF_STEV;
	vec_pkt(&p);
	p.dscp = 26;
	p.ecn = 2;
	p.ev = 0x12345678;
	p.opcode = MRC_OP_WRITE_ONLY;
	p.pkey = 0xffff;
	p.dest_qp = 0x123;
	p.flags = MRC_BTH_F_ACKREQ;
	p.psn = 5;
	p.rqmsn = 1;
	p.msn = 2;
	p.va = 0x1000;
	p.rkey = 0x2000;
	p.dma_len = 6;
	p.payload = (const uint8_t *)"abcdef";
	p.payload_len = 6;
	ST_EQ(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), 92);
	ST_EQ_MEM(st, buf, want, 92);
	ST_EQ_I(st, mrc_wire_decode(&cfg, want, 92, true, &d), MRC_WIRE_OK);
	ST_EQ(st, d.ev, 0x12345678);
	ST_EQ(st, d.payload_len, 6);
	ST_EQ(st, d.pad_cnt, 2);
	memcpy(buf, want, 92);
	buf[7] = 9; /* hop limit: in neither the pseudo-header nor the ICRC */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, 92, true, &d), MRC_WIRE_OK);
	buf[80]++;  /* payload "ab" +1 and "cd" -1: the ones' complement sum is unchanged */
	buf[82]--;
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, 92, true, &d), MRC_WIRE_BAD_ICRC);
	cfg.check_icrc = false;
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, 92, true, &d), MRC_WIRE_OK);
	cfg.check_icrc = true;
	buf[80]++;
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, 92, true, &d), MRC_WIRE_BAD_CHECKSUM);
	memcpy(buf, want, 92);
	put_be16(buf + 46, 0);
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, 92, true, &d), MRC_WIRE_BAD_CHECKSUM);
	cfg.ev_format = MRC_EVF_SRV6;

	mrc_st_case(st, "CNP (IBTA Annex A17): a ConnectX-4 Lx capture's BTH and reserved bytes; "
			"hand-built IPv6 bytes; lengths");
	/*
	 * A CNP captured on a ConnectX-4 Lx (IPv4; scapy's test/contrib/roce.uts, "RoCE CNP
	 * captured on ConnectX-4 Lx"), from its UDP header on: source port 0, 4791, length 40,
	 * checksum 0 | BTH opcode 0x81, P_Key 0xffff, byte 4 0x40 (BECN), DestQP 0x000118,
	 * PSN 0 | 16 reserved bytes | ICRC (0x2a00fd82 over its IPv4 pseudo-header: python3's
	 * zlib.crc32 agrees). The same CNP over IPv6 (udp EV format, EV 0 = source port 0),
	 * hand-built with python3: UDP checksum 0x4be5 and ICRC 0xe0c77ebb (zlib.crc32 over
	 * b'\xff'*8 + the masked headers), least significant byte first.
	 */
	{
		uint8_t cx[40];

		n = mrc_st_hex("0000 12b7 0028 0000  81 00 ffff 40 000118 00 000000"
			       "00000000000000000000000000000000",
			cx, sizeof(cx));
		ST_EQ(st, n, 36);
		n = mrc_st_hex("6c2000000028114020010db8000a0000000000000000000120010db8000b0000"
			       "0000000000000002000012b700284be58100ffff400001180000000000000000"
			       "000000000000000000000000bb7ec7e0",
			want, sizeof(want));
		ST_EQ(st, n, 80);
		cfg.ev_format = MRC_EVF_UDP;
		vec_pkt(&p);
		p.dscp = 48; /* ConnectX's cnp_dscp; ECT(0) as the capture's 0xc2 */
		p.ecn = 2;
		p.ev = 0;
		p.opcode = MRC_OP_CNP;
		p.pkey = 0xffff;
		p.becn = true;
		p.dest_qp = 0x118;
		ST_EQ(st, mrc_wire_encoded_len(&cfg, &p), 80);
		ST_EQ(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), 80);
		ST_EQ_MEM(st, buf, want, 80);
		ST_EQ_MEM(st, buf + 40, cx, 6);		   /* ports, length */
		ST_EQ_MEM(st, buf + 48, cx + 8, 28);	   /* BTH, reserved */
		ST_EQ(st, mrc_wire_icrc(want, 76), 0xe0c77ebb);
		ST_EQ_I(st, mrc_wire_decode(&cfg, want, 80, true, &d), MRC_WIRE_OK);
		ST_EQ(st, d.opcode, 0x81);
		ST_TRUE(st, d.becn && !d.se && !d.mig && d.pad_cnt == 0);
		ST_EQ(st, d.dest_qp, 0x118);
		ST_EQ(st, d.psn, 0);
		ST_EQ(st, d.flags, 0);
		ST_EQ(st, d.dscp, 48);
		ST_EQ_STR(st, mrc_wire_opcode_name(d.opcode), "CNP");
		/* reserved bytes are ignored on receipt (the ICRC still covers them) */
		memcpy(buf, want, 80);
		buf[60 + 7] = 0x5a;
		cfg.check_icrc = cfg.check_csum = false;
		ST_EQ_I(st, mrc_wire_decode(&cfg, buf, 80, true, &d), MRC_WIRE_OK);
		/* BECN clear decodes clear; the ICRC masks byte 4 */
		memcpy(buf, want, 80);
		buf[52] = 0;
		cfg.check_icrc = true;
		ST_EQ_I(st, mrc_wire_decode(&cfg, buf, 80, true, &d), MRC_WIRE_OK);
		ST_TRUE(st, !d.becn);
		/* lengths: 15 or 17 reserved bytes (UDP and IPv6 lengths agreeing) are bad, a
		 * cut packet truncated */
		for (int delta = -1; delta <= 1; delta += 2) {
			memcpy(buf, want, 80);
			put_be16(buf + 4, (uint16_t)(40 + delta));
			put_be16(buf + 44, (uint16_t)(40 + delta));
			if (delta > 0)
				memmove(buf + 77, buf + 76, 4);
			else
				memmove(buf + 75, buf + 76, 4);
			cfg.check_icrc = cfg.check_csum = false;
			ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)(80 + delta), true, &d),
				MRC_WIRE_BAD_LENGTH);
		}
		ST_EQ_I(st, mrc_wire_decode(&cfg, want, 79, true, &d), MRC_WIRE_TRUNCATED);
		cfg.check_icrc = cfg.check_csum = true;
		/* the sample CNP: same header, BECN, PSN 0, the udp-mode EV of type 24 */
		ST_EQ(st, mrc_wire_sample(24, &cfg, buf, sizeof(buf)), 80);
		ST_EQ(st, buf[48], 0x81);
		ST_EQ(st, buf[52], 0x40);
		ST_EQ(st, get_be16(buf + 40), 0xc000 + 17 * 24);
		cfg.ev_format = MRC_EVF_SRV6;
	}

	mrc_st_case(st, "header bit positions: BTH METH TSETH RETH ImmDt, EV placement");
	cfg.ev_format = MRC_EVF_STEV;
	ST_EQ(st, mrc_wire_sample(9, &cfg, buf, sizeof(buf)), 40 + 8 + 12 + 28 + 1036 + 4);
	mrc_st_hex("66 a0 09 09", want, 4); /* TC 26<<2|2 = 0x6a, FL = EV[15:0] 0x0909 */
	ST_EQ_MEM(st, buf, want, 4);
	ST_EQ(st, get_be16(buf + 40), 0x3a5c); /* sport = EV[31:16] */
	mrc_st_hex("c9 b0 ffff 00 000a1a 90 fffff9  1209 3409  bee6 0001"
		   "00007f0012349000 abcd0009 00010000  dead0009",
		want, 40);
	ST_EQ_MEM(st, buf + 48, want, 40);
	cfg.ev_format = MRC_EVF_UDP;
	ST_EQ(st, mrc_wire_sample(9, &cfg, buf, sizeof(buf)), 40 + 8 + 12 + 28 + 1036 + 4);
	mrc_st_hex("66 a0 00 00", want, 4); /* udp mode: flow label 0 */
	ST_EQ_MEM(st, buf, want, 4);
	ST_EQ(st, get_be16(buf + 40), 0xc000 + 17 * 9); /* sport = the 16-bit EV */
	p.ev = 0x10000;
	ST_EQ_I(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), -EINVAL);
	cfg.ev_format = MRC_EVF_SRV6;
	ST_EQ(st, mrc_wire_sample(9, &cfg, buf, sizeof(buf)), 40 + 40 + 8 + 12 + 28 + 1036 + 4);
	mrc_st_hex("66 a0 09 09  04 68 29 40", want, 8); /* outer: plen 40+1088, NH 41, HL 64 */
	ST_EQ_MEM(st, buf, want, 8);
	mrc_st_hex("66 a0 09 09  04 40 11 40", want, 8); /* inner: plen 8+12+28+1036+4 = 1088 */
	ST_EQ_MEM(st, buf + 40, want, 8);
	ST_EQ(st, get_be16(buf + 80), 0x3a5c);
	ST_EQ(st, get_be16(buf + 82), 4791);

	mrc_st_case(st, "header bit positions: SETH+CC_STATE NETH PETH ERTH EETH AETH");
	{
		static const struct {
			unsigned sample;
			size_t len;
			const char *hex;
		} v[] = {
			{ 15, 36, "0042 fffd 3a5c1234 1001 2002 00 fffffe 96 08 0002"
				  "8000000000000005"
				  "feed 7ffe d5 abcdef" },
			{ 16, 20, "0000 01 5a 3a5c0010 1001 2002 00fffff1 1e 00 0102" },
			{ 22, 20, "0000 19 5a 3a5c0016 1001 2002 00fffff1 1e 00 0102" },
			{ 23, 16, "0000 0077 0909 0000 1001 2002 3333 8001" },
			/* ERTH: type/nh 0 | rsvd, op 0 | rsvd | vendor | port mask (ports 1, 3) |
			 * rsvd | tx_ts | TSR, ftype 1 */
			{ 13, 16, "00 00 00 5a 0000000a 00000000 7777 8001" },
			/* EETH: op EV_PROBE (1) in byte 1 bits 5:4 = 0x10; tx_ts echo at 28 */
			{ 14, 36, "00 10 0000 000000000000000000000000000000000000000000000000"
				  "7777 0000 00000000" },
			{ 12, 4, "1f 123456" },
		};

		cfg.ev_format = MRC_EVF_UDP;
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			n = mrc_wire_sample(v[i].sample, &cfg, buf, sizeof(buf));
			ST_EQ_I(st, n, (int)(40 + 8 + 12 + v[i].len + 4));
			ST_EQ_I(st, mrc_st_hex(v[i].hex, want, sizeof(want)), (int)v[i].len);
			ST_EQ_MEM(st, buf + 60, want, v[i].len);
		}
		cfg.ev_format = MRC_EVF_SRV6;
	}

	mrc_st_case(st, "round trip: every packet type and EV format, SRH none/normal/reduced");
	for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
		int cnt, bad = 0, seen = 0;

		cfg.ev_format = (enum mrc_ev_format)f;
		cnt = mrc_wire_sample_count(&cfg);
		for (int i = 0; i < cnt && bad < 5; i++) {
			ST_EQ(st, mrc_wire_sample_pkt((unsigned)i, &cfg, &p), 0);
			n = mrc_wire_encode(&cfg, &p, buf, sizeof(buf));
			ST_EQ_I(st, n, mrc_wire_encoded_len(&cfg, &p));
			r = mrc_wire_decode(&cfg, buf, (size_t)n, true, &d);
			if (!mrc_st_check(st, r == MRC_WIRE_OK, __FILE__, __LINE__,
				    "format %d sample %d: %s", f, i, mrc_wire_strerror(r))) {
				bad++;
				continue;
			}
			ST_EQ(st, d.orig_len, n);
			bad += pkt_cmp(st, &cfg, &p, &d, true);
			if (f == MRC_EVF_SRV6) {
				size_t io = inner_off(buf);

				r = mrc_wire_decode(&cfg, buf + io, (size_t)n - io, false, &d);
				ST_EQ_I(st, r, MRC_WIRE_OK);
				bad += pkt_cmp(st, &cfg, &p, &d, false);
			}
			seen++;
		}
		ST_EQ_I(st, seen, f == MRC_EVF_SRV6 ? 75 : 25);
		ST_EQ_I(st, bad, 0);
	}
	cfg.ev_format = MRC_EVF_SRV6;
	ST_EQ_I(st, mrc_wire_sample(75, &cfg, buf, sizeof(buf)), -ENOENT);

	mrc_st_case(st, "every cut 1..len-1 of every packet is truncated (or a trim), no overread");
	for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
		int cnt, bad = 0;

		cfg.ev_format = (enum mrc_ev_format)f;
		cnt = mrc_wire_sample_count(&cfg);
		for (int i = 0; i < cnt && bad < 5; i++) {
			size_t io;

			mrc_wire_sample_pkt((unsigned)i, &cfg, &p);
			if (p.payload_len > 64)
				p.payload_len = 64; /* keep the cut loop short */
			n = mrc_wire_encode(&cfg, &p, buf, sizeof(buf));
			io = f == MRC_EVF_SRV6 ? inner_off(buf) : 0;
			for (size_t cut = 1; cut < (size_t)n && bad < 5; cut++) {
				r = decode_cut(&cfg, buf, cut, true, &d);
				if (r != MRC_WIRE_TRUNCATED) {
					bad++;
					mrc_st_check(st, false, __FILE__, __LINE__,
						"format %d sample %d cut %zu: %s", f, i, cut,
						mrc_wire_strerror(r));
				}
				if (f != MRC_EVF_SRV6 || cut <= io)
					continue;
				/* inner alone, as a protocol-41 socket gives it */
				r = decode_cut(&cfg, buf + io, cut - io, false, &d);
				if (op_is_data(p.opcode) &&
				    cut >= io + MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN) {
					if (r != MRC_WIRE_OK || !d.trimmed || d.psn != p.psn ||
					    d.orig_len != (uint32_t)n - io)
						bad++;
				} else if (r != MRC_WIRE_TRUNCATED) {
					bad++;
				}
			}
		}
		ST_EQ_I(st, bad, 0);
	}
	cfg.ev_format = MRC_EVF_SRV6;

	mrc_st_case(st, "C11 a 1504-byte packet trimmed to 256 decodes as trimmed, not corrupt");
	ST_EQ(st, mrc_wire_sample_pkt(MRC_WIRE_SAMPLE_TYPES + 4, &cfg, &p), 0); /* SRH, ONLY */
	/* 1504 = outer 40 + SRH 56 + inner 40 + UDP 8 + BTH 12 + METH 4 + RETH 16 + 1324 + 4 */
	p.payload_len = 1324;
	ST_EQ(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), 1504);
	ST_EQ(st, get_be16(buf + 136 + 4), 1368); /* UDP length = 1504 - 136 */
	ST_EQ_I(st, mrc_wire_trim(buf, 1504, 256, cfg.dscp_trimmed), 256);
	ST_EQ(st, get_be16(buf + 4), 216);
	ST_EQ(st, get_be16(buf) >> 6 & 0x3f, cfg.dscp_trimmed);
	ST_EQ(st, get_be16(buf) >> 4 & 3, 2);	  /* ECN kept */
	ST_EQ(st, buf[43], 2);			  /* segments left as sent */
	ST_EQ(st, get_be16(buf + 136 + 4), 1368); /* UDP length untouched */
	ST_EQ_I(st, decode_cut(&cfg, buf, 256, true, &d), MRC_WIRE_OK);
	ST_TRUE(st, d.trimmed);
	ST_EQ(st, d.orig_len, 1504);
	ST_EQ(st, d.psn, p.psn);
	ST_EQ(st, d.ev, p.ev);
	ST_EQ(st, d.dscp, cfg.dscp_trimmed);
	ST_EQ(st, d.va, p.va);
	ST_EQ(st, d.payload_len, 256 - 136 - 8 - 12 - 4 - 16);
	ST_EQ_I(st, decode_cut(&cfg, buf + 96, 160, false, &d), MRC_WIRE_OK);
	ST_TRUE(st, d.trimmed);
	ST_EQ(st, d.orig_len, 1504 - 96);
	/* the same cut without the switch's rewrite is a short capture: truncated */
	mrc_wire_encode(&cfg, &p, buf, sizeof(buf));
	ST_EQ_I(st, decode_cut(&cfg, buf, 256, true, &d), MRC_WIRE_TRUNCATED);
	/* a trim that leaves no full BTH: truncated */
	ST_EQ_I(st, mrc_wire_trim(buf, 1504, 150, cfg.dscp_trimmed_lasthop), 150);
	ST_EQ_I(st, decode_cut(&cfg, buf, 150, true, &d), MRC_WIRE_TRUNCATED);
	/* stev: the only header is the rewritten one; DSCP must be a trimmed class */
	cfg.ev_format = MRC_EVF_STEV;
	n = mrc_wire_encode(&cfg, &p, buf, sizeof(buf));
	ST_EQ(st, n, 1504 - 96);
	ST_EQ_I(st, mrc_wire_trim(buf, (size_t)n, 256, cfg.dscp_trimmed_lasthop), 256);
	ST_EQ_I(st, decode_cut(&cfg, buf, 256, true, &d), MRC_WIRE_OK);
	ST_TRUE(st, d.trimmed);
	ST_EQ(st, d.dscp, cfg.dscp_trimmed_lasthop);
	ST_EQ(st, d.orig_len, 1504 - 96);
	ST_EQ_I(st, mrc_wire_trim(buf, 256, 200, 26), 200); /* data DSCP: not a trim */
	ST_EQ_I(st, decode_cut(&cfg, buf, 200, true, &d), MRC_WIRE_BAD_LENGTH);
	/* control packets are never trimmed */
	ST_EQ(st, mrc_wire_sample_pkt(15, &cfg, &p), 0);
	n = mrc_wire_encode(&cfg, &p, buf, sizeof(buf));
	ST_EQ_I(st, mrc_wire_trim(buf, (size_t)n, (size_t)n - 8, cfg.dscp_trimmed), n - 8);
	ST_EQ_I(st, decode_cut(&cfg, buf, (size_t)n - 8, true, &d), MRC_WIRE_TRUNCATED);
	ST_EQ_I(st, mrc_wire_trim(buf, (size_t)n, 39, 0), -EINVAL);
	cfg.ev_format = MRC_EVF_SRV6;

	mrc_st_case(st, "decode error kinds");
	ST_EQ(st, mrc_wire_sample_pkt(15, &cfg, &p), 0); /* SACK, srv6, no SRH */
	n = mrc_wire_encode(&cfg, &p, want, sizeof(want));
	ST_TRUE(st, n > 0);
	memcpy(buf, want, (size_t)n);
	buf[0] = 0x46;
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_VERSION);
	memcpy(buf, want, (size_t)n);
	buf[40] = 0x46; /* inner version */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_VERSION);
	memcpy(buf, want, (size_t)n);
	buf[6] = 17; /* outer next header: not IPv6-in-IPv6 */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_NOT_MRC);
	memcpy(buf, want, (size_t)n);
	put_be16(buf + 82, 4792);
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_NOT_MRC);
	memcpy(buf, want, (size_t)n);
	buf[88] = 0x0a; /* RC WRITE_ONLY: not an MRC opcode */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_OPCODE);
	memcpy(buf, want, (size_t)n);
	buf[89] |= 1; /* TVer 1 */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_VERSION);
	memcpy(buf, want, (size_t)n);
	put_be16(buf + 84, (uint16_t)(get_be16(buf + 84) - 4)); /* UDP len != inner plen */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_LENGTH);
	memcpy(buf, want, (size_t)n);
	buf[89 + 12 + 20] ^= 0x01; /* a SACK bitmap bit: the checksum catches it */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_CHECKSUM);
	cfg.ev_format = MRC_EVF_STEV;
	ST_EQ_I(st, mrc_wire_decode(&cfg, want + 40, (size_t)n - 40, false, &d), MRC_WIRE_OK);
	ST_EQ_I(st, mrc_wire_decode(&cfg, want, (size_t)n, false, &d), MRC_WIRE_NOT_MRC);
	cfg.ev_format = MRC_EVF_SRV6;
	ST_EQ_I(st, mrc_wire_encode(&cfg, &p, buf, (size_t)n - 1), -ENOSPC);
	p.psn = 0x1000000;
	ST_EQ_I(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), -EINVAL);
	p.psn = 0;
	p.opcode = 0x0a;
	ST_EQ_I(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), -EINVAL);

	mrc_st_case(st, "icrc_outer knob covers the outer header but not its per-hop fields");
	ST_EQ(st, mrc_wire_sample_pkt(MRC_WIRE_SAMPLE_TYPES + 4, &cfg, &p), 0);
	n = mrc_wire_encode(&cfg, &p, want, sizeof(want));
	cfg.icrc_outer = true;
	ST_EQ_I(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), n);
	ST_TRUE(st, memcmp(buf + n - 4, want + n - 4, 4) != 0);
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_OK);
	buf[43] = 1; /* SL 1, DA = S2: an endpoint's rewrite */
	memcpy(buf + 24, p.segs[1].b, 16);
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_OK);
	buf[10] ^= 1; /* outer source: covered */
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_ICRC);
	cfg.icrc_outer = false;
	ST_EQ_I(st, mrc_wire_decode(&cfg, buf, (size_t)n, true, &d), MRC_WIRE_BAD_ICRC);
	ST_EQ_I(st, mrc_wire_decode(&cfg, want, (size_t)n, true, &d), MRC_WIRE_OK);

	mrc_st_case(st,
		"csum_offload: zeros, decodable unchecked, finished = encoded (every sample)");
	for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
		static uint8_t ref[MRC_PKT_MAX];

		for (int io = 0; io < 2; io++) {
			int cnt, bad = 0;

			cfg.ev_format = (enum mrc_ev_format)f;
			cfg.icrc_outer = io;
			cnt = mrc_wire_sample_count(&cfg);
			for (int i = 0; i < cnt && bad < 5; i++) {
				size_t uo;

				ST_EQ(st, mrc_wire_sample_pkt((unsigned)i, &cfg, &p), 0);
				n = mrc_wire_encode(&cfg, &p, ref, sizeof(ref));
				cfg.csum_offload = true;
				ST_EQ_I(st, mrc_wire_encode(&cfg, &p, buf, sizeof(buf)), n);
				uo = (f == MRC_EVF_SRV6 ? inner_off(buf) : 0) + MRC_IP6_HLEN;
				bad += get_be16(buf + uo + 6) != 0 || get_be32(buf + n - 4) != 0;
				cfg.check_csum = cfg.check_icrc = false;
				bad += mrc_wire_decode(&cfg, buf, (size_t)n, true, &d) !=
				       MRC_WIRE_OK;
				cfg.check_csum = cfg.check_icrc = true;
				bad += mrc_wire_decode(&cfg, buf, (size_t)n, true, &d) ==
				       MRC_WIRE_OK;
				if (f == MRC_EVF_SRV6 && p.n_segs > 1) { /* one hop later: DA, SL */
					buf[MRC_IP6_HLEN + 3]--;
					ref[MRC_IP6_HLEN + 3]--;
					buf[24] ^= 0x5a;
					ref[24] ^= 0x5a;
				}
				bad += mrc_wire_csum_finish(&cfg, buf, (size_t)n) != 0;
				cfg.csum_offload = false;
				bad += memcmp(buf, ref, (size_t)n) != 0;
				if (!mrc_st_check(st, bad == 0, __FILE__, __LINE__,
					    "format %d icrc_outer %d sample %d", f, io, i))
					break;
			}
		}
	}
	cfg.ev_format = MRC_EVF_SRV6;
	cfg.icrc_outer = false;
	ST_EQ_I(st, mrc_wire_csum_finish(&cfg, buf, 39), -EINVAL);
	buf[6] = 6; /* TCP: not a packet this codec wrote */
	ST_EQ_I(st, mrc_wire_csum_finish(&cfg, buf, (size_t)n), -EINVAL);

	mrc_st_case(st, "encode_gather: bytes before the payload, then payload, pad, zero ICRC");
	for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
		static uint8_t ref[MRC_PKT_MAX];
		struct mrc_wire_gather g;
		int cnt, bad = 0, gathered = 0;

		cfg.ev_format = (enum mrc_ev_format)f;
		cfg.csum_offload = true;
		cnt = mrc_wire_sample_count(&cfg);
		for (int i = 0; i < cnt && !bad; i++) {
			ST_EQ(st, mrc_wire_sample_pkt((unsigned)i, &cfg, &p), 0);
			n = mrc_wire_encode(&cfg, &p, ref, sizeof(ref));
			memset(buf, 0xee, sizeof(buf));
			bad += mrc_wire_encode_gather(&cfg, &p, buf, sizeof(buf), &g) != n;
			bad += g.hlen > (size_t)n || memcmp(buf, ref, g.hlen) != 0;
			if (!op_is_data(p.opcode) || !p.payload_len) { /* written whole */
				bad += g.hlen != (size_t)n || g.payload || g.payload_len;
			} else {
				/* what follows in the full packet: payload, then zeros */
				bad += buf[g.hlen] != 0xee || g.payload != p.payload ||
				       g.payload_len != p.payload_len ||
				       g.hlen + g.payload_len > (size_t)n;
				if (!bad && p.payload)
					bad += memcmp(ref + g.hlen, p.payload, g.payload_len) != 0;
				for (size_t k = g.hlen + g.payload_len; !bad && k < (size_t)n; k++)
					bad += ref[k] != 0;
				/* room for the headers only is enough; one byte less is not */
				bad += mrc_wire_encode_gather(&cfg, &p, buf, g.hlen, &g) != n;
				bad += mrc_wire_encode_gather(&cfg, &p, buf, g.hlen - 1, &g) !=
				       -ENOSPC;
				gathered++;
			}
			mrc_st_check(st, !bad, __FILE__, __LINE__, "format %d sample %d", f, i);
		}
		ST_TRUE(st, gathered > 0);
		cfg.csum_offload = false;
		ST_EQ_I(st, mrc_wire_encode_gather(&cfg, &p, buf, sizeof(buf), &g), -EINVAL);
	}
	cfg.ev_format = MRC_EVF_SRV6;

	mrc_st_case(st, "decode_gather: headers here, the payload the sender's: as the whole "
			"packet");
	for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
		static uint8_t ref[MRC_PKT_MAX];
		struct mrc_wire_gather g, gh;
		struct mrc_pkt dw;
		int cnt, bad = 0, gathered = 0, ctl = 0;

		cfg.ev_format = (enum mrc_ev_format)f;
		cfg.csum_offload = true;
		cfg.check_csum = cfg.check_icrc = false;
		cnt = mrc_wire_sample_count(&cfg);
		for (int i = 0; i < cnt && !bad; i++) {
			ST_EQ(st, mrc_wire_sample_pkt((unsigned)i, &cfg, &p), 0);
			n = mrc_wire_encode(&cfg, &p, ref, sizeof(ref));
			bad += mrc_wire_encode_gather(&cfg, &p, buf, sizeof(buf), &g) != n;
			bad += mrc_wire_decode(&cfg, ref, (size_t)n, true, &dw) != MRC_WIRE_OK;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &g, true, &d) !=
			       MRC_WIRE_OK;
			if (bad)
				break;
			if (g.hlen == (size_t)n) { /* whole: the same decode, payload in @buf */
				bad += d.payload_len != dw.payload_len ||
				       (d.payload_len && d.payload != buf + (dw.payload - ref));
				if (!op_is_data(p.opcode) && g.hlen > MRC_IP6_HLEN) {
					gh = g; /* a control packet is never gathered */
					gh.hlen = g.hlen - MRC_ICRC_LEN;
					bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &gh,
						       true, &d) != MRC_WIRE_BAD_LENGTH;
					ctl++;
				}
				continue;
			}
			/* the sender's payload itself, and every field as the whole packet's */
			bad += d.payload != p.payload || d.payload_len != p.payload_len;
			bad += dw.payload != ref + g.hlen;
			dw.payload = d.payload;
			bad += memcmp(&d, &dw, sizeof(d)) != 0;
			/* no source bytes (verify off): the payload is zeros, NULL */
			gh = g;
			gh.payload = NULL;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &gh, true, &d) !=
				       MRC_WIRE_OK ||
			       d.payload || d.payload_len != p.payload_len;
			/* headers ending one byte short or long, a payload of another length */
			gh = g;
			gh.hlen--;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &gh, true, &d) !=
			       MRC_WIRE_BAD_LENGTH;
			gh.hlen += 2;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &gh, true, &d) !=
			       MRC_WIRE_BAD_LENGTH;
			gh = g;
			gh.payload_len++;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &gh, true, &d) !=
			       MRC_WIRE_BAD_LENGTH;
			/* too few bytes for the first IPv6 header; more than the packet */
			gh = g;
			gh.hlen = MRC_IP6_HLEN - 1;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &gh, true, &d) !=
			       MRC_WIRE_TRUNCATED;
			gh.hlen = (size_t)n + 1;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &gh, true, &d) !=
			       MRC_WIRE_BAD_LENGTH;
			/* checks on: they cover bytes that are not here */
			cfg.check_csum = true;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &g, true, &d) !=
			       MRC_WIRE_BAD_CHECKSUM;
			cfg.check_csum = false;
			cfg.check_icrc = true;
			bad += mrc_wire_decode_gather(&cfg, buf, (size_t)n, &g, true, &d) !=
			       MRC_WIRE_BAD_CHECKSUM;
			cfg.check_icrc = false;
			gathered++;
			mrc_st_check(st, !bad, __FILE__, __LINE__, "format %d sample %d", f, i);
		}
		ST_EQ(st, bad, 0);
		ST_TRUE(st, gathered > 0 && ctl > 0);
	}
	cfg.ev_format = MRC_EVF_SRV6;
	cfg.csum_offload = false;
	cfg.check_csum = cfg.check_icrc = true;

	mrc_st_case(st, "ICMPv6 Time Exceeded (RFC 4443 §3.3): hand-built bytes, checksum, "
			"quote capped at 1280 - 48 (§2.4(c)), never about an error (§2.4(e))");
	{
		/* a 56-byte invoking packet: hop limit 1, fd00::1:0:1 -> uSID container */
		static const char inv_hex[] = "6000000000102901"
					      "fd000000000000000000000100000001"
					      "fc000000140118021402100400000000"
					      "00112233445566778899aabbccddeeff";
		/* from p1.t0.0's fc00:0:1401::, payload length 64, next header 58, hop
		 * limit 64; type 3 code 0, checksum 0x611e (RFC 4443 §2.3, computed apart
		 * with Python's struct over the pseudo-header), unused 0, the 56 bytes */
		static const char te_hex[] = "600000000040" "3a40"
					       "fc000000140100000000000000000000"
					       "fd000000000000000000000100000001"
					       "0300611e00000000";
		uint8_t inv[1500], te[104], out[1400];
		struct mrc_ip6 sw;
		struct mrc_icmp6 ic;

		ip6_parse(&sw, "fc000000140100000000000000000000");
		ST_EQ_I(st, mrc_st_hex(inv_hex, inv, sizeof(inv)), 56);
		ST_EQ_I(st, mrc_st_hex(te_hex, te, sizeof(te)), 48);
		memcpy(te + 48, inv, 56);
		ST_EQ_I(st, st_te(&sw, inv, 56, out, sizeof(out)), 104);
		ST_EQ_MEM(st, out, te, 104);
		ST_EQ(st, mrc_st_icmp6_sum(out), 0xffff);
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 104, &ic), MRC_WIRE_OK);
		ST_EQ(st, ic.type, 3);
		ST_EQ(st, ic.code, 0);
		ST_EQ_MEM(st, ic.src.b, sw.b, 16);
		ST_EQ_MEM(st, ic.dst.b, inv + 8, 16);
		ST_EQ(st, ic.body_len, 56);
		ST_TRUE(st, ic.quoted_ip6);
		ST_EQ_MEM(st, ic.q_src.b, inv + 8, 16);
		ST_EQ_MEM(st, ic.q_dst.b, inv + 24, 16);
		/* malformed: every byte flipped fails the checksum; cut short; too short */
		for (int i = 40; i < 104; i++) {
			out[i] ^= 0x01;
			ST_EQ_I(st, mrc_wire_decode_icmp6(out, 104, &ic), MRC_WIRE_BAD_ICMP6);
			out[i] ^= 0x01;
		}
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 103, &ic), MRC_WIRE_TRUNCATED);
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 39, &ic), MRC_WIRE_TRUNCATED);
		out[5] = 4;
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 104, &ic), MRC_WIRE_BAD_LENGTH);
		out[5] = 0x40;
		out[6] = 17;
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 104, &ic), MRC_WIRE_NOT_MRC);
		out[6] = 58;
		out[0] = 0x40;
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 104, &ic), MRC_WIRE_BAD_VERSION);
		out[0] = 0x60;
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 104, &ic), MRC_WIRE_OK);

		/* a 1500-byte invoking packet: 1232 bytes quoted, the message 1280 */
		for (int i = 56; i < 1500; i++)
			inv[i] = (uint8_t)(i * 7);
		put_be16(inv + 4, 1460);
		ST_EQ_I(st, st_te(&sw, inv, 1500, out, sizeof(out)), 1280);
		ST_EQ(st, get_be16(out + 4), 1240);
		ST_EQ_MEM(st, out + 48, inv, 1232);
		ST_EQ(st, mrc_st_icmp6_sum(out), 0xffff);
		ST_EQ_I(st, mrc_wire_decode_icmp6(out, 1280, &ic), MRC_WIRE_OK);
		ST_EQ(st, ic.body_len, 1232);
		/* 1232 bytes quote whole; the hop limit given is used */
		ST_EQ_I(st, mrc_wire_icmp6_time_exceeded(&sw, inv, 1232, 9, out, 1280), 1280);
		ST_EQ(st, out[7], 9);
		ST_EQ_I(st, st_te(&sw, inv, 1500, out, 1279), -ENOSPC);
		ST_EQ_I(st, st_te(&sw, inv, 39, out, sizeof(out)), -EBADMSG);

		/* RFC 4443 §2.4(e): not about an ICMPv6 error, nor from :: or multicast */
		inv[6] = 58;
		inv[40] = 3;
		ST_EQ_I(st, st_te(&sw, inv, 56, out, sizeof(out)), -EPERM);
		inv[40] = 128; /* an echo request is answered */
		ST_EQ_I(st, st_te(&sw, inv, 56, out, sizeof(out)), 104);
		inv[6] = 41;
		inv[8] = 0xff;
		ST_EQ_I(st, st_te(&sw, inv, 56, out, sizeof(out)), -EPERM);
		memset(inv + 8, 0, 16);
		ST_EQ_I(st, st_te(&sw, inv, 56, out, sizeof(out)), -EPERM);
		ST_EQ_STR(st, mrc_wire_strerror(MRC_WIRE_BAD_ICMP6), "bad ICMPv6 checksum");
	}

	mrc_st_case(st, "names");
	ST_EQ_STR(st, mrc_wire_strerror(MRC_WIRE_TRUNCATED), "truncated");
	ST_EQ_STR(st, mrc_wire_opcode_name(0xDC), "SACK");
	ST_EQ_STR(st, mrc_wire_opcode_name(0xCB), "WRITE_ONLY_IMM");
	ST_EQ_STR(st, mrc_wire_nack_name(0x01), "TRIMMED");
	ST_EQ_STR(st, mrc_wire_nack_name(0x19), "UNEXP_EVENT");
	(void)a;
}
