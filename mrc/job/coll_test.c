/* SPDX-License-Identifier: BSD-2-Clause */
/* coll_test: unit tests of mrc/job/coll.c (`mrcgen-test coll`). */
#include "mrc/job/coll.c"
#include "mrc/base/st.h"

#include <stdio.h>

/*
 * Selftest transport: writes are queued and delivered one at a time, in an order picked
 * by a seeded generator, by copying the bytes into the destination region (BYTES) or, as
 * the simulator's NICs do, placing them packet by packet (DESC, @pkt bytes a packet). An
 * injection (@inj) spoils one write of one iteration the way a faulty transport would.
 */
enum st_inj {
	INJ_NONE,
	INJ_DROP,  /* its packet (or the whole write) never lands */
	INJ_TWICE, /* the receiver reduces it twice */
	INJ_BACK,  /* its packet lands one packet before its place */
	INJ_DUP,   /* its packet lands twice (the same bytes: harmless) */
	INJ_LATE,  /* its packet lands again once the receiver summed it in */
};

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
	uint32_t pkt;  /* DESC: payload bytes per packet, the collective's granule */
	uint32_t iter; /* the iteration running */
	struct {
		enum st_inj kind;
		uint32_t iter, rank, wr_id;
		uint32_t pkt; /* which packet; UINT32_MAX: all of the write */
	} inj;
	struct { /* INJ_LATE: the duplicate waiting for its receiver's reduction */
		bool on;
		uint32_t rank, step;
		int reg;
		uint64_t off, len;
		const uint8_t *src;
	} late;
};

#define ST_VA(rank, reg) ((uint64_t)(rank) << 48 | (uint64_t)(reg) << 40)
#define ST_ALL UINT32_MAX

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

/* The next write to deliver, taken off the queue. */
static struct st_wr st_pop(struct st_net *net)
{
	unsigned i;
	struct st_wr w;

	net->rng = net->rng * 6364136223846793005ull + 1442695040888963407ull;
	i = (unsigned)(net->rng >> 33) % net->n;
	w = net->q[i];
	net->q[i] = net->q[--net->n];
	return w;
}

/* Delivers @w: its data, its completion at the receiver, then at the sender. */
static int st_deliver(struct st_net *net, const struct st_wr *w)
{
	uint64_t len, off = w->va & ((1ull << 40) - 1);
	int reg = (int)((w->va >> 40) & 0xFF), err;
	uint8_t *dst = mrc_coll_region(net->c, w->peer, reg, &len);
	bool hit = net->inj.kind && net->iter == net->inj.iter && w->rank == net->inj.rank &&
		   w->wr_id == net->inj.wr_id;

	if (dst && w->src && !(hit && net->inj.kind == INJ_DROP))
		memcpy(dst + off, w->src, w->len);
	for (uint64_t o = 0, k = 0; net->pkt && o < w->len; o += net->pkt, k++) {
		uint64_t m = w->len - o < net->pkt ? w->len - o : net->pkt, at = off + o;
		bool this = hit && (net->inj.pkt == ST_ALL || net->inj.pkt == k);

		if (this && net->inj.kind == INJ_DROP)
			continue;
		if (this && net->inj.kind == INJ_BACK)
			at -= net->pkt;
		mrc_coll_place(net->c, w->peer, reg, at, (const uint8_t *)w->src + o, m);
		if (this && net->inj.kind == INJ_DUP)
			mrc_coll_place(net->c, w->peer, reg, at, (const uint8_t *)w->src + o, m);
		if (this && net->inj.kind == INJ_LATE)
			net->late = (typeof(net->late)){ true, w->peer, w->imm & 0xFFFFFF, reg, at,
				m, (const uint8_t *)w->src + o };
	}
	net->bytes_moved += w->len;
	err = mrc_coll_on_recv(net->c, w->peer, w->rank, w->imm, 1);
	if (!err && hit && net->inj.kind == INJ_TWICE) { /* the receive just completed, again */
		struct rank *rk = &net->c->r[w->peer];

		for (uint32_t i = 0; i < rk->n_recvs; i++)
			if (rk->recvs[i].peer == w->rank &&
				rk->recvs[i].step == (w->imm & 0xFFFFFF))
				reduce(net->c, rk, &rk->recvs[i]);
	}
	return err ?: mrc_coll_on_send_done(net->c, w->rank, w->wr_id, 2);
}

static int st_drain(struct st_net *net)
{
	int err = 0;

	while (net->n && !err) {
		struct st_wr w = st_pop(net);
		const struct rank *rk = &net->c->r[net->late.rank];

		if (w.rank < 64)
			net->in_flight[w.rank]--;
		err = st_deliver(net, &w);
		if (net->late.on && (rk->done || rk->cur > net->late.step)) { /* summed in */
			mrc_coll_place(net->c, net->late.rank, net->late.reg, net->late.off,
				net->late.src, net->late.len);
			net->late.on = false;
		}
	}
	return err;
}

static int st_new(const struct mrc_coll_params *p, struct st_net *net)
{
	static const struct mrc_coll_ops ops = { .post = st_post };
	int err = mrc_coll_new(p, &ops, net, &net->c);

	if (err)
		return err;
	net->pkt = p->verify == MRC_VERIFY_DESC ? p->granule : 0;
	for (uint32_t r = 0; r < mrc_coll_endpoints(net->c); r++) {
		for (int g = 0; g < MRC_REG_N; g++)
			mrc_coll_set_va(net->c, r, g, ST_VA(r, g));
	}
	return 0;
}

static int st_run(const struct mrc_coll_params *p, struct st_net *net, uint32_t iters)
{
	int err = st_new(p, net);

	for (uint32_t it = 0; it < iters && !err; it++) {
		net->iter = it;
		err = mrc_coll_start(net->c, it, 0);
		err = err ?: st_drain(net);
		if (!err && !mrc_coll_done(net->c))
			err = -EDEADLK;
	}
	return err;
}

/*
 * The same collective run twice in lockstep, with real bytes (@b) and with descriptors
 * (@d): the same writes in the same order. Before each packet is placed, the payload the
 * descriptors generate is compared with the real source bytes; *@differ counts the
 * packets whose bytes differ. Both must verify clean.
 */
static int st_run_pair(struct mrc_coll_params p, uint32_t granule, uint32_t iters,
	struct st_net *b, struct st_net *d, uint64_t *differ)
{
	int err;
	uint8_t *gen = malloc(granule);

	memset(b, 0, sizeof(*b));
	memset(d, 0, sizeof(*d));
	b->rng = d->rng = 7;
	p.verify = MRC_VERIFY_BYTES;
	err = gen ? st_new(&p, b) : -ENOMEM;
	p.verify = MRC_VERIFY_DESC;
	p.granule = granule;
	err = err ?: st_new(&p, d);
	*differ = 0;
	for (uint32_t it = 0; it < iters && !err; it++) {
		err = mrc_coll_start(b->c, it, 0);
		err = err ?: mrc_coll_start(d->c, it, 0);
		while (!err && b->n && b->n == d->n) {
			struct st_wr wb = st_pop(b), wd = st_pop(d);

			for (uint64_t o = 0; o < wd.len; o += granule) {
				uint32_t m = (uint32_t)(wd.len - o < granule ? wd.len - o
									 : granule);

				mrc_coll_payload(d->c, (const uint8_t *)wd.src + o, m, gen);
				*differ += memcmp(gen, (const uint8_t *)wb.src + o, m) != 0;
			}
			err = st_deliver(b, &wb);
			err = err ?: st_deliver(d, &wd);
		}
		if (!err && (b->n || d->n || !mrc_coll_done(b->c) || !mrc_coll_done(d->c)))
			err = -EDEADLK;
	}
	free(gen);
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
			.nranks = 4, .count = 10, .verify = MRC_VERIFY_BYTES,
			.input = st_input_c12 };
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
			.verify = MRC_VERIFY_BYTES, .seed = 3, .root = 1 };
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
			.verify = MRC_VERIFY_BYTES };
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
			.count = 25, .verify = MRC_VERIFY_BYTES, .depth = 3, .messages = 10 };
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
			.count = 2, .verify = MRC_VERIFY_BYTES };
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
			.nranks = 3, .count = 31, .verify = MRC_VERIFY_BYTES, .members = m, .endpoints = 8 };
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
			.nranks = 3, .count = 30, .verify = MRC_VERIFY_BYTES };
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
			.nranks = 61, .count = 122, .verify = MRC_VERIFY_BYTES };
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
			.nranks = 3, .count = 61 * 128 + 5, .verify = MRC_VERIFY_BYTES };
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

	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		/* 64 B: several granules a ring chunk; 100 B: granules end inside elements */
		static const uint32_t gs[] = { 64, 100 };

		for (size_t gi = 0; gi < 2; gi++) {
			struct mrc_coll_params p = { .pattern = runs[k].pat, .algo = runs[k].algo,
				.dtype = runs[k].dt, .nranks = runs[k].n, .count = runs[k].count,
				.seed = 3, .root = 1 };
			struct st_net *d = calloc(1, sizeof(*d));
			uint64_t differ = ~0ull, wrong_b = 0, wrong_d = 0;
			int err = d ? st_run_pair(p, gs[gi], 3, net, d, &differ) : -ENOMEM;

			mrc_st_case(st, "descriptors: %s %s %s n=%u count=%llu, %u-byte granules: "
				"clean, and they generate the real bytes",
				mrc_coll_pattern_name(p.pattern), mrc_coll_algo_name(p.algo),
				mrc_dtype_name(p.dtype), p.nranks, (unsigned long long)p.count,
				gs[gi]);

			ST_EQ_I(st, err, 0);
			for (uint32_t r = 0; !err && r < p.nranks; r++) {
				wrong_b += mrc_coll_verify(net->c, r, 2);
				wrong_d += mrc_coll_verify(d->c, r, 2);
			}
			ST_EQ(st, differ, 0);
			ST_EQ(st, wrong_b, 0);
			ST_EQ(st, wrong_d, 0);
			/* and the last iteration's result checked as the one before is wrong (at
			 * the root, whose output a reduce or a gather checks) */
			if (!err && p.pattern != MRC_COLL_INCAST)
				ST_TRUE(st, mrc_coll_verify(d->c, p.root, 1) > 0);
			if (d)
				mrc_coll_free(d->c);
			mrc_coll_free(net->c);
			free(d);
		}
	}

	/*
	 * Ring all-reduce, 4 ranks, 4096 float32 (16 KiB), 1 KiB packets: chunk c is elements
	 * [1024c, 1024c + 1024), 4 granules of 256 elements. Rank r's writes: wr_id s < 3
	 * the reduce-scatter step s (chunk r - s to r + 1), then 3..5 the all-gather. Rank 0's
	 * write 0 carries chunk 0 to rank 1, which adds its input and passes it on; the
	 * chunk's sum is complete at rank 3 and gathered by all: a granule spoilt there is
	 * wrong at all 4 ranks (1024 elements), and its reduction chain is one rank long.
	 */
	static const struct {
		const char *what;
		enum st_inj kind;
		uint32_t iter, rank, wr_id, pkt;
		uint64_t wrong;
	} inj[] = {
		{ "nothing injected", INJ_NONE, 0, 0, 0, 0, 0 },
		{ "a write dropped (its packet 1): 1 granule x 4 ranks", INJ_DROP, 0, 0, 0, 1,
			4 * 256 },
		{ "the same in iteration 1: the last iteration's data summed", INJ_DROP, 1, 0, 0, 1,
			4 * 256 },
		{ "a write reduced twice: its 4 granules x 4 ranks", INJ_TWICE, 0, 0, 0, ST_ALL,
			4 * 4 * 256 },
		{ "its packet 1 lands one packet early: granules 0 and 1 x 4 ranks", INJ_BACK, 0, 0,
			0, 1, 2 * 4 * 256 },
		{ "its packet 1 lands twice (the same bytes): no error", INJ_DUP, 0, 0, 0, 1, 0 },
		{ "its packet 1 lands again after rank 1 summed it: 1 granule x 4 ranks", INJ_LATE,
			0, 0, 0, 1, 4 * 256 },
		{ "the last gather write to rank 2 lost: its partial sum stays", INJ_DROP, 0, 1, 5,
			ST_ALL, 4 * 256 },
		/* chunk 2 reaches rank 2 only by rank 1's first gather write (the reduce-scatter
		 * never sends a rank its own chunk), and goes on to ranks 3 and 0 */
		{ "a write left from the last iteration: chunk 2 at ranks 2, 3, 0", INJ_DROP, 1, 1,
			3, ST_ALL, 3 * 4 * 256 },
	};
	for (size_t k = 0; k < sizeof(inj) / sizeof(inj[0]); k++) {
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 4, .count = 4096, .verify = MRC_VERIFY_DESC, .granule = 1024,
			.seed = 9 };
		uint64_t wrong = 0;
		int err;

		mrc_st_case(st, "descriptors catch it: %s", inj[k].what);
		memset(net, 0, sizeof(*net));
		net->rng = 5;
		net->inj.kind = inj[k].kind;
		net->inj.iter = inj[k].iter;
		net->inj.rank = inj[k].rank;
		net->inj.wr_id = inj[k].wr_id;
		net->inj.pkt = inj[k].pkt;
		err = st_run(&p, net, inj[k].iter + 1);
		ST_EQ_I(st, err, 0);
		for (uint32_t r = 0; !err && r < 4; r++)
			wrong += mrc_coll_verify(net->c, r, inj[k].iter);
		ST_EQ(st, wrong, inj[k].wrong);
		if (!err && k + 1 == sizeof(inj) / sizeof(inj[0])) {
			/* rank 2's chunk 2 (granules 8..11) is exactly iteration 0's complete
			 * sum: only its iteration tells it from the right result */
			const struct vdesc *d = &net->c->r[2].vd[MRC_REG_OUTPUT][8];

			ST_TRUE(st, vd_is(net->c, *d, 0, 8192, 0, 4));
			ST_TRUE(st, !vd_is(net->c, *d, 1, 8192, 0, 4));
			ST_EQ(st, mrc_coll_verify(net->c, 1, 1), 0);
			ST_EQ(st, mrc_coll_verify(net->c, 2, 1), 1024);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "descriptors: runs join exactly; a rank twice and one missing is wrong");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 4, .count = 4096, .verify = MRC_VERIFY_DESC, .granule = 1024,
			.seed = 9 };
		struct vdesc a, b, x, y;
		struct mrc_coll *c;
		int err;

		memset(net, 0, sizeof(*net));
		err = st_new(&p, net);
		ST_EQ_I(st, err, 0);
		if (!err) {
			c = net->c;
			ST_EQ_I(st, mrc_coll_start(c, 2, 0), 0);
			/* iteration 2's {0, 2} + {1, 3}: the whole set, not a run */
			y = vd_sum(c, vd_sum(c, vd_input(c, 0, 64), vd_input(c, 2, 64)),
				vd_sum(c, vd_input(c, 1, 64), vd_input(c, 3, 64)));
			ST_TRUE(st, vd_is(c, y, 2, 64, 0, 4));
			b = vd_sum(c, vd_input(c, 1, 64), vd_input(c, 3, 64)); /* hashed */
			net->n = 0; /* the posted writes are dropped */
			ST_EQ_I(st, mrc_coll_start(c, 3, 0), 0);
			/* iteration 2's hashes, as a check */
			ST_TRUE(st, vd_is(c, y, 2, 64, 0, 4));
			ST_TRUE(st, !vd_is(c, y, 3, 64, 0, 4)); /* keyed by the iteration */
			/* and half of it summed with half of iteration 3's matches neither */
			x = vd_sum(c, vd_sum(c, vd_input(c, 0, 64), vd_input(c, 2, 64)),
				vd_sum(c, vd_input(c, 1, 64), vd_input(c, 3, 64)));
			ST_TRUE(st, vd_is(c, x, 3, 64, 0, 4));
			x = vd_sum(c, vd_sum(c, vd_input(c, 0, 64), vd_input(c, 2, 64)), b);
			ST_EQ(st, vd_cnt(x), 4);
			ST_TRUE(st, !vd_is(c, x, 3, 64, 0, 4) && !vd_is(c, x, 2, 64, 0, 4));
			/* ranks 3 and 0 meet end to start (3 + 1 = 4 = 0 mod 4): run of 2 from 3 */
			a = vd_sum(c, vd_input(c, 0, 64), vd_input(c, 3, 64));
			ST_EQ(st, a.pc, 64 | 2ull << 40 | VD_OK | VD_EXACT);
			ST_EQ(st, a.set, 3 | 3ull << 32);
			ST_TRUE(st, vd_is(c, a, 3, 64, 3, 2));
			/* then 1, 2: the whole set, each once */
			b = vd_sum(c, vd_sum(c, a, vd_input(c, 1, 64)), vd_input(c, 2, 64));
			ST_TRUE(st, vd_is(c, b, 3, 64, 0, 4));
			ST_TRUE(st, !vd_is(c, b, 2, 64, 0, 4)); /* another iteration */
			ST_TRUE(st, !vd_is(c, b, 3, 128, 0, 4)); /* other bytes */
			/* the run {3, 0, 1, 2} and rank 3 again: still a run (3 follows 2),
			 * but of 5 */
			x = vd_sum(c, b, vd_input(c, 3, 64));
			ST_EQ(st, x.pc, 64 | 5ull << 40 | VD_OK | VD_EXACT);
			ST_TRUE(st, !vd_is(c, x, 3, 64, 0, 4));
			/* {3, 0} + {1} + {1}: no longer a run, kept by count and hash sum */
			x = vd_sum(c, vd_sum(c, a, vd_input(c, 1, 64)), vd_input(c, 1, 64));
			ST_EQ(st, x.pc, 64 | 4ull << 40 | VD_OK);
			/* ({3, 0} + {1} is the run {3, 0, 1}) + {1}: H3 + H0 + 2 H1 */
			ST_EQ(st, x.set, (c->hpre[4] - c->hpre[3]) + (c->hpre[1] - c->hpre[0]) +
						 2 * (c->hpre[2] - c->hpre[1]));
			/* 4 contributions but rank 1 twice and rank 2 never: wrong */
			ST_TRUE(st, !vd_is(c, x, 3, 64, 0, 4));
			/* the full set by a path that is not a run: hashes agree with the run's */
			y = vd_sum(c, vd_sum(c, vd_input(c, 0, 64), vd_input(c, 2, 64)),
				vd_sum(c, vd_input(c, 1, 64), vd_input(c, 3, 64)));
			ST_EQ(st, y.pc, 64 | 4ull << 40 | VD_OK);
			ST_TRUE(st, vd_is(c, y, 3, 64, 0, 4));
			/* mismatched operands: other bytes, runs of another iteration, a bad one */
			ST_EQ(st, vd_sum(c, vd_input(c, 0, 64), vd_input(c, 1, 128)).pc, 0);
			b = vd_input(c, 1, 64);
			b.set = 1 | 2ull << 32;
			ST_EQ(st, vd_sum(c, vd_input(c, 0, 64), b).pc, 0);
			ST_EQ(st, vd_sum(c, vd_input(c, 0, 64), (struct vdesc){0}).pc, 0);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "descriptors: a torn packet, zeros and a write into an input are wrong");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 4, .count = 4096, .verify = MRC_VERIFY_DESC, .granule = 1024,
			.seed = 9 };
		const uint8_t *src;
		struct mrc_coll *c;
		uint64_t w[4];
		int err;

		memset(net, 0, sizeof(*net));
		net->rng = 5;
		err = st_run(&p, net, 1);
		ST_EQ_I(st, err, 0);
		if (!err) {
			c = net->c;
			src = src_of(c, 3, MRC_REG_OUTPUT, 1024);
			for (uint32_t r = 0; r < 4; r++)
				w[r] = mrc_coll_verify(c, r, 0);
			ST_EQ(st, w[0] + w[1] + w[2] + w[3], 0);
			/* rank 3's granule 1 copied onto rank 0's granule 1: the same data, fine */
			mrc_coll_place(c, 0, MRC_REG_OUTPUT, 1024, src, 1024);
			ST_EQ(st, mrc_coll_verify(c, 0, 0), 0);
			/* half a packet: granule 1 torn */
			mrc_coll_place(c, 0, MRC_REG_OUTPUT, 1024, src, 512);
			ST_EQ(st, mrc_coll_verify(c, 0, 0), 256);
			/* a packet straddling granules 2 and 3: both torn */
			mrc_coll_place(c, 0, MRC_REG_OUTPUT, 2048 + 512, src, 1024);
			ST_EQ(st, mrc_coll_verify(c, 0, 0), 3 * 256);
			/* zeros (a payload the fabric forgot), into rank 1's granule 4 */
			mrc_coll_place(c, 1, MRC_REG_OUTPUT, 4096, NULL, 1024);
			ST_EQ(st, mrc_coll_verify(c, 1, 0), 256);
			/* a source that spans two granules of rank 3 */
			mrc_coll_place(c, 2, MRC_REG_OUTPUT, 0, src + 512, 1024);
			ST_EQ(st, mrc_coll_verify(c, 2, 0), 256);
			/* no source at all */
			mrc_coll_place(c, 3, MRC_REG_OUTPUT, 0, (const uint8_t *)&w, 1024);
			ST_EQ(st, mrc_coll_verify(c, 3, 0), 256);
			/* a write into rank 1's input: what it adds from then on is unknown */
			mrc_coll_place(c, 1, MRC_REG_INPUT, 0, src, 1024);
			ST_EQ(st, vd_input(c, 1, 0).pc, 0);
			ST_EQ(st, mrc_coll_start(c, 1, 0), 0);
			/* refilled */
			ST_EQ(st, vd_input(c, 1, 0).pc, 1ull << 40 | VD_OK | VD_EXACT);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "descriptors: the bytes of a granule are its ranks' input sums");
	{
		/* 3 ranks, int32, 8-byte packets: generate bytes 4..11 of rank 0's input, then
		 * of a run {2, 0} at element 70: input(q, i, 1) = ((7q + 13i + 3) mod 61) - 30 +
		 * ((q + 1) mod 7) */
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 3, .count = 300, .dtype = MRC_DT_INT32,
			.verify = MRC_VERIFY_DESC, .granule = 8 };
		int32_t v[2];
		int err;

		memset(net, 0, sizeof(*net));
		err = st_new(&p, net);
		ST_EQ_I(st, err, 0);
		if (!err) {
			struct mrc_coll *c = net->c;
			uint64_t ga, gb, gi;

			ST_EQ_I(st, mrc_coll_start(c, 1, 0), 0);
			ST_EQ_I(st, mrc_coll_payload(c, src_of(c, 0, MRC_REG_INPUT, 4), 8,
					    (uint8_t *)v), 0);
			/* i = 1: (13 + 3) - 30 + 1 = -13; i = 2: (26 + 3) - 30 + 1 = 0 */
			ST_EQ_I(st, v[0], -13);
			ST_EQ_I(st, v[1], 0);
			/* rank 1's output granule at byte 280 (element 70) holding {2, 0} */
			gi = vg_find(c, c->r[1].vg[MRC_REG_OUTPUT],
				&c->r[1].vhint[MRC_REG_OUTPUT], 280, &ga, &gb);
			ST_EQ(st, ga, 280);
			c->r[1].vd[MRC_REG_OUTPUT][gi] = vd_sum(c, vd_input(c, 2, 280),
				vd_input(c, 0, 280));
			ST_EQ_I(st, mrc_coll_payload(c, src_of(c, 1, MRC_REG_OUTPUT, 284), 4,
					    (uint8_t *)v), 0);
			/* element 71: q=2: (14 + 923 + 3) mod 61 = 25, -5 + 3 = -2;
			 * q=0: (923 + 3) mod 61 = 11, -19 + 1 = -18; sum -20 */
			ST_EQ_I(st, v[0], -20);
			/* not a source: zeros and -ENOENT */
			v[0] = 7;
			ST_EQ_I(st, mrc_coll_payload(c, v, 4, (uint8_t *)v), -ENOENT);
			ST_EQ_I(st, v[0], 0);
		}
		mrc_coll_free(net->c);
	}

	mrc_st_case(st, "descriptors: granule 0 is refused; memory is one descriptor a granule");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_ALLREDUCE, .algo = MRC_COLL_RING,
			.nranks = 4, .count = 4096, .verify = MRC_VERIFY_DESC };
		struct mrc_coll *c;
		static const struct mrc_coll_ops ops = { .post = st_post };

		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), -EINVAL);
		/* 4 chunks of 4 KiB in 1000-byte granules: 5 each (4 x 1000 + 96), no bytes */
		p.granule = 1000;
		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), 0);
		if (c) {
			uint64_t len;

			ST_EQ(st, c->r[2].vg[MRC_REG_OUTPUT]->first[4], 20);
			/* the grid is shared */
			ST_EQ(st, c->r[2].vg[MRC_REG_OUTPUT], c->r[0].vg[MRC_REG_OUTPUT]);
			ST_TRUE(st, mrc_coll_region(c, 2, MRC_REG_OUTPUT, &len) == NULL);
			ST_EQ(st, len, 16384);
			mrc_coll_free(c);
		}
	}

	/* mrc_coll_peers: whom each rank writes over the collective, hand-derived */
	{
		/* per endpoint, its peers in first-write order ("a,b"), endpoints split by '|' */
		static const uint64_t v3[9] = { 1, 2, 0, 3, 1, 2, 2, 2, 1 }; /* 0 sends 2 none */
		static const uint32_t grp[3] = { 1, 3, 4 };
		static const struct {
			const char *what;
			char want[40];
			struct mrc_coll_params p;
		} pc[] = {
			{ "ring all-reduce: the successor", "1|2|3|4|0",
				{ MRC_COLL_ALLREDUCE, MRC_COLL_RING, .nranks = 5, .count = 64 } },
			{ "ring reduce-scatter: the successor", "1|2|3|0",
				{ MRC_COLL_REDUCESCATTER, MRC_COLL_RING, .nranks = 4, .count = 64 } },
			{ "ring all-gather over endpoints 1, 3, 4 of 6", "|3||4|1|",
				{ MRC_COLL_ALLGATHER, MRC_COLL_RING, .nranks = 3, .count = 63,
					.endpoints = 6, .members = grp } },
			/* v's parent v - lowbit(v), children v + 2^k below lowbit(v): 0 has 1, 2,
			 * 4; 2 has 3; 4 has 5. Up to the parent first, then down */
			{ "tree all-reduce of 6: parent, then children", "1,2,4|0|0,3|2|0,5|4",
				{ MRC_COLL_ALLREDUCE, MRC_COLL_TREE, .nranks = 6, .count = 64 } },
			/* root 2: v = r - 2 mod 5; v0 (r2) has v1, v2, v4 (r3, r4, r1); v2 (r4) v3
			 * (r0) */
			{ "tree broadcast of 5 from 2: children only", "||3,4,1||0",
				{ MRC_COLL_BROADCAST, MRC_COLL_TREE, .nranks = 5, .count = 64,
					.root = 2 } },
			{ "tree reduce of 5 to 2: the parent only", "4|2||2|2",
				{ MRC_COLL_REDUCE, MRC_COLL_TREE, .nranks = 5, .count = 64,
					.root = 2 } },
			/* chunks flow r -> r + 1 from the root; the last (root - 1) forwards none */
			{ "chain broadcast of 4 from 1", "|2|3|0",
				{ MRC_COLL_BROADCAST, MRC_COLL_RING, .nranks = 4, .count = 64,
					.root = 1 } },
			/* from root + 1 on to the root, which sends none */
			{ "chain reduce of 4 to 1", "1||3|0",
				{ MRC_COLL_REDUCE, MRC_COLL_RING, .nranks = 4, .count = 64,
					.root = 1 } },
			{ "gather to 2: the root", "2|2||2",
				{ MRC_COLL_GATHER, MRC_COLL_RING, .nranks = 4, .count = 64,
					.root = 2 } },
			{ "scatter from 2: every other rank", "||0,1,3|",
				{ MRC_COLL_SCATTER, MRC_COLL_RING, .nranks = 4, .count = 64,
					.root = 2 } },
			{ "all-to-all parallel: r + 1, r + 2, r + 3", "1,2,3|2,3,0|3,0,1|0,1,2",
				{ MRC_COLL_ALLTOALL, MRC_COLL_PARALLEL, .nranks = 4, .count = 64 } },
			{ "all-to-all shift: the same", "1,2,3|2,3,0|3,0,1|0,1,2",
				{ MRC_COLL_ALLTOALL, MRC_COLL_SHIFT, .nranks = 4, .count = 64 } },
			{ "all-to-all-v: no write of 0 elements (0 to 2)", "1|2,0|0,1",
				{ MRC_COLL_ALLTOALLV, MRC_COLL_SHIFT, .nranks = 3, .count = 9,
					.counts = v3 } },
			{ "incast to 3", "3|3|3|",
				{ MRC_COLL_INCAST, MRC_COLL_RING, .nranks = 4, .count = 64,
					.root = 3 } },
			{ "write_bw: the initiators, once for 3 messages", "2|3||",
				{ MRC_COLL_WRITE_BW, MRC_COLL_RING, .nranks = 4, .count = 64,
					.messages = 3 } },
			{ "write_bw bidirectional", "2|3|0|1",
				{ MRC_COLL_WRITE_BW, MRC_COLL_RING, .nranks = 4, .count = 64,
					.messages = 3, .bidir = true } },
			{ "write_lat: ping and pong", "2|3|0|1",
				{ MRC_COLL_WRITE_LAT, MRC_COLL_RING, .nranks = 4, .count = 64 } },
		};
		static const struct mrc_coll_ops ops = { .post = st_post };

		for (size_t i = 0; i < sizeof(pc) / sizeof(pc[0]); i++) {
			struct mrc_coll *c = NULL;
			char got[128] = "";
			size_t o = 0;

			mrc_st_case(st, "mrc_coll_peers: %s", pc[i].what);
			ST_EQ_I(st, mrc_coll_new(&pc[i].p, &ops, net, &c), 0);
			for (uint32_t e = 0; c && e < mrc_coll_endpoints(c); e++) {
				uint32_t n;
				const uint32_t *q = mrc_coll_peers(c, e, &n);

				for (uint32_t k = 0; k < n; k++)
					o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%u",
						k ? "," : "", q[k]);
				if (e + 1 < mrc_coll_endpoints(c))
					o += (size_t)snprintf(got + o, sizeof(got) - o, "|");
			}
			ST_EQ_STR(st, got, pc[i].want);
			mrc_coll_free(c);
		}
	}

	mrc_st_case(st, "mrc_coll_peers: sendrecv's permutation is one cycle, a peer each");
	{
		struct mrc_coll_params p = { .pattern = MRC_COLL_SENDRECV, .nranks = 7, .count = 64,
			.seed = 11 };
		static const struct mrc_coll_ops ops = { .post = st_post };
		struct mrc_coll *c = NULL;

		ST_EQ_I(st, mrc_coll_new(&p, &ops, net, &c), 0);
		if (c) {
			uint32_t r = 0, n, len = 0;

			do { /* follow the cycle from 0: every rank once, back to 0 */
				const uint32_t *q = mrc_coll_peers(c, r, &n);

				ST_EQ(st, n, 1);
				ST_EQ(st, q[0], c->perm_to[r]);
				r = q[0];
				len++;
			} while (r && len <= 7);
			ST_EQ(st, len, 7);
			mrc_coll_free(c);
		}
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
