/* SPDX-License-Identifier: BSD-2-Clause */
/* sock_test: unit tests of mrc/wire/sock.c (`mrcgen-test sock`). */
#include "mrc/wire/sock.c"
#include "mrc/base/st.h"

/* ---- selftest ---- */


MRC_SELFTEST(sock)
{
	struct mrc_sock_port port;
	struct sockaddr_in6 sa;
	uint8_t h[40] = { 0x60 };
	char err[256] = "";
	int ret;

	mrc_st_case(st, "outer DA is bytes 24..39 of the header");
	for (int i = 0; i < 16; i++)
		h[24 + i] = (uint8_t)(0xf0 + i);
	ST_EQ_I(st, mrc_sock_dst_of(h, 40, &sa), 0);
	ST_EQ(st, sa.sin6_family, AF_INET6);
	ST_EQ_MEM(st, &sa.sin6_addr,
		"\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff", 16);
	ST_EQ_I(st, mrc_sock_dst_of(h, 39, &sa), -EMSGSIZE);
	h[0] = 0x45;
	ST_EQ_I(st, mrc_sock_dst_of(h, 40, &sa), -EPROTO);

	mrc_st_case(st, "open on an unknown interface names it (with root)");
	ret = mrc_sock_port_open("nosuchif0", 0, &port, err, sizeof(err));
	ST_EQ_I(st, ret, geteuid() == 0 ? -ENODEV : -EPERM);
	if (geteuid() == 0)
		ST_EQ_STR(st, err, "sock: interface: 'nosuchif0': No such device");

	mrc_st_case(st, "open on lo: both sockets with root, else the CAP_NET_RAW advice");
	ret = mrc_sock_port_open("lo", 0, &port, err, sizeof(err));
	if (geteuid() == 0) {
		ST_EQ_I(st, ret, 0);
		ST_TRUE(st, port.tx_fd >= 0 && port.rx_fd >= 0);
		ST_EQ(st, port.ifindex, if_nametoindex("lo"));
		mrc_sock_port_close(&port);
		ST_EQ_I(st, port.tx_fd, -1);
	} else {
		ST_EQ_I(st, ret, -EPERM);
		ST_EQ_STR(st, err, "sock: open raw send socket: 'lo': needs CAP_NET_RAW: run as "
				   "root or setcap cap_net_raw+ep ./mrcgen");
	}

	mrc_st_case(st, "one receive socket for all ports: asks for IPV6_PKTINFO, 8 MiB buffer");
	ret = mrc_sock_rx_open_all(8u << 20, err, sizeof(err));
	if (geteuid() == 0) {
		int v = 0;
		socklen_t vl = sizeof(v);

		ST_TRUE(st, ret >= 0);
		if (ret >= 0) {
			ST_EQ_I(st, getsockopt(ret, IPPROTO_IPV6, IPV6_RECVPKTINFO, &v, &vl), 0);
			ST_EQ_I(st, v, 1);
			vl = sizeof(v);
			/* the kernel reports twice what was set (socket(7) SO_RCVBUF) */
			ST_EQ_I(st, getsockopt(ret, SOL_SOCKET, SO_RCVBUF, &v, &vl), 0);
			ST_EQ_I(st, v, 2 * (8 << 20));
			close(ret);
		}
	} else {
		ST_EQ_I(st, ret, -EPERM);
		ST_EQ_STR(st, err, "sock: open protocol-41 receive socket: '(any)': needs "
				   "CAP_NET_RAW: run as root or setcap cap_net_raw+ep ./mrcgen");
	}
}
