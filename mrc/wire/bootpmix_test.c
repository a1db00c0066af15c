/* SPDX-License-Identifier: BSD-2-Clause */
/* bootpmix_test: unit tests of mrc/wire/bootpmix.c's parts without a server. */
#include "mrc/wire/bootpmix.c"
#include "mrc/base/st.h"

MRC_SELFTEST(bootpmix)
{
	struct wr_done rows[4] = {
		{ .t_ps = 1000, .wrong = 0, .rtx = 7, .have = true },
		{ .have = false },
		{ .t_ps = 0x0102030405060708ull, .wrong = 3, .rtx = 9, .have = true },
		{ .have = false },
	};
	struct mrc_px_blob b = { .kind = MRC_PX_ABORT, .timed_out = true, .reason = "why",
		.rows = rows, .n_rows = 4, .body = "{}", .body_len = 2 };
	struct mrc_px_view v;
	uint8_t *p = NULL;
	size_t len = 0;
	pmix_proc_t src, other;
	pmix_info_t info[2];
	int code;

	mrc_st_case(st, "blob: header, reason, the rows that came (DONE layout), body");
	ST_EQ_I(st, mrc_px_pack(&b, &p, &len), 0);
	/* 8 + 3 + 2 rows x 28 + 2 */
	ST_EQ(st, len, 8u + 3u + 2u * 28u + 2u);
	{
		static const uint8_t hdr[8] = { 1, 1, 0, 3, 0, 0, 0, 2 };
		/* row of iteration 2: gi, t_ps, wrong, rtx, big-endian */
		static const uint8_t row2[28] = { 0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8,
			0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 9 };

		ST_EQ_MEM(st, p, hdr, 8);
		ST_EQ_MEM(st, p + 8, "why", 3);
		ST_EQ(st, get_be32(p + 11), 0u);	 /* iteration 0's row first */
		ST_EQ(st, get_be64(p + 15), 1000u);
		ST_EQ_MEM(st, p + 11 + 28, row2, 28);
		ST_EQ_MEM(st, p + len - 2, "{}", 2);
	}
	ST_EQ_I(st, mrc_px_unpack(p, len, &v), 0);
	ST_EQ(st, v.kind, MRC_PX_ABORT);
	ST_TRUE(st, v.timed_out);
	ST_EQ(st, v.reason_len, 3u);
	ST_EQ(st, v.n_rows, 2u);
	ST_EQ(st, v.body_len, 2u);
	ST_EQ_MEM(st, v.body, "{}", 2);

	mrc_st_case(st, "blob: every truncation and a bad kind are refused");
	for (size_t n = 0; n < 8 + 3 + 2 * 28; n++)
		if (mrc_px_unpack(p, n, &v) != -EPROTO)
			mrc_st_check(st, false, __FILE__, __LINE__, "truncated to %zu accepted", n);
	p[0] = 2;
	ST_EQ_I(st, mrc_px_unpack(p, len, &v), -EPROTO);
	p[0] = 0;
	p[1] = 2;
	ST_EQ_I(st, mrc_px_unpack(p, len, &v), -EPROTO);
	put_be32(p + 4, 0xffffffffu); /* rows past the end */
	p[1] = 0;
	ST_EQ_I(st, mrc_px_unpack(p, len, &v), -EPROTO);
	free(p);

	mrc_st_case(st, "events: the rank that ended badly, not a clean end, not another job");
	PMIX_PROC_LOAD(&src, "job1", 2);
	PMIX_PROC_LOAD(&other, "job1", 3);
	ST_EQ(st, mrc_px_event_rank(PMIX_ERR_PROC_ABORTED_BY_SIG, "job1", 0, &src, NULL, 0), 2u);
	ST_EQ(st, mrc_px_event_rank(PMIX_ERR_PROC_ABORTED_BY_SIG, "job1", 2, &src, NULL, 0),
		MRC_PX_NONE); /* this rank itself */
	ST_EQ(st, mrc_px_event_rank(PMIX_ERR_PROC_ABORTED_BY_SIG, "job2", 0, &src, NULL, 0),
		MRC_PX_NONE);
	PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &other, PMIX_PROC);
	ST_EQ(st, mrc_px_event_rank(PMIX_ERR_PROC_TERM_WO_SYNC, "job1", 0, &src, info, 1), 3u);
	code = 0;
	PMIX_INFO_LOAD(&info[1], PMIX_EXIT_CODE, &code, PMIX_INT);
	ST_EQ(st, mrc_px_event_rank(PMIX_EVENT_PROC_TERMINATED, "job1", 0, &src, info, 2),
		MRC_PX_NONE);
	ST_EQ(st, mrc_px_event_rank(PMIX_EVENT_PROC_TERMINATED, "job1", 0, &src, info, 1),
		MRC_PX_NONE); /* no exit code: not a failure it says */
	PMIX_INFO_DESTRUCT(&info[1]);
	code = 137;
	PMIX_INFO_LOAD(&info[1], PMIX_EXIT_CODE, &code, PMIX_INT);
	ST_EQ(st, mrc_px_event_rank(PMIX_EVENT_PROC_TERMINATED, "job1", 0, &src, info, 2), 3u);
	ST_EQ(st, mrc_px_event_rank(PMIX_ERR_LOST_CONNECTION, "job1", 0, NULL, NULL, 0),
		MRC_PX_LAUNCHER);
	ST_EQ(st, mrc_px_event_rank(PMIX_EVENT_JOB_END, "job1", 0, &src, NULL, 0), MRC_PX_NONE);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
}
