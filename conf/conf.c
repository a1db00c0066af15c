/* SPDX-License-Identifier: BSD-2-Clause */
/* conf: strict YAML job loader (libyaml), --set overrides and the YAML dump. */
#include "conf/conf.h"
#include "conf/conf_int.h"
#include "conf/units.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * Loading goes in three steps so that nothing half-loaded is ever used:
 * 1. libyaml builds its document; conf/tree.c copies it into our own tree (struct tnode),
 *    expanding aliases under a node budget (C14.3) and rejecting duplicate keys (C14.1);
 * 2. --set overrides are parsed as YAML and grafted into the tree (here), checked against
 *    the schema tables (conf/schema.c);
 * 3. the tree is converted into a defaulted struct conf_job by the same schema tables
 *    (conf/convert.c, then the cross-field rules of conf/rules.c) that conf_dump() below
 *    prints from, so the dump loads back to the same struct.
 */

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
	const struct cf *tbl = conf_job_tbl, *f = NULL;
	char seg[128], done[CONF_PATH_MAX] = "";
	struct tnode *cur = root, *val = NULL, **slot = NULL;
	const char *p = arg;
	bool in_sizes = false;
	int err;

	if (!eq || eq == arg)
		return conf_lerr(ld, src, 0, 0, "", "expected KEY=VALUE");
	err = conf_tparse(ld, src, eq + 1, strlen(eq + 1), &val);
	if (err)
		return err;
	if (!val) {
		val = conf_tnew(ld, T_SCALAR, src, 0, 0);
		if (!val || !(val->s = strdup(""))) {
			conf_tfree(val);
			return -ENOMEM;
		}
		val->plain = true;
	}
	tmark(val, src);
	while (p < eq) {
		size_t n = strcspn(p, ".[=");
		struct tnode *next;

		if (n == 0 || n >= sizeof(seg)) {
			err = conf_lerr(ld, src, 0, 0, "", "bad key path '%.*s'", (int)(eq - arg),
				arg);
			goto out_err;
		}
		memcpy(seg, p, n);
		seg[n] = '\0';
		p += n;
		conf_path_key(done, done, seg);
		if (!in_sizes) {
			f = tbl ? conf_tbl_find(tbl, seg) : NULL;
			if (!f) {
				err = conf_lerr(ld, src, 0, 0, done, "unknown key '%s'", seg);
				goto out_err;
			}
			in_sizes = f->t == CT_SIZES;
			tbl = f->t == CT_SECTION || f->t == CT_LIST || f->t == CT_JOBS ? f->sub :
									       NULL;
		}
		if (cur->kind != T_MAP) {
			err = conf_lerr(ld, src, 0, 0, done, "parent is %s, not a mapping",
				conf_kind_name(cur));
			goto out_err;
		}
		next = conf_tget(cur, seg);
		if (!next) {
			next = conf_tnew(ld, *p == '[' ? T_SEQ : T_MAP, src, 0, 0);
			if (!next || map_add(cur, seg, next)) {
				conf_tfree(next);
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
				err = conf_lerr(ld, src, 0, 0, done, "bad index");
				goto out_err;
			}
			memcpy(num, p + 1, k);
			num[k] = '\0';
			p += k + 2;
			if (conf_parse_uint(num, &idx) || cur->kind != T_SEQ || idx > cur->n ||
			    !(f->t == CT_LIST || f->t == CT_JOBS || in_sizes)) {
				err = conf_lerr(ld, src, 0, 0, done, "no element [%s] to set", num);
				goto out_err;
			}
			conf_path_idx(done, done, (size_t)idx);
			if (idx == cur->n) {
				/* One past the end appends an element. */
				struct tnode **ni = realloc(cur->items, (cur->n + 1) * sizeof(*ni));

				if (!ni) {
					err = -ENOMEM;
					goto out_err;
				}
				cur->items = ni;
				ni[cur->n] = conf_tnew(ld,
					f->sub && f->sub[0].name ? T_MAP : T_SCALAR, src, 0, 0);
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
			err = conf_lerr(ld, src, 0, 0, "", "bad key path '%.*s'", (int)(eq - arg),
				arg);
			goto out_err;
		}
	}
	conf_tfree(*slot);
	*slot = val;
	return 0;
out_err:
	conf_tfree(val);
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
			cur = conf_tget(cur, seg);
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
		return conf_lerr(ld, ld->src, 0, 0, key, "%s", msg);
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
	memset(&conf_work, 0, sizeof(conf_work));
	if (errlen)
		err[0] = '\0';
	ret = conf_defaults(&tmp);
	if (ret)
		return ret;
	ld.job = &tmp;
	ret = conf_tparse(&ld, name, text, len, &root);
	if (ret)
		goto out_free;
	if (!root) {	/* an empty or truncated file is a mistake; "{}" asks for the defaults */
		ret = conf_lerr(&ld, name, 0, 0, "", "empty config: no YAML document (write {} to "
			"get every default)");
		goto out_free;
	}
	if (root->kind != T_MAP) {
		ret = TERR(&ld, root, "", "expected a mapping at the top, got %s",
			conf_kind_name(root));
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
	ret = conf_conv_fields(&ld, root, conf_job_tbl, &tmp, "", conf_check_job);
	if (!ret && check)
		ret = run_check(&ld, root, check, &tmp);
	if (ret)
		goto out_free;
	tmp.source = strdup(name);
	if (!tmp.source) {
		ret = -ENOMEM;
		goto out_free;
	}
	conf_tfree(root);
	free_strs(srcs, n_sets);
	*job = tmp;
	return 0;
out_free:
	if (ret == -ENOMEM && errlen)
		snprintf(err, errlen, "%s: load: out of memory", name);
	conf_tfree(root);
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
		if (cap - len < 65536) { /* doubling: a 64 MiB stream is not copied 1000 times */
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
		fputs(conf_fmt_uint(fd->t, conf_load_uint(fd->t, p), buf, sizeof(buf)), f);
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
	if (fd->t == CT_JOBS && ((const struct conf_job *)base)->traffic_list) {
		const struct conf_job *j = base;

		fputc('\n', f);
		for (size_t i = 0; i < conf_jobs(j); i++) {
			fprintf(f, "%*s- ", ind + 2, "");
			dump_fields(f, fd->sub, conf_job_traffic(j, i), ind + 4, true);
		}
	} else if (fd->t == CT_SECTION || fd->t == CT_JOBS) {
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
			el = conf_size_elem_tbl;
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
	dump_fields(f, conf_job_tbl, job, 0, false);
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
