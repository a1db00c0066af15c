/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * st_net: the addressing of the engine tests' scripted networks (qp_test, ep_test), for
 * tests only. An EV is plane(4) | spine(12) | salt(16); host h's address on plane p is
 * fd00::h00:p (bytes 13 and 15), outer and inner alike, with no segments.
 */
#ifndef MRC_ST_NET_H
#define MRC_ST_NET_H

#include "mrc/engine/wire.h"

#include <string.h>

static inline unsigned st_ev_plane(void *ctx, uint32_t ev)
{
	(void)ctx;
	return ev >> 28;
}

static inline void st_addr(struct mrc_ip6 *a, uint32_t host, unsigned plane)
{
	memset(a, 0, sizeof(*a));
	a->b[0] = 0xfd;
	a->b[13] = (uint8_t)host;
	a->b[15] = (uint8_t)plane;
}

/* The host and plane of address @a (the inverse of st_addr), -1 for any other. */
static inline int st_peer_of(void *ctx, const struct mrc_ip6 *a, unsigned *plane)
{
	struct mrc_ip6 want;

	(void)ctx;
	st_addr(&want, a->b[13], a->b[15]);
	if (memcmp(&want, a, sizeof(want)))
		return -1;
	*plane = a->b[15];
	return a->b[13];
}

/* The path of a packet from @host to @peer on EV @ev. */
static inline void st_path_fill(struct mrc_pkt *hdr, uint32_t host, uint32_t peer, uint32_t ev)
{
	unsigned pl = ev >> 28;

	st_addr(&hdr->outer_src, host, pl);
	st_addr(&hdr->outer_dst, peer, pl);
	st_addr(&hdr->src, host, pl);
	st_addr(&hdr->dst, peer, pl);
	hdr->n_segs = 0;
}

#endif
