/* SPDX-License-Identifier: BSD-2-Clause */
/* srv6_test: unit tests of mrc/engine/srv6.c (`mrcgen-test srv6`). */
#include "mrc/engine/srv6.c"
#include "mrc/base/st.h"

/* ---- selftest: every expected value below is written out by hand ---- */


/* Parses a hex literal into @out, which must hold exactly @n bytes. */
static void st_ip6(const char *hex, struct mrc_ip6 *out)
{
	if (mrc_st_hex(hex, out->b, sizeof(out->b)) != 16)
		memset(out->b, 0xEE, sizeof(out->b));
}

/*
 * Forwards the 40-byte @pkt at switch @role/@plane/@idx of @pl: want output port @port (or
 * a negative errno) and, when @da is given, that DA (hex) after the uN shift.
 */
static void st_hop(struct mrc_st *st, const struct mrc_srv6_plan *pl, uint8_t *pkt,
	enum mrc_srv6_role role, uint32_t plane, uint32_t idx, int port, const char *da)
{
	struct mrc_srv6_node n = {role, plane, idx};
	struct mrc_ip6 want;

	ST_EQ_I(st, mrc_srv6_switch_forward(mrc_srv6_fib_of(pl, &n), pkt, 40), port);
	if (da) {
		st_ip6(da, &want);
		ST_EQ_MEM(st, pkt + IP6_OFF_DST, want.b, 16);
	}
}

/* A 40-byte outer IPv6 header: hop limit 64, next header @nh, src 2001:db8:a::1, DA @da. */
static void st_ip6_hdr(uint8_t *pkt, uint8_t nh, uint16_t plen, const struct mrc_ip6 *da)
{
	mrc_st_hex("60000000 0000 00 40 20010db8000a0000 0000000000000001", pkt, MRC_IP6_HLEN);
	put_be16(pkt + 4, plen);
	pkt[IP6_OFF_NH] = nh;
	memcpy(pkt + IP6_OFF_DST, da->b, 16);
}

/* One node and the uSID the plan must give it (0: no such node). */
struct st_usid {
	uint8_t role, plane;
	uint32_t index;
	uint16_t usid;
};

static void st_check_usids(struct mrc_st *st, const struct mrc_srv6_plan *pl,
	const struct st_usid *tab, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct mrc_srv6_node nd = {tab[i].role, tab[i].plane, tab[i].index};

		ST_EQ(st, mrc_srv6_usid(pl, &nd), tab[i].usid);
	}
}

/* 2 planes, 2 T0 and 2 T1 per plane, 2 hosts per T0 (hosts h0..h3), generated plan. */
static struct mrc_srv6_plan *st_small_plan(void)
{
	struct mrc_srv6_params p;
	struct mrc_srv6_plan *pl;

	mrc_srv6_params_default(&p);
	p.planes = 2;
	p.t0 = 2;
	p.t1 = 2;
	p.hosts_per_t0 = 2;
	return mrc_srv6_plan_new(&p, &pl, NULL, 0) ? NULL : pl;
}

/* 8 planes, 256 T0 x 32 hosts = 8192 hosts, 16 T1, with @bits plane bits in the uSID. */
static int st_8k_plan(unsigned bits, struct mrc_srv6_plan **pl, char *err, size_t errlen)
{
	struct mrc_srv6_params p;

	mrc_srv6_params_default(&p);
	p.planes = 8;
	p.t0 = 256;
	p.t1 = 16;
	p.hosts_per_t0 = 32;
	p.usid_plane_bits = (uint8_t)bits;
	return mrc_srv6_plan_new(&p, pl, err, errlen);
}

/* usid_plane_bits: a uSID space per plane (0), fewer plane bits (3), and their limits. */
static void st_cases_8k(struct mrc_st *st)
{
	struct mrc_srv6_plan *pl = NULL;
	struct mrc_ip6 a, want;
	uint8_t pkt[64];
	char err[200];

	mrc_st_case(st, "usid_plane_bits 0: 8192 hosts, uSIDs role(2) | index+1(14) by hand");
	ST_EQ_I(st, st_8k_plan(0, &pl, err, sizeof(err)), 0);
	if (pl) {
		/* host 8191: role 0, 8191 + 1 = 0x2000; T0 255: 0x4000 | 256 = 0x4100;
		 * T1 15: 0x8000 | 16 = 0x8010; the plane is in the block: fc00:3::/32 */
		static const struct st_usid tab[] = {
			{MRC_SRV6_HOST, 3, 8191, 0x2000},
			{MRC_SRV6_HOST, 0, 8191, 0x2000},
			{MRC_SRV6_HOST, 7, 0, 0x0001},
			{MRC_SRV6_T0, 3, 255, 0x4100},
			{MRC_SRV6_T0, 3, 0, 0x4001},
			{MRC_SRV6_T1, 3, 15, 0x8010},
			{MRC_SRV6_T1, 3, 16, 0},
			{MRC_SRV6_HOST, 8, 0, 0},
		};
		struct mrc_srv6_node n = {0};

		st_check_usids(st, pl, tab, sizeof(tab) / sizeof(tab[0]));
		ST_EQ(st, mrc_srv6_plane_block(pl, 0), 0xfc000000);
		ST_EQ(st, mrc_srv6_plane_block(pl, 3), 0xfc000003);
		ST_EQ_I(st, mrc_srv6_host_locator(pl, 3, 8191, &a), 0);
		st_ip6("fc000003 2000 0000 0000 0000 0000 0000", &want); /* fc00:3:2000:: */
		ST_EQ_MEM(st, a.b, want.b, 16);
		/* the same uSID names a different node in each plane */
		ST_EQ_I(st, mrc_srv6_usid_node(pl, 3, 0x2000, &n), 0);
		ST_TRUE(st, n.role == MRC_SRV6_HOST && n.plane == 3 && n.index == 8191);
		ST_EQ_I(st, mrc_srv6_usid_node(pl, 5, 0x8010, &n), 0);
		ST_TRUE(st, n.role == MRC_SRV6_T1 && n.plane == 5 && n.index == 15);
		ST_EQ_I(st, mrc_srv6_usid_node(pl, 3, 0x2001, &n), -ENOENT); /* no h8192 */
		ST_EQ_I(st, mrc_srv6_usid_node(pl, 8, 0x0001, &n), -ENOENT); /* no plane 8 */
		/* inner addresses are unchanged: fd00::3:1fff:1 */
		ST_EQ_I(st, mrc_srv6_host_addr(pl, 3, 8191, &a), 0);
		st_ip6("fd00 0000 0000 0000 0000 0003 1fff 0001", &want);
		ST_EQ_MEM(st, a.b, want.b, 16);
	}

	mrc_st_case(st, "usid_plane_bits 0: h0 -> h8191 on plane 3, the uN shift hop by hop");
	if (pl) {
		struct mrc_srv6_path p;

		/* EV 0x3005beef: plane 3, spine 5 -> T1 5 (0x8006); T0 0 = 0x4001, T0 8191 / 32 =
		 * 255 = 0x4100, h8191 = 0x2000 */
		ST_EQ_I(st, mrc_srv6_path(pl, 0, 8191, 0x3005beef, &p), 0);
		ST_EQ(st, p.t0_dst, 255);
		st_ip6("fc000003 4001 8006 4100 2000 0000 0000", &want);
		ST_EQ_MEM(st, p.container.b, want.b, 16);
		st_ip6_hdr(pkt, 41, 0, &p.container);
		/* plane 2's T0 0 owns 0x4001 too, but under fc00:2::/32: no route */
		st_hop(st, pl, pkt, MRC_SRV6_T0, 2, 0, -ENOENT, NULL);
		/* T0 0: up port 32 + T1 5 = 37 */
		st_hop(st, pl, pkt, MRC_SRV6_T0, 3, 0, 37,
			"fc000003 8006 4100 2000 0000 0000 0000");
		/* T1 5: port 255 to T0 255 */
		st_hop(st, pl, pkt, MRC_SRV6_T1, 3, 5, 255,
			"fc000003 4100 2000 0000 0000 0000 0000");
		/* T0 255: host 8191 is its port 8191 - 255 * 32 = 31 */
		st_hop(st, pl, pkt, MRC_SRV6_T0, 3, 255, 31,
			"fc000003 2000 0000 0000 0000 0000 0000");
		ST_EQ(st, pkt[IP6_OFF_HLIM], 61);
		ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 40, 0xfc000003, 0x2000), MRC_SRV6_END_ARRIVED);
	}

	mrc_st_case(st, "usid_plane_bits 0: the static table of p3.t1.15 holds all 256 T0s");
	if (pl) {
		struct mrc_srv6_node n = {MRC_SRV6_T1, 3, 15};
		const struct mrc_srv6_fib *f = mrc_srv6_fib_of(pl, &n);
		bool all = true;

		/* sorted: T0 i = 0x4001 + i on port i, then its own 0x8010 */
		if (mrc_st_check(st, f && f->n == 257, __FILE__, __LINE__, "257 routes")) {
			for (uint32_t i = 0; i < 256; i++)
				all = all && f->routes[i].usid == 0x4001 + i &&
				      f->routes[i].port == (int32_t)i;
			ST_TRUE(st, all);
			ST_EQ(st, f->routes[255].usid, 0x4100);
			ST_EQ(st, f->routes[256].usid, 0x8010);
			ST_EQ_I(st, f->routes[256].port, MRC_SRV6_PORT_LOCAL);
			ST_EQ(st, f->own, 0x8010);
			ST_EQ(st, f->block, 0xfc000003);
		}
		/* a T0's table: own + 32 hosts + 16 T1s */
		n = (struct mrc_srv6_node){MRC_SRV6_T0, 7, 255};
		f = mrc_srv6_fib_of(pl, &n);
		if (mrc_st_check(st, f && f->n == 49, __FILE__, __LINE__, "49 routes")) {
			ST_EQ(st, f->routes[0].usid, 0x1fe1); /* h8160 = 255 * 32: 0x1fe1 */
			ST_EQ_I(st, f->routes[0].port, 0);
			ST_EQ(st, f->routes[32].usid, 0x4100);
			ST_EQ(st, f->routes[48].usid, 0x8010);
			ST_EQ_I(st, f->routes[48].port, 32 + 15);
			ST_EQ(st, f->block, 0xfc000007);
		}
	}
	mrc_srv6_plan_free(pl);
	pl = NULL;

	mrc_st_case(st, "usid_plane_bits: limits per value, 3 bits by hand, block overflow");
	{
		struct mrc_srv6_params p;
		struct mrc_srv6_node n = {MRC_SRV6_T1, 5, 9};

		/* docs/wire-format.md's 4 bits: 1023 host ports per plane, the knob named */
		ST_EQ_I(st, st_8k_plan(4, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err,
			"srv6 plan: topology: the generated plan numbers at most 1023 nodes per "
			"role and plane with usid_plane_bits 4 (0: 16383), got 8192 hosts, 256 "
			"T0, 16 T1");
		ST_EQ_I(st, st_8k_plan(5, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: usid_plane_bits: must be 0..4, got 5");
		/* 2 bits hold 4 planes, not 8 */
		ST_EQ_I(st, st_8k_plan(2, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err,
			"srv6 plan: planes: the generated plan has 2 plane bits, got 8 planes "
			"(give the plan explicitly)");
		/* 3 bits: plane(3) | role(2) | index+1(11), 2047 per role: 8192 hosts too many */
		ST_EQ_I(st, st_8k_plan(3, &pl, err, sizeof(err)), -EINVAL);
		mrc_srv6_params_default(&p);
		p.usid_plane_bits = 3;
		p.planes = 8;
		p.t0 = 64;
		p.t1 = 16;
		p.hosts_per_t0 = 31; /* 1984 hosts */
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		/* p5.t1.9: 5 << 13 | 2 << 11 | 10 = 0xa000 | 0x1000 | 0xa = 0xb00a */
		ST_EQ(st, pl ? mrc_srv6_usid(pl, &n) : 0, 0xb00a);
		ST_EQ(st, pl ? mrc_srv6_plane_block(pl, 5) : 0, 0xfc000000);
		mrc_srv6_plan_free(pl);
		pl = NULL;
		/* 0 bits: 16383 host ports per plane, not 16384 */
		p.usid_plane_bits = 0;
		p.planes = 1;
		p.t0 = 16383;
		p.t1 = 1;
		p.hosts_per_t0 = 1;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		n = (struct mrc_srv6_node){MRC_SRV6_T0, 0, 16382};
		ST_EQ(st, pl ? mrc_srv6_usid(pl, &n) : 0, 0x7fff);
		mrc_srv6_plan_free(pl);
		pl = NULL;
		p.t0 = 16384;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		/* plane p's block is block + p: it must stay in 32 bits */
		p.t0 = 1;
		p.planes = 2;
		p.block = 0xffffffff;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err,
			"srv6 plan: block: 0xffffffff + 2 planes passes 32 bits (usid_plane_bits "
			"0 gives plane p the block block + p)");
		p.planes = 1;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		mrc_srv6_plan_free(pl);
		pl = NULL;
	}

	mrc_st_case(st, "usid_plane_bits 0 with an explicit plan: uSIDs unique per plane");
	{
		/* 2 planes of one T0, one T1, one host: the same three uSIDs in both */
		struct mrc_srv6_assign as[6] = {
			{{MRC_SRV6_HOST, 0, 0}, 0x0001},
			{{MRC_SRV6_T0, 0, 0}, 0x0002},
			{{MRC_SRV6_T1, 0, 0}, 0x0003},
			{{MRC_SRV6_HOST, 1, 0}, 0x0001},
			{{MRC_SRV6_T0, 1, 0}, 0x0002},
			{{MRC_SRV6_T1, 1, 0}, 0x0003},
		};
		struct mrc_srv6_params p;
		struct mrc_srv6_node n = {0};

		mrc_srv6_params_default(&p);
		p.planes = 2;
		p.usids = as;
		p.n_usids = 6;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: h0.p1: uSID 0x0001 already belongs to h0.p0");
		p.usid_plane_bits = 0;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		if (pl) {
			ST_EQ_I(st, mrc_srv6_usid_node(pl, 1, 0x0002, &n), 0);
			ST_TRUE(st, n.role == MRC_SRV6_T0 && n.plane == 1 && n.index == 0);
			ST_EQ_I(st, mrc_srv6_host_locator(pl, 1, 0, &a), 0);
			st_ip6("fc000001 0001 0000 0000 0000 0000 0000", &want);
			ST_EQ_MEM(st, a.b, want.b, 16);
			mrc_srv6_plan_free(pl);
			pl = NULL;
		}
		as[5].usid = 0x0001; /* twice within plane 1 */
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: p1.t1.0: uSID 0x0001 already belongs to h0.p1");
	}

	mrc_st_case(st, "sequential plan: hosts, T0, T1 from 1 in each plane; 65535 nodes");
	{
		struct mrc_srv6_params p;
		struct mrc_srv6_node n;

		/* 32,768 hosts of 512-port switches: 128 T0 x 256 hosts, 256 T1. Host h: h + 1;
		 * T0 i: 32768 + 1 + i; T1 j: 32768 + 128 + 1 + j (docs/wire-format.md) */
		mrc_srv6_params_default(&p);
		p.sequential = true;
		p.usid_plane_bits = 0;
		p.planes = 2;
		p.t0 = 128;
		p.hosts_per_t0 = 256;
		p.t1 = 256;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		if (pl) {
			n = (struct mrc_srv6_node){MRC_SRV6_HOST, 1, 32767};
			ST_EQ(st, mrc_srv6_usid(pl, &n), 0x8000);
			n = (struct mrc_srv6_node){MRC_SRV6_T0, 1, 0};
			ST_EQ(st, mrc_srv6_usid(pl, &n), 0x8001);
			n = (struct mrc_srv6_node){MRC_SRV6_T1, 0, 255};
			ST_EQ(st, mrc_srv6_usid(pl, &n), 0x8180);
			ST_EQ_I(st, mrc_srv6_usid_node(pl, 1, 0x8080, &n), 0);
			ST_TRUE(st, n.role == MRC_SRV6_T0 && n.plane == 1 && n.index == 127);
			ST_EQ_I(st, mrc_srv6_host_locator(pl, 1, 32767, &a), 0);
			st_ip6("fc000001 8000 0000 0000 0000 0000 0000", &want);
			ST_EQ_MEM(st, a.b, want.b, 16);
			mrc_srv6_plan_free(pl);
			pl = NULL;
		}
		p.t1 = 65535 - 32768 - 128; /* the last uSID, 0xffff */
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		mrc_srv6_plan_free(pl);
		pl = NULL;
		p.t1++;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: topology: a sequential plan numbers at most 65535 "
			"nodes per plane, got 32768 hosts + 128 T0 + 32640 T1");
		p.t1 = 256;
		p.usid_plane_bits = 4;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: usid_plane_bits: a sequential plan has no plane "
			"bits (0: plane p under block + p), got 4");
	}
}

MRC_SELFTEST(srv6)
{
	struct mrc_ip6 a, want, s[3], cs[2];
	uint8_t pkt[256];
	struct mrc_srv6_plan *pl;
	char err[160];

	mrc_st_case(st, "container: block + uSIDs, capacity 6, zero uSID refused");
	{
		static const uint16_t u[7] = {0x0401, 0x0801, 0x0402, 0x0002, 0x1401, 0x1801, 9};

		ST_EQ_I(st, mrc_srv6_container(0xfc000000, u, 4, &a), 0);
		st_ip6("fc000000 0401 0801 0402 0002 0000 0000", &want);
		ST_EQ_MEM(st, a.b, want.b, 16);
		ST_EQ_I(st, mrc_srv6_container(0xfc000000, u, 6, &a), 0);
		st_ip6("fc000000 0401 0801 0402 0002 1401 1801", &want);
		ST_EQ_MEM(st, a.b, want.b, 16);
		ST_EQ_I(st, mrc_srv6_container(0xfc000000, u, 7, &a), -E2BIG);
		ST_EQ_I(st, mrc_srv6_container(0xfc000000, u, 0, &a), -EINVAL);
		static const uint16_t z[2] = {0x0401, 0};
		ST_EQ_I(st, mrc_srv6_container(0xfc000000, z, 2, &a), -EINVAL);
	}

	mrc_st_case(st, "containers: 8 uSIDs split 6 + 2 for an SRH");
	{
		static const uint16_t u[8] = {1, 2, 3, 4, 5, 6, 7, 8};

		ST_EQ_I(st, mrc_srv6_containers(0x20010db8, u, 8, cs, 2), 2);
		st_ip6("20010db8 0001 0002 0003 0004 0005 0006", &want);
		ST_EQ_MEM(st, cs[0].b, want.b, 16);
		st_ip6("20010db8 0007 0008 0000 0000 0000 0000", &want);
		ST_EQ_MEM(st, cs[1].b, want.b, 16);
		ST_EQ_I(st, mrc_srv6_containers(0x20010db8, u, 8, cs, 1), -ENOSPC);
		ST_EQ_I(st, mrc_srv6_containers(0x20010db8, u, 6, cs, 1), 1);
	}

	mrc_st_case(st, "uN: shift by 16 bits, zero fill, no match, end of container");
	{
		st_ip6("fc000000 1001 2002 3003 4004 5005 6006", &a);
		ST_EQ(st, mrc_srv6_un(&a, 0xfc000000, 0x1001), MRC_SRV6_UN_NEXT);
		st_ip6("fc000000 2002 3003 4004 5005 6006 0000", &want);
		ST_EQ_MEM(st, a.b, want.b, 16);
		/* not the first uSID, or another block: untouched */
		ST_EQ(st, mrc_srv6_un(&a, 0xfc000000, 0x3003), MRC_SRV6_UN_NO_MATCH);
		ST_EQ(st, mrc_srv6_un(&a, 0xfc000001, 0x2002), MRC_SRV6_UN_NO_MATCH);
		ST_EQ_MEM(st, a.b, want.b, 16);
		for (int i = 0; i < 4; i++)
			mrc_srv6_un(&a, 0xfc000000, get_be16(a.b + 4));
		st_ip6("fc000000 6006 0000 0000 0000 0000 0000", &want);
		ST_EQ_MEM(st, a.b, want.b, 16);
		/* last uSID: nothing follows, End fall-back, DA untouched (RFC 9800 §4.1.1) */
		ST_EQ(st, mrc_srv6_un(&a, 0xfc000000, 0x6006), MRC_SRV6_UN_END);
		ST_EQ_MEM(st, a.b, want.b, 16);
	}

	st_ip6("fc00 0000 0001 0000 0000 0000 0000 0001", &s[0]);
	st_ip6("fc00 0000 0002 0000 0000 0000 0000 0001", &s[1]);
	st_ip6("2001 0db8 000b 0000 0000 0000 0000 0002", &s[2]);

	/* S1, S2, S3 of the shared cases; the SRH bytes (C02, C03) are asserted by wire. */
	mrc_st_case(st, "End: DA S1 -> S2 -> S3 -> arrived under a reduced SRH");
	{
		st_ip6_hdr(pkt, MRC_NH_ROUTING, 40, &s[0]);
		ST_EQ_I(st, mrc_wire_srh_encode(s, 3, true, 41, pkt + MRC_IP6_HLEN, 40), 40);
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 80), MRC_SRV6_END_FORWARD);
		ST_EQ_MEM(st, pkt + IP6_OFF_DST, s[1].b, 16);
		ST_EQ(st, pkt[MRC_IP6_HLEN + 3], 1);
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 80), MRC_SRV6_END_FORWARD);
		ST_EQ_MEM(st, pkt + IP6_OFF_DST, s[2].b, 16);
		ST_EQ(st, pkt[MRC_IP6_HLEN + 3], 0);
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 80), MRC_SRV6_END_ARRIVED);
		ST_EQ_MEM(st, pkt + IP6_OFF_DST, s[2].b, 16);
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 79), -EMSGSIZE);
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 47), -EMSGSIZE);
		/* a bad SRH is left untouched: SL 3 = LE + 2, then routing type 3 */
		pkt[MRC_IP6_HLEN + 3] = 3;
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 80), -EBADMSG);
		ST_EQ_MEM(st, pkt + IP6_OFF_DST, s[2].b, 16);
		pkt[MRC_IP6_HLEN + 3] = 1;
		pkt[MRC_IP6_HLEN + 2] = 3;
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 80), -EPROTONOSUPPORT);
		ST_EQ(st, pkt[MRC_IP6_HLEN + 3], 1);
		/* no SRH: the End node is the destination */
		st_ip6_hdr(pkt, 41, 0, &s[0]);
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 40), MRC_SRV6_END_ARRIVED);
		pkt[0] = 0x40;
		ST_EQ_I(st, mrc_srv6_srh_end(pkt, 40), -EBADMSG);
	}

	mrc_st_case(st, "uN on packet bytes: container 1 empties, SRH gives container 2");
	{
		static const uint16_t u[8] = {
			0x0101, 0x0102, 0x0103, 0x0104, 0x0105, 0x0106, 0x0107, 0x0108};

		mrc_srv6_containers(0xfc000000, u, 8, cs, 2);
		st_ip6_hdr(pkt, MRC_NH_ROUTING, 24, &cs[0]);
		ST_EQ_I(st, mrc_wire_srh_encode(cs, 2, true, 41, pkt + MRC_IP6_HLEN, 24), 24);
		ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 64, 0xfc000000, 0x0102), MRC_SRV6_END_NO_MATCH);
		for (int i = 0; i < 5; i++)
			ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 64, 0xfc000000, u[i]),
				MRC_SRV6_END_FORWARD);
		st_ip6("fc000000 0106 0000 0000 0000 0000 0000", &want);
		ST_EQ_MEM(st, pkt + IP6_OFF_DST, want.b, 16);
		ST_EQ(st, pkt[MRC_IP6_HLEN + 3], 1);
		ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 64, 0xfc000000, 0x0106), MRC_SRV6_END_FORWARD);
		st_ip6("fc000000 0107 0108 0000 0000 0000 0000", &want);
		ST_EQ_MEM(st, pkt + IP6_OFF_DST, want.b, 16);
		ST_EQ(st, pkt[MRC_IP6_HLEN + 3], 0);
		ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 64, 0xfc000000, 0x0107), MRC_SRV6_END_FORWARD);
		ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 64, 0xfc000000, 0x0108), MRC_SRV6_END_ARRIVED);
		ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 39, 0xfc000000, 0x0108), -EMSGSIZE);
	}

	pl = st_small_plan();
	mrc_st_case(st, "plan: uSIDs of a 2-plane, 2x2 T0/T1, 2 hosts/T0 fabric by hand");
	if (mrc_st_check(st, pl != NULL, __FILE__, __LINE__, "small plan builds")) {
		/* plane(4) | role(2) | index + 1 (10) */
		static const struct st_usid tab[] = {
			{MRC_SRV6_HOST, 0, 0, 0x0001},
			{MRC_SRV6_HOST, 0, 3, 0x0004},
			{MRC_SRV6_HOST, 1, 0, 0x1001},
			{MRC_SRV6_HOST, 1, 3, 0x1004},
			{MRC_SRV6_T0, 0, 0, 0x0401},
			{MRC_SRV6_T0, 0, 1, 0x0402},
			{MRC_SRV6_T0, 1, 0, 0x1401},
			{MRC_SRV6_T0, 1, 1, 0x1402},
			{MRC_SRV6_T1, 0, 0, 0x0801},
			{MRC_SRV6_T1, 0, 1, 0x0802},
			{MRC_SRV6_T1, 1, 0, 0x1801},
			{MRC_SRV6_T1, 1, 1, 0x1802},
			{MRC_SRV6_T1, 2, 0, 0},
			{MRC_SRV6_T0, 0, 2, 0},
			{MRC_SRV6_HOST, 0, 4, 0},
		};
		struct mrc_srv6_node n = {0};

		ST_EQ(st, mrc_srv6_plan_hosts(pl), 4);
		st_check_usids(st, pl, tab, sizeof(tab) / sizeof(tab[0]));
		ST_EQ_I(st, mrc_srv6_usid_node(pl, 1, 0x1802, &n), 0);
		ST_TRUE(st, n.role == MRC_SRV6_T1 && n.plane == 1 && n.index == 1);
		ST_EQ_I(st, mrc_srv6_usid_node(pl, 0, 0x1802, &n), -ENOENT); /* plane 1's */
		ST_EQ_I(st, mrc_srv6_usid_node(pl, 0, 0x0c01, &n), -ENOENT);
		ST_EQ(st, mrc_srv6_plane_block(pl, 1), 0xfc000000); /* one block: 4 plane bits */
		ST_EQ_I(st, mrc_srv6_host_locator(pl, 1, 3, &a), 0);
		st_ip6("fc000000 1004 0000 0000 0000 0000 0000", &want);
		ST_EQ_MEM(st, a.b, want.b, 16);
		ST_EQ_I(st, mrc_srv6_host_addr(pl, 1, 3, &a), 0);
		st_ip6("fd00 0000 0000 0000 0000 0001 0003 0001", &want); /* fd00::1:3:1 */
		ST_EQ_MEM(st, a.b, want.b, 16);
		ST_EQ_I(st, mrc_srv6_host_addr(pl, 2, 3, &a), -EINVAL);
		ST_EQ_I(st, mrc_srv6_host_locator(pl, 0, 4, &a), -EINVAL);
	}

	mrc_st_case(st, "plan: static tables of p0.t0.0 and p1.t1.1, lookups");
	if (pl) {
		static const struct mrc_srv6_route t0[] = {{0x0001, 0}, {0x0002, 1},
			{0x0401, MRC_SRV6_PORT_LOCAL}, {0x0801, 2}, {0x0802, 3}};
		static const struct mrc_srv6_route t1[] = {
			{0x1401, 0}, {0x1402, 1}, {0x1802, MRC_SRV6_PORT_LOCAL}};
		struct mrc_srv6_node n = {MRC_SRV6_T0, 0, 0};
		const struct mrc_srv6_fib *f = mrc_srv6_fib_of(pl, &n);
		int32_t port = 99;

		if (mrc_st_check(st, f && f->n == 5, __FILE__, __LINE__, "p0.t0.0 has 5 routes")) {
			for (size_t i = 0; i < 5; i++) {
				ST_EQ(st, f->routes[i].usid, t0[i].usid);
				ST_EQ_I(st, f->routes[i].port, t0[i].port);
			}
			st_ip6("fc000000 0802 0401 0000 0000 0000 0000", &a);
			ST_EQ_I(st, mrc_srv6_fib_lookup(f, &a, &port), 0);
			ST_EQ_I(st, port, 3);
			st_ip6("fc000000 0402 0000 0000 0000 0000 0000", &a); /* another T0 */
			ST_EQ_I(st, mrc_srv6_fib_lookup(f, &a, &port), -ENOENT);
			st_ip6("fc000001 0802 0000 0000 0000 0000 0000", &a); /* another block */
			ST_EQ_I(st, mrc_srv6_fib_lookup(f, &a, &port), -ENOENT);
			/* every uSID, against a scan of the first k routes, k = 0..5 */
			for (size_t k = 0, bad = 0; k <= 5; k++, bad = 0) {
				struct mrc_srv6_fib sub = *f;

				sub.n = k;
				for (uint32_t u = 0; u <= 0xFFFF; u++) {
					int32_t want_port = -99, got = -99;
					int rc;

					for (size_t i = 0; i < k; i++)
						if (t0[i].usid == u)
							want_port = t0[i].port;
					st_ip6("fc000000 0000 0000 0000 0000 0000 0000", &a);
					a.b[4] = (uint8_t)(u >> 8);
					a.b[5] = (uint8_t)u;
					rc = mrc_srv6_fib_lookup(&sub, &a, &got);
					bad += want_port == -99 ? rc != -ENOENT
								: rc != 0 || got != want_port;
				}
				ST_EQ(st, bad, 0);
			}
		}
		n = (struct mrc_srv6_node){MRC_SRV6_T1, 1, 1};
		f = mrc_srv6_fib_of(pl, &n);
		if (mrc_st_check(st, f && f->n == 3, __FILE__, __LINE__, "p1.t1.1 has 3 routes")) {
			for (size_t i = 0; i < 3; i++) {
				ST_EQ(st, f->routes[i].usid, t1[i].usid);
				ST_EQ_I(st, f->routes[i].port, t1[i].port);
			}
			ST_EQ(st, f->own, 0x1802);
		}
		n = (struct mrc_srv6_node){MRC_SRV6_HOST, 0, 0};
		ST_TRUE(st, mrc_srv6_fib_of(pl, &n) == NULL);
	}

	mrc_st_case(st, "EV -> path: cross-T0 h0 -> h3 and same-T0 h0 -> h1; EV -> plane, spine");
	if (pl) {
		struct mrc_srv6_path p, q;

		/* plane 1, spine field 3 -> T1 3 mod 2 = 1, salt 0xbeef */
		ST_EQ_I(st, mrc_srv6_path(pl, 0, 3, 0x1003beef, &p), 0);
		ST_EQ(st, p.plane, 1);
		ST_EQ(st, p.spine, 1);
		ST_TRUE(st, p.via_t1);
		ST_EQ(st, p.t0_src, 0);
		ST_EQ(st, p.t0_dst, 1);
		ST_EQ(st, p.n_usids, 4);
		st_ip6("fc000000 1401 1802 1402 1004 0000 0000", &want);
		ST_EQ_MEM(st, p.container.b, want.b, 16);
		st_ip6("fd00 0000 0000 0000 0000 0001 0000 0001", &want); /* h0.p1 */
		ST_EQ_MEM(st, p.src_addr.b, want.b, 16);
		st_ip6("fd00 0000 0000 0000 0000 0001 0003 0001", &want); /* h3.p1 */
		ST_EQ_MEM(st, p.dst_addr.b, want.b, 16);
		ST_EQ(st, mrc_srv6_ev_plane(&mrc_srv6_plan_params(pl)->ev, 0x1003beef), 1);
		ST_EQ(st, mrc_srv6_ev_spine(&mrc_srv6_plan_params(pl)->ev, 0x1003beef), 3);
		ST_EQ(st, mrc_srv6_ev_make(&mrc_srv6_plan_params(pl)->ev, 1, 3, 0xbeef),
			0x1003beef);
		/* same T0: no T1 uSID, and the spine field does not matter */
		ST_EQ_I(st, mrc_srv6_path(pl, 0, 1, 0x00000001, &p), 0);
		ST_EQ_I(st, mrc_srv6_path(pl, 0, 1, 0x00010002, &q), 0);
		ST_TRUE(st, !p.via_t1);
		ST_EQ(st, p.n_usids, 2);
		st_ip6("fc000000 0401 0002 0000 0000 0000 0000", &want);
		ST_EQ_MEM(st, p.container.b, want.b, 16);
		ST_EQ_MEM(st, q.container.b, want.b, 16);
		ST_EQ_I(st, mrc_srv6_path(pl, 0, 3, 0x20000000, &p), -EINVAL); /* plane 2 */
		ST_EQ_I(st, mrc_srv6_path(pl, 0, 4, 0, &p), -EINVAL);
		ST_EQ_I(st, mrc_srv6_path(pl, 2, 2, 0, &p), -EINVAL);
	}

	mrc_st_case(st, "switch hops on bytes: h0 -> h3 plane 1 via p1.t1.1, then host End");
	if (pl) {
		struct mrc_srv6_path p;

		mrc_srv6_path(pl, 0, 3, 0x1003beef, &p);
		st_ip6_hdr(pkt, 41, 0, &p.container);
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 1, -ENOENT, NULL); /* wrong first switch */
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 0, 3, "fc000000 1802 1402 1004 0000 0000 0000");
		st_hop(st, pl, pkt, MRC_SRV6_T1, 1, 1, 1, "fc000000 1402 1004 0000 0000 0000 0000");
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 1, 1, "fc000000 1004 0000 0000 0000 0000 0000");
		ST_EQ(st, pkt[IP6_OFF_HLIM], 61);
		ST_EQ_I(st, mrc_srv6_end_pkt(pkt, 40, 0xfc000000, 0x1004), MRC_SRV6_END_ARRIVED);
		/* a container that ends at a switch, and hop limit exhaustion */
		st_ip6("fc000000 1402 0000 0000 0000 0000 0000", &a);
		st_ip6_hdr(pkt, 41, 0, &a);
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 1, -EDESTADDRREQ, NULL);
		st_ip6("fc000000 1001 0000 0000 0000 0000 0000", &a);
		st_ip6_hdr(pkt, 41, 0, &a);
		pkt[IP6_OFF_HLIM] = 1;
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 0, -ETIME, NULL);
	}

	mrc_st_case(st, "hop limit at a uN, End and transit: <= 1 leaves the bytes as received "
			"(RFC 9800 §4.1.1 S02, RFC 8986 §4.1 S05), 2 leaves with 1");
	if (pl) {
		uint8_t buf[MRC_IP6_HLEN + 40], keep[sizeof(buf)];
		struct mrc_ip6 seg[3];

		/* uN p1.t0.0 (0x1401) with an argument: expires before the shift */
		st_ip6("fc000000 1401 1802 1402 1004 0000 0000", &a);
		st_ip6_hdr(pkt, 41, 0, &a);
		pkt[IP6_OFF_HLIM] = 1;
		memcpy(keep, pkt, MRC_IP6_HLEN);
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 0, -ETIME, NULL);
		ST_EQ_MEM(st, pkt, keep, MRC_IP6_HLEN);
		pkt[IP6_OFF_HLIM] = 0;
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 0, -ETIME,
			"fc000000 1401 1802 1402 1004 0000 0000");
		pkt[IP6_OFF_HLIM] = 2; /* shifted, out on port 3 (T1 1) with 1 */
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 0, 3, "fc000000 1802 1402 1004 0000 0000 0000");
		ST_EQ(st, pkt[IP6_OFF_HLIM], 1);
		/* transit at p1.t1.1 for T0 0x1402 with 1 left: expires, DA untouched */
		st_ip6_hdr(pkt, 41, 0, &a);
		st_ip6("fc000000 1402 1004 0000 0000 0000 0000", &a);
		memcpy(pkt + IP6_OFF_DST, a.b, 16);
		pkt[IP6_OFF_HLIM] = 1;
		st_hop(st, pl, pkt, MRC_SRV6_T1, 1, 1, -ETIME,
			"fc000000 1402 1004 0000 0000 0000 0000");
		/* End: container fc00:0:1401:: ends at p1.t0.0, a normal SRH with segments left 1
		 * names p1.t1.0 next; with 1 the SRH and DA stay, with 2 SL-- and DA = list[0] */
		st_ip6("fc000000 1401 0000 0000 0000 0000 0000", &seg[0]);
		st_ip6("fc000000 1801 0000 0000 0000 0000 0000", &seg[1]);
		ST_EQ_I(st, mrc_wire_srh_encode(seg, 2, false, 41, buf + MRC_IP6_HLEN, 40), 40);
		st_ip6_hdr(buf, MRC_NH_ROUTING, 40, &seg[0]);
		ST_EQ(st, buf[MRC_IP6_HLEN + 3], 1); /* segments left */
		buf[IP6_OFF_HLIM] = 1;
		memcpy(keep, buf, sizeof(buf));
		{
			struct mrc_srv6_node n = {MRC_SRV6_T0, 1, 0};
			const struct mrc_srv6_fib *f = mrc_srv6_fib_of(pl, &n);

			ST_EQ_I(st, mrc_srv6_switch_forward(f, buf, sizeof(buf)), -ETIME);
			ST_EQ_MEM(st, buf, keep, sizeof(buf));
			buf[IP6_OFF_HLIM] = 2;
			ST_EQ_I(st, mrc_srv6_switch_forward(f, buf, sizeof(buf)), 2); /* T1 0 */
			ST_EQ(st, buf[MRC_IP6_HLEN + 3], 0);
			ST_EQ(st, buf[IP6_OFF_HLIM], 1);
			ST_EQ_MEM(st, buf + IP6_OFF_DST, seg[1].b, 16);
		}
		/* the list ends here (no SRH, no argument): arrived, no hop limit check */
		st_ip6_hdr(pkt, 41, 0, &seg[0]);
		pkt[IP6_OFF_HLIM] = 1;
		st_hop(st, pl, pkt, MRC_SRV6_T0, 1, 0, -EDESTADDRREQ, NULL);
	}
	mrc_srv6_plan_free(pl);

	mrc_st_case(st, "explicit plan: accepted, and unique / non-zero / 16-bit / complete");
	{
		struct mrc_srv6_assign as[4] = {
			{{MRC_SRV6_HOST, 0, 0}, 0xa001},
			{{MRC_SRV6_HOST, 0, 1}, 0xa002},
			{{MRC_SRV6_T0, 0, 0}, 0xb000},
			{{MRC_SRV6_T1, 0, 0}, 0xc000},
		};
		struct mrc_srv6_params p;
		struct mrc_srv6_path path;

		mrc_srv6_params_default(&p);
		p.hosts_per_t0 = 2;
		p.usids = as;
		p.n_usids = 4;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		if (pl) {
			ST_EQ_I(st, mrc_srv6_path(pl, 1, 0, 0, &path), 0);
			st_ip6("fc000000 b000 a001 0000 0000 0000 0000", &want);
			ST_EQ_MEM(st, path.container.b, want.b, 16);
			mrc_srv6_plan_free(pl);
		}
		as[3].usid = 0xa002;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: p0.t1.0: uSID 0xa002 already belongs to h1.p0");
		as[3].usid = 0x10000;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err,
			"srv6 plan: usids[3]: p0.t1.0: uSID 0x10000 must be "
			"0x0001..0xffff");
		as[3].usid = 0;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		as[3] = (struct mrc_srv6_assign){{MRC_SRV6_T0, 0, 0}, 0xc000};
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: usids[3]: p0.t0.0: node given twice");
		p.n_usids = 3;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		p.usids = NULL;
		p.planes = 17;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_TRUE(st, pl == NULL);
		p.planes = 1;
		p.host_prefix_len = 81;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		p.host_prefix_len = 8;
		p.host_prefix[1] = 0x01; /* fd01::/8 has a bit past the prefix */
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "srv6 plan: host_prefix: bits set past /8");
		p.host_prefix[1] = 0;
		ST_EQ_I(st, mrc_srv6_plan_new(&p, &pl, err, sizeof(err)), 0);
		mrc_srv6_plan_free(pl);
	}

	mrc_st_case(st, "node names parse and print");
	{
		struct mrc_srv6_node n;
		char name[32];

		ST_EQ_I(st, mrc_srv6_node_parse("h31", &n), 0);
		ST_TRUE(st, n.role == MRC_SRV6_HOST && n.index == 31 && n.plane == 0);
		ST_EQ_I(st, mrc_srv6_node_parse("p7.t1.3", &n), 0);
		ST_TRUE(st, n.role == MRC_SRV6_T1 && n.plane == 7 && n.index == 3);
		mrc_srv6_node_name(&n, name, sizeof(name));
		ST_EQ_STR(st, name, "p7.t1.3");
		ST_EQ_I(st, mrc_srv6_node_parse("h5.p2", &n), 0);
		mrc_srv6_node_name(&n, name, sizeof(name));
		ST_EQ_STR(st, name, "h5.p2");
		ST_EQ_I(st, mrc_srv6_node_parse("h", &n), -EINVAL);
		ST_EQ_I(st, mrc_srv6_node_parse("h05", &n), -EINVAL);
		ST_EQ_I(st, mrc_srv6_node_parse("p0.t2.0", &n), -EINVAL);
		ST_EQ_I(st, mrc_srv6_node_parse("p0.t0.1x", &n), -EINVAL);
	}

	mrc_st_case(st, "EV profile: default fields, 8 EVs over 2 planes, deny, ev_min_active");
	{
		struct mrc_srv6_params p;
		struct mrc_srv6_ev_field f[3];
		struct mrc_srv6_ev_entry e[16];
		struct mrc_srv6_ev_deny deny = {0x0fff0000, 0x00010000}; /* spine 1 */
		struct mrc_srv6_ev_profile prof = {.fields = f, .n_fields = 3, .ev_count = 8};
		/* i -> plane i % 2, k = i / 2 -> spine k % 2, salt k / 2 */
		static const uint32_t want_ev[8] = {0x00000000, 0x10000000, 0x00010000, 0x10010000,
			0x00000001, 0x10000001, 0x00010001, 0x10010001};

		mrc_srv6_params_default(&p);
		p.planes = 2;
		p.t1 = 2;
		mrc_srv6_ev_default_fields(&p, f);
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 16, err, sizeof(err)), 8);
		for (int i = 0; i < 8; i++) {
			ST_EQ(st, e[i].ev, want_ev[i]);
			ST_TRUE(st, !e[i].denied);
		}
		prof.deny = &deny;
		prof.n_deny = 1;
		prof.ev_min_active = 4;
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 16, err, sizeof(err)), 8);
		for (int i = 0; i < 8; i++)
			ST_EQ(st, e[i].denied, (i / 2) % 2 == 1);
		prof.ev_min_active = 5;
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 16, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "ev profile: deny: leaves 4 usable EVs, below ev_min_active 5");
		prof.ev_min_active = 1; /* < planes */
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 16, err, sizeof(err)), -EINVAL);
		prof.ev_min_active = 9; /* > ev_count */
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 16, err, sizeof(err)), -EINVAL);
		prof.n_deny = 0;
		prof.ev_min_active = 0;
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 7, err, sizeof(err)), -ENOSPC);
		/* 5 EVs over 2 planes: 3 + 2 */
		prof.ev_count = 5;
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 16, err, sizeof(err)), 5);
		ST_EQ(st, e[4].ev, 0x00000001);
		/* 2 spines x 65536 salts = 131072 per plane; 262145 EVs need 131073 */
		prof.ev_count = 262145;
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &p.ev, e, 300000, err, sizeof(err)),
			-ERANGE);
	}

	mrc_st_case(st, "EV profile: scattered mask, fixed init, explicit list");
	{
		/* plane in the low 4 bits this time; a 28-bit field with init 0x100, mask 0x11 */
		struct mrc_srv6_ev_field f[2] = {{28, 0x100, 0x11, 0, 3}, {4, 0, 0xf, 0, 0}};
		struct mrc_srv6_ev_layout l = {0, 4, 4, 12};
		struct mrc_srv6_ev_profile prof = {
			.fields = f, .n_fields = 2, .plane_field = 1, .ev_count = 4};
		struct mrc_srv6_ev_entry e[8];
		/* v = 0..3 deposited into bits 0 and 4 of the field: 0x100 0x101 0x110 0x111 */
		static const uint32_t want_ev[4] = {0x1000, 0x1010, 0x1100, 0x1110};
		static const uint32_t list[3] = {0x00000005, 0x10000001, 0x00000005};
		struct mrc_srv6_ev_layout dl = {28, 4, 16, 12};

		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 1, &l, e, 8, err, sizeof(err)), 4);
		for (int i = 0; i < 4; i++)
			ST_EQ(st, e[i].ev, want_ev[i]);
		prof.ev_count = 5; /* 4 combinations only */
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 1, &l, e, 8, err, sizeof(err)), -ERANGE);
		f[0].max = 4; /* 2 mask bits hold 0..3 */
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 1, &l, e, 8, err, sizeof(err)), -EINVAL);
		f[0].max = 3;
		f[0].width = 27; /* 31 bits */
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 1, &l, e, 8, err, sizeof(err)), -EINVAL);
		/* the generated plane must read back under the layout */
		f[0].width = 28;
		prof.ev_count = 2;
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &dl, e, 8, err, sizeof(err)), -EINVAL);

		prof = (struct mrc_srv6_ev_profile){.explicit_evs = list, .n_explicit = 2};
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &dl, e, 8, err, sizeof(err)), 2);
		ST_EQ(st, e[1].ev, 0x10000001);
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 1, &dl, e, 8, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err,
			"ev profile: evs[1]: EV 0x10000001 is in plane 1; the fabric has "
			"1 planes");
		prof.n_explicit = 3;
		ST_EQ_I(st, mrc_srv6_ev_expand(&prof, 2, &dl, e, 8, err, sizeof(err)), -EINVAL);
		ST_EQ_STR(st, err, "ev profile: evs: EV 0x00000005 listed twice");
	}

	st_cases_8k(st);
}
