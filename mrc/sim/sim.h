/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sim: the discrete-event core of the simulated driver — a virtual clock in picoseconds
 * and an event queue (binary heap, or a timing wheel with a near heap), ties broken by
 * deterministic keys (time scheduled, source entity, that entity's sequence) so a run is
 * reproducible bit
 * for bit, whatever the number of partitions it runs in (docs/architecture.md "The
 * simulated fabric", "Parallel simulation").
 */
#ifndef MRC_SIM_H
#define MRC_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRC_SIM_NEVER UINT64_MAX /* "no time": no event, no timer */

/*
 * Event queue backends. Both pop events in (time, key) order (mrc_sim_at_ent); they differ
 * only in speed. `mrcgen bench` measures them; MRC_SIMQ_DEFAULT names the faster one.
 */
enum mrc_simq {
	MRC_SIMQ_HEAP = 0, /* binary heap of 48-byte entries: O(log n) insert and pop */
	MRC_SIMQ_WHEEL,	   /* timing wheel of 2^wheel_bits buckets of 2^tick_bits ps each;
			      the current tick's bucket sorted (by insertion, or a stable
			      radix sort by time, then key, when far out of order), a heap for
			      events scheduled into it and one for far events */
};
/*
 * `make bench`: the wheel pops 2-4x more events per CPU second than the heap in the hold
 * model and the fabric-only scenarios; on the real quickstart job the two are within
 * +-7% (run to run noise: the engine's per-packet work dominates). mrc/sim/run.c honours
 * MRCGEN_SIMQ=heap|wheel to compare them; reports are identical either way.
 */
#define MRC_SIMQ_DEFAULT MRC_SIMQ_WHEEL

struct mrc_sim_params {
	enum mrc_simq queue;
	unsigned tick_bits;  /* wheel bucket width = 2^tick_bits ps; 0 = default (11) */
	unsigned wheel_bits; /* wheel size = 2^wheel_bits buckets; 0 = default (11) */
};

/*
 * An event handler: @obj and @arg are what was scheduled, @now_ps the event's time
 * (already the clock's value). Handlers may schedule events at any time >= now_ps.
 */
typedef void (*mrc_sim_fn)(void *ctx, void *obj, uint64_t arg, uint64_t now_ps);

struct mrc_sim;

/*
 * Creates a simulator at time 0 with an empty queue. @p NULL = defaults. Returns 0,
 * -EINVAL (a queue that is not an enum mrc_simq value; wheel tick_bits > 40 or
 * wheel_bits outside 6..24) or -ENOMEM.
 */
int mrc_sim_new(const struct mrc_sim_params *p, struct mrc_sim **out);
void mrc_sim_free(struct mrc_sim *sim);

/*
 * Registers a handler; returns its kind (0..254) for mrc_sim_at, or -ENOSPC when 255
 * handlers exist. Kinds are small integers so an event stays 48 bytes.
 */
int mrc_sim_handler(struct mrc_sim *sim, mrc_sim_fn fn, void *ctx);

/*
 * Entities: what events run on (a host, a switch), numbered 0..@n-1; 0 is the caller
 * outside the loop (and what a simulator starts with). Sets their number (it only grows).
 * 0, -EINVAL (@n 0 or above 2^24) or -ENOMEM.
 */
int mrc_sim_entities(struct mrc_sim *sim, uint32_t n);

/*
 * Schedules handler @kind to run at @at_ps with (@obj, @arg) on entity @ent. Times before
 * the clock are clamped to the clock (an event never runs in the past). Events at equal
 * times run in the order of their keys: (the clock when they were scheduled, earliest
 * first; the entity of the event that scheduled them, 0 outside the loop; how many events
 * that entity had scheduled before), so the order
 * depends on what each entity did, never on how entities interleave: the rule that lets
 * a parallel run reproduce the serial one (docs/architecture.md "Parallel simulation").
 * Returns 0, -EINVAL (@ent not below mrc_sim_entities; 2^40 events from one entity) or
 * -ENOMEM (the queue could not grow).
 */
int mrc_sim_at_ent(struct mrc_sim *sim, uint64_t at_ps, uint32_t ent, unsigned kind, void *obj,
	uint64_t arg);

/* mrc_sim_at_ent on the entity of the event running (0 outside the loop). */
int mrc_sim_at(struct mrc_sim *sim, uint64_t at_ps, unsigned kind, void *obj, uint64_t arg);

/* The entity of the event running, 0 outside the loop. */
uint32_t mrc_sim_entity(const struct mrc_sim *sim);

/*
 * The key of the event running (or last run) in the caller's queue: its time, the clock
 * when it was scheduled and its source key, in @key[0..2]. Events run in the order of
 * these triples, compared in turn: what a parallel run merges its workers' outputs by.
 */
void mrc_sim_event_key(const struct mrc_sim *sim, uint64_t key[3]);

/* The clock: the time of the event running or last run, in ps. */
uint64_t mrc_sim_now(const struct mrc_sim *sim);

/* Time of the next pending event, MRC_SIM_NEVER when the queue is empty. */
uint64_t mrc_sim_next(struct mrc_sim *sim);

/*
 * Runs events in order while their time is <= @until_ps and no handler called
 * mrc_sim_stop. The clock ends at the last event run (it does not jump to @until_ps).
 * Returns the number of events run.
 */
uint64_t mrc_sim_run(struct mrc_sim *sim, uint64_t until_ps);

/*
 * Makes mrc_sim_run return after the current event or, with a window set, once every
 * event before the next multiple of the window has run, the clock then at that multiple
 * (unless @until_ps comes first): the iteration boundaries of a parallel run, which
 * synchronises its partitions once per window (docs/architecture.md "Parallel
 * simulation").
 */
void mrc_sim_stop(struct mrc_sim *sim);

/* Sets the window of mrc_sim_stop in ps; 0 (the default): stop at once. */
void mrc_sim_set_window(struct mrc_sim *sim, uint64_t window_ps);

/*
 * Parallel simulation (docs/architecture.md "Parallel simulation"): splits the queue over
 * @workers threads (>= 2), entity e (1..n-1, mrc_sim_entities set first) on worker
 * @ent_worker[e]; entity 0's events stay with the caller and run alone between windows.
 * mrc_sim_run then runs windows of the grid of mrc_sim_set_window's width (the lookahead:
 * no event may be scheduled for another worker's entity less than a window ahead, else
 * abort), each worker its own events, events for other workers passed at the window's
 * end; windows are cut before each event of entity 0. It runs the same events as the
 * serial loop in the same order per entity, so handlers that touch only their entity's
 * state (and entity 0's touch anything) give the same results. From a worker, mrc_sim_at*,
 * _now, _entity and _stop act on the worker's queue and clock. Call before any event is
 * scheduled, with a window set; the threads start now, and wait (asleep) for the runs.
 * 0, -EINVAL (fewer than 2 workers, an entity on a worker >= @workers, no window, events
 * pending, already partitioned; 1 worker is allowed after mrc_sim_ranks), -ENOMEM, or
 * pthread_create's error negated (-EAGAIN).
 * After an error the simulator is only good for mrc_sim_free.
 */
int mrc_sim_partition(struct mrc_sim *sim, unsigned workers, const uint16_t *ent_worker);

/*
 * Ranks: processes that together run one simulation (docs/architecture.md "Parallel
 * simulation"), each holding the whole model and running the events of the entities it
 * owns; the communication between them is the caller's (mrc/sim/ranks.c: MPI).
 */

/* A growable byte buffer: what a kind's pack writes, what the ranks exchange. */
struct mrc_sim_buf {
	unsigned char *a;
	size_t n, cap;
};

/* Appends @len bytes of @p to @b: 0 or -ENOMEM. */
int mrc_sim_buf_put(struct mrc_sim_buf *b, const void *p, size_t len);

/*
 * How an event of one kind crosses ranks: @pack appends what its (@obj, @arg) stand for to
 * @b and, unless @keep (an event for entity 0, which runs here too), frees what @obj held
 * here: the event is gone from this rank; @unpack makes the receiving rank's *@obj from
 * those @len bytes (*@arg holds the arg sent, @unpack may change it). Both get the
 * handler's ctx and run between windows. 0 or a negative errno (the run aborts: an event
 * lost).
 */
typedef int (*mrc_sim_pack_fn)(void *ctx, void *obj, uint64_t arg, bool keep,
	struct mrc_sim_buf *b);
typedef int (*mrc_sim_unpack_fn)(void *ctx, const void *p, size_t len, void **obj,
	uint64_t *arg);

/* Sets @kind's pack and unpack (both, or neither: its events never cross ranks, and one
 * that does aborts the run naming the kind). 0 or -EINVAL (no such kind). */
int mrc_sim_handler_xfer(struct mrc_sim *sim, unsigned kind, mrc_sim_pack_fn pack,
	mrc_sim_unpack_fn unpack);

/* The ranks' collectives, called on every rank in the same order. */
struct mrc_sim_comm {
	unsigned ranks, rank;
	/* @send holds @send_n[r] bytes for each rank r in turn; fills @recv with what each
	 * sent this one, in rank order, @recv_n[r] bytes from rank r. 0 or a negative errno. */
	int (*exchange)(void *ctx, const void *send, const size_t *send_n,
		struct mrc_sim_buf *recv, size_t *recv_n);
	/* @v[0..n-1] becomes the least of each element over the ranks. 0 or an errno. */
	int (*min)(void *ctx, uint64_t *v, unsigned n);
	/* Both return -ECONNABORTED once a rank is lost (died, or does not answer: then, and
	 * every call after, at once): @recv holds this rank's own bytes alone (@recv_n 0 for
	 * every other), @v this rank's values; @lost (may be NULL: never) says which ranks
	 * and why, NULL while none is. The caller stops the run and reports what it holds. */
	const char *(*lost)(void *ctx);
	void *ctx;
};

/*
 * Makes @sim rank @c->rank of @c->ranks (>= 2), entity e (1..n-1) owned by rank
 * @ent_rank[e]; entity 0 runs on every rank alike. Call with a window set and no event
 * pending, before mrc_sim_partition, which then takes 1 worker too (a window loop on the
 * caller) and must follow. An event scheduled for another rank's entity is dropped when
 * entity 0 schedules it (every rank's entity 0 did: its owner keeps it), else packed
 * (mrc_sim_handler_xfer) and sent at the window's end, as an event of an entity for
 * entity 0 is to every rank. Each window's start, a stop (mrc_sim_stop, the hook's too),
 * an interrupt, mrc_sim_next and the clock after a run are agreed over the ranks
 * (@c->min), so every rank runs the same windows. A collective's -ECONNABORTED (a rank
 * lost) ends mrc_sim_run after that window, and at once every call after, events for other
 * ranks dropped (the hook sees it in its own collectives). Handlers and hooks must give
 * entity 0 the same events on every rank. 0, -EINVAL (fewer than 2 ranks, rank out of range, an
 * entity on no rank, no window, events pending, already partitioned), -ENOMEM.
 */
int mrc_sim_ranks(struct mrc_sim *sim, const struct mrc_sim_comm *c, const uint16_t *ent_rank);

/* Events this rank sent to others and received from them (0 without ranks). */
void mrc_sim_rank_stats(const struct mrc_sim *sim, uint64_t *sent, uint64_t *received);

/* The number of workers (1 unless partitioned), and the calling thread's (0 outside a
 * window: the caller's, entity 0's). */
unsigned mrc_sim_workers(const struct mrc_sim *sim);
unsigned mrc_sim_worker(const struct mrc_sim *sim);

/*
 * Partitioned: @fn(@ctx) runs after every window, with no worker running (as entity 0):
 * where a run checks what no worker may read during a window (every rank done), and may
 * call mrc_sim_stop. It is the same stop as from inside the window.
 */
void mrc_sim_set_window_hook(struct mrc_sim *sim, void (*fn)(void *ctx), void *ctx);

/*
 * Makes mrc_sim_run return within 4096 events once *@flag is non-zero (a signal handler's
 * request; NULL: never). The flag is only read: the caller sees it and stops.
 */
void mrc_sim_set_interrupt(struct mrc_sim *sim, const volatile sig_atomic_t *flag);

/* Pending events, and events run since creation (over ranks: this rank's). */
size_t mrc_sim_pending(const struct mrc_sim *sim);
uint64_t mrc_sim_events(const struct mrc_sim *sim);

/* Of those, the caller's: partitioned, entity 0's (which every rank runs alike); serial,
 * all of them. */
uint64_t mrc_sim_events_caller(const struct mrc_sim *sim);

/* Bytes held by the queue's arrays (for the memory figures of `mrcgen bench`). */
size_t mrc_sim_mem_bytes(const struct mrc_sim *sim);

/* Name of a backend ("heap", "wheel"); parses one back: 0 or -EINVAL. */
const char *mrc_simq_name(enum mrc_simq q);
int mrc_simq_parse(const char *s, enum mrc_simq *out);

#endif
