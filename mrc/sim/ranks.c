/* SPDX-License-Identifier: BSD-2-Clause */
/* ranks: the MPI ranks of a simulation, joined only under mpirun (mrc/sim/ranks.h). */
#include "mrc/sim/ranks.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* @s as a decimal uint32 into *@v: 0, or -EINVAL (empty, a sign, trailing text, too big). */
static int env_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

int mrc_simrank_launched(struct mrc_simrank *r, char *err, size_t errlen)
{
	const char *ns = getenv("OMPI_COMM_WORLD_SIZE"), *rs = getenv("OMPI_COMM_WORLD_RANK");

	*r = (struct mrc_simrank){ .size = 1 };
	if (!ns && !rs)
		return 0;
	if (env_u32(ns, &r->size) || r->size == 0) {
		snprintf(err, errlen, "mpirun: OMPI_COMM_WORLD_SIZE: not a number of processes '%s'",
			ns ? ns : "");
		return -EINVAL;
	}
	if (env_u32(rs, &r->rank) || r->rank >= r->size) {
		snprintf(err, errlen, "mpirun: OMPI_COMM_WORLD_RANK: not a rank of %u '%s'",
			r->size, rs ? rs : "");
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

void mrc_simrank_leave(struct mrc_simrank *r)
{
	if (r->joined)
		MPI_Finalize();
	r->joined = false;
}
