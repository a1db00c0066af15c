/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wping: `mrcgen wire-ping` — sends one MRC PROBE (docs/wire-format.md "Opcodes", PETH) per EV
 * over the raw sockets of mrc/sock and the io_uring loop of mrc/loop, and checks that it arrives,
 * byte for byte, at the peer's protocol-41 socket: path bring-up for lab and netns fabrics before a
 * run.
 */
#ifndef MRC_WPING_H
#define MRC_WPING_H

#include "conf/conf.h"
#include "mrc/engine/srv6.h"

#include <stdint.h>
#include <stdio.h>

#define MRC_WPING_MAX_PLANES 16

/*
 * Writes the PROBE of @path (outer IPv6 with the uSID container as DA and next header 41,
 * inner IPv6 with flow label EV[15:0], UDP sport EV[31:16] dport 4791 with the checksum
 * over the inner pseudo-header, BTH opcode 0xDE with PSN 0, PETH with @probe_id and
 * @tx_ts, ICRC) into @buf with mrc_wire_encode (docs/wire-format.md "Opcodes"). Traffic class DSCP
 * 0, ECN ECT(0) on both headers. Returns the length (120 bytes), or -ENOSPC.
 */
int mrc_wping_build(const struct mrc_srv6_path *path, uint16_t probe_id, uint16_t tx_ts,
	uint8_t *buf, size_t cap);

/*
 * The PROBE's probe_id in an inner packet as the protocol-41 socket delivers it (decoded
 * with mrc_wire_decode, checksum and ICRC not checked). Returns 0, -EMSGSIZE (shorter than
 * IPv6 + UDP + BTH + PETH) or -EPROTO (not an MRC PROBE).
 */
int mrc_wping_probe_id(const uint8_t *inner, size_t len, uint16_t *probe_id);

struct mrc_wping_opts {
	const struct mrc_srv6_plan *plan;
	uint32_t src, dst;		/* host numbers */
	const uint32_t *evs;		/* EVs to try, in order */
	size_t n_evs;
	const char *ports[MRC_WPING_MAX_PLANES]; /* interface of port p; NULL: "p<N>" */
	const char *netns;		/* send from this named netns (NULL: the current one) */
	const char *peer_netns;		/* receive in this named netns (NULL: the current one) */
	unsigned timeout_ms;		/* per EV; 0 = 200 */
	/* wire.dataplane xdp or auto: AF_XDP ports (mrc/wire/xsk.h) on both ends instead of
	 * raw sockets, under auto only when every port opens; NULL: raw sockets */
	const struct conf_wire *wire;
	uint32_t mtu;			/* mrc.mtu: the AF_XDP frames' size */
};

/*
 * Probes every EV of @o in turn and prints one line per EV to @out:
 *   ev 0x00010000 plane 0 t1 p0.t1.1 fc00:0:401:802:402:4:: ok 41.2 us tclass 0x02
 *   ev 0x00010000 plane 0 t1 p0.t1.1 fc00:0:401:802:402:4:: lost
 * then "wire-ping: N/M paths ok" (", AF_XDP" after the counts when it ran on AF_XDP).
 * Returns the number of lost (or corrupted) probes
 * (>= 0), or a negative errno with "wire-ping: ..." in @err when it cannot run (sockets,
 * namespaces, io_uring).
 */
int mrc_wping_run(const struct mrc_wping_opts *o, FILE *out, char *err, size_t errlen);

#endif
