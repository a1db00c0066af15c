/* SPDX-License-Identifier: BSD-2-Clause */
/* job: maps a loaded config (conf/) onto the engine's plain parameter structs. */
#include "mrc/job/job.h"
#include "conf/units.h"
#include "mrc/job/coll.h"
#include "mrc/base/rng.h"
#include "mrc/job/epparams.h"
#include "mrc/base/hist.h"
#include "mrc/engine/wire.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	p->usid_plane_bits = fab->addressing.usid_plane_bits;
	p->sequential = fab->addressing.plan == CONF_PLAN_SEQUENTIAL;
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

/* The EV format the engine uses: transport roce sends srv6 as stev (as the simulated run does). */
static enum mrc_ev_format job_ev_format(const struct conf_job *job)
{
	enum mrc_ev_format f = (enum mrc_ev_format)job->mrc.ev_format;

	if (job->mrc.transport == CONF_TRANSPORT_ROCE && f == MRC_EVF_SRV6)
		f = MRC_EVF_STEV;
	return f;
}

int mrc_job_max_data_pkt(const struct conf_job *job, unsigned *hdr_to_bth)
{
	struct mrc_wire_cfg cfg;
	struct mrc_pkt p;

	mrc_wire_cfg_default(&cfg);
	cfg.ev_format = job_ev_format(job);
	cfg.icrc_outer = job->mrc.icrc_outer;
	memset(&p, 0, sizeof(p));
	p.opcode = MRC_OP_WRITE_ONLY_IMM;
	p.flags = MRC_BTH_F_TS;
	p.payload_len = job->mrc.mtu;
	if (hdr_to_bth)
		*hdr_to_bth = (cfg.ev_format == MRC_EVF_SRV6 ? 2 : 1) * MRC_IP6_HLEN +
			MRC_UDP_HLEN + MRC_BTH_LEN;
	return mrc_wire_encoded_len(&cfg, &p);
}

uint64_t mrc_job_pfc_headroom(const struct conf_job *job)
{
	const struct conf_fabric *f = &job->fabric;
	int max = mrc_job_max_data_pkt(job, NULL);
	uint64_t pk, d, t;

	if (f->pfc.headroom_bytes)
		return f->pfc.headroom_bytes;
	if (max < 0)
		return 0;
	pk = (uint64_t)max > MRC_IP6_MIN_MTU ? (uint64_t)max : MRC_IP6_MIN_MTU;
	d = f->host_link_delay_ps > f->fabric_link_delay_ps ? f->host_link_delay_ps
							    : f->fabric_link_delay_ps;
	t = 2 * mrc_ser_ps(pk, f->link_rate_bps) + mrc_ser_ps(64, f->link_rate_bps) + 2 * d +
	    f->switch_delay_ps;
	/* ps x bit/s: up to 3e12 x 1e14, past 64 bits */
	return pk + (uint64_t)(((unsigned __int128)t * f->link_rate_bps + 7999999999999u) /
			       8000000000000u);
}

__attribute__((format(printf, 6, 7)))
static int fail(char *key, size_t keylen, const char *k, char *msg, size_t msglen,
	const char *fmt, ...)
{
	va_list ap;

	snprintf(key, keylen, "%s", k);
	va_start(ap, fmt);
	vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define FAIL(k, ...) fail(key, keylen, (k), msg, msglen, __VA_ARGS__)

/* A size with its unit for messages ("1B", "4KiB"). */
static const char *bytes(uint64_t v, char *buf, size_t len)
{
	size_t n = strlen(conf_fmt_size(v, buf, len));

	if (n && n + 1 < len && buf[n - 1] >= '0' && buf[n - 1] <= '9')
		strcpy(buf + n, "B");
	return buf;
}

static int check_packets(const struct conf_job *job, char *key, size_t keylen, char *msg,
	size_t msglen)
{
	const struct conf_fabric *f = &job->fabric;
	unsigned to_bth;
	int max = mrc_job_max_data_pkt(job, &to_bth);
	char a[32], b[32], c[32];

	if (max < 0)
		return FAIL("mrc.mtu", "no data packet can carry it '%" PRIu32 "'", job->mrc.mtu);
	/* a smaller buffer trims (or drops) every data packet, for ever: a livelock */
	if (f->buffer_bytes < (uint64_t)max)
		return FAIL("fabric.buffer", "below one full data packet (%s: mtu %" PRIu32 " + %u "
			"header bytes) '%s'", bytes((uint64_t)max, a, sizeof(a)), job->mrc.mtu,
			(unsigned)max - job->mrc.mtu, bytes(f->buffer_bytes, b, sizeof(b)));
	if (f->pfc.enabled && !f->pfc.headroom_bytes &&
		f->pfc.xoff_bytes + mrc_job_pfc_headroom(job) > f->buffer_bytes)
		return FAIL("fabric.pfc.xoff", "with the headroom rule's %s (docs/pfc.md; or give "
			"fabric.pfc.headroom) above the buffer (%s) '%s'",
			bytes(mrc_job_pfc_headroom(job), a, sizeof(a)),
			bytes(f->buffer_bytes, b, sizeof(b)), bytes(f->pfc.xoff_bytes, c,
			sizeof(c)));
	if (!f->trim)
		return 0;
	/* a switch trims only a packet longer than trim_size that keeps its BTH */
	if (f->trim_size_bytes >= (uint64_t)max)
		return FAIL("fabric.trim_size",
			"not below the largest data packet (%s), so nothing "
			"would be trimmed '%s'",
			bytes((uint64_t)max, a, sizeof(a)),
			bytes(f->trim_size_bytes, b, sizeof(b)));
	if (f->trim_size_bytes < to_bth)
		return FAIL("fabric.trim_size",
			"below the %u header bytes up to the BTH that a trim "
			"keeps '%s'",
			to_bth, bytes(f->trim_size_bytes, b, sizeof(b)));
	return 0;
}

/* Maps an "ev profile: FIELD: ..." or "srv6 plan: FIELD: ..." message onto a key path. */
static int srv6_fail(const char *err, char *key, size_t keylen, char *msg, size_t msglen)
{
	static const struct { const char *pfx, *field, *key; } map[] = {
		{ "ev profile: ", "fields[0]", "mrc.ev.plane" },
		{ "ev profile: ", "fields[1]", "mrc.ev.spine" },
		{ "ev profile: ", "fields[2]", "mrc.ev.salt" },
		{ "ev profile: ", "planes", "fabric.planes" },
		{ "ev profile: ", "evs", "mrc.ev.evs" },
		{ "ev profile: ", "ev_count", "mrc.ev.ev_count" },
		{ "ev profile: ", "ev_min_active", "mrc.ev.ev_min_active" },
		{ "ev profile: ", "deny", "mrc.ev.deny" },
		{ "ev profile: ", "", "mrc.ev" },
		{ "srv6 plan: ", "planes", "fabric.planes" },
		{ "srv6 plan: ", "host_prefix", "fabric.addressing.host_prefix" },
		{ "srv6 plan: ", "block", "fabric.addressing.block" },
		{ "srv6 plan: ", "usid_plane_bits", "fabric.addressing.usid_plane_bits" },
		{ "srv6 plan: ", "topology", "fabric" },
		{ "srv6 plan: ", "", "fabric.addressing" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		size_t np = strlen(map[i].pfx), nf = strlen(map[i].field);
		const char *rest = err + np;

		if (strncmp(err, map[i].pfx, np) || strncmp(rest, map[i].field, nf))
			continue;
		/* "evs[3]: ..." keeps its index */
		if (nf && rest[nf] == '[' && strchr(rest + nf, ']')) {
			const char *e = strchr(rest + nf, ']');

			snprintf(key, keylen, "%s%.*s", map[i].key, (int)(e + 1 - (rest + nf)),
				rest + nf);
			rest = e + 1;
		} else {
			snprintf(key, keylen, "%s", map[i].key);
			rest += nf;
		}
		rest += strspn(rest, ": ");
		snprintf(msg, msglen, "%s", rest);
		return -EINVAL;
	}
	snprintf(key, keylen, "mrc.ev");
	snprintf(msg, msglen, "%s", err);
	return -EINVAL;
}

static int check_srv6(const struct conf_job *job, char *key, size_t keylen, char *msg,
	size_t msglen)
{
	const struct conf_ev *ev = &job->mrc.ev;
	struct mrc_job_srv6 m;
	char err[512];
	int rc = mrc_job_srv6(job, &m, err, sizeof(err));

	if (rc == -ENOMEM)
		return rc;
	if (rc)
		return srv6_fail(err, key, keylen, msg, msglen);
	/* docs/wire-format.md "EV placement": udp carries the EV in the 16-bit UDP source port
	 * alone, so an MRC profile's plane (bits 28..31) must be 0: one plane. The RoCE
	 * baseline's packets carry their QP's UDP source port, never a profile EV
	 * (mrc/engine/qp.h "RoCE mode"): any profile does */
	if (job_ev_format(job) == MRC_EVF_UDP && job->mrc.transport != CONF_TRANSPORT_ROCE) {
		for (size_t i = 0; i < m.n_evs; i++) {
			if (m.evs[i].ev > 0xffff) {
				rc = FAIL("mrc.ev_format", "udp carries 16-bit EVs; the EV profile "
					"yields 0x%08" PRIx32 " (EV %zu: %s) 'udp'", m.evs[i].ev, i,
					ev->n_evs ? "mrc.ev.evs" : "plane bits 28..31 and spine "
					"bits 16..27 must stay 0: fabric.planes 1 and "
					"mrc.ev.spine.mask 0, or ev_format stev");
				goto out;
			}
		}
	}
	/* a deny entry matches one EV exactly (mrc_job_srv6): one outside the profile
	 * denies nothing and is a typo */
	for (size_t d = 0; d < ev->n_deny; d++) {
		size_t i = 0;
		char k[48];

		while (i < m.n_evs && m.evs[i].ev != ev->deny[d])
			i++;
		if (i == m.n_evs) {
			snprintf(k, sizeof(k), "mrc.ev.deny[%zu]", d);
			rc = FAIL(k, "not an EV of the profile (%zu EVs) '0x%08" PRIx32 "'",
				m.n_evs, ev->deny[d]);
			goto out;
		}
	}
out:
	mrc_job_srv6_free(&m);
	return rc;
}

/* Endpoints job @t alone spans. */
static uint32_t endpoints_of(const struct conf_job *job, const struct conf_traffic *t)
{
	return t->ranks && !t->hosts[0] ? t->ranks : conf_fabric_hosts(&job->fabric);
}

uint32_t mrc_job_endpoints(const struct conf_job *job)
{
	uint32_t n = 0;

	for (size_t i = 0; i < conf_jobs(job); i++)
		if (endpoints_of(job, conf_job_traffic(job, i)) > n)
			n = endpoints_of(job, conf_job_traffic(job, i));
	return n;
}

long mrc_job_bg_init(const struct conf_job *job, const struct conf_traffic *t, uint32_t idx,
	uint32_t *hosts, uint32_t *perm, uint32_t cap, struct mrc_rng *rng)
{
	long n;

	if (t->hosts[0]) {
		n = conf_hosts_expand(&job->fabric, t->hosts, hosts, cap, NULL);
	} else {
		n = t->ranks ? t->ranks : conf_fabric_hosts(&job->fabric);
		for (long g = 0; g < n && g < (long)cap; g++)
			hosts[g] = (uint32_t)g;
	}
	if (n < 2 || n > (long)cap)
		return n < 0 ? n : -EINVAL;
	mrc_rng_seed(rng, job->seed * 0x9E3779B97F4A7C15ull + 0xb6 + idx);
	for (uint32_t g = 0; g < (uint32_t)n; g++)
		perm[g] = g;
	for (uint32_t g = (uint32_t)n - 1; g > 0; g--) { /* Sattolo: j < g */
		uint32_t j = (uint32_t)mrc_rng_below(rng, g), x = perm[g];

		perm[g] = perm[j];
		perm[j] = x;
	}
	return n;
}

void mrc_job_bg_host_rng(const struct conf_job *job, uint32_t idx, uint32_t host,
	struct mrc_rng *rng)
{
	mrc_rng_seed(rng, job->seed * 0x9E3779B97F4A7C15ull + 0xb6 + idx + ((uint64_t)host << 32));
}

uint32_t mrc_job_bg_dest(int mode, const uint32_t *perm, struct mrc_rng *rng, uint32_t n,
	uint32_t g)
{
	uint32_t d;

	if (mode == CONF_BG_PERMUTATION)
		return perm[g];
	d = (uint32_t)mrc_rng_below(rng, n - 1);
	return d >= g ? d + 1 : d; /* any host but itself */
}

uint64_t mrc_job_bg_at(uint64_t first_ps, uint64_t bytes, uint64_t rate_bps, uint64_t k,
	uint64_t den)
{
	unsigned __int128 step = (unsigned __int128)bytes * 8 * 1000000000000ull;

	return first_ps + (uint64_t)(step * k / den / rate_bps);
}

int mrc_job_v_counts(const struct conf_traffic *t, uint32_t n, uint64_t count, uint64_t seed,
	uint64_t *out, char *err, size_t errlen)
{
	double *w = malloc((size_t)n * n * sizeof(*w) + 1), *rem = malloc(n * sizeof(*rem) + 1);
	uint32_t *pi = malloc(n * sizeof(*pi) + 1);
	int e = w && rem && pi ? 0 : -ENOMEM;

	if (!e && t->matrix[0]) {
		e = conf_matrix_load(t->matrix, n, w, err, errlen);
	} else if (!e) { /* Zipf over a seeded popularity order (Fisher-Yates) */
		struct mrc_rng rng;

		mrc_rng_seed(&rng, seed);
		for (uint32_t i = 0; i < n; i++)
			pi[i] = i;
		for (uint32_t i = n - 1; i > 0; i--) {
			uint32_t j = (uint32_t)mrc_rng_below(&rng, i + 1), x = pi[i];

			pi[i] = pi[j];
			pi[j] = x;
		}
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = 0; b < n; b++)
				w[(size_t)a * n + b] = pow(1.0 + pi[b], -t->zipf);
	}
	for (uint32_t a = 0; !e && a < n; a++) {
		const double *row = w + (size_t)a * n;
		uint64_t *o = out + (size_t)a * n, given = 0;
		double sum = 0;

		for (uint32_t b = 0; b < n; b++)
			sum += row[b];
		for (uint32_t b = 0; b < n; b++) {
			double share = sum > 0 ? (double)count * row[b] / sum : 0;

			o[b] = (uint64_t)share;
			rem[b] = share - (double)o[b];
			given += o[b];
		}
		while (sum > 0 && given < count) { /* the largest remainders get one more */
			uint32_t best = 0;

			for (uint32_t b = 1; b < n; b++)
				if (rem[b] > rem[best])
					best = b;
			o[best]++;
			rem[best] = -1;
			given++;
		}
	}
	free(w);
	free(rem);
	free(pi);
	return e;
}

void mrc_job_coll_mem_free(struct mrc_job_coll_mem *mem)
{
	free(mem->members);
	free(mem->counts);
	mem->members = NULL;
	mem->counts = NULL;
}

int mrc_job_coll_params(const struct conf_job *job, uint32_t nranks, uint64_t size,
	struct mrc_job_coll_mem *mem, struct mrc_coll_params *cp)
{
	return mrc_job_coll_params_of(job, &job->traffic, nranks, size, mem, cp);
}

int mrc_job_coll_params_of(const struct conf_job *job, const struct conf_traffic *t,
	uint32_t nranks, uint64_t size, struct mrc_job_coll_mem *mem, struct mrc_coll_params *cp)
{

	*cp = (struct mrc_coll_params){
		.pattern = (enum mrc_coll_pattern)t->pattern,
		.dtype = (enum mrc_dtype)t->dtype,
		.nranks = nranks,
		.count = size / conf_dtype_size(t->dtype),
		.root = t->root_host,
		.seed = job->seed,
		.verify = t->verify ? MRC_VERIFY_BYTES : MRC_VERIFY_OFF, /* the driver's to set */
		.depth = t->pattern == CONF_PAT_WRITE_BW ? t->depth : 0,
		.messages = t->messages,
		.bidir = t->bidirectional,
	};
	if (t->hosts[0]) { /* traffic.hosts: rank g on its g-th host, the root by its position */
		long n;

		if (!mem->members)
			mem->members = malloc(MRC_JOB_HOSTS_MAX * sizeof(*mem->members));
		if (!mem->members)
			return -ENOMEM;
		n = conf_hosts_expand(&job->fabric, t->hosts, mem->members, MRC_JOB_HOSTS_MAX,
			NULL);
		cp->nranks = n > 0 ? (uint32_t)n : 0; /* 0: mrc_coll_new refuses it */
		for (uint32_t i = 0; i < cp->nranks; i++) {
			if (mem->members[i] == t->root_host)
				cp->root = i;
		}
		cp->members = mem->members;
		cp->endpoints = nranks;
	} else if (endpoints_of(job, t) < nranks) { /* another job spans more hosts */
		if (!mem->members)
			mem->members = malloc(MRC_JOB_HOSTS_MAX * sizeof(*mem->members));
		if (!mem->members)
			return -ENOMEM;
		cp->nranks = endpoints_of(job, t);
		for (uint32_t i = 0; i < cp->nranks; i++)
			mem->members[i] = i;
		cp->members = mem->members;
		cp->endpoints = nranks;
	}
	if (t->pattern == CONF_PAT_ALLTOALLV && (t->matrix[0] || t->zipf > 0)) {
		int e;

		free(mem->counts);
		mem->counts = malloc((size_t)cp->nranks * cp->nranks * sizeof(*mem->counts) + 1);
		if (!mem->counts)
			return -ENOMEM;
		e = mrc_job_v_counts(t, cp->nranks, cp->count, job->seed, mem->counts, mem->err,
			sizeof(mem->err));
		if (e)
			return e;
		cp->counts = mem->counts;
	}
	switch (t->algorithm) {
	case CONF_ALG_TREE:
		cp->algo = MRC_COLL_TREE;
		break;
	case CONF_ALG_PARALLEL:
		cp->algo = MRC_COLL_PARALLEL;
		break;
	case CONF_ALG_SHIFT:
		cp->algo = MRC_COLL_SHIFT;
		break;
	default:
		cp->algo = t->pattern == CONF_PAT_ALLTOALL ? MRC_COLL_PARALLEL : MRC_COLL_RING;
		break;
	}
	return 0;
}

int mrc_job_coll_params_phase(const struct conf_job *job, const struct conf_traffic *t,
	const struct conf_phase *ph, uint32_t nranks, struct mrc_job_coll_mem *mem,
	struct mrc_coll_params *cp)
{
	struct conf_traffic pt = *t;
	int e;

	pt.pattern = ph->pattern;
	pt.algorithm = ph->algorithm;
	e = mrc_job_coll_params_of(job, &pt, nranks, ph->size, mem, cp);
	for (uint32_t a = 0; !e && ph->transpose && cp->counts && a < cp->nranks; a++) {
		for (uint32_t b = a + 1; b < cp->nranks; b++) { /* in place */
			uint64_t x = mem->counts[(size_t)a * cp->nranks + b];

			mem->counts[(size_t)a * cp->nranks + b] =
				mem->counts[(size_t)b * cp->nranks + a];
			mem->counts[(size_t)b * cp->nranks + a] = x;
		}
	}
	return e;
}

static int coll_post_none(void *ctx, uint32_t rank, const struct mrc_coll_xfer *x,
	const void *src, uint64_t dst_va, uint32_t imm, uint64_t wr_id)
{
	(void)ctx, (void)rank, (void)x, (void)src, (void)dst_va, (void)imm, (void)wr_id;
	return -EPERM;
}

/* check_coll for job @ji (its keys under traffic, or traffic[ji] in a list). */
/* check_coll_of for job @t (@tk: its key path), or with @phase its phase @phase - 1 (its
 * pattern, algorithm and size, the key traffic...phases[k].size). */
static int check_coll_phase(const struct conf_job *job, const struct conf_traffic *jt,
	const char *tk, size_t phase, char *key, size_t keylen, char *msg, size_t msglen)
{
	static const struct mrc_coll_ops ops = { coll_post_none };
	struct conf_traffic pt = *jt;
	const struct conf_traffic *t = &pt;
	char mk[48];
	uint32_t n = mrc_job_endpoints(job);
	struct mrc_job_coll_mem mem = { 0 };
	int rc = 0;
	unsigned es = conf_dtype_size(t->dtype);
	const char *dt = conf_name_of(conf_dtype_names, (int)t->dtype);
	uint64_t sizes[CONF_SIZES_MAX];
	size_t ns = conf_sizes_expand(&t->sizes, sizes, CONF_SIZES_MAX);
	char k[64], a[32], b[32];

	snprintf(mk, sizeof(mk), "%s.matrix", tk);
	if (phase) {
		const struct conf_phase *p = &jt->phases[phase - 1];

		pt.pattern = p->pattern;
		pt.algorithm = p->algorithm;
		sizes[0] = p->size;
		ns = 1;
	}
	if (ns > CONF_SIZES_MAX)
		ns = CONF_SIZES_MAX;
	for (size_t i = 0; i < ns; i++) {
		struct mrc_coll_params cp;
		struct mrc_coll *c = NULL;

		/* the range's steps are min * factor^k: the first is the smallest */
		if (phase)
			snprintf(k, sizeof(k), "%s.phases[%zu].size", tk, phase - 1);
		else if (t->sizes.range)
			snprintf(k, sizeof(k), "%s.sizes.%s", tk, i ? "max" : "min");
		else
			snprintf(k, sizeof(k), "%s.sizes[%zu]", tk, i);
		rc = mrc_job_coll_params_of(job, t, n, sizes[i], &mem, &cp);
		if (rc == -EINVAL)
			rc = FAIL(mk, "%s '%s'", mem.err, t->matrix);
		if (rc)
			break;
		cp.verify = false;
		/* nccl-tests' size is the whole array: n equal blocks for these */
		if (mrc_coll_blocked(cp.pattern) && cp.count % cp.nranks) {
			rc = FAIL(k, "%s over %" PRIu32 " ranks splits it into %" PRIu32
				" equal blocks of whole %u-byte %s: a multiple of %s '%s'",
				mrc_coll_pattern_name(cp.pattern), cp.nranks, cp.nranks, es, dt,
				bytes((uint64_t)cp.nranks * es, a, sizeof(a)),
				bytes(sizes[i], b, sizeof(b)));
			break;
		}
		/* all-to-all splits each rank's buffer into one block per rank (C12) */
		if ((cp.pattern == MRC_COLL_ALLTOALL || (cp.pattern == MRC_COLL_ALLTOALLV &&
			!cp.counts)) && cp.count < cp.nranks) {
			rc = FAIL(k,
				"all-to-all over %" PRIu32 " ranks needs at least one %u-byte "
				"%s per rank (%s) '%s'",
				cp.nranks, es, dt, bytes((uint64_t)cp.nranks * es, a, sizeof(a)),
				bytes(sizes[i], b, sizeof(b)));
			break;
		}
		/* the smallest and the largest size build the collective's schedule */
		if (i && i + 1 < ns)
			continue;
		rc = mrc_coll_new(&cp, &ops, NULL, &c);
		mrc_coll_free(c);
		if (rc && rc != -ENOMEM)
			rc = FAIL(k, "%s over %" PRIu32 " ranks cannot be built for it: %s '%s'",
				mrc_coll_pattern_name(cp.pattern), cp.nranks, strerror(-rc),
				bytes(sizes[i], b, sizeof(b)));
		if (rc)
			break;
	}
	mrc_job_coll_mem_free(&mem);
	return rc;
}

/*
 * A parallel simulation (sim.workers > 1, docs/architecture.md "Parallel simulation") needs
 * a partition (a rack) per worker at least and a lookahead above 0 between partitions:
 * the T0-T1 link delay plus the lesser of the switch delay and a PFC frame's time, the
 * latter above 0 at any rate, so both delays 0 is the one way to have none. Every pattern
 * runs: a collective's QPs are all made at its start (mrc_coll_peers).
 */
static int check_sim(const struct conf_job *job, char *key, size_t keylen, char *msg,
	size_t msglen)
{
	const struct conf_fabric *f = &job->fabric;
	uint32_t w = job->sim.workers;

	if (w <= 1 || f->driver != CONF_DRIVER_SIM)
		return 0;
	if (w > f->t0)
		return FAIL("sim.workers",
			"more workers than partitions: a partition is a rack (a T0 of every "
			"plane with its hosts), fabric.t0 makes %u; use at most %u workers or "
			"more racks '%u'", f->t0, f->t0, w);
	if (!f->fabric_link_delay_ps && !f->switch_delay_ps)
		return FAIL("fabric.fabric_link_delay",
			"sim.workers %u needs a lookahead above 0 between partitions, and "
			"fabric_link_delay and switch_delay are both 0: give either a delay "
			"or set sim.workers to 1 '0'", w);
	return 0;
}

/* check_coll for job @ji: its sizes, or each collective phase of it. */
static int check_coll_of(const struct conf_job *job, size_t ji, char *key, size_t keylen,
	char *msg, size_t msglen)
{
	const struct conf_traffic *t = conf_job_traffic(job, ji);
	char tk[32];
	int rc = 0;

	if (job->traffic_list)
		snprintf(tk, sizeof(tk), "traffic[%zu]", ji);
	else
		snprintf(tk, sizeof(tk), "traffic");
	if (t->pattern == CONF_PAT_BACKGROUND) /* no collective */
		return 0;
	if (!t->n_phases)
		return check_coll_phase(job, t, tk, 0, key, keylen, msg, msglen);
	for (size_t p = 0; p < t->n_phases && !rc; p++)
		if (!t->phases[p].has_gap)
			rc = check_coll_phase(job, t, tk, p + 1, key, keylen, msg, msglen);
	return rc;
}

/* Every job's collective (check_coll_of). */
static int check_coll(const struct conf_job *job, char *key, size_t keylen, char *msg,
	size_t msglen)
{
	int rc = 0;

	for (size_t i = 0; i < conf_jobs(job) && !rc; i++)
		rc = check_coll_of(job, i, key, keylen, msg, msglen);
	return rc;
}

int mrc_job_check(const struct conf_job *job, char *key, size_t keylen, char *msg,
	size_t msglen)
{
	int rc = check_srv6(job, key, keylen, msg, msglen);

	/* the report summarizes at most MRC_HIST_SUMMARY_MAX_PCT percentiles (mrc/out/report.c) */
	if (!rc && job->output.hist.n_percentiles > MRC_HIST_SUMMARY_MAX_PCT)
		return FAIL("output.hist.percentiles", "more than %d percentiles '%zu'",
			MRC_HIST_SUMMARY_MAX_PCT, job->output.hist.n_percentiles);

	rc = rc ?: check_packets(job, key, keylen, msg, msglen);
	rc = rc ?: check_sim(job, key, keylen, msg, msglen);
	return rc ?: check_coll(job, key, keylen, msg, msglen);
}

/* mkdir -p @dir (mode 0755): each missing component in turn. 0 or -errno. */
static int mkdir_parents(const char *dir)
{
	char *p = strdup(dir);
	int e = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; !e; s++) {
		bool end = *s == '\0';

		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			e = -errno;
		if (end)
			break;
		*s = '/';
	}
	free(p);
	return e;
}

/* What an existing non-regular file is, for messages. */
static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISCHR(m) ? "a character device"
	     : S_ISBLK(m) ? "a block device" : S_ISDIR(m) ? "a directory" : "not a regular file";
}

/*
 * An output file @dir/@name may be absent or a regular file (or a link to one): anything
 * else would block the run (a FIFO without a reader) or write where no file is. 0, or
 * -EEXIST with the message in @err.
 */
static int check_target(const char *dir, const char *name, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return 0; /* longer than a path can be: the open will say so */
	if (stat(path, &st) || S_ISREG(st.st_mode))
		return 0;
	snprintf(err, errlen, "output.dir: %s: exists and is %s, not a regular file: refused "
		"(remove it, or choose another output.dir)", path, file_kind(st.st_mode));
	return -EEXIST;
}

/*
 * Every file a run may write in @dir: the fixed names, the captures', and in hist/ and
 * plots/ whatever an earlier run may have left under the suffixes mrcgen writes there.
 */
static int check_targets(const struct conf_job *job, char *err, size_t errlen)
{
	static const char *const fixed[] = { "report.json", "latency.hlog" };
	static const char *const subdirs[] = { "hist", "plots" };
	const char *dir = job->output.dir;
	char name[256], sub[4096];
	int e = 0;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]) && !e; i++)
		e = check_target(dir, fixed[i], err, errlen);
	for (size_t i = 0; i < job->output.n_captures && !e; i++)
		e = check_target(dir, conf_capture_file(&job->output.captures[i], name,
			sizeof(name)), err, errlen);
	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]) && !e; i++) {
		struct dirent *de;
		DIR *d;

		if (snprintf(sub, sizeof(sub), "%s/%s", dir, subdirs[i]) >= (int)sizeof(sub))
			continue;
		d = opendir(sub);
		if (!d)
			continue; /* absent (made later), or not a directory (mkdir says so) */
		while (!e && (de = readdir(d)))
			if (de->d_name[0] != '.')
				e = check_target(sub, de->d_name, err, errlen);
		closedir(d);
	}
	return e;
}

/* A name an earlier report may list: relative, without "..", inside the directory. */
static bool safe_name(const char *n)
{
	if (!n[0] || n[0] == '/' || strlen(n) > 255)
		return false;
	for (const char *c = n; (c = strstr(c, "..")); c += 2)
		if ((c == n || c[-1] == '/') && (c[2] == '/' || c[2] == '\0'))
			return false;
	return true;
}

#define REPORT_TAIL (1u << 20) /* where an earlier report's "files" is looked for first */

/* @n bytes of @b less the trailing whitespace. */
static size_t rtrim(const char *b, size_t n)
{
	while (n && strchr(" \t\r\n", b[n - 1]))
		n--;
	return n;
}

/*
 * The "files" array of the earlier report at @path (new reference), NULL when there is
 * none. mrcgen writes "files" as report.json's last key, so a report above REPORT_TAIL
 * bytes is read from its tail: the last `"files":` there, then nothing but one JSON
 * array and the object's `}` to the end of the file. Anything else (another writer, a
 * damaged file) and a small report are parsed whole: an 8192-host report is 35 MB, 0.4 s
 * and some 400 MB of jansson tree to read whole.
 */
static json_t *earlier_files(const char *path)
{
	static const char key[] = "\"files\":";
	json_t *root, *files = NULL;
	char *buf = NULL;
	struct stat st;
	size_t n = 0, i, e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > REPORT_TAIL &&
		(buf = malloc(REPORT_TAIL)) &&
		pread(fd, buf, REPORT_TAIL, st.st_size - REPORT_TAIL) == REPORT_TAIL)
		n = REPORT_TAIL;
	if (fd >= 0)
		close(fd);
	e = rtrim(buf, n);
	if (e && buf[e - 1] == '}' && (e = rtrim(buf, e - 1)) >= sizeof(key) &&
		buf[e - 1] == ']') {
		for (i = e - sizeof(key) + 1; i-- > 0;) /* the last "files": before the ']' */
			if (!memcmp(buf + i, key, sizeof(key) - 1))
				break;
		if (i != (size_t)-1)
			files = json_loadb(buf + i + sizeof(key) - 1, e - i - sizeof(key) + 1, 0,
				NULL);
	}
	free(buf);
	if (json_is_array(files))
		return files;
	json_decref(files);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
	files = json_is_object(root) ? json_incref(json_object_get(root, "files")) : NULL;
	json_decref(root);
	return files;
}

/*
 * Removes the outputs an earlier run listed in @dir/report.json ("files", earlier_files),
 * but report.json, which this run replaces: what this run writes it writes again, and what
 * it does not write must not be left beside its report. Only regular files, only names
 * inside @dir (the report is read as hostile input: anything else is skipped).
 */
static void remove_earlier(const char *dir)
{
	char path[4096];
	json_t *files, *v;
	size_t i;

	if (snprintf(path, sizeof(path), "%s/report.json", dir) >= (int)sizeof(path))
		return;
	files = earlier_files(path);
	json_array_foreach(files, i, v) {
		const char *n = json_string_value(v);
		struct stat st;

		if (!n || !safe_name(n) || !strcmp(n, "report.json") ||
			snprintf(path, sizeof(path), "%s/%s", dir, n) >= (int)sizeof(path))
			continue;
		if (!lstat(path, &st) && S_ISREG(st.st_mode))
			unlink(path);
	}
	json_decref(files);
}

int mrc_job_outdir(const struct conf_job *job, char *err, size_t errlen)
{
	const char *dir = job->output.dir;
	char *probe = NULL;
	struct stat st;
	int fd, e;

	e = mkdir_parents(dir);
	if (e)
		goto fail;
	if (stat(dir, &st)) {
		e = -errno;
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		e = -ENOTDIR;
		goto fail;
	}
	if (asprintf(&probe, "%s/.mrcgen-probe-XXXXXX", dir) < 0) {
		snprintf(err, errlen, "output.dir: %s: out of memory", dir);
		return -ENOMEM;
	}
	fd = mkstemp(probe);
	if (fd < 0) {
		e = -errno;
		free(probe);
		goto fail;
	}
	close(fd);
	unlink(probe);
	free(probe);
	e = check_targets(job, err, errlen);
	if (!e)
		remove_earlier(dir);
	return e;
fail:
	snprintf(err, errlen, "output.dir: %s: %s", dir, strerror(-e));
	return e;
}

int (*mrc_job_report_stub)(const struct conf_job *job, const char *why, char *err,
	size_t errlen);

int mrc_job_outdir_claim(const struct conf_job *job, const char *why, char *err,
	size_t errlen)
{
	char path[4096];
	int e;

	/* a stub that cannot be written (a full disk): the earlier report goes all the same,
	 * and the run's own report will say what it could not write */
	if (job->output.report && mrc_job_report_stub && !mrc_job_report_stub(job, why, err,
		errlen))
		return 0;
	if (snprintf(path, sizeof(path), "%s/report.json", job->output.dir) >= (int)sizeof(path))
		return 0; /* too long a path: nothing was written there */
	if (!unlink(path) || errno == ENOENT)
		return 0;
	e = -errno;
	snprintf(err, errlen, "output.dir: %s: %s", path, strerror(-e));
	return e;
}
