// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_corpus_srv6: writes the fuzz seed corpus for fuzz_srv6 into DIR: C01's IPv6 + SRH +
 * UDP packet (DA fc00:0:1::1, the fuzzer's own uSID), a uSID container packet without an
 * SRH, every mrc_wire_sample packet of the SRv6 EV format, and a few node names.
 */
#include "mrc/engine/wire.h"

#include <errno.h>
#include "harness/fuzz/corpus.h"

#include <stdio.h>
#include <string.h>

/* C01, 112 bytes (docs/wire-format.md, docs/known-answers.md C01) */
static const uint8_t c01[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x48, 0x2b, 0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0a,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfc, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x11, 0x06,
	0x04, 0x02, 0x02, 0x00, 0x00, 0x00, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0b, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xfc, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfc, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xc0, 0x00,
	0x12, 0xb7, 0x00, 0x10, 0xc5, 0x7c, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
};


int main(int argc, char **argv)
{
	static uint8_t buf[MRC_PKT_MAX];
	static const char *const names[] = { "h5", "h5.p2", "p0.t0.3", "p1.t1.0" };
	struct mrc_wire_cfg cfg;
	char name[64];
	int n;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus_srv6 DIR\n");
		return 2;
	}
	if (corpus_put(argv[1], "c01", c01, sizeof(c01)))
		return 1;
	/* no SRH: DA fc00:0:1:2:3:: (uSIDs 1, 2, 3), next header UDP */
	memcpy(buf, c01, 40);
	buf[6] = 17;
	memset(buf + 24, 0, 16);
	buf[24] = 0xfc;
	buf[29] = 1;
	buf[31] = 2;
	buf[33] = 3;
	memcpy(buf + 40, c01 + 104, 8);
	if (corpus_put(argv[1], "usid-no-srh", buf, 48))
		return 1;
	mrc_wire_cfg_default(&cfg);
	cfg.ev_format = MRC_EVF_SRV6;
	for (int i = 0; i < mrc_wire_sample_count(&cfg); i++) {
		n = mrc_wire_sample((unsigned)i, &cfg, buf, sizeof(buf));
		if (n < 0)
			return 1;
		snprintf(name, sizeof(name), "wire-s%02d", i);
		if (corpus_put(argv[1], name, buf, (size_t)n))
			return 1;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(name, sizeof(name), "node-%zu", i);
		if (corpus_put(argv[1], name, names[i], strlen(names[i])))
			return 1;
	}
	return 0;
}
