/* SPDX-License-Identifier: BSD-2-Clause */
/* tomo_test: unit tests of mrc/job/tomo.c (`mrcgen-test tomo`); includes tomo.c to reach its
 * statics. */
#include "mrc/job/tomo.c"
#include "mrc/base/st.h"

/*
 * One plane of a 2-tier fabric: @t0 T0s of 2 hosts each, @t1 T1s. Every ordered pair of
 * hosts on different T0s over every T1, and every pair on one T0, 16 requests each. The
 * faults are exact: a hop named in @lossy (travel order "a>b") drops the fraction given,
 * so a path's counts are 16 x the product of what its hops keep, rounded down.
 */
struct tt_fault {
	const char *hop; /* "p0.t0.0>p0.t1.1": that direction; "*p0.t1.1": every hop of it */
	double drop;
};

static double tt_keep(const struct tt_fault *f, size_t nf, const char *a, const char *b)
{
	char hop[64];
	double k = 1;

	snprintf(hop, sizeof(hop), "%s>%s", a, b);
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(f[i].hop, hop) || (f[i].hop[0] == '*' && (!strcmp(f[i].hop + 1, a) ||
			!strcmp(f[i].hop + 1, b))))
			k *= 1 - f[i].drop;
	return k;
}

/* Adds the plane's paths to @t with the counts the faults leave; returns how many. */
static unsigned tt_paths(struct mrc_tomo *t, unsigned t0, unsigned t1,
	const struct tt_fault *f, size_t nf)
{
	unsigned n = 0;

	for (unsigned s = 0; s < 2 * t0; s++)
		for (unsigned d = 0; d < 2 * t0; d++)
			for (unsigned j = 0; d != s && j < (s / 2 == d / 2 ? 1 : t1); j++) {
				char nm[5][24];
				const char *v[5];
				unsigned k = 0;
				double fw = 1, rv = 1;
				uint64_t dl, an;

				snprintf(nm[k++], 24, "h%u.p0", s);
				snprintf(nm[k++], 24, "p0.t0.%u", s / 2);
				if (s / 2 != d / 2) {
					snprintf(nm[k++], 24, "p0.t1.%u", j);
					snprintf(nm[k++], 24, "p0.t0.%u", d / 2);
				}
				snprintf(nm[k++], 24, "h%u.p0", d);
				for (unsigned i = 0; i < k; i++)
					v[i] = nm[i];
				for (unsigned i = 0; i + 1 < k; i++) {
					fw *= tt_keep(f, nf, nm[i], nm[i + 1]);
					rv *= tt_keep(f, nf, nm[i + 1], nm[i]);
				}
				dl = (uint64_t)(16 * fw + 1e-9);
				an = (uint64_t)((double)dl * rv + 1e-9);
				mrc_tomo_path(t, v, k, 16, dl, an);
				n++;
			}
	return n;
}

/* Runs the inference over the plane's paths with @f. */
static int tt_run(unsigned t0, unsigned t1, const struct tt_fault *f, size_t nf, double min,
	struct mrc_tomo_suspect **s, size_t *n)
{
	struct mrc_tomo *t = NULL;
	int e = mrc_tomo_new(&t);

	if (!e)
		tt_paths(t, t0, t1, f, nf);
	e = e ?: mrc_tomo_run(t, min, s, n);
	mrc_tomo_free(t);
	return e;
}

MRC_SELFTEST(tomo)
{
	struct mrc_tomo_suspect *s = NULL;
	struct mrc_tomo *t = NULL;
	size_t n = 0;
	double lnb = log(MRC_TOMO_BACKGROUND);

	mrc_st_case(st, "T01 no loss: no suspect");
	ST_EQ_I(st, tt_run(3, 2, NULL, 0, 10, &s, &n), 0);
	ST_EQ(st, n, 0);
	free(s);

	/*
	 * T0 1 - T1 1 dead: the paths over T1 1 to or from hosts 2, 3: 2 x 2 x 4 = 16 (h2, h3
	 * to the 4 hosts of T0 0 and 2, and back). Each lost its 16 requests at that link,
	 * going up (from h2, h3) or down (to them): 16 observations of 16 lost requests, none
	 * answer seen. Without it each costs 16 ln(1e-4): the score is 16 x 16 x -ln(1e-4).
	 */
	mrc_st_case(st, "T02 a dead link: the one suspect, both ways, loss 1, score 256 x "
			"-ln(1e-4) = 2357.8, 256/256 lost, 16 lossy paths");
	{
		const struct tt_fault f[] = { { "p0.t0.1>p0.t1.1", 1 }, { "p0.t1.1>p0.t0.1", 1 } };

		ST_EQ_I(st, tt_run(3, 2, f, 2, 10, &s, &n), 0);
		ST_EQ(st, n, 1);
		if (n >= 1) {
			ST_EQ_STR(st, s[0].name, "p0.t0.1-p0.t1.1");
			ST_TRUE(st, !s[0].is_switch);
			ST_EQ(st, s[0].dir, MRC_TOMO_BOTH);
			ST_EQ_D(st, s[0].loss, 1, 1e-6);
			ST_EQ_D(st, s[0].score, -256 * lnb, 1e-6);
			ST_EQ(st, s[0].sent, 256);
			ST_EQ(st, s[0].lost, 256);
			ST_EQ(st, s[0].n_lossy, 16);
			ST_EQ(st, s[0].n_alike, 0);
		}
		free(s);
	}

	/*
	 * h3 <- T0 1 drops 1/4 one way: requests to h3 (5 from the other 5 hosts, but those of
	 * T0 0 and 2 over 2 T1s: 1 + 4 x 2 = 9 paths) lose 4 of 16; answers to h3 (h3's 9
	 * paths) 4 of 16 too. 18 observations of 12 / 16: the MLE of the survival is 0.75 /
	 * (1 - 1e-4), the loss 1 - 0.75 / 0.9999.
	 */
	mrc_st_case(st, "T03 a link lossy one way: named host first, direction reverse, loss "
			"1 - 0.75 / 0.9999, 72/288 lost over 18 paths");
	{
		const struct tt_fault f[] = { { "p0.t0.1>h3.p0", 0.25 } };

		ST_EQ_I(st, tt_run(3, 2, f, 1, 10, &s, &n), 0);
		ST_EQ(st, n, 1);
		if (n >= 1) {
			ST_EQ_STR(st, s[0].name, "h3.p0-p0.t0.1");
			ST_EQ(st, s[0].dir, MRC_TOMO_REVERSE);
			ST_EQ_D(st, s[0].loss, 1 - 0.75 / (1 - MRC_TOMO_BACKGROUND), 1e-6);
			ST_EQ(st, s[0].sent, 288);
			ST_EQ(st, s[0].lost, 72);
			ST_EQ(st, s[0].n_lossy, 18);
		}
		free(s);
	}

	mrc_st_case(st, "T04 a dead T1 of 3 T0s: the switch, not one of its 3 links");
	{
		const struct tt_fault f[] = { { "*p0.t1.0", 1 } };

		ST_EQ_I(st, tt_run(3, 2, f, 1, 10, &s, &n), 0);
		ST_EQ(st, n, 1);
		if (n >= 1) {
			ST_EQ_STR(st, s[0].name, "p0.t1.0");
			ST_TRUE(st, s[0].is_switch);
			ST_EQ_D(st, s[0].loss, 1, 1e-6);
		}
		free(s);
	}

	mrc_st_case(st, "T05 2 T0s: a T1 and its 2 links cross the same paths; the switch is "
			"named, its links alike");
	{
		const struct tt_fault f[] = { { "*p0.t1.1", 1 } };

		ST_EQ_I(st, tt_run(2, 2, f, 1, 10, &s, &n), 0);
		ST_EQ(st, n, 1);
		if (n >= 1) {
			ST_EQ_STR(st, s[0].name, "p0.t1.1");
			ST_EQ(st, s[0].n_alike, 2);
			ST_EQ_STR(st, s[0].alike[0], "p0.t0.0-p0.t1.1");
			ST_EQ_STR(st, s[0].alike[1], "p0.t0.1-p0.t1.1");
		}
		free(s);
	}

	mrc_st_case(st, "T06 a dead link and a 1/4-lossy one apart: both, the dead one first");
	{
		const struct tt_fault f[] = { { "p0.t0.2>p0.t1.0", 1 }, { "p0.t1.0>p0.t0.2", 1 },
			{ "h0.p0>p0.t0.0", 0.25 }, { "p0.t0.0>h0.p0", 0.25 } };

		ST_EQ_I(st, tt_run(3, 2, f, 4, 10, &s, &n), 0);
		ST_EQ(st, n, 2);
		if (n >= 2) {
			ST_EQ_STR(st, s[0].name, "p0.t0.2-p0.t1.0");
			ST_EQ_STR(st, s[1].name, "h0.p0-p0.t0.0");
			ST_EQ(st, s[1].dir, MRC_TOMO_BOTH);
			ST_TRUE(st, s[0].score > s[1].score);
		}
		free(s);
	}

	/*
	 * One request of 16 lost (h0 -> h1), the way back clean: the best candidate, a hop of
	 * that path, explains 1 loss in 16 requests (and the 16 + 15 clean ones the other
	 * observations through it add), a gain of about ln(x / 1e-4) - 1 with x near 1/47:
	 * some 4.4, under 10 and over 1.
	 */
	mrc_st_case(st, "T07 one lost request: no suspect at min_score 10, one at 1");
	{
		const char *v[] = { "h0.p0", "p0.t0.0", "h1.p0" }, *u[] = { "h1.p0", "p0.t0.0",
			"h0.p0" };

		for (int k = 0; k < 2; k++) {
			ST_EQ_I(st, mrc_tomo_new(&t), 0);
			if (!t)
				return;
			ST_EQ_I(st, mrc_tomo_path(t, v, 3, 16, 15, 15), 0);
			ST_EQ_I(st, mrc_tomo_path(t, u, 3, 16, 16, 16), 0);
			ST_EQ_I(st, mrc_tomo_run(t, k ? 1 : 10, &s, &n), 0);
			ST_EQ(st, n, (size_t)k);
			free(s);
			mrc_tomo_free(t);
		}
	}

	/*
	 * T1 0 of 4 T0s with 2 of its 4 links dead: 5 of the 6 T0 pairs over it lose
	 * everything, so the switch (loss about 5/6) explains more than either link and joins
	 * first; once both links have joined it explains nothing more and must leave.
	 */
	mrc_st_case(st, "T08 two dead links of one T1 (of 4 T0s): the two links, not the switch "
			"the greedy took first");
	{
		const struct tt_fault f[] = { { "p0.t0.0>p0.t1.0", 1 }, { "p0.t1.0>p0.t0.0", 1 },
			{ "p0.t0.1>p0.t1.0", 1 }, { "p0.t1.0>p0.t0.1", 1 } };

		ST_EQ_I(st, tt_run(4, 2, f, 4, 10, &s, &n), 0);
		ST_EQ(st, n, 2);
		if (n >= 2) {
			ST_EQ_STR(st, s[0].name, "p0.t0.0-p0.t1.0");
			ST_EQ_STR(st, s[1].name, "p0.t0.1-p0.t1.0");
			ST_EQ_D(st, s[0].loss, 1, 1e-6);
			ST_EQ_D(st, s[1].loss, 1, 1e-6);
		}
		free(s);
	}

	mrc_st_case(st, "T09 paths refused: one node, a node twice, an empty name; counts made "
			"consistent (an answer proves a delivery)");
	ST_EQ_I(st, mrc_tomo_new(&t), 0);
	if (!t)
		return;
	{
		const char *one[] = { "h0.p0" }, *twice[] = { "h0.p0", "p0.t0.0", "h0.p0" },
			*empty[] = { "h0.p0", "" }, *ok[] = { "h0.p0", "p0.t0.0", "h1.p0" };

		ST_EQ_I(st, mrc_tomo_path(t, one, 1, 1, 1, 1), -EINVAL);
		ST_EQ_I(st, mrc_tomo_path(t, twice, 3, 1, 1, 1), -EINVAL);
		ST_EQ_I(st, mrc_tomo_path(t, empty, 2, 1, 1, 1), -EINVAL);
		ST_EQ_I(st, mrc_tomo_path(t, ok, 3, 16, 2, 9), 0);
		ST_EQ(st, t->paths[0].delivered, 9);
		ST_EQ(st, t->paths[0].answered, 9);
		ST_EQ_I(st, mrc_tomo_path(t, ok, 3, 4, 20, 30), 0);
		ST_EQ(st, t->paths[1].delivered, 4);
		ST_EQ(st, t->paths[1].answered, 4);
		ST_EQ(st, t->n_nodes, 3);
		ST_EQ(st, t->n_links, 2);
	}
	mrc_tomo_free(t);
}
