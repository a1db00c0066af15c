/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll: collective operations (all-reduce ring/tree, all-to-all parallel/shift, sendrecv,
 * incast) as per-rank programs of RDMA writes, with reduction and verification: on real
 * data, or on a descriptor per granule that the programs move and combine as they would
 * the data (docs/verification.md). Bandwidth figures follow nccl-tests' definitions
 * (PERFORMANCE.md: algbw, busbw). Transport-agnostic: a driver posts the writes and reports
 * completions.
 */
#ifndef MRC_COLL_H
#define MRC_COLL_H

#include <stdbool.h>
#include <stdint.h>

enum mrc_coll_pattern {
	MRC_COLL_ALLREDUCE,
	MRC_COLL_ALLTOALL,
	MRC_COLL_SENDRECV,
	MRC_COLL_INCAST,
	MRC_COLL_WRITE_BW,  /* perftest ib_write_bw: `messages` writes per pair, `depth` in flight */
	MRC_COLL_WRITE_LAT, /* perftest ib_write_lat: one ping-pong of writes per iteration */
	/* nccl-tests' other collectives; count is the whole array's (nccl-tests' size) */
	MRC_COLL_ALLGATHER,	/* ring: block r of rank r's input to every output */
	MRC_COLL_REDUCESCATTER, /* ring: rank r's output block r = the sum of inputs' block r */
	MRC_COLL_BROADCAST,	/* ring (pipelined chain) or tree from the root */
	MRC_COLL_REDUCE,	/* ring (pipelined chain) or tree to the root */
	MRC_COLL_ALLTOALLV,	/* all-to-all with per-pair counts (params.counts) */
	MRC_COLL_GATHER,	/* block q of rank q's input to the root's output block q */
	MRC_COLL_SCATTER,	/* block q of the root's input to rank q's output block q */
};

enum mrc_coll_algo {
	MRC_COLL_RING,	   /* all-reduce: reduce-scatter then all-gather, 2(n-1) steps */
	MRC_COLL_TREE,	   /* all-reduce: binomial-tree reduce to rank 0, then broadcast */
	MRC_COLL_PARALLEL, /* all-to-all: every peer at once */
	MRC_COLL_SHIFT,	   /* all-to-all: step k sends to r+k, receives from r-k */
};

enum mrc_dtype {
	MRC_DT_FLOAT32,
	MRC_DT_INT32,
	MRC_DT_FLOAT64,
};

/* Memory regions of a rank; a transfer names its source and destination region. */
enum mrc_coll_region {
	MRC_REG_INPUT,	 /* the rank's input, never written remotely */
	MRC_REG_OUTPUT,	 /* the result */
	MRC_REG_SCRATCH, /* landing slots for partial results still to be reduced */
	MRC_REG_N,
};

/* One RDMA write of a program: @len bytes from (@src_reg, @src_off) of the sender to
 * (@dst_reg, @dst_off) of @peer. */
struct mrc_coll_xfer {
	uint32_t peer;
	uint32_t step; /* the sender's step, which posts it */
	uint8_t src_reg, dst_reg;
	uint64_t src_off, dst_off, len;
};

/* What a collective keeps of its data, and checks (traffic.verify, docs/verification.md). */
enum mrc_verify_mode {
	MRC_VERIFY_OFF,	  /* nothing: sink regions, zero payloads, no check */
	MRC_VERIFY_DESC,  /* per granule, a descriptor of what it holds: no payload bytes */
	MRC_VERIFY_BYTES, /* real buffers and real arithmetic */
};

struct mrc_coll_params {
	enum mrc_coll_pattern pattern;
	enum mrc_coll_algo algo;
	enum mrc_dtype dtype;
	uint32_t nranks;
	uint64_t count;	  /* elements per rank (all-reduce: the vector; all-to-all: total
			     over peers, rounded down to a multiple of nranks — see bytes) */
	uint32_t root;	  /* incast destination */
	uint64_t seed;	  /* sendrecv permutation */
	enum mrc_verify_mode verify;
	/* DESC: bytes per granule, the transport's payload per packet (its MTU): a write's
	 * packets then each cover one granule of its destination exactly */
	uint32_t granule;
	uint32_t depth;	  /* writes a rank keeps in flight (perftest --tx-depth); 0: a step's
			     writes all at once */
	/* alltoallv: elements from rank a to rank b at [a * nranks + b] (rank a's own block at
	 * a * nranks + a stays local); NULL: count / nranks each. Copied by mrc_coll_new. */
	const uint64_t *counts;
	uint32_t messages; /* write_bw: writes per sender and iteration (perftest --iters) */
	bool bidir;	  /* write_bw: both ranks of a pair send (perftest -b) */
	const bool *local; /* endpoints driven by this process (NULL: all, as in the simulator) */
	/* The group: rank g of the collective runs on endpoint members[g] (each below
	 * @endpoints, once); the other endpoints have empty programs, done at once. NULL: rank
	 * g is endpoint g, and there are nranks endpoints. Every other rank argument of this
	 * API, and xfer.peer, is an endpoint (a host of the fabric). Copied by mrc_coll_new. */
	const uint32_t *members;
	uint32_t endpoints;
	/* Input element @i of @rank at @iter; NULL selects mrc_coll_input. Verification
	 * computes expected results from the same function. */
	double (*input)(uint32_t rank, uint64_t i, uint32_t iter);
};

struct mrc_coll_ops {
	/* Posts write @x of @rank, to complete with immediate @imm at the peer and report
	 * send completion with @wr_id. @src is the local source: its bytes (BYTES), NULL
	 * (OFF), or (DESC) an address in a reserved range that holds no bytes and must never
	 * be read, naming the source to mrc_coll_place and mrc_coll_payload (a NIC gathers
	 * the payload of the write's k-th byte from @src + k).
	 * Returns 0 or a negative errno (then the collective fails). */
	int (*post)(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x, const void *src,
		uint64_t dst_va, uint32_t imm, uint64_t wr_id);
};

struct mrc_coll;

/*
 * Builds the per-rank programs. Errors: -EINVAL (nranks < 2, an algorithm that does not
 * belong to the pattern, root >= nranks, count 0), -ENOMEM.
 */
int mrc_coll_new(const struct mrc_coll_params *p, const struct mrc_coll_ops *ops, void *ctx,
	struct mrc_coll **out);
void mrc_coll_free(struct mrc_coll *c);

/* Element size in bytes of @dt (4 or 8). */
unsigned mrc_dtype_size(enum mrc_dtype dt);
const char *mrc_dtype_name(enum mrc_dtype dt);

/*
 * Bytes the collective really moves per rank, S in nccl-tests' algbw = S / t: all-reduce
 * count * size; all-to-all floor(count / n) * n * size (C12: never the requested size when
 * it does not divide); sendrecv and incast count * size per sender.
 */
uint64_t mrc_coll_bytes(const struct mrc_coll *c);

/* busbw / algbw for the pattern (nccl-tests doc/PERFORMANCE.md "Summary": all-reduce
 * 2(n-1)/n; reduce-scatter and all-gather (n-1)/n; broadcast and reduce 1; its
 * src/alltoall.cu, gather.cu, scatter.cu: (n-1)/n for all-to-all(-v), gather, scatter);
 * sendrecv, write_bw, write_lat 1; incast n-1 (the root's ingress). */
double mrc_coll_bus_factor(enum mrc_coll_pattern pat, uint32_t nranks);

/* Whether descriptors (MRC_VERIFY_DESC) can verify @pat, over all ranks or (@group) a
 * params.members group: not yet for a group, nor for the patterns added with issue 20
 * but all-gather, broadcast, gather, scatter, reduce-scatter and reduce (mrc_coll_new
 * refuses the others with -EINVAL; BYTES verifies them). */
bool mrc_coll_desc_ok(enum mrc_coll_pattern pat, bool group);

/* True for the patterns whose array splits into nranks equal blocks (all-gather,
 * reduce-scatter, gather, scatter): count must be a multiple of nranks. */
bool mrc_coll_blocked(enum mrc_coll_pattern pat);

/*
 * Point-to-point patterns (write_bw, write_lat) pair rank r with r + n/2 (n even): with
 * ranks numbered rack by rack, and n/2 a multiple of the hosts per rack, every pair spans
 * two racks. Pair @i (0 <= i < n/2) is (@i, @i + n/2); the first is the initiator (the
 * sender of write_bw, the pinger of write_lat). 0 pairs for other patterns.
 */
uint32_t mrc_coll_npairs(const struct mrc_coll *c);

/* The endpoints of pair @i (i < mrc_coll_npairs): @a initiates. */
void mrc_coll_pair(const struct mrc_coll *c, uint32_t i, uint32_t *a, uint32_t *b);

/* Endpoints of the collective: nranks, or params.endpoints with members. */
uint32_t mrc_coll_endpoints(const struct mrc_coll *c);

/*
 * The endpoints endpoint @ep (< mrc_coll_endpoints) writes to over the whole collective,
 * each once, in the order of its first write (steps in order, a step's writes in posting
 * order); *@n of them. Read off the program mrc_coll_new built, whose zero-length writes
 * are elided: a peer the program never writes is not one. A driver that makes its
 * connections up front (the simulator's QPs at a collective's start, docs/architecture.md
 * "Parallel simulation") makes these. The array lives as long as the collective.
 */
const uint32_t *mrc_coll_peers(const struct mrc_coll *c, uint32_t ep, uint32_t *n);

/* Bytes one sender of a pair writes per iteration: messages * size (write_bw), size
 * (write_lat); 0 for other patterns. */
uint64_t mrc_coll_pair_bytes(const struct mrc_coll *c);

/* Region @reg of @rank: base pointer (NULL but with BYTES) and size in bytes. The driver
 * registers it with the transport (a NULL base as a sink region); dst_va of a transfer is
 * the region's VA + offset. */
void *mrc_coll_region(const struct mrc_coll *c, uint32_t rank, enum mrc_coll_region reg,
	uint64_t *len);

/* Sets the virtual address the peer will use for @rank's region @reg (driver's MR). */
void mrc_coll_set_va(struct mrc_coll *c, uint32_t rank, enum mrc_coll_region reg, uint64_t va);

/*
 * Starts iteration @iter at @now_ps: fills every local rank's input with the
 * deterministic pattern (see mrc_coll_expected), clears outputs, and posts the first step.
 * Returns 0 or the first negative errno from ops->post.
 */
int mrc_coll_start(struct mrc_coll *c, uint32_t iter, uint64_t now_ps);

/*
 * When @rank posted its write @wr_id (from ops->post) in the running iteration: the time
 * given to the call that entered its step (ps, or whatever clock the driver uses), so a
 * driver's post -> completion latency needs no table of its own. UINT64_MAX for an
 * unknown @rank or @wr_id.
 */
uint64_t mrc_coll_posted_at(const struct mrc_coll *c, uint32_t rank, uint64_t wr_id);

/* A write of @rank (wr_id from ops->post) completed; may post the next step. */
int mrc_coll_on_send_done(struct mrc_coll *c, uint32_t rank, uint64_t wr_id, uint64_t now_ps);

/* A write carrying immediate @imm from @peer landed completely at @rank. Returns 0,
 * -EPROTO for an unexpected (peer, imm), or a negative errno from ops->post. */
int mrc_coll_on_recv(struct mrc_coll *c, uint32_t rank, uint32_t peer, uint32_t imm,
	uint64_t now_ps);

/* True when every local rank has received all its data and all its sends completed. */
bool mrc_coll_done(const struct mrc_coll *c);

/* Completion time of @rank's part of the running iteration (ps since start), 0 if not done. */
uint64_t mrc_coll_rank_time(const struct mrc_coll *c, uint32_t rank);

/* Number of steps of @rank's program, and the duration of step @s in the last iteration
 * (ps; 0 when it has not run). */
uint32_t mrc_coll_steps(const struct mrc_coll *c, uint32_t rank);
uint64_t mrc_coll_step_time(const struct mrc_coll *c, uint32_t rank, uint32_t s);

/*
 * Counts wrong output elements of @rank after iteration @iter against values computed
 * from the closed-form input pattern (not from other ranks' buffers). BYTES compares
 * every element; DESC every output granule's descriptor (iteration, byte range of the
 * data, contributing ranks) and counts the elements of a wrong granule. 0 when OFF.
 */
uint64_t mrc_coll_verify(const struct mrc_coll *c, uint32_t rank, uint32_t iter);

/*
 * DESC: a transport placed @len bytes gathered at @src (a source from ops->post plus an
 * offset; NULL: zeros) at byte @off of @rank's region @reg, as its NIC would copy them.
 * Every destination granule the bytes cover exactly takes the descriptor of the source
 * bytes (a copy); a granule covered in part, a source that spans two granules or is no
 * source, and zeros make it bad (counted wrong unless rewritten). A write into an input
 * makes that rank's input bad until the next iteration. No-op in the other modes.
 */
void mrc_coll_place(struct mrc_coll *c, uint32_t rank, enum mrc_coll_region reg, uint64_t off,
	const void *src, uint64_t len);

/*
 * DESC: writes into @out the @len bytes a real sender's buffer holds at @src (as
 * mrc_coll_place takes it), generated from the closed form: the sum over the granule's
 * contributing ranks of their inputs, in the dtype's bytes (host order, as the buffers of
 * BYTES). Bytes of a bad granule, of one whose contributors are not known exactly
 * (docs/verification.md), or of no source are zeros. Returns 0, or -ENOENT when @src is
 * no source (all zeros).
 */
int mrc_coll_payload(struct mrc_coll *c, const void *src, uint32_t len, uint8_t *out);

/*
 * DESC: a source address (ops->post's @src) as an offset into this collective's reserved
 * range, and back: what names the same source in another process that built the same
 * collective (MPI ranks of one simulation, docs/architecture.md "Parallel simulation").
 * mrc_coll_src_off: true with *@off when @src lies in the range; mrc_coll_src_at: the
 * address, NULL when @off lies outside it (or the collective has no range: not DESC).
 */
bool mrc_coll_src_off(const struct mrc_coll *c, const void *src, uint64_t *off);
const void *mrc_coll_src_at(const struct mrc_coll *c, uint64_t off);

/*
 * DESC, across processes: the placement of a payload reads its source granule's 16-byte
 * descriptor, which only the process running the source rank keeps up to date. get: that
 * descriptor, for @len bytes at @src in an output or scratch region (an input's is
 * computed, and needs none): true with @out[16]. put: the same written into this
 * process's copy of that granule, where the payload arrives, before it is placed; true
 * when @src names such a granule. A source granule does not change while a write reads it
 * (the collectives' own order), so the descriptor sent with the packet is the one the
 * placement would read.
 */
bool mrc_coll_src_desc_get(const struct mrc_coll *c, const void *src, uint64_t len,
	uint8_t out[16]);
bool mrc_coll_src_desc_put(struct mrc_coll *c, const void *src, uint64_t len,
	const uint8_t in[16]);

/*
 * Input element @i of @rank at iteration @iter: ((7r + 13i + 3 iter) mod 61) - 30 +
 * ((r + iter) mod 7): small integers, exact in every dtype, so sums are exact; period 61
 * in @i; changing every iteration, so data left from the last one is caught. The second
 * term matters for 61k ranks: the first alone then sums every element to exactly 0,
 * which an all-zero output would pass.
 */
double mrc_coll_input(uint32_t rank, uint64_t i, uint32_t iter);

/* Human names (config enum tables live in conf/; these are for reports). */
const char *mrc_coll_pattern_name(enum mrc_coll_pattern p);
const char *mrc_coll_algo_name(enum mrc_coll_algo a);

#endif
