/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ranks: the MPI ranks of a simulation (issue 23 item 1's MPI part; docs/architecture.md
 * "Parallel simulation": Ranks, Not parallel): whether Open MPI's mpirun started this
 * process among others (OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_RANK), joining them
 * (MPI_Init) only then, so a plain run never touches MPI, and the collectives the event
 * queue's ranks need (mrc_sim_ranks) over MPI: a job (mrc_run_sim_ranks) and a sweep
 * (mrc_sweep_sim) run over them.
 */
#ifndef MRC_SIM_RANKS_H
#define MRC_SIM_RANKS_H

#include "mrc/sim/sim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct simrank_x;

struct mrc_simrank {
	uint32_t size; /* processes mpirun started: 1 when none or not under mpirun */
	uint32_t rank; /* this one's, 0..size-1 */
	bool joined;   /* MPI_Init was called: mrc_simrank_leave calls MPI_Finalize */
	struct simrank_x *x; /* the exchange's scratch (mrc_simrank_comm) */
};

/*
 * Reads the launcher's view from the environment (Open MPI's OMPI_COMM_WORLD_SIZE and
 * OMPI_COMM_WORLD_RANK, as mpirun sets them; neither set: one process, rank 0). 0, or
 * -EINVAL with @err naming the variable and its value (not a decimal number, a size of
 * 0, a rank outside the size, one variable without the other).
 */
int mrc_simrank_launched(struct mrc_simrank *r, char *err, size_t errlen);

/*
 * mrc_simrank_launched, then, with more than one process, MPI_Init and the check that
 * MPI_COMM_WORLD is what the environment said. 0, -EINVAL as mrc_simrank_launched, or
 * -EPROTO with @err when MPI_Init failed or MPI's size or rank differs.
 */
int mrc_simrank_join(struct mrc_simrank *r, char *err, size_t errlen);

/*
 * The ranks' collectives for mrc_sim_ranks over MPI_COMM_WORLD: the exchange as
 * MPI_Alltoall of the sizes, then MPI_Alltoallv of the bytes (each rank's share below
 * 2 GiB, else -E2BIG); the minimum as MPI_Allreduce(MPI_MIN) of uint64s. Needs @r joined
 * (mrc_simrank_join with several processes) and alive while @c is used. 0, -EINVAL (not
 * joined) or -ENOMEM.
 */
int mrc_simrank_comm(struct mrc_simrank *r, struct mrc_sim_comm *c);

/* MPI_Finalize when mrc_simrank_join called MPI_Init (and the scratch freed); else
 * nothing. */
void mrc_simrank_leave(struct mrc_simrank *r);

#endif
