/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nscc: congestion control behind an ops table — NSCC as UEC's reference computes it (htsim
 * sim/uec.cpp; docs/wire-format.md "Congestion control"), `fixed` (constant window) and
 * `dcqcn` (rate-based, the RoCE baseline's: mrc/engine/dcqcn.h, docs/wire-format.md
 * "DCQCN"). Pure: time is an input in picoseconds, windows are bytes.
 */
#ifndef MRC_NSCC_H
#define MRC_NSCC_H

#include "mrc/engine/dcqcn.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * CC profile. Names follow mrc_ctl.h's struct mrc_ctl_cc_nscc_cfg, with the meanings and
 * defaults of UEC's NSCC reference (htsim sim/uec.cpp: UecSrc::initNsccParams, initNscc and
 * the updateCwndOn* functions; docs/wire-format.md "Congestion control"). Times in ps,
 * windows and sizes in payload bytes (the MSS is the payload MTU). mrc_cc_defaults() fills
 * every field from the link rate, base RTT, MTU and whether the fabric trims.
 */
struct mrc_cc_params {
	uint64_t base_rtt_ps;	  /* unloaded RTT at the start; each QP then keeps the smallest
				   * RTT it measures (and derives its maxwnd from it) */
	uint64_t target_delay_ps; /* queueing delay target: 0.75 RTT with trimming, 1.0 without */
	double alpha;		  /* proportional gain, B/ps: 4 MSS a b / target */
	double eta;		  /* additive increase, B, once per adjust period: 0.15 MSS a */
	double fi;		  /* fair increase, B per RTT of ACKs at delay >= target: 5 MSS a */
	double fi_scale;	  /* fast increase: cwnd grows fi_scale x acked bytes while the
				   * delay stays under 1 us for a cwnd of bytes: 0.25 a */
	double gamma;		  /* MD gain: cwnd *= max(1 - gamma (avg - target) / avg, ...) */
	double max_md_jump;	  /* ... max_md_jump): the smallest factor one MD applies, 0.5 */
	double delay_alpha;	  /* gain of the delay EWMA the MD reads: 0.0125 */
	uint64_t max_cwnd;	  /* maxwnd: 1.5 BDP (recomputed per QP as its base RTT falls,
				   * unless set explicitly: then fixed) */
	bool max_cwnd_fixed;	  /* max_cwnd was configured: base RTT updates keep it */
	uint64_t min_cwnd;	  /* window floor: one MTU */
	uint64_t init_cwnd;	  /* starting window = maxwnd; also the window of `fixed` */
	uint64_t qa_threshold_ps; /* a delay above this may trigger quick adapt: 4 x target */
	unsigned qa_gate;	  /* QA acts only when achieved < maxwnd >> qa_gate: 3 */
	uint64_t adjust_bytes_threshold;     /* apply the accumulated increase after more
					      * than this many acked bytes (8 MTU) ... */
	uint64_t adjust_period_threshold_ps; /* ... or this long (one base RTT) */
	bool disable_qa;
	uint32_t mtu;		  /* payload bytes of a full packet (the MSS) */
	uint64_t link_rate_bps;	  /* what a QP sprays over: the BDP of a base RTT */
	struct mrc_dcqcn_params dcqcn; /* algorithm dcqcn (its max_rate: one port's rate) */
};

/*
 * Fills @p with NSCC defaults as UEC htsim's uec.cpp (initNsccParams, initNscc) scales them
 * from its reference point, 100 Gb/s and 12 us (BDP 150,000 B): BDP = rate x base RTT,
 * a = BDP / 150,000 B, target = 0.75 base RTT when @trimming else 1.0 base RTT,
 * b = target / 12 us; alpha = 4 mtu a b / target, eta = 0.15 mtu a, fi = 5 mtu a,
 * fi_scale = 0.25 a, gamma = 0.8, max_md_jump = 0.5, delay_alpha = 0.0125,
 * max_cwnd = init_cwnd = 1.5 BDP, min_cwnd = mtu, qa_threshold = 4 target, qa_gate = 3,
 * adjust_bytes_threshold = 8 mtu, adjust_period_threshold = base RTT. @link_rate_bps is one
 * plane port's rate times the planes a QP sprays over. dcqcn gets mrc_dcqcn_defaults() with
 * @link_rate_bps as its maximum rate (a caller that knows one port's rate, which a RoCE QP
 * is bound to, sets that instead). Returns 0, or -EINVAL when a value is 0.
 */
int mrc_cc_defaults(struct mrc_cc_params *p, uint64_t link_rate_bps, uint64_t base_rtt_ps,
	uint32_t mtu, bool trimming);

/*
 * Derives what follows from the target delay again after a caller changed it: alpha and
 * qa_threshold (uec.cpp initNsccParams). Call before overriding those two explicitly.
 */
void mrc_cc_retarget(struct mrc_cc_params *p);

/* Which quadrant an ACK fell in (docs/wire-format.md "Congestion control"). */
enum mrc_cc_quadrant {
	MRC_CCQ_PROPORTIONAL = 0, /* no ECN, delay < target: proportional (or fast) increase */
	MRC_CCQ_FAIR,		  /* no ECN, delay >= target: fair increase */
	MRC_CCQ_MD,		  /* ECN, delay >= target: multiplicative decrease */
	MRC_CCQ_NONE,		  /* ECN, delay < target: no change (the EV is skipped) */
};

struct mrc_cc;

/*
 * One congestion-control algorithm. All hooks take the CC state, the time in ps and the
 * QP's bytes in flight at that moment (what quick adapt then ignores feedback on).
 */
struct mrc_cc_ops {
	const char *name;
	void (*init)(struct mrc_cc *cc);
	/* An ACK newly covering @acked_bytes; @rtt_ps: its RTT sample, or UINT64_MAX when it
	 * carried none (the delay is then the EWMA's); @ecn: m=1 echo. */
	void (*on_ack)(struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t rtt_ps,
		bool ecn, uint64_t inflight);
	/* A trim NACK for a packet of @bytes. */
	void (*on_trim)(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight);
	/* A loss without a trim seen by the SACKs (a failed path) of a packet of @bytes. */
	void (*on_loss)(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight);
	/* A retransmission timeout; @bytes: the oldest packet's, resent. */
	void (*on_rto)(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);
	/* Rate-based algorithms only (NULL for window-based ones): a CNP reached the QP ... */
	void (*on_cnp)(struct mrc_cc *cc, uint64_t now_ps);
	/* ... and a data packet of @bytes on the wire left it; returns the pacing gap in ps,
	 * the least time until its next packet may leave (0: no pacing). */
	uint64_t (*on_tx)(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);
};

/*
 * CC state of one QP. Transparent so counters can be read; change it through the ops. The
 * window algorithms' state and DCQCN's share the space (a QP runs one algorithm).
 */
struct mrc_cc {
	const struct mrc_cc_ops *ops;
	const struct mrc_cc_params *p; /* shared (an endpoint's QPs all point to one) */
	double cwnd;		       /* bytes (dcqcn: one no window reaches) */
	union {
		struct { /* nscc, fixed */
			uint64_t base_rtt_ps; /* smallest RTT seen (from p->base_rtt_ps) */
			uint64_t maxwnd;      /* 1.5 x base RTT x rate, or p->max_cwnd if fixed */
			double avg_delay_ps;  /* EWMA of the queueing delay, what the MD reads */
			double inc_bytes;     /* increase accumulated since the adjustment, B^2 */
			uint64_t received_bytes; /* acked since the last adjustment */
			uint64_t last_adjust_ps, last_md_ps;
			uint64_t fi_count;	/* bytes acked at under 1 us of delay, in a row */
			bool fast;		/* fast increase is on */
			bool trigger_qa;	/* a trim or loss since the last quick adapt */
			uint64_t achieved_bytes; /* acked in the current quick-adapt window */
			uint64_t qa_end_ps;	/* its end; 0 before the first ACK armed it */
			uint64_t bytes_to_ignore, bytes_ignored; /* after a QA: then in flight */
			double pen_saved;	/* cwnd when a receiver penalty began (0: none) */
			uint64_t n_quadrant[4], n_md, n_qa, n_trim_dec, n_fast, n_rcv_pen;
			int last_quadrant;
		};
		struct mrc_dcqcn rp; /* dcqcn: the reaction point */
	};
};

/* The algorithm named @name ("nscc", "fixed", "dcqcn"), or NULL. */
const struct mrc_cc_ops *mrc_cc_find(const char *name);

/* Sets up @cc with @ops and @p (not copied: it must outlive @cc); cwnd starts at
 * p->init_cwnd. */
void mrc_cc_init(struct mrc_cc *cc, const struct mrc_cc_ops *ops, const struct mrc_cc_params *p);

/* Current window in bytes (at least min_cwnd). */
uint64_t mrc_cc_cwnd(const struct mrc_cc *cc);

/* Dispatch helpers (the event names of the ops table). */
void mrc_cc_on_ack(struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t rtt_ps,
	bool ecn, uint64_t inflight);
void mrc_cc_on_trim(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight);
void mrc_cc_on_loss(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight);
void mrc_cc_on_rto(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);

/* True for a rate-based algorithm (dcqcn): CNPs are its signal and its QPs are paced. */
bool mrc_cc_rate_based(const struct mrc_cc_ops *ops);
/* A CNP reached the QP (no-op for window algorithms). */
void mrc_cc_on_cnp(struct mrc_cc *cc, uint64_t now_ps);
/* A data packet of @bytes on the wire left the QP: the pacing gap in ps (0 for window
 * algorithms, and for DCQCN at its maximum rate). */
uint64_t mrc_cc_on_tx(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);

/*
 * The receiver's CC_STATE rcv_cwnd_pen @pen (0..127) and restore bit, on an ACK newly
 * covering @newly bytes: cwnd -= newly x pen >> 7, at least min_cwnd (uec.cpp processAck
 * applies the same cut with an 8-bit scale, 255 = none; the MRC 1.0 tables carry 7 bits,
 * 0 = none). The window when a penalty began is kept; @restore brings cwnd back up to it
 * (bounded by maxwnd). No-op for the fixed window.
 */
void mrc_cc_on_rcv_pen(struct mrc_cc *cc, uint64_t newly, unsigned pen, bool restore);

#endif
