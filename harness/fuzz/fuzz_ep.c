// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_ep: libFuzzer entry for an endpoint with live QPs. Hosts 0 and 1 (2 planes, the
 * st_net.h addressing, peer_of = st_peer_of) each post a write to the other over one QP
 * pair on a scripted network (fixed latency, one packet per port per tick); once data is
 * in flight, the input's records (harness/fuzz/fuzz_ep.h) are interleaved into host 0's
 * mrc_ep_on_rx: raw bytes, or packets built from a template around the QP's live PSNs and
 * encoded by mrc_wire_encode, so they pass decode and reach the QP logic, and host 0's
 * ports going down and up. Afterwards the run goes on without them. abort() on:
 * - a byte of either MR, or of the guards around it, that is neither the fill pattern nor
 *   the source's byte at that offset: data placed outside the MR, or for a PSN outside
 *   the receive window (such packets carry bytes of their own, FE_ALIEN);
 * - inconsistent counters: rx_unique > rx_data_pkts, placed > received bytes, una after
 *   next_psn (serial arithmetic) or more than a window before it, bytes in flight above
 *   what was sent, more messages done than posted;
 * - either write neither completing nor failing its QP with a reason within FE_END_PS of
 *   simulated time, or the loop not advancing time (a timer that never moves on).
 */
#include "mrc/engine/qp.c" /* struct mrc_qp: the live PSNs the templates aim at */

#include "mrc/engine/ep.h"
#include "mrc/engine/st_net.h"
#include "harness/fuzz/fuzz_ep.h"
#include "harness/fuzz/rd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FE_PLANES   2
#define FE_MTU	    1024
#define FE_LEN	    (32u * FE_MTU) /* each write: 32 packets */
#define FE_GUARD    256u	   /* pattern bytes either side of each MR */
#define FE_PATTERN  0xA5
#define FE_LAT_PS   1000000ull	    /* one way, either plane */
#define FE_TICK_PS  100000ull	    /* a port sends at most one packet per tick */
#define FE_WARM_PS  3000000ull	    /* records start once data is in flight */
#define FE_END_PS   200000000000ull /* 200 ms: far past the QPs' give-up time */
#define FE_STEPS    4000000	    /* loop turns without time moving on: a hang */
#define FE_QLEN	    64		    /* packets in flight per direction */
/* Host h's MR is at this VA, whatever malloc gave: packets, replays and crashes repeat */
#define FE_VA(h)    (0x10000000ull + (uint64_t)(h) * 0x1000000)

/* The byte every source holds at offset @o (< 0x80: never FE_PATTERN). */
static uint8_t fe_src_byte(uint64_t o)
{
	return (uint8_t)((o * 13 + (o >> 8)) & 0x7f);
}

/* The bytes of a packet no MR may take: 0xC0..0xDF, neither a source's nor the pattern. */
#define FE_ALIEN(o) ((uint8_t)(0xC0 | ((o) & 0x1f)))

static const uint32_t fe_evs[8] = {0x00000A0B, 0x00010A0B, 0x00020A0B, 0x00030A0B,
	0x10000A0B, 0x10010A0B, 0x10020A0B, 0x10030A0B};

struct fe_pkt {
	uint64_t at;
	unsigned plane;
	uint16_t len;
	uint8_t b[FE_MTU + 256];
};

/* One host: its endpoint, the MR peers write to (with guards) and its write's outcome. */
struct fe_host {
	uint32_t h;
	struct mrc_ep *ep;
	uint8_t *mem; /* FE_GUARD + FE_LEN + FE_GUARD */
	uint32_t rkey;
	uint32_t qpn;
	bool done;
	int status;
	struct fe_pkt q[FE_QLEN]; /* packets on their way to this host, by arrival time */
	unsigned qh, qn;
};

static struct fe_host fe_hosts[2];
static uint8_t fe_src[FE_LEN];
static uint64_t fe_now;
static struct mrc_wire_cfg fe_wire; /* both endpoints' codec settings */
/* Sees every packet the network carries to host @to (the corpus generator's capture). */
static void (*fe_tap)(unsigned to, unsigned plane, const uint8_t *b, int len);

static int fe_path(void *ctx, uint32_t peer, uint32_t ev, struct mrc_pkt *hdr)
{
	st_path_fill(hdr, ((struct fe_host *)ctx)->h, peer, ev);
	return 0;
}

static void fe_send_done(void *ctx, uint32_t qpn, uint64_t wr_id, int status, uint64_t now)
{
	struct fe_host *x = ctx;

	(void)qpn, (void)wr_id, (void)now;
	x->done = true;
	x->status = status;
}

static int fe_host_new(struct fe_host *x, uint32_t h)
{
	static const struct mrc_ep_ops ops = {.send_done = fe_send_done};
	struct mrc_ep_params p;

	memset(x, 0, sizeof(*x));
	x->h = h;
	mrc_ep_params_default(&p, FE_PLANES, 100000000000ull, 2 * FE_LAT_PS);
	p.host = h;
	p.path = fe_path;
	p.peer_of = st_peer_of;
	p.ev_plane = st_ev_plane;
	p.ev.evs = fe_evs;
	p.ev.n_evs = 8;
	p.seed = 7 + h;
	p.cc = "fixed";
	p.cc_params.init_cwnd = p.cc_params.max_cwnd = 16 * FE_MTU;
	p.qp.mtu = FE_MTU;
	p.qp.mpr = 1;	       /* a window of 128 PSNs: templates reach both edges */
	p.qp.timeout = 3;      /* 8.192 us */
	p.qp.retry_linear = 2; /* give up 9 timeouts after the last progress */
	p.qp.retry_exp = 2;
	p.qp.sack_every_bytes = 4 * FE_MTU;
	p.max_qps = 4;
	fe_wire = p.wire;
	p.ctl_queue_max = 256;
	x->mem = malloc(FE_LEN + 2 * FE_GUARD);
	if (!x->mem || mrc_ep_new(&p, &ops, x, &x->ep))
		return -1;
	memset(x->mem, FE_PATTERN, FE_LEN + 2 * FE_GUARD);
	if (mrc_ep_reg_mr_va(x->ep, x->mem + FE_GUARD, FE_VA(h), FE_LEN, &x->rkey) ||
		mrc_ep_qp_create(x->ep, !h, 1, &x->qpn))
		return -1;
	return 0;
}

/* Host @to's packet queue takes @len bytes sent on @plane now (dropped when full). */
static void fe_enqueue(struct fe_host *to, unsigned plane, const uint8_t *b, int len)
{
	struct fe_pkt *k;

	if (to->qn == FE_QLEN || len > (int)sizeof(k->b))
		return;
	if (fe_tap)
		fe_tap(to->h, plane, b, len);
	k = &to->q[(to->qh + to->qn++) % FE_QLEN];
	k->at = fe_now + FE_LAT_PS;
	k->plane = plane;
	k->len = (uint16_t)len;
	memcpy(k->b, b, (size_t)len);
}

static uint64_t fe_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* The QP of host @h (never NULL once set up). */
static struct mrc_qp *fe_qp(unsigned h)
{
	return mrc_ep_qp(fe_hosts[h].ep, fe_hosts[h].qpn);
}

/* The counters of both QPs must agree with each other. */
static void fe_check_counters(void)
{
	for (unsigned h = 0; h < 2; h++) {
		struct mrc_qp *qp = fe_qp(h);
		struct mrc_qp_stats s;
		int32_t d = psn_diff(mrc_qp_next_psn(qp), mrc_qp_una(qp));

		mrc_qp_get_stats(qp, &s);
		if (s.rx_unique > s.rx_data_pkts || s.placed_bytes > s.rx_payload_bytes ||
			s.msgs_done > s.msgs_posted || s.msgs_delivered > s.rx_unique)
			abort();
		if (d < 0 || (uint32_t)d > qp->win)
			abort();
		if (mrc_qp_inflight(qp) >
			s.data_bytes + s.rtx_bytes + s.data_pkts + s.rtx_pkts)
			abort();
		if (psn_diff(qp->epsn, qp->env->qp->start_psn) < 0)
			abort();
	}
}

/* Runs the network until @until (ps): deliveries, timers, then each port's pull per tick. */
static void fe_run(uint64_t until)
{
	static uint8_t buf[MRC_PKT_MAX];
	unsigned stuck = 0;

	while (fe_now < until) {
		uint64_t next = until, t0 = fe_now;
		bool busy = false;

		for (unsigned h = 0; h < 2; h++) {
			struct fe_host *x = &fe_hosts[h];

			while (x->qn && x->q[x->qh].at <= fe_now) {
				struct fe_pkt *k = &x->q[x->qh];

				mrc_ep_on_rx(x->ep, k->plane, k->b, k->len, false, fe_now);
				x->qh = (x->qh + 1) % FE_QLEN;
				x->qn--;
				busy = true;
			}
			if (mrc_ep_next_timer(x->ep) <= fe_now)
				mrc_ep_on_timer(x->ep, fe_now);
		}
		for (unsigned h = 0; h < 2; h++) {
			for (unsigned pl = 0; pl < FE_PLANES; pl++) {
				int n = mrc_ep_tx(fe_hosts[h].ep, pl, fe_now, buf, sizeof(buf));

				if (n > 0) {
					fe_enqueue(&fe_hosts[!h], pl, buf, n);
					busy = true;
				}
			}
		}
		for (unsigned h = 0; h < 2; h++) {
			struct fe_host *x = &fe_hosts[h];

			if (x->qn)
				next = fe_min(next, x->q[x->qh].at);
			next = fe_min(next, mrc_ep_next_timer(x->ep));
		}
		if (busy)
			next = fe_min(next, fe_now + FE_TICK_PS);
		fe_now = next > fe_now ? next : fe_now;
		/* a timer due now that stays due after it ran never lets time move on */
		if (fe_now == t0 && ++stuck > FE_STEPS)
			abort();
		if (fe_now != t0)
			stuck = 0;
	}
}

/*
 * Builds the template packet @kind into @p from @r: host 1's packet to host 0 (source per
 * @src), its payload written into @pay. The fields after the common ones: data: i32 VA
 * offset from the MR, u8 rkey sel (odd: u32 raw), i8 MSN offset from the next message to
 * complete, u16 payload length (mod 2 MTU + 1), u32 DMA length, u32 immediate, u16 tx_ts;
 * ACK: u8 syndrome, u24 MSN; endpoint request: u8 op, u32 port status, u16 tx_ts;
 * response: u8 op, u16 tx_ts echo; SACK: u8 m | pr << 2 | ev sel << 3, i16 ack offset,
 * i16 cumulative PSN offset, i16 bitmap offset, u64 bitmap, u8 mpr, u16 tx_ts echo,
 * u8 cc type/flags; NACK: u8 reason, i16 PSN offset, u8 ev sel, u16 tx_ts echo; PROBE:
 * u16 probe id, u16 tx_ts.
 */
static void fe_template(struct fz_rd *r, enum fe_kind kind, unsigned plane, enum fe_src src,
	struct mrc_pkt *p, uint8_t *pay)
{
	struct mrc_qp *qp = fe_qp(0);
	uint8_t sel = fz_rd8(r) % 9;
	uint32_t ev = sel < 8 ? fe_evs[sel] : fz_rd32(r);
	int16_t off = (int16_t)fz_rd16(r);
	uint32_t una = mrc_qp_una(qp), dq;

	memset(p, 0, sizeof(*p));
	st_path_fill(p, 1, 0, ev);
	if (src == FE_SRC_OTHER_HOST)
		st_addr(&p->src, 2, plane);
	else if (src == FE_SRC_FOREIGN)
		p->src.b[0] = 0xfe;
	else if (src == FE_SRC_OTHER_PLANE)
		st_addr(&p->src, 1, !plane);
	p->hop_limit = 64;
	p->ecn = 2;
	p->dscp = 26;
	p->pkey = 0xffff;
	p->opcode = fe_opcode[kind];
	p->ev = ev;
	p->flags = fz_rd8(r);
	dq = fz_rd8(r) % 4;
	p->dest_qp = dq == 2 ? MRC_EP_DEST_QP : dq == 3 ? fz_rd32(r) & 0xffffff : 1;
	switch (kind) {
	case FE_WRITE_FIRST ... FE_WRITE_ONLY_IMM: {
		int32_t d = off, vo = (int32_t)fz_rd32(r);
		p->psn = psn_add(qp->epsn, off);
		p->va = FE_VA(0) + (uint64_t)(int64_t)vo;
		p->rkey = fz_rd8(r) & 1 ? fz_rd32(r) : fe_hosts[0].rkey;
		p->msn = (uint16_t)(qp->next_cmsn + (int8_t)fz_rd8(r));
		p->payload_len = fz_rd16(r) % (2 * FE_MTU + 1);
		p->dma_len = fz_rd32(r);
		p->imm = fz_rd32(r);
		p->tx_ts = fz_rd16(r);
		for (uint32_t j = 0; j < p->payload_len; j++) {
			uint64_t o = (uint64_t)(int64_t)vo + j;

			pay[j] = d >= 0 && (uint32_t)d < qp->rwin ? fe_src_byte(o) : FE_ALIEN(o);
		}
		p->payload = pay;
		break;
	}
	case FE_ACK:
		p->psn = psn_add(una, off);
		p->aeth.syndrome = fz_rd8(r);
		p->aeth.msn = fz_rd32(r) & 0xffffff;
		break;
	case FE_EP_REQUEST:
		p->psn = (uint16_t)off;
		p->erth.op = fz_rd8(r) & 3;
		p->erth.port_status = fz_rd32(r);
		p->erth.tx_ts = fz_rd16(r);
		p->erth.ftype = 1;
		break;
	case FE_EP_RESPONSE:
		p->psn = (uint16_t)off;
		p->eeth.op = fz_rd8(r) & 3;
		p->eeth.tx_ts_echo = fz_rd16(r);
		break;
	case FE_SACK: {
		uint8_t b = fz_rd8(r);

		p->psn = psn_add(una, off);
		p->seth.m = b & 3;
		p->seth.pr = b >> 2 & 1;
		p->seth.ev = (b >> 3) % 9 < 8 ? fe_evs[(b >> 3) % 9] : ev;
		p->seth.ack_psn_offset = (int16_t)fz_rd16(r);
		p->seth.cack_psn = psn_add(una, (int16_t)fz_rd16(r));
		p->seth.sack_offset = (int16_t)fz_rd16(r);
		p->seth.sack_bitmap = fz_rd64(r);
		p->seth.mpr = fz_rd8(r);
		p->seth.tx_ts_echo = fz_rd16(r);
		b = fz_rd8(r);
		p->seth.cc_type = b >> 4;
		p->seth.cc_flags = b & 15;
		break;
	}
	case FE_NACK:
		p->psn = psn_add(una, off);
		p->neth.reason = fz_rd8(r);
		p->neth.nack_psn = psn_add(una, (int16_t)fz_rd16(r));
		sel = fz_rd8(r) % 9;
		p->neth.ev = sel < 8 ? fe_evs[sel] : ev;
		p->neth.tx_ts_echo = fz_rd16(r);
		break;
	case FE_PROBE:
		p->psn = psn_add(qp->epsn, off);
		p->peth.probe_id = fz_rd16(r);
		p->peth.tx_ts = fz_rd16(r);
		break;
	default:
		break;
	}
}

/* Feeds one record of @r to host 0; false at the end of the input. */
static bool fe_record(struct fz_rd *r)
{
	static uint8_t buf[MRC_PKT_MAX], pay[2 * FE_MTU];
	uint8_t head, delta;
	unsigned plane;
	struct mrc_pkt p;
	int n;

	if (!r->n)
		return false;
	head = fz_rd8(r);
	delta = fz_rd8(r);
	plane = head & 1;
	fe_run(fe_now + (uint64_t)delta * delta * FE_DELTA_PS);
	if (head >> 4 == FE_RAW) {
		size_t len;
		const uint8_t *b = fz_rd_bytes(r, fz_rd16(r) % MRC_PKT_MAX, &len);

		mrc_ep_on_rx(fe_hosts[0].ep, plane, b, len, head & 8, fe_now);
	} else if (head >> 4 == FE_PORT) {
		mrc_ep_port_status(fe_hosts[0].ep, plane, head & 8, fe_now);
	} else if (head >> 4 <= FE_PROBE) {
		fe_template(r, (enum fe_kind)(head >> 4), plane, (enum fe_src)(head >> 1 & 3), &p,
			pay);
		n = mrc_wire_encode(&fe_wire, &p, buf, sizeof(buf));
		if (n > 0)
			mrc_ep_on_rx(fe_hosts[0].ep, plane, buf, (size_t)n, head & 8, fe_now);
	}
	fe_check_counters();
	return true;
}

/* Every byte of host @h's MR and guards: the pattern, or the source's byte at its offset. */
static void fe_check_mr(unsigned h)
{
	const uint8_t *m = fe_hosts[h].mem;

	for (uint32_t i = 0; i < FE_LEN + 2 * FE_GUARD; i++) {
		bool in = i >= FE_GUARD && i < FE_GUARD + FE_LEN;

		if (m[i] != FE_PATTERN && (!in || m[i] != fe_src_byte(i - FE_GUARD)))
			abort();
	}
}

/* A write that ended: completed, or its QP failed and says why. */
static void fe_check_end(unsigned h)
{
	const char *why = NULL;

	if (!fe_hosts[h].done)
		abort();
	if (fe_hosts[h].status &&
		(!mrc_qp_failed(fe_qp(h), &why) || !why || !*why))
		abort();
}

/* Both hosts made, each write posted, and the network run until data is in flight. */
static void fe_setup(void)
{
	for (uint32_t i = 0; i < FE_LEN; i++)
		fe_src[i] = fe_src_byte(i);
	fe_now = 0;
	if (fe_host_new(&fe_hosts[0], 0) || fe_host_new(&fe_hosts[1], 1))
		abort();
	for (unsigned h = 0; h < 2; h++) {
		struct fe_host *x = &fe_hosts[h], *peer = &fe_hosts[!h];

		if (mrc_ep_post_write(x->ep, x->qpn, fe_src, FE_LEN, FE_VA(peer->h), peer->rkey,
			    true, h, 1, 0))
			abort();
	}
	fe_run(FE_WARM_PS);
}

/* After the records: the writes end, one way or the other, and both hosts go. */
static void fe_finish(void)
{
	while (fe_now < FE_END_PS && !(fe_hosts[0].done && fe_hosts[1].done))
		fe_run(fe_now + 1000 * FE_TICK_PS);
	for (unsigned h = 0; h < 2; h++) {
		fe_check_end(h);
		fe_check_mr(h);
	}
	fe_check_counters();
	for (unsigned h = 0; h < 2; h++) {
		mrc_ep_free(fe_hosts[h].ep);
		free(fe_hosts[h].mem);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_rd r = {data, size};

	fe_setup();
	while (fe_record(&r))
		;
	fe_finish();
	return 0;
}
