/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xdp: a wire rank's AF_XDP dataplane (docs/wire-xdp.md): one mrc/wire/xsk port per plane,
 * the engine encoding straight into UMEM send slots, arrivals handed to wr_rx as the raw
 * sockets would hand them (the inner packet, the outer header's CE), io_uring polling the
 * sockets and waiting no longer than the engine's next timer.
 *
 * Threads (wire.xdp_threads T, 0 = one per port, "Threads"): with T > 1, lane 0 is the
 * rank's own thread (the rendezvous, the collective, the files), lanes 1..T-1 are
 * dataplane threads. Port p
 * belongs to lane p mod T, which alone touches its rings; QP q belongs to one lane, whose
 * endpoint alone holds it (QPs split in contiguous runs). Nothing on the per-packet path
 * takes a lock: between each ordered pair of lanes, SPSC rings (mrc/wire/spsc.h) carry
 *   rx    a packet that came in on my port for your QP (its frame stays mine)
 *   ret   the frame of such a packet, done with
 *   tx    a packet of yours encoded into a send slot of my port I lent you
 *   back  a lent slot whose packet has gone
 * and between lane 0 and each other lane
 *   cmd   a write the collective posted to that lane's QP
 *   evt   that lane's endpoint's completions and EV changes, for the collective.
 * A lane waits in its own io_uring loop on its ports' sockets and an eventfd, which a
 * producer writes only when the lane said it was going to sleep.
 */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/engine/srv6.h"
#include "mrc/wire/spsc.h"
#include "mrc/wire/xsk.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define XDP_RX_BATCH   256u
#define XDP_WAIT_TX_NS 50000ull /* a turn waiting for send slots wakes after 50 us */
#define XDP_MAX_HDRS   320u	/* headers beyond mrc.mtu a packet may carry (SRH included) */
#define XDP_MAX_LANES  16
#define XDP_RING       8192u	/* entries of each ring between two lanes */

struct rx_msg {			/* rx: a packet for another lane's QP */
	const uint8_t *inner;
	uint64_t handle;
	uint32_t len;
	uint8_t plane, ce;
};

struct ret_msg {		/* ret: a frame to give back */
	uint64_t handle;
	uint32_t plane;
};

struct tx_msg {			/* tx and back: a lent send slot */
	uint32_t slot, len;
	uint32_t plane;
};

enum { EVT_SEND_DONE, EVT_RECV, EVT_EV, EVT_POST_FAIL };

struct evt_msg {		/* evt: an endpoint's notification, for lane 0 */
	uint8_t kind;
	int8_t from, to, cause;
	int32_t status;
	uint32_t qpn, arg;	/* arg: imm, or the EV */
	uint64_t wr_id, len, now_ps;
};

struct cmd_msg {		/* cmd: a write to post */
	const void *src;
	uint64_t len, va, wr_id, now_ps;
	uint32_t qpn, rkey, imm;
	bool with_imm;
};

struct lane {
	struct wr *w;		/* lane 0: the rank's; else this lane's copy */
	unsigned id;
	struct wr_xdp *d;
	struct mrc_loop *loop;	/* lane 0: w->loop */
	int efd, efd_idx;
	_Atomic int sleeping, parked;
	pthread_t th;
	bool started;
	int poll_idx[MRC_WIRERUN_MAX_PLANES];	/* its ports' watches in its loop */
	uint32_t lo, hi;	/* its QPs: [lo, hi) */
	/* slots lent by the other lanes' ports, per plane: a free stack each */
	uint32_t *lent[MRC_WIRERUN_MAX_PLANES];
	unsigned n_lent[MRC_WIRERUN_MAX_PLANES];
	/* rings into this lane, by producer lane */
	struct mrc_spsc rx[XDP_MAX_LANES], ret[XDP_MAX_LANES], tx[XDP_MAX_LANES];
	struct mrc_spsc back[XDP_MAX_LANES];
	struct mrc_spsc cmd, evt;	/* lane > 0: from lane 0, to lane 0 */
	uint64_t rx_bad, tx_refused, handoff_drops;
};

struct port_ctx {		/* a port's done callback: which port */
	struct wr_xdp *d;
	unsigned plane;
};

struct wr_xdp {
	struct mrc_xsk *port[MRC_WIRERUN_MAX_PLANES];
	struct port_ctx pctx[MRC_WIRERUN_MAX_PLANES];
	unsigned nlanes;	/* wire.xdp_threads */
	unsigned active;	/* lanes running: 1 until wr_xdp_start, then nlanes */
	struct lane lanes[XDP_MAX_LANES];
	_Atomic int park, stop;
	pthread_mutex_t taps_lock;
	bool taps_lock_ok;
};

static unsigned owner(const struct wr_xdp *d, unsigned plane)
{
	return plane % d->active;
}

static struct lane *me(struct wr *w)
{
	return &w->xdp->lanes[w->lane];
}

/* Wakes lane @l when it is asleep or about to be (its flag, then the rings, are read). */
static void wake(struct lane *l)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&l->sleeping) && l->efd >= 0)
		(void)!write(l->efd, &(uint64_t){ 1 }, 8);
}

/* ---- receive ---- */

/*
 * The packet the raw sockets would deliver from an arrival whose IPv6 header is at @ip
 * (@len bytes): past the outer header (and an SRH) for EV format srv6, the packet itself
 * for UDP (stev, udp). Returns the inner packet's offset and sets *@ilen, or -1.
 */
static int inner_of(const uint8_t *ip, size_t len, size_t *ilen)
{
	size_t plen, hl;

	if (len < 40)
		return -1;
	plen = get_be16(ip + 4);
	if (40 + plen > len)
		return -1;
	switch (ip[6]) {
	case 41:
		*ilen = plen;
		return 40;
	case 43:
		if (plen < 8)
			return -1;
		hl = 8 + 8 * (size_t)ip[41];
		if (hl > plen)
			return -1;
		*ilen = plen - hl;
		return (int)(40 + hl);
	case 17:
		*ilen = 40 + plen;
		return 0;
	default:
		return -1;
	}
}

unsigned wr_xdp_lane_of(const struct wr *w, uint32_t qpn)
{
	const struct wr_xdp *d = w->xdp;

	for (unsigned t = 1; d && t < d->active; t++)
		if (qpn >= d->lanes[t].lo && qpn < d->lanes[t].hi)
			return t;
	return 0;
}

/* The lane a packet goes to: its BTH DestQP's owner; lane 0 for all else (echo probes,
 * endpoint operations, a DestQP of no QP: the endpoint counts those). */
static unsigned lane_of_pkt(const struct wr *w, const uint8_t *inner, size_t len)
{
	if (w->xdp->active == 1 || len < 40 + 8 + 12)
		return 0;
	return wr_xdp_lane_of(w, get_be32(inner + 40 + 8 + 4) & 0xffffff);
}

static void rx_port(struct wr *w, unsigned plane)
{
	struct wr_xdp *d = w->xdp;
	struct lane *l = me(w);
	struct mrc_xsk *x = d->port[plane];
	struct mrc_xsk_pkt pk[XDP_RX_BATCH];
	unsigned n = mrc_xsk_rx(x, pk, XDP_RX_BATCH);

	for (unsigned i = 0; i < n; i++) {
		size_t ilen;
		int off = inner_of(pk[i].ip6, pk[i].len, &ilen);
		bool ce = ((pk[i].ip6[1] >> 4) & 3) == 3;
		unsigned t;

		if (off < 0) {
			l->rx_bad++;
		} else if ((t = lane_of_pkt(w, pk[i].ip6 + off, ilen)) != l->id) {
			struct rx_msg m = { pk[i].ip6 + off, pk[i].handle, (uint32_t)ilen,
				(uint8_t)plane, ce };

			if (mrc_spsc_push(&d->lanes[t].rx[l->id], &m)) {
				wake(&d->lanes[t]);
				continue; /* its frame comes back through ret */
			}
			l->handoff_drops++;
		} else {
			wr_rx(w, plane, pk[i].ip6 + off, ilen, ce);
		}
		mrc_xsk_rx_release(x, pk[i].handle);
	}
}

/* What the other lanes sent this one: packets to take, frames and slots to give back,
 * slots to send; lane 0 also the other lanes' notifications, the others lane 0's posts. */
static unsigned drain(struct wr *w)
{
	struct wr_xdp *d = w->xdp;
	struct lane *l = me(w);
	unsigned n = 0;

	for (unsigned s = 0; s < d->active; s++) {
		struct rx_msg rm;
		struct ret_msg em;
		struct tx_msg tm;

		if (s == l->id)
			continue;
		while (mrc_spsc_pop(&l->rx[s], &rm)) {
			struct ret_msg back = { rm.handle, rm.plane };

			wr_rx(w, rm.plane, rm.inner, rm.len, rm.ce);
			while (!mrc_spsc_push(&d->lanes[s].ret[l->id], &back))
				sched_yield(); /* never: the ring holds every frame */
			wake(&d->lanes[s]);
			n++;
		}
		while (mrc_spsc_pop(&l->ret[s], &em))
			mrc_xsk_rx_release(d->port[em.plane], em.handle), n++;
		while (mrc_spsc_pop(&l->tx[s], &tm)) {
			if (mrc_xsk_tx_slot(d->port[tm.plane], tm.slot, tm.len)) {
				l->tx_refused++; /* give it back unsent */
				mrc_spsc_push(&d->lanes[s].back[l->id], &tm);
			}
			n++;
		}
		while (mrc_spsc_pop(&l->back[s], &tm))
			l->lent[tm.plane][l->n_lent[tm.plane]++] = tm.slot, n++;
	}
	if (l->id) {
		struct cmd_msg c;

		while (mrc_spsc_pop(&l->cmd, &c)) {
			int e = mrc_ep_post_write(w->ep, c.qpn, c.src, c.len, c.va, c.rkey,
				c.with_imm, c.imm, c.wr_id, c.now_ps);

			if (e) {
				struct evt_msg ev = { .kind = EVT_POST_FAIL, .status = e,
					.qpn = c.qpn, .wr_id = c.wr_id };

				while (!mrc_spsc_push(&l->evt, &ev))
					sched_yield();
				wake(&d->lanes[0]);
			}
			n++;
		}
		return n;
	}
	for (unsigned s = 1; s < d->active; s++) {
		struct evt_msg ev;

		while (mrc_spsc_pop(&d->lanes[s].evt, &ev)) {
			n++;
			switch (ev.kind) {
			case EVT_SEND_DONE:
				wr_ep_ops.send_done(w, ev.qpn, ev.wr_id, ev.status, ev.now_ps);
				break;
			case EVT_RECV:
				wr_ep_ops.recv_imm(w, ev.qpn, ev.arg, ev.len, ev.now_ps);
				break;
			case EVT_EV:
				wr_ep_ops.ev_event(w, ev.qpn, ev.arg, ev.from, ev.to, ev.cause,
					ev.now_ps);
				break;
			default:
				if (w->wj && wr_jobs_post_failed(w, ev.qpn, ev.wr_id, ev.status))
					break;
				wr_fail(w, ev.status, "h%u: post to QP %u: %s", w->rank, ev.qpn,
					strerror(-ev.status));
				break;
			}
		}
	}
	return n;
}

static bool rings_pending(struct wr *w)
{
	struct wr_xdp *d = w->xdp;
	struct lane *l = me(w);

	for (unsigned s = 0; s < d->active; s++) {
		if (s == l->id)
			continue;
		if (mrc_spsc_count(&l->rx[s]) || mrc_spsc_count(&l->ret[s]) ||
			mrc_spsc_count(&l->tx[s]) || mrc_spsc_count(&l->back[s]))
			return true;
		if (!l->id && mrc_spsc_count(&d->lanes[s].evt))
			return true;
	}
	return l->id && mrc_spsc_count(&l->cmd);
}

/* ---- the dataplane's operations ---- */

static uint8_t *xdp_tx_buf(struct wr *w, unsigned plane, size_t *cap)
{
	struct lane *l = me(w);

	if (owner(w->xdp, plane) == l->id)
		return mrc_xsk_tx_buf(w->xdp->port[plane], cap);
	if (!l->n_lent[plane])
		return NULL;
	return mrc_xsk_slot_buf(w->xdp->port[plane], l->lent[plane][l->n_lent[plane] - 1], cap);
}

static void xdp_tx_commit(struct wr *w, unsigned plane, const uint8_t *pkt, size_t n)
{
	struct wr_xdp *d = w->xdp;
	struct lane *l = me(w);
	struct lane *o = &d->lanes[owner(d, plane)];
	struct tx_msg m;

	(void)pkt;
	if (o == l) {
		/* the slot stays free on a refusal: a packet longer than a slot (the engine's
		 * are not), or a full ring (never: it holds every slot's descriptors) */
		if (mrc_xsk_tx_commit(d->port[plane], n))
			l->tx_refused++;
		return;
	}
	m = (struct tx_msg){ l->lent[plane][l->n_lent[plane] - 1], (uint32_t)n, plane };
	if (!mrc_spsc_push(&o->tx[l->id], &m)) {
		l->tx_refused++;
		return;
	}
	l->n_lent[plane]--;
	wake(o);
}

static void on_poll(void *ctx, int idx, unsigned revents)
{
	(void)ctx, (void)idx, (void)revents; /* the turn reads the rings afterwards */
}

static int xdp_run_once(struct wr *w, uint64_t wait_ns)
{
	struct wr_xdp *d = w->xdp;
	struct lane *l = me(w);
	int e, n;

	n = (int)drain(w);
	for (unsigned p = l->id; p < w->planes; p += d->active) {
		struct mrc_xsk *x = d->port[p];
		bool blocked;

		mrc_xsk_flush(x);
		blocked = !mrc_xsk_tx_free(x);
		if (mrc_xsk_rx_ready(x))
			wait_ns = 0;
		else if (blocked && wait_ns > XDP_WAIT_TX_NS)
			wait_ns = XDP_WAIT_TX_NS;
		mrc_loop_arm_poll(l->loop, l->poll_idx[p], POLLIN | (blocked ? POLLOUT : 0));
	}
	if (d->active > 1) {
		mrc_loop_arm_poll(l->loop, l->efd_idx, POLLIN);
		atomic_store(&l->sleeping, 1);
		atomic_thread_fence(memory_order_seq_cst);
		if (n || rings_pending(w) || atomic_load(&d->park) || atomic_load(&d->stop))
			wait_ns = 0;
	}
	e = mrc_loop_run_once(l->loop, wait_ns);
	atomic_store(&l->sleeping, 0);
	if (e < 0)
		return e;
	if (d->active > 1)
		(void)!read(l->efd, &(uint64_t){ 0 }, 8);
	for (unsigned p = l->id; p < w->planes; p += d->active) {
		rx_port(w, p);
		n += (int)mrc_xsk_flush(d->port[p]);
	}
	return e + n + (int)drain(w);
}

static void xdp_counters(struct wr *w, struct mrc_run_result *r)
{
	struct wr_xdp *d = w->xdp;
	struct mrc_loop_counters lc;

	mrc_loop_get_counters(w->loop, &lc);
	r->host_cq_overflows = lc.cq_overflow;
	r->host_cq_dropped = lc.cq_dropped;
	r->xdp_ranks = 1;
	w->last_send_error = 0;
	for (unsigned t = 0; t < d->active; t++) {
		r->host_foreign += d->lanes[t].rx_bad;
		r->host_send_errors += d->lanes[t].tx_refused;
		r->host_socket_drops += d->lanes[t].handoff_drops;
	}
	for (unsigned p = 0; p < w->planes; p++) {
		struct mrc_xsk_stats s;

		mrc_xsk_get_stats(d->port[p], &s);
		r->injected += s.tx;
		r->delivered += s.rx;
		r->host_send_errors += s.tx_kick_errors;
		if (s.last_kick_error)
			w->last_send_error = s.last_kick_error;
		r->host_socket_drops += s.k_rx_dropped + s.k_rx_ring_full + s.rx_dropped;
		r->xdp_ports++;
		r->xdp_zc_ports += mrc_xsk_info(d->port[p])->zero_copy;
		r->xdp_malformed += s.prog[MRC_XDP_MALFORMED];
		r->xdp_no_xsk += s.prog[MRC_XDP_NO_XSK];
		r->xdp_passed += s.prog[MRC_XDP_PASS];
		r->xdp_reassembled += s.rx_reassembled;
	}
}

static void lane_free(struct lane *l)
{
	for (unsigned s = 0; s < XDP_MAX_LANES; s++) {
		mrc_spsc_free(&l->rx[s]);
		mrc_spsc_free(&l->ret[s]);
		mrc_spsc_free(&l->tx[s]);
		mrc_spsc_free(&l->back[s]);
	}
	mrc_spsc_free(&l->cmd);
	mrc_spsc_free(&l->evt);
	for (unsigned p = 0; p < MRC_WIRERUN_MAX_PLANES; p++)
		free(l->lent[p]);
	if (l->efd >= 0)
		close(l->efd);
	if (l->id && l->w) {
		mrc_ep_free(l->w->ep);
		mrc_epf_free(l->w->epf);
		mrc_loop_free(l->loop);
		free(l->w);
	}
}

static void xdp_close(struct wr *w)
{
	struct wr_xdp *d = w->xdp;

	if (d) {
		wr_xdp_stop(w);
		for (unsigned t = 0; t < XDP_MAX_LANES; t++)
			lane_free(&d->lanes[t]);
		if (d->taps_lock_ok)
			pthread_mutex_destroy(&d->taps_lock);
	}
	mrc_loop_free(w->loop);
	w->loop = NULL;
	for (unsigned p = 0; d && p < MRC_WIRERUN_MAX_PLANES; p++)
		mrc_xsk_close(d->port[p]);
	free(d);
	w->xdp = NULL;
	w->taps_lock = NULL;
}

static const struct wr_dp xdp_dp = { "xdp", xdp_tx_buf, xdp_tx_commit, xdp_run_once,
	xdp_counters, xdp_close };

/* ---- lanes ---- */

unsigned wr_lanes(const struct wr *w)
{
	return w->xdp ? w->xdp->active : 1;
}

struct wr *wr_lane(struct wr *w, unsigned lane)
{
	return lane ? w->xdp->lanes[lane].w : w;
}

struct mrc_ep *wr_ep_of(struct wr *w, uint32_t qpn)
{
	return wr_lane(w, w->xdp ? wr_xdp_lane_of(w, qpn) : 0)->ep;
}

void wr_xdp_qp_range(const struct wr *w, unsigned lane, uint32_t *lo, uint32_t *hi)
{
	unsigned t = w->job->wire.xdp_threads ? w->job->wire.xdp_threads : w->planes;
	uint32_t n = wr_n_qps(w);

	*lo = 1 + (n * lane + t - 1) / t;
	*hi = 1 + (n * (lane + 1) + t - 1) / t;
}

void wr_lanes_park(struct wr *w)
{
	struct wr_xdp *d = w->xdp;

	if (!d || d->active == 1)
		return;
	atomic_store(&d->park, 1);
	for (unsigned t = 1; t < d->nlanes; t++) {
		wake(&d->lanes[t]);
		while (!atomic_load(&d->lanes[t].parked))
			sched_yield();
	}
}

void wr_lanes_unpark(struct wr *w)
{
	struct wr_xdp *d = w->xdp;

	if (d && d->active > 1)
		atomic_store(&d->park, 0);
}

int wr_xdp_post(struct wr *w, uint32_t qpn, const void *src, uint64_t len, uint64_t va,
	uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id, uint64_t now_ps)
{
	struct lane *l = &w->xdp->lanes[wr_xdp_lane_of(w, qpn)];
	struct cmd_msg c = { src, len, va, wr_id, now_ps, qpn, rkey, imm, with_imm };

	if (!mrc_spsc_push(&l->cmd, &c))
		return -EBUSY;
	wake(l);
	return 0;
}

/* A lane's endpoint notifications: to lane 0 through the evt ring. */
static void evt_push(struct wr *w, const struct evt_msg *m)
{
	struct lane *l = me(w);

	while (!mrc_spsc_push(&l->evt, m))
		sched_yield(); /* lane 0 drains it every turn */
	wake(&w->xdp->lanes[0]);
}

static void lane_send_done(void *ctx, uint32_t qpn, uint64_t wr_id, int status, uint64_t now)
{
	evt_push(ctx, &(struct evt_msg){ .kind = EVT_SEND_DONE, .status = status, .qpn = qpn,
		.wr_id = wr_id, .now_ps = now });
}

static void lane_recv_imm(void *ctx, uint32_t qpn, uint32_t imm, uint64_t len, uint64_t now)
{
	evt_push(ctx, &(struct evt_msg){ .kind = EVT_RECV, .qpn = qpn, .arg = imm, .len = len,
		.now_ps = now });
}

static void lane_ev_event(void *ctx, uint32_t qpn, uint32_t ev, int from, int to, int cause,
	uint64_t now)
{
	evt_push(ctx, &(struct evt_msg){ .kind = EVT_EV, .from = (int8_t)from,
		.to = (int8_t)to, .cause = (int8_t)cause, .qpn = qpn, .arg = ev, .now_ps = now });
}

/* endpoint operations (requests, answers) go to lane 0's endpoint: lane_of_pkt */
static const struct mrc_ep_ops lane_ops = { NULL, lane_send_done, lane_recv_imm, lane_ev_event,
	NULL, NULL, NULL };

/* A dataplane thread: its endpoint's sends, its ports' turn, its timers. */
static void *lane_main(void *arg)
{
	struct lane *l = arg;
	struct wr *w = l->w;
	struct wr_xdp *d = l->d;

	while (!atomic_load(&d->stop)) {
		uint64_t now, t, wait = WR_MAX_WAIT_NS;

		if (atomic_load(&d->park)) {
			atomic_store(&l->parked, 1);
			while (atomic_load(&d->park) && !atomic_load(&d->stop))
				sched_yield();
			atomic_store(&l->parked, 0);
			continue;
		}
		wr_tx_all(w);
		now = wr_mono_ns();
		t = mrc_ep_next_timer(w->ep);
		if (w->epf && mrc_epf_next_release(w->epf) < t)
			t = mrc_epf_next_release(w->epf);
		if (t != UINT64_MAX)
			wait = t / 1000 <= now ? 0 : t / 1000 - now < wait ? t / 1000 - now : wait;
		if (xdp_run_once(w, wait) < 0)
			break; /* the ring itself failed: the rank's thread sees its timeout */
		now = wr_mono_ns();
		if (mrc_ep_next_timer(w->ep) <= now * 1000)
			mrc_ep_on_timer(w->ep, now * 1000);
		wr_tx_all(w);
	}
	atomic_store(&l->parked, 1);
	return NULL;
}

void wr_xdp_stop(struct wr *w)
{
	struct wr_xdp *d = w->xdp;

	if (!d)
		return;
	atomic_store(&d->stop, 1);
	for (unsigned t = 1; t < d->nlanes; t++) {
		if (!d->lanes[t].started)
			continue;
		wake(&d->lanes[t]);
		if (d->lanes[t].efd >= 0)
			(void)!write(d->lanes[t].efd, &(uint64_t){ 1 }, 8);
		pthread_join(d->lanes[t].th, NULL);
		d->lanes[t].started = false;
	}
}

/* A lent slot's packet has gone (on the port owner's thread): the slot back to its lane. */
static void lent_done(void *ctx, uint8_t lane, uint32_t slot)
{
	struct port_ctx *pc = ctx;
	struct wr_xdp *d = pc->d;
	struct tx_msg m = { slot, 0, pc->plane };

	while (!mrc_spsc_push(&d->lanes[lane].back[owner(d, pc->plane)], &m))
		sched_yield(); /* never: the ring holds every lent slot */
	wake(&d->lanes[lane]);
}

/* Lane @l's rings from every other lane, its eventfd; other lanes: its loop and polls. */
static int lane_setup(struct wr *w, struct lane *l, char *err, size_t errlen)
{
	struct wr_xdp *d = w->xdp;
	int e = 0;

	for (unsigned s = 0; s < d->nlanes && !e; s++) {
		if (s == l->id)
			continue;
		e = mrc_spsc_init(&l->rx[s], XDP_RING, sizeof(struct rx_msg));
		e = e ?: mrc_spsc_init(&l->ret[s], XDP_RING, sizeof(struct ret_msg));
		e = e ?: mrc_spsc_init(&l->tx[s], XDP_RING, sizeof(struct tx_msg));
		e = e ?: mrc_spsc_init(&l->back[s], XDP_RING, sizeof(struct tx_msg));
	}
	if (!e && l->id) {
		e = mrc_spsc_init(&l->cmd, XDP_RING, sizeof(struct cmd_msg));
		e = e ?: mrc_spsc_init(&l->evt, XDP_RING, sizeof(struct evt_msg));
	}
	l->efd = e ? -1 : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (e || l->efd < 0) {
		snprintf(err, errlen, "xdp: thread %u: rings: %s", l->id,
			strerror(e ? -e : errno));
		return e ? e : -errno;
	}
	if (l->id) {
		struct mrc_loop_params lp = { .sq_entries = 64, .rx_bufs = 16, .tx_bufs = 16 };

		e = mrc_loop_new(&lp, &l->loop, err, errlen);
		for (unsigned p = l->id; !e && p < w->planes; p += d->nlanes) {
			l->poll_idx[p] = mrc_loop_add_poll(l->loop, mrc_xsk_fd(d->port[p]), on_poll,
				l);
			e = l->poll_idx[p] < 0 ? l->poll_idx[p] : 0;
		}
		if (e)
			return e;
	}
	l->efd_idx = mrc_loop_add_poll(l->loop, l->efd, on_poll, l);
	return l->efd_idx < 0 ? l->efd_idx : 0;
}

int wr_xdp_start(struct wr *w, char *err, size_t errlen)
{
	struct wr_xdp *d = w->xdp;
	int e = 0;

	if (d->nlanes == 1)
		return 0;
	if (pthread_mutex_init(&d->taps_lock, NULL))
		return -ENOMEM;
	d->taps_lock_ok = true;
	w->taps_lock = &d->taps_lock;
	for (unsigned t = 0; t < d->nlanes; t++)
		wr_xdp_qp_range(w, t, &d->lanes[t].lo, &d->lanes[t].hi);
	for (unsigned t = 0; t < d->nlanes && !e; t++) {
		struct lane *l = &d->lanes[t];

		if (t) {
			l->w = malloc(sizeof(*l->w));
			if (!l->w)
				return -ENOMEM;
			*l->w = *w; /* the job, plan, captures; its own endpoint and faults */
			l->w->lane = t;
			l->w->ep = NULL;
			l->w->epf = NULL;
			l->w->rtt = NULL;
			l->w->n_replies = 0;
			e = wr_new_ep(l->w, l->lo, l->hi, &lane_ops, l->w, &l->w->ep, err, errlen);
			e = e ?: wr_new_epf(l->w, t, &l->w->epf, err, errlen);
		}
		e = e ?: lane_setup(w, l, err, errlen);
	}
	if (e)
		return e;
	/* each port lends every other lane a share of its send slots */
	for (unsigned p = 0; p < w->planes; p++) {
		unsigned o = p % d->nlanes, share = 1024 / d->nlanes;

		d->pctx[p] = (struct port_ctx){ d, p };
		mrc_xsk_set_done(d->port[p], lent_done, &d->pctx[p]);
		for (unsigned t = 0; t < d->nlanes; t++) {
			struct lane *l = &d->lanes[t];

			if (t == o)
				continue;
			l->lent[p] = calloc(share, sizeof(uint32_t));
			if (!l->lent[p])
				return -ENOMEM;
			l->n_lent[p] = mrc_xsk_lend(d->port[p], share, l->lent[p], (uint8_t)t);
		}
	}
	d->active = d->nlanes;
	for (unsigned t = 1; t < d->nlanes; t++) {
		e = pthread_create(&d->lanes[t].th, NULL, lane_main, &d->lanes[t]);
		if (e) {
			snprintf(err, errlen, "xdp: thread %u: %s", t, strerror(e));
			return -e;
		}
		d->lanes[t].started = true;
	}
	return 0;
}

/* ---- setup ---- */

/* An outer destination port @p sends to (a path to another host on that plane), whose
 * route gives the next hop. */
static int probe_dst(const struct wr *w, unsigned p, uint8_t dst[16])
{
	uint32_t peer = w->rank ? 0 : 1;

	for (size_t i = 0; i < w->m.n_evs; i++) {
		struct mrc_srv6_path path;

		if (mrc_srv6_ev_plane(&w->m.params.ev, w->m.evs[i].ev) != p ||
			mrc_srv6_path(w->m.plan, w->rank, peer, w->m.evs[i].ev, &path))
			continue;
		memcpy(dst, w->job->mrc.ev_format == CONF_EV_SRV6 ? path.container.b :
			path.dst_addr.b, 16);
		return 0;
	}
	return -ENOENT;
}

int wr_xdp_open(struct wr *w, char *err, size_t errlen)
{
	const struct conf_wire *c = &w->job->wire;
	struct mrc_xsk_params xp = {
		.queue = c->xdp_queue,
		.copy = c->xdp_copy == CONF_XC_ZEROCOPY ? MRC_XSK_ZEROCOPY :
			c->xdp_copy == CONF_XC_COPY ? MRC_XSK_COPY : MRC_XSK_AUTO,
		.max_frame = MRC_XDP_ETH_HLEN + w->job->mrc.mtu + XDP_MAX_HDRS,
		.hugepages = true,
	};
	int e = 0;

	if (xp.max_frame > MRC_XSK_MAX_FRAME)
		xp.max_frame = MRC_XSK_MAX_FRAME;
	w->xdp = calloc(1, sizeof(*w->xdp));
	if (!w->xdp)
		return -ENOMEM;
	w->xdp->nlanes = c->xdp_threads ? c->xdp_threads : w->planes; /* 0: one per port */
	w->xdp->active = 1;
	for (unsigned t = 0; t < XDP_MAX_LANES; t++) {
		w->xdp->lanes[t].id = t;
		w->xdp->lanes[t].d = w->xdp;
		w->xdp->lanes[t].efd = -1;
	}
	w->xdp->lanes[0].w = w;
	for (unsigned p = 0; p < w->planes && !e; p++) {
		struct mrc_ip6 loc, in;
		uint8_t dst[16];
		char name[16];

		xp.ifname = wr_port_name(w, p, name, sizeof(name));
		e = mrc_srv6_host_locator(w->m.plan, p, w->rank, &loc);
		e = e ?: mrc_srv6_host_addr(w->m.plan, p, w->rank, &in);
		e = e ?: probe_dst(w, p, dst);
		if (e) {
			snprintf(err, errlen, "xdp: port '%s': plane %u has no address or path "
				"from h%u: %s", xp.ifname, p, w->rank, strerror(-e));
			break;
		}
		memcpy(xp.addrs.locator, loc.b, 16);
		memcpy(xp.addrs.inner, in.b, 16);
		e = mrc_xsk_open(&xp, &w->xdp->port[p], err, errlen);
		e = e ?: mrc_xsk_resolve(w->xdp->port[p], dst, 2000, err, errlen);
	}
	if (e) {
		xdp_close(w);
		return e;
	}
	w->dp = &xdp_dp;
	for (unsigned p = 0; p < w->planes; p++) {
		const struct mrc_xsk_info *i = mrc_xsk_info(w->xdp->port[p]);
		char name[16];

		fprintf(stderr, "h%u: xdp: port %s (%s, queue %u of %u): %s%s%s\n", w->rank,
			wr_port_name(w, p, name, sizeof(name)), i->driver, c->xdp_queue, i->queues,
			i->zero_copy ? "zero copy" : "copy mode",
			i->multi_buffer ? ", multi-buffer" : "", i->hugepages ? ", hugepages" : "");
	}
	return 0;
}

int wr_xdp_setup_loop(struct wr *w, char *err, size_t errlen)
{
	struct mrc_loop_params lp = { .sq_entries = 256, .rx_bufs = 16, .tx_bufs = 16 };
	int e = mrc_loop_new(&lp, &w->loop, err, errlen);

	struct lane *l = &w->xdp->lanes[0];

	l->loop = w->loop;
	for (unsigned p = 0; !e && p < w->planes; p++) { /* lane 0 runs every port until start */
		l->poll_idx[p] = mrc_loop_add_poll(w->loop, mrc_xsk_fd(w->xdp->port[p]), on_poll,
			w);
		if (l->poll_idx[p] < 0) {
			e = l->poll_idx[p];
			snprintf(err, errlen, "io_uring: poll of port %u: %s", p, strerror(-e));
		}
	}
	return e;
}
