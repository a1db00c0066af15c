/* SPDX-License-Identifier: BSD-2-Clause */
/* fault: the fault timeline and its bookkeeping, for both drivers (fault.h). */
#include "mrc/job/fault.h"

double mrc_run_capacity_left(const struct conf_fabric *f, const struct conf_fault *cf)
{
	double planes = f->planes;

	/* loss and delay leave every link up: the goodput target is the clean level */
	if (cf->action == CONF_FA_UP || cf->action == CONF_FA_CLEAR ||
		cf->action == CONF_FA_LOSS || cf->action == CONF_FA_DELAY)
		return 1.0;
	switch (cf->node.kind) {
	case CONF_NODE_T1:
		return 1.0 - 1.0 / (planes * f->t1);
	case CONF_NODE_T0:
	case CONF_NODE_PORT:
	case CONF_NODE_LINK_HOST_T0:
		return 1.0 - 1.0 / planes; /* a rank loses a plane: the collective follows it */
	case CONF_NODE_LINK_T0_T1:
		return 1.0 - 1.0 / (planes * f->t1 * f->t0);
	case CONF_NODE_HOST:
		return 0.0;
	}
	return 1.0;
}
