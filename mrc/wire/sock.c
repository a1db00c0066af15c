/* SPDX-License-Identifier: BSD-2-Clause */
/* sock: raw IPv6 send and protocol-41 receive sockets of a NIC port (see sock.h). */
#include "mrc/wire/sock.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SOCK_IPPROTO_IPV6_IN_IPV6 41 /* RFC 2473 next header value */

static const char *port_name(const char *ifname)
{
	return ifname && *ifname ? ifname : "(any)";
}

static int sock_fail(int e, const char *op, const char *ifname, char *err, size_t errlen)
{
	if (e == EPERM || e == EACCES)
		snprintf(err, errlen,
			"sock: %s: '%s': needs CAP_NET_RAW: run as root or setcap cap_net_raw+ep "
			"./mrcgen",
			op, port_name(ifname));
	else
		snprintf(err, errlen, "sock: %s: '%s': %s", op, port_name(ifname), strerror(e));
	return -e;
}

static int set_int(int fd, int level, int opt, int v)
{
	return setsockopt(fd, level, opt, &v, sizeof(v));
}

/* The receive socket's options: TCLASS, drops and timestamps as ancillary data, buffer. */
static int rx_options(int fd, unsigned rcvbuf_bytes, const char *ifname, char *err,
	size_t errlen)
{
	if (set_int(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1) < 0 ||
		set_int(fd, SOL_SOCKET, SO_RXQ_OVFL, 1) < 0 ||
		set_int(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1) < 0)
		return sock_fail(errno, "receive socket options", ifname, err, errlen);
	if (!rcvbuf_bytes)
		rcvbuf_bytes = 4u << 20;
	/* FORCE passes net.core.rmem_max with CAP_NET_ADMIN; otherwise the capped size. */
	if (set_int(fd, SOL_SOCKET, SO_RCVBUFFORCE, (int)rcvbuf_bytes) < 0)
		set_int(fd, SOL_SOCKET, SO_RCVBUF, (int)rcvbuf_bytes);
	return 0;
}

int mrc_sock_rx_open_all(unsigned rcvbuf_bytes, char *err, size_t errlen)
{
	int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, SOCK_IPPROTO_IPV6_IN_IPV6), ret;

	if (fd < 0)
		return sock_fail(errno, "open protocol-41 receive socket", NULL, err, errlen);
	ret = rx_options(fd, rcvbuf_bytes, NULL, err, errlen);
	if (!ret && set_int(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1) < 0)
		ret = sock_fail(errno, "IPV6_RECVPKTINFO", NULL, err, errlen);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

int mrc_sock_port_open(const char *ifname, unsigned rcvbuf_bytes, struct mrc_sock_port *out,
	char *err, size_t errlen)
{
	bool bind_dev = ifname && *ifname;
	int ret;

	memset(out, 0, sizeof(*out));
	out->tx_fd = out->rx_fd = -1;
	if (bind_dev && strlen(ifname) >= sizeof(out->ifname)) {
		snprintf(err, errlen, "sock: interface: name too long '%s'", ifname);
		return -EINVAL;
	}
	out->tx_fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (out->tx_fd < 0) {
		ret = sock_fail(errno, "open raw send socket", ifname, err, errlen);
		goto close_all;
	}
	/* Implied by IPPROTO_RAW since Linux 4.5; said explicitly so the intent is visible. */
	if (set_int(out->tx_fd, IPPROTO_IPV6, IPV6_HDRINCL, 1) < 0) {
		ret = sock_fail(errno, "IPV6_HDRINCL", ifname, err, errlen);
		goto close_all;
	}
	out->rx_fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, SOCK_IPPROTO_IPV6_IN_IPV6);
	if (out->rx_fd < 0) {
		ret = sock_fail(errno, "open protocol-41 receive socket", ifname, err, errlen);
		goto close_all;
	}
	if (bind_dev) {
		socklen_t l = (socklen_t)strlen(ifname) + 1;

		/* After the sockets: a missing capability is the first thing to report. */
		out->ifindex = if_nametoindex(ifname);
		if (!out->ifindex) {
			ret = sock_fail(ENODEV, "interface", ifname, err, errlen);
			goto close_all;
		}
		snprintf(out->ifname, sizeof(out->ifname), "%s", ifname);

		if (setsockopt(out->tx_fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, l) < 0 ||
			setsockopt(out->rx_fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, l) < 0) {
			ret = sock_fail(errno, "SO_BINDTODEVICE", ifname, err, errlen);
			goto close_all;
		}
	}
	ret = rx_options(out->rx_fd, rcvbuf_bytes, ifname, err, errlen);
	if (ret < 0)
		goto close_all;
	return 0;

close_all:
	mrc_sock_port_close(out);
	return ret;
}

void mrc_sock_port_close(struct mrc_sock_port *p)
{
	if (p->tx_fd >= 0)
		close(p->tx_fd);
	if (p->rx_fd >= 0)
		close(p->rx_fd);
	p->tx_fd = p->rx_fd = -1;
}

int mrc_sock_dst_of(const uint8_t *pkt, size_t len, struct sockaddr_in6 *out)
{
	if (len < 40)
		return -EMSGSIZE;
	if (pkt[0] >> 4 != 6)
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	out->sin6_family = AF_INET6;
	memcpy(&out->sin6_addr, pkt + 24, 16);
	return 0;
}
