/* SPDX-License-Identifier: BSD-2-Clause */
/* job_test: unit tests of mrc/job/job.c (`mrcgen-test job`); includes job.c to reach its
 * statics. */
#include "mrc/job/job.c"
#include "mrc/base/st.h"

/* The defaults, then "key=value" overrides, as `run --set` gives them. */
static int jt_load(struct conf_job *job, const char *const *sets, size_t n)
{
	char err[256];
	int rc = conf_load_string("{}", 2, "job_test", sets, n, job, err, sizeof(err));

	if (rc)
		fprintf(stderr, "job_test: %s\n", err);
	return rc;
}

/* mrc_job_check of the defaults with @sets; @key receives the key at fault. */
static int jt_check(const char *const *sets, size_t n, char *key, size_t keylen)
{
	struct conf_job job;
	char msg[256];
	int rc = jt_load(&job, sets, n);

	key[0] = 0;
	if (rc)
		return 1000; /* not a value mrc_job_check returns */
	rc = mrc_job_check(&job, key, keylen, msg, sizeof(msg));
	conf_free(&job);
	return rc;
}

#define JT_SETS(...) ((const char *const[]){ __VA_ARGS__ }), \
	sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *)

MRC_SELFTEST(job)
{
	struct conf_job job;
	unsigned to_bth = 0;
	char key[64];

	/*
	 * The largest data packet, header by header (the layouts of mrc/engine/wire.h):
	 * outer IPv6 40 + inner IPv6 40 + UDP 8 + BTH 12 + METH 4 + TSETH 4 + RETH 16 +
	 * ImmDt 4 + payload + ICRC 4 = payload + 132; up to the BTH's end 40 + 40 + 8 + 12 =
	 * 100. One IPv6 header less (stev, udp, and RoCE): payload + 92, to the BTH 60.
	 */
	mrc_st_case(st, "J01 largest data packet, srv6: mtu 4096 + 132 = 4228 B, 100 to the BTH");
	if (ST_TRUE(st, jt_load(&job, JT_SETS("mrc.mtu=4096")) == 0)) {
		ST_EQ_I(st, mrc_job_max_data_pkt(&job, &to_bth), 4228);
		ST_EQ(st, to_bth, 100);
		job.mrc.mtu = 256;
		ST_EQ_I(st, mrc_job_max_data_pkt(&job, NULL), 388);
		job.mrc.icrc_outer = true; /* what the ICRC covers, not its length */
		ST_EQ_I(st, mrc_job_max_data_pkt(&job, NULL), 388);
		conf_free(&job);
	}

	mrc_st_case(st, "J02 one IPv6 header (udp EV format, RoCE): mtu 4096 + 92 = 4188 B, 60");
	if (ST_TRUE(st, jt_load(&job, JT_SETS("mrc.mtu=4096", "mrc.ev_format=udp")) == 0)) {
		ST_EQ_I(st, mrc_job_max_data_pkt(&job, &to_bth), 4188);
		ST_EQ(st, to_bth, 60);
		conf_free(&job);
	}
	if (ST_TRUE(st, jt_load(&job, JT_SETS("mrc.mtu=4096", "mrc.transport=roce")) == 0)) {
		ST_EQ_I(st, mrc_job_max_data_pkt(&job, &to_bth), 4188);
		ST_EQ(st, to_bth, 60);
		conf_free(&job);
	}

	mrc_st_case(st, "J03 fabric.buffer holds one largest packet: 4228 B passes, 4227 B fails");
	/* the ECN threshold may not exceed the buffer: lowered out of the way */
	ST_EQ_I(st, jt_check(JT_SETS("mrc.mtu=4096", "fabric.buffer=4228B",
			"fabric.ecn_threshold=1KiB", "fabric.trim=false"), key, sizeof(key)), 0);
	ST_EQ_I(st,
		jt_check(JT_SETS("mrc.mtu=4096", "fabric.buffer=4227B", "fabric.ecn_threshold=1KiB",
				 "fabric.trim=false"),
			key, sizeof(key)),
		-EINVAL);
	ST_EQ_STR(st, key, "fabric.buffer");

	mrc_st_case(st, "J04 fabric.trim_size between the 100 B to the BTH and 4228 B, exclusive");
	ST_EQ_I(st, jt_check(JT_SETS("mrc.mtu=4096", "fabric.trim=true", "fabric.trim_size=100B"),
			key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("mrc.mtu=4096", "fabric.trim=true", "fabric.trim_size=99B"),
			key, sizeof(key)), -EINVAL);
	ST_EQ_STR(st, key, "fabric.trim_size");
	ST_EQ_I(st, jt_check(JT_SETS("mrc.mtu=4096", "fabric.trim=true",
			"fabric.trim_size=4227B"), key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("mrc.mtu=4096", "fabric.trim=true",
			"fabric.trim_size=4228B"), key, sizeof(key)), -EINVAL);
	ST_EQ_STR(st, key, "fabric.trim_size");
	/* trim off: a trim size is not looked at */
	ST_EQ_I(st, jt_check(JT_SETS("mrc.mtu=4096", "fabric.trim=false", "fabric.trim_size=99B"),
			key, sizeof(key)), 0);

	mrc_st_case(st, "J05 all-to-all of 4 ranks (float32): 16 B is one element per rank, 12 B "
			"is not");
	ST_EQ_I(st, jt_check(JT_SETS("fabric.planes=2", "fabric.t0=2", "fabric.t1=2",
			"fabric.hosts_per_t0=2", "traffic.pattern=alltoall", "traffic.sizes=[16B]"),
			key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("fabric.planes=2", "fabric.t0=2", "fabric.t1=2",
			"fabric.hosts_per_t0=2", "traffic.pattern=alltoall",
			"traffic.sizes=[16B, 12B]"), key, sizeof(key)), -EINVAL);
	ST_EQ_STR(st, key, "traffic.sizes[1]");

	mrc_st_case(st, "J06 at most 16 percentiles in a report's summary");
	ST_EQ_I(st, jt_check(JT_SETS("output.hist.percentiles=[1,2,3,4,5,6,7,8,9,10,11,12,13,"
			"14,15,16]"), key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("output.hist.percentiles=[1,2,3,4,5,6,7,8,9,10,11,12,13,"
			"14,15,16,17]"), key, sizeof(key)), -EINVAL);
	ST_EQ_STR(st, key, "output.hist.percentiles");

	/*
	 * docs/pfc.md "Headroom": P + rate x (2 ser(P) + ser(64) + 2 d + switch_delay) with the
	 * defaults: P = 4228 B (J01), 100 Gb/s = 12.5 B/ns (ser(4228) = 338.24 ns, ser(64) =
	 * 5.12 ns), d = max(50, 500) ns, switch 500 ns: 4228 + 12.5 x 2181.6 = 4228 + 27270 =
	 * 31498 B. 400 Gb/s and 1 us fabric links: 4228 + 50 x (169.12 + 1.28 + 2500) =
	 * 4228 + 133520 = 137748 B. A given headroom is taken as it is.
	 */
	mrc_st_case(st, "J07 PFC headroom rule: 31498 B with the defaults, 137748 B at 400 Gb/s "
			"and 1 us; xoff + it within the buffer");
	if (ST_TRUE(st, jt_load(&job, JT_SETS("mrc.mtu=4096")) == 0)) {
		ST_EQ(st, mrc_job_pfc_headroom(&job), 31498);
		job.fabric.link_rate_bps = 400000000000ull;
		job.fabric.fabric_link_delay_ps = 1000000;
		ST_EQ(st, mrc_job_pfc_headroom(&job), 137748);
		job.fabric.pfc.headroom_bytes = 1000;
		ST_EQ(st, mrc_job_pfc_headroom(&job), 1000);
		conf_free(&job);
	}
	/* 60000 + 31498 = 91498 B: a buffer of 91498 B holds it, 91497 B does not */
	ST_EQ_I(st, jt_check(JT_SETS("fabric.trim=false", "fabric.pfc.enabled=true",
			"fabric.buffer=91498B", "fabric.ecn_threshold=50KB"), key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("fabric.trim=false", "fabric.pfc.enabled=true",
			"fabric.buffer=91497B", "fabric.ecn_threshold=50KB"), key, sizeof(key)),
		-EINVAL);
	ST_EQ_STR(st, key, "fabric.pfc.xoff");
	/* PFC off: the thresholds are not looked at */
	ST_EQ_I(st, jt_check(JT_SETS("fabric.buffer=91497B", "fabric.ecn_threshold=50KB"), key,
			sizeof(key)), 0);

	mrc_st_case(st, "alltoallv counts: a matrix row scaled by largest remainders; Zipf 1");
	{
		struct conf_traffic t = { .matrix = "/tmp/mrcgen-job-test-m.txt", .zipf = 0 };
		FILE *f = fopen(t.matrix, "w");
		uint64_t o[9] = { 0 };
		char err[256] = "";

		if (f) {
			fputs("1 1 1\n0 0 0\n# weights\n3, 1, 0\n", f);
			fclose(f);
		}
		ST_EQ_I(st, mrc_job_v_counts(&t, 3, 10, 1, o, err, sizeof(err)), 0);
		/* 10 x 1/3 = 3.33 each: 3 3 3 and the remainder 1 to the first of the ties */
		ST_EQ(st, o[0], 4);
		ST_EQ(st, o[1], 3);
		ST_EQ(st, o[2], 3);
		ST_EQ(st, o[3] + o[4] + o[5], 0); /* zero weights send nothing */
		/* 10 x 3/4 = 7.5, 10 x 1/4 = 2.5: 7 + 2, a remainder of 1 to the first */
		ST_EQ(st, o[6], 8);
		ST_EQ(st, o[7], 2);
		ST_EQ(st, o[8], 0);
		remove(t.matrix);
		ST_EQ_I(st, mrc_job_v_counts(&t, 3, 10, 1, o, err, sizeof(err)), -ENOENT);

		/* Zipf s = 1 over 2 ranks: weights 1/1 and 1/2 in popularity order: 2/3 and 1/3
		 * of 9 = 6 and 3, the 6 to whichever rank the seed made popular, for both rows */
		t = (struct conf_traffic){ .matrix = "", .zipf = 1.0 };
		ST_EQ_I(st, mrc_job_v_counts(&t, 2, 9, 1, o, err, sizeof(err)), 0);
		ST_TRUE(st, (o[0] == 6 && o[1] == 3) || (o[0] == 3 && o[1] == 6));
		ST_EQ(st, o[2], o[0]);
		ST_EQ(st, o[3], o[1]);
	}

	mrc_st_case(st, "J-psim sim.workers: at most fabric.t0 (4 by default) racks; a lookahead "
			"above 0: either T0-T1 delay will do, not both 0; any pattern");
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=4"), key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=5"), key, sizeof(key)), -EINVAL);
	ST_EQ_STR(st, key, "sim.workers");
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=5", "fabric.driver=wire"), key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=2", "fabric.fabric_link_delay=0ns",
			"fabric.switch_delay=0ns"), key, sizeof(key)), -EINVAL);
	ST_EQ_STR(st, key, "fabric.fabric_link_delay");
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=2", "fabric.fabric_link_delay=0ns"), key,
			sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=1", "fabric.fabric_link_delay=0ns",
			"fabric.switch_delay=0ns"), key, sizeof(key)), 0);
	/* every pattern runs in parallel: its QPs are made at its start (mrc_coll_peers) */
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=2", "traffic.algorithm=tree"), key,
			sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=2", "traffic.pattern=alltoall",
			"traffic.algorithm=shift"), key, sizeof(key)), 0);
	ST_EQ_I(st, jt_check(JT_SETS("sim.workers=2", "traffic.pattern=scatter"), key,
			sizeof(key)), 0);
}
