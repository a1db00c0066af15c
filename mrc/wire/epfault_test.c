/* SPDX-License-Identifier: BSD-2-Clause */
/* epfault_test: unit tests of mrc/wire/epfault.c (`mrcgen-test epfault`). */
#include "mrc/wire/epfault.c"
#include "mrc/base/st.h"

/* ---- selftest ------------------------------------------------------------------------ */


/* 2 planes x (2 T0 + 2 T1), 2 hosts per T0: h0 h1 under T0 0, h2 h3 under T0 1. */
static const struct mrc_epf_params st_params = {
	.planes = 2, .t0 = 2, .t1 = 2, .hosts_per_t0 = 2, .seed = 42,
	.trim_size = 64, .dscp_trimmed = 12, .link_rate_bps = 100000000000ull,
};

/* The path of @ev (plane(4) | spine(12) | salt(16), spine mod t1 = 2) from @src to @dst. */
static struct mrc_epf_pkt st_pkt(uint32_t ev, uint32_t src, uint32_t dst)
{
	return (struct mrc_epf_pkt){ ev >> 28, ((ev >> 16) & 0xfff) % 2, src, dst };
}

static struct conf_fault st_fault(const char *target, struct conf_node node,
	enum conf_fault_action a, uint64_t at_ps)
{
	return (struct conf_fault){ .has_at = true, .at_ps = at_ps, .target = (char *)target,
		.node = node, .action = a };
}

static enum mrc_epf_verdict st_tx(struct mrc_epf *e, struct mrc_epf_pkt p, uint64_t now)
{
	uint64_t rel = 0;

	return mrc_epf_tx(e, &p, now, &rel);
}

/* Sends @p at each of @n times @at and checks it is dropped exactly when @drop says. */
static void st_timeline(struct mrc_st *st, struct mrc_epf *e, struct mrc_epf_pkt p,
	const uint64_t *at, const bool *drop, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ST_EQ_I(st, st_tx(e, p, at[i]), drop[i] ? MRC_EPF_DROP : MRC_EPF_PASS);
}

MRC_SELFTEST(epfault)
{
	struct mrc_epf *e;
	char err[256] = "";
	uint64_t rel = 0;

	mrc_st_case(st, "epfault: p0.t0.0-p0.t1.1 down drops exactly the plane-0 spine-1 EVs "
			"between the two T0s");
	{
		struct conf_fault f = st_fault("p0.t0.0-p0.t1.1",
			(struct conf_node){ .kind = CONF_NODE_LINK_T0_T1, .t0 = 0, .t1 = 1 },
			CONF_FA_DOWN, 0);
		/* plane(4) | spine(12) | salt(16): spines 0..5 of both planes, mod 2 */
		static const uint32_t evs[] = { 0x00000005, 0x00010005, 0x00020005, 0x00030005,
			0x10000005, 0x10010005, 0x00050000, 0x10050000 };
		/* h1 -> h2 crosses the link upward, h3 -> h0 downward, h0 -> h1 stays on T0 0 */
		static const bool want12[] = { 0, 1, 0, 1, 0, 0, 1, 0 };
		int d12 = 0, d30 = 0, d01 = 0, d23 = 0;

		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 1000);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010005, 1, 2), 999), MRC_EPF_PASS);
		for (size_t i = 0; i < 8; i++) {
			bool got = st_tx(e, st_pkt(evs[i], 1, 2), 1000) == MRC_EPF_DROP;

			ST_EQ_I(st, got, want12[i]);
			d12 += got;
			d30 += st_tx(e, st_pkt(evs[i], 3, 0), 1000) == MRC_EPF_DROP;
			d01 += st_tx(e, st_pkt(evs[i], 0, 1), 1000) == MRC_EPF_DROP;
			d23 += st_tx(e, st_pkt(evs[i], 2, 3), 1000) == MRC_EPF_DROP;
		}
		ST_EQ_I(st, d12, 3);
		ST_EQ_I(st, d30, 3);
		ST_EQ_I(st, d01, 0);
		ST_EQ_I(st, d23, 0);
		ST_EQ(st, mrc_epf_stats(e)->dropped, 6);
		mrc_epf_free(e);
		/* direction forward (T0 -> T1, upward): h1 -> h2 dropped, h3 -> h0 not */
		f.direction = CONF_DIR_FORWARD;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 1, 2), 5), MRC_EPF_DROP);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 3, 0), 5), MRC_EPF_PASS);
		mrc_epf_free(e);
		/* written T1 first, forward is downward */
		f.node.reverse = true;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 1, 2), 5), MRC_EPF_PASS);
		ST_EQ_I(st, st_tx(e, st_pkt(0x00010000, 3, 0), 5), MRC_EPF_DROP);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: NIC port h1.p1 down drops exactly plane 1 to and from h1");
	{
		struct conf_fault f = st_fault("h1.p1",
			(struct conf_node){ .kind = CONF_NODE_PORT, .plane = 1, .host = 1 },
			CONF_FA_DOWN, 0);
		int drops = 0;

		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		/* all 4 x 4 ordered pairs on both planes, 2 EVs each: 12 pairs x 2 planes x 2 */
		for (uint32_t s = 0; s < 4; s++)
			for (uint32_t d = 0; d < 4; d++)
				for (uint32_t ev = 0; s != d && ev < 4; ev++) {
					uint32_t x = (ev & 2 ? 0x10000000u : 0) | (ev & 1) << 16;
					bool got = st_tx(e, st_pkt(x, s, d), 0) == MRC_EPF_DROP;

					ST_EQ_I(st, got, (x >> 28) == 1 && (s == 1 || d == 1));
					drops += got;
				}
		/* pairs with h1: 3 from + 3 to = 6, x 2 EVs of plane 1 */
		ST_EQ_I(st, drops, 12);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: delay 5us on h0.p0-p0.t0.0 releases exactly 5us later, in order");
	{
		struct conf_fault f = st_fault("h0.p0-p0.t0.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_HOST_T0, .host = 0 },
			CONF_FA_DELAY, 0);
		uint8_t a[3] = { 1, 2, 3 }, b[2] = { 9, 8 }, out[8];
		unsigned plane = 7;
		struct mrc_epf_pkt p = st_pkt(0, 0, 1);

		f.delay_ps = 5000000;
		f.has_delay = true;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, mrc_epf_tx(e, &p, 2000000, &rel), MRC_EPF_DELAY);
		ST_EQ(st, rel, 7000000);
		ST_EQ_I(st, mrc_epf_hold(e, 0, a, 3, rel), 0);
		ST_EQ_I(st, st_tx(e, st_pkt(0x10000000, 0, 1), 0), MRC_EPF_PASS); /* plane 1 */
		ST_EQ_I(st, st_tx(e, st_pkt(0, 1, 0), 0), MRC_EPF_DELAY);	 /* down to h0 */
		ST_EQ_I(st, mrc_epf_hold(e, 1, b, 2, 6000000), 0);	/* earlier: goes first */
		ST_EQ(st, mrc_epf_next_release(e), 6000000);
		ST_EQ_I(st, mrc_epf_due(e, 5999999, out, sizeof(out), &plane), 0);
		ST_EQ_I(st, mrc_epf_due(e, 7000000, out, sizeof(out), &plane), 2);
		ST_EQ_MEM(st, out, b, 2);
		ST_EQ_I(st, plane, 1);
		ST_EQ_I(st, mrc_epf_due(e, 7000000, out, sizeof(out), &plane), 3);
		ST_EQ_MEM(st, out, a, 3);
		ST_EQ_I(st, plane, 0);
		ST_EQ(st, mrc_epf_next_release(e), UINT64_MAX);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: loss 0.25 over 1000 packets drops exactly the seeded draws");
	{
		struct conf_fault f = st_fault("h0.p0-p0.t0.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_HOST_T0, .host = 0 },
			CONF_FA_LOSS, 0);
		struct mrc_rng ref;
		int got = 0, want = 0;

		f.rate = 0.25;
		f.has_rate = true;
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		/* one draw per packet on the link: 53 high bits below 2^51 (= 0.25 * 2^53) */
		mrc_rng_seed(&ref, 42);
		for (int i = 0; i < 1000; i++) {
			got += st_tx(e, st_pkt(0, 0, 1), 0) == MRC_EPF_DROP;
			want += (mrc_rng_next(&ref) >> 11) < (1ull << 51);
			/* packets off the link take no draw */
			ST_EQ_I(st, st_tx(e, st_pkt(0, 2, 3), 0), MRC_EPF_PASS);
		}
		ST_EQ_I(st, got, want);
		ST_TRUE(st, got > 200 && got < 300);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: timeline: at + duration, at_iteration, up ends down, flap duty");
	{
		struct conf_node t1 = { .kind = CONF_NODE_T1, .t1 = 0 };
		struct conf_fault f[3] = {
			st_fault("p0.t1.0", t1, CONF_FA_DOWN, 10000000),
			st_fault("p0.t1.0", t1, CONF_FA_UP, 0),
			st_fault("p0.t1.0", t1, CONF_FA_DOWN, 0),
		};
		struct mrc_epf_pkt p = st_pkt(0, 0, 2);

		f[0].has_duration = true;
		f[0].duration_ps = 5000000;
		/* down at iteration 2, up at iteration 3 */
		f[2].has_at = false, f[2].has_at_iteration = true, f[2].at_iteration = 2;
		f[1].has_at = false, f[1].has_at_iteration = true, f[1].at_iteration = 3;
		ST_EQ_I(st, mrc_epf_new(&st_params, f, 3, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 100);
		/* down from 100 + 10us for 5us: [10000100, 15000100) */
		st_timeline(st, e, p, (const uint64_t[]){ 10000099, 10000100, 15000099, 15000100 },
			(const bool[]){ 0, 1, 1, 0 }, 4);
		mrc_epf_iteration(e, 1, 20000000);
		ST_EQ_I(st, st_tx(e, p, 20000000), MRC_EPF_PASS);
		mrc_epf_iteration(e, 2, 30000000);
		ST_EQ_I(st, st_tx(e, p, 30000000), MRC_EPF_DROP);
		ST_EQ_I(st, st_tx(e, st_pkt(0, 0, 1), 30000000), MRC_EPF_PASS); /* no T1 */
		mrc_epf_iteration(e, 3, 40000000);
		ST_EQ_I(st, st_tx(e, p, 40000000), MRC_EPF_PASS);
		mrc_epf_free(e);

		/* flap: period 10us, duty 0.3: down in [0, 3us) of each cycle */
		f[0] = st_fault("p0.t0.0-p0.t1.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_T0_T1 }, CONF_FA_FLAP, 0);
		f[0].period_ps = 10000000;
		f[0].duty = 0.3;
		ST_EQ_I(st, mrc_epf_new(&st_params, f, 1, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		st_timeline(st, e, p, (const uint64_t[]){ 2999999, 3000000, 12000000, 19999999 },
			(const bool[]){ 1, 0, 1, 0 }, 4);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: receiver trims loss with fabric.trim, marks CE above the "
			"threshold's queueing time");
	{
		struct mrc_epf_params pp = st_params;
		struct conf_node l = { .kind = CONF_NODE_LINK_HOST_T0, .host = 1 };
		struct conf_fault f[2] = {
			st_fault("h1.p0-p0.t0.0", l, CONF_FA_LOSS, 0),
			st_fault("h1.p0-p0.t0.0", l, CONF_FA_DELAY, 0),
		};
		struct mrc_epf_pkt p = st_pkt(0, 0, 1);
		bool ce = false;

		f[0].rate = 1;
		/* 1 us at 100 Gb/s is a 12500-byte queue */
		f[1].delay_ps = 1000000;
		pp.trim = true;
		pp.ecn_threshold_bytes = 12500;
		ST_EQ_I(st, mrc_epf_new(&pp, f, 2, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, mrc_epf_tx(e, &p, 0, &rel), MRC_EPF_DELAY); /* no drop: trimmed */
		ST_EQ_I(st, mrc_epf_rx(e, &p, 0, &ce), MRC_EPF_TRIM);
		ST_TRUE(st, ce);
		mrc_epf_free(e);
		pp.ecn_threshold_bytes = 12501;
		ce = false;
		ST_EQ_I(st, mrc_epf_new(&pp, f, 2, &e, err, sizeof(err)), 0);
		mrc_epf_start(e, 0);
		ST_EQ_I(st, mrc_epf_rx(e, &p, 0, &ce), MRC_EPF_TRIM);
		ST_TRUE(st, !ce);
		mrc_epf_free(e);
	}

	mrc_st_case(st, "epfault: refuses what an endpoint cannot emulate, naming the fault");
	{
		struct conf_fault f = st_fault("h2",
			(struct conf_node){ .kind = CONF_NODE_HOST, .host = 2 }, CONF_FA_DOWN, 0);

		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), -EINVAL);
		ST_TRUE(st,
			strstr(err, "fault h2: down of a whole host cannot be emulated") != NULL);
		f = st_fault("h0.p0-p0.t0.0",
			(struct conf_node){ .kind = CONF_NODE_LINK_HOST_T0 }, CONF_FA_BLACKHOLE, 0);
		ST_EQ_I(st, mrc_epf_new(&st_params, &f, 1, &e, err, sizeof(err)), -EINVAL);
		ST_TRUE(st, strstr(err, "fault h0.p0-p0.t0.0: blackhole") != NULL);
	}
}
