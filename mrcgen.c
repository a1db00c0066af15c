/* SPDX-License-Identifier: BSD-2-Clause */
/* mrcgen: MRC fabric testbed and traffic generator — the subcommand table and main(). */
#include "conf/conf.h"
#include "mrc/bench.h"
#include "mrc/hist.h"
#include "mrc/sim.h"
#include "mrc/job.h"
#include "mrc/paths.h"
#include "mrc/report.h"
#include "mrc/run.h"
#include "mrc/st.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef MRCGEN_VERSION
#define MRCGEN_VERSION "0.1.0"
#endif

/* Exit codes: documented in the README and in `mrcgen help`. */
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
static int cmd_selftest(int argc, char **argv);
static int cmd_bench(int argc, char **argv);
static int cmd_check(int argc, char **argv);
static int cmd_paths(int argc, char **argv);
static int cmd_run(int argc, char **argv);
static int cmd_hist(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "run", "CONF [--set K=V]... [-o DIR]",
		"run the job: collective traffic over MRC, faults, pcaps, histograms, report",
		cmd_run },
	{ "check", "CONF [--set K=V]... [-o DIR]", "validate CONF, print the effective config as YAML",
		cmd_check },
	{ "paths", "CONF [--from H] [--to H] [--ev N] [--json]",
		"print the EV -> path table and the switches' static tables", cmd_paths },
	{ "selftest", "[MODULE|--list]", "run the built-in unit tests (all modules, or one)",
		cmd_selftest },
	{ "hist", "[OPTIONS] [FILE]", "histogram of numbers (one a line) -> .hgrm / .hlog",
		cmd_hist },
	{ "bench", "[SCENARIO] [--queue Q]",
		"simulator performance figures (evq, fabric-128, fabric-1k)", cmd_bench },
	{ "version", "", "print the version", cmd_version },
	{ "help", "", "this text", cmd_help },
};

#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: mrcgen COMMAND [ARGS]\n\n"
		   "MRC (Multipath Reliable Connection) fabric testbed and traffic generator.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < N_CMDS; i++) {
		char head[64];

		snprintf(head, sizeof(head), "%s %s", cmds[i].name, cmds[i].args);
		fprintf(f, "  %-28s %s\n", head, cmds[i].summary);
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

static int cmd_selftest(int argc, char **argv)
{
	const char *only = NULL;
	int failed;

	if (argc > 2) {
		fprintf(stderr, "mrcgen: selftest: too many arguments\n");
		return EXIT_USAGE;
	}
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		mrc_st_list();
		return EXIT_OK;
	}
	if (argc == 2)
		only = argv[1];
	failed = mrc_st_run(only);
	if (failed == -ENOENT) {
		fprintf(stderr, "mrcgen: selftest: no module '%s' (see: mrcgen selftest --list)\n",
			only);
		return EXIT_USAGE;
	}
	return failed ? EXIT_JOB_FAILED : EXIT_OK;
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

static int hist_read(FILE *in, const char *name, struct mrc_hist *h)
{
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	int err = 0;

	while (getline(&line, &cap, in) >= 0) {
		char *p = line, *end;
		long long v;

		lineno++;
		p += strspn(p, " \t");
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '\0' || *p == '#')
			continue;
		errno = 0;
		v = strtoll(p, &end, 10);
		end += strspn(end, " \t");
		if (end == p || *end || errno || v < 0) {
			fprintf(stderr, "mrcgen: hist: %s:%ld: not a non-negative integer '%s'\n",
				name, lineno, p);
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
	double start = -1, length = 0;
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
		if (end == p || errno || (*end && *end != ',') || !(v >= 0) || v > 100 ||
		    n_pcts == MRC_HIST_SUMMARY_MAX_PCT) {
			fprintf(stderr, "mrcgen: hist: --percentiles: want up to %d numbers in "
					"0..100, comma-separated, at '%s'\n",
				MRC_HIST_SUMMARY_MAX_PCT, p);
			return EXIT_USAGE;
		}
		pcts[n_pcts++] = v;
		p = *end ? end + 1 : end;
	}
	if (!(ratio > 0) || ticks < 1 || ticks > 1000 || ticks != floor(ticks)) {
		fprintf(stderr, "mrcgen: hist: --unit-ratio must be > 0 and --ticks 1..1000\n");
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
		if (start < 0) {
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
	return err ? (err == -EINVAL || err == -ENOENT ? EXIT_USAGE : EXIT_JOB_FAILED) : EXIT_OK;
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
	if (a.n_rest != 1) {
		fprintf(stderr, "mrcgen: %s: expected one config file, got %zu arguments\n", cmd,
			a.n_rest);
		conf_args_free(&a);
		return EXIT_USAGE;
	}
	ret = conf_load(a.rest[0], a.sets, a.n_sets, job, err, sizeof(err));
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

static int cmd_bench(int argc, char **argv)
{
	const char *only = NULL, *queue = NULL;
	int err;

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
	if (err == -ENOENT) {
		fprintf(stderr, "mrcgen: bench: no scenario '%s'\n", only);
		return EXIT_USAGE;
	}
	if (err) {
		fprintf(stderr, "mrcgen: bench: %s\n", strerror(-err));
		return EXIT_JOB_FAILED;
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		exit(EXIT_USAGE);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		exit(cmd_help(argc - 1, argv + 1));
	if (strcmp(argv[1], "--version") == 0)
		exit(cmd_version(argc - 1, argv + 1));
	for (size_t i = 0; i < N_CMDS; i++) {
		if (strcmp(argv[1], cmds[i].name) == 0)
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

static int cmd_run(int argc, char **argv)
{
	struct conf_job job;
	struct mrc_run_result *res = NULL;
	char err[1024];
	int ret = load_job("run", argc, argv, &job), e;

	if (ret)
		return ret;
	if (job.fabric.driver != CONF_DRIVER_SIM) {
		fprintf(stderr, "mrcgen: run: fabric.driver: '%s' is not available in this build; "
				"use 'sim'\n", conf_name_of(conf_driver_names, job.fabric.driver));
		conf_free(&job);
		return EXIT_USAGE;
	}
	e = mrc_run_sim(&job, isatty(STDERR_FILENO) ? run_progress : NULL, NULL, &res, err,
		sizeof(err));
	if (e) {
		fprintf(stderr, "mrcgen: run: %s\n", err);
		conf_free(&job);
		return EXIT_USAGE;
	}
	mrc_report_print(&job, res, stdout);
	e = mrc_report_write(&job, res, err, sizeof(err));
	if (e)
		fprintf(stderr, "mrcgen: run: %s\n", err);
	ret = e ? EXIT_JOB_FAILED : mrc_report_ok(res) ? EXIT_OK : EXIT_JOB_FAILED;
	mrc_run_result_free(res);
	conf_free(&job);
	return ret;
}
