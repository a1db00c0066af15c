/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * qp: one MRC queue pair — the requester (RDMA Write / Write-with-Immediate, spraying,
 * SACK/NACK/RTO reliability) and responder (receive bitmap, placement, SACK/NACK, probe
 * answers) state machines of docs/wire-format.md. Works on decoded struct mrc_pkt; the
 * endpoint (mrc/ep) owns bytes, planes and scheduling. Pure: time is an input in ps.
 *
 * Policies (each a docs/wire-format.md rule made concrete; knobs in struct mrc_qp_params):
 * - Loss: time-based (RACK, RFC 8985 §6.2) — a packet sent after it was acknowledged and
 *   two reorder windows (RTTs) passed — with a tail loss probe (RFC 8985 §7); or by count:
 *   a sent, unacknowledged PSN is lost once reorder_threshold PSNs sent after it
 *   are acknowledged (send order, so retransmissions restart the count), or when the ACK
 *   timeout fires. Its EV goes ASSUMED_BAD on that first loss (subject to ev_min_active),
 *   and the PSN is queued for one retransmission, together with every other PSN still
 *   unacknowledged whose latest transmission used that EV ("retransmit what may be lost
 *   on other EVs"); later SACKs never resend them again, an acknowledged PSN is never
 *   resent (C11).
 * - Retransmissions: RTX flag, ack request, dscp_rtx, an EV other than the lost one.
 * - NACK: TRIMMED -> EV SKIP, window -= bytes, resend now; TRIMMED_LASTHOP -> the same
 *   without touching the EV; NO_BITMAP/NO_PKT_BUFFER/NO_RESOURCE/PSN_OOR_WINDOW -> resend
 *   after nack_backoff_ps (the QP pauses); UNEXP_EVENT -> QP error. A NACK echoing another
 *   EV than the PSN's latest transmission, or for an acknowledged PSN, is stale.
 * - Ack requests: on the last packet of a message, on retransmissions, and on the packet
 *   that fills the window.
 * - SACKs (UEC's reference cadence, uec.cpp UecSink::processData): on an ack request, CE
 *   (m=1), the first arrival, every sack_every_bytes of payload, duplicates at once, and
 *   a second SACK once the holes below an ack request are filled; mrcgen adds one at once
 *   below a trimmed PSN and, with sack_ooo_every N > 0, every N out-of-order arrivals.
 *   Bitmap base = cack (bit 0 = cack itself, C10) unless the PSN lies beyond bit 63.
 * - ACK timeout: T = 1.024 us * 2^timeout after the last progress; retry_linear retries
 *   at T, then retry_exp retries at 2T, 4T, ...; one more expiry fails the QP with
 *   -ETIMEDOUT and a reason (mrc_qp_give_up_ps()).
 *
 * RoCE mode (transport MRC_QP_ROCE, the `transport: roce` baseline of docs/architecture.md):
 * the same QP — segmentation, placement, ACK timeout and retry budget, congestion control
 * and counters — behaving as a single-port RoCEv2 RC QP, so a job can be rerun to see what
 * spraying buys:
 * - One path: the QP is bound to one NIC port (plane), the one its endpoint gives it at
 *   creation (round robin over the ports, mrc_ep_qp_create), and every packet it sends,
 *   data and ACKs alike, carries one UDP source port, derived from its QPN and its peer's
 *   as RoCEv2 NICs do (mrc_roce_udp_sport): EV format stev or udp, no SRv6 header, so
 *   the fabric's ECMP hash picks the path (docs/roce-baseline.md). It still draws one EV
 *   of its plane from its seed, which its packets count under (per-EV figures) and
 *   whose plane gives their addresses. No EV states, no probes, no tail loss probe, no
 *   time- or SACK-based loss inference, no port status updates.
 * - Responder: only the expected PSN is accepted. A duplicate is acknowledged; a PSN past
 *   it is dropped and answered, once per gap, by a NAK "PSN sequence error" (opcode ACK,
 *   AETH syndrome 0x60, BTH PSN = the expected PSN; IBTA vol. 1 AETH); further
 *   out-of-order packets are dropped silently until the expected one arrives. A trimmed
 *   packet is a loss (dropped, counted in rx_trimmed, no NACK TRIMMED): a RoCE NIC
 *   cannot tell a trim from corruption. Acknowledgements are SACKs with only the
 *   cumulative part in use, so a window CC sees the same delay and ECN signals as in MRC
 *   mode; they are coalesced (below).
 * - Requester, go-back-N: a NAK for PSN n acknowledges every PSN before n and resends
 *   every PSN sent from n on, in order; the ACK timeout resends every PSN from the oldest
 *   unacknowledged one. Any NACK (TRIMMED included) counts as a NAK for its PSN. PSNs
 *   resent by a NAK count in loss_sack, by the timeout in loss_rto (and the EV's losses).
 * - Coalesced ACKs (IBTA vol. 1 chapter 9.7, reliable service: the requester asks for an
 *   acknowledgement with the BTH AckReq bit, and one ACK, cumulative, may cover several
 *   packets): the requester sets AckReq on a message's last packet, on the ack_req_every-th
 *   packet since the last that carried it (Linux rxe's RXE_MAX_PKT_PER_ACK rule) and on
 *   the packet that fills a window. The responder answers AckReq, duplicates and, for a
 *   window CC, CE at once; other in-order arrivals are covered by the next ACK, or by one
 *   sent sack_delay after the first arrival it holds (the coalescing timer).
 * - The ACK timeout runs only while packets are in flight (sent, neither acknowledged nor
 *   queued to go again), from the later of the last progress and the send that found
 *   nothing in flight: the requester times packets, not its own idleness (a QP held back
 *   by its port or its rate is not a loss). It covers tail loss: a loss with later packets
 *   behind it is the sequence NAK's.
 * - DCQCN (a rate-based CC, env->cc_ops, mrc/engine/dcqcn.h): the responder answers a
 *   CE-marked data packet with a CNP (opcode 0x81, BTH BECN, PSN 0, DestQP the requester's,
 *   16 reserved bytes; IBTA Annex A17), at most one per cnp_interval per QP, counted in
 *   cnp_tx; the requester hands each CNP to the CC (cnp_rx) and paces its data: after a
 *   packet of B bytes on the wire (mrc_qp_tx_len) the next may leave B / Rc later, and
 *   mrc_qp_tx refuses until then, with a timer at that time.
 */
#ifndef MRC_QP_H
#define MRC_QP_H

#include "mrc/engine/ev.h"
#include "mrc/engine/nscc.h"
#include "mrc/engine/wire.h"

#include <stdbool.h>
#include <stdint.h>

/* Transport behaviour of a QP (see "RoCE mode" above). */
enum mrc_qp_transport {
	MRC_QP_MRC = 0, /* MRC: spraying, SACK/NACK, EV states (docs/wire-format.md) */
	MRC_QP_ROCE,	/* RoCEv2 RC baseline: one path, go-back-N */
};

/* QP attributes (mrc_ctl.h QP attributes plus mrcgen knobs). Times in ps. */
struct mrc_qp_params {
	enum mrc_qp_transport transport; /* MRC_QP_MRC (0) or MRC_QP_ROCE */
	uint32_t mtu;		    /* payload bytes per full packet (4096) */
	uint8_t mpr;		    /* receive window in units of 128 PSNs (SETH mpr), 1..255 */
	uint8_t timeout;	    /* local ACK timeout 1.024 us * 2^timeout (0..24) */
	uint8_t retry_linear;	    /* retries at the base timeout (0..7) ... */
	uint8_t retry_exp;	    /* ... then retries doubling it each time, up to the largest
				     * timeout (0..25; MRC_QP_RETRY_FOREVER: never give up) */
	unsigned reorder_threshold; /* a PSN is lost once this many later-sent PSNs are acked */
	uint32_t sack_every_bytes;  /* responder SACKs at least every this many payload bytes */
	uint32_t start_psn;	    /* first PSN of both directions (24 bits) */
	unsigned sq_depth;	    /* posted, uncompleted messages per QP (power of 2 used) */
	uint64_t nack_backoff_ps;   /* pause after NO_BITMAP/NO_PKT_BUFFER/NO_RESOURCE/OOR NACKs */
	uint8_t dscp_data, dscp_rtx, dscp_ctl; /* DSCP of data, retransmissions, control */
	bool tseth;			       /* data packets carry TSETH (tx time, ns mod 2^16) */
	bool retire_rtx; /* an EV going ASSUMED_BAD resends its unacked PSNs at once (true) */
	bool path_fate;	 /* an EV retired for a loss takes the EVs env->same_path pairs it
			  * with along (true; docs/wire-format.md "Path (EV) states") */
	uint32_t sack_ooo_every; /* also SACK every N out-of-order arrivals; 0: off, the
				  * ACK cadence of UEC's reference alone (qp.h "SACKs") */
	bool rtt_ensemble; /* the endpoint's QPs share RTT samples (struct mrc_qp_rtt_ens) */
	bool rcv_pen;	   /* the responder sends rcv_cwnd_pen when it is the bottleneck */
	uint64_t sack_delay_ps; /* the longest a SACK is held by the cadence; 0: base RTT */
	uint32_t ack_req_every; /* RoCE: AckReq on every Nth packet too (64); 0: message ends */
	uint8_t dscp_cnp;	/* DSCP of a CNP (RoCE with a rate-based CC): 48 */
};

/* mrc.h's limits: the largest timeout exponent, and the exponential retry count that means
 * "retry for ever". */
#define MRC_QP_TIMEOUT_MAX 24
#define MRC_QP_RETRY_FOREVER 25

/* Fills @p with mrcgen's defaults, those of the config loader (transport MRC, mtu 4096, mpr 8;
 * timeout 8 = 262 us, 7 linear and 25 (for ever) exponential retries, as OCP MRC's
 * examples/mrc_qp.md sets them; reorder threshold 1024, SACK every 16 KiB, start PSN 0,
 * sq_depth 64 (max_wimm), NACK backoff 10 us, DSCP 26/28/46 and CNPs 48 (ConnectX's
 * cnp_dscp), TSETH, RTT ensemble; RoCE: AckReq every 64 packets, Linux rxe's
 * RXE_MAX_PKT_PER_ACK). */
void mrc_qp_params_default(struct mrc_qp_params *p);

/* Base ACK timeout of @p in ps: 1.024 us * 2^timeout (docs/wire-format.md "QP attributes"). */
uint64_t mrc_qp_timeout_ps(const struct mrc_qp_params *p);

/*
 * Time in ps from the last progress until the QP gives up when nothing is acknowledged:
 * T * (1 + retry_linear) + T * (2^(retry_exp+1) - 2), T = mrc_qp_timeout_ps(); UINT64_MAX
 * when retry_exp is MRC_QP_RETRY_FOREVER (mrc.h: 25 exponential retries mean for ever).
 */
uint64_t mrc_qp_give_up_ps(const struct mrc_qp_params *p);

/* Index into the per-reason NACK counters. */
enum mrc_nack_idx {
	MRC_NI_TRIMMED = 0,
	MRC_NI_TRIMMED_LASTHOP,
	MRC_NI_NO_BITMAP,
	MRC_NI_NO_PKT_BUFFER,
	MRC_NI_NO_RESOURCE,
	MRC_NI_PSN_OOR_WINDOW,
	MRC_NI_UNEXP_EVENT,
	MRC_NI_OTHER,
	MRC_NI_COUNT,
};

/* Maps a NACK reason (enum mrc_nack_reason) to its counter index. */
int mrc_nack_idx(uint8_t reason);

/* Per-QP counters. Requester and responder halves of the same QP. */
struct mrc_qp_stats {
	/* requester */
	uint64_t msgs_posted, msgs_done;
	uint64_t data_pkts, data_bytes; /* first transmissions: packets, payload bytes */
	uint64_t rtx_pkts, rtx_bytes;	/* retransmissions */
	uint64_t probes_tx, probes_ok;
	uint64_t sack_rx, sack_stale, ecn_echo_rx;
	uint64_t nack_rx[MRC_NI_COUNT], nack_stale;
	uint64_t loss_sack, loss_rto, loss_port; /* PSNs declared lost, by how */
	uint64_t loss_path; /* resent because their EV went ASSUMED_BAD (docs/wire-format.md) */
	uint64_t tlp;	    /* tail loss probes sent */
	uint64_t rto_events;
	uint64_t rtt_samples, rtt_sum_ps, rtt_min_ps, rtt_max_ps;
	/* responder */
	uint64_t rx_data_pkts, rx_payload_bytes;
	uint64_t rx_unique, rx_dup, rx_reordered; /* C09: per-PSN bitmap accounting */
	uint64_t rx_lost;			  /* (max - start + 1) - unique, at read time */
	uint64_t rx_oor, rx_trimmed, rx_ce, rx_access_err, rx_msn_oor;
	uint64_t sack_tx, nack_tx[MRC_NI_COUNT], probes_rx;
	uint64_t msgs_delivered, placed_bytes;
	uint64_t rx_ignored; /* packets for a QP in the error state, or unknown opcodes */
	/* RoCE mode */
	uint64_t rx_out_of_seq;		/* responder: past the expected PSN, dropped */
	uint64_t seq_nak_tx, seq_nak_rx; /* NAK "PSN sequence error" sent / received */
	uint64_t gbn_rewinds;		/* requester: go-back-N rewinds (NAK or timeout) */
	uint64_t cnp_tx, cnp_rx;	/* CNPs sent (responder) and received (requester) */
	uint64_t rate_cuts;		/* DCQCN: rate decreases the CNPs caused */
	uint64_t port_status_rx; /* port status updates of the peer applied (mrc_qp_peer_ports) */
	uint64_t probe_ans_unmatched; /* SACK pr=1 matching no probe in flight: dropped */
};

struct mrc_ep_ops;
struct mrc_qp;

/* What a QP needs from its endpoint. The struct and all its pointers outlive the QP. */
/*
 * RTT samples shared by an endpoint's QPs, after RFC 9040's "ensemble sharing" (which
 * shares per remote host; here all peers share, per plane, as a collective's queues are
 * the fabric's): the latest per plane and the largest of those. A QP's RACK reorder and
 * tail-probe windows (RFC 8985) are at least the largest, so a QP that has no samples yet,
 * or only early ones, is not fooled by a queue its sibling QPs already measured.
 */
struct mrc_qp_rtt_ens {
	uint64_t plane_ps[MRC_EV_MAX_PLANES];
	uint64_t max_ps;
};

/*
 * An endpoint's completions and notifications, all optional, called from inside ep calls.
 * Declared here because its QPs raise them (mrc_qp_env.ops); mrc/engine/ep.h takes them.
 */
struct mrc_ep_ops {
	/* Port @plane had nothing to send and now has work (may repeat; idempotent). */
	void (*tx_ready)(void *ctx, unsigned plane);
	/* A posted write finished: status 0, or -ETIMEDOUT / -ECONNABORTED on QP error. */
	void (*send_done)(void *ctx, uint32_t qpn, uint64_t wr_id, int status, uint64_t now_ps);
	/* A write-with-immediate of @len bytes completed at the responder, in MSN order. */
	void (*recv_imm)(void *ctx, uint32_t qpn, uint32_t imm, uint64_t len, uint64_t now_ps);
	/* An EV of QP @qpn changed state (enum mrc_ev_state, enum mrc_ev_cause). */
	void (*ev_event)(
		void *ctx, uint32_t qpn, uint32_t ev, int from, int to, int cause, uint64_t now_ps);
	/* The answer to EV probe @req_id (mrc_ep_ev_probe) to @peer_host over @ev came back on
	 * 1-based port @port after @rtt_ns ns (mrc_ctl.h struct mrc_ctl_ep_rsp). */
	void (*ep_response)(void *ctx, uint16_t req_id, uint32_t peer_host, uint32_t ev,
		unsigned port, uint64_t rtt_ns, uint64_t now_ps);
	/* This endpoint answered an ENDPOINT_REQUEST of op @op (enum mrc_ep_op) from
	 * @peer_host over @ev; @ce: it arrived with ECN CE (docs/wire-format.md "Endpoint
	 * operations"). What a path sweep counts at the far end (docs/sweep.md). */
	void (*ep_request)(void *ctx, uint32_t peer_host, uint32_t ev, unsigned op, bool ce,
		uint64_t now_ps);
	/* A write's payload of @len bytes landed at byte @off of the sink MR @rkey (one
	 * registered without memory: mrc_ep_reg_mr_va), gathered by the sender's NIC from
	 * @data (the sender's source address plus the packet's offset; NULL: zeros), which
	 * may hold no bytes: never read here. For a driver that follows what would have been
	 * copied without the bytes (the simulator's verification descriptors,
	 * docs/verification.md). */
	void (*placed)(void *ctx, uint32_t rkey, uint64_t off, const uint8_t *data, uint32_t len);
};

struct mrc_qp_env {
	const struct mrc_qp_params *qp;
	const struct mrc_ev_params *ev;
	/* The EV profile built from @ev, shared by the endpoint's QPs (each takes a
	 * reference); NULL: the QP builds one of its own from @ev. */
	struct mrc_ev_profile *ev_prof;
	/* [ev_prof->n] PSNs inferred lost per EV by the endpoint's QPs (the profile's
	 * counters may be shared by several endpoints), or NULL: not counted */
	uint64_t *ev_losses;
	const struct mrc_cc_ops *cc_ops;
	const struct mrc_cc_params *cc;
	/* The endpoint's RTT ensemble, written by every QP's samples (NULL: none) */
	struct mrc_qp_rtt_ens *ens;
	unsigned planes;
	bool ev_udp;		      /* EV format udp: an EV is the UDP source port alone */
	uint8_t dscp_trimmed_lasthop; /* DSCP a last-hop switch writes when trimming */
	unsigned (*ev_plane)(void *ctx, uint32_t ev);
	const struct mrc_ep_ops *ops; /* completions; may be NULL */
	void *ctx;		      /* for ev_plane and ops */
	void *owner;		      /* the endpoint, passed to the hooks below */
	bool (*plane_up)(void *owner, unsigned plane);
	/* Each receiving QP's share of our ports when they are the bottleneck, in b/s, else
	 * 0 (the receiver's share rule; may be NULL: never) */
	uint64_t (*rx_fair_bps)(void *owner);
	/* Whether EVs @a and @b carry this QP's packets to @peer_host over one path, so that
	 * they fail together (mrc_qp_params.path_fate); NULL: never known. */
	bool (*same_path)(void *owner, uint32_t peer_host, uint32_t a, uint32_t b);
	/* Queues a control packet (SACK/NACK/NAK/CNP/port status) built by the QP for @plane.
	 * Only opcode, dscp, ecn, ev, dest_qp, flags, psn, becn and the extension header
	 * union are kept: the rest must be zero but hop_limit 64 (the path fills the
	 * addresses). */
	void (*emit_ctl)(void *owner, unsigned plane, uint32_t peer_host, const struct mrc_pkt *p);
	/* Places @len bytes at @va of the MR @rkey (@data NULL: zeros, a gathered payload
	 * without source bytes): 0, or -EACCES when outside the MR. */
	int (*place)(void *owner, uint32_t rkey, uint64_t va, const uint8_t *data, uint32_t len);
	/* QP @qpn has new work for @plane (-1: every plane). */
	void (*wake)(void *owner, uint32_t qpn, int plane);
};

/*
 * Creates QP @qpn talking to @peer_qpn on @peer_host (@env is kept: it must outlive the
 * QP, as the endpoint's does); PSNs of both directions start at
 * env->qp->start_psn. @seed makes EV selection reproducible. RoCE mode: the QP is bound
 * to NIC port @port (mod env->planes), or the next one whose plane has a usable EV; MRC
 * mode ignores it. Returns 0, -EINVAL (bad params: mtu 0, mpr 0, timeout > 30, EV
 * profile invalid or of more than 2^18 - 1 EVs; RoCE mode: no plane with an EV) or
 * -ENOMEM.
 */
int mrc_qp_new(const struct mrc_qp_env *env, uint32_t qpn, uint32_t peer_host, uint32_t peer_qpn,
	uint64_t seed, unsigned port, struct mrc_qp **out);

/*
 * The UDP source port of a RoCEv2 RC QP @lqpn connected to @rqpn, the same at both ends:
 * Linux's rule for every RoCEv2 driver (include/rdma/ib_verbs.h rdma_calc_flow_label and
 * rdma_flow_label_to_udp_sport, used when the application sets no flow label): the flow
 * label is the 48-bit product lqpn * rqpn folded to 20 bits (v ^= v >> 20; v ^= v >> 40),
 * and the port is 0xC000 | (its low 14 bits XOR its high 6). In 0xC000..0xFFFF.
 */
uint16_t mrc_roce_udp_sport(uint32_t lqpn, uint32_t rqpn);
void mrc_qp_free(struct mrc_qp *qp);

/* Sets the peer's QPN (24 bits) once known. */
void mrc_qp_set_peer(struct mrc_qp *qp, uint32_t peer_qpn);
uint32_t mrc_qp_peer_host(const struct mrc_qp *qp);

/*
 * Posts an RDMA Write of @len bytes (< 2^32) from @local (kept by the caller until
 * send_done; NULL sends zeros, for runs that do not verify data) to @remote_va/@rkey at the peer,
 * with immediate @imm when @with_imm (docs/wire-format.md "Opcodes"). Completion:
 * ops->send_done(wr_id, 0) once every packet is acknowledged, in posting order; (wr_id, -ETIMEDOUT
 * or -ECONNABORTED) if the QP fails. Returns 0, -EAGAIN (sq_depth messages outstanding), -EINVAL
 * (len >= 2^32), -EPIPE (QP in the error state) or -ENOMEM (the send queue, grown on need, could
 * not grow).
 */
int mrc_qp_post_write(struct mrc_qp *qp, const void *local, uint64_t len, uint64_t remote_va,
	uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id, uint64_t now_ps);

/*
 * Handles a decoded packet for this QP that arrived on @plane; @ce: ECN CE was seen.
 * Data and probes go to the responder, SACK/NACK to the requester (docs/wire-format.md "Control
 * headers"). Never fails: bad or stale packets are counted and dropped.
 */
void mrc_qp_on_pkt(
	struct mrc_qp *qp, unsigned plane, const struct mrc_pkt *p, bool ce, uint64_t now_ps);

/*
 * The QP's next packet for NIC port @plane, if any: a due probe, else a retransmission,
 * else new data within the window (cwnd bytes and the peer's MPR window). Fills @out
 * except the path fields (addresses, segments) and returns true.
 */
bool mrc_qp_tx(struct mrc_qp *qp, unsigned plane, uint64_t now_ps, struct mrc_pkt *out);

/*
 * The packet the last successful mrc_qp_tx returned left at @now_ps as @wire_bytes bytes
 * (its encoded length). A rate-based CC (DCQCN) paces the QP: its next packet may leave
 * the CC's gap later (mrc_cc_on_tx). No-op for window algorithms.
 */
void mrc_qp_tx_len(struct mrc_qp *qp, uint32_t wire_bytes, uint64_t now_ps);

/*
 * After mrc_qp_tx returned false: true when every plane would be refused too until the
 * QP is called again (a packet, a post, a timer or a port change) — it has nothing to
 * send, or no window, and no probe can be due; false when the refusal may be the plane's
 * own (no EV there, the peer's port down) or may end with time (a NACK backoff). Lets an
 * endpoint stop asking the QP on its other planes.
 */
bool mrc_qp_tx_refused_all(const struct mrc_qp *qp);

/*
 * True when mrc_qp_tx would refuse on every plane until the QP is called again, whatever
 * the time: it failed, or it has no message part left to send, no retransmission queued
 * and no EV waiting for a probe (ASSUMED_BAD). An endpoint need not wake its ports for
 * such a QP: it only heard an acknowledgement.
 */
bool mrc_qp_tx_idle(const struct mrc_qp *qp);

/* Next timer (ACK timeout, backoff end, probe due on an up plane, the end of a pacing gap
 * the QP waits on) in ps, UINT64_MAX if none. */
uint64_t mrc_qp_next_timer(const struct mrc_qp *qp);
void mrc_qp_on_timer(struct mrc_qp *qp, uint64_t now_ps);

/*
 * Local NIC port @plane went down/up: in MRC mode, in-flight packets sent on it are resent
 * elsewhere at once (RoCE mode: the ACK timeout resends them). Telling the peer is the
 * endpoint's (mrc_ep_port_status).
 */
void mrc_qp_port_status(struct mrc_qp *qp, unsigned plane, bool up, uint64_t now_ps);

/*
 * The peer's port status update (ERTH op PORT_STATUS_UPDATE) reached us: bit p of
 * @up_planes set = its port on plane p is up. In-flight packets sent to a port now down
 * are resent elsewhere, and no packet goes to it until it is up again. No-op in RoCE mode.
 */
void mrc_qp_peer_ports(struct mrc_qp *qp, uint32_t up_planes);

/* The EV a control packet to the peer on @plane goes by (MRC_NO_EV for a bad plane). */
uint32_t mrc_qp_ctl_ev(struct mrc_qp *qp, unsigned plane, uint64_t now_ps);

/*
 * RoCE mode: the NIC port (plane) and EV index (into mrc_qp_evs()) the QP was bound to at
 * creation. Returns 0, or -EINVAL for a QP in MRC mode.
 */
int mrc_qp_roce_path(const struct mrc_qp *qp, unsigned *plane, unsigned *ev_idx);

/* Counters (rx_lost computed now). The QP keeps those every packet, loss or tail probe
 * moves; the rest (NACKs, probes, timeouts, port status, RoCE, errors) in a block made when
 * one first counts: a QP that could not make it (-ENOMEM) reports them 0. */
void mrc_qp_get_stats(const struct mrc_qp *qp, struct mrc_qp_stats *out);

/* True once the QP is in the error state; *reason then says why ("ACK timeout: ..."). */
bool mrc_qp_failed(const struct mrc_qp *qp, const char **reason);

/* The QP's EV set (states, event log; the per-EV counters are the profile's, shared by
 * the QPs of an endpoint), and its congestion control. */
struct mrc_ev_set *mrc_qp_evs(struct mrc_qp *qp);
const struct mrc_cc *mrc_qp_cc(const struct mrc_qp *qp);

/* Requester position: next new PSN, oldest unacknowledged PSN, bytes in flight. */
uint32_t mrc_qp_next_psn(const struct mrc_qp *qp);
uint32_t mrc_qp_una(const struct mrc_qp *qp);
uint64_t mrc_qp_inflight(const struct mrc_qp *qp);

#endif
