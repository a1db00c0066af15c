/* SPDX-License-Identifier: BSD-2-Clause */
/* ev_test: unit tests of mrc/engine/ev.c (`mrcgen-test ev`). */
#include "mrc/engine/ev.c"
#include "mrc/base/st.h"

/* ---- selftest ---------------------------------------------------------------------- */

static unsigned st_plane_of(void *ctx, uint32_t ev)
{
	(void)ctx;
	return ev >> 28;
}

MRC_SELFTEST(ev)
{
	/* 2 planes x 8 EVs: plane(4) | spine(12) | salt(16), docs/wire-format.md default layout. */
	uint32_t evs[16];
	struct mrc_ev_params p = {.evs = evs,
		.n_evs = 16,
		.ev_min_active = 4,
		.backup_per_plane = 2,
		.skip_hold_ps = 0,
		.probe_backoff_ps = 1000000,
		.probe_backoff_max_ps = 4000000};
	struct mrc_ev_set s;
	struct mrc_rng rng;
	unsigned counts[16] = {0};
	int rc;

	for (unsigned i = 0; i < 16; i++)
		evs[i] = (i / 8) << 28 | (i % 8) << 16 | 0x1234;

	/* E01 (the generator's reference values) lives in the rng suite now */
	mrc_st_case(st, "E02 init: 6 active + 2 backup per plane, lookup by value");
	rc = mrc_ev_set_init(&s, &p, 2, st_plane_of, NULL);
	ST_EQ_I(st, rc, 0);
	ST_EQ(st, mrc_ev_active_usable(&s, 0), 6);
	ST_EQ(st, mrc_ev_active_usable(&s, 1), 6);
	ST_EQ_I(st, mrc_ev_find(&s, 1u << 28 | 3 << 16 | 0x1234), 11);
	ST_EQ_I(st, mrc_ev_find(&s, 0xdeadbeef), -1);
	ST_TRUE(st, !mrc_ev_active(&s, 6) && !mrc_ev_active(&s, 7) && mrc_ev_active(&s, 5));

	mrc_st_case(st, "E03 pick: only the plane's active GOOD EVs, all of them, evenly");
	mrc_rng_seed(&rng, 42);
	for (unsigned i = 0; i < 6000; i++) {
		int idx = mrc_ev_pick(&s, 1, &rng, -1, false, 0);

		ST_TRUE(st, idx >= 8 && idx < 14);
		if (idx >= 0)
			counts[idx]++;
	}
	for (unsigned i = 8; i < 14; i++)
		ST_TRUE(st, counts[i] > 850 && counts[i] < 1150); /* 1000 +- ~5 sigma */
	ST_EQ(st, counts[14] + counts[15] + counts[0], 0);

	mrc_st_case(st, "E04 SKIP with hold 0: passed over once, then GOOD (one rotation)");
	ST_TRUE(st, mrc_ev_on_skip(&s, 0, MRC_EVC_ECN, 10));
	ST_EQ(st, mrc_ev_state(&s, 0), MRC_EV_SKIP);
	ST_TRUE(st, !mrc_ev_on_skip(&s, 0, MRC_EVC_ECN, 11)); /* only GOOD changes */
	for (unsigned i = 0; i < 100 && mrc_ev_state(&s, 0) == MRC_EV_SKIP; i++)
		ST_TRUE(st, mrc_ev_pick(&s, 0, &rng, -1, false, 12) != 0);
	ST_EQ(st, mrc_ev_state(&s, 0), MRC_EV_GOOD);

	mrc_st_case(st, "E05 ASSUMED_BAD: replaced from the same plane, probe backoff 1,2,4,4 us");
	ST_TRUE(st, mrc_ev_on_bad(&s, 2, MRC_EVC_LOSS_SACK, 100));
	ST_EQ(st, mrc_ev_state(&s, 2), MRC_EV_ASSUMED_BAD);
	ST_TRUE(st, !mrc_ev_active(&s, 2));
	ST_TRUE(st, mrc_ev_active(&s, 6)); /* first backup of plane 0 */
	ST_EQ(st, mrc_ev_active_usable(&s, 0), 6);
	ST_EQ(st, mrc_ev_active_usable(&s, 1), 6);
	ST_EQ_I(st, mrc_ev_probe_due(&s, 0, 100 + 999999), -1);
	ST_EQ_I(st, mrc_ev_probe_due(&s, 0, 100 + 1000000), 2);
	ST_EQ_I(st, mrc_ev_probe_due(&s, 1, 100 + 1000000), -1);
	mrc_ev_probe_sent(&s, 2, 0x1111, 1000100);
	ST_EQ(st, mrc_ev_next_probe(&s, 1), 1000100 + 2000000);
	mrc_ev_probe_sent(&s, 2, 0x2222, 3000100);
	ST_EQ(st, mrc_ev_next_probe(&s, 1), 3000100 + 4000000);
	mrc_ev_probe_sent(&s, 2, 0x3333, 7000100);
	ST_EQ(st, mrc_ev_next_probe(&s, 1), 7000100 + 4000000);
	ST_EQ(st, mrc_ev_next_probe(&s, 2), UINT64_MAX);
	for (unsigned i = 0; i < 100; i++)
		ST_TRUE(st, mrc_ev_pick(&s, 0, &rng, -1, false, 200) != 2);

	mrc_st_case(st, "E06 probe answered: only the answer echoing the latest probe's tx_ts "
			"counts; GOOD again, rejoins as backup");
	ST_TRUE(st, !mrc_ev_on_probe_ok(&s, 2, 0x2222, 8000000)); /* an earlier probe's */
	ST_TRUE(st, !mrc_ev_on_probe_ok(&s, 2, 0x3334, 8000000)); /* forged */
	ST_TRUE(st, !mrc_ev_on_probe_ok(&s, 3, 0x3333, 8000000)); /* another EV, GOOD */
	ST_EQ(st, mrc_ev_state(&s, 2), MRC_EV_ASSUMED_BAD);
	ST_TRUE(st, mrc_ev_on_probe_ok(&s, 2, 0x3333, 8000000));
	ST_EQ(st, mrc_ev_state(&s, 2), MRC_EV_GOOD);
	ST_TRUE(st, !mrc_ev_active(&s, 2)); /* active set was refilled: 6 of 8 already */
	ST_EQ(st, mrc_ev_active_usable(&s, 0), 6);

	mrc_st_case(st, "E07 floor: ev_min_active 4 of 16 stops the 13th ASSUMED_BAD");
	for (int i = 0; i < 16; i++)
		mrc_ev_on_bad(&s, i, MRC_EVC_LOSS_RTO, 9000000);
	ST_EQ(st, s.usable, 4);
	ST_EQ(st, s.floor_hits, 4);

	mrc_st_case(st, "E08 DENIED by control only; log keeps time, EV, from, to, cause");
	{
		struct mrc_ev_change log[4];
		unsigned n;
		int idx = -1;

		for (int i = 0; i < 16 && idx < 0; i++)
			if (mrc_ev_state(&s, i) == MRC_EV_GOOD)
				idx = i;
		ST_TRUE(st, mrc_ev_set_denied(&s, idx, true, 9500000));
		ST_TRUE(st, !mrc_ev_on_probe_ok(&s, idx, 0, 9600000));
		ST_EQ(st, mrc_ev_state(&s, idx), MRC_EV_DENIED);
		n = mrc_ev_log(&s, log, 4);
		ST_EQ(st, n, 4);
		ST_EQ(st, log[3].t_ps, 9500000);
		ST_EQ(st, log[3].ev, evs[idx]);
		ST_EQ(st, log[3].from, MRC_EV_GOOD);
		ST_EQ(st, log[3].to, MRC_EV_DENIED);
		ST_EQ(st, log[3].cause, MRC_EVC_DENY);
		ST_EQ_STR(st, mrc_ev_cause_name(log[2].cause), "loss-rto");
	}
	mrc_ev_set_free(&s);

	mrc_st_case(st, "E09 init rejects duplicates and unknown denied EVs");
	evs[5] = evs[4];
	ST_EQ_I(st, mrc_ev_set_init(&s, &p, 2, st_plane_of, NULL), -EINVAL);
	evs[5] = 5 << 16 | 0x1234;
	{
		uint32_t deny = 0x0ABCDEF0;

		p.deny = &deny;
		p.n_deny = 1;
		ST_EQ_I(st, mrc_ev_set_init(&s, &p, 2, st_plane_of, NULL), -EINVAL);
		p.deny = NULL;
		p.n_deny = 0;
	}

	mrc_st_case(st, "E10 shared profile: states per set, counters and lookup shared");
	{
		struct mrc_ev_profile *f;
		struct mrc_ev_set a, b;

		ST_EQ_I(st, mrc_ev_profile_new(&p, 2, st_plane_of, NULL, &f), 0);
		ST_EQ_I(st, mrc_ev_set_init_shared(&a, f), 0);
		ST_EQ_I(st, mrc_ev_set_init_shared(&b, f), 0);
		ST_EQ(st, f->refs, 3);
		for (int i = 0; i < 16; i++)
			ST_EQ_I(st, mrc_ev_find(&b, evs[i]), i);
		ST_TRUE(st, mrc_ev_on_bad(&a, 2, MRC_EVC_LOSS_SACK, 100));
		ST_EQ(st, mrc_ev_state(&a, 2), MRC_EV_ASSUMED_BAD);
		ST_EQ(st, mrc_ev_state(&b, 2), MRC_EV_GOOD);
		ST_TRUE(st, mrc_ev_active(&b, 2) && !mrc_ev_active(&b, 6));
		mrc_ev_st(&b, 2)->losses += 5;
		ST_EQ(st, mrc_ev_st(&a, 2)->changes, 1); /* a's change, seen through b too */
		ST_EQ(st, mrc_ev_st(&b, 2)->changes, 1);
		ST_EQ(st, mrc_ev_st(&a, 2)->losses, 5);

		mrc_st_case(st, "E11 probe due: the lowest index of the plane; RTTs past 2^32 ps");
		ST_TRUE(st, mrc_ev_on_bad(&a, 1, MRC_EVC_LOSS_SACK, 100));
		ST_EQ_I(st, mrc_ev_probe_due(&a, 0, 1000099), -1);
		ST_EQ_I(st, mrc_ev_probe_due(&a, 0, 1000100), 1); /* 2 went bad first */
		mrc_ev_probe_sent(&a, 1, 0x100, 1000100);
		ST_EQ(st, mrc_ev_probe_id(&a, 1), 1);
		ST_EQ(st, mrc_ev_probe_id(&a, 2), 0);
		ST_EQ_I(st, mrc_ev_probe_due(&a, 0, 1000100), 2);
		ST_EQ(st, mrc_ev_next_probe(&a, 1), 1000100); /* 2's first probe */
		ST_EQ_I(st, mrc_ev_set_rtt(&b, 5, 5000000000ull), 0); /* 5 ms */
		ST_EQ_I(st, mrc_ev_set_rtt(&b, 7, 1234), 0);
		ST_EQ(st, mrc_ev_rtt_last(&b, 5), 5000000000ull);
		ST_EQ(st, mrc_ev_rtt_last(&b, 7), 1234);
		ST_EQ(st, mrc_ev_rtt_last(&a, 5), 0);

		mrc_st_case(st, "E13 RTTs of 8 EVs in place, then of all 16 in an array");
		ST_TRUE(st, b.rtt == NULL && b.n_few == 2);
		for (unsigned i = 8; i < 14; i++) /* 8 EVs with a sample: still in place */
			ST_EQ_I(st, mrc_ev_set_rtt(&b, i, 1000 + i), 0);
		ST_TRUE(st, b.rtt == NULL && b.n_few == 8);
		ST_EQ_I(st, mrc_ev_set_rtt(&b, 7, 4321), 0); /* an update, not a ninth */
		ST_TRUE(st, b.rtt == NULL);
		ST_EQ_I(st, mrc_ev_set_rtt(&b, 15, 1015), 0); /* the ninth: the array */
		ST_TRUE(st, b.rtt != NULL);
		ST_EQ(st, mrc_ev_rtt_last(&b, 5), 5000000000ull);
		ST_EQ(st, mrc_ev_rtt_last(&b, 7), 4321);
		for (unsigned i = 8; i < 14; i++)
			ST_EQ(st, mrc_ev_rtt_last(&b, i), 1000 + i);
		ST_EQ(st, mrc_ev_rtt_last(&b, 15), 1015);
		ST_EQ(st, mrc_ev_rtt_last(&b, 14), 0);
		ST_EQ(st, mrc_ev_rtt_last(&b, 0), 0);
		mrc_ev_set_free(&a);
		ST_EQ(st, f->refs, 2);
		mrc_ev_profile_put(f);
		ST_EQ(st, b.prof->refs, 1);

		mrc_st_case(st, "E12 log grows with use, then keeps the latest 256 in order");
		{
			struct mrc_ev_change log[256];
			unsigned n;

			for (unsigned i = 0; i < 5; i++)
				mrc_ev_set_denied(&b, 0, i % 2 == 0, i);
			n = mrc_ev_log(&b, log, 256);
			ST_EQ(st, n, 5);
			ST_EQ(st, log[0].t_ps, 0);
			ST_EQ(st, log[4].t_ps, 4);
			for (unsigned i = 5; i < 300; i++)
				mrc_ev_set_denied(&b, 0, i % 2 == 0, i);
			ST_EQ(st, b.log_total, 300);
			n = mrc_ev_log(&b, log, 256);
			ST_EQ(st, n, 256);
			ST_EQ(st, log[0].t_ps, 300 - 256);
			ST_EQ(st, log[0].to, MRC_EV_DENIED); /* change 44: even, a deny */
			ST_EQ(st, log[255].t_ps, 299);
			ST_EQ(st, log[255].to, MRC_EV_GOOD);
			ST_EQ(st, mrc_ev_log(&b, log, 3), 3);
			ST_EQ(st, log[0].t_ps, 297);
		}
		mrc_ev_set_free(&b);

		mrc_st_case(st, "E13 no_log: changes counted, none kept, no log allocated");
		{
			struct mrc_ev_params q = p;
			struct mrc_ev_change log[4];

			q.no_log = true;
			ST_EQ_I(st, mrc_ev_set_init(&b, &q, 2, st_plane_of, NULL), 0);
			for (unsigned i = 0; i < 7; i++)
				mrc_ev_set_denied(&b, 0, i % 2 == 0, i);
			ST_EQ(st, b.log_total, 7);
			ST_EQ(st, mrc_ev_log(&b, log, 4), 0);
			ST_TRUE(st, b.log == NULL);
			ST_EQ(st, mrc_ev_state(&b, 0), MRC_EV_DENIED); /* change 6: even, a deny */
			mrc_ev_set_free(&b);
		}
	}

	mrc_st_case(st, "E14 flap damping: a revived EV failing within its backoff keeps it");
	{
		struct mrc_ev_params q = p;
		struct mrc_ev_set d;

		/* backoff 1 us doubling to 16 us; times in ps */
		q.probe_backoff_max_ps = 16000000;
		for (int damp = 0; damp < 2; damp++) {
			q.probe_damping = damp;
			ST_EQ_I(st, mrc_ev_set_init(&d, &q, 2, st_plane_of, NULL), 0);
			ST_TRUE(st, mrc_ev_on_bad(&d, 2, MRC_EVC_LOSS_SACK, 100));
			ST_EQ(st, mrc_ev_next_probe(&d, 1), 1000100); /* the first: 1 us */
			mrc_ev_probe_sent(&d, 2, 0x1, 1000100);	     /* backoff now 2 us */
			ST_TRUE(st, mrc_ev_on_probe_ok(&d, 2, 0x1, 1002000));
			/* bad again 1 us after the revival, within its 2 us backoff: it flaps, the
			 * hold is 2 us (damping) or back to 1 us (without) */
			ST_TRUE(st, mrc_ev_on_bad(&d, 2, MRC_EVC_LOSS_SACK, 2002000));
			ST_EQ(st, mrc_ev_next_probe(&d, 1), damp ? 4002000 : 3002000);
			mrc_ev_probe_sent(&d, 2, 0x2, damp ? 4002000 : 3002000);
			ST_TRUE(st, mrc_ev_on_probe_ok(&d, 2, 0x2, 4003000));
			/* damping: backoff 4 us; bad 4 us after the revival, not within it:
			 * forgiven, 1 us. Without: backoff 2 us, bad 4 us later: 1 us too. */
			ST_TRUE(st, mrc_ev_on_bad(&d, 2, MRC_EVC_LOSS_SACK, 8003000));
			ST_EQ(st, mrc_ev_next_probe(&d, 1), 9003000);
			/* a failure with no revival before it (the first) is never damped */
			ST_TRUE(st, mrc_ev_on_bad(&d, 3, MRC_EVC_LOSS_SACK, 8003500));
			ST_EQ(st, mrc_ev_next_probe(&d, 1), 9003000);
			ST_EQ_I(st, mrc_ev_probe_due(&d, 0, 9003500), 2);
			mrc_ev_probe_sent(&d, 2, 0x3, 9003500);
			ST_EQ(st, mrc_ev_next_probe(&d, 1), 9003500); /* 3's, 1 us after it */
			mrc_ev_set_free(&d);
		}
	}
}
