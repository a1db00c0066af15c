/* SPDX-License-Identifier: BSD-2-Clause */
/* wr: one wire rank's state, shared by the files of the wire run (wirerun.h); private. */
#ifndef MRC_WR_H
#define MRC_WR_H

#include "mrc/wire/wirerun.h"

#include "mrc/engine/ep.h"
#include "mrc/job/coll.h"
#include "mrc/job/job.h"
#include "mrc/job/sweep.h"
#include "mrc/wire/epfault.h"
#include "mrc/wire/loop.h"
#include "mrc/job/rankres.h"
#include "mrc/wire/rvproto.h"
#include "mrc/wire/sock.h"
#include "mrc/wire/wrtt.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rv_type {
	RV_HELLO = 1,
	RV_WELCOME,
	RV_MR,
	RV_MRTAB,
	RV_ARM,
	RV_ARMED,
	RV_GO,
	RV_DONE,
	RV_FINISH,
	RV_RESULT,
	RV_ABORT,
	RV_RTTGO,
	RV_RTT,
	RV_RTTSET,
	/* several jobs (wjobs.c): job u32 first */
	RV_JARM,	/* 0 -> the job's ranks: job, iteration u32: arm it */
	RV_JARMED,	/* rank -> 0: job, iteration */
	RV_JGO,		/* 0 -> the job's ranks (the first job's: all): job, iteration */
	RV_JDONE,	/* rank -> 0: job, then a DONE body (WR_DONE_LEN) */
	RV_JEND,	/* 0 -> a background job's ranks: job: send no more */
	RV_JBG,		/* rank -> 0: job, messages posted, completed, refused u64 */
	RV_JTICK,	/* 0 -> every rank: job 0: rank 0 is alive (a quarter of the timeout) */
};

#define WR_POLL_NS     1000000ull  /* control sockets polled at least every 1 ms (and when idle) */
#define WR_MAX_WAIT_NS 1000000ull  /* one loop turn waits at most 1 ms */
#define WR_TX_SLOTS    512u
#define WR_HELLO_NS    5000000000ull /* a connection's HELLO within 5 s (or the timeout) */


/* One peer connection with its receive buffer. */
struct rv_conn {
	int fd;
	uint32_t rank;
	uint8_t *buf;
	size_t have, cap;
};

/* A received message: type and body (points into the connection's buffer). */
struct rv_msg {
	uint8_t type;
	const uint8_t *body;
	size_t len;
};

/* A write the collective posted while the rank was arming (sent at GO). */
struct deferred {
	struct mrc_coll_xfer x;
	const void *src;
	uint64_t va, wr_id;
	uint32_t imm;
};

struct tap {
	struct pcapw *w;
	int plane;
	bool ingress, egress;
	bool failed; /* a write failed: the file ends at its last whole record, said once */
};

/* One rank's DONE of one iteration (rank 0's table, wr.dtab). */
struct wr_done {
	uint64_t t_ps;		/* completion time, own clock, from GO */
	uint64_t wrong, rtx;	/* wrong elements; retransmitted bytes of the run by then */
	bool have;		/* it came */
};

/* An echo answer waiting for a send slot. */
struct rtt_reply {
	unsigned plane;
	uint16_t len;
	uint8_t pkt[128];
};

struct wr;
struct wphase;

/*
 * The dataplane under a rank's endpoint: raw sockets on io_uring (pump.c) or AF_XDP
 * sockets polled by io_uring (xdp.c), chosen by wr_setup_ports from wire.dataplane. What
 * runs over the wire (the job, the base RTT, `mrcgen sweep`) calls wr_setup_ports,
 * wr_setup_loop, wr_setup_ep, then pumps with wr_pump_until; sends go through
 * w->dp->tx_buf and wr_send_slot, arrivals come to wr_rx, whichever dataplane runs.
 */
struct wr_dp {
	const char *name; /* "socket", "xdp" */
	/* A send buffer for plane @plane (*@cap bytes), NULL when none is free now. */
	uint8_t *(*tx_buf)(struct wr *w, unsigned plane, size_t *cap);
	/* Sends the @n bytes written at the last tx_buf of @plane (@pkt). */
	void (*tx_commit)(struct wr *w, unsigned plane, const uint8_t *pkt, size_t n);
	/* One turn: submits, waits at most @wait_ns, receives (into wr_rx). Returns >= 0 or
	 * a negative errno for a failure of the dataplane itself. */
	int (*run_once)(struct wr *w, uint64_t wait_ns);
	/* The host counters of the result (injected, delivered, host_*, xdp_*). */
	void (*counters)(struct wr *w, struct mrc_run_result *r);
	void (*close)(struct wr *w);
};

struct wr_xdp;
struct wr_boot_ops;

struct wr {
	const struct conf_job *job;
	const struct mrc_wirerun_opts *o;
	const struct wr_boot_ops *boot; /* how the ranks meet: rendezvous or the launcher */
	void *bst;			/* the launcher backend's state */
	struct mrc_job_srv6 m;
	uint32_t rank, nranks;
	uint64_t hash;
	unsigned planes;
	uint64_t timeout_ns;
	/* sockets and loop */
	struct mrc_sock_port ports[MRC_WIRERUN_MAX_PLANES]; /* send sockets (rx_fd closed) */
	int tx_idx[MRC_WIRERUN_MAX_PLANES];
	int rx_fd;		/* one protocol-41 socket for every plane (mrc_sock_rx_open_all) */
	uint64_t rx_foreign;	/* packets that came in on an interface of no plane */
	struct mrc_loop *loop;
	uint64_t last_poll_ns;
	const struct wr_dp *dp;	/* the dataplane (raw sockets or AF_XDP) */
	struct wr_xdp *xdp;	/* the AF_XDP dataplane's state (xdp.c), NULL on sockets */
	int last_send_error;	/* the dataplane's last send error (negative errno) */
	unsigned lane;		/* the xdp dataplane's thread this state is (0: the rank's) */
	pthread_mutex_t *taps_lock; /* captures shared by several threads, else NULL */
	/* engine */
	struct mrc_ep *ep;
	uint32_t n_qsets;	/* QP sets, one per job (0 or 1: one job; wr_qpn) */
	struct wj *wj;		/* several jobs (wjobs.c), NULL for one */
	uint32_t *peer_of_qpn; /* [wr_n_qps + 1] */
	uint32_t rkey[MRC_REG_N];
	struct mrc_coll *coll;
	uint32_t (*peer_rkey)[MRC_REG_N]; /* [nranks] */
	bool arming;
	struct deferred *defq;
	size_t n_def, cap_def;
	bool measuring;
	uint64_t evs_retired;
	uint64_t t0_ns;		/* GO of the first iteration: the report's time 0 */
	uint64_t go_ns;		/* GO of the current iteration */
	uint32_t cur_iter;	/* its global index */
	/*
	 * When an EV went ASSUMED_BAD: global iteration and ps after that iteration's GO on
	 * the rank's own clock, which rank 0 maps onto its own timeline (rank 0: every
	 * rank's). Per iteration, so the skew of the start barrier never accumulates.
	 */
	struct mrc_rankres_bad *bad;
	size_t n_bad, cap_bad;
	/* endpoint faults (NULL without faults:) */
	struct mrc_epf *epf;
	struct mrc_wire_cfg dcfg;	/* decode for the fault hooks: no checks */
	uint32_t measured_iter;		/* of the current size, for at_iteration */
	bool no_at_iter;		/* a step's phase after its first: at_iteration fired */
	struct wphase *wph;		/* traffic.phases: the collective phases (wirerun.c) */
	uint32_t n_wph;
	/* outputs */
	struct tap *taps;
	size_t n_taps;
	struct mrc_hist *msg_ns, *step_ns, *rtt_ns;
	/* rendezvous */
	int lfd;
	struct rv_conn *conns; /* rank 0: [nranks] (own slot unused); others: [1] = rank 0 */
	size_t n_conns;
	const char *rv_addr;   /* the rendezvous address (wr_boot_rv) */
	char rv_path[108];     /* unix socket rank 0 bound, to unlink */
	uint8_t token[MRC_RV_TOKEN_MAX]; /* the job token (rvproto.h), token_len 0: none */
	size_t token_len;
	uint64_t hello_ns;     /* rank 0: how long a connection may take to send its HELLO */
	FILE *rvlog;	       /* rank 0: where dropped connections are said (NULL: stderr) */
	unsigned rv_dropped;   /* rank 0: connections dropped at the rendezvous */
	bool *failed;	       /* rank 0: per rank, it closed, timed out, broke the protocol */
	bool *merged;	       /* rank 0: per rank, its RESULT is merged into the report */
	bool got_abort;	       /* workers: rank 0 sent ABORT (answered with RESULT) */
	/* state from messages */
	bool *got;	       /* rank 0: per rank, the message awaited came */
	uint32_t *mr_of;       /* rank 0: per rank, 1 + the size index of its last MR */
	uint32_t want_mr;      /* rank 0: the MRs awaited are of size index want_mr - 1 */
	struct wr_done *dtab;  /* rank 0: [n_gi * nranks], iteration-major: every rank's DONE */
	struct wr_done *own;   /* [n_gi]: this rank's DONE rows */
	uint32_t n_gi;	       /* iterations of the whole job, warmup of every size counted */
	uint64_t gap_until_ns; /* the running compute gap's end (traffic.gap) */
	uint8_t **result;      /* rank 0: RESULT bodies */
	size_t *result_len;
	int64_t want_iter;     /* workers: ARM/GO awaited for this iteration */
	uint32_t arm_of, go_of;	/* workers: 1 + the iteration of the last ARM, GO */
	bool got_finish, got_mrtab;
	uint64_t (*mrtab_va)[MRC_REG_N];
	/* base RTT (wr_measure_rtt) */
	struct mrc_wire_cfg pcfg;	/* echo probes: the job's codec, checks on */
	struct mrc_wrtt *rtt;		/* while this rank measures */
	struct rtt_reply *replies;	/* [WR_RTT_REPLIES] */
	unsigned n_replies;
	uint64_t replies_dropped;
	bool got_rttgo, got_rttset;
	struct mrc_wirerun_rtt *rtt_out; /* the job's figures (rank 0 fills rank_ns[]) */
	/* a sweep (mrc/wire/wsweep.c): its plan and counts, and its turn in every pump turn,
	 * which sends what is due and says when it is due next (ns, UINT64_MAX: nothing) */
	struct mrc_sweep *sweep;
	uint64_t (*tick)(struct wr *w);
	/* failure */
	int err;
	char errmsg[512];
};

/* ---- wirerun.c ---- */

/*
 * What a run and a sweep both do first (docs/wire-driver.md): this process's rank among
 * @nranks, the config hash, the job token, the plan, output.dir, endpoint faults, sockets,
 * io_uring, captures, the rendezvous, the base RTT (measured with @measure_rtt, else
 * mrc.cc.base_rtt or the wire default, into w->rtt_out, which the caller set) and the
 * endpoint. Returns 0 or mrc_run_wire()'s setup errors with @err; release with wr_close
 * (also after an error).
 */
int wr_open(struct wr *w, const struct conf_job *job, const struct mrc_wirerun_opts *o,
	uint32_t nranks, bool measure_rtt, uint32_t *rank_out, char *err, size_t errlen);
void wr_close(struct wr *w);

/* ---- pump.c: the dataplane (io_uring loop, endpoint, captures, endpoint faults) ---- */

/* Fails the job with @err (-EIO when 0) and a message; the first failure wins. */
void wr_fail(struct wr *w, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
uint64_t wr_mono_ns(void);
/* Records an EV retirement @off_ps after the GO of iteration @iter (dropped on ENOMEM). */
void wr_bad_add(struct wr *w, uint32_t iter, uint64_t off_ps);
/* The QP of set @set (a job's, 0 for one job) to @peer: set x (nranks - 1) + (peer <
 * rank ? peer + 1 : peer), the same number at both ends' reckoning (wr_new_ep). */
uint32_t wr_qpn(const struct wr *w, uint32_t set, uint32_t peer);
/* The QPs of this rank, every set: they are numbered 1..wr_n_qps. */
uint32_t wr_n_qps(const struct wr *w);
/* Posts an RDMA write of @len bytes on QP @qpn now (mrc_ep_post_write: 0, -EAGAIN...). */
int wr_post_qp(struct wr *w, uint32_t qpn, const void *src, uint64_t len, uint64_t va,
	uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id);
/* Posts collective write @x now (the endpoint's QP to x->peer). */
int wr_post_now(struct wr *w, const struct mrc_coll_xfer *x, const void *src, uint64_t va,
	uint32_t imm, uint64_t wr_id);
/* mrc_coll_ops.post: posts now, or holds the write back while the rank arms. */
int wr_coll_post(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x, const void *src,
	uint64_t va, uint32_t imm, uint64_t wr_id);
/* Appends write @x (its source, VA, immediate, work request id) to the writes held back
 * while a rank arms (@q: *@n of *@cap, doubled from 64 when full). 0 or -ENOMEM. */
int wr_defer(struct deferred **q, size_t *n, size_t *cap, const struct mrc_coll_xfer *x,
	const void *src, uint64_t va, uint32_t imm, uint64_t wr_id);
/* At GO: posts the *@n writes of @q through @ops->post with @ctx (arming over: they go now)
 * and clears *@n. 0, or the first failure, which fails the run naming the peer (and
 * @job, when not NULL). */
int wr_post_deferred(struct wr *w, const struct mrc_coll_ops *ops, void *ctx,
	const struct deferred *q, size_t *n, const char *job);
/* A measured iteration's write @wr_id of collective @c completed at @now (ps): its latency
 * from its post, or from GO (@go_ns) for one posted while arming, into w->msg_ns (ns). */
void wr_msg_latency(struct wr *w, struct mrc_coll *c, uint64_t wr_id, uint64_t go_ns,
	uint64_t now);
/* Sends @n bytes written into a send slot on plane @p (egress captures first). */
void wr_send_slot(struct wr *w, unsigned p, const uint8_t *pkt, size_t n);
/* One turn: send, wait (at most @max_wait_ns, less for the engine's timers and the
 * tick), receive, timers, control messages. */
void wr_pump(struct wr *w, uint64_t max_wait_ns);
/* Pumps until @cond(w) holds, the job fails, or the timeout passes (fails with @what). */
int wr_pump_until(struct wr *w, bool (*cond)(struct wr *), const char *what);
/* A packet that arrived on @plane: the inner IPv6 packet, @ce the outer header's CE. */
void wr_rx(struct wr *w, unsigned plane, const uint8_t *buf, size_t len, bool ce);
/* The interface of port @p: --ports' name, else "p<p>" written into @buf. */
const char *wr_port_name(const struct wr *w, unsigned p, char *buf, size_t len);
int wr_setup_ports(struct wr *w, char *err, size_t errlen);
int wr_setup_loop(struct wr *w, char *err, size_t errlen);
int wr_setup_sock_ports(struct wr *w, char *err, size_t errlen);
int wr_setup_sock_loop(struct wr *w, char *err, size_t errlen);
int wr_setup_ep(struct wr *w, char *err, size_t errlen);
/* The endpoint's completions (pump.c): what a rank's own endpoint calls. */
extern const struct mrc_ep_ops wr_ep_ops;
/* An endpoint with the QPs numbered [@lo, @hi), its completions to @ops with @ctx. */
int wr_new_ep(struct wr *w, uint32_t lo, uint32_t hi, const struct mrc_ep_ops *ops, void *ctx,
	struct mrc_ep **out, char *err, size_t errlen);
int wr_new_epf(struct wr *w, unsigned lane, struct mrc_epf **out, char *err, size_t errlen);
/* Pulls packets from @w's endpoint for every plane until it has none or no buffer is free. */
void wr_tx_all(struct wr *w);
int wr_setup_faults(struct wr *w, char *err, size_t errlen);
int wr_setup_captures(struct wr *w, char *err, size_t errlen);
/* Closes the captures, says what the endpoint faults did, frees endpoint, loop, sockets. */
void wr_dataplane_close(struct wr *w);

/* ---- xdp.c: the AF_XDP dataplane (docs/wire-xdp.md) ---- */

/* Opens every port's AF_XDP socket (mrc/wire/xsk.h) and sets w->dp; on failure nothing
 * stays open and @err names the port. */
int wr_xdp_open(struct wr *w, char *err, size_t errlen);
/* The io_uring loop polling the AF_XDP sockets; the dataplane threads past the first. */
int wr_xdp_setup_loop(struct wr *w, char *err, size_t errlen);
/* After the endpoint exists: the dataplane threads start (wire.xdp_threads > 1). */
int wr_xdp_start(struct wr *w, char *err, size_t errlen);
/* Stops and joins the dataplane threads (their state stays until the dataplane closes). */
void wr_xdp_stop(struct wr *w);
/* The QPs thread @lane owns: [*lo, *hi). */
void wr_xdp_qp_range(const struct wr *w, unsigned lane, uint32_t *lo, uint32_t *hi);
/* The thread that owns QP @qpn (0 without threads). */
unsigned wr_xdp_lane_of(const struct wr *w, uint32_t qpn);
/* Posts a write (@with_imm: with immediate @imm) to QP @qpn of another thread, through its
 * command ring: 0, or -EBUSY when the ring is full; the endpoint's refusal comes back
 * later (wr_jobs_post_failed, else the job fails). */
int wr_xdp_post(struct wr *w, uint32_t qpn, const void *src, uint64_t len, uint64_t va,
	uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id, uint64_t now_ps);
/*
 * The rank's lanes: 1 on raw sockets or one thread, else wire.xdp_threads; lane 0 is @w
 * itself, each other a dataplane thread's state (its endpoint with its QPs, its faults).
 * What reads or changes another thread's endpoint or faults from the rank's thread
 * (memory regions, results, the fault timeline) parks them first: wr_lanes_park stops each
 * at the top of its loop until wr_lanes_unpark (no-ops without threads).
 */
unsigned wr_lanes(const struct wr *w);
struct wr *wr_lane(struct wr *w, unsigned lane);
void wr_lanes_park(struct wr *w);
void wr_lanes_unpark(struct wr *w);
/* The endpoint that holds QP @qpn. */
struct mrc_ep *wr_ep_of(struct wr *w, uint32_t qpn);
/*
 * ---- the bootstrap: how the ranks meet and agree, one backend per launcher ----
 * bootstrap.c: the TCP/unix rendezvous at rank 0 (wr_boot_rv); bootpmix.c: the launcher's
 * PMIx server (wr_boot_pmix). Each step returns 0 or the job's error (w->err, wr_fail); a
 * wait pumps the dataplane (wr_pump_until) so a rank keeps answering its peers.
 */
struct wr_boot_ops {
	const char *name;	/* "rendezvous", "pmix": report.json wire.bootstrap */
	/*
	 * Reaches the rendezvous or the launcher, before --netns is entered and before any
	 * socket of the dataplane: sets w->rank (unless known) and checks the job's size.
	 */
	int (*connect)(struct wr *w, char *err, size_t errlen);
	/* Every rank is in and runs the same config (w->hash); the dataplane is up. */
	int (*join)(struct wr *w, char *err, size_t errlen);
	/* Base RTT: returns when this rank may start probing (every rank joined). */
	int (*rtt_start)(struct wr *w);
	/*
	 * Base RTT: this rank's figure, probes sent and answered (@mine: be64, be32, be32);
	 * returns with w->rtt_out's base_rtt_ns and source set (rank 0: rank_ns[] and the
	 * probe sums too), decided by wr_rtt_decide.
	 */
	int (*rtt_agree)(struct wr *w, const uint8_t mine[16]);
	/* Size @s: this rank's regions (@mine: MRC_REG_N x va be64, rkey be32) -> every
	 * rank's, into w->mrtab_va and w->peer_rkey. */
	int (*mrs)(struct wr *w, uint32_t s, const uint8_t *mine);
	/* Iteration @gi: returns when this rank may arm it (fill inputs, clear outputs). */
	int (*arm)(struct wr *w, uint32_t gi);
	/* The start barrier of iteration @gi: returns when every rank is armed. */
	int (*go)(struct wr *w, uint32_t gi);
	/* The end of iteration @gi; this rank's row is w->own[gi] (rank 0: in w->dtab as the
	 * others' come, now or with their results). */
	int (*done)(struct wr *w, uint32_t gi);
	/* The end of the job: this rank's RESULT (wr_encode_result) to rank 0 (rank 0:
	 * w->result[] of every other rank, and their DONE rows in w->dtab). */
	int (*results)(struct wr *w);
	/*
	 * The job failed (@why; w->err when the failure was the job's). Rank 0 tells the
	 * others; once there is an endpoint (w->ep) it collects the RESULT of every rank still
	 * there into w->result[] (and their DONE rows into w->dtab), marks those that failed
	 * in w->failed[] and may put a better reason, naming the rank, into @why (@whylen);
	 * the others hand theirs over (wr_encode_result). Bounded by the timeout.
	 */
	void (*fail)(struct wr *w, char *why, size_t whylen);
	/* Releases the connections (the launcher's stays until mrc_wirerun_end). */
	void (*close)(struct wr *w);
};

extern const struct wr_boot_ops wr_boot_rv, wr_boot_pmix;

#define WR_DONE_LEN 28u /* a DONE: iteration u32, time u64 ps, wrong u64, rtx u64 */

/* DONE row @d of iteration @gi as the rendezvous's DONE body (big-endian, WR_DONE_LEN). */
void wr_done_encode(const struct wr_done *d, uint32_t gi, uint8_t out[WR_DONE_LEN]);
/* A DONE body of @len >= 20 bytes into @d (rtx 0 when it is shorter than WR_DONE_LEN). */
void wr_done_decode(struct wr_done *d, const uint8_t *b, size_t len);

/* The job's base RTT from o->rank_ns (every rank's figure) and the probe sums (wirertt.c). */
void wr_rtt_decide(struct wr *w);

/* ---- bootstrap.c: the rendezvous ---- */

/* Sends one framed message (be32 length, type, body) on @c; fails the job on error. */
int wr_rv_send(struct wr *w, struct rv_conn *c, uint8_t type, const void *body, size_t len);
/* Rank 0: sends @type with @body to every other rank. */
int wr_rv_bcast(struct wr *w, uint8_t type, const void *body, size_t len);
/* Rank 0: listens and admits every other rank (HELLO checked: rank, size, config hash). */
int wr_rv_listen(struct wr *w, const char *addr, char *err, size_t errlen);
/* Other ranks: connect to rank 0 (retrying until the timeout), HELLO, WELCOME. */
int wr_rv_join(struct wr *w, const char *addr, char *err, size_t errlen);
/*
 * Reads what @c has without blocking, never failing the job: 1 with a message in @m (its
 * bytes consumed by the next call through *@consume), 0 none complete yet, -EPROTO (bad
 * length, in *@bad_len), -EPIPE (closed), -ENOMEM or another -errno.
 */
int wr_rv_read(struct rv_conn *c, struct rv_msg *m, size_t *consume, uint32_t *bad_len);
/* Reads and handles every complete message of every connection, without blocking. */
void wr_ctl_poll(struct wr *w);
/* Rank 0: tells every connected rank why the job failed (ABORT with @why), best effort. */
void wr_rv_abort(struct wr *w, const char *why);
/* Closes every rendezvous connection and the listener; unlinks the unix socket. */
void wr_rv_close(struct wr *w);
bool wr_all_got(struct wr *w);
bool wr_all_mr(struct wr *w);
void wr_clear_got(struct wr *w);
/* Names the ranks rank 0 still waits for (got[r] false, r > 0), into the failure message, and
 * marks them failed (report.json wire.failed_ranks); only after a timeout (-ETIMEDOUT). */
void wr_name_missing(struct wr *w);
/*
 * As wr_name_missing, for a wait among the ranks r with @in[r] (@in NULL: every rank but 0)
 * on @got[] ([nranks]): appends @what, " from" and " hR" for each rank still missing (rank 0
 * too, its own part of a job's barrier, but never marked failed: it is the one waiting).
 */
void wr_name_missing_of(struct wr *w, const char *what, const bool *got, const bool *in);

/* ---- wirerun.c ---- */

/* This rank's RESULT body (JSON, rankres.h), malloc'd into *out. Returns 0 or -ENOMEM. */
int wr_encode_result(struct wr *w, char **out, size_t *len);
/* mrc_coll_ops of the one job: wr_coll_post. */
extern const struct mrc_coll_ops wr_cops;
/*
 * This rank's collective of job @t for @size, or (@ph) of that phase, into *@out, posting
 * through @cops with @ctx: one rank's buffers per process (@local), real bytes, checked
 * as the simulator's verify: bytes (docs/verification.md); res->nranks set when @res.
 * 0 or a negative errno with @err.
 */
int wr_wire_coll(struct wr *w, const struct conf_traffic *t, struct mrc_run_result *res,
	const struct conf_phase *ph, uint64_t size, bool *local, struct mrc_job_coll_mem *cmem,
	struct mrc_coll_params *cp, const struct mrc_coll_ops *cops, void *ctx,
	struct mrc_coll **out, char *err, size_t errlen);
/* Registers @len bytes at @base (memory region @g, for the message) with every lane's
 * endpoint (parked by the caller), the same R_Key each (*@key, 0 for @len 0); a thread's
 * other key fails the job (-EPROTO), so does a refused registration (mrc_ep_reg_mr's
 * -EINVAL, -ENOMEM): the caller checks w->err before it advertises *@key. */
void wr_reg_all(struct wr *w, void *base, uint64_t len, uint32_t *key, int g);
/* Endpoint faults (mrc/wire/epfault.h) on every lane's copy of the timeline at a GO at
 * @go_ns: @start, the run's start; @iteration, measured iteration w->measured_iter's
 * (at_iteration). Nothing without faults. */
void wr_epf_go(struct wr *w, bool start, bool iteration, uint64_t go_ns);
/* Rank 0: size row @rs of collective @c (@cp): bytes, count, pairs, CCT histogram. 0 or
 * -ENOMEM. */
int wr_size_row(struct wr *w, struct mrc_coll *c, const struct mrc_coll_params *cp,
	struct mrc_run_size *rs);
/* Registers w->coll's regions on this rank and swaps VA/rkey with every peer (the
 * bootstrap's mrs, exchange @size_idx): w->peer_rkey, w->mrtab_va, the collective's VAs. */
int wr_exchange_mrs(struct wr *w, uint32_t size_idx);
/* This rank's retransmitted bytes so far, over all its QPs. */
uint64_t wr_rank_rtx_bytes(struct wr *w);
/*
 * This rank's DONE row @own of round @gi of collective @c (job @t): its completion time
 * from GO (the collective's rank time less @lead_ps, GO's lag after the arm it counts
 * from), #wrong (with t->verify), retransmitted bytes so far; with @measured its steps'
 * times into w->step_ns.
 */
void wr_own_row(struct wr *w, const struct conf_traffic *t, struct mrc_coll *c, uint32_t gi,
	bool measured, uint64_t lead_ps, struct wr_done *own);
/*
 * Rank 0, once the ranks' DONE rows of job @t are in @dtab ([@n_gi x nranks], iteration-
 * major): each iteration's CCT (the slowest rank's completion; rows that never came, of a
 * rank that died under a launcher, left out), #wrong and retransmitted bytes over the
 * ranks; then each size's figures from its measured iterations: the CCT histogram, #wrong,
 * and when the size finished its mean time, algbw and busbw (nccl-tests' busbw factor over
 * @nranks).
 */
void wr_fill_rows(struct wr *w, const struct conf_traffic *t, const struct wr_done *dtab,
	uint32_t n_gi, struct mrc_run_size *sizes, size_t n_sizes, struct mrc_run_iter *iters,
	size_t n_iters, uint32_t nranks);

/* ---- wjobs.c: several jobs at once (docs/wire-driver.md "Several jobs") ---- */

/* traffic.phases of @t: the gap phases after its @k-th collective phase (k = 0: before the
 * first), up to the next collective phase (or the step's end), summed, ps. */
uint64_t wr_phase_gaps(const struct conf_traffic *t, uint32_t k);
/*
 * Rank 0, traffic.phases of job @t (docs/report.md "Several jobs"): its rounds (*@iters,
 * one per collective phase and step, size_idx the collective phase; *@sizes a row per
 * collective phase, wr_fill_rows' figures in them) become its steps: one step row and one
 * iteration per step, from its first gap phases before its first round's GO to its last
 * round's end and its last gap phases (the barriers between phases included; the
 * simulator's step), @rj's phases (the rows' figures, their histograms moved) and
 * phase times (a gap's: its length); with @bad, the EV retirements' rounds onto the steps.
 * *@sizes and *@iters are freed and replaced by @rj's. 0 or -ENOMEM.
 */
int wr_fold_phases(struct wr *w, const struct conf_traffic *t, struct mrc_run_job *rj,
	struct mrc_run_size **sizes, size_t *n_sizes, struct mrc_run_iter **iters,
	size_t *n_iters, uint32_t nranks, bool bad);

/*
 * Runs every job of traffic as a list on this rank: each one's collectives (or background
 * sink) made and their regions exchanged, then each job this rank takes part in on the one
 * loop, each with its own QPs (QP set = its index) and its own barrier among its ranks,
 * which rank 0 runs (start, after, gap); rank 0 fills @res's jobs[] (the top level the
 * first job's), also after a failure. Returns 0 or the job's error with @err.
 */
int wr_run_jobs(struct wr *w, struct mrc_run_result *res, char *err, size_t errlen);
/*
 * A message of the several jobs' protocol from rank @from (docs/wire-driver.md "Several
 * jobs"): 0, or -EPROTO with the reason in @why (@whylen bytes; the caller fails the job
 * naming the sender) when it is malformed (shorter than its fields), names a job not set
 * up or an iteration past the job's last, reaches a rank outside the job, or comes out of
 * the protocol's order: a JARM or JGO of another iteration than the rank awaits (a JGO
 * before that iteration's JARM), a JEND before its job's JGO or a second one, a JARMED,
 * JDONE or JBG that rank 0's barrier of the job does not await now.
 */
int wr_jobs_on_msg(struct wr *w, uint32_t from, const struct rv_msg *m, char *why,
	size_t whylen);
/* The endpoint's completions of QP @qpn's job (pump.c calls them when w->wj). */
void wr_jobs_send_done(struct wr *w, uint32_t qpn, uint64_t wr_id, uint64_t now);
int wr_jobs_recv(struct wr *w, uint32_t qpn, uint32_t imm, uint64_t now);
/* Another thread's endpoint refused post @wr_id to QP @qpn with @status: true when that is
 * a background job's full send queue (-EAGAIN), counted as refused as on one thread. */
bool wr_jobs_post_failed(struct wr *w, uint32_t qpn, uint64_t wr_id, int status);
void wr_jobs_free(struct wr *w);

/* ---- wirertt.c: the job's base RTT ---- */

/* Answers or takes an echo probe; true when @buf was one (never for the engine). */
bool wr_rtt_rx(struct wr *w, const uint8_t *buf, size_t len);
/* Sends the queued echo answers and this rank's next requests, while slots last. */
void wr_rtt_tx(struct wr *w);
int wr_setup_probe_codec(struct wr *w);
/* The job's base RTT into w->rtt_out, before any endpoint exists. */
int wr_measure_rtt(struct wr *w);

#endif
