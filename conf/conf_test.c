/* SPDX-License-Identifier: BSD-2-Clause */
/* conf_test: unit tests of conf/conf.c (`mrcgen-test conf`). */
#include "conf/conf.c"
#include "mrc/base/st.h"

/* ---- selftest ------------------------------------------------------------------------- */



/* Expected values below are hand arithmetic (e.g. 64MiB = 64 * 2^20 = 67108864). */
struct unit_case {
	const char *in;
	int err;
	uint64_t want;
};

static void st_units(struct mrc_st *st, int (*fn)(const char *, uint64_t *),
	const struct unit_case *c)
{
	for (; c->in; c++) {
		uint64_t v = 0xdeadbeef;
		int err = fn(c->in, &v);

		mrc_st_check(st, err == c->err, __FILE__, __LINE__, "'%s': err %d, want %d", c->in,
			err, c->err);
		if (!c->err)
			mrc_st_check(st, v == c->want, __FILE__, __LINE__,
				"'%s' = %" PRIu64 ", want %" PRIu64, c->in, v, c->want);
	}
}

static int st_load(const char *text, const char *const *sets, size_t n, struct conf_job *job,
	char *err, size_t errlen)
{
	return conf_load_string(text, strlen(text), "t.yaml", sets, n, job, err, errlen);
}

static char *st_dump(const struct conf_job *job)
{
	return conf_dump_string(job, NULL);
}

MRC_SELFTEST(conf)
{
	static const struct unit_case ints[] = {
		{ "010", 0, 10 }, { "0x1F", 0, 31 }, { "0o17", 0, 15 }, { "+5", 0, 5 },
		{ "-0", 0, 0 }, { "18446744073709551615", 0, UINT64_MAX },
		{ "0xffffffffffffffff", 0, UINT64_MAX }, { "-1", -EDOM, 0 },
		{ "18446744073709551616", -ERANGE, 0 }, { "0x10000000000000000", -ERANGE, 0 },
		{ "0x", -EINVAL, 0 }, { "0o8", -EINVAL, 0 }, { "1_000", -EINVAL, 0 },
		{ "0b101", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "1e3", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 }, { NULL, 0, 0 } };
	static const struct unit_case sizes[] = {
		{ "4KiB", 0, 4096 }, { "64MiB", 0, 67108864 }, { "1GB", 0, 1000000000 },
		{ "1kB", 0, 1000 }, { "1KB", 0, 1000 }, { "1.5KiB", 0, 1536 }, { "1500", 0, 1500 },
		{ "1500B", 0, 1500 }, { "0x100", 0, 256 },
		{ "16777215TiB", 0, 18446742974197923840ull },
		{ "17179869184GiB", -ERANGE, 0 }, { "1.5B", -EDOM, 0 }, { "-1KiB", -EDOM, 0 },
		{ "4 KiB", -EINVAL, 0 }, { "4kib", -EINVAL, 0 }, { "4K", -EINVAL, 0 },
		{ "KiB", -EINVAL, 0 }, { NULL, 0, 0 } };
	static const struct unit_case rates[] = {
		{ "100Gbps", 0, 100000000000ull }, { "400G", 0, 400000000000ull },
		{ "25Mbps", 0, 25000000 }, { "2.5G", 0, 2500000000ull }, { "1000", 0, 1000 },
		{ "1.5bps", -EDOM, 0 }, { "100Gb", -EINVAL, 0 }, { "100GiB", -EINVAL, 0 },
		{ NULL, 0, 0 } };
	static const struct unit_case times[] = {
		{ "250ps", 0, 250 }, { "500ns", 0, 500000 }, { "2us", 0, 2000000 },
		{ "3\xc2\xb5s", 0, 3000000 }, { "1.5ms", 0, 1500000000 },
		{ "10s", 0, 10000000000000ull }, { "0", 0, 0 }, { "0.001ns", 0, 1 },
		{ "18446744073709551615ps", 0, UINT64_MAX },
		{ "18446744s", 0, 18446744000000000000ull },
		{ "5", -EINVAL, 0 }, { "1.5ps", -EDOM, 0 }, { "0.0001ns", -EDOM, 0 },
		{ "18446744073709551616ps", -ERANGE, 0 }, { "18446745s", -ERANGE, 0 },
		{ "-2us", -EDOM, 0 }, { "2 us", -EINVAL, 0 }, { "2m", -EINVAL, 0 },
		{ NULL, 0, 0 } };
	struct conf_fabric fab = { .planes = 8, .t0 = 4, .t1 = 4, .hosts_per_t0 = 4 };
	struct conf_job job, job2;
	struct conf_node n;
	char err[512], buf[64];

	mrc_st_case(st, "C01 YAML 1.2 core integers (010 is ten), overflow, negative");
	st_units(st, conf_parse_uint, ints);

	mrc_st_case(st, "C02 sizes: KiB=1024, KB=kB=1000, exact fractions, overflow");
	st_units(st, conf_parse_size, sizes);

	mrc_st_case(st, "C03 rates in bits per second");
	st_units(st, conf_parse_rate, rates);

	mrc_st_case(st, "C04 times to picoseconds, exact, unit required, overflow");
	st_units(st, conf_parse_time, times);

	mrc_st_case(st, "C05 unit printers: largest exact unit, parse back");
	ST_EQ_STR(st, conf_fmt_time(1500000000, buf, sizeof(buf)), "1500us");
	ST_EQ_STR(st, conf_fmt_time(0, buf, sizeof(buf)), "0ps");
	ST_EQ_STR(st, conf_fmt_size(1536, buf, sizeof(buf)), "1536");
	ST_EQ_STR(st, conf_fmt_size(3ull << 30, buf, sizeof(buf)), "3GiB");
	ST_EQ_STR(st, conf_fmt_size(2000, buf, sizeof(buf)), "2KB");
	ST_EQ_STR(st, conf_fmt_rate(2500000000ull, buf, sizeof(buf)), "2500Mbps");
	ST_EQ_STR(st, conf_fmt_rate(7, buf, sizeof(buf)), "7bps");
	{
		static const uint64_t vals[] = { 0, 1, 999, 1000, 1001, 1024, 327680, UINT64_MAX };

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			uint64_t a = 1, b = 1, c = 1;

			ST_EQ(st, conf_parse_time(conf_fmt_time(vals[i], buf, sizeof(buf)), &a), 0);
			ST_EQ(st, a, vals[i]);
			ST_EQ(st, conf_parse_size(conf_fmt_size(vals[i], buf, sizeof(buf)), &b), 0);
			ST_EQ(st, b, vals[i]);
			ST_EQ(st, conf_parse_rate(conf_fmt_rate(vals[i], buf, sizeof(buf)), &c), 0);
			ST_EQ(st, c, vals[i]);
		}
	}

	mrc_st_case(st, "C06 node names against 8 planes, 4 T0 x 4 hosts = 16 hosts, 4 T1");
	ST_EQ_I(st, conf_node_parse(&fab, "h15", &n), 0);
	ST_EQ(st, n.kind, CONF_NODE_HOST);
	ST_EQ(st, n.host, 15);
	ST_EQ_I(st, conf_node_parse(&fab, "h16", &n), -ENOENT);
	ST_EQ_I(st, conf_node_parse(&fab, "h03", &n), -EINVAL);
	ST_EQ_I(st, conf_node_parse(&fab, "p7.t1.3", &n), 0);
	ST_EQ(st, n.kind, CONF_NODE_T1);
	ST_EQ(st, n.plane, 7);
	ST_EQ(st, n.t1, 3);
	ST_EQ_I(st, conf_node_parse(&fab, "p8.t0.0", &n), -ENOENT);
	ST_EQ_I(st, conf_node_parse(&fab, "h5.p2", &n), 0);
	ST_EQ(st, n.kind, CONF_NODE_PORT);
	ST_EQ(st, n.host, 5);
	ST_EQ(st, n.plane, 2);
	/* h3 hangs off t0 3/4 = 0, h4 off t0 1. */
	ST_EQ_I(st, conf_node_parse(&fab, "h3.p0-p0.t0.0", &n), 0);
	ST_EQ(st, n.kind, CONF_NODE_LINK_HOST_T0);
	ST_EQ(st, n.host, 3);
	ST_EQ(st, n.reverse, 0);
	ST_EQ_I(st, conf_node_parse(&fab, "h4.p0-p0.t0.0", &n), -ENOENT);
	ST_EQ_I(st, conf_node_parse(&fab, "p0.t1.2-p0.t0.1", &n), 0);
	ST_EQ(st, n.kind, CONF_NODE_LINK_T0_T1);
	ST_EQ(st, n.t0, 1);
	ST_EQ(st, n.t1, 2);
	ST_EQ(st, n.reverse, 1);
	ST_EQ_STR(st, conf_node_format(&n, buf, sizeof(buf)), "p0.t1.2-p0.t0.1");
	ST_EQ_I(st, conf_node_parse(&fab, "p0.t0.1-p1.t1.2", &n), -ENOENT);
	ST_EQ_I(st, conf_node_parse(&fab, "p0.t0.0-p0.t0.1", &n), -EINVAL);
	ST_EQ_I(st, conf_node_parse(&fab, "h1-", &n), -EINVAL);
	ST_EQ_I(st, conf_node_parse(&fab, "p0.t2.0", &n), -EINVAL);

	mrc_st_case(st, "C14.1 duplicate key named at line 4 (1-based), nothing loaded");
	ST_EQ_I(st, st_load("traffic:\n  pattern: alltoall\n  size: 1MiB\n  pattern: allreduce\n",
		NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err,
		"t.yaml:4:3: traffic.pattern: duplicate key 'pattern' (first at line 2)");
	memset(&job2, 0, sizeof(job2));
	ST_TRUE(st, memcmp(&job, &job2, sizeof(job)) == 0);

	mrc_st_case(st, "C14.2 aliases expand: two profiles, each ev_count 128");
	{
		static const char c142[] =
			"common: &ev {ev_count: 128, ev_min_active: 32}\n"
			"profiles:\n  - {name: a, ev: *ev}\n  - {name: b, ev: *ev}\n";
		struct ld ld = { .src = "c142", .err = err, .errlen = sizeof(err),
				 .budget = CONF_NODE_LIMIT };
		struct tnode *root = NULL, *prof;

		ST_EQ_I(st, conf_tparse(&ld, "c142", c142, strlen(c142), &root), 0);
		prof = conf_tget(root, "profiles");
		ST_TRUE(st, prof && prof->kind == T_SEQ && prof->n == 2);
		for (size_t i = 0; prof && i < prof->n && i < 2; i++) {
			struct tnode *cnt = conf_tget(conf_tget(prof->items[i], "ev"), "ev_count");

			ST_TRUE(st, cnt && cnt->kind == T_SCALAR);
			ST_EQ_STR(st, cnt ? cnt->s : "", "128");
		}
		conf_tfree(root);
		/* The same in a job: an anchor under an x- key used by two fields. */
		ST_EQ_I(st, st_load("x-n: &n 128\nmrc: {ev: {ev_count: *n}}\n"
			"output: {captures: [{point: h0.p0, snaplen: *n}]}\n", NULL, 0, &job, err,
			sizeof(err)), 0);
		ST_EQ(st, job.mrc.ev.ev_count, 128);
		ST_EQ(st, job.output.n_captures, 1);
		ST_EQ(st, job.output.n_captures ? job.output.captures[0].snaplen : 0, 128);
		conf_free(&job);
	}

	mrc_st_case(st, "C14.3 the nine-level alias bomb is rejected within the node budget");
	{
		char bomb[1024], *p = bomb;

		p += sprintf(p, "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
		for (char c = 'b'; c <= 'i'; c++)
			p += sprintf(p, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n",
				c, c, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1,
				c - 1);
		ST_EQ_I(st, st_load(bomb, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		ST_TRUE(st, strstr(err, "alias expansion limit") != NULL);
		/* the node budget stops the walk at its 100001st node; the 387,420,489 leaves
		 * would take minutes. The file itself is 9 lines of 10 nodes and a few more. */
		ST_EQ(st, conf_work.nodes, CONF_NODE_LIMIT + 1);
		ST_TRUE(st, conf_work.events < 200);
	}

	mrc_st_case(st, "C14.3b a self-referencing alias ends, no hang or overflow");
	ST_EQ_I(st, st_load("a: &a [*a]\n", NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "nesting deeper than 64 levels") != NULL);

	mrc_st_case(st, "fuzz: hostile files fail fast, naming line and column");
	{
		size_t depth = 100000, cap = 16 * depth + 64;
		char *big = malloc(cap), *p = big;

		/* 100000 '[': libyaml's scanner alone would need O(depth^2) */
		p += sprintf(p, "x: ");
		memset(p, '[', depth);
		memset(p + depth, ']', depth);
		p[2 * depth] = '\0';
		ST_EQ_I(st, st_load(big, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		/* the root is line 1, col 1; the 66th collection opens at col 4 + 64 */
		ST_EQ_STR(st, err, "t.yaml:1:68: nesting deeper than 64 levels");
		/* the first pass stops there: stream, document, the map, its key, 65 sequence
		 * starts; no node copied */
		ST_EQ(st, conf_work.events, 69);
		ST_EQ(st, conf_work.nodes, 0);
		/* 50000 keys, the last repeating the 8th: a pairwise check is 1.25e9 strcmp */
		p = big;
		for (size_t i = 0; i < 50000; i++)
			p += sprintf(p, "x-k%zu: 1\n", i);
		sprintf(p, "x-k7: 2\n");
		ST_EQ_I(st, st_load(big, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "t.yaml:50001:1: x-k7: duplicate key 'x-k7' (first at line 8)");
		/* the hash table: about one comparison per key (a probe sequence at a load
		 * under 1/2 averages 1.5); comparing pairs would make 1.25e9 */
		ST_TRUE(st, conf_work.key_cmps >= 1 && conf_work.key_cmps <= 4 * 50001);
		/* 250000 scalars in one flow sequence: over the 200000-node limit */
		p = big + sprintf(big, "x-l: [");
		for (size_t i = 0; i < 250000 / 4; i++)
			p += sprintf(p, "1,2,3,4,");
		sprintf(p, "5]\n");
		ST_EQ_I(st, st_load(big, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		/* root, key, sequence: node 200001 is scalar 199998, at col 7 + 2 * 199997 */
		ST_EQ_STR(st, err, "t.yaml:1:400001: too large: more than 200000 YAML nodes");
		ST_EQ(st, conf_work.events, 2 + 200001); /* stream and document starts, nodes */
		ST_EQ(st, conf_work.nodes, 0);
		free(big);
	}
	ST_EQ_I(st, st_load("traffic:\n  size: \xff\n", NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "t.yaml:2:9: yaml: invalid leading UTF-8 octet '\\xff'");
	ST_EQ_I(st, st_load("", NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err,
		"t.yaml: empty config: no YAML document (write {} to get every default)");
	ST_EQ_I(st, st_load("# only a comment\n", NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "empty config") != NULL);
	ST_EQ_I(st, st_load("# c\n---\n", NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "t.yaml:3:1: expected a mapping at the top, got a scalar");
	ST_EQ_I(st, st_load("{}", NULL, 0, &job, err, sizeof(err)), 0);
	ST_EQ(st, job.seed, 1);
	conf_free(&job);

	mrc_st_case(st, "C15 dump -> load -> dump is identical");
	{
		static const char text[] =
			"seed: 99\nfabric: {planes: 2, t0: 2, t1: 3, hosts_per_t0: 2, "
			"link_rate: 400G, switch_delay: 1.5us}\n"
			"mrc: {ev: {evs: [0x10000, 0x20001], ev_min_active: 1}, cc: {eta: 0.1}}\n"
			"traffic: {pattern: alltoall, sizes: {min: 4KiB, max: 1MiB, factor: 4}}\n"
			"faults:\n  - {at: 1.5ms, target: p1.t1.2-p1.t0.0, action: loss,"
			" rate: 0.01,"
			" direction: forward}\n"
			"  - {at_iteration: 1, target: h3.p1-p1.t0.1, action: flap, period: 10us,"
			" duty: 0.25}\n";
		char *d1, *d2;

		if (!ST_TRUE(st, st_load(text, NULL, 0, &job, err, sizeof(err)) == 0))
			return;
		ST_EQ(st, job.mrc.ev.ev_count, 2);
		ST_EQ(st, job.traffic.algorithm, CONF_ALG_PARALLEL);
		ST_EQ(st, job.faults[0].node.kind, CONF_NODE_LINK_T0_T1);
		ST_EQ(st, job.faults[0].at_ps, 1500000000);
		d1 = st_dump(&job);
		conf_free(&job);
		ST_EQ_I(st, st_load(d1 ? d1 : "", NULL, 0, &job, err, sizeof(err)), 0);
		d2 = st_dump(&job);
		ST_EQ_STR(st, d2, d1);
		ST_EQ_D(st, job.mrc.cc.eta, 0.1, 0);
		ST_EQ(st, job.fabric.switch_delay_ps, 1500000);
		conf_free(&job);
		free(d1);
		free(d2);
	}

	mrc_st_case(st, "traffic.verify: true by default, a YAML boolean or bytes; dumped by name");
	{
		static const struct {
			const char *yaml;
			int want;
		} v[] = { { "traffic: {}\n", CONF_VERIFY_ON },
			{ "traffic: {verify: bytes}\n", CONF_VERIFY_BYTES },
			{ "traffic: {verify: False}\n", CONF_VERIFY_OFF },
			{ "traffic: {verify: TRUE}\n", CONF_VERIFY_ON } };
		static const char *const names[] = { "false", "true", "bytes" };

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			char *d;

			ST_EQ_I(st, st_load(v[i].yaml, NULL, 0, &job, err, sizeof(err)), 0);
			ST_EQ_I(st, (int)job.traffic.verify, v[i].want);
			d = st_dump(&job);
			ST_TRUE(st, d && strstr(d, "verify: ") &&
				!strncmp(strstr(d, "verify: ") + 8, names[v[i].want],
					strlen(names[v[i].want])));
			free(d);
			conf_free(&job);
		}
		ST_EQ_I(st, st_load("traffic:\n  verify: yes\n", NULL, 0, &job, err, sizeof(err)),
			-EINVAL);
		ST_EQ_STR(st, err,
			"t.yaml:2:11: traffic.verify: expected one of false, true, bytes 'yes'");
	}

	mrc_st_case(st, "C05 a capture without snaplen gets 262144, not 0");
	ST_EQ_I(st, st_load("output: {captures: [{point: h0.p0}]}\n", NULL, 0, &job, err,
		sizeof(err)), 0);
	ST_EQ(st, job.output.n_captures, 1);
	ST_EQ(st, job.output.n_captures ? job.output.captures[0].snaplen : 0, 262144);
	conf_free(&job);

	mrc_st_case(st, "capture points: a port or a link, one file per capture");
	ST_EQ_I(st, st_load("output: {captures: [{point: h1}]}\n", NULL, 0, &job, err,
		sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "t.yaml:1:29: output.captures[0].point: a capture point is a host NIC "
		"port (h0.p0) or a link (p0.t1.0-p0.t0.0) 'h1'");
	ST_EQ_I(st, st_load("output: {captures: [{point: p0.t0.1}]}\n", NULL, 0, &job, err,
		sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "a capture point is a host NIC port") != NULL);
	/* the third repeats the first: h0.p0.pcap twice (h0.p0-p0.t0.0 writes its own file) */
	ST_EQ_I(st, st_load("output:\n  captures:\n  - {point: h0.p0, dir: ingress}\n"
		"  - {point: h0.p0-p0.t0.0}\n  - {point: h0.p0, dir: egress}\n", NULL, 0, &job, err,
		sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "t.yaml:5:13: output.captures[2].point: already captured by captures[0] "
		"(both would write h0.p0.pcap) 'h0.p0'");
	ST_EQ_I(st, st_load("output:\n  captures:\n  - {point: h0.p0, dir: ingress}\n"
		"  - {point: p0.t0.0-h0.p0}\n  - {point: h1.p0, dir: egress}\n", NULL, 0, &job, err,
		sizeof(err)), 0);
	ST_EQ(st, job.output.n_captures, 3);
	if (job.output.n_captures == 3) {
		char fb[64];

		ST_EQ_STR(st, conf_capture_file(&job.output.captures[1], fb, sizeof(fb)),
			"p0.t0.0-h0.p0.pcap");
	}
	conf_free(&job);

	mrc_st_case(st, "a flap is at least 1ps down and 1ps up (period x duty, whole ps)");
	{
		static const char *const fl = "faults: [{at: 0, target: h0.p0-p0.t0.0, "
			"action: flap, ";
		/* 1ps x 0.5 = 0.5ps down; 9ps x 0.1 = 0.9ps down; 4ps x (1 - 0.9) = 0.4ps up */
		static const struct { const char *pd, *want; } c[] = {
			{ "period: 1ps, duty: 0.5}]\n",
			  "t.yaml:1:63: faults[0].period: too short for duty 0.5: "
			  "down (period x duty) is 0.5ps, below 1ps '1ps'" },
			{ "period: 9ps, duty: 0.1}]\n",
			  "t.yaml:1:63: faults[0].period: too short for duty 0.1: "
			  "down (period x duty) is 0.9ps, below 1ps '9ps'" },
			{ "period: 4ps, duty: 0.9}]\n",
			  "t.yaml:1:63: faults[0].period: too short for duty 0.9: "
			  "up (period x (1 - duty)) is 0.4ps, below 1ps '4ps'" },
			/* 10ps x 0.1 = 1ps down, 10ps x 0.9 = 9ps down and 1ps up, 2ps x 0.5 */
			{ "period: 10ps, duty: 0.1}]\n", NULL },
			{ "period: 10ps, duty: 0.9}]\n", NULL },
			{ "period: 2ps, duty: 0.5}]\n", NULL },
		};
		char text[256];

		for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			snprintf(text, sizeof(text), "%s%s", fl, c[i].pd);
			ST_EQ_I(st, st_load(text, NULL, 0, &job, err, sizeof(err)),
				c[i].want ? -EINVAL : 0);
			if (c[i].want)
				ST_EQ_STR(st, err, c[i].want);
			else
				conf_free(&job);
		}
	}

	mrc_st_case(st, "C16 --set overrides and names an unknown key");
	{
		const char *sets[] = { "seed=7", "traffic.iterations=3",
			"traffic.sizes=[1KiB, 2KiB]", "faults[0].target=h1.p0", "faults[0].at=0",
			"faults[0].action=down" };
		const char *bad[] = { "nosuch.key=1" };

		if (!ST_TRUE(st, st_load("seed: 5\n", sets, 6, &job, err, sizeof(err)) == 0))
			return;
		ST_EQ(st, job.seed, 7);
		ST_EQ(st, job.traffic.iterations, 3);
		ST_EQ(st, job.traffic.sizes.n_list, 2);
		ST_EQ(st, job.traffic.sizes.list[1], 2048);
		ST_EQ(st, job.n_faults, 1);
		conf_free(&job);
		ST_EQ_I(st, st_load("seed: 5\n", bad, 1, &job, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "--set nosuch.key=1: nosuch: unknown key 'nosuch'");
	}

	mrc_st_case(st, "C18 cc.algorithm follows the transport (dcqcn with roce, nscc with mrc) "
			"unless given; dcqcn needs roce; its knobs, ConnectX's defaults, bounds");
	{
		static const struct { const char *text, *want; } bad[] = {
			{ "mrc: {cc: {algorithm: dcqcn}}\n",
			  "t.yaml:1:23: mrc.cc.algorithm: needs mrc.transport roce (DCQCN's "
			  "CNPs come from RoCE responders) 'dcqcn'" },
			{ "mrc: {transport: roce, cc: {dcqcn: {rpg_min_rate: 200Gbps}}}\n",
			  "t.yaml:1:51: mrc.cc.dcqcn.rpg_min_rate: above fabric.link_rate "
			  "(100Gbps) '200Gbps'" },
			{ "fabric: {link_rate: 400Gbps}\nmrc: {transport: roce, cc: {dcqcn: "
			  "{rpg_max_rate: 40Gbps, rate_to_set_on_first_cnp: 50Gbps}}}\n",
			  "t.yaml:2:85: mrc.cc.dcqcn.rate_to_set_on_first_cnp: above "
			  "rpg_max_rate (40Gbps) '50Gbps'" },
			{ "mrc: {transport: roce, cc: {dcqcn: {rpg_gd: 0}}}\n",
			  "t.yaml:1:45: mrc.cc.dcqcn.rpg_gd: out of range 1..31 '0'" },
			{ "mrc: {transport: roce, cc: {dcqcn: {dce_tcp_g: 1024}}}\n",
			  "t.yaml:1:48: mrc.cc.dcqcn.dce_tcp_g: out of range 0..1023 '1024'" },
			{ "mrc: {transport: roce, cc: {dcqcn: {rpg_time_reset: 500ns}}}\n",
			  "t.yaml:1:53: mrc.cc.dcqcn.rpg_time_reset: out of range 1us..131071us "
			  "'500ns'" },
			{ "mrc: {qp: {ack_req_every: 40000}}\n",
			  "t.yaml:1:27: mrc.qp.ack_req_every: out of range 0..32640 '40000'" },
		};
		const char *roce[] = { "mrc.transport=roce" };
		const struct conf_dcqcn *d = &job.mrc.cc.dcqcn;
		char *dump;

		ST_EQ_I(st, st_load("mrc: {transport: roce}\n", NULL, 0, &job, err, sizeof(err)),
			0);
		ST_EQ(st, job.mrc.cc.algorithm, CONF_CC_DCQCN);
		/* mlxconfig's ConnectX-5/6 defaults, in mrcgen's units */
		ST_EQ(st, d->rpg_time_reset_ps, 300000000);
		ST_EQ(st, d->rpg_byte_reset, 32767);
		ST_EQ(st, d->rpg_threshold, 1);
		ST_EQ(st, d->rpg_ai_rate_bps, 5000000);
		ST_EQ(st, d->rpg_hai_rate_bps, 50000000);
		ST_EQ(st, d->rpg_gd, 11);
		ST_EQ(st, d->rpg_min_dec_fac, 50);
		ST_EQ(st, d->rpg_min_rate_bps, 1000000);
		ST_EQ(st, d->rpg_max_rate_bps + d->rate_to_set_on_first_cnp_bps, 0);
		ST_EQ(st, d->dce_tcp_g, 1019);
		ST_EQ(st, d->dce_tcp_rtt_ps, 1000000);
		ST_EQ(st, d->initial_alpha_value, 1023);
		ST_EQ(st, d->rate_reduce_monitor_period_ps, 4000000);
		ST_TRUE(st, !d->clamp_tgt_rate && d->clamp_tgt_rate_after_time_inc);
		ST_EQ(st, d->min_time_between_cnps_ps, 4000000);
		ST_EQ(st, job.mrc.qp.ack_req_every, 64);
		ST_EQ(st, job.mrc.dscp.cnp, 48);
		dump = st_dump(&job);
		conf_free(&job);
		/* the effective config names the algorithm: it reloads to the same */
		ST_TRUE(st, dump && strstr(dump, "    algorithm: dcqcn\n") != NULL);
		free(dump);
		ST_EQ_I(st, st_load("seed: 1\n", NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.mrc.cc.algorithm, CONF_CC_NSCC);
		conf_free(&job);
		ST_EQ_I(st, st_load("seed: 1\n", roce, 1, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.mrc.cc.algorithm, CONF_CC_DCQCN);
		conf_free(&job);
		/* given, it stays: nscc over RoCE */
		ST_EQ_I(st, st_load("mrc: {cc: {algorithm: nscc}}\n", roce, 1, &job, err,
			sizeof(err)), 0);
		ST_EQ(st, job.mrc.cc.algorithm, CONF_CC_NSCC);
		conf_free(&job);
		ST_EQ_I(st, st_load("mrc: {transport: roce, cc: {dcqcn: {rpg_time_reset: 55us, "
			"rpg_byte_reset: 10MB, rpg_threshold: 5, dce_tcp_g: 1020}}}\n", NULL, 0,
			&job, err, sizeof(err)), 0);
		ST_EQ(st, d->rpg_time_reset_ps, 55000000);
		ST_EQ(st, d->rpg_byte_reset, 10000000);
		ST_EQ(st, d->rpg_threshold, 5);
		ST_EQ(st, d->dce_tcp_g, 1020);
		conf_free(&job);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			const char *want = bad[i].want ? bad[i].want : "";

			ST_EQ_I(st, st_load(bad[i].text, NULL, 0, &job, err, sizeof(err)),
				-EINVAL);
			ST_EQ_STR(st, err, want);
		}
	}

	mrc_st_case(st,
		"C17 limits hold after defaults: an absent traffic section is checked as {}");
	{
		/* 8 planes x 256 T0 x 32 hosts = 8192 ranks; the default ring all-reduce is
		 * 2 x 8192 x 8191 = 134,201,344 steps, over the 2^26 = 67,108,864 limit. */
		static const char *fab8k = "fabric: {planes: 8, t0: 256, t1: 16, hosts_per_t0: 32, "
					 "addressing: {usid_plane_bits: 0}}\n";
		static const char *want =
			"t.yaml:1:1: traffic.pattern: a ring all-reduce over "
			"8192 ranks is 134201344 steps (2 x ranks x (ranks - 1)), "
			"more than 67108864: lower traffic.ranks (at most 5793) or "
			"use algorithm tree 'allreduce'";
		char text[256], *dump;

		ST_EQ_I(st, st_load(fab8k, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, want);
		snprintf(text, sizeof(text), "%straffic: {}\n", fab8k);
		ST_EQ_I(st, st_load(text, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		/* 5792 ranks (2 x 5792 x 5791 = 67,082,944 steps) load, and so does their dump */
		if (ST_TRUE(st, st_load("fabric: {planes: 1, t0: 181, t1: 1, hosts_per_t0: 32, "
				    "addressing: {usid_plane_bits: 0}}\n",
				    NULL, 0, &job, err, sizeof(err)) == 0)) {
			dump = st_dump(&job);
			conf_free(&job);
			if (ST_TRUE(st, dump != NULL)) {
				ST_EQ_I(st, st_load(dump, NULL, 0, &job, err, sizeof(err)), 0);
				conf_free(&job);
			}
			free(dump);
		}
	}

	mrc_st_case(st, "addressing.plan sequential: 65535 nodes a plane, usid_plane_bits 0 only");
	{
		/* 512-port switches: 128 T0 x 256 hosts = 32,768 hosts, 256 T1: 33,152 nodes */
		static const char *big = "fabric: {planes: 8, t0: 128, t1: 256, hosts_per_t0: 256, "
					 "addressing: {plan: sequential}}\ntraffic: {pattern: "
					 "sendrecv}\n";
		/* 65535 - 128 - 256 = 65151 hosts at most */
		static const char *over = "fabric: {t0: 128, t1: 256, hosts_per_t0: 509, "
					  "addressing: {plan: sequential}}\ntraffic: {pattern: "
					  "sendrecv}\n";
		static const char *bits = "fabric: {addressing: {plan: sequential, "
					  "usid_plane_bits: 2}}\n";

		if (ST_TRUE(st, st_load(big, NULL, 0, &job, err, sizeof(err)) == 0)) {
			ST_EQ(st, job.fabric.addressing.usid_plane_bits, 0);
			conf_free(&job);
		}
		ST_EQ_I(st, st_load(over, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "t.yaml:1:42: fabric.hosts_per_t0: t0 * hosts_per_t0 exceeds "
			"65151 hosts (plan sequential: hosts + t0 + t1 at most 65535 a plane) "
			"'65152'");
		ST_EQ_I(st, st_load(bits, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "t.yaml:1:58: fabric.addressing.usid_plane_bits: plan "
			"'sequential' numbers each plane under its own block: only 0 applies '2'");
	}

	mrc_st_case(st, "C18 fabric.ecmp and fabric.routing: defaults, values, errors at file:line");
	{
		static const struct { const char *text, *want; } bad[] = {
			{ "fabric:\n  ecmp: {hash_fields: [src, port]}\n",
			  "t.yaml:2:29: fabric.ecmp.hash_fields[1]: expected one of src, dst, "
			  "next_header, sport, dport, flow_label 'port'" },
			{ "fabric:\n  ecmp: {hash_fields: [dst, sport, dst]}\n",
			  "t.yaml:2:36: fabric.ecmp.hash_fields[2]: listed twice (hash_fields[0]) "
			  "'dst'" },
			{ "fabric:\n  ecmp: {hash_fields: []}\n",
			  "t.yaml:2:23: fabric.ecmp.hash_fields: empty: a switch hashes at least "
			  "one field (src, dst, next_header, sport, dport, flow_label) '[]'" },
			{ "fabric:\n  ecmp:\n    seeds: [{switch: p0.t1.4, seed: 1}]\n",
			  "t.yaml:3:22: fabric.ecmp.seeds[0].switch: not in the topology "
			  "'p0.t1.4'" },
			{ "fabric:\n  ecmp:\n    seeds: [{switch: h0.p0, seed: 1}]\n",
			  "t.yaml:3:22: fabric.ecmp.seeds[0].switch: not a switch: name a T0 or "
			  "T1 (p0.t0.1, p0.t1.2) 'h0.p0'" },
			{ "fabric:\n  ecmp:\n    seeds:\n      - {switch: p1.t0.0, seed: 1}\n"
			  "      - {switch: p1.t0.0, seed: 2}\n",
			  "t.yaml:5:18: fabric.ecmp.seeds[1].switch: seed given twice (seeds[0]) "
			  "'p1.t0.0'" },
			{ "fabric:\n  ecmp: {seed_mode: random}\n",
			  "t.yaml:2:21: fabric.ecmp.seed_mode: expected one of per_switch, same "
			  "'random'" },
			{ "fabric:\n  routing: {bfd_multiplier: 256}\n",
			  "t.yaml:2:29: fabric.routing.bfd_multiplier: out of range 1..255 '256'" },
			{ "fabric:\n  routing: {bfd_interval: 1ns}\n",
			  "t.yaml:2:27: fabric.routing.bfd_interval: out of range 1us..60s "
			  "'1ns'" },
		};

		ST_EQ_I(st, st_load("{}\n", NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.fabric.ecmp.n_hash_fields, 5); /* the 5-tuple */
		ST_EQ(st, job.fabric.ecmp.hash_fields[4], CONF_HF_DPORT);
		ST_EQ(st, job.fabric.ecmp.seed, 1);
		ST_EQ(st, job.fabric.ecmp.seed_mode, CONF_SEED_PER_SWITCH);
		ST_EQ(st, job.fabric.routing.bfd_interval_ps, 300000000000ull); /* 300 ms */
		ST_EQ(st, job.fabric.routing.bfd_multiplier, 3);
		ST_EQ(st, job.fabric.routing.convergence_ps, 100000000000ull); /* 100 ms */
		conf_free(&job);
		ST_EQ_I(st, st_load("fabric:\n  ecmp:\n    hash_fields: [dst, flow_label]\n"
				    "    seed_mode: same\n    seeds: [{switch: p7.t1.3, seed: 9}]\n",
				    NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.fabric.ecmp.n_hash_fields, 2);
		ST_EQ(st, job.fabric.ecmp.hash_fields[1], CONF_HF_FLOW_LABEL);
		ST_EQ(st, job.fabric.ecmp.seed_mode, CONF_SEED_SAME);
		ST_EQ(st, job.fabric.ecmp.n_seeds, 1);
		ST_EQ(st, job.fabric.ecmp.seeds[0].node.kind, CONF_NODE_T1);
		ST_EQ(st, job.fabric.ecmp.seeds[0].node.plane, 7);
		ST_EQ(st, job.fabric.ecmp.seeds[0].node.t1, 3);
		ST_EQ(st, job.fabric.ecmp.seeds[0].seed, 9);
		conf_free(&job);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			const char *want = bad[i].want;

			ST_EQ_I(st, st_load(bad[i].text, NULL, 0, &job, err, sizeof(err)), -EINVAL);
			if (want)
				ST_EQ_STR(st, err, want);
		}
	}

	mrc_st_case(st, "C19 transport roce: trim off unless told, told on refused at its line; "
			"QP timeout 22, retries 7 + 0 unless given");
	{
		static const char *const roce[] = { "mrc.transport=roce" };
		char *dump;

		ST_EQ_I(st, st_load("{}\n", roce, 1, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.fabric.trim, false);
		/* NCCL_IB_TIMEOUT 20: 4.096 us x 2^20 = 1.024 us x 2^22 */
		ST_EQ(st, job.mrc.qp.timeout, 22);
		ST_EQ(st, job.mrc.qp.retry_linear, 7);
		ST_EQ(st, job.mrc.qp.retry_exp, 0);
		dump = st_dump(&job);
		conf_free(&job);
		/* the dump says trim: false and loads back as it is */
		ST_TRUE(st, dump && strstr(dump, "  trim: false\n") != NULL);
		ST_EQ_I(st, st_load(dump ? dump : "", NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.fabric.trim, false);
		ST_EQ(st, job.mrc.transport, CONF_TRANSPORT_ROCE);
		conf_free(&job);
		free(dump);
		ST_EQ_I(st, st_load("seed: 2\nfabric:\n  trim: true\n", roce, 1, &job, err,
				    sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "t.yaml:3:9: fabric.trim: a trimming fabric with mrc.transport "
			"roce: a RoCE NIC takes a trimmed packet for a corrupted one, a loss; leave "
			"trim out (off under roce) or false 'true'");
		ST_EQ_I(st, st_load("fabric: {trim: false}\nmrc: {transport: roce, qp: {timeout: 9,"
				    " retry_exp: 3}}\n", NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.mrc.qp.timeout, 9);
		ST_EQ(st, job.mrc.qp.retry_linear, 7);
		ST_EQ(st, job.mrc.qp.retry_exp, 3);
		conf_free(&job);
		/* MRC keeps its defaults */
		ST_EQ_I(st, st_load("{}\n", NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.fabric.trim, true);
		ST_EQ(st, job.mrc.qp.timeout, 8);
		ST_EQ(st, job.mrc.qp.retry_exp, 25);
		conf_free(&job);
	}
}

/* fabric.pfc and the ECN ramp (docs/pfc.md): defaults, their dump, and bad input. */
MRC_SELFTEST(conf_pfc)
{
	struct conf_job job;
	char err[512], *d1 = NULL, *d2 = NULL;
	static const struct {
		const char *text, *set, *want;
	} bad[] = {
		/* kmin defaults to ecn_threshold (200KiB) and kmax too: blame what was written */
		{ "fabric: {ecn_kmin: 300KiB}\n", NULL,
		  "t.yaml:1:20: fabric.ecn_kmin: above ecn_kmax (200KiB, from ecn_threshold) "
		  "'300KiB'" },
		{ "fabric: {ecn_kmax: 100KiB}\n", NULL,
		  "t.yaml:1:20: fabric.ecn_kmax: below ecn_kmin (200KiB, from ecn_threshold) "
		  "'100KiB'" },
		{ "fabric: {ecn_kmin: 5KB, ecn_kmax: 2KB}\n", NULL,
		  "t.yaml:1:20: fabric.ecn_kmin: above ecn_kmax (2KB) '5KB'" },
		{ "fabric: {ecn_kmax: 2MiB}\n", NULL,
		  "t.yaml:1:20: fabric.ecn_kmax: above the buffer (1MiB) '2MiB'" },
		{ "fabric: {ecn_pmax: 1.5}\n", NULL, NULL },
		/* xon above xoff, whichever was written */
		{ "fabric: {pfc: {xon: 70KB}}\n", NULL,
		  "t.yaml:1:21: fabric.pfc.xon: above xoff (60KB) '70KB'" },
		{ "fabric: {pfc: {xoff: 40KB}}\n", NULL,
		  "t.yaml:1:22: fabric.pfc.xoff: below xon (48KB) '40KB'" },
		/* PFC with trimming on the data class: trim written, or its default */
		{ "fabric: {trim: true, pfc: {enabled: true}}\n", NULL,
		  "t.yaml:1:16: fabric.trim: trimming cuts the data packets that PFC "
		  "(fabric.pfc.enabled) keeps whole: set one of them false 'true'" },
		{ "fabric: {pfc: {enabled: true}}\n", NULL,
		  "t.yaml:1:25: fabric.pfc.enabled: PFC keeps the data packets whole that "
		  "trimming cuts (fabric.trim, default true but under mrc.transport roce): set "
		  "fabric.trim: false 'true'" },
		{ "seed: 1\n", "fabric.pfc.enabled=true",
		  "--set fabric.pfc.enabled=true: fabric.pfc.enabled: PFC keeps the data packets "
		  "whole that trimming cuts (fabric.trim, default true but under mrc.transport "
		  "roce): set fabric.trim: false 'true'" },
		/* thresholds beyond the buffer */
		{ "fabric: {trim: false, buffer: 50KB, ecn_threshold: 10KB, "
		  "pfc: {enabled: true}}\n",
		  NULL, "t.yaml:1:63: fabric.pfc.xoff: above the buffer (50KB) '60KB'" },
		{ "fabric:\n  trim: false\n  buffer: 100KB\n  ecn_threshold: 10KB\n"
		  "  pfc: {enabled: true, headroom: 50KB}\n",
		  NULL, "t.yaml:5:34: fabric.pfc.headroom: with xoff (60KB) above the buffer "
		  "(100KB) '50KB'" },
		{ "fabric: {pfc: {control: lossles}}\n", NULL, NULL },
	};

	mrc_st_case(st, "defaults: PFC off, xoff 60000 B, xon 48000 B, headroom by the rule, "
			"control lossy; ECN kmin = kmax = ecn_threshold, pmax 0.01");
	if (ST_TRUE(st, st_load("{}", NULL, 0, &job, err, sizeof(err)) == 0)) {
		ST_TRUE(st, !job.fabric.pfc.enabled);
		ST_EQ(st, job.fabric.pfc.xoff_bytes, 60000);
		ST_EQ(st, job.fabric.pfc.xon_bytes, 48000);
		ST_EQ(st, job.fabric.pfc.headroom_bytes, 0);
		ST_EQ(st, job.fabric.pfc.control, CONF_PFC_LOSSY);
		ST_EQ(st, job.fabric.ecn_kmin_bytes, 204800);
		ST_EQ(st, job.fabric.ecn_kmax_bytes, 204800);
		ST_EQ_D(st, job.fabric.ecn_pmax, 0.01, 0);
		conf_free(&job);
	}

	mrc_st_case(st, "a ramp from ecn_kmin 5KB to ecn_threshold; PFC on, control lossless: "
			"dump -> load -> dump identical, the defaulted kmax not written");
	if (ST_TRUE(st, st_load("fabric: {ecn_kmin: 5KB, ecn_threshold: 100KiB, trim: false, "
				"pfc: {enabled: true, xoff: 30KB, xon: 30KB, control: lossless}}\n",
				NULL, 0, &job, err, sizeof(err)) == 0)) {
		ST_EQ(st, job.fabric.ecn_kmin_bytes, 5000);
		ST_EQ(st, job.fabric.ecn_kmax_bytes, 102400);
		ST_TRUE(st, job.fabric.pfc.enabled);
		ST_EQ(st, job.fabric.pfc.control, CONF_PFC_LOSSLESS);
		d1 = st_dump(&job);
		conf_free(&job);
		ST_TRUE(st, d1 && strstr(d1, "ecn_kmin: 5KB\n") && !strstr(d1, "ecn_kmax"));
		ST_EQ_I(st, st_load(d1 ? d1 : "", NULL, 0, &job, err, sizeof(err)), 0);
		d2 = st_dump(&job);
		ST_EQ_STR(st, d2, d1);
		ST_EQ(st, job.fabric.ecn_kmax_bytes, 102400);
		conf_free(&job);
		free(d1);
		free(d2);
	}

	mrc_st_case(st, "bad input: ECN ramp out of order or past the buffer, xon above xoff, PFC "
			"with trimming, thresholds past the buffer: file:line:col, key, value");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *sets[1] = { bad[i].set };

		ST_EQ_I(st, st_load(bad[i].text, sets, bad[i].set ? 1 : 0, &job, err, sizeof(err)),
			-EINVAL);
		if (bad[i].want)
			ST_EQ_STR(st, err, bad[i].want);
	}

	mrc_st_case(st, "C20 sweep: defaults (cover 8, 16 probes, 10000/s, 16 in flight, 2 ms, "
			"60 s, min_score 10); a value out of range names file:line, key and value");
	ST_EQ_I(st, st_load("{}\n", NULL, 0, &job, err, sizeof(err)), 0);
	ST_EQ(st, job.sweep.cover, 8);
	ST_EQ(st, job.sweep.probes, 16);
	ST_EQ(st, job.sweep.rate, 10000);
	ST_EQ(st, job.sweep.outstanding, 16);
	ST_EQ(st, job.sweep.timeout_ps, 2000000000ull);
	ST_EQ(st, job.sweep.max_time_ps, 60000000000000ull);
	ST_EQ_D(st, job.sweep.min_score, 10, 0);
	conf_free(&job);
	ST_EQ_I(st, st_load("sweep:\n  cover: 0\n  outstanding: 65\n", NULL, 0, &job, err,
		sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "t.yaml:3:16: sweep.outstanding: out of range 1..64 '65'");
	ST_EQ_I(st, st_load("sweep: {timeout: 0}\n", NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "t.yaml:1:18: sweep.timeout: out of range 1us..10s '0'");
	ST_EQ_I(st, st_load("sweep: {rate: 0}\n", NULL, 0, &job, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "t.yaml:1:15: sweep.rate: out of range 1..10000000 '0'");

	mrc_st_case(st, "perftest: write_bw defaults (depth 128, 1000 messages); traffic.hosts "
			"ranges and lists; unknown, repeated, odd or doubly given: file:line");
	{
		uint32_t h[8];
		char bd[48];

		ST_EQ_I(st, st_load("traffic: {pattern: write_bw, hosts: \"h0-h2, h8,h12-h13\"}\n",
			NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, job.traffic.depth, 128);
		ST_EQ(st, job.traffic.messages, 1000);
		ST_EQ(st, job.traffic.algorithm, CONF_ALG_DIRECT);
		ST_EQ(st, conf_hosts_expand(&job.fabric, job.traffic.hosts, h, 8, NULL), 6);
		ST_EQ(st, h[0] + h[1] + h[2], 3);
		ST_EQ(st, h[3], 8);
		ST_EQ(st, h[5], 13);
		ST_EQ(st, conf_hosts_expand(&job.fabric, "h3-h1", h, 8, bd), -EINVAL);
		ST_EQ_STR(st, bd, "h3-h1");
		ST_EQ(st, conf_hosts_expand(&job.fabric, "h1,h0-h3", h, 8, bd), -EEXIST);
		ST_EQ_STR(st, bd, "h0-h3");
		ST_EQ(st, conf_hosts_expand(&job.fabric, "h1;h2", h, 8, bd), -EINVAL);
		conf_free(&job);
	}
	static const struct {
		const char *text, *want;
	} badh[] = {
		{ "traffic:\n  hosts: \"h0,h16\"\n",
		  "t.yaml:2:10: traffic.hosts: not a host of the fabric, or not a range hA-hB with "
		  "A <= B 'h16'" },
		{ "traffic:\n  hosts: \"h0-h3,h2\"\n",
		  "t.yaml:2:10: traffic.hosts: a host named twice 'h2'" },
		{ "traffic:\n  hosts: h0-h3\n  ranks: 4\n",
		  "t.yaml:3:10: traffic.ranks: given with traffic.hosts (which numbers the ranks) "
		  "'4'" },
		{ "traffic:\n  pattern: write_lat\n  algorithm: direct\n  hosts: h0-h2\n",
		  "t.yaml:4:10: traffic.hosts: write_lat pairs the ranks: an even number of them "
		  "is needed '3'" },
		{ "traffic:\n  hosts: h0-h3\n  pattern: incast\n  root: h5\n",
		  "t.yaml:4:9: traffic.root: not a host among the 4 ranks 'h5'" },
	};
	for (size_t i = 0; i < sizeof(badh) / sizeof(badh[0]); i++) {
		ST_EQ_I(st, st_load(badh[i].text, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		if (badh[i].want)
			ST_EQ_STR(st, err, badh[i].want);
	}

	mrc_st_case(st, "jobs: traffic as a list loads every job from the defaults, names "
			"them job{i}, dumps as a list that loads to the same; one mapping stays "
			"one job");
	{
		char *j1, *j2;

		ST_EQ_I(st, st_load("traffic:\n  - {name: dp, hosts: \"h0-h7\", pattern: "
			"reducescatter}\n  - {hosts: \"h8-h15\", pattern: alltoall, start: 100us, "
			"gap: 50us}\n  - {hosts: \"h0-h3\", share: true, after: dp}\n", NULL, 0,
			&job, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "t.yaml:4:13: traffic[2].hosts: h0 is job dp's too: jobs may "
			"share hosts only with share: true on both 'h0-h3'");
		ST_EQ_I(st, st_load("traffic:\n  - {name: dp, hosts: \"h0-h7\", pattern: "
			"reducescatter, share: true}\n  - {hosts: \"h8-h15\", pattern: alltoall, "
			"start: 100us, gap: 50us}\n  - {hosts: \"h0-h3\", share: true, "
			"after: dp}\n",
			NULL, 0, &job, err, sizeof(err)), 0);
		ST_EQ(st, conf_jobs(&job), 3);
		ST_EQ(st, job.traffic_list, true);
		ST_EQ_STR(st, job.traffic.name, "dp");
		ST_EQ(st, job.traffic.pattern, CONF_PAT_REDUCESCATTER);
		ST_EQ_STR(st, conf_job_traffic(&job, 1)->name, "job1");
		ST_EQ(st, conf_job_traffic(&job, 1)->start_ps, 100000000ull);
		ST_EQ(st, conf_job_traffic(&job, 1)->gap_ps, 50000000ull);
		ST_EQ(st, conf_job_traffic(&job, 1)->algorithm, CONF_ALG_PARALLEL);
		ST_EQ(st, conf_job_traffic(&job, 2)->iterations, 10); /* the default */
		ST_EQ_STR(st, conf_job_traffic(&job, 2)->after, "dp");
		j1 = st_dump(&job);
		conf_free(&job);
		ST_EQ_I(st, st_load(j1 ? j1 : "", NULL, 0, &job, err, sizeof(err)), 0);
		j2 = st_dump(&job);
		ST_EQ_STR(st, j2 ? j2 : "", j1 ? j1 : "-");
		free(j1);
		free(j2);
		conf_free(&job);
		ST_EQ_I(st, st_load("traffic: {pattern: alltoall}\n", NULL, 0, &job, err,
			sizeof(err)), 0);
		ST_EQ(st, conf_jobs(&job), 1);
		ST_EQ(st, job.traffic_list, false);
		conf_free(&job);
		ST_EQ_I(st, st_load("traffic:\n  - {hosts: \"h0-h3\"}\n  - {hosts: \"h4-h7\"}\n",
			(const char *const[]){ "traffic[1].sizes=[4KiB]" }, 1, &job, err,
			sizeof(err)), 0);
		ST_EQ(st, conf_job_traffic(&job, 1)->sizes.list[0], 4096);
		conf_free(&job);
	}
	static const struct {
		const char *text, *want;
	} badj[] = {
		{ "traffic:\n  - {name: a, hosts: \"h0-h3\"}\n  - {name: a, hosts: \"h4-h7\"}\n",
		  "t.yaml:3:12: traffic[1].name: two jobs named so (traffic[0] too) 'a'" },
		{ "traffic:\n  - {hosts: \"h0-h3\", after: b}\n  - {hosts: \"h4-h7\"}\n",
		  "t.yaml:2:29: traffic[0].after: no job is named so 'b'" },
		{ "traffic:\n  - {name: a, hosts: \"h0-h3\"}\n  - {name: bg, pattern: background, "
		  "hosts: \"h4-h7\", rate: 1Gbps}\n  - {name: c, hosts: \"h0-h3\", share: true, "
		  "after: bg}\n",
		  "t.yaml:4:51: traffic[2].after: a background job ends only when every other job "
		  "has: nothing can wait for it 'bg'" },
		{ "traffic:\n  - {name: a, hosts: \"h0-h3\", after: c}\n  - {name: b, hosts: "
		  "\"h4-h7\", after: a}\n  - {name: c, hosts: \"h8-h9\", after: b}\n",
		  "t.yaml:2:38: traffic[0].after: a cycle of jobs each waiting for the next to end "
		  "'c'" },
		{ "traffic:\n  - {hosts: \"h0-h3\", share: true}\n  - {hosts: \"h3-h7\"}\n",
		  "t.yaml:3:13: traffic[1].hosts: h3 is job job0's too: jobs may share hosts only "
		  "with share: true on both 'h3-h7'" },
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - {ranks: 4}\n",
		  "t.yaml:3:5: traffic[1].hosts: h0 is job job0's too: jobs may share hosts only "
		  "with share: true on both 'h0-h3'" },
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - {hosts: \"h4-h17\"}\n",
		  "t.yaml:3:13: traffic[1].hosts: not a host of the fabric, or not a range hA-hB "
		  "with A <= B 'h4-h17'" },
		{ "traffic:\n  - {name: \"a b\", hosts: \"h0-h3\"}\n",
		  "t.yaml:2:12: traffic[0].name: a job name is 1..31 letters, digits, '_' or '-' "
		  "'a b'" },
		{ "traffic: []\n", "t.yaml:1:10: traffic: an empty list of jobs" },
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - 3\n",
		  "t.yaml:3:5: traffic[1]: expected a mapping, got a scalar" },
		{ "traffic:\n  after: job0\n",
		  "t.yaml:2:10: traffic.after: one job: no other to wait for 'job0'" },
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - {hosts: \"h4-h6\", pattern: write_bw}\n",
		  "t.yaml:3:13: traffic[1].hosts: write_bw pairs the ranks: an even number of them "
		  "is needed '3'" },
	};
	for (size_t i = 0; i < sizeof(badj) / sizeof(badj[0]); i++) {
		ST_EQ_I(st, st_load(badj[i].text, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		if (badj[i].want)
			ST_EQ_STR(st, err, badj[i].want);
	}

	mrc_st_case(st, "jobs: phases (collectives with their sizes, gaps) and background (rate, "
			"mode, one size, 64 KiB by default) load; their mistakes at file:line");
	ST_EQ_I(st, st_load("traffic:\n  - {hosts: \"h0-h7\", phases: [{pattern: reducescatter, "
		"size: 1MiB}, {gap: 50us}, {pattern: allgather, size: 1MiB}]}\n  - {pattern: "
		"background, rate: 20Gbps, mode: permutation, share: true}\n", NULL, 0, &job, err,
		sizeof(err)), 0);
	ST_EQ(st, job.traffic.n_phases, 3);
	ST_EQ(st, job.traffic.phases[0].pattern, CONF_PAT_REDUCESCATTER);
	ST_EQ(st, job.traffic.phases[0].algorithm, CONF_ALG_RING);
	ST_EQ(st, job.traffic.phases[1].has_gap, true);
	ST_EQ(st, job.traffic.phases[1].gap_ps, 50000000ull);
	ST_EQ(st, job.traffic.phases[2].size, 1048576);
	ST_EQ(st, conf_job_traffic(&job, 1)->rate_bps, 20000000000ull);
	ST_EQ(st, conf_job_traffic(&job, 1)->mode, CONF_BG_PERMUTATION);
	ST_EQ(st, conf_job_traffic(&job, 1)->sizes.list[0], 65536);
	{
		char *j1 = st_dump(&job), *j2;

		conf_free(&job);
		ST_EQ_I(st, st_load(j1 ? j1 : "", NULL, 0, &job, err, sizeof(err)), 0);
		j2 = st_dump(&job);
		ST_EQ_STR(st, j2 ? j2 : "", j1 ? j1 : "-");
		free(j1);
		free(j2);
	}
	conf_free(&job);
	static const struct {
		const char *text, *want;
	} badp[] = {
		{ "traffic:\n  phases:\n    - {pattern: allreduce, size: 1MiB, gap: 5us}\n",
		  "t.yaml:3:7: traffic.phases[0]: a phase is a collective (pattern, size) or a "
		  "compute gap (gap): both given" },
		{ "traffic:\n  phases:\n    - {gap: 5us, size: 1MiB}\n",
		  "t.yaml:3:24: traffic.phases[0].size: a gap phase has its gap alone '1MiB'" },
		{ "traffic:\n  phases:\n    - {pattern: allreduce}\n",
		  "t.yaml:3:7: traffic.phases[0].size: a collective phase needs its size" },
		{ "traffic:\n  phases:\n    - {pattern: write_bw, size: 4KiB}\n",
		  "t.yaml:3:17: traffic.phases[0].pattern: a phase is a collective, not "
		  "perftest's 'write_bw'" },
		{ "traffic:\n  phases:\n    - {pattern: alltoall, size: 4KiB, algorithm: ring}\n",
		  "t.yaml:3:50: traffic.phases[0].algorithm: does not apply to pattern alltoall "
		  "'ring'" },
		{ "traffic:\n  phases:\n    - {pattern: alltoall, size: 4KiB, transpose: true}\n",
		  "t.yaml:3:50: traffic.phases[0].transpose: only an alltoallv phase is "
		  "transposed 'true'" },
		{ "traffic:\n  phases:\n    - {gap: 5us}\n",
		  "t.yaml:3:5: traffic.phases: gaps alone: at least one phase is a collective" },
		{ "traffic:\n  dtype: float64\n  phases:\n    - {pattern: alltoall, size: 4100}\n",
		  "t.yaml:4:33: traffic.phases[0].size: not a multiple of the 8-byte float64 "
		  "'4100B'" },
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - {pattern: background, hosts: \"h4-h7\"}\n",
		  "t.yaml:3:5: traffic[1].rate: a background job needs its rate per host (bits a "
		  "second, e.g. 20Gbps)" },
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - {pattern: background, hosts: \"h4-h7\", "
		  "rate: 1Gbps, sizes: [1KiB, 2KiB]}\n",
		  "t.yaml:3:63: traffic[1].sizes: a background job sends one message size "
		  "'2 sizes'" },
		{ "traffic:\n  - {hosts: \"h0-h3\", rate: 1Gbps}\n",
		  "t.yaml:2:28: traffic[0].rate: only pattern background takes a rate '1Gbps'" },
		/* the defaults' NIC: 8 planes x 100 Gb/s; 800 Gb/s itself is taken */
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - {pattern: background, hosts: \"h4-h7\", "
		  "rate: 801Gbps}\n",
		  "t.yaml:3:49: traffic[1].rate: above what a host's NIC sends, fabric.planes x "
		  "link_rate = 800Gbps: the send queues would refuse all but that, at the cost of "
		  "an event a message '801Gbps'" },
		{ "traffic:\n  - {pattern: background, hosts: \"h4-h7\", rate: 1Gbps}\n  - {hosts: "
		  "\"h0-h3\"}\n", "t.yaml:2:15: traffic[0].pattern: background loads the fabric "
		  "under other jobs: list it after the first job 'background'" },
		{ "traffic:\n  - {hosts: \"h0-h3\"}\n  - {pattern: background, rate: 1Gbps}\n",
		  "t.yaml:3:5: traffic[1].hosts: h0 is job job0's too: jobs may share hosts only "
		  "with share: true on both 'h0-h15'" },
	};
	for (size_t i = 0; i < sizeof(badp) / sizeof(badp[0]); i++) {
		ST_EQ_I(st, st_load(badp[i].text, NULL, 0, &job, err, sizeof(err)), -EINVAL);
		if (badp[i].want)
			ST_EQ_STR(st, err, badp[i].want);
	}
}
