/* SPDX-License-Identifier: BSD-2-Clause */
/* ranks: the MPI ranks of a simulation, joined only under mpirun (mrc/sim/ranks.h). */
#include "mrc/sim/ranks.h"

#include "mrc/base/num.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int mrc_simrank_launched(struct mrc_simrank *r, char *err, size_t errlen)
{
	const char *ns = getenv("OMPI_COMM_WORLD_SIZE"), *rs = getenv("OMPI_COMM_WORLD_RANK");

	*r = (struct mrc_simrank){ .size = 1 };
	if (!ns && !rs)
		return 0;
	if (mrc_parse_u32(ns, &r->size) || r->size == 0) {
		if (!ns)
			snprintf(err, errlen, "mpirun: OMPI_COMM_WORLD_SIZE: unset, with "
					      "OMPI_COMM_WORLD_RANK '%s' set", rs);
		else
			snprintf(err, errlen, "mpirun: OMPI_COMM_WORLD_SIZE: not a number of "
					      "processes '%s'", ns);
		return -EINVAL;
	}
	if (mrc_parse_u32(rs, &r->rank) || r->rank >= r->size) {
		if (!rs)
			snprintf(err, errlen, "mpirun: OMPI_COMM_WORLD_RANK: unset, with "
					      "OMPI_COMM_WORLD_SIZE '%s' set", ns);
		else
			snprintf(err, errlen, "mpirun: OMPI_COMM_WORLD_RANK: not a rank of %u '%s'",
				r->size, rs);
		return -EINVAL;
	}
	return 0;
}

int mrc_simrank_join(struct mrc_simrank *r, char *err, size_t errlen)
{
	int e = mrc_simrank_launched(r, err, errlen), size, rank;

	if (e || r->size == 1)
		return e;
	if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		snprintf(err, errlen, "mpirun: MPI_Init failed");
		return -EPROTO;
	}
	r->joined = true;
	if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS ||
		MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS || (uint32_t)size != r->size ||
		(uint32_t)rank != r->rank) {
		snprintf(err, errlen, "mpirun: MPI_COMM_WORLD is not the %u processes of "
				      "OMPI_COMM_WORLD_SIZE (rank %u)", r->size, r->rank);
		return -EPROTO;
	}
	return 0;
}

/* The exchange's counts and displacements, a rank each. */
struct simrank_x {
	uint64_t *sn, *rn;
	int *sc, *sd, *rc, *rd;
};

static int mpi_exchange(void *ctx, const void *send, const size_t *send_n,
	struct mrc_sim_buf *recv, size_t *recv_n)
{
	struct mrc_simrank *r = ctx;
	struct simrank_x *x = r->x;
	uint64_t st = 0, rt = 0;

	for (uint32_t i = 0; i < r->size; i++)
		x->sn[i] = send_n[i];
	if (MPI_Alltoall(x->sn, 1, MPI_UINT64_T, x->rn, 1, MPI_UINT64_T, MPI_COMM_WORLD) !=
		MPI_SUCCESS)
		return -EPROTO;
	for (uint32_t i = 0; i < r->size; i++) {
		x->sd[i] = (int)st;
		x->rd[i] = (int)rt;
		st += x->sn[i];
		rt += x->rn[i];
		if (st > INT_MAX || rt > INT_MAX)
			return -E2BIG;
		x->sc[i] = (int)x->sn[i];
		x->rc[i] = (int)x->rn[i];
		recv_n[i] = x->rn[i];
	}
	if (recv->cap < rt) {
		unsigned char *a = realloc(recv->a, rt);

		if (!a)
			return -ENOMEM;
		recv->a = a;
		recv->cap = rt;
	}
	if (MPI_Alltoallv(send, x->sc, x->sd, MPI_BYTE, recv->a, x->rc, x->rd, MPI_BYTE,
		    MPI_COMM_WORLD) != MPI_SUCCESS)
		return -EPROTO;
	recv->n = rt;
	return 0;
}

static int mpi_min(void *ctx, uint64_t *v, unsigned n)
{
	(void)ctx;
	return MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD) ==
		       MPI_SUCCESS ? 0 : -EPROTO;
}

static void x_free(struct simrank_x *x)
{
	if (!x)
		return;
	free(x->sn);
	free(x->rn);
	free(x->sc);
	free(x->sd);
	free(x->rc);
	free(x->rd);
	free(x);
}

int mrc_simrank_comm(struct mrc_simrank *r, struct mrc_sim_comm *c)
{
	struct simrank_x *x;

	if (!r->joined)
		return -EINVAL;
	if (!r->x) {
		x = calloc(1, sizeof(*x));
		if (!x)
			return -ENOMEM;
		x->sn = malloc(r->size * sizeof(*x->sn));
		x->rn = malloc(r->size * sizeof(*x->rn));
		x->sc = malloc(r->size * sizeof(*x->sc));
		x->sd = malloc(r->size * sizeof(*x->sd));
		x->rc = malloc(r->size * sizeof(*x->rc));
		x->rd = malloc(r->size * sizeof(*x->rd));
		if (!x->sn || !x->rn || !x->sc || !x->sd || !x->rc || !x->rd) {
			x_free(x);
			return -ENOMEM;
		}
		r->x = x;
	}
	*c = (struct mrc_sim_comm){ .ranks = r->size, .rank = r->rank, .exchange = mpi_exchange,
		.min = mpi_min, .ctx = r };
	return 0;
}

void mrc_simrank_leave(struct mrc_simrank *r)
{
	x_free(r->x);
	r->x = NULL;
	if (r->joined)
		MPI_Finalize();
	r->joined = false;
}
