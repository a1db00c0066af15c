/* SPDX-License-Identifier: BSD-2-Clause */
/* paths: the `mrcgen paths` listing — EV -> path rows and static tables, as text or JSON. */
#ifndef MRC_PATHS_H
#define MRC_PATHS_H

#include "mrc/engine/srv6.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What to list. Hosts are numbers (h5 = 5); a negative host means "every host". */
struct mrc_paths_query {
	int64_t from; /* source host; -1 = every host */
	int64_t to;   /* destination host; -1 = every host but the source */
	bool has_ev;  /* list only @ev (need not be in the profile: state "unlisted") */
	uint32_t ev;
	bool json;
};

/*
 * Prints one row per (source, destination, EV) — EV, state (good / denied / unlisted),
 * plane, T0, T1 ("-" in text, null in JSON, when the hosts share a T0), T0, destination
 * port, uSID container — then the static table of every switch those rows cross (all
 * switches when both @q->from and @q->to are -1). Rows go by source, destination, then EV in
 * profile order. Text: '#'-headed sections, whitespace-separated columns (docs/cli.md
 * "paths"); JSON: one object {fabric, paths[], tables[]}. Returns 0, -EINVAL for a host
 * or EV outside the plan or a query of more than 2^22 rows (message in @err), -ENOMEM, or
 * -EIO when writing fails.
 */
int mrc_paths_print(FILE *f, const struct mrc_srv6_plan *plan, const struct mrc_srv6_ev_entry *evs,
	size_t n_evs, const struct mrc_paths_query *q, char *err, size_t errlen);

#endif
