/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * srv6: uSID containers and the uN step (RFC 9800 §4.1, F3216), SRH End processing
 * (RFC 8754 §4.3.1.1, with mrc/wire's SRH codec), the addressing plan, static tables and
 * EV <-> path of docs/wire-format.md "SRv6 uSID addressing".
 */
#include "mrc/engine/srv6.h"
#include "mrc/base/err.h"

#include "mrc/base/bytes.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IP6_OFF_NH 6
#define IP6_OFF_HLIM 7
#define IP6_OFF_DST 24

/* ---- containers ---- */

int mrc_srv6_container(uint32_t block, const uint16_t *usids, size_t n, struct mrc_ip6 *out)
{
	if (n == 0)
		return -EINVAL;
	if (n > MRC_SRV6_CONTAINER_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		if (usids[i] == 0)
			return -EINVAL;
	}
	memset(out->b, 0, sizeof(out->b));
	put_be32(out->b, block);
	for (size_t i = 0; i < n; i++)
		put_be16(out->b + 4 + 2 * i, usids[i]);
	return 0;
}

int mrc_srv6_containers(
	uint32_t block, const uint16_t *usids, size_t n, struct mrc_ip6 *out, size_t cap)
{
	size_t need = (n + MRC_SRV6_CONTAINER_MAX - 1) / MRC_SRV6_CONTAINER_MAX;

	if (n == 0)
		return -EINVAL;
	if (need > cap)
		return -ENOSPC;
	for (size_t c = 0; c < need; c++) {
		size_t first = c * MRC_SRV6_CONTAINER_MAX;
		size_t k = n - first < MRC_SRV6_CONTAINER_MAX ? n - first : MRC_SRV6_CONTAINER_MAX;
		int rc = mrc_srv6_container(block, usids + first, k, &out[c]);

		if (rc)
			return rc;
	}
	return (int)need;
}

enum mrc_srv6_un mrc_srv6_un(struct mrc_ip6 *da, uint32_t block, uint16_t own)
{
	static const uint8_t zero[10];
	uint8_t *b = da->b;

	if (get_be32(b) != block || get_be16(b + 4) != own)
		return MRC_SRV6_UN_NO_MATCH;
	/* RFC 9800 §4.1.1: with an empty argument, the node does plain End processing. */
	if (memcmp(b + 6, zero, sizeof(zero)) == 0)
		return MRC_SRV6_UN_END;
	memmove(b + 4, b + 6, 10);
	b[14] = 0;
	b[15] = 0;
	return MRC_SRV6_UN_NEXT;
}

/* ---- End processing (RFC 8754 §4.3.1.1) on mrc/wire's SRH codec ---- */

static int ip6_check(const uint8_t *pkt, size_t len)
{
	if (len < MRC_IP6_HLEN)
		return -EMSGSIZE;
	if (pkt[0] >> 4 != 6)
		return -EBADMSG;
	return 0;
}

/*
 * RFC 8754 §4.3.1.1 End on the SRH. With @expiring (hop limit <= 1) a packet that would
 * be forwarded (segments_left > 0) is left as it is and -ETIME returned: RFC 8986 §4.1
 * S05-S06 checks the hop limit after S02's segments_left == 0 test and before S13-S14
 * change segments_left and the DA.
 */
static int srh_end(uint8_t *pkt, size_t len, bool expiring)
{
	struct mrc_srh srh;
	struct mrc_ip6 next;
	int rc = ip6_check(pkt, len);

	if (rc)
		return rc;
	if (pkt[IP6_OFF_NH] != MRC_NH_ROUTING)
		return MRC_SRV6_END_ARRIVED;
	rc = mrc_wire_srh_decode(pkt + MRC_IP6_HLEN, len - MRC_IP6_HLEN, &srh);
	if (rc == MRC_WIRE_TRUNCATED)
		return -EMSGSIZE;
	if (rc < 0) /* not truncated, so the routing type byte is there */
		return pkt[MRC_IP6_HLEN + 2] != MRC_SRH_TYPE ? -EPROTONOSUPPORT : -EBADMSG;
	if (srh.segments_left == 0)
		return MRC_SRV6_END_ARRIVED;
	if (expiring)
		return -ETIME;
	srh.segments_left--;
	pkt[MRC_IP6_HLEN + 3] = srh.segments_left;
	mrc_wire_srh_segment(&srh, srh.segments_left, &next);
	memcpy(pkt + IP6_OFF_DST, next.b, 16);
	return MRC_SRV6_END_FORWARD;
}

int mrc_srv6_srh_end(uint8_t *pkt, size_t len)
{
	return srh_end(pkt, len, false);
}

/*
 * mrc_srv6_end_pkt; with @expiring, a step that would forward the packet changes nothing
 * and returns -ETIME (RFC 9800 §4.1.1 S02-S03: the hop limit is checked before the
 * argument is shifted into the DA; srh_end for the End fall-back).
 */
static int end_step(uint8_t *pkt, size_t len, uint32_t block, uint16_t own, bool expiring)
{
	struct mrc_ip6 da;
	int rc = ip6_check(pkt, len);

	if (rc)
		return rc;
	memcpy(da.b, pkt + IP6_OFF_DST, 16);
	switch (mrc_srv6_un(&da, block, own)) {
	case MRC_SRV6_UN_NO_MATCH:
		return MRC_SRV6_END_NO_MATCH;
	case MRC_SRV6_UN_NEXT:
		if (expiring)
			return -ETIME;
		memcpy(pkt + IP6_OFF_DST, da.b, 16);
		return MRC_SRV6_END_FORWARD;
	case MRC_SRV6_UN_END:
		break;
	}
	return srh_end(pkt, len, expiring);
}

int mrc_srv6_end_pkt(uint8_t *pkt, size_t len, uint32_t block, uint16_t own)
{
	return end_step(pkt, len, block, own, false);
}

/* ---- addressing plan ---- */

/* One node by uSID; @space is its plane with a uSID space per plane, else 0. */
struct usid_ent {
	uint8_t space;
	uint16_t usid;
	struct mrc_srv6_node node;
};

struct mrc_srv6_plan {
	struct mrc_srv6_params p;
	uint32_t hosts;
	uint16_t *usid_host; /* [plane * hosts + host] */
	uint16_t *usid_t0;   /* [plane * t0 + i] */
	uint16_t *usid_t1;   /* [plane * t1 + j] */
	struct mrc_srv6_fib *fib_t0, *fib_t1;
	struct mrc_srv6_route *routes;
	struct usid_ent *by_usid; /* sorted by space, uSID */
	size_t n_nodes;
};

void mrc_srv6_params_default(struct mrc_srv6_params *p)
{
	memset(p, 0, sizeof(*p));
	p->planes = 1;
	p->t0 = 1;
	p->t1 = 1;
	p->hosts_per_t0 = 1;
	p->block = 0xfc000000;
	p->usid_plane_bits = MRC_SRV6_USID_PLANE_BITS;
	p->host_prefix[0] = 0xfd;
	p->host_prefix_len = 64;
	p->ev.plane_shift = 28;
	p->ev.plane_bits = 4;
	p->ev.spine_shift = 16;
	p->ev.spine_bits = 12;
}

static uint32_t bits_mask(unsigned bits)
{
	return bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
}

static uint16_t *usid_slot(struct mrc_srv6_plan *pl, const struct mrc_srv6_node *n)
{
	const struct mrc_srv6_params *p = &pl->p;

	if (n->plane >= p->planes)
		return NULL;
	switch (n->role) {
	case MRC_SRV6_HOST:
		return n->index < pl->hosts ? &pl->usid_host[n->plane * pl->hosts + n->index]
					    : NULL;
	case MRC_SRV6_T0:
		return n->index < p->t0 ? &pl->usid_t0[n->plane * p->t0 + n->index] : NULL;
	case MRC_SRV6_T1:
		return n->index < p->t1 ? &pl->usid_t1[n->plane * p->t1 + n->index] : NULL;
	}
	return NULL;
}

uint16_t mrc_srv6_usid(const struct mrc_srv6_plan *plan, const struct mrc_srv6_node *n)
{
	uint16_t *s = usid_slot((struct mrc_srv6_plan *)plan, n);

	return s ? *s : 0;
}

static int check_params(const struct mrc_srv6_params *p, char *err, size_t errlen)
{
	const struct mrc_srv6_ev_layout *l = &p->ev;
	uint64_t hosts = (uint64_t)p->t0 * p->hosts_per_t0;

	if (p->planes == 0 || p->planes > 256) {
		mrc_errf(err, errlen, "srv6 plan: planes: must be 1..256, got %u", p->planes);
		return -EINVAL;
	}
	if (p->t0 == 0 || p->t1 == 0 || p->hosts_per_t0 == 0) {
		mrc_errf(err, errlen,
			"srv6 plan: topology: t0, t1 and hosts_per_t0 must be >= 1, got "
			"%u, %u, %u",
			p->t0, p->t1, p->hosts_per_t0);
		return -EINVAL;
	}
	if (hosts > 0xffff || p->t0 > 0xffff || p->t1 > 0xffff) {
		mrc_errf(err, errlen,
			"srv6 plan: topology: %llu hosts, %u T0, %u T1 per plane: at most "
			"65535 of each",
			(unsigned long long)hosts, p->t0, p->t1);
		return -EINVAL;
	}
	if (p->hosts_per_t0 + p->t1 > 0x7fffffffu) {
		mrc_errf(err, errlen, "srv6 plan: topology: too many T0 ports");
		return -EINVAL;
	}
	if (p->host_prefix_len > 80) {
		mrc_errf(err, errlen,
			"srv6 plan: host_prefix: /%u leaves no room for plane:host:1 "
			"(at most /80)",
			p->host_prefix_len);
		return -EINVAL;
	}
	for (unsigned bit = p->host_prefix_len; bit < 128; bit++) {
		if (p->host_prefix[bit / 8] & (0x80 >> (bit % 8))) {
			mrc_errf(err, errlen, "srv6 plan: host_prefix: bits set past /%u",
				p->host_prefix_len);
			return -EINVAL;
		}
	}
	if (p->block == 0) {
		mrc_errf(err, errlen, "srv6 plan: block: must not be 0 (::/32)");
		return -EINVAL;
	}
	if (p->usid_plane_bits > MRC_SRV6_USID_PLANE_BITS) {
		mrc_errf(err, errlen, "srv6 plan: usid_plane_bits: must be 0..%u, got %u",
			MRC_SRV6_USID_PLANE_BITS, p->usid_plane_bits);
		return -EINVAL;
	}
	if (!p->usid_plane_bits && (uint64_t)p->block + p->planes - 1 > 0xffffffffu) {
		mrc_errf(err, errlen,
			"srv6 plan: block: 0x%08x + %u planes passes 32 bits (usid_plane_bits 0 "
			"gives plane p the block block + p)",
			p->block, p->planes);
		return -EINVAL;
	}
	if (l->plane_bits == 0 || l->plane_bits > 16 || l->spine_bits > 16 ||
		l->plane_shift + l->plane_bits > 32 || l->spine_shift + l->spine_bits > 32 ||
		((bits_mask(l->plane_bits) << l->plane_shift) &
			(bits_mask(l->spine_bits) << l->spine_shift))) {
		mrc_errf(err, errlen,
			"srv6 plan: ev layout: plane %u bits at %u, spine %u bits at %u: "
			"fields must fit 32 bits without overlap",
			l->plane_bits, l->plane_shift, l->spine_bits, l->spine_shift);
		return -EINVAL;
	}
	if (p->planes > (1u << l->plane_bits)) {
		mrc_errf(err, errlen,
			"srv6 plan: planes: %u planes do not fit the EV's %u plane bits", p->planes,
			l->plane_bits);
		return -EINVAL;
	}
	if (!p->usids && p->sequential) {
		if (p->usid_plane_bits) {
			mrc_errf(err, errlen, "srv6 plan: usid_plane_bits: a sequential plan has "
				"no plane bits (0: plane p under block + p), got %u",
				p->usid_plane_bits);
			return -EINVAL;
		}
		if (hosts + p->t0 + p->t1 > 0xffff) {
			mrc_errf(err, errlen, "srv6 plan: topology: a sequential plan numbers at "
				"most 65535 nodes per plane, got %llu hosts + %u T0 + %u T1",
				(unsigned long long)hosts, p->t0, p->t1);
			return -EINVAL;
		}
	} else if (!p->usids) {
		unsigned b = p->usid_plane_bits;
		uint32_t lim = (1u << (14 - b)) - 1;

		if (b && p->planes > (1u << b)) {
			mrc_errf(err, errlen,
				"srv6 plan: planes: the generated plan has %u plane bits, "
				"got %u planes (give the plan explicitly)",
				b, p->planes);
			return -EINVAL;
		}
		if (hosts > lim || p->t0 > lim || p->t1 > lim) {
			mrc_errf(err, errlen,
				"srv6 plan: topology: the generated plan numbers at most "
				"%u nodes per role and plane with usid_plane_bits %u (0: 16383), "
				"got %llu hosts, %u T0, %u T1",
				lim, b, (unsigned long long)hosts, p->t0, p->t1);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmp_usid_ent(const void *a, const void *b)
{
	const struct usid_ent *x = a, *y = b;

	if (x->space != y->space)
		return (int)x->space - (int)y->space;
	return (int)x->usid - (int)y->usid;
}

static int cmp_route(const void *a, const void *b)
{
	const struct mrc_srv6_route *x = a, *y = b;

	return (int)x->usid - (int)y->usid;
}

static int assign_usids(struct mrc_srv6_plan *pl, char *err, size_t errlen)
{
	const struct mrc_srv6_params *p = &pl->p;
	static const uint32_t roles[] = {MRC_SRV6_HOST, MRC_SRV6_T0, MRC_SRV6_T1};
	const struct mrc_srv6_params *in = p;
	unsigned b = p->usid_plane_bits, shift = 14 - b;
	char name[48];
	size_t k = 0;

	if (!pl->p.usids) {
		for (uint32_t pi = 0; pi < p->planes; pi++) {
			for (size_t r = 0; r < 3; r++) {
				uint32_t count = roles[r] == MRC_SRV6_HOST ? pl->hosts
						 : roles[r] == MRC_SRV6_T0 ? p->t0
									   : p->t1;

				for (uint32_t i = 0; i < count; i++) {
					struct mrc_srv6_node n = {
						(uint8_t)roles[r], (uint8_t)pi, i};

					uint32_t plane = b ? pi << (shift + 2) : 0;
					/* sequential: hosts, then T0, then T1 from 1 */
					uint32_t seq = roles[r] == MRC_SRV6_HOST ? 0
						       : roles[r] == MRC_SRV6_T0 ? pl->hosts
										 : pl->hosts + p->t0;

					*usid_slot(pl, &n) = p->sequential ? (uint16_t)(seq + i + 1) :
						(uint16_t)(plane | roles[r] << shift | (i + 1));
				}
			}
		}
	} else {
		if (in->n_usids != pl->n_nodes) {
			mrc_errf(err, errlen,
				"srv6 plan: usids: %zu entries for %zu nodes (every T0, T1 "
				"and host port of every plane once)",
				in->n_usids, pl->n_nodes);
			return -EINVAL;
		}
		for (size_t i = 0; i < in->n_usids; i++) {
			const struct mrc_srv6_assign *a = &in->usids[i];
			uint16_t *s = usid_slot(pl, &a->node);

			mrc_srv6_node_name(&a->node, name, sizeof(name));
			if (!s) {
				mrc_errf(err, errlen,
					"srv6 plan: usids[%zu]: no node '%s' in the topology", i,
					name);
				return -EINVAL;
			}
			if (a->usid == 0 || a->usid > 0xffff) {
				mrc_errf(err, errlen,
					"srv6 plan: usids[%zu]: %s: uSID 0x%x must be "
					"0x0001..0xffff",
					i, name, a->usid);
				return -EINVAL;
			}
			if (*s) {
				mrc_errf(err, errlen, "srv6 plan: usids[%zu]: %s: node given twice",
					i, name);
				return -EINVAL;
			}
			*s = (uint16_t)a->usid;
		}
	}
	for (uint32_t pi = 0; pi < p->planes; pi++) {
		for (size_t r = 0; r < 3; r++) {
			uint32_t count = roles[r] == MRC_SRV6_HOST ? pl->hosts
					 : roles[r] == MRC_SRV6_T0 ? p->t0
								   : p->t1;

			for (uint32_t i = 0; i < count; i++) {
				struct mrc_srv6_node n = {(uint8_t)roles[r], (uint8_t)pi, i};

				pl->by_usid[k].space = b ? 0 : (uint8_t)pi;
				pl->by_usid[k].node = n;
				pl->by_usid[k++].usid = *usid_slot(pl, &n);
			}
		}
	}
	qsort(pl->by_usid, k, sizeof(*pl->by_usid), cmp_usid_ent);
	for (size_t i = 1; i < k; i++) {
		if (!cmp_usid_ent(&pl->by_usid[i], &pl->by_usid[i - 1])) {
			char other[48];

			mrc_srv6_node_name(&pl->by_usid[i - 1].node, other, sizeof(other));
			mrc_srv6_node_name(&pl->by_usid[i].node, name, sizeof(name));
			mrc_errf(err, errlen, "srv6 plan: %s: uSID 0x%04x already belongs to %s",
				name, pl->by_usid[i].usid, other);
			return -EINVAL;
		}
	}
	return 0;
}

static void build_fibs(struct mrc_srv6_plan *pl)
{
	const struct mrc_srv6_params *p = &pl->p;
	struct mrc_srv6_route *r = pl->routes;
	uint32_t h = p->hosts_per_t0;

	for (uint32_t pi = 0; pi < p->planes; pi++) {
		for (uint32_t i = 0; i < p->t0; i++) {
			struct mrc_srv6_fib *f = &pl->fib_t0[pi * p->t0 + i];
			struct mrc_srv6_route *first = r;

			f->node = (struct mrc_srv6_node){MRC_SRV6_T0, (uint8_t)pi, i};
			f->own = pl->usid_t0[pi * p->t0 + i];
			f->block = mrc_srv6_plane_block(pl, pi);
			*r++ = (struct mrc_srv6_route){f->own, MRC_SRV6_PORT_LOCAL};
			for (uint32_t k = 0; k < h; k++)
				*r++ = (struct mrc_srv6_route){
					pl->usid_host[pi * pl->hosts + i * h + k], (int32_t)k};
			for (uint32_t j = 0; j < p->t1; j++)
				*r++ = (struct mrc_srv6_route){
					pl->usid_t1[pi * p->t1 + j], (int32_t)(h + j)};
			f->n = (size_t)(r - first);
			f->routes = first;
			qsort(first, f->n, sizeof(*first), cmp_route);
		}
		for (uint32_t j = 0; j < p->t1; j++) {
			struct mrc_srv6_fib *f = &pl->fib_t1[pi * p->t1 + j];
			struct mrc_srv6_route *first = r;

			f->node = (struct mrc_srv6_node){MRC_SRV6_T1, (uint8_t)pi, j};
			f->own = pl->usid_t1[pi * p->t1 + j];
			f->block = mrc_srv6_plane_block(pl, pi);
			*r++ = (struct mrc_srv6_route){f->own, MRC_SRV6_PORT_LOCAL};
			for (uint32_t i = 0; i < p->t0; i++)
				*r++ = (struct mrc_srv6_route){
					pl->usid_t0[pi * p->t0 + i], (int32_t)i};
			f->n = (size_t)(r - first);
			f->routes = first;
			qsort(first, f->n, sizeof(*first), cmp_route);
		}
	}
}

int mrc_srv6_plan_new(
	const struct mrc_srv6_params *p, struct mrc_srv6_plan **out, char *err, size_t errlen)
{
	struct mrc_srv6_plan *pl;
	size_t np = p ? p->planes : 0, n_routes;
	int rc;

	*out = NULL;
	rc = check_params(p, err, errlen);
	if (rc)
		return rc;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		goto nomem;
	pl->p = *p;
	pl->hosts = p->t0 * p->hosts_per_t0;
	pl->n_nodes = np * (pl->hosts + p->t0 + p->t1);
	/* T0: own + hosts + T1s; T1: own + T0s. */
	n_routes =
		np * ((size_t)p->t0 * (1 + p->hosts_per_t0 + p->t1) + (size_t)p->t1 * (1 + p->t0));
	pl->usid_host = calloc(np * pl->hosts, sizeof(uint16_t));
	pl->usid_t0 = calloc(np * p->t0, sizeof(uint16_t));
	pl->usid_t1 = calloc(np * p->t1, sizeof(uint16_t));
	pl->fib_t0 = calloc(np * p->t0, sizeof(*pl->fib_t0));
	pl->fib_t1 = calloc(np * p->t1, sizeof(*pl->fib_t1));
	pl->routes = calloc(n_routes, sizeof(*pl->routes));
	pl->by_usid = calloc(pl->n_nodes, sizeof(*pl->by_usid));
	if (!pl->usid_host || !pl->usid_t0 || !pl->usid_t1 || !pl->fib_t0 || !pl->fib_t1 ||
		!pl->routes || !pl->by_usid)
		goto nomem;
	rc = assign_usids(pl, err, errlen);
	if (rc) {
		mrc_srv6_plan_free(pl);
		return rc;
	}
	pl->p.usids = NULL;
	pl->p.n_usids = 0;
	build_fibs(pl);
	*out = pl;
	return 0;
nomem:
	mrc_srv6_plan_free(pl);
	mrc_errf(err, errlen, "srv6 plan: allocate: out of memory");
	return -ENOMEM;
}

void mrc_srv6_plan_free(struct mrc_srv6_plan *pl)
{
	if (!pl)
		return;
	free(pl->usid_host);
	free(pl->usid_t0);
	free(pl->usid_t1);
	free(pl->fib_t0);
	free(pl->fib_t1);
	free(pl->routes);
	free(pl->by_usid);
	free(pl);
}

const struct mrc_srv6_params *mrc_srv6_plan_params(const struct mrc_srv6_plan *plan)
{
	return &plan->p;
}

uint32_t mrc_srv6_plan_hosts(const struct mrc_srv6_plan *plan)
{
	return plan->hosts;
}

int mrc_srv6_usid_node(const struct mrc_srv6_plan *plan, uint32_t plane, uint16_t usid,
	struct mrc_srv6_node *n)
{
	struct usid_ent key = {.usid = usid}, *e;

	if (plane >= plan->p.planes)
		return -ENOENT;
	key.space = plan->p.usid_plane_bits ? 0 : (uint8_t)plane;
	e = bsearch(&key, plan->by_usid, plan->n_nodes, sizeof(key), cmp_usid_ent);
	if (!e || e->node.plane != plane)
		return -ENOENT;
	*n = e->node;
	return 0;
}

uint32_t mrc_srv6_plane_block(const struct mrc_srv6_plan *plan, uint32_t plane)
{
	return plan->p.usid_plane_bits ? plan->p.block : plan->p.block + plane;
}

int mrc_srv6_host_locator(
	const struct mrc_srv6_plan *plan, uint32_t plane, uint32_t host, struct mrc_ip6 *out)
{
	struct mrc_srv6_node n = {MRC_SRV6_HOST, (uint8_t)plane, host};
	uint16_t u;

	if (plane >= plan->p.planes)
		return -EINVAL;
	u = mrc_srv6_usid(plan, &n);
	if (!u)
		return -EINVAL;
	return mrc_srv6_container(mrc_srv6_plane_block(plan, plane), &u, 1, out);
}

int mrc_srv6_host_addr(
	const struct mrc_srv6_plan *plan, uint32_t plane, uint32_t host, struct mrc_ip6 *out)
{
	if (plane >= plan->p.planes || host >= plan->hosts)
		return -EINVAL;
	memcpy(out->b, plan->p.host_prefix, 16);
	put_be16(out->b + 10, (uint16_t)plane);
	put_be16(out->b + 12, (uint16_t)host);
	put_be16(out->b + 14, 1);
	return 0;
}

int mrc_srv6_addr_host(const struct mrc_srv6_plan *plan, const struct mrc_ip6 *a,
	uint32_t *plane, uint32_t *host)
{
	uint32_t pl = get_be16(a->b + 10), h = get_be16(a->b + 12);

	if (memcmp(a->b, plan->p.host_prefix, 10) || get_be16(a->b + 14) != 1 ||
		pl >= plan->p.planes || h >= plan->hosts)
		return -ENOENT;
	*plane = pl;
	*host = h;
	return 0;
}

const struct mrc_srv6_fib *mrc_srv6_fib_of(
	const struct mrc_srv6_plan *plan, const struct mrc_srv6_node *n)
{
	const struct mrc_srv6_params *p = &plan->p;

	if (n->plane >= p->planes)
		return NULL;
	if (n->role == MRC_SRV6_T0 && n->index < p->t0)
		return &plan->fib_t0[n->plane * p->t0 + n->index];
	if (n->role == MRC_SRV6_T1 && n->index < p->t1)
		return &plan->fib_t1[n->plane * p->t1 + n->index];
	return NULL;
}

int mrc_srv6_fib_lookup(const struct mrc_srv6_fib *fib, const struct mrc_ip6 *da, int32_t *port)
{
	struct mrc_srv6_route key, *r;

	if (get_be32(da->b) != fib->block)
		return -ENOENT;
	key.usid = get_be16(da->b + 4);
	r = bsearch(&key, fib->routes, fib->n, sizeof(key), cmp_route);
	if (!r)
		return -ENOENT;
	*port = r->port;
	return 0;
}

int mrc_srv6_switch_forward(const struct mrc_srv6_fib *fib, uint8_t *pkt, size_t len)
{
	int rc = ip6_check(pkt, len);

	if (rc)
		return rc;
	/* Each local step consumes a uSID or a segment, so the loop is bounded. */
	for (int step = 0; step <= MRC_SRV6_CONTAINER_MAX * (MRC_SRH_MAX_SEGS + 1); step++) {
		struct mrc_ip6 da;
		int32_t port;

		memcpy(da.b, pkt + IP6_OFF_DST, 16);
		rc = mrc_srv6_fib_lookup(fib, &da, &port);
		if (rc)
			return rc;
		if (port >= 0) {
			/* RFC 8200 §3: each forwarding node decrements it; one that would
			 * send it on with 0 discards it (RFC 4443 §3.3) */
			if (pkt[IP6_OFF_HLIM] <= 1)
				return -ETIME;
			pkt[IP6_OFF_HLIM]--;
			return port;
		}
		rc = end_step(pkt, len, fib->block, fib->own, pkt[IP6_OFF_HLIM] <= 1);
		if (rc < 0)
			return rc;
		if (rc != MRC_SRV6_END_FORWARD)
			return -EDESTADDRREQ;
	}
	return -ELOOP;
}

int mrc_srv6_node_name(const struct mrc_srv6_node *n, char *buf, size_t len)
{
	int w;

	switch (n->role) {
	case MRC_SRV6_HOST:
		w = snprintf(buf, len, "h%u.p%u", n->index, n->plane);
		break;
	case MRC_SRV6_T0:
	case MRC_SRV6_T1:
		w = snprintf(buf, len, "p%u.t%u.%u", n->plane, n->role - 1u, n->index);
		break;
	default:
		w = snprintf(buf, len, "role%u.p%u.%u", n->role, n->plane, n->index);
		break;
	}
	return w < 0 || (size_t)w >= len ? -ENOSPC : 0;
}

static int parse_uint(const char **s, uint32_t *v)
{
	const char *q = *s;
	uint64_t x = 0;

	if (*q < '0' || *q > '9')
		return -EINVAL;
	if (*q == '0' && q[1] >= '0' && q[1] <= '9')
		return -EINVAL; /* no leading zeros: one spelling per node */
	while (*q >= '0' && *q <= '9') {
		x = x * 10 + (uint64_t)(*q++ - '0');
		if (x > 0xffffffffu)
			return -EINVAL;
	}
	*v = (uint32_t)x;
	*s = q;
	return 0;
}

int mrc_srv6_node_parse(const char *s, struct mrc_srv6_node *n)
{
	uint32_t a, b, c;

	if (s[0] == 'h') {
		s++;
		if (parse_uint(&s, &a))
			return -EINVAL;
		b = 0;
		if (s[0] == '.' && s[1] == 'p') {
			s += 2;
			if (parse_uint(&s, &b))
				return -EINVAL;
		}
		if (*s || b > 255)
			return -EINVAL;
		*n = (struct mrc_srv6_node){MRC_SRV6_HOST, (uint8_t)b, a};
		return 0;
	}
	if (s[0] != 'p')
		return -EINVAL;
	s++;
	if (parse_uint(&s, &a) || a > 255 || s[0] != '.' || s[1] != 't')
		return -EINVAL;
	s += 2;
	if (parse_uint(&s, &b) || b > 1 || s[0] != '.')
		return -EINVAL;
	s++;
	if (parse_uint(&s, &c) || *s)
		return -EINVAL;
	*n = (struct mrc_srv6_node){(uint8_t)(b == 0 ? MRC_SRV6_T0 : MRC_SRV6_T1), (uint8_t)a, c};
	return 0;
}

/* ---- EV <-> path ---- */

int mrc_srv6_address(const struct mrc_srv6_plan *plan, uint32_t src, uint32_t dst, uint32_t ev,
	struct mrc_pkt *hdr)
{
	struct mrc_srv6_path p;
	int err = mrc_srv6_path(plan, src, dst, ev, &p);

	if (err)
		return err;
	hdr->outer_src = p.src_addr;
	hdr->outer_dst = p.container;
	hdr->n_segs = 0;
	hdr->src = p.src_addr;
	hdr->dst = p.dst_addr;
	return 0;
}

uint32_t mrc_srv6_ev_plane(const struct mrc_srv6_ev_layout *l, uint32_t ev)
{
	return l->plane_bits ? (ev >> l->plane_shift) & bits_mask(l->plane_bits) : 0;
}

uint32_t mrc_srv6_ev_spine(const struct mrc_srv6_ev_layout *l, uint32_t ev)
{
	return l->spine_bits ? (ev >> l->spine_shift) & bits_mask(l->spine_bits) : 0;
}

uint32_t mrc_srv6_ev_make(
	const struct mrc_srv6_ev_layout *l, uint32_t plane, uint32_t spine, uint32_t salt)
{
	uint32_t pm = l->plane_bits ? bits_mask(l->plane_bits) << l->plane_shift : 0;
	uint32_t sm = l->spine_bits ? bits_mask(l->spine_bits) << l->spine_shift : 0;

	return (salt & ~(pm | sm)) | ((plane << l->plane_shift) & pm) |
	       ((spine << l->spine_shift) & sm);
}

int mrc_srv6_path(const struct mrc_srv6_plan *plan, uint32_t src, uint32_t dst, uint32_t ev,
	struct mrc_srv6_path *out)
{
	const struct mrc_srv6_params *p = &plan->p;
	uint32_t plane = mrc_srv6_ev_plane(&p->ev, ev), h = p->hosts_per_t0;
	struct mrc_srv6_node n;
	uint8_t k = 0;

	if (src >= plan->hosts || dst >= plan->hosts || src == dst || plane >= p->planes)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->ev = ev;
	out->plane = plane;
	out->spine = mrc_srv6_ev_spine(&p->ev, ev) % p->t1;
	out->src_host = src;
	out->dst_host = dst;
	out->t0_src = src / h;
	out->t0_dst = dst / h;
	out->via_t1 = out->t0_src != out->t0_dst;
	n = (struct mrc_srv6_node){MRC_SRV6_T0, (uint8_t)plane, out->t0_src};
	out->usids[k++] = mrc_srv6_usid(plan, &n);
	if (out->via_t1) {
		n = (struct mrc_srv6_node){MRC_SRV6_T1, (uint8_t)plane, out->spine};
		out->usids[k++] = mrc_srv6_usid(plan, &n);
		n = (struct mrc_srv6_node){MRC_SRV6_T0, (uint8_t)plane, out->t0_dst};
		out->usids[k++] = mrc_srv6_usid(plan, &n);
	}
	n = (struct mrc_srv6_node){MRC_SRV6_HOST, (uint8_t)plane, dst};
	out->usids[k++] = mrc_srv6_usid(plan, &n);
	out->n_usids = k;
	mrc_srv6_host_addr(plan, plane, src, &out->src_addr);
	mrc_srv6_host_addr(plan, plane, dst, &out->dst_addr);
	return mrc_srv6_container(
		mrc_srv6_plane_block(plan, plane), out->usids, k, &out->container);
}

/* ---- EV profile expansion ---- */

void mrc_srv6_ev_default_fields(const struct mrc_srv6_params *p, struct mrc_srv6_ev_field f[3])
{
	uint32_t spines = p->t1 ? p->t1 : 1;

	f[0] = (struct mrc_srv6_ev_field){4, 0, 0xf, 0, p->planes ? p->planes - 1 : 0};
	f[1] = (struct mrc_srv6_ev_field){12, 0, 0xfff, 0, spines > 0x1000 ? 0xfff : spines - 1};
	f[2] = (struct mrc_srv6_ev_field){16, 0, 0xffff, 0, 0xffff};
}

/* Deposits the low bits of @v into the set bits of @mask, lowest first (a software PDEP). */
static uint32_t deposit(uint32_t v, uint32_t mask)
{
	uint32_t r = 0;

	for (uint32_t bit = 1; mask && bit; bit <<= 1) {
		if (v & bit)
			r |= mask & -mask;
		mask &= mask - 1;
	}
	return r;
}

static int check_fields(const struct mrc_srv6_ev_profile *prof, uint32_t planes, uint64_t *combos,
	char *err, size_t errlen)
{
	unsigned total = 0;

	if (prof->n_fields == 0 || prof->plane_field >= prof->n_fields) {
		mrc_errf(err, errlen,
			"ev profile: fields: %zu fields, plane field %u: need a plane "
			"field among them",
			prof->n_fields, prof->plane_field);
		return -EINVAL;
	}
	*combos = 1;
	for (size_t i = 0; i < prof->n_fields; i++) {
		const struct mrc_srv6_ev_field *f = &prof->fields[i];
		uint32_t wm = bits_mask(f->width), cap;
		unsigned pop = (unsigned)__builtin_popcount(f->mask);

		total += f->width;
		if (f->width == 0 || f->width > 32 || (f->init & ~wm) || (f->mask & ~wm)) {
			mrc_errf(err, errlen,
				"ev profile: fields[%zu]: width %u, init 0x%x, mask 0x%x: "
				"init and mask must fit the width (1..32)",
				i, f->width, f->init, f->mask);
			return -EINVAL;
		}
		cap = bits_mask(pop);
		if (i == prof->plane_field) {
			if (pop == 0 || (uint64_t)planes - 1 > cap) {
				mrc_errf(err, errlen,
					"ev profile: fields[%zu]: plane mask 0x%x holds %u "
					"bits, too few for %u planes",
					i, f->mask, pop, planes);
				return -EINVAL;
			}
			continue;
		}
		if (f->mask == 0)
			continue;
		if (f->min > f->max || f->max > cap) {
			mrc_errf(err, errlen,
				"ev profile: fields[%zu]: min %u, max %u: need min <= max "
				"<= %u (the mask's %u bits)",
				i, f->min, f->max, cap, pop);
			return -EINVAL;
		}
		*combos *= (uint64_t)f->max - f->min + 1;
		if (*combos > 0xffffffffu)
			*combos = 0xffffffffu;
	}
	if (total != 32) {
		mrc_errf(err, errlen, "ev profile: fields: widths add up to %u bits, not 32",
			total);
		return -EINVAL;
	}
	return 0;
}

static uint32_t gen_ev(const struct mrc_srv6_ev_profile *prof, uint32_t plane, uint64_t k)
{
	uint64_t ev = 0;

	for (size_t i = 0; i < prof->n_fields; i++) {
		const struct mrc_srv6_ev_field *f = &prof->fields[i];
		uint32_t v = 0, val = f->init;

		if (i == prof->plane_field) {
			v = plane;
		} else if (f->mask) {
			uint64_t radix = (uint64_t)f->max - f->min + 1;

			v = (uint32_t)(f->min + k % radix);
			k /= radix;
		}
		if (f->mask)
			val = (f->init & ~f->mask) | deposit(v, f->mask);
		ev = ev << f->width | val;
	}
	return (uint32_t)ev;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int mrc_srv6_ev_expand(const struct mrc_srv6_ev_profile *prof, uint32_t planes,
	const struct mrc_srv6_ev_layout *l, struct mrc_srv6_ev_entry *out, size_t cap, char *err,
	size_t errlen)
{
	uint32_t count, usable = 0, min_active;
	int rc;

	if (planes == 0) {
		mrc_errf(err, errlen, "ev profile: planes: must be >= 1");
		return -EINVAL;
	}
	if (prof->n_explicit) {
		uint32_t *sorted;

		if (prof->n_explicit > 0xffffffffu ||
			(prof->ev_count && prof->ev_count != prof->n_explicit)) {
			mrc_errf(err, errlen,
				"ev profile: ev_count: %u, but the explicit list has %zu "
				"EVs",
				prof->ev_count, prof->n_explicit);
			return -EINVAL;
		}
		count = (uint32_t)prof->n_explicit;
		if (count > cap) {
			mrc_errf(err, errlen, "ev profile: ev_count: %u EVs, room for %zu", count,
				cap);
			return -ENOSPC;
		}
		for (uint32_t i = 0; i < count; i++) {
			uint32_t ev = prof->explicit_evs[i], pl = mrc_srv6_ev_plane(l, ev);

			if (pl >= planes) {
				mrc_errf(err, errlen,
					"ev profile: evs[%u]: EV 0x%08x is in plane %u; the "
					"fabric has %u planes",
					i, ev, pl, planes);
				return -EINVAL;
			}
			out[i] = (struct mrc_srv6_ev_entry){ev, false};
		}
		sorted = malloc(count * sizeof(*sorted));
		if (!sorted) {
			mrc_errf(err, errlen, "ev profile: allocate: out of memory");
			return -ENOMEM;
		}
		memcpy(sorted, prof->explicit_evs, count * sizeof(*sorted));
		qsort(sorted, count, sizeof(*sorted), cmp_u32);
		for (uint32_t i = 1; i < count; i++) {
			if (sorted[i] == sorted[i - 1]) {
				mrc_errf(err, errlen, "ev profile: evs: EV 0x%08x listed twice",
					sorted[i]);
				free(sorted);
				return -EINVAL;
			}
		}
		free(sorted);
	} else {
		uint64_t combos;

		count = prof->ev_count;
		if (count == 0) {
			mrc_errf(err, errlen, "ev profile: ev_count: must be >= 1");
			return -EINVAL;
		}
		if (count > cap) {
			mrc_errf(err, errlen, "ev profile: ev_count: %u EVs, room for %zu", count,
				cap);
			return -ENOSPC;
		}
		rc = check_fields(prof, planes, &combos, err, errlen);
		if (rc)
			return rc;
		if ((count + planes - 1) / planes > combos) {
			mrc_errf(err, errlen,
				"ev profile: ev_count: %u EVs need %u per plane, the fields "
				"give %llu",
				count, (count + planes - 1) / planes, (unsigned long long)combos);
			return -ERANGE;
		}
		for (uint32_t i = 0; i < count; i++) {
			uint32_t ev = gen_ev(prof, i % planes, i / planes);

			if (mrc_srv6_ev_plane(l, ev) != i % planes) {
				mrc_errf(err, errlen,
					"ev profile: fields: EV 0x%08x for plane %u reads as "
					"plane %u under the EV layout",
					ev, i % planes, mrc_srv6_ev_plane(l, ev));
				return -EINVAL;
			}
			out[i] = (struct mrc_srv6_ev_entry){ev, false};
		}
	}
	for (uint32_t i = 0; i < count; i++) {
		for (size_t d = 0; d < prof->n_deny; d++) {
			if ((out[i].ev & prof->deny[d].mask) == prof->deny[d].value)
				out[i].denied = true;
		}
		usable += !out[i].denied;
	}
	min_active = prof->ev_min_active ? prof->ev_min_active : planes;
	if (min_active < planes || min_active > count) {
		mrc_errf(err, errlen,
			"ev profile: ev_min_active: %u must be between planes (%u) and "
			"ev_count (%u)",
			min_active, planes, count);
		return -EINVAL;
	}
	if (usable < min_active) {
		mrc_errf(err, errlen,
			"ev profile: deny: leaves %u usable EVs, below ev_min_active %u", usable,
			min_active);
		return -EINVAL;
	}
	return (int)count;
}

char *mrc_srv6_addr_str(const struct mrc_ip6 *a, char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, a->b, buf, (socklen_t)len) && len)
		buf[0] = '\0';
	return buf;
}
