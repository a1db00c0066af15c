/* SPDX-License-Identifier: BSD-2-Clause */
/* tomo: greedy maximum-likelihood loss tomography over one-way path observations (tomo.h,
 * docs/sweep.md "Inference"). */
#include "mrc/job/tomo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOMO_MAX_NODES 8
#define TOMO_TINY      1e-300
#define TOMO_ROUNDS    256 /* most members tried */

struct tpath {
	uint32_t node[TOMO_MAX_NODES];
	uint32_t hop[TOMO_MAX_NODES - 1]; /* directed link: 2 x link + (from > to, by id) */
	unsigned n;
	uint64_t sent, delivered, answered;
};

/* Observation 2i is path i's requests, 2i + 1 its answers. */
struct obs {
	uint64_t n, d;	      /* probes, survivors */
	uint32_t c0, nc;      /* its candidates: cand_of[c0 .. c0 + nc) */
};

struct mrc_tomo {
	/* nodes: names, a hash of them, and their depth (least distance to a path's end) */
	char **name;
	uint32_t *depth;
	bool *inner;	   /* inside some path: a switch */
	size_t n_nodes, cap_nodes;
	uint32_t *nhash;   /* node + 1, open addressing */
	size_t nhash_cap;
	/* links: (a, b) node pairs with a < b, and a hash of them */
	uint32_t (*link)[2];
	size_t n_links, cap_links;
	uint32_t *lhash;
	size_t lhash_cap;
	struct tpath *paths;
	size_t n_paths, cap_paths;
};

static uint64_t h64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint64_t hstr(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

int mrc_tomo_new(struct mrc_tomo **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void mrc_tomo_free(struct mrc_tomo *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_nodes; i++)
		free(t->name[i]);
	free(t->name);
	free(t->depth);
	free(t->inner);
	free(t->nhash);
	free(t->link);
	free(t->lhash);
	free(t->paths);
	free(t);
}

/* Grows an array of @each-byte items to hold @need. */
static int grow(void **a, size_t *cap, size_t need, size_t each)
{
	void *n;
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*a, c * each);
	if (!n)
		return -ENOMEM;
	*a = n;
	*cap = c;
	return 0;
}

/* Rebuilds a hash of @n entries (index + 1) keyed by @key(i) at twice @n's power of 2. */
static int rehash(uint32_t **tab, size_t *cap, size_t n, uint64_t (*key)(const struct mrc_tomo *,
	size_t), const struct mrc_tomo *t)
{
	size_t c = 64;
	uint32_t *nt;

	while (c < 2 * (n + 1))
		c *= 2;
	if (c <= *cap)
		return 0;
	nt = calloc(c, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = key(t, i) & (c - 1);

		while (nt[j])
			j = (j + 1) & (c - 1);
		nt[j] = (uint32_t)i + 1;
	}
	free(*tab);
	*tab = nt;
	*cap = c;
	return 0;
}

static uint64_t node_key(const struct mrc_tomo *t, size_t i)
{
	return hstr(t->name[i]);
}

static uint64_t link_key(const struct mrc_tomo *t, size_t i)
{
	return h64((uint64_t)t->link[i][0] << 32 | t->link[i][1]);
}

/* The node named @s (made when new): its id, or -ENOMEM. */
static int64_t node_id(struct mrc_tomo *t, const char *s)
{
	size_t j;

	if (t->nhash_cap)
		for (j = hstr(s) & (t->nhash_cap - 1); t->nhash[j];
			j = (j + 1) & (t->nhash_cap - 1))
			if (!strcmp(t->name[t->nhash[j] - 1], s))
				return t->nhash[j] - 1;
	{
		size_t was = t->cap_nodes;

		if (grow((void **)&t->name, &t->cap_nodes, t->n_nodes + 1, sizeof(*t->name)))
			return -ENOMEM;
		if (t->cap_nodes != was) { /* depth and inner follow name's capacity */
			uint32_t *d = realloc(t->depth, t->cap_nodes * sizeof(*d));
			bool *in;

			if (!d)
				return -ENOMEM;
			t->depth = d;
			in = realloc(t->inner, t->cap_nodes * sizeof(*in));
			if (!in)
				return -ENOMEM;
			t->inner = in;
		}
	}
	t->name[t->n_nodes] = strdup(s);
	if (!t->name[t->n_nodes])
		return -ENOMEM;
	t->depth[t->n_nodes] = UINT32_MAX;
	t->inner[t->n_nodes] = false;
	t->n_nodes++;
	if (rehash(&t->nhash, &t->nhash_cap, t->n_nodes, node_key, t) < 0)
		return -ENOMEM;
	if (2 * t->n_nodes <= t->nhash_cap) { /* not rebuilt: insert the new one */
		for (j = hstr(s) & (t->nhash_cap - 1); t->nhash[j]; j = (j + 1) & (t->nhash_cap - 1))
			if (t->nhash[j] == t->n_nodes)
				return (int64_t)t->n_nodes - 1;
		t->nhash[j] = (uint32_t)t->n_nodes;
	}
	return (int64_t)t->n_nodes - 1;
}

/* The directed link from node @a to @b (made when new): 2 x link + (a > b), or -ENOMEM. */
static int64_t hop_id(struct mrc_tomo *t, uint32_t a, uint32_t b)
{
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
	uint64_t k = h64((uint64_t)lo << 32 | hi);
	size_t j;

	if (t->lhash_cap)
		for (j = k & (t->lhash_cap - 1); t->lhash[j]; j = (j + 1) & (t->lhash_cap - 1)) {
			uint32_t l = t->lhash[j] - 1;

			if (t->link[l][0] == lo && t->link[l][1] == hi)
				return 2 * (int64_t)l + (a > b);
		}
	if (grow((void **)&t->link, &t->cap_links, t->n_links + 1, sizeof(*t->link)))
		return -ENOMEM;
	t->link[t->n_links][0] = lo;
	t->link[t->n_links][1] = hi;
	t->n_links++;
	if (rehash(&t->lhash, &t->lhash_cap, t->n_links, link_key, t) < 0)
		return -ENOMEM;
	if (2 * t->n_links <= t->lhash_cap) {
		for (j = k & (t->lhash_cap - 1); t->lhash[j]; j = (j + 1) & (t->lhash_cap - 1))
			if (t->lhash[j] == t->n_links)
				return 2 * ((int64_t)t->n_links - 1) + (a > b);
		t->lhash[j] = (uint32_t)t->n_links;
	}
	return 2 * ((int64_t)t->n_links - 1) + (a > b);
}

int mrc_tomo_path(struct mrc_tomo *t, const char *const *nodes, unsigned n, uint64_t sent,
	uint64_t delivered, uint64_t answered)
{
	struct tpath p = { .n = n };

	if (n < 2 || n > TOMO_MAX_NODES)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		int64_t id;

		if (!nodes[i] || !nodes[i][0])
			return -EINVAL;
		id = node_id(t, nodes[i]);
		if (id < 0)
			return (int)id;
		for (unsigned k = 0; k < i; k++)
			if (p.node[k] == (uint32_t)id)
				return -EINVAL;
		p.node[i] = (uint32_t)id;
	}
	for (unsigned i = 0; i < n; i++) {
		uint32_t d = i < n - 1 - i ? i : n - 1 - i;

		if (d < t->depth[p.node[i]])
			t->depth[p.node[i]] = d;
		if (i && i < n - 1)
			t->inner[p.node[i]] = true;
	}
	for (unsigned i = 0; i + 1 < n; i++) {
		int64_t h = hop_id(t, p.node[i], p.node[i + 1]);

		if (h < 0)
			return (int)h;
		p.hop[i] = (uint32_t)h;
	}
	if (answered > sent)
		answered = sent;
	if (delivered > sent)
		delivered = sent;
	if (delivered < answered)
		delivered = answered;
	p.sent = sent;
	p.delivered = delivered;
	p.answered = answered;
	if (grow((void **)&t->paths, &t->cap_paths, t->n_paths + 1, sizeof(*t->paths)))
		return -ENOMEM;
	t->paths[t->n_paths++] = p;
	return 0;
}

/* ---- the model ---- */

/*
 * Candidates: 3 per link (3l: both directions, 3l + 1 + b: the direction of bit b, from
 * the lower node id when b is 0), then one per node (3L + v; only inner nodes have
 * observations).
 */
struct model {
	const struct mrc_tomo *t;
	struct obs *o;		/* [2 x paths] */
	size_t n_obs;
	uint32_t *cand_of;	/* every observation's candidates */
	size_t n_cands;
	uint32_t *o0, *obs_of;	/* candidate c's observations: obs_of[o0[c] .. o0[c + 1]) */
	bool *in, *banned;
	double *y;		/* members' survival, 1 - loss */
	double *sa;		/* fit's scratch: survival without the candidate, */
	const struct obs **so;	/* and the observation, per observation of it */
};

static double ll_obs(const struct obs *o, double s)
{
	double r = 0;

	if (o->d)
		r += (double)o->d * log(s > TOMO_TINY ? s : TOMO_TINY);
	if (o->n > o->d)
		r += (double)(o->n - o->d) * log(1 - s > TOMO_TINY ? 1 - s : TOMO_TINY);
	return r;
}

/* Survival of observation @j from the background and the members, but those @skip says. */
static double surv(const struct model *m, size_t j, bool (*skip)(const struct model *,
	uint32_t, const void *), const void *arg)
{
	const struct obs *o = &m->o[j];
	double s = 1 - MRC_TOMO_BACKGROUND;

	for (uint32_t k = 0; k < o->nc; k++) {
		uint32_t c = m->cand_of[o->c0 + k];

		if (m->in[c] && !(skip && skip(m, c, arg)))
			s *= m->y[c];
	}
	return s;
}

static bool skip_one(const struct model *m, uint32_t c, const void *arg)
{
	(void)m;
	return c == *(const uint32_t *)arg;
}

/* Same link (or switch) as candidate *arg. */
static bool skip_group(const struct model *m, uint32_t c, const void *arg)
{
	uint32_t g = *(const uint32_t *)arg, L = (uint32_t)m->t->n_links;

	if (g >= 3 * L || c >= 3 * L)
		return c == g;
	return c / 3 == g / 3;
}

/*
 * Best survival y of candidate @c given the others (concave in y: bisection on the
 * derivative D / y - sum l a / (1 - a y), a the observation's survival without @c), and
 * the log-likelihood gain over y = 1.
 */
static double fit(struct model *m, uint32_t c, double *gain)
{
	double D = 0, lo = 0, hi = 1, y, g1 = 0, l_y = 0, l_1 = 0;
	uint32_t a0 = m->o0[c], a1 = m->o0[c + 1], n = 0;

	for (uint32_t k = a0; k < a1; k++) {
		const struct obs *o = &m->o[m->obs_of[k]];
		double a = surv(m, m->obs_of[k], skip_one, &c);

		if (a <= 0 || !o->n)
			continue; /* another member already loses all of it: @c changes nothing */
		D += (double)o->d;
		m->sa[n] = a;
		m->so[n++] = o;
		if (o->n > o->d)
			g1 += (double)(o->n - o->d) * a / (1 - a > TOMO_TINY ? 1 - a : TOMO_TINY);
	}
	if (D >= g1) { /* no loss to explain, or more survivors than y < 1 would keep */
		*gain = 0;
		return 1;
	}
	if (D == 0) {
		y = 0;
	} else {
		for (int it = 0; it < 60; it++) {
			double mid = (lo + hi) / 2, g = D / mid;

			for (uint32_t k = 0; k < n; k++)
				if (m->so[k]->n > m->so[k]->d)
					g -= (double)(m->so[k]->n - m->so[k]->d) * m->sa[k] /
					     (1 - m->sa[k] * mid);
			if (g > 0)
				lo = mid;
			else
				hi = mid;
		}
		y = (lo + hi) / 2;
	}
	for (uint32_t k = 0; k < n; k++) {
		l_y += ll_obs(m->so[k], m->sa[k] * y);
		l_1 += ll_obs(m->so[k], m->sa[k]);
	}
	*gain = l_y - l_1;
	return y;
}

/* Log-likelihood lost without the members @skip(arg) picks, over candidate @c's
 * observations (the group's when @skip is skip_group). */
static double loo(const struct model *m, uint32_t c, bool (*skip)(const struct model *,
	uint32_t, const void *))
{
	uint32_t lo = m->o0[c], hi = m->o0[c + 1];
	double r = 0;

	if (skip == skip_group && c < 3 * m->t->n_links) { /* every observation of the link */
		lo = m->o0[c - c % 3];
		hi = m->o0[c - c % 3 + 1];
	}
	for (uint32_t k = lo; k < hi; k++)
		r += ll_obs(&m->o[m->obs_of[k]], surv(m, m->obs_of[k], NULL, NULL)) -
		     ll_obs(&m->o[m->obs_of[k]], surv(m, m->obs_of[k], skip, &c));
	return r;
}

static void refit(struct model *m)
{
	for (int it = 0; it < 50; it++) {
		double most = 0, g;

		for (uint32_t c = 0; c < m->n_cands; c++) {
			double y;

			if (!m->in[c])
				continue;
			y = fit(m, c, &g);
			if (fabs(y - m->y[c]) > most)
				most = fabs(y - m->y[c]);
			m->y[c] = y;
		}
		if (most < 1e-9)
			break;
	}
}

static int model_build(struct model *m, const struct mrc_tomo *t)
{
	size_t L = t->n_links, total = 0;
	uint32_t *fill;

	m->t = t;
	m->n_cands = 3 * L + t->n_nodes;
	m->n_obs = 2 * t->n_paths;
	m->o = calloc(m->n_obs + 1, sizeof(*m->o));
	m->o0 = calloc(m->n_cands + 2, sizeof(*m->o0));
	m->in = calloc(m->n_cands + 1, sizeof(*m->in));
	m->banned = calloc(m->n_cands + 1, sizeof(*m->banned));
	m->y = calloc(m->n_cands + 1, sizeof(*m->y));
	/* each observation: its hops' 2 candidates each, and its inner nodes */
	for (size_t i = 0; i < t->n_paths; i++)
		total += 2 * (2 * (t->paths[i].n - 1) + t->paths[i].n - 2);
	m->cand_of = calloc(total + 1, sizeof(*m->cand_of));
	m->obs_of = calloc(total + 1, sizeof(*m->obs_of));
	fill = calloc(m->n_cands + 1, sizeof(*fill));
	if (!m->o || !m->o0 || !m->in || !m->banned || !m->y || !m->cand_of || !m->obs_of ||
		!fill) {
		free(fill);
		return -ENOMEM;
	}
	total = 0;
	for (size_t i = 0; i < t->n_paths; i++) {
		const struct tpath *p = &t->paths[i];

		for (int rev = 0; rev < 2; rev++) {
			struct obs *o = &m->o[2 * i + rev];

			o->n = rev ? p->delivered : p->sent;
			o->d = rev ? p->answered : p->delivered;
			o->c0 = (uint32_t)total;
			for (unsigned h = 0; h + 1 < p->n; h++) {
				uint32_t l = p->hop[h] / 2, b = (p->hop[h] & 1) ^ (uint32_t)rev;

				m->cand_of[total++] = 3 * l;
				m->cand_of[total++] = 3 * l + 1 + b;
			}
			for (unsigned v = 1; v + 1 < p->n; v++)
				m->cand_of[total++] = (uint32_t)(3 * L + p->node[v]);
			o->nc = (uint32_t)total - o->c0;
			for (uint32_t k = 0; k < o->nc; k++)
				m->o0[m->cand_of[o->c0 + k] + 1]++;
		}
	}
	for (size_t c = 0; c < m->n_cands; c++)
		m->o0[c + 1] += m->o0[c];
	for (size_t j = 0; j < m->n_obs; j++)
		for (uint32_t k = 0; k < m->o[j].nc; k++) {
			uint32_t c = m->cand_of[m->o[j].c0 + k];

			m->obs_of[m->o0[c] + fill[c]++] = (uint32_t)j;
		}
	free(fill);
	{
		uint32_t most = 1;

		for (size_t c = 0; c < m->n_cands; c++)
			if (m->o0[c + 1] - m->o0[c] > most)
				most = m->o0[c + 1] - m->o0[c];
		m->sa = calloc(most, sizeof(*m->sa));
		m->so = calloc(most, sizeof(*m->so));
		if (!m->sa || !m->so)
			return -ENOMEM;
	}
	return 0;
}

static void model_free(struct model *m)
{
	free(m->o);
	free(m->o0);
	free(m->in);
	free(m->banned);
	free(m->y);
	free(m->cand_of);
	free(m->obs_of);
	free(m->sa);
	free(m->so);
}

/* Greedy: add the best candidate while it gains min_score; refit; prune weak members. */
static void greedy(struct model *m, double min_score)
{
	for (int round = 0; round < TOMO_ROUNDS; round++) {
		double best = 0, by = 1;
		uint32_t bc = UINT32_MAX;

		for (uint32_t c = 0; c < m->n_cands; c++) {
			double g, y;

			if (m->in[c] || m->banned[c] || m->o0[c] == m->o0[c + 1])
				continue;
			y = fit(m, c, &g);
			/* a tie (the same observations) goes to the switch, then to the link in
			 * both directions: candidates come as links' (both, up, down), then
			 * switches, so a later one wins a tie only as a switch */
			if (g > best || (bc != UINT32_MAX && g > 0 && g >= best * (1 - 1e-12) &&
					c >= 3 * m->t->n_links && bc < 3 * m->t->n_links)) {
				best = g;
				by = y;
				bc = c;
			}
		}
		if (bc == UINT32_MAX || best < min_score)
			return;
		m->in[bc] = true;
		m->y[bc] = by;
		refit(m);
		for (;;) { /* members the others now explain leave, weakest first */
			double worst = min_score;
			uint32_t wc = UINT32_MAX;

			for (uint32_t c = 0; c < m->n_cands; c++) {
				double s;

				if (!m->in[c])
					continue;
				s = loo(m, c, skip_one);
				if (s < worst) {
					worst = s;
					wc = c;
				}
			}
			if (wc == UINT32_MAX)
				break;
			m->in[wc] = false;
			m->banned[wc] = true;
			refit(m);
		}
	}
}

/* The name of candidate @c: its switch, or its link lower tier first. */
static void cand_name(const struct model *m, uint32_t c, char *buf, size_t len)
{
	const struct mrc_tomo *t = m->t;
	uint32_t L = (uint32_t)t->n_links, a, b;

	if (c >= 3 * L) {
		snprintf(buf, len, "%s", t->name[c - 3 * L]);
		return;
	}
	a = t->link[c / 3][0];
	b = t->link[c / 3][1];
	if (t->depth[b] < t->depth[a] || (t->depth[a] == t->depth[b] &&
		strcmp(t->name[b], t->name[a]) < 0)) {
		uint32_t x = a;

		a = b;
		b = x;
	}
	snprintf(buf, len, "%s-%s", t->name[a], t->name[b]);
}

/* Lists in @s the candidates of @g's kind (a link both ways or a switch; a direction) whose
 * observations are exactly obs_of[lo .. hi). */
static void alike_fill(const struct model *m, uint32_t g, uint32_t lo, uint32_t hi,
	struct mrc_tomo_suspect *s)
{
	uint32_t L = (uint32_t)m->t->n_links;
	bool dir = g < 3 * L && lo != m->o0[g - g % 3];

	for (uint32_t c = 0; c < m->n_cands && s->n_alike < MRC_TOMO_ALIKE; c++) {
		bool cdir = c < 3 * L && c % 3 != 0;

		if (cdir != dir || (g < 3 * L ? c / 3 == g / 3 : c == g) ||
			m->o0[c + 1] - m->o0[c] != hi - lo ||
			memcmp(&m->obs_of[m->o0[c]], &m->obs_of[lo], (hi - lo) * sizeof(uint32_t)))
			continue;
		cand_name(m, c, s->alike[s->n_alike++], sizeof(s->alike[0]));
	}
}

/* Fills suspect @s of group @g (a link's candidates, or a switch) from the model. */
static void suspect_fill(const struct model *m, uint32_t g, struct mrc_tomo_suspect *s)
{
	const struct mrc_tomo *t = m->t;
	uint32_t L = (uint32_t)t->n_links, lo, hi;
	bool *seen = NULL;

	memset(s, 0, sizeof(*s));
	s->score = loo(m, g, skip_group);
	if (g >= 3 * L) {
		s->is_switch = true;
		snprintf(s->name, sizeof(s->name), "%s", t->name[g - 3 * L]);
		s->loss = 1 - m->y[g];
		lo = m->o0[g];
		hi = m->o0[g + 1];
	} else {
		uint32_t l = g / 3, a = t->link[l][0], b = t->link[l][1];
		double yb = m->in[3 * l] ? m->y[3 * l] : 1;
		double l0 = 1 - yb * (m->in[3 * l + 1] ? m->y[3 * l + 1] : 1); /* a -> b */
		double l1 = 1 - yb * (m->in[3 * l + 2] ? m->y[3 * l + 2] : 1); /* b -> a */
		bool first_a = t->depth[a] < t->depth[b] || (t->depth[a] == t->depth[b] &&
			strcmp(t->name[a], t->name[b]) < 0);
		int one = m->in[3 * l] || m->in[3 * l + 1] == m->in[3 * l + 2] ? -1 :
			  m->in[3 * l + 1] ? 0 : 1; /* the one bad direction by bit */

		snprintf(s->name, sizeof(s->name), "%s-%s", t->name[first_a ? a : b],
			t->name[first_a ? b : a]);
		if (one < 0) {
			s->dir = MRC_TOMO_BOTH;
			s->loss = (l0 + l1) / 2;
			lo = m->o0[3 * l];
			hi = m->o0[3 * l + 1];
		} else {
			s->dir = (one == 0) == first_a ? MRC_TOMO_FORWARD : MRC_TOMO_REVERSE;
			s->loss = one ? l1 : l0;
			lo = m->o0[3 * l + 1 + (uint32_t)one];
			hi = m->o0[3 * l + 2 + (uint32_t)one];
		}
	}
	alike_fill(m, g, lo, hi, s);
	seen = calloc(t->n_paths + 1, sizeof(*seen));
	for (uint32_t k = lo; k < hi; k++) {
		const struct obs *o = &m->o[m->obs_of[k]];
		uint32_t p = m->obs_of[k] / 2;

		s->sent += o->n;
		s->lost += o->n - o->d;
		if (o->n == o->d || !seen || seen[p])
			continue;
		seen[p] = true;
	}
	for (size_t p = 0; seen && p < t->n_paths; p++) {
		if (!seen[p])
			continue;
		if (s->n_paths < MRC_TOMO_EVIDENCE)
			s->paths[s->n_paths++] = (uint32_t)p;
		s->n_lossy++;
	}
	free(seen);
}

static int sus_cmp(const void *a, const void *b)
{
	const struct mrc_tomo_suspect *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return strcmp(x->name, y->name);
}

int mrc_tomo_run(struct mrc_tomo *t, double min_score, struct mrc_tomo_suspect **out,
	size_t *n)
{
	struct model m = { 0 };
	struct mrc_tomo_suspect *s = NULL;
	uint32_t L = (uint32_t)t->n_links;
	size_t k = 0;
	int e = model_build(&m, t);

	*out = NULL;
	*n = 0;
	if (e)
		goto done;
	greedy(&m, min_score);
	e = -ENOMEM;
	s = calloc(m.n_cands + 1, sizeof(*s));
	if (!s)
		goto done;
	for (uint32_t c = 0; c < m.n_cands; c++) {
		if (!m.in[c])
			continue;
		/* a link's members make one suspect: at its first member */
		if (c < 3 * L && ((c % 3 >= 1 && m.in[c - c % 3]) || (c % 3 == 2 && m.in[c - 1])))
			continue;
		suspect_fill(&m, c, &s[k++]);
	}
	qsort(s, k, sizeof(*s), sus_cmp);
	*out = s;
	*n = k;
	s = NULL;
	e = 0;
done:
	free(s);
	model_free(&m);
	return e;
}
