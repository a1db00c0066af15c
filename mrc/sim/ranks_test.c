/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ranks_test: unit tests of mrc/sim/ranks.c (`mrcgen-test ranks`): the launcher's view read
 * from Open MPI's variables; one process (no variables) never joins MPI. Under mpirun
 * with several processes (harness/tests/mpisim.test), and over ranks that are threads of
 * this process, a model of tokens hopping between entities runs over the ranks
 * (mrc_sim_ranks, 1 and 2 workers a rank) and each rank checks what its entities and
 * entity 0 did against the serial run of the same model.
 */
#include "mrc/sim/ranks.c"
#include "mrc/base/st.h"
#include "mrc/sim/st_comm.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/*
 * The model: entities 1..TM_N, TM_TOKS tokens started by entity 0 at 50 ps steps on
 * entity 1 + id % TM_N. A token's event records (time, key, id, hop) on its entity and
 * hops on: to entity 1 + (e + id) % TM_N, itself in 1 of TM_N cases, a window (the
 * lookahead) plus 0..400 ps later, or sooner on itself; it ends at TM_HOPS. Token 2 at hop
 * 30 schedules an entity-0 event a window later, which stops the run (mrc_sim_stop);
 * entity 0 also ticks at times the caller set. Every rank holds every token's slot.
 */
#define TM_N 8
#define TM_TOKS 12
#define TM_HOPS 60
#define TM_L 1000
#define TM_REC 2048

struct tm_rec {
	uint64_t t, ct, key;
	uint32_t id, hop;
};

struct tmod {
	struct mrc_sim *sim;
	int k_hop, k_tick;
	uint32_t hop[TM_TOKS];	       /* each token's hop count: its object is its slot */
	struct tm_rec rec[TM_N + 1][TM_REC];
	uint32_t n[TM_N + 1];
};

static void tm_rec(struct tmod *m, uint32_t e, uint32_t id, uint32_t hop, uint64_t now)
{
	uint64_t k[3];

	mrc_sim_event_key(m->sim, k);
	if (m->n[e] < TM_REC)
		m->rec[e][m->n[e]++] = (struct tm_rec){ now, k[1], k[2], id, hop };
}

static void tm_hop(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct tmod *m = ctx;
	uint32_t *slot = obj, id = (uint32_t)(slot - m->hop), e = mrc_sim_entity(m->sim), to;
	uint64_t at;

	(void)arg;
	tm_rec(m, e, id, *slot, now);
	if (++*slot >= TM_HOPS)
		return;
	to = 1 + (e + id) % TM_N;
	at = to == e ? now + (id * 37 + *slot * 11) % TM_L
		     : now + TM_L + (id * 7 + *slot * 13) % 5 * 100;
	mrc_sim_at_ent(m->sim, at, to, (unsigned)m->k_hop, slot, 0);
	if (id == 2 && *slot == 30)
		mrc_sim_at_ent(m->sim, now + TM_L, 0, (unsigned)m->k_tick, NULL, 1);
}

static void tm_tick(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct tmod *m = ctx;

	(void)obj;
	tm_rec(m, 0, (uint32_t)arg, 0, now);
	if (arg == 1)
		mrc_sim_stop(m->sim);
}

static int tm_pack(void *ctx, void *obj, uint64_t arg, bool keep, struct mrc_sim_buf *b)
{
	struct tmod *m = ctx;
	uint32_t v[2] = { 0, 0 };

	(void)arg;
	(void)keep;
	if (obj) {
		v[0] = (uint32_t)((uint32_t *)obj - m->hop);
		v[1] = *(uint32_t *)obj;
	}
	return mrc_sim_buf_put(b, v, obj ? sizeof(v) : 0);
}

static int tm_unpack(void *ctx, const void *p, size_t len, void **obj, uint64_t *arg)
{
	struct tmod *m = ctx;
	uint32_t v[2];

	(void)arg;
	*obj = NULL;
	if (len == 0)
		return 0;
	if (len != sizeof(v))
		return -EPROTO;
	memcpy(v, p, sizeof(v));
	if (v[0] >= TM_TOKS)
		return -EPROTO;
	m->hop[v[0]] = v[1];
	*obj = &m->hop[v[0]];
	return 0;
}

/*
 * Runs the model into @m: over @c's ranks with @workers a rank (entities dealt to ranks in
 * blocks, then round robin to workers), or serially (@c NULL). The clock where the stop
 * left it, and at the end, into @t[0..1]. 0 or the error.
 */
static int tm_run(struct tmod *m, const struct mrc_sim_comm *c, unsigned workers, uint64_t *t)
{
	uint16_t er[TM_N + 1] = { 0 }, ew[TM_N + 1] = { 0 };
	int e;

	memset(m, 0, sizeof(*m));
	e = mrc_sim_new(NULL, &m->sim);
	if (e)
		return e;
	mrc_sim_set_window(m->sim, TM_L);
	e = mrc_sim_entities(m->sim, TM_N + 1);
	m->k_hop = mrc_sim_handler(m->sim, tm_hop, m);
	m->k_tick = mrc_sim_handler(m->sim, tm_tick, m);
	e = e ?: mrc_sim_handler_xfer(m->sim, (unsigned)m->k_hop, tm_pack, tm_unpack);
	e = e ?: mrc_sim_handler_xfer(m->sim, (unsigned)m->k_tick, tm_pack, tm_unpack);
	for (uint32_t i = 1; c && i <= TM_N; i++) {
		er[i] = (uint16_t)((i - 1) * c->ranks / TM_N);
		ew[i] = (uint16_t)((i - 1) % workers);
	}
	e = e ?: c ? mrc_sim_ranks(m->sim, c, er) : 0;
	e = e ?: c ? mrc_sim_partition(m->sim, workers, ew) : 0;
	for (uint32_t id = 0; id < TM_TOKS && !e; id++)
		e = mrc_sim_at_ent(m->sim, id * 50, 1 + id % TM_N, (unsigned)m->k_hop,
			&m->hop[id], 0);
	e = e ?: mrc_sim_at_ent(m->sim, 2500, 0, (unsigned)m->k_tick, NULL, 10);
	e = e ?: mrc_sim_at_ent(m->sim, 17300, 0, (unsigned)m->k_tick, NULL, 11);
	if (!e) {
		mrc_sim_run(m->sim, MRC_SIM_NEVER);
		t[0] = mrc_sim_now(m->sim);
		mrc_sim_run(m->sim, MRC_SIM_NEVER);
		t[1] = mrc_sim_now(m->sim);
	}
	mrc_sim_free(m->sim);
	return e;
}

/*
 * Rank @rank of @size ran the model into @par with the clocks @tp: every entity it owns and
 * entity 0 recorded what they did in the serial run @ser (clocks @ts), the others nothing.
 */
static void tm_compare(struct mrc_st *st, const struct tmod *ser, const uint64_t *ts,
	const struct tmod *par, const uint64_t *tp, unsigned rank, unsigned size)
{
	uint64_t all = 0, mine = 0;

	for (uint32_t e = 0; e <= TM_N; e++)
		all += ser->n[e];
	/* 12 tokens of 60 hops, 3 ticks: the stop is hop 30 of token 2 */
	ST_EQ(st, all, TM_TOKS * TM_HOPS + 3);
	ST_TRUE(st, ts[0] > 0 && ts[0] < ts[1] && ts[0] % TM_L == 0);
	ST_EQ(st, tp[0], ts[0]);
	ST_EQ(st, tp[1], ts[1]);
	for (uint32_t e = 0; e <= TM_N; e++) {
		if (e && (e - 1) * size / TM_N != rank) {
			ST_EQ(st, par->n[e], 0);
			continue;
		}
		mine += par->n[e];
		ST_EQ(st, par->n[e], ser->n[e]);
		ST_TRUE(st, !memcmp(par->rec[e], ser->rec[e], ser->n[e] * sizeof(ser->rec[e][0])));
	}
	ST_TRUE(st, mine > 3 && mine < all);
}

static struct tmod tm_ser, tm_par[3];

/* Over the ranks of @r (joined), with 1 and 2 workers a rank: tm_compare. */
static void tm_check(struct mrc_st *st, struct mrc_simrank *r)
{
	struct mrc_sim_comm c;
	uint64_t ts[2] = { 0, 0 }, tp[2] = { 0, 0 };

	ST_EQ_I(st, mrc_simrank_comm(r, &c), 0);
	ST_EQ_I(st, tm_run(&tm_ser, NULL, 1, ts), 0);
	for (unsigned w = 1; w <= 2; w++) {
		ST_EQ_I(st, tm_run(&tm_par[0], &c, w, tp), 0);
		tm_compare(st, &tm_ser, ts, &tm_par[0], tp, r->rank, r->size);
	}
}

/* Ranks as threads of this process (mrc/sim/st_comm.h). */
struct tc {
	struct st_comm cm;
	unsigned workers;
	int err;
	uint64_t t[2];
};

static void *tc_rank(void *arg)
{
	struct tc *c = arg;
	struct mrc_sim_comm comm = st_comm_of(&c->cm);

	c->err = tm_run(&tm_par[c->cm.rank], &comm, c->workers, c->t);
	return NULL;
}

/* The model over @ranks threads, @workers a rank, against the serial run. */
static void tc_check(struct mrc_st *st, unsigned ranks, unsigned workers)
{
	struct st_comm_shared sh = { .ranks = ranks };
	struct tc c[ST_COMM_MAX];
	pthread_t th[ST_COMM_MAX];
	uint64_t ts[2] = { 0, 0 };

	ST_EQ_I(st, tm_run(&tm_ser, NULL, 1, ts), 0);
	pthread_barrier_init(&sh.b, NULL, ranks);
	for (unsigned r = 0; r < ranks; r++) {
		c[r] = (struct tc){ .cm = { &sh, r }, .workers = workers };
		ST_EQ_I(st, pthread_create(&th[r], NULL, tc_rank, &c[r]), 0);
	}
	for (unsigned r = 0; r < ranks; r++)
		pthread_join(th[r], NULL);
	pthread_barrier_destroy(&sh.b);
	for (unsigned r = 0; r < ranks; r++) {
		ST_EQ_I(st, c[r].err, 0);
		tm_compare(st, &tm_ser, ts, &tm_par[r], c[r].t, r, ranks);
	}
}

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

	ST_EQ_I(st, mrc_simrank_join(&r, err, sizeof(err)), 0);
	if (r.size > 1) {
		mrc_st_case(st, "under mpirun: tokens hopping over the ranks, 1 and 2 workers "
				"a rank: each rank's entities and entity 0 do what the serial "
				"run did");
		tm_check(st, &r);
	}
	mrc_simrank_leave(&r);

	mrc_st_case(st, "ranks as threads: tokens hopping over 2 and 3 ranks, 1 and 2 workers "
			"a rank: each rank's entities and entity 0 do what the serial run did");
	for (unsigned ranks = 2; ranks <= 3; ranks++)
		for (unsigned w = 1; w <= 2; w++)
			tc_check(st, ranks, w);

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
	ST_TRUE(st, strstr(err, "OMPI_COMM_WORLD_SIZE: unset, with OMPI_COMM_WORLD_RANK") != NULL);
	t_ompi("2", NULL);
	ST_EQ_I(st, mrc_simrank_launched(&r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "OMPI_COMM_WORLD_RANK: unset, with OMPI_COMM_WORLD_SIZE '2'") != NULL);

	t_ompi(n0, r0);
	free(n0);
	free(r0);

	mrc_st_case(st, "a peer's process: alive while it runs (a name with ') ' in it), not "
			"once a zombie or reaped, nor with another start time");
	{
		uint64_t start, s2;
		siginfo_t si;
		int p[2], q[2];
		char c = 0, state;
		pid_t pid;

		ST_EQ_I(st, proc_stat(getpid(), &state, &start), 0);
		ST_TRUE(st, simrank_alive(getpid(), start));
		ST_TRUE(st, !simrank_alive(getpid(), start + 1));
		ST_EQ_I(st, pipe(p), 0);
		ST_EQ_I(st, pipe(q), 0);
		pid = fork();
		if (pid == 0) { /* named, says so, waits for its end */
			prctl(PR_SET_NAME, "a) 1 2 (b");
			if (write(q[1], &c, 1) != 1 || read(p[0], &c, 1) < 0)
				_exit(1);
			_exit(0);
		}
		ST_TRUE(st, pid > 0);
		ST_EQ_I(st, (int)read(q[0], &c, 1), 1);
		ST_EQ_I(st, proc_stat(pid, &state, &s2), 0);
		ST_TRUE(st, s2 >= start);
		ST_TRUE(st, simrank_alive(pid, s2));
		ST_EQ_I(st, (int)write(p[1], &c, 1), 1);
		/* exited, not reaped: a zombie */
		ST_EQ_I(st, waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
		ST_TRUE(st, !simrank_alive(pid, s2));
		ST_EQ_I(st, (int)waitpid(pid, NULL, 0), (int)pid);
		ST_TRUE(st, !simrank_alive(pid, s2));
		ST_EQ_I(st, proc_stat(pid, &state, &s2), -1);
		close(p[0]);
		close(p[1]);
		close(q[0]);
		close(q[1]);
	}
}
