/* SPDX-License-Identifier: BSD-2-Clause */
/* blast: batched raw sends of mrcgen's own data packets, no transport (see blast.h). */
#include "mrc/wire/blast.h"

#include "mrc/engine/ep.h"
#include "mrc/job/job.h"
#include "mrc/wire/loop.h"
#include "mrc/job/epparams.h"
#include "mrc/wire/sock.h"
#include "mrc/wire/xsk.h"
#include "mrc/engine/srv6.h"
#include "mrc/engine/wire.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BLAST_TX_SLOTS 512u /* as the wire driver's send pool */

struct blast {
	struct mrc_sock_port ports[MRC_BLAST_MAX_PLANES];
	unsigned planes;
	uint64_t rx, rx_bytes, first_rx_ns, last_rx_ns;
	/* wire.dataplane xdp: one AF_XDP port per plane, polled by the loop */
	struct mrc_xsk *xsk[MRC_BLAST_MAX_PLANES];
	int poll_idx[MRC_BLAST_MAX_PLANES];
	int tx_idx[MRC_BLAST_MAX_PLANES];
	struct mrc_loop *loop;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static double rusage_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* An arrival of @len bytes (the inner packet, as the protocol-41 socket hands it over). */
static void count_rx(struct blast *b, size_t len)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);

	if (!b->rx)
		b->first_rx_ns = now;
	b->last_rx_ns = now;
	b->rx++;
	b->rx_bytes += len;
}

static void on_rx(void *ctx, int sock_idx, const uint8_t *buf, size_t len,
	const struct mrc_loop_rx_info *info)
{
	struct blast *b = ctx;

	(void)sock_idx, (void)buf;
	for (unsigned p = 0; p < b->planes; p++)
		if (info->ifindex == (int)b->ports[p].ifindex)
			count_rx(b, len);
}

/* ---- the two dataplanes: a send buffer of plane @p, its commit, one loop turn ---- */

static uint8_t *tx_buf(struct blast *b, unsigned p, size_t *cap)
{
	return b->xsk[p] ? mrc_xsk_tx_buf(b->xsk[p], cap) : mrc_loop_tx_buf(b->loop, cap);
}

static int tx_commit(struct blast *b, unsigned p, const uint8_t *pkt, size_t len)
{
	struct sockaddr_in6 sa;

	if (b->xsk[p])
		return mrc_xsk_tx_commit(b->xsk[p], len);
	mrc_sock_dst_of(pkt, len, &sa);
	return mrc_loop_tx_commit(b->loop, b->tx_idx[p], len, &sa);
}

static unsigned tx_inflight(const struct blast *b)
{
	unsigned n = 0;

	if (!b->xsk[0])
		return mrc_loop_tx_inflight(b->loop);
	for (unsigned p = 0; p < b->planes; p++)
		n += BLAST_TX_SLOTS - mrc_xsk_tx_free(b->xsk[p]);
	return n;
}

static void on_poll(void *ctx, int idx, unsigned revents)
{
	(void)ctx, (void)idx, (void)revents; /* the turn reads the rings afterwards */
}

static int run_once(struct blast *b, uint64_t wait_ns)
{
	int e;

	for (unsigned p = 0; b->xsk[0] && p < b->planes; p++) {
		mrc_xsk_flush(b->xsk[p]);
		if (mrc_xsk_rx_ready(b->xsk[p]))
			wait_ns = 0;
		mrc_loop_arm_poll(b->loop, b->poll_idx[p], POLLIN |
			(mrc_xsk_tx_free(b->xsk[p]) ? 0 : POLLOUT));
	}
	e = mrc_loop_run_once(b->loop, wait_ns);
	for (unsigned p = 0; e >= 0 && b->xsk[0] && p < b->planes; p++) {
		struct mrc_xsk_pkt pk[256];
		unsigned n = mrc_xsk_rx(b->xsk[p], pk, 256);

		for (unsigned i = 0; i < n; i++) {
			count_rx(b, pk[i].len >= 40 ? pk[i].len - 40 : 0);
			mrc_xsk_rx_release(b->xsk[p], pk[i].handle);
		}
		mrc_xsk_flush(b->xsk[p]);
	}
	return e;
}

/* AF_XDP ports (wire.dataplane xdp or auto) for @host, sending the templates @tpl. */
static int open_xsk(struct blast *b, const struct conf_job *job, const struct mrc_job_srv6 *m,
	const struct mrc_blast_opts *o, const uint8_t *tpl, const unsigned *plane, size_t n_tpl,
	char *err, size_t errlen)
{
	struct mrc_xsk_params xp = { .queue = job->wire.xdp_queue, .tx_slots = BLAST_TX_SLOTS,
		.copy = job->wire.xdp_copy == CONF_XC_ZEROCOPY ? MRC_XSK_ZEROCOPY :
			job->wire.xdp_copy == CONF_XC_COPY ? MRC_XSK_COPY : MRC_XSK_AUTO,
		.max_frame = MRC_XDP_ETH_HLEN + job->mrc.mtu + 320, .hugepages = true };
	int e = 0;

	for (unsigned p = 0; p < b->planes && !e; p++) {
		struct mrc_ip6 loc, in;
		char name[16];
		size_t k = 0;

		while (k < n_tpl && plane[k] != p)
			k++;
		xp.ifname = o->ports[p];
		if (!xp.ifname) {
			snprintf(name, sizeof(name), "p%u", p);
			xp.ifname = name;
		}
		if (k == n_tpl || mrc_srv6_host_locator(m->plan, p, o->host, &loc) ||
			mrc_srv6_host_addr(m->plan, p, o->host, &in)) {
			snprintf(err, errlen, "blast: plane %u: no EV or address", p);
			return -EINVAL;
		}
		memcpy(xp.addrs.locator, loc.b, 16);
		memcpy(xp.addrs.inner, in.b, 16);
		e = mrc_xsk_open(&xp, &b->xsk[p], err, errlen);
		e = e ?: mrc_xsk_resolve(b->xsk[p], tpl + k * MRC_PKT_MAX + 24, 2000, err, errlen);
	}
	return e;
}

/* One data packet per EV of the profile, host -> peer; *n_out templates of *len_out bytes. */
static int build_packets(const struct conf_job *job, const struct mrc_job_srv6 *m,
	const struct mrc_blast_opts *o, uint8_t **tpl, unsigned **plane, size_t *n_out,
	uint32_t *len_out, char *err, size_t errlen)
{
	struct mrc_ep_params ep;
	uint32_t mtu = job->mrc.mtu;
	uint8_t *payload = calloc(1, mtu ? mtu : 1);
	int e = mrc_run_ep_params(job, m, conf_fabric_hosts(&job->fabric), 0, &ep);

	*tpl = malloc(m->n_evs * (size_t)MRC_PKT_MAX);
	*plane = calloc(m->n_evs + 1, sizeof(**plane));
	if (e || !payload || !*tpl || !*plane) {
		if (!e)
			mrc_run_ep_params_free(&ep);
		free(payload);
		snprintf(err, errlen, "blast: packets: out of memory");
		return -ENOMEM;
	}
	*n_out = 0;
	for (size_t i = 0; i < m->n_evs; i++) {
		struct mrc_pkt k;
		int n;

		memset(&k, 0, sizeof(k));
		k.opcode = MRC_OP_WRITE_MIDDLE;
		k.hop_limit = 64;
		k.dscp = (uint8_t)job->mrc.dscp.data;
		k.ecn = 2; /* ECT(0), as the endpoint's data */
		k.ev = m->evs[i].ev;
		k.dest_qp = 1;
		k.psn = (uint32_t)i;
		k.payload = payload;
		k.payload_len = mtu;
		e = mrc_srv6_address(m->plan, o->host, o->peer, k.ev, &k);
		if (e) {
			snprintf(err, errlen, "blast: path h%u -> h%u ev 0x%08x: %s", o->host,
				o->peer, k.ev, strerror(-e));
			break;
		}
		n = mrc_wire_encode(&ep.wire, &k, *tpl + *n_out * MRC_PKT_MAX, MRC_PKT_MAX);
		if (n < 0) {
			e = n;
			snprintf(err, errlen, "blast: encode ev 0x%08x: %s", k.ev, strerror(-e));
			break;
		}
		(*plane)[*n_out] = mrc_srv6_ev_plane(&m->params.ev, k.ev);
		*len_out = (uint32_t)n; /* every EV's packet has the same length */
		(*n_out)++;
	}
	mrc_run_ep_params_free(&ep);
	free(payload);
	if (!e && !*n_out) {
		snprintf(err, errlen, "blast: the EV profile is empty");
		e = -EINVAL;
	}
	return e;
}

int mrc_blast_run(const struct conf_job *job, const struct mrc_blast_opts *o,
	struct mrc_blast_result *out, char *err, size_t errlen)
{
	struct mrc_loop_params lp = { .sq_entries = 1024, .rx_bufs = 2048,
		.tx_bufs = BLAST_TX_SLOTS, .tx_buf_size = MRC_PKT_MAX };
	uint32_t hosts = conf_fabric_hosts(&job->fabric);
	unsigned idle_ms = o->idle_ms ? o->idle_ms : 500;
	unsigned timeout_ms = o->timeout_ms ? o->timeout_ms : 60000;
	struct blast b = { .planes = job->fabric.planes };
	struct mrc_job_srv6 m = { 0 };
	struct mrc_loop *loop = NULL;
	struct mrc_loop_counters c;
	struct rusage r0, r1;
	int rx_fd = -1, e;
	uint64_t queued = 0, t0, t_sent = 0, deadline;
	uint8_t *tpl = NULL;
	unsigned *plane = NULL;
	size_t n_tpl = 0;
	uint32_t len = 0;

	memset(out, 0, sizeof(*out));
	for (unsigned p = 0; p < MRC_BLAST_MAX_PLANES; p++)
		b.ports[p].tx_fd = b.ports[p].rx_fd = -1;
	if (o->host >= hosts || o->peer >= hosts || o->host == o->peer || !o->packets ||
		b.planes > MRC_BLAST_MAX_PLANES) {
		snprintf(err, errlen, "blast: h%u -> h%u, %llu packets, %u planes: want two "
			 "different hosts of the %u, packets > 0, at most %d planes", o->host,
			o->peer, (unsigned long long)o->packets, b.planes, hosts,
			MRC_BLAST_MAX_PLANES);
		return -EINVAL;
	}
	e = mrc_job_srv6(job, &m, err, errlen);
	if (e)
		return e;
	e = build_packets(job, &m, o, &tpl, &plane, &n_tpl, &len, err, errlen);
	if (e)
		goto out;
	if (job->wire.dataplane != CONF_DP_SOCKET) {
		e = open_xsk(&b, job, &m, o, tpl, plane, n_tpl, err, errlen);
		if (e && job->wire.dataplane == CONF_DP_XDP)
			goto out;
		if (e) {
			fprintf(stderr, "mrcgen: %s; wire.dataplane auto: raw sockets\n", err);
			for (unsigned p = 0; p < MRC_BLAST_MAX_PLANES; p++) {
				mrc_xsk_close(b.xsk[p]);
				b.xsk[p] = NULL;
			}
		}
	}
	for (unsigned p = 0; !b.xsk[0] && p < b.planes; p++) {
		char name[16];
		const char *ifn = o->ports[p];

		if (!ifn) {
			snprintf(name, sizeof(name), "p%u", p);
			ifn = name;
		}
		e = mrc_sock_port_open(ifn, 0, &b.ports[p], err, errlen);
		if (e)
			goto out;
		close(b.ports[p].rx_fd);
		b.ports[p].rx_fd = -1;
	}
	if (!b.xsk[0]) {
		rx_fd = mrc_sock_rx_open_all(b.planes * (4u << 20), err, errlen);
		if (rx_fd < 0) {
			e = rx_fd;
			goto out;
		}
	}
	e = mrc_loop_new(&lp, &loop, err, errlen);
	if (e)
		goto out;
	b.loop = loop;
	if (b.xsk[0]) {
		for (unsigned p = 0; e >= 0 && p < b.planes; p++)
			e = b.poll_idx[p] = mrc_loop_add_poll(loop, mrc_xsk_fd(b.xsk[p]), on_poll, &b);
	} else {
		e = mrc_loop_add_rx_socket(loop, rx_fd, on_rx, &b);
		for (unsigned p = 0; e >= 0 && p < b.planes; p++)
			e = b.tx_idx[p] = mrc_loop_add_tx_socket(loop, b.ports[p].tx_fd);
	}
	if (e < 0) {
		snprintf(err, errlen, "blast: io_uring: add sockets: %s", strerror(-e));
		goto out;
	}
	e = run_once(&b, 0); /* arm the receive before the peer starts */
	if (e < 0)
		goto ring_fail;
	if (o->start_ns) {
		uint64_t now = clock_ns(CLOCK_REALTIME);

		/* wait in the loop: a peer that starts early is still counted */
		while (now < o->start_ns) {
			uint64_t d = o->start_ns - now;

			e = run_once(&b, d < 10000000ull ? d : 10000000ull);
			if (e < 0)
				goto ring_fail;
			now = clock_ns(CLOCK_REALTIME);
		}
	}
	getrusage(RUSAGE_SELF, &r0);
	t0 = clock_ns(CLOCK_MONOTONIC);
	deadline = t0 + timeout_ms * 1000000ull;
	for (;;) {
		uint64_t now;
		uint8_t *buf;
		size_t cap;

		while (queued < o->packets &&
			(buf = tx_buf(&b, plane[queued % n_tpl], &cap))) {
			size_t k = queued % n_tpl;

			memcpy(buf, tpl + k * MRC_PKT_MAX, len);
			if (tx_commit(&b, plane[k], buf, len) < 0)
				break;
			queued++;
		}
		e = run_once(&b, 1000000ull);
		if (e < 0)
			goto ring_fail;
		now = clock_ns(CLOCK_MONOTONIC);
		if (!t_sent && queued == o->packets && tx_inflight(&b) == 0)
			t_sent = now;
		if (t_sent && (b.rx >= o->packets ||
				now - (b.rx ? b.last_rx_ns : t_sent) > idle_ms * 1000000ull))
			break;
		if (now > deadline)
			break;
	}
	getrusage(RUSAGE_SELF, &r1);
	mrc_loop_get_counters(loop, &c);
	for (unsigned p = 0; b.xsk[0] && p < b.planes; p++) {
		struct mrc_xsk_stats xs;

		mrc_xsk_get_stats(b.xsk[p], &xs);
		c.tx += xs.tx;
		c.send_errors += xs.tx_kick_errors;
		c.sock_drops += xs.k_rx_dropped + xs.k_rx_ring_full + xs.rx_dropped;
	}
	out->xdp = b.xsk[0] != NULL;
	out->pkt_bytes = len;
	out->payload_bytes = job->mrc.mtu;
	out->evs = (unsigned)n_tpl;
	out->sent = c.tx;
	out->send_errors = c.send_errors;
	out->send_s = (double)((t_sent ? t_sent : clock_ns(CLOCK_MONOTONIC)) - t0) / 1e9;
	out->received = b.rx;
	out->received_bytes = b.rx_bytes;
	out->recv_s = b.rx ? (double)(b.last_rx_ns - b.first_rx_ns) / 1e9 : 0;
	out->sock_drops = c.sock_drops;
	out->cpu_user_s = rusage_s(&r1.ru_utime) - rusage_s(&r0.ru_utime);
	out->cpu_sys_s = rusage_s(&r1.ru_stime) - rusage_s(&r0.ru_stime);
	e = 0;
	goto out;
ring_fail:
	snprintf(err, errlen, "blast: io_uring: %s", strerror(-e));
out:
	mrc_loop_free(loop);
	for (unsigned p = 0; p < MRC_BLAST_MAX_PLANES; p++)
		mrc_xsk_close(b.xsk[p]);
	if (rx_fd >= 0)
		close(rx_fd);
	for (unsigned p = 0; p < MRC_BLAST_MAX_PLANES; p++)
		mrc_sock_port_close(&b.ports[p]);
	free(tpl);
	free(plane);
	mrc_job_srv6_free(&m);
	return e;
}
