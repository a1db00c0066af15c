/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wrtt: the wire driver's base-RTT measurement (issue 7) — MRC PROBE packets (docs/wire-format.md
 * "Opcodes", PETH) to QP 0 carry a probe id; the peer echoes each one back on the same EV,
 * and the sender keeps the round-trip times on its own CLOCK_MONOTONIC. A low percentile of
 * the samples is the rank's base RTT; the job uses the largest rank's figure, so every
 * rank's NSCC (mrc/engine/nscc.h) starts from the same number (README "Running on a real fabric").
 *
 * Echo convention (mrcgen's own; docs/wire-format.md reserves no QP for it): a PROBE with DestQP 0
 * and the BTH ack-request flag (0x80) is a request; the answer is a PROBE with DestQP 0, flags 0,
 * the request's probe_id and tx_ts, from the responder to the requester on the request's
 * EV (so the same plane and spine carry it both ways). The engine's own probes address a
 * QP (QPNs start at 1), so they never match.
 */
#ifndef MRC_WRTT_H
#define MRC_WRTT_H

#include "mrc/engine/srv6.h"
#include "mrc/engine/wire.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRC_WRTT_MAX_WINDOW 64
#define MRC_WRTT_MAX_PROBES 32768 /* probe ids (16 bits) never repeat within a run */
#define MRC_WRTT_MIN_SAMPLES 4	  /* fewer answers: the rank has no figure */

enum mrc_wrtt_kind {
	MRC_WRTT_NONE = 0,    /* not an echo probe: the engine's packet */
	MRC_WRTT_REQUEST = 1, /* answer it with mrc_wrtt_reply() */
	MRC_WRTT_REPLY = 2,   /* feed it to mrc_wrtt_on_reply() */
};

/*
 * Classifies the @len bytes at @inner, an inner IPv6 packet as the protocol-41 socket
 * delivers it: a quick look at fixed offsets first (next header UDP, opcode 0xDE at byte
 * 48, DestQP 0 at bytes 53-55), so data packets cost three compares; an echo probe is then
 * decoded whole with @cfg (checksums as @cfg says) into @p. Returns enum mrc_wrtt_kind;
 * a damaged echo probe is MRC_WRTT_NONE.
 */
int mrc_wrtt_classify(const struct mrc_wire_cfg *cfg, const uint8_t *inner, size_t len,
	struct mrc_pkt *p);

/*
 * Encodes into @buf (capacity @cap) the request from host @src to host @dst on @ev with
 * @probe_id, or (@reply) the answer of host @src to the decoded request @req (its source
 * port address names the requester: the last 48 bits are plane:host:1, srv6.h). *plane is
 * the plane to send it on. Returns the length, -EINVAL (the requester is not a host of
 * @nhosts, or is @src), or the errors of mrc_srv6_path() and mrc_wire_encode().
 */
int mrc_wrtt_request(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t src, uint32_t dst, uint32_t ev, uint16_t probe_id, uint8_t *buf, size_t cap,
	unsigned *plane);
int mrc_wrtt_reply(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t src, uint32_t nhosts, const struct mrc_pkt *req, uint8_t *buf, size_t cap,
	unsigned *plane);

/* A rank's side of the echo: what answering a request takes. */
struct mrc_wrtt_host {
	const struct mrc_srv6_plan *plan;
	const struct mrc_wire_cfg *cfg; /* the codec of echo probes, checksums verified */
	uint32_t rank, nranks;		/* this host, of hosts h0..h{nranks-1} */
	unsigned planes;		/* its ports: an answer for another plane is not sent */
};

/*
 * An inner packet of @len bytes at @inner arrived at rank @h->rank (the receive side of
 * the echo, sans I/O): classified (mrc_wrtt_classify, into @p) and, for a request, its
 * answer (mrc_wrtt_reply) written into @buf (capacity @cap; NULL: no room, nothing is
 * built), *reply_len its length and *plane its plane; *reply_len is 0 when there is no
 * answer to send (no room, a requester that is no other host of the job, no path, a
 * plane past @h->planes). A reply is for the caller to give mrc_wrtt_on_reply() with its
 * arrival time. Returns enum mrc_wrtt_kind.
 */
int mrc_wrtt_rx(const struct mrc_wrtt_host *h, const uint8_t *inner, size_t len,
	struct mrc_pkt *p, uint8_t *buf, size_t cap, size_t *reply_len, unsigned *plane);

struct mrc_wrtt_params {
	const struct mrc_srv6_plan *plan;
	const struct mrc_wire_cfg *cfg;	     /* the job's codec settings */
	uint32_t rank, nranks;		     /* hosts h0..h{nranks-1} take part */
	const uint32_t *evs;		     /* usable EVs (denied ones left out) */
	size_t n_evs;
	unsigned per_peer;		     /* probes per peer, spread over the planes round
						robin and over each plane's EVs in turn; the
						total is capped at MRC_WRTT_MAX_PROBES */
	unsigned window;		     /* probes in flight, 1..MRC_WRTT_MAX_WINDOW */
	uint64_t probe_timeout_ns;	     /* an unanswered probe counts lost after this */
	uint64_t budget_ns;		     /* the whole measurement ends after this */
	unsigned percentile;		     /* 1..100: the rank's figure (nearest rank) */
};

struct mrc_wrtt;

/* What one rank measured. Times in ns. */
struct mrc_wrtt_stats {
	uint32_t sent, answered, lost; /* lost: timed out, or in flight when the budget ended */
	uint64_t min_ns, max_ns;
	uint64_t figure_ns;	       /* the percentile; 0 with < MRC_WRTT_MIN_SAMPLES */
};

/* Starts a measurement at @now_ns. Returns 0, -EINVAL (bad params: no EV, window out of
 * range, nranks < 2, rank >= nranks) or -ENOMEM. */
int mrc_wrtt_new(const struct mrc_wrtt_params *p, uint64_t now_ns, struct mrc_wrtt **out);
void mrc_wrtt_free(struct mrc_wrtt *t);

/*
 * The next request, when a window slot is free and probes are left: encoded into @buf
 * (capacity @cap), *plane set, its send time @now_ns noted. Expires timed-out probes
 * first. Returns the length, 0 when nothing is to be sent now, or a negative errno (as
 * mrc_wrtt_request; the probe is then counted lost).
 */
int mrc_wrtt_next(struct mrc_wrtt *t, uint64_t now_ns, uint8_t *buf, size_t cap, unsigned *plane);

/* A decoded reply (MRC_WRTT_REPLY) arrived at @now_ns: records its RTT when it answers a
 * probe in flight (same id, peer and EV); a late or stray one is ignored. Returns true when
 * it was recorded. */
bool mrc_wrtt_on_reply(struct mrc_wrtt *t, const struct mrc_pkt *p, uint64_t now_ns);

/* True when every probe was answered or lost, or the budget has passed at @now_ns. */
bool mrc_wrtt_done(const struct mrc_wrtt *t, uint64_t now_ns);

/* When something is next due (a timeout, the budget's end), monotonic ns. */
uint64_t mrc_wrtt_next_timer(const struct mrc_wrtt *t);

/* The figures so far (in-flight probes count as lost once mrc_wrtt_done). */
void mrc_wrtt_stats(const struct mrc_wrtt *t, uint64_t now_ns, struct mrc_wrtt_stats *s);

/* The job's base RTT from every rank's figure (0 = that rank has none): the largest, so no
 * rank's NSCC takes its own normal delay for queueing; 0 when no rank has one. */
uint64_t mrc_wrtt_agree(const uint64_t *figure_ns, size_t n);

#endif
