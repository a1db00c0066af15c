/* SPDX-License-Identifier: BSD-2-Clause */
/* sweep_test: unit tests of mrc/job/sweep.c (`mrcgen-test sweep`); includes sweep.c to reach
 * its statics. */
#include "mrc/job/sweep.c"
#include "mrc/base/st.h"

/* small.yaml's fabric: 2 planes x (2 T0 + 2 T1), 2 hosts a T0 (4 hosts), 16 EVs (8 a plane:
 * plane in EV[31:28], spine in EV[27:16] taken mod 2), with @sets on top. */
static int swt_new(const char *const *sets, size_t n, struct conf_job *job,
	struct mrc_job_srv6 *m, struct mrc_sweep **sw, char *err, size_t errlen)
{
	static const char *base = "fabric: {planes: 2, t0: 2, t1: 2, hosts_per_t0: 2}\n"
				  "mrc: {ev: {ev_count: 16, ev_min_active: 4}}\n";
	int e = conf_load_string(base, strlen(base), "sweep_test", sets, n, job, err, errlen);

	*sw = NULL;
	if (e)
		return e;
	e = mrc_job_srv6(job, m, err, errlen);
	if (e) {
		conf_free(job);
		return e;
	}
	e = mrc_sweep_new(job, m, sw, err, errlen);
	if (e) {
		mrc_job_srv6_free(m);
		conf_free(job);
	}
	return e;
}

static void swt_free(struct conf_job *job, struct mrc_job_srv6 *m, struct mrc_sweep *sw)
{
	mrc_sweep_free(sw);
	mrc_job_srv6_free(m);
	conf_free(job);
}

#define SWT_SETS(...) ((const char *const[]){ __VA_ARGS__ }), \
	sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)

/* Counts, from each path's own fields, how many paths cross every link (numbered as the
 * header says: plane p, host h -> p * 8 + h; T0 i - T1 j -> p * 8 + 4 + 2i + j). */
static void swt_cover(const struct mrc_sweep_path *p, size_t n, uint32_t c[16])
{
	memset(c, 0, 16 * sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		c[p[i].plane * 8 + p[i].src]++;
		c[p[i].plane * 8 + p[i].dst]++;
		if (p[i].t1 != UINT32_MAX) {
			c[p[i].plane * 8 + 4 + 2 * p[i].t0_src + p[i].t1]++;
			c[p[i].plane * 8 + 4 + 2 * p[i].t0_dst + p[i].t1]++;
		}
	}
}

MRC_SELFTEST(sweep)
{
	struct conf_job job;
	struct mrc_job_srv6 m;
	struct mrc_sweep *sw = NULL, *sw2 = NULL;
	struct mrc_sweep_probe pr;
	char err[256], name[64], nodes[MRC_SWEEP_MAX_NODES][MRC_SWEEP_NODE_LEN];
	const struct mrc_sweep_path *p;
	uint32_t cover[16];
	size_t n;

	mrc_st_case(st, "S01 links: 2 x (4 hosts + 2 x 2) = 16, numbered by plane, host links "
			"first; named as fault targets, lower tier first");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=1"), &job, &m, &sw, err, sizeof(err)), 0);
	if (!sw)
		return;
	ST_EQ(st, mrc_sweep_n_links(sw), 16);
	ST_EQ_STR(st, mrc_sweep_link_name(sw, 0, name, sizeof(name)), "h0.p0-p0.t0.0");
	ST_EQ_STR(st, mrc_sweep_link_name(sw, 3, name, sizeof(name)), "h3.p0-p0.t0.1");
	ST_EQ_STR(st, mrc_sweep_link_name(sw, 5, name, sizeof(name)), "p0.t0.0-p0.t1.1");
	ST_EQ_STR(st, mrc_sweep_link_name(sw, 7, name, sizeof(name)), "p0.t0.1-p0.t1.1");
	ST_EQ_STR(st, mrc_sweep_link_name(sw, 11, name, sizeof(name)), "h3.p1-p1.t0.1");
	ST_EQ_STR(st, mrc_sweep_link_name(sw, 14, name, sizeof(name)), "p1.t0.1-p1.t1.0");
	swt_free(&job, &m, sw);

	mrc_st_case(st, "S02 cover 3: every link on >= 3 paths (counted from the paths), no "
			"path twice, sorted by (src, dst, ev), each EV of its plane and spine; "
			"no cache line holds two hosts' destination records");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=3"), &job, &m, &sw, err, sizeof(err)), 0);
	if (!sw)
		return;
	p = mrc_sweep_paths(sw);
	n = mrc_sweep_n_paths(sw);
	swt_cover(p, n, cover);
	for (size_t l = 0; l < 16; l++) {
		ST_TRUE(st, cover[l] >= 3);
		ST_EQ(st, mrc_sweep_link_paths(sw, l), cover[l]);
	}
	/* each path covers 2 or 4 of 16 links: 3 x 16 / 4 = 12 at least */
	ST_TRUE(st, n >= 12);
	for (size_t i = 0; i < n; i++) {
		ST_TRUE(st, p[i].src != p[i].dst && p[i].src < 4 && p[i].dst < 4);
		ST_EQ(st, p[i].plane, p[i].ev >> 28);
		ST_EQ(st, p[i].t0_src, p[i].src / 2);
		ST_EQ(st, p[i].t0_dst, p[i].dst / 2);
		if (p[i].t0_src == p[i].t0_dst)
			ST_EQ(st, p[i].t1, UINT32_MAX);
		else
			ST_EQ(st, p[i].t1, (p[i].ev >> 16 & 0xfff) % 2);
		if (i)
			ST_TRUE(st, path_cmp(&p[i - 1], &p[i]) < 0); /* sorted, none twice */
	}
	/* the destinations' records: one each, and a cache line holds one host's only (a
	 * parallel run's workers write their own hosts') */
	for (size_t i = 0; i < n; i++) {
		uintptr_t li = (uintptr_t)&sw->rx[sw->rx_slot[i]] / 64;

		for (size_t k = 0; k < i; k++) {
			uintptr_t lk = (uintptr_t)&sw->rx[sw->rx_slot[k]] / 64;

			ST_TRUE(st, sw->rx_slot[k] != sw->rx_slot[i]);
			ST_TRUE(st, p[k].dst == p[i].dst || lk != li);
		}
	}
	swt_free(&job, &m, sw);

	mrc_st_case(st, "S03 cover 0: every EV of every ordered pair, 4 x 3 x 16 = 192 paths; "
			"a host link on 2 x 3 x 8 = 48 (from and to its host, its plane's 8 EVs)");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=0"), &job, &m, &sw, err, sizeof(err)), 0);
	if (!sw)
		return;
	ST_EQ(st, mrc_sweep_n_paths(sw), 192);
	ST_EQ(st, mrc_sweep_link_paths(sw, 0), 48);
	ST_EQ(st, mrc_sweep_planned(sw), 192 * 16);
	swt_free(&job, &m, sw);

	mrc_st_case(st, "S04 a denied EV is never probed; udp EVs name no path");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=0", "mrc.ev.deny=[0x00000000]"), &job, &m,
		&sw, err, sizeof(err)), 0);
	if (!sw)
		return;
	ST_EQ(st, mrc_sweep_n_paths(sw), 4 * 3 * 15);
	for (size_t i = 0; i < mrc_sweep_n_paths(sw); i++)
		ST_TRUE(st, mrc_sweep_paths(sw)[i].ev != 0);
	swt_free(&job, &m, sw);
	ST_EQ_I(st, swt_new(SWT_SETS("mrc.ev_format=udp"), &job, &m, &sw, err, sizeof(err)),
		-EINVAL);
	ST_TRUE(st, strstr(err, "mrc.ev_format: ") == err);

	mrc_st_case(st, "S05 pacing: rate 10000/s is a turn every 1e8 ps; host 1 starts a "
			"quarter turn late; 2 in flight at most; the first request of each path, "
			"then round 2");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=1", "sweep.rate=10000", "sweep.outstanding=2",
		"sweep.probes=2"), &job, &m, &sw, err, sizeof(err)), 0);
	if (!sw)
		return;
	ST_EQ(st, mrc_sweep_poll(sw, 1, 0, &pr), 25000000); /* 1e8 x 1 / 4 hosts */
	ST_EQ(st, mrc_sweep_poll(sw, 0, 0, &pr), 0);
	ST_EQ(st, pr.path, sw->sh[0].first);
	ST_EQ(st, pr.peer, sw->paths[pr.path].dst);
	mrc_sweep_sent(sw, 0, &pr, 7, 0);
	ST_EQ(st, mrc_sweep_poll(sw, 0, 0, &pr), 100000000);
	ST_EQ(st, mrc_sweep_poll(sw, 0, 100000000, &pr), 0);
	mrc_sweep_sent(sw, 0, &pr, 8, 100000000);
	/* two in flight: the next turn has come, but the first timeout (2 ms + 1 ps) is next */
	ST_EQ(st, mrc_sweep_poll(sw, 0, 200000000, &pr), 2000000001ull);
	mrc_sweep_answer(sw, 0, 7, sw->paths[sw->sh[0].first].dst,
		sw->paths[sw->sh[0].first].ev, 1500);
	ST_EQ(st, mrc_sweep_poll(sw, 0, 200000000, &pr), 0);
	ST_EQ(st, pr.path, sw->sh[0].first + 2 % sw->sh[0].n); /* the third request */
	ST_EQ(st, sw->paths[sw->sh[0].first].answered, 1);
	/* -EBUSY: the same request again; -ENETDOWN: sent and lost, not in flight */
	mrc_sweep_sent(sw, 0, &pr, -EBUSY, 200000000);
	ST_EQ(st, mrc_sweep_poll(sw, 0, 200000000, &pr), 0);
	mrc_sweep_sent(sw, 0, &pr, -ENETDOWN, 200000000);
	ST_EQ(st, sw->paths[pr.path].sent, 1);
	ST_EQ(st, sw->sh[0].n_fly, 1);
	swt_free(&job, &m, sw);

	mrc_st_case(st, "S06 answers: one after a later round's is reordered; a timed-out "
			"request is lost and its late answer ignored; RTT by nearest rank");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=1", "sweep.rate=1000000", "sweep.probes=16",
		"sweep.outstanding=64", "fabric.t0=1", "fabric.hosts_per_t0=2",
		"fabric.planes=1", "mrc.ev.ev_count=4", "mrc.ev.ev_min_active=1"), &job, &m, &sw,
		err, sizeof(err)), 0);
	if (!sw)
		return;
	/* 2 hosts on one T0, one plane: h0's one path to h1; rounds 1 us apart */
	ST_EQ(st, sw->sh[0].n, 1);
	{
		uint32_t dst = sw->paths[0].dst, ev = sw->paths[0].ev;

		for (int k = 0; k < 16; k++) {
			uint64_t t = (uint64_t)k * 1000000;

			ST_EQ(st, mrc_sweep_poll(sw, 0, t, &pr), 0);
			mrc_sweep_sent(sw, 0, &pr, 100 + k, t);
		}
		/* rounds 0..14 answered with RTT (k + 1) us, round 1 after round 2 */
		mrc_sweep_answer(sw, 0, 100, dst, ev, 1000);
		mrc_sweep_answer(sw, 0, 102, dst, ev, 3000);
		mrc_sweep_answer(sw, 0, 101, dst, ev, 2000);
		for (int k = 3; k < 15; k++)
			mrc_sweep_answer(sw, 0, (uint16_t)(100 + k), dst, ev, (uint64_t)(k + 1) * 1000);
		mrc_sweep_answer(sw, 0, 100, dst, ev, 1000); /* a replay: nothing in flight */
		mrc_sweep_answer(sw, 0, 115, dst + 1, ev, 1000); /* another host's */
		ST_EQ(st, sw->paths[0].answered, 15);
		ST_EQ(st, sw->paths[0].reordered, 1);
		ST_TRUE(st, !mrc_sweep_host_done(sw, 0));
		/* round 15, sent at 15 us, times out at 15 us + 2 ms + 1 ps */
		ST_EQ(st, mrc_sweep_poll(sw, 0, 15000000, &pr), 2015000001ull);
		ST_EQ(st, mrc_sweep_poll(sw, 0, 2015000001ull, &pr), UINT64_MAX);
		ST_TRUE(st, mrc_sweep_host_done(sw, 0));
		mrc_sweep_answer(sw, 0, 115, dst, ev, 2000000);
		ST_EQ(st, sw->paths[0].answered, 15);
		mrc_sweep_request(sw, dst, 0, ev, false);
		mrc_sweep_request(sw, dst, 0, ev, true);
		mrc_sweep_request(sw, dst, 0, ev + 1, true); /* no such path: nothing */
		ST_EQ(st, sw->paths[0].delivered, 0); /* the destination's until the finish */
		mrc_sweep_finish(sw);
		ST_EQ(st, sw->paths[0].delivered, 2);
		ST_EQ(st, sw->paths[0].ce, 1);
		/* 15 samples 1..15 us: p50 the 8th, p90 the 14th (ceil 13.5), p99 the 15th */
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_MIN], 1000);
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_P50], 8000);
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_P90], 14000);
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_P99], 15000);
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_MAX], 15000);
		ST_EQ(st, mrc_sweep_unsent(sw), mrc_sweep_planned(sw) - 16);
		/* 16 samples 16..1 us: p90 the 15th (ceil 14.4), p99 the 16th (ceil 15.84) */
		for (uint32_t k = 0; k < 16; k++)
			sw->rtt[k] = (16 - k) * 1000;
		sw->ps[0].n_rtt = 16;
		mrc_sweep_finish(sw);
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_P50], 8000);
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_P90], 15000);
		ST_EQ(st, sw->paths[0].rtt_ns[MRC_SWEEP_RTT_P99], 16000);
	}
	ST_EQ(st, mrc_sweep_path_nodes(&sw->paths[0], nodes), 3);
	ST_EQ_STR(st, nodes[0], "h0.p0");
	ST_EQ_STR(st, nodes[1], "p0.t0.0");
	ST_EQ_STR(st, nodes[2], "h1.p0");

	mrc_st_case(st, "S07 a rank's half: encoded, merged into another copy of the plan as "
			"sent; a body of another version, length or a path not its own changes "
			"nothing");
	{
		struct conf_job j2;
		struct mrc_job_srv6 m2;
		uint8_t *b = NULL;
		size_t len = 0;

		ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=1", "sweep.rate=1000000",
			"sweep.probes=16", "sweep.outstanding=64", "fabric.t0=1",
			"fabric.hosts_per_t0=2", "fabric.planes=1", "mrc.ev.ev_count=4",
			"mrc.ev.ev_min_active=1"), &j2, &m2, &sw2, err, sizeof(err)), 0);
		if (!sw2)
			return;
		ST_EQ_I(st, mrc_sweep_encode(sw, 0, &b, &len), 0);
		/* 12 + h0's path (36) + the one path to h0 (12) */
		ST_EQ(st, len, 12 + 36 * sw->sh[0].n + 12 * sw->sh[1].n);
		ST_EQ_I(st, mrc_sweep_merge(sw2, 1, b, len), -EPROTO); /* not h1's paths */
		b[3] = 2;
		ST_EQ_I(st, mrc_sweep_merge(sw2, 0, b, len), -EPROTO);
		b[3] = 1;
		ST_EQ_I(st, mrc_sweep_merge(sw2, 0, b, len - 1), -EPROTO);
		ST_EQ(st, sw2->paths[0].sent, 0);
		ST_EQ_I(st, mrc_sweep_merge(sw2, 0, b, len), 0);
		ST_EQ(st, sw2->paths[0].sent, 16);
		ST_EQ(st, sw2->paths[0].answered, 15);
		ST_EQ(st, sw2->paths[0].reordered, 1);
		ST_EQ(st, sw2->paths[0].rtt_ns[MRC_SWEEP_RTT_P90], 15000);
		free(b);
		ST_EQ_I(st, mrc_sweep_encode(sw, 1, &b, &len), 0);
		ST_EQ_I(st, mrc_sweep_merge(sw2, 1, b, len), 0);
		ST_EQ(st, sw2->paths[0].delivered, 2);
		ST_EQ(st, sw2->paths[0].ce, 1);
		/* ce above delivered: refused */
		put_be32(b + len - 4, 3);
		ST_EQ_I(st, mrc_sweep_merge(sw2, 1, b, len), -EPROTO);
		free(b);
		/* a receiver record of a path to h1 sent as h0's: refused */
		{
			uint8_t rx[24] = { 0 };

			put_be32(rx, 1);
			put_be32(rx + 8, 1); /* no sender record, one receiver record */
			put_be32(rx + 12, 0);
			put_be32(rx + 16, 5);
			ST_EQ(st, sw2->paths[0].dst, 1);
			ST_EQ_I(st, mrc_sweep_merge(sw2, 0, rx, sizeof(rx)), -EPROTO);
			ST_EQ(st, sw2->paths[0].delivered, 2);
		}
		swt_free(&j2, &m2, sw2);
	}
	swt_free(&job, &m, sw);

	mrc_st_case(st, "S07b each host's receiver records: exactly the paths to it, in plan "
			"order, with their counts (36 paths to a host: its range is 5 cache lines "
			"less 4 records of padding)");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=0", "mrc.ev.ev_count=12"), &job, &m, &sw, err,
		sizeof(err)), 0);
	if (!sw)
		return;
	ST_EQ(st, sw->n_paths, 4 * 3 * 12); /* every EV of every ordered pair */
	for (size_t i = 0; i < sw->n_paths; i++) /* path i delivered i % 5 times, CE once */
		for (size_t k = 0; k < i % 5; k++)
			mrc_sweep_request(sw, sw->paths[i].dst, sw->paths[i].src, sw->paths[i].ev,
				k == 0);
	mrc_sweep_finish(sw);
	for (uint32_t h = 0; h < 4; h++) {
		uint8_t *b = NULL;
		size_t len = 0, o, nr = 0, bad = 0;

		ST_EQ_I(st, mrc_sweep_encode(sw, h, &b, &len), 0);
		if (!b)
			continue;
		o = 8 + 36 * (size_t)get_be32(b + 4);
		ST_EQ(st, get_be32(b + o), 36);
		for (size_t i = 0; i < sw->n_paths; i++) {
			const uint8_t *r = b + o + 4 + 12 * nr;

			if (sw->paths[i].dst != h)
				continue;
			if (12 * (nr + 1) > len - o - 4)
				break;
			bad += get_be32(r) != i || get_be32(r + 4) != i % 5 ||
			       get_be32(r + 8) != (i % 5 != 0);
			nr++;
		}
		ST_EQ(st, nr, 36);
		ST_EQ(st, bad, 0);
		ST_EQ(st, len, o + 4 + 12 * 36);
		free(b);
	}
	swt_free(&job, &m, sw);

	mrc_st_case(st, "S08 max_time: no request leaves at or after it (rate 1000/s, max_time "
			"2.5 ms: turns at 0, 1, 2 ms)");
	ST_EQ_I(st, swt_new(SWT_SETS("sweep.cover=1", "sweep.rate=1000", "sweep.max_time=2500us",
		"sweep.outstanding=64"), &job, &m, &sw, err, sizeof(err)), 0);
	if (!sw)
		return;
	for (uint64_t t = 0; t < 4000000000ull; t += 1000000000ull) {
		if (mrc_sweep_poll(sw, 0, t, &pr) == 0)
			mrc_sweep_sent(sw, 0, &pr, (int)(t / 1000000000ull), t);
	}
	ST_EQ(st, sw->sh[0].next_k, 3);
	ST_TRUE(st, sw->sh[0].cut);
	swt_free(&job, &m, sw);
}
