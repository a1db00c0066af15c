/* SPDX-License-Identifier: BSD-2-Clause */
/* mrcgen: MRC fabric testbed and traffic generator — the subcommand table and main(). */
#include "conf/conf.h"
#include "mrc/job.h"
#include "mrc/paths.h"
#include "mrc/st.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static int cmd_check(int argc, char **argv);
static int cmd_paths(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "check", "CONF [--set K=V]... [-o DIR]", "validate CONF, print the effective config as YAML",
		cmd_check },
	{ "paths", "CONF [--from H] [--to H] [--ev N] [--json]",
		"print the EV -> path table and the switches' static tables", cmd_paths },
	{ "selftest", "[MODULE|--list]", "run the built-in unit tests (all modules, or one)",
		cmd_selftest },
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
