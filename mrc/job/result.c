/* SPDX-License-Identifier: BSD-2-Clause */
/* result: a run's result, owned memory and error list (result.h). */
#include "mrc/job/result.h"

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
	for (size_t s = 0; s < r->n_sizes; s++)
		mrc_hist_free(r->sizes[s].cct_ns);
	free(r->sizes);
	free(r->iters);
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
