/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fault: the `faults:` timeline of a job and its bookkeeping in the result, the same for
 * both drivers (the simulator applies faults in its fabric, the wire driver at the
 * endpoints, wire/epfault.h): README "Report schema", faults[] and faults_not_applied[].
 */
#ifndef MRC_FAULT_H
#define MRC_FAULT_H

#include "conf/conf.h"
#include "mrc/job/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The fraction of the fabric's capacity left while fault @cf is in force, both drivers'
 * faults[].capacity_left (README "Report schema"): 1 - 1/(planes x t1) for a T1, 1 -
 * 1/planes for a T0 or a host port or its link (the collective follows its slowest rank),
 * 1 - 1/(planes x t1 x t0) for a T0-T1 link, 0 for a host; 1 for up, clear, loss and delay
 * (every link stays up: the goodput target is the clean level).
 */
double mrc_run_capacity_left(const struct conf_fabric *f, const struct conf_fault *cf);

/* ---- the timeline ---- */

/*
 * Does @cf fire at the start of an iteration? Only an at_iteration fault, at the start of
 * measured iteration @measured (0-based among its size's measured iterations; never in a
 * warmup one) of every size.
 */
bool mrc_fault_fires_at(const struct conf_fault *cf, bool warmup, uint32_t measured);

/*
 * When @cf, fired at @at_ps, ends by its duration: @at_ps + duration (ps), or UINT64_MAX
 * without one. A down, loss, delay or blackhole is reverted then; a flap stops flapping.
 */
uint64_t mrc_fault_until(const struct conf_fault *cf, uint64_t at_ps);

/*
 * The down part of each period of a flap, in whole ps: period x duty, cut to whole ps
 * (docs/config.md "faults": duty is the fraction spent down). The simulator's fabric, the
 * wire driver's endpoint faults and the report's flap counts all time a flap by it.
 */
uint64_t mrc_fault_flap_down_ps(uint64_t period_ps, double duty);

/*
 * Is @cf, fired at @at_ps, in force at @now_ps by its own timeline (a later fault that
 * undoes it is the caller's): from @at_ps to mrc_fault_until; never for up and clear,
 * which only end others; a flap only in the down part of each period, the first
 * mrc_fault_flap_down_ps of it: down while (now - at) mod period < that.
 */
bool mrc_fault_in_force(const struct conf_fault *cf, uint64_t at_ps, uint64_t now_ps);

/* ---- the bookkeeping (README "Report schema") ---- */

/*
 * Lists configured fault @cf (one of j->faults) in res->unapplied, saying why (printf
 * format), once: a second call for the same fault adds nothing (at_iteration fires once
 * per size). Out of memory: nothing is listed.
 */
void mrc_fault_not_applied(struct mrc_run_result *res, const struct conf_job *j,
	const struct conf_fault *cf, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Configured fault @index (into j->faults) fired at @at_ps (ps from the first iteration's
 * start, the report's time 0), not its duration's revert: appended to res->fires, the
 * report's fault_timeline[] that a replay on the simulator applies
 * (docs/replay.md "From the wire to the simulator"), kept in time order (a firing before
 * an earlier one's time goes before it; equal times by index). The same index at the same time twice (a clear's
 * parts) is one firing. Returns 0 or -ENOMEM.
 */
int mrc_fault_fired(struct mrc_run_result *res, size_t index, uint64_t at_ps);

/*
 * Lists every configured fault with !@fired[i] in res->unapplied, then sorts them in
 * config order: at_iteration past traffic.iterations ("at_iteration 7: each size runs 4
 * measured iterations (0 to 3)"), at_iteration the job never reached ("the job stopped
 * before measured iteration 2"), a time after the run's end @end_ps ("the run ended at
 * 1234.5 us, before it").
 */
void mrc_fault_list_unfired(struct mrc_run_result *res, const struct conf_job *j,
	const bool *fired, uint64_t end_ps);

/* ---- the rows (README "Report schema", faults[] and faults_not_applied[]) ---- */

/* What a row changed: the element a down/up hits, or the kind of impairment. */
enum mrc_fault_kind {
	MRC_FK_LINK,
	MRC_FK_SWITCH,
	MRC_FK_NIC,
	MRC_FK_LOSS,
	MRC_FK_DELAY,
	MRC_FK_FLAP,
	MRC_FK_BLACKHOLE,
};

/* The kind of configured fault @cf (up and down by their node; clear as a loss). */
enum mrc_fault_kind mrc_fault_kind_of(const struct conf_fault *cf);

/*
 * The row's action name of kind @k, as it starts (@ends false) or ends something (true):
 * link_down/link_up, switch_down/switch_up, nic_down/nic_up, loss/loss_end,
 * delay/delay_end, blackhole/unblackhole, flap (ended: link_up), the report schema's enum.
 */
const char *mrc_fault_action(enum mrc_fault_kind k, bool ends);

/*
 * Does configured fault @j, fired later on the same node, end the effect of fault @i? An up
 * ends a down or a flap; a clear a loss, delay, blackhole or flap; a loss (delay) the loss
 * (delay) before it.
 */
bool mrc_fault_undoes(const struct conf_fault *j, const struct conf_fault *i);

/*
 * Appends the row of a change of kind @k (@ends: it ends something, a duration's revert,
 * an up or a clear) on @target at @at_ps in global iteration @iter, for configured fault
 * @cf (NULL: none): action name, clears, capacity_left (1 for an end or without @cf), a
 * flap's flap and until_ps, the figures not yet known at their "none" values. The
 * driver fills rtx_bytes and the flap counts. Returns it; NULL when out of memory.
 */
struct mrc_run_fault *mrc_fault_row(struct mrc_run_result *res, const struct conf_job *j,
	const struct conf_fault *cf, enum mrc_fault_kind k, bool ends, const char *target,
	uint64_t at_ps, uint32_t iter);

/*
 * Configured fault @cf fired at @at_ps and changed nothing: an up (of what was not down),
 * a blackhole (of a route blackholed already) and a clear (that found nothing to end) go
 * to faults_not_applied[] with the reason; anything else gets nothing.
 */
void mrc_fault_no_effect(struct mrc_run_result *res, const struct conf_job *j,
	const struct conf_fault *cf, uint64_t at_ps);

/*
 * A flap's counts from its timeline (fired at @at_ps) up to @end_ps (the run's end, or
 * later): a down at the start of each period before its until, an up duty x period after
 * it (at the until at the latest); @downs, @toggles (downs and ups by @end_ps) and
 * @last_up (the last up by @end_ps; @at_ps without one).
 */
void mrc_fault_flap_counts(const struct conf_fault *cf, uint64_t at_ps, uint64_t end_ps,
	uint32_t *downs, uint32_t *toggles, uint64_t *last_up);

/* One firing of configured fault @conf (index in j->faults) at @at, or its duration's end
 * (@revert, of firing @of); the rest is mrc_fault_timeline_rows' own. */
struct mrc_fault_fire {
	size_t conf, of, row;
	uint64_t at, end_at;
	bool revert, applied, ended;
};

/*
 * The rows of a driver that knows only the timeline (the wire driver: every rank applies
 * it at its endpoints), firings @fi[@n] in any order, the run ending at @run_end: in time
 * order (a fault before its own revert), what each changed by the rules above: an up or
 * clear ends what it undoes (mrc_fault_undoes) still in force, a row for each named for
 * what it ends (a clear of a delay: delay_end; of a blackhole: unblackhole), and one that
 * ends nothing goes to faults_not_applied[] (mrc_fault_no_effect), as does a blackhole of
 * a blackholed route (a down of what is down already: nothing); a revert of what has
 * ended is dropped; a flap is one row, its until cut to what ended it, its counts from
 * its timeline (mrc_fault_flap_counts). Rows in time order, iter 0 (the driver's).
 * Returns 0 or -ENOMEM.
 */
int mrc_fault_timeline_rows(struct mrc_run_result *res, const struct conf_job *j,
	struct mrc_fault_fire *fi, size_t n, uint64_t run_end);

/*
 * The recovery figures of every row of res->faults (its at_ps, iter, clears, flap, until_ps,
 * flap_last_up_ps, rtx_bytes at its time and capacity_frac filled by the driver), from
 * res->iters (start, CCT, warmup, incomplete, slowest rank, straggler), @bad_t[@n_bad]
 * (times, ps on the result's timeline, at which an EV went ASSUMED_BAD) and the goodput
 * bins (none when res->bin_ps is 0: recovery_ps and recovery_note stay the driver's):
 *  - a flap whose until_ps passed ends at its last up (end_ps);
 *  - an iteration is degraded when a fault is in force during it (from a fault to what
 *    clears it; a flap over its whole span), and the clean ones give each size's mean
 *    fault-free CCT;
 *  - each fault's window runs from it to the end of its iteration (a flap's: to the
 *    iteration it ended in); first_retire_ps and evs_retired count @bad_t in it; rtx_bytes
 *    becomes the delta to the window's end; cct_inflation = worst CCT of the window / the
 *    mean fault-free CCT of its size - 1 (0 without a fault-free iteration), and that
 *    worst iteration names the straggler;
 *  - recovery: goodput back to 95% x capacity_frac x the clean level (the median of the
 *    whole bins of clean iterations), after a dip longer than the clean bins' noise.
 * Out of memory: the figures stay as they are.
 */
void mrc_fault_finish(struct mrc_run_result *res, const uint64_t *bad_t, size_t n_bad);

#endif
