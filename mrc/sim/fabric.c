/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fabric: simulated multi-plane two-tier SRv6 fabric — output ports, uN/SRH/ECMP
 * forwarding on packet bytes (RFC 9800, RFC 8754, docs/wire-format.md), faults and taps.
 */
#include "mrc/sim/fabric.h"
#include "mrc/sim/ecmp.h"
#include "mrc/base/rng.h"
#include "mrc/base/bytes.h"
#include "mrc/engine/srv6.h"
#include "mrc/engine/wire.h"
#include "mrc/job/epparams.h"
#include "mrc/job/fault.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A packet in the pool: 32 bytes of metadata, then its bytes, in a slot of the smallest
 * size class (POOL_STEP-byte steps) that holds them: a packet costs its header bytes
 * rounded up, not the largest packet's. The offsets are parsed once when the host
 * injects the packet (switches edit DA, SL, TC and hop limit in place, never the
 * layout). A gathering host (mrc_wire_encode_gather) leaves a data packet's payload in
 * its registered buffer, as an RDMA NIC DMAs it: data holds the hlen bytes before it,
 * and the packet's len bytes on the link are those, the pay_len payload bytes at pay
 * (zeros when NULL), then zeros (pad, ICRC; the ICRC once computed is kept in icrc). So
 * the pool holds headers, not payloads: 160-176 bytes a gathered packet (124-140 bytes
 * of headers) instead of the MTU. A receiving host with the rx_gather op gets it in
 * those pieces (headers, payload pointer) and places the payload from the sender's
 * buffer: one copy, as an RDMA NIC; with rx it is laid out first. @next links a queued
 * packet to the one behind it in its port's queue, and a free packet to the next free
 * one of its class; a packet on a link is in neither, and keeps its port and gen in the
 * same 8 bytes (launch writes them, on_arrive reads them before anything else links the
 * packet). The time its last bit reaches the far end of the link is not kept: the
 * arrival event runs then (plus the switch delay at a switch). The three header offsets
 * are kept as one (nh_off) and flags, with no narrowing: the SRH can only follow the
 * outer IPv6 (at MRC_IP6_HLEN), and the BTH follows the UDP header that follows the
 * inner IPv6 or, without one, the outer and its SRH (pkt_srh_off, pkt_inner_off,
 * pkt_bth_off); nh_off <= hlen <= pkt_cap <= 65535 (mrc_fabric_new) as len's 16 bits.
 */
struct fab_pkt {
	union {
		struct fab_pkt *next; /* queued or free: the next in the queue or free list */
		struct {	      /* on a link, from launch to on_arrive: */
			uint32_t port; /* the output port it left by */
			uint8_t gen;   /* that link's down count when it left */
		};
	};
	const uint8_t *pay; /* gathered payload, NULL: zeros (or none: pay_len 0) */
	uint32_t icrc;	    /* PK_ICRC: the ICRC of a gathered packet, as on the wire */
	uint16_t len;	    /* on the link */
	uint16_t hlen;	    /* in data[]: len unless gathered */
	uint16_t pay_len;   /* gathered payload bytes after data[hlen - 1] */
	uint16_t nh_off;    /* PK_INNER, PK_MRC: where the header after the outer IPv6
			     * and its SRH (PK_SRH) starts: the inner IPv6 or UDP */
	uint8_t flags;	    /* PK_* */
	uint16_t cls;	    /* size class: the slot is (cls + 1) * POOL_STEP bytes; the
			     * slot's, not the packet's: pkt_move leaves it */
	uint8_t data[];
};

_Static_assert(sizeof(struct fab_pkt) == 32 && offsetof(struct fab_pkt, data) == 32,
	"a packet's metadata is 32 bytes, POOL_STEP-aligned");

enum {
	PK_CTRL = 1,   /* control class: ACK/SACK/NACK/probe/endpoint/CNP, trimmed */
	PK_LOST = 2,   /* dies on arrival (random loss) */
	PK_BAD = 4,    /* not parsable as IPv6: switches drop it */
	PK_ICRC = 8,   /* gathered, checksums finished: icrc holds the ICRC */
	PK_SRH = 16,   /* an SRH follows the outer IPv6 */
	PK_INNER = 32, /* an inner IPv6 at nh_off: an outer one precedes it */
	PK_MRC = 64,   /* UDP to MRC_UDP_PORT and a BTH after it (pkt_bth_off) */
	PK_PAYIN = 128, /* came from another rank: its pay_len payload bytes are in the slot,
			 * after its hlen header bytes, and pay points there (xf_arrive_unpack) */
};

/* Offset of the SRH in data[], 0 = none. */
static inline uint32_t pkt_srh_off(const struct fab_pkt *pkt)
{
	return pkt->flags & PK_SRH ? MRC_IP6_HLEN : 0;
}

/* Offset of the inner IPv6, 0 = plain packet (no outer). */
static inline uint32_t pkt_inner_off(const struct fab_pkt *pkt)
{
	return pkt->flags & PK_INNER ? pkt->nh_off : 0;
}

/* Offset of the BTH, 0 = not an MRC packet. */
static inline uint32_t pkt_bth_off(const struct fab_pkt *pkt)
{
	if (!(pkt->flags & PK_MRC))
		return 0;
	return pkt->nh_off + (pkt->flags & PK_INNER ? MRC_IP6_HLEN : 0) + MRC_UDP_HLEN;
}

/*
 * A port's queue of one class, FIFO: packets linked by their next field in a ring, the
 * last packet's next is the first, so the tail alone (NULL: empty) finds both ends.
 */
struct fab_fifo {
	struct fab_pkt *tail;
};

enum {
	DOWN_LINK = 1, /* link fault */
	DOWN_FLAP = 2,
	DOWN_NIC = 4,
};

struct fab_switch;

/*
 * An output port (one direction of a link): what a packet touches, and its counters:
 * 128 bytes, two cache lines, the first all a packet's path reads, the second its
 * counters. Rate and propagation delay are its tier's (host links, T0-T1 links:
 * fab->link[]); taps, link-down times and the LOSS/DELAY faults' figures live in arrays
 * of the fabric made when first needed (fab->taps, fab->down_at, fab->impair).
 */
struct fab_port {
	struct fab_fifo q[2]; /* 0: control class, 1: data class */
	uint32_t qbytes[2];
	uint64_t busy_until;	    /* serialization of the last packet ends */
	struct fab_switch *sw;	    /* owner switch, NULL for a NIC port */
	struct fab_switch *peer_sw; /* receiving switch, NULL when it is a host */
	uint32_t host;		    /* owner host (NIC port), receiving host (last hop) */
	uint32_t rev;		    /* the opposite direction of the link: its sw is this port's
				     * peer_sw, its host and plane a last hop's (on_arrive) */
	uint16_t plane;
	uint8_t gen;	 /* link-down events so far, mod 256 */
	uint8_t pending; /* a FREE event is scheduled */
	uint8_t lasthop; /* T0 -> host */
	uint8_t nic;
	uint8_t down; /* DOWN_* bits */
	uint8_t taps; /* TAP_* bits: fab->taps[] has a tap for it */
	struct mrc_fab_port_stats st;
};

_Static_assert(sizeof(struct fab_port) == 128 && offsetof(struct fab_port, st) == 64,
	"a port is two cache lines: what forwarding reads, then its counters");

/* A port's LOSS and DELAY fault figures (fab->impair). */
struct fab_impair {
	uint64_t extra_ps;    /* added propagation delay (DELAY fault) */
	uint64_t loss_thresh; /* random loss: draw (53 bits) < thresh */
};

enum {
	TAP_EGRESS = 1,
	TAP_ARRIVE = 2, /* ingress tap: arrivals over the opposite direction (on_arrive's @in) */
};

struct fab_taps {
	mrc_fab_tap_fn egress, arrive;
	void *egress_ctx, *arrive_ctx;
};

/*
 * PFC state of one direction of a link (fab->pfc[port], made when PFC is on; docs/pfc.md):
 * the receiving switch's ingress accounting of what came over it, the sender's pause,
 * the counters, and, for each lossless class of this port's own queue, the ingress link
 * of every packet waiting there, in queue order (a ring parallel to the FIFO: a queued
 * packet's metadata has no room for it).
 */
struct fab_ring {
	uint32_t *v; /* ingress port indices; NO_PORT: made by the switch (ICMPv6) */
	uint32_t cap, head, n;
};

struct fab_pfc {
	uint64_t in_bytes[2];  /* by class: came over this link, waiting at its peer switch */
	uint64_t paused_at[2]; /* by class: when this port's pause began */
	uint8_t xoff;	       /* class bits: the peer paused this link (XOFF sent, no XON) */
	uint8_t paused;	       /* class bits: this port got an XOFF and no XON since */
	struct fab_ring ring[2];
	struct mrc_fab_pfc_stats st;
};

#define NO_PORT UINT32_MAX
#define PFC_FRAME_BYTES 64 /* a MAC Control frame: IEEE 802.1Q cl. 36 (802.1Qbb), 802.3 31D */

/* A tier's links: host<->T0 (0) or T0<->T1 (1). */
struct fab_link {
	uint64_t rate_bps, delay_ps;
	uint64_t ser_ps_per_byte; /* 0: rate does not divide 8e12, divide per packet */
};

struct fab_switch {
	uint32_t port0; /* global index of its port 0 */
	uint16_t nports, plane;
	uint32_t index;
	uint8_t tier;
	uint8_t up;
	struct mrc_srv6_fib fib;	     /* this switch's table: own copy of the plan's */
	struct mrc_srv6_route *routes;	     /* fib.routes, mutable (blackholes) */
	const struct mrc_srv6_fib *plan_fib; /* the plan's table, to restore routes */
	uint64_t seed;			     /* ECMP hash seed (mrc/sim/ecmp.h) */
	uint64_t icmp_t;		     /* ICMPv6 token bucket: last refill (ps) */
	uint32_t icmp_tokens;		     /* tokens left, <= ICMP_BURST */
	struct mrc_fab_switch_stats st;
};

/*
 * RFC 4443 §2.4(f): a node MUST limit the rate of the ICMPv6 error messages it sends. A
 * switch does it with a token bucket of Linux's defaults (net.ipv4.icmp_msgs_per_sec
 * 1000, icmp_msgs_burst 50, which bound ICMPv6 too): 50 tokens, one more every ms of
 * virtual time; an error without a token is not sent (counted, icmp_rate_limited).
 */
#define ICMP_BURST 50u
#define ICMP_EVERY_PS 1000000000ull

/* A block of n packets of one size class; they start 64 bytes in (slots of 8-byte steps). */
struct fab_slab {
	struct fab_slab *next;
	uint32_t n;	/* slots */
	uint32_t stride; /* bytes per slot: (class + 1) * POOL_STEP */
	uint8_t pad[48];
	uint8_t mem[];
};

/* A T0-T1 link as routing sees it (docs/roce-baseline.md "Routing reconvergence"). */
struct fab_rlink {
	uint32_t seq;	      /* state changes of the link (both directions as one) */
	uint32_t cause;	      /* the fault-log index of the last change */
	uint8_t up;	      /* both directions work (its ports, switches up) */
	uint8_t leaving;      /* detected down: leaves the groups at its convergence */
};

struct fab_sched {
	struct fab_sched *next;
	struct mrc_fab_fault f;
	uint64_t next_toggle; /* flaps */
};

/*
 * What each worker of a parallel run has of its own (docs/architecture.md "Parallel
 * simulation"); a serial run has one. Packets go from one worker's pool to another's
 * with the events that carry them: a slot is freed into the pool of the worker that
 * frees it.
 */
struct fab_wk {
	/* packet pool: one free list per size class, slabs of all classes on one chain */
	uint8_t *scratch; /* MRC_PKT_MAX: a gathered packet laid out whole */
	uint32_t scratch_nz, scratch_ic; /* scratch is zero but for [0, nz) and, when ic is
					  * not 0, the 4 ICRC bytes at ic */
	uint8_t *txbuf;	  /* pkt_cap: a host writes the packet it sends here */
	struct fab_pkt **free_pkts; /* [n_cls] */
	struct fab_slab *slabs;
	uint64_t pkts_alloc;
	size_t pool_bytes;
	uint64_t pkt_hops, injected, delivered;
} __attribute__((aligned(64)));

struct mrc_fabric {
	struct mrc_fabric_params p;
	struct {
		unsigned planes, t0, t1, hosts_per_t0;
	} tp; /* from the plan */
	struct mrc_fab_host_ops ops;
	void *ctx;
	struct mrc_sim *sim;
	int k_arrive, k_free, k_fault, k_flap, k_pfc;
	uint32_t hosts, n_switches, n_ports;
	uint32_t base_t0, base_t1; /* first T0 / T1 port */
	struct fab_port *ports;
	struct fab_link link[2];  /* by tier: port_link() */
	struct fab_taps *taps;	  /* [n_ports] once a tap is set, else NULL */
	uint8_t *link_gen;	  /* [n_ports]: each port's gen, for the far end's on_arrive (a
				   * byte a port, written between windows: no line bounces) */
	uint64_t (*down_at)[4];	  /* [n_ports]: times of a port's last 4 link-down events, by
				   * gen; made by the first fault that can take a link down */
	struct fab_impair *impair; /* [n_ports]: made by the first LOSS or DELAY fault */
	/* Routing (struct mrc_fabric_params detect_ps, converge_ps): bit j of row (plane, i)
	 * of rt_usable set = the ECMP groups may use link T0 i - T1 j of that plane (all set
	 * at first); rt_link its control plane's view, by link (rt_link_idx), made with
	 * down_at by the first fault that can take a link down */
	uint64_t *rt_usable;	   /* [planes * t0 * rt_words] */
	uint32_t rt_words;	   /* 64-bit words per row: ceil(t1 / 64) */
	struct fab_rlink *rt_link; /* [planes * t0 * t1] */
	int k_rdetect, k_rremove, k_rreadd;
	struct fab_pfc *pfc;	   /* [n_ports] with PFC on, else NULL */
	uint8_t lossless;	   /* class bits: the classes PFC makes lossless */
	struct fab_switch *sw;
	struct mrc_rng *rng; /* [n_ents]: each entity's own draws (random loss on its ports,
			      * ECN), so they do not depend on how entities interleave */
	uint32_t n_ents;     /* 0 the loop's caller, 1.. the switches (fab->sw order), then
			      * the hosts: mrc_sim entities (docs/architecture.md "Parallel
			      * simulation") */

	/* host address -> plane * hosts + h, open addressing */
	struct mrc_ip6 *addr_key;
	uint32_t *addr_val; /* UINT32_MAX = empty */
	uint32_t addr_mask;

	struct fab_wk *wk;	/* [n_wk]: each worker's (mrc_sim_worker) */
	unsigned n_wk;
	unsigned n_cls;		/* classes up to 32 + pkt_cap bytes */
	bool released; /* mrc_fabric_release_pool: the packets its events name are gone */
	unsigned n_rk, rank; /* mrc_fabric_ranks: ranks (0: none) and this one */
	struct fab_rk_count {
		uint64_t events, pkt_hops, injected, delivered;
	} rk_add; /* the other ranks' (mrc_fabric_results_unpack) */

	struct fab_sched *sched;
	struct mrc_fab_fault_rec *log;
	size_t n_log, cap_log;
};

/* The calling worker's buffers, pool and counters. */
#define WK(fab) (&(fab)->wk[mrc_sim_worker((fab)->sim)])

/* Pool size classes: slots of k * POOL_STEP bytes (the metadata's alignment: a packet
 * costs at most 7 bytes more than it holds; 64-byte steps, a cache line each, made the
 * pool of job-perm1k 8% larger); a slab holds SLAB_BYTES of slots, at least SLAB_MIN. */
#define POOL_STEP 8
#define SLAB_BYTES (32u << 10)
#define SLAB_MIN 8u

void mrc_fabric_defaults(struct mrc_fabric_params *p)
{
	/* every field, so a caller's stack garbage never reaches mrc_sim_new */
	memset(p, 0, sizeof(*p));
	p->simq.queue = MRC_SIMQ_DEFAULT;
	p->host_rate_bps = 100000000000ull;
	p->fabric_rate_bps = 100000000000ull;
	p->host_delay_ps = 500000;
	p->fabric_delay_ps = 500000;
	p->switch_delay_ps = 300000;
	p->buffer_bytes = 1 << 20;
	p->ctrl_buffer_bytes = 256 << 10;
	p->ecn_kmin_bytes = p->ecn_kmax_bytes = 200 << 10;
	p->ecn_pmax = 0.01; /* DCQCN, Zhu et al. SIGCOMM 2015: Pmax 1% */
	p->ecn_lasthop = false;
	p->pfc.xoff_bytes = 60000; /* htsim main_roce.cpp: 15 and 12 packets of 4000 B */
	p->pfc.xon_bytes = 48000;
	p->trim = true;
	p->trim_bytes = 256;
	p->dscp_trimmed = 12;
	p->dscp_trimmed_lasthop = 13;
	p->pkt_cap = 0;
	p->seed = 1;
	p->ecmp_fields = MRC_ECMP_5TUPLE;
	p->ecmp_seed = 1;
	p->ecmp_per_switch = true;
	p->detect_ps = 900000000000ull;	 /* BFD 300 ms x 3 (RFC 5880 §6.8.4) */
	p->converge_ps = 100000000000ull; /* 100 ms */
}

/* ---- small helpers ----------------------------------------------------------------- */

static inline bool sw_up(const struct fab_switch *s)
{
	return !s || s->up;
}

static inline bool port_up(const struct fab_port *o)
{
	return !o->down && sw_up(o->sw) && sw_up(o->peer_sw);
}

/* The link tier of @o: host links (NIC ports and last hops) or T0-T1 links. */
static inline const struct fab_link *port_link(const struct mrc_fabric *fab,
	const struct fab_port *o)
{
	return &fab->link[!(o->nic | o->lasthop)];
}

/* Size class of a packet holding @bytes in data[] (bytes <= pkt_cap). */
/* Entities (struct mrc_fabric n_ents): a switch, a host, and the ones a port belongs to
 * (its switch or NIC's host) and delivers to. */
static inline uint32_t sw_ent(const struct mrc_fabric *fab, const struct fab_switch *s)
{
	return (uint32_t)(s - fab->sw) + 1;
}

static inline uint32_t host_ent(const struct mrc_fabric *fab, uint32_t host)
{
	return fab->n_switches + 1 + host;
}

static inline uint32_t owner_ent(const struct mrc_fabric *fab, const struct fab_port *o)
{
	return o->sw ? sw_ent(fab, o->sw) : host_ent(fab, o->host);
}

static inline uint32_t peer_ent(const struct mrc_fabric *fab, const struct fab_port *o)
{
	return o->peer_sw ? sw_ent(fab, o->peer_sw) : host_ent(fab, o->host);
}

static inline unsigned pkt_cls(size_t bytes)
{
	return (unsigned)((sizeof(struct fab_pkt) + bytes - 1) / POOL_STEP);
}

/* Bytes a packet of class @cls holds in data[]. */
static inline size_t cls_cap(unsigned cls)
{
	return (cls + 1) * (size_t)POOL_STEP - sizeof(struct fab_pkt);
}

/* A free packet with room for @bytes (<= pkt_cap) in data[], or NULL (out of memory). */
static struct fab_pkt *pkt_alloc(struct mrc_fabric *fab, size_t bytes)
{
	unsigned cls = pkt_cls(bytes);
	struct fab_pkt *pkt;

	if (cls >= fab->n_cls)
		return NULL;
	pkt = WK(fab)->free_pkts[cls];
	if (!pkt) {
		uint32_t stride = (cls + 1) * POOL_STEP;
		uint32_t n = SLAB_BYTES / stride > SLAB_MIN ? SLAB_BYTES / stride : SLAB_MIN;
		/* aligned_alloc wants a multiple of the alignment; slots are 8-byte steps */
		struct fab_slab *s =
			aligned_alloc(64, (sizeof(*s) + (size_t)n * stride + 63) & ~(size_t)63);

		if (!s)
			return NULL;
		s->next = WK(fab)->slabs;
		s->n = n;
		s->stride = stride;
		WK(fab)->slabs = s;
		for (uint32_t i = n; i-- > 0;) {
			struct fab_pkt *q = (struct fab_pkt *)(s->mem + (size_t)i * stride);

			q->cls = (uint16_t)cls;
			q->next = pkt;
			pkt = q;
		}
		WK(fab)->pkts_alloc += n;
		WK(fab)->pool_bytes += (size_t)n * stride;
	}
	WK(fab)->free_pkts[cls] = pkt->next;
	return pkt;
}

static inline void pkt_free(struct mrc_fabric *fab, struct fab_pkt *pkt)
{
	pkt->next = WK(fab)->free_pkts[pkt->cls];
	WK(fab)->free_pkts[pkt->cls] = pkt;
}

static inline void fifo_push(struct fab_fifo *f, struct fab_pkt *pkt)
{
	if (f->tail) {
		pkt->next = f->tail->next;
		f->tail->next = pkt;
	} else {
		pkt->next = pkt;
	}
	f->tail = pkt;
}

static inline struct fab_pkt *fifo_pop(struct fab_fifo *f)
{
	struct fab_pkt *pkt;

	if (!f->tail)
		return NULL;
	pkt = f->tail->next;
	if (pkt == f->tail)
		f->tail = NULL;
	else
		f->tail->next = pkt->next;
	return pkt;
}

/* IPv6 traffic class (RFC 8200 §3): 4 bits in byte 0, 4 bits in byte 1. */
static inline uint8_t ip6_tc(const uint8_t *h)
{
	return (uint8_t)((h[0] & 0x0F) << 4 | h[1] >> 4);
}

static inline void ip6_set_tc(uint8_t *h, uint8_t tc)
{
	h[0] = (uint8_t)((h[0] & 0xF0) | tc >> 4);
	h[1] = (uint8_t)((h[1] & 0x0F) | (tc & 0x0F) << 4);
}

static uint64_t addr_hash(const uint8_t *a)
{
	uint64_t x = get_be64(a) * 0x9E3779B97F4A7C15ull ^ get_be64(a + 8);

	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ull;
	return x ^ (x >> 32);
}

/* Host port (plane * hosts + h) owning address @a, or UINT32_MAX. */
static uint32_t addr_lookup(const struct mrc_fabric *fab, const uint8_t *a)
{
	for (uint32_t i = (uint32_t)addr_hash(a) & fab->addr_mask;; i = (i + 1) & fab->addr_mask) {
		if (fab->addr_val[i] == UINT32_MAX)
			return UINT32_MAX;
		if (memcmp(fab->addr_key[i].b, a, 16) == 0)
			return fab->addr_val[i];
	}
}

static uint32_t nic_port(const struct mrc_fabric *fab, uint32_t host, unsigned plane)
{
	return host * fab->tp.planes + plane;
}

static uint32_t t0_port(const struct mrc_fabric *fab, unsigned plane, uint32_t i, unsigned k)
{
	return fab->base_t0 + (plane * fab->tp.t0 + i) * (fab->tp.hosts_per_t0 + fab->tp.t1) + k;
}

static uint32_t t1_port(const struct mrc_fabric *fab, unsigned plane, uint32_t j, unsigned i)
{
	return fab->base_t1 + (plane * fab->tp.t1 + j) * fab->tp.t0 + i;
}

static struct fab_switch *t0_sw(struct mrc_fabric *fab, unsigned plane, uint32_t i)
{
	return &fab->sw[plane * (fab->tp.t0 + fab->tp.t1) + i];
}

static struct fab_switch *t1_sw(struct mrc_fabric *fab, unsigned plane, uint32_t j)
{
	return &fab->sw[plane * (fab->tp.t0 + fab->tp.t1) + fab->tp.t0 + j];
}

/* ---- parsing at injection ---------------------------------------------------------- */

/*
 * Finds the SRH (parsed by mrc/srv6, RFC 8754 §4.3.1), inner IPv6 and BTH of a packet
 * (docs/wire-format.md "Packet stack"), with a length check before each field, and classifies it:
 * control (ACK, endpoint, SACK, NACK, PROBE opcodes, RoCEv2's CNP) or data. Anything else
 * is data.
 */
static void pkt_parse(struct fab_pkt *pkt)
{
	const uint8_t *d = pkt->data;
	uint32_t len = pkt->hlen, off = MRC_IP6_HLEN, bth;
	uint8_t nh;

	pkt->nh_off = 0;
	pkt->flags = 0;
	if (len < MRC_IP6_HLEN || d[0] >> 4 != 6) {
		pkt->flags = PK_BAD;
		return;
	}
	nh = d[6];
	if (nh == MRC_NH_ROUTING) {
		struct mrc_srh srh;

		if (mrc_wire_srh_decode(d + off, len - off, &srh) < 0)
			return;
		pkt->flags |= PK_SRH;
		nh = srh.next_header;
		off += (uint32_t)srh.len;
	}
	pkt->nh_off = (uint16_t)off; /* <= len: the SRH decoded within it */
	if (nh == 41) {
		if (off + MRC_IP6_HLEN > len || d[off] >> 4 != 6)
			return;
		pkt->flags |= PK_INNER;
		nh = d[off + 6];
		off += MRC_IP6_HLEN;
	}
	if (nh != 17 || off + MRC_UDP_HLEN + MRC_BTH_LEN > len)
		return;
	if (get_be16(d + off + 2) != MRC_UDP_PORT)
		return;
	pkt->flags |= PK_MRC;
	bth = off + MRC_UDP_HLEN;
	switch (d[bth]) {
	case MRC_OP_ACK:
	case MRC_OP_EP_REQUEST:
	case MRC_OP_EP_RESPONSE:
	case MRC_OP_SACK:
	case MRC_OP_NACK:
	case MRC_OP_PROBE:
	case MRC_OP_CNP: /* ConnectX sends CNPs at high priority (cnp_802p_prio 6) */
		pkt->flags |= PK_CTRL;
		break;
	default:
		break;
	}
}

/* ---- output ports ------------------------------------------------------------------ */

/*
 * The packet's bytes as they are on the link: data itself, or a gathered packet laid
 * out whole in the fabric's scratch buffer (valid until the next call). The scratch
 * buffer is kept zero past what the last layout wrote, so a payload of zeros (NULL) and
 * the pad cost no writes: only the bytes an earlier, longer layout left are cleared.
 */
static const uint8_t *pkt_bytes(struct mrc_fabric *fab, const struct fab_pkt *pkt)
{
	uint8_t *o = WK(fab)->scratch;
	uint32_t z = pkt->hlen; /* zeros from here to the end of the packet */

	if (pkt->hlen == pkt->len)
		return pkt->data;
	memcpy(o, pkt->data, pkt->hlen);
	if (pkt->pay) {
		/* the sender's buffer may hold no bytes: generated (a copy from another rank
		 * is bytes) */
		if (fab->ops.payload && !(pkt->flags & PK_PAYIN))
			fab->ops.payload(fab->ctx, pkt->pay, pkt->pay_len, o + pkt->hlen);
		else
			memcpy(o + pkt->hlen, pkt->pay, pkt->pay_len);
		z += pkt->pay_len;
	}
	if (WK(fab)->scratch_nz > z)
		memset(o + z, 0, WK(fab)->scratch_nz - z);
	if (WK(fab)->scratch_ic && WK(fab)->scratch_ic + MRC_ICRC_LEN > z) { /* its part past z */
		uint32_t from = WK(fab)->scratch_ic > z ? WK(fab)->scratch_ic : z;

		memset(o + from, 0, WK(fab)->scratch_ic + MRC_ICRC_LEN - from);
	}
	WK(fab)->scratch_nz = z;
	WK(fab)->scratch_ic = 0;
	if (pkt->flags & PK_ICRC) { /* little-endian on the wire (mrc_wire_icrc) */
		memcpy(o + pkt->len - MRC_ICRC_LEN, (uint8_t[4]){(uint8_t)pkt->icrc,
			(uint8_t)(pkt->icrc >> 8), (uint8_t)(pkt->icrc >> 16),
			(uint8_t)(pkt->icrc >> 24)}, MRC_ICRC_LEN);
		WK(fab)->scratch_ic = pkt->len - MRC_ICRC_LEN;
	}
	return o;
}

/*
 * Fills the UDP checksum and ICRC a host left to its NIC (csum_offload) before anything
 * outside the simulation sees the bytes or a trim cuts them: what the sender would have
 * computed (mrc_wire_csum_finish). A zero UDP checksum is never sent over IPv6, so zero
 * means "not yet"; a trimmed packet was finished before the cut. A gathered packet keeps
 * the checksum in its header bytes and the ICRC beside them. Returns the packet's bytes
 * as on the link (pkt_bytes), checksums filled: laid out once.
 */
static const uint8_t *finish_csum(struct mrc_fabric *fab, struct fab_pkt *pkt)
{
	struct mrc_wire_cfg cfg;
	uint32_t bth = pkt_bth_off(pkt);
	uint8_t *sum = pkt->data + bth - MRC_UDP_HLEN + 6;
	const uint8_t *b;

	if (!fab->p.csum_offload || !bth || get_be16(sum) != 0)
		return pkt_bytes(fab, pkt);
	mrc_wire_cfg_default(&cfg);
	cfg.icrc_outer = fab->p.icrc_outer;
	if (pkt->hlen == pkt->len) {
		mrc_wire_csum_finish(&cfg, pkt->data, pkt->len);
		return pkt->data;
	}
	b = pkt_bytes(fab, pkt);
	if (mrc_wire_csum_finish(&cfg, WK(fab)->scratch, pkt->len))
		return b;
	WK(fab)->scratch_ic = pkt->len - MRC_ICRC_LEN; /* written there (the UDP sum before z) */
	memcpy(sum, b + (sum - pkt->data), 2);
	pkt->icrc = (uint32_t)b[pkt->len - 4] | (uint32_t)b[pkt->len - 3] << 8 |
		    (uint32_t)b[pkt->len - 2] << 16 | (uint32_t)b[pkt->len - 1] << 24;
	pkt->flags |= PK_ICRC;
	return b; /* the scratch layout, now with both checksums */
}

/* Hands a tap the packet as it is on the link, checksums filled. */
static void tap_call(struct mrc_fabric *fab, mrc_fab_tap_fn fn, void *ctx, struct fab_pkt *pkt,
	uint64_t t)
{
	fn(ctx, finish_csum(fab, pkt), pkt->len, t);
}

static void launch(struct mrc_fabric *fab, struct fab_port *o, struct fab_pkt *pkt, uint64_t now)
{
	const struct fab_link *l = port_link(fab, o);
	uint64_t ser = l->ser_ps_per_byte ? pkt->len * l->ser_ps_per_byte
					  : mrc_ser_ps(pkt->len, l->rate_bps);
	uint32_t idx = (uint32_t)(o - fab->ports);
	uint64_t extra_ps = 0;

	o->busy_until = now + ser;
	o->st.tx_pkts++;
	o->st.tx_bytes += pkt->len;
	if (o->taps & TAP_EGRESS)
		tap_call(fab, fab->taps[idx].egress, fab->taps[idx].egress_ctx, pkt, now);
	if (fab->impair) {
		const struct fab_impair *im = &fab->impair[idx];

		if (im->loss_thresh &&
			(mrc_rng_next(&fab->rng[owner_ent(fab, o)]) >> 11) < im->loss_thresh)
			pkt->flags |= PK_LOST;
		extra_ps = im->extra_ps;
	}
	pkt->port = idx;
	pkt->gen = o->gen;
	/* its last bit reaches the far end at now + ser + delay (on_arrive works it back) */
	mrc_sim_at_ent(fab->sim,
		now + ser + l->delay_ps + extra_ps + (o->peer_sw ? fab->p.switch_delay_ps : 0),
		peer_ent(fab, o), (unsigned)fab->k_arrive, pkt, o->rev);
	if (o->nic || o->q[0].tail || o->q[1].tail) {
		o->pending = 1;
		mrc_sim_at_ent(fab->sim, o->busy_until, owner_ent(fab, o), (unsigned)fab->k_free,
			o, 0);
	}
}

static void pfc_left(struct mrc_fabric *fab, struct fab_port *o, unsigned c, uint32_t len,
	uint64_t now);

/* Sends the next packet of @o: control first, then data, each unless paused by PFC. */
static void start_tx(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	unsigned paused = fab->pfc ? fab->pfc[o - fab->ports].paused : 0;
	struct fab_pkt *pkt = NULL;
	unsigned c = 0;
	uint32_t len;

	for (; c < 2; c++)
		if (!(paused >> c & 1) && (pkt = fifo_pop(&o->q[c])) != NULL)
			break;
	if (!pkt)
		return;
	len = pkt->len;
	o->qbytes[c] -= len;
	launch(fab, o, pkt, now);
	if (fab->lossless >> c & 1) /* after launch: a RESUME may go out on this very port */
		pfc_left(fab, o, c, len, now);
}

/*
 * Moves @pkt into a slot of the class for @bytes in data[] (its first @keep data bytes
 * and its metadata go along) and frees the old slot. Returns the packet, moved or (same
 * class, or no memory for a bigger slot) not.
 */
static struct fab_pkt *pkt_move(struct mrc_fabric *fab, struct fab_pkt *pkt, size_t bytes,
	size_t keep)
{
	struct fab_pkt *q;

	if (pkt_cls(bytes) == pkt->cls)
		return pkt;
	q = pkt_alloc(fab, bytes);
	if (!q)
		return pkt;
	memcpy(&q->pay, &pkt->pay, offsetof(struct fab_pkt, cls) - offsetof(struct fab_pkt, pay));
	_Static_assert(offsetof(struct fab_pkt, cls) + sizeof(q->cls) == sizeof(*q),
		"cls is the last field of a packet's metadata");
	memcpy(q->data, pkt->data, keep);
	if (q->flags & PK_PAYIN) /* its payload copy: in the new slot if @keep took it */
		q->pay = keep >= (size_t)q->hlen + q->pay_len ? q->data + q->hlen : NULL;
	pkt_free(fab, pkt);
	return q;
}

/* Cuts a data packet to trim_bytes with mrc/wire's switch trim (C11): headers kept, the
 * first IPv6 header's payload length follows the cut, UDP length and inner headers stay
 * as sent, DSCP becomes the trimmed class (the last-hop one on a T0->host port). The
 * trimmed packet takes a slot of its size: a gathered one a bigger slot (the cut
 * packet's bytes all in data), a whole one a smaller; *@pp follows it. Returns false when
 * it could not be cut (no room for the bigger slot, or not cuttable): the caller drops it.
 */
static bool trim_pkt(struct mrc_fabric *fab, struct fab_pkt **pp, bool lasthop)
{
	uint8_t dscp = lasthop ? fab->p.dscp_trimmed_lasthop : fab->p.dscp_trimmed;
	struct fab_pkt *pkt = *pp;
	int n;

	if (pkt->hlen != pkt->len) { /* gathered: what is left fits in data (trim <= cap) */
		finish_csum(fab, pkt); /* lays it out in the scratch buffer */
		n = mrc_wire_trim(WK(fab)->scratch, pkt->len, fab->p.trim_bytes, dscp);
		if (n <= 0 || (size_t)n > fab->p.pkt_cap)
			return false;
		*pp = pkt = pkt_move(fab, pkt, (size_t)n, 0);
		if ((size_t)n > cls_cap(pkt->cls))
			return false;
		memcpy(pkt->data, WK(fab)->scratch, (size_t)n);
		pkt->len = pkt->hlen = (uint16_t)n;
		pkt->pay = NULL;
		pkt->pay_len = 0;
		pkt->flags &= (uint8_t)~(PK_ICRC | PK_PAYIN);
	} else {
		finish_csum(fab, pkt);
		n = mrc_wire_trim(pkt->data, pkt->len, fab->p.trim_bytes, dscp);
		if (n <= 0)
			return false;
		pkt->len = pkt->hlen = (uint16_t)n;
		*pp = pkt = pkt_move(fab, pkt, (size_t)n, (size_t)n);
	}
	pkt->flags |= PK_CTRL;
	return true;
}

double mrc_fabric_ecn_prob(const struct mrc_fabric_params *p, uint32_t qbytes)
{
	if (!p->ecn_kmax_bytes || qbytes <= p->ecn_kmin_bytes)
		return 0;
	if (qbytes > p->ecn_kmax_bytes)
		return 1;
	return p->ecn_pmax * (double)(qbytes - p->ecn_kmin_bytes) /
	       (double)(p->ecn_kmax_bytes - p->ecn_kmin_bytes);
}

/*
 * Marks CE (RFC 3168) on an ECN-capable packet, outer and inner, that finds @q data bytes
 * queued: with mrc_fabric_ecn_prob's probability, drawn from the fabric's generator only
 * between kmin and kmax (a step draws nothing). Returns true if marked.
 */
static bool mark_ce(struct mrc_fabric *fab, struct mrc_rng *rng, struct fab_pkt *pkt, uint32_t q)
{
	uint8_t *d = pkt->data, tc = ip6_tc(d);
	double pr;

	if ((tc & 3) == 0 || (tc & 3) == 3)
		return false;
	pr = mrc_fabric_ecn_prob(&fab->p, q);
	if (pr <= 0 || (pr < 1 && (double)(mrc_rng_next(rng) >> 11) >= pr * 0x1p53))
		return false;
	ip6_set_tc(d, tc | 3);
	if (pkt->flags & PK_INNER) {
		uint8_t *in = d + pkt_inner_off(pkt);

		if (ip6_tc(in) & 3)
			ip6_set_tc(in, ip6_tc(in) | 3);
	}
	return true;
}

static bool pfc_admit(struct mrc_fabric *fab, struct fab_port *o, unsigned c, uint32_t in,
	uint32_t len, uint64_t now);

/*
 * Queues @pkt, which came in over link @in (a port index; NO_PORT: made by this switch),
 * at output port @o, or drops, trims or marks it (docs/architecture.md "The simulated
 * fabric"); a class PFC makes lossless is admitted by its ingress instead (pfc_admit).
 */
static void enqueue(struct mrc_fabric *fab, struct fab_port *o, struct fab_pkt *pkt, uint32_t in,
	uint64_t now)
{
	const struct mrc_fabric_params *p = &fab->p;
	uint32_t q;

	if (!port_up(o)) {
		o->st.down_drops++;
		pkt_free(fab, pkt);
		return;
	}
	q = pkt->flags & PK_CTRL ? 0 : 1;
	if (fab->lossless >> q & 1) {
		if (!pfc_admit(fab, o, q, in, pkt->len, now)) {
			pkt_free(fab, pkt);
			return;
		}
	} else if (q == 1 && o->qbytes[1] + pkt->len > p->buffer_bytes) {
		uint32_t bth = pkt_bth_off(pkt);

		if (!p->trim || !bth || pkt->len <= p->trim_bytes ||
			bth + MRC_BTH_LEN > p->trim_bytes) {
			o->st.drops++;
			pkt_free(fab, pkt);
			return;
		}
		if (!trim_pkt(fab, &pkt, o->lasthop)) {
			o->st.drops++;
			pkt_free(fab, pkt);
			return;
		}
		o->st.trims++;
		q = 0; /* trimmed: control class */
	}
	if (q == 0 && !(fab->lossless & 1) && o->qbytes[0] + pkt->len > p->ctrl_buffer_bytes) {
		o->st.drops++;
		pkt_free(fab, pkt);
		return;
	}
	if (q == 1 && (!o->lasthop || p->ecn_lasthop) &&
		mark_ce(fab, &fab->rng[owner_ent(fab, o)], pkt, o->qbytes[1]))
		o->st.ecn_marks++;
	fifo_push(&o->q[q], pkt);
	o->qbytes[q] += pkt->len;
	if (o->qbytes[0] + o->qbytes[1] > o->st.max_queue_bytes)
		o->st.max_queue_bytes = o->qbytes[0] + o->qbytes[1];
	if (o->pending)
		return;
	if (now >= o->busy_until) {
		start_tx(fab, o, now);
	} else {
		o->pending = 1;
		mrc_sim_at_ent(fab->sim, o->busy_until, owner_ent(fab, o), (unsigned)fab->k_free,
			o, 0);
	}
}

/*
 * The NIC port asks its host for the next packet and sends it. Paused by PFC for data, it
 * asks for a control packet only (ops.tx_ctrl); paused for control (control lossless), for
 * nothing: the host serves its control queue first, so it cannot be asked for data alone.
 */
static void nic_pull(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	unsigned paused = fab->pfc ? fab->pfc[o - fab->ports].paused : 0;
	struct fab_pkt *pkt;
	size_t n;

	if (!port_up(o) || !fab->ops.tx || paused >> MRC_FAB_CTRL & 1)
		return;
	struct mrc_wire_gather g = {0};

	/* the host writes into txbuf; the pool keeps the bytes in a slot of their size */
	if (!paused)
		n = fab->ops.tx(fab->ctx, o->host, o->plane, now, WK(fab)->txbuf, fab->p.pkt_cap, &g);
	else if (fab->ops.tx_ctrl)
		n = fab->ops.tx_ctrl(fab->ctx, o->host, o->plane, now, WK(fab)->txbuf, fab->p.pkt_cap);
	else
		return;
	if (!g.hlen)
		g.hlen = n;
	if (n == 0 || n > MRC_PKT_MAX || g.hlen > fab->p.pkt_cap ||
		g.hlen + g.payload_len > n)
		return;
	pkt = pkt_alloc(fab, g.hlen);
	if (!pkt) { /* the host sent it: lost at its port, as a full queue would */
		o->st.drops++;
		return;
	}
	memcpy(pkt->data, WK(fab)->txbuf, g.hlen);
	pkt->len = (uint16_t)n;
	pkt->hlen = (uint16_t)g.hlen;
	pkt->pay = g.payload;
	pkt->pay_len = (uint16_t)g.payload_len;
	pkt_parse(pkt);
	WK(fab)->injected++;
	launch(fab, o, pkt, now);
}

static void on_free(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_port *o = obj;

	(void)arg;
	if (now < o->busy_until) { /* a PFC frame took the link meanwhile (pfc_send) */
		mrc_sim_at_ent(fab->sim, o->busy_until, owner_ent(fab, o), (unsigned)fab->k_free,
			o, 0);
		return;
	}
	o->pending = 0;
	if (o->nic)
		nic_pull(fab, o, now);
	else
		start_tx(fab, o, now);
}

/* Port @o may have something to send (new work, a pause ended, its link came up): it
 * pulls from its host or dequeues once its link is free. */
static void port_wake(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	if (o->pending || !port_up(o) || (!o->nic && !o->q[0].tail && !o->q[1].tail))
		return;
	o->pending = 1;
	mrc_sim_at_ent(fab->sim, o->busy_until > now ? o->busy_until : now, owner_ent(fab, o),
		(unsigned)fab->k_free, o, 0);
}

void mrc_fabric_kick(struct mrc_fabric *fab, uint32_t host, unsigned plane)
{
	if (host >= fab->hosts || plane >= fab->tp.planes)
		return;
	port_wake(fab, &fab->ports[nic_port(fab, host, plane)], mrc_sim_now(fab->sim));
}

/* ---- PFC (IEEE 802.1Qbb; docs/pfc.md) ------------------------------------------------- */

/* Appends @v to ring @r (grown by doubling). false: out of memory. */
static bool ring_push(struct fab_ring *r, uint32_t v)
{
	if (r->n == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 16;
		uint32_t *nv = malloc(cap * sizeof(*nv));

		if (!nv)
			return false;
		for (uint32_t i = 0; i < r->n; i++)
			nv[i] = r->v[(r->head + i) % r->cap];
		free(r->v);
		r->v = nv;
		r->cap = cap;
		r->head = 0;
	}
	r->v[(r->head + r->n++) % r->cap] = v;
	return true;
}

static uint32_t ring_pop(struct fab_ring *r)
{
	uint32_t v = r->v[r->head];

	r->head = (r->head + 1) % r->cap;
	r->n--;
	return v;
}

/*
 * The switch at the far end of link @in sends its near end a PFC frame for class @c:
 * XOFF (pause) or XON (resume). The frame takes the reverse link after the packet being
 * serialized there, PFC_FRAME_BYTES at its rate, then its propagation delay (and a DELAY
 * fault's); it is lost if that link goes down meanwhile (on_pfc). An XOFF that cannot
 * leave (reverse link down) is not remembered: the next arrival tries again.
 */
static void pfc_send(struct mrc_fabric *fab, uint32_t in, unsigned c, bool xoff, uint64_t now)
{
	struct fab_pfc *f = &fab->pfc[in];
	uint32_t ri = fab->ports[in].rev;
	struct fab_port *r = &fab->ports[ri];
	const struct fab_link *l = port_link(fab, r);
	uint64_t t;

	f->xoff = (uint8_t)(xoff ? f->xoff | 1u << c : f->xoff & ~(1u << c));
	if (!port_up(r)) {
		f->xoff &= (uint8_t)~(1u << c);
		return;
	}
	t = (r->busy_until > now ? r->busy_until : now) +
	    (l->ser_ps_per_byte ? PFC_FRAME_BYTES * l->ser_ps_per_byte
				: mrc_ser_ps(PFC_FRAME_BYTES, l->rate_bps));
	r->busy_until = t; /* its next packet starts after the frame (on_free) */
	if (xoff)
		fab->pfc[ri].st.pause_tx++;
	else
		fab->pfc[ri].st.resume_tx++;
	t += l->delay_ps + (fab->impair ? fab->impair[ri].extra_ps : 0);
	mrc_sim_at_ent(fab->sim, t, owner_ent(fab, &fab->ports[in]), (unsigned)fab->k_pfc,
		&fab->ports[in], c | (uint64_t)xoff << 1 | (uint64_t)r->gen << 8);
}

/*
 * A packet of lossless class @c, @len bytes, that came in over link @in enters output
 * port @o: its ingress takes it unless that would pass xoff + headroom (dropped, counted
 * as the link's headroom_drops: returns false), and pauses its link once past xoff. The
 * ingress link is remembered in @o's ring for pfc_left.
 */
static bool pfc_admit(struct mrc_fabric *fab, struct fab_port *o, unsigned c, uint32_t in,
	uint32_t len, uint64_t now)
{
	const struct mrc_fab_pfc_params *pp = &fab->p.pfc;
	struct fab_pfc *f = in == NO_PORT ? NULL : &fab->pfc[in];

	if (f && f->in_bytes[c] + len > (uint64_t)pp->xoff_bytes + pp->headroom_bytes) {
		f->st.headroom_drops++;
		return false;
	}
	if (!ring_push(&fab->pfc[o - fab->ports].ring[c], in)) {
		o->st.drops++; /* out of memory: dropped as a full queue would */
		return false;
	}
	if (!f)
		return true;
	f->in_bytes[c] += len;
	if (f->in_bytes[c] > f->st.max_ingress_bytes)
		f->st.max_ingress_bytes = f->in_bytes[c];
	if (f->in_bytes[c] > pp->xoff_bytes && !(f->xoff >> c & 1))
		pfc_send(fab, in, c, true, now);
	return true;
}

/* A packet of lossless class @c, @len bytes, left @o's queue (sent or flushed): its
 * ingress gives the bytes back and resumes its link once at or below xon. */
static void pfc_left(struct mrc_fabric *fab, struct fab_port *o, unsigned c, uint32_t len,
	uint64_t now)
{
	uint32_t in = ring_pop(&fab->pfc[o - fab->ports].ring[c]);
	struct fab_pfc *f;

	if (in == NO_PORT)
		return;
	f = &fab->pfc[in];
	f->in_bytes[c] -= len;
	if (f->xoff >> c & 1 && f->in_bytes[c] <= fab->p.pfc.xon_bytes)
		pfc_send(fab, in, c, false, now);
}

/* Ends port @i's pause of the classes @bits at @now, counting the time paused. */
static void pfc_unpause(struct mrc_fabric *fab, uint32_t i, unsigned bits, uint64_t now)
{
	struct fab_pfc *f = &fab->pfc[i];

	for (unsigned c = 0; c < 2; c++) {
		if (!(bits >> c & 1) || !(f->paused >> c & 1))
			continue;
		f->st.paused_ps[c] += now - f->paused_at[c];
		f->paused &= (uint8_t)~(1u << c);
	}
}

/* A PFC frame (pfc_send) reaches port @obj: @arg is the class, bit 1 XOFF, bits 8.. the
 * reverse link's down count when it left. */
static void on_pfc(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_port *o = obj;
	uint32_t i = (uint32_t)(o - fab->ports);
	struct fab_pfc *f = &fab->pfc[i];
	unsigned c = arg & 1;

	/* lost with its link, or for a port that went down since (which forgot its pause) */
	if (fab->ports[o->rev].gen != (uint8_t)(arg >> 8) || !port_up(o))
		return;
	if (arg >> 1 & 1) {
		f->st.pause_rx++;
		if (!(f->paused >> c & 1)) {
			f->paused |= (uint8_t)(1u << c);
			f->paused_at[c] = now;
		}
		return;
	}
	f->st.resume_rx++;
	pfc_unpause(fab, i, 1u << c, now);
	port_wake(fab, o, now);
}

/*
 * A direction of link @i failed: both directions forget their PFC state (what the pause
 * timers of real PFC frames would let lapse): @i's and its reverse's pauses end, and
 * their ingresses count as not paused, so the next arrival past xoff pauses again.
 */
static void pfc_forget(struct mrc_fabric *fab, uint32_t i, uint64_t now)
{
	uint32_t two[2] = {i, fab->ports[i].rev};

	for (int k = 0; k < 2; k++) {
		pfc_unpause(fab, two[k], 3, now);
		fab->pfc[two[k]].xoff = 0;
		port_wake(fab, &fab->ports[two[k]], now);
	}
}

/* ---- forwarding -------------------------------------------------------------------- */

/* Routing's row of T0 @i of @plane: bit j set = its link to T1 j is in the groups. */
static inline const uint64_t *rt_row(const struct mrc_fabric *fab, uint32_t plane, uint32_t i)
{
	return fab->rt_usable + ((size_t)plane * fab->tp.t0 + i) * fab->rt_words;
}

/* Output port (local number) towards host port @hp (plane * hosts + h), or -1 (no route:
 * not this plane's, or no T1 left in the ECMP group). */
static int port_to_host(const struct mrc_fabric *fab, const struct fab_switch *s,
	const struct fab_pkt *pkt, uint32_t hp, bool ecmp)
{
	uint32_t h = hp % fab->hosts, plane = hp / fab->hosts, rack = h / fab->tp.hosts_per_t0;
	int j;

	if (plane != s->plane)
		return -1;
	if (s->tier == MRC_FAB_T1)
		return (int)rack;
	if (rack == s->index)
		return (int)(h % fab->tp.hosts_per_t0);
	if (!ecmp)
		return -1;
	/* ECMP: the hash of the fields the switch reads, with its seed, onto the group for
	 * that rack — the T1s both T0s still reach as routing sees it (rt_usable) */
	j = mrc_ecmp_pick(mrc_ecmp_hash(pkt->data, pkt->hlen, fab->p.ecmp_fields, s->seed),
		rt_row(fab, plane, s->index), rt_row(fab, plane, rack), fab->rt_words);
	return j < 0 ? -1 : (int)(fab->tp.hosts_per_t0 + (uint32_t)j);
}

/* Output port of switch @s for a plain packet (no uSID of its block in the DA): the host
 * route to the host port its DA names, or ECMP over the up ports at a T0; -1: none. */
static int plain_route(const struct mrc_fabric *fab, const struct fab_switch *s,
	const struct fab_pkt *pkt)
{
	uint32_t hp = addr_lookup(fab, pkt->data + 24);

	return hp == UINT32_MAX ? -1 : port_to_host(fab, s, pkt, hp, true);
}

/* Takes a token of @s's ICMPv6 rate limit (ICMP_BURST, ICMP_EVERY_PS) at @now. */
static bool icmp_token(struct fab_switch *s, uint64_t now)
{
	if (s->icmp_tokens < ICMP_BURST) {
		uint64_t add = (now - s->icmp_t) / ICMP_EVERY_PS;

		if (add >= ICMP_BURST - s->icmp_tokens) {
			s->icmp_tokens = ICMP_BURST;
		} else {
			s->icmp_tokens += (uint32_t)add;
			s->icmp_t += add * ICMP_EVERY_PS;
		}
	}
	if (!s->icmp_tokens)
		return false;
	if (s->icmp_tokens == ICMP_BURST) /* refills count from the first token taken */
		s->icmp_t = now;
	s->icmp_tokens--;
	return true;
}

/*
 * Switch @s discards @pkt, whose hop limit ran out (counted), and sends its source an
 * ICMPv6 Time Exceeded, code 0 (RFC 4443 §3.3; RFC 9800 §4.1.1 S03, RFC 8986 §4.1 S06):
 * from the switch's own address, its uN SID block:own:: under its plane's block, quoting
 * the packet as it arrived (checksums filled, as on the link), built by mrc/wire
 * (mrc_wire_icmp6_time_exceeded). It leaves in the control class like any plain packet:
 * host route or ECMP (plain_route), taps and counters on its way. Not sent: without a
 * rate-limit token (icmp_token), about an ICMPv6 error or from a source it may not
 * answer (RFC 4443 §2.4(e)), or without a route back.
 */
static void hop_limit_drop(struct mrc_fabric *fab, struct fab_switch *s, struct fab_pkt *pkt,
	uint64_t now)
{
	uint8_t buf[MRC_IP6_MIN_MTU];
	struct mrc_ip6 self;
	struct fab_pkt *ic;
	int n, out;

	s->st.hop_limit++;
	if (!icmp_token(s, now)) {
		s->st.icmp_rate_limited++;
		return;
	}
	mrc_srv6_container(s->fib.block, &s->fib.own, 1, &self);
	n = mrc_wire_icmp6_time_exceeded(&self, finish_csum(fab, pkt), pkt->len, 0, buf,
		sizeof(buf));
	if (n < 0)
		return;
	ic = pkt_alloc(fab, (size_t)n);
	if (!ic)
		return;
	memcpy(ic->data, buf, (size_t)n);
	ic->len = ic->hlen = (uint16_t)n;
	ic->pay = NULL;
	ic->pay_len = 0;
	pkt_parse(ic);
	ic->flags |= PK_CTRL;
	out = plain_route(fab, s, ic);
	if (out < 0) {
		s->st.no_route++;
		pkt_free(fab, ic);
		return;
	}
	s->st.icmp_sent++;
	enqueue(fab, &fab->ports[s->port0 + (uint32_t)out], ic, NO_PORT, now);
}

/*
 * Forwards @pkt at switch @s by its bytes. A DA in its plane's uSID block
 * (mrc_srv6_plane_block) goes through mrc/srv6's switch step (static table, uN shift
 * RFC 9800 §4.1.1, SRH End RFC 8754 §4.3.1.1, hop limit); when the segment list ends at
 * this switch, the packet goes to the attached host its inner DA names. Any other DA is
 * a plain (stev/udp, RoCE baseline, ICMPv6) packet: host route, or ECMP over the up ports
 * at a T0. A hop limit that runs out (<= 1 on a packet it would send on) drops the
 * packet with an ICMPv6 Time Exceeded (hop_limit_drop). Returns the local output port or
 * -1 (counted).
 */
static int forward(struct mrc_fabric *fab, struct fab_switch *s, struct fab_pkt *pkt,
	uint64_t now)
{
	uint8_t *d = pkt->data;
	uint32_t hp;
	int rc;

	if (pkt->flags & PK_BAD) {
		s->st.bad_pkt++;
		return -1;
	}
	if (get_be32(d + 24) == s->fib.block) {
		rc = mrc_srv6_switch_forward(&s->fib, d, pkt->len);
		if (rc >= 0)
			return rc;
		if (rc == -ETIME) {
			hop_limit_drop(fab, s, pkt, now);
			return -1;
		}
		if (rc != -EDESTADDRREQ || !(pkt->flags & PK_INNER)) {
			if (rc == -ENOENT || rc == -EDESTADDRREQ || rc == -ELOOP)
				s->st.no_route++;
			else
				s->st.bad_pkt++;
			return -1;
		}
		hp = addr_lookup(fab, d + pkt_inner_off(pkt) + 24);
		rc = hp == UINT32_MAX ? -1 : port_to_host(fab, s, pkt, hp, false);
	} else {
		rc = plain_route(fab, s, pkt);
	}
	if (rc < 0) {
		s->st.no_route++;
		return -1;
	}
	if (d[7] <= 1) { /* RFC 8200 §3, RFC 4443 §3.3 */
		hop_limit_drop(fab, s, pkt, now);
		return -1;
	}
	d[7]--;
	return rc;
}

/*
 * Was @pkt on its link when the link went down (a down event after it was sent and
 * before its last bit arrived), or drawn by random loss? Exact while fewer than 4
 * link-down events happen during one packet's flight and switch delay.
 */
static inline bool pkt_lost(const struct mrc_fabric *fab, const struct fab_pkt *pkt,
	uint64_t t_arr)
{
	uint8_t downs = (uint8_t)(fab->link_gen[pkt->port] - pkt->gen);

	if (pkt->flags & PK_LOST)
		return true;
	if (!downs)
		return false;
	return downs > 3 || fab->down_at[pkt->port][(uint8_t)(pkt->gen + 1) & 3] < t_arr;
}

static void on_arrive(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_pkt *pkt = obj;
	/* the receiving end's port (@arg: the sender's rev), read rather than the sender's:
	 * in a parallel run the sender's port is another worker's, its line written with
	 * every packet it sends */
	const struct fab_port *in = &fab->ports[arg];
	struct fab_switch *s;
	uint64_t t_arr;
	int out;

	if (fab->released) /* the packet went with the pool */
		return;
	s = in->sw;
	t_arr = s ? now - fab->p.switch_delay_ps : now; /* its last bit arrived */
	if (pkt_lost(fab, pkt, t_arr)) {
		/* the sender's port, another worker's maybe: the one counter written across */
		__atomic_fetch_add(&fab->ports[pkt->port].st.lost, 1, __ATOMIC_RELAXED);
		pkt_free(fab, pkt);
		return;
	}
	WK(fab)->pkt_hops++;
	if (in->taps & TAP_ARRIVE)
		tap_call(fab, fab->taps[pkt->port].arrive, fab->taps[pkt->port].arrive_ctx, pkt,
			t_arr);
	if (!s) {
		WK(fab)->delivered++;
		if (fab->ops.rx_gather) {
			struct mrc_wire_gather g = {.hlen = pkt->hlen,
				.payload = pkt->pay,
				.payload_len = pkt->pay_len};

			fab->ops.rx_gather(
				fab->ctx, in->host, in->plane, pkt->data, pkt->len, &g, now);
		} else if (fab->ops.rx) {
			fab->ops.rx(fab->ctx, in->host, in->plane, pkt_bytes(fab, pkt), pkt->len,
				now);
		}
		pkt_free(fab, pkt);
		return;
	}
	if (!s->up) {
		s->st.down_drops++;
		pkt_free(fab, pkt);
		return;
	}
	s->st.rx_pkts++;
	out = forward(fab, s, pkt, now);
	if (out < 0) {
		pkt_free(fab, pkt);
		return;
	}
	enqueue(fab, &fab->ports[s->port0 + (uint32_t)out], pkt, pkt->port, now);
}

/* ---- construction ------------------------------------------------------------------ */

static void init_link(struct fab_link *l, uint64_t rate, uint64_t delay)
{
	l->rate_bps = rate;
	l->ser_ps_per_byte = 8000000000000ull % rate ? 0 : 8000000000000ull / rate;
	l->delay_ps = delay;
}

/* Gives switch @s its own copy of its static table from the plan. */
static int copy_fib(struct mrc_fabric *fab, struct fab_switch *s, uint8_t role)
{
	struct mrc_srv6_node node = {.role = role, .plane = (uint8_t)s->plane, .index = s->index};
	const struct mrc_srv6_fib *f = mrc_srv6_fib_of(fab->p.plan, &node);

	if (!f)
		return -EINVAL;
	for (size_t r = 0; r < f->n; r++)
		if (f->routes[r].port >= (int32_t)s->nports)
			return -EINVAL;
	s->plan_fib = f;
	s->fib = *f;
	s->routes = malloc((f->n ? f->n : 1) * sizeof(*s->routes));
	if (!s->routes)
		return -ENOMEM;
	memcpy(s->routes, f->routes, f->n * sizeof(*s->routes));
	s->fib.routes = s->routes;
	return 0;
}

static int build(struct mrc_fabric *fab)
{
	const struct mrc_fabric_params *p = &fab->p;
	uint32_t P = fab->tp.planes, hpt = fab->tp.hosts_per_t0, H = fab->hosts;
	uint32_t T0 = fab->tp.t0, T1 = fab->tp.t1;
	int err;

	fab->n_switches = P * (T0 + T1);
	fab->base_t0 = H * P;
	fab->base_t1 = fab->base_t0 + P * T0 * (hpt + T1);
	fab->n_ports = fab->base_t1 + P * T1 * T0;
	/* cache-line aligned: a port's two halves are a line each (struct fab_port) */
	fab->ports = aligned_alloc(64, fab->n_ports * sizeof(*fab->ports));
	fab->sw = calloc(fab->n_switches, sizeof(*fab->sw));
	fab->link_gen = calloc(fab->n_ports, sizeof(*fab->link_gen));
	if (!fab->ports || !fab->sw || !fab->link_gen)
		return -ENOMEM;
	memset(fab->ports, 0, fab->n_ports * sizeof(*fab->ports));

	for (uint32_t pl = 0; pl < P; pl++) {
		for (uint32_t i = 0; i < T0 + T1; i++) {
			struct fab_switch *s = &fab->sw[pl * (T0 + T1) + i];
			bool t0 = i < T0;

			s->index = t0 ? i : i - T0;
			s->port0 =
				t0 ? t0_port(fab, pl, s->index, 0) : t1_port(fab, pl, s->index, 0);
			s->nports = (uint16_t)(t0 ? hpt + T1 : T0);
			s->plane = (uint16_t)pl;
			s->tier = t0 ? MRC_FAB_T0 : MRC_FAB_T1;
			s->up = 1;
			s->seed = mrc_ecmp_switch_seed(p->ecmp_seed, p->ecmp_per_switch,
				pl * (T0 + T1) + i);
			s->icmp_tokens = ICMP_BURST;
			err = copy_fib(fab, s, t0 ? MRC_SRV6_T0 : MRC_SRV6_T1);
			if (err)
				return err;
		}
	}

	for (size_t k = 0; k < p->n_ecmp_seeds; k++) {
		const struct mrc_fab_switch_seed *o = &p->ecmp_seeds[k];

		if (o->plane >= P || (o->tier != MRC_FAB_T0 && o->tier != MRC_FAB_T1) ||
			o->index >= (o->tier == MRC_FAB_T0 ? T0 : T1))
			return -EINVAL;
		(o->tier == MRC_FAB_T0 ? t0_sw(fab, o->plane, o->index)
				       : t1_sw(fab, o->plane, o->index))->seed = o->seed;
	}
	/* every T0-T1 link in the ECMP groups */
	fab->rt_words = (T1 + 63) / 64;
	fab->rt_usable = malloc((size_t)P * T0 * fab->rt_words * sizeof(*fab->rt_usable));
	if (!fab->rt_usable)
		return -ENOMEM;
	for (size_t r = 0; r < (size_t)P * T0; r++)
		for (uint32_t w = 0; w < fab->rt_words; w++)
			fab->rt_usable[r * fab->rt_words + w] =
				T1 - w * 64 >= 64 ? ~0ull : (1ull << (T1 - w * 64)) - 1;

	/* links */
	init_link(&fab->link[0], p->host_rate_bps, p->host_delay_ps);
	init_link(&fab->link[1], p->fabric_rate_bps, p->fabric_delay_ps);
	for (uint32_t pl = 0; pl < P; pl++) {
		for (uint32_t h = 0; h < H; h++) {
			uint32_t up = nic_port(fab, h, pl), dn = t0_port(fab, pl, h / hpt, h % hpt);
			struct fab_port *u = &fab->ports[up], *d = &fab->ports[dn];

			u->plane = (uint16_t)pl;
			u->nic = 1;
			u->host = h;
			u->peer_sw = t0_sw(fab, pl, h / hpt);
			u->rev = dn;
			d->plane = (uint16_t)pl;
			d->sw = t0_sw(fab, pl, h / hpt);
			d->host = h;
			d->lasthop = 1;
			d->rev = up;
		}
		for (uint32_t i = 0; i < T0; i++) {
			for (uint32_t j = 0; j < T1; j++) {
				uint32_t up = t0_port(fab, pl, i, hpt + j),
					 dn = t1_port(fab, pl, j, i);
				struct fab_port *u = &fab->ports[up], *d = &fab->ports[dn];

				u->plane = (uint16_t)pl;
				u->sw = t0_sw(fab, pl, i);
				u->peer_sw = t1_sw(fab, pl, j);
				u->rev = dn;
				d->plane = (uint16_t)pl;
				d->sw = t1_sw(fab, pl, j);
				d->peer_sw = t0_sw(fab, pl, i);
				d->rev = up;
			}
		}
	}

	/* host addresses */
	{
		uint32_t n = P * H, cap = 16;

		while (cap < 2 * n)
			cap *= 2;
		fab->addr_mask = cap - 1;
		fab->addr_key = calloc(cap, sizeof(*fab->addr_key));
		fab->addr_val = malloc(cap * sizeof(*fab->addr_val));
		if (!fab->addr_key || !fab->addr_val)
			return -ENOMEM;
		memset(fab->addr_val, 0xFF, cap * sizeof(*fab->addr_val));
		for (uint32_t k = 0; k < n; k++) {
			struct mrc_ip6 a;
			uint32_t i;

			err = mrc_srv6_host_addr(p->plan, k / H, k % H, &a);
			if (err)
				return err;
			i = (uint32_t)addr_hash(a.b) & fab->addr_mask;
			while (fab->addr_val[i] != UINT32_MAX) {
				if (memcmp(fab->addr_key[i].b, a.b, 16) == 0)
					return -EINVAL;
				i = (i + 1) & fab->addr_mask;
			}
			fab->addr_key[i] = a;
			fab->addr_val[i] = k;
		}
	}
	return 0;
}

/* The entities (the loop's caller, switches, hosts) and a generator for each: its seed
 * the fabric's mixed with the entity's number (mrc_splitmix64), so no two draw alike. */
static int seed_entities(struct mrc_fabric *fab)
{
	fab->n_ents = 1 + fab->n_switches + fab->hosts;
	fab->rng = malloc(fab->n_ents * sizeof(*fab->rng));
	if (!fab->rng)
		return -ENOMEM;
	for (uint32_t e = 0; e < fab->n_ents; e++) {
		uint64_t x = fab->p.seed ^ (uint64_t)e * 0xD1B54A32D192ED03ull;

		mrc_rng_seed(&fab->rng[e], mrc_splitmix64(&x));
	}
	return mrc_sim_entities(fab->sim, fab->n_ents);
}

uint64_t mrc_fabric_lookahead(const struct mrc_fabric *fab)
{
	const struct fab_link *l = &fab->link[1];
	uint64_t pfc = l->ser_ps_per_byte ? PFC_FRAME_BYTES * l->ser_ps_per_byte
					  : mrc_ser_ps(PFC_FRAME_BYTES, l->rate_bps);

	return l->delay_ps + (fab->p.switch_delay_ps < pfc ? fab->p.switch_delay_ps : pfc);
}

static int wk_add(struct mrc_fabric *fab, unsigned n);

/* The worker of rack @rack of @racks: racks dealt to the @workers in blocks, worker w
 * running racks [w racks / W, (w + 1) racks / W). */
static uint16_t rack_worker(uint64_t rack, unsigned workers, uint32_t racks)
{
	return (uint16_t)(rack * workers / racks);
}

/* The rack entity @e is dealt with (not entity 0): partition = rack, a T0 of every plane
 * with its hosts; the T1s spread evenly over the racks. */
static uint64_t ent_rack(const struct mrc_fabric *fab, uint32_t e)
{
	const struct fab_switch *s;
	uint64_t t1, n1;

	if (e > fab->n_switches)
		return (e - fab->n_switches - 1) / fab->tp.hosts_per_t0;
	s = &fab->sw[e - 1];
	t1 = (uint64_t)s->plane * fab->tp.t1 + s->index;
	n1 = (uint64_t)fab->tp.planes * fab->tp.t1;
	return s->tier == MRC_FAB_T0 ? s->index : t1 * fab->tp.t0 / n1;
}

/* The part (worker or rank) of @parts that runs entity @e (entity 0: part 0). */
static uint16_t ent_part(const struct mrc_fabric *fab, uint32_t e, unsigned parts)
{
	if (e == 0 || parts < 2)
		return 0;
	return rack_worker(ent_rack(fab, e), parts, fab->tp.t0);
}

/* The first rack of @part of @parts (rack_worker's blocks: [ceil(p racks / P), ...)). */
static uint64_t part_first_rack(const struct mrc_fabric *fab, unsigned part, unsigned parts)
{
	return ((uint64_t)part * fab->tp.t0 + parts - 1) / parts;
}

/* The worker of @workers that runs entity @e inside its rank of @ranks: the rank's racks
 * dealt to its workers in blocks as rack_worker deals the fabric's (entity 0: 0). */
static uint16_t ent_rank_worker(const struct mrc_fabric *fab, uint32_t e, unsigned ranks,
	unsigned workers)
{
	uint64_t rack, lo, n;
	unsigned r;

	if (e == 0 || workers < 2)
		return 0;
	rack = ent_rack(fab, e);
	r = rack_worker(rack, ranks, fab->tp.t0);
	lo = part_first_rack(fab, r, ranks);
	n = part_first_rack(fab, r + 1, ranks) - lo;
	return (uint16_t)((rack - lo) * workers / n);
}

/* Checks @parts for the fabric and makes the entities' map of them (ent_part) in *@out.
 * 0, -ERANGE, -EDOM or -ENOMEM (as mrc_fabric_partition). */
static int ent_parts(const struct mrc_fabric *fab, unsigned parts, uint16_t **out)
{
	uint16_t *ew;

	if (parts > fab->tp.t0 || parts > 1024)
		return -ERANGE;
	if (!mrc_fabric_lookahead(fab))
		return -EDOM;
	ew = malloc(fab->n_ents * sizeof(*ew));
	if (!ew)
		return -ENOMEM;
	for (uint32_t e = 0; e < fab->n_ents; e++)
		ew[e] = ent_part(fab, e, parts);
	*out = ew;
	return 0;
}

int mrc_fabric_partition(struct mrc_fabric *fab, unsigned workers)
{
	uint16_t *ew;
	int err;

	if (workers < 2)
		return 0;
	err = ent_parts(fab, workers, &ew);
	if (err)
		return err;
	err = wk_add(fab, workers);
	mrc_sim_set_window(fab->sim, mrc_fabric_lookahead(fab));
	if (!err)
		err = mrc_sim_partition(fab->sim, workers, ew);
	free(ew);
	return err;
}

unsigned mrc_fabric_host_worker(const struct mrc_fabric *fab, uint32_t host)
{
	return fab->n_rk ? ent_rank_worker(fab, host_ent(fab, host), fab->n_rk, fab->n_wk)
			 : ent_part(fab, host_ent(fab, host), fab->n_wk);
}

uint32_t mrc_fabric_host_entity(const struct mrc_fabric *fab, uint32_t host)
{
	return host_ent(fab, host);
}

/* ---- ranks (mrc_fabric_ranks; docs/architecture.md "Parallel simulation") ----------- */

/* The rank of entity @e, and of a port's owner and far end (0 without ranks). */
static inline unsigned ent_rank(const struct mrc_fabric *fab, uint32_t e)
{
	return ent_part(fab, e, fab->n_rk);
}

static inline unsigned owner_rank(const struct mrc_fabric *fab, const struct fab_port *o)
{
	return ent_rank(fab, owner_ent(fab, o));
}

static inline unsigned peer_rank(const struct mrc_fabric *fab, const struct fab_port *o)
{
	return ent_rank(fab, peer_ent(fab, o));
}

unsigned mrc_fabric_host_rank(const struct mrc_fabric *fab, uint32_t host)
{
	return ent_rank(fab, host_ent(fab, host));
}

bool mrc_fabric_owns_host(const struct mrc_fabric *fab, uint32_t host)
{
	return mrc_fabric_host_rank(fab, host) == fab->rank;
}

/* How a packet's payload crosses (struct fab_xpkt pay). */
enum { XP_ZEROS = 0, XP_BYTES, XP_TOKEN };

/* A packet on its way to another rank: this, its hlen header bytes, then its payload
 * (XP_BYTES: pay_len bytes; XP_TOKEN: the MRC_FAB_PAY_TOKEN bytes of ops.pay_token). */
struct fab_xpkt {
	uint32_t port, icrc;
	uint16_t len, hlen, pay_len, nh_off;
	uint8_t flags, gen, pay, pad[5];
};

_Static_assert(sizeof(struct fab_xpkt) == 24, "a packet's header between ranks: 24 bytes");

static int xf_arrive_pack(void *ctx, void *obj, uint64_t arg, bool keep, struct mrc_sim_buf *b)
{
	struct mrc_fabric *fab = ctx;
	struct fab_pkt *pkt = obj;
	struct fab_xpkt x = {.port = pkt->port, .icrc = pkt->icrc, .len = pkt->len,
		.hlen = pkt->hlen, .pay_len = pkt->pay_len, .nh_off = pkt->nh_off,
		.flags = (uint8_t)(pkt->flags & ~PK_PAYIN), .gen = pkt->gen, .pay = XP_ZEROS};
	uint8_t tok[MRC_FAB_PAY_TOKEN] = {0};
	int err;

	(void)arg;
	if (pkt->pay && pkt->pay_len) {
		/* a copy from a rank before (PK_PAYIN) is bytes; else the run's token */
		x.pay = fab->ops.pay_token && !(pkt->flags & PK_PAYIN) ? XP_TOKEN : XP_BYTES;
		if (x.pay == XP_TOKEN)
			fab->ops.pay_token(fab->ctx, pkt->pay, pkt->pay_len, tok);
	}
	err = mrc_sim_buf_put(b, &x, sizeof(x));
	err = err ?: mrc_sim_buf_put(b, pkt->data, pkt->hlen);
	if (x.pay == XP_BYTES)
		err = err ?: mrc_sim_buf_put(b, pkt->pay, pkt->pay_len);
	else if (x.pay == XP_TOKEN)
		err = err ?: mrc_sim_buf_put(b, tok, sizeof(tok));
	if (!err && !keep) /* the event is gone from this rank */
		pkt_free(fab, pkt);
	return err;
}

/* Rebuilds a packet from another rank in this rank's pool; its payload bytes, if it came
 * with them, stay in its slot after its headers (PK_PAYIN) for its whole life. */
static int xf_arrive_unpack(void *ctx, const void *p, size_t len, void **obj, uint64_t *arg)
{
	struct mrc_fabric *fab = ctx;
	const uint8_t *d = p;
	struct fab_xpkt x;
	struct fab_pkt *pkt;
	size_t tail;

	if (len < sizeof(x))
		return -EPROTO;
	memcpy(&x, d, sizeof(x));
	tail = x.pay == XP_BYTES ? x.pay_len : x.pay == XP_TOKEN ? MRC_FAB_PAY_TOKEN : 0;
	if (x.port >= fab->n_ports || peer_rank(fab, &fab->ports[x.port]) != fab->rank ||
		x.pay > XP_TOKEN || (x.flags & PK_PAYIN) || x.len == 0 || x.len > MRC_PKT_MAX ||
		x.hlen > x.len || x.hlen > fab->p.pkt_cap ||
		(uint32_t)x.hlen + x.pay_len > x.len || x.nh_off > x.hlen ||
		(x.pay != XP_ZEROS && !x.pay_len) ||
		(x.pay == XP_TOKEN && !fab->ops.pay_from_token) ||
		len != sizeof(x) + x.hlen + tail)
		return -EPROTO;
	pkt = pkt_alloc(fab, (size_t)x.hlen + (x.pay == XP_BYTES ? x.pay_len : 0));
	if (!pkt)
		return -ENOMEM;
	memcpy(pkt->data, d + sizeof(x), x.hlen);
	pkt->pay = NULL;
	if (x.pay == XP_BYTES) {
		memcpy(pkt->data + x.hlen, d + sizeof(x) + x.hlen, x.pay_len);
		pkt->pay = pkt->data + x.hlen;
		x.flags |= PK_PAYIN;
	} else if (x.pay == XP_TOKEN) {
		pkt->pay = fab->ops.pay_from_token(fab->ctx, d + sizeof(x) + x.hlen, x.pay_len);
	}
	pkt->icrc = x.icrc;
	pkt->len = x.len;
	pkt->hlen = x.hlen;
	pkt->pay_len = x.pay_len;
	pkt->nh_off = x.nh_off;
	pkt->flags = x.flags;
	pkt->port = x.port; /* on its link: port and gen in place of next */
	pkt->gen = x.gen;
	*obj = pkt;
	*arg = fab->ports[x.port].rev; /* on_arrive's, from the checked port, not the sender's */
	return 0;
}

/* A PFC frame crosses as its port's index (on_pfc's arg as it is). */
static int xf_pfc_pack(void *ctx, void *obj, uint64_t arg, bool keep, struct mrc_sim_buf *b)
{
	struct mrc_fabric *fab = ctx;
	uint32_t i = (uint32_t)((struct fab_port *)obj - fab->ports);

	(void)arg, (void)keep;
	return mrc_sim_buf_put(b, &i, sizeof(i));
}

static int xf_pfc_unpack(void *ctx, const void *p, size_t len, void **obj, uint64_t *arg)
{
	struct mrc_fabric *fab = ctx;
	uint32_t i;

	(void)arg;
	if (len != sizeof(i) || !fab->pfc)
		return -EPROTO;
	memcpy(&i, p, sizeof(i));
	if (i >= fab->n_ports || owner_rank(fab, &fab->ports[i]) != fab->rank)
		return -EPROTO;
	*obj = &fab->ports[i];
	return 0;
}

/* Lets every worker's pool hold a packet of MRC_PKT_MAX bytes in data[] (a packet from
 * another rank with its payload). 0 or -ENOMEM. */
static int cls_grow(struct mrc_fabric *fab)
{
	unsigned n = pkt_cls(MRC_PKT_MAX) + 1;

	if (n <= fab->n_cls)
		return 0;
	for (unsigned w = 0; w < fab->n_wk; w++) {
		struct fab_pkt **f = realloc(fab->wk[w].free_pkts, n * sizeof(*f));

		if (!f)
			return -ENOMEM;
		memset(f + fab->n_cls, 0, (n - fab->n_cls) * sizeof(*f));
		fab->wk[w].free_pkts = f;
	}
	fab->n_cls = n;
	return 0;
}

int mrc_fabric_ranks(struct mrc_fabric *fab, const struct mrc_sim_comm *c, unsigned workers)
{
	const struct mrc_fab_host_ops *o = &fab->ops;
	uint16_t *er;
	int err;

	if (!c || c->ranks < 2 || c->rank >= c->ranks || fab->n_wk != 1 || fab->n_rk ||
		!workers || !o->pay_token != !o->pay_from_token || (o->payload && !o->pay_token))
		return -EINVAL;
	/* every rank's racks for its workers: the fewest a rank has */
	if (workers > 1 && (uint64_t)c->ranks * workers > fab->tp.t0)
		return -ERANGE;
	err = ent_parts(fab, c->ranks, &er);
	if (err)
		return err;
	err = cls_grow(fab);
	err = err ?: workers > 1 ? wk_add(fab, workers) : 0;
	mrc_sim_set_window(fab->sim, mrc_fabric_lookahead(fab));
	err = err ?: mrc_sim_ranks(fab->sim, c, er);
	err = err ?: mrc_sim_handler_xfer(fab->sim, (unsigned)fab->k_arrive, xf_arrive_pack,
		xf_arrive_unpack);
	err = err ?: mrc_sim_handler_xfer(fab->sim, (unsigned)fab->k_pfc, xf_pfc_pack,
		xf_pfc_unpack);
	if (!err) {
		fab->n_rk = c->ranks;
		fab->rank = c->rank;
		for (uint32_t e = 0; e < fab->n_ents; e++) /* the rank's racks to its workers */
			er[e] = ent_rank_worker(fab, e, c->ranks, workers);
		err = mrc_sim_partition(fab->sim, workers, er);
	}
	free(er);
	return err;
}

/*
 * Results between ranks: struct fab_res, then its records in this order: np ports this
 * rank owns (struct fab_res_port), ns switches (struct fab_res_sw), ni PFC ingresses
 * (struct fab_res_in: ports whose far end it owns), nl lost counts on other ranks' ports
 * (struct fab_res_lost).
 */
#define RES_MAGIC 0x314B5246u /* "FRK1" */

struct fab_res {
	uint32_t magic, rank, n_ports, n_switches, pfc;
	uint32_t np, ns, ni, nl, pad;
	struct fab_rk_count cnt;
};

struct fab_res_port {
	uint32_t i;
	uint8_t paused, pad[3];
	struct mrc_fab_port_stats st;
	uint64_t pause_tx, resume_tx, pause_rx, resume_rx, paused_ps[2], paused_at[2];
};

struct fab_res_sw {
	uint32_t i, pad;
	struct mrc_fab_switch_stats st;
};

struct fab_res_in {
	uint32_t i, pad;
	uint64_t headroom_drops, max_ingress_bytes;
};

struct fab_res_lost {
	uint32_t i, pad;
	uint64_t lost;
};

int mrc_fabric_results_pack(const struct mrc_fabric *fab, struct mrc_sim_buf *b)
{
	const struct mrc_sim *sim = fab->sim;
	struct fab_res h = {.magic = RES_MAGIC, .rank = fab->rank, .n_ports = fab->n_ports,
		.n_switches = fab->n_switches, .pfc = fab->pfc != NULL,
		.cnt.events = mrc_sim_events(sim) - mrc_sim_events_caller(sim)};
	size_t at = b->n;
	int err;

	if (!fab->n_rk)
		return -EINVAL;
	for (unsigned w = 0; w < fab->n_wk; w++) {
		h.cnt.pkt_hops += fab->wk[w].pkt_hops;
		h.cnt.injected += fab->wk[w].injected;
		h.cnt.delivered += fab->wk[w].delivered;
	}
	err = mrc_sim_buf_put(b, &h, sizeof(h));
	for (uint32_t i = 0; i < fab->n_ports && !err; i++) {
		const struct fab_port *o = &fab->ports[i];
		const struct fab_pfc *f = fab->pfc ? &fab->pfc[i] : NULL;
		struct fab_res_port r = {.i = i, .st = o->st};

		if (owner_rank(fab, o) != fab->rank)
			continue;
		if (f) {
			r.paused = f->paused;
			r.pause_tx = f->st.pause_tx;
			r.resume_tx = f->st.resume_tx;
			r.pause_rx = f->st.pause_rx;
			r.resume_rx = f->st.resume_rx;
			memcpy(r.paused_ps, f->st.paused_ps, sizeof(r.paused_ps));
			memcpy(r.paused_at, f->paused_at, sizeof(r.paused_at));
		}
		h.np++;
		err = mrc_sim_buf_put(b, &r, sizeof(r));
	}
	for (uint32_t i = 0; i < fab->n_switches && !err; i++) {
		struct fab_res_sw r = {.i = i, .st = fab->sw[i].st};

		if (ent_rank(fab, i + 1) != fab->rank)
			continue;
		h.ns++;
		err = mrc_sim_buf_put(b, &r, sizeof(r));
	}
	for (uint32_t i = 0; i < fab->n_ports && fab->pfc && !err; i++) {
		struct fab_res_in r = {.i = i, .headroom_drops = fab->pfc[i].st.headroom_drops,
			.max_ingress_bytes = fab->pfc[i].st.max_ingress_bytes};

		if (peer_rank(fab, &fab->ports[i]) != fab->rank)
			continue;
		h.ni++;
		err = mrc_sim_buf_put(b, &r, sizeof(r));
	}
	for (uint32_t i = 0; i < fab->n_ports && !err; i++) {
		struct fab_res_lost r = {.i = i, .lost = fab->ports[i].st.lost};

		if (!r.lost || owner_rank(fab, &fab->ports[i]) == fab->rank)
			continue;
		h.nl++;
		err = mrc_sim_buf_put(b, &r, sizeof(r));
	}
	if (err) {
		b->n = at;
		return err;
	}
	memcpy(b->a + at, &h, sizeof(h));
	return 0;
}

/* Applies (@apply) or checks the records of @h at @p: 0 or -EPROTO. */
static int res_walk(struct mrc_fabric *fab, const struct fab_res *h, const uint8_t *p,
	bool apply)
{
	for (uint32_t k = 0; k < h->np; k++, p += sizeof(struct fab_res_port)) {
		struct fab_res_port r;
		uint64_t lost;

		memcpy(&r, p, sizeof(r));
		if (r.i >= fab->n_ports || owner_rank(fab, &fab->ports[r.i]) != h->rank ||
			r.paused > 3)
			return -EPROTO;
		if (!apply)
			continue;
		lost = fab->ports[r.i].st.lost; /* what this rank counted on it: added */
		fab->ports[r.i].st = r.st;
		fab->ports[r.i].st.lost += lost;
		if (fab->pfc) {
			struct fab_pfc *f = &fab->pfc[r.i];

			f->paused = r.paused;
			f->st.pause_tx = r.pause_tx;
			f->st.resume_tx = r.resume_tx;
			f->st.pause_rx = r.pause_rx;
			f->st.resume_rx = r.resume_rx;
			memcpy(f->st.paused_ps, r.paused_ps, sizeof(r.paused_ps));
			memcpy(f->paused_at, r.paused_at, sizeof(r.paused_at));
		}
	}
	for (uint32_t k = 0; k < h->ns; k++, p += sizeof(struct fab_res_sw)) {
		struct fab_res_sw r;

		memcpy(&r, p, sizeof(r));
		if (r.i >= fab->n_switches || ent_rank(fab, r.i + 1) != h->rank)
			return -EPROTO;
		if (apply)
			fab->sw[r.i].st = r.st;
	}
	for (uint32_t k = 0; k < h->ni; k++, p += sizeof(struct fab_res_in)) {
		struct fab_res_in r;

		memcpy(&r, p, sizeof(r));
		if (r.i >= fab->n_ports || peer_rank(fab, &fab->ports[r.i]) != h->rank)
			return -EPROTO;
		if (apply) {
			fab->pfc[r.i].st.headroom_drops = r.headroom_drops;
			fab->pfc[r.i].st.max_ingress_bytes = r.max_ingress_bytes;
		}
	}
	for (uint32_t k = 0; k < h->nl; k++, p += sizeof(struct fab_res_lost)) {
		struct fab_res_lost r;

		memcpy(&r, p, sizeof(r));
		if (r.i >= fab->n_ports || owner_rank(fab, &fab->ports[r.i]) == h->rank)
			return -EPROTO;
		if (apply)
			fab->ports[r.i].st.lost += r.lost;
	}
	return 0;
}

int mrc_fabric_results_unpack(struct mrc_fabric *fab, const void *p, size_t len)
{
	struct fab_res h;
	int err;

	if (!fab->n_rk)
		return -EINVAL;
	if (len < sizeof(h))
		return -EPROTO;
	memcpy(&h, p, sizeof(h));
	/* counts bounded by the fabric's, so the length below cannot overflow */
	if (h.magic != RES_MAGIC || h.rank >= fab->n_rk || h.rank == fab->rank ||
		h.n_ports != fab->n_ports || h.n_switches != fab->n_switches ||
		h.pfc != (fab->pfc != NULL) || h.np > fab->n_ports || h.nl > fab->n_ports ||
		h.ni > (fab->pfc ? fab->n_ports : 0) || h.ns > fab->n_switches ||
		len != sizeof(h) + h.np * sizeof(struct fab_res_port) +
				h.ns * sizeof(struct fab_res_sw) +
				h.ni * sizeof(struct fab_res_in) +
				h.nl * sizeof(struct fab_res_lost))
		return -EPROTO;
	err = res_walk(fab, &h, (const uint8_t *)p + sizeof(h), false);
	if (err)
		return err;
	res_walk(fab, &h, (const uint8_t *)p + sizeof(h), true);
	fab->rk_add.events += h.cnt.events;
	fab->rk_add.pkt_hops += h.cnt.pkt_hops;
	fab->rk_add.injected += h.cnt.injected;
	fab->rk_add.delivered += h.cnt.delivered;
	return 0;
}

/* Gives the fabric @n workers' buffers and pools (it has 0 or 1). 0 or -ENOMEM. */
static int wk_add(struct mrc_fabric *fab, unsigned n)
{
	struct fab_wk *wk = aligned_alloc(64, n * sizeof(*wk));

	if (!wk)
		return -ENOMEM;
	memset(wk, 0, n * sizeof(*wk));
	if (fab->n_wk)
		wk[0] = fab->wk[0];
	free(fab->wk);
	fab->wk = wk;
	for (; fab->n_wk < n; fab->n_wk++) {
		struct fab_wk *w = &wk[fab->n_wk];

		w->free_pkts = calloc(fab->n_cls, sizeof(*w->free_pkts));
		w->scratch = aligned_alloc(64, MRC_PKT_MAX + 64);
		if (w->scratch)
			memset(w->scratch, 0, MRC_PKT_MAX + 64); /* scratch_nz = scratch_ic = 0 */
		w->txbuf = aligned_alloc(64, (fab->p.pkt_cap + 63) & ~(size_t)63);
		if (!w->scratch || !w->txbuf || !w->free_pkts) {
			fab->n_wk++; /* mrc_fabric_free frees what it has */
			return -ENOMEM;
		}
	}
	return 0;
}

static void on_fault(void *ctx, void *obj, uint64_t arg, uint64_t now);
static void on_flap(void *ctx, void *obj, uint64_t arg, uint64_t now);
static void on_rdetect(void *ctx, void *obj, uint64_t arg, uint64_t now);
static void on_rremove(void *ctx, void *obj, uint64_t arg, uint64_t now);
static void on_rreadd(void *ctx, void *obj, uint64_t arg, uint64_t now);

int mrc_fabric_new(const struct mrc_fabric_params *p, const struct mrc_fab_host_ops *ops, void *ctx,
	struct mrc_fabric **out)
{
	struct mrc_fabric *fab;
	int err;

	const struct mrc_srv6_params *sp;

	if (!p->plan || !p->host_rate_bps || !p->fabric_rate_bps)
		return -EINVAL;
	sp = mrc_srv6_plan_params(p->plan);
	if (!sp->planes || !sp->t0 || !sp->t1 || !sp->hosts_per_t0 || sp->planes > 256 ||
		sp->hosts_per_t0 + sp->t1 > 65535 || sp->t0 > 65535 ||
		(uint64_t)sp->t0 * sp->hosts_per_t0 > (1u << 24))
		return -EINVAL;
	if ((p->trim && p->trim_bytes < MRC_IP6_HLEN) || p->pkt_cap > 65535 ||
		(p->trim && p->pkt_cap && p->trim_bytes > p->pkt_cap))
		return -EINVAL;
	if (p->ecn_kmin_bytes > p->ecn_kmax_bytes || !(p->ecn_pmax >= 0 && p->ecn_pmax <= 1))
		return -EINVAL;
	/* docs/pfc.md: trimming cuts the data PFC keeps whole; a resume above the pause */
	if (p->pfc.enabled && (p->trim || p->pfc.xon_bytes > p->pfc.xoff_bytes))
		return -EINVAL;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -ENOMEM;
	fab->p = *p;
	if (!fab->p.pkt_cap)
		fab->p.pkt_cap = MRC_PKT_MAX;
	fab->tp.planes = sp->planes;
	fab->tp.t0 = sp->t0;
	fab->tp.t1 = sp->t1;
	fab->tp.hosts_per_t0 = sp->hosts_per_t0;
	if (ops)
		fab->ops = *ops;
	fab->ctx = ctx;
	fab->hosts = sp->t0 * sp->hosts_per_t0;
	/* the largest class holds the hosts' packets and a switch's ICMPv6 error, at most
	 * the minimum MTU (RFC 4443 §2.4(c)) */
	fab->n_cls = pkt_cls(fab->p.pkt_cap > MRC_IP6_MIN_MTU ? fab->p.pkt_cap
							       : MRC_IP6_MIN_MTU) + 1;
	err = wk_add(fab, 1);
	if (err)
		goto fail;
	err = mrc_sim_new(&p->simq, &fab->sim);
	if (err)
		goto fail;
	fab->k_arrive = mrc_sim_handler(fab->sim, on_arrive, fab);
	fab->k_free = mrc_sim_handler(fab->sim, on_free, fab);
	fab->k_fault = mrc_sim_handler(fab->sim, on_fault, fab);
	fab->k_flap = mrc_sim_handler(fab->sim, on_flap, fab);
	fab->k_rdetect = mrc_sim_handler(fab->sim, on_rdetect, fab);
	fab->k_rremove = mrc_sim_handler(fab->sim, on_rremove, fab);
	fab->k_rreadd = mrc_sim_handler(fab->sim, on_rreadd, fab);
	fab->k_pfc = mrc_sim_handler(fab->sim, on_pfc, fab);
	err = build(fab);
	if (!err)
		err = seed_entities(fab);
	if (!err && p->pfc.enabled) {
		fab->lossless = (uint8_t)(1u << MRC_FAB_DATA |
					  (p->pfc.control ? 1u << MRC_FAB_CTRL : 0));
		fab->pfc = calloc(fab->n_ports, sizeof(*fab->pfc));
		if (!fab->pfc)
			err = -ENOMEM;
	}
	if (err)
		goto fail;
	*out = fab;
	return 0;
fail:
	mrc_fabric_free(fab);
	return err;
}

void mrc_fabric_forget_payloads(struct mrc_fabric *fab)
{
	for (unsigned w = 0; w < fab->n_wk; w++)
		for (struct fab_slab *s = fab->wk[w].slabs; s; s = s->next) {
			for (uint32_t i = 0; i < s->n; i++) {
				struct fab_pkt *q =
					(struct fab_pkt *)(s->mem + (size_t)i * s->stride);

				q->pay = NULL; /* a free one's is never read: allocating sets it */
				q->flags &= (uint8_t)~PK_PAYIN; /* a copy from another rank too */
			}
		}
}

/* Frees every slab of the pool; the free lists and the ports' queues become empty. */
static void pool_free(struct mrc_fabric *fab)
{
	for (unsigned w = 0; w < fab->n_wk; w++) {
		struct fab_wk *k = &fab->wk[w];

		while (k->slabs) {
			struct fab_slab *s = k->slabs;

			k->slabs = s->next;
			free(s);
		}
		if (k->free_pkts)
			memset(k->free_pkts, 0, fab->n_cls * sizeof(*k->free_pkts));
	}
	for (uint32_t i = 0; fab->ports && i < fab->n_ports; i++) {
		struct fab_port *o = &fab->ports[i];

		o->q[0].tail = o->q[1].tail = NULL;
		o->qbytes[0] = o->qbytes[1] = 0;
		if (fab->pfc) /* the rings name the packets gone with the queues */
			fab->pfc[i].ring[0].n = fab->pfc[i].ring[1].n = 0;
	}
}

void mrc_fabric_release_pool(struct mrc_fabric *fab)
{
	pool_free(fab);
	fab->released = true;
	fab->ops.tx = NULL; /* and no NIC port pulls a packet from its host (nic_pull) */
}

void mrc_fabric_free(struct mrc_fabric *fab)
{
	if (!fab)
		return;
	pool_free(fab);
	for (unsigned w = 0; w < fab->n_wk; w++) {
		free(fab->wk[w].scratch);
		free(fab->wk[w].txbuf);
		free(fab->wk[w].free_pkts);
	}
	free(fab->wk);
	if (fab->sw)
		for (uint32_t i = 0; i < fab->n_switches; i++)
			free(fab->sw[i].routes);
	while (fab->sched) {
		struct fab_sched *s = fab->sched;

		fab->sched = s->next;
		free(s);
	}
	for (uint32_t i = 0; fab->pfc && i < fab->n_ports; i++)
		free(fab->pfc[i].ring[0].v), free(fab->pfc[i].ring[1].v);
	free(fab->pfc);
	free(fab->ports);
	free(fab->taps);
	free(fab->down_at);
	free(fab->link_gen);
	free(fab->impair);
	free(fab->rt_usable);
	free(fab->rt_link);
	free(fab->sw);
	free(fab->rng);
	free(fab->addr_key);
	free(fab->addr_val);
	free(fab->log);
	mrc_sim_free(fab->sim);
	free(fab);
}

struct mrc_sim *mrc_fabric_sim(struct mrc_fabric *fab)
{
	return fab->sim;
}

/* ---- faults ------------------------------------------------------------------------ */

static const char *const fault_names[] = {
	[MRC_FAB_LINK_DOWN] = "link_down",
	[MRC_FAB_LINK_UP] = "link_up",
	[MRC_FAB_SWITCH_DOWN] = "switch_down",
	[MRC_FAB_SWITCH_UP] = "switch_up",
	[MRC_FAB_NIC_DOWN] = "nic_down",
	[MRC_FAB_NIC_UP] = "nic_up",
	[MRC_FAB_LOSS] = "loss",
	[MRC_FAB_DELAY] = "delay",
	[MRC_FAB_FLAP] = "flap",
	[MRC_FAB_BLACKHOLE] = "blackhole",
	[MRC_FAB_UNBLACKHOLE] = "unblackhole",
};

const char *mrc_fab_fault_name(enum mrc_fab_fault_kind k)
{
	if ((unsigned)k >= sizeof(fault_names) / sizeof(fault_names[0]) || !fault_names[k])
		return "?";
	return fault_names[k];
}

/* Output ports of the link a fault names, by direction. Returns how many (0 = bad). */
static int link_ports(const struct mrc_fabric *fab, const struct mrc_fab_fault *f, uint32_t out[2])
{
	uint32_t up, dn;
	int n = 0;

	if (f->plane >= fab->tp.planes)
		return 0;
	if (f->tier == MRC_FAB_HOST) {
		if (f->a >= fab->hosts)
			return 0;
		up = nic_port(fab, f->a, f->plane);
	} else if (f->tier == MRC_FAB_T0) {
		if (f->a >= fab->tp.t0 || f->b >= fab->tp.t1)
			return 0;
		up = t0_port(fab, f->plane, f->a, fab->tp.hosts_per_t0 + f->b);
	} else {
		return 0;
	}
	dn = fab->ports[up].rev;
	if (f->dir != MRC_FAB_DOWNWARD)
		out[n++] = up;
	if (f->dir != MRC_FAB_UPWARD)
		out[n++] = dn;
	return n;
}

static void fault_target(
	const struct mrc_fabric *fab, const struct mrc_fab_fault *f, char *buf, size_t cap)
{
	static const char *const dirs[] = {"", " up", " down"};
	const char *dir = (unsigned)f->dir < 3 ? dirs[f->dir] : "";

	(void)fab;
	switch (f->kind) {
	case MRC_FAB_SWITCH_DOWN:
	case MRC_FAB_SWITCH_UP:
		snprintf(buf, cap, "p%u.t%d.%u", f->plane, f->tier == MRC_FAB_T1, f->a);
		break;
	case MRC_FAB_NIC_DOWN:
	case MRC_FAB_NIC_UP:
		snprintf(buf, cap, "h%u.p%u", f->a, f->plane);
		break;
	case MRC_FAB_BLACKHOLE:
	case MRC_FAB_UNBLACKHOLE:
		snprintf(buf, cap, "p%u.t%d.%u route 0x%04x", f->plane, f->tier == MRC_FAB_T1, f->a,
			f->usid);
		break;
	default:
		if (f->tier == MRC_FAB_HOST)
			snprintf(buf, cap, "h%u.p%u-p%u.t0.%u%s", f->a, f->plane, f->plane,
				f->a / fab->tp.hosts_per_t0, dir);
		else
			snprintf(buf, cap, "p%u.t0.%u-p%u.t1.%u%s", f->plane, f->a, f->plane, f->b,
				dir);
		break;
	}
}

static void log_fault(struct mrc_fabric *fab, const struct mrc_fab_fault *f,
	enum mrc_fab_fault_kind kind, uint64_t now, bool noop)
{
	struct mrc_fab_fault_rec *r;

	if (fab->n_log == fab->cap_log) {
		size_t cap = fab->cap_log ? fab->cap_log * 2 : 16;
		struct mrc_fab_fault_rec *l = realloc(fab->log, cap * sizeof(*l));

		if (!l)
			return;
		fab->log = l;
		fab->cap_log = cap;
	}
	r = &fab->log[fab->n_log++];
	r->at_ps = now;
	r->kind = kind;
	r->noop = noop;
	r->routed_ps = UINT64_MAX;
	fault_target(fab, f, r->target, sizeof(r->target));
}

const struct mrc_fab_fault_rec *mrc_fabric_fault_log(const struct mrc_fabric *fab, size_t *n)
{
	*n = fab->n_log;
	return fab->log;
}

/* The link of @o stopped working at @now: what is on the wire and not yet arrived is
 * lost, what waits in its queues is dropped. */
static void port_went_down(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	struct fab_pkt *pkt;

	o->gen++;
	fab->link_gen[o - fab->ports] = o->gen;
	fab->down_at[o - fab->ports][o->gen & 3] = now;
	for (unsigned q = 0; q < 2; q++) {
		while ((pkt = fifo_pop(&o->q[q])) != NULL) {
			o->st.down_drops++;
			if (fab->lossless >> q & 1)
				pfc_left(fab, o, q, pkt->len, now);
			pkt_free(fab, pkt);
		}
		o->qbytes[q] = 0;
	}
	if (fab->pfc)
		pfc_forget(fab, (uint32_t)(o - fab->ports), now);
}

/* A port came up: a NIC port resumes pulling from its host. */
static void port_came_up(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	if (o->nic)
		port_wake(fab, o, now);
}

/* ---- routing reconvergence (docs/roce-baseline.md "Routing reconvergence") ---------- */

/* The T0-T1 link port @o is a direction of, as rt_link's index (plane * t0 + i) * t1 + j;
 * false for a host link. */
static bool rt_link_of(const struct mrc_fabric *fab, const struct fab_port *o, uint32_t *l)
{
	uint32_t idx = (uint32_t)(o - fab->ports), T0 = fab->tp.t0, T1 = fab->tp.t1;
	uint32_t hpt = fab->tp.hosts_per_t0, pl, i, j;

	if (idx >= fab->base_t1) { /* T1 j of plane pl, port i: (pl * t1 + j) * t0 + i */
		uint32_t r = idx - fab->base_t1;

		i = r % T0;
		j = r / T0 % T1;
		pl = r / T0 / T1;
	} else if (idx >= fab->base_t0) { /* T0 i, port k: (pl * t0 + i) * (hpt + t1) + k */
		uint32_t r = idx - fab->base_t0, k = r % (hpt + T1);

		if (k < hpt)
			return false;
		j = k - hpt;
		i = r / (hpt + T1) % T0;
		pl = r / (hpt + T1) / T0;
	} else {
		return false;
	}
	*l = (pl * T0 + i) * T1 + j;
	return true;
}

/* Routing's word and bit of link @l in rt_usable. */
static uint64_t *rt_word(struct mrc_fabric *fab, uint32_t l, uint64_t *bit)
{
	uint32_t j = l % fab->tp.t1, row = l / fab->tp.t1;

	*bit = 1ull << (j % 64);
	return &fab->rt_usable[(size_t)row * fab->rt_words + j / 64];
}

/* Link @l's ECMP membership became @in at @now: the groups change, and the fault it is
 * owed to (fault-log index @cause) records when its first change took effect. */
static void rt_set(struct mrc_fabric *fab, uint32_t l, bool in, uint32_t cause, uint64_t now)
{
	uint64_t bit, *w = rt_word(fab, l, &bit);

	*w = in ? *w | bit : *w & ~bit;
	if (cause < fab->n_log && fab->log[cause].routed_ps == UINT64_MAX)
		fab->log[cause].routed_ps = now;
}

/*
 * Port @o changed state at @now. When it is a direction of a T0-T1 link whose state as a
 * whole (both directions working, as BFD sees it: RFC 5880 §6.8.4) changed, routing
 * starts to notice: a link gone down is detected detect_ps later if it stayed down all
 * that time (rt_detect), then leaves the ECMP groups converge_ps after (rt_remove); a
 * link come up that had left them (or was leaving) rejoins them detect_ps + converge_ps
 * later if it stayed up (rt_readd). The change is owed to the fault about to be logged
 * (fab->n_log: mrc_fabric_apply and the flap toggles log after they act).
 */
static void rt_port_changed(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	struct fab_rlink *rl;
	uint64_t bit;
	uint32_t l, up;
	bool works;

	if (!fab->rt_link || !rt_link_of(fab, o, &l))
		return;
	rl = &fab->rt_link[l];
	up = t0_port(fab, l / fab->tp.t1 / fab->tp.t0, l / fab->tp.t1 % fab->tp.t0,
		fab->tp.hosts_per_t0 + l % fab->tp.t1);
	works = port_up(&fab->ports[up]) && port_up(&fab->ports[fab->ports[up].rev]);
	if (works == rl->up)
		return;
	rl->up = works;
	rl->seq++;
	rl->cause = (uint32_t)fab->n_log;
	if (!works)
		mrc_sim_at_ent(fab->sim, now + fab->p.detect_ps, 0, (unsigned)fab->k_rdetect, NULL,
			(uint64_t)rl->seq << 32 | l);
	else if (rl->leaving || !(*rt_word(fab, l, &bit) & bit))
		mrc_sim_at_ent(fab->sim, now + fab->p.detect_ps + fab->p.converge_ps, 0,
			(unsigned)fab->k_rreadd, NULL, (uint64_t)rl->seq << 32 | l);
}

/* Detection time of a link-down event @arg (seq << 32 | link): still down since, it is
 * detected and leaves the groups after the convergence time. */
static void on_rdetect(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_rlink *rl = &fab->rt_link[(uint32_t)arg];

	(void)obj;
	if (rl->seq != (uint32_t)(arg >> 32))
		return; /* it came back before BFD noticed */
	rl->leaving = 1;
	mrc_sim_at_ent(fab->sim, now + fab->p.converge_ps, 0, (unsigned)fab->k_rremove, NULL,
		(uint64_t)rl->cause << 32 | (uint32_t)arg);
}

/* Convergence after a detected link down @arg (cause << 32 | link): out of the groups. */
static void on_rremove(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;

	(void)obj;
	fab->rt_link[(uint32_t)arg].leaving = 0;
	rt_set(fab, (uint32_t)arg, false, (uint32_t)(arg >> 32), now);
}

/* A link back up @arg (seq << 32 | link) for detection plus convergence: back in. */
static void on_rreadd(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_rlink *rl = &fab->rt_link[(uint32_t)arg];

	(void)obj;
	if (rl->seq == (uint32_t)(arg >> 32))
		rt_set(fab, (uint32_t)arg, true, rl->cause, now);
}

static void set_down(
	struct mrc_fabric *fab, struct fab_port *o, uint8_t bit, bool down, uint64_t now)
{
	bool was = port_up(o);

	if (down)
		o->down |= bit;
	else
		o->down &= (uint8_t)~bit;
	if (was && !port_up(o))
		port_went_down(fab, o, now);
	else if (!was && port_up(o))
		port_came_up(fab, o, now);
	if (was != port_up(o))
		rt_port_changed(fab, o, now);
}

static struct fab_switch *fault_switch(struct mrc_fabric *fab, const struct mrc_fab_fault *f)
{
	if (f->plane >= fab->tp.planes)
		return NULL;
	if (f->tier == MRC_FAB_T0 && f->a < fab->tp.t0)
		return t0_sw(fab, f->plane, f->a);
	if (f->tier == MRC_FAB_T1 && f->a < fab->tp.t1)
		return t1_sw(fab, f->plane, f->a);
	return NULL;
}

static void set_switch(struct mrc_fabric *fab, struct fab_switch *s, bool up, uint64_t now)
{
	uint32_t n = s->nports;
	bool *was = calloc(2 * (size_t)n, sizeof(*was));

	if (!was)
		return;
	for (uint32_t k = 0; k < n; k++) {
		struct fab_port *o = &fab->ports[s->port0 + k];

		was[2 * k] = port_up(o);
		was[2 * k + 1] = port_up(&fab->ports[o->rev]);
	}
	s->up = up;
	for (uint32_t k = 0; k < n; k++) {
		struct fab_port *o = &fab->ports[s->port0 + k];
		struct fab_port *r = &fab->ports[o->rev];

		if (was[2 * k] && !port_up(o))
			port_went_down(fab, o, now);
		if (was[2 * k + 1] && !port_up(r))
			port_went_down(fab, r, now);
		if (!was[2 * k + 1] && port_up(r))
			port_came_up(fab, r, now);
		if (was[2 * k] != port_up(o) || was[2 * k + 1] != port_up(r))
			rt_port_changed(fab, o, now);
	}
	free(was);
}

/* Removes (blackhole) or restores the static route of switch @s to @usid. -ENOENT when
 * the plan has no such route; -EALREADY when a blackhole finds it removed already or a
 * restore finds it there (nothing to change). */
static int set_route(struct fab_switch *s, uint16_t usid, bool blackholed)
{
	size_t n = s->fib.n, i;
	const struct mrc_srv6_route *orig = NULL;

	for (i = 0; i < s->plan_fib->n; i++)
		if (s->plan_fib->routes[i].usid == usid)
			orig = &s->plan_fib->routes[i];
	if (!orig)
		return -ENOENT;
	for (i = 0; i < n && s->routes[i].usid < usid; i++)
		;
	if (blackholed) {
		if (i == n || s->routes[i].usid != usid)
			return -EALREADY;
		memmove(&s->routes[i], &s->routes[i + 1], (n - i - 1) * sizeof(*s->routes));
		s->fib.n--;
	} else {
		if (i < n && s->routes[i].usid == usid)
			return -EALREADY;
		memmove(&s->routes[i + 1], &s->routes[i], (n - i) * sizeof(*s->routes));
		s->routes[i] = *orig;
		s->fib.n++;
	}
	return 0;
}

static int fault_check(const struct mrc_fabric *fab, const struct mrc_fab_fault *f)
{
	uint32_t ports[2];

	switch (f->kind) {
	case MRC_FAB_LINK_DOWN:
	case MRC_FAB_LINK_UP:
	case MRC_FAB_LOSS:
	case MRC_FAB_DELAY:
	case MRC_FAB_FLAP:
		if (link_ports(fab, f, ports) == 0)
			return -EINVAL;
		if (f->kind == MRC_FAB_LOSS && !(f->loss_rate >= 0 && f->loss_rate <= 1))
			return -EINVAL;
		if (f->kind == MRC_FAB_FLAP && (!f->period_ps || !(f->duty >= 0 && f->duty <= 1)))
			return -EINVAL;
		return 0;
	case MRC_FAB_SWITCH_DOWN:
	case MRC_FAB_SWITCH_UP:
	case MRC_FAB_BLACKHOLE:
	case MRC_FAB_UNBLACKHOLE:
		return fault_switch((struct mrc_fabric *)fab, f) ? 0 : -EINVAL;
	case MRC_FAB_NIC_DOWN:
	case MRC_FAB_NIC_UP:
		return f->plane < fab->tp.planes && f->a < fab->hosts ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* The down part of a flap's period (mrc/job/fault.h). */
static uint64_t flap_down_ps(const struct mrc_fab_fault *f)
{
	return mrc_fault_flap_down_ps(f->period_ps, f->duty);
}

/* Makes the ports' link-down times and routing's view of the T0-T1 links when @f is the
 * first fault that can take a link down (pkt_lost and rt_port_changed read them only after
 * one did), and their LOSS/DELAY figures when it is the first such fault (launch reads
 * them only once made). 0 or -ENOMEM. */
static int need_arrays(struct mrc_fabric *fab, const struct mrc_fab_fault *f)
{
	size_t n;

	if (!fab->impair && (f->kind == MRC_FAB_LOSS || f->kind == MRC_FAB_DELAY)) {
		fab->impair = calloc(fab->n_ports, sizeof(*fab->impair));
		if (!fab->impair)
			return -ENOMEM;
	}
	if (fab->down_at || (f->kind != MRC_FAB_LINK_DOWN && f->kind != MRC_FAB_SWITCH_DOWN &&
				    f->kind != MRC_FAB_NIC_DOWN && f->kind != MRC_FAB_FLAP))
		return 0;
	n = (size_t)fab->tp.planes * fab->tp.t0 * fab->tp.t1;
	fab->down_at = calloc(fab->n_ports, sizeof(*fab->down_at));
	fab->rt_link = calloc(n, sizeof(*fab->rt_link));
	if (!fab->down_at || !fab->rt_link) {
		free(fab->down_at);
		free(fab->rt_link);
		fab->down_at = NULL;
		fab->rt_link = NULL;
		return -ENOMEM;
	}
	for (size_t l = 0; l < n; l++)
		fab->rt_link[l].up = 1;
	return 0;
}

int mrc_fabric_apply(struct mrc_fabric *fab, const struct mrc_fab_fault *f, uint64_t now)
{
	uint32_t ports[2];
	int n, err = fault_check(fab, f);
	bool noop = false;

	if (!err)
		err = need_arrays(fab, f);
	if (err)
		return err;
	n = link_ports(fab, f, ports);
	switch (f->kind) {
	case MRC_FAB_LINK_DOWN:
	case MRC_FAB_LINK_UP:
		noop = f->kind == MRC_FAB_LINK_UP;
		for (int i = 0; i < n; i++)
			if (fab->ports[ports[i]].down & DOWN_LINK)
				noop = false;
		for (int i = 0; i < n; i++)
			set_down(fab, &fab->ports[ports[i]], DOWN_LINK,
				f->kind == MRC_FAB_LINK_DOWN, now);
		break;
	case MRC_FAB_LOSS:
		for (int i = 0; i < n; i++)
			fab->impair[ports[i]].loss_thresh =
				(uint64_t)(f->loss_rate * (double)(1ull << 53));
		break;
	case MRC_FAB_DELAY:
		for (int i = 0; i < n; i++)
			fab->impair[ports[i]].extra_ps = f->delay_ps;
		break;
	case MRC_FAB_FLAP: {
		struct fab_sched *s;

		if (flap_down_ps(f) == 0 || now >= f->until_ps)
			break;
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->f = *f;
		s->next = fab->sched;
		fab->sched = s;
		log_fault(fab, f, MRC_FAB_FLAP, now, false);
		on_flap(fab, s, 1, now);
		return 0;
	}
	case MRC_FAB_SWITCH_DOWN:
	case MRC_FAB_SWITCH_UP:
		noop = f->kind == MRC_FAB_SWITCH_UP && fault_switch(fab, f)->up;
		if (!noop)
			set_switch(fab, fault_switch(fab, f), f->kind == MRC_FAB_SWITCH_UP, now);
		break;
	case MRC_FAB_NIC_DOWN:
	case MRC_FAB_NIC_UP: {
		bool down = f->kind == MRC_FAB_NIC_DOWN;
		struct fab_port *o = &fab->ports[nic_port(fab, f->a, f->plane)];

		noop = !down && !(o->down & DOWN_NIC);
		if (noop)
			break;
		set_down(fab, o, DOWN_NIC, down, now);
		set_down(fab, &fab->ports[o->rev], DOWN_NIC, down, now);
		if (fab->ops.port_status)
			fab->ops.port_status(fab->ctx, f->a, f->plane, !down, now);
		break;
	}
	case MRC_FAB_BLACKHOLE:
	case MRC_FAB_UNBLACKHOLE:
		err = set_route(fault_switch(fab, f), f->usid, f->kind == MRC_FAB_BLACKHOLE);
		noop = err == -EALREADY;
		if (err && !noop)
			return err;
		break;
	}
	log_fault(fab, f, f->kind, now, noop);
	return 0;
}

/* Flap step: @arg 1 = take the link down now, 0 = bring it up. */
static void on_flap(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_sched *s = obj;
	uint32_t ports[2];
	int n = link_ports(fab, &s->f, ports);
	bool down = arg == 1 && now < s->f.until_ps;
	uint64_t next;

	for (int i = 0; i < n; i++)
		set_down(fab, &fab->ports[ports[i]], DOWN_FLAP, down, now);
	log_fault(fab, &s->f, down ? MRC_FAB_LINK_DOWN : MRC_FAB_LINK_UP, now, false);
	if (down) {
		next = now + flap_down_ps(&s->f);
		if (next > s->f.until_ps)
			next = s->f.until_ps;
		mrc_sim_at_ent(fab->sim, next, 0, (unsigned)fab->k_flap, s, 0);
	} else {
		next = now + (s->f.period_ps - flap_down_ps(&s->f));
		if (next < s->f.until_ps)
			mrc_sim_at_ent(fab->sim, next, 0, (unsigned)fab->k_flap, s, 1);
	}
}

static void on_fault(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_sched *s = obj;

	(void)arg;
	mrc_fabric_apply(fab, &s->f, now);
}

int mrc_fabric_schedule(struct mrc_fabric *fab, const struct mrc_fab_fault *f)
{
	struct fab_sched *s;
	int err = fault_check(fab, f);

	if (!err)
		err = need_arrays(fab, f);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->f = *f;
	s->next = fab->sched;
	fab->sched = s;
	return mrc_sim_at_ent(fab->sim, f->at_ps, 0, (unsigned)fab->k_fault, s, 0);
}

/* ---- taps and counters ------------------------------------------------------------- */

/* Global index of output port @port of node (@tier, @index, @plane), or -1. */
static int64_t port_index(const struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index,
	unsigned plane, unsigned port)
{
	if (plane >= fab->tp.planes)
		return -1;
	switch (tier) {
	case MRC_FAB_HOST:
		return index < fab->hosts ? (int64_t)nic_port(fab, index, plane) : -1;
	case MRC_FAB_T0:
		if (index >= fab->tp.t0 || port >= fab->tp.hosts_per_t0 + fab->tp.t1)
			return -1;
		return t0_port(fab, plane, index, port);
	case MRC_FAB_T1:
		if (index >= fab->tp.t1 || port >= fab->tp.t0)
			return -1;
		return t1_port(fab, plane, index, port);
	}
	return -1;
}

int mrc_fabric_tap(struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index, unsigned plane,
	unsigned port, bool egress, mrc_fab_tap_fn fn, void *ctx)
{
	int64_t i = port_index(fab, tier, index, plane, port);
	struct fab_port *o;

	if (i < 0)
		return -EINVAL;
	if (!fab->taps) {
		if (!fn)
			return 0;
		fab->taps = calloc(fab->n_ports, sizeof(*fab->taps));
		if (!fab->taps)
			return -ENOMEM;
	}
	o = &fab->ports[i];
	if (fn && (egress ? fab->taps[i].egress && fab->taps[i].egress_ctx != ctx
			  : fab->taps[o->rev].arrive && fab->taps[o->rev].arrive_ctx != ctx))
		return -EBUSY;
	if (egress) {
		fab->taps[i].egress = fn;
		fab->taps[i].egress_ctx = ctx;
		o->taps = (uint8_t)(fn ? o->taps | TAP_EGRESS : o->taps & ~TAP_EGRESS);
	} else {
		/* ingress at this port = arrivals over the opposite direction of its link: the
		 * tap is theirs (by the sender's port), the bit this port's (on_arrive's @in) */
		fab->taps[o->rev].arrive = fn;
		fab->taps[o->rev].arrive_ctx = ctx;
		o->taps = (uint8_t)(fn ? o->taps | TAP_ARRIVE : o->taps & ~TAP_ARRIVE);
	}
	return 0;
}

int mrc_fabric_port_stats(const struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index,
	unsigned plane, unsigned port, struct mrc_fab_port_stats *out)
{
	int64_t i = port_index(fab, tier, index, plane, port);

	if (i < 0)
		return -EINVAL;
	*out = fab->ports[i].st;
	return 0;
}

int mrc_fabric_switch_stats(const struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index,
	unsigned plane, struct mrc_fab_switch_stats *out)
{
	struct mrc_fab_fault f = {.tier = tier, .a = index, .plane = plane};
	struct fab_switch *s = fault_switch((struct mrc_fabric *)fab, &f);

	if (!s)
		return -EINVAL;
	*out = s->st;
	return 0;
}

int mrc_fabric_pfc_stats(const struct mrc_fabric *fab, enum mrc_fab_tier tier, uint32_t index,
	unsigned plane, unsigned port, struct mrc_fab_pfc_stats *out)
{
	int64_t i = port_index(fab, tier, index, plane, port);
	uint64_t now = mrc_sim_now(fab->sim);

	if (i < 0)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!fab->pfc)
		return 0;
	*out = fab->pfc[i].st;
	for (unsigned c = 0; c < 2; c++) /* a pause still on counts up to now */
		if (fab->pfc[i].paused >> c & 1)
			out->paused_ps[c] += now - fab->pfc[i].paused_at[c];
	return 0;
}

void mrc_fabric_port_totals(const struct mrc_fabric *fab, struct mrc_fab_port_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; i < fab->n_ports; i++) {
		const struct mrc_fab_port_stats *s = &fab->ports[i].st;

		out->tx_pkts += s->tx_pkts;
		out->tx_bytes += s->tx_bytes;
		out->drops += s->drops;
		out->trims += s->trims;
		out->ecn_marks += s->ecn_marks;
		out->down_drops += s->down_drops;
		out->lost += s->lost;
		if (s->max_queue_bytes > out->max_queue_bytes)
			out->max_queue_bytes = s->max_queue_bytes;
	}
}

void mrc_fabric_stats(const struct mrc_fabric *fab, struct mrc_fab_stats *out)
{
	size_t mem = sizeof(*fab) + fab->n_ports * sizeof(struct fab_port) +
		     fab->n_switches * sizeof(struct fab_switch) +
		     (fab->addr_mask + 1) * (sizeof(struct mrc_ip6) + sizeof(uint32_t));

	for (uint32_t i = 0; i < fab->n_switches; i++)
		mem += fab->sw[i].plan_fib ? fab->sw[i].plan_fib->n * sizeof(*fab->sw[i].routes)
					   : 0;
	uint64_t pkt_hops = 0, injected = 0, delivered = 0, pkts_alloc = 0;
	size_t pool = 0;

	for (unsigned w = 0; w < fab->n_wk; w++) {
		const struct fab_wk *k = &fab->wk[w];

		pkt_hops += k->pkt_hops;
		injected += k->injected;
		delivered += k->delivered;
		pkts_alloc += k->pkts_alloc;
		pool += k->pool_bytes;
		mem += sizeof(*k) + MRC_PKT_MAX + fab->p.pkt_cap +
		       fab->n_cls * sizeof(*k->free_pkts);
	}
	mem += pool + mrc_sim_mem_bytes(fab->sim) + fab->n_ents * sizeof(*fab->rng);
	if (fab->taps)
		mem += fab->n_ports * sizeof(*fab->taps);
	if (fab->down_at)
		mem += fab->n_ports * sizeof(*fab->down_at);
	if (fab->impair)
		mem += fab->n_ports * sizeof(*fab->impair);
	mem += (size_t)fab->tp.planes * fab->tp.t0 * fab->rt_words * sizeof(*fab->rt_usable);
	if (fab->rt_link)
		mem += (size_t)fab->tp.planes * fab->tp.t0 * fab->tp.t1 * sizeof(*fab->rt_link);
	for (uint32_t i = 0; fab->pfc && i < fab->n_ports; i++)
		mem += sizeof(*fab->pfc) +
		       (fab->pfc[i].ring[0].cap + fab->pfc[i].ring[1].cap) * sizeof(uint32_t);
	out->events = mrc_sim_events(fab->sim) + fab->rk_add.events;
	out->pkt_hops = pkt_hops + fab->rk_add.pkt_hops;
	out->injected = injected + fab->rk_add.injected;
	out->delivered = delivered + fab->rk_add.delivered;
	out->pkts_alloc = pkts_alloc;
	out->pkt_bytes = pkts_alloc ? pool / pkts_alloc : 0;
	out->mem_bytes = mem;
	out->pool_bytes = pool;
	out->evq_bytes = mrc_sim_mem_bytes(fab->sim);
}
