/* SPDX-License-Identifier: BSD-2-Clause */
/* nscc: NSCC, fixed-window and DCQCN congestion control behind one ops table —
 * docs/wire-format.md "Congestion control" and "DCQCN". */
#include "mrc/engine/nscc.h"

#include <errno.h>
#include <string.h>

/*
 * Every rule below is UEC's NSCC reference, htsim sim/uec.cpp (function names in the
 * comments), with its windows in payload bytes rather than whole packets.
 */
#define REF_BDP_BYTES 150000.0	 /* 100 Gb/s x 12 us: initNsccParams' reference point */
#define REF_RTT_PS 12000000.0	 /* 12 us */
#define FAST_DELAY_PS 1000000ull /* fast_increase: a delay under 1 us */

int mrc_cc_defaults(struct mrc_cc_params *p, uint64_t link_rate_bps, uint64_t base_rtt_ps,
	uint32_t mtu, bool trimming)
{
	double bdp, a;

	if (!link_rate_bps || !base_rtt_ps || !mtu)
		return -EINVAL;
	bdp = (double)link_rate_bps / 8.0 * ((double)base_rtt_ps * 1e-12);
	a = bdp / REF_BDP_BYTES;
	memset(p, 0, sizeof(*p));
	p->base_rtt_ps = base_rtt_ps;
	p->link_rate_bps = link_rate_bps;
	p->mtu = mtu;
	p->target_delay_ps = trimming ? base_rtt_ps * 3 / 4 : base_rtt_ps;
	p->eta = 0.15 * mtu * a;
	p->fi = 5.0 * mtu * a;
	p->fi_scale = 0.25 * a;
	p->gamma = 0.8;
	p->max_md_jump = 0.5;
	p->delay_alpha = 0.0125;
	p->max_cwnd = (uint64_t)(1.5 * bdp);
	p->min_cwnd = mtu;
	if (p->max_cwnd < mtu)
		p->max_cwnd = mtu;
	p->init_cwnd = p->max_cwnd;
	p->qa_gate = 3;
	p->adjust_bytes_threshold = 8ull * mtu;
	p->adjust_period_threshold_ps = base_rtt_ps;
	mrc_cc_retarget(p);
	mrc_dcqcn_defaults(&p->dcqcn, link_rate_bps);
	return 0;
}

void mrc_cc_retarget(struct mrc_cc_params *p)
{
	double bdp = (double)p->link_rate_bps / 8.0 * ((double)p->base_rtt_ps * 1e-12);
	double a = bdp / REF_BDP_BYTES, b = (double)p->target_delay_ps / REF_RTT_PS;

	p->alpha = p->target_delay_ps ? 4.0 * p->mtu * a * b / (double)p->target_delay_ps : 0;
	p->qa_threshold_ps = 4 * p->target_delay_ps;
}

static void clamp(struct mrc_cc *cc)
{
	if (cc->cwnd > (double)cc->maxwnd)
		cc->cwnd = (double)cc->maxwnd;
	if (cc->cwnd < (double)cc->p->min_cwnd)
		cc->cwnd = (double)cc->p->min_cwnd;
}

/* ---- fixed ---- */

static void fixed_init(struct mrc_cc *cc)
{
	cc->cwnd = (double)cc->p->init_cwnd;
}

static void fixed_on_ack(struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes,
	uint64_t rtt_ps, bool ecn, uint64_t inflight)
{
	(void)cc, (void)now_ps, (void)acked_bytes, (void)rtt_ps, (void)ecn, (void)inflight;
}

static void fixed_on_event(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight)
{
	(void)cc, (void)now_ps, (void)bytes, (void)inflight;
}

static void fixed_on_rto(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	(void)cc, (void)now_ps, (void)bytes;
}

static const struct mrc_cc_ops fixed_ops = {
	.name = "fixed",
	.init = fixed_init,
	.on_ack = fixed_on_ack,
	.on_trim = fixed_on_event,
	.on_loss = fixed_on_event,
	.on_rto = fixed_on_rto,
};

/* ---- nscc ---- */

/* maxwnd of a base RTT: 1.5 BDP (initNscc, update_base_rtt), unless configured. */
static uint64_t maxwnd_of(const struct mrc_cc_params *p, uint64_t base_rtt_ps)
{
	double w;

	if (p->max_cwnd_fixed)
		return p->max_cwnd;
	w = 1.5 * (double)p->link_rate_bps / 8.0 * ((double)base_rtt_ps * 1e-12);
	return w < p->min_cwnd ? p->min_cwnd : (uint64_t)w;
}

static void nscc_init(struct mrc_cc *cc)
{
	cc->base_rtt_ps = cc->p->base_rtt_ps;
	cc->maxwnd = cc->p->max_cwnd;
	cc->cwnd = (double)cc->p->init_cwnd;
	clamp(cc);
	cc->last_quadrant = -1;
}

/* update_delay: the EWMA the MD reads; a delay over target without ECN counts as base/4. */
static void update_delay(struct mrc_cc *cc, double sample_ps, bool ecn)
{
	double g = cc->p->delay_alpha;

	if (!ecn && sample_ps > (double)cc->p->target_delay_ps)
		sample_ps = (double)cc->base_rtt_ps / 4.0;
	cc->avg_delay_ps = g * sample_ps + (1.0 - g) * cc->avg_delay_ps;
}

/* update_base_rtt: the smallest RTT seen, and maxwnd from it. */
static void update_base_rtt(struct mrc_cc *cc, uint64_t rtt_ps)
{
	if (rtt_ps >= cc->base_rtt_ps)
		return;
	cc->base_rtt_ps = rtt_ps;
	cc->maxwnd = maxwnd_of(cc->p, rtt_ps);
}

/*
 * quick_adapt: at the end of each window (base RTT + target), when a trim, a loss or a
 * delay over qa_threshold happened and the window achieved less than maxwnd >> qa_gate,
 * the window falls to what was achieved, and feedback on the bytes then in flight is
 * ignored. Returns true when the caller must make no other change (a QA now, or an ECN-
 * marked or NACK event inside the ignored bytes).
 */
static bool quick_adapt(struct mrc_cc *cc, uint64_t now_ps, bool loss, bool skip,
	uint64_t delay_ps, uint64_t inflight)
{
	const struct mrc_cc_params *p = cc->p;
	bool done = false;

	if (p->disable_qa)
		return false;
	if (cc->bytes_ignored < cc->bytes_to_ignore && skip) {
		done = true;
	} else if (now_ps > cc->qa_end_ps) {
		if (cc->qa_end_ps && (cc->trigger_qa || loss || delay_ps > p->qa_threshold_ps) &&
			cc->achieved_bytes < cc->maxwnd >> p->qa_gate) {
			cc->cwnd = (double)cc->achieved_bytes;
			if (cc->cwnd < (double)p->min_cwnd)
				cc->cwnd = (double)p->min_cwnd;
			cc->bytes_to_ignore = inflight;
			cc->bytes_ignored = 0;
			cc->trigger_qa = false;
			cc->n_qa++;
			done = true;
		}
		cc->achieved_bytes = 0;
		cc->qa_end_ps = now_ps + cc->base_rtt_ps + p->target_delay_ps;
	}
	if (done) {
		cc->inc_bytes = 0;
		cc->received_bytes = 0;
	}
	return done;
}

/* fast_increase: after a cwnd of bytes acked at under 1 us, cwnd += fi_scale x acked. */
static bool fast_increase(struct mrc_cc *cc, uint64_t acked, uint64_t delay_ps)
{
	if (delay_ps < FAST_DELAY_PS) {
		cc->fi_count += acked;
		if ((double)cc->fi_count > cc->cwnd || cc->fast) {
			cc->cwnd += (double)acked * cc->p->fi_scale;
			cc->fast = true;
			cc->n_fast++;
			return true;
		}
	} else {
		cc->fi_count = 0;
	}
	cc->fast = false;
	return false;
}

/* multiplicative_decrease: on the delay EWMA, over target, at most once per base RTT. */
static void multiplicative_decrease(struct mrc_cc *cc, uint64_t now_ps)
{
	const struct mrc_cc_params *p = cc->p;
	double avg = cc->avg_delay_ps, f;

	cc->fast = false;
	cc->fi_count = 0;
	if (avg <= (double)p->target_delay_ps || now_ps - cc->last_md_ps <= cc->base_rtt_ps)
		return;
	f = 1.0 - p->gamma * (avg - (double)p->target_delay_ps) / avg;
	cc->cwnd *= f > p->max_md_jump ? f : p->max_md_jump;
	if (cc->cwnd < (double)p->min_cwnd)
		cc->cwnd = (double)p->min_cwnd;
	cc->last_md_ps = now_ps;
	cc->n_md++;
}

/* fulfill_adjustment: the accumulated increase over cwnd, and eta once per period. */
static void fulfill_adjustment(struct mrc_cc *cc, uint64_t now_ps)
{
	cc->cwnd += cc->inc_bytes / cc->cwnd;
	if (now_ps - cc->last_adjust_ps >= cc->p->adjust_period_threshold_ps) {
		cc->cwnd += cc->p->eta;
		cc->last_adjust_ps = now_ps;
	}
	cc->inc_bytes = 0;
	cc->received_bytes = 0;
}

static void nscc_on_ack(struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes,
	uint64_t rtt_ps, bool ecn, uint64_t inflight)
{
	const struct mrc_cc_params *p = cc->p;
	uint64_t delay, target = p->target_delay_ps;
	int q;

	cc->achieved_bytes += acked_bytes;
	cc->received_bytes += acked_bytes;
	cc->bytes_ignored += acked_bytes;
	if (rtt_ps != UINT64_MAX) {
		update_base_rtt(cc, rtt_ps);
		update_delay(cc, (double)(rtt_ps - cc->base_rtt_ps), ecn);
		delay = rtt_ps - cc->base_rtt_ps;
	} else {
		delay = (uint64_t)cc->avg_delay_ps;
	}
	if (quick_adapt(cc, now_ps, false, ecn, delay, inflight))
		return;

	q = !ecn ? (delay >= target ? MRC_CCQ_FAIR : MRC_CCQ_PROPORTIONAL)
		 : (delay >= target ? MRC_CCQ_MD : MRC_CCQ_NONE);
	cc->n_quadrant[q]++;
	cc->last_quadrant = q;
	switch (q) {
	case MRC_CCQ_FAIR: /* fair_increase */
		cc->inc_bytes += p->fi * (double)acked_bytes;
		break;
	case MRC_CCQ_PROPORTIONAL: /* proportional_increase */
		if (!fast_increase(cc, acked_bytes, delay))
			cc->inc_bytes += p->alpha * (double)acked_bytes * (double)(target - delay);
		break;
	case MRC_CCQ_MD:
		multiplicative_decrease(cc, now_ps);
		break;
	default:
		break;
	}
	clamp(cc);
	if (cc->received_bytes > p->adjust_bytes_threshold ||
		now_ps - cc->last_adjust_ps > p->adjust_period_threshold_ps)
		fulfill_adjustment(cc, now_ps);
	clamp(cc);
}

/*
 * updateCwndOnNack_NSCC: the trimmed bytes count as ignored, the delay EWMA steps toward one
 * base RTT (the queue a trim implies), quick adapt is armed; without a QA the window loses
 * the trimmed packet's bytes.
 */
static void nscc_on_trim(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight)
{
	cc->bytes_ignored += bytes;
	update_delay(cc, (double)cc->p->base_rtt_ps, true);
	cc->trigger_qa = true;
	if (quick_adapt(cc, now_ps, true, true, 0, inflight))
		return;
	cc->cwnd -= (double)bytes;
	cc->n_trim_dec++;
	clamp(cc);
}

/* A loss without a trim: a failed path, not a queue. It arms quick adapt and cuts nothing. */
static void nscc_on_loss(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight)
{
	cc->bytes_ignored += bytes;
	cc->trigger_qa = true;
	quick_adapt(cc, now_ps, true, true, 0, inflight);
}

/* mark_packet_for_retransmission on an RTO: the window loses the resent packet's bytes. */
static void nscc_on_rto(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	(void)now_ps;
	cc->cwnd -= (double)bytes;
	clamp(cc);
}

static const struct mrc_cc_ops nscc_ops = {
	.name = "nscc",
	.init = nscc_init,
	.on_ack = nscc_on_ack,
	.on_trim = nscc_on_trim,
	.on_loss = nscc_on_loss,
	.on_rto = nscc_on_rto,
};

/* ---- dcqcn (mrc/engine/dcqcn.h): rate-based; acknowledgements and losses change nothing ---- */

/* Its window: more than any QP has in flight (the peer's PSN window bounds it). */
#define DCQCN_CWND 4611686018427387904.0 /* 2^62 */

static void dcqcn_init(struct mrc_cc *cc)
{
	mrc_dcqcn_init(&cc->rp, &cc->p->dcqcn);
	cc->cwnd = DCQCN_CWND;
}

static void dcqcn_on_cnp(struct mrc_cc *cc, uint64_t now_ps)
{
	mrc_dcqcn_on_cnp(&cc->rp, &cc->p->dcqcn, now_ps);
}

static uint64_t dcqcn_on_tx(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	return mrc_dcqcn_on_sent(&cc->rp, &cc->p->dcqcn, now_ps, bytes);
}

static const struct mrc_cc_ops dcqcn_ops = {
	.name = "dcqcn",
	.init = dcqcn_init,
	.on_ack = fixed_on_ack,
	.on_trim = fixed_on_event,
	.on_loss = fixed_on_event,
	.on_rto = fixed_on_rto,
	.on_cnp = dcqcn_on_cnp,
	.on_tx = dcqcn_on_tx,
};

static const struct mrc_cc_ops *const cc_table[] = {&nscc_ops, &fixed_ops, &dcqcn_ops};

const struct mrc_cc_ops *mrc_cc_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cc_table) / sizeof(cc_table[0]); i++)
		if (name && strcmp(name, cc_table[i]->name) == 0)
			return cc_table[i];
	return NULL;
}

void mrc_cc_init(struct mrc_cc *cc, const struct mrc_cc_ops *ops, const struct mrc_cc_params *p)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->p = p;
	ops->init(cc);
}

uint64_t mrc_cc_cwnd(const struct mrc_cc *cc)
{
	return cc->cwnd < (double)cc->p->min_cwnd ? cc->p->min_cwnd : (uint64_t)cc->cwnd;
}

void mrc_cc_on_ack(struct mrc_cc *cc, uint64_t now_ps, uint64_t acked_bytes, uint64_t rtt_ps,
	bool ecn, uint64_t inflight)
{
	cc->ops->on_ack(cc, now_ps, acked_bytes, rtt_ps, ecn, inflight);
}

void mrc_cc_on_trim(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight)
{
	cc->ops->on_trim(cc, now_ps, bytes, inflight);
}

void mrc_cc_on_loss(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes, uint64_t inflight)
{
	cc->ops->on_loss(cc, now_ps, bytes, inflight);
}

void mrc_cc_on_rto(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	cc->ops->on_rto(cc, now_ps, bytes);
}

bool mrc_cc_rate_based(const struct mrc_cc_ops *ops)
{
	return ops->on_tx != NULL;
}

void mrc_cc_on_cnp(struct mrc_cc *cc, uint64_t now_ps)
{
	if (cc->ops->on_cnp)
		cc->ops->on_cnp(cc, now_ps);
}

uint64_t mrc_cc_on_tx(struct mrc_cc *cc, uint64_t now_ps, uint64_t bytes)
{
	return cc->ops->on_tx ? cc->ops->on_tx(cc, now_ps, bytes) : 0;
}

void mrc_cc_on_rcv_pen(struct mrc_cc *cc, uint64_t newly, unsigned pen, bool restore)
{
	if (cc->ops != &nscc_ops)
		return;
	if (restore) {
		if (cc->pen_saved > cc->cwnd)
			cc->cwnd = cc->pen_saved;
		cc->pen_saved = 0;
		clamp(cc);
		return;
	}
	if (!pen || !newly)
		return;
	if (cc->pen_saved == 0)
		cc->pen_saved = cc->cwnd;
	cc->n_rcv_pen++;
	cc->cwnd -= (double)(newly * (pen & 0x7f) >> 7);
	clamp(cc);
}
