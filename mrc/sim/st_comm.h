/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * st_comm: for unit tests, ranks as threads of one process (struct mrc_sim_comm over a
 * barrier: each rank posts its buffers or values, all read every rank's, then wait before
 * the buffers change), so the ranks' logic runs in every `mrcgen-test`, mpirun or not
 * (ranks_test.c, fabric_test.c).
 */
#ifndef MRC_ST_COMM_H
#define MRC_ST_COMM_H

#include "mrc/sim/sim.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#define ST_COMM_MAX 3 /* ranks */

struct st_comm_shared {
	pthread_barrier_t b; /* of ranks threads */
	unsigned ranks;
	const unsigned char *send[ST_COMM_MAX];
	const size_t *send_n[ST_COMM_MAX];
	uint64_t v[ST_COMM_MAX][4];
};

/* One rank's end: the ctx of its comm (st_comm_of). */
struct st_comm {
	struct st_comm_shared *sh;
	unsigned rank;
};

static inline int st_comm_exchange(void *ctx, const void *send, const size_t *send_n,
	struct mrc_sim_buf *recv, size_t *recv_n)
{
	struct st_comm *c = ctx;
	struct st_comm_shared *sh = c->sh;
	int err = 0;

	sh->send[c->rank] = send;
	sh->send_n[c->rank] = send_n;
	pthread_barrier_wait(&sh->b);
	recv->n = 0;
	for (unsigned r = 0; r < sh->ranks; r++) {
		size_t off = 0;

		for (unsigned d = 0; d < c->rank; d++)
			off += sh->send_n[r][d];
		recv_n[r] = sh->send_n[r][c->rank];
		err = err ?: mrc_sim_buf_put(recv, sh->send[r] + off, recv_n[r]);
	}
	pthread_barrier_wait(&sh->b);
	return err;
}

static inline int st_comm_min(void *ctx, uint64_t *v, unsigned n)
{
	struct st_comm *c = ctx;
	struct st_comm_shared *sh = c->sh;

	if (n > 4)
		return -EINVAL; /* the same on every rank: they all return */
	memcpy(sh->v[c->rank], v, n * sizeof(*v));
	pthread_barrier_wait(&sh->b);
	for (unsigned i = 0; i < n; i++)
		for (unsigned r = 0; r < sh->ranks; r++)
			if (sh->v[r][i] < v[i])
				v[i] = sh->v[r][i];
	pthread_barrier_wait(&sh->b);
	return 0;
}

/* The comm of rank @c->rank over @c->sh (its barrier made for sh->ranks threads). */
static inline struct mrc_sim_comm st_comm_of(struct st_comm *c)
{
	return (struct mrc_sim_comm){.ranks = c->sh->ranks, .rank = c->rank,
		.exchange = st_comm_exchange, .min = st_comm_min, .ctx = c};
}

#endif
