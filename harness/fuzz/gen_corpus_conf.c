// SPDX-License-Identifier: BSD-2-Clause
/*
 * gen_corpus_conf: writes the fuzz seed corpus for fuzz_conf into DIR: each YAML FILE
 * given, alone and followed by "--set" overrides (NUL-separated, see fuzz_conf.c), and
 * small snippets: the C14 inputs (duplicate key, aliases, a shortened alias bomb), units,
 * lists, wrong types.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const snippets[] = {
	/* C14.1: duplicate key */
	"traffic:\n  pattern: alltoall\n  size: 1MiB\n  pattern: allreduce\n",
	/* C14.2: aliases */
	("x-common: &ev {ev_count: 128, ev_min_active: 32}\n"
	 "profiles:\n  - {name: a, ev: *ev}\n  - {name: b, ev: *ev}\n"),
	/* C14.3, three levels of the alias bomb */
	"a: &a [lol, lol, lol]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n",
	"a: &a [*a]\n",
	"",
	"---\n...\n",
	"[1, 2]\n",
	"traffic: {size: 4MiB, sizes: [1KiB, 1MiB, 1GiB]}\n",
	"traffic:\n  size: -1\n",
	"traffic:\n  size: 99999999999999999999999TiB\n",
	"faults:\n  - {rate: 0.1}\n",
	"topology: {hosts: 0}\n",
	"\xff\xfe: \xc3\x28\n",
	"key: !!binary aGVsbG8=\n",
	"? [complex, key]\n: value\n",
	"a: |\n  literal\n  block\n",
};

/* NUL-separated overrides; sizeof keeps the inner NULs */
#define SET(lit) { lit, sizeof(lit) - 1 }
static const struct {
	const char *s;
	size_t n;
} sets[] = {
	SET("traffic.size=4MiB\0traffic.sizes=[1MiB,4MiB]"),
	SET("faults[0].rate=0.1"),
	SET("faults[3].rate=0.1"),
	SET("traffic.size="),
	SET("=1"),
	SET("traffic=[1,2]"),
	SET("traffic.size={a: *b}"),
};

static int put(const char *dir, const char *name, const char *a, size_t na, const char *b,
	size_t nb)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, na, f) != na || (nb && (fputc(0, f) == EOF ||
						       fwrite(b, 1, nb, f) != nb))) {
		fprintf(stderr, "gen_corpus_conf: write: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

static char *slurp(const char *path, size_t *len)
{
	char *text = NULL;
	FILE *f = fopen(path, "rb");
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(text = malloc((size_t)n + 1)) || fread(text, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "gen_corpus_conf: read: %s: %s\n", path, strerror(errno));
		free(text);
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return text;
}

int main(int argc, char **argv)
{
	size_t n_snip = sizeof(snippets) / sizeof(snippets[0]);
	size_t n_sets = sizeof(sets) / sizeof(sets[0]);
	char name[64];

	if (argc < 2) {
		fprintf(stderr, "usage: gen_corpus_conf DIR [FILE.yaml...]\n");
		return 2;
	}
	for (size_t i = 0; i < n_snip; i++) {
		snprintf(name, sizeof(name), "snippet-%02zu", i);
		if (put(argv[1], name, snippets[i], strlen(snippets[i]), NULL, 0))
			return 1;
	}
	for (int a = 2; a < argc; a++) {
		size_t len;
		char *text = slurp(argv[a], &len);

		if (!text)
			return 1;
		for (size_t s = 0; s <= n_sets; s++) {
			snprintf(name, sizeof(name), "file%02d-set%02zu", a - 2, s);
			if (put(argv[1], name, text, len, s ? sets[s - 1].s : NULL,
				s ? sets[s - 1].n : 0)) {
				free(text);
				return 1;
			}
		}
		free(text);
	}
	return 0;
}
