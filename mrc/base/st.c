/* SPDX-License-Identifier: BSD-2-Clause */
/* st: registry and runner of the unit-test suites linked into mrcgen-test. */
#include "mrc/base/st.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define ST_MAX_SUITES 64

struct mrc_st {
	const char *module;
	int case_no;		/* number of the current case, 0 before the first */
	char case_name[160];
	bool case_failed;
	unsigned passed, failed;
};

static struct {
	const char *module;
	mrc_st_fn fn;
} suites[ST_MAX_SUITES];
static int n_suites;

void mrc_st_register(const char *module, mrc_st_fn fn)
{
	if (n_suites == ST_MAX_SUITES) {
		fprintf(stderr, "selftest: register: %s: too many suites (max %d)\n", module,
			ST_MAX_SUITES);
		return;
	}
	/* Keep the table sorted by name so the run order never depends on link order. */
	int i = n_suites++;
	while (i > 0 && strcmp(suites[i - 1].module, module) > 0) {
		suites[i] = suites[i - 1];
		i--;
	}
	suites[i].module = module;
	suites[i].fn = fn;
}

static void st_end_case(struct mrc_st *st)
{
	if (st->case_no == 0)
		return;
	if (st->case_failed)
		st->failed++;
	else
		st->passed++;
	printf("%s %s.%d %s\n", st->case_failed ? "FAIL" : "ok  ", st->module, st->case_no,
		st->case_name);
	fflush(stdout);
}

void mrc_st_case(struct mrc_st *st, const char *fmt, ...)
{
	va_list ap;

	st_end_case(st);
	st->case_no++;
	st->case_failed = false;
	va_start(ap, fmt);
	vsnprintf(st->case_name, sizeof(st->case_name), fmt, ap);
	va_end(ap);
}

bool mrc_st_check(struct mrc_st *st, bool ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return true;
	if (st->case_no == 0)
		mrc_st_case(st, "(checks before the first case)");
	st->case_failed = true;
	fprintf(stdout, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	return false;
}

bool mrc_st_mem(struct mrc_st *st, const void *got, const void *want, size_t n, const char *file,
	int line, const char *what)
{
	const uint8_t *g = got, *w = want;

	for (size_t i = 0; i < n; i++) {
		if (g[i] != w[i])
			return mrc_st_check(st, false, file, line,
				"%s: byte %zu is 0x%02x, want 0x%02x (of %zu)", what, i, g[i], w[i],
				n);
	}
	return true;
}

int mrc_st_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (const char *p = hex; *p; p++) {
		int v;

		if (isspace((unsigned char)*p))
			continue;
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
		v = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n == cap)
			return -EINVAL;
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return hi < 0 ? (int)n : -EINVAL;
}

uint16_t mrc_st_icmp6_sum(const uint8_t *ip6)
{
	uint32_t n = (uint32_t)ip6[4] << 8 | ip6[5], s = 0;

	for (int i = 8; i < 40; i += 2) /* source and destination */
		s += (uint32_t)ip6[i] << 8 | ip6[i + 1];
	s += n >> 16;
	s += n & 0xffff;
	s += 58;
	for (uint32_t i = 0; i < n; i += 2)
		s += (uint32_t)ip6[40 + i] << 8 | (i + 1 < n ? ip6[40 + i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

int mrc_st_run(const char *only)
{
	unsigned passed = 0, failed = 0;
	int ran = 0;

	for (int i = 0; i < n_suites; i++) {
		struct mrc_st st = { .module = suites[i].module };

		if (only && strcmp(only, suites[i].module) != 0)
			continue;
		ran++;
		suites[i].fn(&st);
		st_end_case(&st);
		passed += st.passed;
		failed += st.failed;
	}
	if (!ran)
		return -ENOENT;
	printf("%u passed, %u failed\n", passed, failed);
	return (int)failed;
}

void mrc_st_list(void)
{
	for (int i = 0; i < n_suites; i++)
		printf("%s\n", suites[i].module);
}
