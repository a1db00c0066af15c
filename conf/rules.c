/* SPDX-License-Identifier: BSD-2-Clause */
/* conf/rules: cross-field rules of each section (fabric, addressing, EV, traffic, faults, captures,
 * output, histograms). */
#include "conf/conf.h"
#include "conf/conf_int.h"
#include "conf/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- cross-field rules ---------------------------------------------------------------- */

/* Where to point an error about @key of @map: the value, else the mapping itself. */
static const struct tnode *at(const struct tnode *map, const char *key)
{
	const struct tnode *v = conf_tget(map, key);

	return v ? v : map;
}

/* A size for messages: conf_fmt_size() with a "B" on bare byte counts ("1B", "4KiB"). */
static char *fmt_bytes(uint64_t v, char *buf, size_t len)
{
	size_t n = strlen(conf_fmt_size(v, buf, len));

	if (n && n + 1 < len && buf[n - 1] >= '0' && buf[n - 1] <= '9')
		strcpy(buf + n, "B");
	return buf;
}

/* The key of @keys (NULL-terminated) first given in @map, else the last one. */
static const char *given(const struct tnode *map, const char *const *keys)
{
	size_t i = 0;

	for (; keys[i + 1]; i++)
		if (conf_tget(map, keys[i]))
			break;
	return keys[i];
}

static int check_pfc_buffer(struct ld *ld, const struct tnode *map, struct conf_fabric *f,
	const char *path);

/*
 * ECN marking between ecn_kmin and ecn_kmax (each defaulting to ecn_threshold: the step)
 * and PFC (docs/pfc.md): kmin <= kmax <= buffer; xon <= xoff; with PFC on, xoff and
 * xoff + a given headroom within the buffer (the rule's headroom is mrc/job's check), and
 * no trimming, which would cut the packets of the class PFC keeps whole.
 */
static int check_ecn_pfc(struct ld *ld, const struct tnode *map, struct conf_fabric *f,
	const char *path)
{
	const struct tnode *pm = conf_tget(map, "pfc");
	const struct conf_pfc *pf = &f->pfc;
	char sub[CONF_PATH_MAX], pp[CONF_PATH_MAX], a[24], b[24];

	if (!f->has_ecn_kmin)
		f->ecn_kmin_bytes = f->ecn_threshold_bytes;
	if (!f->has_ecn_kmax)
		f->ecn_kmax_bytes = f->ecn_threshold_bytes;
	if (f->ecn_kmin_bytes > f->ecn_kmax_bytes) {
		bool kmin = f->has_ecn_kmin;

		conf_path_key(sub, path, kmin ? "ecn_kmin" : "ecn_kmax");
		return TERR(ld, at(map, kmin ? "ecn_kmin" : "ecn_kmax"), sub,
			"%s ecn_%s (%s%s) '%s'", kmin ? "above" : "below", kmin ? "kmax" : "kmin",
			fmt_bytes(kmin ? f->ecn_kmax_bytes : f->ecn_kmin_bytes, a, sizeof(a)),
			(kmin ? f->has_ecn_kmax : f->has_ecn_kmin) ? "" : ", from ecn_threshold",
			fmt_bytes(kmin ? f->ecn_kmin_bytes : f->ecn_kmax_bytes, b, sizeof(b)));
	}
	if (f->has_ecn_kmax && f->ecn_kmax_bytes > f->buffer_bytes) {
		conf_path_key(sub, path, "ecn_kmax");
		return TERR(ld, at(map, "ecn_kmax"), sub, "above the buffer (%s) '%s'",
			fmt_bytes(f->buffer_bytes, a, sizeof(a)),
			fmt_bytes(f->ecn_kmax_bytes, b, sizeof(b)));
	}
	conf_path_key(pp, path, "pfc");
	if (pf->xon_bytes > pf->xoff_bytes) {
		bool xon = (pm && conf_tget(pm, "xon")) || !(pm && conf_tget(pm, "xoff"));

		conf_path_key(sub, pp, xon ? "xon" : "xoff");
		return TERR(ld, pm ? at(pm, xon ? "xon" : "xoff") : map, sub, "%s xo%s (%s) '%s'",
			xon ? "above" : "below", xon ? "ff" : "n",
			fmt_bytes(xon ? pf->xoff_bytes : pf->xon_bytes, a, sizeof(a)),
			fmt_bytes(xon ? pf->xon_bytes : pf->xoff_bytes, b, sizeof(b)));
	}
	if (!pf->enabled)
		return 0;
	/* a trim left to its default is the job rule's (conf_check_job): off under roce */
	if (f->trim && conf_tget(map, "trim")) {
		conf_path_key(sub, path, "trim");
		return TERR(ld, conf_tget(map, "trim"), sub, "trimming cuts the data packets that "
			"PFC (fabric.pfc.enabled) keeps whole: set one of them false 'true'");
	}
	return check_pfc_buffer(ld, map, f, path);
}

/* With PFC on: xoff, and xoff + a given headroom, within the buffer (check_ecn_pfc). */
static int check_pfc_buffer(struct ld *ld, const struct tnode *map, struct conf_fabric *f,
	const char *path)
{
	const struct tnode *pm = map ? conf_tget(map, "pfc") : NULL;
	const struct conf_pfc *pf = &f->pfc;
	char sub[CONF_PATH_MAX], pp[CONF_PATH_MAX], a[24], b[24];

	conf_path_key(pp, path, "pfc");
	if (pf->xoff_bytes > f->buffer_bytes) {
		conf_path_key(sub, pp, "xoff");
		return TERR(ld, pm ? at(pm, "xoff") : map, sub, "above the buffer (%s) '%s'",
			fmt_bytes(f->buffer_bytes, a, sizeof(a)),
			fmt_bytes(pf->xoff_bytes, b, sizeof(b)));
	}
	if (pf->xoff_bytes + pf->headroom_bytes > f->buffer_bytes) {
		char c[24];

		conf_path_key(sub, pp, "headroom");
		return TERR(ld, pm ? at(pm, "headroom") : map, sub, "with xoff (%s) above the "
			"buffer (%s) '%s'", fmt_bytes(pf->xoff_bytes, a, sizeof(a)),
			fmt_bytes(f->buffer_bytes, b, sizeof(b)),
			fmt_bytes(pf->headroom_bytes, c, sizeof(c)));
	}
	return 0;
}

int conf_check_fabric(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	static const char *const hk[] = { "hosts_per_t0", "t0", NULL };
	struct conf_fabric *f = obj;
	char sub[CONF_PATH_MAX], a[24], b[24];
	/* srv6 plan (docs/wire-format.md "SRv6 uSID addressing", mrc/engine/srv6.h): the generated
	 * plan numbers nodes 1..2^(14 - b) - 1 per role and plane for b = usid_plane_bits (0 ends a
	 * container): 1023 with docs/wire-format.md's b = 4; an explicit plan takes any 16-bit
	 * uSIDs */
	bool gen = f->addressing.plan == CONF_PLAN_GENERATED;
	bool seq = f->addressing.plan == CONF_PLAN_SEQUENTIAL;
	unsigned pb = f->addressing.usid_plane_bits;
	/* an explicit plan is bounded by its list: every node once, uSIDs unique (per plane
	 * with usid_plane_bits 0) in 16 bits, which the addressing section checks; a
	 * sequential one numbers hosts, T0 and T1 of a plane from 1 to 65535 */
	uint32_t hlim = gen ? (1u << (14 - pb)) - 1 : seq ? 65535u - f->t0 - f->t1 : UINT32_MAX;
	uint32_t lim = hlim < 1024 ? hlim : 1024;
	char why[160] = "";

	if (gen)
		snprintf(why, sizeof(why), " (plan generated with usid_plane_bits %u: at most %"
			PRIu32 " per role and plane%s)", pb, hlim, pb ? "; fabric.addressing."
			"usid_plane_bits 0 allows 16383" : "; fabric.addressing.plan sequential: "
			"65535 nodes a plane");
	else if (seq)
		snprintf(why, sizeof(why), " (plan sequential: hosts + t0 + t1 at most 65535 a "
			"plane)");
	if (f->t0 > lim || f->t1 > lim) {
		const char *k = f->t0 > lim ? "t0" : "t1";

		conf_path_key(sub, path, k);
		return TERR(ld, at(map, k), sub, "out of range 1..%" PRIu32 "%s '%" PRIu32 "'", lim,
			why, f->t0 > lim ? f->t0 : f->t1);
	}
	if (conf_fabric_hosts(f) > hlim) {
		const char *k = given(map, hk);

		conf_path_key(sub, path, k);
		return TERR(ld, at(map, k), sub, "t0 * hosts_per_t0 exceeds %" PRIu32 " hosts%s '%"
			PRIu32 "'", hlim, why, conf_fabric_hosts(f));
	}
	if (f->ecn_threshold_bytes > f->buffer_bytes) {
		/* blame the field that was written: a defaulted one is not where the error is */
		if (conf_tget(map, "ecn_threshold") || !conf_tget(map, "buffer")) {
			conf_path_key(sub, path, "ecn_threshold");
			return TERR(ld, at(map, "ecn_threshold"), sub, "above the buffer (%s) '%s'",
				fmt_bytes(f->buffer_bytes, a, sizeof(a)),
				fmt_bytes(f->ecn_threshold_bytes, b, sizeof(b)));
		}
		conf_path_key(sub, path, "buffer");
		return TERR(ld, conf_tget(map, "buffer"), sub, "below the ecn_threshold (%s) '%s'",
			fmt_bytes(f->ecn_threshold_bytes, a, sizeof(a)),
			fmt_bytes(f->buffer_bytes, b, sizeof(b)));
	}
	return check_ecn_pfc(ld, map, f, path);
}

/*
 * mrc: the congestion control follows the transport unless given (dcqcn with roce, nscc
 * with mrc); dcqcn needs the RoCE transport, whose responders send its CNPs; its rates fit
 * the link (a RoCE QP has one port of fabric.link_rate).
 */
int conf_check_mrc(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_mrc *m = obj;
	const struct conf_dcqcn *d = &m->cc.dcqcn;
	const struct tnode *cc = conf_tget(map, "cc"), *dq;
	uint64_t line = ld->job->fabric.link_rate_bps;
	uint64_t max = d->rpg_max_rate_bps ? d->rpg_max_rate_bps : line;
	char ccp[CONF_PATH_MAX], dqp[CONF_PATH_MAX], sub[CONF_PATH_MAX], a[24], b[24];
	const char *k = NULL, *what = "";
	uint64_t v = 0, lim = 0;

	conf_path_key(ccp, path, "cc");
	if (!cc || !conf_tget(cc, "algorithm"))
		m->cc.algorithm =
			m->transport == CONF_TRANSPORT_ROCE ? CONF_CC_DCQCN : CONF_CC_NSCC;
	else if (m->cc.algorithm == CONF_CC_DCQCN && m->transport != CONF_TRANSPORT_ROCE) {
		conf_path_key(sub, ccp, "algorithm");
		return TERR(ld, conf_tget(cc, "algorithm"), sub,
			"needs mrc.transport roce (DCQCN's CNPs come from RoCE responders) "
			"'dcqcn'");
	}
	if (m->cc.algorithm != CONF_CC_DCQCN)
		return 0;
	dq = cc ? conf_tget(cc, "dcqcn") : NULL;
	conf_path_key(dqp, ccp, "dcqcn");
	if (d->rpg_max_rate_bps > line) {
		k = "rpg_max_rate", v = d->rpg_max_rate_bps, lim = line;
		what = "above fabric.link_rate";
	} else if (d->rpg_min_rate_bps > max) {
		k = "rpg_min_rate", v = d->rpg_min_rate_bps, lim = max;
		what = d->rpg_max_rate_bps ? "above rpg_max_rate" : "above fabric.link_rate";
	} else if (d->rate_to_set_on_first_cnp_bps > max) {
		k = "rate_to_set_on_first_cnp", v = d->rate_to_set_on_first_cnp_bps, lim = max;
		what = d->rpg_max_rate_bps ? "above rpg_max_rate" : "above fabric.link_rate";
	}
	if (!k)
		return 0;
	conf_path_key(sub, dqp, k);
	return TERR(ld, dq && conf_tget(dq, k) ? conf_tget(dq, k) : dq ? dq : cc ? cc : map, sub,
		"%s (%s) '%s'", what, conf_fmt_rate(lim, a, sizeof(a)),
		conf_fmt_rate(v, b, sizeof(b)));
}

int conf_check_usid(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_usid_entry *u = obj;

	if (!u->node)
		return TERR(ld, map, path, "missing 'node'");
	if (!conf_tget(map, "usid"))
		return TERR(ld, map, path, "missing 'usid'");
	return 0;
}

/* Dense index of a switch or host port for the coverage check of an explicit plan. */
static long usid_slot(const struct conf_fabric *f, const struct conf_node *n)
{
	long per_plane = (long)f->t0 + f->t1 + conf_fabric_hosts(f);
	long base = (long)n->plane * per_plane;

	switch (n->kind) {
	case CONF_NODE_T0: return base + n->t0;
	case CONF_NODE_T1: return base + f->t0 + n->t1;
	case CONF_NODE_PORT: return base + f->t0 + f->t1 + n->host;
	default: return -1;
	}
}

int conf_check_addressing(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_addressing *a = obj;
	const struct conf_fabric *f = &ld->job->fabric;
	const struct tnode *list = conf_tget(map, "usids");
	long total = (long)f->planes * ((long)f->t0 + f->t1 + conf_fabric_hosts(f));
	char sub[CONF_PATH_MAX], nb[48];
	uint8_t *seen = NULL, *used = NULL;
	/* usid_plane_bits 0: a uSID space per plane, plane p under block + p (mrc/engine/srv6.h) */
	bool per_plane = a->usid_plane_bits == 0;
	int err = 0;

	if (per_plane && (uint64_t)a->block + f->planes - 1 > UINT32_MAX) {
		conf_path_key(sub, path, "block");
		return TERR(ld, at(map, "block"), sub, "plane %" PRIu32 "'s block (block + plane, "
			"usid_plane_bits 0) passes 32 bits '%x:%x::'", f->planes - 1,
			a->block >> 16, a->block & 0xffff);
	}
	if (a->plan == CONF_PLAN_SEQUENTIAL && !a->has_usid_plane_bits)
		a->usid_plane_bits = 0; /* its only value: each plane under its own block */
	if (a->plan == CONF_PLAN_SEQUENTIAL && a->usid_plane_bits) {
		conf_path_key(sub, path, "usid_plane_bits");
		return TERR(ld, at(map, "usid_plane_bits"), sub, "plan 'sequential' numbers each "
			"plane under its own block: only 0 applies '%u'",
			(unsigned)a->usid_plane_bits);
	}
	if (a->plan != CONF_PLAN_EXPLICIT) {
		if (a->n_usids) {
			conf_path_key(sub, path, "usids");
			return TERR(ld, list, sub, "given but plan is '%s'",
				conf_name_of(conf_plan_names, (int)a->plan));
		}
		if (a->usid_plane_bits && f->planes > (1u << a->usid_plane_bits)) {
			conf_path_key(sub, path, "usid_plane_bits");
			return TERR(ld, at(map, "usid_plane_bits"), sub, "%" PRIu32 " planes "
				"do not fit %u plane bits (0 puts the plane in the block) '%u'",
				f->planes, (unsigned)a->usid_plane_bits,
				(unsigned)a->usid_plane_bits);
		}
		return 0;
	}
	if (a->has_usid_plane_bits && !per_plane) {
		conf_path_key(sub, path, "usid_plane_bits");
		return TERR(ld, at(map, "usid_plane_bits"), sub, "with plan 'explicit' only 0 "
			"(uSIDs unique per plane, plane p under block + p) applies '%u'",
			(unsigned)a->usid_plane_bits);
	}
	if (a->n_usids == 0) {
		conf_path_key(sub, path, "usids");
		return TERR(ld, at(map, "plan"), sub, "plan 'explicit' needs the usids list");
	}
	seen = calloc((size_t)total, 1);
	used = calloc(per_plane ? (size_t)f->planes << 16 : 65536, 1); /* [space << 16 | uSID] */
	if (!seen || !used) {
		err = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < a->n_usids; i++) {
		struct conf_usid_entry *u = &a->usids[i];
		long slot = usid_slot(f, &u->n);
		size_t uk;
		const struct tnode *it = list->items[i];

		conf_path_key(sub, path, "usids");
		conf_path_idx(sub, sub, i);
		if (slot < 0) {
			err = TERR(ld, at(it, "node"), sub,
				"node must be a switch or a host port '%s'", u->node);
			goto out_free;
		}
		if (seen[slot]) {
			err = TERR(ld, at(it, "node"), sub, "node given twice '%s'", u->node);
			goto out_free;
		}
		uk = (per_plane ? (size_t)u->n.plane << 16 : 0) | u->usid;
		if (used[uk]) {
			err = TERR(ld, at(it, "usid"), sub, "uSID used twice%s '%u'",
				per_plane ? " in its plane" : "", (unsigned)u->usid);
			goto out_free;
		}
		seen[slot] = 1;
		used[uk] = 1;
	}
	for (long s = 0; s < total; s++) {
		if (!seen[s]) {
			long per = (long)f->t0 + f->t1 + conf_fabric_hosts(f), r = s % per;
			struct conf_node n = { .plane = (uint32_t)(s / per) };

			if (r < f->t0) {
				n.kind = CONF_NODE_T0;
				n.t0 = (uint32_t)r;
			} else if (r < (long)f->t0 + f->t1) {
				n.kind = CONF_NODE_T1;
				n.t1 = (uint32_t)(r - f->t0);
			} else {
				n.kind = CONF_NODE_PORT;
				n.host = (uint32_t)(r - f->t0 - f->t1);
			}
			conf_path_key(sub, path, "usids");
			err = TERR(ld, list, sub, "no uSID for '%s'",
				conf_node_format(&n, nb, sizeof(nb)));
			goto out_free;
		}
	}
out_free:
	free(seen);
	free(used);
	return err;
}

int conf_check_rule(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_ev_rule *r = obj;
	/* Field widths of the EV layout plane(4) | spine(12) | salt(16), docs/wire-format.md. */
	uint32_t width = strstr(path, "plane") ? 0xf : strstr(path, "spine") ? 0xfff : 0xffff;
	char sub[CONF_PATH_MAX];
	const char *bad = NULL;

	if (r->mask > width)
		bad = "mask";
	else if (r->max > width)
		bad = "max";
	if (bad) {
		conf_path_key(sub, path, bad);
		return TERR(ld, at(map, bad), sub, "wider than the field (max 0x%" PRIx32 ") '%s'",
			width, at(map, bad)->s ? at(map, bad)->s : "");
	}
	if (r->min > r->max) {
		conf_path_key(sub, path, "min");
		return TERR(ld, at(map, "min"), sub, "above max %" PRIu32 " '%" PRIu32 "'", r->max,
			r->min);
	}
	if (r->init < r->min || r->init > r->max) {
		conf_path_key(sub, path, "init");
		return TERR(ld, at(map, "init"), sub, "outside min..max %" PRIu32 "..%" PRIu32
			" '%" PRIu32 "'", r->min, r->max, r->init);
	}
	return 0;
}

int conf_check_ev(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_ev *e = obj;
	char sub[CONF_PATH_MAX];

	if (e->n_evs) {
		if (conf_tget(map, "ev_count") && e->ev_count != e->n_evs) {
			conf_path_key(sub, path, "ev_count");
			return TERR(ld, conf_tget(map, "ev_count"), sub,
				"differs from the %zu entries of evs '%" PRIu32 "'", e->n_evs,
				e->ev_count);
		}
		if (e->n_evs > 65536) {
			conf_path_key(sub, path, "evs");
			return TERR(ld, conf_tget(map, "evs"), sub, "more than 65536 entries");
		}
		e->ev_count = (uint32_t)e->n_evs;
	}
	if (e->ev_min_active > e->ev_count) {
		conf_path_key(sub, path, "ev_min_active");
		return TERR(ld, at(map, "ev_min_active"), sub,
			"above ev_count %" PRIu32 " '%" PRIu32 "'", e->ev_count, e->ev_min_active);
	}
	return 0;
}

/*
 * The collective's program (mrc/coll) and its QPs grow with ranks^2 for a ring all-reduce
 * (2 (ranks - 1) steps a rank, ~120 bytes each) and an all-to-all (ranks - 1 QPs a rank,
 * ~2.5 KB each): past these bounds (8 GB, 10 GB) a job would exhaust memory while it is
 * being set up, so it is refused here, naming what to lower.
 */
#define PROGRAM_STEPS_MAX (1ull << 26)
#define PROGRAM_QPS_MAX (1ull << 22)

static bool program_too_big(struct ld *ld, const struct tnode *map, const char *path,
	const struct conf_traffic *t, uint64_t ranks)
{
	char sub[CONF_PATH_MAX];
	uint64_t n;

	conf_path_key(sub, path, "pattern");
	if (t->pattern == CONF_PAT_ALLREDUCE && t->algorithm == CONF_ALG_RING) {
		n = 2 * ranks * (ranks - 1);
		if (n > PROGRAM_STEPS_MAX) {
			TERR(ld, at(map, "pattern"), sub, "a ring all-reduce over %" PRIu64
				" ranks is %" PRIu64 " steps (2 x ranks x (ranks - 1)), more than "
				"%llu: lower traffic.ranks (at most 5793) or use algorithm tree "
				"'allreduce'", ranks, n, PROGRAM_STEPS_MAX);
			return true;
		}
	}
	if (t->pattern == CONF_PAT_ALLTOALL) {
		n = ranks * (ranks - 1);
		if (n > PROGRAM_QPS_MAX) {
			TERR(ld, at(map, "pattern"), sub,
				"an all-to-all over %" PRIu64 " ranks "
				"needs %" PRIu64 " QPs (ranks x (ranks - 1)), more than %llu: "
				"lower traffic.ranks (at most 2048) 'alltoall'",
				ranks, n, PROGRAM_QPS_MAX);
			return true;
		}
	}
	return false;
}

/* The patterns with a root (traffic.root); with traffic.hosts, only theirs must be in it. */
static bool rooted(enum conf_pattern p)
{
	return p == CONF_PAT_INCAST || p == CONF_PAT_BROADCAST || p == CONF_PAT_REDUCE ||
	       p == CONF_PAT_GATHER || p == CONF_PAT_SCATTER;
}

/* True when host @h is in set @set (a valid traffic.hosts). */
static bool host_in_set(const struct conf_fabric *f, const char *set, uint32_t h)
{
	uint32_t *v = malloc(conf_fabric_hosts(f) * sizeof(*v));
	long n = v ? conf_hosts_expand(f, set, v, conf_fabric_hosts(f), NULL) : -1;
	bool in = false;

	for (long i = 0; i < n && !in; i++)
		in = v[i] == h;
	free(v);
	return in;
}

/*
 * The algorithm of @pat: its default into *@alg when not @given, then whether *@alg
 * belongs to it — NCCL's ring and tree for all-reduce, broadcast, reduce; parallel and
 * shift for the all-to-alls; ring for all-gather and reduce-scatter; direct for the rest.
 */
static bool algorithm_rule(enum conf_pattern pat, bool given, enum conf_algorithm *alg)
{
	bool rt = pat == CONF_PAT_ALLREDUCE || pat == CONF_PAT_BROADCAST || pat == CONF_PAT_REDUCE;
	bool ps = pat == CONF_PAT_ALLTOALL || pat == CONF_PAT_ALLTOALLV;
	bool ring = pat == CONF_PAT_ALLGATHER || pat == CONF_PAT_REDUCESCATTER;
	bool ok;

	if (!given)
		*alg = rt || ring ? CONF_ALG_RING : ps ? CONF_ALG_PARALLEL : CONF_ALG_DIRECT;
	switch ((int)(rt ? 1 : ps ? 2 : ring ? 3 : 0)) {
	case 1: /* NCCL's ring and tree */
		ok = *alg == CONF_ALG_RING || *alg == CONF_ALG_TREE;
		break;
	case 2:
		ok = *alg == CONF_ALG_PARALLEL || *alg == CONF_ALG_SHIFT;
		break;
	case 3: /* NCCL runs all-gather and reduce-scatter on rings */
		ok = *alg == CONF_ALG_RING;
		break;
	default:
		ok = *alg == CONF_ALG_DIRECT;
		break;
	}
	return ok;
}

int conf_check_phase(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_phase *p = obj;
	char sub[CONF_PATH_MAX];

	if (p->has_pattern == p->has_gap)
		return TERR(ld, map, path, "a phase is a collective (pattern, size) or a compute "
			"gap (gap): %s", p->has_gap ? "both given" : "neither given");
	if (p->transpose && (p->has_gap || p->pattern != CONF_PAT_ALLTOALLV)) {
		conf_path_key(sub, path, "transpose");
		return TERR(ld, at(map, "transpose"), sub, "only an alltoallv phase is transposed "
			"'true'");
	}
	if (p->has_gap && (p->has_size || p->has_algorithm)) {
		conf_path_key(sub, path, p->has_size ? "size" : "algorithm");
		return TERR(ld, at(map, p->has_size ? "size" : "algorithm"), sub,
			"a gap phase has its gap alone '%s'", conf_tget(map, p->has_size ? "size" :
				"algorithm")->s);
	}
	if (p->has_gap)
		return 0;
	conf_path_key(sub, path, "pattern");
	if (p->pattern == CONF_PAT_WRITE_BW || p->pattern == CONF_PAT_WRITE_LAT)
		return TERR(ld, at(map, "pattern"), sub, "a phase is a collective, not perftest's "
			"'%s'", conf_name_of(conf_pattern_names, (int)p->pattern));
	if (!p->has_size) {
		conf_path_key(sub, path, "size");
		return TERR(ld, map, sub, "a collective phase needs its size");
	}
	if (!algorithm_rule(p->pattern, p->has_algorithm, &p->algorithm)) {
		conf_path_key(sub, path, "algorithm");
		return TERR(ld, at(map, "algorithm"), sub, "does not apply to pattern %s '%s'",
			conf_name_of(conf_pattern_names, (int)p->pattern),
			conf_name_of(conf_algorithm_names, (int)p->algorithm));
	}
	return 0;
}

/* traffic.phases against the job's dtype: every collective phase's size a multiple of it,
 * at least one collective (the job's sizes are not read: a dump writes them). */
static int check_phases(struct ld *ld, const struct tnode *map, const char *path,
	const struct conf_traffic *t)
{
	const struct tnode *pl = at(map, "phases");
	unsigned esz = conf_dtype_size(t->dtype);
	char sub[CONF_PATH_MAX], a[24];
	bool coll = false;

	for (size_t i = 0; i < t->n_phases; i++) {
		const struct conf_phase *p = &t->phases[i];
		const struct tnode *pn = pl->kind == T_SEQ && i < pl->n ? pl->items[i] : pl;

		coll |= !p->has_gap;
		if (p->has_gap || p->size % esz == 0)
			continue;
		conf_path_key(sub, path, "phases");
		conf_path_idx(sub, sub, i);
		conf_path_key(sub, sub, "size");
		return TERR(ld, at(pn, "size"), sub, "not a multiple of the %u-byte %s '%s'", esz,
			conf_name_of(conf_dtype_names, (int)t->dtype),
			fmt_bytes(p->size, a, sizeof(a)));
	}
	conf_path_key(sub, path, "phases");
	if (t->n_phases && !coll)
		return TERR(ld, pl, sub, "gaps alone: at least one phase is a collective");
	return 0;
}

/* A background job (docs/config.md "Background"): a rate, one message size (64 KiB unless
 * written), no phases; rate and mode belong to it alone. */
static int check_background(struct ld *ld, const struct tnode *map, const char *path,
	struct conf_traffic *t)
{
	const char *k = t->rate_bps ? "rate" : "mode";
	char sub[CONF_PATH_MAX];
	unsigned __int128 nic;

	if (t->pattern != CONF_PAT_BACKGROUND) {
		conf_path_key(sub, path, k);
		return TERR(ld, at(map, k), sub, "only pattern background takes a %s '%s'", k,
			conf_tget(map, k)->s);
	}
	conf_path_key(sub, path, "rate");
	if (!t->rate_bps)
		return TERR(ld, at(map, "rate"), sub, "a background job needs its rate per host "
			"(bits a second, e.g. 20Gbps)");
	nic = (unsigned __int128)ld->job->fabric.planes * ld->job->fabric.link_rate_bps;
	if (ld->job->fabric.driver == CONF_DRIVER_SIM && t->rate_bps > nic) {
		char a[24], b[24];

		return TERR(ld, at(map, "rate"), sub, "above what a host's NIC sends, fabric.planes "
			"x link_rate = %s: the send queues would refuse all but that, at the cost "
			"of an event a message '%s'", conf_fmt_rate(nic > UINT64_MAX ? UINT64_MAX :
			(uint64_t)nic, a, sizeof(a)), conf_fmt_rate(t->rate_bps, b, sizeof(b)));
	}
	conf_path_key(sub, path, "phases");
	if (t->n_phases)
		return TERR(ld, at(map, "phases"), sub, "a background job has no phases");
	conf_path_key(sub, path, "sizes");
	if (!conf_tget(map, "sizes")) {
		t->sizes.list[0] = 64 * 1024;
	} else if (t->sizes.range || t->sizes.n_list != 1) {
		return TERR(ld, at(map, "sizes"), sub, "a background job sends one message size "
			"'%zu sizes'", t->sizes.range ? conf_sizes_expand(&t->sizes, NULL, 0) :
			t->sizes.n_list);
	}
	return 0;
}

int conf_check_traffic(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_traffic *t = obj;
	const struct conf_fabric *f = &ld->job->fabric;
	uint32_t hosts = conf_fabric_hosts(f), ranks = t->ranks ? t->ranks : hosts;
	unsigned esz = conf_dtype_size(t->dtype);
	char sub[CONF_PATH_MAX], a[24];
	struct conf_node n;

	if (!algorithm_rule(t->pattern, conf_tget(map, "algorithm") != NULL, &t->algorithm)) {
		conf_path_key(sub, path, "algorithm");
		return TERR(ld, at(map, "algorithm"), sub, "does not apply to pattern %s '%s'",
			conf_name_of(conf_pattern_names, (int)t->pattern),
			conf_name_of(conf_algorithm_names, (int)t->algorithm));
	}
	if (t->hosts[0]) {
		char bad[48] = "";
		long nh = conf_hosts_expand(f, t->hosts, NULL, 0, bad);

		conf_path_key(sub, path, "hosts");
		if (nh == -ENOMEM)
			return -ENOMEM;
		if (nh < 0)
			return TERR(ld, at(map, "hosts"), sub, "%s '%s'", nh == -EEXIST ?
				"a host named twice" : "not a host of the fabric, or not a range "
				"hA-hB with A <= B", bad);
		if (nh < 2)
			return TERR(ld, at(map, "hosts"), sub, "at least 2 hosts '%s'", t->hosts);
		if (t->ranks) {
			conf_path_key(sub, path, "ranks");
			return TERR(ld, at(map, "ranks"), sub, "given with traffic.hosts (which "
				"numbers the ranks) '%" PRIu32 "'", t->ranks);
		}
		ranks = (uint32_t)nh;
	}
	if (t->ranks > hosts || t->ranks == 1) {
		conf_path_key(sub, path, "ranks");
		return TERR(ld, at(map, "ranks"), sub, "out of range 2..%" PRIu32
			" (0 = all hosts) '%" PRIu32 "'", hosts, t->ranks);
	}
	/* perftest pairs: rank r with r + ranks/2 (mrc/job/coll.h) */
	if ((t->pattern == CONF_PAT_WRITE_BW || t->pattern == CONF_PAT_WRITE_LAT) && ranks % 2) {
		const char *k = t->hosts[0] ? "hosts" : t->ranks ? "ranks" : "pattern";

		conf_path_key(sub, path, t->hosts[0] ? "hosts" : "ranks");
		return TERR(ld, at(map, k), sub,
			"%s pairs the ranks: an even number of them is needed '%" PRIu32 "'",
			conf_name_of(conf_pattern_names, (int)t->pattern), ranks);
	}
	if (t->matrix[0] || t->zipf > 0) {
		const char *k = t->matrix[0] ? "matrix" : "zipf";

		conf_path_key(sub, path, k);
		bool v = t->pattern == CONF_PAT_ALLTOALLV;

		for (size_t i = 0; i < t->n_phases; i++) /* or an alltoallv phase */
			v |= !t->phases[i].has_gap && t->phases[i].pattern == CONF_PAT_ALLTOALLV;
		if (!v)
			return TERR(ld, at(map, k), sub, "only alltoallv takes per-pair sizes '%s'",
				conf_name_of(conf_pattern_names, (int)t->pattern));
		if (t->matrix[0] && t->zipf > 0)
			return TERR(ld, at(map, k), sub, "given with traffic.zipf: one or the other "
				"'%s'", t->matrix);
	}
	if (t->matrix[0]) {
		double *w = malloc((size_t)ranks * ranks * sizeof(*w) + 1);
		char why[256];
		int e = w ? conf_matrix_load(t->matrix, ranks, w, why, sizeof(why)) : -ENOMEM;

		free(w);
		conf_path_key(sub, path, "matrix");
		if (e == -ENOMEM)
			return e;
		if (e)
			return TERR(ld, at(map, "matrix"), sub, "%s '%s'", why, t->matrix);
	}
	if (program_too_big(ld, map, path, t, ranks))
		return -EINVAL;
	/* a dump writes rate 0 and mode uniform for every job */
	if (t->pattern == CONF_PAT_BACKGROUND || t->rate_bps || t->mode != CONF_BG_UNIFORM)
		return check_background(ld, map, path, t);
	conf_path_key(sub, path, "root");
	if (conf_node_parse(f, t->root, &n) || n.kind != CONF_NODE_HOST ||
		(t->hosts[0] ? rooted(t->pattern) && !host_in_set(f, t->hosts, n.host) :
			       n.host >= ranks))
		return TERR(ld, at(map, "root"), sub, "not a host among the %" PRIu32 " ranks '%s'",
			ranks, t->root);
	t->root_host = n.host;
	if (t->n_phases)
		return check_phases(ld, map, path, t);
	conf_path_key(sub, path, "sizes");
	/* a run measures at most CONF_SIZES_MAX sizes (mrc/sim/run.c) */
	if (conf_sizes_expand(&t->sizes, NULL, 0) > CONF_SIZES_MAX)
		return TERR(ld, at(map, "sizes"), sub, "more than %d sizes '%zu'", CONF_SIZES_MAX,
			conf_sizes_expand(&t->sizes, NULL, 0));
	if (t->sizes.range) {
		if (t->sizes.min % esz)
			return TERR(ld, at(map, "sizes"), sub, "min not a multiple of the %u-byte "
				"%s '%s'", esz, conf_name_of(conf_dtype_names, (int)t->dtype),
				conf_fmt_size(t->sizes.min, a, sizeof(a)));
		/* Every step is min * factor^k, a multiple of min, so of esz too. */
		return 0;
	}
	for (size_t i = 0; i < t->sizes.n_list; i++) {
		if (t->sizes.list[i] % esz) {
			const struct tnode *sz = at(map, "sizes");

			if (sz->kind == T_SEQ && i < sz->n)
				sz = sz->items[i];
			conf_path_idx(sub, sub, i);
			return TERR(ld, sz, sub, "not a multiple of the %u-byte %s '%s'", esz,
				conf_name_of(conf_dtype_names, (int)t->dtype),
				conf_fmt_size(t->sizes.list[i], a, sizeof(a)));
		}
		/* one size measured twice is a typo, and two report rows for one size */
		for (size_t j = 0; j < i; j++) {
			if (t->sizes.list[j] == t->sizes.list[i]) {
				const struct tnode *sz = at(map, "sizes");

				if (sz->kind == T_SEQ && i < sz->n)
					sz = sz->items[i];
				conf_path_idx(sub, sub, i);
				return TERR(ld, sz, sub,
					"duplicate size (sizes[%zu] is the same) '%s'", j,
					fmt_bytes(t->sizes.list[i], a, sizeof(a)));
			}
		}
	}
	return 0;
}

/* Which parameters an action takes: bit 0 rate, 1 delay, 2 period+duty, 3 duration. */
static unsigned action_params(enum conf_fault_action a)
{
	switch (a) {
	case CONF_FA_LOSS: return 1 | 8;
	case CONF_FA_DELAY: return 2 | 8;
	case CONF_FA_FLAP: return 4 | 8;
	case CONF_FA_DOWN: case CONF_FA_BLACKHOLE: return 8;
	default: return 0;
	}
}

int conf_check_fault(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	static const struct { const char *key; unsigned bit; } params[] = {
		{ "rate", 1 }, { "delay", 2 }, { "period", 4 }, { "duty", 4 }, { "duration", 8 },
	};
	struct conf_fault *fa = obj;
	const char *act = conf_name_of(conf_fault_action_names, (int)fa->action);
	unsigned allowed = action_params(fa->action);
	char sub[CONF_PATH_MAX];

	if (!fa->target)
		return TERR(ld, map, path, "missing 'target'");
	if (!conf_tget(map, "action"))
		return TERR(ld, map, path, "missing 'action'");
	if (fa->has_at == fa->has_at_iteration)
		return TERR(ld, map, path, "needs exactly one of 'at' and 'at_iteration'");
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		const struct tnode *v = conf_tget(map, params[i].key);
		bool need = allowed & params[i].bit & 7;

		conf_path_key(sub, path, params[i].key);
		if (v && !(allowed & params[i].bit))
			return TERR(ld, v, sub, "does not apply to action %s '%s'", act,
				v->s ? v->s : "");
		if (!v && need)
			return TERR(ld, map, sub, "action %s needs '%s'", act, params[i].key);
	}
	/* what a fault can hit (the simulator's fabric and the wire driver's endpoints) */
	{
		const struct conf_node *n = &fa->node;
		bool link = n->kind == CONF_NODE_LINK_T0_T1 || n->kind == CONF_NODE_LINK_HOST_T0;

		conf_path_key(sub, path, "target");
		if (n->kind == CONF_NODE_HOST)
			return TERR(ld, conf_tget(map, "target"), sub,
				"a whole host cannot be faulted: name its NIC ports (h%u.p0 ...) "
				"'%s'",
				n->host, fa->target);
		if (!link && fa->action != CONF_FA_DOWN && fa->action != CONF_FA_UP)
			return TERR(ld, conf_tget(map, "target"), sub,
				"action %s needs a link (p0.t0.1-p0.t1.2, h3.p0-p0.t0.0) '%s'", act,
				fa->target);
		/* "both" is every fault's default (and in every dump); one way needs a link */
		if (!link && fa->direction != CONF_DIR_BOTH) {
			conf_path_key(sub, path, "direction");
			return TERR(ld, conf_tget(map, "direction"), sub,
				"applies to a link target only, not '%s' '%s'", fa->target,
				conf_name_of(conf_direction_names, (int)fa->direction));
		}
		if (fa->action == CONF_FA_BLACKHOLE && n->kind == CONF_NODE_LINK_HOST_T0 &&
			!n->reverse)
			return TERR(ld, conf_tget(map, "target"), sub,
				"a host has no static routes: write the T0 first to blackhole its "
				"route to the port '%s'",
				fa->target);
	}
	if (fa->action == CONF_FA_FLAP && !(fa->duty > 0 && fa->duty < 1)) {
		conf_path_key(sub, path, "duty");
		return TERR(ld, conf_tget(map, "duty"), sub, "out of range (0..1 exclusive) '%s'",
			conf_tget(map, "duty")->s);
	}
	/* the fabric's down part is this period x duty cut to whole ps (mrc/sim/fabric.c): under
	 * 1 ps down or up would flap nothing (up as period - down: 10ps x 0.1 is 1ps) */
	if (fa->action == CONF_FA_FLAP) {
		double down = (double)fa->period_ps * fa->duty;
		double up = (double)fa->period_ps - down;

		if (down < 1 || up < 1) {
			conf_path_key(sub, path, "period");
			return TERR(ld, conf_tget(map, "period"), sub, "too short for duty %g: %s "
				"(period x %s) is %gps, below 1ps '%s'", fa->duty,
				down < 1 ? "down" : "up", down < 1 ? "duty" : "(1 - duty)",
				down < 1 ? down : up, conf_tget(map, "period")->s);
		}
	}
	return 0;
}

int conf_check_capture(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_capture *c = obj;

	char sub[CONF_PATH_MAX];

	if (!c->point)
		return TERR(ld, map, path, "missing 'point'");
	/* what the simulator taps (mrc/sim/run.c): a port's or a link end's queue */
	if (c->node.kind != CONF_NODE_PORT && c->node.kind != CONF_NODE_LINK_HOST_T0 &&
	    c->node.kind != CONF_NODE_LINK_T0_T1) {
		conf_path_key(sub, path, "point");
		return TERR(ld, conf_tget(map, "point"), sub, "a capture point is a host NIC port "
			"(h0.p0) or a link (p0.t1.0-p0.t0.0) '%s'", c->point);
	}
	return 0;
}

/* Captures writing the same file (conf_capture_file) would interleave two pcap streams. */
int conf_check_output(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_output *o = obj;
	const struct tnode *list = conf_tget(map, "captures");
	char sub[CONF_PATH_MAX], a[256], b[256];

	if (!o->dir || !o->dir[0]) {
		conf_path_key(sub, path, "dir");
		return TERR(ld, at(map, "dir"), sub, "empty: name the directory the outputs go to "
			"(the default is out/) ''");
	}
	for (size_t i = 1; i < o->n_captures && list && list->kind == T_SEQ; i++) {
		conf_capture_file(&o->captures[i], a, sizeof(a));
		for (size_t j = 0; j < i; j++) {
			if (strcmp(a, conf_capture_file(&o->captures[j], b, sizeof(b))))
				continue;
			conf_path_key(sub, path, "captures");
			conf_path_idx(sub, sub, i);
			conf_path_key(sub, sub, "point");
			return TERR(ld, at(list->items[i], "point"), sub, "already captured by "
				"captures[%zu] (both would write %s) '%s'", j, a,
				o->captures[i].point);
		}
	}
	return 0;
}

int conf_check_hist(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_hist *h = obj;
	char sub[CONF_PATH_MAX], a[24];

	if (h->highest_ns < 2 * h->lowest_ns) {
		conf_path_key(sub, path, "highest");
		return TERR(ld, at(map, "highest"), sub, "below 2 * lowest (%s) '%s'",
			conf_fmt_time(2 * h->lowest_ns * 1000, a, sizeof(a)),
			at(map, "highest")->s ? at(map, "highest")->s : "");
	}
	if (h->n_percentiles == 0) {
		conf_path_key(sub, path, "percentiles");
		return TERR(ld, at(map, "percentiles"), sub, "empty list");
	}
	for (size_t i = 1; i < h->n_percentiles; i++) {
		if (h->percentiles[i] <= h->percentiles[i - 1]) {
			const struct tnode *l = at(map, "percentiles");

			conf_path_key(sub, path, "percentiles");
			conf_path_idx(sub, sub, i);
			return TERR(ld, l->kind == T_SEQ ? l->items[i] : l, sub,
				"not ascending '%g'", h->percentiles[i]);
		}
	}
	return 0;
}

/* One dataplane thread per NIC port at most: a thread owns its ports (docs/wire-xdp.md). */
int conf_check_wire(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	const struct conf_wire *w = obj;
	uint32_t planes = ld->job->fabric.planes;
	char sub[CONF_PATH_MAX];

	if (w->xdp_threads > planes) {
		conf_path_key(sub, path, "xdp_threads");
		return TERR(ld, at(map, "xdp_threads"), sub, "more threads than NIC ports "
			"(fabric.planes %" PRIu32 "): at most one per port '%" PRIu32 "'", planes,
			w->xdp_threads);
	}
	return 0;
}
/* ECMP: at least one header field, none twice; each switch's own seed given once. */
int conf_check_ecmp(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_ecmp *e = obj;
	const struct tnode *fl = conf_tget(map, "hash_fields"), *sl = conf_tget(map, "seeds");
	char sub[CONF_PATH_MAX];

	if (!e->n_hash_fields) {
		conf_path_key(sub, path, "hash_fields");
		return TERR(ld, at(map, "hash_fields"), sub, "empty: a switch hashes at least one "
			"field (src, dst, next_header, sport, dport, flow_label) '[]'");
	}
	for (size_t i = 1; i < e->n_hash_fields && fl && fl->kind == T_SEQ; i++) {
		for (size_t j = 0; j < i; j++) {
			if (e->hash_fields[i] != e->hash_fields[j])
				continue;
			conf_path_key(sub, path, "hash_fields");
			conf_path_idx(sub, sub, i);
			return TERR(ld, fl->items[i], sub, "listed twice (hash_fields[%zu]) '%s'", j,
				conf_name_of(conf_hash_field_names, e->hash_fields[i]));
		}
	}
	for (size_t i = 1; i < e->n_seeds && sl && sl->kind == T_SEQ; i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(e->seeds[i].sw, e->seeds[j].sw))
				continue;
			conf_path_key(sub, path, "seeds");
			conf_path_idx(sub, sub, i);
			conf_path_key(sub, sub, "switch");
			return TERR(ld, at(sl->items[i], "switch"), sub, "seed given twice (seeds[%zu]) "
				"'%s'", j, e->seeds[i].sw);
		}
	}
	return 0;
}

/* fabric.ecmp.seeds[]: a T0 or T1 switch, and its seed. */
int conf_check_switch_seed(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_switch_seed *s = obj;
	char sub[CONF_PATH_MAX];

	if (!s->sw)
		return TERR(ld, map, path, "missing 'switch'");
	if (s->node.kind != CONF_NODE_T0 && s->node.kind != CONF_NODE_T1) {
		conf_path_key(sub, path, "switch");
		return TERR(ld, conf_tget(map, "switch"), sub, "not a switch: name a T0 or T1 "
			"(p0.t0.1, p0.t1.2) '%s'", s->sw);
	}
	if (!conf_tget(map, "seed"))
		return TERR(ld, map, path, "missing 'seed'");
	return 0;
}

/* The value node of @k1.@k2[.@k3] under @root, NULL when not written. */
static const struct tnode *tree_at(const struct tnode *root, const char *k1, const char *k2,
	const char *k3)
{
	const struct tnode *t = conf_tget(root, k1);

	t = t && t->kind == T_MAP ? conf_tget(t, k2) : NULL;
	if (k3)
		t = t && t->kind == T_MAP ? conf_tget(t, k3) : NULL;
	return t;
}

/*
 * Rules across sections. Under mrc.transport roce (docs/roce-baseline.md "Defaults"):
 * the fabric does not trim unless told — and told to, it is refused, since a RoCE NIC
 * cannot tell a trimmed packet from a corrupted one (the trim is a loss: go-back-N) —; it
 * is lossless (PFC on) unless fabric.pfc.enabled is written; the
 * QP attributes not written take NCCL's, the RoCE stack a lab runs: NCCL_IB_TIMEOUT 20
 * (4.096 us x 2^20 = 4.29 s, mrcgen's qp.timeout 22: 1.024 us x 2^22), NCCL_IB_RETRY_CNT 7
 * at that timeout (IBTA RC retries do not back off: retry_exp 0).
 */
int conf_check_job(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_job *j = obj;
	const struct tnode *t = tree_at(map, "fabric", "trim", NULL);
	char sub[CONF_PATH_MAX];

	if (j->mrc.transport != CONF_TRANSPORT_ROCE) {
		/* PFC with trim left on by default (the fabric's rule blames a written trim) */
		if (j->fabric.pfc.enabled && j->fabric.trim && !t) {
			const struct tnode *e = tree_at(map, "fabric", "pfc", "enabled");

			conf_path_key(sub, path, "fabric.pfc.enabled");
			return TERR(ld, e ? e : map, sub, "PFC keeps the data packets whole that "
				"trimming cuts (fabric.trim, default true but under mrc.transport "
				"roce): set fabric.trim: false 'true'");
		}
		return 0;
	}
	if (t && j->fabric.trim) {
		conf_path_key(sub, path, "fabric.trim");
		return TERR(ld, t, sub, "a trimming fabric with mrc.transport roce: a RoCE NIC takes "
			"a trimmed packet for a corrupted one, a loss; leave trim out (off under roce) "
			"or false 'true'");
	}
	if (!t)
		j->fabric.trim = false;
	if (!tree_at(map, "fabric", "pfc", "enabled")) {
		/* lossless RoCE, as labs run it: PFC for the data class (docs/pfc.md) */
		const struct tnode *fm = conf_tget(map, "fabric");
		int e;

		j->fabric.pfc.enabled = true;
		e = check_pfc_buffer(ld, fm && fm->kind == T_MAP ? fm : map, &j->fabric, "fabric");
		if (e)
			return e;
	}
	if (!tree_at(map, "mrc", "qp", "timeout"))
		j->mrc.qp.timeout = 22;
	if (!tree_at(map, "mrc", "qp", "retry_linear"))
		j->mrc.qp.retry_linear = 7;
	if (!tree_at(map, "mrc", "qp", "retry_exp"))
		j->mrc.qp.retry_exp = 0;
	return 0;
}

/* The hosts job @t runs on (its traffic.hosts, else h0..h{ranks-1}) into @out (the
 * fabric's host count long). Returns how many, or a negative errno. */
static long job_hosts(const struct conf_fabric *f, const struct conf_traffic *t, uint32_t *out)
{
	uint32_t nh = conf_fabric_hosts(f), n = t->ranks ? t->ranks : nh;

	if (t->hosts[0])
		return conf_hosts_expand(f, t->hosts, out, nh, NULL);
	for (uint32_t h = 0; h < n; h++)
		out[h] = h;
	return n;
}

/* A job name: 1..31 of [A-Za-z0-9_-] (it names histogram files, docs/report.md). */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 31)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			(*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

/* The key path of job @i: traffic[i] in a list, traffic for one job. */
static void job_path(char *sub, const char *path, const struct conf_job *j, size_t i)
{
	if (j->traffic_list)
		conf_path_idx(sub, path, i);
	else
		snprintf(sub, CONF_PATH_MAX, "%s", path);
}

/* Job @i of @j (conf_job_traffic), writable. */
static struct conf_traffic *job_at(struct conf_job *j, size_t i)
{
	return i ? &j->more_traffic[i - 1] : &j->traffic;
}

/* Index of the job named @name in @j, or -1. */
static long job_named(struct conf_job *j, const char *name)
{
	for (size_t i = 0; i < conf_jobs(j); i++)
		if (!strcmp(job_at(j, i)->name, name))
			return (long)i;
	return -1;
}

int conf_check_jobs(struct ld *ld, const struct tnode *seq, struct conf_job *j, const char *path)
{
	const struct conf_fabric *f = &j->fabric;
	size_t n = conf_jobs(j);
	uint32_t nh = conf_fabric_hosts(f), *hv = NULL, *owner = NULL;
	char sub[CONF_PATH_MAX], key[CONF_PATH_MAX];
	int e = 0;

	if (n > 64)
		return TERR(ld, seq, path, "at most 64 jobs '%zu'", n);
	for (size_t i = 0; i < n; i++) { /* names: given, or job{i} */
		struct conf_traffic *t = job_at(j, i);
		const struct tnode *m = seq->items[i];

		job_path(sub, path, j, i);
		conf_path_key(key, sub, "name");
		if (!t->name[0]) {
			char *nm;

			if (asprintf(&nm, "job%zu", i) < 0)
				return -ENOMEM;
			free(t->name);
			t->name = nm;
		} else if (!name_ok(t->name)) {
			return TERR(ld, at(m, "name"), key, "a job name is 1..31 letters, digits, "
				"'_' or '-' '%s'", t->name);
		}
		if (t->pattern == CONF_PAT_BACKGROUND && i == 0) {
			conf_path_key(key, sub, "pattern");
			return TERR(ld, at(m, "pattern"), key, "background loads the fabric under "
				"other jobs: list it after the first job 'background'");
		}
		if (job_named(j, t->name) != (long)i)
			return TERR(ld, at(m, "name"), key,
				"two jobs named so (traffic[%ld] too) '%s'", job_named(j, t->name),
				t->name);
	}
	for (size_t i = 0; i < n; i++) { /* after: another job, and no cycle */
		struct conf_traffic *t = job_at(j, i);
		const struct tnode *m = seq->items[i];
		long k = (long)i;

		if (!t->after[0])
			continue;
		job_path(sub, path, j, i);
		conf_path_key(key, sub, "after");
		if (n == 1)
			return TERR(ld, at(m, "after"), key, "one job: no other to wait for '%s'",
				t->after);
		if (job_named(j, t->after) < 0)
			return TERR(ld, at(m, "after"), key, "no job is named so '%s'", t->after);
		if (job_at(j, (size_t)job_named(j, t->after))->pattern == CONF_PAT_BACKGROUND)
			return TERR(ld, at(m, "after"), key, "a background job ends only when "
				"every other job has: nothing can wait for it '%s'", t->after);
		for (size_t hop = 0; hop <= n && k >= 0 && job_at(j, (size_t)k)->after[0];
			hop++) {
			k = job_named(j, job_at(j, (size_t)k)->after);
			if (k == (long)i)
				return TERR(ld, at(m, "after"), key, "a cycle of jobs each waiting "
					"for the next to end '%s'", t->after);
		}
	}
	hv = malloc((nh + 1) * sizeof(*hv));
	owner = calloc(nh + 1, sizeof(*owner));
	if (!hv || !owner) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n && !e; i++) { /* hosts: each job its own, or shared by both */
		const struct conf_traffic *t = job_at(j, i);
		long nj = job_hosts(f, t, hv);
		char all[32];

		snprintf(all, sizeof(all), "h0-h%ld", nj - 1);
		for (long k = 0; k < nj && !e; k++) {
			uint32_t o = owner[hv[k]];

			const struct conf_traffic *u = o ? job_at(j, o - 1) : NULL;

			/* both share, or one is background and shares (it loads the others) */
			if (o && !(t->share && u->share) &&
				!(t->share && t->pattern == CONF_PAT_BACKGROUND) &&
				!(u->share && u->pattern == CONF_PAT_BACKGROUND)) {
				job_path(sub, path, j, i);
				conf_path_key(key, sub, "hosts");
				e = TERR(ld, at(seq->items[i], "hosts"), key, "h%" PRIu32
					" is job %s's too: jobs may share hosts only with share: "
					"true on both '%s'", hv[k], u->name,
					t->hosts[0] ? t->hosts : all);
			}
			owner[hv[k]] = (uint32_t)i + 1;
		}
	}
out:
	free(hv);
	free(owner);
	return e;
}
