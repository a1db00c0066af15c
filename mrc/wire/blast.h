/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * blast: the raw-socket baseline of the wire benchmark (issue 7, "Performance") — the
 * packets mrcgen's endpoint would send from one host to another (RDMA WRITE MIDDLE data
 * packets of mrc.mtu payload bytes, encoded by mrc/wire, on every EV of the job's profile
 * in turn, so the same sizes over the same SRv6 paths, docs/wire-format.md "SRv6 uSID addressing"),
 * sent in batches on the same raw sockets and io_uring loop as the wire driver (mrc/sock,
 * mrc/loop) — or, with wire.dataplane xdp, on the AF_XDP ports of mrc/wire/xsk from UMEM
 * send slots, as the xdp dataplane sends — with no transport; the peer's packets are
 * counted as they arrive.
 */
#ifndef MRC_BLAST_H
#define MRC_BLAST_H

#include "conf/conf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRC_BLAST_MAX_PLANES 16

struct mrc_blast_opts {
	uint32_t host, peer;	/* this host's rank and the one it sends to (and hears from) */
	const char *ports[MRC_BLAST_MAX_PLANES]; /* interface of plane p; NULL: "p<p>" */
	uint64_t packets;	/* packets to send, and to expect from the peer */
	uint64_t start_ns;	/* CLOCK_REALTIME ns to start sending at (0: now): both ends
				   of a run get the same one, so neither sends into a host whose
				   receive socket is not open yet */
	unsigned idle_ms;	/* after sending, stop once nothing came for this long [500] */
	unsigned timeout_ms;	/* the whole run, from the start [60000] */
};

struct mrc_blast_result {
	uint32_t pkt_bytes;	/* each packet on the wire: outer IPv6 [+SRH] + inner + UDP + MRC */
	uint32_t payload_bytes;	/* payload per packet (mrc.mtu) */
	unsigned evs;		/* EVs (paths) the packets rotate over */
	uint64_t sent, send_errors;
	double send_s;		/* first send to last send completion */
	uint64_t received;	/* datagrams that arrived on the ports' interfaces */
	uint64_t received_bytes; /* their bytes as the protocol-41 socket hands them over */
	double recv_s;		/* first to last arrival */
	uint64_t sock_drops;	/* SO_RXQ_OVFL */
	double cpu_user_s, cpu_sys_s; /* getrusage of this process over the run (not setup) */
	bool xdp;		/* it ran on AF_XDP (wire.dataplane xdp, or auto where it opened) */
};

/*
 * Runs one end: opens the ports of @job's fabric (one send socket per plane, one receive
 * socket for all), builds one packet per EV of the profile from host to peer, waits for
 * start_ns, then keeps the send pool full until @packets are sent while counting what the
 * peer sends. Returns 0, -EINVAL (ranks outside the fabric, host == peer, packets 0) or
 * a socket/io_uring setup errno (-EPERM without CAP_NET_RAW), with "blast: ..." in @err.
 */
int mrc_blast_run(const struct conf_job *job, const struct mrc_blast_opts *o,
	struct mrc_blast_result *out, char *err, size_t errlen);

#endif
