/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * result: what one run of the main job measured, on either driver (the simulated fabric or
 * the wire: docs/architecture.md "One engine, two drivers"), for the report (out/report.h):
 * sizes, iterations, histograms, faults and their recovery, per-EV and per-link counters,
 * the errors that failed the run (README "Report schema").
 */
#ifndef MRC_RESULT_H
#define MRC_RESULT_H

#include "mrc/base/hist.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One iteration of one size. Times in ps of virtual time. */
struct mrc_run_iter {
	uint32_t size_idx, iter;     /* iter: global index, warmup iterations of every size
				      * counted */
	uint32_t measured;	     /* index among its size's measured iterations (the number
				      * faults' at_iteration uses); meaningless for warmup */
	bool warmup;
	bool incomplete;	     /* the job failed in it: cct_ps and what follows are not
				      * figures (the report prints null) */
	uint64_t start_ps, cct_ps;   /* CCT: start to the last rank's completion */
	uint64_t wrong;		     /* wrong elements over all ranks (nccl-tests #wrong) */
	uint32_t faults;	     /* faults applied while it ran */
	bool degraded;		     /* some fault was in force while it ran */
	uint32_t slowest_rank;
	uint32_t slowest_step;	     /* that rank's slowest step */
	uint32_t straggler_ev;	     /* that rank's EV with the most losses in it, if any */
	bool has_straggler_ev;	     /* false: no EV of that rank lost a packet in it */
	uint64_t rtx_bytes_end;	     /* retransmitted bytes of the whole run at its end */
};

/* One pair of a point-to-point benchmark (write_bw, write_lat) at one size. */
struct mrc_run_pair {
	uint32_t a, b;	 /* endpoints (hosts); @a initiates (write_bw's sender, write_lat's pinger) */
	double sum_ps;	 /* the pair's time summed over the measured iterations */
	uint32_t n;	 /* measured iterations summed */
	double gbps;	 /* bits per second / 1e9 each sending host wrote, from the mean time */
	double mps;	 /* messages per second each sending host wrote, / 1e6 */
	double lat_us;	 /* write_lat: half the mean round trip (perftest's t/2); else 0 */
};

/* One message size: nccl-tests' row. */
struct mrc_run_size {
	uint64_t bytes;		 /* S of algbw: what really moves per rank (C12) */
	uint64_t count;		 /* elements */
	double time_us;		 /* mean CCT of the measured iterations */
	bool incomplete;	 /* the job failed before its last iteration: time_us, algbw,
				  * busbw did not happen (the report prints null) */
	double algbw_gbs, busbw_gbs; /* GB = 1e9 B */
	uint64_t wrong;
	struct mrc_hist *cct_ns; /* CCT of the measured iterations */
	/* point-to-point benchmarks only (n_pairs 0 otherwise) */
	struct mrc_run_pair *pairs;
	uint64_t msg_bytes;	   /* one write's size */
	uint32_t n_pairs, worst;   /* worst: the pair of the least gbps (write_bw) or the
				    * highest lat_us (write_lat) */
	double line_rate_fraction; /* the worst pair's gbps over the sender's NIC line rate,
				    * all planes */
};

/*
 * Point-to-point pairs of @rs: those of collective @c (mrc_coll_pair; none for a pattern
 * that has none). Returns 0 or -ENOMEM.
 */
struct mrc_coll;
int mrc_run_pairs_init(struct mrc_run_size *rs, const struct mrc_coll *c);

/*
 * Adds one measured iteration: @rank_ps[e] is endpoint e's completion time (ps from the
 * iteration's start). A pair's time is its initiator's for a latency test (@lat: the
 * ping-pong's round trip ends there), else the later of its two ranks (a sender completes
 * after its last write was acknowledged, after the receiver saw it land).
 */
void mrc_run_pairs_iter(struct mrc_run_size *rs, const uint64_t *rank_ps, bool lat);

/*
 * The per-pair figures from the sums: each sender wrote @pair_bytes in @msgs messages per
 * iteration; gbps = 8 pair_bytes / mean time, mps = msgs / mean time, lat_us = mean / 2
 * (@lat), and the worst pair and its fraction of @line_bps (a host's NIC, all planes).
 */
void mrc_run_pairs_finish(struct mrc_run_size *rs, bool lat, uint64_t pair_bytes,
	uint64_t msgs, double line_bps);

/*
 * What happened around one applied fault (recovery figures, README "Report schema"). Its
 * window: from the fault to the end of its iteration — for a flap, to the end of the
 * iteration in which the link was left up (or of the run). A flap is one record: its
 * toggles are counted here, not listed. Times relative to it, ps; -1 when it did not
 * happen within the run.
 */
struct mrc_run_fault {
	uint64_t at_ps;
	uint32_t iter;		/* global iteration index it fell in */
	uint32_t measured;	/* that iteration's measured index (at_iteration's numbering) */
	bool in_warmup;		/* it fell in a warmup iteration */
	char action[16], target[48];
	bool clears;		/* it ends a fault (up, clear, a duration's revert) */
	int64_t first_retire_ps;   /* first EV to ASSUMED_BAD in its window */
	uint64_t evs_retired;	   /* EV state changes to ASSUMED_BAD in its window */
	int64_t recovery_ps;	   /* goodput back within 5% of what the capacity allows; 0
				    * when it never left that band (dipped false) */
	bool dipped;		   /* goodput fell below the band in its window */
	double capacity_frac;	   /* capacity left by the fault (1 for an up) */
	uint64_t rtx_bytes;	   /* retransmitted bytes in its window */
	double cct_inflation;	   /* worst iteration of its window: CCT / mean fault-free CCT
				    * of that size - 1 */
	uint32_t straggler_rank;   /* slowest rank of that iteration */
	uint32_t straggler_step;   /* slowest step of that rank */
	uint32_t straggler_ev;	   /* the EV of that rank with the most losses in the iteration */
	bool has_straggler_ev;	   /* false: that rank lost nothing in the iteration */
	bool unfinished;	   /* its window holds the iteration the job failed in:
				    * cct_inflation and the straggler are unknown (null) */
	const char *recovery_note; /* why recovery_ps is -1 or 0 (static string), else NULL */
	/* simulator: when the ECMP groups first changed for it (a T0-T1 link or a switch
	 * leaving them, or rejoining: docs/roce-baseline.md "Routing reconvergence"), after
	 * it; -1: it changed none during the run */
	int64_t reconverge_ps;
	/* a loss or a delay (not its end): in force until the row ending it (end_ps), its
	 * window runs to the iteration that end falls in, as a flap's does */
	bool lasting;
	/* flaps (action "flap") */
	bool flap;
	uint64_t until_ps;	   /* when it is to stop flapping (UINT64_MAX: never) */
	uint32_t flap_downs;	   /* times the link went down */
	uint32_t flap_toggles;	   /* link state changes, downs and ups */
	uint64_t flap_last_up_ps;  /* the last up */
	int64_t end_ps;		   /* the link left up for good (absolute); -1: still flapping
				    * when the run ended; a lasting row's end, -1: none */
	uint32_t last_iter;	   /* global iteration its window ends in (= iter but for flaps
				    * and lasting rows) */
	uint32_t last_measured;	   /* that iteration's measured index */
	bool last_in_warmup;
};

/* A configured fault that never fired (README "Report schema", faults_not_applied[]). */
struct mrc_run_unapplied {
	uint32_t index;		/* in the config's faults[] */
	char action[16], target[48];
	char when[32];		/* as configured: "at 5000us", "at_iteration 7" */
	char why[128];		/* "the run ended at 1234.5 us, before it", ... */
};

/* One firing of a configured fault, as it happened (README "Report schema",
 * fault_timeline[]): not its duration's revert. */
struct mrc_run_fire {
	uint32_t index;		/* in the config's faults[] */
	uint64_t at_ps;		/* when it fired, from the start of the first iteration */
};

/* Aggregated over every QP: one path's view. */
struct mrc_run_ev {
	uint32_t ev, plane, spine;
	uint64_t tx_pkts, rtx_pkts, losses, ecn, trims, nacks, probes, probes_ok, changes;
	uint64_t rtt_samples, rtt_sum_ps;
	uint32_t bad_qps;	/* QPs holding it ASSUMED_BAD at the end */
};

/* One output port of the fabric with traffic on it. */
struct mrc_run_link {
	char name[48];	/* "p3.t1.1>p3.t0.2", "h0.p0>p0.t0.0" */
	uint64_t tx_pkts, tx_bytes, drops, trims, ecn_marks, down_drops, lost;
	uint32_t max_queue_bytes;
	/* PFC (simulator, fabric.pfc.enabled; docs/pfc.md): frames this port's node sent on
	 * it (XOFF, XON) and got on it, time paused per class (0 control, 1 data), packets
	 * its peer dropped at the ingress past xoff + headroom, the peer's largest ingress
	 * backlog of this link's packets */
	uint64_t pfc_pause_tx, pfc_resume_tx, pfc_pause_rx, pfc_resume_rx;
	uint64_t pfc_paused_ps[2], pfc_headroom_drops, pfc_max_ingress_bytes;
};

/*
 * One job of several (traffic as a list, docs/config.md "Several jobs"): its own sizes and
 * iterations, as the top level has them for one job. Times ps from the run's start.
 */
/* One phase of a job's step (traffic.phases): a collective or a compute gap. Times ps. */
struct mrc_run_phase {
	bool gap;
	uint64_t gap_ps;
	int pattern, algorithm;		/* enum conf_pattern, conf_algorithm */
	uint64_t bytes;			/* S of its algbw (mrc_coll_bytes) */
	double time_us, busbw_gbs;	/* mean of the measured steps; busbw of that time */
	struct mrc_hist *time_ns;	/* its time in each measured step */
};

struct mrc_run_job {
	char name[32];
	uint32_t nranks;
	struct mrc_run_size *sizes;
	size_t n_sizes;
	struct mrc_run_iter *iters;
	size_t n_iters;
	bool started, finished;	/* its first iteration began; its last one ended */
	uint64_t start_ps, end_ps;
	/* traffic.phases: each phase, and its time in every iteration (a gap's is its length)
	 * at phase_ps[iteration index * n_phases + phase] */
	struct mrc_run_phase *phases;
	size_t n_phases;
	uint64_t *phase_ps;
	/* pattern background (docs/config.md "Background"): what it was told, and messages
	 * posted (offered to the fabric), completed (delivered: every packet acknowledged) and
	 * refused (a full send queue) from start_ps to end_ps, the other jobs' end */
	bool background;
	uint64_t bg_rate_bps, bg_msg_bytes;
	int bg_mode;			/* enum conf_bg_mode */
	uint32_t bg_hosts;
	uint64_t bg_posted, bg_completed, bg_refused;
};

struct mrc_run_result {
	/* sizes and iterations (of the first job when there are several: jobs[0]'s) */
	struct mrc_run_size *sizes;
	size_t n_sizes;
	struct mrc_run_iter *iters;
	size_t n_iters;
	uint32_t nranks;
	/* latency histograms over the measured iterations, ns */
	struct mrc_hist *msg_ns;   /* post -> completion of every RDMA write */
	struct mrc_hist *step_ns;  /* per rank and step */
	struct mrc_hist *rtt_ns;   /* per-QP mean packet RTT over the run, one sample per QP */
	/* faults and recovery */
	struct mrc_run_fault *faults;
	size_t n_faults;
	struct mrc_run_unapplied *unapplied; /* configured faults that never fired */
	size_t n_unapplied;
	struct mrc_run_fire *fires;	     /* every firing, in time order */
	size_t n_fires;
	/* goodput: L3 bytes delivered to hosts per bin */
	uint64_t bin_ps;
	uint64_t *bin_bytes;
	size_t n_bins;
	/* per EV, per link */
	struct mrc_run_ev *evs;
	size_t n_evs;
	struct mrc_run_link *links;
	size_t n_links;
	/* counters */
	uint64_t data_pkts, data_bytes, rtx_pkts, rtx_bytes, sacks, nacks, nack_trimmed;
	uint64_t probes, ecn_echoes, losses_sack, losses_rto, rx_dup, rx_reordered;
	uint64_t losses_port, losses_path; /* PSNs lost with their NIC port; resent off an EV
					    * that went ASSUMED_BAD */
	uint64_t tlp, gbn_rewinds; /* tail loss probes sent; RoCE go-back-N rewinds */
	/* RoCE with DCQCN: CNPs the responders sent and the requesters received, and the
	 * rate cuts they caused (mrc/engine/qp.h "DCQCN") */
	uint64_t cnps_sent, cnps_received, rate_cuts;
	uint64_t rx_decode_err, qp_errors;
	uint64_t tx_encode_err; /* packets a sender failed to encode, so never sent */
	uint64_t capture_errors; /* captures that could not be written (wire: every host's) */
	uint64_t fab_drops, fab_trims, fab_ecn, fab_lost, fab_no_route;
	uint64_t fab_down_drops; /* of fab_drops: sent to or queued at a failed link or switch */
	/* PFC (docs/pfc.md): on, XOFF frames sent, time paused summed over ports and classes
	 * and of it at host NIC ports, packets dropped past an ingress's headroom (in
	 * fab_drops too) */
	bool pfc;
	uint64_t fab_pfc_pauses, fab_pfc_paused_ps, fab_pfc_paused_host_ps, fab_pfc_headroom_drops;
	/* Hop limits that ran out at a switch (simulator): packets dropped, ICMPv6 Time
	 * Exceeded sent for them, those the switches' rate limit held back (RFC 4443 §3.3,
	 * §2.4(f)); and the ICMPv6 messages the hosts received: Time Exceeded, other */
	uint64_t fab_hop_limit, fab_icmp_sent, fab_icmp_rate_limited;
	uint64_t rx_icmp_time_exceeded, rx_icmp_other;
	/* dropped for their source (mrc_ep_stats); endpoint operations; PROBE answers that
	 * matched no probe in flight */
	uint64_t rx_foreign, rx_wrong_plane, rx_spoofed, rx_misdirected;
	uint64_t ep_requests, ep_responses, ep_responses_unmatched, probe_answers_unmatched;
	/* Losses inside the hosts (wire driver; 0 on the simulator), mrc/wire/loop.h: sends
	 * the kernel refused, datagrams a socket dropped (SO_RXQ_OVFL), loop turns that found
	 * the completion queue overflowed (completions held by the kernel, not lost),
	 * completions it dropped, datagrams longer than a buffer, packets for another host. */
	uint64_t host_send_errors, host_socket_drops, host_cq_overflows, host_cq_dropped;
	uint64_t host_truncated, host_foreign;
	/* The xdp dataplane (wire driver, docs/wire-xdp.md): ranks that ran on it, their NIC
	 * ports and those in zero copy; frames its XDP programs dropped as malformed or for
	 * a queue without a socket, and passed to the kernel as not MRC; multi-buffer
	 * packets reassembled. */
	uint64_t xdp_ranks, xdp_ports, xdp_zc_ports, xdp_malformed, xdp_no_xsk, xdp_passed;
	uint64_t xdp_reassembled;
	uint32_t xdp_threads; /* the run's dataplane threads per rank (wire.xdp_threads) */
	uint64_t events, pkt_hops, injected, delivered;
	/* The fabric's figures are unknown (a lost MPI rank's share never came, or a stub
	 * report: nothing measured yet): report.json's fabric_*, sim_events, packet_hops,
	 * packets_injected and packets_delivered are null, the terminal prints "-" for them. */
	bool fabric_absent;
	uint64_t qps; /* queue pairs created, both ends counted */
	/* traffic as a list: every job, [0] sharing sizes and iters with the top level (which
	 * owns them); 0 jobs for a config whose traffic is one mapping */
	struct mrc_run_job *jobs;
	size_t n_jobs;
	uint64_t sim_end_ps;
	double wall_s;
	size_t peak_rss_bytes;
	char error[256];	/* why the job failed, empty when it did not */
	int interrupted;	/* the signal that stopped the run early (mrc/job/stop.h), or 0 */
	/* what else failed the run, besides error[] and #wrong: a capture that could not be
	 * written, packets that could not be encoded; one message each */
	char (*errors)[320];
	size_t n_errors;
	/* the wire driver's base RTT (report.json `wire`; absent when wire_rtt is false) */
	bool wire_rtt;
	const char *base_rtt_source; /* "config", "measured", "default" */
	uint64_t base_rtt_ns;
	uint64_t *rank_rtt_ns; /* [n_rank_rtt], 0: that rank measured nothing; owned */
	uint32_t n_rank_rtt;
	uint64_t rtt_probes, rtt_answered;
	/* the wire driver's ranks (report.json `wire`): those that failed the job (closed,
	 * timed out, broke the protocol) and those whose results are merged in; owned */
	uint32_t *failed_ranks, *ranks_reported;
	uint32_t n_failed_ranks, n_ranks_reported;
	const char *bootstrap;	/* how the wire ranks met: "rendezvous", "pmix" (static) */
};

/* Appends a message to @r->errors (printf format). Returns 0 or -ENOMEM. */
int mrc_run_add_error(struct mrc_run_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct mrc_qp_stats;
struct mrc_ev_stats;
struct mrc_ep_stats;

/* Adds an endpoint's counters (decode and encode errors, ICMPv6, source drops, endpoint
 * operations: mrc/engine/ep.h) to @r: each driver's one way of summing them. */
void mrc_run_add_ep(struct mrc_run_result *r, const struct mrc_ep_stats *s);

/*
 * Adds one QP's counters (mrc/engine/qp.h) into @r: packets and bytes sent and resent,
 * SACKs, NACKs (all reasons; trimmed ones also in nack_trimmed), probes, ECN echoes,
 * losses by SACK, RTO, port and path, TLPs, go-back-N rewinds, duplicates, reordering.
 */
void mrc_run_add_qp(struct mrc_run_result *r, const struct mrc_qp_stats *s);

/* Adds one EV's counters of an endpoint's profile (mrc/engine/ev.h) into @d (bad_qps aside). */
void mrc_run_ev_add(struct mrc_run_ev *d, const struct mrc_ev_stats *v);

/* Releases @r and everything it owns (NULL: nothing). */
void mrc_run_result_free(struct mrc_run_result *r);

#endif
