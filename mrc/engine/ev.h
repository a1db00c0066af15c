/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ev: one QP's set of entropy values (paths) — states GOOD/SKIP/ASSUMED_BAD/DENIED,
 * per-plane active and backup sets, seeded selection and probing with backoff, as in
 * docs/wire-format.md "Path (EV) states". Pure: no I/O, time is an input.
 */
#ifndef MRC_EV_H
#define MRC_EV_H

#include <stdbool.h>
#include <stdint.h>

#include "mrc/base/rng.h"

#define MRC_EV_MAX_PLANES 16

/* Path states, docs/wire-format.md "Path (EV) states". */
enum mrc_ev_state {
	MRC_EV_GOOD = 0,
	MRC_EV_SKIP,	    /* passed over: ECN echo (m=1) or NACK TRIMMED */
	MRC_EV_ASSUMED_BAD, /* loss without trim or m=2: unused, probed until answered */
	MRC_EV_DENIED,	    /* by configuration or control only; never recovers by itself */
};

/* Why a state changed (event log, counters). */
enum mrc_ev_cause {
	MRC_EVC_ECN = 1,   /* SACK m=1 (SKIP_ONCE) */
	MRC_EVC_TRIM,	   /* NACK TRIMMED */
	MRC_EVC_SACK_BAD,  /* SACK m=2 (ALWAYS_SKIP) */
	MRC_EVC_LOSS_SACK, /* SACK hole past the reorder threshold */
	MRC_EVC_LOSS_RTO,  /* local ACK timeout */
	MRC_EVC_PROBE_OK,  /* probe answered (SACK pr=1) */
	MRC_EVC_HOLD_DONE, /* SKIP hold expired, or one rotation passed */
	MRC_EVC_DENY,	   /* configuration / control interface */
	MRC_EVC_ALLOW,	   /* control interface lifted a deny */
	MRC_EVC_PATH,	   /* lost with another EV of its QP on the same path (path_fate) */
};

/*
 * EV profile (the `mrc_ctl.h` EV profile: list, ev_min_active, deny) plus mrcgen's
 * selection knobs. Plain struct, filled by the config loader or a test.
 */
struct mrc_ev_params {
	const uint32_t *evs; /* the EV list, n_evs values, distinct */
	unsigned n_evs;
	const uint32_t *deny; /* EVs DENIED from the start (subset of evs), or NULL */
	unsigned n_deny;
	unsigned ev_min_active;	       /* floor: never fewer usable (GOOD/SKIP) EVs than this */
	unsigned backup_per_plane;     /* EVs held back per plane to replace bad ones;
					* UINT32_MAX = default (1/8 of the plane's EVs) */
	uint64_t skip_hold_ps;	       /* SKIP duration; 0 = "one rotation": skipped once */
	uint64_t probe_backoff_ps;     /* first probe this long after ASSUMED_BAD; doubles */
	uint64_t probe_backoff_max_ps; /* backoff ceiling */
	bool probe_damping;	       /* flap damping: an EV failing again within its backoff
					* of a probe's revival keeps that backoff (mrc_ev_on_bad) */
	bool no_log; /* keep no change log: mrc_ev_log() returns 0, log_total still counts (a
		      * simulated job: 1.3 MB of a 128-host all-to-all's 16,256 QPs) */
};

/* Per-EV counters: one path's view, summed over the QPs sharing a profile (below). */
struct mrc_ev_stats {
	uint64_t tx_pkts, tx_bytes; /* data packets sent on this EV (incl. retransmits) */
	uint64_t rtx_pkts;	    /* retransmissions sent on this EV */
	uint64_t sacks, nacks;	    /* SACK/NACK received echoing this EV */
	uint64_t ecn, trims;	    /* m=1 echoes, NACK TRIMMED/TRIMMED_LASTHOP */
	uint64_t losses;	    /* PSNs inferred lost (SACK hole or RTO) that used it */
	uint64_t probes, probes_ok; /* probes sent / answered */
	uint64_t changes;	    /* state changes */
	uint64_t rtt_samples, rtt_sum_ps;
};

/*
 * The immutable part of an EV profile, built once and shared by every EV set (QP) that
 * uses it (an endpoint's QPs all do; in a simulated job, every endpoint's): values,
 * planes, per-plane index lists and backup split, a value -> index hash, the selection
 * knobs. Besides, two things the sets share: @st, the
 * per-EV counters (indexed by profile position; the reports only ever sum them over QPs),
 * and @scratch, the selection candidates of mrc_ev_pick (single-threaded use).
 * Reference counted: mrc_ev_set_init_shared() takes a reference, mrc_ev_set_free() and
 * mrc_ev_profile_put() drop one.
 */
struct mrc_ev_profile {
	unsigned refs;
	unsigned n, planes;
	uint32_t *value;		       /* [n] EV values, profile order */
	uint8_t *plane;			       /* [n] each EV's plane */
	uint8_t *init;			       /* [n] initial state | MRC_EV_ACTIVE */
	unsigned usable0;		       /* EVs not DENIED at the start */
	uint32_t *pidx;			       /* each plane's EV indices, plane after plane */
	unsigned plane_off[MRC_EV_MAX_PLANES]; /* plane p's list: pidx + plane_off[p] */
	unsigned plane_n[MRC_EV_MAX_PLANES];
	unsigned active_target[MRC_EV_MAX_PLANES]; /* plane_n minus the backups */
	unsigned min_active;
	uint64_t skip_hold_ps, backoff0_ps, backoff_max_ps;
	bool damping; /* mrc_ev_params.probe_damping */
	bool no_log;
	uint32_t *hash; /* open addressing over values: index + 1, 0 = empty */
	uint32_t hash_mask;
	uint32_t *scratch;	 /* [n] selection candidates */
	struct mrc_ev_stats *st; /* [n] counters of every set using the profile */
};

/*
 * Builds a profile from @p (arrays copied); plane_of(ctx, ev) gives each EV's plane
 * (< @planes <= MRC_EV_MAX_PLANES). Per plane, the last backup_per_plane EVs (in profile
 * order) form the backup set, the rest the active set. *out holds one reference. Returns
 * 0, -EINVAL (no EVs, plane out of range, duplicate EV, deny not in the list, planes out
 * of range) or -ENOMEM.
 */
int mrc_ev_profile_new(const struct mrc_ev_params *p, unsigned planes,
	unsigned (*plane_of)(void *ctx, uint32_t ev), void *ctx, struct mrc_ev_profile **out);
/* Drops one reference to @prof, freeing it (and its counters) with the last; NULL is a
 * no-op. */
void mrc_ev_profile_put(struct mrc_ev_profile *prof);

/* Index of EV value @ev in @prof, or -1 (O(1): hash; echoed EVs come from the wire). */
int mrc_ev_profile_find(const struct mrc_ev_profile *prof, uint32_t ev);

#define MRC_EV_ACTIVE 0x80 /* state byte: in the plane's active set (else backup) */
#define MRC_EV_STATE 0x03  /* state byte: enum mrc_ev_state */

/* One EV state change, as kept in the event log. */
struct mrc_ev_change {
	uint64_t t_ps;
	uint32_t ev;
	uint8_t from, to, cause;
};

/* Called on every state change (optional). */
typedef void (*mrc_ev_notify_fn)(
	void *ctx, uint32_t ev, int from, int to, int cause, uint64_t now_ps);

struct mrc_ev_slow;

#define MRC_EV_RTT_FEW 8 /* EVs whose RTT a set keeps in place before it needs rtt[n] */

/*
 * One QP's EV states over a shared profile: per EV a state byte (enum mrc_ev_state |
 * MRC_EV_ACTIVE) and the latest RTT sample — the samples of its first MRC_EV_RTT_FEW EVs
 * to have one in place, an array over every EV after that (a QP of an all-to-all sends
 * on a few EVs); what few EVs need (SKIP hold end, probe time, backoff and id, RTTs of
 * 2^32 ps or more) in a side table made on first need; the change log grows with use up
 * to 256 entries.
 */
struct mrc_ev_set {
	struct mrc_ev_profile *prof;
	unsigned n, planes;
	uint8_t *sa;	  /* [n] state | MRC_EV_ACTIVE */
	uint32_t *rtt;	  /* [n] latest RTT sample in ps, 0: none, UINT32_MAX: in slow;
			   * NULL while the few below hold every sample */
	uint16_t few_idx[MRC_EV_RTT_FEW]; /* EV index of each in-place sample */
	uint32_t few_rtt[MRC_EV_RTT_FEW]; /* as rtt[] */
	unsigned n_few;
	bool sa_lent; /* sa is the caller's (mrc_ev_set_init_at) */
	struct mrc_ev_slow *slow; /* NULL until an EV needs it */
	unsigned usable;	  /* EVs in GOOD or SKIP */
	unsigned n_bad;		  /* EVs in ASSUMED_BAD */
	uint64_t floor_hits;	  /* ASSUMED_BAD refused because of ev_min_active */
	struct mrc_ev_change *log; /* ring of the last log_len changes, from log_head */
	unsigned log_cap, log_len, log_head; /* log_cap grows with use up to 256 */
	uint64_t log_total;		     /* changes ever made */
	mrc_ev_notify_fn notify;
	void *notify_ctx;
};

/*
 * Builds @s with a profile of its own made from @p (see mrc_ev_profile_new(); same
 * errors).
 */
int mrc_ev_set_init(struct mrc_ev_set *s, const struct mrc_ev_params *p, unsigned planes,
	unsigned (*plane_of)(void *ctx, uint32_t ev), void *ctx);
/* Builds @s over @prof, every EV in its initial state; takes a reference. 0 or -ENOMEM. */
int mrc_ev_set_init_shared(struct mrc_ev_set *s, struct mrc_ev_profile *prof);
/*
 * As mrc_ev_set_init_shared, with the per-EV state in @sa: prof->n bytes of the caller's
 * that outlive the set (mrc_ev_set_free leaves them), such as a QP's own block. Returns 0.
 */
int mrc_ev_set_init_at(struct mrc_ev_set *s, struct mrc_ev_profile *prof, uint8_t *sa);
/* Frees @s's state and drops its reference to the profile. */
void mrc_ev_set_free(struct mrc_ev_set *s);

/* Index of EV value @ev in @s, or -1 (mrc_ev_profile_find). */
int mrc_ev_find(const struct mrc_ev_set *s, uint32_t ev);

/* EV @i (< s->n) of @s: value, plane, state (enum mrc_ev_state), active-set member. */
static inline uint32_t mrc_ev_value(const struct mrc_ev_set *s, unsigned i)
{
	return s->prof->value[i];
}

static inline unsigned mrc_ev_plane(const struct mrc_ev_set *s, unsigned i)
{
	return s->prof->plane[i];
}

static inline int mrc_ev_state(const struct mrc_ev_set *s, unsigned i)
{
	return s->sa[i] & MRC_EV_STATE;
}

static inline bool mrc_ev_active(const struct mrc_ev_set *s, unsigned i)
{
	return s->sa[i] & MRC_EV_ACTIVE;
}

/* Counters of EV @i, shared by every set of the profile (an endpoint's QPs, or a job's). */
static inline struct mrc_ev_stats *mrc_ev_st(const struct mrc_ev_set *s, unsigned i)
{
	return &s->prof->st[i];
}

/*
 * The latest RTT sample (ps) of a packet sent on EV @i, 0: none; and its setter (0, or
 * -ENOMEM: a sample of 2^32 ps or more that finds no room is kept as 2^32 - 2; the
 * sample of a ninth EV that finds no room for rtt[n] is not kept).
 */
uint64_t mrc_ev_rtt_big(const struct mrc_ev_set *s, unsigned i);
static inline uint64_t mrc_ev_rtt_last(const struct mrc_ev_set *s, unsigned i)
{
	uint32_t r = 0;

	if (s->rtt)
		r = s->rtt[i];
	for (unsigned k = 0; !s->rtt && k < s->n_few; k++)
		if (s->few_idx[k] == i) {
			r = s->few_rtt[k];
			break;
		}
	return r != UINT32_MAX ? r : mrc_ev_rtt_big(s, i);
}
int mrc_ev_set_rtt(struct mrc_ev_set *s, unsigned i, uint64_t rtt_ps);

/* Id of the last probe sent on EV @i (0 before the first). */
uint16_t mrc_ev_probe_id(const struct mrc_ev_set *s, unsigned i);

/*
 * Picks an EV for a packet leaving on @plane at @now_ps: uniform (@rng) among the plane's
 * active EVs that are GOOD (a SKIP whose hold ended becomes GOOD here; with hold 0 a SKIP EV is
 * passed over once and becomes GOOD, "one rotation"). @exclude (an index, or -1) is avoided
 * unless it is the only choice and @allow_exclude. Returns an index, or -1 when the plane
 * has no usable EV.
 */
int mrc_ev_pick(struct mrc_ev_set *s, unsigned plane, struct mrc_rng *rng, int exclude,
	bool allow_exclude, uint64_t now_ps);

/*
 * Congestion hints (docs/wire-format.md: GOOD -> SKIP on SACK m=1 or NACK TRIMMED). Only a GOOD EV
 * changes; returns true if it did.
 */
bool mrc_ev_on_skip(struct mrc_ev_set *s, int idx, int cause, uint64_t now_ps);

/*
 * Loss without trim, or m=2 (docs/wire-format.md: -> ASSUMED_BAD): stops using the EV at once,
 * swaps in a backup EV of the same plane, schedules the first probe: probe_backoff_ps later, or,
 * with probe_damping, when a probe revived the EV less than its backoff ago (it flaps), as
 * long as that grown backoff. Refused (counted in floor_hits, returns false) when it would
 * leave fewer than ev_min_active usable EVs.
 */
bool mrc_ev_on_bad(struct mrc_ev_set *s, int idx, int cause, uint64_t now_ps);

/*
 * A probe answer (SACK pr=1) over EV @idx echoing tx_ts @ts_echo: when the EV is
 * ASSUMED_BAD and its latest probe (mrc_ev_probe_sent) had that tx_ts, ASSUMED_BAD ->
 * GOOD; it rejoins the active set if its plane's active set is short, else the backup
 * set. Returns true on a change; false, changing nothing, for an answer that matches no
 * probe in flight (forged, or stale: docs/wire-format.md "Endpoint operations").
 */
bool mrc_ev_on_probe_ok(struct mrc_ev_set *s, int idx, uint16_t ts_echo, uint64_t now_ps);

/* Control interface: DENIED on, or back to GOOD (cause ALLOW). Returns true on a change. */
bool mrc_ev_set_denied(struct mrc_ev_set *s, int idx, bool deny, uint64_t now_ps);

/*
 * An ASSUMED_BAD EV on @plane whose probe is due at @now_ps, or -1. The first probe is
 * due probe_backoff_ps after the EV went bad; mrc_ev_probe_sent() doubles the backoff
 * (capped at probe_backoff_max_ps) and schedules the next probe that far ahead.
 */
int mrc_ev_probe_due(const struct mrc_ev_set *s, unsigned plane, uint64_t now_ps);
void mrc_ev_probe_sent(struct mrc_ev_set *s, int idx, uint16_t tx_ts, uint64_t now_ps);

/* Earliest probe due time over planes whose bit is set in @plane_mask; UINT64_MAX if none. */
uint64_t mrc_ev_next_probe(const struct mrc_ev_set *s, uint32_t plane_mask);

/* Active EVs of @plane in state GOOD or SKIP (what selection may use). */
unsigned mrc_ev_active_usable(const struct mrc_ev_set *s, unsigned plane);

/* Copies up to @cap of the most recent state changes, oldest first; returns the count. */
unsigned mrc_ev_log(const struct mrc_ev_set *s, struct mrc_ev_change *out, unsigned cap);

/* "GOOD", "SKIP", "ASSUMED_BAD", "DENIED"; cause names ("ecn", "trim", "loss-sack", ...). */
const char *mrc_ev_state_name(int state);
const char *mrc_ev_cause_name(int cause);

#endif
