/* SPDX-License-Identifier: BSD-2-Clause */
/* compare: reports side by side; see compare.h and docs/cli.md "compare". */
#include "mrc/out/compare.h"
#include "conf/flat.h"

#include "mrc/out/plot.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int mrc_cmp_load(const char *arg, struct mrc_cmp_input *in, char *err, size_t len)
{
	struct stat st;
	json_error_t je;
	const char *schema;

	in->root = NULL;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(in->path, sizeof(in->path), "%s/report.json", arg);
	else
		snprintf(in->path, sizeof(in->path), "%s", arg);
	if (stat(in->path, &st)) {
		snprintf(err, len, "%s: %s", in->path, strerror(errno));
		return -1;
	}
	in->root = json_load_file(in->path, 0, &je);
	if (!in->root) {
		snprintf(err, len, "%s: not JSON: line %d: %s", in->path, je.line, je.text);
		return -1;
	}
	schema = json_string_value(json_object_get(in->root, "schema"));
	if (!json_is_object(in->root) || !schema) {
		snprintf(err, len, "%s: not an mrcgen report (no \"schema\": \"%s\")", in->path,
			MRC_CMP_SCHEMA);
	} else if (strcmp(schema, MRC_CMP_SCHEMA)) {
		snprintf(err, len, "%s: unknown schema '%s' (this mrcgen reads %s)", in->path,
			schema, MRC_CMP_SCHEMA);
	} else {
		return 0;
	}
	json_decref(in->root);
	in->root = NULL;
	return -1;
}

/* ---- figures ---- */

double mrc_cmp_ratio(double b, double a)
{
	if (isnan(a) || isnan(b))
		return NAN;
	if (a == 0)
		return b == 0 ? 1 : NAN;
	return b / a;
}

/* A JSON number as a double; NAN for null or anything else. */
static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A double as JSON: null for NAN. */
static json_t *j_num(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

/*
 * A figure row {name, values[], ratios[]} from the @n values @v (@v[0] is A's): values as
 * the reports hold them, ratios to A's (A's own 1, or null).
 */
static json_t *j_figure(const char *name, json_t *const *v, size_t n)
{
	json_t *vals = json_array(), *rat = json_array();
	double a = num(v[0]);

	for (size_t k = 0; k < n; k++) {
		json_array_append_new(vals, v[k] ? json_deep_copy(v[k]) : json_null());
		json_array_append_new(rat, j_num(mrc_cmp_ratio(num(v[k]), a)));
	}
	return json_pack("{s:s, s:o, s:o}", "name", name, "values", vals, "ratios", rat);
}

/* Input @k's size row of @bytes bytes, or NULL. */
static json_t *size_row(const json_t *root, json_int_t bytes)
{
	size_t i;
	json_t *s;

	json_array_foreach(json_object_get(root, "sizes"), i, s)
		if (json_integer_value(json_object_get(s, "bytes")) == bytes)
			return s;
	return NULL;
}

/* The figures of a size row: time_us, p50 and p99 of its CCT histogram, algbw, busbw. */
static const char *const size_figs[] = { "time_us", "p50_us", "p99_us", "algbw_GBps",
	"busbw_GBps" };

static json_t *size_fig(const json_t *s, const char *fig)
{
	const json_t *pc = json_object_get(json_object_get(s, "cct_us"), "percentiles");

	if (!s)
		return NULL;
	if (strcmp(fig, "p50_us") == 0)
		return json_object_get(pc, "p50");
	if (strcmp(fig, "p99_us") == 0)
		return json_object_get(pc, "p99");
	return json_object_get(s, fig);
}

/* The regressions of size @row (its "figures" of @n inputs) beyond @pct percent. */
static void regressions(json_t *out, const json_t *row, size_t n, double pct)
{
	size_t i;
	json_t *fig;

	json_array_foreach(json_object_get(row, "figures"), i, fig) {
		const char *name = json_string_value(json_object_get(fig, "name"));
		bool up = strcmp(name, "time_us") == 0, down = strcmp(name, "busbw_GBps") == 0;

		if (!up && !down)
			continue;
		for (size_t k = 1; k < n; k++) {
			double r = num(json_array_get(json_object_get(fig, "ratios"), k));
			double d = (r - 1) * 100;

			if (isnan(r) || !(up ? d > pct : -d > pct))
				continue;
			json_array_append_new(out, json_pack("{s:i, s:O, s:s, s:f, s:f}",
				"input", (json_int_t)k, "size", json_object_get(row, "size"),
				"figure", name, "pct", d, "max_pct", pct));
		}
	}
}

static json_t *j_config(const struct mrc_cmp_input *in, size_t n)
{
	struct conf_flat *f = calloc(n, sizeof(*f));
	json_t *out = json_array();

	if (!f)
		return out;
	for (size_t k = 0; k < n; k++)
		conf_flatten(json_string_value(json_object_get(in[k].root, "config")) ?: "",
			&f[k]);
	/* every key, in the order of the first input that has it */
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < f[k].n; i++) {
			const char *key = f[k].kv[i].key;
			bool seen = false, differ = false;
			json_t *vals;

			for (size_t j = 0; j < k && !seen; j++)
				seen = conf_flat_get(&f[j], key) != NULL;
			for (size_t j = 0; j < n && !seen && !differ; j++) {
				const char *v = conf_flat_get(&f[j], key);

				differ = !v || strcmp(v, f[k].kv[i].value);
			}
			if (seen || !differ)
				continue;
			vals = json_array();
			for (size_t j = 0; j < n; j++) {
				const char *v = conf_flat_get(&f[j], key);

				json_array_append_new(vals, v ? json_string(v) : json_null());
			}
			json_array_append_new(out, json_pack("{s:s, s:o}", "key", key, "values",
				vals));
		}
	for (size_t k = 0; k < n; k++)
		conf_flat_free(&f[k]);
	free(f);
	return out;
}

static json_t *j_sizes(const struct mrc_cmp_input *in, size_t n, const struct mrc_cmp_opts *o,
	json_t *regress)
{
	json_t *out = json_array(), *s, **v = calloc(n, sizeof(*v));
	size_t i;

	if (!v)
		return out;
	json_array_foreach(json_object_get(in[0].root, "sizes"), i, s) {
		json_int_t bytes = json_integer_value(json_object_get(s, "bytes"));
		json_t *figs = json_array(), *row;

		for (size_t f = 0; f < sizeof(size_figs) / sizeof(size_figs[0]); f++) {
			for (size_t k = 0; k < n; k++)
				v[k] = size_fig(size_row(in[k].root, bytes), size_figs[f]);
			json_array_append_new(figs, j_figure(size_figs[f], v, n));
		}
		row = json_pack("{s:I, s:O, s:o}", "bytes", bytes, "size",
			json_object_get(json_object_get(s, "cct_us"), "size"), "figures", figs);
		if (o->max_regress >= 0)
			regressions(regress, row, n, o->max_regress);
		json_array_append_new(out, row);
	}
	free(v);
	return out;
}

/* Counter @key of input @in, or NULL. */
static json_t *counter(const struct mrc_cmp_input *in, const char *key)
{
	return json_object_get(json_object_get(in->root, "counters"), key);
}

static json_t *j_counters(const struct mrc_cmp_input *in, size_t n, bool all)
{
	json_t *out = json_array(), *val, **v = calloc(n, sizeof(*v));
	const char *key;

	if (!v)
		return out;
	for (size_t k = 0; k < n; k++)
		json_object_foreach(json_object_get(in[k].root, "counters"), key, val) {
			bool seen = false, differ = false;

			for (size_t j = 0; j < k && !seen; j++)
				seen = counter(&in[j], key) != NULL;
			for (size_t j = 0; j < n; j++) {
				v[j] = counter(&in[j], key);
				differ |= !v[j] || !json_equal(v[j], val);
			}
			if (!seen && (all || differ))
				json_array_append_new(out, j_figure(key, v, n));
		}
	free(v);
	return out;
}

/* The recovery figures of a fault row, side by side. */
static const char *const fault_figs[] = { "recovery_us", "cct_inflation", "first_ev_retired_us",
	"evs_retired", "rtx_bytes", "capacity_left" };

/* Whether fault row @f is of @action on @target. */
static bool fault_is(const json_t *f, const char *action, const char *target)
{
	return !strcmp(json_string_value(json_object_get(f, "action")) ?: "", action) &&
		!strcmp(json_string_value(json_object_get(f, "target")) ?: "", target);
}

/* Input @k's @occ-th fault (0-based) of @action on @target, or NULL. */
static json_t *fault_match(const json_t *root, const char *action, const char *target,
	size_t occ)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(root, "faults"), i, f)
		if (fault_is(f, action, target) && occ-- == 0)
			return f;
	return NULL;
}

/* Fault rows matched by action, target and occurrence: A's in order, then the others'. */
static json_t *j_faults(const struct mrc_cmp_input *in, size_t n)
{
	json_t *out = json_array(), *f, **v = calloc(n, sizeof(*v)), **m = calloc(n, sizeof(*m));
	size_t i;

	if (!v || !m)
		goto out;
	for (size_t k = 0; k < n; k++)
		json_array_foreach(json_object_get(in[k].root, "faults"), i, f) {
			const char *act = json_string_value(json_object_get(f, "action")) ?: "";
			const char *tgt = json_string_value(json_object_get(f, "target")) ?: "";
			size_t occ = 0, j;
			json_t *figs;
			bool seen = false;

			for (j = 0; j < i; j++)
				occ += fault_is(json_array_get(json_object_get(in[k].root,
					"faults"), j), act, tgt);
			for (j = 0; j < k && !seen; j++)
				seen = fault_match(in[j].root, act, tgt, occ) != NULL;
			if (seen)
				continue;
			for (j = 0; j < n; j++)
				m[j] = fault_match(in[j].root, act, tgt, occ);
			figs = json_array();
			for (size_t g = 0; g < sizeof(fault_figs) / sizeof(fault_figs[0]); g++) {
				for (j = 0; j < n; j++)
					v[j] = m[j] ? json_object_get(m[j], fault_figs[g]) : NULL;
				json_array_append_new(figs, j_figure(fault_figs[g], v, n));
			}
			json_array_append_new(out, json_pack("{s:s, s:s, s:I, s:o}", "action", act,
				"target", tgt, "occurrence", (json_int_t)occ, "figures", figs));
		}
out:
	free(v);
	free(m);
	return out;
}

json_t *mrc_cmp_build(const struct mrc_cmp_input *in, size_t n, const struct mrc_cmp_opts *o)
{
	json_t *inputs = json_array(), *regress = json_array(), *cmp;

	for (size_t k = 0; k < n; k++)
		json_array_append_new(inputs, json_string(in[k].path));
	cmp = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "schema", "mrcgen-compare/1",
		"inputs", inputs, "config", j_config(in, n), "sizes", j_sizes(in, n, o, regress),
		"counters", j_counters(in, n, o->all), "faults", j_faults(in, n));
	if (cmp)
		json_object_set_new(cmp, "regressions", o->max_regress >= 0 ? regress :
			(json_decref(regress), json_null()));
	return cmp;
}

/* ---- tables ---- */

/* Prints one value column: a number in %.6g, a string, or "-" for null or missing. */
static void p_val(FILE *f, const json_t *v, int w)
{
	char b[64];

	if (json_is_number(v))
		snprintf(b, sizeof(b), "%.6g", json_number_value(v));
	else
		snprintf(b, sizeof(b), "%s", json_is_string(v) ? json_string_value(v) : "-");
	fprintf(f, " %*s", w, b);
}

/* The header of the value columns of @n inputs: A, B, B/A, C, C/A ... */
static void p_head(FILE *f, size_t n, int w)
{
	char b[8];

	for (size_t k = 0; k < n; k++) {
		fprintf(f, " %*c", w, (int)('A' + k));
		if (k) {
			snprintf(b, sizeof(b), "%c/A", (int)('A' + k));
			fprintf(f, " %*s", 7, b);
		}
	}
	fputc('\n', f);
}

/* A figure row: its values and, for B on, the ratio to A. */
static void p_figure(FILE *f, const json_t *fig, int w)
{
	const json_t *vals = json_object_get(fig, "values");
	const json_t *rat = json_object_get(fig, "ratios");

	for (size_t k = 0; k < json_array_size(vals); k++) {
		p_val(f, json_array_get(vals, k), w);
		if (k) {
			double r = num(json_array_get(rat, k));

			if (isnan(r))
				fprintf(f, " %7s", "-");
			else
				fprintf(f, " %7.3f", r);
		}
	}
	fputc('\n', f);
}

void mrc_cmp_print(FILE *f, const json_t *cmp)
{
	const json_t *inputs = json_object_get(cmp, "inputs"), *row, *fig;
	size_t n = json_array_size(inputs), i, j;
	const int w = 12;

	for (size_t k = 0; k < n; k++)
		fprintf(f, "# %c = %s\n", (int)('A' + k), json_string_value(json_array_get(inputs,
			k)));

	fprintf(f, "\n# config: %zu keys differ\n", json_array_size(json_object_get(cmp,
		"config")));
	if (json_array_size(json_object_get(cmp, "config"))) {
		fprintf(f, "%-32s", "key");
		for (size_t k = 0; k < n; k++)
			fprintf(f, " %*c", w, (int)('A' + k));
		fputc('\n', f);
	}
	json_array_foreach(json_object_get(cmp, "config"), i, row) {
		fprintf(f, "%-32s", json_string_value(json_object_get(row, "key")));
		for (size_t k = 0; k < n; k++)
			p_val(f, json_array_get(json_object_get(row, "values"), k), w);
		fputc('\n', f);
	}

	fprintf(f, "\n# sizes\n%-10s %-12s", "size", "figure");
	p_head(f, n, w);
	json_array_foreach(json_object_get(cmp, "sizes"), i, row)
		json_array_foreach(json_object_get(row, "figures"), j, fig) {
			fprintf(f, "%-10s %-12s", j ? "" : json_string_value(json_object_get(row,
				"size")) ?: "?", json_string_value(json_object_get(fig, "name")));
			p_figure(f, fig, w);
		}

	fprintf(f, "\n# counters: %zu shown\n", json_array_size(json_object_get(cmp,
		"counters")));
	if (json_array_size(json_object_get(cmp, "counters"))) {
		fprintf(f, "%-23s", "counter");
		p_head(f, n, w);
	}
	json_array_foreach(json_object_get(cmp, "counters"), i, fig) {
		fprintf(f, "%-23s", json_string_value(json_object_get(fig, "name")));
		p_figure(f, fig, w);
	}

	fprintf(f, "\n# faults: %zu rows\n", json_array_size(json_object_get(cmp, "faults")));
	json_array_foreach(json_object_get(cmp, "faults"), i, row) {
		fprintf(f, "%s %s #%lld\n", json_string_value(json_object_get(row, "action")),
			json_string_value(json_object_get(row, "target")),
			(long long)json_integer_value(json_object_get(row, "occurrence")));
		fprintf(f, "  %-21s", "figure");
		p_head(f, n, w);
		json_array_foreach(json_object_get(row, "figures"), j, fig) {
			fprintf(f, "  %-21s", json_string_value(json_object_get(fig, "name")));
			p_figure(f, fig, w);
		}
	}
}

/* ---- plots ---- */

int mrc_cmp_plot(const char *dir, const struct mrc_cmp_input *in, size_t n)
{
	size_t ns = 0, nc = 0, np = 0, i, j;
	json_t *s, *it;
	int ret = -ENOMEM, r;

	for (size_t k = 0; k < n; k++) {
		ns += json_array_size(json_object_get(in[k].root, "sizes"));
		np += json_array_size(json_object_get(in[k].root, "iterations")) +
			json_array_size(json_object_get(json_object_get(in[k].root, "goodput"),
				"gbps"));
	}
	struct mrc_plot_series *c = calloc(ns + n + 1, sizeof(*c));
	char (*titles)[96] = calloc(ns + n + 1, sizeof(*titles));
	double *x = calloc(np + 1, sizeof(double)), *y = calloc(np + 1, sizeof(double));

	if (!c || !titles || !x || !y)
		goto out;
	np = 0;
	/* CCT per measured iteration: a curve per input and size */
	for (size_t k = 0; k < n; k++)
		json_array_foreach(json_object_get(in[k].root, "sizes"), i, s) {
			json_int_t bytes = json_integer_value(json_object_get(s, "bytes"));
			size_t first = np;

			json_array_foreach(json_object_get(in[k].root, "iterations"), j, it) {
				if (json_integer_value(json_object_get(it, "bytes")) != bytes ||
					!json_is_integer(json_object_get(it, "measured")) ||
					!json_is_number(json_object_get(it, "cct_us")))
					continue;
				x[np] = (double)json_integer_value(json_object_get(it, "measured"));
				y[np++] = json_number_value(json_object_get(it, "cct_us"));
			}
			snprintf(titles[nc], sizeof(titles[nc]), "%c %s", (int)('A' + k),
				json_string_value(json_object_get(json_object_get(s, "cct_us"),
					"size")) ?: "?");
			c[nc] = (struct mrc_plot_series){ .title = titles[nc], .x = x + first,
				.y = y + first, .n = np - first };
			nc++;
		}
	ret = mrc_plot_png(dir, "compare_cct", &(struct mrc_plot){
		.title = "Collective completion time per measured iteration",
		.xlabel = "measured iteration", .ylabel = "CCT (us)", .series = c,
		.n_series = nc, .key = "outside right top", .yrange = "[0:*]", .xtics = "1" });

	/* goodput over time: a curve per input */
	for (size_t k = 0; k < n; k++) {
		const json_t *g = json_object_get(in[k].root, "goodput");
		double bin = num(json_object_get(g, "bin_us"));
		size_t first = np;

		json_array_foreach(json_object_get(g, "gbps"), j, it) {
			x[np] = (double)j * bin / 1e3;
			y[np++] = num(it);
		}
		snprintf(titles[ns + k], sizeof(titles[ns + k]), "%c", (int)('A' + k));
		c[k] = (struct mrc_plot_series){ .title = titles[ns + k], .x = x + first,
			.y = y + first, .n = np - first };
	}
	r = mrc_plot_png(dir, "compare_goodput", &(struct mrc_plot){
		.title = "Delivered to hosts (all ranks)", .xlabel = "virtual time (ms)",
		.ylabel = "Gb/s", .series = c, .n_series = n, .style = MRC_PLOT_STEPS,
		.key = "outside right top", .xrange = "[0:*]", .yrange = "[0:*]" });
	if (!ret)
		ret = r;
out:
	free(c);
	free(titles);
	free(x);
	free(y);
	return ret;
}
