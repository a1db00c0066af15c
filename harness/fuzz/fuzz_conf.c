// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_conf: libFuzzer entry for the YAML config loader (conf_load_string, C14). The
 * input is YAML text, optionally followed by a NUL byte and NUL-separated "--set"
 * overrides ("traffic.size=4MiB"); the text is loaded both without and with them. A load
 * that succeeds must give a config that dumps (conf_dump) and loads back without error.
 */
#include "conf/conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A loaded config must survive conf_dump -> conf_load_string. */
static void dump_reload(const struct conf_job *job)
{
	struct conf_job again;
	char err[512], *text = NULL;
	size_t n = 0;
	FILE *f;

	f = open_memstream(&text, &n);
	if (!f)
		return;
	if (conf_dump(job, f)) {
		fclose(f);
		free(text);
		return;
	}
	fclose(f);
	if (conf_load_string(text, n, "dump", NULL, 0, &again, err, sizeof(err))) {
		fprintf(stderr, "fuzz_conf: reload of the dump failed: %s\n%s\n", err, text);
		abort();
	}
	conf_free(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *sets[MAX_SETS];
	struct conf_job job;
	size_t ylen, n_sets = 0;
	char err[512], *buf;

	/* one copy, NUL-terminated, so that every override is a C string */
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	ylen = strnlen(buf, size);
	for (size_t i = ylen; i < size && n_sets < MAX_SETS; ) {	/* buf[i] is a NUL */
		sets[n_sets++] = buf + i + 1;
		i += 1 + strlen(buf + i + 1);
	}

	if (conf_load_string(buf, ylen, "fuzz.yaml", NULL, 0, &job, err, sizeof(err)) == 0) {
		dump_reload(&job);
		conf_free(&job);
	}
	if (n_sets && conf_load_string(buf, ylen, "fuzz.yaml", sets, n_sets, &job, err,
			sizeof(err)) == 0) {
		dump_reload(&job);
		conf_free(&job);
	}
	free(buf);
	return 0;
}
