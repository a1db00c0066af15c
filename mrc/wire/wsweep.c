/* SPDX-License-Identifier: BSD-2-Clause */
/* wsweep: a sweep's rank on the wire (wsweep.h). */
#include "mrc/wire/wsweep.h"

#include "mrc/base/bytes.h"
#include "mrc/job/stop.h"
#include "mrc/wire/wr.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool got_arm(struct wr *w)
{
	return w->arm_of == 1;
}

static bool got_go(struct wr *w)
{
	return w->go_of == 1;
}

static bool got_finish(struct wr *w)
{
	return w->got_finish;
}

/* This rank's requests due now go to the endpoint; when the next is due (mono ns). */
static uint64_t sweep_tick(struct wr *w)
{
	struct mrc_sweep_probe pr;
	uint64_t now = wr_mono_ns(), t;

	if (!w->go_ns || now < w->go_ns)
		return UINT64_MAX;
	while ((t = mrc_sweep_poll(w->sweep, w->rank, (now - w->go_ns) * 1000, &pr)) == 0) {
		int id = mrc_ep_ev_probe(w->ep, pr.peer, pr.ev, now * 1000);

		mrc_sweep_sent(w->sweep, w->rank, &pr, id, (now - w->go_ns) * 1000);
		if (id == -EBUSY) /* the engine frees its slots lazily: a moment later */
			return now + 1000;
	}
	return t == UINT64_MAX ? UINT64_MAX : w->go_ns + t / 1000 + (t % 1000 != 0);
}

/* Every rank joined and built its endpoint: ARM, ARMED, GO (iteration 0), as a run's first
 * iteration starts, so no request reaches a rank that cannot answer it yet. */
static int start(struct wr *w)
{
	uint8_t m4[4] = { 0 };

	w->want_iter = 0;
	/* one "iteration": the DONE that ends the probing lands in rank 0's table */
	w->n_gi = 1;
	w->dtab = calloc((size_t)w->nranks + 1, sizeof(*w->dtab));
	w->own = calloc(1, sizeof(*w->own));
	if (!w->dtab || !w->own) {
		wr_fail(w, -ENOMEM, "sweep: out of memory");
		return w->err;
	}
	if (w->rank == 0) {
		wr_clear_got(w);
		if (wr_rv_bcast(w, RV_ARM, m4, 4) ||
			wr_pump_until(w, wr_all_got, "rendezvous: start barrier")) {
			wr_name_missing(w);
			return w->err;
		}
		wr_clear_got(w);
		if (wr_rv_bcast(w, RV_GO, m4, 4))
			return w->err;
	} else if (wr_pump_until(w, got_arm, "rendezvous: start of the sweep from h0") ||
		   wr_rv_send(w, &w->conns[0], RV_ARMED, m4, 4) ||
		   wr_pump_until(w, got_go, "rendezvous: start barrier from h0")) {
		return w->err;
	}
	w->go_ns = w->t0_ns = wr_mono_ns();
	if (w->epf) { /* every dataplane thread's copy of the timeline (wr_lanes) */
		wr_lanes_park(w);
		for (unsigned t = 0; t < wr_lanes(w); t++) {
			mrc_epf_start(wr_lane(w, t)->epf, w->go_ns * 1000);
			mrc_epf_iteration(wr_lane(w, t)->epf, 0, w->go_ns * 1000);
		}
		wr_lanes_unpark(w);
	}
	return 0;
}

/* Sends this rank's requests until they are all answered or timed out (or max_time). */
static int probe(struct wr *w)
{
	const struct conf_sweep *k = &w->job->sweep;
	uint64_t end = w->go_ns + (k->max_time_ps + k->timeout_ps) / 1000 + w->timeout_ns;

	w->tick = sweep_tick;
	while (!w->err && !mrc_sweep_host_done(w->sweep, w->rank)) {
		if (mrc_stop_signal) {
			wr_fail(w, -EINTR, "sweep: interrupted by SIG%s",
				sigabbrev_np(mrc_stop_signal) ? sigabbrev_np(mrc_stop_signal) : "?");
			break;
		}
		if (wr_mono_ns() > end) {
			wr_fail(w, -ETIMEDOUT, "sweep: h%u still probing past sweep.max_time + "
				"timeout + %llu ms", w->rank,
				(unsigned long long)(w->timeout_ns / 1000000));
			break;
		}
		wr_pump(w, WR_MAX_WAIT_NS);
	}
	return w->err;
}

/* Every rank is done probing (DONE), then sends its half (FINISH, RESULT); rank 0 merges. */
static int gather(struct wr *w, uint64_t *duration_ps)
{
	uint8_t done[28] = { 0 }, *b = NULL;
	size_t len = 0;
	int e;

	if (w->rank) {
		if (wr_rv_send(w, &w->conns[0], RV_DONE, done, sizeof(done)) ||
			wr_pump_until(w, got_finish, "rendezvous: end of the sweep from h0"))
			return w->err;
		mrc_sweep_finish(w->sweep);
		e = mrc_sweep_encode(w->sweep, w->rank, &b, &len);
		if (!e)
			e = wr_rv_send(w, &w->conns[0], RV_RESULT, b, len);
		free(b);
		if (e && !w->err)
			wr_fail(w, e, "sweep: results: %s", strerror(-e));
		return w->err;
	}
	/* every rank's requests are answered or lost: no more are counted after this */
	if (wr_pump_until(w, wr_all_got, "rendezvous: end of the sweep")) {
		wr_name_missing(w);
		return w->err;
	}
	*duration_ps = (wr_mono_ns() - w->go_ns) * 1000;
	wr_clear_got(w);
	if (wr_rv_bcast(w, RV_FINISH, NULL, 0) ||
		wr_pump_until(w, wr_all_got, "rendezvous: the sweep's results")) {
		wr_name_missing(w);
		return w->err;
	}
	mrc_sweep_finish(w->sweep);
	for (uint32_t r = 1; r < w->nranks; r++) {
		e = mrc_sweep_merge(w->sweep, r, w->result[r], w->result_len[r]);
		if (e) {
			wr_fail(w, e, "rendezvous: rank %u (h%u): a sweep result that does not "
				"fit the plan", r, r);
			return e;
		}
	}
	return 0;
}

int mrc_sweep_wire(const struct conf_job *job, const struct mrc_wirerun_opts *o,
	struct mrc_sweep **out, uint64_t *duration_ps, uint32_t *rank_out, char *err,
	size_t errlen)
{
	struct mrc_wirerun_rtt rtt = { 0 };
	struct wr w = { .rtt_out = &rtt };
	int e;

	*out = NULL;
	*duration_ps = 0;
	if (mrc_wirerun_boot_pick(o) == MRC_WIRERUN_BOOT_PMIX) {
		snprintf(err, errlen, "sweep: the wire sweep meets at the rendezvous: launch it "
			"with --host (or --bootstrap rendezvous), not under PMIx");
		return -EINVAL;
	}
	/* every host of the fabric: the plan's paths reach them all */
	e = wr_open(&w, job, o, conf_fabric_hosts(&job->fabric), false, rank_out, err, errlen);
	e = e ?: mrc_sweep_new(job, &w.m, &w.sweep, err, errlen);
	if (e)
		goto out;
	e = start(&w);
	e = e ?: probe(&w);
	e = e ?: gather(&w, duration_ps);
	if (e) {
		snprintf(err, errlen, "%s", w.errmsg);
		goto out;
	}
	if (w.rank == 0) {
		*out = w.sweep;
		w.sweep = NULL;
	}
out:
	if (e && w.boot) { /* so no rank waits for its timeout */
		if (!w.err)
			w.err = e;
		w.boot->fail(&w, err, errlen);
	}
	w.tick = NULL;
	mrc_sweep_free(w.sweep);
	w.sweep = NULL;
	wr_close(&w);
	mrc_wirerun_rtt_free(&rtt);
	return e;
}
