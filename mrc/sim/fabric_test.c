/* SPDX-License-Identifier: BSD-2-Clause */
/* fabric_test: unit tests of mrc/sim/fabric.c (`mrcgen-test fabric`). */
#include "mrc/sim/fabric.c"
#include "mrc/base/st.h"
#include "mrc/sim/st_comm.h"

#include <math.h>

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

static const struct mrc_fab_host_ops t_ops = {t_rx, t_tx, t_status, NULL, NULL, NULL, NULL, NULL};

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

/* Routing tests: @n flows (one 500-byte plain packet each, source ports 0xC000 + k) from
 * host @src to host @dst, queued on plane 0 (the queue restarts when it was drained). */
static void t_flows(struct t_net *n, const struct t_plan *pl, uint32_t src, uint32_t dst,
	unsigned cnt)
{
	if (n->txq[src][0].next == n->txq[src][0].n)
		n->txq[src][0].n = n->txq[src][0].next = 0;
	for (unsigned k = 0; k < cnt; k++) {
		t_build(t_slot(n, src, 0), 500, NULL, NULL, 0, 0, &pl->addr[src], &pl->addr[dst],
			(uint16_t)(0xC000 + k), 0xCA, k);
		t_send(n, src, 0, 500);
	}
}

/* A test event: at its time, every host with packets queued on plane 0 starts sending. */
static void t_kick_ev(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct t_net *n = ctx;

	(void)obj, (void)arg, (void)now;
	t_go(n, 4, 1);
}

/* How many of the @cnt flows of t_flows from @src to @dst T0 @t0's ECMP hash puts on T1
 * @j of a full group of @t1 (the hash as the switch applies it, with its default seed:
 * mrc_ecmp_switch_seed of seed 1 and its switch number @t0). */
static unsigned t_on_t1(const struct t_plan *pl, uint32_t src, uint32_t dst, unsigned cnt,
	uint32_t t0, unsigned t1, unsigned j)
{
	uint8_t b[500];
	unsigned on = 0;

	for (unsigned k = 0; k < cnt; k++) {
		t_build(b, 500, NULL, NULL, 0, 0, &pl->addr[src], &pl->addr[dst],
			(uint16_t)(0xC000 + k), 0xCA, k);
		on += (mrc_ecmp_hash(b, 500, MRC_ECMP_5TUPLE, mrc_ecmp_switch_seed(1, true, t0)) >>
			32) % t1 == j;
	}
	return on;
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
			{t_grx, t_gtx, NULL, NULL, NULL, NULL, NULL, NULL},
			{t_grx, t_gtx, NULL, t_grx_gather, NULL, NULL, NULL, NULL}};
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
		p.ecn_kmin_bytes = p.ecn_kmax_bytes = 5000;
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
	p.ecn_kmin_bytes = p.ecn_kmax_bytes = 5000;
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
	p.ecn_kmin_bytes = p.ecn_kmax_bytes = 3000; /* one waiting packet is enough to mark */
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

	mrc_st_case(st, "routing: a T0-T1 link leaves the ECMP groups detect + converge after it "
			"failed, of every T0, and rejoins as late after it came back");
	/* 64 flows take 2.56 us to leave a host (40 ns each) and 2.9 us to cross (4 links of
	 * 500 ns, 3 switches of 300 ns): each phase below is over within 6 us */
	t_setup(&pl, &p, 1, 2, 4, 2);
	p.detect_ps = 20000000;	  /* 20 us */
	p.converge_ps = 10000000; /* 10 us */
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_sim *sim = mrc_fabric_sim(n->fab);
		int kk = mrc_sim_handler(sim, t_kick_ev, n);
		struct mrc_fab_fault f = {.kind = MRC_FAB_LINK_DOWN, .plane = 0, .tier = MRC_FAB_T0,
			.a = 0, .b = 1};
		struct mrc_fab_port_stats up01 = {0}, dn10 = {0}, up11 = {0};
		const struct mrc_fab_fault_rec *log;
		size_t nlog;
		/* of 64 flows 0 -> 2 (rack 0 to 1), those T0 0 hashes onto T1 1 in the full group
		 * of 4; of 64 flows 2 -> 0, those T0 1 does */
		unsigned lost = t_on_t1(&pl, 0, 2, 64, 0, 4, 1), back = t_on_t1(&pl, 2, 0, 64, 1, 4, 1);

		ST_TRUE(st, lost > 0 && back > 0); /* else the test proves nothing */
		/* t = 0: T0 0 - T1 1 down; 64 flows each way while routing still uses it */
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), 0);
		t_flows(n, &pl, 0, 2, 64);
		t_flows(n, &pl, 2, 0, 64);
		t_go(n, 4, 1);
		mrc_sim_run(sim, 29000000);
		ST_EQ(st, n->nrx, 128 - lost - back);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2 + 1, &up01);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T1, 1, 0, 0, &dn10);
		ST_EQ(st, up01.down_drops, lost); /* at T0 0's dead uplink */
		ST_EQ(st, dn10.down_drops, back); /* T0 1 sent them to T1 1, which has no way on */
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 1);
		ST_EQ(st, log[0].routed_ps, UINT64_MAX); /* not yet */
		/* t = 30 us: reconverged; flows sent at 31 us avoid T1 1 from both T0s */
		mrc_sim_at(sim, 31000000, (unsigned)kk, NULL, 0);
		t_flows(n, &pl, 0, 2, 64);
		t_flows(n, &pl, 2, 0, 64);
		mrc_sim_run(sim, 40000000);
		ST_EQ(st, log[0].routed_ps, 30000000);
		ST_EQ(st, n->nrx, 256 - lost - back);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 1, 0, 2 + 1, &up11);
		ST_EQ(st, up11.tx_pkts, back); /* T0 1 used T1 1 (for rack 0) only before */
		/* t = 45 us: back up; at 70 us still out of the groups, at 75 us in again */
		f.kind = MRC_FAB_LINK_UP;
		f.at_ps = 45000000;
		ST_EQ_I(st, mrc_fabric_schedule(n->fab, &f), 0);
		mrc_sim_at(sim, 70000000, (unsigned)kk, NULL, 0);
		t_flows(n, &pl, 0, 2, 64);
		mrc_sim_run(sim, 74900000);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 2);
		ST_EQ(st, log[1].routed_ps, UINT64_MAX);
		mrc_sim_run(sim, 79000000);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, log[1].routed_ps, 75000000);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2 + 1, &up01);
		ST_EQ(st, up01.tx_pkts, 0);
		ST_EQ(st, n->nrx, 320 - lost - back);
		mrc_sim_at(sim, 80000000, (unsigned)kk, NULL, 0);
		t_flows(n, &pl, 0, 2, 64);
		mrc_sim_run(sim, 90000000);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2 + 1, &up01);
		ST_EQ(st, up01.tx_pkts, lost); /* the full group's hash again */
		ST_EQ(st, n->nrx, 384 - lost - back);
		t_net_free(n);
	}

	mrc_st_case(st, "routing: an outage shorter than the detection time leaves the groups "
			"alone; a T1 down leaves every group");
	t_setup(&pl, &p, 1, 2, 4, 2);
	p.detect_ps = 20000000;
	p.converge_ps = 10000000;
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_sim *sim = mrc_fabric_sim(n->fab);
		int kk = mrc_sim_handler(sim, t_kick_ev, n);
		struct mrc_fab_fault f = {.kind = MRC_FAB_LINK_DOWN, .plane = 0, .tier = MRC_FAB_T0,
			.a = 0, .b = 1, .dir = MRC_FAB_DOWNWARD};
		struct mrc_fab_fault sw = {.kind = MRC_FAB_SWITCH_DOWN, .plane = 0,
			.tier = MRC_FAB_T1, .a = 2, .at_ps = 100000000};
		struct mrc_fab_port_stats up02 = {0}, up12 = {0};
		const struct mrc_fab_fault_rec *log;
		size_t nlog;

		/* down (T1 1 -> T0 0 only: BFD sees either direction) for 19 us */
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), 0);
		f.kind = MRC_FAB_LINK_UP;
		f.at_ps = 19000000;
		ST_EQ_I(st, mrc_fabric_schedule(n->fab, &f), 0);
		ST_EQ_I(st, mrc_fabric_schedule(n->fab, &sw), 0);
		mrc_sim_run(sim, 99000000);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 2);
		ST_EQ(st, log[0].routed_ps, UINT64_MAX);
		ST_EQ(st, log[1].routed_ps, UINT64_MAX);
		ST_EQ(st, n->fab->rt_usable[0], 0xF);
		ST_EQ(st, n->fab->rt_usable[1], 0xF);
		/* T1 2 down at 100 us: at 131 us no T0 sends to it */
		mrc_sim_at(sim, 131000000, (unsigned)kk, NULL, 0);
		t_flows(n, &pl, 0, 2, 64);
		t_flows(n, &pl, 2, 0, 64);
		mrc_sim_run(sim, 140000000);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 3);
		ST_EQ(st, log[2].routed_ps, 130000000);
		ST_EQ(st, n->fab->rt_usable[0], 0xB);
		ST_EQ(st, n->fab->rt_usable[1], 0xB);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2 + 2, &up02);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 1, 0, 2 + 2, &up12);
		ST_EQ(st, up02.tx_pkts + up02.down_drops + up12.tx_pkts + up12.down_drops, 0);
		ST_EQ(st, n->nrx, 128);
		t_net_free(n);
	}

	mrc_st_case(st, "ECMP seeds: hashing only the destination, one seed everywhere sends a "
			"host's traffic from every rack through one T1; a seed per switch spreads it");
	for (int per_switch = 0; per_switch < 2; per_switch++) {
		unsigned spread = 0; /* destinations reached through more than one T1 */

		t_setup(&pl, &p, 1, 4, 4, 2); /* racks 0-3 of hosts 2r, 2r + 1; T1s 0-3 */
		p.ecmp_fields = MRC_ECMP_DST;
		p.ecmp_per_switch = per_switch;
		n = t_net_new(st, &p);
		if (!n)
			break;
		for (uint32_t d = 0; d < 2; d++) {
			struct mrc_fab_port_stats b[4] = {{0}}, a = {0};
			unsigned via = 0;

			for (unsigned j = 0; j < 4; j++)
				mrc_fabric_port_stats(n->fab, MRC_FAB_T1, j, 0, 0, &b[j]);
			for (uint32_t r = 1; r < 4; r++) /* one flow from each other rack */
				t_flows(n, &pl, 2 * r, d, 1);
			t_go(n, 8, 1);
			mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
			for (unsigned j = 0; j < 4; j++) {
				mrc_fabric_port_stats(n->fab, MRC_FAB_T1, j, 0, 0, &a);
				via += a.tx_pkts > b[j].tx_pkts;
			}
			ST_TRUE(st, via >= 1);
			spread += via > 1;
		}
		ST_EQ(st, n->nrx, 6);
		/* one seed: every T0 computes the same hash of the same destination. Seeds of
		 * their own: the 3 racks agree on both destinations with probability
		 * (1/4 x 1/4)^2 = 1/256 for a uniform hash */
		if (per_switch)
			ST_TRUE(st, spread > 0);
		else
			ST_EQ(st, spread, 0);
		t_net_free(n);
	}

	mrc_st_case(st, "partition: lookahead 500 ns + 5.12 ns (a PFC frame at 100 Gb/s, less "
			"than the 300 ns switch); 2 of 3 racks' workers; 4 workers, or no "
			"lookahead, refused; host 2 on worker 1 (racks 0, 1 | 2)");
	for (int k = 0; k < 3; k++) {
		struct mrc_fabric *fab = NULL;

		t_setup(&pl, &p, 1, 3, 2, 1);
		if (k == 2)
			p.fabric_delay_ps = p.switch_delay_ps = 0;
		ST_EQ(st, mrc_fabric_new(&p, &t_ops, NULL, &fab), 0);
		if (!fab)
			continue;
		if (k == 0) {
			ST_EQ(st, mrc_fabric_lookahead(fab), 505120);
			ST_EQ(st, mrc_fabric_partition(fab, 4), -ERANGE);
			ST_EQ(st, mrc_fabric_partition(fab, 2), 0);
			ST_EQ(st, mrc_sim_workers(mrc_fabric_sim(fab)), 2);
			ST_EQ(st, mrc_fabric_host_worker(fab, 0), 0);
			ST_EQ(st, mrc_fabric_host_worker(fab, 1), 0);
			ST_EQ(st, mrc_fabric_host_worker(fab, 2), 1);
		} else if (k == 1) {
			ST_EQ(st, mrc_fabric_partition(fab, 1), 0); /* serial: nothing to do */
			ST_EQ(st, mrc_sim_workers(mrc_fabric_sim(fab)), 1);
		} else {
			ST_EQ(st, mrc_fabric_lookahead(fab), 0);
			ST_EQ(st, mrc_fabric_partition(fab, 2), -EDOM);
		}
		mrc_fabric_free(fab);
		mrc_srv6_plan_free(pl.plan);
	}
}

/* ---- PFC and ECN marking (docs/pfc.md) ------------------------------------------------ */

/*
 * Greedy hosts: flow k sends plain data packets of @len bytes (DSCP 0, ECT(0)) from host
 * src[k] to host dst[k] whenever src[k]'s NIC port (plane 0) pulls, round robin over the
 * flows of a host, without end: line-rate sources with no congestion control. The
 * receivers count bytes per flow (by UDP source port = k) between from_ps and to_ps.
 */
#define T_GFLOWS 8

struct t_greedy {
	struct t_plan pl;
	struct mrc_fabric *fab;
	unsigned nfl;
	uint32_t src[T_GFLOWS], dst[T_GFLOWS], len;
	unsigned rr[T_MAXH];
	uint32_t psn[T_GFLOWS];
	uint64_t from_ps, to_ps;
	uint64_t rx_bytes[T_GFLOWS], rx_pkts[T_GFLOWS], rx_ce[T_GFLOWS];
	uint8_t ce0[256]; /* flow 0: whether PSN i (< 256) arrived CE-marked */
	uint64_t at1[64];  /* flow 1: when PSN i (< 64) arrived */
	uint32_t flen[T_GFLOWS]; /* flow k's packet length; 0: len */
	unsigned ctl_left[T_MAXH]; /* control packets (ACK opcode) a host sends first */
	uint64_t ctl_tx[T_MAXH], ctl_rx;
	uint64_t tx_bytes[T_MAXH]; /* data bytes each host sent */
	uint64_t left[T_GFLOWS];   /* packets flow k may still send; 0: without end */
	bool limited;		   /* flows stop when their left runs out */
	bool with_ctrl_op;
};

static size_t t_gr_tx_one(struct t_greedy *g, uint32_t host, uint8_t *buf, size_t cap, bool ctrl)
{
	if (g->ctl_left[host]) {
		g->ctl_left[host]--;
		g->ctl_tx[host]++;
		return t_build(buf, 100, NULL, NULL, 0, 0, &g->pl.addr[host],
			&g->pl.addr[(host + 1) % T_MAXH], 99, MRC_OP_ACK, 0);
	}
	if (ctrl)
		return 0;
	for (unsigned i = 0; i < g->nfl; i++) {
		unsigned k = (g->rr[host] + i) % g->nfl;

		if (g->src[k] != host || (g->flen[k] ? g->flen[k] : g->len) > cap ||
			(g->limited && !g->left[k]))
			continue;
		uint32_t len = g->flen[k] ? g->flen[k] : g->len;

		g->rr[host] = k + 1;
		g->left[k] -= g->limited;
		g->tx_bytes[host] += len;
		return t_build(buf, len, NULL, NULL, 0, 0, &g->pl.addr[host],
			&g->pl.addr[g->dst[k]], (uint16_t)k, 0xCA, g->psn[k]++);
	}
	return 0;
}

static size_t t_gr_tx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *gt)
{
	(void)plane, (void)now, (void)gt;
	return t_gr_tx_one(ctx, host, buf, cap, false);
}

static size_t t_gr_tx_ctrl(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap)
{
	(void)plane, (void)now;
	return t_gr_tx_one(ctx, host, buf, cap, true);
}

static void t_gr_rx(
	void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_greedy *g = ctx;
	uint16_t k = get_be16(buf + 40);

	(void)host, (void)plane;
	if (buf[48] == MRC_OP_ACK) {
		g->ctl_rx++;
		return;
	}
	if (k >= g->nfl || now < g->from_ps || now >= g->to_ps)
		return;
	g->rx_bytes[k] += len;
	g->rx_pkts[k]++;
	g->rx_ce[k] += (ip6_tc(buf) & 3) == 3;
	if (k == 1 && get_be24(buf + 48 + 9) < 64)
		g->at1[get_be24(buf + 48 + 9)] = now;
	if (k == 0 && get_be24(buf + 48 + 9) < 256)
		g->ce0[get_be24(buf + 48 + 9)] = (ip6_tc(buf) & 3) == 3;
}

static const struct mrc_fab_host_ops t_gr_ops = {
	t_gr_rx, t_gr_tx, NULL, NULL, NULL, NULL, NULL, NULL};
static const struct mrc_fab_host_ops t_gr_ops_ctl = {
	t_gr_rx, t_gr_tx, NULL, NULL, t_gr_tx_ctrl, NULL, NULL, NULL};

/* Builds the fabric for @g (t_setup already filled @p and g->pl) and starts every sender. */
static bool t_gr_start(struct mrc_st *st, struct t_greedy *g, const struct mrc_fabric_params *p)
{
	ST_EQ_I(st, mrc_fabric_new(p, g->with_ctrl_op ? &t_gr_ops_ctl : &t_gr_ops, g, &g->fab), 0);
	if (!g->fab)
		return false;
	for (unsigned k = 0; k < g->nfl; k++)
		mrc_fabric_kick(g->fab, g->src[k], 0);
	for (unsigned h = 0; h < T_MAXH; h++)
		if (g->ctl_left[h])
			mrc_fabric_kick(g->fab, h, 0);
	return true;
}

static void t_gr_free(struct t_greedy *g)
{
	mrc_fabric_free(g->fab);
	mrc_srv6_plan_free(g->pl.plan);
	g->fab = NULL;
}

/* A 1000 B data packet with ECT(0) for the marking tests, parsed as the fabric does. */
static struct fab_pkt *t_ecn_pkt(uint8_t *slot, const struct t_plan *pl)
{
	struct fab_pkt *q = (struct fab_pkt *)slot;

	t_build(q->data, 1000, NULL, NULL, 0, 0, &pl->addr[0], &pl->addr[1], 1, 0xCA, 0);
	q->len = q->hlen = 1000;
	pkt_parse(q);
	return q;
}

/*
 * The hand timeline's fabric (suite pfc): 1 plane, 2 T0 of @hpt hosts, 1 T1; host links
 * 200 Gb/s, T0-T1 links 100 Gb/s, no trimming; PFC on (@pfc) at xoff 2500 B, xon 1500 B,
 * headroom @headroom; flow 0: h0 to the first host of T0 1, 1000 B packets.
 */
static void t_pfc_line(struct t_greedy *g, struct mrc_fabric_params *p, unsigned hpt, bool pfc,
	uint32_t headroom)
{
	memset(g, 0, sizeof(*g));
	t_setup(&g->pl, p, 1, 2, 1, hpt);
	p->host_rate_bps = 200000000000ull;
	p->fabric_rate_bps = 100000000000ull;
	p->trim = false;
	p->pfc.enabled = pfc;
	p->pfc.xoff_bytes = 2500;
	p->pfc.xon_bytes = 1500;
	p->pfc.headroom_bytes = headroom;
	g->len = 1000;
	g->nfl = 1;
	g->src[0] = 0, g->dst[0] = hpt;
}

MRC_SELFTEST(pfc)
{
	struct mrc_fabric_params p;
	static struct t_greedy g;
	struct mrc_fab_pfc_stats ps, pt;
	struct mrc_fab_port_stats os;

	/*
	 * Hand timeline. h0 (T0 0) sends 1000 B packets to h1 (T0 1) over host links of
	 * 200 Gb/s (40 ns a packet, 2.56 ns a 64 B PFC frame) and T0-T1 links of 100 Gb/s
	 * (80 ns): T0 0's uplink is the bottleneck, h0's link its only ingress. Link delay
	 * 500 ns, switch 300 ns. Packet k leaves h0 at 40k ns and enters T0 0's uplink queue
	 * at 40k + 40 + 500 + 300 = 840 + 40k; the uplink starts packet j at 840 + 80j (an
	 * arrival runs before a start at the same instant: it was scheduled first). So just
	 * after arrival k = 2j the ingress holds (k + 1) - j packets: 3000 B > xoff 2500 B at
	 * k = 4, 1000 ns: XOFF on the idle T0 0 -> h0 link, at h0 at 1000 + 2.56 + 500 =
	 * 1502.56 ns. h0 has started packets 0..37 (37 at 1480 ns; 38 would be 1520 ns). The
	 * last arrives at 2320 ns, the ingress then at 38 - 19 = 19 packets: 19000 B, its
	 * peak. Start j = 36 at 3720 ns leaves 1000 B <= xon 1500 B (j = 35: 2000 B): XON at
	 * 3720 ns, at h0 at 4222.56 ns. Paused 2720 ns; packet 38 leaves h0 then.
	 */
	mrc_st_case(st, "hand timeline: XOFF at 1000 ns reaches h0 at 1502.56 ns after 38 "
			"packets, XON at 3720 ns at 4222.56 ns: 2720 ns paused, peak 19000 B");
	/* headroom: the rule (mrc_job_pfc_headroom), 1000 + 25 B/ns x (2 x 40 + 2.56 + 2 x
	 * 500 + 300) ns */
	t_pfc_line(&g, &p, 1, true, 35564);
	if (t_gr_start(st, &g, &p)) {
		mrc_sim_run(mrc_fabric_sim(g.fab), 1502559);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_T0, 0, 0, 0, &pt);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		ST_EQ(st, pt.pause_tx, 1);  /* sent by T0 0 to h0 */
		ST_EQ(st, ps.pause_rx, 0);  /* still on its way */
		mrc_sim_run(mrc_fabric_sim(g.fab), 4222559);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		ST_EQ(st, ps.pause_rx, 1);
		ST_EQ(st, ps.resume_rx, 0);
		ST_EQ(st, g.tx_bytes[0], 38 * 1000);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_T0, 0, 0, 0, &pt);
		ST_EQ(st, pt.resume_tx, 1); /* at 3720 ns */
		mrc_sim_run(mrc_fabric_sim(g.fab), 4222560);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		ST_EQ(st, ps.resume_rx, 1);
		ST_EQ(st, ps.paused_ps[MRC_FAB_DATA], 2720000);
		ST_EQ(st, ps.paused_ps[MRC_FAB_CTRL], 0);
		ST_EQ(st, ps.max_ingress_bytes, 19000);
		ST_EQ(st, ps.headroom_drops, 0);
		ST_EQ(st, g.tx_bytes[0], 39 * 1000); /* packet 38, at 4222.56 ns */
		/* the T0-T1 link was never paused: T1 passes it on at the same rate */
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_T0, 0, 0, 1, &pt);
		ST_EQ(st, pt.pause_rx, 0);
		t_gr_free(&g);
	}

	/*
	 * The PFC frame takes the reverse link after the packet on it: as above (h0 on T0 0
	 * sends to h2 on T0 1), and h1, also on T0 0, sends 1500 B packets to h0 at 200 Gb/s
	 * (60 ns each), which keep T0 0 -> h0 busy: h1's packet m enters it at 860 + 60m ns.
	 * At the XOFF (1000 ns) m = 2 is on it until 1040 ns: the frame goes 1040-1042.56 ns,
	 * reaches h0 at 1542.56 ns, after h0 started packet 38 (1520 ns): 39 packets, the
	 * ingress peak 39 - 19 = 20 packets, XON at the start of j = 37 (3800 ns: 1000 B left).
	 * h1's packets from m = 3 wait 2.56 ns for the frame: m starts at 1042.56 + 60 (m - 3),
	 * reaches h0 60 + 500 ns later (m = 2 at 1540, m = 3 at 1602.56 ns). At 3800 ns m = 48
	 * is on the link until 3802.56 ns and m = 49 arrives (before the uplink's start: it
	 * was scheduled first) and waits: the XON goes 3802.56-3805.12 ns, reaches h0 at
	 * 4305.12 ns (2762.56 ns paused), and m = 49 starts at 3805.12 ns, at h0 at 4365.12 ns.
	 */
	mrc_st_case(st, "a PFC frame waits for the reverse link's packet and delays the next: "
			"XOFF at h0 at 1542.56 ns after 39 packets, XON at 4305.12 ns");
	t_pfc_line(&g, &p, 2, true, 35564);
	g.nfl = 2;
	g.src[1] = 1, g.dst[1] = 0, g.flen[1] = 1500;
	g.to_ps = MRC_SIM_NEVER;
	if (t_gr_start(st, &g, &p)) {
		mrc_sim_run(mrc_fabric_sim(g.fab), 1542559);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		ST_EQ(st, ps.pause_rx, 0);
		mrc_sim_run(mrc_fabric_sim(g.fab), 4305120);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		ST_EQ(st, ps.pause_rx, 1);
		ST_EQ(st, ps.resume_rx, 1);
		ST_EQ(st, ps.paused_ps[MRC_FAB_DATA], 2762560);
		ST_EQ(st, ps.max_ingress_bytes, 20000);
		ST_EQ(st, g.tx_bytes[0], 40 * 1000); /* 0..38, and 39 at 4305.12 ns */
		ST_EQ(st, g.at1[2], 1540000);
		ST_EQ(st, g.at1[3], 1602560);
		mrc_sim_run(mrc_fabric_sim(g.fab), 4400000);
		ST_EQ(st, g.at1[49], 4365120);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 1, 0, 0, &ps); /* h1: never paused */
		ST_EQ(st, ps.pause_rx, 0);
		ST_TRUE(st, ps.max_ingress_bytes <= 1500);
		t_gr_free(&g);
	}

	/*
	 * The same with headroom 10000 B: an arrival finding the ingress at 12000 B is
	 * dropped (13000 > 12500). Arrival k = 2j finds (k + 1) - j - 1 packets: 12000 B at
	 * k = 24 (j = 12, the start at that instant runs after it), then every even k: 24,
	 * 26, ..., 36 (37 is the last before the pause): 7 drops, counted on h0's link, no
	 * other drops; the pause comes as before.
	 */
	mrc_st_case(st, "headroom 10000 B: 7 packets dropped at the ingress (k = 24, 26, .., 36), "
			"counted as headroom drops of h0's link");
	t_pfc_line(&g, &p, 1, true, 10000);
	if (t_gr_start(st, &g, &p)) {
		mrc_sim_run(mrc_fabric_sim(g.fab), 3000000);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		mrc_fabric_port_totals(g.fab, &os);
		ST_EQ(st, ps.headroom_drops, 7);
		ST_EQ(st, ps.max_ingress_bytes, 12000);
		ST_EQ(st, ps.pause_rx, 1);
		ST_EQ(st, os.drops, 0);
		ST_EQ(st, g.tx_bytes[0], 38 * 1000);
		t_gr_free(&g);
	}

	/*
	 * Control packets keep flowing on their own priority (control: lossy): h0, paused
	 * for data from 1502.56 ns, has 3 ACKs to send at 2000 ns; its NIC pulls them
	 * (tx_ctrl) and no data, and they reach their host. Without tx_ctrl it waits for the
	 * resume (4222.56 ns), as with the control class lossless and paused.
	 */
	for (int op = 1; op >= 0; op--) {
		mrc_st_case(st, "while paused for data, a NIC port %s",
			op ? "sends its control packets (tx_ctrl)"
			   : "without tx_ctrl sends nothing");
		t_pfc_line(&g, &p, 1, true, 35564);
		g.with_ctrl_op = op;
		if (!t_gr_start(st, &g, &p))
			continue;
		mrc_sim_run(mrc_fabric_sim(g.fab), 2000000);
		g.ctl_left[0] = 3;
		mrc_fabric_kick(g.fab, 0, 0);
		mrc_sim_run(mrc_fabric_sim(g.fab), 4222559);
		ST_EQ(st, g.ctl_tx[0], op ? 3 : 0);
		ST_EQ(st, g.tx_bytes[0], 38 * 1000);
		mrc_sim_run(mrc_fabric_sim(g.fab), 10000000);
		ST_EQ(st, g.ctl_tx[0], 3);
		ST_EQ(st, g.ctl_rx, 3);
		t_gr_free(&g);
	}

	/*
	 * A link that fails forgets its pauses (as real pause timers would lapse): h0's link
	 * goes down at 2000 ns, h0 paused since 1502.56 ns: unpaused then (497.44 ns
	 * paused). Packet 37 (its last bit due at 540 + 40 x 37 = 2020 ns) is lost on it;
	 * 29..31, entering the queue at 2000-2080 ns, find the ingress above xoff but the
	 * link down: no XOFF leaves. Up at 2100 ns: h0 sends 38, 39, .. every 40 ns; the
	 * arrival of 32 at 2120 ns pauses it anew (at h0 at 2622.56 ns) after 38..51. The
	 * flow of 60 packets ends; all but 37 arrive.
	 */
	mrc_st_case(st, "a failed link forgets its pauses: unpaused at the failure, paused anew "
			"by the first arrival after it; 59 of 60 packets delivered, 1 lost on it");
	t_pfc_line(&g, &p, 1, true, 35564);
	g.limited = true;
	g.left[0] = 60;
	g.to_ps = MRC_SIM_NEVER;
	if (t_gr_start(st, &g, &p)) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_LINK_DOWN, .at_ps = 2000000,
			.plane = 0, .tier = MRC_FAB_HOST, .a = 0};

		ST_EQ_I(st, mrc_fabric_schedule(g.fab, &f), 0);
		f.kind = MRC_FAB_LINK_UP;
		f.at_ps = 2100000;
		ST_EQ_I(st, mrc_fabric_schedule(g.fab, &f), 0);
		mrc_sim_run(mrc_fabric_sim(g.fab), 2000000);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		ST_EQ(st, ps.paused_ps[MRC_FAB_DATA], 497440);
		mrc_sim_run(mrc_fabric_sim(g.fab), 2622559);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_T0, 0, 0, 0, &pt);
		ST_EQ(st, pt.pause_tx, 2);
		ST_EQ(st, ps.pause_rx, 1);
		ST_EQ(st, g.tx_bytes[0], 52 * 1000);
		mrc_sim_run(mrc_fabric_sim(g.fab), 2622560);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		ST_EQ(st, ps.pause_rx, 2);
		mrc_sim_run(mrc_fabric_sim(g.fab), MRC_SIM_NEVER);
		mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, 0, 0, 0, &ps);
		mrc_fabric_port_totals(g.fab, &os);
		ST_EQ(st, g.tx_bytes[0], 60 * 1000);
		ST_EQ(st, g.rx_pkts[0], 59);
		ST_EQ(st, os.lost, 1);
		ST_EQ(st, os.drops + os.down_drops + ps.headroom_drops, 0);
		t_gr_free(&g);
	}

	/*
	 * Head-of-line blocking. 1 plane, 4 T0 with 2 hosts each, 1 T1; host links 100 Gb/s,
	 * T0-T1 links 400 Gb/s. Incast: h0 (T0 0) and h2 (T0 1) send to h6 (T0 3); victims:
	 * h1 (T0 0) to h7 and h3 (T0 1) to h5, whose own paths are free. Greedy 2000 B
	 * packets. No link but h6's carries more than its rate (T1 -> T0 3: 300 of 400 Gb/s).
	 * Lossy: h6's port drops half the incast, the victims run at line rate. PFC: h6's
	 * backlog pauses T1 -> T0 3, T1's backlog the two T0 uplinks, theirs the four NICs;
	 * the victims' packets wait in the same FIFOs as the incast's, which drains at h6's
	 * 100 Gb/s. By symmetry each victim gets what the incast flow beside it on its T0
	 * gets, so the victims together get the incast's 100 Gb/s: half their line rate on
	 * average, instead of all of it. Measured over 100-1100 us. The headroom is the rule's
	 * for the 400 Gb/s links: 2000 + 50 B/ns x (2 x 40 + 1.28 + 2 x 500 + 300) ns.
	 */
	for (int pfc = 0; pfc < 2; pfc++) {
		const double line = 100e9 / 8 * 1e-3; /* bytes at 100 Gb/s in the 1 ms window */
		uint64_t now;

		mrc_st_case(st, "HoL, %s: %s", pfc ? "PFC" : "lossy",
			pfc ? "victims slowed to the incast's share (together 100 Gb/s), no drop, "
			      "pauses reach the 4 NICs, NIC bytes = line rate x unpaused time"
			    : "victims at line rate, the incast dropped at h6's port");
		memset(&g, 0, sizeof(g));
		t_setup(&g.pl, &p, 1, 4, 1, 2);
		p.host_rate_bps = 100000000000ull;
		p.fabric_rate_bps = 400000000000ull;
		p.trim = false;
		p.buffer_bytes = 200000;
		p.pfc.enabled = pfc;
		p.pfc.xoff_bytes = 20000;
		p.pfc.xon_bytes = 16000;
		p.pfc.headroom_bytes = 71064;
		g.len = 2000;
		g.nfl = 4;
		g.src[0] = 0, g.dst[0] = 6; /* incast */
		g.src[1] = 2, g.dst[1] = 6;
		g.src[2] = 1, g.dst[2] = 7; /* victims: beside flows 0 and 1 */
		g.src[3] = 3, g.dst[3] = 5;
		g.from_ps = 100000000;
		g.to_ps = 1100000000;
		if (!t_gr_start(st, &g, &p))
			continue;
		mrc_sim_run(mrc_fabric_sim(g.fab), g.to_ps);
		now = mrc_sim_now(mrc_fabric_sim(g.fab));
		mrc_fabric_port_totals(g.fab, &os);
		if (!pfc) {
			ST_TRUE(st, g.rx_bytes[2] >= 0.99 * line && g.rx_bytes[3] >= 0.99 * line);
			ST_TRUE(st, os.drops > 0);
			ST_EQ_D(st, (double)(g.rx_bytes[0] + g.rx_bytes[1]), line, 0.01 * line);
			t_gr_free(&g);
			continue;
		}
		ST_EQ(st, os.drops + os.down_drops + os.lost, 0);
		ST_EQ_D(st, (double)(g.rx_bytes[0] + g.rx_bytes[1]), line, 0.01 * line);
		ST_EQ_D(st, (double)(g.rx_bytes[2] + g.rx_bytes[3]), line, 0.01 * line);
		ST_EQ_D(st, (double)g.rx_bytes[2], (double)g.rx_bytes[0], 0.01 * g.rx_bytes[0]);
		ST_EQ_D(st, (double)g.rx_bytes[3], (double)g.rx_bytes[1], 0.01 * g.rx_bytes[1]);
		ST_TRUE(st, g.rx_bytes[2] < 0.6 * line && g.rx_bytes[3] < 0.6 * line);
		for (uint32_t h = 0; h < 8; h++) {
			double free_b;

			mrc_fabric_pfc_stats(g.fab, MRC_FAB_HOST, h, 0, 0, &ps);
			ST_EQ(st, ps.headroom_drops, 0);
			ST_TRUE(st, (ps.pause_rx > 0) == (h < 4));
			/* a paused NIC starts no data packet; unpaused, a greedy one is never
			 * idle: what it sent is the line rate over its unpaused time, give or
			 * take a packet under way at each pause and at the end */
			free_b = (double)(now - ps.paused_ps[MRC_FAB_DATA]) * 100e9 / 8e12;
			if (h >= 4) /* not a sender */
				continue;
			ST_TRUE(st, (double)g.tx_bytes[h] >= free_b - g.len &&
					    (double)g.tx_bytes[h] <=
						    free_b + (ps.pause_rx + 1) * g.len);
		}
		for (uint32_t i = 0; i < 4; i++) {
			mrc_fabric_pfc_stats(g.fab, MRC_FAB_T0, i, 0, 2, &ps); /* uplink */
			ST_TRUE(st, (ps.pause_rx > 0) == (i < 2));
			ST_EQ(st, ps.headroom_drops, 0);
			mrc_fabric_pfc_stats(g.fab, MRC_FAB_T1, 0, 0, i, &ps); /* down to T0 i */
			ST_TRUE(st, (ps.pause_rx > 0) == (i == 3));
			ST_EQ(st, ps.headroom_drops, 0);
		}
		t_gr_free(&g);
	}
}

MRC_SELFTEST(ecn)
{
	struct mrc_fabric_params p;
	static struct t_greedy g;
	struct t_plan pl;
	struct mrc_fabric *fab = NULL;
	static uint8_t slot[sizeof(struct fab_pkt) + 1000] __attribute__((aligned(64)));

	mrc_st_case(st, "marking probability, closed form (DCQCN: Kmin 5 KB, Kmax 200 KB, Pmax "
			"1%%): 0 to Kmin, Pmax (q - Kmin) / (Kmax - Kmin) to Kmax, 1 above; "
			"a step");
	mrc_fabric_defaults(&p);
	p.ecn_kmin_bytes = 5000;
	p.ecn_kmax_bytes = 200000;
	p.ecn_pmax = 0.01;
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 0), 0, 0);
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 5000), 0, 0);
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 5001), 0.01 / 195000, 1e-15);
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 53750), 0.0025, 1e-15);
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 102500), 0.005, 1e-15);
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 200000), 0.01, 1e-15);
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 200001), 1, 0);
	p.ecn_kmin_bytes = p.ecn_kmax_bytes = 1000; /* the step of ecn_threshold */
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 1000), 0, 0);
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 1001), 1, 0);
	p.ecn_kmin_bytes = p.ecn_kmax_bytes = 0; /* off */
	ST_EQ_D(st, mrc_fabric_ecn_prob(&p, 1u << 30), 0, 0);

	/*
	 * n = 400000 ECT packets each at three backlogs where p = 0.25%, 0.5% and 1%: the
	 * marks are binomial(n, p); a correct marker falls within 4 standard deviations,
	 * 4 sqrt(n p (1 - p)) (31.6, 44.6, 62.9 for a mean of 1000, 2000, 4000), but with
	 * probability 6e-5 (normal approximation; the seed fixes the draws). A probability
	 * 10% off (100, 200, 400 marks) falls outside. At and below Kmin none, above Kmax all.
	 */
	mrc_st_case(st, "marking frequency of 400000 packets at p = 0.25%%, 0.5%%, 1%% within "
			"4 sd of n p; none at Kmin, all above Kmax; a step draws nothing");
	t_setup(&pl, &p, 1, 1, 1, 2);
	p.ecn_kmin_bytes = 5000;
	p.ecn_kmax_bytes = 200000;
	p.ecn_pmax = 0.01;
	ST_EQ_I(st, mrc_fabric_new(&p, &t_ops, NULL, &fab), 0);
	if (fab) {
		static const uint32_t qs[] = {53750, 102500, 200000, 5000, 200001};
		static const double ps_[] = {0.0025, 0.005, 0.01, 0, 1};
		const unsigned n = 400000;
		struct fab_pkt *q = t_ecn_pkt(slot, &pl);
		struct mrc_rng before;

		for (unsigned i = 0; i < 5; i++) {
			unsigned marks = 0, wrong = 0;

			for (unsigned k = 0; k < n; k++) {
				bool m;

				ip6_set_tc(q->data, 2); /* ECT(0) again */
				m = mark_ce(fab, &fab->rng[1], q, qs[i]);
				marks += m;
				wrong += (ip6_tc(q->data) & 3) != (m ? 3 : 2); /* CE iff marked */
			}
			ST_EQ(st, wrong, 0);
			ST_EQ_D(st, marks, n * ps_[i], 4 * sqrt(n * ps_[i] * (1 - ps_[i])));
		}
		ip6_set_tc(q->data, 0); /* not ECN-capable: never marked */
		ST_TRUE(st, !mark_ce(fab, &fab->rng[1], q, 300000));
		fab->p.ecn_kmin_bytes = fab->p.ecn_kmax_bytes = 100000;
		before = fab->rng[1];
		ip6_set_tc(q->data, 2);
		ST_TRUE(st, !mark_ce(fab, &fab->rng[1], q, 100000));
		ST_TRUE(st, mark_ce(fab, &fab->rng[1], q, 100001));
		ST_TRUE(st, !memcmp(&before, &fab->rng[1], sizeof(before)));
		mrc_fabric_free(fab);
	}
	mrc_srv6_plan_free(pl.plan);

	/*
	 * Through the queue: h0 sends 100 packets of 1000 B at 200 Gb/s into T0 0's 100 Gb/s
	 * uplink (the hand timeline of the PFC cases, PFC off): packet k finds 1000 floor(k/2)
	 * bytes queued (arrival k at 840 + 40k ns, the uplink's starts at 840 + 80j before
	 * it: ceil(k/2) of k). Kmin 5000, Kmax 40000, Pmax 0.5: replaying the fabric's seeded
	 * generator with the closed form above (a draw only strictly between Kmin and Kmax)
	 * gives exactly which arrive CE-marked; no other port has a backlog.
	 */
	mrc_st_case(st, "a burst through T0 0's uplink: the packets marked are those the closed "
			"form and the seeded draws give at backlog 1000 floor(k/2)");
	t_pfc_line(&g, &p, 1, false, 0);
	p.ecn_kmin_bytes = 5000;
	p.ecn_kmax_bytes = 40000;
	p.ecn_pmax = 0.5;
	p.seed = 7;
	g.limited = true;
	g.left[0] = 100;
	g.to_ps = MRC_SIM_NEVER;
	if (t_gr_start(st, &g, &p)) {
		struct mrc_rng r;
		unsigned want = 0, diff = 0;

		/* T0 0 of plane 0 is entity 1 (switches from 1, in plane order): its
		 * generator's seed is the fabric's mixed with its number (mrc/sim/fabric.h) */
		uint64_t x = 7 ^ 0xD1B54A32D192ED03ull;

		mrc_sim_run(mrc_fabric_sim(g.fab), MRC_SIM_NEVER);
		mrc_rng_seed(&r, mrc_splitmix64(&x));
		for (uint32_t k = 0; k < 100; k++) {
			uint32_t qb = 1000 * (k / 2);
			bool m = qb > 40000;

			if (qb > 5000 && qb <= 40000)
				m = (double)(mrc_rng_next(&r) >> 11) <
				    0.5 * (qb - 5000) / 35000.0 * 9007199254740992.0;
			want += m;
			diff += m != g.ce0[k];
		}
		ST_EQ(st, g.rx_pkts[0], 100);
		ST_EQ(st, diff, 0);
		ST_EQ(st, g.rx_ce[0], want);
		ST_TRUE(st, want > 20 && want < 100);
		t_gr_free(&g);
	}
}

/* ---- ranks (mrc_fabric_ranks; docs/architecture.md "Parallel simulation") ------------ */

/*
 * A job over 2 racks (1 plane, 2 T0, 2 T1, 2 hosts a T0: T0 0, T1 0 and hosts 0-1 on rank
 * 0, T0 1, T1 1 and hosts 2-3 on rank 1): hosts 0 and 1 each send T_RK_N plain
 * 1000-byte data packets to host 2, host 3 to host 0, gathered (100 header bytes, 896
 * payload bytes at pay[h][k], distinct), ECMP over both T1s, so packets cross ranks both
 * ways, before and after a T1. A host records each arrival: time, lengths and a digest of
 * its headers and payload bytes (zeros when none) as rx_gather hands them.
 */
#define T_RK_N 24
#define T_RK_HLEN 100
#define T_RK_PAY 896

struct t_rkrx {
	uint64_t t, sum;
	uint32_t len, hlen;
};

struct t_rk {
	struct t_plan pl;
	struct mrc_fabric *fab;
	uint8_t hdr[4][T_RK_N][T_RK_HLEN];
	uint8_t pay[4][T_RK_N][T_RK_PAY];
	unsigned sent[4];
	struct t_rkrx rx[4][3 * T_RK_N];
	unsigned nrx[4];
	unsigned tokens; /* pay_token calls */
};

static size_t t_rk_tx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g)
{
	struct t_rk *r = ctx;
	unsigned k = r->sent[host];

	(void)plane, (void)now, (void)cap;
	if (host == 2 || k == T_RK_N)
		return 0;
	r->sent[host]++;
	memcpy(buf, r->hdr[host][k], T_RK_HLEN);
	g->hlen = T_RK_HLEN;
	g->payload = r->pay[host][k];
	g->payload_len = T_RK_PAY; /* then the 4 ICRC bytes, zeros */
	return 1000;
}

static uint64_t t_rk_mix(uint64_t s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s = (s ^ (b ? b[i] : 0)) * 0x100000001B3ull; /* FNV-1a */
	return s;
}

static void t_rk_rx(void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len,
	const struct mrc_wire_gather *g, uint64_t now)
{
	struct t_rk *r = ctx;
	struct t_rkrx *x;

	(void)plane;
	if (r->nrx[host] == 3 * T_RK_N)
		return;
	x = &r->rx[host][r->nrx[host]++];
	x->t = now;
	x->len = (uint32_t)len;
	x->hlen = g->hlen;
	x->sum = t_rk_mix(t_rk_mix(0xCBF29CE484222325ull, buf, g->hlen), g->payload,
		g->payload_len);
}

/* Tokens: a payload's place as (host, packet), back to this process's copy of it. */
static void t_rk_token(void *ctx, const uint8_t *pay, uint32_t len,
	uint8_t tok[MRC_FAB_PAY_TOKEN])
{
	struct t_rk *r = ctx;
	uint64_t off = (uint64_t)(pay - &r->pay[0][0][0]);

	r->tokens++;
	memcpy(tok, &off, sizeof(off));
	memcpy(tok + 8, &len, sizeof(len)); /* the rest of the token carries what it likes */
}

static const uint8_t *t_rk_from_token(void *ctx, const uint8_t tok[MRC_FAB_PAY_TOKEN],
	uint32_t len)
{
	struct t_rk *r = ctx;
	uint64_t off;
	uint32_t tlen;

	memcpy(&off, tok, sizeof(off));
	memcpy(&tlen, tok + 8, sizeof(tlen));
	return off < sizeof(r->pay) && tlen == len ? &r->pay[0][0][0] + off : NULL;
}

static const struct mrc_fab_host_ops t_rk_ops[2] = {
	{NULL, t_rk_tx, NULL, t_rk_rx, NULL, NULL, NULL, NULL},
	{NULL, t_rk_tx, NULL, t_rk_rx, NULL, NULL, t_rk_token, t_rk_from_token}};

/* Mode 0: trims and ECN marks (lossy); 1: PFC; 2: as 0, payloads crossing as tokens. */
static struct t_rk *t_rk_new(struct mrc_st *st, int mode)
{
	struct t_rk *r = calloc(1, sizeof(*r));
	struct mrc_fabric_params p;

	if (!r)
		return NULL;
	t_setup(&r->pl, &p, 1, 2, 2, 2);
	p.buffer_bytes = 6000;
	p.ecn_kmin_bytes = 1000; /* a ramp: draws from the switches' generators */
	p.ecn_kmax_bytes = 5000;
	p.ecn_pmax = 0.5;
	if (mode == 1) {
		p.trim = false;
		p.pfc.enabled = true;
		p.pfc.xoff_bytes = 6000;
		p.pfc.xon_bytes = 4000;
		p.pfc.headroom_bytes = 12000;
	}
	for (uint32_t h = 0; h < 4; h++)
		for (uint32_t k = 0; k < T_RK_N && h != 2; k++) {
			uint8_t b[1000];

			t_build(b, 1000, NULL, NULL, 0, 0, &r->pl.addr[h],
				&r->pl.addr[h == 3 ? 0 : 2],
				(uint16_t)(0xC000 + h * 64 + k), 0xC7, h << 8 | k);
			memcpy(r->hdr[h][k], b, T_RK_HLEN);
			for (unsigned i = 0; i < T_RK_PAY; i++)
				r->pay[h][k][i] = (uint8_t)(h * 31 + k * 7 + i);
		}
	ST_EQ_I(st, mrc_fabric_new(&p, &t_rk_ops[mode == 2], r, &r->fab), 0);
	if (!r->fab) {
		mrc_srv6_plan_free(r->pl.plan);
		free(r);
		return NULL;
	}
	return r;
}

static void t_rk_free(struct t_rk *r)
{
	if (!r)
		return;
	mrc_fabric_free(r->fab);
	mrc_srv6_plan_free(r->pl.plan);
	free(r);
}

static void t_rk_go(struct t_rk *r, int mode)
{
	/* mode 0: random loss on T0 0 - T1 1, counted on the sender's port by the far end */
	struct mrc_fab_fault f = {.kind = MRC_FAB_LOSS, .tier = MRC_FAB_T0, .a = 0, .b = 1,
		.dir = MRC_FAB_BOTH, .loss_rate = 0.2};

	if (mode == 0)
		mrc_fabric_apply(r->fab, &f, 0);
	for (uint32_t h = 0; h < 4; h++)
		mrc_fabric_kick(r->fab, h, 0);
	mrc_sim_run(mrc_fabric_sim(r->fab), MRC_SIM_NEVER);
}

struct t_rkth {
	struct st_comm cm;
	struct t_rk *r;
	int mode;
	struct mrc_sim_buf res; /* results_pack's */
	int err;
};

static void *t_rk_rank(void *arg)
{
	struct t_rkth *c = arg;
	struct mrc_sim_comm comm = st_comm_of(&c->cm);

	c->err = mrc_fabric_ranks(c->r->fab, &comm, 1);
	if (c->err)
		return NULL; /* the other rank waits: the test then fails on err */
	t_rk_go(c->r, c->mode);
	c->err = mrc_fabric_results_pack(c->r->fab, &c->res);
	return NULL;
}

/* Every output port's and switch's counters of @a and @b, through the public getters. */
static void t_rk_same_stats(struct mrc_st *st, struct mrc_fabric *a, struct mrc_fabric *b)
{
	struct mrc_fab_port_stats pa, pb;
	struct mrc_fab_switch_stats sa, sb;
	struct mrc_fab_pfc_stats fa, fb;
	struct mrc_fab_stats ga, gb;
	unsigned bad = 0, n = 0;

	for (int t = MRC_FAB_HOST; t <= MRC_FAB_T1; t++)
		for (uint32_t i = 0; i < (t == MRC_FAB_HOST ? 4u : 2u); i++) {
			for (unsigned k = 0; k < (t == MRC_FAB_T0 ? 4u : t == MRC_FAB_T1 ? 2u : 1u);
				k++) {
				ST_EQ(st, mrc_fabric_port_stats(a, t, i, 0, k, &pa), 0);
				ST_EQ(st, mrc_fabric_port_stats(b, t, i, 0, k, &pb), 0);
				ST_EQ(st, mrc_fabric_pfc_stats(a, t, i, 0, k, &fa), 0);
				ST_EQ(st, mrc_fabric_pfc_stats(b, t, i, 0, k, &fb), 0);
				bad += memcmp(&pa, &pb, sizeof(pa)) != 0;
				bad += memcmp(&fa, &fb, sizeof(fa)) != 0;
				n += 2;
			}
			if (t == MRC_FAB_HOST)
				continue;
			ST_EQ(st, mrc_fabric_switch_stats(a, t, i, 0, &sa), 0);
			ST_EQ(st, mrc_fabric_switch_stats(b, t, i, 0, &sb), 0);
			bad += memcmp(&sa, &sb, sizeof(sa)) != 0;
			n++;
		}
	ST_EQ(st, n, 2 * (4 + 2 * 4 + 2 * 2) + 4); /* every port, both getters; 4 switches */
	ST_EQ(st, bad, 0);
	mrc_fabric_port_totals(a, &pa);
	mrc_fabric_port_totals(b, &pb);
	ST_EQ(st, memcmp(&pa, &pb, sizeof(pa)), 0);
	mrc_fabric_stats(a, &ga);
	mrc_fabric_stats(b, &gb);
	ST_EQ(st, ga.events, gb.events);
	ST_EQ(st, ga.pkt_hops, gb.pkt_hops);
	ST_EQ(st, ga.injected, gb.injected);
	ST_EQ(st, ga.delivered, gb.delivered);
}

/* Rank 0 refuses, whole, what is not a share of rank 1's results (@own: its own share,
 * @b: rank 1's) and a packet from another rank that is not one. */
static void t_rk_garbage(struct mrc_st *st, struct mrc_fabric *fab, const struct mrc_sim_buf *own,
	const struct mrc_sim_buf *b)
{
	uint8_t *c = malloc(b->n + 8);
	struct fab_res h;
	struct fab_res_port r0;
	struct fab_xpkt x = {.port = fab->n_ports, .len = 100, .hlen = 100};
	uint8_t xb[sizeof(x) + 100] = {0};
	void *obj;
	uint64_t arg = 0;

	if (!c)
		return;
	ST_TRUE(st, b->n >= sizeof(h) + sizeof(r0));
	memcpy(&h, b->a, sizeof(h));
	ST_TRUE(st, h.np > 0 && h.rank == 1);
	memcpy(c, b->a, b->n);
	ST_EQ(st, mrc_fabric_results_unpack(fab, c, b->n - 1), -EPROTO); /* truncated */
	ST_EQ(st, mrc_fabric_results_unpack(fab, c, sizeof(h) - 1), -EPROTO);
	ST_EQ(st, mrc_fabric_results_unpack(fab, c, b->n + 8), -EPROTO); /* trailing bytes */
	ST_EQ(st, mrc_fabric_results_unpack(fab, own->a, own->n), -EPROTO); /* its own */
	c[0] ^= 1; /* magic */
	ST_EQ(st, mrc_fabric_results_unpack(fab, c, b->n), -EPROTO);
	c[0] ^= 1;
	memcpy(&r0, c + sizeof(h), sizeof(r0));
	r0.i = fab->n_ports; /* out of range */
	memcpy(c + sizeof(h), &r0, sizeof(r0));
	ST_EQ(st, mrc_fabric_results_unpack(fab, c, b->n), -EPROTO);
	r0.i = 0; /* host 0's NIC port: rank 0's own */
	memcpy(c + sizeof(h), &r0, sizeof(r0));
	ST_EQ(st, mrc_fabric_results_unpack(fab, c, b->n), -EPROTO);
	h.np = UINT32_MAX; /* counts past the fabric's */
	memcpy(c, &h, sizeof(h));
	ST_EQ(st, mrc_fabric_results_unpack(fab, c, b->n), -EPROTO);
	free(c);
	/* a packet for a port past the fabric's, or cut short */
	memcpy(xb, &x, sizeof(x));
	ST_EQ(st, xf_arrive_unpack(fab, xb, sizeof(xb), &obj, &arg), -EPROTO);
	x.port = fab->base_t0 + 2; /* T0 0 -> T1 0: rank 0's far end */
	memcpy(xb, &x, sizeof(x));
	ST_EQ(st, xf_arrive_unpack(fab, xb, sizeof(xb) - 1, &obj, &arg), -EPROTO);
	ST_EQ(st, xf_arrive_unpack(fab, xb, sizeof(x) - 1, &obj, &arg), -EPROTO);
	ST_EQ(st, xf_pfc_unpack(fab, xb, 3, &obj, &arg), -EPROTO);
}

MRC_SELFTEST(fabranks)
{
	static const char *const modes[3] = {"trims and ECN marks", "PFC",
		"trims, payloads as tokens"};

	for (int mode = 0; mode < 3; mode++) {
		struct t_rk *ser = t_rk_new(st, mode);
		struct t_rk *rk[2] = {t_rk_new(st, mode), t_rk_new(st, mode)};
		struct st_comm_shared sh = {.ranks = 2};
		struct t_rkth th[2];
		pthread_t tid[2];
		struct mrc_fab_port_stats tot;
		struct mrc_fab_stats g0;
		uint64_t sent, recv;
		unsigned same = 0, n = 0;

		mrc_st_case(st, "2 ranks as threads, %s: hosts get the serial run's packets "
				"(times, bytes); rank 0's counters after results_unpack the "
				"serial run's", modes[mode]);
		if (!ser || !rk[0] || !rk[1]) {
			t_rk_free(ser), t_rk_free(rk[0]), t_rk_free(rk[1]);
			continue;
		}
		t_rk_go(ser, mode);
		pthread_barrier_init(&sh.b, NULL, 2);
		for (unsigned r = 0; r < 2; r++) {
			th[r] = (struct t_rkth){.cm = {&sh, r}, .r = rk[r], .mode = mode};
			ST_EQ_I(st, pthread_create(&tid[r], NULL, t_rk_rank, &th[r]), 0);
		}
		for (unsigned r = 0; r < 2; r++)
			pthread_join(tid[r], NULL);
		pthread_barrier_destroy(&sh.b);
		ST_EQ(st, th[0].err, 0);
		ST_EQ(st, th[1].err, 0);
		/* the serial run did what the case is about, and packets crossed both ways */
		mrc_fabric_port_totals(ser->fab, &tot);
		ST_EQ(st, ser->nrx[0] + ser->nrx[2] + tot.lost, 3 * T_RK_N);
		if (mode == 1) {
			struct mrc_fab_pfc_stats f;

			/* T0 1's ingress from T1 0 (rank 0) paused it: frames across ranks */
			ST_EQ(st, mrc_fabric_pfc_stats(ser->fab, MRC_FAB_T1, 0, 0, 1, &f), 0);
			ST_TRUE(st, f.pause_rx > 0 && f.resume_rx > 0);
		} else {
			ST_TRUE(st, tot.trims > 0 && tot.ecn_marks > 0);
			ST_EQ(st, tot.lost > 0, mode == 0);
		}
		ST_EQ(st, rk[0]->tokens + rk[1]->tokens > 0, mode == 2);
		mrc_sim_rank_stats(mrc_fabric_sim(rk[0]->fab), &sent, &recv);
		ST_TRUE(st, sent > 0 && recv > 0);
		ST_EQ(st, mrc_fabric_host_rank(rk[0]->fab, 1), 0);
		ST_EQ(st, mrc_fabric_host_rank(rk[0]->fab, 2), 1);
		ST_TRUE(st, !mrc_fabric_owns_host(rk[0]->fab, 2));
		ST_TRUE(st, mrc_fabric_owns_host(rk[1]->fab, 2));
		/* deliveries: each host's, on its rank only, the serial run's in order */
		for (uint32_t h = 0; h < 4; h++) {
			const struct t_rk *o = rk[h / 2];

			ST_EQ(st, rk[1 - h / 2]->nrx[h], 0);
			ST_EQ(st, o->nrx[h], ser->nrx[h]);
			for (unsigned i = 0; i < ser->nrx[h] && i < o->nrx[h]; i++)
				same += !memcmp(&ser->rx[h][i], &o->rx[h][i], sizeof(o->rx[h][i]));
			n += ser->nrx[h];
		}
		ST_EQ(st, same, n);
		/* rank 0 alone has its share; after rank 1's, the whole */
		mrc_fabric_stats(rk[0]->fab, &g0);
		ST_EQ(st, g0.injected, 2 * T_RK_N);
		t_rk_garbage(st, rk[0]->fab, &th[0].res, &th[1].res);
		ST_EQ(st, mrc_fabric_results_unpack(rk[0]->fab, th[1].res.a, th[1].res.n), 0);
		t_rk_same_stats(st, rk[0]->fab, ser->fab);
		free(th[0].res.a);
		free(th[1].res.a);
		t_rk_free(ser), t_rk_free(rk[0]), t_rk_free(rk[1]);
	}
}
