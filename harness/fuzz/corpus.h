/* SPDX-License-Identifier: BSD-2-Clause */
/* corpus.h: writing one seed file, shared by the fuzz targets' corpus generators. */
#ifndef HARNESS_FUZZ_CORPUS_H
#define HARNESS_FUZZ_CORPUS_H

#include <errno.h>
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

#endif
