/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wjobs: several jobs at once on the wire (traffic as a list; docs/wire-driver.md "Several
 * jobs"). Every rank makes every job's collectives (a rank outside a job has an empty
 * program in it) and exchanges their regions, one exchange each, before the run's start;
 * then each job this rank takes part in runs on the one loop with its own QP set (wr_qpn
 * set = the job's index) and its own barrier among its ranks: rank 0 decides when each
 * job arms, goes and ends (its start, after, gap) and tells that job's ranks (RV_JARM,
 * RV_JGO, RV_JEND); they answer (RV_JARMED, RV_JDONE, RV_JBG). A background job sends
 * open-loop from its JGO to its JEND, which rank 0 sends once every other job ended.
 */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/base/err.h"
#include "mrc/base/hist.h"
#include "mrc/base/rng.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Where rank 0 holds a job: waiting for the job it runs after, for its time (start, gap),
 * for its ranks' ARMED, their DONE, for its last gap phases; background: sending, told to
 * stop (JBG awaited). */
enum wj_state { WJ_BLOCKED, WJ_WAIT, WJ_ARMING, WJ_RUN, WJ_TAIL, WJ_BG, WJ_BGEND, WJ_DONE };

/* One collective of a job (a size): its regions' keys at every rank. */
struct wjc {
	struct mrc_coll *coll;
	uint32_t (*rkey)[MRC_REG_N]; /* [nranks] */
};

struct wjob {
	struct wr *w;
	uint32_t idx;
	const struct conf_traffic *t;
	bool bg, member;
	bool ready;		/* its tables exist (setup got to it): messages may name it */
	uint32_t *hosts, n_hosts; /* its ranks (hosts), in rank order */
	bool *in;		  /* [nranks]: host r takes part */
	struct mrc_job_coll_mem cmem;
	struct wjc *cs;		/* [n_cs]: one per size (phases: per collective phase) */
	size_t n_cs;
	uint32_t per_size, n_gi; /* warmup + iterations; rounds: iterations of every size */
	uint32_t nc;		/* traffic.phases: its collective phases (a round each), or 0 */
	/* this rank's side */
	uint32_t it;		/* the iteration it runs or awaits */
	uint32_t arm_of, go_of;	/* 1 + the iteration of the last JARM, JGO */
	bool armed, running, arming, measuring;
	uint64_t arm_ns, go_ns;
	struct deferred *defq;
	size_t n_def, cap_def;
	struct wr_done *own;	/* [n_gi] */
	/* background at this rank: its index among the hosts, the sink, the schedule */
	uint32_t g, *perm;
	struct mrc_rng rng;
	uint8_t *bg_buf;
	uint64_t *bg_va;	/* [nranks]: each rank's sink */
	uint64_t bg_bytes, bg_first_ps, bg_k;
	uint64_t bg_start_ps, bg_len_ps; /* its start (own clock), its window (JEND's) */
	bool bg_started, bg_on, bg_stop; /* JGO came; sending; JEND came */
	/* each try's outcome, by its slot k (its wr_id): BG_POSTED or BG_REFUSED, BG_DONE
	 * once completed; counted at JEND for the tries of its window only (a rank goes on
	 * sending on its own clock until the JEND comes) */
	uint8_t *bg_out;
	uint64_t bg_cap;
	uint64_t posted, completed, refused;
	/* rank 0 */
	enum wj_state st;
	uint32_t r0_it;		/* the iteration rank 0 runs the barrier of */
	long after;
	uint64_t ready_ns, start_ns, end_ns;
	uint64_t arm_ns0;	/* when it sent the JARM of r0_it */
	bool *got;		/* [nranks] */
	struct wr_done *dtab;	/* [n_gi * nranks] */
	struct mrc_run_iter *iters;
	size_t n_iters;
	struct mrc_run_size *sizes;
	size_t n_sizes;
	bool started, finished;
	uint64_t sum_posted, sum_completed, sum_refused;
};

struct wj {
	struct wjob *jobs;
	size_t n;
	bool *local;		/* [nranks]: this rank's (the collectives keep it) */
	uint64_t t0_ns;		/* the run's start: the last region exchange */
	uint64_t tick_ns;	/* rank 0: when it next sends every rank RV_JTICK */
	bool progress;		/* something happened in the last turn */
};

/* The collective (cs[]) of round @it: its size's, or (phases) its collective phase's. */
static uint32_t round_cs(const struct wjob *j, uint32_t it)
{
	return j->nc ? it % j->nc : it / j->per_size;
}

/* Round @it's iteration within its size (phases: its step), warmup counted. */
static uint32_t round_iter(const struct wjob *j, uint32_t it)
{
	return j->nc ? it / j->nc : it % j->per_size;
}

/* What rank 0 waits before round @it of @j (@it = n_gi: before the job's end), ps:
 * traffic.gap between iterations; with phases (as run_phases on one job) the gap phases
 * between the previous collective phase and this one, and at a step's start the previous
 * step's last gap phases, traffic.gap and its own first ones. */
static uint64_t gap_before(const struct wjob *j, uint32_t it)
{
	const struct conf_traffic *t = j->t;
	uint64_t ps;

	if (!j->nc)
		return it && it < j->n_gi ? t->gap_ps : 0;
	if (it % j->nc || !it)
		return wr_phase_gaps(t, it % j->nc);
	ps = wr_phase_gaps(t, j->nc);
	return it == j->n_gi ? ps : ps + t->gap_ps + wr_phase_gaps(t, 0);
}

/* ---- messages ------------------------------------------------------------------------ */

/* Sends @type with job @j's index and @body to rank @to; rank 0 hands its own to itself. */
static int wj_send(struct wr *w, struct wjob *j, uint32_t to, uint8_t type, const void *body,
	size_t len)
{
	uint8_t b[4 + 32];
	struct rv_msg m = { .type = type, .body = b, .len = 4 + len };

	put_be32(b, j->idx);
	if (len)
		memcpy(b + 4, body, len);
	if (to == w->rank && w->rank == 0) {
		char why[200];

		if (!wr_jobs_on_msg(w, 0, &m, why, sizeof(why)))
			return 0;
		wr_fail(w, -EPROTO, "h0: its own message: %s", why);
		return w->err;
	}
	return wr_rv_send(w, &w->conns[w->rank ? 0 : to], type, b, 4 + len);
}

/* Rank 0: @type with iteration @it to every rank of @j (@all: every rank). */
static int wj_bcast(struct wr *w, struct wjob *j, uint8_t type, uint32_t it, bool all)
{
	uint8_t b[4];

	put_be32(b, it);
	for (uint32_t r = 0; r < w->nranks; r++)
		if ((all || j->in[r]) && wj_send(w, j, r, type, b, 4))
			return w->err;
	return 0;
}

/* The first job's GO at every rank: the timeline the EV retirements and the endpoint
 * faults' at_iteration count by (docs/config.md "Several jobs"). */
static void first_go(struct wr *w, struct wjob *j, uint32_t it)
{
	uint32_t in_size = round_iter(j, it);
	bool warm = in_size < j->t->warmup;

	w->go_ns = wr_mono_ns();
	w->cur_iter = it;
	w->measured_iter = warm ? 0 : in_size - j->t->warmup;
	/* with phases, at_iteration fires at a step's first phase */
	wr_epf_go(w, false, !warm && (!j->nc || it % j->nc == 0), w->go_ns);
}

/* Message @type's name (the several jobs' protocol), for a refusal's reason. */
static const char *jmsg_name(uint8_t type)
{
	static const char *const names[] = { "JARM", "JARMED", "JGO", "JDONE", "JEND", "JBG",
		"JTICK" };

	return type >= RV_JARM && type <= RV_JTICK ? names[type - RV_JARM] : "message";
}

/* A refused message: -EPROTO, the reason (printf-style) in @why. */
#define refuse(why, whylen, ...) (mrc_errf(why, whylen, __VA_ARGS__), -EPROTO)

/* What rank 0's barrier of @j awaits from its ranks now, for a refusal's reason. */
static const char *r0_awaits(const struct wjob *j)
{
	return j->st == WJ_ARMING ? "JARMED" : j->st == WJ_RUN ? "JDONE" :
	       j->st == WJ_BGEND ? "JBG" : "nothing";
}

int wr_jobs_on_msg(struct wr *w, uint32_t from, const struct rv_msg *m, char *why,
	size_t whylen)
{
	struct wj *wj = w->wj;
	const uint8_t *b = m->body;
	const char *nm = jmsg_name(m->type);
	size_t need;
	struct wjob *j;
	uint32_t it;

	if (m->len < 4)
		return refuse(why, whylen, "a %zu-byte %s, without its job", m->len, nm);
	/* setup() exchanges job by job, taking messages meanwhile: a later job has no tables */
	if (get_be32(b) >= wj->n || !wj->jobs[get_be32(b)].ready)
		return refuse(why, whylen, "%s of job %u, not set up (%zu jobs)", nm, get_be32(b),
			wj->n);
	j = &wj->jobs[get_be32(b)];
	need = m->type == RV_JTICK ? 4 : m->type == RV_JEND ? 12 : m->type == RV_JDONE ?
	       4 + WR_DONE_LEN : m->type == RV_JBG ? 28 : 8;
	if (m->len < need)
		return refuse(why, whylen, "job %s: a %zu-byte %s, %zu expected", j->t->name,
			m->len, nm, need);
	it = m->len >= 8 ? get_be32(b + 4) : 0;
	wj->progress = true;
	switch (m->type) {
	case RV_JARM: /* at a rank of the job, the iteration it awaits (after its last: none) */
	case RV_JGO: /* a background job's: iteration 0, once */
		if (!j->member && (m->type == RV_JARM || j->idx))
			return refuse(why, whylen, "job %s: %s at h%u, not one of its ranks",
				j->t->name, nm, w->rank);
		if (j->bg && (m->type == RV_JARM || it))
			return refuse(why, whylen, "job %s: %s of iteration %u of a background job "
				"(JGO of iteration 0 only)", j->t->name, nm, it);
		if (j->bg && j->go_of)
			return refuse(why, whylen, "job %s: a second JGO", j->t->name);
		if (!j->bg && it >= j->n_gi)
			return refuse(why, whylen, "job %s: %s of iteration %u, past its last (%u)",
				j->t->name, nm, it, j->n_gi ? j->n_gi - 1 : 0);
		if (!j->bg && j->member && (it != j->it || j->armed != (m->type == RV_JGO)))
			return refuse(why, whylen, "job %s: %s of iteration %u out of protocol "
				"order (this rank awaits iteration %u's %s)", j->t->name, nm, it,
				j->it, j->armed ? "JGO" : "JARM");
		if (m->type == RV_JARM) {
			j->arm_of = it + 1;
			return 0;
		}
		if (j->idx == 0 && !j->bg)
			first_go(w, j, it);
		j->go_of = it + 1;
		return 0;
	case RV_JTICK: /* rank 0 lives: this rank waits on (a host in no running job) */
		return w->rank ? 0 : refuse(why, whylen, "JTICK at rank 0, which sends it");
	case RV_JEND: /* the window's length on rank 0's clock: this rank offers as long */
		if (!j->bg || !j->member)
			return refuse(why, whylen, "job %s: JEND at h%u, not a rank of a "
				"background job", j->t->name, w->rank);
		if (!j->go_of || j->bg_stop)
			return refuse(why, whylen, "job %s: %s (out of protocol order)", j->t->name,
				j->bg_stop ? "a second JEND" : "JEND before the job's JGO");
		j->bg_len_ps = get_be64(b + 4);
		j->bg_stop = true;
		return 0;
	}
	/* rank 0: from a rank of the job, what its state awaits */
	if (w->rank || from >= w->nranks || !j->in[from])
		return refuse(why, whylen, "job %s: %s from h%u to h%u, not from one of its ranks "
			"to rank 0", j->t->name, nm, from, w->rank);
	switch (m->type) {
	case RV_JARMED:
		if (j->st != WJ_ARMING || it != j->r0_it)
			break;
		j->got[from] = true;
		return 0;
	case RV_JDONE:
		if (j->st != WJ_RUN || it != j->r0_it)
			break;
		wr_done_decode(&j->dtab[(size_t)it * w->nranks + from], b + 4, m->len - 4);
		j->got[from] = true;
		return 0;
	case RV_JBG:
		if (j->st != WJ_BGEND || j->got[from])
			break;
		j->sum_posted += get_be64(b + 4);
		j->sum_completed += get_be64(b + 12);
		j->sum_refused += get_be64(b + 20);
		j->got[from] = true;
		return 0;
	default:
		return refuse(why, whylen, "message type %u, none of the several jobs'", m->type);
	}
	if (m->type == RV_JBG && j->got[from])
		return refuse(why, whylen, "job %s: a second JBG from h%u", j->t->name, from);
	if (m->type == RV_JBG)
		return refuse(why, whylen, "job %s: JBG from h%u out of protocol order (rank 0 "
			"awaits %s)", j->t->name, from, r0_awaits(j));
	return refuse(why, whylen, "job %s: %s of iteration %u from h%u out of protocol order "
		"(rank 0 awaits %s of iteration %u)", j->t->name, nm, it, from, r0_awaits(j),
		j->r0_it);
}

/* ---- the endpoint's completions ------------------------------------------------------ */

static struct wjob *job_of_qpn(struct wr *w, uint32_t qpn)
{
	uint32_t set = qpn ? (qpn - 1) / (w->nranks - 1) : 0;

	return set < w->wj->n ? &w->wj->jobs[set] : NULL;
}

static struct mrc_coll *cur_coll(struct wjob *j)
{
	return j->cs && j->it < j->n_gi ? j->cs[round_cs(j, j->it)].coll : NULL;
}

enum { BG_POSTED = 1, BG_REFUSED = 2, BG_DONE = 4 };

/* Background try @k's outcome @o (BG_*), added to what it had. */
static void bg_mark(struct wjob *j, uint64_t k, uint8_t o)
{
	if (k < j->bg_cap)
		j->bg_out[k] = (uint8_t)((o == BG_REFUSED ? 0 : j->bg_out[k]) | o);
}

void wr_jobs_send_done(struct wr *w, uint32_t qpn, uint64_t wr_id, uint64_t now)
{
	struct wjob *j = job_of_qpn(w, qpn);
	struct mrc_coll *c = j ? cur_coll(j) : NULL;
	int err;

	if (j && j->bg) {
		bg_mark(j, wr_id, BG_DONE);
		return;
	}
	if (!c) {
		wr_fail(w, -EPROTO, "h%u: send completion on QP %u of no job", w->rank, qpn);
		return;
	}
	if (j->measuring)
		wr_msg_latency(w, c, wr_id, j->go_ns, now);
	err = mrc_coll_on_send_done(c, w->rank, wr_id, now);
	if (err)
		wr_fail(w, err, "h%u: job %s: send completion %llu: %s", w->rank, j->t->name,
			(unsigned long long)wr_id, strerror(-err));
}

bool wr_jobs_post_failed(struct wr *w, uint32_t qpn, uint64_t wr_id, int status)
{
	struct wjob *j = job_of_qpn(w, qpn);

	if (!j || !j->bg || status != -EAGAIN || wr_id >= j->bg_k)
		return false;
	bg_mark(j, wr_id, BG_REFUSED); /* posted when lane 0 handed it over: refused now */
	return true;
}

int wr_jobs_recv(struct wr *w, uint32_t qpn, uint32_t imm, uint64_t now)
{
	struct wjob *j = job_of_qpn(w, qpn);
	struct mrc_coll *c = j && !j->bg ? cur_coll(j) : NULL;

	return c ? mrc_coll_on_recv(c, w->rank, w->peer_of_qpn[qpn], imm, now) : -EPROTO;
}

/* mrc_coll_ops.post of a job: held back while it arms, else on the job's QP now. */
static int wj_post(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x, const void *src,
	uint64_t va, uint32_t imm, uint64_t wr_id)
{
	struct wjob *j = ctx;
	struct wr *w = j->w;

	(void)rank;
	if (!j->arming)
		return wr_post_qp(w, wr_qpn(w, j->idx, x->peer), src, x->len, va,
			j->cs[round_cs(j, j->it)].rkey[x->peer][x->dst_reg], true, imm, wr_id);
	return wr_defer(&j->defq, &j->n_def, &j->cap_def, x, src, va, imm, wr_id);
}

static const struct mrc_coll_ops wj_cops = { wj_post };

/* ---- setup ---------------------------------------------------------------------------- */

/* Background job @j: its hosts and permutation (mrc_job_bg_init, as the simulator's), this
 * rank's sink of one message (real bytes, zeros) and every rank's key and VA of it
 * (region exchange @k). */
static int bg_setup(struct wr *w, struct wjob *j, uint32_t k, char *err, size_t errlen)
{
	uint8_t mine[MRC_REG_N * 12] = { 0 };
	long n;

	j->perm = calloc(w->nranks, sizeof(*j->perm));
	j->bg_va = calloc(w->nranks, sizeof(*j->bg_va));
	j->cs = calloc(1, sizeof(*j->cs));
	if (!j->perm || !j->bg_va || !j->cs)
		return -ENOMEM;
	n = mrc_job_bg_init(w->job, j->t, j->idx, j->hosts, j->perm, w->nranks, &j->rng);
	if (n < 2) { /* mrc_job_bg_init: -EINVAL for fewer than 2 hosts or more than the ranks */
		snprintf(err, errlen, "job %s: background: its hosts over %u ranks: %s (2 to %u)",
			j->t->name, w->nranks, strerror(n < 0 ? (int)-n : EINVAL), w->nranks);
		return -EINVAL;
	}
	j->n_hosts = (uint32_t)n;
	/* uniform: each rank draws its own, as the simulator's host does */
	mrc_job_bg_host_rng(w->job, j->idx, w->rank, &j->rng);
	j->bg_bytes = j->t->sizes.list[0];
	for (uint32_t g = 0; g < j->n_hosts; g++) {
		j->in[j->hosts[g]] = true;
		if (j->hosts[g] == w->rank)
			j->g = g;
	}
	j->member = j->in[w->rank];
	j->n_cs = 1;
	j->cs[0].rkey = calloc(w->nranks, sizeof(*j->cs[0].rkey));
	if (!j->cs[0].rkey)
		return -ENOMEM;
	if (j->member) {
		uint32_t key = 0;

		j->bg_buf = calloc(1, j->bg_bytes);
		if (!j->bg_buf)
			return -ENOMEM;
		wr_lanes_park(w);
		wr_reg_all(w, j->bg_buf, j->bg_bytes, &key, 0);
		wr_lanes_unpark(w);
		if (w->err)
			return w->err;
		put_be64(mine, (uint64_t)(uintptr_t)j->bg_buf);
		put_be32(mine + 8, key);
	}
	/* rank 0's own row of the table it sends: this exchange's, not an earlier one's */
	memset(w->mrtab_va[w->rank], 0, sizeof(w->mrtab_va[w->rank]));
	memset(w->peer_rkey[w->rank], 0, sizeof(w->peer_rkey[w->rank]));
	w->mrtab_va[w->rank][0] = (uint64_t)(uintptr_t)j->bg_buf;
	w->peer_rkey[w->rank][0] = get_be32(mine + 8);
	if (w->boot->mrs(w, k, mine))
		return w->err;
	memcpy(j->cs[0].rkey, w->peer_rkey, w->nranks * sizeof(*w->peer_rkey));
	for (uint32_t r = 0; r < w->nranks; r++)
		j->bg_va[r] = w->mrtab_va[r][0];
	return 0;
}

/* Collective job @j: each size's (traffic.phases: each collective phase's) collective over
 * its hosts (every rank makes it, empty outside them) and its regions' exchange (@k on);
 * rank 0 its size rows (phases: a row per collective phase, folded into steps at the end,
 * as on one job) and tables. */
static int coll_setup(struct wr *w, struct wjob *j, bool *local, uint32_t *k, bool rank0,
	char *err, size_t errlen)
{
	const struct conf_phase *phs[64];
	uint64_t sizes[64];
	size_t n = conf_sizes_expand(&j->t->sizes, sizes, 64);
	int e = 0;

	for (size_t p = 0; p < j->t->n_phases && j->nc < 64; p++)
		if (!j->t->phases[p].has_gap)
			phs[j->nc++] = &j->t->phases[p];
	if (j->nc) {
		n = j->nc;
		j->per_size = j->t->warmup + j->t->iterations; /* the steps */
	}
	if (n > 64) {
		snprintf(err, errlen, "job %s: traffic.sizes: %zu sizes, at most 64", j->t->name, n);
		return -E2BIG;
	}
	j->cs = calloc(n, sizeof(*j->cs));
	j->n_gi = (uint32_t)n * j->per_size; /* phases: steps x collective phases */
	j->own = calloc(j->n_gi + 1, sizeof(*j->own));
	if (rank0) {
		j->sizes = calloc(n, sizeof(*j->sizes));
		j->iters = calloc(j->n_gi + 1, sizeof(*j->iters));
		j->dtab = calloc((size_t)j->n_gi * w->nranks + 1, sizeof(*j->dtab));
	}
	if (!j->cs || !j->own || (rank0 && (!j->sizes || !j->iters || !j->dtab)))
		return -ENOMEM;
	for (size_t s = 0; s < n && !e; s++) {
		struct mrc_coll_params cp;

		e = wr_wire_coll(w, j->t, NULL, j->nc ? phs[s] : NULL, j->nc ? 0 : sizes[s], local,
			&j->cmem, &cp, &wj_cops, j, &j->cs[s].coll, err, errlen);
		if (e)
			break;
		j->n_cs++;
		if (s == 0) { /* its ranks: the collective's members */
			j->n_hosts = cp.nranks;
			for (uint32_t g = 0; g < cp.nranks; g++) {
				j->hosts[g] = cp.members ? cp.members[g] : g;
				j->in[j->hosts[g]] = true;
			}
			j->member = j->in[w->rank];
		}
		j->cs[s].rkey = calloc(w->nranks, sizeof(*j->cs[s].rkey));
		if (!j->cs[s].rkey)
			return -ENOMEM;
		if (rank0) {
			e = wr_size_row(w, j->cs[s].coll, &cp, &j->sizes[j->n_sizes++]);
			if (e)
				break;
		}
		w->coll = j->cs[s].coll;
		e = wr_exchange_mrs(w, (*k)++);
		w->coll = NULL;
		memcpy(j->cs[s].rkey, w->peer_rkey, w->nranks * sizeof(*w->peer_rkey));
	}
	return e;
}

static int setup(struct wr *w, bool rank0, char *err, size_t errlen)
{
	struct wj *wj = calloc(1, sizeof(*wj));
	uint32_t k = 0;
	int e = 0;

	w->wj = wj;
	if (!wj || !(wj->local = calloc(w->nranks, sizeof(bool))) ||
		!(wj->jobs = calloc(conf_jobs(w->job), sizeof(*wj->jobs))))
		return -ENOMEM;
	wj->n = conf_jobs(w->job);
	wj->local[w->rank] = true;
	for (size_t i = 0; i < wj->n && !e; i++) {
		struct wjob *j = &wj->jobs[i];

		j->w = w;
		j->idx = (uint32_t)i;
		j->t = conf_job_traffic(w->job, i);
		j->bg = j->t->pattern == CONF_PAT_BACKGROUND;
		j->per_size = j->t->warmup + j->t->iterations;
		j->after = -1;
		for (size_t a = 0; j->t->after[0] && a < wj->n; a++)
			if (!strcmp(conf_job_traffic(w->job, a)->name, j->t->after))
				j->after = (long)a;
		j->st = j->after >= 0 ? WJ_BLOCKED : WJ_WAIT;
		j->hosts = calloc(w->nranks, sizeof(*j->hosts));
		j->in = calloc(w->nranks, sizeof(*j->in));
		j->got = calloc(w->nranks, sizeof(*j->got));
		if (!j->hosts || !j->in || !j->got) {
			e = -ENOMEM;
			break;
		}
		/* from here a message may name it: in[] says whose it takes (none until its
		 * ranks are known), rank 0's state which (none until the run) */
		j->ready = true;
		e = j->bg ? bg_setup(w, j, k++, err, errlen) :
			    coll_setup(w, j, wj->local, &k, rank0, err, errlen);
	}
	if (e == -ENOMEM && !w->err)
		snprintf(err, errlen, "several jobs: %s", strerror(ENOMEM));
	else if (e && w->err)
		snprintf(err, errlen, "%s", w->errmsg);
	return e;
}

/* ---- this rank's side: arm, go, done; background sends ------------------------------- */

static int arm(struct wr *w, struct wjob *j)
{
	struct mrc_coll *c = cur_coll(j);
	uint8_t b[4];
	int e;

	if (!c) { /* wr_jobs_on_msg admits no JARM past the job's last iteration */
		wr_fail(w, -EPROTO, "h%u: job %s: arm of iteration %u, after its last", w->rank,
			j->t->name, j->it);
		return w->err;
	}
	j->arming = true;
	j->n_def = 0;
	j->arm_ns = wr_mono_ns();
	e = mrc_coll_start(c, j->it, j->arm_ns * 1000);
	j->arming = false;
	if (e) {
		wr_fail(w, e, "job %s: collective: start of iteration %u: %s", j->t->name, j->it,
			strerror(-e));
		return e;
	}
	j->armed = true;
	put_be32(b, j->it);
	return wj_send(w, j, 0, RV_JARMED, b, 4);
}

static int go(struct wr *w, struct wjob *j)
{
	uint32_t in_size = round_iter(j, j->it);

	j->running = true;
	j->go_ns = wr_mono_ns();
	j->measuring = in_size >= j->t->warmup;
	return wr_post_deferred(w, &wj_cops, j, j->defq, &j->n_def, j->t->name);
}

static int done(struct wr *w, struct wjob *j)
{
	struct mrc_coll *c = cur_coll(j);
	uint8_t b[WR_DONE_LEN];

	if (!c) {
		wr_fail(w, -EPROTO, "h%u: job %s: end of iteration %u, after its last", w->rank,
			j->t->name, j->it);
		return w->err;
	}
	wr_own_row(w, j->t, c, j->it, j->measuring, (j->go_ns - j->arm_ns) * 1000,
		&j->own[j->it]);
	wr_done_encode(&j->own[j->it], j->it, b);
	j->running = j->armed = j->measuring = false;
	j->it++;
	return wj_send(w, j, 0, RV_JDONE, b, sizeof(b));
}

/* A background rank's messages due by now (told to stop: by the end of its window): each
 * to a random other host of the job (or its partner), refused (counted) when the QP's send
 * queue is full, as on the simulator. */
static void bg_send(struct wr *w, struct wjob *j, uint64_t now_ps)
{
	if (j->bg_stop && now_ps > j->bg_start_ps + j->bg_len_ps)
		now_ps = j->bg_start_ps + j->bg_len_ps;
	while (mrc_job_bg_at(j->bg_first_ps, j->bg_bytes, j->t->rate_bps, j->bg_k, 1) <= now_ps &&
	       !w->err) {
		uint32_t d = j->hosts[mrc_job_bg_dest((int)j->t->mode, j->perm, &j->rng,
			j->n_hosts, j->g)];
		int e;

		if (j->bg_k == j->bg_cap) {
			uint64_t cap = j->bg_cap ? 2 * j->bg_cap : 1024;
			uint8_t *o = realloc(j->bg_out, cap);

			if (!o) {
				wr_fail(w, -ENOMEM, "job %s: background: out of memory", j->t->name);
				return;
			}
			memset(o + j->bg_cap, 0, cap - j->bg_cap);
			j->bg_out = o;
			j->bg_cap = cap;
		}
		e = wr_post_qp(w, wr_qpn(w, j->idx, d), j->bg_buf, j->bg_bytes, j->bg_va[d],
			j->cs[0].rkey[d][0], false, 0, j->bg_k);
		if (e == -EAGAIN || e == -EBUSY) /* a full send queue, or another thread's ring */
			bg_mark(j, j->bg_k, BG_REFUSED);
		else if (e)
			wr_fail(w, e, "job %s: h%u: background write to h%u: %s", j->t->name,
				w->rank, d, strerror(-e));
		else
			bg_mark(j, j->bg_k, BG_POSTED);
		j->bg_k++;
	}
}

/* The tries of this rank's window (slots up to its start + the JEND's length): posted,
 * completed by now, refused. */
static void bg_count(struct wjob *j)
{
	uint64_t end = j->bg_start_ps + j->bg_len_ps;

	j->posted = j->completed = j->refused = 0;
	for (uint64_t k = 0; k < j->bg_k && k < j->bg_cap; k++) {
		if (mrc_job_bg_at(j->bg_first_ps, j->bg_bytes, j->t->rate_bps, k, 1) > end)
			break;
		j->posted += (j->bg_out[k] & BG_POSTED) != 0;
		j->completed += (j->bg_out[k] & BG_DONE) != 0;
		j->refused += (j->bg_out[k] & BG_REFUSED) != 0;
	}
}

/* This rank's jobs: what their messages allow now. */
static void rank_step(struct wr *w)
{
	struct wj *wj = w->wj;
	uint64_t now_ps = wr_mono_ns() * 1000;

	for (size_t i = 0; i < wj->n && !w->err; i++) {
		struct wjob *j = &wj->jobs[i];

		if (!j->member)
			continue;
		if (j->bg) {
			if (j->go_of && !j->bg_started) { /* host g starts g/n late */
				j->bg_started = j->bg_on = true;
				j->bg_start_ps = now_ps;
				j->bg_first_ps = mrc_job_bg_at(now_ps, j->bg_bytes, j->t->rate_bps,
					j->g, j->n_hosts);
			}
			if (j->bg_on)
				bg_send(w, j, now_ps);
			if (j->bg_on && j->bg_stop && now_ps >= j->bg_start_ps + j->bg_len_ps) {
				uint8_t b[24];

				bg_count(j);
				put_be64(b, j->posted);
				put_be64(b + 8, j->completed);
				put_be64(b + 16, j->refused);
				j->bg_on = false; /* said once */
				wj_send(w, j, 0, RV_JBG, b, sizeof(b));
			}
			continue;
		}
		if (j->arm_of == j->it + 1 && !j->armed && arm(w, j))
			return;
		if (j->go_of == j->it + 1 && j->armed && !j->running && go(w, j))
			return;
		if (j->running && cur_coll(j) && mrc_coll_done(cur_coll(j))) {
			wj->progress = true;
			if (done(w, j))
				return;
		}
	}
}

/* ---- rank 0: the jobs' barriers, start, after, gap ---------------------------------- */

static bool all_got(struct wr *w, const struct wjob *j)
{
	for (uint32_t r = 0; r < w->nranks; r++)
		if (j->in[r] && !j->got[r])
			return false;
	return true;
}

static uint64_t ps_since(const struct wj *wj, uint64_t ns)
{
	return (ns - wj->t0_ns) * 1000;
}

/* Rank 0: job @j's row of round r0_it, from @ns on its clock: incomplete until its ranks'
 * DONE came (docs/report.md: no CCT in the iteration the job failed in). */
static void r0_row(struct wj *wj, struct wjob *j, uint64_t ns)
{
	uint32_t in_size = round_iter(j, j->r0_it);

	j->iters[j->n_iters++] = (struct mrc_run_iter){ .size_idx = round_cs(j, j->r0_it),
		.iter = j->r0_it, .warmup = in_size < j->t->warmup,
		.measured = in_size < j->t->warmup ? 0 : in_size - j->t->warmup,
		.start_ps = ps_since(wj, ns), .incomplete = true };
}

static void r0_step(struct wr *w)
{
	struct wj *wj = w->wj;
	uint64_t now = wr_mono_ns();
	bool fg_done = true;

	for (size_t i = 0; i < wj->n; i++)
		fg_done &= wj->jobs[i].bg || wj->jobs[i].st == WJ_DONE;
	/* a rank may wait longer than the timeout for its next job's messages, or (in no job
	 * still to run) for FINISH: rank 0 tells it that it lives; not progress at rank 0,
	 * whose own timeout still bounds a job that stalls */
	if (now >= wj->tick_ns) {
		wj->tick_ns = now + w->timeout_ns / 4;
		for (uint32_t r = 1; r < w->nranks && !w->err; r++)
			wj_send(w, &wj->jobs[0], r, RV_JTICK, NULL, 0);
	}
	for (size_t i = 0; i < wj->n && !w->err; i++) {
		struct wjob *j = &wj->jobs[i];

		switch (j->st) {
		case WJ_BLOCKED:
			if (wj->jobs[j->after].st != WJ_DONE)
				break;
			j->ready_ns = wj->jobs[j->after].end_ns + (j->t->start_ps +
				      gap_before(j, 0)) / 1000;
			j->st = WJ_WAIT;
			wj->progress = true;
			break;
		case WJ_WAIT:
			if (j->bg && fg_done) { /* the others ended before it began: no window */
				j->st = WJ_DONE;
				break;
			}
			if (now < j->ready_ns)
				break;
			wj->progress = true;
			memset(j->got, 0, w->nranks * sizeof(*j->got));
			if (j->bg) {
				j->started = true;
				j->start_ns = now;
				j->st = WJ_BG;
				wj_bcast(w, j, RV_JGO, 0, false);
				break;
			}
			j->st = WJ_ARMING;
			j->arm_ns0 = now;
			wj_bcast(w, j, RV_JARM, j->r0_it, false);
			break;
		case WJ_ARMING:
			if (!all_got(w, j))
				break;
			wj->progress = true;
			memset(j->got, 0, w->nranks * sizeof(*j->got));
			r0_row(wj, j, now);
			if (!j->started) {
				j->started = true;
				j->start_ns = now;
			}
			j->st = WJ_RUN;
			wj_bcast(w, j, RV_JGO, j->r0_it, j->idx == 0);
			break;
		case WJ_RUN:
			if (!all_got(w, j))
				break;
			wj->progress = true;
			j->iters[j->n_iters - 1].incomplete = false;
			j->ready_ns = now + gap_before(j, ++j->r0_it) / 1000;
			j->st = j->r0_it == j->n_gi ? WJ_TAIL : WJ_WAIT;
			break;
		case WJ_TAIL: /* its last step's gap phases */
			if (now < j->ready_ns)
				break;
			wj->progress = true;
			j->st = WJ_DONE;
			j->finished = true;
			j->end_ns = now;
			break;
		case WJ_BG:
			if (!fg_done)
				break;
			wj->progress = true;
			j->end_ns = now;
			j->st = WJ_BGEND;
			for (uint32_t r = 0; r < w->nranks && !w->err; r++) {
				uint8_t b[8];

				put_be64(b, (now - j->start_ns) * 1000);
				if (j->in[r])
					wj_send(w, j, r, RV_JEND, b, 8);
			}
			break;
		case WJ_BGEND:
			if (!all_got(w, j))
				break;
			j->finished = true;
			j->st = WJ_DONE;
			break;
		case WJ_DONE:
			break;
		}
	}
}

static bool all_done(const struct wj *wj)
{
	for (size_t i = 0; i < wj->n; i++)
		if (wj->jobs[i].st != WJ_DONE)
			return false;
	return true;
}

/* One turn's work; true when something happened or the run is over (rank 0: every job
 * ended; the others: FINISH came). */
static bool turn(struct wr *w)
{
	struct wj *wj = w->wj;

	rank_step(w);
	if (!w->rank)
		r0_step(w);
	if (w->rank ? w->got_finish : all_done(wj))
		return true;
	if (wj->progress) {
		wj->progress = false;
		return true;
	}
	return false;
}

/* The background ranks' next message, for the loop's wait. */
static uint64_t jobs_tick(struct wr *w)
{
	struct wj *wj = w->wj;
	uint64_t next = UINT64_MAX, now_ps = wr_mono_ns() * 1000;

	for (size_t i = 0; i < wj->n; i++) {
		struct wjob *j = &wj->jobs[i];
		uint64_t t;

		if (j->bg && j->bg_on) {
			bg_send(w, j, now_ps);
			t = mrc_job_bg_at(j->bg_first_ps, j->bg_bytes, j->t->rate_bps, j->bg_k, 1);
			if (t / 1000 < next)
				next = t / 1000;
		}
		if (!w->rank && (j->st == WJ_WAIT || j->st == WJ_TAIL) && j->ready_ns < next)
			next = j->ready_ns;
	}
	if (!w->rank && wj->tick_ns < next)
		next = wj->tick_ns;
	return next;
}

/* ---- rank 0: the report ------------------------------------------------------------- */

/* Rank 0, job @j of rows (sizes; phases: collective phases) that did not finish: a row
 * with fewer rounds ended than its per_size is incomplete (no time, docs/report.md), also
 * when it never ran; without phases the sizes it never reached are left out, as one job's
 * run never makes them (the first stays). */
static void unfinished_rows(struct wjob *j)
{
	uint32_t ended[64] = { 0 }; /* coll_setup: at most 64 rows */
	size_t last = 0;

	for (size_t k = 0; k < j->n_iters; k++) {
		const struct mrc_run_iter *ri = &j->iters[k];

		if (ri->size_idx >= j->n_sizes)
			continue;
		ended[ri->size_idx] += !ri->incomplete;
		if (ri->size_idx > last)
			last = ri->size_idx;
	}
	for (size_t s = 0; s < j->n_sizes; s++)
		j->sizes[s].incomplete |= ended[s] < j->per_size;
	while (!j->nc && j->n_sizes > last + 1) {
		struct mrc_run_size *rs = &j->sizes[--j->n_sizes];

		mrc_hist_free(rs->cct_ns);
		free(rs->pairs);
		memset(rs, 0, sizeof(*rs));
	}
}

/* Rank 0, job @j that did not finish: a round it failed in while arming gets its row, as
 * one it failed in while running (no time; from its JARM); then unfinished_rows. */
static void failed_rows(struct wj *wj, struct wjob *j)
{
	if (j->st == WJ_ARMING)
		r0_row(wj, j, j->arm_ns0);
	unfinished_rows(j);
}

static int fill_jobs(struct wr *w, struct mrc_run_result *res)
{
	struct wj *wj = w->wj;

	res->jobs = calloc(wj->n, sizeof(*res->jobs));
	if (!res->jobs)
		return -ENOMEM;
	res->n_jobs = wj->n;
	for (size_t i = 0; i < wj->n; i++) {
		struct wjob *j = &wj->jobs[i];
		struct mrc_run_job *rj = &res->jobs[i];

		if (!j->t) /* the run failed in setting up an earlier job */
			continue;
		snprintf(rj->name, sizeof(rj->name), "%s", j->t->name);
		rj->nranks = j->n_hosts;
		rj->started = j->started;
		rj->finished = j->finished;
		rj->start_ps = j->started ? ps_since(wj, j->start_ns) : 0;
		rj->end_ps = j->finished ? ps_since(wj, j->end_ns) : 0;
		if (j->bg) {
			rj->background = true;
			rj->bg_rate_bps = j->t->rate_bps;
			rj->bg_msg_bytes = j->bg_bytes;
			rj->bg_mode = (int)j->t->mode;
			rj->bg_hosts = j->n_hosts;
			rj->bg_posted = j->sum_posted;
			rj->bg_completed = j->sum_completed;
			rj->bg_refused = j->sum_refused;
			continue;
		}
		if (!j->finished)
			failed_rows(wj, j);
		wr_fill_rows(w, j->t, j->dtab, j->n_gi, j->sizes, j->n_sizes, j->iters,
			j->n_iters, j->n_hosts);
		if (j->nc) { /* the rounds folded into steps, as on one job */
			if (wr_fold_phases(w, j->t, rj, &j->sizes, &j->n_sizes, &j->iters,
					&j->n_iters, j->n_hosts, i == 0))
				return -ENOMEM;
			/* the job's, from its first step's start (its first gap phases) */
			rj->started = j->started;
			rj->finished = j->finished;
			rj->start_ps = j->started && j->n_iters ? j->iters[0].start_ps : 0;
			rj->end_ps = j->finished ? rj->end_ps : 0;
		} else if (j->finished && j->n_iters) { /* the last iteration's slowest rank */
			rj->end_ps = j->iters[j->n_iters - 1].start_ps +
				     j->iters[j->n_iters - 1].cct_ps;
		}
		rj->sizes = j->sizes;
		rj->n_sizes = j->n_sizes;
		rj->iters = j->iters;
		rj->n_iters = j->n_iters;
		j->sizes = NULL; /* the report's now */
		j->iters = NULL;
	}
	/* the top level is the first job's (report.md "Several jobs"), shared as on the sim */
	res->sizes = res->jobs[0].sizes;
	res->n_sizes = res->jobs[0].n_sizes;
	res->iters = res->jobs[0].iters;
	res->n_iters = res->jobs[0].n_iters;
	res->nranks = res->jobs[0].nranks;
	return 0;
}

/* Rank 0, after a timeout: each job whose barrier waits, and the ranks it waits for (marked
 * failed), as the one job's waits name theirs (wr_name_missing). */
static void name_missing(struct wr *w)
{
	struct wj *wj = w->wj;

	for (size_t i = 0; i < wj->n; i++) {
		struct wjob *j = &wj->jobs[i];
		char what[160];

		if (j->st != WJ_ARMING && j->st != WJ_RUN && j->st != WJ_BGEND)
			continue;
		if (j->st == WJ_BGEND)
			snprintf(what, sizeof(what), "; job %s: background counts", j->t->name);
		else
			snprintf(what, sizeof(what), "; job %s: iteration %u's %s", j->t->name,
				j->r0_it, j->st == WJ_RUN ? "DONE" : "ARMED");
		wr_name_missing_of(w, what, j->got, j->in);
	}
}

int wr_run_jobs(struct wr *w, struct mrc_run_result *res, char *err, size_t errlen)
{
	int e;

	e = setup(w, res != NULL, err, errlen);
	if (!e) { /* the last exchange is everyone's start */
		w->wj->t0_ns = w->t0_ns = w->go_ns = wr_mono_ns();
		w->wj->tick_ns = w->t0_ns + w->timeout_ns / 4;
		wr_epf_go(w, true, false, w->t0_ns);
		for (size_t i = 0; i < w->wj->n; i++) /* start: from the run's start */
			w->wj->jobs[i].ready_ns = w->t0_ns + (w->wj->jobs[i].t->start_ps +
				gap_before(&w->wj->jobs[i], 0)) / 1000;
		w->tick = jobs_tick;
		while (!w->err && !(w->rank ? w->got_finish : all_done(w->wj)))
			if (wr_pump_until(w, turn, "several jobs: nothing happened")) {
				name_missing(w);
				break;
			}
		w->tick = NULL;
		e = w->err;
		if (e)
			snprintf(err, errlen, "%s", w->errmsg);
	}
	if (res && w->wj && w->wj->jobs && fill_jobs(w, res) && !e) {
		snprintf(err, errlen, "several jobs: %s", strerror(ENOMEM));
		e = -ENOMEM;
	}
	return e;
}

void wr_jobs_free(struct wr *w)
{
	struct wj *wj = w->wj;

	if (!wj)
		return;
	for (size_t i = 0; wj->jobs && i < wj->n; i++) {
		struct wjob *j = &wj->jobs[i];

		for (size_t s = 0; s < j->n_cs; s++) {
			mrc_coll_free(j->cs[s].coll);
			free(j->cs[s].rkey);
		}
		for (size_t s = 0; j->sizes && s < j->n_sizes; s++) {
			mrc_hist_free(j->sizes[s].cct_ns);
			free(j->sizes[s].pairs);
		}
		free(j->sizes);
		free(j->iters);
		free(j->cs);
		free(j->hosts);
		free(j->in);
		free(j->got);
		free(j->own);
		free(j->dtab);
		free(j->defq);
		free(j->perm);
		free(j->bg_out);
		free(j->bg_va);
		free(j->bg_buf);
		mrc_job_coll_mem_free(&j->cmem);
	}
	free(wj->jobs);
	free(wj->local);
	free(wj);
	w->wj = NULL;
}
