/* SPDX-License-Identifier: BSD-2-Clause */
/* wping_test: unit tests of mrc/wire/wping.c (`mrcgen-test wping`). */
#include "mrc/wire/wping.c"
#include "mrc/base/st.h"

/* ---- selftest ---- */


#include <zlib.h>

MRC_SELFTEST(wping)
{
	struct mrc_srv6_path path;
	uint8_t pkt[WP_PKT_LEN + 8], m[8 + WP_INNER_LEN];
	uint8_t *in = pkt + 40;
	uint32_t sum = 0, icrc_got;
	uint16_t id = 0;

	memset(&path, 0, sizeof(path));
	path.ev = 0x10023456;
	/* container fc00:0:1401:1801:1402:1004::, inner fd00::1:0:1 -> fd00::1:3:1 */
	put_be16(path.container.b, 0xfc00);
	put_be16(path.container.b + 4, 0x1401);
	put_be16(path.container.b + 6, 0x1801);
	put_be16(path.container.b + 8, 0x1402);
	put_be16(path.container.b + 10, 0x1004);
	put_be16(path.src_addr.b, 0xfd00);
	put_be16(path.src_addr.b + 10, 1);
	put_be16(path.src_addr.b + 14, 1);
	path.dst_addr = path.src_addr;
	put_be16(path.dst_addr.b + 12, 3);

	mrc_st_case(st, "PROBE layout: 120 bytes, outer nh 41 to the container, EV in sport/flow");
	ST_EQ_I(st, mrc_wping_build(&path, 7, 0xabcd, pkt, sizeof(pkt)), 120);
	ST_EQ_I(st, mrc_wping_build(&path, 7, 0xabcd, pkt, 119), -ENOSPC);
	mrc_wping_build(&path, 7, 0xabcd, pkt, sizeof(pkt));
	ST_EQ(st, get_be32(pkt), 0x60203456);	/* v6, tclass 0x02, flow 0x3456 */
	ST_EQ(st, get_be16(pkt + 4), 80);	/* inner 40 + UDP 8 + BTH 12 + PETH 16 + 4 */
	ST_EQ(st, pkt[6], 41);
	ST_EQ_MEM(st, pkt + 24, path.container.b, 16);
	ST_EQ(st, get_be32(in), 0x60203456);
	ST_EQ(st, get_be16(in + 4), 40);
	ST_EQ(st, in[6], 17);
	ST_EQ(st, get_be16(in + 40), 0x1002); /* EV[31:16] */
	ST_EQ(st, get_be16(in + 42), 4791);
	ST_EQ(st, in[48], 0xDE);
	ST_EQ(st, pkt[7], 64);			/* hop limits */
	ST_EQ(st, in[7], 64);
	ST_EQ(st, get_be16(in + 50), 0xffff);	/* P_Key */
	ST_EQ(st, get_be32(in + 52), 0);	/* DestQP 0 */
	ST_EQ(st, get_be32(in + 56), 0);	/* PSN 0 */
	ST_EQ(st, get_be16(in + 60 + 4), 7);	/* PETH probe_id */
	ST_EQ(st, get_be16(in + 60 + 12), 0xabcd); /* PETH tx_ts */
	ST_EQ_I(st, mrc_wping_probe_id(in, 80, &id), 0);
	ST_EQ(st, id, 7);
	ST_EQ_I(st, mrc_wping_probe_id(in, 75, &id), -EMSGSIZE);
	in[48] = 0x0A; /* RDMA WRITE opcode: not a probe */
	ST_EQ_I(st, mrc_wping_probe_id(in, 80, &id), -EPROTO);
	in[48] = 0xDE;

	mrc_st_case(st, "UDP checksum: the one's-complement sum with the pseudo-header is 0xffff");
	for (int i = 0; i < 32; i += 2)
		sum += get_be16(in + 8 + i);
	sum += 40 + 17;
	for (int i = 0; i < 40; i += 2)
		sum += get_be16(in + 40 + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ST_EQ(st, sum, 0xffff);

	mrc_st_case(st, "ICRC equals zlib crc32 over 8 x 0xff + the masked inner packet");
	memset(m, 0xff, 8);
	memcpy(m + 8, in, WP_INNER_LEN - 4);
	m[8] |= 0x0f;
	m[9] = m[10] = m[11] = 0xff;	  /* traffic class low bits, flow label */
	m[8 + 7] = 0xff;		  /* hop limit */
	m[8 + 46] = m[8 + 47] = 0xff;	  /* UDP checksum */
	m[8 + 52] = 0xff;		  /* BTH byte 4 */
	icrc_got = (uint32_t)in[76] | (uint32_t)in[77] << 8 | (uint32_t)in[78] << 16 |
		   (uint32_t)in[79] << 24;
	ST_EQ(st, icrc_got, crc32(0, m, (uInt)(8 + WP_INNER_LEN - 4)));
}
