/* SPDX-License-Identifier: BSD-2-Clause */
/* conf/convert: the tree converted into struct conf_job by the schema tables, field by field. */
#include "conf/conf.h"
#include "conf/conf_int.h"
#include "conf/units.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- conversion ----------------------------------------------------------------------- */

const char *conf_kind_name(const struct tnode *t)
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

/* A YAML 1.2 core schema boolean: 1 (true, True, TRUE), 0 (false, False, FALSE), else -1. */
static int yaml_bool(const char *s)
{
	if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))
		return 1;
	if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))
		return 0;
	return -1;
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

uint64_t conf_load_uint(enum ctype t, const void *p)
{
	switch (t) {
	case CT_U8: return *(const uint8_t *)p;
	case CT_U16: return *(const uint16_t *)p;
	case CT_U32: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

/* Formats @v of type @t for messages and the dump. */
char *conf_fmt_uint(enum ctype t, uint64_t v, char *buf, size_t len)
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

static int conv_block(struct ld *ld, const struct tnode *t, const char *path, uint32_t *out)
{
	struct in6_addr a;
	char cb[64];

	if (inet_pton(AF_INET6, t->s, &a) != 1)
		return TERR(ld, t, path, "expected an IPv6 address '%s'", conf_clip(t->s, cb, 48));
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
			conf_clip(t->s, cb, 48));
	strcpy(buf, t->s);
	slash = strchr(buf, '/');
	if (!slash)
		return TERR(ld, t, path, "expected an IPv6 prefix like fd00::/64 '%s'", t->s);
	*slash = '\0';
	if (inet_pton(AF_INET6, buf, &a) != 1 || conf_parse_uint(slash + 1, &len))
		return TERR(ld, t, path, "expected an IPv6 prefix like fd00::/64 '%s'", t->s);
	/* srv6 plan (docs/wire-format.md "SRv6 uSID addressing"): plane:host:1 takes the low 48
	 * bits */
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
			 .noff = offsetof(struct conf_sizes, n_list), .sub = conf_size_elem_tbl,
			 .esize = sizeof(uint64_t) };
	int err;

	if (t->kind == T_MAP) {
		tmp.factor = 2;
		if (!conf_tget(t, "min") || !conf_tget(t, "max"))
			return TERR(ld, t, path, "a size range needs 'min' and 'max'");
		err = conf_conv_fields(ld, t, conf_sizes_range_tbl, &tmp, path, NULL);
		if (err)
			return err;
		if (tmp.min > tmp.max) {
			char a[24], b[24];

			return TERR(ld, conf_tget(t, "max"), path, "max below min '%s' < '%s'",
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

/*
 * traffic: one job (a mapping, into job->traffic) or a list of jobs (the first into
 * job->traffic, the others into job->more_traffic, each from the defaults), then the rules
 * across jobs (conf_check_jobs). @base is the job.
 */
static int conv_jobs(struct ld *ld, const struct tnode *t, const struct cf *f, void *base,
	const char *path)
{
	struct conf_job *j = base;
	struct conf_traffic *arr;
	char sub[CONF_PATH_MAX];
	int err = 0;

	if (t->kind == T_MAP) {
		struct tnode one = { .kind = T_SEQ, .src = t->src, .line = t->line, .col = t->col,
				     .n = 1, .items = (struct tnode **)&t };

		j->traffic_list = false;
		err = conf_conv_fields(ld, t, f->sub, &j->traffic, path, f->check);
		return err ?: conf_check_jobs(ld, &one, j, path);
	}
	if (t->kind != T_SEQ)
		return TERR(ld, t, path, "expected a mapping (one job) or a sequence of them, "
			"got %s", conf_kind_name(t));
	if (t->n == 0)
		return TERR(ld, t, path, "an empty list of jobs");
	arr = calloc(t->n, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	for (size_t i = 0; i < t->n && !err; i++) {
		conf_path_idx(sub, path, i);
		err = conf_traffic_defaults(&arr[i]);
		if (!err && t->items[i]->kind != T_MAP)
			err = TERR(ld, t->items[i], sub, "expected a mapping, got %s",
				conf_kind_name(t->items[i]));
		err = err ?: conf_conv_fields(ld, t->items[i], f->sub, &arr[i], sub, f->check);
	}
	if (err) {
		for (size_t i = 0; i < t->n; i++)
			conf_free_fields(f->sub, &arr[i], false);
		free(arr);
		return err;
	}
	conf_free_fields(f->sub, &j->traffic, false);
	for (size_t i = 0; i < j->n_more_traffic; i++)
		conf_free_fields(f->sub, &j->more_traffic[i], false);
	free(j->more_traffic);
	j->traffic = arr[0];
	j->more_traffic = NULL;
	j->n_more_traffic = t->n - 1;
	if (t->n > 1) {
		memmove(arr, arr + 1, (t->n - 1) * sizeof(*arr));
		j->more_traffic = arr;
	} else {
		free(arr);
	}
	j->traffic_list = true;
	return conf_check_jobs(ld, t, j, path);
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
			return TERR(ld, t, path, "expected a mapping, got %s", conf_kind_name(t));
		return conf_conv_fields(ld, t, f->sub, p, path, f->check);
	}
	if (f->t == CT_JOBS)
		return conv_jobs(ld, t, f, base, path);
	if (f->t == CT_LIST) {
		if (t->kind != T_SEQ)
			return TERR(ld, t, path, "expected a sequence, got %s", conf_kind_name(t));
		return conv_list(ld, t, f, base, path);
	}
	if (f->t == CT_SIZES)
		return conv_sizes(ld, t, path, p);
	if (t->kind != T_SCALAR)
		return TERR(ld, t, path, "expected %s, got %s",
			f->t == CT_ENUM ? "a name" : type_word(f->t), conf_kind_name(t));
	if (is_null(t))
		return TERR(ld, t, path, "missing value");
	if (!t->plain && f->t != CT_STR && f->t != CT_NODE && f->t != CT_BLOCK &&
	    f->t != CT_PREFIX)
		return TERR(ld, t, path, "expected %s, got %s '%s'",
			f->t == CT_ENUM ? "a name" : type_word(f->t),
			t->str_tag ? "a string (tagged !!str)" : "a quoted string",
			conf_clip(t->s, cb, 48));
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
			return TERR(ld, t, path, "too large for 64 bits '%s'",
				conf_clip(t->s, cb, 48));
		if (err)
			return TERR(ld, t, path, "expected %s '%s'", type_word(f->t),
				conf_clip(t->s, cb, 48));
		if (f->t == CT_TIME_NS) {
			if (v % 1000)
				return TERR(ld, t, path, "not a whole number of nanoseconds '%s'",
					t->s);
			v /= 1000;
		}
		if (v < f->min || v > f->max)
			return TERR(ld, t, path, "out of range %s..%s '%s'",
				conf_fmt_uint(f->t, f->min, lo, sizeof(lo)),
				conf_fmt_uint(f->t, f->max, hi, sizeof(hi)), t->s);
		store_uint(f->t, p, v);
		return 0;
	case CT_BOOL:
		if (yaml_bool(t->s) < 0)
			return TERR(ld, t, path, "expected true or false '%s'",
				conf_clip(t->s, cb, 48));
		*(bool *)p = yaml_bool(t->s) == 1;
		return 0;
	case CT_ENUM:
		if (f->bools && yaml_bool(t->s) >= 0) {
			*(int *)p = yaml_bool(t->s);
			return 0;
		}
		if (conf_name_lookup(f->names, t->s, &iv)) {
			char list[160] = "";

			for (const struct conf_name *n = f->names; n->name; n++) {
				strncat(list, n->name, sizeof(list) - strlen(list) - 1);
				if (n[1].name)
					strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			}
			return TERR(ld, t, path, "expected one of %s '%s'", list,
				conf_clip(t->s, cb, 48));
		}
		*(int *)p = iv;
		return 0;
	case CT_DOUBLE: {
		double d;

		if (parse_double(t->s, &d))
			return TERR(ld, t, path, "expected a number '%s'", conf_clip(t->s, cb, 48));
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
					conf_clip(t->s, cb, 48));
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

		conf_path_idx(sub, path, i);
		if (f->init)
			f->init(elem);
		if (scalar) {
			err = conv_field(ld, it, &f->sub[0], elem, sub);
		} else if (it->kind != T_MAP) {
			err = TERR(ld, it, sub, "expected a mapping, got %s", conf_kind_name(it));
		} else {
			err = conf_conv_fields(ld, it, f->sub, elem, sub, f->check);
		}
		if (err) {
			if (!scalar)
				for (size_t j = 0; j <= i; j++)
					conf_free_fields(f->sub, arr + j * f->esize, false);
			free(arr);
			return err;
		}
	}
	/* Replace the previous (default) list only once the new one is complete. */
	{
		struct cf old = *f;

		conf_free_field(&old, base);
	}
	*slot = arr;
	*nslot = t->n;
	return 0;
}

int conf_conv_fields(struct ld *ld, const struct tnode *map, const struct cf *tbl, void *base,
	const char *path, check_fn check)
{
	char sub[CONF_PATH_MAX];
	int err;

	for (size_t i = 0; i < map->n; i++) {
		const struct tpair *pr = &map->pairs[i];
		char cb[64];

		/* Top-level "x-..." keys hold anchors for aliases and are otherwise ignored. */
		if (tbl == conf_job_tbl && strncmp(pr->key, "x-", 2) == 0)
			continue;
		if (!conf_tbl_find(tbl, pr->key)) {
			conf_path_key(sub, path, pr->key);
			return conf_lerr(ld, pr->val->src, pr->kline, pr->kcol, sub,
				"unknown key '%s'", conf_clip(pr->key, cb, 48));
		}
	}
	for (const struct cf *f = tbl; f->name; f++) {
		const struct tnode *v = conf_tget(map, f->name);
		/* An absent section with rules is checked as "section: {}" (its defaults), so
		 * that a limit holds whether or not the section is written: a config's dump,
		 * which writes every section, loads as the config did. Errors point at @map. */
		struct tnode empty = { .kind = T_MAP, .src = map->src, .line = map->line,
			.col = map->col };

		if (!v && (f->t == CT_SECTION || f->t == CT_JOBS) && f->check)
			v = &empty;
		if (!v)
			continue;
		conf_path_key(sub, path, f->name);
		err = conv_field(ld, v, f, base, sub);
		if (err)
			return err;
		if (f->has && v != &empty)
			*(bool *)((char *)base + f->hoff) = true;
	}
	return check ? check(ld, map, base, path) : 0;
}
