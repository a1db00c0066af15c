/* SPDX-License-Identifier: BSD-2-Clause */
/* blast: batched raw sends of mrcgen's own data packets, no transport (see blast.h). */
#include "mrc/wire/blast.h"

#include "mrc/engine/ep.h"
#include "mrc/job/job.h"
#include "mrc/wire/loop.h"
#include "mrc/job/epparams.h"
#include "mrc/wire/sock.h"
#include "mrc/engine/srv6.h"
#include "mrc/engine/wire.h"

#include <errno.h>
#include <netinet/in.h>
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

static void on_rx(void *ctx, int sock_idx, const uint8_t *buf, size_t len,
	const struct mrc_loop_rx_info *info)
{
	struct blast *b = ctx;

	(void)sock_idx, (void)buf;
	for (unsigned p = 0; p < b->planes; p++) {
		if (info->ifindex == (int)b->ports[p].ifindex) {
			uint64_t now = clock_ns(CLOCK_MONOTONIC);

			if (!b->rx)
				b->first_rx_ns = now;
			b->last_rx_ns = now;
			b->rx++;
			b->rx_bytes += len;
			return;
		}
	}
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
	int tx_idx[MRC_BLAST_MAX_PLANES], rx_fd = -1, e;
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
	for (unsigned p = 0; p < b.planes; p++) {
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
	rx_fd = mrc_sock_rx_open_all(b.planes * (4u << 20), err, errlen);
	if (rx_fd < 0) {
		e = rx_fd;
		goto out;
	}
	e = mrc_loop_new(&lp, &loop, err, errlen);
	if (e)
		goto out;
	e = mrc_loop_add_rx_socket(loop, rx_fd, on_rx, &b);
	for (unsigned p = 0; e >= 0 && p < b.planes; p++)
		e = tx_idx[p] = mrc_loop_add_tx_socket(loop, b.ports[p].tx_fd);
	if (e < 0) {
		snprintf(err, errlen, "blast: io_uring: add sockets: %s", strerror(-e));
		goto out;
	}
	e = mrc_loop_run_once(loop, 0); /* arm the receive before the peer starts */
	if (e < 0)
		goto ring_fail;
	if (o->start_ns) {
		uint64_t now = clock_ns(CLOCK_REALTIME);

		/* wait in the loop: a peer that starts early is still counted */
		while (now < o->start_ns) {
			uint64_t d = o->start_ns - now;

			e = mrc_loop_run_once(loop, d < 10000000ull ? d : 10000000ull);
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

		while (queued < o->packets && (buf = mrc_loop_tx_buf(loop, &cap))) {
			size_t k = queued % n_tpl;

			memcpy(buf, tpl + k * MRC_PKT_MAX, len);
			{
				struct sockaddr_in6 sa;

				mrc_sock_dst_of(buf, len, &sa);
				e = mrc_loop_tx_commit(loop, tx_idx[plane[k]], len, &sa);
			}
			if (e < 0)
				break;
			queued++;
		}
		e = mrc_loop_run_once(loop, 1000000ull);
		if (e < 0)
			goto ring_fail;
		now = clock_ns(CLOCK_MONOTONIC);
		if (!t_sent && queued == o->packets && mrc_loop_tx_inflight(loop) == 0)
			t_sent = now;
		if (t_sent && (b.rx >= o->packets ||
				now - (b.rx ? b.last_rx_ns : t_sent) > idle_ms * 1000000ull))
			break;
		if (now > deadline)
			break;
	}
	getrusage(RUSAGE_SELF, &r1);
	mrc_loop_get_counters(loop, &c);
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
	if (rx_fd >= 0)
		close(rx_fd);
	for (unsigned p = 0; p < MRC_BLAST_MAX_PLANES; p++)
		mrc_sock_port_close(&b.ports[p]);
	free(tpl);
	free(plane);
	mrc_job_srv6_free(&m);
	return e;
}
