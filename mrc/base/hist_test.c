/* SPDX-License-Identifier: BSD-2-Clause */
/* hist_test: unit tests of mrc/base/hist.c (`mrcgen-test hist`). */
#include "mrc/base/hist.c"
#include "mrc/base/st.h"

/*
 * Selftests. Expected values are hand arithmetic from the case files (C06-C08) and
 * HdrHistogram's documented layout; the V2 bytes are inflated with zlib, not our decoder.
 */

static struct mrc_hist *st_hist(int64_t lowest, int64_t highest, int sigfigs)
{
	struct mrc_hist *h = NULL;

	if (mrc_hist_init(lowest, highest, sigfigs, &h))
		abort();
	return h;
}

/* The .hgrm text of @h (unit ratio 1, 5 ticks) in a malloc'ed string. */
static char *st_hgrm(const struct mrc_hist *h)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		abort();
	mrc_hist_write_hgrm(h, f, 5, 1.0);
	fclose(f);
	return text;
}

static bool st_has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++) {
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	}
	return false;
}

static bool st_same_buckets(const struct mrc_hist *a, const struct mrc_hist *b)
{
	struct mrc_hist_iter ia = { 0 }, ib = { 0 };
	bool na, nb;

	do {
		na = mrc_hist_next(a, &ia);
		nb = mrc_hist_next(b, &ib);
		if (na != nb || (na && (ia.lo != ib.lo || ia.hi != ib.hi || ia.count != ib.count)))
			return false;
	} while (na);
	return mrc_hist_count(a) == mrc_hist_count(b);
}

MRC_SELFTEST(hist)
{
	struct mrc_hist *h, *g;

	mrc_st_case(st, "C06 1..1000, 3 digits: p0 1, p50 500, p99 990, p99.9 999, p100 1000");
	h = st_hist(1, 3600000000, 3);
	for (int v = 1; v <= 1000; v++)
		mrc_hist_record(h, v);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 0), 1);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 50), 500);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 99), 990);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 99.9), 999);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 100), 1000);
	/* the fraction-scale bug: 0.5 read as a percent is count 5, not 500 */
	ST_EQ(st, mrc_hist_value_at_percentile(h, 0.5), 5);
	ST_EQ(st, mrc_hist_count(h), 1000);
	ST_EQ(st, mrc_hist_min(h), 1);
	ST_EQ(st, mrc_hist_max(h), 1000);
	ST_EQ_D(st, mrc_hist_mean(h), 500.5, 1e-9);
	/* population stddev of 1..n: sqrt((n^2 - 1) / 12) */
	ST_EQ_D(st, mrc_hist_stddev(h), sqrt((1000.0 * 1000.0 - 1) / 12), 1e-9);
	ST_EQ(st, mrc_hist_bucket_count(h), 22);	/* 2048 * 2^21 > 3.6e9 >= 2048 * 2^20 */
	ST_EQ(st, mrc_hist_sub_bucket_count(h), 2048);	/* 2^ceil(log2(2 * 10^3)) */
	mrc_hist_free(h);

	mrc_st_case(st, "reset clears every count written, up to the highest one, then "
			"records anew");
	h = st_hist(1, 3600000000000ll, 3);
	g = st_hist(1, 3600000000000ll, 3);
	mrc_hist_record(h, 1);
	mrc_hist_record(h, 123456);
	mrc_hist_record(h, 3500000000000ll); /* the last bucket: index near counts_len */
	mrc_hist_reset(h);
	ST_EQ(st, mrc_hist_count(h), 0);
	ST_TRUE(st, st_same_buckets(h, g));
	mrc_hist_record(h, 7);
	mrc_hist_record(g, 7);
	ST_TRUE(st, st_same_buckets(h, g));
	ST_EQ(st, mrc_hist_max(h), 7);
	mrc_hist_free(h);
	mrc_hist_free(g);

	mrc_st_case(st, "C06 90..100 twice, 5 digits: lowest 2: 95 99 101, lowest 1: 95 99 100");
	h = st_hist(2, 1000, 5);
	g = st_hist(1, 1000, 5);
	for (int v = 90; v <= 100; v++) {
		mrc_hist_record_n(h, v, 2);
		mrc_hist_record(g, v);
		mrc_hist_record(g, v);
	}
	ST_EQ(st, mrc_hist_count(h), 22);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 50), 95);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 90), 99);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 100), 101);
	ST_EQ(st, mrc_hist_max(h), 100);	/* exact, beside the bucket's 101 */
	ST_EQ(st, mrc_hist_bucket_max(h), 101);
	ST_EQ_D(st, mrc_hist_mean(h), 95.0, 1e-12);
	ST_EQ(st, mrc_hist_value_at_percentile(g, 50), 95);
	ST_EQ(st, mrc_hist_value_at_percentile(g, 90), 99);
	ST_EQ(st, mrc_hist_value_at_percentile(g, 100), 100);
	mrc_hist_free(h);
	mrc_hist_free(g);

	mrc_st_case(st, "C06 1000000..1000002, 90, 10: p50 1000003 (resolution 4)");
	h = st_hist(1, 3600000000, 5);
	mrc_hist_record(h, 1000000);
	mrc_hist_record(h, 1000001);
	mrc_hist_record(h, 1000002);
	mrc_hist_record(h, 90);
	mrc_hist_record(h, 10);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 50), 1000003);
	ST_EQ(st, mrc_hist_lowest_equivalent(h, 1000002), 1000000);
	ST_EQ(st, mrc_hist_min(h), 10);
	ST_EQ(st, mrc_hist_max(h), 1000002);
	ST_EQ_D(st, mrc_hist_mean(h), 3000103.0 / 5, 1e-9);
	mrc_hist_free(h);

	mrc_st_case(st, "a total near INT64_MAX: p99 and p100 are the one bucket, not UB");
	h = st_hist(1, 1000, 3);
	mrc_hist_record_n(h, 7, INT64_MAX - 1);	/* (double)total rounds up to 2^63 */
	ST_EQ(st, mrc_hist_value_at_percentile(h, 99), 7);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 100), 7);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 0), 7);
	mrc_hist_free(h);

	mrc_st_case(st, "init errors, out of range, corrected recording");
	ST_EQ_I(st, mrc_hist_init(0, 1000, 3, &h), -EINVAL);
	ST_TRUE(st, h == NULL);
	ST_EQ_I(st, mrc_hist_init(1, 1000, 0, &h), -EINVAL);
	ST_EQ_I(st, mrc_hist_init(1, 1000, 6, &h), -EINVAL);
	ST_EQ_I(st, mrc_hist_init(10, 19, 3, &h), -EINVAL);
	ST_EQ_I(st, mrc_hist_init(10, 20, 3, &h), 0);
	mrc_hist_free(h);
	h = st_hist(1, 1000, 3);	/* one bucket of 2048 slots: 0..2047 */
	ST_TRUE(st, !mrc_hist_record(h, -1));
	ST_TRUE(st, mrc_hist_record(h, 2047));
	ST_TRUE(st, !mrc_hist_record(h, 2048));
	ST_TRUE(st, !mrc_hist_record_n(h, 5, 0));
	ST_EQ(st, mrc_hist_out_of_range(h), 2);
	ST_EQ(st, mrc_hist_count(h), 1);
	mrc_hist_reset(h);
	ST_TRUE(st, mrc_hist_record_corrected(h, 100, 30));	/* 100, 70, 40 */
	ST_EQ(st, mrc_hist_count(h), 3);
	ST_EQ(st, mrc_hist_min(h), 40);
	ST_EQ(st, mrc_hist_value_at_percentile(h, 50), 70);
	/* HdrHistogram's recordValueWithExpectedInterval fills in value - k x interval while
	 * it is >= the interval: 100 at 25 adds 75, 50 and 25 itself */
	mrc_hist_reset(h);
	ST_TRUE(st, mrc_hist_record_corrected(h, 100, 25));
	ST_EQ(st, mrc_hist_count(h), 4);
	ST_EQ(st, mrc_hist_min(h), 25);
	mrc_hist_free(h);

	mrc_st_case(st, "full int64 range: highest INT64_MAX, 5 digits");
	h = st_hist(1, INT64_MAX, 5);
	ST_TRUE(st, mrc_hist_record(h, INT64_MAX));
	ST_TRUE(st, mrc_hist_record(h, 0));
	ST_EQ_I(st, mrc_hist_value_at_percentile(h, 100), INT64_MAX);
	ST_EQ_I(st, mrc_hist_max(h), INT64_MAX);
	ST_EQ_D(st, mrc_hist_mean(h), ldexp(1, 62), 1);	/* (2^63 - 1) / 2 */
	{
		uint8_t *enc = NULL;
		size_t enc_len = 0;

		g = NULL;
		ST_EQ_I(st, mrc_hist_encode(h, &enc, &enc_len), 0);
		ST_EQ_I(st, mrc_hist_decode(enc, enc_len, &g), 0);
		ST_TRUE(st, g && st_same_buckets(h, g));
		free(enc);
		mrc_hist_free(g);
	}
	mrc_hist_free(h);

	mrc_st_case(st, "C07 empty: count 0, everything 0, merge of empty is a no-op");
	h = st_hist(100, 10000000, 3);
	{
		static const double ps[] = { 50, 95, 99 };
		struct mrc_hist_summary s;
		char *text = st_hgrm(h);
		int lines = 0;

		ST_EQ(st, mrc_hist_count(h), 0);
		ST_EQ(st, mrc_hist_min(h), 0);
		ST_EQ(st, mrc_hist_max(h), 0);
		ST_EQ_D(st, mrc_hist_mean(h), 0, 0);
		ST_EQ_D(st, mrc_hist_stddev(h), 0, 0);
		ST_EQ(st, mrc_hist_value_at_percentile(h, 0), 0);
		ST_EQ(st, mrc_hist_value_at_percentile(h, 50), 0);
		ST_EQ(st, mrc_hist_value_at_percentile(h, 100), 0);
		ST_EQ_I(st, mrc_hist_summarize(h, ps, 3, &s), 0);
		ST_EQ(st, s.count, 0);
		ST_EQ(st, s.min, 0);
		ST_EQ(st, s.max, 0);
		ST_EQ_D(st, s.mean, 0, 0);
		for (int i = 0; i < 3; i++)
			ST_EQ(st, s.pct[i].value, 0);
		ST_TRUE(st, !strstr(text, "63"));
		ST_TRUE(st, !strstr(text, "9223372036854775807"));
		ST_TRUE(st, !strstr(text, "nan") && !strstr(text, "inf"));
		for (const char *p = text; *p; p++)
			lines += *p == '\n';
		ST_EQ(st, lines, 6);	/* heading, blank, 4 footer lines: no rows */
		free(text);
	}
	g = st_hist(100, 10000000, 3);
	ST_EQ_I(st, mrc_hist_add(g, h), 0);
	ST_EQ(st, mrc_hist_count(g), 0);
	ST_EQ(st, mrc_hist_value_at_percentile(g, 99), 0);
	mrc_hist_record(g, 1000);
	mrc_hist_record(g, 5000);
	ST_EQ_I(st, mrc_hist_add(g, h), 0);
	ST_EQ(st, mrc_hist_count(g), 2);
	ST_EQ(st, mrc_hist_min(g), 1000);
	ST_EQ(st, mrc_hist_max(g), 5000);
	ST_EQ_D(st, mrc_hist_mean(g), 3000, 1e-12);
	ST_EQ_D(st, mrc_hist_stddev(g), 2000, 1e-9);
	/* lowest 100: resolution 2^6, 1000 lies in [15 * 64, 16 * 64 - 1] */
	ST_EQ(st, mrc_hist_value_at_percentile(g, 50), 1023);
	mrc_hist_free(g);
	mrc_hist_free(h);

	mrc_st_case(st, "merge: halves of 1..1000 equal the whole, across precisions");
	h = st_hist(1, 3600000000, 3);
	g = st_hist(1, 3600000000, 3);
	{
		struct mrc_hist *whole = st_hist(1, 3600000000, 3), *wide = st_hist(1, 1e12, 4);

		for (int v = 1; v <= 1000; v++) {
			mrc_hist_record(v <= 500 ? h : g, v);
			mrc_hist_record(whole, v);
		}
		ST_EQ_I(st, mrc_hist_add(h, g), 0);
		ST_TRUE(st, st_same_buckets(h, whole));
		ST_EQ_D(st, mrc_hist_mean(h), 500.5, 1e-9);
		ST_EQ_D(st, mrc_hist_stddev(h), sqrt((1000.0 * 1000.0 - 1) / 12), 1e-9);
		ST_EQ_I(st, mrc_hist_add(wide, h), 0);	/* 4 digits hold 1..1000 exactly */
		ST_EQ(st, mrc_hist_value_at_percentile(wide, 99.9), 999);
		ST_EQ(st, mrc_hist_max(wide), 1000);
		mrc_hist_reset(g);
		mrc_hist_record(wide, 100000);
		ST_EQ_I(st, mrc_hist_add(g, wide), 0);
		mrc_hist_free(g);
		g = st_hist(1, 2000, 3);
		ST_EQ_I(st, mrc_hist_add(g, wide), -ERANGE);
		ST_EQ(st, mrc_hist_count(g), 0);
		mrc_hist_free(whole);
		mrc_hist_free(wide);
	}
	mrc_hist_free(g);
	mrc_hist_free(h);

	mrc_st_case(st, "C08 ZigZag LEB128-64b9B single values, round trips, 9-byte reads");
	{
		static const struct {
			int64_t v;
			const char *hex;
		} t[] = {
			{ 0, "00" }, { 1, "02" }, { -1, "01" }, { 63, "7e" }, { 64, "80 01" },
			{ -64, "7f" }, { -65, "81 01" }, { 300, "d8 04" }, { -3, "05" },
			{ 1ll << 62, "80 80 80 80 80 80 80 80 80" },
			{ INT64_MAX, "fe ff ff ff ff ff ff ff ff" },
			{ INT64_MIN, "ff ff ff ff ff ff ff ff ff" },
		};

		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			uint8_t want[16], got[16] = { 0 };
			int n = mrc_st_hex(t[i].hex, want, sizeof(want)), m;
			int64_t back = 0;

			m = mrc_hist_zigzag_put(got, t[i].v);
			ST_EQ_I(st, m, n);
			ST_EQ_MEM(st, got, want, (size_t)n);
			ST_EQ_I(st, mrc_hist_zigzag_get(want, (size_t)n, &back), n);
			ST_EQ_I(st, back, t[i].v);
			/* one byte short is truncated, trailing bytes are not consumed */
			ST_EQ_I(st, mrc_hist_zigzag_get(want, (size_t)n - 1, &back), -EINVAL);
			want[n] = 0x55;
			ST_EQ_I(st, mrc_hist_zigzag_get(want, (size_t)n + 1, &back), n);
		}
	}

	mrc_st_case(st, "C08 counts [0,0,0,5,0,1] -> 05 0a 00 02, and the V2 header bytes");
	{
		static const int64_t counts[] = { 0, 0, 0, 5, 0, 1 };
		uint8_t tok[64], want[64], raw[128], *enc = NULL;
		size_t n = encode_counts(counts, 6, tok), enc_len = 0;
		uLongf raw_len = sizeof(raw);
		int wn = mrc_st_hex("05 0a 00 02", want, sizeof(want));

		ST_EQ(st, n, 4);
		ST_EQ_MEM(st, tok, want, (size_t)wn);
		/* the same counts from recorded values: slots 3 and 5 are values 3 and 5 */
		h = st_hist(1, 1000, 3);
		mrc_hist_record_n(h, 3, 5);
		mrc_hist_record(h, 5);
		ST_EQ_I(st, mrc_hist_encode(h, &enc, &enc_len), 0);
		wn = mrc_st_hex("1c 84 93 14", want, sizeof(want));
		ST_EQ_MEM(st, enc, want, 4);
		ST_EQ(st, get_be32(enc + 4), enc_len - 8);
		ST_EQ_I(st, uncompress(raw, &raw_len, enc + 8, enc_len - 8), Z_OK);
		wn = mrc_st_hex("1c 84 93 13  00 00 00 04  00 00 00 00  00 00 00 03"
				"00 00 00 00 00 00 00 01  00 00 00 00 00 00 03 e8"
				"3f f0 00 00 00 00 00 00  05 0a 00 02", want, sizeof(want));
		ST_EQ(st, raw_len, (size_t)wn);
		ST_EQ_MEM(st, raw, want, (size_t)wn);
		free(enc);
		mrc_hist_free(h);
	}

	mrc_st_case(st, "encode -> decode round trips, base64, .hlog line, bad input");
	{
		static const int64_t vals[] = { 0, 1, 7, 1000, 1001, 65535, 1234567, 999999999 };
		struct mrc_hist *d = NULL;
		char *b64 = NULL, *text = NULL, tag[16], line[4096];
		uint8_t *enc = NULL;
		size_t enc_len = 0, tn = 0;
		double t0 = 0, len = 0;
		FILE *f;

		h = st_hist(1, 3600000000, 3);
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			mrc_hist_record_n(h, vals[i], (int64_t)i + 1);
		ST_EQ_I(st, mrc_hist_encode(h, &enc, &enc_len), 0);
		ST_EQ_I(st, mrc_hist_decode(enc, enc_len, &d), 0);
		ST_TRUE(st, d && st_same_buckets(h, d));
		ST_TRUE(st, d && !mrc_hist_is_exact(d));
		ST_EQ(st, mrc_hist_highest(d), 3600000000);
		/* 999999999 in [1024 * 2^19, 2048 * 2^19): resolution 2^19, slot 1907 */
		ST_EQ(st, mrc_hist_value_at_percentile(d, 99.9), 1907ll * 524288 + 524287);
		mrc_hist_free(d);
		for (size_t n = 0; n < enc_len; n++)	/* every truncation is refused */
			ST_TRUE(st, mrc_hist_decode(enc, n, &d) < 0 && !d);
		for (size_t bit = 8 * 8; bit < enc_len * 8; bit += 7) {	/* flips: no crash */
			enc[bit / 8] ^= (uint8_t)(1u << bit % 8);
			if (mrc_hist_decode(enc, enc_len, &d) == 0)
				mrc_hist_free(d);
			enc[bit / 8] ^= (uint8_t)(1u << bit % 8);
		}
		enc[0] ^= 1;
		ST_EQ_I(st, mrc_hist_decode(enc, enc_len, &d), -EINVAL);
		free(enc);
		ST_EQ_I(st, mrc_hist_encode_base64(h, &b64), 0);
		ST_TRUE(st, strncmp(b64, "HISTFAAA", 8) == 0);	/* 1c 84 93 14 00 00 */
		ST_EQ_I(st, mrc_hist_decode_base64(b64, strlen(b64), &d), 0);
		ST_TRUE(st, d && st_same_buckets(h, d));
		mrc_hist_free(d);
		ST_EQ_I(st, mrc_hist_decode_base64(b64, strlen(b64) - 1, &d), -EINVAL);
		free(b64);

		f = open_memstream(&text, &tn);
		ST_EQ_I(st, mrc_hist_hlog_head(f, 1700000000.0, 1700000000.0), 0);
		ST_EQ_I(st, mrc_hist_hlog_interval(f, "rtt", 1.5, 0.25, h, 1e6), 0);
		ST_EQ_I(st, mrc_hist_hlog_interval(f, "bad tag", 1.5, 0.25, h, 1e6), -EINVAL);
		fclose(f);
		ST_TRUE(st, st_has_line(text, "#[Histogram log format version 1.3]"));
		ST_TRUE(st, st_has_line(text, "#[BaseTime: 1700000000.000 (seconds since epoch)]"));
		ST_TRUE(st, strstr(text, "#[StartTime: 1700000000.000 (seconds since epoch), "
					 "Tue Nov 14 22:13:20 UTC 2023]\n"));
		/* max 999999999 -> bucket top 1000341503 (above), in ms */
		ST_TRUE(st, strstr(text, "\nTag=rtt,1.500,0.250,1000.342,HISTFAAA"));
		snprintf(line, sizeof(line), "%s", strstr(text, "Tag=rtt"));
		ST_EQ_I(st, mrc_hist_hlog_parse_line(line, tag, sizeof(tag), &t0, &len, &d), 0);
		ST_EQ_STR(st, tag, "rtt");
		ST_EQ_D(st, t0, 1.5, 0);
		ST_EQ_D(st, len, 0.25, 0);
		ST_TRUE(st, d && st_same_buckets(h, d));
		mrc_hist_free(d);
		ST_EQ_I(st, mrc_hist_hlog_parse_line("#[BaseTime: 0]", tag, sizeof(tag), &t0, &len,
			&d), -ENOENT);
		ST_EQ_I(st, mrc_hist_hlog_parse_line("Tag=x,1,2,HISTFAAA", tag, sizeof(tag), &t0,
			&len, &d), -EINVAL);
		free(text);
		mrc_hist_free(h);
	}

	mrc_st_case(st, "hgrm numbers round like Java's Formatter (shortest digits, half up)");
	{
		char b[64];

		ST_EQ_STR(st, java_fixed(b, sizeof(b), 0.9997802734375, 12), "0.999780273438");
		ST_EQ_STR(st, java_fixed(b, sizeof(b), 2.675, 2), "2.68");	/* C: 2.67 */
		ST_EQ_STR(st, java_fixed(b, sizeof(b), 0.125, 2), "0.13");	/* C: 0.12 */
		ST_EQ_STR(st, java_fixed(b, sizeof(b), 999.9996, 3), "1000.000");
		ST_EQ_STR(st, java_fixed(b, sizeof(b), 0, 3), "0.000");
		ST_EQ_STR(st, java_fixed(b, sizeof(b), 1000, 0), "1000");
		ST_EQ_STR(st, java_fixed(b, sizeof(b), 0.00049, 3), "0.000");
		ST_EQ_STR(st, java_fixed(b, sizeof(b), 0.0005, 3), "0.001");
	}

	mrc_st_case(st, "hgrm layout: 1..1000, 3 digits, 5 ticks per half distance");
	h = st_hist(1, 3600000000, 3);
	for (int v = 1; v <= 1000; v++)
		mrc_hist_record(h, v);
	{
		char *text = st_hgrm(h);

		static const char *const want[] = {
			"       1.000 0.000000000000          1           1.00",
			"     100.000 0.100000000000        100           1.11",
			/* 50% reached, ticks of 100 / 20 = 5%: 55% is 550, 1/(1-0.55) */
			"     550.000 0.550000000000        550           2.22",
			"    1000.000 1.000000000000       1000",
			"#[Mean    =      500.500, StdDeviation   =      288.675]",
			"#[Max     =     1000.000, Total count    =         1000]",
			"#[Buckets =           22, SubBuckets     =         2048]",
		};

		ST_TRUE(st, strncmp(text, "       Value     Percentile TotalCount "
					  "1/(1-Percentile)\n\n", 57) == 0);
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			mrc_st_check(st, st_has_line(text, want[i]), __FILE__, __LINE__,
				"no line \"%s\"", want[i]);
		free(text);
	}
	mrc_hist_free(h);
}
