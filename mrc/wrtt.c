/* SPDX-License-Identifier: BSD-2-Clause */
/* wrtt: base RTT of the wire driver from echoed MRC PROBEs to QP 0 (wrtt.h, WIRE.md PETH). */
#include "mrc/wrtt.h"

#include "mrc/bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WRTT_ECT0 2
#define WRTT_MAX_PLANES 16 /* conf: fabric.planes 1..16 */

/* Inner IPv6 + UDP + BTH + PETH + ICRC: the length of an echo probe as the peer gets it. */
#define WRTT_INNER_LEN (MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN + MRC_PETH_LEN + MRC_ICRC_LEN)
#define WRTT_BTH_OFF   (MRC_IP6_HLEN + MRC_UDP_HLEN)

struct slot {
	bool busy;
	uint16_t id;
	uint32_t peer, ev;
	uint64_t sent_ns;
};

struct mrc_wrtt {
	struct mrc_wrtt_params p;
	uint32_t *plane_evs[WRTT_MAX_PLANES];
	size_t n_plane_evs[WRTT_MAX_PLANES];
	unsigned active[WRTT_MAX_PLANES]; /* planes with at least one EV */
	unsigned n_active;
	uint32_t total, next_i;
	uint32_t sent, lost, answered;
	uint64_t start_ns;
	struct slot slots[MRC_WRTT_MAX_WINDOW];
	uint64_t *samples; /* [total] */
};

int mrc_wrtt_classify(const struct mrc_wire_cfg *cfg, const uint8_t *inner, size_t len,
	struct mrc_pkt *p)
{
	const uint8_t *bth = inner + WRTT_BTH_OFF;

	if (len < WRTT_INNER_LEN || inner[0] >> 4 != 6 || inner[6] != 17 ||
		bth[0] != MRC_OP_PROBE || bth[5] || bth[6] || bth[7])
		return MRC_WRTT_NONE;
	if (mrc_wire_decode(cfg, inner, len, false, p) != MRC_WIRE_OK ||
		p->opcode != MRC_OP_PROBE || p->dest_qp != 0)
		return MRC_WRTT_NONE;
	return p->flags & MRC_BTH_F_ACKREQ ? MRC_WRTT_REQUEST : MRC_WRTT_REPLY;
}

/* Encodes an echo probe from @src to @dst on @ev. */
static int build(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg, uint32_t src,
	uint32_t dst, uint32_t ev, bool request, uint16_t probe_id, uint16_t tx_ts, uint8_t *buf,
	size_t cap, unsigned *plane)
{
	struct mrc_srv6_path path;
	struct mrc_pkt p;
	int e = mrc_srv6_path(plan, src, dst, ev, &path);

	if (e)
		return e;
	memset(&p, 0, sizeof(p));
	e = mrc_srv6_address(plan, src, dst, ev, &p);
	if (e)
		return e;
	p.ev = ev;
	p.ecn = WRTT_ECT0;
	p.opcode = MRC_OP_PROBE;
	p.pkey = 0xffff;	/* the default P_Key; DestQP 0 */
	p.flags = request ? MRC_BTH_F_ACKREQ : 0;
	p.peth.probe_id = probe_id;
	p.peth.tx_ts = tx_ts;
	*plane = path.plane;
	return mrc_wire_encode(cfg, &p, buf, cap);
}

int mrc_wrtt_request(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t src, uint32_t dst, uint32_t ev, uint16_t probe_id, uint8_t *buf, size_t cap,
	unsigned *plane)
{
	return build(plan, cfg, src, dst, ev, true, probe_id, 0, buf, cap, plane);
}

int mrc_wrtt_reply(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t src, uint32_t nhosts, const struct mrc_pkt *req, uint8_t *buf, size_t cap,
	unsigned *plane)
{
	/* port addresses end in plane : host : 1 (srv6.h mrc_srv6_host_addr) */
	uint32_t from = get_be16(req->src.b + 12);

	if (from >= nhosts || from == src)
		return -EINVAL;
	return build(plan, cfg, src, from, req->ev, false, req->peth.probe_id, req->peth.tx_ts,
		buf, cap, plane);
}

int mrc_wrtt_new(const struct mrc_wrtt_params *p, uint64_t now_ns, struct mrc_wrtt **out)
{
	struct mrc_wrtt *t;
	uint64_t total;

	*out = NULL;
	if (!p->plan || !p->cfg || p->nranks < 2 || p->rank >= p->nranks || !p->n_evs ||
		!p->window || p->window > MRC_WRTT_MAX_WINDOW || !p->per_peer ||
		!p->percentile || p->percentile > 100)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->p = *p;
	t->start_ns = now_ns;
	for (size_t i = 0; i < p->n_evs; i++) {
		struct mrc_srv6_path path;
		uint32_t peer = p->rank ? 0 : 1;
		size_t *n;

		if (mrc_srv6_path(p->plan, p->rank, peer, p->evs[i], &path) ||
			path.plane >= WRTT_MAX_PLANES)
			continue; /* an EV no path takes: nothing to measure on it */
		n = &t->n_plane_evs[path.plane];
		if (!*n) {
			t->plane_evs[path.plane] = calloc(p->n_evs, sizeof(uint32_t));
			if (!t->plane_evs[path.plane])
				goto oom;
			t->active[t->n_active++] = path.plane;
		}
		t->plane_evs[path.plane][(*n)++] = p->evs[i];
	}
	if (!t->n_active) {
		mrc_wrtt_free(t);
		return -EINVAL;
	}
	total = (uint64_t)(p->nranks - 1) * p->per_peer;
	t->total = total > MRC_WRTT_MAX_PROBES ? MRC_WRTT_MAX_PROBES : (uint32_t)total;
	t->samples = calloc(t->total, sizeof(*t->samples));
	if (!t->samples)
		goto oom;
	*out = t;
	return 0;
oom:
	mrc_wrtt_free(t);
	return -ENOMEM;
}

void mrc_wrtt_free(struct mrc_wrtt *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < WRTT_MAX_PLANES; i++)
		free(t->plane_evs[i]);
	free(t->samples);
	free(t);
}

static void expire(struct mrc_wrtt *t, uint64_t now_ns)
{
	for (unsigned i = 0; i < t->p.window; i++) {
		struct slot *s = &t->slots[i];

		if (s->busy && now_ns - s->sent_ns >= t->p.probe_timeout_ns) {
			s->busy = false;
			t->lost++;
		}
	}
}

static bool over_budget(const struct mrc_wrtt *t, uint64_t now_ns)
{
	return now_ns - t->start_ns >= t->p.budget_ns;
}

int mrc_wrtt_next(struct mrc_wrtt *t, uint64_t now_ns, uint8_t *buf, size_t cap, unsigned *plane)
{
	uint32_t npeers = t->p.nranks - 1, i = t->next_i, peer_idx, k, pl;
	struct slot *s = NULL;
	size_t n;
	int len;

	expire(t, now_ns);
	if (i >= t->total || over_budget(t, now_ns))
		return 0;
	for (unsigned j = 0; j < t->p.window && !s; j++)
		if (!t->slots[j].busy)
			s = &t->slots[j];
	if (!s)
		return 0;
	/* round robin over the peers; each peer's k-th probe on plane k mod planes, and on
	 * that plane's EVs in turn (offset per peer, so the peers start on different EVs) */
	peer_idx = i % npeers;
	k = i / npeers;
	pl = t->active[k % t->n_active];
	n = t->n_plane_evs[pl];
	s->peer = peer_idx < t->p.rank ? peer_idx : peer_idx + 1;
	s->ev = t->plane_evs[pl][(k / t->n_active + peer_idx) % n];
	s->id = (uint16_t)(i + 1); /* 1..MRC_WRTT_MAX_PROBES: never repeats */
	t->next_i++;
	len = mrc_wrtt_request(t->p.plan, t->p.cfg, t->p.rank, s->peer, s->ev, s->id, buf, cap,
		plane);
	if (len < 0) {
		t->lost++;
		return len;
	}
	s->busy = true;
	s->sent_ns = now_ns;
	t->sent++;
	return len;
}

bool mrc_wrtt_on_reply(struct mrc_wrtt *t, const struct mrc_pkt *p, uint64_t now_ns)
{
	uint32_t from = get_be16(p->src.b + 12);

	for (unsigned i = 0; i < t->p.window; i++) {
		struct slot *s = &t->slots[i];

		if (!s->busy || s->id != p->peth.probe_id)
			continue;
		if (s->peer != from || s->ev != p->ev)
			return false;
		s->busy = false;
		t->samples[t->answered++] = now_ns - s->sent_ns;
		return true;
	}
	return false;
}

static unsigned in_flight(const struct mrc_wrtt *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->p.window; i++)
		n += t->slots[i].busy;
	return n;
}

bool mrc_wrtt_done(const struct mrc_wrtt *t, uint64_t now_ns)
{
	return over_budget(t, now_ns) || (t->next_i >= t->total && !in_flight(t));
}

uint64_t mrc_wrtt_next_timer(const struct mrc_wrtt *t)
{
	uint64_t at = t->start_ns + t->p.budget_ns;

	for (unsigned i = 0; i < t->p.window; i++) {
		const struct slot *s = &t->slots[i];

		if (s->busy && s->sent_ns + t->p.probe_timeout_ns < at)
			at = s->sent_ns + t->p.probe_timeout_ns;
	}
	return at;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void mrc_wrtt_stats(const struct mrc_wrtt *t, uint64_t now_ns, struct mrc_wrtt_stats *s)
{
	uint64_t *v;

	memset(s, 0, sizeof(*s));
	s->sent = t->sent;
	s->answered = t->answered;
	s->lost = t->lost + (mrc_wrtt_done(t, now_ns) ? in_flight(t) : 0);
	if (!t->answered)
		return;
	v = malloc(t->answered * sizeof(*v));
	if (!v)
		return; /* no figure: the job falls back as if nothing had answered */
	memcpy(v, t->samples, t->answered * sizeof(*v));
	qsort(v, t->answered, sizeof(*v), cmp_u64);
	s->min_ns = v[0];
	s->max_ns = v[t->answered - 1];
	if (t->answered >= MRC_WRTT_MIN_SAMPLES) {
		/* nearest rank: the smallest sample with at least percentile% at or below it */
		uint64_t r = ((uint64_t)t->p.percentile * t->answered + 99) / 100;

		s->figure_ns = v[r ? r - 1 : 0];
	}
	free(v);
}

uint64_t mrc_wrtt_agree(const uint64_t *figure_ns, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (figure_ns[i] > m)
			m = figure_ns[i];
	return m;
}

/* ---- selftest ---- */

#include "mrc/st.h"

/* Hand-made addresses of the test plan (2 planes x (2 T0 + 2 T1), 2 hosts per T0, generated
 * uSIDs plane(4) | role(2) | index+1(10)): the uSID container of h0 -> h3 via spine 1 of
 * plane 0 is T0 0 (0x0401), T1 1 (0x0802), T0 1 (0x0402), h3's port (0x0004). */
static const uint8_t da_h0_h3[16] = { 0xfc, 0, 0, 0, 0x04, 0x01, 0x08, 0x02, 0x04, 0x02,
	0, 0x04 };
static const uint8_t da_h3_h0[16] = { 0xfc, 0, 0, 0, 0x04, 0x02, 0x08, 0x02, 0x04, 0x01,
	0, 0x01 };

/* The peer's side: classifies the request at @req (a whole packet) and writes its answer. */
static int st_answer(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t me, const uint8_t *req, int len, uint8_t *out, size_t cap)
{
	struct mrc_pkt p;
	unsigned plane;

	if (len < MRC_IP6_HLEN ||
		mrc_wrtt_classify(cfg, req + MRC_IP6_HLEN, (size_t)len - MRC_IP6_HLEN, &p) !=
			MRC_WRTT_REQUEST)
		return -EPROTO;
	return mrc_wrtt_reply(plan, cfg, me, 4, &p, out, cap, &plane);
}

MRC_SELFTEST(wrtt)
{
	struct mrc_srv6_params sp;
	struct mrc_srv6_plan *plan = NULL;
	struct mrc_wire_cfg cfg;
	struct mrc_pkt p;
	struct mrc_wrtt *t = NULL;
	struct mrc_wrtt_stats s;
	uint8_t req[256], rep[256], *in = req + MRC_IP6_HLEN;
	unsigned plane = 99;
	int len, rlen;

	mrc_srv6_params_default(&sp);
	sp.planes = 2;
	sp.t0 = 2;
	sp.t1 = 2;
	sp.hosts_per_t0 = 2;
	mrc_wire_cfg_default(&cfg);
	ST_EQ_I(st, mrc_srv6_plan_new(&sp, &plan, NULL, 0), 0);
	if (!plan)
		return;

	mrc_st_case(st, "request h0 -> h3 on EV 0x00010007: a 120-byte PROBE to QP 0, ack request");
	len = mrc_wrtt_request(plan, &cfg, 0, 3, 0x00010007, 0x1234, req, sizeof(req), &plane);
	ST_EQ_I(st, len, 40 + 40 + 8 + 12 + 16 + 4);
	ST_EQ(st, plane, 0);
	ST_EQ(st, req[6], 41);				/* IPv6-in-IPv6, no SRH */
	ST_EQ_MEM(st, req + 24, da_h0_h3, 16);		/* outer DA: the uSID container */
	ST_EQ(st, in[6], 17);
	ST_EQ(st, get_be32(in) & 0xfffff, 0x0007);	/* flow label EV[15:0] */
	ST_EQ(st, get_be16(in + 40), 0x0001);		/* UDP sport EV[31:16] */
	ST_EQ(st, get_be16(in + 42), 4791);
	ST_EQ(st, in[48], 0xDE);			/* PROBE */
	ST_EQ(st, get_be16(in + 50), 0xffff);		/* P_Key */
	ST_EQ(st, get_be32(in + 52) & 0xffffff, 0);	/* DestQP 0 */
	ST_EQ(st, in[56], 0x80);			/* ack request */
	ST_EQ(st, get_be16(in + 60 + 4), 0x1234);	/* PETH probe_id */
	ST_EQ(st, get_be16(in + 8 + 12), 0);		/* inner source fd00::0:0:1 (h0) */
	ST_EQ(st, get_be16(in + 24 + 12), 3);		/* inner destination: h3 */
	ST_EQ_I(st, mrc_wrtt_request(plan, &cfg, 0, 0, 0x00010007, 1, req, sizeof(req), &plane),
		-EINVAL);					/* to itself */

	mrc_st_case(st, "classify: request, its answer, the engine's packets, damage");
	len = mrc_wrtt_request(plan, &cfg, 0, 3, 0x00010007, 0x1234, req, sizeof(req), &plane);
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, (size_t)len - 40, &p), MRC_WRTT_REQUEST);
	ST_EQ(st, p.peth.probe_id, 0x1234);
	ST_EQ(st, p.ev, 0x00010007);
	rlen = mrc_wrtt_reply(plan, &cfg, 3, 4, &p, rep, sizeof(rep), &plane);
	ST_EQ_I(st, rlen, 120);
	ST_EQ(st, plane, 0);
	ST_EQ_MEM(st, rep + 24, da_h3_h0, 16);		/* back through the same spine */
	ST_EQ(st, get_be16(rep + 40 + 8 + 12), 3);	/* from h3 */
	ST_EQ(st, get_be16(rep + 40 + 24 + 12), 0);	/* to h0 */
	ST_EQ(st, rep[40 + 56], 0);			/* no ack request */
	ST_EQ(st, get_be16(rep + 40 + 64), 0x1234);
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, rep + 40, 80, &p), MRC_WRTT_REPLY);
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 75, &p), MRC_WRTT_NONE);	/* short */
	in[55] = 1;					/* DestQP 1: the engine's probe */
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 80, &p), MRC_WRTT_NONE);
	in[55] = 0;
	in[64] ^= 0x01;					/* damaged: the ICRC fails */
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 80, &p), MRC_WRTT_NONE);
	in[64] ^= 0x01;
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 80, &p), MRC_WRTT_REQUEST);
	put_be16(p.src.b + 12, 3);			/* claims to come from h3 itself */
	ST_EQ_I(st, mrc_wrtt_reply(plan, &cfg, 3, 4, &p, rep, sizeof(rep), &plane), -EINVAL);
	put_be16(p.src.b + 12, 5);			/* no host 5 among 4 */
	ST_EQ_I(st, mrc_wrtt_reply(plan, &cfg, 3, 4, &p, rep, sizeof(rep), &plane), -EINVAL);

	mrc_st_case(st, "schedule: rank 1 of 3, peers round robin, planes in turn, window 2");
	{
		static const uint32_t evs[] = { 0x00000000, 0x00010000, 0x10000000 };
		struct mrc_wrtt_params tp = { .plan = plan, .cfg = &cfg, .rank = 1, .nranks = 3,
			.evs = evs, .n_evs = 3, .per_peer = 4, .window = 2,
			.probe_timeout_ns = 100000, .budget_ns = 10000000, .percentile = 50 };
		/* (peer, EV) of probes 1..8: peer_idx = i % 2, k = i / 2, plane k % 2, EV
		 * (k / 2 + peer_idx) mod that plane's count (2 on plane 0, 1 on plane 1) */
		static const uint32_t want_dst[8] = { 0, 2, 0, 2, 0, 2, 0, 2 };
		static const uint32_t want_ev[8] = { 0x00000000, 0x00010000, 0x10000000,
			0x10000000, 0x00010000, 0x00000000, 0x10000000, 0x10000000 };
		uint64_t t0 = 1000000000, now = t0;
		uint8_t pend[8][256];
		int lens[8];
		bool order_ok = true;

		ST_EQ_I(st, mrc_wrtt_new(&tp, t0, &t), 0);
		if (!t)
			goto out;
		/* probe i (0-based) sent at t0 + i us, answered (i + 1) * 10 us later, once the
		 * next one is out (so the window of 2 fills); the last is never answered */
		for (int i = 0; i < 8; i++) {
			uint8_t *q = pend[i], *qi = q + MRC_IP6_HLEN;

			lens[i] = mrc_wrtt_next(t, t0 + (uint64_t)i * 1000, q, 256, &plane);
			if (lens[i] <= 0 || get_be16(qi + 24 + 12) != want_dst[i] ||
				(get_be32(qi) & 0xfffff) || get_be16(qi + 40) != want_ev[i] >> 16 ||
				get_be16(qi + 64) != i + 1)
				order_ok = false;
			if (i == 0)
				continue;
			if (i == 1) /* the window of 2 is full */
				ST_EQ_I(st, mrc_wrtt_next(t, t0 + 1000, req, sizeof(req), &plane),
					0);
			rlen = st_answer(plan, &cfg, want_dst[i - 1], pend[i - 1], lens[i - 1], rep,
				sizeof(rep));
			if (rlen < 0 || mrc_wrtt_classify(&cfg, rep + 40, (size_t)rlen - 40, &p) !=
						MRC_WRTT_REPLY) {
				order_ok = false;
				continue;
			}
			now = t0 + (uint64_t)(i - 1) * 1000 + (uint64_t)i * 10000;
			if (i == 1) { /* the same answer from the wrong peer is not counted */
				put_be16(p.src.b + 12, 2);
				ST_TRUE(st, !mrc_wrtt_on_reply(t, &p, now));
				put_be16(p.src.b + 12, 0);
			}
			ST_TRUE(st, mrc_wrtt_on_reply(t, &p, now));
			ST_TRUE(st, !mrc_wrtt_on_reply(t, &p, now)); /* a duplicate */
		}
		now = t0 + 7000; /* probe 8's send time */
		ST_TRUE(st, order_ok);
		ST_TRUE(st, !mrc_wrtt_done(t, now));
		ST_EQ(st, mrc_wrtt_next_timer(t), now + 100000); /* probe 8 times out */
		ST_EQ_I(st, mrc_wrtt_next(t, now + 100000, req, sizeof(req), &plane), 0);
		ST_TRUE(st, mrc_wrtt_done(t, now + 100000));
		mrc_wrtt_stats(t, now + 100000, &s);
		ST_EQ(st, s.sent, 8);
		ST_EQ(st, s.answered, 7);
		ST_EQ(st, s.lost, 1);
		ST_EQ(st, s.min_ns, 10000);
		ST_EQ(st, s.max_ns, 70000);
		/* median of 10..70 us by nearest rank: ceil(0.5 * 7) = 4th = 40 us */
		ST_EQ(st, s.figure_ns, 40000);
		mrc_wrtt_free(t);
		t = NULL;
	}

	mrc_st_case(st, "no answer: no figure; the budget ends a measurement; the job's figure");
	{
		static const uint32_t evs[] = { 0x00000000 };
		struct mrc_wrtt_params tp = { .plan = plan, .cfg = &cfg, .rank = 0, .nranks = 2,
			.evs = evs, .n_evs = 1, .per_peer = 100, .window = 4,
			.probe_timeout_ns = 1000000, .budget_ns = 5000000, .percentile = 10 };
		static const uint64_t figs[] = { 120000, 0, 310000, 95000 };
		static const uint64_t none[] = { 0, 0 };

		ST_EQ_I(st, mrc_wrtt_new(&tp, 0, &t), 0);
		if (!t)
			goto out;
		for (int i = 0; i < 4; i++)
			ST_TRUE(st, mrc_wrtt_next(t, 0, req, sizeof(req), &plane) > 0);
		ST_EQ_I(st, mrc_wrtt_next(t, 0, req, sizeof(req), &plane), 0);
		ST_TRUE(st, !mrc_wrtt_done(t, 4999999));
		ST_TRUE(st, mrc_wrtt_done(t, 5000000));
		ST_EQ_I(st, mrc_wrtt_next(t, 5000000, req, sizeof(req), &plane), 0);
		mrc_wrtt_stats(t, 5000000, &s);
		ST_EQ(st, s.sent, 4);
		ST_EQ(st, s.answered, 0);
		ST_EQ(st, s.lost, 4);
		ST_EQ(st, s.figure_ns, 0);
		ST_EQ(st, mrc_wrtt_agree(figs, 4), 310000);
		ST_EQ(st, mrc_wrtt_agree(none, 2), 0);
		mrc_wrtt_free(t);
		tp.window = MRC_WRTT_MAX_WINDOW + 1;
		ST_EQ_I(st, mrc_wrtt_new(&tp, 0, &t), -EINVAL);
		ST_TRUE(st, t == NULL);
	}
out:
	mrc_wrtt_free(t);
	mrc_srv6_plan_free(plan);
}
