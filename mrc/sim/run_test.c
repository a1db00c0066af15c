/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * run_test: unit tests of mrc/sim/run.c (`mrcgen-test run`): a ring all-reduce on the
 * simulated fabric whose placements a faulty NIC spoils on purpose, between the engine and
 * the collective's descriptors; every spoilt write must show in #wrong
 * (docs/verification.md).
 */
/* run.c's placements go through the injector, which learns the iteration at its start */
#define mrc_coll_place st_coll_place
#define mrc_coll_start st_coll_start
#include "mrc/sim/run.c"
#undef mrc_coll_place
#undef mrc_coll_start
#include "mrc/base/st.h"

#include <unistd.h>

/* coll.h's, declared under the injector's names above */
void mrc_coll_place(struct mrc_coll *c, uint32_t rank, enum mrc_coll_region reg, uint64_t off,
	const void *src, uint64_t len);
int mrc_coll_start(struct mrc_coll *c, uint32_t iter, uint64_t now_ps);

/*
 * 4 hosts, ring all-reduce of 64 KiB float32 (16384 elements), 1 KiB packets: chunk k is
 * bytes [16 KiB k, 16 KiB (k + 1)), 16 granules of 256 elements. Rank 1 receives chunk 0
 * first from rank 0 (reduce-scatter step 0), sums its own in and passes it on to rank 2;
 * the sum completes at rank 3 and all 4 ranks gather it. Chunk 2 reaches rank 2 once, by
 * rank 1's first all-gather write, and goes on to ranks 3 and 0.
 */
enum st_kind { ST_NONE, ST_DROP, ST_SHIFT, ST_STALE, ST_TWICE };

static struct {
	enum st_kind kind;
	uint32_t iter; /* the iteration it spoils */
	uint32_t seen; /* placements into rank 1's chunk 0 so far in that iteration */
	uint32_t cur;  /* the iteration running */
	uint64_t calls; /* placements the descriptors were told of */
} st_inj;

#define ST_CHUNK 16384u
#define ST_PKT	 1024u

void st_coll_place(struct mrc_coll *c, uint32_t rank, enum mrc_coll_region reg, uint64_t off,
	const void *src, uint64_t len)
{
	bool now = st_inj.cur == st_inj.iter && reg == MRC_REG_OUTPUT;
	bool r1c0 = now && rank == 1 && off < ST_CHUNK;

	st_inj.calls++;
	if (r1c0)
		st_inj.seen++;
	/* the first 16 are the reduce-scatter's write: the gather's comes after its sum */
	switch (r1c0 || st_inj.kind == ST_STALE || st_inj.kind == ST_TWICE ? st_inj.kind
									     : ST_NONE) {
	case ST_DROP: /* its packet 1 never lands */
		if (off == ST_PKT && st_inj.seen <= 16)
			return;
		break;
	case ST_SHIFT: /* the whole write lands one packet later */
		if (st_inj.seen <= 16)
			off += ST_PKT;
		break;
	case ST_STALE: /* rank 1's write of chunk 2 to rank 2 never lands */
		if (now && rank == 2 && off >= 2 * ST_CHUNK && off < 3 * ST_CHUNK)
			return;
		break;
	case ST_TWICE: /* every packet lands twice: the same bytes again */
		mrc_coll_place(c, rank, reg, off, src, len);
		break;
	case ST_NONE:
		break;
	}
	mrc_coll_place(c, rank, reg, off, src, len);
}

int st_coll_start(struct mrc_coll *c, uint32_t iter, uint64_t now_ps)
{
	st_inj.cur = iter;
	return mrc_coll_start(c, iter, now_ps);
}

/* Runs the job with injection @kind in iteration @iter; the #wrong of every iteration. */
static int st_job(struct mrc_st *st, enum st_kind kind, uint32_t iter, const char *set,
	uint64_t wrong[2])
{
	char dir[] = "/tmp/mrcgen-run-test-XXXXXX", set_dir[64], err[256];
	const char *sets[] = { set_dir, set };
	static const char yaml[] = "fabric: {planes: 2, t0: 2, t1: 2, hosts_per_t0: 2}\n"
				   "mrc: {mtu: 1024, ev: {ev_count: 8, ev_min_active: 2}}\n"
				   "traffic: {pattern: allreduce, algorithm: ring,\n"
				   "  sizes: [64KiB],\n"
				   "  warmup: 0, iterations: 2}\n"
				   "output: {report: false, plots: false, hlog: false}\n";
	struct mrc_run_result *res = NULL;
	struct conf_job job;
	int e;

	if (!mkdtemp(dir))
		return -errno;
	snprintf(set_dir, sizeof(set_dir), "output.dir=%s", dir);
	e = conf_load_string(yaml, sizeof(yaml) - 1, "run_test", sets, 2, &job, err, sizeof(err));
	ST_EQ_I(st, e, 0);
	if (e) {
		rmdir(dir);
		return e;
	}
	memset(&st_inj, 0, sizeof(st_inj));
	st_inj.kind = kind;
	st_inj.iter = iter;
	e = mrc_run_sim(&job, NULL, NULL, &res, err, sizeof(err));
	ST_EQ_I(st, e, 0);
	if (!e)
		ST_EQ(st, res->n_iters, 2);
	if (!e && res->n_iters == 2) {
		wrong[0] = res->iters[0].wrong;
		wrong[1] = res->iters[1].wrong;
		ST_EQ(st, res->sizes[0].wrong, wrong[0] + wrong[1]);
		ST_TRUE(st, !res->error[0]);
	}
	mrc_run_result_free(res);
	conf_free(&job);
	rmdir(dir);
	return e;
}

MRC_SELFTEST(run)
{
	static const struct {
		const char *what;
		enum st_kind kind;
		uint32_t iter;
		uint64_t wrong;
	} cases[] = {
		{ "nothing spoilt", ST_NONE, 0, 0 },
		{ "a write dropped (its packet 1): 1 granule at 4 ranks", ST_DROP, 0, 4 * 256 },
		{ "the same in iteration 1: the last iteration's data summed", ST_DROP, 1,
			4 * 256 },
		{ "a write landing one packet off: its whole chunk at 4 ranks", ST_SHIFT, 0,
			4 * 4096 },
		{ "a write left from the last iteration: chunk 2 at ranks 2, 3, 0", ST_STALE, 1,
			3 * 4096 },
		{ "every packet placed twice (the same bytes): no error", ST_TWICE, 0, 0 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		uint64_t wrong[2] = { ~0ull, ~0ull };

		mrc_st_case(st, "simulator, descriptors: %s", cases[k].what);
		ST_EQ_I(st, st_job(st, cases[k].kind, cases[k].iter, "seed=1", wrong), 0);
		ST_EQ(st, wrong[cases[k].iter], cases[k].wrong);
		if (cases[k].kind != ST_TWICE)
			ST_EQ(st, wrong[!cases[k].iter], 0); /* the other iteration is clean */
		/* 2 iterations x 2 (n - 1) steps x 4 ranks x 16 packets, nothing resent */
		ST_EQ(st, st_inj.calls, 2 * 6 * 4 * 16);
	}

	mrc_st_case(st, "simulator: verify bytes, or true with rx_checks, copy bytes; false none");
	{
		static const char *const sets[] = { "traffic.verify=bytes", "mrc.rx_checks=true",
			"traffic.verify=false" };

		for (int i = 0; i < 3; i++) {
			uint64_t wrong[2] = { ~0ull, ~0ull };

			ST_EQ_I(st, st_job(st, ST_NONE, 0, sets[i], wrong), 0);
			ST_EQ(st, wrong[0] + wrong[1], 0);
			ST_EQ(st, st_inj.calls, 0); /* no descriptor placed */
		}
	}
}
