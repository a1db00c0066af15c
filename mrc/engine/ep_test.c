/* SPDX-License-Identifier: BSD-2-Clause */
/* ep_test: unit tests of mrc/engine/ep.c (`mrcgen-test ep`); includes ep.c to reach its statics. */
#include "mrc/engine/ep.c"
#include "mrc/base/st.h"
#include "mrc/engine/st_net.h"

/* Two planes, 4 EVs each: plane(4) | spine(12) | 0x0A0B, as qp_test's scripted network. */
#define ET_PLANES 2
static const uint32_t et_evs[8] = {0x00000A0B, 0x00010A0B, 0x00020A0B, 0x00030A0B, 0x10000A0B,
	0x10010A0B, 0x10020A0B, 0x10030A0B};

/* ctx: the host's number, as a pointer-sized integer */
static int et_path(void *ctx, uint32_t peer_host, uint32_t ev, struct mrc_pkt *hdr)
{
	st_path_fill(hdr, (uint32_t)(uintptr_t)ctx, peer_host, ev);
	return 0;
}

/* Host @h's endpoint: fixed window of 4 MiB, QPNs from @first_qpn, at most @max_qps. */
static int et_new(uint32_t h, uint32_t first_qpn, unsigned max_qps, struct mrc_ep **ep)
{
	struct mrc_ep_params p;

	mrc_ep_params_default(&p, ET_PLANES, 100000000000ull, 12000000);
	p.host = h;
	p.path = et_path;
	p.peer_of = st_peer_of;
	p.ev_plane = st_ev_plane;
	p.ev.evs = et_evs;
	p.ev.n_evs = 8;
	p.seed = 7;
	p.cc = "fixed";
	p.cc_params.init_cwnd = p.cc_params.max_cwnd = 4u << 20;
	p.first_qpn = first_qpn;
	p.max_qps = max_qps;
	return mrc_ep_new(&p, NULL, (void *)(uintptr_t)h, ep);
}

/* Host 1's single-packet WRITE_ONLY of 8 bytes to QP @dest_qp of host 0, PSN @psn. */
static int et_pkt(const struct mrc_ep *ep, uint32_t dest_qp, uint32_t psn, uint64_t va,
	uint32_t rkey, uint8_t *buf)
{
	static const uint8_t payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct mrc_pkt p = {0};

	et_path((void *)(uintptr_t)1, 0, et_evs[0], &p);
	p.hop_limit = 64;
	p.opcode = MRC_OP_WRITE_ONLY;
	p.ecn = 2;
	p.ev = et_evs[0];
	p.dest_qp = dest_qp;
	p.psn = psn;
	p.msn = (uint16_t)psn;
	p.va = va;
	p.rkey = rkey;
	p.dma_len = 8;
	p.payload = payload;
	p.payload_len = 8;
	return mrc_wire_encode(&ep->p.wire, &p, buf, MRC_PKT_MAX);
}

/* Pulls one packet from @plane of @ep and decodes it: its opcode and DestQP, or -1. */
static int et_pull(struct mrc_ep *ep, unsigned plane, uint32_t *dest_qp)
{
	uint8_t buf[MRC_PKT_MAX];
	struct mrc_pkt d;
	int n = mrc_ep_tx(ep, plane, 1000, buf, sizeof(buf));

	if (n <= 0 || mrc_wire_decode(&ep->p.wire, buf, (size_t)n, true, &d) != MRC_WIRE_OK)
		return -1;
	if (dest_qp)
		*dest_qp = d.dest_qp;
	return d.opcode;
}

/* Where a control packet's extension header starts: outer and inner IPv6, UDP, BTH. */
#define ET_XH (40 + 40 + 8 + 12)

/* The answers ops->ep_response reported: the last one's fields. */
struct et_rsp {
	unsigned n;
	uint16_t req_id;
	uint32_t peer, ev;
	unsigned port;
	uint64_t rtt_ns;
};

static void et_on_rsp(void *ctx, uint16_t req_id, uint32_t peer, uint32_t ev, unsigned port,
	uint64_t rtt_ns, uint64_t now_ps)
{
	struct et_rsp *r = ctx;

	(void)now_ps;
	*r = (struct et_rsp){r->n + 1, req_id, peer, ev, port, rtt_ns};
}

/* The requests ops->ep_request reported: how many, the last one's fields. */
static struct {
	unsigned n;
	uint32_t peer, ev;
	unsigned op;
	bool ce;
} et_req;

static void et_on_req(void *ctx, uint32_t peer, uint32_t ev, unsigned op, bool ce,
	uint64_t now_ps)
{
	(void)ctx, (void)now_ps;
	et_req.n++;
	et_req.peer = peer;
	et_req.ev = ev;
	et_req.op = op;
	et_req.ce = ce;
}

/* et_path for host 0 whatever the ctx (et_new_rsp's is its struct et_rsp). */
static int et_path_h0(void *ctx, uint32_t peer_host, uint32_t ev, struct mrc_pkt *hdr)
{
	(void)ctx;
	st_path_fill(hdr, 0, peer_host, ev);
	return 0;
}

/* et_new for host 0 with ops->ep_response writing into @r. */
static int et_new_rsp(struct et_rsp *r, struct mrc_ep **ep)
{
	static const struct mrc_ep_ops ops = {.ep_response = et_on_rsp};
	struct mrc_ep_params p;

	mrc_ep_params_default(&p, ET_PLANES, 100000000000ull, 12000000);
	p.path = et_path_h0;
	p.peer_of = st_peer_of;
	p.ev_plane = st_ev_plane;
	p.ev.evs = et_evs;
	p.ev.n_evs = 8;
	p.cc = "fixed";
	return mrc_ep_new(&p, &ops, r, ep);
}

/* Pulls one packet from @plane of @from into @buf and decodes it into @d: its length. */
static int et_pull_pkt(struct mrc_ep *from, unsigned plane, uint64_t now, uint8_t *buf,
	struct mrc_pkt *d)
{
	int n = mrc_ep_tx(from, plane, now, buf, MRC_PKT_MAX);

	if (n <= 0 || mrc_wire_decode(&from->p.wire, buf, (size_t)n, true, d) != MRC_WIRE_OK)
		return -1;
	return n;
}

/*
 * Host 0 with QP 1 (to QP 1 of host 1) holding a 64 KiB write (16 packets), and a SACK
 * queued on plane 0: host 1's PSN 1 arrived there before PSN 0 (out of order).
 */
static int et_ctl_setup(struct mrc_st *st, struct mrc_ep **ep, uint8_t *src, uint8_t *mr)
{
	uint8_t buf[MRC_PKT_MAX];
	uint32_t qpn, rkey = 0;
	int n;

	*ep = NULL;
	if (!ST_TRUE(st, et_new(0, 1, 4, ep) == 0))
		return -1;
	ST_EQ_I(st, mrc_ep_qp_create(*ep, 1, 1, &qpn), 0);
	ST_EQ_I(st, mrc_ep_reg_mr(*ep, mr, 16, &rkey), 0);
	ST_EQ_I(st, mrc_ep_post_write(*ep, 1, src, 64 << 10, 0x1000, 5, false, 0, 1, 0), 0);
	n = et_pkt(*ep, 1, 1, (uint64_t)(uintptr_t)mr + 8, rkey, buf);
	ST_TRUE(st, n > 0);
	if (n > 0)
		mrc_ep_on_rx(*ep, 0, buf, (size_t)n, false, 500);
	return 0;
}

MRC_SELFTEST(ep)
{
	static uint8_t src[64 << 10];
	uint8_t mr[16], buf[MRC_PKT_MAX], buf2[MRC_PKT_MAX];
	struct mrc_ep_stats es;
	struct mrc_qp_stats qs;
	struct mrc_ep *ep = NULL;
	uint32_t qpn = 0, first = 0, rkey = 0;
	int n;

	mrc_st_case(st, "E01 QPNs in creation order from first_qpn 5: 5, 6, 7; a 4th past "
			"max_qps 3 is refused; unknown QPNs found nowhere");
	if (ST_TRUE(st, et_new(0, 5, 3, &ep) == 0)) {
		for (uint32_t want = 5; want < 8; want++) {
			ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 100 + want, &qpn), 0);
			ST_EQ(st, qpn, want);
		}
		ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 200, &qpn), -ENOSPC);
		ST_EQ(st, mrc_ep_qpns(ep, &first), 3);
		ST_EQ(st, first, 5);
		ST_TRUE(st, mrc_ep_qp(ep, 4) == NULL && mrc_ep_qp(ep, 8) == NULL);
		ST_TRUE(st, mrc_ep_qp(ep, 5) != NULL && mrc_ep_qp(ep, 7) != NULL);
		ST_EQ(st, mrc_qp_peer_host(mrc_ep_qp(ep, 6)), 1);
		ST_EQ_I(st, mrc_ep_qp_stats(ep, 8, &qs), -ENOENT);
		ST_EQ_I(st, mrc_ep_post_write(ep, 4, src, 8, 0, 0, false, 0, 0, 0), -ENOENT);
		ST_EQ_I(st, mrc_ep_qp_connect(ep, 9, 1), -ENOENT);
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st, "E02 rx: a packet for an unknown QP is counted and dropped; a truncated "
			"one is a decode error; a port past the planes is ignored");
	if (ST_TRUE(st, et_new(0, 1, 4, &ep) == 0)) {
		ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 1, &qpn), 0);
		ST_EQ_I(st, mrc_ep_reg_mr(ep, mr, 16, &rkey), 0);
		n = et_pkt(ep, 2, 0, (uint64_t)(uintptr_t)mr, rkey, buf); /* QP 2: none */
		ST_TRUE(st, n > 0);
		if (n > 0) {
			mrc_ep_on_rx(ep, 0, buf, (size_t)n, false, 100);
			mrc_ep_on_rx(ep, 0, buf, 20, false, 200); /* 20 bytes: no IPv6 */
			mrc_ep_on_rx(ep, ET_PLANES, buf, (size_t)n, false, 300); /* no such port */
		}
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.rx_unknown_qp, 1);
		ST_EQ(st, es.rx_decode_err, 1);
		ST_EQ(st, es.rx_pkts[0], 2);
		ST_EQ(st, es.rx_pkts[1], 0);
		ST_EQ(st, es.rx_bytes[0], (uint64_t)n + 20);
		ST_EQ_I(st, mrc_ep_qp_stats(ep, 1, &qs), 0);
		ST_EQ(st, qs.rx_data_pkts, 0);
		/* the same packet for QP 1 reaches it */
		n = et_pkt(ep, 1, 0, (uint64_t)(uintptr_t)mr, rkey, buf);
		if (n > 0)
			mrc_ep_on_rx(ep, 0, buf, (size_t)n, false, 400);
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.rx_unknown_qp, 1);
		ST_EQ_I(st, mrc_ep_qp_stats(ep, 1, &qs), 0);
		ST_EQ(st, qs.rx_data_pkts, 1);
		ST_EQ(st, mr[0] + mr[7], 1 + 8);
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st, "E02b rx: an ICMPv6 Time Exceeded about one of its packets is counted "
			"and dropped, no QP touched; another type apart; a bad checksum is a "
			"decode error");
	if (ST_TRUE(st, et_new(0, 1, 4, &ep) == 0)) {
		static const char sw_hex[] = "fc000000 08020000 00000000 00000000";
		uint8_t ic[MRC_IP6_MIN_MTU];
		struct mrc_ip6 sw;

		ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 1, &qpn), 0);
		ST_EQ_I(st, mrc_ep_reg_mr(ep, mr, 16, &rkey), 0);
		n = et_pkt(ep, 1, 0, (uint64_t)(uintptr_t)mr, rkey, buf);
		ST_EQ_I(st, mrc_st_hex(sw_hex, sw.b, 16), 16);
		n = n > 0 ? mrc_wire_icmp6_time_exceeded(&sw, buf, (size_t)n, 0, ic, sizeof(ic))
			  : n;
		ST_TRUE(st, n > 48);
		if (n > 48) {
			mrc_ep_on_rx(ep, 0, ic, (size_t)n, false, 100);
			mrc_ep_on_rx_gather(ep, 1, ic, (size_t)n, NULL, false, 200);
			ic[40] = 1; /* Destination Unreachable, checksum fixed by hand: 3 -> 1 */
			put_be16(ic + 42, (uint16_t)(get_be16(ic + 42) + 0x0200));
			ST_EQ(st, mrc_st_icmp6_sum(ic), 0xffff);
			mrc_ep_on_rx(ep, 0, ic, (size_t)n, false, 300);
			ic[60] ^= 0x80; /* a bit of the quote: the checksum no longer holds */
			mrc_ep_on_rx(ep, 0, ic, (size_t)n, false, 400);
			mrc_ep_on_rx(ep, 0, ic, 44, false, 500); /* cut short */
		}
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.rx_icmp_time_exceeded, 2);
		ST_EQ(st, es.rx_icmp_other, 1);
		ST_EQ(st, es.rx_decode_err, 2);
		ST_EQ(st, es.rx_unknown_qp, 0);
		ST_EQ(st, es.rx_pkts[0] + es.rx_pkts[1], 5);
		ST_EQ_I(st, mrc_ep_qp_stats(ep, 1, &qs), 0);
		ST_EQ(st, qs.rx_data_pkts, 0);
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st, "E03 a pull serves the queued SACK before the QP's data");
	if (!et_ctl_setup(st, &ep, src, mr)) {
		uint32_t dq = 0;

		ST_EQ_I(st, et_pull(ep, 0, &dq), MRC_OP_SACK);
		ST_EQ(st, dq, 1);
		ST_EQ_I(st, et_pull(ep, 0, &dq), MRC_OP_WRITE_FIRST);
		ST_EQ(st, dq, 1);
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.tx_pkts[0], 2);
		ST_EQ(st, es.ctl_dropped, 0);
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st, "E04 port 0 down: its queued SACK is dropped and counted, it sends "
			"nothing, plane 1 tells the peer and carries the data; up again, it sends");
	if (!et_ctl_setup(st, &ep, src, mr)) {
		mrc_ep_port_status(ep, 0, false, 600);
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.ctl_dropped, 1);
		ST_EQ_I(st, mrc_ep_tx(ep, 0, 1000, buf, sizeof(buf)), 0);
		/* the peer is told of the port (EP_REQUEST, control: first) on one that is up */
		ST_EQ_I(st, et_pull(ep, 1, NULL), MRC_OP_EP_REQUEST);
		ST_EQ_I(st, et_pull(ep, 1, NULL), MRC_OP_WRITE_FIRST);
		mrc_ep_port_status(ep, 0, true, 2000);
		ST_EQ_I(st, et_pull(ep, 0, NULL), MRC_OP_EP_REQUEST);
		ST_EQ_I(st, et_pull(ep, 0, NULL), MRC_OP_WRITE_MIDDLE);
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.tx_pkts[0], 2);
		ST_EQ(st, es.tx_pkts[1], 2);
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st, "E05 QPs served round robin per plane: pulls p0 p0 p1 p0 p1 p1 give QPs "
			"1 2 1 3 2 3");
	if (ST_TRUE(st, et_new(0, 1, 4, &ep) == 0)) {
		static const unsigned plane[6] = {0, 0, 1, 0, 1, 1};
		static const uint32_t want[6] = {21, 22, 21, 23, 22, 23};
		/* each QP's first packet opens its message, its second continues it */
		static const int op[6] = {MRC_OP_WRITE_FIRST, MRC_OP_WRITE_FIRST,
			MRC_OP_WRITE_MIDDLE, MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE,
			MRC_OP_WRITE_MIDDLE};

		for (uint32_t i = 0; i < 3; i++) {
			ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 21 + i, &qpn), 0);
			ST_EQ_I(st,
				mrc_ep_post_write(
					ep, qpn, src, 64 << 10, 0x1000, 5, false, 0, i, 0),
				0);
		}
		for (unsigned k = 0; k < 6; k++) {
			uint32_t dq = 0;

			ST_EQ_I(st, et_pull(ep, plane[k], &dq), op[k]);
			ST_EQ(st, dq, want[k]);
		}
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st, "E06 the round robin starts at the first QP to a higher host: host 2 of "
			"0..3 serves 3, 0, 1; host 3 serves 0, 1, 2");
	for (uint32_t h = 2; h <= 3; h++) {
		/* QPs made in ascending peer order; the collective posts rank + 1 first */
		static const uint32_t peers[2][3] = {{0, 1, 3}, {0, 1, 2}};
		static const uint32_t want[2][3] = {{33, 30, 31}, {30, 31, 32}};

		if (!ST_TRUE(st, et_new(h, 1, 4, &ep) == 0))
			break;
		for (uint32_t i = 0; i < 3; i++) {
			uint32_t peer = peers[h - 2][i];

			ST_EQ_I(st, mrc_ep_qp_create(ep, peer, 30 + peer, &qpn), 0);
			ST_EQ_I(st,
				mrc_ep_post_write(ep, qpn, src, 4096, 0x1000, 5, false, 0, i, 0),
				0);
		}
		for (unsigned k = 0; k < 3; k++) {
			uint32_t dq = 0;

			ST_EQ_I(st, et_pull(ep, 0, &dq), MRC_OP_WRITE_ONLY);
			ST_EQ(st, dq, want[h - 2][k]);
		}
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st,
		"E07 address checks: a packet for QP 1 (peer host 1) from outside the "
		"job, by another plane, with another plane's EV, from host 2, or for host 2 is "
		"dropped and counted; from host 1 it is taken");
	if (ST_TRUE(st, et_new(0, 1, 4, &ep) == 0)) {
		struct mrc_pkt p;
		int len;

		ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 1, &qpn), 0);
		ST_EQ_I(st, mrc_ep_reg_mr(ep, mr, 16, &rkey), 0);
		n = et_pkt(ep, 1, 0, (uint64_t)(uintptr_t)mr, rkey, buf); /* host 1, plane 0 */
		ST_TRUE(st, n > 0 && mrc_wire_decode(&ep->p.wire, buf, (size_t)n, true, &p) == 0);
		mrc_ep_on_rx(ep, 1, buf, (size_t)n, false, 100); /* by port 1: wrong plane */
		p.payload_len = 8;
		p.src.b[0] = 0xfe; /* fe00::1:0: not a job address */
		len = mrc_wire_encode(&ep->p.wire, &p, buf2, sizeof(buf2));
		mrc_ep_on_rx(ep, 0, buf2, (size_t)len, false, 200);
		st_addr(&p.src, 2, 0); /* host 2 */
		len = mrc_wire_encode(&ep->p.wire, &p, buf2, sizeof(buf2));
		mrc_ep_on_rx(ep, 0, buf2, (size_t)len, false, 300);
		st_addr(&p.src, 1, 0);
		p.ev = et_evs[4]; /* plane 1's EV on plane 0 */
		len = mrc_wire_encode(&ep->p.wire, &p, buf2, sizeof(buf2));
		mrc_ep_on_rx(ep, 0, buf2, (size_t)len, false, 400);
		st_addr(&p.dst, 2, 0); /* for host 2, redirected here */
		p.ev = et_evs[0];
		len = mrc_wire_encode(&ep->p.wire, &p, buf2, sizeof(buf2));
		mrc_ep_on_rx(ep, 0, buf2, (size_t)len, false, 450);
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.rx_foreign, 1);
		ST_EQ(st, es.rx_wrong_plane, 2);
		ST_EQ(st, es.rx_spoofed, 1);
		ST_EQ(st, es.rx_misdirected, 1);
		ST_EQ_I(st, mrc_ep_qp_stats(ep, 1, &qs), 0);
		ST_EQ(st, qs.rx_data_pkts, 0);
		mrc_ep_on_rx(ep, 0, buf, (size_t)n, false, 500);
		ST_EQ_I(st, mrc_ep_qp_stats(ep, 1, &qs), 0);
		ST_EQ(st, qs.rx_data_pkts, 1);
		mrc_ep_free(ep);
		ep = NULL;
	}

	mrc_st_case(st, "E08 EV probe: request id in PSN, DestQP 2, ERTH op 1, ECT(0) on the EV's "
			"plane; the peer reports it (ep_request, CE as it came); the answer echoes "
			"both; RTT 7 us in ns; a replay, a forged tx_ts and a late answer change "
			"nothing");
	{
		struct et_rsp r = {0};
		struct mrc_ep *b = NULL;
		struct mrc_pkt d;
		uint8_t req[ET_XH + 16 + 4];
		int id, id2;

		ST_EQ_I(st, et_new_rsp(&r, &ep), 0);
		ST_EQ_I(st, et_new(1, 1, 4, &b), 0);
		if (!ep || !b)
			goto e08_out;
		ST_EQ_I(st, mrc_ep_ev_probe(ep, 1, 0x12345678, 1000000), -EINVAL); /* no such EV */
		id = mrc_ep_ev_probe(ep, 1, et_evs[5], 1000000); /* 1 us */
		ST_EQ_I(st, id, 1);
		ST_EQ_I(st, mrc_ep_tx(ep, 0, 1000000, buf, sizeof(buf)), 0); /* plane 1's only */
		n = et_pull_pkt(ep, 1, 1000000, buf, &d);
		ST_EQ_I(st, n, ET_XH + 16 + 4);
		ST_EQ(st, buf[ET_XH + 1], 0x01); /* op EV_PROBE */
		ST_EQ(st, get_be16(buf + ET_XH + 12), 1000); /* tx_ts: 1000 ns */
		ST_EQ(st, d.opcode, MRC_OP_EP_REQUEST);
		ST_EQ(st, d.dest_qp, 2);
		ST_EQ(st, d.psn, 1);
		ST_EQ(st, d.ev, et_evs[5]);
		ST_EQ(st, d.dscp, 26);
		ST_EQ(st, d.ecn, 2); /* ECT(0), as data */
		memcpy(req, buf, sizeof(req));
		b->ops.ep_request = et_on_req;
		memset(&et_req, 0, sizeof(et_req));
		mrc_ep_on_rx(b, 1, buf, (size_t)n, false, 4000000);
		ST_EQ(st, et_req.n, 1);
		ST_EQ(st, et_req.peer, 0);
		ST_EQ(st, et_req.ev, et_evs[5]);
		ST_EQ(st, et_req.op, MRC_EP_OP_EV_PROBE);
		ST_EQ(st, et_req.ce, false);
		n = et_pull_pkt(b, 1, 4000000, buf, &d);
		ST_EQ_I(st, n, ET_XH + 36 + 4);
		ST_EQ(st, d.opcode, MRC_OP_EP_RESPONSE);
		ST_EQ(st, buf[ET_XH + 1], 0x10); /* op EV_PROBE in bits 5:4 */
		ST_EQ(st, get_be16(buf + ET_XH + 28), 1000);
		ST_EQ(st, d.dest_qp, 2);
		ST_EQ(st, d.psn, 1);
		ST_EQ(st, d.ev, et_evs[5]);
		ST_EQ(st, d.dscp, 46);
		mrc_ep_on_rx(ep, 1, buf, (size_t)n, false, 8000000); /* 7 us after the send */
		ST_EQ(st, r.n, 1);
		ST_EQ(st, r.req_id, 1);
		ST_EQ(st, r.peer, 1);
		ST_EQ(st, r.ev, et_evs[5]);
		ST_EQ(st, r.port, 2);
		ST_EQ(st, r.rtt_ns, 7000);
		mrc_ep_on_rx(ep, 1, buf, (size_t)n, false, 9000000); /* replayed */
		memcpy(buf2, buf, (size_t)n);
		d.eeth.tx_ts_echo ^= 1; /* forged: right id, wrong tx_ts */
		id2 = mrc_ep_ev_probe(ep, 1, et_evs[5], 9000000);
		d.psn = (uint32_t)id2;
		d.eeth.tx_ts_echo = 9000 ^ 1;
		mrc_ep_tx(ep, 1, 9000000, buf, sizeof(buf)); /* the request leaves */
		n = mrc_wire_encode(&b->p.wire, &d, buf, sizeof(buf));
		mrc_ep_on_rx(ep, 1, buf, (size_t)n, false, 10000000);
		ST_EQ(st, r.n, 1);
		d.eeth.tx_ts_echo = 9000; /* the right answer, after the 2 ms timeout */
		n = mrc_wire_encode(&b->p.wire, &d, buf, sizeof(buf));
		mrc_ep_on_rx(ep, 1, buf, (size_t)n, false, 9000000 + 2000000001ull);
		ST_EQ(st, r.n, 1);
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.ep_req_tx[MRC_EP_OP_EV_PROBE], 2);
		ST_EQ(st, es.ep_rsp_rx, 1);
		ST_EQ(st, es.ep_rsp_unmatched, 3);
		mrc_ep_get_stats(b, &es);
		ST_EQ(st, es.ep_req_rx[MRC_EP_OP_EV_PROBE], 1);
		ST_EQ(st, es.ep_rsp_tx, 1);
		/* the first request again, CE-marked by the fabric (the driver's flag) */
		mrc_ep_on_rx(b, 1, req, ET_XH + 16 + 4, true, 11000000);
		ST_EQ(st, et_req.n, 2);
		ST_EQ(st, et_req.ce, true);
e08_out:
		mrc_ep_free(ep);
		mrc_ep_free(b);
		ep = NULL;
	}

	mrc_st_case(st,
		"E09 port 0 down: one PORT_STATUS_UPDATE per peer host (2 QPs to host 1, "
		"1 to host 2), mask 0x4 (port 2 up), on port 2; host 1 applies it to its QP "
		"and answers");
	{
		struct mrc_ep *b = NULL;
		struct mrc_pkt d;
		uint32_t q1 = 0;
		unsigned to1 = 0, to2 = 0;

		ST_EQ_I(st, et_new(0, 1, 4, &ep), 0);
		ST_EQ_I(st, et_new(1, 1, 4, &b), 0);
		if (!ep || !b)
			goto e09_out;
		ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 1, &qpn), 0);
		ST_EQ_I(st, mrc_ep_qp_create(ep, 1, 2, &qpn), 0);
		ST_EQ_I(st, mrc_ep_qp_create(ep, 2, 1, &qpn), 0);
		ST_EQ_I(st, mrc_ep_qp_create(b, 0, 1, &q1), 0);
		mrc_ep_port_status(ep, 0, false, 1000000);
		for (int k = 0; k < 3; k++) {
			n = et_pull_pkt(ep, 1, 1000000, buf, &d);
			if (n < 0)
				break;
			ST_EQ(st, d.opcode, MRC_OP_EP_REQUEST);
			ST_EQ(st, d.erth.op, MRC_EP_OP_PORT_STATUS);
			ST_EQ(st, get_be32(buf + ET_XH + 4), 0x4);
			ST_EQ(st, d.dest_qp, 2);
			to1 += d.dst.b[13] == 1;
			to2 += d.dst.b[13] == 2;
			if (d.dst.b[13] == 1)
				mrc_ep_on_rx(b, 1, buf, (size_t)n, false, 2000000);
		}
		ST_EQ(st, to1, 1);
		ST_EQ(st, to2, 1);
		mrc_ep_get_stats(ep, &es);
		ST_EQ(st, es.ep_req_tx[MRC_EP_OP_PORT_STATUS], 2);
		ST_EQ_I(st, mrc_ep_qp_stats(b, q1, &qs), 0);
		ST_EQ(st, qs.port_status_rx, 1);
		n = et_pull_pkt(b, 1, 2000000, buf, &d);
		ST_EQ(st, d.opcode, MRC_OP_EP_RESPONSE);
		ST_EQ(st, d.eeth.op, MRC_EP_OP_PORT_STATUS);
		/* host 1 sends host 0 nothing on plane 0 now */
		ST_EQ_I(st, mrc_ep_post_write(b, q1, src, 8192, 0x1000, 5, false, 0, 1, 2000000),
			0);
		ST_EQ_I(st, mrc_ep_tx(b, 0, 2000000, buf, sizeof(buf)), 0);
		ST_TRUE(st, mrc_ep_tx(b, 1, 2000000, buf, sizeof(buf)) > 0);
e09_out:
		mrc_ep_free(ep);
		mrc_ep_free(b);
		ep = NULL;
	}
}
