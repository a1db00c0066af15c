/* SPDX-License-Identifier: BSD-2-Clause */
/* rankres: one rank's RESULT body as JSON, its checked reading and its merge (rankres.h). */
#include "mrc/job/rankres.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jansson's integers are signed 64-bit: counters past 2^63 do not occur */
static int put_u64(json_t *o, const char *key, uint64_t v)
{
	return json_object_set_new(o, key, json_integer((json_int_t)v));
}

/* @h as hist.KEY (its counts) and hist_exact.KEY: [exact, min, max, "sum" as 32 hex
 * digits, Welford mean, Welford M2] (doubles printed to round-trip: %.17g). */
static int put_hist(json_t *o, json_t *ox, const char *key, const struct mrc_hist *h)
{
	struct mrc_hist_exact x;
	char *b64 = NULL, sum[33];
	int e;

	if (!h)
		return -EINVAL;
	e = mrc_hist_encode_base64(h, &b64);
	if (e)
		return e;
	e = json_object_set_new(o, key, json_string(b64)) ? -ENOMEM : 0;
	free(b64);
	mrc_hist_exact_get(h, &x);
	snprintf(sum, sizeof(sum), "%016llx%016llx", (unsigned long long)x.sum_hi,
		(unsigned long long)x.sum_lo);
	return e ?: json_object_set_new(ox, key, json_pack("[biisff]", x.exact,
		(json_int_t)x.min, (json_int_t)x.max, sum, x.w_mean, x.w_m2)) ? -ENOMEM : 0;
}

int mrc_rankres_encode(const struct mrc_rankres *r, char **out, size_t *len)
{
	json_t *root = json_object(), *ctr = json_object(), *evs = json_array();
	json_t *hist = json_object(), *bad = json_array(), *hx = json_object();
	int e = 0;

	*out = NULL;
	if (!root || !ctr || !evs || !hist || !bad || !hx) {
		json_decref(root), json_decref(ctr), json_decref(evs), json_decref(hist);
		json_decref(bad), json_decref(hx);
		return -ENOMEM;
	}
	e |= put_u64(root, "version", MRC_RANKRES_VERSION);
#define PUT(f) e |= put_u64(ctr, #f, r->ctr.f);
	MRC_RANKRES_CTRS(PUT)
#undef PUT
	e |= json_object_set_new(root, "counters", ctr);
	e |= put_u64(root, "evs_retired", r->evs_retired);
	for (size_t k = 0; k < r->n_evs; k++) {
		const struct mrc_run_ev *v = &r->evs[k];
		json_t *o = json_object();

		e |= put_u64(o, "ev", v->ev);
#define PUT(f) e |= put_u64(o, #f, v->f);
		MRC_RANKRES_EV_FIELDS(PUT)
#undef PUT
		e |= json_array_append_new(evs, o);
	}
	e |= json_object_set_new(root, "evs", evs);
	for (size_t i = 0; i < r->n_bad; i++)
		e |= json_array_append_new(bad, json_pack("[II]", (json_int_t)r->bad[i].iter,
							(json_int_t)r->bad[i].off_ps));
	e |= json_object_set_new(root, "bad", bad);
	if (e) {
		json_decref(root);
		json_decref(hist);
		return -ENOMEM;
	}
	e = put_hist(hist, hx, "msg_ns", r->msg_ns);
	e = e ?: put_hist(hist, hx, "step_ns", r->step_ns);
	e = e ?: put_hist(hist, hx, "rtt_ns", r->rtt_ns);
	if (json_object_set_new(root, "hist_exact", hx))
		e = e ?: -ENOMEM;
	if (json_object_set_new(root, "hist", hist))
		e = e ?: -ENOMEM;
	if (!e) {
		*out = json_dumps(root, JSON_COMPACT);
		e = *out ? 0 : -ENOMEM;
		*len = *out ? strlen(*out) : 0;
	}
	json_decref(root);
	return e;
}

static int bad_field(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad_field(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* *v = @o's member @key, a non-negative integer; else -EPROTO naming @what.@key. */
static int get_u64(const json_t *o, const char *what, const char *key, uint64_t *v, char *err,
	size_t errlen)
{
	json_t *j = json_object_get(o, key);

	if (!json_is_integer(j) || json_integer_value(j) < 0)
		return bad_field(err, errlen, "%s%s%s: not a non-negative integer", what,
			*what ? "." : "", key);
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

static int get_hist(const json_t *o, const json_t *ox, const char *key, struct mrc_hist **h,
	char *err, size_t errlen)
{
	json_t *j = json_object_get(o, key);
	struct mrc_hist_exact x;
	json_int_t mn, mx;
	const char *sum;
	unsigned long long hi, lo;
	int ex, n = 0, e;

	if (!json_is_string(j))
		return bad_field(err, errlen, "hist.%s: not a string", key);
	e = mrc_hist_decode_base64(json_string_value(j), json_string_length(j), h);
	if (e == -ENOMEM)
		return e;
	if (e)
		return bad_field(err, errlen, "hist.%s: not a histogram (%s)", key, strerror(-e));
	if (json_unpack(json_object_get(ox, key), "[bIIsFF!]", &ex, &mn, &mx, &sum, &x.w_mean,
		    &x.w_m2) || strlen(sum) != 32 ||
		sscanf(sum, "%16llx%16llx%n", &hi, &lo, &n) != 2 || n != 32)
		return bad_field(err, errlen, "hist_exact.%s: not [exact, min, max, \"sum\", "
					      "mean, m2]", key);
	x.exact = ex;
	x.min = mn;
	x.max = mx;
	x.sum_hi = (int64_t)hi;
	x.sum_lo = lo;
	if (mrc_hist_exact_set(*h, &x))
		return bad_field(err, errlen, "hist_exact.%s: min %lld or max %lld outside its "
					      "counts", key, (long long)mn, (long long)mx);
	return 0;
}

/* The RESULT fields of @root into @r (zeroed); the histograms last. */
static int decode_fields(const json_t *root, struct mrc_rankres *r, char *err, size_t errlen)
{
	const json_t *ctr = json_object_get(root, "counters"), *evs = json_object_get(root, "evs");
	const json_t *hist = json_object_get(root, "hist"), *bad = json_object_get(root, "bad");
	const json_t *hx = json_object_get(root, "hist_exact");
	uint64_t v;
	int e;

	if (!json_is_object(ctr) || !json_is_array(evs) || !json_is_object(hist) ||
		!json_is_array(bad))
		return bad_field(err, errlen, "counters, evs, hist or bad: missing or of the "
					      "wrong type");
#define GET(f)                                                                                     \
	if ((e = get_u64(ctr, "counters", #f, &v, err, errlen)))                                   \
		return e;                                                                          \
	r->ctr.f = v;
	MRC_RANKRES_CTRS(GET)
#undef GET
	if ((e = get_u64(root, "", "evs_retired", &r->evs_retired, err, errlen)))
		return e;
	r->evs = calloc(json_array_size(evs) + 1, sizeof(*r->evs));
	r->bad = calloc(json_array_size(bad) + 1, sizeof(*r->bad));
	if (!r->evs || !r->bad)
		return -ENOMEM;
	for (size_t k = 0; k < json_array_size(evs); k++, r->n_evs++) {
		const json_t *o = json_array_get(evs, k);
		struct mrc_run_ev *d = &r->evs[k];
		char what[32];

		snprintf(what, sizeof(what), "evs[%zu]", k);
		if ((e = get_u64(o, what, "ev", &v, err, errlen)))
			return e;
		d->ev = (uint32_t)v;
#define GET(f)                                                                                     \
	if ((e = get_u64(o, what, #f, &v, err, errlen)))                                           \
		return e;                                                                          \
	d->f = v;
		MRC_RANKRES_EV_FIELDS(GET)
#undef GET
	}
	for (size_t i = 0; i < json_array_size(bad); i++, r->n_bad++) {
		const json_t *p = json_array_get(bad, i), *it = json_array_get(p, 0);
		const json_t *off = json_array_get(p, 1);

		if (json_array_size(p) != 2 || !json_is_integer(it) || !json_is_integer(off) ||
			json_integer_value(it) < 0 || json_integer_value(it) > UINT32_MAX ||
			json_integer_value(off) < 0)
			return bad_field(err, errlen, "bad[%zu]: not [iteration, ps]", i);
		r->bad[i].iter = (uint32_t)json_integer_value(it);
		r->bad[i].off_ps = (uint64_t)json_integer_value(off);
	}
	e = get_hist(hist, hx, "msg_ns", &r->msg_ns, err, errlen);
	e = e ?: get_hist(hist, hx, "step_ns", &r->step_ns, err, errlen);
	return e ?: get_hist(hist, hx, "rtt_ns", &r->rtt_ns, err, errlen);
}

int mrc_rankres_decode(const void *buf, size_t len, struct mrc_rankres *r, char *err,
	size_t errlen)
{
	json_error_t je;
	json_t *root, *ver;
	int e;

	memset(r, 0, sizeof(*r));
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return bad_field(err, errlen, "not JSON: %s at byte %d", je.text, je.position);
	ver = json_object_get(root, "version");
	if (!json_is_object(root) || !json_is_integer(ver))
		e = bad_field(err, errlen, "version: missing or not an integer");
	else if (json_integer_value(ver) != MRC_RANKRES_VERSION)
		e = bad_field(err, errlen, "version %lld, this build reads %d",
			(long long)json_integer_value(ver), MRC_RANKRES_VERSION);
	else
		e = decode_fields(root, r, err, errlen);
	json_decref(root);
	return e;
}

int mrc_rankres_merge(struct mrc_run_result *res, const struct mrc_rankres *r, char *err,
	size_t errlen)
{
	if (r->n_evs != res->n_evs)
		return bad_field(err, errlen, "evs: %zu EVs, the job's plan has %zu", r->n_evs,
			res->n_evs);
	for (size_t k = 0; k < r->n_evs; k++)
		if (r->evs[k].ev != res->evs[k].ev)
			return bad_field(err, errlen, "evs[%zu]: EV %u, the job's plan has %u", k,
				r->evs[k].ev, res->evs[k].ev);
	/* all or nothing: a histogram beyond the run's range is refused, not left out */
	if (!mrc_hist_add_fits(res->msg_ns, r->msg_ns) ||
		!mrc_hist_add_fits(res->step_ns, r->step_ns) ||
		!mrc_hist_add_fits(res->rtt_ns, r->rtt_ns))
		return bad_field(err, errlen, "hist: a value beyond the run's histograms' "
					      "range");
#define ADD(f) res->f += r->ctr.f;
	MRC_RANKRES_CTRS(ADD)
#undef ADD
	for (size_t k = 0; k < r->n_evs; k++) {
#define ADD(f) res->evs[k].f += r->evs[k].f;
		MRC_RANKRES_EV_FIELDS(ADD)
#undef ADD
	}
	mrc_hist_add(res->msg_ns, r->msg_ns);
	mrc_hist_add(res->step_ns, r->step_ns);
	mrc_hist_add(res->rtt_ns, r->rtt_ns);
	return 0;
}

void mrc_rankres_free(struct mrc_rankres *r)
{
	free(r->evs);
	free(r->bad);
	mrc_hist_free(r->msg_ns);
	mrc_hist_free(r->step_ns);
	mrc_hist_free(r->rtt_ns);
	r->evs = NULL;
	r->bad = NULL;
	r->msg_ns = r->step_ns = r->rtt_ns = NULL;
	r->n_evs = r->n_bad = 0;
}
