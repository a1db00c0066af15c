/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ep: one host's MRC endpoint — QPs, memory regions, DestQP demux, per-plane pull
 * scheduling and the byte boundary (mrc_wire_encode/decode), per docs/wire-format.md.
 */
#include "mrc/engine/ep.h"
#include "mrc/base/bytes.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct mr {
	uint8_t *base;
	uint64_t va;	/* what peers address it by */
	uint64_t len;
	uint32_t rkey;
};

/* The extension headers a control packet may carry: struct mrc_pkt's union's members. */
union ctl_xh {
	MRC_PKT_XH_MEMBERS
};

/*
 * A control packet waiting for its plane's port, packed (72 of struct mrc_pkt's 328
 * bytes): the fields a QP sets in one (qp.h, emit_ctl); the rest is zero but hop_limit 64,
 * and the addresses and SRH come from the path when it leaves (ep_finish).
 */
struct ctl {
	uint32_t peer_host;
	uint32_t ev, dest_qp, psn;
	uint8_t opcode, dscp, ecn, flags;
	bool becn;
	union ctl_xh xh;
};

static void ctl_pack(struct ctl *c, uint32_t peer_host, const struct mrc_pkt *p)
{
	c->peer_host = peer_host;
	c->ev = p->ev;
	c->dest_qp = p->dest_qp;
	c->psn = p->psn;
	c->opcode = p->opcode;
	c->dscp = p->dscp;
	c->ecn = p->ecn;
	c->flags = p->flags;
	c->becn = p->becn;
	memcpy(&c->xh, &p->aeth, sizeof(c->xh));
}

static void ctl_unpack(const struct ctl *c, struct mrc_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->hop_limit = 64;
	p->ev = c->ev;
	p->dest_qp = c->dest_qp;
	p->psn = c->psn;
	p->opcode = c->opcode;
	p->dscp = c->dscp;
	p->ecn = c->ecn;
	p->flags = c->flags;
	p->becn = c->becn;
	memcpy(&p->aeth, &c->xh, sizeof(c->xh));
}

struct ctlq {
	struct ctl *q;
	unsigned cap, head, len;
};

/* An EV probe in flight (mrc_ep_ev_probe): what its answer must match. */
struct ep_probe {
	uint64_t sent_ps; /* 0: the slot is free */
	uint32_t peer, ev;
	uint16_t req_id, tx_ts;
};

struct mrc_ep {
	struct mrc_ep_params p;
	struct mrc_ev_profile *ev_prof; /* built from p.ev or given; shared by the QPs */
	uint64_t *ev_losses;		/* [ev_prof->n] losses counted by our QPs */
	struct mrc_ep_ops ops;
	void *ctx;
	const struct mrc_cc_ops *cc_ops;
	bool paced; /* cc_ops is rate-based: QPs learn their packets' lengths (mrc_qp_tx_len) */
	struct mrc_qp_env env;
	struct mrc_qp_rtt_ens ens; /* the QPs' shared RTT samples (env.ens) */
	struct mrc_qp **qps; /* [qps_cap], grown with the QPs created */
	unsigned n_qps, qps_cap;
	struct mr *mrs;
	unsigned n_mrs;
	bool up[MRC_EV_MAX_PLANES];
	struct ctlq ctlq[MRC_EV_MAX_PLANES];
	unsigned rr[MRC_EV_MAX_PLANES]; /* next QP to serve, per plane */
	bool rr_started;		/* rr points at the first QP to a higher host */
	unsigned wake_rr;		/* plane told first on the next wake of all planes */
	struct mrc_ep_stats st;
	struct timers *tm;
	struct ep_probe probes[MRC_EP_PROBES_MAX];
	uint16_t req_id; /* the last endpoint request's id */
	/* Receive share (ep_rx_fair_bps): data bytes and the QPs they came to in the current
	 * window of two base RTTs; each QP's window stamp; the last window's fair share. */
	uint64_t rxw_start_ps, rxw_bytes, rxw_id, fair_bps;
	unsigned rxw_qps;
	uint64_t *qp_rxw; /* [qps_cap] */
};

/*
 * Each QP's next timer, cached: a driver asks for the endpoint's earliest timer after
 * every event, and scanning every QP (and its EVs) each time made a 128-host all-to-all
 * spend half its time there. A QP's timer changes only inside a call on that QP, so every
 * such call refreshes its entry. The entries are the leaves of a min segment tree (t[p +
 * i] for QP i, t[k] = min(t[2k], t[2k + 1]), t[1] the earliest): an update walks log2(p)
 * nodes of one small array and never touches another QP, whose memory is a cache miss
 * each in a large job. Behind a pointer so mrc_ep_next_timer() can stay const.
 *
 * Beside them, which QPs may have a packet for each plane: per plane a bitmap over the
 * QPs, bit i set unless QP i declined the plane (mrc_qp_tx false) and nothing reached it
 * since — no packet, post, timer or port change, the only ways a QP's answer changes (time
 * alone changes it only through a timer: holds and probes are in mrc_qp_next_timer).
 * mrc_ep_tx asks the ready ones in the same round-robin order, so the packets are the
 * same, finding them a word (64 QPs) at a time instead of asking 127 idle QPs per packet
 * in a 128-host all-to-all.
 */
struct timers {
	uint64_t *t;	 /* [2 * p]: the tree, leaves at p.. */
	unsigned p;	 /* leaves: a power of 2 >= the QPs, doubled as they are created */
	unsigned words;	 /* per plane in ready: (p + 63) / 64 */
	uint64_t *ready; /* [plane * words + i / 64] bit i % 64: QP i may send on the plane */
};

static inline uint64_t *ready_word(const struct mrc_ep *ep, unsigned plane, unsigned i)
{
	return &ep->tm->ready[plane * ep->tm->words + i / 64];
}

/* Marks QP @i ready on @plane, or on every plane when @plane < 0. */
static void set_ready(const struct mrc_ep *ep, unsigned i, int plane)
{
	uint64_t bit = 1ull << (i % 64);

	if (plane >= 0) {
		if ((unsigned)plane < ep->p.planes)
			*ready_word(ep, (unsigned)plane, i) |= bit;
		return;
	}
	for (unsigned pl = 0; pl < ep->p.planes; pl++)
		*ready_word(ep, pl, i) |= bit;
}

/* QP @i is ready on no plane. */
static void clear_ready(const struct mrc_ep *ep, unsigned i)
{
	for (unsigned pl = 0; pl < ep->p.planes; pl++)
		*ready_word(ep, pl, i) &= ~(1ull << (i % 64));
}

/* The first QP index in [@from, @to) ready on @plane, or @to. */
static unsigned next_ready(const struct mrc_ep *ep, unsigned plane, unsigned from, unsigned to)
{
	const uint64_t *m = ready_word(ep, plane, 0);

	for (unsigned w = from / 64; w * 64 < to; w++) {
		uint64_t x = m[w];

		if (w == from / 64)
			x &= ~0ull << (from % 64);
		if (x) {
			unsigned i = w * 64 + (unsigned)__builtin_ctzll(x);

			return i < to ? i : to;
		}
	}
	return to;
}

static void set_timer(struct timers *tm, unsigned i, uint64_t v)
{
	unsigned k = tm->p + i;

	tm->t[k] = v;
	for (k /= 2; k; k /= 2) {
		uint64_t m = tm->t[2 * k] < tm->t[2 * k + 1] ? tm->t[2 * k] : tm->t[2 * k + 1];

		if (tm->t[k] == m)
			break; /* the rest of the path already holds it */
		tm->t[k] = m;
	}
}

static void refresh_timer(const struct mrc_ep *ep, unsigned i)
{
	set_timer(ep->tm, i, mrc_qp_next_timer(ep->qps[i]));
}

/* QP @i was called: its timer may have moved and it may have packets on any plane. */
static void touch(const struct mrc_ep *ep, unsigned i)
{
	set_ready(ep, i, -1);
	refresh_timer(ep, i);
}

static void touch_qp(const struct mrc_ep *ep, uint32_t qpn)
{
	touch(ep, qpn - ep->p.first_qpn);
}

void mrc_ep_params_default(
	struct mrc_ep_params *p, unsigned planes, uint64_t port_rate_bps, uint64_t base_rtt_ps)
{
	memset(p, 0, sizeof(*p));
	p->planes = planes;
	mrc_wire_cfg_default(&p->wire);
	mrc_qp_params_default(&p->qp);
	p->cc = "nscc";
	mrc_cc_defaults(
		&p->cc_params, port_rate_bps * (planes ? planes : 1), base_rtt_ps, p->qp.mtu, true);
	p->cc_params.dcqcn.max_rate_bps = port_rate_bps; /* a RoCE QP has one port */
	p->ev.ev_min_active = 1;
	p->ev.backup_per_plane = UINT32_MAX;
	p->ev.skip_hold_ps = 0;
	p->ev.probe_backoff_ps = 100000000;
	p->ev.probe_backoff_max_ps = 10000000000ull;
	p->ev.probe_damping = true;
	p->first_qpn = 1;
	p->max_qps = 1024;
	p->ctl_queue_max = 65536;
	p->ep_rsp_timeout_ps = 2000000000ull;
	p->port_rate_bps = port_rate_bps;
}

static bool ep_plane_up(void *owner, unsigned plane)
{
	struct mrc_ep *ep = owner;

	return plane < ep->p.planes && ep->up[plane];
}

/*
 * env.same_path: whether EVs @a and @b take this endpoint's packets to @peer_host over one
 * path. In EV format srv6 a packet's path is in its own addresses (the outer destination's
 * uSID container, and the SRH's segments), which params.path fills from the EV: two EVs
 * given the same ones cross the same switches and links. In stev and udp the fabric's ECMP
 * hash of the EV picks the path: never known, false; so is a path that fails to build.
 */
static bool ep_same_path(void *owner, uint32_t peer_host, uint32_t a, uint32_t b)
{
	struct mrc_ep *ep = owner;
	struct mrc_pkt x = {.ev = a}, y = {.ev = b};

	if (ep->p.wire.ev_format != MRC_EVF_SRV6 ||
		ep->p.path(ep->ctx, peer_host, a, &x) < 0 ||
		ep->p.path(ep->ctx, peer_host, b, &y) < 0)
		return false;
	return !memcmp(&x.outer_dst, &y.outer_dst, sizeof(x.outer_dst)) &&
	       x.n_segs == y.n_segs && x.n_segs <= MRC_SRH_MAX_SEGS &&
	       !memcmp(x.segs, y.segs, x.n_segs * sizeof(x.segs[0]));
}

static void ep_wake(void *owner, uint32_t qpn, int plane)
{
	struct mrc_ep *ep = owner;
	uint32_t i = qpn - ep->p.first_qpn;

	if (i < ep->n_qps) /* its timer: every ep call into a QP touches it afterwards */
		set_ready(ep, i, plane);
	if (!ep->ops.tx_ready)
		return;
	if (plane >= 0) {
		if ((unsigned)plane < ep->p.planes && ep->up[plane])
			ep->ops.tx_ready(ep->ctx, (unsigned)plane);
		return;
	}
	/* A QP that only heard an acknowledgement and has nothing left to send: pulls by
	 * every port would all come back empty (in a 128-host all-to-all, 7 of 8 pulls
	 * were). The rotation still moves on, so the next wake starts where it would have;
	 * events at one instant can still run in another order (a real wake's pull is no
	 * longer the one an empty wake scheduled earlier), so results differ from before. */
	if (i < ep->n_qps && mrc_qp_tx_idle(ep->qps[i])) {
		ep->wake_rr++;
		return;
	}
	/*
	 * Every plane, starting one further each time: when an ACK opens a window-limited
	 * QP by one packet, the port told first takes it, so a fixed order gave plane 0 three
	 * times plane 1's share in an 8-rank incast (5.5 vs 1.8 MB at the receiver's ports).
	 */
	for (unsigned k = 0, p = ep->wake_rr++ % ep->p.planes; k < ep->p.planes;
		k++, p = p + 1 == ep->p.planes ? 0 : p + 1)
		if (ep->up[p])
			ep->ops.tx_ready(ep->ctx, p);
}

/*
 * The receiver's share rule (docs/wire-format.md "Receiver signals"): over windows of two
 * base RTTs, when the data arriving at all our ports filled 90% of their line rate, each
 * of the QPs it came to gets an equal share of it; 0 when the ports are not the
 * bottleneck (or one QP alone fills them: its sender's CC sees the queue).
 */
static void ep_rx_count(struct mrc_ep *ep, unsigned qi, size_t len, uint64_t now_ps)
{
	uint64_t win = 2 * ep->p.cc_params.base_rtt_ps;

	if (!win || !ep->p.port_rate_bps)
		return;
	if (now_ps - ep->rxw_start_ps >= win) {
		uint64_t dur = now_ps - ep->rxw_start_ps;
		double cap = (double)ep->p.port_rate_bps * ep->p.planes;
		double rate = (double)ep->rxw_bytes * 8e12 / (double)dur;

		ep->fair_bps = rate >= 0.9 * cap && ep->rxw_qps >= 2 && dur < 2 * win
				       ? (uint64_t)(cap / ep->rxw_qps)
				       : 0;
		ep->rxw_start_ps = now_ps;
		ep->rxw_bytes = 0;
		ep->rxw_qps = 0;
		ep->rxw_id++;
	}
	ep->rxw_bytes += len;
	if (ep->qp_rxw[qi] != ep->rxw_id + 1) {
		ep->qp_rxw[qi] = ep->rxw_id + 1;
		ep->rxw_qps++;
	}
}

static uint64_t ep_rx_fair_bps(void *owner)
{
	return ((struct mrc_ep *)owner)->fair_bps;
}

static void ep_emit_ctl(void *owner, unsigned plane, uint32_t peer_host, const struct mrc_pkt *pkt)
{
	struct mrc_ep *ep = owner;
	struct ctlq *q;
	struct ctl *c;
	bool was_empty;

	/* Our port on that plane is down: answer on the first port that is up. */
	if (plane >= ep->p.planes || !ep->up[plane]) {
		unsigned p;

		for (p = 0; p < ep->p.planes && !ep->up[p]; p++)
			;
		if (p == ep->p.planes) {
			ep->st.ctl_dropped++;
			return;
		}
		plane = p;
	}
	q = &ep->ctlq[plane];
	if (q->len == q->cap) {
		unsigned ncap = q->cap ? q->cap * 2 : 1; /* grown on need: few wait */
		struct ctl *nq;

		if (q->cap >= ep->p.ctl_queue_max) {
			ep->st.ctl_dropped++;
			return;
		}
		nq = malloc(ncap * sizeof(*nq));
		if (!nq) {
			ep->st.ctl_dropped++;
			return;
		}
		for (unsigned i = 0; i < q->len; i++)
			nq[i] = q->q[(q->head + i) % q->cap];
		free(q->q);
		q->q = nq;
		q->cap = ncap;
		q->head = 0;
	}
	was_empty = q->len == 0;
	c = &q->q[(q->head + q->len) % q->cap];
	ctl_pack(c, peer_host, pkt);
	q->len++;
	if (was_empty && ep->ops.tx_ready)
		ep->ops.tx_ready(ep->ctx, plane);
}

static int ep_place(void *owner, uint32_t rkey, uint64_t va, const uint8_t *data, uint32_t len)
{
	struct mrc_ep *ep = owner;

	for (unsigned i = 0; i < ep->n_mrs; i++) {
		struct mr *m = &ep->mrs[i];
		uint64_t base = m->va;

		if (m->rkey != rkey)
			continue;
		if (va < base || len > m->len || va - base > m->len - len)
			return -EACCES;
		if (!m->base) { /* a sink MR (no memory) checks the access, keeps no bytes */
			if (ep->ops.placed)
				ep->ops.placed(ep->ctx, rkey, va - base, data, len);
			return 0;
		}
		if (data)
			memcpy(m->base + (va - base), data, len);
		else /* a gathered payload without source bytes (traffic.verify off) */
			memset(m->base + (va - base), 0, len);
		return 0;
	}
	return -EACCES;
}

/* A given profile must hold the EV list of the params, in order, over the same planes. */
static bool ev_prof_matches(const struct mrc_ep_params *p)
{
	const struct mrc_ev_profile *f = p->ev_prof;

	if (f->n != p->ev.n_evs || f->planes != p->planes)
		return false;
	for (unsigned i = 0; i < f->n; i++)
		if (f->value[i] != p->ev.evs[i])
			return false;
	return true;
}

int mrc_ep_new(
	const struct mrc_ep_params *p, const struct mrc_ep_ops *ops, void *ctx, struct mrc_ep **out)
{
	struct mrc_ep *ep;
	int rc;

	if (!p->planes || p->planes > MRC_EV_MAX_PLANES || !p->path || !p->ev_plane ||
		!p->ev.n_evs || !p->ev.evs)
		return -EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ep->p = *p;
	ep->cc_ops = mrc_cc_find(p->cc ? p->cc : "nscc");
	if (!ep->cc_ops) {
		free(ep);
		return -EINVAL;
	}
	ep->paced = mrc_cc_rate_based(ep->cc_ops);
	if (!ep->p.first_qpn)
		ep->p.first_qpn = 1;
	if (!ep->p.max_qps)
		ep->p.max_qps = 1024;
	if (!ep->p.ctl_queue_max)
		ep->p.ctl_queue_max = 65536;
	if (!ep->p.ep_rsp_timeout_ps)
		ep->p.ep_rsp_timeout_ps = 2000000000ull;
	ep->tm = calloc(1, sizeof(*ep->tm));
	if (ep->tm) { /* one leaf, the root, until QPs come */
		ep->tm->p = 1;
		ep->tm->t = malloc(2 * sizeof(uint64_t));
		ep->tm->words = 1;
		ep->tm->ready = calloc(p->planes, sizeof(uint64_t));
		if (ep->tm->t)
			ep->tm->t[0] = ep->tm->t[1] = UINT64_MAX;
	}
	if (!ep->tm || !ep->tm->t || !ep->tm->ready) {
		mrc_ep_free(ep);
		return -ENOMEM;
	}
	/* the QPs use the profile alone: the caller's arrays are not kept */
	ep->p.ev.evs = ep->p.ev.deny = NULL;
	if (p->ev_prof) {
		rc = ev_prof_matches(p) ? 0 : -EINVAL;
		if (!rc) {
			ep->ev_prof = p->ev_prof;
			ep->ev_prof->refs++;
		}
	} else {
		rc = mrc_ev_profile_new(&p->ev, p->planes, p->ev_plane, ctx, &ep->ev_prof);
	}
	if (!rc) {
		ep->ev_losses = calloc(ep->ev_prof->n, sizeof(*ep->ev_losses));
		rc = ep->ev_losses ? 0 : -ENOMEM;
	}
	if (rc) {
		mrc_ep_free(ep);
		return rc;
	}
	if (ops)
		ep->ops = *ops;
	ep->ctx = ctx;
	for (unsigned i = 0; i < p->planes; i++)
		ep->up[i] = true;
	ep->env = (struct mrc_qp_env){
		.qp = &ep->p.qp,
		.ev_prof = ep->ev_prof,
		.ev_losses = ep->ev_losses,
		.cc_ops = ep->cc_ops,
		.cc = &ep->p.cc_params,
		.ens = p->qp.rtt_ensemble ? &ep->ens : NULL,
		.planes = p->planes,
		.ev_udp = p->wire.ev_format == MRC_EVF_UDP,
		.dscp_trimmed_lasthop = p->wire.dscp_trimmed_lasthop,
		.ev_plane = p->ev_plane,
		.ops = &ep->ops,
		.ctx = ctx,
		.owner = ep,
		.plane_up = ep_plane_up,
		.rx_fair_bps = ep_rx_fair_bps,
		.same_path = ep_same_path,
		.emit_ctl = ep_emit_ctl,
		.place = ep_place,
		.wake = ep_wake,
	};
	*out = ep;
	return 0;
}

void mrc_ep_free(struct mrc_ep *ep)
{
	if (!ep)
		return;
	for (unsigned i = 0; i < ep->n_qps; i++)
		mrc_qp_free(ep->qps[i]);
	for (unsigned p = 0; p < MRC_EV_MAX_PLANES; p++)
		free(ep->ctlq[p].q);
	free(ep->qps);
	free(ep->qp_rxw);
	if (ep->tm) {
		free(ep->tm->t);
		free(ep->tm->ready);
	}
	free(ep->tm);
	free(ep->mrs);
	mrc_ev_profile_put(ep->ev_prof);
	free(ep->ev_losses);
	free(ep);
}

int mrc_ep_reg_mr(struct mrc_ep *ep, void *base, uint64_t len, uint32_t *rkey)
{
	return mrc_ep_reg_mr_va(ep, base, (uint64_t)(uintptr_t)base, len, rkey);
}

int mrc_ep_reg_mr_va(struct mrc_ep *ep, void *base, uint64_t va, uint64_t len, uint32_t *rkey)
{
	struct mr *n;

	if (!len || va + len < va)
		return -EINVAL;
	n = realloc(ep->mrs, (ep->n_mrs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	ep->mrs = n;
	/* R_Keys: host in the high byte so a key from another endpoint never matches. */
	n[ep->n_mrs] = (struct mr){ .base = base, .va = va, .len = len,
		.rkey = (ep->p.host & 0xFF) << 24 | (0x100u + ep->n_mrs) };
	*rkey = n[ep->n_mrs].rkey;
	ep->n_mrs++;
	return 0;
}

struct mrc_qp *mrc_ep_qp(const struct mrc_ep *ep, uint32_t qpn)
{
	uint32_t i = qpn - ep->p.first_qpn;

	return qpn >= ep->p.first_qpn && i < ep->n_qps ? ep->qps[i] : NULL;
}

/*
 * Room for one more QP: doubles the QP table and the timer tree (leaves copied, inner
 * nodes recomputed) when full. Returns 0 or -ENOMEM.
 */
static int ep_grow(struct mrc_ep *ep)
{
	struct timers *tm = ep->tm;
	unsigned cap, p;
	struct mrc_qp **q;
	uint64_t *t, *rd;
	unsigned words;

	if (ep->n_qps < ep->qps_cap)
		return 0;
	cap = ep->qps_cap ? 2 * ep->qps_cap : 4;
	if (cap > ep->p.max_qps)
		cap = ep->p.max_qps;
	q = realloc(ep->qps, cap * sizeof(*q));
	if (!q)
		return -ENOMEM;
	ep->qps = q;
	t = realloc(ep->qp_rxw, cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	ep->qp_rxw = t;
	memset(t + ep->qps_cap, 0, (cap - ep->qps_cap) * sizeof(*t));
	for (p = 1; p < cap; p *= 2)
		;
	if (p > tm->p) {
		words = (p + 63) / 64;
		t = malloc(2 * (size_t)p * sizeof(*t));
		rd = calloc((size_t)ep->p.planes * words, sizeof(*rd));
		if (!t || !rd) {
			free(t);
			free(rd);
			return -ENOMEM;
		}
		for (unsigned pl = 0; pl < ep->p.planes; pl++)
			memcpy(rd + pl * words, tm->ready + pl * tm->words,
				tm->words * sizeof(*rd));
		free(tm->ready);
		tm->ready = rd;
		tm->words = words;
		for (unsigned i = 0; i < p; i++)
			t[p + i] = i < tm->p ? tm->t[tm->p + i] : UINT64_MAX;
		for (unsigned k = p - 1; k; k--)
			t[k] = t[2 * k] < t[2 * k + 1] ? t[2 * k] : t[2 * k + 1];
		free(tm->t);
		tm->t = t;
		tm->p = p;
	}
	ep->qps_cap = cap;
	return 0;
}

int mrc_ep_qp_create(struct mrc_ep *ep, uint32_t peer_host, uint32_t peer_qpn, uint32_t *qpn)
{
	uint32_t n = ep->p.first_qpn + ep->n_qps;
	uint64_t seed =
		ep->p.seed ^ (0x9E3779B97F4A7C15ull * (n + 1)) ^ ((uint64_t)ep->p.host << 40);
	int rc;

	if (ep->n_qps == ep->p.max_qps || n > MRC_PSN_MASK)
		return -ENOSPC;
	rc = ep_grow(ep);
	if (rc)
		return rc;
	/* RoCE: one NIC port per QP, the host's QPs over its ports round robin from port
	 * host mod planes (as NCCL spreads its channels over the NICs), so that hosts' first
	 * QPs spread over the planes too (docs/roce-baseline.md "NIC ports") */
	rc = mrc_qp_new(&ep->env, n, peer_host, peer_qpn, seed,
		(ep->p.host + ep->n_qps) % ep->p.planes, &ep->qps[ep->n_qps]);
	if (rc)
		return rc;
	/* The round robin starts at the first QP to a host above this one: QPs made in
	 * ascending peer order are then served from rank + 1 on, the order a collective posts
	 * them in (nccl's peer = rank + k). Every host starting at host 0 made an all-to-all a
	 * rolling incast (every host on host 0, then on host 1, ...). */
	if (!ep->rr_started && peer_host > ep->p.host) {
		for (unsigned p = 0; p < MRC_EV_MAX_PLANES; p++)
			ep->rr[p] = ep->n_qps;
		ep->rr_started = true;
	}
	ep->n_qps++;
	touch(ep, ep->n_qps - 1);
	*qpn = n;
	return 0;
}

int mrc_ep_qp_connect(struct mrc_ep *ep, uint32_t qpn, uint32_t peer_qpn)
{
	struct mrc_qp *qp = mrc_ep_qp(ep, qpn);

	if (!qp)
		return -ENOENT;
	mrc_qp_set_peer(qp, peer_qpn);
	touch_qp(ep, qpn);
	return 0;
}

int mrc_ep_post_write(struct mrc_ep *ep, uint32_t qpn, const void *local, uint64_t len,
	uint64_t remote_va, uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id,
	uint64_t now_ps)
{
	struct mrc_qp *qp = mrc_ep_qp(ep, qpn);

	int rc;

	if (!qp)
		return -ENOENT;
	rc = mrc_qp_post_write(qp, local, len, remote_va, rkey, with_imm, imm, wr_id, now_ps);
	touch_qp(ep, qpn);
	return rc;
}

/* ---- endpoint operations (docs/wire-format.md "Endpoint operations") ---------------- */

/* ns mod 2^16: the 16-bit timestamps of TSETH, PETH, ERTH. */
static uint16_t ep_ts16(uint64_t now_ps)
{
	return (uint16_t)(now_ps / 1000);
}

/* Queues an endpoint request or response for @peer on @plane over @ev. */
static void ep_op_emit(struct mrc_ep *ep, unsigned plane, uint32_t peer, uint8_t opcode,
	uint32_t ev, uint8_t dscp, uint16_t req_id, struct mrc_pkt *c)
{
	c->opcode = opcode;
	c->hop_limit = 64;
	c->dscp = dscp;
	c->ev = ev;
	c->dest_qp = MRC_EP_DEST_QP;
	c->psn = req_id;
	ep_emit_ctl(ep, plane, peer, c);
}

/* Bit N set for each port N (1-based) that is up: mrc_ctl.h's port status mask. */
static uint32_t ep_port_mask(const struct mrc_ep *ep)
{
	uint32_t m = 0;

	for (unsigned pl = 0; pl < ep->p.planes; pl++)
		m |= (uint32_t)ep->up[pl] << (pl + 1);
	return m;
}

/* A request from @host (its inner source) on @plane: answered at once over its EV. */
static void ep_req_rx(struct mrc_ep *ep, unsigned plane, int host, const struct mrc_pkt *p,
	bool ce, uint64_t now_ps)
{
	struct mrc_pkt c;

	if (host < 0) { /* no peer_of: the sender is unknown, nothing to answer to */
		ep->st.ep_req_drop++;
		return;
	}
	ep->st.ep_req_rx[p->erth.op & 1]++;
	if (p->erth.op == MRC_EP_OP_PORT_STATUS && ep->p.qp.transport == MRC_QP_MRC) {
		uint32_t up = p->erth.port_status >> 1; /* port N = plane N - 1 */

		for (unsigned i = 0; i < ep->n_qps; i++) {
			if (mrc_qp_peer_host(ep->qps[i]) != (uint32_t)host)
				continue;
			mrc_qp_peer_ports(ep->qps[i], up);
			touch(ep, i);
		}
	}
	memset(&c, 0, sizeof(c));
	c.eeth.op = p->erth.op;
	c.eeth.tx_ts_echo = p->erth.tx_ts;
	ep_op_emit(ep, plane, (uint32_t)host, MRC_OP_EP_RESPONSE, p->ev, ep->p.qp.dscp_ctl,
		(uint16_t)p->psn, &c);
	ep->st.ep_rsp_tx++;
	if (ep->ops.ep_request)
		ep->ops.ep_request(ep->ctx, (uint32_t)host, p->ev, p->erth.op, ce, now_ps);
}

/* A response: an EV probe's answer when it matches one in flight, else dropped. */
static void ep_rsp_rx(struct mrc_ep *ep, unsigned plane, int host, const struct mrc_pkt *p,
	uint64_t now_ps)
{
	uint16_t id = (uint16_t)p->psn;

	for (unsigned i = 0; i < MRC_EP_PROBES_MAX; i++) {
		struct ep_probe *pr = &ep->probes[i];
		uint64_t rtt;

		if (!pr->sent_ps || pr->req_id != id || pr->ev != p->ev ||
			(host >= 0 && pr->peer != (uint32_t)host) ||
			p->eeth.op != MRC_EP_OP_EV_PROBE || p->eeth.tx_ts_echo != pr->tx_ts)
			continue;
		rtt = now_ps - pr->sent_ps;
		pr->sent_ps = 0;
		if (rtt > ep->p.ep_rsp_timeout_ps)
			break; /* too late: the caller stopped waiting */
		ep->st.ep_rsp_rx++;
		if (ep->ops.ep_response)
			ep->ops.ep_response(ep->ctx, id, pr->peer, pr->ev, plane + 1, rtt / 1000,
				now_ps);
		return;
	}
	ep->st.ep_rsp_unmatched++;
}

static void ep_op_rx(struct mrc_ep *ep, unsigned plane, int host, const struct mrc_pkt *p,
	bool ce, uint64_t now_ps)
{
	if (p->opcode == MRC_OP_EP_REQUEST)
		ep_req_rx(ep, plane, host, p, ce, now_ps);
	else
		ep_rsp_rx(ep, plane, host, p, now_ps);
}

int mrc_ep_ev_probe(struct mrc_ep *ep, uint32_t peer_host, uint32_t ev, uint64_t now_ps)
{
	struct ep_probe *slot = NULL;
	struct mrc_pkt c;
	unsigned plane;

	if (!ep->p.peer_of || mrc_ev_profile_find(ep->ev_prof, ev) < 0)
		return -EINVAL;
	plane = ep->p.ev_plane(ep->ctx, ev);
	if (plane >= ep->p.planes || !ep->up[plane])
		return -ENETDOWN;
	for (unsigned i = 0; i < MRC_EP_PROBES_MAX; i++) {
		struct ep_probe *pr = &ep->probes[i];

		if (pr->sent_ps && now_ps - pr->sent_ps > ep->p.ep_rsp_timeout_ps)
			pr->sent_ps = 0; /* unanswered in time: its slot is free again */
		if (!pr->sent_ps && !slot)
			slot = pr;
	}
	if (!slot)
		return -EBUSY;
	ep->req_id++;
	*slot = (struct ep_probe){.sent_ps = now_ps ? now_ps : 1, .peer = peer_host, .ev = ev,
		.req_id = ep->req_id, .tx_ts = ep_ts16(now_ps)};
	memset(&c, 0, sizeof(c));
	c.erth.op = MRC_EP_OP_EV_PROBE;
	c.erth.tx_ts = slot->tx_ts;
	c.erth.ftype = 1;
	c.ecn = 2; /* ECT(0), as data: the fabric marks it where it would mark data */
	ep_op_emit(ep, plane, peer_host, MRC_OP_EP_REQUEST, ev, ep->p.qp.dscp_data, ep->req_id, &c);
	ep->st.ep_req_tx[MRC_EP_OP_EV_PROBE]++;
	return ep->req_id;
}

/* Tells every peer host of our MRC QPs which of our ports are up, from port @plane (or
 * the first that is up when it is down). */
static void ep_port_status_tx(struct mrc_ep *ep, unsigned plane, uint64_t now_ps)
{
	uint32_t mask = ep_port_mask(ep);
	unsigned out = plane;

	if (!ep->up[out])
		for (out = 0; out < ep->p.planes && !ep->up[out]; out++)
			;
	if (out == ep->p.planes || ep->p.qp.transport != MRC_QP_MRC)
		return; /* no port left to tell the peers through; RoCE has no such update */
	for (unsigned i = 0; i < ep->n_qps; i++) {
		uint32_t peer = mrc_qp_peer_host(ep->qps[i]);
		struct mrc_pkt c;
		unsigned k;

		for (k = 0; k < i && mrc_qp_peer_host(ep->qps[k]) != peer; k++)
			;
		if (k < i)
			continue; /* that host was told */
		memset(&c, 0, sizeof(c));
		c.erth.op = MRC_EP_OP_PORT_STATUS;
		c.erth.port_status = mask;
		c.erth.tx_ts = ep_ts16(now_ps);
		c.erth.ftype = 1;
		ep_op_emit(ep, out, peer, MRC_OP_EP_REQUEST, mrc_qp_ctl_ev(ep->qps[i], out, now_ps),
			ep->p.qp.dscp_ctl, ++ep->req_id, &c);
		ep->st.ep_req_tx[MRC_EP_OP_PORT_STATUS]++;
	}
}

/* mrc_ep_on_rx, or with @g the packet's payload apart from its headers */
static void on_rx(struct mrc_ep *ep, unsigned plane, const uint8_t *pkt, size_t len,
	const struct mrc_wire_gather *g, bool ce, uint64_t now_ps)
{
	size_t have = g ? g->hlen : len; /* bytes at @pkt */
	struct mrc_pkt p;
	struct mrc_qp *qp;
	bool outer;
	int r, host = -1;

	if (plane >= ep->p.planes)
		return;
	ep->st.rx_pkts[plane]++;
	ep->st.rx_bytes[plane] += len;
	if (have >= MRC_IP6_HLEN && pkt[6] == MRC_NH_ICMP6) {
		struct mrc_icmp6 ic;

		if (mrc_wire_decode_icmp6(pkt, have, &ic) != MRC_WIRE_OK)
			ep->st.rx_decode_err++;
		else if (ic.type == MRC_ICMP6_TIME_EXCEEDED && ic.code == 0)
			ep->st.rx_icmp_time_exceeded++;
		else
			ep->st.rx_icmp_other++;
		return;
	}
	/* The inner packet alone starts with IPv6 next header UDP; a full packet's outer
	 * header says IPv6-in-IPv6 (41) or routing (43). */
	outer = ep->p.wire.ev_format == MRC_EVF_SRV6 && !(have >= MRC_IP6_HLEN && pkt[6] == 17);
	r = g ? mrc_wire_decode_gather(&ep->p.wire, pkt, len, g, outer, &p)
	      : mrc_wire_decode(&ep->p.wire, pkt, len, outer, &p);
	if (r != MRC_WIRE_OK) {
		ep->st.rx_decode_err++;
		return;
	}
	if (ep->p.peer_of) {
		unsigned src_plane;

		host = ep->p.peer_of(ep->ctx, &p.src, &src_plane);
		if (host < 0) {
			ep->st.rx_foreign++;
			return;
		}
		/* a RoCE packet's EV is its QP's UDP source port, not one of the profile's */
		if (src_plane != plane || (ep->p.qp.transport != MRC_QP_ROCE &&
						  ep->p.ev_plane(ep->ctx, p.ev) != plane)) {
			ep->st.rx_wrong_plane++;
			return;
		}
		/* addressed to us, on this port: a packet for another host, redirected here,
		 * would be placed with that host's VA and key */
		if (ep->p.peer_of(ep->ctx, &p.dst, &src_plane) != (int)ep->p.host ||
			src_plane != plane) {
			ep->st.rx_misdirected++;
			return;
		}
	}
	if (p.opcode == MRC_OP_EP_REQUEST || p.opcode == MRC_OP_EP_RESPONSE) {
		ep_op_rx(ep, plane, host, &p, ce || p.ecn == 3, now_ps);
		return;
	}
	qp = mrc_ep_qp(ep, p.dest_qp);
	if (!qp) {
		ep->st.rx_unknown_qp++;
		return;
	}
	if (host >= 0 && (uint32_t)host != mrc_qp_peer_host(qp)) {
		ep->st.rx_spoofed++;
		return;
	}
	if (p.opcode >= MRC_OP_WRITE_FIRST && p.opcode <= MRC_OP_WRITE_ONLY_IMM)
		ep_rx_count(ep, p.dest_qp - ep->p.first_qpn, len, now_ps);
	mrc_qp_on_pkt(qp, plane, &p, ce || p.ecn == 3, now_ps);
	touch_qp(ep, p.dest_qp);
}

void mrc_ep_on_rx(
	struct mrc_ep *ep, unsigned plane, const uint8_t *pkt, size_t len, bool ce, uint64_t now_ps)
{
	on_rx(ep, plane, pkt, len, NULL, ce, now_ps);
}

void mrc_ep_on_rx_gather(struct mrc_ep *ep, unsigned plane, const uint8_t *pkt, size_t len,
	const struct mrc_wire_gather *g, bool ce, uint64_t now_ps)
{
	on_rx(ep, plane, pkt, len, g, ce, now_ps);
}

/* Fills the path of @p and encodes it; counts the packet. */
static int ep_finish(struct mrc_ep *ep, unsigned plane, uint32_t peer_host, struct mrc_pkt *p,
	uint8_t *buf, size_t cap, struct mrc_wire_gather *g)
{
	const struct mrc_ev_profile *f = ep->ev_prof;
	uint32_t ev = p->ev;
	int n;

	/* RoCE: the EV a packet carries is its QP's UDP source port (qp.h "RoCE mode"); the
	 * addresses are the port's plane's, which any EV of that plane gives */
	if (ep->p.qp.transport == MRC_QP_ROCE && plane < f->planes && f->plane_n[plane])
		p->ev = f->value[f->pidx[f->plane_off[plane]]];
	if (ep->p.path(ep->ctx, peer_host, p->ev, p) < 0) {
		ep->st.path_err++;
		return -EHOSTUNREACH;
	}
	p->ev = ev;
	if (ep->p.hop_limit)
		p->hop_limit = ep->p.hop_limit;
	n = g ? mrc_wire_encode_gather(&ep->p.wire, p, buf, cap, g)
	      : mrc_wire_encode(&ep->p.wire, p, buf, cap);
	if (n < 0) {
		ep->st.tx_encode_err++;
		return n;
	}
	ep->st.tx_pkts[plane]++;
	ep->st.tx_bytes[plane] += (unsigned)n;
	return n;
}

/* The next packet of port @plane: queued control first, then the QPs round robin (not
 * when @ctrl_only). */
static int ep_tx(struct mrc_ep *ep, unsigned plane, uint64_t now_ps, uint8_t *buf, size_t cap,
	struct mrc_wire_gather *g, bool ctrl_only)
{
	struct ctlq *q;
	struct mrc_pkt p;

	if (plane >= ep->p.planes || !ep->up[plane])
		return 0;
	q = &ep->ctlq[plane];
	if (q->len) {
		struct ctl *c = &q->q[q->head];
		uint32_t peer = c->peer_host;

		ctl_unpack(c, &p);
		q->head = (q->head + 1) % q->cap;
		q->len--;
		return ep_finish(ep, plane, peer, &p, buf, cap, g);
	}
	if (ctrl_only)
		return 0;
	/* round robin from rr: [rr, n_qps), then [0, rr), each ready QP asked once */
	for (unsigned pass = 0, from = ep->rr[plane], to = ep->n_qps; pass < 2;
		pass++, to = from, from = 0) {
		for (unsigned i = next_ready(ep, plane, from, to); i < to;
			i = next_ready(ep, plane, i + 1, to)) {
			if (mrc_qp_tx(ep->qps[i], plane, now_ps, &p)) {
				int n;

				/* a send may let a plane send where it was refused (the next
				 * retransmission's EV is another): every plane asks again */
				ep->rr[plane] = i + 1 == ep->n_qps ? 0 : i + 1;
				n = ep_finish(ep, plane, mrc_qp_peer_host(ep->qps[i]), &p, buf,
					cap, g);
				/* a rate-based CC paces the QP by the packet's length */
				if (n > 0 && ep->paced)
					mrc_qp_tx_len(ep->qps[i], (uint32_t)n, now_ps);
				touch(ep, i);
				return n;
			}
			/* declined: asked again after something reaches it; asking may have
			 * moved a hold or probe time. A refusal for want of data or window
			 * holds on every plane: they need not ask to hear it. */
			if (mrc_qp_tx_refused_all(ep->qps[i]))
				clear_ready(ep, i);
			else
				*ready_word(ep, plane, i) &= ~(1ull << (i % 64));
			refresh_timer(ep, i);
		}
	}
	return 0;
}

int mrc_ep_tx(struct mrc_ep *ep, unsigned plane, uint64_t now_ps, uint8_t *buf, size_t cap)
{
	return ep_tx(ep, plane, now_ps, buf, cap, NULL, false);
}

int mrc_ep_tx_ctrl(struct mrc_ep *ep, unsigned plane, uint64_t now_ps, uint8_t *buf, size_t cap)
{
	return ep_tx(ep, plane, now_ps, buf, cap, NULL, true);
}

int mrc_ep_tx_gather(struct mrc_ep *ep, unsigned plane, uint64_t now_ps, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g)
{
	return ep_tx(ep, plane, now_ps, buf, cap, g, false);
}

uint64_t mrc_ep_next_timer(const struct mrc_ep *ep)
{
	return ep->tm->t[1];
}

void mrc_ep_on_timer(struct mrc_ep *ep, uint64_t now_ps)
{
	for (unsigned i = 0; i < ep->n_qps && ep->tm->t[1] <= now_ps; i++) {
		if (ep->tm->t[ep->tm->p + i] <= now_ps) {
			mrc_qp_on_timer(ep->qps[i], now_ps);
			touch(ep, i);
		}
	}
}

void mrc_ep_port_status(struct mrc_ep *ep, unsigned plane, bool up, uint64_t now_ps)
{
	if (plane >= ep->p.planes || ep->up[plane] == up)
		return;
	ep->up[plane] = up;
	if (!up) {
		/* Control packets queued for a dead port would never leave: they are lost. */
		ep->st.ctl_dropped += ep->ctlq[plane].len;
		ep->ctlq[plane].len = 0;
		ep->ctlq[plane].head = 0;
	}
	for (unsigned i = 0; i < ep->n_qps; i++) {
		mrc_qp_port_status(ep->qps[i], plane, up, now_ps);
		touch(ep, i);
	}
	ep_port_status_tx(ep, plane, now_ps);
}

int mrc_ep_ev_deny(struct mrc_ep *ep, uint32_t qpn, uint32_t ev, bool deny, uint64_t now_ps)
{
	struct mrc_qp *qp = mrc_ep_qp(ep, qpn);
	int idx;

	if (!qp)
		return -ENOENT;
	idx = mrc_ev_find(mrc_qp_evs(qp), ev);
	if (idx < 0)
		return -ENOENT;
	mrc_ev_set_denied(mrc_qp_evs(qp), idx, deny, now_ps);
	touch_qp(ep, qpn);
	return 0;
}

void mrc_ep_get_stats(const struct mrc_ep *ep, struct mrc_ep_stats *out)
{
	*out = ep->st;
}

int mrc_ep_qp_stats(const struct mrc_ep *ep, uint32_t qpn, struct mrc_qp_stats *out)
{
	struct mrc_qp *qp = mrc_ep_qp(ep, qpn);

	if (!qp)
		return -ENOENT;
	mrc_qp_get_stats(qp, out);
	return 0;
}

unsigned mrc_ep_qpns(const struct mrc_ep *ep, uint32_t *first)
{
	*first = ep->p.first_qpn;
	return ep->n_qps;
}

const struct mrc_ev_profile *mrc_ep_ev_profile(const struct mrc_ep *ep)
{
	return ep->ev_prof;
}

const uint64_t *mrc_ep_ev_losses(const struct mrc_ep *ep)
{
	return ep->ev_losses;
}

void mrc_ep_ev_losses_clear(struct mrc_ep *ep)
{
	memset(ep->ev_losses, 0, ep->ev_prof->n * sizeof(*ep->ev_losses));
}

const struct mrc_ev_set *mrc_ep_qp_evs(const struct mrc_ep *ep, uint32_t qpn)
{
	struct mrc_qp *qp = mrc_ep_qp(ep, qpn);

	return qp ? mrc_qp_evs(qp) : NULL;
}
