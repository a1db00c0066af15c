// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_rdv: libFuzzer entry for the rendezvous framing and bodies (mrc/wire/rvproto.h,
 * mrc/job/rankres.h): the input is a byte stream as rank 0 reads it from one connection,
 * split into frames (the first capped at MRC_RV_MAX_HELLO, the rest at MRC_RV_MAX_MSG, as
 * before and after admission); every HELLO body is parsed and judged, and one that parses
 * must encode back to the same bytes; every RESULT body goes through mrc_rankres_decode.
 */
#include "mrc/job/rankres.h"
#include "mrc/wire/rvproto.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { T_HELLO = 1, T_RESULT = 10 }; /* RV_HELLO, RV_RESULT of mrc/wire/wr.h */

static void hello(const uint8_t *b, size_t len)
{
	static uint8_t out[MRC_RV_HELLO_BASE + MRC_RV_TOKEN_MAX];
	static const bool joined[4] = { false, true, false, false };
	struct mrc_rv_hello h;
	char why[256];
	int n;

	if (mrc_rv_hello_parse(b, len, &h, why, sizeof(why))) {
		if (!why[0])
			abort(); /* a refusal always says why */
		return;
	}
	if (h.token_len > MRC_RV_TOKEN_MAX || len != MRC_RV_HELLO_BASE + h.token_len)
		abort();
	n = mrc_rv_hello_encode(&h, out, sizeof(out));
	if (n < 0 || (size_t)n != len || memcmp(out, b, len))
		abort();
	why[0] = 0;
	if (mrc_rv_hello_admit(&h, 4, 0x1234, (const uint8_t *)"tok", 3, joined, why,
		    sizeof(why)) && !why[0])
		abort();
}

static void result(const uint8_t *b, size_t len)
{
	struct mrc_rankres r;
	char why[256];

	mrc_rankres_decode(b, len, &r, why, sizeof(why));
	mrc_rankres_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	bool admitted = false;

	while (off < size) {
		struct mrc_rv_frame f;
		size_t used;
		int e = mrc_rv_frame_parse(data + off, size - off,
			admitted ? MRC_RV_MAX_MSG : MRC_RV_MAX_HELLO, &f, &used);

		if (e < 0 && used)
			abort(); /* a refused length consumes nothing */
		if (e <= 0)
			break;
		if (used < 5 || used > size - off || f.len != used - 5 || f.body != data + off + 5)
			abort();
		if (f.type == T_HELLO)
			hello(f.body, f.len);
		else if (f.type == T_RESULT)
			result(f.body, f.len);
		admitted = true;
		off += used;
	}
	return 0;
}
