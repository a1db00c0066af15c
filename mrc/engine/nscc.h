/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nscc: congestion control behind an ops table — NSCC (UET's network-signal CC, the four
 * quadrants of docs/wire-format.md "Congestion control") and `fixed` (constant window).
 * Pure: time is an input in picoseconds, windows are bytes.
 */
#ifndef MRC_NSCC_H
#define MRC_NSCC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * CC profile. Names follow mrc_ctl.h (docs/wire-format.md "Congestion control"); times in ps, sizes
 * in bytes. mrc_cc_defaults() fills every field from the link rate, base RTT and MTU.
 */
struct mrc_cc_params {
	uint64_t base_rtt_ps;	  /* unloaded RTT */
	uint64_t target_delay_ps; /* queueing delay target (RTT - base_rtt) */
	double eta;		  /* bytes added per RTT of ACKs in the proportional quadrant */
	double fi;		  /* fair increase: bytes added per RTT of ACKs, delay >= target */
	double fi_scale;	  /* fast increase: window fraction added per RTT while the
				   * delay stays under target/4 for a whole base RTT */
	double gamma;		  /* MD gain: cwnd *= 1 - gamma * (delay - target) / delay */
	double max_md_jump;	  /* largest fraction one MD may remove (0..1) */
	uint64_t max_cwnd;	  /* window ceiling */
	uint64_t min_cwnd;	  /* window floor (one MTU) */
	uint64_t init_cwnd;	  /* starting window; also the window of `fixed` */
	uint64_t qa_threshold_ps; /* delay above this triggers quick adapt */
	unsigned qa_gate;	  /* QA acts only if achieved < cwnd - cwnd >> qa_gate */
	uint64_t adjust_bytes_threshold;     /* apply accumulated increase after this many */
	uint64_t adjust_period_threshold_ps; /* ... or this long, whichever comes first */
	bool disable_qa;
	uint32_t mtu; /* payload bytes of a full packet */
};

/*
 * Fills @p with NSCC defaults scaled like UEC htsim's uec.cpp from its reference point
 * (100 Gb/s, 12 us base RTT: BDP 150,000 B): with a = BDP / 150,000 B and target =
 * 0.75 * base RTT, b = target / 9 us: max_cwnd = 1.5 BDP, init_cwnd = BDP, min_cwnd = mtu,
 * eta = 4 * mtu * a * b, fi = mtu * a, fi_scale = 0.25, gamma = 0.8, max_md_jump = 0.5,
 * qa_threshold = 4 * target, qa_gate = 3, adjust_bytes_threshold = 8 * mtu,
 * adjust_period_threshold = base RTT. @link_rate_bps is one plane port's rate times the
 * planes a QP sprays over. Returns 0, or -EINVAL when a value is 0.
 */
int mrc_cc_defaults(
	struct mrc_cc_params *p, uint64_t link_rate_bps, uint64_t base_rtt_ps, uint32_t mtu);

/* Which quadrant an ACK fell in (docs/wire-format.md "Congestion control"). */
enum mrc_cc_quadrant {
	MRC_CCQ_PROPORTIONAL = 0, /* no ECN, delay < target: proportional increase */
	MRC_CCQ_FAIR,		  /* no ECN, delay >= target: fair increase */
	MRC_CCQ_MD,		  /* ECN, delay >= target: multiplicative decrease */
	MRC_CCQ_NONE,		  /* ECN, delay < target: no change (the EV is skipped) */
};

struct mrc_cc;

/* One congestion-control algorithm. All hooks take the CC state and the time in ps. */
struct mrc_cc_ops {
	const char *name;
	void (*init)(struct mrc_cc *cc);
	/* An ACK newly covering @acked_bytes; @delay_ps = RTT - base RTT of the sample (or
	 * UINT64_MAX when the ACK carried no usable sample); @ecn: m=1 echo. */
	void (*on_ack)(struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t delay_ps,
		bool ecn);
	/* A trim NACK for a packet of @bytes. */
	void (*on_trim)(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);
	/* A loss without trim (SACK hole or RTO) of @bytes. */
	void (*on_loss)(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);
};

/* CC state of one QP. Transparent so counters can be read; change it through the ops. */
struct mrc_cc {
	const struct mrc_cc_ops *ops;
	const struct mrc_cc_params *p; /* shared (an endpoint's QPs all point to one) */
	double cwnd;	  /* bytes */
	double inc_bytes; /* increase accumulated since the last adjustment */
	uint64_t acked_since_adjust, last_adjust_ps;
	uint64_t last_md_ps;				  /* MD at most once per base RTT */
	bool md_done;					  /* an MD happened (last_md_ps valid) */
	uint64_t win_start_ps, win_acked, last_win_acked; /* achieved bytes per base RTT */
	uint64_t fast_start_ps; /* since when delays stayed under target/4 */
	uint64_t qa_block_until_ps;
	uint64_t n_quadrant[4], n_md, n_qa, n_trim_dec;
	int last_quadrant;
};

/* The algorithm named @name ("nscc", "fixed"), or NULL. */
const struct mrc_cc_ops *mrc_cc_find(const char *name);

/* Sets up @cc with @ops and @p (not copied: it must outlive @cc); cwnd starts at
 * p->init_cwnd. */
void mrc_cc_init(struct mrc_cc *cc, const struct mrc_cc_ops *ops, const struct mrc_cc_params *p);

/* Current window in bytes (at least min_cwnd). */
uint64_t mrc_cc_cwnd(const struct mrc_cc *cc);

/* Dispatch helpers (the event names of the ops table). */
void mrc_cc_on_ack(
	struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t delay_ps, bool ecn);
void mrc_cc_on_trim(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);
void mrc_cc_on_loss(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes);

#endif
