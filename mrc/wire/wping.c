/* SPDX-License-Identifier: BSD-2-Clause */
/* wping: MRC PROBE per EV over raw sockets and io_uring, checked at the peer (wping.h). */
#include "mrc/wire/wping.h"

#include "mrc/base/bytes.h"
#include "mrc/wire/loop.h"
#include "mrc/wire/netns.h"
#include "mrc/wire/sock.h"
#include "mrc/wire/xsk.h"
#include "mrc/engine/wire.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WP_INNER_LEN (MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN + MRC_PETH_LEN + MRC_ICRC_LEN)
#define WP_PKT_LEN   (MRC_IP6_HLEN + WP_INNER_LEN)
#define WP_ECT0	     2

int mrc_wping_build(const struct mrc_srv6_path *path, uint16_t probe_id, uint16_t tx_ts,
	uint8_t *buf, size_t cap)
{
	struct mrc_wire_cfg cfg;
	struct mrc_pkt p;

	if (cap < WP_PKT_LEN)
		return -ENOSPC;
	mrc_wire_cfg_default(&cfg);
	memset(&p, 0, sizeof(p));
	p.outer_src = path->src_addr;
	p.outer_dst = path->container;
	p.ecn = WP_ECT0;
	p.src = path->src_addr;
	p.dst = path->dst_addr;
	p.ev = path->ev;
	p.opcode = MRC_OP_PROBE;
	p.pkey = 0xffff; /* default P_Key; DestQP 0, PSN 0: a probe consumes no PSN */
	p.peth.probe_id = probe_id;
	p.peth.tx_ts = tx_ts;
	return mrc_wire_encode(&cfg, &p, buf, cap);
}

int mrc_wping_probe_id(const uint8_t *inner, size_t len, uint16_t *probe_id)
{
	struct mrc_wire_cfg cfg;
	struct mrc_pkt p;

	/* the id alone: a damaged probe still matches and is then reported corrupt */
	mrc_wire_cfg_default(&cfg);
	cfg.check_icrc = cfg.check_csum = false;
	if (len < MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN + MRC_PETH_LEN)
		return -EMSGSIZE;
	if (mrc_wire_decode(&cfg, inner, len, false, &p) != MRC_WIRE_OK ||
		p.opcode != MRC_OP_PROBE)
		return -EPROTO;
	*probe_id = p.peth.probe_id;
	return 0;
}

/* ---- running ---- */

struct wp_ctx {
	uint8_t want[WP_INNER_LEN];
	uint16_t probe_id;
	int want_sock;
	bool got, corrupt;
	int tclass;
	struct timespec t_rx;
};

static void wp_on_rx(void *ctx, int sock_idx, const uint8_t *buf, size_t len,
	const struct mrc_loop_rx_info *info)
{
	struct wp_ctx *c = ctx;
	uint16_t id;

	if (c->got || mrc_wping_probe_id(buf, len, &id) < 0 || id != c->probe_id)
		return; /* not the probe in flight (a late one, or other traffic) */
	clock_gettime(CLOCK_MONOTONIC, &c->t_rx);
	c->got = true;
	c->corrupt = sock_idx != c->want_sock || len != WP_INNER_LEN ||
		     memcmp(buf, c->want, WP_INNER_LEN) != 0;
	c->tclass = info->tclass;
}

/* Opens the ports of every plane inside @ns; keeps the tx (or rx) socket only. */
static int open_ports(const struct mrc_wping_opts *o, unsigned planes, const char *ns, bool tx,
	struct mrc_sock_port *ports, char *err, size_t errlen)
{
	char name[16];
	int saved = -1, ret = ns ? mrc_netns_enter(ns, &saved, "wire-ping", err, errlen) : 0;

	if (ret < 0)
		return ret;
	for (unsigned p = 0; p < planes; p++) {
		const char *ifn = o->ports[p];

		if (!ifn) {
			snprintf(name, sizeof(name), "p%u", p);
			ifn = name;
		}
		ret = mrc_sock_port_open(ifn, 0, &ports[p], err, errlen);
		if (ret < 0)
			break;
		if (tx) {
			close(ports[p].rx_fd);
			ports[p].rx_fd = -1;
		} else {
			close(ports[p].tx_fd);
			ports[p].tx_fd = -1;
		}
	}
	mrc_netns_leave(saved, "wire-ping");
	return ret;
}

/* ---- AF_XDP (wire.dataplane xdp): the two ends' ports, as the xdp dataplane opens them ---- */

struct wp_xsk {
	struct mrc_xsk *src[MRC_WPING_MAX_PLANES], *dst[MRC_WPING_MAX_PLANES];
	int poll[MRC_WPING_MAX_PLANES];
};

static void wp_xsk_close(struct wp_xsk *x)
{
	for (unsigned p = 0; p < MRC_WPING_MAX_PLANES; p++) {
		mrc_xsk_close(x->src[p]);
		mrc_xsk_close(x->dst[p]);
		x->src[p] = x->dst[p] = NULL;
	}
}

/* Opens host @host's ports inside @ns (sending ones learn their next hop toward @o->dst). */
static int wp_xsk_open(const struct mrc_wping_opts *o, unsigned planes, const char *ns,
	uint32_t host, struct mrc_xsk **ports, bool tx, char *err, size_t errlen)
{
	struct mrc_xsk_params xp = { .queue = o->wire->xdp_queue,
		.copy = o->wire->xdp_copy == CONF_XC_ZEROCOPY ? MRC_XSK_ZEROCOPY :
			o->wire->xdp_copy == CONF_XC_COPY ? MRC_XSK_COPY : MRC_XSK_AUTO,
		.max_frame = MRC_XDP_ETH_HLEN + o->mtu + 320, .rx_frames = 256, .tx_slots = 64,
		.reasm_slots = 16 };
	int saved = -1, ret = ns ? mrc_netns_enter(ns, &saved, "wire-ping", err, errlen) : 0;

	if (xp.max_frame > MRC_XSK_MAX_FRAME)
		xp.max_frame = MRC_XSK_MAX_FRAME;
	for (unsigned p = 0; !ret && p < planes; p++) {
		struct mrc_ip6 loc, in;
		struct mrc_srv6_path path;
		char name[16];
		size_t i = 0;

		xp.ifname = o->ports[p];
		if (!xp.ifname) {
			snprintf(name, sizeof(name), "p%u", p);
			xp.ifname = name;
		}
		mrc_srv6_host_locator(o->plan, p, host, &loc);
		mrc_srv6_host_addr(o->plan, p, host, &in);
		memcpy(xp.addrs.locator, loc.b, 16);
		memcpy(xp.addrs.inner, in.b, 16);
		ret = mrc_xsk_open(&xp, &ports[p], err, errlen);
		while (!ret && tx && i < o->n_evs &&
			(mrc_srv6_path(o->plan, o->src, o->dst, o->evs[i], &path) || path.plane != p))
			i++;
		if (!ret && tx && i < o->n_evs)
			ret = mrc_xsk_resolve(ports[p], path.container.b, 2000, err, errlen);
	}
	mrc_netns_leave(saved, "wire-ping");
	return ret;
}

static void wp_on_poll(void *ctx, int idx, unsigned revents)
{
	(void)ctx, (void)idx, (void)revents; /* the turn reads the rings afterwards */
}

/* One turn on AF_XDP: completions, then what came in, as the raw socket would hand it. */
static int wp_xsk_turn(struct wp_xsk *x, unsigned planes, struct mrc_loop *loop,
	struct wp_ctx *ctx, uint64_t wait_ns)
{
	int e;

	for (unsigned p = 0; p < planes; p++) {
		mrc_xsk_flush(x->src[p]);
		mrc_loop_arm_poll(loop, x->poll[p], POLLIN);
	}
	e = mrc_loop_run_once(loop, wait_ns);
	for (unsigned p = 0; e >= 0 && p < planes; p++) {
		struct mrc_xsk_pkt pk[16];
		unsigned n = mrc_xsk_rx(x->dst[p], pk, 16);

		for (unsigned i = 0; i < n; i++) {
			struct mrc_loop_rx_info info = { .tclass = (pk[i].ip6[0] & 0xf) << 4 |
				pk[i].ip6[1] >> 4 };

			if (pk[i].len > 40 && pk[i].ip6[6] == 41)
				wp_on_rx(ctx, (int)p, pk[i].ip6 + 40, pk[i].len - 40, &info);
			mrc_xsk_rx_release(x->dst[p], pk[i].handle);
		}
		mrc_xsk_flush(x->dst[p]);
	}
	return e;
}

static double ts_us(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 + (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

int mrc_wping_run(const struct mrc_wping_opts *o, FILE *out, char *err, size_t errlen)
{
	struct mrc_sock_port src[MRC_WPING_MAX_PLANES], dst[MRC_WPING_MAX_PLANES];
	int tx_idx[MRC_WPING_MAX_PLANES], rx_idx[MRC_WPING_MAX_PLANES];
	unsigned planes = mrc_srv6_plan_params(o->plan)->planes;
	unsigned timeout_ms = o->timeout_ms ? o->timeout_ms : 200;
	struct mrc_loop_params lp = { .sq_entries = 64, .rx_bufs = 64, .tx_bufs = 64 };
	struct mrc_loop *loop = NULL;
	struct wp_xsk xk;
	bool xdp = o->wire && o->wire->dataplane != CONF_DP_SOCKET;
	struct wp_ctx ctx;
	size_t ok = 0;
	int ret;

	memset(&xk, 0, sizeof(xk));

	if (planes > MRC_WPING_MAX_PLANES) {
		snprintf(err, errlen, "wire-ping: planes: more than %d '%u'", MRC_WPING_MAX_PLANES,
			planes);
		return -EINVAL;
	}
	for (unsigned p = 0; p < MRC_WPING_MAX_PLANES; p++)
		src[p].tx_fd = src[p].rx_fd = dst[p].tx_fd = dst[p].rx_fd = -1;
	if (xdp) {
		ret = wp_xsk_open(o, planes, o->netns, o->src, xk.src, true, err, errlen);
		if (!ret)
			ret = wp_xsk_open(o, planes, o->peer_netns, o->dst, xk.dst, false, err,
				errlen);
		if (ret && o->wire->dataplane == CONF_DP_XDP)
			goto close_ports;
		if (ret)
			fprintf(stderr, "mrcgen: %s; wire.dataplane auto: raw sockets\n", err);
		xdp = !ret;
		if (ret)
			wp_xsk_close(&xk);
	}
	ret = xdp ? 0 : open_ports(o, planes, o->netns, true, src, err, errlen);
	if (ret < 0)
		goto close_ports;
	ret = xdp ? 0 : open_ports(o, planes, o->peer_netns, false, dst, err, errlen);
	if (ret < 0)
		goto close_ports;
	ret = mrc_loop_new(&lp, &loop, err, errlen);
	if (ret < 0)
		goto close_ports;
	memset(&ctx, 0, sizeof(ctx));
	for (unsigned p = 0; xdp && p < planes; p++) {
		rx_idx[p] = (int)p;
		xk.poll[p] = mrc_loop_add_poll(loop, mrc_xsk_fd(xk.dst[p]), wp_on_poll, &ctx);
		if (xk.poll[p] < 0) {
			ret = -ENOSPC;
			snprintf(err, errlen, "wire-ping: loop: too many sockets");
			goto free_loop;
		}
	}
	for (unsigned p = 0; !xdp && p < planes; p++) {
		tx_idx[p] = mrc_loop_add_tx_socket(loop, src[p].tx_fd);
		rx_idx[p] = mrc_loop_add_rx_socket(loop, dst[p].rx_fd, wp_on_rx, &ctx);
		if (tx_idx[p] < 0 || rx_idx[p] < 0) {
			ret = -ENOSPC;
			snprintf(err, errlen, "wire-ping: loop: too many sockets");
			goto free_loop;
		}
	}
	if (xdp)
		wp_xsk_turn(&xk, planes, loop, &ctx, 0);
	else
		mrc_loop_run_once(loop, 0); /* arm the receives before the first probe */

	for (size_t i = 0; i < o->n_evs; i++) {
		struct mrc_srv6_path path;
		struct sockaddr_in6 sa;
		struct timespec t0, now;
		uint8_t pkt[WP_PKT_LEN];
		char cont[64], t1[32] = "-";
		int len;

		ret = mrc_srv6_path(o->plan, o->src, o->dst, o->evs[i], &path);
		if (ret < 0) {
			snprintf(err, errlen, "wire-ping: path: h%u -> h%u ev 0x%08x: %s", o->src,
				o->dst, o->evs[i], strerror(-ret));
			goto free_loop;
		}
		if (path.via_t1)
			snprintf(t1, sizeof(t1), "p%u.t1.%u", path.plane, path.spine);
		mrc_srv6_addr_str(&path.container, cont, sizeof(cont));
		clock_gettime(CLOCK_MONOTONIC, &t0);
		len = mrc_wping_build(&path, (uint16_t)(i + 1),
			(uint16_t)(((uint64_t)t0.tv_sec * 1000000000ull +
				(uint64_t)t0.tv_nsec) >> 10),
			pkt, sizeof(pkt));
		ctx.probe_id = (uint16_t)(i + 1);
		ctx.want_sock = rx_idx[path.plane];
		ctx.got = ctx.corrupt = false;
		memcpy(ctx.want, pkt + MRC_IP6_HLEN, WP_INNER_LEN);
		if (xdp) {
			size_t cap;
			uint8_t *b = mrc_xsk_tx_buf(xk.src[path.plane], &cap);

			ret = b && (size_t)len <= cap ? 0 : -ENOBUFS;
			if (!ret) {
				memcpy(b, pkt, (size_t)len);
				ret = mrc_xsk_tx_commit(xk.src[path.plane], (size_t)len);
			}
		} else {
			mrc_sock_dst_of(pkt, (size_t)len, &sa);
			ret = mrc_loop_send(loop, tx_idx[path.plane], pkt, (size_t)len, &sa);
		}
		if (ret < 0) {
			snprintf(err, errlen, "wire-ping: send: ev 0x%08x: %s", path.ev,
				strerror(-ret));
			goto free_loop;
		}
		do {
			ret = xdp ? wp_xsk_turn(&xk, planes, loop, &ctx, 5000000ull) :
				mrc_loop_run_once(loop, 5000000ull);
			if (ret < 0) {
				snprintf(err, errlen, "wire-ping: io_uring: %s", strerror(-ret));
				goto free_loop;
			}
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (!ctx.got && ts_us(&t0, &now) < timeout_ms * 1000.0);
		fprintf(out, "ev 0x%08x plane %u t1 %s %s ", path.ev, path.plane, t1, cont);
		if (!ctx.got)
			fprintf(out, "lost\n");
		else if (ctx.corrupt)
			fprintf(out, "corrupt\n");
		else {
			ok++;
			fprintf(out, "ok %.1f us tclass 0x%02x\n", ts_us(&t0, &ctx.t_rx),
				(unsigned)ctx.tclass & 0xff);
		}
	}
	{
		struct mrc_loop_counters c;

		mrc_loop_get_counters(loop, &c);
		for (unsigned p = 0; xdp && p < planes; p++) {
			struct mrc_xsk_stats xs;

			mrc_xsk_get_stats(xk.src[p], &xs);
			c.tx += xs.tx;
			c.send_errors += xs.tx_kick_errors;
			if (xs.last_kick_error)
				c.last_send_error = xs.last_kick_error;
		}
		fprintf(out, "wire-ping: %zu/%zu paths ok (tx %llu, send errors %llu%s%s)%s\n",
			ok, o->n_evs, (unsigned long long)c.tx, (unsigned long long)c.send_errors,
			c.last_send_error ? ", last: " : "",
			c.last_send_error ? strerror(-c.last_send_error) : "",
			xdp ? ", AF_XDP" : "");
	}
	ret = (int)(o->n_evs - ok);
free_loop:
	mrc_loop_free(loop);
close_ports:
	wp_xsk_close(&xk);
	for (unsigned p = 0; p < MRC_WPING_MAX_PLANES; p++) {
		mrc_sock_port_close(&src[p]);
		mrc_sock_port_close(&dst[p]);
	}
	return ret;
}
