/* SPDX-License-Identifier: BSD-2-Clause */
/* nscc: NSCC and fixed-window congestion control — WIRE.md "Congestion control". */
#include "mrc/nscc.h"
#include "mrc/st.h"

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

/* ---- selftest ---------------------------------------------------------------------- */

static void st_params(struct mrc_cc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->base_rtt_ps = 10000000; /* 10 us */
	p->target_delay_ps = 5000000;
	p->eta = 16384;
	p->fi = 4096;
	p->fi_scale = 0.25;
	p->gamma = 0.8;
	p->max_md_jump = 0.5;
	p->max_cwnd = 1000000;
	p->min_cwnd = 4096;
	p->init_cwnd = 100000;
	p->qa_threshold_ps = 20000000;
	p->qa_gate = 3;
	p->adjust_bytes_threshold = 8192;
	p->adjust_period_threshold_ps = 10000000;
	p->disable_qa = true;
	p->mtu = 4096;
}

MRC_SELFTEST(nscc)
{
	struct mrc_cc_params p;
	struct mrc_cc cc;
	const struct mrc_cc_ops *nscc = mrc_cc_find("nscc");

	mrc_st_case(st, "N01 defaults at 100 Gb/s, 12 us, 4096 B: the htsim reference point");
	ST_EQ_I(st, mrc_cc_defaults(&p, 100000000000ull, 12000000, 4096), 0);
	/* BDP = 12.5 GB/s * 12 us = 150,000 B; a = 1; target = 9 us; b = 1. */
	ST_EQ(st, p.init_cwnd, 150000);
	ST_EQ(st, p.max_cwnd, 225000);
	ST_EQ(st, p.min_cwnd, 4096);
	ST_EQ(st, p.target_delay_ps, 9000000);
	ST_EQ_D(st, p.eta, 16384.0, 1e-6);
	ST_EQ_D(st, p.fi, 4096.0, 1e-6);
	ST_EQ(st, p.qa_threshold_ps, 36000000);
	ST_EQ(st, p.adjust_bytes_threshold, 32768);
	ST_TRUE(st, mrc_cc_find("fixed") != NULL && mrc_cc_find("reno") == NULL);

	mrc_st_case(st, "N02 defaults scale with rate and RTT: 400 Gb/s, 24 us");
	ST_EQ_I(st, mrc_cc_defaults(&p, 400000000000ull, 24000000, 4096), 0);
	/* BDP = 50 GB/s * 24 us = 1,200,000 B; a = 8; target 18 us, b = 2. */
	ST_EQ(st, p.init_cwnd, 1200000);
	ST_EQ(st, p.max_cwnd, 1800000);
	ST_EQ_D(st, p.eta, 4.0 * 4096 * 8 * 2, 1e-6);
	ST_EQ_D(st, p.fi, 4096.0 * 8, 1e-6);
	ST_EQ_I(st, mrc_cc_defaults(&p, 0, 1, 1), -EINVAL);

	mrc_st_case(st, "N03 ECN + delay >= target: MD, at most once per base RTT, capped");
	st_params(&p);
	mrc_cc_init(&cc, nscc, &p);
	/* delay 10 us, target 5 us: f = 0.8 * 5 / 10 = 0.4 -> 60,000 */
	mrc_cc_on_ack(&cc, 1000000, 4096, 10000000, true);
	ST_EQ_D(st, cc.cwnd, 60000.0, 1e-6);
	mrc_cc_on_ack(&cc, 6000000, 4096, 10000000, true); /* 5 us later: no second MD */
	ST_EQ_D(st, cc.cwnd, 60000.0, 1e-6);
	/* 10 us after the first: delay 50 us, f = 0.8 * 45 / 50 = 0.72 -> capped 0.5 */
	mrc_cc_on_ack(&cc, 11000000, 4096, 50000000, true);
	ST_EQ_D(st, cc.cwnd, 30000.0, 1e-6);
	ST_EQ(st, cc.n_md, 2);

	mrc_st_case(st, "N04 ECN + delay < target: window unchanged");
	mrc_cc_init(&cc, nscc, &p);
	for (int i = 0; i < 10; i++)
		mrc_cc_on_ack(&cc, 1000000 * (uint64_t)i, 4096, 4999999, true);
	ST_EQ_D(st, cc.cwnd, 100000.0, 1e-9);
	ST_EQ(st, cc.n_quadrant[MRC_CCQ_NONE], 10);

	mrc_st_case(st, "N05 no ECN, delay < target: proportional increase, applied per 8 KiB");
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 0, 4096, 2500000, false);
	ST_EQ_D(st, cc.cwnd, 100000.0, 1e-9); /* 4096 < adjust_bytes_threshold 8192 */
	mrc_cc_on_ack(&cc, 0, 4096, 2500000, false);
	/* 2 x 16384 * 4096 / 100000 * (5 - 2.5) / 5 = 671.08864 */
	ST_EQ_D(st, cc.cwnd, 100671.08864, 1e-6);

	mrc_st_case(st, "N06 no ECN, delay >= target: fair increase fi * acked / cwnd");
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 0, 8192, 5000000, false);
	/* 4096 * 8192 / 100000 = 335.54432 */
	ST_EQ_D(st, cc.cwnd, 100335.54432, 1e-6);
	ST_EQ(st, cc.n_quadrant[MRC_CCQ_FAIR], 1);

	mrc_st_case(st, "N07 trim NACK: -bytes; quick adapt to the last RTT's achieved bytes");
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_trim(&cc, 0, 4096);
	ST_EQ_D(st, cc.cwnd, 95904.0, 1e-9);
	p.disable_qa = false;
	p.eta = p.fi = p.fi_scale = 0;
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 0, 20000, 0, false);
	mrc_cc_on_ack(&cc, 10000000, 1000, 0, false); /* window [0,10us) achieved 20,000 */
	mrc_cc_on_trim(&cc, 11000000, 4096);	      /* 95,904 -> QA: 20,000 < 95,904 * 7/8 */
	ST_EQ_D(st, cc.cwnd, 20000.0, 1e-9);
	mrc_cc_on_trim(&cc, 12000000, 4096); /* QA blocked for a base RTT */
	ST_EQ_D(st, cc.cwnd, 15904.0, 1e-9);
	ST_EQ(st, cc.n_qa, 1);
	for (int i = 0; i < 10; i++)
		mrc_cc_on_trim(&cc, 13000000, 4096);
	ST_EQ(st, mrc_cc_cwnd(&cc), 4096); /* floor: one MTU */

	mrc_st_case(st, "N08 fixed: the window never moves");
	mrc_cc_init(&cc, mrc_cc_find("fixed"), &p);
	mrc_cc_on_ack(&cc, 1000000, 4096, 10000000, true);
	mrc_cc_on_trim(&cc, 2000000, 4096);
	mrc_cc_on_loss(&cc, 3000000, 4096);
	ST_EQ(st, mrc_cc_cwnd(&cc), 100000);
}
