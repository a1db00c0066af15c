/* SPDX-License-Identifier: BSD-2-Clause */
/* sweeprep: sweep.json, `--from`, the table of suspects and the heat map (sweeprep.h). */
#include "mrc/out/sweeprep.h"

#include "mrc/out/plot.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const rtt_keys[MRC_SWEEP_RTT_N] = { "min", "p50", "p90", "p99", "max" };

void mrc_sweeprep_free(struct mrc_sweeprep *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_uncovered; i++)
		free(r->uncovered[i]);
	free(r->uncovered);
	free(r->config);
	free(r->paths);
	free(r->from);
	free(r->suspects);
	free(r);
}

int mrc_sweeprep_new(const struct conf_job *job, const struct mrc_sweep *sw,
	const char *driver, uint64_t duration_ps, struct mrc_sweeprep **out)
{
	struct mrc_sweeprep *r = calloc(1, sizeof(*r));
	const struct mrc_sweep_path *sp = mrc_sweep_paths(sw);
	uint32_t want = job->sweep.cover ? job->sweep.cover : 1;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	snprintf(r->driver, sizeof(r->driver), "%s", driver);
	r->config = conf_dump_string(job, NULL);
	r->planes = job->fabric.planes;
	r->t0 = job->fabric.t0;
	r->t1 = job->fabric.t1;
	r->hosts_per_t0 = job->fabric.hosts_per_t0;
	r->knobs = job->sweep;
	r->requests = mrc_sweep_planned(sw);
	r->unsent = mrc_sweep_unsent(sw);
	r->duration_us = (double)duration_ps / 1e6;
	r->n_links = mrc_sweep_n_links(sw);
	r->n_paths = mrc_sweep_n_paths(sw);
	r->paths = calloc(r->n_paths + 1, sizeof(*r->paths));
	r->uncovered = calloc(r->n_links + 1, sizeof(*r->uncovered));
	if (!r->config || !r->paths || !r->uncovered)
		goto fail;
	for (size_t l = 0; l < r->n_links; l++) {
		char name[64];

		if (mrc_sweep_link_paths(sw, l) >= want)
			continue;
		r->uncovered[r->n_uncovered] = strdup(mrc_sweep_link_name(sw, l, name,
			sizeof(name)));
		if (!r->uncovered[r->n_uncovered++])
			goto fail;
	}
	for (size_t i = 0; i < r->n_paths; i++) {
		struct mrc_sweeprep_path *p = &r->paths[i];

		p->src = sp[i].src;
		p->dst = sp[i].dst;
		p->ev = sp[i].ev;
		p->plane = sp[i].plane;
		p->n_nodes = mrc_sweep_path_nodes(&sp[i], p->nodes);
		p->sent = sp[i].sent;
		p->delivered = sp[i].delivered;
		p->answered = sp[i].answered;
		p->ce = sp[i].ce;
		p->reordered = sp[i].reordered;
		memcpy(p->rtt_ns, sp[i].rtt_ns, sizeof(p->rtt_ns));
	}
	*out = r;
	return 0;
fail:
	mrc_sweeprep_free(r);
	return -ENOMEM;
}

int mrc_sweeprep_infer(struct mrc_sweeprep *r, double min_score)
{
	struct mrc_tomo *t = NULL;
	int e = mrc_tomo_new(&t);

	for (size_t i = 0; !e && i < r->n_paths; i++) {
		const struct mrc_sweeprep_path *p = &r->paths[i];
		const char *nodes[MRC_SWEEP_MAX_NODES];

		for (unsigned k = 0; k < p->n_nodes; k++)
			nodes[k] = p->nodes[k];
		e = mrc_tomo_path(t, nodes, p->n_nodes, p->sent, p->delivered, p->answered);
	}
	free(r->suspects);
	r->suspects = NULL;
	r->n_suspects = 0;
	if (!e)
		e = mrc_tomo_run(t, min_score, &r->suspects, &r->n_suspects);
	mrc_tomo_free(t);
	return e;
}

/* ---- reading sweep.json ---- */

static int bad(char *err, size_t errlen, const char *path, const char *what)
{
	snprintf(err, errlen, "%s: %s", path, what);
	return -EINVAL;
}

/* A non-negative integer member @k of @o, at most @max; false when absent or out of range. */
static bool get_u(json_t *o, const char *k, uint64_t max, uint64_t *v)
{
	json_t *j = json_object_get(o, k);

	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
		(uint64_t)json_integer_value(j) > max)
		return false;
	*v = (uint64_t)json_integer_value(j);
	return true;
}

static int load_path(json_t *jp, struct mrc_sweeprep_path *p)
{
	json_t *nodes = json_object_get(jp, "nodes"), *rtt = json_object_get(jp, "rtt_us");
	const char *ev = json_string_value(json_object_get(jp, "ev"));
	uint64_t v[8];
	static const char *const keys[] = { "src", "dst", "plane", "sent", "delivered",
		"answered", "ce", "reordered" };

	for (int k = 0; k < 8; k++)
		if (!get_u(jp, keys[k], UINT32_MAX, &v[k]))
			return -EINVAL;
	if (!ev || sscanf(ev, "0x%8" SCNx32, &p->ev) != 1 || !json_is_array(nodes) ||
		json_array_size(nodes) < 2 || json_array_size(nodes) > MRC_SWEEP_MAX_NODES)
		return -EINVAL;
	p->src = (uint32_t)v[0];
	p->dst = (uint32_t)v[1];
	p->plane = (uint32_t)v[2];
	p->sent = (uint32_t)v[3];
	p->delivered = (uint32_t)v[4];
	p->answered = (uint32_t)v[5];
	p->ce = (uint32_t)v[6];
	p->reordered = (uint32_t)v[7];
	if (p->delivered > p->sent || p->answered > p->sent || p->ce > p->delivered ||
		p->reordered > p->answered)
		return -EINVAL;
	p->n_nodes = (unsigned)json_array_size(nodes);
	for (unsigned k = 0; k < p->n_nodes; k++) {
		const char *s = json_string_value(json_array_get(nodes, k));

		if (!s || !*s || strlen(s) >= MRC_SWEEP_NODE_LEN)
			return -EINVAL;
		strcpy(p->nodes[k], s);
	}
	for (int k = 0; json_is_object(rtt) && k < MRC_SWEEP_RTT_N; k++) {
		json_t *x = json_object_get(rtt, rtt_keys[k]);

		if (json_is_number(x) && json_number_value(x) >= 0 &&
			json_number_value(x) < 4e6)
			p->rtt_ns[k] = (uint32_t)llround(json_number_value(x) * 1e3);
	}
	return 0;
}

int mrc_sweeprep_load(const char *path, struct mrc_sweeprep **out, char *err, size_t errlen)
{
	char file[4096];
	struct stat st;
	json_error_t je;
	json_t *root, *paths, *fab, *knobs, *plan;
	struct mrc_sweeprep *r;
	const char *s;
	uint64_t v;
	int e = -EINVAL;

	*out = NULL;
	snprintf(file, sizeof(file), "%s", path);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		snprintf(file, sizeof(file), "%s/sweep.json", path);
	root = json_load_file(file, 0, &je);
	if (!root) {
		if (stat(file, &st)) {
			snprintf(err, errlen, "%s: %s", file, strerror(errno));
			return -ENOENT;
		}
		snprintf(err, errlen, "%s: not JSON: line %d: %s", file, je.line, je.text);
		return -EINVAL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		json_decref(root);
		return -ENOMEM;
	}
	s = json_string_value(json_object_get(root, "schema"));
	paths = json_object_get(root, "paths");
	fab = json_object_get(root, "fabric");
	knobs = json_object_get(root, "sweep");
	plan = json_object_get(root, "plan");
	if (!s || strcmp(s, MRC_SWEEPREP_SCHEMA)) {
		e = bad(err, errlen, file, "not an mrcgen sweep: no \"schema\": \""
			MRC_SWEEPREP_SCHEMA "\"");
		goto out;
	}
	if (!json_is_array(paths) || !json_is_object(fab) || !json_is_object(knobs)) {
		e = bad(err, errlen, file, "no paths[], fabric or sweep");
		goto out;
	}
	s = json_string_value(json_object_get(root, "driver"));
	snprintf(r->driver, sizeof(r->driver), "%s", s ? s : "?");
	s = json_string_value(json_object_get(root, "config"));
	r->config = s ? strdup(s) : NULL;
	r->from = strdup(file);
	r->planes = get_u(fab, "planes", 16, &v) ? (uint32_t)v : 0;
	r->t0 = get_u(fab, "t0", UINT32_MAX, &v) ? (uint32_t)v : 0;
	r->t1 = get_u(fab, "t1", UINT32_MAX, &v) ? (uint32_t)v : 0;
	r->hosts_per_t0 = get_u(fab, "hosts_per_t0", UINT32_MAX, &v) ? (uint32_t)v : 0;
	r->knobs.cover = get_u(knobs, "cover", UINT32_MAX, &v) ? (uint32_t)v : 0;
	r->knobs.probes = get_u(knobs, "probes", UINT32_MAX, &v) ? (uint32_t)v : 0;
	r->knobs.rate = get_u(knobs, "rate", UINT32_MAX, &v) ? (uint32_t)v : 0;
	r->knobs.outstanding = get_u(knobs, "outstanding", UINT32_MAX, &v) ? (uint32_t)v : 0;
	r->knobs.min_score = json_number_value(json_object_get(knobs, "min_score"));
	r->requests = get_u(plan, "requests", UINT64_MAX >> 1, &v) ? v : 0;
	r->unsent = get_u(plan, "unsent", UINT64_MAX >> 1, &v) ? v : 0;
	r->n_links = get_u(plan, "links", UINT32_MAX, &v) ? v : 0;
	r->duration_us = json_number_value(json_object_get(root, "duration_us"));
	r->n_paths = json_array_size(paths);
	r->paths = calloc(r->n_paths + 1, sizeof(*r->paths));
	if (!r->from || !r->paths) {
		e = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->n_paths; i++) {
		if (load_path(json_array_get(paths, i), &r->paths[i])) {
			snprintf(err, errlen, "%s: paths[%zu]: a field missing or out of range "
				"(src dst ev plane nodes sent delivered answered ce reordered)",
				file, i);
			goto out;
		}
	}
	e = 0;
	*out = r;
	r = NULL;
out:
	mrc_sweeprep_free(r);
	json_decref(root);
	return e;
}

/* ---- the heat map ---- */

/* Row key of a link node pair and its plane, from the names: 0 host h -> (0, h, t0), 1
 * T0 i - T1 j -> (1, i, j). False when the names are not the fabric's. */
static bool link_key(const char *a, const char *b, uint32_t k[3], uint32_t *plane)
{
	uint32_t h, p, q, i, j;

	if (sscanf(a, "h%" SCNu32 ".p%" SCNu32, &h, &p) == 2 &&
		sscanf(b, "p%" SCNu32 ".t0.%" SCNu32, &q, &i) == 2) {
		k[0] = 0, k[1] = h, k[2] = i;
	} else if (sscanf(a, "p%" SCNu32 ".t0.%" SCNu32, &p, &i) == 2 &&
		   sscanf(b, "p%" SCNu32 ".t1.%" SCNu32, &q, &j) == 2) {
		k[0] = 1, k[1] = i, k[2] = j;
	} else {
		return false;
	}
	*plane = p;
	return p == q;
}

struct cell {
	uint32_t k[3], plane;
};

static int cell_cmp(const void *x, const void *y)
{
	const struct cell *a = x, *b = y;

	for (int i = 0; i < 3; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	return a->plane < b->plane ? -1 : a->plane > b->plane;
}

/* Does switch @sw ("p0.t0.1", "p0.t1.2") end the link of row key @k in plane @plane? */
static bool switch_on(const char *sw, const uint32_t k[3], uint32_t plane)
{
	uint32_t p, i;

	if (sscanf(sw, "p%" SCNu32 ".t0.%" SCNu32, &p, &i) == 2)
		return p == plane && ((k[0] == 0 && k[2] == i) || (k[0] == 1 && k[1] == i));
	if (sscanf(sw, "p%" SCNu32 ".t1.%" SCNu32, &p, &i) == 2)
		return p == plane && k[0] == 1 && k[2] == i;
	return false;
}

/* The loss the suspects give the link of row key @k in plane @plane (0: none names it). */
static double cell_loss(const struct mrc_sweeprep *r, const uint32_t k[3], uint32_t plane)
{
	double worst = 0;

	for (size_t i = 0; i < r->n_suspects; i++) {
		const struct mrc_tomo_suspect *s = &r->suspects[i];
		char a[64], *b;
		uint32_t sk[3], sp;
		bool on;

		if (s->is_switch) {
			on = switch_on(s->name, k, plane);
		} else {
			snprintf(a, sizeof(a), "%s", s->name);
			b = strchr(a, '-');
			if (!b)
				continue;
			*b++ = '\0';
			on = link_key(a, b, sk, &sp) && sp == plane && !memcmp(sk, k, sizeof(sk));
		}
		if (on && s->loss > worst)
			worst = s->loss;
	}
	return worst;
}

int mrc_sweeprep_heat(const struct mrc_sweeprep *r, char ***rows, size_t *n_rows, double **v)
{
	size_t n = 0, cap = 0, nr = 0;
	struct cell *c = NULL;
	uint32_t planes = r->planes ? r->planes : 1;

	*rows = NULL;
	*n_rows = 0;
	*v = NULL;
	for (size_t i = 0; i < r->n_paths; i++) {
		const struct mrc_sweeprep_path *p = &r->paths[i];

		for (unsigned h = 0; h + 1 < p->n_nodes; h++) {
			/* the upper half of a path travels down: its lower node is the later one */
			bool down = 2 * h + 1 >= p->n_nodes;
			const char *lo = p->nodes[down ? h + 1 : h], *hi = p->nodes[down ? h : h + 1];
			struct cell x = { 0 };

			if (!link_key(lo, hi, x.k, &x.plane) || x.plane >= planes)
				continue;
			if (n == cap) {
				struct cell *g = realloc(c, (cap ? 2 * cap : 64) * sizeof(*g));

				if (!g) {
					free(c);
					return -ENOMEM;
				}
				c = g;
				cap = cap ? 2 * cap : 64;
			}
			c[n++] = x;
		}
	}
	if (n)
		qsort(c, n, sizeof(*c), cell_cmp);
	for (size_t k = 0; k < n; k++)
		nr += !k || memcmp(c[k].k, c[k - 1].k, sizeof(c[k].k));
	*rows = calloc(nr + 1, sizeof(**rows));
	*v = calloc(nr * planes + 1, sizeof(**v));
	if (!*rows || !*v) {
		free(c);
		mrc_sweeprep_heat_free(*rows, 0, *v);
		*rows = NULL;
		*v = NULL;
		return -ENOMEM;
	}
	for (size_t k = 0; k < nr * planes; k++)
		(*v)[k] = NAN;
	nr = 0;
	for (size_t k = 0; k < n; k++) {
		if (!k || memcmp(c[k].k, c[k - 1].k, sizeof(c[k].k))) {
			char name[48];

			if (c[k].k[0] == 0)
				snprintf(name, sizeof(name), "h%" PRIu32 "-t0.%" PRIu32, c[k].k[1],
					c[k].k[2]);
			else
				snprintf(name, sizeof(name), "t0.%" PRIu32 "-t1.%" PRIu32, c[k].k[1],
					c[k].k[2]);
			(*rows)[nr++] = strdup(name);
			if (!(*rows)[nr - 1]) {
				free(c);
				mrc_sweeprep_heat_free(*rows, nr, *v);
				*rows = NULL;
				*v = NULL;
				return -ENOMEM;
			}
		}
		(*v)[(nr - 1) * planes + c[k].plane] = cell_loss(r, c[k].k, c[k].plane);
	}
	free(c);
	*n_rows = nr;
	return 0;
}

void mrc_sweeprep_heat_free(char **rows, size_t n_rows, double *v)
{
	for (size_t i = 0; rows && i < n_rows; i++)
		free(rows[i]);
	free(rows);
	free(v);
}

/* ---- writing ---- */

static json_t *suspect_json(const struct mrc_tomo_suspect *s)
{
	json_t *o = json_object(), *paths = json_array();

	json_object_set_new(o, s->is_switch ? "switch" : "link", json_string(s->name));
	if (!s->is_switch && s->dir != MRC_TOMO_BOTH)
		json_object_set_new(o, "direction",
			json_string(s->dir == MRC_TOMO_FORWARD ? "forward" : "reverse"));
	json_object_set_new(o, "score", json_real(round(s->score * 1000) / 1000));
	json_object_set_new(o, "loss", json_real(round(s->loss * 1e6) / 1e6));
	json_object_set_new(o, "sent", json_integer((json_int_t)s->sent));
	json_object_set_new(o, "lost", json_integer((json_int_t)s->lost));
	json_object_set_new(o, "lossy_paths", json_integer(s->n_lossy));
	for (uint32_t i = 0; i < s->n_paths; i++)
		json_array_append_new(paths, json_integer(s->paths[i]));
	json_object_set_new(o, "paths", paths);
	paths = json_array();
	for (unsigned i = 0; i < s->n_alike; i++)
		json_array_append_new(paths, json_string(s->alike[i]));
	json_object_set_new(o, "alike", paths);
	return o;
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? round((double)a / (double)b * 1e6) / 1e6 : 0;
}

static json_t *path_json(const struct mrc_sweeprep_path *p)
{
	json_t *o = json_object(), *nodes = json_array(), *rtt;
	char ev[16];

	snprintf(ev, sizeof(ev), "0x%08" PRIx32, p->ev);
	json_object_set_new(o, "src", json_integer(p->src));
	json_object_set_new(o, "dst", json_integer(p->dst));
	json_object_set_new(o, "ev", json_string(ev));
	json_object_set_new(o, "plane", json_integer(p->plane));
	for (unsigned k = 0; k < p->n_nodes; k++)
		json_array_append_new(nodes, json_string(p->nodes[k]));
	json_object_set_new(o, "nodes", nodes);
	json_object_set_new(o, "sent", json_integer(p->sent));
	json_object_set_new(o, "delivered", json_integer(p->delivered));
	json_object_set_new(o, "answered", json_integer(p->answered));
	json_object_set_new(o, "loss", json_real(ratio(p->sent - p->answered, p->sent)));
	json_object_set_new(o, "loss_forward", json_real(ratio(p->sent - p->delivered,
		p->sent)));
	json_object_set_new(o, "loss_reverse", json_real(ratio(p->delivered - p->answered,
		p->delivered)));
	json_object_set_new(o, "ce", json_integer(p->ce));
	json_object_set_new(o, "reordered", json_integer(p->reordered));
	if (p->answered) {
		rtt = json_object();
		for (int k = 0; k < MRC_SWEEP_RTT_N; k++)
			json_object_set_new(rtt, rtt_keys[k], json_real(p->rtt_ns[k] / 1e3));
	} else {
		rtt = json_null();
	}
	json_object_set_new(o, "rtt_us", rtt);
	return o;
}

static int write_json(const struct mrc_sweeprep *r, const char *path)
{
	json_t *root = json_object(), *o, *a;
	int e;

	json_object_set_new(root, "schema", json_string(MRC_SWEEPREP_SCHEMA));
	json_object_set_new(root, "driver", json_string(r->driver));
	json_object_set_new(root, "config", r->config ? json_string(r->config) : json_null());
	json_object_set_new(root, "from", r->from ? json_string(r->from) : json_null());
	o = json_object();
	json_object_set_new(o, "planes", json_integer(r->planes));
	json_object_set_new(o, "t0", json_integer(r->t0));
	json_object_set_new(o, "t1", json_integer(r->t1));
	json_object_set_new(o, "hosts_per_t0", json_integer(r->hosts_per_t0));
	json_object_set_new(root, "fabric", o);
	o = json_object();
	json_object_set_new(o, "cover", json_integer(r->knobs.cover));
	json_object_set_new(o, "probes", json_integer(r->knobs.probes));
	json_object_set_new(o, "rate", json_integer(r->knobs.rate));
	json_object_set_new(o, "outstanding", json_integer(r->knobs.outstanding));
	json_object_set_new(o, "timeout_us", json_real((double)r->knobs.timeout_ps / 1e6));
	json_object_set_new(o, "max_time_s", json_real((double)r->knobs.max_time_ps / 1e12));
	json_object_set_new(o, "min_score", json_real(r->knobs.min_score));
	json_object_set_new(o, "background_loss", json_real(MRC_TOMO_BACKGROUND));
	json_object_set_new(root, "sweep", o);
	o = json_object();
	json_object_set_new(o, "paths", json_integer((json_int_t)r->n_paths));
	json_object_set_new(o, "links", json_integer((json_int_t)r->n_links));
	json_object_set_new(o, "requests", json_integer((json_int_t)r->requests));
	json_object_set_new(o, "unsent", json_integer((json_int_t)r->unsent));
	a = json_array();
	for (size_t i = 0; i < r->n_uncovered; i++)
		json_array_append_new(a, json_string(r->uncovered[i]));
	json_object_set_new(o, "uncovered", a);
	json_object_set_new(root, "plan", o);
	json_object_set_new(root, "duration_us", json_real(round(r->duration_us * 1e3) / 1e3));
	a = json_array();
	for (size_t i = 0; i < r->n_suspects; i++)
		json_array_append_new(a, suspect_json(&r->suspects[i]));
	json_object_set_new(root, "suspects", a);
	a = json_array();
	for (size_t i = 0; i < r->n_paths; i++)
		json_array_append_new(a, path_json(&r->paths[i]));
	json_object_set_new(root, "paths", a);
	e = json_dump_file(root, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
		JSON_REAL_PRECISION(10)) ? -EIO : 0;
	json_decref(root);
	return e;
}

int mrc_sweeprep_write(const struct mrc_sweeprep *r, const char *dir, bool plots, char *err,
	size_t errlen)
{
	char path[4096];
	int e;

	snprintf(path, sizeof(path), "%s/sweep.json", dir);
	e = write_json(r, path);
	if (e) {
		snprintf(err, errlen, "sweep.json: %s: %s", path, strerror(-e));
		return e;
	}
	if (plots) {
		char **rows, xt[16][8];
		const char *xtics[16];
		size_t nr;
		double *v;

		e = mrc_sweeprep_heat(r, &rows, &nr, &v);
		if (e) {
			snprintf(err, errlen, "sweep_heatmap: %s", strerror(-e));
			return e;
		}
		for (uint32_t p = 0; p < r->planes && p < 16; p++) {
			snprintf(xt[p], sizeof(xt[p]), "p%" PRIu32, p);
			xtics[p] = xt[p];
		}
		if (nr && r->planes && r->planes <= 16) {
			struct mrc_plot_heat h = {
				.title = "inferred loss per link: its suspect's, or the switch's "
					 "(white: no suspect; grey: no path crossed it)",
				.xlabel = "plane", .ylabel = "link", .nx = r->planes, .ny = nr,
				.xtics = xtics, .ytics = (const char *const *)rows, .v = v,
			};

			e = mrc_plot_heat_png(dir, "sweep_heatmap", &h);
		}
		mrc_sweeprep_heat_free(rows, nr, v);
		if (e && e != -ENOENT) {
			snprintf(err, errlen, "sweep_heatmap: %s/sweep_heatmap.png: gnuplot failed",
				dir);
			return e;
		}
	}
	return 0;
}

/* ---- the terminal ---- */

void mrc_sweeprep_print(const struct mrc_sweeprep *r, FILE *f)
{
	uint64_t sent = 0, lost = 0;
	size_t lossy = 0;

	for (size_t i = 0; i < r->n_paths; i++) {
		sent += r->paths[i].sent;
		lost += r->paths[i].sent - r->paths[i].answered;
		lossy += r->paths[i].answered < r->paths[i].sent;
	}
	fprintf(f, "# sweep (%s%s%s): %zu paths", r->driver, r->from ? ", from " : "",
		r->from ? r->from : "", r->n_paths);
	if (r->knobs.cover)
		fprintf(f, ", each link on >= %" PRIu32 " (%zu links short of it)",
			r->knobs.cover, r->n_uncovered);
	else
		fprintf(f, ", every EV of every pair");
	fprintf(f, "; %" PRIu64 " probes sent, %" PRIu64 " lost, %zu paths lossy", sent, lost,
		lossy);
	if (r->unsent)
		fprintf(f, "; %" PRIu64 " not sent (sweep.max_time)", r->unsent);
	fprintf(f, "; %.1f us\n", r->duration_us);
	if (!r->n_suspects) {
		fprintf(f, "no suspect: no link's loss gains sweep.min_score (%g)\n",
			r->knobs.min_score);
		return;
	}
	fprintf(f, "%3s  %-24s %-8s %10s %8s %17s %6s\n", "#", "suspect", "dir", "score",
		"loss", "lost/sent", "paths");
	for (size_t i = 0; i < r->n_suspects; i++) {
		const struct mrc_tomo_suspect *s = &r->suspects[i];
		char ls[40];

		snprintf(ls, sizeof(ls), "%" PRIu64 "/%" PRIu64, s->lost, s->sent);
		fprintf(f, "%3zu  %-24s %-8s %10.1f %7.2f%% %17s %6" PRIu32 "\n", i + 1,
			s->name, s->is_switch ? "switch" : s->dir == MRC_TOMO_BOTH ? "both" :
			s->dir == MRC_TOMO_FORWARD ? "forward" : "reverse", s->score,
			100 * s->loss, ls, s->n_lossy);
		for (unsigned k = 0; k < s->n_alike; k++)
			fprintf(f, "%s%s%s", k ? ", " : "     alike (the paths cannot tell them "
				"apart): ", s->alike[k], k + 1 == s->n_alike ? "\n" : "");
	}
}
