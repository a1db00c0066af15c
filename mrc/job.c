/* SPDX-License-Identifier: BSD-2-Clause */
/* job: maps a loaded config (conf/) onto the engine's plain parameter structs. */
#include "mrc/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct mrc_srv6_ev_field rule_field(uint8_t width, const struct conf_ev_rule *r)
{
	return (struct mrc_srv6_ev_field){width, r->init, r->mask, r->min, r->max};
}

int mrc_job_srv6(const struct conf_job *job, struct mrc_job_srv6 *out, char *err, size_t errlen)
{
	const struct conf_fabric *fab = &job->fabric;
	const struct conf_ev *ev = &job->mrc.ev;
	struct mrc_srv6_params *p = &out->params;
	struct mrc_srv6_assign *as = NULL;
	struct mrc_srv6_ev_deny *deny = NULL;
	struct mrc_srv6_ev_field f[3];
	struct mrc_srv6_ev_profile prof;
	size_t cap;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	mrc_srv6_params_default(p);
	p->planes = fab->planes;
	p->t0 = fab->t0;
	p->t1 = fab->t1;
	p->hosts_per_t0 = fab->hosts_per_t0;
	p->block = fab->addressing.block;
	memcpy(p->host_prefix, fab->addressing.host_prefix, sizeof(p->host_prefix));
	p->host_prefix_len = fab->addressing.host_prefix_len;
	if (fab->addressing.plan == CONF_PLAN_EXPLICIT) {
		as = calloc(fab->addressing.n_usids ? fab->addressing.n_usids : 1, sizeof(*as));
		if (!as)
			goto nomem;
		for (size_t i = 0; i < fab->addressing.n_usids; i++) {
			const struct conf_usid_entry *u = &fab->addressing.usids[i];

			if (mrc_srv6_node_parse(u->node, &as[i].node)) {
				snprintf(err, errlen,
					"srv6 plan: usids[%zu]: not a switch or host port "
					"'%s'",
					i, u->node);
				rc = -EINVAL;
				goto fail;
			}
			as[i].usid = u->usid;
		}
		p->usids = as;
		p->n_usids = fab->addressing.n_usids;
	}
	rc = mrc_srv6_plan_new(p, &out->plan, err, errlen);
	free(as);
	as = NULL;
	if (rc)
		goto fail;

	memset(&prof, 0, sizeof(prof));
	f[0] = rule_field(4, &ev->plane);
	f[1] = rule_field(12, &ev->spine);
	f[2] = rule_field(16, &ev->salt);
	prof.explicit_evs = ev->evs;
	prof.n_explicit = ev->n_evs;
	prof.fields = f;
	prof.n_fields = 3;
	prof.plane_field = 0;
	prof.ev_count = ev->ev_count;
	prof.ev_min_active = ev->ev_min_active;
	if (ev->n_deny) {
		deny = calloc(ev->n_deny, sizeof(*deny));
		if (!deny)
			goto nomem;
		for (size_t i = 0; i < ev->n_deny; i++)
			deny[i] = (struct mrc_srv6_ev_deny){0xffffffffu, ev->deny[i]};
	}
	prof.deny = deny;
	prof.n_deny = ev->n_deny;
	cap = ev->n_evs ? ev->n_evs : ev->ev_count;
	out->evs = calloc(cap ? cap : 1, sizeof(*out->evs));
	if (!out->evs)
		goto nomem;
	rc = mrc_srv6_ev_expand(&prof, p->planes, &p->ev, out->evs, cap, err, errlen);
	free(deny);
	deny = NULL;
	if (rc < 0)
		goto fail;
	out->n_evs = (size_t)rc;
	p->usids = NULL;
	p->n_usids = 0;
	return 0;
nomem:
	snprintf(err, errlen, "srv6 plan: allocate: out of memory");
	rc = -ENOMEM;
fail:
	free(as);
	free(deny);
	mrc_job_srv6_free(out);
	return rc;
}

void mrc_job_srv6_free(struct mrc_job_srv6 *m)
{
	mrc_srv6_plan_free(m->plan);
	free(m->evs);
	memset(m, 0, sizeof(*m));
}
