/* SPDX-License-Identifier: BSD-2-Clause */
/* compare_test: unit tests of mrc/out/compare.c (`mrcgen-test compare`). */
#include "mrc/out/compare.c"
#include "mrc/base/st.h"

/* A report with one size and two counters, from hand-written JSON. */
static void t_report(struct mrc_cmp_input *in, const char *path, const char *config,
	double time_us, double busbw, int rtx)
{
	snprintf(in->path, sizeof(in->path), "%s", path);
	in->root = json_pack("{s:s, s:s, s:[{s:i, s:f, s:f, s:f, s:{s:s, s:{s:f, s:f}}}],"
		" s:{s:i, s:i}, s:[{s:s, s:s, s:f}]}",
		"schema", MRC_CMP_SCHEMA, "config", config,
		"sizes", "bytes", 65536, "time_us", time_us, "algbw_GBps", 1.0,
		"busbw_GBps", busbw, "cct_us", "size", "64KiB", "percentiles", "p50", time_us,
		"p99", time_us * 2,
		"counters", "data_pkts", 100, "rtx_pkts", rtx,
		"faults", "action", "link_down", "target", "p0.t0.0-p0.t1.0", "recovery_us",
		time_us / 10);
}

/* The figure @name of @arr (an array of {name, values, ratios}), or NULL. */
static const json_t *t_fig(const json_t *arr, const char *name)
{
	size_t i;
	json_t *f;

	json_array_foreach(arr, i, f)
		if (strcmp(json_string_value(json_object_get(f, "name")), name) == 0)
			return f;
	return NULL;
}

MRC_SELFTEST(compare)
{
	struct mrc_cmp_input in[3];
	json_t *cmp, *cfg;
	const json_t *fig;

	mrc_st_case(st, "ratio: null figures and a zero reference");
	/* ratios: null figures and a zero reference */
	ST_EQ_D(st, mrc_cmp_ratio(3, 2), 1.5, 1e-12);
	ST_TRUE(st, isnan(mrc_cmp_ratio(NAN, 2)));
	ST_TRUE(st, isnan(mrc_cmp_ratio(1, NAN)));
	ST_TRUE(st, isnan(mrc_cmp_ratio(1, 0)));
	ST_EQ_D(st, mrc_cmp_ratio(0, 0), 1, 0);

	mrc_st_case(st, "build: config diff, ratios, counters, faults, regressions");
	/* a comparison of three: the keys that differ (one only in C), the ratios to A */
	t_report(&in[0], "a", "seed: 1\nmrc:\n  transport: mrc\n", 100, 10, 0);
	t_report(&in[1], "b", "seed: 1\nmrc:\n  transport: roce\n", 120, 9.5, 0);
	t_report(&in[2], "c", "seed: 1\nmrc:\n  transport: mrc\n  x: 1\n", 90, 12, 3);
	cmp = mrc_cmp_build(in, 3, &(struct mrc_cmp_opts){ .max_regress = 10 });
	ST_TRUE(st, cmp != NULL);
	cfg = json_object_get(cmp, "config");
	ST_EQ(st, json_array_size(cfg), 2u);
	ST_EQ_STR(st, json_string_value(json_object_get(json_array_get(cfg, 0), "key")),
		"mrc.transport");
	ST_EQ_STR(st, json_string_value(json_object_get(json_array_get(cfg, 1), "key")),
		"mrc.x");
	ST_TRUE(st, json_is_null(json_array_get(json_object_get(json_array_get(cfg, 1),
		"values"), 0)));
	fig = t_fig(json_object_get(json_array_get(json_object_get(cmp, "sizes"), 0), "figures"),
		"time_us");
	ST_TRUE(st, fig != NULL);
	ST_EQ_D(st, json_real_value(json_array_get(json_object_get(fig, "ratios"), 0)), 1, 0);
	ST_EQ_D(st, json_real_value(json_array_get(json_object_get(fig, "ratios"), 1)), 1.2,
		1e-12);
	ST_EQ_D(st, json_real_value(json_array_get(json_object_get(fig, "ratios"), 2)), 0.9,
		1e-12);
	fig = t_fig(json_object_get(json_array_get(json_object_get(cmp, "sizes"), 0), "figures"),
		"p99_us");
	ST_EQ_D(st, json_real_value(json_array_get(json_object_get(fig, "values"), 1)), 240, 0);
	/* only the counter that differs; a zero reference gives a null ratio */
	ST_EQ(st, json_array_size(json_object_get(cmp, "counters")), 1u);
	fig = t_fig(json_object_get(cmp, "counters"), "rtx_pkts");
	ST_TRUE(st, fig != NULL);
	ST_TRUE(st, json_is_null(json_array_get(json_object_get(fig, "ratios"), 2)));
	/* the fault row matched by action and target */
	ST_EQ(st, json_array_size(json_object_get(cmp, "faults")), 1u);
	/* B's CCT is 20 % above A's (> 10 %); B's busbw 5 % below (not beyond); C is better */
	ST_EQ(st, json_array_size(json_object_get(cmp, "regressions")), 1u);
	ST_EQ_STR(st, json_string_value(json_object_get(json_array_get(json_object_get(cmp,
		"regressions"), 0), "figure")), "time_us");
	json_decref(cmp);
	cmp = mrc_cmp_build(in, 3, &(struct mrc_cmp_opts){ .max_regress = -1, .all = true });
	ST_EQ(st, json_array_size(json_object_get(cmp, "counters")), 2u);
	ST_TRUE(st, json_is_null(json_object_get(cmp, "regressions")));
	json_decref(cmp);
	for (int k = 0; k < 3; k++)
		json_decref(in[k].root);
}
