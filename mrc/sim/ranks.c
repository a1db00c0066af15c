/* SPDX-License-Identifier: BSD-2-Clause */
/* ranks: the MPI ranks of a simulation, joined only under mpirun (mrc/sim/ranks.h). */
#include "mrc/sim/ranks.h"

#include "mrc/base/num.h"
#include "mrc/job/stop.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RK_TAG_X 1		       /* an exchange's message */
#define RK_CHECK_NS 10000000ull	       /* how often a wait looks at its peers: 10 ms */
#define RK_SIGNAL_NS 500000000ull      /* ... once this process got SIGINT/SIGTERM */

/* Who a rank is: what a peer needs to tell whether it still runs (simrank_alive). */
struct rk_who {
	int32_t pid;
	uint32_t pad;
	uint64_t start;	  /* its start: /proc/PID/stat field 22, clock ticks after boot */
	char space[96];	  /* the boot's id and pid namespace: equal, its pid is ours too */
	char host[64];
};

/* The collectives' state and scratch, a rank each where [ranks]. */
struct simrank_x {
	MPI_Comm comm;	       /* MPI_COMM_WORLD's duplicate, MPI_ERRORS_RETURN */
	struct rk_who *who;    /* every rank's, exchanged at mrc_simrank_join */
	MPI_Request *sreq, *rreq;
	MPI_Message *msg;
	bool *probed;
	int *rn;
	uint64_t *mv;	       /* a minimum's values sent (this rank's) */
	size_t mv_cap;	       /* in values */
	int lost_rank;	       /* the lowest rank lost, -1 while none (or not known) */
	char lost[512];	       /* why: "" while none */
};

static uint64_t rk_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * Process @pid's state letter and start time (/proc/PID/stat fields 3 and 22). 0, or -1
 * when there is no such process (or its stat cannot be read or parsed).
 */
static int proc_stat(int pid, char *state, uint64_t *start)
{
	char path[48], buf[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
				"%*d %*d %*d %*d %" SCNu64, state, start) != 2)
		return -1;
	return 0;
}

/* Whether process @pid, started at @start (proc_stat), still runs: not gone, not a zombie,
 * its pid not another's since. */
static bool simrank_alive(int pid, uint64_t start)
{
	uint64_t s;
	char st;

	return !proc_stat(pid, &st, &s) && s == start && st != 'Z' && st != 'X' && st != 'x';
}

/* This process's rk_who. */
static void who_me(struct rk_who *w)
{
	char boot[48] = "", ns[48] = "", st;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	ssize_t n;

	memset(w, 0, sizeof(*w));
	w->pid = (int32_t)getpid();
	if (proc_stat(w->pid, &st, &w->start))
		w->start = UINT64_MAX;
	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			boot[0] = 0;
		fclose(f);
		boot[strcspn(boot, "\n")] = 0;
	}
	n = readlink("/proc/self/ns/pid", ns, sizeof(ns) - 1);
	ns[n > 0 ? n : 0] = 0;
	/* without either, no peer takes this one's pid for its own */
	if (boot[0] && ns[0] && w->start != UINT64_MAX)
		snprintf(w->space, sizeof(w->space), "%s %s", boot, ns);
	if (gethostname(w->host, sizeof(w->host) - 1))
		snprintf(w->host, sizeof(w->host), "?");
}

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

static void x_free(struct simrank_x *x)
{
	if (!x)
		return;
	free(x->who);
	free(x->sreq);
	free(x->rreq);
	free(x->msg);
	free(x->probed);
	free(x->rn);
	free(x->mv);
	free(x);
}

/* The collectives' state for @r's ranks, and every rank's rk_who (a collective). 0 or
 * -ENOMEM, -EPROTO with @err. */
static int x_new(struct mrc_simrank *r, char *err, size_t errlen)
{
	struct simrank_x *x = calloc(1, sizeof(*x));
	struct rk_who me;

	if (x) {
		x->who = calloc(r->size, sizeof(*x->who));
		x->sreq = calloc(r->size, sizeof(*x->sreq));
		x->rreq = calloc(r->size, sizeof(*x->rreq));
		x->msg = calloc(r->size, sizeof(*x->msg));
		x->probed = calloc(r->size, sizeof(*x->probed));
		x->rn = calloc(r->size, sizeof(*x->rn));
		x->lost_rank = -1;
	}
	if (!x || !x->who || !x->sreq || !x->rreq || !x->msg || !x->probed || !x->rn) {
		x_free(x);
		snprintf(err, errlen, "mpirun: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	r->x = x;
	for (uint32_t k = 0; k < r->size; k++)
		x->sreq[k] = x->rreq[k] = MPI_REQUEST_NULL;
	who_me(&me);
	if (MPI_Comm_dup(MPI_COMM_WORLD, &x->comm) != MPI_SUCCESS ||
		MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
		MPI_Allgather(&me, sizeof(me), MPI_BYTE, x->who, sizeof(me), MPI_BYTE,
			x->comm) != MPI_SUCCESS) {
		snprintf(err, errlen, "mpirun: the ranks' processes: MPI_Allgather failed");
		return -EPROTO;
	}
	for (uint32_t k = 0; k < r->size; k++) {
		x->who[k].space[sizeof(x->who[k].space) - 1] = 0;
		x->who[k].host[sizeof(x->who[k].host) - 1] = 0;
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
	return x_new(r, err, errlen);
}

/* Records rank @k lost (@fmt says why, after "rank K (...) "): the first reason stays, the
 * lowest rank is kept. Returns -ECONNABORTED. */
static int __attribute__((format(printf, 3, 4))) rk_lose(struct mrc_simrank *r, uint32_t k,
	const char *fmt, ...)
{
	struct simrank_x *x = r->x;
	size_t n = strlen(x->lost);
	va_list ap;

	if (x->lost_rank < 0 || (int)k < x->lost_rank)
		x->lost_rank = (int)k;
	if (n + 2 >= sizeof(x->lost))
		return -ECONNABORTED;
	if (n)
		n += (size_t)snprintf(x->lost + n, sizeof(x->lost) - n, ", ");
	if (n < sizeof(x->lost) && x->who[k].space[0] &&
		!strcmp(x->who[k].space, x->who[r->rank].space))
		n += (size_t)snprintf(x->lost + n, sizeof(x->lost) - n, "rank %u (pid %d on %s) ",
			k, x->who[k].pid, x->who[k].host);
	else if (n < sizeof(x->lost))
		n += (size_t)snprintf(x->lost + n, sizeof(x->lost) - n, "rank %u (on %s) ", k,
			x->who[k].host);
	va_start(ap, fmt);
	if (n < sizeof(x->lost))
		vsnprintf(x->lost + n, sizeof(x->lost) - n, fmt, ap);
	va_end(ap);
	return -ECONNABORTED;
}

/* Whether the round is still waiting on peer @k: its message not yet probed (@probing) or
 * received, or this rank's to it not yet sent. */
static bool rk_pending(const struct simrank_x *x, uint32_t k, bool probing)
{
	return (probing ? !x->probed[k] : x->rreq[k] != MPI_REQUEST_NULL) ||
	       (!probing && x->sreq[k] != MPI_REQUEST_NULL);
}

/*
 * The peers a wait waits on (@all: every one, else those rk_pending says for @probing),
 * looked at @now: a peer on this host (its pid ours: the same boot and pid namespace) that
 * is gone or a zombie is lost; a peer on another host only RK_SIGNAL_NS after this process
 * got SIGINT/SIGTERM (*@sig_at: when it was first seen; mpirun's when it ends the job
 * because a rank died). No time limit else: a slow, stopped or suspended rank is waited
 * for. Whether one was lost (recorded: rk_lose).
 */
static bool rk_watch(struct mrc_simrank *r, uint64_t now, uint64_t *sig_at, bool all,
	bool probing)
{
	struct simrank_x *x = r->x;
	bool lost = false;

	if (mrc_stop_signal && !*sig_at)
		*sig_at = now;
	for (uint32_t k = 0; k < r->size; k++) {
		const struct rk_who *w = &x->who[k];

		if (k == r->rank || (!all && !rk_pending(x, k, probing)))
			continue;
		if (w->space[0] && !strcmp(w->space, x->who[r->rank].space)) {
			if (!simrank_alive(w->pid, w->start)) {
				rk_lose(r, k, "died");
				lost = true;
			}
		} else if (*sig_at && now - *sig_at > RK_SIGNAL_NS) {
			rk_lose(r, k, "did not answer within %llu ms of SIG%s (mpirun ends the job "
				      "so when a rank dies)", RK_SIGNAL_NS / 1000000ull,
				sigabbrev_np(mrc_stop_signal) ?: "?");
			lost = true;
		}
	}
	return lost;
}

/*
 * One pass over the round's requests (@tag's messages probed when @probing, else every send
 * and receive completed): *@pending whether one still is. 0, or -ECONNABORTED with the
 * peer whose MPI call failed recorded (rk_lose).
 */
static int rk_test_peers(struct mrc_simrank *r, int tag, bool probing, bool *pending)
{
	struct simrank_x *x = r->x;

	*pending = false;
	for (uint32_t k = 0; k < r->size; k++) {
		MPI_Status st;
		int f = 0, e = MPI_SUCCESS;

		if (k == r->rank)
			continue;
		if (probing && !x->probed[k]) {
			e = MPI_Improbe((int)k, tag, x->comm, &f, &x->msg[k], &st);
			if (e == MPI_SUCCESS && f) {
				e = MPI_Get_count(&st, MPI_BYTE, &x->rn[k]);
				x->probed[k] = true;
			}
		}
		if (e == MPI_SUCCESS && !probing && x->rreq[k] != MPI_REQUEST_NULL)
			e = MPI_Test(&x->rreq[k], &f, MPI_STATUS_IGNORE);
		if (e == MPI_SUCCESS && x->sreq[k] != MPI_REQUEST_NULL)
			e = MPI_Test(&x->sreq[k], &f, MPI_STATUS_IGNORE);
		if (e != MPI_SUCCESS) {
			char s[MPI_MAX_ERROR_STRING] = "";
			int n = 0;

			MPI_Error_string(e, s, &n);
			return rk_lose(r, k, "failed in MPI: %s", s);
		}
		*pending |= rk_pending(x, k, probing);
	}
	return 0;
}

/*
 * Waits for the round: the collective @coll when not NULL (its failure names no rank: a
 * collective's does not say whose), else the point-to-point requests (rk_test_peers), watching
 * the peers it waits on (every one for @coll) every RK_CHECK_NS (rk_watch). 0, or
 * -ECONNABORTED with every peer found lost recorded.
 */
static int rk_wait(struct mrc_simrank *r, int tag, bool probing, MPI_Request *coll)
{
	uint64_t check = rk_now_ns() + RK_CHECK_NS, sig_at = 0, now;

	for (;;) {
		bool pending;
		int f = 0, e;

		if (!coll) {
			e = rk_test_peers(r, tag, probing, &pending);
		} else if ((e = MPI_Test(coll, &f, MPI_STATUS_IGNORE)) != MPI_SUCCESS) {
			char s[MPI_MAX_ERROR_STRING] = "";
			int n = 0;

			MPI_Error_string(e, s, &n);
			snprintf(r->x->lost, sizeof(r->x->lost), "a collective failed in MPI: %s",
				s);
			e = -ECONNABORTED;
		} else {
			pending = !f;
		}
		if (e)
			return e;
		if (!pending)
			return 0;
		now = rk_now_ns();
		if (now < check)
			continue;
		check = now + RK_CHECK_NS;
		if (rk_watch(r, now, &sig_at, coll, probing))
			return -ECONNABORTED;
	}
}

/* After a loss: @recv holds this rank's own bytes of @send alone (those at @mine). */
static void only_mine(const struct mrc_simrank *r, const unsigned char *mine, size_t n,
	struct mrc_sim_buf *recv, size_t *recv_n)
{
	if (n) /* recv->a may be NULL while nothing was ever received */
		memmove(recv->a, mine, n);
	recv->n = n;
	for (uint32_t k = 0; k < r->size; k++)
		recv_n[k] = k == r->rank ? n : 0;
}

/* mrc_sim_comm's exchange: a message to every other rank (@send_n[k] bytes, maybe 0), and
 * one from each, probed for its size, received into its place in rank order. */
static int mpi_exchange(void *ctx, const void *send, const size_t *send_n,
	struct mrc_sim_buf *recv, size_t *recv_n)
{
	struct mrc_simrank *r = ctx;
	struct simrank_x *x = r->x;
	const unsigned char *s = send, *mine = s;
	size_t so = 0, rt = 0, at = 0;
	int e = 0;

	for (uint32_t k = 0; k < r->size; k++) {
		if (send_n[k] > INT_MAX)
			return -E2BIG;
		if (k == r->rank)
			mine = s + so;
		so += send_n[k];
	}
	for (uint32_t k = 0; k < r->size; k++) {
		x->probed[k] = k == r->rank;
		x->rn[k] = k == r->rank ? (int)send_n[k] : 0;
		rt += k == r->rank ? send_n[k] : 0;
	}
	so = 0;
	for (uint32_t k = 0; !e && !x->lost[0] && k < r->size; so += send_n[k], k++)
		if (k != r->rank && MPI_Isend(s + so, (int)send_n[k], MPI_BYTE, (int)k,
			    RK_TAG_X, x->comm, &x->sreq[k]) != MPI_SUCCESS)
			e = rk_lose(r, k, "failed in MPI: MPI_Isend");
	e = e ?: x->lost[0] ? -ECONNABORTED : rk_wait(r, RK_TAG_X, true, NULL);
	for (uint32_t k = 0; !e && k < r->size; k++)
		rt += k == r->rank ? 0 : (size_t)x->rn[k];
	if (recv->cap < rt) {
		unsigned char *a = realloc(recv->a, rt);

		if (!a)
			return -ENOMEM;
		recv->a = a;
		recv->cap = rt;
	}
	if (e) {
		only_mine(r, mine, send_n[r->rank], recv, recv_n);
		return e;
	}
	rt = 0;
	for (uint32_t k = 0; k < r->size; k++) {
		if (k == r->rank) {
			if (send_n[k]) /* recv->a is NULL before anything was received */
				memcpy(recv->a + rt, mine, send_n[k]);
			at = rt;
		} else if (!e && MPI_Imrecv(recv->a + rt, x->rn[k], MPI_BYTE, &x->msg[k],
				       &x->rreq[k]) != MPI_SUCCESS)
			e = rk_lose(r, k, "failed in MPI: MPI_Imrecv");
		recv_n[k] = (size_t)x->rn[k];
		rt += recv_n[k];
	}
	recv->n = rt;
	e = e ?: rk_wait(r, RK_TAG_X, false, NULL);
	if (e) /* its own bytes are where rank order put them: moved to the front */
		only_mine(r, recv->a + at, send_n[r->rank], recv, recv_n);
	return e;
}

/* mrc_sim_comm's min: MPI_Iallreduce (log2 of the ranks' steps, not a message to each), its
 * completion watched (rk_wait). After a loss @v is this rank's own. */
static int mpi_min(void *ctx, uint64_t *v, unsigned n)
{
	struct mrc_simrank *r = ctx;
	struct simrank_x *x = r->x;
	MPI_Request req;
	int e;

	if (x->lost[0])
		return -ECONNABORTED;
	if (x->mv_cap < n) {
		uint64_t *a = realloc(x->mv, (size_t)n * sizeof(*a));

		if (!a)
			return -ENOMEM;
		x->mv = a;
		x->mv_cap = n;
	}
	memcpy(x->mv, v, (size_t)n * sizeof(*v));
	if (MPI_Iallreduce(x->mv, v, (int)n, MPI_UINT64_T, MPI_MIN, x->comm, &req) !=
		MPI_SUCCESS) {
		snprintf(x->lost, sizeof(x->lost), "MPI_Iallreduce failed");
		e = -ECONNABORTED;
	} else {
		e = rk_wait(r, 0, false, &req);
	}
	if (e)
		memcpy(v, x->mv, (size_t)n * sizeof(*v));
	return e;
}

static const char *mpi_lost(void *ctx)
{
	const struct mrc_simrank *r = ctx;

	return r->x && r->x->lost[0] ? r->x->lost : NULL;
}

int mrc_simrank_comm(struct mrc_simrank *r, struct mrc_sim_comm *c)
{
	if (!r->joined || !r->x)
		return -EINVAL;
	*c = (struct mrc_sim_comm){ .ranks = r->size, .rank = r->rank, .exchange = mpi_exchange,
		.min = mpi_min, .lost = mpi_lost, .ctx = r };
	return 0;
}

int mrc_simrank_lost(const struct mrc_simrank *r, const char **why)
{
	*why = mpi_lost((void *)r);
	if (!*why)
		return -1;
	return r->x->lost_rank >= 0 ? r->x->lost_rank : (int)r->size;
}

void mrc_simrank_leave(struct mrc_simrank *r)
{
	bool lost = r->x && r->x->lost[0];

	if (r->x && !lost)
		MPI_Comm_free(&r->x->comm);
	x_free(r->x);
	r->x = NULL;
	if (r->joined && !lost)
		MPI_Finalize();
	r->joined = false;
}
