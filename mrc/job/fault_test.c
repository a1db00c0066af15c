/* SPDX-License-Identifier: BSD-2-Clause */
/* fault_test: unit tests of mrc/job/fault.c (`mrcgen-test fault`): timeline and bookkeeping. */
#include "mrc/job/fault.c"
#include "mrc/base/st.h"

#define US 1000000ull /* ps */

static void t_timeline(struct mrc_st *st)
{
	struct conf_fault it2 = { .has_at_iteration = true, .at_iteration = 2,
		.action = CONF_FA_DOWN };
	struct conf_fault at = { .has_at = true, .at_ps = 5 * US, .action = CONF_FA_DOWN };
	/* period 200 us, duty 0.5 from 1 us, for 1 ms: down [1, 101) us, up [101, 201) us,
	 * down again from 201 us, ... until 1001 us */
	struct conf_fault flap = { .has_at = true, .at_ps = 1 * US, .action = CONF_FA_FLAP,
		.period_ps = 200 * US, .duty = 0.5, .has_duration = true,
		.duration_ps = 1000 * US };
	struct conf_fault down = { .has_at = true, .action = CONF_FA_DOWN, .has_duration = true,
		.duration_ps = 2000 * US };
	struct conf_fault up = { .has_at = true, .action = CONF_FA_UP };

	mrc_st_case(st, "at_iteration 2: the start of measured iteration 2, never a warmup one");
	ST_TRUE(st, mrc_fault_fires_at(&it2, false, 2));
	ST_TRUE(st, !mrc_fault_fires_at(&it2, true, 2));
	ST_TRUE(st, !mrc_fault_fires_at(&it2, false, 1));
	ST_TRUE(st, !mrc_fault_fires_at(&it2, false, 3));
	ST_TRUE(st, !mrc_fault_fires_at(&at, false, 0)); /* a time fault fires by time */

	mrc_st_case(st, "duration: a down at 5 us for 2 ms reverts at 2005 us; none: never");
	ST_EQ(st, mrc_fault_until(&down, 5 * US), 2005 * US);
	ST_EQ(st, mrc_fault_until(&at, 5 * US), UINT64_MAX);
	ST_TRUE(st, !mrc_fault_in_force(&down, 5 * US, 5 * US - 1));
	ST_TRUE(st, mrc_fault_in_force(&down, 5 * US, 5 * US));
	ST_TRUE(st, mrc_fault_in_force(&down, 5 * US, 2005 * US - 1));
	ST_TRUE(st, !mrc_fault_in_force(&down, 5 * US, 2005 * US));
	ST_TRUE(st, mrc_fault_in_force(&at, 5 * US, 1000000 * US));
	ST_TRUE(st, !mrc_fault_in_force(&up, 0, 1 * US)); /* an up only ends others */

	mrc_st_case(st, "flap 200 us, duty 0.5 from 1 us for 1 ms: down [1,101), up [101,201)");
	ST_TRUE(st, !mrc_fault_in_force(&flap, 1 * US, 1 * US - 1));
	ST_TRUE(st, mrc_fault_in_force(&flap, 1 * US, 1 * US));
	ST_TRUE(st, mrc_fault_in_force(&flap, 1 * US, 101 * US - 1));
	ST_TRUE(st, !mrc_fault_in_force(&flap, 1 * US, 101 * US));
	ST_TRUE(st, !mrc_fault_in_force(&flap, 1 * US, 201 * US - 1));
	ST_TRUE(st, mrc_fault_in_force(&flap, 1 * US, 201 * US));
	ST_TRUE(st, mrc_fault_in_force(&flap, 1 * US, 801 * US)); /* 5th down: [801, 901) */
	ST_TRUE(st, !mrc_fault_in_force(&flap, 1 * US, 901 * US));
	ST_TRUE(st, !mrc_fault_in_force(&flap, 1 * US, 1000 * US)); /* phase 199 us: up */
	ST_TRUE(st, !mrc_fault_in_force(&flap, 1 * US, 1001 * US)); /* its duration ended */
	flap.duty = 0.25; /* down the first 50 us of each period */
	ST_TRUE(st, mrc_fault_in_force(&flap, 1 * US, 51 * US - 1));
	ST_TRUE(st, !mrc_fault_in_force(&flap, 1 * US, 51 * US));
	ST_TRUE(st, mrc_fault_in_force(&flap, 1 * US, 401 * US));
}

static void t_not_applied(struct mrc_st *st)
{
	struct conf_fault f[4] = {
		{ .has_at_iteration = true, .at_iteration = 7, .action = CONF_FA_DOWN,
			.target = "p0.t1.0" },
		{ .has_at_iteration = true, .at_iteration = 2, .action = CONF_FA_LOSS,
			.target = "h1.p0-p0.t0.0" },
		{ .has_at = true, .at_ps = 5000 * US, .action = CONF_FA_FLAP, .target = "h0.p1" },
		{ .has_at = true, .at_ps = 0, .action = CONF_FA_DOWN, .target = "p0.t1.1" },
	};
	bool fired[4] = { false, false, false, true };
	struct conf_job j = { .faults = f, .n_faults = 4 };
	struct mrc_run_result res = { 0 };

	j.traffic.iterations = 4;
	mrc_st_case(st, "faults_not_applied: past the iterations, not reached, after the run");
	/* listed before (a driver's own reason) and again: one entry, the first reason */
	mrc_fault_not_applied(&res, &j, &f[2], "%s", "its own reason");
	mrc_fault_list_unfired(&res, &j, fired, 1234500 * 1000ull);
	ST_EQ(st, res.n_unapplied, 3);
	if (res.n_unapplied != 3) {
		free(res.unapplied);
		return;
	}
	ST_EQ(st, res.unapplied[0].index, 0);
	ST_EQ_STR(st, res.unapplied[0].when, "at_iteration 7");
	ST_EQ_STR(st, res.unapplied[0].why, "at_iteration 7: each size runs 4 measured "
					    "iterations (0 to 3)");
	ST_EQ_STR(st, res.unapplied[0].action, "down");
	ST_EQ_STR(st, res.unapplied[0].target, "p0.t1.0");
	ST_EQ(st, res.unapplied[1].index, 1);
	ST_EQ_STR(st, res.unapplied[1].why, "the job stopped before measured iteration 2");
	ST_EQ(st, res.unapplied[2].index, 2);
	ST_EQ_STR(st, res.unapplied[2].when, "at 5000us");
	ST_EQ_STR(st, res.unapplied[2].why, "its own reason");
	res.n_unapplied = 0;
	mrc_fault_list_unfired(&res, &j, fired, 1234500 * 1000ull);
	ST_EQ_STR(st, res.unapplied[2].why, "the run ended at 1234.5 us, before it");
	free(res.unapplied);
}

/*
 * Four measured iterations of one size, CCT 90, 110, 150 and 130 us; a link down at 300 us
 * (iteration 2), its up at 500 us (iteration 3). Fault-free: 0, 1 and 3 (the up clears),
 * mean (90 + 110 + 130) / 3 = 110 us. The down's inflation: 150 / 110 - 1 = 4/11; the
 * up's: 130 / 110 - 1 = 2/11. EVs retired at 250 (before), 310, 305 and 460 us (past
 * iteration 2's end, 450): the down's window [300, 450] holds 2, the first 5 us after it.
 */
static void t_finish(struct mrc_st *st)
{
	struct mrc_run_iter it[4] = {
		{ .iter = 0, .measured = 0, .start_ps = 0, .cct_ps = 90 * US },
		{ .iter = 1, .measured = 1, .start_ps = 100 * US, .cct_ps = 110 * US },
		{ .iter = 2, .measured = 2, .start_ps = 300 * US, .cct_ps = 150 * US,
			.slowest_rank = 3, .slowest_step = 1, .straggler_ev = 0x42,
			.has_straggler_ev = true, .rtx_bytes_end = 4000 },
		{ .iter = 3, .measured = 3, .start_ps = 500 * US, .cct_ps = 130 * US,
			.slowest_rank = 1, .rtx_bytes_end = 4500 },
	};
	struct mrc_run_fault f[2] = {
		{ .at_ps = 300 * US, .iter = 2, .first_retire_ps = -1, .recovery_ps = -1,
			.rtx_bytes = 1000, .recovery_note = "driver" },
		{ .at_ps = 500 * US, .iter = 3, .clears = true, .first_retire_ps = -1,
			.recovery_ps = -1, .rtx_bytes = 4000 },
	};
	struct mrc_run_size size = { 0 };
	struct mrc_run_result res = { .iters = it, .n_iters = 4, .faults = f, .n_faults = 2,
		.sizes = &size, .n_sizes = 1, .sim_end_ps = 630 * US };
	uint64_t bad[] = { 250 * US, 310 * US, 305 * US, 460 * US };

	mrc_st_case(st, "recovery rows: CCT inflation 150/110 - 1, window EVs, straggler");
	mrc_fault_finish(&res, bad, 4);
	ST_TRUE(st, !it[0].degraded && !it[1].degraded && it[2].degraded && !it[3].degraded);
	ST_EQ_D(st, f[0].cct_inflation, 4.0 / 11.0, 1e-12);
	ST_EQ_D(st, f[1].cct_inflation, 2.0 / 11.0, 1e-12);
	ST_EQ_I(st, f[0].first_retire_ps, 5 * US);
	ST_EQ(st, f[0].evs_retired, 2);
	ST_EQ_I(st, f[1].first_retire_ps, -1);
	ST_EQ(st, f[1].evs_retired, 0);
	ST_EQ(st, f[0].rtx_bytes, 3000); /* 4000 at its window's end - 1000 at the fault */
	ST_EQ(st, f[1].rtx_bytes, 500);
	ST_EQ(st, f[0].straggler_rank, 3);
	ST_EQ(st, f[0].straggler_step, 1);
	ST_EQ(st, f[0].straggler_ev, 0x42);
	ST_TRUE(st, f[0].has_straggler_ev && !f[1].has_straggler_ev);
	ST_EQ(st, f[1].straggler_rank, 1);
	ST_EQ(st, f[0].measured, 2);
	ST_EQ(st, f[0].last_iter, 2);
	/* no goodput bins: recovery stays the driver's */
	ST_EQ_I(st, f[0].recovery_ps, -1);
	ST_EQ_STR(st, f[0].recovery_note, "driver");
}

/*
 * The same four iterations (CCT 90, 110, 150, 130 us from 0, 100, 300, 500 us). A loss on
 * a link from 100 us (iteration 1) to its loss_end at 500 us (as iteration 3 starts):
 * iterations 1 and 2 ran with it, the fault-free mean is (90 + 130) / 2 = 110 us and its
 * window is iterations 1 to 2, the worst 150 / 110 - 1 = 4/11 (its first iteration alone:
 * 0); the loss_end's, iteration 3: 130 / 110 - 1 = 2/11. Then a delay from 100 us that
 * nothing ends: iterations 1 to 3 ran with it, the mean is iteration 0's 90 us and the
 * window runs to the last iteration, the worst 150 / 90 - 1 = 2/3.
 */
static void t_finish_lasting(struct mrc_st *st)
{
	struct mrc_run_iter it[4] = {
		{ .iter = 0, .measured = 0, .start_ps = 0, .cct_ps = 90 * US },
		{ .iter = 1, .measured = 1, .start_ps = 100 * US, .cct_ps = 110 * US },
		{ .iter = 2, .measured = 2, .start_ps = 300 * US, .cct_ps = 150 * US },
		{ .iter = 3, .measured = 3, .start_ps = 500 * US, .cct_ps = 130 * US },
	};
	struct mrc_run_fault f[2] = {
		{ .at_ps = 100 * US, .iter = 1, .action = "loss", .target = "p0.t0.0-p0.t1.0",
			.lasting = true, .end_ps = -1, .first_retire_ps = -1, .recovery_ps = -1 },
		{ .at_ps = 500 * US, .iter = 3, .action = "loss_end", .clears = true,
			.target = "p0.t0.0-p0.t1.0", .end_ps = -1, .first_retire_ps = -1,
			.recovery_ps = -1 },
	};
	struct mrc_run_size size = { 0 };
	struct mrc_run_result res = { .iters = it, .n_iters = 4, .faults = f, .n_faults = 2,
		.sizes = &size, .n_sizes = 1, .sim_end_ps = 630 * US };

	mrc_st_case(st, "a loss's window: to the last iteration that started before its end");
	mrc_fault_finish(&res, NULL, 0);
	ST_TRUE(st, !it[0].degraded && it[1].degraded && it[2].degraded && !it[3].degraded);
	ST_EQ_I(st, f[0].end_ps, 500 * US);
	ST_EQ(st, f[0].last_iter, 2);
	ST_EQ_D(st, f[0].cct_inflation, 4.0 / 11.0, 1e-12);
	ST_EQ(st, f[1].last_iter, 3);
	ST_EQ_D(st, f[1].cct_inflation, 2.0 / 11.0, 1e-12);

	mrc_st_case(st, "a delay nothing ends: its window runs to the last iteration");
	f[0] = (struct mrc_run_fault){ .at_ps = 100 * US, .iter = 1, .action = "delay",
		.target = "p0.t0.0-p0.t1.0", .lasting = true, .end_ps = -1,
		.first_retire_ps = -1, .recovery_ps = -1 };
	res.n_faults = 1;
	mrc_fault_finish(&res, NULL, 0);
	ST_TRUE(st, !it[0].degraded && it[1].degraded && it[2].degraded && it[3].degraded);
	ST_EQ_I(st, f[0].end_ps, -1);
	ST_EQ(st, f[0].last_iter, 3);
	ST_EQ_D(st, f[0].cct_inflation, 2.0 / 3.0, 1e-12);
}

/*
 * The rows of a timeline (the wire driver's), worked out by hand. On one link
 * p0.t0.0-p0.t1.0: a delay at 10 us and a blackhole at 20 us; a clear at 30 us ends both:
 * delay_end and unblackhole, capacity 1, clears; an up at 40 us finds nothing down: not
 * applied, its reason. A flap from 50 us (period 200 us, duty 0.5, for 1 ms): one row,
 * flap set, until 1050 us, no flap_end row; by the run's end (2000 us) downs at 50, 250,
 * ..., 850 (5), each up 100 us later, the last at 950 us: 10 toggles.
 */
static void t_rows(struct mrc_st *st)
{
	struct conf_fault f[5] = {
		{ .has_at = true, .at_ps = 10 * US, .action = CONF_FA_DELAY, .delay_ps = 5 * US },
		{ .has_at = true, .at_ps = 20 * US, .action = CONF_FA_BLACKHOLE },
		{ .has_at = true, .at_ps = 30 * US, .action = CONF_FA_CLEAR },
		{ .has_at = true, .at_ps = 40 * US, .action = CONF_FA_UP },
		{ .has_at = true, .at_ps = 50 * US, .action = CONF_FA_FLAP, .period_ps = 200 * US,
			.duty = 0.5, .has_duration = true, .duration_ps = 1000 * US },
	};
	/* listed out of time order: the rows come in time order */
	struct mrc_fault_fire fi[5] = {
		{ .conf = 4, .at = 50 * US }, { .conf = 3, .at = 40 * US },
		{ .conf = 2, .at = 30 * US }, { .conf = 1, .at = 20 * US },
		{ .conf = 0, .at = 10 * US },
	};
	struct conf_job j = { .faults = f, .n_faults = 5 };
	struct mrc_run_result res = { 0 };
	const struct mrc_run_fault *r;

	j.fabric.planes = 2;
	j.fabric.t0 = 2;
	j.fabric.t1 = 2;
	for (size_t i = 0; i < 5; i++) {
		f[i].target = "p0.t0.0-p0.t1.0";
		f[i].node = (struct conf_node){ .kind = CONF_NODE_LINK_T0_T1 };
	}
	mrc_st_case(st, "rows: a clear of a delay and a blackhole: delay_end, unblackhole");
	ST_EQ(st, mrc_fault_timeline_rows(&res, &j, fi, 5, 2000 * US), 0);
	ST_EQ(st, res.n_faults, 5);
	if (res.n_faults != 5)
		goto out;
	r = res.faults;
	ST_EQ_STR(st, r[0].action, "delay");
	ST_EQ_STR(st, r[1].action, "blackhole");
	ST_EQ_D(st, r[1].capacity_frac, 1 - 1.0 / 8, 1e-12); /* planes x t1 x t0 */
	ST_EQ_STR(st, r[2].action, "delay_end");
	ST_EQ_STR(st, r[3].action, "unblackhole");
	ST_EQ(st, r[2].at_ps, 30 * US);
	ST_EQ(st, r[3].at_ps, 30 * US);
	ST_TRUE(st, r[2].clears && r[3].clears && !r[0].clears && !r[1].clears);
	ST_EQ_D(st, r[3].capacity_frac, 1.0, 0);

	mrc_st_case(st, "rows: an up of what was never down: not applied, with its reason");
	ST_EQ(st, res.n_unapplied, 1);
	if (res.n_unapplied == 1) {
		ST_EQ(st, res.unapplied[0].index, 3);
		ST_EQ_STR(st, res.unapplied[0].action, "up");
		ST_EQ_STR(st, res.unapplied[0].why, "p0.t0.0-p0.t1.0 is not down at 40 us (up "
			"ends a down; clear ends a loss, delay or blackhole)");
	}

	mrc_st_case(st, "rows: a flap with a duration: one row, flap fields and until");
	ST_EQ_STR(st, r[4].action, "flap");
	ST_TRUE(st, r[4].flap);
	ST_EQ(st, r[4].until_ps, 1050 * US);
	ST_EQ(st, r[4].flap_downs, 5);
	ST_EQ(st, r[4].flap_toggles, 10);
	ST_EQ(st, r[4].flap_last_up_ps, 950 * US);
	ST_EQ_I(st, r[4].end_ps, -1); /* mrc_fault_finish's */
	ST_EQ_D(st, r[4].capacity_frac, 1 - 1.0 / 8, 1e-12);
out:
	free(res.faults);
	free(res.unapplied);
}

/* A switch down for 100 us from 10 us, and a second down of it at 50 us, while down: one
 * switch_down row (the second changes nothing, as in the simulator: no row, not listed),
 * its revert at 110 us switch_up; a clear at 200 us finds nothing: not applied. */
static void t_rows_revert(struct mrc_st *st)
{
	struct conf_fault f[3] = {
		{ .has_at = true, .action = CONF_FA_DOWN, .has_duration = true,
			.duration_ps = 100 * US },
		{ .has_at = true, .action = CONF_FA_DOWN },
		{ .has_at = true, .action = CONF_FA_CLEAR },
	};
	struct mrc_fault_fire fi[4] = {
		{ .conf = 0, .at = 10 * US },
		{ .conf = 0, .at = 110 * US, .revert = true, .of = 0 },
		{ .conf = 1, .at = 50 * US },
		{ .conf = 2, .at = 200 * US },
	};
	struct conf_job j = { .faults = f, .n_faults = 3 };
	struct mrc_run_result res = { 0 };

	j.fabric.planes = 2;
	j.fabric.t0 = 2;
	j.fabric.t1 = 2;
	for (size_t i = 0; i < 3; i++) {
		f[i].target = "p0.t1.1";
		f[i].node = (struct conf_node){ .kind = CONF_NODE_T1, .t1 = 1 };
	}
	mrc_st_case(st, "rows: a duration's end is the up of its kind; a second down: nothing");
	ST_EQ(st, mrc_fault_timeline_rows(&res, &j, fi, 4, 1000 * US), 0);
	ST_EQ(st, res.n_faults, 2);
	if (res.n_faults == 2) {
		ST_EQ_STR(st, res.faults[0].action, "switch_down");
		ST_EQ_STR(st, res.faults[1].action, "switch_up");
		ST_EQ(st, res.faults[1].at_ps, 110 * US);
		ST_EQ_D(st, res.faults[0].capacity_frac, 0.75, 1e-12); /* 1 - 1/(2 x 2) */
	}
	ST_EQ(st, res.n_unapplied, 1); /* the clear: nothing to clear */
	if (res.n_unapplied == 1)
		ST_EQ_STR(st, res.unapplied[0].why, "nothing to clear: no loss, delay or "
			"blackhole was in force on the link at 200 us");
	free(res.faults);
	free(res.unapplied);
}

/* fault_timeline[]: time order whatever the order of the calls, a clear's parts once. */
static void t_fired(struct mrc_st *st)
{
	struct mrc_run_result res = { 0 };
	static const struct { size_t index; uint64_t at; } calls[] = {
		{ 2, 500 }, { 0, 100 }, { 1, 500 }, { 2, 500 }, { 3, 50 }, { 0, 900 },
	};
	static const struct { uint32_t index; uint64_t at; } want[] = {
		{ 3, 50 }, { 0, 100 }, { 1, 500 }, { 2, 500 }, { 0, 900 },
	};

	mrc_st_case(st, "fired: in time order, by index at equal times, no firing twice");
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		ST_EQ(st, mrc_fault_fired(&res, calls[i].index, calls[i].at * US), 0);
	ST_EQ(st, res.n_fires, 5);
	for (size_t i = 0; i < res.n_fires && i < 5; i++) {
		ST_EQ(st, res.fires[i].index, want[i].index);
		ST_EQ(st, res.fires[i].at_ps, want[i].at * US);
	}
	free(res.fires);
}

MRC_SELFTEST(fault)
{
	t_fired(st);
	t_timeline(st);
	t_not_applied(st);
	t_finish(st);
	t_finish_lasting(st);
	t_rows(st);
	t_rows_revert(st);
}
