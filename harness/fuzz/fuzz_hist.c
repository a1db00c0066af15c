// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_hist: libFuzzer entry for the HdrHistogram decoders of mrc/hist (C08): the
 * compressed V2 bytes (mrc_hist_decode), the same in base64 (mrc_hist_decode_base64) and
 * one .hlog interval line (mrc_hist_hlog_parse_line). A histogram that decodes must
 * re-encode and decode to the same count and percentiles.
 */
#include "mrc/base/hist.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct mrc_hist *h)
{
	static const double ps[] = { 0, 50, 99, 100 };
	struct mrc_hist *d = NULL;
	uint8_t *enc = NULL;
	size_t n = 0;

	if (mrc_hist_encode(h, &enc, &n))
		return;	/* out of memory or a zlib failure: not the decoder's fault */
	if (mrc_hist_decode(enc, n, &d) || mrc_hist_count(d) != mrc_hist_count(h))
		abort();
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		if (mrc_hist_value_at_percentile(d, ps[i]) !=
		    mrc_hist_value_at_percentile(h, ps[i]))
			abort();
	mrc_hist_free(d);
	free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mrc_hist *h = NULL;
	double t0, len;
	char tag[32], *line;

	if (mrc_hist_decode(data, size, &h) == 0) {
		round_trip(h);
		mrc_hist_free(h);
		h = NULL;
	}
	if (mrc_hist_decode_base64((const char *)data, size, &h) == 0) {
		round_trip(h);
		mrc_hist_free(h);
		h = NULL;
	}
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (mrc_hist_hlog_parse_line(line, tag, sizeof(tag), &t0, &len, &h) == 0) {
		if (strlen(tag) >= sizeof(tag))
			abort();
		round_trip(h);
		mrc_hist_free(h);
	}
	free(line);
	return 0;
}
