/* SPDX-License-Identifier: BSD-2-Clause */
/* epparams: a job's endpoint parameters and base RTT, for both drivers (epparams.h). */
#include "mrc/job/epparams.h"

#include "mrc/engine/ep.h"

#include <errno.h>
#include <stdlib.h>

uint64_t mrc_ser_ps(uint64_t bytes, uint64_t rate_bps)
{
	/* bytes * 8 * 1e12 fits in 64 bits for any packet up to 2 MB */
	return (bytes * 8000000000000ull + rate_bps - 1) / rate_bps;
}

uint64_t mrc_run_base_rtt_ps(const struct conf_fabric *f, uint32_t mtu)
{
	uint64_t data = mrc_ser_ps(mtu + 150, f->link_rate_bps);
	uint64_t ack = mrc_ser_ps(160, f->link_rate_bps);

	return 4 * (data + ack) + 4 * (f->host_link_delay_ps + f->fabric_link_delay_ps) +
	       6 * f->switch_delay_ps;
}

int mrc_run_ep_params(const struct conf_job *j, const struct mrc_job_srv6 *m, uint32_t nranks,
	uint64_t base_rtt_ps, struct mrc_ep_params *p)
{
	const struct conf_mrc *cm = &j->mrc;
	uint32_t *evs = calloc(m->n_evs + 1, sizeof(*evs)), *deny = calloc(m->n_evs + 1, 4);
	unsigned n_deny = 0;
	uint64_t rtt = cm->cc.base_rtt_ps ? cm->cc.base_rtt_ps
			: base_rtt_ps  ? base_rtt_ps
					  : mrc_run_base_rtt_ps(&j->fabric, cm->mtu);

	if (!evs || !deny) {
		free(evs);
		free(deny);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->n_evs; i++) {
		evs[i] = m->evs[i].ev;
		if (m->evs[i].denied)
			deny[n_deny++] = m->evs[i].ev;
	}
	mrc_ep_params_default(p, j->fabric.planes, j->fabric.link_rate_bps, rtt);
	p->wire.ev_format = (enum mrc_ev_format)cm->ev_format;
	/* transport roce: single-path go-back-N QPs (mrc/engine/qp.h "RoCE mode"); their packets
	 * carry no SRv6 header, so the fabric's ECMP hash of the UDP source port and flow
	 * label picks the path (stev: the 32-bit EVs fit; a configured udp format is kept) */
	if (cm->transport == CONF_TRANSPORT_ROCE) {
		p->qp.transport = MRC_QP_ROCE;
		if (p->wire.ev_format == MRC_EVF_SRV6)
			p->wire.ev_format = MRC_EVF_STEV;
	}
	p->wire.icrc_outer = cm->icrc_outer;
	p->hop_limit = cm->hop_limit;
	p->ep_rsp_timeout_ps = j->sweep.timeout_ps; /* an EV probe's answer (mrcgen sweep) */
	p->wire.dscp_trimmed = cm->dscp.trimmed;
	p->wire.dscp_trimmed_lasthop = cm->dscp.trimmed_lasthop;
	/* The simulated fabric never corrupts a byte (trims are classified before any
	 * check), so receive-side UDP checksum and ICRC verification would only repeat the
	 * sender's arithmetic: about a third of the quickstart's CPU. Real networks are
	 * checked. */
	p->wire.check_icrc = p->wire.check_csum =
		cm->rx_checks || j->fabric.driver != CONF_DRIVER_SIM;
	/* and they need not even be computed at the sender: the fabric fills them, like a
	 * NIC's checksum offload, where a capture sees a packet or a trim cuts it (about a
	 * sixth of the quickstart's CPU) */
	p->wire.csum_offload = !p->wire.check_csum;
	p->ev.evs = evs;
	p->ev.n_evs = (unsigned)m->n_evs;
	p->ev.deny = n_deny ? deny : NULL;
	p->ev.n_deny = n_deny;
	if (!n_deny)
		free(deny);
	p->ev.ev_min_active = cm->ev.ev_min_active;
	if (cm->skip_hold_ps)
		p->ev.skip_hold_ps = cm->skip_hold_ps;
	if (cm->probe_backoff_ps)
		p->ev.probe_backoff_ps = cm->probe_backoff_ps;
	p->ev.probe_damping = cm->probe_damping;
	p->qp.mtu = cm->mtu;
	p->qp.mpr = (uint8_t)cm->qp.mpr;
	p->qp.timeout = (uint8_t)cm->qp.timeout;
	p->qp.retry_linear = (uint8_t)cm->qp.retry_linear;
	p->qp.retry_exp = (uint8_t)cm->qp.retry_exp;
	p->qp.reorder_threshold = cm->reorder_threshold;
	p->qp.sack_every_bytes = (uint32_t)cm->sack_every_bytes;
	p->qp.sack_ooo_every = cm->sack_ooo_every;
	p->qp.rtt_ensemble = cm->rtt_ensemble;
	p->qp.rcv_pen = cm->rcv_cwnd_pen;
	p->qp.sack_delay_ps = cm->sack_delay_ps;
	p->qp.path_fate = cm->path_fate;
	p->qp.dscp_data = cm->dscp.data;
	p->qp.dscp_rtx = cm->dscp.rtx;
	p->qp.dscp_ctl = cm->dscp.ctrl;
	p->cc = cm->cc.algorithm == CONF_CC_FIXED ? "fixed" : "nscc";
	mrc_cc_defaults(&p->cc_params, (uint64_t)j->fabric.planes * j->fabric.link_rate_bps, rtt,
		cm->mtu, j->fabric.trim);
#define CC_SET(field, v)                                                                           \
	if (v)                                                                                     \
		p->cc_params.field = v
	CC_SET(target_delay_ps, cm->cc.target_delay_ps);
	mrc_cc_retarget(&p->cc_params); /* alpha and qa_threshold follow the target */
	CC_SET(eta, cm->cc.eta);
	CC_SET(fi, cm->cc.fi);
	CC_SET(fi_scale, cm->cc.fi_scale);
	CC_SET(gamma, cm->cc.gamma);
	CC_SET(max_md_jump, cm->cc.max_md_jump);
	CC_SET(max_cwnd, cm->cc.max_cwnd_bytes);
	p->cc_params.max_cwnd_fixed = cm->cc.max_cwnd_bytes != 0;
	CC_SET(qa_threshold_ps, cm->cc.qa_threshold_ps);
	CC_SET(qa_gate, (unsigned)cm->cc.qa_gate);
	CC_SET(adjust_bytes_threshold, cm->cc.adjust_bytes_threshold);
	CC_SET(adjust_period_threshold_ps, cm->cc.adjust_period_threshold_ps);
	CC_SET(init_cwnd, cm->cc.fixed_cwnd_bytes);
#undef CC_SET
	p->cc_params.disable_qa = cm->cc.disable_qa;
	p->max_qps = nranks;
	return 0;
}

void mrc_run_ep_params_free(struct mrc_ep_params *p)
{
	free((void *)p->ev.evs);
	free((void *)p->ev.deny);
	p->ev.evs = p->ev.deny = NULL;
}
