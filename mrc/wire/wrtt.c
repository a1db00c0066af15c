/* SPDX-License-Identifier: BSD-2-Clause */
/* wrtt: base RTT of the wire driver from echoed MRC PROBEs to QP 0 (wrtt.h, docs/wire-format.md
 * PETH). */
#include "mrc/wire/wrtt.h"

#include "mrc/base/bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WRTT_ECT0 2
#define WRTT_MAX_PLANES 16 /* conf: fabric.planes 1..16 */

/* Inner IPv6 + UDP + BTH + PETH + ICRC: the length of an echo probe as the peer gets it. */
#define WRTT_INNER_LEN (MRC_IP6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN + MRC_PETH_LEN + MRC_ICRC_LEN)
#define WRTT_BTH_OFF   (MRC_IP6_HLEN + MRC_UDP_HLEN)

struct slot {
	bool busy;
	uint16_t id;
	uint32_t peer, ev;
	uint64_t sent_ns;
};

struct mrc_wrtt {
	struct mrc_wrtt_params p;
	uint32_t *plane_evs[WRTT_MAX_PLANES];
	size_t n_plane_evs[WRTT_MAX_PLANES];
	unsigned active[WRTT_MAX_PLANES]; /* planes with at least one EV */
	unsigned n_active;
	uint32_t total, next_i;
	uint32_t sent, lost, answered;
	uint64_t start_ns;
	struct slot slots[MRC_WRTT_MAX_WINDOW];
	uint64_t *samples; /* [total] */
};

int mrc_wrtt_classify(const struct mrc_wire_cfg *cfg, const uint8_t *inner, size_t len,
	struct mrc_pkt *p)
{
	const uint8_t *bth = inner + WRTT_BTH_OFF;

	if (len < WRTT_INNER_LEN || inner[0] >> 4 != 6 || inner[6] != 17 ||
		bth[0] != MRC_OP_PROBE || bth[5] || bth[6] || bth[7])
		return MRC_WRTT_NONE;
	if (mrc_wire_decode(cfg, inner, len, false, p) != MRC_WIRE_OK ||
		p->opcode != MRC_OP_PROBE || p->dest_qp != 0)
		return MRC_WRTT_NONE;
	return p->flags & MRC_BTH_F_ACKREQ ? MRC_WRTT_REQUEST : MRC_WRTT_REPLY;
}

/* Encodes an echo probe from @src to @dst on @ev. */
static int build(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg, uint32_t src,
	uint32_t dst, uint32_t ev, bool request, uint16_t probe_id, uint16_t tx_ts, uint8_t *buf,
	size_t cap, unsigned *plane)
{
	struct mrc_srv6_path path;
	struct mrc_pkt p;
	int e = mrc_srv6_path(plan, src, dst, ev, &path);

	if (e)
		return e;
	memset(&p, 0, sizeof(p));
	e = mrc_srv6_address(plan, src, dst, ev, &p);
	if (e)
		return e;
	p.ev = ev;
	p.ecn = WRTT_ECT0;
	p.opcode = MRC_OP_PROBE;
	p.pkey = 0xffff;	/* the default P_Key; DestQP 0 */
	p.flags = request ? MRC_BTH_F_ACKREQ : 0;
	p.peth.probe_id = probe_id;
	p.peth.tx_ts = tx_ts;
	*plane = path.plane;
	return mrc_wire_encode(cfg, &p, buf, cap);
}

int mrc_wrtt_request(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t src, uint32_t dst, uint32_t ev, uint16_t probe_id, uint8_t *buf, size_t cap,
	unsigned *plane)
{
	return build(plan, cfg, src, dst, ev, true, probe_id, 0, buf, cap, plane);
}

int mrc_wrtt_reply(const struct mrc_srv6_plan *plan, const struct mrc_wire_cfg *cfg,
	uint32_t src, uint32_t nhosts, const struct mrc_pkt *req, uint8_t *buf, size_t cap,
	unsigned *plane)
{
	/* port addresses end in plane : host : 1 (srv6.h mrc_srv6_host_addr) */
	uint32_t from = get_be16(req->src.b + 12);

	if (from >= nhosts || from == src)
		return -EINVAL;
	return build(plan, cfg, src, from, req->ev, false, req->peth.probe_id, req->peth.tx_ts,
		buf, cap, plane);
}

int mrc_wrtt_rx(const struct mrc_wrtt_host *h, const uint8_t *inner, size_t len,
	struct mrc_pkt *p, uint8_t *buf, size_t cap, size_t *reply_len, unsigned *plane)
{
	int kind = mrc_wrtt_classify(h->cfg, inner, len, p), n;

	*reply_len = 0;
	if (kind != MRC_WRTT_REQUEST || !buf)
		return kind;
	n = mrc_wrtt_reply(h->plan, h->cfg, h->rank, h->nranks, p, buf, cap, plane);
	if (n > 0 && *plane < h->planes)
		*reply_len = (size_t)n;
	return kind;
}

int mrc_wrtt_new(const struct mrc_wrtt_params *p, uint64_t now_ns, struct mrc_wrtt **out)
{
	struct mrc_wrtt *t;
	uint64_t total;

	*out = NULL;
	if (!p->plan || !p->cfg || p->nranks < 2 || p->rank >= p->nranks || !p->n_evs ||
		!p->window || p->window > MRC_WRTT_MAX_WINDOW || !p->per_peer ||
		!p->percentile || p->percentile > 100)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->p = *p;
	t->start_ns = now_ns;
	for (size_t i = 0; i < p->n_evs; i++) {
		struct mrc_srv6_path path;
		uint32_t peer = p->rank ? 0 : 1;
		size_t *n;

		if (mrc_srv6_path(p->plan, p->rank, peer, p->evs[i], &path) ||
			path.plane >= WRTT_MAX_PLANES)
			continue; /* an EV no path takes: nothing to measure on it */
		n = &t->n_plane_evs[path.plane];
		if (!*n) {
			t->plane_evs[path.plane] = calloc(p->n_evs, sizeof(uint32_t));
			if (!t->plane_evs[path.plane])
				goto oom;
			t->active[t->n_active++] = path.plane;
		}
		t->plane_evs[path.plane][(*n)++] = p->evs[i];
	}
	if (!t->n_active) {
		mrc_wrtt_free(t);
		return -EINVAL;
	}
	total = (uint64_t)(p->nranks - 1) * p->per_peer;
	t->total = total > MRC_WRTT_MAX_PROBES ? MRC_WRTT_MAX_PROBES : (uint32_t)total;
	t->samples = calloc(t->total, sizeof(*t->samples));
	if (!t->samples)
		goto oom;
	*out = t;
	return 0;
oom:
	mrc_wrtt_free(t);
	return -ENOMEM;
}

void mrc_wrtt_free(struct mrc_wrtt *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < WRTT_MAX_PLANES; i++)
		free(t->plane_evs[i]);
	free(t->samples);
	free(t);
}

static void expire(struct mrc_wrtt *t, uint64_t now_ns)
{
	for (unsigned i = 0; i < t->p.window; i++) {
		struct slot *s = &t->slots[i];

		if (s->busy && now_ns - s->sent_ns >= t->p.probe_timeout_ns) {
			s->busy = false;
			t->lost++;
		}
	}
}

static bool over_budget(const struct mrc_wrtt *t, uint64_t now_ns)
{
	return now_ns - t->start_ns >= t->p.budget_ns;
}

int mrc_wrtt_next(struct mrc_wrtt *t, uint64_t now_ns, uint8_t *buf, size_t cap, unsigned *plane)
{
	uint32_t npeers = t->p.nranks - 1, i = t->next_i, peer_idx, k, pl;
	struct slot *s = NULL;
	size_t n;
	int len;

	expire(t, now_ns);
	if (i >= t->total || over_budget(t, now_ns))
		return 0;
	for (unsigned j = 0; j < t->p.window && !s; j++)
		if (!t->slots[j].busy)
			s = &t->slots[j];
	if (!s)
		return 0;
	/* round robin over the peers; each peer's k-th probe on plane k mod planes, and on
	 * that plane's EVs in turn (offset per peer, so the peers start on different EVs) */
	peer_idx = i % npeers;
	k = i / npeers;
	pl = t->active[k % t->n_active];
	n = t->n_plane_evs[pl];
	s->peer = peer_idx < t->p.rank ? peer_idx : peer_idx + 1;
	s->ev = t->plane_evs[pl][(k / t->n_active + peer_idx) % n];
	s->id = (uint16_t)(i + 1); /* 1..MRC_WRTT_MAX_PROBES: never repeats */
	t->next_i++;
	len = mrc_wrtt_request(t->p.plan, t->p.cfg, t->p.rank, s->peer, s->ev, s->id, buf, cap,
		plane);
	if (len < 0) {
		t->lost++;
		return len;
	}
	s->busy = true;
	s->sent_ns = now_ns;
	t->sent++;
	return len;
}

bool mrc_wrtt_on_reply(struct mrc_wrtt *t, const struct mrc_pkt *p, uint64_t now_ns)
{
	uint32_t from = get_be16(p->src.b + 12);

	for (unsigned i = 0; i < t->p.window; i++) {
		struct slot *s = &t->slots[i];

		if (!s->busy || s->id != p->peth.probe_id)
			continue;
		if (s->peer != from || s->ev != p->ev)
			return false;
		s->busy = false;
		t->samples[t->answered++] = now_ns - s->sent_ns;
		return true;
	}
	return false;
}

static unsigned in_flight(const struct mrc_wrtt *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->p.window; i++)
		n += t->slots[i].busy;
	return n;
}

bool mrc_wrtt_done(const struct mrc_wrtt *t, uint64_t now_ns)
{
	return over_budget(t, now_ns) || (t->next_i >= t->total && !in_flight(t));
}

uint64_t mrc_wrtt_next_timer(const struct mrc_wrtt *t)
{
	uint64_t at = t->start_ns + t->p.budget_ns;

	for (unsigned i = 0; i < t->p.window; i++) {
		const struct slot *s = &t->slots[i];

		if (s->busy && s->sent_ns + t->p.probe_timeout_ns < at)
			at = s->sent_ns + t->p.probe_timeout_ns;
	}
	return at;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void mrc_wrtt_stats(const struct mrc_wrtt *t, uint64_t now_ns, struct mrc_wrtt_stats *s)
{
	uint64_t *v;

	memset(s, 0, sizeof(*s));
	s->sent = t->sent;
	s->answered = t->answered;
	s->lost = t->lost + (mrc_wrtt_done(t, now_ns) ? in_flight(t) : 0);
	if (!t->answered)
		return;
	v = malloc(t->answered * sizeof(*v));
	if (!v)
		return; /* no figure: the job falls back as if nothing had answered */
	memcpy(v, t->samples, t->answered * sizeof(*v));
	qsort(v, t->answered, sizeof(*v), cmp_u64);
	s->min_ns = v[0];
	s->max_ns = v[t->answered - 1];
	if (t->answered >= MRC_WRTT_MIN_SAMPLES) {
		/* nearest rank: the smallest sample with at least percentile% at or below it */
		uint64_t r = ((uint64_t)t->p.percentile * t->answered + 99) / 100;

		s->figure_ns = v[r ? r - 1 : 0];
	}
	free(v);
}

uint64_t mrc_wrtt_agree(const uint64_t *figure_ns, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (figure_ns[i] > m)
			m = figure_ns[i];
	return m;
}
