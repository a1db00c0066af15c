/* SPDX-License-Identifier: BSD-2-Clause */
/* fabric_test: unit tests of mrc/sim/fabric.c (`mrcgen-test fabric`). */
#include "mrc/sim/fabric.c"
#include "mrc/base/st.h"

/* ---- selftest ---------------------------------------------------------------------- */

/*
 * Test addressing: mrc/srv6's generated plan, whose numbers the tests write out by hand:
 * block fc00:0000::/32; uSID = plane(4) | role(2: 0 host port, 1 T0, 2 T1) | index + 1,
 * so in plane 0 T0 i = 0x0401 + i, T1 j = 0x0801 + j, host port h = 0x0001 + h, and in
 * plane 1 the same with 0x1000 added. Host addresses come from mrc_srv6_host_addr.
 */
#define T_MAXH 16
#define T_MAXP 2
#define T_PKT 4400

struct t_plan {
	struct mrc_srv6_plan *plan;
	struct mrc_ip6 addr[T_MAXP * T_MAXH];
};

struct t_rx {
	uint32_t host, plane, len, psn;
	uint64_t t;
	uint8_t tc, sl;
	uint8_t da[16];
	uint16_t plen, udp_len;
};

struct t_net {
	struct {
		uint8_t (*pkt)[T_PKT];
		uint32_t len[64];
		unsigned n, next;
	} txq[T_MAXH][T_MAXP];
	uint8_t bufs[T_MAXH][T_MAXP][64][T_PKT];
	struct t_rx rx[512];
	unsigned nrx;
	unsigned status_down, status_up;
	struct mrc_fabric *fab;
	struct mrc_srv6_plan *plan;
	uint8_t rxbuf[32][T_PKT]; /* the first 32 packets received, as received */
};

static void t_setup(struct t_plan *pl, struct mrc_fabric_params *p, unsigned planes, unsigned t0,
	unsigned t1, unsigned hpt)
{
	struct mrc_srv6_params sp;
	unsigned hosts = t0 * hpt;

	mrc_srv6_params_default(&sp);
	sp.planes = planes;
	sp.t0 = t0;
	sp.t1 = t1;
	sp.hosts_per_t0 = hpt;
	pl->plan = NULL;
	mrc_srv6_plan_new(&sp, &pl->plan, NULL, 0);
	memset(p, 0, sizeof(*p));
	mrc_fabric_defaults(p);
	p->plan = pl->plan;
	p->pkt_cap = T_PKT;
	for (unsigned pp = 0; pp < planes && pl->plan; pp++)
		for (unsigned h = 0; h < hosts; h++)
			mrc_srv6_host_addr(pl->plan, pp, h, &pl->addr[pp * hosts + h]);
}

static void t_ip6(uint8_t *h, uint8_t tc, uint32_t flow, uint16_t plen, uint8_t nh,
	const uint8_t *src, const uint8_t *dst)
{
	h[0] = (uint8_t)(0x60 | tc >> 4);
	h[1] = (uint8_t)((tc & 0x0F) << 4 | (flow >> 16 & 0x0F));
	h[2] = (uint8_t)(flow >> 8);
	h[3] = (uint8_t)flow;
	put_be16(h + 4, plen);
	h[6] = nh;
	h[7] = 64;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
}

/*
 * Hand-built test packet of @total bytes: [outer IPv6 to @outer_da [SRH of @nsegs
 * segments given in travel order, SL @sl]] inner IPv6 / UDP sport->4791 / BTH(@op, @psn).
 * @outer_da NULL = plain (stev) packet. TC = DSCP 0 | ECT(0).
 */
static uint32_t t_build(uint8_t *b, uint32_t total, const uint8_t *outer_da,
	const uint8_t (*segs)[16], unsigned nsegs, unsigned sl, const struct mrc_ip6 *src,
	const struct mrc_ip6 *dst, uint16_t sport, uint8_t op, uint32_t psn)
{
	uint32_t off = 0;

	memset(b, 0, total);
	if (outer_da) {
		t_ip6(b, 2, 0, (uint16_t)(total - 40), nsegs ? 43 : 41, src->b, outer_da);
		off = 40;
		if (nsegs) {
			b[off] = 41;
			b[off + 1] = (uint8_t)(2 * nsegs);
			b[off + 2] = 4;
			b[off + 3] = (uint8_t)sl;
			b[off + 4] = (uint8_t)(nsegs - 1);
			for (unsigned i = 0; i < nsegs; i++) /* RFC 8754: segment[0] is the last */
				memcpy(b + off + 8 + 16 * i, segs[nsegs - 1 - i], 16);
			off += 8 + 16 * nsegs;
		}
	}
	t_ip6(b + off, 2, sport, (uint16_t)(total - off - 40), 17, src->b, dst->b);
	off += 40;
	put_be16(b + off, sport);
	put_be16(b + off + 2, 4791);
	put_be16(b + off + 4, (uint16_t)(total - off));
	off += 8;
	b[off] = op;
	put_be24(b + off + 9, psn);
	return total;
}

static void t_send(struct t_net *n, uint32_t h, unsigned plane, uint32_t len)
{
	n->txq[h][plane].pkt = n->bufs[h][plane];
	n->txq[h][plane].len[n->txq[h][plane].n++] = len;
}

static uint8_t *t_slot(struct t_net *n, uint32_t h, unsigned plane)
{
	return n->bufs[h][plane][n->txq[h][plane].n];
}

static size_t t_tx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g)
{
	struct t_net *n = ctx;
	uint32_t len;

	(void)now;
	(void)g; /* whole packets */
	if (n->txq[host][plane].next == n->txq[host][plane].n)
		return 0;
	len = n->txq[host][plane].len[n->txq[host][plane].next];
	if (len > cap)
		return 0;
	memcpy(buf, n->bufs[host][plane][n->txq[host][plane].next++], len);
	return len;
}

static void t_rx(
	void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_net *n = ctx;
	struct t_rx *r;

	if (n->nrx == 512)
		return;
	if (n->nrx < 32)
		memcpy(n->rxbuf[n->nrx], buf, len < T_PKT ? len : T_PKT);
	r = &n->rx[n->nrx++];
	r->host = host;
	r->plane = plane;
	r->len = (uint32_t)len;
	r->t = now;
	r->tc = ip6_tc(buf);
	memcpy(r->da, buf + 24, 16);
	r->plen = get_be16(buf + 4);
	/* find the BTH the way the fabric does (its parser is tested by the paths here) */
	r->psn = UINT32_MAX;
	{
		static uint8_t copy[sizeof(struct fab_pkt) + T_PKT] __attribute__((aligned(64)));
		struct fab_pkt *q = (struct fab_pkt *)copy;

		memcpy(q->data, buf, len);
		q->len = q->hlen = (uint16_t)len;
		pkt_parse(q);
		if (pkt_bth_off(q))
			r->psn = get_be24(q->data + pkt_bth_off(q) + 9);
		r->sl = pkt_srh_off(q) ? q->data[pkt_srh_off(q) + 3] : 0xFF;
		r->udp_len = pkt_bth_off(q) ? get_be16(q->data + pkt_bth_off(q) - 4) : 0;
	}
}

static void t_status(void *ctx, uint32_t host, unsigned plane, bool up, uint64_t now)
{
	struct t_net *n = ctx;

	(void)host, (void)plane, (void)now;
	if (up)
		n->status_up++;
	else
		n->status_down++;
}

static const struct mrc_fab_host_ops t_ops = {t_rx, t_tx, t_status, NULL, NULL};

struct t_tap {
	unsigned n;
	uint8_t da[8][16];
	uint64_t t[8];
};

static void t_tapfn(void *ctx, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_tap *tp = ctx;

	(void)len;
	if (tp->n < 8) {
		memcpy(tp->da[tp->n], buf + 24, 16);
		tp->t[tp->n++] = now;
	}
}

/*
 * A sender (host 0) that gathers, as mrc_ep_tx_gather: a 1000-byte data packet whose
 * 896-byte payload stays in @pay (100 header bytes written), then a 120-byte packet
 * written whole. The receivers record what each rx op hands them.
 */
struct t_gnet {
	uint8_t pkt[1000], ctl[120], pay[896];
	unsigned sent;
	unsigned n_gather, n_rx, n_tap;
	uint8_t hdr[2][128];
	size_t len[2], hlen[2];
	const uint8_t *payload[2];
	uint32_t payload_len[2];
	uint8_t whole[1000], tapped[1000];
};

static size_t t_gtx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g)
{
	struct t_gnet *n = ctx;

	(void)now, (void)plane, (void)cap;
	if (host != 0 || n->sent == 2)
		return 0;
	if (n->sent++ == 1) {
		memcpy(buf, n->ctl, sizeof(n->ctl));
		return sizeof(n->ctl);
	}
	memcpy(buf, n->pkt, 100);
	g->hlen = 100;
	g->payload = n->pay;
	g->payload_len = sizeof(n->pay); /* then the 4 ICRC bytes, zeros */
	return sizeof(n->pkt);
}

static void t_grx_gather(void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len,
	const struct mrc_wire_gather *g, uint64_t now)
{
	struct t_gnet *n = ctx;
	unsigned i = n->n_gather++;

	(void)host, (void)plane, (void)now;
	if (i >= 2)
		return;
	memcpy(n->hdr[i], buf, g->hlen < 128 ? g->hlen : 128);
	n->len[i] = len;
	n->hlen[i] = g->hlen;
	n->payload[i] = g->payload;
	n->payload_len[i] = g->payload_len;
}

static void t_grx(
	void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_gnet *n = ctx;

	(void)host, (void)plane, (void)now;
	if (n->n_rx++ == 0 && len == sizeof(n->whole))
		memcpy(n->whole, buf, len);
}

static void t_gtap(void *ctx, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_gnet *n = ctx;

	(void)now;
	if (n->n_tap++ == 0 && len == sizeof(n->tapped))
		memcpy(n->tapped, buf, len);
}

/* Starts every host port that has packets queued. */
static void t_go(struct t_net *n, unsigned hosts, unsigned planes)
{
	for (unsigned h = 0; h < hosts; h++)
		for (unsigned p = 0; p < planes; p++)
			if (n->txq[h][p].n)
				mrc_fabric_kick(n->fab, h, p);
}

static int t_hex(const char *s, uint8_t out[16])
{
	return mrc_st_hex(s, out, 16);
}

/* Hosts 0-2 of a 1-T0 plan each send 8 packets of @len B to host 3, and start. */
static void t_incast24(struct t_net *n, const struct t_plan *pl, uint32_t len)
{
	uint8_t c[16];

	t_hex("fc00 0000 0401 0004 0000 0000 0000 0000", c);
	for (uint32_t h = 0; h < 3; h++)
		for (uint32_t k = 0; k < 8; k++) {
			t_build(t_slot(n, h, 0), len, c, NULL, 0, 0, &pl->addr[h], &pl->addr[3],
				(uint16_t)h, 0xC7, h << 8 | k);
			t_send(n, h, 0, len);
		}
	t_go(n, 4, 1);
}

static struct t_net *t_net_new(struct mrc_st *st, const struct mrc_fabric_params *p)
{
	struct t_net *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->plan = (struct mrc_srv6_plan *)p->plan;
	ST_EQ_I(st, mrc_fabric_new(p, &t_ops, n, &n->fab), 0);
	if (!n->fab) {
		mrc_srv6_plan_free(n->plan);
		free(n);
		return NULL;
	}
	return n;
}

static void t_net_free(struct t_net *n)
{
	if (!n)
		return;
	mrc_fabric_free(n->fab);
	mrc_srv6_plan_free(n->plan);
	free(n);
}

MRC_SELFTEST(fabric)
{
	struct mrc_fabric_params p;
	struct t_plan pl;
	struct t_net *n;
	uint8_t c[16], want[16];

	mrc_st_case(st, "defaults set every field: a garbage-filled struct gets the default queue");
	{
		struct mrc_sim *sim = NULL;

		/* mrc/sim/run.c built its params on the stack: queue 0x375b5ca2 made the sim
		 * spin */
		memset(&p, 0xA5, sizeof(p));
		mrc_fabric_defaults(&p);
		ST_EQ(st, p.simq.queue, MRC_SIMQ_DEFAULT);
		ST_EQ(st, p.simq.tick_bits, 0);
		ST_EQ(st, p.simq.wheel_bits, 0);
		ST_EQ(st, p.pkt_cap, 0);
		ST_TRUE(st, p.plan == NULL);
		ST_EQ(st, mrc_sim_new(&p.simq, &sim), 0);
		mrc_sim_free(sim);
	}

	/* 1 plane, 2 T0, 2 T1, 2 hosts per T0: h0 h1 on T0 0, h2 h3 on T0 1 */
	mrc_st_case(st, "uN: the DA after each hop is the container shifted by 16 bits per hop");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct t_tap taps[4] = {0};

		t_hex("fc00 0000 0401 0802 0402 0004 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 1, 0xCA, 7);
		t_send(n, 0, 0, 1000);
		mrc_fabric_tap(n->fab, MRC_FAB_HOST, 0, 0, 0, true, t_tapfn, &taps[0]);
		mrc_fabric_tap(n->fab, MRC_FAB_T0, 0, 0, 2 + 1, true, t_tapfn, &taps[1]);
		mrc_fabric_tap(n->fab, MRC_FAB_T1, 1, 0, 1, true, t_tapfn, &taps[2]);
		mrc_fabric_tap(n->fab, MRC_FAB_T0, 1, 0, 1, true, t_tapfn, &taps[3]);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, taps[0].n, 1);
		ST_EQ_MEM(st, taps[0].da[0], c, 16);
		t_hex("fc00 0000 0802 0402 0004 0000 0000 0000", want);
		ST_EQ(st, taps[1].n, 1);
		ST_EQ_MEM(st, taps[1].da[0], want, 16);
		t_hex("fc00 0000 0402 0004 0000 0000 0000 0000", want);
		ST_EQ(st, taps[2].n, 1);
		ST_EQ_MEM(st, taps[2].da[0], want, 16);
		t_hex("fc00 0000 0004 0000 0000 0000 0000 0000", want);
		ST_EQ(st, taps[3].n, 1);
		ST_EQ_MEM(st, taps[3].da[0], want, 16);
		ST_EQ(st, n->nrx, 1);
		ST_EQ(st, n->rx[0].host, 3);
		ST_EQ(st, n->rx[0].psn, 7);
		ST_EQ_MEM(st, n->rx[0].da, want, 16);
		t_net_free(n);
	}

	mrc_st_case(st, "hop limit 2 from h0 runs out at the T1: one ICMPv6 Time Exceeded back "
			"to h0, hand-built; a 1500 B packet quoted 1232 B; 4 arrives with 1; 50 "
			"per burst");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_switch_stats ss;
		uint8_t te[48], *r;
		uint8_t q[200]; /* the 200-byte packet as it reached p0.t1.1 */

		t_hex("fc00 0000 0401 0802 0402 0004 0000 0000", c);
		t_build(t_slot(n, 0, 0), 200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 1, 0xCA, 7);
		t_slot(n, 0, 0)[7] = 2;
		memcpy(q, t_slot(n, 0, 0), 200);
		t_send(n, 0, 0, 200);
		t_build(t_slot(n, 0, 0), 1500, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 1, 0xCA, 8);
		t_slot(n, 0, 0)[7] = 2;
		t_send(n, 0, 0, 1500);
		t_build(t_slot(n, 0, 0), 200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 1, 0xCA, 9);
		t_slot(n, 0, 0)[7] = 4;
		t_send(n, 0, 0, 200);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		/* T0 0 shifted the DA and left 1; p0.t1.1 (0x0802) has an argument to shift:
		 * RFC 9800 §4.1.1 S02 discards it as it came */
		t_hex("fc00 0000 0802 0402 0004 0000 0000 0000", q + 24);
		q[7] = 1;
		ST_EQ(st, n->nrx, 3);
		ST_EQ(st, n->rx[0].host, 0);
		ST_EQ(st, n->rx[0].len, 48 + 200);
		/* from fc00:0:802:: to h0's fd00::0:0:1, next header 58, hop limit 64 less
		 * T0 0's hop; type 3 code 0, its checksum, 4 zero bytes, the packet quoted */
		ST_EQ_I(st, mrc_st_hex("60000000 00d0 3a 3f"
				       "fc000000 08020000 00000000 00000000"
				       "fd000000 00000000 00000000 00000001"
				       "0300 0000 00000000", te, sizeof(te)), 48);
		r = n->rxbuf[0];
		te[42] = r[42]; /* the checksum: checked by the independent sum below */
		te[43] = r[43];
		ST_EQ_MEM(st, r, te, 48);
		ST_EQ_MEM(st, r + 48, q, 200);
		ST_EQ(st, mrc_st_icmp6_sum(r), 0xffff);
		ST_EQ(st, n->rx[1].host, 3); /* 4 - 3 hops; ahead of the second ICMPv6 */
		ST_EQ(st, n->rxbuf[1][7], 1);
		ST_EQ(st, n->rx[2].host, 0);
		ST_EQ(st, n->rx[2].len, 1280);
		ST_EQ(st, get_be16(n->rxbuf[2] + 4), 1240);
		ST_EQ(st, get_be16(n->rxbuf[2] + 48 + 4), 1460); /* the quote's own length */
		ST_EQ(st, mrc_st_icmp6_sum(n->rxbuf[2]), 0xffff);
		ST_EQ_I(st, mrc_fabric_switch_stats(n->fab, MRC_FAB_T1, 1, 0, &ss), 0);
		ST_EQ(st, ss.hop_limit, 2);
		ST_EQ(st, ss.icmp_sent, 2);
		ST_EQ(st, ss.icmp_rate_limited, 0);
		t_net_free(n);
	}
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_switch_stats ss;

		/* 60 packets of 100 B at once, hop limit 1: p0.t0.0 answers 50, then its
		 * bucket is empty (RFC 4443 §2.4(f)) */
		t_hex("fc00 0000 0401 0802 0402 0004 0000 0000", c);
		for (uint32_t k = 0; k < 60; k++) {
			t_build(t_slot(n, 0, 0), 100, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 1,
				0xCA, k);
			t_slot(n, 0, 0)[7] = 1;
			t_send(n, 0, 0, 100);
		}
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ_I(st, mrc_fabric_switch_stats(n->fab, MRC_FAB_T0, 0, 0, &ss), 0);
		ST_EQ(st, ss.hop_limit, 60);
		ST_EQ(st, ss.icmp_sent, 50);
		ST_EQ(st, ss.icmp_rate_limited, 10);
		ST_EQ(st, n->nrx, 50);
		t_net_free(n);
	}

	mrc_st_case(st, "SRH: an emptied container takes the next segment (SL 1 -> 0)");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		uint8_t segs[2][16];
		struct t_tap tap = {0};

		t_hex("fc00 0000 0401 0000 0000 0000 0000 0000", segs[0]);
		t_hex("fc00 0000 0802 0402 0004 0000 0000 0000", segs[1]);
		t_build(t_slot(n, 0, 0), 1000, segs[0], segs, 2, 1, &pl.addr[0], &pl.addr[3], 1,
			0xCA, 9);
		t_send(n, 0, 0, 1000);
		mrc_fabric_tap(n->fab, MRC_FAB_T0, 0, 0, 2 + 1, true, t_tapfn, &tap);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, tap.n, 1);
		ST_EQ_MEM(st, tap.da[0], segs[1], 16); /* T0 0 swapped in segment[0] */
		ST_EQ(st, n->nrx, 1);
		ST_EQ(st, n->rx[0].host, 3);
		ST_EQ(st, n->rx[0].sl, 0);
		t_hex("fc00 0000 0004 0000 0000 0000 0000 0000", want);
		ST_EQ_MEM(st, n->rx[0].da, want, 16);
		t_net_free(n);
	}

	mrc_st_case(st, "one-way latency on an idle path = sum of serialization, propagation "
			"and switch delays, to the ps");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.host_rate_bps = 100000000000ull;
	p.fabric_rate_bps = 400000000000ull;
	p.host_delay_ps = 500000;
	p.fabric_delay_ps = 1000000;
	p.switch_delay_ps = 300000;
	n = t_net_new(st, &p);
	if (n) {
		t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 4200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 1);
		t_send(n, 0, 0, 4200);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 1);
		/* 2 host links: 2*(4200*80 + 500000); 2 fabric links: 2*(4200*20 + 1000000);
		 * 3 switches: 3*300000 => 1672000 + 2168000 + 900000 */
		ST_EQ(st, n->rx[0].t, 4740000);
		ST_EQ(st, n->rx[0].host, 2);
		t_net_free(n);
	}

	mrc_st_case(st, "link down mid-transfer loses exactly the packets in flight on it");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.fabric_rate_bps = 400000000000ull;
	p.fabric_delay_ps = 1000000;
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_LINK_DOWN,
			.at_ps = 3000000,
			.plane = 0,
			.tier = MRC_FAB_T0,
			.a = 0,
			.b = 1,
			.dir = MRC_FAB_UPWARD};
		struct mrc_fab_port_stats ps = {0};
		size_t nlog;
		const struct mrc_fab_fault_rec *log;

		t_hex("fc00 0000 0401 0802 0402 0003 0000 0000", c);
		for (uint32_t k = 0; k < 10; k++) {
			t_build(t_slot(n, 0, 0), 4200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1,
				0xC7, k);
			t_send(n, 0, 0, 4200);
		}
		ST_EQ_I(st, mrc_fabric_schedule(n->fab, &f), 0);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		/*
		 * Packet k enters T0 0's up port at t_k = (k+1)*336000 + 500000 + 300000 and is
		 * on the fabric link until t_k + 84000 + 1000000. Down at 3000000: k = 0..2
		 * arrived, k = 3..5 in flight (lost), k = 6..9 reach a down port (dropped).
		 */
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &ps);
		ST_EQ(st, ps.tx_pkts, 6);
		ST_EQ(st, ps.lost, 3);
		ST_EQ(st, ps.down_drops, 4);
		ST_EQ(st, n->nrx, 3);
		for (unsigned i = 0; i < n->nrx && i < 3; i++)
			ST_EQ(st, n->rx[i].psn, i);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 1);
		if (nlog == 1) {
			ST_EQ(st, log[0].at_ps, 3000000);
			ST_EQ_STR(st, log[0].target, "p0.t0.0-p0.t1.1 up");
		}
		t_net_free(n);
	}

	mrc_st_case(st, "C11 trimmed packet shape: 1504 B with SRH cut to 256 B: payload length "
			"216, UDP length unchanged, DSCP trimmed class, control priority");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct fab_pkt *q = pkt_alloc(n->fab, 1504);
		uint8_t segs[2][16];

		t_hex("fc00 0000 0401 0000 0000 0000 0000 0000", segs[0]);
		t_hex("fc00 0000 0802 0402 0004 0000 0000 0000", segs[1]);
		q->len = q->hlen = (uint16_t)t_build(
			q->data, 1504, segs[0], segs, 2, 1, &pl.addr[0], &pl.addr[3], 1, 0xC6, 1);
		pkt_parse(q);
		ST_EQ(st, pkt_srh_off(q), 40);
		ST_EQ(st, pkt_inner_off(q), 40 + 8 + 32);
		ST_EQ(st, pkt_bth_off(q), 40 + 8 + 32 + 40 + 8);
		ST_EQ(st, q->flags & PK_CTRL, 0);
		ST_TRUE(st, trim_pkt(n->fab, &q, false));
		ST_EQ(st, q->len, 256);
		ST_EQ(st, q->cls, 35); /* moved to the smaller slot: 32 + 256 = 36 x 8 bytes */
		ST_EQ(st, get_be16(q->data + 4), 216);
		/* UDP length = 1504 - 40 outer - 40 SRH - 40 inner = 1384 */
		ST_EQ(st, get_be16(q->data + 120 + 4), 1384);
		ST_EQ(st, ip6_tc(q->data) >> 2, 12);
		/* inner IPv6 as sent: 1504 - 40 - 40 - 40 = 1384 */
		ST_EQ(st, get_be16(q->data + 80 + 4), 1384);
		ST_EQ(st, ip6_tc(q->data) & 3, 2); /* ECN kept */
		ST_EQ(st, q->flags & PK_CTRL, PK_CTRL);
		ST_EQ(st, q->data[40 + 3], 1); /* SRH intact: SL as at the trim point */
		t_net_free(n);
	}

	mrc_st_case(st, "header offsets kept as one: SRH at 40, inner IPv6 and BTH after it, "
			"in each shape the parser knows");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct fab_pkt *q = pkt_alloc(n->fab, 512);
		uint8_t segs[3][16];

		memset(segs, 0, sizeof(segs));
		t_hex("fc00 0000 0401 0000 0000 0000 0000 0000", segs[0]);
		ST_TRUE(st, q != NULL);
		if (q) {
			/* outer + SRH of 3 segments (8 + 48) + inner + UDP: BTH at 40+56+40+8 */
			q->len = q->hlen = (uint16_t)t_build(q->data, 512, segs[0], segs, 3, 2,
				&pl.addr[0], &pl.addr[3], 1, MRC_OP_ACK, 1);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q), 40);
			ST_EQ(st, pkt_inner_off(q), 96);
			ST_EQ(st, pkt_bth_off(q), 144);
			ST_EQ(st, q->flags & (PK_CTRL | PK_BAD), PK_CTRL); /* ACK */
			/* the same with the SRH's next header UDP and the inner IPv6 cut out:
			 * BTH at 40 + 56 + 8 */
			q->data[40] = 17;
			memmove(q->data + 96, q->data + 136, 512 - 136);
			q->len = q->hlen = 512 - 40;
			put_be16(q->data + 4, 512 - 40 - 40);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q), 40);
			ST_EQ(st, pkt_inner_off(q), 0);
			ST_EQ(st, pkt_bth_off(q), 104);
			ST_EQ(st, q->data[pkt_bth_off(q)], MRC_OP_ACK);
			/* outer + inner, no SRH: inner at 40, BTH at 88 */
			q->len = q->hlen = (uint16_t)t_build(q->data, 512, segs[0], segs, 0, 0,
				&pl.addr[0], &pl.addr[3], 1, MRC_OP_WRITE_ONLY, 1);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q), 0);
			ST_EQ(st, pkt_inner_off(q), 40);
			ST_EQ(st, pkt_bth_off(q), 88);
			ST_EQ(st, q->flags & PK_CTRL, 0);
			/* another UDP port: not MRC, the inner IPv6 still found */
			put_be16(q->data + 80 + 2, 4792);
			pkt_parse(q);
			ST_EQ(st, pkt_inner_off(q), 40);
			ST_EQ(st, pkt_bth_off(q), 0);
			/* plain IPv6 + UDP: BTH at 48 */
			q->len = q->hlen = (uint16_t)t_build(q->data, 512, NULL, segs, 0, 0,
				&pl.addr[0], &pl.addr[3], 1, MRC_OP_WRITE_ONLY, 1);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q) + pkt_inner_off(q), 0);
			ST_EQ(st, pkt_bth_off(q), 48);
			pkt_free(n->fab, q);
		}
		t_net_free(n);
	}

	mrc_st_case(st, "a gathered packet: laid out, finished, trimmed and forgotten exactly as "
			"the same packet written whole");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.csum_offload = true;
	p.trim_bytes = 256;
	n = t_net_new(st, &p);
	if (n) {
		static uint8_t whole[MRC_PKT_MAX], sent[MRC_PKT_MAX], pay[2000], hdr[512];
		struct mrc_wire_cfg cfg;
		struct mrc_wire_gather g;
		struct mrc_pkt mp;
		struct fab_pkt *q = NULL, *w = pkt_alloc(n->fab, T_PKT);
		int len = -1;

		mrc_wire_cfg_default(&cfg);
		for (unsigned i = 0; i < sizeof(pay); i++)
			pay[i] = (uint8_t)(i * 7 + 1);
		/* the first sample with a payload, given ours (1999 B: three pad bytes) */
		for (int i = 0; i < mrc_wire_sample_count(&cfg) && len < 0; i++) {
			ST_EQ(st, mrc_wire_sample_pkt((unsigned)i, &cfg, &mp), 0);
			if (!mp.payload_len)
				continue;
			mp.payload = pay;
			mp.payload_len = 1999;
			/* checksums computed */
			len = mrc_wire_encode(&cfg, &mp, sent, sizeof(sent));
			cfg.csum_offload = true;
			ST_EQ_I(st, mrc_wire_encode(&cfg, &mp, whole, sizeof(whole)), len);
			ST_EQ_I(st, mrc_wire_encode_gather(&cfg, &mp, hdr, 512, &g), len);
		}
		/* the headers in the pool's slot of their size, as nic_pull keeps them */
		if (len > 2000) {
			q = pkt_alloc(n->fab, g.hlen);
			/* 8-byte steps: the slot is the 32 + hlen bytes rounded up to 8 */
			ST_TRUE(st, q && g.hlen + 32 <= 8u * (q->cls + 1u) &&
					g.hlen + 32 > 8u * q->cls);
			if (q)
				memcpy(q->data, hdr, g.hlen);
		}
		ST_TRUE(st, len > 2000 && q && w);
		if (len > 2000 && q && w) {
			q->len = (uint16_t)len;
			q->hlen = (uint16_t)g.hlen;
			q->pay = g.payload;
			q->pay_len = (uint16_t)g.payload_len;
			pkt_parse(q);
			ST_EQ_MEM(st, pkt_bytes(n->fab, q), whole, (size_t)len); /* zero sums */
			finish_csum(n->fab, q);
			ST_EQ(st, q->flags & PK_ICRC, PK_ICRC);
			ST_EQ_MEM(st, pkt_bytes(n->fab, q), sent, (size_t)len);
			/* trimmed: the same 256 bytes as the whole packet trimmed */
			memcpy(w->data, sent, (size_t)len);
			w->len = w->hlen = (uint16_t)len;
			w->pay = NULL;
			w->pay_len = 0;
			pkt_parse(w);
			ST_TRUE(st, trim_pkt(n->fab, &w, true));
			ST_TRUE(st, trim_pkt(n->fab, &q, true));
			ST_EQ(st, q->cls, 35); /* moved: 32 + 256 bytes need a 288-byte slot */
			ST_EQ(st, q->len, 256);
			ST_EQ(st, q->hlen, 256);
			ST_EQ(st, q->len, w->len);
			ST_EQ_MEM(st, q->data, w->data, 256);
			/* forgotten: the payload reads as zeros, the headers stay */
			q->len = (uint16_t)len;
			q->hlen = (uint16_t)g.hlen;
			q->pay = pay;
			q->pay_len = (uint16_t)g.payload_len;
			q->flags = 0;
			memcpy(q->data, whole, g.hlen);
			mrc_fabric_forget_payloads(n->fab);
			ST_TRUE(st, q->pay == NULL);
			memset(whole + g.hlen, 0, g.payload_len);
			ST_EQ_MEM(st, pkt_bytes(n->fab, q), whole, (size_t)len);
		}
		t_net_free(n);
	}

	mrc_st_case(st, "rx_gather: headers and the sender's payload pointer, never laid out; "
			"rx alone: laid out; the tap sees the packet whole");
	for (int with_gather = 1; with_gather >= 0; with_gather--) {
		static const struct mrc_fab_host_ops gops[2] = {
			{t_grx, t_gtx, NULL, NULL, NULL}, {t_grx, t_gtx, NULL, t_grx_gather, NULL}};
		static struct t_gnet gn;
		struct mrc_fabric *fab = NULL;
		uint8_t da1[16], tail0[4] = {0};

		/* 1 plane, 1 T0, 1 T1, 2 hosts: host 0 to host 1 through T0 0 (uSID 0401) */
		t_setup(&pl, &p, 1, 1, 1, 2);
		memset(&gn, 0, sizeof(gn));
		for (unsigned i = 0; i < sizeof(gn.pay); i++)
			gn.pay[i] = (uint8_t)(i * 5 + 3);
		t_hex("fc00 0000 0401 0002 0000 0000 0000 0000", c);
		t_hex("fc00 0000 0002 0000 0000 0000 0000 0000", da1); /* after T0's shift */
		t_build(gn.pkt, 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[1], 9, 0xC7, 5);
		t_build(gn.ctl, 120, c, NULL, 0, 0, &pl.addr[0], &pl.addr[1], 9, 0xDC, 6);
		ST_EQ_I(st, mrc_fabric_new(&p, &gops[with_gather], &gn, &fab), 0);
		if (!fab) {
			mrc_srv6_plan_free(pl.plan);
			continue;
		}
		ST_EQ_I(st, mrc_fabric_tap(fab, MRC_FAB_HOST, 1, 0, 0, false, t_gtap, &gn), 0);
		mrc_fabric_kick(fab, 0, 0);
		mrc_sim_run(mrc_fabric_sim(fab), MRC_SIM_NEVER);
		/* the tap: 100 header bytes, the payload, 4 zero bytes (no checksum offload) */
		ST_EQ(st, gn.n_tap, 2);
		ST_EQ_MEM(st, gn.tapped + 40, gn.pkt + 40, 60);
		ST_EQ_MEM(st, gn.tapped + 100, gn.pay, sizeof(gn.pay));
		ST_EQ_MEM(st, gn.tapped + 996, tail0, 4);
		if (with_gather) {
			ST_EQ(st, gn.n_rx, 0);
			ST_EQ(st, gn.n_gather, 2);
			ST_EQ(st, gn.len[0], 1000);
			ST_EQ(st, gn.hlen[0], 100);
			ST_TRUE(st, gn.payload[0] == gn.pay); /* the sender's bytes, not a copy */
			ST_EQ(st, gn.payload_len[0], 896);
			ST_EQ_MEM(st, gn.hdr[0] + 24, da1, 16); /* the switch's edit is there */
			ST_EQ_MEM(st, gn.hdr[0] + 40, gn.pkt + 40, 60);
			ST_EQ(st, gn.len[1], 120); /* written whole: whole */
			ST_EQ(st, gn.hlen[1], 120);
			ST_TRUE(st, gn.payload[1] == NULL);
			ST_EQ(st, gn.payload_len[1], 0);
			ST_EQ_MEM(st, gn.hdr[1] + 40, gn.ctl + 40, 80);
		} else {
			ST_EQ(st, gn.n_rx, 2);
			ST_EQ(st, gn.n_gather, 0);
			ST_EQ_MEM(st, gn.whole + 24, da1, 16);
			ST_EQ_MEM(st, gn.whole + 40, gn.pkt + 40, 60);
			ST_EQ_MEM(st, gn.whole + 100, gn.pay, sizeof(gn.pay));
			ST_EQ_MEM(st, gn.whole + 996, tail0, 4);
		}
		mrc_fabric_free(fab);
		mrc_srv6_plan_free(pl.plan);
	}

	mrc_st_case(st, "a layout after one 4 bytes shorter, whose ICRC overlaps its pad: "
			"pad zero");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.csum_offload = true;
	n = t_net_new(st, &p);
	if (n) {
		static uint8_t pay[1001];
		struct fab_pkt *a = pkt_alloc(n->fab, 64), *b = pkt_alloc(n->fab, 64);
		const uint8_t *o;

		memset(pay, 0x11, sizeof(pay));
		ST_TRUE(st, a && b);
		if (a && b) {
			/* A: 64 header bytes, 1000 payload bytes, its ICRC at 1064..1067 */
			memset(a->data, 0x22, 64);
			a->hlen = 64, a->pay = pay, a->pay_len = 1000, a->len = 1068;
			a->flags = PK_ICRC, a->icrc = 0xAABBCCDD;
			o = pkt_bytes(n->fab, a);
			ST_EQ(st, o[1064], 0xDD);
			/* B: 1001 payload bytes, pad 1065..1067, ICRC (not computed) 1068..1071 */
			*b = *a;
			b->pay_len = 1001, b->len = 1072, b->flags = 0;
			memcpy(b->data, a->data, 64);
			o = pkt_bytes(n->fab, b);
			ST_EQ(st, o[1064], 0x11);
			for (int i = 1065; i < 1072; i++)
				ST_EQ(st, o[i], 0);
			pkt_free(n->fab, a);
			pkt_free(n->fab, b);
		}
		t_net_free(n);
	}

	mrc_st_case(st, "incast with a tiny buffer: trims at the last hop, no drops while the "
			"control class has room");
	t_setup(&pl, &p, 1, 1, 1, 4);
	p.buffer_bytes = 10000;
	p.ctrl_buffer_bytes = 64 << 10;
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats ps = {0};
		unsigned trimmed = 0, full = 0, bad = 0;

		t_incast24(n, &pl, 4200);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &ps);
		ST_EQ(st, ps.drops, 0);
		ST_TRUE(st, ps.trims > 0);
		ST_EQ(st, n->nrx, 24);
		for (unsigned i = 0; i < n->nrx; i++) {
			if (n->rx[i].len == 256 && n->rx[i].tc >> 2 == 13 && n->rx[i].plen == 216 &&
				n->rx[i].udp_len == 4200 - 80)
				trimmed++;
			else if (n->rx[i].len == 4200 && n->rx[i].tc >> 2 == 0)
				full++;
			else
				bad++;
		}
		ST_EQ(st, trimmed, ps.trims);
		ST_EQ(st, trimmed + full, 24);
		ST_EQ(st, bad, 0);
		t_net_free(n);
	}

	mrc_st_case(st, "incast of 256 B packets, trim size 256 B: nothing to cut, so the full "
			"buffer drops them whole, never trims");
	t_setup(&pl, &p, 1, 1, 1, 4);
	p.buffer_bytes = 600; /* two 256 B packets queued at most */
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats ps = {0};
		unsigned whole = 0;

		t_incast24(n, &pl, 256);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &ps);
		ST_EQ(st, ps.trims, 0);
		ST_TRUE(st, ps.drops > 0);
		ST_EQ(st, n->nrx + ps.drops, 24);
		for (unsigned i = 0; i < n->nrx; i++)
			whole += n->rx[i].len == 256 && n->rx[i].tc >> 2 == 0;
		ST_EQ(st, whole, n->nrx);
		t_net_free(n);
	}

	mrc_st_case(st, "release_pool mid-incast: queued and travelling packets freed, counters "
			"kept, the loop run again delivers and pulls nothing");
	t_setup(&pl, &p, 1, 1, 1, 4);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats before = {0}, after = {0};
		struct mrc_fab_stats fs0, fs1;
		unsigned nrx;

		t_incast24(n, &pl, 4200);
		/* 24 x 4200 B into one 100G last hop: 336 ns each, 8 us for all; at 3 us some
		 * are delivered, the rest queued at T0 port 3 or on the host links */
		mrc_sim_run(mrc_fabric_sim(n->fab), 3000000);
		nrx = n->nrx;
		ST_TRUE(st, nrx > 0 && nrx < 24);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &before);
		mrc_fabric_stats(n->fab, &fs0);
		mrc_fabric_release_pool(n->fab);
		/* host 0's NIC would pull its ninth packet now: a closed fabric pulls nothing */
		t_build(t_slot(n, 0, 0), 4200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 0, 0xC7, 8);
		t_send(n, 0, 0, 4200);
		t_go(n, 1, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->txq[0][0].next, 8);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &after);
		mrc_fabric_stats(n->fab, &fs1);
		ST_EQ(st, n->nrx, nrx);
		ST_EQ(st, fs1.delivered, fs0.delivered);
		ST_EQ(st, fs1.delivered, nrx);
		ST_EQ(st, after.tx_pkts, before.tx_pkts);
		ST_EQ(st, fs1.pkts_alloc, fs0.pkts_alloc); /* a high-water mark: kept */
		t_net_free(n);
	}

	for (int lasthop = 0; lasthop < 2; lasthop++) {
		mrc_st_case(st,
			"ECN: 2-to-1 incast at the last hop, threshold 5000 B, "
			"ecn_lasthop=%d: %s",
			lasthop, lasthop ? "9 marks" : "no marks");
		t_setup(&pl, &p, 1, 1, 1, 3);
		p.ecn_threshold_bytes = 5000;
		p.ecn_lasthop = lasthop;
		p.buffer_bytes = 1 << 20;
		n = t_net_new(st, &p);
		if (n) {
			struct mrc_fab_port_stats ps = {0};
			unsigned ce = 0;

			t_hex("fc00 0000 0401 0003 0000 0000 0000 0000", c);
			for (uint32_t h = 0; h < 2; h++)
				for (uint32_t k = 0; k < 6; k++) {
					t_build(t_slot(n, h, 0), 4200, c, NULL, 0, 0, &pl.addr[h],
						&pl.addr[2], 1, 0xC7, k);
					t_send(n, h, 0, 4200);
				}
			t_go(n, 3, 1);
			mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
			mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &ps);
			/*
			 * Pairs arrive every 336000 ps while the port drains one packet per 336000
			 * ps. Before pair k (k >= 1) k packets wait: the first of the pair sees
			 * k*4200 B, the second (k+1)*4200 B; marked when > 5000: k=1 one, k=2..5
			 * two each = 9. Peak backlog: 5 waiting + 2 = 7 packets = 29400 B.
			 */
			ST_EQ(st, ps.max_queue_bytes, 29400);
			ST_EQ(st, ps.ecn_marks, lasthop ? 9 : 0);
			for (unsigned i = 0; i < n->nrx; i++)
				ce += (n->rx[i].tc & 3) == 3;
			ST_EQ(st, ce, lasthop ? 9 : 0);
			ST_EQ(st, n->nrx, 12);
			t_net_free(n);
		}
	}

	mrc_st_case(st, "ECN marks above the threshold on a T0 up port (2 flows into one T1)");
	t_setup(&pl, &p, 1, 2, 1, 2);
	p.ecn_threshold_bytes = 5000;
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats up = {0}, last0 = {0}, last1 = {0};
		unsigned ce = 0;

		for (uint32_t h = 0; h < 2; h++) {
			t_hex(h ? "fc00 0000 0401 0801 0402 0004 0000 0000"
				: "fc00 0000 0401 0801 0402 0003 0000 0000",
				c);
			for (uint32_t k = 0; k < 6; k++) {
				t_build(t_slot(n, h, 0), 4200, c, NULL, 0, 0, &pl.addr[h],
					&pl.addr[2 + h], 1, 0xC7, k);
				t_send(n, h, 0, 4200);
			}
		}
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &up);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 1, 0, 0, &last0);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 1, 0, 1, &last1);
		ST_EQ(st, up.ecn_marks, 9); /* same arithmetic as the last-hop case */
		ST_EQ(st, last0.ecn_marks + last1.ecn_marks, 0);
		for (unsigned i = 0; i < n->nrx; i++)
			ce += (n->rx[i].tc & 3) == 3;
		ST_EQ(st, ce, 9);
		t_net_free(n);
	}

	mrc_st_case(st, "mrc/wire packets survive the fabric: after uN shifts, hop limit, CE marks "
			"and trims they decode OK (trimmed ones as trimmed, C11)");
	t_setup(&pl, &p, 1, 2, 1, 2);
	p.buffer_bytes = 10000;	      /* two ~4.2 KB packets wait; a third is trimmed */
	p.ecn_threshold_bytes = 3000; /* one waiting packet is enough to mark */
	n = t_net_new(st, &p);
	if (n) {
		static uint8_t payload[4096];
		struct mrc_wire_cfg wc;
		struct mrc_fab_port_stats up = {0};
		unsigned ok = 0, trimmed = 0, ce = 0, bad = 0;

		mrc_wire_cfg_default(&wc);
		for (uint32_t h = 0; h < 2; h++) {
			for (uint32_t k = 0; k < 8; k++) {
				struct mrc_pkt wp;
				int len;

				memset(&wp, 0, sizeof(wp));
				t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", wp.outer_dst.b);
				wp.outer_src = pl.addr[h];
				wp.ecn = 2;
				wp.src = pl.addr[h];
				wp.dst = pl.addr[2];
				wp.ev = 0x0000C000 | h;
				wp.opcode = MRC_OP_WRITE_MIDDLE;
				wp.dest_qp = 17;
				wp.psn = h << 8 | k;
				wp.va = 0x10000 + 4096ull * k;
				wp.rkey = 5;
				wp.dma_len = 8 * 4096;
				wp.payload = payload;
				wp.payload_len = sizeof(payload);
				len = mrc_wire_encode(&wc, &wp, t_slot(n, h, 0), T_PKT);
				ST_TRUE(st, len > 4096);
				if (len > 0)
					t_send(n, h, 0, (uint32_t)len);
			}
		}
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &up);
		ST_TRUE(st, up.trims > 0);
		ST_TRUE(st, up.ecn_marks > 0);
		ST_EQ(st, n->nrx, 16);
		for (unsigned i = 0; i < n->nrx; i++) {
			struct mrc_pkt d;
			int rc = mrc_wire_decode(&wc, n->rxbuf[i], n->rx[i].len, true, &d);

			if (rc != MRC_WIRE_OK || d.psn != n->rx[i].psn) {
				bad++;
				continue;
			}
			ok++;
			if (d.trimmed && d.dscp == 12)
				trimmed++;
			ce += d.ecn == 3;
		}
		ST_EQ(st, bad, 0);
		ST_EQ(st, ok, 16);
		ST_EQ(st, trimmed, up.trims);
		ST_EQ(st, ce, up.ecn_marks);
		t_net_free(n);
	}

	mrc_st_case(st, "flapping: period 10 us, duty 0.7 from 1 us until 32 us");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_FLAP,
			.at_ps = 1000000,
			.plane = 0,
			.tier = MRC_FAB_T0,
			.a = 1,
			.b = 0,
			.period_ps = 10000000,
			.duty = 0.7,
			.until_ps = 32000000};
		/* down for 0.7 x 10 us of each period: 1-8, 11-18, 21-28, 31-32 (until) */
		static const uint64_t want_t[] = {1, 1, 8, 11, 18, 21, 28, 31, 32};
		static const enum mrc_fab_fault_kind want_k[] = {MRC_FAB_FLAP, MRC_FAB_LINK_DOWN,
			MRC_FAB_LINK_UP, MRC_FAB_LINK_DOWN, MRC_FAB_LINK_UP, MRC_FAB_LINK_DOWN,
			MRC_FAB_LINK_UP, MRC_FAB_LINK_DOWN, MRC_FAB_LINK_UP};
		const struct mrc_fab_fault_rec *log;
		size_t nlog;

		ST_EQ_I(st, mrc_fabric_schedule(n->fab, &f), 0);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 9);
		for (size_t i = 0; i < nlog && i < 9; i++) {
			ST_EQ(st, log[i].at_ps, want_t[i] * 1000000);
			ST_EQ(st, log[i].kind, want_k[i]);
		}
		if (nlog)
			ST_EQ_STR(st, log[0].target, "p0.t0.1-p0.t1.0");
		t_net_free(n);
	}

	mrc_st_case(st, "blackholed route: the packet is dropped and counted as no route");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_BLACKHOLE,
			.plane = 0,
			.tier = MRC_FAB_T1,
			.a = 1,
			.usid = 0x0402};
		struct mrc_fab_switch_stats ss = {0};

		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), 0);
		f.usid = 0x1999;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), -ENOENT);
		t_hex("fc00 0000 0401 0802 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 1);
		t_send(n, 0, 0, 1000);
		t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 2);
		t_send(n, 0, 0, 1000);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_switch_stats(n->fab, MRC_FAB_T1, 1, 0, &ss);
		ST_EQ(st, ss.no_route, 1);
		ST_EQ(st, n->nrx, 1);
		ST_EQ(st, n->rx[0].psn, 2);
		t_net_free(n);
	}

	mrc_st_case(st, "an up of what is not down, an unblackhole of a route there: logged noop");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		/* in order: T1 1's route to 0x0402 blackholed, restored, restored again; link
		 * T0 0-T1 1 up (never down), down upward, up both ways; T1 0 up; h0.p0 up */
		struct mrc_fab_fault bh = {.kind = MRC_FAB_BLACKHOLE, .tier = MRC_FAB_T1, .a = 1,
			.usid = 0x0402};
		struct mrc_fab_fault l = {.kind = MRC_FAB_LINK_UP, .tier = MRC_FAB_T0, .a = 0,
			.b = 1};
		struct mrc_fab_fault sw = {.kind = MRC_FAB_SWITCH_UP, .tier = MRC_FAB_T1};
		struct mrc_fab_fault nic = {.kind = MRC_FAB_NIC_UP};
		static const bool want_noop[] = {
			false, false, true, true, false, false, true, true};
		const struct mrc_fab_fault_rec *log;
		size_t nlog = 0;

		ST_EQ_I(st, mrc_fabric_apply(n->fab, &bh, 0), 0);
		bh.kind = MRC_FAB_UNBLACKHOLE;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &bh, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &bh, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &l, 0), 0);
		l.kind = MRC_FAB_LINK_DOWN;
		l.dir = MRC_FAB_UPWARD;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &l, 0), 0);
		l.kind = MRC_FAB_LINK_UP;
		l.dir = MRC_FAB_BOTH;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &l, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &sw, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &nic, 0), 0);
		ST_EQ(st, n->status_up, 0); /* the host is told nothing: nothing changed */
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 8);
		for (size_t i = 0; i < nlog && i < 8; i++)
			ST_EQ(st, log[i].noop, want_noop[i]);
		t_net_free(n);
	}

	mrc_st_case(st, "ECMP for plain packets: 64 flows over 2 T1s, each flow on one T1");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats a = {0}, b = {0};

		for (uint32_t k = 0; k < 64; k++) {
			t_build(t_slot(n, 0, 0), 500, NULL, NULL, 0, 0, &pl.addr[0], &pl.addr[3],
				(uint16_t)(49152 + k / 2), 0xCA, k);
			t_send(n, 0, 0, 500);
		}
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &a);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &b);
		ST_EQ(st, a.tx_pkts + b.tx_pkts, 64);
		ST_TRUE(st, a.tx_pkts >= 8 && b.tx_pkts >= 8);
		ST_EQ(st, a.tx_pkts % 2, 0); /* flows are packet pairs: never split */
		ST_EQ(st, n->nrx, 64);
		t_net_free(n);
	}

	mrc_st_case(st, "NIC port down: host told, its link carries nothing; switch down drops");
	t_setup(&pl, &p, 2, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_NIC_DOWN, .plane = 1, .a = 0};
		struct mrc_fab_fault s = {
			.kind = MRC_FAB_SWITCH_DOWN, .plane = 0, .tier = MRC_FAB_T1, .a = 0};
		struct mrc_fab_switch_stats ss = {0};

		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &s, 0), 0);
		ST_EQ(st, n->status_down, 1);
		t_hex("fc00 0000 1401 1802 1402 1003 0000 0000", c);
		t_build(t_slot(n, 0, 1), 1000, c, NULL, 0, 0, &pl.addr[4], &pl.addr[6], 1, 0xCA, 1);
		t_send(n, 0, 1, 1000);
		t_go(n, 4, 2);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 0);
		f.kind = MRC_FAB_NIC_UP;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, mrc_sim_now(mrc_fabric_sim(n->fab))), 0);
		ST_EQ(st, n->status_up, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 1);
		/* through the dead T1 0 of plane 0: dropped at T0 0 (port to a down switch) */
		t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 2);
		t_send(n, 0, 0, 1000);
		t_go(n, 4, 2);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 1);
		mrc_fabric_switch_stats(n->fab, MRC_FAB_T1, 0, 0, &ss);
		ST_EQ(st, ss.rx_pkts, 0);
		t_net_free(n);
	}

	mrc_st_case(st, "determinism: same seed, same counters and arrivals; another seed differs");
	{
		uint64_t sig[3] = {0};
		static const uint64_t seeds[3] = {5, 5, 6};

		for (int run = 0; run < 3; run++) {
			t_setup(&pl, &p, 1, 2, 2, 2);
			p.seed = seeds[run];
			p.buffer_bytes = 20000;
			n = t_net_new(st, &p);
			if (!n)
				break;
			struct mrc_fab_fault f = {.kind = MRC_FAB_LOSS,
				.plane = 0,
				.tier = MRC_FAB_T0,
				.a = 0,
				.b = 1,
				.loss_rate = 0.3};
			struct mrc_fab_port_stats tot = {0};

			mrc_fabric_apply(n->fab, &f, 0);
			for (uint32_t h = 0; h < 2; h++) {
				t_hex("fc00 0000 0401 0802 0402 0003 0000 0000", c);
				for (uint32_t k = 0; k < 30; k++) {
					t_build(t_slot(n, h, 0), 4200, c, NULL, 0, 0, &pl.addr[h],
						&pl.addr[2], 1, 0xC7, h << 8 | k);
					t_send(n, h, 0, 4200);
				}
			}
			t_go(n, 4, 1);
			mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
			mrc_fabric_port_totals(n->fab, &tot);
			sig[run] = tot.tx_pkts * 1000003 ^ tot.lost * 7919 ^ tot.trims * 31 ^
				   tot.drops;
			for (unsigned i = 0; i < n->nrx; i++)
				sig[run] =
					sig[run] * 1099511628211ull ^ (n->rx[i].t + n->rx[i].psn);
			if (run == 0)
				ST_TRUE(st, tot.lost > 0 && tot.lost < 60);
			t_net_free(n);
		}
		ST_EQ(st, sig[0], sig[1]);
		ST_TRUE(st, sig[0] != sig[2]);
	}
}
