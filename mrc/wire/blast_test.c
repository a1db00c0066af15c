/* SPDX-License-Identifier: BSD-2-Clause */
/* blast_test: unit tests of mrc/wire/blast.c (`mrcgen-test blast`). */
#include "mrc/wire/blast.c"
#include "mrc/base/st.h"

/* ---- selftest ---- */

#include "mrc/base/bytes.h"

MRC_SELFTEST(blast)
{
	static const char yaml[] = "fabric:\n  planes: 2\n  t0: 2\n  t1: 2\n  hosts_per_t0: 1\n"
				   "mrc:\n  mtu: 4096\n  ev:\n    ev_count: 16\n";
	struct mrc_blast_opts o = { .host = 0, .peer = 1, .packets = 1 };
	struct mrc_job_srv6 m = { 0 };
	struct conf_job job;
	char err[256];
	uint8_t *tpl = NULL;
	unsigned *plane = NULL, per_plane[2] = { 0, 0 };
	size_t n = 0;
	uint32_t len = 0;

	mrc_st_case(st, "one WRITE_MIDDLE per EV: 40 + 40 + 8 + 12 + 4 + 16 + 4096 + 4 = 4220 B");
	if (conf_load_string(yaml, sizeof(yaml) - 1, "blast", NULL, 0, &job, err, sizeof(err))) {
		mrc_st_check(st, false, __FILE__, __LINE__, "conf: %s", err);
		return;
	}
	ST_EQ_I(st, mrc_job_srv6(&job, &m, err, sizeof(err)), 0);
	ST_EQ_I(st, build_packets(&job, &m, &o, &tpl, &plane, &n, &len, err, sizeof(err)), 0);
	ST_EQ(st, n, 16);
	ST_EQ(st, len, 4220);
	for (size_t i = 0; i < n && tpl; i++) {
		const uint8_t *p = tpl + i * MRC_PKT_MAX;

		/* docs/wire-format.md "Packet stack": outer IPv6 (no SRH: next header 41), inner
		 * IPv6 (17), UDP to 4791 of length 8 + 12 + 4 + 16 + 4096 + 4 = 4140, BTH opcode
		 * 0xC7 */
		ST_EQ(st, p[0] >> 4, 6);
		ST_EQ(st, p[6], 41);
		ST_EQ(st, get_be16(p + 4), 4220 - 40);
		ST_EQ(st, p[40 + 6], 17);
		ST_EQ(st, get_be16(p + 80 + 2), 4791);
		ST_EQ(st, get_be16(p + 80 + 4), 4140);
		ST_EQ(st, p[88], 0xC7);
		ST_EQ(st, (p[1] >> 4) & 3, 2); /* traffic class ECN bits: ECT(0) */
		if (plane[i] < 2)
			per_plane[plane[i]]++;
	}
	mrc_st_case(st, "the 16 EVs split 8 + 8 over the two planes");
	ST_EQ(st, per_plane[0], 8);
	ST_EQ(st, per_plane[1], 8);
	free(tpl);
	free(plane);
	mrc_job_srv6_free(&m);
	conf_free(&job);
}
