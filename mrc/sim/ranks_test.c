/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ranks_test: unit tests of mrc/sim/ranks.c (`mrcgen-test ranks`): the launcher's view read
 * from Open MPI's variables; one process (no variables) never joins MPI. MPI_Init itself
 * runs under mpirun in harness/tests/mpisim.test.
 */
#include "mrc/sim/ranks.c"
#include "mrc/base/st.h"

#include <string.h>

/* Sets OMPI_COMM_WORLD_SIZE to @n and _RANK to @r (NULL: unset). */
static void t_ompi(const char *n, const char *r)
{
	if (n)
		setenv("OMPI_COMM_WORLD_SIZE", n, 1);
	else
		unsetenv("OMPI_COMM_WORLD_SIZE");
	if (r)
		setenv("OMPI_COMM_WORLD_RANK", r, 1);
	else
		unsetenv("OMPI_COMM_WORLD_RANK");
}

MRC_SELFTEST(ranks)
{
	const char *sn = getenv("OMPI_COMM_WORLD_SIZE"), *sr = getenv("OMPI_COMM_WORLD_RANK");
	char *n0 = sn ? strdup(sn) : NULL, *r0 = sr ? strdup(sr) : NULL, err[256];
	struct mrc_simrank r;

	mrc_st_case(st, "no launcher: one process, rank 0, MPI never joined");
	t_ompi(NULL, NULL);
	ST_EQ_I(st, mrc_simrank_join(&r, err, sizeof(err)), 0);
	ST_EQ(st, r.size, 1);
	ST_EQ(st, r.rank, 0);
	ST_TRUE(st, !r.joined);
	mrc_simrank_leave(&r);

	mrc_st_case(st, "mpirun -np 4, the third process: size 4, rank 2");
	t_ompi("4", "2");
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), 0);
	ST_EQ(st, r.size, 4);
	ST_EQ(st, r.rank, 2);

	mrc_st_case(st, "mpirun -np 1: one process, MPI never joined");
	t_ompi("1", "0");
	ST_EQ_I(st, mrc_simrank_join(&r, err, sizeof(err)), 0);
	ST_EQ(st, r.size, 1);
	ST_TRUE(st, !r.joined);

	mrc_st_case(st, "malformed variables are named with their values");
	t_ompi("4", "4");
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "OMPI_COMM_WORLD_RANK: not a rank of 4 '4'") != NULL);
	t_ompi("0", "0");
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "OMPI_COMM_WORLD_SIZE: not a number of processes '0'") != NULL);
	t_ompi("-2", "0");
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), -EINVAL);
	t_ompi("2x", "0");
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), -EINVAL);
	t_ompi(NULL, "1");
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "OMPI_COMM_WORLD_SIZE: not a number of processes ''") != NULL);
	t_ompi("2", NULL);
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "OMPI_COMM_WORLD_RANK: not a rank of 2 ''") != NULL);

	t_ompi(n0, r0);
	free(n0);
	free(r0);
}
