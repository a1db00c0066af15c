/* SPDX-License-Identifier: BSD-2-Clause */
/* nscc_test: unit tests of mrc/engine/nscc.c (`mrcgen-test nscc`); includes nscc.c to reach its static helpers. */
#include "mrc/engine/nscc.c"
#include "mrc/base/st.h"

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
