/* SPDX-License-Identifier: BSD-2-Clause */
/* result: a run's result, owned memory and error list (result.h). */
#include "mrc/job/result.h"
#include "mrc/job/coll.h"

#include "mrc/engine/ep.h"
#include "mrc/engine/qp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int mrc_run_add_error(struct mrc_run_result *r, const char *fmt, ...)
{
	char(*e)[sizeof(*r->errors)] = realloc(r->errors, (r->n_errors + 1) * sizeof(*e));
	va_list ap;

	if (!e)
		return -ENOMEM;
	r->errors = e;
	va_start(ap, fmt);
	vsnprintf(e[r->n_errors++], sizeof(*e), fmt, ap);
	va_end(ap);
	return 0;
}

void mrc_run_result_free(struct mrc_run_result *r)
{
	if (!r)
		return;
	for (size_t s = 0; s < r->n_sizes; s++) {
		mrc_hist_free(r->sizes[s].cct_ns);
		free(r->sizes[s].pairs);
	}
	free(r->sizes);
	free(r->iters);
	for (size_t j = 0; j < r->n_jobs; j++) {
		for (size_t p = 0; p < r->jobs[j].n_phases; p++)
			mrc_hist_free(r->jobs[j].phases[p].time_ns);
		free(r->jobs[j].phases);
		free(r->jobs[j].phase_ps);
	}
	for (size_t j = 1; j < r->n_jobs; j++) { /* [0]'s are the top level's */
		for (size_t s = 0; s < r->jobs[j].n_sizes; s++) {
			mrc_hist_free(r->jobs[j].sizes[s].cct_ns);
			free(r->jobs[j].sizes[s].pairs);
		}
		free(r->jobs[j].sizes);
		free(r->jobs[j].iters);
	}
	free(r->jobs);
	mrc_hist_free(r->msg_ns);
	mrc_hist_free(r->step_ns);
	mrc_hist_free(r->rtt_ns);
	free(r->rank_rtt_ns);
	free(r->failed_ranks);
	free(r->ranks_reported);
	free(r->faults);
	free(r->unapplied);
	free(r->fires);
	free(r->errors);
	free(r->bin_bytes);
	free(r->evs);
	free(r->links);
	free(r);
}

int mrc_run_pairs_init(struct mrc_run_size *rs, const struct mrc_coll *c)
{
	uint32_t npairs = mrc_coll_npairs(c);

	if (!npairs)
		return 0;
	rs->pairs = calloc(npairs, sizeof(*rs->pairs));
	if (!rs->pairs)
		return -ENOMEM;
	rs->n_pairs = npairs;
	for (uint32_t i = 0; i < npairs; i++)
		mrc_coll_pair(c, i, &rs->pairs[i].a, &rs->pairs[i].b);
	return 0;
}

void mrc_run_pairs_iter(struct mrc_run_size *rs, const uint64_t *rank_ps, bool lat)
{
	for (uint32_t i = 0; i < rs->n_pairs; i++) {
		struct mrc_run_pair *p = &rs->pairs[i];
		uint64_t ta = rank_ps[p->a], tb = rank_ps[p->b];

		p->sum_ps += (double)(lat || ta > tb ? ta : tb);
		p->n++;
	}
}

void mrc_run_pairs_finish(struct mrc_run_size *rs, bool lat, uint64_t pair_bytes,
	uint64_t msgs, double line_bps)
{
	for (uint32_t i = 0; i < rs->n_pairs; i++) {
		struct mrc_run_pair *p = &rs->pairs[i], *w = &rs->pairs[rs->worst];
		double t = p->n ? p->sum_ps / p->n * 1e-12 : 0;

		if (t <= 0)
			continue;
		p->gbps = 8.0 * (double)pair_bytes / t / 1e9;
		p->mps = (double)msgs / t / 1e6;
		p->lat_us = lat ? t / 2 * 1e6 : 0;
		if (lat ? p->lat_us > w->lat_us : p->gbps < w->gbps || !w->gbps)
			rs->worst = i;
	}
	rs->msg_bytes = msgs ? pair_bytes / msgs : 0;
	if (rs->n_pairs && line_bps > 0)
		rs->line_rate_fraction = rs->pairs[rs->worst].gbps * 1e9 / line_bps;
}

void mrc_run_add_ep(struct mrc_run_result *r, const struct mrc_ep_stats *s)
{
	r->rx_decode_err += s->rx_decode_err;
	r->tx_encode_err += s->tx_encode_err;
	r->rx_icmp_time_exceeded += s->rx_icmp_time_exceeded;
	r->rx_icmp_other += s->rx_icmp_other;
	r->rx_foreign += s->rx_foreign;
	r->rx_wrong_plane += s->rx_wrong_plane;
	r->rx_spoofed += s->rx_spoofed;
	r->rx_misdirected += s->rx_misdirected;
	r->ep_requests += s->ep_req_tx[0] + s->ep_req_tx[1];
	r->ep_responses += s->ep_rsp_rx;
	r->ep_responses_unmatched += s->ep_rsp_unmatched;
}

void mrc_run_add_qp(struct mrc_run_result *r, const struct mrc_qp_stats *s)
{
	r->data_pkts += s->data_pkts;
	r->data_bytes += s->data_bytes;
	r->rtx_pkts += s->rtx_pkts;
	r->rtx_bytes += s->rtx_bytes;
	r->sacks += s->sack_rx;
	for (int k = 0; k < MRC_NI_COUNT; k++)
		r->nacks += s->nack_rx[k];
	r->nack_trimmed += s->nack_rx[MRC_NI_TRIMMED] + s->nack_rx[MRC_NI_TRIMMED_LASTHOP];
	r->probes += s->probes_tx;
	r->ecn_echoes += s->ecn_echo_rx;
	r->losses_sack += s->loss_sack;
	r->losses_rto += s->loss_rto;
	r->losses_port += s->loss_port;
	r->losses_path += s->loss_path;
	r->tlp += s->tlp;
	r->gbn_rewinds += s->gbn_rewinds;
	r->cnps_sent += s->cnp_tx;
	r->cnps_received += s->cnp_rx;
	r->rate_cuts += s->rate_cuts;
	r->rx_dup += s->rx_dup;
	r->rx_reordered += s->rx_reordered;
	r->probe_answers_unmatched += s->probe_ans_unmatched;
}

void mrc_run_ev_add(struct mrc_run_ev *d, const struct mrc_ev_stats *v)
{
	d->tx_pkts += v->tx_pkts;
	d->rtx_pkts += v->rtx_pkts;
	d->losses += v->losses;
	d->ecn += v->ecn;
	d->trims += v->trims;
	d->nacks += v->nacks;
	d->probes += v->probes;
	d->probes_ok += v->probes_ok;
	d->changes += v->changes;
	d->rtt_samples += v->rtt_samples;
	d->rtt_sum_ps += v->rtt_sum_ps;
}
