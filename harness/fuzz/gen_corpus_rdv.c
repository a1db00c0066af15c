// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_corpus_rdv: writes the fuzz seed corpus for fuzz_rdv into DIR: connection streams as
 * rank 0 reads them — a HELLO without and with a token, a HELLO then a real RESULT body
 * (mrc_rankres_encode of a small result), the HELLO of protocol 2, a 60 MiB length prefix,
 * a length of 0, a frame cut short.
 */
#include "mrc/base/bytes.h"
#include "mrc/job/rankres.h"
#include "mrc/wire/rvproto.h"
#include "mrc/wire/wirerun.h"

#include <errno.h>
#include "harness/fuzz/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends frame @type with @n bytes of @body at @buf + *@off. */
static void frame(uint8_t *buf, size_t *off, uint8_t type, const void *body, size_t n)
{
	put_be32(buf + *off, (uint32_t)n + 1);
	buf[*off + 4] = type;
	memcpy(buf + *off + 5, body, n);
	*off += 5 + n;
}

int main(int argc, char **argv)
{
	static uint8_t buf[1 << 16];
	uint8_t hb[MRC_RV_HELLO_BASE + MRC_RV_TOKEN_MAX];
	struct mrc_rv_hello h = { .version = MRC_WIRERUN_PROTO, .rank = 1, .nranks = 4,
		.hash = 0x1234 };
	struct mrc_run_ev evs[2] = { { .ev = 5, .tx_pkts = 100 }, { .ev = 9, .losses = 4 } };
	struct mrc_rankres_bad bad[1] = { { 3, 42 } };
	struct mrc_rankres r = { .evs = evs, .n_evs = 2, .bad = bad, .n_bad = 1,
		.evs_retired = 1 };
	char *json = NULL;
	size_t off = 0, jl = 0;
	int n, ret = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus_rdv DIR\n");
		return 2;
	}
	r.ctr.data_pkts = 7;
	if (mrc_hist_init(1, 3600000000000ll, 3, &r.msg_ns) ||
		mrc_hist_init(1, 3600000000000ll, 3, &r.step_ns) ||
		mrc_hist_init(1, 3600000000000ll, 3, &r.rtt_ns))
		return 1;
	mrc_hist_record(r.msg_ns, 1000);
	mrc_hist_record(r.step_ns, 5000);
	if (mrc_rankres_encode(&r, &json, &jl))
		return 1;
	n = mrc_rv_hello_encode(&h, hb, sizeof(hb));
	frame(buf, &off, 1, hb, (size_t)n);
	ret |= corpus_put(argv[1], "hello", buf, off);
	frame(buf, &off, 10, json, jl);
	ret |= corpus_put(argv[1], "hello-result", buf, off);
	h.token = (const uint8_t *)"tok";
	h.token_len = 3;
	n = mrc_rv_hello_encode(&h, hb, sizeof(hb));
	off = 0;
	frame(buf, &off, 1, hb, (size_t)n);
	ret |= corpus_put(argv[1], "hello-token", buf, off);
	put_be32(hb, 2); /* protocol 2: 20 bytes, no token */
	off = 0;
	frame(buf, &off, 1, hb, 20);
	ret |= corpus_put(argv[1], "hello-v2", buf, off);
	put_be32(buf, 60u << 20);
	buf[4] = 1;
	ret |= corpus_put(argv[1], "huge", buf, 16);
	memset(buf, 0, 8);
	ret |= corpus_put(argv[1], "zero", buf, 8);
	off = 0;
	frame(buf, &off, 1, hb, 20);
	ret |= corpus_put(argv[1], "short", buf, off - 7);
	free(json);
	mrc_hist_free(r.msg_ns);
	mrc_hist_free(r.step_ns);
	mrc_hist_free(r.rtt_ns);
	return ret ? 1 : 0;
}
