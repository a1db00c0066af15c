/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hist: HdrHistogram-compatible histograms — recording, percentiles (C06, C07), the .hgrm
 * percentile-distribution text and the .hlog interval log with the compressed V2 encoding (C08).
 */
#ifndef MRC_HIST_H
#define MRC_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A histogram of non-negative integer values (the caller picks the unit: ns, ps, bytes).
 * The bucket layout is HdrHistogram's: values below 2 * 10^sigfigs * 2^floor(log2(lowest))
 * are kept at a resolution of 2^floor(log2(lowest)); above that, each power-of-two range
 * keeps 10^sigfigs-ish sub-buckets, so the relative error stays below 10^-sigfigs.
 * Beside the buckets it keeps exact running statistics of the accepted values (count,
 * min, max, sum, and Welford's mean/M2 for the standard deviation). Opaque.
 */
struct mrc_hist;

/*
 * Creates an empty histogram tracking values in [0, highest] (HdrHistogram's
 * lowestDiscernibleValue / highestTrackableValue / numberOfSignificantValueDigits).
 * Values a little above @highest are still accepted when they fall in the last bucket,
 * as HdrHistogram does. Returns 0, -EINVAL when lowest < 1, sigfigs is not 1..5,
 * highest < 2 * lowest, or lowest is too large for sigfigs; -ENOMEM.
 */
int mrc_hist_init(int64_t lowest, int64_t highest, int sigfigs, struct mrc_hist **out);

/* Frees @h; NULL is a no-op. */
void mrc_hist_free(struct mrc_hist *h);

/* Empties @h (counts and exact statistics), keeping its range and precision. */
void mrc_hist_reset(struct mrc_hist *h);

/*
 * Records @v once. Returns false when @v is negative or above the trackable range; such
 * values are not recorded but counted (mrc_hist_out_of_range).
 */
bool mrc_hist_record(struct mrc_hist *h, int64_t v);

/* Records @v @n times (n >= 1); false as for mrc_hist_record, or when n < 1. */
bool mrc_hist_record_n(struct mrc_hist *h, int64_t v, int64_t n);

/*
 * Records @v and, when @expected_interval > 0 and v > expected_interval, the samples a
 * stalled closed-loop measurement missed: v - k * expected_interval for k = 1, 2, ...
 * while >= expected_interval (HdrHistogram's recordValueWithExpectedInterval, correcting
 * coordinated omission). False when @v is out of range.
 */
bool mrc_hist_record_corrected(struct mrc_hist *h, int64_t v, int64_t expected_interval);

/*
 * The value at percentile @p on the 0..100 scale (C06): count_at = max(1,
 * floor(p / 100 * N + 0.5)), walk the buckets until the running count reaches count_at,
 * return the highest value equivalent to that bucket (the lowest one for p = 0). p is
 * clamped to [0, 100]. An empty histogram returns 0 (C07).
 */
int64_t mrc_hist_value_at_percentile(const struct mrc_hist *h, double p);

/*
 * Adds (merges) every count of @src into @dst, and merges the exact statistics; the
 * histograms may differ in range and precision (counts then move value by value, at
 * each source bucket's lowest value, as HdrHistogram's add does). An empty @src leaves
 * @dst unchanged (C07). Returns 0, or -ERANGE (with @dst unchanged) when a recorded
 * value of @src is beyond @dst's range.
 */
int mrc_hist_add(struct mrc_hist *dst, const struct mrc_hist *src);

/* Whether mrc_hist_add(@dst, @src) would succeed (not -ERANGE), @dst untouched: lets a
 * merge of several histograms check them all before it adds any. */
bool mrc_hist_add_fits(const struct mrc_hist *dst, const struct mrc_hist *src);

/* Number of values recorded (in range). */
int64_t mrc_hist_count(const struct mrc_hist *h);

/* Number of values rejected as out of range since init or reset. */
int64_t mrc_hist_out_of_range(const struct mrc_hist *h);

/*
 * Exact statistics of the recorded values, from running values, not buckets (C06):
 * smallest, largest, arithmetic mean and population standard deviation. All 0 when the
 * histogram is empty (C07). After mrc_hist_decode (the log carries only buckets) they
 * are computed from bucket values and mrc_hist_is_exact says false.
 */
int64_t mrc_hist_min(const struct mrc_hist *h);
int64_t mrc_hist_max(const struct mrc_hist *h);
double mrc_hist_mean(const struct mrc_hist *h);
double mrc_hist_stddev(const struct mrc_hist *h);
bool mrc_hist_is_exact(const struct mrc_hist *h);

/*
 * The exact running statistics of @h, which its counts (mrc_hist_encode) do not carry:
 * whether they are exact, min and max, the sum of the values (as two 64-bit halves), the
 * Welford mean and sum of squared deviations. mrc_hist_exact_set puts them back into a
 * histogram decoded from @h's counts (with the same total), so that mrc_hist_add merges it
 * as it would merge @h itself: -EINVAL when they cannot be that histogram's (a minimum
 * above the maximum, either outside the counts' lowest and highest equivalent values).
 */
struct mrc_hist_exact {
	bool exact;
	int64_t min, max;
	int64_t sum_hi;
	uint64_t sum_lo;
	double w_mean, w_m2;
};

void mrc_hist_exact_get(const struct mrc_hist *h, struct mrc_hist_exact *x);
int mrc_hist_exact_set(struct mrc_hist *h, const struct mrc_hist_exact *x);

/*
 * Bucket-based statistics as HdrHistogram computes them (what its .hgrm footer shows):
 * mean and population standard deviation over each bucket's median equivalent value,
 * and the highest value equivalent to the largest recorded one. 0 when empty.
 */
double mrc_hist_bucket_mean(const struct mrc_hist *h);
double mrc_hist_bucket_stddev(const struct mrc_hist *h);
int64_t mrc_hist_bucket_max(const struct mrc_hist *h);

/* The range a value falls into: lowest and highest equivalent values (HdrHistogram). */
int64_t mrc_hist_lowest_equivalent(const struct mrc_hist *h, int64_t v);
int64_t mrc_hist_highest_equivalent(const struct mrc_hist *h, int64_t v);

/* Construction parameters and layout (the .hgrm footer's Buckets and SubBuckets). */
int64_t mrc_hist_lowest(const struct mrc_hist *h);
int64_t mrc_hist_highest(const struct mrc_hist *h);
int mrc_hist_sigfigs(const struct mrc_hist *h);
int mrc_hist_bucket_count(const struct mrc_hist *h);
int mrc_hist_sub_bucket_count(const struct mrc_hist *h);

/*
 * Iterates the non-empty buckets in increasing value order. Start with a zeroed iterator;
 * each true return fills lo/hi (the bucket's lowest and highest equivalent values) and
 * count.
 */
struct mrc_hist_iter {
	int32_t next_index;	/* private: where the walk resumes */
	int64_t lo, hi, count;
};
bool mrc_hist_next(const struct mrc_hist *h, struct mrc_hist_iter *it);

/*
 * A summary for reports (JSON, terminal). Convention for an empty histogram (C07): count
 * 0 and every value field 0 — never a sentinel like INT64_MAX, never NaN; readers tell
 * "no data" by count == 0.
 */
#define MRC_HIST_SUMMARY_MAX_PCT 16
struct mrc_hist_summary {
	int64_t count;
	int64_t out_of_range;
	int64_t min, max;	/* exact */
	double mean, stddev;	/* exact, population */
	bool exact;		/* false after decoding a log: stats come from buckets */
	size_t n_pct;
	struct {
		double p;	/* 0..100 */
		int64_t value;	/* mrc_hist_value_at_percentile */
	} pct[MRC_HIST_SUMMARY_MAX_PCT];
};

/*
 * Fills @out for the @n percentiles @p (0..100 scale, e.g. 50, 99, 99.9). Returns 0, or
 * -EINVAL when n > MRC_HIST_SUMMARY_MAX_PCT or a percentile is outside [0, 100] or NaN.
 */
int mrc_hist_summarize(const struct mrc_hist *h, const double *p, size_t n,
	struct mrc_hist_summary *out);

/*
 * Writes HdrHistogram's percentile distribution (.hgrm, outputPercentileDistribution):
 * the "Value Percentile TotalCount 1/(1-Percentile)" table, with @ticks_per_half rows per
 * half distance to 100% (HdrHistogram uses 5), values divided by @unit_ratio
 * (outputValueUnitScalingRatio: 1 keeps the recorded unit, 1000 turns ns into us), then
 * the #[Mean ...] #[Max ...] #[Buckets ...] footer (bucket-based, as HdrHistogram prints
 * it) and one extra #[Exact ...] line with the exact min, max, mean and stddev.
 * Returns 0, -EINVAL for ticks_per_half < 1 or unit_ratio <= 0, -EIO on a write error.
 */
int mrc_hist_write_hgrm(const struct mrc_hist *h, FILE *f, int ticks_per_half, double unit_ratio);

/*
 * ZigZag LEB128-64b9B varints (HdrHistogram's ZigZagEncoding, C08): zigzag
 * (v << 1) ^ (v >> 63), then 7 bits per byte, low first, high bit = more follows; the
 * 9th byte carries the last 8 bits whole, so any int64 fits in at most 9 bytes.
 * put writes into @buf (>= 9 bytes) and returns the byte count 1..9. get reads from
 * @buf of @len bytes and returns the bytes consumed, or -EINVAL when truncated.
 */
int mrc_hist_zigzag_put(uint8_t *buf, int64_t v);
int mrc_hist_zigzag_get(const uint8_t *buf, size_t len, int64_t *v);

/*
 * Encodes @h in HdrHistogram's compressed V2 form (encodeIntoCompressedByteBuffer):
 * be32 cookie 0x1c849314, be32 deflated length, then zlib deflate of: be32 cookie
 * 0x1c849313, be32 payload length, be32 normalizing index offset (0), be32 sigfigs,
 * be64 lowest, be64 highest, be64 IEEE-754 integer-to-double ratio (1.0), payload: counts
 * up to the largest recorded value as ZigZag varints, runs of 2+ zero counts as one
 * negative run length. *out is malloc'ed (caller frees). Returns 0, -ENOMEM, -EIO (zlib).
 */
int mrc_hist_encode(const struct mrc_hist *h, uint8_t **out, size_t *out_len);

/*
 * Decodes a compressed V2 histogram (as written by mrc_hist_encode or HdrHistogram) into
 * a new histogram with that range and precision. Every field is length-checked. Returns
 * 0, -EINVAL (bad cookie, lengths, parameters or payload), -E2BIG (inflates beyond the
 * size its parameters allow), -ENOMEM.
 */
int mrc_hist_decode(const uint8_t *buf, size_t len, struct mrc_hist **out);

/* Same as encode/decode, wrapped in standard base64 with padding (RFC 4648 section 4). */
int mrc_hist_encode_base64(const struct mrc_hist *h, char **out);
int mrc_hist_decode_base64(const char *s, size_t len, struct mrc_hist **out);

/*
 * Writes the head of an interval log, format version 1.3 (HdrHistogram's
 * HistogramLogWriter): the version line, "#[StartTime: S (seconds since epoch), DATE]",
 * "#[BaseTime: B (seconds since epoch)]" and the CSV legend. Interval start times are
 * then relative to @base_time_s. Returns 0 or -EIO.
 */
int mrc_hist_hlog_head(FILE *f, double start_time_s, double base_time_s);

/*
 * Writes one interval line "Tag=TAG,start,length,max,BASE64" (no "Tag=" when @tag is
 * NULL or empty): start and length in seconds, max = mrc_hist_bucket_max / @max_ratio
 * (HdrHistogram writes ns as ms: 1e6), all "%.3f". Tags may not contain ',', ' ' or
 * newlines. Returns 0, -EINVAL (tag, ratio), -ENOMEM, -EIO.
 */
int mrc_hist_hlog_interval(FILE *f, const char *tag, double start_s, double length_s,
	const struct mrc_hist *h, double max_ratio);

/*
 * Parses one interval line of an .hlog (as written above, or by HdrHistogram). Comment,
 * legend and empty lines return -ENOENT. On success fills @tag (tag_cap bytes; empty
 * when untagged), start and length in seconds, and a new decoded histogram in *out.
 * Returns 0, -ENOENT, -EINVAL (malformed, or the tag does not fit), -ENOMEM, -E2BIG.
 */
int mrc_hist_hlog_parse_line(const char *line, char *tag, size_t tag_cap, double *start_s,
	double *length_s, struct mrc_hist **out);

#endif
