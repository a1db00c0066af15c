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

#endif
