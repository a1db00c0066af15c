/* SPDX-License-Identifier: BSD-2-Clause */
/* xsk_test: unit tests of mrc/wire/xsk.c and the XDP rule of xdpcls.h (`mrcgen-test xsk`). */
#include "mrc/wire/xsk.c"
#include "mrc/base/st.h"

/* The port of the frames below: locator fc00:0:1004::, inner address fd00::1:3:1. */
static const struct mrc_xdp_cfg cfg = {
	.locator = { 0xfc, 0, 0, 0, 0x10, 0x04 },
	.inner = { 0xfd, 0, [11] = 1, [13] = 3, [15] = 1 },
};

/*
 * An Ethernet frame of an MRC packet as it reaches host 3's port 1: Ethernet (IPv6),
 * outer IPv6 to the locator with next header @nh and payload length @plen, then @inner
 * (an inner IPv6 header with next header UDP, dport 4791, and 16 bytes). Returns the
 * frame's length.
 */
static size_t frame(uint8_t *f, uint8_t nh, uint16_t plen, const uint8_t *dst, size_t body)
{
	memset(f, 0, 14 + 40 + body);
	f[12] = 0x86, f[13] = 0xdd;
	f[14] = 0x60;
	f[18] = (uint8_t)(plen >> 8), f[19] = (uint8_t)plen;
	f[20] = nh, f[21] = 64;
	memcpy(f + 14 + 24, dst, 16);
	return 14 + 40 + body;
}

/* The inner packet at @p: IPv6 (next header UDP, payload 24), UDP to 4791, 16 bytes. */
static void inner(uint8_t *p)
{
	p[0] = 0x60, p[5] = 24, p[6] = 17, p[7] = 64;
	memcpy(p + 24, cfg.inner, 16);
	p[40 + 2] = 4791 >> 8, p[40 + 3] = 4791 & 0xff;
	p[40 + 5] = 24;
}

static int cls(const uint8_t *f, size_t len)
{
	return mrc_xdp_classify(f, f + len, (uint32_t)len, &cfg);
}

MRC_SELFTEST(xsk)
{
	static const int action[] = { [MRC_XDP_OURS] = XDP_DROP, [MRC_XDP_PASS] = XDP_PASS,
		[MRC_XDP_MALFORMED] = XDP_DROP };
	uint8_t f[512], other[16] = { 0xfe, 0x80, [15] = 0xb };
	struct { const char *what; size_t len; int want; uint8_t f[512]; } c[12];
	struct mrc_xsk *x;
	char err[512];
	size_t n = 0, len;
	int e;

	mrc_st_case(st, "an MRC packet to the port's locator (next header 41) is ours");
	len = frame(f, 41, 40 + 48, cfg.locator, 88);
	inner(f + 54);
	ST_EQ_I(st, cls(f, len), MRC_XDP_OURS);
	c[n].what = "ours", c[n].len = len, c[n].want = MRC_XDP_OURS;
	memcpy(c[n++].f, f, len);
	/* a multi-buffer frame: the program reads the first buffer, the length counts all */
	ST_EQ_I(st, mrc_xdp_classify(f, f + 94 + 8, 4000, &cfg), MRC_XDP_OURS);

	mrc_st_case(st, "neighbour discovery and other traffic pass to the kernel");
	len = frame(f, 58, 32, other, 32);
	ST_EQ_I(st, cls(f, len), MRC_XDP_PASS);
	c[n].what = "nd", c[n].len = len, c[n].want = MRC_XDP_PASS;
	memcpy(c[n++].f, f, len);
	len = frame(f, 41, 88, cfg.locator, 88);
	f[12] = 0x08, f[13] = 0x06; /* ARP */
	ST_EQ_I(st, cls(f, len), MRC_XDP_PASS);
	ST_EQ_I(st, cls(f, 14 + 39), MRC_XDP_PASS); /* too short to be IPv6 */
	len = frame(f, 41, 88, other, 88);	     /* IPv6-in-IPv6 to another address */
	ST_EQ_I(st, cls(f, len), MRC_XDP_PASS);

	mrc_st_case(st, "to the locator, headers broken: malformed");
	len = frame(f, 41, 200, cfg.locator, 88); /* payload length past the frame */
	inner(f + 54);
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);
	c[n].what = "plen past the frame", c[n].len = len, c[n].want = MRC_XDP_MALFORMED;
	memcpy(c[n++].f, f, len);
	len = frame(f, 6, 88, cfg.locator, 88); /* TCP */
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);
	len = frame(f, 41, 88, cfg.locator, 88);
	inner(f + 54);
	f[54] = 0x45; /* the inner header is IPv4's */
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);
	c[n].what = "inner not IPv6", c[n].len = len, c[n].want = MRC_XDP_MALFORMED;
	memcpy(c[n++].f, f, len);
	len = frame(f, 41, 20, cfg.locator, 20); /* the inner header cut short */
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);
	len = frame(f, 41, 0, cfg.locator, 88); /* payload length 0 (a jumbogram) */
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);

	mrc_st_case(st, "an SRH (8 + 16 bytes: Hdr Ext Len 2) before the inner header");
	len = frame(f, 43, 24 + 88, cfg.locator, 24 + 88);
	f[54] = 41, f[55] = 2, f[56] = 4;
	inner(f + 54 + 24);
	ST_EQ_I(st, cls(f, len), MRC_XDP_OURS);
	c[n].what = "srh", c[n].len = len, c[n].want = MRC_XDP_OURS;
	memcpy(c[n++].f, f, len);
	f[54] = 17; /* the SRH's next header is not IPv6 */
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);
	f[54] = 41, f[55] = 20; /* 168 bytes of SRH: past the payload */
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);
	c[n].what = "srh past the payload", c[n].len = len, c[n].want = MRC_XDP_MALFORMED;
	memcpy(c[n++].f, f, len);

	mrc_st_case(st, "UDP 4791 to the inner address (EV formats stev, udp) is ours");
	len = frame(f, 17, 24, cfg.inner, 24);
	f[54 + 2] = 4791 >> 8, f[54 + 3] = 4791 & 0xff, f[54 + 5] = 24;
	ST_EQ_I(st, cls(f, len), MRC_XDP_OURS);
	c[n].what = "udp 4791", c[n].len = len, c[n].want = MRC_XDP_OURS;
	memcpy(c[n++].f, f, len);
	f[54 + 3] = 53; /* another port */
	ST_EQ_I(st, cls(f, len), MRC_XDP_PASS);
	f[54 + 3] = 4791 & 0xff;
	f[19] = 4; /* payload shorter than a UDP header */
	ST_EQ_I(st, cls(f, len), MRC_XDP_MALFORMED);
	len = frame(f, 17, 24, other, 24); /* RoCE to another address */
	f[54 + 2] = 4791 >> 8, f[54 + 3] = 4791 & 0xff;
	ST_EQ_I(st, cls(f, len), MRC_XDP_PASS);

	mrc_st_case(st, "the BPF program (BPF_PROG_TEST_RUN, root) gives each the rule's verdict");
	if (geteuid() != 0) {
		ST_TRUE(st, 1); /* needs CAP_BPF: covered by the xdp-tagged Tcl tests */
	} else {
		for (size_t i = 0; i < n; i++) {
			uint64_t counts[MRC_XDP_NCOUNT] = { 0 };
			int want = c[i].want == MRC_XDP_OURS ? MRC_XDP_NO_XSK : c[i].want;

			/* no socket in the map: an MRC frame is dropped as NO_XSK */
			e = mrc_xsk_prog_test(&cfg, c[i].f, c[i].len, counts);
			mrc_st_check(st, e == action[c[i].want], __FILE__, __LINE__,
				"%s: action %d, want %d", c[i].what, e, action[c[i].want]);
			ST_EQ(st, counts[want], 1);
			ST_EQ(st, counts[0] + counts[1] + counts[2] + counts[3], 1);
		}
	}

	mrc_st_case(st, "bad ports are named, with what falls back");
	e = mrc_xsk_open(&(struct mrc_xsk_params){ .ifname = "nosuchif0", .max_frame = 1514 },
		&x, err, sizeof(err));
	ST_EQ_I(st, e, -ENODEV);
	ST_EQ_STR(st, err, "xdp: port 'nosuchif0': no such interface");
	e = mrc_xsk_open(&(struct mrc_xsk_params){ .ifname = "lo", .queue = 7,
		.max_frame = 1514 }, &x, err, sizeof(err));
	ST_EQ_I(st, e, -ERANGE);
	ST_EQ_STR(st, err, "xdp: port 'lo': queue 7: the device has 1 receive queue (ethtool "
		"-l lo); set wire.xdp_queue below that");
	e = mrc_xsk_open(&(struct mrc_xsk_params){ .ifname = "lo", .max_frame = 1514,
		.rx_frames = 100 }, &x, err, sizeof(err));
	ST_EQ_I(st, e, -EINVAL);
}
