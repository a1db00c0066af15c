/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * qp: MRC requester and responder state machines — docs/wire-format.md "What MRC is", "Opcodes",
 * "Control headers", "Path (EV) states"; PSNs in 24-bit serial arithmetic (C10).
 */
#include "mrc/engine/qp.h"
#include "mrc/base/bytes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	TX_SENT = 0x01,	    /* transmitted at least once */
	TX_ACKED = 0x02,    /* acknowledged: never sent again (C11) */
	TX_QUEUED = 0x04,   /* waiting in the retransmit queue */
	TX_INFLIGHT = 0x08, /* counted in inflight bytes */
	TX_TLP = 0x10,	    /* queued, or last resent, as the tail loss probe */
	TX_CAND = 0x20,	    /* infer_losses: to be judged (set and cleared there) */
	TX_MULTI = 0x40,    /* transmitted more than once: prev_ev holds the one before */
	TX_SHORT = 0x80,    /* its message's last packet, shorter than the MTU (or empty) */
};

/*
 * One PSN of the requester's window, 16 bytes: the send ring of a QP at line rate is most
 * of its memory (job-perm128: 512 PSNs). What can be worked out is not kept: its message
 * (ent_wqe: the messages sent hold consecutive PSNs), its payload length (the MTU but for
 * a TX_SHORT last packet: ent_len), the plane (its EV's), the offset in the message
 * ((psn - first_psn) * mtu). EV indexes have 16 bits (mrc_qp_new refuses larger profiles;
 * the config allows 65536 EVs). sent_ps keeps the low 56 bits of the send time, txseq the
 * low 32 bits of the send counter: ent_sent() and txseq_full() restore them.
 */
struct txent {
	uint64_t sent_ps : 56; /* time of the latest transmission, low 56 bits */
	uint64_t flags : 8;    /* TX_* */
	uint32_t txseq;	       /* send order of the latest transmission, low 32 bits */
	uint16_t ev;	       /* EV index of the latest transmission */
	uint16_t prev_ev;      /* of the one before it (TX_MULTI) */
};

_Static_assert(sizeof(struct txent) == 16, "a send ring entry is 16 bytes");

#define TXENT_EV_LIMIT 65536u /* EVs a profile may have: their indexes fit ev */
#define TXENT_SENT_MASK ((1ull << 56) - 1)

/*
 * One transmission in the send log, 8 bytes: txseq is the low 32 bits of the send
 * counter (ent_txseq() restores the rest). It is live while its PSN is unacknowledged and
 * this is the PSN's latest transmission (the txent's txseq is still this one).
 */
struct sendrec {
	uint32_t txseq;
	uint32_t psn;
};

/* One posted message (send work request). */
struct wqe {
	const uint8_t *local;
	uint64_t va, wr_id;
	uint32_t len, rkey, imm;
	bool with_imm;
	uint16_t msn;
	uint32_t first_psn, npkts, next_pkt, acked;
};

/* Responder view of one message, indexed by MSN. */
struct rxmsg {
	bool seen, has_imm;
	uint32_t dma_len, imm;
	uint64_t got;
};

/*
 * The counters of struct mrc_qp_stats most QPs count: every packet's, and those of the
 * losses and tail probes a loss-free all-to-all still has. rx_payload_bytes and
 * placed_bytes are the QP's rcvd_bytes; rx_lost is computed when read.
 */
struct qp_hot {
	uint64_t msgs_posted, msgs_done, data_pkts, data_bytes, rtx_pkts, rtx_bytes;
	uint64_t sack_rx, ecn_echo_rx, loss_sack, tlp;
	uint64_t rtt_samples, rtt_sum_ps, rtt_min_ps, rtt_max_ps;
	uint64_t rx_data_pkts, rx_unique, rx_dup, rx_reordered, rx_ce, sack_tx, msgs_delivered;
};

/* The others (NACKs, probes, timeouts, port status, RoCE, errors): made on first need. */
struct qp_rare {
	uint64_t sack_stale, nack_rx[MRC_NI_COUNT], nack_stale, probes_tx, probes_ok;
	uint64_t loss_rto, loss_port, loss_path, rto_events;
	uint64_t rx_oor, rx_trimmed, rx_access_err, rx_msn_oor;
	uint64_t nack_tx[MRC_NI_COUNT], probes_rx, rx_ignored;
	uint64_t rx_out_of_seq, seq_nak_tx, seq_nak_rx, gbn_rewinds;
	uint64_t port_status_rx;
	uint64_t probe_ans_unmatched;
};

/*
 * Laid out by use: what every transmission and arrival reads first (the first two cache
 * lines: state checks, the send window and rings), then the rest of the requester, CC
 * and EV state, the responder, timers; counters and the failure reason last.
 */
struct mrc_qp {
	const struct mrc_qp_env *env; /* the endpoint's, shared by its QPs */
	bool failed;
	bool roce;	    /* RoCE mode (qp.h): the one plane and EV index below */
	bool refused_all;   /* the last mrc_qp_tx refusal holds for every plane */
	uint8_t fail_to;    /* failed by the ACK timeout (else by the peer), for a reason
			     * that found no memory */
	uint16_t msn_next;
	uint32_t peer_down; /* planes whose port the peer reported down */
	uint32_t qpn, peer_host, peer_qpn;
	unsigned roce_plane;
	int roce_ev;
	uint32_t una, next_psn;
	uint32_t peer_win; /* PSNs the peer accepts beyond una */
	uint32_t txcap;	   /* tx ring size: a power of 2 <= win, grown on need */
	uint32_t rtx_cap, rtx_head, rtx_len; /* rtxq ring: cap a power of 2, grown on need */
	uint32_t sq_cap, sq_head, sq_cur, sq_tail; /* monotonic counters, slot = n % cap */
	struct wqe *sq;
	struct txent *tx;
	uint32_t *rtxq; /* retransmit queue of PSNs, ring of rtx_cap entries */
	uint64_t inflight;
	uint64_t backoff_until_ps;
	uint64_t txseq, acked_txseq; /* send counter; highest send order acknowledged */
	uint64_t last_tx_ps;	     /* latest data transmission */
	uint64_t ack_now_ps;	     /* time of the packet being handled (ack_new's samples) */
	/* The responder's CC_STATE rcvd_bytes (24 bits of 256 B, wrapping), unwrapped, and
	 * the payload bytes our PSN acknowledgements account for: what it got beyond them
	 * (its bitmap's reach) is out of flight too (in_flight) */
	uint64_t peer_rcvd, acked_total;
	uint32_t peer_rcvd24;
	struct sendrec *slog; /* send log: every transmission in send order (infer_losses) */
	uint32_t slog_cap, slog_head, slog_len; /* ring; cap a power of 2 */
	uint8_t tlps;				/* tail probes of this flight sent */
	bool any_acked;
	uint32_t acked_hi;	 /* highest PSN acknowledged (valid when any_acked) */
	uint64_t acked_sent_ps;	 /* latest send time among acknowledged packets */
	uint64_t rtt_last_ps;	 /* the most recent RTT sample */
	uint64_t *rtt_plane_ps;	 /* [planes] the most recent one per plane, 0: none */
	struct mrc_cc cc;
	struct mrc_rng rng;
	struct mrc_ev_set evs;

	/* responder */
	uint32_t rwin;	 /* receive window in PSNs: mpr * 128 */
	uint32_t epsn;	 /* next expected PSN: cack = epsn - 1 */
	uint64_t *rxmap; /* received bits, ring indexed psn & (rxcap - 1): [epsn, epsn + rxcap) */
	uint32_t rxcap;	 /* its bits: a power of 2, 64 .. win, grown on need (rx_grow) */
	uint8_t *blk_end; /* end of the QP's own block (qp_release) */
	uint32_t max_seen;
	uint32_t trim_hi; /* highest trimmed PSN NACKed (valid with have_trim) */
	bool have_trim;
	bool have_max;
	bool nak_sent;	    /* RoCE: a sequence NAK for epsn is out; cleared when it arrives */
	uint16_t next_cmsn; /* next MSN to complete */
	struct rxmsg *rxm;  /* ring by MSN, rxm_cap slots, grown on need up to rxm_max */
	uint32_t rxm_cap, rxm_max;
	uint64_t bytes_since_sack, rcvd_bytes, ooo;
	uint32_t ooo_since_sack; /* out-of-order arrivals not yet reported by a SACK */
	bool ar_pending;	 /* an ack request came with holes below it: SACK again once
				  * the arrivals are in order (uec.cpp's second ACK) */
	bool pen_on;		 /* our last SACK carried a rcv_cwnd_pen: restore when it ends */
	/* A SACK held by the cadence: sent at sack_due_ps (sack_delay after the first arrival
	 * it holds) unless another goes first; what it answers, the latest arrival. */
	uint64_t sack_due_ps;
	uint32_t held_psn, held_ev;
	uint16_t held_ts;
	uint8_t held_plane;
	uint64_t rxw_start_ps, rxw_bytes, rx_rate_bps; /* data arrival rate, per 2 base RTTs */
	uint16_t req_id;
	int32_t *ctl_ev; /* [planes] EV index for control packets */

	/* requester: timers, limits */
	uint64_t rack_at_ps;	 /* next time-based loss check, UINT64_MAX when none */
	uint64_t probe_woken_ps; /* probes due at or before this were already announced */
	uint64_t last_progress_ps;
	uint64_t rto_ps; /* current timeout */
	unsigned retries;
	uint32_t win;	 /* PSN window (power of 2 >= mpr * 128) */
	uint32_t sq_max; /* sq_cap grows on need up to this: sq_depth as a power of 2 */

	char *reason; /* why it failed (allocated then) */
	struct qp_rare *rare; /* NULL until a rare counter counts */
	struct qp_hot st;
	uint64_t plane_arrays[]; /* rtt_plane_ps, then ctl_ev: sized by the planes */
};

/* AETH syndrome of a NAK "PSN sequence error": bits 6:5 = 11 (NAK), code 0 (IBTA vol. 1). */
#define AETH_NAK_PSN_SEQ 0x60
#define AETH_KIND(syn) ((syn) >> 5 & 3)

void mrc_qp_params_default(struct mrc_qp_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mtu = 4096;
	p->mpr = 8;
	p->timeout = 8;
	p->retry_linear = 7;
	p->retry_exp = MRC_QP_RETRY_FOREVER;
	p->reorder_threshold = 1024;
	p->sack_every_bytes = 16384;
	p->start_psn = 0;
	p->sq_depth = 64;
	p->nack_backoff_ps = 10000000;
	p->dscp_data = 26;
	p->dscp_rtx = 28;
	p->dscp_ctl = 46;
	p->tseth = true;
	p->retire_rtx = true;
	p->path_fate = true;
	p->sack_ooo_every = 0;
	p->rtt_ensemble = true;
	p->rcv_pen = true;
}

uint64_t mrc_qp_timeout_ps(const struct mrc_qp_params *p)
{
	return 1024000ull << p->timeout;
}

uint64_t mrc_qp_give_up_ps(const struct mrc_qp_params *p)
{
	uint64_t t = mrc_qp_timeout_ps(p);

	if (p->retry_exp >= MRC_QP_RETRY_FOREVER)
		return UINT64_MAX;
	return t * (1 + p->retry_linear) + t * ((2ull << p->retry_exp) - 2);
}

/* The timeout after @retries expiries: T for the linear ones, then doubling, at most the
 * largest timeout mrc.h allows (1.024 us * 2^24, 17.2 s). */
static uint64_t rto_after(const struct mrc_qp_params *p, unsigned retries)
{
	uint64_t t = mrc_qp_timeout_ps(p), max = 1024000ull << MRC_QP_TIMEOUT_MAX;
	unsigned k = retries <= p->retry_linear ? 0 : retries - p->retry_linear;

	while (k-- && t < max) /* T and max are 1.024 us times powers of 2: t stops at max */
		t <<= 1;
	return t;
}

int mrc_nack_idx(uint8_t reason)
{
	switch (reason) {
	case MRC_NACK_TRIMMED:
		return MRC_NI_TRIMMED;
	case MRC_NACK_TRIMMED_LASTHOP:
		return MRC_NI_TRIMMED_LASTHOP;
	case MRC_NACK_NO_BITMAP:
		return MRC_NI_NO_BITMAP;
	case MRC_NACK_NO_PKT_BUFFER:
		return MRC_NI_NO_PKT_BUFFER;
	case MRC_NACK_NO_RESOURCE:
		return MRC_NI_NO_RESOURCE;
	case MRC_NACK_PSN_OOR_WINDOW:
		return MRC_NI_PSN_OOR_WINDOW;
	case MRC_NACK_UNEXP_EVENT:
		return MRC_NI_UNEXP_EVENT;
	default:
		return MRC_NI_OTHER;
	}
}

#define TX_RING_MIN 4 /* PSNs a new QP's send rings hold */
#define SLOG_MIN 4    /* transmissions its send log holds */
#define SLOG_DEAD_DROP 8 /* dead records an infer_losses walk meets before dropping them */
#define SQ_MIN 1       /* messages its send queue, and MSNs its receive ring, hold at first */
#define RXMAP_MIN 64   /* PSNs its receive bitmap covers at first (win is at least 128) */

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t w = 1;

	while (w < n)
		w <<= 1;
	return w;
}

static void qp_ev_notify(void *ctx, uint32_t ev, int from, int to, int cause, uint64_t now_ps)
{
	struct mrc_qp *qp = ctx;

	if (qp->env->ops && qp->env->ops->ev_event)
		qp->env->ops->ev_event(qp->env->ctx, qp->qpn, ev, from, to, cause, now_ps);
}

/*
 * RoCE mode: binds the QP to NIC port @port, or the next one (round robin) whose plane has
 * a usable EV, and one of that plane's active EVs, drawn from the QP's seed: the EV its
 * packets count under (the report's per-EV figures). Its packets carry its UDP source
 * port instead (roce_wire_ev). -EINVAL when no plane has an EV.
 */
static int roce_bind(struct mrc_qp *qp, unsigned port)
{
	unsigned n = qp->env->planes, p = 0;

	while (p < n && !mrc_ev_active_usable(&qp->evs, (port + p) % n))
		p++;
	if (p == n)
		return -EINVAL;
	qp->roce_plane = (port + p) % n;
	qp->roce_ev = mrc_ev_pick(&qp->evs, qp->roce_plane, &qp->rng, -1, false, 0);
	if (qp->roce_ev < 0)
		return -EINVAL;
	qp->roce = true;
	return 0;
}

uint16_t mrc_roce_udp_sport(uint32_t lqpn, uint32_t rqpn)
{
	/* the flow label: the QPNs' product folded to 20 bits (the same from either end) */
	uint64_t v = (uint64_t)lqpn * rqpn;
	uint32_t fl;

	v ^= v >> 20;
	v ^= v >> 40;
	fl = (uint32_t)v & 0xFFFFF;
	/* its low 14 bits XOR its high 6, in the dynamic port range 0xC000-0xFFFF */
	return (uint16_t)(0xC000 | ((fl & 0x3FFF) ^ fl >> 14));
}

/* RoCE mode: the EV every packet of the QP carries, its UDP source port (flow label 0). */
static uint32_t roce_wire_ev(const struct mrc_qp *qp)
{
	uint32_t sport = mrc_roce_udp_sport(qp->qpn, qp->peer_qpn);

	return qp->env->ev_udp ? sport : sport << 16;
}

int mrc_qp_new(const struct mrc_qp_env *env, uint32_t qpn, uint32_t peer_host, uint32_t peer_qpn,
	uint64_t seed, unsigned port, struct mrc_qp **out)
{
	const struct mrc_qp_params *p = env->qp;
	struct mrc_qp *qp;
	int rc;

	uint32_t win, txcap;
	size_t at, sa_at;

	if (!p->mtu || p->mtu > MRC_PKT_MAX || !p->mpr || p->timeout > 31 || !p->sq_depth ||
		env->planes == 0 || env->planes > MRC_EV_MAX_PLANES)
		return -EINVAL;
	/*
	 * One block: the QP, its per-plane arrays, the state of each EV of a shared profile,
	 * then its first send rings, send queue, receive ring, send log and receive bitmap
	 * (which move out when they grow): a QP of an all-to-all that never grows them is one
	 * allocation, its state a few neighbouring cache lines.
	 */
	win = pow2_at_least((uint32_t)p->mpr * 128);
	txcap = win < TX_RING_MIN ? win : TX_RING_MIN;
	at = sizeof(*qp) + env->planes * (sizeof(uint64_t) + sizeof(int32_t));
	sa_at = at;
	at += env->ev_prof ? env->ev_prof->n : 0;
	at = (at + 7) & ~(size_t)7;
	qp = calloc(1, at + txcap * (sizeof(struct txent) + sizeof(uint32_t)) +
			       SQ_MIN * (sizeof(struct wqe) + sizeof(struct rxmsg)) +
			       SLOG_MIN * sizeof(struct sendrec) + RXMAP_MIN / 8 + 8);
	if (!qp)
		return -ENOMEM;
	qp->rack_at_ps = UINT64_MAX;
	qp->sack_due_ps = UINT64_MAX;
	qp->env = env;
	qp->rtt_plane_ps = qp->plane_arrays;
	qp->ctl_ev = (int32_t *)(qp->plane_arrays + env->planes);
	qp->tx = (struct txent *)((char *)qp + at);
	qp->sq = (struct wqe *)(qp->tx + txcap);
	qp->rxm = (struct rxmsg *)(qp->sq + SQ_MIN);
	qp->rtxq = (uint32_t *)(qp->rxm + SQ_MIN);
	qp->slog = (struct sendrec *)(qp->rtxq + txcap);
	qp->slog_cap = SLOG_MIN;
	qp->rxmap = (uint64_t *)(((uintptr_t)(qp->slog + SLOG_MIN) + 7) & ~(uintptr_t)7);
	qp->rxcap = win < RXMAP_MIN ? win : RXMAP_MIN;
	qp->blk_end = (uint8_t *)(qp->rxmap + RXMAP_MIN / 64);
	qp->qpn = qpn & MRC_PSN_MASK;
	qp->peer_host = peer_host;
	qp->peer_qpn = peer_qpn & MRC_PSN_MASK;
	rc = env->ev_prof ? mrc_ev_set_init_at(&qp->evs, env->ev_prof, (uint8_t *)qp + sa_at)
			  : mrc_ev_set_init(&qp->evs, env->ev, env->planes, env->ev_plane,
				  env->ctx);
	if (rc)
		goto fail_qp;
	if (qp->evs.prof->n > TXENT_EV_LIMIT) {
		rc = -EINVAL;
		goto fail_mem;
	}
	qp->evs.notify = qp_ev_notify;
	qp->evs.notify_ctx = qp;
	mrc_rng_seed(&qp->rng, seed);
	mrc_cc_init(&qp->cc, env->cc_ops, env->cc);
	qp->rwin = (uint32_t)p->mpr * 128;
	qp->win = win;
	qp->peer_win = qp->rwin;
	/* the send rings start small and double while more PSNs are in flight: a QP of a
	 * 128-host all-to-all sends a few packets, not the 1024 the window allows */
	qp->txcap = txcap;
	qp->rtx_cap = txcap;
	/* the send queue and the receive ring start small and double on need: a QP of an
	 * all-to-all has a message or two out, not sq_depth */
	qp->sq_max = pow2_at_least(p->sq_depth);
	qp->sq_cap = qp->sq_max < SQ_MIN ? qp->sq_max : SQ_MIN;
	qp->rxm_max = qp->sq_max > 32768 ? 32768 : qp->sq_max;
	qp->rxm_cap = qp->rxm_max < SQ_MIN ? qp->rxm_max : SQ_MIN;
	qp->una = qp->next_psn = qp->epsn = p->start_psn & MRC_PSN_MASK;
	qp->rto_ps = mrc_qp_timeout_ps(p);
	for (unsigned i = 0; i < env->planes; i++)
		qp->ctl_ev[i] = -1;
	if (p->transport == MRC_QP_ROCE) {
		rc = roce_bind(qp, port % env->planes);
		if (rc)
			goto fail_mem;
	} else if (p->transport != MRC_QP_MRC) {
		rc = -EINVAL;
		goto fail_mem;
	}
	*out = qp;
	return 0;
fail_mem:
	mrc_ev_set_free(&qp->evs);
fail_qp:
	free(qp);
	return rc;
}

/* Frees @mem unless it is one of the first arrays made in the QP's own block. */
static void qp_release(struct mrc_qp *qp, void *mem)
{
	uintptr_t m = (uintptr_t)mem;

	if (m <= (uintptr_t)qp || m >= (uintptr_t)qp->blk_end)
		free(mem);
}

void mrc_qp_free(struct mrc_qp *qp)
{
	if (!qp)
		return;
	mrc_ev_set_free(&qp->evs);
	qp_release(qp, qp->tx);
	qp_release(qp, qp->rtxq);
	qp_release(qp, qp->slog);
	qp_release(qp, qp->sq);
	qp_release(qp, qp->rxm);
	qp_release(qp, qp->rxmap);
	free(qp->reason);
	free(qp->rare);
	free(qp);
}

void mrc_qp_set_peer(struct mrc_qp *qp, uint32_t peer_qpn)
{
	qp->peer_qpn = peer_qpn & MRC_PSN_MASK;
}

uint32_t mrc_qp_peer_host(const struct mrc_qp *qp)
{
	return qp->peer_host;
}

static struct txent *ent(struct mrc_qp *qp, uint32_t psn)
{
	return &qp->tx[psn & (qp->txcap - 1)];
}

/*
 * The send counter of a transmission from its low 32 bits @lo: the latest counter minus
 * their distance. Exact while it is fewer than 2^32 sends old. A live transmission (its
 * PSN unacknowledged, and its latest) is far younger: the window bounds the new PSNs sent
 * after it (mpr x 128 <= 32640), and the other sends are retransmissions of PSNs found
 * lost — by the rules that find it lost too once a later packet is acknowledged and its
 * reorder windows pass, or by an ACK timeout, which requeues it as well; 2^32 sends of
 * at least 64 bytes are 2.7 s at 800 Gb/s. A dead record stays in the send log at most
 * its capacity (<= 2 * win) further sends: the log drops the dead when full.
 */
static uint64_t txseq_full(const struct mrc_qp *qp, uint32_t lo)
{
	return qp->txseq - (uint32_t)((uint32_t)qp->txseq - lo);
}

static int ent_ev(const struct txent *e)
{
	return (int)e->ev;
}

/* EV index of the transmission before the latest, -1 when none. */
static int ent_prev_ev(const struct txent *e)
{
	return (e->flags & TX_MULTI) ? (int)e->prev_ev : -1;
}

/*
 * Send time of @e's latest transmission (@e sent: TX_SENT): the latest data transmission's
 * time minus their distance in the low 56 bits. Exact while it is under 2^56 ps (20 hours)
 * old; a live transmission is at most an ACK timeout old (8,796 s at timeout 31), when it
 * is sent again or the QP fails. An entry never sent has no time: the answer is garbage.
 */
static uint64_t ent_sent(const struct mrc_qp *qp, const struct txent *e)
{
	return qp->last_tx_ps - ((qp->last_tx_ps - e->sent_ps) & TXENT_SENT_MASK);
}

/* Plane of @e's latest transmission: its EV's. */
static unsigned ent_plane(const struct mrc_qp *qp, const struct txent *e)
{
	return qp->evs.prof->plane[e->ev];
}

/* Byte offset of PSN @psn in its message @w (its first PSN is set once it is sent). */
static uint32_t ent_off(const struct mrc_qp *qp, const struct wqe *w, uint32_t psn)
{
	/* the distance unsigned mod 2^24: a message may span more than 2^23 PSNs */
	return ((psn - w->first_psn) & MRC_PSN_MASK) * qp->env->qp->mtu;
}

/*
 * Doubles the send ring, entries at the same PSNs (valid ones: una .. next_psn - 1, at
 * most txcap of them; callers check the range before trusting an entry). Returns 0 or
 * -ENOMEM (the QP then waits with a full ring, as with a closed window).
 */
static int tx_grow(struct mrc_qp *qp)
{
	uint32_t cap = qp->txcap * 2;
	struct txent *tx = calloc(cap, sizeof(*tx));

	if (!tx)
		return -ENOMEM;
	for (uint32_t psn = qp->una; psn != qp->next_psn; psn = psn_add(psn, 1))
		tx[psn & (cap - 1)] = *ent(qp, psn);
	qp_release(qp, qp->tx);
	qp->tx = tx;
	qp->txcap = cap;
	return 0;
}

/*
 * Doubles the retransmit queue, its PSNs in order. It grows apart from the send ring: a
 * QP sending at line rate keeps a few hundred PSNs in flight and seldom more than a few
 * queued (job-perm128: the ring at 512 PSNs, the queue at 4 — 2 KB a QP kept at 512).
 * Returns 0 or -ENOMEM.
 */
static int rtxq_grow(struct mrc_qp *qp)
{
	uint32_t cap = qp->rtx_cap * 2;
	uint32_t *q = malloc(cap * sizeof(*q));

	if (!q)
		return -ENOMEM;
	for (uint32_t i = 0; i < qp->rtx_len; i++)
		q[i] = qp->rtxq[(qp->rtx_head + i) & (qp->rtx_cap - 1)];
	qp_release(qp, qp->rtxq);
	qp->rtxq = q;
	qp->rtx_head = 0;
	qp->rtx_cap = cap;
	return 0;
}

#define QP_REASON_MAX 160 /* bytes of a failed QP's reason */

/* Counts nothing: where a QP whose rare counters could not be made counts them. */
static _Thread_local struct qp_rare qp_rare_sink;

/* The QP's rare counters, made zeroed on first need; on -ENOMEM they go uncounted. */
static struct qp_rare *qp_rare(struct mrc_qp *qp)
{
	if (!qp->rare)
		qp->rare = calloc(1, sizeof(*qp->rare));
	return qp->rare ? qp->rare : &qp_rare_sink;
}

/*
 * Doubles the send queue (up to sq_max), live messages sq_head .. sq_tail - 1 at the
 * same counters. Returns 0 or -ENOMEM.
 */
static int sq_grow(struct mrc_qp *qp)
{
	uint32_t cap = qp->sq_cap * 2;
	struct wqe *sq = calloc(cap, sizeof(*sq));

	if (!sq)
		return -ENOMEM;
	for (uint32_t n = qp->sq_head; n != qp->sq_tail; n++)
		sq[n & (cap - 1)] = qp->sq[n & (qp->sq_cap - 1)];
	qp_release(qp, qp->sq);
	qp->sq = sq;
	qp->sq_cap = cap;
	return 0;
}

static struct wqe *sq_at(struct mrc_qp *qp, uint32_t n)
{
	return &qp->sq[n & (qp->sq_cap - 1)];
}

/*
 * The message PSN @psn (in [una, next_psn)) belongs to. The messages sent from, sq_head to
 * sq_cur, hold consecutive PSNs, and each one's end, as a distance from una, is in
 * [0, next_psn - una] (sq_head's has a PSN unacknowledged, each later one starts where the
 * one before ends): the first whose end is past @psn's distance holds it. Distances from
 * una stay exact for a message of any length (2^24 PSNs and more).
 */
static struct wqe *ent_wqe(struct mrc_qp *qp, uint32_t psn)
{
	uint32_t rel = (psn - qp->una) & MRC_PSN_MASK, lo = qp->sq_head, hi = qp->sq_cur;

	while (lo != hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct wqe *w = sq_at(qp, mid);

		if (((w->first_psn + w->next_pkt - qp->una) & MRC_PSN_MASK) > rel)
			hi = mid;
		else
			lo = mid + 1;
	}
	return sq_at(qp, lo);
}

/* Payload bytes of the packet at byte @off of message @w: the MTU, less at its end. */
static uint32_t wqe_pkt_len(const struct wqe *w, uint32_t off, uint32_t mtu)
{
	return w->len - off < mtu ? w->len - off : mtu;
}

/* Payload bytes of PSN @psn (entry @e). */
static uint32_t ent_len(struct mrc_qp *qp, const struct txent *e, uint32_t psn)
{
	uint32_t mtu = qp->env->qp->mtu;
	const struct wqe *w;

	if (!(e->flags & TX_SHORT))
		return mtu;
	w = ent_wqe(qp, psn);
	return wqe_pkt_len(w, (w->npkts - 1) * mtu, mtu);
}

/* Bytes a packet of @len payload bytes counts in flight: at least 1. */
static uint64_t inflight_bytes(uint32_t len)
{
	return len ? len : 1;
}

static void wake(struct mrc_qp *qp, int plane)
{
	if (qp->env->wake)
		qp->env->wake(qp->env->owner, qp->qpn, plane);
}

/* May this QP send on @plane: our port up, and the peer's port not reported down? */
static bool plane_ok(const struct mrc_qp *qp, unsigned plane)
{
	return qp->env->plane_up(qp->env->owner, plane) && !(qp->peer_down >> plane & 1);
}

/* Enters the error state: every posted message completes with @status, nothing more is
 * sent. @fmt says why (kept for mrc_qp_failed). */
static void qp_fail(struct mrc_qp *qp, int status, uint64_t now_ps, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void qp_fail(struct mrc_qp *qp, int status, uint64_t now_ps, const char *fmt, ...)
{
	va_list ap;

	if (qp->failed)
		return;
	qp->failed = true;
	qp->fail_to = status == -ETIMEDOUT;
	qp->reason = malloc(QP_REASON_MAX);
	if (qp->reason) {
		va_start(ap, fmt);
		vsnprintf(qp->reason, QP_REASON_MAX, fmt, ap);
		va_end(ap);
	}
	for (; qp->sq_head != qp->sq_tail; qp->sq_head++) {
		struct wqe *w = sq_at(qp, qp->sq_head);

		if (qp->env->ops && qp->env->ops->send_done)
			qp->env->ops->send_done(qp->env->ctx, qp->qpn, w->wr_id, status, now_ps);
	}
	qp->inflight = 0;
	qp->rtx_len = 0;
}

int mrc_qp_post_write(struct mrc_qp *qp, const void *local, uint64_t len, uint64_t remote_va,
	uint32_t rkey, bool with_imm, uint32_t imm, uint64_t wr_id, uint64_t now_ps)
{
	uint32_t mtu = qp->env->qp->mtu;
	bool idle = qp->sq_head == qp->sq_tail && qp->una == qp->next_psn;
	struct wqe *w;

	if (qp->failed)
		return -EPIPE;
	if (len > UINT32_MAX)
		return -EINVAL;
	if (qp->sq_tail - qp->sq_head >= qp->sq_max ||
		qp->sq_tail - qp->sq_head >= qp->env->qp->sq_depth)
		return -EAGAIN;
	if (qp->sq_tail - qp->sq_head == qp->sq_cap && sq_grow(qp))
		return -ENOMEM;
	w = sq_at(qp, qp->sq_tail++);
	*w = (struct wqe){.local = local,
		.va = remote_va,
		.wr_id = wr_id,
		.len = (uint32_t)len,
		.rkey = rkey,
		.imm = imm,
		.with_imm = with_imm,
		.msn = qp->msn_next++,
		.npkts = len ? (uint32_t)((len + mtu - 1) / mtu) : 1};
	qp->st.msgs_posted++;
	if (idle) {
		qp->last_progress_ps = now_ps;
		qp->retries = 0;
		qp->rto_ps = mrc_qp_timeout_ps(qp->env->qp);
	}
	wake(qp, -1);
	return 0;
}

/* ---- requester: transmit ------------------------------------------------------------ */

static bool other_plane_usable(struct mrc_qp *qp, unsigned plane)
{
	for (unsigned p = 0; p < qp->env->planes; p++)
		if (p != plane && plane_ok(qp, p) && mrc_ev_active_usable(&qp->evs, p))
			return true;
	return false;
}

static uint16_t ts16(uint64_t now_ps)
{
	return (uint16_t)(now_ps / 1000);
}

/* Fills @out as the data packet of PSN @psn, of message @w, on EV @evi. */
static void build_data(struct mrc_qp *qp, const struct wqe *w, uint32_t psn, int evi, bool rtx,
	uint64_t now_ps, struct mrc_pkt *out)
{
	const struct mrc_qp_params *p = qp->env->qp;
	uint32_t off = ent_off(qp, w, psn), k = off / p->mtu;
	bool first = k == 0, last = k + 1 == w->npkts;

	memset(out, 0, sizeof(*out));
	if (first && last)
		out->opcode = w->with_imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY;
	else if (first)
		out->opcode = MRC_OP_WRITE_FIRST;
	else if (last)
		out->opcode = w->with_imm ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST;
	else
		out->opcode = MRC_OP_WRITE_MIDDLE;
	out->hop_limit = 64;
	out->dscp = rtx ? p->dscp_rtx : p->dscp_data;
	out->ecn = 2; /* ECT(0) */
	out->ev = qp->roce ? roce_wire_ev(qp) : mrc_ev_value(&qp->evs, evi);
	out->dest_qp = qp->peer_qpn;
	out->psn = psn;
	out->flags = 0;
	if (last || rtx)
		out->flags |= MRC_BTH_F_ACKREQ;
	if (rtx)
		out->flags |= MRC_BTH_F_RTX;
	if (p->tseth) {
		out->flags |= MRC_BTH_F_TS;
		out->tx_ts = ts16(now_ps);
	}
	out->rqmsn = sq_at(qp, qp->sq_head)->msn;
	out->msn = w->msn;
	out->va = w->va + off;
	out->rkey = w->rkey;
	out->dma_len = w->len;
	out->imm = w->imm;
	out->payload = w->local ? w->local + off : NULL;
	out->payload_len = wqe_pkt_len(w, off, p->mtu);
}

/* Bytes PSN @psn (entry @e) counts in flight. */
static uint64_t ent_bytes(struct mrc_qp *qp, const struct txent *e, uint32_t psn)
{
	return inflight_bytes(ent_len(qp, e, psn));
}

/* Is @r its PSN's latest transmission, still unacknowledged? */
static bool slog_live(struct mrc_qp *qp, const struct sendrec *r)
{
	const struct txent *e = ent(qp, r->psn);

	return !psn_lt(r->psn, qp->una) && psn_lt(r->psn, qp->next_psn) && e->txseq == r->txseq &&
	       !(e->flags & TX_ACKED);
}

static struct sendrec *slog_at(struct mrc_qp *qp, uint32_t i)
{
	return &qp->slog[(qp->slog_head + i) & (qp->slog_cap - 1)];
}

/*
 * Appends a transmission to the send log. A full log first drops what is no longer live
 * (at most txcap entries are); if more than half of it stays live, it doubles. On
 * -ENOMEM the record is not kept: the PSN is then found lost only by the ACK timeout.
 */
static void slog_push(struct mrc_qp *qp, uint32_t psn, uint32_t txseq)
{
	if (qp->slog_len == qp->slog_cap) {
		uint32_t n = 0, cap = qp->slog_cap;
		struct sendrec *a;

		for (uint32_t i = 0; i < qp->slog_len; i++)
			if (slog_live(qp, slog_at(qp, i)))
				n++;
		if (n * 2 > cap || !cap)
			cap = cap ? cap * 2 : SLOG_MIN;
		a = malloc(cap * sizeof(*a));
		if (!a)
			return;
		n = 0;
		for (uint32_t i = 0; i < qp->slog_len; i++)
			if (slog_live(qp, slog_at(qp, i)))
				a[n++] = *slog_at(qp, i);
		qp_release(qp, qp->slog);
		qp->slog = a;
		qp->slog_cap = cap;
		qp->slog_head = 0;
		qp->slog_len = n;
	}
	*slog_at(qp, qp->slog_len++) = (struct sendrec){.txseq = txseq, .psn = psn};
}

/*
 * Drops the dead records among the first @k of the send log, the live ones keeping their
 * order (so every walk finds what it found before), moved up against the rest. Sprayed
 * packets are acknowledged out of send order: in job-perm128 an infer_losses walk met 21
 * dead records for 3.4 live ones, the same dead ones again at each SACK.
 */
static void slog_drop_dead(struct mrc_qp *qp, uint32_t k)
{
	uint32_t dst = k;

	for (uint32_t j = k; j-- > 0;) {
		const struct sendrec *r = slog_at(qp, j);

		if (slog_live(qp, r))
			*slog_at(qp, --dst) = *r; /* dst > j till now: nothing unread is hit */
	}
	qp->slog_head = (qp->slog_head + dst) & (qp->slog_cap - 1);
	qp->slog_len -= dst;
}

/* Records a transmission of @e (PSN @psn, @len payload bytes) on @evi (its plane is the
 * EV's: ent_plane). */
static void sent(struct mrc_qp *qp, uint32_t psn, struct txent *e, uint32_t len, int evi,
	uint64_t now_ps)
{
	struct mrc_ev_stats *es = mrc_ev_st(&qp->evs, (unsigned)evi);

	if (e->flags & TX_SENT) {
		e->prev_ev = e->ev;
		e->flags |= TX_MULTI;
	}
	e->ev = (uint16_t)evi;
	e->sent_ps = now_ps & TXENT_SENT_MASK;
	qp->last_tx_ps = now_ps;
	/* new data arms the tail probes anew; a retransmission (a probe among them) does not:
	 * at most TLP_MAX probes until an ACK makes progress. Rearming on every send sent a
	 * probe each two reorder windows to a peer whose ports were down: 332,484 of them in
	 * the 4.4 s before its ACK timeout gave up. */
	if (!(e->flags & TX_SENT))
		qp->tlps = 0;
	e->txseq = (uint32_t)++qp->txseq;
	if (!qp->roce) /* RoCE infers no loss from SACKs: nothing reads the log */
		slog_push(qp, psn, e->txseq);
	e->flags |= TX_SENT | TX_INFLIGHT;
	e->flags &= (uint8_t)~TX_QUEUED;
	qp->inflight += inflight_bytes(len);
	es->tx_pkts++;
	es->tx_bytes += len;
}

/*
 * Bytes in flight for the window: those sent and neither acknowledged nor declared lost,
 * less what the responder's rcvd_bytes says it received beyond the PSNs acknowledged to
 * us (uec.cpp processAck subtracts its rcvd_bytes delta from in_flight), capped at them.
 */
static uint64_t in_flight(const struct mrc_qp *qp)
{
	uint64_t beyond = qp->peer_rcvd > qp->acked_total ? qp->peer_rcvd - qp->acked_total : 0;

	return beyond < qp->inflight ? qp->inflight - beyond : 0;
}

static bool window_open(struct mrc_qp *qp, uint64_t bytes)
{
	uint64_t f = in_flight(qp);

	return f == 0 || f + bytes <= mrc_cc_cwnd(&qp->cc);
}

static bool tx_probe(struct mrc_qp *qp, unsigned plane, uint64_t now_ps, struct mrc_pkt *out)
{
	int idx = mrc_ev_probe_due(&qp->evs, plane, now_ps);

	if (idx < 0)
		return false;
	mrc_ev_probe_sent(&qp->evs, idx, ts16(now_ps), now_ps);
	memset(out, 0, sizeof(*out));
	out->opcode = MRC_OP_PROBE;
	out->hop_limit = 64;
	out->dscp = qp->env->qp->dscp_ctl;
	out->ev = mrc_ev_value(&qp->evs, (unsigned)idx);
	out->dest_qp = qp->peer_qpn;
	out->psn = qp->next_psn; /* a probe consumes no PSN */
	out->peth.probe_id = mrc_ev_probe_id(&qp->evs, (unsigned)idx);
	out->peth.spdcid = (uint16_t)qp->qpn;
	out->peth.dpdcid = (uint16_t)qp->peer_qpn;
	out->peth.tx_ts = ts16(now_ps);
	out->peth.ftype = 1;
	qp_rare(qp)->probes_tx++;
	return true;
}

/* The tx_* below set *@plane_only when they refuse for want of an EV on @plane only. */
static bool tx_rtx(
	struct mrc_qp *qp, unsigned plane, uint64_t now_ps, struct mrc_pkt *out, bool *plane_only)
{
	while (qp->rtx_len) {
		uint32_t psn = qp->rtxq[qp->rtx_head], len;
		struct txent *e = ent(qp, psn);
		int evi;

		if ((e->flags & TX_ACKED) || !(e->flags & TX_QUEUED) || psn_lt(psn, qp->una) ||
			!psn_lt(psn, qp->next_psn)) {
			qp->rtx_head = (qp->rtx_head + 1) & (qp->rtx_cap - 1);
			qp->rtx_len--;
			continue;
		}
		len = ent_len(qp, e, psn);
		if (!window_open(qp, inflight_bytes(len)))
			return false;
		/* A different EV than the lost transmission's, from this plane; the same one only
		 * when nothing else is left anywhere. RoCE: its one path. */
		evi = qp->roce ? qp->roce_ev
			       : mrc_ev_pick(&qp->evs, plane, &qp->rng, ent_ev(e),
					 !other_plane_usable(qp, plane), now_ps);
		if (evi < 0) {
			*plane_only = true;
			return false;
		}
		qp->rtx_head = (qp->rtx_head + 1) & (qp->rtx_cap - 1);
		qp->rtx_len--;
		build_data(qp, ent_wqe(qp, psn), psn, evi, true, now_ps, out);
		sent(qp, psn, e, len, evi, now_ps);
		qp->st.rtx_pkts++;
		qp->st.rtx_bytes += len;
		mrc_ev_st(&qp->evs, evi)->rtx_pkts++;
		return true;
	}
	return false;
}

static bool tx_new(
	struct mrc_qp *qp, unsigned plane, uint64_t now_ps, struct mrc_pkt *out, bool *plane_only)
{
	uint32_t mtu = qp->env->qp->mtu, psn = qp->next_psn;
	struct wqe *w;
	struct txent *e;
	uint32_t off, len;
	int evi;

	if (qp->sq_cur == qp->sq_tail)
		return false;
	if ((uint32_t)psn_diff(psn, qp->una) >= qp->peer_win)
		return false;
	if ((uint32_t)psn_diff(psn, qp->una) >= qp->txcap && tx_grow(qp))
		return false;
	w = sq_at(qp, qp->sq_cur);
	off = w->next_pkt * mtu;
	len = wqe_pkt_len(w, off, mtu);
	if (!window_open(qp, inflight_bytes(len)))
		return false;
	evi = qp->roce ? qp->roce_ev : mrc_ev_pick(&qp->evs, plane, &qp->rng, -1, false, now_ps);
	if (evi < 0) {
		*plane_only = true;
		return false;
	}
	e = ent(qp, psn);
	*e = (struct txent){.flags = len == mtu ? 0 : TX_SHORT};
	if (w->next_pkt == 0)
		w->first_psn = psn;
	if (++w->next_pkt == w->npkts)
		qp->sq_cur++;
	qp->next_psn = psn_add(psn, 1);
	build_data(qp, w, psn, evi, false, now_ps, out);
	/* Ask for a SACK when this packet fills the window: nothing else would trigger one. */
	if (in_flight(qp) + inflight_bytes(len) + mtu > mrc_cc_cwnd(&qp->cc))
		out->flags |= MRC_BTH_F_ACKREQ;
	sent(qp, psn, e, len, evi, now_ps);
	qp->st.data_pkts++;
	qp->st.data_bytes += len;
	return true;
}

bool mrc_qp_tx(struct mrc_qp *qp, unsigned plane, uint64_t now_ps, struct mrc_pkt *out)
{
	bool plane_only = false;

	qp->refused_all = qp->failed;
	if (qp->failed || plane >= qp->env->planes || (qp->peer_down >> plane & 1))
		return false;
	if (qp->roce && plane != qp->roce_plane)
		return false;
	if (!qp->roce && tx_probe(qp, plane, now_ps, out))
		return true;
	if (now_ps < qp->backoff_until_ps)
		return false; /* ends by time, with or without a timer: not refused_all */
	if (tx_rtx(qp, plane, now_ps, out, &plane_only) ||
		tx_new(qp, plane, now_ps, out, &plane_only))
		return true;
	/* Nothing to send, or no window: the same on every plane, unless a plane lacked an
	 * EV or another plane may have a probe due (only with ASSUMED_BAD EVs). */
	qp->refused_all = !plane_only && !qp->evs.n_bad;
	return false;
}

bool mrc_qp_tx_refused_all(const struct mrc_qp *qp)
{
	return qp->refused_all;
}

bool mrc_qp_tx_idle(const struct mrc_qp *qp)
{
	return qp->failed || (!qp->rtx_len && qp->sq_cur == qp->sq_tail && !qp->evs.n_bad);
}

/* ---- requester: acknowledgements ---------------------------------------------------- */

/* In [una, next_psn)? */
static bool in_flight_range(struct mrc_qp *qp, uint32_t psn)
{
	return !psn_lt(psn, qp->una) && psn_lt(psn, qp->next_psn);
}

/* Queues @psn for retransmission; on -ENOMEM it stays in flight, for the ACK timeout. */
static void queue_rtx(struct mrc_qp *qp, uint32_t psn)
{
	struct txent *e = ent(qp, psn);

	if (e->flags & (TX_ACKED | TX_QUEUED))
		return;
	if (qp->rtx_len == qp->rtx_cap && rtxq_grow(qp))
		return;
	e->flags &= (uint8_t)~TX_TLP; /* tail_probe sets it again for its own */
	if (e->flags & TX_INFLIGHT) {
		qp->inflight -= ent_bytes(qp, e, psn);
		e->flags &= (uint8_t)~TX_INFLIGHT;
	}
	e->flags |= TX_QUEUED;
	qp->rtxq[(qp->rtx_head + qp->rtx_len) & (qp->rtx_cap - 1)] = psn;
	qp->rtx_len++;
}

/* @n PSNs inferred lost on EV @evi: the profile's counter, and the endpoint's own. */
static void ev_lost(struct mrc_qp *qp, int evi, uint64_t n)
{
	mrc_ev_st(&qp->evs, (unsigned)evi)->losses += n;
	if (qp->env->ev_losses)
		qp->env->ev_losses[evi] += n;
}

/*
 * docs/wire-format.md "Path (EV) states": an EV going ASSUMED_BAD stops carrying traffic at once
 * and what may be lost on it is retransmitted on other EVs — every PSN still unacknowledged whose
 * latest transmission used it. Without this, a tail packet on a dead path (no later PSNs to open a
 * SACK hole past the reorder threshold) waits for the ACK timeout. Returns whether the EV went
 * ASSUMED_BAD.
 */
static bool retire_ev(struct mrc_qp *qp, int evi, int cause, uint64_t now_ps)
{
	if (!mrc_ev_on_bad(&qp->evs, evi, cause, now_ps))
		return false;
	if (!qp->env->qp->retire_rtx)
		return true;
	for (uint32_t psn = qp->una; psn_lt(psn, qp->next_psn); psn = psn_add(psn, 1)) {
		struct txent *e = ent(qp, psn);

		if (ent_ev(e) != evi || (e->flags & (TX_ACKED | TX_QUEUED)) ||
			!(e->flags & TX_SENT))
			continue;
		qp_rare(qp)->loss_path++;
		ev_lost(qp, evi, 1);
		queue_rtx(qp, psn);
	}
	return true;
}

/*
 * A loss found by the time or the count rule on EV @evi: retires it (retire_ev, cause
 * MRC_EVC_LOSS_SACK) and, with path_fate, every usable EV of its plane that
 * env->same_path says crosses the same path to the peer (cause MRC_EVC_PATH): a loss
 * without a trim is a failed path (docs/wire-format.md "Path (EV) states"), and EVs
 * differing only in their salt share it. Without this each of them is found dead by a
 * loss of its own, a time-rule window each. Not for the tail probe's rule (on_sack): its
 * copy arriving first says the original is late, queued as often as lost (the 128-host
 * all-to-all of docs/htsim-comparison.md: 24,039 such with nothing dropped; taking their
 * paths along tripled its probes and made it 24 % slower).
 */
static void retire_path(struct mrc_qp *qp, int evi, uint64_t now_ps)
{
	uint32_t v = mrc_ev_value(&qp->evs, evi);
	unsigned pl = mrc_ev_plane(&qp->evs, evi);

	if (!retire_ev(qp, evi, MRC_EVC_LOSS_SACK, now_ps) || !qp->env->qp->path_fate ||
		!qp->env->same_path)
		return;
	for (unsigned j = 0; j < qp->evs.n; j++) {
		int st = mrc_ev_state(&qp->evs, j);

		if ((int)j == evi || mrc_ev_plane(&qp->evs, j) != pl ||
			(st != MRC_EV_GOOD && st != MRC_EV_SKIP) ||
			!qp->env->same_path(qp->env->owner, qp->peer_host, v,
				mrc_ev_value(&qp->evs, j)))
			continue;
		retire_ev(qp, (int)j, MRC_EVC_PATH, now_ps);
	}
}

/* ack_one's work for an entry not acknowledged before: out of line, as it is the rarer. */
static uint64_t ack_new(struct mrc_qp *qp, uint32_t psn, struct txent *e)
{
	e->flags |= TX_ACKED;
	if (e->flags & TX_INFLIGHT) {
		qp->inflight -= ent_bytes(qp, e, psn);
		e->flags &= (uint8_t)~TX_INFLIGHT;
	}
	ent_wqe(qp, psn)->acked++;
	/* Every delivery (of a packet sent once) is an RTT sample of its EV for the loss
	 * rules' windows, as RACK takes one per newly acknowledged packet (RFC 8985 §6.2
	 * step 2): with a SACK per 16 KiB, the triggering packet's sample alone left most EVs
	 * of a wide profile with none, or a stale one. It includes the time the receiver held
	 * the SACK, which only widens the window. The CC's delay takes the triggering
	 * packet's only (on_sack), as uec.cpp's. */
	if (!(e->flags & TX_MULTI) && qp->ack_now_ps > ent_sent(qp, e))
		mrc_ev_set_rtt(&qp->evs, e->ev, qp->ack_now_ps - ent_sent(qp, e));
	if (txseq_full(qp, e->txseq) > qp->acked_txseq)
		qp->acked_txseq = txseq_full(qp, e->txseq);
	if (ent_sent(qp, e) > qp->acked_sent_ps)
		qp->acked_sent_ps = ent_sent(qp, e);
	if (!qp->any_acked || psn_lt(qp->acked_hi, psn))
		qp->acked_hi = psn;
	qp->any_acked = true;
	qp->acked_total += ent_bytes(qp, e, psn);
	return ent_bytes(qp, e, psn);
}

/*
 * Marks @psn acknowledged; returns its newly acked payload bytes (0 if already acked).
 * Inline: a SACK asks about every PSN of its bitmap, most of them acknowledged already.
 */
static inline uint64_t ack_one(struct mrc_qp *qp, uint32_t psn)
{
	struct txent *e = ent(qp, psn);

	if (!in_flight_range(qp, psn) || (e->flags & TX_ACKED) || !(e->flags & TX_SENT))
		return 0;
	return ack_new(qp, psn, e);
}

static void advance(struct mrc_qp *qp, uint64_t now_ps)
{
	while (qp->una != qp->next_psn && (ent(qp, qp->una)->flags & TX_ACKED)) {
		*ent(qp, qp->una) = (struct txent){0};
		qp->una = psn_add(qp->una, 1);
	}
	while (qp->sq_head != qp->sq_cur) {
		struct wqe *w = sq_at(qp, qp->sq_head);

		if (w->acked < w->npkts)
			break;
		qp->sq_head++;
		qp->st.msgs_done++;
		if (qp->env->ops && qp->env->ops->send_done)
			qp->env->ops->send_done(qp->env->ctx, qp->qpn, w->wr_id, 0, now_ps);
	}
}

/*
 * Reorder window of the time-based rule: a packet is overdue when a packet sent after it
 * was acknowledged and one RTT plus this window have passed since it was sent. Sprayed
 * paths differ by their queues, so the window is a whole RTT (the latest sample, or the
 * CC's base RTT before there is one), not RACK's quarter.
 */
static uint64_t reo_wnd_ps(const struct mrc_qp *qp)
{
	uint64_t r = qp->rtt_last_ps ? qp->rtt_last_ps : qp->cc.p->base_rtt_ps;

	if (qp->env->ens && qp->env->ens->max_ps > r)
		r = qp->env->ens->max_ps;
	return r > qp->cc.p->base_rtt_ps ? r : qp->cc.p->base_rtt_ps;
}

/*
 * The reorder window of packet @e: at least the latest RTT seen on its plane and on its
 * EV. Planes, and spines within a plane, queue independently (an incast's last hops, one
 * per plane; colliding permutation flows on one spine), so a packet on a slower path is
 * not late by a faster path's RTT: judged so, an 8-rank incast retransmitted a sixth of
 * its packets and a 7-rank permutation an eighth, with nothing lost.
 */
static uint64_t reo_wnd_of(const struct mrc_qp *qp, const struct txent *e)
{
	uint64_t r = reo_wnd_ps(qp), p = qp->rtt_plane_ps[ent_plane(qp, e)];
	uint64_t v = mrc_ev_rtt_last(&qp->evs, e->ev);

	r = p > r ? p : r;
	return v > r ? v : r;
}

/*
 * The time rule's window for a reorder window @reo: two of them plus NSCC's target delay,
 * the queueing the congestion control lets a path build before it cuts the window (with
 * the reference's initial window of 1.5 BDP, a 7-rank permutation's paths queue past
 * twice another path's RTT with nothing lost).
 */
static uint64_t rack_wnd(const struct mrc_qp *qp, uint64_t reo)
{
	return 2 * reo + qp->cc.p->target_delay_ps;
}

/* The longest a responder holds a SACK (mrc_qp_params.sack_delay_ps; 0: the base RTT). */
static uint64_t sack_delay_ps(const struct mrc_qp *qp)
{
	return qp->env->qp->sack_delay_ps ? qp->env->qp->sack_delay_ps : qp->cc.p->base_rtt_ps;
}

/* Tail probes per flight (tail_probe), and when the next is due: the time rule's window
 * plus the longest the responder may hold its SACK (RFC 8985 §7.2 adds the peer's
 * delayed-ACK time) after the last send, doubled for each probe already sent. */
#define TLP_MAX 3

static uint64_t tlp_due_ps(const struct mrc_qp *qp)
{
	return qp->last_tx_ps + ((rack_wnd(qp, reo_wnd_ps(qp)) + sack_delay_ps(qp)) << qp->tlps);
}

/*
 * Judges the unacknowledged transmission @e of @psn by both rules of infer_losses: true
 * when it is lost, else rack_at_ps comes down to when it may become overdue.
 */
static bool overdue(struct mrc_qp *qp, uint32_t psn, const struct txent *e, uint64_t thr,
	uint64_t now_ps)
{
	uint64_t wnd = rack_wnd(qp, reo_wnd_of(qp, e)), sent_ps = ent_sent(qp, e);
	bool older = sent_ps < qp->acked_sent_ps;

	if ((psn_lt(psn, qp->acked_hi) && qp->acked_txseq >= txseq_full(qp, e->txseq) + thr) ||
		(older && now_ps >= sent_ps + wnd))
		return true;
	if (older && sent_ps + wnd < qp->rack_at_ps)
		qp->rack_at_ps = sent_ps + wnd;
	return false;
}

/*
 * Loss inference: an unacked PSN is lost once reorder_threshold PSNs sent after it were
 * acknowledged (send order, so a retransmission restarts its count), or — time-based, as
 * RACK (RFC 8985 §6.2) — once a packet sent after it was acknowledged and 2 reorder windows
 * and the target delay (rack_wnd) have passed since it was sent. The second rule finds the loss of
 * a message's last packets in microseconds, where the count never gets there; rack_at_ps arms a
 * timer for the earliest packet that may become overdue.
 */
static void infer_losses(struct mrc_qp *qp, uint64_t now_ps)
{
	uint64_t thr = qp->env->qp->reorder_threshold ? qp->env->qp->reorder_threshold : 1;
	uint64_t wnd_min = rack_wnd(qp, reo_wnd_ps(qp)); /* the least of overdue()'s windows */
	uint32_t lo = UINT32_MAX, hi = 0, i, dead = 0;
	bool lost = false;

	qp->rack_at_ps = UINT64_MAX;
	if (!qp->any_acked || !in_flight_range(qp, qp->acked_hi))
		return;
	/*
	 * Only a transmission older than the latest acknowledged one can be lost (both rules
	 * need one sent after it acknowledged): the send log's live records before
	 * acked_txseq. Judged in send order they give rack_at_ps when none is lost, the
	 * common case; otherwise they are marked and judged again in PSN order as the rules
	 * are stated, so retransmissions and EV retirements happen in the same order as by a
	 * window scan.
	 */
	while (qp->slog_len && !slog_live(qp, slog_at(qp, 0))) {
		qp->slog_head = (qp->slog_head + 1) & (qp->slog_cap - 1);
		qp->slog_len--;
	}
	for (i = 0; i < qp->slog_len && !lost; i++) {
		const struct sendrec *r = slog_at(qp, i);
		uint64_t seq = txseq_full(qp, r->txseq);
		const struct txent *e;

		if (seq >= qp->acked_txseq)
			break;
		if (!slog_live(qp, r)) {
			dead++;
			continue;
		}
		if (ent(qp, r->psn)->flags & TX_QUEUED)
			continue;
		e = ent(qp, r->psn);
		/*
		 * Send times grow along the log and every reorder window is at least wnd_min,
		 * so once this record is past the count rule's reach and could not be due
		 * before rack_at_ps (later than now, none being lost), no record after it can
		 * be lost or due sooner: the rest of the walk would change nothing.
		 */
		if (seq + thr > qp->acked_txseq && ent_sent(qp, e) + wnd_min >= qp->rack_at_ps)
			break;
		lost = overdue(qp, r->psn, e, thr, now_ps);
	}
	if (dead >= SLOG_DEAD_DROP)
		slog_drop_dead(qp, i); /* the records the walk met: i <= slog_len */
	if (!lost)
		return;
	qp->rack_at_ps = UINT64_MAX;
	for (i = 0; i < qp->slog_len; i++) {
		const struct sendrec *r = slog_at(qp, i);
		uint32_t off;

		if (txseq_full(qp, r->txseq) >= qp->acked_txseq)
			break;
		if (!slog_live(qp, r) || (ent(qp, r->psn)->flags & TX_QUEUED))
			continue;
		ent(qp, r->psn)->flags |= TX_CAND;
		off = (uint32_t)psn_diff(r->psn, qp->una);
		lo = off < lo ? off : lo;
		hi = off > hi ? off : hi;
	}
	for (uint32_t off = lo; lo != UINT32_MAX && off <= hi; off++) {
		uint32_t psn = psn_add(qp->una, off);
		struct txent *e = ent(qp, psn);

		if (!(e->flags & TX_CAND))
			continue;
		e->flags &= (uint8_t)~TX_CAND;
		if ((e->flags & (TX_ACKED | TX_QUEUED)) || !overdue(qp, psn, e, thr, now_ps))
			continue;
		qp->st.loss_sack++;
		mrc_cc_on_loss(&qp->cc, now_ps, ent_len(qp, e, psn), qp->inflight);
		queue_rtx(qp, psn);
		ev_lost(qp, ent_ev(e), 1);
		retire_path(qp, ent_ev(e), now_ps);
	}
}

static void rtt_sample(struct mrc_qp *qp, int evi, uint64_t rtt_ps)
{
	qp->rtt_last_ps = rtt_ps;
	qp->st.rtt_samples++;
	qp->st.rtt_sum_ps += rtt_ps;
	if (!qp->st.rtt_min_ps || rtt_ps < qp->st.rtt_min_ps)
		qp->st.rtt_min_ps = rtt_ps;
	if (rtt_ps > qp->st.rtt_max_ps)
		qp->st.rtt_max_ps = rtt_ps;
	if (evi >= 0) {
		mrc_ev_st(&qp->evs, evi)->rtt_samples++;
		mrc_ev_st(&qp->evs, evi)->rtt_sum_ps += rtt_ps;
		mrc_ev_set_rtt(&qp->evs, (unsigned)evi, rtt_ps);
		qp->rtt_plane_ps[mrc_ev_plane(&qp->evs, evi)] = rtt_ps;
		if (qp->env->ens) {
			struct mrc_qp_rtt_ens *ens = qp->env->ens;
			uint64_t m = 0;

			ens->plane_ps[mrc_ev_plane(&qp->evs, evi)] = rtt_ps;
			for (unsigned p = 0; p < qp->env->planes; p++)
				m = ens->plane_ps[p] > m ? ens->plane_ps[p] : m;
			ens->max_ps = m;
		}
	}
}

/* After acknowledgements: completes what is done and, on progress, restarts the ACK
 * timeout with a fresh retry budget. Returns whether there was progress. */
static bool settle(struct mrc_qp *qp, uint32_t una0, uint64_t newly, uint64_t now_ps)
{
	advance(qp, now_ps);
	if (!newly && qp->una == una0)
		return false;
	qp->tlps = 0;
	qp->last_progress_ps = now_ps;
	qp->retries = 0;
	qp->rto_ps = mrc_qp_timeout_ps(qp->env->qp);
	return true;
}

static void on_sack(struct mrc_qp *qp, const struct mrc_pkt *p, uint64_t now_ps)
{
	const struct mrc_seth *s = &p->seth;
	int evi = mrc_ev_find(&qp->evs, s->ev);
	uint32_t cack = s->cack_psn & MRC_PSN_MASK, ack_psn, base, d24;
	uint64_t newly = 0, rtt = UINT64_MAX;
	bool progress;
	uint32_t una0 = qp->una;
	struct txent *ae;

	qp->st.sack_rx++;
	if (evi >= 0)
		mrc_ev_st(&qp->evs, evi)->sacks++;
	/* A cumulative point at or past next_psn acknowledges PSNs never sent: stale or
	 * foreign; ignore it whole. */
	if (!psn_lt(cack, qp->next_psn)) {
		qp_rare(qp)->sack_stale++;
		return;
	}
	ack_psn = psn_add(cack, s->ack_psn_offset);
	ae = ent(qp, ack_psn);
	if (in_flight_range(qp, ack_psn) && !(ae->flags & TX_ACKED) && (ae->flags & TX_SENT) &&
		!(ae->flags & TX_MULTI) && !s->pr)
		rtt = now_ps - ent_sent(qp, ae);
	/*
	 * The tail probe's copy arrived first (this SACK echoes its EV): the original is lost,
	 * a loss without a trim on its EV, which is a failed path (docs/wire-format.md). The time
	 * rule cannot see it when the lost packet was its flight's last: nothing sent after it.
	 */
	if (in_flight_range(qp, ack_psn) && (ae->flags & (TX_TLP | TX_ACKED)) == TX_TLP &&
		!s->pr && evi >= 0 && evi == ent_ev(ae) && ent_prev_ev(ae) >= 0 &&
		ent_prev_ev(ae) != evi) {
		qp->st.loss_sack++;
		mrc_cc_on_loss(&qp->cc, now_ps, ent_len(qp, ae, ack_psn), qp->inflight);
		ev_lost(qp, ent_prev_ev(ae), 1);
		retire_ev(qp, ent_prev_ev(ae), MRC_EVC_LOSS_SACK, now_ps);
	}
	for (uint32_t q = qp->una; psn_lt(q, psn_add(cack, 1)); q = psn_add(q, 1))
		newly += ack_one(qp, q);
	d24 = (s->rcvd_bytes - qp->peer_rcvd24) & 0xFFFFFF;
	if (d24 < 1u << 23) { /* forward (a late SACK's count is behind: ignored) */
		qp->peer_rcvd += (uint64_t)d24 * 256;
		qp->peer_rcvd24 = s->rcvd_bytes & 0xFFFFFF;
		/* never more than was sent: a forged count opens no more than the flight */
		if (qp->peer_rcvd > qp->acked_total + qp->inflight)
			qp->peer_rcvd = qp->acked_total + qp->inflight;
	}
	base = psn_add(cack, s->sack_offset);
	for (uint64_t m = s->sack_bitmap; m; m &= m - 1) /* its set bits, lowest first */
		newly += ack_one(qp, psn_add(base, __builtin_ctzll(m)));
	if (rtt == UINT64_MAX && qp->env->qp->tseth && !s->pr && s->tx_ts_echo)
		rtt = (uint64_t)(uint16_t)(ts16(now_ps) - s->tx_ts_echo) * 1000;
	if (rtt != UINT64_MAX)
		rtt_sample(qp, evi, rtt);
	if (s->m == MRC_SACK_M_SKIP_ONCE) {
		qp->st.ecn_echo_rx++;
		if (evi >= 0) {
			mrc_ev_st(&qp->evs, evi)->ecn++;
			if (!qp->roce)
				mrc_ev_on_skip(&qp->evs, evi, MRC_EVC_ECN, now_ps);
		}
	} else if (s->m == MRC_SACK_M_ALWAYS_SKIP && evi >= 0 && !qp->roce) {
		retire_ev(qp, evi, MRC_EVC_SACK_BAD, now_ps);
	}
	if (s->pr && !qp->roce && s->m != MRC_SACK_M_ALWAYS_SKIP) { /* not revived by an m=2 */
		if (evi >= 0 && mrc_ev_on_probe_ok(&qp->evs, evi, s->tx_ts_echo, now_ps))
			qp_rare(qp)->probes_ok++;
		else
			qp_rare(qp)->probe_ans_unmatched++;
	}
	if (s->mpr) {
		uint32_t w = (uint32_t)s->mpr * 128;

		qp->peer_win = w < qp->win ? w : qp->win;
	}
	if (newly)
		mrc_cc_on_ack(&qp->cc, now_ps, newly, rtt, s->m == MRC_SACK_M_SKIP_ONCE,
			qp->inflight);
	if (!qp->roce && (s->rcv_cwnd_pen || s->restore_cwnd))
		mrc_cc_on_rcv_pen(&qp->cc, newly, s->rcv_cwnd_pen, s->restore_cwnd);
	progress = settle(qp, una0, newly, now_ps);
	if (!qp->roce)
		infer_losses(qp, now_ps);
	if (progress || qp->rtx_len || s->pr)
		wake(qp, -1);
}

/*
 * RoCE mode, go-back-N (qp.h): every PSN sent from @from on and not acknowledged is
 * resent, in PSN order, before any new one; the retransmit queue is rebuilt so earlier
 * entries cannot reorder it. @from is una or a NAKed PSN (everything before is acked).
 * Returns the PSNs queued, each also counted in *@lost.
 */
static unsigned gbn_rewind(struct mrc_qp *qp, uint32_t from, uint64_t *lost)
{
	unsigned n = 0;
	uint32_t psn;

	for (psn = qp->una; psn_lt(psn, qp->next_psn); psn = psn_add(psn, 1))
		ent(qp, psn)->flags &= (uint8_t)~TX_QUEUED;
	qp->rtx_len = 0;
	for (psn = from; psn_lt(psn, qp->next_psn); psn = psn_add(psn, 1)) {
		struct txent *e = ent(qp, psn);

		if ((e->flags & TX_ACKED) || !(e->flags & TX_SENT))
			continue;
		queue_rtx(qp, psn);
		(*lost)++;
		n++;
	}
	qp_rare(qp)->gbn_rewinds++;
	return n;
}

/*
 * RoCE mode: a NAK for @psn (a sequence NAK, or any NACK): the requester goes back to it.
 * A sequence NAK (@acks_before) also says the responder holds every PSN before it
 * (IBTA: a NAK acknowledges the PSNs preceding it). Stale when @psn is outside
 * [una, next_psn), not yet sent, or already queued again by an earlier rewind.
 */
static void roce_on_nak(
	struct mrc_qp *qp, uint32_t psn, bool acks_before, uint64_t now_ps)
{
	uint32_t una0 = qp->una;
	uint64_t newly = 0;
	struct txent *e;

	for (uint32_t q = qp->una; acks_before && psn_lt(q, psn) && psn_lt(q, qp->next_psn);
		q = psn_add(q, 1))
		newly += ack_one(qp, q);
	if (newly)
		mrc_cc_on_ack(&qp->cc, now_ps, newly, UINT64_MAX, false, qp->inflight);
	settle(qp, una0, newly, now_ps);
	e = ent(qp, psn);
	if (!in_flight_range(qp, psn) || !(e->flags & TX_SENT) || (e->flags & TX_QUEUED)) {
		qp_rare(qp)->nack_stale++;
		if (newly)
			wake(qp, -1);
		return;
	}
	mrc_cc_on_loss(&qp->cc, now_ps, ent_len(qp, e, psn), qp->inflight);
	ev_lost(qp, qp->roce_ev, gbn_rewind(qp, psn, &qp->st.loss_sack));
	wake(qp, -1);
}

/*
 * RoCE mode: an IBTA ACK/NAK (opcode ACK, AETH). ACK: cumulative through the BTH PSN.
 * NAK "PSN sequence error": go back to the BTH PSN. Other NAK codes (RNR, invalid
 * request, access, operational) are not produced by mrcgen's responder: ignored, counted.
 */
static void roce_on_aeth(struct mrc_qp *qp, const struct mrc_pkt *p, uint64_t now_ps)
{
	uint32_t psn = p->psn & MRC_PSN_MASK, una0 = qp->una;
	uint64_t newly = 0;

	if (p->aeth.syndrome == AETH_NAK_PSN_SEQ) {
		qp_rare(qp)->seq_nak_rx++;
		roce_on_nak(qp, psn, true, now_ps);
		return;
	}
	if (AETH_KIND(p->aeth.syndrome) != 0 || !psn_lt(psn, qp->next_psn)) {
		qp_rare(qp)->rx_ignored++;
		return;
	}
	for (uint32_t q = qp->una; psn_lt(q, psn_add(psn, 1)); q = psn_add(q, 1))
		newly += ack_one(qp, q);
	if (newly)
		mrc_cc_on_ack(&qp->cc, now_ps, newly, UINT64_MAX, false, qp->inflight);
	if (settle(qp, una0, newly, now_ps))
		wake(qp, -1);
}

static void on_nack(struct mrc_qp *qp, const struct mrc_pkt *p, uint64_t now_ps)
{
	const struct mrc_neth *n = &p->neth;
	uint32_t psn = n->nack_psn & MRC_PSN_MASK;
	int evi = mrc_ev_find(&qp->evs, n->ev), ri = mrc_nack_idx(n->reason);
	struct txent *e = ent(qp, psn);

	qp_rare(qp)->nack_rx[ri]++;
	if (evi >= 0)
		mrc_ev_st(&qp->evs, evi)->nacks++;
	if (n->reason == MRC_NACK_UNEXP_EVENT) {
		qp_fail(qp, -ECONNABORTED, now_ps, "NACK UNEXP_EVENT from peer for PSN 0x%06x",
			psn);
		return;
	}
	if (qp->roce) { /* no trimming reaction, no EV: every NACK is a loss (qp.h) */
		roce_on_nak(qp, psn, false, now_ps);
		return;
	}
	/* Stale: already acknowledged (C11), never sent, already queued, or about an earlier
	 * transmission (retransmissions go out on another EV than the one echoed). */
	if (!in_flight_range(qp, psn) || (e->flags & (TX_ACKED | TX_QUEUED)) ||
		!(e->flags & TX_SENT) || (evi >= 0 && evi != ent_ev(e)) || ri == MRC_NI_OTHER) {
		qp_rare(qp)->nack_stale++;
		return;
	}
	switch (n->reason) {
	case MRC_NACK_TRIMMED:
		if (evi >= 0) {
			mrc_ev_st(&qp->evs, evi)->trims++;
			mrc_ev_on_skip(&qp->evs, evi, MRC_EVC_TRIM, now_ps);
		}
		mrc_cc_on_trim(&qp->cc, now_ps, ent_len(qp, e, psn), qp->inflight);
		break;
	case MRC_NACK_TRIMMED_LASTHOP: /* the receiver's link, not the path: EV keeps GOOD */
		if (evi >= 0)
			mrc_ev_st(&qp->evs, evi)->trims++;
		mrc_cc_on_trim(&qp->cc, now_ps, ent_len(qp, e, psn), qp->inflight);
		break;
	default: /* NO_BITMAP, NO_PKT_BUFFER, NO_RESOURCE, PSN_OOR_WINDOW: back off */
		qp->backoff_until_ps = now_ps + qp->env->qp->nack_backoff_ps;
		break;
	}
	queue_rtx(qp, psn);
	wake(qp, -1);
}

/* ---- responder ---------------------------------------------------------------------- */

/* Received, for @psn at or after epsn? Only [epsn, epsn + rxcap) can have bits. */
static bool rx_bit(const struct mrc_qp *qp, uint32_t psn)
{
	uint32_t i = psn & (qp->rxcap - 1);

	if ((uint32_t)psn_diff(psn, qp->epsn) >= qp->rxcap)
		return false;
	return qp->rxmap[i / 64] >> (i % 64) & 1;
}

/* Sets or clears @psn's bit; it is in [epsn, epsn + rxcap). */
static void rx_set(struct mrc_qp *qp, uint32_t psn, bool v)
{
	uint32_t i = psn & (qp->rxcap - 1);

	if (v)
		qp->rxmap[i / 64] |= 1ull << (i % 64);
	else
		qp->rxmap[i / 64] &= ~(1ull << (i % 64));
}

/*
 * Grows the receive bitmap to cover epsn + @d (@d < rwin): the smallest power of 2 above
 * @d, its bits moved to their PSNs' new places. A QP of an all-to-all, a few PSNs in
 * flight, keeps the first word: the window's 1024 bits (mpr 8) were 128 bytes of each.
 * Returns 0 or -ENOMEM.
 */
static int rx_grow(struct mrc_qp *qp, uint32_t d)
{
	uint32_t cap = pow2_at_least(d + 1);
	uint64_t *map = calloc(cap / 64, sizeof(*map));

	if (!map)
		return -ENOMEM;
	for (uint32_t t = 0; t < qp->rxcap; t++) {
		uint32_t psn = psn_add(qp->epsn, (int32_t)t), i = psn & (cap - 1);

		if (rx_bit(qp, psn))
			map[i / 64] |= 1ull << (i % 64);
	}
	qp_release(qp, qp->rxmap);
	qp->rxmap = map;
	qp->rxcap = cap;
	return 0;
}

/* rx_has() of the 64 PSNs from @base, bit i for base + i: a word or two of the ring. */
static uint64_t rx_has64(const struct mrc_qp *qp, uint32_t base)
{
	/* bits are kept for [epsn, epsn + lim): past it nothing was received */
	int32_t d0 = psn_diff(base, qp->epsn);
	int32_t lim = (int32_t)(qp->rxcap < qp->rwin ? qp->rxcap : qp->rwin);
	uint32_t j = base & (qp->rxcap - 1), k = j % 64, nw = qp->rxcap / 64;
	uint64_t bits;

	if (d0 <= -64)
		return ~0ull;
	if (d0 >= lim)
		return 0;
	bits = qp->rxmap[j / 64] >> k;
	if (k)
		bits |= qp->rxmap[(j / 64 + 1) & (nw - 1)] << (64 - k);
	if (d0 < 0) /* before epsn: received */
		bits |= (1ull << -d0) - 1;
	if (d0 + 64 > lim)
		bits &= (1ull << (lim - d0)) - 1;
	return bits;
}

/* The EV control packets use on @plane: a GOOD one of our own, kept fresh. */
static uint32_t ctl_ev(struct mrc_qp *qp, unsigned plane, uint64_t now_ps)
{
	int idx = qp->ctl_ev[plane];

	if (qp->roce) /* the QP's one UDP source port, whatever the port (qp.h "RoCE mode") */
		return roce_wire_ev(qp);
	if (idx < 0 || mrc_ev_state(&qp->evs, (unsigned)idx) != MRC_EV_GOOD ||
		!mrc_ev_active(&qp->evs, (unsigned)idx)) {
		const struct mrc_ev_profile *f = qp->evs.prof;

		idx = mrc_ev_pick(&qp->evs, plane, &qp->rng, -1, false, now_ps);
		if (idx < 0)
			idx = f->plane_n[plane] ? (int)f->pidx[f->plane_off[plane]] : 0;
		qp->ctl_ev[plane] = idx;
	}
	return mrc_ev_value(&qp->evs, idx);
}

/* The plane a control packet answering on @plane leaves on: that one, unless the peer
 * reported its port there down. */
static unsigned ctl_plane(const struct mrc_qp *qp, unsigned plane)
{
	if (!(qp->peer_down >> plane & 1))
		return plane;
	for (unsigned p = 0; p < qp->env->planes; p++)
		if (plane_ok(qp, p))
			return p;
	return plane;
}

/*
 * Starts control packet @c answering on @plane; returns the plane it is to leave on. A
 * SACK or NACK answering a packet that came over EV @echo (MRC_NO_EV: none) goes back over
 * the same EV, hence the same spine: that path just carried a packet. A responder that
 * sends no data of its own (one direction of a ring) never learns that its own control
 * EV crosses a dead spine, so with a fixed control EV its SACKs were lost until the
 * requester's ACK timeout.
 */
static unsigned ctl_common(struct mrc_qp *qp, unsigned plane, uint8_t opcode, uint32_t echo,
	uint64_t now_ps, struct mrc_pkt *c)
{
	unsigned in = plane;

	plane = ctl_plane(qp, plane);
	memset(c, 0, sizeof(*c));
	c->opcode = opcode;
	c->hop_limit = 64;
	c->dscp = qp->env->qp->dscp_ctl;
	if (echo != MRC_NO_EV && plane == in && !qp->roce &&
		qp->env->ev_plane(qp->env->ctx, echo) == plane)
		c->ev = echo;
	else
		c->ev = ctl_ev(qp, plane, now_ps);
	c->dest_qp = qp->peer_qpn;
	c->psn = psn_add(qp->epsn, -1);
	return plane;
}

/*
 * rcv_cwnd_pen of our next SACK (docs/wire-format.md "Receiver signals"): 0..127, the
 * larger of the buffer rule (the PSNs held out of order past half the receive window:
 * 127 at a full window) and the share rule (this QP arrives faster than its share of
 * our ports, when they are the bottleneck: 128 x (1 - share / rate)). 0 with the knob off.
 */
static uint8_t rcv_pen(const struct mrc_qp *qp)
{
	uint32_t held = 0, half = qp->rwin / 2;
	uint64_t fair, pen = 0;

	if (!qp->env->qp->rcv_pen || qp->roce)
		return 0;
	if (qp->have_max && !psn_lt(qp->max_seen, qp->epsn))
		held = (uint32_t)psn_diff(qp->max_seen, qp->epsn) + 1;
	if (half && held > half)
		pen = (uint64_t)128 * (held - half) / half;
	fair = qp->env->rx_fair_bps ? qp->env->rx_fair_bps(qp->env->owner) : 0;
	if (fair && qp->rx_rate_bps > fair) {
		uint64_t p = 128 - 128 * fair / qp->rx_rate_bps;

		pen = p > pen ? p : pen;
	}
	return (uint8_t)(pen > 127 ? 127 : pen);
}

/* SACK acknowledging the arrival of @psn (docs/wire-format.md SETH): cack = epsn - 1, bitmap base =
 * cack unless @psn lies beyond bit 63, then @psn is the bitmap's last bit. */
static void send_sack(struct mrc_qp *qp, unsigned plane, uint32_t psn, uint32_t echo_ev, uint8_t m,
	bool pr, uint16_t ts_echo, uint64_t now_ps)
{
	struct mrc_pkt c;
	struct mrc_seth *s = &c.seth;

	qp->sack_due_ps = UINT64_MAX;
	uint32_t cack = psn_add(qp->epsn, -1);
	int32_t rel = psn_diff(psn, cack), off = rel < 64 ? 0 : rel - 63;

	plane = ctl_common(qp, plane, MRC_OP_SACK, echo_ev, now_ps, &c);
	s->m = m;
	s->pr = pr;
	s->ack_psn_offset = (int16_t)(rel > INT16_MAX	? INT16_MAX
				      : rel < INT16_MIN ? INT16_MIN
							: rel);
	s->ev = echo_ev;
	s->spdcid = (uint16_t)qp->qpn;
	s->dpdcid = (uint16_t)qp->peer_qpn;
	s->cack_psn = cack;
	s->cc_type = 1;
	s->mpr = qp->env->qp->mpr;
	s->sack_offset = (int16_t)off;
	s->sack_bitmap = rx_has64(qp, psn_add(cack, off));
	s->tx_ts_echo = ts_echo;
	s->ooo_count = (uint16_t)(qp->ooo & 0x7FFF);
	s->rcv_cwnd_pen = rcv_pen(qp);
	s->restore_cwnd = !s->rcv_cwnd_pen && qp->pen_on;
	qp->pen_on = s->rcv_cwnd_pen != 0;
	s->rcvd_bytes = (uint32_t)(qp->rcvd_bytes / 256) & 0xFFFFFF;
	qp->env->emit_ctl(qp->env->owner, plane, qp->peer_host, &c);
	qp->st.sack_tx++;
	qp->bytes_since_sack = 0;
	qp->ooo_since_sack = 0;
}

static void send_nack(struct mrc_qp *qp, unsigned plane, uint32_t psn, uint8_t reason,
	uint32_t echo_ev, uint16_t ts_echo, uint64_t now_ps)
{
	struct mrc_pkt c;

	plane = ctl_common(qp, plane, MRC_OP_NACK, echo_ev, now_ps, &c);
	c.neth.reason = reason;
	c.neth.ev = echo_ev;
	c.neth.spdcid = (uint16_t)qp->qpn;
	c.neth.dpdcid = (uint16_t)qp->peer_qpn;
	c.neth.nack_psn = psn;
	c.neth.cc_type = 1;
	c.neth.tx_ts_echo = ts_echo;
	qp->env->emit_ctl(qp->env->owner, plane, qp->peer_host, &c);
	qp_rare(qp)->nack_tx[mrc_nack_idx(reason)]++;
}

/* RoCE mode: NAK "PSN sequence error" for the expected PSN, once per gap (qp.h). */
static void send_seq_nak(struct mrc_qp *qp, unsigned plane, uint64_t now_ps)
{
	struct mrc_pkt c;

	plane = ctl_common(qp, plane, MRC_OP_ACK, MRC_NO_EV, now_ps, &c);
	c.psn = qp->epsn;
	c.aeth.syndrome = AETH_NAK_PSN_SEQ;
	c.aeth.msn = qp->next_cmsn;
	qp->env->emit_ctl(qp->env->owner, plane, qp->peer_host, &c);
	qp_rare(qp)->seq_nak_tx++;
	qp->nak_sent = true;
}

static bool is_data(uint8_t op)
{
	return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM;
}

static void deliver(struct mrc_qp *qp, uint64_t now_ps)
{
	for (;;) {
		struct rxmsg *m = &qp->rxm[qp->next_cmsn & (qp->rxm_cap - 1)];

		if (!m->seen || m->got != m->dma_len)
			return;
		qp->st.msgs_delivered++;
		if (m->has_imm && qp->env->ops && qp->env->ops->recv_imm)
			qp->env->ops->recv_imm(qp->env->ctx, qp->qpn, m->imm, m->dma_len, now_ps);
		*m = (struct rxmsg){0};
		qp->next_cmsn++;
	}
}

/*
 * Grows the receive ring (up to rxm_max) until it holds MSN next_cmsn + @md; messages
 * next_cmsn .. next_cmsn + rxm_cap - 1 keep their entries (the others are empty).
 * Returns 0 or -ENOMEM.
 */
static int rxm_grow(struct mrc_qp *qp, uint32_t md)
{
	uint32_t cap = qp->rxm_cap;
	struct rxmsg *m;

	while (cap <= md)
		cap *= 2;
	m = calloc(cap, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (uint32_t i = 0; i < qp->rxm_cap; i++) {
		uint16_t msn = (uint16_t)(qp->next_cmsn + i);

		m[msn & (cap - 1)] = qp->rxm[msn & (qp->rxm_cap - 1)];
	}
	qp_release(qp, qp->rxm);
	qp->rxm = m;
	qp->rxm_cap = cap;
	return 0;
}

/*
 * The m of the SACK answering a packet that came over EV @ev (docs/wire-format.md
 * "Receiver signals"): 2 (ALWAYS_SKIP) when this QP has that EV DENIED (configuration or
 * the control interface: the path is not to be used towards us either), else 1
 * (SKIP_ONCE) on CE, else 0.
 */
static uint8_t sack_m(const struct mrc_qp *qp, uint32_t ev, bool ce)
{
	int idx = qp->roce ? -1 : mrc_ev_find(&qp->evs, ev);

	if (idx >= 0 && mrc_ev_state(&qp->evs, (unsigned)idx) == MRC_EV_DENIED)
		return MRC_SACK_M_ALWAYS_SKIP;
	return ce ? MRC_SACK_M_SKIP_ONCE : 0;
}

static void on_data(
	struct mrc_qp *qp, unsigned plane, const struct mrc_pkt *p, bool ce, uint64_t now_ps)
{
	uint32_t psn = p->psn & MRC_PSN_MASK;
	int32_t d = psn_diff(psn, qp->epsn);
	uint16_t ts = (p->flags & MRC_BTH_F_TS) ? p->tx_ts : 0;
	uint16_t md = (uint16_t)(p->msn - qp->next_cmsn);
	struct rxmsg *m;
	bool sack;

	qp->st.rx_data_pkts++;
	if (ce)
		qp->st.rx_ce++;
	if (qp->roce && p->trimmed) {
		qp_rare(qp)->rx_trimmed++; /* a loss: no NACK TRIMMED (qp.h "RoCE mode") */
		return;
	}
	if (qp->roce && d > 0) {
		qp_rare(qp)->rx_out_of_seq++;
		if (!qp->nak_sent)
			send_seq_nak(qp, plane, now_ps);
		return;
	}
	if (p->trimmed) {
		qp_rare(qp)->rx_trimmed++;
		if (d >= 0 && (uint32_t)d < qp->rwin && !rx_bit(qp, psn)) {
			send_nack(qp, plane, psn,
				p->dscp == qp->env->dscp_trimmed_lasthop ? MRC_NACK_TRIMMED_LASTHOP
									: MRC_NACK_TRIMMED,
				p->ev, ts, now_ps);
			/* The trim cuts the sender's window: packets delivered in order and not
			 * yet SACKed would hold it shut and the retransmission behind it until the
			 * ACK timeout. Acknowledge them now, and those still on their way below
			 * the trimmed PSN as they arrive. */
			if (!qp->have_trim || psn_lt(qp->trim_hi, psn))
				qp->trim_hi = psn;
			qp->have_trim = true;
			if (qp->bytes_since_sack)
				send_sack(qp, plane, psn_add(qp->epsn, -1), p->ev, 0, false, 0,
					now_ps);
		}
		return;
	}
	if (d < 0 || ((uint32_t)d < qp->rwin && rx_bit(qp, psn))) {
		qp->st.rx_dup++; /* detected first: never also counted as reordered (C09) */
		send_sack(qp, plane, psn, p->ev, sack_m(qp, p->ev, ce), false, ts, now_ps);
		return;
	}
	if ((uint32_t)d >= qp->rwin) {
		qp_rare(qp)->rx_oor++;
		send_nack(qp, plane, psn, MRC_NACK_PSN_OOR_WINDOW, p->ev, ts, now_ps);
		return;
	}
	if (md >= qp->rxm_max || (md >= qp->rxm_cap && rxm_grow(qp, md))) {
		qp_rare(qp)->rx_msn_oor++;
		send_nack(qp, plane, psn, MRC_NACK_NO_RESOURCE, p->ev, ts, now_ps);
		return;
	}
	if ((uint32_t)d >= qp->rxcap && rx_grow(qp, (uint32_t)d)) {
		send_nack(qp, plane, psn, MRC_NACK_NO_BITMAP, p->ev, ts, now_ps);
		return;
	}
	if (p->payload_len &&
		qp->env->place(qp->env->owner, p->rkey, p->va, p->payload, p->payload_len)) {
		qp_rare(qp)->rx_access_err++;
		send_nack(qp, plane, psn, MRC_NACK_UNEXP_EVENT, p->ev, ts, now_ps);
		return;
	}
	rx_set(qp, psn, true);
	qp->st.rx_unique++;
	qp->rcvd_bytes += p->payload_len; /* also rx_payload_bytes and placed_bytes */
	if (now_ps - qp->rxw_start_ps >= 2 * qp->cc.p->base_rtt_ps) {
		uint64_t dur = now_ps - qp->rxw_start_ps;

		qp->rx_rate_bps = dur < 4 * qp->cc.p->base_rtt_ps
					  ? (uint64_t)((double)qp->rxw_bytes * 8e12 / (double)dur)
					  : 0; /* after a pause: no rate yet */
		qp->rxw_start_ps = now_ps;
		qp->rxw_bytes = 0;
	}
	qp->rxw_bytes += p->payload_len;
	if (qp->have_max && psn_lt(psn, psn_add(qp->max_seen, 1)))
		qp->st.rx_reordered++;
	if (!qp->have_max || psn_lt(qp->max_seen, psn))
		qp->max_seen = psn;
	qp->have_max = true;
	if (d != 0)
		qp->ooo++;
	m = &qp->rxm[p->msn & (qp->rxm_cap - 1)];
	if (!m->seen) {
		m->seen = true;
		m->dma_len = p->dma_len;
	}
	m->got += p->payload_len;
	if (p->opcode == MRC_OP_WRITE_LAST_IMM || p->opcode == MRC_OP_WRITE_ONLY_IMM) {
		m->has_imm = true;
		m->imm = p->imm;
	}
	/* Only PSNs in [epsn, epsn + rwin) have bits, so epsn's slot is epsn's own. */
	while (rx_bit(qp, qp->epsn)) {
		rx_set(qp, qp->epsn, false);
		qp->epsn = psn_add(qp->epsn, 1);
	}
	if (d == 0)
		qp->nak_sent = false; /* the gap a sequence NAK reported is closed */
	if (qp->have_trim && psn_lt(qp->trim_hi, qp->epsn))
		qp->have_trim = false; /* every trimmed PSN arrived again */
	deliver(qp, now_ps);
	qp->bytes_since_sack += p->payload_len;
	/*
	 * ACK cadence of UEC's reference (uec.cpp UecSink::processData): a SACK on an ack
	 * request, on CE, on the first arrival, and once sack_every_bytes arrived since the
	 * last one; a second one when an ack request came with holes below it and they are
	 * filled. mrcgen adds: at once below a trimmed PSN (see above), and, with
	 * sack_ooo_every N > 0, every N arrivals that are not the next expected PSN.
	 */
	bool ooo = d != 0 || qp->epsn != psn_add(psn, 1);
	bool ar = p->flags & MRC_BTH_F_ACKREQ;
	uint32_t every = qp->env->qp->sack_ooo_every;

	if (ooo)
		qp->ooo_since_sack++;
	if (ar && psn_lt(qp->epsn, psn_add(qp->max_seen, 1)))
		qp->ar_pending = true;
	sack = ar || ce || qp->st.rx_unique == 1 ||
	       qp->bytes_since_sack >= qp->env->qp->sack_every_bytes ||
	       (every && ooo && qp->ooo_since_sack >= every) ||
	       (qp->have_trim && psn_lt(psn, qp->trim_hi));
	if (!ar && qp->ar_pending && qp->epsn == psn_add(qp->max_seen, 1)) {
		qp->ar_pending = false;
		sack = true;
	}
	if (sack) {
		send_sack(qp, plane, psn, p->ev, sack_m(qp, p->ev, ce), false, ts, now_ps);
		return;
	}
	/* held: it goes at the latest sack_delay after the first arrival it holds (the
	 * delayed-ACK timer of RFC 1122 §4.2.3.2), so a sender whose packets come far apart
	 * hears of them in a bounded time, which its tail probe waits for (tlp_due_ps) */
	if (qp->sack_due_ps == UINT64_MAX)
		qp->sack_due_ps = now_ps + sack_delay_ps(qp);
	qp->held_psn = psn;
	qp->held_ev = p->ev;
	qp->held_ts = ts;
	qp->held_plane = (uint8_t)plane;
}

/* Packets in flight through port @plane (ours or the peer's) went down with it. */
static void requeue_plane(struct mrc_qp *qp, unsigned plane)
{
	for (uint32_t psn = qp->una; psn_lt(psn, qp->next_psn); psn = psn_add(psn, 1)) {
		struct txent *e = ent(qp, psn);

		if ((e->flags & TX_INFLIGHT) && ent_plane(qp, e) == plane) {
			qp_rare(qp)->loss_port++;
			queue_rtx(qp, psn);
		}
	}
}

void mrc_qp_on_pkt(
	struct mrc_qp *qp, unsigned plane, const struct mrc_pkt *p, bool ce, uint64_t now_ps)
{
	if (qp->failed || plane >= qp->env->planes) {
		qp_rare(qp)->rx_ignored++;
		return;
	}
	qp->ack_now_ps = now_ps;
	if (is_data(p->opcode)) {
		on_data(qp, plane, p, ce, now_ps);
	} else if (p->opcode == MRC_OP_SACK) {
		on_sack(qp, p, now_ps);
	} else if (p->opcode == MRC_OP_NACK) {
		on_nack(qp, p, now_ps);
	} else if (p->opcode == MRC_OP_ACK && qp->roce) {
		roce_on_aeth(qp, p, now_ps);
	} else if (p->opcode == MRC_OP_PROBE) {
		qp_rare(qp)->probes_rx++;
		send_sack(qp, plane, psn_add(qp->epsn, -1), p->ev, sack_m(qp, p->ev, ce), true,
			p->peth.tx_ts, now_ps);
	} else {
		qp_rare(qp)->rx_ignored++;
	}
}

/* ---- timers ------------------------------------------------------------------------- */

static bool rto_armed(const struct mrc_qp *qp)
{
	return !qp->failed && (qp->una != qp->next_psn || qp->sq_head != qp->sq_tail);
}

/* Planes usable both ways; 0 without ASSUMED_BAD EVs, where no probe is due anyway and
 * the plane_up calls (one per plane, per timer query) are saved. */
static uint32_t up_mask(const struct mrc_qp *qp)
{
	uint32_t m = 0;

	if (!qp->evs.n_bad)
		return 0;

	for (unsigned p = 0; p < qp->env->planes; p++)
		if (plane_ok(qp, p))
			m |= 1u << p;
	return m;
}

uint64_t mrc_qp_next_timer(const struct mrc_qp *qp)
{
	uint64_t t = UINT64_MAX, pr;

	if (qp->failed)
		return t;
	if (rto_armed(qp))
		t = qp->last_progress_ps + qp->rto_ps;
	if (qp->backoff_until_ps && qp->backoff_until_ps < t && qp->rtx_len)
		t = qp->backoff_until_ps;
	if (qp->rack_at_ps < t)
		t = qp->rack_at_ps;
	if (!qp->roce && qp->tlps < TLP_MAX && qp->inflight && tlp_due_ps(qp) < t)
		t = tlp_due_ps(qp);
	if (qp->sack_due_ps < t)
		t = qp->sack_due_ps;
	pr = mrc_ev_next_probe(&qp->evs, up_mask(qp));
	if (pr != UINT64_MAX && (pr > qp->probe_woken_ps || qp->probe_woken_ps == 0) && pr < t)
		t = pr;
	return t;
}

static void on_rto(struct mrc_qp *qp, uint64_t now_ps)
{
	const struct mrc_qp_params *p = qp->env->qp;
	uint64_t oldest = 0;
	uint32_t psn;

	qp->retries++;
	qp_rare(qp)->rto_events++;
	if (p->retry_exp < MRC_QP_RETRY_FOREVER &&
		qp->retries > (unsigned)p->retry_linear + p->retry_exp) {
		qp_fail(qp, -ETIMEDOUT, now_ps,
			"ACK timeout: PSN 0x%06x unacknowledged after %u retries, %" PRIu64
			" ns without progress (timeout %u, retry %u linear + %u exponential)",
			qp->una, qp->retries - 1, mrc_qp_give_up_ps(p) / 1000, p->timeout,
			p->retry_linear, p->retry_exp);
		return;
	}
	if (qp->roce)
		ev_lost(qp, qp->roce_ev, gbn_rewind(qp, qp->una, &qp_rare(qp)->loss_rto));
	for (psn = qp->una; !qp->roce && psn_lt(psn, qp->next_psn); psn = psn_add(psn, 1)) {
		struct txent *e = ent(qp, psn);

		if ((e->flags & (TX_ACKED | TX_QUEUED)) || !(e->flags & TX_SENT))
			continue;
		qp_rare(qp)->loss_rto++;
		if (!oldest)
			oldest = ent_len(qp, e, psn);
		ev_lost(qp, ent_ev(e), 1);
		mrc_ev_on_bad(&qp->evs, ent_ev(e), MRC_EVC_LOSS_RTO, now_ps);
		queue_rtx(qp, psn);
	}
	/* NSCC (uec.cpp mark_packet_for_retransmission): the window loses the oldest packet's
	 * bytes, that of the first resent */
	mrc_cc_on_rto(&qp->cc, now_ps, oldest ? oldest : qp->env->qp->mtu);
	qp->rto_ps = rto_after(p, qp->retries);
	qp->last_progress_ps = now_ps;
	wake(qp, -1);
}

/*
 * Tail loss probe (RFC 8985 §7): nothing was sent for the time rule's window (rack_wnd)
 * and data is unacknowledged, so the last packet sent is resent on another EV. If the
 * original was lost, the probe's acknowledgement lets the time-based rule find it; without
 * this a lost last packet waits for the ACK timeout. RFC 8985 sends one per flight; on a
 * sprayed fabric the probe's own EV may cross the failure that took the original (another
 * EV through the same dead spine), so up to TLP_MAX go out, each a doubled window after
 * the one before (tlp_due_ps), before the ACK timeout is left to act.
 */
static void tail_probe(struct mrc_qp *qp)
{
	uint64_t best = 0;
	uint32_t pick = qp->next_psn;

	qp->tlps++;
	for (uint32_t psn = qp->una; psn_lt(psn, qp->next_psn); psn = psn_add(psn, 1)) {
		struct txent *e = ent(qp, psn);

		if ((e->flags & (TX_ACKED | TX_QUEUED)) || !(e->flags & TX_SENT))
			continue;
		if (txseq_full(qp, e->txseq) >= best) {
			best = txseq_full(qp, e->txseq);
			pick = psn;
		}
	}
	if (pick == qp->next_psn)
		return;
	qp->st.tlp++;
	queue_rtx(qp, pick);
	ent(qp, pick)->flags |= TX_TLP;
	wake(qp, -1);
}

void mrc_qp_on_timer(struct mrc_qp *qp, uint64_t now_ps)
{
	uint64_t pr;

	if (qp->failed)
		return;
	if (rto_armed(qp) && now_ps >= qp->last_progress_ps + qp->rto_ps)
		on_rto(qp, now_ps);
	if (qp->failed)
		return;
	if (now_ps >= qp->sack_due_ps)
		send_sack(qp, qp->held_plane, qp->held_psn, qp->held_ev,
			sack_m(qp, qp->held_ev, false), false, qp->held_ts, now_ps);
	if (qp->backoff_until_ps && now_ps >= qp->backoff_until_ps) {
		qp->backoff_until_ps = 0;
		wake(qp, -1);
	}
	if (!qp->roce && qp->tlps < TLP_MAX && qp->inflight && now_ps >= tlp_due_ps(qp))
		tail_probe(qp);
	if (now_ps >= qp->rack_at_ps) {
		uint32_t before = qp->rtx_len;

		infer_losses(qp, now_ps);
		if (qp->rtx_len != before)
			wake(qp, -1);
	}
	pr = mrc_ev_next_probe(&qp->evs, up_mask(qp));
	if (pr <= now_ps) {
		for (unsigned p = 0; p < qp->env->planes; p++)
			if (mrc_ev_probe_due(&qp->evs, p, now_ps) >= 0 && plane_ok(qp, p))
				wake(qp, (int)p);
		qp->probe_woken_ps = now_ps;
	}
}

void mrc_qp_port_status(struct mrc_qp *qp, unsigned plane, bool up, uint64_t now_ps)
{
	(void)now_ps;
	if (qp->failed || plane >= qp->env->planes)
		return;
	/* RoCE: a single-port RC QP: what was in flight is lost, the ACK timeout resends it
	 * once the port is back. MRC: what was in flight on the port is resent elsewhere now;
	 * the endpoint tells the peers (mrc_ep_port_status). */
	if (!up && !qp->roce) {
		requeue_plane(qp, plane);
		qp->ctl_ev[plane] = -1;
	}
	wake(qp, -1);
}

void mrc_qp_peer_ports(struct mrc_qp *qp, uint32_t up_planes)
{
	uint32_t all = (uint32_t)((1ull << qp->env->planes) - 1);
	uint32_t down = ~up_planes & all, gone = down & ~qp->peer_down;

	if (qp->failed || qp->roce)
		return;
	qp_rare(qp)->port_status_rx++;
	qp->peer_down = down;
	for (unsigned p = 0; p < qp->env->planes; p++)
		if (gone >> p & 1)
			requeue_plane(qp, p);
	wake(qp, -1);
}

uint32_t mrc_qp_ctl_ev(struct mrc_qp *qp, unsigned plane, uint64_t now_ps)
{
	return plane < qp->env->planes ? ctl_ev(qp, plane, now_ps) : MRC_NO_EV;
}

/* ---- inspection --------------------------------------------------------------------- */

void mrc_qp_get_stats(const struct mrc_qp *qp, struct mrc_qp_stats *out)
{
	const struct qp_hot *h = &qp->st;
	const struct qp_rare *r = qp->rare;

	*out = (struct mrc_qp_stats){
		.msgs_posted = h->msgs_posted,
		.msgs_done = h->msgs_done,
		.data_pkts = h->data_pkts,
		.data_bytes = h->data_bytes,
		.rtx_pkts = h->rtx_pkts,
		.rtx_bytes = h->rtx_bytes,
		.sack_rx = h->sack_rx,
		.ecn_echo_rx = h->ecn_echo_rx,
		.loss_sack = h->loss_sack,
		.tlp = h->tlp,
		.rtt_samples = h->rtt_samples,
		.rtt_sum_ps = h->rtt_sum_ps,
		.rtt_min_ps = h->rtt_min_ps,
		.rtt_max_ps = h->rtt_max_ps,
		.rx_data_pkts = h->rx_data_pkts,
		.rx_payload_bytes = qp->rcvd_bytes,
		.rx_unique = h->rx_unique,
		.rx_dup = h->rx_dup,
		.rx_reordered = h->rx_reordered,
		.rx_ce = h->rx_ce,
		.sack_tx = h->sack_tx,
		.msgs_delivered = h->msgs_delivered,
		.placed_bytes = qp->rcvd_bytes,
	};
	if (r) {
		out->sack_stale = r->sack_stale;
		memcpy(out->nack_rx, r->nack_rx, sizeof(out->nack_rx));
		out->nack_stale = r->nack_stale;
		out->probes_tx = r->probes_tx;
		out->probes_ok = r->probes_ok;
		out->loss_rto = r->loss_rto;
		out->loss_port = r->loss_port;
		out->loss_path = r->loss_path;
		out->rto_events = r->rto_events;
		out->rx_oor = r->rx_oor;
		out->rx_trimmed = r->rx_trimmed;
		out->rx_access_err = r->rx_access_err;
		out->rx_msn_oor = r->rx_msn_oor;
		memcpy(out->nack_tx, r->nack_tx, sizeof(out->nack_tx));
		out->probes_rx = r->probes_rx;
		out->rx_ignored = r->rx_ignored;
		out->rx_out_of_seq = r->rx_out_of_seq;
		out->seq_nak_tx = r->seq_nak_tx;
		out->seq_nak_rx = r->seq_nak_rx;
		out->gbn_rewinds = r->gbn_rewinds;
		out->port_status_rx = r->port_status_rx;
		out->probe_ans_unmatched = r->probe_ans_unmatched;
	}
	if (qp->have_max) {
		uint64_t span =
			(uint64_t)psn_diff(qp->max_seen, qp->env->qp->start_psn & MRC_PSN_MASK) + 1;

		out->rx_lost = span > h->rx_unique ? span - h->rx_unique : 0;
	}
}

int mrc_qp_roce_path(const struct mrc_qp *qp, unsigned *plane, unsigned *ev_idx)
{
	if (!qp->roce)
		return -EINVAL;
	*plane = qp->roce_plane;
	*ev_idx = (unsigned)qp->roce_ev;
	return 0;
}

bool mrc_qp_failed(const struct mrc_qp *qp, const char **reason)
{
	if (reason)
		*reason = !qp->failed ? NULL
			  : qp->reason	? qp->reason
			  : qp->fail_to ? "ACK timeout (no memory for the details)"
					: "NACK UNEXP_EVENT from peer (no memory for the details)";
	return qp->failed;
}

struct mrc_ev_set *mrc_qp_evs(struct mrc_qp *qp)
{
	return &qp->evs;
}

const struct mrc_cc *mrc_qp_cc(const struct mrc_qp *qp)
{
	return &qp->cc;
}

uint32_t mrc_qp_next_psn(const struct mrc_qp *qp)
{
	return qp->next_psn;
}

uint32_t mrc_qp_una(const struct mrc_qp *qp)
{
	return qp->una;
}

uint64_t mrc_qp_inflight(const struct mrc_qp *qp)
{
	return qp->inflight;
}
