/* SPDX-License-Identifier: BSD-2-Clause */
/* rd.h: reading a fuzz input's fields, big endian; bytes past its end read as 0. */
#ifndef HARNESS_FUZZ_RD_H
#define HARNESS_FUZZ_RD_H

#include <stddef.h>
#include <stdint.h>

struct fz_rd {
	const uint8_t *d;
	size_t n; /* bytes left */
};

static inline uint8_t fz_rd8(struct fz_rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->d++;
}

static inline uint16_t fz_rd16(struct fz_rd *r)
{
	uint16_t v = fz_rd8(r);

	return (uint16_t)(v << 8 | fz_rd8(r));
}

static inline uint32_t fz_rd32(struct fz_rd *r)
{
	uint32_t v = fz_rd16(r);

	return v << 16 | fz_rd16(r);
}

static inline uint64_t fz_rd64(struct fz_rd *r)
{
	uint64_t v = fz_rd32(r);

	return v << 32 | fz_rd32(r);
}

/* The next @want bytes (fewer at the input's end): *@len their count; skips them. */
static inline const uint8_t *fz_rd_bytes(struct fz_rd *r, size_t want, size_t *len)
{
	const uint8_t *b = r->d;

	*len = want < r->n ? want : r->n;
	r->d += *len;
	r->n -= *len;
	return b;
}

#endif
