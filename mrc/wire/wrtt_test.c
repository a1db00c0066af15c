/* SPDX-License-Identifier: BSD-2-Clause */
/* wrtt_test: unit tests of mrc/wire/wrtt.c (`mrcgen-test wrtt`). */
#include "mrc/wire/wrtt.c"
#include "mrc/base/st.h"

/* ---- selftest ---- */


/* Hand-made addresses of the test plan (2 planes x (2 T0 + 2 T1), 2 hosts per T0, generated
 * uSIDs plane(4) | role(2) | index+1(10)): the uSID container of h0 -> h3 via spine 1 of
 * plane 0 is T0 0 (0x0401), T1 1 (0x0802), T0 1 (0x0402), h3's port (0x0004). */
static const uint8_t da_h0_h3[16] = { 0xfc, 0, 0, 0, 0x04, 0x01, 0x08, 0x02, 0x04, 0x02,
	0, 0x04 };
static const uint8_t da_h3_h0[16] = { 0xfc, 0, 0, 0, 0x04, 0x02, 0x08, 0x02, 0x04, 0x01,
	0, 0x01 };

/* The peer's side: classifies the request at @req (a whole packet) and writes its answer. */
static int st_answer(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t me, const uint8_t *req, int len, uint8_t *out, size_t cap)
{
	struct mrc_pkt p;
	unsigned plane;

	if (len < MRC_IP6_HLEN ||
		mrc_wrtt_classify(cfg, req + MRC_IP6_HLEN, (size_t)len - MRC_IP6_HLEN, &p) !=
			MRC_WRTT_REQUEST)
		return -EPROTO;
	return mrc_wrtt_reply(plan, cfg, me, 4, &p, out, cap, &plane);
}

MRC_SELFTEST(wrtt)
{
	struct mrc_srv6_params sp;
	struct mrc_srv6_plan *plan = NULL;
	struct mrc_wire_cfg cfg;
	struct mrc_pkt p;
	struct mrc_wrtt *t = NULL;
	struct mrc_wrtt_stats s;
	uint8_t req[256], rep[256], *in = req + MRC_IP6_HLEN;
	unsigned plane = 99;
	int len, rlen;

	mrc_srv6_params_default(&sp);
	sp.planes = 2;
	sp.t0 = 2;
	sp.t1 = 2;
	sp.hosts_per_t0 = 2;
	mrc_wire_cfg_default(&cfg);
	ST_EQ_I(st, mrc_srv6_plan_new(&sp, &plan, NULL, 0), 0);
	if (!plan)
		return;

	mrc_st_case(st, "request h0 -> h3 on EV 0x00010007: a 120-byte PROBE to QP 0, ack request");
	len = mrc_wrtt_request(plan, &cfg, 0, 3, 0x00010007, 0x1234, req, sizeof(req), &plane);
	ST_EQ_I(st, len, 40 + 40 + 8 + 12 + 16 + 4);
	ST_EQ(st, plane, 0);
	ST_EQ(st, req[6], 41);				/* IPv6-in-IPv6, no SRH */
	ST_EQ_MEM(st, req + 24, da_h0_h3, 16);		/* outer DA: the uSID container */
	ST_EQ(st, in[6], 17);
	ST_EQ(st, get_be32(in) & 0xfffff, 0x0007);	/* flow label EV[15:0] */
	ST_EQ(st, get_be16(in + 40), 0x0001);		/* UDP sport EV[31:16] */
	ST_EQ(st, get_be16(in + 42), 4791);
	ST_EQ(st, in[48], 0xDE);			/* PROBE */
	ST_EQ(st, get_be16(in + 50), 0xffff);		/* P_Key */
	ST_EQ(st, get_be32(in + 52) & 0xffffff, 0);	/* DestQP 0 */
	ST_EQ(st, in[56], 0x80);			/* ack request */
	ST_EQ(st, get_be16(in + 60 + 4), 0x1234);	/* PETH probe_id */
	ST_EQ(st, get_be16(in + 8 + 12), 0);		/* inner source fd00::0:0:1 (h0) */
	ST_EQ(st, get_be16(in + 24 + 12), 3);		/* inner destination: h3 */
	ST_EQ_I(st, mrc_wrtt_request(plan, &cfg, 0, 0, 0x00010007, 1, req, sizeof(req), &plane),
		-EINVAL);					/* to itself */

	mrc_st_case(st, "classify: request, its answer, the engine's packets, damage");
	len = mrc_wrtt_request(plan, &cfg, 0, 3, 0x00010007, 0x1234, req, sizeof(req), &plane);
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, (size_t)len - 40, &p), MRC_WRTT_REQUEST);
	ST_EQ(st, p.peth.probe_id, 0x1234);
	ST_EQ(st, p.ev, 0x00010007);
	rlen = mrc_wrtt_reply(plan, &cfg, 3, 4, &p, rep, sizeof(rep), &plane);
	ST_EQ_I(st, rlen, 120);
	ST_EQ(st, plane, 0);
	ST_EQ_MEM(st, rep + 24, da_h3_h0, 16);		/* back through the same spine */
	ST_EQ(st, get_be16(rep + 40 + 8 + 12), 3);	/* from h3 */
	ST_EQ(st, get_be16(rep + 40 + 24 + 12), 0);	/* to h0 */
	ST_EQ(st, rep[40 + 56], 0);			/* no ack request */
	ST_EQ(st, get_be16(rep + 40 + 64), 0x1234);
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, rep + 40, 80, &p), MRC_WRTT_REPLY);
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 75, &p), MRC_WRTT_NONE);	/* short */
	in[55] = 1;					/* DestQP 1: the engine's probe */
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 80, &p), MRC_WRTT_NONE);
	in[55] = 0;
	in[64] ^= 0x01;					/* damaged: the ICRC fails */
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 80, &p), MRC_WRTT_NONE);
	in[64] ^= 0x01;
	ST_EQ_I(st, mrc_wrtt_classify(&cfg, in, 80, &p), MRC_WRTT_REQUEST);
	put_be16(p.src.b + 12, 3);			/* claims to come from h3 itself */
	ST_EQ_I(st, mrc_wrtt_reply(plan, &cfg, 3, 4, &p, rep, sizeof(rep), &plane), -EINVAL);
	put_be16(p.src.b + 12, 5);			/* no host 5 among 4 */
	ST_EQ_I(st, mrc_wrtt_reply(plan, &cfg, 3, 4, &p, rep, sizeof(rep), &plane), -EINVAL);

	mrc_st_case(st, "rx: h3 answers h0's request on plane 0 as mrc_wrtt_reply does; no room, "
			"no port, a reply, a data packet: no answer");
	{
		const struct mrc_wrtt_host h3 = {plan, &cfg, 3, 4, 2};
		const struct mrc_wrtt_host h3_noport = {plan, &cfg, 3, 4, 0};
		uint8_t want[256];
		size_t n = 99, il;

		len = mrc_wrtt_request(
			plan, &cfg, 0, 3, 0x00010007, 0x1234, req, sizeof(req), &plane);
		rlen = st_answer(plan, &cfg, 3, req, len, want, sizeof(want));
		il = (size_t)len - 40; /* the inner packet */
		plane = 99;
		ST_EQ_I(st, mrc_wrtt_rx(&h3, in, il, &p, rep, sizeof(rep), &n, &plane),
			MRC_WRTT_REQUEST);
		ST_EQ(st, n, 120);
		ST_EQ_I(st, rlen, 120);
		ST_EQ(st, plane, 0);
		ST_EQ_MEM(st, rep, want, 120);
		ST_EQ_I(st, mrc_wrtt_rx(&h3, in, il, &p, NULL, 0, &n, &plane),
			MRC_WRTT_REQUEST);
		ST_EQ(st, n, 0);
		n = 99;
		ST_EQ_I(st, mrc_wrtt_rx(&h3_noport, in, il, &p, rep, sizeof(rep), &n, &plane),
			MRC_WRTT_REQUEST);
		ST_EQ(st, n, 0);
		n = 99;
		ST_EQ_I(st, mrc_wrtt_rx(&h3, want + 40, 80, &p, rep, sizeof(rep), &n, &plane),
			MRC_WRTT_REPLY);
		ST_EQ(st, n, 0);
		ST_EQ(st, p.peth.probe_id, 0x1234);
		in[55] = 1; /* DestQP 1: the engine's */
		ST_EQ_I(st, mrc_wrtt_rx(&h3, in, il, &p, rep, sizeof(rep), &n, &plane),
			MRC_WRTT_NONE);
		in[55] = 0;
	}

	mrc_st_case(st, "schedule: rank 1 of 3, peers round robin, planes in turn, window 2");
	{
		static const uint32_t evs[] = { 0x00000000, 0x00010000, 0x10000000 };
		struct mrc_wrtt_params tp = { .plan = plan, .cfg = &cfg, .rank = 1, .nranks = 3,
			.evs = evs, .n_evs = 3, .per_peer = 4, .window = 2,
			.probe_timeout_ns = 100000, .budget_ns = 10000000, .percentile = 50 };
		/* (peer, EV) of probes 1..8: peer_idx = i % 2, k = i / 2, plane k % 2, EV
		 * (k / 2 + peer_idx) mod that plane's count (2 on plane 0, 1 on plane 1) */
		static const uint32_t want_dst[8] = { 0, 2, 0, 2, 0, 2, 0, 2 };
		static const uint32_t want_ev[8] = { 0x00000000, 0x00010000, 0x10000000,
			0x10000000, 0x00010000, 0x00000000, 0x10000000, 0x10000000 };
		uint64_t t0 = 1000000000, now = t0;
		uint8_t pend[8][256];
		int lens[8];
		bool order_ok = true;

		ST_EQ_I(st, mrc_wrtt_new(&tp, t0, &t), 0);
		if (!t)
			goto out;
		/* probe i (0-based) sent at t0 + i us, answered (i + 1) * 10 us later, once the
		 * next one is out (so the window of 2 fills); the last is never answered */
		for (int i = 0; i < 8; i++) {
			uint8_t *q = pend[i], *qi = q + MRC_IP6_HLEN;

			lens[i] = mrc_wrtt_next(t, t0 + (uint64_t)i * 1000, q, 256, &plane);
			if (lens[i] <= 0 || get_be16(qi + 24 + 12) != want_dst[i] ||
				(get_be32(qi) & 0xfffff) || get_be16(qi + 40) != want_ev[i] >> 16 ||
				get_be16(qi + 64) != i + 1)
				order_ok = false;
			if (i == 0)
				continue;
			if (i == 1) /* the window of 2 is full */
				ST_EQ_I(st, mrc_wrtt_next(t, t0 + 1000, req, sizeof(req), &plane),
					0);
			rlen = st_answer(plan, &cfg, want_dst[i - 1], pend[i - 1], lens[i - 1], rep,
				sizeof(rep));
			if (rlen < 0 || mrc_wrtt_classify(&cfg, rep + 40, (size_t)rlen - 40, &p) !=
						MRC_WRTT_REPLY) {
				order_ok = false;
				continue;
			}
			now = t0 + (uint64_t)(i - 1) * 1000 + (uint64_t)i * 10000;
			if (i == 1) { /* the same answer from the wrong peer is not counted */
				put_be16(p.src.b + 12, 2);
				ST_TRUE(st, !mrc_wrtt_on_reply(t, &p, now));
				put_be16(p.src.b + 12, 0);
			}
			ST_TRUE(st, mrc_wrtt_on_reply(t, &p, now));
			ST_TRUE(st, !mrc_wrtt_on_reply(t, &p, now)); /* a duplicate */
		}
		now = t0 + 7000; /* probe 8's send time */
		ST_TRUE(st, order_ok);
		ST_TRUE(st, !mrc_wrtt_done(t, now));
		ST_EQ(st, mrc_wrtt_next_timer(t), now + 100000); /* probe 8 times out */
		ST_EQ_I(st, mrc_wrtt_next(t, now + 100000, req, sizeof(req), &plane), 0);
		ST_TRUE(st, mrc_wrtt_done(t, now + 100000));
		mrc_wrtt_stats(t, now + 100000, &s);
		ST_EQ(st, s.sent, 8);
		ST_EQ(st, s.answered, 7);
		ST_EQ(st, s.lost, 1);
		ST_EQ(st, s.min_ns, 10000);
		ST_EQ(st, s.max_ns, 70000);
		/* median of 10..70 us by nearest rank: ceil(0.5 * 7) = 4th = 40 us */
		ST_EQ(st, s.figure_ns, 40000);
		mrc_wrtt_free(t);
		t = NULL;
	}

	mrc_st_case(st, "no answer: no figure; the budget ends a measurement; the job's figure");
	{
		static const uint32_t evs[] = { 0x00000000 };
		struct mrc_wrtt_params tp = { .plan = plan, .cfg = &cfg, .rank = 0, .nranks = 2,
			.evs = evs, .n_evs = 1, .per_peer = 100, .window = 4,
			.probe_timeout_ns = 1000000, .budget_ns = 5000000, .percentile = 10 };
		static const uint64_t figs[] = { 120000, 0, 310000, 95000 };
		static const uint64_t none[] = { 0, 0 };

		ST_EQ_I(st, mrc_wrtt_new(&tp, 0, &t), 0);
		if (!t)
			goto out;
		for (int i = 0; i < 4; i++)
			ST_TRUE(st, mrc_wrtt_next(t, 0, req, sizeof(req), &plane) > 0);
		ST_EQ_I(st, mrc_wrtt_next(t, 0, req, sizeof(req), &plane), 0);
		ST_TRUE(st, !mrc_wrtt_done(t, 4999999));
		ST_TRUE(st, mrc_wrtt_done(t, 5000000));
		ST_EQ_I(st, mrc_wrtt_next(t, 5000000, req, sizeof(req), &plane), 0);
		mrc_wrtt_stats(t, 5000000, &s);
		ST_EQ(st, s.sent, 4);
		ST_EQ(st, s.answered, 0);
		ST_EQ(st, s.lost, 4);
		ST_EQ(st, s.figure_ns, 0);
		ST_EQ(st, mrc_wrtt_agree(figs, 4), 310000);
		ST_EQ(st, mrc_wrtt_agree(none, 2), 0);
		mrc_wrtt_free(t);
		tp.window = MRC_WRTT_MAX_WINDOW + 1;
		ST_EQ_I(st, mrc_wrtt_new(&tp, 0, &t), -EINVAL);
		ST_TRUE(st, t == NULL);
	}
out:
	mrc_wrtt_free(t);
	mrc_srv6_plan_free(plan);
}
