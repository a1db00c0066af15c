/* SPDX-License-Identifier: BSD-2-Clause */
/* bench: event-queue and fabric scenarios measured in wall time (never in tests). */
#include "mrc/sim/bench.h"
#include "mrc/base/rng.h"
#include "mrc/base/bytes.h"
#include "mrc/sim/fabric.h"
#include "mrc/sim/sim.h"
#include "mrc/engine/srv6.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process: steadier than wall time on a shared machine. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* ---- peak RSS of a child: its own VmHWM (mrc_bench_child_init) --------------------- */

#define HWM_ENV "MRCGEN_BENCH_HWM"

static char hwm_path[4096];

/* VmHWM of /proc/self/status in KiB, or -1. */
static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static void hwm_at_exit(void)
{
	long kb = vm_hwm_kb();
	FILE *f;

	/* appended: the MPI ranks of one run each add a line (O_APPEND: whole lines) */
	if (kb < 0 || !(f = fopen(hwm_path, "a")))
		return;
	fprintf(f, "%ld\n", kb);
	fclose(f);
}

void mrc_bench_child_init(void)
{
	const char *p = getenv(HWM_ENV);
	bool ok = p && *p && strlen(p) < sizeof(hwm_path);

	if (ok)
		strcpy(hwm_path, p);
	unsetenv(HWM_ENV); /* not for the processes this one starts (gnuplot) */
	if (ok)
		atexit(hwm_at_exit);
}

/* The peak RSS a child wrote to @path (then removed; the largest of its MPI ranks'), else
 * @fallback (its ru_maxrss). */
static long child_hwm_kb(const char *path, long fallback)
{
	long kb = -1, v;
	FILE *f = fopen(path, "r");

	if (f) {
		while (fscanf(f, "%ld", &v) == 1)
			if (v > kb)
				kb = v;
		fclose(f);
	}
	remove(path);
	return kb > 0 ? kb : fallback;
}

/* ---- event queue: the classic hold model ------------------------------------------- */

struct hold {
	struct mrc_sim *sim;
	struct mrc_rng rng;
	uint64_t left;
	int kind;
};

/* Each event schedules one more at now + U(0, 2 us) until the budget is spent, the mix
 * of serialization and propagation delays a fabric produces. */
static void hold_fn(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct hold *h = ctx;

	(void)obj;
	if (h->left) {
		h->left--;
		mrc_sim_at(h->sim, now + mrc_rng_below(&h->rng, 2000000), (unsigned)h->kind, NULL,
			arg);
	}
}

static int bench_evq(FILE *out)
{
	static const size_t sizes[] = {1000, 64000, 1000000};
	static const enum mrc_simq qs[] = {MRC_SIMQ_HEAP, MRC_SIMQ_WHEEL};

	fprintf(out, "%-12s %-6s %9s %12s %9s %9s %14s\n", "scenario", "queue", "pending", "events",
		"wall_s", "cpu_s", "events/cpu-s");
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		for (size_t qi = 0; qi < 2; qi++) {
			struct mrc_sim_params sp = {.queue = qs[qi]};
			struct hold h = {.left = 4000000};
			double t0, c0;
			uint64_t ran;

			if (mrc_sim_new(&sp, &h.sim))
				return -ENOMEM;
			h.kind = mrc_sim_handler(h.sim, hold_fn, &h);
			mrc_rng_seed(&h.rng, 1);
			for (size_t i = 0; i < sizes[si]; i++)
				mrc_sim_at(h.sim, mrc_rng_below(&h.rng, 2000000), (unsigned)h.kind,
					NULL, i);
			t0 = wall_s();
			c0 = cpu_s();
			ran = mrc_sim_run(h.sim, MRC_SIM_NEVER);
			t0 = wall_s() - t0;
			c0 = cpu_s() - c0;
			fprintf(out, "%-12s %-6s %9zu %12llu %9.3f %9.3f %14.0f\n", "evq",
				mrc_simq_name(qs[qi]), sizes[si], (unsigned long long)ran, t0, c0,
				(double)ran / c0);
			mrc_sim_free(h.sim);
		}
	}
	return 0;
}

/* ---- fabric: synthetic sprayed all-to-all ------------------------------------------ */

/*
 * Synthetic hosts (no engine): every NIC port sends @pkts packets of 4096 B payload at
 * line rate; packet i of host h goes to host (h + 1 + i) mod H, on a spine drawn from a
 * seeded PRNG (spraying), as WRITE_MIDDLE under outer IPv6 / inner IPv6 / UDP / BTH.
 * Headers are written per packet; the payload is gathered from one shared zero buffer
 * (mrc_wire_gather), as the real hosts gather theirs from the registered memory, so the
 * fabric's pool holds headers only, as in a real job. A port keeps at most @window
 * packets in flight and learns of deliveries by an oracle ack, standing in for
 * congestion control.
 */
struct synth {
	struct mrc_fabric *fab;
	struct mrc_srv6_plan *plan;
	uint32_t block[16]; /* [plane]: mrc_srv6_plane_block */
	unsigned planes, t0, t1, hpt, hosts;
	uint32_t pkts;
	uint32_t *sent;	    /* [host * planes + plane] */
	uint16_t *inflight; /* [host * planes + plane]: sent, not yet delivered */
	uint32_t window;    /* packets in flight per NIC port */
	struct mrc_rng rng;
	uint16_t *u_t0, *u_t1, *u_port;
	struct mrc_ip6 *addr;
	uint64_t rx_pkts, rx_trimmed;
};

#define SYN_PAY 4096
#define SYN_HLEN (40 + 40 + 8 + 12 + 4 + 16)
#define SYN_LEN (SYN_HLEN + SYN_PAY + 4)

static const uint8_t syn_zeros[SYN_PAY]; /* every packet's payload */

static size_t syn_tx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *b,
	size_t cap, struct mrc_wire_gather *g)
{
	struct synth *s = ctx;
	uint32_t *n = &s->sent[host * s->planes + plane], dst, len = SYN_LEN;
	uint32_t rs = host / s->hpt, rd, j;
	uint8_t *in = b + 40;

	(void)now;
	if (*n == s->pkts || cap < SYN_HLEN || s->inflight[host * s->planes + plane] >= s->window)
		return 0;
	s->inflight[host * s->planes + plane]++;
	dst = (host + 1 + *n % (s->hosts - 1)) % s->hosts;
	rd = dst / s->hpt;
	j = (uint32_t)mrc_rng_below(&s->rng, s->t1);
	/* outer IPv6: TC ECT(0), next header 41, DA = uSID container */
	b[0] = 0x60, b[1] = 0x20, b[2] = 0, b[3] = 0;
	put_be16(b + 4, (uint16_t)(len - 40));
	b[6] = 41, b[7] = 64;
	memcpy(b + 8, s->addr[plane * s->hosts + host].b, 16);
	put_be32(b + 24, s->block[plane]);
	memset(b + 28, 0, 12);
	put_be16(b + 28, s->u_t0[plane * s->t0 + rs]);
	if (rs == rd) {
		put_be16(b + 30, s->u_port[plane * s->hosts + dst]);
	} else {
		put_be16(b + 30, s->u_t1[plane * s->t1 + j]);
		put_be16(b + 32, s->u_t0[plane * s->t0 + rd]);
		put_be16(b + 34, s->u_port[plane * s->hosts + dst]);
	}
	memcpy(in, b, 8);
	put_be16(in + 4, (uint16_t)(len - 80));
	in[6] = 17;
	memcpy(in + 8, s->addr[plane * s->hosts + host].b, 16);
	memcpy(in + 24, s->addr[plane * s->hosts + dst].b, 16);
	put_be16(b + 80, (uint16_t)(0xC000 | j));
	put_be16(b + 82, 4791);
	put_be16(b + 84, (uint16_t)(len - 80));
	put_be16(b + 86, 0);
	b[88] = 0xC7;
	put_be24(b + 88 + 5, host * s->planes + plane); /* DestQP: the sender, for the oracle ack */
	put_be24(b + 88 + 9, *n);
	(*n)++;
	g->hlen = SYN_HLEN;
	g->payload = syn_zeros;
	g->payload_len = SYN_PAY;
	return len;
}

static void syn_rx(
	void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len, uint64_t now)
{
	struct synth *s = ctx;
	uint32_t src = get_be24(buf + 88 + 5);

	(void)host, (void)plane, (void)now;
	s->rx_pkts++;
	s->rx_trimmed += len < SYN_LEN;
	/* oracle ack: the sender learns of the delivery at once (no ACK packets) */
	if (src < s->hosts * s->planes && s->inflight[src]-- == s->window)
		mrc_fabric_kick(s->fab, src / s->planes, src % s->planes);
}

/* @plane_bits: the plan's usid_plane_bits (4, docs/wire-format.md's default; 0 above 1023
 * hosts). */
static int bench_fabric(FILE *out, const char *name, unsigned planes, unsigned t0, unsigned t1,
	unsigned hpt, unsigned plane_bits, uint32_t pkts, uint32_t window,
	const struct mrc_sim_params *sp, double *hops_per_cpu_s)
{
	struct mrc_fab_host_ops ops = {.rx = syn_rx, .tx = syn_tx};
	struct mrc_fabric_params p;
	struct mrc_srv6_params spp;
	char msg[160];
	struct synth s = {.planes = planes, .t0 = t0, .t1 = t1, .hpt = hpt, .pkts = pkts};
	struct mrc_fab_stats fs;
	struct mrc_fab_port_stats tot;
	long rss0 = peak_rss_kb();
	double t, c;
	int err = -ENOMEM;

	s.hosts = t0 * hpt;
	s.sent = calloc((size_t)s.hosts * planes, sizeof(*s.sent));
	s.inflight = calloc((size_t)s.hosts * planes, sizeof(*s.inflight));
	s.window = window;
	s.u_t0 = calloc((size_t)planes * t0, sizeof(uint16_t));
	s.u_t1 = calloc((size_t)planes * t1, sizeof(uint16_t));
	s.u_port = calloc((size_t)planes * s.hosts, sizeof(uint16_t));
	s.addr = calloc((size_t)planes * s.hosts, sizeof(*s.addr));
	if (!s.sent || !s.inflight || !s.u_t0 || !s.u_t1 || !s.u_port || !s.addr || planes > 16)
		goto out;
	/* the generated plan of mrc/srv6; its uSIDs cached for building containers */
	mrc_srv6_params_default(&spp);
	spp.usid_plane_bits = (uint8_t)plane_bits;
	spp.planes = planes;
	spp.t0 = t0;
	spp.t1 = t1;
	spp.hosts_per_t0 = hpt;
	err = mrc_srv6_plan_new(&spp, &s.plan, msg, sizeof(msg));
	if (err) {
		fprintf(out, "%s: %s\n", name, msg);
		goto out;
	}
	for (unsigned pl = 0; pl < planes; pl++) {
		struct mrc_srv6_node n = {.plane = (uint8_t)pl};

		s.block[pl] = mrc_srv6_plane_block(s.plan, pl);
		n.role = MRC_SRV6_T0;
		for (n.index = 0; n.index < t0; n.index++)
			s.u_t0[pl * t0 + n.index] = mrc_srv6_usid(s.plan, &n);
		n.role = MRC_SRV6_T1;
		for (n.index = 0; n.index < t1; n.index++)
			s.u_t1[pl * t1 + n.index] = mrc_srv6_usid(s.plan, &n);
		n.role = MRC_SRV6_HOST;
		for (n.index = 0; n.index < s.hosts; n.index++) {
			s.u_port[pl * s.hosts + n.index] = mrc_srv6_usid(s.plan, &n);
			mrc_srv6_host_addr(s.plan, pl, n.index, &s.addr[pl * s.hosts + n.index]);
		}
	}
	mrc_fabric_defaults(&p);
	p.plan = s.plan;
	p.pkt_cap = 512; /* headers (the payload is gathered), or a packet trimmed to 256 B */
	p.buffer_bytes = 256 << 10;
	p.ecn_kmin_bytes = p.ecn_kmax_bytes = 64 << 10;
	if (sp)
		p.simq = *sp;
	mrc_rng_seed(&s.rng, 1);
	err = mrc_fabric_new(&p, &ops, &s, &s.fab);
	if (err)
		goto out;
	for (unsigned h = 0; h < s.hosts; h++)
		for (unsigned pl = 0; pl < planes; pl++)
			mrc_fabric_kick(s.fab, h, pl);
	t = wall_s();
	c = cpu_s();
	mrc_sim_run(mrc_fabric_sim(s.fab), MRC_SIM_NEVER);
	t = wall_s() - t;
	c = cpu_s() - c;
	mrc_fabric_stats(s.fab, &fs);
	mrc_fabric_port_totals(s.fab, &tot);
	fprintf(out,
		"%-12s %-6s hosts=%u planes=%u packets=%llu hops=%llu events=%llu "
		"wall=%.3fs cpu=%.3fs hops/cpu-s=%.2fM events/cpu-s=%.2fM sim=%.1fus "
		"trims=%llu drops=%llu delivered=%llu\n",
		name, mrc_simq_name(sp ? sp->queue : MRC_SIMQ_DEFAULT), s.hosts, planes,
		(unsigned long long)fs.injected, (unsigned long long)fs.pkt_hops,
		(unsigned long long)fs.events, t, c, (double)fs.pkt_hops / c / 1e6,
		(double)fs.events / c / 1e6, (double)mrc_sim_now(mrc_fabric_sim(s.fab)) / 1e6,
		(unsigned long long)tot.trims, (unsigned long long)tot.drops,
		(unsigned long long)fs.delivered);
	*hops_per_cpu_s = c > 0 ? (double)fs.pkt_hops / c : 0;
	fprintf(out,
		"%-12s %-6s peak_rss=%ldKB (+%ldKB) sim_mem=%zuKB (pool %zuKB, event queue "
		"%zuKB, rest %zuKB) per_host=%zuB, without pool %zuB; pool=%llu pkts, %zuB each "
		"on average\n",
		name, "", peak_rss_kb(), peak_rss_kb() - rss0, fs.mem_bytes >> 10,
		fs.pool_bytes >> 10, fs.evq_bytes >> 10,
		(fs.mem_bytes - fs.pool_bytes - fs.evq_bytes) >> 10, fs.mem_bytes / s.hosts,
		(fs.mem_bytes - fs.pool_bytes) / s.hosts, (unsigned long long)fs.pkts_alloc,
		fs.pkt_bytes);
	err = 0;
out:
	mrc_fabric_free(s.fab);
	mrc_srv6_plan_free(s.plan);
	free(s.sent);
	free(s.inflight);
	free(s.u_t0);
	free(s.u_t1);
	free(s.u_port);
	free(s.addr);
	return err;
}

/* ---- the real job: `mrcgen run` in a child, so peak RSS is the scenario's own ------ */

struct job_scen {
	const char *name;
	const char *conf;
	const char *sets[6];
	const char *baseline; /* the synthetic fabric scenario of the same scale */
	const char *note;
};

static const struct job_scen job_scens[] = {
	{"job-quickstart", "conf/examples/quickstart.yaml",
		{"traffic.sizes=[8MiB]", "traffic.warmup=1", "traffic.iterations=7",
			"traffic.verify=false", "output.plots=false", "output.hlog=false"},
		"fabric-128",
		"32 hosts, 8 planes, ring all-reduce; 8 MiB x (1 warmup + 7) instead of 64 MiB x "
		"(2 + 10), spine p3.t1.1 down from iteration 4; verify off, captures on"},
	{"job-a2a128", "conf/examples/bench-a2a128.yaml",
		{"traffic.sizes=[2MiB]", "traffic.iterations=1"}, "fabric-128",
		"128 hosts, 8 planes, parallel all-to-all of 2 MiB per rank (16 KiB per pair), "
		"1 iteration"},
	{"job-perm128", "conf/examples/bench-perm128.yaml", {NULL}, "fabric-128",
		"128 hosts, 8 planes, sendrecv permutation of 8 MiB per rank, 1 iteration: "
		"job-perm1k's load (one flow per host) at the 128-host scale"},
	{"job-perm1k", "conf/examples/bench-perm1k.yaml", {NULL}, "fabric-1k",
		"1020 hosts, 8 planes, sendrecv permutation of 1 MiB per rank, 1 iteration"},
	{"job-perm8k", "conf/examples/bench-perm8k.yaml", {NULL}, "fabric-8k",
		"8192 hosts, 8 planes (usid_plane_bits 0), sendrecv permutation of 256 KiB per "
		"rank, 1 iteration"},
};

struct job_fig {
	uint64_t pkts, hops, events, hosts, qps;
	double wall_s, cpu_s;
	long rss_kb;
	long idle_kb; /* the same binary checking the same config: the process's own floor */
};

/*
 * Peak RSS of `mrcgen check CONF` in a child: the binary, its libraries and the parsed
 * config, no simulation. A job's memory per host is what its run adds above this.
 */
static long idle_rss_kb(const char *conf, const char *dir)
{
	const char *argv[] = {"mrcgen", "check", conf, NULL};
	char hwm[64];
	struct rusage ru;
	int status;
	pid_t pid;

	snprintf(hwm, sizeof(hwm), "%s/idle.hwm", dir);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		setenv(HWM_ENV, hwm, 1);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) ||
		WEXITSTATUS(status) != 0)
		return 0;
	return child_hwm_kb(hwm, ru.ru_maxrss);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static uint64_t json_u64(json_t *o, const char *sec, const char *key)
{
	json_t *v = json_object_get(json_object_get(o, sec), key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
}

/* Runs `mrcgen run` on @sc in a child with MRCGEN_SIMQ=@queue (NULL: default queue), or
 * with @ranks > 1 under `mpirun -np @ranks` (the MPI ranks of one simulation: its CPU time
 * is every rank's, its peak RSS the largest rank's); its figures from its CPU time
 * (wait4), its VmHWM and the report's counters. Prints the failure on @out. */
static int job_child_np(const struct job_scen *sc, const char *queue, unsigned ranks,
	struct job_fig *f, FILE *out)
{
	char dir[] = "/tmp/mrcgen-bench-XXXXXX", path[64], hwm[64], np[12], self[4096];
	const char *argv[8 + 5 + 2 * 6 + 1] = {"mrcgen", "run", sc->conf, "-o", dir};
	size_t na = 5;
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (ranks > 1) { /* mpirun [--allow-run-as-root] --oversubscribe -np N -x HWM mrcgen */
		if (sl <= 0)
			return -errno;
		self[sl] = 0;
		snprintf(np, sizeof(np), "%u", ranks);
		na = 0;
		argv[na++] = "mpirun";
		if (!geteuid())
			argv[na++] = "--allow-run-as-root";
		argv[na++] = "--oversubscribe";
		argv[na++] = "-np";
		argv[na++] = np;
		argv[na++] = "-x";
		argv[na++] = HWM_ENV;
		argv[na++] = self;
		argv[na++] = "run";
		argv[na++] = sc->conf;
		argv[na++] = "-o";
		argv[na++] = dir;
	}
	struct rusage ru;
	struct timespec t0, t1;
	json_error_t je;
	json_t *rep;
	int status, err = 0;
	pid_t pid;

	if (access(sc->conf, R_OK)) {
		fprintf(out, "%-14s %s: %s (run mrcgen bench from the source tree: it reads "
			     "conf/examples/)\n", sc->name, sc->conf, strerror(errno));
		return -ENOENT;
	}
	if (!mkdtemp(dir))
		return -errno;
	for (size_t i = 0; i < 6 && sc->sets[i]; i++) {
		argv[na++] = "--set";
		argv[na++] = sc->sets[i];
	}
	snprintf(path, sizeof(path), "%s/run.log", dir);
	snprintf(hwm, sizeof(hwm), "%s/run.hwm", dir);
	fflush(out);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (queue)
			setenv("MRCGEN_SIMQ", queue, 1);
		setenv(HWM_ENV, hwm, 1);
		if (ranks > 1)
			execvp("mpirun", (char *const *)argv);
		else
			execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		err = -errno;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	f->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	f->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	f->rss_kb = child_hwm_kb(hwm, ru.ru_maxrss);
	f->idle_kb = idle_rss_kb(sc->conf, dir);
	if (ranks > 1 && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		fprintf(out, "%-14s mpi: not measured: mpirun not found\n", sc->name);
		err = -ENOENT;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(out, "%-14s mrcgen run %s: exit status %d (log kept: %s)\n", sc->name,
			sc->conf, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
			path);
		return -EIO;
	}
	snprintf(path, sizeof(path), "%s/report.json", dir);
	rep = json_load_file(path, 0, &je);
	if (!rep) {
		fprintf(out, "%-14s %s: %s\n", sc->name, path, je.text);
		err = -EIO;
		goto out;
	}
	f->pkts = json_u64(rep, "counters", "packets_injected");
	f->hops = json_u64(rep, "counters", "packet_hops");
	f->events = json_u64(rep, "counters", "sim_events");
	f->qps = json_u64(rep, "counters", "qps");
	f->hosts = json_u64(rep, "job", "hosts");
	json_decref(rep);
out:
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return err;
}

static int job_child(const struct job_scen *sc, const char *queue, struct job_fig *f, FILE *out)
{
	return job_child_np(sc, queue, 1, f, out);
}

static void job_print(FILE *out, const struct job_scen *sc, const char *queue,
	const struct job_fig *f, double base_hops_cpu)
{
	double mh_wall = (double)f->hops / f->wall_s / 1e6,
	       mh_cpu = (double)f->hops / f->cpu_s / 1e6;
	double sim_kb = (double)(f->rss_kb > f->idle_kb ? f->rss_kb - f->idle_kb : 0);
	double kb_host = f->hosts ? sim_kb / (double)f->hosts : 0;

	fprintf(out,
		"%-14s %-6s hosts=%llu qps=%llu packets=%llu hops=%llu events=%llu wall=%.2fs "
		"cpu=%.2fs hops/wall-s=%.3fM hops/cpu-s=%.3fM peak_rss=%ldKB idle=%ldKB "
		"sim/host=%.0fKB sim/qp=%.1fKB\n",
		sc->name, queue, (unsigned long long)f->hosts, (unsigned long long)f->qps,
		(unsigned long long)f->pkts, (unsigned long long)f->hops,
		(unsigned long long)f->events, f->wall_s, f->cpu_s, mh_wall, mh_cpu, f->rss_kb,
		f->idle_kb, kb_host, f->qps ? sim_kb / (double)f->qps : 0);
	fprintf(out, "%-14s %-6s vs %s (no engine, this run): speed x%.3f\n", sc->name, "",
		sc->baseline, base_hops_cpu > 0 ? mh_cpu * 1e6 / base_hops_cpu : 0);
}

/*
 * The cost of verification (docs/verification.md): job-quickstart's job with traffic.verify
 * false and true (descriptors), alternately, @runs times each; the least CPU time of each
 * (the VM's drift and the other processes only ever add) and their ratio.
 */
static int bench_verify(FILE *out, const char *queue, int runs)
{
	struct job_scen sc[2] = {job_scens[0], job_scens[0]};
	double cpu[2] = {0, 0};
	long rss[2] = {0, 0};
	int err = 0;

	for (int v = 0; v < 2; v++) {
		sc[v].name = "job-verify";
		for (size_t i = 0; i < 6 && sc[v].sets[i]; i++)
			if (!strncmp(sc[v].sets[i], "traffic.verify=", 15))
				sc[v].sets[i] = v ? "traffic.verify=true" : "traffic.verify=false";
	}
	fprintf(out, "%-14s job-quickstart's job with traffic.verify false and true "
		     "(descriptors), alternately, %d runs each\n", "job-verify", runs);
	for (int k = 0; k < runs && !err; k++) {
		for (int v = 0; v < 2 && !err; v++) {
			struct job_fig f = {0};

			err = job_child(&sc[v], queue, &f, out);
			if (!err && (!cpu[v] || f.cpu_s < cpu[v]))
				cpu[v] = f.cpu_s;
			if (!err && f.rss_kb > rss[v])
				rss[v] = f.rss_kb;
		}
	}
	if (err)
		return err;
	fprintf(out,
		"%-14s %-6s unverified cpu=%.3fs peak_rss=%ldKB, verified cpu=%.3fs "
		"peak_rss=%ldKB: verified/unverified cpu x%.3f (least of %d each)\n",
		"job-verify", queue ? queue : mrc_simq_name(MRC_SIMQ_DEFAULT), cpu[0], rss[0],
		cpu[1], rss[1], cpu[0] > 0 ? cpu[1] / cpu[0] : 0, runs);
	return 0;
}

/*
 * Parallel simulation (docs/performance.md "Parallel simulation"): @sc's job with
 * sim.workers 1 and 2, alternately, @runs times each, in this one run of the bench; the
 * least wall time of each (other processes only ever add) and their ratio, the
 * parallel_speedup, and the simulator's memory per host of each. The load average when
 * it started is printed beside: the speedup needs two free cores.
 */
static int bench_parallel(FILE *out, const struct job_scen *base, int runs)
{
	static const char *const wsets[2] = {"sim.workers=1", "sim.workers=2"};
	struct job_scen sc[2] = {*base, *base};
	struct job_fig best[3] = {{0}};
	bool mpi = true;
	double load[3] = {0, 0, 0};
	char name[32];
	int err = 0;

	snprintf(name, sizeof(name), "psim-%s", base->name + 4);
	for (int w = 0; w < 2; w++) {
		size_t i = 0;

		while (i < 5 && sc[w].sets[i])
			i++;
		sc[w].sets[i] = wsets[w];
		sc[w].name = name;
	}
	if (getloadavg(load, 3) < 0)
		load[0] = -1;
	fprintf(out, "%-14s %s with sim.workers 1 and 2 and 2 MPI ranks, in turn, %d runs "
		     "each; load average %.2f at the start (2 free cores needed)\n", name,
		base->name, runs,
		load[0]);
	for (int k = 0; k < runs && !err; k++) {
		for (int w = 0; w < 3 && !err; w++) { /* 1 worker, 2 workers, 2 MPI ranks */
			struct job_fig f = {0};

			err = job_child_np(&sc[w == 2 ? 0 : w], NULL, w == 2 ? 2 : 1, &f, out);
			if (err == -ENOENT && w == 2) { /* no mpirun: the rest is measured */
				err = 0;
				mpi = false;
				continue;
			}
			if (!err && (!best[w].wall_s || f.wall_s < best[w].wall_s))
				best[w] = f;
		}
	}
	if (err)
		return err;
	for (int w = 0; w < 2; w++) {
		const struct job_fig *f = &best[w];
		double sim_kb = (double)(f->rss_kb > f->idle_kb ? f->rss_kb - f->idle_kb : 0);

		fprintf(out, "%-14s workers=%d hosts=%llu events=%llu wall=%.3fs cpu=%.3fs "
			     "events/wall-s=%.3fM peak_rss=%ldKB sim/host=%.1fKB\n",
			name, w + 1, (unsigned long long)f->hosts, (unsigned long long)f->events,
			f->wall_s, f->cpu_s, (double)f->events / f->wall_s / 1e6, f->rss_kb,
			f->hosts ? sim_kb / (double)f->hosts : 0);
	}
	fprintf(out, "%-14s parallel_speedup=%.3f (wall, 1 worker / 2 workers, least of %d "
		     "each) mem_per_host_ratio=%.3f (2 workers / 1)\n",
		name, best[1].wall_s > 0 ? best[0].wall_s / best[1].wall_s : 0, runs,
		best[0].rss_kb > best[0].idle_kb && best[1].rss_kb > best[1].idle_kb
			? (double)(best[1].rss_kb - best[1].idle_kb) /
				  (double)(best[0].rss_kb - best[0].idle_kb)
			: 0);
	if (mpi && best[2].wall_s > 0)
		fprintf(out, "%-14s mpi ranks=2 wall=%.3fs cpu=%.3fs (every rank's) peak_rss=%ldKB "
			     "(the larger rank's) mpi_speedup=%.3f (wall, 1 worker / 2 MPI ranks, "
			     "least of %d each)\n", name, best[2].wall_s, best[2].cpu_s,
			best[2].rss_kb, best[0].wall_s / best[2].wall_s, runs);
	return 0;
}

int mrc_bench_run(const char *only, const char *queue, FILE *out)
{
	enum { NJ = sizeof(job_scens) / sizeof(job_scens[0]) };
	struct mrc_sim_params sp = {.queue = MRC_SIMQ_DEFAULT};
	struct job_fig figs[NJ][2];
	const char *qnames[NJ][2] = {{NULL}};
	double base128 = 0, base1k = 0, base8k = 0;
	bool any = false, jobs = false;
	int err = 0;

	if (queue && mrc_simq_parse(queue, &sp.queue))
		return -EINVAL;
	/*
	 * The real jobs run first; their comparison lines come after the fabric baselines. A
	 * child's peak RSS is its own VmHWM (mrc_bench_child_init): wait4's would include
	 * what this process had resident when it forked, which grows as it reads reports.
	 */
	for (size_t i = 0; !err && i < NJ; i++) {
		const struct job_scen *sc = &job_scens[i];
		/* the quickstart measures both queues on the real job, unless one was named */
		bool both = !queue && i == 0;

		if (only && strcmp(only, sc->name))
			continue;
		if (!jobs)
			fprintf(out, "# real jobs: `mrcgen run` in a child; peak RSS its own "
				     "VmHWM; sim = peak RSS minus `mrcgen check`'s on the same "
				     "config\n");
		any = jobs = true;
		fprintf(out, "%-14s %s\n", sc->name, sc->note);
		for (int q = 0; q < (both ? 2 : 1) && !err; q++) {
			const char *qn = both ? mrc_simq_name((enum mrc_simq)q) :
					 queue ? queue : mrc_simq_name(MRC_SIMQ_DEFAULT);

			memset(&figs[i][q], 0, sizeof(figs[i][q]));
			err = job_child(sc, both || queue ? qn : NULL, &figs[i][q], out);
			if (!err)
				qnames[i][q] = qn;
		}
	}
	if (!err && (!only || strcmp(only, "job-verify") == 0)) {
		any = true;
		err = bench_verify(out, queue, 3);
	}
	for (size_t i = 0; !err && i < NJ; i++) {
		const struct job_scen *sc = &job_scens[i];
		bool big = !strcmp(sc->name, "job-perm8k");

		if (strcmp(sc->name, "job-perm1k") && !big)
			continue;
		if (only && strcmp(only, "psim") && strncmp(only, "psim-", 5) == 0 &&
			strcmp(only + 5, sc->name + 4))
			continue;
		if (only && strncmp(only, "psim", 4))
			continue;
		any = true;
		err = bench_parallel(out, sc, big ? 2 : 3);
	}
	if (!err && (!only || strcmp(only, "evq") == 0)) {
		any = true;
		err = bench_evq(out);
	}
	if (!err && (!only || strcmp(only, "fabric-128") == 0 || jobs)) {
		any = true;
		err = bench_fabric(out, "fabric-128", 4, 8, 8, 16, 4, 1000, 16, &sp, &base128);
	}
	if (!err && (!only || strcmp(only, "fabric-1k") == 0 || strcmp(only, "job-perm1k") == 0)) {
		any = true;
		err = bench_fabric(out, "fabric-1k", 8, 34, 15, 30, 4, 100, 16, &sp, &base1k);
	}
	if (!err && (!only || strcmp(only, "fabric-8k") == 0 || strcmp(only, "job-perm8k") == 0)) {
		any = true;
		err = bench_fabric(out, "fabric-8k", 8, 256, 16, 32, 0, 16, 16, &sp, &base8k);
	}
	if (jobs)
		fprintf(out, "# real jobs against the fabric-only scenario of the same scale, this "
			     "run: the share of the bare fabric's hops/cpu-s the "
			     "whole job keeps\n");
	for (size_t i = 0; i < NJ; i++) {
		const struct job_scen *sc = &job_scens[i];
		double base = !strcmp(sc->baseline, "fabric-1k")   ? base1k
			      : !strcmp(sc->baseline, "fabric-8k") ? base8k
								   : base128;

		for (int q = 0; q < 2; q++)
			if (qnames[i][q])
				job_print(out, sc, qnames[i][q], &figs[i][q], base);
	}
	if (!any)
		return -ESRCH;
	return err;
}
