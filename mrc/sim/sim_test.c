/* SPDX-License-Identifier: BSD-2-Clause */
/* sim_test: unit tests of mrc/sim/sim.c (`mrcgen-test sim`). */
#include "mrc/sim/sim.c"
#include "mrc/base/st.h"

/* ---- selftest ---------------------------------------------------------------------- */

struct st_log {
	uint64_t t[64];
	uint64_t tag[64];
	unsigned n;
	struct mrc_sim *sim;
	int kind;
};

static void st_rec(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct st_log *l = ctx;

	(void)obj;
	if (l->n < 64) {
		l->t[l->n] = now;
		l->tag[l->n] = arg;
		l->n++;
	}
	/* tags >= 100 schedule a follow-up at the same time: runs after those queued before */
	if (arg >= 100 && arg < 103)
		mrc_sim_at(l->sim, now, (unsigned)l->kind, NULL, arg + 100);
}

/* Checks the order events run in: times never go back, and equal times run in the
 * order of their args (the order they were scheduled in, by the test's construction). */
struct st_order {
	uint64_t last_t, last_arg, n, bad;
};

static void st_order_fn(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct st_order *o = ctx;

	(void)obj;
	if (o->n && (now < o->last_t || (now == o->last_t && arg <= o->last_arg)))
		o->bad++;
	o->last_t = now;
	o->last_arg = arg;
	o->n++;
}

/* Entities 1 and 2 each schedule two events at time 1000 for entity 3 (tags 10 + 2e + k),
 * entity 2 first; entity 3's events record their order and the entity they run on. */
struct st_ent {
	struct mrc_sim *sim;
	int kind;
	uint64_t tag[8];
	uint32_t on[8];
	unsigned n;
};

static void st_ent_fn(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct st_ent *x = ctx;

	(void)obj, (void)now;
	if (arg < 10) { /* entity arg's turn: two events for entity 3 */
		mrc_sim_at_ent(x->sim, 1000, 3, (unsigned)x->kind, NULL, 10 + 2 * arg);
		mrc_sim_at_ent(x->sim, 1000, 3, (unsigned)x->kind, NULL, 11 + 2 * arg);
		return;
	}
	if (x->n < 8) {
		x->tag[x->n] = arg;
		x->on[x->n++] = mrc_sim_entity(x->sim);
	}
	if (arg == 99) /* a stop with a window: the rest of the window runs */
		mrc_sim_stop(x->sim);
}

/* A ring of entities 1..4: each event logs (time, arg) on its entity and passes the token
 * on to the next entity at least a window (100) ahead, and to itself 3 later; entity 0's
 * event at 1234 starts two more chains. The per-entity logs must match, serial and
 * partitioned. */
#define PS_N 4
#define PS_LOG 256

struct st_ps {
	struct mrc_sim *sim;
	int kind;
	uint64_t log[PS_N + 1][PS_LOG][2];
	unsigned n[PS_N + 1];
	uint64_t stop_at;
};

static void st_ps_fn(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct st_ps *x = ctx;
	uint32_t e = mrc_sim_entity(x->sim);

	(void)obj;
	if (x->n[e] < PS_LOG) {
		x->log[e][x->n[e]][0] = now;
		x->log[e][x->n[e]++][1] = arg;
	}
	if (e == 0) {
		mrc_sim_at_ent(x->sim, now, 2, (unsigned)x->kind, NULL, 1000);
		mrc_sim_at_ent(x->sim, now, 3, (unsigned)x->kind, NULL, 2000);
		return;
	}
	if (now >= x->stop_at)
		mrc_sim_stop(x->sim);
	if (arg % 1000 >= 60)
		return;
	mrc_sim_at_ent(x->sim, now + 100 + e * 7 % 13, e % PS_N + 1, (unsigned)x->kind, NULL,
		arg + 1);
	if (arg % 3 == 0)
		mrc_sim_at(x->sim, now + 3, (unsigned)x->kind, NULL, arg + 500);
}

/* Runs the ring on @workers (1: serial) until @until, with a stop once past @stop_at. */
static void st_ps_run(struct st_ps *x, unsigned workers, enum mrc_simq q, uint64_t stop_at,
	uint64_t *clock)
{
	struct mrc_sim_params sp = {.queue = q};
	static const uint16_t ew[PS_N + 1] = {0, 0, 0, 1, 1};

	memset(x, 0, sizeof(*x));
	x->stop_at = stop_at;
	if (mrc_sim_new(&sp, &x->sim))
		return;
	mrc_sim_entities(x->sim, PS_N + 1);
	mrc_sim_set_window(x->sim, 100);
	x->kind = mrc_sim_handler(x->sim, st_ps_fn, x);
	if (workers > 1 && mrc_sim_partition(x->sim, workers, ew))
		return;
	mrc_sim_at_ent(x->sim, 0, 1, (unsigned)x->kind, NULL, 0);
	mrc_sim_at_ent(x->sim, 5, 4, (unsigned)x->kind, NULL, 3000);
	mrc_sim_at_ent(x->sim, 1234, 0, (unsigned)x->kind, NULL, 7);
	mrc_sim_run(x->sim, MRC_SIM_NEVER);
	*clock = mrc_sim_now(x->sim);
	while (mrc_sim_next(x->sim) != MRC_SIM_NEVER) /* the rest: a stop every window now */
		mrc_sim_run(x->sim, MRC_SIM_NEVER);
	mrc_sim_free(x->sim);
	x->sim = NULL;
}

/* A comm and a kind's crossing that a refused mrc_sim_ranks never calls. */
static int st_no_exchange(void *ctx, const void *send, const size_t *send_n,
	struct mrc_sim_buf *recv, size_t *recv_n)
{
	(void)ctx, (void)send, (void)send_n, (void)recv, (void)recv_n;
	return -ENOSYS;
}

static int st_no_min(void *ctx, uint64_t *v, unsigned n)
{
	(void)ctx, (void)v, (void)n;
	return -ENOSYS;
}

static int st_no_pack(void *ctx, void *obj, uint64_t arg, bool keep, struct mrc_sim_buf *b)
{
	(void)ctx, (void)obj, (void)arg, (void)keep, (void)b;
	return -ENOSYS;
}

static int st_no_unpack(void *ctx, const void *p, size_t len, void **obj, uint64_t *arg)
{
	(void)ctx, (void)p, (void)len, (void)obj, (void)arg;
	return -ENOSYS;
}

MRC_SELFTEST(sim)
{
	static const enum mrc_simq qs[] = {MRC_SIMQ_HEAP, MRC_SIMQ_WHEEL};

	for (unsigned qi = 0; qi < 2; qi++) {
		struct mrc_sim_params sp = {.queue = qs[qi], .tick_bits = 10, .wheel_bits = 6};
		struct mrc_sim *sim;
		struct st_log l = {0};

		mrc_st_case(st, "%s: events run in time order, equal times in insertion order",
			mrc_simq_name(qs[qi]));
		ST_EQ(st, mrc_sim_new(&sp, &sim), 0);
		l.sim = sim;
		l.kind = mrc_sim_handler(sim, st_rec, &l);
		/* times chosen to hit the near heap, the wheel (64 buckets of 1024 ps) and far */
		mrc_sim_at(sim, 5000, 0, NULL, 1);
		mrc_sim_at(sim, 300, 0, NULL, 2);
		mrc_sim_at(sim, 5000, 0, NULL, 3);
		mrc_sim_at(sim, 1000000, 0, NULL, 4);
		mrc_sim_at(sim, 300, 0, NULL, 5);
		mrc_sim_at(sim, 0, 0, NULL, 6);
		mrc_sim_at(sim, 70000, 0, NULL, 7);
		mrc_sim_at(sim, 5000, 0, NULL, 8);
		ST_EQ(st, mrc_sim_pending(sim), 8);
		ST_EQ(st, mrc_sim_next(sim), 0);
		ST_EQ(st, mrc_sim_run(sim, 69999), 6);
		ST_EQ(st, mrc_sim_now(sim), 5000);
		ST_EQ(st, mrc_sim_run(sim, MRC_SIM_NEVER), 2);
		{
			static const uint64_t want_tag[] = {6, 2, 5, 1, 3, 8, 7, 4};
			static const uint64_t want_t[] = {
				0, 300, 300, 5000, 5000, 5000, 70000, 1000000};

			ST_EQ(st, l.n, 8);
			for (unsigned i = 0; i < 8; i++) {
				ST_EQ(st, l.tag[i], want_tag[i]);
				ST_EQ(st, l.t[i], want_t[i]);
			}
		}
		ST_EQ(st, mrc_sim_next(sim), MRC_SIM_NEVER);

		mrc_st_case(st,
			"%s: an event scheduled at now runs after those already queued "
			"at now; past times clamp to now",
			mrc_simq_name(qs[qi]));
		l.n = 0;
		mrc_sim_at(sim, 2000000, 0, NULL, 100);
		mrc_sim_at(sim, 2000000, 0, NULL, 101);
		mrc_sim_at(sim, 2000000, 0, NULL, 102);
		mrc_sim_run(sim, 2000000);
		mrc_sim_at(sim, 5, 0, NULL, 9); /* in the past: runs at 2000000 */
		mrc_sim_run(sim, MRC_SIM_NEVER);
		{
			static const uint64_t want[] = {100, 101, 102, 200, 201, 202, 9};

			ST_EQ(st, l.n, 7);
			for (unsigned i = 0; i < 7; i++) {
				ST_EQ(st, l.tag[i], want[i]);
				ST_EQ(st, l.t[i], 2000000);
			}
		}
		ST_EQ(st, mrc_sim_events(sim), 15);
		mrc_sim_free(sim);
	}

	mrc_st_case(st, "an unknown queue value is refused, not run as an unbuilt wheel");
	{
		/* stack garbage once reached here: the sim took the wheel paths with nb = 0 and
		 * wheel_advance looped forever on the far heap */
		struct mrc_sim_params bad = {.queue = (enum mrc_simq)0x375b5ca2};
		struct mrc_sim_params big = {.queue = MRC_SIMQ_WHEEL, .wheel_bits = 25};
		struct mrc_sim *sim = NULL;
		int e = mrc_sim_new(&bad, &sim);

		ST_EQ_I(st, e, -EINVAL);
		if (!e)
			mrc_sim_free(sim);
		sim = NULL;
		e = mrc_sim_new(&big, &sim);
		ST_EQ_I(st, e, -EINVAL);
		if (!e)
			mrc_sim_free(sim);
	}

	mrc_st_case(st, "radix_run: a tick's events in key order, times 2047 down to 0 and "
			"repeated: (time, key) order; keys out of order at one time: sorted by key");
	{
		struct sim_wheel w = {.tick_bits = 11};
		static struct sim_ev a[4096];
		bool ok = true;

		/* event i: time 2047 - i % 2048 in tick 5, key i; sorted, position 2k holds
		 * time k with key 2047 - k, 2k + 1 time k with key 4095 - k */
		for (uint32_t i = 0; i < 4096; i++)
			a[i] = (struct sim_ev){.t = 5 * 2048 + 2047 - i % 2048, .key = i};
		ST_TRUE(st, radix_run(&w, a, 4096));
		for (uint32_t k = 0; k < 2048; k++)
			ok &= a[2 * k].t == 5 * 2048 + k && a[2 * k].key == 2047 - k &&
			      a[2 * k + 1].t == 5 * 2048 + k && a[2 * k + 1].key == 4095 - k;
		ST_TRUE(st, ok);
		a[0] = (struct sim_ev){.t = 7, .key = 9};
		a[1] = (struct sim_ev){.t = 7, .key = 8};
		a[2] = (struct sim_ev){.t = 6, .key = 10};
		ST_TRUE(st, radix_run(&w, a, 3));
		ST_TRUE(st, a[0].key == 10 && a[1].key == 8 && a[2].key == 9);
		free(w.tmp);
	}

	mrc_st_case(st, "radix_run: 1000 events of one time (a run past SORT_RUN_MAX: qsort), "
			"keys descending and ct alternating: (ct, key) order");
	{
		struct sim_wheel w = {.tick_bits = 11};
		static struct sim_ev a[1001];
		bool ok = true;

		/* event i: key 999 - i, ct i % 2; sorted: the 500 of ct 0 (keys 1, 3, .., 999),
		 * then ct 1 (keys 0, 2, .., 998); one event of an earlier time first */
		for (uint32_t i = 0; i < 1000; i++)
			a[i] = (struct sim_ev){.t = 3 * 2048 + 77, .ct = i % 2, .key = 999 - i};
		a[1000] = (struct sim_ev){.t = 3 * 2048 + 76, .key = 5000};
		ST_TRUE(st, radix_run(&w, a, 1001));
		ok &= a[0].key == 5000;
		for (uint32_t k = 0; k < 500; k++)
			ok &= a[1 + k].ct == 0 && a[1 + k].key == 2 * k + 1 &&
			      a[501 + k].ct == 1 && a[501 + k].key == 2 * k;
		ST_TRUE(st, ok);
		free(w.tmp);
	}

	mrc_st_case(st,
		"wheel: a tick of 300 events scheduled latest first (too far out of order "
		"for insertion: radix-sorted) and a tick scheduled in order run in time order");
	{
		struct mrc_sim *sim;
		struct mrc_sim_params pw = {.queue = MRC_SIMQ_WHEEL}; /* 2048-ps ticks */
		struct st_order o = {0};
		int k;

		ST_EQ(st, mrc_sim_new(&pw, &sim), 0);
		k = mrc_sim_handler(sim, st_order_fn, &o);
		/* tick 500 (1024000..1026047 ps): times 1025999 down to 1025700, args rising
		 * with time; tick 600: 300 events, 3 per time, in order */
		for (uint64_t i = 0; i < 300; i++)
			mrc_sim_at(sim, 1025999 - i, (unsigned)k, NULL, 1000 - i);
		for (uint64_t i = 0; i < 300; i++)
			mrc_sim_at(sim, 600 * 2048 + i / 3, (unsigned)k, NULL, 2000 + i);
		ST_EQ(st, mrc_sim_run(sim, MRC_SIM_NEVER), 600);
		ST_EQ(st, o.n, 600);
		ST_EQ(st, o.bad, 0);
		ST_EQ(st, o.last_t, 600 * 2048 + 99);
		mrc_sim_free(sim);
	}

	mrc_st_case(st, "heap and wheel pop 20000 random events in the same order");
	{
		struct mrc_sim *a, *b;
		struct mrc_sim_params pa = {.queue = MRC_SIMQ_HEAP};
		struct mrc_sim_params pb = {
			.queue = MRC_SIMQ_WHEEL, .tick_bits = 8, .wheel_bits = 8};
		struct mrc_rng r;
		uint64_t last_t = 0, mism = 0, order_bad = 0;

		ST_EQ(st, mrc_sim_new(&pa, &a), 0);
		ST_EQ(st, mrc_sim_new(&pb, &b), 0);
		mrc_rng_seed(&r, 42);
		for (uint64_t i = 0; i < 20000; i++) {
			/* coarse times so many ties; spans near, wheel and far */
			uint64_t t = mrc_rng_below(&r, 4000) * 50;

			mrc_sim_at(a, t, 0, NULL, i);
			mrc_sim_at(b, t, 0, NULL, i);
		}
		/* pop by peeking at the raw heap / the wheel's current tick */
		while (mrc_sim_pending(a)) {
			uint64_t ta = mrc_sim_next(a), tb = mrc_sim_next(b);
			struct sim_ev ea, eb;

			if (ta != tb)
				mism++;
			heap_pop(&a->heap, &ea);
			a->pending--;
			wheel_pop(&b->w, wheel_top(&b->w), &eb);
			b->pending--;
			if (ea.arg != eb.arg || ea.t != eb.t)
				mism++;
			if (ea.t < last_t)
				order_bad++;
			last_t = ea.t;
		}
		ST_EQ(st, mism, 0);
		ST_EQ(st, order_bad, 0);
		ST_EQ(st, mrc_sim_pending(b), 0);
		ST_EQ(st, mrc_sim_next(b), MRC_SIM_NEVER);
		mrc_sim_free(a);
		mrc_sim_free(b);
	}

	for (unsigned qi = 0; qi < 2; qi++) {
		struct mrc_sim_params sp = {.queue = qs[qi]};
		struct st_ent x = {0};

		mrc_st_case(st, "%s: equal times run by (time scheduled, source entity, its "
				"sequence), not in the order entities scheduled them; a stop with a window of 500 "
				"at 1200 runs what is before 1500 and leaves the clock there",
			mrc_simq_name(qs[qi]));
		ST_EQ(st, mrc_sim_new(&sp, &x.sim), 0);
		if (!x.sim)
			continue;
		ST_EQ(st, mrc_sim_entities(x.sim, 4), 0);
		ST_EQ(st, mrc_sim_entities(x.sim, 1u << 25), -EINVAL);
		x.kind = mrc_sim_handler(x.sim, st_ent_fn, &x);
		/* entity 2 runs first, entity 1 after it, both at time 10: both schedule at 1000;
		 * entity 3's 50 was scheduled at 0, before them all: it runs first at 1000 */
		mrc_sim_at_ent(x.sim, 10, 2, (unsigned)x.kind, NULL, 2);
		mrc_sim_at_ent(x.sim, 10, 1, (unsigned)x.kind, NULL, 1);
		mrc_sim_at_ent(x.sim, 1000, 3, (unsigned)x.kind, NULL, 50);
		ST_EQ(st, mrc_sim_at_ent(x.sim, 10, 4, (unsigned)x.kind, NULL, 2), -EINVAL);
		mrc_sim_at_ent(x.sim, 1200, 3, (unsigned)x.kind, NULL, 99);
		mrc_sim_at_ent(x.sim, 1499, 3, (unsigned)x.kind, NULL, 52);
		mrc_sim_at_ent(x.sim, 1500, 3, (unsigned)x.kind, NULL, 51);
		mrc_sim_set_window(x.sim, 500);
		mrc_sim_run(x.sim, MRC_SIM_NEVER);
		/* 50, then entity 1's pair (key 1 << 40 | 0, 1), then entity 2's, then 99, 52 */
		ST_EQ(st, x.n, 7);
		ST_TRUE(st, x.tag[0] == 50 && x.tag[1] == 12 && x.tag[2] == 13 &&
				    x.tag[3] == 14 && x.tag[4] == 15);
		ST_TRUE(st, x.tag[5] == 99 && x.tag[6] == 52);
		ST_TRUE(st, x.on[0] == 3 && x.on[6] == 3);
		ST_EQ(st, mrc_sim_now(x.sim), 1500);
		ST_EQ(st, mrc_sim_entity(x.sim), 0);
		ST_EQ(st, mrc_sim_next(x.sim), 1500);
		mrc_sim_free(x.sim);
	}

	for (unsigned qi = 0; qi < 2; qi++) {
		static struct st_ps a, b;
		uint64_t ca = 0, cb = 0;
		bool same = true;
		unsigned total = 0;

		mrc_st_case(st, "%s: a ring of 4 entities on 2 workers (windows of 100), an "
				"entity-0 event amid them, a stop at 2000: every entity's events the "
				"serial run's, the stop at the same window end (2100)",
			mrc_simq_name(qs[qi]));
		st_ps_run(&a, 1, qs[qi], 2000, &ca);
		st_ps_run(&b, 2, qs[qi], 2000, &cb);
		for (unsigned e = 0; e <= PS_N; e++) {
			same &= a.n[e] == b.n[e] && !memcmp(a.log[e], b.log[e], sizeof(a.log[e]));
			total += a.n[e];
		}
		ST_TRUE(st, same);
		ST_EQ(st, a.n[0], 1);
		ST_TRUE(st, total > 100);
		ST_EQ(st, ca, 2100);
		ST_EQ(st, cb, 2100);
	}

	mrc_st_case(st, "partition: refused with 1 worker, without a window, with events "
			"pending, an entity on a worker past the count");
	{
		struct mrc_sim *sim;
		static const uint16_t ew[3] = {0, 0, 2};

		ST_EQ(st, mrc_sim_new(NULL, &sim), 0);
		if (sim) {
			mrc_sim_entities(sim, 3);
			ST_EQ(st, mrc_sim_partition(sim, 2, ew), -EINVAL); /* no window */
			mrc_sim_set_window(sim, 10);
			ST_EQ(st, mrc_sim_partition(sim, 1, ew), -EINVAL);
			ST_EQ(st, mrc_sim_partition(sim, 2, ew), -EINVAL); /* entity 2 on worker 2 */
			mrc_sim_at_ent(sim, 5, 1, 0, NULL, 0);
			ST_EQ(st, mrc_sim_partition(sim, 3, ew), -EINVAL); /* pending */
			ST_EQ(st, mrc_sim_workers(sim), 1);
			mrc_sim_free(sim);
		}
	}

	mrc_st_case(st, "ranks: refused with 1 rank, a rank out of range, an entity on no rank, "
			"without a window, with events pending, after a partition; then a "
			"partition of 1 worker is taken");
	{
		struct mrc_sim *sim;
		static const uint16_t er[3] = {0, 0, 1}, bad[3] = {0, 2, 1}, ew[3] = {0};
		struct mrc_sim_comm c = {.ranks = 2, .rank = 1, .exchange = st_no_exchange,
			.min = st_no_min};
		unsigned kd;

		ST_EQ(st, mrc_sim_new(NULL, &sim), 0);
		if (sim) {
			mrc_sim_entities(sim, 3);
			kd = (unsigned)mrc_sim_handler(sim, st_order_fn, NULL);
			/* no such kind; a pack without an unpack */
			ST_EQ(st, mrc_sim_handler_xfer(sim, kd + 1, st_no_pack, st_no_unpack),
				-EINVAL);
			ST_EQ(st, mrc_sim_handler_xfer(sim, kd, st_no_pack, NULL), -EINVAL);
			ST_EQ(st, mrc_sim_handler_xfer(sim, kd, st_no_pack, st_no_unpack), 0);
			ST_EQ(st, mrc_sim_ranks(sim, &c, er), -EINVAL); /* no window */
			mrc_sim_set_window(sim, 10);
			c.ranks = 1;
			c.rank = 0;
			ST_EQ(st, mrc_sim_ranks(sim, &c, er), -EINVAL);
			c.ranks = 2;
			c.rank = 2;
			ST_EQ(st, mrc_sim_ranks(sim, &c, er), -EINVAL);
			c.rank = 1;
			ST_EQ(st, mrc_sim_ranks(sim, &c, bad), -EINVAL); /* entity 1 on rank 2 */
			mrc_sim_at_ent(sim, 5, 1, 0, NULL, 0);
			ST_EQ(st, mrc_sim_ranks(sim, &c, er), -EINVAL); /* pending */
			mrc_sim_free(sim);
		}
		ST_EQ(st, mrc_sim_new(NULL, &sim), 0);
		if (sim) {
			mrc_sim_entities(sim, 3);
			mrc_sim_set_window(sim, 10);
			ST_EQ(st, mrc_sim_ranks(sim, &c, er), 0);
			ST_EQ(st, mrc_sim_ranks(sim, &c, er), -EINVAL); /* already */
			ST_EQ(st, mrc_sim_partition(sim, 1, ew), 0);
			ST_EQ(st, mrc_sim_workers(sim), 1);
			mrc_sim_free(sim);
		}
		ST_EQ(st, mrc_sim_new(NULL, &sim), 0);
		if (sim) {
			mrc_sim_entities(sim, 3);
			mrc_sim_set_window(sim, 10);
			ST_EQ(st, mrc_sim_partition(sim, 2, ew), 0);
			ST_EQ(st, mrc_sim_ranks(sim, &c, er), -EINVAL); /* partitioned first */
			mrc_sim_free(sim);
		}
	}
}
