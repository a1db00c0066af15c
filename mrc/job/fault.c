/* SPDX-License-Identifier: BSD-2-Clause */
/* fault: the fault timeline and its bookkeeping, for both drivers (fault.h). */
#include "mrc/job/fault.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double mrc_run_capacity_left(const struct conf_fabric *f, const struct conf_fault *cf)
{
	double planes = f->planes;

	/* loss and delay leave every link up: the goodput target is the clean level */
	if (cf->action == CONF_FA_UP || cf->action == CONF_FA_CLEAR ||
		cf->action == CONF_FA_LOSS || cf->action == CONF_FA_DELAY)
		return 1.0;
	switch (cf->node.kind) {
	case CONF_NODE_T1:
		return 1.0 - 1.0 / (planes * f->t1);
	case CONF_NODE_T0:
	case CONF_NODE_PORT:
	case CONF_NODE_LINK_HOST_T0:
		return 1.0 - 1.0 / planes; /* a rank loses a plane: the collective follows it */
	case CONF_NODE_LINK_T0_T1:
		return 1.0 - 1.0 / (planes * f->t1 * f->t0);
	case CONF_NODE_HOST:
		return 0.0;
	}
	return 1.0;
}

bool mrc_fault_fires_at(const struct conf_fault *cf, bool warmup, uint32_t measured)
{
	return !warmup && cf->has_at_iteration && cf->at_iteration == measured;
}

uint64_t mrc_fault_until(const struct conf_fault *cf, uint64_t at_ps)
{
	return cf->has_duration ? at_ps + cf->duration_ps : UINT64_MAX;
}

uint64_t mrc_fault_flap_down_ps(uint64_t period_ps, double duty)
{
	return (uint64_t)((double)period_ps * duty);
}

bool mrc_fault_in_force(const struct conf_fault *cf, uint64_t at_ps, uint64_t now_ps)
{
	uint64_t phase;

	if (now_ps < at_ps || cf->action == CONF_FA_UP || cf->action == CONF_FA_CLEAR)
		return false;
	if (now_ps >= mrc_fault_until(cf, at_ps))
		return false;
	if (cf->action != CONF_FA_FLAP)
		return true;
	phase = (now_ps - at_ps) % cf->period_ps;
	return phase < mrc_fault_flap_down_ps(cf->period_ps, cf->duty);
}

int mrc_fault_fired(struct mrc_run_result *res, size_t index, uint64_t at_ps)
{
	struct mrc_run_fire *f;
	size_t k = res->n_fires;

	while (k && (res->fires[k - 1].at_ps > at_ps ||
			    (res->fires[k - 1].at_ps == at_ps && res->fires[k - 1].index >= index))) {
		if (res->fires[k - 1].at_ps == at_ps && res->fires[k - 1].index == index)
			return 0;
		k--;
	}
	f = realloc(res->fires, (res->n_fires + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	res->fires = f;
	memmove(f + k + 1, f + k, (res->n_fires - k) * sizeof(*f));
	f[k] = (struct mrc_run_fire){ .index = (uint32_t)index, .at_ps = at_ps };
	res->n_fires++;
	return 0;
}

void mrc_fault_not_applied(struct mrc_run_result *res, const struct conf_job *j,
	const struct conf_fault *cf, const char *fmt, ...)
{
	struct mrc_run_unapplied *u = realloc(res->unapplied, (res->n_unapplied + 1) * sizeof(*u));
	va_list ap;

	if (!u)
		return;
	res->unapplied = u;
	/* at_iteration fires once per size: one entry per configured fault */
	for (size_t i = 0; i < res->n_unapplied; i++)
		if (u[i].index == (uint32_t)(cf - j->faults))
			return;
	u = &u[res->n_unapplied++];
	memset(u, 0, sizeof(*u));
	u->index = (uint32_t)(cf - j->faults);
	snprintf(u->action, sizeof(u->action), "%s",
		conf_name_of(conf_fault_action_names, cf->action));
	snprintf(u->target, sizeof(u->target), "%s", cf->target);
	if (cf->has_at_iteration)
		snprintf(u->when, sizeof(u->when), "at_iteration %u", cf->at_iteration);
	else
		snprintf(u->when, sizeof(u->when), "at %.15gus", (double)cf->at_ps / 1e6);
	va_start(ap, fmt);
	vsnprintf(u->why, sizeof(u->why), fmt, ap);
	va_end(ap);
}


enum mrc_fault_kind mrc_fault_kind_of(const struct conf_fault *cf)
{
	switch (cf->action) {
	case CONF_FA_DOWN:
	case CONF_FA_UP:
		return cf->node.kind == CONF_NODE_PORT ? MRC_FK_NIC :
		       cf->node.kind == CONF_NODE_T0 || cf->node.kind == CONF_NODE_T1 ?
							 MRC_FK_SWITCH :
							 MRC_FK_LINK;
	case CONF_FA_DELAY:
		return MRC_FK_DELAY;
	case CONF_FA_FLAP:
		return MRC_FK_FLAP;
	case CONF_FA_BLACKHOLE:
		return MRC_FK_BLACKHOLE;
	case CONF_FA_LOSS:
	case CONF_FA_CLEAR:
	default:
		return MRC_FK_LOSS;
	}
}

const char *mrc_fault_action(enum mrc_fault_kind k, bool ends)
{
	static const char *const names[][2] = {
		[MRC_FK_LINK] = { "link_down", "link_up" },
		[MRC_FK_SWITCH] = { "switch_down", "switch_up" },
		[MRC_FK_NIC] = { "nic_down", "nic_up" },
		[MRC_FK_LOSS] = { "loss", "loss_end" },
		[MRC_FK_DELAY] = { "delay", "delay_end" },
		[MRC_FK_FLAP] = { "flap", "link_up" },
		[MRC_FK_BLACKHOLE] = { "blackhole", "unblackhole" },
	};

	if ((unsigned)k >= sizeof(names) / sizeof(names[0]))
		return "?";
	return names[k][ends];
}

static bool same_node(const struct conf_node *a, const struct conf_node *b)
{
	return a->kind == b->kind && a->plane == b->plane && a->host == b->host &&
	       a->t0 == b->t0 && a->t1 == b->t1;
}

bool mrc_fault_undoes(const struct conf_fault *j, const struct conf_fault *i)
{
	if (!same_node(&j->node, &i->node))
		return false;
	switch (i->action) {
	case CONF_FA_DOWN:
		return j->action == CONF_FA_UP;
	case CONF_FA_BLACKHOLE:
		return j->action == CONF_FA_CLEAR;
	case CONF_FA_FLAP:
		return j->action == CONF_FA_UP || j->action == CONF_FA_CLEAR;
	case CONF_FA_LOSS:
	case CONF_FA_DELAY:
		return j->action == CONF_FA_CLEAR || j->action == i->action;
	default:
		return false;
	}
}

struct mrc_run_fault *mrc_fault_row(struct mrc_run_result *res, const struct conf_job *j,
	const struct conf_fault *cf, enum mrc_fault_kind k, bool ends, const char *target,
	uint64_t at_ps, uint32_t iter)
{
	struct mrc_run_fault *nf = realloc(res->faults, (res->n_faults + 1) * sizeof(*nf));

	if (!nf)
		return NULL;
	res->faults = nf;
	nf = &res->faults[res->n_faults++];
	memset(nf, 0, sizeof(*nf));
	nf->at_ps = at_ps;
	nf->iter = iter;
	nf->last_iter = iter;
	snprintf(nf->action, sizeof(nf->action), "%s", mrc_fault_action(k, ends));
	snprintf(nf->target, sizeof(nf->target), "%s", target);
	nf->clears = ends;
	nf->first_retire_ps = -1;
	nf->recovery_ps = -1;
	nf->reconverge_ps = -1;
	nf->end_ps = -1;
	nf->capacity_frac = ends || !cf ? 1.0 : mrc_run_capacity_left(&j->fabric, cf);
	nf->lasting = (k == MRC_FK_LOSS || k == MRC_FK_DELAY) && !ends;
	if (cf && k == MRC_FK_FLAP && !ends) {
		nf->flap = true;
		nf->until_ps = mrc_fault_until(cf, at_ps);
	}
	return nf;
}

void mrc_fault_no_effect(struct mrc_run_result *res, const struct conf_job *j,
	const struct conf_fault *cf, uint64_t at_ps)
{
	bool link = cf->node.kind == CONF_NODE_LINK_T0_T1 ||
		    cf->node.kind == CONF_NODE_LINK_HOST_T0;
	double us = (double)at_ps / 1e6;

	if (cf->action == CONF_FA_UP)
		mrc_fault_not_applied(res, j, cf, "%s is not down at %.6g us%s", cf->target,
			us, link ? " (up ends a down; clear ends a loss, delay or blackhole)" : "");
	else if (cf->action == CONF_FA_BLACKHOLE)
		mrc_fault_not_applied(res, j, cf, "%s: the route is blackholed already at "
			"%.6g us", cf->target, us);
	else if (cf->action == CONF_FA_CLEAR)
		mrc_fault_not_applied(res, j, cf, "nothing to clear: no loss, delay or "
			"blackhole was in force on the link at %.6g us", us);
}

void mrc_fault_flap_counts(const struct conf_fault *cf, uint64_t at_ps, uint64_t end_ps,
	uint32_t *downs, uint32_t *toggles, uint64_t *last_up)
{
	uint64_t until = mrc_fault_until(cf, at_ps);
	uint64_t down_ps = mrc_fault_flap_down_ps(cf->period_ps, cf->duty);

	*downs = *toggles = 0;
	*last_up = at_ps;
	if (!cf->period_ps)
		return;
	for (uint64_t t = at_ps; t < until && t <= end_ps; t += cf->period_ps) {
		uint64_t up = t + down_ps < until ? t + down_ps : until;

		++*downs;
		++*toggles;
		if (up <= end_ps) {
			++*toggles;
			*last_up = up;
		}
	}
}

/*
 * The rows of firings @fi[@n] in time order @ord, by the shared rules (fault.h): what each
 * changed by the timeline (an up or clear ends what it undoes that is still in force, each
 * its own row named for what it ends; one that ends nothing, a blackhole of a route
 * blackholed already: faults_not_applied[]; a down of what is down already: nothing).
 */
static int timeline_rows(struct mrc_run_result *res, const struct conf_job *j,
	struct mrc_fault_fire *fi, const size_t *ord, size_t n, uint64_t run_end)
{
	for (size_t o = 0; o < n; o++) {
		struct mrc_fault_fire *f = &fi[ord[o]];
		const struct conf_fault *cf = &j->faults[f->conf];
		bool ends = cf->action == CONF_FA_UP || cf->action == CONF_FA_CLEAR, skip = false;
		size_t ended = 0;

		if (f->revert) {
			struct mrc_fault_fire *p = &fi[f->of];

			if (!p->applied || p->ended)
				continue; /* ended already: dropped, as the simulator does */
			p->ended = true;
			p->end_at = f->at;
			if (!mrc_fault_row(res, j, cf, mrc_fault_kind_of(cf), true, cf->target,
				    f->at, 0))
				return -ENOMEM;
			continue;
		}
		for (size_t q = 0; q < o; q++) {
			struct mrc_fault_fire *g = &fi[ord[q]];
			const struct conf_fault *gf = &j->faults[g->conf];

			if (g->revert || !g->applied || g->ended ||
				f->at >= mrc_fault_until(gf, g->at))
				continue;
			if (!ends &&
				(cf->action == CONF_FA_DOWN || cf->action == CONF_FA_BLACKHOLE) &&
				gf->action == cf->action &&
				!memcmp(&gf->node, &cf->node, sizeof(cf->node)))
				skip = true; /* down or blackholed already */
			if (!mrc_fault_undoes(cf, gf))
				continue;
			g->ended = true;
			g->end_at = f->at;
			if (ends && !mrc_fault_row(res, j, gf, mrc_fault_kind_of(gf), true,
					    cf->target, f->at, 0))
				return -ENOMEM;
			ended++;
		}
		if ((ends && !ended) || skip) {
			mrc_fault_no_effect(res, j, cf, f->at);
			continue;
		}
		if (ends)
			continue;
		f->applied = true;
		f->row = res->n_faults;
		if (!mrc_fault_row(res, j, cf, mrc_fault_kind_of(cf), false, cf->target, f->at, 0))
			return -ENOMEM;
	}
	/* a flap's counts from its timeline, to the run's end or what ended it */
	for (size_t i = 0; i < n; i++) {
		struct mrc_run_fault *rf;

		if (!fi[i].applied || !res->faults[fi[i].row].flap)
			continue;
		rf = &res->faults[fi[i].row];
		if (fi[i].ended && fi[i].end_at < rf->until_ps)
			rf->until_ps = fi[i].end_at;
		mrc_fault_flap_counts(&j->faults[fi[i].conf], fi[i].at,
			fi[i].ended ? fi[i].end_at : run_end, &rf->flap_downs, &rf->flap_toggles,
			&rf->flap_last_up_ps);
	}
	return 0;
}

int mrc_fault_timeline_rows(struct mrc_run_result *res, const struct conf_job *j,
	struct mrc_fault_fire *fi, size_t n, uint64_t run_end)
{
	size_t *ord = calloc(n + 1, sizeof(*ord));
	int e;

	if (!ord)
		return -ENOMEM;
	/* by time, then as listed (a fault before its own revert): a stable insertion sort */
	for (size_t i = 0; i < n; i++) {
		size_t k = i;

		for (; k > 0 && fi[ord[k - 1]].at > fi[i].at; k--)
			ord[k] = ord[k - 1];
		ord[k] = i;
	}
	e = timeline_rows(res, j, fi, ord, n, run_end);
	free(ord);
	return e;
}

static int cmp_unapplied(const void *a, const void *b)
{
	const struct mrc_run_unapplied *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

void mrc_fault_list_unfired(struct mrc_run_result *res, const struct conf_job *j,
	const bool *fired, uint64_t end_ps)
{
	for (size_t f = 0; f < j->n_faults; f++) {
		const struct conf_fault *cf = &j->faults[f];

		if (fired[f])
			continue;
		if (!cf->has_at_iteration)
			mrc_fault_not_applied(res, j, cf, "the run ended at %.6g us, before it",
				(double)end_ps / 1e6);
		else if (cf->at_iteration >= j->traffic.iterations)
			mrc_fault_not_applied(res, j, cf, "at_iteration %u: each size runs %u "
				"measured iterations (0 to %u)", cf->at_iteration,
				j->traffic.iterations, j->traffic.iterations - 1);
		else
			mrc_fault_not_applied(res, j, cf, "the job stopped before measured "
				"iteration %u", cf->at_iteration);
	}
	if (res->n_unapplied > 1)
		qsort(res->unapplied, res->n_unapplied, sizeof(*res->unapplied), cmp_unapplied);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* A fault (a flap: over its whole span) was in force during part of @it. */
static bool fault_in(const struct mrc_run_fault *rf, const struct mrc_run_iter *it)
{
	uint64_t end = it->start_ps + it->cct_ps;

	if (rf->iter == it->iter && !rf->clears)
		return true;
	return rf->flap && rf->at_ps < end &&
	       (rf->end_ps < 0 || (uint64_t)rf->end_ps > it->start_ps);
}

/* Goodput recovery of @rf over the whole bins of its window [first bin starting at or after
 * the fault, @win_end - @tail_bins bins): the first @dip_len consecutive bins below @target
 * are the dip; recovery is the start of the first two consecutive bins at or above @target
 * after it (README "Report schema"). Shorter runs below the band are noise, not a dip. */
static void recovery(const struct mrc_run_result *res, struct mrc_run_fault *rf,
	uint64_t win_end, uint64_t tail_bins, uint64_t dip_len, double target)
{
	uint64_t run = 0;

	size_t b0 = (rf->at_ps + res->bin_ps - 1) / res->bin_ps, end = win_end / res->bin_ps, d;

	end = end > tail_bins ? end - tail_bins : 0;
	if (end > res->n_bins)
		end = res->n_bins;
	if (end < b0 + 2) {
		rf->recovery_note = "its window held fewer than 2 whole goodput bins";
		return;
	}
	for (d = b0; d < end && run < dip_len; d++)
		run = res->bin_bytes[d] < target ? run + 1 : 0;
	if (run < dip_len) {
		rf->recovery_ps = 0;
		rf->recovery_note = "goodput never fell below 95% of the capacity left";
		return;
	}
	rf->dipped = true;
	for (size_t b = d; b + 1 < end; b++) {
		if (res->bin_bytes[b] >= target && res->bin_bytes[b + 1] >= target) {
			rf->recovery_ps = (int64_t)(b * res->bin_ps - rf->at_ps);
			return;
		}
	}
	rf->recovery_note = "goodput stayed below 95% of the capacity left until its window ended";
}

void mrc_fault_finish(struct mrc_run_result *res, const uint64_t *bad_t, size_t n_bad)
{
	double level = 0;
	uint64_t tail_bins = 0, noise_run = 0, *clean = calloc(res->n_bins + 1, sizeof(uint64_t));
	size_t n_clean = 0;
	/* fault-free mean CCT per size: a sweep's sizes are not comparable */
	double *clean_sum = calloc(res->n_sizes + 1, sizeof(double));
	double *clean_n = calloc(res->n_sizes + 1, sizeof(double));

	if (!clean_sum || !clean_n || !clean) {
		free(clean_sum);
		free(clean_n);
		free(clean);
		return;
	}

	/* a flap ends with its last up, once its time is over */
	for (size_t f = 0; f < res->n_faults; f++) {
		struct mrc_run_fault *rf = &res->faults[f];

		if (rf->flap && rf->until_ps <= res->sim_end_ps)
			rf->end_ps = (int64_t)(rf->flap_last_up_ps > rf->at_ps ?
				rf->flap_last_up_ps : rf->at_ps);
	}
	/* a loss or delay ends with the first later row ending one on its target */
	for (size_t f = 0; f < res->n_faults; f++) {
		struct mrc_run_fault *rf = &res->faults[f];
		char end[sizeof(rf->action) + 4];

		snprintf(end, sizeof(end), "%s_end", rf->action);
		for (size_t g = 0; rf->lasting && g < res->n_faults; g++) {
			const struct mrc_run_fault *e = &res->faults[g];

			if (e->clears && e->at_ps >= rf->at_ps && !strcmp(e->action, end) &&
				!strcmp(e->target, rf->target) &&
				(rf->end_ps < 0 || e->at_ps < (uint64_t)rf->end_ps))
				rf->end_ps = (int64_t)e->at_ps;
		}
	}
	/* which iterations ran with a fault in force: from a fault to what clears it */
	for (size_t i = 0; i < res->n_iters; i++) {
		struct mrc_run_iter *it = &res->iters[i];
		uint64_t end = it->start_ps + it->cct_ps;
		int depth = 0;

		for (size_t f = 0; f < res->n_faults; f++)
			if (res->faults[f].at_ps < end && !res->faults[f].flap)
				depth += res->faults[f].clears ? -1 : 1;
		it->degraded = depth > 0;
		for (size_t f = 0; f < res->n_faults; f++)
			if (fault_in(&res->faults[f], it))
				it->degraded = true;
		if (it->warmup || it->degraded)
			continue;
		clean_sum[it->size_idx] += (double)it->cct_ps;
		clean_n[it->size_idx]++;
		/* the whole bins inside clean iterations */
		for (size_t b = res->bin_ps ? (it->start_ps + res->bin_ps - 1) / res->bin_ps : 0;
			b < res->n_bins && (b + 1) * res->bin_ps <= end; b++)
			clean[n_clean++] = res->bin_bytes[b];
	}
	/* the clean goodput level: their median, which the bursts opening an iteration and
	 * its ramp-down do not move */
	if (n_clean) {
		qsort(clean, n_clean, sizeof(*clean), cmp_u64);
		level = n_clean % 2 ? (double)clean[n_clean / 2] :
				      ((double)clean[n_clean / 2 - 1] +
				       (double)clean[n_clean / 2]) / 2;
	}
	/* the collective's own ramp-down: the most trailing whole bins of a clean iteration
	 * below 95% of the clean level, where a fault's dip is not looked for; and the noise:
	 * the longest run below it before that, which a dip must outlast */
	for (size_t i = 0; level > 0 && i < res->n_iters; i++) {
		const struct mrc_run_iter *it = &res->iters[i];
		uint64_t first = (it->start_ps + res->bin_ps - 1) / res->bin_ps, run = 0;
		uint64_t tail = (it->start_ps + it->cct_ps) / res->bin_ps;

		if (it->warmup || it->degraded)
			continue;
		if (tail > res->n_bins)
			tail = res->n_bins;
		while (tail > first && res->bin_bytes[tail - 1] < 0.95 * level)
			tail--;
		if ((it->start_ps + it->cct_ps) / res->bin_ps - tail > tail_bins)
			tail_bins = (it->start_ps + it->cct_ps) / res->bin_ps - tail;
		/* and the longest run below that before it: the bins' own noise */
		for (uint64_t c = first; c < tail; c++) {
			run = res->bin_bytes[c] < 0.95 * level ? run + 1 : 0;
			if (run > noise_run)
				noise_run = run;
		}
	}
	for (size_t f = 0; f < res->n_faults; f++) {
		struct mrc_run_fault *rf = &res->faults[f];
		const struct mrc_run_iter *it = NULL, *last = NULL, *worst = NULL;
		double worst_infl = 0;
		uint64_t win_end;

		/* its window: its iteration; a flap's runs to the iteration it ended in, a
		 * loss's or delay's to the last that started while it was in force */
		for (size_t i = 0; i < res->n_iters; i++) {
			const struct mrc_run_iter *ii = &res->iters[i];

			if (ii->iter == rf->iter)
				it = last = ii;
			if (rf->flap && it && ii->iter > rf->iter &&
				(rf->end_ps < 0 || ii->start_ps <= (uint64_t)rf->end_ps))
				last = ii;
			if (rf->lasting && it && ii->iter > rf->iter &&
				(rf->end_ps < 0 || ii->start_ps < (uint64_t)rf->end_ps))
				last = ii;
		}
		win_end = last ? last->start_ps + last->cct_ps : res->sim_end_ps;
		for (size_t b = 0; b < n_bad; b++) {
			if (bad_t[b] >= rf->at_ps && bad_t[b] <= win_end) {
				int64_t t = (int64_t)(bad_t[b] - rf->at_ps);

				if (rf->first_retire_ps < 0 || t < rf->first_retire_ps)
					rf->first_retire_ps = t;
				rf->evs_retired++;
			}
		}
		/* rtx_bytes held the run's total when the fault fired: the delta to the end of
		 * its window */
		if (last) { /* the job failed in it: to the end of the run */
			uint64_t end = last->incomplete ? res->rtx_bytes : last->rtx_bytes_end;

			rf->rtx_bytes = end >= rf->rtx_bytes ? end - rf->rtx_bytes : 0;
		} else {
			rf->rtx_bytes = 0;
		}
		if (!it) {
			rf->recovery_note = "the fault fired after the last iteration";
			continue;
		}
		rf->measured = it->measured;
		rf->in_warmup = it->warmup;
		rf->last_iter = last->iter;
		rf->last_measured = last->measured;
		rf->last_in_warmup = last->warmup;
		/* the worst iteration of the window names the inflation and the straggler */
		for (const struct mrc_run_iter *ii = it; ii <= last; ii++) {
			double infl;

			if (ii->incomplete) {
				rf->unfinished = true;
				continue;
			}
			infl = clean_n[ii->size_idx] && ii->cct_ps ?
				(double)ii->cct_ps /
				(clean_sum[ii->size_idx] / clean_n[ii->size_idx]) - 1.0 :
				0.0;
			if (!worst || infl > worst_infl) {
				worst = ii;
				worst_infl = infl;
			}
		}
		rf->cct_inflation = worst_infl;
		if (worst) {
			rf->straggler_rank = worst->slowest_rank;
			rf->straggler_step = worst->slowest_step;
			rf->straggler_ev = worst->straggler_ev;
			rf->has_straggler_ev = worst->has_straggler_ev;
		}
		if (!res->bin_ps)
			continue; /* no goodput bins: the driver's note stays */
		if (!n_clean) {
			rf->recovery_note =
				"no fault-free iteration to take the goodput level from";
			continue;
		}
		recovery(res, rf, win_end, tail_bins, noise_run + 1 > 2 ? noise_run + 1 : 2,
			0.95 * rf->capacity_frac * level);
	}
	free(clean_sum);
	free(clean_n);
	free(clean);
}
