/* SPDX-License-Identifier: BSD-2-Clause */
/* wsweep: a sweep's rank on the wire (wsweep.h). */
#include "mrc/wire/wsweep.h"

#include <errno.h>
#include <stdio.h>

int mrc_sweep_wire(const struct conf_job *job, const struct mrc_wirerun_opts *o,
	struct mrc_sweep **out, uint64_t *duration_ps, uint32_t *rank_out, char *err,
	size_t errlen)
{
	(void)job, (void)o, (void)duration_ps, (void)rank_out;
	*out = NULL;
	snprintf(err, errlen, "not yet");
	return -EOPNOTSUPP;
}
