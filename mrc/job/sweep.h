/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sweep: `mrcgen sweep`'s probe plan and per-path measurements, the same for both drivers
 * (docs/sweep.md). A path is (source host, destination host, EV); under the srv6 EV
 * format the EV fixes its plane and T1, so the links it crosses (mrc_srv6_path). The
 * plan is every EV of every pair, or a cover in which every link is crossed by at least
 * sweep.cover paths ("The plan"). Each source host sends sweep.probes EV_PROBE endpoint
 * requests per path (mrc_ep_ev_probe, docs/wire-format.md "Endpoint operations"), round
 * after round over its paths, paced at sweep.rate with at most sweep.outstanding in
 * flight and none after sweep.max_time ("Bounds"). Per path it counts what was sent,
 * what the peer's endpoint saw (ops->ep_request: one-way delivery and CE), what came back
 * (ops->ep_response: RTT) and answers that came back out of send order.
 *
 * The driver asks mrc_sweep_poll() what to send and when to ask again, hands every
 * request it made (mrc_sweep_sent), answer (mrc_sweep_answer) and request its endpoint
 * answered (mrc_sweep_request) back, and calls mrc_sweep_finish() at the end. Each of
 * those calls for host h writes only h's state (its requests in flight and the counts of
 * its paths as source; as destination, records in cache lines of its own), so the
 * simulator's workers make them for their own hosts at once (docs/sweep.md "On the
 * simulator"). The wire driver runs one host per process: each rank probes from its own
 * host and the ranks' halves meet at rank 0 through mrc_sweep_encode / mrc_sweep_merge,
 * as each host's half of a simulation's MPI ranks does (mrc_sweep_sim).
 */
#ifndef MRC_SWEEP_H
#define MRC_SWEEP_H

#include "conf/conf.h"
#include "mrc/job/job.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most paths a plan may hold (cover 0 over a large fabric is refused above it). */
#define MRC_SWEEP_MAX_PATHS (1u << 22)

/* RTT figures of a path, nearest rank over its answers: min, p50, p90, p99, max (ns). */
enum { MRC_SWEEP_RTT_MIN, MRC_SWEEP_RTT_P50, MRC_SWEEP_RTT_P90, MRC_SWEEP_RTT_P99,
	MRC_SWEEP_RTT_MAX, MRC_SWEEP_RTT_N };

struct mrc_sweep_path {
	uint32_t src, dst, ev;
	uint32_t plane, t0_src, t0_dst, t1; /* t1: UINT32_MAX when both hosts share a T0 */
	uint32_t sent;	    /* requests handed to the endpoint (and refused by a down port) */
	uint32_t delivered; /* requests the destination's endpoint answered */
	uint32_t ce;	    /* of those, arrived with ECN CE */
	uint32_t answered;  /* answers within sweep.timeout */
	uint32_t reordered; /* answers that came after an answer to a later request */
	uint32_t rtt_ns[MRC_SWEEP_RTT_N]; /* valid when answered > 0 */
};

struct mrc_sweep;

/*
 * Builds the plan of @job (its sweep: section and seed) over the plan and EV profile of
 * @m, denied EVs left out, paths sorted by (src, dst, ev). Returns 0, or -EINVAL
 * (ev_format other than srv6: an EV then names no path; fewer than 2 hosts), -E2BIG (more
 * than MRC_SWEEP_MAX_PATHS paths) or -ENOMEM, with "KEY: reason" in @err (mrc.ev_format,
 * fabric, sweep.cover, or "sweep plan: ...").
 */
int mrc_sweep_new(const struct conf_job *job, const struct mrc_job_srv6 *m,
	struct mrc_sweep **out, char *err, size_t errlen);
void mrc_sweep_free(struct mrc_sweep *sw);

/* The plan's paths, in order (their counters as measured so far; delivered and ce once
 * mrc_sweep_finish() has run). */
size_t mrc_sweep_n_paths(const struct mrc_sweep *sw);
const struct mrc_sweep_path *mrc_sweep_paths(const struct mrc_sweep *sw);

/*
 * The fabric's links (docs/sweep.md "The plan"): host link (host h, plane p) is number
 * p * (hosts + t0 * t1) + h, T0-T1 link (plane p, T0 i, T1 j) p * (hosts + t0 * t1) +
 * hosts + i * t1 + j. mrc_sweep_n_links() is their count; mrc_sweep_link_paths(@l) how
 * many of the plan's paths cross link @l.
 */
size_t mrc_sweep_n_links(const struct mrc_sweep *sw);
uint32_t mrc_sweep_link_paths(const struct mrc_sweep *sw, size_t l);

/* Writes link @l's name as a fault target names it, lower tier first ("h0.p0-p0.t0.0",
 * "p0.t0.1-p0.t1.2"), into @buf; returns @buf. */
char *mrc_sweep_link_name(const struct mrc_sweep *sw, size_t l, char *buf, size_t len);

/* Most nodes on a path: source port, T0, T1, T0, destination port. */
#define MRC_SWEEP_MAX_NODES 5
#define MRC_SWEEP_NODE_LEN  24

/*
 * The nodes path @p crosses, in travel order, named as fault targets name them ("h0.p1",
 * "p1.t0.0", "p1.t1.2", "p1.t0.1", "h5.p1"): 3 when both hosts share a T0, else 5.
 */
unsigned mrc_sweep_path_nodes(const struct mrc_sweep_path *p,
	char names[MRC_SWEEP_MAX_NODES][MRC_SWEEP_NODE_LEN]);

/* What to send: path @path's next request, to @peer over @ev. */
struct mrc_sweep_probe {
	size_t path;
	uint32_t peer, ev;
};

/*
 * Host @host at @now_ps (from the sweep's start, 0): first counts every request in flight
 * longer than sweep.timeout as lost; then, when a request may leave now (its turn by the
 * rate has come: the k-th of the host at k x 1e12 / rate ps, shifted by host x that
 * interval / hosts so hosts do not send in step; fewer than sweep.outstanding in flight;
 * before sweep.max_time), fills @out and returns 0: send it and call mrc_sweep_sent().
 * Otherwise returns when to ask again (ps; the next turn or the next timeout), or
 * UINT64_MAX when the host is done: every request sent (or max_time passed) and none in
 * flight.
 */
uint64_t mrc_sweep_poll(struct mrc_sweep *sw, uint32_t host, uint64_t now_ps,
	struct mrc_sweep_probe *out);

/*
 * The request mrc_sweep_poll() gave @pr was made at @now_ps: @req_id is what
 * mrc_ep_ev_probe() returned. An id (>= 0) is in flight until answered or timed out;
 * -EBUSY (the endpoint's probe table is full) leaves the request to be made again; any
 * other error (-ENETDOWN: the host's port on that plane is down) counts it sent and lost.
 */
void mrc_sweep_sent(struct mrc_sweep *sw, uint32_t host, const struct mrc_sweep_probe *pr,
	int req_id, uint64_t now_ps);

/*
 * ops->ep_response of @host's endpoint: the answer to request @req_id from @peer over
 * @ev after @rtt_ns. One that matches no request in flight (a late one) is ignored.
 */
void mrc_sweep_answer(struct mrc_sweep *sw, uint32_t host, uint16_t req_id, uint32_t peer,
	uint32_t ev, uint64_t rtt_ns);

/*
 * ops->ep_request of @host's endpoint: it answered an EV_PROBE from @src over @ev (@ce:
 * it arrived CE-marked). Counted on the path (src, host, ev) when the plan has it, in
 * @host's own records: the path's delivered and ce once mrc_sweep_finish() has run.
 */
void mrc_sweep_request(struct mrc_sweep *sw, uint32_t host, uint32_t src, uint32_t ev,
	bool ce);

/* Has @host sent every request of its paths (or reached max_time) with none in flight? */
bool mrc_sweep_host_done(const struct mrc_sweep *sw, uint32_t host);

/* Fills every path's rtt_ns[] from the answers' RTTs (nearest rank: the p-th of n sorted
 * samples is the ceil(p x n / 100)-th), and its delivered and ce from its destination's
 * records. */
void mrc_sweep_finish(struct mrc_sweep *sw);

/* Requests the plan holds, and those not sent (max_time ended the sweep first): the plan's
 * less every path's sent (on the wire, once the ranks' halves are merged). */
uint64_t mrc_sweep_planned(const struct mrc_sweep *sw);
uint64_t mrc_sweep_unsent(const struct mrc_sweep *sw);

/*
 * Host @host's half of the results as a rank sends it to rank 0 (docs/sweep.md "On the
 * wire"): be32 version 1, be32 n, then n sender records (be32 path, sent, answered,
 * reordered, rtt_ns[5]: 36 bytes) of the paths from @host, be32 m, then m receiver
 * records (be32 path, delivered, ce: 12 bytes) of the paths to @host. *@buf is malloc'd.
 * Call after mrc_sweep_finish(). Returns 0 or -ENOMEM.
 */
int mrc_sweep_encode(const struct mrc_sweep *sw, uint32_t host, uint8_t **buf, size_t *len);

/*
 * Merges rank @host's body (mrc_sweep_encode) into @sw. Hostile input is refused whole,
 * nothing merged: -EPROTO for another version, a body of another length than its counts
 * say, a path out of the plan, a sender record of a path not from @host or a receiver
 * record of one not to @host, counts out of bounds (sent or delivered above sweep.probes,
 * answered above sent, reordered above answered, ce above delivered).
 */
int mrc_sweep_merge(struct mrc_sweep *sw, uint32_t host, const uint8_t *buf, size_t len);

#endif
