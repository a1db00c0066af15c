// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_corpus_wire: writes the fuzz seed corpus for fuzz_wire into DIR: every sample
 * packet (mrc_wire_sample) of every EV format, the srv6 inner packets alone, a trimmed
 * packet and the C01 IPv6+SRH+UDP packet.
 */
#include "mrc/engine/wire.h"

#include <errno.h>
#include "harness/fuzz/corpus.h"

#include <stdio.h>
#include <string.h>


int main(int argc, char **argv)
{
	static uint8_t buf[MRC_PKT_MAX];
	struct mrc_wire_cfg cfg;
	struct mrc_ip6_udp h;
	char name[64];
	int n, files = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus_wire DIR\n");
		return 2;
	}
	mrc_wire_cfg_default(&cfg);
	for (int f = MRC_EVF_SRV6; f <= MRC_EVF_UDP; f++) {
		cfg.ev_format = (enum mrc_ev_format)f;
		for (int i = 0; i < mrc_wire_sample_count(&cfg); i++) {
			n = mrc_wire_sample((unsigned)i, &cfg, buf, sizeof(buf));
			if (n < 0)
				return 1;
			snprintf(name, sizeof(name), "f%d-s%02d", f, i);
			if (corpus_put(argv[1], name, buf, (size_t)n))
				return 1;
			files++;
			if (f == MRC_EVF_SRV6) {
				size_t io = 40 + (buf[6] == 43 ? ((size_t)buf[41] + 1) * 8 : 0);

				snprintf(name, sizeof(name), "f%d-s%02d-inner", f, i);
				if (corpus_put(argv[1], name, buf + io, (size_t)n - io))
					return 1;
				if (i == MRC_WIRE_SAMPLE_TYPES + 10 && n > 200) {
					n = mrc_wire_trim(buf, (size_t)n, 200, cfg.dscp_trimmed);
					if (corpus_put(argv[1], "f0-trimmed", buf, (size_t)n))
						return 1;
				}
				files += 2;
			}
		}
	}
	memset(&h, 0, sizeof(h));
	h.src.b[0] = 0x20, h.src.b[1] = 0x01, h.src.b[15] = 1;
	for (int i = 0; i < 3; i++)
		h.segs[i].b[0] = 0xfc, h.segs[i].b[5] = (uint8_t)(i + 1), h.segs[i].b[15] = 1;
	h.n_segs = 3;
	h.hop_limit = 64;
	h.sport = 49152;
	h.dport = 4791;
	h.payload = (const uint8_t *)"\0\1\2\3\4\5\6\7";
	h.payload_len = 8;
	n = mrc_wire_encode_ip6_udp(&h, buf, sizeof(buf));
	if (n < 0 || corpus_put(argv[1], "ip6-srh-udp", buf, (size_t)n))
		return 1;
	printf("gen_corpus_wire: %d files in %s\n", files + 1, argv[1]);
	return 0;
}
