/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fabric: simulated multi-plane two-tier SRv6 fabric — output ports, uN/SRH/ECMP
 * forwarding on packet bytes (RFC 9800, RFC 8754, WIRE.md), faults and taps.
 */
#include "mrc/fabric.h"
#include "mrc/rng.h"
#include "mrc/bytes.h"
#include "mrc/srv6.h"
#include "mrc/wire.h"

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
	PK_CTRL = 1,   /* control class: ACK/SACK/NACK/probe/endpoint, trimmed */
	PK_LOST = 2,   /* dies on arrival (random loss) */
	PK_BAD = 4,    /* not parsable as IPv6: switches drop it */
	PK_ICRC = 8,   /* gathered, checksums finished: icrc holds the ICRC */
	PK_SRH = 16,   /* an SRH follows the outer IPv6 */
	PK_INNER = 32, /* an inner IPv6 at nh_off: an outer one precedes it */
	PK_MRC = 64,   /* UDP to MRC_UDP_PORT and a BTH after it (pkt_bth_off) */
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
	uint32_t rev;		    /* the opposite direction of the link */
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
	TAP_ARRIVE = 2, /* ingress tap of the peer's port: arrivals over this direction */
};

struct fab_taps {
	mrc_fab_tap_fn egress, arrive;
	void *egress_ctx, *arrive_ctx;
};

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
	uint64_t salt;			     /* ECMP hash salt */
	struct mrc_fab_switch_stats st;
};

/* A block of n packets of one size class; they start 64 bytes in (slots of 8-byte steps). */
struct fab_slab {
	struct fab_slab *next;
	uint32_t n;	/* slots */
	uint32_t stride; /* bytes per slot: (class + 1) * POOL_STEP */
	uint8_t pad[48];
	uint8_t mem[];
};

struct fab_sched {
	struct fab_sched *next;
	struct mrc_fab_fault f;
	uint64_t next_toggle; /* flaps */
};

struct mrc_fabric {
	struct mrc_fabric_params p;
	struct {
		unsigned planes, t0, t1, hosts_per_t0;
	} tp; /* from the plan */
	struct mrc_fab_host_ops ops;
	void *ctx;
	struct mrc_sim *sim;
	int k_arrive, k_free, k_fault, k_flap;
	uint32_t hosts, n_switches, n_ports;
	uint32_t base_t0, base_t1; /* first T0 / T1 port */
	struct fab_port *ports;
	struct fab_link link[2];  /* by tier: port_link() */
	struct fab_taps *taps;	  /* [n_ports] once a tap is set, else NULL */
	uint64_t (*down_at)[4];	  /* [n_ports]: times of a port's last 4 link-down events, by
				   * gen; made by the first fault that can take a link down */
	struct fab_impair *impair; /* [n_ports]: made by the first LOSS or DELAY fault */
	struct fab_switch *sw;
	struct mrc_rng rng;

	/* host address -> plane * hosts + h, open addressing */
	struct mrc_ip6 *addr_key;
	uint32_t *addr_val; /* UINT32_MAX = empty */
	uint32_t addr_mask;

	/* packet pool: one free list per size class, slabs of all classes on one chain */
	uint8_t *scratch; /* MRC_PKT_MAX: a gathered packet laid out whole */
	uint32_t scratch_nz, scratch_ic; /* scratch is zero but for [0, nz) and, when ic is
					  * not 0, the 4 ICRC bytes at ic */
	uint8_t *txbuf;	  /* pkt_cap: a host writes the packet it sends here */
	struct fab_pkt **free_pkts; /* [n_cls] */
	unsigned n_cls;		    /* classes up to 32 + pkt_cap bytes */
	struct fab_slab *slabs;
	uint64_t pkts_alloc;
	size_t pool_bytes;
	bool released; /* mrc_fabric_release_pool: the packets its events name are gone */

	struct fab_sched *sched;
	struct mrc_fab_fault_rec *log;
	size_t n_log, cap_log;

	uint64_t pkt_hops, injected, delivered;
};

/* Pool size classes: slots of k * POOL_STEP bytes (the metadata's alignment: a packet
 * costs at most 7 bytes more than it holds; 64-byte steps, a cache line each, made the
 * pool of job-perm1k 8% larger); a slab holds SLAB_BYTES of slots, at least SLAB_MIN. */
#define POOL_STEP 8
#define SLAB_BYTES (32u << 10)
#define SLAB_MIN 8u

uint64_t mrc_fab_ser_ps(uint64_t bytes, uint64_t rate_bps)
{
	/* bytes * 8 * 1e12 fits in 64 bits for any packet up to 2 MB */
	return (bytes * 8000000000000ull + rate_bps - 1) / rate_bps;
}

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
	p->ecn_threshold_bytes = 200 << 10;
	p->ecn_lasthop = false;
	p->trim = true;
	p->trim_bytes = 256;
	p->dscp_trimmed = 12;
	p->dscp_trimmed_lasthop = 13;
	p->pkt_cap = 0;
	p->seed = 1;
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
	pkt = fab->free_pkts[cls];
	if (!pkt) {
		uint32_t stride = (cls + 1) * POOL_STEP;
		uint32_t n = SLAB_BYTES / stride > SLAB_MIN ? SLAB_BYTES / stride : SLAB_MIN;
		/* aligned_alloc wants a multiple of the alignment; slots are 8-byte steps */
		struct fab_slab *s =
			aligned_alloc(64, (sizeof(*s) + (size_t)n * stride + 63) & ~(size_t)63);

		if (!s)
			return NULL;
		s->next = fab->slabs;
		s->n = n;
		s->stride = stride;
		fab->slabs = s;
		for (uint32_t i = n; i-- > 0;) {
			struct fab_pkt *q = (struct fab_pkt *)(s->mem + (size_t)i * stride);

			q->cls = (uint16_t)cls;
			q->next = pkt;
			pkt = q;
		}
		fab->pkts_alloc += n;
		fab->pool_bytes += (size_t)n * stride;
	}
	fab->free_pkts[cls] = pkt->next;
	return pkt;
}

static inline void pkt_free(struct mrc_fabric *fab, struct fab_pkt *pkt)
{
	pkt->next = fab->free_pkts[pkt->cls];
	fab->free_pkts[pkt->cls] = pkt;
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
 * (WIRE.md "Packet stack"), with a length check before each field, and classifies it: control
 * (ACK, endpoint, SACK, NACK, PROBE opcodes) or data. Anything else is data.
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
	uint8_t *o = fab->scratch;
	uint32_t z = pkt->hlen; /* zeros from here to the end of the packet */

	if (pkt->hlen == pkt->len)
		return pkt->data;
	memcpy(o, pkt->data, pkt->hlen);
	if (pkt->pay) {
		memcpy(o + pkt->hlen, pkt->pay, pkt->pay_len);
		z += pkt->pay_len;
	}
	if (fab->scratch_nz > z)
		memset(o + z, 0, fab->scratch_nz - z);
	if (fab->scratch_ic && fab->scratch_ic + MRC_ICRC_LEN > z) { /* its part past z */
		uint32_t from = fab->scratch_ic > z ? fab->scratch_ic : z;

		memset(o + from, 0, fab->scratch_ic + MRC_ICRC_LEN - from);
	}
	fab->scratch_nz = z;
	fab->scratch_ic = 0;
	if (pkt->flags & PK_ICRC) { /* little-endian on the wire (mrc_wire_icrc) */
		memcpy(o + pkt->len - MRC_ICRC_LEN, (uint8_t[4]){(uint8_t)pkt->icrc,
			(uint8_t)(pkt->icrc >> 8), (uint8_t)(pkt->icrc >> 16),
			(uint8_t)(pkt->icrc >> 24)}, MRC_ICRC_LEN);
		fab->scratch_ic = pkt->len - MRC_ICRC_LEN;
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
	if (mrc_wire_csum_finish(&cfg, fab->scratch, pkt->len))
		return b;
	fab->scratch_ic = pkt->len - MRC_ICRC_LEN; /* written there (the UDP sum before z) */
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
					  : mrc_fab_ser_ps(pkt->len, l->rate_bps);
	uint32_t idx = (uint32_t)(o - fab->ports);
	uint64_t extra_ps = 0;

	o->busy_until = now + ser;
	o->st.tx_pkts++;
	o->st.tx_bytes += pkt->len;
	if (o->taps & TAP_EGRESS)
		tap_call(fab, fab->taps[idx].egress, fab->taps[idx].egress_ctx, pkt, now);
	if (fab->impair) {
		const struct fab_impair *im = &fab->impair[idx];

		if (im->loss_thresh && (mrc_rng_next(&fab->rng) >> 11) < im->loss_thresh)
			pkt->flags |= PK_LOST;
		extra_ps = im->extra_ps;
	}
	pkt->port = idx;
	pkt->gen = o->gen;
	/* its last bit reaches the far end at now + ser + delay (on_arrive works it back) */
	mrc_sim_at(fab->sim,
		now + ser + l->delay_ps + extra_ps + (o->peer_sw ? fab->p.switch_delay_ps : 0),
		(unsigned)fab->k_arrive, pkt, 0);
	if (o->nic || o->q[0].tail || o->q[1].tail) {
		o->pending = 1;
		mrc_sim_at(fab->sim, o->busy_until, (unsigned)fab->k_free, o, 0);
	}
}

static void start_tx(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	struct fab_pkt *pkt = fifo_pop(&o->q[0]);

	if (pkt) {
		o->qbytes[0] -= pkt->len;
	} else {
		pkt = fifo_pop(&o->q[1]);
		if (!pkt)
			return;
		o->qbytes[1] -= pkt->len;
	}
	launch(fab, o, pkt, now);
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
		n = mrc_wire_trim(fab->scratch, pkt->len, fab->p.trim_bytes, dscp);
		if (n <= 0 || (size_t)n > fab->p.pkt_cap)
			return false;
		*pp = pkt = pkt_move(fab, pkt, (size_t)n, 0);
		if ((size_t)n > cls_cap(pkt->cls))
			return false;
		memcpy(pkt->data, fab->scratch, (size_t)n);
		pkt->len = pkt->hlen = (uint16_t)n;
		pkt->pay = NULL;
		pkt->pay_len = 0;
		pkt->flags &= (uint8_t)~PK_ICRC;
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

/* Sets CE (RFC 3168) on an ECN-capable packet, outer and inner. Returns true if marked. */
static bool mark_ce(struct fab_pkt *pkt)
{
	uint8_t *d = pkt->data, tc = ip6_tc(d);

	if ((tc & 3) == 0 || (tc & 3) == 3)
		return false;
	ip6_set_tc(d, tc | 3);
	if (pkt->flags & PK_INNER) {
		uint8_t *in = d + pkt_inner_off(pkt);

		if (ip6_tc(in) & 3)
			ip6_set_tc(in, ip6_tc(in) | 3);
	}
	return true;
}

static void enqueue(struct mrc_fabric *fab, struct fab_port *o, struct fab_pkt *pkt, uint64_t now)
{
	const struct mrc_fabric_params *p = &fab->p;
	uint32_t q;

	if (!port_up(o)) {
		o->st.down_drops++;
		pkt_free(fab, pkt);
		return;
	}
	if (!(pkt->flags & PK_CTRL) && o->qbytes[1] + pkt->len > p->buffer_bytes) {
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
	}
	q = pkt->flags & PK_CTRL ? 0 : 1;
	if (q == 0 && o->qbytes[0] + pkt->len > p->ctrl_buffer_bytes) {
		o->st.drops++;
		pkt_free(fab, pkt);
		return;
	}
	if (q == 1 && p->ecn_threshold_bytes && o->qbytes[1] > p->ecn_threshold_bytes &&
		(!o->lasthop || p->ecn_lasthop) && mark_ce(pkt))
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
		mrc_sim_at(fab->sim, o->busy_until, (unsigned)fab->k_free, o, 0);
	}
}

/* The NIC port asks its host for the next packet and sends it. */
static void nic_pull(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	struct fab_pkt *pkt;
	size_t n;

	if (!port_up(o) || !fab->ops.tx)
		return;
	struct mrc_wire_gather g = {0};

	/* the host writes into txbuf; the pool keeps the bytes in a slot of their size */
	n = fab->ops.tx(fab->ctx, o->host, o->plane, now, fab->txbuf, fab->p.pkt_cap, &g);
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
	memcpy(pkt->data, fab->txbuf, g.hlen);
	pkt->len = (uint16_t)n;
	pkt->hlen = (uint16_t)g.hlen;
	pkt->pay = g.payload;
	pkt->pay_len = (uint16_t)g.payload_len;
	pkt_parse(pkt);
	fab->injected++;
	launch(fab, o, pkt, now);
}

static void on_free(void *ctx, void *obj, uint64_t arg, uint64_t now)
{
	struct mrc_fabric *fab = ctx;
	struct fab_port *o = obj;

	(void)arg;
	o->pending = 0;
	if (o->nic)
		nic_pull(fab, o, now);
	else
		start_tx(fab, o, now);
}

void mrc_fabric_kick(struct mrc_fabric *fab, uint32_t host, unsigned plane)
{
	struct fab_port *o;
	uint64_t now = mrc_sim_now(fab->sim);

	if (host >= fab->hosts || plane >= fab->tp.planes)
		return;
	o = &fab->ports[nic_port(fab, host, plane)];
	if (o->pending || !port_up(o))
		return;
	o->pending = 1;
	mrc_sim_at(
		fab->sim, o->busy_until > now ? o->busy_until : now, (unsigned)fab->k_free, o, 0);
}

/* ---- forwarding -------------------------------------------------------------------- */

/* Output port (local number) towards host port @hp (plane * hosts + h), or -1. */
static int port_to_host(const struct mrc_fabric *fab, const struct fab_switch *s,
	const struct fab_pkt *pkt, uint32_t hp, bool ecmp)
{
	uint32_t h = hp % fab->hosts, plane = hp / fab->hosts, rack = h / fab->tp.hosts_per_t0;
	const uint8_t *d = pkt->data;
	uint64_t x;

	if (plane != s->plane)
		return -1;
	if (s->tier == MRC_FAB_T1)
		return (int)rack;
	if (rack == s->index)
		return (int)(h % fab->tp.hosts_per_t0);
	if (!ecmp)
		return -1;
	/* ECMP over the up ports: hash of src, dst, next header, UDP ports and flow label */
	x = s->salt ^ addr_hash(d + 8);
	x = (x ^ addr_hash(d + 24)) * 0x9E3779B97F4A7C15ull;
	x ^= (uint64_t)(d[1] & 0x0F) << 16 | (uint64_t)d[2] << 8 | d[3];
	x ^= (uint64_t)d[6] << 56;
	if (d[6] == 17 && pkt->len >= MRC_IP6_HLEN + 4)
		x ^= (uint64_t)get_be32(d + MRC_IP6_HLEN) << 20;
	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 29;
	return (int)(fab->tp.hosts_per_t0 + (x >> 32) % fab->tp.t1);
}

/*
 * Forwards @pkt at switch @s by its bytes. A DA in its plane's uSID block
 * (mrc_srv6_plane_block) goes through mrc/srv6's switch step (static table, uN shift
 * RFC 9800 §4.1.1, SRH End RFC 8754 §4.3.1.1, hop limit); when the segment list ends at this switch, the packet goes to the attached host
 * its inner DA names. Any other DA is a plain (stev/udp, RoCE baseline) packet: host
 * route, or ECMP over the up ports at a T0. Returns the local output port or -1 (counted).
 */
static int forward(struct mrc_fabric *fab, struct fab_switch *s, struct fab_pkt *pkt)
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
			s->st.hop_limit++;
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
		hp = addr_lookup(fab, d + 24);
		rc = hp == UINT32_MAX ? -1 : port_to_host(fab, s, pkt, hp, true);
	}
	if (rc < 0) {
		s->st.no_route++;
		return -1;
	}
	if (d[7] <= 1) {
		s->st.hop_limit++;
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
static inline bool pkt_lost(const struct mrc_fabric *fab, const struct fab_port *o,
	const struct fab_pkt *pkt, uint64_t t_arr)
{
	uint8_t downs = (uint8_t)(o->gen - pkt->gen);

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
	struct fab_port *o;
	struct fab_switch *s;
	uint64_t t_arr;
	int out;

	(void)arg;
	if (fab->released) /* the packet went with the pool */
		return;
	o = &fab->ports[pkt->port];
	s = o->peer_sw;
	t_arr = s ? now - fab->p.switch_delay_ps : now; /* its last bit arrived */
	if (pkt_lost(fab, o, pkt, t_arr)) {
		o->st.lost++;
		pkt_free(fab, pkt);
		return;
	}
	fab->pkt_hops++;
	if (o->taps & TAP_ARRIVE)
		tap_call(fab, fab->taps[pkt->port].arrive, fab->taps[pkt->port].arrive_ctx, pkt,
			t_arr);
	if (!s) {
		fab->delivered++;
		if (fab->ops.rx_gather) {
			struct mrc_wire_gather g = {.hlen = pkt->hlen,
				.payload = pkt->pay,
				.payload_len = pkt->pay_len};

			fab->ops.rx_gather(
				fab->ctx, o->host, o->plane, pkt->data, pkt->len, &g, now);
		} else if (fab->ops.rx) {
			fab->ops.rx(fab->ctx, o->host, o->plane, pkt_bytes(fab, pkt), pkt->len,
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
	out = forward(fab, s, pkt);
	if (out < 0) {
		pkt_free(fab, pkt);
		return;
	}
	enqueue(fab, &fab->ports[s->port0 + (uint32_t)out], pkt, now);
}

/* ---- construction ------------------------------------------------------------------ */

static void init_link(struct fab_link *l, uint64_t rate, uint64_t delay)
{
	l->rate_bps = rate;
	l->ser_ps_per_byte = 8000000000000ull % rate ? 0 : 8000000000000ull / rate;
	l->delay_ps = delay;
}

static uint64_t splitmix_salt(uint64_t seed, uint64_t k)
{
	uint64_t z = seed + (k + 1) * 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
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
	if (!fab->ports || !fab->sw)
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
			s->salt = splitmix_salt(p->seed, pl * (T0 + T1) + i);
			err = copy_fib(fab, s, t0 ? MRC_SRV6_T0 : MRC_SRV6_T1);
			if (err)
				return err;
		}
	}

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

static void on_fault(void *ctx, void *obj, uint64_t arg, uint64_t now);
static void on_flap(void *ctx, void *obj, uint64_t arg, uint64_t now);

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
	fab->n_cls = pkt_cls(fab->p.pkt_cap) + 1;
	fab->free_pkts = calloc(fab->n_cls, sizeof(*fab->free_pkts));
	fab->scratch = aligned_alloc(64, MRC_PKT_MAX + 64);
	if (fab->scratch)
		memset(fab->scratch, 0, MRC_PKT_MAX + 64); /* scratch_nz = scratch_ic = 0 */
	fab->txbuf = aligned_alloc(64, (fab->p.pkt_cap + 63) & ~(size_t)63);
	if (!fab->scratch || !fab->txbuf || !fab->free_pkts) {
		err = -ENOMEM;
		goto fail;
	}
	mrc_rng_seed(&fab->rng, p->seed);
	err = mrc_sim_new(&p->simq, &fab->sim);
	if (err)
		goto fail;
	fab->k_arrive = mrc_sim_handler(fab->sim, on_arrive, fab);
	fab->k_free = mrc_sim_handler(fab->sim, on_free, fab);
	fab->k_fault = mrc_sim_handler(fab->sim, on_fault, fab);
	fab->k_flap = mrc_sim_handler(fab->sim, on_flap, fab);
	err = build(fab);
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
	for (struct fab_slab *s = fab->slabs; s; s = s->next) {
		for (uint32_t i = 0; i < s->n; i++) {
			struct fab_pkt *q = (struct fab_pkt *)(s->mem + (size_t)i * s->stride);

			q->pay = NULL; /* a free one's is never read: allocating sets it */
		}
	}
}

/* Frees every slab of the pool; the free lists and the ports' queues become empty. */
static void pool_free(struct mrc_fabric *fab)
{
	while (fab->slabs) {
		struct fab_slab *s = fab->slabs;

		fab->slabs = s->next;
		free(s);
	}
	if (fab->free_pkts)
		memset(fab->free_pkts, 0, fab->n_cls * sizeof(*fab->free_pkts));
	for (uint32_t i = 0; fab->ports && i < fab->n_ports; i++) {
		struct fab_port *o = &fab->ports[i];

		o->q[0].tail = o->q[1].tail = NULL;
		o->qbytes[0] = o->qbytes[1] = 0;
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
	free(fab->scratch);
	free(fab->txbuf);
	free(fab->free_pkts);
	if (fab->sw)
		for (uint32_t i = 0; i < fab->n_switches; i++)
			free(fab->sw[i].routes);
	while (fab->sched) {
		struct fab_sched *s = fab->sched;

		fab->sched = s->next;
		free(s);
	}
	free(fab->ports);
	free(fab->taps);
	free(fab->down_at);
	free(fab->impair);
	free(fab->sw);
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
	fab->down_at[o - fab->ports][o->gen & 3] = now;
	for (int q = 0; q < 2; q++) {
		while ((pkt = fifo_pop(&o->q[q])) != NULL) {
			o->st.down_drops++;
			pkt_free(fab, pkt);
		}
		o->qbytes[q] = 0;
	}
}

/* A port came up: a NIC port resumes pulling from its host. */
static void port_came_up(struct mrc_fabric *fab, struct fab_port *o, uint64_t now)
{
	if (o->nic && !o->pending) {
		o->pending = 1;
		mrc_sim_at(fab->sim, o->busy_until > now ? o->busy_until : now,
			(unsigned)fab->k_free, o, 0);
	}
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

/* The down part of a flap's period: duty is the fraction spent down (conf.h, README). */
static uint64_t flap_down_ps(const struct mrc_fab_fault *f)
{
	return (uint64_t)((double)f->period_ps * f->duty);
}

/* Makes the ports' link-down times when @f is the first fault that can take a link down
 * (pkt_lost reads them only after one did), and their LOSS/DELAY figures when it is the
 * first such fault (launch reads them only once made). 0 or -ENOMEM. */
static int need_arrays(struct mrc_fabric *fab, const struct mrc_fab_fault *f)
{
	if (!fab->impair && (f->kind == MRC_FAB_LOSS || f->kind == MRC_FAB_DELAY)) {
		fab->impair = calloc(fab->n_ports, sizeof(*fab->impair));
		if (!fab->impair)
			return -ENOMEM;
	}
	if (fab->down_at || (f->kind != MRC_FAB_LINK_DOWN && f->kind != MRC_FAB_SWITCH_DOWN &&
				    f->kind != MRC_FAB_NIC_DOWN && f->kind != MRC_FAB_FLAP))
		return 0;
	fab->down_at = calloc(fab->n_ports, sizeof(*fab->down_at));
	return fab->down_at ? 0 : -ENOMEM;
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
		mrc_sim_at(fab->sim, next, (unsigned)fab->k_flap, s, 0);
	} else {
		next = now + (s->f.period_ps - flap_down_ps(&s->f));
		if (next < s->f.until_ps)
			mrc_sim_at(fab->sim, next, (unsigned)fab->k_flap, s, 1);
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
	return mrc_sim_at(fab->sim, f->at_ps, (unsigned)fab->k_fault, s, 0);
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
		/* ingress at this port = arrivals over the opposite direction of its link */
		i = o->rev;
		o = &fab->ports[i];
		fab->taps[i].arrive = fn;
		fab->taps[i].arrive_ctx = ctx;
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
	mem += fab->pool_bytes + mrc_sim_mem_bytes(fab->sim) + MRC_PKT_MAX + fab->p.pkt_cap +
	       fab->n_cls * sizeof(*fab->free_pkts);
	if (fab->taps)
		mem += fab->n_ports * sizeof(*fab->taps);
	if (fab->down_at)
		mem += fab->n_ports * sizeof(*fab->down_at);
	if (fab->impair)
		mem += fab->n_ports * sizeof(*fab->impair);
	out->events = mrc_sim_events(fab->sim);
	out->pkt_hops = fab->pkt_hops;
	out->injected = fab->injected;
	out->delivered = fab->delivered;
	out->pkts_alloc = fab->pkts_alloc;
	out->pkt_bytes = fab->pkts_alloc ? fab->pool_bytes / fab->pkts_alloc : 0;
	out->mem_bytes = mem;
	out->pool_bytes = fab->pool_bytes;
	out->evq_bytes = mrc_sim_mem_bytes(fab->sim);
}

/* ---- selftest ---------------------------------------------------------------------- */
#include "mrc/st.h"

/*
 * Test addressing: mrc/srv6's generated plan, whose numbers the tests write out by hand:
 * block fc00:0000::/32; uSID = plane(4) | role(2: 0 host port, 1 T0, 2 T1) | index + 1,
 * so in plane 0 T0 i = 0x0401 + i, T1 j = 0x0801 + j, host port h = 0x0001 + h, and in
 * plane 1 the same with 0x1000 added. Host addresses come from mrc_srv6_host_addr.
 */
#define T_MAXH 16
#define T_MAXP 2
#define T_PKT 4400

struct t_plan {
	struct mrc_srv6_plan *plan;
	struct mrc_ip6 addr[T_MAXP * T_MAXH];
};

struct t_rx {
	uint32_t host, plane, len, psn;
	uint64_t t;
	uint8_t tc, sl;
	uint8_t da[16];
	uint16_t plen, udp_len;
};

struct t_net {
	struct {
		uint8_t (*pkt)[T_PKT];
		uint32_t len[64];
		unsigned n, next;
	} txq[T_MAXH][T_MAXP];
	uint8_t bufs[T_MAXH][T_MAXP][64][T_PKT];
	struct t_rx rx[512];
	unsigned nrx;
	unsigned status_down, status_up;
	struct mrc_fabric *fab;
	struct mrc_srv6_plan *plan;
	uint8_t rxbuf[32][T_PKT]; /* the first 32 packets received, as received */
};

static void t_setup(struct t_plan *pl, struct mrc_fabric_params *p, unsigned planes, unsigned t0,
	unsigned t1, unsigned hpt)
{
	struct mrc_srv6_params sp;
	unsigned hosts = t0 * hpt;

	mrc_srv6_params_default(&sp);
	sp.planes = planes;
	sp.t0 = t0;
	sp.t1 = t1;
	sp.hosts_per_t0 = hpt;
	pl->plan = NULL;
	mrc_srv6_plan_new(&sp, &pl->plan, NULL, 0);
	memset(p, 0, sizeof(*p));
	mrc_fabric_defaults(p);
	p->plan = pl->plan;
	p->pkt_cap = T_PKT;
	for (unsigned pp = 0; pp < planes && pl->plan; pp++)
		for (unsigned h = 0; h < hosts; h++)
			mrc_srv6_host_addr(pl->plan, pp, h, &pl->addr[pp * hosts + h]);
}

static void t_ip6(uint8_t *h, uint8_t tc, uint32_t flow, uint16_t plen, uint8_t nh,
	const uint8_t *src, const uint8_t *dst)
{
	h[0] = (uint8_t)(0x60 | tc >> 4);
	h[1] = (uint8_t)((tc & 0x0F) << 4 | (flow >> 16 & 0x0F));
	h[2] = (uint8_t)(flow >> 8);
	h[3] = (uint8_t)flow;
	put_be16(h + 4, plen);
	h[6] = nh;
	h[7] = 64;
	memcpy(h + 8, src, 16);
	memcpy(h + 24, dst, 16);
}

/*
 * Hand-built test packet of @total bytes: [outer IPv6 to @outer_da [SRH of @nsegs
 * segments given in travel order, SL @sl]] inner IPv6 / UDP sport->4791 / BTH(@op, @psn).
 * @outer_da NULL = plain (stev) packet. TC = DSCP 0 | ECT(0).
 */
static uint32_t t_build(uint8_t *b, uint32_t total, const uint8_t *outer_da,
	const uint8_t (*segs)[16], unsigned nsegs, unsigned sl, const struct mrc_ip6 *src,
	const struct mrc_ip6 *dst, uint16_t sport, uint8_t op, uint32_t psn)
{
	uint32_t off = 0;

	memset(b, 0, total);
	if (outer_da) {
		t_ip6(b, 2, 0, (uint16_t)(total - 40), nsegs ? 43 : 41, src->b, outer_da);
		off = 40;
		if (nsegs) {
			b[off] = 41;
			b[off + 1] = (uint8_t)(2 * nsegs);
			b[off + 2] = 4;
			b[off + 3] = (uint8_t)sl;
			b[off + 4] = (uint8_t)(nsegs - 1);
			for (unsigned i = 0; i < nsegs; i++) /* RFC 8754: segment[0] is the last */
				memcpy(b + off + 8 + 16 * i, segs[nsegs - 1 - i], 16);
			off += 8 + 16 * nsegs;
		}
	}
	t_ip6(b + off, 2, sport, (uint16_t)(total - off - 40), 17, src->b, dst->b);
	off += 40;
	put_be16(b + off, sport);
	put_be16(b + off + 2, 4791);
	put_be16(b + off + 4, (uint16_t)(total - off));
	off += 8;
	b[off] = op;
	put_be24(b + off + 9, psn);
	return total;
}

static void t_send(struct t_net *n, uint32_t h, unsigned plane, uint32_t len)
{
	n->txq[h][plane].pkt = n->bufs[h][plane];
	n->txq[h][plane].len[n->txq[h][plane].n++] = len;
}

static uint8_t *t_slot(struct t_net *n, uint32_t h, unsigned plane)
{
	return n->bufs[h][plane][n->txq[h][plane].n];
}

static size_t t_tx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g)
{
	struct t_net *n = ctx;
	uint32_t len;

	(void)now;
	(void)g; /* whole packets */
	if (n->txq[host][plane].next == n->txq[host][plane].n)
		return 0;
	len = n->txq[host][plane].len[n->txq[host][plane].next];
	if (len > cap)
		return 0;
	memcpy(buf, n->bufs[host][plane][n->txq[host][plane].next++], len);
	return len;
}

static void t_rx(
	void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_net *n = ctx;
	struct t_rx *r;

	if (n->nrx == 512)
		return;
	if (n->nrx < 32)
		memcpy(n->rxbuf[n->nrx], buf, len < T_PKT ? len : T_PKT);
	r = &n->rx[n->nrx++];
	r->host = host;
	r->plane = plane;
	r->len = (uint32_t)len;
	r->t = now;
	r->tc = ip6_tc(buf);
	memcpy(r->da, buf + 24, 16);
	r->plen = get_be16(buf + 4);
	/* find the BTH the way the fabric does (its parser is tested by the paths here) */
	r->psn = UINT32_MAX;
	{
		static uint8_t copy[sizeof(struct fab_pkt) + T_PKT] __attribute__((aligned(64)));
		struct fab_pkt *q = (struct fab_pkt *)copy;

		memcpy(q->data, buf, len);
		q->len = q->hlen = (uint16_t)len;
		pkt_parse(q);
		if (pkt_bth_off(q))
			r->psn = get_be24(q->data + pkt_bth_off(q) + 9);
		r->sl = pkt_srh_off(q) ? q->data[pkt_srh_off(q) + 3] : 0xFF;
		r->udp_len = pkt_bth_off(q) ? get_be16(q->data + pkt_bth_off(q) - 4) : 0;
	}
}

static void t_status(void *ctx, uint32_t host, unsigned plane, bool up, uint64_t now)
{
	struct t_net *n = ctx;

	(void)host, (void)plane, (void)now;
	if (up)
		n->status_up++;
	else
		n->status_down++;
}

static const struct mrc_fab_host_ops t_ops = {t_rx, t_tx, t_status, NULL};

struct t_tap {
	unsigned n;
	uint8_t da[8][16];
	uint64_t t[8];
};

static void t_tapfn(void *ctx, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_tap *tp = ctx;

	(void)len;
	if (tp->n < 8) {
		memcpy(tp->da[tp->n], buf + 24, 16);
		tp->t[tp->n++] = now;
	}
}

/*
 * A sender (host 0) that gathers, as mrc_ep_tx_gather: a 1000-byte data packet whose
 * 896-byte payload stays in @pay (100 header bytes written), then a 120-byte packet
 * written whole. The receivers record what each rx op hands them.
 */
struct t_gnet {
	uint8_t pkt[1000], ctl[120], pay[896];
	unsigned sent;
	unsigned n_gather, n_rx, n_tap;
	uint8_t hdr[2][128];
	size_t len[2], hlen[2];
	const uint8_t *payload[2];
	uint32_t payload_len[2];
	uint8_t whole[1000], tapped[1000];
};

static size_t t_gtx(void *ctx, uint32_t host, unsigned plane, uint64_t now, uint8_t *buf,
	size_t cap, struct mrc_wire_gather *g)
{
	struct t_gnet *n = ctx;

	(void)now, (void)plane, (void)cap;
	if (host != 0 || n->sent == 2)
		return 0;
	if (n->sent++ == 1) {
		memcpy(buf, n->ctl, sizeof(n->ctl));
		return sizeof(n->ctl);
	}
	memcpy(buf, n->pkt, 100);
	g->hlen = 100;
	g->payload = n->pay;
	g->payload_len = sizeof(n->pay); /* then the 4 ICRC bytes, zeros */
	return sizeof(n->pkt);
}

static void t_grx_gather(void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len,
	const struct mrc_wire_gather *g, uint64_t now)
{
	struct t_gnet *n = ctx;
	unsigned i = n->n_gather++;

	(void)host, (void)plane, (void)now;
	if (i >= 2)
		return;
	memcpy(n->hdr[i], buf, g->hlen < 128 ? g->hlen : 128);
	n->len[i] = len;
	n->hlen[i] = g->hlen;
	n->payload[i] = g->payload;
	n->payload_len[i] = g->payload_len;
}

static void t_grx(
	void *ctx, uint32_t host, unsigned plane, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_gnet *n = ctx;

	(void)host, (void)plane, (void)now;
	if (n->n_rx++ == 0 && len == sizeof(n->whole))
		memcpy(n->whole, buf, len);
}

static void t_gtap(void *ctx, const uint8_t *buf, size_t len, uint64_t now)
{
	struct t_gnet *n = ctx;

	(void)now;
	if (n->n_tap++ == 0 && len == sizeof(n->tapped))
		memcpy(n->tapped, buf, len);
}

/* Starts every host port that has packets queued. */
static void t_go(struct t_net *n, unsigned hosts, unsigned planes)
{
	for (unsigned h = 0; h < hosts; h++)
		for (unsigned p = 0; p < planes; p++)
			if (n->txq[h][p].n)
				mrc_fabric_kick(n->fab, h, p);
}

static int t_hex(const char *s, uint8_t out[16])
{
	return mrc_st_hex(s, out, 16);
}

/* Hosts 0-2 of a 1-T0 plan each send 8 packets of 4200 B to host 3, and start. */
static void t_incast24(struct t_net *n, const struct t_plan *pl)
{
	uint8_t c[16];

	t_hex("fc00 0000 0401 0004 0000 0000 0000 0000", c);
	for (uint32_t h = 0; h < 3; h++)
		for (uint32_t k = 0; k < 8; k++) {
			t_build(t_slot(n, h, 0), 4200, c, NULL, 0, 0, &pl->addr[h], &pl->addr[3],
				(uint16_t)h, 0xC7, h << 8 | k);
			t_send(n, h, 0, 4200);
		}
	t_go(n, 4, 1);
}

static struct t_net *t_net_new(struct mrc_st *st, const struct mrc_fabric_params *p)
{
	struct t_net *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->plan = (struct mrc_srv6_plan *)p->plan;
	ST_EQ_I(st, mrc_fabric_new(p, &t_ops, n, &n->fab), 0);
	if (!n->fab) {
		mrc_srv6_plan_free(n->plan);
		free(n);
		return NULL;
	}
	return n;
}

static void t_net_free(struct t_net *n)
{
	if (!n)
		return;
	mrc_fabric_free(n->fab);
	mrc_srv6_plan_free(n->plan);
	free(n);
}

MRC_SELFTEST(fabric)
{
	struct mrc_fabric_params p;
	struct t_plan pl;
	struct t_net *n;
	uint8_t c[16], want[16];

	mrc_st_case(st, "defaults set every field: a garbage-filled struct gets the default queue");
	{
		struct mrc_sim *sim = NULL;

		/* mrc/run.c built its params on the stack: queue 0x375b5ca2 made the sim spin */
		memset(&p, 0xA5, sizeof(p));
		mrc_fabric_defaults(&p);
		ST_EQ(st, p.simq.queue, MRC_SIMQ_DEFAULT);
		ST_EQ(st, p.simq.tick_bits, 0);
		ST_EQ(st, p.simq.wheel_bits, 0);
		ST_EQ(st, p.pkt_cap, 0);
		ST_TRUE(st, p.plan == NULL);
		ST_EQ(st, mrc_sim_new(&p.simq, &sim), 0);
		mrc_sim_free(sim);
	}

	mrc_st_case(st, "serialization: 4096 B at 100 Gb/s = 327680 ps; 4200 B at 400G = 84000");
	ST_EQ(st, mrc_fab_ser_ps(4096, 100000000000ull), 327680);
	ST_EQ(st, mrc_fab_ser_ps(4200, 400000000000ull), 84000);
	ST_EQ(st, mrc_fab_ser_ps(1, 3), 2666666666667ull); /* rounds up */

	/* 1 plane, 2 T0, 2 T1, 2 hosts per T0: h0 h1 on T0 0, h2 h3 on T0 1 */
	mrc_st_case(st, "uN: the DA after each hop is the container shifted by 16 bits per hop");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct t_tap taps[4] = {0};

		t_hex("fc00 0000 0401 0802 0402 0004 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 1, 0xCA, 7);
		t_send(n, 0, 0, 1000);
		mrc_fabric_tap(n->fab, MRC_FAB_HOST, 0, 0, 0, true, t_tapfn, &taps[0]);
		mrc_fabric_tap(n->fab, MRC_FAB_T0, 0, 0, 2 + 1, true, t_tapfn, &taps[1]);
		mrc_fabric_tap(n->fab, MRC_FAB_T1, 1, 0, 1, true, t_tapfn, &taps[2]);
		mrc_fabric_tap(n->fab, MRC_FAB_T0, 1, 0, 1, true, t_tapfn, &taps[3]);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, taps[0].n, 1);
		ST_EQ_MEM(st, taps[0].da[0], c, 16);
		t_hex("fc00 0000 0802 0402 0004 0000 0000 0000", want);
		ST_EQ(st, taps[1].n, 1);
		ST_EQ_MEM(st, taps[1].da[0], want, 16);
		t_hex("fc00 0000 0402 0004 0000 0000 0000 0000", want);
		ST_EQ(st, taps[2].n, 1);
		ST_EQ_MEM(st, taps[2].da[0], want, 16);
		t_hex("fc00 0000 0004 0000 0000 0000 0000 0000", want);
		ST_EQ(st, taps[3].n, 1);
		ST_EQ_MEM(st, taps[3].da[0], want, 16);
		ST_EQ(st, n->nrx, 1);
		ST_EQ(st, n->rx[0].host, 3);
		ST_EQ(st, n->rx[0].psn, 7);
		ST_EQ_MEM(st, n->rx[0].da, want, 16);
		t_net_free(n);
	}

	mrc_st_case(st, "SRH: an emptied container takes the next segment (SL 1 -> 0)");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		uint8_t segs[2][16];
		struct t_tap tap = {0};

		t_hex("fc00 0000 0401 0000 0000 0000 0000 0000", segs[0]);
		t_hex("fc00 0000 0802 0402 0004 0000 0000 0000", segs[1]);
		t_build(t_slot(n, 0, 0), 1000, segs[0], segs, 2, 1, &pl.addr[0], &pl.addr[3], 1,
			0xCA, 9);
		t_send(n, 0, 0, 1000);
		mrc_fabric_tap(n->fab, MRC_FAB_T0, 0, 0, 2 + 1, true, t_tapfn, &tap);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, tap.n, 1);
		ST_EQ_MEM(st, tap.da[0], segs[1], 16); /* T0 0 swapped in segment[0] */
		ST_EQ(st, n->nrx, 1);
		ST_EQ(st, n->rx[0].host, 3);
		ST_EQ(st, n->rx[0].sl, 0);
		t_hex("fc00 0000 0004 0000 0000 0000 0000 0000", want);
		ST_EQ_MEM(st, n->rx[0].da, want, 16);
		t_net_free(n);
	}

	mrc_st_case(st, "one-way latency on an idle path = sum of serialization, propagation "
			"and switch delays, to the ps");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.host_rate_bps = 100000000000ull;
	p.fabric_rate_bps = 400000000000ull;
	p.host_delay_ps = 500000;
	p.fabric_delay_ps = 1000000;
	p.switch_delay_ps = 300000;
	n = t_net_new(st, &p);
	if (n) {
		t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 4200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 1);
		t_send(n, 0, 0, 4200);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 1);
		/* 2 host links: 2*(4200*80 + 500000); 2 fabric links: 2*(4200*20 + 1000000);
		 * 3 switches: 3*300000 => 1672000 + 2168000 + 900000 */
		ST_EQ(st, n->rx[0].t, 4740000);
		ST_EQ(st, n->rx[0].host, 2);
		t_net_free(n);
	}

	mrc_st_case(st, "link down mid-transfer loses exactly the packets in flight on it");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.fabric_rate_bps = 400000000000ull;
	p.fabric_delay_ps = 1000000;
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_LINK_DOWN,
			.at_ps = 3000000,
			.plane = 0,
			.tier = MRC_FAB_T0,
			.a = 0,
			.b = 1,
			.dir = MRC_FAB_UPWARD};
		struct mrc_fab_port_stats ps = {0};
		size_t nlog;
		const struct mrc_fab_fault_rec *log;

		t_hex("fc00 0000 0401 0802 0402 0003 0000 0000", c);
		for (uint32_t k = 0; k < 10; k++) {
			t_build(t_slot(n, 0, 0), 4200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1,
				0xC7, k);
			t_send(n, 0, 0, 4200);
		}
		ST_EQ_I(st, mrc_fabric_schedule(n->fab, &f), 0);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		/*
		 * Packet k enters T0 0's up port at t_k = (k+1)*336000 + 500000 + 300000 and is
		 * on the fabric link until t_k + 84000 + 1000000. Down at 3000000: k = 0..2
		 * arrived, k = 3..5 in flight (lost), k = 6..9 reach a down port (dropped).
		 */
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &ps);
		ST_EQ(st, ps.tx_pkts, 6);
		ST_EQ(st, ps.lost, 3);
		ST_EQ(st, ps.down_drops, 4);
		ST_EQ(st, n->nrx, 3);
		for (unsigned i = 0; i < n->nrx && i < 3; i++)
			ST_EQ(st, n->rx[i].psn, i);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 1);
		if (nlog == 1) {
			ST_EQ(st, log[0].at_ps, 3000000);
			ST_EQ_STR(st, log[0].target, "p0.t0.0-p0.t1.1 up");
		}
		t_net_free(n);
	}

	mrc_st_case(st, "C11 trimmed packet shape: 1504 B with SRH cut to 256 B: payload length "
			"216, UDP length unchanged, DSCP trimmed class, control priority");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct fab_pkt *q = pkt_alloc(n->fab, 1504);
		uint8_t segs[2][16];

		t_hex("fc00 0000 0401 0000 0000 0000 0000 0000", segs[0]);
		t_hex("fc00 0000 0802 0402 0004 0000 0000 0000", segs[1]);
		q->len = q->hlen = (uint16_t)t_build(
			q->data, 1504, segs[0], segs, 2, 1, &pl.addr[0], &pl.addr[3], 1, 0xC6, 1);
		pkt_parse(q);
		ST_EQ(st, pkt_srh_off(q), 40);
		ST_EQ(st, pkt_inner_off(q), 40 + 8 + 32);
		ST_EQ(st, pkt_bth_off(q), 40 + 8 + 32 + 40 + 8);
		ST_EQ(st, q->flags & PK_CTRL, 0);
		ST_TRUE(st, trim_pkt(n->fab, &q, false));
		ST_EQ(st, q->len, 256);
		ST_EQ(st, q->cls, 35); /* moved to the smaller slot: 32 + 256 = 36 x 8 bytes */
		ST_EQ(st, get_be16(q->data + 4), 216);
		/* UDP length = 1504 - 40 outer - 40 SRH - 40 inner = 1384 */
		ST_EQ(st, get_be16(q->data + 120 + 4), 1384);
		ST_EQ(st, ip6_tc(q->data) >> 2, 12);
		/* inner IPv6 as sent: 1504 - 40 - 40 - 40 = 1384 */
		ST_EQ(st, get_be16(q->data + 80 + 4), 1384);
		ST_EQ(st, ip6_tc(q->data) & 3, 2); /* ECN kept */
		ST_EQ(st, q->flags & PK_CTRL, PK_CTRL);
		ST_EQ(st, q->data[40 + 3], 1); /* SRH intact: SL as at the trim point */
		t_net_free(n);
	}

	mrc_st_case(st, "header offsets kept as one: SRH at 40, inner IPv6 and BTH after it, "
			"in each shape the parser knows");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct fab_pkt *q = pkt_alloc(n->fab, 512);
		uint8_t segs[3][16];

		memset(segs, 0, sizeof(segs));
		t_hex("fc00 0000 0401 0000 0000 0000 0000 0000", segs[0]);
		ST_TRUE(st, q != NULL);
		if (q) {
			/* outer + SRH of 3 segments (8 + 48) + inner + UDP: BTH at 40+56+40+8 */
			q->len = q->hlen = (uint16_t)t_build(q->data, 512, segs[0], segs, 3, 2,
				&pl.addr[0], &pl.addr[3], 1, MRC_OP_ACK, 1);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q), 40);
			ST_EQ(st, pkt_inner_off(q), 96);
			ST_EQ(st, pkt_bth_off(q), 144);
			ST_EQ(st, q->flags & (PK_CTRL | PK_BAD), PK_CTRL); /* ACK */
			/* the same with the SRH's next header UDP and the inner IPv6 cut out:
			 * BTH at 40 + 56 + 8 */
			q->data[40] = 17;
			memmove(q->data + 96, q->data + 136, 512 - 136);
			q->len = q->hlen = 512 - 40;
			put_be16(q->data + 4, 512 - 40 - 40);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q), 40);
			ST_EQ(st, pkt_inner_off(q), 0);
			ST_EQ(st, pkt_bth_off(q), 104);
			ST_EQ(st, q->data[pkt_bth_off(q)], MRC_OP_ACK);
			/* outer + inner, no SRH: inner at 40, BTH at 88 */
			q->len = q->hlen = (uint16_t)t_build(q->data, 512, segs[0], segs, 0, 0,
				&pl.addr[0], &pl.addr[3], 1, MRC_OP_WRITE_ONLY, 1);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q), 0);
			ST_EQ(st, pkt_inner_off(q), 40);
			ST_EQ(st, pkt_bth_off(q), 88);
			ST_EQ(st, q->flags & PK_CTRL, 0);
			/* another UDP port: not MRC, the inner IPv6 still found */
			put_be16(q->data + 80 + 2, 4792);
			pkt_parse(q);
			ST_EQ(st, pkt_inner_off(q), 40);
			ST_EQ(st, pkt_bth_off(q), 0);
			/* plain IPv6 + UDP: BTH at 48 */
			q->len = q->hlen = (uint16_t)t_build(q->data, 512, NULL, segs, 0, 0,
				&pl.addr[0], &pl.addr[3], 1, MRC_OP_WRITE_ONLY, 1);
			pkt_parse(q);
			ST_EQ(st, pkt_srh_off(q) + pkt_inner_off(q), 0);
			ST_EQ(st, pkt_bth_off(q), 48);
			pkt_free(n->fab, q);
		}
		t_net_free(n);
	}

	mrc_st_case(st, "a gathered packet: laid out, finished, trimmed and forgotten exactly as "
			"the same packet written whole");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.csum_offload = true;
	p.trim_bytes = 256;
	n = t_net_new(st, &p);
	if (n) {
		static uint8_t whole[MRC_PKT_MAX], sent[MRC_PKT_MAX], pay[2000], hdr[512];
		struct mrc_wire_cfg cfg;
		struct mrc_wire_gather g;
		struct mrc_pkt mp;
		struct fab_pkt *q = NULL, *w = pkt_alloc(n->fab, T_PKT);
		int len = -1;

		mrc_wire_cfg_default(&cfg);
		for (unsigned i = 0; i < sizeof(pay); i++)
			pay[i] = (uint8_t)(i * 7 + 1);
		/* the first sample with a payload, given ours (1999 B: three pad bytes) */
		for (int i = 0; i < mrc_wire_sample_count(&cfg) && len < 0; i++) {
			ST_EQ(st, mrc_wire_sample_pkt((unsigned)i, &cfg, &mp), 0);
			if (!mp.payload_len)
				continue;
			mp.payload = pay;
			mp.payload_len = 1999;
			len = mrc_wire_encode(&cfg, &mp, sent, sizeof(sent)); /* checksums computed */
			cfg.csum_offload = true;
			ST_EQ_I(st, mrc_wire_encode(&cfg, &mp, whole, sizeof(whole)), len);
			ST_EQ_I(st, mrc_wire_encode_gather(&cfg, &mp, hdr, 512, &g), len);
		}
		/* the headers in the pool's slot of their size, as nic_pull keeps them */
		if (len > 2000) {
			q = pkt_alloc(n->fab, g.hlen);
			/* 8-byte steps: the slot is the 32 + hlen bytes rounded up to 8 */
			ST_TRUE(st, q && g.hlen + 32 <= 8u * (q->cls + 1u) &&
					g.hlen + 32 > 8u * q->cls);
			if (q)
				memcpy(q->data, hdr, g.hlen);
		}
		ST_TRUE(st, len > 2000 && q && w);
		if (len > 2000 && q && w) {
			q->len = (uint16_t)len;
			q->hlen = (uint16_t)g.hlen;
			q->pay = g.payload;
			q->pay_len = (uint16_t)g.payload_len;
			pkt_parse(q);
			ST_EQ_MEM(st, pkt_bytes(n->fab, q), whole, (size_t)len); /* zero sums */
			finish_csum(n->fab, q);
			ST_EQ(st, q->flags & PK_ICRC, PK_ICRC);
			ST_EQ_MEM(st, pkt_bytes(n->fab, q), sent, (size_t)len);
			/* trimmed: the same 256 bytes as the whole packet trimmed */
			memcpy(w->data, sent, (size_t)len);
			w->len = w->hlen = (uint16_t)len;
			w->pay = NULL;
			w->pay_len = 0;
			pkt_parse(w);
			ST_TRUE(st, trim_pkt(n->fab, &w, true));
			ST_TRUE(st, trim_pkt(n->fab, &q, true));
			ST_EQ(st, q->cls, 35); /* moved: 32 + 256 bytes need a 288-byte slot */
			ST_EQ(st, q->len, 256);
			ST_EQ(st, q->hlen, 256);
			ST_EQ(st, q->len, w->len);
			ST_EQ_MEM(st, q->data, w->data, 256);
			/* forgotten: the payload reads as zeros, the headers stay */
			q->len = (uint16_t)len;
			q->hlen = (uint16_t)g.hlen;
			q->pay = pay;
			q->pay_len = (uint16_t)g.payload_len;
			q->flags = 0;
			memcpy(q->data, whole, g.hlen);
			mrc_fabric_forget_payloads(n->fab);
			ST_TRUE(st, q->pay == NULL);
			memset(whole + g.hlen, 0, g.payload_len);
			ST_EQ_MEM(st, pkt_bytes(n->fab, q), whole, (size_t)len);
		}
		t_net_free(n);
	}

	mrc_st_case(st, "rx_gather: headers and the sender's payload pointer, never laid out; "
			"rx alone: laid out; the tap sees the packet whole");
	for (int with_gather = 1; with_gather >= 0; with_gather--) {
		static const struct mrc_fab_host_ops gops[2] = {
			{t_grx, t_gtx, NULL, NULL}, {t_grx, t_gtx, NULL, t_grx_gather}};
		static struct t_gnet gn;
		struct mrc_fabric *fab = NULL;
		uint8_t da1[16], tail0[4] = {0};

		/* 1 plane, 1 T0, 1 T1, 2 hosts: host 0 to host 1 through T0 0 (uSID 0401) */
		t_setup(&pl, &p, 1, 1, 1, 2);
		memset(&gn, 0, sizeof(gn));
		for (unsigned i = 0; i < sizeof(gn.pay); i++)
			gn.pay[i] = (uint8_t)(i * 5 + 3);
		t_hex("fc00 0000 0401 0002 0000 0000 0000 0000", c);
		t_hex("fc00 0000 0002 0000 0000 0000 0000 0000", da1); /* after T0's shift */
		t_build(gn.pkt, 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[1], 9, 0xC7, 5);
		t_build(gn.ctl, 120, c, NULL, 0, 0, &pl.addr[0], &pl.addr[1], 9, 0xDC, 6);
		ST_EQ_I(st, mrc_fabric_new(&p, &gops[with_gather], &gn, &fab), 0);
		if (!fab) {
			mrc_srv6_plan_free(pl.plan);
			continue;
		}
		ST_EQ_I(st, mrc_fabric_tap(fab, MRC_FAB_HOST, 1, 0, 0, false, t_gtap, &gn), 0);
		mrc_fabric_kick(fab, 0, 0);
		mrc_sim_run(mrc_fabric_sim(fab), MRC_SIM_NEVER);
		/* the tap: 100 header bytes, the payload, 4 zero bytes (no checksum offload) */
		ST_EQ(st, gn.n_tap, 2);
		ST_EQ_MEM(st, gn.tapped + 40, gn.pkt + 40, 60);
		ST_EQ_MEM(st, gn.tapped + 100, gn.pay, sizeof(gn.pay));
		ST_EQ_MEM(st, gn.tapped + 996, tail0, 4);
		if (with_gather) {
			ST_EQ(st, gn.n_rx, 0);
			ST_EQ(st, gn.n_gather, 2);
			ST_EQ(st, gn.len[0], 1000);
			ST_EQ(st, gn.hlen[0], 100);
			ST_TRUE(st, gn.payload[0] == gn.pay); /* the sender's bytes, not a copy */
			ST_EQ(st, gn.payload_len[0], 896);
			ST_EQ_MEM(st, gn.hdr[0] + 24, da1, 16); /* the switch's edit is there */
			ST_EQ_MEM(st, gn.hdr[0] + 40, gn.pkt + 40, 60);
			ST_EQ(st, gn.len[1], 120); /* written whole: whole */
			ST_EQ(st, gn.hlen[1], 120);
			ST_TRUE(st, gn.payload[1] == NULL);
			ST_EQ(st, gn.payload_len[1], 0);
			ST_EQ_MEM(st, gn.hdr[1] + 40, gn.ctl + 40, 80);
		} else {
			ST_EQ(st, gn.n_rx, 2);
			ST_EQ(st, gn.n_gather, 0);
			ST_EQ_MEM(st, gn.whole + 24, da1, 16);
			ST_EQ_MEM(st, gn.whole + 40, gn.pkt + 40, 60);
			ST_EQ_MEM(st, gn.whole + 100, gn.pay, sizeof(gn.pay));
			ST_EQ_MEM(st, gn.whole + 996, tail0, 4);
		}
		mrc_fabric_free(fab);
		mrc_srv6_plan_free(pl.plan);
	}

	mrc_st_case(st, "a layout after one 4 bytes shorter, whose ICRC overlaps its pad: "
			"pad zero");
	t_setup(&pl, &p, 1, 2, 2, 2);
	p.csum_offload = true;
	n = t_net_new(st, &p);
	if (n) {
		static uint8_t pay[1001];
		struct fab_pkt *a = pkt_alloc(n->fab, 64), *b = pkt_alloc(n->fab, 64);
		const uint8_t *o;

		memset(pay, 0x11, sizeof(pay));
		ST_TRUE(st, a && b);
		if (a && b) {
			/* A: 64 header bytes, 1000 payload bytes, its ICRC at 1064..1067 */
			memset(a->data, 0x22, 64);
			a->hlen = 64, a->pay = pay, a->pay_len = 1000, a->len = 1068;
			a->flags = PK_ICRC, a->icrc = 0xAABBCCDD;
			o = pkt_bytes(n->fab, a);
			ST_EQ(st, o[1064], 0xDD);
			/* B: 1001 payload bytes, pad 1065..1067, ICRC (not computed) 1068..1071 */
			*b = *a;
			b->pay_len = 1001, b->len = 1072, b->flags = 0;
			memcpy(b->data, a->data, 64);
			o = pkt_bytes(n->fab, b);
			ST_EQ(st, o[1064], 0x11);
			for (int i = 1065; i < 1072; i++)
				ST_EQ(st, o[i], 0);
			pkt_free(n->fab, a);
			pkt_free(n->fab, b);
		}
		t_net_free(n);
	}

	mrc_st_case(st, "incast with a tiny buffer: trims at the last hop, no drops while the "
			"control class has room");
	t_setup(&pl, &p, 1, 1, 1, 4);
	p.buffer_bytes = 10000;
	p.ctrl_buffer_bytes = 64 << 10;
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats ps = {0};
		unsigned trimmed = 0, full = 0, bad = 0;

		t_incast24(n, &pl);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &ps);
		ST_EQ(st, ps.drops, 0);
		ST_TRUE(st, ps.trims > 0);
		ST_EQ(st, n->nrx, 24);
		for (unsigned i = 0; i < n->nrx; i++) {
			if (n->rx[i].len == 256 && n->rx[i].tc >> 2 == 13 && n->rx[i].plen == 216 &&
				n->rx[i].udp_len == 4200 - 80)
				trimmed++;
			else if (n->rx[i].len == 4200 && n->rx[i].tc >> 2 == 0)
				full++;
			else
				bad++;
		}
		ST_EQ(st, trimmed, ps.trims);
		ST_EQ(st, trimmed + full, 24);
		ST_EQ(st, bad, 0);
		t_net_free(n);
	}

	mrc_st_case(st, "release_pool mid-incast: queued and travelling packets freed, counters "
			"kept, the loop run again delivers and pulls nothing");
	t_setup(&pl, &p, 1, 1, 1, 4);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats before = {0}, after = {0};
		struct mrc_fab_stats fs0, fs1;
		unsigned nrx;

		t_incast24(n, &pl);
		/* 24 x 4200 B into one 100G last hop: 336 ns each, 8 us for all; at 3 us some
		 * are delivered, the rest queued at T0 port 3 or on the host links */
		mrc_sim_run(mrc_fabric_sim(n->fab), 3000000);
		nrx = n->nrx;
		ST_TRUE(st, nrx > 0 && nrx < 24);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &before);
		mrc_fabric_stats(n->fab, &fs0);
		mrc_fabric_release_pool(n->fab);
		/* host 0's NIC would pull its ninth packet now: a closed fabric pulls nothing */
		t_build(t_slot(n, 0, 0), 4200, c, NULL, 0, 0, &pl.addr[0], &pl.addr[3], 0, 0xC7, 8);
		t_send(n, 0, 0, 4200);
		t_go(n, 1, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->txq[0][0].next, 8);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &after);
		mrc_fabric_stats(n->fab, &fs1);
		ST_EQ(st, n->nrx, nrx);
		ST_EQ(st, fs1.delivered, fs0.delivered);
		ST_EQ(st, fs1.delivered, nrx);
		ST_EQ(st, after.tx_pkts, before.tx_pkts);
		ST_EQ(st, fs1.pkts_alloc, fs0.pkts_alloc); /* a high-water mark: kept */
		t_net_free(n);
	}

	for (int lasthop = 0; lasthop < 2; lasthop++) {
		mrc_st_case(st,
			"ECN: 2-to-1 incast at the last hop, threshold 5000 B, "
			"ecn_lasthop=%d: %s",
			lasthop, lasthop ? "9 marks" : "no marks");
		t_setup(&pl, &p, 1, 1, 1, 3);
		p.ecn_threshold_bytes = 5000;
		p.ecn_lasthop = lasthop;
		p.buffer_bytes = 1 << 20;
		n = t_net_new(st, &p);
		if (n) {
			struct mrc_fab_port_stats ps = {0};
			unsigned ce = 0;

			t_hex("fc00 0000 0401 0003 0000 0000 0000 0000", c);
			for (uint32_t h = 0; h < 2; h++)
				for (uint32_t k = 0; k < 6; k++) {
					t_build(t_slot(n, h, 0), 4200, c, NULL, 0, 0, &pl.addr[h],
						&pl.addr[2], 1, 0xC7, k);
					t_send(n, h, 0, 4200);
				}
			t_go(n, 3, 1);
			mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
			mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &ps);
			/*
			 * Pairs arrive every 336000 ps while the port drains one packet per 336000
			 * ps. Before pair k (k >= 1) k packets wait: the first of the pair sees
			 * k*4200 B, the second (k+1)*4200 B; marked when > 5000: k=1 one, k=2..5
			 * two each = 9. Peak backlog: 5 waiting + 2 = 7 packets = 29400 B.
			 */
			ST_EQ(st, ps.max_queue_bytes, 29400);
			ST_EQ(st, ps.ecn_marks, lasthop ? 9 : 0);
			for (unsigned i = 0; i < n->nrx; i++)
				ce += (n->rx[i].tc & 3) == 3;
			ST_EQ(st, ce, lasthop ? 9 : 0);
			ST_EQ(st, n->nrx, 12);
			t_net_free(n);
		}
	}

	mrc_st_case(st, "ECN marks above the threshold on a T0 up port (2 flows into one T1)");
	t_setup(&pl, &p, 1, 2, 1, 2);
	p.ecn_threshold_bytes = 5000;
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats up = {0}, last0 = {0}, last1 = {0};
		unsigned ce = 0;

		for (uint32_t h = 0; h < 2; h++) {
			t_hex(h ? "fc00 0000 0401 0801 0402 0004 0000 0000"
				: "fc00 0000 0401 0801 0402 0003 0000 0000",
				c);
			for (uint32_t k = 0; k < 6; k++) {
				t_build(t_slot(n, h, 0), 4200, c, NULL, 0, 0, &pl.addr[h],
					&pl.addr[2 + h], 1, 0xC7, k);
				t_send(n, h, 0, 4200);
			}
		}
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &up);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 1, 0, 0, &last0);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 1, 0, 1, &last1);
		ST_EQ(st, up.ecn_marks, 9); /* same arithmetic as the last-hop case */
		ST_EQ(st, last0.ecn_marks + last1.ecn_marks, 0);
		for (unsigned i = 0; i < n->nrx; i++)
			ce += (n->rx[i].tc & 3) == 3;
		ST_EQ(st, ce, 9);
		t_net_free(n);
	}

	mrc_st_case(st, "mrc/wire packets survive the fabric: after uN shifts, hop limit, CE marks "
			"and trims they decode OK (trimmed ones as trimmed, C11)");
	t_setup(&pl, &p, 1, 2, 1, 2);
	p.buffer_bytes = 10000;	      /* two ~4.2 KB packets wait; a third is trimmed */
	p.ecn_threshold_bytes = 3000; /* one waiting packet is enough to mark */
	n = t_net_new(st, &p);
	if (n) {
		static uint8_t payload[4096];
		struct mrc_wire_cfg wc;
		struct mrc_fab_port_stats up = {0};
		unsigned ok = 0, trimmed = 0, ce = 0, bad = 0;

		mrc_wire_cfg_default(&wc);
		for (uint32_t h = 0; h < 2; h++) {
			for (uint32_t k = 0; k < 8; k++) {
				struct mrc_pkt wp;
				int len;

				memset(&wp, 0, sizeof(wp));
				t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", wp.outer_dst.b);
				wp.outer_src = pl.addr[h];
				wp.ecn = 2;
				wp.src = pl.addr[h];
				wp.dst = pl.addr[2];
				wp.ev = 0x0000C000 | h;
				wp.opcode = MRC_OP_WRITE_MIDDLE;
				wp.dest_qp = 17;
				wp.psn = h << 8 | k;
				wp.va = 0x10000 + 4096ull * k;
				wp.rkey = 5;
				wp.dma_len = 8 * 4096;
				wp.payload = payload;
				wp.payload_len = sizeof(payload);
				len = mrc_wire_encode(&wc, &wp, t_slot(n, h, 0), T_PKT);
				ST_TRUE(st, len > 4096);
				if (len > 0)
					t_send(n, h, 0, (uint32_t)len);
			}
		}
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &up);
		ST_TRUE(st, up.trims > 0);
		ST_TRUE(st, up.ecn_marks > 0);
		ST_EQ(st, n->nrx, 16);
		for (unsigned i = 0; i < n->nrx; i++) {
			struct mrc_pkt d;
			int rc = mrc_wire_decode(&wc, n->rxbuf[i], n->rx[i].len, true, &d);

			if (rc != MRC_WIRE_OK || d.psn != n->rx[i].psn) {
				bad++;
				continue;
			}
			ok++;
			if (d.trimmed && d.dscp == 12)
				trimmed++;
			ce += d.ecn == 3;
		}
		ST_EQ(st, bad, 0);
		ST_EQ(st, ok, 16);
		ST_EQ(st, trimmed, up.trims);
		ST_EQ(st, ce, up.ecn_marks);
		t_net_free(n);
	}

	mrc_st_case(st, "flapping: period 10 us, duty 0.7 from 1 us until 32 us");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_FLAP,
			.at_ps = 1000000,
			.plane = 0,
			.tier = MRC_FAB_T0,
			.a = 1,
			.b = 0,
			.period_ps = 10000000,
			.duty = 0.7,
			.until_ps = 32000000};
		/* down for 0.7 x 10 us of each period: 1-8, 11-18, 21-28, 31-32 (until) */
		static const uint64_t want_t[] = {1, 1, 8, 11, 18, 21, 28, 31, 32};
		static const enum mrc_fab_fault_kind want_k[] = {MRC_FAB_FLAP, MRC_FAB_LINK_DOWN,
			MRC_FAB_LINK_UP, MRC_FAB_LINK_DOWN, MRC_FAB_LINK_UP, MRC_FAB_LINK_DOWN,
			MRC_FAB_LINK_UP, MRC_FAB_LINK_DOWN, MRC_FAB_LINK_UP};
		const struct mrc_fab_fault_rec *log;
		size_t nlog;

		ST_EQ_I(st, mrc_fabric_schedule(n->fab, &f), 0);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 9);
		for (size_t i = 0; i < nlog && i < 9; i++) {
			ST_EQ(st, log[i].at_ps, want_t[i] * 1000000);
			ST_EQ(st, log[i].kind, want_k[i]);
		}
		if (nlog)
			ST_EQ_STR(st, log[0].target, "p0.t0.1-p0.t1.0");
		t_net_free(n);
	}

	mrc_st_case(st, "blackholed route: the packet is dropped and counted as no route");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_BLACKHOLE,
			.plane = 0,
			.tier = MRC_FAB_T1,
			.a = 1,
			.usid = 0x0402};
		struct mrc_fab_switch_stats ss = {0};

		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), 0);
		f.usid = 0x1999;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), -ENOENT);
		t_hex("fc00 0000 0401 0802 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 1);
		t_send(n, 0, 0, 1000);
		t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 2);
		t_send(n, 0, 0, 1000);
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_switch_stats(n->fab, MRC_FAB_T1, 1, 0, &ss);
		ST_EQ(st, ss.no_route, 1);
		ST_EQ(st, n->nrx, 1);
		ST_EQ(st, n->rx[0].psn, 2);
		t_net_free(n);
	}

	mrc_st_case(st, "an up of what is not down, an unblackhole of a route there: logged noop");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		/* in order: T1 1's route to 0x0402 blackholed, restored, restored again; link
		 * T0 0-T1 1 up (never down), down upward, up both ways; T1 0 up; h0.p0 up */
		struct mrc_fab_fault bh = {.kind = MRC_FAB_BLACKHOLE, .tier = MRC_FAB_T1, .a = 1,
			.usid = 0x0402};
		struct mrc_fab_fault l = {.kind = MRC_FAB_LINK_UP, .tier = MRC_FAB_T0, .a = 0,
			.b = 1};
		struct mrc_fab_fault sw = {.kind = MRC_FAB_SWITCH_UP, .tier = MRC_FAB_T1};
		struct mrc_fab_fault nic = {.kind = MRC_FAB_NIC_UP};
		static const bool want_noop[] = {
			false, false, true, true, false, false, true, true};
		const struct mrc_fab_fault_rec *log;
		size_t nlog = 0;

		ST_EQ_I(st, mrc_fabric_apply(n->fab, &bh, 0), 0);
		bh.kind = MRC_FAB_UNBLACKHOLE;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &bh, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &bh, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &l, 0), 0);
		l.kind = MRC_FAB_LINK_DOWN;
		l.dir = MRC_FAB_UPWARD;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &l, 0), 0);
		l.kind = MRC_FAB_LINK_UP;
		l.dir = MRC_FAB_BOTH;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &l, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &sw, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &nic, 0), 0);
		ST_EQ(st, n->status_up, 0); /* the host is told nothing: nothing changed */
		log = mrc_fabric_fault_log(n->fab, &nlog);
		ST_EQ(st, nlog, 8);
		for (size_t i = 0; i < nlog && i < 8; i++)
			ST_EQ(st, log[i].noop, want_noop[i]);
		t_net_free(n);
	}

	mrc_st_case(st, "ECMP for plain packets: 64 flows over 2 T1s, each flow on one T1");
	t_setup(&pl, &p, 1, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_port_stats a = {0}, b = {0};

		for (uint32_t k = 0; k < 64; k++) {
			t_build(t_slot(n, 0, 0), 500, NULL, NULL, 0, 0, &pl.addr[0], &pl.addr[3],
				(uint16_t)(49152 + k / 2), 0xCA, k);
			t_send(n, 0, 0, 500);
		}
		t_go(n, 4, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 2, &a);
		mrc_fabric_port_stats(n->fab, MRC_FAB_T0, 0, 0, 3, &b);
		ST_EQ(st, a.tx_pkts + b.tx_pkts, 64);
		ST_TRUE(st, a.tx_pkts >= 8 && b.tx_pkts >= 8);
		ST_EQ(st, a.tx_pkts % 2, 0); /* flows are packet pairs: never split */
		ST_EQ(st, n->nrx, 64);
		t_net_free(n);
	}

	mrc_st_case(st, "NIC port down: host told, its link carries nothing; switch down drops");
	t_setup(&pl, &p, 2, 2, 2, 2);
	n = t_net_new(st, &p);
	if (n) {
		struct mrc_fab_fault f = {.kind = MRC_FAB_NIC_DOWN, .plane = 1, .a = 0};
		struct mrc_fab_fault s = {
			.kind = MRC_FAB_SWITCH_DOWN, .plane = 0, .tier = MRC_FAB_T1, .a = 0};
		struct mrc_fab_switch_stats ss = {0};

		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, 0), 0);
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &s, 0), 0);
		ST_EQ(st, n->status_down, 1);
		t_hex("fc00 0000 1401 1802 1402 1003 0000 0000", c);
		t_build(t_slot(n, 0, 1), 1000, c, NULL, 0, 0, &pl.addr[4], &pl.addr[6], 1, 0xCA, 1);
		t_send(n, 0, 1, 1000);
		t_go(n, 4, 2);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 0);
		f.kind = MRC_FAB_NIC_UP;
		ST_EQ_I(st, mrc_fabric_apply(n->fab, &f, mrc_sim_now(mrc_fabric_sim(n->fab))), 0);
		ST_EQ(st, n->status_up, 1);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 1);
		/* through the dead T1 0 of plane 0: dropped at T0 0 (port to a down switch) */
		t_hex("fc00 0000 0401 0801 0402 0003 0000 0000", c);
		t_build(t_slot(n, 0, 0), 1000, c, NULL, 0, 0, &pl.addr[0], &pl.addr[2], 1, 0xCA, 2);
		t_send(n, 0, 0, 1000);
		t_go(n, 4, 2);
		mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
		ST_EQ(st, n->nrx, 1);
		mrc_fabric_switch_stats(n->fab, MRC_FAB_T1, 0, 0, &ss);
		ST_EQ(st, ss.rx_pkts, 0);
		t_net_free(n);
	}

	mrc_st_case(st, "determinism: same seed, same counters and arrivals; another seed differs");
	{
		uint64_t sig[3] = {0};
		static const uint64_t seeds[3] = {5, 5, 6};

		for (int run = 0; run < 3; run++) {
			t_setup(&pl, &p, 1, 2, 2, 2);
			p.seed = seeds[run];
			p.buffer_bytes = 20000;
			n = t_net_new(st, &p);
			if (!n)
				break;
			struct mrc_fab_fault f = {.kind = MRC_FAB_LOSS,
				.plane = 0,
				.tier = MRC_FAB_T0,
				.a = 0,
				.b = 1,
				.loss_rate = 0.3};
			struct mrc_fab_port_stats tot = {0};

			mrc_fabric_apply(n->fab, &f, 0);
			for (uint32_t h = 0; h < 2; h++) {
				t_hex("fc00 0000 0401 0802 0402 0003 0000 0000", c);
				for (uint32_t k = 0; k < 30; k++) {
					t_build(t_slot(n, h, 0), 4200, c, NULL, 0, 0, &pl.addr[h],
						&pl.addr[2], 1, 0xC7, h << 8 | k);
					t_send(n, h, 0, 4200);
				}
			}
			t_go(n, 4, 1);
			mrc_sim_run(mrc_fabric_sim(n->fab), MRC_SIM_NEVER);
			mrc_fabric_port_totals(n->fab, &tot);
			sig[run] = tot.tx_pkts * 1000003 ^ tot.lost * 7919 ^ tot.trims * 31 ^
				   tot.drops;
			for (unsigned i = 0; i < n->nrx; i++)
				sig[run] =
					sig[run] * 1099511628211ull ^ (n->rx[i].t + n->rx[i].psn);
			if (run == 0)
				ST_TRUE(st, tot.lost > 0 && tot.lost < 60);
			t_net_free(n);
		}
		ST_EQ(st, sig[0], sig[1]);
		ST_TRUE(st, sig[0] != sig[2]);
	}
}
