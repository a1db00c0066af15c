/* SPDX-License-Identifier: BSD-2-Clause */
/* mrcgen: MRC fabric testbed and traffic generator — the subcommand table and main(). */
#include "mrc/bench.h"
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
static int cmd_bench(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "selftest", "[MODULE|--list]", "run the built-in unit tests (all modules, or one)",
		cmd_selftest },
	{ "bench", "[SCENARIO] [--queue heap|wheel]",
		"simulator performance scenarios (evq, fabric-128, fabric-1024)", cmd_bench },
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

static int cmd_bench(int argc, char **argv)
{
	const char *only = NULL, *queue = NULL;
	int err;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--queue") == 0 && i + 1 < argc)
			queue = argv[++i];
		else if (argv[i][0] != '-' && !only)
			only = argv[i];
		else {
			fprintf(stderr, "mrcgen: bench: bad argument '%s'\n", argv[i]);
			return EXIT_USAGE;
		}
	}
	err = mrc_bench_run(only, queue, stdout);
	if (err == -ENOENT) {
		fprintf(stderr, "mrcgen: bench: no scenario '%s'\n", only);
		return EXIT_USAGE;
	}
	if (err == -EINVAL) {
		fprintf(stderr, "mrcgen: bench: --queue: unknown queue '%s' (heap, wheel)\n",
			queue);
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
