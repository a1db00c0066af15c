/* SPDX-License-Identifier: BSD-2-Clause */
/* rankres_test: unit tests of mrc/job/rankres.c (`mrcgen-test rankres`): RESULT bodies. */
#include "mrc/job/rankres.c"
#include "mrc/base/st.h"

/* A rank's result: counters 7 and 3, EVs 5 and 9, two retirements, 2/1/0 samples. */
static int t_rankres(struct mrc_rankres *r, struct mrc_run_ev *evs,
	struct mrc_rankres_bad *bad)
{
	memset(r, 0, sizeof(*r));
	r->ctr.data_pkts = 7;
	r->ctr.tlp = 3;
	r->ctr.gbn_rewinds = 1ull << 40;
	r->ctr.cnps_received = 11;
	r->evs_retired = 2;
	memset(evs, 0, 2 * sizeof(*evs));
	evs[0].ev = 5;
	evs[0].tx_pkts = 100;
	evs[0].rtt_sum_ps = 123456789012ull;
	evs[1].ev = 9;
	evs[1].losses = 4;
	evs[1].bad_qps = 1;
	r->evs = evs;
	r->n_evs = 2;
	bad[0] = (struct mrc_rankres_bad){ 0, 1500000 };
	bad[1] = (struct mrc_rankres_bad){ 3, 42 };
	r->bad = bad;
	r->n_bad = 2;
	if (mrc_hist_init(1, 3600000000000ll, 3, &r->msg_ns) ||
		mrc_hist_init(1, 3600000000000ll, 3, &r->step_ns) ||
		mrc_hist_init(1, 3600000000000ll, 3, &r->rtt_ns))
		return -ENOMEM;
	mrc_hist_record(r->msg_ns, 1000);
	mrc_hist_record(r->msg_ns, 2000);
	/* 123457 and 98765 lie inside buckets (3 significant digits): the counts alone
	 * would give 123392 as the minimum's bucket and a bucket mean */
	mrc_hist_record(r->step_ns, 123457);
	mrc_hist_record(r->step_ns, 98765);
	return 0;
}

static void t_free_hists(struct mrc_rankres *r)
{
	mrc_hist_free(r->msg_ns);
	mrc_hist_free(r->step_ns);
	mrc_hist_free(r->rtt_ns);
}

/* Decodes @text, which must fail with -EPROTO and a reason holding @want. */
static void t_refused(struct mrc_st *st, const char *text, size_t len, const char *want)
{
	struct mrc_rankres r;
	char err[200] = "";

	ST_EQ_I(st, mrc_rankres_decode(text, len, &r, err, sizeof(err)), -EPROTO);
	mrc_st_check(st, strstr(err, want) != NULL, __FILE__, __LINE__, "'%s' says '%s'", err,
		want);
	mrc_rankres_free(&r);
}

/* @text with the first @from replaced by @to (static buffer). */
static const char *t_edit(const char *text, const char *from, const char *to)
{
	static char buf[8192];
	const char *p = strstr(text, from);

	size_t head = p ? (size_t)(p - text) : 0, tl = strlen(to);

	if (!p || strlen(text) + tl >= sizeof(buf))
		return "";
	memcpy(buf, text, head);
	memcpy(buf + head, to, tl);
	strcpy(buf + head + tl, p + strlen(from));
	return buf;
}

/* Edits of a good body (first match replaced) and what the refusal must say. */
static const char *const edits[][3] = {
	{ "\"version\":5", "\"version\":1", "version 1, this build reads 5" },
	{ "\"version\":5", "\"version\":4", "version 4, this build reads 5" },
	{ "\"tlp\":3", "\"tlp\":\"3\"", "counters.tlp: not a non-negative integer" },
	{ "\"data_pkts\":7", "\"data_pkts\":-7", "counters.data_pkts: not a non-negative integer" },
	{ "\"data_pkts\":7,", "", "counters.data_pkts: not a non-negative integer" },
	{ "\"losses\":4", "\"losses\":null", "evs[1].losses: not a non-negative integer" },
	{ "[3,42]", "[3]", "bad[1]: not [iteration, ps]" },
	{ "\"msg_ns\":\"", "\"msg_ns\":\"!!", "hist.msg_ns: not a histogram" },
	{ "\"rtt_ns\":\"", "\"rtt_ns\":7,\"x\":\"", "hist.rtt_ns: not a string" },
	{ "\"step_ns\":[true,98765,", "\"step_ns\":[true,5,",
		"hist_exact.step_ns: min 5 or max 123457 outside its counts" },
	{ "\"rtt_ns\":[true,", "\"rtt_ns\":[1,", "hist_exact.rtt_ns: not [exact, min, max" },
	{ "\"evs\":[", "\"evs\":{},\"y\":[",
		"counters, evs, hist or bad: missing or of the wrong type" },
};

MRC_SELFTEST(rankres)
{
	struct mrc_rankres in, out;
	struct mrc_run_ev evs[2], plan[2] = { { .ev = 5 }, { .ev = 9 } };
	struct mrc_rankres_bad bad[2];
	struct mrc_run_result res = { .evs = plan, .n_evs = 2 };
	char *text = NULL, err[200];
	size_t len = 0;

	if (!ST_TRUE(st, t_rankres(&in, evs, bad) == 0))
		return;
	mrc_st_case(st, "round trip: every counter, EV, retirement and histogram comes back");
	ST_EQ_I(st, mrc_rankres_encode(&in, &text, &len), 0);
	ST_TRUE(st, text && strstr(text, "\"version\":5") != NULL);
	ST_EQ_I(st, mrc_rankres_decode(text, len, &out, err, sizeof(err)), 0);
	ST_EQ(st, out.ctr.data_pkts, 7);
	ST_EQ(st, out.ctr.tlp, 3);
	ST_EQ(st, out.ctr.gbn_rewinds, 1ull << 40);
	ST_EQ(st, out.ctr.cnps_received, 11);
	ST_EQ(st, out.ctr.rtx_bytes, 0);
	ST_EQ(st, out.evs_retired, 2);
	ST_EQ(st, out.n_evs, 2);
	ST_EQ(st, out.evs[0].ev, 5);
	ST_EQ(st, out.evs[0].tx_pkts, 100);
	ST_EQ(st, out.evs[0].rtt_sum_ps, 123456789012ull);
	ST_EQ(st, out.evs[1].ev, 9);
	ST_EQ(st, out.evs[1].losses, 4);
	ST_EQ(st, out.evs[1].bad_qps, 1);
	ST_EQ(st, out.n_bad, 2);
	ST_EQ(st, out.bad[0].off_ps, 1500000);
	ST_EQ(st, out.bad[1].iter, 3);
	ST_EQ(st, out.bad[1].off_ps, 42);
	ST_EQ_I(st, mrc_hist_count(out.msg_ns), 2);
	ST_EQ_I(st, mrc_hist_count(out.step_ns), 2);
	/* the exact statistics come back: min, max, mean (123457 + 98765) / 2, stddev
	 * (123457 - 98765) / 2 */
	ST_EQ_I(st, mrc_hist_min(out.step_ns), 98765);
	ST_EQ_I(st, mrc_hist_max(out.step_ns), 123457);
	ST_TRUE(st, mrc_hist_mean(out.step_ns) == 111111.0);
	ST_TRUE(st, mrc_hist_stddev(out.step_ns) == 12346.0);
	ST_TRUE(st, mrc_hist_is_exact(out.step_ns));
	ST_EQ_I(st, mrc_hist_count(out.rtt_ns), 0);

	mrc_st_case(st, "merge: two ranks' bodies add up; another plan's EVs are refused");
	ST_TRUE(st, mrc_hist_init(1, 3600000000000ll, 3, &res.msg_ns) == 0 &&
			    mrc_hist_init(1, 3600000000000ll, 3, &res.step_ns) == 0 &&
			    mrc_hist_init(1, 3600000000000ll, 3, &res.rtt_ns) == 0);
	ST_EQ_I(st, mrc_rankres_merge(&res, &out, err, sizeof(err)), 0);
	ST_EQ_I(st, mrc_rankres_merge(&res, &out, err, sizeof(err)), 0);
	ST_EQ(st, res.data_pkts, 14);
	ST_EQ(st, res.tlp, 6);
	ST_EQ(st, res.cnps_received, 22);
	ST_EQ(st, res.evs[0].tx_pkts, 200);
	ST_EQ(st, res.evs[1].bad_qps, 2);
	ST_EQ_I(st, mrc_hist_count(res.msg_ns), 4);
	plan[1].ev = 10;
	ST_EQ_I(st, mrc_rankres_merge(&res, &out, err, sizeof(err)), -EPROTO);
	ST_TRUE(st, strstr(err, "evs[1]: EV 9, the job's plan has 10") != NULL);
	ST_EQ(st, res.data_pkts, 14); /* nothing added */
	res.n_evs = 1;
	ST_EQ_I(st, mrc_rankres_merge(&res, &out, err, sizeof(err)), -EPROTO);
	ST_TRUE(st, strstr(err, "evs: 2 EVs, the job's plan has 1") != NULL);
	/* step times beyond the run's range (its step histogram up to 1000 ns, these 98765
	 * and 123457 ns): refused whole, not merged without them (mrc_hist_add's -ERANGE) */
	plan[1].ev = 9;
	res.n_evs = 2;
	mrc_hist_free(res.step_ns);
	ST_TRUE(st, mrc_hist_init(1, 1000, 3, &res.step_ns) == 0);
	ST_EQ_I(st, mrc_rankres_merge(&res, &out, err, sizeof(err)), -EPROTO);
	ST_TRUE(st, strstr(err, "hist: a value beyond the run's histograms' range") != NULL);
	ST_EQ(st, res.data_pkts, 14); /* nothing added */
	ST_EQ_I(st, mrc_hist_count(res.msg_ns), 4);
	mrc_rankres_free(&out);
	ST_TRUE(st, out.evs == NULL && out.msg_ns == NULL && out.n_bad == 0);

	mrc_st_case(st, "malformed: truncated, empty, wrong version, wrong types: -EPROTO, why");
	if (text) {
		t_refused(st, text, len - 1, "not JSON");
		t_refused(st, text, len / 2, "not JSON");
		t_refused(st, text, 0, "not JSON");
		t_refused(st, "[1,2]", 5, "version: missing or not an integer");
		t_refused(st, "{}", 2, "version: missing or not an integer");
		t_refused(st, "{\"version\":\"1\"}", 15, "version: missing or not an integer");
		for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
			const char *t = t_edit(text, edits[i][0], edits[i][1]);

			t_refused(st, t, strlen(t), edits[i][2]);
		}
	}
	free(text);
	t_free_hists(&in);
	mrc_hist_free(res.msg_ns);
	mrc_hist_free(res.step_ns);
	mrc_hist_free(res.rtt_ns);
}
