// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_corpus_ep: writes the fuzz seed corpus for fuzz_ep into DIR: one input per opcode
 * template (each with the sources that pass and fail the source checks), SACK and NACK
 * around the live PSNs, data at both edges of the receive window and outside the MR, host
 * 0's ports going down and up, and replays: raw records of packets host 1 really sent
 * host 0 in the same run (captured through fuzz_ep.c's fe_tap), fed again later.
 */
#include "harness/fuzz/fuzz_ep.c"
#include "harness/fuzz/corpus.h"

#define GEN_CAP 64

static uint8_t gen_cap[GEN_CAP][FE_MTU + 256];
static uint16_t gen_cap_len[GEN_CAP];
static unsigned gen_cap_plane[GEN_CAP], gen_caps;

static void gen_tap(unsigned to, unsigned plane, const uint8_t *b, int len)
{
	if (to != 0 || gen_caps == GEN_CAP || len > (int)sizeof(gen_cap[0]))
		return;
	memcpy(gen_cap[gen_caps], b, (size_t)len);
	gen_cap_len[gen_caps] = (uint16_t)len;
	gen_cap_plane[gen_caps++] = plane;
}

/* The common template fields: EV index @ev, PSN offset @off, flags, the live QP. */
static void rec(struct corpus_buf *g, unsigned plane, enum fe_src src, enum fe_kind k,
	uint8_t delta, uint8_t ev, int16_t off, uint8_t flags)
{
	corpus_put8(g, fe_head(plane, src, false, k));
	corpus_put8(g, delta);
	corpus_put8(g, ev);
	corpus_put16(g, (uint16_t)off);
	corpus_put8(g, flags);
	corpus_put8(g, 0);
}

static int save(const char *dir, const char *name, struct corpus_buf *g, int *files)
{
	(*files)++;
	return corpus_put(dir, name, g->b, g->n);
}

int main(int argc, char **argv)
{
	struct corpus_buf g;
	char name[64];
	int files = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus_ep DIR\n");
		return 2;
	}
	/* every template from each source, plane 0 (EV 0) and plane 1 (EV 4) */
	for (int k = 0; k <= FE_PROBE; k++) {
		for (int src = 0; src < 4; src++) {
			g.n = 0;
			for (unsigned pl = 0; pl < 2; pl++) {
				rec(&g, pl, (enum fe_src)src, (enum fe_kind)k, 10,
					(uint8_t)(4 * pl), (int16_t)(k < FE_ACK ? pl : 0), 0x80);
				corpus_put32(&g, (uint32_t)(pl * FE_MTU)); /* data: VA offset */
				corpus_put8(&g, 0);			   /* the MR's rkey */
				corpus_put8(&g, 0);
				corpus_put16(&g, FE_MTU);
				corpus_put32(&g, FE_MTU);
			}
			snprintf(name, sizeof(name), "tmpl-%02d-src%d", k, src);
			if (save(argv[1], name, &g, &files))
				return 1;
		}
	}
	/* data at the receive window's edges and past the MR's */
	{
		static const int16_t offs[] = {-1, 0, 127, 128, 0x7fff};
		static const int32_t vas[] = {-1, (int32_t)FE_LEN - 1, (int32_t)FE_LEN, 0};

		for (unsigned i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
			g.n = 0;
			for (unsigned v = 0; v < sizeof(vas) / sizeof(vas[0]); v++) {
				rec(&g, v & 1, FE_SRC_PEER, FE_WRITE_ONLY, 3,
					(uint8_t)(4 * (v & 1)), offs[i], 0x80);
				corpus_put32(&g, (uint32_t)vas[v]);
				corpus_put8(&g, 0);
				corpus_put8(&g, 0);
				corpus_put16(&g, 64);
				corpus_put32(&g, 64);
			}
			snprintf(name, sizeof(name), "data-edge-%u", i);
			if (save(argv[1], name, &g, &files))
				return 1;
		}
	}
	/* SACKs: acknowledging what was sent, what was not, a probe answer (pr); NACKs */
	{
		static const int16_t cacks[] = {0, 8, 200, -5};

		for (unsigned i = 0; i < sizeof(cacks) / sizeof(cacks[0]); i++) {
			g.n = 0;
			rec(&g, 0, FE_SRC_PEER, FE_SACK, 20, 0, 0, 0);
			corpus_put8(&g, (uint8_t)(i == 3 ? 4 : 0));
			corpus_put16(&g, 0);
			corpus_put16(&g, (uint16_t)cacks[i]);
			corpus_put16(&g, 1);
			corpus_put32(&g, 0xffffffffu);
			corpus_put32(&g, 0x0000ffffu);
			corpus_put8(&g, 8);
			snprintf(name, sizeof(name), "sack-%u", i);
			if (save(argv[1], name, &g, &files))
				return 1;
		}
		for (uint8_t reason = 0; reason < 8; reason++) {
			g.n = 0;
			rec(&g, 1, FE_SRC_PEER, FE_NACK, 20, 4, 0, 0);
			corpus_put8(&g, reason == 7 ? 0xff : reason);
			corpus_put16(&g, 2);
			corpus_put8(&g, 4);
			snprintf(name, sizeof(name), "nack-%u", reason);
			if (save(argv[1], name, &g, &files))
				return 1;
		}
	}
	/* host 0's port 0 down, a SACK on plane 1, port 0 up; both down, one up */
	g.n = 0;
	corpus_put8(&g, fe_head(0, FE_SRC_PEER, false, FE_PORT));
	corpus_put8(&g, 5);
	rec(&g, 1, FE_SRC_PEER, FE_SACK, 20, 4, 0, 0);
	for (int i = 0; i < 18; i++)
		corpus_put8(&g, 0);
	corpus_put8(&g, fe_head(0, FE_SRC_PEER, true, FE_PORT));
	corpus_put8(&g, 40);
	if (save(argv[1], "port-flap", &g, &files))
		return 1;
	g.n = 0;
	for (unsigned pl = 0; pl < 2; pl++) {
		corpus_put8(&g, fe_head(pl, FE_SRC_PEER, false, FE_PORT));
		corpus_put8(&g, 30);
	}
	corpus_put8(&g, fe_head(1, FE_SRC_PEER, true, FE_PORT));
	corpus_put8(&g, 200);
	if (save(argv[1], "port-both-down", &g, &files))
		return 1;
	/* replays: what host 1 sent host 0 in the first FE_WARM_PS, fed again at its end */
	fe_tap = gen_tap;
	fe_setup();
	fe_tap = NULL;
	fe_finish();
	for (unsigned i = 0; i < gen_caps; i += 6) { /* 6 fit in a seed */
		g.n = 0;
		for (unsigned j = i; j < i + 6 && j < gen_caps; j++) {
			corpus_put8(&g, fe_head(gen_cap_plane[j], FE_SRC_PEER, j & 1, FE_RAW));
			corpus_put8(&g, (uint8_t)(j - i));
			corpus_put16(&g, gen_cap_len[j]);
			for (unsigned b = 0; b < gen_cap_len[j]; b++)
				corpus_put8(&g, gen_cap[j][b]);
		}
		snprintf(name, sizeof(name), "replay-%02u", i / 6);
		if (save(argv[1], name, &g, &files))
			return 1;
	}
	printf("gen_corpus_ep: %d files in %s\n", files, argv[1]);
	return 0;
}
