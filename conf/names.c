/* SPDX-License-Identifier: BSD-2-Clause */
/* conf/names: the names of enumerated values, and node names ("p0.t1.3", "h4.p2", links). */
#include "conf/conf.h"
#include "conf/conf_int.h"

#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const struct conf_name conf_driver_names[] = {
	{ CONF_DRIVER_SIM, "sim" }, { CONF_DRIVER_WIRE, "wire" }, { 0, NULL } };
const struct conf_name conf_dataplane_names[] = {
	{ CONF_DP_SOCKET, "socket" }, { CONF_DP_XDP, "xdp" }, { CONF_DP_AUTO, "auto" }, { 0, NULL } };
const struct conf_name conf_xdp_copy_names[] = {
	{ CONF_XC_AUTO, "auto" }, { CONF_XC_ZEROCOPY, "zerocopy" }, { CONF_XC_COPY, "copy" },
	{ 0, NULL } };
const struct conf_name conf_plan_names[] = {
	{ CONF_PLAN_GENERATED, "generated" }, { CONF_PLAN_EXPLICIT, "explicit" },
	{ CONF_PLAN_SEQUENTIAL, "sequential" }, { 0, NULL } };
const struct conf_name conf_transport_names[] = {
	{ CONF_TRANSPORT_MRC, "mrc" }, { CONF_TRANSPORT_ROCE, "roce" }, { 0, NULL } };
const struct conf_name conf_ev_format_names[] = {
	{ CONF_EV_SRV6, "srv6" }, { CONF_EV_STEV, "stev" }, { CONF_EV_UDP, "udp" }, { 0, NULL } };
const struct conf_name conf_cc_algo_names[] = {
	{ CONF_CC_NSCC, "nscc" }, { CONF_CC_FIXED, "fixed" }, { CONF_CC_DCQCN, "dcqcn" },
	{ 0, NULL } };
const struct conf_name conf_pattern_names[] = {
	{ CONF_PAT_ALLREDUCE, "allreduce" }, { CONF_PAT_ALLTOALL, "alltoall" },
	{ CONF_PAT_SENDRECV, "sendrecv" }, { CONF_PAT_INCAST, "incast" },
	{ CONF_PAT_WRITE_BW, "write_bw" }, { CONF_PAT_WRITE_LAT, "write_lat" },
	{ CONF_PAT_ALLGATHER, "allgather" }, { CONF_PAT_REDUCESCATTER, "reducescatter" },
	{ CONF_PAT_BROADCAST, "broadcast" }, { CONF_PAT_REDUCE, "reduce" },
	{ CONF_PAT_ALLTOALLV, "alltoallv" }, { CONF_PAT_GATHER, "gather" },
	{ CONF_PAT_SCATTER, "scatter" }, { CONF_PAT_BACKGROUND, "background" }, { 0, NULL } };
const struct conf_name conf_bg_mode_names[] = {
	{ CONF_BG_UNIFORM, "uniform" }, { CONF_BG_PERMUTATION, "permutation" }, { 0, NULL } };
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
const struct conf_name conf_verify_names[] = {
	{ CONF_VERIFY_OFF, "false" }, { CONF_VERIFY_ON, "true" }, { CONF_VERIFY_BYTES, "bytes" },
	{ 0, NULL } };
const struct conf_name conf_hash_field_names[] = {
	{ CONF_HF_SRC, "src" }, { CONF_HF_DST, "dst" }, { CONF_HF_NEXT_HEADER, "next_header" },
	{ CONF_HF_SPORT, "sport" }, { CONF_HF_DPORT, "dport" },
	{ CONF_HF_FLOW_LABEL, "flow_label" }, { 0, NULL } };
const struct conf_name conf_seed_mode_names[] = {
	{ CONF_SEED_PER_SWITCH, "per_switch" }, { CONF_SEED_SAME, "same" }, { 0, NULL } };
const struct conf_name conf_pfc_control_names[] = {
	{ CONF_PFC_LOSSY, "lossy" }, { CONF_PFC_LOSSLESS, "lossless" }, { 0, NULL } };

const char *conf_name_of(const struct conf_name *tbl, int val)
{
	for (; tbl->name; tbl++)
		if (tbl->val == val)
			return tbl->name;
	return "?";
}

int conf_name_lookup(const struct conf_name *tbl, const char *s, int *val)
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

/* One host item of a set: "h12"; advances @s past it. */
static int host_item(const struct conf_fabric *fab, const char **s, uint32_t *h)
{
	struct conf_node n;
	char name[24];
	size_t k = 0;

	while (**s && **s != ',' && **s != '-' && **s != ' ' && k + 1 < sizeof(name))
		name[k++] = *(*s)++;
	name[k] = '\0';
	if (conf_node_parse(fab, name, &n) || n.kind != CONF_NODE_HOST)
		return -EINVAL;
	*h = n.host;
	return 0;
}

long conf_hosts_expand(const struct conf_fabric *fab, const char *set, uint32_t *out,
	size_t cap, char *bad)
{
	uint32_t nh = conf_fabric_hosts(fab);
	uint8_t *seen = calloc(nh ? nh : 1, 1);
	const char *s = set;
	long n = 0;
	int err = 0;

	if (!seen)
		return -ENOMEM;
	while (!err) {
		const char *item = s;
		uint32_t a, b;

		while (*s == ' ')
			s++;
		item = s;
		err = host_item(fab, &s, &a);
		b = a;
		if (!err && *s == '-') {
			s++;
			err = host_item(fab, &s, &b);
			err = err ?: (b < a ? -EINVAL : 0);
		}
		for (uint32_t h = a; !err && h <= b; h++) {
			if (seen[h]++)
				err = -EEXIST;
			else if ((size_t)n < cap)
				out[n] = h;
			n++;
		}
		while (*s == ' ')
			s++;
		if (err && bad)
			snprintf(bad, 48, "%.*s", (int)strcspn(item, ","), item);
		if (err || !*s)
			break;
		if (*s++ != ',') {
			err = -EINVAL;
			if (bad)
				snprintf(bad, 48, "%.*s", (int)strcspn(item, ","), item);
		}
	}
	free(seen);
	return err ? err : n;
}

int conf_matrix_load(const char *path, uint32_t n, double *w, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[65536];
	uint32_t row = 0, ln = 0;
	int e = 0;

	if (!f) {
		e = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return e;
	}
	while (!e && fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		uint32_t col = 0;

		ln++;
		line[strcspn(line, "#\n")] = '\0';
		p += strspn(p, " \t\r,");
		if (!*p)
			continue;
		if (row == n) {
			snprintf(err, errlen, "%s:%u: more than %u rows", path, ln, n);
			e = -EINVAL;
			break;
		}
		while (*p) {
			double v = strtod(p, &end);

			if (end == p || !(v >= 0) || v > 1e18) {
				snprintf(err, errlen, "%s:%u: not a weight >= 0 '%.24s'", path, ln, p);
				e = -EINVAL;
				break;
			}
			if (col < n)
				w[(size_t)row * n + col] = v;
			col++;
			p = end + strspn(end, " \t\r,");
		}
		if (!e && col != n) {
			snprintf(err, errlen, "%s:%u: %u columns, want %u (one per rank)", path, ln,
				col, n);
			e = -EINVAL;
		}
		row++;
	}
	if (!e && row != n) {
		snprintf(err, errlen, "%s:%u: %u rows, want %u (one per rank)", path, ln, row, n);
		e = -EINVAL;
	}
	fclose(f);
	return e;
}
