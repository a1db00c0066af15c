/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fabric: the simulated multi-plane two-tier SRv6 fabric — links, output ports with
 * strict priority, ECN and trimming, switches forwarding real packet bytes by uN
 * (RFC 9800 NEXT-CSID, F3216) and SRH segments-left (RFC 8754 §4.3.1.1), ECMP for plain
 * packets, faults and capture taps (docs/architecture.md "The simulated fabric",
 * docs/wire-format.md "Packet stack" and "SRv6 uSID addressing").
 *
 * Topology and port numbering (agreed with mrc/srv6):
 *   planes P; per plane t0 leaf (T0) and t1 spine (T1) switches; every T0 of a plane is
 *   linked to every T1 of that plane. hosts = t0 * hosts_per_t0; host h has P NIC ports,
 *   port p on T0 index h / hosts_per_t0 of plane p.
 *   T0 i: ports 0..hosts_per_t0-1 to its hosts (host i*hpt + k on port k), then port
 *   hosts_per_t0 + j to T1 j. T1 j: port i to T0 i. Host h: port p = plane p.
 * Links are full duplex: each direction is an output port with its own queue.
 */
#ifndef MRC_FABRIC_H
#define MRC_FABRIC_H

#include "mrc/sim/sim.h"
#include "mrc/engine/srv6.h"
#include "mrc/engine/wire.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mrc_fabric;

enum mrc_fab_tier {
	MRC_FAB_HOST = 0,
	MRC_FAB_T0,
	MRC_FAB_T1,
};

/*
 * The host side of the fabric (wired to mrc_ep_* by the driver glue). All callbacks run
 * inside the event loop at virtual time @now_ps.
 *  rx:  a packet arrived at NIC port @plane of @host; @buf is valid only during the call.
 *  rx_gather: optional; when set it replaces rx for every packet, as a NIC receives: a
 *       gathered data packet comes in pieces, @len bytes on the link of which the first
 *       @g->hlen (its headers) are at @buf and the payload is @g->payload_len bytes at
 *       @g->payload (the sender's buffer; NULL: zeros), then pad and ICRC, not given
 *       (mrc_ep_on_rx_gather decodes that). Any other packet (control, trimmed, or from
 *       a host that does not gather) is whole at @buf: @g->hlen == @len, no payload.
 *       All of it is valid only during the call; the UDP checksum and ICRC may still be
 *       zero (offloaded, see csum_offload). Hosts that need contiguous bytes use rx.
 *  tx:  NIC port @plane of @host is free: write the next packet (at most @cap bytes) into
 *       @buf and return its length, or 0 when the host has nothing to send on that port
 *       (it then calls mrc_fabric_kick when it has). Called only while the port is up.
 *       A gathering host (mrc_ep_tx_gather) writes only the bytes before a data packet's
 *       payload and describes the rest in @g (mrc_wire_encode_gather); @g arrives
 *       zeroed, hlen 0 meaning the whole packet is in @buf. The payload must stay valid
 *       while the packet is in the fabric, or until mrc_fabric_forget_payloads.
 *  port_status: NIC port @plane of @host went down or up (a NIC-port fault).
 *  tx_ctrl: optional; NIC port @plane of @host may send control packets only (its data
 *       priority is paused by PFC, docs/pfc.md): as tx, but only a packet of the host's
 *       control queue (mrc_ep_tx_ctrl), written whole; 0 when it has none. Without it a
 *       paused NIC port pulls nothing until the pause ends.
 *  payload: optional; when set, a gathered payload is never read where the fabric lays a
 *       packet out whole (a capture point, a trim, a host without rx_gather): it writes
 *       into @out the @len bytes the sender's buffer holds at @pay, which may hold none
 *       (the simulator's verification descriptors: bytes generated from the closed form,
 *       docs/verification.md). Without it they are copied from @pay.
 *  pay_token, pay_from_token: optional, both or neither; for ranks (mrc_fabric_ranks). A
 *       gathered payload crossing to another rank crosses as pay_token's token of
 *       MRC_FAB_PAY_TOKEN bytes for (@pay, @len) (the run's: e.g. a reference and what the
 *       receiving process must know of the source), which the receiving rank's
 *       pay_from_token turns back into its @pay (an address its payload and rx_gather ops
 *       understand, valid as the sender's was). Without them the payload's @len bytes are
 *       copied (from @pay, NULL: none) and kept with the packet, @pay then pointing at
 *       that copy; a fabric with the payload op (whose @pay may not be bytes) needs them.
 */
#define MRC_FAB_PAY_TOKEN 24 /* bytes of a payload's token between ranks */

struct mrc_fab_host_ops {
	void (*rx)(void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len,
		uint64_t now_ps);
	size_t (*tx)(void *ctx, uint32_t host, unsigned plane, uint64_t now_ps, uint8_t *buf,
		size_t cap, struct mrc_wire_gather *g);
	void (*port_status)(void *ctx, uint32_t host, unsigned plane, bool up, uint64_t now_ps);
	void (*rx_gather)(void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len,
		const struct mrc_wire_gather *g, uint64_t now_ps);
	size_t (*tx_ctrl)(void *ctx, uint32_t host, unsigned plane, uint64_t now_ps, uint8_t *buf,
		size_t cap);
	void (*payload)(void *ctx, const uint8_t *pay, uint32_t len, uint8_t *out);
	void (*pay_token)(void *ctx, const uint8_t *pay, uint32_t len,
		uint8_t tok[MRC_FAB_PAY_TOKEN]);
	const uint8_t *(*pay_from_token)(void *ctx, const uint8_t tok[MRC_FAB_PAY_TOKEN],
		uint32_t len);
};

/* The two traffic classes of an output port, strict priority: control over data. */
enum mrc_fab_class {
	MRC_FAB_CTRL = 0, /* ACK/SACK/NACK/probe/endpoint, trimmed, ICMPv6: PFC priority 6 */
	MRC_FAB_DATA = 1, /* everything else: PFC priority 3 (docs/pfc.md) */
};

/*
 * PFC (IEEE 802.1Qbb) lossless mode (docs/pfc.md "The model"). A switch counts, per ingress
 * link and class, the bytes that came in over it and still wait in its output queues
 * (from the packet's entry in an output queue to the start of its transmission). Past
 * @xoff_bytes it sends the upstream port a PAUSE (XOFF) for that class, which stops it
 * (a host NIC port stops pulling that class from its host) after the packet it is
 * sending; once back at or below @xon_bytes, a RESUME (XON). A PFC frame is 64 bytes on
 * the reverse link, sent after the packet being serialized there. A lossless class is not
 * limited by the output port's buffer; a packet arriving at an ingress already holding
 * more than @xoff_bytes + @headroom_bytes - its length is dropped (headroom_drops): none
 * with the headroom rule of docs/pfc.md. Hosts never send PFC frames.
 */
struct mrc_fab_pfc_params {
	bool enabled;		 /* the data class is lossless (trim must be off) */
	bool control;		 /* and the control class too (else lossy, strict priority) */
	uint32_t xoff_bytes;	 /* > this per ingress and class: PAUSE */
	uint32_t xon_bytes;	 /* <= this again: RESUME; <= xoff_bytes */
	uint32_t headroom_bytes; /* above xoff_bytes an ingress may still take */
};

/* One switch's ECMP seed, in place of the one fabric.ecmp gives it. */
struct mrc_fab_switch_seed {
	enum mrc_fab_tier tier; /* MRC_FAB_T0 or MRC_FAB_T1 */
	uint32_t index;
	unsigned plane;
	uint64_t seed;
};

/*
 * Fabric parameters (the driver maps the config onto these). Rates in bit/s, delays in
 * ps, sizes in bytes. The topology (planes, t0, t1, hosts_per_t0), the switches' static
 * uSID tables and the host port addresses (the inner DA, and the only DA of plain
 * stev/udp packets) all come from the mrc/srv6 plan @plan, which must outlive the fabric.
 */
struct mrc_fabric_params {
	const struct mrc_srv6_plan *plan;
	uint64_t host_rate_bps, fabric_rate_bps;    /* host<->T0 links, T0<->T1 links */
	uint64_t host_delay_ps, fabric_delay_ps;    /* propagation per tier */
	uint64_t switch_delay_ps;		    /* arrival to output queue */
	uint32_t buffer_bytes;			    /* data class, per output port */
	uint32_t ctrl_buffer_bytes;		    /* control class, per output port */
	/* ECN of the data class (mrc_fabric_ecn_prob): CE with probability 0 at a backlog
	 * up to kmin, rising linearly to pmax at kmax, 1 above it; kmin = kmax is a step,
	 * kmax 0 = no marking. Drawn from the fabric's seeded generator. */
	uint32_t ecn_kmin_bytes, ecn_kmax_bytes;
	double ecn_pmax;
	bool ecn_lasthop;			    /* also mark on T0->host ports (default off) */
	bool trim;				    /* trim instead of dropping data */
	uint32_t trim_bytes;			    /* trimmed length, L3, from outer IPv6 */
	uint8_t dscp_trimmed, dscp_trimmed_lasthop; /* DSCP written by a trimming port */
	uint32_t pkt_cap;			    /* packet buffer size; 0 = MRC_PKT_MAX */
	bool csum_offload;			    /* hosts leave UDP checksum and ICRC zero
						     * (mrc_wire cfg csum_offload): filled
						     * where a tap sees or a trim cuts them */
	bool icrc_outer;			    /* the hosts' mrc_wire icrc_outer */
	struct mrc_fab_pfc_params pfc;		    /* PFC lossless mode (off by default) */
	uint64_t seed;				    /* random loss and ECN draws */
	struct mrc_sim_params simq;		    /* event queue choice */
	/* ECMP of plain packets at a T0 (mrc/sim/ecmp.h): the header fields hashed (enum
	 * mrc_ecmp_field bits), the seed and whether each switch derives its own from it
	 * (mrc_ecmp_switch_seed), then the seeds of single switches (overrides; read by
	 * mrc_fabric_new only) */
	unsigned ecmp_fields;
	uint64_t ecmp_seed;
	bool ecmp_per_switch;
	const struct mrc_fab_switch_seed *ecmp_seeds;
	size_t n_ecmp_seeds;
	/* Routing reconvergence (docs/roce-baseline.md "Routing reconvergence"): a T0-T1 link
	 * that goes down (either direction, or with a switch) leaves the ECMP groups
	 * detect_ps + converge_ps later if it stayed down detect_ps; one coming up rejoins
	 * them detect_ps + converge_ps later if it stayed up */
	uint64_t detect_ps, converge_ps;
};


/* Fills @p with defaults: 100 Gb/s everywhere, 500 ns links, 300 ns switches, 1 MiB data
 * buffer, 256 KiB control, ECN step at 200 KiB (pmax 0.01 when given a ramp), trimming to
 * 256 B with DSCP 12 / 13 (mrc/wire's defaults; all knobs), PFC off (xoff 60000 B, xon
 * 48000 B, headroom 0: set it); ECMP on the 5-tuple, seed 1, per switch; routing
 * detection 900 ms (BFD 300 ms x 3) and convergence 100 ms (docs/config.md "fabric");
 * @plan stays for the caller. */
void mrc_fabric_defaults(struct mrc_fabric_params *p);

/*
 * Builds the fabric and an event loop. Each switch gets its own copy of its static table
 * from the plan (mrc_srv6_fib_of), so a blackhole fault can remove a route. Errors:
 * -EINVAL (no plan, zero rates, a table naming a port the switch does not have,
 * duplicate host addresses, pkt_cap > 65535 or below trim_bytes, an ECMP seed for a
 * switch the fabric does not have, ecn kmin > kmax or pmax outside [0, 1], PFC with
 * trimming or with xon above xoff), -ENOMEM.
 */
int mrc_fabric_new(const struct mrc_fabric_params *p, const struct mrc_fab_host_ops *ops, void *ctx,
	struct mrc_fabric **out);
void mrc_fabric_free(struct mrc_fabric *fab);

/* The event loop the fabric runs on (the driver schedules its engine timers here). */
struct mrc_sim *mrc_fabric_sim(struct mrc_fabric *fab);

/*
 * The loop's entity of host @host (mrc_sim_at_ent): events for the host's endpoint (its
 * timers) run on it, as its NIC ports' do. The fabric's entities: 0 the loop's caller
 * (and faults, routing), 1.. the switches, then the hosts.
 */
uint32_t mrc_fabric_host_entity(const struct mrc_fabric *fab, uint32_t host);

/*
 * The lookahead of a T0-T1 link in ps: the least time between an event at one end and
 * what it causes at the other, fabric_delay_ps plus the lesser of switch_delay_ps (a
 * packet's last bit to its output queue) and a PFC frame's 64 bytes (which skip the
 * switch delay); a parallel run's window (docs/architecture.md "Parallel simulation").
 */
uint64_t mrc_fabric_lookahead(const struct mrc_fabric *fab);

/*
 * Runs the fabric's loop on @workers threads (1: serial, nothing to do): a partition per
 * rack (T0 i of every plane with its hosts; T1 number k = p t1 + j (plane p) of n =
 * planes t1 in rack k t0 / n: spread evenly), racks dealt to workers in blocks, windows
 * of mrc_fabric_lookahead, which it sets as the loop's window (mrc_sim_set_window,
 * mrc_sim_partition; docs/architecture.md "Parallel simulation"). Call after
 * mrc_fabric_new, before anything is scheduled. 0, -ERANGE (more workers than racks, or
 * above 1024), -EDOM (a lookahead of 0: fabric link and switch delays 0), -EINVAL,
 * -ENOMEM.
 */
int mrc_fabric_partition(struct mrc_fabric *fab, unsigned workers);

/* The worker host @host's events run on (mrc_fabric_partition), 0 in a serial run. */
unsigned mrc_fabric_host_worker(const struct mrc_fabric *fab, uint32_t host);

/*
 * Runs the fabric's loop as rank @c->rank of @c->ranks processes that each built the same
 * fabric (same params, plan, ops' presence) and call this in place of
 * mrc_fabric_partition (docs/architecture.md "Parallel simulation", Ranks): racks dealt to
 * the ranks as mrc_fabric_partition deals them to workers, and each rank's racks to its
 * @workers (1 or more threads) the same way, windows of mrc_fabric_lookahead
 * (mrc_sim_ranks, then mrc_sim_partition with @workers). A packet
 * arriving over a T0-T1 link at another rank's switch crosses with its metadata, header
 * bytes and payload (its bytes, or the ops' pay_token), freed here and rebuilt in the
 * receiver's pool; a PFC frame as its port's index. Entity 0 (faults, routing, the
 * caller) must do the same on every rank; the caller drives only its own hosts (their
 * ops are called on this rank only). Call after mrc_fabric_new, before anything is
 * scheduled. 0, -ERANGE (more ranks than racks, or above 1024; ranks x @workers above
 * the racks), -EDOM (a lookahead of 0), -EINVAL (no comm, fewer than 2 ranks, rank out of
 * range, @workers 0, already partitioned, one
 * of pay_token/pay_from_token without the other, or the payload op without them),
 * -ENOMEM; after an error the fabric is only good for mrc_fabric_free.
 */
int mrc_fabric_ranks(struct mrc_fabric *fab, const struct mrc_sim_comm *c, unsigned workers);

/* The rank host @host's events run on (mrc_fabric_ranks), 0 without ranks. */
unsigned mrc_fabric_host_rank(const struct mrc_fabric *fab, uint32_t host);

/* Whether this process runs host @host's events: always without ranks. */
bool mrc_fabric_owns_host(const struct mrc_fabric *fab, uint32_t host);

/*
 * Results over ranks (docs/architecture.md "Parallel simulation", Ranks). Every rank but
 * 0 appends its share to @b after the run: the counters of the output ports and switches
 * it owns (a port is its switch's or NIC's host's), their PFC counters and pause state,
 * the PFC ingress counters (headroom_drops, max_ingress_bytes) of the ports whose far
 * end it owns, the `lost` it counted on other ranks' ports (decided at the far end), and
 * its packet counters (events but entity 0's, pkt_hops, injected, delivered). 0, -EINVAL
 * (no ranks) or -ENOMEM.
 */
int mrc_fabric_results_pack(const struct mrc_fabric *fab, struct mrc_sim_buf *b);

/*
 * Rank 0 applies the share of one other rank (@len bytes at @p, as results_pack made it
 * at that rank), once per rank: what that rank owns overwrites this copy, `lost` and the
 * packet counters add. Afterwards, with every other rank's applied, mrc_fabric_stats'
 * events, pkt_hops, injected and delivered, and mrc_fabric_port_stats, _switch_stats,
 * _pfc_stats and _port_totals are what the serial run gives (the memory figures stay
 * this rank's). The bytes are checked whole before anything is applied: -EPROTO (wrong
 * length, another fabric's shape, this rank's or an unknown rank, an index out of range
 * or of something that rank does not own), -EINVAL (no ranks).
 */
int mrc_fabric_results_unpack(struct mrc_fabric *fab, const void *p, size_t len);

/*
 * Gathered payloads of the packets still in the fabric become zeros: call it before the
 * buffers they point into are freed or reused (a new collective), when only stale
 * copies (duplicates the receivers drop unread) can still be in flight.
 */
void mrc_fabric_forget_payloads(struct mrc_fabric *fab);

/*
 * The end of a run: frees the packet pool, packets still queued or travelling with it,
 * before the results are gathered (job-perm128's 3.5 MB, there beside the 0.3 MB of link
 * counters made then, was the run's peak). Counters, stats and the fault log stay
 * readable. The fabric is closed: if its loop ran again, its events would do nothing (no
 * packet arrives, no NIC port pulls one from its host, a kick is ignored); faults still
 * change link states. Call mrc_fabric_free as before.
 */
void mrc_fabric_release_pool(struct mrc_fabric *fab);

/* Host @host has new work for NIC port @plane: the port pulls (tx) when it is free. */
void mrc_fabric_kick(struct mrc_fabric *fab, uint32_t host, unsigned plane);

/* ---- faults ------------------------------------------------------------------------ */

enum mrc_fab_fault_kind {
	MRC_FAB_LINK_DOWN = 1,
	MRC_FAB_LINK_UP,
	MRC_FAB_SWITCH_DOWN,
	MRC_FAB_SWITCH_UP,
	MRC_FAB_NIC_DOWN, /* host NIC port: link both ways + port_status(down) */
	MRC_FAB_NIC_UP,
	MRC_FAB_LOSS,	     /* random loss on a link: rate in [0, 1]; 0 ends it */
	MRC_FAB_DELAY,	     /* added propagation delay on a link; 0 ends it */
	MRC_FAB_FLAP,	     /* link down/up with a period and duty, until until_ps */
	MRC_FAB_BLACKHOLE,   /* remove switch's static route to uSID usid */
	MRC_FAB_UNBLACKHOLE, /* put it back */
};

/* Which direction(s) of a link a fault hits: up = away from the host (host->T0, T0->T1). */
enum mrc_fab_dir {
	MRC_FAB_BOTH = 0,
	MRC_FAB_UPWARD,
	MRC_FAB_DOWNWARD,
};

/*
 * One fault, a plain struct. Targets:
 *  links:  tier MRC_FAB_HOST: host @a's link in @plane; tier MRC_FAB_T0: the link
 *          T0 @a - T1 @b of @plane; @dir picks the direction(s).
 *  switch: @tier (T0/T1) and index @a in @plane.
 *  NIC:    host @a, @plane.
 *  blackhole: switch (@tier, @a, @plane), route to @usid.
 * FLAP: from at_ps, each @period_ps starts with the link down for floor(period * duty)
 * ps (duty: the fraction down), then up for the rest; the link is left up at until_ps.
 */
struct mrc_fab_fault {
	enum mrc_fab_fault_kind kind;
	uint64_t at_ps;
	unsigned plane;
	enum mrc_fab_tier tier;
	uint32_t a, b;
	enum mrc_fab_dir dir;
	double loss_rate;
	uint64_t delay_ps;
	uint64_t period_ps;
	double duty;
	uint64_t until_ps;
	uint16_t usid;
};

/* Applies @f now (at @now_ps, which must be the loop's clock): for faults "at iteration
 * k" that the collective layer triggers. Returns 0, or -EINVAL (bad target or values) or
 * -ENOENT (blackhole of a route that is not there, or of one the plan does not have).
 * An up of what is not down (a link without a link-down in its directions, a switch that
 * is up, a NIC port without a NIC-down) and an unblackhole of a route that is there change
 * nothing: they return 0 and are logged with noop set (docs/report.md "Keys",
 * faults_not_applied[]). */
int mrc_fabric_apply(struct mrc_fabric *fab, const struct mrc_fab_fault *f, uint64_t now_ps);

/* Validates @f and schedules it at f->at_ps. 0, -EINVAL, -ENOMEM. */
int mrc_fabric_schedule(struct mrc_fabric *fab, const struct mrc_fab_fault *f);

/* An applied fault (each flap toggle too), for the report. */
struct mrc_fab_fault_rec {
	uint64_t at_ps;
	enum mrc_fab_fault_kind kind;
	char target[48]; /* "p0.t0.3-p0.t1.1", "h5.p2", "p1.t1.0", "p0.t0.2 route 0x1402" */
	bool noop;	 /* it found nothing to change (see mrc_fabric_apply) */
	/* When the ECMP groups first changed for what it did to a T0-T1 link (a link or a
	 * switch down leaving them, coming up rejoining them: struct mrc_fabric_params
	 * detect_ps, converge_ps); UINT64_MAX: not (yet), or nothing of it is routed */
	uint64_t routed_ps;
};
const struct mrc_fab_fault_rec *mrc_fabric_fault_log(const struct mrc_fabric *fab, size_t *n);
const char *mrc_fab_fault_name(enum mrc_fab_fault_kind k);

/* ---- capture taps ------------------------------------------------------------------ */

/* A tap sees every packet at a port: egress when its serialization starts, ingress when it
 * has fully arrived (timestamp = arrival, before switch processing). @buf only during the
 * call. */
typedef void (*mrc_fab_tap_fn)(void *ctx, const uint8_t *buf, size_t len, uint64_t now_ps);

/*
 * Attaches @fn to port @port of node (@tier, @index, @plane) — host ports: tier HOST,
 * index = host, port ignored (the plane's NIC port). @egress picks the direction.
 * One tap per port and direction; NULL @fn removes it. 0, -EINVAL, -EBUSY (another
 * context already taps that port and direction: two names of one port, such as h0.p0 and
 * the link h0.p0-p0.t0.0) or -ENOMEM (the fabric makes its table of taps at the first).
 */
int mrc_fabric_tap(struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index, unsigned plane,
	unsigned port, bool egress, mrc_fab_tap_fn fn, void *ctx);

/* ---- counters ---------------------------------------------------------------------- */

struct mrc_fab_port_stats {
	uint64_t tx_pkts, tx_bytes;
	uint64_t drops; /* buffer full (data not trimmable, or control class full) */
	uint64_t trims;
	uint64_t ecn_marks;
	uint64_t down_drops;	  /* sent to or queued on a down link/switch */
	uint64_t lost;		  /* in flight when the link went down, or random loss */
	uint32_t max_queue_bytes; /* both classes, at enqueue */
};

struct mrc_fab_switch_stats {
	uint64_t rx_pkts;
	uint64_t no_route;   /* no static route or ECMP target for the DA */
	uint64_t down_drops; /* arrived while the switch was down */
	uint64_t hop_limit;  /* dropped: hop limit <= 1 on a packet it would send on */
	uint64_t icmp_sent;  /* ICMPv6 Time Exceeded sent for them (RFC 4443 §3.3) */
	uint64_t icmp_rate_limited; /* not sent: no token (RFC 4443 §2.4(f), 50 + 1/ms) */
	uint64_t bad_pkt;    /* not IPv6 or truncated headers */
};

struct mrc_fab_stats {
	uint64_t events;     /* events run by the loop */
	uint64_t pkt_hops;   /* link traversals completed */
	uint64_t injected;   /* packets the hosts sent */
	uint64_t delivered;  /* packets handed to hosts */
	uint64_t pkts_alloc; /* packet slots ever allocated, all size classes (high-water) */
	size_t pkt_bytes;    /* bytes per slot on average (metadata + packet bytes kept: the
			      * headers of a gathered packet; 8-byte size classes) */
	size_t mem_bytes;    /* fabric + pool + event queue memory */
	size_t pool_bytes;   /* of which packet pool */
	size_t evq_bytes;    /* of which event queue */
};

/* Counters of output port @port of node (@tier, @index, @plane); host ports as for taps.
 * 0 or -EINVAL. */
int mrc_fabric_port_stats(const struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index,
	unsigned plane, unsigned port, struct mrc_fab_port_stats *out);
int mrc_fabric_switch_stats(const struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index,
	unsigned plane, struct mrc_fab_switch_stats *out);
void mrc_fabric_stats(const struct mrc_fabric *fab, struct mrc_fab_stats *out);

/* Sum of the counters of every output port (for reports and determinism checks). */
void mrc_fabric_port_totals(const struct mrc_fabric *fab, struct mrc_fab_port_stats *out);

/*
 * ECN marking probability of a data packet that finds @qbytes bytes queued at an output
 * port (DCQCN's RED, Zhu et al., SIGCOMM 2015: the switches' marking): 0 for qbytes <= kmin,
 * pmax * (qbytes - kmin) / (kmax - kmin) up to kmax, 1 above kmax; 0 when kmax is 0.
 */
double mrc_fabric_ecn_prob(const struct mrc_fabric_params *p, uint32_t qbytes);

/* PFC counters of one output port (zeros while PFC is off); classes by enum mrc_fab_class. */
struct mrc_fab_pfc_stats {
	uint64_t pause_tx, resume_tx; /* PFC frames the port's switch sent on it (XOFF, XON),
				       * pausing the traffic that comes the other way */
	uint64_t pause_rx, resume_rx; /* PFC frames that reached this port and applied */
	uint64_t paused_ps[2];	      /* time this port was paused, per class, up to now */
	uint64_t headroom_drops;      /* packets sent on this port that its peer dropped past
				       * xoff + headroom (ingress full) */
	uint64_t max_ingress_bytes;   /* the peer's largest backlog of this port's packets,
				       * one class */
};

/* PFC counters of output port @port of node (@tier, @index, @plane), as for port_stats;
 * paused time counts up to the loop's clock. 0 or -EINVAL. */
int mrc_fabric_pfc_stats(const struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index,
	unsigned plane, unsigned port, struct mrc_fab_pfc_stats *out);

#endif
