/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wsweep: `mrcgen sweep` on a real fabric (driver "wire", docs/sweep.md "On the wire"):
 * one process per host as `run` has them (mrc/wire/wirerun.h: rank, rendezvous at rank 0,
 * raw sockets, io_uring, endpoint faults); each rank sends the EV probes of the paths
 * from its host as mrc/job/sweep.h paces them and counts the requests its endpoint
 * answers; rank 0 gathers every rank's half and holds the whole sweep.
 *
 * Over the rendezvous (messages of mrc/wire/wirerun.h, iteration 0): ARM / ARMED / GO
 * start every rank's probes once every endpoint exists; each rank sends DONE when its own
 * probes are answered or timed out and keeps answering its peers'; after every DONE rank 0
 * sends FINISH, and every rank its half (RESULT, mrc_sweep_encode).
 */
#ifndef MRC_WSWEEP_H
#define MRC_WSWEEP_H

#include "conf/conf.h"
#include "mrc/job/sweep.h"
#include "mrc/wire/wirerun.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Runs this process's rank of the sweep of @job. On rank 0 *@out receives the merged
 * sweep (mrc_sweep_free) and *@duration_ps the time from GO to the last DONE; on other
 * ranks *@out is NULL once their half is delivered. *@rank_out: this process's rank.
 * Returns 0, or the errors of mrc_run_wire() with the reason in @err.
 */
int mrc_sweep_wire(const struct conf_job *job, const struct mrc_wirerun_opts *o,
	struct mrc_sweep **out, uint64_t *duration_ps, uint32_t *rank_out, char *err,
	size_t errlen);

#endif
