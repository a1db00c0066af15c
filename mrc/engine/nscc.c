/* SPDX-License-Identifier: BSD-2-Clause */
/* nscc: NSCC and fixed-window congestion control — docs/wire-format.md "Congestion control". */
#include "mrc/engine/nscc.h"

#include <errno.h>
#include <string.h>

#define REF_BDP_BYTES 150000.0	/* 100 Gb/s x 12 us, htsim uec.cpp's reference point */
#define REF_TARGET_PS 9000000.0 /* 0.75 x 12 us */

int mrc_cc_defaults(
	struct mrc_cc_params *p, uint64_t link_rate_bps, uint64_t base_rtt_ps, uint32_t mtu)
{
	double bdp, a, b;

	if (!link_rate_bps || !base_rtt_ps || !mtu)
		return -EINVAL;
	bdp = (double)link_rate_bps / 8.0 * ((double)base_rtt_ps * 1e-12);
	a = bdp / REF_BDP_BYTES;
	memset(p, 0, sizeof(*p));
	p->base_rtt_ps = base_rtt_ps;
	p->target_delay_ps = base_rtt_ps * 3 / 4;
	b = (double)p->target_delay_ps / REF_TARGET_PS;
	p->mtu = mtu;
	p->max_cwnd = (uint64_t)(1.5 * bdp);
	p->init_cwnd = (uint64_t)bdp;
	p->min_cwnd = mtu;
	if (p->max_cwnd < mtu)
		p->max_cwnd = mtu;
	if (p->init_cwnd < mtu)
		p->init_cwnd = mtu;
	p->eta = 4.0 * mtu * a * b;
	p->fi = mtu * a;
	p->fi_scale = 0.25;
	p->gamma = 0.8;
	p->max_md_jump = 0.5;
	p->qa_threshold_ps = 4 * p->target_delay_ps;
	p->qa_gate = 3;
	p->adjust_bytes_threshold = 8ull * mtu;
	p->adjust_period_threshold_ps = base_rtt_ps;
	return 0;
}

static void clamp(struct mrc_cc *cc)
{
	if (cc->cwnd > (double)cc->p->max_cwnd)
		cc->cwnd = (double)cc->p->max_cwnd;
	if (cc->cwnd < (double)cc->p->min_cwnd)
		cc->cwnd = (double)cc->p->min_cwnd;
}

/* ---- fixed ---- */

static void fixed_init(struct mrc_cc *cc)
{
	cc->cwnd = (double)cc->p->init_cwnd;
}

static void fixed_on_ack(
	struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t delay_ps, bool ecn)
{
	(void)cc;
	(void)now_ps;
	(void)acked_bytes;
	(void)delay_ps;
	(void)ecn;
}

static void fixed_on_event(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	(void)cc;
	(void)now_ps;
	(void)bytes;
}

static const struct mrc_cc_ops fixed_ops = {
	.name = "fixed",
	.init = fixed_init,
	.on_ack = fixed_on_ack,
	.on_trim = fixed_on_event,
	.on_loss = fixed_on_event,
};

/* ---- nscc ---- */

static void nscc_init(struct mrc_cc *cc)
{
	cc->cwnd = (double)cc->p->init_cwnd;
	clamp(cc);
	cc->fast_start_ps = UINT64_MAX;
	cc->last_quadrant = -1;
}

/* Quick adapt: fall back to what the last base RTT achieved, at most once per base RTT. */
static void nscc_quick_adapt(struct mrc_cc *cc, uint64_t now_ps)
{
	double achieved = (double)cc->last_win_acked;

	if (cc->p->disable_qa || now_ps < cc->qa_block_until_ps)
		return;
	cc->qa_block_until_ps = now_ps + cc->p->base_rtt_ps;
	if (achieved < cc->cwnd - cc->cwnd / (double)(1ull << cc->p->qa_gate)) {
		cc->cwnd = achieved;
		cc->inc_bytes = 0;
		cc->n_qa++;
		clamp(cc);
	}
}

static void nscc_on_ack(
	struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t delay_ps, bool ecn)
{
	const struct mrc_cc_params *p = cc->p;
	double d, target = (double)p->target_delay_ps, ab = (double)acked_bytes;
	int q;

	if (now_ps - cc->win_start_ps >= p->base_rtt_ps) {
		cc->last_win_acked = cc->win_acked;
		cc->win_acked = 0;
		cc->win_start_ps = now_ps;
	}
	cc->win_acked += acked_bytes;
	if (delay_ps == UINT64_MAX)
		return; /* no delay sample: nothing to steer by */
	d = (double)delay_ps;
	if (delay_ps > p->qa_threshold_ps)
		nscc_quick_adapt(cc, now_ps);

	if (!ecn && delay_ps < p->target_delay_ps)
		q = MRC_CCQ_PROPORTIONAL;
	else if (!ecn)
		q = MRC_CCQ_FAIR;
	else if (delay_ps >= p->target_delay_ps)
		q = MRC_CCQ_MD;
	else
		q = MRC_CCQ_NONE;
	cc->n_quadrant[q]++;
	cc->last_quadrant = q;

	if (q == MRC_CCQ_PROPORTIONAL && delay_ps < p->target_delay_ps / 4) {
		if (cc->fast_start_ps == UINT64_MAX)
			cc->fast_start_ps = now_ps;
	} else {
		cc->fast_start_ps = UINT64_MAX;
	}

	switch (q) {
	case MRC_CCQ_PROPORTIONAL:
		cc->inc_bytes += p->eta * ab / cc->cwnd * (target - d) / target;
		if (cc->fast_start_ps != UINT64_MAX && now_ps - cc->fast_start_ps >= p->base_rtt_ps)
			cc->inc_bytes += p->fi_scale * ab;
		break;
	case MRC_CCQ_FAIR:
		cc->inc_bytes += p->fi * ab / cc->cwnd;
		break;
	case MRC_CCQ_MD:
		if (!cc->md_done || now_ps - cc->last_md_ps >= p->base_rtt_ps) {
			double f = p->gamma * (d - target) / d;

			if (f > p->max_md_jump)
				f = p->max_md_jump;
			cc->cwnd *= 1.0 - f;
			cc->inc_bytes = 0;
			cc->md_done = true;
			cc->last_md_ps = now_ps;
			cc->n_md++;
		}
		break;
	default:
		break;
	}
	cc->acked_since_adjust += acked_bytes;
	if (cc->acked_since_adjust >= p->adjust_bytes_threshold ||
		now_ps - cc->last_adjust_ps >= p->adjust_period_threshold_ps) {
		cc->cwnd += cc->inc_bytes;
		cc->inc_bytes = 0;
		cc->acked_since_adjust = 0;
		cc->last_adjust_ps = now_ps;
	}
	clamp(cc);
}

static void nscc_on_trim(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	cc->cwnd -= (double)bytes;
	cc->n_trim_dec++;
	clamp(cc);
	nscc_quick_adapt(cc, now_ps);
}

static void nscc_on_loss(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	(void)bytes;
	nscc_quick_adapt(cc, now_ps);
}

static const struct mrc_cc_ops nscc_ops = {
	.name = "nscc",
	.init = nscc_init,
	.on_ack = nscc_on_ack,
	.on_trim = nscc_on_trim,
	.on_loss = nscc_on_loss,
};

static const struct mrc_cc_ops *const cc_table[] = {&nscc_ops, &fixed_ops};

const struct mrc_cc_ops *mrc_cc_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cc_table) / sizeof(cc_table[0]); i++)
		if (name && strcmp(name, cc_table[i]->name) == 0)
			return cc_table[i];
	return NULL;
}

void mrc_cc_init(struct mrc_cc *cc, const struct mrc_cc_ops *ops, const struct mrc_cc_params *p)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->p = p;
	ops->init(cc);
}

uint64_t mrc_cc_cwnd(const struct mrc_cc *cc)
{
	return cc->cwnd < (double)cc->p->min_cwnd ? cc->p->min_cwnd : (uint64_t)cc->cwnd;
}

void mrc_cc_on_ack(
	struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t delay_ps, bool ecn)
{
	cc->ops->on_ack(cc, now_ps, acked_bytes, delay_ps, ecn);
}

void mrc_cc_on_trim(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	cc->ops->on_trim(cc, now_ps, bytes);
}

void mrc_cc_on_loss(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	cc->ops->on_loss(cc, now_ps, bytes);
}
