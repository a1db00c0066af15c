/* SPDX-License-Identifier: BSD-2-Clause */
/* sim: virtual clock (ps) and deterministic event queue — binary heap or timing wheel. */
#include "mrc/sim/sim.h"
#include "mrc/base/rng.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * One event: 48 bytes. @ct: the clock when it was scheduled; @key = source entity <<
 * SEQ_BITS | that entity's sequence: the entity whose event scheduled it (0: none, the
 * caller outside the loop) and how many it had scheduled before. Keys are unique, so
 * (time, ct, key) is a total order, first come first served as insertion order was, that
 * does not depend on the order in which entities interleave (docs/architecture.md
 * "Parallel simulation"). @ek = target entity << 8 | handler kind.
 */
struct sim_ev {
	uint64_t t;
	uint64_t ct;
	uint64_t key;
	void *obj;
	uint64_t arg;
	uint32_t ek;
};

#define SEQ_BITS 40
#define MAX_ENTS (1u << 24)

struct sim_heap {
	struct sim_ev *a;
	size_t n, cap;
};

struct sim_bucket {
	struct sim_ev *ev;
	uint32_t n, cap;
};

/*
 * An emptied bucket gives its array to the spare lists, one per capacity (8 << k events),
 * and a bucket that fills takes the next size from them: a busy tick's bucket grew by
 * realloc, 64,600 calls and 3 % of a 128-host all-to-all's instructions. The lists hold
 * at most SPARE_EVS events in all (64 KiB), the rest is freed, so the wheel's memory
 * follows the events pending, not the busiest bucket ever (2048 buckets keeping up to 16
 * events each were 0.94 MB of a 32-host job's heap).
 */
#define SPARE_CLASSES 16
#define SPARE_EVS 2048u

struct sim_wheel {
	unsigned tick_bits, nb_bits;
	uint64_t nb, mask;
	uint64_t cur;	       /* current tick: run and near hold every event with tick <= cur */
	struct sim_bucket *b;  /* ticks cur+1 .. cur+nb-1, slot = tick & mask */
	uint64_t *bits;	       /* non-empty buckets */
	struct sim_ev *run;    /* the current tick's bucket, sorted: run[run_i..run_n-1] */
	uint32_t run_i, run_n; /* next, end */
	uint32_t run_cap;
	struct sim_heap near;  /* events of the current tick: a bucket too disordered to sort
				* cheaply, and those scheduled into it after it began */
	struct sim_heap far;   /* ticks >= cur + nb */
	struct sim_ev *spare[SPARE_CLASSES]; /* free arrays of 8 << k events, for buckets that
				* fill: linked through obj of their event 0 */
	size_t spare_evs;      /* events they have room for, at most SPARE_EVS */
	struct sim_ev *tmp;    /* radix_run's scratch: the largest bucket it sorted */
	uint32_t tmp_cap;
};

struct sim_handler {
	mrc_sim_fn fn;
	void *ctx;
};

struct sim_par;
struct sim_rk;

/* A kind's crossing of ranks (mrc_sim_handler_xfer). */
struct sim_xfer {
	mrc_sim_pack_fn pack;
	mrc_sim_unpack_fn unpack;
};

struct mrc_sim {
	enum mrc_simq queue;
	struct sim_par *par;	 /* mrc_sim_partition: the workers' queues; this one global */
	struct mrc_sim *parent;	 /* a worker's queue: the simulator it belongs to */
	struct sim_rk *rk;	 /* mrc_sim_ranks: the other ranks */
	struct sim_xfer *xf;	 /* [255] mrc_sim_handler_xfer, NULL when none was set */
	unsigned wid;		 /* a worker's number */
	uint64_t now;
	uint64_t *seq;	 /* [n_ents]: events each entity scheduled */
	uint32_t n_ents;
	uint32_t cur;	 /* entity of the event running, 0 outside one */
	uint64_t cur_ct, cur_key; /* the key of the event running or last run */
	uint64_t window; /* mrc_sim_set_window: a stop ends at the next multiple; 0 at once */
	uint64_t events;
	size_t pending;
	bool stop;
	const volatile sig_atomic_t *intr; /* mrc_sim_set_interrupt */
	unsigned n_handlers;
	struct sim_heap heap; /* MRC_SIMQ_HEAP */
	struct sim_wheel w;   /* MRC_SIMQ_WHEEL */
	struct sim_handler h[255];
};

static inline bool ev_lt(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t ||
	       (a->t == b->t && (a->ct < b->ct || (a->ct == b->ct && a->key < b->key)));
}

static int heap_push(struct sim_heap *h, const struct sim_ev *e)
{
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;
		struct sim_ev *a = realloc(h->a, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		h->a = a;
		h->cap = cap;
	}
	i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!ev_lt(e, &h->a[parent]))
			break;
		h->a[i] = h->a[parent];
		i = parent;
	}
	h->a[i] = *e;
	return 0;
}

static void sift_down(struct sim_heap *h, size_t i)
{
	struct sim_ev e = h->a[i];
	size_t n = h->n;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ev_lt(&h->a[c + 1], &h->a[c]))
			c++;
		if (!ev_lt(&h->a[c], &e))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	h->a[i] = e;
}

static void heap_pop(struct sim_heap *h, struct sim_ev *out)
{
	*out = h->a[0];
	h->a[0] = h->a[--h->n];
	if (h->n)
		sift_down(h, 0);
}

static void heapify(struct sim_heap *h)
{
	for (size_t i = h->n / 2; i-- > 0;)
		sift_down(h, i);
}

/*
 * Sorts @n events by (time, key) by insertion, which costs little on a bucket: its
 * events are in insertion (key) order, and in time order too unless scheduled out of it
 * (in lockstep, hundreds at one time). Gives up (returns false, @a a permutation of what
 * it was) when that costs more than @budget moves in all (UINT64_MAX: never).
 */
static bool sort_run(struct sim_ev *a, uint32_t n, uint64_t budget)
{
	for (uint32_t i = 1; i < n; i++) {
		struct sim_ev e = a[i];
		uint32_t j = i;

		for (; j > 0 && ev_lt(&e, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = e;
		if (i - j > budget)
			return false;
		budget -= i - j;
	}
	return true;
}

/* The wheel's next event: the earlier of run's and near's first; they must not both be
 * empty. */
static inline struct sim_ev *wheel_top(struct sim_wheel *w)
{
	struct sim_ev *t = w->run_i < w->run_n ? &w->run[w->run_i] : NULL;

	if (w->near.n && (!t || ev_lt(&w->near.a[0], t)))
		t = &w->near.a[0];
	return t;
}

static inline bool wheel_empty_tick(const struct sim_wheel *w)
{
	return w->near.n == 0 && w->run_i == w->run_n;
}

/* Takes @top (wheel_top) off the wheel into @e. */
static inline void wheel_pop(struct sim_wheel *w, struct sim_ev *top, struct sim_ev *e)
{
	if (top == w->near.a)
		heap_pop(&w->near, e);
	else
		*e = w->run[w->run_i++];
}

/* The spare list for arrays of @cap events, or -1 when @cap is not 8 << k. */
static int spare_class(size_t cap)
{
	for (int k = 0; k < SPARE_CLASSES; k++)
		if (cap == (size_t)8 << k)
			return k;
	return -1;
}

/* Takes @a (an array of @cap events, NULL or empty) back: onto a spare list or freed. */
static void spare_put(struct sim_wheel *w, struct sim_ev *a, size_t cap)
{
	int k = spare_class(cap);

	if (!a)
		return;
	if (k < 0 || w->spare_evs + cap > SPARE_EVS) {
		free(a);
		return;
	}
	a[0].obj = w->spare[k];
	w->spare[k] = a;
	w->spare_evs += cap;
}

/* An array of 8 << @k events from the spare lists, or NULL. */
static struct sim_ev *spare_get(struct sim_wheel *w, int k)
{
	struct sim_ev *a = w->spare[k];

	if (a) {
		w->spare[k] = a[0].obj;
		w->spare_evs -= (size_t)8 << k;
	}
	return a;
}

static int bucket_add(struct sim_wheel *w, uint64_t tick, const struct sim_ev *e)
{
	uint64_t slot = tick & w->mask;
	struct sim_bucket *b = &w->b[slot];

	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 8;
		int k = spare_class(cap);
		struct sim_ev *ev = k >= 0 ? spare_get(w, k) : NULL;

		if (ev) {
			if (b->n)
				memcpy(ev, b->ev, b->n * sizeof(*ev));
			spare_put(w, b->ev, b->cap);
		} else {
			ev = realloc(b->ev, cap * sizeof(*ev));
			if (!ev)
				return -ENOMEM;
		}
		b->ev = ev;
		b->cap = cap;
	}
	b->ev[b->n++] = *e;
	w->bits[slot >> 6] |= 1ull << (slot & 63);
	return 0;
}

static int wheel_push(struct sim_wheel *w, const struct sim_ev *e)
{
	uint64_t tick = e->t >> w->tick_bits;

	if (tick <= w->cur)
		return heap_push(&w->near, e);
	if (tick - w->cur < w->nb)
		return bucket_add(w, tick, e);
	return heap_push(&w->far, e);
}

/* First tick after cur whose bucket is non-empty, or MRC_SIM_NEVER. */
static uint64_t wheel_next_bucket(const struct sim_wheel *w)
{
	uint64_t start = (w->cur + 1) & w->mask, nwords = (w->nb + 63) / 64;
	uint64_t slot = start, scanned = 0;

	while (scanned < w->nb) {
		uint64_t word = w->bits[slot >> 6] >> (slot & 63);

		if (word) {
			uint64_t s = slot + (uint64_t)__builtin_ctzll(word);
			uint64_t dist = (s - start) & w->mask;

			if (s < w->nb && scanned + (s - slot) < w->nb)
				return w->cur + 1 + dist;
		}
		scanned += 64 - (slot & 63);
		slot = ((slot >> 6) + 1) % nwords * 64;
	}
	return MRC_SIM_NEVER;
}

#define RADIX_BITS 6
#define SORT_RUN_MAX 32 /* a longer run of one time is sorted by qsort, not by insertion */

/* qsort's order of two events of one time: (ct, key), as ev_lt ((ct, key) is unique: the
 * key holds the entity and its own sequence number). */
static int ev_cmp_key(const void *pa, const void *pb)
{
	const struct sim_ev *a = pa, *b = pb;

	if (a->ct != b->ct)
		return a->ct < b->ct ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/*
 * Sorts @n events of one tick by time, stably, with passes of RADIX_BITS over the time's
 * offset in the tick, then each run of equal times by key: by insertion up to
 * SORT_RUN_MAX events (mostly in key order already, an entity's events being in its own
 * order), else by qsort (thousands of hosts in lockstep: insertion was 41% of a serial
 * 8192-host permutation).
 * Returns false (@a unsorted) on -ENOMEM.
 */
static bool radix_run(struct sim_wheel *w, struct sim_ev *a, uint32_t n)
{
	uint64_t tick_mask = (1ull << w->tick_bits) - 1;

	if (n > w->tmp_cap) {
		struct sim_ev *t = realloc(w->tmp, (size_t)n * sizeof(*t));

		if (!t)
			return false;
		w->tmp = t;
		w->tmp_cap = n;
	}
	for (unsigned shift = 0; shift < w->tick_bits; shift += RADIX_BITS) {
		uint32_t cnt[1u << RADIX_BITS] = {0}, sum = 0;
		uint64_t dmask = (1u << RADIX_BITS) - 1;

		for (uint32_t i = 0; i < n; i++)
			cnt[((a[i].t & tick_mask) >> shift) & dmask]++;
		for (uint32_t d = 0; d <= dmask; d++) {
			uint32_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (uint32_t i = 0; i < n; i++)
			w->tmp[cnt[((a[i].t & tick_mask) >> shift) & dmask]++] = a[i];
		memcpy(a, w->tmp, (size_t)n * sizeof(*a));
	}
	for (uint32_t i = 0, j; i < n; i = j) { /* each run of one time, by key */
		for (j = i + 1; j < n && a[j].t == a[i].t; j++)
			;
		if (j - i > SORT_RUN_MAX)
			qsort(a + i, j - i, sizeof(*a), ev_cmp_key);
		else
			sort_run(a + i, j - i, UINT64_MAX);
	}
	return true;
}

/* Refills run (a sorted bucket) or the near heap from the wheel and far heap, once the
 * current tick has nothing left. Returns false when all are empty. */
static bool wheel_advance(struct sim_wheel *w)
{
	while (wheel_empty_tick(w)) {
		uint64_t tb = wheel_next_bucket(w), tf = MRC_SIM_NEVER, next;

		if (w->far.n)
			tf = w->far.a[0].t >> w->tick_bits;
		next = tb < tf ? tb : tf;
		if (next == MRC_SIM_NEVER)
			return false;
		w->cur = next;
		if (tb == next) {
			uint64_t slot = next & w->mask;
			struct sim_bucket *b = &w->b[slot];
			struct sim_ev *spare;
			size_t spare_cap;

			/* the (empty) run takes the bucket's array and sorts it in place (by
			 * insertion, or by radix when far out of order: hundreds of lockstep
			 * events in one tick), else the (empty) near heap takes it and heapifies
			 * it; the array it replaced goes to the spare list (spare_put), so the
			 * wheel's memory follows the events pending, not the busiest bucket ever */
			if (sort_run(b->ev, b->n, 4 * (uint64_t)b->n + 64) || radix_run(w, b->ev, b->n)) {
				spare = w->run;
				spare_cap = w->run_cap;
				w->run = b->ev;
				w->run_cap = b->cap;
				w->run_n = b->n;
				w->run_i = 0;
			} else {
				spare = w->near.a;
				spare_cap = w->near.cap;
				w->near.a = b->ev;
				w->near.cap = b->cap;
				w->near.n = b->n;
				heapify(&w->near);
			}
			spare_put(w, spare, spare_cap);
			b->ev = NULL;
			b->cap = 0;
			b->n = 0;
			w->bits[slot >> 6] &= ~(1ull << (slot & 63));
		}
		while (w->far.n && (w->far.a[0].t >> w->tick_bits) - w->cur < w->nb) {
			struct sim_ev e;

			heap_pop(&w->far, &e);
			if (wheel_push(w, &e))
				abort();
		}
	}
	return true;
}

int mrc_sim_new(const struct mrc_sim_params *p, struct mrc_sim **out)
{
	struct mrc_sim *sim = calloc(1, sizeof(*sim));
	struct mrc_sim_params def = {.queue = MRC_SIMQ_DEFAULT};
	int err = -ENOMEM;

	if (!sim)
		return -ENOMEM;
	sim->seq = calloc(1, sizeof(*sim->seq));
	sim->n_ents = 1;
	if (!sim->seq)
		goto free_sim;
	if (!p)
		p = &def;
	/* an unknown backend would take the wheel's paths with an unbuilt wheel: refuse it */
	if (p->queue != MRC_SIMQ_HEAP && p->queue != MRC_SIMQ_WHEEL) {
		err = -EINVAL;
		goto free_sim;
	}
	sim->queue = p->queue;
	if (sim->queue == MRC_SIMQ_WHEEL) {
		struct sim_wheel *w = &sim->w;

		w->tick_bits = p->tick_bits ? p->tick_bits : 11;
		w->nb_bits = p->wheel_bits ? p->wheel_bits : 11;
		if (w->tick_bits > 40 || w->nb_bits < 6 || w->nb_bits > 24) {
			err = -EINVAL;
			goto free_sim;
		}
		w->nb = 1ull << w->nb_bits;
		w->mask = w->nb - 1;
		w->b = calloc(w->nb, sizeof(*w->b));
		w->bits = calloc(w->nb / 64, sizeof(*w->bits));
		if (!w->b || !w->bits)
			goto free_wheel;
	}
	*out = sim;
	return 0;

free_wheel:
	free(sim->w.b);
	free(sim->w.bits);
free_sim:
	free(sim->seq);
	free(sim);
	return err;
}

static void par_free(struct mrc_sim *sim);
static void rk_free(struct mrc_sim *sim);

void mrc_sim_free(struct mrc_sim *sim)
{
	if (!sim)
		return;
	par_free(sim);
	rk_free(sim);
	free(sim->xf);
	free(sim->heap.a);
	if (sim->w.b)
		for (uint64_t i = 0; i < sim->w.nb; i++)
			free(sim->w.b[i].ev);
	free(sim->w.b);
	free(sim->w.bits);
	free(sim->w.run);
	free(sim->w.tmp);
	free(sim->w.near.a);
	free(sim->w.far.a);
	for (int k = 0; k < SPARE_CLASSES; k++)
		while (sim->w.spare[k]) {
			struct sim_ev *a = sim->w.spare[k];

			sim->w.spare[k] = a[0].obj;
			free(a);
		}
	free(sim->seq);
	free(sim);
}

int mrc_sim_handler(struct mrc_sim *sim, mrc_sim_fn fn, void *ctx)
{
	if (sim->n_handlers == 255)
		return -ENOSPC;
	sim->h[sim->n_handlers].fn = fn;
	sim->h[sim->n_handlers].ctx = ctx;
	return (int)sim->n_handlers++;
}

int mrc_sim_entities(struct mrc_sim *sim, uint32_t n)
{
	uint64_t *seq;

	if (n == 0 || n > MAX_ENTS)
		return -EINVAL;
	if (n <= sim->n_ents)
		return 0;
	seq = realloc(sim->seq, n * sizeof(*seq));
	if (!seq)
		return -ENOMEM;
	memset(seq + sim->n_ents, 0, (n - sim->n_ents) * sizeof(*seq));
	sim->seq = seq;
	sim->n_ents = n;
	return 0;
}

static int q_push(struct mrc_sim *q, const struct sim_ev *e)
{
	int err = q->queue == MRC_SIMQ_HEAP ? heap_push(&q->heap, e) : wheel_push(&q->w, e);

	if (!err)
		q->pending++;
	return err;
}

static int par_at(struct mrc_sim *sim, struct mrc_sim *ctx, struct sim_ev *e, uint32_t ent);

/* The worker queue the calling thread runs a window of @sim in, NULL outside one. */
static _Thread_local struct mrc_sim *tl_q;

static inline struct mrc_sim *ctx_of(const struct mrc_sim *sim)
{
	return sim->par && tl_q && tl_q->parent == sim ? tl_q : NULL;
}

int mrc_sim_at_ent(struct mrc_sim *sim, uint64_t at_ps, uint32_t ent, unsigned kind, void *obj,
	uint64_t arg)
{
	struct mrc_sim *ctx = ctx_of(sim), *c = ctx ? ctx : sim;
	uint64_t *seq = &sim->seq[c->cur];
	struct sim_ev e = {
		.t = at_ps < c->now ? c->now : at_ps,
		.ct = c->now,
		.key = (uint64_t)c->cur << SEQ_BITS | *seq,
		.obj = obj,
		.arg = arg,
		.ek = ent << 8 | (kind & 0xFF),
	};
	int err;

	if (ent >= sim->n_ents || *seq >> SEQ_BITS)
		return -EINVAL;
	err = sim->par ? par_at(sim, ctx, &e, ent) : q_push(sim, &e);
	if (err)
		return err;
	(*seq)++;
	return 0;
}

int mrc_sim_at(struct mrc_sim *sim, uint64_t at_ps, unsigned kind, void *obj, uint64_t arg)
{
	return mrc_sim_at_ent(sim, at_ps, mrc_sim_entity(sim), kind, obj, arg);
}

uint32_t mrc_sim_entity(const struct mrc_sim *sim)
{
	const struct mrc_sim *ctx = ctx_of(sim);

	return ctx ? ctx->cur : sim->cur;
}

void mrc_sim_event_key(const struct mrc_sim *sim, uint64_t key[3])
{
	const struct mrc_sim *c = ctx_of(sim);

	if (!c)
		c = sim;
	key[0] = c->now;
	key[1] = c->cur_ct;
	key[2] = c->cur_key;
}

uint64_t mrc_sim_now(const struct mrc_sim *sim)
{
	const struct mrc_sim *ctx = ctx_of(sim);

	return ctx ? ctx->now : sim->now;
}

/* The next event of queue @q (not a parallel simulator's whole), NULL: none. */
static struct sim_ev *q_top(struct mrc_sim *q)
{
	if (q->queue == MRC_SIMQ_HEAP)
		return q->heap.n ? &q->heap.a[0] : NULL;
	if (!wheel_advance(&q->w))
		return NULL;
	return wheel_top(&q->w);
}

static uint64_t q_next(struct mrc_sim *q)
{
	const struct sim_ev *e = q_top(q);

	return e ? e->t : MRC_SIM_NEVER;
}

/* Takes @q's next event (q_top, not NULL) into @e. */
static void q_pop(struct mrc_sim *q, struct sim_ev *top, struct sim_ev *e)
{
	if (q->queue == MRC_SIMQ_HEAP)
		heap_pop(&q->heap, e);
	else
		wheel_pop(&q->w, top, e);
	q->pending--;
}

/* Runs @q's events before @bound (time, ct, key), on the calling thread. */
static uint64_t q_run(struct mrc_sim *q, const struct sim_ev *bound)
{
	uint64_t ran = 0;
	struct sim_ev *top, e;

	while ((top = q_top(q)) && ev_lt(top, bound)) {
		const struct sim_handler *hd = &q->h[top->ek & 0xFF];

		q_pop(q, top, &e);
		q->now = e.t;
		q->cur = e.ek >> 8;
		q->cur_ct = e.ct;
		q->cur_key = e.key;
		hd->fn(hd->ctx, e.obj, e.arg, e.t);
		ran++;
	}
	q->cur = 0;
	q->events += ran;
	return ran;
}

/* ---- parallel run (mrc_sim_partition; docs/architecture.md "Parallel simulation") ---- */

struct sim_mbox {
	struct sim_ev *a;
	size_t n, cap;
};

/* A barrier of n threads: spins a little, then sleeps on a futex (the machine may have
 * fewer free cores than workers, and the workers wait out the caller's serial parts). */
struct sim_barrier {
	atomic_uint count, gen, sleepers;
	unsigned n;
};

/*
 * The ranks: what each worker sends each rank in a window (events, packed at its end), and
 * the exchange's buffers. An event on the wire: struct rk_hdr, then its kind's packed
 * bytes (len).
 */
struct sim_rk {
	struct mrc_sim_comm c;
	uint16_t *ent_r;	 /* [n_ents]: each entity's rank */
	struct sim_mbox *out;	 /* [W][R]: events for other ranks, by worker and rank */
	unsigned W;
	struct mrc_sim_buf send, recv;
	size_t *send_n, *recv_n; /* [R] */
	uint64_t sent, received;
	bool lost;		 /* a collective said a rank is lost: the run stops here */
};

struct rk_hdr {
	uint64_t t, ct, key, arg;
	uint32_t ek, len;
};

struct sim_par {
	unsigned W;
	struct mrc_sim **q;	  /* [W]: worker w's queue; events of entity 0 stay in the parent */
	uint16_t *ent_w;	  /* [n_ents]: each entity's worker */
	struct sim_mbox *mb;	  /* [2][W][W + 1]: by window parity, source worker, destination
				   * (W: the parent); drained the window after */
	uint64_t *out_min;	  /* [W]: earliest event a worker sent out in the last window */
	uint64_t *out_n;	  /* [W * 8]: events each worker sent to others (a line each) */
	unsigned parity;
	uint64_t wend;		  /* the window's end on the grid: the earliest an event may be
				   * sent to another worker for */
	struct sim_ev bound;	  /* a window runs the events before it */
	atomic_bool stop_req;	  /* mrc_sim_stop from a worker */
	bool exit;
	struct sim_barrier a, b;
	pthread_t *th;		  /* [W - 1]: the workers but the caller's */
	unsigned n_th;		  /* threads running */
	atomic_uint go;		  /* 0 until every thread is made, then 1; 2: one was not */
	uint64_t n_win;		  /* windows run, and the time in par_run (MRCGEN_PSIM_STATS) */
	double run_s;
	double *busy_s;		  /* [W * 8]: MRCGEN_PSIM_STATS, each worker's time draining and
				   * running its windows (a line each); NULL: not measured */
	void (*hook)(void *ctx);  /* mrc_sim_set_window_hook */
	void *hook_ctx;
};

#define BAR_SPIN 4000 /* pauses before sleeping: tens of microseconds */

static void bar_wait(struct sim_barrier *b)
{
	unsigned g = atomic_load(&b->gen);

	if (atomic_fetch_add(&b->count, 1) + 1 == b->n) {
		atomic_store(&b->count, 0);
		atomic_fetch_add(&b->gen, 1);
		if (atomic_load(&b->sleepers))
			syscall(SYS_futex, &b->gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
		return;
	}
	for (unsigned i = 0; i < BAR_SPIN; i++) {
		if (atomic_load(&b->gen) != g)
			return;
		__builtin_ia32_pause();
	}
	atomic_fetch_add(&b->sleepers, 1);
	while (atomic_load(&b->gen) == g) /* the futex returns at once if gen moved */
		syscall(SYS_futex, &b->gen, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
	atomic_fetch_sub(&b->sleepers, 1);
}

/* An event for another partition must lie beyond the window (the lookahead), else abort. */
static void par_check_wend(const struct sim_par *par, const struct sim_ev *e)
{
	if (e->t < par->wend) {
		fprintf(stderr, "mrcgen: sim: an event for another partition at %llu ps, inside "
				"the window ending at %llu ps (a delay below the lookahead)\n",
			(unsigned long long)e->t, (unsigned long long)par->wend);
		abort();
	}
}

static void rk_out(struct mrc_sim *sim, unsigned wid, unsigned dr, const struct sim_ev *e);

static struct sim_mbox *mbox(struct sim_par *par, unsigned parity, unsigned src, unsigned dst)
{
	return &par->mb[((size_t)parity * par->W + src) * (par->W + 1) + dst];
}

static int par_at(struct mrc_sim *sim, struct mrc_sim *ctx, struct sim_ev *e, uint32_t ent)
{
	struct sim_par *par = sim->par;
	unsigned dst = ent ? par->ent_w[ent] : par->W;
	struct sim_mbox *m;

	if (sim->rk && ent && sim->rk->ent_r[ent] != sim->rk->c.rank) {
		if (!ctx) /* entity 0 scheduled it on every rank: the owner keeps it */
			return 0;
		par_check_wend(par, e);
		rk_out(sim, ctx->wid, sim->rk->ent_r[ent], e);
		return 0;
	}
	if (!ctx)
		return q_push(dst == par->W ? sim : par->q[dst], e);
	if (dst == ctx->wid)
		return q_push(ctx, e);
	/* another worker's: after the window, which the lookahead guarantees */
	par_check_wend(par, e);
	if (sim->rk && !ent) /* entity 0 runs on every rank */
		for (unsigned r = 0; r < sim->rk->c.ranks; r++)
			if (r != sim->rk->c.rank)
				rk_out(sim, ctx->wid, r, e);
	m = mbox(par, par->parity, ctx->wid, dst);
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		struct sim_ev *a = realloc(m->a, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		m->a = a;
		m->cap = cap;
	}
	m->a[m->n++] = *e;
	par->out_n[ctx->wid * 8]++;
	if (e->t < par->out_min[ctx->wid])
		par->out_min[ctx->wid] = e->t;
	return 0;
}

/* Moves what the mailboxes of @parity hold for workers into their queues (no window
 * running); the parent's were taken after their window. */
static void par_drain(struct sim_par *par, unsigned parity, unsigned dst)
{
	for (unsigned s = 0; s < par->W; s++) {
		struct sim_mbox *m = mbox(par, parity, s, dst);

		for (size_t i = 0; i < m->n; i++)
			if (q_push(dst == par->W ? par->q[0]->parent : par->q[dst], &m->a[i]))
				abort(); /* out of memory in the event queue */
		m->n = 0;
	}
}

/* A worker's window: what was sent to it in the last one, then its events before the
 * bound. */
static void par_window(struct sim_par *par, struct mrc_sim *q)
{
	struct timespec t0, t1;

	if (par->busy_s)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	par_drain(par, par->parity ^ 1, q->wid);
	par->out_min[q->wid] = MRC_SIM_NEVER;
	tl_q = q;
	q_run(q, &par->bound);
	tl_q = NULL;
	if (par->busy_s) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		par->busy_s[q->wid * 8] += (double)(t1.tv_sec - t0.tv_sec) +
					   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
}

static void *par_worker(void *arg)
{
	struct mrc_sim *q = arg;
	struct sim_par *par = q->parent->par;

	/* every thread made (1), or one could not be (2): mrc_sim_partition */
	while (atomic_load(&par->go) == 0)
		syscall(SYS_futex, &par->go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	if (atomic_load(&par->go) != 1)
		return NULL;
	for (;;) {
		bar_wait(&par->a);
		if (par->exit)
			return NULL;
		par_window(par, q);
		bar_wait(&par->b);
	}
}

/* The earliest event pending anywhere (no window running). */
static uint64_t par_next(struct mrc_sim *sim)
{
	struct sim_par *par = sim->par;
	uint64_t t = q_next(sim);

	for (unsigned w = 0; w < par->W; w++) {
		uint64_t tw = q_next(par->q[w]);

		if (tw < t)
			t = tw;
		if (par->out_min[w] < t)
			t = par->out_min[w];
	}
	return t;
}

/* The workers' queues take the handlers registered so far. */
static void par_start(struct mrc_sim *sim)
{
	struct sim_par *par = sim->par;

	for (unsigned w = 0; w < par->W; w++) {
		memcpy(par->q[w]->h, sim->h, sizeof(sim->h));
		par->q[w]->n_handlers = sim->n_handlers;
	}
}

/* Starts the W - 1 worker threads; if one cannot be made, ends those that were. */
static int par_threads(struct sim_par *par)
{
	int err = 0;

	for (; par->n_th + 1 < par->W; par->n_th++) {
		err = -pthread_create(&par->th[par->n_th], NULL, par_worker, par->q[par->n_th + 1]);
		if (err)
			break;
	}
	atomic_store(&par->go, err ? 2 : 1);
	syscall(SYS_futex, &par->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	if (err) {
		for (unsigned k = 0; k < par->n_th; k++)
			pthread_join(par->th[k], NULL);
		par->n_th = 0;
	}
	return err;
}

/* ---- ranks (mrc_sim_ranks; docs/architecture.md "Parallel simulation") ---- */

int mrc_sim_buf_put(struct mrc_sim_buf *b, const void *p, size_t len)
{
	if (!len) /* an empty buffer has no array yet */
		return 0;
	if (b->cap - b->n < len) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *a;

		while (cap - b->n < len)
			cap *= 2;
		a = realloc(b->a, cap);
		if (!a)
			return -ENOMEM;
		b->a = a;
		b->cap = cap;
	}
	memcpy(b->a + b->n, p, len);
	b->n += len;
	return 0;
}

static void mbox_put(struct sim_mbox *m, const struct sim_ev *e)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		struct sim_ev *a = realloc(m->a, cap * sizeof(*a));

		if (!a) {
			fprintf(stderr, "mrcgen: sim: no memory for an event to another rank\n");
			abort();
		}
		m->a = a;
		m->cap = cap;
	}
	m->a[m->n++] = *e;
}

/* Worker @wid's event @e for rank @dr: packed at the window's end (rk_exchange). */
static void rk_out(struct mrc_sim *sim, unsigned wid, unsigned dr, const struct sim_ev *e)
{
	unsigned kind = e->ek & 0xFF;

	if (!sim->xf || !sim->xf[kind].pack) {
		fprintf(stderr, "mrcgen: sim: an event of kind %u for entity %u on rank %u: the "
				"kind cannot cross ranks (no mrc_sim_handler_xfer)\n",
			kind, e->ek >> 8, dr);
		abort();
	}
	mbox_put(&sim->rk->out[(size_t)wid * sim->rk->c.ranks + dr], e);
}

/* Appends event @e to @b: its header, its kind's packing. 0 or the pack's error. */
static int rk_pack(struct mrc_sim *sim, const struct sim_ev *e, struct mrc_sim_buf *b)
{
	struct rk_hdr h = { e->t, e->ct, e->key, e->arg, e->ek, 0 };
	unsigned kind = e->ek & 0xFF;
	size_t at = b->n;
	int err = mrc_sim_buf_put(b, &h, sizeof(h));

	err = err ?: sim->xf[kind].pack(sim->h[kind].ctx, e->obj, e->arg, (e->ek >> 8) == 0, b);
	if (err)
		return err;
	if (b->n - at - sizeof(h) > UINT32_MAX)
		return -E2BIG;
	h.len = (uint32_t)(b->n - at - sizeof(h));
	memcpy(b->a + at, &h, sizeof(h));
	return 0;
}

/* Into its queue, the event of @h with its kind's unpacking of @p. 0 or an error. */
static int rk_unpack(struct mrc_sim *sim, const struct rk_hdr *h, const unsigned char *p)
{
	struct sim_par *par = sim->par;
	struct sim_ev e = { .t = h->t, .ct = h->ct, .key = h->key, .arg = h->arg, .ek = h->ek };
	uint32_t ent = h->ek >> 8;
	unsigned kind = h->ek & 0xFF;
	int err;

	if (ent >= sim->n_ents || (ent && sim->rk->ent_r[ent] != sim->rk->c.rank) ||
		kind >= sim->n_handlers || !sim->xf || !sim->xf[kind].unpack)
		return -EPROTO;
	err = sim->xf[kind].unpack(sim->h[kind].ctx, p, h->len, &e.obj, &e.arg);
	return err ?: q_push(ent ? par->q[par->ent_w[ent]] : sim, &e);
}

/* Every rank's least of @v[0..n-1] (the ranks' min); this rank's alone once a rank is
 * lost (the run stops: par_run); aborts when it cannot be had otherwise. */
static void rk_min(struct sim_rk *rk, uint64_t *v, unsigned n)
{
	int err = rk->c.min(rk->c.ctx, v, n);

	rk->lost |= err == -ECONNABORTED;
	if (err && err != -ECONNABORTED) {
		fprintf(stderr, "mrcgen: sim: rank %u: the ranks' minimum: %s\n", rk->c.rank,
			strerror(err < 0 ? -err : err));
		abort();
	}
}

/* The window's end: every rank sends what its workers made for the others and queues what
 * they sent it, and the clock becomes the ranks' latest. Aborts on an error: an event lost
 * would make another run; but a rank lost (-ECONNABORTED) stops the run (par_run), the
 * events for the other ranks dropped. */
static void rk_exchange(struct mrc_sim *sim)
{
	struct sim_rk *rk = sim->rk;
	const char *what = "pack";
	const unsigned char *p;
	uint64_t now;
	int err = 0;

	rk->send.n = 0;
	for (unsigned r = 0; r < rk->c.ranks; r++) {
		size_t at = rk->send.n;

		for (unsigned w = 0; w < rk->W; w++) {
			struct sim_mbox *m = &rk->out[(size_t)w * rk->c.ranks + r];

			for (size_t i = 0; i < m->n && !err; i++)
				err = rk_pack(sim, &m->a[i], &rk->send);
			rk->sent += m->n;
			m->n = 0;
		}
		rk->send_n[r] = rk->send.n - at;
	}
	if (!err) {
		what = "exchange";
		rk->recv.n = 0;
		err = rk->c.exchange(rk->c.ctx, rk->send.a, rk->send_n, &rk->recv, rk->recv_n);
		rk->lost |= err == -ECONNABORTED;
		err = err == -ECONNABORTED ? 0 : err; /* this rank's own bytes: none */
	}
	p = rk->recv.a;
	what = err ? what : "unpack";
	for (unsigned r = 0; r < rk->c.ranks && !err; r++) {
		const unsigned char *end = p + rk->recv_n[r];

		while (p < end && !err) {
			struct rk_hdr h;

			if ((size_t)(end - p) < sizeof(h)) {
				err = -EPROTO;
				break;
			}
			memcpy(&h, p, sizeof(h));
			p += sizeof(h);
			if ((size_t)(end - p) < h.len) {
				err = -EPROTO;
				break;
			}
			err = rk_unpack(sim, &h, p);
			p += h.len;
			rk->received++;
		}
	}
	if (err) {
		fprintf(stderr, "mrcgen: sim: rank %u: events between ranks: %s: %s\n",
			rk->c.rank, what, strerror(-err));
		abort();
	}
	now = UINT64_MAX - sim->now; /* the clock: the latest event any rank ran */
	rk_min(rk, &now, 1);
	sim->now = UINT64_MAX - now;
}

/* What the ranks agree on after a window's hook: a stop, an interrupt. */
static void rk_agree(struct mrc_sim *sim, bool *stop, bool *intr)
{
	uint64_t v[2] = { *stop ? 0 : 1, *intr ? 0 : 1 };

	rk_min(sim->rk, v, 2);
	*stop = !v[0];
	*intr = !v[1];
}

int mrc_sim_handler_xfer(struct mrc_sim *sim, unsigned kind, mrc_sim_pack_fn pack,
	mrc_sim_unpack_fn unpack)
{
	if (kind >= sim->n_handlers || !pack != !unpack)
		return -EINVAL;
	if (!sim->xf && !(sim->xf = calloc(255, sizeof(*sim->xf))))
		return -ENOMEM;
	sim->xf[kind] = (struct sim_xfer){ pack, unpack };
	return 0;
}

int mrc_sim_ranks(struct mrc_sim *sim, const struct mrc_sim_comm *c, const uint16_t *ent_rank)
{
	struct sim_rk *rk;

	if (!c || c->ranks < 2 || c->rank >= c->ranks || !c->exchange || !c->min || sim->rk ||
		sim->par || sim->parent || !sim->window || sim->pending)
		return -EINVAL;
	for (uint32_t e = 1; e < sim->n_ents; e++)
		if (ent_rank[e] >= c->ranks)
			return -EINVAL;
	rk = calloc(1, sizeof(*rk));
	if (!rk)
		return -ENOMEM;
	sim->rk = rk;
	rk->c = *c;
	rk->ent_r = malloc(sim->n_ents * sizeof(*rk->ent_r));
	rk->send_n = calloc(c->ranks, sizeof(*rk->send_n));
	rk->recv_n = calloc(c->ranks, sizeof(*rk->recv_n));
	if (!rk->ent_r || !rk->send_n || !rk->recv_n)
		return -ENOMEM; /* mrc_sim_free frees what was made */
	memcpy(rk->ent_r, ent_rank, sim->n_ents * sizeof(*rk->ent_r));
	rk->ent_r[0] = (uint16_t)c->rank;
	return 0;
}

void mrc_sim_rank_stats(const struct mrc_sim *sim, uint64_t *sent, uint64_t *received)
{
	*sent = sim->rk ? sim->rk->sent : 0;
	*received = sim->rk ? sim->rk->received : 0;
}

static void rk_free(struct mrc_sim *sim)
{
	struct sim_rk *rk = sim->rk;

	if (!rk)
		return;
	for (size_t i = 0; rk->out && i < (size_t)rk->W * rk->c.ranks; i++)
		free(rk->out[i].a);
	free(rk->out);
	free(rk->ent_r);
	free(rk->send.a);
	free(rk->recv.a);
	free(rk->send_n);
	free(rk->recv_n);
	free(rk);
}

/*
 * mrc_sim_run of a partitioned simulator: windows of the grid of @sim->window (cut short
 * before an event of entity 0, which runs alone between windows), each worker running its
 * own queue, events for other workers passed at the window's end. Runs exactly the events
 * the serial loop runs, in the same order per entity, and stops at the same point.
 */
static uint64_t par_run(struct mrc_sim *sim, uint64_t until_ps)
{
	struct sim_par *par = sim->par;
	uint64_t L = sim->window, before = mrc_sim_events(sim), B = MRC_SIM_NEVER;
	bool stopping = false;

	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	par_start(sim);
	sim->stop = false;
	atomic_store(&par->stop_req, false);
	for (;;) {
		uint64_t limit = until_ps, next, Sw, eg;
		struct sim_ev *g;
		bool cut = false, stop, intr;

		if (sim->rk && sim->rk->lost)
			break; /* the ranks cannot run on */
		if (stopping && B - 1 < limit)
			limit = B - 1;
		next = par_next(sim);
		if (sim->rk)
			rk_min(sim->rk, &next, 1);
		if (next == MRC_SIM_NEVER || next > limit) {
			if (stopping && B - 1 < until_ps && sim->now < B)
				sim->now = B;
			break;
		}
		Sw = next;
		eg = (Sw / L + 1) * L;
		par->bound = (struct sim_ev){.t = limit < eg - 1 ? limit + 1 : eg};
		g = q_top(sim);
		if (g && ev_lt(g, &par->bound)) {
			par->bound = (struct sim_ev){.t = g->t, .ct = g->ct, .key = g->key};
			cut = true;
		}
		par->wend = eg;
		par->n_win++;
		bar_wait(&par->a);
		par_window(par, par->q[0]);
		bar_wait(&par->b);
		par_drain(par, par->parity, par->W);
		par->parity ^= 1;
		for (unsigned w = 0; w < par->W; w++)
			if (par->q[w]->now > sim->now)
				sim->now = par->q[w]->now;
		if (sim->rk)
			rk_exchange(sim);
		if (par->hook)
			par->hook(par->hook_ctx);
		if (cut) {
			struct sim_ev e;
			const struct sim_handler *hd;

			g = q_top(sim);
			q_pop(sim, g, &e);
			sim->now = e.t;
			sim->cur_ct = e.ct;
			sim->cur_key = e.key;
			hd = &sim->h[e.ek & 0xFF];
			hd->fn(hd->ctx, e.obj, e.arg, e.t);
			sim->events++;
		}
		stop = sim->stop || atomic_load(&par->stop_req);
		intr = sim->intr && *sim->intr;
		if (sim->rk)
			rk_agree(sim, &stop, &intr);
		if (!stopping && stop) {
			stopping = true;
			B = (Sw / L + 1) * L;
		}
		if (intr || (sim->rk && sim->rk->lost))
			break;
	}
	for (unsigned w = 0; w < par->W; w++)
		par_drain(par, par->parity ^ 1, w);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	par->run_s += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return mrc_sim_events(sim) - before;
}

int mrc_sim_partition(struct mrc_sim *sim, unsigned workers, const uint16_t *ent_worker)
{
	struct sim_par *par;
	struct mrc_sim_params p = {.queue = sim->queue};

	if (workers < (sim->rk ? 1u : 2u) || sim->par || sim->parent || !sim->window ||
		sim->pending)
		return -EINVAL;
	for (uint32_t e = 1; e < sim->n_ents; e++)
		if (ent_worker[e] >= workers)
			return -EINVAL;
	if (sim->queue == MRC_SIMQ_WHEEL) {
		p.tick_bits = sim->w.tick_bits;
		p.wheel_bits = sim->w.nb_bits;
	}
	par = calloc(1, sizeof(*par));
	if (!par)
		return -ENOMEM;
	par->W = workers;
	par->q = calloc(workers, sizeof(*par->q));
	par->ent_w = malloc(sim->n_ents * sizeof(*par->ent_w));
	par->mb = calloc((size_t)2 * workers * (workers + 1), sizeof(*par->mb));
	par->out_min = malloc(workers * sizeof(*par->out_min));
	par->out_n = calloc((size_t)workers * 8, sizeof(*par->out_n));
	par->th = calloc(workers, sizeof(*par->th));
	if (getenv("MRCGEN_PSIM_STATS"))
		par->busy_s = calloc((size_t)workers * 8, sizeof(*par->busy_s));
	sim->par = par;
	if (sim->rk) {
		sim->rk->W = workers;
		sim->rk->out = calloc((size_t)workers * sim->rk->c.ranks, sizeof(*sim->rk->out));
	}
	if (!par->q || !par->ent_w || !par->mb || !par->out_min || !par->out_n ||
		!par->th || (sim->rk && !sim->rk->out))
		return -ENOMEM; /* mrc_sim_free frees what was made */
	memcpy(par->ent_w, ent_worker, sim->n_ents * sizeof(*par->ent_w));
	par->ent_w[0] = 0;
	for (unsigned w = 0; w < workers; w++) {
		int err = mrc_sim_new(&p, &par->q[w]);

		if (err)
			return err;
		par->q[w]->parent = sim;
		par->q[w]->wid = w;
		par->out_min[w] = MRC_SIM_NEVER;
	}
	par->a.n = par->b.n = workers;
	return par_threads(par);
}

void mrc_sim_set_window_hook(struct mrc_sim *sim, void (*fn)(void *ctx), void *ctx)
{
	if (sim->par) {
		sim->par->hook = fn;
		sim->par->hook_ctx = ctx;
	}
}

unsigned mrc_sim_workers(const struct mrc_sim *sim)
{
	return sim->par ? sim->par->W : 1;
}

unsigned mrc_sim_worker(const struct mrc_sim *sim)
{
	const struct mrc_sim *ctx = ctx_of(sim);

	return ctx ? ctx->wid : 0;
}

static void par_free(struct mrc_sim *sim)
{
	struct sim_par *par = sim->par;

	if (!par)
		return;
	if (getenv("MRCGEN_PSIM_STATS")) { /* docs/performance.md "Parallel simulation" */
		uint64_t x = 0;

		for (unsigned w = 0; w < par->W; w++)
			x += par->out_n[w * 8];
		fprintf(stderr, "psim: workers=%u windows=%llu loop_s=%.3f events_global=%llu "
				"cross=%llu events=", par->W, (unsigned long long)par->n_win,
			par->run_s, (unsigned long long)sim->events, (unsigned long long)x);
		for (unsigned w = 0; w < par->W; w++)
			fprintf(stderr, "%s%llu", w ? "," : "",
				(unsigned long long)par->q[w]->events);
		for (unsigned w = 0; par->busy_s && w < par->W; w++)
			fprintf(stderr, "%s%.3f", w ? "," : " busy_s=", par->busy_s[w * 8]);
		if (sim->rk)
			fprintf(stderr, " rank=%u/%u rank_sent=%llu rank_received=%llu",
				sim->rk->c.rank, sim->rk->c.ranks,
				(unsigned long long)sim->rk->sent,
				(unsigned long long)sim->rk->received);
		fprintf(stderr, "\n");
	}
	if (par->n_th) {
		par->exit = true;
		bar_wait(&par->a);
		for (unsigned k = 0; k < par->n_th; k++)
			pthread_join(par->th[k], NULL);
	}
	for (unsigned w = 0; par->q && w < par->W; w++)
		mrc_sim_free(par->q[w]);
	for (size_t i = 0; par->mb && i < (size_t)2 * par->W * (par->W + 1); i++)
		free(par->mb[i].a);
	free(par->q);
	free(par->ent_w);
	free(par->mb);
	free(par->out_min);
	free(par->out_n);
	free(par->busy_s);
	free(par->th);
	free(par);
}

uint64_t mrc_sim_next(struct mrc_sim *sim)
{
	uint64_t t = sim->par ? par_next(sim) : q_next(sim);

	if (sim->rk)
		rk_min(sim->rk, &t, 1);
	return t;
}

uint64_t mrc_sim_run(struct mrc_sim *sim, uint64_t until_ps)
{
	uint64_t ran = 0, bound = MRC_SIM_NEVER;
	struct sim_heap *h = &sim->heap;
	struct sim_wheel *w = &sim->w;

	if (sim->par)
		return par_run(sim, until_ps);
	if (sim->rk) {
		fprintf(stderr, "mrcgen: sim: mrc_sim_ranks without mrc_sim_partition\n");
		abort();
	}
	sim->stop = false;
	for (;;) {
		struct sim_ev e, *top;
		const struct sim_handler *hd;

		/* a stop with a window runs the rest of the window: the same point whatever
		 * order the partitions of a parallel run reach it in */
		if (sim->stop) {
			if (!sim->window)
				break;
			if (bound == MRC_SIM_NEVER) {
				bound = (sim->now / sim->window + 1) * sim->window;
				if (bound - 1 < until_ps)
					until_ps = bound - 1;
				else
					bound = 0;
			}
		}

		/* the next event's object is most likely a packet or port not in cache: it is
		 * prefetched while this one runs */
		if (sim->queue == MRC_SIMQ_HEAP) {
			if (h->n == 0 || h->a[0].t > until_ps)
				break;
			heap_pop(h, &e);
			if (h->n)
				__builtin_prefetch(h->a[0].obj);
		} else {
			if (wheel_empty_tick(w) && !wheel_advance(w))
				break;
			top = wheel_top(w);
			if (top->t > until_ps)
				break;
			wheel_pop(w, top, &e);
			if (w->run_i < w->run_n)
				__builtin_prefetch(w->run[w->run_i].obj);
			else if (w->near.n)
				__builtin_prefetch(w->near.a[0].obj);
		}
		sim->pending--;
		sim->now = e.t;
		sim->cur = e.ek >> 8;
		sim->cur_ct = e.ct;
		sim->cur_key = e.key;
		hd = &sim->h[e.ek & 0xFF];
		hd->fn(hd->ctx, e.obj, e.arg, e.t);
		if (!(++ran & 0xFFF) && sim->intr && *sim->intr) {
			bound = MRC_SIM_NEVER;
			break;
		}
	}
	sim->cur = 0;
	if (bound != MRC_SIM_NEVER && bound != 0 && sim->now < bound)
		sim->now = bound;
	sim->events += ran;
	return ran;
}

void mrc_sim_stop(struct mrc_sim *sim)
{
	if (ctx_of(sim))
		atomic_store(&sim->par->stop_req, true);
	else
		sim->stop = true;
}

void mrc_sim_set_window(struct mrc_sim *sim, uint64_t window_ps)
{
	sim->window = window_ps;
}

void mrc_sim_set_interrupt(struct mrc_sim *sim, const volatile sig_atomic_t *flag)
{
	sim->intr = flag;
}

size_t mrc_sim_pending(const struct mrc_sim *sim)
{
	size_t n = sim->pending;

	for (unsigned w = 0; sim->par && w < sim->par->W; w++) {
		n += sim->par->q[w]->pending;
		for (unsigned d = 0; d < 2 * (sim->par->W + 1); d++)
			n += sim->par->mb[(size_t)w * 2 * (sim->par->W + 1) + d].n;
	}
	return n;
}

uint64_t mrc_sim_events(const struct mrc_sim *sim)
{
	uint64_t n = sim->events;

	for (unsigned w = 0; sim->par && w < sim->par->W; w++)
		n += sim->par->q[w]->events;
	return n;
}

uint64_t mrc_sim_events_caller(const struct mrc_sim *sim)
{
	return sim->events;
}

size_t mrc_sim_mem_bytes(const struct mrc_sim *sim)
{
	size_t n = sim->heap.cap * sizeof(struct sim_ev) + sim->n_ents * sizeof(*sim->seq);

	for (unsigned w = 0; sim->par && w < sim->par->W; w++) {
		n += mrc_sim_mem_bytes(sim->par->q[w]) + sizeof(*sim->par->ent_w);
		for (unsigned d = 0; d < 2 * (sim->par->W + 1); d++)
			n += sim->par->mb[(size_t)w * 2 * (sim->par->W + 1) + d].cap *
			     sizeof(struct sim_ev);
	}

	if (sim->w.b) {
		n += sim->w.nb * (sizeof(struct sim_bucket) + 1.0 / 8);
		for (uint64_t i = 0; i < sim->w.nb; i++)
			n += sim->w.b[i].cap * sizeof(struct sim_ev);
		n += (sim->w.run_cap + sim->w.near.cap + sim->w.far.cap +
			     sim->w.tmp_cap + sim->w.spare_evs) *
		     sizeof(struct sim_ev);
	}
	return n;
}

const char *mrc_simq_name(enum mrc_simq q)
{
	return q == MRC_SIMQ_HEAP ? "heap" : q == MRC_SIMQ_WHEEL ? "wheel" : "?";
}

int mrc_simq_parse(const char *s, enum mrc_simq *out)
{
	if (strcmp(s, "heap") == 0)
		*out = MRC_SIMQ_HEAP;
	else if (strcmp(s, "wheel") == 0)
		*out = MRC_SIMQ_WHEEL;
	else
		return -EINVAL;
	return 0;
}
