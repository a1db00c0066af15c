/* SPDX-License-Identifier: BSD-2-Clause */
/* report: report.json, the terminal table, histogram files and plots of a run. */
#include "mrc/out/report.h"

#include "mrc/job/coll.h"
#include "mrc/job/job.h"
#include "mrc/out/plot.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINKS_MARK "@mrcgen-links@" /* "links"'s place in the tree (links_text) */
#define PS_US 1e6 /* ps per us */

/* The hist/ and plots/ files this run created, relative to output.dir ("hist/TAG.hgrm"):
 * what report.json's "files" lists of those directories (j_files). */
struct made {
	char (*v)[112];
	size_t n, cap;
};

/* Notes "@sub/@name@sfx" in @mk; on ENOMEM the file goes unlisted (the next run keeps it). */
static void made_add(struct made *mk, const char *sub, const char *name, const char *sfx)
{
	if (mk->n == mk->cap) {
		size_t cap = mk->cap ? 2 * mk->cap : 16;
		char (*v)[112] = realloc(mk->v, cap * sizeof(*v));

		if (!v)
			return;
		mk->v = v;
		mk->cap = cap;
	}
	if (snprintf(mk->v[mk->n], sizeof(mk->v[0]), "%s/%s%s", sub, name, sfx) <
		(int)sizeof(mk->v[0]))
		mk->n++;
}

int mrc_report_size_label(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned u = 0;

	while (u + 1 < sizeof(unit) / sizeof(unit[0]) && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		u++;
	}
	return snprintf(buf, len, "%llu%s", (unsigned long long)bytes, unit[u]);
}

/* The tag of size @s's CCT histogram: "cct_" and its size label, then "_" and the job's
 * name for a job of several (@job NULL: the top level's); a job's step of phases (one
 * size): "step_" and the job's name. */
static void cct_tag(const struct mrc_run_size *rs, const struct mrc_run_job *job, char *buf,
	size_t len)
{
	char l[32];

	mrc_report_size_label(rs->bytes, l, sizeof(l));
	if (job && job->n_phases)
		snprintf(buf, len, "step_%s", job->name);
	else
		snprintf(buf, len, "cct_%s%s%s", l, job ? "_" : "", job ? job->name : "");
}

/* The tag of phase @p's histogram of @job: "phase{p}_" and its name. */
static void phase_tag(const struct mrc_run_job *job, size_t p, char *buf, size_t len)
{
	snprintf(buf, len, "phase%zu_%s", p, job->name);
}

bool mrc_report_ok(const struct mrc_run_result *res)
{
	if (res->error[0] || res->qp_errors || res->n_errors || res->tx_encode_err)
		return false;
	for (size_t s = 0; s < res->n_sizes; s++)
		if (res->sizes[s].wrong)
			return false;
	for (size_t i = 0; i < res->n_iters; i++)
		if (res->iters[i].wrong)
			return false;
	for (size_t j = 1; j < res->n_jobs; j++)
		for (size_t s = 0; s < res->jobs[j].n_sizes; s++)
			if (res->jobs[j].sizes[s].wrong)
				return false;
	return true;
}

/* A histogram in ns as a JSON object in us; an empty one has count 0 and zeros (C07).
 * @tag: its Tag= in latency.hlog and its hist/TAG.hgrm. */
static json_t *j_hist(const struct mrc_hist *h, const struct conf_hist *c, const char *tag)
{
	struct mrc_hist_summary s;
	json_t *o = json_object(), *p = json_object();
	size_t n = c->n_percentiles < MRC_HIST_SUMMARY_MAX_PCT ? c->n_percentiles :
								  MRC_HIST_SUMMARY_MAX_PCT;

	mrc_hist_summarize(h, c->percentiles, n, &s);
	json_object_set_new(o, "tag", json_string(tag));
	json_object_set_new(o, "count", json_integer(s.count));
	json_object_set_new(o, "min", json_real((double)s.min / 1e3));
	json_object_set_new(o, "max", json_real((double)s.max / 1e3));
	json_object_set_new(o, "mean", json_real(s.mean / 1e3));
	json_object_set_new(o, "stddev", json_real(s.stddev / 1e3));
	for (size_t i = 0; i < s.n_pct; i++) {
		char k[32];

		snprintf(k, sizeof(k), "p%g", s.pct[i].p);
		json_object_set_new(p, k, json_real((double)s.pct[i].value / 1e3));
	}
	json_object_set_new(o, "percentiles", p);
	return o;
}

/* A size's CCT histogram, saying which size it is for. */
static json_t *j_cct(const struct mrc_run_size *rs, const struct conf_hist *c,
	const struct mrc_run_job *job)
{
	char tag[80], l[32];
	json_t *o;

	cct_tag(rs, job, tag, sizeof(tag));
	mrc_report_size_label(rs->bytes, l, sizeof(l));
	o = j_hist(rs->cct_ns, c, tag);
	json_object_set_new(o, "bytes", json_integer((json_int_t)rs->bytes));
	json_object_set_new(o, "size", json_string(l));
	return o;
}

/* A flap's own figures: its toggles and where its window ends. */
static json_t *j_flap(const struct mrc_run_fault *rf)
{
	json_t *o = json_object();

	json_object_set_new(o, "downs", json_integer(rf->flap_downs));
	json_object_set_new(o, "toggles", json_integer(rf->flap_toggles));
	json_object_set_new(o, "end_us", rf->end_ps < 0 ? json_null() :
		json_real((double)rf->end_ps / PS_US));
	json_object_set_new(o, "last_iteration", rf->last_in_warmup ? json_null() :
		json_integer(rf->last_measured));
	json_object_set_new(o, "global_last_iteration", json_integer(rf->last_iter));
	return o;
}

/* @v as a JSON real, or null when it did not happen (!@happened). */
static json_t *j_real_if(bool happened, double v)
{
	return happened ? json_real(v) : json_null();
}

/* A point-to-point size's figures (docs/report.md "Point-to-point benchmarks"): the worst
 * pair's bandwidth, message rate, latency and line-rate fraction, then every pair. */
static void j_pairs(json_t *o, const struct mrc_run_size *rs)
{
	const struct mrc_run_pair *w = &rs->pairs[rs->worst];
	bool ok = !rs->incomplete;
	json_t *a = json_array();
	char n[24];

	json_object_set_new(o, "message_bytes", json_integer((json_int_t)rs->msg_bytes));
	json_object_set_new(o, "bw_Gbps", j_real_if(ok, w->gbps));
	json_object_set_new(o, "msg_rate_Mps", j_real_if(ok, w->mps));
	json_object_set_new(o, "lat_us", j_real_if(ok && w->lat_us > 0, w->lat_us));
	json_object_set_new(o, "line_rate_fraction", j_real_if(ok, rs->line_rate_fraction));
	json_object_set_new(o, "worst_pair", json_integer(rs->worst));
	for (uint32_t i = 0; i < rs->n_pairs; i++) {
		const struct mrc_run_pair *p = &rs->pairs[i];
		json_t *e = json_object();

		snprintf(n, sizeof(n), "h%u", p->a);
		json_object_set_new(e, "a", json_string(n));
		snprintf(n, sizeof(n), "h%u", p->b);
		json_object_set_new(e, "b", json_string(n));
		json_object_set_new(e, "bw_Gbps", j_real_if(ok, p->gbps));
		json_object_set_new(e, "msg_rate_Mps", j_real_if(ok, p->mps));
		json_object_set_new(e, "lat_us", j_real_if(ok && p->lat_us > 0, p->lat_us));
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "pairs", a);
}

/* Configured faults that never fired: index, action, target, when, why. */
static json_t *j_unapplied(const struct mrc_run_result *res)
{
	json_t *a = json_array();

	for (size_t i = 0; i < res->n_unapplied; i++) {
		const struct mrc_run_unapplied *u = &res->unapplied[i];
		json_t *o = json_object();

		json_object_set_new(o, "index", json_integer(u->index));
		json_object_set_new(o, "action", json_string(u->action));
		json_object_set_new(o, "target", json_string(u->target));
		json_object_set_new(o, "when", json_string(u->when));
		json_object_set_new(o, "why", json_string(u->why));
		json_array_append_new(a, o);
	}
	return a;
}

/* Every firing of a configured fault, in time order: index, at_us. */
static json_t *j_timeline(const struct mrc_run_result *res)
{
	json_t *a = json_array();

	for (size_t i = 0; i < res->n_fires; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "index", json_integer(res->fires[i].index));
		json_object_set_new(o, "at_us", json_real((double)res->fires[i].at_ps / PS_US));
		json_array_append_new(a, o);
	}
	return a;
}

/* The rows of @n sizes (report.json sizes[]); @job names a job of several (its
 * histograms' tags), NULL the top level. */
static json_t *j_sizes(const struct mrc_run_size *sizes, size_t n, const struct conf_hist *hc,
	const struct mrc_run_job *job)
{
	json_t *a = json_array(), *o;

	for (size_t s = 0; s < n; s++) {
		const struct mrc_run_size *rs = &sizes[s];

		o = json_object();
		json_object_set_new(o, "bytes", json_integer((json_int_t)rs->bytes));
		json_object_set_new(o, "count", json_integer((json_int_t)rs->count));
		/* a size the job failed in has no time: null, never 0 */
		json_object_set_new(o, "time_us", j_real_if(!rs->incomplete, rs->time_us));
		json_object_set_new(o, "algbw_GBps", j_real_if(!rs->incomplete, rs->algbw_gbs));
		json_object_set_new(o, "busbw_GBps", j_real_if(!rs->incomplete, rs->busbw_gbs));
		json_object_set_new(o, "wrong", json_integer((json_int_t)rs->wrong));
		json_object_set_new(o, "cct_us", j_cct(rs, hc, job));
		if (rs->n_pairs)
			j_pairs(o, rs);
		json_array_append_new(a, o);
	}
	return a;
}

/* The rows of @n iterations (report.json iterations[]) of @sizes; with @job's phases, each
 * one's times too. */
static json_t *j_iters(const struct mrc_run_size *sizes, const struct mrc_run_iter *iters,
	size_t n, const struct mrc_run_job *job)
{
	json_t *a = json_array(), *o;

	for (size_t i = 0; i < n; i++) {
		const struct mrc_run_iter *it = &iters[i];

		o = json_object();
		json_object_set_new(o, "bytes",
			json_integer((json_int_t)sizes[it->size_idx].bytes));
		json_object_set_new(o, "iter", json_integer(it->iter));
		json_object_set_new(o, "measured", it->warmup ? json_null() :
							json_integer(it->measured));
		json_object_set_new(o, "warmup", json_boolean(it->warmup));
		json_object_set_new(o, "start_us", json_real((double)it->start_ps / PS_US));
		json_object_set_new(o, "cct_us", j_real_if(!it->incomplete,
						   (double)it->cct_ps / PS_US));
		json_object_set_new(o, "wrong", json_integer((json_int_t)it->wrong));
		json_object_set_new(o, "faults", json_integer(it->faults));
		json_object_set_new(o, "degraded", json_boolean(it->degraded));
		json_object_set_new(o, "slowest_rank", it->incomplete ? json_null() :
							     json_integer(it->slowest_rank));
		if (job && job->n_phases) {
			json_t *pa = json_array();

			for (size_t p = 0; p < job->n_phases; p++)
				json_array_append_new(pa, j_real_if(!it->incomplete,
					(double)job->phase_ps[i * job->n_phases + p] / PS_US));
			json_object_set_new(o, "phase_us", pa);
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* A job's phases (traffic.phases): each one's kind, what it ran and its times. */
static json_t *j_phases(const struct mrc_run_job *rj, const struct conf_hist *hc)
{
	json_t *a = json_array();

	for (size_t p = 0; p < rj->n_phases; p++) {
		const struct mrc_run_phase *rp = &rj->phases[p];
		json_t *o = json_object();
		char tag[64];

		phase_tag(rj, p, tag, sizeof(tag));
		json_object_set_new(o, "kind", json_string(rp->gap ? "gap" : "collective"));
		json_object_set_new(o, "pattern", rp->gap ? json_null() :
			json_string(conf_name_of(conf_pattern_names, rp->pattern)));
		json_object_set_new(o, "algorithm", rp->gap ? json_null() :
			json_string(conf_name_of(conf_algorithm_names, rp->algorithm)));
		json_object_set_new(o, "bytes", rp->gap ? json_null() :
			json_integer((json_int_t)rp->bytes));
		json_object_set_new(o, "gap_us", rp->gap ? json_real((double)rp->gap_ps / PS_US) :
			json_null());
		json_object_set_new(o, "time_us", json_real(rp->time_us));
		json_object_set_new(o, "busbw_GBps", j_real_if(!rp->gap && rp->time_us > 0,
			rp->busbw_gbs));
		json_object_set_new(o, "hist_us", j_hist(rp->time_ns, hc, tag));
		json_array_append_new(a, o);
	}
	return a;
}

/* A background job's window, s: from its start to the other jobs' end or, when the run
 * stopped first (unfinished), to where it stopped; 0 when it never started. */
static double bg_seconds(const struct mrc_run_job *rj)
{
	return rj->started && rj->end_ps > rj->start_ps ?
		       (double)(rj->end_ps - rj->start_ps) / 1e12 : 0;
}

/* What a background job offered and delivered (docs/report.md "Several jobs"). */
static json_t *j_background(const struct mrc_run_job *rj)
{
	json_t *o = json_object();
	double t = bg_seconds(rj);
	double per = rj->bg_hosts && t > 0 ? 8.0 / rj->bg_hosts / t / 1e9 : 0;
	uint64_t off = rj->bg_posted * rj->bg_msg_bytes, del = rj->bg_completed * rj->bg_msg_bytes;

	json_object_set_new(o, "rate_Gbps", json_real((double)rj->bg_rate_bps / 1e9));
	json_object_set_new(o, "mode", json_string(conf_name_of(conf_bg_mode_names,
						    rj->bg_mode)));
	json_object_set_new(o, "message_bytes", json_integer((json_int_t)rj->bg_msg_bytes));
	json_object_set_new(o, "duration_us", json_real(t * 1e6));
	json_object_set_new(o, "messages_offered", json_integer((json_int_t)rj->bg_posted));
	json_object_set_new(o, "messages_delivered",
		json_integer((json_int_t)rj->bg_completed));
	json_object_set_new(o, "messages_refused", json_integer((json_int_t)rj->bg_refused));
	json_object_set_new(o, "offered_bytes", json_integer((json_int_t)off));
	json_object_set_new(o, "delivered_bytes", json_integer((json_int_t)del));
	json_object_set_new(o, "offered_Gbps_per_host", json_real((double)off * per));
	json_object_set_new(o, "delivered_Gbps_per_host", json_real((double)del * per));
	return o;
}

/* report.json jobs[]: traffic as a list, each job's own table (docs/report.md "Several jobs"). */
static json_t *j_jobs(const struct conf_job *job, const struct mrc_run_result *res)
{
	json_t *a = json_array();

	for (size_t j = 0; j < res->n_jobs; j++) {
		const struct mrc_run_job *rj = &res->jobs[j];
		const struct conf_traffic *t = conf_job_traffic(job, j);
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(rj->name));
		/* a step of phases has its patterns in phases[] */
		json_object_set_new(o, "pattern", json_string(t->n_phases ? "phases" :
			conf_name_of(conf_pattern_names, t->pattern)));
		json_object_set_new(o, "algorithm", t->n_phases || rj->background ? json_null() :
			json_string(conf_name_of(conf_algorithm_names, t->algorithm)));
		json_object_set_new(o, "hosts", json_string(t->hosts));
		json_object_set_new(o, "ranks", json_integer(rj->nranks));
		json_object_set_new(o, "after", t->after[0] ? json_string(t->after) : json_null());
		json_object_set_new(o, "start_us", j_real_if(rj->started,
						      (double)rj->start_ps / PS_US));
		json_object_set_new(o, "end_us", j_real_if(rj->finished,
						    (double)rj->end_ps / PS_US));
		json_object_set_new(o, "sizes", j_sizes(rj->sizes, rj->n_sizes, &job->output.hist,
							rj));
		json_object_set_new(o, "iterations", j_iters(rj->sizes, rj->iters, rj->n_iters,
							     rj));
		if (rj->n_phases) {
			json_object_set_new(o, "step_us", j_cct(&rj->sizes[0], &job->output.hist,
								rj));
			json_object_set_new(o, "phases", j_phases(rj, &job->output.hist));
		}
		if (rj->background)
			json_object_set_new(o, "background", j_background(rj));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *j_report(const struct conf_job *job, const struct mrc_run_result *res)
{
	const struct conf_hist *hc = &job->output.hist;
	json_t *root = json_object(), *a, *o;
	char *yaml = conf_dump_string(job, NULL);

	json_object_set_new(root, "schema", json_string("mrcgen-report/1"));
	json_object_set_new(root, "ok", json_boolean(mrc_report_ok(res)));
	json_object_set_new(root, "error", res->error[0] ? json_string(res->error) : json_null());
	json_object_set_new(root, "interrupted", json_boolean(res->interrupted != 0));
	a = json_array();
	if (res->error[0])
		json_array_append_new(a, json_string(res->error));
	for (size_t i = 0; i < res->n_errors; i++)
		json_array_append_new(a, json_string(res->errors[i]));
	json_object_set_new(root, "errors", a);
	json_object_set_new(root, "config_file", json_string(job->source ? job->source : ""));
	json_object_set_new(root, "config", json_string(yaml ? yaml : ""));
	free(yaml);

	o = json_object();
	json_object_set_new(o, "driver", json_string(conf_name_of(conf_driver_names,
						  job->fabric.driver)));
	json_object_set_new(o, "transport", json_string(conf_name_of(conf_transport_names,
						     job->mrc.transport)));
	json_object_set_new(o, "pattern", json_string(conf_name_of(conf_pattern_names,
						   job->traffic.pattern)));
	json_object_set_new(o, "algorithm", json_string(conf_name_of(conf_algorithm_names,
						     job->traffic.algorithm)));
	json_object_set_new(o, "dtype", json_string(conf_name_of(conf_dtype_names,
						 job->traffic.dtype)));
	json_object_set_new(o, "ranks", json_integer(res->nranks));
	json_object_set_new(o, "hosts", json_integer(conf_fabric_hosts(&job->fabric)));
	json_object_set_new(o, "planes", json_integer(job->fabric.planes));
	json_object_set_new(o, "seed", json_integer((json_int_t)job->seed));
	json_object_set_new(root, "job", o);

	json_object_set_new(root, "sizes", j_sizes(res->sizes, res->n_sizes, hc, NULL));
	json_object_set_new(root, "iterations",
		j_iters(res->sizes, res->iters, res->n_iters, NULL));
	if (res->n_jobs)
		json_object_set_new(root, "jobs", j_jobs(job, res));

	o = json_object();
	a = json_array();
	for (size_t s = 0; s < res->n_sizes; s++)
		json_array_append_new(a, j_cct(&res->sizes[s], hc, NULL));
	json_object_set_new(o, "cct_us", a);
	json_object_set_new(o, "message_us", j_hist(res->msg_ns, hc, "message"));
	json_object_set_new(o, "step_us", j_hist(res->step_ns, hc, "step"));
	json_object_set_new(o, "qp_rtt_us", j_hist(res->rtt_ns, hc, "qp_rtt"));
	json_object_set_new(root, "latency", o);

	a = json_array();
	for (size_t f = 0; f < res->n_faults; f++) {
		const struct mrc_run_fault *rf = &res->faults[f];
		json_t *st = json_object();
		char hex[16];

		o = json_object();
		json_object_set_new(o, "at_us", json_real((double)rf->at_ps / PS_US));
		json_object_set_new(o, "iteration", rf->in_warmup ? json_null() :
							   json_integer(rf->measured));
		json_object_set_new(o, "global_iteration", json_integer(rf->iter));
		json_object_set_new(o, "action", json_string(rf->action));
		json_object_set_new(o, "target", json_string(rf->target));
		json_object_set_new(o, "first_ev_retired_us",
			rf->first_retire_ps < 0 ? json_null() :
						  json_real((double)rf->first_retire_ps / PS_US));
		json_object_set_new(o, "evs_retired", json_integer((json_int_t)rf->evs_retired));
		json_object_set_new(o, "recovery_us", rf->recovery_ps < 0 ? json_null() :
			json_real((double)rf->recovery_ps / PS_US));
		json_object_set_new(o, "goodput_dip", rf->recovery_note && !rf->dipped &&
			rf->recovery_ps < 0 ? json_null() : json_boolean(rf->dipped));
		json_object_set_new(o, "recovery_note", rf->recovery_note ?
			json_string(rf->recovery_note) : json_null());
		json_object_set_new(o, "capacity_left", json_real(rf->capacity_frac));
		json_object_set_new(o, "reconverged_us", rf->reconverge_ps < 0 ? json_null() :
			json_real((double)rf->reconverge_ps / PS_US));
		json_object_set_new(o, "rtx_bytes", json_integer((json_int_t)rf->rtx_bytes));
		json_object_set_new(o, "cct_inflation",
			rf->unfinished ? json_null() : json_real(rf->cct_inflation));
		json_object_set_new(st, "rank", json_integer(rf->straggler_rank));
		json_object_set_new(st, "step", json_integer(rf->straggler_step));
		snprintf(hex, sizeof(hex), "0x%08x", rf->straggler_ev);
		json_object_set_new(st, "ev",
			rf->has_straggler_ev ? json_string(hex) : json_null());
		if (rf->unfinished) {
			json_decref(st);
			st = json_null();
		}
		json_object_set_new(o, "straggler", st);
		json_object_set_new(o, "flap", rf->flap ? j_flap(rf) : json_null());
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "faults", a);
	json_object_set_new(root, "faults_not_applied", j_unapplied(res));
	json_object_set_new(root, "fault_timeline", j_timeline(res));

	a = json_array();
	for (size_t e = 0; e < res->n_evs; e++) {
		const struct mrc_run_ev *ev = &res->evs[e];
		char hex[16];

		snprintf(hex, sizeof(hex), "0x%08x", ev->ev);
		o = json_object();
		json_object_set_new(o, "ev", json_string(hex));
		json_object_set_new(o, "plane", json_integer(ev->plane));
		json_object_set_new(o, "spine", json_integer(ev->spine));
		json_object_set_new(o, "tx_pkts", json_integer((json_int_t)ev->tx_pkts));
		json_object_set_new(o, "rtx_pkts", json_integer((json_int_t)ev->rtx_pkts));
		json_object_set_new(o, "losses", json_integer((json_int_t)ev->losses));
		json_object_set_new(o, "ecn", json_integer((json_int_t)ev->ecn));
		json_object_set_new(o, "trims", json_integer((json_int_t)ev->trims));
		json_object_set_new(o, "nacks", json_integer((json_int_t)ev->nacks));
		json_object_set_new(o, "probes", json_integer((json_int_t)ev->probes));
		json_object_set_new(o, "probes_ok", json_integer((json_int_t)ev->probes_ok));
		json_object_set_new(o, "state_changes", json_integer((json_int_t)ev->changes));
		json_object_set_new(o, "rtt_us", ev->rtt_samples ?
			json_real((double)ev->rtt_sum_ps / ev->rtt_samples / PS_US) : json_null());
		json_object_set_new(o, "bad_qps", json_integer(ev->bad_qps));
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "evs", a);

	/* written straight into the text by dump_json (links_text): 30 MB of 8192 hosts' links
	 * as jansson objects cost 0.3 s to build and dump */
	json_object_set_new(root, "links", json_string(LINKS_MARK));

	o = json_object();
#define C(k, v) json_object_set_new(o, k, json_integer((json_int_t)(v)))
	C("data_pkts", res->data_pkts);
	C("data_bytes", res->data_bytes);
	C("rtx_pkts", res->rtx_pkts);
	C("rtx_bytes", res->rtx_bytes);
	C("sacks", res->sacks);
	C("nacks", res->nacks);
	C("nacks_trimmed", res->nack_trimmed);
	C("probes", res->probes);
	C("ecn_echoes", res->ecn_echoes);
	C("losses_sack", res->losses_sack);
	C("losses_rto", res->losses_rto);
	C("losses_port", res->losses_port);
	C("losses_path", res->losses_path);
	C("tail_probes", res->tlp);
	C("gbn_rewinds", res->gbn_rewinds);
	C("cnps_sent", res->cnps_sent);
	C("cnps_received", res->cnps_received);
	C("rate_cuts", res->rate_cuts);
	C("rx_duplicates", res->rx_dup);
	C("rx_reordered", res->rx_reordered);
	C("rx_decode_errors", res->rx_decode_err);
	C("tx_encode_errors", res->tx_encode_err);
	C("qp_errors", res->qp_errors);
/* the fabric's figures: null when they are absent (res->fabric_absent) */
#define F(k, v) json_object_set_new(o, k, res->fabric_absent ? json_null() : \
				       json_integer((json_int_t)(v)))
	F("fabric_drops", res->fab_drops);
	F("fabric_down_drops", res->fab_down_drops);
	F("fabric_trims", res->fab_trims);
	F("fabric_ecn_marks", res->fab_ecn);
	F("fabric_lost", res->fab_lost);
	F("fabric_no_route", res->fab_no_route);
	F("fabric_hop_limit", res->fab_hop_limit);
	F("fabric_icmp_sent", res->fab_icmp_sent);
	F("fabric_icmp_rate_limited", res->fab_icmp_rate_limited);
	F("fabric_pfc_pauses", res->fab_pfc_pauses);
	F("fabric_pfc_headroom_drops", res->fab_pfc_headroom_drops);
	C("icmp_time_exceeded", res->rx_icmp_time_exceeded);
	C("icmp_other", res->rx_icmp_other);
	C("rx_dropped_foreign", res->rx_foreign);
	C("rx_dropped_wrong_plane", res->rx_wrong_plane);
	C("rx_dropped_spoofed", res->rx_spoofed);
	C("rx_dropped_misdirected", res->rx_misdirected);
	C("ep_requests", res->ep_requests);
	C("ep_responses", res->ep_responses);
	C("ep_responses_unmatched", res->ep_responses_unmatched);
	C("probe_answers_unmatched", res->probe_answers_unmatched);
	C("host_send_errors", res->host_send_errors);
	C("host_socket_drops", res->host_socket_drops);
	C("host_cq_overflows", res->host_cq_overflows);
	C("host_cq_dropped", res->host_cq_dropped);
	C("host_truncated", res->host_truncated);
	C("host_foreign", res->host_foreign);
	F("sim_events", res->events);
	F("packet_hops", res->pkt_hops);
	F("packets_injected", res->injected);
	F("packets_delivered", res->delivered);
	C("qps", res->qps);
#undef C
#undef F
	json_object_set_new(o, "fabric_pfc_paused_us", j_real_if(!res->fabric_absent,
		(double)res->fab_pfc_paused_ps / PS_US));
	json_object_set_new(o, "fabric_pfc_paused_host_us", j_real_if(!res->fabric_absent,
		(double)res->fab_pfc_paused_host_ps / PS_US));
	json_object_set_new(o, "sim_end_us", json_real((double)res->sim_end_ps / PS_US));
	json_object_set_new(root, "counters", o);

	o = json_object();
	a = json_array();
	json_object_set_new(o, "bin_us", json_real((double)res->bin_ps / PS_US));
	for (size_t b = 0; b < res->n_bins && b * res->bin_ps <= res->sim_end_ps; b++)
		json_array_append_new(a, json_real((double)res->bin_bytes[b] * 8 /
						   ((double)res->bin_ps / 1e12) / 1e9));
	json_object_set_new(o, "gbps", a);
	json_object_set_new(root, "goodput", o);
	if (res->wire_rtt) {
		o = json_object();
		a = json_array();
		for (uint32_t i = 0; res->rank_rtt_ns && i < res->n_rank_rtt; i++)
			json_array_append_new(a, res->rank_rtt_ns[i] ?
				json_real((double)res->rank_rtt_ns[i] / 1e3) : json_null());
		json_object_set_new(o, "base_rtt_us", json_real((double)res->base_rtt_ns / 1e3));
		json_object_set_new(o, "base_rtt_source", json_string(res->base_rtt_source));
		json_object_set_new(o, "rank_rtt_us", a);
		json_object_set_new(o, "rtt_probes", json_integer((json_int_t)res->rtt_probes));
		json_object_set_new(o, "rtt_answered", json_integer((json_int_t)res->rtt_answered));
		a = json_array();
		for (uint32_t i = 0; i < res->n_failed_ranks; i++)
			json_array_append_new(a, json_integer(res->failed_ranks[i]));
		json_object_set_new(o, "failed_ranks", a);
		a = json_array();
		for (uint32_t i = 0; i < res->n_ranks_reported; i++)
			json_array_append_new(a, json_integer(res->ranks_reported[i]));
		json_object_set_new(o, "ranks_reported", a);
		a = json_object();
		json_object_set_new(a, "ranks", json_integer((json_int_t)res->xdp_ranks));
		json_object_set_new(a, "threads", json_integer(res->xdp_threads ?
			(json_int_t)res->xdp_threads : 1));
		json_object_set_new(a, "ports", json_integer((json_int_t)res->xdp_ports));
		json_object_set_new(a, "zero_copy_ports",
			json_integer((json_int_t)res->xdp_zc_ports));
		json_object_set_new(a, "malformed_dropped",
			json_integer((json_int_t)res->xdp_malformed));
		json_object_set_new(a, "no_socket_dropped",
			json_integer((json_int_t)res->xdp_no_xsk));
		json_object_set_new(a, "passed_to_kernel",
			json_integer((json_int_t)res->xdp_passed));
		json_object_set_new(a, "reassembled",
			json_integer((json_int_t)res->xdp_reassembled));
		json_object_set_new(o, "xdp", a);
		json_object_set_new(o, "bootstrap",
			json_string(res->bootstrap ? res->bootstrap : "rendezvous"));
		json_object_set_new(root, "wire", o);
	}
	return root;
}

/* hist/TAG.hgrm of histogram @i of write_hists' order: cct_SIZE per size, then message, step,
 * qp_rtt. */
static const struct mrc_hist *hist_at(const struct mrc_run_result *res, size_t i, char *tag,
	size_t tlen)
{
	static const char *const tags[] = { "message", "step", "qp_rtt" };
	const struct mrc_hist *h[3] = { res->msg_ns, res->step_ns, res->rtt_ns };

	if (i < res->n_sizes) {
		cct_tag(&res->sizes[i], NULL, tag, tlen);
		return res->sizes[i].cct_ns;
	}
	snprintf(tag, tlen, "%s", tags[i - res->n_sizes]);
	return h[i - res->n_sizes];
}

/* One histogram as hist/TAG.hgrm (@path) and, when @log, an interval of latency.hlog tagged
 * TAG. 0, or -1 with @path the file that failed (the .hgrm or @log_path) and *@partial set
 * when that .hgrm was created and is incomplete. */
static int write_hist(const char *tag, const struct mrc_hist *h, FILE *log, const char *log_path,
	double len_s, char *path, size_t plen, bool *partial)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	*partial = true;
	if (mrc_hist_write_hgrm(h, f, 5, 1000.0) | fclose(f))
		return -1;
	*partial = false;
	if (log && mrc_hist_hlog_interval(log, tag, 0, len_s, h, 1e6)) {
		snprintf(path, plen, "%s", log_path);
		return -1;
	}
	return 0;
}

/*
 * hist/TAG.hgrm for every histogram and latency.hlog with one interval per tag: cct_SIZE
 * per message size (docs/histograms.md), message, step, qp_rtt. Stops at the first file
 * that cannot be written whole: that file and latency.hlog (incomplete then) are removed,
 * the .hgrm files written before it stay, and the failure is an entry of res->errors
 * ("hist write: PATH: reason"). Notes each .hgrm written whole in @mk. Returns 0 or a
 * negative errno.
 */
static int write_hists(const struct conf_job *job, struct mrc_run_result *res,
	struct made *mk)
{
	char path[4096], log_path[4096], tag[80];
	FILE *log = NULL;
	bool log_made = false, partial = false;
	double len_s = (double)res->sim_end_ps / 1e12;
	int e;

	snprintf(log_path, sizeof(log_path), "%s/latency.hlog", job->output.dir);
	snprintf(path, sizeof(path), "%s/hist", job->output.dir);
	errno = 0;
	if (mkdir(path, 0755) && errno != EEXIST)
		goto io;
	if (job->output.hlog) {
		snprintf(path, sizeof(path), "%s", log_path);
		errno = 0;
		log = fopen(path, "w");
		log_made = log != NULL;
		if (!log || mrc_hist_hlog_head(log, 0, 0))
			goto io;
	}
	for (size_t i = 0; i < res->n_sizes + 3; i++) {
		const struct mrc_hist *h = hist_at(res, i, tag, sizeof(tag));

		snprintf(path, sizeof(path), "%s/hist/%s.hgrm", job->output.dir, tag);
		errno = 0;
		if (write_hist(tag, h, log, log_path, len_s, path, sizeof(path), &partial))
			goto io;
		made_add(mk, "hist", tag, ".hgrm");
	}
	for (size_t j = 0; j < res->n_jobs; j++) { /* each job's, tagged with its name */
		const struct mrc_run_job *rj = &res->jobs[j];

		for (size_t i = 0; i < rj->n_sizes + rj->n_phases; i++) {
			const struct mrc_hist *h;

			if (i < rj->n_sizes) {
				cct_tag(&rj->sizes[i], rj, tag, sizeof(tag));
				h = rj->sizes[i].cct_ns;
			} else {
				phase_tag(rj, i - rj->n_sizes, tag, sizeof(tag));
				h = rj->phases[i - rj->n_sizes].time_ns;
			}
			snprintf(path, sizeof(path), "%s/hist/%s.hgrm", job->output.dir, tag);
			errno = 0;
			if (write_hist(tag, h, log, log_path, len_s, path, sizeof(path), &partial))
				goto io;
			made_add(mk, "hist", tag, ".hgrm");
		}
	}
	snprintf(path, sizeof(path), "%s", log_path);
	errno = 0;
	if (log && fclose(log)) {
		log = NULL;
		goto io;
	}
	return 0;
io:
	e = errno ? errno : EIO;
	if (log)
		fclose(log);
	if (partial)
		unlink(path);
	if (log_made)
		unlink(log_path);
	mrc_run_add_error(res, "hist write: %s: %s", path, strerror(e));
	return -e;
}

/* The x of each iteration of res->iters in the CCT plot: at_iteration's numbering within
 * its size, warmup iterations at -warmup..-1. */
static void iter_x(const struct conf_job *job, const struct mrc_run_result *res, double *ix,
	uint32_t *warm)
{
	for (size_t i = 0; i < res->n_iters; i++) {
		const struct mrc_run_iter *it = &res->iters[i];

		if (it->warmup)
			ix[i] = (double)warm[it->size_idx]++ - job->traffic.warmup;
		else
			ix[i] = it->measured;
	}
}

/* True when the mean CCTs of the sizes span more than 10x: a log y axis then. */
static bool cct_logy(const struct mrc_run_result *res)
{
	double lo = INFINITY, hi = 0;

	for (size_t s = 0; s < res->n_sizes; s++)
		if (res->sizes[s].time_us > 0) {
			lo = fmin(lo, res->sizes[s].time_us);
			hi = fmax(hi, res->sizes[s].time_us);
		}
	return hi > 10 * lo;
}

/* plots/@name.png through mrc_plot_png, noting in @mk the files it made: NAME.dat and
 * NAME.gp once past its checks, NAME.png when gnuplot drew it. */
static void plot_png(struct made *mk, const char *dir, const char *name, const struct mrc_plot *p)
{
	int e = mrc_plot_png(dir, name, p);

	if (e == -EINVAL)
		return;
	made_add(mk, "plots", name, ".dat");
	made_add(mk, "plots", name, ".gp");
	if (!e)
		made_add(mk, "plots", name, ".png");
}

/* The x tics of a percentile spectrum's 1/(1-p) axis. */
#define SPECTRUM_XTICS "('0%%' 1, '90%%' 10, '99%%' 100, '99.9%%' 1000, '99.99%%' 10000, " \
	"'99.999%%' 100000, '99.9999%%' 1000000)"

/*
 * plots/spectrum_KIND.png: the percentile spectrum of histogram kind @kind, as
 * HdrHistogram's plotter draws it (latency against 1/(1-percentile) on a log axis), one
 * curve per non-empty histogram @h[i] read from its hist/@tags[i].hgrm (@titles[i] in the
 * key). Nothing when every one is empty.
 */
static void plot_spectrum(struct made *mk, const char *dir, const char *kind, const char *title,
	bool logy, const struct mrc_hist *const *h, char (*tags)[48], char (*titles)[64], size_t n)
{
	struct mrc_plot_series *c = calloc(n ? n : 1, sizeof(*c));
	char (*files)[80] = calloc(n ? n : 1, sizeof(*files));
	char name[64];
	size_t k = 0;

	for (size_t i = 0; c && files && i < n; i++) {
		if (!mrc_hist_count(h[i]))
			continue;
		snprintf(files[k], sizeof(files[k]), "../hist/%s.hgrm", tags[i]);
		c[k] = (struct mrc_plot_series){ .title = titles[i], .file = files[k],
			.using = "4:1" };
		k++;
	}
	snprintf(name, sizeof(name), "spectrum_%s", kind);
	if (k)
		plot_png(mk, dir, name, &(struct mrc_plot){ .title = title,
			.xlabel = "percentile", .ylabel = "latency (us)", .series = c,
			.n_series = k, .logx = 1, .logy = logy, .style = MRC_PLOT_LINES,
			.xtics = SPECTRUM_XTICS, .key = logy ? "outside right top" : NULL,
			.xrange = "[1:*]", .yrange = logy ? NULL : "[0:*]" });
	free(c);
	free(files);
}

/*
 * The plots of a run, in DIR/plots: cct (CCT per iteration, one curve per size, faults
 * marked at their iteration), goodput (delivered bytes per bin, faults marked at their
 * time) and, when the histogram files were written (@hists), one percentile spectrum per
 * histogram kind: spectrum_cct (a curve per size), spectrum_message, spectrum_step,
 * spectrum_qp_rtt. Notes the files it made in @mk.
 */
static void write_plots(const struct conf_job *job, const struct mrc_run_result *res, bool hists,
	struct made *mk)
{
	char dir[4096], l[32], xr[64];
	double lo = INFINITY, hi = -INFINITY;
	size_t n = 0, nm = 0, ns = res->n_sizes, nb = res->n_bins + 1;
	double *x = calloc(res->n_iters + nb, sizeof(double));
	double *y = calloc(res->n_iters + nb, sizeof(double));
	double *ix = calloc(res->n_iters + 1, sizeof(double));
	uint32_t *warm = calloc(ns + 1, sizeof(*warm));
	struct mrc_plot_series *c = calloc(ns + 3, sizeof(*c));
	const struct mrc_hist **h = calloc(ns + 3, sizeof(*h));
	char (*tags)[48] = calloc(ns + 3, sizeof(*tags));
	char (*titles)[64] = calloc(ns + 3, sizeof(*titles));
	struct mrc_plot_marker *m = calloc(res->n_faults + 1, sizeof(*m));
	struct mrc_plot_marker *cm = calloc(res->n_faults + 1, sizeof(*cm));
	size_t *cf = calloc(res->n_faults + 1, sizeof(*cf)); /* a marker's first fault */
	size_t *cn = calloc(res->n_faults + 1, sizeof(*cn)); /* and how many it marks */
	char (*lab)[80] = calloc(res->n_faults + 1, sizeof(*lab));
	char (*clab)[160] = calloc(res->n_faults + 1, sizeof(*clab));
	bool logy = cct_logy(res);

	snprintf(dir, sizeof(dir), "%s/plots", job->output.dir);
	if (!x || !y || !ix || !warm || !c || !h || !tags || !titles || !m || !cm || !cf || !cn ||
		!lab || !clab || (mkdir(dir, 0755) && errno != EEXIST))
		goto out;

	/* CCT per iteration, a curve per size; faults marked at the iteration they hit */
	iter_x(job, res, ix, warm);
	for (size_t s = 0; s < ns; s++) {
		size_t first = n;

		for (size_t i = 0; i < res->n_iters; i++) {
			if (res->iters[i].size_idx != s || res->iters[i].incomplete) /* no CCT */
				continue;
			x[n] = ix[i];
			y[n++] = (double)res->iters[i].cct_ps / PS_US;
		}
		mrc_report_size_label(res->sizes[s].bytes, titles[s], sizeof(titles[s]));
		c[s] = (struct mrc_plot_series){ .title = ns > 1 ? titles[s] : NULL,
			.x = x + first, .y = y + first, .n = n - first };
	}
	/* one marker per fault at its iteration; with several sizes, one per target, action and
	 * iteration number, naming the sizes it hit ("each size": at_iteration hits them all) */
	for (size_t f = 0; f < res->n_faults; f++) {
		const struct mrc_run_fault *fa = &res->faults[f];
		double fx = (double)fa->iter - job->traffic.warmup;
		size_t j = 0;

		l[0] = 0;
		for (size_t i = 0; i < res->n_iters; i++)
			if (res->iters[i].iter == fa->iter) {
				fx = ix[i];
				snprintf(l, sizeof(l), "%s", titles[res->iters[i].size_idx]);
			}
		snprintf(lab[f], sizeof(lab[f]), "%s %s", fa->target, fa->action);
		while (j < nm && !(cm[j].x == fx && strcmp(lab[cf[j]], lab[f]) == 0))
			j++;
		if (j == nm) {
			cf[nm] = f;
			cm[nm++].x = fx;
			snprintf(clab[j], sizeof(clab[j]), "%s (%s", lab[f], l);
		} else if (strlen(clab[j]) + strlen(l) + 3 < sizeof(clab[j])) {
			strcat(strcat(clab[j], ", "), l);
		}
		cn[j]++;
	}
	for (size_t j = 0; j < nm; j++) {
		if (ns == 1) /* one size: no need to name it */
			clab[j][strlen(lab[cf[j]])] = 0;
		else if (cn[j] == ns) /* at_iteration's: every size's iteration */
			snprintf(clab[j], sizeof(clab[j]), "%s (each size)", lab[cf[j]]);
		else
			strcat(clab[j], ")");
		cm[j].label = clab[j];
	}
	/* every iteration number shown (a tic each, when few), half an iteration either side */
	for (size_t i = 0; i < n + nm; i++) {
		lo = fmin(lo, i < n ? x[i] : cm[i - n].x);
		hi = fmax(hi, i < n ? x[i] : cm[i - n].x);
	}
	snprintf(xr, sizeof(xr), "[%g:%g]", n + nm ? lo - 0.5 : -0.5, n + nm ? hi + 0.5 : 0.5);
	plot_png(mk, dir, "cct", &(struct mrc_plot){
		.title = "Collective completion time per iteration",
		.xlabel = "iteration (as at_iteration counts; warmup < 0)", .ylabel = "CCT (us)",
		.series = c, .n_series = ns, .markers = cm, .n_markers = nm, .logy = logy,
		.key = logy ? "outside right top" : NULL, .xrange = xr,
		.xtics = hi - lo <= 24 ? "1" : NULL, .yrange = logy ? NULL : "[0:*]" });

	/* goodput over time */
	n = 0;
	for (size_t b = 0; b < res->n_bins && b * res->bin_ps <= res->sim_end_ps; b++) {
		x[n] = (double)(b * res->bin_ps) / 1e9;
		y[n++] = (double)res->bin_bytes[b] * 8 / ((double)res->bin_ps / 1e12) / 1e9;
	}
	for (size_t f = 0; f < res->n_faults; f++) {
		m[f].x = (double)res->faults[f].at_ps / 1e9;
		m[f].label = lab[f];
	}
	plot_png(mk, dir, "goodput", &(struct mrc_plot){ .title = "Delivered to hosts (all ranks)",
		.xlabel = "virtual time (ms)", .ylabel = "Gb/s",
		.series = &(struct mrc_plot_series){ .x = x, .y = y, .n = n }, .n_series = 1,
		.markers = m, .n_markers = res->n_faults, .style = MRC_PLOT_STEPS,
		.xrange = "[0:*]", .yrange = "[0:*]" });

	if (!hists)
		goto out;
	/* percentile spectra, from the .hgrm files, in hist_at's order */
	for (size_t i = 0; i < ns + 3; i++) {
		h[i] = hist_at(res, i, tags[i], sizeof(tags[i]));
		if (i < ns)
			snprintf(titles[i] + strlen(titles[i]),
				sizeof(titles[i]) - strlen(titles[i]), ", %lld iterations",
				(long long)mrc_hist_count(h[i]));
	}
	snprintf(titles[ns], sizeof(titles[ns]), "%lld writes", (long long)mrc_hist_count(h[ns]));
	snprintf(titles[ns + 1], sizeof(titles[ns + 1]), "%lld steps",
		(long long)mrc_hist_count(h[ns + 1]));
	snprintf(titles[ns + 2], sizeof(titles[ns + 2]), "%lld QPs",
		(long long)mrc_hist_count(h[ns + 2]));
	plot_spectrum(mk, dir, "cct", "Collective completion time (measured iterations)", logy, h,
		tags, titles, ns);
	plot_spectrum(mk, dir, "message", "RDMA write latency (post to completion)", false, h + ns,
		tags + ns, titles + ns, 1);
	plot_spectrum(mk, dir, "step", "Step time (per rank and step)", false, h + ns + 1,
		tags + ns + 1, titles + ns + 1, 1);
	plot_spectrum(mk, dir, "qp_rtt", "QP RTT (mean packet RTT of each QP over the run)", false,
		h + ns + 2, tags + ns + 2, titles + ns + 2, 1);
out:
	free(x);
	free(y);
	free(ix);
	free(warm);
	free(c);
	free(h);
	free(tags);
	free(titles);
	free(m);
	free(cm);
	free(cf);
	free(cn);
	free(lab);
	free(clab);
}

/*
 * The report's JSON tree lives in an arena: while it is built, jansson allocates through
 * json_set_alloc_funcs (the library's hook) from blocks of ARENA_BLOCK bytes, and the
 * tree is dropped with the blocks, not node by node: json_decref of a 1024-host job's
 * tree (24,480 links, 9 keys each) was 6.5 % of that job's instructions. What jansson
 * frees while building (a hashtable's buckets as it grows) goes on a free list per
 * ARENA_STEP-byte class for the next piece of that class; pieces above ARENA_SMALL bytes
 * (an array's storage, long strings) come from malloc, listed, and go back to free. A
 * piece costs its size rounded to 8 bytes plus one word, as a malloc chunk does.
 */
#define ARENA_BLOCK ((size_t)64 << 10)
#define ARENA_STEP ((size_t)8)
#define ARENA_SMALL ((size_t)512)

/* Pieces are 8-byte aligned (jansson keeps pointers, sizes, int64 and double) and follow
 * their class, one word; a large piece (class 0) has its list links before that. */
struct arena_block {
	struct arena_block *next;
	size_t used;
	size_t mem[];
};

struct arena_large {
	struct arena_large *prev, *next;
	size_t cls; /* 0 */
};

static struct arena_block *arena;
static struct arena_large *arena_large;			/* large pieces still held */
static void *arena_freed[ARENA_SMALL / ARENA_STEP + 1]; /* per class, linked by first word */

static void *arena_alloc(size_t n)
{
	size_t cls = n ? (n + ARENA_STEP - 1) / ARENA_STEP : 1, words;
	size_t *h;

	if (n > ARENA_SMALL) {
		struct arena_large *l = malloc(sizeof(*l) + n);

		if (!l)
			return NULL;
		l->cls = 0;
		l->prev = NULL;
		l->next = arena_large;
		if (arena_large)
			arena_large->prev = l;
		arena_large = l;
		return l + 1;
	}
	if (arena_freed[cls]) {
		void *p = arena_freed[cls];

		arena_freed[cls] = *(void **)p;
		return p;
	}
	words = 1 + cls * ARENA_STEP / sizeof(size_t);
	if (!arena || ARENA_BLOCK / sizeof(size_t) - arena->used < words) {
		struct arena_block *b = malloc(sizeof(*b) + ARENA_BLOCK);

		if (!b)
			return NULL;
		b->next = arena;
		b->used = 0;
		arena = b;
	}
	h = arena->mem + arena->used;
	arena->used += words;
	*h = cls;
	return h + 1;
}

static void arena_free(void *p)
{
	struct arena_large *l;
	size_t cls;

	if (!p)
		return;
	cls = ((size_t *)p)[-1];
	if (cls) {
		*(void **)p = arena_freed[cls];
		arena_freed[cls] = p;
		return;
	}
	l = (struct arena_large *)p - 1;
	if (l->prev)
		l->prev->next = l->next;
	else
		arena_large = l->next;
	if (l->next)
		l->next->prev = l->prev;
	free(l);
}

static void arena_begin(void)
{
	json_set_alloc_funcs(arena_alloc, arena_free);
}

/* Drops every tree built since arena_begin() and gives jansson malloc and free back. */
static void arena_end(void)
{
	while (arena) {
		struct arena_block *b = arena;

		arena = b->next;
		free(b);
	}
	while (arena_large) {
		struct arena_large *l = arena_large;

		arena_large = l->next;
		free(l);
	}
	memset(arena_freed, 0, sizeof(arena_freed));
	json_set_alloc_funcs(malloc, free);
}

/*
 * jansson hands a dump over a token at a time: json_dump_file wrote each with its own
 * fwrite call, 4 % of an 8192-host job's time. The pieces are gathered here and written
 * 64 KiB at a time.
 */
struct dump_buf {
	FILE *f;
	int err; /* errno of the first failed write, 0 */
	size_t n;
	char b[1 << 16];
};

static int dump_flush(struct dump_buf *d)
{
	if (d->n && fwrite(d->b, 1, d->n, d->f) != d->n) {
		d->err = errno ? errno : EIO;
		return -1;
	}
	d->n = 0;
	return 0;
}

static int dump_piece(const char *s, size_t len, void *ctx)
{
	struct dump_buf *d = ctx;

	if (d->n + len > sizeof(d->b) && dump_flush(d))
		return -1;
	if (len > sizeof(d->b)) {
		if (fwrite(s, 1, len, d->f) == len)
			return 0;
		d->err = errno ? errno : EIO;
		return -1;
	}
	memcpy(d->b + d->n, s, len);
	d->n += len;
	return 0;
}

/* Appends @len bytes at @s to @d's text (dump_piece's): 0 or -1 (d->err). */
static int links_put(struct dump_buf *d, const char *s, size_t len)
{
	return dump_piece(s, len, d);
}

/* A JSON real as jansson writes it with @flags' precision (JSON_REAL_PRECISION). */
static int links_real(struct dump_buf *d, double v, size_t flags)
{
	json_t *r = json_real(v);
	char *t = json_dumps(r, JSON_ENCODE_ANY | (flags & JSON_REAL_PRECISION(31)));
	int e = t ? links_put(d, t, strlen(t)) : (d->err = ENOMEM, -1);
	void (*fr)(void *);
	json_malloc_t ma;

	json_decref(r); /* outside the report's arena too */
	json_get_alloc_funcs(&ma, &fr);
	fr(t);
	return e;
}

/*
 * report.json's "links" (docs/report.md), as jansson would write the array of objects at
 * depth 1 with JSON_INDENT(1): the same bytes, without a tree of 16 objects a port.
 */
#define PFC_CTL ",\n   \"pfc_paused_control_us\": "

static int links_text(struct dump_buf *d, const struct mrc_run_result *res, size_t flags)
{
	char b[768];
	int n;

	if (!res->n_links)
		return links_put(d, "[]", 2);
	for (size_t l = 0; l < res->n_links; l++) {
		const struct mrc_run_link *lk = &res->links[l];
		const char *name = lk->name;

		for (const char *c = name; *c; c++) /* a port's name: [a-z0-9.>] */
			if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
				name = "?";
		n = snprintf(b, sizeof(b), "%s\n  {\n   \"port\": \"%s\",\n   \"tx_pkts\": %lld,\n"
			"   \"tx_bytes\": %lld,\n   \"drops\": %lld,\n   \"trims\": %lld,\n"
			"   \"ecn_marks\": %lld,\n   \"down_drops\": %lld,\n   \"lost\": %lld,\n"
			"   \"max_queue_bytes\": %lld", l ? "," : "[", name,
			(long long)lk->tx_pkts, (long long)lk->tx_bytes, (long long)lk->drops,
			(long long)lk->trims, (long long)lk->ecn_marks, (long long)lk->down_drops,
			(long long)lk->lost, (long long)lk->max_queue_bytes);
		if (links_put(d, b, (size_t)n))
			return -1;
		if (res->pfc) { /* docs/pfc.md */
			n = snprintf(b, sizeof(b), ",\n   \"pfc_pause_tx\": %lld,\n"
				"   \"pfc_resume_tx\": %lld,\n   \"pfc_pause_rx\": %lld,\n"
				"   \"pfc_resume_rx\": %lld,\n   \"pfc_paused_data_us\": ",
				(long long)lk->pfc_pause_tx, (long long)lk->pfc_resume_tx,
				(long long)lk->pfc_pause_rx, (long long)lk->pfc_resume_rx);
			if (links_put(d, b, (size_t)n) ||
				links_real(d, (double)lk->pfc_paused_ps[1] / PS_US, flags) ||
				links_put(d, PFC_CTL, sizeof(PFC_CTL) - 1) ||
				links_real(d, (double)lk->pfc_paused_ps[0] / PS_US, flags))
				return -1;
			n = snprintf(b, sizeof(b), ",\n   \"pfc_headroom_drops\": %lld,\n"
				"   \"pfc_max_ingress_bytes\": %lld", (long long)lk->pfc_headroom_drops,
				(long long)lk->pfc_max_ingress_bytes);
			if (links_put(d, b, (size_t)n))
				return -1;
		}
		if (links_put(d, "\n  }", 4))
			return -1;
	}
	return links_put(d, "\n ]", 3);
}

/* @root's text with its "links" marker replaced by @res's links (links_text), or @root's
 * alone without @res. */
static int dump_text(struct dump_buf *d, const json_t *root, const struct mrc_run_result *res,
	size_t flags)
{
	static const char mark[] = "\"links\": \"" LINKS_MARK "\"";
	void (*fr)(void *);
	json_malloc_t ma;
	char *t, *m;
	int e;

	if (!res)
		return json_dump_callback(root, dump_piece, d, flags) ? -1 : 0;
	t = json_dumps(root, flags);
	if (!t) {
		d->err = ENOMEM;
		return -1;
	}
	m = strstr(t, mark);
	if (!m) {
		e = dump_piece(t, strlen(t), d);
	} else {
		m += 9; /* after "links": */
		e = dump_piece(t, (size_t)(m - t), d) || links_text(d, res, flags) ||
			    dump_piece(m + sizeof(LINKS_MARK) + 1, strlen(m + sizeof(LINKS_MARK) + 1),
				d) ? -1 : 0;
	}
	json_get_alloc_funcs(&ma, &fr);
	fr(t);
	return e;
}

/*
 * Writes @root to @path (json_dump_file's bytes) whole or not at all: into a temporary
 * PATH.XXXXXX beside it (mode 0666 less the umask, as fopen makes it), renamed over @path
 * once written and closed; on a failure the temporary is removed and a previous @path is
 * left as it was. 0 or a negative errno.
 */
static int dump_json(const json_t *root, const char *path, size_t flags,
	const struct mrc_run_result *res)
{
	struct dump_buf *d = malloc(sizeof(*d));
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 8);
	mode_t mask;
	int e, fd;

	if (!d || !tmp) {
		free(d);
		free(tmp);
		return -ENOMEM;
	}
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".XXXXXX", 8);
	fd = mkstemp(tmp);
	if (fd < 0) {
		e = -errno;
		goto out;
	}
	mask = umask(0);
	umask(mask);
	d->f = fchmod(fd, 0666 & ~mask) ? NULL : fdopen(fd, "w");
	if (!d->f) {
		e = -errno;
		close(fd);
		goto fail;
	}
	d->err = 0;
	d->n = 0;
	errno = 0;
	e = dump_text(d, root, res, flags) || dump_flush(d) ? -1 : 0;
	if (fclose(d->f) && !e) {
		d->err = errno ? errno : EIO;
		e = -1;
	}
	if (e)
		e = d->err ? -d->err : -EIO;
	else if (rename(tmp, path))
		e = -errno;
fail:
	if (e)
		unlink(tmp);
out:
	free(tmp);
	free(d);
	return e;
}

/* Does @dir/@name exist as a regular file? */
static bool is_file(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	return snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
	       !stat(path, &st) && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(json_string_value(*(json_t *const *)a),
		json_string_value(*(json_t *const *)b));
}

/*
 * report.json's "files": every output of this run in output.dir, relative, sorted — what
 * the next run into the same directory removes first (mrc_job_outdir), so that no file of
 * an earlier run is left beside this run's report. Written last, it lists report.json
 * itself, latency.hlog, the captures, and the hist/ *.hgrm and plots/ *.png, *.gp, *.dat
 * this run made (@mk, by name: not by file times, which a coarse filesystem (1 s, 2 s) or
 * a clock set back puts before the run, or another clock puts after it): a user's own
 * file there, or one an earlier run left (its report damaged), is not this run's, and
 * the next run must not remove it. @planned (a stub, mrc_report_stub): every name of the
 * first three the run may write, made or not yet.
 */
static json_t *j_files(const struct conf_job *job, const struct made *mk, bool planned)
{
	const char *dir = job->output.dir;
	json_t *a = json_array(), **v;
	char name[256];
	size_t n;

	json_array_append_new(a, json_string("report.json"));
	if (planned ? job->output.hlog : is_file(dir, "latency.hlog"))
		json_array_append_new(a, json_string("latency.hlog"));
	for (size_t i = 0; i < job->output.n_captures; i++) {
		conf_capture_file(&job->output.captures[i], name, sizeof(name));
		if (planned || is_file(dir, name))
			json_array_append_new(a, json_string(name));
	}
	for (size_t i = 0; i < mk->n; i++)
		if (is_file(dir, mk->v[i]))
			json_array_append_new(a, json_string(mk->v[i]));
	n = json_array_size(a);
	v = malloc(n * sizeof(*v) + 1);
	if (!v)
		return a;
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(a, i));
	qsort(v, n, sizeof(*v), cmp_str);
	json_array_clear(a);
	for (size_t i = 0; i < n; i++) /* a name made twice (a job's tag as another's), once */
		if (i && !cmp_str(&v[i - 1], &v[i]))
			json_decref(v[i]);
		else
			json_array_append_new(a, v[i]);
	free(v);
	return a;
}

/* report.json of @res into output.dir (@path: its path), "files" last (j_files with @mk and
 * @planned). 0 or a negative errno; a previous report.json stays as it was on a failure. */
static int report_json(const struct conf_job *job, const struct mrc_run_result *res,
	const struct made *mk, bool planned, char *path, size_t plen)
{
	json_t *root;
	int e;

	arena_begin();
	root = j_report(job, res);
	if (root)
		json_object_set_new(root, "files", j_files(job, mk, planned));
	snprintf(path, plen, "%s/report.json", job->output.dir);
	e = root ? dump_json(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(10), res) : -ENOMEM;
	arena_end(); /* the tree with it: no json_decref */
	return e;
}

int mrc_report_write(const struct conf_job *job, struct mrc_run_result *res)
{
	char path[4096];
	struct made mk = { 0 };
	int e = write_hists(job, res, &mk), j;
	bool hists = e == 0;

	/* the plots before report.json, whose "files" lists them */
	if (job->output.plots)
		write_plots(job, res, hists, &mk);
	if (job->output.report) {
		j = report_json(job, res, &mk, false, path, sizeof(path));
		if (j) {
			/* after the dump: an error the file could not hold */
			mrc_run_add_error(res, "report write: %s: %s", path, strerror(-j));
			e = e ?: j;
		}
	}
	free(mk.v);
	return e;
}

int mrc_report_stub(const struct conf_job *job, const char *why, char *err, size_t errlen)
{
	const struct conf_hist *c = &job->output.hist;
	struct mrc_run_result *res = calloc(1, sizeof(*res));
	struct made mk = { 0 };
	struct mrc_hist *h = NULL;
	char path[4096], when[32] = "?";
	time_t now = time(NULL);
	struct tm tm;
	int e = res ? mrc_hist_init((int64_t)c->lowest_ns, (int64_t)c->highest_ns,
			      (int)c->sigfigs, &h) : -ENOMEM;

	if (e) {
		free(res);
		snprintf(err, errlen, "report write: %s/report.json: %s", job->output.dir,
			strerror(-e));
		return e;
	}
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (why)
		snprintf(res->error, sizeof(res->error), "%s", why);
	else
		snprintf(res->error, sizeof(res->error), "the run started at %s (pid %ld) and "
			 "did not end: killed (SIGKILL, out of memory) or still running", when,
			(long)getpid());
	res->nranks = mrc_job_endpoints(job);
	res->fabric_absent = true; /* nothing measured: no fabric figure yet */
	res->msg_ns = res->step_ns = res->rtt_ns = h; /* empty, read only */
	e = report_json(job, res, &mk, true, path, sizeof(path));
	if (e)
		snprintf(err, errlen, "report write: %s: %s", path, strerror(-e));
	mrc_hist_free(h);
	free(res);
	return e;
}

/* perftest's columns per size for a point-to-point benchmark, of the worst pair (every
 * pair is in report.json). */
static void print_pairs(FILE *f, const struct mrc_run_size *sizes, size_t n_sizes)
{
	if (!n_sizes || !sizes[0].n_pairs)
		return;
	fprintf(f, "#\n#  %10s %8s %-13s %10s %10s %8s %10s\n", "size", "pairs", "worst pair",
		"BW (Gb/s)", "MsgRate", "line", "t/2 (us)");
	fprintf(f, "#  %10s %8s %-13s %10s %10s %8s %10s\n", "(B)", "", "", "", "(Mpps)", "(%)",
		"");
	for (size_t s = 0; s < n_sizes; s++) {
		const struct mrc_run_size *rs = &sizes[s];
		const struct mrc_run_pair *w = &rs->pairs[rs->worst];
		char pr[32], lat[24] = "-";

		if (rs->incomplete || !rs->n_pairs)
			continue;
		snprintf(pr, sizeof(pr), "h%u-h%u", w->a, w->b);
		if (w->lat_us > 0)
			snprintf(lat, sizeof(lat), "%.2f", w->lat_us);
		fprintf(f, "   %10llu %8u %-13s %10.2f %10.3f %8.1f %10s\n",
			(unsigned long long)rs->msg_bytes, rs->n_pairs, pr, w->gbps, w->mps,
			100 * rs->line_rate_fraction, lat);
	}
}

static void print_hist_row(FILE *f, int w, const char *name, const struct mrc_hist *h,
	const struct conf_hist *c)
{
	fprintf(f, "#  %-*s %8lld", w, name, (long long)mrc_hist_count(h));
	for (size_t i = 0; i < c->n_percentiles && i < 8; i++)
		fprintf(f, " %9.2f",
			(double)mrc_hist_value_at_percentile(h, c->percentiles[i]) / 1e3);
	fprintf(f, " %9.2f\n", mrc_hist_count(h) ? mrc_hist_mean(h) / 1e3 : 0.0);
}

/* nccl-tests' table of @n sizes of job @t, then perftest's columns for a point-to-point
 * benchmark; adds each size's busbw to *@bus_sum and counts it in *@n_bus. */
static void print_table(FILE *f, const struct conf_traffic *t, const struct mrc_run_size *sizes,
	size_t n, double *bus_sum, size_t *n_bus)
{
	bool ar = t->pattern == CONF_PAT_ALLREDUCE || t->pattern == CONF_PAT_REDUCESCATTER ||
		  t->pattern == CONF_PAT_REDUCE;
	bool rooted = t->pattern == CONF_PAT_INCAST || t->pattern == CONF_PAT_BROADCAST ||
		      t->pattern == CONF_PAT_REDUCE || t->pattern == CONF_PAT_GATHER ||
		      t->pattern == CONF_PAT_SCATTER;

	fprintf(f, "#\n#  %10s %12s %8s %6s %6s %10s %8s %8s %6s\n", "size", "count", "type",
		"redop", "root", "time", "algbw", "busbw", "#wrong");
	fprintf(f, "#  %10s %12s %8s %6s %6s %10s %8s %8s %6s\n", "(B)", "(elements)", "", "", "",
		"(us)", "(GB/s)", "(GB/s)", "");
	for (size_t s = 0; s < n; s++) {
		const struct mrc_run_size *rs = &sizes[s];

		char tm[24] = "-", alg[24] = "-", bus[24] = "-";

		/* a size the job failed in: "-", as nccl-tests prints a figure it lacks */
		if (!rs->incomplete) {
			snprintf(tm, sizeof(tm), "%.1f", rs->time_us);
			snprintf(alg, sizeof(alg), "%.2f", rs->algbw_gbs);
			snprintf(bus, sizeof(bus), "%.2f", rs->busbw_gbs);
			*bus_sum += rs->busbw_gbs;
			(*n_bus)++;
		}
		fprintf(f, "   %10llu %12llu %8s %6s %6d %10s %8s %8s %6llu\n",
			(unsigned long long)rs->bytes, (unsigned long long)rs->count,
			conf_name_of(conf_dtype_names, t->dtype),
			t->n_phases ? "-" : ar ? "sum" : "none",
			rooted ? (int)t->root_host : -1, tm, alg, bus,
			(unsigned long long)rs->wrong);
	}
	print_pairs(f, sizes, n);
}

/* A step of phases: each phase's mean time (a gap's is its length) and busbw. */
static void print_phases(FILE *f, const struct mrc_run_job *rj)
{
	if (!rj->n_phases)
		return;
	fprintf(f, "#  %6s %-14s %-9s %12s %10s %8s\n", "phase", "pattern", "algorithm",
		"bytes", "time (us)", "busbw");
	for (size_t p = 0; p < rj->n_phases; p++) {
		const struct mrc_run_phase *rp = &rj->phases[p];

		if (rp->gap)
			fprintf(f, "   %6zu %-14s %-9s %12s %10.1f %8s\n", p, "gap", "-", "-",
				rp->time_us, "-");
		else
			fprintf(f, "   %6zu %-14s %-9s %12llu %10.1f %8.2f\n", p,
				conf_name_of(conf_pattern_names, rp->pattern),
				conf_name_of(conf_algorithm_names, rp->algorithm),
				(unsigned long long)rp->bytes, rp->time_us, rp->busbw_gbs);
	}
}

/* Several jobs: each one's table under a header naming it. */
static void print_jobs(FILE *f, const struct conf_job *job, const struct mrc_run_result *res,
	double *bus_sum, size_t *n_bus)
{
	for (size_t j = 0; j < res->n_jobs; j++) {
		const struct mrc_run_job *rj = &res->jobs[j];
		const struct conf_traffic *t = conf_job_traffic(job, j);
		char st[32] = "-", en[32] = "-";

		if (rj->started)
			snprintf(st, sizeof(st), "%.3f", (double)rj->start_ps / PS_US);
		if (rj->finished)
			snprintf(en, sizeof(en), "%.3f", (double)rj->end_ps / PS_US);
		fprintf(f, "#\n# job %s: %s %s, %u ranks on %s, from %s to %s us\n", rj->name,
			t->n_phases ? "a step of" : conf_name_of(conf_pattern_names, t->pattern),
			t->n_phases ? "phases" : rj->background ? "traffic" :
			conf_name_of(conf_algorithm_names, t->algorithm), rj->nranks,
			t->hosts[0] ? t->hosts : "h0..", st, en);
		if (rj->background) {
			double d = bg_seconds(rj);
			double k = d > 0 ? 8.0 * rj->bg_msg_bytes / rj->bg_hosts / d / 1e9 : 0;

			fprintf(f, "#  background %s at %.3g Gb/s a host, %llu B messages: "
				   "offered %.2f Gb/s a host, delivered %.2f (%llu refused)\n",
				conf_name_of(conf_bg_mode_names, rj->bg_mode),
				(double)rj->bg_rate_bps / 1e9,
				(unsigned long long)rj->bg_msg_bytes, k * (double)rj->bg_posted,
				k * (double)rj->bg_completed, (unsigned long long)rj->bg_refused);
			continue;
		}
		print_table(f, t, rj->sizes, rj->n_sizes, bus_sum, n_bus);
		print_phases(f, rj);
	}
}

void mrc_report_print(const struct conf_job *job, const struct mrc_run_result *res, FILE *f)
{
	const struct conf_traffic *t = &job->traffic;
	const struct conf_hist *hc = &job->output.hist;
	double bus_sum = 0;
	size_t n_bus = 0;
	char enc[64] = "", nort[48] = "", hopl[192] = "", hops[32] = "-";
	int lw = 10; /* latency labels: "CCT 1000004B" in a sweep widens the column */

	if (res->n_jobs)
		fprintf(f, "# mrcgen: %zu job%s, %u planes x (%u T0 + %u T1), %u hosts, %s, seed "
			   "%llu\n", res->n_jobs, res->n_jobs == 1 ? "" : "s", job->fabric.planes,
			job->fabric.t0, job->fabric.t1, conf_fabric_hosts(&job->fabric),
			conf_name_of(conf_transport_names, job->mrc.transport),
			(unsigned long long)job->seed);
	else
		fprintf(f, "# mrcgen: %s %s, %u ranks, %u planes x (%u T0 + %u T1), %u hosts, %s, "
			   "seed %llu\n",
			conf_name_of(conf_pattern_names, t->pattern),
			conf_name_of(conf_algorithm_names, t->algorithm), res->nranks,
			job->fabric.planes, job->fabric.t0, job->fabric.t1,
			conf_fabric_hosts(&job->fabric),
			conf_name_of(conf_transport_names, job->mrc.transport),
			(unsigned long long)job->seed);
	if (res->n_jobs)
		print_jobs(f, job, res, &bus_sum, &n_bus);
	else
		print_table(f, t, res->sizes, res->n_sizes, &bus_sum, &n_bus);
	for (size_t j = 0; j < (res->n_jobs ? res->n_jobs : 1); j++) {
		const struct mrc_run_job *rj = res->n_jobs ? &res->jobs[j] : NULL;

		for (size_t s = 0; s < (rj ? rj->n_sizes : res->n_sizes); s++) {
			char l[32];
			int w;

			mrc_report_size_label((rj ? rj->sizes : res->sizes)[s].bytes, l, sizeof(l));
			w = (int)strlen(l) + 4 + (rj ? (int)strlen(rj->name) + 1 : 0);
			if (w > lw)
				lw = w;
		}
	}
	fprintf(f, "#\n#  %-*s %8s", lw, "latency us", "count");
	for (size_t i = 0; i < hc->n_percentiles && i < 8; i++) {
		char p[16];

		snprintf(p, sizeof(p), "p%g", hc->percentiles[i]);
		fprintf(f, " %9s", p);
	}
	fprintf(f, " %9s\n", "mean");
	for (size_t j = 0; j < (res->n_jobs ? res->n_jobs : 1); j++) {
		const struct mrc_run_job *rj = res->n_jobs ? &res->jobs[j] : NULL;
		const struct mrc_run_size *sz = rj ? rj->sizes : res->sizes;

		for (size_t s = 0; s < (rj ? rj->n_sizes : res->n_sizes); s++) {
			char l[32], name[80];

			mrc_report_size_label(sz[s].bytes, l, sizeof(l));
			snprintf(name, sizeof(name), "CCT %s%s%s", l, rj ? " " : "",
				rj ? rj->name : "");
			print_hist_row(f, lw, name, sz[s].cct_ns, hc);
		}
	}
	print_hist_row(f, lw, "write", res->msg_ns, hc);
	print_hist_row(f, lw, "step", res->step_ns, hc);
	print_hist_row(f, lw, "QP RTT", res->rtt_ns, hc);
	if (res->n_faults) {
		bool nodip = false;

		fprintf(f, "#\n#  %-10s %7s %-13s %-18s %12s %12s %10s %9s %9s\n", "fault at us",
			"iter", "action", "target", "1st EV out", "recovery", "rtx bytes",
			"CCT infl", "straggler");
		for (size_t i = 0; i < res->n_faults; i++) {
			const struct mrc_run_fault *rf = &res->faults[i];
			char a[32] = "-", b[32] = "-", itn[32], act[32];

			/* measured iterations, numbered as faults' at_iteration; "wK" in warmup; a
			 * flap's from the one it started in to the one it ended in */
			if (rf->in_warmup)
				snprintf(itn, sizeof(itn), "w%u", rf->iter);
			else
				snprintf(itn, sizeof(itn), "%u", rf->measured);
			if ((rf->flap || rf->lasting) && rf->last_iter != rf->iter) {
				size_t l = strlen(itn);

				snprintf(itn + l, sizeof(itn) - l,
					rf->last_in_warmup ? "-w%u" : "-%u",
					rf->last_in_warmup ? rf->last_iter : rf->last_measured);
			}
			if (rf->flap)
				snprintf(act, sizeof(act), "flap x%u", rf->flap_downs);
			else
				snprintf(act, sizeof(act), "%s", rf->action);
			if (rf->first_retire_ps >= 0)
				snprintf(a, sizeof(a), "%.2f us",
					(double)rf->first_retire_ps / PS_US);
			if (rf->recovery_ps >= 0 && !rf->dipped) {
				snprintf(b, sizeof(b), "no dip *");
				nodip = true;
			} else if (rf->recovery_ps >= 0) {
				snprintf(b, sizeof(b), "%.1f us", (double)rf->recovery_ps / PS_US);
			}
			char infl[16] = "-", strag[16] = "-";

			if (!rf->unfinished) { /* else the job failed in its window: unknown */
				snprintf(infl, sizeof(infl), "%.1f%%", rf->cct_inflation * 100);
				snprintf(strag, sizeof(strag), "h%u", rf->straggler_rank);
			}
			fprintf(f, "#  %10.1f %7s %-13s %-18s %12s %12s %10llu %9s %10s\n",
				(double)rf->at_ps / PS_US, itn, act, rf->target, a, b,
				(unsigned long long)rf->rtx_bytes, infl, strag);
		}
		if (nodip)
			fprintf(f,
				"#  * no dip: goodput never fell below 95%% of what the capacity "
				"left allows; recovery 0\n");
		for (size_t i = 0; i < res->n_faults; i++) /* faults[].reconverged_us */
			if (res->faults[i].reconverge_ps >= 0)
				fprintf(f, "#  routing: %s %s: the ECMP groups changed %.1f us "
					"after it\n", res->faults[i].action, res->faults[i].target,
					(double)res->faults[i].reconverge_ps / PS_US);
	}
	if (res->tx_encode_err)
		snprintf(enc, sizeof(enc), ", %llu encode errors (never sent)",
			(unsigned long long)res->tx_encode_err);
	if (res->fab_no_route) /* blackholed routes, counters.fabric_no_route */
		snprintf(nort, sizeof(nort), ", %llu without a route",
			(unsigned long long)res->fab_no_route);
	if (res->fab_hop_limit | res->rx_icmp_time_exceeded) /* counters.fabric_hop_limit, ... */
		snprintf(hopl, sizeof(hopl), ", %llu past their hop limit (%llu ICMPv6 Time "
			 "Exceeded sent, %llu held by the rate limit, %llu reached their hosts)",
			(unsigned long long)res->fab_hop_limit,
			(unsigned long long)res->fab_icmp_sent,
			(unsigned long long)res->fab_icmp_rate_limited,
			(unsigned long long)res->rx_icmp_time_exceeded);
	fprintf(f,
		"#\n#  packets: %llu data, %llu retransmitted, %llu SACK, %llu NACK (%llu trim), "
		"%llu probes%s\n",
		(unsigned long long)res->data_pkts, (unsigned long long)res->rtx_pkts,
		(unsigned long long)res->sacks, (unsigned long long)res->nacks,
		(unsigned long long)res->nack_trimmed, (unsigned long long)res->probes, enc);
	if (res->fabric_absent) /* counters.fabric_* null */
		fprintf(f, "#  fabric: - (its figures are absent: see the errors)\n");
	else
		fprintf(f, "#  fabric: %llu trims, %llu ECN marks, %llu drops (%llu at failed "
			   "links or switches)%s%s, %llu lost in flight on a link that failed or "
			   "dropped them\n",
			(unsigned long long)res->fab_trims, (unsigned long long)res->fab_ecn,
			(unsigned long long)res->fab_drops,
			(unsigned long long)res->fab_down_drops, nort, hopl,
			(unsigned long long)res->fab_lost);
	if (res->pfc && !res->fabric_absent) /* counters.fabric_pfc_* (docs/pfc.md) */
		fprintf(f, "#  PFC: %llu pauses, %.1f us paused summed over ports and classes "
			   "(%.1f us at host NIC ports), %llu dropped past an ingress's headroom\n",
			(unsigned long long)res->fab_pfc_pauses,
			(double)res->fab_pfc_paused_ps / PS_US,
			(double)res->fab_pfc_paused_host_ps / PS_US,
			(unsigned long long)res->fab_pfc_headroom_drops);
	if (res->gbn_rewinds | res->cnps_sent | res->cnps_received) /* RoCE */
		fprintf(f,
			"#  roce: %llu go-back-N rewinds (%llu PSNs resent by NAK, %llu by the ACK "
			"timeout), %llu CNPs sent, %llu received, %llu rate cuts\n",
			(unsigned long long)res->gbn_rewinds, (unsigned long long)res->losses_sack,
			(unsigned long long)res->losses_rto, (unsigned long long)res->cnps_sent,
			(unsigned long long)res->cnps_received, (unsigned long long)res->rate_cuts);
	if (res->host_send_errors | res->host_socket_drops | res->host_cq_overflows |
		res->host_cq_dropped | res->host_truncated | res->host_foreign)
		fprintf(f,
			"#  in the hosts: %llu send errors, %llu socket drops, %llu CQ overflows "
			"(held, not lost), %llu CQ drops, %llu truncated, %llu for another host\n",
			(unsigned long long)res->host_send_errors,
			(unsigned long long)res->host_socket_drops,
			(unsigned long long)res->host_cq_overflows,
			(unsigned long long)res->host_cq_dropped,
			(unsigned long long)res->host_truncated,
			(unsigned long long)res->host_foreign);
	if (res->rx_foreign | res->rx_wrong_plane | res->rx_spoofed | res->rx_misdirected |
		res->probe_answers_unmatched | res->ep_responses_unmatched)
		fprintf(f,
			"#  dropped for their source: %llu from outside the job, %llu by another "
			"plane, %llu not from the QP's peer, %llu not for this host; unmatched: "
			"%llu probe answers, %llu endpoint responses\n",
			(unsigned long long)res->rx_foreign,
			(unsigned long long)res->rx_wrong_plane,
			(unsigned long long)res->rx_spoofed,
			(unsigned long long)res->rx_misdirected,
			(unsigned long long)res->probe_answers_unmatched,
			(unsigned long long)res->ep_responses_unmatched);
	if (!res->fabric_absent) /* else counters.packet_hops is null */
		snprintf(hops, sizeof(hops), "%.2f",
			res->wall_s > 0 ? (double)res->pkt_hops / res->wall_s / 1e6 : 0.0);
	fprintf(f, "#  simulated %.3f ms in %.2f s wall: %s M packet-hops/s, peak RSS %zu MiB\n",
		(double)res->sim_end_ps / 1e9, res->wall_s, hops, res->peak_rss_bytes >> 20);
	for (size_t i = 0; i < res->n_unapplied; i++)
		fprintf(f, "#  not applied: fault %u (%s %s, %s): %s\n", res->unapplied[i].index,
			res->unapplied[i].action, res->unapplied[i].target, res->unapplied[i].when,
			res->unapplied[i].why);
	if (res->error[0])
		fprintf(f, "#  ERROR: %s\n", res->error);
	for (size_t i = 0; i < res->n_errors; i++)
		fprintf(f, "#  ERROR: %s\n", res->errors[i]);
	{
		uint64_t wrong = 0;

		for (size_t s = 0; s < res->n_sizes; s++)
			wrong += res->sizes[s].wrong;
		fprintf(f, "# Out of bounds values : %llu %s\n", (unsigned long long)wrong,
			mrc_report_ok(res) ? "OK" : "FAILED");
	}
	fprintf(f, "# Avg bus bandwidth    : %g\n", n_bus ? bus_sum / (double)n_bus : 0.0);
}

void mrc_report_print_problems(const struct mrc_run_result *res, FILE *f)
{
	for (size_t i = 0; i < res->n_unapplied; i++)
		fprintf(f, "mrcgen: run: note: faults[%u] (%s %s, %s) was not applied: %s\n",
			res->unapplied[i].index, res->unapplied[i].action, res->unapplied[i].target,
			res->unapplied[i].when, res->unapplied[i].why);
	if (res->error[0])
		fprintf(f, "mrcgen: run: %s\n", res->error);
	for (size_t i = 0; i < res->n_errors; i++)
		fprintf(f, "mrcgen: run: %s\n", res->errors[i]);
}
