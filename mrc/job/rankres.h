/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rankres: one rank's results and their merge into the job's result at rank 0: on the wire
 * driver the body of its RESULT message (wirerun.h), on the simulator an MPI rank's share
 * of the hosts it ran (mrc/sim/run.c).
 *
 * A RESULT body is one JSON object (jansson), integers decimal:
 *   {"version": 1,
 *    "counters": {"data_pkts": N, ...},      every field of MRC_RANKRES_CTRS
 *    "evs_retired": N,                       EV state changes to ASSUMED_BAD
 *    "evs": [{"ev": V, "tx_pkts": N, ...}],  per EV of the job's plan, plan order
 *    "hist": {"msg_ns": B64, "step_ns": B64, "rtt_ns": B64},  mrc_hist_encode_base64
 *    "hist_exact": {"msg_ns": [EXACT, MIN, MAX, "SUM", MEAN, M2], ...}  what the counts
 *                                            lose (mrc_hist_exact_get): SUM 32 hex digits
 *    "bad": [[ITER, OFF_PS], ...]}           each EV retirement: global iteration, ps
 *                                            after that iteration's GO on the rank's clock
 * Every field must be there with its type, counters non-negative; a reader refuses
 * another version.
 */
#ifndef MRC_RANKRES_H
#define MRC_RANKRES_H

#include "mrc/job/result.h"

#include <stddef.h>
#include <stdint.h>

/* 2: the host_* counters; 3: the CNP counters; 4: xdp_*; 5: hist_exact */
#define MRC_RANKRES_VERSION 5

/* The counters a rank sends (struct mrc_run_result fields, summed at rank 0). */
#define MRC_RANKRES_CTRS(X)                                                                        \
	X(data_pkts) X(data_bytes) X(rtx_pkts) X(rtx_bytes) X(sacks) X(nacks) X(nack_trimmed)     \
	X(probes) X(ecn_echoes) X(losses_sack) X(losses_rto) X(rx_dup) X(rx_reordered)            \
	X(rx_decode_err) X(qp_errors) X(injected) X(delivered) X(fab_ecn)                         \
	X(tx_encode_err) X(capture_errors) X(losses_port) X(losses_path) X(tlp) X(gbn_rewinds)    \
	X(host_send_errors) X(host_socket_drops) X(host_cq_overflows) X(host_cq_dropped)          \
	X(host_truncated) X(host_foreign) X(rx_icmp_time_exceeded) X(rx_icmp_other)     \
	X(rx_foreign) X(rx_wrong_plane) X(rx_spoofed) X(rx_misdirected) X(ep_requests)       \
	X(ep_responses)                \
	X(ep_responses_unmatched) X(probe_answers_unmatched) X(cnps_sent) X(cnps_received)     \
	X(rate_cuts) X(xdp_ranks) X(xdp_ports) X(xdp_zc_ports) X(xdp_malformed) X(xdp_no_xsk)  \
	X(xdp_passed) X(xdp_reassembled)

/* The per-EV counters a rank sends (struct mrc_run_ev fields but plane and spine). */
#define MRC_RANKRES_EV_FIELDS(X)                                                                   \
	X(tx_pkts) X(rtx_pkts) X(losses) X(ecn) X(trims) X(nacks) X(probes) X(probes_ok)          \
	X(changes) X(rtt_samples) X(rtt_sum_ps) X(bad_qps)

/* An EV that went ASSUMED_BAD: global iteration, ps after its GO on the rank's own clock. */
struct mrc_rankres_bad {
	uint32_t iter;
	uint64_t off_ps;
};

struct mrc_rankres {
	struct mrc_run_result ctr;   /* the MRC_RANKRES_CTRS fields; nothing else used */
	uint64_t evs_retired;
	struct mrc_run_ev *evs;	     /* [n_evs]: ev and the MRC_RANKRES_EV_FIELDS */
	size_t n_evs;
	struct mrc_hist *msg_ns, *step_ns, *rtt_ns;
	struct mrc_rankres_bad *bad; /* [n_bad] */
	size_t n_bad;
};

/*
 * Writes @r as a RESULT body: *out (malloc'd, not NUL-counted in *len). Returns 0,
 * -ENOMEM, or -EINVAL when a histogram is missing.
 */
int mrc_rankres_encode(const struct mrc_rankres *r, char **out, size_t *len);

/*
 * Reads a RESULT body of @len bytes into @r (zeroed first; release with
 * mrc_rankres_free, also after an error). Returns 0, -ENOMEM, or -EPROTO with the reason
 * in @err: not JSON ("not JSON: ... at byte 12"), another version ("version 2, this build
 * reads 1"), a field missing or of the wrong type ("counters.tlp: not a non-negative
 * integer"), a histogram that does not decode.
 */
int mrc_rankres_decode(const void *buf, size_t len, struct mrc_rankres *r, char *err,
	size_t errlen);

/*
 * Adds @r into @res: the counters, the per-EV counters (@r's EVs must be @res's, same
 * order and values) and the three histograms (mrc_hist_add). Returns 0, or -EPROTO with
 * the reason in @err, @res unchanged, when the EVs differ or a histogram holds a value
 * beyond @res's range (a decoded one may have any range).
 */
int mrc_rankres_merge(struct mrc_run_result *res, const struct mrc_rankres *r, char *err,
	size_t errlen);

/* Releases what @r owns (evs, histograms, bad) and zeroes those fields. */
void mrc_rankres_free(struct mrc_rankres *r);

#endif
