/* SPDX-License-Identifier: BSD-2-Clause */
/* result_test: unit tests of mrc/job/result.c (`mrcgen-test result`). */
#include "mrc/job/result.c"
#include "mrc/base/st.h"

#include <string.h>

MRC_SELFTEST(result)
{
	struct mrc_run_result *r = calloc(1, sizeof(*r));
	struct mrc_qp_stats s;
	struct mrc_ev_stats v;
	struct mrc_run_ev ev = { .ev = 3, .tx_pkts = 1, .bad_qps = 2 };

	if (!ST_TRUE(st, r != NULL))
		return;
	mrc_st_case(st, "errors: each message appended, formatted, in order");
	ST_EQ_I(st, mrc_run_add_error(r, "capture: %d files", 2), 0);
	ST_EQ_I(st, mrc_run_add_error(r, "%s", "encode"), 0);
	ST_EQ(st, r->n_errors, 2);
	ST_EQ_STR(st, r->errors[0], "capture: 2 files");
	ST_EQ_STR(st, r->errors[1], "encode");

	/* per QP: 2 trimmed + 4 trimmed at the last hop + 8 of another reason = 14 NACKs */
	mrc_st_case(st, "a QP's counters: NACKs of every reason summed, trimmed ones apart");
	memset(&s, 0, sizeof(s));
	s.data_pkts = 10;
	s.rtx_bytes = 4096;
	s.nack_rx[MRC_NI_TRIMMED] = 2;
	s.nack_rx[MRC_NI_TRIMMED_LASTHOP] = 4;
	s.nack_rx[MRC_NI_COUNT - 1] += 8;
	s.loss_path = 5;
	mrc_run_add_qp(r, &s);
	mrc_run_add_qp(r, &s);
	ST_EQ(st, r->data_pkts, 20);
	ST_EQ(st, r->rtx_bytes, 8192);
	ST_EQ(st, r->nack_trimmed, 12);
	ST_EQ(st, r->nacks, 28);
	ST_EQ(st, r->losses_path, 10);

	mrc_st_case(st, "an EV's counters add up; ev and bad_qps stay");
	memset(&v, 0, sizeof(v));
	v.tx_pkts = 6;
	v.rtt_sum_ps = 1000000;
	mrc_run_ev_add(&ev, &v);
	ST_EQ(st, ev.tx_pkts, 7);
	ST_EQ(st, ev.rtt_sum_ps, 1000000);
	ST_EQ(st, ev.ev, 3);
	ST_EQ(st, ev.bad_qps, 2);
	mrc_run_result_free(r);
	mrc_run_result_free(NULL);
}
