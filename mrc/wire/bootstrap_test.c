/* SPDX-License-Identifier: BSD-2-Clause */
/* bootstrap_test: unit tests of mrc/wire/bootstrap.c (`mrcgen-test bootstrap`). */
#include "mrc/wire/bootstrap.c"
#include "mrc/base/st.h"

#include <signal.h>
#include <sys/wait.h>

/* ---- a rank 0 listening in this process, its clients in child processes ---- */

/* Rank 0 of a @nranks job: hash 0x1234, @timeout_ms, its rendezvous log in memory. */
struct t_rv {
	struct wr w;
	FILE *lf;
	char *log;
	size_t loglen;
};

static void t_rv_init(struct t_rv *t, uint32_t nranks, unsigned timeout_ms)
{
	memset(t, 0, sizeof(*t));
	t->w.nranks = nranks;
	t->w.hash = 0x1234;
	t->w.timeout_ns = timeout_ms * 1000000ull;
	t->w.hello_ns = WR_HELLO_NS;
	t->w.lfd = -1;
	t->w.n_conns = nranks;
	t->w.conns = calloc(nranks, sizeof(*t->w.conns));
	t->w.got = calloc(nranks, sizeof(bool));
	t->w.failed = calloc(nranks, sizeof(bool));
	t->w.result = calloc(nranks, sizeof(*t->w.result));
	for (uint32_t r = 0; r < nranks; r++)
		t->w.conns[r].fd = -1;
	t->lf = open_memstream(&t->log, &t->loglen);
	t->w.rvlog = t->lf;
}

/* The log so far (a NUL-terminated string). */
static const char *t_rv_log(struct t_rv *t)
{
	fflush(t->lf);
	return t->log ? t->log : "";
}

static void t_rv_free(struct t_rv *t)
{
	wr_rv_close(&t->w);
	free(t->w.conns);
	free(t->w.got);
	free(t->w.failed);
	free(t->w.result);
	fclose(t->lf);
	free(t->log);
}

/* Child: waits for a byte on @fd (a pipe; -1: no wait): the event it starts after. */
static void t_wait_pipe(int fd)
{
	char b;

	if (fd >= 0 && read(fd, &b, 1) != 1)
		_exit(3);
}

static void t_post_pipe(int fd)
{
	if (fd >= 0 && write(fd, "x", 1) != 1)
		_exit(3);
}

/*
 * Forks rank @rank joining @addr with @token (NULL: none) after a byte on @after (-1: at
 * once). The child exits 0 when wr_rv_join's result is @want_e (and, when @want_err is
 * non-NULL, its message contains it), then posts a byte to @done (-1: none).
 */
static pid_t t_joiner(const char *addr, uint32_t rank, uint32_t nranks, const char *token,
	int after, int done, int want_e, const char *want_err)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		struct rv_conn c = { .fd = -1 };
		struct wr w = { .rank = rank, .nranks = nranks, .hash = 0x1234, .lfd = -1,
			.timeout_ns = 5000000000ull, .conns = &c, .n_conns = 1 };
		char err[512] = "";
		int e;

		if (token) {
			w.token_len = strlen(token);
			memcpy(w.token, token, w.token_len);
		}
		t_wait_pipe(after);
		e = wr_rv_join(&w, addr, err, sizeof(err));
		t_post_pipe(done);
		if (e != want_e || (want_err && !strstr(err, want_err))) {
			fprintf(stderr, "joiner h%u: %d %s\n", rank, e, err);
			_exit(1);
		}
		_exit(0);
	}
}

/* Connects to unix socket @path, retrying while it does not exist yet (5 s at most). */
static int t_connect_unix(const char *path)
{
	struct sockaddr_un su = { .sun_family = AF_UNIX };

	snprintf(su.sun_path, sizeof(su.sun_path), "%s", path);
	for (int i = 0; i < 500; i++) {
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		if (!connect(fd, (struct sockaddr *)&su, sizeof(su)))
			return fd;
		close(fd);
		usleep(10000);
	}
	_exit(2);
}

/*
 * Forks a raw client of unix socket @path: connects, sends @n bytes of @b, posts a byte to
 * @connected, then reads until rank 0 closes the connection and posts a byte to @closed.
 */
static pid_t t_raw_client(const char *path, const void *b, size_t n, int connected, int closed)
{
	pid_t pid = fork();
	char buf[256];

	if (pid)
		return pid;
	int fd = t_connect_unix(path);

	if (n && send(fd, b, n, MSG_NOSIGNAL) != (ssize_t)n)
		_exit(2);
	t_post_pipe(connected);
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	t_post_pipe(closed);
	_exit(0);
}

/* Reaps @pid; returns its exit status (-1 when it did not exit normally). */
static int t_reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* A HELLO frame of @rank of 3 ranks with config hash @hash, no token. */
static size_t t_hello_frame(uint8_t *f, uint32_t rank, uint64_t hash)
{
	struct mrc_rv_hello h = { .version = MRC_WIRERUN_PROTO, .rank = rank, .nranks = 3,
		.hash = hash };
	int n = mrc_rv_hello_encode(&h, f + 5, 64);

	put_be32(f, (uint32_t)n + 1);
	f[4] = RV_HELLO;
	return (size_t)n + 5;
}

/* A unix socket path in a fresh directory under /tmp. */
static void t_sock_path(char *path, size_t len, char *dir, size_t dlen)
{
	snprintf(dir, dlen, "/tmp/mrcgen-rvtest-XXXXXX");
	if (!mkdtemp(dir))
		dir[0] = 0;
	snprintf(path, len, "unix:%s/rv.sock", dir);
}

static void t_rm_dir(const char *dir)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/rv.sock", dir);
	unlink(p);
	rmdir(dir);
}

/* A TCP port on 127.0.0.1 that was free a moment ago. */
/*
 * Ends a case: rank 0's listener, then each forked client of @kids (up to a 0), which
 * must have exited 0, the pipe @p (NULL: none) and the socket directory @dir.
 */
static void t_case_end(struct mrc_st *st, struct t_rv *t, const pid_t *kids, int *p,
	const char *dir)
{
	t_rv_free(t);
	for (; *kids; kids++)
		ST_EQ_I(st, t_reap(*kids), 0);
	if (p) {
		close(p[0]);
		close(p[1]);
	}
	t_rm_dir(dir);
}

static unsigned t_free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned port = 0;

	if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
		!getsockname(fd, (struct sockaddr *)&sa, &sl))
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

MRC_SELFTEST(bootstrap_rv)
{
	struct t_rv t;
	char addr[128], dir[64], err[512];
	int p1[2], p2[2];
	uint8_t frame[128];
	size_t n;
	pid_t c1, c2, c3;
	uint64_t t0;
	struct stat sb;

	signal(SIGPIPE, SIG_IGN);

	mrc_st_case(st, "an idle client connected first does not stop a 3-rank rendezvous");
	t_rv_init(&t, 3, 10000);
	t_sock_path(addr, sizeof(addr), dir, sizeof(dir));
	ST_EQ_I(st, pipe(p1), 0);
	c1 = t_raw_client(addr + 5, NULL, 0, p1[1], -1);
	c2 = t_joiner(addr, 1, 3, NULL, p1[0], -1, 0, NULL);
	c3 = t_joiner(addr, 2, 3, NULL, -1, -1, 0, NULL);
	t0 = wr_mono_ns();
	ST_EQ_I(st, wr_rv_listen(&t.w, addr, err, sizeof(err)), 0);
	/* both ranks in well before the 10 s job timeout or the 5 s HELLO deadline */
	ST_TRUE(st, wr_mono_ns() - t0 < 4000000000ull);
	ST_TRUE(st, t.w.conns[1].fd >= 0 && t.w.conns[2].fd >= 0);
	ST_TRUE(st, strstr(t_rv_log(&t), ": every rank joined before its HELLO") != NULL);
	ST_TRUE(st, strstr(t_rv_log(&t), "mrcgen: h0: rendezvous: dropped pid ") != NULL);

	mrc_st_case(st, "the unix socket is mode 0600 (owner read and write only)");
	ST_EQ_I(st, stat(addr + 5, &sb), 0);
	ST_EQ(st, sb.st_mode & 07777, 0600);
	ST_TRUE(st, S_ISSOCK(sb.st_mode));
	t_case_end(st, &t, (pid_t[]){c1, c2, c3, 0}, p1, dir);

	mrc_st_case(st, "a forged HELLO (rank 1, wrong config hash) is dropped, the job goes on");
	t_rv_init(&t, 3, 10000);
	t_sock_path(addr, sizeof(addr), dir, sizeof(dir));
	ST_EQ_I(st, pipe(p1), 0);
	n = t_hello_frame(frame, 1, 0x9999);
	ST_EQ(st, n, 27); /* 4 length + 1 type + 22 HELLO bytes without a token */
	c1 = t_raw_client(addr + 5, frame, n, p1[1], -1);
	c2 = t_joiner(addr, 1, 3, NULL, p1[0], -1, 0, NULL);
	c3 = t_joiner(addr, 2, 3, NULL, -1, -1, 0, NULL);
	ST_EQ_I(st, wr_rv_listen(&t.w, addr, err, sizeof(err)), 0);
	ST_TRUE(st, t.w.conns[1].fd >= 0 && t.w.conns[2].fd >= 0);
	ST_TRUE(st, strstr(t_rv_log(&t), ": config hash mismatch: h1 runs 0x0000000000009999, "
			   "rank 0 runs 0x0000000000001234") != NULL);
	ST_EQ(st, t.w.rv_dropped, 1);
	t_case_end(st, &t, (pid_t[]){c1, c2, c3, 0}, p1, dir);

	mrc_st_case(st, "a 60 MiB length prefix is refused at once, the job goes on");
	t_rv_init(&t, 2, 10000);
	t_sock_path(addr, sizeof(addr), dir, sizeof(dir));
	ST_EQ_I(st, pipe(p1), 0);
	put_be32(frame, 60u << 20);
	frame[4] = RV_HELLO;
	memset(frame + 5, 0xab, 64);
	/* rank 1 starts once rank 0 closed the hostile connection: refused, not waited out */
	c1 = t_raw_client(addr + 5, frame, 69, -1, p1[1]);
	c2 = t_joiner(addr, 1, 2, NULL, p1[0], -1, 0, NULL);
	t0 = wr_mono_ns();
	ST_EQ_I(st, wr_rv_listen(&t.w, addr, err, sizeof(err)), 0);
	ST_TRUE(st, wr_mono_ns() - t0 < 4000000000ull);
	/* 60 << 20 = 62914560 */
	ST_TRUE(st, strstr(t_rv_log(&t), ": a 62914560-byte frame before its HELLO (at most "
			   "512)") != NULL);
	t_case_end(st, &t, (pid_t[]){c1, c2, 0}, p1, dir);

	mrc_st_case(st, "a HELLO not complete within its deadline is dropped; rank 1 then joins");
	t_rv_init(&t, 2, 10000);
	t.w.hello_ns = 200000000ull; /* 200 ms */
	t_sock_path(addr, sizeof(addr), dir, sizeof(dir));
	ST_EQ_I(st, pipe(p1), 0);
	n = t_hello_frame(frame, 1, 0x1234);
	c1 = t_raw_client(addr + 5, frame, 10, -1, p1[1]); /* 10 of its 27 bytes */
	c2 = t_joiner(addr, 1, 2, NULL, p1[0], -1, 0, NULL);
	ST_EQ_I(st, wr_rv_listen(&t.w, addr, err, sizeof(err)), 0);
	ST_TRUE(st, strstr(t_rv_log(&t), ": no complete HELLO within 200 ms") != NULL);
	t_case_end(st, &t, (pid_t[]){c1, c2, 0}, p1, dir);

	mrc_st_case(st, "the timeout names the ranks without a valid HELLO: 2 of 4, ranks 2, 3");
	t_rv_init(&t, 4, 1000);
	t_sock_path(addr, sizeof(addr), dir, sizeof(dir));
	ST_EQ_I(st, pipe(p1), 0);
	c1 = t_raw_client(addr + 5, NULL, 0, p1[1], -1); /* idle, connected first */
	c2 = t_joiner(addr, 1, 4, NULL, p1[0], -1, 0, NULL);
	ST_EQ_I(st, wr_rv_listen(&t.w, addr, err, sizeof(err)), -ETIMEDOUT);
	ST_TRUE(st, strstr(err, "rendezvous: 2 of 4 ranks joined within 1000 ms; ranks 2, 3 "
			   "did not join (1 connections dropped, named above)") != NULL);
	ST_TRUE(st, !t.w.failed[1] && t.w.failed[2] && t.w.failed[3]);
	/* the idle client: its HELLO deadline or the job's, whichever the poll saw first */
	ST_TRUE(st, strstr(t_rv_log(&t), "mrcgen: h0: rendezvous: dropped pid ") != NULL);
	ST_EQ(st, t.w.rv_dropped, 1);
	t_case_end(st, &t, (pid_t[]){c1, c2, 0}, p1, dir);

	mrc_st_case(st, "SIGINT while rank 0 waits for its ranks: it stops at once, saying so");
	t_rv_init(&t, 2, 10000);
	t_sock_path(addr, sizeof(addr), dir, sizeof(dir));
	mrc_stop_signal = SIGINT;
	t0 = wr_mono_ns();
	ST_EQ_I(st, wr_rv_listen(&t.w, addr, err, sizeof(err)), -EINTR);
	mrc_stop_signal = 0;
	ST_TRUE(st, wr_mono_ns() - t0 < 4000000000ull); /* not the 10 s timeout */
	ST_EQ_STR(st, err, "rendezvous: interrupted by SIGINT");
	t_rv_free(&t);
	t_rm_dir(dir);

	mrc_st_case(st, "TCP with a job token: a wrong or missing token is dropped, rank 1 joins");
	t_rv_init(&t, 2, 10000);
	memcpy(t.w.token, "s3cret", 6);
	t.w.token_len = 6;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", t_free_port());
	ST_EQ_I(st, pipe(p1), 0);
	ST_EQ_I(st, pipe(p2), 0);
	/* the impostors are refused with the reason; the real rank 1 comes after both */
	c1 = t_joiner(addr, 1, 2, "s3cres", -1, p1[1], -EPROTO, "refused by rank 0: wrong job "
		      "token");
	c2 = t_joiner(addr, 1, 2, NULL, p1[0], p2[1], -EPROTO, "refused by rank 0: no job token");
	c3 = t_joiner(addr, 1, 2, "s3cret", p2[0], -1, 0, NULL);
	ST_EQ_I(st, wr_rv_listen(&t.w, addr, err, sizeof(err)), 0);
	ST_TRUE(st, t.w.conns[1].fd >= 0);
	ST_EQ(st, t.w.rv_dropped, 2);
	ST_TRUE(st, strstr(t_rv_log(&t), "mrcgen: h0: rendezvous: dropped 127.0.0.1:") != NULL);
	ST_TRUE(st, strstr(t_rv_log(&t), ": wrong job token (MRCGEN_JOB_TOKEN or --token-file, "
			   "the same on every rank)") != NULL);
	t_rv_free(&t);
	ST_EQ_I(st, t_reap(c1), 0);
	ST_EQ_I(st, t_reap(c2), 0);
	ST_EQ_I(st, t_reap(c3), 0);
	for (int i = 0; i < 2; i++) {
		close(p1[i]);
		close(p2[i]);
	}
}

/* ---- selftest ---- */

/* Saves the @n environment variables @vars into @saved and unsets them; with @restore,
 * puts them back as they were instead (and frees @saved). */
static void t_env(const char *const *vars, char **saved, int n, bool restore)
{
	for (int i = 0; i < n; i++) {
		const char *v = getenv(vars[i]);

		if (restore && saved[i])
			setenv(vars[i], saved[i], 1);
		else
			unsetenv(vars[i]);
		if (restore)
			free(saved[i]);
		else
			saved[i] = v ? strdup(v) : NULL;
	}
}


MRC_SELFTEST(bootstrap)
{
	static const char *const vars[] = { "SLURM_PROCID", "SLURM_NTASKS",
		"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE" };
	char *saved[6], err[256], path[108];
	struct sockaddr_storage ss;
	struct conf_job a, b;
	socklen_t sl;
	uint64_t ha = 0, hb = 0, ha2 = 0;
	uint32_t r = 99;

	t_env(vars, saved, 6, false);
	mrc_st_case(st, "rank from --host: h3 of 4 is 3; h4 and h03 are refused");
	ST_EQ_I(st, mrc_wirerun_rank("h3", 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 3);
	ST_EQ_I(st, mrc_wirerun_rank("h4", 4, &r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "'h4' takes no part: the job has 4 ranks (h0..h3)") != NULL);
	ST_EQ_I(st, mrc_wirerun_rank("h03", 4, &r, err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, mrc_wirerun_rank("x1", 4, &r, err, sizeof(err)), -EINVAL);

	mrc_st_case(st, "rank from the launcher: Slurm first, then Open MPI, then PMI");
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), -ENOENT);
	setenv("PMI_RANK", "1", 1);
	setenv("PMI_SIZE", "4", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 1);
	setenv("OMPI_COMM_WORLD_RANK", "2", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 2);
	setenv("SLURM_PROCID", "0", 1);
	setenv("SLURM_NTASKS", "8", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "SLURM_NTASKS: the launcher starts '8' processes") != NULL);
	setenv("SLURM_NTASKS", "4", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 0);
	ST_EQ_I(st, mrc_wirerun_rank("h3", 4, &r, err, sizeof(err)), 0); /* --host wins */
	ST_EQ(st, r, 3);
	t_env(vars, saved, 6, true);

	mrc_st_case(st, "config hash: equal for equal configs, differs with the seed");
	ST_EQ_I(st, conf_load_string("seed: 1\n", 8, "a", NULL, 0, &a, err, sizeof(err)), 0);
	ST_EQ_I(st, conf_load_string("seed: 2\n", 8, "b", NULL, 0, &b, err, sizeof(err)), 0);
	ST_EQ_I(st, mrc_wirerun_conf_hash(&a, &ha), 0);
	ST_EQ_I(st, mrc_wirerun_conf_hash(&a, &ha2), 0);
	ST_EQ_I(st, mrc_wirerun_conf_hash(&b, &hb), 0);
	ST_EQ(st, ha, ha2);
	ST_TRUE(st, ha != hb);
	conf_free(&a);
	conf_free(&b);

	mrc_st_case(st, "bootstrap: auto takes PMIx under a launcher, the rendezvous when manual");
	{
		static const char *const pv[] = { "PMIX_RANK", "PMIX_NAMESPACE",
			"MRCGEN_RENDEZVOUS" };
		char *ps[3];
		struct mrc_wirerun_opts o = { 0 };

		t_env(pv, ps, 3, false);
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_RENDEZVOUS);
		setenv("PMIX_RANK", "1", 1);
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_RENDEZVOUS); /* no nspace */
		setenv("PMIX_NAMESPACE", "1234", 1);
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_PMIX);
		o.host = "h1";
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_RENDEZVOUS);
		o.host = NULL;
		o.rendezvous = "unix:rv.sock";
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_RENDEZVOUS);
		o.rendezvous = NULL;
		o.token_file = "tok";
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_RENDEZVOUS);
		o.token_file = NULL;
		setenv("MRCGEN_RENDEZVOUS", "node0:7000", 1);
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_RENDEZVOUS);
		o.bootstrap = MRC_WIRERUN_BOOT_PMIX; /* asked for: taken as is */
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_PMIX);
		unsetenv("PMIX_RANK");
		unsetenv("PMIX_NAMESPACE");
		o.bootstrap = MRC_WIRERUN_BOOT_RENDEZVOUS;
		ST_EQ(st, mrc_wirerun_boot_pick(&o), MRC_WIRERUN_BOOT_RENDEZVOUS);
		t_env(pv, ps, 3, true);
	}

	mrc_st_case(st, "rendezvous addresses: unix path, host:port, [v6]:port, refusals");
	ST_EQ_I(st, rv_addr("unix:rv.sock", &ss, &sl, path, err, sizeof(err)), 0);
	ST_EQ(st, ss.ss_family, AF_UNIX);
	ST_TRUE(st, strcmp(path, "rv.sock") == 0);
	ST_EQ_I(st, rv_addr("127.0.0.1:7000", &ss, &sl, path, err, sizeof(err)), 0);
	ST_EQ(st, ss.ss_family, AF_INET);
	ST_EQ(st, ntohs(((struct sockaddr_in *)&ss)->sin_port), 7000);
	ST_EQ(st, path[0], 0);
	ST_EQ_I(st, rv_addr("[::1]:7001", &ss, &sl, path, err, sizeof(err)), 0);
	ST_EQ(st, ss.ss_family, AF_INET6);
	ST_EQ(st, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 7001);
	ST_EQ_I(st, rv_addr("::1:7001", &ss, &sl, path, err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, rv_addr("nohostport", &ss, &sl, path, err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, rv_addr("unix:", &ss, &sl, path, err, sizeof(err)), -EINVAL);

	mrc_st_case(st, "a timeout names the ranks missing (a set's: rank 0 too), never fails 0");
	{
		struct wr w = { .rank = 0, .nranks = 4 };
		bool failed[4] = { false }, got[4] = { false, true, false, false };
		bool in[4] = { true, true, false, true };

		w.failed = failed;
		w.got = got;
		wr_fail(&w, -ETIMEDOUT, "x");
		wr_name_missing(&w);
		ST_TRUE(st, !strcmp(w.errmsg, "x from h2 h3"));
		ST_TRUE(st, !failed[0] && !failed[1] && failed[2] && failed[3]);
		/* a job's barrier among h0, h1, h3: rank 0 named (its own part), never failed */
		memset(failed, 0, sizeof(failed));
		wr_name_missing_of(&w, "; job a", got, in);
		ST_TRUE(st, !strcmp(w.errmsg, "x from h2 h3; job a from h0 h3"));
		ST_TRUE(st, !failed[0] && !failed[1] && !failed[2] && failed[3]);
	}
}
