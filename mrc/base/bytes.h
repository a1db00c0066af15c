/* SPDX-License-Identifier: BSD-2-Clause */
/* bytes: big-endian field access and serial-number arithmetic (RFC 1982) for codecs. */
#ifndef MRC_BYTES_H
#define MRC_BYTES_H

#include <stdbool.h>
#include <stdint.h>

static inline void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

static inline uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/*
 * Serial-number arithmetic at width @w bits (1..63), RFC 1982 / C10: a < b when the
 * difference (a - b) mod 2^w, read in the half space, is negative. MRC PSNs use w = 24.
 * Callers keep the in-flight span below 2^(w-1), where the order is defined.
 */
static inline int64_t serial_diff(uint64_t a, uint64_t b, unsigned w)
{
	uint64_t mask = (1ull << w) - 1, d = (a - b) & mask;

	return d & (1ull << (w - 1)) ? (int64_t)d - (int64_t)(1ull << w) : (int64_t)d;
}

static inline bool serial_lt(uint64_t a, uint64_t b, unsigned w)
{
	return serial_diff(a, b, w) < 0;
}

#define MRC_PSN_BITS 24
#define MRC_PSN_MASK 0xFFFFFFu

/* PSN helpers: 24-bit serial arithmetic (docs/wire-format.md "PSNs are 24-bit and wrap"). */
static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)serial_diff(a, b, MRC_PSN_BITS);
}

static inline bool psn_lt(uint32_t a, uint32_t b)
{
	return psn_diff(a, b) < 0;
}

static inline uint32_t psn_add(uint32_t a, int32_t n)
{
	return (uint32_t)(a + (uint32_t)n) & MRC_PSN_MASK;
}

#endif
