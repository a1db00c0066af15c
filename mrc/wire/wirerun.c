/* SPDX-License-Identifier: BSD-2-Clause */
/* wirerun: one rank of the main job on real sockets, with a rendezvous at rank 0 (wirerun.h). */
#include "mrc/wire/wirerun.h"

#include "mrc/base/bytes.h"
#include "mrc/job/coll.h"
#include "mrc/engine/ep.h"
#include "mrc/wire/epfault.h"
#include "mrc/base/hist.h"
#include "mrc/job/epparams.h"
#include "mrc/job/fault.h"
#include "mrc/job/job.h"
#include "mrc/wire/loop.h"
#include "mrc/wire/sock.h"
#include "mrc/engine/srv6.h"
#include "mrc/wire/wrtt.h"
#include "pcap/pcapw.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum rv_type {
	RV_HELLO = 1,
	RV_WELCOME,
	RV_MR,
	RV_MRTAB,
	RV_ARM,
	RV_ARMED,
	RV_GO,
	RV_DONE,
	RV_FINISH,
	RV_RESULT,
	RV_ABORT,
	RV_RTTGO,
	RV_RTT,
	RV_RTTSET,
};

#define RV_MAX_MSG     (64u << 20) /* a RESULT with three histograms fits easily */
#define WR_POLL_NS     1000000ull  /* control sockets polled at least every 1 ms (and when idle) */
#define WR_MAX_WAIT_NS 1000000ull  /* one loop turn waits at most 1 ms */
#define WR_TX_SLOTS    512u

/*
 * Base-RTT measurement (mrc/wire/wrtt.h): per peer 32 probes (at least 4 per plane), one in
 * flight, one lost after 50 ms, all done within 1 s; a rank's figure is the 10th
 * percentile of its samples. One at a time because a burst measures itself: on the netns
 * fabric 8 in flight gave 400-440 us against 130-140 us for one (each send carries the
 * packet through every hop in the sender's softirq, so the 8th waits for the 7 before it).
 * Without any figure NSCC starts from MRC_WIRERUN_RTT_DEFAULT_NS.
 */
#define WR_RTT_PER_PEER	   32u
#define WR_RTT_WINDOW	   1u
#define WR_RTT_TIMEOUT_NS  50000000ull
#define WR_RTT_BUDGET_NS   1000000000ull
#define WR_RTT_PERCENTILE  10u
#define WR_RTT_REPLIES	   256u /* echo answers queued for the next send turn */

/* Counters a rank sends in RESULT, in this order (struct mrc_run_result fields). */
#define WR_CTRS(X)                                                                                 \
	X(data_pkts) X(data_bytes) X(rtx_pkts) X(rtx_bytes) X(sacks) X(nacks) X(nack_trimmed)     \
	X(probes) X(ecn_echoes) X(losses_sack) X(losses_rto) X(rx_dup) X(rx_reordered)            \
	X(rx_decode_err) X(qp_errors) X(injected) X(delivered) X(fab_drops) X(fab_ecn)            \
	X(tx_encode_err) X(capture_errors) X(losses_port) X(losses_path) X(tlp) X(gbn_rewinds)
#define WR_COUNT(f) +1
#define WR_N_CTRS (0 WR_CTRS(WR_COUNT))
#define WR_EV_FIELDS 12

/* One peer connection with its receive buffer. */
struct rv_conn {
	int fd;
	uint32_t rank;
	uint8_t *buf;
	size_t have, cap;
};

/* A received message: type and body (points into the connection's buffer). */
struct rv_msg {
	uint8_t type;
	const uint8_t *body;
	size_t len;
};

/* A write the collective posted while the rank was arming (sent at GO). */
struct deferred {
	struct mrc_coll_xfer x;
	const void *src;
	uint64_t va, wr_id;
	uint32_t imm;
};

struct tap {
	struct pcapw *w;
	int plane;
	bool ingress, egress;
	bool failed; /* a write failed: the file ends at its last whole record, said once */
};

/* An echo answer waiting for a send slot. */
struct rtt_reply {
	unsigned plane;
	uint16_t len;
	uint8_t pkt[128];
};

struct wr {
	const struct conf_job *job;
	const struct mrc_wirerun_opts *o;
	struct mrc_job_srv6 m;
	uint32_t rank, nranks;
	uint64_t hash;
	unsigned planes;
	uint64_t timeout_ns;
	/* sockets and loop */
	struct mrc_sock_port ports[MRC_WIRERUN_MAX_PLANES]; /* send sockets (rx_fd closed) */
	int tx_idx[MRC_WIRERUN_MAX_PLANES];
	int rx_fd;		/* one protocol-41 socket for every plane (mrc_sock_rx_open_all) */
	uint64_t rx_foreign;	/* packets that came in on an interface of no plane */
	struct mrc_loop *loop;
	uint64_t last_poll_ns;
	/* engine */
	struct mrc_ep *ep;
	uint32_t *peer_of_qpn; /* [nranks + 1] */
	uint32_t rkey[MRC_REG_N];
	struct mrc_coll *coll;
	uint32_t (*peer_rkey)[MRC_REG_N]; /* [nranks] */
	bool arming;
	struct deferred *defq;
	size_t n_def, cap_def;
	bool measuring;
	uint64_t evs_retired;
	uint64_t t0_ns;		/* GO of the first iteration: the report's time 0 */
	uint64_t go_ns;		/* GO of the current iteration */
	uint32_t cur_iter;	/* its global index */
	/*
	 * When an EV went ASSUMED_BAD: global iteration and ps after that iteration's GO on
	 * the rank's own clock, which rank 0 maps onto its own timeline (rank 0: every
	 * rank's). Per iteration, so the skew of the start barrier never accumulates.
	 */
	struct wr_bad {
		uint32_t iter;
		uint64_t off_ps;
	} *bad;
	size_t n_bad, cap_bad;
	/* endpoint faults (NULL without faults:) */
	struct mrc_epf *epf;
	struct mrc_wire_cfg dcfg;	/* decode for the fault hooks: no checks */
	uint32_t measured_iter;		/* of the current size, for at_iteration */
	/* outputs */
	struct tap *taps;
	size_t n_taps;
	struct mrc_hist *msg_ns, *step_ns, *rtt_ns;
	/* rendezvous */
	int lfd;
	struct rv_conn *conns; /* rank 0: [nranks] (own slot unused); others: [1] = rank 0 */
	size_t n_conns;
	char rv_path[108];     /* unix socket rank 0 bound, to unlink */
	/* state from messages */
	bool *got;	       /* rank 0: per rank, the message awaited came */
	uint32_t *mr_of;       /* rank 0: per rank, 1 + the size index of its last MR */
	uint32_t want_mr;      /* rank 0: the MRs awaited are of size index want_mr - 1 */
	uint64_t *done_ps, *wrong;
	uint8_t **result;      /* rank 0: RESULT bodies */
	size_t *result_len;
	int64_t want_iter;     /* workers: ARM/GO awaited for this iteration */
	uint32_t arm_of, go_of;	/* workers: 1 + the iteration of the last ARM, GO */
	bool got_finish, got_mrtab;
	uint64_t (*mrtab_va)[MRC_REG_N];
	/* base RTT (measure_rtt) */
	struct mrc_wire_cfg pcfg;	/* echo probes: the job's codec, checks on */
	struct mrc_wrtt *rtt;		/* while this rank measures */
	struct rtt_reply *replies;	/* [WR_RTT_REPLIES] */
	unsigned n_replies;
	uint64_t replies_dropped;
	bool got_rttgo, got_rttset;
	struct mrc_wirerun_rtt *rtt_out; /* the job's figures (rank 0 fills rank_ns[]) */
	/* failure */
	int err;
	char errmsg[512];
};

static void wr_fail(struct wr *w, int err, const char *fmt, ...)
{
	va_list ap;

	if (w->err)
		return;
	w->err = err ? err : -EIO;
	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Writes a packet to capture @t; the first failure is said on stderr and ends the capture. */
static void tap_put(const struct wr *w, struct tap *t, const void *buf, size_t len)
{
	if (t->failed || !pcapw_write(t->w, real_ns(), buf, len))
		return;
	t->failed = true;
	fprintf(stderr, "mrcgen: h%u: capture: %s\n", w->rank, pcapw_error(t->w));
}

/* ---- rank and config -------------------------------------------------------------------- */

static int parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

int mrc_wirerun_rank(const char *host, uint32_t nranks, uint32_t *rank, char *err,
	size_t errlen)
{
	static const char *const env[][2] = {
		{ "SLURM_PROCID", "SLURM_NTASKS" },
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMI_RANK", "PMI_SIZE" },
	};
	uint32_t r, n;

	if (host) {
		if (host[0] != 'h' || parse_u32(host + 1, &r) || (host[1] == '0' && host[2])) {
			snprintf(err, errlen, "host: --host: not a host name (h0, h1, ...) '%s'",
				host);
			return -EINVAL;
		}
		if (r >= nranks) {
			snprintf(err, errlen, "host: --host: '%s' takes no part: the job has %u ranks "
				 "(h0..h%u)", host, nranks, nranks - 1);
			return -EINVAL;
		}
		*rank = r;
		return 0;
	}
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		const char *rs = getenv(env[i][0]), *ns = getenv(env[i][1]);

		if (!rs)
			continue;
		if (parse_u32(rs, &r)) {
			snprintf(err, errlen, "host: %s: not a rank '%s'", env[i][0], rs);
			return -EINVAL;
		}
		if (!ns || parse_u32(ns, &n) || n != nranks) {
			snprintf(err, errlen, "host: %s: the launcher starts '%s' processes, the job "
				 "has %u ranks (traffic.ranks)", env[i][1], ns ? ns : "", nranks);
			return -EINVAL;
		}
		if (r >= n) {
			snprintf(err, errlen, "host: %s: rank '%s' outside %u ranks", env[i][0], rs,
				n);
			return -EINVAL;
		}
		*rank = r;
		return 0;
	}
	snprintf(err, errlen, "host: which host is this? give --host hN, or start under srun or "
		 "mpirun (SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK)");
	return -ENOENT;
}

int mrc_wirerun_conf_hash(const struct conf_job *job, uint64_t *hash)
{
	size_t len = 0;
	char *text = conf_dump_string(job, &len);
	uint64_t h = 0xcbf29ce484222325ull;

	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)text[i];
		h *= 0x100000001b3ull;
	}
	free(text);
	*hash = h;
	return 0;
}

/* ---- rendezvous transport ------------------------------------------------------------- */

/* Parses @addr into a socket address; @path gets the unix path (empty for TCP). */
static int rv_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sl, char *path,
	char *err, size_t errlen)
{
	const char *p = addr;
	char host[256];
	const char *port;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int e;

	path[0] = 0;
	if (!strncmp(p, "unix:", 5) || strchr(p, '/')) {
		struct sockaddr_un *su = (struct sockaddr_un *)ss;

		if (!strncmp(p, "unix:", 5))
			p += 5;
		if (strlen(p) == 0 || strlen(p) >= sizeof(su->sun_path)) {
			snprintf(err, errlen, "rendezvous: address: unix path empty or longer than "
				 "%zu bytes '%s'", sizeof(su->sun_path) - 1, addr);
			return -EINVAL;
		}
		memset(su, 0, sizeof(*su));
		su->sun_family = AF_UNIX;
		strcpy(su->sun_path, p);
		strcpy(path, p);
		*sl = sizeof(*su);
		return 0;
	}
	if (*p == '[') {
		const char *rb = strchr(p, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - p - 1) >= sizeof(host))
			goto bad;
		memcpy(host, p + 1, (size_t)(rb - p - 1));
		host[rb - p - 1] = 0;
		port = rb + 2;
	} else {
		const char *c = strrchr(p, ':');

		if (!c || (size_t)(c - p) >= sizeof(host) || strchr(p, ':') != c)
			goto bad;
		memcpy(host, p, (size_t)(c - p));
		host[c - p] = 0;
		port = c + 1;
	}
	if (!*host || !*port)
		goto bad;
	e = getaddrinfo(host, port, &hints, &ai);
	if (e) {
		snprintf(err, errlen, "rendezvous: address: '%s': %s", addr, gai_strerror(e));
		return -EINVAL;
	}
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
bad:
	snprintf(err, errlen, "rendezvous: address: expected unix:PATH, HOST:PORT or [V6]:PORT "
		 "'%s'", addr);
	return -EINVAL;
}

static int rv_send(struct wr *w, struct rv_conn *c, uint8_t type, const void *body, size_t len)
{
	uint8_t hdr[5];
	const uint8_t *parts[2] = { hdr, body };
	size_t lens[2] = { sizeof(hdr), len };

	put_be32(hdr, (uint32_t)(len + 1));
	hdr[4] = type;
	for (int i = 0; i < 2; i++) {
		size_t off = 0;

		while (off < lens[i]) {
			ssize_t n = send(c->fd, parts[i] + off, lens[i] - off, MSG_NOSIGNAL);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				int e = errno;

				wr_fail(w, e == EAGAIN ? -ETIMEDOUT : -ECONNABORTED,
					"rendezvous: send to rank %u (h%u): %s", c->rank, c->rank,
					e == EAGAIN ? "timed out" : strerror(e));
				return w->err;
			}
			off += (size_t)n;
		}
	}
	return 0;
}

/*
 * Reads what @c has without blocking. Returns 1 with a complete message in @m (consumed
 * by the next call), 0 when none is complete yet, or a negative errno (closed, error).
 */
static int rv_recv(struct wr *w, struct rv_conn *c, struct rv_msg *m, size_t *consume)
{
	uint32_t len;

	if (*consume) {
		memmove(c->buf, c->buf + *consume, c->have - *consume);
		c->have -= *consume;
		*consume = 0;
	}
	for (;;) {
		if (c->have >= 4) {
			len = get_be32(c->buf);
			if (len == 0 || len > RV_MAX_MSG) {
				wr_fail(w, -EPROTO, "rendezvous: rank %u (h%u): bad message length "
					"'%u'", c->rank, c->rank, len);
				return -EPROTO;
			}
			if (c->have >= 4 + (size_t)len) {
				m->type = c->buf[4];
				m->body = c->buf + 5;
				m->len = len - 1;
				*consume = 4 + (size_t)len;
				return 1;
			}
			if (c->cap < 4 + (size_t)len) {
				uint8_t *nb = realloc(c->buf, 4 + (size_t)len);

				if (!nb) {
					wr_fail(w, -ENOMEM, "rendezvous: out of memory");
					return -ENOMEM;
				}
				c->buf = nb;
				c->cap = 4 + (size_t)len;
			}
		} else if (c->cap < 4096) {
			uint8_t *nb = realloc(c->buf, 4096);

			if (!nb) {
				wr_fail(w, -ENOMEM, "rendezvous: out of memory");
				return -ENOMEM;
			}
			c->buf = nb;
			c->cap = 4096;
		}
		ssize_t n = recv(c->fd, c->buf + c->have, c->cap - c->have, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n == 0 && w->rank == 0 && w->result[c->rank]) {
			close(c->fd); /* orderly: the rank has sent everything */
			c->fd = -1;
			return 0;
		}
		if (n <= 0) {
			wr_fail(w, -ECONNABORTED, "rendezvous: rank %u (h%u): connection %s "
				"(the process ended or crashed)", c->rank, c->rank,
				n == 0 ? "closed" : strerror(errno));
			return -ECONNABORTED;
		}
		c->have += (size_t)n;
	}
}

static void set_timeouts(int fd, uint64_t ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / 1000000000ull),
		.tv_usec = (suseconds_t)(ns % 1000000000ull / 1000) };
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)); /* fails on unix: fine */
}

/* Waits until @fd is readable or @deadline (monotonic ns). Returns 1, 0 on timeout. */
static int wait_readable(int fd, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t now = mono_ns();
	int n;

	if (now >= deadline)
		return 0;
	n = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
	return n > 0;
}

/* Rank 0: listens, accepts every other rank's HELLO, checks rank and config hash. */
static int rv_listen(struct wr *w, const char *addr, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	uint64_t deadline = mono_ns() + w->timeout_ns;
	size_t joined = 0;
	int e = rv_addr(addr, &ss, &sl, w->rv_path, err, errlen), one = 1;

	if (e)
		return e;
	w->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (w->lfd < 0)
		goto sys;
	if (w->rv_path[0])
		unlink(w->rv_path); /* a socket file left by an earlier run */
	else
		setsockopt(w->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(w->lfd, (struct sockaddr *)&ss, sl) || listen(w->lfd, (int)w->nranks + 8))
		goto sys;
	if (w->rv_path[0])
		chmod(w->rv_path, 0666);
	while (joined + 1 < w->nranks) {
		struct rv_conn c = { .fd = -1, .rank = UINT32_MAX };
		struct rv_msg m;
		size_t consume = 0;
		uint8_t reply[300];
		uint32_t r, n;
		uint64_t h;

		if (!wait_readable(w->lfd, deadline)) {
			size_t k = snprintf(err, errlen, "rendezvous: %zu of %u ranks joined within "
					    "%llu ms; missing:", joined + 1, w->nranks,
				(unsigned long long)(w->timeout_ns / 1000000));

			for (uint32_t i = 1; i < w->nranks && k < errlen; i++)
				if (w->conns[i].fd < 0)
					k += snprintf(err + k, errlen - k, " h%u", i);
			return -ETIMEDOUT;
		}
		c.fd = accept4(w->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c.fd < 0)
			continue;
		set_timeouts(c.fd, w->timeout_ns);
		while ((e = rv_recv(w, &c, &m, &consume)) == 0 && wait_readable(c.fd, deadline))
			;
		if (e <= 0 || m.type != RV_HELLO || m.len < 16) {
			close(c.fd);
			free(c.buf);
			w->err = 0; /* a stray or early-closing client: keep listening */
			continue;
		}
		r = get_be32(m.body);
		n = get_be32(m.body + 4);
		h = get_be64(m.body + 8);
		reply[0] = 1;
		if (n != w->nranks || r == 0 || r >= w->nranks)
			snprintf((char *)reply + 1, sizeof(reply) - 1, "rank %u of %u does not fit "
				 "this job of %u ranks", r, n, w->nranks);
		else if (w->conns[r].fd >= 0)
			snprintf((char *)reply + 1, sizeof(reply) - 1, "rank %u (h%u) joined twice",
				r, r);
		else if (h != w->hash)
			snprintf((char *)reply + 1, sizeof(reply) - 1, "config hash mismatch: h%u runs "
				 "0x%016llx, rank 0 runs 0x%016llx (same file and --set options "
				 "everywhere)", r, (unsigned long long)h,
				(unsigned long long)w->hash);
		else
			reply[0] = 0, reply[1] = 0;
		c.rank = r;
		rv_send(w, &c, RV_WELCOME, reply, 1 + strlen((char *)reply + 1));
		if (reply[0]) {
			snprintf(err, errlen, "rendezvous: refused: %s", (char *)reply + 1);
			close(c.fd);
			free(c.buf);
			return -EPROTO;
		}
		c.have -= consume;
		memmove(c.buf, c.buf + consume, c.have);
		w->conns[r] = c;
		joined++;
	}
	return 0;
sys:
	e = -errno;
	snprintf(err, errlen, "rendezvous: listen '%s': %s", addr, strerror(errno));
	return e;
}

/* Other ranks: connects to rank 0 (retrying until the deadline), HELLO, WELCOME. */
static int rv_join(struct wr *w, const char *addr, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char path[108];
	uint64_t deadline = mono_ns() + w->timeout_ns;
	struct rv_conn *c = &w->conns[0];
	uint8_t hello[16];
	struct rv_msg m;
	size_t consume = 0;
	int e = rv_addr(addr, &ss, &sl, path, err, errlen), last = 0;

	if (e)
		return e;
	for (;;) {
		c->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->fd < 0)
			return -errno;
		if (!connect(c->fd, (struct sockaddr *)&ss, sl))
			break;
		last = errno;
		close(c->fd);
		c->fd = -1;
		if (mono_ns() >= deadline) {
			snprintf(err, errlen, "rendezvous: connect '%s': %s for %llu ms (is rank 0 "
				 "(h0) running? on a cluster set MRCGEN_RENDEZVOUS=HOST:PORT)", addr,
				strerror(last), (unsigned long long)(w->timeout_ns / 1000000));
			return -ETIMEDOUT;
		}
		usleep(20000);
	}
	c->rank = 0;
	set_timeouts(c->fd, w->timeout_ns);
	put_be32(hello, w->rank);
	put_be32(hello + 4, w->nranks);
	put_be64(hello + 8, w->hash);
	if (rv_send(w, c, RV_HELLO, hello, sizeof(hello)))
		goto fail;
	while ((e = rv_recv(w, c, &m, &consume)) == 0 && wait_readable(c->fd, deadline))
		;
	if (e < 0)
		goto fail;
	if (e == 0) {
		snprintf(err, errlen, "rendezvous: rank 0 (h0) did not answer within %llu ms",
			(unsigned long long)(w->timeout_ns / 1000000));
		return -ETIMEDOUT;
	}
	if (m.type != RV_WELCOME || m.len < 1) {
		snprintf(err, errlen, "rendezvous: rank 0 (h0): unexpected message type %u", m.type);
		return -EPROTO;
	}
	if (m.body[0]) {
		snprintf(err, errlen, "rendezvous: refused by rank 0: %.*s", (int)m.len - 1,
			(const char *)m.body + 1);
		return -EPROTO;
	}
	c->have -= consume;
	memmove(c->buf, c->buf + consume, c->have);
	return 0;
fail:
	snprintf(err, errlen, "%s", w->errmsg);
	return w->err;
}

/* ---- messages during the job ---------------------------------------------------------- */

static void on_msg(struct wr *w, struct rv_conn *c, const struct rv_msg *m)
{
	const uint8_t *b = m->body;

	if (w->rank == 0) {
		uint32_t r = c->rank;

		switch (m->type) {
		case RV_MR:
			/*
			 * Not through got[]: a rank that finished the last iteration of a
			 * size sends the next size's MR right after its DONE, and both can
			 * come in the same poll, before rank 0 clears got[] for the MRs.
			 */
			if (m->len < 4 + MRC_REG_N * 12u)
				break;
			for (int g = 0; g < MRC_REG_N; g++) {
				w->mrtab_va[r][g] = get_be64(b + 4 + g * 12);
				w->peer_rkey[r][g] = get_be32(b + 4 + g * 12 + 8);
			}
			w->mr_of[r] = get_be32(b) + 1;
			return;
		case RV_ARMED:
			if (m->len < 4 || (int64_t)get_be32(b) != w->want_iter)
				break;
			w->got[r] = true;
			return;
		case RV_DONE:
			if (m->len < 20 || (int64_t)get_be32(b) != w->want_iter)
				break;
			w->done_ps[r] = get_be64(b + 4);
			w->wrong[r] = get_be64(b + 12);
			w->got[r] = true;
			return;
		case RV_RTT:
			if (m->len < 16 || !w->rtt_out->rank_ns)
				break;
			w->rtt_out->rank_ns[r] = get_be64(b);
			w->rtt_out->probes_sent += get_be32(b + 8);
			w->rtt_out->probes_answered += get_be32(b + 12);
			w->got[r] = true;
			return;
		case RV_RESULT:
			free(w->result[r]);
			w->result[r] = malloc(m->len + 1);
			if (!w->result[r]) {
				wr_fail(w, -ENOMEM, "rendezvous: out of memory");
				return;
			}
			memcpy(w->result[r], b, m->len);
			w->result_len[r] = m->len;
			w->got[r] = true;
			return;
		}
		wr_fail(w, -EPROTO, "rendezvous: rank %u (h%u): unexpected message type %u", r, r,
			m->type);
		return;
	}
	switch (m->type) {
	case RV_MRTAB:
		if (m->len < (size_t)w->nranks * MRC_REG_N * 12)
			break;
		for (uint32_t r = 0; r < w->nranks; r++) {
			for (int g = 0; g < MRC_REG_N; g++) {
				const uint8_t *e = b + ((size_t)r * MRC_REG_N + g) * 12;

				w->mrtab_va[r][g] = get_be64(e);
				w->peer_rkey[r][g] = get_be32(e + 8);
			}
		}
		w->got_mrtab = true;
		return;
	case RV_ARM:
	case RV_GO:
		/*
		 * ARM of the next iteration may come before this rank waits for it: with the
		 * MRTAB of a new size (rank 0 sends both at once) in the same poll. GO only
		 * follows this rank's ARMED.
		 */
		if (m->len < 4 || (int64_t)get_be32(b) < w->want_iter ||
			(int64_t)get_be32(b) > w->want_iter + (m->type == RV_ARM))
			break;
		if (m->type == RV_ARM)
			w->arm_of = get_be32(b) + 1;
		else
			w->go_of = get_be32(b) + 1;
		return;
	case RV_FINISH:
		w->got_finish = true;
		return;
	case RV_RTTGO:
		w->got_rttgo = true;
		return;
	case RV_RTTSET:
		if (m->len < 9 || b[8] > MRC_WIRERUN_RTT_DEFAULT)
			break;
		w->rtt_out->base_rtt_ns = get_be64(b);
		w->rtt_out->source = (enum mrc_wirerun_rtt_source)b[8];
		w->got_rttset = true;
		return;
	case RV_ABORT:
		wr_fail(w, -ECONNABORTED, "job aborted by rank 0 (h0): %.*s", (int)m->len,
			(const char *)b);
		return;
	}
	wr_fail(w, -EPROTO, "rendezvous: rank 0 (h0): unexpected message type %u", m->type);
}

static void ctl_poll(struct wr *w)
{
	for (size_t i = 0; i < w->n_conns && !w->err; i++) {
		struct rv_conn *c = &w->conns[i];
		struct rv_msg m;
		size_t consume = 0;
		int e;

		if (c->fd < 0)
			continue;
		while (!w->err && (e = rv_recv(w, c, &m, &consume)) > 0)
			on_msg(w, c, &m);
		if (consume) {
			memmove(c->buf, c->buf + consume, c->have - consume);
			c->have -= consume;
		}
	}
}

/* Rank 0: sends @type with @body to every other rank. */
static int rv_bcast(struct wr *w, uint8_t type, const void *body, size_t len)
{
	for (uint32_t r = 1; r < w->nranks; r++)
		if (rv_send(w, &w->conns[r], type, body, len))
			return w->err;
	return 0;
}

/* ---- engine glue ---------------------------------------------------------------------- */

static int ep_path(void *ctx, uint32_t peer, uint32_t ev, struct mrc_pkt *hdr)
{
	struct wr *w = ctx;

	return mrc_srv6_address(w->m.plan, w->rank, peer, ev, hdr);
}

static unsigned ep_ev_plane(void *ctx, uint32_t ev)
{
	struct wr *w = ctx;

	return mrc_srv6_ev_plane(&w->m.params.ev, ev);
}

static void ep_send_done(void *ctx, uint32_t qpn, uint64_t wr_id, int status, uint64_t now)
{
	struct wr *w = ctx;
	int err;

	if (status) {
		struct mrc_loop_counters lc;

		mrc_loop_get_counters(w->loop, &lc);
		wr_fail(w, status, "h%u: QP %u to h%u failed: %s (packets sent %llu, received "
			"%llu, send errors %llu%s%s)", w->rank, qpn, w->peer_of_qpn[qpn],
			strerror(-status), (unsigned long long)lc.tx, (unsigned long long)lc.rx,
			(unsigned long long)lc.send_errors, lc.last_send_error ? ", last: " : "",
			lc.last_send_error ? strerror(-lc.last_send_error) : "");
		return;
	}
	if (w->measuring) { /* the first step's writes wait for GO after the collective armed */
		uint64_t t0 = mrc_coll_posted_at(w->coll, w->rank, wr_id);

		if (t0 < w->go_ns * 1000)
			t0 = w->go_ns * 1000;
		mrc_hist_record(w->msg_ns, (int64_t)((now - t0) / 1000));
	}
	err = mrc_coll_on_send_done(w->coll, w->rank, wr_id, now);
	if (err)
		wr_fail(w, err, "h%u: collective: send completion %llu: %s", w->rank,
			(unsigned long long)wr_id, strerror(-err));
}

static void ep_recv_imm(void *ctx, uint32_t qpn, uint32_t imm, uint64_t len, uint64_t now)
{
	struct wr *w = ctx;
	int err;

	(void)len;
	err = mrc_coll_on_recv(w->coll, w->rank, w->peer_of_qpn[qpn], imm, now);
	if (err)
		wr_fail(w, err, "h%u: collective: unexpected write from h%u (imm 0x%08x)", w->rank,
			w->peer_of_qpn[qpn], imm);
}

/* Records an EV retirement @off_ps after the GO of iteration @iter, for the fault figures. */
static void bad_add(struct wr *w, uint32_t iter, uint64_t off_ps)
{
	if (w->n_bad == w->cap_bad) {
		size_t n = w->cap_bad ? 2 * w->cap_bad : 64;
		struct wr_bad *nb = realloc(w->bad, n * sizeof(*nb));

		if (!nb)
			return; /* the figure undercounts; the run goes on */
		w->bad = nb;
		w->cap_bad = n;
	}
	w->bad[w->n_bad++] = (struct wr_bad){ iter, off_ps };
}

static void ep_ev_event(void *ctx, uint32_t qpn, uint32_t ev, int from, int to, int cause,
	uint64_t now)
{
	struct wr *w = ctx;

	(void)qpn, (void)ev, (void)from, (void)cause;
	if (to != MRC_EV_ASSUMED_BAD)
		return;
	w->evs_retired++;
	if (w->go_ns && now / 1000 >= w->go_ns)
		bad_add(w, w->cur_iter, now - w->go_ns * 1000);
}

static int post_now(struct wr *w, const struct mrc_coll_xfer *x, const void *src, uint64_t va,
	uint32_t imm, uint64_t wr_id)
{
	uint64_t now = mono_ns();
	uint32_t qpn = x->peer < w->rank ? x->peer + 1 : x->peer;

	return mrc_ep_post_write(w->ep, qpn, src, x->len, va, w->peer_rkey[x->peer][x->dst_reg],
		true, imm, wr_id, now * 1000);
}

static int coll_post(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x, const void *src,
	uint64_t va, uint32_t imm, uint64_t wr_id)
{
	struct wr *w = ctx;
	struct deferred *d;

	(void)rank;
	if (!w->arming)
		return post_now(w, x, src, va, imm, wr_id);
	if (w->n_def == w->cap_def) {
		size_t n = w->cap_def ? 2 * w->cap_def : 64;

		d = realloc(w->defq, n * sizeof(*d));
		if (!d)
			return -ENOMEM;
		w->defq = d;
		w->cap_def = n;
	}
	d = &w->defq[w->n_def++];
	d->x = *x;
	d->src = src;
	d->va = va;
	d->imm = imm;
	d->wr_id = wr_id;
	return 0;
}

static int epf_pkt(struct wr *w, const uint8_t *buf, size_t len, bool outer,
	struct mrc_epf_pkt *fp);

/*
 * Echo probes (mrc/wire/wrtt.h) never reach the engine: a request is answered (queued for the
 * next send turn, at any time, so a slower rank's measurement is served after this one's
 * ended), a reply goes to the measurement in progress. Returns true for either.
 */
static bool rtt_rx(struct wr *w, const uint8_t *buf, size_t len)
{
	struct mrc_pkt p;
	struct rtt_reply *r;
	int n;

	switch (mrc_wrtt_classify(&w->pcfg, buf, len, &p)) {
	case MRC_WRTT_REQUEST:
		if (w->n_replies == WR_RTT_REPLIES) {
			w->replies_dropped++; /* the requester counts it lost */
			return true;
		}
		r = &w->replies[w->n_replies];
		n = mrc_wrtt_reply(w->m.plan, &w->pcfg, w->rank, w->nranks, &p, r->pkt,
			sizeof(r->pkt), &r->plane);
		if (n > 0 && r->plane < w->planes) {
			r->len = (uint16_t)n;
			w->n_replies++;
		}
		return true;
	case MRC_WRTT_REPLY:
		if (w->rtt)
			mrc_wrtt_on_reply(w->rtt, &p, mono_ns());
		return true;
	default:
		return false;
	}
}

static void on_rx(void *ctx, int sock_idx, const uint8_t *buf, size_t len,
	const struct mrc_loop_rx_info *info)
{
	struct wr *w = ctx;
	int plane = -1;
	bool ce = info->tclass >= 0 && (info->tclass & 3) == 3;

	(void)sock_idx;
	for (unsigned p = 0; p < w->planes; p++) {
		if (info->ifindex == (int)w->ports[p].ifindex) {
			plane = (int)p;
			break;
		}
	}
	if (plane < 0) {
		w->rx_foreign++;
		return;
	}

	for (size_t i = 0; i < w->n_taps; i++)
		if (w->taps[i].ingress && w->taps[i].plane == plane)
			tap_put(w, &w->taps[i], buf, len);
	if (rtt_rx(w, buf, len) || !w->ep)
		return; /* an echo probe, or the endpoint is not built yet */
	if (w->epf) {
		uint8_t cut[MRC_PKT_MAX];
		struct mrc_epf_pkt fp;
		uint64_t now = mono_ns() * 1000;

		if (epf_pkt(w, buf, len, false, &fp) == 0 &&
			mrc_epf_rx(w->epf, &fp, now, &ce) == MRC_EPF_TRIM && len <= sizeof(cut)) {
			int n;

			memcpy(cut, buf, len);
			n = mrc_wire_trim(cut, len, w->job->fabric.trim_size_bytes,
				w->dcfg.dscp_trimmed);
			if (n > 0) {
				mrc_ep_on_rx(w->ep, (unsigned)plane, cut, (size_t)n, ce, now);
				return;
			}
		}
	}
	mrc_ep_on_rx(w->ep, (unsigned)plane, buf, len, ce, mono_ns() * 1000);
}

/*
 * Sends the @n bytes on plane @p that were written into the send slot mrc_loop_tx_buf
 * lent (@pkt): egress captures, then the kernel with the next submit.
 */
static void send_slot(struct wr *w, unsigned p, const uint8_t *pkt, size_t n)
{
	struct sockaddr_in6 sa;

	if (mrc_sock_dst_of(pkt, n, &sa))
		return;
	for (size_t i = 0; i < w->n_taps; i++)
		if (w->taps[i].egress && w->taps[i].plane == (int)p)
			tap_put(w, &w->taps[i], pkt, n);
	mrc_loop_tx_commit(w->loop, w->tx_idx[p], n, &sa);
}

/* Sends the delayed packets that are due, while the send pool has room. */
static void tx_due(struct wr *w)
{
	uint8_t *buf;
	size_t cap;
	unsigned p;
	int n;

	while ((buf = mrc_loop_tx_buf(w->loop, &cap)) &&
		(n = mrc_epf_due(w->epf, mono_ns() * 1000, buf, cap, &p)) > 0)
		send_slot(w, p, buf, (size_t)n);
}

/* The fault hook's view of a packet leaving (@outer) or reaching this host. */
static int epf_pkt(struct wr *w, const uint8_t *buf, size_t len, bool outer,
	struct mrc_epf_pkt *fp)
{
	struct mrc_pkt k;
	uint32_t t1 = w->job->fabric.t1;

	if (mrc_wire_decode(&w->dcfg, buf, len, outer, &k) != MRC_WIRE_OK)
		return -EINVAL;
	/* inner port addresses end in plane : host : 1 (srv6.h mrc_srv6_host_addr) */
	fp->plane = mrc_srv6_ev_plane(&w->m.params.ev, k.ev);
	fp->spine = mrc_srv6_ev_spine(&w->m.params.ev, k.ev) % (t1 ? t1 : 1);
	fp->src = get_be16(k.src.b + 12);
	fp->dst = get_be16(k.dst.b + 12);
	return 0;
}

/* Sends the queued echo answers, then this rank's next echo requests, while slots last. */
static void rtt_tx(struct wr *w)
{
	unsigned done = 0, plane;
	uint8_t *buf;
	size_t cap;
	int n;

	while (done < w->n_replies && (buf = mrc_loop_tx_buf(w->loop, &cap))) {
		struct rtt_reply *r = &w->replies[done++];

		if (r->len <= cap) {
			memcpy(buf, r->pkt, r->len);
			send_slot(w, r->plane, buf, r->len);
		}
	}
	memmove(w->replies, w->replies + done, (w->n_replies - done) * sizeof(*w->replies));
	w->n_replies -= done;
	while (w->rtt && (buf = mrc_loop_tx_buf(w->loop, &cap)) &&
		(n = mrc_wrtt_next(w->rtt, mono_ns(), buf, cap, &plane)) != 0) {
		if (n > 0 && plane < w->planes)
			send_slot(w, plane, buf, (size_t)n);
	}
}

/*
 * Pulls packets from every plane in turn until the engine has nothing more or the send
 * pool is full; the engine encodes each straight into its send slot (no copy).
 */
static void tx_all(struct wr *w)
{
	uint64_t now = mono_ns() * 1000;
	bool more = true;

	rtt_tx(w);
	if (!w->ep)
		return;
	if (w->epf)
		tx_due(w);
	while (more) {
		more = false;
		for (unsigned p = 0; p < w->planes; p++) {
			struct mrc_epf_pkt fp;
			uint64_t rel;
			uint8_t *buf;
			size_t cap;
			int n;

			buf = mrc_loop_tx_buf(w->loop, &cap);
			if (!buf)
				return; /* the pool is full: completions come with the next turn */
			n = mrc_ep_tx(w->ep, p, now, buf, cap);
			if (n <= 0)
				continue;
			more = true;
			if (w->epf && epf_pkt(w, buf, (size_t)n, true, &fp) == 0) {
				switch (mrc_epf_tx(w->epf, &fp, now, &rel)) {
				case MRC_EPF_DROP:
					continue; /* the slot stays free */
				case MRC_EPF_DELAY:
					mrc_epf_hold(w->epf, p, buf, (size_t)n, rel);
					continue;
				default:
					break;
				}
			}
			send_slot(w, p, buf, (size_t)n);
		}
		now = mono_ns() * 1000;
	}
}

/* One turn: send, wait (bounded by the engine's timer and @max_wait_ns), receive, timers,
 * control messages. */
static void pump(struct wr *w, uint64_t max_wait_ns)
{
	uint64_t now, t, wait = max_wait_ns;
	int e;

	tx_all(w);
	now = mono_ns();
	t = w->ep ? mrc_ep_next_timer(w->ep) : UINT64_MAX;
	if (w->epf && mrc_epf_next_release(w->epf) < t)
		t = mrc_epf_next_release(w->epf);
	if (w->rtt && mrc_wrtt_next_timer(w->rtt) * 1000 < t)
		t = mrc_wrtt_next_timer(w->rtt) * 1000;
	if (t != UINT64_MAX) {
		uint64_t t_ns = t / 1000;

		if (t_ns <= now)
			wait = 0;
		else if (t_ns - now < wait)
			wait = t_ns - now;
	}
	e = mrc_loop_run_once(w->loop, wait);
	if (e < 0) {
		wr_fail(w, e, "io_uring: %s", strerror(-e));
		return;
	}
	now = mono_ns();
	if (w->ep && mrc_ep_next_timer(w->ep) <= now * 1000)
		mrc_ep_on_timer(w->ep, now * 1000);
	tx_all(w);
	if (now - w->last_poll_ns >= WR_POLL_NS || e == 0) {
		w->last_poll_ns = now;
		ctl_poll(w);
	}
}

/* Pumps until @cond(w) holds, the job fails, or the timeout passes (then fails with @what). */
static int pump_until(struct wr *w, bool (*cond)(struct wr *), const char *what)
{
	uint64_t deadline = mono_ns() + w->timeout_ns;

	while (!w->err && !cond(w)) {
		if (mono_ns() > deadline) {
			wr_fail(w, -ETIMEDOUT, "%s: nothing within %llu ms", what,
				(unsigned long long)(w->timeout_ns / 1000000));
			break;
		}
		pump(w, WR_MAX_WAIT_NS);
	}
	return w->err;
}

static bool all_got(struct wr *w)
{
	for (uint32_t r = 1; r < w->nranks; r++)
		if (!w->got[r])
			return false;
	return true;
}

static bool all_mr(struct wr *w)
{
	for (uint32_t r = 1; r < w->nranks; r++)
		if (w->mr_of[r] != w->want_mr)
			return false;
	return true;
}

static bool coll_done(struct wr *w)
{
	return mrc_coll_done(w->coll);
}

static bool got_mrtab(struct wr *w)
{
	return w->got_mrtab;
}

static bool got_arm(struct wr *w)
{
	return w->arm_of == w->want_iter + 1;
}

static bool got_go(struct wr *w)
{
	return w->go_of == w->want_iter + 1;
}

static bool got_finish(struct wr *w)
{
	return w->got_finish;
}

static void clear_got(struct wr *w)
{
	memset(w->got, 0, w->nranks * sizeof(*w->got));
}

/* Names the ranks rank 0 still waits for, into the failure message. */
static void name_missing(struct wr *w)
{
	size_t k = strlen(w->errmsg);

	if (w->rank || w->err != -ETIMEDOUT)
		return;
	k += snprintf(w->errmsg + k, sizeof(w->errmsg) - k, " from");
	for (uint32_t r = 1; r < w->nranks && k < sizeof(w->errmsg); r++)
		if (!w->got[r])
			k += snprintf(w->errmsg + k, sizeof(w->errmsg) - k, " h%u", r);
}

/* ---- setup ---------------------------------------------------------------------------- */

static int setup_ports(struct wr *w, char *err, size_t errlen)
{
	w->planes = w->job->fabric.planes;
	if (w->planes > MRC_WIRERUN_MAX_PLANES) {
		snprintf(err, errlen, "fabric.planes: the wire driver handles at most %d '%u'",
			MRC_WIRERUN_MAX_PLANES, w->planes);
		return -EINVAL;
	}
	for (unsigned p = 0; p < w->planes; p++) {
		char name[16];
		const char *ifn = w->o->ports[p];
		int e;

		if (!ifn) {
			snprintf(name, sizeof(name), "p%u", p);
			ifn = name;
		}
		e = mrc_sock_port_open(ifn, 0, &w->ports[p], err, errlen);
		if (e)
			return e;
		close(w->ports[p].rx_fd); /* one receive socket serves every plane */
		w->ports[p].rx_fd = -1;
	}
	w->rx_fd = mrc_sock_rx_open_all(w->planes * (4u << 20), err, errlen);
	return w->rx_fd < 0 ? w->rx_fd : 0;
}

static int setup_loop(struct wr *w, char *err, size_t errlen)
{
	struct mrc_loop_params lp = { .sq_entries = 1024, .rx_bufs = 2048,
		.tx_bufs = WR_TX_SLOTS, .tx_buf_size = MRC_PKT_MAX };
	int e = mrc_loop_new(&lp, &w->loop, err, errlen);

	if (e)
		return e;
	e = mrc_loop_add_rx_socket(w->loop, w->rx_fd, on_rx, w);
	if (e < 0) {
		snprintf(err, errlen, "io_uring: add the receive socket: %s", strerror(-e));
		return e;
	}
	for (unsigned p = 0; p < w->planes; p++) {
		w->tx_idx[p] = mrc_loop_add_tx_socket(w->loop, w->ports[p].tx_fd);
		if (w->tx_idx[p] < 0) {
			snprintf(err, errlen, "io_uring: add the send socket of port %u: %s", p,
				strerror(-w->tx_idx[p]));
			return w->tx_idx[p];
		}
	}
	return 0;
}

static int setup_ep(struct wr *w, char *err, size_t errlen)
{
	static const struct mrc_ep_ops ops = { NULL, ep_send_done, ep_recv_imm, ep_ev_event };
	struct mrc_ep_params p;
	int e = mrc_run_ep_params(w->job, &w->m, w->nranks, w->rtt_out->base_rtt_ns * 1000, &p);

	if (e)
		return e;
	p.host = w->rank;
	p.seed = w->job->seed * 0x9E3779B97F4A7C15ull + w->rank;
	p.path = ep_path;
	p.ev_plane = ep_ev_plane;
	/*
	 * Arrivals are checked by their ICRC alone, as RoCEv2 receivers do: the CRC-32 covers
	 * every byte the UDP checksum does (inner addresses and lengths, UDP ports, payload),
	 * so the one's-complement sum would catch nothing more, and it cost 3% of a rank's
	 * CPU in the wire bench (perf). Senders still write it (captures show it good).
	 */
	p.wire.check_csum = false;
	w->dcfg = p.wire;
	w->dcfg.check_icrc = w->dcfg.check_csum = false;
	e = mrc_ep_new(&p, &ops, w, &w->ep);
	mrc_run_ep_params_free(&p);
	if (e) {
		snprintf(err, errlen, "endpoint h%u: %s", w->rank, strerror(-e));
		return e;
	}
	/*
	 * One QP per peer, created in peer order on every rank: rank a's QP to b is number
	 * (b < a ? b + 1 : b), so both ends know each other's QPN without asking.
	 */
	for (uint32_t peer = 0; peer < w->nranks; peer++) {
		uint32_t want = peer < w->rank ? peer + 1 : peer, qpn;

		if (peer == w->rank)
			continue;
		e = mrc_ep_qp_create(w->ep, peer, w->rank < peer ? w->rank + 1 : w->rank, &qpn);
		if (!e && qpn != want)
			e = -EPROTO;
		if (e) {
			snprintf(err, errlen, "endpoint h%u: QP to h%u: %s", w->rank, peer,
				strerror(-e));
			return e;
		}
		w->peer_of_qpn[qpn] = peer;
	}
	return 0;
}

/* The faults: timeline at this endpoint (mrc/wire/epfault.h), each host with its own draws. */
static int setup_faults(struct wr *w, char *err, size_t errlen)
{
	const struct conf_job *j = w->job;
	struct mrc_epf_params p = {
		.planes = j->fabric.planes, .t0 = j->fabric.t0, .t1 = j->fabric.t1,
		.hosts_per_t0 = j->fabric.hosts_per_t0,
		.seed = j->seed * 0xD1B54A32D192ED03ull + w->rank,
		.trim = j->fabric.trim, .trim_size = (uint32_t)j->fabric.trim_size_bytes,
		.dscp_trimmed = j->mrc.dscp.trimmed, .link_rate_bps = j->fabric.link_rate_bps,
		.ecn_threshold_bytes = j->fabric.ecn_threshold_bytes,
	};

	if (!j->n_faults)
		return 0;
	return mrc_epf_new(&p, j->faults, j->n_faults, &w->epf, err, errlen);
}

static int setup_captures(struct wr *w, char *err, size_t errlen)
{
	const struct conf_output *o = &w->job->output;

	w->taps = calloc(o->n_captures + 1, sizeof(*w->taps));
	if (!w->taps)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_captures; i++) {
		const struct conf_capture *c = &o->captures[i];
		const struct conf_node *n = &c->node;
		char path[4096], perr[PCAPW_ERRBUF_SIZE], name[64];
		struct tap *t;
		int e;

		if (n->kind != CONF_NODE_PORT && n->kind != CONF_NODE_LINK_HOST_T0) {
			snprintf(err, errlen, "capture %s: the wire driver captures host ports only "
				 "(h0.p0, h0.p0-p0.t0.0); capture switches with tcpdump", c->point);
			return -EINVAL;
		}
		if (n->host != w->rank)
			continue; /* another host's port: that host writes it */
		snprintf(path, sizeof(path), "%s/%s", o->dir,
			 conf_capture_file(c, name, sizeof(name)));
		t = &w->taps[w->n_taps];
		e = pcapw_open(path, c->snaplen, c->tsresol == CONF_TS_US ? PCAPW_TS_US : PCAPW_TS_NS,
			&t->w, perr);
		if (e) {
			snprintf(err, errlen, "capture %s: %s", c->point, perr);
			return e;
		}
		w->n_taps++;
		pcapw_set_flush_every(t->w, 256);
		t->plane = (int)n->plane;
		/* a link written T0 first is seen from the switch: its egress is our ingress */
		t->egress = c->dir == CONF_CAP_BOTH ||
			    (c->dir == CONF_CAP_EGRESS) != (n->kind == CONF_NODE_LINK_HOST_T0 &&
								n->reverse);
		t->ingress = c->dir == CONF_CAP_BOTH || !t->egress;
	}
	return 0;
}

static int new_hist(const struct conf_hist *c, struct mrc_hist **h)
{
	return mrc_hist_init((int64_t)c->lowest_ns, (int64_t)c->highest_ns, (int)c->sigfigs, h);
}

/* The codec of echo probes: the job's, with checksum and ICRC verified. */
static int setup_probe_codec(struct wr *w)
{
	struct mrc_ep_params p;
	int e = mrc_run_ep_params(w->job, &w->m, w->nranks, 0, &p);

	if (e)
		return e;
	w->pcfg = p.wire;
	w->pcfg.check_icrc = w->pcfg.check_csum = true;
	w->pcfg.csum_offload = false;
	mrc_run_ep_params_free(&p);
	w->replies = calloc(WR_RTT_REPLIES, sizeof(*w->replies));
	return w->replies ? 0 : -ENOMEM;
}

static bool got_rttgo(struct wr *w)
{
	return w->got_rttgo;
}

static bool got_rttset(struct wr *w)
{
	return w->got_rttset;
}

static bool rtt_done(struct wr *w)
{
	return mrc_wrtt_done(w->rtt, mono_ns());
}

/*
 * The job's base RTT, before any endpoint exists: mrc.cc.base_rtt when set; else every
 * rank probes its peers on every plane (mrc/wire/wrtt.h) once rank 0 says all have joined,
 * rank 0 takes the largest rank's figure and sends it to all. Echo requests are answered
 * all along. Fills w->rtt_out.
 */
static int measure_rtt(struct wr *w)
{
	struct mrc_wirerun_rtt *o = w->rtt_out;
	struct mrc_wrtt_params tp = { .plan = w->m.plan, .cfg = &w->pcfg, .rank = w->rank,
		.nranks = w->nranks, .window = WR_RTT_WINDOW, .probe_timeout_ns = WR_RTT_TIMEOUT_NS,
		.budget_ns = WR_RTT_BUDGET_NS, .percentile = WR_RTT_PERCENTILE };
	struct mrc_wrtt_stats s;
	uint32_t *evs;
	uint8_t msg[16];
	int e;

	o->nranks = w->nranks;
	if (w->job->mrc.cc.base_rtt_ps) {
		o->base_rtt_ns = w->job->mrc.cc.base_rtt_ps / 1000;
		o->source = MRC_WIRERUN_RTT_CONFIG;
		return 0;
	}
	evs = calloc(w->m.n_evs + 1, sizeof(*evs));
	if (!evs)
		return -ENOMEM;
	for (size_t i = 0; i < w->m.n_evs; i++)
		if (!w->m.evs[i].denied)
			evs[tp.n_evs++] = w->m.evs[i].ev;
	tp.evs = evs;
	tp.per_peer = WR_RTT_PER_PEER > 4 * w->planes ? WR_RTT_PER_PEER : 4 * w->planes;
	if (w->rank == 0) {
		o->rank_ns = calloc(w->nranks, sizeof(*o->rank_ns));
		if (!o->rank_ns) {
			free(evs);
			return -ENOMEM;
		}
		clear_got(w); /* before RTTGO: a fast rank's RTT may come while this one probes */
		if (rv_bcast(w, RV_RTTGO, NULL, 0)) {
			free(evs);
			return w->err;
		}
	} else if (pump_until(w, got_rttgo, "rendezvous: start of the RTT probes from h0")) {
		free(evs);
		return w->err;
	}
	e = mrc_wrtt_new(&tp, mono_ns(), &w->rtt);
	free(evs);
	if (e) {
		wr_fail(w, e, "base RTT: probes: %s", strerror(-e));
		return e;
	}
	pump_until(w, rtt_done, "base RTT: probes");
	mrc_wrtt_stats(w->rtt, mono_ns(), &s);
	mrc_wrtt_free(w->rtt);
	w->rtt = NULL;
	if (w->err)
		return w->err;
	fprintf(stderr, "h%u: base RTT: ", w->rank);
	if (s.figure_ns)
		fprintf(stderr, "%.1f us (p%u of %u answers, min %.1f us, max %.1f us, %u lost)\n",
			(double)s.figure_ns / 1e3, WR_RTT_PERCENTILE, s.answered,
			(double)s.min_ns / 1e3, (double)s.max_ns / 1e3, s.lost);
	else
		fprintf(stderr, "no figure: %u of %u probes answered within %llu ms\n", s.answered,
			s.sent, (unsigned long long)(WR_RTT_TIMEOUT_NS / 1000000));
	if (w->rank) {
		put_be64(msg, s.figure_ns);
		put_be32(msg + 8, s.sent);
		put_be32(msg + 12, s.answered);
		w->got_rttset = false;
		if (rv_send(w, &w->conns[0], RV_RTT, msg, 16) ||
			pump_until(w, got_rttset, "rendezvous: base RTT from h0"))
			return w->err;
		return 0;
	}
	o->rank_ns[0] = s.figure_ns;
	o->probes_sent += s.sent; /* the workers' may have come in already */
	o->probes_answered += s.answered;
	if (pump_until(w, all_got, "rendezvous: base RTT")) {
		name_missing(w);
		return w->err;
	}
	o->base_rtt_ns = mrc_wrtt_agree(o->rank_ns, w->nranks);
	o->source = MRC_WIRERUN_RTT_MEASURED;
	if (!o->base_rtt_ns) {
		o->base_rtt_ns = MRC_WIRERUN_RTT_DEFAULT_NS;
		o->source = MRC_WIRERUN_RTT_DEFAULT;
		fprintf(stderr, "h0: base RTT: no rank measured one (%llu of %llu probes "
			"answered): NSCC starts from the wire default %.0f us (mrc.cc.base_rtt sets it)\n",
			(unsigned long long)o->probes_answered, (unsigned long long)o->probes_sent,
			(double)o->base_rtt_ns / 1e3);
	} else {
		fprintf(stderr, "h0: base RTT of the job: %.1f us (the largest rank's figure)\n",
			(double)o->base_rtt_ns / 1e3);
	}
	put_be64(msg, o->base_rtt_ns);
	msg[8] = (uint8_t)o->source;
	return rv_bcast(w, RV_RTTSET, msg, 9);
}

/* ---- results -------------------------------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static uint8_t *buf_grow(struct buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		size_t c = b->cap ? b->cap : 1024;
		uint8_t *np;

		while (c < b->len + n)
			c *= 2;
		np = realloc(b->p, c);
		if (!np) {
			b->oom = true;
			return NULL;
		}
		b->p = np;
		b->cap = c;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void buf_u32(struct buf *b, uint32_t v)
{
	uint8_t *p = buf_grow(b, 4);

	if (p)
		put_be32(p, v);
}

static void buf_u64(struct buf *b, uint64_t v)
{
	uint8_t *p = buf_grow(b, 8);

	if (p)
		put_be64(p, v);
}

/* The plan position of EV @value, profile position @e (the same order, normally), or
 * n_evs when the plan has no such EV. */
static size_t plan_ev(const struct wr *w, unsigned e, uint32_t value)
{
	size_t k = 0;

	if (e < w->m.n_evs && w->m.evs[e].ev == value)
		return e;
	while (k < w->m.n_evs && w->m.evs[k].ev != value)
		k++;
	return k;
}

/* This rank's counters, per-EV counters and histograms, as a RESULT body. */
static int encode_result(struct wr *w, struct buf *b)
{
	struct mrc_run_result r = { 0 };
	struct mrc_ep_stats es;
	struct mrc_loop_counters lc;
	struct mrc_hist *hs[3] = { w->msg_ns, w->step_ns, w->rtt_ns };
	uint64_t (*ev)[WR_EV_FIELDS] = calloc(w->m.n_evs + 1, sizeof(*ev));
	const struct mrc_ev_profile *prof;

	if (!ev)
		return -ENOMEM;
	mrc_ep_get_stats(w->ep, &es);
	mrc_loop_get_counters(w->loop, &lc);
	r.rx_decode_err = es.rx_decode_err;
	r.tx_encode_err = es.tx_encode_err;
	for (size_t i = 0; i < w->n_taps; i++) /* the last records reach the file now */
		if (!w->taps[i].failed && pcapw_flush(w->taps[i].w)) {
			w->taps[i].failed = true;
			fprintf(stderr, "mrcgen: h%u: capture: %s\n", w->rank,
				pcapw_error(w->taps[i].w));
		}
	for (size_t i = 0; i < w->n_taps; i++)
		r.capture_errors += w->taps[i].failed;
	r.injected = lc.tx;
	r.delivered = lc.rx;
	r.fab_drops = lc.send_errors + lc.sock_drops + lc.cq_dropped + lc.truncated + w->rx_foreign;
	for (uint32_t qpn = 1; qpn < w->nranks; qpn++) {
		const struct mrc_ev_set *set = mrc_ep_qp_evs(w->ep, qpn);
		struct mrc_qp_stats s;
		const char *why;

		if (mrc_ep_qp_stats(w->ep, qpn, &s))
			continue;
		r.data_pkts += s.data_pkts;
		r.data_bytes += s.data_bytes;
		r.rtx_pkts += s.rtx_pkts;
		r.rtx_bytes += s.rtx_bytes;
		r.sacks += s.sack_rx;
		for (int k = 0; k < MRC_NI_COUNT; k++)
			r.nacks += s.nack_rx[k];
		r.nack_trimmed += s.nack_rx[MRC_NI_TRIMMED] + s.nack_rx[MRC_NI_TRIMMED_LASTHOP];
		r.probes += s.probes_tx;
		r.ecn_echoes += s.ecn_echo_rx;
		r.losses_sack += s.loss_sack;
		r.losses_rto += s.loss_rto;
		r.losses_port += s.loss_port;
		r.losses_path += s.loss_path;
		r.tlp += s.tlp;
		r.gbn_rewinds += s.gbn_rewinds;
		r.rx_dup += s.rx_dup;
		r.rx_reordered += s.rx_reordered;
		r.fab_ecn += s.rx_ce;
		if (s.rtt_samples)
			mrc_hist_record(w->rtt_ns, (int64_t)(s.rtt_sum_ps / s.rtt_samples / 1000));
		if (mrc_qp_failed(mrc_ep_qp(w->ep, qpn), &why))
			r.qp_errors++;
		for (unsigned e = 0; set && set->n_bad && e < set->n; e++)
			if (mrc_ev_state(set, e) == MRC_EV_ASSUMED_BAD)
				ev[plan_ev(w, e, mrc_ev_value(set, e))][11]++; /* [n_evs]: unused */
	}
	/* the per-EV counters are the endpoint's, summed over all its QPs (those above) */
	prof = mrc_ep_ev_profile(w->ep);
	for (unsigned e = 0; e < prof->n; e++) {
		const struct mrc_ev_stats *v = &prof->st[e];
		uint64_t *c = ev[plan_ev(w, e, prof->value[e])]; /* [n_evs]: not in the plan */

		c[0] += v->tx_pkts;
		c[1] += v->rtx_pkts;
		c[2] += v->losses;
		c[3] += v->ecn;
		c[4] += v->trims;
		c[5] += v->nacks;
		c[6] += v->probes;
		c[7] += v->probes_ok;
		c[8] += v->changes;
		c[9] += v->rtt_samples;
		c[10] += v->rtt_sum_ps;
	}
	buf_u32(b, WR_N_CTRS);
#define WR_PUT(f) buf_u64(b, r.f);
	WR_CTRS(WR_PUT)
#undef WR_PUT
	buf_u64(b, w->evs_retired);
	buf_u32(b, (uint32_t)w->m.n_evs);
	for (size_t k = 0; k < w->m.n_evs; k++)
		for (int f = 0; f < WR_EV_FIELDS; f++)
			buf_u64(b, ev[k][f]);
	free(ev);
	for (int i = 0; i < 3; i++) {
		uint8_t *enc = NULL, *p;
		size_t n = 0;
		int e = mrc_hist_encode(hs[i], &enc, &n);

		if (e)
			return e;
		buf_u32(b, (uint32_t)n);
		p = buf_grow(b, n);
		if (p)
			memcpy(p, enc, n);
		free(enc);
	}
	buf_u32(b, (uint32_t)w->n_bad);
	for (size_t i = 0; i < w->n_bad; i++) {
		buf_u32(b, w->bad[i].iter);
		buf_u64(b, w->bad[i].off_ps);
	}
	return b->oom ? -ENOMEM : 0;
}

/* Adds one RESULT body into @res (rank 0). */
static int merge_result(struct wr *w, struct mrc_run_result *res, uint32_t rank,
	const uint8_t *b, size_t len, uint64_t *retired)
{
	size_t off = 0, need;
	struct mrc_hist *dst[3] = { res->msg_ns, res->step_ns, res->rtt_ns };
	uint32_t n;

#define NEED(k)                                                                                    \
	do {                                                                                       \
		if (len - off < (size_t)(k))                                                       \
			goto bad;                                                                  \
	} while (0)
	NEED(4);
	if (get_be32(b) != WR_N_CTRS)
		goto bad;
	off = 4;
	NEED(WR_N_CTRS * 8 + 8 + 4);
#define WR_GET(f) res->f += get_be64(b + off), off += 8;
	WR_CTRS(WR_GET)
#undef WR_GET
	*retired += get_be64(b + off);
	off += 8;
	n = get_be32(b + off);
	off += 4;
	if (n != res->n_evs)
		goto bad;
	need = (size_t)n * WR_EV_FIELDS * 8;
	NEED(need);
	for (uint32_t k = 0; k < n; k++) {
		struct mrc_run_ev *e = &res->evs[k];
		uint64_t v[WR_EV_FIELDS];

		for (int f = 0; f < WR_EV_FIELDS; f++, off += 8)
			v[f] = get_be64(b + off);
		e->tx_pkts += v[0];
		e->rtx_pkts += v[1];
		e->losses += v[2];
		e->ecn += v[3];
		e->trims += v[4];
		e->nacks += v[5];
		e->probes += v[6];
		e->probes_ok += v[7];
		e->changes += v[8];
		e->rtt_samples += v[9];
		e->rtt_sum_ps += v[10];
		e->bad_qps += (uint32_t)v[11];
	}
	for (int i = 0; i < 3; i++) {
		struct mrc_hist *h = NULL;
		uint32_t hl;

		NEED(4);
		hl = get_be32(b + off);
		off += 4;
		NEED(hl);
		if (mrc_hist_decode(b + off, hl, &h))
			goto bad;
		off += hl;
		mrc_hist_add(dst[i], h);
		mrc_hist_free(h);
	}
	NEED(4);
	n = get_be32(b + off);
	off += 4;
	NEED((size_t)n * 12);
	/* rank 0's own list is what it appends to: its entries are already there */
	for (uint32_t i = 0; rank && i < n; i++)
		bad_add(w, get_be32(b + off + (size_t)i * 12),
			get_be64(b + off + (size_t)i * 12 + 4));
#undef NEED
	return 0;
bad:
	wr_fail(w, -EPROTO, "rendezvous: rank %u (h%u): malformed RESULT (%zu bytes)", rank, rank,
		len);
	return -EPROTO;
}

/* ---- faults in the report ------------------------------------------------------------ */


/* The simulator's action names (mrc_fab_fault_name), for one report schema across drivers. */
static void wf_action(const struct conf_fault *cf, bool revert, char *out, size_t n)
{
	const char *what = cf->node.kind == CONF_NODE_PORT ? "nic" :
			   cf->node.kind == CONF_NODE_T0 || cf->node.kind == CONF_NODE_T1 ?
									     "switch" :
									     "link";
	bool down = cf->action == CONF_FA_DOWN, up = cf->action == CONF_FA_UP;

	if (down || up)
		snprintf(out, n, "%s_%s", what, down != revert ? "down" : "up");
	else if (cf->action == CONF_FA_BLACKHOLE)
		snprintf(out, n, "%s", revert ? "unblackhole" : "blackhole");
	else if (cf->action == CONF_FA_CLEAR)
		snprintf(out, n, "loss_end");
	else
		snprintf(out, n, "%s%s", conf_name_of(conf_fault_action_names, cf->action),
			revert ? "_end" : "");
}

static int wf_add(struct mrc_run_result *res, const struct conf_job *j,
	const struct conf_fault *cf, uint64_t at_ps, bool revert)
{
	struct mrc_run_fault *nf = realloc(res->faults, (res->n_faults + 1) * sizeof(*nf));
	bool clears = revert || cf->action == CONF_FA_UP || cf->action == CONF_FA_CLEAR;

	if (!nf)
		return -ENOMEM;
	res->faults = nf;
	nf = &res->faults[res->n_faults++];
	memset(nf, 0, sizeof(*nf));
	nf->at_ps = at_ps;
	nf->clears = clears;
	wf_action(cf, revert, nf->action, sizeof(nf->action));
	snprintf(nf->target, sizeof(nf->target), "%s", cf->target);
	nf->first_retire_ps = -1;
	nf->recovery_ps = -1;
	nf->recovery_note = "the wire driver keeps no goodput bins: see first_ev_retired_us and "
			    "cct_inflation";
	nf->capacity_frac = clears ? 1.0 : mrc_run_capacity_left(&j->fabric, cf);
	return 0;
}

static int wf_cmp(const void *a, const void *b)
{
	const struct mrc_run_fault *x = a, *y = b;

	return x->at_ps < y->at_ps ? -1 : x->at_ps > y->at_ps;
}

/*
 * Rank 0: the endpoint faults of the `faults:` timeline as report faults[] entries, as the
 * simulator writes its fabric faults — when each took effect (every rank applies the same
 * timeline on its own clock from its first GO, so times are rank 0's and agree with the
 * others' to the start barrier's skew), its iteration, the EVs every rank retired from
 * then to that iteration's end, the CCT inflation of that iteration over the fault-free
 * ones of its size and its slowest rank. Marks the iterations that ran degraded.
 */
static int wire_faults(struct wr *w, struct mrc_run_result *res)
{
	const struct conf_job *j = w->job;
	double *clean_sum, *clean_n;

	for (size_t i = 0; i < j->n_faults; i++) {
		const struct conf_fault *cf = &j->faults[i];
		bool reverts = cf->has_duration && cf->action != CONF_FA_UP &&
			       cf->action != CONF_FA_CLEAR;

		for (size_t k = 0; k < res->n_iters; k++) {
			const struct mrc_run_iter *it = &res->iters[k];
			uint64_t at;

			if (cf->has_at && k == 0)
				at = cf->at_ps;
			else if (cf->has_at_iteration && !it->warmup &&
				 it->measured == cf->at_iteration)
				at = it->start_ps;
			else
				continue;
			if (wf_add(res, j, cf, at, false) ||
				(reverts && wf_add(res, j, cf, at + cf->duration_ps, true)))
				return -ENOMEM;
		}
	}
	if (!res->n_faults)
		return 0;
	qsort(res->faults, res->n_faults, sizeof(*res->faults), wf_cmp);
	clean_sum = calloc(res->n_sizes + 1, sizeof(double));
	clean_n = calloc(res->n_sizes + 1, sizeof(double));
	if (!clean_sum || !clean_n) {
		free(clean_sum);
		free(clean_n);
		return -ENOMEM;
	}
	for (size_t k = 0; k < res->n_iters; k++) {
		struct mrc_run_iter *it = &res->iters[k];
		uint64_t end = it->start_ps + it->cct_ps;
		int depth = 0;

		for (size_t f = 0; f < res->n_faults; f++) {
			struct mrc_run_fault *rf = &res->faults[f];

			if (rf->at_ps < end)
				depth += rf->clears ? -1 : 1;
			/* the iteration it fell in: the last one started by then */
			if (rf->at_ps >= it->start_ps) {
				rf->iter = it->iter;
				rf->measured = it->measured;
				rf->in_warmup = it->warmup;
			}
		}
		it->degraded = depth > 0;
	}
	for (size_t k = 0; k < res->n_iters; k++) {
		struct mrc_run_iter *it = &res->iters[k];

		for (size_t f = 0; f < res->n_faults; f++) {
			if (res->faults[f].iter != it->iter)
				continue;
			it->faults++;
			if (!res->faults[f].clears)
				it->degraded = true;
		}
		if (!it->warmup && !it->degraded) {
			clean_sum[it->size_idx] += (double)it->cct_ps;
			clean_n[it->size_idx]++;
		}
	}
	for (size_t f = 0; f < res->n_faults; f++) {
		struct mrc_run_fault *rf = &res->faults[f];
		const struct mrc_run_iter *it = NULL;
		uint64_t end;

		for (size_t k = 0; k < res->n_iters; k++)
			if (res->iters[k].iter == rf->iter)
				it = &res->iters[k];
		if (!it)
			continue;
		end = it->start_ps + it->cct_ps;
		for (size_t b = 0; b < w->n_bad; b++) {
			uint64_t t;

			if (w->bad[b].iter != it->iter)
				continue;
			t = it->start_ps + w->bad[b].off_ps; /* onto rank 0's timeline */
			if (t < rf->at_ps || t > end)
				continue;
			if (rf->first_retire_ps < 0 || (int64_t)(t - rf->at_ps) < rf->first_retire_ps)
				rf->first_retire_ps = (int64_t)(t - rf->at_ps);
			rf->evs_retired++;
		}
		if (clean_n[it->size_idx] && it->cct_ps)
			rf->cct_inflation = (double)it->cct_ps /
						    (clean_sum[it->size_idx] / clean_n[it->size_idx]) -
					    1.0;
		rf->straggler_rank = it->slowest_rank;
	}
	free(clean_sum);
	free(clean_n);
	return 0;
}

/* ---- the run -------------------------------------------------------------------------- */

/* Registers this rank's regions and swaps VA/rkey with every peer through rank 0. */
static int exchange_mrs(struct wr *w, uint32_t size_idx)
{
	uint8_t msg[4 + MRC_REG_N * 12];
	uint8_t *tab;
	size_t tl = (size_t)w->nranks * MRC_REG_N * 12;

	put_be32(msg, size_idx);
	for (int g = 0; g < MRC_REG_N; g++) {
		uint64_t len;
		void *base = mrc_coll_region(w->coll, w->rank, g, &len);

		w->rkey[g] = 0;
		if (len)
			mrc_ep_reg_mr(w->ep, base, len, &w->rkey[g]);
		w->mrtab_va[w->rank][g] = (uint64_t)(uintptr_t)base;
		w->peer_rkey[w->rank][g] = w->rkey[g];
		put_be64(msg + 4 + g * 12, (uint64_t)(uintptr_t)base);
		put_be32(msg + 4 + g * 12 + 8, w->rkey[g]);
	}
	if (w->rank) {
		w->got_mrtab = false;
		if (rv_send(w, &w->conns[0], RV_MR, msg, sizeof(msg)) ||
			pump_until(w, got_mrtab, "rendezvous: memory regions from h0"))
			return w->err;
	} else {
		w->want_mr = size_idx + 1;
		for (uint32_t r = 1; r < w->nranks; r++)
			w->got[r] = w->mr_of[r] == w->want_mr; /* for name_missing */
		if (pump_until(w, all_mr, "rendezvous: memory regions")) {
			for (uint32_t r = 1; r < w->nranks; r++)
				w->got[r] = w->mr_of[r] == w->want_mr;
			name_missing(w);
			return w->err;
		}
		tab = malloc(tl);
		if (!tab)
			return -ENOMEM;
		for (uint32_t r = 0; r < w->nranks; r++) {
			for (int g = 0; g < MRC_REG_N; g++) {
				uint8_t *e = tab + ((size_t)r * MRC_REG_N + g) * 12;

				put_be64(e, w->mrtab_va[r][g]);
				put_be32(e + 8, w->peer_rkey[r][g]);
			}
		}
		rv_bcast(w, RV_MRTAB, tab, tl);
		free(tab);
		if (w->err)
			return w->err;
	}
	for (uint32_t r = 0; r < w->nranks; r++)
		for (int g = 0; g < MRC_REG_N; g++)
			mrc_coll_set_va(w->coll, r, g, w->mrtab_va[r][g]);
	return 0;
}

/*
 * One iteration of this rank: ARM (start the collective with its posts held back),
 * barrier, GO (post them), run until this rank is done, DONE. Rank 0 also gathers every
 * rank's completion time and wrong count into @ri. Completion time is measured from GO on
 * each rank's own clock.
 */
static int run_iteration(struct wr *w, uint32_t global_iter, bool warmup,
	struct mrc_run_iter *ri)
{
	uint8_t m4[4], done[20];
	uint64_t arm_ns, go_ns, t;

	put_be32(m4, global_iter);
	w->want_iter = global_iter;
	if (w->rank == 0) {
		if (rv_bcast(w, RV_ARM, m4, 4))
			return w->err;
	} else {
		if (pump_until(w, got_arm, "rendezvous: start of an iteration from h0"))
			return w->err;
	}
	w->arming = true;
	w->n_def = 0;
	arm_ns = mono_ns();
	{
		int e = mrc_coll_start(w->coll, global_iter, arm_ns * 1000);

		w->arming = false;
		if (e) {
			wr_fail(w, e, "collective: start of iteration %u: %s", global_iter,
				strerror(-e));
			return e;
		}
	}
	if (w->rank == 0) {
		clear_got(w);
		if (pump_until(w, all_got, "rendezvous: start barrier")) {
			name_missing(w);
			return w->err;
		}
		clear_got(w);
		if (rv_bcast(w, RV_GO, m4, 4))
			return w->err;
	} else {
		if (rv_send(w, &w->conns[0], RV_ARMED, m4, 4) ||
			pump_until(w, got_go, "rendezvous: start barrier from h0"))
			return w->err;
	}
	w->measuring = !warmup;
	go_ns = mono_ns();
	if (global_iter == 0)
		w->t0_ns = go_ns;
	w->go_ns = go_ns;
	w->cur_iter = global_iter;
	ri->start_ps = (go_ns - w->t0_ns) * 1000;
	if (w->epf && global_iter == 0)
		mrc_epf_start(w->epf, go_ns * 1000);
	if (w->epf && !warmup)
		mrc_epf_iteration(w->epf, w->measured_iter, go_ns * 1000);
	for (size_t i = 0; i < w->n_def; i++) {
		struct deferred *d = &w->defq[i];
		int e = post_now(w, &d->x, d->src, d->va, d->imm, d->wr_id);

		if (e) {
			wr_fail(w, e, "h%u: post to h%u: %s", w->rank, d->x.peer, strerror(-e));
			return e;
		}
	}
	w->n_def = 0;
	if (pump_until(w, coll_done, "iteration: this rank's collective made no progress"))
		return w->err;
	t = mrc_coll_rank_time(w->coll, w->rank);
	t = t > (go_ns - arm_ns) * 1000 ? t - (go_ns - arm_ns) * 1000 : 0;
	put_be32(done, global_iter);
	put_be64(done + 4, t);
	put_be64(done + 12, w->job->traffic.verify ?
			mrc_coll_verify(w->coll, w->rank, global_iter) : 0);
	for (uint32_t s = 0; !warmup && s < mrc_coll_steps(w->coll, w->rank); s++)
		mrc_hist_record(w->step_ns,
			(int64_t)(mrc_coll_step_time(w->coll, w->rank, s) / 1000));
	if (w->rank) {
		return rv_send(w, &w->conns[0], RV_DONE, done, sizeof(done));
	}
	if (pump_until(w, all_got, "rendezvous: end of an iteration")) {
		name_missing(w);
		return w->err;
	}
	w->done_ps[0] = t;
	w->wrong[0] = get_be64(done + 12);
	ri->cct_ps = 0;
	for (uint32_t r = 0; r < w->nranks; r++) {
		if (w->done_ps[r] > ri->cct_ps) {
			ri->cct_ps = w->done_ps[r];
			ri->slowest_rank = r;
		}
		ri->wrong += w->wrong[r];
	}
	return 0;
}

static enum mrc_coll_algo coll_algo(const struct conf_traffic *t)
{
	switch (t->algorithm) {
	case CONF_ALG_TREE:
		return MRC_COLL_TREE;
	case CONF_ALG_PARALLEL:
		return MRC_COLL_PARALLEL;
	case CONF_ALG_SHIFT:
		return MRC_COLL_SHIFT;
	default:
		return t->pattern == CONF_PAT_ALLTOALL ? MRC_COLL_PARALLEL : MRC_COLL_RING;
	}
}

static int run_sizes(struct wr *w, struct mrc_run_result *res, char *err, size_t errlen)
{
	const struct conf_traffic *t = &w->job->traffic;
	uint64_t sizes[64];
	size_t n_sizes = conf_sizes_expand(&t->sizes, sizes, 64);
	bool *local = calloc(w->nranks, sizeof(bool));
	uint32_t global_iter = 0;
	int e = 0;

	if (!local)
		return -ENOMEM;
	local[w->rank] = true;
	if (n_sizes > 64) {
		snprintf(err, errlen, "traffic.sizes: %zu sizes, at most 64", n_sizes);
		free(local);
		return -E2BIG;
	}
	if (res) {
		res->sizes = calloc(n_sizes, sizeof(*res->sizes));
		if (!res->sizes) {
			free(local);
			return -ENOMEM;
		}
	}
	for (size_t s = 0; s < n_sizes && !e; s++) {
		static const struct mrc_coll_ops cops = { coll_post };
		struct mrc_coll_params cp = {
			.pattern = (enum mrc_coll_pattern)t->pattern,
			.algo = coll_algo(t),
			.dtype = (enum mrc_dtype)t->dtype,
			.nranks = w->nranks,
			.count = sizes[s] / conf_dtype_size(t->dtype),
			.root = t->root_host,
			.seed = w->job->seed,
			.verify = t->verify,
			.local = local,
		};
		struct mrc_run_size *rs = NULL;
		double sum = 0;
		uint32_t n = 0;

		e = mrc_coll_new(&cp, &cops, w, &w->coll);
		if (e) {
			snprintf(err, errlen, "collective %s of %llu B over %u ranks: %s",
				mrc_coll_pattern_name(cp.pattern), (unsigned long long)sizes[s],
				w->nranks, strerror(-e));
			break;
		}
		if (res) {
			rs = &res->sizes[res->n_sizes++];
			rs->bytes = mrc_coll_bytes(w->coll);
			rs->count = cp.count;
			e = new_hist(&w->job->output.hist, &rs->cct_ns);
			if (e)
				break;
		}
		e = exchange_mrs(w, (uint32_t)s);
		for (uint32_t it = 0; !e && it < t->warmup + t->iterations; it++) {
			bool warm = it < t->warmup;
			struct mrc_run_iter ri = { .size_idx = (uint32_t)s, .iter = global_iter,
				.warmup = warm };

			w->measured_iter = warm ? 0 : it - t->warmup;
			ri.measured = w->measured_iter;
			e = run_iteration(w, global_iter++, warm, &ri);
			if (e || !res)
				continue;
			struct mrc_run_iter *ni = realloc(res->iters, (res->n_iters + 1) * sizeof(*ni));

			if (!ni) {
				e = -ENOMEM;
				break;
			}
			res->iters = ni;
			res->iters[res->n_iters++] = ri;
			if (!warm) {
				mrc_hist_record(rs->cct_ns, (int64_t)(ri.cct_ps / 1000));
				sum += (double)ri.cct_ps;
				n++;
				rs->wrong += ri.wrong;
			}
		}
		if (!e && rs) {
			rs->time_us = n ? sum / n / 1e6 : 0;
			if (rs->time_us > 0) {
				rs->algbw_gbs = (double)rs->bytes / (rs->time_us * 1e-6) / 1e9;
				rs->busbw_gbs = rs->algbw_gbs *
						mrc_coll_bus_factor(cp.pattern, w->nranks);
			}
		}
		/* the engine keeps the MRs; the buffers stay until the job ends */
		if (e)
			break;
		mrc_coll_free(w->coll);
		w->coll = NULL;
	}
	free(local);
	if (e && w->err)
		snprintf(err, errlen, "%s", w->errmsg);
	return e;
}

/* Workers: RESULT to rank 0. Rank 0: gathers and merges every rank's into @res. */
static int gather(struct wr *w, struct mrc_run_result *res, char *err, size_t errlen)
{
	struct buf b = { 0 };
	uint64_t retired = 0;
	int e;

	if (w->rank) {
		if (pump_until(w, got_finish, "rendezvous: end of the job from h0"))
			goto fail;
		e = encode_result(w, &b);
		if (!e)
			e = rv_send(w, &w->conns[0], RV_RESULT, b.p, b.len);
		free(b.p);
		if (e && !w->err)
			wr_fail(w, e, "results: %s", strerror(-e));
		if (w->err)
			goto fail;
		return 0;
	}
	clear_got(w);
	if (rv_bcast(w, RV_FINISH, NULL, 0))
		goto fail;
	e = encode_result(w, &b);
	if (e) {
		free(b.p);
		wr_fail(w, e, "results: %s", strerror(-e));
		goto fail;
	}
	res->evs = calloc(w->m.n_evs + 1, sizeof(*res->evs));
	if (!res->evs) {
		free(b.p);
		return -ENOMEM;
	}
	res->n_evs = w->m.n_evs;
	for (size_t i = 0; i < res->n_evs; i++) {
		res->evs[i].ev = w->m.evs[i].ev;
		res->evs[i].plane = mrc_srv6_ev_plane(&w->m.params.ev, w->m.evs[i].ev);
		res->evs[i].spine = mrc_srv6_ev_spine(&w->m.params.ev, w->m.evs[i].ev) %
				    w->job->fabric.t1;
	}
	e = merge_result(w, res, 0, b.p, b.len, &retired);
	free(b.p);
	if (e || pump_until(w, all_got, "rendezvous: results")) {
		name_missing(w);
		goto fail;
	}
	for (uint32_t r = 1; r < w->nranks; r++)
		if (merge_result(w, res, r, w->result[r], w->result_len[r], &retired))
			goto fail;
	(void)retired;
	return 0;
fail:
	snprintf(err, errlen, "%s", w->errmsg);
	return w->err;
}

int mrc_run_wire(const struct conf_job *job, const struct mrc_wirerun_opts *o,
	struct mrc_run_result **out, struct mrc_wirerun_rtt *rtt, uint32_t *rank_out, char *err,
	size_t errlen)
{
	struct wr w = { .job = job, .o = o, .lfd = -1, .rx_fd = -1, .rtt_out = rtt };
	struct mrc_run_result *res = NULL;
	const char *addr = o->rendezvous ? o->rendezvous : getenv("MRCGEN_RENDEZVOUS");
	char defaddr[80];
	struct timespec w0, w1;
	struct rusage ru;
	int e;

	*out = NULL;
	memset(rtt, 0, sizeof(*rtt));
	clock_gettime(CLOCK_MONOTONIC, &w0);
	for (int p = 0; p < MRC_WIRERUN_MAX_PLANES; p++)
		w.ports[p].tx_fd = w.ports[p].rx_fd = -1;
	w.timeout_ns = (o->timeout_ms ? o->timeout_ms : 60000) * 1000000ull;
	w.nranks = job->traffic.ranks ? job->traffic.ranks : conf_fabric_hosts(&job->fabric);
	if (w.nranks < 2 || w.nranks > conf_fabric_hosts(&job->fabric)) {
		snprintf(err, errlen, "traffic.ranks: %u ranks on %u hosts", w.nranks,
			conf_fabric_hosts(&job->fabric));
		return -EINVAL;
	}
	e = mrc_wirerun_rank(o->host, w.nranks, &w.rank, err, errlen);
	if (e)
		return e;
	*rank_out = w.rank;
	e = mrc_wirerun_conf_hash(job, &w.hash);
	if (e) {
		snprintf(err, errlen, "config: hash: %s", strerror(-e));
		return e;
	}
	if (!addr) {
		snprintf(defaddr, sizeof(defaddr), "unix:/tmp/mrcgen-%016llx.sock",
			(unsigned long long)w.hash);
		addr = defaddr;
	}
	e = mrc_job_srv6(job, &w.m, err, errlen);
	if (e)
		return e;
	e = -ENOMEM;
	w.n_conns = w.rank ? 1 : w.nranks;
	w.conns = calloc(w.n_conns, sizeof(*w.conns));
	w.peer_of_qpn = calloc(w.nranks + 1, sizeof(uint32_t));
	w.peer_rkey = calloc(w.nranks, sizeof(*w.peer_rkey));
	w.mrtab_va = calloc(w.nranks, sizeof(*w.mrtab_va));
	w.got = calloc(w.nranks, sizeof(bool));
	w.mr_of = calloc(w.nranks, sizeof(uint32_t));
	w.done_ps = calloc(w.nranks, sizeof(uint64_t));
	w.wrong = calloc(w.nranks, sizeof(uint64_t));
	w.result = calloc(w.nranks, sizeof(*w.result));
	w.result_len = calloc(w.nranks, sizeof(size_t));
	if (!w.conns || !w.peer_of_qpn || !w.peer_rkey || !w.mrtab_va || !w.got || !w.mr_of ||
		!w.done_ps ||
		!w.wrong || !w.result || !w.result_len)
		goto out;
	for (size_t i = 0; i < w.n_conns; i++)
		w.conns[i].fd = -1;
	e = new_hist(&job->output.hist, &w.msg_ns);
	e = e ?: new_hist(&job->output.hist, &w.step_ns);
	e = e ?: new_hist(&job->output.hist, &w.rtt_ns);
	if (e) {
		snprintf(err, errlen, "output.hist: %s", strerror(-e));
		goto out;
	}
	if (mkdir(job->output.dir, 0755) && errno != EEXIST) {
		e = -errno;
		snprintf(err, errlen, "output.dir: %s: %s", job->output.dir, strerror(errno));
		goto out;
	}
	e = setup_faults(&w, err, errlen);
	e = e ?: setup_ports(&w, err, errlen);
	e = e ?: setup_loop(&w, err, errlen);
	e = e ?: setup_probe_codec(&w);
	e = e ?: setup_captures(&w, err, errlen);
	if (e)
		goto out;
	mrc_loop_run_once(w.loop, 0); /* arm the receives before any peer can send */
	e = w.rank ? rv_join(&w, addr, err, errlen) : rv_listen(&w, addr, err, errlen);
	if (e)
		goto out;
	/* the endpoint after the base RTT: NSCC's parameters scale from it */
	e = measure_rtt(&w);
	if (e) {
		if (w.errmsg[0])
			snprintf(err, errlen, "%s", w.errmsg);
		else
			snprintf(err, errlen, "base RTT: %s", strerror(-e));
		goto out;
	}
	e = setup_ep(&w, err, errlen);
	if (e)
		goto out;
	if (w.rank == 0) {
		res = calloc(1, sizeof(*res));
		if (!res) {
			e = -ENOMEM;
			goto out;
		}
		res->nranks = w.nranks;
		e = new_hist(&job->output.hist, &res->msg_ns);
		e = e ?: new_hist(&job->output.hist, &res->step_ns);
		e = e ?: new_hist(&job->output.hist, &res->rtt_ns);
		if (e)
			goto out;
	}
	e = run_sizes(&w, res, err, errlen);
	e = e ?: gather(&w, res, err, errlen);
	e = e ?: res ? wire_faults(&w, res) : 0;
	if (e)
		goto out;
	if (res && res->tx_encode_err)
		mrc_run_add_error(res, "encode: %llu packets could not be encoded and were never "
				       "sent", (unsigned long long)res->tx_encode_err);
	if (res && res->capture_errors)
		mrc_run_add_error(res, "capture: %llu captures could not be written (the hosts' "
				       "stderr names each file)", (unsigned long long)res->capture_errors);
	for (size_t i = 0; !res && w.rank && i < w.n_taps; i++) {
		if (w.taps[i].failed) { /* rank 0 reports it too; this host's exit says so */
			snprintf(err, errlen, "%s", pcapw_error(w.taps[i].w));
			e = -EIO;
			goto out;
		}
	}
	if (res) {
		clock_gettime(CLOCK_MONOTONIC, &w1);
		res->wall_s = (double)(w1.tv_sec - w0.tv_sec) +
			      (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
		res->sim_end_ps = (uint64_t)(res->wall_s * 1e12);
		if (!getrusage(RUSAGE_SELF, &ru))
			res->peak_rss_bytes = (size_t)ru.ru_maxrss * 1024;
		*out = res;
		res = NULL;
	}
out:
	if (e && w.rank == 0 && w.conns) {
		/* tell every connected rank why, so none waits for its timeout */
		for (uint32_t r = 1; r < w.n_conns; r++) {
			uint8_t hdr[5];
			size_t l = strlen(err);

			if (w.conns[r].fd < 0)
				continue;
			put_be32(hdr, (uint32_t)l + 1);
			hdr[4] = RV_ABORT;
			if (send(w.conns[r].fd, hdr, 5, MSG_NOSIGNAL | MSG_DONTWAIT) == 5)
				send(w.conns[r].fd, err, l, MSG_NOSIGNAL | MSG_DONTWAIT);
		}
	}
	for (size_t i = 0; w.conns && i < w.n_conns; i++) {
		if (w.conns[i].fd >= 0)
			close(w.conns[i].fd);
		free(w.conns[i].buf);
	}
	if (w.lfd >= 0)
		close(w.lfd);
	if (w.rv_path[0])
		unlink(w.rv_path);
	for (size_t i = 0; i < w.n_taps; i++)
		pcapw_close(w.taps[i].w);
	free(w.taps);
	mrc_coll_free(w.coll);
	if (w.epf) {
		const struct mrc_epf_stats *fs = mrc_epf_stats(w.epf);

		fprintf(stderr, "h%u: endpoint faults: dropped %llu, delayed %llu (queue full "
			"%llu), trimmed %llu, CE-marked %llu\n", w.rank,
			(unsigned long long)fs->dropped, (unsigned long long)fs->delayed,
			(unsigned long long)fs->queue_full, (unsigned long long)fs->trimmed,
			(unsigned long long)fs->ce_marked);
	}
	mrc_epf_free(w.epf);
	mrc_ep_free(w.ep);
	mrc_loop_free(w.loop);
	for (unsigned p = 0; p < MRC_WIRERUN_MAX_PLANES; p++)
		mrc_sock_port_close(&w.ports[p]);
	if (w.rx_fd >= 0)
		close(w.rx_fd);
	for (uint32_t r = 0; w.result && r < w.nranks; r++)
		free(w.result[r]);
	free(w.result);
	free(w.result_len);
	free(w.conns);
	free(w.peer_of_qpn);
	free(w.peer_rkey);
	free(w.mrtab_va);
	free(w.got);
	free(w.mr_of);
	free(w.done_ps);
	free(w.wrong);
	free(w.defq);
	free(w.bad);
	free(w.replies);
	mrc_wrtt_free(w.rtt);
	mrc_hist_free(w.msg_ns);
	mrc_hist_free(w.step_ns);
	mrc_hist_free(w.rtt_ns);
	mrc_job_srv6_free(&w.m);
	mrc_run_result_free(res);
	return e;
}

void mrc_wirerun_rtt_free(struct mrc_wirerun_rtt *r)
{
	free(r->rank_ns);
	r->rank_ns = NULL;
}

static const char *const rtt_source_names[] = { "config", "measured", "default" };

void mrc_wirerun_rtt_to_result(struct mrc_wirerun_rtt *r, struct mrc_run_result *res)
{
	res->wire_rtt = true;
	res->base_rtt_source = rtt_source_names[r->source];
	res->base_rtt_ns = r->base_rtt_ns;
	res->rtt_probes = r->probes_sent;
	res->rtt_answered = r->probes_answered;
	free(res->rank_rtt_ns);
	res->rank_rtt_ns = r->rank_ns; /* now the result's */
	res->n_rank_rtt = r->rank_ns ? r->nranks : 0;
	r->rank_ns = NULL;
}
