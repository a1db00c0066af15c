/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sweeprep: what `mrcgen sweep` makes of a sweep (docs/sweep.md): the per-path results
 * with the nodes each path crosses, the suspects mrc/job/tomo infers from them alone,
 * sweep.json (docs/schema/sweep-v1.schema.json) and reading it back for `--from`, the
 * terminal table of suspects, and the heat map of links x planes (gnuplot, mrc/out/plot).
 */
#ifndef MRC_SWEEPREP_H
#define MRC_SWEEPREP_H

#include "conf/conf.h"
#include "mrc/job/sweep.h"
#include "mrc/job/tomo.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MRC_SWEEPREP_SCHEMA "mrcgen-sweep/1"

struct mrc_sweeprep_path {
	uint32_t src, dst, ev, plane;
	char nodes[MRC_SWEEP_MAX_NODES][MRC_SWEEP_NODE_LEN]; /* travel order */
	unsigned n_nodes;
	uint32_t sent, delivered, answered, ce, reordered;
	uint32_t rtt_ns[MRC_SWEEP_RTT_N]; /* valid when answered */
};

struct mrc_sweeprep {
	char driver[8];		/* "sim", "wire" */
	char *config;		/* the effective config (conf_dump), NULL when unknown */
	uint32_t planes, t0, t1, hosts_per_t0;
	struct conf_sweep knobs;
	uint64_t requests, unsent; /* the plan's, and those max_time left unsent */
	double duration_us;	   /* from the first request to the end (sim: virtual time) */
	size_t n_links;		   /* the fabric's links */
	char **uncovered;	   /* links crossed by fewer than cover paths (all: by none) */
	size_t n_uncovered;
	struct mrc_sweeprep_path *paths;
	size_t n_paths;
	char *from;		   /* --from: the file the paths came from, else NULL */
	struct mrc_tomo_suspect *suspects; /* after mrc_sweeprep_infer */
	size_t n_suspects;
};

/*
 * The report of the measured sweep @sw of @job on driver @driver, @duration_ps long.
 * Returns 0 or -ENOMEM.
 */
int mrc_sweeprep_new(const struct conf_job *job, const struct mrc_sweep *sw,
	const char *driver, uint64_t duration_ps, struct mrc_sweeprep **out);
void mrc_sweeprep_free(struct mrc_sweeprep *r);

/*
 * Reads sweep.json @path (or a directory holding one) for `--from`: its paths[] (nodes,
 * sent, delivered, answered, and the rest as written), fabric, sweep knobs and plan;
 * never its suspects, which mrc_sweeprep_infer() makes again. Returns 0, or -ENOENT /
 * -EINVAL (not JSON, another schema, a path without its fields or with counts out of
 * range) / -ENOMEM with "FILE: reason" in @err.
 */
int mrc_sweeprep_load(const char *path, struct mrc_sweeprep **out, char *err, size_t errlen);

/* Runs the inference over r->paths with @min_score (mrc/job/tomo.h). Returns 0 or -ENOMEM. */
int mrc_sweeprep_infer(struct mrc_sweeprep *r, double min_score);

/*
 * The heat map's cells (docs/sweep.md "Outputs"): *@rows labels, one per link some path
 * crossed in some plane, with its plane left out ("h3-t0.0", "t0.1-t1.2"): host links by
 * host, then T0-T1 links by T0 and T1; *@v[row * planes + plane] the loss inferred for
 * that link (the suspect naming it, the bad direction's when one way; a switch suspect's
 * on every link of the switch; the largest when several), 0 when no suspect names it, NaN
 * when no path crossed it in that plane. Call after mrc_sweeprep_infer(). Release with
 * mrc_sweeprep_heat_free. Returns 0 or -ENOMEM.
 */
int mrc_sweeprep_heat(const struct mrc_sweeprep *r, char ***rows, size_t *n_rows, double **v);
void mrc_sweeprep_heat_free(char **rows, size_t n_rows, double *v);

/*
 * Writes @dir/sweep.json and, with @plots, the heat map @dir/sweep_heatmap.png (with its
 * .gp and .dat; a missing gnuplot leaves those two, as mrc_plot_png). Returns 0, or a
 * negative errno with "sweep.json: ..." or "sweep_heatmap: ..." in @err.
 */
int mrc_sweeprep_write(const struct mrc_sweeprep *r, const char *dir, bool plots, char *err,
	size_t errlen);

/* The terminal summary and the table of suspects (docs/sweep.md "Outputs"). */
void mrc_sweeprep_print(const struct mrc_sweeprep *r, FILE *f);

#endif
