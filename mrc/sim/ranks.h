/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ranks: the MPI ranks of a simulation (issue 23 item 1's MPI part; docs/architecture.md
 * "Parallel simulation": Ranks, Not parallel): whether Open MPI's mpirun started this
 * process among others (OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_RANK), joining them
 * (MPI_Init) only then, so a plain run never touches MPI, and the collectives the event
 * queue's ranks need (mrc_sim_ranks) over MPI, watching the ranks they wait on so that a
 * rank that dies ends the run on the others, named ("A rank that dies"): a job
 * (mrc_run_sim_ranks) and a sweep (mrc_sweep_sim) run over them.
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
	struct simrank_x *x; /* the collectives' state, every rank's process (joined) */
};

/*
 * Reads the launcher's view from the environment (Open MPI's OMPI_COMM_WORLD_SIZE and
 * OMPI_COMM_WORLD_RANK, as mpirun sets them; neither set: one process, rank 0). 0, or
 * -EINVAL with @err naming the variable and its value (not a decimal number, a size of
 * 0, a rank outside the size, one variable without the other).
 */
int mrc_simrank_launched(struct mrc_simrank *r, char *err, size_t errlen);

/*
 * mrc_simrank_launched, then, with more than one process, MPI_Init, the check that
 * MPI_COMM_WORLD is what the environment said, and every rank's process (pid, start time,
 * host: MPI_Allgather) for mrc_simrank_comm's waits. 0, -EINVAL as mrc_simrank_launched,
 * -ENOMEM, or -EPROTO with @err when MPI_Init failed or MPI's size or rank differs.
 */
int mrc_simrank_join(struct mrc_simrank *r, char *err, size_t errlen);

/*
 * The ranks' collectives for mrc_sim_ranks on a duplicate of MPI_COMM_WORLD with
 * MPI_ERRORS_RETURN, never blocking in MPI: the exchange as point-to-point messages, one to
 * every other rank (each below 2 GiB, else -E2BIG) and one from each, probed for its size;
 * the minimum as MPI_Iallreduce. Each wait (MPI_Test) watches the ranks it waits on (the
 * rule: a rank that dies ends the job with the rank named and the report of what was
 * measured; Open MPI 4.1 waits for ever on a dead peer over shared memory): one on this
 * host (its pid ours: the same boot and pid namespace, as exchanged at mrc_simrank_join)
 * is lost once its process is gone or a zombie (/proc/PID/stat, every 10 ms); one on
 * another host 500 ms after this process got SIGINT/SIGTERM (mpirun's, as it ends the job
 * when a rank died), never on time alone; an MPI call that fails loses its peer.
 * Once a rank is lost, this one calls MPI no more: every collective returns -ECONNABORTED
 * at once, with this rank's values alone (the comm's lost() says which ranks and why).
 * Needs @r joined (mrc_simrank_join with several processes) and alive while @c is used.
 * 0 or -EINVAL (not joined).
 */
int mrc_simrank_comm(struct mrc_simrank *r, struct mrc_sim_comm *c);

/*
 * The lowest rank lost by @r's collectives (mrc_simrank_comm), with *@why saying which and
 * how ("rank 1 (pid 4242 on node3) died"); @r->size when one was lost but not known which
 * (a collective failed in MPI); -1 and NULL while none is.
 */
int mrc_simrank_lost(const struct mrc_simrank *r, const char **why);

/* MPI_Finalize when mrc_simrank_join called MPI_Init (and the scratch freed); else
 * nothing. After a rank was lost, no MPI_Finalize: its fence would wait for the dead rank
 * (the process exits without it, which mpirun ending the job accepts). */
void mrc_simrank_leave(struct mrc_simrank *r);

#endif
