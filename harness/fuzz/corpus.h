/* SPDX-License-Identifier: BSD-2-Clause */
/* corpus.h: writing one seed file, shared by the fuzz targets' corpus generators. */
#ifndef HARNESS_FUZZ_CORPUS_H
#define HARNESS_FUZZ_CORPUS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Writes @n bytes of @b to @dir/@name. Returns 0, or -1 after saying why on stderr. */
static inline int corpus_put(const char *dir, const char *name, const void *b, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n) {
		fprintf(stderr, "gen_corpus: write: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* A seed built field by field, big endian (the fuzz targets' record formats). */
struct corpus_buf {
	uint8_t b[8192];
	size_t n; /* bytes written; those past b[] are dropped */
};

static inline void corpus_put8(struct corpus_buf *g, uint8_t v)
{
	if (g->n < sizeof(g->b))
		g->b[g->n++] = v;
}

static inline void corpus_put16(struct corpus_buf *g, uint16_t v)
{
	corpus_put8(g, (uint8_t)(v >> 8));
	corpus_put8(g, (uint8_t)v);
}

static inline void corpus_put32(struct corpus_buf *g, uint32_t v)
{
	corpus_put16(g, (uint16_t)(v >> 16));
	corpus_put16(g, (uint16_t)v);
}

#endif
