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
	mrc_st_case(st, "pairs: Gb/s, Mmsg/s, t/2 and the worst pair from mean times");
	{
		/* write_bw, 1e6 B in 100 writes per iteration; pair 0 takes 10 us and 10 us
		 * (mean 10 us): 8e6 b / 1e-5 s = 800 Gb/s, 100 / 1e-5 = 10 Mmsg/s; pair 1 takes
		 * 20 and 20: 400 Gb/s, the worst, 0.4 of a 1 Tb/s NIC */
		struct mrc_run_pair pr[2] = { { .a = 0, .b = 2 }, { .a = 1, .b = 3 } };
		struct mrc_run_size rs = { .pairs = pr, .n_pairs = 2 };
		uint64_t t1[4] = { 10000000, 20000000, 9000000, 1000000 };
		uint64_t t2[4] = { 1000000, 20000000, 10000000, 19000000 };

		mrc_run_pairs_iter(&rs, t1, false); /* a pair's time: the later rank's */
		mrc_run_pairs_iter(&rs, t2, false);
		mrc_run_pairs_finish(&rs, false, 1000000, 100, 1e12);
		ST_EQ_D(st, pr[0].gbps, 800.0, 1e-9);
		ST_EQ_D(st, pr[0].mps, 10.0, 1e-9);
		ST_EQ_D(st, pr[1].gbps, 400.0, 1e-9);
		ST_EQ(st, rs.worst, 1);
		ST_EQ_D(st, rs.line_rate_fraction, 0.4, 1e-12);
		ST_EQ(st, rs.msg_bytes, 10000);
		ST_EQ_D(st, pr[0].lat_us, 0, 0);

		/* write_lat, 8 B: the initiator's time is the round trip; pair 0 5 us (2.5 us
		 * one way), pair 1 7 us: the worst, 3.5 us, whatever its responder took */
		memset(pr, 0, sizeof(pr));
		pr[1].a = 1;
		rs = (struct mrc_run_size){ .pairs = pr, .n_pairs = 2 };
		uint64_t t3[4] = { 5000000, 7000000, 9000000, 1000000 };

		mrc_run_pairs_iter(&rs, t3, true);
		mrc_run_pairs_finish(&rs, true, 8, 1, 8e11);
		ST_EQ_D(st, pr[0].lat_us, 2.5, 1e-9);
		ST_EQ_D(st, pr[1].lat_us, 3.5, 1e-9);
		ST_EQ(st, rs.worst, 1);
		/* 64 b / 7e-6 s over 8e11 b/s */
		ST_EQ_D(st, rs.line_rate_fraction, 64.0 / 7e-6 / 8e11, 1e-15);
	}

	mrc_run_result_free(r);
	mrc_run_result_free(NULL);
}
