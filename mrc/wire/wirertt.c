/* SPDX-License-Identifier: BSD-2-Clause */
/* wirertt: the wire job's base RTT: echo probes between ranks and the agreed figure. */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/job/epparams.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Base-RTT measurement (mrc/wire/wrtt.h): per peer 32 probes (at least 4 per plane), one in
 * flight, one lost after 50 ms, all done within 1 s; a rank's figure is the 10th
 * percentile of its samples. One at a time because a burst measures itself: on the netns
 * fabric 8 in flight gave 400-440 us against 130-140 us for one (each send carries the
 * packet through every hop in the sender's softirq, so the 8th waits for the 7 before it).
 * Without any figure NSCC starts from MRC_WIRERUN_RTT_DEFAULT_NS.
 */
#define WR_RTT_PER_PEER	   32u
#define WR_RTT_WINDOW	   1u
#define WR_RTT_TIMEOUT_NS  50000000ull
#define WR_RTT_BUDGET_NS   1000000000ull
#define WR_RTT_PERCENTILE  10u
#define WR_RTT_REPLIES	   256u /* echo answers queued for the next send turn */

/*
 * Echo probes (mrc/wire/wrtt.h) never reach the engine: a request is answered (queued for the
 * next send turn, at any time, so a slower rank's measurement is served after this one's
 * ended), a reply goes to the measurement in progress. Returns true for either.
 */
bool wr_rtt_rx(struct wr *w, const uint8_t *buf, size_t len)
{
	const struct mrc_wrtt_host h = {w->m.plan, &w->pcfg, w->rank, w->nranks, w->planes};
	struct rtt_reply *r = w->n_replies < WR_RTT_REPLIES ? &w->replies[w->n_replies] : NULL;
	struct mrc_pkt p;
	unsigned plane;
	size_t n;

	switch (mrc_wrtt_rx(&h, buf, len, &p, r ? r->pkt : NULL, r ? sizeof(r->pkt) : 0, &n,
		&plane)) {
	case MRC_WRTT_REQUEST:
		if (!r) {
			w->replies_dropped++; /* the requester counts it lost */
		} else if (n) {
			r->plane = plane;
			r->len = (uint16_t)n;
			w->n_replies++;
		}
		return true;
	case MRC_WRTT_REPLY:
		if (w->rtt)
			mrc_wrtt_on_reply(w->rtt, &p, wr_mono_ns());
		return true;
	default:
		return false;
	}
}

/* Sends the queued echo answers, then this rank's next echo requests, while slots last. */
void wr_rtt_tx(struct wr *w)
{
	unsigned done = 0, plane;
	uint8_t *buf, pkt[sizeof(w->replies->pkt)];
	size_t cap;
	int n;

	while (done < w->n_replies &&
		(buf = w->dp->tx_buf(w, w->replies[done].plane, &cap))) {
		struct rtt_reply *r = &w->replies[done++];

		if (r->len <= cap) {
			memcpy(buf, r->pkt, r->len);
			wr_send_slot(w, r->plane, buf, r->len);
		}
	}
	memmove(w->replies, w->replies + done, (w->n_replies - done) * sizeof(*w->replies));
	w->n_replies -= done;
	/* a request is built before its plane is known: written aside, then into a buffer of
	 * its port (one in flight at a time: a rare copy); none free loses it (its timeout) */
	while (w->rtt && (n = mrc_wrtt_next(w->rtt, wr_mono_ns(), pkt, sizeof(pkt), &plane))) {
		if (n > 0 && plane < w->planes && (buf = w->dp->tx_buf(w, plane, &cap)) &&
			(size_t)n <= cap) {
			memcpy(buf, pkt, (size_t)n);
			wr_send_slot(w, plane, buf, (size_t)n);
		}
	}
}

/* The codec of echo probes: the job's, with checksum and ICRC verified. */
int wr_setup_probe_codec(struct wr *w)
{
	struct mrc_ep_params p;
	int e = mrc_run_ep_params(w->job, &w->m, w->nranks, 0, &p);

	if (e)
		return e;
	w->pcfg = p.wire;
	w->pcfg.check_icrc = w->pcfg.check_csum = true;
	w->pcfg.csum_offload = false;
	mrc_run_ep_params_free(&p);
	w->replies = calloc(WR_RTT_REPLIES, sizeof(*w->replies));
	return w->replies ? 0 : -ENOMEM;
}

static bool rtt_done(struct wr *w)
{
	return mrc_wrtt_done(w->rtt, wr_mono_ns());
}

/*
 * The job's base RTT, before any endpoint exists: mrc.cc.base_rtt when set; else every
 * rank probes its peers on every plane (mrc/wire/wrtt.h) once every rank has joined, and
 * the bootstrap agrees on the largest rank's figure (wr_rtt_decide: at rank 0, which sends
 * it to all, or on every rank from every figure). Echo requests are answered all along.
 * Fills w->rtt_out.
 */
int wr_measure_rtt(struct wr *w)
{
	struct mrc_wirerun_rtt *o = w->rtt_out;
	struct mrc_wrtt_params tp = { .plan = w->m.plan, .cfg = &w->pcfg, .rank = w->rank,
		.nranks = w->nranks, .window = WR_RTT_WINDOW, .probe_timeout_ns = WR_RTT_TIMEOUT_NS,
		.budget_ns = WR_RTT_BUDGET_NS, .percentile = WR_RTT_PERCENTILE };
	struct mrc_wrtt_stats s;
	uint32_t *evs;
	uint8_t msg[16];
	int e;

	o->nranks = w->nranks;
	if (w->job->mrc.cc.base_rtt_ps) {
		o->base_rtt_ns = w->job->mrc.cc.base_rtt_ps / 1000;
		o->source = MRC_WIRERUN_RTT_CONFIG;
		return 0;
	}
	evs = calloc(w->m.n_evs + 1, sizeof(*evs));
	if (!evs)
		return -ENOMEM;
	for (size_t i = 0; i < w->m.n_evs; i++)
		if (!w->m.evs[i].denied)
			evs[tp.n_evs++] = w->m.evs[i].ev;
	tp.evs = evs;
	tp.per_peer = WR_RTT_PER_PEER > 4 * w->planes ? WR_RTT_PER_PEER : 4 * w->planes;
	o->rank_ns = calloc(w->nranks, sizeof(*o->rank_ns)); /* decided on rank 0 or on all */
	if (!o->rank_ns) {
		free(evs);
		return -ENOMEM;
	}
	if (w->boot->rtt_start(w)) {
		free(evs);
		return w->err;
	}
	e = mrc_wrtt_new(&tp, wr_mono_ns(), &w->rtt);
	free(evs);
	if (e) {
		wr_fail(w, e, "base RTT: probes: %s", strerror(-e));
		return e;
	}
	wr_pump_until(w, rtt_done, "base RTT: probes");
	mrc_wrtt_stats(w->rtt, wr_mono_ns(), &s);
	mrc_wrtt_free(w->rtt);
	w->rtt = NULL;
	if (w->err)
		return w->err;
	fprintf(stderr, "h%u: base RTT: ", w->rank);
	if (s.figure_ns)
		fprintf(stderr, "%.1f us (p%u of %u answers, min %.1f us, max %.1f us, %u lost)\n",
			(double)s.figure_ns / 1e3, WR_RTT_PERCENTILE, s.answered,
			(double)s.min_ns / 1e3, (double)s.max_ns / 1e3, s.lost);
	else
		fprintf(stderr, "no figure: %u of %u probes answered within %llu ms\n", s.answered,
			s.sent, (unsigned long long)(WR_RTT_TIMEOUT_NS / 1000000));
	put_be64(msg, s.figure_ns);
	put_be32(msg + 8, s.sent);
	put_be32(msg + 12, s.answered);
	return w->boot->rtt_agree(w, msg);
}

/*
 * The job's figure from every rank's (o->rank_ns, the probe sums in o): the largest, so no
 * rank's NSCC takes its own normal delay for queueing; the wire default when no rank has
 * one. Rank 0 says which on stderr.
 */
void wr_rtt_decide(struct wr *w)
{
	struct mrc_wirerun_rtt *o = w->rtt_out;

	o->base_rtt_ns = mrc_wrtt_agree(o->rank_ns, w->nranks);
	o->source = MRC_WIRERUN_RTT_MEASURED;
	if (!o->base_rtt_ns) {
		o->base_rtt_ns = MRC_WIRERUN_RTT_DEFAULT_NS;
		o->source = MRC_WIRERUN_RTT_DEFAULT;
		if (w->rank == 0)
			fprintf(stderr,
				"h0: base RTT: no rank measured one (%llu of %llu probes "
				"answered): NSCC starts from the wire default %.0f us "
				"(mrc.cc.base_rtt sets it)\n",
				(unsigned long long)o->probes_answered,
				(unsigned long long)o->probes_sent,
				(double)o->base_rtt_ns / 1e3);
	} else if (w->rank == 0) {
		fprintf(stderr, "h0: base RTT of the job: %.1f us (the largest rank's figure)\n",
			(double)o->base_rtt_ns / 1e3);
	}
}

void mrc_wirerun_rtt_free(struct mrc_wirerun_rtt *r)
{
	free(r->rank_ns);
	r->rank_ns = NULL;
}

static const char *const rtt_source_names[] = { "config", "measured", "default" };

void mrc_wirerun_rtt_to_result(struct mrc_wirerun_rtt *r, struct mrc_run_result *res)
{
	res->wire_rtt = true;
	res->base_rtt_source = rtt_source_names[r->source];
	res->base_rtt_ns = r->base_rtt_ns;
	res->rtt_probes = r->probes_sent;
	res->rtt_answered = r->probes_answered;
	free(res->rank_rtt_ns);
	res->rank_rtt_ns = r->rank_ns; /* now the result's */
	res->n_rank_rtt = r->rank_ns ? r->nranks : 0;
	r->rank_ns = NULL;
}
