/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll: collectives as per-rank step programs of RDMA writes. A rank enters step s+1 when
 * every write of step s has completed (so no source byte is rewritten while a
 * retransmission may still read it) and every write it expects in step s has landed.
 * Verification (docs/verification.md) keeps real bytes, or per granule a descriptor of
 * what the bytes would be, moved and combined exactly where the bytes would be.
 */
#include "mrc/job/coll.h"
#include "mrc/base/rng.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum red_op {
	RED_NONE,    /* data placed as is */
	RED_IN_OUT,  /* out[off] += in[off]: the partial landed in place (ring reduce-scatter) */
	RED_OUT_SCR, /* out[off] += scratch[scr_off] (tree reduce) */
};

struct step {
	uint32_t first_send, n_send, first_recv, n_recv;
};

struct recv {
	uint32_t peer, step;
	uint8_t red;
	uint64_t off, scr_off, len;
};

/*
 * DESC: what a granule holds, in 16 bytes: the bytes [pos, pos + the granule's length) of
 * the data vector (the input's byte space: elements pos / es on), summed over a multiset
 * of ranks' inputs of one iteration. The multiset is exact when it is a cyclic run of
 * ranks lo, lo + 1, ... (cnt of them, mod n: every set the ring and the tree build, at
 * any scale), and then @set holds lo and the iteration; otherwise it is known by cnt and
 * @set, the sum mod 2^64 of its ranks' hashes keyed by the job's seed and the iteration
 * (hash_prefix): a sum and not an XOR, which a rank counted twice would cancel. A
 * granule without VD_OK holds nothing describable (never written, zeros, torn, or a sum
 * of mismatched granules): always wrong.
 */
struct vdesc {
	uint64_t pc;  /* pos (VD_POS bits), then cnt (22 bits), VD_EXACT, VD_OK */
	uint64_t set; /* VD_EXACT: lo | iteration << 32; else the hash sum */
};

#define VD_POS	   ((1ull << 40) - 1)
#define VD_CNT_MAX ((1u << 22) - 1)
#define VD_EXACT   (1ull << 62)
#define VD_OK	   (1ull << 63)

/*
 * DESC: a region's granules. Its segments run between the offsets where a write of the
 * program starts or ends, and each is cut in p.granule bytes (the transport's payload per
 * packet) from its start, the last one shorter: a write's k-th packet covers exactly its
 * destination's k-th granule, and reads exactly one granule of its source.
 */
struct vgrid {
	uint64_t *bound; /* nseg + 1 offsets, ascending, 0 to the region's length */
	uint64_t *first; /* nseg + 1: each segment's first granule; first[nseg]: the count */
	uint32_t nseg;
};

/* DESC: the write a rank's output last took a packet of, so that its other packets, in
 * whatever order they land, are placed without a search: a packet from @delta + off to
 * off inside the destination segment is its (a write maps a segment onto a segment). */
struct vnext {
	uintptr_t delta;	 /* source address - destination offset; 0: none */
	uint64_t dlo, dhi, dfirst; /* the destination segment, its first granule */
	const struct vdesc *svd; /* the source's granules; NULL: an input (closed form) */
	uint64_t slo, shi, sfirst; /* the source segment (the input: all of it), first granule */
	uint64_t sdelta;	 /* source offset - destination offset, mod 2^64 */
	uint32_t srank;
};

struct rank {
	struct step *steps;
	struct mrc_coll_xfer *sends;
	struct recv *recvs;
	uint32_t *send_rstep; /* per send: the receiver's step that expects it */
	uint32_t *peers, n_peers; /* whom its sends go to, each once (find_peers) */
	uint32_t n_steps, n_sends, n_recvs, cap_steps, cap_sends, cap_recvs;
	uint8_t *buf[MRC_REG_N];
	uint64_t len[MRC_REG_N], va[MRC_REG_N];
	/* state of the running iteration */
	uint32_t cur;			/* current step */
	uint32_t sends_left, recvs_left; /* of the current step */
	uint32_t next_send, send_end;	 /* unposted writes of the current step (depth) */
	uint32_t in_flight;		 /* posted, not completed */
	uint32_t recv_lo;		 /* no receive below it in the current step is open */
	uint64_t *post_t;		 /* per send, when posted (only with a depth) */
	uint8_t *recv_got;		/* per recv index */
	uint8_t *send_got;		/* per send index */
	uint64_t *step_t0, *step_t1;
	uint64_t t_done;
	bool done;
	/* DESC */
	struct vdesc *vd[MRC_REG_N]; /* output and scratch granules (the input: closed form) */
	const struct vgrid *vg[MRC_REG_N];
	uint32_t vhint[MRC_REG_N];   /* the segment of vg last found: the next is likely it */
	struct vnext vn;
	bool in_bad;		     /* a write hit the input in this iteration */
};

struct mrc_coll {
	uint64_t id; /* its number, for the thread's cache of payload sums (gen) */
	struct mrc_coll_params p;
	struct mrc_coll_ops ops;
	void *ctx;
	unsigned es;	  /* element size */
	uint64_t bytes;	  /* S of algbw */
	uint32_t iter;
	uint64_t t_start;
	uint32_t *perm_to, *perm_from; /* sendrecv */
	uint64_t *vcnt, *soff, *roff;  /* alltoallv: [sender * n + receiver], elements */
	struct rank *r;		/* per endpoint */
	uint32_t n_ep;		/* endpoints: nranks, or params.endpoints with members */
	uint32_t *ep_of;	/* group rank -> endpoint (NULL: the same number) */
	uint32_t *grp_of;	/* endpoint -> group rank, UINT32_MAX outside (NULL: same) */
	bool local_all;
	/* DESC: sources are named by addresses in a reserved range that holds no bytes: rank
	 * r's input at vbase + voff[r], its output right after it */
	uint8_t *vbase;
	uint64_t vlen;		/* the range's length */
	unsigned vshift;	/* voff[r] = r << vshift when every rank's regions are alike,
				 * else 0 (then voff is searched) */
	uint64_t *voff;		/* [nranks + 1] */
	uint64_t gmagic;	/* x / p.granule = x * gmagic >> 64 (x < 2^50), 0: granule 1 */
	void *varena;		/* every rank's descriptors, one mapping */
	size_t varena_len;
	uint64_t *hpre;		/* [nranks + 1]: prefix sums of the ranks' hashes keyed by */
	uint32_t hiter;		/* this iteration (UINT32_MAX: none yet) */
	struct vgrid **grids;	/* the distinct grids, owned */
	uint32_t n_grids;
};

/* The last run of ranks mrc_coll_payload summed, per thread (a parallel simulation lays
 * packets out on several: docs/architecture.md "Parallel simulation"), for collective
 * @c as it was then (@id: it could be a new one at the same address). */
static _Thread_local struct {
	bool ok;
	const struct mrc_coll *c;
	uint64_t id;
	uint64_t lo;
	uint32_t cnt, iter;
	uint8_t pat[2 * 61 * 8]; /* its sums at elements 0..121, in the dtype's bytes */
} coll_gen;

static atomic_uint_fast64_t coll_ids; /* mrc_coll_new numbers its collectives from 1 */

/* Endpoint of group rank @g, its rank state, and the group rank of endpoint @e. */
#define EP(c, g) ((c)->ep_of ? (c)->ep_of[g] : (g))
#define RK(c, g) (&(c)->r[EP(c, g)])
#define GRP(c, e) ((c)->grp_of ? (c)->grp_of[e] : (e))

unsigned mrc_dtype_size(enum mrc_dtype dt)
{
	return dt == MRC_DT_FLOAT64 ? 8 : 4;
}

const char *mrc_dtype_name(enum mrc_dtype dt)
{
	static const char *const n[] = { "float", "int32", "double" };

	return (unsigned)dt < 3 ? n[dt] : "?";
}

const char *mrc_coll_pattern_name(enum mrc_coll_pattern p)
{
	static const char *const n[] = { "allreduce", "alltoall", "sendrecv", "incast",
		"write_bw", "write_lat", "allgather", "reducescatter", "broadcast", "reduce",
		"alltoallv", "gather", "scatter" };

	return (unsigned)p < sizeof(n) / sizeof(n[0]) ? n[p] : "?";
}

const char *mrc_coll_algo_name(enum mrc_coll_algo a)
{
	static const char *const n[] = { "ring", "tree", "parallel", "shift" };

	return (unsigned)a < 4 ? n[a] : "?";
}

double mrc_coll_input(uint32_t rank, uint64_t i, uint32_t iter)
{
	return (double)((7ull * rank + 13ull * i + 3ull * iter) % 61) - 30.0 +
	       (double)((rank + iter) % 7);
}

double mrc_coll_bus_factor(enum mrc_coll_pattern pat, uint32_t n)
{
	switch (pat) {
	case MRC_COLL_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case MRC_COLL_ALLTOALL:
	case MRC_COLL_ALLTOALLV:
	case MRC_COLL_ALLGATHER:
	case MRC_COLL_REDUCESCATTER:
	case MRC_COLL_GATHER:
	case MRC_COLL_SCATTER:
		return (double)(n - 1) / n;
	case MRC_COLL_SENDRECV:
	case MRC_COLL_WRITE_BW:
	case MRC_COLL_WRITE_LAT:
	case MRC_COLL_BROADCAST:
	case MRC_COLL_REDUCE:
		return 1.0;
	case MRC_COLL_INCAST:
		return n - 1;
	}
	return 0;
}

bool mrc_coll_desc_ok(enum mrc_coll_pattern pat, bool group)
{
	(void)pat;
	return !group;
}

bool mrc_coll_blocked(enum mrc_coll_pattern p)
{
	return p == MRC_COLL_ALLGATHER || p == MRC_COLL_REDUCESCATTER || p == MRC_COLL_GATHER ||
	       p == MRC_COLL_SCATTER;
}

static bool is_local(const struct mrc_coll *c, uint32_t r)
{
	return c->local_all || c->p.local[r];
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elsize)
{
	if (need <= *cap)
		return 0;
	uint32_t ncap = *cap ? *cap * 2 : 8;

	while (ncap < need)
		ncap *= 2;
	void *n = realloc(*arr, (size_t)ncap * elsize);

	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

static int new_step(struct rank *rk)
{
	if (grow((void **)&rk->steps, &rk->cap_steps, rk->n_steps + 1, sizeof(*rk->steps)))
		return -ENOMEM;
	rk->steps[rk->n_steps++] = (struct step){ .first_send = rk->n_sends,
		.first_recv = rk->n_recvs };
	return 0;
}

/* Adds a write to the current (last) step; zero-length writes are elided on both sides. */
static int add_send(const struct mrc_coll *c, struct rank *rk, uint32_t peer, int src_reg,
	uint64_t src_off, int dst_reg, uint64_t dst_off, uint64_t len)
{
	if (!len)
		return 0;
	if (grow((void **)&rk->sends, &rk->cap_sends, rk->n_sends + 1, sizeof(*rk->sends)))
		return -ENOMEM;
	rk->sends[rk->n_sends++] = (struct mrc_coll_xfer){ .peer = EP(c, peer), .step = rk->n_steps - 1,
		.src_reg = (uint8_t)src_reg, .dst_reg = (uint8_t)dst_reg, .src_off = src_off,
		.dst_off = dst_off, .len = len };
	rk->steps[rk->n_steps - 1].n_send++;
	return 0;
}

static int add_recv(const struct mrc_coll *c, struct rank *rk, uint32_t peer, enum red_op red,
	uint64_t off, uint64_t scr_off, uint64_t len)
{
	if (!len)
		return 0;
	if (grow((void **)&rk->recvs, &rk->cap_recvs, rk->n_recvs + 1, sizeof(*rk->recvs)))
		return -ENOMEM;
	rk->recvs[rk->n_recvs++] = (struct recv){ .peer = EP(c, peer), .step = rk->n_steps - 1,
		.red = (uint8_t)red, .off = off, .scr_off = scr_off, .len = len };
	rk->steps[rk->n_steps - 1].n_recv++;
	return 0;
}

/* Byte offset of ring chunk @k of @count elements over @n ranks: floor(count*k/n) (C12). */
static uint64_t chunk_off(const struct mrc_coll *c, uint32_t k)
{
	return (uint64_t)((unsigned __int128)c->p.count * k / c->p.nranks) * c->es;
}

/*
 * Ring: a reduce-scatter phase (@rs) then an all-gather phase (@ag), n-1 steps each. With
 * shift 0 (all-reduce) rank r ends the reduce-scatter holding chunk r+1 summed, which the
 * all-gather starts from; with shift n-1 (reduce-scatter alone) it ends with chunk r, and
 * the all-gather alone starts from chunk r (its own, copied into the output at start).
 */
static int build_ring(struct mrc_coll *c, uint32_t r, uint32_t sh, bool rs, bool ag)
{
	struct rank *rk = RK(c, r);
	uint32_t n = c->p.nranks, next = (r + 1) % n, prev = (r + n - 1) % n;
	int err = 0;

	/*
	 * The partial of chunk c lands in the output at c and is summed there with the input:
	 * no scratch. Output chunk c is free then (a rank receives each chunk once in the
	 * reduce-scatter, never its own), and the all-gather only rewrites a chunk whose
	 * partial this rank sent steps before, after that write completed.
	 */
	for (uint32_t s = 0; rs && s < n - 1 && !err; s++) { /* reduce-scatter */
		uint32_t cs = (r + n - s + sh) % n, cr = (r + 2 * n - s - 1 + sh) % n;
		uint64_t so = chunk_off(c, cs), sl = chunk_off(c, cs + 1) - so;
		uint64_t ro = chunk_off(c, cr), rl = chunk_off(c, cr + 1) - ro;

		err = new_step(rk);
		err = err ?: add_send(c, rk, next, s ? MRC_REG_OUTPUT : MRC_REG_INPUT, so,
				   MRC_REG_OUTPUT, so, sl);
		err = err ?: add_recv(c, rk, prev, RED_IN_OUT, ro, 0, rl);
	}
	for (uint32_t s = 0; ag && s < n - 1 && !err; s++) { /* all-gather */
		uint32_t cs = (r + 1 + n - s + sh) % n, cr = (r + n - s + sh) % n;
		uint64_t so = chunk_off(c, cs), sl = chunk_off(c, cs + 1) - so;
		uint64_t ro = chunk_off(c, cr), rl = chunk_off(c, cr + 1) - ro;

		err = new_step(rk);
		err = err ?: add_send(c, rk, next, MRC_REG_OUTPUT, so, MRC_REG_OUTPUT, so, sl);
		err = err ?: add_recv(c, rk, prev, RED_NONE, ro, 0, rl);
	}
	return err;
}

/*
 * Pipelined chain from the root (broadcast) or toward it (reduce), as NCCL's ring runs
 * them: the vector in K = min(count, n) chunks; the rank at distance p from the root
 * (downstream for a broadcast, upstream for a reduce) forwards chunk k-1 while chunk k
 * arrives. A reduce's partial lands in the output and is summed there with the input.
 */
static int build_chain(struct mrc_coll *c, uint32_t r, bool reduce)
{
	struct rank *rk = RK(c, r);
	uint32_t n = c->p.nranks, root = c->p.root, K = c->p.count < n ? (uint32_t)c->p.count : n;
	/* a broadcast starts at the root, a reduce at root + 1 and ends at the root */
	uint32_t p = reduce ? (root + n - r) % n : (r + n - root) % n;
	uint32_t up = (r + n - 1) % n, down = (r + 1) % n; /* chunks flow to r + 1 */
	bool first = reduce ? p == n - 1 : p == 0, last = p == (reduce ? 0 : n - 1);
	int err = 0;

	for (uint32_t k = 0; k <= K && !err; k++) {
		uint64_t so = k ? c->p.count * (k - 1) / K * c->es : 0;
		uint64_t sl = k ? c->p.count * k / K * c->es - so : 0;
		uint64_t ro = c->p.count * k / K * c->es;
		uint64_t rl = k < K ? c->p.count * (k + 1) / K * c->es - ro : 0;

		if (first) { /* the source sends chunk k in step k */
			if (k == K)
				break;
			so = ro;
			sl = rl;
		}
		err = new_step(rk);
		if (!last)
			err = err ?: add_send(c, rk, down, first && reduce ? MRC_REG_INPUT :
					   MRC_REG_OUTPUT, so, MRC_REG_OUTPUT, so, sl);
		if (!first)
			err = err ?: add_recv(c, rk, up, reduce ? RED_IN_OUT : RED_NONE, ro, 0, rl);
	}
	return err;
}

/* Binomial tree rooted at the root (rank 0 for all-reduce); with v = r - root mod n:
 * children of v are v + 2^k for 2^k below v's lowest set bit (all k for v = 0); the parent
 * of v != 0 is v minus its lowest set bit. @red: subtree sums flow up; @bc: the result
 * flows down. */
static int build_tree(struct mrc_coll *c, uint32_t r, bool red, bool bc)
{
	struct rank *rk = RK(c, r);
	uint32_t n = c->p.nranks, R = c->p.root, v = (r + n - R) % n;
	uint32_t low = v ? (v & -v) : 1u << 31;
	uint64_t S = c->p.count * c->es;
	uint32_t nchild = 0;
	int err = 0;

#define TREE_RANK(x) (((x) + R) % n)
	for (uint32_t m = 1; m < low && v + m < n; m <<= 1)
		nchild++;
	if (red)
		rk->len[MRC_REG_SCRATCH] = nchild * S;
	if (red && nchild) { /* reduce: every child's subtree sum lands in a slot of its own */
		uint32_t k = 0;

		err = new_step(rk);
		for (uint32_t m = 1; m < low && v + m < n && !err; m <<= 1, k++)
			err = add_recv(c, rk, TREE_RANK(v + m), RED_OUT_SCR, 0, k * S, S);
	}
	if (v && red && !err) { /* send the subtree sum up */
		err = new_step(rk);
		err = err ?: add_send(c, rk, TREE_RANK(v - low), MRC_REG_OUTPUT, 0,
				   MRC_REG_SCRATCH, (uint64_t)__builtin_ctz(low) * S, S);
	}
	if (v && bc && !err) { /* then receive the result */
		err = new_step(rk);
		err = err ?: add_recv(c, rk, TREE_RANK(v - low), RED_NONE, 0, 0, S);
	}
	if (bc && nchild && !err) { /* broadcast down */
		err = new_step(rk);
		for (uint32_t m = 1; m < low && v + m < n && !err; m <<= 1)
			err = add_send(c, rk, TREE_RANK(v + m), MRC_REG_OUTPUT, 0, MRC_REG_OUTPUT,
				0, S);
	}
#undef TREE_RANK
	return err;
}

/*
 * Gather (@to_root) or scatter: block q of the output (of B = count/n elements) comes
 * from rank q's input block q (gather, at the root) or from the root's input block q
 * (scatter, at rank q); the root's own block is copied at start.
 */
static int build_rooted(struct mrc_coll *c, uint32_t r, bool to_root)
{
	struct rank *rk = RK(c, r);
	uint32_t n = c->p.nranks, root = c->p.root;
	uint64_t B = c->p.count / n * c->es;
	int err = new_step(rk);

	for (uint32_t q = 0; q < n && !err; q++) {
		if (q == root)
			continue;
		if (r == root && to_root)
			err = add_recv(c, rk, q, RED_NONE, q * B, 0, B);
		else if (r == root)
			err = add_send(c, rk, q, MRC_REG_INPUT, q * B, MRC_REG_OUTPUT, q * B, B);
		else if (r == q && to_root)
			err = add_send(c, rk, root, MRC_REG_INPUT, q * B, MRC_REG_OUTPUT, q * B, B);
		else if (r == q)
			err = add_recv(c, rk, root, RED_NONE, q * B, 0, B);
	}
	return err;
}

static int build_alltoall(struct mrc_coll *c, uint32_t r)
{
	struct rank *rk = RK(c, r);
	uint32_t n = c->p.nranks;
	uint64_t B = c->p.count / n * c->es;
	int err = 0;

	for (uint32_t k = 1; k < n && !err; k++) {
		uint32_t to = (r + k) % n, from = (r + n - k) % n;

		if (k == 1 || c->p.algo == MRC_COLL_SHIFT)
			err = new_step(rk);
		err = err ?: add_send(c, rk, to, MRC_REG_INPUT, to * B, MRC_REG_OUTPUT, r * B, B);
		err = err ?: add_recv(c, rk, from, RED_NONE, from * B, 0, B);
	}
	return err;
}

/*
 * All-to-all-v: rank r's input holds its blocks to each rank in rank order (vcnt[r*n + d]
 * elements to d, at soff), its output the blocks from each rank in rank order (at roff);
 * parallel: every peer in one step; shift: step k to r+k, from r-k. The own block is
 * copied at start.
 */
static int build_alltoallv(struct mrc_coll *c, uint32_t r)
{
	struct rank *rk = RK(c, r);
	uint32_t n = c->p.nranks;
	unsigned es = c->es;
	int err = 0;

	rk->len[MRC_REG_INPUT] = (c->soff[r * n + n - 1] + c->vcnt[r * n + n - 1]) * es;
	rk->len[MRC_REG_OUTPUT] = (c->roff[r * n + n - 1] + c->vcnt[(n - 1) * n + r]) * es;
	for (uint32_t k = 1; k < n && !err; k++) {
		uint32_t to = (r + k) % n, from = (r + n - k) % n;

		if (k == 1 || c->p.algo == MRC_COLL_SHIFT)
			err = new_step(rk);
		err = err ?: add_send(c, rk, to, MRC_REG_INPUT, c->soff[r * n + to] * es,
				   MRC_REG_OUTPUT, c->roff[to * n + r] * es, c->vcnt[r * n + to] * es);
		err = err ?: add_recv(c, rk, from, RED_NONE, c->roff[r * n + from] * es, 0,
				   c->vcnt[from * n + r] * es);
	}
	return err;
}

/* The per-pair counts (params.counts, or count / n each) and their prefix offsets. */
static int make_v(struct mrc_coll *c)
{
	uint32_t n = c->p.nranks;
	uint64_t most = 0;

	c->vcnt = calloc((size_t)n * n, sizeof(*c->vcnt));
	c->soff = calloc((size_t)n * n, sizeof(*c->soff));
	c->roff = calloc((size_t)n * n, sizeof(*c->roff));
	if (!c->vcnt || !c->soff || !c->roff)
		return -ENOMEM;
	for (size_t i = 0; i < (size_t)n * n; i++)
		c->vcnt[i] = c->p.counts ? c->p.counts[i] : c->p.count / n;
	for (uint32_t a = 0; a < n; a++) {
		uint64_t row = 0;

		for (uint32_t b = 1; b < n; b++) {
			c->soff[a * n + b] = c->soff[a * n + b - 1] + c->vcnt[a * n + b - 1];
			c->roff[a * n + b] = c->roff[a * n + b - 1] + c->vcnt[(b - 1) * n + a];
		}
		for (uint32_t b = 0; b < n; b++)
			row += c->vcnt[a * n + b];
		if (row > most)
			most = row;
	}
	c->bytes = most * c->es; /* S: the largest rank's sends, its own block included */
	c->p.counts = NULL;	 /* the caller's array is not kept */
	return 0;
}

static int build_sendrecv(struct mrc_coll *c, uint32_t r)
{
	struct rank *rk = RK(c, r);
	uint64_t S = c->p.count * c->es;
	int err = new_step(rk);

	err = err ?: add_send(c, rk, c->perm_to[r], MRC_REG_INPUT, 0, MRC_REG_OUTPUT, 0, S);
	err = err ?: add_recv(c, rk, c->perm_from[r], RED_NONE, 0, 0, S);
	return err;
}

static int build_incast(struct mrc_coll *c, uint32_t r)
{
	struct rank *rk = RK(c, r);
	uint64_t S = c->p.count * c->es;
	int err = new_step(rk);

	if (r == c->p.root) {
		rk->len[MRC_REG_OUTPUT] = S * c->p.nranks;
		for (uint32_t p = 0; p < c->p.nranks && !err; p++) {
			if (p != r)
				err = add_recv(c, rk, p, RED_NONE, p * S, 0, S);
		}
		return err;
	}
	return err ?: add_send(c, rk, c->p.root, MRC_REG_INPUT, 0, MRC_REG_OUTPUT, r * S, S);
}

/*
 * write_bw: the initiator of a pair writes `messages` times its whole input over its
 * peer's output, in one step (perftest rewrites one buffer too); bidirectional, both do.
 */
static int build_write_bw(struct mrc_coll *c, uint32_t r)
{
	struct rank *rk = RK(c, r);
	uint32_t h = c->p.nranks / 2, peer = r < h ? r + h : r - h;
	uint64_t S = c->p.count * c->es;
	bool sends = r < h || c->p.bidir, recvs = r >= h || c->p.bidir;
	int err = new_step(rk);

	for (uint32_t m = 0; m < c->p.messages && !err; m++) {
		if (sends)
			err = add_send(c, rk, peer, MRC_REG_INPUT, 0, MRC_REG_OUTPUT, 0, S);
		if (recvs && !err)
			err = add_recv(c, rk, peer, RED_NONE, 0, 0, S);
	}
	return err;
}

/* write_lat: the initiator writes, its peer answers once the write landed (ping-pong). */
static int build_write_lat(struct mrc_coll *c, uint32_t r)
{
	struct rank *rk = RK(c, r);
	uint32_t h = c->p.nranks / 2, peer = r < h ? r + h : r - h;
	uint64_t S = c->p.count * c->es;
	int err = new_step(rk);

	if (r < h) {
		err = err ?: add_send(c, rk, peer, MRC_REG_INPUT, 0, MRC_REG_OUTPUT, 0, S);
		err = err ?: new_step(rk);
		return err ?: add_recv(c, rk, peer, RED_NONE, 0, 0, S);
	}
	err = err ?: add_recv(c, rk, peer, RED_NONE, 0, 0, S);
	err = err ?: new_step(rk);
	return err ?: add_send(c, rk, peer, MRC_REG_INPUT, 0, MRC_REG_OUTPUT, 0, S);
}

/* Sattolo's algorithm: a uniformly random single cycle, so nobody sends to itself. */
static int make_perm(struct mrc_coll *c)
{
	uint32_t n = c->p.nranks;
	struct mrc_rng rng;

	c->perm_to = calloc(n, sizeof(*c->perm_to));
	c->perm_from = calloc(n, sizeof(*c->perm_from));
	if (!c->perm_to || !c->perm_from)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		c->perm_to[i] = i;
	mrc_rng_seed(&rng, c->p.seed);
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)mrc_rng_below(&rng, i), t = c->perm_to[i];

		c->perm_to[i] = c->perm_to[j];
		c->perm_to[j] = t;
	}
	for (uint32_t i = 0; i < n; i++)
		c->perm_from[c->perm_to[i]] = i;
	return 0;
}

/*
 * A rank's region, zeroed. Large ones are mapped with MAP_POPULATE: the kernel fills
 * the pages in one pass instead of one fault per 4 KiB page on first touch (the
 * quickstart's 6 GiB of buffers cost about 10 s of system time in faults).
 */
static void *region_alloc(uint64_t len)
{
	void *p;

	if (len < (1u << 20))
		return calloc(1, len);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		-1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void region_free(void *p, uint64_t len)
{
	if (!p)
		return;
	if (len < (1u << 20))
		free(p);
	else
		munmap(p, len);
}

/*
 * Step numbers differ between ranks (a tree leaf has fewer steps than the root), so each
 * write carries the receiver's step in its immediate: the k-th write from r to q is the
 * k-th receive q expects from r. Each receiver's receives are ordered by (peer, index)
 * once, so the k-th from r is found by a binary search: O((sends + receives) log) time and
 * O(receives + ranks) memory, where a table per (sender, receiver) pair was ranks^2 (268 MB
 * at 8192 ranks) and a scan per write cubic for a ring.
 */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* First position in @ord[lo, hi) whose receive comes from a peer >= @peer. */
static size_t first_from(const struct rank *rq, const uint32_t *ord, size_t lo, size_t hi,
	uint32_t peer)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rq->recvs[ord[mid]].peer < peer)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int match_steps(struct mrc_coll *c)
{
	uint32_t n = c->n_ep, max_recvs = 0;
	size_t total = 0, *off = malloc(((size_t)n + 1) * sizeof(*off));
	uint32_t *cnt = calloc(n, sizeof(*cnt)), *ord = NULL;
	uint64_t *key = NULL;
	int err = -ENOMEM;

	if (!off || !cnt)
		goto out;
	for (uint32_t q = 0; q < n; q++) {
		off[q] = total;
		total += c->r[q].n_recvs;
		if (c->r[q].n_recvs > max_recvs)
			max_recvs = c->r[q].n_recvs;
	}
	off[n] = total;
	/* ord[off[q] + i]: q's receive indices by (peer, index) */
	ord = malloc((total ? total : 1) * sizeof(*ord));
	key = malloc((max_recvs ? max_recvs : 1) * sizeof(*key));
	if (!ord || !key)
		goto out;
	for (uint32_t q = 0; q < n; q++) {
		const struct rank *rq = &c->r[q];

		for (uint32_t j = 0; j < rq->n_recvs; j++)
			key[j] = (uint64_t)rq->recvs[j].peer << 32 | j;
		qsort(key, rq->n_recvs, sizeof(*key), cmp_u64);
		for (uint32_t j = 0; j < rq->n_recvs; j++)
			ord[off[q] + j] = (uint32_t)key[j];
	}
	for (uint32_t r = 0; r < n; r++) {
		struct rank *rk = &c->r[r];

		rk->send_rstep = calloc(rk->n_sends + 1, sizeof(uint32_t));
		if (!rk->send_rstep)
			goto out;
		for (uint32_t i = 0; i < rk->n_sends; i++) {
			uint32_t q = rk->sends[i].peer, k = cnt[q]++;
			const struct rank *rq = &c->r[q];
			size_t x = first_from(rq, ord, off[q], off[q + 1], r) + k;

			if (x >= off[q + 1] || rq->recvs[ord[x]].peer != r) {
				err = -EINVAL; /* a program bug: a write nobody expects */
				goto out;
			}
			rk->send_rstep[i] = rq->recvs[ord[x]].step;
		}
		for (uint32_t i = 0; i < rk->n_sends; i++)
			cnt[rk->sends[i].peer] = 0;
	}
	err = 0;
out:
	free(off);
	free(cnt);
	free(ord);
	free(key);
	return err;
}

/*
 * Every endpoint's peers: the endpoints its sends go to, each once, in the order of its
 * first send to them (steps in order, a step's sends in posting order), from the program
 * the build_* functions made (mrc_coll_peers).
 */
static int find_peers(struct mrc_coll *c)
{
	uint32_t *seen = calloc(c->n_ep, sizeof(*seen)); /* r + 1: a peer of r already */

	if (!seen)
		return -ENOMEM;
	for (uint32_t r = 0; r < c->n_ep; r++) {
		struct rank *rk = &c->r[r];

		rk->peers = calloc(rk->n_sends + 1, sizeof(*rk->peers));
		if (!rk->peers) {
			free(seen);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < rk->n_sends; i++) {
			uint32_t q = rk->sends[i].peer;

			if (seen[q] != r + 1) {
				seen[q] = r + 1;
				rk->peers[rk->n_peers++] = q;
			}
		}
	}
	free(seen);
	return 0;
}

/* Group rank -> endpoint and back, from params.members: each below params.endpoints, once. */
static int map_members(struct mrc_coll *c)
{
	c->ep_of = malloc(c->p.nranks * sizeof(*c->ep_of));
	c->grp_of = malloc(c->n_ep * sizeof(*c->grp_of));
	if (!c->ep_of || !c->grp_of)
		return -ENOMEM;
	memset(c->grp_of, 0xff, c->n_ep * sizeof(*c->grp_of));
	for (uint32_t g = 0; g < c->p.nranks; g++) {
		uint32_t e = c->p.members[g];

		if (e >= c->n_ep || c->grp_of[e] != UINT32_MAX)
			return -EINVAL;
		c->ep_of[g] = e;
		c->grp_of[e] = g;
	}
	c->p.members = NULL; /* the caller's array is not kept */
	return 0;
}

/* ---- DESC: setup ---------------------------------------------------------------------- */

/* Adds the offsets @a and @a + @len to @b (room was made for them). */
static void bound_add(uint64_t *b, size_t *n, uint64_t a, uint64_t len)
{
	b[(*n)++] = a;
	b[(*n)++] = a + len;
}

/* The last index i < @n with @a[i] <= @x in the ascending @a (0 when there is none). */
static uint32_t last_le(const uint64_t *a, uint32_t n, uint64_t x)
{
	uint32_t lo = 0, hi = n;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (a[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Whether an offset of the ascending @b[0, @n), @b[0] = 0, lies strictly inside
 * (@a, @a + @len). */
static bool bound_inside(const uint64_t *b, uint32_t n, uint64_t a, uint64_t len)
{
	uint32_t i = last_le(b, n, a) + 1; /* the first offset > a */

	return i < n && b[i] < a + len;
}

/*
 * The range a rank's output takes from its own input at the start of an iteration (see
 * start_copy): the whole vector where a tree sums into it and at a broadcast's root, its
 * own block (all-to-all, all-gather; gather and scatter at the root; all-to-all-v's block
 * to itself). False when there is none.
 */
static bool local_copy_of(const struct mrc_coll *c, uint32_t r, uint64_t *out_off,
	uint64_t *in_off, uint64_t *len)
{
	enum mrc_coll_pattern pat = c->p.pattern;
	uint32_t g = GRP(c, r), n = c->p.nranks;
	uint64_t B = c->p.count / n * c->es;

	*out_off = *in_off = 0;
	*len = 0;
	if ((c->p.algo == MRC_COLL_TREE && (pat == MRC_COLL_ALLREDUCE || pat == MRC_COLL_REDUCE)) ||
		(pat == MRC_COLL_BROADCAST && g == c->p.root)) {
		*len = c->p.count * c->es;
	} else if (pat == MRC_COLL_ALLGATHER || pat == MRC_COLL_ALLTOALL ||
		   ((pat == MRC_COLL_GATHER || pat == MRC_COLL_SCATTER) && g == c->p.root)) {
		*out_off = *in_off = g * B;
		*len = B;
	} else if (pat == MRC_COLL_ALLTOALLV) {
		*out_off = c->roff[g * n + g] * c->es;
		*in_off = c->soff[g * n + g] * c->es;
		*len = c->vcnt[g * n + g] * c->es;
	}
	return *len > 0;
}

static void grid_free(struct vgrid *g)
{
	if (!g)
		return;
	free(g->bound);
	free(g->first);
	free(g);
}

/*
 * The grid of rank @r's region @g: segments between the offsets where its program's
 * writes into it, reads from it (sends) and reductions start and end. A program whose
 * ranges overlap without sharing their ends cannot be cut so (-EINVAL): the programs
 * here never do. Shares the previous rank's grid when equal (every rank of a ring or an
 * all-to-all has the same). Returns 0, -EINVAL or -ENOMEM.
 */
static int grid_build(struct mrc_coll *c, uint32_t r, int g)
{
	struct rank *rk = &c->r[r];
	size_t cap = 2 * ((size_t)rk->n_recvs * 2 + rk->n_sends) + 4, n = 0, u = 0;
	uint64_t *b = malloc(cap * sizeof(*b)), G = c->p.granule;
	struct vgrid *vg = calloc(1, sizeof(*vg)), **ng;
	int err = -ENOMEM;

	if (!b || !vg)
		goto fail;
	bound_add(b, &n, 0, rk->len[g]);
	for (uint32_t i = 0; i < rk->n_recvs; i++) {
		const struct recv *rv = &rk->recvs[i];

		if (g == MRC_REG_OUTPUT)
			bound_add(b, &n, rv->off, rv->len);
		if (g == MRC_REG_SCRATCH && rv->red == RED_OUT_SCR)
			bound_add(b, &n, rv->scr_off, rv->len);
	}
	for (uint32_t i = 0; i < rk->n_sends; i++)
		if (rk->sends[i].src_reg == g)
			bound_add(b, &n, rk->sends[i].src_off, rk->sends[i].len);
	if (g == MRC_REG_OUTPUT) { /* the range copied from the input at start */
		uint64_t oo, io, ol;

		if (local_copy_of(c, r, &oo, &io, &ol))
			bound_add(b, &n, oo, ol);
	}
	qsort(b, n, sizeof(*b), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || b[i] != b[u - 1])
			b[u++] = b[i];
	vg->nseg = (uint32_t)u - 1;
	vg->bound = b;
	b = NULL;
	vg->first = malloc(u * sizeof(*vg->first));
	if (!vg->first)
		goto fail;
	err = -EINVAL;
	for (uint32_t i = 0; i < rk->n_recvs; i++) {
		const struct recv *rv = &rk->recvs[i];

		if (g == MRC_REG_OUTPUT && bound_inside(vg->bound, (uint32_t)u, rv->off, rv->len))
			goto fail;
		if (g == MRC_REG_SCRATCH && rv->red == RED_OUT_SCR &&
			bound_inside(vg->bound, (uint32_t)u, rv->scr_off, rv->len))
			goto fail;
	}
	for (uint32_t i = 0; i < rk->n_sends; i++)
		if (rk->sends[i].src_reg == g && bound_inside(vg->bound, (uint32_t)u,
							 rk->sends[i].src_off, rk->sends[i].len))
			goto fail;
	vg->first[0] = 0;
	for (uint32_t s = 0; s < vg->nseg; s++)
		vg->first[s + 1] = vg->first[s] + (vg->bound[s + 1] - vg->bound[s] + G - 1) / G;
	if (r && c->r[r - 1].vg[g] && c->r[r - 1].vg[g]->nseg == vg->nseg &&
		!memcmp(c->r[r - 1].vg[g]->bound, vg->bound, u * sizeof(*vg->bound))) {
		rk->vg[g] = c->r[r - 1].vg[g];
		grid_free(vg);
		return 0;
	}
	err = -ENOMEM;
	ng = realloc(c->grids, (c->n_grids + 1) * sizeof(*ng));
	if (!ng)
		goto fail;
	c->grids = ng;
	c->grids[c->n_grids++] = vg;
	rk->vg[g] = vg;
	return 0;
fail:
	free(b);
	grid_free(vg);
	return err;
}

/*
 * The descriptors of every rank's output and scratch, the ranks' keyed hashes (the
 * job's seed is the key) and the reserved range whose addresses name sources. Returns 0,
 * -EINVAL (granule 0, a program grid_build refuses) or -ENOMEM.
 */
static int desc_setup(struct mrc_coll *c)
{
	uint32_t n = c->p.nranks;
	size_t at = 0;
	int err;

	/* a descriptor's position has 40 bits, its count 22 */
	if (!c->p.granule || c->bytes > VD_POS || n > VD_CNT_MAX)
		return -EINVAL;
	c->hpre = malloc(((size_t)n + 1) * sizeof(*c->hpre));
	c->voff = malloc(((size_t)n + 1) * sizeof(*c->voff));
	if (!c->hpre || !c->voff)
		return -ENOMEM;
	/* a multiply for the division by the granule: exact below 2^64 / granule */
	c->gmagic = c->p.granule > 1 ? UINT64_MAX / c->p.granule + 1 : 0;
	c->hiter = UINT32_MAX;
	c->voff[0] = 0;
	/* alike ranks get a power-of-two stride: a shift finds a source's rank */
	c->vshift = 12;
	while ((1ull << c->vshift) < c->r[0].len[MRC_REG_INPUT] + c->r[0].len[MRC_REG_OUTPUT])
		c->vshift++;
	for (uint32_t r = 0; r < n; r++) {
		uint64_t len = c->r[r].len[MRC_REG_INPUT] + c->r[r].len[MRC_REG_OUTPUT];

		if (len != c->r[0].len[MRC_REG_INPUT] + c->r[0].len[MRC_REG_OUTPUT])
			c->vshift = 0;
	}
	for (uint32_t r = 0; r < n; r++)
		c->voff[r + 1] = c->vshift ? (uint64_t)(r + 1) << c->vshift :
			c->voff[r] + c->r[r].len[MRC_REG_INPUT] + c->r[r].len[MRC_REG_OUTPUT];
	c->vlen = c->voff[n];
	/* address space only: no page is ever touched, nor counted against memory */
	c->vbase = mmap(NULL, c->vlen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		-1, 0);
	if (c->vbase == MAP_FAILED) {
		c->vbase = NULL;
		return -ENOMEM;
	}
	/* every rank's, the local ones' or not: a process running some ranks of one
	 * simulation (MPI ranks) keeps copies of the others', which their packets' tokens
	 * update (mrc_coll_src_desc_put); DESC is the simulator's alone */
	for (uint32_t r = 0; r < n; r++) {
		struct rank *rk = &c->r[r];

		for (int g = MRC_REG_OUTPUT; g < MRC_REG_N; g++) {
			if (!rk->len[g])
				continue;
			err = grid_build(c, r, g);
			if (err)
				return err;
			c->varena_len += (rk->vg[g]->first[rk->vg[g]->nseg] + 1) *
					 sizeof(struct vdesc);
		}
	}
	/*
	 * One mapping for all, in huge pages where the kernel has them: a packet's placement
	 * reads a granule of one rank and writes one of another, anywhere in the job's
	 * descriptors (256 MiB for 1024 ranks of 64 MiB): with 4 KiB pages nearly every
	 * placement also missed the TLB.
	 */
	c->varena_len = (c->varena_len + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	c->varena = mmap(NULL, c->varena_len, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->varena == MAP_FAILED) {
		c->varena = NULL;
		return -ENOMEM;
	}
#ifdef MADV_HUGEPAGE
	madvise(c->varena, c->varena_len, MADV_HUGEPAGE); /* a hint: 4 KiB pages work too */
#endif
	for (uint32_t r = 0; r < n; r++) {
		struct rank *rk = &c->r[r];

		for (int g = MRC_REG_OUTPUT; g < MRC_REG_N; g++) {
			if (!rk->vg[g])
				continue;
			rk->vd[g] = (struct vdesc *)c->varena + at;
			at += rk->vg[g]->first[rk->vg[g]->nseg] + 1;
		}
	}
	return 0;
}

/* The source address ops->post gets for byte @off of @r's region @reg. */
static const uint8_t *src_of(const struct mrc_coll *c, uint32_t r, int reg, uint64_t off)
{
	const struct rank *rk = &c->r[r];

	if (rk->buf[reg])
		return rk->buf[reg] + off;
	if (!c->vbase || reg == MRC_REG_SCRATCH) /* a scratch is never a source */
		return NULL;
	return c->vbase + c->voff[r] + (reg == MRC_REG_OUTPUT ? rk->len[MRC_REG_INPUT] : 0) + off;
}

int mrc_coll_new(const struct mrc_coll_params *p, const struct mrc_coll_ops *ops, void *ctx,
	struct mrc_coll **out)
{
	struct mrc_coll *c;
	enum mrc_coll_pattern pat = p->pattern;
	bool a2a = pat == MRC_COLL_ALLTOALL;
	bool p2p = pat == MRC_COLL_WRITE_BW || pat == MRC_COLL_WRITE_LAT;
	bool ring_tree = pat == MRC_COLL_ALLREDUCE || pat == MRC_COLL_BROADCAST ||
			 pat == MRC_COLL_REDUCE;
	bool par_shift = a2a || pat == MRC_COLL_ALLTOALLV;
	int err = 0;

	if (p->nranks < 2 || !p->count || p->root >= p->nranks ||
		(unsigned)pat > MRC_COLL_SCATTER || (p2p && p->nranks % 2) ||
		(pat == MRC_COLL_WRITE_BW && !p->messages) ||
		(ring_tree && p->algo != MRC_COLL_RING && p->algo != MRC_COLL_TREE) ||
		(par_shift && p->algo != MRC_COLL_PARALLEL && p->algo != MRC_COLL_SHIFT) ||
		(par_shift && !p->counts && p->count < p->nranks) ||
		(mrc_coll_blocked(pat) && p->count % p->nranks) ||
		(p->verify == MRC_VERIFY_DESC && !mrc_coll_desc_ok(pat, p->members != NULL)) ||
		(unsigned)p->dtype > MRC_DT_FLOAT64)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->id = atomic_fetch_add(&coll_ids, 1) + 1;
	c->p = *p;
	c->ops = *ops;
	c->ctx = ctx;
	c->es = mrc_dtype_size(p->dtype);
	c->local_all = !p->local;
	if (!c->p.input)
		c->p.input = mrc_coll_input;
	c->bytes = a2a ? p->count / p->nranks * p->nranks * c->es : p->count * c->es;
	if (p->pattern == MRC_COLL_WRITE_BW)
		c->bytes *= p->messages;
	c->n_ep = p->members ? p->endpoints : p->nranks;
	c->r = calloc(c->n_ep, sizeof(*c->r));
	if (!c->r) {
		free(c);
		return -ENOMEM;
	}
	if (p->members)
		err = map_members(c);
	if (p->pattern == MRC_COLL_SENDRECV)
		err = err ?: make_perm(c);
	if (p->pattern == MRC_COLL_ALLTOALLV)
		err = err ?: make_v(c);
	for (uint32_t r = 0; r < p->nranks && !err; r++) {
		struct rank *rk = RK(c, r);

		rk->len[MRC_REG_INPUT] = rk->len[MRC_REG_OUTPUT] = p2p ? p->count * c->es : c->bytes;
		switch (p->pattern) {
		case MRC_COLL_ALLREDUCE:
			err = p->algo == MRC_COLL_RING ? build_ring(c, r, 0, true, true) :
							 build_tree(c, r, true, true);
			break;
		case MRC_COLL_ALLGATHER:
			err = build_ring(c, r, p->nranks - 1, false, true);
			break;
		case MRC_COLL_REDUCESCATTER:
			err = build_ring(c, r, p->nranks - 1, true, false);
			break;
		case MRC_COLL_BROADCAST:
		case MRC_COLL_REDUCE:
			if (p->algo == MRC_COLL_TREE)
				err = build_tree(c, r, pat == MRC_COLL_REDUCE,
					pat == MRC_COLL_BROADCAST);
			else
				err = build_chain(c, r, pat == MRC_COLL_REDUCE);
			break;
		case MRC_COLL_ALLTOALLV:
			err = build_alltoallv(c, r);
			break;
		case MRC_COLL_GATHER:
		case MRC_COLL_SCATTER:
			err = build_rooted(c, r, pat == MRC_COLL_GATHER);
			break;
		case MRC_COLL_ALLTOALL:
			err = build_alltoall(c, r);
			break;
		case MRC_COLL_SENDRECV:
			err = build_sendrecv(c, r);
			break;
		case MRC_COLL_INCAST:
			err = build_incast(c, r);
			break;
		case MRC_COLL_WRITE_BW:
			err = build_write_bw(c, r);
			break;
		case MRC_COLL_WRITE_LAT:
			err = build_write_lat(c, r);
			break;
		}
	}
	err = err ?: match_steps(c);
	err = err ?: find_peers(c);
	for (uint32_t r = 0; r < c->n_ep && !err; r++) {
		struct rank *rk = &c->r[r];

		if (!is_local(c, r))
			continue;
		rk->recv_got = calloc(rk->n_recvs + 1, 1);
		rk->send_got = calloc(rk->n_sends + 1, 1);
		rk->step_t0 = calloc(rk->n_steps + 1, sizeof(uint64_t));
		rk->step_t1 = calloc(rk->n_steps + 1, sizeof(uint64_t));
		if (p->depth)
			rk->post_t = calloc(rk->n_sends + 1, sizeof(uint64_t));
		if (!rk->recv_got || !rk->send_got || !rk->step_t0 || !rk->step_t1 ||
			(p->depth && !rk->post_t))
			err = -ENOMEM;
		for (int g = 0; g < MRC_REG_N && !err && p->verify == MRC_VERIFY_BYTES; g++) {
			if (!rk->len[g])
				continue;
			rk->buf[g] = region_alloc(rk->len[g]);
			if (!rk->buf[g])
				err = -ENOMEM;
		}
	}
	if (!err && p->verify == MRC_VERIFY_DESC)
		err = desc_setup(c);
	if (err) {
		mrc_coll_free(c);
		return err;
	}
	*out = c;
	return 0;
}

void mrc_coll_free(struct mrc_coll *c)
{
	if (!c)
		return;
	for (uint32_t r = 0; c->r && r < c->n_ep; r++) {
		struct rank *rk = &c->r[r];

		free(rk->steps);
		free(rk->sends);
		free(rk->recvs);
		free(rk->send_rstep);
		free(rk->peers);
		free(rk->recv_got);
		free(rk->send_got);
		free(rk->step_t0);
		free(rk->step_t1);
		free(rk->post_t);
		for (int g = 0; g < MRC_REG_N; g++)
			region_free(rk->buf[g], rk->len[g]);
	}
	for (uint32_t i = 0; i < c->n_grids; i++)
		grid_free(c->grids[i]);
	free(c->grids);
	if (c->vbase)
		munmap(c->vbase, c->vlen);
	if (c->varena)
		munmap(c->varena, c->varena_len);
	free(c->voff);
	free(c->hpre);
	free(c->r);
	free(c->ep_of);
	free(c->grp_of);
	free(c->perm_to);
	free(c->perm_from);
	free(c->vcnt);
	free(c->soff);
	free(c->roff);
	free(c);
}

uint64_t mrc_coll_bytes(const struct mrc_coll *c)
{
	return c->bytes;
}

uint32_t mrc_coll_npairs(const struct mrc_coll *c)
{
	bool p2p = c->p.pattern == MRC_COLL_WRITE_BW || c->p.pattern == MRC_COLL_WRITE_LAT;

	return p2p ? c->p.nranks / 2 : 0;
}

void mrc_coll_pair(const struct mrc_coll *c, uint32_t i, uint32_t *a, uint32_t *b)
{
	*a = EP(c, i);
	*b = EP(c, i + c->p.nranks / 2);
}

const uint32_t *mrc_coll_peers(const struct mrc_coll *c, uint32_t ep, uint32_t *n)
{
	*n = c->r[ep].n_peers;
	return c->r[ep].peers;
}

uint32_t mrc_coll_endpoints(const struct mrc_coll *c)
{
	return c->n_ep;
}

uint64_t mrc_coll_pair_bytes(const struct mrc_coll *c)
{
	return mrc_coll_npairs(c) ? c->bytes : 0;
}

void *mrc_coll_region(const struct mrc_coll *c, uint32_t rank, enum mrc_coll_region reg,
	uint64_t *len)
{
	*len = c->r[rank].len[reg];
	return c->r[rank].buf[reg];
}

void mrc_coll_set_va(struct mrc_coll *c, uint32_t rank, enum mrc_coll_region reg, uint64_t va)
{
	c->r[rank].va[reg] = va;
}

static double get_el(const struct mrc_coll *c, const uint8_t *p)
{
	float f;
	int32_t i;
	double d;

	switch (c->p.dtype) {
	case MRC_DT_FLOAT32:
		memcpy(&f, p, 4);
		return f;
	case MRC_DT_INT32:
		memcpy(&i, p, 4);
		return i;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

static void put_el(const struct mrc_coll *c, uint8_t *p, double v)
{
	float f = (float)v;
	int32_t i = (int32_t)v;

	switch (c->p.dtype) {
	case MRC_DT_FLOAT32:
		memcpy(p, &f, 4);
		break;
	case MRC_DT_INT32:
		memcpy(p, &i, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

#define REDUCE_LOOP(T)                                                                             \
	do {                                                                                       \
		T *o_ = (T *)(void *)(out + rv->off);                                              \
		const T *s_ = (const T *)(const void *)(rv->red == RED_IN_OUT ? in + rv->off       \
									   : scr + rv->scr_off); \
		const T *a_ = (const T *)(const void *)(out + rv->off);                            \
		for (uint64_t i_ = 0; i_ < n; i_++)                                                \
			o_[i_] = a_[i_] + s_[i_];                                                  \
	} while (0)

/* ---- DESC: descriptors at work ------------------------------------------------------ */

/* @x / p.granule, by a multiply (gmagic). */
static inline uint64_t gdiv(const struct mrc_coll *c, uint64_t x)
{
	return c->gmagic ? (uint64_t)((unsigned __int128)x * c->gmagic >> 64) : x;
}

/* The granule of @g holding byte @off (below the region's length), from segment *@hint
 * on (updated): its index; *@ga, *@gb its bytes. */
static inline uint64_t vg_find(const struct mrc_coll *c, const struct vgrid *g,
	uint32_t *hint, uint64_t off, uint64_t *ga, uint64_t *gb)
{
	uint32_t s = *hint;
	uint64_t k;

	if (__builtin_expect(s >= g->nseg || off < g->bound[s] || off >= g->bound[s + 1], 0))
		*hint = s = last_le(g->bound, g->nseg, off);
	k = gdiv(c, off - g->bound[s]);
	*ga = g->bound[s] + k * c->p.granule;
	*gb = *ga + c->p.granule < g->bound[s + 1] ? *ga + c->p.granule : g->bound[s + 1];
	return g->first[s] + k;
}

static inline uint64_t vd_pos(struct vdesc d)
{
	return d.pc & VD_POS;
}

static inline uint32_t vd_cnt(struct vdesc d)
{
	return (uint32_t)(d.pc >> 40) & VD_CNT_MAX;
}

static inline struct vdesc vd_exact(uint64_t pos, uint32_t cnt, uint32_t lo, uint32_t iter)
{
	return (struct vdesc){ .pc = pos | (uint64_t)cnt << 40 | VD_EXACT | VD_OK,
		.set = lo | (uint64_t)iter << 32 };
}

/* What rank @r's input holds from byte @pos on in the running iteration: its own data. */
static struct vdesc vd_input(const struct mrc_coll *c, uint32_t r, uint64_t pos)
{
	if (c->r[r].in_bad)
		return (struct vdesc){0};
	return vd_exact(pos, 1, r, c->iter);
}

/* The ranks' hashes for iteration @iter: rank q's is the q-th draw of a generator seeded
 * by the job's seed and @iter. */
static void hash_rng(const struct mrc_coll *c, uint32_t iter, struct mrc_rng *rng)
{
	mrc_rng_seed(rng, c->p.seed ^ 0x7665726966794b31ull ^ (uint64_t)iter << 32);
}

/* The sum of the hashes of ranks 0..@k-1 keyed by @iter (prefix sums for c->hiter kept). */
static uint64_t hash_prefix(const struct mrc_coll *c, uint32_t iter, uint32_t k)
{
	struct mrc_rng rng;
	uint64_t s = 0;

	if (iter == c->hiter)
		return c->hpre[k];
	hash_rng(c, iter, &rng);
	while (k--)
		s += mrc_rng_next(&rng);
	return s;
}

/* Keys the ranks' hashes by iteration @iter (mrc_coll_start). */
static void hash_keys(struct mrc_coll *c, uint32_t iter)
{
	struct mrc_rng rng;

	hash_rng(c, iter, &rng);
	c->hpre[0] = 0;
	for (uint32_t q = 0; q < c->p.nranks; q++)
		c->hpre[q + 1] = c->hpre[q] + mrc_rng_next(&rng);
	c->hiter = iter;
}

/* Sum of the @iter-keyed hashes of the cyclic run of @cnt ranks from @lo (multiplicity
 * kept: a run longer than n counts ranks again). */
static uint64_t run_hash(const struct mrc_coll *c, uint64_t lo, uint64_t cnt, uint32_t iter)
{
	uint32_t n = c->p.nranks;
	uint64_t all = hash_prefix(c, iter, n), s = cnt / n * all, end = lo + cnt % n;

	if (end <= n)
		return s + hash_prefix(c, iter, (uint32_t)end) - hash_prefix(c, iter, (uint32_t)lo);
	return s + all - hash_prefix(c, iter, (uint32_t)lo) +
	       hash_prefix(c, iter, (uint32_t)(end - n));
}

static uint64_t vd_hash(const struct mrc_coll *c, struct vdesc d)
{
	return d.pc & VD_EXACT ? run_hash(c, (uint32_t)d.set, vd_cnt(d), (uint32_t)(d.set >> 32))
			       : d.set;
}

/*
 * The reduction a + b of two granules: the same bytes, their multisets added (two runs
 * of one iteration that meet end to start stay an exact run; anything else is kept by
 * count and hash sum, each part hashed by its own iteration, so parts of two iterations
 * match no iteration's). Bad operands, other bytes or exact runs of two iterations give
 * a bad granule.
 */
static struct vdesc vd_sum(const struct mrc_coll *c, struct vdesc a, struct vdesc b)
{
	uint32_t n = c->p.nranks, ca = vd_cnt(a), cb = vd_cnt(b);
	uint32_t la = (uint32_t)a.set, lb = (uint32_t)b.set, it = (uint32_t)(a.set >> 32);

	if (!(a.pc & b.pc & VD_OK) || vd_pos(a) != vd_pos(b) || ca + cb > VD_CNT_MAX)
		return (struct vdesc){0};
	if (a.pc & b.pc & VD_EXACT) {
		if (it != (uint32_t)(b.set >> 32))
			return (struct vdesc){0};
		if ((la + ca) % n == lb)
			return vd_exact(vd_pos(a), ca + cb, la, it);
		if ((lb + cb) % n == la)
			return vd_exact(vd_pos(a), ca + cb, lb, it);
	}
	return (struct vdesc){ .pc = vd_pos(a) | (uint64_t)(ca + cb) << 40 | VD_OK,
		.set = vd_hash(c, a) + vd_hash(c, b) };
}

/* Whether @d is the bytes from @pos on of iteration @iter summed over the run of @cnt
 * ranks from @lo, each once (the closed form a check expects). */
static bool vd_is(const struct mrc_coll *c, struct vdesc d, uint32_t iter, uint64_t pos,
	uint32_t lo, uint32_t cnt)
{
	if (!(d.pc & VD_OK) || vd_pos(d) != pos || vd_cnt(d) != cnt)
		return false;
	if (d.pc & VD_EXACT) /* a run of all n ranks is the whole set, from any rank */
		return (uint32_t)(d.set >> 32) == iter &&
		       (cnt == c->p.nranks || (uint32_t)d.set == lo);
	return d.set == run_hash(c, lo, cnt, iter);
}

bool mrc_coll_src_off(const struct mrc_coll *c, const void *src, uint64_t *off)
{
	uintptr_t b = (uintptr_t)c->vbase, p = (uintptr_t)src;

	if (!src || !c->vbase || p < b || p - b >= c->vlen)
		return false;
	*off = p - b;
	return true;
}

const void *mrc_coll_src_at(const struct mrc_coll *c, uint64_t off)
{
	return c->vbase && off < c->vlen ? c->vbase + off : NULL;
}

/* Which rank, region and offset the source address @src names, @len bytes of it inside
 * the region; false when it names none. */
static inline bool src_decode(const struct mrc_coll *c, const void *src, uint64_t len,
	uint32_t *r, int *reg, uint64_t *off)
{
	uint64_t x;
	uint32_t q;

	if (!mrc_coll_src_off(c, src, &x))
		return false;
	/* the last rank starting at or before x */
	q = c->vshift ? (uint32_t)(x >> c->vshift) : last_le(c->voff, c->p.nranks, x);
	x -= c->voff[q];
	*reg = MRC_REG_INPUT;
	if (x >= c->r[q].len[MRC_REG_INPUT]) {
		x -= c->r[q].len[MRC_REG_INPUT];
		*reg = MRC_REG_OUTPUT;
	}
	if (x > c->r[q].len[*reg] || len > c->r[q].len[*reg] - x) /* x: in a stride's gap */
		return false;
	*r = q;
	*off = x;
	return true;
}

/* What the @len source bytes at @src hold: one granule's (or a part of it), else bad.
 * Fills @vn's source side when they are an input's or a whole granule (else its svd and
 * slo..shi say nothing: shi 0). */
static inline struct vdesc src_desc(struct mrc_coll *c, const uint8_t *src, uint64_t len,
	struct vnext *vn)
{
	uint64_t off, ga, gb, gi;
	struct rank *rk;
	struct vdesc d;
	uint32_t q, hint;
	int reg;

	vn->shi = 0;
	if (!src_decode(c, src, len, &q, &reg, &off))
		return (struct vdesc){0};
	rk = &c->r[q];
	if (reg == MRC_REG_INPUT) {
		*vn = (struct vnext){ .srank = q, .shi = rk->len[reg], .sdelta = off };
		return vd_input(c, q, off);
	}
	if (!rk->vd[reg])
		return (struct vdesc){0};
	/* another rank's: its hint is read, never written (a parallel simulation runs that
	 * rank on another thread: docs/architecture.md "Parallel simulation") */
	hint = rk->vhint[reg];
	gi = vg_find(c, rk->vg[reg], &hint, off, &ga, &gb);
	if (off + len > gb)
		return (struct vdesc){0};
	d = rk->vd[reg][gi];
	if (d.pc & VD_OK)
		d.pc += off - ga; /* the part's position; pos + len never reaches 2^40 */
	if (off == ga && off + len == gb) { /* a whole granule: its segment's others too */
		const struct vgrid *g = rk->vg[reg];
		uint32_t s = hint;

		*vn = (struct vnext){ .svd = rk->vd[reg], .slo = g->bound[s],
			.shi = g->bound[s + 1], .sfirst = g->first[s], .sdelta = off };
	}
	return d;
}

/* The descriptor of the granule of an output or scratch region that @len bytes at @src
 * lie in, NULL when there is none. */
static struct vdesc *src_granule(const struct mrc_coll *c, const void *src, uint64_t len)
{
	uint64_t off, ga, gb, gi;
	const struct rank *rk;
	uint32_t q, hint;
	int reg;

	if (c->p.verify != MRC_VERIFY_DESC || !src_decode(c, src, len, &q, &reg, &off) ||
		reg == MRC_REG_INPUT)
		return NULL;
	rk = &c->r[q];
	if (!rk->vd[reg])
		return NULL;
	hint = rk->vhint[reg]; /* read, never written, as in src_desc */
	gi = vg_find(c, rk->vg[reg], &hint, off, &ga, &gb);
	return off + len <= gb ? &rk->vd[reg][gi] : NULL;
}

bool mrc_coll_src_desc_get(const struct mrc_coll *c, const void *src, uint64_t len,
	uint8_t out[16])
{
	const struct vdesc *d = src_granule(c, src, len);

	if (d)
		memcpy(out, d, sizeof(*d));
	return d != NULL;
}

bool mrc_coll_src_desc_put(struct mrc_coll *c, const void *src, uint64_t len,
	const uint8_t in[16])
{
	struct vdesc *d = src_granule(c, src, len);

	if (d)
		memcpy(d, in, sizeof(*d));
	return d != NULL;
}

/* A granule index and whether @rel (an offset in a segment) starts granule *@k. */
static inline bool granule_at(const struct mrc_coll *c, uint64_t rel, uint64_t *k)
{
	*k = gdiv(c, rel);
	return *k * c->p.granule == rel;
}

/* A packet of the write @rk's output last took one of (@len bytes at @off from @src):
 * placed, and true, when it covers one whole granule on both sides. */
static inline bool place_same(struct mrc_coll *c, struct rank *rk, uint64_t off,
	const uint8_t *src, uint64_t len)
{
	const struct vnext *vn = &rk->vn;
	uint64_t G = c->p.granule, k, sk = 0, soff = off + vn->sdelta;
	struct vdesc *o = rk->vd[MRC_REG_OUTPUT];

	if (!vn->delta || (uintptr_t)src - off != vn->delta || off < vn->dlo || off >= vn->dhi ||
		!granule_at(c, off - vn->dlo, &k) ||
		len != (G < vn->dhi - off ? G : vn->dhi - off) || soff < vn->slo ||
		soff >= vn->shi || len > vn->shi - soff)
		return false;
	if (vn->svd && (!granule_at(c, soff - vn->slo, &sk) || (len != G && soff + len != vn->shi)))
		return false;
	o[vn->dfirst + k] = vn->svd ? vn->svd[vn->sfirst + sk] : vd_input(c, vn->srank, soff);
	/* the next packet's granules, fetched while the fabric carries it */
	__builtin_prefetch(&o[vn->dfirst + k + 1], 1);
	if (vn->svd)
		__builtin_prefetch(&vn->svd[vn->sfirst + sk + 1]);
	return true;
}

/* mrc_coll_place of any packet but one place_same places. */
static __attribute__((noinline)) void place_any(struct mrc_coll *c, struct rank *rk,
	enum mrc_coll_region reg, uint64_t off, const void *src, uint64_t len)
{
	if (reg == MRC_REG_INPUT) { /* never written by a program: its data is now unknown */
		rk->in_bad = true;
		return;
	}
	if (!rk->vd[reg] || off >= rk->len[reg])
		return;
	if (len > rk->len[reg] - off)
		len = rk->len[reg] - off;
	for (uint64_t x = off, ga, gb; x < off + len; x = gb) {
		uint64_t gi = vg_find(c, rk->vg[reg], &rk->vhint[reg], x, &ga, &gb);
		const struct vgrid *g = rk->vg[reg];
		uint32_t s = rk->vhint[reg];
		struct vnext vn;

		if (x != ga || gb > off + len) { /* a torn granule */
			rk->vd[reg][gi] = (struct vdesc){0};
			continue;
		}
		rk->vd[reg][gi] = src_desc(c, src ? (const uint8_t *)src + (ga - off) : NULL,
			gb - ga, &vn);
		if (reg != MRC_REG_OUTPUT || !vn.shi)
			continue;
		/* this write's other packets: source = destination offset + delta */
		vn.delta = (uintptr_t)src - off;
		vn.sdelta -= ga;
		vn.dlo = g->bound[s];
		vn.dhi = g->bound[s + 1];
		vn.dfirst = g->first[s];
		rk->vn = vn;
	}
}

void mrc_coll_place(struct mrc_coll *c, uint32_t r, enum mrc_coll_region reg, uint64_t off,
	const void *src, uint64_t len)
{
	struct rank *rk;

	if (c->p.verify != MRC_VERIFY_DESC || r >= c->p.nranks || (unsigned)reg >= MRC_REG_N)
		return;
	rk = &c->r[r];
	if (reg != MRC_REG_OUTPUT || !place_same(c, rk, off, src, len))
		place_any(c, rk, reg, off, src, len);
}

/* reduce() on descriptors: every output granule of the receive summed with the input's
 * (ring) or the scratch slot's (tree) granule at the same place. */
static void reduce_desc(struct mrc_coll *c, struct rank *rk, const struct recv *rv)
{
	uint32_t r = (uint32_t)(rk - c->r);
	struct vdesc *o = rk->vd[MRC_REG_OUTPUT];

	for (uint64_t x = rv->off, ga, gb; x < rv->off + rv->len; x = gb) {
		uint64_t gi = vg_find(c, rk->vg[MRC_REG_OUTPUT], &rk->vhint[MRC_REG_OUTPUT], x, &ga,
			&gb);
		uint64_t sx = rv->scr_off + (ga - rv->off), sa, sb, si;

		if (rv->red == RED_IN_OUT) {
			o[gi] = vd_sum(c, o[gi], vd_input(c, r, ga));
			continue;
		}
		si = vg_find(c, rk->vg[MRC_REG_SCRATCH], &rk->vhint[MRC_REG_SCRATCH], sx, &sa, &sb);
		o[gi] = sa == sx && sb - sa == gb - ga
				? vd_sum(c, o[gi], rk->vd[MRC_REG_SCRATCH][si])
				: (struct vdesc){0};
	}
}

/* The @len bytes granule part @d holds (from its pos on) into @out: the dtype's bytes of
 * the sums over its run of ranks; zeros for a bad granule or an inexact multiset. */
static void gen_bytes(struct mrc_coll *c, struct vdesc d, uint8_t *out, uint64_t len)
{
	uint32_t n = c->p.nranks, cnt = vd_cnt(d), lo = (uint32_t)d.set;
	uint32_t it = (uint32_t)(d.set >> 32);
	uint64_t e = vd_pos(d) / c->es, skip = vd_pos(d) % c->es, period = 61 * c->es;

	if (!(d.pc & VD_OK) || !(d.pc & VD_EXACT)) {
		memset(out, 0, len);
		return;
	}
	if (c->p.input != mrc_coll_input) { /* element by element */
		for (uint64_t i = 0; i < len; e++) {
			uint64_t m = c->es - skip < len - i ? c->es - skip : len - i;
			uint8_t el[8];
			double s = 0;

			for (uint32_t q = 0; q < cnt; q++)
				s += c->p.input((lo + q) % n, e, it);
			put_el(c, el, s);
			memcpy(out + i, el + skip, m);
			i += m;
			skip = 0;
		}
		return;
	}
	if (!(coll_gen.ok && coll_gen.c == c && coll_gen.id == c->id && coll_gen.lo == lo &&
		    coll_gen.cnt == cnt && coll_gen.iter == it)) {
		for (unsigned k = 0; k < 61; k++) { /* the sums have period 61 in the element */
			double v = 0;

			for (uint32_t q = 0; q < cnt; q++)
				v += mrc_coll_input((lo + q) % n, k, it);
			put_el(c, coll_gen.pat + k * c->es, v);
		}
		memcpy(coll_gen.pat + period, coll_gen.pat, period);
		coll_gen.ok = true;
		coll_gen.c = c;
		coll_gen.id = c->id;
		coll_gen.lo = lo;
		coll_gen.cnt = cnt;
		coll_gen.iter = it;
	}
	/* a period at a time from this phase of the doubled pattern */
	for (uint64_t i = 0, at = e % 61 * c->es + skip; i < len; i += period)
		memcpy(out + i, coll_gen.pat + at, len - i < period ? len - i : period);
}

int mrc_coll_payload(struct mrc_coll *c, const void *src, uint32_t len, uint8_t *out)
{
	uint64_t off;
	struct rank *rk;
	uint32_t q, hint;
	int reg;

	if (c->p.verify != MRC_VERIFY_DESC || !src_decode(c, src, len, &q, &reg, &off)) {
		memset(out, 0, len);
		return -ENOENT;
	}
	if (reg == MRC_REG_INPUT) {
		gen_bytes(c, vd_input(c, q, off), out, len);
		return 0;
	}
	rk = &c->r[q];
	hint = rk->vhint[reg]; /* another rank's: read, never written (as in src_desc) */
	for (uint64_t x = off, ga, gb, end; x < off + len; x = end) {
		uint64_t gi = vg_find(c, rk->vg[reg], &hint, x, &ga, &gb);
		struct vdesc d = rk->vd[reg][gi];

		end = gb < off + len ? gb : off + len;
		if (d.pc & VD_OK)
			d.pc += x - ga;
		gen_bytes(c, d, out + (x - off), end - x);
	}
	return 0;
}

/* mrc_coll_verify on descriptors: every output granule against the closed form; the
 * elements of a wrong one counted once (a granule may end inside an element). */
static uint64_t verify_desc(const struct mrc_coll *c, uint32_t r, uint32_t iter)
{
	const struct rank *rk = &c->r[r];
	const struct vgrid *g = rk->vg[MRC_REG_OUTPUT];
	uint32_t n = c->p.nranks;
	uint64_t B = c->p.count / n * c->es, S = c->p.count * c->es, G = c->p.granule;
	uint64_t wrong = 0, next = 0; /* the first element not yet counted */

	enum mrc_coll_pattern pat = c->p.pattern;
	uint32_t h = n / 2, peer = r < h ? r + h : r - h;

	if (!g || ((pat == MRC_COLL_INCAST || pat == MRC_COLL_REDUCE || pat == MRC_COLL_GATHER) &&
			  r != c->p.root) ||
		(pat == MRC_COLL_WRITE_BW && !c->p.bidir && r < h))
		return 0;
	for (uint32_t s = 0; s < g->nseg; s++) {
		uint64_t gi = g->first[s];

		for (uint64_t ga = g->bound[s]; ga < g->bound[s + 1]; ga += G, gi++) {
			uint64_t gb = ga + G < g->bound[s + 1] ? ga + G : g->bound[s + 1];
			uint64_t pos = ga, lo, hi;
			uint32_t from = 0, cnt = n;

			switch (c->p.pattern) {
			case MRC_COLL_ALLTOALL: /* block q holds q's input for r */
				from = (uint32_t)(ga / B);
				pos = r * B + ga - from * B;
				cnt = 1;
				break;
			case MRC_COLL_SENDRECV:
				from = c->perm_from[r];
				cnt = 1;
				break;
			case MRC_COLL_INCAST: /* block q holds q's input; the root's is not sent */
				from = (uint32_t)(ga / S);
				pos = ga - from * S;
				cnt = 1;
				if (from == r)
					continue;
				break;
			case MRC_COLL_ALLREDUCE:
			case MRC_COLL_REDUCE:
				break;
			case MRC_COLL_REDUCESCATTER: /* block r only */
				if (ga / B != r)
					continue;
				break;
			case MRC_COLL_ALLGATHER: /* block q is rank q's, from its input's block q */
			case MRC_COLL_GATHER:
				from = (uint32_t)(ga / B);
				cnt = 1;
				break;
			case MRC_COLL_SCATTER: /* block r, from the root's input */
				if (ga / B != r)
					continue;
				from = c->p.root;
				cnt = 1;
				break;
			case MRC_COLL_BROADCAST:
				from = c->p.root;
				cnt = 1;
				break;
			case MRC_COLL_WRITE_BW:
			case MRC_COLL_WRITE_LAT:
				from = peer;
				cnt = 1;
				break;
			case MRC_COLL_ALLTOALLV: { /* the block from q, at its place in q's input */
				uint64_t *ro = c->roff + (size_t)r * n;

				from = last_le(ro, n, ga / c->es);
				pos = (c->soff[(size_t)from * n + r] + (ga / c->es - ro[from])) * c->es +
				      ga % c->es;
				cnt = 1;
				break;
			}
			}
			if (vd_is(c, rk->vd[MRC_REG_OUTPUT][gi], iter, pos, from, cnt))
				continue;
			lo = ga / c->es > next ? ga / c->es : next;
			hi = (gb + c->es - 1) / c->es;
			if (hi > lo) {
				wrong += hi - lo;
				next = hi;
			}
		}
	}
	return wrong;
}

/* Element-wise sum into the output; buffers are malloc'd and offsets are element
 * multiples, so the typed accesses are aligned. */
static void reduce(struct mrc_coll *c, struct rank *rk, const struct recv *rv)
{
	uint8_t *out = rk->buf[MRC_REG_OUTPUT], *in = rk->buf[MRC_REG_INPUT];
	uint8_t *scr = rk->buf[MRC_REG_SCRATCH];
	uint64_t n = rv->len / c->es;

	if (rv->red != RED_NONE && rk->vd[MRC_REG_OUTPUT])
		reduce_desc(c, rk, rv);
	if (!out || rv->red == RED_NONE)
		return;
	switch (c->p.dtype) {
	case MRC_DT_FLOAT32:
		REDUCE_LOOP(float);
		break;
	case MRC_DT_INT32:
		REDUCE_LOOP(int32_t);
		break;
	case MRC_DT_FLOAT64:
		REDUCE_LOOP(double);
		break;
	}
}

/*
 * The default pattern repeats with period 61 in the element index (13 is invertible mod
 * 61), so a rank's input is a walk through a 61-entry table: no division per element.
 */
static void fill_input(const struct mrc_coll *c, uint32_t r, uint32_t iter)
{
	uint8_t *in = c->r[r].buf[MRC_REG_INPUT];
	uint64_t n = c->r[r].len[MRC_REG_INPUT] / c->es;

	if (c->p.input != mrc_coll_input) {
		for (uint64_t i = 0; i < n; i++)
			put_el(c, in + i * c->es, c->p.input(GRP(c, r), i, iter));
		return;
	}
	uint8_t tab[61][8];

	for (unsigned j = 0; j < 61; j++)
		put_el(c, tab[j], mrc_coll_input(GRP(c, r), j, iter));
	/* one period, then copies of what is already there, doubling */
	uint64_t done = n < 61 ? n : 61, total = n * c->es;

	for (uint64_t i = 0; i < done; i++)
		memcpy(in + i * c->es, tab[i], c->es);
	for (uint64_t have = done * c->es; have < total;) {
		uint64_t chunk = have / (61 * c->es) * (61 * c->es), m = total - have;

		if (m > chunk)
			m = chunk;
		memcpy(in + have, in, m);
		have += m;
	}
}

static uint32_t imm_of(uint32_t iter, uint32_t step)
{
	return (iter & 0xFF) << 24 | (step & 0xFFFFFF);
}

static int enter_step(struct mrc_coll *c, uint32_t r, uint64_t now);

/* Posts the current step's writes not yet posted, keeping at most `depth` in flight. */
static int post_more(struct mrc_coll *c, uint32_t r, uint64_t now)
{
	struct rank *rk = &c->r[r];

	while (rk->next_send < rk->send_end && (!c->p.depth || rk->in_flight < c->p.depth)) {
		uint32_t i = rk->next_send++;
		const struct mrc_coll_xfer *x = &rk->sends[i];
		const uint8_t *src = src_of(c, r, x->src_reg, x->src_off);
		uint64_t va = c->r[x->peer].va[x->dst_reg] + x->dst_off;
		int err;

		if (rk->post_t)
			rk->post_t[i] = now;
		rk->in_flight++;
		err = c->ops.post(c->ctx, r, x, src, va, imm_of(c->iter, rk->send_rstep[i]), i);
		if (err)
			return err;
	}
	return 0;
}

/* Advances @r past every step whose writes completed and whose data arrived. */
static int advance(struct mrc_coll *c, uint32_t r, uint64_t now)
{
	struct rank *rk = &c->r[r];

	while (!rk->done && rk->sends_left == 0 && rk->recvs_left == 0) {
		const struct step *st = &rk->steps[rk->cur];

		/* the step's partials are summed once all are in, in the program's order (a
		 * tree node: its own, then its children's subtrees by size), as an NCCL-style
		 * reduction kernel runs after its inputs: which of them landed first never
		 * matters, and a descriptor's ranks stay one run (docs/verification.md) */
		for (uint32_t i = st->first_recv; i < st->first_recv + st->n_recv; i++)
			reduce(c, rk, &rk->recvs[i]);
		rk->step_t1[rk->cur] = now;
		if (rk->cur + 1 == rk->n_steps) {
			rk->done = true;
			rk->t_done = now;
			return 0;
		}
		rk->cur++;
		int err = enter_step(c, r, now);

		if (err)
			return err;
	}
	return 0;
}

static int enter_step(struct mrc_coll *c, uint32_t r, uint64_t now)
{
	struct rank *rk = &c->r[r];
	const struct step *st = &rk->steps[rk->cur];

	rk->step_t0[rk->cur] = now;
	rk->sends_left = st->n_send;
	rk->recvs_left = st->n_recv;
	rk->recv_lo = st->first_recv;
	for (uint32_t i = st->first_recv; i < st->first_recv + st->n_recv; i++) {
		if (rk->recv_got[i]) /* landed before this rank got here */
			rk->recvs_left--;
	}
	rk->next_send = st->first_send;
	rk->send_end = st->first_send + st->n_send;
	return post_more(c, r, now);
}

/* A local copy of @len input bytes at @in_off into the output at @out_off: the bytes, or
 * (DESC) the input's descriptors. */
static void copy_local(struct mrc_coll *c, uint32_t r, uint64_t out_off, uint64_t in_off,
	uint64_t len)
{
	struct rank *rk = &c->r[r];

	if (rk->buf[MRC_REG_INPUT] && rk->buf[MRC_REG_OUTPUT])
		memcpy(rk->buf[MRC_REG_OUTPUT] + out_off, rk->buf[MRC_REG_INPUT] + in_off, len);
	if (!rk->vd[MRC_REG_OUTPUT])
		return;
	for (uint64_t x = out_off, ga, gb; x < out_off + len; x = gb) {
		uint64_t gi = vg_find(c, rk->vg[MRC_REG_OUTPUT], &rk->vhint[MRC_REG_OUTPUT], x, &ga,
			&gb);

		rk->vd[MRC_REG_OUTPUT][gi] = vd_input(c, r, in_off + (ga - out_off));
	}
}

/*
 * What a rank's output holds before any write of the iteration: the input where a tree
 * sums into it, and at a broadcast's root; its own block (all-gather, gather, scatter:
 * block g; all-to-all-v: the block to itself).
 */
static void start_copy(struct mrc_coll *c, uint32_t r)
{
	uint64_t oo, io, len;

	if (local_copy_of(c, r, &oo, &io, &len))
		copy_local(c, r, oo, io, len);
}

int mrc_coll_start(struct mrc_coll *c, uint32_t iter, uint64_t now_ps)
{
	c->iter = iter;
	c->t_start = now_ps;
	if (c->hpre)
		hash_keys(c, iter);
	for (uint32_t r = 0; r < c->n_ep; r++) {
		struct rank *rk = &c->r[r];

		if (!is_local(c, r))
			continue;
		if (rk->buf[MRC_REG_INPUT]) {
			fill_input(c, r, iter);
			/* Outputs are not cleared: every write of the iteration replaces or
			 * rebuilds what it covers, and the inputs change each iteration, so a write
			 * that never landed leaves the previous iteration's values, which verify
			 * counts as wrong (2 GiB of memset per quickstart iteration saved). */
		}
		rk->in_bad = false; /* refilled */
		start_copy(c, r);
		memset(rk->recv_got, 0, rk->n_recvs);
		memset(rk->send_got, 0, rk->n_sends);
		memset(rk->step_t0, 0, rk->n_steps * sizeof(uint64_t));
		memset(rk->step_t1, 0, rk->n_steps * sizeof(uint64_t));
		rk->cur = 0;
		rk->in_flight = 0;
		rk->done = false;
		rk->t_done = 0;
	}
	for (uint32_t r = 0; r < c->n_ep; r++) {
		int err;

		if (!is_local(c, r))
			continue;
		if (!c->r[r].n_steps) {
			c->r[r].done = true;
			c->r[r].t_done = now_ps;
			continue;
		}
		err = enter_step(c, r, now_ps);
		err = err ?: advance(c, r, now_ps);
		if (err)
			return err;
	}
	return 0;
}

int mrc_coll_on_send_done(struct mrc_coll *c, uint32_t rank, uint64_t wr_id, uint64_t now_ps)
{
	struct rank *rk = &c->r[rank];

	if (wr_id >= rk->n_sends || rk->send_got[wr_id])
		return -EPROTO;
	rk->send_got[wr_id] = 1;
	rk->sends_left--;
	rk->in_flight--;
	if (rk->sends_left && !rk->done) {
		int err = post_more(c, rank, now_ps);

		if (err)
			return err;
	}
	return advance(c, rank, now_ps);
}

int mrc_coll_on_recv(struct mrc_coll *c, uint32_t rank, uint32_t peer, uint32_t imm,
	uint64_t now_ps)
{
	struct rank *rk = &c->r[rank];
	uint32_t step = imm & 0xFFFFFF;

	if ((imm >> 24) != (c->iter & 0xFF) || step >= rk->n_steps)
		return -EPROTO;
	const struct step *st = &rk->steps[step];
	uint32_t i = st->first_recv;

	if (step == rk->cur && !rk->done) { /* skip the landed prefix (write_bw's thousands) */
		while (rk->recv_lo < st->first_recv + st->n_recv && rk->recv_got[rk->recv_lo])
			rk->recv_lo++;
		i = rk->recv_lo;
	}
	for (; i < st->first_recv + st->n_recv; i++) {
		if (rk->recvs[i].peer != peer || rk->recv_got[i])
			continue;
		rk->recv_got[i] = 1;
		if (step == rk->cur && !rk->done)
			rk->recvs_left--;
		return advance(c, rank, now_ps);
	}
	return -EPROTO;
}

bool mrc_coll_done(const struct mrc_coll *c)
{
	for (uint32_t r = 0; r < c->n_ep; r++) {
		if (is_local(c, r) && !c->r[r].done)
			return false;
	}
	return true;
}

uint64_t mrc_coll_rank_time(const struct mrc_coll *c, uint32_t rank)
{
	const struct rank *rk = &c->r[rank];

	return rk->done ? rk->t_done - c->t_start : 0;
}

uint64_t mrc_coll_posted_at(const struct mrc_coll *c, uint32_t rank, uint64_t wr_id)
{
	const struct rank *rk;

	if (rank >= c->n_ep)
		return UINT64_MAX;
	rk = &c->r[rank];
	if (wr_id >= rk->n_sends || !rk->step_t0)
		return UINT64_MAX;
	if (rk->post_t)
		return rk->post_t[wr_id];
	return rk->step_t0[rk->sends[wr_id].step];
}

uint32_t mrc_coll_steps(const struct mrc_coll *c, uint32_t rank)
{
	return c->r[rank].n_steps;
}

uint64_t mrc_coll_step_time(const struct mrc_coll *c, uint32_t rank, uint32_t s)
{
	const struct rank *rk = &c->r[rank];

	if (s >= rk->n_steps || !rk->step_t1 || !rk->step_t1[s])
		return 0;
	return rk->step_t1[s] - rk->step_t0[s];
}

#define VERIFY_LOOP(T)                                                                             \
	do {                                                                                       \
		const T *o_ = (const T *)(const void *)out;                                        \
		T w_[61];                                                                          \
		for (unsigned j_ = 0; j_ < 61; j_++)                                               \
			w_[j_] = (T)want[j_];                                                      \
		for (uint64_t i_ = 0, j_ = 0; i_ < count; i_++) {                                  \
			wrong += o_[i_] != w_[j_];                                                 \
			j_ = j_ + 1 == 61 ? 0 : j_ + 1;                                            \
		}                                                                                  \
	} while (0)

/* Counts elements of @out differing from the period-61 table @want, typed, by value. */
static uint64_t count_wrong(const struct mrc_coll *c, const uint8_t *out, uint64_t count,
	const double *want)
{
	uint64_t wrong = 0;

	switch (c->p.dtype) {
	case MRC_DT_FLOAT32:
		VERIFY_LOOP(float);
		break;
	case MRC_DT_INT32:
		VERIFY_LOOP(int32_t);
		break;
	case MRC_DT_FLOAT64:
		VERIFY_LOOP(double);
		break;
	}
	return wrong;
}

/*
 * The same count, fast: blocks of 64 periods are compared with memcmp against the table
 * laid out as the output should be, and only a block that differs is counted element by
 * element (by value, so -0 would equal +0; the expected values are never NaN).
 */
static uint64_t verify_periodic(const struct mrc_coll *c, const uint8_t *out, uint64_t count,
	const double *want)
{
	enum { BLOCK = 61 * 64 };
	uint8_t pat[BLOCK * 8];
	uint64_t wrong = 0;

	for (unsigned j = 0; j < BLOCK; j++)
		put_el(c, pat + (size_t)j * c->es, want[j % 61]);
	for (uint64_t i = 0; i < count; i += BLOCK) {
		uint64_t m = count - i < BLOCK ? count - i : BLOCK;
		const uint8_t *o = out + i * c->es;

		if (memcmp(o, pat, m * c->es))
			/* a block starts a period: i % 61 == 0 */
			wrong += count_wrong(c, o, m, want);
	}
	return wrong;
}

uint64_t mrc_coll_verify(const struct mrc_coll *c, uint32_t ep, uint32_t iter)
{
	const struct rank *rk = &c->r[ep];
	uint32_t r = GRP(c, ep);
	const uint8_t *out = rk->buf[MRC_REG_OUTPUT];
	uint32_t n = c->p.nranks;
	uint64_t wrong = 0, count = c->p.count;

	if (r == UINT32_MAX)
		return 0;
	if (c->p.verify == MRC_VERIFY_DESC)
		return verify_desc(c, r, iter);
	if (!out)
		return 0;
	switch (c->p.pattern) {
	case MRC_COLL_REDUCESCATTER: { /* block r summed */
		uint64_t B = count / n;

		for (uint64_t i = r * B; i < (r + 1) * B; i++) {
			double want = 0;

			for (uint32_t q = 0; q < n; q++)
				want += c->p.input(q, i, iter);
			wrong += get_el(c, out + i * c->es) != want;
		}
		break;
	}
	case MRC_COLL_ALLGATHER:
	case MRC_COLL_GATHER:
	case MRC_COLL_SCATTER: { /* block q is rank q's (the root's for a scatter) */
		uint64_t B = count / n;
		bool sc = c->p.pattern == MRC_COLL_SCATTER;

		if (c->p.pattern == MRC_COLL_GATHER && r != c->p.root)
			break;
		for (uint32_t q = sc ? r : 0; q < (sc ? r + 1 : n); q++) {
			for (uint64_t i = q * B; i < (q + 1) * B; i++)
				wrong += get_el(c, out + i * c->es) !=
					 c->p.input(sc ? c->p.root : q, i, iter);
		}
		break;
	}
	case MRC_COLL_BROADCAST:
		for (uint64_t i = 0; i < count; i++)
			wrong += get_el(c, out + i * c->es) != c->p.input(c->p.root, i, iter);
		break;
	case MRC_COLL_ALLTOALLV:
		for (uint32_t q = 0; q < n; q++) {
			for (uint64_t j = 0; j < c->vcnt[q * n + r]; j++)
				wrong += get_el(c, out + (c->roff[r * n + q] + j) * c->es) !=
					 c->p.input(q, c->soff[q * n + r] + j, iter);
		}
		break;
	case MRC_COLL_REDUCE:
	case MRC_COLL_ALLREDUCE: /* a reduce's root's output is an all-reduce's */
		if (c->p.pattern == MRC_COLL_REDUCE && r != c->p.root)
			break;
		if (c->p.input == mrc_coll_input) {
			/* the sum over ranks also has period 61 in i: expect from a table */
			double want[61];

			for (unsigned j = 0; j < 61; j++) {
				want[j] = 0;
				for (uint32_t q = 0; q < n; q++)
					want[j] += mrc_coll_input(q, j, iter);
			}
			wrong += verify_periodic(c, out, count, want);
			break;
		}
		for (uint64_t i = 0; i < count; i++) {
			double want = 0;

			for (uint32_t q = 0; q < n; q++)
				want += c->p.input(q, i, iter);
			wrong += get_el(c, out + i * c->es) != want;
		}
		break;
	case MRC_COLL_ALLTOALL: {
		uint64_t pc = count / n;

		for (uint32_t q = 0; q < n; q++) {
			for (uint64_t j = 0; j < pc; j++)
				wrong += get_el(c, out + (q * pc + j) * c->es) !=
					 c->p.input(q, r * pc + j, iter);
		}
		break;
	}
	case MRC_COLL_SENDRECV:
	case MRC_COLL_WRITE_BW:
	case MRC_COLL_WRITE_LAT: {
		uint32_t h = n / 2, from = c->p.pattern == MRC_COLL_SENDRECV ? c->perm_from[r] :
					   r < h ? r + h : r - h;

		/* write_bw one way: the initiator's output is never written */
		if (c->p.pattern == MRC_COLL_WRITE_BW && !c->p.bidir && r < h)
			break;
		for (uint64_t i = 0; i < count; i++)
			wrong += get_el(c, out + i * c->es) != c->p.input(from, i, iter);
		break;
	}
	case MRC_COLL_INCAST:
		if (r != c->p.root)
			break;
		for (uint32_t q = 0; q < n; q++) {
			for (uint64_t i = 0; q != r && i < count; i++)
				wrong += get_el(c, out + (q * count + i) * c->es) !=
					 c->p.input(q, i, iter);
		}
		break;
	}
	return wrong;
}
