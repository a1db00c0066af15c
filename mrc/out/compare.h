/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * compare: `mrcgen compare A B [C...]` — reports (report.json, docs/report.md) side by side:
 * the config keys that differ, per size CCT, percentiles and bandwidths with ratios to A,
 * the counters, the fault-recovery rows, overlay plots and a JSON form of it all
 * (docs/cli.md "compare").
 */
#ifndef MRC_COMPARE_H
#define MRC_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The report version compare reads. */
#define MRC_CMP_SCHEMA "mrcgen-report/1"

/* One input: its report.json path and the parsed report. */
struct mrc_cmp_input {
	char path[4096];
	json_t *root;
};

/*
 * Loads @arg, a report.json or a directory holding one, into @in. Returns 0, or -1 with
 * the reason, naming the file, in @err: missing or unreadable file, not JSON, not a
 * report (no "schema"), a schema other than MRC_CMP_SCHEMA.
 */
int mrc_cmp_load(const char *arg, struct mrc_cmp_input *in, char *err, size_t len);

/*
 * @b / @a for a figure of input B against input A: NAN when either is NAN (a null figure)
 * or @a is 0 (with @b 0 too the ratio is 1: both nothing).
 */
double mrc_cmp_ratio(double b, double a);

/* Options of mrc_cmp_run. */
struct mrc_cmp_opts {
	bool all;		/* every counter, not only those that differ */
	bool json;		/* print the JSON form, not the tables */
	double max_regress;	/* percent; < 0: no check */
	const char *plot_dir;	/* the overlay plots go there; NULL: none */
};

/*
 * Builds the comparison of @in[0..@n) (the first is A, the reference) as JSON: the
 * structure docs/cli.md "compare" describes. With @o->max_regress >= 0 its
 * "regressions" array lists every figure beyond the threshold. Returns a new reference,
 * or NULL when out of memory.
 */
json_t *mrc_cmp_build(const struct mrc_cmp_input *in, size_t n, const struct mrc_cmp_opts *o);

/* Prints the comparison @cmp (from mrc_cmp_build) as tables to @f. */
void mrc_cmp_print(FILE *f, const json_t *cmp);

/*
 * Writes @dir/compare_cct.png (CCT per measured iteration, a curve per input and size) and
 * @dir/compare_goodput.png (goodput over time, a curve per input) through mrc_plot_png.
 * Returns 0 or the first negative errno of mrc_plot_png (-ENOENT: no gnuplot).
 */
int mrc_cmp_plot(const char *dir, const struct mrc_cmp_input *in, size_t n);

#endif
