/* SPDX-License-Identifier: BSD-2-Clause */
/* report_test: unit tests of mrc/out/report.c (`mrcgen-test report`). */
#include "mrc/out/report.c"
#include "mrc/base/st.h"

/* ---- selftest ---- */


/*
 * A result with 3 packets that failed to encode (and nothing else wrong): the terminal says
 * ", 3 encode errors (never sent)" after the probes; without them the line ends at
 * "probes" and the run is ok.
 */
static void st_encode_errors(struct mrc_st *st)
{
	struct conf_job job;
	struct mrc_run_result res = { .nranks = 2, .probes = 7 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ST_EQ_I(st, conf_defaults(&job), 0);
	ST_EQ_I(st, mrc_hist_init(1, 3600000000000ll, 3, &res.msg_ns), 0);
	ST_EQ_I(st, mrc_hist_init(1, 3600000000000ll, 3, &res.step_ns), 0);
	ST_EQ_I(st, mrc_hist_init(1, 3600000000000ll, 3, &res.rtt_ns), 0);
	ST_TRUE(st, mrc_report_ok(&res));
	res.tx_encode_err = 3;
	ST_TRUE(st, !mrc_report_ok(&res));
	f = open_memstream(&text, &len);
	if (f) {
		mrc_report_print(&job, &res, f);
		fclose(f);
		ST_TRUE(st,
			text && strstr(text, "0 NACK (0 trim), 7 probes, 3 encode errors (never "
					     "sent)\n") != NULL);
		ST_TRUE(st, text && strstr(text, "FAILED") != NULL);
		free(text);
	}
	res.tx_encode_err = 0;
	text = NULL;
	f = open_memstream(&text, &len);
	if (f) {
		mrc_report_print(&job, &res, f);
		fclose(f);
		ST_TRUE(st, text && strstr(text, "0 NACK (0 trim), 7 probes\n") != NULL);
		free(text);
	}
	mrc_hist_free(res.msg_ns);
	mrc_hist_free(res.step_ns);
	mrc_hist_free(res.rtt_ns);
	conf_free(&job);
}

/* A tree of @n link-like objects (9 keys: a hashtable that grows), a long string (a
 * large piece) and an array that grows, dumped; the caller frees the text with free(). */
static char *st_tree_text(unsigned n)
{
	json_t *root = json_object(), *a = json_array();
	char big[2000], *text, *copy;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	for (unsigned i = 0; i < n; i++) {
		json_t *o = json_object();
		char name[32];

		snprintf(name, sizeof(name), "p%u.t0.%u>h%u.p0", i % 8, i % 5, i);
		json_object_set_new(o, "port", json_string(name));
		json_object_set_new(o, "tx_pkts", json_integer(i * 3));
		json_object_set_new(o, "tx_bytes", json_integer(i * 4096ll));
		json_object_set_new(o, "drops", json_integer(i % 7));
		json_object_set_new(o, "trims", json_integer(0));
		json_object_set_new(o, "ecn_marks", json_integer(i % 3));
		json_object_set_new(o, "down_drops", json_null());
		json_object_set_new(o, "lost", json_real(i / 7.0));
		json_object_set_new(o, "max_queue_bytes", json_integer(i));
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "config", json_string(big));
	json_object_set_new(root, "links", a);
	text = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	copy = text ? strdup(text) : NULL; /* json_dumps allocates with jansson's allocator */
	json_decref(root);
	if (text) {
		json_free_t fr;

		json_get_alloc_funcs(NULL, &fr);
		fr(text);
	}
	return copy;
}

/* The report's arena: the same bytes as jansson's own allocator; freed pieces are reused;
 * malloc and free are jansson's again afterwards. */
static void st_arena(struct mrc_st *st)
{
	char *want = st_tree_text(3000), *got;
	json_malloc_t m;
	json_free_t f;
	bool reused = false;

	arena_begin();
	got = st_tree_text(3000);
	for (size_t c = 0; c < sizeof(arena_freed) / sizeof(arena_freed[0]); c++)
		reused |= arena_freed[c] != NULL;
	ST_TRUE(st, arena != NULL && arena->next != NULL); /* more than one 64 KiB block */
	ST_TRUE(st, reused); /* the objects' hashtables grew: their old buckets are listed */
	arena_end();
	json_get_alloc_funcs(&m, &f);
	ST_TRUE(st, m == malloc && f == free);
	ST_TRUE(st, arena == NULL && arena_large == NULL);
	ST_TRUE(st, want && got && strlen(want) > 3000 * 9 * 10);
	ST_TRUE(st, want && got && strcmp(want, got) == 0);
	free(want);
	free(got);
}

/* @res's links as jansson writes them (the objects dump_text's links_text stands for), in
 * a root whose "config" and "config_file" hold the marker's text; with @mark, the marker
 * in "links"'s place instead, written by dump_text. */
static char *st_links_text(const struct mrc_run_result *res, bool mark)
{
	const size_t flags = JSON_INDENT(1) | JSON_REAL_PRECISION(10);
	json_t *root = json_object(), *a = json_array();
	struct dump_buf *d = calloc(1, sizeof(*d));
	char *text = NULL;
	size_t len = 0;

	json_object_set_new(root, "config_file", json_string("/x/\"links\": \"" LINKS_MARK "\""));
	json_object_set_new(root, "config", json_string("links: " LINKS_MARK "\n"));
	for (size_t l = 0; l < res->n_links; l++) {
		const struct mrc_run_link *lk = &res->links[l];
		json_t *o = json_object();

#define L(k, v) json_object_set_new(o, k, json_integer((json_int_t)(v)))
		json_object_set_new(o, "port", json_string(lk->name));
		L("tx_pkts", lk->tx_pkts);
		L("tx_bytes", lk->tx_bytes);
		L("drops", lk->drops);
		L("trims", lk->trims);
		L("ecn_marks", lk->ecn_marks);
		L("down_drops", lk->down_drops);
		L("lost", lk->lost);
		L("max_queue_bytes", lk->max_queue_bytes);
		if (res->pfc) {
			L("pfc_pause_tx", lk->pfc_pause_tx);
			L("pfc_resume_tx", lk->pfc_resume_tx);
			L("pfc_pause_rx", lk->pfc_pause_rx);
			L("pfc_resume_rx", lk->pfc_resume_rx);
			json_object_set_new(o, "pfc_paused_data_us",
				json_real((double)lk->pfc_paused_ps[1] / PS_US));
			json_object_set_new(o, "pfc_paused_control_us",
				json_real((double)lk->pfc_paused_ps[0] / PS_US));
			L("pfc_headroom_drops", lk->pfc_headroom_drops);
			L("pfc_max_ingress_bytes", lk->pfc_max_ingress_bytes);
		}
#undef L
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "links", mark ? json_string(LINKS_MARK) : a);
	json_object_set_new(root, "after", json_string(LINKS_MARK));
	if (mark)
		json_decref(a);
	if (d && (d->f = open_memstream(&text, &len))) {
		if ((mark ? dump_text(d, root, res, flags)
			  : json_dump_callback(root, dump_piece, d, flags)) | dump_flush(d)) {
			fclose(d->f);
			free(text);
			text = NULL;
		} else {
			fclose(d->f);
		}
	}
	free(d);
	json_decref(root);
	return text;
}

/* links_text's bytes are jansson's: none, PFC off and on (reals), counters above
 * INT64_MAX, the marker's text elsewhere in the report. */
static void st_links(struct mrc_st *st)
{
	struct mrc_run_link lk[2] = {
		{ .name = "p3.t1.1>p3.t0.2", .tx_pkts = 7, .tx_bytes = UINT64_MAX, .drops = 1ull << 63,
			.lost = 5, .max_queue_bytes = UINT32_MAX, .pfc_pause_tx = 3,
			.pfc_paused_ps = { 1234567, 1ull << 62 }, .pfc_max_ingress_bytes = 91498 },
		{ .name = "h0.p0>p0.t0.0", .trims = 2, .pfc_paused_ps = { 1, 333333333333 } },
	};
	struct mrc_run_result res = { .links = lk };

	for (int c = 0; c < 3; c++) {
		char *want, *got;

		res.n_links = c ? 2 : 0;
		res.pfc = c == 2;
		want = st_links_text(&res, false);
		got = st_links_text(&res, true);
		ST_TRUE(st, want && got && strcmp(want, got) == 0);
		ST_TRUE(st, got && !strstr(got, "\"links\": \"") &&
			    !strstr(got, "\"pfc_paused_data_us\"") == (c != 2));
		free(want);
		free(got);
	}
}

MRC_SELFTEST(report)
{
	static const struct {
		uint64_t bytes;
		char want[16];
	} t[] = {
		{ 0, "0B" },
		{ 1, "1B" },
		{ 1023, "1023B" },
		{ 1024, "1KiB" },
		{ 1536, "1536B" },		 /* 1.5 KiB: never rounded */
		{ 65536, "64KiB" },		 /* 64 x 1024 */
		{ 1000004, "1000004B" },	 /* 4 x 250001 */
		{ 1048576, "1MiB" },		 /* 1024^2 */
		{ 1049600, "1025KiB" },		 /* 1024^2 + 1024 */
		{ 3ull << 30, "3GiB" },
		{ 1ull << 40, "1TiB" },
		{ 1ull << 50, "1024TiB" },	 /* no unit above TiB */
	};

	mrc_st_case(st, "encode errors: on the packets: line when non-zero, and the run fails");
	st_encode_errors(st);

	mrc_st_case(st, "report tree arena: jansson's own bytes, freed pieces reused, malloc and "
			"free given back");
	st_arena(st);

	mrc_st_case(st, "links written into the text: jansson's bytes (none, PFC, above INT64_MAX, "
			"the marker's text elsewhere)");
	st_links(st);

	mrc_st_case(st, "size labels: the largest binary unit dividing exactly, else bytes");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char b[32];

		mrc_report_size_label(t[i].bytes, b, sizeof(b));
		ST_EQ_STR(st, b, t[i].want);
	}
}
