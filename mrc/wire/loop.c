/* SPDX-License-Identifier: BSD-2-Clause */
/* loop: the io_uring event loop of the wire driver (see loop.h; case C13). */
#include "mrc/wire/loop.h"

#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>

/*
 * user_data bit layout (64 bits):
 *   63..56  op kind (enum loop_op; 0 is never used, so a zeroed SQE stands out)
 *   55..40  socket index (0..MRC_LOOP_MAX_SOCKS-1)
 *   39..32  reserved, 0
 *   31..0   op argument: the send-pool slot for OP_SEND, 0 for OP_RECV
 */
#define UD_OP_SHIFT   56
#define UD_SOCK_SHIFT 40
#define UD_SOCK_MASK  0xffffull

enum loop_op {
	OP_NONE = 0,
	OP_RECV = 1, /* multishot recvmsg on an rx socket */
	OP_SEND = 2, /* one sendmsg from a send-pool slot */
	OP_POLL = 3, /* a single-shot poll of a watched fd */
	OP_MAX,
};

static uint64_t ud_make(enum loop_op op, unsigned sock, uint32_t arg)
{
	return (uint64_t)op << UD_OP_SHIFT | ((uint64_t)sock & UD_SOCK_MASK) << UD_SOCK_SHIFT |
	       arg;
}

static enum loop_op ud_op(uint64_t ud)
{
	return (enum loop_op)(ud >> UD_OP_SHIFT);
}

static unsigned ud_sock(uint64_t ud)
{
	return (unsigned)(ud >> UD_SOCK_SHIFT & UD_SOCK_MASK);
}

static uint32_t ud_arg(uint64_t ud)
{
	return (uint32_t)ud;
}

/*
 * Room for the cmsgs a socket may ask for: IPV6_TCLASS (int), SO_TIMESTAMPNS, SO_RXQ_OVFL
 * (u32), IPV6_PKTINFO (struct in6_pktinfo, 20 bytes).
 */
#define LOOP_CONTROLLEN                                                                            \
	(CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec)) +                           \
		CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct in6_pktinfo)))
#define LOOP_BGID 0
/*
 * Name area reserved in each buffer: sockaddr_in6 (28) rounded up to 8, so the cmsgs that
 * follow it (at 16 + 32 in a buffer whose start is 8-aligned) are aligned for cmsghdr.
 */
#define LOOP_NAMELEN ((sizeof(struct sockaddr_in6) + 7) & ~(size_t)7)

struct loop_sock {
	int fd;
	bool rx;
	bool need_arm; /* a multishot recvmsg must be (re-)submitted */
	bool dead;     /* a fatal per-socket error: not re-armed */
	bool poll, armed; /* a poll watch (mrc_loop_add_poll), and its poll is in flight */
	mrc_loop_poll_fn poll_cb;
	mrc_loop_rx_fn cb;
	void *ctx;
	struct msghdr msg; /* the multishot template: only the name/control lengths count */
	uint32_t drops;	   /* latest SO_RXQ_OVFL value */
};

struct tx_slot {
	struct msghdr msg;
	struct iovec iov;
	struct sockaddr_in6 dst;
	uint8_t *buf;
};

struct mrc_loop {
	struct io_uring ring;
	bool ring_ok;
	struct mrc_loop_params p;

	struct io_uring_buf_ring *br;
	size_t br_size;
	uint8_t *rxmem;
	bool br_registered;
	unsigned br_pending; /* buffers added since the last advance */

	struct tx_slot *tx;
	uint8_t *txmem;
	uint32_t *tx_free; /* stack of free slot indices */
	unsigned n_free;

	struct loop_sock socks[MRC_LOOP_MAX_SOCKS];
	unsigned n_socks;
	int fatal; /* first fatal request error, returned by mrc_loop_run_once */

	struct mrc_loop_counters c;
};

/* ---- C13 arithmetic ---- */

int mrc_loop_rx_layout(uint32_t namelen, uint32_t controllen, int res, size_t buf_size,
	struct mrc_loop_layout *out)
{
	size_t off = sizeof(struct io_uring_recvmsg_out) + (size_t)namelen + controllen;

	if (res < 0 || (size_t)res < off || buf_size < off)
		return -EMSGSIZE;
	out->payload_off = off;
	out->payload_len = (size_t)res - off;
	out->payload_cap = buf_size - off;
	return 0;
}

/* ---- feature probe ---- */

static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 1; /* unknown: let the first request tell */
	return ma > major || (ma == major && mi >= minor);
}

static int probe_ring(struct io_uring *ring, char *err, size_t errlen)
{
	static const struct {
		unsigned feat;
		const char *name;
	} feats[] = {
		{ IORING_FEAT_NODROP, "IORING_FEAT_NODROP (completions never dropped, 5.5)" },
		{ IORING_FEAT_FAST_POLL, "IORING_FEAT_FAST_POLL (poll-driven receive, 5.7)" },
		{ IORING_FEAT_EXT_ARG, "IORING_FEAT_EXT_ARG (wait with a timeout, 5.11)" },
	};
	static const struct {
		int op;
		const char *name;
	} ops[] = {
		{ IORING_OP_RECVMSG, "IORING_OP_RECVMSG" },
		{ IORING_OP_SENDMSG, "IORING_OP_SENDMSG" },
	};
	struct io_uring_probe *pr;

	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		if (!(ring->features & feats[i].feat)) {
			snprintf(err, errlen, "io_uring: %s: not supported by this kernel",
				feats[i].name);
			return -EOPNOTSUPP;
		}
	}
	pr = io_uring_get_probe_ring(ring);
	if (!pr) {
		snprintf(err, errlen,
			"io_uring: IORING_REGISTER_PROBE: not supported (kernel < 5.6)");
		return -EOPNOTSUPP;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (!io_uring_opcode_supported(pr, ops[i].op)) {
			io_uring_free_probe(pr);
			snprintf(err, errlen, "io_uring: %s: opcode not supported by this kernel",
				ops[i].name);
			return -EOPNOTSUPP;
		}
	}
	io_uring_free_probe(pr);
	if (!kernel_at_least(5, 19)) {
		snprintf(err, errlen, "io_uring: provided-buffer rings: need kernel >= 5.19");
		return -EOPNOTSUPP;
	}
	if (!kernel_at_least(6, 0)) {
		snprintf(err, errlen, "io_uring: multishot recvmsg: need kernel >= 6.0");
		return -EOPNOTSUPP;
	}
	return 0;
}

int mrc_loop_probe(char *err, size_t errlen)
{
	struct io_uring ring;
	int ret = io_uring_queue_init(4, &ring, 0);

	if (ret < 0) {
		snprintf(err, errlen, "io_uring: setup: %s%s", strerror(-ret),
			ret == -EPERM ?
				" (io_uring disabled: sysctl kernel.io_uring_disabled?)" : "");
		return ret;
	}
	ret = probe_ring(&ring, err, errlen);
	io_uring_queue_exit(&ring);
	return ret;
}

/* ---- setup and teardown ---- */

static void params_fill(struct mrc_loop_params *p)
{
	if (!p->sq_entries)
		p->sq_entries = 256;
	if (!p->rx_bufs)
		p->rx_bufs = 1024;
	if (!p->rx_buf_size)
		p->rx_buf_size = 10240;
	if (!p->tx_bufs)
		p->tx_bufs = 1024;
	if (!p->tx_buf_size)
		p->tx_buf_size = 9216;
}

static void *alloc_aligned(size_t size)
{
	void *m = NULL;

	if (posix_memalign(&m, 4096, size) != 0)
		return NULL;
	memset(m, 0, size);
	return m;
}

int mrc_loop_new(const struct mrc_loop_params *p, struct mrc_loop **out, char *err,
	size_t errlen)
{
	struct io_uring_params up;
	struct io_uring_buf_reg reg;
	struct mrc_loop *l;
	size_t hdr = sizeof(struct io_uring_recvmsg_out) + LOOP_NAMELEN + LOOP_CONTROLLEN;
	int ret;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (p)
		l->p = *p;
	params_fill(&l->p);
	if (l->p.rx_bufs > 32768 || (l->p.rx_bufs & (l->p.rx_bufs - 1))) {
		snprintf(err, errlen, "loop: rx_bufs: not a power of two <= 32768 '%u'",
			l->p.rx_bufs);
		ret = -EINVAL;
		goto free_loop;
	}
	l->p.rx_buf_size = (l->p.rx_buf_size + 7) & ~7u; /* keeps every buffer 8-aligned */
	if (l->p.rx_buf_size <= hdr) {
		snprintf(err, errlen,
			"loop: rx_buf_size: must exceed the %zu-byte header area '%u'", hdr,
			l->p.rx_buf_size);
		ret = -EINVAL;
		goto free_loop;
	}

	memset(&up, 0, sizeof(up));
	up.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL;
	up.cq_entries = l->p.sq_entries * 8;
	ret = io_uring_queue_init_params(l->p.sq_entries, &l->ring, &up);
	if (ret < 0) {
		snprintf(err, errlen, "io_uring: setup: %s%s", strerror(-ret),
			ret == -EPERM ?
				" (io_uring disabled: sysctl kernel.io_uring_disabled?)" : "");
		goto free_loop;
	}
	l->ring_ok = true;
	ret = probe_ring(&l->ring, err, errlen);
	if (ret < 0)
		goto free_all;

	/* Provided-buffer ring, liburing 2.3: page-aligned ring memory registered by hand. */
	l->br_size = (size_t)l->p.rx_bufs * sizeof(struct io_uring_buf);
	l->br = alloc_aligned(l->br_size < 4096 ? 4096 : l->br_size);
	l->rxmem = alloc_aligned((size_t)l->p.rx_bufs * l->p.rx_buf_size);
	if (!l->br || !l->rxmem) {
		ret = -ENOMEM;
		snprintf(err, errlen, "loop: receive buffers: out of memory");
		goto free_all;
	}
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (unsigned long)(uintptr_t)l->br;
	reg.ring_entries = l->p.rx_bufs;
	reg.bgid = LOOP_BGID;
	ret = io_uring_register_buf_ring(&l->ring, &reg, 0);
	if (ret < 0) {
		snprintf(err, errlen,
			"io_uring: register provided-buffer ring: %s (kernel >= 5.19)",
			strerror(-ret));
		goto free_all;
	}
	l->br_registered = true;
	io_uring_buf_ring_init(l->br);
	for (unsigned i = 0; i < l->p.rx_bufs; i++)
		io_uring_buf_ring_add(l->br, l->rxmem + (size_t)i * l->p.rx_buf_size,
			l->p.rx_buf_size, (unsigned short)i, io_uring_buf_ring_mask(l->p.rx_bufs),
			(int)i);
	io_uring_buf_ring_advance(l->br, (int)l->p.rx_bufs);

	l->tx = calloc(l->p.tx_bufs, sizeof(*l->tx));
	l->tx_free = calloc(l->p.tx_bufs, sizeof(*l->tx_free));
	l->txmem = malloc((size_t)l->p.tx_bufs * l->p.tx_buf_size);
	if (!l->tx || !l->tx_free || !l->txmem) {
		ret = -ENOMEM;
		snprintf(err, errlen, "loop: send pool: out of memory");
		goto free_all;
	}
	for (unsigned i = 0; i < l->p.tx_bufs; i++) {
		struct tx_slot *s = &l->tx[i];

		s->buf = l->txmem + (size_t)i * l->p.tx_buf_size;
		s->iov.iov_base = s->buf;
		s->msg.msg_iov = &s->iov;
		s->msg.msg_iovlen = 1;
		l->tx_free[i] = l->p.tx_bufs - 1 - i;
	}
	l->n_free = l->p.tx_bufs;
	*out = l;
	return 0;

free_all:
	mrc_loop_free(l);
	return ret;
free_loop:
	free(l);
	return ret;
}

void mrc_loop_free(struct mrc_loop *l)
{
	if (!l)
		return;
	if (l->br_registered)
		io_uring_unregister_buf_ring(&l->ring, LOOP_BGID);
	if (l->ring_ok)
		io_uring_queue_exit(&l->ring);
	free(l->br);
	free(l->rxmem);
	free(l->tx);
	free(l->tx_free);
	free(l->txmem);
	free(l);
}

/* ---- sockets and sends ---- */

static int add_sock(struct mrc_loop *l, int fd, bool rx, mrc_loop_rx_fn cb, void *ctx)
{
	struct loop_sock *s;

	if (fd < 0 || (rx && !cb))
		return -EINVAL;
	if (l->n_socks >= MRC_LOOP_MAX_SOCKS)
		return -ENOSPC;
	s = &l->socks[l->n_socks];
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->rx = rx;
	s->need_arm = rx;
	s->cb = cb;
	s->ctx = ctx;
	s->msg.msg_namelen = LOOP_NAMELEN;
	s->msg.msg_controllen = LOOP_CONTROLLEN;
	return (int)l->n_socks++;
}

int mrc_loop_add_rx_socket(struct mrc_loop *l, int fd, mrc_loop_rx_fn cb, void *ctx)
{
	return add_sock(l, fd, true, cb, ctx);
}

int mrc_loop_add_tx_socket(struct mrc_loop *l, int fd)
{
	return add_sock(l, fd, false, NULL, NULL);
}

int mrc_loop_add_poll(struct mrc_loop *l, int fd, mrc_loop_poll_fn cb, void *ctx)
{
	int idx;

	if (!cb)
		return -EINVAL;
	idx = add_sock(l, fd, false, NULL, ctx);
	if (idx >= 0) {
		l->socks[idx].poll = true;
		l->socks[idx].poll_cb = cb;
	}
	return idx;
}

static struct io_uring_sqe *get_sqe(struct mrc_loop *l);

int mrc_loop_arm_poll(struct mrc_loop *l, int idx, unsigned events)
{
	struct io_uring_sqe *sqe;
	struct loop_sock *s;

	if (idx < 0 || (unsigned)idx >= l->n_socks || !l->socks[idx].poll)
		return -EBADF;
	s = &l->socks[idx];
	if (s->armed)
		return 0;
	sqe = get_sqe(l);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_poll_add(sqe, s->fd, events);
	io_uring_sqe_set_data64(sqe, ud_make(OP_POLL, (unsigned)idx, 0));
	s->armed = true;
	return 0;
}

/* An SQE, submitting what is queued when the SQ is full. NULL only if the ring is stuck. */
static struct io_uring_sqe *get_sqe(struct mrc_loop *l)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);

	if (!sqe) {
		io_uring_submit(&l->ring);
		sqe = io_uring_get_sqe(&l->ring);
	}
	return sqe;
}

uint8_t *mrc_loop_tx_buf(struct mrc_loop *l, size_t *cap)
{
	if (l->n_free == 0)
		return NULL;
	*cap = l->p.tx_buf_size;
	return l->tx[l->tx_free[l->n_free - 1]].buf;
}

int mrc_loop_tx_commit(struct mrc_loop *l, int sock_idx, size_t len,
	const struct sockaddr_in6 *dst)
{
	struct io_uring_sqe *sqe;
	struct tx_slot *s;
	uint32_t slot;

	if (sock_idx < 0 || (unsigned)sock_idx >= l->n_socks)
		return -EBADF;
	if (len > l->p.tx_buf_size)
		return -EMSGSIZE;
	if (l->n_free == 0) {
		l->c.tx_pool_full++;
		return -ENOBUFS;
	}
	sqe = get_sqe(l);
	if (!sqe)
		return -EBUSY;
	slot = l->tx_free[--l->n_free];
	s = &l->tx[slot];
	s->iov.iov_len = len;
	if (dst) {
		s->dst = *dst;
		s->msg.msg_name = &s->dst;
		s->msg.msg_namelen = sizeof(s->dst);
	} else {
		s->msg.msg_name = NULL;
		s->msg.msg_namelen = 0;
	}
	io_uring_prep_sendmsg(sqe, l->socks[sock_idx].fd, &s->msg, 0);
	io_uring_sqe_set_data64(sqe, ud_make(OP_SEND, (unsigned)sock_idx, slot));
	return 0;
}

int mrc_loop_send(struct mrc_loop *l, int sock_idx, const void *buf, size_t len,
	const struct sockaddr_in6 *dst)
{
	size_t cap;
	uint8_t *b;

	if (sock_idx < 0 || (unsigned)sock_idx >= l->n_socks)
		return -EBADF;
	if (len > l->p.tx_buf_size)
		return -EMSGSIZE;
	b = mrc_loop_tx_buf(l, &cap);
	if (b)
		memcpy(b, buf, len);
	return mrc_loop_tx_commit(l, sock_idx, len, dst);
}

unsigned mrc_loop_tx_free(const struct mrc_loop *l)
{
	return l->n_free;
}

unsigned mrc_loop_tx_inflight(const struct mrc_loop *l)
{
	return l->p.tx_bufs - l->n_free;
}

static int arm_recv(struct mrc_loop *l, unsigned idx)
{
	struct loop_sock *s = &l->socks[idx];
	struct io_uring_sqe *sqe = get_sqe(l);

	if (!sqe)
		return -EBUSY;
	/* MSG_TRUNC: the result (and so payloadlen) is the datagram's full length. */
	io_uring_prep_recvmsg_multishot(sqe, s->fd, &s->msg, MSG_TRUNC);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = LOOP_BGID;
	io_uring_sqe_set_data64(sqe, ud_make(OP_RECV, idx, 0));
	s->need_arm = false;
	return 0;
}

/* ---- completion handlers (the op table) ---- */

static void read_cmsgs(struct io_uring_recvmsg_out *o, struct loop_sock *s,
	struct mrc_loop_rx_info *info)
{
	struct cmsghdr *cm;

	for (cm = io_uring_recvmsg_cmsg_firsthdr(o, &s->msg); cm;
		cm = io_uring_recvmsg_cmsg_nexthdr(o, &s->msg, cm)) {
		size_t dlen = cm->cmsg_len >= CMSG_LEN(0) ? cm->cmsg_len - CMSG_LEN(0) : 0;

		if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_TCLASS &&
			dlen >= sizeof(int)) {
			int tc;

			memcpy(&tc, CMSG_DATA(cm), sizeof(tc));
			info->tclass = tc & 0xff;
		} else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS &&
			   dlen >= sizeof(struct timespec)) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			info->ts_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		} else if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_RXQ_OVFL &&
			   dlen >= sizeof(uint32_t)) {
			memcpy(&s->drops, CMSG_DATA(cm), sizeof(uint32_t));
			info->sock_drops = s->drops;
			info->has_drops = true;
		} else if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO &&
			   dlen >= sizeof(struct in6_pktinfo)) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			info->ifindex = (int)pi.ipi6_ifindex;
		}
	}
}

/* Errors after which re-arming would only fail again: the socket is given up. */
static bool recv_error_fatal(int res)
{
	return res == -EINVAL || res == -EOPNOTSUPP || res == -EBADF || res == -ENOTSOCK ||
	       res == -EFAULT;
}

static void on_recv(struct mrc_loop *l, const struct io_uring_cqe *cqe, unsigned idx,
	uint32_t arg)
{
	struct loop_sock *s = &l->socks[idx];
	struct mrc_loop_rx_info info = { .tclass = -1 };
	struct io_uring_recvmsg_out *o;
	struct mrc_loop_layout lay;
	unsigned bid;
	uint8_t *buf;

	(void)arg;
	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		/* The request ended; re-armed after this batch (its data is handled first). */
		l->c.rearms++;
		if (cqe->res == -ENOBUFS)
			l->c.enobufs_rearms++;
		s->need_arm = true;
	}
	if (cqe->res < 0) {
		if (cqe->res != -ENOBUFS)
			l->c.rx_errors++;
		if (recv_error_fatal(cqe->res)) {
			s->need_arm = false;
			s->dead = true;
			if (!l->fatal)
				l->fatal = cqe->res;
		}
		return;
	}
	if (!(cqe->flags & IORING_CQE_F_BUFFER)) {
		l->c.rx_errors++;
		return;
	}
	bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
	if (bid >= l->p.rx_bufs) {
		l->c.rx_errors++;
		return;
	}
	buf = l->rxmem + (size_t)bid * l->p.rx_buf_size;
	o = io_uring_recvmsg_validate(buf, cqe->res, &s->msg);
	if (!o || mrc_loop_rx_layout(s->msg.msg_namelen, (uint32_t)s->msg.msg_controllen,
			  cqe->res, l->p.rx_buf_size, &lay) < 0) {
		l->c.rx_errors++;
	} else {
		read_cmsgs(o, s, &info);
		info.full_len = o->payloadlen;
		if (o->flags & MSG_TRUNC) {
			info.truncated = true;
			l->c.truncated++;
		}
		l->c.rx++;
		l->c.rx_bytes += lay.payload_len;
		s->cb(s->ctx, (int)idx, io_uring_recvmsg_payload(o, &s->msg), lay.payload_len,
			&info);
	}
	io_uring_buf_ring_add(l->br, buf, l->p.rx_buf_size, (unsigned short)bid,
		io_uring_buf_ring_mask(l->p.rx_bufs), (int)l->br_pending++);
}

static void on_send(struct mrc_loop *l, const struct io_uring_cqe *cqe, unsigned idx,
	uint32_t slot)
{
	(void)idx;
	if (slot >= l->p.tx_bufs)
		return;
	if (cqe->res < 0) {
		l->c.send_errors++;
		l->c.last_send_error = cqe->res;
	} else {
		l->c.tx++;
		l->c.tx_bytes += (uint64_t)cqe->res;
	}
	l->tx_free[l->n_free++] = slot;
}

static void on_poll(struct mrc_loop *l, const struct io_uring_cqe *cqe, unsigned idx,
	uint32_t arg)
{
	struct loop_sock *s = &l->socks[idx];

	(void)arg;
	s->armed = false;
	s->poll_cb(s->ctx, (int)idx, cqe->res > 0 ? (unsigned)cqe->res : 0);
}

static const struct loop_op_desc {
	const char *name;
	void (*on_cqe)(struct mrc_loop *l, const struct io_uring_cqe *cqe, unsigned sock,
		uint32_t arg);
} loop_ops[OP_MAX] = {
	[OP_RECV] = { "recvmsg", on_recv },
	[OP_SEND] = { "sendmsg", on_send },
	[OP_POLL] = { "poll", on_poll },
};

/* ---- the turn ---- */

static unsigned handle_cqes(struct mrc_loop *l)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&l->ring, head, cqe) {
		uint64_t ud = io_uring_cqe_get_data64(cqe);
		enum loop_op op = ud_op(ud);
		unsigned sock = ud_sock(ud);

		n++;
		if (op <= OP_NONE || op >= OP_MAX || sock >= l->n_socks)
			continue; /* not ours (cannot happen: every SQE is tagged) */
		loop_ops[op].on_cqe(l, cqe, sock, ud_arg(ud));
	}
	io_uring_cq_advance(&l->ring, n);
	if (l->br_pending) {
		io_uring_buf_ring_advance(l->br, (int)l->br_pending);
		l->br_pending = 0;
	}
	return n;
}

int mrc_loop_run_once(struct mrc_loop *l, uint64_t timeout_ns)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(timeout_ns / 1000000000ull),
		.tv_nsec = (long long)(timeout_ns % 1000000000ull),
	};
	struct io_uring_cqe *cqe = NULL;
	unsigned n = 0;
	int ret;

	for (unsigned i = 0; i < l->n_socks; i++) {
		if (l->socks[i].need_arm && !l->socks[i].dead) {
			ret = arm_recv(l, i);
			if (ret < 0)
				return ret;
		}
	}
	ret = io_uring_submit_and_wait_timeout(&l->ring, &cqe, 1, &ts, NULL);
	if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
		return ret;
	for (int pass = 0; pass < 64; pass++) {
		n += handle_cqes(l);
		if (!io_uring_cq_has_overflow(&l->ring))
			break;
		/* The kernel holds completions it could not post: count, flush, handle. */
		l->c.cq_overflow++;
		io_uring_get_events(&l->ring);
	}
	l->c.cq_dropped = *l->ring.cq.koverflow;
	if (l->fatal)
		return l->fatal;
	return (int)n;
}

void mrc_loop_get_counters(const struct mrc_loop *l, struct mrc_loop_counters *out)
{
	*out = l->c;
	out->sock_drops = 0;
	for (unsigned i = 0; i < l->n_socks; i++)
		out->sock_drops += l->socks[i].drops;
}
