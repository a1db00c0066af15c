// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_corpus_wrtt: writes the fuzz seed corpus for fuzz_wrtt into DIR: requests from every
 * other host on every EV (template and raw), from outside the job and from rank 0 itself;
 * the answers to rank 0's first probes (their peer, EV and id as mrc_wrtt_next picks
 * them), right and from the wrong peer; an engine PROBE (DestQP 1).
 */
#include "mrc/wire/wrtt.h"
#include "harness/fuzz/corpus.h"
#include "harness/fuzz/fuzz_wrtt.h"

#include <stdio.h>

static void tmpl(struct corpus_buf *g, uint8_t who, uint8_t plane, uint32_t ev, uint8_t flags,
	uint32_t qp, uint16_t id)
{
	corpus_put8(g, 0);
	corpus_put8(g, 1);
	corpus_put8(g, who);
	corpus_put8(g, plane);
	corpus_put32(g, ev);
	corpus_put8(g, flags);
	corpus_put8(g, qp ? 1 : 0);
	if (qp)
		corpus_put32(g, qp);
	corpus_put16(g, id);
	corpus_put16(g, 0x0102);
}

int main(int argc, char **argv)
{
	static const uint32_t evs[] = {0x00000000, 0x00010000, 0x10000000, 0x10010000};
	struct mrc_srv6_params sp;
	struct mrc_srv6_plan *plan;
	struct mrc_wire_cfg cfg;
	struct mrc_wrtt_params tp = {.evs = evs, .n_evs = 4, .per_peer = 8, .window = 4,
		.rank = FW_RANK, .nranks = FW_NRANKS, .probe_timeout_ns = 1000000,
		.budget_ns = 50000000, .percentile = 10};
	struct mrc_wrtt *t;
	struct corpus_buf g;
	uint8_t pkt[256];
	char name[64];
	uint32_t plane;
	int files = 0, n;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus_wrtt DIR\n");
		return 2;
	}
	mrc_srv6_params_default(&sp);
	sp.planes = FW_PLANES;
	sp.t0 = 2;
	sp.t1 = 2;
	sp.hosts_per_t0 = 2;
	mrc_wire_cfg_default(&cfg);
	if (mrc_srv6_plan_new(&sp, &plan, NULL, 0))
		return 1;
	/* requests from hosts 1..3, from outside the job (4 + 3: host 7 on plane 2), from
	 * rank 0's own address (4 + 0), on each EV; the raw request of host h on EV e */
	for (unsigned e = 0; e < 4; e++) {
		g.n = 0;
		for (uint8_t who = 1; who < 8; who++)
			tmpl(&g, who, (uint8_t)(e >> 1), evs[e], 0x80, 0, (uint16_t)(100 + who));
		for (uint32_t h = 1; h < FW_NRANKS; h++) {
			n = mrc_wrtt_request(plan, &cfg, h, FW_RANK, evs[e], (uint16_t)h, pkt,
				sizeof(pkt), &plane);
			if (n <= MRC_IP6_HLEN)
				return 1;
			corpus_put8(&g, FW_RAW | (h == 3 ? FW_NO_ROOM : 0));
			corpus_put8(&g, 0);
			corpus_put16(&g, (uint16_t)(n - MRC_IP6_HLEN));
			for (int i = MRC_IP6_HLEN; i < n; i++)
				corpus_put8(&g, pkt[i]);
		}
		snprintf(name, sizeof(name), "req-ev%u", e);
		if (corpus_put(argv[1], name, g.b, g.n))
			return 1;
		files++;
	}
	/* rank 0's first 4 probes answered: by their peer, then one by another host */
	tp.plan = plan;
	tp.cfg = &cfg;
	for (int k = 0; k < 2; k++) {
		if (mrc_wrtt_new(&tp, FW_T0, &t))
			return 1;
		g.n = 0;
		for (int i = 0; i < 4; i++) {
			struct mrc_pkt p;
			uint32_t to;

			n = mrc_wrtt_next(t, FW_T0, pkt, sizeof(pkt), &plane);
			if (n <= MRC_IP6_HLEN || mrc_wrtt_classify(&cfg, pkt + MRC_IP6_HLEN,
							 (size_t)n - MRC_IP6_HLEN, &p) !=
							 MRC_WRTT_REQUEST ||
				mrc_srv6_addr_host(plan, &p.dst, &plane, &to))
				return 1;
			to = (to + (unsigned)(k && !i)) % FW_NRANKS; /* k 1: the first, wrong */
			tmpl(&g, (uint8_t)(to ? to : 1), 0, p.ev, 0, 0, p.peth.probe_id);
		}
		mrc_wrtt_free(t);
		snprintf(name, sizeof(name), "reply-%d", k);
		if (corpus_put(argv[1], name, g.b, g.n))
			return 1;
		files++;
	}
	g.n = 0;
	tmpl(&g, 1, 0, evs[0], 0x80, 1, 7); /* the engine's PROBE to QP 1 */
	if (corpus_put(argv[1], "engine-probe", g.b, g.n))
		return 1;
	files++;
	mrc_srv6_plan_free(plan);
	printf("gen_corpus_wrtt: %d files in %s\n", files, argv[1]);
	return 0;
}
