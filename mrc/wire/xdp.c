/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xdp: a wire rank's AF_XDP dataplane (docs/wire-xdp.md): one mrc/wire/xsk port per plane,
 * the engine encoding straight into UMEM send slots, arrivals handed to wr_rx as the raw
 * sockets would hand them (the inner packet, the outer header's CE), io_uring polling the
 * sockets, waiting no longer than the engine's next timer.
 */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/engine/srv6.h"
#include "mrc/wire/xsk.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XDP_RX_BATCH 256u
#define XDP_WAIT_TX_NS 50000ull /* a turn waiting for send slots wakes after 50 us */
#define XDP_MAX_HDRS 320u	/* headers beyond mrc.mtu a packet may carry (SRH included) */

struct wr_xdp {
	struct mrc_xsk *port[MRC_WIRERUN_MAX_PLANES];
	int poll_idx[MRC_WIRERUN_MAX_PLANES];
	uint64_t rx_bad;	/* arrivals whose headers the dataplane could not follow */
	uint64_t tx_refused;	/* packets the port refused to queue */
};

/* ---- receive ---- */

/*
 * The packet the raw sockets would deliver from an arrival whose IPv6 header is at @ip
 * (@len bytes): past the outer header (and an SRH) for EV format srv6, the packet itself
 * for UDP (stev, udp). Returns the inner packet's offset and sets *@ilen, or -1.
 */
static int inner_of(const uint8_t *ip, size_t len, size_t *ilen)
{
	size_t plen, hl;

	if (len < 40)
		return -1;
	plen = get_be16(ip + 4);
	if (40 + plen > len)
		return -1;
	switch (ip[6]) {
	case 41:
		*ilen = plen;
		return 40;
	case 43:
		if (plen < 8)
			return -1;
		hl = 8 + 8 * (size_t)ip[41];
		if (hl > plen)
			return -1;
		*ilen = plen - hl;
		return (int)(40 + hl);
	case 17:
		*ilen = 40 + plen;
		return 0;
	default:
		return -1;
	}
}

static void rx_port(struct wr *w, unsigned plane)
{
	struct mrc_xsk *x = w->xdp->port[plane];
	struct mrc_xsk_pkt pk[XDP_RX_BATCH];
	unsigned n = mrc_xsk_rx(x, pk, XDP_RX_BATCH);

	for (unsigned i = 0; i < n; i++) {
		size_t ilen;
		int off = inner_of(pk[i].ip6, pk[i].len, &ilen);

		if (off < 0)
			w->xdp->rx_bad++;
		else
			wr_rx(w, plane, pk[i].ip6 + off, ilen, ((pk[i].ip6[1] >> 4) & 3) == 3);
		mrc_xsk_rx_release(x, pk[i].handle);
	}
}

/* ---- the dataplane's operations ---- */

static uint8_t *xdp_tx_buf(struct wr *w, unsigned plane, size_t *cap)
{
	return mrc_xsk_tx_buf(w->xdp->port[plane], cap);
}

static void xdp_tx_commit(struct wr *w, unsigned plane, const uint8_t *pkt, size_t n)
{
	(void)pkt;
	/* the slot stays free: a packet longer than a slot (the engine's are not), or a
	 * full ring (never: it holds every slot's descriptors) */
	if (mrc_xsk_tx_commit(w->xdp->port[plane], n))
		w->xdp->tx_refused++;
}

static void on_poll(void *ctx, int idx, unsigned revents)
{
	(void)ctx, (void)idx, (void)revents; /* the turn reads the rings afterwards */
}

static int xdp_run_once(struct wr *w, uint64_t wait_ns)
{
	struct wr_xdp *d = w->xdp;
	int e, n = 0;

	for (unsigned p = 0; p < w->planes; p++) {
		struct mrc_xsk *x = d->port[p];
		bool blocked;

		mrc_xsk_flush(x);
		blocked = !mrc_xsk_tx_free(x);
		if (mrc_xsk_rx_ready(x))
			wait_ns = 0;
		else if (blocked && wait_ns > XDP_WAIT_TX_NS)
			wait_ns = XDP_WAIT_TX_NS;
		mrc_loop_arm_poll(w->loop, d->poll_idx[p], POLLIN | (blocked ? POLLOUT : 0));
	}
	e = mrc_loop_run_once(w->loop, wait_ns);
	if (e < 0)
		return e;
	for (unsigned p = 0; p < w->planes; p++) {
		rx_port(w, p);
		n += (int)mrc_xsk_flush(d->port[p]);
	}
	return e + n;
}

static void xdp_counters(struct wr *w, struct mrc_run_result *r)
{
	struct mrc_loop_counters lc;

	mrc_loop_get_counters(w->loop, &lc);
	r->host_cq_overflows = lc.cq_overflow;
	r->host_cq_dropped = lc.cq_dropped;
	r->host_foreign = w->xdp->rx_bad;
	r->host_send_errors = w->xdp->tx_refused;
	r->xdp_ranks = 1;
	w->last_send_error = 0;
	for (unsigned p = 0; p < w->planes; p++) {
		struct mrc_xsk_stats s;

		mrc_xsk_get_stats(w->xdp->port[p], &s);
		r->injected += s.tx;
		r->delivered += s.rx;
		r->host_send_errors += s.tx_kick_errors;
		if (s.last_kick_error)
			w->last_send_error = s.last_kick_error;
		r->host_socket_drops += s.k_rx_dropped + s.k_rx_ring_full + s.rx_dropped;
		r->xdp_ports++;
		r->xdp_zc_ports += mrc_xsk_info(w->xdp->port[p])->zero_copy;
		r->xdp_malformed += s.prog[MRC_XDP_MALFORMED];
		r->xdp_no_xsk += s.prog[MRC_XDP_NO_XSK];
		r->xdp_passed += s.prog[MRC_XDP_PASS];
		r->xdp_reassembled += s.rx_reassembled;
	}
}

static void xdp_close(struct wr *w)
{
	mrc_loop_free(w->loop);
	w->loop = NULL;
	for (unsigned p = 0; w->xdp && p < MRC_WIRERUN_MAX_PLANES; p++)
		mrc_xsk_close(w->xdp->port[p]);
	free(w->xdp);
	w->xdp = NULL;
}

static const struct wr_dp xdp_dp = { "xdp", xdp_tx_buf, xdp_tx_commit, xdp_run_once,
	xdp_counters, xdp_close };

/* ---- setup ---- */

/* An outer destination port @p sends to (a path to another host on that plane), whose
 * route gives the next hop. */
static int probe_dst(const struct wr *w, unsigned p, uint8_t dst[16])
{
	uint32_t peer = w->rank ? 0 : 1;

	for (size_t i = 0; i < w->m.n_evs; i++) {
		struct mrc_srv6_path path;

		if (mrc_srv6_ev_plane(&w->m.params.ev, w->m.evs[i].ev) != p ||
			mrc_srv6_path(w->m.plan, w->rank, peer, w->m.evs[i].ev, &path))
			continue;
		memcpy(dst, w->job->mrc.ev_format == CONF_EV_SRV6 ? path.container.b :
			path.dst_addr.b, 16);
		return 0;
	}
	return -ENOENT;
}

int wr_xdp_open(struct wr *w, char *err, size_t errlen)
{
	const struct conf_wire *c = &w->job->wire;
	struct mrc_xsk_params xp = {
		.queue = c->xdp_queue,
		.copy = c->xdp_copy == CONF_XC_ZEROCOPY ? MRC_XSK_ZEROCOPY :
			c->xdp_copy == CONF_XC_COPY ? MRC_XSK_COPY : MRC_XSK_AUTO,
		.max_frame = MRC_XDP_ETH_HLEN + w->job->mrc.mtu + XDP_MAX_HDRS,
		.hugepages = true,
	};
	int e = 0;

	if (xp.max_frame > MRC_XSK_MAX_FRAME)
		xp.max_frame = MRC_XSK_MAX_FRAME;
	w->xdp = calloc(1, sizeof(*w->xdp));
	if (!w->xdp)
		return -ENOMEM;
	for (unsigned p = 0; p < w->planes && !e; p++) {
		struct mrc_ip6 loc, in;
		uint8_t dst[16];
		char name[16];

		xp.ifname = wr_port_name(w, p, name, sizeof(name));
		e = mrc_srv6_host_locator(w->m.plan, p, w->rank, &loc);
		e = e ?: mrc_srv6_host_addr(w->m.plan, p, w->rank, &in);
		e = e ?: probe_dst(w, p, dst);
		if (e) {
			snprintf(err, errlen, "xdp: port '%s': plane %u has no address or path "
				"from h%u: %s", xp.ifname, p, w->rank, strerror(-e));
			break;
		}
		memcpy(xp.addrs.locator, loc.b, 16);
		memcpy(xp.addrs.inner, in.b, 16);
		e = mrc_xsk_open(&xp, &w->xdp->port[p], err, errlen);
		e = e ?: mrc_xsk_resolve(w->xdp->port[p], dst, 2000, err, errlen);
	}
	if (e) {
		xdp_close(w);
		return e;
	}
	w->dp = &xdp_dp;
	for (unsigned p = 0; p < w->planes; p++) {
		const struct mrc_xsk_info *i = mrc_xsk_info(w->xdp->port[p]);
		char name[16];

		fprintf(stderr, "h%u: xdp: port %s (%s, queue %u of %u): %s%s%s\n", w->rank,
			wr_port_name(w, p, name, sizeof(name)), i->driver, c->xdp_queue, i->queues,
			i->zero_copy ? "zero copy" : "copy mode",
			i->multi_buffer ? ", multi-buffer" : "", i->hugepages ? ", hugepages" : "");
	}
	return 0;
}

int wr_xdp_setup_loop(struct wr *w, char *err, size_t errlen)
{
	struct mrc_loop_params lp = { .sq_entries = 256, .rx_bufs = 16, .tx_bufs = 16 };
	int e = mrc_loop_new(&lp, &w->loop, err, errlen);

	for (unsigned p = 0; !e && p < w->planes; p++) {
		w->xdp->poll_idx[p] = mrc_loop_add_poll(w->loop, mrc_xsk_fd(w->xdp->port[p]),
			on_poll, w);
		if (w->xdp->poll_idx[p] < 0) {
			e = w->xdp->poll_idx[p];
			snprintf(err, errlen, "io_uring: poll of port %u: %s", p, strerror(-e));
		}
	}
	return e;
}

int wr_xdp_start(struct wr *w, char *err, size_t errlen)
{
	(void)w, (void)err, (void)errlen;
	return 0;
}
