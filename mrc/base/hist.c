/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hist: HdrHistogram-compatible histograms; layout, percentile iteration, .hgrm text and
 * the V2 compressed .hlog encoding follow HdrHistogram's documented formats (C06-C08).
 */
#include "mrc/base/hist.h"

#include "mrc/base/bytes.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

/* Encoding cookies of HdrHistogram's V2 format; 0x10 says "9-byte max word size". */
#define HIST_V2_COOKIE		0x1c849313u
#define HIST_V2_COMPRESSED	0x1c849314u
#define HIST_V2_HEAD_BYTES	40
#define HIST_MAX_WORD		9

struct mrc_hist {
	int64_t lowest, highest;
	int sigfigs;
	int unit_mag;		/* floor(log2(lowest)): resolution of bucket 0 */
	int sub_half_mag;	/* log2(sub_count) - 1 */
	int32_t sub_count;	/* sub-buckets per bucket, a power of two */
	int32_t sub_half;
	uint64_t sub_mask;	/* (sub_count - 1) << unit_mag */
	int bucket_count;
	int32_t counts_len;	/* (bucket_count + 1) * sub_half */
	int64_t total;		/* values recorded */
	int64_t rejected;	/* values out of range */
	int32_t max_index;	/* highest non-empty counts index, -1 when empty */
	/* exact running statistics of the recorded values */
	bool exact;
	int64_t min, max;
	__int128 sum;
	double w_mean, w_m2;	/* Welford: mean, sum of squared deviations */
	int64_t counts[];
};

static int bucket_index(const struct mrc_hist *h, uint64_t v)
{
	int pow2ceil = 64 - __builtin_clzll(v | h->sub_mask);

	return pow2ceil - h->unit_mag - (h->sub_half_mag + 1);
}

/* Index into counts for @v >= 0; may be >= counts_len when @v is beyond the range. */
static int64_t counts_index(const struct mrc_hist *h, uint64_t v)
{
	int b = bucket_index(h, v);
	int64_t s = (int64_t)(v >> (b + h->unit_mag));

	return ((int64_t)(b + 1) << h->sub_half_mag) + (s - h->sub_half);
}

/* Lowest value of counts slot @i (HdrHistogram's valueFromIndex). */
static uint64_t value_from_index(const struct mrc_hist *h, int32_t i)
{
	int b = (i >> h->sub_half_mag) - 1;
	uint64_t s = (uint64_t)(i & (h->sub_half - 1)) + (uint64_t)h->sub_half;

	if (b < 0) {
		s -= (uint64_t)h->sub_half;
		b = 0;
	}
	return s << (b + h->unit_mag);
}

static uint64_t range_size(const struct mrc_hist *h, uint64_t v)
{
	int b = bucket_index(h, v);
	uint64_t s = v >> (b + h->unit_mag);

	if (s >= (uint64_t)h->sub_count)
		b++;
	return 1ull << (h->unit_mag + b);
}

static uint64_t lowest_eq(const struct mrc_hist *h, uint64_t v)
{
	int b = bucket_index(h, v);

	return (v >> (b + h->unit_mag)) << (b + h->unit_mag);
}

/* Saturates at INT64_MAX: the top bucket of a huge range may reach past int64. */
static int64_t highest_eq(const struct mrc_hist *h, uint64_t v)
{
	uint64_t r = lowest_eq(h, v) + range_size(h, v) - 1;

	return r > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)r;
}

static uint64_t median_eq(const struct mrc_hist *h, uint64_t v)
{
	return lowest_eq(h, v) + (range_size(h, v) >> 1);
}

int mrc_hist_init(int64_t lowest, int64_t highest, int sigfigs, struct mrc_hist **out)
{
	struct mrc_hist *h;
	int64_t largest_single = 2;
	int count_mag = 0, unit_mag, half_mag, buckets;
	uint64_t untrackable;
	int32_t sub_count, counts_len;

	*out = NULL;
	if (lowest < 1 || sigfigs < 1 || sigfigs > 5 || lowest > highest / 2)
		return -EINVAL;
	for (int i = 0; i < sigfigs; i++)
		largest_single *= 10;
	while ((1ll << count_mag) < largest_single)
		count_mag++;
	unit_mag = 63 - __builtin_clzll((uint64_t)lowest);
	half_mag = (count_mag > 1 ? count_mag : 1) - 1;
	if (unit_mag + half_mag > 61)
		return -EINVAL;
	sub_count = (int32_t)1 << (half_mag + 1);
	/* Buckets needed so that the last one reaches @highest (getBucketsNeededToCoverValue). */
	untrackable = (uint64_t)sub_count << unit_mag;
	buckets = 1;
	while (untrackable <= (uint64_t)highest) {
		if (untrackable > (uint64_t)INT64_MAX / 2) {
			buckets++;
			break;
		}
		untrackable <<= 1;
		buckets++;
	}
	counts_len = (buckets + 1) * (sub_count / 2);
	h = calloc(1, sizeof(*h) + (size_t)counts_len * sizeof(h->counts[0]));
	if (!h)
		return -ENOMEM;
	h->lowest = lowest;
	h->highest = highest;
	h->sigfigs = sigfigs;
	h->unit_mag = unit_mag;
	h->sub_half_mag = half_mag;
	h->sub_count = sub_count;
	h->sub_half = sub_count / 2;
	h->sub_mask = (uint64_t)(sub_count - 1) << unit_mag;
	h->bucket_count = buckets;
	h->counts_len = counts_len;
	mrc_hist_reset(h);
	*out = h;
	return 0;
}

void mrc_hist_free(struct mrc_hist *h)
{
	free(h);
}

void mrc_hist_reset(struct mrc_hist *h)
{
	/* counts past max_index are zero (every writer keeps it the highest non-empty
	 * index): clearing only up to it leaves the untouched pages of a wide range (1 ns to
	 * 1 h at 3 figures is 270 KB) unwritten, so not resident */
	if (h->max_index >= 0)
		memset(h->counts, 0, ((size_t)h->max_index + 1) * sizeof(h->counts[0]));
	h->total = 0;
	h->rejected = 0;
	h->max_index = -1;
	h->exact = true;
	h->min = 0;
	h->max = 0;
	h->sum = 0;
	h->w_mean = 0;
	h->w_m2 = 0;
}

/* Folds @n samples of value @x into the running statistics (before total is updated). */
static void stats_add(struct mrc_hist *h, int64_t x, int64_t n)
{
	double nn = (double)(h->total + n), delta = (double)x - h->w_mean;

	if (h->total == 0 || x < h->min)
		h->min = x;
	if (h->total == 0 || x > h->max)
		h->max = x;
	h->sum += (__int128)x * n;
	h->w_mean += delta * (double)n / nn;
	h->w_m2 += delta * ((double)x - h->w_mean) * (double)n;
}

bool mrc_hist_record_n(struct mrc_hist *h, int64_t v, int64_t n)
{
	int64_t i;

	if (n < 1)
		return false;
	if (v < 0 || (i = counts_index(h, (uint64_t)v)) >= h->counts_len) {
		h->rejected += n;
		return false;
	}
	stats_add(h, v, n);
	h->counts[i] += n;
	h->total += n;
	if (i > h->max_index)
		h->max_index = (int32_t)i;
	return true;
}

bool mrc_hist_record(struct mrc_hist *h, int64_t v)
{
	return mrc_hist_record_n(h, v, 1);
}

bool mrc_hist_record_corrected(struct mrc_hist *h, int64_t v, int64_t expected_interval)
{
	if (!mrc_hist_record_n(h, v, 1))
		return false;
	if (expected_interval <= 0 || v <= expected_interval)
		return true;
	for (int64_t m = v - expected_interval; m >= expected_interval; m -= expected_interval)
		mrc_hist_record_n(h, m, 1);
	return true;
}

int64_t mrc_hist_value_at_percentile(const struct mrc_hist *h, double p)
{
	int64_t want, run = 0;
	double rank;

	if (h->total == 0)
		return 0;
	if (!(p > 0))
		p = 0;
	if (p > 100)
		p = 100;
	/* Rank in double, clamped before the conversion: a total near INT64_MAX rounds to 2^63. */
	rank = floor(p / 100.0 * (double)h->total + 0.5);
	if (rank >= (double)h->total)
		want = h->total;
	else
		want = rank < 1 ? 1 : (int64_t)rank;
	for (int32_t i = 0; i <= h->max_index; i++) {
		run += h->counts[i];
		if (run >= want) {
			uint64_t v = value_from_index(h, i);

			return p == 0 ? (int64_t)lowest_eq(h, v) : highest_eq(h, v);
		}
	}
	return 0;
}

/* Recomputes the statistics from bucket medians: what is known after decoding a log. */
static void stats_from_buckets(struct mrc_hist *h)
{
	int64_t n = h->total;

	h->sum = 0;
	h->w_mean = 0;
	h->w_m2 = 0;
	h->total = 0;
	for (int32_t i = 0; i <= h->max_index; i++) {
		if (h->counts[i] == 0)
			continue;
		uint64_t m = median_eq(h, value_from_index(h, i));

		stats_add(h, m > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)m, h->counts[i]);
		h->total += h->counts[i];
	}
	for (int32_t i = 0; n && i <= h->max_index; i++) {
		if (h->counts[i]) {
			h->min = (int64_t)lowest_eq(h, value_from_index(h, i));
			break;
		}
	}
	if (n)
		h->max = highest_eq(h, value_from_index(h, h->max_index));
	h->exact = false;
}

bool mrc_hist_add_fits(const struct mrc_hist *dst, const struct mrc_hist *src)
{
	return src->total == 0 ||
	       counts_index(dst, value_from_index(src, src->max_index)) < dst->counts_len;
}

int mrc_hist_add(struct mrc_hist *dst, const struct mrc_hist *src)
{
	bool same = dst->unit_mag == src->unit_mag && dst->sub_half_mag == src->sub_half_mag;
	double na, nb, n, delta;

	if (!mrc_hist_add_fits(dst, src))
		return -ERANGE;
	dst->rejected += src->rejected;
	if (src->total == 0)
		return 0;
	for (int32_t i = 0; i <= src->max_index; i++) {
		int64_t j = same ? i : counts_index(dst, value_from_index(src, i));

		if (src->counts[i] == 0)
			continue;
		dst->counts[j] += src->counts[i];
		if (j > dst->max_index)
			dst->max_index = (int32_t)j;
	}
	/* Chan et al.'s pairwise combination of the Welford statistics. */
	na = (double)dst->total;
	nb = (double)src->total;
	n = na + nb;
	delta = src->w_mean - dst->w_mean;
	if (dst->total == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->total == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->w_mean += delta * nb / n;
	dst->w_m2 += src->w_m2 + delta * delta * na * nb / n;
	dst->sum += src->sum;
	dst->total += src->total;
	dst->exact = dst->exact && src->exact;
	return 0;
}

int64_t mrc_hist_count(const struct mrc_hist *h)
{
	return h->total;
}

int64_t mrc_hist_out_of_range(const struct mrc_hist *h)
{
	return h->rejected;
}

int64_t mrc_hist_min(const struct mrc_hist *h)
{
	return h->total ? h->min : 0;
}

int64_t mrc_hist_max(const struct mrc_hist *h)
{
	return h->total ? h->max : 0;
}

double mrc_hist_mean(const struct mrc_hist *h)
{
	return h->total ? (double)h->sum / (double)h->total : 0.0;
}

double mrc_hist_stddev(const struct mrc_hist *h)
{
	return h->total && h->w_m2 > 0 ? sqrt(h->w_m2 / (double)h->total) : 0.0;
}

bool mrc_hist_is_exact(const struct mrc_hist *h)
{
	return h->exact;
}

void mrc_hist_exact_get(const struct mrc_hist *h, struct mrc_hist_exact *x)
{
	*x = (struct mrc_hist_exact){ .exact = h->exact, .min = h->min, .max = h->max,
		.sum_hi = (int64_t)(h->sum >> 64), .sum_lo = (uint64_t)h->sum,
		.w_mean = h->w_mean, .w_m2 = h->w_m2 };
}

int mrc_hist_exact_set(struct mrc_hist *h, const struct mrc_hist_exact *x)
{
	int64_t lo, hi;
	int32_t i = 0;

	if (h->total) {
		while (i < h->max_index && !h->counts[i])
			i++;
		lo = mrc_hist_lowest_equivalent(h, value_from_index(h, i));
		hi = mrc_hist_highest_equivalent(h, value_from_index(h, h->max_index));
		if (x->min > x->max || x->min < lo || x->max > hi)
			return -EINVAL;
	}
	h->exact = x->exact;
	h->min = x->min;
	h->max = x->max;
	h->sum = (__int128)x->sum_hi << 64 | (__int128)x->sum_lo;
	h->w_mean = x->w_mean;
	h->w_m2 = x->w_m2;
	return 0;
}

double mrc_hist_bucket_mean(const struct mrc_hist *h)
{
	double sum = 0;

	if (h->total == 0)
		return 0.0;
	for (int32_t i = 0; i <= h->max_index; i++) {
		if (h->counts[i])
			sum += (double)median_eq(h, value_from_index(h, i)) * (double)h->counts[i];
	}
	return sum / (double)h->total;
}

double mrc_hist_bucket_stddev(const struct mrc_hist *h)
{
	double mean = mrc_hist_bucket_mean(h), dev = 0;

	if (h->total == 0)
		return 0.0;
	for (int32_t i = 0; i <= h->max_index; i++) {
		double d;

		if (h->counts[i] == 0)
			continue;
		d = (double)median_eq(h, value_from_index(h, i)) - mean;
		dev += d * d * (double)h->counts[i];
	}
	return sqrt(dev / (double)h->total);
}

int64_t mrc_hist_bucket_max(const struct mrc_hist *h)
{
	if (h->total == 0)
		return 0;
	return highest_eq(h, value_from_index(h, h->max_index));
}

int64_t mrc_hist_lowest_equivalent(const struct mrc_hist *h, int64_t v)
{
	return v <= 0 ? 0 : (int64_t)lowest_eq(h, (uint64_t)v);
}

int64_t mrc_hist_highest_equivalent(const struct mrc_hist *h, int64_t v)
{
	return highest_eq(h, v < 0 ? 0 : (uint64_t)v);
}

int64_t mrc_hist_lowest(const struct mrc_hist *h)
{
	return h->lowest;
}

int64_t mrc_hist_highest(const struct mrc_hist *h)
{
	return h->highest;
}

int mrc_hist_sigfigs(const struct mrc_hist *h)
{
	return h->sigfigs;
}

int mrc_hist_bucket_count(const struct mrc_hist *h)
{
	return h->bucket_count;
}

int mrc_hist_sub_bucket_count(const struct mrc_hist *h)
{
	return h->sub_count;
}

bool mrc_hist_next(const struct mrc_hist *h, struct mrc_hist_iter *it)
{
	while (it->next_index >= 0 && it->next_index <= h->max_index) {
		int32_t i = it->next_index++;
		uint64_t v;

		if (h->counts[i] == 0)
			continue;
		v = value_from_index(h, i);
		it->lo = (int64_t)lowest_eq(h, v);
		it->hi = highest_eq(h, v);
		it->count = h->counts[i];
		return true;
	}
	return false;
}

int mrc_hist_summarize(const struct mrc_hist *h, const double *p, size_t n,
	struct mrc_hist_summary *out)
{
	if (n > MRC_HIST_SUMMARY_MAX_PCT)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!(p[i] >= 0 && p[i] <= 100))
			return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->count = h->total;
	out->out_of_range = h->rejected;
	out->min = mrc_hist_min(h);
	out->max = mrc_hist_max(h);
	out->mean = mrc_hist_mean(h);
	out->stddev = mrc_hist_stddev(h);
	out->exact = h->exact;
	out->n_pct = n;
	for (size_t i = 0; i < n; i++) {
		out->pct[i].p = p[i];
		out->pct[i].value = mrc_hist_value_at_percentile(h, p[i]);
	}
	return 0;
}

/*
 * One row of HdrHistogram's PercentileIterator walk: the percentile level reported and
 * the bucket reached. Levels advance in fixed ticks per "half distance to 100%":
 * ticks_per_half * 2^(floor(log2(100 / (100 - level))) + 1) ticks over 0..100.
 */
static double next_level(double level, int ticks_per_half)
{
	double halvings = floor(log(100.0 / (100.0 - level)) / log(2.0));
	int64_t ticks;

	if (!(halvings < 52))	/* level reached 100 by rounding: stay there */
		return 100.0;
	ticks = (int64_t)ticks_per_half * ((int64_t)1 << ((int64_t)halvings + 1));
	return level + 100.0 / (double)ticks;
}

/*
 * Formats @v >= 0 like Java's Formatter "%.{prec}f", which HdrHistogram's .hgrm uses: the
 * shortest decimal digits that read back as @v, rounded half up at @prec decimals (C's
 * printf rounds the exact binary value instead: 0.9997802734375 gives ...437, Java ...438).
 */
static const char *java_fixed(char *out, size_t cap, double v, int prec)
{
	char e[40], digits[24], fix[80];
	int nd = 0, exp, hi, n, o = 0, ri;

	if (!(v >= 0) || v > 1e30 || prec > 30) {
		snprintf(out, cap, "%.*f", prec, v);
		return out;
	}
	for (int p = 0; p < 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p, v);
		if (strtod(e, NULL) == v)
			break;
	}
	for (const char *c = e; *c && *c != 'e'; c++) {
		if (*c >= '0' && *c <= '9')
			digits[nd++] = (char)(*c - '0');
	}
	exp = atoi(strchr(e, 'e') + 1);	/* digits[i] weighs 10^(exp - i) */
	hi = exp > 0 ? exp : 0;
	n = hi + prec + 1;		/* weights 10^hi .. 10^-prec */
	for (int k = 0; k < n; k++) {
		int i = exp - (hi - k);

		fix[k] = (char)(i >= 0 && i < nd ? digits[i] : 0);
	}
	ri = exp + prec + 1;		/* first dropped digit, weight 10^-(prec + 1) */
	if (ri >= 0 && ri < nd && digits[ri] >= 5) {
		int k = n - 1;

		while (k >= 0 && fix[k] == 9)
			fix[k--] = 0;
		if (k >= 0) {
			fix[k]++;
		} else {
			memmove(fix + 1, fix, (size_t)n);
			fix[0] = 1;
			n++;
			hi++;
		}
	}
	for (int k = 0; k < n && o + 2 < (int)cap; k++) {
		if (k == hi + 1)
			out[o++] = '.';
		out[o++] = (char)('0' + fix[k]);
	}
	out[o] = '\0';
	return out;
}

int mrc_hist_write_hgrm(const struct mrc_hist *h, FILE *f, int ticks_per_half, double unit_ratio)
{
	int prec = h->sigfigs;
	char a[64], b[64], c[64];
	double level = 0;
	int64_t run = 0;
	int32_t i = 0;

	if (ticks_per_half < 1 || !(unit_ratio > 0))
		return -EINVAL;
	fprintf(f, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount",
		"1/(1-Percentile)");
	/*
	 * Walk the buckets; at a non-empty bucket emit one row for every level the running
	 * count has reached, then move on. After the last value, one final row at 100%.
	 */
	while (h->total > 0 && i <= h->max_index) {
		double reached;

		run += h->counts[i];
		if (h->counts[i] == 0) {
			i++;
			continue;
		}
		reached = 100.0 * (double)run / (double)h->total;
		while (reached >= level) {
			double v = (double)highest_eq(h, value_from_index(h, i)) / unit_ratio;

			fprintf(f, "%12s %14s %10lld %14s\n", java_fixed(a, sizeof(a), v, prec),
				java_fixed(b, sizeof(b), level / 100.0, 12), (long long)run,
				java_fixed(c, sizeof(c), 1.0 / (1.0 - level / 100.0), 2));
			level = next_level(level, ticks_per_half);
			if (run == h->total || level >= 100.0)
				break;
		}
		if (run == h->total) {
			double v = (double)highest_eq(h, value_from_index(h, i)) / unit_ratio;

			fprintf(f, "%12s %14s %10lld\n", java_fixed(a, sizeof(a), v, prec),
				java_fixed(b, sizeof(b), 1.0, 12), (long long)run);
			break;
		}
		i++;
	}
	fprintf(f, "#[Mean    = %12s, StdDeviation   = %12s]\n",
		java_fixed(a, sizeof(a), mrc_hist_bucket_mean(h) / unit_ratio, prec),
		java_fixed(b, sizeof(b), mrc_hist_bucket_stddev(h) / unit_ratio, prec));
	fprintf(f, "#[Max     = %12s, Total count    = %12lld]\n",
		java_fixed(a, sizeof(a), (double)mrc_hist_bucket_max(h) / unit_ratio, prec),
		(long long)h->total);
	fprintf(f, "#[Buckets = %12d, SubBuckets     = %12d]\n", h->bucket_count, h->sub_count);
	fprintf(f, "#[Exact: min = %.*f, max = %.*f, mean = %.*f, stddev = %.*f%s]\n", prec,
		(double)mrc_hist_min(h) / unit_ratio, prec, (double)mrc_hist_max(h) / unit_ratio,
		prec, mrc_hist_mean(h) / unit_ratio, prec, mrc_hist_stddev(h) / unit_ratio,
		h->exact ? "" : " (from buckets)");
	return ferror(f) ? -EIO : 0;
}

int mrc_hist_zigzag_put(uint8_t *buf, int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	int n = 0;

	while (n < HIST_MAX_WORD - 1) {
		if (z < 0x80) {
			buf[n++] = (uint8_t)z;
			return n;
		}
		buf[n++] = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	buf[n++] = (uint8_t)z;	/* 9th byte: the top 8 bits, no continuation flag */
	return n;
}

int mrc_hist_zigzag_get(const uint8_t *buf, size_t len, int64_t *v)
{
	uint64_t z = 0;
	int n = 0;

	for (;;) {
		if ((size_t)n >= len)
			return -EINVAL;
		if (n == HIST_MAX_WORD - 1) {
			z |= (uint64_t)buf[n++] << 56;
			break;
		}
		z |= (uint64_t)(buf[n] & 0x7f) << (7 * n);
		if (!(buf[n++] & 0x80))
			break;
	}
	*v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	return n;
}

/* Counts [0, limit) as varint tokens: runs of 2+ zeros become one negative run length. */
static size_t encode_counts(const int64_t *counts, int32_t limit, uint8_t *out)
{
	size_t n = 0;

	for (int32_t i = 0; i < limit;) {
		int64_t c = counts[i++], zeros = 0;

		if (c == 0) {
			zeros = 1;
			while (i < limit && counts[i] == 0) {
				zeros++;
				i++;
			}
		}
		n += (size_t)mrc_hist_zigzag_put(out + n, zeros > 1 ? -zeros : c);
	}
	return n;
}

int mrc_hist_encode(const struct mrc_hist *h, uint8_t **out, size_t *out_len)
{
	/* Like HdrHistogram, an empty histogram still encodes slot 0 (a single 0 count). */
	int32_t limit = h->max_index >= 0 ? h->max_index + 1 : 1;
	size_t raw_cap = HIST_V2_HEAD_BYTES + (size_t)limit * HIST_MAX_WORD, payload;
	uint8_t *raw = malloc(raw_cap), *z = NULL;
	uLongf zlen;
	uint64_t ratio_bits;
	double ratio = 1.0;
	int err = -ENOMEM;

	if (!raw)
		return -ENOMEM;
	payload = encode_counts(h->counts, limit, raw + HIST_V2_HEAD_BYTES);
	put_be32(raw, HIST_V2_COOKIE);
	put_be32(raw + 4, (uint32_t)payload);
	put_be32(raw + 8, 0);
	put_be32(raw + 12, (uint32_t)h->sigfigs);
	put_be64(raw + 16, (uint64_t)h->lowest);
	put_be64(raw + 24, (uint64_t)h->highest);
	memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
	put_be64(raw + 32, ratio_bits);
	zlen = compressBound(HIST_V2_HEAD_BYTES + payload);
	z = malloc(8 + zlen);
	if (!z)
		goto free_raw;
	if (compress2(z + 8, &zlen, raw, HIST_V2_HEAD_BYTES + payload, Z_DEFAULT_COMPRESSION) !=
	    Z_OK) {
		err = -EIO;
		free(z);
		goto free_raw;
	}
	put_be32(z, HIST_V2_COMPRESSED);
	put_be32(z + 4, (uint32_t)zlen);
	*out = z;
	*out_len = 8 + zlen;
	err = 0;
free_raw:
	free(raw);
	return err;
}

/* Inflates exactly @want more bytes into @dst; -EINVAL when the stream ends short. */
static int inflate_exact(z_stream *zs, uint8_t *dst, size_t want)
{
	int rc;

	zs->next_out = dst;
	zs->avail_out = (uInt)want;
	while (zs->avail_out > 0) {
		rc = inflate(zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK)
			return rc == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	return zs->avail_out ? -EINVAL : 0;
}

int mrc_hist_decode(const uint8_t *buf, size_t len, struct mrc_hist **out)
{
	uint8_t head[HIST_V2_HEAD_BYTES], *payload = NULL;
	struct mrc_hist *h = NULL;
	z_stream zs = { 0 };
	uint32_t zlen, plen;
	int64_t lowest, highest;
	int32_t idx = 0;
	size_t off = 0;
	int err;

	*out = NULL;
	if (len < 8 || get_be32(buf) != HIST_V2_COMPRESSED)
		return -EINVAL;
	zlen = get_be32(buf + 4);
	if (zlen > len - 8)
		return -EINVAL;
	if (inflateInit(&zs) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)(uintptr_t)(buf + 8);
	zs.avail_in = zlen;
	err = inflate_exact(&zs, head, sizeof(head));
	if (err)
		goto end_zs;
	err = -EINVAL;
	if (get_be32(head) != HIST_V2_COOKIE || get_be32(head + 8) != 0 ||
	    get_be32(head + 12) > 5)
		goto end_zs;
	plen = get_be32(head + 4);
	lowest = (int64_t)get_be64(head + 16);
	highest = (int64_t)get_be64(head + 24);
	err = mrc_hist_init(lowest, highest, (int)get_be32(head + 12), &h);
	if (err)
		goto end_zs;
	err = -E2BIG;
	if (plen > (uint64_t)h->counts_len * HIST_MAX_WORD)
		goto free_h;
	err = -ENOMEM;
	payload = malloc(plen ? plen : 1);
	if (!payload)
		goto free_h;
	err = inflate_exact(&zs, payload, plen);
	if (err)
		goto free_payload;
	err = -EINVAL;
	while (off < plen) {
		int64_t c;
		int n = mrc_hist_zigzag_get(payload + off, plen - off, &c);

		if (n < 0)
			goto free_payload;
		off += (size_t)n;
		if (c < 0) {
			if (c == INT64_MIN || -c > h->counts_len - idx)
				goto free_payload;
			idx += (int32_t)-c;
			continue;
		}
		if (idx >= h->counts_len)
			goto free_payload;
		if (c > 0) {
			if (c > INT64_MAX - h->total)
				goto free_payload;
			h->counts[idx] = c;
			h->total += c;
			h->max_index = idx;
		}
		idx++;
	}
	stats_from_buckets(h);
	*out = h;
	h = NULL;
	err = 0;
free_payload:
	free(payload);
free_h:
	mrc_hist_free(h);
end_zs:
	inflateEnd(&zs);
	return err;
}

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int mrc_hist_encode_base64(const struct mrc_hist *h, char **out)
{
	uint8_t *bin;
	size_t n, o = 0;
	char *s;
	int err = mrc_hist_encode(h, &bin, &n);

	if (err)
		return err;
	s = malloc((n + 2) / 3 * 4 + 1);
	if (!s) {
		free(bin);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)bin[i] << 16;

		if (i + 1 < n)
			w |= (uint32_t)bin[i + 1] << 8;
		if (i + 2 < n)
			w |= bin[i + 2];
		s[o++] = b64_alphabet[w >> 18 & 63];
		s[o++] = b64_alphabet[w >> 12 & 63];
		s[o++] = i + 1 < n ? b64_alphabet[w >> 6 & 63] : '=';
		s[o++] = i + 2 < n ? b64_alphabet[w & 63] : '=';
	}
	s[o] = '\0';
	free(bin);
	*out = s;
	return 0;
}

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int)(p - b64_alphabet) : -1;
}

int mrc_hist_decode_base64(const char *s, size_t len, struct mrc_hist **out)
{
	uint8_t *bin;
	size_t n = 0;
	int err;

	*out = NULL;
	if (len == 0 || len % 4)
		return -EINVAL;
	bin = malloc(len / 4 * 3);
	if (!bin)
		return -ENOMEM;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;
		uint32_t w = 0;

		for (int k = 0; k < 4; k++) {
			/* '=' only as the last one or two characters of the text */
			bool last = i + 4 == len;

			if (s[i + k] == '=' && last && k >= 2 && (k == 3 || s[i + 3] == '=')) {
				v[k] = 0;
				pad++;
				continue;
			}
			v[k] = b64_value(s[i + k]);
			if (v[k] < 0 || pad) {
				free(bin);
				return -EINVAL;
			}
		}
		w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 |
		    (uint32_t)v[3];
		bin[n++] = (uint8_t)(w >> 16);
		if (pad < 2)
			bin[n++] = (uint8_t)(w >> 8);
		if (pad < 1)
			bin[n++] = (uint8_t)w;
	}
	err = mrc_hist_decode(bin, n, out);
	free(bin);
	return err;
}

int mrc_hist_hlog_head(FILE *f, double start_time_s, double base_time_s)
{
	time_t t = (time_t)start_time_s;
	char date[64] = "";
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
	fprintf(f, "#[Histogram log format version 1.3]\n");
	fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_time_s, date);
	fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", base_time_s);
	fprintf(f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		   "\"Interval_Compressed_Histogram\"\n");
	return ferror(f) ? -EIO : 0;
}

int mrc_hist_hlog_interval(FILE *f, const char *tag, double start_s, double length_s,
	const struct mrc_hist *h, double max_ratio)
{
	char *b64;
	int err;

	if (!(max_ratio > 0) || (tag && strpbrk(tag, ", \t\r\n")))
		return -EINVAL;
	err = mrc_hist_encode_base64(h, &b64);
	if (err)
		return err;
	if (tag && *tag)
		fprintf(f, "Tag=%s,", tag);
	fprintf(f, "%.3f,%.3f,%.3f,%s\n", start_s, length_s,
		(double)mrc_hist_bucket_max(h) / max_ratio, b64);
	free(b64);
	return ferror(f) ? -EIO : 0;
}

/* Parses a "%f," field at *p; advances past the comma. */
static int parse_field(const char **p, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(*p, &end);
	if (end == *p || errno || *end != ',')
		return -EINVAL;
	*p = end + 1;
	return 0;
}

int mrc_hist_hlog_parse_line(const char *line, char *tag, size_t tag_cap, double *start_s,
	double *length_s, struct mrc_hist **out)
{
	const char *p = line;
	double max_v;
	size_t n;

	*out = NULL;
	if (tag_cap == 0)
		return -EINVAL;
	tag[0] = '\0';
	if (*p == '\0' || *p == '\n' || *p == '\r' || *p == '#' || *p == '"')
		return -ENOENT;
	if (strncmp(p, "Tag=", 4) == 0) {
		const char *comma = strchr(p + 4, ',');

		if (!comma || (size_t)(comma - (p + 4)) >= tag_cap)
			return -EINVAL;
		memcpy(tag, p + 4, (size_t)(comma - (p + 4)));
		tag[comma - (p + 4)] = '\0';
		p = comma + 1;
	}
	if (parse_field(&p, start_s) || parse_field(&p, length_s) || parse_field(&p, &max_v))
		return -EINVAL;
	n = strcspn(p, "\r\n \t");
	if (p[n] != '\0' && p[n + strspn(p + n, "\r\n \t")] != '\0')
		return -EINVAL;
	return mrc_hist_decode_base64(p, n, out);
}
