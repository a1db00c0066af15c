/* SPDX-License-Identifier: BSD-2-Clause */
/* wjobs_test: unit tests of mrc/wire/wjobs.c (`mrcgen-test wjobs`): the several jobs'
 * rendezvous messages from a hostile peer, refused before they reach a collective. */
#include "mrc/wire/wjobs.c"
#include "mrc/base/st.h"
#include "mrc/engine/ep.h"
#include "mrc/engine/st_net.h"

#include <sys/socket.h>
#include <unistd.h>

/* An endpoint's path: never asked for here (no QP sends) */
static int t_path(void *ctx, uint32_t peer_host, uint32_t ev, struct mrc_pkt *hdr)
{
	(void)ctx;
	(void)peer_host;
	(void)ev;
	(void)hdr;
	return -EINVAL;
}

/* A 4-rank run of three jobs seen from rank @rank: job 0 "a" on h0-h1 (2 iterations, one
 * size), job 1 "bg" background on h2-h3, job 2 "c" not set up yet (setup() still on an
 * earlier job's exchange: no tables). */
struct t_run {
	struct wr w;
	struct wj wj;
	struct wjob jobs[3];
	struct conf_traffic t[3];
	bool in[2][4], got[2][4];
	struct wr_done dtab[2 * 4];
	char why[200];		/* the last refusal's reason */
};

static void t_run_init(struct t_run *r, uint32_t rank)
{
	memset(r, 0, sizeof(*r));
	r->w.rank = rank;
	r->w.nranks = 4;
	r->w.wj = &r->wj;
	r->wj.jobs = r->jobs;
	r->wj.n = 3;
	r->t[0] = (struct conf_traffic){ .name = "a", .iterations = 2 };
	r->t[1] = (struct conf_traffic){ .name = "bg" };
	r->t[2] = (struct conf_traffic){ .name = "c", .iterations = 2 };
	for (uint32_t i = 0; i < 3; i++) {
		r->jobs[i] = (struct wjob){ .w = &r->w, .idx = i, .t = &r->t[i], .after = -1 };
		if (i < 2) {
			r->jobs[i].ready = true;
			r->jobs[i].in = r->in[i];
			r->jobs[i].got = r->got[i];
		}
	}
	r->jobs[0].per_size = 2;
	r->jobs[0].n_gi = 2;
	r->jobs[0].dtab = r->dtab;
	r->in[0][0] = r->in[0][1] = true;
	r->jobs[0].member = rank < 2;
	r->jobs[1].bg = true;
	r->in[1][2] = r->in[1][3] = true;
	r->jobs[1].member = rank >= 2;
}

/* Job @job's message @type with iteration @it (@len bytes of body: 4 the job alone, 8 with
 * the iteration, more zeros after it) from rank @from. */
static int t_msg(struct t_run *r, uint32_t from, uint8_t type, uint32_t job, uint32_t it,
	size_t len)
{
	uint8_t b[64] = { 0 };
	struct rv_msg m = { .type = type, .body = b, .len = len };

	put_be32(b, job);
	put_be32(b + 4, it);
	r->why[0] = 0;
	return wr_jobs_on_msg(&r->w, from, &m, r->why, sizeof(r->why));
}

/* Job 1's (bg) JEND with the window of @b (12 bytes: job, window ps) from rank 0. */
static int t_end(struct t_run *r, uint8_t *b)
{
	struct rv_msg m = { .type = RV_JEND, .body = b, .len = 12 };

	put_be32(b, 1);
	r->why[0] = 0;
	return wr_jobs_on_msg(&r->w, 0, &m, r->why, sizeof(r->why));
}

MRC_SELFTEST(wjobs)
{
	struct t_run r;
	bool failed[4] = { false };
	uint8_t buf12[12] = { 0 };

	mrc_st_case(st, "background: the tries of the window alone are counted, a rank's late "
			"ones (before the JEND came) left out; a thread's refusal moves a post");
	{
		/* 32 KiB at 2 Gb/s: a try every 131.072 us from 10 us; the window 500 us: slots
		 * 0-3 (10, 141.072, 272.144, 403.216 us), slot 4 at 534.288 us is past it */
		struct wjob j = { .bg_bytes = 32768, .bg_first_ps = 10000000,
			.bg_start_ps = 0, .bg_len_ps = 500000000 };
		struct conf_traffic t = { .rate_bps = 2000000000ull };
		uint8_t out[8] = { 0 };

		j.t = &t;
		j.bg_out = out;
		j.bg_cap = 8;
		j.bg_k = 7; /* tried 0-6 before the JEND came */
		for (uint64_t k = 0; k < 7; k++)
			bg_mark(&j, k, k == 2 ? BG_REFUSED : BG_POSTED);
		bg_mark(&j, 0, BG_DONE);
		bg_mark(&j, 5, BG_DONE);
		bg_mark(&j, 3, BG_REFUSED); /* another thread's endpoint refused it */
		bg_count(&j);
		ST_EQ(st, j.posted, 2);	/* 0 and 1 */
		ST_EQ(st, j.refused, 2); /* 2 and 3 */
		ST_EQ(st, j.completed, 1); /* 0 (5's is past the window) */
	}

	mrc_st_case(st, "JARM: the iteration awaited armed; past the job's last refused (-EPROTO)");
	t_run_init(&r, 1);
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 0, 0, 8), 0);
	ST_EQ(st, r.jobs[0].arm_of, 1);
	/* after its last iteration (2 of 2) the rank awaits it = n_gi: no collective there */
	r.jobs[0].it = 2;
	r.jobs[0].arm_of = 0;
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 0, 2, 8), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 0, 0xffffffffu, 8), -EPROTO);
	ST_EQ(st, r.jobs[0].arm_of, 0);
	r.jobs[0].it = 0;
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 0, 1, 8), -EPROTO);	/* not the one awaited */
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 0, 0, 7), -EPROTO);	/* no iteration */
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 3, 0, 8), -EPROTO);	/* no job 3 of 3 */
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 1, 0, 8), -EPROTO);	/* a background job */

	mrc_st_case(st, "JGO: past the job's last refused, also at a rank outside the first job");
	t_run_init(&r, 1);
	r.jobs[0].it = 2;
	r.jobs[0].armed = true;
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 0, 2, 8), -EPROTO);
	ST_EQ(st, r.jobs[0].go_of, 0);
	/* h3, outside job 0, takes its GO for the timeline: only of an iteration it has */
	t_run_init(&r, 3);
	r.w.cur_iter = 77;
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 0, 2, 8), -EPROTO);
	ST_EQ(st, r.w.cur_iter, 77);
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 0, 1, 8), 0);
	ST_EQ(st, r.w.cur_iter, 1);
	ST_EQ(st, r.jobs[0].go_of, 2);
	/* background: iteration 0, once */
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 1, 1, 8), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 1, 0, 8), 0);
	ST_EQ(st, r.jobs[1].go_of, 1);
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 1, 0, 8), -EPROTO);

	mrc_st_case(st, "JEND only after the job's JGO, once: else refused, the window unchanged");
	t_run_init(&r, 3);
	/* a 1 ms window, before any JGO: out of the protocol's order */
	put_be64(buf12 + 4, 1000000000ull);
	ST_EQ_I(st, t_end(&r, buf12), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job bg: JEND before the job's JGO (out of protocol order)"));
	ST_TRUE(st, !r.jobs[1].bg_stop && r.jobs[1].bg_len_ps == 0);
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 1, 0, 8), 0);
	ST_EQ_I(st, t_end(&r, buf12), 0);
	ST_TRUE(st, r.jobs[1].bg_stop && r.jobs[1].bg_len_ps == 1000000000ull);
	ST_EQ_I(st, t_end(&r, buf12), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job bg: a second JEND (out of protocol order)"));
	/* h1, outside the background job, and a collective job's JEND */
	t_run_init(&r, 1);
	ST_EQ_I(st, t_end(&r, buf12), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job bg: JEND at h1, not a rank of a background job"));
	ST_EQ_I(st, t_msg(&r, 0, RV_JEND, 0, 0, 12), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job a: JEND at h1, not a rank of a background job"));

	mrc_st_case(st, "a JEND before JGO from rank 0's connection fails the rank, naming h0");
	{
		/* h3's connection to rank 0 is one end of a socket pair; rank 0 the other */
		int sv[2];
		uint8_t fr[4 + 1 + 12];
		struct rv_conn c0 = { .fd = -1 };

		ST_EQ_I(st, socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		t_run_init(&r, 3);
		c0.fd = sv[0];
		r.w.conns = &c0;
		r.w.n_conns = 1;
		put_be32(fr, 1 + 12); /* the type byte and the body */
		fr[4] = RV_JEND;
		memcpy(fr + 5, buf12, 12);
		ST_EQ_I(st, (int)write(sv[1], fr, sizeof(fr)), (int)sizeof(fr));
		wr_ctl_poll(&r.w);
		ST_EQ_I(st, r.w.err, -EPROTO);
		ST_TRUE(st, !strcmp(r.w.errmsg, "rendezvous: rank 0 (h0): protocol error: job bg: "
			"JEND before the job's JGO (out of protocol order)"));
		ST_TRUE(st, !r.jobs[1].bg_stop);
		free(c0.buf);
		close(sv[0]);
		close(sv[1]);
	}

	mrc_st_case(st, "rank 0 refuses what its barrier does not await, naming the rank");
	t_run_init(&r, 0);
	r.jobs[0].st = WJ_RUN;	/* iteration 0 runs: DONE awaited, not ARMED */
	ST_EQ_I(st, t_msg(&r, 1, RV_JARMED, 0, 0, 8), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job a: JARMED of iteration 0 from h1 out of protocol order "
		"(rank 0 awaits JDONE of iteration 0)"));
	ST_EQ_I(st, t_msg(&r, 1, RV_JDONE, 0, 1, 4 + WR_DONE_LEN), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 1, RV_JDONE, 0, 0, 4 + WR_DONE_LEN), 0);
	/* background counts before JEND went out */
	r.jobs[1].st = WJ_BG;
	ST_EQ_I(st, t_msg(&r, 2, RV_JBG, 1, 0, 28), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job bg: JBG from h2 out of protocol order (rank 0 awaits "
		"nothing)"));
	r.jobs[1].st = WJ_BGEND;
	ST_EQ_I(st, t_msg(&r, 2, RV_JBG, 1, 0, 28), 0);
	ST_EQ_I(st, t_msg(&r, 2, RV_JBG, 1, 0, 28), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job bg: a second JBG from h2"));
	ST_EQ_I(st, t_msg(&r, 2, RV_JBG, 1, 0, 27), -EPROTO);
	ST_TRUE(st, !strcmp(r.why, "job bg: a 27-byte JBG, 28 expected"));

	mrc_st_case(st, "arm and done past the job's last iteration fail the run, no collective");
	t_run_init(&r, 1);
	r.jobs[0].it = 2;
	ST_EQ_I(st, arm(&r.w, &r.jobs[0]), -EPROTO);
	ST_TRUE(st, strstr(r.w.errmsg, "h1: job a: arm of iteration 2, after its last") != NULL);
	ST_TRUE(st, !r.jobs[0].armed);
	t_run_init(&r, 1);
	r.jobs[0].it = 2;
	ST_EQ_I(st, done(&r.w, &r.jobs[0]), -EPROTO);
	ST_TRUE(st, strstr(r.w.errmsg, "h1: job a: end of iteration 2, after its last") != NULL);
	/* a completion on job 0's QP (h1 to h0: QP 1) with no iteration running */
	t_run_init(&r, 1);
	r.jobs[0].it = 2;
	wr_jobs_send_done(&r.w, 1, 5, 1000);
	ST_EQ_I(st, r.w.err, -EPROTO);
	ST_TRUE(st, strstr(r.w.errmsg, "send completion on QP 1 of no job") != NULL);

	mrc_st_case(st, "a job not set up yet (no tables): every message naming it refused");
	t_run_init(&r, 0);
	/* rank 0, still exchanging job 0's regions: job 2's ARMED, DONE, background counts */
	ST_EQ_I(st, t_msg(&r, 2, RV_JARMED, 2, 0, 8), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 2, RV_JDONE, 2, 0, 4 + WR_DONE_LEN), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 2, RV_JBG, 2, 0, 28), -EPROTO);
	t_run_init(&r, 3);
	r.jobs[2].member = true; /* what a half-made job may hold: still refused */
	ST_EQ_I(st, t_msg(&r, 0, RV_JARM, 2, 0, 8), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 0, RV_JGO, 2, 0, 8), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 0, RV_JEND, 2, 0, 12), -EPROTO);
	ST_EQ(st, r.jobs[2].arm_of + r.jobs[2].go_of, 0);
	/* a job set up whose ranks are not known yet (in[] all false): none of theirs taken */
	t_run_init(&r, 0);
	memset(r.in[0], 0, sizeof(r.in[0]));
	r.jobs[0].st = WJ_ARMING;
	ST_EQ_I(st, t_msg(&r, 1, RV_JARMED, 0, 0, 8), -EPROTO);
	ST_TRUE(st, !r.got[0][1]);
	/* once known, the same ARMED is taken; a rank outside the job still refused */
	r.in[0][1] = true;
	ST_EQ_I(st, t_msg(&r, 1, RV_JARMED, 0, 0, 8), 0);
	ST_TRUE(st, r.got[0][1]);
	ST_EQ_I(st, t_msg(&r, 2, RV_JARMED, 0, 0, 8), -EPROTO);
	ST_EQ_I(st, t_msg(&r, 4, RV_JARMED, 0, 0, 8), -EPROTO); /* no rank 4 of 4 */

	mrc_st_case(st, "a timeout names each waiting job, its ranks missing, marks them failed");
	t_run_init(&r, 0);
	r.w.failed = failed;
	r.jobs[0].st = WJ_RUN;	/* iteration 1: h0 and h1 both owe their DONE */
	r.jobs[0].r0_it = 1;
	r.jobs[1].st = WJ_BGEND; /* h2 sent its counts, h3 not */
	r.got[1][2] = true;
	r.jobs[2].st = WJ_WAIT;	/* not waiting on anyone */
	wr_fail(&r.w, -ETIMEDOUT, "several jobs: nothing happened: nothing within 9 ms");
	name_missing(&r.w);
	ST_TRUE(st, !strcmp(r.w.errmsg, "several jobs: nothing happened: nothing within 9 ms; "
		"job a: iteration 1's DONE from h0 h1; job bg: background counts from h3"));
	/* rank 0 is the one waiting: named, never failed */
	ST_TRUE(st, !failed[0] && failed[1] && !failed[2] && failed[3]);
	/* another failure than a timeout names no one */
	t_run_init(&r, 0);
	memset(failed, 0, sizeof(failed));
	r.w.failed = failed;
	r.jobs[0].st = WJ_ARMING;
	wr_fail(&r.w, -EPROTO, "x");
	name_missing(&r.w);
	ST_TRUE(st, !strcmp(r.w.errmsg, "x") && !failed[1]);

	mrc_st_case(st, "a job not finished: sizes not all ended incomplete, unreached gone");
	{
		/* 3 sizes of 2 iterations (warmup counted): size 0 ended both, size 1 one (its
		 * second never armed: no row), size 2 never reached */
		struct mrc_run_size sz[3] = { { .bytes = 1 }, { .bytes = 2 }, { .bytes = 3 } };
		struct mrc_run_iter it[3] = { { .size_idx = 0, .iter = 0 },
			{ .size_idx = 0, .iter = 1 }, { .size_idx = 1, .iter = 2 } };
		struct wjob j = { .sizes = sz, .n_sizes = 3, .iters = it, .n_iters = 3,
			.per_size = 2 };

		ST_EQ_I(st, mrc_hist_init(1, 1000000, 3, &sz[2].cct_ns), 0);
		unfinished_rows(&j);
		ST_EQ(st, j.n_sizes, 2);
		ST_TRUE(st, !sz[0].incomplete && sz[1].incomplete);
		ST_TRUE(st, sz[2].cct_ns == NULL); /* freed */
		/* the same with size 1's second iteration failed in (a row, incomplete) */
		it[1].incomplete = false;
		sz[1].incomplete = false;
		j.n_sizes = 2;
		it[2] = (struct mrc_run_iter){ .size_idx = 1, .iter = 2, .incomplete = true };
		unfinished_rows(&j);
		ST_TRUE(st, !sz[0].incomplete && sz[1].incomplete && j.n_sizes == 2);
		/* no round ran: the first size stays, incomplete */
		memset(sz, 0, sizeof(sz));
		j.n_sizes = 3;
		j.n_iters = 0;
		unfinished_rows(&j);
		ST_TRUE(st, j.n_sizes == 1 && sz[0].incomplete);
		/* phases (2 collective phases, 3 steps): rounds 0-2 ended, phase 0's 2 of 3,
		 * phase 1's 1; every phase row kept for the fold into steps */
		memset(sz, 0, sizeof(sz));
		for (uint32_t k = 0; k < 3; k++)
			it[k] = (struct mrc_run_iter){ .size_idx = k % 2, .iter = k };
		j = (struct wjob){ .sizes = sz, .n_sizes = 2, .iters = it, .n_iters = 3,
			.per_size = 3, .nc = 2 };
		unfinished_rows(&j);
		ST_TRUE(st, j.n_sizes == 2 && sz[0].incomplete && sz[1].incomplete);
	}

	mrc_st_case(st, "a job failed while arming: that iteration's row, no time, from its JARM");
	{
		/* job a: 1 warmup + 2 iterations of one size; the run started at 1 s on rank
		 * 0's clock, iteration 0's JARM went out at 1 s + 5 us, no ARMED came */
		struct mrc_run_size sz[1] = { { .bytes = 1 } };
		struct mrc_run_iter it[4] = { { 0 } };

		t_run_init(&r, 0);
		r.t[0].warmup = 1;
		r.jobs[0].per_size = r.jobs[0].n_gi = 3;
		r.jobs[0].sizes = sz;
		r.jobs[0].n_sizes = 1;
		r.jobs[0].iters = it;
		r.wj.t0_ns = 1000000000ull;
		r.jobs[0].st = WJ_ARMING;
		r.jobs[0].arm_ns0 = 1000005000ull;
		failed_rows(&r.wj, &r.jobs[0]);
		ST_EQ(st, r.jobs[0].n_iters, 1);
		ST_TRUE(st, it[0].iter == 0 && it[0].warmup && it[0].incomplete);
		ST_EQ(st, it[0].start_ps, 5000000ull); /* 5 us */
		ST_TRUE(st, sz[0].incomplete);
		/* iteration 0 (warmup) ended, 1 (measured 0) ran, 2 (measured 1) arming from
		 * 2 s: rows 0 and 1 kept, 2 added */
		memset(it, 0, sizeof(it));
		sz[0].incomplete = false;
		it[0] = (struct mrc_run_iter){ .iter = 0, .warmup = true };
		it[1] = (struct mrc_run_iter){ .iter = 1, .start_ps = 7 };
		r.jobs[0].n_iters = 2;
		r.jobs[0].r0_it = 2;
		r.jobs[0].arm_ns0 = 2000000000ull;
		failed_rows(&r.wj, &r.jobs[0]);
		ST_EQ(st, r.jobs[0].n_iters, 3);
		ST_TRUE(st, !it[1].incomplete && it[2].iter == 2 && !it[2].warmup &&
			it[2].measured == 1 && it[2].incomplete);
		ST_EQ(st, it[2].start_ps, 1000000000000ull); /* 1 s after the run's start */
		ST_TRUE(st, sz[0].incomplete);
		/* failed mid-iteration (its row is there, from its GO) or in a gap: no row added */
		r.jobs[0].n_iters = 2;
		r.jobs[0].st = WJ_RUN;
		failed_rows(&r.wj, &r.jobs[0]);
		r.jobs[0].st = WJ_WAIT;
		failed_rows(&r.wj, &r.jobs[0]);
		ST_EQ(st, r.jobs[0].n_iters, 2);
	}

	mrc_st_case(st, "a refused memory region fails the run, its key never advertised");
	{
		struct mrc_ep_params p;
		uint32_t key = 77;
		int e;
		uint8_t buf[64];

		static const uint32_t evs[1] = { 0x0A0B };

		mrc_ep_params_default(&p, 1, 100000000000ull, 12000000);
		p.path = t_path;
		p.peer_of = st_peer_of;
		p.ev_plane = st_ev_plane;
		p.ev.evs = evs;
		p.ev.n_evs = 1;
		p.first_qpn = 1;
		p.max_qps = 1;
		t_run_init(&r, 2);
		e = mrc_ep_new(&p, NULL, NULL, &r.w.ep);
		ST_EQ_I(st, e, 0);
		if (e)
			return;
		wr_reg_all(&r.w, buf, sizeof(buf), &key, 1);
		ST_EQ_I(st, r.w.err, 0);
		ST_TRUE(st, key != 0);
		/* 64 bytes ending past the top of the address space: mrc_ep_reg_mr's -EINVAL */
		wr_reg_all(&r.w, (void *)(UINTPTR_MAX - 15), 64, &key, 2);
		ST_EQ_I(st, r.w.err, -EINVAL);
		ST_TRUE(st, !strcmp(r.w.errmsg, "h2: memory region 2 (64 B) on thread 0: Invalid "
			"argument"));
		mrc_ep_free(r.w.ep);
	}
}
