/* SPDX-License-Identifier: BSD-2-Clause */
/* mrcgen: MRC fabric testbed and traffic generator — the subcommand table and main(). */
#include "conf/conf.h"
#include "mrc/sim/bench.h"
#include "mrc/wire/blast.h"
#include "mrc/base/hist.h"
#include "mrc/sim/sim.h"
#include "mrc/job/job.h"
#include "mrc/job/stop.h"
#include "mrc/out/compare.h"
#include "mrc/out/paths.h"
#include "mrc/out/report.h"
#include "mrc/out/sweeprep.h"
#include "mrc/sim/ranks.h"
#include "mrc/sim/run.h"
#include "mrc/engine/wire.h"
#include "mrc/wire/wirerun.h"
#include "mrc/wire/wping.h"
#include "mrc/wire/wsweep.h"
#include "pcap/pcapw.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MRCGEN_VERSION
#define MRCGEN_VERSION "0.1.0"
#endif

/* Exit codes: documented in docs/cli.md and in `mrcgen help`. */
enum {
	EXIT_OK = 0,
	EXIT_JOB_FAILED = 1,
	EXIT_USAGE = 2,
};

struct cmd {
	const char *name;
	const char *args;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);
static int cmd_bench(int argc, char **argv);
static int cmd_check(int argc, char **argv);
static int cmd_paths(int argc, char **argv);
static int cmd_compare(int argc, char **argv);
static int cmd_run(int argc, char **argv);
static int cmd_hist(int argc, char **argv);
static int cmd_sample(int argc, char **argv);
static int cmd_wire_ping(int argc, char **argv);
static int cmd_blast(int argc, char **argv);
static int cmd_sweep(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "run",
		"CONF [--set K=V]... [-o DIR] [--host H] [--rendezvous A] [--bootstrap B] [--netns NS]",
		"run the job: collective traffic over MRC, faults, pcaps, histograms, report",
		cmd_run },
	{ "check", "CONF [--set K=V]... [-o DIR]",
		"validate CONF, print the effective config as YAML", cmd_check },
	{ "paths", "CONF [--from H] [--to H] [--ev N] [--json]",
		"print the EV -> path table and the switches' static tables", cmd_paths },
	{ "sweep", "CONF [--set K=V]... [-o DIR] [--from SWEEP.json] [--host H] [--rendezvous A]",
		"probe every path (EV) between hosts, name the faulty links and switches",
		cmd_sweep },
	{ "compare", "A B [C...] [--json] [--all] [--max-regress P%] [-o DIR]",
		"reports side by side: config diff, CCT and bandwidth ratios, counters, faults",
		cmd_compare },
	{ "wire-ping",
		"CONF --host H --to H [--ev N] [--ports IF,..] [--netns NS] [--peer-netns NS]",
		"send one MRC PROBE per EV over raw sockets, check each arrives", cmd_wire_ping },
	{ "blast", "CONF --host H --to H --packets N [--start-ns T] [--ports IF,..]",
		"raw-socket baseline: batched sends of the job's data packets, no transport",
		cmd_blast },
	{ "hist", "[OPTIONS] [FILE]", "histogram of numbers (one a line) -> .hgrm / .hlog",
		cmd_hist },
	{ "sample", "OUT.pcap [OPTIONS]", "write one MRC packet of every type to a pcap",
		cmd_sample },
	{ "bench", "[SCENARIO] [--queue Q]",
		"job-{quickstart,a2a128,perm{128,1k,8k}} fabric-{128,1k,8k} evq psim wire-xdp",
		cmd_bench },
	{ "version", "", "print the version", cmd_version },
	{ "help", "", "this text", cmd_help },
};

#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

/* Width of the "name args" column of `mrcgen help`, after a 2-space indent. */
#define HELP_HEAD_COLS 28

static void usage(FILE *f)
{
	fprintf(f, "usage: mrcgen COMMAND [ARGS]\n\n"
		   "MRC (Multipath Reliable Connection) fabric testbed and traffic generator.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < N_CMDS; i++) {
		const char *sep = cmds[i].args[0] ? " " : "";
		int w = (int)(strlen(cmds[i].name) + strlen(sep) + strlen(cmds[i].args));
		int pad = HELP_HEAD_COLS - w;

		fprintf(f, "  %s%s%s", cmds[i].name, sep, cmds[i].args);
		/* a head wider than the column puts its summary on the next line, aligned */
		if (w > HELP_HEAD_COLS) {
			fputc('\n', f);
			pad = 2 + HELP_HEAD_COLS; /* the head's indent, then the column */
		}
		fprintf(f, "%*s %s\n", pad, "", cmds[i].summary);
	}
	fprintf(f, "\nexit status: 0 ok, 1 the job failed its checks, 2 usage or config error\n");
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return EXIT_OK;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("mrcgen %s\n", MRCGEN_VERSION);
	return EXIT_OK;
}

static void hist_usage(FILE *f)
{
	fprintf(f, "usage: mrcgen hist [--hgrm FILE] [--hlog FILE] [--tag TAG] [--lowest N]\n"
		   "                   [--highest N] [--sigfigs 1-5] [--unit-ratio R] [--ticks N]\n"
		   "                   [--start-time SECONDS] [--length SECONDS]\n"
		   "                   [--percentiles P,P,...] [FILE]\n"
		   "Reads non-negative integers, one a line ('#' and blank lines skipped),\n"
		   "from FILE or stdin, and writes HdrHistogram's .hgrm percentile table\n"
		   "(stdout when neither --hgrm, --hlog nor --percentiles is given; '-' is\n"
		   "stdout) and/or a one-interval .hlog (format 1.3). --percentiles (0..100\n"
		   "scale, e.g. 50,99,99.9) prints 'count N', 'min N', ..., 'p50 N' lines.\n"
		   "Defaults: lowest 1, highest 3600000000000, sigfigs 3, unit-ratio 1 (divides\n"
		   "values in the .hgrm and the .hlog Interval_Max), ticks 5, start-time now,\n"
		   "length 0.\n");
}

/* Latest --start-time (and longest --length): 9999-12-31 23:59:59 UTC, in seconds. */
#define HIST_TIME_MAX 253402300799.0

/* Parses a whole-string number for option @opt; 0 or -EINVAL with a message. */
static int hist_num(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(*out)) {
		fprintf(stderr, "mrcgen: hist: %s: not a number '%s'\n", opt, s);
		return -EINVAL;
	}
	return 0;
}

/* Copies @s into @buf (@len bytes) with bytes outside printable ASCII as \xHH; clips. */
static const char *hist_quote(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	buf[o] = '\0';
	return buf;
}

static int hist_read(FILE *in, const char *name, struct mrc_hist *h)
{
	char *line = NULL, q[128];
	size_t cap = 0;
	long lineno = 0;
	ssize_t got;
	int err = 0;

	while ((got = getline(&line, &cap, in)) >= 0) {
		char *p = line, *end;
		long long v;

		lineno++;
		if (strlen(line) != (size_t)got) {	/* "2\0003" must not count as 2 */
			fprintf(stderr, "mrcgen: hist: %s:%ld: NUL byte in the line '%s'\n", name,
				lineno, hist_quote(line, q, sizeof(q)));
			err = -EINVAL;
			break;
		}
		p += strspn(p, " \t");
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '\0' || *p == '#')
			continue;
		errno = 0;
		v = strtoll(p, &end, 10);
		end += strspn(end, " \t");
		if (end == p || *end || errno || v < 0) {
			fprintf(stderr, "mrcgen: hist: %s:%ld: not a non-negative integer '%s'\n",
				name, lineno, hist_quote(p, q, sizeof(q)));
			err = -EINVAL;
			break;
		}
		mrc_hist_record(h, v);
	}
	if (!err && ferror(in)) {
		fprintf(stderr, "mrcgen: hist: read %s: %s\n", name, strerror(errno));
		err = -EIO;
	}
	free(line);
	return err;
}

static FILE *hist_open_out(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f)
		fprintf(stderr, "mrcgen: hist: open '%s': %s\n", path, strerror(errno));
	return f;
}

static int hist_close_out(FILE *f, const char *path, int err)
{
	if (f != stdout) {
		if (fclose(f) && !err)
			err = -EIO;
	} else if (fflush(f) && !err) {
		err = -EIO;
	}
	if (err)
		fprintf(stderr, "mrcgen: hist: write '%s': %s\n", path, strerror(-err));
	return err;
}

static int cmd_hist(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hgrm", required_argument, NULL, 'g' },
		{ "hlog", required_argument, NULL, 'l' },
		{ "tag", required_argument, NULL, 't' },
		{ "lowest", required_argument, NULL, 'L' },
		{ "highest", required_argument, NULL, 'H' },
		{ "sigfigs", required_argument, NULL, 's' },
		{ "unit-ratio", required_argument, NULL, 'r' },
		{ "ticks", required_argument, NULL, 'k' },
		{ "start-time", required_argument, NULL, 'S' },
		{ "length", required_argument, NULL, 'n' },
		{ "percentiles", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *hgrm = NULL, *hlog = NULL, *tag = NULL, *in_name = "<stdin>", *plist = NULL;
	double pcts[MRC_HIST_SUMMARY_MAX_PCT];
	size_t n_pcts = 0;
	double lowest = 1, highest = 3600000000000.0, sigfigs = 3, ratio = 1, ticks = 5;
	double start = NAN, length = 0;	/* NAN: now */
	struct mrc_hist *h = NULL;
	FILE *in = stdin, *out;
	int c, idx = 0, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		double *num = NULL;

		switch (c) {
		case 'g': hgrm = optarg; break;
		case 'l': hlog = optarg; break;
		case 't': tag = optarg; break;
		case 'p': plist = optarg; break;
		case 'L': num = &lowest; break;
		case 'H': num = &highest; break;
		case 's': num = &sigfigs; break;
		case 'r': num = &ratio; break;
		case 'k': num = &ticks; break;
		case 'S': num = &start; break;
		case 'n': num = &length; break;
		case 'h': hist_usage(stdout); return EXIT_OK;
		default: hist_usage(stderr); return EXIT_USAGE;
		}
		if (num && hist_num(opts[idx].name, optarg, num))
			return EXIT_USAGE;
	}
	if (argc - optind > 1) {
		hist_usage(stderr);
		return EXIT_USAGE;
	}
	for (const char *p = plist; p && *p;) {
		char *end;

		double v;

		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno || (*end && *end != ',') || (*end == ',' && !end[1]) ||
		    !(v >= 0) || v > 100 || n_pcts == MRC_HIST_SUMMARY_MAX_PCT) {
			fprintf(stderr, "mrcgen: hist: --percentiles: want up to %d numbers in "
					"0..100, comma-separated, at '%s'\n",
				MRC_HIST_SUMMARY_MAX_PCT, p);
			return EXIT_USAGE;
		}
		/* as output.hist.percentiles: strictly ascending */
		if (n_pcts && v <= pcts[n_pcts - 1]) {
			fprintf(stderr,
				"mrcgen: hist: --percentiles: not ascending after %g at '%s'\n",
				pcts[n_pcts - 1], p);
			return EXIT_USAGE;
		}
		pcts[n_pcts++] = v;
		p = *end ? end + 1 : end;
	}
	if (!(ratio > 0) || ticks < 1 || ticks > 1000 || ticks != floor(ticks)) {
		fprintf(stderr, "mrcgen: hist: --unit-ratio must be > 0 and --ticks 1..1000\n");
		return EXIT_USAGE;
	}
	/* an explicit time must be a date the .hlog can print */
	if (!isnan(start) && !(start >= 0 && start <= HIST_TIME_MAX)) {
		fprintf(stderr, "mrcgen: hist: --start-time: want seconds since the epoch in "
				"0..%.0f '%g'\n", HIST_TIME_MAX, start);
		return EXIT_USAGE;
	}
	if (!(length >= 0 && length <= HIST_TIME_MAX)) {
		fprintf(stderr, "mrcgen: hist: --length: want seconds in 0..%.0f '%g'\n",
			HIST_TIME_MAX, length);
		return EXIT_USAGE;
	}
	if (tag && (!*tag || strpbrk(tag, ", \t\r\n"))) {
		fprintf(stderr, "mrcgen: hist: --tag: no spaces or commas allowed in '%s'\n", tag);
		return EXIT_USAGE;
	}
	if (lowest != floor(lowest) || highest != floor(highest) || sigfigs != floor(sigfigs) ||
	    highest >= 9223372036854775807.0 ||
	    mrc_hist_init((int64_t)lowest, (int64_t)highest, (int)sigfigs, &h)) {
		fprintf(stderr, "mrcgen: hist: bad range: lowest %g, highest %g, sigfigs %g (want "
				"integers, lowest >= 1, highest >= 2 * lowest, sigfigs 1..5)\n",
			lowest, highest, sigfigs);
		return EXIT_USAGE;
	}
	if (optind < argc && strcmp(argv[optind], "-") != 0) {
		in_name = argv[optind];
		in = fopen(in_name, "r");
		if (!in) {
			fprintf(stderr, "mrcgen: hist: open '%s': %s\n", in_name, strerror(errno));
			err = -ENOENT;
			goto free_h;
		}
	}
	err = hist_read(in, in_name, h);
	if (in != stdin)
		fclose(in);
	if (err)
		goto free_h;
	if (mrc_hist_out_of_range(h))
		fprintf(stderr, "mrcgen: hist: %s: %lld values above the range (--highest %.0f) "
				"not recorded\n", in_name, (long long)mrc_hist_out_of_range(h),
			highest);
	if (plist) {
		struct mrc_hist_summary sum;

		mrc_hist_summarize(h, pcts, n_pcts, &sum);
		printf("count %lld\nout_of_range %lld\nmin %lld\nmax %lld\nmean %.6f\n"
		       "stddev %.6f\n", (long long)sum.count, (long long)sum.out_of_range,
		       (long long)sum.min, (long long)sum.max, sum.mean, sum.stddev);
		for (size_t i = 0; i < sum.n_pct; i++)
			printf("p%g %lld\n", sum.pct[i].p, (long long)sum.pct[i].value);
	}
	if (!hgrm && !hlog && !plist)
		hgrm = "-";
	if (hgrm) {
		out = hist_open_out(hgrm);
		if (!out) {
			err = -EIO;
			goto free_h;
		}
		err = hist_close_out(out, hgrm, mrc_hist_write_hgrm(h, out, (int)ticks, ratio));
		if (err)
			goto free_h;
	}
	if (hlog) {
		if (isnan(start)) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			start = (double)ts.tv_sec + ts.tv_nsec / 1e9;
		}
		out = hist_open_out(hlog);
		if (!out) {
			err = -EIO;
			goto free_h;
		}
		err = mrc_hist_hlog_head(out, start, start);
		if (!err)
			err = mrc_hist_hlog_interval(out, tag, 0, length, h, ratio);
		err = hist_close_out(out, hlog, err);
	}
free_h:
	mrc_hist_free(h);
	/* hist has no checks that can fail: every error is a bad argument, file or value */
	return err ? EXIT_USAGE : EXIT_OK;
}

/*
 * Loads the config named by the one positional argument, with the --set and -o/--out
 * overrides; on error prints the loader's message and returns EXIT_USAGE. Shared by
 * every subcommand that reads a config.
 */
static int load_job(const char *cmd, int argc, char **argv, struct conf_job *job)
{
	struct conf_args a;
	char err[1024];
	int ret;

	if (conf_args_parse(argc, argv, &a, err, sizeof(err))) {
		fprintf(stderr, "mrcgen: %s: %s\n", cmd, err);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < a.n_rest; i++) {
		if (a.rest[i][0] == '-') {	/* "--bogus" is no file name; "./-x" is */
			fprintf(stderr, "mrcgen: %s: unknown option '%s'\n", cmd, a.rest[i]);
			conf_args_free(&a);
			return EXIT_USAGE;
		}
	}
	if (a.n_rest != 1) {
		fprintf(stderr, "mrcgen: %s: expected one config file, got %zu arguments\n", cmd,
			a.n_rest);
		conf_args_free(&a);
		return EXIT_USAGE;
	}
	ret = conf_load_any_checked(a.rest[0], a.sets, a.n_sets, mrc_job_check, job, err,
		sizeof(err));
	conf_args_free(&a);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int cmd_check(int argc, char **argv)
{
	struct conf_job job;
	int ret = load_job("check", argc, argv, &job);

	if (ret)
		return ret;
	if (conf_dump(&job, stdout)) {
		fprintf(stderr, "mrcgen: check: stdout: write error\n");
		ret = EXIT_USAGE;
	}
	conf_free(&job);
	return ret;
}

/* A host name "h5" as its number; -1 when @s is not one. */
static int64_t paths_host(const char *s)
{
	struct mrc_srv6_node n;

	if (strchr(s, '.') || mrc_srv6_node_parse(s, &n) || n.role != MRC_SRV6_HOST)
		return -1;
	return n.index;
}

static int cmd_paths(int argc, char **argv)
{
	struct mrc_paths_query q = { .from = -1, .to = -1 };
	struct mrc_job_srv6 m;
	struct conf_job job;
	char err[1024], **rest;
	int n = 0, ret;

	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest) {
		fprintf(stderr, "mrcgen: paths: out of memory\n");
		return EXIT_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		const char *opt = argv[i], *val;

		if (i > 0 && strcmp(opt, "--json") == 0) {
			q.json = true;
			continue;
		}
		if (i == 0 ||
		    (strcmp(opt, "--from") && strcmp(opt, "--to") && strcmp(opt, "--ev"))) {
			rest[n++] = argv[i];
			continue;
		}
		if (i + 1 == argc) {
			fprintf(stderr, "mrcgen: paths: %s: missing value\n", opt);
			free(rest);
			return EXIT_USAGE;
		}
		val = argv[++i];
		if (strcmp(opt, "--ev") ? (opt[2] == 'f' ? q.from : q.to) >= 0 : q.has_ev) {
			fprintf(stderr, "mrcgen: paths: %s: given twice, now '%s'\n", opt, val);
			free(rest);
			return EXIT_USAGE;
		}
		if (strcmp(opt, "--ev") == 0) {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(val, &end, 0);
			if (errno || !*val || *end || val[0] == '-' || v > 0xffffffffull) {
				fprintf(stderr, "mrcgen: paths: --ev: not a 32-bit EV '%s'\n", val);
				free(rest);
				return EXIT_USAGE;
			}
			q.has_ev = true;
			q.ev = (uint32_t)v;
			continue;
		}
		if (paths_host(val) < 0) {
			fprintf(stderr, "mrcgen: paths: %s: not a host name (h0, h1, ...) '%s'\n",
				opt, val);
			free(rest);
			return EXIT_USAGE;
		}
		*(strcmp(opt, "--from") == 0 ? &q.from : &q.to) = paths_host(val);
	}
	ret = load_job("paths", n, rest, &job);
	free(rest);
	if (ret)
		return ret;
	ret = mrc_job_srv6(&job, &m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "mrcgen: paths: %s: %s\n", job.source ? job.source : "config", err);
		conf_free(&job);
		return EXIT_USAGE;
	}
	ret = mrc_paths_print(stdout, m.plan, m.evs, m.n_evs, &q, err, sizeof(err));
	if (ret)
		fprintf(stderr, "mrcgen: %s\n", err);
	mrc_job_srv6_free(&m);
	conf_free(&job);
	return ret ? EXIT_USAGE : EXIT_OK;
}

/* First sample timestamp: 1700000000.123456789 s (shared case C04); then +1 us each. */
#define SAMPLE_TS0_NS 1700000000123456789ull

static void sample_usage(FILE *f)
{
	fprintf(f,
		"usage: mrcgen sample OUT.pcap [--ev-format srv6|stev|udp] [--srh|--srh-reduced]\n"
		"                    [--snaplen N] [--us]\n"
		"  one packet of every MRC type (wire samples, docs/cli.md \"sample\"); "
		"--srh adds\n"
		"  a 3-segment SRH (srv6 only), --srh-reduced the reduced form; --snaplen N\n"
		"  keeps N bytes of each packet (0 = 262144); --us writes a microsecond file\n"
		"  (default ns)\n");
}

static int cmd_sample(int argc, char **argv)
{
	static uint8_t buf[MRC_PKT_MAX];
	struct mrc_wire_cfg cfg;
	enum pcapw_tsresol res = PCAPW_TS_NS;
	char errbuf[PCAPW_ERRBUF_SIZE], *end;
	const char *out = NULL;
	unsigned long snaplen = 65535;
	unsigned variant = 0, first, n;
	struct pcapw *w;
	int err;

	mrc_wire_cfg_default(&cfg);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--ev-format") == 0 && i + 1 < argc) {
			const char *v = argv[++i];

			if (strcmp(v, "srv6") == 0) {
				cfg.ev_format = MRC_EVF_SRV6;
			} else if (strcmp(v, "stev") == 0) {
				cfg.ev_format = MRC_EVF_STEV;
			} else if (strcmp(v, "udp") == 0) {
				cfg.ev_format = MRC_EVF_UDP;
			} else {
				fprintf(stderr, "mrcgen: sample: --ev-format: unknown format '%s' "
						"(srv6, stev, udp)\n", v);
				return EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--srh") == 0) {
			variant = 1;
		} else if (strcmp(argv[i], "--srh-reduced") == 0) {
			variant = 2;
		} else if (strcmp(argv[i], "--us") == 0) {
			res = PCAPW_TS_US;
		} else if (strcmp(argv[i], "--snaplen") == 0 && i + 1 < argc) {
			errno = 0;
			snaplen = strtoul(argv[++i], &end, 10);
			if (errno || *end || end == argv[i] || snaplen > PCAPW_SNAPLEN_MAX) {
				fprintf(stderr, "mrcgen: sample: --snaplen: bad value '%s' "
						"(0..%u)\n", argv[i], PCAPW_SNAPLEN_MAX);
				return EXIT_USAGE;
			}
		} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			sample_usage(stdout);
			return EXIT_OK;
		} else if (argv[i][0] != '-' && !out) {
			out = argv[i];
		} else {
			fprintf(stderr, "mrcgen: sample: bad argument '%s'\n", argv[i]);
			sample_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!out) {
		sample_usage(stderr);
		return EXIT_USAGE;
	}
	if (variant && cfg.ev_format != MRC_EVF_SRV6) {
		fprintf(stderr, "mrcgen: sample: --srh: needs --ev-format srv6 (the outer header "
				"carries the SRH)\n");
		return EXIT_USAGE;
	}
	err = pcapw_open(out, (uint32_t)snaplen, res, &w, errbuf);
	if (err) {
		fprintf(stderr, "mrcgen: sample: %s\n", errbuf);
		return EXIT_USAGE;
	}
	first = variant * MRC_WIRE_SAMPLE_TYPES;
	for (n = 0; n < MRC_WIRE_SAMPLE_TYPES; n++) {
		int len = mrc_wire_sample(first + n, &cfg, buf, sizeof(buf));

		if (len < 0) {
			fprintf(stderr, "mrcgen: sample: packet %u: %s\n", first + n,
				strerror(-len));
			pcapw_close(w);
			return EXIT_JOB_FAILED;
		}
		err = pcapw_write(w, SAMPLE_TS0_NS + 1000ull * n, buf, (size_t)len);
		if (err) {
			fprintf(stderr, "mrcgen: sample: %s\n", pcapw_error(w));
			pcapw_close(w);
			return EXIT_JOB_FAILED;
		}
	}
	err = pcapw_close(w);
	if (err) {
		fprintf(stderr, "mrcgen: sample: close: %s: %s\n", out, strerror(-err));
		return EXIT_JOB_FAILED;
	}
	printf("%s: %u packets\n", out, n);
	return EXIT_OK;
}

/*
 * bench wire-xdp: the xdp dataplane's benchmark is harness/bench/wire-xdp.tcl (network
 * namespaces, three senders on two setups); this binary runs it on itself, from the source
 * tree, passing the arguments after the scenario on. Returns only when it could not start.
 */
static int bench_wire_xdp(int argc, char **argv)
{
	static const char script[] = "harness/bench/wire-xdp.tcl";
	char self[4096], **av = calloc((size_t)argc + 6, sizeof(*av));
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int k = 0;

	if (!av || n <= 0) {
		fprintf(stderr, "mrcgen: bench: wire-xdp: %s\n", av ? "/proc/self/exe: unreadable" :
			"out of memory");
		free(av);
		return EXIT_USAGE;
	}
	self[n] = 0;
	if (access(script, R_OK)) {
		fprintf(stderr, "mrcgen: bench: wire-xdp: %s is missing: run it from the source "
				"tree (make bench)\n", script);
		free(av);
		return EXIT_USAGE;
	}
	av[k++] = "tclsh";
	av[k++] = (char *)script;
	av[k++] = "--mrcgen";
	av[k++] = self;
	for (int i = 2; i < argc; i++)
		av[k++] = argv[i];
	fflush(stdout);
	execvp(av[0], av);
	fprintf(stderr, "mrcgen: bench: wire-xdp: tclsh: %s (make deps)\n", strerror(errno));
	free(av);
	return EXIT_USAGE;
}

static int cmd_bench(int argc, char **argv)
{
	const char *only = NULL, *queue = NULL;
	int err;

	if (argc > 1 && strcmp(argv[1], "wire-xdp") == 0)
		return bench_wire_xdp(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--queue") == 0 && i + 1 < argc) {
			queue = argv[++i];
		} else if (argv[i][0] != '-' && !only) {
			only = argv[i];
		} else {
			fprintf(stderr, "mrcgen: bench: bad argument '%s'\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	if (queue && mrc_simq_parse(queue, &(enum mrc_simq){ 0 })) {
		fprintf(stderr, "mrcgen: bench: --queue: unknown queue '%s' (heap, wheel)\n",
			queue);
		return EXIT_USAGE;
	}
	err = mrc_bench_run(only, queue, stdout);
	if (err == -ESRCH) {
		fprintf(stderr, "mrcgen: bench: no scenario '%s'\n", only);
		return EXIT_USAGE;
	}
	if (err == -ENOENT) {
		fprintf(stderr, "mrcgen: bench: a scenario's config is missing: run it from the "
				"source tree (make bench)\n");
		return EXIT_USAGE;
	}
	if (err) {
		fprintf(stderr, "mrcgen: bench: %s\n", strerror(-err));
		return EXIT_JOB_FAILED;
	}
	return EXIT_OK;
}

/*
 * One step of a subcommand's option loop over @argc arguments (argv[0] is the config):
 * when argv[*i] is one of the @nopts names in @opts and has a value, sets *@val, moves *i
 * onto the value and returns the name's index; returns -1 for an argument that is not
 * one of them (left for load_job), -2 after saying that the value is missing.
 */
static int take_opt(const char *cmd, int argc, char **argv, int *i, const char *const *opts,
	size_t nopts, const char **val)
{
	size_t k;

	if (*i == 0)
		return -1;
	for (k = 0; k < nopts && strcmp(argv[*i], opts[k]) != 0; k++)
		;
	if (k == nopts)
		return -1;
	if (*i + 1 == argc) {
		fprintf(stderr, "mrcgen: %s: %s: missing value\n", cmd, argv[*i]);
		return -2;
	}
	*val = argv[++*i];
	return (int)k;
}

/* Option @opt's host name @val (h0, h1, ...) into *@out; false after saying why not. */
static bool opt_host(const char *cmd, const char *opt, const char *val, uint32_t *out)
{
	int64_t h = paths_host(val);

	if (h < 0) {
		fprintf(stderr, "mrcgen: %s: %s: not a host name (h0, h1, ...) '%s'\n", cmd, opt,
			val);
		return false;
	}
	*out = (uint32_t)h;
	return true;
}

/*
 * --ports' comma-separated interface names, split in place into @out (at most @max);
 * false after saying there are too many.
 */
static bool opt_ports(const char *cmd, char *list, const char **out, size_t max)
{
	size_t p = 0;

	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		if (p == max) {
			fprintf(stderr, "mrcgen: %s: --ports: more than %zu names\n", cmd, max);
			return false;
		}
		out[p++] = tok;
	}
	return true;
}

/*
 * blast: the wire benchmark's baseline (mrc/wire/blast.h) — this host sends --packets data
 * packets to --to over every EV in turn and counts what --to sends back; one line of
 * key=value figures for harness/bench/wire.tcl. Exit 0, or 2 for usage or setup errors.
 */
static int cmd_blast(int argc, char **argv)
{
	struct mrc_blast_opts o = { .host = UINT32_MAX, .peer = UINT32_MAX };
	struct mrc_blast_result r;
	struct conf_job job;
	char err[1024], **rest, *ports = NULL;
	int n = 0, ret;

	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest) {
		fprintf(stderr, "mrcgen: blast: out of memory\n");
		return EXIT_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		static const char *const opts[] = { "--host", "--to", "--packets", "--start-ns",
			"--ports", "--idle-ms" };
		const char *opt = argv[i], *val = NULL;
		int k = take_opt("blast", argc, argv, &i, opts, sizeof(opts) / sizeof(opts[0]),
			&val);

		if (k == -2)
			goto usage;
		if (k == -1) {
			rest[n++] = argv[i];
			continue;
		}
		if (k <= 1) {
			if (!opt_host("blast", opt, val, k == 0 ? &o.host : &o.peer))
				goto usage;
		} else if (k == 4) {
			ports = argv[i];
		} else {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(val, &end, 10);
			if (errno || !*val || *end || val[0] == '-' || (k == 5 && v > 3600000)) {
				fprintf(stderr, "mrcgen: blast: %s: not a number in range '%s'\n",
					opt, val);
				goto usage;
			}
			if (k == 2)
				o.packets = v;
			else if (k == 3)
				o.start_ns = v;
			else
				o.idle_ms = (unsigned)v;
		}
	}
	if (o.host == UINT32_MAX || o.peer == UINT32_MAX || !o.packets) {
		fprintf(stderr, "mrcgen: blast: --host, --to and --packets (> 0) are required\n");
		goto usage;
	}
	if (ports && !opt_ports("blast", ports, o.ports, MRC_BLAST_MAX_PLANES))
		goto usage;
	ret = load_job("blast", n, rest, &job);
	free(rest);
	if (ret)
		return ret;
	ret = mrc_blast_run(&job, &o, &r, err, sizeof(err));
	conf_free(&job);
	if (ret) {
		fprintf(stderr, "mrcgen: %s\n", err);
		return EXIT_USAGE;
	}
	printf("blast host=h%u to=h%u dataplane=%s evs=%u pkt_bytes=%u payload_bytes=%u "
	       "sent=%llu send_errors=%llu send_s=%.6f received=%llu received_bytes=%llu "
	       "recv_s=%.6f sock_drops=%llu cpu_user_s=%.3f cpu_sys_s=%.3f\n",
		o.host, o.peer, r.xdp ? "xdp" : "socket", r.evs, r.pkt_bytes, r.payload_bytes,
		(unsigned long long)r.sent,
		(unsigned long long)r.send_errors, r.send_s, (unsigned long long)r.received,
		(unsigned long long)r.received_bytes, r.recv_s, (unsigned long long)r.sock_drops,
		r.cpu_user_s, r.cpu_sys_s);
	return EXIT_OK;
usage:
	free(rest);
	return EXIT_USAGE;
}

/*
 * wire-ping: one PROBE per EV of the job (or --ev N) from --host to --to over the raw
 * sockets of each plane port; received in --peer-netns (or this namespace) and compared.
 * Exit 0 when every path delivered, 1 when one did not, 2 for usage or setup errors.
 */
static int cmd_wire_ping(int argc, char **argv)
{
	struct mrc_wping_opts o = { .src = UINT32_MAX, .dst = UINT32_MAX };
	char err[1024], **rest, *ports = NULL;
	uint32_t one_ev = 0, *evs = NULL;
	bool has_ev = false;
	struct mrc_job_srv6 m;
	struct conf_job job;
	int n = 0, ret;

	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest) {
		fprintf(stderr, "mrcgen: wire-ping: out of memory\n");
		return EXIT_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		static const char *const opts[] = { "--host", "--to", "--ev", "--ports", "--netns",
			"--peer-netns", "--timeout-ms" };
		const char *opt = argv[i], *val = NULL;
		int k = take_opt("wire-ping", argc, argv, &i, opts, sizeof(opts) / sizeof(opts[0]),
			&val);

		if (k == -2)
			goto usage;
		if (k == -1) {
			rest[n++] = argv[i];
			continue;
		}
		if (k <= 1) {
			if (!opt_host("wire-ping", opt, val, k == 0 ? &o.src : &o.dst))
				goto usage;
		} else if (k == 2 || k == 6) {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(val, &end, 0);
			if (errno || !*val || *end || val[0] == '-' || v > 0xffffffffull) {
				fprintf(stderr, "mrcgen: wire-ping: %s: not a 32-bit number '%s'\n",
					opt, val);
				goto usage;
			}
			if (k == 2) {
				has_ev = true;
				one_ev = (uint32_t)v;
			} else {
				o.timeout_ms = (unsigned)v;
			}
		} else if (k == 3) {
			ports = argv[i];
		} else {
			*(k == 4 ? &o.netns : &o.peer_netns) = val;
		}
	}
	if (o.src == UINT32_MAX || o.dst == UINT32_MAX) {
		fprintf(stderr, "mrcgen: wire-ping: --host and --to are required\n");
		goto usage;
	}
	if (ports && !opt_ports("wire-ping", ports, o.ports, MRC_WPING_MAX_PLANES))
		goto usage;
	ret = load_job("wire-ping", n, rest, &job);
	free(rest);
	rest = NULL;
	if (ret)
		return ret;
	ret = mrc_job_srv6(&job, &m, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "mrcgen: wire-ping: %s: %s\n", job.source ? job.source : "config",
			err);
		conf_free(&job);
		return EXIT_USAGE;
	}
	o.plan = m.plan;
	o.wire = &job.wire;
	o.mtu = job.mrc.mtu;
	if (has_ev) {
		o.evs = &one_ev;
		o.n_evs = 1;
	} else {
		evs = calloc(m.n_evs ? m.n_evs : 1, sizeof(*evs));
		for (size_t i = 0; evs && i < m.n_evs; i++)
			if (!m.evs[i].denied)
				evs[o.n_evs++] = m.evs[i].ev;
		o.evs = evs;
	}
	ret = evs || has_ev ? mrc_wping_run(&o, stdout, err, sizeof(err)) : -ENOMEM;
	if (ret < 0)
		fprintf(stderr, "mrcgen: %s\n", ret == -ENOMEM && !evs ? "wire-ping: out of memory"
									: err);
	free(evs);
	mrc_job_srv6_free(&m);
	conf_free(&job);
	return ret < 0 ? EXIT_USAGE : ret > 0 ? EXIT_JOB_FAILED : EXIT_OK;
usage:
	free(rest);
	return EXIT_USAGE;
}

/*
 * mrcgen compare A B [C...]: reports (report.json or the directory holding it) side by
 * side (docs/cli.md "compare"). Exit 0 whatever differs; 1 when --max-regress P% trips;
 * 2 for usage errors and inputs that are not reports.
 */
static int cmd_compare(int argc, char **argv)
{
	struct mrc_cmp_opts o = { .max_regress = -1 };
	struct mrc_cmp_input *in = calloc(argc, sizeof(*in));
	char err[4200];
	size_t n = 0, i;
	json_t *cmp = NULL, *reg;
	int ret = EXIT_USAGE;

	if (!in) {
		fprintf(stderr, "mrcgen: compare: out of memory\n");
		return EXIT_USAGE;
	}
	for (int a = 1; a < argc; a++) {
		char *end;

		if (strcmp(argv[a], "--json") == 0) {
			o.json = true;
		} else if (strcmp(argv[a], "--all") == 0) {
			o.all = true;
		} else if (strcmp(argv[a], "--max-regress") == 0 || strcmp(argv[a], "-o") == 0) {
			if (a + 1 == argc) {
				fprintf(stderr, "mrcgen: compare: %s: missing value\n", argv[a]);
				goto out;
			}
			if (argv[a][1] == 'o') {
				o.plot_dir = argv[++a];
				continue;
			}
			o.max_regress = strtod(argv[++a], &end);
			if (end == argv[a] || (*end && strcmp(end, "%")) || !(o.max_regress >= 0)) {
				fprintf(stderr, "mrcgen: compare: --max-regress: not a percentage "
					"'%s'\n", argv[a]);
				goto out;
			}
		} else if (argv[a][0] == '-' && argv[a][1]) {
			fprintf(stderr, "mrcgen: compare: unknown option '%s'\n", argv[a]);
			goto out;
		} else if (n == 26) {
			fprintf(stderr, "mrcgen: compare: at most 26 inputs (A to Z)\n");
			goto out;
		} else if (mrc_cmp_load(argv[a], &in[n++], err, sizeof(err))) {
			fprintf(stderr, "mrcgen: compare: %s\n", err);
			goto out;
		}
	}
	if (n < 2) {
		fprintf(stderr, "usage: mrcgen compare A B [C...] [--json] [--all] "
			"[--max-regress P%%] [-o DIR]\n");
		goto out;
	}
	cmp = mrc_cmp_build(in, n, &o);
	if (!cmp) {
		fprintf(stderr, "mrcgen: compare: out of memory\n");
		goto out;
	}
	if (o.json) {
		json_dumpf(cmp, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
			JSON_REAL_PRECISION(10));
		fputc('\n', stdout);
	} else {
		mrc_cmp_print(stdout, cmp);
	}
	if (o.plot_dir) {
		int r = mkdir(o.plot_dir, 0755) && errno != EEXIST ? -errno :
			mrc_cmp_plot(o.plot_dir, in, n);

		if (r == -ENOENT)
			fprintf(stderr, "mrcgen: compare: gnuplot is not installed: no PNG (the "
				".gp and .dat files are in %s)\n", o.plot_dir);
		else if (r)
			fprintf(stderr, "mrcgen: compare: plots in %s: %s\n", o.plot_dir,
				strerror(-r));
	}
	ret = EXIT_OK;
	json_array_foreach(json_object_get(cmp, "regressions"), i, reg) {
		json_int_t k = json_integer_value(json_object_get(reg, "input"));
		const char *fig = json_string_value(json_object_get(reg, "figure"));

		fprintf(stderr, "mrcgen: compare: regression: %c (%s) %s %s is %.1f%% %s A's "
			"(max %g%%)\n", (int)('A' + k), in[k].path,
			json_string_value(json_object_get(reg, "size")), fig,
			fabs(json_real_value(json_object_get(reg, "pct"))),
			strcmp(fig, "time_us") ? "below" : "above", o.max_regress);
		ret = EXIT_JOB_FAILED;
	}
out:
	json_decref(cmp);
	for (i = 0; i < n; i++)
		json_decref(in[i].root);
	free(in);
	return ret;
}

int main(int argc, char **argv)
{
	mrc_bench_child_init();
	if (argc < 2) {
		usage(stderr);
		exit(EXIT_USAGE);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		exit(cmd_help(argc - 1, argv + 1));
	if (strcmp(argv[1], "--version") == 0)
		exit(cmd_version(argc - 1, argv + 1));
	for (size_t i = 0; i < N_CMDS; i++) {
		if (strcmp(argv[1], cmds[i].name) != 0)
			continue;
		/* `mrcgen COMMAND --help`: that command's line of the table (sample and hist
		 * print their own, longer usage) */
		if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) &&
			strcmp(argv[1], "sample") && strcmp(argv[1], "hist")) {
			printf("usage: mrcgen %s %s\n  %s\n(docs/cli.md has the details)\n",
				cmds[i].name, cmds[i].args, cmds[i].summary);
			exit(EXIT_OK);
		}
		exit(cmds[i].fn(argc - 1, argv + 1));
	}
	fprintf(stderr, "mrcgen: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	exit(EXIT_USAGE);
}

/* A progress bar on stderr, only when it is a terminal. */
static void run_progress(void *ctx, double frac)
{
	int width = 40, done = (int)(frac * width + 0.5);

	(void)ctx;
	fprintf(stderr, "\r[%.*s%*s] %3d%%", done, "########################################",
		width - done, "", (int)(frac * 100 + 0.5));
	if (frac >= 1)
		fputc('\n', stderr);
	fflush(stderr);
}

/* cmd_run's wire-driver options; the rest of argv is left for load_job. */
static int run_wire_opts(const char *cmd, int *argc, char **argv, struct mrc_wirerun_opts *o)
{
	static const char *const opts[] = { "--host", "--ports", "--rendezvous", "--timeout-ms",
		"--token-file", "--bootstrap", "--netns" };
	static const char *const boots[] = { "auto", "rendezvous", "pmix" };
	int n = 0;

	for (int i = 0; i < *argc; i++) {
		const char *val = NULL;
		int k = take_opt(cmd, *argc, argv, &i, opts, sizeof(opts) / sizeof(opts[0]),
			&val);

		if (k == -2)
			return EXIT_USAGE;
		if (k == -1) {
			argv[n++] = argv[i];
			continue;
		}
		if (k == 0) {
			o->host = val;
		} else if (k == 1) {
			if (!opt_ports(cmd, argv[i], o->ports, MRC_WIRERUN_MAX_PLANES))
				return EXIT_USAGE;
		} else if (k == 2) {
			o->rendezvous = val;
		} else if (k == 4) {
			o->token_file = val;
		} else if (k == 5) {
			size_t b = 0;

			while (b < 3 && strcmp(val, boots[b]))
				b++;
			if (b == 3) {
				fprintf(stderr, "mrcgen: run: --bootstrap: not auto, rendezvous or "
						"pmix '%s'\n", val);
				return EXIT_USAGE;
			}
			o->bootstrap = (enum mrc_wirerun_boot)b;
		} else if (k == 6) {
			o->netns = val;
		} else {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(val, &end, 10);
			if (errno || !*val || *end || val[0] == '-' || v == 0 || v > 86400000) {
				fprintf(stderr, "mrcgen: %s: --timeout-ms: not 1..86400000 '%s'\n",
					cmd, val);
				return EXIT_USAGE;
			}
			o->timeout_ms = (unsigned)v;
		}
	}
	*argc = n;
	return EXIT_OK;
}

/*
 * SIGINT/SIGTERM during a run: the first asks the driver to stop (mrc_stop_signal) so that
 * the outputs of what was measured are written; a second ends the process at once, as the
 * signal's default action would.
 */
static void on_stop_signal(int sig)
{
	if (mrc_stop_signal) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	mrc_stop_signal = sig;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * After the ranks ran a job or sweep (@e: this rank's result), MPI left: a rank other than
 * 0 that lost a rank names it (rank 0 reports, unless it is the one lost: then no report).
 * Returns EXIT_JOB_FAILED for rank 0 lost, seen from another rank; else -1.
 */
static int sim_ranks_leave(struct mrc_simrank *r, const char *cmd, int e)
{
	const char *why;
	int lost = r->size > 1 ? mrc_simrank_lost(r, &why) : -1;

	if (lost >= 0 && r->rank && !e)
		fprintf(stderr, "mrcgen: %s: rank %u: mpirun: %s%s\n", cmd, r->rank, why,
			lost ? "" : ": no report");
	mrc_simrank_leave(r); /* why goes with it */
	return lost == 0 && r->rank ? EXIT_JOB_FAILED : -1;
}

/*
 * The sim driver: in one process, or as the MPI ranks of one simulation when mpirun
 * started several (mrc_run_sim_ranks; MPI joined only then). Returns -1 with *@res set:
 * this process reports (one process, or rank 0, also after losing a rank: the report
 * names it); else the exit code (a setup error, said once, by rank 0; EXIT_OK for a rank
 * whose results went to rank 0, or that lost a rank other than 0, which it names;
 * EXIT_JOB_FAILED for a rank lost before the run, or rank 0 lost: no report).
 */
static int run_sim_ranks(const struct conf_job *job, struct mrc_run_result **res)
{
	struct mrc_simrank r;
	struct mrc_sim_comm c;
	char err[1024];
	int e = mrc_simrank_join(&r, err, sizeof(err)), ret;

	if (e) {
		fprintf(stderr, "mrcgen: run: %s\n", err);
		mrc_simrank_leave(&r);
		return EXIT_USAGE;
	}
	e = r.size > 1 ? mrc_simrank_comm(&r, &c) : 0;
	if (e)
		snprintf(err, sizeof(err), "mpirun: %s", strerror(-e));
	e = e ?: mrc_run_sim_ranks(job, r.size > 1 ? &c : NULL,
		    isatty(STDERR_FILENO) && !r.rank ? run_progress : NULL, NULL, res, err,
		    sizeof(err));
	if ((ret = sim_ranks_leave(&r, "run", e)) >= 0)
		return ret;
	if (e == -EALREADY || (e == -ECANCELED && r.rank))
		return EXIT_OK; /* rank 0 says why and exits 2: mpirun's status */
	if (e) {
		if (r.rank)
			fprintf(stderr, "mrcgen: run: rank %u: %s\n", r.rank, err);
		else
			fprintf(stderr, "mrcgen: run: %s\n", err);
		return e == -ECONNABORTED ? EXIT_JOB_FAILED : EXIT_USAGE;
	}
	/* a rank whose results went to rank 0 exits 0, interrupted or not: a non-zero status
	 * makes mpirun end rank 0 before it writes; rank 0's status says how the run ended */
	return *res ? -1 : EXIT_OK;
}

static int cmd_run(int argc, char **argv)
{
	struct conf_job job;
	struct mrc_run_result *res = NULL;
	struct mrc_wirerun_opts wo = { 0 };
	struct mrc_wirerun_rtt rtt = { 0 };
	uint32_t rank = 0;
	char err[1024];
	int ret = run_wire_opts("run", &argc, argv, &wo), e;

	ret = ret ?: load_job("run", argc, argv, &job);
	if (ret)
		return ret;
	/* each driver makes the output directory first thing (mrc_job_outdir), so an unusable
	 * one is known before the run, not after it; then the reporting process claims it
	 * with a stub report (mrc_job_outdir_claim), which the run's report replaces */
	mrc_job_report_stub = mrc_report_stub;
	catch_stop_signals();
	if (job.fabric.driver == CONF_DRIVER_WIRE) {
		e = mrc_run_wire(&job, &wo, &res, &rtt, &rank, err, sizeof(err));
		/* with res after an error: rank 0's report of what ran, the error in it */
		if (e && !res) {
			fprintf(stderr, "mrcgen: run: h%u: %s\n", rank, err);
			mrc_wirerun_end(); /* under a launcher: once rank 0 wrote its report */
			mrc_wirerun_rtt_free(&rtt);
			conf_free(&job);
			if (e == -EINTR && mrc_stop_signal)
				return 128 + mrc_stop_signal;
			return e == -ECONNABORTED || e == -ETIMEDOUT || e == -EPROTO ?
				EXIT_JOB_FAILED : EXIT_USAGE;
		}
		if (!res) {
			printf("mrcgen: run: h%u: done, results sent to h0\n", rank);
			fflush(stdout);
			mrc_wirerun_end();
			mrc_wirerun_rtt_free(&rtt);
			conf_free(&job);
			return EXIT_OK;
		}
	} else if (wo.host || wo.ports[0] || wo.rendezvous || wo.timeout_ms || wo.token_file ||
		   wo.bootstrap || wo.netns) {
		fprintf(stderr, "mrcgen: run: --host, --ports, --rendezvous, --timeout-ms, "
				"--token-file, --bootstrap and --netns need fabric.driver: wire, "
				"not '%s'\n",
			conf_name_of(conf_driver_names, job.fabric.driver));
		conf_free(&job);
		return EXIT_USAGE;
	} else {
		ret = run_sim_ranks(&job, &res);
		if (ret >= 0) {
			conf_free(&job);
			return ret;
		}
	}
	if (job.fabric.driver == CONF_DRIVER_WIRE)
		mrc_wirerun_rtt_to_result(&rtt, res);
	mrc_wirerun_rtt_free(&rtt);
	/* the files first: a histogram or report.json that could not be written is one of
	 * res's errors by the time the terminal report and its verdict are printed */
	e = mrc_report_write(&job, res);
	mrc_report_print(&job, res, stdout);
	mrc_report_print_problems(res, stderr);
	if (e && mrc_report_ok(res)) /* the error could not be recorded (no memory) */
		fprintf(stderr, "mrcgen: run: writing the outputs: %s\n", strerror(-e));
	ret = e ? EXIT_JOB_FAILED : mrc_report_ok(res) ? EXIT_OK : EXIT_JOB_FAILED;
	if (res->interrupted)
		ret = 128 + res->interrupted; /* as a shell reports a process the signal ended */
	if (job.fabric.driver == CONF_DRIVER_WIRE) {
		fflush(stdout);
		mrc_wirerun_end(); /* rank 0's outputs are written: the others may go */
	}
	mrc_run_result_free(res);
	conf_free(&job);
	return ret;
}

/* ---- sweep ---- */

/* Takes "--from FILE" out of argv into *@from; EXIT_USAGE when it has no value. */
static int sweep_from_opt(int *argc, char **argv, const char **from)
{
	int n = 0;

	for (int i = 0; i < *argc; i++) {
		const char *const opts[] = { "--from" };
		const char *val = NULL;
		int k = take_opt("sweep", *argc, argv, &i, opts, 1, &val);

		if (k == -2)
			return EXIT_USAGE;
		if (k == 0)
			*from = val;
		else
			argv[n++] = argv[i];
	}
	*argc = n;
	return EXIT_OK;
}

/* The -o/--out value of argv (the last one), or NULL: --from without a CONF. */
static const char *sweep_out_opt(int argc, char **argv)
{
	const char *dir = NULL;

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) && i + 1 < argc)
			dir = argv[++i];
		else if (!strncmp(argv[i], "--out=", 6))
			dir = argv[i] + 6;
	}
	return dir;
}

/* Writes the outputs into @dir (when given), prints the table; the exit status. */
static int sweep_finish(struct mrc_sweeprep *rep, double min_score, const char *dir,
	bool plots)
{
	char err[1024];
	int e = mrc_sweeprep_infer(rep, min_score), ret;

	if (e) {
		fprintf(stderr, "mrcgen: sweep: inference: %s\n", strerror(-e));
		return EXIT_JOB_FAILED;
	}
	rep->knobs.min_score = min_score;
	mrc_sweeprep_print(rep, stdout);
	ret = rep->n_suspects ? EXIT_JOB_FAILED : EXIT_OK;
	if (dir && mrc_sweeprep_write(rep, dir, plots, err, sizeof(err))) {
		fprintf(stderr, "mrcgen: sweep: %s\n", err);
		ret = EXIT_JOB_FAILED;
	}
	return ret;
}

/* The faults a sweep never fires (at_iteration past 0), said on stderr. */
static void sweep_unfired_faults(const struct conf_job *job)
{
	for (size_t f = 0; f < job->n_faults; f++)
		if (job->faults[f].has_at_iteration && job->faults[f].at_iteration > 0)
			fprintf(stderr, "mrcgen: sweep: faults[%zu] (%s at_iteration %u) never "
					"fires: a sweep has no iterations\n", f,
				job->faults[f].target, job->faults[f].at_iteration);
}

/* The exit status of a sweep that failed with @e (@sig: the signal that stopped it). */
static int sweep_failed(int e, int sig)
{
	if (e == -EINTR && sig)
		return 128 + sig; /* as a shell reports a process the signal ended */
	return e == -ECONNABORTED || e == -ETIMEDOUT || e == -EPROTO || e == -EIO ?
		EXIT_JOB_FAILED : EXIT_USAGE;
}

/*
 * The sim driver's sweep: in one process, or over the MPI ranks of one simulation when
 * mpirun started several (mrc_sweep_sim with the ranks' comm; MPI joined only then), as
 * run_sim_ranks runs a job. Returns -1 with *@sw set: this process reports (one process,
 * or rank 0); else the exit code (an error said once, by rank 0 or by the rank that
 * failed alone; EXIT_OK for a rank whose half went to rank 0, interrupted or not: a
 * non-zero status makes mpirun end rank 0 before it writes).
 */
static int sweep_sim_ranks(const struct conf_job *job, struct mrc_sweep **sw,
	uint64_t *dur_ps)
{
	struct mrc_simrank r;
	struct mrc_sim_comm c;
	char err[1024];
	int e, sig = 0, ret;

	/* before MPI_Init: once rank 0 runs, every rank is past it (it meets the others) */
	catch_stop_signals();
	e = mrc_simrank_join(&r, err, sizeof(err));
	if (e) {
		fprintf(stderr, "mrcgen: sweep: %s\n", err);
		mrc_simrank_leave(&r);
		return EXIT_USAGE;
	}
	if (!r.rank) /* said once */
		sweep_unfired_faults(job);
	e = r.size > 1 ? mrc_simrank_comm(&r, &c) : 0;
	if (e)
		snprintf(err, sizeof(err), "mpirun: %s", strerror(-e));
	e = e ?: mrc_sweep_sim(job, r.size > 1 ? &c : NULL, sw, dur_ps, &sig, err,
		    sizeof(err));
	if ((ret = sim_ranks_leave(&r, "sweep", e)) >= 0)
		return ret;
	if (e == -EALREADY || ((e == -ECANCELED || e == -EINTR) && r.rank))
		return EXIT_OK; /* rank 0 says why */
	if (e) {
		if (r.rank)
			fprintf(stderr, "mrcgen: sweep: rank %u: %s\n", r.rank, err);
		else
			fprintf(stderr, "mrcgen: sweep: %s\n", err);
		return sweep_failed(e, sig);
	}
	return *sw ? -1 : EXIT_OK;
}

static int cmd_sweep(int argc, char **argv)
{
	struct mrc_wirerun_opts wo = { 0 };
	struct mrc_sweeprep *rep = NULL;
	struct mrc_sweep *sw = NULL;
	struct conf_job job;
	const char *from = NULL;
	uint64_t dur_ps = 0;
	uint32_t rank = 0;
	char err[1024];
	int ret = sweep_from_opt(&argc, argv, &from), e;
	bool wire_opts;

	ret = ret ?: run_wire_opts("sweep", &argc, argv, &wo);
	if (ret)
		return ret;
	wire_opts = wo.host || wo.ports[0] || wo.rendezvous || wo.timeout_ms || wo.token_file;
	if (from) {
		const char *dir = NULL;
		double min_score;
		bool has_conf = false;

		for (int i = 1; i < argc; i++) {
			if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out") ||
				!strcmp(argv[i], "--set"))
				i++;
			else if (argv[i][0] != '-')
				has_conf = true;
		}
		if (wire_opts) {
			fprintf(stderr, "mrcgen: sweep: --from reads paths, it sends none: no "
					"--host, --ports, --rendezvous, --timeout-ms, --token-file\n");
			return EXIT_USAGE;
		}
		if (has_conf && (ret = load_job("sweep", argc, argv, &job)))
			return ret;
		if (mrc_sweeprep_load(from, &rep, err, sizeof(err))) {
			fprintf(stderr, "mrcgen: sweep: --from: %s\n", err);
			if (has_conf)
				conf_free(&job);
			return EXIT_USAGE;
		}
		min_score = has_conf ? job.sweep.min_score : rep->knobs.min_score;
		dir = has_conf ? job.output.dir : sweep_out_opt(argc, argv);
		if (has_conf && (e = mrc_job_outdir(&job, err, sizeof(err)))) {
			fprintf(stderr, "mrcgen: sweep: %s\n", err);
			ret = EXIT_USAGE;
		} else if (!has_conf && dir && mkdir(dir, 0755) && errno != EEXIST) {
			fprintf(stderr, "mrcgen: sweep: -o: %s: %s\n", dir, strerror(errno));
			ret = EXIT_USAGE;
		} else {
			ret = sweep_finish(rep, min_score, dir, has_conf ? job.output.plots : true);
		}
		mrc_sweeprep_free(rep);
		if (has_conf)
			conf_free(&job);
		return ret;
	}
	ret = load_job("sweep", argc, argv, &job);
	if (ret)
		return ret;
	if (job.fabric.driver != CONF_DRIVER_WIRE && wire_opts) {
		fprintf(stderr, "mrcgen: sweep: --host, --ports, --rendezvous, --timeout-ms and "
				"--token-file need fabric.driver: wire, not '%s'\n",
			conf_name_of(conf_driver_names, job.fabric.driver));
		conf_free(&job);
		return EXIT_USAGE;
	}
	if (job.fabric.driver != CONF_DRIVER_WIRE) {
		ret = sweep_sim_ranks(&job, &sw, &dur_ps);
		if (ret >= 0) {
			conf_free(&job);
			return ret;
		}
	} else {
		sweep_unfired_faults(&job);
		catch_stop_signals();
		e = mrc_sweep_wire(&job, &wo, &sw, &dur_ps, &rank, err, sizeof(err));
		if (e) {
			fprintf(stderr, "mrcgen: sweep: h%u: %s\n", rank, err);
			conf_free(&job);
			return sweep_failed(e, mrc_stop_signal);
		}
	}
	if (!sw) { /* a wire rank other than 0: its half went to h0 */
		printf("mrcgen: sweep: h%u: done, results sent to h0\n", rank);
		conf_free(&job);
		return EXIT_OK;
	}
	e = mrc_sweeprep_new(&job, sw, conf_name_of(conf_driver_names, job.fabric.driver),
		dur_ps, &rep);
	mrc_sweep_free(sw);
	if (e) {
		fprintf(stderr, "mrcgen: sweep: %s\n", strerror(-e));
		conf_free(&job);
		return EXIT_JOB_FAILED;
	}
	ret = sweep_finish(rep, job.sweep.min_score, job.output.dir, job.output.plots);
	mrc_sweeprep_free(rep);
	conf_free(&job);
	return ret;
}
