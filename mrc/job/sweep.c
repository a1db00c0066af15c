/* SPDX-License-Identifier: BSD-2-Clause */
/* sweep: the probe plan, the pacing of each host's requests and the per-path counts
 * (sweep.h, docs/sweep.md). */
#include "mrc/job/sweep.h"

#include "mrc/base/bytes.h"
#include "mrc/base/rng.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS_PER_S 1000000000000ull

/* A request in flight: its path, its round (its place in the path's order) and id. */
struct inflight {
	uint64_t deadline_ps; /* sent + timeout + 1 ps: the engine keeps it that long */
	size_t path;
	uint32_t round;
	uint16_t req_id;
};

/* One source host's state: its paths are plan[first .. first + n). */
struct shost {
	size_t first, n;
	uint64_t next_k;     /* requests made so far: round = k / n, path = first + k % n */
	uint64_t offset_ps;  /* when its first request may leave */
	struct inflight *fly; /* [outstanding] */
	unsigned n_fly;
	bool cut;	     /* max_time came before every request was made */
};

/* Per path: the answers' RTTs (ns) and the highest round answered, + 1 (0: none). */
struct pstate {
	uint32_t n_rtt, hi_round;
};

/* Per path, what its destination counts (mrc_sweep_request): kept apart from what the
 * source counts, in its destination host's own cache lines. */
struct prx {
	uint32_t delivered, ce;
};

/* prx records a cache line holds: each host's range starts on a line of its own */
#define RX_LINE (64 / sizeof(struct prx))

struct mrc_sweep {
	struct conf_sweep p;
	uint32_t hosts, planes, t0, t1, hpt0;
	struct mrc_sweep_path *paths;
	size_t n_paths;
	struct pstate *ps;
	uint32_t *rtt;	/* [n_paths * probes] */
	struct prx *rx;	/* the paths to each host, its range cache-line aligned */
	size_t *rx_slot; /* [n_paths]: the path's record in rx */
	size_t *rx_at;	/* [hosts + 1]: host h's range is rx[rx_at[h] .. rx_at[h + 1]) */
	uint32_t *rx_path; /* [records]: a record's path in path order, UINT32_MAX: padding */
	uint32_t *link_paths; /* [n_links] */
	size_t n_links;
	struct shost *sh;
	uint64_t interval_ps;
};

/* ---- links ---- */

static size_t plane_links(const struct mrc_sweep *sw)
{
	return (size_t)sw->hosts + (size_t)sw->t0 * sw->t1;
}

static size_t host_link(const struct mrc_sweep *sw, uint32_t h, uint32_t p)
{
	return (size_t)p * plane_links(sw) + h;
}

static size_t fabric_link(const struct mrc_sweep *sw, uint32_t p, uint32_t i, uint32_t j)
{
	return (size_t)p * plane_links(sw) + sw->hosts + (size_t)i * sw->t1 + j;
}

size_t mrc_sweep_n_links(const struct mrc_sweep *sw)
{
	return sw->n_links;
}

uint32_t mrc_sweep_link_paths(const struct mrc_sweep *sw, size_t l)
{
	return l < sw->n_links ? sw->link_paths[l] : 0;
}

char *mrc_sweep_link_name(const struct mrc_sweep *sw, size_t l, char *buf, size_t len)
{
	size_t pl = plane_links(sw), p = l / pl, k = l % pl;

	if (k < sw->hosts)
		snprintf(buf, len, "h%zu.p%zu-p%zu.t0.%zu", k, p, p, k / sw->hpt0);
	else
		snprintf(buf, len, "p%zu.t0.%zu-p%zu.t1.%zu", p, (k - sw->hosts) / sw->t1, p,
			(k - sw->hosts) % sw->t1);
	return buf;
}

/* The links path @q crosses (2 or 4) into @out; returns the count. */
static unsigned path_links(const struct mrc_sweep *sw, const struct mrc_sweep_path *q,
	size_t out[4])
{
	unsigned n = 0;

	out[n++] = host_link(sw, q->src, q->plane);
	if (q->t1 != UINT32_MAX) {
		out[n++] = fabric_link(sw, q->plane, q->t0_src, q->t1);
		out[n++] = fabric_link(sw, q->plane, q->t0_dst, q->t1);
	}
	out[n++] = host_link(sw, q->dst, q->plane);
	return n;
}

unsigned mrc_sweep_path_nodes(const struct mrc_sweep_path *p,
	char names[MRC_SWEEP_MAX_NODES][MRC_SWEEP_NODE_LEN])
{
	unsigned n = 0;

	snprintf(names[n++], MRC_SWEEP_NODE_LEN, "h%" PRIu32 ".p%" PRIu32, p->src, p->plane);
	snprintf(names[n++], MRC_SWEEP_NODE_LEN, "p%" PRIu32 ".t0.%" PRIu32, p->plane,
		p->t0_src);
	if (p->t1 != UINT32_MAX) {
		snprintf(names[n++], MRC_SWEEP_NODE_LEN, "p%" PRIu32 ".t1.%" PRIu32, p->plane,
			p->t1);
		snprintf(names[n++], MRC_SWEEP_NODE_LEN, "p%" PRIu32 ".t0.%" PRIu32, p->plane,
			p->t0_dst);
	}
	snprintf(names[n++], MRC_SWEEP_NODE_LEN, "h%" PRIu32 ".p%" PRIu32, p->dst, p->plane);
	return n;
}

/* ---- the plan ---- */

/* A set of (src, dst, EV index) keys, open addressing; keys are + 1 (0: empty). */
struct kset {
	uint64_t *k;
	size_t cap, n;
};

static uint64_t kmix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Adds @key; 1 when new, 0 when there already, -ENOMEM. */
static int kset_add(struct kset *s, uint64_t key)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct kset g = { .cap = s->cap ? 2 * s->cap : 1024 };

		g.k = calloc(g.cap, sizeof(*g.k));
		if (!g.k)
			return -ENOMEM;
		for (size_t j = 0; j < s->cap; j++)
			if (s->k[j])
				kset_add(&g, s->k[j] - 1);
		free(s->k);
		*s = g;
	}
	for (i = kmix(key) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
		if (s->k[i] == key + 1)
			return 0;
	s->k[i] = key + 1;
	s->n++;
	return 1;
}

/* The usable EVs of the profile by plane and spine (spine = EV spine field mod t1). */
struct evtab {
	uint32_t *ev;	/* usable EVs, grouped by (plane, spine) */
	size_t *start;	/* [planes * t1 + 1]: group g is ev[start[g] .. start[g + 1]) */
	size_t *pstart; /* [planes + 1]: a plane's groups are contiguous */
	size_t n;
};

static int evtab_make(const struct mrc_job_srv6 *m, uint32_t planes, uint32_t t1,
	struct evtab *t)
{
	size_t groups = (size_t)planes * t1, *fill;

	t->ev = calloc(m->n_evs + 1, sizeof(*t->ev));
	t->start = calloc(groups + 1, sizeof(*t->start));
	t->pstart = calloc(planes + 1, sizeof(*t->pstart));
	fill = calloc(groups + 1, sizeof(*fill));
	if (!t->ev || !t->start || !t->pstart || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->n_evs; i++) {
		uint32_t ev = m->evs[i].ev, p = mrc_srv6_ev_plane(&m->params.ev, ev);

		if (m->evs[i].denied || p >= planes)
			continue;
		t->start[p * t1 + mrc_srv6_ev_spine(&m->params.ev, ev) % t1 + 1]++;
	}
	for (size_t g = 0; g < groups; g++)
		t->start[g + 1] += t->start[g];
	for (size_t i = 0; i < m->n_evs; i++) {
		uint32_t ev = m->evs[i].ev, p = mrc_srv6_ev_plane(&m->params.ev, ev);
		size_t g;

		if (m->evs[i].denied || p >= planes)
			continue;
		g = p * t1 + mrc_srv6_ev_spine(&m->params.ev, ev) % t1;
		t->ev[t->start[g] + fill[g]++] = ev;
	}
	t->n = t->start[groups];
	for (uint32_t p = 0; p <= planes; p++)
		t->pstart[p] = t->start[(size_t)p * t1];
	free(fill);
	return 0;
}

static void evtab_free(struct evtab *t)
{
	free(t->ev);
	free(t->start);
	free(t->pstart);
}

/* Appends path (src, dst, ev) with its T0s and T1 to the plan. */
static int plan_add(struct mrc_sweep *sw, const struct mrc_job_srv6 *m, size_t *cap,
	uint32_t src, uint32_t dst, uint32_t ev)
{
	struct mrc_srv6_path sp;
	struct mrc_sweep_path *q;
	size_t l[4];
	unsigned nl;
	int e = mrc_srv6_path(m->plan, src, dst, ev, &sp);

	if (e)
		return e;
	if (sw->n_paths == *cap) {
		size_t n = *cap ? 2 * *cap : 256;

		q = realloc(sw->paths, n * sizeof(*q));
		if (!q)
			return -ENOMEM;
		sw->paths = q;
		*cap = n;
	}
	q = &sw->paths[sw->n_paths++];
	memset(q, 0, sizeof(*q));
	q->src = src;
	q->dst = dst;
	q->ev = ev;
	q->plane = sp.plane;
	q->t0_src = sp.t0_src;
	q->t0_dst = sp.t0_dst;
	q->t1 = sp.via_t1 ? sp.spine : UINT32_MAX;
	nl = path_links(sw, q, l);
	for (unsigned i = 0; i < nl; i++)
		sw->link_paths[l[i]]++;
	return 0;
}

/* Every usable EV of every ordered pair. */
static int plan_all(struct mrc_sweep *sw, const struct mrc_job_srv6 *m, const struct evtab *t,
	char *err, size_t errlen)
{
	uint64_t n = (uint64_t)sw->hosts * (sw->hosts - 1) * t->n;
	size_t cap = 0;

	if (n > MRC_SWEEP_MAX_PATHS) {
		snprintf(err, errlen, "sweep.cover: 0 probes every EV of every pair: %" PRIu64
			" paths, more than %u; set a cover (paths a link) '0'", n,
			MRC_SWEEP_MAX_PATHS);
		return -E2BIG;
	}
	for (uint32_t s = 0; s < sw->hosts; s++)
		for (uint32_t d = 0; d < sw->hosts; d++)
			for (size_t i = 0; d != s && i < t->n; i++) {
				int e = plan_add(sw, m, &cap, s, d, t->ev[i]);

				if (e)
					return e;
			}
	return 0;
}

/*
 * The cover (docs/sweep.md "The plan"): round r = 1..k visits every link in number order
 * and, while fewer than r paths cross it, adds a path through it whose other parts are
 * drawn: a host link (h, p) gets h as source (odd rounds) or destination (even rounds),
 * a peer and an EV of plane p; a T0-T1 link (p, i, j) a host under T0 i, one under
 * another T0 (roles alternating likewise) and an EV of plane p whose spine is j. A draw
 * already in the plan is drawn again (at most 16 times). A link no path can cross (a T1
 * when there is one T0, a spine no EV of its plane takes) stays uncovered.
 */
static int plan_cover(struct mrc_sweep *sw, const struct mrc_job_srv6 *m, uint64_t seed,
	const struct evtab *t)
{
	struct mrc_rng rng;
	struct kset ks = { 0 };
	size_t cap = 0;
	int e = 0;

	mrc_rng_seed(&rng, seed ^ 0x5357454550ull); /* "SWEEP" */
	for (uint32_t r = 1; r <= sw->p.cover && !e; r++) {
		for (size_t l = 0; l < sw->n_links && !e; l++) {
			size_t pl = plane_links(sw), k = l % pl;
			uint32_t p = (uint32_t)(l / pl);

			for (int tries = 0; tries < 16 && sw->link_paths[l] < r; tries++) {
				uint32_t a, b;
				size_t lo, hi, evi;

				if (k < sw->hosts) {
					lo = t->pstart[p];
					hi = t->pstart[p + 1];
					if (hi == lo)
						break;
					a = (uint32_t)k;
					b = (uint32_t)mrc_rng_below(&rng, sw->hosts - 1);
					b += b >= a;
				} else {
					uint32_t i = (uint32_t)((k - sw->hosts) / sw->t1);
					uint32_t j = (uint32_t)((k - sw->hosts) % sw->t1);
					uint32_t ti;

					lo = t->start[(size_t)p * sw->t1 + j];
					hi = t->start[(size_t)p * sw->t1 + j + 1];
					if (hi == lo || sw->t0 < 2)
						break;
					ti = (uint32_t)mrc_rng_below(&rng, sw->t0 - 1);
					ti += ti >= i;
					a = i * sw->hpt0 + (uint32_t)mrc_rng_below(&rng, sw->hpt0);
					b = ti * sw->hpt0 + (uint32_t)mrc_rng_below(&rng, sw->hpt0);
				}
				evi = lo + mrc_rng_below(&rng, hi - lo);
				if (!(r & 1)) { /* the other role */
					uint32_t x = a;

					a = b;
					b = x;
				}
				e = kset_add(&ks, ((uint64_t)a * sw->hosts + b) * t->n + evi);
				if (e < 0)
					break;
				if (e == 0)
					continue; /* drawn before: draw again */
				e = plan_add(sw, m, &cap, a, b, t->ev[evi]);
				if (e)
					break;
			}
		}
	}
	free(ks.k);
	return e;
}

static int path_cmp(const void *a, const void *b)
{
	const struct mrc_sweep_path *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* The destinations' records: each host's, in path order, from a cache line of its own,
 * so that a parallel run's workers write none of another's (docs/sweep.md "On the
 * simulator"); rx_slot[] maps a path to its record, rx_at[] and rx_path[] a host's range
 * back to its paths (mrc_sweep_encode). 0 or -ENOMEM. */
static int rx_make(struct mrc_sweep *sw)
{
	size_t *at = calloc(sw->hosts + 1, sizeof(*at)), n = 0;

	sw->rx_slot = calloc(sw->n_paths + 1, sizeof(*sw->rx_slot));
	sw->rx_at = calloc(sw->hosts + 1, sizeof(*sw->rx_at));
	if (!at || !sw->rx_slot || !sw->rx_at) {
		free(at);
		return -ENOMEM;
	}
	for (size_t i = 0; i < sw->n_paths; i++)
		at[sw->paths[i].dst]++;
	for (uint32_t h = 0; h < sw->hosts; h++) { /* counts into each range's start */
		size_t c = at[h];

		at[h] = sw->rx_at[h] = n;
		n += (c + RX_LINE - 1) / RX_LINE * RX_LINE;
	}
	sw->rx_at[sw->hosts] = n;
	sw->rx_path = malloc((n + 1) * sizeof(*sw->rx_path));
	if (!sw->rx_path) {
		free(at);
		return -ENOMEM;
	}
	memset(sw->rx_path, 0xff, (n + 1) * sizeof(*sw->rx_path));
	for (size_t i = 0; i < sw->n_paths; i++) {
		sw->rx_slot[i] = at[sw->paths[i].dst]++;
		sw->rx_path[sw->rx_slot[i]] = (uint32_t)i;
	}
	free(at);
	sw->rx = aligned_alloc(64, (n + RX_LINE) * sizeof(*sw->rx)); /* a multiple of 64 */
	if (!sw->rx)
		return -ENOMEM;
	memset(sw->rx, 0, (n + RX_LINE) * sizeof(*sw->rx));
	return 0;
}

int mrc_sweep_new(const struct conf_job *job, const struct mrc_job_srv6 *m,
	struct mrc_sweep **out, char *err, size_t errlen)
{
	const struct conf_fabric *f = &job->fabric;
	struct mrc_sweep *sw;
	struct evtab t = { 0 };
	int e;

	*out = NULL;
	if (job->mrc.ev_format != CONF_EV_SRV6) {
		snprintf(err, errlen, "mrc.ev_format: an EV names a path only under srv6 "
			"(otherwise the fabric's ECMP hash picks it) '%s'",
			conf_name_of(conf_ev_format_names, job->mrc.ev_format));
		return -EINVAL;
	}
	if (conf_fabric_hosts(f) < 2) {
		snprintf(err, errlen, "fabric: a sweep needs 2 hosts or more '%u'",
			conf_fabric_hosts(f));
		return -EINVAL;
	}
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->p = job->sweep;
	sw->hosts = conf_fabric_hosts(f);
	sw->planes = f->planes;
	sw->t0 = f->t0;
	sw->t1 = f->t1;
	sw->hpt0 = f->hosts_per_t0;
	sw->n_links = (size_t)sw->planes * plane_links(sw);
	sw->interval_ps = PS_PER_S / sw->p.rate;
	e = -ENOMEM;
	sw->link_paths = calloc(sw->n_links, sizeof(*sw->link_paths));
	sw->sh = calloc(sw->hosts, sizeof(*sw->sh));
	if (!sw->link_paths || !sw->sh || evtab_make(m, sw->planes, sw->t1, &t))
		goto fail;
	e = sw->p.cover ? plan_cover(sw, m, job->seed, &t) : plan_all(sw, m, &t, err, errlen);
	if (e) {
		if (e == -ENOMEM)
			snprintf(err, errlen, "sweep plan: out of memory");
		else if (e != -E2BIG)
			snprintf(err, errlen, "sweep plan: %s", strerror(-e));
		goto fail;
	}
	if (sw->n_paths > MRC_SWEEP_MAX_PATHS) {
		snprintf(err, errlen, "sweep.cover: %zu paths, more than %u '%u'",
			sw->n_paths, MRC_SWEEP_MAX_PATHS, sw->p.cover);
		e = -E2BIG;
		goto fail;
	}
	if (sw->n_paths)
		qsort(sw->paths, sw->n_paths, sizeof(*sw->paths), path_cmp);
	e = -ENOMEM;
	sw->ps = calloc(sw->n_paths + 1, sizeof(*sw->ps));
	sw->rtt = calloc(sw->n_paths * sw->p.probes + 1, sizeof(*sw->rtt));
	if (!sw->ps || !sw->rtt || rx_make(sw))
		goto fail;
	for (size_t i = 0, h = 0; h < sw->hosts; h++) {
		struct shost *s = &sw->sh[h];

		s->first = i;
		while (i < sw->n_paths && sw->paths[i].src == h)
			i++;
		s->n = i - s->first;
		s->offset_ps = sw->interval_ps * h / sw->hosts;
		s->fly = calloc(sw->p.outstanding, sizeof(*s->fly));
		if (!s->fly)
			goto fail;
	}
	evtab_free(&t);
	*out = sw;
	return 0;
fail:
	evtab_free(&t);
	mrc_sweep_free(sw);
	return e;
}

void mrc_sweep_free(struct mrc_sweep *sw)
{
	if (!sw)
		return;
	for (uint32_t h = 0; sw->sh && h < sw->hosts; h++)
		free(sw->sh[h].fly);
	free(sw->sh);
	free(sw->paths);
	free(sw->ps);
	free(sw->rtt);
	free(sw->rx);
	free(sw->rx_slot);
	free(sw->rx_at);
	free(sw->rx_path);
	free(sw->link_paths);
	free(sw);
}

size_t mrc_sweep_n_paths(const struct mrc_sweep *sw)
{
	return sw->n_paths;
}

const struct mrc_sweep_path *mrc_sweep_paths(const struct mrc_sweep *sw)
{
	return sw->paths;
}

/* ---- probing ---- */

/* The request in flight of @s that @i names, dropped from the table. */
static void fly_drop(struct shost *s, unsigned i)
{
	s->fly[i] = s->fly[--s->n_fly];
}

uint64_t mrc_sweep_poll(struct mrc_sweep *sw, uint32_t host, uint64_t now_ps,
	struct mrc_sweep_probe *out)
{
	struct shost *s = &sw->sh[host];
	uint64_t next = UINT64_MAX, total = (uint64_t)s->n * sw->p.probes, turn;

	for (unsigned i = 0; i < s->n_fly;) { /* timed out: lost */
		if (s->fly[i].deadline_ps <= now_ps) {
			fly_drop(s, i);
			continue;
		}
		if (s->fly[i].deadline_ps < next)
			next = s->fly[i].deadline_ps;
		i++;
	}
	if (s->next_k >= total || s->cut)
		return next;
	turn = s->offset_ps + s->next_k * sw->interval_ps;
	if (turn >= sw->p.max_time_ps) {
		s->cut = true;
		return next;
	}
	if (turn > now_ps)
		return turn < next ? turn : next;
	if (s->n_fly >= sw->p.outstanding)
		return next; /* an answer or a timeout frees a slot */
	out->path = s->first + s->next_k % s->n;
	out->peer = sw->paths[out->path].dst;
	out->ev = sw->paths[out->path].ev;
	return 0;
}

void mrc_sweep_sent(struct mrc_sweep *sw, uint32_t host, const struct mrc_sweep_probe *pr,
	int req_id, uint64_t now_ps)
{
	struct shost *s = &sw->sh[host];
	struct inflight *f;

	if (req_id == -EBUSY)
		return;
	sw->paths[pr->path].sent++;
	if (req_id >= 0 && s->n_fly < sw->p.outstanding) {
		f = &s->fly[s->n_fly++];
		f->deadline_ps = now_ps + sw->p.timeout_ps + 1;
		f->path = pr->path;
		f->round = (uint32_t)(s->next_k / s->n);
		f->req_id = (uint16_t)req_id;
	}
	s->next_k++;
}

void mrc_sweep_answer(struct mrc_sweep *sw, uint32_t host, uint16_t req_id, uint32_t peer,
	uint32_t ev, uint64_t rtt_ns)
{
	struct shost *s = &sw->sh[host];

	for (unsigned i = 0; i < s->n_fly; i++) {
		struct inflight *f = &s->fly[i];
		struct mrc_sweep_path *q = &sw->paths[f->path];
		struct pstate *st = &sw->ps[f->path];
		uint32_t *r;

		if (f->req_id != req_id || q->dst != peer || q->ev != ev)
			continue;
		q->answered++;
		if (st->hi_round > f->round + 1)
			q->reordered++;
		else
			st->hi_round = f->round + 1;
		r = sw->rtt + f->path * sw->p.probes;
		if (st->n_rtt < sw->p.probes)
			r[st->n_rtt++] = rtt_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt_ns;
		fly_drop(s, i);
		return;
	}
}

/* The plan's path (src, dst, ev), or SIZE_MAX: a binary search in the source's range. */
static size_t path_find(const struct mrc_sweep *sw, uint32_t src, uint32_t dst, uint32_t ev)
{
	size_t lo, hi;

	if (src >= sw->hosts)
		return SIZE_MAX;
	lo = sw->sh[src].first;
	hi = lo + sw->sh[src].n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mrc_sweep_path *q = &sw->paths[mid];

		if (q->dst == dst && q->ev == ev)
			return mid;
		if (q->dst < dst || (q->dst == dst && q->ev < ev))
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

void mrc_sweep_request(struct mrc_sweep *sw, uint32_t host, uint32_t src, uint32_t ev,
	bool ce)
{
	size_t i = path_find(sw, src, host, ev);

	if (i == SIZE_MAX)
		return;
	sw->rx[sw->rx_slot[i]].delivered++;
	sw->rx[sw->rx_slot[i]].ce += ce;
}

bool mrc_sweep_host_done(const struct mrc_sweep *sw, uint32_t host)
{
	const struct shost *s = &sw->sh[host];

	return !s->n_fly && (s->cut || s->next_k >= (uint64_t)s->n * sw->p.probes);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void mrc_sweep_finish(struct mrc_sweep *sw)
{
	static const unsigned pct[MRC_SWEEP_RTT_N] = { 0, 50, 90, 99, 100 };

	for (size_t i = 0; i < sw->n_paths; i++) {
		uint32_t *r = sw->rtt + i * sw->p.probes, n = sw->ps[i].n_rtt;

		sw->paths[i].delivered = sw->rx[sw->rx_slot[i]].delivered;
		sw->paths[i].ce = sw->rx[sw->rx_slot[i]].ce;
		if (!n)
			continue;
		qsort(r, n, sizeof(*r), u32_cmp);
		for (unsigned k = 0; k < MRC_SWEEP_RTT_N; k++) {
			uint64_t rank = ((uint64_t)pct[k] * n + 99) / 100; /* ceil(p n / 100) */

			sw->paths[i].rtt_ns[k] = r[rank ? rank - 1 : 0];
		}
	}
}

uint64_t mrc_sweep_planned(const struct mrc_sweep *sw)
{
	return (uint64_t)sw->n_paths * sw->p.probes;
}

uint64_t mrc_sweep_unsent(const struct mrc_sweep *sw)
{
	uint64_t sent = 0;

	for (size_t i = 0; i < sw->n_paths; i++)
		sent += sw->paths[i].sent;
	return mrc_sweep_planned(sw) - sent;
}

/* ---- the ranks' halves (wire) ---- */

#define TX_REC (4u * (4 + MRC_SWEEP_RTT_N))
#define RX_REC 12u

int mrc_sweep_encode(const struct mrc_sweep *sw, uint32_t host, uint8_t **buf, size_t *len)
{
	size_t n_rx = 0, n_tx = host < sw->hosts ? sw->sh[host].n : 0, o = 0;
	size_t rx0 = host < sw->hosts ? sw->rx_at[host] : 0;
	size_t rx1 = host < sw->hosts ? sw->rx_at[host + 1] : 0;
	uint8_t *b;

	for (size_t s = rx0; s < rx1; s++) /* the host's records, the paths to it in order */
		n_rx += sw->rx_path[s] != UINT32_MAX;
	*len = 12 + n_tx * TX_REC + n_rx * RX_REC;
	b = *buf = malloc(*len);
	if (!b)
		return -ENOMEM;
	put_be32(b, 1);
	put_be32(b + 4, (uint32_t)n_tx);
	o = 8;
	for (size_t i = 0; i < n_tx; i++) {
		size_t k = sw->sh[host].first + i;
		const struct mrc_sweep_path *q = &sw->paths[k];

		put_be32(b + o, (uint32_t)k);
		put_be32(b + o + 4, q->sent);
		put_be32(b + o + 8, q->answered);
		put_be32(b + o + 12, q->reordered);
		for (unsigned r = 0; r < MRC_SWEEP_RTT_N; r++)
			put_be32(b + o + 16 + 4 * r, q->rtt_ns[r]);
		o += TX_REC;
	}
	put_be32(b + o, (uint32_t)n_rx);
	o += 4;
	for (size_t s = rx0; s < rx1; s++) {
		uint32_t i = sw->rx_path[s];

		if (i == UINT32_MAX)
			continue;
		put_be32(b + o, i);
		put_be32(b + o + 4, sw->paths[i].delivered);
		put_be32(b + o + 8, sw->paths[i].ce);
		o += RX_REC;
	}
	return 0;
}

int mrc_sweep_merge(struct mrc_sweep *sw, uint32_t host, const uint8_t *buf, size_t len)
{
	size_t n_tx, n_rx, o;

	/* every record checked before any is applied: a bad body changes nothing */
	for (int apply = 0; apply < 2; apply++) {
		if (len < 12 || get_be32(buf) != 1)
			return -EPROTO;
		n_tx = get_be32(buf + 4);
		if (n_tx > (len - 12) / TX_REC)
			return -EPROTO;
		o = 8 + n_tx * TX_REC;
		n_rx = get_be32(buf + o);
		if (len != 12 + n_tx * TX_REC + n_rx * (uint64_t)RX_REC)
			return -EPROTO;
		for (size_t i = 0; i < n_tx; i++) {
			const uint8_t *r = buf + 8 + i * TX_REC;
			uint32_t k = get_be32(r), sent = get_be32(r + 4), ans = get_be32(r + 8);
			struct mrc_sweep_path *q;

			if (k >= sw->n_paths || sw->paths[k].src != host || sent > sw->p.probes ||
				ans > sent || get_be32(r + 12) > ans)
				return -EPROTO;
			if (!apply)
				continue;
			q = &sw->paths[k];
			q->sent = sent;
			q->answered = ans;
			q->reordered = get_be32(r + 12);
			for (unsigned j = 0; j < MRC_SWEEP_RTT_N; j++)
				q->rtt_ns[j] = get_be32(r + 16 + 4 * j);
		}
		for (size_t i = 0; i < n_rx; i++) {
			const uint8_t *r = buf + o + 4 + i * RX_REC;
			uint32_t k = get_be32(r), del = get_be32(r + 4), ce = get_be32(r + 8);

			if (k >= sw->n_paths || sw->paths[k].dst != host || del > sw->p.probes ||
				ce > del)
				return -EPROTO;
			if (apply) {
				sw->paths[k].delivered = del;
				sw->paths[k].ce = ce;
			}
		}
	}
	return 0;
}
