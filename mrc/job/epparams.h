/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * epparams: the endpoint parameters of a job (its mrc: section onto struct mrc_ep_params)
 * and the unloaded base RTT NSCC scales from, the same for both drivers (docs/architecture.md
 * "One engine, two drivers").
 */
#ifndef MRC_EPPARAMS_H
#define MRC_EPPARAMS_H

#include "conf/conf.h"
#include "mrc/job/job.h"

#include <stdint.h>

struct mrc_ep_params;

/*
 * Serialization time of @bytes at @rate_bps (> 0) in ps, rounded up: bytes x 8 x 1e12 /
 * rate (exact for 100/200/400G; fits 64 bits up to 2 MB).
 */
uint64_t mrc_ser_ps(uint64_t bytes, uint64_t rate_bps);

/*
 * The unloaded RTT of the longest path of fabric @f, ps: 4 links there and back, each way
 * a data packet of @mtu payload bytes + 150 header bytes out and a 160-byte SACK back
 * serialized once per link (4 x (ser(mtu + 150) + ser(160))), plus the links' propagation
 * (4 x (host + fabric link delay)) and 6 switch traversals. The simulator's default base
 * RTT; NSCC's parameters scale from it.
 */
uint64_t mrc_run_base_rtt_ps(const struct conf_fabric *f, uint32_t mtu);

/*
 * Fills @p with the endpoint parameters of @j (its mrc: section, the EV profile of @m) for
 * a job of @nranks ranks; both drivers build their endpoints from it. NSCC's base RTT (ps)
 * is mrc.cc.base_rtt, else @base_rtt_ps when non-zero (the wire driver's measured RTT),
 * else mrc_run_base_rtt_ps() (the simulator). host, seed, path and ev_plane stay for the
 * caller. p->ev.evs and p->ev.deny are allocated: release them with
 * mrc_run_ep_params_free(). Returns 0 or -ENOMEM.
 */
int mrc_run_ep_params(const struct conf_job *j, const struct mrc_job_srv6 *m, uint32_t nranks,
	uint64_t base_rtt_ps, struct mrc_ep_params *p);
void mrc_run_ep_params_free(struct mrc_ep_params *p);

#endif
