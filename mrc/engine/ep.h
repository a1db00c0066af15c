/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ep: one host's MRC endpoint — its QPs, memory regions, demux by BTH DestQP and the
 * per-plane (NIC port) transmit scheduling of docs/wire-format.md. Sans-I/O: drivers
 * (simulator, io_uring, tests) hand it packet bytes and the time in ps, and pull packets.
 *
 * Pull model: every NIC port (plane) calls mrc_ep_tx(plane) whenever its link is free;
 * the EV of a data packet is drawn at that moment among the GOOD EVs of that plane. Since
 * each up port pulls at its own line rate, the planes carry equal shares — this is how
 * the endpoint realizes docs/wire-format.md's round robin over planes, and a down port, which never
 * pulls, simply drops out of the rotation. Within one pull, control packets (SACK, NACK)
 * go first, then QPs are served round robin: a QP's due probe, its retransmissions, then
 * new data within its window.
 */
#ifndef MRC_EP_H
#define MRC_EP_H

#include "mrc/engine/ev.h"
#include "mrc/engine/nscc.h"
#include "mrc/engine/qp.h"
#include "mrc/engine/wire.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mrc_ep_params {
	uint32_t host;		  /* this host's index */
	unsigned planes;	  /* NIC ports, one per plane (1..MRC_EV_MAX_PLANES) */
	struct mrc_wire_cfg wire; /* codec settings */
	uint8_t hop_limit;	  /* of every packet's first IPv6 header (RFC 8200 §3); 0: 64 */
	/*
	 * Fills outer src/dst (+segs) and inner src/dst of @hdr for a packet from this host
	 * to @peer_host on EV @ev (plane = the EV's plane). Returns 0 or a negative errno
	 * (the packet is then dropped and counted in path_err). Wired to mrc/srv6 by the lead.
	 */
	int (*path)(void *ctx, uint32_t peer_host, uint32_t ev, struct mrc_pkt *hdr);
	unsigned (*ev_plane)(void *ctx, uint32_t ev); /* plane of an EV */
	struct mrc_ev_params ev;		      /* EV profile; the arrays are copied */
	/*
	 * A profile built from @ev with @ev_plane (mrc_ev_profile_new) to share with other
	 * endpoints, as a simulated job's hosts do: one copy of its tables, and its per-EV
	 * counters are job-wide. The endpoint takes a reference. NULL: it builds its own.
	 * mrc_ep_new checks its EV values and plane count against @ev; the rest (selection
	 * knobs, deny list, each EV's plane) is the profile's as built.
	 */
	struct mrc_ev_profile *ev_prof;
	struct mrc_qp_params qp;	/* QP attributes for every QP of this endpoint */
	const char *cc;			/* "nscc" (NULL = "nscc"), "fixed" or "dcqcn" */
	struct mrc_cc_params cc_params; /* see mrc_cc_defaults() */
	uint64_t seed;			/* EV selection PRNG seed (per QP: seed ^ qpn mix) */
	uint32_t first_qpn;		/* QPNs are first_qpn, first_qpn + 1, ... (0 -> 1) */
	unsigned max_qps;		/* most QPs (0 -> 1024); tables grow with those made */
	unsigned ctl_queue_max;		/* control packets queued per plane; 0 -> 65536 */
	/*
	 * The job host and plane whose inner address @src is (mrc_srv6_addr_host), or -1
	 * for an address outside the job. Set: a packet is accepted only from its QP's peer
	 * on the plane it arrived by, and endpoint requests are answered (their sender is
	 * known). NULL: no source checks, and endpoint requests are dropped (ep_req_drop).
	 */
	int (*peer_of)(void *ctx, const struct mrc_ip6 *src, unsigned *plane);
	uint64_t ep_rsp_timeout_ps; /* an EV probe unanswered this long is dropped; 0 -> 2 ms */
	uint64_t port_rate_bps;	    /* each port's line rate: the receiver's share rule */
};

/*
 * Fills @p with defaults for @planes ports of @port_rate_bps and a fabric base RTT of
 * @base_rtt_ps: mrc_qp_params_default(), NSCC from mrc_cc_defaults(planes * rate, RTT,
 * mtu) with DCQCN's maximum rate one port's, probe backoff 100 us doubling up to 10 ms, skip hold 0 (one rotation), 1/8 of each
 * plane's EVs as backups, ev_min_active 1, mrc_wire_cfg_default() codec settings. The EV
 * list, path and ev_plane stay for the caller.
 */
void mrc_ep_params_default(
	struct mrc_ep_params *p, unsigned planes, uint64_t port_rate_bps, uint64_t base_rtt_ps);

/* Completions and notifications: struct mrc_ep_ops, declared in mrc/engine/qp.h, whose QPs
 * raise them. */

/* Endpoint-wide counters. */
struct mrc_ep_stats {
	uint64_t tx_pkts[MRC_EV_MAX_PLANES], tx_bytes[MRC_EV_MAX_PLANES];
	uint64_t rx_pkts[MRC_EV_MAX_PLANES], rx_bytes[MRC_EV_MAX_PLANES];
	uint64_t rx_decode_err; /* mrc_wire_decode failed, or an ICMPv6 message's decode */
	uint64_t rx_icmp_time_exceeded; /* ICMPv6 Time Exceeded, code 0 (RFC 4443 §3.3) */
	uint64_t rx_icmp_other;	/* ICMPv6 of another type or code */
	uint64_t rx_unknown_qp; /* DestQP names no QP */
	uint64_t tx_encode_err, path_err;
	uint64_t ctl_dropped; /* control queue full, or flushed by a port going down */
	/* dropped for their source (params.peer_of): an inner source outside the job; a
	 * plane other than the arrival port's, by the source address or by the EV; a QP's
	 * packet from a host other than its peer */
	uint64_t rx_foreign, rx_wrong_plane, rx_spoofed;
	uint64_t rx_misdirected; /* inner destination not this host's address on that port */
	/* endpoint operations (docs/wire-format.md "Endpoint operations"), per enum
	 * mrc_ep_op: requests sent and answered; responses sent, matched to a request in
	 * flight, and dropped unmatched (no such request outstanding from that host on that
	 * EV, or answered after ep_rsp_timeout_ps); requests dropped (no peer_of) */
	uint64_t ep_req_tx[2], ep_req_rx[2];
	uint64_t ep_rsp_tx, ep_rsp_rx, ep_rsp_unmatched, ep_req_drop;
};

struct mrc_ep;

/*
 * Creates an endpoint. @ops (copied) and @ctx may be NULL/anything. Returns 0, -EINVAL
 * (planes 0 or > MRC_EV_MAX_PLANES, no path/ev_plane, unknown cc, bad EV profile, a given
 * ev_prof whose values or planes differ from ev's) or -ENOMEM.
 */
int mrc_ep_new(const struct mrc_ep_params *p, const struct mrc_ep_ops *ops, void *ctx,
	struct mrc_ep **out);
void mrc_ep_free(struct mrc_ep *ep);

/*
 * Registers @len bytes at @base as a memory region writable by peers; the region's VA is
 * the address of @base. *rkey receives its R_Key. Returns 0, -EINVAL or -ENOMEM.
 */
int mrc_ep_reg_mr(struct mrc_ep *ep, void *base, uint64_t len, uint32_t *rkey);

/*
 * The same with the VA peers write to given: @va .. @va + @len maps to @base. A simulated
 * job uses it so that RETH VAs, hence packet bytes and pcaps, do not depend on where
 * malloc put the buffers (ASLR). A NULL @base makes a sink region: accesses are checked
 * against it, the bytes are dropped (runs with traffic.verify off) and the ops' placed,
 * when set, told where they would have gone (traffic.verify true). Returns 0, -EINVAL
 * (len 0, VA range wraps) or -ENOMEM.
 */
int mrc_ep_reg_mr_va(struct mrc_ep *ep, void *base, uint64_t va, uint64_t len, uint32_t *rkey);

/*
 * Creates a QP to @peer_qpn on @peer_host. QPNs are handed out in order from first_qpn,
 * so peers that create QPs in the same order can predict each other's numbers; both
 * directions start at qp.start_psn. Returns 0, -ENOSPC (max_qps), -EINVAL, -ENOMEM.
 */
int mrc_ep_qp_create(struct mrc_ep *ep, uint32_t peer_host, uint32_t peer_qpn, uint32_t *qpn);
/* Sets the peer QPN later. Returns 0 or -ENOENT. */
int mrc_ep_qp_connect(struct mrc_ep *ep, uint32_t qpn, uint32_t peer_qpn);

/* See mrc_qp_post_write(); also -ENOENT for an unknown @qpn. */
int mrc_ep_post_write(struct mrc_ep *ep, uint32_t qpn, const void *local, uint64_t len,
	uint64_t remote_va, uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id,
	uint64_t now_ps);

/*
 * A packet of @len bytes arrived on port @plane: the full packet (outer IPv6 first) or,
 * as a protocol-41 raw socket delivers it, the inner IPv6 packet alone (told apart by the
 * first header's next-header field). @ce: the driver saw ECN CE on a header it stripped.
 * Undecodable packets and unknown QPs are counted and dropped. So is an ICMPv6 message
 * (next header 58, mrc_wire_decode_icmp6): a Time Exceeded a switch sent about one of
 * this host's packets whose hop limit ran out (RFC 4443 §3.3) counts in
 * rx_icmp_time_exceeded, another type or code in rx_icmp_other, a malformed one (bad
 * checksum, lengths) in rx_decode_err; none touches a QP: MRC recovers the lost packet
 * as any other loss.
 */
void mrc_ep_on_rx(struct mrc_ep *ep, unsigned plane, const uint8_t *pkt, size_t len, bool ce,
	uint64_t now_ps);

/*
 * mrc_ep_on_rx for a packet that arrives gathered, as a NIC receives what a peer's NIC
 * gathered from its registered memory (mrc_ep_tx_gather): the @len-byte packet's first
 * @g->hlen bytes (its headers) are at @pkt, its payload is @g->payload_len bytes at
 * @g->payload (zeros when NULL), decoded by mrc_wire_decode_gather (docs/wire-format.md "Packet
 * stack"), so the QP places the payload straight from there: one copy. @g NULL or
 * @g->hlen == @len is a whole packet, as mrc_ep_on_rx. Needs the endpoint's wire checks off (no
 * rx_checks): otherwise a packet with its payload apart counts as a decode error.
 */
void mrc_ep_on_rx_gather(struct mrc_ep *ep, unsigned plane, const uint8_t *pkt, size_t len,
	const struct mrc_wire_gather *g, bool ce, uint64_t now_ps);

/*
 * The next packet for NIC port @plane written into @buf (@cap bytes, MRC_PKT_MAX is
 * always enough): control first, then data within the window. Returns its length, 0 when
 * the port has nothing to send (or is down), or a negative errno when a packet could not
 * be built (counted; the engine recovers it like a loss).
 */
int mrc_ep_tx(struct mrc_ep *ep, unsigned plane, uint64_t now_ps, uint8_t *buf, size_t cap);

/*
 * mrc_ep_tx for a NIC that gathers payload from memory: a data packet's payload is not
 * copied into @buf but described in @g (mrc_wire_encode_gather; needs the wire cfg's
 * csum_offload). The payload bytes stay valid until the write that sent them completes
 * and its source buffer is reused. Returns as mrc_ep_tx (the packet's whole length).
 */
int mrc_ep_tx_gather(struct mrc_ep *ep, unsigned plane, uint64_t now_ps, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g);

/*
 * The next queued control packet of port @plane only (ACK, SACK, NACK, endpoint
 * response: what a QP emitted as control), written whole as mrc_ep_tx does; 0 when none
 * waits. For a NIC port whose data priority is paused by PFC (IEEE 802.1Qbb, per
 * priority): control packets go on another priority (docs/pfc.md "Classes and
 * priorities"). When one is queued later, ops->tx_ready tells the port as for any.
 */
int mrc_ep_tx_ctrl(struct mrc_ep *ep, unsigned plane, uint64_t now_ps, uint8_t *buf, size_t cap);

/* When mrc_ep_on_timer() wants to run next (ps), UINT64_MAX when no timer is armed. */
uint64_t mrc_ep_next_timer(const struct mrc_ep *ep);
void mrc_ep_on_timer(struct mrc_ep *ep, uint64_t now_ps);

/*
 * NIC port @plane went down or came up. The QPs resend what was in flight on it
 * elsewhere, and every peer host of an MRC QP is told once with a PORT_STATUS_UPDATE
 * (ERTH op 0, the mask of our ports that are up, bit N = port N = plane N - 1, 1-based as
 * mrc_ctl.h's phy_port_mask) sent on a port that is up; the peer's endpoint applies the
 * mask to all its QPs to us (mrc_qp_peer_ports) and answers with an EETH. Not resent: a
 * peer that misses it finds the plane's EVs bad by loss (docs/wire-format.md "Port status").
 */
void mrc_ep_port_status(struct mrc_ep *ep, unsigned plane, bool up, uint64_t now_ps);

/* Most EV probes an endpoint keeps outstanding (mrc_ep_ev_probe). */
#define MRC_EP_PROBES_MAX 64

/*
 * EV_PROBE (mrc_ctl.h MRC_CTL_EP_OP_EV_PROBE): sends an ENDPOINT_REQUEST (ERTH op 1, BTH
 * DestQP MRC_EP_DEST_QP, PSN[15:0] = the request id) to @peer_host over EV @ev, on the
 * EV's plane, with the data DSCP. The peer's endpoint answers at once with an
 * ENDPOINT_RESPONSE over the same EV; the answer from that host, on that EV, with the id
 * and the echoed tx_ts, within params.ep_rsp_timeout_ps, raises ops->ep_response with the
 * RTT in ns (mrc_ctl.h struct mrc_ctl_ep_rsp: rtt in 1 ns units). Returns the request id
 * (0..65535), -EINVAL (no peer_of, or @ev is not in the EV profile), -ENETDOWN (the
 * EV's port is down) or -EBUSY (MRC_EP_PROBES_MAX probes outstanding).
 */
int mrc_ep_ev_probe(struct mrc_ep *ep, uint32_t peer_host, uint32_t ev, uint64_t now_ps);

/* Control interface: DENY an EV of a QP, or lift it. Returns 0 or -ENOENT. */
int mrc_ep_ev_deny(struct mrc_ep *ep, uint32_t qpn, uint32_t ev, bool deny, uint64_t now_ps);

/*
 * Counters: endpoint, one QP (-ENOENT if unknown), and a QP's EV set (NULL if unknown:
 * states are the QP's; per-EV counters, mrc_ev_st(), are the profile's, summed over its
 * QPs — and over the job's when the profile was given in the params, ev_prof).
 */
void mrc_ep_get_stats(const struct mrc_ep *ep, struct mrc_ep_stats *out);
int mrc_ep_qp_stats(const struct mrc_ep *ep, uint32_t qpn, struct mrc_qp_stats *out);
const struct mrc_ev_set *mrc_ep_qp_evs(const struct mrc_ep *ep, uint32_t qpn);
/*
 * The endpoint's EV profile, shared by its QPs: values in profile order (the EV list of
 * the params) and, in st[], each EV's counters summed over all its QPs — and over every
 * other endpoint's when the profile was given in the params (ev_prof).
 */
const struct mrc_ev_profile *mrc_ep_ev_profile(const struct mrc_ep *ep);
/*
 * Each EV's losses (PSNs inferred lost, as st[].losses) counted by this endpoint's QPs
 * alone since it was made or last cleared: [profile n], profile order. Clearing zeroes
 * this endpoint's copy only, never the profile's st[].
 */
const uint64_t *mrc_ep_ev_losses(const struct mrc_ep *ep);
void mrc_ep_ev_losses_clear(struct mrc_ep *ep);
/* The QPs created so far: their count, *@first the first QPN (the rest follow it). */
unsigned mrc_ep_qpns(const struct mrc_ep *ep, uint32_t *first);
/* The QP with number @qpn, or NULL (for mrc_qp_* inspection calls). */
struct mrc_qp *mrc_ep_qp(const struct mrc_ep *ep, uint32_t qpn);

#endif
