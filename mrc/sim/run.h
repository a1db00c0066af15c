/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * run: the main job on the simulated fabric (driver "sim") — one MRC endpoint per host on a
 * multi-plane SRv6 fabric, the collective driving them, the fault timeline applied at exact
 * virtual times or iterations, and every measurement the report needs (docs/architecture.md
 * "One engine, two drivers"; issue "Collectives, measurements and reports").
 */
#ifndef MRC_RUN_H
#define MRC_RUN_H

#include "conf/conf.h"
#include "mrc/job/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Progress callback: fraction done 0..1 (NULL for none). */
typedef void (*mrc_run_progress_fn)(void *ctx, double frac);

/*
 * Runs @job on the simulator: builds the plan, fabric and endpoints, runs every size for
 * warmup + iterations, applies faults, writes the configured pcaps under output.dir, and
 * fills *out. Returns 0 when the job ran (its checks may still have failed: see
 * result->error and the #wrong counts), or a negative errno with @err for setup failures
 * ("srv6 plan: ...", "capture h9.p0: ...", "fabric: ...").
 */
int mrc_run_sim(const struct conf_job *job, mrc_run_progress_fn progress, void *pctx,
	struct mrc_run_result **out, char *err, size_t errlen);

struct mrc_sim_comm;

/*
 * mrc_run_sim as one of @comm->ranks MPI processes that run one simulation together
 * (docs/architecture.md "Parallel simulation", Ranks; @comm NULL: one process, as
 * mrc_run_sim): each process builds the same job, runs the racks dealt to it
 * (mrc_fabric_ranks), and the ranks agree between windows on a collective's end and on a
 * failure. Rank 0 gets *@out, the whole run's results as one process gives them (the
 * others' shares merged: hosts' counters, histograms, per-EV figures, the fabric's
 * statistics) and writes the outputs; the other ranks get *@out NULL and write nothing.
 * Each rank runs sim.workers threads on its racks; every pattern, several jobs, phases,
 * faults and captures run. Errors as mrc_run_sim, and -ENOTSUP with @err for background
 * traffic (not over ranks yet); every rank's
 * set-up meets the others' once, so a rank whose set-up failed says so (@err), one that
 * failed as rank 0 did gets -EALREADY (rank 0 says why), and a ready one whose peer
 * failed -ECANCELED.
 */
int mrc_run_sim_ranks(const struct conf_job *job, const struct mrc_sim_comm *comm,
	mrc_run_progress_fn progress, void *pctx, struct mrc_run_result **out, char *err,
	size_t errlen);

struct mrc_sweep;

/*
 * Runs the path sweep of @job on the simulator (docs/sweep.md): the fabric and one
 * endpoint per host as a job has them, its faults (`at` times from the sweep's start;
 * at_iteration 0 at the start, later iterations never come), each host's EV probes as
 * mrc/job/sweep.h paces them, until every host is done or sweep.max_time + timeout
 * passed; configured captures are written. With @comm (NULL: one process) every rank
 * calls it and runs the hosts of its racks, as mrc_run_sim_ranks does; the end is agreed
 * (every rank's hosts done) and each rank's half goes to rank 0 (mrc_sweep_encode /
 * mrc_sweep_merge), which alone gets *@out and writes the captures: the one-process
 * sweep's, byte for byte. *@out receives the measured plan (mrc_sweep_free; NULL on the
 * other ranks), *@end_ps the virtual time it ended at. Deterministic. Returns 0, a setup
 * error as mrc_run_sim (or mrc_sweep_new's) with @err, -EINTR when SIGINT/SIGTERM stopped
 * it (on any rank: *@sig the signal, else 0), -EIO when a capture could not be written,
 * -EPROTO on rank 0 when a rank's half did not fit the plan; over ranks -EALREADY and
 * -ECANCELED as mrc_run_sim_ranks's.
 */
int mrc_sweep_sim(const struct conf_job *job, const struct mrc_sim_comm *comm,
	struct mrc_sweep **out, uint64_t *end_ps, int *sig, char *err, size_t errlen);

#endif
