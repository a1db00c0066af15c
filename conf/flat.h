/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flat: a YAML document (a report's embedded effective config, docs/report.md) flattened
 * to dotted keys, for `mrcgen compare` (docs/cli.md "compare"). conf/ is the only code
 * that parses YAML (docs/architecture.md).
 */
#ifndef CONF_FLAT_H
#define CONF_FLAT_H

#include <stddef.h>

/* One "key: value" line of a flattened config. */
struct conf_flat_kv {
	char *key, *value;
};

/* A flattened config: the scalars of a YAML document, in document order. */
struct conf_flat {
	struct conf_flat_kv *kv;
	size_t n, cap;
};

/*
 * Flattens the YAML text @yaml into @out: one entry per scalar, keyed by its dotted path
 * ("mrc.transport", sequence items as "traffic.sizes[0]"), valued by the scalar as
 * written (an alias as "*alias"). Returns 0, -ENOMEM, or -EINVAL when @yaml is not YAML
 * or nests deeper than 32 levels (a partial @out is kept: free it either way).
 */
int conf_flatten(const char *yaml, struct conf_flat *out);

/* Frees what conf_flatten put in @f. */
void conf_flat_free(struct conf_flat *f);

/* The value of @key in @f, or NULL when @f has no such key. */
const char *conf_flat_get(const struct conf_flat *f, const char *key);

#endif
