/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * report: the outputs of a run — report.json (schema: docs/report.md), the terminal table in
 * nccl-tests' layout with latency percentiles and the fault/recovery summary, HdrHistogram
 * files (.hgrm per metric, one .hlog with a Tag per metric) and gnuplot plots.
 */
#ifndef MRC_REPORT_H
#define MRC_REPORT_H

#include "conf/conf.h"
#include "mrc/job/result.h"

#include <stdio.h>

/*
 * Writes every configured output of @res under job->output.dir, in this order:
 * hist/NAME.hgrm and latency.hlog, then report.json, then plots/NAME.png. A histogram file
 * or report.json that cannot be written whole is removed (report.json goes through a
 * temporary renamed into place, so a previous one stays as it was) and appended to
 * @res->errors ("hist write: PATH: reason", "report write: PATH: reason"): a histogram
 * failure is in report.json's errors[] and ok, a report.json failure only in @res (print
 * the report after this call so the terminal shows both). Plots are best effort. Returns 0
 * or the negative errno of the first failure.
 */
int mrc_report_write(const struct conf_job *job, struct mrc_run_result *res);

/*
 * mrc_job_report_stub (mrc/job/job.h; mrcgen sets it): output.dir/report.json of a run that
 * measured nothing, as a run leaves it from its start until its end replaces it: ok false,
 * error @why or, @why NULL, "the run started at TIME (UTC, ISO 8601) (pid P) and did not
 * end: killed (SIGKILL, out of memory) or still running"; empty lists and histograms, zero
 * counters, the fabric's figures null (fabric_absent); "files" every name the run may
 * write (report.json, latency.hlog with output.hlog, each capture's pcap), made or not, so
 * that the next run removes a killed run's pcaps. Through a temporary renamed into place,
 * as mrc_report_write. 0 or a negative errno with "report write: PATH: reason" in @err.
 */
int mrc_report_stub(const struct conf_job *job, const char *why, char *err, size_t errlen);

/* Prints the nccl-tests style table, latency percentiles and fault summary to @f. */
void mrc_report_print(const struct conf_job *job, const struct mrc_run_result *res, FILE *f);

/*
 * Writes @bytes as the label of its size in the latency table, the .hlog tags and
 * report.json: the largest binary unit that divides it exactly ("64KiB", "1MiB", "3GiB"),
 * else bytes ("40028B", "0B"). Exact, so two sizes never share a label. Returns what
 * snprintf returns.
 */
int mrc_report_size_label(uint64_t bytes, char *buf, size_t len);

/*
 * Prints what went wrong or was left out, one line each, for stderr: "mrcgen: run: note:
 * faults[N] (...) was not applied: why" per configured fault that never fired, then the
 * job's error and every other error (a capture that could not be written, encode errors).
 */
void mrc_report_print_problems(const struct mrc_run_result *res, FILE *f);

/* True when the run passed its checks: no error (the job's or in res->errors, e.g. a capture
 * that could not be written), no encode error, #wrong 0 everywhere, no QP in error. */
bool mrc_report_ok(const struct mrc_run_result *res);

#endif
