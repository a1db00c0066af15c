/* SPDX-License-Identifier: BSD-2-Clause */
/* job: maps a loaded config (conf/) onto the engine's plain parameter structs. */
#ifndef MRC_JOB_H
#define MRC_JOB_H

#include "conf/conf.h"
#include "mrc/engine/srv6.h"

#include <stddef.h>

/* The addressing plan and expanded EV profile of a job; release with mrc_job_srv6_free. */
struct mrc_job_srv6 {
	struct mrc_srv6_params params;
	struct mrc_srv6_plan *plan;
	struct mrc_srv6_ev_entry *evs; /* the expanded EV profile, profile order */
	size_t n_evs;
};

/*
 * Builds the plan from job->fabric (planes, t0, t1, hosts_per_t0, addressing) and
 * expands job->mrc.ev (explicit list, or the plane/spine/salt rules as fields of widths
 * 4/12/16; deny entries are single EVs) for it. Returns 0, or -EINVAL / -ERANGE / -ENOMEM
 * with "srv6 plan: ..." or "ev profile: ..." in @err.
 */
int mrc_job_srv6(const struct conf_job *job, struct mrc_job_srv6 *out, char *err, size_t errlen);
void mrc_job_srv6_free(struct mrc_job_srv6 *m);

/*
 * Bytes of the largest data packet @job sends: a WRITE_ONLY_IMM with TSETH carrying
 * mrc.mtu payload bytes, with every header of the job's EV format (srv6: outer IPv6,
 * inner IPv6; stev/udp: one IPv6) plus UDP, BTH, METH, TSETH, RETH, ImmDt and ICRC, as
 * mrc_wire_encoded_len() counts it (docs/wire-format.md "Packet layouts"). No SRH: a two-tier path
 * has at most 4 uSIDs, one container. In @hdr_to_bth (may be NULL) the bytes up to the
 * end of the BTH, the least a switch trim must keep. Returns the length or -EINVAL.
 */
int mrc_job_max_data_pkt(const struct conf_job *job, unsigned *hdr_to_bth);

/*
 * PFC headroom per ingress link and class, bytes: fabric.pfc.headroom when given, else
 * the rule of docs/pfc.md "Headroom", the most that can still arrive at a switch ingress
 * after it passed xoff, in the simulated fabric's timing: P + rate x (2 ser(P) +
 * ser(64) + 2 d + switch_delay), rounded up, where P is the largest packet on a link
 * (mrc_job_max_data_pkt, at least the 1280 B of an ICMPv6 error), ser(x) its
 * serialization at the link rate (mrc_ser_ps), 64 the PFC frame, d the longer of the two
 * link delays: the packet that crossed xoff, the packet the switch is sending on the
 * reverse link when the PAUSE is due, the PAUSE, the sender's packet under way when it
 * arrives, the link both ways and the switch's pipeline. The form of Cisco's "Priority
 * Flow Control: Build Reliable Layer 2 Infrastructure" (MTU of both ends, the cable both
 * ways, response time 0) plus the crossing packet. 0 when the packet size is unknown.
 */
uint64_t mrc_job_pfc_headroom(const struct conf_job *job);

/*
 * conf_check_fn for conf_load_checked(): builds what `run` builds before simulating, so
 * `check` refuses what `run` would: the srv6 plan and the EV profile (mrc_job_srv6; a
 * udp EV format needs EVs of 16 bits; every mrc.ev.deny entry must be an EV of the
 * profile), the packet limits (fabric.buffer holds at least one largest data packet,
 * fabric.trim_size lies between the headers up to the BTH and that packet when trim is
 * on), and the collective of every size (all-to-all: at least one element per rank and
 * peer). Returns 0, or -EINVAL / -ERANGE with the key path and the reason (quoted value
 * last), -ENOMEM.
 */
int mrc_job_check(const struct conf_job *job, char *key, size_t keylen, char *msg,
	size_t msglen);

/*
 * Makes output.dir usable before a run starts: creates it and its missing parents (mode
 * 0755, as mkdir -p), proves it is a directory we can write by creating and removing a
 * file in it, and refuses an output name there (report.json, latency.hlog, a capture's
 * pcap, an entry of hist/ or plots/) that exists and is not a regular file: a FIFO would
 * block the run. Then removes the outputs an earlier run listed in its report.json
 * ("files"), so that none of them is left beside this run's (docs/report.md). Returns 0,
 * or a negative errno (-EEXIST for such a name) with "output.dir: PATH: reason" in @err.
 */
int mrc_job_outdir(const struct conf_job *job, char *err, size_t errlen);

/*
 * Writes output.dir/report.json as a run that measured nothing yet (mrcgen sets it:
 * mrc_report_stub in mrc/out, which the drivers may not include; NULL in the unit tests):
 * ok false, its error @why, or with @why NULL "the run started at TIME (pid P) and did not
 * end: ...", and "files" every name the run may write there (report.json, latency.hlog,
 * the captures), which the next run into the directory removes. Atomic (a temporary
 * renamed). 0 or a negative errno with "report write: PATH: reason" in @err.
 */
extern int (*mrc_job_report_stub)(const struct conf_job *job, const char *why, char *err,
	size_t errlen);

/*
 * Claims output.dir for this run once mrc_job_outdir prepared it, before the run writes
 * there (the process that writes the report, a run's, not a sweep's): an earlier run's
 * report.json, whose files are gone, must not survive beside this run's files as if it
 * were this run's (a run killed by SIGKILL writes no report). With output.report and
 * mrc_job_report_stub, the stub report (@why NULL: "started, did not end") replaces it;
 * else, or when the stub cannot be written (a full disk: the run's report will say what it
 * could not write), it is removed. Called again with @why, the error of a run that ended
 * before it could report (a set-up error), the stub says so. 0, or a negative errno with
 * @err when report.json could be neither replaced nor removed.
 */
int mrc_job_outdir_claim(const struct conf_job *job, const char *why, char *err,
	size_t errlen);

/* Most hosts a traffic.hosts set names (the addressing plans' largest fabric). */
#define MRC_JOB_HOSTS_MAX 65536

/*
 * Endpoints a job's collective spans: every host of the fabric with traffic.hosts (the
 * hosts outside it idle), else traffic.ranks (0: every host). Both drivers run that many
 * hosts; ranks are numbered by host with traffic.ranks. With several jobs (traffic as a
 * list), the most any of them spans.
 */
uint32_t mrc_job_endpoints(const struct conf_job *job);

struct mrc_rng;

/*
 * Background job @idx of @job (@t, pattern background; docs/config.md "Background"), as
 * both drivers run it: its hosts into @hosts (at most @cap; traffic.hosts, else
 * h0..h{ranks-1}, else every host), its destinations' permutation into @perm (@hosts'
 * count entries; Sattolo's shuffle: one cycle, so no host sends to itself) drawn from
 * @rng, seeded from the run's seed and @idx. Returns the hosts' count (>= 2), -EINVAL for
 * fewer than two or a bad set.
 */
long mrc_job_bg_init(const struct conf_job *job, const struct conf_traffic *t, uint32_t idx,
	uint32_t *hosts, uint32_t *perm, uint32_t cap, struct mrc_rng *rng);

/* Seeds @rng for @host's uniform draws in background job @idx of @job (mrc_job_bg_dest), as
 * both drivers do: from the run's seed, the job and the host, so that a host's draws
 * depend on no other host's and each driver's host draws the same destinations. */
void mrc_job_bg_host_rng(const struct conf_job *job, uint32_t idx, uint32_t host,
	struct mrc_rng *rng);

/* Host @g's (of @n) next background destination, an index among the hosts: @perm's in
 * permutation @mode (enum conf_bg_mode), else a uniform draw from @rng of any other. */
uint32_t mrc_job_bg_dest(int mode, const uint32_t *perm, struct mrc_rng *rng, uint32_t n,
	uint32_t g);

/* When a background host sends its message @k / @den (0: at @first_ps): messages @bytes x 8 /
 * @rate_bps apart, counted from its first so that the rate holds exactly (@den > 1: host g
 * of n starts g / n of an interval after the first, so the hosts' sends interleave). ps. */
uint64_t mrc_job_bg_at(uint64_t first_ps, uint64_t bytes, uint64_t rate_bps, uint64_t k,
	uint64_t den);

/* What mrc_job_coll_params fills for the collective (zeroed by the caller, released with
 * mrc_job_coll_mem_free): the group's hosts, alltoallv's per-pair counts; the reason of a
 * failure. */
struct mrc_job_coll_mem {
	uint32_t *members;
	uint64_t *counts;
	char err[320];
};

/*
 * The collective of @job's traffic for one size over @nranks endpoints
 * (mrc_job_endpoints): pattern, algorithm (the pattern's default for `direct` and for
 * `ring` on an all-to-all), dtype, count = @size / dtype size, root, seed, verify, the
 * perftest knobs (depth, messages, bidirectional); with traffic.hosts the group (members in
 * @mem, nranks their count, root the root's position); for alltoallv with traffic.matrix
 * or traffic.zipf the per-pair counts (mrc_job_v_counts). The caller fills local, input
 * and the ops. The one mapping both drivers and mrc_job_check use (docs/config.md
 * "traffic"). Returns 0, -ENOMEM, or -EINVAL (the matrix file unreadable now: @mem->err).
 */
struct mrc_coll_params;
int mrc_job_coll_params(const struct conf_job *job, uint32_t nranks, uint64_t size,
	struct mrc_job_coll_mem *mem, struct mrc_coll_params *cp);
/* The same for job @t of @job (conf_job_traffic): over @nranks endpoints of which it may
 * span fewer (its traffic.ranks while another job spans more: h0..h{ranks-1} as members). */
int mrc_job_coll_params_of(const struct conf_job *job, const struct conf_traffic *t,
	uint32_t nranks, uint64_t size, struct mrc_job_coll_mem *mem, struct mrc_coll_params *cp);
/*
 * The collective of phase @ph of job @t (traffic.phases, docs/config.md "Phases"): as
 * mrc_job_coll_params_of with the phase's pattern, algorithm and size; an alltoallv
 * phase with transpose has its per-pair counts transposed (rank a sends b what b would send
 * a), so an MoE combine mirrors its dispatch. The drivers' one mapping of a phase.
 */
struct conf_phase;
int mrc_job_coll_params_phase(const struct conf_job *job, const struct conf_traffic *t,
	const struct conf_phase *ph, uint32_t nranks, struct mrc_job_coll_mem *mem,
	struct mrc_coll_params *cp);
void mrc_job_coll_mem_free(struct mrc_job_coll_mem *mem);

/*
 * alltoallv's counts: rank a sends @out[a * n + b] of its @count elements to rank b, row a
 * apportioned by weights w[a][b] with the largest-remainder rule (each row sums to @count
 * exactly, ties to the lower rank; a row of zero weights sends nothing). Weights: the
 * matrix file, or for a Zipf skew s, w[a][b] = 1 / (1 + pi(b))^s with pi a permutation of
 * the ranks drawn from @seed (the experts' popularity, the same for every sender: MoE
 * routing's hot experts). Returns 0, -ENOMEM or the matrix loader's error (in @err).
 */
int mrc_job_v_counts(const struct conf_traffic *t, uint32_t n, uint64_t count, uint64_t seed,
	uint64_t *out, char *err, size_t errlen);

#endif
