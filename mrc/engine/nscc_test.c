/* SPDX-License-Identifier: BSD-2-Clause */
/* nscc_test: unit tests of mrc/engine/nscc.c (`mrcgen-test nscc`). */
#include "mrc/engine/nscc.c"
#include "mrc/base/st.h"

/*
 * Expected values are worked out by hand from UEC's reference formulas (htsim uec.cpp,
 * docs/wire-format.md "Congestion control"), each shown beside its check.
 */

#define US 1000000ull /* ps */

/* A profile where each rule can be seen alone: base RTT 10 us, target 5 us, every increase
 * term 0 (a case turns on what it checks), window 100,000 of at most 1,000,000. */
static void st_params(struct mrc_cc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->base_rtt_ps = 10 * US;
	p->target_delay_ps = 5 * US;
	p->gamma = 0.8;
	p->max_md_jump = 0.5;
	p->delay_alpha = 1.0;
	p->max_cwnd = 1000000;
	p->max_cwnd_fixed = true;
	p->min_cwnd = 4096;
	p->init_cwnd = 100000;
	p->qa_threshold_ps = 20 * US;
	p->qa_gate = 3;
	p->adjust_bytes_threshold = 8192;
	p->adjust_period_threshold_ps = 10 * US;
	p->disable_qa = true;
	p->mtu = 4096;
	p->link_rate_bps = 100000000000ull;
}

MRC_SELFTEST(nscc)
{
	struct mrc_cc_params p;
	struct mrc_cc cc;
	const struct mrc_cc_ops *nscc = mrc_cc_find("nscc");

	mrc_st_case(st, "N01 defaults at 100 Gb/s, 12 us, MSS 4096, trimming: htsim's reference");
	ST_EQ_I(st, mrc_cc_defaults(&p, 100000000000ull, 12 * US, 4096, true), 0);
	/* BDP = 12.5 GB/s x 12 us = 150,000 B, a = 1; target 0.75 x 12 = 9 us, b = 0.75 */
	ST_EQ(st, p.max_cwnd, 225000); /* 1.5 BDP */
	ST_EQ(st, p.init_cwnd, 225000);
	ST_EQ(st, p.min_cwnd, 4096);
	ST_EQ(st, p.target_delay_ps, 9 * US);
	ST_EQ_D(st, p.alpha, 4.0 * 4096 * 0.75 / 9e6, 1e-12); /* 1.365e-3 B/ps */
	ST_EQ_D(st, p.eta, 614.4, 1e-9);		      /* 0.15 x 4096 */
	ST_EQ_D(st, p.fi, 20480.0, 1e-9);		      /* 5 x 4096 */
	ST_EQ_D(st, p.fi_scale, 0.25, 1e-12);
	ST_EQ_D(st, p.gamma, 0.8, 1e-12);
	ST_EQ_D(st, p.max_md_jump, 0.5, 1e-12);
	ST_EQ_D(st, p.delay_alpha, 0.0125, 1e-12);
	ST_EQ(st, p.qa_threshold_ps, 36 * US); /* 4 x target */
	ST_EQ(st, p.qa_gate, 3);
	ST_EQ(st, p.adjust_bytes_threshold, 32768); /* 8 MTU */
	ST_EQ(st, p.adjust_period_threshold_ps, 12 * US);
	ST_TRUE(st, mrc_cc_find("fixed") != NULL && mrc_cc_find("reno") == NULL);

	mrc_st_case(st, "N02 defaults without trimming and at 400 Gb/s, 24 us");
	ST_EQ_I(st, mrc_cc_defaults(&p, 100000000000ull, 12 * US, 4096, false), 0);
	ST_EQ(st, p.target_delay_ps, 12 * US); /* 1.0 x RTT */
	ST_EQ(st, p.qa_threshold_ps, 48 * US);
	ST_EQ_D(st, p.alpha, 4.0 * 4096 / 12e6, 1e-12); /* b / target = 1 / 12 us either way */
	ST_EQ_I(st, mrc_cc_defaults(&p, 400000000000ull, 24 * US, 4096, true), 0);
	/* BDP = 50 GB/s x 24 us = 1,200,000 B: a = 8; target 18 us, b = 1.5 */
	ST_EQ(st, p.max_cwnd, 1800000);
	ST_EQ_D(st, p.eta, 0.15 * 4096 * 8, 1e-9);
	ST_EQ_D(st, p.fi, 5.0 * 4096 * 8, 1e-9);
	ST_EQ_D(st, p.fi_scale, 2.0, 1e-12);
	ST_EQ_D(st, p.alpha, 4.0 * 4096 * 8 * 1.5 / 18e6, 1e-12);
	ST_EQ_I(st, mrc_cc_defaults(&p, 0, 1, 1, true), -EINVAL);

	mrc_st_case(st, "N03 ECN + delay >= target: MD on the average, once per base RTT, floor");
	st_params(&p);
	mrc_cc_init(&cc, nscc, &p);
	/* at 11 us (> one base RTT after 0), RTT 20 us: delay 10 us, average 10 us (gain 1):
	 * factor 1 - 0.8 x (10 - 5) / 10 = 0.6 -> 60,000 */
	mrc_cc_on_ack(&cc, 11 * US, 4096, 20 * US, true, 0);
	ST_EQ_D(st, cc.cwnd, 60000.0, 1e-6);
	mrc_cc_on_ack(&cc, 16 * US, 4096, 20 * US, true, 0); /* 5 us later: no second MD */
	ST_EQ_D(st, cc.cwnd, 60000.0, 1e-6);
	/* 11 us after it, delay 50 us: 1 - 0.8 x 45 / 50 = 0.28, floored at 0.5 -> 30,000 */
	mrc_cc_on_ack(&cc, 22 * US, 4096, 60 * US, true, 0);
	ST_EQ_D(st, cc.cwnd, 30000.0, 1e-6);
	ST_EQ(st, cc.n_md, 2);
	ST_EQ(st, cc.n_quadrant[MRC_CCQ_MD], 3);

	mrc_st_case(st, "N04 delay EWMA: a delay over target without ECN counts as base RTT / 4");
	st_params(&p);
	p.delay_alpha = 0.5;
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 1 * US, 4096, 30 * US, false, 0); /* delay 20 us > 5: sample 2.5 us */
	ST_EQ_D(st, cc.avg_delay_ps, 0.5 * 2.5e6, 1e-3);
	mrc_cc_on_ack(&cc, 2 * US, 4096, 30 * US, true, 0); /* with ECN the 20 us itself */
	ST_EQ_D(st, cc.avg_delay_ps, 0.5 * 20e6 + 0.5 * 1.25e6, 1e-3);
	/* the quadrant is the ACK's own delay's: 4 us < 5 with ECN is "no change", although
	 * the average (10.625 us) is over the target */
	mrc_cc_on_ack(&cc, 11 * US, 4096, 10 * US + 4 * US, true, 0);
	ST_EQ_D(st, cc.cwnd, 100000.0, 1e-9);
	ST_EQ(st, cc.last_quadrant, MRC_CCQ_NONE);

	mrc_st_case(st, "N05 ECN + delay < target: no change");
	st_params(&p);
	mrc_cc_init(&cc, nscc, &p);
	for (int i = 0; i < 10; i++)
		mrc_cc_on_ack(&cc, (uint64_t)i * US, 4096, 10 * US + 4999999, true, 0);
	ST_EQ_D(st, cc.cwnd, 100000.0, 1e-9);
	ST_EQ(st, cc.n_quadrant[MRC_CCQ_NONE], 10);

	mrc_st_case(st, "N06 proportional increase alpha x acked x (target - delay), over cwnd");
	st_params(&p);
	p.alpha = 1e-3; /* B/ps */
	mrc_cc_init(&cc, nscc, &p);
	/* delay 2.5 us: each 4096 B ACK adds 1e-3 x 4096 x 2.5e6 = 10,240,000 B^2 */
	mrc_cc_on_ack(&cc, 0, 4096, 12500000, false, 0);
	mrc_cc_on_ack(&cc, 0, 4096, 12500000, false, 0);
	ST_EQ_D(st, cc.cwnd, 100000.0, 1e-9); /* 8192 acked: not more than the 8192 threshold */
	mrc_cc_on_ack(&cc, 0, 4096, 12500000, false, 0);
	/* 12,288 > 8192: cwnd += 30,720,000 / 100,000 = 307.2; no eta (0 us since the last) */
	ST_EQ_D(st, cc.cwnd, 100307.2, 1e-6);
	ST_EQ(st, cc.n_quadrant[MRC_CCQ_PROPORTIONAL], 3);

	mrc_st_case(st, "N07 fair increase fi x acked over cwnd, and eta once per adjust period");
	st_params(&p);
	p.fi = 4096;
	p.eta = 100;
	mrc_cc_init(&cc, nscc, &p);
	/* delay = target: fair. 4096 x 12,288 / 100,000 = 503.31648 */
	mrc_cc_on_ack(&cc, 0, 12288, 15 * US, false, 0);
	ST_EQ_D(st, cc.cwnd, 100503.31648, 1e-6);
	/* 10 us later (not more than the period): 4096 B, no adjustment yet */
	mrc_cc_on_ack(&cc, 10 * US, 4096, 15 * US, false, 0);
	ST_EQ_D(st, cc.cwnd, 100503.31648, 1e-6);
	/* 11 us: period passed: += 4096 x 8192 / 100,503.31648 + eta 100 */
	mrc_cc_on_ack(&cc, 11 * US, 4096, 15 * US, false, 0);
	ST_EQ_D(st, cc.cwnd, 100503.31648 + 4096.0 * 8192 / 100503.31648 + 100, 1e-6);

	mrc_st_case(st, "N08 fast increase after a cwnd of bytes at under 1 us of delay");
	st_params(&p);
	p.fi_scale = 0.25;
	mrc_cc_init(&cc, nscc, &p);
	for (int i = 0; i < 24; i++) /* 24 x 4096 = 98,304, not more than 100,000 */
		mrc_cc_on_ack(&cc, 0, 4096, 10 * US + 500000, false, 0);
	ST_EQ_D(st, cc.cwnd, 100000.0, 1e-9);
	mrc_cc_on_ack(&cc, 0, 4096, 10 * US + 500000, false, 0); /* 102,400: += 4096 x 0.25 */
	ST_EQ_D(st, cc.cwnd, 101024.0, 1e-9);
	mrc_cc_on_ack(&cc, 0, 4096, 10 * US + 500000, false, 0); /* on: again */
	ST_EQ_D(st, cc.cwnd, 102048.0, 1e-9);
	mrc_cc_on_ack(&cc, 0, 4096, 12 * US, false, 0); /* 2 us: off, count reset */
	mrc_cc_on_ack(&cc, 0, 4096, 10 * US + 500000, false, 0);
	ST_EQ_D(st, cc.cwnd, 102048.0, 1e-9);
	ST_EQ(st, cc.n_fast, 2);

	mrc_st_case(st, "N09 quick adapt: trim, window end, gate maxwnd >> 3, ignored bytes");
	st_params(&p);
	p.disable_qa = false;
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 1 * US, 20000, UINT64_MAX, false, 0); /* arms: window to 16 us */
	ST_EQ(st, cc.qa_end_ps, 16 * US);			 /* 1 + base 10 + target 5 */
	mrc_cc_on_ack(&cc, 10 * US, 30000, UINT64_MAX, false, 0);
	/* a trim after the window: achieved 30,000 < 1,000,000 >> 3 = 125,000: cwnd = 30,000,
	 * no cut for the trimmed bytes, the 50,000 in flight ignored */
	mrc_cc_on_trim(&cc, 17 * US, 4096, 50000);
	ST_EQ_D(st, cc.cwnd, 30000.0, 1e-9);
	ST_EQ(st, cc.n_qa, 1);
	ST_EQ(st, cc.n_trim_dec, 0);
	ST_EQ(st, cc.bytes_to_ignore, 50000);
	/* inside the ignored bytes an ECN ACK (would MD) and a trim (would cut) change nothing */
	mrc_cc_on_ack(&cc, 18 * US, 4096, 60 * US, true, 40000);
	mrc_cc_on_trim(&cc, 19 * US, 4096, 40000);
	ST_EQ_D(st, cc.cwnd, 30000.0, 1e-9);
	ST_EQ(st, cc.n_md + cc.n_trim_dec + cc.n_quadrant[MRC_CCQ_MD], 0);
	/* a window that achieved maxwnd >> 3 or more: no QA, the trim cuts its bytes */
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 1 * US, 1, UINT64_MAX, false, 0);
	mrc_cc_on_ack(&cc, 2 * US, 125000, UINT64_MAX, false, 0);
	mrc_cc_on_trim(&cc, 17 * US, 4096, 50000);
	ST_EQ_D(st, cc.cwnd, 95904.0, 1e-9);
	ST_EQ(st, cc.n_qa, 0);
	/* a delay over qa_threshold (20 us) alone triggers it: cwnd = this window's 8192 */
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 1 * US, 4096, UINT64_MAX, false, 0);
	mrc_cc_on_ack(&cc, 17 * US, 8192, 10 * US + 21 * US, false, 0);
	ST_EQ_D(st, cc.cwnd, 8192.0, 1e-9);
	ST_EQ(st, cc.n_qa, 1);
	/* ... and 20 us exactly does not */
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_ack(&cc, 1 * US, 4096, UINT64_MAX, false, 0);
	mrc_cc_on_ack(&cc, 17 * US, 8192, 10 * US + 20 * US, false, 0);
	ST_EQ(st, cc.n_qa, 0);

	mrc_st_case(st, "N10 RTO: the resent packet's bytes; a loss without a trim cuts nothing");
	st_params(&p);
	mrc_cc_init(&cc, nscc, &p);
	mrc_cc_on_rto(&cc, 0, 4096);
	ST_EQ_D(st, cc.cwnd, 95904.0, 1e-9);
	mrc_cc_on_loss(&cc, 0, 4096, 50000);
	ST_EQ_D(st, cc.cwnd, 95904.0, 1e-9);
	ST_TRUE(st, cc.trigger_qa);
	mrc_cc_on_rto(&cc, 0, 1000000); /* floor: one MTU */
	ST_EQ(st, mrc_cc_cwnd(&cc), 4096);

	mrc_st_case(st, "N11 base RTT: the smallest RTT seen, and maxwnd 1.5 BDP from it");
	ST_EQ_I(st, mrc_cc_defaults(&p, 100000000000ull, 12 * US, 4096, true), 0);
	mrc_cc_init(&cc, nscc, &p);
	ST_EQ(st, cc.maxwnd, 225000);
	mrc_cc_on_ack(&cc, 1 * US, 4096, 8 * US, false, 0);
	/* 1.5 x 12.5 GB/s x 8 us = 150,000; the window (225,000) is cut to it */
	ST_EQ(st, cc.base_rtt_ps, 8 * US);
	ST_EQ(st, cc.maxwnd, 150000);
	ST_EQ(st, mrc_cc_cwnd(&cc), 150000);
	mrc_cc_on_ack(&cc, 2 * US, 4096, 9 * US, false, 0); /* a larger RTT changes nothing */
	ST_EQ(st, cc.base_rtt_ps, 8 * US);

	mrc_st_case(st, "N12 fixed: the window never moves");
	st_params(&p);
	mrc_cc_init(&cc, mrc_cc_find("fixed"), &p);
	mrc_cc_on_ack(&cc, 11 * US, 4096, 60 * US, true, 0);
	mrc_cc_on_trim(&cc, 12 * US, 4096, 0);
	mrc_cc_on_rto(&cc, 13 * US, 4096);
	ST_EQ(st, mrc_cc_cwnd(&cc), 100000);

	mrc_st_case(st, "N13 rcv_cwnd_pen: cut newly x pen >> 7 (64: half of 8192 = 4096, then 127 "
			"of 1000: 992), at least min_cwnd; restore: back to the window before");
	st_params(&p);
	mrc_cc_init(&cc, mrc_cc_find("nscc"), &p);
	mrc_cc_on_rcv_pen(&cc, 8192, 64, false);
	ST_EQ(st, mrc_cc_cwnd(&cc), 100000 - 4096);
	mrc_cc_on_rcv_pen(&cc, 1000, 127, false);
	ST_EQ(st, mrc_cc_cwnd(&cc), 100000 - 4096 - 992);
	mrc_cc_on_rcv_pen(&cc, 1u << 30, 127, false);
	ST_EQ(st, mrc_cc_cwnd(&cc), 4096);
	mrc_cc_on_rcv_pen(&cc, 0, 0, true);
	ST_EQ(st, mrc_cc_cwnd(&cc), 100000);
	mrc_cc_init(&cc, mrc_cc_find("fixed"), &p);
	mrc_cc_on_rcv_pen(&cc, 8192, 127, false);
	ST_EQ(st, mrc_cc_cwnd(&cc), 100000);
}
