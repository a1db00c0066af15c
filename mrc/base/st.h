/* SPDX-License-Identifier: BSD-2-Clause */
/* st: the table-driven unit-test framework behind `mrcgen-test [module]`. */
#ifndef MRC_ST_H
#define MRC_ST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A module registers one suite with MRC_SELFTEST(name) { ... }. Inside it, each
 * numbered case starts with mrc_st_case(st, "C01 udp checksum under SRH") and makes
 * checks with the ST_* macros; a case passes when none of its checks failed.
 * Expected values in a test come from hand arithmetic, a reference tool or a closed
 * formula, never from the code under test.
 */
struct mrc_st;

typedef void (*mrc_st_fn)(struct mrc_st *st);

/* Registers a suite (called from constructors made by MRC_SELFTEST). */
void mrc_st_register(const char *module, mrc_st_fn fn);

/* Starts the next numbered case of the running suite; printf-style name. */
void mrc_st_case(struct mrc_st *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records one check; prints file:line and the message when !ok. Returns ok. */
bool mrc_st_check(struct mrc_st *st, bool ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * Runs every suite whose module name equals @only (all when NULL), printing one line per
 * case and a closing "N passed, N failed". Returns the number of failed cases, or
 * -ENOENT when @only names no suite.
 */
int mrc_st_run(const char *only);

/* Lists the registered module names, one per line, to stdout. */
void mrc_st_list(void);

#define MRC_SELFTEST(name)                                                                         \
	static void mrc_st_suite_##name(struct mrc_st *st);                                        \
	__attribute__((constructor)) static void mrc_st_reg_##name(void)                           \
	{                                                                                          \
		mrc_st_register(#name, mrc_st_suite_##name);                                       \
	}                                                                                          \
	static void mrc_st_suite_##name(struct mrc_st *st)

#define ST_TRUE(st, cond) mrc_st_check((st), (cond), __FILE__, __LINE__, "%s", #cond)
#define ST_EQ(st, got, want)                                                                       \
	do {                                                                                       \
		unsigned long long g_ = (unsigned long long)(got);                                 \
		unsigned long long w_ = (unsigned long long)(want);                                \
		mrc_st_check((st), g_ == w_, __FILE__, __LINE__,                                   \
			"%s = %llu (0x%llx), want %llu (0x%llx)", #got, g_, g_, w_, w_);           \
	} while (0)
#define ST_EQ_I(st, got, want)                                                                     \
	do {                                                                                       \
		long long g_ = (long long)(got), w_ = (long long)(want);                           \
		mrc_st_check((st), g_ == w_, __FILE__, __LINE__, "%s = %lld, want %lld", #got, g_, \
			w_);                                                                       \
	} while (0)
#define ST_EQ_D(st, got, want, tol)                                                                \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		mrc_st_check((st), g_ - w_ <= (tol) && w_ - g_ <= (tol), __FILE__, __LINE__,       \
			"%s = %.9g, want %.9g", #got, g_, w_);                                     \
	} while (0)
#define ST_EQ_STR(st, got, want)                                                                   \
	do {                                                                                       \
		const char *g_ = (got), *w_ = (want);                                              \
		mrc_st_check((st), g_ && w_ && strcmp(g_, w_) == 0, __FILE__, __LINE__,            \
			"%s = \"%s\", want \"%s\"", #got, g_ ? g_ : "(null)", w_);                 \
	} while (0)
/* Compares @n bytes; on mismatch prints the first differing offset and both bytes. */
#define ST_EQ_MEM(st, got, want, n) mrc_st_mem((st), (got), (want), (n), __FILE__, __LINE__, #got)

bool mrc_st_mem(struct mrc_st *st, const void *got, const void *want, size_t n, const char *file,
	int line, const char *what);

/*
 * Parses a hex string ("60 00 0a", spaces and newlines ignored) into @out (cap bytes).
 * Returns the byte count, or -EINVAL on a bad digit or overflow. For test vectors.
 */
int mrc_st_hex(const char *hex, uint8_t *out, size_t cap);

/*
 * RFC 1071's reference sum written out plainly (byte pairs into 32 bits), apart from the
 * code under test, for checking ICMPv6 checksums (RFC 4443 §2.3): the folded sum over the
 * RFC 8200 §8.1 pseudo-header (source, destination, 32-bit payload length, next header
 * 58) and the message of the ICMPv6 packet at @ip6 (its 40-byte IPv6 header first, then
 * payload-length bytes), its checksum field included. 0xffff when the checksum is right.
 */
uint16_t mrc_st_icmp6_sum(const uint8_t *ip6);

#endif
