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
 * Is @cf, fired at @at_ps, in force at @now_ps by its own timeline (a later fault that
 * undoes it is the caller's): from @at_ps to mrc_fault_until; never for up and clear,
 * which only end others; a flap only in the down part of each period, the first
 * duty x period ps of it: down while (now - at) mod period < duty x period.
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
 * Lists every configured fault with !@fired[i] in res->unapplied, then sorts them in
 * config order: at_iteration past traffic.iterations ("at_iteration 7: each size runs 4
 * measured iterations (0 to 3)"), at_iteration the job never reached ("the job stopped
 * before measured iteration 2"), a time after the run's end @end_ps ("the run ended at
 * 1234.5 us, before it").
 */
void mrc_fault_list_unfired(struct mrc_run_result *res, const struct conf_job *j,
	const bool *fired, uint64_t end_ps);

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
