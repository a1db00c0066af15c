/* SPDX-License-Identifier: BSD-2-Clause */
/* job: maps a loaded config (conf/) onto the engine's plain parameter structs. */
#ifndef MRC_JOB_H
#define MRC_JOB_H

#include "conf/conf.h"
#include "mrc/srv6.h"

#include <stddef.h>

/* The addressing plan and expanded EV profile of a job; release with mrc_job_srv6_free. */
struct mrc_job_srv6 {
	struct mrc_srv6_params params;
	struct mrc_srv6_plan *plan;
	struct mrc_srv6_ev_entry *evs; /* the expanded EV profile, profile order */
	size_t n_evs;
};

/*
 * Builds the plan from job->fabric (planes, t0, t1, hosts_per_t0, addressing) and
 * expands job->mrc.ev (explicit list, or the plane/spine/salt rules as fields of widths
 * 4/12/16; deny entries are single EVs) for it. Returns 0, or -EINVAL / -ERANGE / -ENOMEM
 * with "srv6 plan: ..." or "ev profile: ..." in @err.
 */
int mrc_job_srv6(const struct conf_job *job, struct mrc_job_srv6 *out, char *err, size_t errlen);
void mrc_job_srv6_free(struct mrc_job_srv6 *m);

#endif
