/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * epfault: the `faults:` timeline at a wire-driver endpoint (mapping in epfault.h and
 * README "Running on a real fabric"; paths as in WIRE.md "SRv6 uSID addressing").
 */
#include "mrc/epfault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrc/rng.h"

#define EPF_PKT_MAX 16384

enum epf_dir { EPF_BOTH, EPF_UP, EPF_DOWN };

struct epf_rule {
	const struct conf_fault *f;
	enum epf_dir dir;
	bool fired;
	uint64_t t_ps;		/* when it last fired */
};

struct epf_held {
	uint64_t release_ps;
	unsigned plane;
	size_t len;
	uint8_t *buf;		/* EPF_PKT_MAX bytes, owned by the slot */
};

struct mrc_epf {
	struct mrc_epf_params p;
	struct epf_rule *r;
	size_t n;
	struct mrc_rng rng;
	struct epf_held *q;	/* sorted by release time, FIFO among equals */
	size_t nq;
	struct mrc_epf_stats st;
};

static bool is_link(const struct conf_node *n)
{
	return n->kind == CONF_NODE_LINK_HOST_T0 || n->kind == CONF_NODE_LINK_T0_T1;
}

int mrc_epf_new(const struct mrc_epf_params *p, const struct conf_fault *faults, size_t n,
	struct mrc_epf **out, char *err, size_t errlen)
{
	struct mrc_epf *e;

	*out = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct conf_fault *f = &faults[i];
		const char *act = conf_name_of(conf_fault_action_names, f->action);
		bool down = f->action == CONF_FA_DOWN || f->action == CONF_FA_UP;

		if (f->node.kind == CONF_NODE_HOST) {
			snprintf(err, errlen, "fault %s: %s of a whole host cannot be emulated at an "
				 "endpoint (the process would have to vanish); name its NIC ports "
				 "(h%u.p0 ...)", f->target, act, f->node.host);
			return -EINVAL;
		}
		if (!down && !is_link(&f->node)) {
			snprintf(err, errlen, "fault %s: %s needs a link target (as in the "
				 "simulator)", f->target, act);
			return -EINVAL;
		}
		if (f->action == CONF_FA_BLACKHOLE && f->node.kind == CONF_NODE_LINK_HOST_T0 &&
			!f->node.reverse) {
			snprintf(err, errlen, "fault %s: blackhole cannot be emulated: a host has no "
				 "static routes; write the link T0 first", f->target);
			return -EINVAL;
		}
	}
	if (p->trim && p->trim_size < 40) {
		snprintf(err, errlen, "endpoint faults: trim size %u: below one IPv6 header",
			p->trim_size);
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->p = *p;
	if (!e->p.queue_cap)
		e->p.queue_cap = 1024;
	e->r = calloc(n ? n : 1, sizeof(*e->r));
	e->q = calloc(e->p.queue_cap, sizeof(*e->q));
	if (!e->r || !e->q) {
		mrc_epf_free(e);
		return -ENOMEM;
	}
	e->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct conf_fault *f = &faults[i];
		bool fwd_up = !f->node.reverse; /* written lower tier first: forward is up */

		e->r[i].f = f;
		if (f->action == CONF_FA_BLACKHOLE)
			e->r[i].dir = fwd_up ? EPF_UP : EPF_DOWN;
		else if (f->direction == CONF_DIR_BOTH || !is_link(&f->node))
			e->r[i].dir = EPF_BOTH;
		else
			e->r[i].dir = (f->direction == CONF_DIR_FORWARD) == fwd_up ? EPF_UP :
										      EPF_DOWN;
	}
	mrc_rng_seed(&e->rng, p->seed);
	*out = e;
	return 0;
}

void mrc_epf_free(struct mrc_epf *e)
{
	if (!e)
		return;
	for (size_t i = 0; e->q && i < e->p.queue_cap; i++)
		free(e->q[i].buf);
	free(e->q);
	free(e->r);
	free(e);
}

void mrc_epf_start(struct mrc_epf *e, uint64_t now_ps)
{
	for (size_t i = 0; i < e->n; i++) {
		if (e->r[i].f->has_at) {
			e->r[i].fired = true;
			e->r[i].t_ps = now_ps + e->r[i].f->at_ps;
		}
	}
}

void mrc_epf_iteration(struct mrc_epf *e, uint32_t iter, uint64_t now_ps)
{
	for (size_t i = 0; i < e->n; i++) {
		if (e->r[i].f->has_at_iteration && e->r[i].f->at_iteration == iter) {
			e->r[i].fired = true;
			e->r[i].t_ps = now_ps;
		}
	}
}

static bool same_node(const struct conf_node *a, const struct conf_node *b)
{
	return a->kind == b->kind && a->plane == b->plane && a->host == b->host &&
	       a->t0 == b->t0 && a->t1 == b->t1;
}

/* Does fault @j end the effect of fault @i? */
static bool undoes(const struct conf_fault *j, const struct conf_fault *i)
{
	if (!same_node(&j->node, &i->node))
		return false;
	switch (i->action) {
	case CONF_FA_DOWN:
	case CONF_FA_BLACKHOLE:
		return j->action == CONF_FA_UP;
	case CONF_FA_FLAP:
		return j->action == CONF_FA_UP || j->action == CONF_FA_CLEAR;
	case CONF_FA_LOSS:
	case CONF_FA_DELAY:
		return j->action == CONF_FA_CLEAR || j->action == i->action;
	default:
		return false;
	}
}

/* Is rule @i in force at @now (fired, not reverted, not undone, a flap in its down part)? */
static bool in_force(const struct mrc_epf *e, size_t i, uint64_t now)
{
	const struct epf_rule *r = &e->r[i];
	const struct conf_fault *f = r->f;

	if (!r->fired || now < r->t_ps || f->action == CONF_FA_UP || f->action == CONF_FA_CLEAR)
		return false;
	if (f->has_duration && now - r->t_ps >= f->duration_ps)
		return false;
	for (size_t j = 0; j < e->n; j++) {
		const struct epf_rule *u = &e->r[j];

		if (j == i || !u->fired || u->t_ps > now || !undoes(u->f, f))
			continue;
		if (u->t_ps > r->t_ps || (u->t_ps == r->t_ps && j > i))
			return false;
	}
	if (f->action == CONF_FA_FLAP) {
		uint64_t phase = (now - r->t_ps) % f->period_ps;

		return (double)phase < f->duty * (double)f->period_ps;
	}
	return true;
}

/* Does the path of @p cross the element of rule @r in the rule's direction? */
static bool crosses(const struct mrc_epf *e, const struct epf_rule *r,
	const struct mrc_epf_pkt *p)
{
	const struct conf_node *n = &r->f->node;
	uint32_t hpt = e->p.hosts_per_t0 ? e->p.hosts_per_t0 : 1;
	uint32_t t0s = p->src / hpt, t0d = p->dst / hpt;
	bool via_t1 = t0s != t0d, up = r->dir != EPF_DOWN, down = r->dir != EPF_UP;

	if (n->plane != p->plane)
		return false;
	switch (n->kind) {
	case CONF_NODE_PORT:
		return n->host == p->src || n->host == p->dst;
	case CONF_NODE_T0:
		return n->t0 == t0s || n->t0 == t0d;
	case CONF_NODE_T1:
		return via_t1 && n->t1 == p->spine;
	case CONF_NODE_LINK_HOST_T0:
		return (up && n->host == p->src) || (down && n->host == p->dst);
	case CONF_NODE_LINK_T0_T1:
		return via_t1 && n->t1 == p->spine &&
		       ((up && n->t0 == t0s) || (down && n->t0 == t0d));
	default:
		return false;
	}
}

/* One loss draw: true (lost) with probability @rate; 53 random bits against rate * 2^53. */
static bool lost(struct mrc_epf *e, double rate)
{
	uint64_t x = mrc_rng_next(&e->rng) >> 11;

	return (double)x < rate * 9007199254740992.0;
}

enum mrc_epf_verdict mrc_epf_tx(struct mrc_epf *e, const struct mrc_epf_pkt *p,
	uint64_t now_ps, uint64_t *release_ps)
{
	uint64_t delay = 0;
	bool drop = false;

	for (size_t i = 0; i < e->n && !drop; i++) {
		const struct conf_fault *f = e->r[i].f;

		if (!crosses(e, &e->r[i], p) || !in_force(e, i, now_ps))
			continue;
		switch (f->action) {
		case CONF_FA_DOWN:
		case CONF_FA_BLACKHOLE:
		case CONF_FA_FLAP:
			drop = true;
			break;
		case CONF_FA_LOSS:
			drop = !e->p.trim && lost(e, f->rate);
			break;
		case CONF_FA_DELAY:
			delay += f->delay_ps;
			break;
		default:
			break;
		}
	}
	if (drop) {
		e->st.dropped++;
		return MRC_EPF_DROP;
	}
	if (delay) {
		*release_ps = now_ps + delay;
		e->st.delayed++;
		return MRC_EPF_DELAY;
	}
	return MRC_EPF_PASS;
}

enum mrc_epf_verdict mrc_epf_rx(struct mrc_epf *e, const struct mrc_epf_pkt *p,
	uint64_t now_ps, bool *ce)
{
	bool trim = false, mark = false;

	for (size_t i = 0; i < e->n; i++) {
		const struct conf_fault *f = e->r[i].f;

		if (f->action != CONF_FA_DELAY && !(f->action == CONF_FA_LOSS && e->p.trim))
			continue;
		if (!crosses(e, &e->r[i], p) || !in_force(e, i, now_ps))
			continue;
		if (f->action == CONF_FA_LOSS) {
			trim = trim || lost(e, f->rate);
		} else if (e->p.ecn_threshold_bytes) {
			/* queue depth the delay stands for: delay * rate / 8 bytes */
			double depth = (double)f->delay_ps * 1e-12 * (double)e->p.link_rate_bps / 8;

			mark = mark || depth >= (double)e->p.ecn_threshold_bytes;
		}
	}
	if (mark) {
		*ce = true;
		e->st.ce_marked++;
	}
	if (trim) {
		e->st.trimmed++;
		return MRC_EPF_TRIM;
	}
	return MRC_EPF_PASS;
}

int mrc_epf_hold(struct mrc_epf *e, unsigned plane, const uint8_t *pkt, size_t len,
	uint64_t release_ps)
{
	size_t at;
	struct epf_held h;

	if (len > EPF_PKT_MAX)
		return -EINVAL;
	if (e->nq == e->p.queue_cap) {
		e->st.queue_full++;
		return -ENOSPC;
	}
	h = e->q[e->nq];
	if (!h.buf) {
		h.buf = malloc(EPF_PKT_MAX);
		if (!h.buf)
			return -ENOMEM;
	}
	at = e->nq;
	while (at > 0 && e->q[at - 1].release_ps > release_ps) {
		e->q[at] = e->q[at - 1];
		at--;
	}
	memcpy(h.buf, pkt, len);
	h.len = len;
	h.plane = plane;
	h.release_ps = release_ps;
	e->q[at] = h;
	e->nq++;
	return 0;
}

uint64_t mrc_epf_next_release(const struct mrc_epf *e)
{
	return e->nq ? e->q[0].release_ps : UINT64_MAX;
}

int mrc_epf_due(struct mrc_epf *e, uint64_t now_ps, uint8_t *buf, size_t cap, unsigned *plane)
{
	struct epf_held h;

	if (!e->nq || e->q[0].release_ps > now_ps)
		return 0;
	h = e->q[0];
	if (h.len > cap)
		return -ENOSPC;
	memcpy(buf, h.buf, h.len);
	*plane = h.plane;
	memmove(&e->q[0], &e->q[1], (e->nq - 1) * sizeof(*e->q));
	e->q[--e->nq] = h; /* the freed slot keeps its buffer for reuse */
	return (int)h.len;
}

const struct mrc_epf_stats *mrc_epf_stats(const struct mrc_epf *e)
{
	return &e->st;
}

/* ---- selftest ------------------------------------------------------------------------ */

#include "mrc/st.h"

/* 2 planes x (2 T0 + 2 T1), 2 hosts per T0: h0 h1 under T0 0, h2 h3 under T0 1. */
static const struct mrc_epf_params st_params = {
	.planes = 2, .t0 = 2, .t1 = 2, .hosts_per_t0 = 2, .seed = 42,
	.trim_size = 64, .dscp_trimmed = 12, .link_rate_bps = 100000000000ull,
};

/* The path of @ev (plane(4) | spine(12) | salt(16), spine mod t1 = 2) from @src to @dst. */
static struct mrc_epf_pkt st_pkt(uint32_t ev, uint32_t src, uint32_t dst)
{
	return (struct mrc_epf_pkt){ ev >> 28, ((ev >> 16) & 0xfff) % 2, src, dst };
}

static struct conf_fault st_fault(const char *target, struct conf_node node,
	enum conf_fault_action a, uint64_t at_ps)
{
	return (struct conf_fault){ .has_at = true, .at_ps = at_ps, .target = (char *)target,
		.node = node, .action = a };
}

static enum mrc_epf_verdict st_tx(struct mrc_epf *e, struct mrc_epf_pkt p, uint64_t now)
{
	uint64_t rel = 0;

	return mrc_epf_tx(e, &p, now, &rel);
}

/* Sends @p at each of @n times @at and checks it is dropped exactly when @drop says. */
static void st_timeline(struct mrc_st *st, struct mrc_epf *e, struct mrc_epf_pkt p,
	const uint64_t *at, const bool *drop, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ST_EQ_I(st, st_tx(e, p, at[i]), drop[i] ? MRC_EPF_DROP : MRC_EPF_PASS);
}

MRC_SELFTEST(epfault)
{
	struct mrc_epf *e;
	char err[256] = "";
	uint64_t rel = 0;

	mrc_st_case(st, "epfault: p0.t0.0-p0.t1.1 down drops exactly the plane-0 spine-1 EVs "
			"between the two T0s");
	{
		struct conf_fault f = st_fault("p0.t0.0-p0.t1.1",
			(struct conf_node){ .kind = CONF_NODE_LINK_T0_T1, .t0 = 0, .t1 = 1 },
			CONF_FA_DOWN, 0);
		/* plane(4) | spine(12) | salt(16): spines 0..5 of both planes, mod 2 */
		static const uint32_t evs[] = { 0x00000005, 0x00010005, 0x00020005, 0x00030005,
			0x10000005, 0x10010005, 0x00050000, 0x10050000 };
		/* h1 -> h2 crosses the link upward, h3 -> h0 downward, h0 -> h1 stays on T0 0 */
		static const bool want12[] = { 0, 1, 0, 1, 0, 0, 1, 0 };
		int d12 = 0, d30 = 0, d01 = 0, d23 = 0;

		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 1000);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010005, 1, 2), 999), MRC_EPF_PASS);
		for (size_t i = 0; i < 8; i++) {
			bool got = st_tx(e, st_pkt(evs[i], 1, 2), 1000) == MRC_EPF_DROP;

			ST_EQ_I(st, got, want12[i]);
			d12 += got;
			d30 += st_tx(e, st_pkt(evs[i], 3, 0), 1000) == MRC_EPF_DROP;
			d01 += st_tx(e, st_pkt(evs[i], 0, 1), 1000) == MRC_EPF_DROP;
			d23 += st_tx(e, st_pkt(evs[i], 2, 3), 1000) == MRC_EPF_DROP;
		}
		ST_EQ_I(st, d12, 3);
		ST_EQ_I(st, d30, 3);
		ST_EQ_I(st, d01, 0);
		ST_EQ_I(st, d23, 0);
		ST_EQ(st, mrc_epf_stats(e)->dropped, 6);
		mrc_epf_free(e);
		/* direction forward (T0 -> T1, upward): h1 -> h2 dropped, h3 -> h0 not */
		f.direction = CONF_DIR_FORWARD;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 1, 2), 5), MRC_EPF_DROP);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 3, 0), 5), MRC_EPF_PASS);
		mrc_epf_free(e);
		/* written T1 first, forward is downward */
		f.node.reverse = true;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 1, 2), 5), MRC_EPF_PASS);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 3, 0), 5), MRC_EPF_DROP);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: NIC port h1.p1 down drops exactly plane 1 to and from h1");
	{
		struct conf_fault f = st_fault("h1.p1",
			(struct conf_node){ .kind = CONF_NODE_PORT, .plane = 1, .host = 1 },
			CONF_FA_DOWN, 0);
		int drops = 0;

		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		/* all 4 x 4 ordered pairs on both planes, 2 EVs each: 12 pairs x 2 planes x 2 */
		for (uint32_t s = 0; s < 4; s++)
			for (uint32_t d = 0; d < 4; d++)
				for (uint32_t ev = 0; s != d && ev < 4; ev++) {
					uint32_t x = (ev & 2 ? 0x10000000u : 0) | (ev & 1) << 16;
					bool got = st_tx(e, st_pkt(x, s, d), 0) == MRC_EPF_DROP;

					ST_EQ_I(st, got, (x >> 28) == 1 && (s == 1 || d == 1));
					drops += got;
				}
		/* pairs with h1: 3 from + 3 to = 6, x 2 EVs of plane 1 */
		ST_EQ_I(st, drops, 12);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: delay 5us on h0.p0-p0.t0.0 releases exactly 5us later, in order");
	{
		struct conf_fault f = st_fault("h0.p0-p0.t0.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_HOST_T0, .host = 0 },
			CONF_FA_DELAY, 0);
		uint8_t a[3] = { 1, 2, 3 }, b[2] = { 9, 8 }, out[8];
		unsigned plane = 7;
		struct mrc_epf_pkt p = st_pkt(0, 0, 1);

		f.delay_ps = 5000000;
		f.has_delay = true;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, mrc_epf_tx(e, &p, 2000000, &rel), MRC_EPF_DELAY);
		ST_EQ(st, rel, 7000000);
		ST_EQ_I(st, mrc_epf_hold(e, 0, a, 3, rel), 0);
		ST_EQ_I(st, st_tx(e, st_pkt(0x10000000, 0, 1), 0), MRC_EPF_PASS); /* plane 1 */
		ST_EQ_I(st, st_tx(e, st_pkt(0, 1, 0), 0), MRC_EPF_DELAY);	 /* down to h0 */
		ST_EQ_I(st, mrc_epf_hold(e, 1, b, 2, 6000000), 0);	/* earlier: goes first */
		ST_EQ(st, mrc_epf_next_release(e), 6000000);
		ST_EQ_I(st, mrc_epf_due(e, 5999999, out, sizeof(out), &plane), 0);
		ST_EQ_I(st, mrc_epf_due(e, 7000000, out, sizeof(out), &plane), 2);
		ST_EQ_MEM(st, out, b, 2);
		ST_EQ_I(st, plane, 1);
		ST_EQ_I(st, mrc_epf_due(e, 7000000, out, sizeof(out), &plane), 3);
		ST_EQ_MEM(st, out, a, 3);
		ST_EQ_I(st, plane, 0);
		ST_EQ(st, mrc_epf_next_release(e), UINT64_MAX);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: loss 0.25 over 1000 packets drops exactly the seeded draws");
	{
		struct conf_fault f = st_fault("h0.p0-p0.t0.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_HOST_T0, .host = 0 },
			CONF_FA_LOSS, 0);
		struct mrc_rng ref;
		int got = 0, want = 0;

		f.rate = 0.25;
		f.has_rate = true;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		/* one draw per packet on the link: 53 high bits below 2^51 (= 0.25 * 2^53) */
		mrc_rng_seed(&ref, 42);
		for (int i = 0; i < 1000; i++) {
			got += st_tx(e, st_pkt(0, 0, 1), 0) == MRC_EPF_DROP;
			want += (mrc_rng_next(&ref) >> 11) < (1ull << 51);
			/* packets off the link take no draw */
			ST_EQ_I(st, st_tx(e, st_pkt(0, 2, 3), 0), MRC_EPF_PASS);
		}
		ST_EQ_I(st, got, want);
		ST_TRUE(st, got > 200 && got < 300);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: timeline: at + duration, at_iteration, up ends down, flap duty");
	{
		struct conf_node t1 = { .kind = CONF_NODE_T1, .t1 = 0 };
		struct conf_fault f[3] = {
			st_fault("p0.t1.0", t1, CONF_FA_DOWN, 10000000),
			st_fault("p0.t1.0", t1, CONF_FA_UP, 0),
			st_fault("p0.t1.0", t1, CONF_FA_DOWN, 0),
		};
		struct mrc_epf_pkt p = st_pkt(0, 0, 2);

		f[0].has_duration = true;
		f[0].duration_ps = 5000000;
		/* down at iteration 2, up at iteration 3 */
		f[2].has_at = false, f[2].has_at_iteration = true, f[2].at_iteration = 2;
		f[1].has_at = false, f[1].has_at_iteration = true, f[1].at_iteration = 3;
		ST_EQ_I(st, mrc_epf_new(&st_params, f, 3, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 100);
		/* down from 100 + 10us for 5us: [10000100, 15000100) */
		st_timeline(st, e, p, (const uint64_t[]){ 10000099, 10000100, 15000099, 15000100 },
			(const bool[]){ 0, 1, 1, 0 }, 4);
		mrc_epf_iteration(e, 1, 20000000);
		ST_EQ_I(st, st_tx(e, p, 20000000), MRC_EPF_PASS);
		mrc_epf_iteration(e, 2, 30000000);
		ST_EQ_I(st, st_tx(e, p, 30000000), MRC_EPF_DROP);
		ST_EQ_I(st, st_tx(e, st_pkt(0, 0, 1), 30000000), MRC_EPF_PASS); /* no T1 */
		mrc_epf_iteration(e, 3, 40000000);
		ST_EQ_I(st, st_tx(e, p, 40000000), MRC_EPF_PASS);
		mrc_epf_free(e);

		/* flap: period 10us, duty 0.3: down in [0, 3us) of each cycle */
		f[0] = st_fault("p0.t0.0-p0.t1.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_T0_T1 }, CONF_FA_FLAP, 0);
		f[0].period_ps = 10000000;
		f[0].duty = 0.3;
		ST_EQ_I(st, mrc_epf_new(&st_params, f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		st_timeline(st, e, p, (const uint64_t[]){ 2999999, 3000000, 12000000, 19999999 },
			(const bool[]){ 1, 0, 1, 0 }, 4);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: receiver trims loss with fabric.trim, marks CE above the "
			"threshold's queueing time");
	{
		struct mrc_epf_params pp = st_params;
		struct conf_node l = { .kind = CONF_NODE_LINK_HOST_T0, .host = 1 };
		struct conf_fault f[2] = {
			st_fault("h1.p0-p0.t0.0", l, CONF_FA_LOSS, 0),
			st_fault("h1.p0-p0.t0.0", l, CONF_FA_DELAY, 0),
		};
		struct mrc_epf_pkt p = st_pkt(0, 0, 1);
		bool ce = false;

		f[0].rate = 1;
		/* 1 us at 100 Gb/s is a 12500-byte queue */
		f[1].delay_ps = 1000000;
		pp.trim = true;
		pp.ecn_threshold_bytes = 12500;
		ST_EQ_I(st, mrc_epf_new(&pp, f, 2, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, mrc_epf_tx(e, &p, 0, &rel), MRC_EPF_DELAY); /* no drop: trimmed */
		ST_EQ_I(st, mrc_epf_rx(e, &p, 0, &ce), MRC_EPF_TRIM);
		ST_TRUE(st, ce);
		mrc_epf_free(e);
		pp.ecn_threshold_bytes = 12501;
		ce = false;
		ST_EQ_I(st, mrc_epf_new(&pp, f, 2, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, mrc_epf_rx(e, &p, 0, &ce), MRC_EPF_TRIM);
		ST_TRUE(st, !ce);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: refuses what an endpoint cannot emulate, naming the fault");
	{
		struct conf_fault f = st_fault("h2",
			(struct conf_node){ .kind = CONF_NODE_HOST, .host = 2 }, CONF_FA_DOWN, 0);

		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), -EINVAL);
		ST_TRUE(st, strstr(err, "fault h2: down of a whole host cannot be emulated") != NULL);
		f = st_fault("h0.p0-p0.t0.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_HOST_T0 }, CONF_FA_BLACKHOLE, 0);
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), -EINVAL);
		ST_TRUE(st, strstr(err, "fault h0.p0-p0.t0.0: blackhole") != NULL);
	}
}
