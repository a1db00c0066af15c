/* SPDX-License-Identifier: BSD-2-Clause */
/* ev: EV (path) states, selection, backup sets and probing — WIRE.md "Path (EV) states". */
#include "mrc/ev.h"
#include "mrc/st.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EV_LOG_CAP 256

static const struct mrc_ev_set *sort_set;

static int cmp_by_value(const void *a, const void *b)
{
	uint32_t va = sort_set->ev[*(const uint32_t *)a].value;
	uint32_t vb = sort_set->ev[*(const uint32_t *)b].value;

	return va < vb ? -1 : va > vb;
}

/* Recomputes probe_min[] after an EV entered or left ASSUMED_BAD or its probe time moved:
 * rare next to the timer queries that read it. */
static void probe_min_update(struct mrc_ev_set *s)
{
	for (unsigned pl = 0; pl < s->planes; pl++)
		s->probe_min[pl] = UINT64_MAX;
	for (unsigned i = 0; s->n_bad && i < s->n; i++) {
		const struct mrc_ev *e = &s->ev[i];

		if (e->state == MRC_EV_ASSUMED_BAD && e->probe_at_ps < s->probe_min[e->plane])
			s->probe_min[e->plane] = e->probe_at_ps;
	}
}

static void ev_change(struct mrc_ev_set *s, int idx, int to, int cause, uint64_t now_ps)
{
	struct mrc_ev *e = &s->ev[idx];
	int from = e->state;
	bool was_usable = from == MRC_EV_GOOD || from == MRC_EV_SKIP;
	bool is_usable = to == MRC_EV_GOOD || to == MRC_EV_SKIP;

	e->state = (uint8_t)to;
	e->st.changes++;
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
	s->log[(s->log_total) % s->log_cap] = (struct mrc_ev_change){
		.t_ps = now_ps,
		.ev = e->value,
		.from = (uint8_t)from,
		.to = (uint8_t)to,
		.cause = (uint8_t)cause,
	};
	s->log_total++;
	if (s->log_len < s->log_cap)
		s->log_len++;
	if (s->notify)
		s->notify(s->notify_ctx, e->value, from, to, cause, now_ps);
}

int mrc_ev_set_init(struct mrc_ev_set *s, const struct mrc_ev_params *p, unsigned planes,
	unsigned (*plane_of)(void *ctx, uint32_t ev), void *ctx)
{
	unsigned fill[MRC_EV_MAX_PLANES] = {0};

	memset(s, 0, sizeof(*s));
	if (!p->n_evs || !p->evs || planes == 0 || planes > MRC_EV_MAX_PLANES)
		return -EINVAL;
	s->n = p->n_evs;
	s->planes = planes;
	s->min_active = p->ev_min_active;
	s->skip_hold_ps = p->skip_hold_ps;
	s->backoff0_ps = p->probe_backoff_ps ? p->probe_backoff_ps : 1;
	s->backoff_max_ps =
		p->probe_backoff_max_ps > s->backoff0_ps ? p->probe_backoff_max_ps : s->backoff0_ps;
	for (unsigned pl = 0; pl < MRC_EV_MAX_PLANES; pl++)
		s->probe_min[pl] = UINT64_MAX;
	s->ev = calloc(s->n, sizeof(*s->ev));
	s->by_value = calloc(s->n, sizeof(*s->by_value));
	s->scratch = calloc(s->n, sizeof(*s->scratch));
	s->log_cap = EV_LOG_CAP;
	s->log = calloc(s->log_cap, sizeof(*s->log));
	if (!s->ev || !s->by_value || !s->scratch || !s->log)
		goto fail_nomem;
	for (unsigned i = 0; i < s->n; i++) {
		unsigned pl = plane_of(ctx, p->evs[i]);

		if (pl >= planes)
			goto fail_inval;
		s->ev[i].value = p->evs[i];
		s->ev[i].plane = (uint8_t)pl;
		s->ev[i].state = MRC_EV_GOOD;
		s->plane_n[pl]++;
		s->by_value[i] = i;
	}
	sort_set = s;
	qsort(s->by_value, s->n, sizeof(*s->by_value), cmp_by_value);
	sort_set = NULL;
	for (unsigned i = 1; i < s->n; i++)
		if (s->ev[s->by_value[i]].value == s->ev[s->by_value[i - 1]].value)
			goto fail_inval;
	for (unsigned pl = 0; pl < planes; pl++) {
		s->plane_idx[pl] = calloc(s->plane_n[pl] ? s->plane_n[pl] : 1, sizeof(uint32_t));
		if (!s->plane_idx[pl])
			goto fail_nomem;
	}
	for (unsigned i = 0; i < s->n; i++) {
		unsigned pl = s->ev[i].plane;

		s->plane_idx[pl][fill[pl]++] = i;
	}
	for (unsigned pl = 0; pl < planes; pl++) {
		unsigned nb = p->backup_per_plane == UINT32_MAX ? s->plane_n[pl] / 8
								: p->backup_per_plane;

		if (nb >= s->plane_n[pl])
			nb = s->plane_n[pl] ? s->plane_n[pl] - 1 : 0;
		s->active_target[pl] = s->plane_n[pl] - nb;
		for (unsigned k = 0; k < s->plane_n[pl]; k++)
			s->ev[s->plane_idx[pl][k]].active = k < s->active_target[pl];
	}
	s->usable = s->n;
	for (unsigned i = 0; i < p->n_deny; i++) {
		int idx = mrc_ev_find(s, p->deny[i]);

		if (idx < 0)
			goto fail_inval;
		if (s->ev[idx].state != MRC_EV_DENIED) {
			s->ev[idx].state = MRC_EV_DENIED;
			s->usable--;
		}
	}
	return 0;
fail_inval:
	mrc_ev_set_free(s);
	return -EINVAL;
fail_nomem:
	mrc_ev_set_free(s);
	return -ENOMEM;
}

void mrc_ev_set_free(struct mrc_ev_set *s)
{
	free(s->ev);
	free(s->by_value);
	free(s->scratch);
	free(s->log);
	for (unsigned pl = 0; pl < MRC_EV_MAX_PLANES; pl++)
		free(s->plane_idx[pl]);
	memset(s, 0, sizeof(*s));
}

int mrc_ev_find(const struct mrc_ev_set *s, uint32_t ev)
{
	unsigned lo = 0, hi = s->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		uint32_t v = s->ev[s->by_value[mid]].value;

		if (v == ev)
			return (int)s->by_value[mid];
		if (v < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* GOOD now? Ends an expired SKIP hold on the way. @rotation: this is a selection pass. */
static bool ev_pickable(struct mrc_ev_set *s, int idx, bool rotation, uint64_t now_ps)
{
	struct mrc_ev *e = &s->ev[idx];

	if (e->state == MRC_EV_SKIP) {
		if (s->skip_hold_ps == 0) {
			if (rotation)
				ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_HOLD_DONE, now_ps);
			return false; /* passed over this once */
		}
		if (now_ps >= e->skip_until_ps)
			ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_HOLD_DONE, now_ps);
	}
	return e->state == MRC_EV_GOOD;
}

int mrc_ev_pick(struct mrc_ev_set *s, unsigned plane, struct mrc_rng *rng, int exclude,
	bool allow_exclude, uint64_t now_ps)
{
	unsigned n = plane < s->planes ? s->plane_n[plane] : 0, m = 0;
	bool saw_exclude = false;

	/* Collect the candidates first so the draw is uniform over them. */
	for (unsigned k = 0; k < n; k++) {
		int idx = (int)s->plane_idx[plane][k];

		if (!s->ev[idx].active || !ev_pickable(s, idx, true, now_ps))
			continue;
		if (idx == exclude) {
			saw_exclude = true;
			continue;
		}
		s->scratch[m++] = (uint32_t)idx;
	}
	if (m)
		return (int)s->scratch[mrc_rng_below(rng, m)];
	return saw_exclude && allow_exclude ? exclude : -1;
}

bool mrc_ev_on_skip(struct mrc_ev_set *s, int idx, int cause, uint64_t now_ps)
{
	if (idx < 0 || s->ev[idx].state != MRC_EV_GOOD)
		return false;
	s->ev[idx].skip_until_ps = now_ps + s->skip_hold_ps;
	ev_change(s, idx, MRC_EV_SKIP, cause, now_ps);
	return true;
}

/* Takes @idx out of its plane's active set and promotes a usable backup of that plane. */
static void ev_replace(struct mrc_ev_set *s, int idx)
{
	struct mrc_ev *e = &s->ev[idx];
	unsigned pl = e->plane;

	if (!e->active)
		return;
	e->active = false;
	for (unsigned k = 0; k < s->plane_n[pl]; k++) {
		struct mrc_ev *b = &s->ev[s->plane_idx[pl][k]];

		if (!b->active && (b->state == MRC_EV_GOOD || b->state == MRC_EV_SKIP)) {
			b->active = true;
			break;
		}
	}
}

bool mrc_ev_on_bad(struct mrc_ev_set *s, int idx, int cause, uint64_t now_ps)
{
	struct mrc_ev *e;

	if (idx < 0)
		return false;
	e = &s->ev[idx];
	if (e->state != MRC_EV_GOOD && e->state != MRC_EV_SKIP)
		return false;
	if (s->usable <= s->min_active) {
		s->floor_hits++;
		return false;
	}
	e->probe_backoff_ps = s->backoff0_ps; /* first: ev_change's probe_min_update reads it */
	e->probe_at_ps = now_ps + e->probe_backoff_ps;
	ev_change(s, idx, MRC_EV_ASSUMED_BAD, cause, now_ps);
	ev_replace(s, idx);
	return true;
}

/* Number of active EVs on @plane that are not ASSUMED_BAD/DENIED, i.e. the set's size. */
static unsigned active_count(const struct mrc_ev_set *s, unsigned pl)
{
	unsigned c = 0;

	for (unsigned k = 0; k < s->plane_n[pl]; k++) {
		const struct mrc_ev *e = &s->ev[s->plane_idx[pl][k]];

		c += e->active && (e->state == MRC_EV_GOOD || e->state == MRC_EV_SKIP);
	}
	return c;
}

bool mrc_ev_on_probe_ok(struct mrc_ev_set *s, int idx, uint64_t now_ps)
{
	struct mrc_ev *e;

	if (idx < 0 || s->ev[idx].state != MRC_EV_ASSUMED_BAD)
		return false;
	e = &s->ev[idx];
	e->st.probes_ok++;
	ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_PROBE_OK, now_ps);
	/* Rejoin the active set when it is short (no backup was left to replace us), else
	 * wait in the backup set. */
	if (active_count(s, e->plane) < s->active_target[e->plane])
		e->active = true;
	return true;
}

bool mrc_ev_set_denied(struct mrc_ev_set *s, int idx, bool deny, uint64_t now_ps)
{
	if (idx < 0)
		return false;
	if (deny && s->ev[idx].state != MRC_EV_DENIED) {
		ev_change(s, idx, MRC_EV_DENIED, MRC_EVC_DENY, now_ps);
		ev_replace(s, idx);
		return true;
	}
	if (!deny && s->ev[idx].state == MRC_EV_DENIED) {
		ev_change(s, idx, MRC_EV_GOOD, MRC_EVC_ALLOW, now_ps);
		if (active_count(s, s->ev[idx].plane) < s->active_target[s->ev[idx].plane])
			s->ev[idx].active = true;
		return true;
	}
	return false;
}

int mrc_ev_probe_due(const struct mrc_ev_set *s, unsigned plane, uint64_t now_ps)
{
	if (plane >= s->planes || !s->n_bad || s->probe_min[plane] > now_ps)
		return -1;
	for (unsigned k = 0; k < s->plane_n[plane]; k++) {
		uint32_t idx = s->plane_idx[plane][k];
		const struct mrc_ev *e = &s->ev[idx];

		if (e->state == MRC_EV_ASSUMED_BAD && e->probe_at_ps <= now_ps)
			return (int)idx;
	}
	return -1;
}

void mrc_ev_probe_sent(struct mrc_ev_set *s, int idx, uint64_t now_ps)
{
	struct mrc_ev *e = &s->ev[idx];

	e->st.probes++;
	e->probe_id++;
	e->probe_backoff_ps = e->probe_backoff_ps * 2 > s->backoff_max_ps ? s->backoff_max_ps
									  : e->probe_backoff_ps * 2;
	e->probe_at_ps = now_ps + e->probe_backoff_ps;
	probe_min_update(s);
}

uint64_t mrc_ev_next_probe(const struct mrc_ev_set *s, uint32_t plane_mask)
{
	uint64_t t = UINT64_MAX;

	if (!s->n_bad)
		return t; /* the common case, asked on every timer query */
	for (unsigned pl = 0; pl < s->planes; pl++)
		if ((plane_mask >> pl & 1) && s->probe_min[pl] < t)
			t = s->probe_min[pl];
	return t;
}

unsigned mrc_ev_active_usable(const struct mrc_ev_set *s, unsigned plane)
{
	return plane < s->planes ? active_count(s, plane) : 0;
}

unsigned mrc_ev_log(const struct mrc_ev_set *s, struct mrc_ev_change *out, unsigned cap)
{
	unsigned n = s->log_len < cap ? s->log_len : cap;
	uint64_t first = s->log_total - n;

	for (unsigned i = 0; i < n; i++)
		out[i] = s->log[(first + i) % s->log_cap];
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
		"probe-ok", "hold-done", "deny", "allow"};

	return cause > 0 && cause <= MRC_EVC_ALLOW ? names[cause] : "?";
}

/* ---- selftest ---------------------------------------------------------------------- */

static unsigned st_plane_of(void *ctx, uint32_t ev)
{
	(void)ctx;
	return ev >> 28;
}

MRC_SELFTEST(ev)
{
	/* 2 planes x 8 EVs: plane(4) | spine(12) | salt(16), WIRE.md default layout. */
	uint32_t evs[16];
	struct mrc_ev_params p = {.evs = evs,
		.n_evs = 16,
		.ev_min_active = 4,
		.backup_per_plane = 2,
		.skip_hold_ps = 0,
		.probe_backoff_ps = 1000000,
		.probe_backoff_max_ps = 4000000};
	struct mrc_ev_set s;
	struct mrc_rng rng;
	unsigned counts[16] = {0};
	int rc;

	for (unsigned i = 0; i < 16; i++)
		evs[i] = (i / 8) << 28 | (i % 8) << 16 | 0x1234;

	/* E01 (the generator's reference values) lives in the rng suite now */
	mrc_st_case(st, "E02 init: 6 active + 2 backup per plane, lookup by value");
	rc = mrc_ev_set_init(&s, &p, 2, st_plane_of, NULL);
	ST_EQ_I(st, rc, 0);
	ST_EQ(st, mrc_ev_active_usable(&s, 0), 6);
	ST_EQ(st, mrc_ev_active_usable(&s, 1), 6);
	ST_EQ_I(st, mrc_ev_find(&s, 1u << 28 | 3 << 16 | 0x1234), 11);
	ST_EQ_I(st, mrc_ev_find(&s, 0xdeadbeef), -1);
	ST_TRUE(st, !s.ev[6].active && !s.ev[7].active && s.ev[5].active);

	mrc_st_case(st, "E03 pick: only the plane's active GOOD EVs, all of them, evenly");
	mrc_rng_seed(&rng, 42);
	for (unsigned i = 0; i < 6000; i++) {
		int idx = mrc_ev_pick(&s, 1, &rng, -1, false, 0);

		ST_TRUE(st, idx >= 8 && idx < 14);
		if (idx >= 0)
			counts[idx]++;
	}
	for (unsigned i = 8; i < 14; i++)
		ST_TRUE(st, counts[i] > 850 && counts[i] < 1150); /* 1000 +- ~5 sigma */
	ST_EQ(st, counts[14] + counts[15] + counts[0], 0);

	mrc_st_case(st, "E04 SKIP with hold 0: passed over once, then GOOD (one rotation)");
	ST_TRUE(st, mrc_ev_on_skip(&s, 0, MRC_EVC_ECN, 10));
	ST_EQ(st, s.ev[0].state, MRC_EV_SKIP);
	ST_TRUE(st, !mrc_ev_on_skip(&s, 0, MRC_EVC_ECN, 11)); /* only GOOD changes */
	for (unsigned i = 0; i < 100 && s.ev[0].state == MRC_EV_SKIP; i++)
		ST_TRUE(st, mrc_ev_pick(&s, 0, &rng, -1, false, 12) != 0);
	ST_EQ(st, s.ev[0].state, MRC_EV_GOOD);

	mrc_st_case(st, "E05 ASSUMED_BAD: replaced from the same plane, probe backoff 1,2,4,4 us");
	ST_TRUE(st, mrc_ev_on_bad(&s, 2, MRC_EVC_LOSS_SACK, 100));
	ST_EQ(st, s.ev[2].state, MRC_EV_ASSUMED_BAD);
	ST_TRUE(st, !s.ev[2].active);
	ST_TRUE(st, s.ev[6].active); /* first backup of plane 0 */
	ST_EQ(st, mrc_ev_active_usable(&s, 0), 6);
	ST_EQ(st, mrc_ev_active_usable(&s, 1), 6);
	ST_EQ_I(st, mrc_ev_probe_due(&s, 0, 100 + 999999), -1);
	ST_EQ_I(st, mrc_ev_probe_due(&s, 0, 100 + 1000000), 2);
	ST_EQ_I(st, mrc_ev_probe_due(&s, 1, 100 + 1000000), -1);
	mrc_ev_probe_sent(&s, 2, 1000100);
	ST_EQ(st, mrc_ev_next_probe(&s, 1), 1000100 + 2000000);
	mrc_ev_probe_sent(&s, 2, 3000100);
	ST_EQ(st, mrc_ev_next_probe(&s, 1), 3000100 + 4000000);
	mrc_ev_probe_sent(&s, 2, 7000100);
	ST_EQ(st, mrc_ev_next_probe(&s, 1), 7000100 + 4000000);
	ST_EQ(st, mrc_ev_next_probe(&s, 2), UINT64_MAX);
	for (unsigned i = 0; i < 100; i++)
		ST_TRUE(st, mrc_ev_pick(&s, 0, &rng, -1, false, 200) != 2);

	mrc_st_case(st, "E06 probe answered: GOOD again, rejoins as backup");
	ST_TRUE(st, mrc_ev_on_probe_ok(&s, 2, 8000000));
	ST_EQ(st, s.ev[2].state, MRC_EV_GOOD);
	ST_TRUE(st, !s.ev[2].active); /* active set was refilled: 6 of 8 already */
	ST_EQ(st, mrc_ev_active_usable(&s, 0), 6);

	mrc_st_case(st, "E07 floor: ev_min_active 4 of 16 stops the 13th ASSUMED_BAD");
	for (int i = 0; i < 16; i++)
		mrc_ev_on_bad(&s, i, MRC_EVC_LOSS_RTO, 9000000);
	ST_EQ(st, s.usable, 4);
	ST_EQ(st, s.floor_hits, 4);

	mrc_st_case(st, "E08 DENIED by control only; log keeps time, EV, from, to, cause");
	{
		struct mrc_ev_change log[4];
		unsigned n;
		int idx = -1;

		for (int i = 0; i < 16 && idx < 0; i++)
			if (s.ev[i].state == MRC_EV_GOOD)
				idx = i;
		ST_TRUE(st, mrc_ev_set_denied(&s, idx, true, 9500000));
		ST_TRUE(st, !mrc_ev_on_probe_ok(&s, idx, 9600000));
		ST_EQ(st, s.ev[idx].state, MRC_EV_DENIED);
		n = mrc_ev_log(&s, log, 4);
		ST_EQ(st, n, 4);
		ST_EQ(st, log[3].t_ps, 9500000);
		ST_EQ(st, log[3].ev, evs[idx]);
		ST_EQ(st, log[3].from, MRC_EV_GOOD);
		ST_EQ(st, log[3].to, MRC_EV_DENIED);
		ST_EQ(st, log[3].cause, MRC_EVC_DENY);
		ST_EQ_STR(st, mrc_ev_cause_name(log[2].cause), "loss-rto");
	}
	mrc_ev_set_free(&s);

	mrc_st_case(st, "E09 init rejects duplicates and unknown denied EVs");
	evs[5] = evs[4];
	ST_EQ_I(st, mrc_ev_set_init(&s, &p, 2, st_plane_of, NULL), -EINVAL);
	evs[5] = 5 << 16 | 0x1234;
	{
		uint32_t deny = 0x0ABCDEF0;

		p.deny = &deny;
		p.n_deny = 1;
		ST_EQ_I(st, mrc_ev_set_init(&s, &p, 2, st_plane_of, NULL), -EINVAL);
	}
}
