/* SPDX-License-Identifier: BSD-2-Clause */
/* flat: a YAML document flattened to dotted keys (conf/flat.h). */
#include "conf/flat.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static int flat_add(struct conf_flat *f, const char *key, const char *value)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct conf_flat_kv *kv = realloc(f->kv, cap * sizeof(*kv));

		if (!kv)
			return -ENOMEM;
		f->kv = kv;
		f->cap = cap;
	}
	f->kv[f->n].key = strdup(key);
	f->kv[f->n].value = strdup(value);
	if (!f->kv[f->n].key || !f->kv[f->n].value) {
		free(f->kv[f->n].key);
		free(f->kv[f->n].value);
		return -ENOMEM;
	}
	f->n++;
	return 0;
}

/* A level of the walk: a mapping (expecting a key or a value) or a sequence (next index). */
struct flat_level {
	bool seq, want_value;
	size_t index, plen; /* the path's length before this level's key */
};

#define FLAT_DEPTH 32

/* Appends the key of the next node at level @l to @path (of length @l->plen before it). */
static void flat_key(char *path, size_t size, struct flat_level *l, const char *key)
{
	if (l->seq)
		snprintf(path + l->plen, size - l->plen, "[%zu]", l->index++);
	else
		snprintf(path + l->plen, size - l->plen, "%s%s", l->plen ? "." : "", key);
}

int conf_flatten(const char *yaml, struct conf_flat *out)
{
	struct flat_level lv[FLAT_DEPTH];
	char path[1024] = "", key[256] = "";
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, ret = 0;
	bool done = false;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)yaml, strlen(yaml));
	while (!done && !ret) {
		if (!yaml_parser_parse(&p, &ev)) {
			ret = -EINVAL;
			break;
		}
		struct flat_level *top = depth ? &lv[depth - 1] : NULL;
		bool node = ev.type == YAML_SCALAR_EVENT || ev.type == YAML_MAPPING_START_EVENT ||
			ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_ALIAS_EVENT;

		if (top && !top->seq && !top->want_value && ev.type == YAML_SCALAR_EVENT) {
			/* a mapping's key */
			snprintf(key, sizeof(key), "%s", (const char *)ev.data.scalar.value);
			top->want_value = true;
			yaml_event_delete(&ev);
			continue;
		}
		if (node && top) {
			flat_key(path, sizeof(path), top, key);
			top->want_value = false;
		}
		switch (ev.type) {
		case YAML_SCALAR_EVENT:
			ret = flat_add(out, path, (const char *)ev.data.scalar.value);
			break;
		case YAML_ALIAS_EVENT:
			ret = flat_add(out, path, "*alias");
			break;
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			if (depth == FLAT_DEPTH) {
				ret = -EINVAL;
				break;
			}
			lv[depth++] = (struct flat_level){
				.seq = ev.type == YAML_SEQUENCE_START_EVENT, .plen = strlen(path) };
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			path[lv[depth].plen] = 0;
			if (depth)
				path[lv[depth - 1].plen] = 0;
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		default:
			break;
		}
		if (ev.type == YAML_SCALAR_EVENT && top)
			path[top->plen] = 0;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return ret;
}

void conf_flat_free(struct conf_flat *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->kv[i].key);
		free(f->kv[i].value);
	}
	free(f->kv);
	*f = (struct conf_flat){ 0 };
}

const char *conf_flat_get(const struct conf_flat *f, const char *key)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->kv[i].key, key) == 0)
			return f->kv[i].value;
	return NULL;
}
