/* SPDX-License-Identifier: BSD-2-Clause */
/* paths: renders the addressing plan's EV -> path rows and static tables (text or JSON). */
#include "mrc/out/paths.h"
#include "mrc/base/err.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LEN 48
#define ADDR_LEN 64
/* rows one query may list: 4 Mi rows are about 600 MB of text */
#define PATHS_ROWS_MAX (1u << 22)

struct row {
	const char *state;
	struct mrc_srv6_path p;
};

/* Everything a listing prints, rendered once and shared by text and JSON. */
struct listing {
	const struct mrc_srv6_plan *plan;
	const struct mrc_srv6_params *par;
	bool *t0_used, *t1_used; /* [plane * t0 + i], [plane * t1 + j] */
};

static void node_str(uint8_t role, uint32_t plane, uint32_t index, char *buf)
{
	struct mrc_srv6_node n = {role, (uint8_t)plane, index};

	mrc_srv6_node_name(&n, buf, NAME_LEN);
}

/*
 * Text column widths, from the fabric's largest names (not from the rows printed), so the
 * header lines up with every row a listing of this fabric can hold: h9999, p15.t1.1022,
 * h9999.p15. A '#' header's first field includes its "# ".
 */
struct widths {
	int host, plane, t0, t1, port; /* path rows */
	int tport;		       /* static table rows: the port number */
};

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static void text_widths(const struct mrc_srv6_params *par, uint32_t hosts, struct widths *w)
{
	char b[NAME_LEN];
	uint32_t ports = par->hosts_per_t0 + par->t1 > par->t0 ? par->hosts_per_t0 + par->t1 :
								 par->t0;

	w->host = max_int((int)strlen("src"), snprintf(b, sizeof(b), "h%u", hosts - 1));
	w->plane = max_int((int)strlen("plane"), snprintf(b, sizeof(b), "%u", par->planes - 1));
	node_str(MRC_SRV6_T0, par->planes - 1, par->t0 - 1, b);
	w->t0 = max_int((int)strlen("t0"), (int)strlen(b));
	node_str(MRC_SRV6_T1, par->planes - 1, par->t1 - 1, b);
	w->t1 = max_int((int)strlen("t1"), (int)strlen(b));
	node_str(MRC_SRV6_HOST, par->planes - 1, hosts - 1, b);
	w->port = max_int((int)strlen("port"), (int)strlen(b));
	w->tport = max_int((int)strlen("port"), snprintf(b, sizeof(b), "%u", ports - 1));
}

static void usid_prefix(uint32_t block, uint16_t usid, char *buf)
{
	struct mrc_ip6 a;
	size_t l;

	mrc_srv6_container(block, &usid, 1, &a);
	mrc_srv6_addr_str(&a, buf, ADDR_LEN);
	l = strlen(buf);
	snprintf(buf + l, ADDR_LEN - l, "/48");
}

/* Names of a row's hops; t1 is "" when the path stays under one T0. */
struct hops {
	char src[NAME_LEN], dst[NAME_LEN], t0s[NAME_LEN], t1[NAME_LEN], t0d[NAME_LEN];
	char port[NAME_LEN], cont[ADDR_LEN], sa[ADDR_LEN], da[ADDR_LEN];
};

static void row_hops(const struct mrc_srv6_path *p, struct hops *h)
{
	snprintf(h->src, NAME_LEN, "h%u", p->src_host);
	snprintf(h->dst, NAME_LEN, "h%u", p->dst_host);
	node_str(MRC_SRV6_T0, p->plane, p->t0_src, h->t0s);
	h->t1[0] = '\0';
	if (p->via_t1)
		node_str(MRC_SRV6_T1, p->plane, p->spine, h->t1);
	node_str(MRC_SRV6_T0, p->plane, p->t0_dst, h->t0d);
	node_str(MRC_SRV6_HOST, p->plane, p->dst_host, h->port);
	mrc_srv6_addr_str(&p->container, h->cont, ADDR_LEN);
	mrc_srv6_addr_str(&p->src_addr, h->sa, ADDR_LEN);
	mrc_srv6_addr_str(&p->dst_addr, h->da, ADDR_LEN);
}

/* The fabric object; "usid_plane_bits" only when not docs/wire-format.md's default (then plane p's
 * tables and paths are under block + p with 0). */
static json_t *fabric_json(const struct mrc_srv6_params *par, const char *block)
{
	json_t *o = json_pack("{s:i, s:i, s:i, s:i, s:s}", "planes", (json_int_t)par->planes,
		"t0", (json_int_t)par->t0, "t1", (json_int_t)par->t1, "hosts_per_t0",
		(json_int_t)par->hosts_per_t0, "block", block);

	if (o && par->usid_plane_bits != MRC_SRV6_USID_PLANE_BITS &&
		json_object_set_new(o, "usid_plane_bits", json_integer(par->usid_plane_bits))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *row_json(const struct row *r, const struct hops *h)
{
	json_t *o = json_object(), *u = json_array();
	char ev[16], us[8];

	if (!o || !u)
		goto fail;
	for (unsigned i = 0; i < r->p.n_usids; i++) {
		snprintf(us, sizeof(us), "0x%04x", r->p.usids[i]);
		if (json_array_append_new(u, json_string(us)))
			goto fail;
	}
	snprintf(ev, sizeof(ev), "0x%08x", r->p.ev);
	if (json_object_set_new(o, "ev", json_string(ev)) ||
		json_object_set_new(o, "state", json_string(r->state)) ||
		json_object_set_new(o, "src", json_string(h->src)) ||
		json_object_set_new(o, "dst", json_string(h->dst)) ||
		json_object_set_new(o, "plane", json_integer(r->p.plane)) ||
		json_object_set_new(o, "t0_src", json_string(h->t0s)) ||
		json_object_set_new(o, "t1", h->t1[0] ? json_string(h->t1) : json_null()) ||
		json_object_set_new(o, "t0_dst", json_string(h->t0d)) ||
		json_object_set_new(o, "port", json_string(h->port)) ||
		json_object_set_new(o, "usids", u) ||
		json_object_set_new(o, "container", json_string(h->cont)) ||
		json_object_set_new(o, "src_addr", json_string(h->sa)) ||
		json_object_set_new(o, "dst_addr", json_string(h->da))) {
		json_decref(o);
		return NULL;
	}
	return o;
fail:
	json_decref(u);
	json_decref(o);
	return NULL;
}

static json_t *table_json(const struct mrc_srv6_plan *plan, const struct mrc_srv6_fib *fib)
{
	json_t *o = json_object(), *routes = json_array();
	char name[NAME_LEN], pfx[ADDR_LEN], us[8], to[NAME_LEN];

	if (!o || !routes)
		goto fail;
	mrc_srv6_node_name(&fib->node, name, sizeof(name));
	snprintf(us, sizeof(us), "0x%04x", fib->own);
	if (json_object_set_new(o, "switch", json_string(name)) ||
		json_object_set_new(o, "usid", json_string(us)))
		goto fail;
	for (size_t i = 0; i < fib->n; i++) {
		const struct mrc_srv6_route *r = &fib->routes[i];
		struct mrc_srv6_node n;
		json_t *e;

		usid_prefix(fib->block, r->usid, pfx);
		snprintf(us, sizeof(us), "0x%04x", r->usid);
		mrc_srv6_usid_node(plan, fib->node.plane, r->usid, &n);
		mrc_srv6_node_name(&n, to, sizeof(to));
		e = json_pack("{s:s, s:s, s:s, s:o, s:s}", "prefix", pfx, "usid", us, "action",
			r->port == MRC_SRV6_PORT_LOCAL ? "uN" : "forward", "port",
			r->port == MRC_SRV6_PORT_LOCAL ? json_null() : json_integer(r->port), "to",
			to);
		if (!e || json_array_append_new(routes, e))
			goto fail;
	}
	if (json_object_set_new(o, "routes", routes))
		goto fail_o;
	return o;
fail:
	json_decref(routes);
fail_o:
	json_decref(o);
	return NULL;
}

/* A static table's prefix column: "ffff:ffff:ffff::/48" is the longest prefix. */
#define PFX_W 24

static void table_text(FILE *f, const struct mrc_srv6_plan *plan, const struct mrc_srv6_fib *fib,
	const struct widths *w)
{
	char name[NAME_LEN], pfx[ADDR_LEN], to[NAME_LEN], port[16];

	mrc_srv6_node_name(&fib->node, name, sizeof(name));
	fprintf(f, "\n# table %s usid 0x%04x\n%-*s %-6s %-7s %-*s %s\n", name, fib->own, PFX_W,
		"# prefix", "usid", "action", w->tport, "port", "to");
	for (size_t i = 0; i < fib->n; i++) {
		const struct mrc_srv6_route *r = &fib->routes[i];
		bool local = r->port == MRC_SRV6_PORT_LOCAL;
		struct mrc_srv6_node n;

		usid_prefix(fib->block, r->usid, pfx);
		mrc_srv6_usid_node(plan, fib->node.plane, r->usid, &n);
		mrc_srv6_node_name(&n, to, sizeof(to));
		snprintf(port, sizeof(port), local ? "-" : "%d", r->port);
		fprintf(f, "%-*s 0x%04x %-7s %-*s %s\n", PFX_W, pfx, r->usid,
			local ? "uN" : "forward", w->tport, port, to);
	}
}

/* Calls @fn for every (src, dst, EV) of @q in listing order; stops on its first error. */
static int each_row(const struct mrc_srv6_plan *plan, const struct mrc_srv6_ev_entry *evs,
	size_t n_evs, const struct mrc_paths_query *q, int (*fn)(void *, const struct row *),
	void *arg)
{
	uint32_t hosts = mrc_srv6_plan_hosts(plan);
	uint32_t s0 = q->from >= 0 ? (uint32_t)q->from : 0;
	uint32_t s1 = q->from >= 0 ? (uint32_t)q->from + 1 : hosts;
	uint32_t d0 = q->to >= 0 ? (uint32_t)q->to : 0;
	uint32_t d1 = q->to >= 0 ? (uint32_t)q->to + 1 : hosts;
	size_t n = q->has_ev ? 1 : n_evs;

	for (uint32_t s = s0; s < s1; s++) {
		for (uint32_t d = d0; d < d1; d++) {
			if (s == d)
				continue;
			for (size_t i = 0; i < n; i++) {
				struct row r = {.state = "unlisted"};
				uint32_t ev = q->has_ev ? q->ev : evs[i].ev;
				int rc;

				for (size_t k = 0; k < n_evs; k++) {
					if (evs[k].ev == ev) {
						r.state = evs[k].denied ? "denied" : "good";
						break;
					}
				}
				rc = mrc_srv6_path(plan, s, d, ev, &r.p);
				if (rc)
					return rc;
				rc = fn(arg, &r);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

static int mark_used(void *arg, const struct row *r)
{
	struct listing *l = arg;
	uint32_t p = r->p.plane;

	l->t0_used[p * l->par->t0 + r->p.t0_src] = true;
	l->t0_used[p * l->par->t0 + r->p.t0_dst] = true;
	if (r->p.via_t1)
		l->t1_used[p * l->par->t1 + r->p.spine] = true;
	return 0;
}

struct text_arg {
	FILE *f;
	struct widths w;
};

/* EV is "0x%08x" (10), state at most "unlisted" (8); the other widths from the fabric. */
static void print_head_text(FILE *f, const struct widths *w)
{
	fprintf(f, "%-10s %-8s %-*s %-*s %-*s %-*s %-*s %-*s %-*s %s\n", "# ev", "state", w->host,
		"src", w->host, "dst", w->plane, "plane", w->t0, "t0", w->t1, "t1", w->t0, "t0",
		w->port, "port", "container");
}

static int print_row_text(void *arg, const struct row *r)
{
	const struct text_arg *t = arg;
	const struct widths *w = &t->w;
	struct hops h;

	row_hops(&r->p, &h);
	fprintf(t->f, "0x%08x %-8s %-*s %-*s %-*u %-*s %-*s %-*s %-*s %s\n", r->p.ev, r->state,
		w->host, h.src, w->host, h.dst, w->plane, r->p.plane, w->t0, h.t0s, w->t1,
		h.t1[0] ? h.t1 : "-", w->t0, h.t0d, w->port, h.port, h.cont);
	return 0;
}

static int add_row_json(void *arg, const struct row *r)
{
	struct hops h;
	json_t *o;

	row_hops(&r->p, &h);
	o = row_json(r, &h);
	if (!o || json_array_append_new(arg, o))
		return -ENOMEM;
	return 0;
}

/* Calls @fn on the static table of every used switch, by plane, T0 before T1. */
static int each_table(
	const struct listing *l, int (*fn)(void *, const struct mrc_srv6_fib *), void *arg)
{
	for (uint32_t p = 0; p < l->par->planes; p++) {
		for (uint32_t role = MRC_SRV6_T0; role <= MRC_SRV6_T1; role++) {
			uint32_t count = role == MRC_SRV6_T0 ? l->par->t0 : l->par->t1;
			const bool *used = role == MRC_SRV6_T0 ? l->t0_used : l->t1_used;

			for (uint32_t i = 0; i < count; i++) {
				struct mrc_srv6_node n = {(uint8_t)role, (uint8_t)p, i};
				int rc;

				if (!used[p * count + i])
					continue;
				rc = fn(arg, mrc_srv6_fib_of(l->plan, &n));
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

struct table_arg {
	const struct mrc_srv6_plan *plan;
	FILE *f;
	json_t *arr;
	const struct widths *w;
};

static int print_table_text(void *arg, const struct mrc_srv6_fib *fib)
{
	struct table_arg *t = arg;

	table_text(t->f, t->plan, fib, t->w);
	return 0;
}

static int add_table_json(void *arg, const struct mrc_srv6_fib *fib)
{
	struct table_arg *t = arg;
	json_t *o = table_json(t->plan, fib);

	if (!o || json_array_append_new(t->arr, o))
		return -ENOMEM;
	return 0;
}

int mrc_paths_print(FILE *f, const struct mrc_srv6_plan *plan, const struct mrc_srv6_ev_entry *evs,
	size_t n_evs, const struct mrc_paths_query *q, char *err, size_t errlen)
{
	const struct mrc_srv6_params *par = mrc_srv6_plan_params(plan);
	uint32_t hosts = mrc_srv6_plan_hosts(plan);
	struct listing l = {plan, par, NULL, NULL};
	struct text_arg txt = {f, {0}};
	struct table_arg ta = {plan, f, NULL, &txt.w};
	json_t *root = NULL, *rows = NULL;
	struct mrc_ip6 blk;
	char block[ADDR_LEN];
	int rc;

	if (q->from >= (int64_t)hosts || q->to >= (int64_t)hosts) {
		bool bad_from = q->from >= (int64_t)hosts;

		mrc_errf(err, errlen, "paths: %s: 'h%lld' is not in the fabric (h0..h%u)",
			bad_from ? "--from" : "--to", (long long)(bad_from ? q->from : q->to),
			hosts - 1);
		return -EINVAL;
	}
	if (q->from >= 0 && q->from == q->to) {
		mrc_errf(err, errlen, "paths: --to: 'h%lld' is the source itself",
			(long long)q->to);
		return -EINVAL;
	}
	if (q->has_ev && mrc_srv6_ev_plane(&par->ev, q->ev) >= par->planes) {
		mrc_errf(err, errlen,
			"paths: --ev: '0x%08x' is in plane %u; the fabric has %u planes", q->ev,
			mrc_srv6_ev_plane(&par->ev, q->ev), par->planes);
		return -EINVAL;
	}
	{
		uint64_t pairs = q->from >= 0 && q->to >= 0 ? 1 : q->from >= 0 || q->to >= 0 ?
			hosts - 1 : (uint64_t)hosts * (hosts - 1);
		uint64_t n_rows = pairs * (q->has_ev ? 1 : n_evs);

		if (n_rows > PATHS_ROWS_MAX) {
			mrc_errf(err, errlen, "paths: the query lists %" PRIu64 " paths (%" PRIu64
				" host pairs x %zu EVs), more than %u: narrow it with --from, --to "
				"or --ev", n_rows, pairs, q->has_ev ? (size_t)1 : n_evs,
				PATHS_ROWS_MAX);
			return -EINVAL;
		}
	}
	l.t0_used = calloc((size_t)par->planes * par->t0, sizeof(bool));
	l.t1_used = calloc((size_t)par->planes * par->t1, sizeof(bool));
	if (!l.t0_used || !l.t1_used) {
		rc = -ENOMEM;
		goto out;
	}
	if (q->from < 0 && q->to < 0) {
		memset(l.t0_used, 1, (size_t)par->planes * par->t0);
		memset(l.t1_used, 1, (size_t)par->planes * par->t1);
	} else {
		rc = each_row(plan, evs, n_evs, q, mark_used, &l);
		if (rc)
			goto out;
	}
	memset(blk.b, 0, sizeof(blk.b));
	blk.b[0] = (uint8_t)(par->block >> 24);
	blk.b[1] = (uint8_t)(par->block >> 16);
	blk.b[2] = (uint8_t)(par->block >> 8);
	blk.b[3] = (uint8_t)par->block;
	mrc_srv6_addr_str(&blk, block, sizeof(block));
	strncat(block, "/32", sizeof(block) - strlen(block) - 1);

	if (!q->json) {
		fprintf(f, "# fabric planes %u t0 %u t1 %u hosts_per_t0 %u block %s", par->planes,
			par->t0, par->t1, par->hosts_per_t0, block);
		if (par->usid_plane_bits != MRC_SRV6_USID_PLANE_BITS)
			fprintf(f, " usid_plane_bits %u%s", par->usid_plane_bits,
				par->usid_plane_bits ? "" : " (plane p: block + p)");
		fputc('\n', f);
		text_widths(par, hosts, &txt.w);
		print_head_text(f, &txt.w);
		rc = each_row(plan, evs, n_evs, q, print_row_text, &txt);
		if (!rc)
			rc = each_table(&l, print_table_text, &ta);
	} else {
		root = json_object();
		rows = json_array();
		ta.arr = json_array();
		rc = -ENOMEM;
		if (!root || !rows || !ta.arr ||
			json_object_set_new(root, "fabric", fabric_json(par, block)))
			goto out;
		rc = each_row(plan, evs, n_evs, q, add_row_json, rows);
		if (!rc)
			rc = each_table(&l, add_table_json, &ta);
		if (!rc && (json_object_set(root, "paths", rows) ||
				   json_object_set(root, "tables", ta.arr)))
			rc = -ENOMEM;
		if (!rc && (json_dumpf(root, f, JSON_INDENT(1)) || fputc('\n', f) == EOF))
			rc = -EIO;
	}
	if (!rc && (fflush(f) || ferror(f)))
		rc = -EIO;
out:
	if (rc == -ENOMEM)
		mrc_errf(err, errlen, "paths: render: out of memory");
	else if (rc == -EIO)
		mrc_errf(err, errlen, "paths: write: %s", strerror(EIO));
	else if (rc)
		mrc_errf(err, errlen, "paths: path: %s", strerror(-rc));
	json_decref(rows);
	json_decref(ta.arr);
	json_decref(root);
	free(l.t0_used);
	free(l.t1_used);
	return rc;
}
