/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dcqcn: the reaction point (requester) of DCQCN, the congestion control of RoCEv2 NICs (Zhu
 * et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, section 3.1
 * and figure 6), with the parameters and timing of NVIDIA ConnectX NICs (docs/config.md
 * "mrc.cc.dcqcn"; docs/wire-format.md "DCQCN"). Rate based: a QP sends at its current rate
 * Rc, cut on congestion notification packets (CNPs) and raised by a timer and a byte
 * counter. Pure: time is an input in picoseconds, rates are bits per second.
 *
 * - Alpha: from the first CNP on, every alpha period (dce_tcp_rtt) alpha = (1 - g) alpha
 *   + g when a CNP came during the period, else (1 - g) alpha; g = 1 - dce_tcp_g / 1024.
 *   The first CNP sets alpha to initial_alpha_value / 1024 and does not count for the
 *   period it starts (the ns-3 model of ConnectX, HPCC's rdma-hw.cc cnp_received_mlx).
 * - Decrease: the reduce-monitor periods (rate_reduce_monitor_period) start at the first
 *   CNP; at the end of a period in which a CNP came, after that instant's alpha update,
 *   the target rate Rt = Rc (when clamp_tgt_rate, or when the last increase since the
 *   previous cut was the byte counter's, or the timer's with clamp_tgt_rate_after_time_inc),
 *   then Rc = max(Rc (1 - alpha 2^10 / 2^rpg_gd), Rc rpg_min_dec_fac / 100, rpg_min_rate);
 *   the timer stage T, the byte stage BC and the byte count restart, and the increase timer
 *   with them. rpg_gd 11 is the paper's Rc (1 - alpha / 2).
 * - Increase: every rpg_time_reset after a cut (T = T + 1) and every rpg_byte_reset bytes
 *   sent (BC = BC + 1) while Rc is below the maximum rate: fast recovery when max(T, BC)
 *   <= F (rpg_threshold), Rc = (Rt + Rc) / 2; hyper increase when min(T, BC) > F, Rt +=
 *   (min(T, BC) - F) Rhai, then Rc = (Rt + Rc) / 2; additive increase otherwise, Rt += Rai,
 *   then Rc = (Rt + Rc) / 2 (the paper's figure 6, as htsim's dcqcn.cpp increaseRate). Rt
 *   and Rc stay at most the maximum rate.
 * - The notification point's rule, at most one CNP per cnp_interval per QP, is the
 *   responder's (mrc/engine/qp.c); its interval lives here with the other DCQCN knobs.
 */
#ifndef MRC_DCQCN_H
#define MRC_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * DCQCN parameters, named after the ConnectX knobs (mlxconfig / sysfs roce_rp and roce_np);
 * defaults in mrc_dcqcn_defaults(). Times in ps, rates in b/s.
 */
struct mrc_dcqcn_params {
	uint64_t max_rate_bps;	     /* start and ceiling of Rc and Rt: the QP's port rate
				      * (rpg_max_rate 0 = line rate) */
	uint64_t min_rate_bps;	     /* rpg_min_rate */
	uint64_t ai_rate_bps;	     /* rpg_ai_rate: Rai */
	uint64_t hai_rate_bps;	     /* rpg_hai_rate: Rhai */
	uint64_t time_reset_ps;	     /* rpg_time_reset: the increase timer */
	uint64_t byte_reset;	     /* rpg_byte_reset, bytes on the wire; 0: no byte counter */
	uint32_t threshold;	     /* rpg_threshold: F */
	uint32_t gd;		     /* rpg_gd: a cut takes alpha 2^10 / 2^gd of Rc */
	uint32_t min_dec_fac;	     /* rpg_min_dec_fac: a cut leaves at least this % of Rc */
	uint64_t first_cnp_rate_bps; /* rate_to_set_on_first_cnp: Rc = Rt = this at the first
				      * CNP; 0: off */
	uint32_t g;		     /* dce_tcp_g, /1024: alpha keeps g/1024 per period */
	uint64_t alpha_period_ps;    /* dce_tcp_rtt */
	uint32_t initial_alpha;	     /* initial_alpha_value, /1024 */
	uint64_t reduce_period_ps;   /* rate_reduce_monitor_period */
	bool clamp_tgt_rate;	     /* clamp_tgt_rate */
	bool clamp_tgt_rate_after_time_inc; /* clamp_tgt_rate_after_time_inc */
	uint64_t cnp_interval_ps;    /* notification point: min_time_between_cnps, per QP */
};

/*
 * Fills @p with NVIDIA ConnectX's published defaults (DOCA "DCQCN CC Parameters";
 * `mlxconfig query` of a ConnectX NIC; docs/config.md "mrc.cc.dcqcn" cites each):
 * rpg_time_reset 300 us, rpg_byte_reset 32767 B, rpg_threshold 1, rpg_ai_rate 5 Mb/s,
 * rpg_hai_rate 50 Mb/s, rpg_gd 11, rpg_min_dec_fac 50 %, rpg_min_rate 1 Mb/s,
 * rate_to_set_on_first_cnp 0, dce_tcp_g 1019, dce_tcp_rtt 1 us, initial_alpha_value 1023,
 * rate_reduce_monitor_period 4 us, clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1,
 * min_time_between_cnps 4 us; @max_rate_bps the port's line rate.
 */
void mrc_dcqcn_defaults(struct mrc_dcqcn_params *p, uint64_t max_rate_bps);

/* Kind of the last rate increase since the last cut (clamp_tgt_rate_after_time_inc). */
enum mrc_dcqcn_inc { MRC_DCQCN_INC_NONE = 0, MRC_DCQCN_INC_TIMER, MRC_DCQCN_INC_BYTES };

/* One QP's reaction point. Transparent so tests and reports can read it. */
struct mrc_dcqcn {
	double rc, rt;		 /* current and target rate, b/s */
	double alpha;		 /* 0..1 */
	bool active;		 /* a CNP came: alpha and the monitor periods run */
	bool alpha_cnp;		 /* a CNP came in the current alpha period */
	bool cut_cnp;		 /* a CNP came in the current reduce-monitor period */
	uint8_t last_inc;	 /* enum mrc_dcqcn_inc */
	uint32_t t_stage, bc_stage; /* T and BC since the last cut */
	uint64_t alpha_at_ps;	 /* end of the current alpha period */
	uint64_t cut_at_ps;	 /* end of the current reduce-monitor period */
	uint64_t inc_at_ps;	 /* next increase-timer expiry, UINT64_MAX: stopped */
	uint64_t bytes;		 /* sent since the last byte-counter expiry */
	uint64_t n_cnp, n_cut;	 /* CNPs taken, rate cuts made */
	uint64_t n_fr, n_ai, n_hai; /* increase events by stage */
};

/* Starts @d at the maximum rate: Rc = Rt = p->max_rate_bps, no CNP yet. */
void mrc_dcqcn_init(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p);

/*
 * Runs the timers of @d up to @now_ps, in time order (alpha periods, reduce-monitor ends,
 * increase-timer expiries): what a NIC's timers would have done by then. Every other call
 * does it first; @now_ps never goes back.
 */
void mrc_dcqcn_advance(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t now_ps);

/* A CNP reached the QP at @now_ps (see the header comment for what it starts). */
void mrc_dcqcn_on_cnp(struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t now_ps);

/*
 * A packet of @bytes (on the wire) leaves at @now_ps. Returns the pacing gap: the time
 * until the QP's next packet may leave, @bytes at the current rate (rounded down to a ps),
 * 0 while Rc is the maximum rate (the port's own pace). Then counts the bytes for the byte
 * counter, which may raise the rate.
 */
uint64_t mrc_dcqcn_on_sent(
	struct mrc_dcqcn *d, const struct mrc_dcqcn_params *p, uint64_t now_ps, uint64_t bytes);

#endif
