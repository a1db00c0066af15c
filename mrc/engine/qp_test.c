/* SPDX-License-Identifier: BSD-2-Clause */
/* qp_test: unit tests of mrc/engine/qp.c (`mrcgen-test qp`). */
#include "mrc/engine/qp.c"
#include "mrc/engine/ep.h"
#include "mrc/engine/st_net.h"
#include "mrc/base/st.h"

/* The oracle of Q23: received? Everything before epsn is; the window holds the rest. */
static bool rx_has(const struct mrc_qp *qp, uint32_t psn)
{
	int32_t d = psn_diff(psn, qp->epsn);

	if (d < 0)
		return true;
	if ((uint32_t)d >= qp->rwin)
		return false;
	return rx_bit(qp, psn);
}

/* ---- selftest: two endpoints through a tiny scripted network ------------------------ */


#define TN_PLANES 4
#define TN_RATE_BPS 100000000000ull /* per port */
#define TN_DELAY_PS 1000000ull	    /* one way, 1 us */

enum { TN_PASS = 0, TN_DROP, TN_DUP };

struct tn;

struct tn_host {
	struct tn *tn;
	unsigned h;
};

struct tn_ev {
	uint64_t t, seq;
	unsigned to, plane;
	uint32_t len;
	uint8_t *b;
};

/* Returns TN_PASS/TN_DROP/TN_DUP for a packet leaving host @from; may edit the bytes (trim,
 * CE) and add delay. @d is the decoded packet. */
typedef int (*tn_hook)(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra_ps);

struct tn {
	struct mrc_ep *ep[2];
	struct tn_host hc[2];
	struct mrc_wire_cfg wire;
	unsigned planes;
	uint64_t now, delay_ps; /* one-way delay */
	bool want[2][TN_PLANES];
	unsigned ready_calls[2]; /* tx_ready callbacks per host */
	bool down[2][TN_PLANES]; /* port down: nothing is delivered to it */
	uint64_t free_at[2][TN_PLANES];
	struct tn_ev *q;
	unsigned qn, qcap;
	uint64_t seq;
	tn_hook hook;
	void *hctx;
	/* what host 0 sent */
	unsigned data_tx, rtx_tx, probe_tx, plane_data[TN_PLANES], drops;
	uint8_t psn_tx[1 << 16]; /* data transmissions per PSN (low 16 bits) */
	uint32_t rtx_psn[64];
	unsigned n_rtx_psn;
	unsigned sack_seen;
	/* completions */
	unsigned done, imm_n;
	int done_status;
	uint64_t done_t, imm_len;
	uint32_t imm;
};

/* The outer destination names the EV's spine, as an SRv6 container names its T1: each EV
 * of tn_init's list (one spine each) is a path of its own (env.same_path). */
static int tn_path(void *ctx, uint32_t peer_host, uint32_t ev, struct mrc_pkt *hdr)
{
	st_path_fill(hdr, ((struct tn_host *)ctx)->h, peer_host, ev);
	hdr->outer_dst.b[8] = (uint8_t)(1 + (ev >> 16));
	return 0;
}

static void tn_tx_ready(void *ctx, unsigned plane)
{
	struct tn_host *hc = ctx;

	hc->tn->want[hc->h][plane] = true;
	hc->tn->ready_calls[hc->h]++;
}

static void tn_send_done(void *ctx, uint32_t qpn, uint64_t wr_id, int status, uint64_t now_ps)
{
	struct tn_host *hc = ctx;

	(void)qpn;
	(void)wr_id;
	hc->tn->done++;
	hc->tn->done_status = status;
	hc->tn->done_t = now_ps;
}

static void tn_recv_imm(void *ctx, uint32_t qpn, uint32_t imm, uint64_t len, uint64_t now_ps)
{
	struct tn_host *hc = ctx;

	(void)qpn;
	(void)now_ps;
	hc->tn->imm_n++;
	hc->tn->imm = imm;
	hc->tn->imm_len = len;
}

static const struct mrc_ep_ops tn_ops = {
	.tx_ready = tn_tx_ready,
	.send_done = tn_send_done,
	.recv_imm = tn_recv_imm,
};

/* EVs: plane(4) | spine(12) | salt(16), @per_plane on each of @planes planes. */
static uint32_t tn_evs[256];

/*
 * Two hosts, @planes ports each, EV list of @per_plane EVs per plane, cc fixed at 4 MiB
 * unless @nscc; @tweak adjusts the parameters. Creates QP 1 on both sides.
 */
static int tn_init(struct tn *tn, unsigned planes, unsigned per_plane, bool nscc,
	void (*tweak)(struct mrc_ep_params *p))
{
	memset(tn, 0, sizeof(*tn));
	tn->planes = planes;
	tn->delay_ps = TN_DELAY_PS;
	for (unsigned i = 0; i < planes * per_plane; i++)
		tn_evs[i] = (i / per_plane) << 28 | (i % per_plane) << 16 | 0x0A0B;
	for (unsigned h = 0; h < 2; h++) {
		struct mrc_ep_params p;
		uint32_t qpn;
		int rc;

		mrc_ep_params_default(&p, planes, TN_RATE_BPS, 12000000);
		p.host = h;
		p.path = tn_path;
		p.peer_of = st_peer_of;
		p.ev_plane = st_ev_plane;
		p.ev.evs = tn_evs;
		p.ev.n_evs = planes * per_plane;
		p.seed = 7;
		if (!nscc) {
			p.cc = "fixed";
			p.cc_params.init_cwnd = p.cc_params.max_cwnd = 4u << 20;
		}
		if (tweak)
			tweak(&p);
		tn->wire = p.wire;
		tn->hc[h] = (struct tn_host){.tn = tn, .h = h};
		rc = mrc_ep_new(&p, &tn_ops, &tn->hc[h], &tn->ep[h]);
		if (rc)
			return rc;
		rc = mrc_ep_qp_create(tn->ep[h], 1 - h, 1, &qpn);
		if (rc)
			return rc;
	}
	return 0;
}

static void tn_free(struct tn *tn)
{
	for (unsigned i = 0; i < tn->qn; i++)
		free(tn->q[i].b);
	free(tn->q);
	mrc_ep_free(tn->ep[0]);
	mrc_ep_free(tn->ep[1]);
}

static void tn_push(
	struct tn *tn, uint64_t t, unsigned to, unsigned plane, const uint8_t *b, uint32_t len)
{
	if (tn->qn == tn->qcap) {
		tn->qcap = tn->qcap ? tn->qcap * 2 : 256;
		tn->q = realloc(tn->q, tn->qcap * sizeof(*tn->q));
	}
	tn->q[tn->qn] = (struct tn_ev){
		.t = t, .seq = tn->seq++, .to = to, .plane = plane, .len = len, .b = malloc(len)};
	memcpy(tn->q[tn->qn].b, b, len);
	tn->qn++;
}

static void tn_pull(struct tn *tn, unsigned h, unsigned pl)
{
	uint8_t buf[MRC_PKT_MAX];
	struct mrc_pkt d;
	uint32_t len;
	uint64_t extra = 0, ser;
	int n = mrc_ep_tx(tn->ep[h], pl, tn->now, buf, sizeof(buf)), act = TN_PASS;

	if (n <= 0) {
		tn->want[h][pl] = false;
		return;
	}
	len = (uint32_t)n;
	ser = (uint64_t)len * 8 * 1000000000000ull / TN_RATE_BPS;
	tn->free_at[h][pl] = tn->now + ser;
	if (mrc_wire_decode(&tn->wire, buf, len, true, &d) == MRC_WIRE_OK) {
		if (h == 0 && is_data(d.opcode)) {
			tn->data_tx++;
			tn->plane_data[pl]++;
			tn->psn_tx[d.psn & 0xFFFF]++;
			if (d.flags & MRC_BTH_F_RTX) {
				tn->rtx_tx++;
				if (tn->n_rtx_psn < 64)
					tn->rtx_psn[tn->n_rtx_psn++] = d.psn;
			}
		}
		if (h == 0 && d.opcode == MRC_OP_PROBE)
			tn->probe_tx++;
		if (tn->hook)
			act = tn->hook(tn, h, &d, buf, &len, &extra);
	}
	if (act == TN_DROP) {
		tn->drops++;
		return;
	}
	tn_push(tn, tn->now + ser + tn->delay_ps + extra, 1 - h, pl, buf, len);
	if (act == TN_DUP)
		tn_push(tn, tn->now + ser + tn->delay_ps + extra + 100000, 1 - h, pl, buf, len);
}

/* Runs until nothing is left to do or @until_ps. */
static void tn_run(struct tn *tn, uint64_t until_ps)
{
	for (;;) {
		uint64_t t = UINT64_MAX, tt;
		int kind = -1, qi = -1, ph = -1, ppl = -1;

		for (unsigned i = 0; i < tn->qn; i++)
			if (tn->q[i].t < t || (tn->q[i].t == t && tn->q[i].seq < tn->q[qi].seq)) {
				t = tn->q[i].t;
				qi = (int)i;
				kind = 0;
			}
		for (unsigned h = 0; h < 2; h++) {
			tt = mrc_ep_next_timer(tn->ep[h]);
			if (tt < t) {
				t = tt;
				kind = 1;
				ph = (int)h;
			}
		}
		for (unsigned h = 0; h < 2; h++)
			for (unsigned pl = 0; pl < tn->planes; pl++) {
				if (!tn->want[h][pl])
					continue;
				tt = tn->free_at[h][pl] > tn->now ? tn->free_at[h][pl] : tn->now;
				if (tt < t) {
					t = tt;
					kind = 2;
					ph = (int)h;
					ppl = (int)pl;
				}
			}
		if (kind < 0 || t > until_ps)
			break;
		if (t > tn->now)
			tn->now = t;
		if (kind == 0) {
			struct tn_ev e = tn->q[qi];

			tn->q[qi] = tn->q[--tn->qn];
			if (!tn->down[e.to][e.plane])
				mrc_ep_on_rx(tn->ep[e.to], e.plane, e.b, e.len, false, tn->now);
			free(e.b);
		} else if (kind == 1) {
			mrc_ep_on_timer(tn->ep[ph], tn->now);
		} else {
			tn_pull(tn, (unsigned)ph, (unsigned)ppl);
		}
	}
	if (until_ps != UINT64_MAX && tn->now < until_ps)
		tn->now = until_ps;
}

/* NIC port @pl of host @h goes down or up, for the endpoint and the network. */
static void tn_port(struct tn *tn, unsigned h, unsigned pl, bool up)
{
	tn->down[h][pl] = !up;
	mrc_ep_port_status(tn->ep[h], pl, up, tn->now);
}

static struct mrc_qp *tn_qp(struct tn *tn, unsigned h)
{
	return mrc_ep_qp(tn->ep[h], 1);
}

static struct mrc_qp_stats tn_stats(struct tn *tn, unsigned h)
{
	struct mrc_qp_stats s;

	mrc_ep_qp_stats(tn->ep[h], 1, &s);
	return s;
}

/* Posts @len bytes of a pattern from host 0 to a fresh MR on host 1. */
static int tn_write(struct tn *tn, uint8_t *src, uint8_t *dst, uint64_t len, bool imm)
{
	uint32_t rkey;
	int rc;

	for (uint64_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + i / 4096);
	memset(dst, 0, len);
	rc = mrc_ep_reg_mr(tn->ep[1], dst, len, &rkey);
	if (rc)
		return rc;
	return mrc_ep_post_write(
		tn->ep[0], 1, src, len, (uint64_t)(uintptr_t)dst, rkey, imm, 0xC0FFEE, 42, tn->now);
}

/* Host 0 writes @len bytes to host 1 and the network runs dry: the write completes, every
 * byte arrives; the QPs' counters in *s0 (host 0) and *s1 (host 1). */
static void tn_deliver(struct mrc_st *st, struct tn *tn, uint8_t *src, uint8_t *dst, uint64_t len,
	struct mrc_qp_stats *s0, struct mrc_qp_stats *s1)
{
	ST_EQ_I(st, tn_write(tn, src, dst, len, false), 0);
	tn_run(tn, UINT64_MAX);
	*s0 = tn_stats(tn, 0);
	*s1 = tn_stats(tn, 1);
	ST_EQ(st, tn->done, 1);
	ST_EQ_MEM(st, dst, src, len);
}

static void tw_no_backup(struct mrc_ep_params *p)
{
	p->ev.backup_per_plane = 0;
}

/* (2): one EV black-holed */
static uint32_t bh_ev;
static bool bh_on;

static int hook_blackhole(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)tn;
	(void)b;
	(void)len;
	(void)extra;
	return from == 0 && bh_on && d->ev == bh_ev ? TN_DROP : TN_PASS;
}

static void tw_blackhole(struct mrc_ep_params *p)
{
	p->ev.backup_per_plane = 2;
	p->qp.reorder_threshold = 8;
	p->ev.probe_backoff_ps = 2000000;
	p->ev.probe_backoff_max_ps = 8000000;
}

/* Q27: paths by spine mod 2 (plane 0's EVs 1, 3, 5 and backup 7 share one), and a hook
 * dropping host 0's packets on that path of plane 0, probes too: a failed link. */
static bool fate_on;

static int fate_path(void *ctx, uint32_t peer_host, uint32_t ev, struct mrc_pkt *hdr)
{
	st_path_fill(hdr, ((struct tn_host *)ctx)->h, peer_host, ev);
	hdr->outer_dst.b[8] = (uint8_t)(1 + ((ev >> 16) & 1));
	return 0;
}

static int hook_fate(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)tn;
	(void)b;
	(void)len;
	(void)extra;
	return from == 0 && bh_on && d->ev >> 28 == 0 && (d->ev >> 16 & 1) ? TN_DROP : TN_PASS;
}

static void tw_fate(struct mrc_ep_params *p)
{
	tw_blackhole(p);
	p->path = fate_path;
	p->qp.path_fate = fate_on;
}

/* tw_blackhole, the endpoints sharing one EV profile (made by the first, freed by the test). */
static struct mrc_ev_profile *tw_shared_prof;

static void tw_shared(struct mrc_ep_params *p)
{
	tw_blackhole(p);
	if (!tw_shared_prof &&
		mrc_ev_profile_new(&p->ev, p->planes, p->ev_plane, NULL, &tw_shared_prof))
		return;
	p->ev_prof = tw_shared_prof;
}

/* (3): C11 — trim PSN 1's first transmission; delay NACKs so SACK(2) overtakes. */
static uint8_t c11_nack[MRC_PKT_MAX];
static uint32_t c11_nack_len;
static uint32_t c11_first_ev, c11_rtx_ev;

static int hook_c11(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	if (from == 0 && d->opcode == MRC_OP_WRITE_FIRST && d->psn == 1) {
		if (tn->psn_tx[1] == 1) {
			c11_first_ev = d->ev;
			*len = (uint32_t)mrc_wire_trim(b, *len, 256, tn->wire.dscp_trimmed);
		} else {
			c11_rtx_ev = d->ev;
		}
	}
	if (from == 1 && d->opcode == MRC_OP_NACK) {
		memcpy(c11_nack, b, *len);
		c11_nack_len = *len;
		*extra = 5000000;
	}
	return TN_PASS;
}

static void tw_c11(struct mrc_ep_params *p)
{
	p->ev.backup_per_plane = 0;
	p->qp.start_psn = 1;
}

/* (4): CE marks on one EV */
static uint32_t ce_ev;
static unsigned ce_marked;

static int hook_ce(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b, uint32_t *len,
	uint64_t *extra)
{
	(void)tn;
	(void)len;
	(void)extra;
	if (from == 0 && is_data(d->opcode) && d->ev == ce_ev) {
		b[1] |= 0x30; /* outer traffic class ECN bits (version|TC|flow): CE = 11 */
		ce_marked++;
	}
	return TN_PASS;
}

/* (5) and C10: wrap; drop the first transmission of chosen PSNs */
static uint32_t drop_psn[4];
static unsigned n_drop_psn;
static struct mrc_seth c10_sack[64];
static unsigned n_c10_sack;

static int hook_drop_psn(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)b;
	(void)len;
	(void)extra;
	if (from == 1 && d->opcode == MRC_OP_SACK && n_c10_sack < 64)
		c10_sack[n_c10_sack++] = d->seth;
	if (from != 0 || !is_data(d->opcode) || (d->flags & MRC_BTH_F_RTX))
		return TN_PASS;
	for (unsigned i = 0; i < n_drop_psn; i++)
		if (d->psn == drop_psn[i] && tn->psn_tx[d->psn & 0xFFFF] == 1)
			return TN_DROP;
	return TN_PASS;
}

/* Q06 and Q11 count exact transmissions of single dropped PSNs, so the EV's other PSNs
 * (delivered) must not be resent with them: retire_rtx off. */
static void tw_wrap(struct mrc_ep_params *p)
{
	p->qp.start_psn = 0xFFFF00;
	p->qp.reorder_threshold = 8;
	p->qp.retire_rtx = false;
}

static void tw_c10(struct mrc_ep_params *p)
{
	p->qp.start_psn = 0xFFFFFD;
	p->qp.reorder_threshold = 2;
	p->ev.backup_per_plane = 0;
}

/* (7): everything from host 0 is lost */
static int hook_all_dead(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)tn;
	(void)d;
	(void)b;
	(void)len;
	(void)extra;
	return from == 0 ? TN_DROP : TN_PASS;
}

static void tw_dead(struct mrc_ep_params *p)
{
	p->qp.timeout = 2; /* T = 1.024 us * 4 = 4.096 us */
	p->qp.retry_linear = 2;
	p->qp.retry_exp = 2;
}

/* (8): duplicate every PSN = 0 mod 3 (not 1 mod 5), delay every PSN = 1 mod 5 by 3 us;
 * keep PSN 7's bytes to replay as a stale packet later */
static unsigned n_dup, n_delayed;
static uint8_t stale_pkt[MRC_PKT_MAX];
static unsigned stale_plane; /* the plane it arrived by */
static uint32_t stale_len;

static int hook_dupreorder(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)tn;
	(void)b;
	(void)len;
	if (from != 0 || !is_data(d->opcode))
		return TN_PASS;
	if (d->psn == 7) {
		memcpy(stale_pkt, b, *len);
		stale_len = *len;
		stale_plane = st_ev_plane(NULL, d->ev);
	}
	if (d->psn % 5 == 1) {
		n_delayed++;
		*extra = 3000000;
		return TN_PASS;
	}
	if (d->psn % 3 == 0) {
		n_dup++;
		return TN_DUP;
	}
	return TN_PASS;
}

/* NACK PSN_OOR_WINDOW: the responder's window is 1 x 128 PSNs, PSN 0 is lost once. */
static void tw_oor(struct mrc_ep_params *p)
{
	if (p->host == 1)
		p->qp.mpr = 1;
	p->qp.reorder_threshold = 8;
	p->qp.retire_rtx = false;
	/* the scripted network delays 50 us each way: tell the CC, so the time-based loss
	 * rule and the tail probe wait for a real RTT */
	if (p->cc_params.base_rtt_ps < 100000000)
		p->cc_params.base_rtt_ps = 100000000;
}

/* Port down in the middle of a transfer: count plane 1's data after it went down. */
static bool pd_down;
static unsigned pd_after;

static int hook_port_down(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)b;
	(void)len;
	(void)extra;
	if (from == 0 && pd_down && is_data(d->opcode) && (d->ev >> 28) == 1)
		pd_after++;
	if (from == 0 && is_data(d->opcode) && d->psn == 100 && !pd_down) {
		mrc_ep_port_status(tn->ep[0], 1, false, tn->now);
		pd_down = true;
	}
	return TN_PASS;
}

/* Host 0's WRITE_ONLY of @len bytes from @payload to @va/@rkey at host 1, PSN @psn, on the
 * first EV (ECT(0)): the packet a scripted test hands to host 1 itself. */
static void tn_write_pkt(struct tn *tn, struct mrc_pkt *p, uint32_t psn, uint64_t va,
	uint32_t rkey, const uint8_t *payload, uint32_t len)
{
	tn_path(&tn->hc[0], 1, tn_evs[0], p);
	p->hop_limit = 64;
	p->opcode = MRC_OP_WRITE_ONLY;
	p->ecn = 2;
	p->ev = tn_evs[0];
	p->dest_qp = 1;
	p->psn = psn;
	p->va = va;
	p->rkey = rkey;
	p->dma_len = len;
	p->payload = payload;
	p->payload_len = len;
}

/* C09: feeds single-packet messages with the given PSNs to a responder starting at PSN 1. */
static void c09_tweak(struct mrc_ep_params *p)
{
	p->qp.start_psn = 1;
}

static void c09_run(struct mrc_st *st, const uint32_t *psns, unsigned n, uint64_t lost,
	uint64_t reordered, uint64_t dups)
{
	struct tn tn;
	uint8_t dst[16 * 8], src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, buf[MRC_PKT_MAX];
	struct mrc_qp_stats s;
	uint32_t rkey;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, c09_tweak), 0);
	ST_EQ_I(st, mrc_ep_reg_mr(tn.ep[1], dst, sizeof(dst), &rkey), 0);
	for (unsigned i = 0; i < n; i++) {
		struct mrc_pkt p = {0};
		int len;

		tn_write_pkt(&tn, &p, psns[i], (uint64_t)(uintptr_t)dst + 8 * psns[i], rkey, src,
			8);
		p.msn = (uint16_t)(psns[i] - 1);
		len = mrc_wire_encode(&tn.wire, &p, buf, sizeof(buf));
		ST_TRUE(st, len > 0);
		if (len > 0)
			mrc_ep_on_rx(tn.ep[1], 0, buf, (size_t)len, false, 1000);
	}
	mrc_ep_qp_stats(tn.ep[1], 1, &s);
	ST_EQ(st, s.rx_lost, lost);
	ST_EQ(st, s.rx_reordered, reordered);
	ST_EQ(st, s.rx_dup, dups);
	tn_free(&tn);
}

/* Offloaded checksums, unchecked on receipt: how a simulated host that gathers runs. */
static void gather_tweak(struct mrc_ep_params *p)
{
	p->wire.check_csum = p->wire.check_icrc = false;
	p->wire.csum_offload = true;
}

/* Host 0 gathers; host 1 keeps the default checks (an rx_checks run). */
static void gather_checks_tweak(struct mrc_ep_params *p)
{
	if (p->host == 0)
		gather_tweak(p);
}

/*
 * Q20: host 0's packet for 96 bytes at MR offset 64 of host 1, gathered (headers only in
 * the buffer, the payload left at @src), handed to host 1 in pieces: the bytes placed are
 * @src's (or zeros for a NULL payload), and the headers alone are a decode error. With
 * @checks on at host 1 the payload apart cannot be verified: a decode error, MR untouched.
 */
static void q20_run(struct mrc_st *st, const uint8_t *src, bool checks)
{
	struct tn tn;
	static uint8_t dst[256], want[256];
	uint8_t buf[MRC_PKT_MAX];
	struct mrc_wire_gather g = {0};
	struct mrc_wire_cfg wc;
	struct mrc_ep_stats es;
	struct mrc_qp_stats s;
	struct mrc_pkt p = {0};
	uint32_t rkey;
	int len;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, checks ? gather_checks_tweak : gather_tweak), 0);
	memset(dst, 0xEE, sizeof(dst));
	memcpy(want, dst, sizeof(want));
	if (!checks) {
		for (unsigned i = 0; i < 96; i++) /* the payload's bytes, computed apart */
			want[64 + i] = src ? (uint8_t)(3 * i + 5) : 0;
	}
	ST_EQ_I(st, mrc_ep_reg_mr(tn.ep[1], dst, sizeof(dst), &rkey), 0);
	tn_write_pkt(&tn, &p, 0, (uint64_t)(uintptr_t)dst + 64, rkey, src, 96);
	memset(buf, 0, sizeof(buf));
	wc = tn.wire; /* host 0's encoder */
	wc.csum_offload = true;
	wc.check_csum = wc.check_icrc = false;
	len = mrc_wire_encode_gather(&wc, &p, buf, sizeof(buf), &g);
	ST_TRUE(st, len > 0 && g.hlen + 96 + MRC_ICRC_LEN == (size_t)len && g.payload == src);
	if (len > 0) {
		/* the headers laid out alone, as if they were the packet: not decodable */
		mrc_ep_on_rx(tn.ep[1], 0, buf, g.hlen, false, 1000);
		mrc_ep_get_stats(tn.ep[1], &es);
		ST_EQ(st, es.rx_decode_err, 1);
		mrc_ep_on_rx_gather(tn.ep[1], 0, buf, (size_t)len, &g, false, 2000);
		mrc_ep_get_stats(tn.ep[1], &es);
		ST_EQ(st, es.rx_decode_err, checks ? 2 : 1);
		ST_EQ(st, es.rx_bytes[0], g.hlen + (uint64_t)len);
		mrc_ep_qp_stats(tn.ep[1], 1, &s);
		ST_EQ(st, s.placed_bytes, checks ? 0 : 96);
		ST_EQ_MEM(st, dst, want, sizeof(dst));
	}
	tn_free(&tn);
}

/* ---- selftest: the endpoint's ready bits follow what a send changes --------------- */

static const uint32_t q19_evs[2] = {0x00000A0B, 0x10000A0B}; /* one EV per plane */

static unsigned q19_plane(void *ctx, uint32_t ev)
{
	(void)ctx;
	return ev >> 28;
}

static int q19_path(void *ctx, uint32_t peer, uint32_t ev, struct mrc_pkt *h)
{
	(void)ctx;
	memset(&h->outer_src, 0, sizeof(h->outer_src));
	h->outer_src.b[0] = 0xfd;
	h->outer_src.b[15] = (uint8_t)(ev >> 28);
	h->outer_dst = h->outer_src;
	h->outer_dst.b[13] = (uint8_t)peer;
	h->src = h->outer_src;
	h->dst = h->outer_dst;
	h->n_segs = 0;
	return 0;
}

/*
 * Two planes of one EV each; PSNs 0 (plane 0) and 1 (plane 1) come back NACKed
 * TRIMMED_LASTHOP. Plane 0 must refuse PSN 0 (its retransmission takes another EV while
 * plane 1 has one) and plane 1 sends it; then PSN 1, last sent on plane 1, is plane 0's
 * to send: the send on plane 1 must have made plane 0 ask the QP again.
 */
static void q19_case(struct mrc_st *st)
{
	static uint8_t buf[16384];
	struct mrc_ep_params p;
	struct mrc_ep *ep = NULL;
	struct mrc_qp_stats s;
	struct mrc_qp *qp;
	uint64_t now = 1000000;
	uint32_t qpn = 0;

	mrc_ep_params_default(&p, 2, TN_RATE_BPS, 12000000);
	p.path = q19_path;
	p.ev_plane = q19_plane;
	p.ev.evs = q19_evs;
	p.ev.n_evs = 2;
	p.ev.backup_per_plane = 0;
	p.cc = "fixed";
	ST_EQ_I(st, mrc_ep_new(&p, &(struct mrc_ep_ops){0}, NULL, &ep), 0);
	ST_EQ_I(st, ep ? mrc_ep_qp_create(ep, 1, 1, &qpn) : -1, 0);
	qp = ep ? mrc_ep_qp(ep, qpn) : NULL;
	ST_TRUE(st, qp != NULL);
	if (!qp) {
		mrc_ep_free(ep);
		return;
	}
	ST_EQ_I(st, mrc_ep_post_write(ep, qpn, NULL, 2 * p.qp.mtu, 0, 1, false, 0, 1, now), 0);
	ST_TRUE(st, mrc_ep_tx(ep, 0, now, buf, sizeof(buf)) > 0);
	ST_TRUE(st, mrc_ep_tx(ep, 1, now, buf, sizeof(buf)) > 0);
	for (unsigned k = 0; k < 2; k++) {
		struct mrc_pkt c = {.opcode = MRC_OP_NACK, .dest_qp = qpn};
		int n;

		c.neth.reason = MRC_NACK_TRIMMED_LASTHOP;
		c.neth.nack_psn = (p.qp.start_psn + k) & MRC_PSN_MASK;
		c.neth.ev = q19_evs[k];
		c.psn = c.neth.nack_psn;
		q19_path(NULL, 0, q19_evs[k], &c);
		n = mrc_wire_encode(&p.wire, &c, buf, sizeof(buf));
		ST_TRUE(st, n > 0);
		if (n > 0)
			mrc_ep_on_rx(ep, k, buf, (size_t)n, false, now);
	}
	now += 1000;
	ST_EQ_I(st, mrc_ep_tx(ep, 0, now, buf, sizeof(buf)), 0); /* PSN 0: not on plane 0 */
	ST_TRUE(st, mrc_ep_tx(ep, 1, now, buf, sizeof(buf)) > 0); /* PSN 0 on plane 1 */
	ST_TRUE(st, mrc_ep_tx(ep, 0, now, buf, sizeof(buf)) > 0); /* PSN 1 on plane 0 */
	mrc_qp_get_stats(qp, &s);
	ST_EQ(st, s.rtx_pkts, 2);
	mrc_ep_free(ep);
}

static void tw_no_ens(struct mrc_ep_params *p)
{
	p->qp.rtt_ensemble = false;
}

/*
 * Q21: host 0 has two QPs; only the first samples RTTs (2 planes x 4 EVs, base RTT 12 us).
 * The second's reorder window (which also times its tail probe) is the largest of the
 * endpoint's latest per-plane samples, or the base RTT without the ensemble.
 */
static void q21_case(struct mrc_st *st)
{
	for (int ens = 1; ens >= 0; ens--) {
		struct tn tn;
		struct mrc_qp *a, *b;
		uint32_t qpn2;

		ST_EQ_I(st, tn_init(&tn, 2, 4, false, ens ? NULL : tw_no_ens), 0);
		ST_EQ_I(st, mrc_ep_qp_create(tn.ep[0], 1, 2, &qpn2), 0);
		a = mrc_ep_qp(tn.ep[0], 1);
		b = mrc_ep_qp(tn.ep[0], qpn2);
		ST_EQ(st, reo_wnd_ps(b), 12000000); /* no sample anywhere: the base RTT */
		rtt_sample(a, 1, 40000000);	    /* EV 1: plane 0 */
		ST_EQ(st, reo_wnd_ps(b), ens ? 40000000 : 12000000);
		rtt_sample(a, 6, 30000000); /* EV 6: plane 1; plane 0's 40 us is still latest */
		ST_EQ(st, reo_wnd_ps(b), ens ? 40000000 : 12000000);
		rtt_sample(a, 2, 5000000); /* plane 0 now 5 us: the largest is plane 1's 30 */
		ST_EQ(st, reo_wnd_ps(b), ens ? 30000000 : 12000000);
		ST_EQ(st, reo_wnd_ps(a), ens ? 30000000 : 12000000); /* its own latest is 5 */
		tn_free(&tn);
	}
}

static void tw_cwnd_2pkts(struct mrc_ep_params *p)
{
	p->cc_params.init_cwnd = p->cc_params.max_cwnd = 8192;
}

/*
 * Q22: 64 KiB (16 packets) over 2 planes. With a 4 MiB window all 16 leave at once; the
 * SACKs that follow find the QP with nothing to send and wake no port: host 0's ports hear
 * tx_ready twice, from the post. With a 2-packet window each SACK that opens it must wake
 * the ports, or the message never finishes.
 */
static void q22_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;

	ST_EQ_I(st, tn_init(&tn, 2, 4, false, NULL), 0);
	ST_EQ_I(st, tn_write(&tn, src, dst, 64 << 10, false), 0);
	tn_run(&tn, UINT64_MAX);
	ST_EQ(st, tn.data_tx, 16);
	ST_EQ(st, tn.done, 1);
	ST_TRUE(st, tn_stats(&tn, 0).sack_rx >= 1);
	/* the post (both ports), and the SACK of the first arrival (UEC's cadence), back
	 * after an RTT of 2 us while the last packets are still leaving (16 of 4.2 KB over
	 * 2 x 100 Gb/s: 2.7 us): both ports again; the rest find nothing left to send */
	ST_EQ(st, tn.ready_calls[0], 4);
	tn_free(&tn);

	ST_EQ_I(st, tn_init(&tn, 2, 4, false, tw_cwnd_2pkts), 0);
	ST_EQ_I(st, tn_write(&tn, src, dst, 64 << 10, false), 0);
	tn_run(&tn, UINT64_MAX);
	ST_EQ_MEM(st, dst, src, 64 << 10);
	ST_EQ(st, tn.data_tx, 16);
	ST_EQ(st, tn.done, 1);
	ST_TRUE(st, tn.ready_calls[0] > 2);
	tn_free(&tn);
}

/*
 * Q23: a SACK's 64-bit map, read a word or two at a time, equals rx_has() asked PSN by
 * PSN: random receive rings, epsn near the 24-bit wrap and anywhere, bases from 70 PSNs
 * before epsn to past the window's end.
 */
static void q23_case(struct mrc_st *st)
{
	struct tn tn;
	struct mrc_qp *qp;
	struct mrc_rng r;
	unsigned bad = 0, n = 0;

	ST_EQ_I(st, tn_init(&tn, 2, 4, false, NULL), 0);
	qp = tn_qp(&tn, 1);
	ST_EQ(st, qp->rxcap, 64); /* a new QP's: one word */
	/* growing keeps each PSN's bit, across the 24-bit wrap: 0xFFFFF0 + 0, 5, 63 */
	qp->epsn = 0xFFFFF0;
	rx_set(qp, 0xFFFFF0, true);
	rx_set(qp, 0xFFFFF5, true);
	rx_set(qp, 0x00002F, true);
	ST_EQ_I(st, rx_grow(qp, 300), 0);
	ST_EQ(st, qp->rxcap, 512);
	ST_TRUE(st, rx_bit(qp, 0xFFFFF0) && rx_bit(qp, 0xFFFFF5) && rx_bit(qp, 0x00002F));
	ST_TRUE(st, !rx_bit(qp, 0xFFFFF1) && !rx_bit(qp, 0x000030) && !rx_bit(qp, 0x00011C));
	ST_EQ(st, rx_has64(qp, 0xFFFFF0), 1ull | 1ull << 5 | 1ull << 63);
	ST_EQ_I(st, rx_grow(qp, qp->win - 1), 0);
	ST_EQ(st, qp->rxcap, qp->win);
	mrc_rng_seed(&r, 23);
	for (unsigned round = 0; round < 200; round++) {
		qp->epsn = round % 2 ? (uint32_t)mrc_rng_next(&r) & MRC_PSN_MASK
				     : (MRC_PSN_MASK - 40 + round) & MRC_PSN_MASK;
		/* every size the bitmap can have (the array holds win bits): 64 .. win */
		qp->rxcap = 64u << (round % (__builtin_ctz(qp->win) - 5));
		for (unsigned w = 0; w < qp->win / 64; w++)
			qp->rxmap[w] = mrc_rng_next(&r);
		for (int32_t d = -70; d < (int32_t)qp->rwin + 8; d += 1 + round % 5) {
			uint32_t base = psn_add(qp->epsn, d);
			uint64_t want = 0;

			for (unsigned i = 0; i < 64; i++)
				if (rx_has(qp, psn_add(base, (int32_t)i)))
					want |= 1ull << i;
			bad += rx_has64(qp, base) != want;
			n++;
		}
	}
	ST_TRUE(st, n > 10000);
	ST_EQ(st, bad, 0);
	tn_free(&tn);
}

/*
 * Q25: five messages in flight at once, three of them ending in a packet shorter than the
 * MTU (one empty), across the 24-bit PSN wrap; the first transmissions of two short last
 * packets and of the empty message are dropped. A send-ring entry keeps neither its
 * message nor its length: both are worked out from the PSN, and every count below is of
 * the lengths posted, by hand.
 */
static void tw_q25(struct mrc_ep_params *p)
{
	p->qp.start_psn = 0xFFFFFC;
	p->qp.reorder_threshold = 8;
	p->qp.retire_rtx = false;
}

static void q25_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	/* PSNs: 5000 B: FFFFFC (4096), FFFFFD (904) | 0 B: FFFFFE | 4096 B: FFFFFF |
	 * 1 B: 000000 | 12289 B: 000001-000003 (4096 each), 000004 (1) */
	static const uint32_t lens[5] = {5000, 0, 4096, 1, 12289};
	struct mrc_qp_stats s0;
	uint64_t off = 0;
	struct tn tn;

	ST_EQ_I(st, tn_init(&tn, 2, 8, false, tw_q25), 0);
	tn.hook = hook_drop_psn;
	drop_psn[0] = 0xFFFFFD;
	drop_psn[1] = 0xFFFFFE;
	drop_psn[2] = 0x000004;
	n_drop_psn = 3;
	for (unsigned i = 0; i < 5; i++) {
		uint32_t rkey = 0;

		if (lens[i]) {
			ST_EQ_I(st, tn_write(&tn, src + off, dst + off, lens[i], false), 0);
			off += lens[i];
			continue;
		}
		/* an empty write still needs an R_Key: one of a byte's MR */
		ST_EQ_I(st, mrc_ep_reg_mr(tn.ep[1], dst + off, 1, &rkey), 0);
		ST_EQ_I(st, mrc_ep_post_write(tn.ep[0], 1, src + off, 0,
				    (uint64_t)(uintptr_t)(dst + off), rkey, false, 0, 43, tn.now),
			0);
	}
	tn_run(&tn, UINT64_MAX);
	n_drop_psn = 0;
	s0 = tn_stats(&tn, 0);
	ST_EQ(st, tn.done, 5);
	ST_EQ(st, s0.data_pkts, 2 + 1 + 1 + 1 + 4);
	ST_EQ(st, s0.data_bytes, 5000 + 4096 + 1 + 12289);
	ST_EQ(st, s0.rtx_pkts, 3);
	ST_EQ(st, s0.rtx_bytes, 904 + 0 + 1);
	ST_EQ(st, mrc_qp_una(tn_qp(&tn, 0)), 0x000005);
	off = 0;
	for (unsigned i = 0; i < 5; i++) {
		ST_EQ_MEM(st, dst + off, src + off, lens[i]);
		off += lens[i];
	}
	tn_free(&tn);
}

/*
 * Q26: the send log of PSNs 0..9, sent once each in order (txseq 1..10), PSNs 1, 3, 4 and
 * 8 acknowledged. Dropping the dead among the first 7 records leaves 0, 2, 5, 6, then the
 * untouched 7, 8, 9: by hand.
 */
static void q26_case(struct mrc_st *st)
{
	static const uint32_t want[7] = {0, 2, 5, 6, 7, 8, 9};
	struct mrc_qp *qp;
	struct tn tn;
	bool order = true;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, NULL), 0);
	qp = tn_qp(&tn, 0);
	while (qp->txcap < 16)
		ST_EQ_I(st, tx_grow(qp), 0);
	qp->una = 0;
	qp->next_psn = 10;
	qp_release(qp, qp->slog);
	qp->slog = calloc(16, sizeof(*qp->slog)); /* room for all: slog_push would drop */
	ST_TRUE(st, qp->slog != NULL);
	if (!qp->slog) {
		qp->una = qp->next_psn = 0;
		tn_free(&tn);
		return;
	}
	qp->slog_cap = 16;
	qp->slog_head = 13; /* the records wrap round the ring's end */
	qp->slog_len = 0;
	for (uint32_t psn = 0; psn < 10; psn++) {
		struct txent *e = ent(qp, psn);

		*e = (struct txent){.flags = TX_SENT};
		e->txseq = (uint32_t)++qp->txseq;
		if (psn == 1 || psn == 3 || psn == 4 || psn == 8)
			e->flags |= TX_ACKED;
		*slog_at(qp, qp->slog_len++) = (struct sendrec){.txseq = e->txseq, .psn = psn};
	}
	ST_EQ(st, qp->slog_len, 10);
	slog_drop_dead(qp, 7);
	ST_EQ(st, qp->slog_len, 7);
	for (uint32_t k = 0; k < 7 && k < qp->slog_len; k++)
		order = order && slog_at(qp, k)->psn == want[k] &&
			slog_at(qp, k)->txseq == want[k] + 1;
	ST_TRUE(st, order);
	qp->una = qp->next_psn = 0; /* nothing in flight for tn_free's teardown */
	tn_free(&tn);
}

/*
 * Q24: nothing host 0 sends arrives (its peer's ports are gone). Tail probes go out the
 * time rule's window plus the peer's longest SACK hold after the last send, doubling, at
 * most 3 before an ACK or the ACK timeout: 2 x 12 us (the base RTT: no sample yet) + 9 us
 * (the target) + 12 us (sack_delay 0: the base RTT) = 45 us, so probes at about 45 and
 * 45 + 90 = 135 us; the third would be 135 + 180 = 315 us, past the 262 us timeout. By
 * 255 us: 4 data packets and 2 probes, each counted as a retransmission.
 */
static void q24_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	struct mrc_qp_stats s0;

	ST_EQ_I(st, tn_init(&tn, 2, 4, false, NULL), 0);
	tn.hook = hook_all_dead;
	ST_EQ_I(st, tn_write(&tn, src, dst, 16 << 10, false), 0);
	tn_run(&tn, 44000000ull); /* before the first */
	ST_EQ(st, tn_stats(&tn, 0).tlp, 0);
	tn_run(&tn, 130000000ull); /* before the second */
	ST_EQ(st, tn_stats(&tn, 0).tlp, 1);
	tn_run(&tn, 255000000ull);
	s0 = tn_stats(&tn, 0);
	ST_EQ(st, s0.tlp, 2);
	ST_EQ(st, s0.rtx_pkts, 2);
	ST_EQ(st, tn.data_tx, 6);
	ST_EQ(st, tn.done, 0);
	tn_free(&tn);
}

/*
 * Q27: the SACK bitmap at its edge (docs/wire-format.md SETH). The responder expects
 * 0xFFFFF0 (cack = 0xFFFFEF), which never comes; PSNs cack + 63, + 64, + 65 (0x00002E,
 * 0x00002F, 0x000030: across the 24-bit wrap) arrive in turn, each SACKed at once. By hand:
 *   cack + 63: rel 63 < 64, base cack: bit 0 (cack itself, received) and bit 63;
 *   cack + 64: base cack + 1 (offset 1, 0xFFFFF0: missing): bits 62 (cack + 63) and 63;
 *   cack + 65: base cack + 2 (offset 2): bits 61, 62 and 63.
 * The newest PSN is the bitmap's last bit as soon as it lies 64 or more past cack.
 */
static void tw_q27(struct mrc_ep_params *p)
{
	p->qp.start_psn = 0xFFFFF0;
	p->qp.sq_depth = 128; /* one message per PSN: MSN 64 must fit the receive ring */
}

static void q27_case(struct mrc_st *st, uint8_t *src_unused, uint8_t *dst_unused)
{
	static const struct {
		uint32_t psn;
		int16_t ack_off, sack_off;
		uint64_t bitmap;
	} want[3] = {
		{0x00002E, 63, 0, 1ull | 1ull << 63},
		{0x00002F, 64, 1, 1ull << 62 | 1ull << 63},
		{0x000030, 65, 2, 1ull << 61 | 1ull << 62 | 1ull << 63},
	};
	struct tn tn;
	uint8_t dst[3 * 8], src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, buf[MRC_PKT_MAX];
	uint32_t rkey;

	(void)src_unused; /* its own 8-byte messages */
	(void)dst_unused;
	ST_EQ_I(st, tn_init(&tn, 1, 4, false, tw_q27), 0);
	ST_EQ_I(st, mrc_ep_reg_mr(tn.ep[1], dst, sizeof(dst), &rkey), 0);
	for (unsigned i = 0; i < 3; i++) {
		struct mrc_pkt p = {0}, d;
		unsigned sacks = 0;
		int len;

		tn_write_pkt(&tn, &p, want[i].psn, (uint64_t)(uintptr_t)dst + 8 * i, rkey, src, 8);
		p.msn = (uint16_t)(62 + i); /* one message per PSN from 0xFFFFF0 (MSN 0) */
		p.flags |= MRC_BTH_F_ACKREQ; /* a message's only packet asks for its SACK */
		len = mrc_wire_encode(&tn.wire, &p, buf, sizeof(buf));
		ST_TRUE(st, len > 0);
		if (len <= 0)
			break;
		mrc_ep_on_rx(tn.ep[1], 0, buf, (size_t)len, false, 1000);
		while ((len = mrc_ep_tx(tn.ep[1], 0, 2000, buf, sizeof(buf))) > 0) {
			if (mrc_wire_decode(&tn.wire, buf, (size_t)len, true, &d) != MRC_WIRE_OK ||
				d.opcode != MRC_OP_SACK)
				continue;
			sacks++;
			ST_EQ(st, d.seth.cack_psn, 0xFFFFEF);
			ST_EQ_I(st, d.seth.ack_psn_offset, want[i].ack_off);
			ST_EQ_I(st, d.seth.sack_offset, want[i].sack_off);
			ST_EQ(st, d.seth.sack_bitmap, want[i].bitmap);
		}
		ST_EQ(st, sacks, 1);
	}
	tn_free(&tn);
}

/*
 * Q28: NACK TRIMMED (docs/wire-format.md "Path (EV) states"): a trimmed packet says the
 * path is congested, not dead. Eight packets (32 KiB), the first transmission of PSN 2
 * trimmed to 256 bytes: the responder NACKs it TRIMMED, the requester resends PSN 2 once,
 * puts its EV in SKIP for the trim (never ASSUMED_BAD) and counts one trim on it.
 */
static uint32_t q28_ev;

static int hook_trim_first2(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)extra;
	if (from == 0 && is_data(d->opcode) && d->psn == 2 && tn->psn_tx[2] == 1) {
		q28_ev = d->ev;
		*len = (uint32_t)mrc_wire_trim(b, *len, 256, tn->wire.dscp_trimmed);
	}
	return TN_PASS;
}

static void q28_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	struct mrc_ev_change log[8];
	struct mrc_ev_set *evs;
	struct mrc_qp_stats s0, s1;
	unsigned n, skip_trim = 0, bad = 0;
	int idx;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, tw_no_backup), 0);
	tn.hook = hook_trim_first2;
	q28_ev = 0;
	tn_deliver(st, &tn, src, dst, 8 * 4096, &s0, &s1);
	ST_EQ(st, s1.rx_trimmed, 1);
	ST_EQ(st, s1.nack_tx[MRC_NI_TRIMMED], 1);
	ST_EQ(st, tn.data_tx, 9);
	ST_EQ(st, tn.n_rtx_psn, 1);
	ST_EQ(st, tn.rtx_psn[0], 2);
	ST_EQ(st, s0.rtx_pkts, 1);
	evs = mrc_qp_evs(tn_qp(&tn, 0));
	idx = mrc_ev_find(evs, q28_ev);
	ST_TRUE(st, idx >= 0);
	if (idx >= 0)
		ST_EQ(st, mrc_ev_st(evs, (unsigned)idx)->trims, 1);
	n = mrc_ev_log(evs, log, 8);
	for (unsigned i = 0; i < n && i < 8; i++) {
		skip_trim += log[i].ev == q28_ev && log[i].to == MRC_EV_SKIP &&
			     log[i].cause == MRC_EVC_TRIM;
		bad += log[i].to == MRC_EV_ASSUMED_BAD;
	}
	ST_EQ(st, skip_trim, 1);
	ST_EQ(st, bad, 0);
	tn_free(&tn);
}

/* Host 0 posts @npkts packets' worth and sends them all at 1 ns, none delivered. */
static void tn_send_all(
	struct mrc_st *st, struct tn *tn, uint8_t *src, uint8_t *dst, unsigned npkts)
{
	uint8_t buf[MRC_PKT_MAX];
	unsigned sent = 0;

	ST_EQ_I(st, tn_write(tn, src, dst, (uint64_t)npkts * 4096, false), 0);
	while (mrc_ep_tx(tn->ep[0], 0, 1000, buf, sizeof(buf)) > 0)
		sent++;
	ST_EQ(st, sent, npkts);
}

/* Host 1's control packet @p (opcode and extension header set) to host 0's QP 1, on the
 * first EV, handed to host 0 at 2 ns. */
static void tn_ctl_to0(struct mrc_st *st, struct tn *tn, struct mrc_pkt *p)
{
	uint8_t buf[MRC_PKT_MAX];
	int n;

	tn_path(&tn->hc[1], 0, tn_evs[0], p);
	p->hop_limit = 64;
	p->ev = tn_evs[0];
	p->dest_qp = 1;
	n = mrc_wire_encode(&tn->wire, p, buf, sizeof(buf));
	ST_TRUE(st, n > 0);
	if (n > 0)
		mrc_ep_on_rx(tn->ep[0], 0, buf, (size_t)n, false, 2000);
}

/* A SACK of host 1: @cack, the bitmap @map from cack + @off, the newest PSN cack +
 * @ack_off. */
static void tn_sack_to0(
	struct mrc_st *st, struct tn *tn, uint32_t cack, int16_t off, uint64_t map, int16_t ack_off)
{
	struct mrc_pkt p = {0};

	p.opcode = MRC_OP_SACK;
	p.psn = cack;
	p.seth = (struct mrc_seth){.ev = tn_evs[0],
		.spdcid = 1,
		.dpdcid = 1,
		.cack_psn = cack,
		.ack_psn_offset = ack_off,
		.cc_type = 1,
		.mpr = 1,
		.sack_offset = off,
		.sack_bitmap = map};
	tn_ctl_to0(st, tn, &p);
}

/*
 * Q29: a SACK received (docs/wire-format.md SETH): bit i acknowledges PSN cack +
 * sack_offset + i. Host 0 sends 80 packets (PSN 0..79, nothing delivered); host 1's SACK
 * says cack 0xFFFFFF (nothing cumulative), offset 16, bits 0 and 63: by hand PSN
 * 0xFFFFFF + 16 = 15 and 15 + 63 = 78 are acknowledged, no other, and una stays 0.
 */
static void q29_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	struct mrc_qp *qp;
	unsigned acked = 0;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, NULL), 0);
	tn_send_all(st, &tn, src, dst, 80);
	tn_sack_to0(st, &tn, 0xFFFFFF, 16, 1ull | 1ull << 63, 79);
	qp = tn_qp(&tn, 0);
	for (uint32_t psn = 0; psn < 80; psn++)
		acked += (ent(qp, psn)->flags & TX_ACKED) != 0;
	ST_EQ(st, acked, 2);
	ST_TRUE(st, (ent(qp, 15)->flags & TX_ACKED) && (ent(qp, 78)->flags & TX_ACKED));
	ST_EQ(st, mrc_qp_una(qp), 0);
	tn_free(&tn);
}

/*
 * Q30: loss by count (docs/wire-format.md; RFC 8985's DupThresh): with reorder_threshold
 * 8, PSN 0 is lost once a packet sent 8 after it is acknowledged. All 20 packets left at
 * the same instant, so the time rule (a packet sent after it acknowledged, 2 reorder
 * windows since) cannot fire. A SACK for PSN 7 alone: nothing lost (7 < 0 + 8); then one
 * for PSN 8: PSN 0 lost, and no other (PSN 1 needs 9).
 */
static void tw_thr8(struct mrc_ep_params *p)
{
	p->qp.reorder_threshold = 8;
	p->qp.retire_rtx = false; /* the lost PSN's EV retires: its other PSNs stay in flight */
}

static void q30_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	struct mrc_qp *qp;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, tw_thr8), 0);
	tn_send_all(st, &tn, src, dst, 20);
	qp = tn_qp(&tn, 0);
	tn_sack_to0(st, &tn, 0xFFFFFF, 0, 1ull << 8, 8); /* bit 8 of base 0xFFFFFF: PSN 7 */
	ST_EQ(st, tn_stats(&tn, 0).loss_sack, 0);
	tn_sack_to0(st, &tn, 0xFFFFFF, 0, 1ull << 8 | 1ull << 9, 9); /* PSNs 7 and 8 */
	ST_EQ(st, tn_stats(&tn, 0).loss_sack, 1);
	ST_EQ(st, qp->rtx_len, 1);
	ST_TRUE(st, ent(qp, 0)->flags & TX_QUEUED);
	tn_free(&tn);
}

/*
 * Q31: NACK PSN_OOR_WINDOW (docs/wire-format.md NETH): the requester queues the PSN again
 * and backs off nack_backoff_ps (10 us by default) before resending. Host 0 sent PSNs
 * 0..7 at 1 ns; the NACK for PSN 0 arrives at 2 ns (echoing no EV of the profile, so it
 * cannot be stale). At 5.002 us nothing may leave; at 10.002 us PSN 0 goes again.
 */
static void q31_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	struct mrc_pkt p = {0}, d;
	uint8_t buf[MRC_PKT_MAX];
	uint64_t t = 2000 + 10000000;
	int n;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, NULL), 0);
	tn_send_all(st, &tn, src, dst, 8);
	p.opcode = MRC_OP_NACK;
	p.neth = (struct mrc_neth){.reason = MRC_NACK_PSN_OOR_WINDOW,
		.ev = 0x00FF0A0B,
		.spdcid = 1,
		.dpdcid = 1,
		.nack_psn = 0,
		.cc_type = 1};
	tn_ctl_to0(st, &tn, &p);
	ST_EQ(st, tn_stats(&tn, 0).nack_rx[MRC_NI_PSN_OOR_WINDOW], 1);
	ST_EQ_I(st, mrc_ep_tx(tn.ep[0], 0, 2000 + 5000000, buf, sizeof(buf)), 0);
	if (mrc_ep_next_timer(tn.ep[0]) <= t)
		mrc_ep_on_timer(tn.ep[0], t);
	n = mrc_ep_tx(tn.ep[0], 0, t, buf, sizeof(buf));
	ST_TRUE(st, n > 0 && mrc_wire_decode(&tn.wire, buf, (size_t)n, true, &d) == MRC_WIRE_OK);
	if (n > 0) {
		ST_TRUE(st, is_data(d.opcode) && (d.flags & MRC_BTH_F_RTX));
		ST_EQ(st, d.psn, 0);
	}
	tn_free(&tn);
}

/*
 * Q32: rcvd_bytes in the in-flight accounting (uec.cpp processAck). A fixed window of 8
 * packets (32 KiB) is full; a SACK acknowledges no PSN but reports rcvd_bytes 48 (x 256 B
 * = 12 KiB, 3 packets beyond its bitmap): in flight 32 - 12 = 20 KiB, so exactly 3 more
 * packets leave. A late SACK whose count is behind (16) changes nothing.
 */
static void tw_win8(struct mrc_ep_params *p)
{
	p->cc_params.init_cwnd = p->cc_params.max_cwnd = 8 * 4096;
}

static unsigned tn_pull_all0(struct tn *tn)
{
	uint8_t buf[MRC_PKT_MAX];
	unsigned n = 0;

	while (mrc_ep_tx(tn->ep[0], 0, 1000, buf, sizeof(buf)) > 0)
		n++;
	return n;
}

static void q32_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	struct mrc_pkt p = {0};

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, tw_win8), 0);
	ST_EQ_I(st, tn_write(&tn, src, dst, 16 * 4096, false), 0);
	ST_EQ(st, tn_pull_all0(&tn), 8);
	p.opcode = MRC_OP_SACK;
	p.psn = 0xFFFFFF;
	p.seth = (struct mrc_seth){.ev = tn_evs[0], .spdcid = 1, .dpdcid = 1,
		.cack_psn = 0xFFFFFF, .ack_psn_offset = 1, .cc_type = 1, .mpr = 1,
		.rcvd_bytes = 48};
	tn_ctl_to0(st, &tn, &p);
	ST_EQ(st, tn_pull_all0(&tn), 3);
	p.seth.rcvd_bytes = 16; /* behind: a late SACK */
	tn_ctl_to0(st, &tn, &p);
	ST_EQ(st, tn_pull_all0(&tn), 0);
	tn_free(&tn);
}

/*
 * Q33: the buffer rule of rcv_cwnd_pen. Host 1's receive window is mpr 1 = 128 PSNs; PSNs
 * 1..100 arrive (single-packet messages), 0 does not: 101 PSNs held (epsn 0 .. max 100),
 * past half the window by 37, so pen = 128 x 37 / 64 = 74 on the SACK the ack request of
 * PSN 100 triggers. PSN 0 then arrives: nothing held, pen 0 and the restore bit.
 */
static void tw_q33(struct mrc_ep_params *p)
{
	p->qp.mpr = 1;
	p->qp.sq_depth = 128;
}

static void q33_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	uint8_t buf[MRC_PKT_MAX];
	struct tn tn;
	uint32_t rkey;
	int pen = -1, restore = -1;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, tw_q33), 0);
	ST_EQ_I(st, mrc_ep_reg_mr(tn.ep[1], dst, 8 * 128, &rkey), 0);
	for (uint32_t i = 1; i <= 101; i++) {
		uint32_t psn = i == 101 ? 0 : i;
		struct mrc_pkt p = {0}, d;
		int len;

		tn_write_pkt(&tn, &p, psn, (uint64_t)(uintptr_t)dst + 8 * psn, rkey, src, 8);
		p.msn = (uint16_t)psn;
		if (psn == 100 || psn == 0)
			p.flags |= MRC_BTH_F_ACKREQ;
		len = mrc_wire_encode(&tn.wire, &p, buf, sizeof(buf));
		mrc_ep_on_rx(tn.ep[1], 0, buf, (size_t)len, false, 1000 + i);
		while ((len = mrc_ep_tx(tn.ep[1], 0, 2000 + i, buf, sizeof(buf))) > 0) {
			if (mrc_wire_decode(&tn.wire, buf, (size_t)len, true, &d) != MRC_WIRE_OK ||
				d.opcode != MRC_OP_SACK)
				continue;
			if (psn == 100 && d.seth.ack_psn_offset == 101) {
				pen = d.seth.rcv_cwnd_pen;
				ST_TRUE(st, !d.seth.restore_cwnd);
			}
			if (psn == 0) {
				ST_EQ(st, d.seth.rcv_cwnd_pen, 0);
				restore = d.seth.restore_cwnd;
			}
		}
	}
	ST_EQ_I(st, pen, 74);
	ST_EQ_I(st, restore, 1);
	tn_free(&tn);
}

/*
 * Q34: m=2 (ALWAYS_SKIP). Host 1 DENIES EV 2 on its QP; host 0 sprays 1 MiB over EVs 0-3.
 * Host 1 answers what arrives over EV 2 with m=2, so host 0's EV 2 goes ASSUMED_BAD by
 * cause sack-m2 and stays so (its probe's answer carries m=2 too); the data arrives.
 */
static void q34_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	const struct mrc_ev_set *evs;
	int idx;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, NULL), 0);
	ST_EQ_I(st, mrc_ep_ev_deny(tn.ep[1], 1, tn_evs[2], true, 0), 0);
	ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, false), 0);
	tn_run(&tn, 5000000000ull); /* 5 ms: the EV's probes go on (100 us, 200 us, ...) */
	ST_EQ(st, tn.done, 1);
	ST_EQ_MEM(st, dst, src, 1 << 20);
	evs = mrc_ep_qp_evs(tn.ep[0], 1);
	idx = mrc_ev_find(evs, tn_evs[2]);
	ST_EQ_I(st, mrc_ev_state(evs, (unsigned)idx), MRC_EV_ASSUMED_BAD);
	ST_EQ_I(st, mrc_ev_state(evs, (unsigned)mrc_ev_find(evs, tn_evs[1])), MRC_EV_GOOD);
	ST_TRUE(st, evs->log_total >= 1 && evs->log[evs->log_head].cause == MRC_EVC_SACK_BAD);
	tn_free(&tn);
}

/*
 * Q35: the SACK delay. PSN 0 arrives at 1 us (the first arrival: SACKed at once), PSN 1 at
 * 2 us (4 KiB < sack_every, no ack request: held). Host 1's next timer is then 2 + 12 us
 * (sack_delay 0: the base RTT, 12 us); nothing leaves before it, and at it the SACK
 * acknowledging PSN 1 (cack 1) does.
 */
static void q35_case(struct mrc_st *st, uint8_t *src, uint8_t *dst)
{
	uint8_t buf[MRC_PKT_MAX];
	struct tn tn;
	struct mrc_pkt d;
	uint32_t rkey;
	int len;

	ST_EQ_I(st, tn_init(&tn, 1, 4, false, NULL), 0);
	ST_EQ_I(st, mrc_ep_reg_mr(tn.ep[1], dst, 8192, &rkey), 0);
	for (uint32_t psn = 0; psn < 2; psn++) {
		struct mrc_pkt p = {0};

		tn_write_pkt(&tn, &p, psn, (uint64_t)(uintptr_t)dst + 4096 * psn, rkey, src, 4096);
		p.opcode = psn ? MRC_OP_WRITE_LAST : MRC_OP_WRITE_FIRST;
		p.dma_len = 8192;
		p.va = (uint64_t)(uintptr_t)dst;
		len = mrc_wire_encode(&tn.wire, &p, buf, sizeof(buf));
		mrc_ep_on_rx(tn.ep[1], 0, buf, (size_t)len, false, 1000000 * (psn + 1));
	}
	len = mrc_ep_tx(tn.ep[1], 0, 2000000, buf, sizeof(buf)); /* PSN 0's */
	ST_TRUE(st, len > 0 && mrc_wire_decode(&tn.wire, buf, (size_t)len, true, &d) == 0 &&
			    d.opcode == MRC_OP_SACK && d.seth.cack_psn == 0);
	ST_EQ_I(st, mrc_ep_tx(tn.ep[1], 0, 2000000, buf, sizeof(buf)), 0);
	ST_EQ(st, mrc_ep_next_timer(tn.ep[1]), 2000000 + 12000000);
	mrc_ep_on_timer(tn.ep[1], 14000000);
	len = mrc_ep_tx(tn.ep[1], 0, 14000000, buf, sizeof(buf));
	ST_TRUE(st, len > 0 && mrc_wire_decode(&tn.wire, buf, (size_t)len, true, &d) == 0 &&
			    d.opcode == MRC_OP_SACK && d.seth.cack_psn == 1);
	ST_EQ(st, mrc_ep_next_timer(tn.ep[1]), UINT64_MAX);
	tn_free(&tn);
}

/* Q27-Q30: rules at their edges, each worked out by hand above its function. */
static const struct {
	const char *name;
	void (*run)(struct mrc_st *st, uint8_t *src, uint8_t *dst);
} q_edges[] = {
	{"Q27 SACK bitmap edge: newest PSN 63, 64, 65 past cack (0xFFFFEF): offsets 0, 1, 2, "
	 "its bit the last",
		q27_case},
	{"Q28 NACK TRIMMED: one resend, the EV to SKIP for the trim, one trim counted on it, "
	 "never ASSUMED_BAD",
		q28_case},
	{"Q29 SACK received: cack 0xFFFFFF, offset 16, bits 0 and 63 acknowledge PSNs 15 and "
	 "78 alone",
		q29_case},
	{"Q30 loss by count, reorder_threshold 8: PSN 7 acknowledged loses nothing, PSN 8 "
	 "loses PSN 0 alone",
		q30_case},
	{"Q31 NACK PSN_OOR_WINDOW: nothing resent within the 10 us backoff, the PSN at its end",
		q31_case},
	{"Q32 rcvd_bytes past the bitmap's PSNs leaves the flight: 3 more packets of a full "
	 "window; a late count changes nothing",
		q32_case},
	{"Q33 rcv_cwnd_pen, buffer rule: 101 of 128 PSNs held: 74; the hole filled: 0 and "
	 "restore",
		q33_case},
	{"Q34 m=2: an EV the responder DENIES goes ASSUMED_BAD at the sender (sack-m2) and "
	 "stays, its probes answered with m=2 too",
		q34_case},
	{"Q35 a SACK the cadence holds leaves sack_delay (the base RTT) after the arrival",
		q35_case},
};

MRC_SELFTEST(qp)
{
	static uint8_t src[2 << 20], dst[2 << 20];
	struct tn tn;
	struct mrc_qp_stats s0, s1;
	const struct mrc_ev_set *evs;
	const char *why;

	mrc_st_case(st, "Q01 ACK timeout and retry budget: 1.024 us * 2^t, linear then doubling");
	{
		struct mrc_qp_params p;

		mrc_qp_params_default(&p);
		/* OCP MRC examples/mrc_qp.md: timeout 8, 7 linear + 25 (for ever) exponential */
		ST_EQ(st, mrc_qp_timeout_ps(&p), 262144000ull); /* 1.024 us * 2^8 = 262.144 us */
		ST_EQ(st, p.retry_linear, 7);
		ST_EQ(st, p.retry_exp, 25);
		ST_EQ(st, mrc_qp_give_up_ps(&p), UINT64_MAX);
		p.timeout = 2;
		p.retry_linear = 2;
		p.retry_exp = 2;
		/* T = 4.096 us: T, T, T (linear), then 2T, 4T: 9T = 36.864 us */
		ST_EQ(st, mrc_qp_give_up_ps(&p), 36864000ull);
		ST_EQ(st, rto_after(&p, 2), 4096000ull);  /* the second retry: still T */
		ST_EQ(st, rto_after(&p, 4), 16384000ull); /* two past the linear ones: 4T */
		/* doubling stops at mrc.h's largest timeout, 1.024 us * 2^24 = 17.179869184 s */
		p.retry_exp = 25;
		ST_EQ(st, rto_after(&p, 30), 17179869184000ull);
		p.timeout = 24;
		ST_EQ(st, rto_after(&p, 1), 17179869184000ull);
	}

	mrc_st_case(st, "Q02 (1) 1 MiB over 128 EVs, 4 planes, lossless");
	ST_EQ_I(st, tn_init(&tn, 4, 32, false, tw_no_backup), 0);
	ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, true), 0);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	s1 = tn_stats(&tn, 1);
	ST_EQ_MEM(st, dst, src, 1 << 20);
	ST_EQ(st, tn.data_tx, 256); /* 1 MiB / 4096 */
	for (unsigned pl = 0; pl < 4; pl++)
		ST_EQ(st, tn.plane_data[pl], 64); /* every port pulls at the same rate */
	ST_EQ(st, s0.rtx_pkts, 0);
	/* UEC's cadence: a SACK on the first arrival (PSN 0), then every 16 KiB = 4 packets
	 * (PSNs 4, 8, .., 252: 63), and on the last one's ack request (PSN 255): 65 */
	ST_EQ(st, s1.sack_tx, 1 + 63 + 1);
	ST_EQ(st, s0.sack_rx, 65);
	ST_EQ(st, tn.done, 1);
	ST_EQ_I(st, tn.done_status, 0);
	ST_EQ(st, tn.imm_n, 1);
	ST_EQ(st, tn.imm, 0xC0FFEE);
	ST_EQ(st, tn.imm_len, 1 << 20);
	ST_EQ(st, s1.rx_unique, 256);
	ST_EQ(st, s1.rx_dup + s1.rx_reordered + s1.rx_lost, 0);
	ST_EQ(st, mrc_qp_next_timer(tn_qp(&tn, 0)), UINT64_MAX);
	tn_free(&tn);

	mrc_st_case(st, "Q03 (2) one EV black-holed: ASSUMED_BAD on its first loss, replaced, "
			"probed back");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, tw_blackhole), 0);
	bh_ev = tn_evs[3]; /* plane 0, active */
	bh_on = true;
	tn.hook = hook_blackhole;
	ST_EQ_I(st, tn_write(&tn, src, dst, 256 << 10, false), 0);
	tn_run(&tn, 200000000); /* 200 us */
	evs = mrc_ep_qp_evs(tn.ep[0], 1);
	s0 = tn_stats(&tn, 0);
	ST_EQ_MEM(st, dst, src, 256 << 10);
	ST_EQ(st, tn.done, 1);
	ST_EQ(st, mrc_ev_state(evs, 3), MRC_EV_ASSUMED_BAD);
	ST_TRUE(st, !mrc_ev_active(evs, 3));
	/* plane 0's first backup carried packets, plane 1's did not */
	ST_TRUE(st, mrc_ev_active(evs, 6) && mrc_ev_st(evs, 6)->tx_pkts > 0);
	ST_TRUE(st, !mrc_ev_active(evs, 15) && mrc_ev_st(evs, 15)->tx_pkts == 0);
	{
		unsigned data_drops = tn.drops - tn.probe_tx, twice = 0, more = 0;
		struct mrc_ev_change log[8];
		unsigned n = mrc_ev_log(evs, log, 8);

		ST_TRUE(st, data_drops >= 1);
		/* every loss on it was seen ... */
		ST_EQ(st, mrc_ev_st(evs, 3)->losses, data_drops);
		ST_EQ(st, s0.rtx_pkts, data_drops);	     /* ... and resent once */
		for (unsigned i = 0; i < 64; i++) {
			twice += tn.psn_tx[i] == 2;
			more += tn.psn_tx[i] > 2;
		}
		ST_EQ(st, twice, data_drops);
		ST_EQ(st, more, 0);
		ST_EQ(st, tn.data_tx, 64 + data_drops);
		ST_TRUE(st, n >= 1 && log[0].ev == bh_ev && log[0].to == MRC_EV_ASSUMED_BAD &&
				    log[0].cause == MRC_EVC_LOSS_SACK);
		ST_EQ(st, n, 1); /* nothing else changed */
	}
	ST_TRUE(st, tn.probe_tx >= 2); /* probes at +2, +4, +8 us ... all dropped */
	bh_on = false;
	tn_run(&tn, 400000000);
	ST_EQ(st, mrc_ev_state(evs, 3), MRC_EV_GOOD);
	ST_EQ(st, mrc_ev_st(evs, 3)->probes_ok, 1);
	ST_EQ(st, mrc_ep_next_timer(tn.ep[0]), UINT64_MAX);
	tn_free(&tn);

	mrc_st_case(st, "Q27 a loss without a trim retires its path: the EVs of the same path "
			"go ASSUMED_BAD with the first (path_fate), not each by a loss of its own");
	for (int fate = 1; fate >= 0; fate--) {
		struct mrc_ev_change log[16];
		unsigned n, loss = 0, path = 0, other = 0;
		uint64_t t0 = 0;

		fate_on = fate;
		ST_EQ_I(st, tn_init(&tn, 2, 8, false, tw_fate), 0);
		bh_on = true;
		tn.hook = hook_fate;
		ST_EQ_I(st, tn_write(&tn, src, dst, 256 << 10, false), 0);
		tn_run(&tn, 200000000); /* 200 us */
		evs = mrc_ep_qp_evs(tn.ep[0], 1);
		ST_EQ_MEM(st, dst, src, 256 << 10);
		ST_EQ(st, tn.done, 1);
		n = mrc_ev_log(evs, log, 16);
		for (unsigned i = 0; i < n; i++) {
			ST_TRUE(st, log[i].to == MRC_EV_ASSUMED_BAD && log[i].ev >> 28 == 0 &&
					    (log[i].ev >> 16 & 1));
			loss += log[i].cause == MRC_EVC_LOSS_SACK;
			path += log[i].cause == MRC_EVC_PATH;
			other += log[i].cause != MRC_EVC_LOSS_SACK && log[i].cause != MRC_EVC_PATH;
			if (i == 0)
				t0 = log[0].t_ps;
			if (fate)
				ST_EQ(st, log[i].t_ps, t0); /* at once */
		}
		ST_EQ(st, other, 0);
		if (fate) { /* one loss found the path dead: 1, 3, 5 and backup 7 out */
			ST_EQ(st, loss, 1);
			ST_EQ(st, path, 3);
			for (unsigned i = 1; i < 8; i += 2)
				ST_EQ(st, mrc_ev_state(evs, i), MRC_EV_ASSUMED_BAD);
			ST_EQ(st, mrc_ev_st(evs, 7)->tx_pkts, 0); /* never promoted */
		} else { /* each found by a loss of its own */
			ST_TRUE(st, loss >= 3);
			ST_EQ(st, path, 0);
		}
		bh_on = false;
		tn_free(&tn);
	}

	mrc_st_case(st, "Q04 (3) C11: NACK(1) overtaken by SACK(2): 3 data transmissions");
	ST_EQ_I(st, tn_init(&tn, 1, 2, false, tw_c11), 0);
	tn.hook = hook_c11;
	ST_EQ_I(st, tn_write(&tn, src, dst, 8192, false), 0);
	/* PSN 1, 2 at 0 and ~0.34 us; both arrive by ~2.7 us; SACK(2) back by ~4 us; NACK(1)
	 * held 5 us more */
	tn_run(&tn, 5000000);
	ST_EQ(st, tn.data_tx, 2);
	ST_EQ(st, mrc_qp_una(tn_qp(&tn, 0)), 1);
	ST_TRUE(st, mrc_qp_next_timer(tn_qp(&tn, 0)) != UINT64_MAX); /* PSN 1's timer armed */
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	s1 = tn_stats(&tn, 1);
	ST_EQ(st, tn.data_tx, 3);
	ST_EQ(st, tn.psn_tx[1], 2);
	ST_EQ(st, tn.psn_tx[2], 1);
	ST_EQ(st, s0.rtx_pkts, 1);
	ST_TRUE(st, c11_rtx_ev != c11_first_ev);
	ST_EQ(st, s1.rx_trimmed, 1);
	ST_EQ(st, s1.nack_tx[MRC_NI_TRIMMED], 1);
	ST_EQ(st, tn.done, 1);
	ST_EQ_MEM(st, dst, src, 8192);
	/* late duplicate NACK(1) after PSN 1 is acknowledged: no retransmission */
	mrc_ep_on_rx(tn.ep[0], 0, c11_nack, c11_nack_len, false, tn.now + 1000000);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	ST_EQ(st, tn.data_tx, 3);
	ST_EQ(st, s0.nack_stale, 1);
	tn_free(&tn);

	mrc_st_case(st, "Q05 (4) ECN on one EV: SKIP, no window decrease below target delay");
	ST_EQ_I(st, tn_init(&tn, 2, 8, true, NULL), 0);
	ce_ev = tn_evs[1];
	tn.hook = hook_ce;
	ce_marked = 0;
	{
		const struct mrc_cc *cc;
		struct mrc_ev_change log[256];

		ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, false), 0);
		tn_run(&tn, UINT64_MAX);
		s0 = tn_stats(&tn, 0);
		cc = mrc_qp_cc(tn_qp(&tn, 0));
		evs = mrc_ep_qp_evs(tn.ep[0], 1);
		ST_TRUE(st, ce_marked > 0);
		ST_EQ(st, s0.ecn_echo_rx, ce_marked); /* every CE packet SACKed with m=1 */
		ST_EQ(st, cc->n_quadrant[MRC_CCQ_NONE], ce_marked);
		ST_EQ(st, cc->n_md, 0);
		/* nothing cut the window: it stays at its ceiling, 1.5 BDP of the smallest RTT
		 * seen (NSCC's maxwnd follows the base RTT down from the configured 100 us) */
		ST_EQ(st, cc->n_qa + cc->n_trim_dec, 0);
		ST_EQ(st, mrc_cc_cwnd(cc), cc->maxwnd);
		ST_EQ(st, mrc_ev_st(evs, 1)->ecn, ce_marked);
		ST_TRUE(st, mrc_ev_log(evs, log, 256) >= 1 && log[0].to == MRC_EV_SKIP &&
				    log[0].cause == MRC_EVC_ECN && log[0].ev == ce_ev);
		ST_EQ(st, s0.rtx_pkts, 0);
		ST_EQ_MEM(st, dst, src, 1 << 20);
	}
	tn_free(&tn);

	mrc_st_case(st, "Q06 (5) 2 MiB from PSN 0xFFFF00 across the 24-bit wrap, losses at it");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, tw_wrap), 0);
	tn.hook = hook_drop_psn;
	drop_psn[0] = 0xFFFFFF;
	drop_psn[1] = 0x000000;
	n_drop_psn = 2;
	ST_EQ_I(st, tn_write(&tn, src, dst, 2 << 20, false), 0);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	ST_EQ_MEM(st, dst, src, 2 << 20);
	ST_EQ(st, tn.done, 1);
	ST_EQ(st, tn.data_tx, 512 + 2);
	ST_EQ(st, tn.n_rtx_psn, 2);
	ST_TRUE(st, (tn.rtx_psn[0] == 0xFFFFFF && tn.rtx_psn[1] == 0) ||
			    (tn.rtx_psn[0] == 0 && tn.rtx_psn[1] == 0xFFFFFF));
	ST_EQ(st, mrc_qp_next_psn(tn_qp(&tn, 0)), 0x000100); /* 0xFFFF00 + 512 mod 2^24 */
	ST_EQ(st, mrc_qp_una(tn_qp(&tn, 0)), 0x000100);
	tn_free(&tn);

	mrc_st_case(st, "Q07 C10: cack 0xFFFFFE, 0x000001-2 received: bits 3,4; resend "
			"{0xFFFFFF, 0}");
	ST_EQ_I(st, tn_init(&tn, 1, 4, false, tw_c10), 0);
	tn.hook = hook_drop_psn;
	n_c10_sack = 0;
	ST_EQ_I(st, tn_write(&tn, src, dst, 6 * 4096, false), 0); /* FFFFFD .. 000002 */
	tn_run(&tn, UINT64_MAX);
	{
		bool found = false;

		for (unsigned i = 0; i < n_c10_sack; i++)
			if (c10_sack[i].cack_psn == 0xFFFFFE && c10_sack[i].sack_offset == 0 &&
				c10_sack[i].sack_bitmap == (1u << 0 | 1u << 3 | 1u << 4) &&
				c10_sack[i].ack_psn_offset == 4)
				found = true;
		ST_TRUE(st, found);
	}
	ST_EQ(st, tn.n_rtx_psn, 2);
	ST_TRUE(st, (tn.rtx_psn[0] == 0xFFFFFF && tn.rtx_psn[1] == 0) ||
			    (tn.rtx_psn[0] == 0 && tn.rtx_psn[1] == 0xFFFFFF));
	ST_EQ_MEM(st, dst, src, 6 * 4096);
	tn_free(&tn);
	n_drop_psn = 0;

	mrc_st_case(st, "Q08 (6) plane 1's port down: plane 0 carries all; back after port up");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, NULL), 0);
	tn_port(&tn, 0, 1, false);
	ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, false), 0);
	tn_run(&tn, UINT64_MAX);
	ST_EQ(st, tn.plane_data[0], 256);
	ST_EQ(st, tn.plane_data[1], 0);
	ST_EQ_MEM(st, dst, src, 1 << 20);
	tn_port(&tn, 0, 1, true);
	ST_EQ_I(st, tn_write(&tn, src, dst + (1 << 20), 1 << 20, false), 0);
	tn_run(&tn, UINT64_MAX);
	ST_EQ(st, tn.plane_data[0], 256 + 128);
	ST_EQ(st, tn.plane_data[1], 128);
	ST_EQ(st, tn.done, 2);
	ST_EQ_MEM(st, dst + (1 << 20), src, 1 << 20);
	tn_free(&tn);

	mrc_st_case(st, "Q09 (7) every path dead: QP error at exactly 9T = 36.864 us, reason");
	ST_EQ_I(st, tn_init(&tn, 2, 4, false, tw_dead), 0);
	tn.hook = hook_all_dead;
	tn.now = 1000000;
	ST_EQ_I(st, tn_write(&tn, src, dst, 64 << 10, false), 0);
	tn_run(&tn, 1000000000);
	ST_EQ(st, tn.done, 1);
	ST_EQ_I(st, tn.done_status, -ETIMEDOUT);
	ST_EQ(st, tn.done_t, 1000000 + 36864000);
	ST_TRUE(st, mrc_qp_failed(tn_qp(&tn, 0), &why));
	ST_TRUE(st, why && strncmp(why,
				   "ACK timeout: PSN 0x000000 unacknowledged after 4 "
				   "retries",
				   52) == 0);
	ST_EQ(st, mrc_ep_next_timer(tn.ep[0]), UINT64_MAX); /* never a hang */
	ST_EQ_I(st, mrc_ep_post_write(tn.ep[0], 1, src, 1, 0, 0, false, 0, 1, tn.now), -EPIPE);
	tn_free(&tn);

	mrc_st_case(st, "Q10 (8) duplicated, reordered, stale packets: data and counters exact");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, NULL), 0);
	tn.hook = hook_dupreorder;
	n_dup = n_delayed = 0;
	ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, true), 0);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	s1 = tn_stats(&tn, 1);
	ST_EQ(st, n_delayed, 51);  /* PSNs 0..255 that are 1 mod 5: 1, 6, ..., 251 */
	ST_EQ(st, n_dup, 86 - 17); /* multiples of 3 in 0..255: 86; of those 1 mod 5: 17 */
	/* a stale copy of PSN 7, long after: one more duplicate, nothing else moves */
	mrc_ep_on_rx(tn.ep[1], stale_plane, stale_pkt, stale_len, false, tn.now + 1000000);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	s1 = tn_stats(&tn, 1);
	n_dup++;
	ST_EQ_MEM(st, dst, src, 1 << 20);
	ST_EQ(st, s1.rx_unique, 256);
	ST_EQ(st, s1.rx_dup, n_dup);
	ST_EQ(st, s1.rx_reordered, n_delayed);
	ST_EQ(st, s1.rx_lost, 0);
	ST_EQ(st, s1.msgs_delivered, 1);
	ST_EQ(st, tn.imm_n, 1);
	ST_EQ(st, s0.rtx_pkts, 0);
	tn_free(&tn);

	mrc_st_case(st, "Q11 NACK PSN_OOR_WINDOW: back off, resend each once per NACK, finish");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, tw_oor), 0);
	tn.delay_ps = 50000000; /* 50 us: all 256 packets leave before the first SACK */
	tn.hook = hook_drop_psn;
	drop_psn[0] = 0;
	n_drop_psn = 1;
	ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, false), 0);
	tn_run(&tn, UINT64_MAX);
	n_drop_psn = 0;
	s0 = tn_stats(&tn, 0);
	s1 = tn_stats(&tn, 1);
	ST_EQ_MEM(st, dst, src, 1 << 20);
	ST_EQ(st, tn.done, 1);
	ST_TRUE(st, s1.rx_oor >= 128); /* PSN 0 lost: 128..255 lie past the 128-PSN window */
	ST_EQ(st, s1.nack_tx[MRC_NI_PSN_OOR_WINDOW], s1.rx_oor);
	ST_EQ(st, s0.nack_rx[MRC_NI_PSN_OOR_WINDOW], s1.rx_oor);
	ST_EQ(st, tn.data_tx, 256 + 1 + s1.rx_oor); /* PSN 0 once more, each OOR arrival once */
	ST_EQ(st, s1.rx_unique, 256);
	ST_TRUE(st, tn.now >= 10000000); /* at least one 10 us backoff */
	tn_free(&tn);

	mrc_st_case(st, "Q12 NACK UNEXP_EVENT (bad R_Key at the responder): QP error, reason");
	ST_EQ_I(st, tn_init(&tn, 1, 4, false, NULL), 0);
	ST_EQ_I(st,
		mrc_ep_post_write(
			tn.ep[0], 1, src, 4096, (uint64_t)(uintptr_t)dst, 0xBAD, false, 0, 9, 0),
		0);
	tn_run(&tn, UINT64_MAX);
	s1 = tn_stats(&tn, 1);
	ST_EQ(st, s1.rx_access_err, 1);
	ST_EQ(st, s1.nack_tx[MRC_NI_UNEXP_EVENT], 1);
	ST_EQ(st, tn.done, 1);
	ST_EQ_I(st, tn.done_status, -ECONNABORTED);
	ST_TRUE(st, mrc_qp_failed(tn_qp(&tn, 0), &why));
	ST_EQ_STR(st, why, "NACK UNEXP_EVENT from peer for PSN 0x000000");
	ST_EQ(st, mrc_ep_next_timer(tn.ep[0]), UINT64_MAX);
	tn_free(&tn);

	mrc_st_case(st, "Q13 (6) port down mid-transfer: in-flight resent on plane 0, none after");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, NULL), 0);
	tn.hook = hook_port_down;
	pd_down = false;
	pd_after = 0;
	ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, true), 0);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	ST_TRUE(st, pd_down);
	ST_EQ(st, pd_after, 0);
	ST_TRUE(st, s0.loss_port > 0);
	/* each requeued PSN is resent once, unless its copy already on the wire got acked */
	ST_TRUE(st, s0.rtx_pkts <= s0.loss_port);
	ST_EQ(st, tn.data_tx, 256 + s0.rtx_pkts);
	ST_EQ_MEM(st, dst, src, 1 << 20);
	ST_EQ(st, tn.done, 1);
	ST_EQ(st, tn.imm_n, 1);
	tn_free(&tn);

	mrc_st_case(st, "Q14 (6) the peer's port down: told by port status, no loss, and back");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, NULL), 0);
	tn_port(&tn, 1, 1, false);
	tn_run(&tn, 5000000); /* the update crosses plane 0 in ~1 us */
	s0 = tn_stats(&tn, 0);
	ST_EQ(st, s0.port_status_rx, 1);
	ST_EQ_I(st, tn_write(&tn, src, dst, 1 << 20, false), 0);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	ST_EQ(st, tn.plane_data[0], 256);
	ST_EQ(st, tn.plane_data[1], 0);
	ST_EQ(st, s0.rtx_pkts, 0);
	ST_EQ(st, mrc_ep_qp_evs(tn.ep[0], 1)->log_total, 0); /* no EV was blamed */
	ST_EQ_MEM(st, dst, src, 1 << 20);
	tn_port(&tn, 1, 1, true);
	tn_run(&tn, tn.now + 5000000);
	ST_EQ_I(st, tn_write(&tn, src, dst + (1 << 20), 1 << 20, false), 0);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	ST_EQ(st, s0.port_status_rx, 2);
	ST_EQ(st, tn.plane_data[0], 256 + 128);
	ST_EQ(st, tn.plane_data[1], 128);
	ST_EQ(st, tn.done, 2);
	ST_EQ_MEM(st, dst + (1 << 20), src, 1 << 20);
	tn_free(&tn);

	mrc_st_case(st, "Q15 C09 A: 1,2,4,3,5 -> lost 0, reordered 1, duplicates 0");
	c09_run(st, (const uint32_t[]){1, 2, 4, 3, 5}, 5, 0, 1, 0);
	mrc_st_case(st, "Q16 C09 B: 1,3,3,4 -> lost 1, reordered 0, duplicates 1");
	c09_run(st, (const uint32_t[]){1, 3, 3, 4}, 4, 1, 0, 1);
	mrc_st_case(st, "Q17 C09 C: 1,2,3,7,5,6,4,9 -> lost 1, reordered 3, duplicates 0");
	c09_run(st, (const uint32_t[]){1, 2, 3, 7, 5, 6, 4, 9}, 8, 1, 3, 0);

	mrc_st_case(st, "Q18 (2) with one EV profile given to both endpoints: its counters are "
			"both's, losses per endpoint");
	ST_EQ_I(st, tn_init(&tn, 2, 8, false, tw_shared), 0);
	bh_ev = tn_evs[3];
	bh_on = true;
	tn.hook = hook_blackhole;
	ST_EQ_I(st, tn_write(&tn, src, dst, 256 << 10, false), 0);
	tn_run(&tn, 200000000);
	{
		const struct mrc_ev_profile *f = mrc_ep_ev_profile(tn.ep[0]);
		const uint64_t *l0 = mrc_ep_ev_losses(tn.ep[0]), *l1 = mrc_ep_ev_losses(tn.ep[1]);
		unsigned data_drops = tn.drops - tn.probe_tx;
		uint64_t tx = 0;
		struct mrc_ep_params p;
		struct mrc_ep *ep = NULL;

		ST_TRUE(st, f == tw_shared_prof && mrc_ep_ev_profile(tn.ep[1]) == f);
		ST_EQ(st, tn.done, 1);
		ST_TRUE(st, data_drops >= 1);
		ST_EQ(st, f->st[3].losses, data_drops);
		ST_EQ(st, l0[3], data_drops);
		for (unsigned i = 0; i < 16; i++) {
			tx += f->st[i].tx_pkts;
			ST_EQ(st, l0[i], f->st[i].losses); /* host 1 sends no data: all host 0's */
			ST_EQ(st, l1[i], 0);
		}
		ST_EQ(st, tx, tn.data_tx); /* host 0's data transmissions, counted once */
		mrc_ep_ev_losses_clear(tn.ep[0]);
		ST_EQ(st, mrc_ep_ev_losses(tn.ep[0])[3], 0);
		ST_EQ(st, f->st[3].losses, data_drops); /* the shared counter stays */
		/* a profile of another EV list is refused */
		mrc_ep_params_default(&p, 2, TN_RATE_BPS, 12000000);
		p.path = tn_path;
		p.peer_of = st_peer_of;
		p.ev_plane = st_ev_plane;
		p.ev.evs = tn_evs;
		p.ev.n_evs = 15;
		p.ev_prof = tw_shared_prof;
		ST_EQ_I(st, mrc_ep_new(&p, &tn_ops, NULL, &ep), -EINVAL);
		ST_TRUE(st, ep == NULL);
	}
	tn_free(&tn);
	mrc_ev_profile_put(tw_shared_prof);
	tw_shared_prof = NULL;

	mrc_st_case(st, "Q19 a send on one plane lets another ask the QP again (its next "
			"retransmission may be that plane's)");
	q19_case(st);

	mrc_st_case(st, "Q21 RTT ensemble (RFC 9040): a QP's reorder and tail-probe window is at "
			"least the largest latest per-plane RTT of its endpoint's QPs");
	q21_case(st);

	mrc_st_case(st, "Q22 an acknowledgement wakes the ports only for a QP with something "
			"left to send");
	q22_case(st, src, dst);

	mrc_st_case(st, "Q23 a SACK's bitmap read from the receive ring a word at a time equals "
			"the PSN-by-PSN answer");
	q23_case(st);

	mrc_st_case(st, "Q24 at most 3 tail probes until an ACK, doubly spaced: a peer that "
			    "hears nothing gets 3, not one per window");
	q24_case(st, src, dst);

	mrc_st_case(st, "Q25 five messages in flight, short and empty last packets lost across "
			"the PSN wrap: each resent with its own length, all delivered");
	q25_case(st, src, dst);

	mrc_st_case(st, "Q26 the send log drops the dead records a loss walk met, the live "
			"ones in send order");
	q26_case(st);

	for (size_t i = 0; i < sizeof(q_edges) / sizeof(q_edges[0]); i++) {
		mrc_st_case(st, "%s", q_edges[i].name);
		q_edges[i].run(st, src, dst);
	}

	mrc_st_case(st, "Q20 a gathered packet received in pieces: its payload placed from the "
			"sender's buffer, one copy; NULL places zeros; with checks on, dropped");
	{
		static uint8_t gsrc[96];

		for (unsigned i = 0; i < sizeof(gsrc); i++)
			gsrc[i] = (uint8_t)(3 * i + 5);
		q20_run(st, gsrc, false);
		q20_run(st, NULL, false);
		q20_run(st, gsrc, true);
	}
}

/* ---- selftest: RoCE mode (qp.h "RoCE mode") on the same scripted network ------------- */

static void tw_roce(struct mrc_ep_params *p)
{
	p->qp.transport = MRC_QP_ROCE;
	p->ev.backup_per_plane = 0;
}

static uint32_t trim_psn;

/* Trims the first transmission of PSN trim_psn, as a full switch queue would. */
static int hook_trim_psn(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	(void)extra;
	if (from == 0 && is_data(d->opcode) && d->psn == trim_psn && tn->psn_tx[d->psn] == 1)
		*len = (uint32_t)mrc_wire_trim(b, *len, 256, tn->wire.dscp_trimmed);
	return TN_PASS;
}

/*
 * Eight packets (32 KiB) with 100 us one-way delay: all are on the wire before any answer
 * comes back, so a loss of PSN k is answered by exactly one NAK(k) (from PSN k+1's
 * arrival) and go-back-N resends PSNs k..7: 8 - k retransmissions, 16 - k transmissions.
 */
static void roce_gbn_case(struct mrc_st *st, bool trim, uint8_t *src, uint8_t *dst)
{
	struct tn tn;
	struct mrc_qp_stats s0, s1;
	unsigned k = 2;

	ST_EQ_I(st, tn_init(&tn, 2, 4, false, tw_roce), 0);
	tn.delay_ps = 100000000;
	n_drop_psn = 0;
	if (trim) {
		trim_psn = k;
		tn.hook = hook_trim_psn;
	} else {
		drop_psn[0] = k;
		n_drop_psn = 1;
		tn.hook = hook_drop_psn;
	}
	ST_EQ_I(st, tn_write(&tn, src, dst, 8 * 4096, false), 0);
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	s1 = tn_stats(&tn, 1);
	ST_EQ(st, tn.done, 1);
	ST_EQ_I(st, tn.done_status, 0);
	ST_EQ_MEM(st, dst, src, 8 * 4096);
	ST_EQ(st, tn.data_tx, 16 - k);
	ST_EQ(st, s0.rtx_pkts, 8 - k);
	for (unsigned psn = 0; psn < 8; psn++)
		ST_EQ(st, tn.psn_tx[psn], psn < k ? 1 : 2);
	ST_EQ(st, s1.seq_nak_tx, 1);	  /* once per gap ... */
	ST_EQ(st, s1.rx_out_of_seq, 7 - k); /* ... though PSNs k+1..7 all came early */
	ST_EQ(st, s0.seq_nak_rx, 1);
	ST_EQ(st, s0.gbn_rewinds, 1);
	ST_EQ(st, s0.rto_events, 0);
	ST_EQ(st, s1.rx_unique, 8);
	ST_EQ(st, s1.rx_trimmed, trim ? 1 : 0);
	ST_EQ(st, s1.nack_tx[MRC_NI_TRIMMED] + s1.nack_tx[MRC_NI_TRIMMED_LASTHOP], 0);
	/* four one-way trips (data, NAK, resent data, its ACK) and some serialization */
	ST_TRUE(st, tn.done_t > 400000000 && tn.done_t < 410000000);
	ST_EQ(st, mrc_ep_qp_evs(tn.ep[0], 1)->log_total, 0); /* no EV state changes */
	tn_free(&tn);
}

/* R06: the EVs (decoded: UDP source port, and flow label but in udp) of every packet. */
static uint32_t ev_seen[2][4];
static unsigned n_ev_seen[2];

static int hook_ev_seen(struct tn *tn, unsigned from, const struct mrc_pkt *d, uint8_t *b,
	uint32_t *len, uint64_t *extra)
{
	unsigned i;

	(void)tn, (void)b, (void)len, (void)extra;
	for (i = 0; i < n_ev_seen[from] && ev_seen[from][i] != d->ev; i++)
		;
	if (i == n_ev_seen[from] && i < 4)
		ev_seen[from][n_ev_seen[from]++] = d->ev;
	return TN_PASS;
}

static void tw_roce_udp(struct mrc_ep_params *p)
{
	tw_roce(p);
	p->wire.ev_format = MRC_EVF_UDP;
}

MRC_SELFTEST(roce)
{
	static uint8_t src[256 << 10], dst[256 << 10];
	struct tn tn;
	struct mrc_qp_stats s0, s1;
	const struct mrc_ev_set *evs;
	unsigned plane = 0, evi = 0;

	mrc_st_case(st, "R01 one plane and one EV per QP, no probes, lossless");
	ST_EQ_I(st, tn_init(&tn, 4, 8, false, tw_roce), 0);
	ST_EQ_I(st, mrc_qp_roce_path(tn_qp(&tn, 0), &plane, &evi), 0);
	ST_EQ_I(st, tn_write(&tn, src, dst, 256 << 10, false), 0);
	tn_run(&tn, UINT64_MAX);
	evs = mrc_ep_qp_evs(tn.ep[0], 1);
	s0 = tn_stats(&tn, 0);
	ST_EQ_MEM(st, dst, src, 256 << 10);
	ST_TRUE(st, plane < 4 && mrc_ev_plane(evs, evi) == plane);
	for (unsigned p = 0; p < 4; p++)
		ST_EQ(st, tn.plane_data[p], p == plane ? 64 : 0); /* 256 KiB / 4096 */
	ST_EQ(st, mrc_ev_st(evs, evi)->tx_pkts, 64);
	ST_EQ(st, tn.probe_tx + s0.rtx_pkts + s0.tlp, 0);
	ST_EQ(st, tn.done, 1);
	ST_EQ(st, mrc_ep_next_timer(tn.ep[0]), UINT64_MAX);
	{
		struct tn t2;
		unsigned pl2, ev2;

		/* MRC mode has no bound path */
		ST_EQ_I(st, tn_init(&t2, 1, 2, false, NULL), 0);
		ST_EQ_I(st, mrc_qp_roce_path(tn_qp(&t2, 0), &pl2, &ev2), -EINVAL);
		tn_free(&t2);
	}
	tn_free(&tn);

	mrc_st_case(st, "R02 drop PSN 2 of 8: one NAK(2), go back to 2: 6 retransmissions");
	roce_gbn_case(st, false, src, dst);

	mrc_st_case(st, "R03 trim PSN 2 of 8: a loss, no NACK TRIMMED: 6 retransmissions");
	roce_gbn_case(st, true, src, dst);

	mrc_st_case(st,
		"R04 drop the last PSN: no NAK, stall to the ACK timeout, "
		"resend from the last ACK");
	ST_EQ_I(st, tn_init(&tn, 2, 4, false, tw_roce), 0);
	drop_psn[0] = 7;
	n_drop_psn = 1;
	tn.hook = hook_drop_psn;
	tn_deliver(st, &tn, src, dst, 8 * 4096, &s0, &s1);
	/* PSN 0 is acknowledged (the first arrival), then PSNs 1-4 (16 KiB, sack_every); 5-6
	 * arrive without an ack request (8 KiB < sack_every): their SACK is held for the base
	 * RTT (12 us, sack_delay 0) and then sent. PSN 7 alone stays unacknowledged: the
	 * timeout fires T = 1.024 us * 2^8 after that SACK came back (about 12 + 2 us after
	 * the post) and resends PSN 7 alone */
	ST_EQ(st, s0.rto_events, 1);
	ST_EQ(st, s0.rtx_pkts, 1);
	ST_EQ(st, s0.loss_rto, 1);
	ST_EQ(st, s1.rx_dup, 0);
	ST_EQ(st, s1.seq_nak_tx, 0);
	ST_TRUE(st, tn.done_t > 262144000ull + 12000000 && tn.done_t < 262144000ull + 20000000);
	tn_free(&tn);

	mrc_st_case(st, "R05 NACK TRIMMED at a RoCE requester: go back to its PSN, EV untouched");
	ST_EQ_I(st, tn_init(&tn, 1, 4, false, tw_roce), 0);
	tn.delay_ps = 100000000;
	ST_EQ_I(st, tn_write(&tn, src, dst, 8 * 4096, false), 0);
	tn_run(&tn, 50000000); /* all 8 sent, none arrived */
	ST_EQ_I(st, mrc_qp_roce_path(tn_qp(&tn, 0), &plane, &evi), 0);
	{
		struct mrc_pkt n;

		memset(&n, 0, sizeof(n));
		n.opcode = MRC_OP_NACK;
		n.dest_qp = 1;
		n.neth.reason = MRC_NACK_TRIMMED;
		n.neth.nack_psn = 5;
		n.neth.ev = mrc_ev_value(mrc_ep_qp_evs(tn.ep[0], 1), evi);
		mrc_qp_on_pkt(tn_qp(&tn, 0), plane, &n, false, tn.now);
	}
	tn_run(&tn, UINT64_MAX);
	s0 = tn_stats(&tn, 0);
	evs = mrc_ep_qp_evs(tn.ep[0], 1);
	ST_EQ(st, s0.nack_rx[MRC_NI_TRIMMED], 1);
	ST_EQ(st, s0.rtx_pkts, 3); /* PSNs 5, 6, 7 */
	ST_EQ(st, s0.gbn_rewinds, 1);
	ST_EQ(st, mrc_ev_state(evs, evi), MRC_EV_GOOD);
	ST_EQ(st, evs->log_total, 0);
	ST_EQ(st, tn.done, 1);
	ST_EQ_MEM(st, dst, src, 8 * 4096);
	tn_free(&tn);

	mrc_st_case(st, "R06 one NIC port per QP, round robin from the host's number; every packet "
			"carries the QP's UDP source port, from the QPNs (0xC001 for 1 and 1)");
	ST_EQ(st, mrc_roce_udp_sport(1, 1), 0xC001);
	ST_EQ(st, mrc_roce_udp_sport(2, 3), 0xC006);
	/* 0x123456 * 0xABCDEF folded as include/rdma/ib_verbs.h does, by hand in Python */
	ST_EQ(st, mrc_roce_udp_sport(0x123456, 0xABCDEF), 0xC3C8);
	ST_EQ(st, mrc_roce_udp_sport(0xABCDEF, 0x123456), 0xC3C8);
	ST_EQ(st, mrc_roce_udp_sport(0xFFFFFF, 0xFFFFFF), 0xFF21);
	for (int udp = 0; udp < 2; udp++) {
		ST_EQ_I(st, tn_init(&tn, 4, 8, false, udp ? tw_roce_udp : tw_roce), 0);
		memset(n_ev_seen, 0, sizeof(n_ev_seen));
		tn.hook = hook_ev_seen;
		ST_EQ_I(st, mrc_qp_roce_path(tn_qp(&tn, 0), &plane, &evi), 0);
		ST_EQ(st, plane, 0); /* host 0's first QP: port (0 + 0) mod 4 */
		ST_EQ_I(st, mrc_qp_roce_path(mrc_ep_qp(tn.ep[1], 1), &plane, &evi), 0);
		ST_EQ(st, plane, 1); /* host 1's: port (1 + 0) mod 4 */
		ST_EQ_I(st, tn_write(&tn, src, dst, 64 << 10, false), 0);
		tn_run(&tn, UINT64_MAX);
		ST_EQ(st, tn.done, 1);
		ST_EQ_MEM(st, dst, src, 64 << 10);
		ST_EQ(st, tn.plane_data[0], 16);
		/* data one way, ACKs the other: one EV each, the port in it */
		ST_EQ(st, n_ev_seen[0], 1);
		ST_EQ(st, n_ev_seen[1], 1);
		ST_EQ(st, ev_seen[0][0], udp ? 0xC001u : 0xC001u << 16);
		ST_EQ(st, ev_seen[1][0], ev_seen[0][0]);
		tn_free(&tn);
	}
}
