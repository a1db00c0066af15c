/* SPDX-License-Identifier: BSD-2-Clause */
/* loop_test: unit tests of mrc/wire/loop.c (`mrcgen-test loop`). */
#include "mrc/wire/loop.c"
#include "mrc/base/st.h"

/* ---- selftest (C13) ---- */


#include <net/if.h>
#include <unistd.h>

/* A UDP socket bound to [::1]:0; its address in @sa. -1 on failure. */
static int st_udp6(struct sockaddr_in6 *sa)
{
	socklen_t sl = sizeof(*sa);
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	memset(sa, 0, sizeof(*sa));
	sa->sin6_family = AF_INET6;
	sa->sin6_addr = in6addr_loopback;
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) < 0 ||
		getsockname(fd, (struct sockaddr *)sa, &sl) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct st_rx {
	unsigned n;
	unsigned in_order; /* datagrams whose sequence byte matched their arrival index */
	size_t last_len;
	struct mrc_loop_rx_info last;
};

static void st_on_rx(void *ctx, int sock_idx, const uint8_t *buf, size_t len,
	const struct mrc_loop_rx_info *info)
{
	struct st_rx *r = ctx;

	(void)sock_idx;
	if (len >= 2 && buf[0] == 0xA5 && buf[1] == (uint8_t)r->n)
		r->in_order++;
	r->n++;
	r->last_len = len;
	r->last = *info;
}

/* Runs @l until @r has @want datagrams or 200 turns of 10 ms passed. */
static void st_run_until(struct mrc_loop *l, struct st_rx *r, unsigned want)
{
	for (int i = 0; i < 200 && r->n < want; i++)
		if (mrc_loop_run_once(l, 10000000ull) < 0)
			break;
}

MRC_SELFTEST(loop)
{
	struct mrc_loop_params lp = { .rx_bufs = 4, .rx_buf_size = 320, .tx_bufs = 16 };
	struct mrc_loop_counters c;
	struct mrc_loop_layout lay;
	struct sockaddr_in6 rsa, ssa;
	struct mrc_loop *l = NULL;
	struct st_rx r;
	uint8_t pkt[400];
	char err[256] = "";
	int rfd, sfd, ridx, sidx, one = 1;

	mrc_st_case(st, "C13 namelen 28, no control: payload at 44, res 1444 -> 1400, cap 2004");
	ST_EQ_I(st, mrc_loop_rx_layout(28, 0, 1444, 2048, &lay), 0);
	ST_EQ(st, lay.payload_off, 44);
	ST_EQ(st, lay.payload_len, 1400);
	ST_EQ(st, lay.payload_cap, 2004);

	mrc_st_case(st, "C13 SO_TIMESTAMPNS control CMSG_SPACE(16) = 32: payload at 76");
	ST_EQ(st, CMSG_SPACE(sizeof(struct timespec)), 32);
	ST_EQ_I(st, mrc_loop_rx_layout(28, 32, 1476, 2048, &lay), 0);
	ST_EQ(st, lay.payload_off, 76);
	ST_EQ(st, lay.payload_len, 1400);
	ST_EQ(st, lay.payload_cap, 1972);

	mrc_st_case(st, "C13 res shorter than the header area is refused");
	ST_EQ_I(st, mrc_loop_rx_layout(28, 0, 43, 2048, &lay), -EMSGSIZE);
	ST_EQ_I(st, mrc_loop_rx_layout(28, 0, -ENOBUFS, 2048, &lay), -EMSGSIZE);
	ST_EQ_I(st, mrc_loop_rx_layout(28, 32, 100, 60, &lay), -EMSGSIZE);

	mrc_st_case(st, "C13 liburing's recvmsg helpers agree: offset 76, 1400 payload bytes");
	{
		static uint8_t b[2048];
		struct msghdr m = { .msg_namelen = 28, .msg_controllen = 32 };
		struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(b, 1476, &m);

		ST_TRUE(st, o != NULL);
		if (o) {
			ST_EQ(st, (uint8_t *)io_uring_recvmsg_payload(o, &m) - b, 76);
			ST_EQ(st, io_uring_recvmsg_payload_length(o, 1476, &m), 1400);
			ST_EQ(st, (uint8_t *)io_uring_recvmsg_name(o) - b, 16);
		}
		ST_TRUE(st, io_uring_recvmsg_validate(b, 75, &m) == NULL);
	}

	mrc_st_case(st,
		"C13 64 datagrams into a 4-buffer ring: all arrive, re-armed after ENOBUFS");
	rfd = st_udp6(&rsa);
	sfd = st_udp6(&ssa);
	ST_TRUE(st, rfd >= 0 && sfd >= 0);
	if (rfd < 0 || sfd < 0)
		goto close_socks;
	if (mrc_loop_new(&lp, &l, err, sizeof(err)) < 0) {
		mrc_st_check(st, false, __FILE__, __LINE__, "mrc_loop_new: %s", err);
		goto close_socks;
	}
	setsockopt(rfd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one));
	setsockopt(rfd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
	setsockopt(rfd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	setsockopt(rfd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
	memset(pkt, 0, sizeof(pkt));
	pkt[0] = 0xA5;
	for (unsigned i = 0; i < 64; i++) {
		pkt[1] = (uint8_t)i;
		sendto(sfd, pkt, 100, 0, (struct sockaddr *)&rsa, sizeof(rsa));
	}
	memset(&r, 0, sizeof(r));
	ridx = mrc_loop_add_rx_socket(l, rfd, st_on_rx, &r);
	ST_EQ_I(st, ridx, 0);
	st_run_until(l, &r, 64);
	mrc_loop_get_counters(l, &c);
	ST_EQ(st, r.n, 64);
	ST_EQ(st, r.in_order, 64);
	ST_EQ(st, c.rx, 64);
	ST_EQ(st, c.rx_bytes, 6400);
	ST_TRUE(st, c.enobufs_rearms > 0);
	ST_TRUE(st, c.rearms >= c.enobufs_rearms);
	ST_EQ(st, c.truncated, 0);
	ST_EQ(st, c.rx_errors, 0);
	ST_EQ(st, c.cq_dropped, 0);

	mrc_st_case(st, "C13 a 400-byte datagram in a 320-byte buffer: MSG_TRUNC, 152 bytes kept");
	/* header area 16 + 32 (28 aligned to 8) + (24 + 32 + 24 + 40) = 168: 320 - 168 = 152 */
	pkt[1] = (uint8_t)r.n;
	sendto(sfd, pkt, 400, 0, (struct sockaddr *)&rsa, sizeof(rsa));
	st_run_until(l, &r, 65);
	mrc_loop_get_counters(l, &c);
	ST_EQ(st, r.n, 65);
	ST_EQ(st, c.truncated, 1);
	ST_EQ(st, r.last_len, 152);
	ST_TRUE(st, r.last.truncated);
	ST_EQ(st, r.last.full_len, 400);

	mrc_st_case(st,
		"loop send: 8 queued sends in one submit, TCLASS 0xb9 and a timestamp seen");
	{
		int tc = 0xb9; /* DSCP 46 << 2 | ECN 1 */
		struct timespec t0, t1;

		setsockopt(sfd, IPPROTO_IPV6, IPV6_TCLASS, &tc, sizeof(tc));
		sidx = mrc_loop_add_tx_socket(l, sfd);
		ST_EQ_I(st, sidx, 1);
		clock_gettime(CLOCK_REALTIME, &t0);
		for (unsigned i = 0; i < 8; i++) {
			pkt[1] = (uint8_t)(r.n + i);
			ST_EQ_I(st, mrc_loop_send(l, sidx, pkt, 50 + i, &rsa), 0);
		}
		ST_EQ(st, mrc_loop_tx_inflight(l), 8);
		/* volatile: the compiler must not see a constant length past pkt[] */
		{
			volatile size_t big = 9217;

			ST_EQ_I(st, mrc_loop_send(l, sidx, pkt, big, &rsa), -EMSGSIZE);
		}
		st_run_until(l, &r, 73);
		for (int i = 0; i < 20 && mrc_loop_tx_inflight(l) > 0; i++)
			mrc_loop_run_once(l, 1000000ull);
		clock_gettime(CLOCK_REALTIME, &t1);
		mrc_loop_get_counters(l, &c);
		ST_EQ(st, r.n, 73);
		ST_EQ(st, c.tx, 8);
		ST_EQ(st, c.tx_bytes, 8 * 50 + (0 + 7) * 8 / 2);
		ST_EQ(st, c.send_errors, 0);
		ST_EQ(st, mrc_loop_tx_inflight(l), 0);
		ST_EQ(st, r.last_len, 57);
		ST_EQ_I(st, r.last.tclass, 0xb9);
		ST_TRUE(st, !r.last.has_drops); /* the kernel adds SO_RXQ_OVFL once it is > 0 */
		ST_TRUE(st, r.last.ts_ns >= (uint64_t)t0.tv_sec * 1000000000ull + t0.tv_nsec);
		ST_TRUE(st, r.last.ts_ns <= (uint64_t)t1.tv_sec * 1000000000ull + t1.tv_nsec);
		ST_EQ_I(st, r.last.ifindex, (int)if_nametoindex("lo"));
	}

	mrc_st_case(st, "loop zero-copy send: 16 slots lent and committed, the 17th refused");
	{
		unsigned before = r.n;
		size_t cap = 0;
		uint8_t *b;

		for (unsigned i = 0; i < 16; i++) {
			b = mrc_loop_tx_buf(l, &cap);
			ST_TRUE(st, b != NULL);
			if (!b)
				break;
			ST_EQ(st, cap, 9216);
			b[0] = 0xA5;
			b[1] = (uint8_t)(before + i);
			ST_EQ_I(st, mrc_loop_tx_commit(l, sidx, 60, &rsa), 0);
		}
		ST_EQ(st, mrc_loop_tx_free(l), 0);
		ST_TRUE(st, mrc_loop_tx_buf(l, &cap) == NULL);
		ST_EQ_I(st, mrc_loop_tx_commit(l, sidx, 60, &rsa), -ENOBUFS);
		r.in_order = 0;
		st_run_until(l, &r, before + 16);
		for (int i = 0; i < 20 && mrc_loop_tx_inflight(l) > 0; i++)
			mrc_loop_run_once(l, 1000000ull);
		ST_EQ(st, r.n, before + 16);
		ST_EQ(st, r.in_order, 16); /* each carried the sequence byte written in place */
		ST_EQ(st, mrc_loop_tx_free(l), 16);
	}
	mrc_loop_free(l);
	l = NULL;

	mrc_st_case(st, "CQ overflow: 64 sends on a 16-entry CQ are counted as such, none lost");
	{
		/* sq_entries 2: the CQ holds 16 completions; 64 sends complete in one turn, so
		 * the kernel holds the rest (IORING_FEAT_NODROP) and the loop counts the turn
		 * that found the overflow flag, flushes and handles them all */
		struct mrc_loop_params op = { .sq_entries = 2, .rx_bufs = 4, .rx_buf_size = 320,
			.tx_bufs = 64 };

		if (mrc_loop_new(&op, &l, err, sizeof(err)) < 0) {
			mrc_st_check(st, false, __FILE__, __LINE__, "mrc_loop_new: %s", err);
			goto close_socks;
		}
		sidx = mrc_loop_add_tx_socket(l, sfd);
		for (unsigned i = 0; i < 64; i++)
			ST_EQ_I(st, mrc_loop_send(l, sidx, pkt, 20, &rsa), 0);
		for (int i = 0; i < 50 && mrc_loop_tx_inflight(l) > 0; i++)
			mrc_loop_run_once(l, 1000000ull);
		mrc_loop_get_counters(l, &c);
		ST_TRUE(st, c.cq_overflow > 0);
		ST_EQ(st, c.cq_dropped, 0);
		ST_EQ(st, c.tx, 64);
		ST_EQ(st, mrc_loop_tx_inflight(l), 0);
		mrc_loop_free(l);
	}
close_socks:
	if (rfd >= 0)
		close(rfd);
	if (sfd >= 0)
		close(sfd);
}
