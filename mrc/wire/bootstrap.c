/* SPDX-License-Identifier: BSD-2-Clause */
/* bootstrap: which rank this process is, and the rendezvous at rank 0 (wirerun.h protocol). */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/base/num.h"
#include "mrc/job/stop.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

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
		if (host[0] != 'h' || mrc_parse_u32(host + 1, &r) || (host[1] == '0' && host[2])) {
			snprintf(err, errlen, "host: --host: not a host name (h0, h1, ...) '%s'",
				host);
			return -EINVAL;
		}
		if (r >= nranks) {
			snprintf(err, errlen,
				"host: --host: '%s' takes no part: the job has %u ranks "
				"(h0..h%u)",
				host, nranks, nranks - 1);
			return -EINVAL;
		}
		*rank = r;
		return 0;
	}
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++) {
		const char *rs = getenv(env[i][0]), *ns = getenv(env[i][1]);

		if (!rs)
			continue;
		if (mrc_parse_u32(rs, &r)) {
			snprintf(err, errlen, "host: %s: not a rank '%s'", env[i][0], rs);
			return -EINVAL;
		}
		if (!ns || mrc_parse_u32(ns, &n) || n != nranks) {
			snprintf(err, errlen,
				"host: %s: the launcher starts '%s' processes, the job "
				"has %u ranks (traffic.ranks)",
				env[i][1], ns ? ns : "", nranks);
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

enum mrc_wirerun_boot mrc_wirerun_boot_pick(const struct mrc_wirerun_opts *o)
{
	if (o->bootstrap != MRC_WIRERUN_BOOT_AUTO)
		return o->bootstrap;
	if (o->host || o->rendezvous || o->token_file || getenv("MRCGEN_RENDEZVOUS"))
		return MRC_WIRERUN_BOOT_RENDEZVOUS;
	if (getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE"))
		return MRC_WIRERUN_BOOT_PMIX;
	return MRC_WIRERUN_BOOT_RENDEZVOUS;
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
	if (mrc_rv_addr_unix(p)) {
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

int wr_rv_send(struct wr *w, struct rv_conn *c, uint8_t type, const void *body, size_t len)
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
 * Reads what @c has without blocking, frames at most @max bytes long (rvproto.h). Returns 1
 * with a complete message in @m (consumed by the next call), 0 when none is complete yet,
 * -EPROTO for a bad length (the frame's length in *@bad_len), -EPIPE when the peer closed,
 * -ENOMEM, or another -errno of recv.
 */
static int rv_read(struct rv_conn *c, uint32_t max, struct rv_msg *m, size_t *consume,
	uint32_t *bad_len)
{
	struct mrc_rv_frame f;
	size_t need;

	if (*consume) {
		memmove(c->buf, c->buf + *consume, c->have - *consume);
		c->have -= *consume;
		*consume = 0;
	}
	for (;;) {
		int e = mrc_rv_frame_parse(c->buf, c->have, max, &f, &need);

		if (e < 0) {
			*bad_len = get_be32(c->buf);
			return e;
		}
		if (e > 0) {
			m->type = f.type;
			m->body = f.body;
			m->len = f.len;
			*consume = need;
			return 1;
		}
		need = need > 4096 ? need : 4096;
		if (c->cap < need) {
			uint8_t *nb = realloc(c->buf, need);

			if (!nb)
				return -ENOMEM;
			c->buf = nb;
			c->cap = need;
		}
		ssize_t n = recv(c->fd, c->buf + c->have, c->cap - c->have, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		c->have += (size_t)n;
	}
}

int wr_rv_read(struct rv_conn *c, struct rv_msg *m, size_t *consume, uint32_t *bad_len)
{
	return rv_read(c, MRC_RV_MAX_MSG, m, consume, bad_len);
}

/* Marks rank @r as the one that failed the job (rank 0; for report.json's wire object). */
static void rv_mark_failed(struct wr *w, uint32_t r)
{
	if (w->rank == 0 && w->failed && r < w->nranks)
		w->failed[r] = true;
}

/*
 * rv_read on an admitted connection: a closed connection, a bad length or an error fail the
 * job naming the rank; rank 0 takes the close of a rank that sent its RESULT as orderly.
 */
static int rv_recv(struct wr *w, struct rv_conn *c, struct rv_msg *m, size_t *consume)
{
	uint32_t len = 0;
	int e = rv_read(c, MRC_RV_MAX_MSG, m, consume, &len);

	if (e >= 0)
		return e;
	if (e == -EPIPE && w->rank == 0 && w->result[c->rank]) {
		close(c->fd); /* orderly: the rank has sent everything */
		c->fd = -1;
		return 0;
	}
	rv_mark_failed(w, c->rank);
	if (e == -EPROTO)
		wr_fail(w, -EPROTO, "rendezvous: rank %u (h%u): bad message length '%u'", c->rank,
			c->rank, len);
	else if (e == -ENOMEM)
		wr_fail(w, -ENOMEM, "rendezvous: out of memory");
	else
		wr_fail(w, -ECONNABORTED, "rendezvous: rank %u (h%u): connection %s (the process "
			"ended or crashed)", c->rank, c->rank, e == -EPIPE ? "closed" :
			e == -ECONNRESET ? "reset" : strerror(-e));
	return w->err;
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
	uint64_t now = wr_mono_ns();
	int n;

	if (now >= deadline)
		return 0;
	n = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
	return n > 0;
}

/* SIGINT or SIGTERM came while waiting at the rendezvous: says so in @err; -EINTR. */
static int rv_interrupted(char *err, size_t errlen)
{
	const char *sig = sigabbrev_np(mrc_stop_signal);

	snprintf(err, errlen, "rendezvous: interrupted by SIG%s", sig ? sig : "?");
	return -EINTR;
}

#define RV_MAX_PENDING 64 /* connections rank 0 reads HELLOs from at once; more are dropped */

/* A connection rank 0 accepted that has not sent a valid HELLO yet. */
struct rv_pending {
	struct rv_conn c;
	uint64_t deadline;	/* monotonic ns: its HELLO must be complete by then */
	char peer[80];		/* "127.0.0.1:41234", "[::1]:5000", "pid 1234 uid 0" */
};

/* Names the peer of accepted @fd for the log. */
static void rv_peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[64], port[16];

	snprintf(buf, len, "a peer");
	if (getpeername(fd, (struct sockaddr *)&ss, &sl))
		return;
	if (ss.ss_family == AF_UNIX) {
		struct ucred uc;
		socklen_t ul = sizeof(uc);

		if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul))
			snprintf(buf, len, "pid %d uid %u", (int)uc.pid, (unsigned)uc.uid);
		return;
	}
	if (!getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(buf, len, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
}

/* Drops pending connection @p, saying why on rank 0's log. */
static void rv_drop(struct wr *w, struct rv_pending *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void rv_drop(struct wr *w, struct rv_pending *p, const char *fmt, ...)
{
	FILE *f = w->rvlog ? w->rvlog : stderr;
	va_list ap;

	fprintf(f, "mrcgen: h0: rendezvous: dropped %s: ", p->peer);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
	if (p->c.fd >= 0)
		close(p->c.fd);
	free(p->c.buf);
	p->c = (struct rv_conn){ .fd = -1 };
	w->rv_dropped++;
}

/*
 * Reads pending connection @p; admits it into w->conns when its HELLO is complete and
 * valid, drops it (logged) when it is invalid, closed, too long or late. Returns 1 when it
 * was admitted, 0 otherwise.
 */
static int rv_admit(struct wr *w, struct rv_pending *p, uint64_t now)
{
	struct rv_msg m;
	struct mrc_rv_hello h;
	size_t consume = 0;
	uint32_t len = 0;
	uint8_t reply[300];
	char why[240];
	bool *joined = w->got; /* scratch: which ranks hold a connection */
	int e = rv_read(&p->c, MRC_RV_MAX_HELLO, &m, &consume, &len);

	if (e == -EPROTO) {
		rv_drop(w, p, "a %u-byte frame before its HELLO (at most %u)", len,
			MRC_RV_MAX_HELLO);
		return 0;
	}
	if (e < 0) {
		rv_drop(w, p, "connection %s before a HELLO", e == -EPIPE ? "closed" :
			strerror(-e));
		return 0;
	}
	if (e == 0) {
		if (now >= p->deadline)
			rv_drop(w, p, "no complete HELLO within %llu ms",
				(unsigned long long)(w->hello_ns / 1000000));
		return 0;
	}
	for (uint32_t r = 0; r < w->nranks; r++)
		joined[r] = r && w->conns[r].fd >= 0;
	if (m.type != RV_HELLO) {
		rv_drop(w, p, "message type %u before a HELLO", m.type);
		return 0;
	}
	e = mrc_rv_hello_parse(m.body, m.len, &h, why, sizeof(why));
	e = e ?: mrc_rv_hello_admit(&h, w->nranks, w->hash, w->token, w->token_len, joined, why,
		sizeof(why));
	if (e) {
		/* a rank that runs another config or build learns why; best effort, no wait */
		size_t l = strlen(why);
		uint8_t hdr[5];

		put_be32(hdr, (uint32_t)(l + 2));
		hdr[4] = RV_WELCOME;
		reply[0] = 1;
		memcpy(reply + 1, why, l);
		if (send(p->c.fd, hdr, 5, MSG_NOSIGNAL | MSG_DONTWAIT) == 5)
			send(p->c.fd, reply, l + 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		rv_drop(w, p, "%s", why);
		return 0;
	}
	reply[0] = 0;
	reply[1] = 0;
	p->c.rank = h.rank;
	if (wr_rv_send(w, &p->c, RV_WELCOME, reply, 2)) {
		w->err = 0; /* it went away at once: the rank may still come */
		w->errmsg[0] = 0;
		rv_drop(w, p, "WELCOME to rank %u failed", h.rank);
		return 0;
	}
	p->c.have -= consume;
	memmove(p->c.buf, p->c.buf + consume, p->c.have);
	w->conns[h.rank] = p->c;
	p->c = (struct rv_conn){ .fd = -1 };
	return 1;
}

/* The listener's timeout error: how many joined, which ranks did not (by number). */
static void rv_missing(struct wr *w, size_t joined, char *err, size_t errlen)
{
	uint32_t miss = (uint32_t)(w->nranks - 1 - joined), k2 = 0;
	size_t k = (size_t)snprintf(err, errlen, "rendezvous: %zu of %u ranks joined within %llu "
				    "ms; %s", joined + 1, w->nranks,
		(unsigned long long)(w->timeout_ns / 1000000), miss > 1 ? "ranks" : "rank");

	for (uint32_t r = 1; r < w->nranks && k < errlen; r++) {
		if (w->conns[r].fd >= 0)
			continue;
		rv_mark_failed(w, r);
		k += (size_t)snprintf(err + k, errlen - k, "%s%u", k2++ ? ", " : " ", r);
	}
	if (k < errlen)
		k += (size_t)snprintf(err + k, errlen - k, " did not join");
	if (k < errlen && w->rv_dropped)
		snprintf(err + k, errlen - k, " (%u connections dropped, named above)",
			w->rv_dropped);
}

/* Rank 0: binds and listens on @addr (the socket stays in the namespace it was made in). */
static int rv_bind(struct wr *w, const char *addr, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int e = rv_addr(addr, &ss, &sl, w->rv_path, err, errlen), one = 1;
	mode_t um;

	if (e)
		return e;
	w->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (w->lfd < 0)
		goto sys;
	if (w->rv_path[0])
		unlink(w->rv_path); /* a socket file left by an earlier run */
	else
		setsockopt(w->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	um = umask(0177); /* the socket file is created 0600: only this user's ranks connect */
	e = bind(w->lfd, (struct sockaddr *)&ss, sl);
	umask(um);
	if (e || listen(w->lfd, (int)w->nranks + 8))
		goto sys;
	return 0;
sys:
	e = -errno;
	snprintf(err, errlen, "rendezvous: listen '%s': %s", addr, strerror(errno));
	return e;
}

/*
 * Rank 0, listening: reads the HELLOs of every connection at once (none can hold up
 * another), admits every other rank (token, rank, size, config hash: mrc_rv_hello_admit).
 * A connection without a valid HELLO within w->hello_ns is dropped and logged; the job
 * waits for its ranks until w->timeout_ns.
 */
static int rv_admit_all(struct wr *w, const char *addr, char *err, size_t errlen)
{
	uint64_t deadline = wr_mono_ns() + w->timeout_ns;
	struct rv_pending pend[RV_MAX_PENDING];
	size_t joined = 0, np = 0;
	int e;

	if (!w->hello_ns || w->hello_ns > w->timeout_ns)
		w->hello_ns = w->timeout_ns;
	while (joined + 1 < w->nranks) {
		struct pollfd pfd[RV_MAX_PENDING + 1];
		uint64_t now = wr_mono_ns(), until = deadline;
		size_t k = 0;

		if (mrc_stop_signal) {
			rv_interrupted(err, errlen);
			for (size_t i = 0; i < np; i++)
				rv_drop(w, &pend[i], "the rendezvous was interrupted");
			return -EINTR;
		}
		if (now >= deadline) {
			for (size_t i = 0; i < np; i++)
				rv_drop(w, &pend[i], "the rendezvous timed out before its HELLO");
			rv_missing(w, joined, err, errlen);
			return -ETIMEDOUT;
		}
		for (size_t i = 0; i < np; i++) {
			pfd[i] = (struct pollfd){ .fd = pend[i].c.fd, .events = POLLIN };
			until = pend[i].deadline < until ? pend[i].deadline : until;
		}
		pfd[np] = (struct pollfd){ .fd = w->lfd, .events = POLLIN };
		/* a HELLO deadline may have passed since: poll without waiting then */
		if (poll(pfd, np + 1, until > now ? (int)((until - now + 999999) / 1000000) : 0) < 0
			&& errno != EINTR)
			goto sys;
		now = wr_mono_ns();
		for (size_t i = 0; i < np; i++) {
			if (pfd[i].revents || now >= pend[i].deadline)
				joined += (size_t)rv_admit(w, &pend[i], now);
		}
		for (size_t i = 0; i < np; i++) /* keep those still pending */
			if (pend[i].c.fd >= 0)
				pend[k++] = pend[i];
		np = k;
		for (;;) { /* the listener does not block: until no connection waits */
			struct rv_pending *p;
			int fd = accept4(w->lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd < 0)
				break;
			if (np == RV_MAX_PENDING) {
				struct rv_pending tmp = { .c = { .fd = fd } };

				rv_peer_name(fd, tmp.peer, sizeof(tmp.peer));
				rv_drop(w, &tmp, "%u connections already wait for their HELLO",
					RV_MAX_PENDING);
				continue;
			}
			p = &pend[np++];
			*p = (struct rv_pending){ .c = { .fd = fd, .rank = UINT32_MAX },
				.deadline = now + w->hello_ns };
			rv_peer_name(fd, p->peer, sizeof(p->peer));
			set_timeouts(fd, w->timeout_ns);
			joined += (size_t)rv_admit(w, p, now); /* its HELLO may be in already */
			if (p->c.fd < 0)
				np--;
		}
	}
	for (size_t i = 0; i < np; i++)
		rv_drop(w, &pend[i], "every rank joined before its HELLO");
	memset(w->got, 0, w->nranks * sizeof(*w->got));
	return 0;
sys:
	e = -errno;
	snprintf(err, errlen, "rendezvous: listen '%s': %s", addr, strerror(errno));
	for (size_t i = 0; i < np; i++) {
		close(pend[i].c.fd);
		free(pend[i].c.buf);
	}
	return e;
}

int wr_rv_listen(struct wr *w, const char *addr, char *err, size_t errlen)
{
	return rv_bind(w, addr, err, errlen) ?: rv_admit_all(w, addr, err, errlen);
}

/* Other ranks: connects to rank 0 (retrying until the timeout). */
static int rv_connect(struct wr *w, const char *addr, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char path[108];
	uint64_t deadline = wr_mono_ns() + w->timeout_ns;
	struct rv_conn *c = &w->conns[0];
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
		if (mrc_stop_signal)
			return rv_interrupted(err, errlen);
		if (wr_mono_ns() >= deadline) {
			snprintf(err, errlen,
				"rendezvous: connect '%s': %s for %llu ms (is rank 0 "
				"(h0) running? on a cluster set MRCGEN_RENDEZVOUS=HOST:PORT)",
				addr, strerror(last),
				(unsigned long long)(w->timeout_ns / 1000000));
			return -ETIMEDOUT;
		}
		usleep(20000);
	}
	c->rank = 0;
	set_timeouts(c->fd, w->timeout_ns);
	return 0;
}

/* Other ranks, connected: HELLO, then rank 0's WELCOME (within the timeout). */
static int rv_hello(struct wr *w, char *err, size_t errlen)
{
	uint64_t deadline = wr_mono_ns() + w->timeout_ns;
	struct rv_conn *c = &w->conns[0];
	uint8_t hello[MRC_RV_HELLO_BASE + MRC_RV_TOKEN_MAX];
	struct mrc_rv_hello h = { .version = MRC_WIRERUN_PROTO, .rank = w->rank,
		.nranks = w->nranks, .hash = w->hash, .token = w->token,
		.token_len = w->token_len };
	struct rv_msg m;
	size_t consume = 0;
	int e, hl;

	hl = mrc_rv_hello_encode(&h, hello, sizeof(hello));
	if (hl < 0 || wr_rv_send(w, c, RV_HELLO, hello, (size_t)hl))
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
		snprintf(err, errlen, "rendezvous: rank 0 (h0): unexpected message type %u",
			m.type);
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

int wr_rv_join(struct wr *w, const char *addr, char *err, size_t errlen)
{
	return rv_connect(w, addr, err, errlen) ?: rv_hello(w, err, errlen);
}

static void on_msg(struct wr *w, struct rv_conn *c, const struct rv_msg *m)
{
	const uint8_t *b = m->body;
	char why[200];

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
			if (m->len < 20 || (int64_t)get_be32(b) != w->want_iter ||
				get_be32(b) >= w->n_gi)
				break;
			wr_done_decode(&w->dtab[(size_t)get_be32(b) * w->nranks + r], b, m->len);
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
		case RV_JARMED:
		case RV_JDONE:
		case RV_JBG:
			if (!w->wj)
				break;
			if (!wr_jobs_on_msg(w, r, m, why, sizeof(why)))
				return;
			rv_mark_failed(w, r);
			wr_fail(w, -EPROTO, "rendezvous: rank %u (h%u): protocol error: %s", r, r,
				why);
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
		rv_mark_failed(w, r);
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
	case RV_JARM:
	case RV_JGO:
	case RV_JEND:
	case RV_JTICK:
		if (!w->wj)
			break;
		if (!wr_jobs_on_msg(w, 0, m, why, sizeof(why)))
			return;
		wr_fail(w, -EPROTO, "rendezvous: rank 0 (h0): protocol error: %s", why);
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
		w->got_abort = true;
		wr_fail(w, -ECONNABORTED, "job aborted by rank 0 (h0): %.*s", (int)m->len,
			(const char *)b);
		return;
	}
	wr_fail(w, -EPROTO, "rendezvous: rank 0 (h0): unexpected message type %u", m->type);
}

void wr_ctl_poll(struct wr *w)
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

int wr_rv_bcast(struct wr *w, uint8_t type, const void *body, size_t len)
{
	for (uint32_t r = 1; r < w->nranks; r++)
		if (wr_rv_send(w, &w->conns[r], type, body, len))
			return w->err;
	return 0;
}

bool wr_all_got(struct wr *w)
{
	for (uint32_t r = 1; r < w->nranks; r++)
		if (!w->got[r])
			return false;
	return true;
}

bool wr_all_mr(struct wr *w)
{
	for (uint32_t r = 1; r < w->nranks; r++)
		if (w->mr_of[r] != w->want_mr)
			return false;
	return true;
}

void wr_clear_got(struct wr *w)
{
	memset(w->got, 0, w->nranks * sizeof(*w->got));
}

void wr_name_missing_of(struct wr *w, const char *what, const bool *got, const bool *in)
{
	size_t k = strlen(w->errmsg);

	if (w->rank || w->err != -ETIMEDOUT || k >= sizeof(w->errmsg) - 1)
		return;
	k += snprintf(w->errmsg + k, sizeof(w->errmsg) - k, "%s from", what);
	for (uint32_t r = in ? 0 : 1; r < w->nranks && k < sizeof(w->errmsg); r++) {
		if ((in && !in[r]) || got[r])
			continue;
		if (r) /* rank 0 waits on its own collective for another rank */
			rv_mark_failed(w, r);
		k += snprintf(w->errmsg + k, sizeof(w->errmsg) - k, " h%u", r);
	}
}

void wr_name_missing(struct wr *w)
{
	wr_name_missing_of(w, "", w->got, NULL);
}

void wr_rv_abort(struct wr *w, const char *why)
{
	for (uint32_t r = 1; w->rank == 0 && w->conns && r < w->n_conns; r++) {
		uint8_t hdr[5];
		size_t l = strlen(why);

		if (w->conns[r].fd < 0)
			continue;
		put_be32(hdr, (uint32_t)l + 1);
		hdr[4] = RV_ABORT;
		if (send(w->conns[r].fd, hdr, 5, MSG_NOSIGNAL | MSG_DONTWAIT) == 5)
			send(w->conns[r].fd, why, l, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
}

void wr_rv_close(struct wr *w)
{
	for (size_t i = 0; w->conns && i < w->n_conns; i++) {
		if (w->conns[i].fd >= 0)
			close(w->conns[i].fd);
		free(w->conns[i].buf);
	}
	if (w->lfd >= 0)
		close(w->lfd);
	if (w->rv_path[0])
		unlink(w->rv_path);
}

/* ---- the rendezvous as the job's bootstrap (wr_boot_rv) ------------------------------- */

void wr_done_encode(const struct wr_done *d, uint32_t gi, uint8_t out[WR_DONE_LEN])
{
	put_be32(out, gi);
	put_be64(out + 4, d->t_ps);
	put_be64(out + 12, d->wrong);
	put_be64(out + 20, d->rtx);
}

void wr_done_decode(struct wr_done *d, const uint8_t *b, size_t len)
{
	d->t_ps = get_be64(b + 4);
	d->wrong = get_be64(b + 12);
	d->rtx = len >= WR_DONE_LEN ? get_be64(b + 20) : 0;
	d->have = true;
}

static bool got_rttgo(struct wr *w)
{
	return w->got_rttgo;
}

static bool got_rttset(struct wr *w)
{
	return w->got_rttset;
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

/* Rank 0 waits for one message from every rank (got[]); a timeout names those missing. */
static int rv_wait_all(struct wr *w, const char *what)
{
	if (wr_pump_until(w, wr_all_got, what))
		wr_name_missing(w);
	return w->err;
}

static int rv_op_connect(struct wr *w, char *err, size_t errlen)
{
	w->n_conns = w->rank ? 1 : w->nranks;
	w->conns = calloc(w->n_conns, sizeof(*w->conns));
	if (!w->conns)
		return -ENOMEM;
	for (size_t i = 0; i < w->n_conns; i++)
		w->conns[i].fd = -1;
	return w->rank ? rv_connect(w, w->rv_addr, err, errlen) :
			 rv_bind(w, w->rv_addr, err, errlen);
}

static int rv_op_join(struct wr *w, char *err, size_t errlen)
{
	return w->rank ? rv_hello(w, err, errlen) : rv_admit_all(w, w->rv_addr, err, errlen);
}

static int rv_op_rtt_start(struct wr *w)
{
	if (w->rank)
		return wr_pump_until(w, got_rttgo, "rendezvous: start of the RTT probes from h0");
	/* before RTTGO: a fast rank's RTT may come while this one probes */
	wr_clear_got(w);
	return wr_rv_bcast(w, RV_RTTGO, NULL, 0);
}

static int rv_op_rtt_agree(struct wr *w, const uint8_t mine[16])
{
	struct mrc_wirerun_rtt *o = w->rtt_out;
	uint8_t msg[9];

	if (w->rank) {
		w->got_rttset = false;
		if (wr_rv_send(w, &w->conns[0], RV_RTT, mine, 16) ||
			wr_pump_until(w, got_rttset, "rendezvous: base RTT from h0"))
			return w->err;
		return 0;
	}
	o->rank_ns[0] = get_be64(mine);
	o->probes_sent += get_be32(mine + 8); /* the workers' may have come in already */
	o->probes_answered += get_be32(mine + 12);
	if (rv_wait_all(w, "rendezvous: base RTT"))
		return w->err;
	wr_rtt_decide(w);
	put_be64(msg, o->base_rtt_ns);
	msg[8] = (uint8_t)o->source;
	return wr_rv_bcast(w, RV_RTTSET, msg, 9);
}

static int rv_op_mrs(struct wr *w, uint32_t s, const uint8_t *mine)
{
	uint8_t msg[4 + MRC_REG_N * 12];
	uint8_t *tab;
	size_t tl = (size_t)w->nranks * MRC_REG_N * 12;

	if (w->rank) {
		put_be32(msg, s);
		memcpy(msg + 4, mine, MRC_REG_N * 12);
		w->got_mrtab = false;
		if (wr_rv_send(w, &w->conns[0], RV_MR, msg, sizeof(msg)) ||
			wr_pump_until(w, got_mrtab, "rendezvous: memory regions from h0"))
			return w->err;
		return 0;
	}
	w->want_mr = s + 1;
	for (uint32_t r = 1; r < w->nranks; r++)
		w->got[r] = w->mr_of[r] == w->want_mr; /* for wr_name_missing */
	if (wr_pump_until(w, wr_all_mr, "rendezvous: memory regions")) {
		for (uint32_t r = 1; r < w->nranks; r++)
			w->got[r] = w->mr_of[r] == w->want_mr;
		wr_name_missing(w);
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
	wr_rv_bcast(w, RV_MRTAB, tab, tl);
	free(tab);
	return w->err;
}

static int rv_op_arm(struct wr *w, uint32_t gi)
{
	uint8_t m4[4];

	put_be32(m4, gi);
	if (w->rank == 0)
		return wr_rv_bcast(w, RV_ARM, m4, 4);
	return wr_pump_until(w, got_arm, "rendezvous: start of an iteration from h0");
}

static int rv_op_go(struct wr *w, uint32_t gi)
{
	uint8_t m4[4];

	put_be32(m4, gi);
	if (w->rank) {
		if (wr_rv_send(w, &w->conns[0], RV_ARMED, m4, 4))
			return w->err;
		return wr_pump_until(w, got_go, "rendezvous: start barrier from h0");
	}
	wr_clear_got(w);
	if (rv_wait_all(w, "rendezvous: start barrier"))
		return w->err;
	wr_clear_got(w);
	return wr_rv_bcast(w, RV_GO, m4, 4);
}

static int rv_op_done(struct wr *w, uint32_t gi)
{
	uint8_t done[WR_DONE_LEN];

	if (w->rank) {
		wr_done_encode(&w->own[gi], gi, done);
		return wr_rv_send(w, &w->conns[0], RV_DONE, done, sizeof(done));
	}
	w->dtab[(size_t)gi * w->nranks] = w->own[gi];
	return rv_wait_all(w, "rendezvous: end of an iteration");
}

static int rv_op_results(struct wr *w)
{
	if (w->rank) {
		char *b = NULL;
		size_t len = 0;
		int e;

		if (wr_pump_until(w, got_finish, "rendezvous: end of the job from h0"))
			return w->err;
		e = wr_encode_result(w, &b, &len);
		if (!e)
			e = wr_rv_send(w, &w->conns[0], RV_RESULT, b, len);
		free(b);
		if (e && !w->err)
			wr_fail(w, e, "results: %s", strerror(-e));
		return w->err;
	}
	wr_clear_got(w);
	if (wr_rv_bcast(w, RV_FINISH, NULL, 0))
		return w->err;
	return rv_wait_all(w, "rendezvous: results");
}

/*
 * Rank 0 once the job failed: ABORT with the reason to every rank still connected; with an
 * endpoint, each answers with its RESULT (unless it had none yet): waits until each sent
 * it or closed, or WR_HELLO_NS (at most the timeout) passed. The others answer an ABORT
 * with theirs (docs/wire-driver.md "When a rank fails").
 */
static void rv_op_fail(struct wr *w, char *why, size_t whylen)
{
	uint64_t wait = w->timeout_ns < WR_HELLO_NS ? w->timeout_ns : WR_HELLO_NS;
	uint64_t deadline = wr_mono_ns() + wait;

	(void)whylen;
	if (w->rank) {
		char *b = NULL; /* rank 0 writes a report of what ran: this rank's part */
		size_t len = 0;

		if (w->got_abort && w->ep && w->conns && w->conns[0].fd >= 0 &&
			!wr_encode_result(w, &b, &len))
			wr_rv_send(w, &w->conns[0], RV_RESULT, b, len);
		free(b);
		return;
	}
	if (!w->conns)
		return;
	wr_rv_abort(w, why); /* tell every connected rank why, so none waits for its timeout */
	for (; w->ep;) {
		struct pollfd pfd[w->nranks];
		uint32_t who[w->nranks], n = 0;
		uint64_t now = wr_mono_ns();

		for (uint32_t r = 1; r < w->nranks; r++) {
			if (w->conns[r].fd < 0 || w->result[r] || w->failed[r])
				continue;
			pfd[n] = (struct pollfd){ .fd = w->conns[r].fd, .events = POLLIN };
			who[n++] = r;
		}
		if (!n || now >= deadline)
			break;
		if (poll(pfd, n, (int)((deadline - now + 999999) / 1000000)) < 0 &&
			errno != EINTR)
			break;
		for (uint32_t i = 0; i < n; i++) {
			struct rv_conn *c = &w->conns[who[i]];
			struct rv_msg m;
			size_t consume = 0;
			uint32_t blen;
			int e;

			if (!pfd[i].revents)
				continue;
			while ((e = wr_rv_read(c, &m, &consume, &blen)) > 0) {
				if (m.type != RV_RESULT)
					continue; /* what was in flight when the job failed */
				w->result[who[i]] = malloc(m.len + 1);
				if (w->result[who[i]])
					memcpy(w->result[who[i]], m.body, m.len);
				w->result_len[who[i]] = m.len;
				break;
			}
			if (e < 0) { /* closed without one */
				close(c->fd);
				c->fd = -1;
			}
			if (consume) {
				memmove(c->buf, c->buf + consume, c->have - consume);
				c->have -= consume;
			}
		}
	}
}

const struct wr_boot_ops wr_boot_rv = {
	.name = "rendezvous",
	.connect = rv_op_connect,
	.join = rv_op_join,
	.rtt_start = rv_op_rtt_start,
	.rtt_agree = rv_op_rtt_agree,
	.mrs = rv_op_mrs,
	.arm = rv_op_arm,
	.go = rv_op_go,
	.done = rv_op_done,
	.results = rv_op_results,
	.fail = rv_op_fail,
	.close = wr_rv_close,
};
