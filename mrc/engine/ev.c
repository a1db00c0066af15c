/* SPDX-License-Identifier: BSD-2-Clause */
/* ev: EV (path) states, selection, backup sets and probing —
 * docs/wire-format.md "Path (EV) states". */
#include "mrc/engine/ev.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EV_LOG_CAP 256 /* changes kept per set */
#define EV_LOG_MIN 8   /* the log's first allocation; doubles up to EV_LOG_CAP */

/* What few EVs need, one entry per EV that ever needed it (found by a scan: there are
 * few); per plane, the earliest probe of its ASSUMED_BAD EVs (UINT64_MAX: none), kept as
 * they change since it is asked per packet. */
struct mrc_ev_rare {
	uint32_t idx;		   /* the EV */
	uint16_t probe_id;	   /* id of the last probe sent */
	uint16_t probe_ts;	   /* its tx_ts, which its answer echoes */
	bool probe_out;		   /* a probe was sent since the EV last went ASSUMED_BAD */
	uint64_t skip_until_ps;	   /* SKIP: GOOD again at this time (hold > 0) */
	uint64_t probe_at_ps;	   /* ASSUMED_BAD: next probe due */
	uint64_t probe_backoff_ps; /* current backoff */
	uint64_t good_at_ps;	   /* when a probe answer last made it GOOD (revived) */
	bool revived;		   /* ... and it has not gone ASSUMED_BAD since */
	uint64_t rtt_ps;	   /* the latest RTT when it does not fit the u32 */
};

struct mrc_ev_slow {
	uint64_t probe_min[MRC_EV_MAX_PLANES];
	unsigned n, cap;
	struct mrc_ev_rare *r;
};

/* Slot of @v in a table of @mask + 1 slots: the product's top bits, which depend on every
 * bit of @v (EVs often differ only in their high plane and spine fields). */
static uint32_t ev_hash(uint32_t v, uint32_t mask)
{
	return (uint32_t)((uint64_t)(v * 0x9E3779B1u) * (mask + 1ull) >> 32);
}

void mrc_ev_profile_put(struct mrc_ev_profile *f)
{
	if (!f || --f->refs)
		return;
	free(f->value);
	free(f->plane);
	free(f->init);
	free(f->pidx);
	free(f->hash);
	free(f->scratch);
	free(f->st);
	free(f);
}

int mrc_ev_profile_find(const struct mrc_ev_profile *f, uint32_t ev)
{
	for (uint32_t h = ev_hash(ev, f->hash_mask);; h = (h + 1) & f->hash_mask) {
		uint32_t k = f->hash[h];

		if (!k)
			return -1;
		if (f->value[k - 1] == ev)
			return (int)(k - 1);
	}
}

int mrc_ev_profile_new(const struct mrc_ev_params *p, unsigned planes,
	unsigned (*plane_of)(void *ctx, uint32_t ev), void *ctx, struct mrc_ev_profile **out)
{
	unsigned fill[MRC_EV_MAX_PLANES] = {0}, off = 0;
	struct mrc_ev_profile *f;
	int rc = -EINVAL;

	if (!p->n_evs || !p->evs || planes == 0 || planes > MRC_EV_MAX_PLANES ||
		p->n_evs > UINT32_MAX / 4)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->refs = 1;
	f->n = p->n_evs;
	f->planes = planes;
	f->min_active = p->ev_min_active;
	f->skip_hold_ps = p->skip_hold_ps;
	f->no_log = p->no_log;
	f->damping = p->probe_damping;
	f->backoff0_ps = p->probe_backoff_ps ? p->probe_backoff_ps : 1;
	f->backoff_max_ps =
		p->probe_backoff_max_ps > f->backoff0_ps ? p->probe_backoff_max_ps : f->backoff0_ps;
	for (f->hash_mask = 1; f->hash_mask < 2 * f->n; f->hash_mask *= 2)
		;
	f->hash = calloc(f->hash_mask, sizeof(*f->hash));
	f->hash_mask--;
	f->value = calloc(f->n, sizeof(*f->value));
	f->plane = calloc(f->n, 1);
	f->init = calloc(f->n, 1);
	f->pidx = calloc(f->n, sizeof(*f->pidx));
	f->scratch = calloc(f->n, sizeof(*f->scratch));
	f->st = calloc(f->n, sizeof(*f->st));
	if (!f->hash || !f->value || !f->plane || !f->init || !f->pidx || !f->scratch || !f->st) {
		rc = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < f->n; i++) {
		unsigned pl = plane_of(ctx, p->evs[i]);
		uint32_t h;

		if (pl >= planes)
			goto fail;
		f->value[i] = p->evs[i];
		f->plane[i] = (uint8_t)pl;
		f->init[i] = MRC_EV_GOOD;
		f->plane_n[pl]++;
		for (h = ev_hash(p->evs[i], f->hash_mask); f->hash[h]; h = (h + 1) & f->hash_mask)
			if (f->value[f->hash[h] - 1] == p->evs[i])
				goto fail; /* duplicate */
		f->hash[h] = i + 1;
	}
	for (unsigned pl = 0; pl < planes; pl++) {
		f->plane_off[pl] = off;
		off += f->plane_n[pl];
	}
	for (unsigned i = 0; i < f->n; i++) {
		unsigned pl = f->plane[i];

		f->pidx[f->plane_off[pl] + fill[pl]++] = i;
	}
	for (unsigned pl = 0; pl < planes; pl++) {
		unsigned nb = p->backup_per_plane == UINT32_MAX ? f->plane_n[pl] / 8
								: p->backup_per_plane;

		if (nb >= f->plane_n[pl])
			nb = f->plane_n[pl] ? f->plane_n[pl] - 1 : 0;
		f->active_target[pl] = f->plane_n[pl] - nb;
		for (unsigned k = 0; k < f->active_target[pl]; k++)
			f->init[f->pidx[f->plane_off[pl] + k]] |= MRC_EV_ACTIVE;
	}
	f->usable0 = f->n;
	for (unsigned i = 0; i < p->n_deny; i++) {
		int idx = mrc_ev_profile_find(f, p->deny[i]);

		if (idx < 0)
			goto fail;
		if ((f->init[idx] & MRC_EV_STATE) != MRC_EV_DENIED) {
			f->init[idx] = (uint8_t)((f->init[idx] & MRC_EV_ACTIVE) | MRC_EV_DENIED);
			f->usable0--;
		}
	}
	*out = f;
	return 0;
fail:
	mrc_ev_profile_put(f);
	return rc;
}

/* EV @idx's entry in the side table, or NULL. */
static struct mrc_ev_rare *rare_find(const struct mrc_ev_set *s, uint32_t idx)
{
	for (unsigned k = 0; s->slow && k < s->slow->n; k++)
		if (s->slow->r[k].idx == idx)
			return &s->slow->r[k];
	return NULL;
}

/* EV @idx's entry, made (zeroed) with the table on first need; NULL when out of memory. */
static struct mrc_ev_rare *rare_get(struct mrc_ev_set *s, uint32_t idx)
{
	struct mrc_ev_rare *e = rare_find(s, idx);
	struct mrc_ev_slow *sl = s->slow;

	if (e)
		return e;
	if (!sl) {
		sl = calloc(1, sizeof(*sl));
		if (!sl)
			return NULL;
		for (unsigned pl = 0; pl < MRC_EV_MAX_PLANES; pl++)
			sl->probe_min[pl] = UINT64_MAX;
		s->slow = sl;
	}
	if (sl->n == sl->cap) {
		unsigned cap = sl->cap ? 2 * sl->cap : 2;
		struct mrc_ev_rare *r = realloc(sl->r, cap * sizeof(*r));

		if (!r)
			return NULL;
		sl->r = r;
		sl->cap = cap;
	}
	e = &sl->r[sl->n++];
	*e = (struct mrc_ev_rare){.idx = idx};
	return e;
}

/* Recomputes probe_min[] after an EV entered or left ASSUMED_BAD or its probe time moved:
 * rare next to the timer queries that read it. */
static void probe_min_update(struct mrc_ev_set *s)
{
	struct mrc_ev_slow *sl = s->slow; /* exists: an EV went ASSUMED_BAD */
	const uint8_t *pl_of = s->prof->plane;

	for (unsigned pl = 0; pl < s->planes; pl++)
		sl->probe_min[pl] = UINT64_MAX;
	for (unsigned k = 0; s->n_bad && k < sl->n; k++) { /* every ASSUMED_BAD EV has one */
		const struct mrc_ev_rare *e = &sl->r[k];

		if ((s->sa[e->idx] & MRC_EV_STATE) == MRC_EV_ASSUMED_BAD &&
			e->probe_at_ps < sl->probe_min[pl_of[e->idx]])
			sl->probe_min[pl_of[e->idx]] = e->probe_at_ps;
	}
}

/* Appends to the change log, a ring grown by doubling up to EV_LOG_CAP entries; a full
 * ring (or one that cannot grow) drops its oldest. */
static void log_add(struct mrc_ev_set *s, const struct mrc_ev_change *c)
{
	if (s->prof->no_log) {
		s->log_total++;
		return;
	}
	if (s->log_len == s->log_cap && s->log_cap < EV_LOG_CAP) {
		unsigned ncap = s->log_cap ? s->log_cap * 2 : EV_LOG_MIN;
		struct mrc_ev_change *n = malloc(ncap * sizeof(*n));

		if (n) {
			for (unsigned i = 0; i < s->log_len; i++)
				n[i] = s->log[(s->log_head + i) % s->log_cap];
			free(s->log);
			s->log = n;
			s->log_cap = ncap;
			s->log_head = 0;
		}
	}
	s->log_total++;
	if (!s->log_cap)
		return; /* out of memory before the first entry */
	if (s->log_len < s->log_cap) {
		s->log[(s->log_head + s->log_len++) % s->log_cap] = *c;
		return;
	}
	s->log[s->log_head] = *c;
	s->log_head = (s->log_head + 1) % s->log_cap;
}

static void ev_change(struct mrc_ev_set *s, int idx, int to, int cause, uint64_t now_ps)
{
	int from = s->sa[idx] & MRC_EV_STATE;
	bool was_usable = from == MRC_EV_GOOD || from == MRC_EV_SKIP;
	bool is_usable = to == MRC_EV_GOOD || to == MRC_EV_SKIP;
	uint32_t value = s->prof->value[idx];

	s->sa[idx] = (uint8_t)((s->sa[idx] & MRC_EV_ACTIVE) | to);
	s->prof->st[idx].changes++;
	if (from == MRC_EV_ASSUMED_BAD)
		s->n_bad--;
	if (to == MRC_EV_ASSUMED_BAD)
		s->n_bad++;
	if (from == MRC_EV_ASSUMED_BAD || to == MRC_EV_ASSUMED_BAD)
		probe_min_update(s);
	if (was_usable && !is_usable)
		s->usable--;
	else if (!was_usable && is_usable)
		s->usable++;
	log_add(s, &(struct mrc_ev_change){
		.t_ps = now_ps,
		.ev = value,
		.from = (uint8_t)from,
		.to = (uint8_t)to,
		.cause = (uint8_t)cause,
	});
	if (s->notify)
		s->notify(s->notify_ctx, value, from, to, cause, now_ps);
}

int mrc_ev_set_init_at(struct mrc_ev_set *s, struct mrc_ev_profile *prof, uint8_t *sa)
{
	memset(s, 0, sizeof(*s));
	s->sa = sa;
	s->sa_lent = true;
	memcpy(s->sa, prof->init, prof->n);
	s->prof = prof;
	prof->refs++;
	s->n = prof->n;
	s->planes = prof->planes;
	s->usable = prof->usable0;
	return 0;
}

int mrc_ev_set_init_shared(struct mrc_ev_set *s, struct mrc_ev_profile *prof)
{
	uint8_t *sa = malloc(prof->n);

	if (!sa) {
		memset(s, 0, sizeof(*s));
		return -ENOMEM;
	}
	mrc_ev_set_init_at(s, prof, sa);
	s->sa_lent = false;
	return 0;
}

int mrc_ev_set_init(struct mrc_ev_set *s, const struct mrc_ev_params *p, unsigned planes,
	unsigned (*plane_of)(void *ctx, uint32_t ev), void *ctx)
{
	struct mrc_ev_profile *f;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = mrc_ev_profile_new(p, planes, plane_of, ctx, &f);
	if (rc)
		return rc;
	rc = mrc_ev_set_init_shared(s, f);
	mrc_ev_profile_put(f); /* the set holds the only reference now */
	return rc;
}

void mrc_ev_set_free(struct mrc_ev_set *s)
{
	if (!s->sa_lent)
		free(s->sa);
	free(s->rtt);
	if (s->slow)
		free(s->slow->r);
	free(s->slow);
	free(s->log);
	mrc_ev_profile_put(s->prof);
	memset(s, 0, sizeof(*s));
}

int mrc_ev_find(const struct mrc_ev_set *s, uint32_t ev)
{
	return mrc_ev_profile_find(s->prof, ev);
}

uint64_t mrc_ev_rtt_big(const struct mrc_ev_set *s, unsigned i)
{
	return rare_find(s, i)->rtt_ps;
}

/* Where EV @i's u32 RTT lives: in place, or in rtt[] once more EVs have one than fit
 * there (made then, the in-place ones moved over). NULL: no room. */
static uint32_t *rtt_slot(struct mrc_ev_set *s, unsigned i)
{
	if (s->rtt)
		return &s->rtt[i];
	for (unsigned k = 0; k < s->n_few; k++)
		if (s->few_idx[k] == i)
			return &s->few_rtt[k];
	if (s->n_few < MRC_EV_RTT_FEW && s->n <= UINT16_MAX + 1u) { /* few_idx is 16 bits */
		s->few_idx[s->n_few] = (uint16_t)i;
		s->few_rtt[s->n_few] = 0;
		return &s->few_rtt[s->n_few++];
	}
	s->rtt = calloc(s->n, sizeof(*s->rtt));
	if (!s->rtt)
		return NULL;
	for (unsigned k = 0; k < s->n_few; k++)
		s->rtt[s->few_idx[k]] = s->few_rtt[k];
	return &s->rtt[i];
}

int mrc_ev_set_rtt(struct mrc_ev_set *s, unsigned i, uint64_t rtt_ps)
{
	uint32_t *r = rtt_slot(s, i);
	struct mrc_ev_rare *e;

	if (!r)
		return -ENOMEM;
	if (rtt_ps < UINT32_MAX) {
		*r = (uint32_t)rtt_ps;
		return 0;
	}
	e = rare_get(s, i);
	if (!e) {
		*r = UINT32_MAX - 1; /* the most the u32 holds */
		return -ENOMEM;
	}
	e->rtt_ps = rtt_ps;
	*r = UINT32_MAX;
	return 0;
}

uint16_t mrc_ev_probe_id(const struct mrc_ev_set *s, unsigned i)
{
	const struct mrc_ev_rare *e = rare_find(s, i);

	return e ? e->probe_id : 0;
}

/* GOOD now? Ends an expired SKIP hold on the way. @rotation: this is a selection pass. */
static bool ev_pickable(struct mrc_ev_set *s, int idx, bool rotation, uint64_t now_ps)
{
	int st = s->sa[idx] & MRC_EV_STATE;

	if (st == MRC_EV_SKIP) {
		if (s->prof->skip_hold_ps == 0) {
			if (rotation)
				ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_HOLD_DONE, now_ps);
			return false; /* passed over this once */
		}
		if (now_ps >= rare_find(s, (uint32_t)idx)->skip_until_ps) /* on_skip made it */
			ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_HOLD_DONE, now_ps);
	}
	return (s->sa[idx] & MRC_EV_STATE) == MRC_EV_GOOD;
}

int mrc_ev_pick(struct mrc_ev_set *s, unsigned plane, struct mrc_rng *rng, int exclude,
	bool allow_exclude, uint64_t now_ps)
{
	const struct mrc_ev_profile *f = s->prof;
	unsigned n = plane < s->planes ? f->plane_n[plane] : 0, m = 0;
	const uint32_t *pidx = f->pidx + (plane < s->planes ? f->plane_off[plane] : 0);
	uint32_t *scratch = f->scratch;
	bool saw_exclude = false;

	/* Collect the candidates first so the draw is uniform over them. */
	for (unsigned k = 0; k < n; k++) {
		int idx = (int)pidx[k];
		uint8_t sa = s->sa[idx];

		if (!(sa & MRC_EV_ACTIVE))
			continue;
		if ((sa & MRC_EV_STATE) != MRC_EV_GOOD && !ev_pickable(s, idx, true, now_ps))
			continue;
		if (idx == exclude) {
			saw_exclude = true;
			continue;
		}
		scratch[m++] = (uint32_t)idx;
	}
	if (m)
		return (int)scratch[mrc_rng_below(rng, m)];
	return saw_exclude && allow_exclude ? exclude : -1;
}

bool mrc_ev_on_skip(struct mrc_ev_set *s, int idx, int cause, uint64_t now_ps)
{
	if (idx < 0 || (s->sa[idx] & MRC_EV_STATE) != MRC_EV_GOOD)
		return false;
	if (s->prof->skip_hold_ps) {
		struct mrc_ev_rare *e = rare_get(s, (uint32_t)idx);

		if (!e)
			return false; /* out of memory: the hint is ignored */
		e->skip_until_ps = now_ps + s->prof->skip_hold_ps;
	}
	ev_change(s, idx, MRC_EV_SKIP, cause, now_ps);
	return true;
}

static bool usable_state(uint8_t sa)
{
	return (sa & MRC_EV_STATE) == MRC_EV_GOOD || (sa & MRC_EV_STATE) == MRC_EV_SKIP;
}

/* Takes @idx out of its plane's active set and promotes a usable backup of that plane. */
static void ev_replace(struct mrc_ev_set *s, int idx)
{
	const struct mrc_ev_profile *f = s->prof;
	unsigned pl = f->plane[idx];
	const uint32_t *pidx = f->pidx + f->plane_off[pl];

	if (!(s->sa[idx] & MRC_EV_ACTIVE))
		return;
	s->sa[idx] &= (uint8_t)~MRC_EV_ACTIVE;
	for (unsigned k = 0; k < f->plane_n[pl]; k++) {
		uint8_t *b = &s->sa[pidx[k]];

		if (!(*b & MRC_EV_ACTIVE) && usable_state(*b)) {
			*b |= MRC_EV_ACTIVE;
			break;
		}
	}
}

/*
 * Flap damping (docs/wire-format.md "Path (EV) states"): an EV that a probe revived fails
 * again before it stayed GOOD for as long as its backoff had grown, so its next hold
 * starts from that backoff (doubled by the probe that revived it) instead of the first.
 * A single answered probe does not prove a flapping path stable: as BGP route flap
 * damping (RFC 2439) suppresses a route that keeps coming back, the hold grows with each
 * flap and is forgotten once the EV stays GOOD that long.
 */
static bool ev_flapping(const struct mrc_ev_set *s, const struct mrc_ev_rare *r,
	uint64_t now_ps)
{
	return s->prof->damping && r->revived && now_ps - r->good_at_ps < r->probe_backoff_ps;
}

bool mrc_ev_on_bad(struct mrc_ev_set *s, int idx, int cause, uint64_t now_ps)
{
	struct mrc_ev_rare *r;

	if (idx < 0 || !usable_state(s->sa[idx]))
		return false;
	if (s->usable <= s->prof->min_active) {
		s->floor_hits++;
		return false;
	}
	r = rare_get(s, (uint32_t)idx);
	if (!r)
		return false; /* out of memory: kept in use, as below the floor */
	/* first: ev_change's probe_min_update reads it */
	if (!ev_flapping(s, r, now_ps))
		r->probe_backoff_ps = s->prof->backoff0_ps;
	r->revived = false;
	r->probe_at_ps = now_ps + r->probe_backoff_ps;
	r->probe_out = false;
	ev_change(s, idx, MRC_EV_ASSUMED_BAD, cause, now_ps);
	ev_replace(s, idx);
	return true;
}

/* Number of active EVs on @plane that are not ASSUMED_BAD/DENIED, i.e. the set's size. */
static unsigned active_count(const struct mrc_ev_set *s, unsigned pl)
{
	const struct mrc_ev_profile *f = s->prof;
	const uint32_t *pidx = f->pidx + f->plane_off[pl];
	unsigned c = 0;

	for (unsigned k = 0; k < f->plane_n[pl]; k++) {
		uint8_t sa = s->sa[pidx[k]];

		c += (sa & MRC_EV_ACTIVE) && usable_state(sa);
	}
	return c;
}

bool mrc_ev_on_probe_ok(struct mrc_ev_set *s, int idx, uint16_t ts_echo, uint64_t now_ps)
{
	struct mrc_ev_rare *r;
	unsigned pl;

	if (idx < 0 || (s->sa[idx] & MRC_EV_STATE) != MRC_EV_ASSUMED_BAD)
		return false;
	r = rare_find(s, (uint32_t)idx);
	if (!r || !r->probe_out || r->probe_ts != ts_echo)
		return false; /* no probe of ours in flight on it: forged or stale */
	pl = s->prof->plane[idx];
	r->revived = true;
	r->good_at_ps = now_ps;
	s->prof->st[idx].probes_ok++;
	ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_PROBE_OK, now_ps);
	/* Rejoin the active set when it is short (no backup was left to replace us), else
	 * wait in the backup set. */
	if (active_count(s, pl) < s->prof->active_target[pl])
		s->sa[idx] |= MRC_EV_ACTIVE;
	return true;
}

bool mrc_ev_set_denied(struct mrc_ev_set *s, int idx, bool deny, uint64_t now_ps)
{
	int st;

	if (idx < 0)
		return false;
	st = s->sa[idx] & MRC_EV_STATE;
	if (deny && st != MRC_EV_DENIED) {
		ev_change(s, idx, MRC_EV_DENIED, MRC_EVC_DENY, now_ps);
		ev_replace(s, idx);
		return true;
	}
	if (!deny && st == MRC_EV_DENIED) {
		unsigned pl = s->prof->plane[idx];

		ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_ALLOW, now_ps);
		if (active_count(s, pl) < s->prof->active_target[pl])
			s->sa[idx] |= MRC_EV_ACTIVE;
		return true;
	}
	return false;
}

int mrc_ev_probe_due(const struct mrc_ev_set *s, unsigned plane, uint64_t now_ps)
{
	const struct mrc_ev_slow *sl = s->slow;
	int best = -1;

	if (plane >= s->planes || !s->n_bad || sl->probe_min[plane] > now_ps)
		return -1;
	/* the first due in profile order, as a walk of the plane's EVs would find */
	for (unsigned k = 0; k < sl->n; k++) {
		const struct mrc_ev_rare *e = &sl->r[k];

		if ((s->sa[e->idx] & MRC_EV_STATE) == MRC_EV_ASSUMED_BAD &&
			s->prof->plane[e->idx] == plane && e->probe_at_ps <= now_ps &&
			(best < 0 || e->idx < (uint32_t)best))
			best = (int)e->idx;
	}
	return best;
}

void mrc_ev_probe_sent(struct mrc_ev_set *s, int idx, uint16_t tx_ts, uint64_t now_ps)
{
	struct mrc_ev_rare *r = rare_find(s, (uint32_t)idx); /* ASSUMED_BAD: it has one */
	uint64_t max = s->prof->backoff_max_ps;

	s->prof->st[idx].probes++;
	r->probe_id++;
	r->probe_ts = tx_ts;
	r->probe_out = true;
	r->probe_backoff_ps = r->probe_backoff_ps * 2 > max ? max : r->probe_backoff_ps * 2;
	r->probe_at_ps = now_ps + r->probe_backoff_ps;
	probe_min_update(s);
}

uint64_t mrc_ev_next_probe(const struct mrc_ev_set *s, uint32_t plane_mask)
{
	uint64_t t = UINT64_MAX;

	if (!s->n_bad)
		return t; /* the common case, asked on every timer query */
	for (unsigned pl = 0; pl < s->planes; pl++)
		if ((plane_mask >> pl & 1) && s->slow->probe_min[pl] < t)
			t = s->slow->probe_min[pl];
	return t;
}

unsigned mrc_ev_active_usable(const struct mrc_ev_set *s, unsigned plane)
{
	return plane < s->planes ? active_count(s, plane) : 0;
}

unsigned mrc_ev_log(const struct mrc_ev_set *s, struct mrc_ev_change *out, unsigned cap)
{
	unsigned n = s->log_len < cap ? s->log_len : cap;

	for (unsigned i = 0; i < n; i++)
		out[i] = s->log[(s->log_head + s->log_len - n + i) % s->log_cap];
	return n;
}

const char *mrc_ev_state_name(int state)
{
	static const char *const names[] = {"GOOD", "SKIP", "ASSUMED_BAD", "DENIED"};

	return state >= 0 && state <= MRC_EV_DENIED ? names[state] : "?";
}

const char *mrc_ev_cause_name(int cause)
{
	static const char *const names[] = {"?", "ecn", "trim", "sack-m2", "loss-sack", "loss-rto",
		"probe-ok", "hold-done", "deny", "allow", "path"};

	return cause > 0 && cause <= MRC_EVC_PATH ? names[cause] : "?";
}
