/* SPDX-License-Identifier: BSD-2-Clause */
/* result: a run's result, owned memory and error list (result.h). */
#include "mrc/job/result.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int mrc_run_add_error(struct mrc_run_result *r, const char *fmt, ...)
{
	char(*e)[sizeof(*r->errors)] = realloc(r->errors, (r->n_errors + 1) * sizeof(*e));
	va_list ap;

	if (!e)
		return -ENOMEM;
	r->errors = e;
	va_start(ap, fmt);
	vsnprintf(e[r->n_errors++], sizeof(*e), fmt, ap);
	va_end(ap);
	return 0;
}

void mrc_run_result_free(struct mrc_run_result *r)
{
	if (!r)
		return;
	for (size_t s = 0; s < r->n_sizes; s++)
		mrc_hist_free(r->sizes[s].cct_ns);
	free(r->sizes);
	free(r->iters);
	mrc_hist_free(r->msg_ns);
	mrc_hist_free(r->step_ns);
	mrc_hist_free(r->rtt_ns);
	free(r->rank_rtt_ns);
	free(r->faults);
	free(r->unapplied);
	free(r->errors);
	free(r->bin_bytes);
	free(r->evs);
	free(r->links);
	free(r);
}
