/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * srv6: SRv6 uSID containers (RFC 9800 NEXT-CSID, F3216), SRH End processing (RFC 8754
 * §4.3.1.1, on mrc/wire's SRH codec), the fabric's addressing plan and static tables, and
 * the EV <-> path functions of docs/wire-format.md ("SRv6 uSID addressing", "Path (EV) states").
 * Engine module: pure, no I/O.
 */
#ifndef MRC_SRV6_H
#define MRC_SRV6_H

#include "mrc/engine/wire.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* F3216: 32-bit locator block, 16-bit uSIDs, so 6 uSIDs fit after the block. */
#define MRC_SRV6_BLOCK_BITS 32
#define MRC_SRV6_USID_BITS 16
#define MRC_SRV6_CONTAINER_MAX 6

/* ---- uSID containers (RFC 9800 §4.1, F3216) ---- */

/*
 * Builds the container block:usids[0]:...:usids[n-1]:0... into @out. @block is the 32-bit
 * locator block (0xfc000000 = fc00:0000::/32). Returns 0; -EINVAL when @n is 0 or a uSID is 0
 * (a zero uSID marks the end of the container), -E2BIG when @n > MRC_SRV6_CONTAINER_MAX.
 */
int mrc_srv6_container(uint32_t block, const uint16_t *usids, size_t n, struct mrc_ip6 *out);

/*
 * Splits a uSID list longer than one container into ceil(n/6) containers (travel order) for
 * an SRH: the first goes in the DA, the rest become SRH segments. Returns the number of
 * containers written to @out, -ENOSPC when more than @cap are needed, -EINVAL as above.
 */
int mrc_srv6_containers(
	uint32_t block, const uint16_t *usids, size_t n, struct mrc_ip6 *out, size_t cap);

/* Outcome of the uN step (End with NEXT-CSID flavour) on a destination address. */
enum mrc_srv6_un {
	MRC_SRV6_UN_NO_MATCH = 0, /* DA is not block:own::/48: route it unchanged */
	MRC_SRV6_UN_NEXT,	  /* shifted: the DA now starts with the next uSID */
	MRC_SRV6_UN_END,	  /* no uSID after own: End fall-back (SRH SL--, or arrived) */
};

/*
 * The uN step of RFC 9800 §4.1.1 on @da in place, for a node owning uSID @own in @block.
 * When @da is block:own:ARGS with ARGS != 0, the 80 bits after @own move left by 16 and
 * the last 16 bits become zero (returns MRC_SRV6_UN_NEXT). When ARGS == 0 the DA is left
 * as it is and MRC_SRV6_UN_END says to do plain End processing. Pure; never fails.
 */
enum mrc_srv6_un mrc_srv6_un(struct mrc_ip6 *da, uint32_t block, uint16_t own);

/* ---- Segment Routing Header (RFC 8754): End processing ---- */

/* The SRH byte codec is mrc/wire's (mrc_wire_srh_encode/decode/segment/len). */

/* What an endpoint did with a packet (mrc_srv6_end_pkt). */
enum mrc_srv6_end {
	MRC_SRV6_END_NO_MATCH = 0, /* DA is not this node's: forward it unchanged */
	MRC_SRV6_END_FORWARD,	   /* DA rewritten (uSID shift or next SRH segment) */
	MRC_SRV6_END_ARRIVED,	   /* final destination: decapsulate */
};

/*
 * Endpoint processing on the packet bytes in place (@pkt starts at the outer IPv6 header,
 * @len bytes): the uN step for (@block, @own); when the container is exhausted, RFC 8754
 * §4.3.1.1 End: with an SRH directly after the IPv6 header and segments_left > 0,
 * segments_left-- and DA = list[segments_left]; without an SRH, or with segments_left 0,
 * the packet has arrived. Hop limit is not touched. Returns enum mrc_srv6_end, or
 * -EMSGSIZE (truncated), -EBADMSG (not IPv6, or a bad SRH), -EPROTONOSUPPORT (another
 * routing header type).
 */
int mrc_srv6_end_pkt(uint8_t *pkt, size_t len, uint32_t block, uint16_t own);

/*
 * RFC 8754 §4.3.1.1 End alone (the DA is known to be this node's SID): segments_left--,
 * DA = list[segments_left]. Returns MRC_SRV6_END_FORWARD, MRC_SRV6_END_ARRIVED (no SRH, or
 * segments_left 0), or the errors of mrc_srv6_end_pkt.
 */
int mrc_srv6_srh_end(uint8_t *pkt, size_t len);

/* ---- Addressing plan ---- */

/* Node roles; the values are the 2-bit role field of the default uSID plan. */
enum mrc_srv6_role {
	MRC_SRV6_HOST = 0, /* a host's NIC port in one plane */
	MRC_SRV6_T0 = 1,
	MRC_SRV6_T1 = 2,
};

/* A node of the fabric: for MRC_SRV6_HOST, @index is the host number (0..hosts-1). */
struct mrc_srv6_node {
	uint8_t role; /* enum mrc_srv6_role */
	uint8_t plane;
	uint32_t index;
};

/* One row of an explicit numbering plan. @usid is 32 bits wide so that range is checked. */
struct mrc_srv6_assign {
	struct mrc_srv6_node node;
	uint32_t usid;
};

/*
 * Where the plane and spine live in a 32-bit EV (docs/wire-format.md default: plane(4) | spine(12)
 * | salt(16), i.e. plane_shift 28, plane_bits 4, spine_shift 16, spine_bits 12).
 */
struct mrc_srv6_ev_layout {
	uint8_t plane_shift, plane_bits;
	uint8_t spine_shift, spine_bits;
};

/*
 * The topology and addressing parameters (the lead maps the config's `fabric` section
 * here). Port numbering of the generated fabric, used by the static tables and the
 * simulator: T0 i of plane p has ports 0..hosts_per_t0-1 to its hosts (port k to host
 * i * hosts_per_t0 + k) and port hosts_per_t0 + j to T1 j; T1 j has port i to T0 i; a host
 * has port p in plane p.
 */
struct mrc_srv6_params {
	uint32_t planes; /* 1..16 */
	uint32_t t0;	 /* T0 (leaf) switches per plane */
	uint32_t t1;	 /* T1 (spine) switches per plane */
	uint32_t hosts_per_t0;
	uint32_t block;		 /* uSID locator block, 32 bits (0xfc000000 = fc00:0::/32) */
	/*
	 * Where the plane lives in the fabric's addresses. 1..4: in the uSID, one uSID space
	 * and one locator block @block for every plane; the generated uSID is
	 * plane(b) | role(2) | index + 1 (14 - b bits), docs/wire-format.md's default being b = 4.
	 * 0: a uSID space per plane (planes are separate networks): plane p's locator block
	 * is @block + p (fc00:0::/32, fc00:1::/32, ... for fc00:0::/32) and the generated
	 * uSID is role(2) | index + 1 (14 bits). An explicit plan reads only zero (uSIDs
	 * unique within a plane, a block per plane) against non-zero (unique in the fabric).
	 */
	uint8_t usid_plane_bits;
	/*
	 * Generated plan numbered in sequence, without role bits (usid_plane_bits must be 0):
	 * in each plane host ports 1..H, then T0 H+1..H+t0, then T1 after them, so that
	 * H + t0 + t1 <= 65535 nodes fit a plane's 16-bit uSIDs (large fabrics: 32,768 hosts
	 * of 512-port switches). docs/wire-format.md "SRv6 uSID addressing".
	 */
	bool sequential;
	uint8_t host_prefix[16]; /* inner port addresses live in host_prefix/host_prefix_len */
	uint8_t host_prefix_len; /* 0..80 bits: the last 48 bits hold plane:host:1 */
	struct mrc_srv6_ev_layout ev;
	/* explicit numbering plan: every node exactly once; NULL = generated plan */
	const struct mrc_srv6_assign *usids;
	size_t n_usids;
};

/* docs/wire-format.md "SRv6 uSID addressing": the generated plan's default plane field, 4 bits. */
#define MRC_SRV6_USID_PLANE_BITS 4

/*
 * Fills @p with the defaults: 1 plane, block fc00:0::/32, usid_plane_bits 4, prefix
 * fd00::/64, docs/wire-format.md EV.
 */
void mrc_srv6_params_default(struct mrc_srv6_params *p);

#define MRC_SRV6_PORT_LOCAL (-1) /* route action: local uN/End */

/* One static route: the /48 block:usid:: and where it goes. */
struct mrc_srv6_route {
	uint16_t usid;
	int32_t port; /* egress port index, or MRC_SRV6_PORT_LOCAL */
};

/* A switch's static table, sorted by uSID. Owned by the plan; read-only. */
struct mrc_srv6_fib {
	struct mrc_srv6_node node;
	uint16_t own;
	uint32_t block; /* the switch's plane's locator block (mrc_srv6_plane_block) */
	size_t n;
	const struct mrc_srv6_route *routes;
};

struct mrc_srv6_plan;

/*
 * Builds the plan: uSIDs of every T0, T1 and host port in every plane and each switch's
 * static table. Generated uSIDs (docs/wire-format.md "SRv6 uSID addressing", F3216 16-bit uSIDs of
 * RFC 9800 §4): plane(b) | role(2) | index + 1 (14 - b bits) for b = usid_plane_bits —
 * the index is biased by one so that no uSID is 0x0000, the end-of-container marker; this
 * bounds each role to 2^(14 - b) - 1 nodes per plane: 1023 with docs/wire-format.md's b = 4, 16383
 * with b = 0, where each plane has its own space under its own block (block + plane), e.g.
 * host 8191 of plane 3 under fc00:0::/32 is fc00:3:2000:: (role 0, index + 1 = 0x2000).
 * With b >= 1 the planes must fit b bits. An explicit plan must name every node once with
 * a uSID that is non-zero, fits 16 bits and is unique (within its plane when b = 0). On
 * error, writes "srv6 plan: OBJECT: reason" into @err (when non-NULL) and returns -EINVAL
 * (bad parameter or plan) or -ENOMEM.
 */
int mrc_srv6_plan_new(
	const struct mrc_srv6_params *p, struct mrc_srv6_plan **out, char *err, size_t errlen);
void mrc_srv6_plan_free(struct mrc_srv6_plan *plan);

/* The parameters the plan was built from (a copy, without the explicit table). */
const struct mrc_srv6_params *mrc_srv6_plan_params(const struct mrc_srv6_plan *plan);
uint32_t mrc_srv6_plan_hosts(const struct mrc_srv6_plan *plan);

/* uSID of @n, or 0 when @n is outside the topology. */
uint16_t mrc_srv6_usid(const struct mrc_srv6_plan *plan, const struct mrc_srv6_node *n);

/*
 * The node of plane @plane owning @usid (a uSID is only meaningful within its plane's
 * block: with usid_plane_bits 0 every plane numbers its nodes from the same space).
 * -ENOENT when no node of that plane does.
 */
int mrc_srv6_usid_node(const struct mrc_srv6_plan *plan, uint32_t plane, uint16_t usid,
	struct mrc_srv6_node *n);

/*
 * The 32-bit locator block of plane @plane's addresses: params.block, or block + plane
 * with usid_plane_bits 0. @plane must be < planes.
 */
uint32_t mrc_srv6_plane_block(const struct mrc_srv6_plan *plan, uint32_t plane);

/*
 * Host port's outer locator: its plane's block:uSID:: (what its last uN matches). -EINVAL
 * out of range.
 */
int mrc_srv6_host_locator(
	const struct mrc_srv6_plan *plan, uint32_t plane, uint32_t host, struct mrc_ip6 *out);

/*
 * Host port's inner address: the host prefix with its last three 16-bit groups set to
 * plane : host : 1, e.g. fd00::2:5:1 for host 5 in plane 2 under fd00::/64. -EINVAL out of
 * range.
 */
int mrc_srv6_host_addr(
	const struct mrc_srv6_plan *plan, uint32_t plane, uint32_t host, struct mrc_ip6 *out);

/*
 * The inverse of mrc_srv6_host_addr: the plane and host whose inner address @a is (the
 * host prefix's first 80 bits, then plane : host : 1 with both in range). Returns 0, or
 * -ENOENT for any other address (a packet from outside the job).
 */
int mrc_srv6_addr_host(const struct mrc_srv6_plan *plan, const struct mrc_ip6 *a,
	uint32_t *plane, uint32_t *host);

/* The static table of a switch (role T0 or T1), or NULL when @n is not a switch. */
const struct mrc_srv6_fib *mrc_srv6_fib_of(
	const struct mrc_srv6_plan *plan, const struct mrc_srv6_node *n);

/*
 * Looks @da up in @fib: a /48 match on block:uSID. Returns 0 and the egress port (or
 * MRC_SRV6_PORT_LOCAL) in @port, or -ENOENT when no route matches.
 */
int mrc_srv6_fib_lookup(const struct mrc_srv6_fib *fib, const struct mrc_ip6 *da, int32_t *port);

/*
 * One switch hop on the packet bytes in place: look the DA up; on the local route do uN /
 * End (mrc_srv6_end_pkt) and look the new DA up; decrement the hop limit. Returns the
 * egress port, or -ENOENT (no route), -EDESTADDRREQ (the segment list ends at this switch:
 * no hop limit check, RFC 8986 §4.1 S02-S03), -ETIME (hop limit exhausted), or the parse
 * errors of mrc_srv6_end_pkt.
 * -ETIME: a hop limit <= 1 on a packet the switch would forward, checked where the RFCs
 * check it — at a uN whose argument is not empty before the shift (RFC 9800 §4.1.1 S02),
 * at End with segments left before segments_left and the DA change (RFC 8986 §4.1 S05),
 * on a transit route before the decrement (RFC 8200 §3) — so the packet's bytes are
 * still as received: the invoking packet an ICMPv6 Time Exceeded quotes (RFC 4443 §3.3,
 * mrc_wire_icmp6_time_exceeded), which the caller sends.
 */
int mrc_srv6_switch_forward(const struct mrc_srv6_fib *fib, uint8_t *pkt, size_t len);

/* Node names: host "h5", host port "h5.p2", switches "p0.t0.3" / "p0.t1.1". */
int mrc_srv6_node_name(const struct mrc_srv6_node *n, char *buf, size_t len);

/* Parses "h5" (as host port of plane 0), "h5.p2", "p0.t0.3", "p1.t1.0". 0 or -EINVAL. */
int mrc_srv6_node_parse(const char *s, struct mrc_srv6_node *n);

/* ---- EV <-> path ---- */

/* A packet's path from host to host for one EV (docs/wire-format.md "SRv6 uSID addressing"). */
struct mrc_srv6_path {
	uint32_t ev;
	uint32_t plane;
	uint32_t spine; /* T1 index = EV spine field mod t1; meaningful when via_t1 */
	bool via_t1;	/* false when both hosts hang off the same T0 */
	uint32_t src_host, dst_host;
	uint32_t t0_src, t0_dst;
	uint16_t usids[4]; /* T0(src), [T1], T0(dst), port(dst) */
	uint8_t n_usids;
	struct mrc_ip6 container;	   /* outer DA at the source */
	struct mrc_ip6 src_addr, dst_addr; /* inner (and outer source) port addresses */
};

/*
 * The path of @ev from @src to @dst: plane from the EV's plane field, T1 = spine field mod
 * t1, container block:T0(src):T1:T0(dst):port(dst):: under the plane's block
 * (mrc_srv6_plane_block), T1 left out when the hosts share a T0. Returns 0, or -EINVAL
 * (host out of range, src == dst, plane >= planes).
 */
int mrc_srv6_path(const struct mrc_srv6_plan *plan, uint32_t src, uint32_t dst, uint32_t ev,
	struct mrc_srv6_path *out);

/*
 * Addresses a packet from host @src to @dst on @ev (docs/wire-format.md "Packet stack"): outer
 * source and inner source = @src's port address on the EV's plane, outer DA = the uSID container of
 * the path, inner DA = @dst's port address; no SRH. What both drivers hand the engine as its path
 * callback. Returns 0 or the errors of mrc_srv6_path().
 */
int mrc_srv6_address(const struct mrc_srv6_plan *plan, uint32_t src, uint32_t dst, uint32_t ev,
	struct mrc_pkt *hdr);

/* Plane and raw spine fields of an EV under @l (the reverse of mrc_srv6_ev_make). */
uint32_t mrc_srv6_ev_plane(const struct mrc_srv6_ev_layout *l, uint32_t ev);
uint32_t mrc_srv6_ev_spine(const struct mrc_srv6_ev_layout *l, uint32_t ev);

/* Builds an EV from its fields under @l; bits of other fields (the salt) come from @salt. */
uint32_t mrc_srv6_ev_make(
	const struct mrc_srv6_ev_layout *l, uint32_t plane, uint32_t spine, uint32_t salt);

/* ---- EV profile expansion (the mrc_ctl.h model) ---- */

/*
 * One field of a generated EV, most significant first; widths add up to 32. The field's
 * value is @init with a counter value v (min <= v <= max) deposited into the set bits of
 * @mask, low bit first; a zero @mask keeps @init fixed.
 */
struct mrc_srv6_ev_field {
	uint8_t width;
	uint32_t init, mask, min, max;
};

/* Deny rule: an EV with (ev & mask) == value is DENIED (mask 0xffffffff: one EV). */
struct mrc_srv6_ev_deny {
	uint32_t mask, value;
};

struct mrc_srv6_ev_profile {
	/* explicit list (used when n_explicit > 0), or generated from @fields */
	const uint32_t *explicit_evs;
	size_t n_explicit;
	const struct mrc_srv6_ev_field *fields;
	size_t n_fields;
	uint32_t plane_field;	/* index in @fields whose counter is the plane */
	uint32_t ev_count;	/* generated: EVs to make; explicit: 0 or n_explicit */
	uint32_t ev_min_active; /* floor of usable EVs: planes <= it <= ev_count */
	const struct mrc_srv6_ev_deny *deny;
	size_t n_deny;
};

struct mrc_srv6_ev_entry {
	uint32_t ev;
	bool denied;
};

/*
 * The default field rules for a plan: plane(4) | spine(12, 0..t1-1) | salt(16, 0..0xffff)
 * in @f[3]; plane_field 0.
 */
void mrc_srv6_ev_default_fields(const struct mrc_srv6_params *p, struct mrc_srv6_ev_field f[3]);

/*
 * Expands @prof for @planes planes into @out (capacity @cap). Generated: EV i belongs to
 * plane i % planes (so planes differ by at most one EV and are interleaved), and is the
 * (i / planes)-th combination of the other fields, counted as a mixed-radix number whose
 * fastest digit is the first non-plane field (the spine field by default: consecutive EVs
 * of a plane go to different spines). Explicit: the list in order, duplicates refused.
 * Every EV's plane under @l must be < @planes. Deny rules mark entries denied; fewer than
 * ev_min_active usable EVs is an error. Deterministic. Returns the number of entries, or
 * -EINVAL / -ERANGE / -ENOSPC with "ev profile: OBJECT: reason" in @err.
 */
int mrc_srv6_ev_expand(const struct mrc_srv6_ev_profile *prof, uint32_t planes,
	const struct mrc_srv6_ev_layout *l, struct mrc_srv6_ev_entry *out, size_t cap, char *err,
	size_t errlen);

/* Formats @a as RFC 5952 text into @buf (at least 46 bytes). Returns @buf. */
char *mrc_srv6_addr_str(const struct mrc_ip6 *a, char *buf, size_t len);

#endif
