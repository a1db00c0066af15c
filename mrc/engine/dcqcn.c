/* SPDX-License-Identifier: BSD-2-Clause */
/* dcqcn: the DCQCN reaction point — mrc/engine/dcqcn.h, docs/wire-format.md "DCQCN". */
#include "mrc/engine/dcqcn.h"

#include <string.h>

#define MBPS 1000000ull	 /* b/s */
#define US_PS 1000000ull /* ps */

void mrc_dcqcn_defaults(struct mrc_dcqcn_params *p, uint64_t max_rate_bps)
{
	memset(p, 0, sizeof(*p));
	p->max_rate_bps = max_rate_bps;
	p->min_rate_bps = 1 * MBPS;
	p->ai_rate_bps = 5 * MBPS;
	p->hai_rate_bps = 50 * MBPS;
	p->time_reset_ps = 300 * US_PS;
	p->byte_reset = 32767;
	p->threshold = 1;
	p->gd = 11;
	p->min_dec_fac = 50;
	p->first_cnp_rate_bps = 0;
	p->g = 1019;
	p->alpha_period_ps = 1 * US_PS;
	p->initial_alpha = 1023;
	p->reduce_period_ps = 4 * US_PS;
	p->clamp_tgt_rate = false;
	p->clamp_tgt_rate_after_time_inc = true;
	p->cnp_interval_ps = 4 * US_PS;
}

void mrc_dcqcn_init(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p)
{
	memset(d, 0, sizeof(*d));
	d->rc = d->rt = (double)p->max_rate_bps;
	d->inc_at_ps = UINT64_MAX;
}

/* @x to the power @n by squaring: a fixed order of operations, the same bits everywhere. */
static double pow_u(double x, uint64_t n)
{
	double r = 1.0;

	for (; n; n >>= 1, x *= x)
		if (n & 1)
			r *= x;
	return r;
}

/* The alpha periods ending at or before @t: the first with its CNP flag, the rest without. */
static void alpha_to(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t t)
{
	double keep = (double)p->g / 1024.0; /* 1 - g of the paper */
	uint64_t k;

	if (!d->active || d->alpha_at_ps > t)
		return;
	k = (t - d->alpha_at_ps) / p->alpha_period_ps + 1;
	d->alpha = keep * d->alpha + (d->alpha_cnp ? 1.0 - keep : 0.0);
	d->alpha *= pow_u(keep, k - 1);
	d->alpha_cnp = false;
	d->alpha_at_ps += k * p->alpha_period_ps;
}

/* The cut at the end of a reduce-monitor period that saw a CNP, at @t. */
static void rate_cut(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t t)
{
	double rc = d->rc, nr = rc * (1.0 - d->alpha * 1024.0 / (double)(1ull << p->gd));
	double lo = rc * (double)p->min_dec_fac / 100.0;

	if (p->clamp_tgt_rate || d->last_inc == MRC_DCQCN_INC_BYTES ||
		(p->clamp_tgt_rate_after_time_inc && d->last_inc == MRC_DCQCN_INC_TIMER))
		d->rt = rc;
	if (nr < lo)
		nr = lo;
	if (nr < (double)p->min_rate_bps)
		nr = (double)p->min_rate_bps;
	d->rc = nr;
	d->cut_cnp = false;
	d->t_stage = d->bc_stage = 0;
	d->bytes = 0;
	d->last_inc = MRC_DCQCN_INC_NONE;
	d->inc_at_ps = t + p->time_reset_ps;
	d->n_cut++;
}

/* One increase event of @kind, its stage counter already stepped (figure 6 of the paper). */
static void increase(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint8_t kind)
{
	uint32_t f = p->threshold;
	uint32_t hi = d->t_stage > d->bc_stage ? d->t_stage : d->bc_stage;
	uint32_t lo = d->t_stage < d->bc_stage ? d->t_stage : d->bc_stage;
	double max = (double)p->max_rate_bps;

	d->last_inc = kind;
	if (hi <= f) { /* fast recovery */
		d->n_fr++;
	} else if (lo > f) { /* hyper increase */
		d->rt += (double)(lo - f) * (double)p->hai_rate_bps;
		d->n_hai++;
	} else { /* additive increase */
		d->rt += (double)p->ai_rate_bps;
		d->n_ai++;
	}
	if (d->rt > max)
		d->rt = max;
	d->rc = (d->rt + d->rc) / 2.0;
	if (d->rc > max)
		d->rc = max;
}

void mrc_dcqcn_advance(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t now_ps)
{
	double max = (double)p->max_rate_bps;

	for (;;) {
		uint64_t tc = d->cut_cnp ? d->cut_at_ps : UINT64_MAX, ti = d->inc_at_ps;
		uint64_t t = tc <= ti ? tc : ti;

		if (t > now_ps)
			break;
		alpha_to(d, p, t); /* the alpha update of an instant comes before its cut */
		if (tc <= ti) {
			rate_cut(d, p, t);
			d->cut_at_ps = t + p->reduce_period_ps;
			continue;
		}
		d->inc_at_ps = t + p->time_reset_ps;
		if (d->rc < max) {
			d->t_stage++;
			increase(d, p, MRC_DCQCN_INC_TIMER);
		}
		if (d->rc >= max)
			d->inc_at_ps = UINT64_MAX; /* at the top: nothing to raise until a cut */
	}
	alpha_to(d, p, now_ps);
	/* reduce-monitor periods without a CNP pass idle: the current one ends after now */
	if (d->active && !d->cut_cnp && d->cut_at_ps <= now_ps)
		d->cut_at_ps += ((now_ps - d->cut_at_ps) / p->reduce_period_ps + 1) *
				p->reduce_period_ps;
}

void mrc_dcqcn_on_cnp(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t now_ps)
{
	mrc_dcqcn_advance(d, p, now_ps);
	d->n_cnp++;
	d->cut_cnp = true;
	if (d->active) {
		d->alpha_cnp = true;
		return;
	}
	d->active = true;
	d->alpha = (double)p->initial_alpha / 1024.0;
	d->alpha_at_ps = now_ps + p->alpha_period_ps;
	d->cut_at_ps = now_ps + p->reduce_period_ps;
	if (p->first_cnp_rate_bps) {
		uint64_t r = p->first_cnp_rate_bps < p->max_rate_bps ? p->first_cnp_rate_bps
								     : p->max_rate_bps;

		d->rc = d->rt = (double)r;
	}
}

uint64_t mrc_dcqcn_on_sent(
	struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t now_ps, uint64_t bytes)
{
	double max = (double)p->max_rate_bps;
	uint64_t gap = 0;

	mrc_dcqcn_advance(d, p, now_ps);
	if (d->rc >= max)
		return 0;
	gap = (uint64_t)((double)bytes * 8e12 / d->rc);
	if (!p->byte_reset)
		return gap;
	d->bytes += bytes;
	while (d->bytes >= p->byte_reset && d->rc < max) {
		d->bytes -= p->byte_reset;
		d->bc_stage++;
		increase(d, p, MRC_DCQCN_INC_BYTES);
	}
	if (d->rc >= max) {
		d->bytes = 0;
		d->inc_at_ps = UINT64_MAX;
	}
	return gap;
}
