/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * epfault: the `faults:` timeline at a wire-driver endpoint (mapping in epfault.h and
 * README "Running on a real fabric"; paths as in docs/wire-format.md "SRv6 uSID addressing").
 */
#include "mrc/wire/epfault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrc/base/rng.h"
#include "mrc/job/fault.h"

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
			snprintf(err, errlen,
				"fault %s: %s of a whole host cannot be emulated at an "
				"endpoint (the process would have to vanish); name its NIC ports "
				"(h%u.p0 ...)",
				f->target, act, f->node.host);
			return -EINVAL;
		}
		if (!down && !is_link(&f->node)) {
			snprintf(err, errlen, "fault %s: %s needs a link target (as in the "
				 "simulator)", f->target, act);
			return -EINVAL;
		}
		if (f->action == CONF_FA_BLACKHOLE && f->node.kind == CONF_NODE_LINK_HOST_T0 &&
			!f->node.reverse) {
			snprintf(err, errlen,
				"fault %s: blackhole cannot be emulated: a host has no "
				"static routes; write the link T0 first",
				f->target);
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

/* Is rule @i in force at @now: fired, in force by its timeline (mrc_fault_in_force), not
 * undone by a later fault? */
static bool in_force(const struct mrc_epf *e, size_t i, uint64_t now)
{
	const struct epf_rule *r = &e->r[i];
	const struct conf_fault *f = r->f;

	if (!r->fired || !mrc_fault_in_force(f, r->t_ps, now))
		return false;
	for (size_t j = 0; j < e->n; j++) {
		const struct epf_rule *u = &e->r[j];

		if (j == i || !u->fired || u->t_ps > now || !mrc_fault_undoes(u->f, f))
			continue;
		if (u->t_ps > r->t_ps || (u->t_ps == r->t_ps && j > i))
			return false;
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
