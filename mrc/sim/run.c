/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * run: the main job on the simulated fabric. Wires conf -> srv6 plan -> fabric -> one MRC
 * endpoint per host -> the collective, applies the fault timeline and measures.
 */
#include "mrc/sim/run.h"

#include "mrc/job/coll.h"
#include "mrc/engine/ep.h"
#include "mrc/sim/ecmp.h"
#include "mrc/sim/fabric.h"
#include "mrc/job/epparams.h"
#include "mrc/job/fault.h"
#include "mrc/job/job.h"
#include "mrc/job/rankres.h"
#include "mrc/job/stop.h"
#include "mrc/job/sweep.h"
#include "mrc/base/rng.h"
#include "mrc/sim/sim.h"
#include "mrc/engine/srv6.h"
#include "pcap/pcapw.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#define RUN_BIN_PS 10000000ull /* goodput bins: 10 us */

struct run;

struct host {
	struct run *run;
	uint32_t idx;
	struct mrc_ep *ep;
	/* hash of the peers it has a QP to: (key + 1) << 32 | qpn, key = job * hosts + peer */
	uint64_t *peer_map;
	uint32_t map_cap, map_n; /* slots (a power of 2, or 0), used slots */
	uint8_t *qp_job;	 /* [qpn - first QPN]: the job whose QP it is (NULL: all job 0's) */
	uint32_t qp_job_cap;
	uint64_t timer_at;	 /* time of the engine timer event scheduled, or UINT64_MAX */
};

struct tap {
	struct pcapw *w;
	struct run *run;
	const char *point;	/* as configured, "h0.p0" */
	bool failed;		/* a write failed: no more records, the error is reported */
};

/* A fault handed to the fabric, to match its log entry to the configured fault. */
struct applied {
	uint64_t at_ps;
	enum mrc_fab_fault_kind kind;
	size_t conf;	/* index in job->faults */
	bool clears;	/* an up, a clear or a duration's revert */
	bool revert;	/* a duration's revert, not the configured fault itself */
	bool matched;
	bool no_effect;	/* a clear's part that found nothing to end on its link */
	unsigned dir_bits; /* loss/delay: 1 upward, 2 downward, 3 both */
};

/* Loss and delay in force on a link (its fault-log name without direction), per direction
 * (bits as in struct applied), so that a clear records only what it ends. */
struct link_imp {
	char link[48];
	unsigned loss, delay;
};

/* Where a job is (struct sjob): waiting for the job it runs after, for a time (its start,
 * a compute gap), in an iteration, done. */
enum sj_state { SJ_BLOCKED, SJ_WAIT, SJ_RUN, SJ_DONE, SJ_BG /* background, sending */ };

struct bghost;

/* One collective phase of a job's step (traffic.phases): its collective, built once, and
 * its regions' keys ([host * MRC_REG_N + region]); a gap phase has neither. */
struct sphase {
	struct mrc_coll *coll;
	uint32_t *rkey;
	enum mrc_coll_pattern pattern;
	uint32_t nranks;
	double sum;	/* its measured times, ps */
	uint32_t n;
};

/* One job of the run: traffic, or each element of traffic as a list (docs/config.md
 * "Several jobs"); its collective of the running size and where its results go. */
struct sjob {
	struct run *run;
	uint32_t idx;
	const struct conf_traffic *t;
	struct mrc_coll *coll;
	struct mrc_coll **old;	/* several jobs: collectives of its earlier sizes, kept until
				 * the end (a packet still in flight may name their buffers) */
	size_t n_old;
	struct mrc_job_coll_mem cmem; /* mrc_job_coll_params' */
	enum mrc_coll_pattern pattern;
	uint32_t nranks;	/* the collective's */
	uint64_t sizes[CONF_SIZES_MAX];
	size_t n_sizes, size_i;	/* its sizes, the running one */
	uint32_t it;		/* iteration of the running size, warmup counted */
	uint32_t global_iter;	/* iterations started, every size */
	enum sj_state state;
	uint64_t ready_at;	/* SJ_WAIT: when it starts its next iteration */
	/* when its last phase or iteration really ended: its collective's last rank, or its
	 * gap's end. The loop sees a collective's end at the end of the window it fell in
	 * (mrc_sim_set_window): a gap, a step's time and the job's end count from this. */
	uint64_t end_at;
	uint64_t deadline;	/* SJ_RUN: virtual time without completion that is a stall */
	long after;		/* the job it runs after, or -1 */
	bool measuring;
	uint32_t *rkey;		/* [host * MRC_REG_N + region] of the running collective */
	uint64_t *rank_ps;	/* per rank, its time in the last iteration */
	double sum;		/* measured CCTs of the running size, ps */
	uint32_t n;
	size_t cur_ri;		/* the running iteration's index in *iters */
	size_t faults_before;
	uint32_t iters_done;
	/* traffic.phases: one step is every phase in turn; coll and rkey are the running
	 * phase's (the phases' own, never released apart) */
	struct sphase *ph;
	size_t n_ph, ph_i;
	bool in_gap;		/* SJ_WAIT for the end of a gap phase */
	uint64_t step_start, phase_start;
	/* pattern background: its hosts, their sink regions' keys (by host), destinations
	 * (permutation), tick objects, the uniform mode's generator, the regions' VA */
	bool bg;
	uint32_t *bg_hosts, *bg_rkey, *bg_perm, bg_n;
	struct bghost *bg_tick;
	uint64_t bg_va;
	/* uniform: each host's drawn destinations, bg_ring a host (bg_fill), and the fills'
	 * period (ps) */
	uint32_t *bg_dest, bg_ring;
	uint64_t bg_fill_ps;
	/* its results: the top level's for job 0, else res->jobs[idx]'s */
	struct mrc_run_size **sizes_r;
	size_t *n_sizes_r;
	struct mrc_run_iter **iters_r;
	size_t *n_iters_r;
};

struct run {
	const struct conf_job *job;
	struct sjob *jobs;	/* conf_jobs(job) */
	size_t n_jobs;
	struct mrc_job_srv6 m;
	struct mrc_fabric *fab;
	struct mrc_sim *sim;
	int timer_kind, revert_kind;
	struct host *hosts;
	uint32_t nhosts, nranks;
	uint64_t wake_at;	/* the wake-up event scheduled (a job's start or gap end) */
	bool gather; /* hosts leave payloads in their MRs (mrc_ep_tx_gather) */
	enum mrc_verify_mode vmode; /* traffic.verify as this run keeps it */
	struct mrc_run_result *res;
	struct tap *taps;
	size_t n_taps;
	int err;		/* first fatal error inside the event loop */
	char errmsg[256];
	uint64_t fault_seen;	/* fabric fault log entries already accounted */
	/* EV state changes to ASSUMED_BAD: times, for the recovery figures */
	uint64_t *bad_t;
	size_t n_bad, cap_bad;
	uint32_t *ev_plane_cache;
	int snap_kind;		/* sim event: record fabric faults the moment they fire */
	uint32_t cur_iter;	/* global index of the iteration running */
	struct applied *applied;
	size_t n_applied;
	struct link_imp *imp;
	size_t n_imp;
	uint32_t *fired;	/* [job->n_faults]: times each at_iteration fault was applied */
	char encode_err_host[24]; /* "h3 first": the first host that failed to encode */
	struct mrc_fab_switch_seed *ecmp_seeds; /* fabric.ecmp.seeds[] for mrc_fabric_new */
	int32_t *log_row; /* [fault-log index]: its faults[] row (a flap's for its toggles), -1 */
	size_t log_rows;
	/* a sweep (mrc_sweep_sim): its plan and probes, and when each host asks it next */
	struct mrc_sweep *sw;
	int sweep_kind;
	int gap_kind; /* the end of a compute gap (traffic.gap) */
	int bg_kind;  /* a background host's next message */
	int bg_fill_kind; /* a uniform background job's draws ahead (bg_fill) */
	bool bg_stop; /* the other jobs ended: background sends no more */
	uint64_t *poll_at;	/* [nhosts]: the poll event scheduled, UINT64_MAX none */
	uint32_t sweep_left;	/* hosts not done (workers count it down atomically) */
	/* a parallel run (sim.workers > 1, docs/architecture.md "Parallel simulation"): what
	 * the workers record, each its own, merged when the run ends; the collective's end is
	 * seen between windows (run_window_hook) */
	unsigned nw;		/* workers, 1: serial */
	struct run_wk *wk;	/* [nw] when nw > 1 */
	pthread_mutex_t lock;	/* run_fail and the ASSUMED_BAD times from workers */
	/* MPI ranks (mrc_run_sim_ranks): the ranks' collectives, NULL in one process; each
	 * rank runs the hosts (and switches) of its racks, and rank 0 reports */
	const struct mrc_sim_comm *rk;
	bool *local;		/* [nhosts]: the hosts this rank runs (ranks only) */
	struct mrc_sim_buf rk_send, rk_recv;
	size_t *rk_n, *rk_rn;	/* [ranks]: the exchange's sizes */
	bool rk_lost;		/* a rank was lost (rk_lost): said; the results partial */
	bool claimed;		/* output.dir holds this run's stub report (run_setup) */
};

/* A capture record of a parallel run, held until the window ends: the key of the event
 * that made it and its place among that event's, its tap, time and bytes (in bytes[]). */
struct tap_rec {
	uint64_t key[3];
	uint32_t sub, tap;
	uint64_t ts_ns;
	size_t off, len;
};

struct run_wk {
	struct mrc_ev_profile *prof; /* its hosts' EV profile (setup_hosts) */
	struct tap_rec *recs;	/* capture records of the window, in the worker's event order */
	size_t n_recs, cap_recs;
	uint8_t *bytes;
	size_t n_bytes, cap_bytes;
	size_t at;		/* tap_flush's next record */
	uint64_t *bins;		/* goodput bytes per bin, as res->bin_bytes */
	size_t n_bins;
	struct mrc_hist *msg_ns;
} __attribute__((aligned(64)));

static void run_fail(struct run *r, int err, const char *fmt, ...)
{
	va_list ap;

	if (r->nw > 1)
		pthread_mutex_lock(&r->lock);
	if (!r->err) {
		r->err = err ? err : -EIO;
		va_start(ap, fmt);
		vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
		va_end(ap);
		mrc_sim_stop(r->sim);
	}
	if (r->nw > 1)
		pthread_mutex_unlock(&r->lock);
}

static void tap_flush(struct run *r);

/* ---- MPI ranks (mrc_run_sim_ranks; docs/architecture.md "Parallel simulation") ---- */

/* Whether this process runs host @h: every host in one process. */
static bool host_mine(const struct run *r, uint32_t h)
{
	return !r->rk || r->local[h];
}

/* A collective between the ranks failed: the others wait on it, so the rank ends (under
 * mpirun, which then ends the job naming it). */
static void rk_die(const struct run *r, const char *what, int err)
{
	fprintf(stderr, "mrcgen: sim: rank %u: %s: %s\n", r->rk->rank, what,
		strerror(err < 0 ? -err : err));
	abort();
}

/*
 * Whether @e is a collective's -ECONNABORTED: a rank is lost (died, or does not answer;
 * struct mrc_sim_comm), the collective's values this rank's alone. The run then fails
 * naming it (or, failed already, says it among the errors, once): rank 0 reports what it
 * measured until then.
 */
static bool rk_lost(struct run *r, int e)
{
	const char *why = r->rk->lost ? r->rk->lost(r->rk->ctx) : NULL;

	if (e != -ECONNABORTED)
		return false;
	if (!r->err && r->sw) /* a sweep has no iterations */
		run_fail(r, e, "mpirun: %s at %.1f us", why ?: "a rank was lost",
			(double)mrc_sim_now(r->sim) / 1e6);
	else if (!r->err)
		run_fail(r, e, "mpirun: %s in iteration %u", why ?: "a rank was lost",
			r->cur_iter);
	else if (!r->rk_lost && r->err != e)
		mrc_run_add_error(r->res, "mpirun: %s", why ?: "a rank was lost");
	r->rk_lost = true;
	return true;
}

/* Every rank's @n bytes at @mine, in rank order, into r->rk_recv (r->rk_rn[k] bytes from
 * rank k): a collective, called by every rank at the same point of the run. False when a
 * rank is lost (rk_lost): nothing came. */
static bool rk_allgather(struct run *r, const void *mine, size_t n)
{
	int e = 0;

	r->rk_send.n = 0;
	for (unsigned k = 0; k < r->rk->ranks && !e; k++) {
		e = mrc_sim_buf_put(&r->rk_send, mine, n);
		r->rk_n[k] = n;
	}
	e = e ?: r->rk->exchange(r->rk->ctx, r->rk_send.a, r->rk_n, &r->rk_recv, r->rk_rn);
	if (rk_lost(r, e))
		return false;
	if (e)
		rk_die(r, "results between ranks", e);
	return true;
}

/* @v[0..n-1] becomes its sum over the ranks (each rank holding its hosts' share); stays
 * this rank's share when a rank is lost. */
static void rk_sum(struct run *r, uint64_t *v, size_t n)
{
	if (!rk_allgather(r, v, n * sizeof(*v)))
		return;
	memset(v, 0, n * sizeof(*v));
	for (unsigned k = 0; k < r->rk->ranks; k++) {
		const unsigned char *p = r->rk_recv.a + k * n * sizeof(*v);

		if (r->rk_rn[k] != n * sizeof(*v))
			rk_die(r, "results between ranks", -EPROTO);
		for (size_t i = 0; i < n; i++) {
			uint64_t x;

			memcpy(&x, p + i * sizeof(x), sizeof(x));
			v[i] += x;
		}
	}
}

/* Whether @v holds on every rank. */
static bool rk_all(struct run *r, bool v)
{
	uint64_t x = v;
	int e = r->rk->min(r->rk->ctx, &x, 1);

	if (e && !rk_lost(r, e)) /* lost: this rank's */
		rk_die(r, "the ranks' agreement", e);
	return x != 0;
}

/* Whether @sj's collective completed: on every rank, for its hosts (mrc_coll_done sees
 * the hosts this process runs). */
static bool coll_done_all(struct run *r, const struct sjob *sj)
{
	bool d = mrc_coll_done(sj->coll);

	return r->rk ? rk_all(r, d) : d;
}

/*
 * Ranks: every rank's outcome of one step, success or failure, meets here (a failure on one
 * rank alone must not leave the others waiting in the run's collectives): called by every
 * rank at the same point. Returns @e, or -ECANCELED with @err saying @other when this rank
 * succeeded and another did not, or -EALREADY when this rank failed as rank 0 did (rank 0
 * says why: the same message from every rank would repeat it).
 */
static int rk_agree(const struct mrc_sim_comm *c, int e, const char *other, char *err,
	size_t errlen)
{
	uint64_t v[2] = { e == 0, c->rank || e == 0 }; /* all ready; rank 0 ready */
	int x = c->min(c->ctx, v, 2);

	if (x == -ECONNABORTED && c->lost && c->lost(c->ctx)) {
		snprintf(err, errlen, "mpirun: %s", c->lost(c->ctx));
		return x;
	}
	if (x) {
		snprintf(err, errlen, "mpirun: the ranks' agreement: %s",
			strerror(x < 0 ? -x : x));
		return x < 0 ? x : -x;
	}
	if (e)
		return c->rank && !v[1] ? -EALREADY : e;
	if (!v[0]) {
		snprintf(err, errlen, "mpirun: %s (it said why)", other);
		return -ECANCELED;
	}
	return 0;
}

/* Parallel: between windows, the collective's end (as ep_send_done and ep_recv_imm see it
 * in a serial run; no worker may read every rank's state in a window); over ranks a
 * sweep's end too: every rank's hosts done (on_sweep_poll). */
static void run_window_hook(void *ctx)
{
	struct run *r = ctx;

	if (r->n_taps)
		tap_flush(r);
	if (r->sw && r->rk && rk_all(r, !__atomic_load_n(&r->sweep_left, __ATOMIC_RELAXED)))
		mrc_sim_stop(r->sim);
	for (size_t j = 0; j < r->n_jobs; j++)
		if (r->jobs[j].state == SJ_RUN && coll_done_all(r, &r->jobs[j]))
			mrc_sim_stop(r->sim);
}

/* ---- engine <-> fabric glue --------------------------------------------------------- */

static void timer_arm(struct host *h)
{
	uint64_t t = mrc_ep_next_timer(h->ep);

	if (t == UINT64_MAX || t >= h->timer_at)
		return;
	h->timer_at = t;
	if (mrc_sim_at_ent(h->run->sim, t, mrc_fabric_host_entity(h->run->fab, h->idx),
		    (unsigned)h->run->timer_kind, h, t))
		run_fail(h->run, -ENOMEM, "sim: event queue full");
}

static void on_timer_event(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct host *h = obj;

	(void)ctx;
	if (arg != h->timer_at) /* superseded by an earlier one */
		return;
	h->timer_at = UINT64_MAX;
	mrc_ep_on_timer(h->ep, now);
	timer_arm(h);
}

static int ep_path(void *ctx, uint32_t peer, uint32_t ev, struct mrc_pkt *hdr)
{
	struct host *h = ctx;

	return mrc_srv6_address(h->run->m.plan, h->idx, peer, ev, hdr);
}

static unsigned ep_ev_plane(void *ctx, uint32_t ev)
{
	struct host *h = ctx;

	return mrc_srv6_ev_plane(&h->run->m.params.ev, ev);
}

static int ep_peer_of(void *ctx, const struct mrc_ip6 *src, unsigned *plane)
{
	struct host *h = ctx;
	uint32_t host;

	return mrc_srv6_addr_host(h->run->m.plan, src, plane, &host) ? -1 : (int)host;
}

static void ep_tx_ready(void *ctx, unsigned plane)
{
	struct host *h = ctx;

	mrc_fabric_kick(h->run->fab, h->idx, plane);
}

/* Adds @bytes to bin @b of *@bins (*@n of them), grown by doubling. 0 or -ENOMEM. */
static int bins_add(uint64_t **bins, size_t *n_bins, size_t b, uint64_t bytes)
{
	if (b >= *n_bins) {
		size_t n = *n_bins ? *n_bins : 1024;

		while (n <= b)
			n *= 2;
		uint64_t *nb = realloc(*bins, n * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		memset(nb + *n_bins, 0, (n - *n_bins) * sizeof(*nb));
		*bins = nb;
		*n_bins = n;
	}
	(*bins)[b] += bytes;
	return 0;
}

static void bin_add(struct run *r, uint64_t now, uint64_t bytes)
{
	struct mrc_run_result *res = r->res;
	struct run_wk *w = r->nw > 1 ? &r->wk[mrc_sim_worker(r->sim)] : NULL;

	if (w ? bins_add(&w->bins, &w->n_bins, now / res->bin_ps, bytes)
	      : bins_add(&res->bin_bytes, &res->n_bins, now / res->bin_ps, bytes))
		run_fail(r, -ENOMEM, "goodput bins: out of memory");
}

/* Parallel: the workers' bins and histograms into the result (sums: the same whatever
 * worker recorded what). */
static int run_wk_merge(struct run *r)
{
	for (unsigned k = 0; k < r->nw && r->wk; k++) {
		struct run_wk *w = &r->wk[k];

		for (size_t b = w->n_bins; b-- > 0;)
			if (w->bins[b] &&
				bins_add(&r->res->bin_bytes, &r->res->n_bins, b, w->bins[b]))
				return -ENOMEM;
		if (w->msg_ns && mrc_hist_add(r->res->msg_ns, w->msg_ns))
			return -ENOMEM;
		free(w->bins);
		w->bins = NULL;
		w->n_bins = 0;
		mrc_hist_free(w->msg_ns);
		w->msg_ns = NULL;
	}
	return 0;
}

/* The peer host of @h's QP @qpn. */
static uint32_t qpn_peer(const struct host *h, uint32_t qpn)
{
	const struct mrc_qp *qp = mrc_ep_qp(h->ep, qpn);

	return qp ? mrc_qp_peer_host(qp) : 0;
}

/* The job whose QP @qpn of @h is. */
static struct sjob *job_of(const struct host *h, uint32_t qpn)
{
	uint32_t first;

	mrc_ep_qpns(h->ep, &first);
	if (!h->qp_job || qpn < first || qpn - first >= h->qp_job_cap)
		return &h->run->jobs[0];
	return &h->run->jobs[h->qp_job[qpn - first]];
}

static void ep_send_done(void *ctx, uint32_t qpn, uint64_t wr_id, int status, uint64_t now)
{
	struct host *h = ctx;
	struct run *r = h->run;
	struct sjob *sj = job_of(h, qpn);
	int err;

	if (status) {
		run_fail(r, status, "h%u: QP %u to h%u failed: %s", h->idx, qpn,
			qpn_peer(h, qpn), strerror(-status));
		return;
	}
	if (sj->bg) {
		/* from any worker in a parallel run: a sum, the same in any order */
		__atomic_fetch_add(&r->res->jobs[sj->idx].bg_completed, 1, __ATOMIC_RELAXED);
		return;
	}
	if (sj->measuring)
		mrc_hist_record(r->nw > 1 ? r->wk[mrc_sim_worker(r->sim)].msg_ns : r->res->msg_ns,
			(int64_t)((now - mrc_coll_posted_at(sj->coll, h->idx, wr_id)) / 1000));
	err = mrc_coll_on_send_done(sj->coll, h->idx, wr_id, now);
	if (err)
		run_fail(r, err, "h%u: collective: send completion %llu: %s", h->idx,
			(unsigned long long)wr_id, strerror(-err));
	else if (r->nw == 1 && !r->rk && mrc_coll_done(sj->coll))
		mrc_sim_stop(r->sim);
}

static void ep_recv_imm(void *ctx, uint32_t qpn, uint32_t imm, uint64_t len, uint64_t now)
{
	struct host *h = ctx;
	struct run *r = h->run;
	struct sjob *sj = job_of(h, qpn);
	int err;

	(void)len;
	err = sj->coll ? mrc_coll_on_recv(sj->coll, h->idx, qpn_peer(h, qpn), imm, now) : -EPROTO;
	if (err)
		run_fail(r, err, "h%u: collective: unexpected write from h%u (imm 0x%08x)", h->idx,
			qpn_peer(h, qpn), imm);
	else if (r->nw == 1 && !r->rk && mrc_coll_done(sj->coll))
		mrc_sim_stop(r->sim);
}

static void ep_ev_event(void *ctx, uint32_t qpn, uint32_t ev, int from, int to, int cause,
	uint64_t now)
{
	struct host *h = ctx;
	struct run *r = h->run;

	(void)qpn, (void)ev, (void)from, (void)cause;
	if (to != MRC_EV_ASSUMED_BAD)
		return;
	if (r->nw > 1) /* sorted when the run ends: the serial run's order, by time */
		pthread_mutex_lock(&r->lock);
	if (r->n_bad == r->cap_bad) {
		size_t n = r->cap_bad ? 2 * r->cap_bad : 256;
		uint64_t *nb = realloc(r->bad_t, n * sizeof(*nb));

		if (nb) {
			r->bad_t = nb;
			r->cap_bad = n;
		}
	}
	if (r->n_bad < r->cap_bad)
		r->bad_t[r->n_bad++] = now;
	if (r->nw > 1)
		pthread_mutex_unlock(&r->lock);
}

/* A packet reaches @host: whole (@g NULL), or gathered, its payload placed straight from
 * the sender's MR */
static void sweep_poll_at(struct run *r, uint32_t host, uint64_t t);

/* An EV probe's answer (a sweep's): counted, and the host may send again. */
static void ep_response(void *ctx, uint16_t req_id, uint32_t peer, uint32_t ev, unsigned port,
	uint64_t rtt_ns, uint64_t now)
{
	struct host *h = ctx;

	(void)port;
	if (!h->run->sw)
		return;
	mrc_sweep_answer(h->run->sw, h->idx, req_id, peer, ev, rtt_ns);
	sweep_poll_at(h->run, h->idx, now);
}

/* This host answered an EV probe: a sweep counts it on the path from @peer. */
static void ep_request(void *ctx, uint32_t peer, uint32_t ev, unsigned op, bool ce, uint64_t now)
{
	struct host *h = ctx;

	(void)now;
	if (h->run->sw && op == MRC_EP_OP_EV_PROBE)
		mrc_sweep_request(h->run->sw, h->idx, peer, ev, ce);
}

static void fab_rx_gather(void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len,
	const struct mrc_wire_gather *g, uint64_t now)
{
	struct run *r = ctx;
	struct host *h = &r->hosts[host];

	bin_add(r, now, len);
	mrc_ep_on_rx_gather(h->ep, plane, buf, len, g, false, now);
	timer_arm(h);
}

static void fab_rx(void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len,
	uint64_t now)
{
	fab_rx_gather(ctx, host, plane, buf, len, NULL, now);
}

/* Verification by descriptors: the buffers hold no bytes, so where the fabric lays a
 * packet out (a capture, a trim) its payload is generated from the closed form. */
static void fab_payload(void *ctx, const uint8_t *pay, uint32_t len, uint8_t *out)
{
	struct run *r = ctx;

	/* the collective whose source it is: a job's running one, or an earlier size's */
	for (size_t j = 0; j < r->n_jobs; j++) {
		struct sjob *sj = &r->jobs[j];

		if (sj->coll && !mrc_coll_payload(sj->coll, pay, len, out))
			return;
		for (size_t k = 0; k < sj->n_old; k++)
			if (!mrc_coll_payload(sj->old[k], pay, len, out))
				return;
		for (size_t k = 0; k < sj->n_ph; k++)
			if (sj->ph[k].coll && !mrc_coll_payload(sj->ph[k].coll, pay, len, out))
				return;
	}
	memset(out, 0, len);
}

/* The collectives a DESC payload may name, in one order on every rank: each job's running
 * one, its earlier sizes', its phases' (as fab_payload searches them); NULL past the last. */
static struct mrc_coll *coll_nth(struct run *r, uint64_t n)
{
	for (size_t j = 0; j < r->n_jobs; j++) {
		struct sjob *sj = &r->jobs[j];

		if (sj->coll && !n--)
			return sj->coll;
		if (n < sj->n_old)
			return sj->old[n];
		n -= sj->n_old;
		for (size_t k = 0; k < sj->n_ph; k++)
			if (sj->ph[k].coll && !n--)
				return sj->ph[k].coll;
	}
	return NULL;
}

/*
 * Ranks: a DESC payload address crosses as a token of 24 bytes: a reference, the
 * collective's place in coll_nth's order above bit 48 and the offset in its range below
 * (UINT64_MAX: it names none and arrives as NULL, zeros, as no collective's address does
 * in one process; bit 63 set: 16 bytes of the source granule's descriptor follow), and
 * that descriptor (mrc_coll_src_desc_get): the arriving rank writes it into its copy of
 * the granule, which only the sending rank keeps up to date, before the packet is placed.
 */
#define TOK_DESC (1ull << 63)

static void fab_pay_token(void *ctx, const uint8_t *pay, uint32_t len,
	uint8_t tok[MRC_FAB_PAY_TOKEN])
{
	struct run *r = ctx;
	struct mrc_coll *c;
	uint64_t off, ref = UINT64_MAX;

	for (uint64_t n = 0; (c = coll_nth(r, n)); n++) {
		if (mrc_coll_src_off(c, pay, &off) && off < 1ull << 48 && n < 1ull << 15) {
			ref = n << 48 | off;
			if (mrc_coll_src_desc_get(c, pay, len, tok + 8))
				ref |= TOK_DESC;
			break;
		}
	}
	memcpy(tok, &ref, sizeof(ref));
}

static const uint8_t *fab_pay_from_token(void *ctx, const uint8_t tok[MRC_FAB_PAY_TOKEN],
	uint32_t len)
{
	struct run *r = ctx;
	struct mrc_coll *c;
	const uint8_t *pay;
	uint64_t ref;

	memcpy(&ref, tok, sizeof(ref));
	c = ref == UINT64_MAX ? NULL : coll_nth(r, ref >> 48 & 0x7fff);
	pay = c ? mrc_coll_src_at(c, ref & ((1ull << 48) - 1)) : NULL;
	if (pay && ref & TOK_DESC)
		mrc_coll_src_desc_put(c, pay, len, tok + 8);
	return pay;
}

/* A payload landed in a sink MR of @h: the collective's descriptors follow it. */
static void ep_placed(void *ctx, uint32_t rkey, uint64_t off, const uint8_t *data, uint32_t len)
{
	struct host *h = ctx;
	struct run *r = h->run;

	for (size_t j = 0; j < r->n_jobs; j++) {
		struct sjob *sj = &r->jobs[j];

		for (int g = 0; g < MRC_REG_N && sj->coll; g++)
			if (sj->rkey[(size_t)h->idx * MRC_REG_N + g] == rkey) {
				mrc_coll_place(sj->coll, h->idx, (enum mrc_coll_region)g, off, data,
					len);
				return;
			}
	}
}

static size_t fab_tx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g)
{
	struct run *r = ctx;
	struct host *h = &r->hosts[host];
	/* checksums offloaded: the payload can stay in the MR too (a NIC's gather DMA) */
	int n = r->gather ? mrc_ep_tx_gather(h->ep, plane, now, buf, cap, g)
			  : mrc_ep_tx(h->ep, plane, now, buf, cap);

	timer_arm(h);
	return n > 0 ? (size_t)n : 0;
}

/* A NIC port whose data priority PFC paused sends control only (docs/pfc.md). */
static size_t fab_tx_ctrl(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap)
{
	struct run *r = ctx;
	struct host *h = &r->hosts[host];
	int n = mrc_ep_tx_ctrl(h->ep, plane, now, buf, cap);

	timer_arm(h);
	return n > 0 ? (size_t)n : 0;
}

static void fab_port_status(void *ctx, uint32_t host, unsigned plane, bool up, uint64_t now)
{
	struct run *r = ctx;
	struct host *h = &r->hosts[host];

	mrc_ep_port_status(h->ep, plane, up, now);
	timer_arm(h);
}

/* Writes a record of capture @t: failures end the capture, not the job. */
static void tap_put(struct tap *t, uint64_t ts_ns, const uint8_t *buf, size_t len)
{
	int e;

	if (t->failed)
		return;
	e = pcapw_write(t->w, ts_ns, buf, len);
	if (e == -ERANGE) /* this record only (a 32-bit field); the capture goes on */
		return;
	if (e) {
		/* the file ends at its last whole record; the job goes on without it */
		t->failed = true;
		mrc_run_add_error(t->run->res, "capture %s: %s", t->point, pcapw_error(t->w));
	}
}

static bool key_lt(const uint64_t a[3], uint32_t sa, const uint64_t b[3], uint32_t sb)
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return sa < sb;
}

/*
 * A parallel run's capture: each worker keeps its records with the key of the event that
 * made them, and the windows' records are written merged by those keys (tap_flush): the
 * serial run's order, which runs the events by the same keys.
 */
static int tap_hold(struct run *r, struct tap *t, uint64_t ts_ns, const uint8_t *buf,
	size_t len)
{
	struct run_wk *w = &r->wk[mrc_sim_worker(r->sim)];
	struct tap_rec *rc;

	if (w->n_recs == w->cap_recs) {
		size_t cap = w->cap_recs ? 2 * w->cap_recs : 256;
		struct tap_rec *a = realloc(w->recs, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		w->recs = a;
		w->cap_recs = cap;
	}
	if (w->n_bytes + len > w->cap_bytes) {
		size_t cap = w->cap_bytes ? 2 * w->cap_bytes : 65536;
		uint8_t *a;

		while (cap < w->n_bytes + len)
			cap *= 2;
		a = realloc(w->bytes, cap);
		if (!a)
			return -ENOMEM;
		w->bytes = a;
		w->cap_bytes = cap;
	}
	rc = &w->recs[w->n_recs];
	mrc_sim_event_key(r->sim, rc->key);
	rc->sub = w->n_recs && !key_lt(w->recs[w->n_recs - 1].key, 0, rc->key, 0)
			  ? w->recs[w->n_recs - 1].sub + 1
			  : 0;
	rc->tap = (uint32_t)(t - r->taps);
	rc->ts_ns = ts_ns;
	rc->off = w->n_bytes;
	rc->len = len;
	memcpy(w->bytes + w->n_bytes, buf, len);
	w->n_bytes += len;
	w->n_recs++;
	return 0;
}

/* Every rank's r->rk_send (rank 0's: nothing) to rank 0, into its r->rk_recv (r->rk_rn[k]
 * bytes from rank k): a collective, aborting the rank (@what) when it fails; nothing from
 * the others when a rank is lost (rk_lost). */
static void rk_to_rank0(struct run *r, const char *what)
{
	const struct mrc_sim_comm *c = r->rk;
	int e;

	memset(r->rk_n, 0, c->ranks * sizeof(*r->rk_n));
	r->rk_n[0] = c->rank ? r->rk_send.n : 0;
	e = c->exchange(c->ctx, r->rk_send.a, r->rk_n, &r->rk_recv, r->rk_rn);
	if (e && !rk_lost(r, e))
		rk_die(r, what, e);
}

/* A capture record between ranks: rk_tap_flush. */
struct rk_tap {
	uint64_t key[3];
	uint32_t sub, tap;
	uint64_t ts_ns;
	uint32_t len, pad;
};

/* A record rank 0 writes: its header and bytes (its own or a received one). */
struct rk_tap_ref {
	struct rk_tap h;
	const uint8_t *bytes;
};

static int rk_tap_cmp(const void *pa, const void *pb)
{
	const struct rk_tap_ref *a = pa, *b = pb;

	return key_lt(a->h.key, a->h.sub, b->h.key, b->h.sub) ? -1 :
	       key_lt(b->h.key, b->h.sub, a->h.key, a->h.sub) ? 1 : 0;
}

/* Appends @ref to *@all (*@n of *@cap, grown by doubling): 0 or -ENOMEM. */
static int rk_tap_add(struct rk_tap_ref **all, size_t *n, size_t *cap, struct rk_tap_ref ref)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct rk_tap_ref *a = realloc(*all, c * sizeof(*a));

		if (!a)
			return -ENOMEM;
		*all = a;
		*cap = c;
	}
	(*all)[(*n)++] = ref;
	return 0;
}

/*
 * Ranks: the window's capture records of every rank to rank 0 (one exchange; a collective
 * every rank makes after each window when the job captures), written there merged by
 * their events' keys: the serial run's order (a record is made by an event of a port's
 * switch or host, which one rank runs; entity 0's events, which every rank runs, make
 * none). A share out of shape is a capture error.
 */
static void rk_tap_flush(struct run *r)
{
	const struct mrc_sim_comm *c = r->rk;
	struct rk_tap_ref *all = NULL;
	size_t n = 0, cap = 0;
	int e = 0;

	r->rk_send.n = 0;
	for (unsigned k = 0; c->rank && k < r->nw && !e; k++) {
		const struct run_wk *w = &r->wk[k];

		for (size_t i = 0; i < w->n_recs && !e; i++) {
			const struct tap_rec *rc = &w->recs[i];
			struct rk_tap h = { { rc->key[0], rc->key[1], rc->key[2] }, rc->sub, rc->tap,
				rc->ts_ns, (uint32_t)rc->len, 0 };

			e = mrc_sim_buf_put(&r->rk_send, &h, sizeof(h));
			e = e ?: mrc_sim_buf_put(&r->rk_send, w->bytes + rc->off, rc->len);
		}
	}
	if (e)
		rk_die(r, "capture records for rank 0", e);
	rk_to_rank0(r, "capture records for rank 0");
	for (unsigned k = 0; !c->rank && k < r->nw; k++) { /* rank 0's own */
		const struct run_wk *w = &r->wk[k];

		for (size_t i = 0; i < w->n_recs; i++) {
			const struct tap_rec *rc = &w->recs[i];

			if (rk_tap_add(&all, &n, &cap, (struct rk_tap_ref){ { { rc->key[0],
				    rc->key[1], rc->key[2] }, rc->sub, rc->tap, rc->ts_ns,
				    (uint32_t)rc->len, 0 }, w->bytes + rc->off }))
				goto nomem;
		}
	}
	for (const unsigned char *p = r->rk_recv.a, *end = p + r->rk_recv.n; !c->rank && p < end;) {
		struct rk_tap h;

		if ((size_t)(end - p) < sizeof(h)) {
			mrc_run_add_error(r->res, "MPI ranks: capture records cut short");
			break;
		}
		memcpy(&h, p, sizeof(h));
		p += sizeof(h);
		if (h.tap >= r->n_taps || h.len > (size_t)(end - p)) {
			mrc_run_add_error(r->res, "MPI ranks: a capture record out of shape (tap %u, "
						  "%u bytes)", h.tap, h.len);
			break;
		}
		if (rk_tap_add(&all, &n, &cap, (struct rk_tap_ref){ h, p }))
			goto nomem;
		p += h.len;
	}
	if (n)
		qsort(all, n, sizeof(*all), rk_tap_cmp);
	for (size_t i = 0; i < n; i++)
		tap_put(&r->taps[all[i].h.tap], all[i].h.ts_ns, all[i].bytes, all[i].h.len);
	free(all);
	for (unsigned k = 0; k < r->nw; k++)
		r->wk[k].n_recs = r->wk[k].n_bytes = r->wk[k].at = 0;
	return;
nomem:
	free(all);
	rk_die(r, "capture records", -ENOMEM);
}

/* Writes the records the workers hold, merged by their events' keys. */
static void tap_flush(struct run *r)
{
	if (r->rk) {
		rk_tap_flush(r);
		return;
	}
	for (;;) {
		struct run_wk *best = NULL;
		const struct tap_rec *rc;

		for (unsigned k = 0; k < r->nw; k++) {
			struct run_wk *w = &r->wk[k];

			if (w->at < w->n_recs &&
				(!best || key_lt(w->recs[w->at].key, w->recs[w->at].sub,
						  best->recs[best->at].key, best->recs[best->at].sub)))
				best = w;
		}
		if (!best)
			break;
		rc = &best->recs[best->at++];
		tap_put(&r->taps[rc->tap], rc->ts_ns, best->bytes + rc->off, rc->len);
	}
	for (unsigned k = 0; k < r->nw; k++)
		r->wk[k].n_recs = r->wk[k].n_bytes = r->wk[k].at = 0;
}

static void tap_write(void *ctx, const uint8_t *buf, size_t len, uint64_t now)
{
	struct tap *t = ctx;
	struct run *r = t->run;

	if (r->nw > 1 || r->rk) {
		if (!t->failed && tap_hold(r, t, now / 1000, buf, len)) {
			t->failed = true;
			run_fail(r, -ENOMEM, "capture %s: out of memory", t->point);
		}
		return;
	}
	tap_put(t, now / 1000, buf, len);
}

/* ---- collective <-> endpoints ------------------------------------------------------- */

/* @h's slot for @key (job * hosts + peer) in its map: the key's entry, or the empty slot
 * it would take. */
static uint64_t *peer_slot(const struct host *h, uint32_t key)
{
	uint32_t m = h->map_cap - 1, i = (uint32_t)((key + 1) * 0x9E3779B1u) >> 8 & m;

	while (h->peer_map[i] && (uint32_t)(h->peer_map[i] >> 32) != key + 1)
		i = (i + 1) & m;
	return &h->peer_map[i];
}

/* The QPN @h talks to peer and job @key over, 0 when none yet. */
static uint32_t qpn_of_peer(const struct host *h, uint32_t key)
{
	return h->map_cap ? (uint32_t)*peer_slot(h, key) : 0;
}

/* Marks @h's QP @qpn as job @job's. Returns 0 or -ENOMEM. */
static int qp_job_set(struct host *h, uint32_t qpn, uint32_t job)
{
	uint32_t first, i;

	mrc_ep_qpns(h->ep, &first);
	i = qpn - first;
	if (!job && !h->qp_job)
		return 0; /* job 0's, as every QP of one job */
	if (i >= h->qp_job_cap) {
		uint32_t cap = h->qp_job_cap ? 2 * h->qp_job_cap : 16;
		uint8_t *n;

		while (cap <= i)
			cap *= 2;
		n = realloc(h->qp_job, cap);
		if (!n)
			return -ENOMEM;
		memset(n + h->qp_job_cap, 0, cap - h->qp_job_cap);
		h->qp_job = n;
		h->qp_job_cap = cap;
	}
	h->qp_job[i] = (uint8_t)job;
	return 0;
}

/* Records @h's QP @qpn to @peer (new). Returns 0 or -ENOMEM. */
static int peer_map_add(struct host *h, uint32_t peer, uint32_t qpn)
{
	if (2 * (h->map_n + 1) > h->map_cap) { /* at most half full */
		struct host n = *h;

		n.map_cap = h->map_cap ? 2 * h->map_cap : 8;
		n.peer_map = calloc(n.map_cap, sizeof(*n.peer_map));
		if (!n.peer_map)
			return -ENOMEM;
		for (uint32_t i = 0; i < h->map_cap; i++) {
			uint32_t p = (uint32_t)(h->peer_map[i] >> 32) - 1;

			if (h->peer_map[i])
				*peer_slot(&n, p) = h->peer_map[i];
		}
		free(h->peer_map);
		h->peer_map = n.peer_map;
		h->map_cap = n.map_cap;
	}
	*peer_slot(h, peer) = (uint64_t)(peer + 1) << 32 | qpn;
	h->map_n++;
	return 0;
}

/* The QP of job @job's hosts @a (the writer) and @b: one per pair of hosts and job, both
 * directions (RC), made at once on the first use (on the loop's caller: it touches both
 * hosts). */
static int qp_get(struct run *r, uint32_t job, uint32_t a, uint32_t b, uint32_t *qpn)
{
	struct host *ha = &r->hosts[a], *hb = &r->hosts[b];
	uint32_t qa, qb, ka = job * r->nhosts + b, kb = job * r->nhosts + a;
	int err;

	*qpn = qpn_of_peer(ha, ka);
	if (*qpn)
		return 0;
	err = mrc_ep_qp_create(ha->ep, b, 0, &qa);
	err = err ?: mrc_ep_qp_create(hb->ep, a, qa, &qb);
	err = err ?: mrc_ep_qp_connect(ha->ep, qa, qb);
	err = err ?: peer_map_add(ha, ka, qa);
	err = err ?: peer_map_add(hb, kb, qb);
	err = err ?: qp_job_set(ha, qa, job);
	err = err ?: qp_job_set(hb, qb, job);
	if (err)
		return err;
	r->res->qps += 2;
	*qpn = qa;
	return 0;
}

/*
 * The QPs of every (rank, peer) @sj's collective writes over (mrc_coll_peers), ranks in
 * order, each rank's peers in the order of its first writes: made at the collective's
 * start on the loop's caller, before any event of it runs, in a serial run as in a parallel
 * one so that both number the QPs alike (docs/architecture.md "Parallel simulation").
 */
static int coll_qps(struct sjob *sj)
{
	for (uint32_t k = 0; k < mrc_coll_endpoints(sj->coll); k++) {
		uint32_t n, qpn;
		const uint32_t *peer = mrc_coll_peers(sj->coll, k, &n);

		for (uint32_t i = 0; i < n; i++) {
			int e = qp_get(sj->run, sj->idx, k, peer[i], &qpn);

			if (e)
				return e;
		}
	}
	return 0;
}

/* A write of the collective: over the QP its start made (coll_qps), only looked up here,
 * in the event of the writer's host (a worker's, in a parallel run). */
static int coll_post(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x, const void *src,
	uint64_t va, uint32_t imm, uint64_t wr_id)
{
	struct sjob *sj = ctx;
	struct run *r = sj->run;
	struct host *h = &r->hosts[rank];
	uint64_t now = mrc_sim_now(r->sim);
	uint32_t qpn = qpn_of_peer(h, sj->idx * r->nhosts + x->peer);
	int err;

	if (!qpn) /* a peer mrc_coll_peers did not name: a bug, never a QP made here */
		return -ENOTCONN;
	err = mrc_ep_post_write(h->ep, qpn, src, x->len, va,
		sj->rkey[(size_t)x->peer * MRC_REG_N + x->dst_reg], true, imm, wr_id, now);
	timer_arm(h);
	return err;
}

/* ---- faults -------------------------------------------------------------------------- */

/* Maps a configured fault onto the fabric's plain struct. */
static int fault_map(struct run *r, const struct conf_fault *cf, uint64_t at,
	struct mrc_fab_fault *f, char *err, size_t errlen)
{
	const struct conf_node *n = &cf->node;
	bool down = cf->action == CONF_FA_DOWN, up = cf->action == CONF_FA_UP;
	bool link = n->kind == CONF_NODE_LINK_T0_T1 || n->kind == CONF_NODE_LINK_HOST_T0;

	memset(f, 0, sizeof(*f));
	f->at_ps = at;
	f->plane = n->plane;
	if (link) {
		bool fwd_up = !n->reverse; /* written lower tier first: forward is upward */

		f->tier = n->kind == CONF_NODE_LINK_T0_T1 ? MRC_FAB_T0 : MRC_FAB_HOST;
		f->a = n->kind == CONF_NODE_LINK_T0_T1 ? n->t0 : n->host;
		f->b = n->t1;
		f->dir = cf->direction == CONF_DIR_BOTH ? MRC_FAB_BOTH :
			 (cf->direction == CONF_DIR_FORWARD) == fwd_up ? MRC_FAB_UPWARD :
									   MRC_FAB_DOWNWARD;
	}
	switch (cf->action) {
	case CONF_FA_DOWN:
	case CONF_FA_UP:
		if (link) {
			f->kind = down ? MRC_FAB_LINK_DOWN : MRC_FAB_LINK_UP;
		} else if (n->kind == CONF_NODE_T0 || n->kind == CONF_NODE_T1) {
			f->kind = down ? MRC_FAB_SWITCH_DOWN : MRC_FAB_SWITCH_UP;
			f->tier = n->kind == CONF_NODE_T0 ? MRC_FAB_T0 : MRC_FAB_T1;
			f->a = n->kind == CONF_NODE_T0 ? n->t0 : n->t1;
		} else if (n->kind == CONF_NODE_PORT) {
			f->kind = up ? MRC_FAB_NIC_UP : MRC_FAB_NIC_DOWN;
			f->tier = MRC_FAB_HOST;
			f->a = n->host;
		} else {
			snprintf(err, errlen, "fault %s: %s of a whole host is not supported; "
				 "name its NIC ports (h%u.p0 ...)", cf->target,
				conf_name_of(conf_fault_action_names, cf->action), n->host);
			return -EINVAL;
		}
		return 0;
	case CONF_FA_LOSS:
	case CONF_FA_DELAY:
	case CONF_FA_FLAP:
	case CONF_FA_CLEAR:
	case CONF_FA_BLACKHOLE:
		if (!link) {
			snprintf(err, errlen, "fault %s: %s needs a link target", cf->target,
				conf_name_of(conf_fault_action_names, cf->action));
			return -EINVAL;
		}
		break;
	}
	switch (cf->action) {
	case CONF_FA_LOSS:
		f->kind = MRC_FAB_LOSS;
		f->loss_rate = cf->rate;
		break;
	case CONF_FA_DELAY:
		f->kind = MRC_FAB_DELAY;
		f->delay_ps = cf->delay_ps;
		break;
	case CONF_FA_CLEAR:
		f->kind = MRC_FAB_LOSS; /* clear loss; delay is cleared by a second fault */
		f->loss_rate = 0;
		break;
	case CONF_FA_FLAP:
		f->kind = MRC_FAB_FLAP;
		f->period_ps = cf->period_ps;
		f->duty = cf->duty;
		f->until_ps = mrc_fault_until(cf, at);
		break;
	case CONF_FA_BLACKHOLE: {
		/* the first node of the link forgets its static route to the second */
		struct mrc_srv6_node to;

		if (n->kind == CONF_NODE_LINK_T0_T1) {
			f->tier = n->reverse ? MRC_FAB_T1 : MRC_FAB_T0;
			f->a = n->reverse ? n->t1 : n->t0;
			to = (struct mrc_srv6_node){ n->reverse ? MRC_SRV6_T0 : MRC_SRV6_T1,
				(uint8_t)n->plane, n->reverse ? n->t0 : n->t1 };
		} else {
			if (!n->reverse) {
				snprintf(err, errlen,
					"fault %s: a host has no static routes; write "
					"the link T0 first to blackhole the T0's route to the port",
					cf->target);
				return -EINVAL;
			}
			f->tier = MRC_FAB_T0;
			f->a = n->t0;
			to = (struct mrc_srv6_node){ MRC_SRV6_HOST, (uint8_t)n->plane, n->host };
		}
		f->kind = MRC_FAB_BLACKHOLE;
		f->usid = mrc_srv6_usid(r->m.plan, &to);
		break;
	}
	default:
		break;
	}
	return 0;
}

static int applied_add(struct run *r, const struct mrc_fab_fault *f, const struct conf_fault *cf,
	bool clears, bool revert)
{
	struct applied *a = realloc(r->applied, (r->n_applied + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	r->applied = a;
	a[r->n_applied++] = (struct applied){
		.at_ps = f->at_ps,
		.kind = f->kind,
		.conf = (size_t)(cf - r->job->faults),
		.clears = clears,
		.revert = revert,
		.dir_bits = f->dir == MRC_FAB_UPWARD ? 1u : f->dir == MRC_FAB_DOWNWARD ? 2u : 3u,
	};
	return 0;
}

/* Applies (now) or schedules (at) a fault and, with a duration, its revert. */
static int fault_apply(struct run *r, const struct conf_fault *cf, uint64_t at, bool now,
	char *err, size_t errlen)
{
	struct mrc_fab_fault f, rev;
	int e = fault_map(r, cf, at, &f, err, errlen);

	if (e)
		return e;
	if (cf->has_at_iteration)
		r->fired[cf - r->job->faults]++;
	e = applied_add(r, &f, cf, cf->action == CONF_FA_UP || cf->action == CONF_FA_CLEAR, false);
	e = e ?: now ? mrc_fabric_apply(r->fab, &f, at) : mrc_fabric_schedule(r->fab, &f);
	if (!e && cf->action == CONF_FA_CLEAR) { /* clear ends a delay as well as a loss */
		struct mrc_fab_fault d = f;

		d.kind = MRC_FAB_DELAY;
		d.delay_ps = 0;
		e = applied_add(r, &d, cf, true, false);
		e = e ?: now ? mrc_fabric_apply(r->fab, &d, at) : mrc_fabric_schedule(r->fab, &d);
	}
	/* and the blackholes of the link in its directions: forward is the written order's
	 * first node's route to the second (as a blackhole of the link written so) */
	for (int back = 0; !e && cf->action == CONF_FA_CLEAR && back < 2; back++) {
		struct conf_fault bc = *cf;
		struct mrc_fab_fault u;
		char no_route[160];

		if (cf->direction == (back ? CONF_DIR_FORWARD : CONF_DIR_REVERSE))
			continue;
		bc.action = CONF_FA_BLACKHOLE;
		bc.node.reverse = back ? !cf->node.reverse : cf->node.reverse;
		/* a host has no routes: only the T0's route to the port can be restored */
		if (fault_map(r, &bc, at, &u, no_route, sizeof(no_route)))
			continue;
		u.kind = MRC_FAB_UNBLACKHOLE;
		e = applied_add(r, &u, cf, true, false);
		e = e ?: now ? mrc_fabric_apply(r->fab, &u, at) : mrc_fabric_schedule(r->fab, &u);
	}
	/* after the fabric's own events at the same time, scheduled now by entity 0 as well: they
	 * run in the order scheduled (mrc_sim_at_ent) */
	e = e ?: now ? 0 : mrc_sim_at_ent(r->sim, at, 0, (unsigned)r->snap_kind, r, 0);
	if (e) {
		snprintf(err, errlen, "fault %s: the fabric refused it: %s", cf->target,
			strerror(-e));
		return e;
	}
	if (!cf->has_duration || cf->action == CONF_FA_FLAP)
		return 0;
	rev = f;
	rev.at_ps = at + cf->duration_ps;
	switch (f.kind) {
	case MRC_FAB_LINK_DOWN:
		rev.kind = MRC_FAB_LINK_UP;
		break;
	case MRC_FAB_SWITCH_DOWN:
		rev.kind = MRC_FAB_SWITCH_UP;
		break;
	case MRC_FAB_NIC_DOWN:
		rev.kind = MRC_FAB_NIC_UP;
		break;
	case MRC_FAB_LOSS:
		rev.loss_rate = 0;
		break;
	case MRC_FAB_DELAY:
		rev.delay_ps = 0;
		break;
	case MRC_FAB_BLACKHOLE:
		rev.kind = MRC_FAB_UNBLACKHOLE;
		break;
	default:
		return 0; /* an "up" needs no revert */
	}
	e = applied_add(r, &rev, cf, true, true);
	e = e ?: mrc_fabric_schedule(r->fab, &rev);
	e = e ?: mrc_sim_at_ent(r->sim, rev.at_ps, 0, (unsigned)r->snap_kind, r, 0);
	if (e)
		snprintf(err, errlen, "fault %s: revert: %s", cf->target, strerror(-e));
	return e;
}

/* ---- setup --------------------------------------------------------------------------- */

/* fabric.ecmp and fabric.routing onto @p (docs/roce-baseline.md); the seed overrides
 * live in r->ecmp_seeds until the fabric is built. 0 or -ENOMEM. */
static int ecmp_params(struct run *r, struct mrc_fabric_params *p)
{
	static const unsigned bit[] = {
		[CONF_HF_SRC] = MRC_ECMP_SRC, [CONF_HF_DST] = MRC_ECMP_DST,
		[CONF_HF_NEXT_HEADER] = MRC_ECMP_NH, [CONF_HF_SPORT] = MRC_ECMP_SPORT,
		[CONF_HF_DPORT] = MRC_ECMP_DPORT, [CONF_HF_FLOW_LABEL] = MRC_ECMP_FLOW,
	};
	const struct conf_ecmp *e = &r->job->fabric.ecmp;
	const struct conf_routing *rt = &r->job->fabric.routing;

	p->ecmp_fields = 0;
	for (size_t i = 0; i < e->n_hash_fields; i++)
		p->ecmp_fields |= bit[e->hash_fields[i]];
	p->ecmp_seed = e->seed;
	p->ecmp_per_switch = e->seed_mode == CONF_SEED_PER_SWITCH;
	r->ecmp_seeds = calloc(e->n_seeds ? e->n_seeds : 1, sizeof(*r->ecmp_seeds));
	if (!r->ecmp_seeds)
		return -ENOMEM;
	for (size_t i = 0; i < e->n_seeds; i++) {
		const struct conf_node *n = &e->seeds[i].node;

		r->ecmp_seeds[i] = (struct mrc_fab_switch_seed){
			.tier = n->kind == CONF_NODE_T0 ? MRC_FAB_T0 : MRC_FAB_T1,
			.index = n->kind == CONF_NODE_T0 ? n->t0 : n->t1,
			.plane = n->plane,
			.seed = e->seeds[i].seed,
		};
	}
	p->ecmp_seeds = r->ecmp_seeds;
	p->n_ecmp_seeds = e->n_seeds;
	/* RFC 5880 §6.8.4: the detection time is the detect multiplier times the interval */
	p->detect_ps = rt->bfd_interval_ps * rt->bfd_multiplier;
	p->converge_ps = rt->convergence_ps;
	return 0;
}

static int setup_fabric(struct run *r, char *err, size_t errlen)
{
	const struct conf_fabric *cf = &r->job->fabric;
	const struct conf_mrc *cm = &r->job->mrc;
	static const struct mrc_fab_host_ops hops = {
		fab_rx, fab_tx, fab_port_status, NULL, fab_tx_ctrl, NULL, NULL, NULL};
	/* a gathering host also receives gathered (one copy per packet, as an RDMA NIC) */
	static const struct mrc_fab_host_ops hops_gather = {
		fab_rx, fab_tx, fab_port_status, fab_rx_gather, fab_tx_ctrl, NULL, NULL, NULL};
	/* and with verification by descriptors, generates the payloads it lays out */
	static const struct mrc_fab_host_ops hops_desc = {
		fab_rx, fab_tx, fab_port_status, fab_rx_gather, fab_tx_ctrl, fab_payload,
		fab_pay_token, fab_pay_from_token};
	struct mrc_fabric_params p;
	int e;

	mrc_fabric_defaults(&p);
	p.plan = r->m.plan;
	p.host_rate_bps = p.fabric_rate_bps = cf->link_rate_bps;
	p.host_delay_ps = cf->host_link_delay_ps;
	p.fabric_delay_ps = cf->fabric_link_delay_ps;
	p.switch_delay_ps = cf->switch_delay_ps;
	p.buffer_bytes = (uint32_t)cf->buffer_bytes;
	p.ecn_kmin_bytes = (uint32_t)cf->ecn_kmin_bytes;
	p.ecn_kmax_bytes = (uint32_t)cf->ecn_kmax_bytes;
	p.ecn_pmax = cf->ecn_pmax;
	p.ecn_lasthop = cf->ecn_last_hop;
	p.pfc.enabled = cf->pfc.enabled;
	p.pfc.control = cf->pfc.control == CONF_PFC_LOSSLESS;
	p.pfc.xoff_bytes = (uint32_t)cf->pfc.xoff_bytes;
	p.pfc.xon_bytes = (uint32_t)cf->pfc.xon_bytes;
	p.pfc.headroom_bytes = (uint32_t)mrc_job_pfc_headroom(r->job);
	p.trim = cf->trim;
	p.trim_bytes = (uint32_t)cf->trim_size_bytes;
	p.dscp_trimmed = cm->dscp.trimmed;
	p.dscp_trimmed_lasthop = cm->dscp.trimmed_lasthop;
	/* Packet buffers: the pool is most of the simulator's memory at scale. 512 B cover
	 * outer IPv6, a full SRH (8 + 8 x 16), inner IPv6, UDP, BTH, every extension header
	 * at once (156) and the ICRC: 396. With checksums offloaded the hosts gather, so a
	 * data packet's payload stays in its MR and the pool holds headers (or a trimmed
	 * packet); otherwise whole packets of this job's MTU. pkt_cap bounds the pool's
	 * largest size class: each packet takes a slot of its own size (mrc/fabric). */
	p.csum_offload = !r->job->mrc.rx_checks; /* as mrc_run_ep_params sets the hosts' */
	r->gather = p.csum_offload;
	if (r->gather)
		p.pkt_cap = p.trim && p.trim_bytes > 512 ? p.trim_bytes : 512;
	else
		p.pkt_cap = r->job->mrc.mtu + 512 < MRC_PKT_MAX ? r->job->mrc.mtu + 512
								: MRC_PKT_MAX;
	p.icrc_outer = r->job->mrc.icrc_outer;
	p.seed = r->job->seed;
	e = ecmp_params(r, &p);
	if (e)
		return e;
	/* MRCGEN_SIMQ=heap|wheel picks the event queue (for `mrcgen bench`; same results) */
	if (getenv("MRCGEN_SIMQ") && mrc_simq_parse(getenv("MRCGEN_SIMQ"), &p.simq.queue)) {
		snprintf(err, errlen, "fabric: MRCGEN_SIMQ: unknown queue '%.32s' (heap, wheel)",
			getenv("MRCGEN_SIMQ"));
		return -EINVAL;
	}
	e = mrc_fabric_new(&p, r->vmode == MRC_VERIFY_DESC ? &hops_desc :
			       r->gather ? &hops_gather : &hops, r, &r->fab);
	if (e)
		snprintf(err, errlen, "fabric: %s", strerror(-e));
	else
		r->sim = mrc_fabric_sim(r->fab);
	if (!e) {
		mrc_sim_set_interrupt(r->sim, &mrc_stop_signal); /* SIGINT/SIGTERM end the run */
		/* an iteration ends at a window's end, as in a parallel run */
		mrc_sim_set_window(r->sim, mrc_fabric_lookahead(r->fab));
	}
	if (!e && r->rk) {
		e = mrc_fabric_ranks(r->fab, r->rk, r->nw); /* its -ERANGE: rk_fit, said before */
		if (e == -EDOM)
			snprintf(err, errlen, "fabric.fabric_link_delay: %u MPI ranks need a "
					      "lookahead above 0 (a fabric link or switch delay) '0'",
				r->rk->ranks);
		else if (e)
			snprintf(err, errlen, "mpirun: ranks: %s", strerror(-e));
		r->local = e ? NULL : calloc(r->nhosts, sizeof(*r->local));
		if (!e && !r->local) {
			snprintf(err, errlen, "mpirun: ranks: %s", strerror(ENOMEM));
			e = -ENOMEM;
		}
		for (uint32_t h = 0; !e && h < r->nhosts; h++)
			r->local[h] = mrc_fabric_owns_host(r->fab, h);
		r->rk_n = e ? NULL : calloc(2 * (size_t)r->rk->ranks, sizeof(*r->rk_n));
		if (!e && !r->rk_n) {
			snprintf(err, errlen, "mpirun: ranks: %s", strerror(ENOMEM));
			e = -ENOMEM;
		}
		if (!e) {
			r->rk_rn = r->rk_n + r->rk->ranks;
			mrc_sim_set_window_hook(r->sim, run_window_hook, r);
		}
	} else if (!e && r->nw > 1) {
		e = mrc_fabric_partition(r->fab, r->nw);
		if (e == -ERANGE)
			snprintf(err, errlen, "sim.workers: more workers than partitions: fabric.t0 "
					      "makes %u racks '%u'", r->job->fabric.t0, r->nw);
		else if (e == -EDOM)
			snprintf(err, errlen, "fabric.fabric_link_delay: sim.workers %u needs a "
					      "lookahead above 0 (a fabric link or switch delay) '0'",
				r->nw);
		else if (e)
			snprintf(err, errlen, "sim.workers: %s", strerror(-e));
		if (!e)
			mrc_sim_set_window_hook(r->sim, run_window_hook, r);
	}
	return e;
}

static int setup_hosts(struct run *r, char *err, size_t errlen)
{
	const struct conf_job *j = r->job;
	struct mrc_ep_params p;
	static const struct mrc_ep_ops ops = { ep_tx_ready, ep_send_done, ep_recv_imm,
		ep_ev_event, ep_response, ep_request, NULL };
	static const struct mrc_ep_ops ops_desc = { ep_tx_ready, ep_send_done, ep_recv_imm,
		ep_ev_event, ep_response, ep_request, ep_placed };
	int e = mrc_run_ep_params(j, &r->m, r->nranks, 0, &p);

	if (e)
		return e;
	p.max_qps = r->nranks * (unsigned)conf_jobs(j); /* a QP per peer and job */
	p.ev.no_log = true; /* EV changes reach the report through ep_ev_event; nobody reads a
			     * QP's own log (16 KB per host in a 128-host all-to-all) */
	p.path = ep_path;
	p.ev_plane = ep_ev_plane;
	p.peer_of = ep_peer_of;
	e = -ENOMEM;
	r->hosts = calloc(r->nhosts, sizeof(*r->hosts));
	if (!r->hosts)
		goto out;
	/* one EV profile for the job: every host has the same EV list and planes, so its
	 * tables and per-EV counters (the report sums them over all QPs anyway) are shared;
	 * in a parallel run, one per worker (what mrc_ev_pick and the counters write) */
	r->hosts[0].run = r;
	for (unsigned w = 0; w < r->nw; w++) {
		e = mrc_ev_profile_new(&p.ev, p.planes, ep_ev_plane, &r->hosts[0],
			w ? &r->wk[w].prof : &p.ev_prof);
		if (e) {
			snprintf(err, errlen, "EV profile: %s", strerror(-e));
			goto out;
		}
	}
	if (r->nw > 1)
		r->wk[0].prof = p.ev_prof;
	for (uint32_t h = 0; h < r->nhosts; h++) {
		struct host *hs = &r->hosts[h];

		if (r->nw > 1)
			p.ev_prof = r->wk[mrc_fabric_host_worker(r->fab, h)].prof;
		hs->run = r;
		hs->idx = h;
		hs->timer_at = UINT64_MAX;
		p.host = h;
		p.seed = j->seed * 0x9E3779B97F4A7C15ull + h;
		e = mrc_ep_new(&p, r->vmode == MRC_VERIFY_DESC ? &ops_desc : &ops, hs, &hs->ep);
		if (e) {
			snprintf(err, errlen, "endpoint h%u: %s", h, strerror(-e));
			goto out;
		}
	}
	e = 0;
out:
	if (r->nw > 1) { /* the endpoints hold theirs */
		for (unsigned w = 0; w < r->nw; w++)
			mrc_ev_profile_put(r->wk[w].prof);
		p.ev_prof = NULL;
	}
	mrc_ev_profile_put(p.ev_prof); /* the endpoints hold theirs */
	mrc_run_ep_params_free(&p);
	return e;
}

static int setup_captures(struct run *r, char *err, size_t errlen)
{
	const struct conf_output *o = &r->job->output;
	const struct conf_fabric *f = &r->job->fabric;

	r->taps = calloc(o->n_captures + 1, sizeof(*r->taps));
	if (!r->taps)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_captures; i++) {
		const struct conf_capture *c = &o->captures[i];
		const struct conf_node *n = &c->node;
		char path[4096], perr[PCAPW_ERRBUF_SIZE], name[64];
		enum mrc_fab_tier tier;
		uint32_t index;
		unsigned port = 0;
		int e;

		switch (n->kind) {
		case CONF_NODE_PORT:
			tier = MRC_FAB_HOST, index = n->host;
			break;
		case CONF_NODE_LINK_HOST_T0:
			if (n->reverse)
				tier = MRC_FAB_T0, index = n->t0, port = n->host % f->hosts_per_t0;
			else
				tier = MRC_FAB_HOST, index = n->host;
			break;
		case CONF_NODE_LINK_T0_T1:
			if (n->reverse)
				tier = MRC_FAB_T1, index = n->t1, port = n->t0;
			else
				tier = MRC_FAB_T0, index = n->t0, port = f->hosts_per_t0 + n->t1;
			break;
		default: /* refused when the config was loaded (conf check_capture) */
			snprintf(err, errlen, "capture %s: not a port or a link", c->point);
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/%s", o->dir,
			 conf_capture_file(c, name, sizeof(name)));
		/* over MPI ranks rank 0 writes them, the others send it their records */
		e = r->rk && r->rk->rank ? 0 : pcapw_open(path, c->snaplen,
			c->tsresol == CONF_TS_US ? PCAPW_TS_US : PCAPW_TS_NS, &r->taps[i].w, perr);
		if (e) {
			snprintf(err, errlen, "capture %s: %s", c->point, perr);
			return e;
		}
		if (r->taps[i].w)
			pcapw_set_flush_every(r->taps[i].w, 256);
		r->taps[i].run = r;
		r->taps[i].point = c->point;
		r->n_taps = i + 1;
		for (int eg = 0; eg < 2; eg++) {
			bool want = c->dir == CONF_CAP_BOTH || (eg ? c->dir == CONF_CAP_EGRESS :
								      c->dir == CONF_CAP_INGRESS);

			e = want ? mrc_fabric_tap(r->fab, tier, index, n->plane, port, eg,
					   tap_write, &r->taps[i])
				 : 0;
			if (e == -EBUSY) {
				snprintf(err, errlen, "capture %s: its port's %s is already "
					 "captured under another name (one capture per port and "
					 "direction)",
					c->point, eg ? "egress" : "ingress");
				return -EINVAL;
			}
			if (e) {
				snprintf(err, errlen, "capture %s: no such port", c->point);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ---- the run ------------------------------------------------------------------------- */

/* Registers every rank's regions; but with verify: bytes they have no memory (sink
 * regions; zero payloads, or descriptors: docs/verification.md), so memory stays flat in
 * the message size and grows with the rank count by the descriptors alone. */
/* Frees @sj's collective's buffers; packets still in flight forget their payload first.
 * With several jobs the others' packets keep theirs: the collective waits in sj->old
 * until the run ends (@now false). Returns 0 or -ENOMEM. */
static int coll_release(struct sjob *sj, bool now)
{
	struct run *r = sj->run;

	if (!sj->coll || sj->n_ph) /* a phase's collective lives until the run ends */
		return 0;
	if (now || r->n_jobs == 1) {
		if (r->fab)
			mrc_fabric_forget_payloads(r->fab);
		mrc_coll_free(sj->coll);
	} else {
		struct mrc_coll **o = realloc(sj->old, (sj->n_old + 1) * sizeof(*o));

		if (!o)
			return -ENOMEM;
		sj->old = o;
		sj->old[sj->n_old++] = sj->coll;
	}
	sj->coll = NULL;
	return 0;
}

/* Registers @sj's running collective's regions on every host; @phase numbers its place
 * among the job's collectives (0 but for traffic.phases). */
static int mem_regions(struct sjob *sj, size_t phase)
{
	struct run *r = sj->run;

	for (uint32_t h = 0; h < r->nranks; h++) {
		for (int g = 0; g < MRC_REG_N; g++) {
			uint64_t len;
			void *base = mrc_coll_region(sj->coll, h, g, &len);

			if (!len)
				continue;
			/* fixed VAs, job j's phase p's region g at ((64 j + p) * MRC_REG_N + g
			 * + 1) << 40: the same bytes on every run */
			uint64_t va = (((uint64_t)sj->idx * 64 + phase) * MRC_REG_N + (uint64_t)g +
				       1) << 40;

			mrc_ep_reg_mr_va(r->hosts[h].ep, base, va, len,
				&sj->rkey[(size_t)h * MRC_REG_N + g]);
			mrc_coll_set_va(sj->coll, h, g, va);
		}
	}
	return 0;
}

static uint64_t total_rtx_bytes(struct run *r)
{
	uint64_t sum = 0;

	for (uint32_t h = 0; h < r->nranks; h++) {
		uint32_t first, n = mrc_ep_qpns(r->hosts[h].ep, &first);

		for (uint32_t qpn = first; qpn < first + n && host_mine(r, h); qpn++) {
			struct mrc_qp_stats s;

			if (!mrc_ep_qp_stats(r->hosts[h].ep, qpn, &s))
				sum += s.rtx_bytes;
		}
	}
	if (r->rk)
		rk_sum(r, &sum, 1);
	return sum;
}

/* The flap record a link toggle of @fr belongs to: a flap of the same link that has not
 * stopped by @fr's time; NULL for a configured down or up. */
static struct mrc_run_fault *flap_of(struct mrc_run_result *res,
	const struct mrc_fab_fault_rec *fr)
{
	if (fr->kind != MRC_FAB_LINK_DOWN && fr->kind != MRC_FAB_LINK_UP)
		return NULL;
	for (size_t f = res->n_faults; f-- > 0;) {
		struct mrc_run_fault *rf = &res->faults[f];

		if (rf->flap && rf->at_ps <= fr->at_ps && fr->at_ps <= rf->until_ps &&
			!strcmp(rf->target, fr->target))
			return rf;
	}
	return NULL;
}

/* The loss (or @delay) direction bits in force on the link of fault-log target @target
 * ("p0.t0.1-p0.t1.0 up": the link without its direction); NULL when out of memory. */
static unsigned *imp_bits(struct run *r, const char *target, bool delay)
{
	size_t n = strcspn(target, " ");
	struct link_imp *li;

	for (size_t i = 0; i < r->n_imp; i++)
		if (!strncmp(r->imp[i].link, target, n) && !r->imp[i].link[n])
			return delay ? &r->imp[i].delay : &r->imp[i].loss;
	li = realloc(r->imp, (r->n_imp + 1) * sizeof(*li));
	if (!li)
		return NULL;
	r->imp = li;
	li = &li[r->n_imp++];
	memset(li, 0, sizeof(*li));
	snprintf(li->link, sizeof(li->link), "%.*s", (int)n, target);
	return delay ? &li->delay : &li->loss;
}

/*
 * Loss or delay fault @ap fired with log entry @fr: keeps the link's state and says whether
 * it had an effect. A clear's part that finds nothing of its kind in force on the link (in
 * its directions) has none, and gets no faults[] row (README "Report schema").
 */
static bool imp_update(struct run *r, struct applied *ap, const struct mrc_fab_fault_rec *fr)
{
	const struct conf_fault *cf = &r->job->faults[ap->conf];
	bool delay = fr->kind == MRC_FAB_DELAY;
	unsigned *bits = imp_bits(r, fr->target, delay);
	bool ends = ap->clears || (delay ? cf->delay_ps == 0 : cf->rate == 0);
	bool effect = true;

	if (!bits)
		return true;
	if (cf->action == CONF_FA_CLEAR && !ap->revert && !(*bits & ap->dir_bits))
		effect = false;
	if (ends)
		*bits &= ~ap->dir_bits;
	else
		*bits |= ap->dir_bits;
	return effect;
}

/*
 * Fault part @ap (just matched to its fabric log entry) changed nothing. A configured up
 * is listed in faults_not_applied[]; so is a clear once none of its parts (loss, delay,
 * blackholes) found anything to end. A duration's revert of what already ended is dropped
 * silently (README "Report schema").
 */
static void no_effect(struct run *r, const struct applied *ap)
{
	const struct conf_fault *cf = &r->job->faults[ap->conf];

	if (ap->revert)
		return;
	for (size_t a = 0; cf->action == CONF_FA_CLEAR && a < r->n_applied; a++) {
		const struct applied *p = &r->applied[a];

		if (p->conf == ap->conf && p->at_ps == ap->at_ps && !p->revert &&
			!(p->matched && p->no_effect))
			return; /* a part still to come, or one that ended something */
	}
	mrc_fault_no_effect(r->res, r->job, cf, ap->at_ps);
}

/* The row kind of fabric fault @k (whether it ends something: its kind's for a flap's
 * toggle, its configured fault's for the others: a clear's loss part is loss_end). */
static enum mrc_fault_kind fab_kind(enum mrc_fab_fault_kind k)
{
	switch (k) {
	case MRC_FAB_SWITCH_DOWN:
	case MRC_FAB_SWITCH_UP:
		return MRC_FK_SWITCH;
	case MRC_FAB_NIC_DOWN:
	case MRC_FAB_NIC_UP:
		return MRC_FK_NIC;
	case MRC_FAB_LOSS:
		return MRC_FK_LOSS;
	case MRC_FAB_DELAY:
		return MRC_FK_DELAY;
	case MRC_FAB_FLAP:
		return MRC_FK_FLAP;
	case MRC_FAB_BLACKHOLE:
	case MRC_FAB_UNBLACKHOLE:
		return MRC_FK_BLACKHOLE;
	default:
		return MRC_FK_LINK;
	}
}

/* Records the fabric faults applied since the last call as results; a flap's toggles are
 * counted in its record. */
static void collect_faults(struct run *r, uint32_t iter)
{
	size_t n;
	const struct mrc_fab_fault_rec *log = mrc_fabric_fault_log(r->fab, &n);
	struct mrc_run_result *res = r->res;

	if (n > r->log_rows) {
		int32_t *lr = realloc(r->log_row, n * sizeof(*lr));

		if (!lr) {
			run_fail(r, -ENOMEM, "fault log: out of memory");
			return;
		}
		r->log_row = lr;
		r->log_rows = n;
	}
	for (; r->fault_seen < n; r->fault_seen++) {
		const struct mrc_fab_fault_rec *fr = &log[r->fault_seen];
		struct mrc_run_fault *nf = NULL;
		bool configured = false;

		r->log_row[r->fault_seen] = -1;
		for (size_t a = 0; a < r->n_applied && !configured; a++)
			configured = !r->applied[a].matched && r->applied[a].at_ps == fr->at_ps &&
				     r->applied[a].kind == fr->kind;
		nf = configured ? NULL : flap_of(res, fr);
		if (nf) {
			r->log_row[r->fault_seen] = (int32_t)(nf - res->faults);
			nf->flap_toggles++;
			if (fr->kind == MRC_FAB_LINK_DOWN)
				nf->flap_downs++;
			else
				nf->flap_last_up_ps = fr->at_ps;
			continue;
		}
		/* the configured fault it came from; a flap's toggles have none */
		for (size_t a = 0; a < r->n_applied; a++) {
			struct applied *ap = &r->applied[a];

			if (ap->matched || ap->at_ps != fr->at_ps || ap->kind != fr->kind)
				continue;
			ap->matched = true;
			if (!ap->revert) /* the timeline a replay applies, no-ops included */
				(void)mrc_fault_fired(res, ap->conf, fr->at_ps);
			if (fr->noop || ((fr->kind == MRC_FAB_LOSS || fr->kind == MRC_FAB_DELAY) &&
						!imp_update(r, ap, fr))) {
				/* it changed nothing: no row (an up, a clear: listed as such) */
				ap->no_effect = true;
				no_effect(r, ap);
				break;
			}
			nf = mrc_fault_row(res, r->job, &r->job->faults[ap->conf],
				fab_kind(fr->kind), ap->clears, fr->target, fr->at_ps, iter);
			break;
		}
		if (!configured) {
			bool ends = fr->kind == MRC_FAB_LINK_UP || fr->kind == MRC_FAB_SWITCH_UP ||
				    fr->kind == MRC_FAB_NIC_UP || fr->kind == MRC_FAB_UNBLACKHOLE;

			nf = mrc_fault_row(res, r->job, NULL, fab_kind(fr->kind), ends, fr->target,
				fr->at_ps, iter);
		}
		if (nf) {
			nf->rtx_bytes = total_rtx_bytes(r); /* start value; made a delta later */
			r->log_row[r->fault_seen] = (int32_t)(nf - res->faults);
		}
	}
}

/* Each fault's reconvergence: the first ECMP-group change its log entries (a flap's
 * toggles with it) caused, after its time (docs/report.md "Keys", reconverged_us). */
static void routing_times(struct run *r)
{
	size_t n;
	const struct mrc_fab_fault_rec *log = mrc_fabric_fault_log(r->fab, &n);

	for (size_t i = 0; i < n && i < r->log_rows; i++) {
		struct mrc_run_fault *rf;
		int64_t d;

		if (log[i].routed_ps == UINT64_MAX || r->log_row[i] < 0)
			continue;
		rf = &r->res->faults[r->log_row[i]];
		d = (int64_t)(log[i].routed_ps - rf->at_ps);
		if (rf->reconverge_ps < 0 || d < rf->reconverge_ps)
			rf->reconverge_ps = d;
	}
}

/* A compute gap ended (traffic.gap): the clock is there, nothing else to do. */
static void on_gap_end(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	(void)ctx, (void)obj, (void)arg, (void)now;
}

/* A scheduled fault fired: record it now, so its rtx start value is taken at its time. */
static void on_fault_snapshot(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct run *r = obj;

	(void)ctx, (void)arg, (void)now;
	collect_faults(r, r->cur_iter);
}

/* ---- background traffic ------------------------------------------------------------- */

/* One sending host of a background job: its tick events' object, its host's own. */
struct bghost {
	struct sjob *sj;
	uint32_t g;		/* its index among the job's hosts */
	uint64_t first, k;	/* its first send's time, sends so far */
	uint64_t drawn;		/* uniform: destinations drawn (bg_fill), >= k */
	struct mrc_rng rng;	/* its uniform draws (mrc_job_bg_host_rng) */
};

/* A background host's tick, an event of the host's own entity (so it runs on the host's
 * worker and rank): its next message, posted now unless its send queue is full (refused,
 * not offered), and the next tick: message bytes x 8 / rate later, counted from its first
 * so that the rate holds exactly. */
static void on_bg_tick(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct run *r = ctx;
	struct bghost *b = obj;
	struct sjob *sj = b->sj;
	struct mrc_run_job *rj = &r->res->jobs[sj->idx];
	uint32_t a = sj->bg_hosts[b->g], d, qpn;
	uint64_t next;
	int e;

	(void)arg;
	if (r->bg_stop)
		return;
	if (sj->t->mode == CONF_BG_PERMUTATION) {
		d = sj->bg_hosts[sj->bg_perm[b->g]];
	} else if (b->k < b->drawn) {
		d = sj->bg_hosts[sj->bg_dest[(size_t)b->g * sj->bg_ring + b->k % sj->bg_ring]];
	} else {
		run_fail(r, -EPROTO, "job %s: h%u: background message %llu not drawn",
			sj->t->name, a, (unsigned long long)b->k);
		return;
	}
	e = qp_get(r, sj->idx, a, d, &qpn); /* a lookup: bg_qps or bg_fill made it */
	e = e ?: mrc_ep_post_write(r->hosts[a].ep, qpn, NULL, rj->bg_msg_bytes, sj->bg_va,
		sj->bg_rkey[d], false, 0, 0, now);
	/* from any worker in a parallel run: sums, the same in any order */
	if (e == -EAGAIN) {
		__atomic_fetch_add(&rj->bg_refused, 1, __ATOMIC_RELAXED);
	} else if (e) {
		run_fail(r, e, "job %s: h%u: background write to h%u: %s", sj->t->name, a, d,
			strerror(-e));
		return;
	} else {
		__atomic_fetch_add(&rj->bg_posted, 1, __ATOMIC_RELAXED);
		timer_arm(&r->hosts[a]);
	}
	b->k++;
	next = mrc_job_bg_at(b->first, rj->bg_msg_bytes, rj->bg_rate_bps, b->k, 1);
	if (mrc_sim_at(r->sim, next, (unsigned)r->bg_kind, b, 0))
		run_fail(r, -ENOMEM, "sim: event queue full");
}

/* The other jobs ended: background jobs send no more, their window ends now (one that
 * never started has none). */
static void bg_end(struct run *r)
{
	for (size_t j = 0; j < r->n_jobs; j++) {
		struct mrc_run_job *rj = &r->res->jobs[j];

		if (!r->jobs[j].bg || r->jobs[j].state != SJ_BG)
			continue;
		r->jobs[j].state = SJ_DONE;
		rj->finished = true;
		rj->end_ps = mrc_sim_now(r->sim);
	}
	r->bg_stop = true;
}

/*
 * Uniform background job @sj's destinations ahead: on the loop's caller (entity 0, on every
 * rank alike), each host's draws from its own stream for every message it sends before
 * @until ps, and the QP of each new pair made (a tick only looks its QP up, touching no
 * other host; one per pair used, as lazily made QPs would be). 0 or a negative errno.
 */
static int bg_draw(struct sjob *sj, uint64_t until)
{
	struct mrc_run_job *rj = &sj->run->res->jobs[sj->idx];

	for (uint32_t g = 0; g < sj->bg_n; g++) {
		struct bghost *b = &sj->bg_tick[g];

		while (mrc_job_bg_at(b->first, rj->bg_msg_bytes, rj->bg_rate_bps, b->drawn, 1) <
		       until) {
			uint32_t qpn, d = mrc_job_bg_dest(CONF_BG_UNIFORM, NULL, &b->rng, sj->bg_n,
				g);
			int e = qp_get(sj->run, sj->idx, sj->bg_hosts[g], sj->bg_hosts[d], &qpn);

			if (e)
				return e;
			sj->bg_dest[(size_t)g * sj->bg_ring + b->drawn % sj->bg_ring] = d;
			b->drawn++;
		}
	}
	return 0;
}

/* When the fill after one at @now runs: a period later, on the window grid (so it cuts no
 * window) when the period spans a window (lookahead), else exactly (each cuts one). */
static uint64_t bg_next_fill(const struct sjob *sj, uint64_t now)
{
	uint64_t w = mrc_fabric_lookahead(sj->run->fab), t = now + sj->bg_fill_ps;

	return w && sj->bg_fill_ps >= w ? (t + w - 1) / w * w : t;
}

/* A uniform background job's fill, every bg_fill_ps (bg_next_fill): draws to two periods
 * ahead, past the next fill. */
static void on_bg_fill(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct run *r = ctx;
	struct sjob *sj = obj;
	uint64_t next = bg_next_fill(sj, now);
	int e;

	(void)arg;
	if (r->bg_stop)
		return;
	e = bg_draw(sj, now + 2 * sj->bg_fill_ps);
	if (e)
		run_fail(r, e, "job %s: background: a QP: %s", sj->t->name, strerror(-e));
	else if (mrc_sim_at_ent(r->sim, next, 0, (unsigned)r->bg_fill_kind, sj, 0))
		run_fail(r, -ENOMEM, "sim: event queue full");
}

/* A uniform background host's ring of destinations drawn ahead: at most this many */
#define BG_RING 4096

/*
 * Background job @sj's QPs and destinations at its start (@now ps), on the loop's caller
 * as coll_qps makes a collective's: permutation, each host's QP to its partner; uniform,
 * the destinations of two fill periods and a ring of them a host (BG_RING at most), the
 * QPs of the pairs drawn, and the first fill. The period: 16 lookaheads, at least 1 us,
 * less when that holds more than half a ring of messages. 0 or a negative errno.
 */
static int bg_qps(struct sjob *sj, uint64_t now)
{
	struct run *r = sj->run;
	struct mrc_run_job *rj = &r->res->jobs[sj->idx];
	uint64_t w = mrc_fabric_lookahead(r->fab), step, cap;
	uint32_t qpn;
	int e = 0;

	if (sj->t->mode == CONF_BG_PERMUTATION) {
		for (uint32_t g = 0; g < sj->bg_n && !e; g++)
			e = qp_get(r, sj->idx, sj->bg_hosts[g], sj->bg_hosts[sj->bg_perm[g]],
				&qpn);
		return e;
	}
	/* at a fill, the messages of [now, now + 2 periods) are drawn, not yet sent: at most
	 * 2 periods / step + 1, the ring holds 2 more */
	step = mrc_job_bg_at(0, rj->bg_msg_bytes, rj->bg_rate_bps, 1, 1);
	step = step ? step : 1;
	cap = step > UINT64_MAX / ((BG_RING - 3) / 2) ? UINT64_MAX : step * ((BG_RING - 3) / 2);
	sj->bg_fill_ps = w > UINT64_MAX / 16 ? UINT64_MAX : 16 * w;
	sj->bg_fill_ps = sj->bg_fill_ps > 1000000 ? sj->bg_fill_ps : 1000000;
	sj->bg_fill_ps = sj->bg_fill_ps < cap ? sj->bg_fill_ps : cap;
	sj->bg_ring = (uint32_t)(2 * sj->bg_fill_ps / step + 3);
	sj->bg_dest = calloc((size_t)sj->bg_n * sj->bg_ring, sizeof(*sj->bg_dest));
	if (!sj->bg_dest)
		return -ENOMEM;
	e = bg_draw(sj, now + 2 * sj->bg_fill_ps);
	return e ?: mrc_sim_at_ent(r->sim, bg_next_fill(sj, now), 0, (unsigned)r->bg_fill_kind,
			    sj, 0);
}

/* Background job @sj starts now: its QPs, each host's first message, host g's g / n of an
 * interval after the first host's, so that the hosts' sends interleave, on the host's
 * entity. 0 or a negative errno, said in @err. */
static int bg_start(struct sjob *sj, char *err, size_t errlen)
{
	struct run *r = sj->run;
	struct mrc_run_job *rj = &r->res->jobs[sj->idx];
	uint64_t now = mrc_sim_now(r->sim);
	int e;

	for (uint32_t g = 0; g < sj->bg_n; g++) {
		struct bghost *b = &sj->bg_tick[g];

		b->sj = sj;
		b->g = g;
		mrc_job_bg_host_rng(r->job, sj->idx, sj->bg_hosts[g], &b->rng);
		b->first = mrc_job_bg_at(now, rj->bg_msg_bytes, rj->bg_rate_bps, g, sj->bg_n);
	}
	e = bg_qps(sj, now);
	if (e) {
		snprintf(err, errlen, "job %s: background: its QPs (%s, %u hosts): %s",
			sj->t->name, conf_name_of(conf_bg_mode_names, sj->t->mode), sj->bg_n,
			strerror(-e));
		return e;
	}
	rj->started = true;
	rj->start_ps = now;
	sj->state = SJ_BG;
	for (uint32_t g = 0; g < sj->bg_n; g++) {
		struct bghost *b = &sj->bg_tick[g];
		uint32_t ent = mrc_fabric_host_entity(r->fab, sj->bg_hosts[g]);

		if (mrc_sim_at_ent(r->sim, b->first, ent, (unsigned)r->bg_kind, b, 0)) {
			snprintf(err, errlen, "sim: event queue full");
			return -ENOMEM;
		}
	}
	return 0;
}

/* Background job @sj: its hosts, their sink regions (one message long), its destinations'
 * permutation (Sattolo's shuffle: one cycle, so no host sends to itself) from the run's seed,
 * its results' figures. */
static int bg_init(struct sjob *sj)
{
	struct run *r = sj->run;
	const struct conf_traffic *t = sj->t;
	struct mrc_run_job *rj = &r->res->jobs[sj->idx];
	uint32_t nh = conf_fabric_hosts(&r->job->fabric);
	struct mrc_rng rng;
	long n;

	sj->bg = true;
	sj->bg_hosts = calloc(nh, sizeof(*sj->bg_hosts));
	sj->bg_rkey = calloc(nh, sizeof(*sj->bg_rkey));
	sj->bg_perm = calloc(nh, sizeof(*sj->bg_perm));
	if (!sj->bg_hosts || !sj->bg_rkey || !sj->bg_perm)
		return -ENOMEM;
	n = mrc_job_bg_init(r->job, t, sj->idx, sj->bg_hosts, sj->bg_perm, nh, &rng);
	if (n < 2)
		return n < 0 ? (int)n : -EINVAL;
	sj->bg_n = (uint32_t)n;
	sj->bg_tick = calloc(sj->bg_n, sizeof(*sj->bg_tick));
	if (!sj->bg_tick)
		return -ENOMEM;
	rj->background = true;
	rj->bg_rate_bps = t->rate_bps;
	rj->bg_msg_bytes = t->sizes.list[0];
	rj->bg_mode = (int)t->mode;
	rj->bg_hosts = sj->bg_n;
	rj->nranks = sj->bg_n;
	sj->bg_va = ((uint64_t)sj->idx * 64 + 63) * MRC_REG_N + 1;
	sj->bg_va <<= 40;
	for (uint32_t g = 0; g < sj->bg_n; g++) {
		uint32_t h = sj->bg_hosts[g];
		int e = mrc_ep_reg_mr_va(r->hosts[h].ep, NULL, sj->bg_va, rj->bg_msg_bytes,
			&sj->bg_rkey[h]);

		if (e)
			return e;
	}
	return 0;
}

/* The slowest rank's slowest step, and (the first job) its EV with the most losses in the
 * iteration (ties: the first in plan order). The endpoints' loss counters were cleared at
 * its start. */
static void straggler(struct run *r, struct sjob *sj, struct mrc_run_iter *ri)
{
	uint32_t k = ri->slowest_rank;
	const struct mrc_ev_profile *f = mrc_ep_ev_profile(r->hosts[k].ep);
	const uint64_t *lost = mrc_ep_ev_losses(r->hosts[k].ep);
	uint64_t best = 0, slow = 0, *v = r->rk ? calloc(1 + (size_t)f->n, sizeof(*v)) : NULL;

	for (uint32_t s = 0; host_mine(r, k) && s < mrc_coll_steps(sj->coll, k); s++) {
		uint64_t t = mrc_coll_step_time(sj->coll, k, s);

		if (t > slow) {
			slow = t;
			ri->slowest_step = s;
		}
	}
	if (r->rk) { /* from the rank that runs host k: its slowest step, its EV losses */
		if (!v)
			rk_die(r, "straggler", -ENOMEM);
		if (host_mine(r, k)) {
			v[0] = ri->slowest_step;
			memcpy(v + 1, lost, f->n * sizeof(*v));
		}
		rk_sum(r, v, 1 + (size_t)f->n);
		ri->slowest_step = (uint32_t)v[0];
		lost = v + 1;
	}
	if (sj->idx) { /* the endpoints' loss counters are the first job's iterations' */
		free(v);
		return;
	}
	for (size_t e = 0; e < r->m.n_evs; e++) { /* plan order; the profile's is the same */
		unsigned i = e;

		if (i >= f->n || f->value[i] != r->m.evs[e].ev) {
			int fi = mrc_ev_profile_find(f, r->m.evs[e].ev);

			if (fi < 0)
				continue;
			i = (unsigned)fi;
		}
		if (lost[i] > best) {
			best = lost[i];
			ri->straggler_ev = r->m.evs[e].ev;
			ri->has_straggler_ev = true;
		}
	}
	free(v);
}

static int new_hist(const struct conf_hist *c, struct mrc_hist **h)
{
	return mrc_hist_init((int64_t)c->lowest_ns, (int64_t)c->highest_ns, (int)c->sigfigs, h);
}

/* A collective for @sj: of its running size, or (@ph) of that phase (number @phase among
 * its collectives, mem_regions'): made, its regions registered, in sj->coll and
 * sj->rkey. */
static int job_coll(struct sjob *sj, const struct conf_phase *ph, size_t phase,
	struct mrc_coll_params *cp, char *err, size_t errlen)
{
	static const struct mrc_coll_ops cops = { coll_post };
	struct run *r = sj->run;
	const struct conf_job *job = r->job;
	uint64_t size = ph ? ph->size : sj->sizes[sj->size_i];
	int e;

	e = ph ? mrc_job_coll_params_phase(job, sj->t, ph, r->nranks, &sj->cmem, cp) :
		 mrc_job_coll_params_of(job, sj->t, r->nranks, size, &sj->cmem, cp);
	if (e) {
		snprintf(err, errlen, "traffic: %s", e == -ENOMEM ? strerror(ENOMEM) :
			sj->cmem.err);
		return e;
	}
	cp->verify = sj->t->verify == CONF_VERIFY_OFF ? MRC_VERIFY_OFF : r->vmode;
	cp->local = r->local; /* over MPI ranks, the hosts this one runs */
	cp->granule = job->mrc.mtu; /* a packet's payload: one granule each */
	if (!sj->idx)
		r->res->nranks = cp->nranks;
	sj->pattern = cp->pattern;
	sj->nranks = cp->nranks;
	e = mrc_coll_new(cp, &cops, sj, &sj->coll);
	if (e) {
		snprintf(err, errlen, "collective %s of %llu B over %u ranks: %s",
			mrc_coll_pattern_name(cp->pattern), (unsigned long long)size, cp->nranks,
			strerror(-e));
		return e;
	}
	e = mem_regions(sj, phase);
	if (e)
		snprintf(err, errlen, "run: payload buffer: %s", strerror(-e));
	return e;
}

/* traffic.phases: every collective phase's collective, made once; the one size row of the
 * step (its bytes the phases' sum) and the phases' results. */
static int job_phases_begin(struct sjob *sj, struct mrc_run_size *rs, char *err, size_t errlen)
{
	struct run *r = sj->run;
	const struct conf_traffic *t = sj->t;
	struct mrc_run_job *rj = &r->res->jobs[sj->idx];
	uint32_t iters = t->warmup + t->iterations;
	uint32_t *rkey0 = sj->rkey;

	sj->n_ph = t->n_phases;
	sj->ph = calloc(sj->n_ph, sizeof(*sj->ph));
	rj->phases = calloc(sj->n_ph, sizeof(*rj->phases));
	rj->phase_ps = calloc((size_t)iters * sj->n_ph, sizeof(*rj->phase_ps));
	if (!sj->ph || !rj->phases || !rj->phase_ps)
		return -ENOMEM;
	rj->n_phases = sj->n_ph;
	for (size_t p = 0; p < sj->n_ph; p++) {
		const struct conf_phase *cph = &t->phases[p];
		struct mrc_run_phase *rp = &rj->phases[p];
		struct mrc_coll_params cp;
		int e = new_hist(&r->job->output.hist, &rp->time_ns);

		rp->gap = cph->has_gap;
		rp->gap_ps = cph->gap_ps;
		rp->pattern = (int)cph->pattern;
		rp->algorithm = (int)cph->algorithm;
		if (e || cph->has_gap) {
			if (e)
				return e;
			continue;
		}
		sj->ph[p].rkey = calloc((size_t)r->nranks * MRC_REG_N, sizeof(uint32_t));
		if (!sj->ph[p].rkey)
			return -ENOMEM;
		sj->rkey = sj->ph[p].rkey;
		e = job_coll(sj, cph, p, &cp, err, errlen);
		sj->ph[p].coll = sj->coll;
		sj->coll = NULL;
		if (e)
			return e;
		sj->ph[p].pattern = cp.pattern;
		sj->ph[p].nranks = cp.nranks;
		rp->bytes = mrc_coll_bytes(sj->ph[p].coll);
		rs->bytes += rp->bytes;
		rs->count += cp.count;
	}
	free(rkey0);
	sj->rkey = NULL;
	return 0;
}

/* The running size of @sj: its collective, memory regions and result row (traffic.phases:
 * the phases' collectives, one row for the step). */
static int job_size_begin(struct sjob *sj, char *err, size_t errlen)
{
	struct run *r = sj->run;
	const struct conf_job *job = r->job;
	struct mrc_run_size *rs = &(*sj->sizes_r)[(*sj->n_sizes_r)++];
	struct mrc_coll_params cp;
	int e;

	sj->sum = 0;
	sj->n = 0;
	if (sj->t->n_phases) {
		e = job_phases_begin(sj, rs, err, errlen);
		return e ?: new_hist(&job->output.hist, &rs->cct_ns);
	}
	e = job_coll(sj, NULL, 0, &cp, err, errlen);
	if (e)
		return e;
	rs->bytes = mrc_coll_bytes(sj->coll);
	rs->count = cp.count;
	e = mrc_run_pairs_init(rs, sj->coll);
	return e ?: new_hist(&job->output.hist, &rs->cct_ns);
}

/* The running size of @sj ended: its figures, its collective released. A step of phases:
 * busbw is the phases' bus bytes (bytes x bus factor, summed) over the mean step time,
 * each phase's busbw its own over its mean time. */
static int job_size_end(struct sjob *sj)
{
	const struct conf_job *job = sj->run->job;
	struct mrc_run_size *rs = &(*sj->sizes_r)[*sj->n_sizes_r - 1];
	double bus = 0;

	rs->time_us = sj->n ? sj->sum / sj->n / 1e6 : 0;
	for (size_t p = 0; p < sj->n_ph; p++) {
		struct mrc_run_phase *rp = &sj->run->res->jobs[sj->idx].phases[p];
		const struct sphase *ph = &sj->ph[p];

		rp->time_us = ph->n ? ph->sum / ph->n / 1e6 : 0;
		if (rp->gap || !(rp->time_us > 0))
			continue;
		rp->busbw_gbs = (double)rp->bytes / (rp->time_us * 1e-6) / 1e9 *
				mrc_coll_bus_factor(ph->pattern, ph->nranks);
		bus += (double)rp->bytes * mrc_coll_bus_factor(ph->pattern, ph->nranks);
	}
	if (rs->time_us > 0) {
		rs->algbw_gbs = (double)rs->bytes / (rs->time_us * 1e-6) / 1e9;
		rs->busbw_gbs = sj->n_ph ? bus / (rs->time_us * 1e-6) / 1e9 : rs->algbw_gbs *
				mrc_coll_bus_factor(sj->pattern, sj->nranks);
	}
	if (sj->n_ph)
		return 0;
	mrc_run_pairs_finish(rs, sj->pattern == MRC_COLL_WRITE_LAT, mrc_coll_pair_bytes(sj->coll),
		sj->pattern == MRC_COLL_WRITE_BW ? sj->t->messages : 1,
		(double)job->fabric.link_rate_bps * job->fabric.planes);
	return coll_release(sj, false);
}

/* Starts @sj's phase sj->ph_i now: a gap waits its length (SJ_WAIT), a collective starts
 * (SJ_RUN) as a job's iteration does. */
static int phase_begin(struct sjob *sj, char *err, size_t errlen)
{
	uint64_t now = mrc_sim_now(sj->run->sim);
	const struct conf_phase *p = &sj->t->phases[sj->ph_i];
	struct sphase *ph = &sj->ph[sj->ph_i];
	int e;

	sj->phase_start = now;
	if (p->has_gap) {
		if (sj->ph_i) /* from the previous phase's end */
			sj->phase_start = sj->end_at;
		sj->in_gap = true;
		sj->state = SJ_WAIT;
		sj->ready_at = sj->phase_start + p->gap_ps;
		return 0;
	}
	sj->coll = ph->coll;
	sj->rkey = ph->rkey;
	sj->pattern = ph->pattern;
	sj->nranks = ph->nranks;
	sj->state = SJ_RUN;
	sj->deadline = now + 60000000000000ull; /* as an iteration's */
	e = coll_qps(sj);
	e = e ?: mrc_coll_start(sj->coll, (*sj->iters_r)[sj->cur_ri].iter, now);
	if (e)
		snprintf(err, errlen, "collective: start: %s", strerror(-e));
	return e;
}

/*
 * Starts @sj's next iteration now: faults "at iteration k" (the first job's measured
 * iteration k of every size), its row in the results, the collective's first step (with
 * traffic.phases, the first phase).
 */
static int job_iter_start(struct sjob *sj, char *err, size_t errlen)
{
	struct run *r = sj->run;
	const struct conf_job *j = r->job;
	const struct conf_traffic *t = sj->t;
	struct mrc_run_result *res = r->res;
	uint64_t start = mrc_sim_now(r->sim);
	bool warmup = sj->it < t->warmup;
	uint32_t it = warmup ? 0 : sj->it - t->warmup, gi = sj->global_iter;
	struct mrc_run_iter *ri;
	int e;

	if (!sj->idx) {
		sj->faults_before = res->n_faults;
		for (size_t f = 0; f < j->n_faults; f++) {
			if (mrc_fault_fires_at(&j->faults[f], warmup, it)) {
				e = fault_apply(r, &j->faults[f], start, true, err, errlen);
				if (e)
					return e;
			}
		}
		collect_faults(r, gi);
	}
	ri = realloc(*sj->iters_r, (*sj->n_iters_r + 1) * sizeof(*ri));
	if (!ri)
		return -ENOMEM;
	*sj->iters_r = ri;
	sj->cur_ri = (*sj->n_iters_r)++;
	ri = &ri[sj->cur_ri];
	memset(ri, 0, sizeof(*ri));
	ri->size_idx = (uint32_t)sj->size_i;
	ri->iter = gi;
	ri->measured = it;
	ri->warmup = warmup;
	ri->start_ps = start;
	if (res->n_jobs && !res->jobs[sj->idx].started) {
		res->jobs[sj->idx].started = true;
		res->jobs[sj->idx].start_ps = start;
	}
	sj->measuring = !warmup;
	if (!sj->idx) {
		r->cur_iter = gi;
		for (uint32_t k = 0; k < r->nranks; k++)
			mrc_ep_ev_losses_clear(r->hosts[k].ep);
	}
	sj->global_iter++;
	if (sj->n_ph) {
		sj->step_start = start;
		sj->ph_i = 0;
		return phase_begin(sj, err, errlen);
	}
	sj->state = SJ_RUN;
	/* bounded: a stuck QP errors out within its retry budget, so 60 s of virtual time
	 * without completion means something is wrong */
	sj->deadline = start + 60000000000000ull;
	e = coll_qps(sj);
	e = e ?: mrc_coll_start(sj->coll, gi, start);
	if (e)
		snprintf(err, errlen, "collective: start: %s", strerror(-e));
	return e;
}

/* The figures of @sj's collective that just completed into @ri: the slowest rank's time
 * (returned) and the rank, #wrong (added), the ranks' step times (measured iterations). */
static uint64_t coll_figures(struct sjob *sj, struct mrc_run_iter *ri)
{
	struct run *r = sj->run;
	uint64_t cct = 0;

	/* each rank its hosts' (ranks: summed over them), the wrong elements last */
	sj->rank_ps[r->nranks] = 0;
	for (uint32_t k = 0; k < r->nranks; k++) {
		sj->rank_ps[k] = 0;
		if (!host_mine(r, k))
			continue;
		sj->rank_ps[k] = mrc_coll_rank_time(sj->coll, k);
		sj->rank_ps[r->nranks] += mrc_coll_verify(sj->coll, k, ri->iter); /* 0: off */
		for (uint32_t s = 0; !ri->warmup && s < mrc_coll_steps(sj->coll, k); s++)
			mrc_hist_record(r->res->step_ns,
				(int64_t)(mrc_coll_step_time(sj->coll, k, s) / 1000));
	}
	if (r->rk)
		rk_sum(r, sj->rank_ps, (size_t)r->nranks + 1);
	ri->wrong += sj->rank_ps[r->nranks];
	for (uint32_t k = 0; k < r->nranks; k++) {
		if (sj->rank_ps[k] > cct) {
			cct = sj->rank_ps[k];
			ri->slowest_rank = k;
		}
	}
	return cct;
}

static int job_iter_end(struct sjob *sj, bool failed, char *err, size_t errlen);

/* @sj's running phase ended (its collective completed, or its gap is over): its time, then
 * the next phase, or the step's end after the last. */
static int phase_end(struct sjob *sj, char *err, size_t errlen)
{
	struct run *r = sj->run;
	struct mrc_run_iter *ri = &(*sj->iters_r)[sj->cur_ri];
	struct mrc_run_job *rj = &r->res->jobs[sj->idx];
	struct sphase *ph = &sj->ph[sj->ph_i];
	uint64_t t = mrc_sim_now(r->sim) - sj->phase_start;

	if (sj->in_gap) { /* its length, though the loop may see its end a window late */
		sj->in_gap = false;
		t = sj->ready_at - sj->phase_start;
	} else {
		t = coll_figures(sj, ri);
	}
	sj->end_at = sj->phase_start + t;
	rj->phase_ps[sj->cur_ri * sj->n_ph + sj->ph_i] = t;
	if (!ri->warmup) {
		mrc_hist_record(rj->phases[sj->ph_i].time_ns, (int64_t)(t / 1000));
		ph->sum += (double)t;
		ph->n++;
	}
	if (++sj->ph_i < sj->n_ph)
		return phase_begin(sj, err, errlen);
	return job_iter_end(sj, false, err, errlen);
}

/* @sj's running iteration ended (or the run failed in it: @failed): its figures, then
 * what comes next — the next iteration (after traffic.gap), the next size, or the end. A
 * step of phases: its time from its start, each phase's recorded as it ended. */
static int job_iter_end(struct sjob *sj, bool failed, char *err, size_t errlen)
{
	struct run *r = sj->run;
	const struct conf_traffic *t = sj->t;
	struct mrc_run_result *res = r->res;
	struct mrc_run_iter *ri = &(*sj->iters_r)[sj->cur_ri];
	struct mrc_run_size *rs = &(*sj->sizes_r)[*sj->n_sizes_r - 1];
	uint64_t now = mrc_sim_now(r->sim);

	if (!sj->idx) {
		collect_faults(r, ri->iter); /* time-scheduled ones that fired meanwhile */
		ri->faults = (uint32_t)(res->n_faults - sj->faults_before);
	}
	if (failed) {
		ri->incomplete = true; /* no CCT: the report says null */
		rs->incomplete = true; /* its time and bandwidths did not happen */
		sj->state = SJ_DONE;
		sj->in_gap = false;
		return 0;
	}
	if (sj->n_ph) {
		ri->cct_ps = sj->end_at - sj->step_start;
	} else {
		ri->cct_ps = coll_figures(sj, ri);
		sj->end_at = ri->start_ps + ri->cct_ps;
		if (!ri->warmup && rs->n_pairs)
			mrc_run_pairs_iter(rs, sj->rank_ps, t->pattern == CONF_PAT_WRITE_LAT);
	}
	straggler(r, sj, ri);
	ri->rtx_bytes_end = total_rtx_bytes(r);
	if (!ri->warmup) {
		mrc_hist_record(rs->cct_ns, (int64_t)(ri->cct_ps / 1000));
		sj->sum += (double)ri->cct_ps;
		sj->n++;
		rs->wrong += ri->wrong;
	}
	sj->iters_done++;
	sj->measuring = false;
	sj->state = SJ_WAIT;
	sj->ready_at = sj->global_iter && t->gap_ps ? sj->end_at + t->gap_ps : now;
	if (++sj->it < t->warmup + t->iterations)
		return 0;
	sj->it = 0;
	if (job_size_end(sj))
		return -ENOMEM;
	if (++sj->size_i < sj->n_sizes)
		return job_size_begin(sj, err, errlen);
	sj->state = SJ_DONE;
	if (res->n_jobs) {
		res->jobs[sj->idx].finished = true;
		res->jobs[sj->idx].end_ps = sj->end_at;
	}
	return 0;
}

/* Jobs waiting for one that ended start waiting for their time; those whose time came
 * start an iteration, in job order. Returns 0 or a negative errno. */
static int jobs_start_due(struct run *r, char *err, size_t errlen)
{
	uint64_t now = mrc_sim_now(r->sim);

	for (size_t j = 0; j < r->n_jobs; j++) {
		struct sjob *sj = &r->jobs[j];

		if (sj->state == SJ_BLOCKED && r->jobs[sj->after].state == SJ_DONE) {
			sj->state = SJ_WAIT;
			sj->ready_at = r->res->jobs[sj->after].end_ps + sj->t->start_ps;
		}
		if (sj->state == SJ_WAIT && sj->ready_at <= now) {
			int e = sj->bg ? bg_start(sj, err, errlen) : sj->in_gap ? phase_end(sj, err, errlen) :
							    job_iter_start(sj, err, errlen);

			if (e)
				return e;
		}
	}
	return 0;
}

/*
 * Runs every job to its end on the one fabric: iterations start when their job's time comes
 * (its start, the end of the job it runs after, a compute gap), the simulator runs until a
 * collective completes or the next job's time, a stall or a failure. Returns 0 (a failure
 * inside the event loop is r->err, the running iterations marked incomplete) or a negative
 * errno with @err.
 */
static int run_jobs(struct run *r, mrc_run_progress_fn progress, void *pctx, char *err,
	size_t errlen)
{
	uint32_t total = 0, done = 0;
	int e;

	for (size_t j = 0; j < r->n_jobs; j++) /* a background job has no sizes */
		total += (uint32_t)r->jobs[j].n_sizes * (r->jobs[j].t->warmup +
							 r->jobs[j].t->iterations);
	for (;;) {
		uint64_t wake = UINT64_MAX, deadline = UINT64_MAX, next;
		struct sjob *slow = NULL;
		bool all_done = true, ended = false;

		for (size_t j = 0; j < r->n_jobs; j++) { /* what completed */
			struct sjob *sj = &r->jobs[j];

			if (sj->state != SJ_RUN || !coll_done_all(r, sj))
				continue;
			e = sj->n_ph ? phase_end(sj, err, errlen) :
				       job_iter_end(sj, false, err, errlen);
			if (e)
				break;
			ended = true;
		}
		for (size_t j = 0; !e && ended && progress && j < r->n_jobs; j++)
			done += r->jobs[j].iters_done;
		if (!e && ended && progress)
			progress(pctx, (double)done / total);
		done = 0;
		e = e ?: ended ? 0 : jobs_start_due(r, err, errlen);
		if (r->rk) /* over ranks: an iteration's end or start failed on one */
			e = rk_agree(r->rk, e, "another rank failed", err, errlen);
		if (r->rk && rk_lost(r, e))
			break;
		if (e)
			return e;
		for (size_t j = 0; j < r->n_jobs; j++) {
			struct sjob *sj = &r->jobs[j];

			all_done &= sj->state == SJ_DONE || sj->bg;
			if (sj->state == SJ_WAIT && sj->ready_at < wake)
				wake = sj->ready_at;
			if (sj->state == SJ_RUN && sj->deadline < deadline) {
				deadline = sj->deadline;
				slow = sj;
			}
		}
		if (all_done)
			bg_end(r);
		if (all_done || r->err)
			break;
		if (ended)
			continue; /* start what that made due, at this time */
		for (size_t j = 0; j < r->n_jobs && !ended; j++)
			ended = r->jobs[j].state == SJ_RUN && coll_done_all(r, &r->jobs[j]);
		if (ended)
			continue; /* a collective with nothing to do: done at its start */
		if (!slow && wake == UINT64_MAX) {
			snprintf(err, errlen, "jobs: none running and none to start");
			e = -EDEADLK;
		} else if (wake != UINT64_MAX && wake != r->wake_at) { /* a start, a gap's end */
			if (mrc_sim_at(r->sim, wake, (unsigned)r->gap_kind, r, 0)) {
				snprintf(err, errlen, "sim: event queue full");
				e = -ENOMEM;
			} else {
				r->wake_at = wake;
			}
		}
		if (r->rk)
			e = rk_agree(r->rk, e, "another rank failed", err, errlen);
		if (r->rk && rk_lost(r, e))
			break;
		if (e)
			return e;
		if (slow) {
			next = mrc_sim_next(r->sim);
			if (next == MRC_SIM_NEVER || next > deadline) {
				char who[48] = "";

				if (r->n_jobs > 1)
					snprintf(who, sizeof(who), "job %s: ", slow->t->name);
				run_fail(r, -ETIMEDOUT, "%siteration %u stalled: no progress (%s)",
					who, slow->global_iter - 1, next == MRC_SIM_NEVER ?
					"no events left" : "60 s of virtual time");
				break;
			}
		}
		mrc_sim_run(r->sim, wake < deadline ? wake : deadline);
		if (mrc_stop_signal && !r->rk_lost) { /* a rank lost: mpirun's signal follows */
			r->res->interrupted = mrc_stop_signal;
			run_fail(r, -EINTR, "interrupted by SIG%s in iteration %u",
				sigabbrev_np(mrc_stop_signal) ? sigabbrev_np(mrc_stop_signal) : "?",
				r->cur_iter);
		}
		if (r->rk && !rk_all(r, !r->err) && !r->err) /* the failure's rank says why */
			run_fail(r, -ECANCELED, "another rank failed");
		if (r->err)
			break;
	}
	if (!r->err)
		return 0;
	for (size_t j = 0; j < r->n_jobs; j++) /* the iterations the failure stopped */
		if (r->jobs[j].state == SJ_RUN || r->jobs[j].in_gap)
			job_iter_end(&r->jobs[j], true, err, errlen);
	snprintf(r->res->error, sizeof(r->res->error), "%s", r->errmsg);
	for (size_t j = 0; j < r->n_jobs; j++)
		coll_release(&r->jobs[j], true);
	return 0;
}

/* The configured faults that never fired, in config order, each saying why (README "Report
 * schema", faults_not_applied[]). Called once the run ended, its last faults collected. */
static void not_applied(struct run *r)
{
	const struct conf_job *j = r->job;
	bool *fired = calloc(j->n_faults + 1, sizeof(*fired));

	if (!fired)
		return;
	for (size_t f = 0; f < j->n_faults; f++) {
		if (j->faults[f].has_at_iteration) {
			fired[f] = r->fired[f] != 0;
			continue;
		}
		for (size_t a = 0; a < r->n_applied && !fired[f]; a++)
			fired[f] = r->applied[a].conf == f && !r->applied[a].revert &&
				   r->applied[a].matched;
	}
	mrc_fault_list_unfired(r->res, j, fired, r->res->sim_end_ps);
	free(fired);
}

/* The report's entry of EV @value, at profile position @e: the same position in the plan
 * when it matches, else found by value; NULL when the plan lacks it. */
static struct mrc_run_ev *run_ev_of(struct mrc_run_result *res, unsigned e, uint32_t value)
{
	if (e < res->n_evs && res->evs[e].ev == value)
		return &res->evs[e];
	for (size_t k = 0; k < res->n_evs; k++)
		if (res->evs[k].ev == value)
			return &res->evs[k];
	return NULL;
}

/* Ranks: one rank's share of the results for rank 0 (rk_gather_results), each part a
 * uint64 length then its bytes: rankres (counters, per-EV figures, histograms, the
 * ASSUMED_BAD times as iteration 0), the fabric's (mrc_fabric_results_pack), the goodput
 * bins, each job's background counters (posted, completed, refused); then the first host whose packets could not be encoded (UINT32_MAX: none) and the
 * rank's failure (errno, message). */
static int rk_share(struct run *r, struct mrc_sim_buf *b)
{
	struct mrc_rankres rr = { .ctr = *r->res, .evs = r->res->evs, .n_evs = r->res->n_evs,
		.msg_ns = r->res->msg_ns, .step_ns = r->res->step_ns, .rtt_ns = r->res->rtt_ns };
	struct mrc_sim_buf fb = { 0 };
	char *json = NULL;
	size_t len = 0;
	uint64_t n;
	uint32_t enc = UINT32_MAX;
	int32_t err = r->err, sig = r->res->interrupted;
	int e;

	rr.bad = calloc(r->n_bad + 1, sizeof(*rr.bad));
	if (!rr.bad)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_bad; i++)
		rr.bad[i] = (struct mrc_rankres_bad){ 0, r->bad_t[i] };
	rr.n_bad = r->n_bad;
	e = mrc_rankres_encode(&rr, &json, &len);
	free(rr.bad);
	e = e ?: mrc_fabric_results_pack(r->fab, &fb);
	n = len;
	e = e ?: mrc_sim_buf_put(b, &n, sizeof(n));
	e = e ?: mrc_sim_buf_put(b, json, len);
	n = fb.n;
	e = e ?: mrc_sim_buf_put(b, &n, sizeof(n));
	e = e ?: mrc_sim_buf_put(b, fb.a, fb.n);
	n = r->res->n_bins * sizeof(uint64_t);
	e = e ?: mrc_sim_buf_put(b, &n, sizeof(n));
	e = e ?: mrc_sim_buf_put(b, r->res->bin_bytes, n);
	n = r->res->n_jobs * 3 * sizeof(uint64_t); /* each job's background counters */
	e = e ?: mrc_sim_buf_put(b, &n, sizeof(n));
	for (size_t j = 0; j < r->res->n_jobs && !e; j++) {
		const struct mrc_run_job *rj = &r->res->jobs[j];
		uint64_t v[3] = { rj->bg_posted, rj->bg_completed, rj->bg_refused };

		e = mrc_sim_buf_put(b, v, sizeof(v));
	}
	if (r->encode_err_host[0])
		sscanf(r->encode_err_host, "h%u", &enc);
	e = e ?: mrc_sim_buf_put(b, &enc, sizeof(enc));
	e = e ?: mrc_sim_buf_put(b, &err, sizeof(err));
	e = e ?: mrc_sim_buf_put(b, &sig, sizeof(sig));
	n = strlen(r->errmsg);
	e = e ?: mrc_sim_buf_put(b, &n, sizeof(n));
	e = e ?: mrc_sim_buf_put(b, r->errmsg, n);
	free(json);
	free(fb.a);
	return e;
}

/* The next part of a share: its length and bytes at *@p, at most @end; false when cut. */
static bool share_part(const unsigned char **p, const unsigned char *end, const void **part,
	uint64_t *n)
{
	if ((size_t)(end - *p) < sizeof(*n))
		return false;
	memcpy(n, *p, sizeof(*n));
	*p += sizeof(*n);
	if ((uint64_t)(end - *p) < *n)
		return false;
	*part = *p;
	*p += *n;
	return true;
}

/* Rank 0 takes rank @k's share (@len bytes at @p, rk_share's): 0, -EPROTO with @why. */
static int rk_take(struct run *r, unsigned k, const unsigned char *p, size_t len, char *why,
	size_t whylen)
{
	const unsigned char *end = p + len;
	const void *json, *fab, *bins, *msg, *bg;
	uint64_t nj, nf, nb, nm, ng;
	struct mrc_rankres rr;
	uint32_t enc;
	int32_t err, sig;
	int e;

	if (!share_part(&p, end, &json, &nj) || !share_part(&p, end, &fab, &nf) ||
		!share_part(&p, end, &bins, &nb) || nb % sizeof(uint64_t) ||
		!share_part(&p, end, &bg, &ng) || ng != r->res->n_jobs * 3 * sizeof(uint64_t) ||
		(size_t)(end - p) < sizeof(enc) + sizeof(err) + sizeof(sig)) {
		snprintf(why, whylen, "rank %u: its results are cut short", k);
		return -EPROTO;
	}
	memcpy(&enc, p, sizeof(enc));
	memcpy(&err, p + sizeof(enc), sizeof(err));
	memcpy(&sig, p + sizeof(enc) + sizeof(err), sizeof(sig));
	p += sizeof(enc) + sizeof(err) + sizeof(sig);
	if (!share_part(&p, end, &msg, &nm) || p != end) {
		snprintf(why, whylen, "rank %u: its results are cut short", k);
		return -EPROTO;
	}
	e = mrc_rankres_decode(json, nj, &rr, why, whylen);
	e = e ?: mrc_rankres_merge(r->res, &rr, why, whylen);
	for (size_t i = 0; !e && i < rr.n_bad; i++) {
		if (r->n_bad == r->cap_bad) {
			size_t c = r->cap_bad ? 2 * r->cap_bad : 256;
			uint64_t *nbt = realloc(r->bad_t, c * sizeof(*nbt));

			if (!nbt) {
				e = -ENOMEM;
				break;
			}
			r->bad_t = nbt;
			r->cap_bad = c;
		}
		r->bad_t[r->n_bad++] = rr.bad[i].off_ps;
	}
	mrc_rankres_free(&rr);
	if (!e && mrc_fabric_results_unpack(r->fab, fab, nf)) {
		snprintf(why, whylen, "rank %u: its fabric results do not fit this fabric", k);
		e = -EPROTO;
	}
	for (size_t b = nb / sizeof(uint64_t); !e && b-- > 0;) {
		uint64_t x;

		memcpy(&x, (const unsigned char *)bins + b * sizeof(x), sizeof(x));
		if (x && bins_add(&r->res->bin_bytes, &r->res->n_bins, b, x))
			e = -ENOMEM;
	}
	for (size_t j = 0; !e && j < r->res->n_jobs; j++) {
		struct mrc_run_job *rj = &r->res->jobs[j];
		uint64_t v[3];

		memcpy(v, (const unsigned char *)bg + j * sizeof(v), sizeof(v));
		rj->bg_posted += v[0];
		rj->bg_completed += v[1];
		rj->bg_refused += v[2];
	}
	if (e)
		return e;
	if (enc != UINT32_MAX && (!r->encode_err_host[0] ||
		strtoul(r->encode_err_host + 1, NULL, 10) > enc))
		snprintf(r->encode_err_host, sizeof(r->encode_err_host), "h%u first", enc);
	if (sig > 0 && sig < 65 && !r->res->interrupted) /* a signal to any rank stopped it */
		r->res->interrupted = sig;
	/* the run's error: the lowest rank's that failed itself (not "another rank") */
	if (err && err != -ECANCELED && (!r->err || r->err == -ECANCELED)) {
		r->err = err;
		snprintf(r->errmsg, sizeof(r->errmsg), "%.*s", (int)(nm < 255 ? nm : 255),
			(const char *)msg);
		snprintf(r->res->error, sizeof(r->res->error), "%s", r->errmsg);
	}
	return 0;
}

/*
 * Ranks, once the run ended and each rank collected its hosts' figures: every share to
 * rank 0 (one exchange, nothing to the others), merged there into what one process would
 * have (the fabric's figures follow, from its merged statistics). Returns 0 on the other
 * ranks and when rank 0 merged every share; else non-zero, the reason among rank 0's
 * errors (the report then says the merge failed rather than give partial figures).
 */
static int rk_gather_results(struct run *r)
{
	const struct mrc_sim_comm *c = r->rk;
	const unsigned char *p;
	char why[256] = "";
	int e = 0;

	r->rk_send.n = 0;
	if (c->rank && (e = rk_share(r, &r->rk_send)))
		rk_die(r, "results for rank 0", e);
	rk_to_rank0(r, "results for rank 0");
	if (c->rank)
		return 0;
	if (r->rk_lost) {
		mrc_run_add_error(r->res, "MPI ranks: results: the other ranks' never came: the "
					  "counters, EVs and histograms are rank 0's hosts', the "
					  "fabric's figures absent");
		return -ECONNABORTED;
	}
	p = r->rk_recv.a;
	for (unsigned k = 0; k < c->ranks && !e; k++) {
		if (k && (e = rk_take(r, k, p, r->rk_rn[k], why, sizeof(why))))
			mrc_run_add_error(r->res, "MPI ranks: results: %s", why[0] ? why :
				strerror(-e));
		p += r->rk_rn[k];
	}
	return e;
}

static void collect_stats(struct run *r)
{
	struct mrc_run_result *res = r->res;
	const struct conf_fabric *f = &r->job->fabric;
	struct mrc_fab_stats fs;
	struct mrc_fab_port_stats tot;
	const struct mrc_ev_profile *prof;

	res->evs = calloc(r->m.n_evs + 1, sizeof(*res->evs));
	res->n_evs = res->evs ? r->m.n_evs : 0;
	for (size_t i = 0; i < res->n_evs; i++) {
		res->evs[i].ev = r->m.evs[i].ev;
		res->evs[i].plane = mrc_srv6_ev_plane(&r->m.params.ev, r->m.evs[i].ev);
		res->evs[i].spine = mrc_srv6_ev_spine(&r->m.params.ev, r->m.evs[i].ev) % f->t1;
	}
	for (uint32_t h = 0; h < r->nhosts; h++) {
		struct mrc_ep_stats es;

		if (!host_mine(r, h))
			continue;
		mrc_ep_get_stats(r->hosts[h].ep, &es);
		if (es.tx_encode_err && !res->tx_encode_err)
			snprintf(r->encode_err_host, sizeof(r->encode_err_host), "h%u first", h);
		mrc_run_add_ep(res, &es);
		uint32_t first, nq = mrc_ep_qpns(r->hosts[h].ep, &first);

		for (uint32_t qpn = first; qpn < first + nq; qpn++) { /* every QP: all of qp_get */
			const struct mrc_ev_set *set;
			struct mrc_qp_stats s;
			const char *why;

			if (mrc_ep_qp_stats(r->hosts[h].ep, qpn, &s))
				continue;
			mrc_run_add_qp(res, &s);
			if (s.rtt_samples)
				mrc_hist_record(res->rtt_ns,
					(int64_t)(s.rtt_sum_ps / s.rtt_samples / 1000));
			if (mrc_qp_failed(mrc_ep_qp(r->hosts[h].ep, qpn), &why))
				res->qp_errors++;
			set = mrc_ep_qp_evs(r->hosts[h].ep, qpn);
			for (unsigned e = 0; set && set->n_bad && e < set->n; e++) {
				struct mrc_run_ev *re = run_ev_of(res, e, mrc_ev_value(set, e));

				if (re)
					re->bad_qps += mrc_ev_state(set, e) == MRC_EV_ASSUMED_BAD;
			}
		}
	}
	/* the per-EV counters are job-wide (setup_hosts): every QP above is in them; a
	 * parallel run's are its workers' (their endpoints hold them: still there) */
	for (unsigned w = 0; w < r->nw; w++) {
		prof = r->nw > 1 ? r->wk[w].prof
		       : r->nhosts ? mrc_ep_ev_profile(r->hosts[0].ep) : NULL;
		for (unsigned e = 0; prof && e < prof->n; e++) {
			const struct mrc_ev_stats *vs = &prof->st[e];
			struct mrc_run_ev *re = run_ev_of(res, e, prof->value[e]);

			if (!re)
				continue;
			mrc_run_ev_add(re, vs);
		}
	}
	if (r->rk && (rk_gather_results(r) || r->rk->rank)) {
		/* rank 0 reports (a failed merge is one of its errors), without the fabric's
		 * figures: only their merge makes them */
		res->fabric_absent = !r->rk->rank;
		return;
	}
	mrc_fabric_stats(r->fab, &fs);
	mrc_fabric_port_totals(r->fab, &tot);
	res->events = fs.events;
	res->pkt_hops = fs.pkt_hops;
	res->injected = fs.injected;
	res->delivered = fs.delivered;
	res->fab_drops = tot.drops + tot.down_drops;
	res->fab_down_drops = tot.down_drops;
	res->fab_trims = tot.trims;
	res->fab_ecn = tot.ecn_marks;
	res->fab_lost = tot.lost;
	res->pfc = f->pfc.enabled;
	for (uint32_t pl = 0; pl < f->planes; pl++) {
		for (int tier = MRC_FAB_T0; tier <= MRC_FAB_T1; tier++) {
			uint32_t nsw = tier == MRC_FAB_T0 ? f->t0 : f->t1;

			for (uint32_t i = 0; i < nsw; i++) {
				struct mrc_fab_switch_stats ss;

				if (mrc_fabric_switch_stats(r->fab, tier, i, pl, &ss))
					continue;
				res->fab_no_route += ss.no_route;
				res->fab_hop_limit += ss.hop_limit;
				res->fab_icmp_sent += ss.icmp_sent;
				res->fab_icmp_rate_limited += ss.icmp_rate_limited;
			}
		}
	}
	/* links: every output port that carried something */
	size_t cap = 0;

	for (uint32_t pl = 0; pl < f->planes; pl++) {
		for (int tier = MRC_FAB_HOST; tier <= MRC_FAB_T1; tier++) {
			uint32_t nn = tier == MRC_FAB_HOST ? r->nhosts :
				      tier == MRC_FAB_T0   ? f->t0 :
							     f->t1;
			uint32_t np = tier == MRC_FAB_HOST ? 1 :
				      tier == MRC_FAB_T0  ? f->hosts_per_t0 + f->t1 :
							    f->t0;

			for (uint32_t i = 0; i < nn; i++) {
				for (uint32_t port = 0; port < np; port++) {
					struct mrc_fab_port_stats ps;
					struct mrc_fab_pfc_stats pf;
					struct mrc_run_link *l;

					if (mrc_fabric_port_stats(r->fab, tier, i, pl, port,
						    &ps) ||
						mrc_fabric_pfc_stats(r->fab, tier, i, pl, port, &pf))
						continue;
					res->fab_pfc_pauses += pf.pause_tx;
					res->fab_pfc_paused_ps += pf.paused_ps[0] + pf.paused_ps[1];
					if (tier == MRC_FAB_HOST)
						res->fab_pfc_paused_host_ps +=
							pf.paused_ps[0] + pf.paused_ps[1];
					res->fab_pfc_headroom_drops += pf.headroom_drops;
					res->fab_drops += pf.headroom_drops;
					if (!ps.tx_pkts && !pf.pause_tx && !pf.pause_rx)
						continue;
					if (res->n_links == cap) {
						cap = cap ? cap * 2 : 256;
						l = realloc(res->links, cap * sizeof(*l));
						if (!l)
							return;
						res->links = l;
					}
					l = &res->links[res->n_links++];
					if (tier == MRC_FAB_HOST)
						snprintf(l->name, sizeof(l->name),
							"h%u.p%u>p%u.t0.%u", i, pl, pl,
							i / f->hosts_per_t0);
					else if (tier == MRC_FAB_T1)
						snprintf(l->name, sizeof(l->name),
							"p%u.t1.%u>p%u.t0.%u", pl, i, pl, port);
					else if (port < f->hosts_per_t0)
						snprintf(l->name, sizeof(l->name),
							"p%u.t0.%u>h%u.p%u", pl, i,
							i * f->hosts_per_t0 + port, pl);
					else
						snprintf(l->name, sizeof(l->name),
							"p%u.t0.%u>p%u.t1.%u", pl, i, pl,
							port - f->hosts_per_t0);
					l->tx_pkts = ps.tx_pkts;
					l->tx_bytes = ps.tx_bytes;
					l->drops = ps.drops;
					l->trims = ps.trims;
					l->ecn_marks = ps.ecn_marks;
					l->down_drops = ps.down_drops;
					l->lost = ps.lost;
					l->max_queue_bytes = ps.max_queue_bytes;
					l->pfc_pause_tx = pf.pause_tx;
					l->pfc_resume_tx = pf.resume_tx;
					l->pfc_pause_rx = pf.pause_rx;
					l->pfc_resume_rx = pf.resume_rx;
					l->pfc_paused_ps[0] = pf.paused_ps[0];
					l->pfc_paused_ps[1] = pf.paused_ps[1];
					l->pfc_headroom_drops = pf.headroom_drops;
					l->pfc_max_ingress_bytes = pf.max_ingress_bytes;
				}
			}
		}
	}
}

/*
 * The workers of a job or sweep (r->nw: sim.workers, 1 but on the simulator): for more
 * than one, what each records of its own (run_wk) and the lock; run_setup then partitions
 * the fabric. 0 or -ENOMEM (freed by run_teardown).
 */
static int run_workers(struct run *r)
{
	int e = 0;

	r->nw = r->job->fabric.driver == CONF_DRIVER_SIM && r->job->sim.workers > 1
			? r->job->sim.workers : 1;
	if (r->nw == 1 && !r->rk)
		return 0;
#ifdef __GLIBC__
	/* the workers allocate from the main arena: one each (glibc's default) kept 16% more
	 * memory per host in job-perm8k (docs/performance.md "Parallel simulation"); they
	 * seldom allocate (slabs of packets, queue growth) */
	mallopt(M_ARENA_MAX, 1);
#endif
	r->wk = calloc(r->nw, sizeof(*r->wk));
	if (!r->wk || pthread_mutex_init(&r->lock, NULL)) {
		free(r->wk);
		r->wk = NULL;
		r->nw = 1;
		return -ENOMEM;
	}
	for (unsigned k = 0; k < r->nw && r->nw > 1 && !e; k++) /* one worker: res's own */
		e = new_hist(&r->job->output.hist, &r->wk[k].msg_ns);
	return e;
}

/*
 * Whether the job's racks are enough for the ranks (r->rk) of r->nw workers each, as
 * mrc_fabric_ranks needs (a rack, fabric.t0 of them, is the smallest partition: at most
 * that many ranks, and 1024; with workers, ranks x workers at most the racks). Checked
 * before output.dir is prepared, so that this usage error leaves it as it was. 0, or
 * -ERANGE with what to change in @err.
 */
static int rk_fit(const struct run *r, char *err, size_t errlen)
{
	unsigned n = r->rk ? r->rk->ranks : 1, t0 = r->job->fabric.t0;

	if (n > t0 || n > 1024)
		snprintf(err, errlen, "mpirun: %u ranks, fabric.t0 makes %u racks (a rack is the "
				      "smallest partition): use at most %u ranks, or more racks",
			n, t0, t0 < 1024 ? t0 : 1024);
	else if (r->nw > 1 && (uint64_t)n * r->nw > t0)
		snprintf(err, errlen, "sim.workers: %u MPI ranks of %u workers need %llu racks, "
				      "fabric.t0 makes %u (a rack is the smallest partition): use "
				      "ranks x workers <= %u, or more racks '%u'",
			n, r->nw, (unsigned long long)n * r->nw, t0, t0, r->nw);
	else
		return 0;
	return -ERANGE;
}

/*
 * What a job and a sweep both build on the simulator: the workers (sim.workers), output.dir,
 * the fabric (partitioned over the workers), its event kinds, the hosts' endpoints, the
 * captures, every fault checked and those "at" a time scheduled. r->job, r->m, r->res,
 * r->nhosts and r->nranks are set.
 */
static int run_setup(struct run *r, char *err, size_t errlen)
{
	int e = run_workers(r);

	if (e) {
		snprintf(err, errlen, "sim.workers: %s", strerror(-e));
		return e;
	}
	/* a usage error first: output.dir stays as it was */
	e = r->rk ? rk_fit(r, err, errlen) : 0;
	if (e)
		return e;
	/* parents, output names, earlier files; over MPI ranks rank 0 writes every output */
	e = r->rk && r->rk->rank ? 0 : mrc_job_outdir(r->job, err, errlen);
	if (e)
		return e;
	/* a job's, before it writes there: no earlier report.json survives as this run's */
	if (!r->sw && (!r->rk || !r->rk->rank)) {
		e = mrc_job_outdir_claim(r->job, NULL, err, errlen);
		if (e)
			return e;
		r->claimed = true;
	}
	e = setup_fabric(r, err, errlen);
	e = e ?: mrc_sim_handler(r->sim, on_timer_event, r);
	if (e < 0)
		return e;
	r->timer_kind = e;
	e = mrc_sim_handler(r->sim, on_fault_snapshot, r);
	if (e < 0) {
		snprintf(err, errlen, "sim: fault handler: %s", strerror(-e));
		return e;
	}
	r->snap_kind = e;
	e = mrc_sim_handler(r->sim, on_gap_end, r);
	if (e < 0) {
		snprintf(err, errlen, "sim: gap handler: %s", strerror(-e));
		return e;
	}
	r->gap_kind = e;
	e = mrc_sim_handler(r->sim, on_bg_tick, r);
	if (e < 0) {
		snprintf(err, errlen, "sim: background handler: %s", strerror(-e));
		return e;
	}
	r->bg_kind = e;
	e = mrc_sim_handler(r->sim, on_bg_fill, r);
	if (e < 0) {
		snprintf(err, errlen, "sim: background handler: %s", strerror(-e));
		return e;
	}
	r->bg_fill_kind = e;
	r->fired = calloc(r->job->n_faults + 1, sizeof(*r->fired));
	if (!r->fired) {
		snprintf(err, errlen, "fault counters: out of memory");
		return -ENOMEM;
	}
	e = setup_hosts(r, err, errlen);
	e = e ?: setup_captures(r, err, errlen);
	if (e)
		return e;
	/* every fault is checked before the job runs, not when its iteration comes */
	for (size_t f = 0; f < r->job->n_faults; f++) {
		struct mrc_fab_fault ff;

		e = fault_map(r, &r->job->faults[f], 0, &ff, err, errlen);
		if (e)
			return e;
	}
	for (size_t f = 0; f < r->job->n_faults; f++) {
		if (r->job->faults[f].has_at) {
			e = fault_apply(r, &r->job->faults[f], r->job->faults[f].at_ps, false, err,
				errlen);
			if (e)
				return e;
		}
	}
	return 0;
}

/* Frees what run_setup() (and a job) made; r->res stays the caller's. */
static void run_teardown(struct run *r)
{
	for (size_t i = 0; i < r->n_taps; i++)
		pcapw_close(r->taps[i].w);
	free(r->taps);
	for (size_t j = 0; j < r->n_jobs; j++) {
		struct sjob *sj = &r->jobs[j];

		if (sj->n_ph) { /* the running phase's are the phases' */
			sj->coll = NULL;
			sj->rkey = NULL;
		}
		for (size_t k = 0; k < sj->n_ph; k++) {
			mrc_coll_free(sj->ph[k].coll);
			free(sj->ph[k].rkey);
		}
		free(sj->ph);
		free(sj->bg_hosts);
		free(sj->bg_rkey);
		free(sj->bg_perm);
		free(sj->bg_tick);
		free(sj->bg_dest);
		coll_release(sj, true);
		for (size_t k = 0; k < sj->n_old; k++)
			mrc_coll_free(sj->old[k]);
		free(sj->old);
		free(sj->rkey);
		free(sj->rank_ps);
		mrc_job_coll_mem_free(&sj->cmem);
	}
	free(r->jobs);
	for (uint32_t h = 0; r->hosts && h < r->nhosts; h++) {
		mrc_ep_free(r->hosts[h].ep);
		free(r->hosts[h].peer_map);
		free(r->hosts[h].qp_job);
	}
	free(r->hosts);
	free(r->bad_t);
	free(r->local);
	free(r->rk_n);
	free(r->rk_send.a);
	free(r->rk_recv.a);
	free(r->applied);
	free(r->imp);
	free(r->fired);
	free(r->log_row);
	mrc_fabric_free(r->fab); /* and the workers' threads */
	if (r->wk) {
		for (unsigned k = 0; k < r->nw; k++) {
			free(r->wk[k].bins);
			mrc_hist_free(r->wk[k].msg_ns);
			free(r->wk[k].recs);
			free(r->wk[k].bytes);
		}
		free(r->wk);
		pthread_mutex_destroy(&r->lock);
	}
	free(r->ecmp_seeds);
	mrc_job_srv6_free(&r->m);
}

/* The verification mode of the run (r->vmode; a job with verify off keeps none): descriptors
 * need gathered payloads (the fabric carries where they are); hosts that check every
 * checksum (mrc.rx_checks) get whole packets, and a pattern or group descriptors cannot
 * verify needs real bytes — then for every job, the hosts' mode being one. */
static enum mrc_verify_mode run_vmode(const struct conf_job *job, uint32_t nranks)
{
	enum mrc_verify_mode v = MRC_VERIFY_OFF;

	for (size_t i = 0; i < conf_jobs(job); i++) {
		const struct conf_traffic *t = conf_job_traffic(job, i);
		uint32_t span = t->ranks ? t->ranks : conf_fabric_hosts(&job->fabric);
		bool group = t->hosts[0] != 0 || span < nranks;

		if (t->verify == CONF_VERIFY_OFF || t->pattern == CONF_PAT_BACKGROUND)
			continue;
		if (t->verify == CONF_VERIFY_BYTES || job->mrc.rx_checks ||
			!mrc_coll_desc_ok((enum mrc_coll_pattern)t->pattern, group))
			return MRC_VERIFY_BYTES;
		v = MRC_VERIFY_DESC;
	}
	return v;
}

/* @r's jobs (r->nranks set), each waiting for its start and its first size set up; with
 * traffic as a list, res->jobs[] for their results. Returns 0 or a negative errno. */
static int jobs_init(struct run *r, char *err, size_t errlen)
{
	const struct conf_job *job = r->job;
	struct mrc_run_result *res = r->res;
	bool phases = false;
	int e;

	r->n_jobs = conf_jobs(job);
	r->jobs = calloc(r->n_jobs, sizeof(*r->jobs));
	if (!r->jobs)
		return -ENOMEM;
	for (size_t j = 0; j < r->n_jobs; j++)
		phases |= conf_job_traffic(job, j)->n_phases > 0;
	if (job->traffic_list || phases) {
		res->jobs = calloc(r->n_jobs, sizeof(*res->jobs));
		if (!res->jobs)
			return -ENOMEM;
		res->n_jobs = r->n_jobs;
	}
	for (size_t j = 0; j < r->n_jobs; j++) {
		struct sjob *sj = &r->jobs[j];
		const struct conf_traffic *t = conf_job_traffic(job, j);

		sj->run = r;
		sj->idx = (uint32_t)j;
		sj->t = t;
		/* a step of phases is one size, background has none */
		sj->n_sizes = t->pattern == CONF_PAT_BACKGROUND ? 0 : t->n_phases ? 1 :
			      conf_sizes_expand(&t->sizes, sj->sizes, CONF_SIZES_MAX);
		if (sj->n_sizes > CONF_SIZES_MAX) {
			snprintf(err, errlen, "traffic.sizes: %zu sizes, at most %d", sj->n_sizes,
				CONF_SIZES_MAX);
			return -E2BIG;
		}
		sj->rkey = calloc((size_t)r->nranks * MRC_REG_N, sizeof(*sj->rkey));
		sj->rank_ps = calloc((size_t)r->nranks + 1, sizeof(*sj->rank_ps)); /* + #wrong */
		if (!sj->rkey || !sj->rank_ps)
			return -ENOMEM;
		if (j == 0) {
			sj->sizes_r = &res->sizes;
			sj->n_sizes_r = &res->n_sizes;
			sj->iters_r = &res->iters;
			sj->n_iters_r = &res->n_iters;
		} else {
			sj->sizes_r = &res->jobs[j].sizes;
			sj->n_sizes_r = &res->jobs[j].n_sizes;
			sj->iters_r = &res->jobs[j].iters;
			sj->n_iters_r = &res->jobs[j].n_iters;
		}
		*sj->sizes_r = calloc(sj->n_sizes + 1, sizeof(**sj->sizes_r));
		if (!*sj->sizes_r)
			return -ENOMEM;
		if (res->n_jobs)
			snprintf(res->jobs[j].name, sizeof(res->jobs[j].name), "%s", t->name);
		sj->after = -1;
		for (size_t k = 0; t->after[0] && k < r->n_jobs; k++)
			if (!strcmp(conf_job_traffic(job, k)->name, t->after))
				sj->after = (long)k;
		sj->state = sj->after >= 0 ? SJ_BLOCKED : SJ_WAIT;
		sj->ready_at = t->start_ps;
	}
	for (size_t j = 0; j < r->n_jobs; j++) {
		if (conf_job_traffic(job, j)->pattern == CONF_PAT_BACKGROUND) {
			e = bg_init(&r->jobs[j]);
			if (e)
				snprintf(err, errlen, "job %s: background: %s",
					conf_job_traffic(job, j)->name, strerror(-e));
		} else {
			e = job_size_begin(&r->jobs[j], err, errlen);
		}
		if (e)
			return e;
		if (res->n_jobs && !r->jobs[j].bg)
			res->jobs[j].nranks = r->jobs[j].nranks;
	}
	return 0;
}

/* However the run ended: a background job still sending did not finish (end_us null), but
 * its window ends where the run stopped, so that its duration and rates are over what
 * ran (docs/report.md "Several jobs"). */
static void unfinished_background(struct run *r)
{
	for (size_t j = 0; j < r->n_jobs; j++)
		if (r->jobs[j].bg && r->jobs[j].state == SJ_BG)
			r->res->jobs[j].end_ps = mrc_sim_now(r->sim);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int mrc_run_sim(const struct conf_job *job, mrc_run_progress_fn progress, void *pctx,
	struct mrc_run_result **out, char *err, size_t errlen)
{
	return mrc_run_sim_ranks(job, NULL, progress, pctx, out, err, errlen);
}

int mrc_run_sim_ranks(const struct conf_job *job, const struct mrc_sim_comm *comm,
	mrc_run_progress_fn progress, void *pctx, struct mrc_run_result **out, char *err,
	size_t errlen)
{
	struct run r = { .job = job, .nw = 1, .wake_at = UINT64_MAX, .rk = comm };
	struct mrc_run_result *res = calloc(1, sizeof(*res));
	struct timespec w0, w1;
	struct rusage ru;
	int e;

	clock_gettime(CLOCK_MONOTONIC, &w0);
	*out = NULL;
	if (!res)
		return -ENOMEM;
	r.res = res;
	if (comm && comm->rank)
		progress = NULL; /* rank 0 reports */
	res->bin_ps = RUN_BIN_PS;
	e = new_hist(&job->output.hist, &res->msg_ns);
	e = e ?: new_hist(&job->output.hist, &res->step_ns);
	e = e ?: new_hist(&job->output.hist, &res->rtt_ns);
	if (e) {
		snprintf(err, errlen, "output.hist: %s", strerror(-e));
		goto agree;
	}
	e = mrc_job_srv6(job, &r.m, err, errlen);
	if (e)
		goto agree;
	r.nhosts = conf_fabric_hosts(&job->fabric);
	r.nranks = mrc_job_endpoints(job);
	r.vmode = run_vmode(job, r.nranks);
	res->nranks = r.nranks; /* the group's size once a collective is made */
	if (r.nranks < 2 || r.nranks > r.nhosts) {
		snprintf(err, errlen, "traffic.ranks: %u ranks on %u hosts", r.nranks, r.nhosts);
		e = -EINVAL;
		goto agree;
	}
	e = run_setup(&r, err, errlen);
	e = e ?: jobs_init(&r, err, errlen);
agree:
	e = comm ? rk_agree(comm, e, "another rank could not set the job up", err, errlen) : e;
	e = e ?: run_jobs(&r, progress, pctx, err, errlen);
	if (e)
		goto fail;
	if (res->n_jobs) { /* jobs[0] shows the top level's rows */
		res->jobs[0].sizes = res->sizes;
		res->jobs[0].n_sizes = res->n_sizes;
		res->jobs[0].iters = res->iters;
		res->jobs[0].n_iters = res->n_iters;
	}
	res->sim_end_ps = mrc_sim_now(r.sim);
	unfinished_background(&r);
	collect_faults(&r, r.cur_iter);
	routing_times(&r);
	not_applied(&r);
	/* the packets are done with: their memory goes back before the results are made */
	mrc_fabric_release_pool(r.fab);
#ifdef __GLIBC__
	malloc_trim(0); /* and leaves the process: free pages amid the heap too */
#endif
	if (r.nw > 1 && run_wk_merge(&r)) { /* the workers' first: a rank shares the sum */
		if (r.rk) /* the other ranks wait for its share */
			rk_die(&r, "results", -ENOMEM);
		e = -ENOMEM;
		snprintf(err, errlen, "results: out of memory");
		goto fail;
	}
	collect_stats(&r);
	if (comm && comm->rank) { /* its results went to rank 0 */
		e = 0;
		goto fail;
	}
	if (res->tx_encode_err)
		mrc_run_add_error(res,
			"encode: %llu packets could not be encoded and were never "
			"sent (%s)",
			(unsigned long long)res->tx_encode_err, r.encode_err_host);
	if (r.n_bad && (r.nw > 1 || r.rk)) /* the serial run's order, by time */
		qsort(r.bad_t, r.n_bad, sizeof(*r.bad_t), cmp_u64);
	mrc_fault_finish(r.res, r.bad_t, r.n_bad);
	/* a capture's last records are written now: a failure fails the run */
	for (size_t i = 0; i < r.n_taps; i++)
		if (!r.taps[i].failed && pcapw_flush(r.taps[i].w))
			mrc_run_add_error(res, "capture %s: %s", r.taps[i].point,
				pcapw_error(r.taps[i].w));
	clock_gettime(CLOCK_MONOTONIC, &w1);
	res->wall_s = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
	if (!getrusage(RUSAGE_SELF, &ru))
		res->peak_rss_bytes = (size_t)ru.ru_maxrss * 1024;
	e = 0;
	*out = res;
	res = NULL;
fail:
	if (e && r.claimed) { /* no report: the stub says how the run ended (best effort) */
		char e2[320];

		mrc_job_outdir_claim(job, err, e2, sizeof(e2));
	}
	run_teardown(&r);
	mrc_run_result_free(res);
	return e;
}

/* ---- sweep --------------------------------------------------------------------------- */

/* Asks host @host's sweep again at @t (unless an earlier ask is due). */
static void sweep_poll_at(struct run *r, uint32_t host, uint64_t t)
{
	if (t >= r->poll_at[host])
		return;
	r->poll_at[host] = t;
	if (mrc_sim_at_ent(r->sim, t, mrc_fabric_host_entity(r->fab, host), (unsigned)r->sweep_kind,
		    &r->hosts[host], t))
		run_fail(r, -ENOMEM, "sim: event queue full");
}

/* Host @obj's sweep: every request due now goes to its endpoint, then the next ask. */
static void on_sweep_poll(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct run *r = ctx;
	struct host *h = obj;
	struct mrc_sweep_probe pr;
	uint64_t t;

	if (arg != r->poll_at[h->idx]) /* superseded by an earlier one */
		return;
	r->poll_at[h->idx] = UINT64_MAX;
	while ((t = mrc_sweep_poll(r->sw, h->idx, now, &pr)) == 0) {
		int id = mrc_ep_ev_probe(h->ep, pr.peer, pr.ev, now);

		mrc_sweep_sent(r->sw, h->idx, &pr, id, now);
		if (id == -EBUSY) { /* the engine frees its slots lazily: a moment later */
			t = now + 1000000;
			break;
		}
	}
	timer_arm(h);
	if (t != UINT64_MAX) {
		sweep_poll_at(r, h->idx, t);
	} else if (mrc_sweep_host_done(r->sw, h->idx) &&
		   !__atomic_sub_fetch(&r->sweep_left, 1, __ATOMIC_RELAXED) && !r->rk) {
		/* every host done: nothing more to measure. From whichever worker saw the
		 * last host done: the run stops at the end of that window either way (over
		 * ranks, this rank's hosts only: the window hook agrees the end) */
		mrc_sim_stop(r->sim);
	}
}

/* Rank 0 merges rank @k's half of the sweep (@len bytes at @p, rk_sweep_gather's),
 * marking its hosts in @seen: 0, or -EPROTO with @err saying what did not fit. */
static int rk_sweep_take(struct run *r, unsigned k, const unsigned char *p, size_t len,
	bool *seen, char *err, size_t errlen)
{
	const unsigned char *end = p + len;

	while (p < end) {
		const void *body;
		uint64_t n;
		uint32_t h;

		if ((size_t)(end - p) < sizeof(h)) {
			snprintf(err, errlen, "mpirun: rank %u: its sweep results are cut short", k);
			return -EPROTO;
		}
		memcpy(&h, p, sizeof(h));
		p += sizeof(h);
		if (!share_part(&p, end, &body, &n)) {
			snprintf(err, errlen, "mpirun: rank %u: its sweep results are cut short", k);
			return -EPROTO;
		}
		if (h >= r->nhosts || mrc_fabric_host_rank(r->fab, h) != k || seen[h]) {
			snprintf(err, errlen, "mpirun: rank %u: a sweep result for h%u, not a host "
					      "of its own (or twice)", k, h);
			return -EPROTO;
		}
		seen[h] = true;
		if (mrc_sweep_merge(r->sw, h, body, n)) {
			snprintf(err, errlen, "mpirun: rank %u (h%u): a sweep result that does not "
					      "fit the plan", k, h);
			return -EPROTO;
		}
	}
	return 0;
}

/*
 * Ranks, once the sweep ended and every rank ran mrc_sweep_finish: each rank's half to
 * rank 0 in one exchange — for every host it runs, the host's number (uint32) and
 * mrc_sweep_encode's body (a uint64 length, then the sender records of its paths and the
 * receiver records of the paths to it) — merged there by mrc_sweep_merge. 0 on the other
 * ranks and when rank 0 merged a body for every other rank's host; else -EPROTO (a share
 * cut short, a host not of the rank that sent it or sent twice, a body that does not fit
 * the plan, a host missing) or -ENOMEM, with @err saying which.
 */
static int rk_sweep_gather(struct run *r, char *err, size_t errlen)
{
	const struct mrc_sim_comm *c = r->rk;
	const unsigned char *p;
	bool *seen;
	int e = 0;

	r->rk_send.n = 0;
	for (uint32_t h = 0; c->rank && h < r->nhosts && !e; h++) {
		uint8_t *b = NULL;
		size_t len = 0;
		uint64_t n;

		if (!r->local[h])
			continue;
		e = mrc_sweep_encode(r->sw, h, &b, &len);
		n = len;
		e = e ?: mrc_sim_buf_put(&r->rk_send, &h, sizeof(h));
		e = e ?: mrc_sim_buf_put(&r->rk_send, &n, sizeof(n));
		e = e ?: mrc_sim_buf_put(&r->rk_send, b, len);
		free(b);
	}
	if (e)
		rk_die(r, "the sweep's results for rank 0", e);
	rk_to_rank0(r, "the sweep's results for rank 0");
	if (r->rk_lost) { /* rk_lost said which */
		snprintf(err, errlen, "%s", r->errmsg);
		return -ECONNABORTED;
	}
	if (c->rank)
		return 0;
	seen = calloc(r->nhosts, sizeof(*seen));
	if (!seen) {
		snprintf(err, errlen, "mpirun: the sweep's results: out of memory");
		return -ENOMEM;
	}
	p = r->rk_recv.a;
	for (unsigned k = 0; k < c->ranks && !e; p += r->rk_rn[k], k++)
		e = rk_sweep_take(r, k, p, r->rk_rn[k], seen, err, errlen);
	for (uint32_t h = 0; !e && h < r->nhosts; h++) {
		if (!r->local[h] && !seen[h]) {
			snprintf(err, errlen, "mpirun: rank %u: no sweep result for h%u",
				mrc_fabric_host_rank(r->fab, h), h);
			e = -EPROTO;
		}
	}
	free(seen);
	return e;
}

int mrc_sweep_sim(const struct conf_job *job, const struct mrc_sim_comm *comm,
	struct mrc_sweep **out, uint64_t *end_ps, int *sig, char *err, size_t errlen)
{
	struct run r = { .job = job, .nw = 1, .rk = comm };
	uint64_t until, s;
	int e;

	*out = NULL;
	*end_ps = 0;
	*sig = 0;
	r.res = calloc(1, sizeof(*r.res));
	if (!r.res) {
		snprintf(err, errlen, "sweep: out of memory");
		e = -ENOMEM;
		goto agree;
	}
	r.res->bin_ps = RUN_BIN_PS;
	e = mrc_job_srv6(job, &r.m, err, errlen);
	if (e)
		goto agree;
	r.nhosts = r.nranks = conf_fabric_hosts(&job->fabric);
	e = mrc_sweep_new(job, &r.m, &r.sw, err, errlen);
	e = e ?: run_setup(&r, err, errlen);
	if (e)
		goto agree;
	e = mrc_sim_handler(r.sim, on_sweep_poll, &r);
	r.poll_at = calloc(r.nhosts, sizeof(*r.poll_at));
	if (e < 0 || !r.poll_at) {
		snprintf(err, errlen, "sim: sweep: %s", strerror(e < 0 ? -e : ENOMEM));
		e = e < 0 ? e : -ENOMEM;
		goto agree;
	}
	r.sweep_kind = e;
	e = 0;
	/* a sweep has no iterations: "at_iteration 0" is its start, later ones never come */
	for (size_t f = 0; f < job->n_faults && !e; f++)
		if (job->faults[f].has_at_iteration && job->faults[f].at_iteration == 0)
			e = fault_apply(&r, &job->faults[f], 0, true, err, errlen);
agree: /* over ranks every rank's set-up meets, failed or not */
	e = comm ? rk_agree(comm, e, "another rank could not set the sweep up", err, errlen) : e;
	if (e)
		goto out;
	for (uint32_t h = 0; h < r.nhosts; h++) {
		r.poll_at[h] = UINT64_MAX;
		if (!host_mine(&r, h)) /* its rank asks it */
			continue;
		r.sweep_left++;
		sweep_poll_at(&r, h, 0);
	}
	/* the last request leaves before max_time; its answer is due a timeout later */
	until = job->sweep.max_time_ps + job->sweep.timeout_ps + 1;
	mrc_sim_run(r.sim, until);
	*end_ps = mrc_sim_now(r.sim);
	e = r.err;
	if (e)
		snprintf(err, errlen, "%s", r.errmsg);
	e = comm ? rk_agree(comm, e, "another rank failed", err, errlen) : e;
	if (e)
		goto out;
	/* a signal to any rank stopped every rank (the interrupt is agreed each window): the
	 * lowest signal number any rank got */
	s = mrc_stop_signal ? (uint64_t)mrc_stop_signal : UINT64_MAX;
	if (comm && (e = comm->min(comm->ctx, &s, 1))) {
		if (!rk_lost(&r, e))
			rk_die(&r, "the ranks' agreement", e);
		snprintf(err, errlen, "%s", r.errmsg);
		goto out;
	}
	if (s != UINT64_MAX) {
		*sig = (int)s;
		snprintf(err, errlen, "interrupted by SIG%s at %.1f us",
			sigabbrev_np(*sig) ? sigabbrev_np(*sig) : "?", (double)*end_ps / 1e6);
		e = -EINTR;
		goto out;
	}
	mrc_sweep_finish(r.sw);
	e = comm ? rk_sweep_gather(&r, err, errlen) : 0;
	if (e || (comm && comm->rank)) /* its half went to rank 0 */
		goto out;
	for (size_t i = 0; i < r.n_taps; i++)
		if (!r.taps[i].failed && pcapw_flush(r.taps[i].w)) {
			snprintf(err, errlen, "capture %s: %s", r.taps[i].point,
				pcapw_error(r.taps[i].w));
			e = -EIO;
			goto out;
		}
	*out = r.sw;
	r.sw = NULL;
	e = 0;
out:
	free(r.poll_at);
	mrc_sweep_free(r.sw);
	run_teardown(&r);
	mrc_run_result_free(r.res);
	return e;
}
