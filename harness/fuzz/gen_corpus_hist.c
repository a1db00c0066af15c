// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_corpus_hist: writes the fuzz seed corpus for fuzz_hist into DIR: the histograms of
 * the hist selftest vectors (C06-C08: the [0,0,0,5,0,1] counts, the round-trip values,
 * an empty one) as compressed V2 bytes, as base64 and as .hlog interval lines.
 */
#include "mrc/base/hist.h"

#include <errno.h>
#include "harness/fuzz/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Writes @h three ways: raw, base64, .hlog line. */
static int put_all(const char *dir, int k, const struct mrc_hist *h)
{
	char name[64], *b64 = NULL, *text = NULL;
	uint8_t *enc = NULL;
	size_t n = 0, tn = 0;
	FILE *f;
	int ret = -1;

	if (mrc_hist_encode(h, &enc, &n) || mrc_hist_encode_base64(h, &b64))
		goto out;
	snprintf(name, sizeof(name), "h%d-raw", k);
	if (corpus_put(dir, name, enc, n))
		goto out;
	snprintf(name, sizeof(name), "h%d-b64", k);
	if (corpus_put(dir, name, b64, strlen(b64)))
		goto out;
	f = open_memstream(&text, &tn);
	if (!f || mrc_hist_hlog_interval(f, k % 2 ? "rtt" : NULL, 1.5, 0.25, h, 1e6)) {
		if (f)
			fclose(f);
		goto out;
	}
	fclose(f);
	snprintf(name, sizeof(name), "h%d-hlog", k);
	ret = corpus_put(dir, name, text, tn);
out:
	free(enc);
	free(b64);
	free(text);
	return ret;
}

int main(int argc, char **argv)
{
	static const int64_t vals[] = { 0, 1, 7, 1000, 1001, 65535, 1234567, 999999999 };
	static const struct {
		int64_t lowest, highest;
		int sigfigs;
	} shapes[] = { { 1, 3600000000, 3 }, { 1, 2, 1 }, { 1000, 1000000000000, 5 } };
	struct mrc_hist *h;
	int k = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus_hist DIR\n");
		return 2;
	}
	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		if (mrc_hist_init(shapes[s].lowest, shapes[s].highest, shapes[s].sigfigs, &h))
			return 1;
		if (put_all(argv[1], k++, h))	/* empty (C07) */
			return 1;
		/* counts [0,0,0,5,0,1] (C08) */
		mrc_hist_record_n(h, 3, 5);
		mrc_hist_record(h, 5);
		if (put_all(argv[1], k++, h))
			return 1;
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			mrc_hist_record_n(h, vals[i], (int64_t)i + 1);
		if (put_all(argv[1], k++, h))
			return 1;
		mrc_hist_free(h);
	}
	return corpus_put(argv[1], "comment", "#[BaseTime: 0]\n", 15);
}
