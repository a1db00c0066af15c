/* SPDX-License-Identifier: BSD-2-Clause */
/* conf_int: what conf/'s files share, for conf/ alone — the tree, the loader state, the
 * schema. */
#ifndef CONF_INT_H
#define CONF_INT_H

#include "conf/conf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#define CONF_NODE_LIMIT 100000	/* nodes after alias expansion; real configs use < 20000 */
#define CONF_DEPTH_LIMIT 64
#define CONF_EVENT_LIMIT (2 * CONF_NODE_LIMIT)	/* YAML nodes in the text, keys included */
#define CONF_PATH_MAX 256

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


/*
 * The work of this thread's last load (conf/conf.c's load_string resets it), counted in
 * conf/tree.c where a hostile file could make it grow faster than the file; the unit tests
 * bound it, rather than a load's duration: parser events of the first pass, nodes copied
 * with aliases expanded, key comparisons of the duplicate check.
 */
struct conf_work {
	size_t events, nodes, key_cmps;
};
extern _Thread_local struct conf_work conf_work;

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


enum ctype {
	CT_U8, CT_U16, CT_U32, CT_U64, CT_BOOL, CT_ENUM, CT_SIZE, CT_RATE, CT_TIME, CT_TIME_NS,
	CT_DOUBLE, CT_STR, CT_NODE, CT_BLOCK, CT_PREFIX, CT_SECTION, CT_LIST, CT_SIZES,
	CT_JOBS,	/* conf_job.traffic: one job's section, or a list of them */
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
	bool bools;		/* CT_ENUM: YAML's booleans too, as its values 0 and 1 */
	const struct cf *sub;	/* section fields, or list element fields */
	size_t esize, noff;	/* list: element size, offset of the size_t count;
				 * node: offset of the struct conf_node it resolves to */
	bool has;		/* hoff is the offset of a bool "given" flag */
	size_t hoff;
	check_fn check;		/* section / list element: cross-field rules */
	void (*init)(void *elem);	/* list: defaults of a new element (else all zero) */
};

/* An error at node @t: file:line:col, the key path and the message (conf_lerr). */
#define TERR(ld, t, path, ...) conf_lerr((ld), (t)->src, (t)->line, (t)->col, (path), __VA_ARGS__)

/* conf/names.c */
int conf_name_lookup(const struct conf_name *tbl, const char *s, int *val);

/* conf/tree.c */
void conf_tfree(struct tnode *t);
struct tnode *conf_tget(const struct tnode *map, const char *key);
struct tnode *conf_tnew(struct ld *ld, enum tkind kind, const char *src, unsigned line,
	unsigned col);
int conf_tparse(struct ld *ld, const char *src, const char *text, size_t len,
	struct tnode **out);
int conf_lerr(struct ld *ld, const char *src, unsigned line, unsigned col, const char *path,
	const char *fmt, ...) __attribute__((format(printf, 6, 7)));
const char *conf_clip(const char *v, char *buf, size_t len);
void conf_path_key(char *out, const char *base, const char *key);
void conf_path_idx(char *out, const char *base, size_t i);

/* conf/schema.c */
extern const struct cf conf_traffic_tbl[];
int conf_traffic_defaults(struct conf_traffic *t);
const struct cf *conf_tbl_find(const struct cf *tbl, const char *name);
void conf_free_fields(const struct cf *tbl, void *base, bool scalar_list);
void conf_free_field(const struct cf *f, void *base);

/* conf/convert.c */
const char *conf_kind_name(const struct tnode *t);
char *conf_fmt_uint(enum ctype t, uint64_t v, char *buf, size_t len);
uint64_t conf_load_uint(enum ctype t, const void *p);
int conf_conv_fields(struct ld *ld, const struct tnode *map, const struct cf *tbl, void *base,
	const char *path, check_fn check);

/* conf/rules.c */
int conf_check_fabric(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_mrc(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_addressing(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_usid(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_ev(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_rule(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_traffic(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_phase(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_jobs(struct ld *ld, const struct tnode *seq, struct conf_job *job,
	const char *path);
int conf_check_fault(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_hist(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_capture(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_output(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_wire(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_ecmp(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_switch_seed(struct ld *ld, const struct tnode *map, void *obj, const char *path);
int conf_check_job(struct ld *ld, const struct tnode *map, void *obj, const char *path);

extern const struct cf conf_job_tbl[];
extern const struct cf conf_size_elem_tbl[];
extern const struct cf conf_sizes_range_tbl[];

#endif
