/* SPDX-License-Identifier: BSD-2-Clause */
/* conf/tree: the YAML text as a tree of our own (libyaml events, aliases under a budget, duplicate
 * keys refused) and the loader's error messages. */
#include "conf/conf.h"
#include "conf/conf_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

_Thread_local struct conf_work conf_work; /* see conf_int.h */

/* ---- the tree ------------------------------------------------------------------------ */

void conf_tfree(struct tnode *t)
{
	if (!t)
		return;
	free(t->s);
	for (size_t i = 0; i < t->n; i++) {
		if (t->kind == T_MAP) {
			free(t->pairs[i].key);
			conf_tfree(t->pairs[i].val);
		} else if (t->kind == T_SEQ) {
			conf_tfree(t->items[i]);
		}
	}
	free(t->pairs);
	free(t->items);
	free(t);
}

struct tnode *conf_tget(const struct tnode *map, const char *key)
{
	if (!map || map->kind != T_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->pairs[i].key, key) == 0)
			return map->pairs[i].val;
	return NULL;
}

/* Shortens a quoted value so that messages stay one readable line. */
const char *conf_clip(const char *v, char *buf, size_t len)
{
	size_t n = strlen(v);

	if (n < len && !strpbrk(v, "\n\r"))
		return v;
	snprintf(buf, len, "%.*s...", (int)(len > 4 ? len - 4 : 0), v);
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return buf;
}

__attribute__((format(printf, 6, 7)))
int conf_lerr(struct ld *ld, const char *src, unsigned line, unsigned col, const char *path,
	const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(ld->err, ld->errlen, "%s:%u:%u: %s%s%s", src, line, col, path,
			*path ? ": " : "", msg);
	else
		snprintf(ld->err, ld->errlen, "%s: %s%s%s", src, path, *path ? ": " : "", msg);
	return -EINVAL;
}

struct tnode *conf_tnew(struct ld *ld, enum tkind kind, const char *src, unsigned line,
	unsigned col)
{
	struct tnode *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->kind = kind;
	t->src = src;
	t->line = line;
	t->col = col;
	(void)ld;
	return t;
}

/* Appends ".key" (or "key" at the top) to @base into @out, which may be @base; truncates. */
void conf_path_key(char *out, const char *base, const char *key)
{
	char tmp[CONF_PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s%s%s", base, *base ? "." : "", key);

	if (n < 0)
		tmp[0] = '\0';
	memcpy(out, tmp, sizeof(tmp));
}

/* Appends "[i]" to @base into @out, which may be @base; truncates. */
void conf_path_idx(char *out, const char *base, size_t i)
{
	char tmp[CONF_PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s[%zu]", base, i);

	if (n < 0)
		tmp[0] = '\0';
	memcpy(out, tmp, sizeof(tmp));
}

/* Mappings with more keys than this find duplicates through a hash table (key_seen). */
#define KEY_SCAN_MAX 16

/*
 * The index of the pair among the first @n of map @t whose key is @key, or -1. With
 * @tab (open addressing, @mask + 1 slots of pair index + 1) the lookup is O(1) and a key
 * not found is entered as pair @n; without it the pairs are scanned.
 */
static long key_seen(const struct tnode *t, size_t *tab, size_t mask, const char *key,
	size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t k;

	if (!tab) {
		for (size_t j = 0; j < n; j++)
			if (conf_work.key_cmps++, strcmp(t->pairs[j].key, key) == 0)
				return (long)j;
		return -1;
	}
	for (const char *c = key; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	for (k = (size_t)h & mask; tab[k]; k = (k + 1) & mask)
		if (conf_work.key_cmps++, strcmp(t->pairs[tab[k] - 1].key, key) == 0)
			return (long)(tab[k] - 1);
	tab[k] = n + 1;
	return -1;
}

/* Whether the scalar starting at byte @off carried an explicit !!str (or "!") tag. */
static bool str_tagged(const struct ld *ld, size_t off)
{
	size_t lo = 0, hi = ld->n_str_tags;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ld->str_tags[mid] == off)
			return true;
		if (ld->str_tags[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Notes an explicit tag on the scalar of @ev (libyaml's document API gives every scalar
 * the str tag, so only the events tell "!!str 5" from "5"): !!str and the non-specific
 * "!" make it a string like quotes do (YAML 1.2 section 10.1.1.3); any other tag is
 * refused rather than silently ignored.
 */
static int scan_tag(struct ld *ld, const char *src, const yaml_event_t *ev, size_t *cap)
{
	static const char pfx[] = "tag:yaml.org,2002:";
	const char *tag = (const char *)ev->data.scalar.tag;
	char cb[64];

	if (!tag)
		return 0;
	if (strcmp(tag, "tag:yaml.org,2002:str") && strcmp(tag, "!")) {
		bool core = strncmp(tag, pfx, sizeof(pfx) - 1) == 0;

		return conf_lerr(ld, src, (unsigned)ev->start_mark.line + 1,
			(unsigned)ev->start_mark.column + 1, "",
			"unsupported YAML tag (only !!str) '%s%s'", core ? "!!" : "",
			conf_clip(core ? tag + sizeof(pfx) - 1 : tag, cb, 48));
	}
	if (ld->n_str_tags == *cap) {
		size_t nc = *cap ? 2 * *cap : 16, *n = realloc(ld->str_tags, nc * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ld->str_tags = n;
		*cap = nc;
	}
	ld->str_tags[ld->n_str_tags++] = ev->start_mark.index;
	return 0;
}

/* Copies libyaml node @id into a fresh tree, expanding aliases within the budget. */
static int tcopy(struct ld *ld, int id, const char *path, int depth, struct tnode **out)
{
	yaml_node_t *yn = yaml_document_get_node(ld->doc, id);
	unsigned line = (unsigned)yn->start_mark.line + 1,
		 col = (unsigned)yn->start_mark.column + 1;
	char sub[CONF_PATH_MAX];
	struct tnode *t;
	int err;

	*out = NULL;
	conf_work.nodes++;
	if (ld->budget == 0)
		return conf_lerr(ld, ld->src, line, col, path,
			"alias expansion limit: more than %d nodes", CONF_NODE_LIMIT);
	ld->budget--;
	if (depth > CONF_DEPTH_LIMIT)
		return conf_lerr(ld, ld->src, line, col, path, "nesting deeper than %d levels",
			CONF_DEPTH_LIMIT);
	switch (yn->type) {
	case YAML_SCALAR_NODE:
		t = conf_tnew(ld, T_SCALAR, ld->src, line, col);
		if (!t)
			return -ENOMEM;
		t->s = strndup((const char *)yn->data.scalar.value, yn->data.scalar.length);
		t->plain = yn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (str_tagged(ld, yn->start_mark.index)) {
			t->plain = false;	/* "!!str 5" is the string "5", as "'5'" is */
			t->str_tag = true;
		}
		if (!t->s) {
			conf_tfree(t);
			return -ENOMEM;
		}
		if (strlen(t->s) != yn->data.scalar.length) {
			conf_tfree(t);
			return conf_lerr(ld, ld->src, line, col, path, "NUL byte in a scalar");
		}
		*out = t;
		return 0;
	case YAML_SEQUENCE_NODE: {
		size_t n = (size_t)(yn->data.sequence.items.top - yn->data.sequence.items.start);

		t = conf_tnew(ld, T_SEQ, ld->src, line, col);
		if (!t || !(t->items = calloc(n ? n : 1, sizeof(*t->items)))) {
			conf_tfree(t);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			conf_path_idx(sub, path, i);
			err = tcopy(ld, yn->data.sequence.items.start[i], sub, depth + 1,
				&t->items[i]);
			t->n = i + 1;
			if (err) {
				conf_tfree(t);
				return err;
			}
		}
		*out = t;
		return 0;
	}
	case YAML_MAPPING_NODE: {
		size_t n = (size_t)(yn->data.mapping.pairs.top - yn->data.mapping.pairs.start);

		size_t *tab = NULL, mask = 0;
		long dup;

		t = conf_tnew(ld, T_MAP, ld->src, line, col);
		if (!t || !(t->pairs = calloc(n ? n : 1, sizeof(*t->pairs)))) {
			conf_tfree(t);
			return -ENOMEM;
		}
		if (n > KEY_SCAN_MAX) {	/* a hash table keeps the duplicate check linear */
			while (mask + 1 < 2 * n)
				mask = mask * 2 + 1;
			tab = calloc(mask + 1, sizeof(*tab));
			if (!tab) {
				conf_tfree(t);
				return -ENOMEM;
			}
		}
		for (size_t i = 0; i < n; i++) {
			yaml_node_pair_t *p = &yn->data.mapping.pairs.start[i];
			yaml_node_t *kn = yaml_document_get_node(ld->doc, p->key);
			unsigned kl = (unsigned)kn->start_mark.line + 1;
			unsigned kc = (unsigned)kn->start_mark.column + 1;
			const char *key;

			if (kn->type != YAML_SCALAR_NODE) {
				free(tab);
				conf_tfree(t);
				return conf_lerr(ld, ld->src, kl, kc, path,
					"a key must be a scalar");
			}
			key = (const char *)kn->data.scalar.value;
			conf_path_key(sub, path, key);
			dup = key_seen(t, tab, mask, key, i);
			if (dup >= 0) {
				unsigned first = t->pairs[dup].kline;

				free(tab);
				conf_tfree(t);
				return conf_lerr(ld, ld->src, kl, kc, sub,
					"duplicate key '%s' (first at line %u)", key, first);
			}
			t->pairs[i].key = strdup(key);
			t->pairs[i].kline = kl;
			t->pairs[i].kcol = kc;
			t->n = i + 1;
			if (!t->pairs[i].key) {
				free(tab);
				conf_tfree(t);
				return -ENOMEM;
			}
			err = tcopy(ld, p->value, sub, depth + 1, &t->pairs[i].val);
			if (err) {
				free(tab);
				conf_tfree(t);
				return err;
			}
		}
		free(tab);
		*out = t;
		return 0;
	}
	default:
		return conf_lerr(ld, ld->src, line, col, path, "empty node");
	}
}

/*
 * The message for a libyaml failure. A reader error (bad UTF-8, a control character) has
 * no mark, only a byte offset: the line and column come from counting the text, and the
 * offending byte is quoted.
 */
static int yaml_err(struct ld *ld, const char *src, const yaml_parser_t *p, const char *text,
	size_t len)
{
	unsigned line = (unsigned)p->problem_mark.line + 1,
		 col = (unsigned)p->problem_mark.column + 1;
	const char *what = p->problem ? p->problem : "parse error";

	if (p->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	if (p->error == YAML_READER_ERROR) {
		size_t off = p->problem_offset < len ? p->problem_offset : len;

		line = 1;
		col = 1;
		for (size_t i = 0; i < off; i++) {
			col++;
			if (text[i] == '\n') {
				line++;
				col = 1;
			}
		}
		if (p->problem_value >= 0)
			return conf_lerr(ld, src, line, col, "", "yaml: %s '\\x%02x'", what,
				(unsigned)p->problem_value & 0xff);
		return conf_lerr(ld, src, line, col, "", "yaml: %s", what);
	}
	return conf_lerr(ld, src, line, col, "", "yaml: %s%s%s", what, p->context ? " " : "",
		p->context ? p->context : "");
}

/*
 * A first pass over the parser's events that refuses, before any document is built,
 * nesting deeper than CONF_DEPTH_LIMIT and more than CONF_EVENT_LIMIT nodes: libyaml's
 * scanner costs O(depth) per token and its document grows with every node, so a hostile
 * file (100000 '[', millions of keys) would otherwise take minutes.
 */
static int tscan(struct ld *ld, const char *src, const char *text, size_t len)
{
	size_t depth = 0, nodes = 0, cap = 0;
	yaml_parser_t p;
	yaml_event_t ev;
	bool done = false;
	int err = 0;

	if (!yaml_parser_initialize(&p))
		return -ENOMEM;
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done && !err) {
		unsigned line, col;

		if (!yaml_parser_parse(&p, &ev)) {
			err = yaml_err(ld, src, &p, text, len);
			break;
		}
		conf_work.events++;
		line = (unsigned)ev.start_mark.line + 1;
		col = (unsigned)ev.start_mark.column + 1;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			/* the root is at depth 0 in tcopy(), which has the same limit */
			if (++depth > CONF_DEPTH_LIMIT + 1) {
				err = conf_lerr(ld, src, line, col, "",
					"nesting deeper than %d levels", CONF_DEPTH_LIMIT);
				break;
			}
			/* fall through */
		case YAML_SCALAR_EVENT:
			if (ev.type == YAML_SCALAR_EVENT) {
				err = scan_tag(ld, src, &ev, &cap);
				if (err)
					break;
			}
			/* fall through */
		case YAML_ALIAS_EVENT:
			if (++nodes > CONF_EVENT_LIMIT)
				err = conf_lerr(ld, src, line, col, "",
					"too large: more than %d YAML nodes", CONF_EVENT_LIMIT);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return err;
}

/*
 * Parses YAML @text (one document) into a tree. An empty document gives NULL in @out.
 * @src names the text in messages.
 */
static int tparse_doc(struct ld *ld, const char *src, const char *text, size_t len,
	struct tnode **out)
{
	yaml_parser_t parser;
	yaml_document_t doc, doc2;
	yaml_node_t *root;
	const char *save = ld->src;
	int err = 0;

	*out = NULL;
	err = tscan(ld, src, text, len);
	if (err)
		return err;
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		err = yaml_err(ld, src, &parser, text, len);
		yaml_parser_delete(&parser);
		return err;
	}
	root = yaml_document_get_root_node(&doc);
	if (root) {
		ld->src = src;
		ld->doc = &doc;
		err = tcopy(ld, 1, "", 0, out);
		ld->doc = NULL;
		ld->src = save;
		if (!err) {
			if (!yaml_parser_load(&parser, &doc2)) {
				err = conf_lerr(ld, src, (unsigned)parser.problem_mark.line + 1,
					(unsigned)parser.problem_mark.column + 1, "", "yaml: %s",
					parser.problem ? parser.problem : "parse error");
			} else {
				yaml_node_t *r2 = yaml_document_get_root_node(&doc2);

				if (r2)
					err = conf_lerr(ld, src, (unsigned)r2->start_mark.line + 1,
						(unsigned)r2->start_mark.column + 1, "",
						"more than one YAML document");
				yaml_document_delete(&doc2);
			}
		}
		if (err) {
			conf_tfree(*out);
			*out = NULL;
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return err;
}

int conf_tparse(struct ld *ld, const char *src, const char *text, size_t len,
	struct tnode **out)
{
	int err = tparse_doc(ld, src, text, len, out);

	free(ld->str_tags);
	ld->str_tags = NULL;
	ld->n_str_tags = 0;
	return err;
}
