/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bootpmix: the wire job's bootstrap through the launcher's PMIx server (wr_boot_pmix), in
 * place of the rendezvous at rank 0 when srun --mpi=pmix or Open MPI's mpirun started the
 * ranks (docs/wire-driver.md "Launching under srun or mpirun").
 *
 * The rank and the job's size are the launcher's (PMIx_Init, PMIX_JOB_SIZE). Data goes
 * through PMIx_Put/PMIx_Commit and a fence that collects it, then PMIx_Get of each rank's
 * key: the config hash (join), the base-RTT figures, each size's memory regions and, at the
 * end, every rank's DONE rows and RESULT (one "mrcgen.result" key). A data fence costs
 * more with every key the job has put (Open MPI 4.1 + PMIx 4.2 on 4 ranks: 7 ms a fence
 * after 200 keys, 290 ms after 800), so an iteration's two barriers are fences without
 * data and the DONE rows travel once, with the results. Every wait pumps the dataplane
 * and ends at the run's timeout.
 *
 * When the job fails each rank puts its reason and what it measured under "mrcgen.abort";
 * rank 0 gets every other rank's (PMIx_Get with PMIX_TIMEOUT: the server answers once the
 * rank committed it), names those that never answer as failed, and releases them with
 * "mrcgen.end" once its report is written (mrc_wirerun_end). A launcher that reports a
 * rank's death (PMIx events PMIX_EVENT_PROC_TERMINATED with a non-zero exit code,
 * PMIX_ERR_PROC_ABORTED_BY_SIG, ...) ends the wait at once, naming it.
 */
#include "mrc/wire/wr.h"

#include "mrc/base/bytes.h"
#include "mrc/job/stop.h"

#include <errno.h>
#include <pmix.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PX_PROTO       1u		 /* the layout of the keys below */
#define PX_KEY_JOIN    "mrcgen.join"	 /* protocol u32, config hash u64 */
#define PX_KEY_RTT     "mrcgen.rtt"	 /* figure u64 ns, probes sent u32, answered u32 */
#define PX_KEY_MR      "mrcgen.mr.%u"	 /* size index: MRC_REG_N x (va u64, rkey u32) */
#define PX_KEY_RESULT  "mrcgen.result"	 /* mrc_px_pack: DONE rows, RESULT body */
#define PX_KEY_ABORT   "mrcgen.abort"	 /* mrc_px_pack: reason, DONE rows, RESULT body */
#define PX_KEY_END     "mrcgen.end"	 /* rank 0: the report is written */
#define PX_GET_S       1		 /* one PMIx_Get's PMIX_TIMEOUT while collecting, s */
#define PX_SIGNAL_NS   500000000ull	 /* collecting after SIGINT/SIGTERM (a launcher ending
					    the job): 0.5 s at most */

/* The process's PMIx client (one per process); fence and event callbacks run on PMIx's
 * progress thread, hence the atomics. */
static struct {
	bool up, failed;
	pmix_proc_t me;
	uint64_t timeout_ns;
	unsigned gen;		/* the fence waited for */
	atomic_uint done_gen;	/* the last fence completed */
	atomic_int fence_st;
	atomic_uint dead;	/* 1 + the rank the launcher said ended (MRC_PX_LAUNCHER: it) */
	size_t evh;
	bool evh_on;
	void *asks;		/* rank 0's collection, when an answer may still come into it */
} px;

#if defined(__SANITIZE_ADDRESS__)
/*
 * LeakSanitizer (the sanitizer build, .ci/run): what libpmix, its plugins and libevent keep
 * until the process ends is theirs, not a leak of mrcgen's.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpmix\nleak:/pmix2/\nleak:libevent\nleak:libhwloc\n";
}
#endif

/* ---- pure parts ------------------------------------------------------------------------ */

/*
 * A rank's "mrcgen.result" or "mrcgen.abort" value, big-endian:
 *   kind u8 (MRC_PX_RESULT, MRC_PX_ABORT), timed_out u8 (0, 1: its failure was a wait that
 *   ran out), reason length R u16, rows N u32, then R bytes of reason, N DONE rows of
 *   WR_DONE_LEN bytes (the rendezvous's DONE body), then the RESULT body (rankres.h; none
 *   when the rank had no endpoint).
 */
#define MRC_PX_HDR    8u
#define MRC_PX_RESULT 0
#define MRC_PX_ABORT  1

struct mrc_px_blob {
	uint8_t kind;
	bool timed_out;
	const char *reason;		/* NULL: none */
	const struct wr_done *rows;	/* [n_rows], by iteration; those with have are packed */
	uint32_t n_rows;
	const char *body;
	size_t body_len;
};

struct mrc_px_view {
	uint8_t kind;
	bool timed_out;
	const char *reason;		/* not NUL-terminated */
	size_t reason_len;
	const uint8_t *rows;		/* n_rows x WR_DONE_LEN */
	uint32_t n_rows;
	const uint8_t *body;
	size_t body_len;
};

#define MRC_PX_NONE	UINT32_MAX	  /* mrc_px_event_rank: no rank failed */
#define MRC_PX_LAUNCHER (UINT32_MAX - 1u) /* mrc_px_event_rank: the launcher is gone */

/* Packs @b into a malloc'd value (*@out, *@len). Returns 0 or -ENOMEM. */
static int mrc_px_pack(const struct mrc_px_blob *b, uint8_t **out, size_t *len)
{
	size_t rl = b->reason ? strlen(b->reason) : 0, n = 0;
	uint8_t *p;

	if (rl > UINT16_MAX)
		rl = UINT16_MAX;
	for (uint32_t i = 0; i < b->n_rows; i++)
		n += b->rows[i].have;
	*len = MRC_PX_HDR + rl + n * WR_DONE_LEN + b->body_len;
	p = malloc(*len);
	if (!p)
		return -ENOMEM;
	p[0] = b->kind;
	p[1] = b->timed_out;
	put_be16(p + 2, (uint16_t)rl);
	put_be32(p + 4, (uint32_t)n);
	if (rl)
		memcpy(p + MRC_PX_HDR, b->reason, rl);
	n = MRC_PX_HDR + rl;
	for (uint32_t i = 0; i < b->n_rows; i++) {
		if (!b->rows[i].have)
			continue;
		wr_done_encode(&b->rows[i], i, p + n);
		n += WR_DONE_LEN;
	}
	if (b->body_len)
		memcpy(p + n, b->body, b->body_len);
	*out = p;
	return 0;
}

/* Reads value @p of @len bytes into @v (pointing into @p). Returns 0, or -EPROTO when a
 * field runs past the end or kind or timed_out is out of range. */
static int mrc_px_unpack(const uint8_t *p, size_t len, struct mrc_px_view *v)
{
	size_t rl, rows;

	if (len < MRC_PX_HDR || p[0] > MRC_PX_ABORT || p[1] > 1)
		return -EPROTO;
	rl = get_be16(p + 2);
	rows = get_be32(p + 4);
	if (rows > (len - MRC_PX_HDR) / WR_DONE_LEN || len - MRC_PX_HDR - rows * WR_DONE_LEN < rl)
		return -EPROTO;
	v->kind = p[0];
	v->timed_out = p[1];
	v->reason = (const char *)p + MRC_PX_HDR;
	v->reason_len = rl;
	v->rows = p + MRC_PX_HDR + rl;
	v->n_rows = (uint32_t)rows;
	v->body = v->rows + rows * WR_DONE_LEN;
	v->body_len = len - MRC_PX_HDR - rl - rows * WR_DONE_LEN;
	return 0;
}

/*
 * The rank of namespace @nspace that PMIx event @status (from @source, with @info) says
 * failed: a process that ended abnormally (PMIX_EVENT_PROC_TERMINATED with a non-zero
 * PMIX_EXIT_CODE; PMIX_ERR_PROC_ABORTED_BY_SIG, _TERM_WO_SYNC, _KILLED_BY_CMD,
 * PMIX_ERR_EXIT_NONZERO_TERM, PMIX_ERR_PROC_REQUESTED_ABORT), the one named by
 * PMIX_EVENT_AFFECTED_PROC or else the source (PMIx Standard v4.1 "Event Notification");
 * MRC_PX_LAUNCHER when the connection to the server is lost; MRC_PX_NONE for anything else,
 * another namespace or this rank (@me).
 */
static uint32_t mrc_px_event_rank(pmix_status_t status, const char *nspace, uint32_t me,
	const pmix_proc_t *source, const pmix_info_t *in, size_t ninfo)
{
	const pmix_proc_t *who = source;
	bool nonzero = false, have_code = false;

	switch (status) {
	case PMIX_ERR_LOST_CONNECTION:
	case PMIX_ERR_UNREACH:
		return MRC_PX_LAUNCHER;
	case PMIX_EVENT_PROC_TERMINATED:
	case PMIX_ERR_PROC_TERM_WO_SYNC:
	case PMIX_ERR_PROC_KILLED_BY_CMD:
	case PMIX_ERR_PROC_ABORTED_BY_SIG:
	case PMIX_ERR_EXIT_NONZERO_TERM:
	case PMIX_ERR_PROC_REQUESTED_ABORT:
		break;
	default:
		return MRC_PX_NONE;
	}
	for (size_t i = 0; i < ninfo; i++) {
		if (!strcmp(in[i].key, PMIX_EVENT_AFFECTED_PROC) &&
			in[i].value.type == PMIX_PROC && in[i].value.data.proc)
			who = in[i].value.data.proc;
		if (!strcmp(in[i].key, PMIX_EXIT_CODE) && in[i].value.type == PMIX_INT) {
			have_code = true;
			nonzero = in[i].value.data.integer != 0;
		}
	}
	/* a rank that ended well (its job done) is no failure; one that says nothing is */
	if (status == PMIX_EVENT_PROC_TERMINATED && (!have_code || !nonzero))
		return MRC_PX_NONE;
	if (!who || strncmp(who->nspace, nspace, PMIX_MAX_NSLEN) || who->rank == me ||
		who->rank >= MRC_PX_LAUNCHER)
		return MRC_PX_NONE;
	return who->rank;
}

/* ---- the client ------------------------------------------------------------------------- */

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source,
	pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
	pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	uint32_t r = mrc_px_event_rank(status, px.me.nspace, px.me.rank, source, info, ninfo);
	unsigned none = 0;

	(void)id;
	(void)results;
	(void)nresults;
	if (r != MRC_PX_NONE)
		atomic_compare_exchange_strong(&px.dead, &none, r + 1);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_fence(pmix_status_t st, void *cbdata)
{
	atomic_store(&px.fence_st, st);
	atomic_store(&px.done_gen, (unsigned)(uintptr_t)cbdata);
}

static bool fence_over(struct wr *w)
{
	(void)w;
	return atomic_load(&px.done_gen) == px.gen || atomic_load(&px.dead);
}

/* The launcher said a rank ended: fails the job naming it (rank 0 marks it). */
static int check_dead(struct wr *w, const char *what)
{
	unsigned d = atomic_load(&px.dead);

	if (!d)
		return 0;
	if (d - 1 == MRC_PX_LAUNCHER) {
		wr_fail(w, -ECONNABORTED, "pmix: %s: lost the launcher's PMIx server", what);
		return w->err;
	}
	if (w->rank == 0 && w->failed)
		w->failed[d - 1] = true;
	wr_fail(w, -ECONNABORTED, "pmix: rank %u (h%u): the launcher says it ended (%s)", d - 1,
		d - 1, what);
	return w->err;
}

/* A fence over every rank (collecting the data put since when @collect), pumping meanwhile. */
static int px_fence(struct wr *w, bool collect, const char *what)
{
	static pmix_info_t info; /* PMIx reads it until the fence completes, maybe later */
	bool yes = true;
	pmix_status_t rc;

	if (check_dead(w, what))
		return w->err;
	px.gen++;
	PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL); /* a bool: nothing to free */
	rc = PMIx_Fence_nb(NULL, 0, collect ? &info : NULL, collect, on_fence,
		(void *)(uintptr_t)px.gen);
	if (rc != PMIX_SUCCESS) {
		wr_fail(w, -ECONNABORTED, "%s: PMIx_Fence_nb: %s", what, PMIx_Error_string(rc));
		return w->err;
	}
	if (wr_pump_until(w, fence_over, what) || check_dead(w, what))
		return w->err;
	rc = atomic_load(&px.fence_st);
	/*
	 * Open MPI 4.1 fails a fence that every living rank joined (PARTIAL SUCCESS) when a
	 * rank died, under plain mpirun as it ends the job (SIGTERM follows) and under
	 * --enable-recovery, where nothing follows: no sign of which rank died (its PMIx event
	 * never comes: mpirun's notification fails, "BAD-PARAM"); rank 0 names it by
	 * collecting the others' results for as long as after a timeout (px_fail)
	 */
	if (rc != PMIX_SUCCESS)
		wr_fail(w, -ECONNABORTED, "%s: the fence failed: %s (a rank ended, or the "
			"launcher ends the job)", what, PMIx_Error_string(rc));
	return w->err;
}

/* Puts @len bytes under @key for every rank and commits them to the local server. */
static int px_put(struct wr *w, const char *key, const void *b, size_t len)
{
	pmix_byte_object_t bo = { .bytes = (char *)(uintptr_t)b, .size = len };
	pmix_value_t v;
	pmix_status_t rc;

	PMIX_VALUE_LOAD(&v, &bo, PMIX_BYTE_OBJECT);
	rc = PMIx_Put(PMIX_GLOBAL, key, &v);
	PMIX_VALUE_DESTRUCT(&v);
	if (rc == PMIX_SUCCESS)
		rc = PMIx_Commit();
	if (rc != PMIX_SUCCESS)
		wr_fail(w, -ECONNABORTED, "pmix: put '%s': %s", key, PMIx_Error_string(rc));
	return w->err;
}

/* Rank @r's bytes under @key (malloc'd into *@out), waiting @timeout_s at most. Returns 0,
 * -ETIMEDOUT (not there: not put yet, or the rank is gone), -EPROTO or -ENOMEM. */
static int px_get(uint32_t r, const char *key, int timeout_s, uint8_t **out, size_t *len)
{
	pmix_proc_t p;
	pmix_info_t info;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	int e = 0;

	PMIX_PROC_LOAD(&p, px.me.nspace, r);
	PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &timeout_s, PMIX_INT);
	rc = PMIx_Get(&p, key, &info, 1, &v);
	PMIX_INFO_DESTRUCT(&info);
	if (rc != PMIX_SUCCESS || !v)
		return -ETIMEDOUT;
	if (v->type != PMIX_BYTE_OBJECT) {
		e = -EPROTO;
	} else {
		*len = v->data.bo.size;
		*out = malloc(*len + 1);
		if (!*out)
			e = -ENOMEM;
		else if (*len)
			memcpy(*out, v->data.bo.bytes, *len);
	}
	PMIX_VALUE_RELEASE(v);
	return e;
}

/* Every rank's @key after the collecting fence: @each(w, r, bytes, len) per rank. */
static int px_allgather(struct wr *w, const char *key, const void *mine, size_t len,
	const char *what, int (*each)(struct wr *, uint32_t, const uint8_t *, size_t))
{
	if (px_put(w, key, mine, len) || px_fence(w, true, what))
		return w->err;
	for (uint32_t r = 0; r < w->nranks && !w->err; r++) {
		uint8_t *b = NULL;
		size_t bl = 0;
		int e = px_get(r, key, (int)(w->timeout_ns / 1000000000ull) + 1, &b, &bl);

		if (e) {
			if (w->rank == 0)
				w->failed[r] = true;
			wr_fail(w, e == -ENOMEM ? e : -EPROTO, "pmix: %s: rank %u (h%u): no '%s' "
				"after the fence: %s", what, r, r, key, strerror(-e));
		} else if (each(w, r, b, bl) && !w->err) {
			if (w->rank == 0)
				w->failed[r] = true;
			wr_fail(w, -EPROTO, "pmix: %s: rank %u (h%u): '%s' of %zu bytes", what,
				r, r, key, bl);
		}
		free(b);
	}
	return w->err;
}

/* ---- the job's steps ---------------------------------------------------------------------- */

static int px_connect(struct wr *w, char *err, size_t errlen)
{
	pmix_status_t codes[] = { PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_TERM_WO_SYNC,
		PMIX_ERR_PROC_KILLED_BY_CMD, PMIX_ERR_PROC_ABORTED_BY_SIG,
		PMIX_ERR_EXIT_NONZERO_TERM, PMIX_ERR_PROC_REQUESTED_ABORT,
		PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH };
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	pmix_status_t rc;
	uint32_t size = 0;
	int id;

	if (!px.up) {
		rc = PMIx_Init(&px.me, NULL, 0);
		if (rc != PMIX_SUCCESS) {
			snprintf(err, errlen, "bootstrap: pmix: PMIx_Init: %s (was this process "
				 "started by srun --mpi=pmix or mpirun?)", PMIx_Error_string(rc));
			return -ENOENT;
		}
		px.up = true;
	}
	px.timeout_ns = w->timeout_ns;
	PMIX_PROC_LOAD(&wild, px.me.nspace, PMIX_RANK_WILDCARD);
	rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
	if (rc == PMIX_SUCCESS && v && v->type == PMIX_UINT32)
		size = v->data.uint32;
	if (v)
		PMIX_VALUE_RELEASE(v);
	if (size != w->nranks) {
		snprintf(err, errlen, "host: pmix: the launcher starts %u processes, the job has %u "
			 "ranks (traffic.ranks)", size, w->nranks);
		return -EINVAL;
	}
	w->rank = px.me.rank;
	if (!px.evh_on) {
		id = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), NULL, 0,
			on_event, NULL, NULL);
		/* v4 returns the handler's id (>= 0) or an error; without events a failure is
		 * still found, by the timeout */
		px.evh_on = id >= 0;
		px.evh = px.evh_on ? (size_t)id : 0;
	}
	return 0;
}

static int join_each(struct wr *w, uint32_t r, const uint8_t *b, size_t len)
{
	if (len != 12)
		return -EPROTO;
	if (get_be32(b) != PX_PROTO || get_be64(b + 4) != w->hash) {
		if (w->rank == 0)
			w->failed[r] = true;
		wr_fail(w, -EPROTO, "pmix: rank %u (h%u) runs another config or build: config "
			"hash %016llx, this rank's %016llx (protocol %u, this %u)", r, r,
			(unsigned long long)get_be64(b + 4), (unsigned long long)w->hash,
			get_be32(b), PX_PROTO);
	}
	return 0;
}

static int px_join(struct wr *w, char *err, size_t errlen)
{
	uint8_t mine[12];

	put_be32(mine, PX_PROTO);
	put_be64(mine + 4, w->hash);
	if (px_allgather(w, PX_KEY_JOIN, mine, sizeof(mine), "pmix: join", join_each)) {
		snprintf(err, errlen, "%s", w->errmsg);
		return w->err;
	}
	return 0;
}

static int px_rtt_start(struct wr *w)
{
	(void)w; /* every rank's receives are armed: the join's fence came after them */
	return 0;
}

static int rtt_each(struct wr *w, uint32_t r, const uint8_t *b, size_t len)
{
	struct mrc_wirerun_rtt *o = w->rtt_out;

	if (len != 16)
		return -EPROTO;
	o->rank_ns[r] = get_be64(b);
	o->probes_sent += get_be32(b + 8);
	o->probes_answered += get_be32(b + 12);
	return 0;
}

static int px_rtt_agree(struct wr *w, const uint8_t mine[16])
{
	if (px_allgather(w, PX_KEY_RTT, mine, 16, "pmix: base RTT", rtt_each))
		return w->err;
	wr_rtt_decide(w); /* every rank from the same figures: the same decision */
	return 0;
}

static int mr_each(struct wr *w, uint32_t r, const uint8_t *b, size_t len)
{
	if (len != MRC_REG_N * 12u)
		return -EPROTO;
	for (int g = 0; g < MRC_REG_N; g++) {
		w->mrtab_va[r][g] = get_be64(b + g * 12);
		w->peer_rkey[r][g] = get_be32(b + g * 12 + 8);
	}
	return 0;
}

static int px_mrs(struct wr *w, uint32_t s, const uint8_t *mine)
{
	char key[32];

	snprintf(key, sizeof(key), PX_KEY_MR, s);
	return px_allgather(w, key, mine, MRC_REG_N * 12u, "pmix: memory regions", mr_each);
}

static int px_arm(struct wr *w, uint32_t gi)
{
	(void)w; /* the barrier at the end of the iteration before ordered it */
	(void)gi;
	return 0;
}

static int px_go(struct wr *w, uint32_t gi)
{
	(void)gi;
	return px_fence(w, false, "pmix: start barrier");
}

static int px_done(struct wr *w, uint32_t gi)
{
	if (w->rank == 0)
		w->dtab[(size_t)gi * w->nranks] = w->own[gi];
	return px_fence(w, false, "pmix: end of an iteration");
}

/* Rank 0: rank @r's blob @b: its DONE rows into w->dtab, its RESULT body into w->result[]. */
static int take_blob(struct wr *w, uint32_t r, const uint8_t *b, size_t len)
{
	struct mrc_px_view v;

	if (mrc_px_unpack(b, len, &v))
		return -EPROTO;
	for (uint32_t i = 0; i < v.n_rows; i++) {
		const uint8_t *row = v.rows + (size_t)i * WR_DONE_LEN;
		uint32_t gi = get_be32(row);

		if (gi < w->n_gi)
			wr_done_decode(&w->dtab[(size_t)gi * w->nranks + r], row, WR_DONE_LEN);
	}
	if (!v.body_len)
		return 0;
	free(w->result[r]);
	w->result[r] = malloc(v.body_len + 1);
	if (!w->result[r])
		return -ENOMEM;
	memcpy(w->result[r], v.body, v.body_len);
	w->result_len[r] = v.body_len;
	return 0;
}

static int result_each(struct wr *w, uint32_t r, const uint8_t *b, size_t len)
{
	return w->rank || r == 0 ? 0 : take_blob(w, r, b, len);
}

/* This rank's blob: its DONE rows and RESULT body (with an endpoint), @reason when failed. */
static int my_blob(struct wr *w, uint8_t kind, const char *reason, uint8_t **out, size_t *len)
{
	struct mrc_px_blob b = { .kind = kind, .reason = reason, .rows = w->own,
		.n_rows = w->own ? w->n_gi : 0, .timed_out = w->err == -ETIMEDOUT };
	char *body = NULL;
	size_t bl = 0;
	int e = w->ep && w->rank ? wr_encode_result(w, &body, &bl) : 0;

	b.body = body;
	b.body_len = e ? 0 : bl;
	e = mrc_px_pack(&b, out, len);
	free(body);
	return e;
}

static int px_results(struct wr *w)
{
	uint8_t *b = NULL;
	size_t len = 0;
	int e = my_blob(w, MRC_PX_RESULT, NULL, &b, &len);

	if (e) {
		wr_fail(w, e, "results: %s", strerror(-e));
		return e;
	}
	px_allgather(w, PX_KEY_RESULT, b, len, "pmix: results", result_each);
	free(b);
	return w->err;
}

/* A PMIx_Get_nb of rank 0's collection (one per rank). */
struct px_ask {
	atomic_int state;	/* 0 asked (len 1) or not yet (len 0), 1 answered, -1 not there */
	uint8_t *b;
	size_t len;		/* the answer's bytes */
	pmix_proc_t proc;	/* PMIx reads these until it answers (a non-blocking call) */
	pmix_info_t info;
	int timeout_s;
};

static void on_get(pmix_status_t st, pmix_value_t *v, void *cbdata)
{
	struct px_ask *a = cbdata;

	if (st == PMIX_SUCCESS && v && v->type == PMIX_BYTE_OBJECT &&
		(a->b = malloc(v->data.bo.size + 1))) {
		memcpy(a->b, v->data.bo.bytes, v->data.bo.size);
		a->len = v->data.bo.size;
		atomic_store(&a->state, 1);
		return;
	}
	a->len = 0; /* ask again */
	atomic_store(&a->state, -1);
}

/*
 * Rank 0: asks every other rank not known dead for its "mrcgen.abort" until it answers or
 * *@deadline (an ask the server gives up after PX_GET_S is asked again: a rank may notice
 * the failure only at its own timeout); a SIGINT or SIGTERM meanwhile (a launcher ending
 * the job) brings *@deadline to PX_SIGNAL_NS from then at the latest. @asks: [nranks].
 * Returns with asks[r].state 1 for those that answered, and true when an ask is still out
 * (@asks must then outlive it: its answer may still come).
 */
static bool collect(struct wr *w, struct px_ask *asks, uint64_t *deadline)
{
	for (;;) {
		bool out = false, open = false;
		uint64_t now = wr_mono_ns();

		if (mrc_stop_signal && *deadline > now + PX_SIGNAL_NS)
			*deadline = now + PX_SIGNAL_NS;

		for (uint32_t r = 1; r < w->nranks; r++) {
			struct px_ask *a = &asks[r];
			int st = atomic_load(&a->state);

			if (w->failed[r] || st == 1)
				continue;
			open = true;
			if (st == 0 && asks[r].b == NULL && asks[r].len) {
				out = true; /* asked, no answer yet */
				continue;
			}
			if (wr_mono_ns() >= *deadline)
				continue;
			atomic_store(&a->state, 0);
			a->len = 1; /* marks it asked */
			a->timeout_s = PX_GET_S;
			PMIX_PROC_LOAD(&a->proc, px.me.nspace, r);
			PMIX_INFO_LOAD(&a->info, PMIX_TIMEOUT, &a->timeout_s, PMIX_INT);
			if (PMIx_Get_nb(&a->proc, PX_KEY_ABORT, &a->info, 1, on_get, a) !=
				PMIX_SUCCESS) {
				a->len = 0;
				atomic_store(&a->state, -1);
			} else {
				out = true;
			}
		}
		if (!open || (wr_mono_ns() >= *deadline))
			return out;
		usleep(2000);
	}
}

/* Appends ", N" (or " N" first) for each rank of @set to @buf, "h" before each with @h. */
static size_t list_ranks(char *buf, size_t len, size_t k, const bool *set, uint32_t n, bool h)
{
	unsigned c = 0;

	for (uint32_t r = 0; r < n && k < len; r++)
		if (set[r])
			k += (size_t)snprintf(buf + k, len - k, "%s%s%u", c++ ? ", " : "",
				h ? "h" : "", r);
	return k;
}

static void px_fail(struct wr *w, char *why, size_t whylen)
{
	/* a rank may notice the failure only at its own timeout: it has as long to say so,
	 * unless the launcher is ending the job (collect) */
	uint64_t wait = mrc_stop_signal ? PX_SIGNAL_NS : w->timeout_ns + WR_HELLO_NS, deadline;
	struct px_ask *asks;
	bool *gone;
	uint32_t n_gone = 0, cause = 0;
	bool out;
	char cause_why[256] = "";
	uint8_t *b = NULL;
	size_t len = 0;

	if (!px.up)
		return;
	px.failed = true;
	if (w->rank) { /* rank 0 asks for it; it answers from the server even after we leave */
		if (!my_blob(w, MRC_PX_ABORT, why, &b, &len)) {
			pmix_byte_object_t bo = { .bytes = (char *)b, .size = len };
			pmix_value_t v;

			PMIX_VALUE_LOAD(&v, &bo, PMIX_BYTE_OBJECT);
			if (PMIx_Put(PMIX_GLOBAL, PX_KEY_ABORT, &v) == PMIX_SUCCESS)
				PMIx_Commit();
			PMIX_VALUE_DESTRUCT(&v);
		}
		free(b);
		return;
	}
	check_dead(w, "the job failed");
	if (!w->ep)
		return; /* nothing measured: no report to collect for */
	asks = calloc(w->nranks, sizeof(*asks));
	gone = calloc(w->nranks, sizeof(*gone));
	if (!asks || !gone) {
		free(asks);
		free(gone);
		return;
	}
	deadline = wr_mono_ns() + wait;
	out = collect(w, asks, &deadline);
	if (mrc_stop_signal)
		wait = PX_SIGNAL_NS; /* what the others had once the launcher ended the job */
	for (uint32_t r = 1; r < w->nranks; r++) {
		struct mrc_px_view v;

		if (atomic_load(&asks[r].state) != 1 || take_blob(w, r, asks[r].b, asks[r].len) ||
			mrc_px_unpack(asks[r].b, asks[r].len, &v)) {
			gone[r] = w->failed[r] = true;
			n_gone++;
		} else if (!cause && !v.timed_out && v.reason_len) {
			/* a rank that failed by itself, not by waiting for the others */
			cause = r;
			snprintf(cause_why, sizeof(cause_why), "%.*s", (int)v.reason_len, v.reason);
		}
		if (atomic_load(&asks[r].state) == 1)
			free(asks[r].b);
	}
	if (n_gone) { /* those that never answered: ended, or hanging */
		size_t k;
		char own[512];

		snprintf(own, sizeof(own), "%s", why);
		k = (size_t)snprintf(why, whylen, "pmix: %s ", n_gone > 1 ? "ranks" : "rank");
		k = list_ranks(why, whylen, k, gone, w->nranks, false);
		if (k < whylen)
			k += (size_t)snprintf(why + k, whylen - k, " (");
		k = list_ranks(why, whylen, k, gone, w->nranks, true);
		if (k < whylen)
			snprintf(why + k, whylen - k, ") sent no results within %llu ms (the "
				"process ended or hangs); h0: %s",
				(unsigned long long)(wait / 1000000), own);
	} else if (cause && w->err == -ETIMEDOUT) {
		w->failed[cause] = true;
		snprintf(why, whylen, "pmix: rank %u (h%u): %s", cause, cause, cause_why);
	}
	if (out) /* an answer may still come into it: kept (reachable) to the process's end */
		px.asks = asks;
	else
		free(asks);
	free(gone);
}

static void px_close(struct wr *w)
{
	(void)w; /* the client stays up until mrc_wirerun_end: rank 0 still has to say it */
}

void mrc_wirerun_end(void)
{
	if (!px.up)
		return;
	if (px.failed && px.me.rank == 0) {
		uint8_t one = 1;
		pmix_byte_object_t bo = { .bytes = (char *)&one, .size = 1 };
		pmix_value_t v;

		PMIX_VALUE_LOAD(&v, &bo, PMIX_BYTE_OBJECT);
		if (PMIx_Put(PMIX_GLOBAL, PX_KEY_END, &v) == PMIX_SUCCESS)
			PMIx_Commit();
		PMIX_VALUE_DESTRUCT(&v);
	} else if (px.failed) {
		/* stay until rank 0 wrote its report: a launcher may end the job at this
		 * rank's exit status */
		struct timespec t;
		uint64_t deadline, now;

		clock_gettime(CLOCK_MONOTONIC, &t);
		now = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
		deadline = now + px.timeout_ns + 2 * WR_HELLO_NS;
		while (now < deadline && !mrc_stop_signal) {
			uint8_t *b = NULL;
			size_t len;

			if (!px_get(0, PX_KEY_END, PX_GET_S, &b, &len)) {
				free(b);
				break;
			}
			usleep(10000); /* the server may say "not there" at once */
			clock_gettime(CLOCK_MONOTONIC, &t);
			now = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
		}
	}
	if (px.evh_on)
		PMIx_Deregister_event_handler(px.evh, NULL, NULL);
	PMIx_Finalize(NULL, 0);
	px.up = px.evh_on = false;
}

const struct wr_boot_ops wr_boot_pmix = {
	.name = "pmix",
	.connect = px_connect,
	.join = px_join,
	.rtt_start = px_rtt_start,
	.rtt_agree = px_rtt_agree,
	.mrs = px_mrs,
	.arm = px_arm,
	.go = px_go,
	.done = px_done,
	.results = px_results,
	.fail = px_fail,
	.close = px_close,
};
