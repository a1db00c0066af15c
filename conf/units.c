/* SPDX-License-Identifier: BSD-2-Clause */
/* units: exact parsers and printers for YAML 1.2 core integers, sizes, rates and times. */
#include "conf/units.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct unit {
	const char *suffix;
	uint64_t mult;
};

#define K1 1000ull
#define KI 1024ull

static const struct unit size_units[] = {
	{ "B", 1 },
	{ "KB", K1 }, { "kB", K1 }, { "MB", K1 * K1 }, { "GB", K1 * K1 * K1 },
	{ "TB", K1 * K1 * K1 * K1 }, { "PB", K1 * K1 * K1 * K1 * K1 },
	{ "KiB", KI }, { "MiB", KI * KI }, { "GiB", KI * KI * KI },
	{ "TiB", KI * KI * KI * KI }, { "PiB", KI * KI * KI * KI * KI },
	{ NULL, 0 }
};

static const struct unit rate_units[] = {
	{ "bps", 1 },
	{ "Kbps", K1 }, { "kbps", K1 }, { "Mbps", K1 * K1 }, { "Gbps", K1 * K1 * K1 },
	{ "Tbps", K1 * K1 * K1 * K1 },
	{ "K", K1 }, { "k", K1 }, { "M", K1 * K1 }, { "G", K1 * K1 * K1 },
	{ "T", K1 * K1 * K1 * K1 },
	{ NULL, 0 }
};

static const struct unit time_units[] = {
	{ "ps", 1 }, { "ns", K1 }, { "us", K1 * K1 }, { "\xc2\xb5s", K1 * K1 },
	{ "ms", K1 * K1 * K1 }, { "s", K1 * K1 * K1 * K1 },
	{ NULL, 0 }
};

static int digit_val(char c, unsigned base)
{
	unsigned v;

	if (c >= '0' && c <= '9')
		v = (unsigned)(c - '0');
	else if (c >= 'a' && c <= 'f')
		v = (unsigned)(c - 'a' + 10);
	else if (c >= 'A' && c <= 'F')
		v = (unsigned)(c - 'A' + 10);
	else
		return -1;
	return v < base ? (int)v : -1;
}

/* Accumulates digits of @base from @s; 0, -EINVAL (no digit or a stray char), -ERANGE. */
static int parse_digits(const char *s, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	int d;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		d = digit_val(*s, base);
		if (d < 0)
			return -EINVAL;
		if (__builtin_mul_overflow(v, base, &v) ||
			__builtin_add_overflow(v, (unsigned)d, &v))
			return -ERANGE;
	}
	*out = v;
	return 0;
}

int conf_parse_uint(const char *s, uint64_t *out)
{
	bool neg = false;
	uint64_t v;
	int err;

	if (s[0] == '0' && s[1] == 'x')
		return parse_digits(s + 2, 16, out);
	if (s[0] == '0' && s[1] == 'o')
		return parse_digits(s + 2, 8, out);
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	err = parse_digits(s, 10, &v);
	if (err)
		return err;
	if (neg && v)
		return -EDOM;
	*out = v;
	return 0;
}

/*
 * Parses "<digits>[.<digits>]<unit>" exactly: value = mantissa * mult / 10^frac_digits.
 * A bare YAML integer (no unit) is accepted when @bare_ok, with multiplier 1.
 */
static int parse_with_unit(const char *s, const struct unit *units, bool bare_ok, uint64_t *out)
{
	uint64_t mant = 0, mult = 0, den = 1;
	unsigned frac = 0, ndig = 0;
	bool neg = false, dot = false;
	unsigned __int128 prod;
	const char *p = s;

	if (bare_ok && conf_parse_uint(s, out) == 0)
		return 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
		if (*p == '.') {
			dot = true;
			continue;
		}
		if (__builtin_mul_overflow(mant, 10, &mant) ||
		    __builtin_add_overflow(mant, (unsigned)(*p - '0'), &mant))
			return -ERANGE;
		ndig++;
		if (dot)
			frac++;
	}
	if (ndig == 0)
		return -EINVAL;
	for (const struct unit *u = units; u->suffix; u++) {
		if (strcmp(p, u->suffix) == 0) {
			mult = u->mult;
			break;
		}
	}
	if (mult == 0) {
		/* Only an unsigned integer zero may go without a unit. */
		if (*p || !(bare_ok || (mant == 0 && !dot)))
			return -EINVAL;
		mult = 1;
	}
	if (neg && mant)
		return -EDOM;
	if (frac > 19)
		return -ERANGE;
	for (unsigned i = 0; i < frac; i++)
		den *= 10;
	prod = (unsigned __int128)mant * mult;
	if (prod % den)
		return -EDOM;
	prod /= den;
	if (prod > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)prod;
	return 0;
}

int conf_parse_size(const char *s, uint64_t *bytes)
{
	return parse_with_unit(s, size_units, true, bytes);
}

int conf_parse_rate(const char *s, uint64_t *bps)
{
	return parse_with_unit(s, rate_units, true, bps);
}

int conf_parse_time(const char *s, uint64_t *ps)
{
	return parse_with_unit(s, time_units, false, ps);
}

/* Prints @v in the first unit of @order (largest first) that divides it exactly. */
static char *fmt_units(uint64_t v, const char *const *order, const uint64_t *mults, size_t n,
	char *buf, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		if (v != 0 && v % mults[i] == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", v / mults[i], order[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64 "%s", v, order[n]);
	return buf;
}

char *conf_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const o[] = { "PiB", "TiB", "GiB", "MiB", "KiB",
					 "PB", "TB", "GB", "MB", "KB", "" };
	static const uint64_t m[] = { KI * KI * KI * KI * KI, KI * KI * KI * KI, KI * KI * KI,
				      KI * KI, KI, K1 * K1 * K1 * K1 * K1, K1 * K1 * K1 * K1,
				      K1 * K1 * K1, K1 * K1, K1 };

	return fmt_units(bytes, o, m, sizeof(m) / sizeof(m[0]), buf, len);
}

char *conf_fmt_rate(uint64_t bps, char *buf, size_t len)
{
	static const char *const o[] = { "Tbps", "Gbps", "Mbps", "Kbps", "bps" };
	static const uint64_t m[] = { K1 * K1 * K1 * K1, K1 * K1 * K1, K1 * K1, K1 };

	return fmt_units(bps, o, m, sizeof(m) / sizeof(m[0]), buf, len);
}

char *conf_fmt_time(uint64_t ps, char *buf, size_t len)
{
	static const char *const o[] = { "s", "ms", "us", "ns", "ps" };
	static const uint64_t m[] = { K1 * K1 * K1 * K1, K1 * K1 * K1, K1 * K1, K1 };

	return fmt_units(ps, o, m, sizeof(m) / sizeof(m[0]), buf, len);
}
