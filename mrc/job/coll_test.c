/* SPDX-License-Identifier: BSD-2-Clause */
/* coll_test: unit tests of mrc/job/coll.c (`mrcgen-test coll`). */
#include "mrc/job/coll.c"
#include "mrc/base/st.h"

/*
 * Selftest transport: writes are queued and delivered one at a time, in an order picked
 * by a seeded generator, by copying the bytes into the destination region.
 */
struct st_net {
	struct mrc_coll *c;
	struct st_wr {
		uint32_t rank, peer, imm;
		uint64_t wr_id, va, len;
		const void *src;
	} q[4096];
	unsigned n;
	uint64_t rng;
	uint64_t bytes_moved;
	uint32_t in_flight[64], max_in_flight[64]; /* per rank (rank < 64) */
};

#define ST_VA(rank, reg) ((uint64_t)(rank) << 48 | (uint64_t)(reg) << 40)

static int st_post(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x, const void *src,
	uint64_t va, uint32_t imm, uint64_t wr_id)
{
	struct st_net *net = ctx;

	if (net->n == 4096)
		return -ENOSPC;
	if (rank < 64 && ++net->in_flight[rank] > net->max_in_flight[rank])
		net->max_in_flight[rank] = net->in_flight[rank];
	net->q[net->n++] = (struct st_wr){ rank, x->peer, imm, wr_id, va, x->len, src };
	return 0;
}

static int st_drain(struct st_net *net)
{
	int err = 0;

	while (net->n && !err) {
		net->rng = net->rng * 6364136223846793005ull + 1442695040888963407ull;
		unsigned i = (unsigned)(net->rng >> 33) % net->n;
		struct st_wr w = net->q[i];
		uint64_t len;
		uint8_t *dst = mrc_coll_region(net->c, w.peer, (w.va >> 40) & 0xFF, &len);

		net->q[i] = net->q[--net->n];
		if (dst && w.src)
			memcpy(dst + (w.va & ((1ull << 40) - 1)), w.src, w.len);
		net->bytes_moved += w.len;
		if (w.rank < 64)
			net->in_flight[w.rank]--;
		err = mrc_coll_on_recv(net->c, w.peer, w.rank, w.imm, 1);
		err = err ?: mrc_coll_on_send_done(net->c, w.rank, w.wr_id, 2);
	}
	return err;
}

static int st_run(const struct mrc_coll_params *p, struct st_net *net, uint32_t iters)
{
	static const struct mrc_coll_ops ops = { .post = st_post };
	int err = mrc_coll_new(p, &ops, net, &net->c);

	if (err)
		return err;
	for (uint32_t r = 0; r < mrc_coll_endpoints(net->c); r++) {
		for (int g = 0; g < MRC_REG_N; g++)
			mrc_coll_set_va(net->c, r, g, ST_VA(r, g));
	}
	for (uint32_t it = 0; it < iters && !err; it++) {
		err = mrc_coll_start(net->c, it, 0);
		err = err ?: st_drain(net);
		if (!err && !mrc_coll_done(net->c))
			err = -EDEADLK;
	}
	return err;
}

/* mrc_coll_bytes of a collective made with these parameters (0 if it cannot be made). */
static uint64_t st_coll_bytes(struct st_net *net, enum mrc_coll_pattern pat,
	enum mrc_coll_algo algo, uint32_t n, uint64_t count, uint32_t root)
{
	static const struct mrc_coll_ops ops = { .post = st_post };
	struct mrc_coll_params p = { .pattern = pat, .algo = algo, .nranks = n, .count = count,
		.root = root };
	struct mrc_coll *c;
	uint64_t bytes;

	if (mrc_coll_new(&p, &ops, net, &c))
		return 0;
	bytes = mrc_coll_bytes(c);
	mrc_coll_free(c);
	return bytes;
}

static double st_input_c12(uint32_t rank, uint64_t i, uint32_t iter)
{
	(void)iter;
	return 100.0 * rank + (double)i;
}


MRC_SELFTEST(coll)
{
	struct st_net *net = calloc(1, sizeof(*net));

	if (!ST_TRUE(st, net != NULL))
		return;

	mrc_st_case(st, "C12.1 all-reduce algbw/busbw (S=1e9 B, t=50 ms)");
	/* algbw = 1e9 / 0.05 = 20 GB/s; busbw = 20 * 2(n-1)/n */
	ST_EQ_D(st, 20.0 * mrc_coll_bus_factor(MRC_COLL_ALLREDUCE, 2), 20.0, 1e-9);
	ST_EQ_D(st, 20.0 * mrc_coll_bus_factor(MRC_COLL_ALLREDUCE, 6), 33.3333333, 1e-6);
	ST_EQ_D(st, 20.0 * mrc_coll_bus_factor(MRC_COLL_ALLREDUCE, 8), 35.0, 1e-9);
	ST_EQ_D(st, 20.0 * mrc_coll_bus_factor(MRC_COLL_ALLREDUCE, 16), 37.5, 1e-9);

	mrc_st_case(st, "C12.2 all-to-all of 1,000,000 B float32 over 6 ranks moves 999,984 B");
	{
		uint64_t bytes =
			st_coll_bytes(net, MRC_COLL_ALLTOALL, MRC_COLL_PARALLEL, 6, 250000, 0);
		double algbw = (double)bytes / 100e-6 / 1e9;

		ST_EQ(st, bytes, 999984);
		ST_EQ_D(st, algbw, 9.99984, 1e-9);
		ST_EQ_D(st, algbw * mrc_coll_bus_factor(MRC_COLL_ALLTOALL, 6), 8.3332, 1e-9);
	}

	mrc_st_case(st, "C12.3 all-to-all factor (S=6e6 B, n=6, t=200 us): 30 and 25 GB/s");
	/* nccl-tests' all-to-all (and all-gather) busbw: algbw x (n-1)/n: algbw 6e6 / 200e-6
	 * = 30 GB/s, 30 * 5/6 */
	ST_EQ_D(st, 30.0 * mrc_coll_bus_factor(MRC_COLL_ALLTOALL, 6), 25.0, 1e-9);

	mrc_st_case(st, "C12.4 incast busbw = the root's ingress: algbw x (n-1); sendrecv x 1");
	{
		/* 5 ranks, 250 float32 per sender: each of the 4 senders moves 1000 B to the
		 * root. In 1 us: algbw = 1000 B / 1 us = 1 GB/s; the root took 4 x 1000 B in
		 * that 1 us, 4 GB/s = 1 x (5 - 1). */
		uint64_t bytes = st_coll_bytes(net, MRC_COLL_INCAST, MRC_COLL_RING, 5, 250, 1);

		ST_EQ(st, bytes, 1000);
		ST_EQ_D(st, (double)bytes / 1e-6 / 1e9 * mrc_coll_bus_factor(MRC_COLL_INCAST, 5),
			4.0, 1e-9);
		/* 2 ranks: one sender, the root's ingress is the one flow; 24 (t_incast24): 23 */
		ST_EQ_D(st, mrc_coll_bus_factor(MRC_COLL_INCAST, 2), 1.0, 0);
		ST_EQ_D(st, mrc_coll_bus_factor(MRC_COLL_INCAST, 24), 23.0, 0);
		ST_EQ_D(st, mrc_coll_bus_factor(MRC_COLL_SENDRECV, 7), 1.0, 0);
	}

	mrc_st_case(st, "C12 ragged ring all-reduce: 10 elements, 4 ranks, out[i] = 600 + 4i");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 4, .count = 10, .verify = true, .input = st_input_c12 };
		int err;

		memset(net, 0, sizeof(*net));
		net->rng = 1;
		err = st_run(&p, net, 1);
		ST_EQ_I(st, err, 0);
		for (uint32_t r = 0; !err && r < 4; r++) {
			uint64_t len;
			const float *o = mrc_coll_region(net->c, r, MRC_REG_OUTPUT, &len);

			ST_EQ(st, len, 40);
			for (int i = 0; i < 10; i++)
				ST_EQ_D(st, o[i], 600.0 + 4 * i, 0);
		}
		/* chunks [0,2) [2,5) [5,7) [7,10): each rank sends 2(n-1) chunks; in total every
		 * chunk crosses 2(n-1) = 6 links: 6 * 10 elements * 4 B = 240 B */
		ST_EQ(st, net->bytes_moved, 240);
		mrc_coll_free(net->c);
	}

	static const struct {
		enum mrc_coll_pattern pat;
		enum mrc_coll_algo algo;
		enum mrc_dtype dt;
		uint32_t n;
		uint64_t count;
	} runs[] = {
		{ MRC_COLL_ALLREDUCE, MRC_COLL_RING, MRC_DT_FLOAT32, 2, 1001 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_RING, MRC_DT_FLOAT32, 3, 1001 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_RING, MRC_DT_INT32, 4, 1003 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_RING, MRC_DT_FLOAT64, 6, 997 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_RING, MRC_DT_FLOAT32, 7, 5 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_RING, MRC_DT_FLOAT32, 8, 4099 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_TREE, MRC_DT_FLOAT32, 2, 1001 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_TREE, MRC_DT_FLOAT32, 3, 77 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_TREE, MRC_DT_INT32, 4, 1003 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_TREE, MRC_DT_FLOAT64, 6, 997 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_TREE, MRC_DT_FLOAT32, 7, 5 },
		{ MRC_COLL_ALLREDUCE, MRC_COLL_TREE, MRC_DT_FLOAT32, 8, 4099 },
		{ MRC_COLL_ALLTOALL, MRC_COLL_PARALLEL, MRC_DT_FLOAT32, 5, 1003 },
		{ MRC_COLL_ALLTOALL, MRC_COLL_SHIFT, MRC_DT_INT32, 5, 1003 },
		{ MRC_COLL_SENDRECV, MRC_COLL_RING, MRC_DT_FLOAT32, 7, 333 },
		{ MRC_COLL_INCAST, MRC_COLL_RING, MRC_DT_FLOAT32, 5, 333 },
		{ MRC_COLL_ALLGATHER, MRC_COLL_RING, MRC_DT_FLOAT32, 5, 1005 },
		{ MRC_COLL_ALLGATHER, MRC_COLL_RING, MRC_DT_INT32, 2, 6 },
		{ MRC_COLL_REDUCESCATTER, MRC_COLL_RING, MRC_DT_FLOAT32, 5, 1005 },
		{ MRC_COLL_REDUCESCATTER, MRC_COLL_RING, MRC_DT_FLOAT64, 7, 7 },
		{ MRC_COLL_BROADCAST, MRC_COLL_RING, MRC_DT_FLOAT32, 5, 1003 },
		{ MRC_COLL_BROADCAST, MRC_COLL_RING, MRC_DT_FLOAT32, 6, 3 },
		{ MRC_COLL_BROADCAST, MRC_COLL_TREE, MRC_DT_INT32, 7, 1003 },
		{ MRC_COLL_REDUCE, MRC_COLL_RING, MRC_DT_FLOAT32, 5, 1003 },
		{ MRC_COLL_REDUCE, MRC_COLL_RING, MRC_DT_FLOAT64, 4, 2 },
		{ MRC_COLL_REDUCE, MRC_COLL_TREE, MRC_DT_INT32, 7, 1003 },
		{ MRC_COLL_ALLTOALLV, MRC_COLL_PARALLEL, MRC_DT_FLOAT32, 5, 1003 },
		{ MRC_COLL_ALLTOALLV, MRC_COLL_SHIFT, MRC_DT_INT32, 4, 1003 },
		{ MRC_COLL_GATHER, MRC_COLL_RING, MRC_DT_FLOAT32, 5, 1005 },
		{ MRC_COLL_SCATTER, MRC_COLL_RING, MRC_DT_FLOAT32, 5, 1005 },
	};
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct mrc_coll_params p = { .pattern = runs[k].pat, .algo = runs[k].algo,
			.dtype = runs[k].dt, .nranks = runs[k].n, .count = runs[k].count,
			.verify = true, .seed = 3, .root = 1 };
		uint64_t wrong = 0;
		int err;

		mrc_st_case(st, "%s %s %s n=%u count=%llu: results exact over 3 iterations",
			mrc_coll_pattern_name(p.pattern), mrc_coll_algo_name(p.algo),
			mrc_dtype_name(p.dtype), p.nranks, (unsigned long long)p.count);
		memset(net, 0, sizeof(*net));
		net->rng = k + 1;
		err = st_run(&p, net, 3);
		ST_EQ_I(st, err, 0);
		for (uint32_t r = 0; !err && r < p.nranks; r++)
			wrong += mrc_coll_verify(net->c, r, 2);
		ST_EQ(st, wrong, 0);
		if (!err && p.pattern == MRC_COLL_ALLTOALL && p.dtype == MRC_DT_INT32) {
			/* exactly the off-diagonal blocks move: n(n-1) * floor(1003/5) * 4 B */
			ST_EQ(st, net->bytes_moved, 3ull * 5 * 4 * 200 * 4);
			/* block from rank 3 at rank 1: input(3, 1*200 + j) at out[3*200 + j] */
			uint64_t len;
			const int32_t *o = mrc_coll_region(net->c, 1, MRC_REG_OUTPUT, &len);

			/* ((7*3 + 13*207 + 3*2) mod 61) - 30 + (3 + 2) mod 7 */
			ST_EQ_I(st, o[600 + 7], (int)((7 * 3 + 13 * 207 + 3 * 2) % 61) - 30 + 5);
		}
		if (!err && p.pattern == MRC_COLL_ALLREDUCE && p.algo == MRC_COLL_RING)
			ST_EQ(st, net->bytes_moved,
				3ull * 2 * (p.nranks - 1) * p.count * mrc_dtype_size(p.dtype));
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "nccl-tests factors (PERFORMANCE.md, gather.cu...): n = 8, algbw 16 GB/s");
	/* allgather, reducescatter, gather, scatter, alltoallv: 16 x 7/8 = 14; broadcast,
	 * reduce: 16 x 1 */
	ST_EQ_D(st, 16 * mrc_coll_bus_factor(MRC_COLL_ALLGATHER, 8), 14.0, 1e-12);
	ST_EQ_D(st, 16 * mrc_coll_bus_factor(MRC_COLL_REDUCESCATTER, 8), 14.0, 1e-12);
	ST_EQ_D(st, 16 * mrc_coll_bus_factor(MRC_COLL_GATHER, 8), 14.0, 1e-12);
	ST_EQ_D(st, 16 * mrc_coll_bus_factor(MRC_COLL_SCATTER, 8), 14.0, 1e-12);
	ST_EQ_D(st, 16 * mrc_coll_bus_factor(MRC_COLL_ALLTOALLV, 8), 14.0, 1e-12);
	ST_EQ_D(st, 16 * mrc_coll_bus_factor(MRC_COLL_BROADCAST, 8), 16.0, 0);
	ST_EQ_D(st, 16 * mrc_coll_bus_factor(MRC_COLL_REDUCE, 8), 16.0, 0);

	static const struct {
		enum mrc_coll_pattern pat;
		enum mrc_coll_algo algo;
		uint64_t moved;
	} mv[] = {
		/* n = 5, 1000 float32 (4000 B; blocks of 200 elements, 800 B) */
		{ MRC_COLL_ALLGATHER, MRC_COLL_RING, 5 * 4 * 800 },  /* n(n-1) blocks */
		{ MRC_COLL_REDUCESCATTER, MRC_COLL_RING, 5 * 4 * 800 },
		{ MRC_COLL_BROADCAST, MRC_COLL_RING, 4 * 4000 },      /* n-1 whole vectors */
		{ MRC_COLL_BROADCAST, MRC_COLL_TREE, 4 * 4000 },
		{ MRC_COLL_REDUCE, MRC_COLL_RING, 4 * 4000 },
		{ MRC_COLL_REDUCE, MRC_COLL_TREE, 4 * 4000 },
		{ MRC_COLL_GATHER, MRC_COLL_RING, 4 * 800 },	      /* n-1 blocks */
		{ MRC_COLL_SCATTER, MRC_COLL_RING, 4 * 800 },
		{ MRC_COLL_ALLTOALLV, MRC_COLL_SHIFT, 5 * 4 * 800 },
	};
	for (size_t k = 0; k < sizeof(mv) / sizeof(mv[0]); k++) {
		struct mrc_coll_params p = { .pattern = mv[k].pat, .algo = mv[k].algo,
			.nranks = 5, .count = 1000, .root = 2 };

		mrc_st_case(st, "%s %s, 5 ranks, 4000 B: %llu B cross the network",
			mrc_coll_pattern_name(p.pattern), mrc_coll_algo_name(p.algo),
			(unsigned long long)mv[k].moved);
		memset(net, 0, sizeof(*net));
		ST_EQ_I(st, st_run(&p, net, 1), 0);
		ST_EQ(st, net->bytes_moved, mv[k].moved);
		ST_EQ(st, mrc_coll_bytes(net->c), 4000);
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "alltoallv: a 3x3 count matrix, blocks where its offsets say");
	{
		/* rank 0 sends 1 to 1, 2 to 2; rank 1 3 to 0, 0 to 2 (a block elided); rank 2 4
		 * to 0, 5 to 1; own blocks 2, 1, 0 stay. Rank 0's output: its own 2, then 3 from
		 * 1 at 2, 4 from 2 at 5: 9 elements; rank 1's: 1 from 0, its own 1, 5 from 2 */
		static const uint64_t m[9] = { 2, 1, 2, 3, 1, 0, 4, 5, 0 };
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLTOALLV,
			.algo = MRC_COLL_PARALLEL, .nranks = 3, .count = 1, .counts = m,
			.verify = true };
		uint64_t len = 0;
		int err;

		memset(net, 0, sizeof(*net));
		err = st_run(&p, net, 2);
		ST_EQ_I(st, err, 0);
		/* 2 iterations x (1 + 2 + 3 + 4 + 5) elements x 4 B */
		ST_EQ(st, net->bytes_moved, 120);
		/* S: the largest row, rank 2's 9 elements */
		ST_EQ(st, mrc_coll_bytes(net->c), 36);
		for (uint32_t r = 0; !err && r < 3; r++)
			ST_EQ(st, mrc_coll_verify(net->c, r, 1), 0);
		if (!err) {
			const float *o = mrc_coll_region(net->c, 0, MRC_REG_OUTPUT, &len);

			ST_EQ(st, len, 36);
			/* out[5] = rank 2's input element 0 (its block to rank 0 starts there):
			 * ((7*2 + 0 + 3) mod 61) - 30 + (2 + 1) mod 7 = 17 - 30 + 3 */
			ST_EQ_D(st, o[5], -10.0, 0);
			mrc_coll_region(net->c, 1, MRC_REG_OUTPUT, &len);
			ST_EQ(st, len, 28);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "blocked patterns refuse a count that n does not divide");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLGATHER, .nranks = 3,
			.count = 10 };
		struct mrc_coll *c = NULL;
		static const struct mrc_coll_ops ops = { .post = st_post };

		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), -EINVAL);
		p.pattern = MRC_COLL_SCATTER;
		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), -EINVAL);
		p.count = 9;
		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), 0);
		mrc_coll_free(c);
		p.pattern = MRC_COLL_BROADCAST;
		p.algo = MRC_COLL_PARALLEL;
		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), -EINVAL);
	}

	mrc_st_case(st, "write_bw: 10 writes per pair, at most depth 3 in flight, data exact");
	{
		/* 4 ranks: pairs (0, 2) and (1, 3), 0 and 1 send; 25 floats = 100 B a write */
		struct mrc_coll_params p = { .pattern = MRC_COLL_WRITE_BW, .nranks = 4,
			.count = 25, .verify = true, .depth = 3, .messages = 10 };
		uint64_t wrong = 0;
		int err;

		memset(net, 0, sizeof(*net));
		net->rng = 5;
		err = st_run(&p, net, 2);
		ST_EQ_I(st, err, 0);
		/* 2 iterations x 2 senders x 10 writes x 100 B */
		ST_EQ(st, net->bytes_moved, 4000);
		ST_EQ(st, net->max_in_flight[0], 3);
		ST_EQ(st, net->max_in_flight[1], 3);
		ST_EQ(st, net->max_in_flight[2], 0);
		for (uint32_t r = 0; !err && r < 4; r++)
			wrong += mrc_coll_verify(net->c, r, 1);
		ST_EQ(st, wrong, 0);
		ST_EQ(st, mrc_coll_bytes(net->c), 1000);
		ST_EQ(st, mrc_coll_pair_bytes(net->c), 1000);
		ST_EQ(st, mrc_coll_npairs(net->c), 2);
		ST_EQ_D(st, mrc_coll_bus_factor(MRC_COLL_WRITE_BW, 4), 1.0, 0);
		if (!err) { /* rank 2's output is rank 0's input of iteration 1 */
			uint64_t len;
			const float *o = mrc_coll_region(net->c, 2, MRC_REG_OUTPUT, &len);

			ST_EQ(st, len, 100);
			/* ((7*0 + 13*24 + 3*1) mod 61) - 30 + (0 + 1) mod 7 = 10 - 30 + 1 */
			ST_EQ_D(st, o[24], -19.0, 0);
		}
		mrc_coll_free(net->c);

		p.bidir = true; /* both send: twice the bytes, ranks 2 and 3 at depth too */
		p.depth = 0;	/* no depth: all 10 at once */
		memset(net, 0, sizeof(*net));
		err = st_run(&p, net, 1);
		ST_EQ_I(st, err, 0);
		ST_EQ(st, net->bytes_moved, 4000);
		ST_EQ(st, net->max_in_flight[3], 10);
		for (uint32_t r = 0; !err && r < 4; r++)
			ST_EQ(st, mrc_coll_verify(net->c, r, 0), 0);
		mrc_coll_free(net->c);
		p.nranks = 3; /* pairs need an even count */
		ST_EQ_I(st, mrc_coll_new(&p, &(struct mrc_coll_ops){ st_post }, net, &net->c),
			-EINVAL);
	}

	mrc_st_case(st, "write_lat: a ping-pong a iteration, two steps a rank");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_WRITE_LAT, .nranks = 6,
			.count = 2, .verify = true };
		int err;

		memset(net, 0, sizeof(*net));
		err = st_run(&p, net, 3);
		ST_EQ_I(st, err, 0);
		/* 3 iterations x 3 pairs x 2 writes x 8 B */
		ST_EQ(st, net->bytes_moved, 144);
		ST_EQ(st, mrc_coll_steps(net->c, 0), 2);
		ST_EQ(st, mrc_coll_steps(net->c, 5), 2);
		for (uint32_t r = 0; !err && r < 6; r++)
			ST_EQ(st, mrc_coll_verify(net->c, r, 2), 0);
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "members: a ring over endpoints 5, 1, 6 of 8; pairs over 0, 8, 16, 24");
	{
		static const uint32_t m[3] = { 5, 1, 6 }, m4[4] = { 0, 8, 16, 24 };
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 3, .count = 31, .verify = true, .members = m, .endpoints = 8 };
		uint32_t a = 0, b = 0;
		int err;

		memset(net, 0, sizeof(*net));
		err = st_run(&p, net, 2);
		ST_EQ_I(st, err, 0);
		ST_EQ(st, mrc_coll_endpoints(net->c), 8);
		/* 2 iterations x 2(n-1) chunk sends a rank over the ring: 2 x 4 x 31 x 4 B */
		ST_EQ(st, net->bytes_moved, 992);
		ST_EQ(st, net->max_in_flight[0] + net->max_in_flight[2], 0);
		ST_TRUE(st, net->max_in_flight[5] > 0);
		ST_EQ(st, mrc_coll_steps(net->c, 0), 0);
		ST_EQ(st, mrc_coll_steps(net->c, 1), 4);
		for (uint32_t r = 0; !err && r < 8; r++)
			ST_EQ(st, mrc_coll_verify(net->c, r, 1), 0);
		mrc_coll_free(net->c);
		p = (struct mrc_coll_params){ .pattern = MRC_COLL_WRITE_BW, .nranks = 4,
			.count = 1, .messages = 1, .members = m4, .endpoints = 32 };
		memset(net, 0, sizeof(*net));
		ST_EQ_I(st, st_run(&p, net, 1), 0);
		mrc_coll_pair(net->c, 1, &a, &b);
		ST_EQ(st, a, 8);
		ST_EQ(st, b, 24);
		ST_EQ(st, net->max_in_flight[16], 0);
		ST_EQ(st, net->max_in_flight[8], 1);
		mrc_coll_free(net->c);
		p.endpoints = 24; /* host 24 is outside */
		ST_EQ_I(st, mrc_coll_new(&p, &(struct mrc_coll_ops){ st_post }, net, &net->c),
			-EINVAL);
	}

	mrc_st_case(st, "a wrong result is counted: corrupt one output element");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 3, .count = 30, .verify = true };
		uint64_t len;

		int err;

		memset(net, 0, sizeof(*net));
		err = st_run(&p, net, 1);
		ST_EQ_I(st, err, 0);
		if (!err) {
			float *o = mrc_coll_region(net->c, 2, MRC_REG_OUTPUT, &len);

			o[17] += 1;
			ST_EQ(st, mrc_coll_verify(net->c, 2, 0), 1);
			ST_EQ(st, mrc_coll_verify(net->c, 1, 0), 0);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "61 ranks: an all-zero output, or the last iteration's, is wrong");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 61, .count = 122, .verify = true };
		uint64_t len;
		int err;

		memset(net, 0, sizeof(*net));
		err = st_run(&p, net, 2);
		ST_EQ_I(st, err, 0);
		if (!err) {
			float *o = mrc_coll_region(net->c, 5, MRC_REG_OUTPUT, &len);

			ST_EQ(st, mrc_coll_verify(net->c, 5, 1), 0);
			/* iteration 1's result checked as iteration 2's: every element differs */
			ST_EQ(st, mrc_coll_verify(net->c, 5, 2), 122);
			memset(o, 0, len);
			ST_EQ(st, mrc_coll_verify(net->c, 5, 1), 122);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "7813 elements (128 periods + 5): 4 wrong ones found across blocks");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 3, .count = 61 * 128 + 5, .verify = true };
		uint64_t len;
		int err;

		memset(net, 0, sizeof(*net));
		err = st_run(&p, net, 1);
		ST_EQ_I(st, err, 0);
		if (!err) {
			float *o = mrc_coll_region(net->c, 1, MRC_REG_OUTPUT, &len);

			ST_EQ(st, len, 7813 * 4);
			ST_EQ(st, mrc_coll_verify(net->c, 1, 0), 0);
			/* first and last of the first 64-period block, first of the second,
			 * the very last element; one more written with its own value */
			o[0] += 1;
			o[61 * 64 - 1] -= 2;
			o[61 * 64] = 1e9f;
			o[7812] = -o[7812] - 1;
			o[100] = o[100] * 1;
			ST_EQ(st, mrc_coll_verify(net->c, 1, 0), 4);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "bad parameters are rejected");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE,
			.algo = MRC_COLL_SHIFT, .nranks = 4, .count = 8 };
		struct mrc_coll *c;
		static const struct mrc_coll_ops ops = { .post = st_post };

		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), -EINVAL);
		p.algo = MRC_COLL_RING;
		p.nranks = 1;
		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), -EINVAL);
	}

	mrc_st_case(st, "the k-th write from r to q carries q's step of its k-th receive from r");
	{
		/* rank 0 writes to 1, 2, 1; rank 2 to 1. Rank 1 expects 0 (step 4), 2 (step 5),
		 * 0 (step 7); rank 2 expects 0 (step 1). So rank 0's writes carry 4, 1, 7 and
		 * rank 2's carries 5. */
		struct mrc_coll_xfer s0[3] = { { .peer = 1 }, { .peer = 2 }, { .peer = 1 } };
		struct mrc_coll_xfer s2[2] = { { .peer = 1 }, { .peer = 1 } };
		struct recv r1[3] = { { .peer = 0, .step = 4 }, { .peer = 2, .step = 5 },
			{ .peer = 0, .step = 7 } };
		struct recv r2[1] = { { .peer = 0, .step = 1 } };
		struct rank rk[3] = { { .sends = s0, .n_sends = 3 },
			{ .recvs = r1, .n_recvs = 3 }, { .sends = s2, .n_sends = 1, .recvs = r2,
			.n_recvs = 1 } };
		struct mrc_coll c = { .p = { .nranks = 3 }, .n_ep = 3, .r = rk };

		ST_EQ_I(st, match_steps(&c), 0);
		if (rk[0].send_rstep && rk[2].send_rstep) {
			ST_EQ(st, rk[0].send_rstep[0], 4);
			ST_EQ(st, rk[0].send_rstep[1], 1);
			ST_EQ(st, rk[0].send_rstep[2], 7);
			ST_EQ(st, rk[2].send_rstep[0], 5);
		}
		for (int i = 0; i < 3; i++) {
			free(rk[i].send_rstep);
			rk[i].send_rstep = NULL;
		}
		rk[2].n_sends = 2; /* a second write from 2 that rank 1 does not expect */
		ST_EQ_I(st, match_steps(&c), -EINVAL);
		for (int i = 0; i < 3; i++)
			free(rk[i].send_rstep);
	}
	free(net);
}
