/* SPDX-License-Identifier: BSD-2-Clause */
/* mrcgen: MRC fabric testbed and traffic generator — the subcommand table and main(). */
#include "conf/conf.h"
#include "mrc/job.h"
#include "mrc/paths.h"
#include "mrc/st.h"
#include "mrc/wping.h"

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
static int cmd_wire_ping(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "check", "CONF [--set K=V]... [-o DIR]", "validate CONF, print the effective config as YAML",
		cmd_check },
	{ "paths", "CONF [--from H] [--to H] [--ev N] [--json]",
		"print the EV -> path table and the switches' static tables", cmd_paths },
	{ "wire-ping", "CONF --host H --to H [--ev N] [--ports IF,..] [--netns NS] [--peer-netns NS]",
		"send one MRC PROBE per EV over raw sockets, check each arrives", cmd_wire_ping },
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
		const char *opt = argv[i], *val;
		size_t k;

		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (strcmp(opt, opts[k]) == 0)
				break;
		if (i == 0 || k == sizeof(opts) / sizeof(opts[0])) {
			rest[n++] = argv[i];
			continue;
		}
		if (i + 1 == argc) {
			fprintf(stderr, "mrcgen: wire-ping: %s: missing value\n", opt);
			goto usage;
		}
		val = argv[++i];
		if (k <= 1) {
			int64_t h = paths_host(val);

			if (h < 0) {
				fprintf(stderr, "mrcgen: wire-ping: %s: not a host name (h0, h1, ...) "
						"'%s'\n", opt, val);
				goto usage;
			}
			*(k == 0 ? &o.src : &o.dst) = (uint32_t)h;
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
	if (ports) {
		size_t p = 0;

		for (char *tok = strtok(ports, ","); tok; tok = strtok(NULL, ",")) {
			if (p == MRC_WPING_MAX_PLANES) {
				fprintf(stderr, "mrcgen: wire-ping: --ports: more than %d names\n",
					MRC_WPING_MAX_PLANES);
				goto usage;
			}
			o.ports[p++] = tok;
		}
	}
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
