/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wirerun: the main job on a real fabric (driver "wire", issue 7) — one process per host
 * (rank), one MRC endpoint, one raw-socket port per plane (mrc/sock) on the io_uring loop
 * (mrc/loop), and a rendezvous at rank 0 for the config check, the per-iteration start
 * barrier and the gathering of results into one report (docs/architecture.md "One engine, two
 * drivers"; README "Running on a real fabric").
 *
 * Its files: bootstrap.c (the rank, the rendezvous), bootpmix.c (the launcher's PMIx instead
 * of the rendezvous: docs/wire-driver.md "Launching under srun or mpirun"), pump.c (the
 * dataplane: loop, endpoint,
 * captures, endpoint faults), wirertt.c (the base RTT), rankres.c (RESULT bodies and their
 * merge), wirerun.c (sizes, iterations, the gathering), wjobs.c (several jobs at once); wr.h
 * holds their shared state.
 *
 * Rendezvous protocol, version MRC_WIRERUN_PROTO (a private TCP or unix stream; every
 * message is be32 length of what follows, one type byte, then the body, integers
 * big-endian; a body shorter than its type's fields is refused, never read past):
 *   HELLO    worker -> 0   protocol version u32, rank u32, nranks u32, config hash u64,
 *                          token length u16, the job token (22 + token bytes, rvproto.h;
 *                          another version or length is refused)
 *   WELCOME  0 -> worker   status u8 (0 ok), then a reason text when refused
 * Before its HELLO is admitted a connection's frames may be MRC_RV_MAX_HELLO bytes long, after
 * it MRC_RV_MAX_MSG; rank 0 reads every connection's HELLO at once, and drops (and logs) one
 * that is late, malformed, of another job or without the job token, never failing the job
 * for it.
 *   RTTGO    0 -> all      (no body) every rank has joined: measure the base RTT (only
 *                          when mrc.cc.base_rtt is 0; mrc/wire/wrtt.h echo probes)
 *   RTT      worker -> 0   figure u64 ns (0: none), probes sent u32, answered u32
 *   RTTSET   0 -> all      base RTT u64 ns, source u8 (enum mrc_wirerun_rtt_source): every
 *                          rank builds its endpoint with it
 *   MR       worker -> 0   size index u32, per region (MRC_REG_N) va u64, rkey u32
 *   MRTAB    0 -> all      per rank and region va u64, rkey u32
 *   ARM      0 -> all      iteration u32: fill inputs, clear outputs, queue the first posts
 *   ARMED    worker -> 0   iteration u32
 *   GO       0 -> all      iteration u32: post the queued writes (every rank is armed, so
 *                          no write can land in a buffer that is still to be cleared)
 *   DONE     worker -> 0   iteration u32, completion time u64 ps (own clock, from GO),
 *                          wrong elements u64
 *   FINISH   0 -> all      (no body) send RESULT
 *   RESULT   worker -> 0   one JSON object, versioned (mrc/job/rankres.h): counters,
 *                          per-EV counters, histograms, the times its EVs went
 *                          ASSUMED_BAD (iteration, ps after its GO), for faults[]
 *   ABORT    0 -> all      reason text: the job failed elsewhere
 * Several jobs (traffic as a list; wjobs.c, docs/wire-driver.md "Several jobs") replace
 * ARM..DONE with the same steps per job, each body starting with the job's index u32:
 *   JARM     0 -> its ranks     iteration u32
 *   JARMED   rank -> 0          iteration u32
 *   JGO      0 -> its ranks     iteration u32 (the first job's: to every rank; background:
 *                               start sending)
 *   JDONE    rank -> 0          a DONE body (iteration, time, wrong, retransmitted bytes)
 *   JEND     0 -> its ranks     background: the window's length u64 ps, then stop
 *   JBG      rank -> 0          background: messages posted, completed, refused u64
 *   JTICK    0 -> all           job 0, no more: rank 0 lives (every quarter of the
 *                               timeout), so a rank in no job running waits on
 * A closed connection or a wait longer than the timeout ends the job with an error naming
 * the rank; nothing waits forever.
 */
#ifndef MRC_WIRERUN_H
#define MRC_WIRERUN_H

#include "conf/conf.h"
#include "mrc/job/result.h"

#include <stddef.h>
#include <stdint.h>

#define MRC_WIRERUN_MAX_PLANES 16
#define MRC_WIRERUN_PROTO 3 /* the rendezvous protocol above (2: HELLO without a token) */

/* How the ranks meet (docs/wire-driver.md "Launching under srun or mpirun"). */
enum mrc_wirerun_boot {
	MRC_WIRERUN_BOOT_AUTO = 0,	/* mrc_wirerun_boot_pick decides */
	MRC_WIRERUN_BOOT_RENDEZVOUS,	/* mrcgen's own TCP/unix rendezvous at rank 0 */
	MRC_WIRERUN_BOOT_PMIX,		/* the launcher's PMIx server (srun --mpi=pmix, mpirun) */
};

struct mrc_wirerun_opts {
	enum mrc_wirerun_boot bootstrap; /* --bootstrap */
	const char *netns;	/* enter this named netns once the bootstrap is reached; every
				   "{rank}" is the rank (NULL: stay) */
	const char *host;	/* "h2": this process's host = rank; NULL: launcher env */
	const char *ports[MRC_WIRERUN_MAX_PLANES]; /* interface of plane p; NULL: "p<p>" */
	const char *rendezvous; /* "unix:PATH", "PATH" with a '/', "HOST:PORT", "[V6]:PORT";
				   NULL: $MRCGEN_RENDEZVOUS, else unix:/tmp/mrcgen-HASH.sock */
	unsigned timeout_ms;	/* longest wait for a peer or an iteration; 0 = 60000 */
	const char *token_file; /* the job token's file; NULL: $MRCGEN_JOB_TOKEN (rvproto.h);
				   a TCP rendezvous needs one */
};

/*
 * The rank of this process among @nranks: from @host ("h5" -> 5) when non-NULL, else
 * from SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE or
 * PMI_RANK/PMI_SIZE (first pair set wins; its size must equal @nranks). Returns 0,
 * -EINVAL with "host: ..." in @err for a bad name, a rank >= @nranks or a size mismatch,
 * -ENOENT when nothing names the rank.
 */
int mrc_wirerun_rank(const char *host, uint32_t nranks, uint32_t *rank, char *err,
	size_t errlen);

/*
 * The bootstrap @o takes: o->bootstrap unless AUTO; AUTO takes the rendezvous for a manual
 * launch (--host, --rendezvous or --token-file given, or $MRCGEN_RENDEZVOUS set), else the
 * launcher's PMIx when it announces its server to its processes (PMIX_RANK and
 * PMIX_NAMESPACE set, as srun --mpi=pmix and Open MPI's mpirun do), else the rendezvous.
 */
enum mrc_wirerun_boot mrc_wirerun_boot_pick(const struct mrc_wirerun_opts *o);

/*
 * The end of a wire run, on every rank, once rank 0 has written its outputs (mrcgen.c
 * calls it after mrc_run_wire and the report, whatever happened): under PMIx rank 0 tells
 * the others, who wait for it (at most the run's timeout) before leaving the launcher, so
 * a launcher that ends a job at a rank's non-zero exit (Open MPI's mpirun) does not end
 * rank 0 while it writes; then each leaves it (PMIx_Finalize). Nothing for the rendezvous.
 */
void mrc_wirerun_end(void);

/* FNV-1a 64 of conf_dump(@job): what every rank must agree on. Returns 0 or -ENOMEM/-EIO. */
int mrc_wirerun_conf_hash(const struct conf_job *job, uint64_t *hash);

enum mrc_wirerun_rtt_source {
	MRC_WIRERUN_RTT_CONFIG = 0,   /* mrc.cc.base_rtt */
	MRC_WIRERUN_RTT_MEASURED = 1, /* the largest rank's figure */
	MRC_WIRERUN_RTT_DEFAULT = 2,  /* no rank had a figure: MRC_WIRERUN_RTT_DEFAULT_NS */
};

#define MRC_WIRERUN_RTT_DEFAULT_NS 200000ull /* 200 us */

/* The base RTT every rank's NSCC started from (README "Running on a real fabric"). */
struct mrc_wirerun_rtt {
	uint64_t base_rtt_ns;
	enum mrc_wirerun_rtt_source source;
	uint32_t nranks;
	uint64_t *rank_ns;	/* rank 0: each rank's figure, 0 = none (NULL: not measured) */
	uint64_t probes_sent, probes_answered; /* rank 0: over every rank */
};

/* Releases r->rank_ns. */
void mrc_wirerun_rtt_free(struct mrc_wirerun_rtt *r);

/*
 * Hands the base RTT figures to @res for report.json's `wire` object (mrc/report):
 * base_rtt_us, base_rtt_source ("config", "measured", "default"), rank_rtt_us[] (null:
 * that rank measured nothing), rtt_probes, rtt_answered. Takes r->rank_ns.
 */
void mrc_wirerun_rtt_to_result(struct mrc_wirerun_rtt *r, struct mrc_run_result *res);

/*
 * Runs this process's rank of @job (fabric.driver wire) on real sockets. On rank 0, *out
 * receives the merged result of every rank (histograms merged with mrc_hist_add, CCT of an
 * iteration = the slowest rank's), for mrc_report_write; on other ranks *out is NULL once
 * their results are delivered. *rank_out: this process's rank (set as soon as known).
 * *rtt: the base RTT NSCC used (measured after the rendezvous when mrc.cc.base_rtt is 0;
 * release with mrc_wirerun_rtt_free, also after an error).
 * Each host writes the captures of its own ports under output.dir (egress: the full
 * packet; ingress: the inner packet, as the protocol-41 socket delivers it).
 * Returns 0; -EINVAL/-ENOENT/-EPERM/-ENODEV/-EOPNOTSUPP for setup errors (config, rank,
 * sockets, io_uring); -ECONNABORTED (a peer failed or closed), -ETIMEDOUT (a peer or an
 * iteration took longer than the timeout), -EPROTO (hash mismatch, bad message) for job
 * failures; the reason, naming the rank, is in @err.
 */
int mrc_run_wire(const struct conf_job *job, const struct mrc_wirerun_opts *o,
	struct mrc_run_result **out, struct mrc_wirerun_rtt *rtt, uint32_t *rank_out, char *err,
	size_t errlen);

#endif
