/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * coll: collectives as per-rank step programs of RDMA writes. A rank enters step s+1 when
 * every write of step s has completed (so no source byte is rewritten while a
 * retransmission may still read it) and every write it expects in step s has landed.
 */
#include "mrc/job/coll.h"
#include "mrc/base/rng.h"

#include <errno.h>
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

struct rank {
	struct step *steps;
	struct mrc_coll_xfer *sends;
	struct recv *recvs;
	uint32_t *send_rstep; /* per send: the receiver's step that expects it */
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
};

struct mrc_coll {
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
};

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
		return (double)(n - 1) / n;
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
		(unsigned)p->dtype > MRC_DT_FLOAT64)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
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
		for (int g = 0; g < MRC_REG_N && !err && p->verify; g++) {
			if (!rk->len[g])
				continue;
			rk->buf[g] = region_alloc(rk->len[g]);
			if (!rk->buf[g])
				err = -ENOMEM;
		}
	}
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
		free(rk->recv_got);
		free(rk->send_got);
		free(rk->step_t0);
		free(rk->step_t1);
		free(rk->post_t);
		for (int g = 0; g < MRC_REG_N; g++)
			region_free(rk->buf[g], rk->len[g]);
	}
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

/* Element-wise sum into the output; buffers are malloc'd and offsets are element
 * multiples, so the typed accesses are aligned. */
static void reduce(struct mrc_coll *c, struct rank *rk, const struct recv *rv)
{
	uint8_t *out = rk->buf[MRC_REG_OUTPUT], *in = rk->buf[MRC_REG_INPUT];
	uint8_t *scr = rk->buf[MRC_REG_SCRATCH];
	uint64_t n = rv->len / c->es;

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
		const uint8_t *src = rk->buf[x->src_reg] ? rk->buf[x->src_reg] + x->src_off : NULL;
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

/*
 * What a rank's output holds before any write of the iteration: the input where a tree
 * sums into it, and at a broadcast's root; its own block (all-gather, gather, scatter:
 * block g; all-to-all-v: the block to itself).
 */
static void start_copy(struct mrc_coll *c, uint32_t r)
{
	struct rank *rk = &c->r[r];
	uint8_t *in = rk->buf[MRC_REG_INPUT], *out = rk->buf[MRC_REG_OUTPUT];
	enum mrc_coll_pattern pat = c->p.pattern;
	uint32_t g = GRP(c, r), n = c->p.nranks;
	uint64_t B = c->p.count / n * c->es;

	if ((c->p.algo == MRC_COLL_TREE && (pat == MRC_COLL_ALLREDUCE || pat == MRC_COLL_REDUCE)) ||
		(pat == MRC_COLL_BROADCAST && g == c->p.root))
		memcpy(out, in, c->p.count * c->es);
	if (pat == MRC_COLL_ALLGATHER || ((pat == MRC_COLL_GATHER || pat == MRC_COLL_SCATTER) &&
						 g == c->p.root))
		memcpy(out + g * B, in + g * B, B);
	if (pat == MRC_COLL_ALLTOALLV)
		memcpy(out + c->roff[g * n + g] * c->es, in + c->soff[g * n + g] * c->es,
			c->vcnt[g * n + g] * c->es);
}

int mrc_coll_start(struct mrc_coll *c, uint32_t iter, uint64_t now_ps)
{
	c->iter = iter;
	c->t_start = now_ps;
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
			start_copy(c, r);
			if (c->p.pattern == MRC_COLL_ALLTOALL) { /* own block stays local */
				uint64_t B = c->p.count / c->p.nranks * c->es;

				memcpy(rk->buf[MRC_REG_OUTPUT] + GRP(c, r) * B,
					rk->buf[MRC_REG_INPUT] + GRP(c, r) * B, B);
			}
		}
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
		reduce(c, rk, &rk->recvs[i]);
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

	if (!out || r == UINT32_MAX)
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
