/* SPDX-License-Identifier: BSD-2-Clause */
/* pump: a wire rank's dataplane: io_uring loop, endpoint glue, captures, endpoint faults. */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/base/hist.h"
#include "mrc/engine/srv6.h"
#include "mrc/job/epparams.h"
#include "mrc/job/stop.h"
#include "pcap/pcapw.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void wr_fail(struct wr *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (w->err)
		return;
	w->err = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
}

uint64_t wr_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Writes a packet to capture @t; the first failure is said on stderr and ends the capture. */
static void tap_put(const struct wr *w, struct tap *t, const void *buf, size_t len)
{
	bool fail;

	if (w->taps_lock) /* the xdp dataplane's threads share the captures */
		pthread_mutex_lock(w->taps_lock);
	fail = !t->failed && pcapw_write(t->w, real_ns(), buf, len);
	t->failed |= fail;
	if (w->taps_lock)
		pthread_mutex_unlock(w->taps_lock);
	if (fail)
		fprintf(stderr, "mrcgen: h%u: capture: %s\n", w->rank, pcapw_error(t->w));
}

static int ep_path(void *ctx, uint32_t peer, uint32_t ev, struct mrc_pkt *hdr)
{
	struct wr *w = ctx;

	return mrc_srv6_address(w->m.plan, w->rank, peer, ev, hdr);
}

static unsigned ep_ev_plane(void *ctx, uint32_t ev)
{
	struct wr *w = ctx;

	return mrc_srv6_ev_plane(&w->m.params.ev, ev);
}

static int ep_peer_of(void *ctx, const struct mrc_ip6 *src, unsigned *plane)
{
	struct wr *w = ctx;
	uint32_t host;

	return mrc_srv6_addr_host(w->m.plan, src, plane, &host) ? -1 : (int)host;
}

static void ep_send_done(void *ctx, uint32_t qpn, uint64_t wr_id, int status, uint64_t now)
{
	struct wr *w = ctx;
	int err;

	if (status) {
		struct mrc_run_result lc = { 0 };

		w->dp->counters(w, &lc);
		wr_fail(w, status, "h%u: QP %u to h%u failed: %s (packets sent %llu, received "
			"%llu, send errors %llu%s%s)", w->rank, qpn, w->peer_of_qpn[qpn],
			strerror(-status), (unsigned long long)lc.injected,
			(unsigned long long)lc.delivered, (unsigned long long)lc.host_send_errors,
			w->last_send_error ? ", last: " : "",
			w->last_send_error ? strerror(-w->last_send_error) : "");
		return;
	}
	if (w->wj) { /* several jobs: the QP's job's collective or background */
		wr_jobs_send_done(w, qpn, wr_id, now);
		return;
	}
	if (w->measuring)
		wr_msg_latency(w, w->coll, wr_id, w->go_ns, now);
	err = mrc_coll_on_send_done(w->coll, w->rank, wr_id, now);
	if (err)
		wr_fail(w, err, "h%u: collective: send completion %llu: %s", w->rank,
			(unsigned long long)wr_id, strerror(-err));
}

static void ep_recv_imm(void *ctx, uint32_t qpn, uint32_t imm, uint64_t len, uint64_t now)
{
	struct wr *w = ctx;
	int err;

	(void)len;
	err = w->wj ? wr_jobs_recv(w, qpn, imm, now) :
		      mrc_coll_on_recv(w->coll, w->rank, w->peer_of_qpn[qpn], imm, now);
	if (err)
		wr_fail(w, err, "h%u: collective: unexpected write from h%u (imm 0x%08x)", w->rank,
			w->peer_of_qpn[qpn], imm);
}

/* An EV probe's answer: a sweep's (mrc/wire/wsweep.c), counted. */
static void ep_response(void *ctx, uint16_t req_id, uint32_t peer, uint32_t ev, unsigned port,
	uint64_t rtt_ns, uint64_t now)
{
	struct wr *w = ctx;

	(void)port, (void)now;
	if (w->sweep)
		mrc_sweep_answer(w->sweep, w->rank, req_id, peer, ev, rtt_ns);
}

/* This rank answered an EV probe: a sweep counts it on the path from @peer. */
static void ep_request(void *ctx, uint32_t peer, uint32_t ev, unsigned op, bool ce, uint64_t now)
{
	struct wr *w = ctx;

	(void)now;
	if (w->sweep && op == MRC_EP_OP_EV_PROBE)
		mrc_sweep_request(w->sweep, w->rank, peer, ev, ce);
}

/* Records an EV retirement @off_ps after the GO of iteration @iter, for the fault figures. */
void wr_bad_add(struct wr *w, uint32_t iter, uint64_t off_ps)
{
	if (w->n_bad == w->cap_bad) {
		size_t n = w->cap_bad ? 2 * w->cap_bad : 64;
		struct mrc_rankres_bad *nb = realloc(w->bad, n * sizeof(*nb));

		if (!nb)
			return; /* the figure undercounts; the run goes on */
		w->bad = nb;
		w->cap_bad = n;
	}
	w->bad[w->n_bad++] = (struct mrc_rankres_bad){ iter, off_ps };
}

static void ep_ev_event(void *ctx, uint32_t qpn, uint32_t ev, int from, int to, int cause,
	uint64_t now)
{
	struct wr *w = ctx;

	(void)qpn, (void)ev, (void)from, (void)cause;
	if (to != MRC_EV_ASSUMED_BAD)
		return;
	w->evs_retired++;
	if (w->go_ns && now / 1000 >= w->go_ns)
		wr_bad_add(w, w->cur_iter, now - w->go_ns * 1000);
}

uint32_t wr_qpn(const struct wr *w, uint32_t set, uint32_t peer)
{
	return set * (w->nranks - 1) + (peer < w->rank ? peer + 1 : peer);
}

uint32_t wr_n_qps(const struct wr *w)
{
	return (w->n_qsets ? w->n_qsets : 1) * (w->nranks - 1);
}

int wr_post_qp(struct wr *w, uint32_t qpn, const void *src, uint64_t len, uint64_t va,
	uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id)
{
	uint64_t now = wr_mono_ns();

	if (w->xdp && wr_xdp_lane_of(w, qpn)) /* another thread's QP: through its ring */
		return wr_xdp_post(w, qpn, src, len, va, rkey, with_imm, imm, wr_id, now * 1000);
	return mrc_ep_post_write(w->ep, qpn, src, len, va, rkey, with_imm, imm, wr_id,
		now * 1000);
}

int wr_post_now(struct wr *w, const struct mrc_coll_xfer *x, const void *src, uint64_t va,
	uint32_t imm, uint64_t wr_id)
{
	return wr_post_qp(w, wr_qpn(w, 0, x->peer), src, x->len, va,
		w->peer_rkey[x->peer][x->dst_reg], true, imm, wr_id);
}

void wr_msg_latency(struct wr *w, struct mrc_coll *c, uint64_t wr_id, uint64_t go_ns,
	uint64_t now)
{
	uint64_t t0 = mrc_coll_posted_at(c, w->rank, wr_id);

	if (t0 < go_ns * 1000) /* the first step's writes wait for GO after the collective armed */
		t0 = go_ns * 1000;
	mrc_hist_record(w->msg_ns, (int64_t)((now - t0) / 1000));
}

int wr_defer(struct deferred **q, size_t *n, size_t *cap, const struct mrc_coll_xfer *x,
	const void *src, uint64_t va, uint32_t imm, uint64_t wr_id)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		struct deferred *d = realloc(*q, c * sizeof(*d));

		if (!d)
			return -ENOMEM;
		*q = d;
		*cap = c;
	}
	(*q)[(*n)++] = (struct deferred){ .x = *x, .src = src, .va = va, .imm = imm,
		.wr_id = wr_id };
	return 0;
}

int wr_post_deferred(struct wr *w, const struct mrc_coll_ops *ops, void *ctx,
	const struct deferred *q, size_t *n, const char *job)
{
	for (size_t i = 0; i < *n; i++) {
		int e = ops->post(ctx, w->rank, &q[i].x, q[i].src, q[i].va, q[i].imm, q[i].wr_id);

		if (e) {
			wr_fail(w, e, "h%u: %s%s%spost to h%u: %s", w->rank, job ? "job " : "",
				job ? job : "", job ? ": " : "", q[i].x.peer, strerror(-e));
			return e;
		}
	}
	*n = 0;
	return 0;
}

int wr_coll_post(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x, const void *src,
	uint64_t va, uint32_t imm, uint64_t wr_id)
{
	struct wr *w = ctx;

	(void)rank;
	if (!w->arming)
		return wr_post_now(w, x, src, va, imm, wr_id);
	return wr_defer(&w->defq, &w->n_def, &w->cap_def, x, src, va, imm, wr_id);
}

/* The fault hook's view of a packet leaving (@outer) or reaching this host. */
static int epf_pkt(struct wr *w, const uint8_t *buf, size_t len, bool outer,
	struct mrc_epf_pkt *fp)
{
	struct mrc_pkt k;
	uint32_t t1 = w->job->fabric.t1;

	if (mrc_wire_decode(&w->dcfg, buf, len, outer, &k) != MRC_WIRE_OK)
		return -EINVAL;
	/* inner port addresses end in plane : host : 1 (srv6.h mrc_srv6_host_addr) */
	fp->plane = mrc_srv6_ev_plane(&w->m.params.ev, k.ev);
	fp->spine = mrc_srv6_ev_spine(&w->m.params.ev, k.ev) % (t1 ? t1 : 1);
	fp->src = get_be16(k.src.b + 12);
	fp->dst = get_be16(k.dst.b + 12);
	return 0;
}

/*
 * A packet that arrived on plane @plane, as the protocol-41 socket delivers it (the inner
 * IPv6 packet; @ce: the outer header carried CE): ingress captures, then an echo probe's
 * answer or the endpoint (through the fault hook). Both dataplanes hand packets here.
 */
void wr_rx(struct wr *w, unsigned plane, const uint8_t *buf, size_t len, bool ce)
{
	for (size_t i = 0; i < w->n_taps; i++)
		if (w->taps[i].ingress && w->taps[i].plane == (int)plane)
			tap_put(w, &w->taps[i], buf, len);
	if (wr_rtt_rx(w, buf, len) || !w->ep)
		return; /* an echo probe, or the endpoint is not built yet */
	if (w->epf) {
		uint8_t cut[MRC_PKT_MAX];
		struct mrc_epf_pkt fp;
		uint64_t now = wr_mono_ns() * 1000;

		if (epf_pkt(w, buf, len, false, &fp) == 0 &&
			mrc_epf_rx(w->epf, &fp, now, &ce) == MRC_EPF_TRIM && len <= sizeof(cut)) {
			int n;

			memcpy(cut, buf, len);
			n = mrc_wire_trim(cut, len, w->job->fabric.trim_size_bytes,
				w->dcfg.dscp_trimmed);
			if (n > 0) {
				mrc_ep_on_rx(w->ep, plane, cut, (size_t)n, ce, now);
				return;
			}
		}
	}
	mrc_ep_on_rx(w->ep, plane, buf, len, ce, wr_mono_ns() * 1000);
}

/* The raw-socket dataplane's receive: the plane is the arrival interface. */
static void on_rx(void *ctx, int sock_idx, const uint8_t *buf, size_t len,
	const struct mrc_loop_rx_info *info)
{
	struct wr *w = ctx;

	(void)sock_idx;
	for (unsigned p = 0; p < w->planes; p++) {
		if (info->ifindex == (int)w->ports[p].ifindex) {
			wr_rx(w, p, buf, len, info->tclass >= 0 && (info->tclass & 3) == 3);
			return;
		}
	}
	w->rx_foreign++;
}

/*
 * Sends the @n bytes on plane @p that were written into the send buffer the dataplane
 * lent (@pkt, from w->dp->tx_buf): egress captures, then the dataplane.
 */
void wr_send_slot(struct wr *w, unsigned p, const uint8_t *pkt, size_t n)
{
	for (size_t i = 0; i < w->n_taps; i++)
		if (w->taps[i].egress && w->taps[i].plane == (int)p)
			tap_put(w, &w->taps[i], pkt, n);
	w->dp->tx_commit(w, p, pkt, n);
}

/* Sends the delayed packets that are due while their port has a send buffer free; one
 * whose port has none goes back to the queue, due now. */
static void tx_due(struct wr *w)
{
	uint8_t pkt[MRC_PKT_MAX], *buf;
	uint64_t now = wr_mono_ns() * 1000;
	size_t cap;
	unsigned p;
	int n;

	while ((n = mrc_epf_due(w->epf, now, pkt, sizeof(pkt), &p)) > 0) {
		buf = w->dp->tx_buf(w, p, &cap);
		if (!buf || (size_t)n > cap) {
			mrc_epf_hold(w->epf, p, pkt, (size_t)n, now);
			break;
		}
		memcpy(buf, pkt, (size_t)n);
		wr_send_slot(w, p, buf, (size_t)n);
	}
}

/*
 * Pulls packets from every plane in turn until the engine has nothing more or the send
 * pool is full; the engine encodes each straight into its send slot (no copy).
 */
void wr_tx_all(struct wr *w)
{
	uint64_t now = wr_mono_ns() * 1000;
	bool more = true;

	wr_rtt_tx(w);
	if (!w->ep)
		return;
	if (w->epf)
		tx_due(w);
	while (more) {
		more = false;
		for (unsigned p = 0; p < w->planes; p++) {
			struct mrc_epf_pkt fp;
			uint64_t rel;
			uint8_t *buf;
			size_t cap;
			int n;

			buf = w->dp->tx_buf(w, p, &cap);
			if (!buf)
				continue; /* no buffer free: completions come with the next turn */
			n = mrc_ep_tx(w->ep, p, now, buf, cap);
			if (n <= 0)
				continue;
			more = true;
			if (w->epf && epf_pkt(w, buf, (size_t)n, true, &fp) == 0) {
				switch (mrc_epf_tx(w->epf, &fp, now, &rel)) {
				case MRC_EPF_DROP:
					continue; /* the slot stays free */
				case MRC_EPF_DELAY:
					mrc_epf_hold(w->epf, p, buf, (size_t)n, rel);
					continue;
				default:
					break;
				}
			}
			wr_send_slot(w, p, buf, (size_t)n);
		}
		now = wr_mono_ns() * 1000;
	}
}

void wr_pump(struct wr *w, uint64_t max_wait_ns)
{
	uint64_t now, t, wait = max_wait_ns;
	int e;

	if (w->tick && (t = w->tick(w)) != UINT64_MAX) { /* a sweep's requests due now */
		now = wr_mono_ns();
		wait = t <= now ? 0 : t - now < wait ? t - now : wait;
	}
	wr_tx_all(w);
	now = wr_mono_ns();
	t = w->ep ? mrc_ep_next_timer(w->ep) : UINT64_MAX;
	if (w->epf && mrc_epf_next_release(w->epf) < t)
		t = mrc_epf_next_release(w->epf);
	if (w->rtt && mrc_wrtt_next_timer(w->rtt) * 1000 < t)
		t = mrc_wrtt_next_timer(w->rtt) * 1000;
	if (t != UINT64_MAX) {
		uint64_t t_ns = t / 1000;

		if (t_ns <= now)
			wait = 0;
		else if (t_ns - now < wait)
			wait = t_ns - now;
	}
	e = w->dp->run_once(w, wait);
	if (e < 0) {
		wr_fail(w, e, "%s: %s", w->dp->name, strerror(-e));
		return;
	}
	now = wr_mono_ns();
	if (w->ep && mrc_ep_next_timer(w->ep) <= now * 1000)
		mrc_ep_on_timer(w->ep, now * 1000);
	wr_tx_all(w);
	if (now - w->last_poll_ns >= WR_POLL_NS || e == 0) {
		w->last_poll_ns = now;
		wr_ctl_poll(w);
	}
}

/* Pumps until @cond(w) holds, the job fails, or the timeout passes (then fails with @what). */
int wr_pump_until(struct wr *w, bool (*cond)(struct wr *), const char *what)
{
	uint64_t deadline = wr_mono_ns() + w->timeout_ns;

	while (!w->err && !cond(w)) {
		if (mrc_stop_signal) { /* rank 0 then tells every rank (ABORT) */
			wr_fail(w, -EINTR, "%s: interrupted by SIG%s", what,
				sigabbrev_np(mrc_stop_signal) ? sigabbrev_np(mrc_stop_signal) :
				"?");
			break;
		}
		if (wr_mono_ns() > deadline) {
			wr_fail(w, -ETIMEDOUT, "%s: nothing within %llu ms", what,
				(unsigned long long)(w->timeout_ns / 1000000));
			break;
		}
		wr_pump(w, WR_MAX_WAIT_NS);
	}
	return w->err;
}

/* ---- the raw-socket dataplane ---- */

/* One send pool serves every plane. */
static uint8_t *sock_tx_buf(struct wr *w, unsigned plane, size_t *cap)
{
	(void)plane;
	return mrc_loop_tx_buf(w->loop, cap);
}

static void sock_tx_commit(struct wr *w, unsigned plane, const uint8_t *pkt, size_t n)
{
	struct sockaddr_in6 sa;

	if (!mrc_sock_dst_of(pkt, n, &sa))
		mrc_loop_tx_commit(w->loop, w->tx_idx[plane], n, &sa);
}

static int sock_run_once(struct wr *w, uint64_t wait_ns)
{
	return mrc_loop_run_once(w->loop, wait_ns);
}

static void sock_counters(struct wr *w, struct mrc_run_result *r)
{
	struct mrc_loop_counters lc;

	mrc_loop_get_counters(w->loop, &lc);
	w->last_send_error = lc.last_send_error;
	r->injected = lc.tx;
	r->delivered = lc.rx;
	r->host_send_errors = lc.send_errors;
	r->host_socket_drops = lc.sock_drops;
	r->host_cq_overflows = lc.cq_overflow;
	r->host_cq_dropped = lc.cq_dropped;
	r->host_truncated = lc.truncated;
	r->host_foreign = w->rx_foreign;
}

static void sock_close(struct wr *w)
{
	mrc_loop_free(w->loop);
	w->loop = NULL;
	for (unsigned p = 0; p < MRC_WIRERUN_MAX_PLANES; p++)
		mrc_sock_port_close(&w->ports[p]);
	if (w->rx_fd >= 0)
		close(w->rx_fd);
	w->rx_fd = -1;
}

static const struct wr_dp sock_dp = { "socket", sock_tx_buf, sock_tx_commit, sock_run_once,
	sock_counters, sock_close };

/* The interface of port (plane) @p: --ports' name, else "p<p>", in @buf. */
const char *wr_port_name(const struct wr *w, unsigned p, char *buf, size_t len)
{
	if (w->o->ports[p])
		return w->o->ports[p];
	snprintf(buf, len, "p%u", p);
	return buf;
}

/*
 * The ports of the dataplane wire.dataplane names: AF_XDP sockets (xdp.c), raw sockets, or
 * under auto AF_XDP and raw sockets when one port cannot run AF_XDP (said on stderr).
 */
int wr_setup_ports(struct wr *w, char *err, size_t errlen)
{
	w->planes = w->job->fabric.planes;
	if (w->planes > MRC_WIRERUN_MAX_PLANES) {
		snprintf(err, errlen, "fabric.planes: the wire driver handles at most %d '%u'",
			MRC_WIRERUN_MAX_PLANES, w->planes);
		return -EINVAL;
	}
	if (w->job->wire.dataplane != CONF_DP_SOCKET) {
		int e = wr_xdp_open(w, err, errlen);

		if (!e || w->job->wire.dataplane == CONF_DP_XDP)
			return e;
		fprintf(stderr, "mrcgen: h%u: %s; wire.dataplane auto: this rank runs on raw "
			"sockets\n", w->rank, err);
		err[0] = 0;
	}
	w->dp = &sock_dp;
	return wr_setup_sock_ports(w, err, errlen);
}

/* The raw sockets: one send socket per plane, one receive socket for all. */
int wr_setup_sock_ports(struct wr *w, char *err, size_t errlen)
{
	for (unsigned p = 0; p < w->planes; p++) {
		char name[16];
		int e = mrc_sock_port_open(wr_port_name(w, p, name, sizeof(name)), 0, &w->ports[p],
			err, errlen);

		if (e)
			return e;
		close(w->ports[p].rx_fd); /* one receive socket serves every plane */
		w->ports[p].rx_fd = -1;
	}
	w->rx_fd = mrc_sock_rx_open_all(w->planes * (4u << 20), err, errlen);
	return w->rx_fd < 0 ? w->rx_fd : 0;
}

int wr_setup_loop(struct wr *w, char *err, size_t errlen)
{
	if (w->dp != &sock_dp)
		return wr_xdp_setup_loop(w, err, errlen);
	return wr_setup_sock_loop(w, err, errlen);
}

int wr_setup_sock_loop(struct wr *w, char *err, size_t errlen)
{
	struct mrc_loop_params lp = { .sq_entries = 1024, .rx_bufs = 2048,
		.tx_bufs = WR_TX_SLOTS, .tx_buf_size = MRC_PKT_MAX };
	int e = mrc_loop_new(&lp, &w->loop, err, errlen);

	if (e)
		return e;
	e = mrc_loop_add_rx_socket(w->loop, w->rx_fd, on_rx, w);
	if (e < 0) {
		snprintf(err, errlen, "io_uring: add the receive socket: %s", strerror(-e));
		return e;
	}
	for (unsigned p = 0; p < w->planes; p++) {
		w->tx_idx[p] = mrc_loop_add_tx_socket(w->loop, w->ports[p].tx_fd);
		if (w->tx_idx[p] < 0) {
			snprintf(err, errlen, "io_uring: add the send socket of port %u: %s", p,
				strerror(-w->tx_idx[p]));
			return w->tx_idx[p];
		}
	}
	return 0;
}

const struct mrc_ep_ops wr_ep_ops = { NULL, ep_send_done, ep_recv_imm, ep_ev_event,
	ep_response, ep_request, NULL };

int wr_new_ep(struct wr *w, uint32_t lo, uint32_t hi, const struct mrc_ep_ops *ops, void *ctx,
	struct mrc_ep **out, char *err, size_t errlen)
{
	struct mrc_ep_params p;
	int e = mrc_run_ep_params(w->job, &w->m, w->nranks, w->rtt_out->base_rtt_ns * 1000, &p);

	if (e)
		return e;
	p.host = w->rank;
	p.seed = w->job->seed * 0x9E3779B97F4A7C15ull + w->rank;
	p.path = ep_path;
	p.ev_plane = ep_ev_plane;
	p.peer_of = ep_peer_of;
	p.first_qpn = lo;
	p.max_qps = wr_n_qps(w) + 1;
	/*
	 * Arrivals are checked by their ICRC alone, as RoCEv2 receivers do: the CRC-32 covers
	 * every byte the UDP checksum does (inner addresses and lengths, UDP ports, payload),
	 * so the one's-complement sum would catch nothing more, and it cost 3% of a rank's
	 * CPU in the wire bench (perf). Senders still write it (captures show it good).
	 */
	p.wire.check_csum = false;
	w->dcfg = p.wire;
	w->dcfg.check_icrc = w->dcfg.check_csum = false;
	e = mrc_ep_new(&p, ops, ctx, out);
	mrc_run_ep_params_free(&p);
	if (e) {
		snprintf(err, errlen, "endpoint h%u: %s", w->rank, strerror(-e));
		return e;
	}
	/*
	 * One QP per peer, created in peer order on every rank: rank a's QP to b is number
	 * (b < a ? b + 1 : b), so both ends know each other's QPN without asking. An
	 * endpoint holds the QPs numbered [@lo, @hi) (the xdp dataplane's threads split them).
	 * Several jobs: a set of them per job, set s's numbers s x (nranks - 1) above the first
	 * set's (wr_qpn), so each job's traffic has QPs of its own, as on the simulator.
	 */
	for (uint32_t set = 0; set < (w->n_qsets ? w->n_qsets : 1); set++) {
		for (uint32_t peer = 0; peer < w->nranks; peer++) {
			uint32_t want = wr_qpn(w, set, peer), qpn;

			if (peer == w->rank || want < lo || want >= hi)
				continue;
			e = mrc_ep_qp_create(*out, peer, set * (w->nranks - 1) +
				(w->rank < peer ? w->rank + 1 : w->rank), &qpn);
			if (!e && qpn != want)
				e = -EPROTO;
			if (e) {
				snprintf(err, errlen, "endpoint h%u: QP to h%u: %s", w->rank, peer,
					strerror(-e));
				return e;
			}
			w->peer_of_qpn[qpn] = peer;
		}
	}
	return 0;
}

int wr_setup_ep(struct wr *w, char *err, size_t errlen)
{
	uint32_t lo = 1, hi = wr_n_qps(w) + 1;

	if (w->xdp)
		wr_xdp_qp_range(w, 0, &lo, &hi);
	return wr_new_ep(w, lo, hi, &wr_ep_ops, w, &w->ep, err, errlen);
}

/* The faults: timeline at this endpoint (mrc/wire/epfault.h), each host with its own draws. */
int wr_setup_faults(struct wr *w, char *err, size_t errlen)
{
	return wr_new_epf(w, 0, &w->epf, err, errlen);
}

/* Lane @lane's copy of the fault timeline (its own draws), NULL without faults. */
int wr_new_epf(struct wr *w, unsigned lane, struct mrc_epf **out, char *err, size_t errlen)
{
	const struct conf_job *j = w->job;
	struct mrc_epf_params p = {
		.planes = j->fabric.planes, .t0 = j->fabric.t0, .t1 = j->fabric.t1,
		.hosts_per_t0 = j->fabric.hosts_per_t0,
		.seed = j->seed * 0xD1B54A32D192ED03ull + w->rank + 0x10000ull * lane,
		.trim = j->fabric.trim, .trim_size = (uint32_t)j->fabric.trim_size_bytes,
		.dscp_trimmed = j->mrc.dscp.trimmed, .link_rate_bps = j->fabric.link_rate_bps,
		.ecn_threshold_bytes = j->fabric.ecn_threshold_bytes,
	};

	*out = NULL;
	if (!j->n_faults)
		return 0;
	return mrc_epf_new(&p, j->faults, j->n_faults, out, err, errlen);
}

int wr_setup_captures(struct wr *w, char *err, size_t errlen)
{
	const struct conf_output *o = &w->job->output;

	w->taps = calloc(o->n_captures + 1, sizeof(*w->taps));
	if (!w->taps)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_captures; i++) {
		const struct conf_capture *c = &o->captures[i];
		const struct conf_node *n = &c->node;
		char path[4096], perr[PCAPW_ERRBUF_SIZE], name[64];
		struct tap *t;
		int e;

		if (n->kind != CONF_NODE_PORT && n->kind != CONF_NODE_LINK_HOST_T0) {
			snprintf(err, errlen,
				"capture %s: the wire driver captures host ports only "
				"(h0.p0, h0.p0-p0.t0.0); capture switches with tcpdump",
				c->point);
			return -EINVAL;
		}
		if (n->host != w->rank)
			continue; /* another host's port: that host writes it */
		snprintf(path, sizeof(path), "%s/%s", o->dir,
			 conf_capture_file(c, name, sizeof(name)));
		t = &w->taps[w->n_taps];
		e = pcapw_open(path, c->snaplen,
			c->tsresol == CONF_TS_US ? PCAPW_TS_US : PCAPW_TS_NS, &t->w, perr);
		if (e) {
			snprintf(err, errlen, "capture %s: %s", c->point, perr);
			return e;
		}
		w->n_taps++;
		pcapw_set_flush_every(t->w, 256);
		t->plane = (int)n->plane;
		/* a link written T0 first is seen from the switch: its egress is our ingress */
		t->egress = c->dir == CONF_CAP_BOTH ||
			    (c->dir == CONF_CAP_EGRESS) != (n->kind == CONF_NODE_LINK_HOST_T0 &&
								n->reverse);
		t->ingress = c->dir == CONF_CAP_BOTH || !t->egress;
	}
	return 0;
}

void wr_dataplane_close(struct wr *w)
{
	struct mrc_epf_stats fs = { 0 };

	if (w->xdp)
		wr_xdp_stop(w); /* its threads end before their endpoints go */
	for (size_t i = 0; i < w->n_taps; i++)
		pcapw_close(w->taps[i].w);
	free(w->taps);
	for (unsigned t = 0; w->epf && t < wr_lanes(w); t++) {
		const struct mrc_epf_stats *ls = mrc_epf_stats(wr_lane(w, t)->epf);

		fs.dropped += ls->dropped;
		fs.delayed += ls->delayed;
		fs.queue_full += ls->queue_full;
		fs.trimmed += ls->trimmed;
		fs.ce_marked += ls->ce_marked;
	}
	if (w->epf)
		fprintf(stderr, "h%u: endpoint faults: dropped %llu, delayed %llu (queue full "
			"%llu), trimmed %llu, CE-marked %llu\n", w->rank,
			(unsigned long long)fs.dropped, (unsigned long long)fs.delayed,
			(unsigned long long)fs.queue_full, (unsigned long long)fs.trimmed,
			(unsigned long long)fs.ce_marked);
	mrc_epf_free(w->epf);
	mrc_ep_free(w->ep);
	if (w->dp)
		w->dp->close(w);
}
