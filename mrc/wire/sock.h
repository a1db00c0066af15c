/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock: the raw IPv6 sockets of one NIC port (plane) for the wire driver — a send socket
 * that puts the engine's whole packet (outer IPv6 [+SRH] + inner IPv6 + UDP + MRC) on the
 * wire as given, and a protocol-41 (IPv6-in-IPv6, RFC 2473) receive socket that hands over
 * the inner packet (docs/wire-format.md "Packet stack"; docs/architecture.md "wire").
 *
 * Kernel facts, verified on Linux 6.x (see the netns test):
 * - AF_INET6/SOCK_RAW/IPPROTO_RAW implies IPV6_HDRINCL (Linux >= 4.5): the 40-byte
 *   header and everything after it go out unchanged; the route (and so the egress port
 *   when not bound) comes from the sendmsg destination, which must be the outer DA.
 * - AF_INET6/SOCK_RAW/41 delivers what follows the outer header chain: the inner IPv6
 *   header, UDP and the MRC bytes; the outer header and an SRH are not included.
 * - IPV6_TCLASS ancillary data carries the OUTER header's traffic class (the header the
 *   kernel received), so a CE mark set by a switch on the outer header reaches the engine.
 */
#ifndef MRC_SOCK_H
#define MRC_SOCK_H

#include <stddef.h>
#include <stdint.h>

struct sockaddr_in6;

/* The two sockets of one NIC port. Plain struct; fds are -1 when closed. */
struct mrc_sock_port {
	int tx_fd;	 /* AF_INET6, SOCK_RAW, IPPROTO_RAW (header included) */
	int rx_fd;	 /* AF_INET6, SOCK_RAW, 41 with IPV6_RECVTCLASS, SO_RXQ_OVFL */
	unsigned ifindex; /* 0 when not bound to an interface */
	char ifname[16];
};

/*
 * Opens both sockets of the port on interface @ifname (NULL or "": not bound, for a
 * single-port host), bound with SO_BINDTODEVICE so each plane's traffic stays on its port.
 * The receive socket also asks for SO_TIMESTAMPNS and a @rcvbuf_bytes receive buffer
 * (0: 4 MiB; above net.core.rmem_max only with CAP_NET_ADMIN). Returns 0, or a negative
 * errno with "sock: OPERATION: 'IFNAME': reason" in @err; -EPERM says "needs CAP_NET_RAW:
 * run as root or setcap cap_net_raw+ep ./mrcgen", -ENODEV an unknown interface.
 */
int mrc_sock_port_open(const char *ifname, unsigned rcvbuf_bytes, struct mrc_sock_port *out,
	char *err, size_t errlen);

/*
 * Opens one protocol-41 receive socket for all the host's ports: bound to no interface,
 * so the kernel queues what arrives on every plane in one socket, in arrival order. (With
 * one socket per plane the loop drains the sockets one after the other, handing the engine
 * a sprayed flight plane by plane: reordered, which costs SACKs and spurious
 * retransmissions.) The plane is the interface in IPV6_PKTINFO (mrc_loop_rx_info.ifindex;
 * compare with mrc_sock_port.ifindex). Options as mrc_sock_port_open's receive socket
 * plus IPV6_RECVPKTINFO; @rcvbuf_bytes 0: 4 MiB. Returns the fd, or a negative errno with
 * "sock: OPERATION: '(any)': reason" in @err (-EPERM: the CAP_NET_RAW advice).
 */
int mrc_sock_rx_open_all(unsigned rcvbuf_bytes, char *err, size_t errlen);

/* Closes the port's sockets (each fd >= 0) and sets them to -1. */
void mrc_sock_port_close(struct mrc_sock_port *port);

/*
 * The sendmsg destination for a header-included packet: the outer IPv6 destination
 * (bytes 24..39). Returns 0, -EMSGSIZE when @len < 40, -EPROTO when the version is not 6.
 */
int mrc_sock_dst_of(const uint8_t *pkt, size_t len, struct sockaddr_in6 *out);

#endif
