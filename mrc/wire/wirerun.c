/* SPDX-License-Identifier: BSD-2-Clause */
/* wirerun: one rank of the main job on real sockets: sizes, iterations, results (wirerun.h). */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/base/hist.h"
#include "mrc/engine/srv6.h"
#include "mrc/job/fault.h"
#include "mrc/job/stop.h"
#include "mrc/wire/netns.h"
#include "pcap/pcapw.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static int new_hist(const struct conf_hist *c, struct mrc_hist **h)
{
	return mrc_hist_init((int64_t)c->lowest_ns, (int64_t)c->highest_ns, (int)c->sigfigs, h);
}

static bool coll_done(struct wr *w)
{
	return mrc_coll_done(w->coll);
}

/* The plan position of EV @value, profile position @e (the same order, normally), or
 * n_evs when the plan has no such EV. */
static size_t plan_ev(const struct wr *w, unsigned e, uint32_t value)
{
	size_t k = 0;

	if (e < w->m.n_evs && w->m.evs[e].ev == value)
		return e;
	while (k < w->m.n_evs && w->m.evs[k].ev != value)
		k++;
	return k;
}

/* This rank's counters, per-EV counters and histograms (@r: evs and bad borrowed from @w). */
static int collect_result(struct wr *w, struct mrc_rankres *rr)
{
	struct mrc_run_result *r = &rr->ctr;
	struct mrc_ep_stats es;
	const struct mrc_ev_profile *prof;
	struct mrc_run_ev *ev = calloc(w->m.n_evs + 1, sizeof(*ev)); /* [n_evs]: not in the plan */

	if (!ev)
		return -ENOMEM;
	wr_lanes_park(w);
	for (unsigned t = 0; t < wr_lanes(w); t++) {
		mrc_ep_get_stats(wr_lane(w, t)->ep, &es);
		mrc_run_add_ep(r, &es);
	}
	for (size_t i = 0; i < w->n_taps; i++) /* the last records reach the file now */
		if (!w->taps[i].failed && pcapw_flush(w->taps[i].w)) {
			w->taps[i].failed = true;
			fprintf(stderr, "mrcgen: h%u: capture: %s\n", w->rank,
				pcapw_error(w->taps[i].w));
		}
	for (size_t i = 0; i < w->n_taps; i++)
		r->capture_errors += w->taps[i].failed;
	/* what the host lost, apart: the wire driver sees no fabric drop (docs/report.md) */
	w->dp->counters(w, r);
	for (uint32_t qpn = 1; qpn <= wr_n_qps(w); qpn++) {
		struct mrc_ep *ep = wr_ep_of(w, qpn);
		const struct mrc_ev_set *set = mrc_ep_qp_evs(ep, qpn);
		struct mrc_qp_stats s;
		const char *why;

		if (mrc_ep_qp_stats(ep, qpn, &s))
			continue;
		mrc_run_add_qp(r, &s);
		r->fab_ecn += s.rx_ce;
		if (s.rtt_samples)
			mrc_hist_record(w->rtt_ns, (int64_t)(s.rtt_sum_ps / s.rtt_samples / 1000));
		if (mrc_qp_failed(mrc_ep_qp(ep, qpn), &why))
			r->qp_errors++;
		for (unsigned e = 0; set && set->n_bad && e < set->n; e++)
			if (mrc_ev_state(set, e) == MRC_EV_ASSUMED_BAD)
				ev[plan_ev(w, e, mrc_ev_value(set, e))].bad_qps++;
	}
	/* the per-EV counters are the endpoint's (each thread's), summed over its QPs */
	for (unsigned t = 0; t < wr_lanes(w); t++) {
		prof = mrc_ep_ev_profile(wr_lane(w, t)->ep);
		for (unsigned e = 0; e < prof->n; e++)
			mrc_run_ev_add(&ev[plan_ev(w, e, prof->value[e])], &prof->st[e]);
	}
	wr_lanes_unpark(w);
	for (size_t k = 0; k < w->m.n_evs; k++)
		ev[k].ev = w->m.evs[k].ev;
	rr->evs = ev;
	rr->n_evs = w->m.n_evs;
	rr->evs_retired = w->evs_retired;
	rr->msg_ns = w->msg_ns;
	rr->step_ns = w->step_ns;
	rr->rtt_ns = w->rtt_ns;
	rr->bad = w->bad;
	rr->n_bad = w->n_bad;
	return 0;
}

int wr_encode_result(struct wr *w, char **out, size_t *len)
{
	struct mrc_rankres rr = { 0 };
	int e = collect_result(w, &rr);

	e = e ?: mrc_rankres_encode(&rr, out, len);
	free(rr.evs);
	return e;
}

/* Adds one rank's RESULT body into @res (rank 0); its EV retirements join w->bad. */
static int merge_result(struct wr *w, struct mrc_run_result *res, uint32_t rank,
	const void *b, size_t len)
{
	struct mrc_rankres rr;
	char why[200];
	int e = mrc_rankres_decode(b, len, &rr, why, sizeof(why));

	e = e ?: mrc_rankres_merge(res, &rr, why, sizeof(why));
	/* rank 0's own list is what it appends to: its entries are already there */
	for (size_t i = 0; !e && rank && i < rr.n_bad; i++)
		wr_bad_add(w, rr.bad[i].iter, rr.bad[i].off_ps);
	mrc_rankres_free(&rr);
	if (e == -EPROTO && rank)
		w->failed[rank] = true;
	if (e == -EPROTO)
		wr_fail(w, e, "rendezvous: rank %u (h%u): malformed RESULT (%zu bytes): %s", rank,
			rank, len, why);
	else if (e)
		wr_fail(w, e, "results: %s", strerror(-e));
	return e;
}

/* ---- faults in the report ------------------------------------------------------------ */

/*
 * Rank 0: the endpoint faults of the `faults:` timeline as report faults[] entries, as the
 * simulator writes its fabric faults — when each took effect (every rank applies the same
 * timeline on its own clock from its first GO, so times are rank 0's and agree with the
 * others' to the start barrier's skew), its iteration, a duration's end as its own row;
 * what never fired goes to faults_not_applied[]. The recovery figures are the shared
 * ones (mrc_fault_finish): the EVs every rank retired in the fault's window, the CCT
 * inflation of its iteration over the fault-free ones of its size, its slowest rank.
 */
static int wire_faults(struct wr *w, struct mrc_run_result *res)
{
	const struct conf_job *j = w->job;
	const struct mrc_run_iter *lastit = res->n_iters ? &res->iters[res->n_iters - 1] : NULL;
	uint64_t run_end = lastit ? lastit->start_ps + lastit->cct_ps : 0, *bad_t;
	bool *fired = calloc(j->n_faults + 1, sizeof(*fired));
	size_t n_bad_t = 0, n_fi = 0;
	struct mrc_fault_fire *fi = NULL;
	int e = 0;

	if (!fired)
		return -ENOMEM;
	for (size_t i = 0; i < j->n_faults && !e; i++) {
		const struct conf_fault *cf = &j->faults[i];
		bool reverts = cf->has_duration && cf->action != CONF_FA_UP &&
			       cf->action != CONF_FA_CLEAR && cf->action != CONF_FA_FLAP;

		for (size_t k = 0; k < res->n_iters; k++) {
			const struct mrc_run_iter *it = &res->iters[k];
			struct mrc_fault_fire *nf;
			uint64_t at;

			if (cf->has_at && k == 0 && cf->at_ps < run_end)
				at = cf->at_ps;
			else if (mrc_fault_fires_at(cf, it->warmup, it->measured))
				at = it->start_ps;
			else
				continue;
			fired[i] = true;
			nf = realloc(fi, (n_fi + 2) * sizeof(*nf));
			if (!nf || mrc_fault_fired(res, i, at)) {
				e = -ENOMEM;
				break;
			}
			fi = nf;
			fi[n_fi] = (struct mrc_fault_fire){ .conf = i, .at = at };
			if (reverts)
				fi[n_fi + 1] = (struct mrc_fault_fire){ .conf = i,
					.at = mrc_fault_until(cf, at), .revert = true, .of = n_fi };
			n_fi += reverts ? 2 : 1;
		}
	}
	e = e ?: mrc_fault_timeline_rows(res, j, fi, n_fi, run_end);
	free(fi);
	if (!e)
		mrc_fault_list_unfired(res, j, fired, run_end);
	free(fired);
	if (e)
		return e;
	if (!res->n_faults)
		return 0;
	for (size_t f = 0; f < res->n_faults; f++)
		res->faults[f].recovery_note = "the wire driver keeps no goodput bins: see "
					       "first_ev_retired_us and cct_inflation";
	/* the iteration each fell in: the last one started by then */
	for (size_t k = 0; k < res->n_iters; k++) {
		const struct mrc_run_iter *it = &res->iters[k];

		for (size_t f = 0; f < res->n_faults; f++) {
			struct mrc_run_fault *rf = &res->faults[f];

			if (rf->at_ps >= it->start_ps) {
				/* the retransmitted bytes by then: at the end of the one before */
				rf->rtx_bytes = k ? res->iters[k - 1].rtx_bytes_end : 0;
				rf->iter = it->iter;
				rf->measured = it->measured;
				rf->in_warmup = it->warmup;
			}
		}
	}
	for (size_t f = 0; f < res->n_faults; f++)
		for (size_t k = 0; k < res->n_iters; k++)
			res->iters[k].faults += res->iters[k].iter == res->faults[f].iter;
	/* the EV retirements onto rank 0's timeline, each within the iteration it came in */
	bad_t = calloc(w->n_bad + 1, sizeof(*bad_t));
	if (!bad_t)
		return -ENOMEM;
	for (size_t b = 0; b < w->n_bad; b++) {
		for (size_t k = 0; k < res->n_iters; k++) {
			const struct mrc_run_iter *it = &res->iters[k];

			if (it->iter == w->bad[b].iter && w->bad[b].off_ps <= it->cct_ps)
				bad_t[n_bad_t++] = it->start_ps + w->bad[b].off_ps;
		}
	}
	/* the run's end on this timeline: a flap whose until passed ends at its last up */
	res->sim_end_ps = run_end;
	mrc_fault_finish(res, bad_t, n_bad_t);
	free(bad_t);
	return 0;
}

/* ---- the run -------------------------------------------------------------------------- */

void wr_reg_all(struct wr *w, void *base, uint64_t len, uint32_t *key, int g)
{
	*key = 0;
	/* every thread's endpoint registers it, in the same order: the same R_Key */
	for (unsigned t = 0; len && t < wr_lanes(w); t++) {
		uint32_t k = 0;
		int e = mrc_ep_reg_mr(wr_lane(w, t)->ep, base, len, t ? &k : key);

		if (e) { /* no region: never advertise key 0 for it */
			wr_fail(w, e, "h%u: memory region %d (%llu B) on thread %u: %s", w->rank,
				g, (unsigned long long)len, t, strerror(-e));
			return;
		}
		if (t && k != *key)
			wr_fail(w, -EPROTO, "h%u: memory region %d: R_Key 0x%x on thread %u, "
				"0x%x on thread 0", w->rank, g, k, t, *key);
	}
}

void wr_epf_go(struct wr *w, bool start, bool iteration, uint64_t go_ns)
{
	if (!w->epf || !(start || iteration))
		return;
	wr_lanes_park(w); /* every thread's copy of the timeline */
	for (unsigned ln = 0; ln < wr_lanes(w); ln++) {
		if (start)
			mrc_epf_start(wr_lane(w, ln)->epf, go_ns * 1000);
		if (iteration)
			mrc_epf_iteration(wr_lane(w, ln)->epf, w->measured_iter, go_ns * 1000);
	}
	wr_lanes_unpark(w);
}

int wr_exchange_mrs(struct wr *w, uint32_t size_idx)
{
	uint8_t mine[MRC_REG_N * 12];

	wr_lanes_park(w);
	for (int g = 0; g < MRC_REG_N; g++) {
		uint64_t len;
		void *base = mrc_coll_region(w->coll, w->rank, g, &len);

		wr_reg_all(w, base, len, &w->rkey[g], g);
		w->mrtab_va[w->rank][g] = (uint64_t)(uintptr_t)base;
		w->peer_rkey[w->rank][g] = w->rkey[g];
		put_be64(mine + g * 12, (uint64_t)(uintptr_t)base);
		put_be32(mine + g * 12 + 8, w->rkey[g]);
	}
	wr_lanes_unpark(w);
	if (w->err)
		return w->err;
	if (w->boot->mrs(w, size_idx, mine))
		return w->err;
	for (uint32_t r = 0; r < w->nranks; r++)
		for (int g = 0; g < MRC_REG_N; g++)
			mrc_coll_set_va(w->coll, r, g, w->mrtab_va[r][g]);
	return 0;
}

/* This rank's retransmitted bytes so far, over all its QPs. */
uint64_t wr_rank_rtx_bytes(struct wr *w)
{
	uint64_t sum = 0;

	wr_lanes_park(w);
	for (uint32_t qpn = 1; qpn <= wr_n_qps(w); qpn++) {
		struct mrc_qp_stats s;

		if (!mrc_ep_qp_stats(wr_ep_of(w, qpn), qpn, &s))
			sum += s.rtx_bytes;
	}
	wr_lanes_unpark(w);
	return sum;
}

/*
 * One iteration of this rank: ARM (start the collective with its posts held back),
 * barrier, GO (post them), run until this rank is done, DONE: its completion time
 * (measured from GO on its own clock), #wrong and retransmitted bytes in w->own[], which
 * rank 0 gathers into w->dtab (now or with the results: fill_iters).
 */
static int run_iteration(struct wr *w, uint32_t global_iter, bool warmup,
	struct mrc_run_iter *ri)
{
	uint64_t arm_ns, go_ns;

	w->want_iter = global_iter;
	if (w->boot->arm(w, global_iter))
		return w->err;
	w->arming = true;
	w->n_def = 0;
	arm_ns = wr_mono_ns();
	{
		int e = mrc_coll_start(w->coll, global_iter, arm_ns * 1000);

		w->arming = false;
		if (e) {
			wr_fail(w, e, "collective: start of iteration %u: %s", global_iter,
				strerror(-e));
			return e;
		}
	}
	if (w->boot->go(w, global_iter))
		return w->err;
	w->measuring = !warmup;
	go_ns = wr_mono_ns();
	if (global_iter == 0)
		w->t0_ns = go_ns;
	w->go_ns = go_ns;
	w->cur_iter = global_iter;
	ri->start_ps = (go_ns - w->t0_ns) * 1000;
	wr_epf_go(w, global_iter == 0, !warmup && !w->no_at_iter, go_ns);
	if (wr_post_deferred(w, &wr_cops, w, w->defq, &w->n_def, NULL))
		return w->err;
	if (wr_pump_until(w, coll_done, "iteration: this rank's collective made no progress"))
		return w->err;
	wr_own_row(w, &w->job->traffic, w->coll, global_iter, !warmup, (go_ns - arm_ns) * 1000,
		&w->own[global_iter]);
	return w->boot->done(w, global_iter);
}

void wr_own_row(struct wr *w, const struct conf_traffic *t, struct mrc_coll *c, uint32_t gi,
	bool measured, uint64_t lead_ps, struct wr_done *own)
{
	uint64_t ps = mrc_coll_rank_time(c, w->rank);

	own->t_ps = ps > lead_ps ? ps - lead_ps : 0;
	own->wrong = t->verify ? mrc_coll_verify(c, w->rank, gi) : 0;
	own->rtx = wr_rank_rtx_bytes(w);
	own->have = true;
	for (uint32_t s = 0; measured && s < mrc_coll_steps(c, w->rank); s++)
		mrc_hist_record(w->step_ns, (int64_t)(mrc_coll_step_time(c, w->rank, s) / 1000));
}

static bool gap_over(struct wr *w)
{
	return wr_mono_ns() >= w->gap_until_ns;
}

/* One collective phase of a step on the wire: its collective and its regions' tables. */
struct wphase {
	struct mrc_coll *coll;
	uint32_t rkey[MRC_REG_N];
	uint32_t (*peer_rkey)[MRC_REG_N]; /* [nranks] */
	uint64_t (*va)[MRC_REG_N];	  /* [nranks] */
};

/* Makes @ph's collective of phase @cph the rank's: w->coll and its regions' tables. */
static void phase_use(struct wr *w, const struct wphase *ph)
{
	w->coll = ph->coll;
	memcpy(w->rkey, ph->rkey, sizeof(w->rkey));
	memcpy(w->peer_rkey, ph->peer_rkey, w->nranks * sizeof(*w->peer_rkey));
	memcpy(w->mrtab_va, ph->va, w->nranks * sizeof(*w->mrtab_va));
}

/*
 * This rank's collective of @size, or (@ph) of that phase, into *@out: one rank's buffers
 * per process (@local), real bytes, checked as the simulator's verify: bytes
 * (docs/verification.md). 0 or a negative errno with @err.
 */
int wr_wire_coll(struct wr *w, const struct conf_traffic *t, struct mrc_run_result *res,
	const struct conf_phase *ph, uint64_t size, bool *local, struct mrc_job_coll_mem *cmem,
	struct mrc_coll_params *cp, const struct mrc_coll_ops *cops, void *ctx,
	struct mrc_coll **out, char *err, size_t errlen)
{
	int e = ph ? mrc_job_coll_params_phase(w->job, t, ph, w->nranks, cmem, cp) :
		     mrc_job_coll_params_of(w->job, t, w->nranks, size, cmem, cp);

	if (e) {
		snprintf(err, errlen, "traffic: %s", e == -ENOMEM ? strerror(ENOMEM) : cmem->err);
		return e;
	}
	cp->verify = t->verify ? MRC_VERIFY_BYTES : MRC_VERIFY_OFF;
	cp->local = local;
	if (res)
		res->nranks = cp->nranks;
	e = mrc_coll_new(cp, cops, ctx, out);
	if (e)
		snprintf(err, errlen, "collective %s of %llu B over %u ranks: %s",
			mrc_coll_pattern_name(cp->pattern), (unsigned long long)(ph ? ph->size :
			size), cp->nranks, strerror(-e));
	return e;
}

const struct mrc_coll_ops wr_cops = { wr_coll_post };

int wr_size_row(struct wr *w, struct mrc_coll *c, const struct mrc_coll_params *cp,
	struct mrc_run_size *rs)
{
	int e;

	rs->bytes = mrc_coll_bytes(c);
	rs->count = cp->count;
	e = mrc_run_pairs_init(rs, c);
	return e ?: new_hist(&w->job->output.hist, &rs->cct_ns);
}

/* Rank 0: appends iteration row @ri, incomplete when the job failed in it (@e). 0 or
 * -ENOMEM. */
static int add_iter_row(struct mrc_run_result *res, struct mrc_run_iter *ri, int e)
{
	struct mrc_run_iter *ni = realloc(res->iters, (res->n_iters + 1) * sizeof(*ni));

	if (!ni)
		return -ENOMEM;
	ri->incomplete = e != 0; /* the job failed in it: no CCT (docs/report.md) */
	res->iters = ni;
	res->iters[res->n_iters++] = *ri;
	return 0;
}

/* A gap on the wire: the endpoint keeps going for @ps, then the next barrier. */
static int wire_gap(struct wr *w, uint64_t ps, const char *what)
{
	w->gap_until_ns = wr_mono_ns() + ps / 1000;
	return wr_pump_until(w, gap_over, what);
}

/*
 * traffic.phases on the wire (docs/config.md "Phases"): each collective phase's collective
 * made and its regions exchanged once (bootstrap mrs k for the k-th); then every step runs
 * its phases in order, a collective as one round of the barrier (ARM, GO, DONE; round
 * step x collectives + k), a gap as a wait before the next round. Rank 0's rows are per
 * round, a "size" per collective phase, until fill_iters folds them into steps.
 */
static int run_phases(struct wr *w, struct mrc_run_result *res, bool *local, char *err,
	size_t errlen)
{
	const struct conf_traffic *t = &w->job->traffic;
	uint32_t steps = t->warmup + t->iterations, nc = 0, gi = 0;
	struct mrc_job_coll_mem cmem = { 0 };
	struct wphase *ph;
	int e = 0;

	for (size_t p = 0; p < t->n_phases; p++)
		nc += !t->phases[p].has_gap;
	ph = w->wph = calloc(nc, sizeof(*ph)); /* freed by wr_close: MRs name the buffers */
	w->n_wph = nc;
	w->n_gi = steps * nc;
	w->own = calloc(w->n_gi + 1, sizeof(*w->own));
	if (res) {
		res->sizes = calloc(nc, sizeof(*res->sizes));
		w->dtab = calloc((size_t)w->n_gi * w->nranks + 1, sizeof(*w->dtab));
	}
	if (!ph || !w->own || (res && (!res->sizes || !w->dtab)))
		return -ENOMEM;
	for (size_t p = 0, k = 0; p < t->n_phases && !e; p++) {
		struct mrc_coll_params cp;

		if (t->phases[p].has_gap)
			continue;
		e = wr_wire_coll(w, t, res, &t->phases[p], 0, local, &cmem, &cp, &wr_cops, w,
			&ph[k].coll, err, errlen);
		if (e)
			break;
		ph[k].peer_rkey = calloc(w->nranks, sizeof(*ph[k].peer_rkey));
		ph[k].va = calloc(w->nranks, sizeof(*ph[k].va));
		if (!ph[k].peer_rkey || !ph[k].va) {
			e = -ENOMEM;
			break;
		}
		if (res) {
			struct mrc_run_size *rs = &res->sizes[res->n_sizes++];

			rs->bytes = mrc_coll_bytes(ph[k].coll);
			rs->count = cp.count;
			e = new_hist(&w->job->output.hist, &rs->cct_ns);
		}
		w->coll = ph[k].coll;
		e = e ?: wr_exchange_mrs(w, (uint32_t)k);
		memcpy(ph[k].rkey, w->rkey, sizeof(w->rkey));
		memcpy(ph[k].peer_rkey, w->peer_rkey, w->nranks * sizeof(*w->peer_rkey));
		memcpy(ph[k].va, w->mrtab_va, w->nranks * sizeof(*w->mrtab_va));
		k++;
	}
	for (uint32_t s = 0; s < steps && !e; s++) {
		bool warm = s < t->warmup;

		w->measured_iter = warm ? 0 : s - t->warmup;
		if (t->gap_ps && s)
			e = wire_gap(w, t->gap_ps, "compute gap (traffic.gap)");
		for (size_t p = 0, k = 0; p < t->n_phases && !e; p++) {
			struct mrc_run_iter ri = { .size_idx = (uint32_t)k, .iter = gi,
				.warmup = warm, .measured = w->measured_iter };

			if (t->phases[p].has_gap) {
				e = wire_gap(w, t->phases[p].gap_ps, "gap phase (traffic.phases)");
				continue;
			}
			phase_use(w, &ph[k]);
			w->no_at_iter = k > 0;
			e = run_iteration(w, gi++, warm, &ri);
			k++;
			if (!res)
				continue;
			if (add_iter_row(res, &ri, e)) {
				e = -ENOMEM;
				break;
			}
			if (ri.incomplete)
				res->sizes[ri.size_idx].incomplete = true;
		}
	}
	w->coll = NULL; /* the phases' own */
	w->no_at_iter = false;
	mrc_job_coll_mem_free(&cmem);
	if (e && w->err)
		snprintf(err, errlen, "%s", w->errmsg);
	return e;
}

static int run_sizes(struct wr *w, struct mrc_run_result *res, char *err, size_t errlen)
{
	const struct conf_traffic *t = &w->job->traffic;
	uint64_t sizes[64];
	size_t n_sizes = conf_sizes_expand(&t->sizes, sizes, 64);
	bool *local = calloc(w->nranks, sizeof(bool));
	struct mrc_job_coll_mem cmem = { 0 };
	uint32_t global_iter = 0;
	int e = 0;

	if (!local)
		return -ENOMEM;
	local[w->rank] = true;
	if (t->n_phases) {
		e = run_phases(w, res, local, err, errlen);
		free(local);
		return e;
	}
	if (n_sizes > 64) {
		snprintf(err, errlen, "traffic.sizes: %zu sizes, at most 64", n_sizes);
		free(local);
		return -E2BIG;
	}
	w->n_gi = (uint32_t)(n_sizes * (t->warmup + t->iterations));
	w->own = calloc(w->n_gi + 1, sizeof(*w->own));
	if (res) {
		res->sizes = calloc(n_sizes, sizeof(*res->sizes));
		w->dtab = calloc((size_t)w->n_gi * w->nranks + 1, sizeof(*w->dtab));
	}
	if (!w->own || (res && (!res->sizes || !w->dtab))) {
		free(local);
		return -ENOMEM;
	}
	for (size_t s = 0; s < n_sizes && !e; s++) {
		struct mrc_coll_params cp;
		struct mrc_run_size *rs = NULL;

		e = wr_wire_coll(w, t, res, NULL, sizes[s], local, &cmem, &cp, &wr_cops, w, &w->coll,
			err, errlen);
		if (e)
			break;
		if (res) {
			rs = &res->sizes[res->n_sizes++];
			e = wr_size_row(w, w->coll, &cp, rs);
			if (e)
				break;
		}
		e = wr_exchange_mrs(w, (uint32_t)s);
		for (uint32_t it = 0; !e && it < t->warmup + t->iterations; it++) {
			bool warm = it < t->warmup;
			struct mrc_run_iter ri = { .size_idx = (uint32_t)s, .iter = global_iter,
				.warmup = warm };

			w->measured_iter = warm ? 0 : it - t->warmup;
			ri.measured = w->measured_iter;
			if (t->gap_ps && global_iter) { /* compute gap: the endpoint keeps going */
				e = wire_gap(w, t->gap_ps, "compute gap (traffic.gap)");
				if (e)
					break;
			}
			e = run_iteration(w, global_iter++, warm, &ri);
			if (res && add_iter_row(res, &ri, e)) {
				e = -ENOMEM;
				break;
			}
		}
		/* the engine keeps the MRs; the buffers stay until the job ends */
		if (e && rs)
			rs->incomplete = true;
		if (e)
			break;
		mrc_coll_free(w->coll);
		w->coll = NULL;
	}
	free(local);
	mrc_job_coll_mem_free(&cmem);
	if (e && w->err)
		snprintf(err, errlen, "%s", w->errmsg);
	return e;
}

/* The pattern of row @s of rank 0's sizes: the job's, or its s-th collective phase's. */
static enum mrc_coll_pattern row_pattern(const struct conf_traffic *t, size_t s)
{
	for (size_t p = 0; p < t->n_phases; p++)
		if (!t->phases[p].has_gap && s-- == 0)
			return (enum mrc_coll_pattern)t->phases[p].pattern;
	return (enum mrc_coll_pattern)t->pattern;
}

uint64_t wr_phase_gaps(const struct conf_traffic *t, uint32_t k)
{
	uint64_t ps = 0;
	uint32_t c = 0;

	for (size_t p = 0; p < t->n_phases; p++) {
		if (!t->phases[p].has_gap)
			c++;
		else if (c == k)
			ps += t->phases[p].gap_ps;
	}
	return ps;
}

int wr_fold_phases(struct wr *w, const struct conf_traffic *t, struct mrc_run_job *rj,
	struct mrc_run_size **sizes, size_t *n_sizes, struct mrc_run_iter **iters,
	size_t *n_iters, uint32_t nranks, bool bad)
{
	const struct conf_hist *hc = &w->job->output.hist;
	size_t nc = *n_sizes, np = t->n_phases, nr = *n_iters;
	size_t ns = nc ? (nr + nc - 1) / nc : 0;
	struct mrc_run_iter *steps = calloc(ns + 1, sizeof(*steps)), *rounds = *iters;
	struct mrc_run_size *row = calloc(1, sizeof(*row)), *rows = *sizes;
	uint64_t lead = wr_phase_gaps(t, 0), trail = wr_phase_gaps(t, (uint32_t)nc);
	double sum = 0, bus = 0;
	uint32_t n = 0;

	if (!steps || !row || new_hist(hc, &row->cct_ns))
		goto nomem;
	rj->phases = calloc(np, sizeof(*rj->phases));
	rj->phase_ps = calloc(ns * np + 1, sizeof(*rj->phase_ps));
	if (!rj->phases || !rj->phase_ps)
		goto nomem;
	snprintf(rj->name, sizeof(rj->name), "%s", t->name);
	rj->nranks = nranks;
	rj->n_phases = np;
	for (size_t p = 0, k = 0; p < np; p++) {
		struct mrc_run_phase *rp = &rj->phases[p];

		rp->gap = t->phases[p].has_gap;
		rp->gap_ps = t->phases[p].gap_ps;
		rp->pattern = (int)t->phases[p].pattern;
		rp->algorithm = (int)t->phases[p].algorithm;
		if (rp->gap || k >= nc) {
			if (new_hist(hc, &rp->time_ns))
				goto nomem;
			rp->time_us = rp->gap ? (double)rp->gap_ps / 1e6 : 0;
			continue;
		}
		rp->bytes = rows[k].bytes;
		rp->time_us = rows[k].time_us;
		rp->busbw_gbs = rows[k].busbw_gbs;
		rp->time_ns = rows[k].cct_ns;
		rows[k].cct_ns = NULL;
		row->bytes += rp->bytes;
		row->count += rows[k].count;
		row->wrong += rows[k].wrong;
		row->incomplete |= rows[k].incomplete;
		bus += (double)rp->bytes * mrc_coll_bus_factor(row_pattern(t, k), nranks);
		k++;
	}
	for (size_t s = 0; s < ns; s++) {
		const struct mrc_run_iter *r0 = &rounds[s * nc];
		const struct mrc_run_iter *rl = &rounds[nr < (s + 1) * nc ? nr - 1 :
								    (s + 1) * nc - 1];
		struct mrc_run_iter *st = &steps[s];
		uint64_t slow = 0;

		*st = *r0;
		st->iter = (uint32_t)s;
		st->size_idx = 0;
		st->incomplete = nr < (s + 1) * nc;
		st->wrong = 0;
		for (size_t p = 0, k = 0; p < np; p++) {
			const struct mrc_run_iter *ri = &rounds[s * nc + (k < nc ? k : 0)];

			if (t->phases[p].has_gap) {
				rj->phase_ps[s * np + p] = t->phases[p].gap_ps;
				if (!st->warmup)
					mrc_hist_record(rj->phases[p].time_ns,
						(int64_t)(t->phases[p].gap_ps / 1000));
				continue;
			}
			if (s * nc + k < nr) {
				rj->phase_ps[s * np + p] = ri->cct_ps;
				st->incomplete |= ri->incomplete;
				st->wrong += ri->wrong;
				if (ri->cct_ps >= slow) {
					slow = ri->cct_ps;
					st->slowest_rank = ri->slowest_rank;
				}
			}
			k++;
		}
		/* from before its first gap phases to after its last ones, as on the simulator */
		st->start_ps = r0->start_ps > lead ? r0->start_ps - lead : 0;
		st->cct_ps = rl->start_ps + rl->cct_ps - st->start_ps + trail;
		st->rtx_bytes_end = rl->rtx_bytes_end;
		if (st->warmup || st->incomplete)
			continue;
		mrc_hist_record(row->cct_ns, (int64_t)(st->cct_ps / 1000));
		sum += (double)st->cct_ps;
		n++;
	}
	for (size_t b = 0; bad && b < w->n_bad; b++) { /* round -> step, its offset from GO */
		size_t r = w->bad[b].iter, s = nc ? r / nc : 0;

		if (r >= nr)
			continue;
		w->bad[b].off_ps += rounds[r].start_ps - steps[s].start_ps;
		w->bad[b].iter = (uint32_t)s;
	}
	row->time_us = n ? sum / n / 1e6 : 0;
	if (row->time_us > 0 && !row->incomplete) {
		row->algbw_gbs = (double)row->bytes / (row->time_us * 1e-6) / 1e9;
		row->busbw_gbs = bus / (row->time_us * 1e-6) / 1e9;
	}
	for (size_t k = 0; k < nc; k++) {
		mrc_hist_free(rows[k].cct_ns);
		free(rows[k].pairs);
	}
	free(rows);
	free(rounds);
	*sizes = rj->sizes = row;
	*n_sizes = rj->n_sizes = 1;
	*iters = rj->iters = steps;
	*n_iters = rj->n_iters = ns;
	rj->started = ns > 0;
	rj->finished = ns && !steps[ns - 1].incomplete;
	rj->end_ps = ns ? steps[ns - 1].start_ps + steps[ns - 1].cct_ps : 0;
	return 0;
nomem:
	if (row)
		mrc_hist_free(row->cct_ns);
	for (size_t p = 0; rj->phases && p < np; p++)
		if (t->phases[p].has_gap)
			mrc_hist_free(rj->phases[p].time_ns);
	free(rj->phases);
	free(rj->phase_ps);
	rj->phases = NULL;
	rj->phase_ps = NULL;
	free(steps);
	free(row);
	return -ENOMEM;
}

/* Rank 0, traffic.phases of the one job: wr_fold_phases into res->jobs[0]. */
static int fold_phases(struct wr *w, struct mrc_run_result *res)
{
	struct mrc_run_job *rj = calloc(1, sizeof(*rj));

	if (!rj || wr_fold_phases(w, &w->job->traffic, rj, &res->sizes, &res->n_sizes,
			&res->iters, &res->n_iters, res->nranks, true)) {
		free(rj);
		return -ENOMEM;
	}
	res->jobs = rj;
	res->n_jobs = 1;
	return 0;
}


void wr_fill_rows(struct wr *w, const struct conf_traffic *t, const struct wr_done *dtab,
	uint32_t n_gi, struct mrc_run_size *sizes, size_t n_sizes, struct mrc_run_iter *iters,
	size_t n_iters, uint32_t nranks)
{
	uint64_t *tp = calloc(w->nranks, sizeof(*tp)); /* an iteration's rank times (pairs) */

	for (size_t k = 0; k < n_iters; k++) {
		struct mrc_run_iter *ri = &iters[k];

		if (ri->incomplete || ri->iter >= n_gi)
			continue;
		ri->cct_ps = ri->wrong = ri->rtx_bytes_end = 0;
		ri->slowest_rank = 0;
		for (uint32_t r = 0; r < w->nranks; r++) {
			const struct wr_done *d = &dtab[(size_t)ri->iter * w->nranks + r];

			if (!d->have)
				continue;
			if (d->t_ps > ri->cct_ps) {
				ri->cct_ps = d->t_ps;
				ri->slowest_rank = r;
			}
			ri->wrong += d->wrong;
			ri->rtx_bytes_end += d->rtx;
		}
	}
	for (size_t s = 0; s < n_sizes; s++) {
		struct mrc_run_size *rs = &sizes[s];
		double sum = 0;
		uint32_t n = 0;

		for (size_t k = 0; k < n_iters; k++) {
			const struct mrc_run_iter *ri = &iters[k];

			if (ri->size_idx != s || ri->warmup || ri->incomplete)
				continue;
			mrc_hist_record(rs->cct_ns, (int64_t)(ri->cct_ps / 1000));
			sum += (double)ri->cct_ps;
			n++;
			rs->wrong += ri->wrong;
			for (uint32_t r = 0; tp && rs->n_pairs && r < w->nranks; r++)
				tp[r] = dtab[(size_t)ri->iter * w->nranks + r].t_ps;
			if (tp && rs->n_pairs)
				mrc_run_pairs_iter(rs, tp, t->pattern == CONF_PAT_WRITE_LAT);
		}
		if (rs->incomplete)
			continue;
		/* point-to-point: a pair's bytes are the size's (mrc_coll_pair_bytes) */
		mrc_run_pairs_finish(rs, t->pattern == CONF_PAT_WRITE_LAT, rs->bytes,
			t->pattern == CONF_PAT_WRITE_BW ? t->messages : 1,
			(double)w->job->fabric.link_rate_bps * w->job->fabric.planes);
		rs->time_us = n ? sum / n / 1e6 : 0;
		if (rs->time_us > 0) {
			rs->algbw_gbs = (double)rs->bytes / (rs->time_us * 1e-6) / 1e9;
			rs->busbw_gbs = rs->algbw_gbs * mrc_coll_bus_factor(row_pattern(t, s),
				nranks);
		}
	}
	free(tp);
}

/* Rank 0, once the ranks' DONE rows are in w->dtab: the job's rows (wr_fill_rows), then
 * traffic.phases folded into steps. */
static void fill_iters(struct wr *w, struct mrc_run_result *res)
{
	const struct conf_traffic *t = &w->job->traffic;

	if (res->n_jobs) /* folded into steps already (fold_phases), or several jobs' */
		return;
	wr_fill_rows(w, t, w->dtab, w->n_gi, res->sizes, res->n_sizes, res->iters, res->n_iters,
		res->nranks);
	if (t->n_phases && fold_phases(w, res))
		mrc_run_add_error(res, "phases: out of memory");
}

/* Rank 0: @res's EVs (the job's plan) and rank 0's own result merged into them. */
static int gather_own(struct wr *w, struct mrc_run_result *res)
{
	char *b = NULL;
	size_t len = 0;
	int e = wr_encode_result(w, &b, &len);

	if (e) {
		free(b);
		wr_fail(w, e, "results: %s", strerror(-e));
		return e;
	}
	res->evs = calloc(w->m.n_evs + 1, sizeof(*res->evs));
	if (!res->evs) {
		free(b);
		return -ENOMEM;
	}
	res->n_evs = w->m.n_evs;
	for (size_t i = 0; i < res->n_evs; i++) {
		res->evs[i].ev = w->m.evs[i].ev;
		res->evs[i].plane = mrc_srv6_ev_plane(&w->m.params.ev, w->m.evs[i].ev);
		res->evs[i].spine = mrc_srv6_ev_spine(&w->m.params.ev, w->m.evs[i].ev) %
				    w->job->fabric.t1;
	}
	/* rank 0's own goes through the same body: every histogram merged as decoded */
	e = merge_result(w, res, 0, b, len);
	free(b);
	if (!e)
		w->merged[0] = true;
	return e;
}

/* Rank 0: report.json's wire.failed_ranks and wire.ranks_reported from w->failed, merged. */
static int rank_lists(struct wr *w, struct mrc_run_result *res)
{
	free(res->failed_ranks);
	free(res->ranks_reported);
	res->n_failed_ranks = res->n_ranks_reported = 0;
	res->failed_ranks = calloc(w->nranks, sizeof(uint32_t));
	res->ranks_reported = calloc(w->nranks, sizeof(uint32_t));
	if (!res->failed_ranks || !res->ranks_reported)
		return -ENOMEM;
	for (uint32_t r = 0; r < w->nranks; r++) {
		if (w->failed[r])
			res->failed_ranks[res->n_failed_ranks++] = r;
		if (w->merged[r])
			res->ranks_reported[res->n_ranks_reported++] = r;
	}
	return 0;
}

/*
 * Rank 0 once the job failed and the bootstrap collected what the others had (its fail
 * step): merges what came into @res with rank 0's own, @why (the failure) as its error, and
 * the fault rows of what ran. report.json then says how the job ended, which ranks failed
 * and whose results it holds (docs/wire-driver.md "When a rank fails").
 */
static void merge_partial(struct wr *w, struct mrc_run_result *res, const char *why)
{
	snprintf(res->error, sizeof(res->error), "%s", why);
	if (mrc_stop_signal)
		res->interrupted = mrc_stop_signal;
	if (w->merged[0] || !gather_own(w, res)) { /* it may have failed in gather() */
		for (uint32_t r = 1; r < w->nranks; r++)
			if (w->result[r] && !w->merged[r] && !merge_result(w, res, r,
					w->result[r], w->result_len[r]))
				w->merged[r] = true;
	}
	fill_iters(w, res);
	wire_faults(w, res);
	rank_lists(w, res);
}

/* Workers: RESULT to rank 0. Rank 0: gathers and merges every rank's into @res. */
static int gather(struct wr *w, struct mrc_run_result *res, char *err, size_t errlen)
{
	if (w->boot->results(w))
		goto fail;
	if (w->rank)
		return 0;
	if (gather_own(w, res))
		goto fail;
	for (uint32_t r = 1; r < w->nranks; r++) {
		if (merge_result(w, res, r, w->result[r], w->result_len[r]))
			goto fail;
		w->merged[r] = true;
	}
	fill_iters(w, res);
	return rank_lists(w, res);
fail:
	snprintf(err, errlen, "%s", w->errmsg);
	return w->err;
}

/* The run's wall time since @w0 (also its end time: the wire runs in real time) and peak
 * RSS, into @res. */
static void finish_times(struct mrc_run_result *res, const struct timespec *w0)
{
	struct timespec w1;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &w1);
	res->wall_s = (double)(w1.tv_sec - w0->tv_sec) + (double)(w1.tv_nsec - w0->tv_nsec) / 1e9;
	res->sim_end_ps = (uint64_t)(res->wall_s * 1e12);
	if (!getrusage(RUSAGE_SELF, &ru))
		res->peak_rss_bytes = (size_t)ru.ru_maxrss * 1024;
}

/*
 * The bootstrap of @o and the checks that go with it, before anything starts: the rank of
 * a rendezvous (--host or the launcher's environment), its address and job token.
 */
static int pick_bootstrap(struct wr *w, const struct mrc_wirerun_opts *o, char *defaddr,
	size_t deflen, char *err, size_t errlen)
{
	const char *addr = o->rendezvous ? o->rendezvous : getenv("MRCGEN_RENDEZVOUS");
	int e;

	if (mrc_wirerun_boot_pick(o) == MRC_WIRERUN_BOOT_PMIX) {
		if (conf_jobs(w->job) > 1) {
			snprintf(err, errlen, "traffic: %zu jobs: several jobs need the rendezvous "
				 "bootstrap (--bootstrap rendezvous), their barriers are its messages: "
				 "under srun or mpirun give --rendezvous HOST:PORT (or "
				 "$MRCGEN_RENDEZVOUS) and --token-file, or run one job under pmix",
				 conf_jobs(w->job));
			return -EINVAL;
		}
		if (o->host || o->rendezvous || o->token_file) {
			snprintf(err, errlen, "bootstrap: --host, --rendezvous and --token-file are "
				 "the rendezvous's; under pmix the launcher names the rank");
			return -EINVAL;
		}
		w->boot = &wr_boot_pmix;
		return 0;
	}
	w->boot = &wr_boot_rv;
	e = mrc_wirerun_rank(o->host, w->nranks, &w->rank, err, errlen);
	if (e)
		return e;
	if (!addr) {
		snprintf(defaddr, deflen, "unix:/tmp/mrcgen-%016llx.sock",
			(unsigned long long)w->hash);
		addr = defaddr;
	}
	w->rv_addr = addr;
	e = mrc_rv_token_load(o->token_file, w->token, sizeof(w->token), &w->token_len, err,
		errlen);
	if (e < 0)
		return e == -EINVAL ? e : -ENOENT;
	if (!e && !mrc_rv_addr_unix(addr)) {
		snprintf(err, errlen, "rendezvous: '%s' is TCP, which needs a job token: set %s or "
			 "give --token-file FILE, the same on every rank", addr, MRC_RV_TOKEN_ENV);
		return -EINVAL;
	}
	return 0;
}

int wr_open(struct wr *w, const struct conf_job *job, const struct mrc_wirerun_opts *o,
	uint32_t nranks, bool measure_rtt, uint32_t *rank_out, char *err, size_t errlen)
{
	char defaddr[80], ns[256];
	int e;

	w->job = job;
	w->o = o;
	w->lfd = w->rx_fd = -1;
	for (int p = 0; p < MRC_WIRERUN_MAX_PLANES; p++)
		w->ports[p].tx_fd = w->ports[p].rx_fd = -1;
	w->timeout_ns = (o->timeout_ms ? o->timeout_ms : 60000) * 1000000ull;
	w->nranks = nranks;
	if (w->nranks < 2 || w->nranks > conf_fabric_hosts(&job->fabric)) {
		snprintf(err, errlen, "traffic.ranks: %u ranks on %u hosts", w->nranks,
			conf_fabric_hosts(&job->fabric));
		return -EINVAL;
	}
	e = mrc_wirerun_conf_hash(job, &w->hash);
	if (e) {
		snprintf(err, errlen, "config: hash: %s", strerror(-e));
		return e;
	}
	e = pick_bootstrap(w, o, defaddr, sizeof(defaddr), err, errlen);
	*rank_out = w->rank; /* the rendezvous's is known by now, even with a bad token */
	if (e)
		return e;
	w->hello_ns = WR_HELLO_NS;
	e = mrc_job_srv6(job, &w->m, err, errlen);
	if (e)
		return e;
	w->peer_of_qpn = calloc(wr_n_qps(w) + 2, sizeof(uint32_t));
	w->peer_rkey = calloc(w->nranks, sizeof(*w->peer_rkey));
	w->mrtab_va = calloc(w->nranks, sizeof(*w->mrtab_va));
	w->got = calloc(w->nranks, sizeof(bool));
	w->failed = calloc(w->nranks, sizeof(bool));
	w->merged = calloc(w->nranks, sizeof(bool));
	w->mr_of = calloc(w->nranks, sizeof(uint32_t));
	w->result = calloc(w->nranks, sizeof(*w->result));
	w->result_len = calloc(w->nranks, sizeof(size_t));
	if (!w->peer_of_qpn || !w->peer_rkey || !w->mrtab_va || !w->got || !w->failed ||
		!w->merged || !w->mr_of || !w->result || !w->result_len)
		return -ENOMEM;
	e = new_hist(&job->output.hist, &w->msg_ns);
	e = e ?: new_hist(&job->output.hist, &w->step_ns);
	e = e ?: new_hist(&job->output.hist, &w->rtt_ns);
	if (e) {
		snprintf(err, errlen, "output.hist: %s", strerror(-e));
		return e;
	}
	e = mrc_job_outdir(job, err, errlen); /* parents, output names, an earlier run's files */
	if (e)
		return e;
	/* the launcher or rendezvous first, from the namespace this process started in */
	e = w->boot->connect(w, err, errlen);
	if (e)
		return e;
	*rank_out = w->rank;
	if (o->netns) {
		e = mrc_netns_name(o->netns, w->rank, ns, sizeof(ns), err, errlen);
		e = e ?: mrc_netns_enter(ns, NULL, "netns", err, errlen);
		if (e)
			return e;
	}
	e = wr_setup_faults(w, err, errlen);
	e = e ?: wr_setup_ports(w, err, errlen);
	e = e ?: wr_setup_loop(w, err, errlen);
	e = e ?: wr_setup_probe_codec(w);
	e = e ?: wr_setup_captures(w, err, errlen);
	if (e)
		return e;
	w->dp->run_once(w, 0); /* arm the receives before any peer can send */
	e = w->boot->join(w, err, errlen);
	if (e)
		return e;
	if (measure_rtt) {
		/* the endpoint after the base RTT: NSCC's parameters scale from it */
		e = wr_measure_rtt(w);
	} else { /* what the endpoint starts from; not measured */
		w->rtt_out->nranks = w->nranks;
		w->rtt_out->base_rtt_ns = job->mrc.cc.base_rtt_ps ? job->mrc.cc.base_rtt_ps / 1000 :
					  MRC_WIRERUN_RTT_DEFAULT_NS;
		w->rtt_out->source = job->mrc.cc.base_rtt_ps ? MRC_WIRERUN_RTT_CONFIG :
				     MRC_WIRERUN_RTT_DEFAULT;
	}
	if (e) {
		if (w->errmsg[0])
			snprintf(err, errlen, "%s", w->errmsg);
		else
			snprintf(err, errlen, "base RTT: %s", strerror(-e));
		return e;
	}
	e = wr_setup_ep(w, err, errlen);
	return e ?: w->xdp ? wr_xdp_start(w, err, errlen) : 0;
}

void wr_close(struct wr *w)
{
	if (w->boot)
		w->boot->close(w);
	mrc_coll_free(w->coll);
	wr_dataplane_close(w);
	wr_jobs_free(w);
	for (uint32_t k = 0; k < w->n_wph; k++) {
		mrc_coll_free(w->wph[k].coll);
		free(w->wph[k].peer_rkey);
		free(w->wph[k].va);
	}
	free(w->wph);
	for (uint32_t r = 0; w->result && r < w->nranks; r++)
		free(w->result[r]);
	free(w->result);
	free(w->result_len);
	free(w->conns);
	free(w->peer_of_qpn);
	free(w->peer_rkey);
	free(w->mrtab_va);
	free(w->got);
	free(w->failed);
	free(w->merged);
	free(w->mr_of);
	free(w->dtab);
	free(w->own);
	free(w->defq);
	free(w->bad);
	free(w->replies);
	mrc_wrtt_free(w->rtt);
	mrc_hist_free(w->msg_ns);
	mrc_hist_free(w->step_ns);
	mrc_hist_free(w->rtt_ns);
	mrc_job_srv6_free(&w->m);
}

int mrc_run_wire(const struct conf_job *job, const struct mrc_wirerun_opts *o,
	struct mrc_run_result **out, struct mrc_wirerun_rtt *rtt, uint32_t *rank_out, char *err,
	size_t errlen)
{
	struct wr w = { .rtt_out = rtt, .n_qsets = (uint32_t)conf_jobs(job) };
	struct mrc_run_result *res = NULL;
	struct timespec w0;
	int e;

	*out = NULL;
	memset(rtt, 0, sizeof(*rtt));
	clock_gettime(CLOCK_MONOTONIC, &w0);
	e = wr_open(&w, job, o, mrc_job_endpoints(job), true, rank_out, err, errlen);
	if (e)
		goto out;
	if (w.rank == 0) {
		res = calloc(1, sizeof(*res));
		if (!res) {
			e = -ENOMEM;
			goto out;
		}
		res->nranks = w.nranks;
		res->xdp_threads = job->wire.xdp_threads ? job->wire.xdp_threads :
			job->fabric.planes;
		res->bootstrap = w.boot->name;
		e = new_hist(&job->output.hist, &res->msg_ns);
		e = e ?: new_hist(&job->output.hist, &res->step_ns);
		e = e ?: new_hist(&job->output.hist, &res->rtt_ns);
		if (e)
			goto out;
	}
	e = conf_jobs(job) > 1 ? wr_run_jobs(&w, res, err, errlen) : run_sizes(&w, res, err,
		errlen);
	e = e ?: gather(&w, res, err, errlen);
	e = e ?: res ? wire_faults(&w, res) : 0;
	if (e)
		goto out;
	if (res && res->tx_encode_err)
		mrc_run_add_error(res, "encode: %llu packets could not be encoded and were never "
				       "sent", (unsigned long long)res->tx_encode_err);
	if (res && res->capture_errors)
		mrc_run_add_error(res,
			"capture: %llu captures could not be written (the hosts' "
			"stderr names each file)",
			(unsigned long long)res->capture_errors);
	for (size_t i = 0; !res && w.rank && i < w.n_taps; i++) {
		if (w.taps[i].failed) { /* rank 0 reports it too; this host's exit says so */
			snprintf(err, errlen, "%s", pcapw_error(w.taps[i].w));
			e = -EIO;
			goto out;
		}
	}
	if (res) {
		finish_times(res, &w0);
		*out = res;
		res = NULL;
	}
out:
	if (e && w.boot) {
		if (!w.err) /* a setup error: the bootstrap's fail step reads w.err */
			w.err = e;
		/* tell the others why, so none waits for its timeout; collect what ran */
		w.boot->fail(&w, err, errlen);
	}
	if (e && w.rank == 0 && res && w.ep) {
		/* the report of what ran: the error, the ranks that failed, what they sent */
		merge_partial(&w, res, err);
		finish_times(res, &w0);
		*out = res;
		res = NULL;
	}
	wr_close(&w);
	mrc_run_result_free(res);
	return e;
}
