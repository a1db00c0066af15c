/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * epfault: the config's `faults:` timeline applied at an endpoint of the wire driver — a
 * packet whose path (docs/wire-format.md "SRv6 uSID addressing": plane, T0s, spine, T0d) crosses a
 * faulted element is dropped, delayed, CE-marked or trimmed by the sending or receiving
 * host instead of by the fabric. Deterministic: plain structs in, times in picoseconds.
 *
 * Mapping (README "Running on a real fabric", Endpoint faults):
 * - down / blackhole / flap of a link, a switch or a NIC port hN.pP: the SENDER drops
 *   every packet whose path crosses it (a T1 or T0-T1 link selects EVs by plane and
 *   spine: drop by EV; a port selects a plane: drop by plane). A blackhole acts in the
 *   link's written direction only. `up` ends down/flap, `clear` ends
 *   loss/delay/blackhole/flap on the same element (mrc_fault_undoes, the simulator's
 *   rule: `up` does not lift a blackhole); `duration` reverts too.
 * - loss on a link: the sender drops at the rate (one seeded draw per packet and fault);
 *   with fabric.trim on, the RECEIVER trims instead (cut to trim_size, trimmed DSCP), as
 *   a trimming switch would.
 * - delay on a link: the sender holds the packet that long (delay queue); the receiver
 *   marks it CE when the delay is at least the queueing time of ecn_threshold bytes at
 *   the link rate (the delay stands for a queue that deep): ECN marking.
 * - a whole host (target hN) is refused: an endpoint cannot emulate itself being gone.
 */
#ifndef MRC_EPFAULT_H
#define MRC_EPFAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"

struct mrc_epf;

/* What the endpoint needs of the job (conf_job fabric section, the wire codec). */
struct mrc_epf_params {
	uint32_t planes, t0, t1, hosts_per_t0;
	uint64_t seed;			/* the loss draws; give each host its own */
	bool trim;			/* fabric.trim: loss faults trim at the receiver */
	uint32_t trim_size;		/* bytes a trim keeps (>= 40) */
	uint8_t dscp_trimmed;		/* DSCP a trim writes (mrc.dscp_trimmed) */
	uint64_t link_rate_bps;		/* for the delay -> CE mapping */
	uint64_t ecn_threshold_bytes;	/* 0: delay faults never mark */
	size_t queue_cap;		/* delayed packets held at once; 0 = 1024 */
};

/* A packet's path: its plane, its T1 index (EV spine field mod t1), the two hosts. */
struct mrc_epf_pkt {
	uint32_t plane, spine, src, dst;
};

enum mrc_epf_verdict {
	MRC_EPF_PASS,
	MRC_EPF_DROP,
	MRC_EPF_DELAY,	/* tx: hold until *release_ps (mrc_epf_hold) */
	MRC_EPF_TRIM,	/* rx: cut it with mrc_wire_trim(trim_size, dscp_trimmed) */
};

/* Counters of what the faults did. */
struct mrc_epf_stats {
	uint64_t dropped, delayed, trimmed, ce_marked, queue_full;
};

/*
 * Checks @n faults (resolved conf_fault, conf/conf.h) against what an endpoint can do and
 * builds the injector in @out. Returns 0, -ENOMEM, or -EINVAL with "fault TARGET: ...
 * cannot be emulated at an endpoint: why" in @err (a whole host; loss/delay/flap/clear/
 * blackhole on something other than a link, as the simulator; a blackhole written host
 * first: a host has no route to forget). @faults must outlive @out.
 */
int mrc_epf_new(const struct mrc_epf_params *p, const struct conf_fault *faults, size_t n,
	struct mrc_epf **out, char *err, size_t errlen);

void mrc_epf_free(struct mrc_epf *e);

/* The job starts at @now_ps: faults with `at` fire at @now_ps + at. Call once. */
void mrc_epf_start(struct mrc_epf *e, uint64_t now_ps);

/* Measured iteration @iter (0-based, per size) starts at @now_ps: its at_iteration faults
 * fire (again for each size, as in the simulator). */
void mrc_epf_iteration(struct mrc_epf *e, uint32_t iter, uint64_t now_ps);

/*
 * Send hook, before the packet leaves: PASS, DROP, or DELAY with the release time in
 * @release_ps (@now_ps + the delays of every delay fault on the path).
 */
enum mrc_epf_verdict mrc_epf_tx(struct mrc_epf *e, const struct mrc_epf_pkt *p,
	uint64_t now_ps, uint64_t *release_ps);

/*
 * Receive hook, before the engine sees the packet: PASS or TRIM (cut it), and *@ce set
 * when a delay fault on the path stands for a queue above the ECN threshold (left
 * unchanged otherwise).
 */
enum mrc_epf_verdict mrc_epf_rx(struct mrc_epf *e, const struct mrc_epf_pkt *p,
	uint64_t now_ps, bool *ce);

/*
 * Delay queue: keeps a copy of @len bytes (<= 16384) for @plane until @release_ps.
 * Returns 0, -ENOSPC when the queue is full (the packet is lost, counted), -EINVAL.
 */
int mrc_epf_hold(struct mrc_epf *e, unsigned plane, const uint8_t *pkt, size_t len,
	uint64_t release_ps);

/* Earliest release time held, or UINT64_MAX when the queue is empty. */
uint64_t mrc_epf_next_release(const struct mrc_epf *e);

/*
 * Pops the earliest packet due at @now_ps into @buf (capacity @cap) and its plane into
 * @plane. Returns its length, 0 when none is due, -ENOSPC when @cap is too small.
 */
int mrc_epf_due(struct mrc_epf *e, uint64_t now_ps, uint8_t *buf, size_t cap, unsigned *plane);

const struct mrc_epf_stats *mrc_epf_stats(const struct mrc_epf *e);

#endif
