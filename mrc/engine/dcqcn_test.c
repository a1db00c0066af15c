/* SPDX-License-Identifier: BSD-2-Clause */
/* dcqcn_test: unit tests of mrc/engine/dcqcn.c (`mrcgen-test dcqcn`). */
#include "mrc/engine/dcqcn.c"
#include "mrc/base/st.h"

#include <math.h>

/*
 * Expected values are worked out by hand from the paper's formulas (Zhu et al., SIGCOMM
 * 2015, section 3.1 and figure 6) with ConnectX's parameters and timing (docs/config.md
 * "mrc.cc.dcqcn"), each beside its check: k = dce_tcp_g / 1024 = 1019/1024 is what alpha
 * keeps per period, g = 1 - k, a0 = initial_alpha_value / 1024 = 1023/1024, R = 100 Gb/s.
 */

#define US 1000000ull /* ps */
#define R 100e9
#define K (1019.0 / 1024.0)
#define A0 (1023.0 / 1024.0)
#define RTOL 1e-3 /* b/s */

static void st_params(struct mrc_dcqcn_params *p)
{
	mrc_dcqcn_defaults(p, 100000000000ull);
}

MRC_SELFTEST(dcqcn)
{
	struct mrc_dcqcn_params p;
	struct mrc_dcqcn d;
	double a, rc1, rc2, rc, rt;

	mrc_st_case(st, "D01 defaults: ConnectX's published values");
	st_params(&p);
	ST_EQ(st, p.max_rate_bps, 100000000000ull);
	ST_EQ(st, p.time_reset_ps, 300 * US);	/* rpg_time_reset 300 */
	ST_EQ(st, p.byte_reset, 32767);		/* rpg_byte_reset */
	ST_EQ(st, p.threshold, 1);		/* rpg_threshold */
	ST_EQ(st, p.ai_rate_bps, 5000000);	/* rpg_ai_rate 5 Mb/s */
	ST_EQ(st, p.hai_rate_bps, 50000000);	/* rpg_hai_rate 50 Mb/s */
	ST_EQ(st, p.gd, 11);			/* rpg_gd */
	ST_EQ(st, p.min_dec_fac, 50);		/* rpg_min_dec_fac */
	ST_EQ(st, p.min_rate_bps, 1000000);	/* rpg_min_rate 1 Mb/s */
	ST_EQ(st, p.first_cnp_rate_bps, 0);	/* rate_to_set_on_first_cnp */
	ST_EQ(st, p.g, 1019);			/* dce_tcp_g */
	ST_EQ(st, p.alpha_period_ps, 1 * US);	/* dce_tcp_rtt */
	ST_EQ(st, p.initial_alpha, 1023);	/* initial_alpha_value */
	ST_EQ(st, p.reduce_period_ps, 4 * US);	/* rate_reduce_monitor_period */
	ST_TRUE(st, !p.clamp_tgt_rate && p.clamp_tgt_rate_after_time_inc);
	ST_EQ(st, p.cnp_interval_ps, 4 * US);	/* min_time_between_cnps */
	mrc_dcqcn_init(&d, &p);
	ST_EQ_D(st, d.rc, R, 0);
	ST_EQ_D(st, d.rt, R, 0);
	ST_EQ(st, mrc_dcqcn_on_sent(&d, &p, 0, 4160), 0); /* at the line rate: no gap */
	ST_EQ(st, d.bytes, 0);				  /* nor byte counting */

	mrc_st_case(st, "D02 the rate after 1 and 2 CNPs: cuts at the monitor period's end");
	st_params(&p);
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0); /* the first: alpha = a0, a cut due at 4 us */
	mrc_dcqcn_advance(&d, &p, 4 * US - 1);
	ST_EQ_D(st, d.rc, R, 0); /* not before the period ends */
	ST_EQ_D(st, d.alpha, A0 * pow(K, 3), 1e-15); /* periods ending at 1, 2, 3 us */
	mrc_dcqcn_advance(&d, &p, 4 * US);
	/* alpha at 4 us, four periods without a CNP (the first does not count): a0 k^4; the
	 * cut is Rc (1 - alpha 2^10 / 2^11); no increase came before: Rt stays R */
	a = A0 * pow(K, 4);
	rc1 = R * (1 - a / 2);
	ST_EQ_D(st, d.rc, rc1, RTOL);
	ST_EQ_D(st, d.rt, R, 0);
	ST_EQ(st, d.n_cut, 1);
	ST_EQ(st, d.inc_at_ps, 304 * US); /* the increase timer restarts at the cut */
	/* the second at 5.5 us: its period (5, 6] ends with alpha = k alpha + g; cut at 8 us */
	mrc_dcqcn_on_cnp(&d, &p, 5 * US + 500000);
	mrc_dcqcn_advance(&d, &p, 8 * US);
	a = (K * (a * K) + (1 - K)) * K * K; /* 5: a k, 6: k a5 + g, 7, 8: k each */
	rc2 = rc1 * (1 - a / 2);
	ST_EQ_D(st, d.alpha, a, 1e-15);
	ST_EQ_D(st, d.rc, rc2, RTOL);
	ST_EQ_D(st, d.rt, R, 0); /* still no increase between the cuts */
	ST_EQ(st, d.n_cut, 2);
	ST_EQ(st, d.n_cnp, 2);

	mrc_st_case(st, "D03 CNPs in one period make one cut; each counts for its alpha period");
	st_params(&p);
	mrc_dcqcn_init(&d, &p);
	for (unsigned i = 0; i < 4; i++)
		mrc_dcqcn_on_cnp(&d, &p, i * US); /* at 0 (the first), 1, 2, 3 us */
	mrc_dcqcn_advance(&d, &p, 4 * US);
	/* (0,1]: no flag -> a0 k; the CNP at 1 us comes after that update and flags (1,2], and
	 * so on: three updates k alpha + g */
	a = A0 * K;
	for (unsigned i = 0; i < 3; i++)
		a = K * a + (1 - K);
	ST_EQ_D(st, d.alpha, a, 1e-15);
	ST_EQ(st, d.n_cut, 1);
	ST_EQ_D(st, d.rc, R * (1 - a / 2), RTOL);

	mrc_st_case(st, "D04 alpha after n periods: a0 k^n without CNPs, from the first CNP");
	st_params(&p);
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 7 * US);
	mrc_dcqcn_advance(&d, &p, 7 * US + 1000 * US + 999999); /* 1000 periods, not 1001 */
	ST_EQ_D(st, d.alpha, A0 * pow(K, 1000), 1e-15);
	ST_EQ_D(st, d.alpha, 0.0074783, 0.0000001); /* 0.99902 x 0.99512^1000 */
	mrc_dcqcn_on_cnp(&d, &p, 1100 * US);	/* one more period with a CNP */
	mrc_dcqcn_advance(&d, &p, 1101 * US);
	a = A0 * pow(K, 1093) * K + (1 - K); /* periods end at 8 + n us: 1093 by 1101 us */
	ST_EQ_D(st, d.alpha, a, 1e-15);

	mrc_st_case(st, "D05 increase stages with F = 1: FR, AI (T or BC past F), HI (both)");
	st_params(&p);
	p.clamp_tgt_rate = true; /* Rt = Rc at every cut: the stages then show in Rt */
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0);
	mrc_dcqcn_on_cnp(&d, &p, 5 * US);
	mrc_dcqcn_advance(&d, &p, 8 * US);
	a = A0 * pow(K, 4);
	rc1 = R * (1 - a / 2); /* cut 1 at 4 us, Rt = R */
	a = (K * (a * K) + (1 - K)) * K * K;
	rc2 = rc1 * (1 - a / 2); /* cut 2 at 8 us, Rt = rc1 */
	ST_EQ_D(st, d.rt, rc1, RTOL);
	ST_EQ_D(st, d.rc, rc2, RTOL);
	ST_EQ(st, d.inc_at_ps, 308 * US);
	/* BC = 1, T = 0: max <= F: fast recovery; the gap is the packet at the rate before */
	ST_EQ(st, mrc_dcqcn_on_sent(&d, &p, 10 * US, 32767),
		(uint64_t)(32767 * 8e12 / rc2));
	rt = rc1;
	rc = (rt + rc2) / 2;
	ST_EQ_D(st, d.rc, rc, RTOL);
	ST_EQ(st, d.n_fr, 1);
	/* BC = 2, T = 0: additive increase */
	mrc_dcqcn_on_sent(&d, &p, 11 * US, 32767);
	rt += 5e6;
	rc = (rt + rc) / 2;
	ST_EQ_D(st, d.rt, rt, RTOL);
	ST_EQ_D(st, d.rc, rc, RTOL);
	/* the timer at 308 us: T = 1, BC = 2: additive */
	mrc_dcqcn_advance(&d, &p, 308 * US);
	rt += 5e6;
	rc = (rt + rc) / 2;
	ST_EQ_D(st, d.rc, rc, RTOL);
	ST_EQ(st, d.t_stage, 1);
	/* at 608 us: T = 2, BC = 2: hyper, Rt += (2 - 1) Rhai */
	mrc_dcqcn_advance(&d, &p, 608 * US);
	rt += 50e6;
	rc = (rt + rc) / 2;
	ST_EQ_D(st, d.rc, rc, RTOL);
	/* BC = 3, T = 2: hyper, min 2: 1 x Rhai; the timer at 908: T = 3, BC = 3: 2 x Rhai */
	mrc_dcqcn_on_sent(&d, &p, 609 * US, 32767);
	rt += 50e6;
	rc = (rt + rc) / 2;
	mrc_dcqcn_advance(&d, &p, 908 * US);
	rt += 100e6;
	rc = (rt + rc) / 2;
	ST_EQ_D(st, d.rt, rt, RTOL);
	ST_EQ_D(st, d.rc, rc, RTOL);
	ST_EQ(st, d.n_fr, 1);
	ST_EQ(st, d.n_ai, 2);
	ST_EQ(st, d.n_hai, 3);
	ST_EQ(st, d.last_inc, MRC_DCQCN_INC_TIMER);

	mrc_st_case(st, "D06 the target at a cut: clamped after a byte increase, or a timer one");
	st_params(&p); /* clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1 */
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0);
	mrc_dcqcn_advance(&d, &p, 304 * US); /* cut at 4, timer FR at 304 */
	rc = d.rc;
	ST_EQ(st, d.n_fr, 1);
	ST_EQ_D(st, d.rt, R, 0);
	mrc_dcqcn_on_cnp(&d, &p, 305 * US); /* cut at 308: the last increase was the timer's */
	mrc_dcqcn_advance(&d, &p, 308 * US);
	ST_EQ_D(st, d.rt, rc, RTOL);
	p.clamp_tgt_rate_after_time_inc = false;
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0);
	mrc_dcqcn_advance(&d, &p, 304 * US);
	mrc_dcqcn_on_cnp(&d, &p, 305 * US);
	mrc_dcqcn_advance(&d, &p, 308 * US);
	ST_EQ_D(st, d.rt, R, 0); /* a timer increase alone no longer moves the target */
	mrc_dcqcn_on_sent(&d, &p, 309 * US, 32767); /* a byte-counter increase */
	rc = d.rc;
	mrc_dcqcn_on_cnp(&d, &p, 310 * US);
	mrc_dcqcn_advance(&d, &p, 312 * US);
	ST_EQ_D(st, d.rt, rc, RTOL);

	mrc_st_case(st, "D07 floors: rpg_min_dec_fac bounds a cut, rpg_min_rate the rate");
	st_params(&p);
	p.gd = 10; /* a cut takes alpha x Rc: with alpha near 1 almost all */
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0);
	mrc_dcqcn_advance(&d, &p, 4 * US);
	ST_EQ_D(st, d.rc, R * 0.5, RTOL); /* R (1 - 0.98) < 50 % of R */
	p.min_dec_fac = 0;
	p.min_rate_bps = 40000000000ull;
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0);
	mrc_dcqcn_advance(&d, &p, 4 * US);
	ST_EQ_D(st, d.rc, 40e9, RTOL);
	p.min_rate_bps = 1000000;
	p.first_cnp_rate_bps = 20000000000ull; /* rate_to_set_on_first_cnp 20 Gb/s */
	p.gd = 11;
	p.min_dec_fac = 50;
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0);
	ST_EQ_D(st, d.rc, 20e9, 0);
	ST_EQ_D(st, d.rt, 20e9, 0);
	mrc_dcqcn_advance(&d, &p, 4 * US);
	ST_EQ_D(st, d.rc, 20e9 * (1 - A0 * pow(K, 4) / 2), RTOL); /* and cut as any */

	mrc_st_case(st, "D08 htsim's dcqcn.cpp, flow 1->0 of docs/htsim-comparison.md \"DCQCN\": "
			"its rates on its CNP times, with its constants");
	{
		/*
		 * htsim_roce -dcqcn 25 (2 flows of 4 MB into one host, 100 Gb/s), its stdout:
		 * CNPs at 15.0694, 65.0643 and 115.064 us cut the rate to 50, 25 and 12.5 Gb/s
		 * (RT = RC, RC x (1 - alpha / 2), alpha 1), then every 55 us fast recovery for
		 * T = 1..5 and additive increase at T = 6 (RT + RAI = 30 Gb/s). mrcgen with its
		 * constants (55 us, F 5, RAI 5 Gb/s, RHAI 10 Gb/s, g 1/256, no byte counter,
		 * clamp_tgt_rate) differs by its initial alpha (1023/1024: 0.05 % per cut) and
		 * cuts 1 us after the CNP (rate_reduce_monitor_period 1 us; htsim at once), so
		 * each event comes 1 us later; the rates agree within 0.3 %.
		 */
		static const struct { double t_us, rc; } h[] = {
			{ 15.0694, 50e9 }, { 65.0643, 25e9 }, { 115.064, 12.5e9 },
			{ 170.064, 18.75e9 }, { 225.064, 21.875e9 }, { 280.064, 23.4375e9 },
			{ 335.064, 24.21875e9 }, { 390.064, 24.609375e9 }, { 445.064, 27.3046875e9 },
		};

		st_params(&p);
		p.time_reset_ps = 55 * US;
		p.byte_reset = 0;
		p.threshold = 5;
		p.ai_rate_bps = 5000000000ull;
		p.hai_rate_bps = 10000000000ull;
		p.min_dec_fac = 0;
		p.g = 1020;
		p.alpha_period_ps = 55 * US;
		p.reduce_period_ps = 1 * US;
		p.clamp_tgt_rate = true;
		mrc_dcqcn_init(&d, &p);
		for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
			uint64_t t = (uint64_t)(h[i].t_us * 1e6);

			if (i < 3)
				mrc_dcqcn_on_cnp(&d, &p, t);
			mrc_dcqcn_advance(&d, &p, t + 1 * US - 1); /* not yet */
			ST_TRUE(st, i == 0 || d.rc > h[i].rc * 1.001 || d.rc < h[i].rc * 0.999);
			mrc_dcqcn_advance(&d, &p, t + 1 * US);
			ST_EQ_D(st, d.rc / h[i].rc, 1.0, 0.003); /* alpha: 3 cuts x 0.05 % */
		}
		ST_EQ_D(st, d.rt / 30e9, 1.0, 0.002); /* Rt = the second cut's rate + RAI */
		ST_EQ(st, d.n_fr, 5);
		ST_EQ(st, d.n_ai, 1);
	}

	mrc_st_case(st, "D09 back at the line rate: no gap, the timer and byte counter stop");
	st_params(&p);
	p.byte_reset = 0; /* the timer alone: fast recovery halves the gap to Rt = R */
	mrc_dcqcn_init(&d, &p);
	mrc_dcqcn_on_cnp(&d, &p, 0);
	mrc_dcqcn_advance(&d, &p, 4 * US);
	rc = d.rc;
	ST_EQ(st, mrc_dcqcn_on_sent(&d, &p, 5 * US, 4160), (uint64_t)(4160 * 8e12 / rc));
	ST_EQ(st, d.bytes, 0); /* no byte counter */
	mrc_dcqcn_advance(&d, &p, 304 * US);
	ST_EQ_D(st, d.rc, (R + rc) / 2, RTOL); /* T = 1 <= F: fast recovery */
	mrc_dcqcn_advance(&d, &p, 1000000 * US); /* 1 s: Rt = R, Rc reaches it and stops */
	ST_EQ_D(st, d.rc, R, 0);
	ST_EQ(st, d.inc_at_ps, UINT64_MAX);
	ST_EQ(st, mrc_dcqcn_on_sent(&d, &p, 1000001 * US, 4160), 0);
}
