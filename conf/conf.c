/* SPDX-License-Identifier: BSD-2-Clause */
/* conf: strict YAML job loader (libyaml document API), --set overrides and the YAML dump. */
#include "conf/conf.h"
#include "conf/units.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/*
 * Loading goes in three steps so that nothing half-loaded is ever used:
 * 1. libyaml builds its document; we copy it into our own tree (struct tnode), expanding
 *    aliases under a node budget (C14.3) and rejecting duplicate keys (C14.1);
 * 2. --set overrides are parsed as YAML and grafted into the tree, checked against the
 *    schema tables below;
 * 3. the tree is converted into a defaulted struct conf_job by the same schema tables
 *    that conf_dump() prints from, so the dump loads back to the same struct.
 */

#define CONF_NODE_LIMIT 100000	/* nodes after alias expansion; real configs use < 20000 */
#define CONF_DEPTH_LIMIT 64
#define CONF_EVENT_LIMIT (2 * CONF_NODE_LIMIT)	/* YAML nodes in the text, keys included */
#define CONF_PATH_MAX 256

const struct conf_name conf_driver_names[] = {
	{ CONF_DRIVER_SIM, "sim" }, { CONF_DRIVER_WIRE, "wire" }, { 0, NULL } };
const struct conf_name conf_plan_names[] = {
	{ CONF_PLAN_GENERATED, "generated" }, { CONF_PLAN_EXPLICIT, "explicit" }, { 0, NULL } };
const struct conf_name conf_transport_names[] = {
	{ CONF_TRANSPORT_MRC, "mrc" }, { CONF_TRANSPORT_ROCE, "roce" }, { 0, NULL } };
const struct conf_name conf_ev_format_names[] = {
	{ CONF_EV_SRV6, "srv6" }, { CONF_EV_STEV, "stev" }, { CONF_EV_UDP, "udp" }, { 0, NULL } };
const struct conf_name conf_cc_algo_names[] = {
	{ CONF_CC_NSCC, "nscc" }, { CONF_CC_FIXED, "fixed" }, { 0, NULL } };
const struct conf_name conf_pattern_names[] = {
	{ CONF_PAT_ALLREDUCE, "allreduce" }, { CONF_PAT_ALLTOALL, "alltoall" },
	{ CONF_PAT_SENDRECV, "sendrecv" }, { CONF_PAT_INCAST, "incast" }, { 0, NULL } };
const struct conf_name conf_algorithm_names[] = {
	{ CONF_ALG_RING, "ring" }, { CONF_ALG_TREE, "tree" }, { CONF_ALG_PARALLEL, "parallel" },
	{ CONF_ALG_SHIFT, "shift" }, { CONF_ALG_DIRECT, "direct" }, { 0, NULL } };
const struct conf_name conf_dtype_names[] = {
	{ CONF_DT_FLOAT32, "float32" }, { CONF_DT_INT32, "int32" }, { CONF_DT_FLOAT64, "float64" },
	{ 0, NULL } };
const struct conf_name conf_fault_action_names[] = {
	{ CONF_FA_DOWN, "down" }, { CONF_FA_UP, "up" }, { CONF_FA_LOSS, "loss" },
	{ CONF_FA_DELAY, "delay" }, { CONF_FA_FLAP, "flap" }, { CONF_FA_BLACKHOLE, "blackhole" },
	{ CONF_FA_CLEAR, "clear" }, { 0, NULL } };
const struct conf_name conf_direction_names[] = {
	{ CONF_DIR_BOTH, "both" }, { CONF_DIR_FORWARD, "forward" }, { CONF_DIR_REVERSE, "reverse" },
	{ 0, NULL } };
const struct conf_name conf_cap_dir_names[] = {
	{ CONF_CAP_BOTH, "both" }, { CONF_CAP_INGRESS, "ingress" }, { CONF_CAP_EGRESS, "egress" },
	{ 0, NULL } };
const struct conf_name conf_tsresol_names[] = {
	{ CONF_TS_NS, "ns" }, { CONF_TS_US, "us" }, { 0, NULL } };

const char *conf_name_of(const struct conf_name *tbl, int val)
{
	for (; tbl->name; tbl++)
		if (tbl->val == val)
			return tbl->name;
	return "?";
}

static int name_lookup(const struct conf_name *tbl, const char *s, int *val)
{
	for (; tbl->name; tbl++) {
		if (strcmp(tbl->name, s) == 0) {
			*val = tbl->val;
			return 0;
		}
	}
	return -EINVAL;
}

unsigned conf_dtype_size(enum conf_dtype dt)
{
	return dt == CONF_DT_FLOAT64 ? 8 : 4;
}

/* ---- node names ---------------------------------------------------------------------- */

/* Reads a decimal number without leading zeros (canonical names only); advances *s. */
static int take_num(const char **s, uint32_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9'))
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	*out = (uint32_t)v;
	*s = p;
	return 0;
}

static int take_lit(const char **s, const char *lit)
{
	size_t n = strlen(lit);

	if (strncmp(*s, lit, n))
		return -EINVAL;
	*s += n;
	return 0;
}

/* One endpoint: host "h3", port "h3.p0", switch "p0.t0.1" / "p0.t1.2"; syntax only. */
static int parse_end(const char **s, struct conf_node *n)
{
	memset(n, 0, sizeof(*n));
	if (take_lit(s, "h") == 0) {
		if (take_num(s, &n->host))
			return -EINVAL;
		n->kind = CONF_NODE_HOST;
		if (take_lit(s, ".p") == 0) {
			if (take_num(s, &n->plane))
				return -EINVAL;
			n->kind = CONF_NODE_PORT;
		}
		return 0;
	}
	if (take_lit(s, "p") || take_num(s, &n->plane))
		return -EINVAL;
	if (take_lit(s, ".t0.") == 0) {
		n->kind = CONF_NODE_T0;
		return take_num(s, &n->t0);
	}
	if (take_lit(s, ".t1.") == 0) {
		n->kind = CONF_NODE_T1;
		return take_num(s, &n->t1);
	}
	return -EINVAL;
}

static int end_exists(const struct conf_fabric *f, const struct conf_node *n)
{
	switch (n->kind) {
	case CONF_NODE_HOST:
		return n->host < conf_fabric_hosts(f) ? 0 : -ENOENT;
	case CONF_NODE_PORT:
		return n->host < conf_fabric_hosts(f) && n->plane < f->planes ? 0 : -ENOENT;
	case CONF_NODE_T0:
		return n->plane < f->planes && n->t0 < f->t0 ? 0 : -ENOENT;
	case CONF_NODE_T1:
		return n->plane < f->planes && n->t1 < f->t1 ? 0 : -ENOENT;
	default:
		return -EINVAL;
	}
}

char *conf_dump_string(const struct conf_job *job, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int e;

	if (!f)
		return NULL;
	e = conf_dump(job, f);
	if (fclose(f) || e) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}

int conf_node_parse(const struct conf_fabric *fab, const char *name, struct conf_node *out)
{
	struct conf_node a, b, *lo, *hi;
	const char *s = name;
	int err;

	if (parse_end(&s, &a))
		return -EINVAL;
	if (*s == '\0') {
		err = end_exists(fab, &a);
		if (!err)
			*out = a;
		return err;
	}
	if (*s++ != '-' || parse_end(&s, &b) || *s)
		return -EINVAL;
	/* Order the pair lower tier first: port < T0 < T1. */
	lo = &a;
	hi = &b;
	if (a.kind == CONF_NODE_T1 || (a.kind == CONF_NODE_T0 && b.kind == CONF_NODE_PORT)) {
		lo = &b;
		hi = &a;
	}
	if (lo->kind == CONF_NODE_PORT && hi->kind == CONF_NODE_T0) {
		if (end_exists(fab, lo) || end_exists(fab, hi) || lo->plane != hi->plane ||
		    lo->host / fab->hosts_per_t0 != hi->t0)
			return -ENOENT;
		memset(out, 0, sizeof(*out));
		out->kind = CONF_NODE_LINK_HOST_T0;
		out->host = lo->host;
		out->t0 = hi->t0;
	} else if (lo->kind == CONF_NODE_T0 && hi->kind == CONF_NODE_T1) {
		if (end_exists(fab, lo) || end_exists(fab, hi) || lo->plane != hi->plane)
			return -ENOENT;
		memset(out, 0, sizeof(*out));
		out->kind = CONF_NODE_LINK_T0_T1;
		out->t0 = lo->t0;
		out->t1 = hi->t1;
	} else {
		return -EINVAL;
	}
	out->plane = lo->plane;
	out->reverse = lo != &a;
	return 0;
}

char *conf_node_format(const struct conf_node *n, char *buf, size_t len)
{
	char x[24], y[24];

	switch (n->kind) {
	case CONF_NODE_HOST:
		snprintf(buf, len, "h%" PRIu32, n->host);
		break;
	case CONF_NODE_PORT:
		snprintf(buf, len, "h%" PRIu32 ".p%" PRIu32, n->host, n->plane);
		break;
	case CONF_NODE_T0:
		snprintf(buf, len, "p%" PRIu32 ".t0.%" PRIu32, n->plane, n->t0);
		break;
	case CONF_NODE_T1:
		snprintf(buf, len, "p%" PRIu32 ".t1.%" PRIu32, n->plane, n->t1);
		break;
	case CONF_NODE_LINK_HOST_T0:
	case CONF_NODE_LINK_T0_T1:
		if (n->kind == CONF_NODE_LINK_HOST_T0) {
			snprintf(x, sizeof(x), "h%" PRIu32 ".p%" PRIu32, n->host, n->plane);
			snprintf(y, sizeof(y), "p%" PRIu32 ".t0.%" PRIu32, n->plane, n->t0);
		} else {
			snprintf(x, sizeof(x), "p%" PRIu32 ".t0.%" PRIu32, n->plane, n->t0);
			snprintf(y, sizeof(y), "p%" PRIu32 ".t1.%" PRIu32, n->plane, n->t1);
		}
		snprintf(buf, len, "%s-%s", n->reverse ? y : x, n->reverse ? x : y);
		break;
	}
	return buf;
}

char *conf_capture_file(const struct conf_capture *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s.pcap", c->point ? c->point : "");
	for (char *s = buf; *s; s++)
		if (*s == '>' || *s == '/')
			*s = '_';
	return buf;
}

size_t conf_sizes_expand(const struct conf_sizes *s, uint64_t *out, size_t cap)
{
	size_t n = 0;

	if (!s->range) {
		for (; n < s->n_list; n++)
			if (n < cap)
				out[n] = s->list[n];
		return n;
	}
	for (uint64_t v = s->min; v <= s->max; n++) {
		if (n < cap)
			out[n] = v;
		if (__builtin_mul_overflow(v, s->factor, &v))
			return n + 1;
	}
	return n;
}

/* ---- the tree ------------------------------------------------------------------------ */

enum tkind { T_SCALAR, T_MAP, T_SEQ };

struct tnode;

struct tpair {
	char *key;
	unsigned kline, kcol;
	struct tnode *val;
};

struct tnode {
	enum tkind kind;
	const char *src;	/* file name, or the --set argument it came from */
	unsigned line, col;	/* 1-based; 0 when from a --set */
	char *s;		/* scalar text */
	bool plain;		/* scalar written without quotes or an explicit !!str tag */
	bool str_tag;		/* ... and it had the tag (messages say so) */
	size_t n;		/* pairs or items */
	struct tpair *pairs;
	struct tnode **items;
};

static void tfree(struct tnode *t)
{
	if (!t)
		return;
	free(t->s);
	for (size_t i = 0; i < t->n; i++) {
		if (t->kind == T_MAP) {
			free(t->pairs[i].key);
			tfree(t->pairs[i].val);
		} else if (t->kind == T_SEQ) {
			tfree(t->items[i]);
		}
	}
	free(t->pairs);
	free(t->items);
	free(t);
}

static struct tnode *tget(const struct tnode *map, const char *key)
{
	if (!map || map->kind != T_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->pairs[i].key, key) == 0)
			return map->pairs[i].val;
	return NULL;
}

/* Loader state: where errors go and how many nodes are left in the budget. */
struct ld {
	const char *src;
	char *err;
	size_t errlen;
	size_t budget;
	yaml_document_t *doc;
	struct conf_job *job;	/* conversion target (fabric converted before its users) */
	size_t *str_tags;	/* byte offsets of the scalars tagged !!str, ascending */
	size_t n_str_tags;
};

/* Shortens a quoted value so that messages stay one readable line. */
static const char *clip(const char *v, char *buf, size_t len)
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
static int lerr(struct ld *ld, const char *src, unsigned line, unsigned col, const char *path,
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

#define TERR(ld, t, path, ...) lerr((ld), (t)->src, (t)->line, (t)->col, (path), __VA_ARGS__)

static struct tnode *tnew(struct ld *ld, enum tkind kind, const char *src, unsigned line,
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
static void path_key(char *out, const char *base, const char *key)
{
	char tmp[CONF_PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s%s%s", base, *base ? "." : "", key);

	if (n < 0)
		tmp[0] = '\0';
	memcpy(out, tmp, sizeof(tmp));
}

/* Appends "[i]" to @base into @out, which may be @base; truncates. */
static void path_idx(char *out, const char *base, size_t i)
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
			if (strcmp(t->pairs[j].key, key) == 0)
				return (long)j;
		return -1;
	}
	for (const char *c = key; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	for (k = (size_t)h & mask; tab[k]; k = (k + 1) & mask)
		if (strcmp(t->pairs[tab[k] - 1].key, key) == 0)
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

		return lerr(ld, src, (unsigned)ev->start_mark.line + 1,
			(unsigned)ev->start_mark.column + 1, "",
			"unsupported YAML tag (only !!str) '%s%s'", core ? "!!" : "",
			clip(core ? tag + sizeof(pfx) - 1 : tag, cb, 48));
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
	unsigned line = (unsigned)yn->start_mark.line + 1, col = (unsigned)yn->start_mark.column + 1;
	char sub[CONF_PATH_MAX];
	struct tnode *t;
	int err;

	*out = NULL;
	if (ld->budget == 0)
		return lerr(ld, ld->src, line, col, path,
			"alias expansion limit: more than %d nodes", CONF_NODE_LIMIT);
	ld->budget--;
	if (depth > CONF_DEPTH_LIMIT)
		return lerr(ld, ld->src, line, col, path, "nesting deeper than %d levels",
			CONF_DEPTH_LIMIT);
	switch (yn->type) {
	case YAML_SCALAR_NODE:
		t = tnew(ld, T_SCALAR, ld->src, line, col);
		if (!t)
			return -ENOMEM;
		t->s = strndup((const char *)yn->data.scalar.value, yn->data.scalar.length);
		t->plain = yn->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		if (str_tagged(ld, yn->start_mark.index)) {
			t->plain = false;	/* "!!str 5" is the string "5", as "'5'" is */
			t->str_tag = true;
		}
		if (!t->s) {
			tfree(t);
			return -ENOMEM;
		}
		if (strlen(t->s) != yn->data.scalar.length) {
			tfree(t);
			return lerr(ld, ld->src, line, col, path, "NUL byte in a scalar");
		}
		*out = t;
		return 0;
	case YAML_SEQUENCE_NODE: {
		size_t n = (size_t)(yn->data.sequence.items.top - yn->data.sequence.items.start);

		t = tnew(ld, T_SEQ, ld->src, line, col);
		if (!t || !(t->items = calloc(n ? n : 1, sizeof(*t->items)))) {
			tfree(t);
			return -ENOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			path_idx(sub, path, i);
			err = tcopy(ld, yn->data.sequence.items.start[i], sub, depth + 1,
				&t->items[i]);
			t->n = i + 1;
			if (err) {
				tfree(t);
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

		t = tnew(ld, T_MAP, ld->src, line, col);
		if (!t || !(t->pairs = calloc(n ? n : 1, sizeof(*t->pairs)))) {
			tfree(t);
			return -ENOMEM;
		}
		if (n > KEY_SCAN_MAX) {	/* a hash table keeps the duplicate check linear */
			while (mask + 1 < 2 * n)
				mask = mask * 2 + 1;
			tab = calloc(mask + 1, sizeof(*tab));
			if (!tab) {
				tfree(t);
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
				tfree(t);
				return lerr(ld, ld->src, kl, kc, path, "a key must be a scalar");
			}
			key = (const char *)kn->data.scalar.value;
			path_key(sub, path, key);
			dup = key_seen(t, tab, mask, key, i);
			if (dup >= 0) {
				unsigned first = t->pairs[dup].kline;

				free(tab);
				tfree(t);
				return lerr(ld, ld->src, kl, kc, sub,
					"duplicate key '%s' (first at line %u)", key, first);
			}
			t->pairs[i].key = strdup(key);
			t->pairs[i].kline = kl;
			t->pairs[i].kcol = kc;
			t->n = i + 1;
			if (!t->pairs[i].key) {
				free(tab);
				tfree(t);
				return -ENOMEM;
			}
			err = tcopy(ld, p->value, sub, depth + 1, &t->pairs[i].val);
			if (err) {
				free(tab);
				tfree(t);
				return err;
			}
		}
		free(tab);
		*out = t;
		return 0;
	}
	default:
		return lerr(ld, ld->src, line, col, path, "empty node");
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
	unsigned line = (unsigned)p->problem_mark.line + 1, col = (unsigned)p->problem_mark.column + 1;
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
			return lerr(ld, src, line, col, "", "yaml: %s '\\x%02x'", what,
				(unsigned)p->problem_value & 0xff);
		return lerr(ld, src, line, col, "", "yaml: %s", what);
	}
	return lerr(ld, src, line, col, "", "yaml: %s%s%s", what, p->context ? " " : "",
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
				err = lerr(ld, src, line, col, "", "nesting deeper than %d levels",
					CONF_DEPTH_LIMIT);
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
				err = lerr(ld, src, line, col, "", "too large: more than %d YAML nodes",
					CONF_EVENT_LIMIT);
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
				err = lerr(ld, src, (unsigned)parser.problem_mark.line + 1,
					(unsigned)parser.problem_mark.column + 1, "", "yaml: %s",
					parser.problem ? parser.problem : "parse error");
			} else {
				yaml_node_t *r2 = yaml_document_get_root_node(&doc2);

				if (r2)
					err = lerr(ld, src, (unsigned)r2->start_mark.line + 1,
						(unsigned)r2->start_mark.column + 1, "",
						"more than one YAML document");
				yaml_document_delete(&doc2);
			}
		}
		if (err) {
			tfree(*out);
			*out = NULL;
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return err;
}

static int tparse(struct ld *ld, const char *src, const char *text, size_t len,
	struct tnode **out)
{
	int err = tparse_doc(ld, src, text, len, out);

	free(ld->str_tags);
	ld->str_tags = NULL;
	ld->n_str_tags = 0;
	return err;
}

/* ---- schema ---------------------------------------------------------------------------- */

enum ctype {
	CT_U8, CT_U16, CT_U32, CT_U64, CT_BOOL, CT_ENUM, CT_SIZE, CT_RATE, CT_TIME, CT_TIME_NS,
	CT_DOUBLE, CT_STR, CT_NODE, CT_BLOCK, CT_PREFIX, CT_SECTION, CT_LIST, CT_SIZES,
};

struct cf;
typedef int (*check_fn)(struct ld *ld, const struct tnode *map, void *obj, const char *path);

struct cf {
	const char *name;	/* NULL: the element of a scalar list */
	enum ctype t;
	size_t off;
	uint64_t min, max;
	double dmin, dmax;
	const struct conf_name *names;
	const struct cf *sub;	/* section fields, or list element fields */
	size_t esize, noff;	/* list: element size, offset of the size_t count;
				 * node: offset of the struct conf_node it resolves to */
	bool has;		/* hoff is the offset of a bool "given" flag */
	size_t hoff;
	check_fn check;		/* section / list element: cross-field rules */
	void (*init)(void *elem);	/* list: defaults of a new element (else all zero) */
};

#define U(T, f, n, ty, lo, hi) { .name = n, .t = ty, .off = offsetof(T, f), .min = lo, .max = hi }
#define E(T, f, n, tbl) { .name = n, .t = CT_ENUM, .off = offsetof(T, f), .names = tbl }
#define B(T, f, n) { .name = n, .t = CT_BOOL, .off = offsetof(T, f) }
#define D(T, f, n, lo, hi) { .name = n, .t = CT_DOUBLE, .off = offsetof(T, f), .dmin = lo, \
	.dmax = hi }
#define S(T, f, n) { .name = n, .t = CT_STR, .off = offsetof(T, f) }
#define SEC(T, f, n, tbl, chk) { .name = n, .t = CT_SECTION, .off = offsetof(T, f), .sub = tbl, \
	.check = chk }
#define LIST(T, f, nf, n, tbl, ET, chk) { .name = n, .t = CT_LIST, .off = offsetof(T, f), \
	.noff = offsetof(T, nf), .sub = tbl, .esize = sizeof(ET), .check = chk }
#define HAS(T, h) .has = true, .hoff = offsetof(T, h)
#define END { .name = NULL }

#define MAXU32 UINT32_MAX
#define MAXU64 UINT64_MAX
#define PS_PER_S 1000000000000ull

static int check_fabric(struct ld *, const struct tnode *, void *, const char *);
static int check_addressing(struct ld *, const struct tnode *, void *, const char *);
static int check_usid(struct ld *, const struct tnode *, void *, const char *);
static int check_ev(struct ld *, const struct tnode *, void *, const char *);
static int check_rule(struct ld *, const struct tnode *, void *, const char *);
static int check_traffic(struct ld *, const struct tnode *, void *, const char *);
static int check_fault(struct ld *, const struct tnode *, void *, const char *);
static int check_hist(struct ld *, const struct tnode *, void *, const char *);
static int check_capture(struct ld *, const struct tnode *, void *, const char *);
static int check_output(struct ld *, const struct tnode *, void *, const char *);

static void init_capture(void *elem)
{
	struct conf_capture *c = elem;

	c->snaplen = 262144;	/* C05: never 0, never above 262144 by default */
	c->dir = CONF_CAP_BOTH;
	c->tsresol = CONF_TS_NS;
}

static const struct cf usid_tbl[] = {
	{ .name = "node", .t = CT_NODE, .off = offsetof(struct conf_usid_entry, node),
		.noff = offsetof(struct conf_usid_entry, n) },
	U(struct conf_usid_entry, usid, "usid", CT_U16, 1, 0xffff),
	END
};

static const struct cf addressing_tbl[] = {
	{ .name = "block", .t = CT_BLOCK, .off = offsetof(struct conf_addressing, block) },
	{ .name = "usid_plane_bits", .t = CT_U8, .off = offsetof(struct conf_addressing,
		usid_plane_bits), .min = 0, .max = 4, HAS(struct conf_addressing,
		has_usid_plane_bits) },
	E(struct conf_addressing, plan, "plan", conf_plan_names),
	LIST(struct conf_addressing, usids, n_usids, "usids", usid_tbl, struct conf_usid_entry,
		check_usid),
	{ .name = "host_prefix", .t = CT_PREFIX, .off = offsetof(struct conf_addressing,
		host_prefix) },
	END
};

static const struct cf fabric_tbl[] = {
	E(struct conf_fabric, driver, "driver", conf_driver_names),
	U(struct conf_fabric, planes, "planes", CT_U32, 1, 16),
	U(struct conf_fabric, t0, "t0", CT_U32, 1, 1024),
	U(struct conf_fabric, t1, "t1", CT_U32, 1, 1024),
	U(struct conf_fabric, hosts_per_t0, "hosts_per_t0", CT_U32, 1, 1024),
	U(struct conf_fabric, link_rate_bps, "link_rate", CT_RATE, 1000000, 100000000000000ull),
	U(struct conf_fabric, host_link_delay_ps, "host_link_delay", CT_TIME, 0, PS_PER_S),
	U(struct conf_fabric, fabric_link_delay_ps, "fabric_link_delay", CT_TIME, 0, PS_PER_S),
	U(struct conf_fabric, switch_delay_ps, "switch_delay", CT_TIME, 0, PS_PER_S),
	U(struct conf_fabric, buffer_bytes, "buffer", CT_SIZE, 1, 1ull << 40),
	U(struct conf_fabric, ecn_threshold_bytes, "ecn_threshold", CT_SIZE, 0, 1ull << 40),
	B(struct conf_fabric, ecn_last_hop, "ecn_last_hop"),
	B(struct conf_fabric, trim, "trim"),
	U(struct conf_fabric, trim_size_bytes, "trim_size", CT_SIZE, 64, 9000),
	SEC(struct conf_fabric, addressing, "addressing", addressing_tbl, check_addressing),
	END
};

static const struct cf rule_tbl[] = {
	U(struct conf_ev_rule, init, "init", CT_U32, 0, 0xffff),
	U(struct conf_ev_rule, mask, "mask", CT_U32, 0, 0xffff),
	U(struct conf_ev_rule, min, "min", CT_U32, 0, 0xffff),
	U(struct conf_ev_rule, max, "max", CT_U32, 0, 0xffff),
	END
};

static const struct cf ev32_tbl[] = {
	{ .name = NULL, .t = CT_U32, .off = 0, .min = 0, .max = MAXU32 },
};

static const struct cf ev_tbl[] = {
	U(struct conf_ev, ev_count, "ev_count", CT_U32, 1, 65536),
	U(struct conf_ev, ev_min_active, "ev_min_active", CT_U32, 1, 65536),
	LIST(struct conf_ev, evs, n_evs, "evs", ev32_tbl, uint32_t, NULL),
	SEC(struct conf_ev, plane, "plane", rule_tbl, check_rule),
	SEC(struct conf_ev, spine, "spine", rule_tbl, check_rule),
	SEC(struct conf_ev, salt, "salt", rule_tbl, check_rule),
	LIST(struct conf_ev, deny, n_deny, "deny", ev32_tbl, uint32_t, NULL),
	END
};

static const struct cf cc_tbl[] = {
	E(struct conf_cc, algorithm, "algorithm", conf_cc_algo_names),
	U(struct conf_cc, fixed_cwnd_bytes, "fixed_cwnd", CT_SIZE, 0, 1ull << 40),
	U(struct conf_cc, base_rtt_ps, "base_rtt", CT_TIME, 0, PS_PER_S),
	U(struct conf_cc, target_delay_ps, "target_delay", CT_TIME, 0, PS_PER_S),
	D(struct conf_cc, eta, "eta", 0, 1e12),
	D(struct conf_cc, fi, "fi", 0, 1e12),
	D(struct conf_cc, fi_scale, "fi_scale", 0, 1e12),
	D(struct conf_cc, gamma, "gamma", 0, 1),
	D(struct conf_cc, max_md_jump, "max_md_jump", 0, 1),
	U(struct conf_cc, max_cwnd_bytes, "max_cwnd", CT_SIZE, 0, 1ull << 40),
	U(struct conf_cc, qa_threshold_ps, "qa_threshold", CT_TIME, 0, PS_PER_S),
	D(struct conf_cc, qa_gate, "qa_gate", 0, 1e12),
	U(struct conf_cc, adjust_bytes_threshold, "adjust_bytes_threshold", CT_SIZE, 0, 1ull << 40),
	U(struct conf_cc, adjust_period_threshold_ps, "adjust_period_threshold", CT_TIME, 0,
		PS_PER_S),
	B(struct conf_cc, disable_qa, "disable_qa"),
	END
};

static const struct cf qp_tbl[] = {
	U(struct conf_qp, mpr, "mpr", CT_U32, 1, 255),
	U(struct conf_qp, max_wimm, "max_wimm", CT_U32, 1, 65535),
	U(struct conf_qp, timeout, "timeout", CT_U32, 0, 31),
	U(struct conf_qp, retry_linear, "retry_linear", CT_U32, 0, 7),
	U(struct conf_qp, retry_exp, "retry_exp", CT_U32, 0, 7),
	END
};

static const struct cf dscp_tbl[] = {
	U(struct conf_dscp, data, "data", CT_U8, 0, 63),
	U(struct conf_dscp, ctrl, "ctrl", CT_U8, 0, 63),
	U(struct conf_dscp, rtx, "rtx", CT_U8, 0, 63),
	U(struct conf_dscp, trimmed, "trimmed", CT_U8, 0, 63),
	U(struct conf_dscp, trimmed_lasthop, "trimmed_lasthop", CT_U8, 0, 63),
	END
};

static const struct cf mrc_tbl[] = {
	E(struct conf_mrc, transport, "transport", conf_transport_names),
	E(struct conf_mrc, ev_format, "ev_format", conf_ev_format_names),
	B(struct conf_mrc, srh, "srh"),
	SEC(struct conf_mrc, ev, "ev", ev_tbl, check_ev),
	SEC(struct conf_mrc, cc, "cc", cc_tbl, NULL),
	SEC(struct conf_mrc, qp, "qp", qp_tbl, NULL),
	U(struct conf_mrc, mtu, "mtu", CT_U32, 256, 9000),
	U(struct conf_mrc, reorder_threshold, "reorder_threshold", CT_U32, 1, 8192),
	U(struct conf_mrc, sack_every_bytes, "sack_every", CT_SIZE, 1, 1ull << 32),
	U(struct conf_mrc, sack_ooo_every, "sack_ooo_every", CT_U32, 1, 64),
	B(struct conf_mrc, rtt_ensemble, "rtt_ensemble"),
	U(struct conf_mrc, skip_hold_ps, "skip_hold", CT_TIME, 0, 10 * PS_PER_S),
	U(struct conf_mrc, probe_backoff_ps, "probe_backoff", CT_TIME, 1, 10 * PS_PER_S),
	B(struct conf_mrc, icrc_outer, "icrc_outer"),
	B(struct conf_mrc, rx_checks, "rx_checks"),
	SEC(struct conf_mrc, dscp, "dscp", dscp_tbl, NULL),
	END
};

static const struct cf traffic_tbl[] = {
	E(struct conf_traffic, pattern, "pattern", conf_pattern_names),
	E(struct conf_traffic, algorithm, "algorithm", conf_algorithm_names),
	{ .name = "sizes", .t = CT_SIZES, .off = offsetof(struct conf_traffic, sizes) },
	E(struct conf_traffic, dtype, "dtype", conf_dtype_names),
	U(struct conf_traffic, iterations, "iterations", CT_U32, 1, 1000000),
	U(struct conf_traffic, warmup, "warmup", CT_U32, 0, 1000000),
	B(struct conf_traffic, verify, "verify"),
	U(struct conf_traffic, ranks, "ranks", CT_U32, 0, 1024 * 1024),
	S(struct conf_traffic, root, "root"),
	END
};

static const struct cf fault_tbl[] = {
	{ .name = "at", .t = CT_TIME, .off = offsetof(struct conf_fault, at_ps), .max = 1000000 *
		PS_PER_S, HAS(struct conf_fault, has_at) },
	{ .name = "at_iteration", .t = CT_U32, .off = offsetof(struct conf_fault, at_iteration),
		.max = 1000000, HAS(struct conf_fault, has_at_iteration) },
	{ .name = "target", .t = CT_NODE, .off = offsetof(struct conf_fault, target),
		.noff = offsetof(struct conf_fault, node) },
	E(struct conf_fault, action, "action", conf_fault_action_names),
	{ .name = "rate", .t = CT_DOUBLE, .off = offsetof(struct conf_fault, rate), .dmin = 0,
		.dmax = 1, HAS(struct conf_fault, has_rate) },
	{ .name = "delay", .t = CT_TIME, .off = offsetof(struct conf_fault, delay_ps), .min = 1,
		.max = 10 * PS_PER_S, HAS(struct conf_fault, has_delay) },
	{ .name = "period", .t = CT_TIME, .off = offsetof(struct conf_fault, period_ps), .min = 1,
		.max = 1000 * PS_PER_S, HAS(struct conf_fault, has_period) },
	{ .name = "duty", .t = CT_DOUBLE, .off = offsetof(struct conf_fault, duty), .dmin = 0,
		.dmax = 1, HAS(struct conf_fault, has_duty) },
	{ .name = "duration", .t = CT_TIME, .off = offsetof(struct conf_fault, duration_ps),
		.min = 1, .max = 1000000 * PS_PER_S, HAS(struct conf_fault, has_duration) },
	E(struct conf_fault, direction, "direction", conf_direction_names),
	END
};

static const struct cf capture_tbl[] = {
	{ .name = "point", .t = CT_NODE, .off = offsetof(struct conf_capture, point),
		.noff = offsetof(struct conf_capture, node) },
	E(struct conf_capture, dir, "dir", conf_cap_dir_names),
	U(struct conf_capture, snaplen, "snaplen", CT_U32, 1, 262144),
	E(struct conf_capture, tsresol, "tsresol", conf_tsresol_names),
	END
};

static const struct cf pct_tbl[] = {
	{ .name = NULL, .t = CT_DOUBLE, .off = 0, .dmin = 0, .dmax = 100 },
};

static const struct cf hist_tbl[] = {
	U(struct conf_hist, lowest_ns, "lowest", CT_TIME_NS, 1, 1ull << 50),
	U(struct conf_hist, highest_ns, "highest", CT_TIME_NS, 2, 1ull << 53),
	U(struct conf_hist, sigfigs, "sigfigs", CT_U32, 1, 5),
	LIST(struct conf_hist, percentiles, n_percentiles, "percentiles", pct_tbl, double, NULL),
	END
};

static const struct cf output_tbl[] = {
	S(struct conf_output, dir, "dir"),
	{ .name = "captures", .t = CT_LIST, .off = offsetof(struct conf_output, captures),
		.noff = offsetof(struct conf_output, n_captures), .sub = capture_tbl,
		.esize = sizeof(struct conf_capture), .check = check_capture,
		.init = init_capture },
	SEC(struct conf_output, hist, "hist", hist_tbl, check_hist),
	B(struct conf_output, report, "report"),
	B(struct conf_output, plots, "plots"),
	B(struct conf_output, hlog, "hlog"),
	END
};

/* Table order is conversion order: the fabric comes before the names that refer to it. */
static const struct cf job_tbl[] = {
	U(struct conf_job, seed, "seed", CT_U64, 0, MAXU64),
	SEC(struct conf_job, fabric, "fabric", fabric_tbl, check_fabric),
	SEC(struct conf_job, mrc, "mrc", mrc_tbl, NULL),
	SEC(struct conf_job, traffic, "traffic", traffic_tbl, check_traffic),
	LIST(struct conf_job, faults, n_faults, "faults", fault_tbl, struct conf_fault,
		check_fault),
	SEC(struct conf_job, output, "output", output_tbl, check_output),
	END
};

static const struct cf sizes_range_tbl[] = {
	U(struct conf_sizes, min, "min", CT_SIZE, 1, 1ull << 40),
	U(struct conf_sizes, max, "max", CT_SIZE, 1, 1ull << 40),
	U(struct conf_sizes, factor, "factor", CT_U32, 2, 1024),
	END
};

static const struct cf size_elem_tbl[] = {
	{ .name = NULL, .t = CT_SIZE, .off = 0, .min = 1, .max = 1ull << 40 },
};

static const struct cf *tbl_find(const struct cf *tbl, const char *name)
{
	for (; tbl->name; tbl++)
		if (strcmp(tbl->name, name) == 0)
			return tbl;
	return NULL;
}

/* ---- freeing through the schema -------------------------------------------------------- */

static void free_fields(const struct cf *tbl, void *base, bool scalar_list);

static void free_field(const struct cf *f, void *base)
{
	char *p = (char *)base + f->off;

	switch (f->t) {
	case CT_STR:
	case CT_NODE:
		free(*(char **)p);
		*(char **)p = NULL;
		break;
	case CT_SECTION:
		free_fields(f->sub, p, false);
		break;
	case CT_LIST: {
		char *arr = *(char **)p;
		size_t *n = (size_t *)((char *)base + f->noff);

		if (f->sub[0].name)
			for (size_t i = 0; arr && i < *n; i++)
				free_fields(f->sub, arr + i * f->esize, false);
		free(arr);
		*(char **)p = NULL;
		*n = 0;
		break;
	}
	case CT_SIZES: {
		struct conf_sizes *s = (struct conf_sizes *)p;

		free(s->list);
		s->list = NULL;
		s->n_list = 0;
		break;
	}
	default:
		break;
	}
}

static void free_fields(const struct cf *tbl, void *base, bool scalar_list)
{
	(void)scalar_list;
	for (; tbl->name; tbl++)
		free_field(tbl, base);
}

void conf_free(struct conf_job *job)
{
	if (!job)
		return;
	free_fields(job_tbl, job, false);
	free(job->source);
	memset(job, 0, sizeof(*job));
}

/* ---- defaults ------------------------------------------------------------------------- */

int conf_defaults(struct conf_job *job)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99, 100 };
	struct conf_fabric *f = &job->fabric;
	struct conf_mrc *m = &job->mrc;
	struct conf_traffic *t = &job->traffic;
	struct conf_output *o = &job->output;

	memset(job, 0, sizeof(*job));
	job->seed = 1;

	f->driver = CONF_DRIVER_SIM;
	f->planes = 8;
	f->t0 = 4;
	f->t1 = 4;
	f->hosts_per_t0 = 4;
	f->link_rate_bps = 100000000000ull;
	f->host_link_delay_ps = 50000;		/* 50 ns: ~10 m of fibre */
	f->fabric_link_delay_ps = 500000;	/* 500 ns: ~100 m */
	f->switch_delay_ps = 500000;		/* 500 ns cut-through-ish pipeline */
	f->buffer_bytes = 1024 * 1024;
	f->ecn_threshold_bytes = 200 * 1024;
	f->ecn_last_hop = false;
	f->trim = true;
	f->trim_size_bytes = 256;
	f->addressing.block = 0xfc000000u;
	f->addressing.usid_plane_bits = 4;
	f->addressing.plan = CONF_PLAN_GENERATED;
	f->addressing.host_prefix[0] = 0xfd;
	f->addressing.host_prefix_len = 64;

	m->transport = CONF_TRANSPORT_MRC;
	m->ev_format = CONF_EV_SRV6;
	m->srh = false;
	m->ev.ev_count = 128;
	m->ev.ev_min_active = 16;
	m->ev.plane = (struct conf_ev_rule){ 0, 0xf, 0, 0xf };
	m->ev.spine = (struct conf_ev_rule){ 0, 0xfff, 0, 0xfff };
	m->ev.salt = (struct conf_ev_rule){ 0, 0xffff, 0, 0xffff };
	m->cc.algorithm = CONF_CC_NSCC;
	m->qp.mpr = 8;
	m->qp.max_wimm = 64;
	m->qp.timeout = 14;
	m->qp.retry_linear = 7;
	m->qp.retry_exp = 7;
	m->mtu = 4096;
	m->reorder_threshold = 1024;
	m->sack_every_bytes = 64 * 1024;
	m->sack_ooo_every = 1;
	m->rtt_ensemble = true;
	m->skip_hold_ps = 0;
	m->probe_backoff_ps = 100000000;	/* 100 us */
	m->icrc_outer = false;
	m->rx_checks = false;
	m->dscp = (struct conf_dscp){ .data = 26, .ctrl = 46, .rtx = 28, .trimmed = 12,
				      .trimmed_lasthop = 13 };

	t->pattern = CONF_PAT_ALLREDUCE;
	t->algorithm = CONF_ALG_RING;
	t->sizes.list = malloc(sizeof(*t->sizes.list));
	t->root = strdup("h0");
	t->dtype = CONF_DT_FLOAT32;
	t->iterations = 10;
	t->warmup = 2;
	t->verify = true;

	o->dir = strdup("out/");
	o->hist.lowest_ns = 1;
	o->hist.highest_ns = 3600000000000ull;
	o->hist.sigfigs = 3;
	o->hist.percentiles = malloc(sizeof(pct));
	o->report = true;
	o->plots = true;
	o->hlog = true;
	if (!t->sizes.list || !t->root || !o->dir || !o->hist.percentiles) {
		conf_free(job);
		return -ENOMEM;
	}
	t->sizes.list[0] = 64ull * 1024 * 1024;
	t->sizes.n_list = 1;
	memcpy(o->hist.percentiles, pct, sizeof(pct));
	o->hist.n_percentiles = sizeof(pct) / sizeof(pct[0]);
	return 0;
}

/* ---- conversion ----------------------------------------------------------------------- */

static const char *kind_name(const struct tnode *t)
{
	return t->kind == T_MAP ? "a mapping" : t->kind == T_SEQ ? "a sequence" : "a scalar";
}

static bool is_null(const struct tnode *t)
{
	return t->kind == T_SCALAR && t->plain && (!*t->s || !strcmp(t->s, "~") ||
		!strcmp(t->s, "null") || !strcmp(t->s, "Null") || !strcmp(t->s, "NULL"));
}

static const char *type_word(enum ctype t)
{
	switch (t) {
	case CT_U8: case CT_U16: case CT_U32: case CT_U64: return "an integer";
	case CT_BOOL: return "true or false";
	case CT_SIZE: return "a size like 4KiB or 1GB";
	case CT_RATE: return "a rate like 100Gbps or 400G";
	case CT_TIME: case CT_TIME_NS: return "a time like 250ps, 2us or 1.5ms";
	case CT_DOUBLE: return "a number";
	default: return "a string";
	}
}

/* YAML 1.2 core float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? (no inf/nan). */
static int parse_double(const char *s, double *out)
{
	const char *p = s;
	bool digits = false;
	char *end;

	if (*p == '-' || *p == '+')
		p++;
	while (*p >= '0' && *p <= '9')
		p++, digits = true;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits = true;
	if (!digits)
		return -EINVAL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return -EINVAL;
	errno = 0;
	*out = strtod(s, &end);
	if (errno == ERANGE || *end)
		return -ERANGE;
	return 0;
}

static void store_uint(enum ctype t, void *p, uint64_t v)
{
	switch (t) {
	case CT_U8: *(uint8_t *)p = (uint8_t)v; break;
	case CT_U16: *(uint16_t *)p = (uint16_t)v; break;
	case CT_U32: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = v; break;
	}
}

static uint64_t load_uint(enum ctype t, const void *p)
{
	switch (t) {
	case CT_U8: return *(const uint8_t *)p;
	case CT_U16: return *(const uint16_t *)p;
	case CT_U32: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

/* Formats @v of type @t for messages and the dump. */
static char *fmt_uint(enum ctype t, uint64_t v, char *buf, size_t len)
{
	switch (t) {
	case CT_SIZE: return conf_fmt_size(v, buf, len);
	case CT_RATE: return conf_fmt_rate(v, buf, len);
	case CT_TIME: return conf_fmt_time(v, buf, len);
	case CT_TIME_NS: return conf_fmt_time(v * 1000, buf, len);
	default:
		snprintf(buf, len, "%" PRIu64, v);
		return buf;
	}
}

static const char *unit_word(enum ctype t)
{
	return t == CT_SIZE ? "bytes" : t == CT_RATE ? "bits per second" :
		t == CT_TIME ? "picoseconds" : "nanoseconds";
}

static int conv_fields(struct ld *ld, const struct tnode *map, const struct cf *tbl, void *base,
	const char *path, check_fn check);

static int conv_block(struct ld *ld, const struct tnode *t, const char *path, uint32_t *out)
{
	struct in6_addr a;
	char cb[64];

	if (inet_pton(AF_INET6, t->s, &a) != 1)
		return TERR(ld, t, path, "expected an IPv6 address '%s'", clip(t->s, cb, 48));
	for (int i = 4; i < 16; i++)
		if (a.s6_addr[i])
			return TERR(ld, t, path, "not a 32-bit uSID block (bits past 32 set) '%s'",
				t->s);
	*out = (uint32_t)a.s6_addr[0] << 24 | (uint32_t)a.s6_addr[1] << 16 |
	       (uint32_t)a.s6_addr[2] << 8 | a.s6_addr[3];
	return 0;
}

_Static_assert(offsetof(struct conf_addressing, host_prefix_len) ==
	offsetof(struct conf_addressing, host_prefix) + 16, "host_prefix_len follows host_prefix");

static int conv_prefix(struct ld *ld, const struct tnode *t, const char *path, uint8_t *addr)
{
	char buf[64], cb[64], *slash;
	struct in6_addr a;
	uint64_t len;

	if (strlen(t->s) >= sizeof(buf))
		return TERR(ld, t, path, "expected an IPv6 prefix like fd00::/64 '%s'",
			clip(t->s, cb, 48));
	strcpy(buf, t->s);
	slash = strchr(buf, '/');
	if (!slash)
		return TERR(ld, t, path, "expected an IPv6 prefix like fd00::/64 '%s'", t->s);
	*slash = '\0';
	if (inet_pton(AF_INET6, buf, &a) != 1 || conf_parse_uint(slash + 1, &len))
		return TERR(ld, t, path, "expected an IPv6 prefix like fd00::/64 '%s'", t->s);
	/* srv6 plan (docs/wire-format.md "SRv6 uSID addressing"): plane:host:1 takes the low 48 bits */
	if (len < 8 || len > 80)
		return TERR(ld, t, path, "prefix length out of range 8..80 '%s'", t->s);
	for (unsigned bit = (unsigned)len; bit < 128; bit++)
		if (a.s6_addr[bit / 8] & (0x80 >> (bit % 8)))
			return TERR(ld, t, path, "host bits set past /%u '%s'", (unsigned)len,
				t->s);
	memcpy(addr, a.s6_addr, 16);
	addr[16] = (uint8_t)len;	/* host_prefix_len follows host_prefix */
	return 0;
}

static int conv_list(struct ld *ld, const struct tnode *t, const struct cf *f, void *base,
	const char *path);

static int conv_sizes(struct ld *ld, const struct tnode *t, const char *path,
	struct conf_sizes *s)
{
	struct conf_sizes tmp = { 0 };
	struct cf lf = { .name = "sizes", .t = CT_LIST, .off = offsetof(struct conf_sizes, list),
			 .noff = offsetof(struct conf_sizes, n_list), .sub = size_elem_tbl,
			 .esize = sizeof(uint64_t) };
	int err;

	if (t->kind == T_MAP) {
		tmp.factor = 2;
		if (!tget(t, "min") || !tget(t, "max"))
			return TERR(ld, t, path, "a size range needs 'min' and 'max'");
		err = conv_fields(ld, t, sizes_range_tbl, &tmp, path, NULL);
		if (err)
			return err;
		if (tmp.min > tmp.max) {
			char a[24], b[24];

			return TERR(ld, tget(t, "max"), path, "max below min '%s' < '%s'",
				conf_fmt_size(tmp.max, a, sizeof(a)),
				conf_fmt_size(tmp.min, b, sizeof(b)));
		}
		tmp.range = true;
	} else if (t->kind == T_SEQ) {
		err = conv_list(ld, t, &lf, &tmp, path);
		if (err)
			return err;
		if (tmp.n_list == 0) {
			free(tmp.list); /* conv_list's one-element allocation */
			return TERR(ld, t, path, "empty list of sizes");
		}
	} else {
		/* One size written as a scalar is a list of one. */
		struct tnode one = { .kind = T_SEQ, .src = t->src, .line = t->line, .col = t->col,
				     .n = 1, .items = (struct tnode **)&t };

		err = conv_list(ld, &one, &lf, &tmp, path);
		if (err)
			return err;
	}
	free(s->list);
	*s = tmp;
	return 0;
}

/* Converts one value @t into the field @f of @base (@path names it). */
static int conv_field(struct ld *ld, const struct tnode *t, const struct cf *f, void *base,
	const char *path)
{
	void *p = (char *)base + f->off;
	char cb[64], lo[24], hi[24];
	uint64_t v;
	int err, iv;

	if (f->t == CT_SECTION) {
		if (t->kind != T_MAP)
			return TERR(ld, t, path, "expected a mapping, got %s", kind_name(t));
		return conv_fields(ld, t, f->sub, p, path, f->check);
	}
	if (f->t == CT_LIST) {
		if (t->kind != T_SEQ)
			return TERR(ld, t, path, "expected a sequence, got %s", kind_name(t));
		return conv_list(ld, t, f, base, path);
	}
	if (f->t == CT_SIZES)
		return conv_sizes(ld, t, path, p);
	if (t->kind != T_SCALAR)
		return TERR(ld, t, path, "expected %s, got %s",
			f->t == CT_ENUM ? "a name" : type_word(f->t), kind_name(t));
	if (is_null(t))
		return TERR(ld, t, path, "missing value");
	if (!t->plain && f->t != CT_STR && f->t != CT_NODE && f->t != CT_BLOCK &&
	    f->t != CT_PREFIX)
		return TERR(ld, t, path, "expected %s, got %s '%s'",
			f->t == CT_ENUM ? "a name" : type_word(f->t),
			t->str_tag ? "a string (tagged !!str)" : "a quoted string", clip(t->s, cb, 48));
	switch (f->t) {
	case CT_U8: case CT_U16: case CT_U32: case CT_U64:
	case CT_SIZE: case CT_RATE: case CT_TIME: case CT_TIME_NS:
		if (f->t == CT_SIZE)
			err = conf_parse_size(t->s, &v);
		else if (f->t == CT_RATE)
			err = conf_parse_rate(t->s, &v);
		else if (f->t == CT_TIME || f->t == CT_TIME_NS)
			err = conf_parse_time(t->s, &v);
		else
			err = conf_parse_uint(t->s, &v);
		if (err == -EDOM && t->s[0] == '-')
			return TERR(ld, t, path, "negative value for an unsigned field '%s'", t->s);
		if (err == -EDOM)
			return TERR(ld, t, path, "not a whole number of %s '%s'", unit_word(f->t),
				t->s);
		if (err == -ERANGE)
			return TERR(ld, t, path, "too large for 64 bits '%s'", clip(t->s, cb, 48));
		if (err)
			return TERR(ld, t, path, "expected %s '%s'", type_word(f->t),
				clip(t->s, cb, 48));
		if (f->t == CT_TIME_NS) {
			if (v % 1000)
				return TERR(ld, t, path, "not a whole number of nanoseconds '%s'",
					t->s);
			v /= 1000;
		}
		if (v < f->min || v > f->max)
			return TERR(ld, t, path, "out of range %s..%s '%s'",
				fmt_uint(f->t, f->min, lo, sizeof(lo)),
				fmt_uint(f->t, f->max, hi, sizeof(hi)), t->s);
		store_uint(f->t, p, v);
		return 0;
	case CT_BOOL:
		if (!strcmp(t->s, "true") || !strcmp(t->s, "True") || !strcmp(t->s, "TRUE"))
			*(bool *)p = true;
		else if (!strcmp(t->s, "false") || !strcmp(t->s, "False") ||
			 !strcmp(t->s, "FALSE"))
			*(bool *)p = false;
		else
			return TERR(ld, t, path, "expected true or false '%s'", clip(t->s, cb, 48));
		return 0;
	case CT_ENUM:
		if (name_lookup(f->names, t->s, &iv)) {
			char list[160] = "";

			for (const struct conf_name *n = f->names; n->name; n++) {
				strncat(list, n->name, sizeof(list) - strlen(list) - 1);
				if (n[1].name)
					strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			}
			return TERR(ld, t, path, "expected one of %s '%s'", list,
				clip(t->s, cb, 48));
		}
		*(int *)p = iv;
		return 0;
	case CT_DOUBLE: {
		double d;

		if (parse_double(t->s, &d))
			return TERR(ld, t, path, "expected a number '%s'", clip(t->s, cb, 48));
		if (!(d >= f->dmin && d <= f->dmax))
			return TERR(ld, t, path, "out of range %g..%g '%s'", f->dmin, f->dmax,
				t->s);
		*(double *)p = d;
		return 0;
	}
	case CT_STR:
	case CT_NODE: {
		char *s;

		if (strlen(t->s) > 4095)
			return TERR(ld, t, path, "longer than 4095 bytes");
		if (f->t == CT_NODE) {
			struct conf_node n;

			err = conf_node_parse(&ld->job->fabric, t->s, &n);
			if (err == -EINVAL)
				return TERR(ld, t, path, "not a node name '%s'",
					clip(t->s, cb, 48));
			if (err)
				return TERR(ld, t, path, "not in the topology '%s'", t->s);
			memcpy((char *)base + f->noff, &n, sizeof(n));
		}
		s = strdup(t->s);
		if (!s)
			return -ENOMEM;
		free(*(char **)p);
		*(char **)p = s;
		return 0;
	}
	case CT_BLOCK:
		return conv_block(ld, t, path, p);
	case CT_PREFIX:
		return conv_prefix(ld, t, path, p);
	default:
		return TERR(ld, t, path, "internal: unhandled field type");
	}
}

static int conv_list(struct ld *ld, const struct tnode *t, const struct cf *f, void *base,
	const char *path)
{
	char **slot = (char **)((char *)base + f->off);
	size_t *nslot = (size_t *)((char *)base + f->noff);
	bool scalar = f->sub[0].name == NULL;
	char sub[CONF_PATH_MAX];
	char *arr;
	int err = 0;

	arr = calloc(t->n ? t->n : 1, f->esize);
	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct tnode *it = t->items[i];
		void *elem = arr + i * f->esize;

		path_idx(sub, path, i);
		if (f->init)
			f->init(elem);
		if (scalar) {
			err = conv_field(ld, it, &f->sub[0], elem, sub);
		} else if (it->kind != T_MAP) {
			err = TERR(ld, it, sub, "expected a mapping, got %s", kind_name(it));
		} else {
			err = conv_fields(ld, it, f->sub, elem, sub, f->check);
		}
		if (err) {
			if (!scalar)
				for (size_t j = 0; j <= i; j++)
					free_fields(f->sub, arr + j * f->esize, false);
			free(arr);
			return err;
		}
	}
	/* Replace the previous (default) list only once the new one is complete. */
	{
		struct cf old = *f;

		free_field(&old, base);
	}
	*slot = arr;
	*nslot = t->n;
	return 0;
}

static int conv_fields(struct ld *ld, const struct tnode *map, const struct cf *tbl, void *base,
	const char *path, check_fn check)
{
	char sub[CONF_PATH_MAX];
	int err;

	for (size_t i = 0; i < map->n; i++) {
		const struct tpair *pr = &map->pairs[i];
		char cb[64];

		/* Top-level "x-..." keys hold anchors for aliases and are otherwise ignored. */
		if (tbl == job_tbl && strncmp(pr->key, "x-", 2) == 0)
			continue;
		if (!tbl_find(tbl, pr->key)) {
			path_key(sub, path, pr->key);
			return lerr(ld, pr->val->src, pr->kline, pr->kcol, sub, "unknown key '%s'",
				clip(pr->key, cb, 48));
		}
	}
	for (const struct cf *f = tbl; f->name; f++) {
		const struct tnode *v = tget(map, f->name);

		if (!v)
			continue;
		path_key(sub, path, f->name);
		err = conv_field(ld, v, f, base, sub);
		if (err)
			return err;
		if (f->has)
			*(bool *)((char *)base + f->hoff) = true;
	}
	return check ? check(ld, map, base, path) : 0;
}

/* ---- cross-field rules ---------------------------------------------------------------- */

/* Where to point an error about @key of @map: the value, else the mapping itself. */
static const struct tnode *at(const struct tnode *map, const char *key)
{
	const struct tnode *v = tget(map, key);

	return v ? v : map;
}

/* A size for messages: conf_fmt_size() with a "B" on bare byte counts ("1B", "4KiB"). */
static char *fmt_bytes(uint64_t v, char *buf, size_t len)
{
	size_t n = strlen(conf_fmt_size(v, buf, len));

	if (n && n + 1 < len && buf[n - 1] >= '0' && buf[n - 1] <= '9')
		strcpy(buf + n, "B");
	return buf;
}

/* The key of @keys (NULL-terminated) first given in @map, else the last one. */
static const char *given(const struct tnode *map, const char *const *keys)
{
	size_t i = 0;

	for (; keys[i + 1]; i++)
		if (tget(map, keys[i]))
			break;
	return keys[i];
}

static int check_fabric(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	static const char *const hk[] = { "hosts_per_t0", "t0", NULL };
	struct conf_fabric *f = obj;
	char sub[CONF_PATH_MAX], a[24], b[24];
	/* srv6 plan (docs/wire-format.md "SRv6 uSID addressing", mrc/engine/srv6.h): the generated plan numbers
	 * nodes 1..2^(14 - b) - 1 per role and plane for b = usid_plane_bits (0 ends a
	 * container): 1023 with docs/wire-format.md's b = 4; an explicit plan takes any 16-bit uSIDs */
	bool gen = f->addressing.plan == CONF_PLAN_GENERATED;
	unsigned pb = f->addressing.usid_plane_bits;
	/* an explicit plan is bounded by its list: every node once, uSIDs unique (per plane
	 * with usid_plane_bits 0) in 16 bits, which the addressing section checks */
	uint32_t hlim = gen ? (1u << (14 - pb)) - 1 : UINT32_MAX;
	uint32_t lim = hlim < 1024 ? hlim : 1024;
	char why[160] = "";

	if (gen)
		snprintf(why, sizeof(why), " (plan generated with usid_plane_bits %u: at most %"
			PRIu32 " per role and plane%s)", pb, hlim, pb ? "; fabric.addressing."
			"usid_plane_bits 0 allows 16383" : "");
	if (f->t0 > lim || f->t1 > lim) {
		const char *k = f->t0 > lim ? "t0" : "t1";

		path_key(sub, path, k);
		return TERR(ld, at(map, k), sub, "out of range 1..%" PRIu32 "%s '%" PRIu32 "'", lim,
			why, f->t0 > lim ? f->t0 : f->t1);
	}
	if (conf_fabric_hosts(f) > hlim) {
		const char *k = given(map, hk);

		path_key(sub, path, k);
		return TERR(ld, at(map, k), sub, "t0 * hosts_per_t0 exceeds %" PRIu32 " hosts%s '%"
			PRIu32 "'", hlim, why, conf_fabric_hosts(f));
	}
	if (f->ecn_threshold_bytes > f->buffer_bytes) {
		/* blame the field that was written: a defaulted one is not where the error is */
		if (tget(map, "ecn_threshold") || !tget(map, "buffer")) {
			path_key(sub, path, "ecn_threshold");
			return TERR(ld, at(map, "ecn_threshold"), sub, "above the buffer (%s) '%s'",
				fmt_bytes(f->buffer_bytes, a, sizeof(a)),
				fmt_bytes(f->ecn_threshold_bytes, b, sizeof(b)));
		}
		path_key(sub, path, "buffer");
		return TERR(ld, tget(map, "buffer"), sub, "below the ecn_threshold (%s) '%s'",
			fmt_bytes(f->ecn_threshold_bytes, a, sizeof(a)),
			fmt_bytes(f->buffer_bytes, b, sizeof(b)));
	}
	return 0;
}

static int check_usid(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_usid_entry *u = obj;

	if (!u->node)
		return TERR(ld, map, path, "missing 'node'");
	if (!tget(map, "usid"))
		return TERR(ld, map, path, "missing 'usid'");
	return 0;
}

/* Dense index of a switch or host port for the coverage check of an explicit plan. */
static long usid_slot(const struct conf_fabric *f, const struct conf_node *n)
{
	long per_plane = (long)f->t0 + f->t1 + conf_fabric_hosts(f);
	long base = (long)n->plane * per_plane;

	switch (n->kind) {
	case CONF_NODE_T0: return base + n->t0;
	case CONF_NODE_T1: return base + f->t0 + n->t1;
	case CONF_NODE_PORT: return base + f->t0 + f->t1 + n->host;
	default: return -1;
	}
}

static int check_addressing(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_addressing *a = obj;
	const struct conf_fabric *f = &ld->job->fabric;
	const struct tnode *list = tget(map, "usids");
	long total = (long)f->planes * ((long)f->t0 + f->t1 + conf_fabric_hosts(f));
	char sub[CONF_PATH_MAX], nb[48];
	uint8_t *seen = NULL, *used = NULL;
	/* usid_plane_bits 0: a uSID space per plane, plane p under block + p (mrc/engine/srv6.h) */
	bool per_plane = a->usid_plane_bits == 0;
	int err = 0;

	if (per_plane && (uint64_t)a->block + f->planes - 1 > UINT32_MAX) {
		path_key(sub, path, "block");
		return TERR(ld, at(map, "block"), sub, "plane %" PRIu32 "'s block (block + plane, "
			"usid_plane_bits 0) passes 32 bits '%x:%x::'", f->planes - 1,
			a->block >> 16, a->block & 0xffff);
	}
	if (a->plan == CONF_PLAN_GENERATED) {
		if (a->n_usids) {
			path_key(sub, path, "usids");
			return TERR(ld, list, sub, "given but plan is 'generated'");
		}
		if (a->usid_plane_bits && f->planes > (1u << a->usid_plane_bits)) {
			path_key(sub, path, "usid_plane_bits");
			return TERR(ld, at(map, "usid_plane_bits"), sub, "%" PRIu32 " planes "
				"do not fit %u plane bits (0 puts the plane in the block) '%u'",
				f->planes, (unsigned)a->usid_plane_bits,
				(unsigned)a->usid_plane_bits);
		}
		return 0;
	}
	if (a->has_usid_plane_bits && !per_plane) {
		path_key(sub, path, "usid_plane_bits");
		return TERR(ld, at(map, "usid_plane_bits"), sub, "with plan 'explicit' only 0 "
			"(uSIDs unique per plane, plane p under block + p) applies '%u'",
			(unsigned)a->usid_plane_bits);
	}
	if (a->n_usids == 0) {
		path_key(sub, path, "usids");
		return TERR(ld, at(map, "plan"), sub, "plan 'explicit' needs the usids list");
	}
	seen = calloc((size_t)total, 1);
	used = calloc(per_plane ? (size_t)f->planes << 16 : 65536, 1); /* [space << 16 | uSID] */
	if (!seen || !used) {
		err = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < a->n_usids; i++) {
		struct conf_usid_entry *u = &a->usids[i];
		long slot = usid_slot(f, &u->n);
		size_t uk;
		const struct tnode *it = list->items[i];

		path_key(sub, path, "usids");
		path_idx(sub, sub, i);
		if (slot < 0) {
			err = TERR(ld, at(it, "node"), sub,
				"node must be a switch or a host port '%s'", u->node);
			goto out_free;
		}
		if (seen[slot]) {
			err = TERR(ld, at(it, "node"), sub, "node given twice '%s'", u->node);
			goto out_free;
		}
		uk = (per_plane ? (size_t)u->n.plane << 16 : 0) | u->usid;
		if (used[uk]) {
			err = TERR(ld, at(it, "usid"), sub, "uSID used twice%s '%u'",
				per_plane ? " in its plane" : "", (unsigned)u->usid);
			goto out_free;
		}
		seen[slot] = 1;
		used[uk] = 1;
	}
	for (long s = 0; s < total; s++) {
		if (!seen[s]) {
			long per = (long)f->t0 + f->t1 + conf_fabric_hosts(f), r = s % per;
			struct conf_node n = { .plane = (uint32_t)(s / per) };

			if (r < f->t0) {
				n.kind = CONF_NODE_T0;
				n.t0 = (uint32_t)r;
			} else if (r < (long)f->t0 + f->t1) {
				n.kind = CONF_NODE_T1;
				n.t1 = (uint32_t)(r - f->t0);
			} else {
				n.kind = CONF_NODE_PORT;
				n.host = (uint32_t)(r - f->t0 - f->t1);
			}
			path_key(sub, path, "usids");
			err = TERR(ld, list, sub, "no uSID for '%s'",
				conf_node_format(&n, nb, sizeof(nb)));
			goto out_free;
		}
	}
out_free:
	free(seen);
	free(used);
	return err;
}

static int check_rule(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_ev_rule *r = obj;
	/* Field widths of the EV layout plane(4) | spine(12) | salt(16), docs/wire-format.md. */
	uint32_t width = strstr(path, "plane") ? 0xf : strstr(path, "spine") ? 0xfff : 0xffff;
	char sub[CONF_PATH_MAX];
	const char *bad = NULL;

	if (r->mask > width)
		bad = "mask";
	else if (r->max > width)
		bad = "max";
	if (bad) {
		path_key(sub, path, bad);
		return TERR(ld, at(map, bad), sub, "wider than the field (max 0x%" PRIx32 ") '%s'",
			width, at(map, bad)->s ? at(map, bad)->s : "");
	}
	if (r->min > r->max) {
		path_key(sub, path, "min");
		return TERR(ld, at(map, "min"), sub, "above max %" PRIu32 " '%" PRIu32 "'", r->max,
			r->min);
	}
	if (r->init < r->min || r->init > r->max) {
		path_key(sub, path, "init");
		return TERR(ld, at(map, "init"), sub, "outside min..max %" PRIu32 "..%" PRIu32
			" '%" PRIu32 "'", r->min, r->max, r->init);
	}
	return 0;
}

static int check_ev(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_ev *e = obj;
	char sub[CONF_PATH_MAX];

	if (e->n_evs) {
		if (tget(map, "ev_count") && e->ev_count != e->n_evs) {
			path_key(sub, path, "ev_count");
			return TERR(ld, tget(map, "ev_count"), sub,
				"differs from the %zu entries of evs '%" PRIu32 "'", e->n_evs,
				e->ev_count);
		}
		if (e->n_evs > 65536) {
			path_key(sub, path, "evs");
			return TERR(ld, tget(map, "evs"), sub, "more than 65536 entries");
		}
		e->ev_count = (uint32_t)e->n_evs;
	}
	if (e->ev_min_active > e->ev_count) {
		path_key(sub, path, "ev_min_active");
		return TERR(ld, at(map, "ev_min_active"), sub, "above ev_count %" PRIu32 " '%" PRIu32
			"'", e->ev_count, e->ev_min_active);
	}
	return 0;
}

/*
 * The collective's program (mrc/coll) and its QPs grow with ranks^2 for a ring all-reduce
 * (2 (ranks - 1) steps a rank, ~120 bytes each) and an all-to-all (ranks - 1 QPs a rank,
 * ~2.5 KB each): past these bounds (8 GB, 10 GB) a job would exhaust memory while it is
 * being set up, so it is refused here, naming what to lower.
 */
#define PROGRAM_STEPS_MAX (1ull << 26)
#define PROGRAM_QPS_MAX (1ull << 22)

static bool program_too_big(struct ld *ld, const struct tnode *map, const char *path,
	const struct conf_traffic *t, uint64_t ranks)
{
	char sub[CONF_PATH_MAX];
	uint64_t n;

	path_key(sub, path, "pattern");
	if (t->pattern == CONF_PAT_ALLREDUCE && t->algorithm == CONF_ALG_RING) {
		n = 2 * ranks * (ranks - 1);
		if (n > PROGRAM_STEPS_MAX) {
			TERR(ld, at(map, "pattern"), sub, "a ring all-reduce over %" PRIu64
				" ranks is %" PRIu64 " steps (2 x ranks x (ranks - 1)), more than "
				"%llu: lower traffic.ranks (at most 5793) or use algorithm tree "
				"'allreduce'", ranks, n, PROGRAM_STEPS_MAX);
			return true;
		}
	}
	if (t->pattern == CONF_PAT_ALLTOALL) {
		n = ranks * (ranks - 1);
		if (n > PROGRAM_QPS_MAX) {
			TERR(ld, at(map, "pattern"), sub, "an all-to-all over %" PRIu64 " ranks "
				"needs %" PRIu64 " QPs (ranks x (ranks - 1)), more than %llu: lower "
				"traffic.ranks (at most 2048) 'alltoall'", ranks, n, PROGRAM_QPS_MAX);
			return true;
		}
	}
	return false;
}

static int check_traffic(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_traffic *t = obj;
	const struct conf_fabric *f = &ld->job->fabric;
	uint32_t hosts = conf_fabric_hosts(f), ranks = t->ranks ? t->ranks : hosts;
	unsigned esz = conf_dtype_size(t->dtype);
	char sub[CONF_PATH_MAX], a[24];
	struct conf_node n;
	bool ok;

	if (!tget(map, "algorithm"))
		t->algorithm = t->pattern == CONF_PAT_ALLREDUCE ? CONF_ALG_RING :
			       t->pattern == CONF_PAT_ALLTOALL ? CONF_ALG_PARALLEL : CONF_ALG_DIRECT;
	switch (t->pattern) {
	case CONF_PAT_ALLREDUCE:
		ok = t->algorithm == CONF_ALG_RING || t->algorithm == CONF_ALG_TREE;
		break;
	case CONF_PAT_ALLTOALL:
		ok = t->algorithm == CONF_ALG_PARALLEL || t->algorithm == CONF_ALG_SHIFT;
		break;
	default:
		ok = t->algorithm == CONF_ALG_DIRECT;
		break;
	}
	if (!ok) {
		path_key(sub, path, "algorithm");
		return TERR(ld, at(map, "algorithm"), sub, "does not apply to pattern %s '%s'",
			conf_name_of(conf_pattern_names, (int)t->pattern),
			conf_name_of(conf_algorithm_names, (int)t->algorithm));
	}
	if (t->ranks > hosts || t->ranks == 1) {
		path_key(sub, path, "ranks");
		return TERR(ld, at(map, "ranks"), sub, "out of range 2..%" PRIu32
			" (0 = all hosts) '%" PRIu32 "'", hosts, t->ranks);
	}
	if (program_too_big(ld, map, path, t, ranks))
		return -EINVAL;
	path_key(sub, path, "root");
	if (conf_node_parse(f, t->root, &n) || n.kind != CONF_NODE_HOST || n.host >= ranks)
		return TERR(ld, at(map, "root"), sub, "not a host among the %" PRIu32 " ranks '%s'",
			ranks, t->root);
	t->root_host = n.host;
	path_key(sub, path, "sizes");
	/* a run measures at most CONF_SIZES_MAX sizes (mrc/sim/run.c) */
	if (conf_sizes_expand(&t->sizes, NULL, 0) > CONF_SIZES_MAX)
		return TERR(ld, at(map, "sizes"), sub, "more than %d sizes '%zu'", CONF_SIZES_MAX,
			conf_sizes_expand(&t->sizes, NULL, 0));
	if (t->sizes.range) {
		if (t->sizes.min % esz)
			return TERR(ld, at(map, "sizes"), sub, "min not a multiple of the %u-byte "
				"%s '%s'", esz, conf_name_of(conf_dtype_names, (int)t->dtype),
				conf_fmt_size(t->sizes.min, a, sizeof(a)));
		/* Every step is min * factor^k, a multiple of min, so of esz too. */
		return 0;
	}
	for (size_t i = 0; i < t->sizes.n_list; i++) {
		if (t->sizes.list[i] % esz) {
			const struct tnode *sz = at(map, "sizes");

			if (sz->kind == T_SEQ && i < sz->n)
				sz = sz->items[i];
			path_idx(sub, sub, i);
			return TERR(ld, sz, sub, "not a multiple of the %u-byte %s '%s'", esz,
				conf_name_of(conf_dtype_names, (int)t->dtype),
				conf_fmt_size(t->sizes.list[i], a, sizeof(a)));
		}
		/* one size measured twice is a typo, and two report rows for one size */
		for (size_t j = 0; j < i; j++) {
			if (t->sizes.list[j] == t->sizes.list[i]) {
				const struct tnode *sz = at(map, "sizes");

				if (sz->kind == T_SEQ && i < sz->n)
					sz = sz->items[i];
				path_idx(sub, sub, i);
				return TERR(ld, sz, sub, "duplicate size (sizes[%zu] is the same) '%s'",
					j, fmt_bytes(t->sizes.list[i], a, sizeof(a)));
			}
		}
	}
	return 0;
}

/* Which parameters an action takes: bit 0 rate, 1 delay, 2 period+duty, 3 duration. */
static unsigned action_params(enum conf_fault_action a)
{
	switch (a) {
	case CONF_FA_LOSS: return 1 | 8;
	case CONF_FA_DELAY: return 2 | 8;
	case CONF_FA_FLAP: return 4 | 8;
	case CONF_FA_DOWN: case CONF_FA_BLACKHOLE: return 8;
	default: return 0;
	}
}

static int check_fault(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	static const struct { const char *key; unsigned bit; } params[] = {
		{ "rate", 1 }, { "delay", 2 }, { "period", 4 }, { "duty", 4 }, { "duration", 8 },
	};
	struct conf_fault *fa = obj;
	const char *act = conf_name_of(conf_fault_action_names, (int)fa->action);
	unsigned allowed = action_params(fa->action);
	char sub[CONF_PATH_MAX];

	if (!fa->target)
		return TERR(ld, map, path, "missing 'target'");
	if (!tget(map, "action"))
		return TERR(ld, map, path, "missing 'action'");
	if (fa->has_at == fa->has_at_iteration)
		return TERR(ld, map, path, "needs exactly one of 'at' and 'at_iteration'");
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		const struct tnode *v = tget(map, params[i].key);
		bool need = allowed & params[i].bit & 7;

		path_key(sub, path, params[i].key);
		if (v && !(allowed & params[i].bit))
			return TERR(ld, v, sub, "does not apply to action %s '%s'", act,
				v->s ? v->s : "");
		if (!v && need)
			return TERR(ld, map, sub, "action %s needs '%s'", act, params[i].key);
	}
	/* what a fault can hit (the simulator's fabric and the wire driver's endpoints) */
	{
		const struct conf_node *n = &fa->node;
		bool link = n->kind == CONF_NODE_LINK_T0_T1 || n->kind == CONF_NODE_LINK_HOST_T0;

		path_key(sub, path, "target");
		if (n->kind == CONF_NODE_HOST)
			return TERR(ld, tget(map, "target"), sub,
				"a whole host cannot be faulted: name its NIC ports (h%u.p0 ...) '%s'",
				n->host, fa->target);
		if (!link && fa->action != CONF_FA_DOWN && fa->action != CONF_FA_UP)
			return TERR(ld, tget(map, "target"), sub,
				"action %s needs a link (p0.t0.1-p0.t1.2, h3.p0-p0.t0.0) '%s'", act,
				fa->target);
		/* "both" is every fault's default (and in every dump); one way needs a link */
		if (!link && fa->direction != CONF_DIR_BOTH) {
			path_key(sub, path, "direction");
			return TERR(ld, tget(map, "direction"), sub,
				"applies to a link target only, not '%s' '%s'", fa->target,
				conf_name_of(conf_direction_names, (int)fa->direction));
		}
		if (fa->action == CONF_FA_BLACKHOLE && n->kind == CONF_NODE_LINK_HOST_T0 &&
			!n->reverse)
			return TERR(ld, tget(map, "target"), sub,
				"a host has no static routes: write the T0 first to blackhole its route "
				"to the port '%s'", fa->target);
	}
	if (fa->action == CONF_FA_FLAP && !(fa->duty > 0 && fa->duty < 1)) {
		path_key(sub, path, "duty");
		return TERR(ld, tget(map, "duty"), sub, "out of range (0..1 exclusive) '%s'",
			tget(map, "duty")->s);
	}
	/* the fabric's down part is this period x duty cut to whole ps (mrc/sim/fabric.c): under
	 * 1 ps down or up would flap nothing (up as period - down: 10ps x 0.1 is 1ps) */
	if (fa->action == CONF_FA_FLAP) {
		double down = (double)fa->period_ps * fa->duty;
		double up = (double)fa->period_ps - down;

		if (down < 1 || up < 1) {
			path_key(sub, path, "period");
			return TERR(ld, tget(map, "period"), sub, "too short for duty %g: %s "
				"(period x %s) is %gps, below 1ps '%s'", fa->duty,
				down < 1 ? "down" : "up", down < 1 ? "duty" : "(1 - duty)",
				down < 1 ? down : up, tget(map, "period")->s);
		}
	}
	return 0;
}

static int check_capture(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_capture *c = obj;

	char sub[CONF_PATH_MAX];

	if (!c->point)
		return TERR(ld, map, path, "missing 'point'");
	/* what the simulator taps (mrc/sim/run.c): a port's or a link end's queue */
	if (c->node.kind != CONF_NODE_PORT && c->node.kind != CONF_NODE_LINK_HOST_T0 &&
	    c->node.kind != CONF_NODE_LINK_T0_T1) {
		path_key(sub, path, "point");
		return TERR(ld, tget(map, "point"), sub, "a capture point is a host NIC port "
			"(h0.p0) or a link (p0.t1.0-p0.t0.0) '%s'", c->point);
	}
	return 0;
}

/* Captures writing the same file (conf_capture_file) would interleave two pcap streams. */
static int check_output(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_output *o = obj;
	const struct tnode *list = tget(map, "captures");
	char sub[CONF_PATH_MAX], a[256], b[256];

	for (size_t i = 1; i < o->n_captures && list && list->kind == T_SEQ; i++) {
		conf_capture_file(&o->captures[i], a, sizeof(a));
		for (size_t j = 0; j < i; j++) {
			if (strcmp(a, conf_capture_file(&o->captures[j], b, sizeof(b))))
				continue;
			path_key(sub, path, "captures");
			path_idx(sub, sub, i);
			path_key(sub, sub, "point");
			return TERR(ld, at(list->items[i], "point"), sub, "already captured by "
				"captures[%zu] (both would write %s) '%s'", j, a,
				o->captures[i].point);
		}
	}
	return 0;
}

static int check_hist(struct ld *ld, const struct tnode *map, void *obj, const char *path)
{
	struct conf_hist *h = obj;
	char sub[CONF_PATH_MAX], a[24];

	if (h->highest_ns < 2 * h->lowest_ns) {
		path_key(sub, path, "highest");
		return TERR(ld, at(map, "highest"), sub, "below 2 * lowest (%s) '%s'",
			conf_fmt_time(2 * h->lowest_ns * 1000, a, sizeof(a)),
			at(map, "highest")->s ? at(map, "highest")->s : "");
	}
	if (h->n_percentiles == 0) {
		path_key(sub, path, "percentiles");
		return TERR(ld, at(map, "percentiles"), sub, "empty list");
	}
	for (size_t i = 1; i < h->n_percentiles; i++) {
		if (h->percentiles[i] <= h->percentiles[i - 1]) {
			const struct tnode *l = at(map, "percentiles");

			path_key(sub, path, "percentiles");
			path_idx(sub, sub, i);
			return TERR(ld, l->kind == T_SEQ ? l->items[i] : l, sub,
				"not ascending '%g'", h->percentiles[i]);
		}
	}
	return 0;
}

/* ---- --set ------------------------------------------------------------------------------ */

/* Marks every node of @t as coming from the --set argument @src. */
static void tmark(struct tnode *t, const char *src)
{
	t->src = src;
	t->line = 0;
	t->col = 0;
	for (size_t i = 0; i < t->n; i++)
		tmark(t->kind == T_MAP ? t->pairs[i].val : t->items[i], src);
	if (t->kind == T_MAP)
		for (size_t i = 0; i < t->n; i++)
			t->pairs[i].kline = t->pairs[i].kcol = 0;
}

static int map_add(struct tnode *map, const char *key, struct tnode *val)
{
	struct tpair *np = realloc(map->pairs, (map->n + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	map->pairs = np;
	np[map->n].key = strdup(key);
	if (!np[map->n].key)
		return -ENOMEM;
	np[map->n].kline = np[map->n].kcol = 0;
	np[map->n].val = val;
	map->n++;
	return 0;
}

/*
 * Applies one "a.b[2].c=VALUE" to @root. The path is checked against the schema as it is
 * walked, so an unknown key is named at once; VALUE is parsed as YAML.
 */
static int apply_set(struct ld *ld, struct tnode *root, const char *src, const char *arg)
{
	const char *eq = strchr(arg, '=');
	const struct cf *tbl = job_tbl, *f = NULL;
	char seg[128], done[CONF_PATH_MAX] = "";
	struct tnode *cur = root, *val = NULL, **slot = NULL;
	const char *p = arg;
	bool in_sizes = false;
	int err;

	if (!eq || eq == arg)
		return lerr(ld, src, 0, 0, "", "expected KEY=VALUE");
	err = tparse(ld, src, eq + 1, strlen(eq + 1), &val);
	if (err)
		return err;
	if (!val) {
		val = tnew(ld, T_SCALAR, src, 0, 0);
		if (!val || !(val->s = strdup(""))) {
			tfree(val);
			return -ENOMEM;
		}
		val->plain = true;
	}
	tmark(val, src);
	while (p < eq) {
		size_t n = strcspn(p, ".[=");
		struct tnode *next;

		if (n == 0 || n >= sizeof(seg)) {
			err = lerr(ld, src, 0, 0, "", "bad key path '%.*s'", (int)(eq - arg), arg);
			goto out_err;
		}
		memcpy(seg, p, n);
		seg[n] = '\0';
		p += n;
		path_key(done, done, seg);
		if (!in_sizes) {
			f = tbl ? tbl_find(tbl, seg) : NULL;
			if (!f) {
				err = lerr(ld, src, 0, 0, done, "unknown key '%s'", seg);
				goto out_err;
			}
			in_sizes = f->t == CT_SIZES;
			tbl = f->t == CT_SECTION || f->t == CT_LIST ? f->sub : NULL;
		}
		if (cur->kind != T_MAP) {
			err = lerr(ld, src, 0, 0, done, "parent is %s, not a mapping",
				kind_name(cur));
			goto out_err;
		}
		next = tget(cur, seg);
		if (!next) {
			next = tnew(ld, *p == '[' ? T_SEQ : T_MAP, src, 0, 0);
			if (!next || map_add(cur, seg, next)) {
				tfree(next);
				err = -ENOMEM;
				goto out_err;
			}
		}
		for (size_t i = 0; i < cur->n; i++)
			if (cur->pairs[i].val == next)
				slot = &cur->pairs[i].val;
		cur = next;
		while (*p == '[') {
			uint64_t idx;
			char num[24];
			size_t k = strcspn(p + 1, "]");

			if (p[1 + k] != ']' || k == 0 || k >= sizeof(num)) {
				err = lerr(ld, src, 0, 0, done, "bad index");
				goto out_err;
			}
			memcpy(num, p + 1, k);
			num[k] = '\0';
			p += k + 2;
			if (conf_parse_uint(num, &idx) || cur->kind != T_SEQ || idx > cur->n ||
			    !(f->t == CT_LIST || in_sizes)) {
				err = lerr(ld, src, 0, 0, done, "no element [%s] to set", num);
				goto out_err;
			}
			path_idx(done, done, (size_t)idx);
			if (idx == cur->n) {
				/* One past the end appends an element. */
				struct tnode **ni = realloc(cur->items, (cur->n + 1) * sizeof(*ni));

				if (!ni) {
					err = -ENOMEM;
					goto out_err;
				}
				cur->items = ni;
				ni[cur->n] = tnew(ld, f->sub && f->sub[0].name ? T_MAP : T_SCALAR,
					src, 0, 0);
				if (!ni[cur->n] || (ni[cur->n]->kind == T_SCALAR &&
						    !(ni[cur->n]->s = strdup("")))) {
					err = -ENOMEM;
					goto out_err;
				}
				cur->n++;
			}
			slot = &cur->items[idx];
			cur = *slot;
			if (f->t == CT_LIST && f->sub[0].name == NULL)
				tbl = NULL;
		}
		if (*p == '.')
			p++;
		else if (p != eq) {
			err = lerr(ld, src, 0, 0, "", "bad key path '%.*s'", (int)(eq - arg), arg);
			goto out_err;
		}
	}
	tfree(*slot);
	*slot = val;
	return 0;
out_err:
	tfree(val);
	return err;
}

/* ---- load ------------------------------------------------------------------------------ */

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The node that @key ("a.b[2].c") names in @root, or the deepest one on its path that
 * exists; NULL when not even the first key was written.
 */
static const struct tnode *tfind(const struct tnode *root, const char *key)
{
	const struct tnode *cur = root, *last = NULL;
	const char *p = key;

	while (*p && cur) {
		size_t n = strcspn(p, ".[");

		if (n) {
			char seg[128];

			if (n >= sizeof(seg))
				break;
			memcpy(seg, p, n);
			seg[n] = '\0';
			cur = tget(cur, seg);
			p += n;
		} else if (*p == '[') {
			char *end;
			unsigned long i = strtoul(p + 1, &end, 10);

			if (*end != ']')
				break;
			cur = cur->kind == T_SEQ && i < cur->n ? cur->items[i] : NULL;
			p = end + 1;
		} else {
			break;
		}
		if (*p == '.')
			p++;
		if (cur)
			last = cur;
	}
	return last;
}

/* Runs @check on @job, placing its error at the key it names (conf_load_checked()). */
static int run_check(struct ld *ld, const struct tnode *root, conf_check_fn check,
	const struct conf_job *job)
{
	char key[CONF_PATH_MAX] = "", msg[512] = "";
	const struct tnode *t;
	int ret = check(job, key, sizeof(key), msg, sizeof(msg));

	if (!ret || ret == -ENOMEM)
		return ret;
	t = tfind(root, key);
	if (!t)
		return lerr(ld, ld->src, 0, 0, key, "%s", msg);
	return TERR(ld, t, key, "%s", msg);
}

static int load_string(const char *text, size_t len, const char *name, const char *const *sets,
	size_t n_sets, conf_check_fn check, struct conf_job *job, char *err, size_t errlen)
{
	struct ld ld = { .src = name, .err = err, .errlen = errlen, .budget = CONF_NODE_LIMIT };
	struct conf_job tmp;
	struct tnode *root = NULL;
	char **srcs = NULL;	/* "--set K=V", named by the nodes the overrides made */
	int ret;

	memset(job, 0, sizeof(*job));
	if (errlen)
		err[0] = '\0';
	ret = conf_defaults(&tmp);
	if (ret)
		return ret;
	ld.job = &tmp;
	ret = tparse(&ld, name, text, len, &root);
	if (ret)
		goto out_free;
	if (!root) {	/* an empty or truncated file is a mistake; "{}" asks for the defaults */
		ret = lerr(&ld, name, 0, 0, "", "empty config: no YAML document (write {} to "
			"get every default)");
		goto out_free;
	}
	if (root->kind != T_MAP) {
		ret = TERR(&ld, root, "", "expected a mapping at the top, got %s", kind_name(root));
		goto out_free;
	}
	srcs = calloc(n_sets ? n_sets : 1, sizeof(*srcs));
	if (!srcs) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < n_sets; i++) {
		if (asprintf(&srcs[i], "--set %s", sets[i]) < 0) {
			srcs[i] = NULL;
			ret = -ENOMEM;
			goto out_free;
		}
		ret = apply_set(&ld, root, srcs[i], sets[i]);
		if (ret)
			goto out_free;
	}
	ret = conv_fields(&ld, root, job_tbl, &tmp, "", NULL);
	if (!ret && check)
		ret = run_check(&ld, root, check, &tmp);
	if (ret)
		goto out_free;
	tmp.source = strdup(name);
	if (!tmp.source) {
		ret = -ENOMEM;
		goto out_free;
	}
	tfree(root);
	free_strs(srcs, n_sets);
	*job = tmp;
	return 0;
out_free:
	if (ret == -ENOMEM && errlen)
		snprintf(err, errlen, "%s: load: out of memory", name);
	tfree(root);
	free_strs(srcs, n_sets);
	conf_free(&tmp);
	return ret;
}

int conf_load_string(const char *text, size_t len, const char *name, const char *const *sets,
	size_t n_sets, struct conf_job *job, char *err, size_t errlen)
{
	return load_string(text, len, name, sets, n_sets, NULL, job, err, errlen);
}

int conf_load_string_checked(const char *text, size_t len, const char *name,
	const char *const *sets, size_t n_sets, conf_check_fn check, struct conf_job *job,
	char *err, size_t errlen)
{
	return load_string(text, len, name, sets, n_sets, check, job, err, errlen);
}

int conf_load(const char *path, const char *const *sets, size_t n_sets, struct conf_job *job,
	char *err, size_t errlen)
{
	return conf_load_checked(path, sets, n_sets, NULL, job, err, errlen);
}

int conf_load_checked(const char *path, const char *const *sets, size_t n_sets,
	conf_check_fn check, struct conf_job *job, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0, cap = 0;
	FILE *f;
	int ret;

	memset(job, 0, sizeof(*job));
	f = fopen(path, "rb");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: open: %s", path, strerror(errno));
		return ret;
	}
	for (;;) {
		char *nt;
		size_t got;

		if (len > 64u << 20) {
			fclose(f);
			free(text);
			snprintf(err, errlen, "%s: read: larger than 64 MiB", path);
			return -EFBIG;
		}
		if (cap - len < 65536) {	/* doubling: a 64 MiB stream is not copied 1000 times */
			cap = cap ? 2 * cap : 65536;
			nt = realloc(text, cap);
			if (!nt) {
				fclose(f);
				free(text);
				return -ENOMEM;
			}
			text = nt;
		}
		errno = 0;
		got = fread(text + len, 1, 65536, f);
		len += got;
		if (got < 65536)
			break;
	}
	if (ferror(f)) {
		ret = errno ? -errno : -EIO;	/* EISDIR for a directory */
		fclose(f);
		free(text);
		snprintf(err, errlen, "%s: read: %s", path, strerror(-ret));
		return ret;
	}
	fclose(f);
	ret = load_string(text, len, path, sets, n_sets, check, job, err, errlen);
	free(text);
	return ret;
}

/* ---- dump ------------------------------------------------------------------------------- */

static void dump_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void dump_double(FILE *f, double d)
{
	char buf[40];

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	fputs(buf, f);
}

static void dump_scalar(FILE *f, const struct cf *fd, const void *base)
{
	const char *p = (const char *)base + fd->off;
	char buf[64];

	switch (fd->t) {
	case CT_U8: case CT_U16: case CT_U32: case CT_U64:
	case CT_SIZE: case CT_RATE: case CT_TIME: case CT_TIME_NS:
		fputs(fmt_uint(fd->t, load_uint(fd->t, p), buf, sizeof(buf)), f);
		break;
	case CT_BOOL:
		fputs(*(const bool *)p ? "true" : "false", f);
		break;
	case CT_ENUM:
		fputs(conf_name_of(fd->names, *(const int *)p), f);
		break;
	case CT_DOUBLE:
		dump_double(f, *(const double *)p);
		break;
	case CT_STR:
	case CT_NODE:
		dump_str(f, *(char *const *)p ? *(char *const *)p : "");
		break;
	case CT_BLOCK: {
		uint32_t b = *(const uint32_t *)p;

		fprintf(f, "\"%x:%x::\"", b >> 16, b & 0xffff);
		break;
	}
	case CT_PREFIX:
		inet_ntop(AF_INET6, p, buf, sizeof(buf));
		fprintf(f, "\"%s/%u\"", buf, (unsigned)((const uint8_t *)p)[16]);
		break;
	default:
		break;
	}
}

static void dump_fields(FILE *f, const struct cf *tbl, const void *base, int ind, bool first_inl);

static void dump_field(FILE *f, const struct cf *fd, const void *base, int ind)
{
	const char *p = (const char *)base + fd->off;

	if (fd->has && !*(const bool *)((const char *)base + fd->hoff))
		return;
	fprintf(f, "%*s%s:", ind, "", fd->name);
	if (fd->t == CT_SECTION) {
		fputc('\n', f);
		dump_fields(f, fd->sub, p, ind + 2, false);
	} else if (fd->t == CT_LIST || fd->t == CT_SIZES) {
		const char *arr;
		size_t n;
		const struct cf *el;
		size_t esz;

		if (fd->t == CT_SIZES) {
			const struct conf_sizes *s = (const void *)p;
			char a[24], b[24];

			if (s->range) {
				fprintf(f, " {min: %s, max: %s, factor: %" PRIu32 "}\n",
					conf_fmt_size(s->min, a, sizeof(a)),
					conf_fmt_size(s->max, b, sizeof(b)), s->factor);
				return;
			}
			arr = (const char *)s->list;
			n = s->n_list;
			el = size_elem_tbl;
			esz = sizeof(uint64_t);
		} else {
			arr = *(char *const *)p;
			n = *(const size_t *)((const char *)base + fd->noff);
			el = fd->sub;
			esz = fd->esize;
		}
		if (n == 0) {
			fputs(" []\n", f);
		} else if (el[0].name == NULL) {
			fputs(" [", f);
			for (size_t i = 0; i < n; i++) {
				if (i)
					fputs(", ", f);
				dump_scalar(f, &el[0], arr + i * esz);
			}
			fputs("]\n", f);
		} else {
			fputc('\n', f);
			for (size_t i = 0; i < n; i++) {
				fprintf(f, "%*s- ", ind + 2, "");
				dump_fields(f, el, arr + i * esz, ind + 4, true);
			}
		}
	} else {
		fputc(' ', f);
		dump_scalar(f, fd, base);
		fputc('\n', f);
	}
}

static void dump_fields(FILE *f, const struct cf *tbl, const void *base, int ind, bool first_inl)
{
	for (; tbl->name; tbl++) {
		if (first_inl && !(tbl->has && !*(const bool *)((const char *)base + tbl->hoff))) {
			dump_field(f, tbl, base, 0);
			first_inl = false;
			continue;
		}
		dump_field(f, tbl, base, ind);
	}
}

int conf_dump(const struct conf_job *job, FILE *f)
{
	fprintf(f, "# effective mrcgen configuration%s%s\n", job->source ? " of " : "",
		job->source ? job->source : "");
	dump_fields(f, job_tbl, job, 0, false);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* ---- command-line options ----------------------------------------------------------------- */

void conf_args_free(struct conf_args *a)
{
	free(a->sets);
	free(a->rest);
	free(a->out_set);
	memset(a, 0, sizeof(*a));
}

int conf_args_parse(int argc, char **argv, struct conf_args *a, char *err, size_t errlen)
{
	memset(a, 0, sizeof(*a));
	a->sets = calloc((size_t)argc + 1, sizeof(*a->sets));
	a->rest = calloc((size_t)argc + 1, sizeof(*a->rest));
	if (!a->sets || !a->rest) {
		conf_args_free(a);
		return -ENOMEM;
	}
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		bool is_set = false, is_out = false;

		if (!strcmp(arg, "--set") || !strcmp(arg, "-o") || !strcmp(arg, "--out")) {
			is_set = arg[2] == 's';
			is_out = !is_set;
			if (i + 1 >= argc) {
				snprintf(err, errlen, "%s: missing value", arg);
				conf_args_free(a);
				return -EINVAL;
			}
			val = argv[++i];
		} else if (!strncmp(arg, "--set=", 6)) {
			is_set = true;
			val = arg + 6;
		} else if (!strncmp(arg, "--out=", 6)) {
			is_out = true;
			val = arg + 6;
		} else if (!strcmp(arg, "--")) {
			while (++i < argc)
				a->rest[a->n_rest++] = argv[i];
			break;
		} else {
			a->rest[a->n_rest++] = arg;
			continue;
		}
		if (is_set) {
			const char *eq = strchr(val, '=');

			if (!eq || eq == val) {
				snprintf(err, errlen, "--set: expected KEY=VALUE '%s'", val);
				conf_args_free(a);
				return -EINVAL;
			}
			a->sets[a->n_sets++] = val;
		} else if (is_out) {
			if (!*val) {
				snprintf(err, errlen, "--out: empty directory name");
				conf_args_free(a);
				return -EINVAL;
			}
			free(a->out_set);
			a->out_set = NULL;
			if (strchr(val, '\'')) {
				snprintf(err, errlen, "--out: a quote in the name '%s'", val);
				conf_args_free(a);
				return -EINVAL;
			}
			/* Quoted, so that any directory name stays a YAML string. */
			if (asprintf(&a->out_set, "output.dir='%s'", val) < 0) {
				a->out_set = NULL;
				conf_args_free(a);
				return -ENOMEM;
			}
		}
	}
	/* The --out override goes last so that it wins over a --set output.dir. */
	if (a->out_set)
		a->sets[a->n_sets++] = a->out_set;
	return 0;
}
