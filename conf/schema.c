/* SPDX-License-Identifier: BSD-2-Clause */
/* conf/schema: the schema tables (every key, its type, range and check), freeing through them, and
 * the defaults. */
#include "conf/conf.h"
#include "conf/conf_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- schema ---------------------------------------------------------------------------- */

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
		conf_check_usid),
	{ .name = "host_prefix", .t = CT_PREFIX, .off = offsetof(struct conf_addressing,
		host_prefix) },
	END
};

static const struct cf hash_field_tbl[] = {
	{ .name = NULL, .t = CT_ENUM, .off = 0, .names = conf_hash_field_names },
};

static const struct cf switch_seed_tbl[] = {
	{ .name = "switch", .t = CT_NODE, .off = offsetof(struct conf_switch_seed, sw),
		.noff = offsetof(struct conf_switch_seed, node) },
	U(struct conf_switch_seed, seed, "seed", CT_U64, 0, MAXU64),
	END
};

static const struct cf ecmp_tbl[] = {
	LIST(struct conf_ecmp, hash_fields, n_hash_fields, "hash_fields", hash_field_tbl, int,
		NULL),
	U(struct conf_ecmp, seed, "seed", CT_U64, 0, MAXU64),
	E(struct conf_ecmp, seed_mode, "seed_mode", conf_seed_mode_names),
	LIST(struct conf_ecmp, seeds, n_seeds, "seeds", switch_seed_tbl, struct conf_switch_seed,
		conf_check_switch_seed),
	END
};

static const struct cf routing_tbl[] = {
	U(struct conf_routing, bfd_interval_ps, "bfd_interval", CT_TIME, 1000000, 60 * PS_PER_S),
	U(struct conf_routing, bfd_multiplier, "bfd_multiplier", CT_U32, 1, 255),
	U(struct conf_routing, convergence_ps, "convergence", CT_TIME, 0, 60 * PS_PER_S),
	END
};

static const struct cf pfc_tbl[] = {
	B(struct conf_pfc, enabled, "enabled"),
	U(struct conf_pfc, xoff_bytes, "xoff", CT_SIZE, 1, 1ull << 40),
	U(struct conf_pfc, xon_bytes, "xon", CT_SIZE, 0, 1ull << 40),
	U(struct conf_pfc, headroom_bytes, "headroom", CT_SIZE, 0, 1ull << 40),
	E(struct conf_pfc, control, "control", conf_pfc_control_names),
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
	{ .name = "ecn_kmin", .t = CT_SIZE, .off = offsetof(struct conf_fabric, ecn_kmin_bytes),
		.max = 1ull << 40, HAS(struct conf_fabric, has_ecn_kmin) },
	{ .name = "ecn_kmax", .t = CT_SIZE, .off = offsetof(struct conf_fabric, ecn_kmax_bytes),
		.max = 1ull << 40, HAS(struct conf_fabric, has_ecn_kmax) },
	D(struct conf_fabric, ecn_pmax, "ecn_pmax", 0, 1),
	B(struct conf_fabric, ecn_last_hop, "ecn_last_hop"),
	B(struct conf_fabric, trim, "trim"),
	U(struct conf_fabric, trim_size_bytes, "trim_size", CT_SIZE, 64, 9000),
	SEC(struct conf_fabric, pfc, "pfc", pfc_tbl, NULL),
	SEC(struct conf_fabric, addressing, "addressing", addressing_tbl, conf_check_addressing),
	SEC(struct conf_fabric, ecmp, "ecmp", ecmp_tbl, conf_check_ecmp),
	SEC(struct conf_fabric, routing, "routing", routing_tbl, NULL),
	END
};

static const struct cf wire_tbl[] = {
	E(struct conf_wire, dataplane, "dataplane", conf_dataplane_names),
	E(struct conf_wire, xdp_copy, "xdp_copy", conf_xdp_copy_names),
	U(struct conf_wire, xdp_queue, "xdp_queue", CT_U32, 0, 255),
	U(struct conf_wire, xdp_threads, "xdp_threads", CT_U32, 0, 16),
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
	SEC(struct conf_ev, plane, "plane", rule_tbl, conf_check_rule),
	SEC(struct conf_ev, spine, "spine", rule_tbl, conf_check_rule),
	SEC(struct conf_ev, salt, "salt", rule_tbl, conf_check_rule),
	LIST(struct conf_ev, deny, n_deny, "deny", ev32_tbl, uint32_t, NULL),
	END
};

/* ConnectX's ranges where NVIDIA publishes them (docs/config.md "mrc.cc.dcqcn"). */
static const struct cf dcqcn_tbl[] = {
	U(struct conf_dcqcn, rpg_time_reset_ps, "rpg_time_reset", CT_TIME, 1000000,
		131071000000ull),
	U(struct conf_dcqcn, rpg_byte_reset, "rpg_byte_reset", CT_SIZE, 0, MAXU32),
	U(struct conf_dcqcn, rpg_threshold, "rpg_threshold", CT_U32, 1, 31),
	U(struct conf_dcqcn, rpg_ai_rate_bps, "rpg_ai_rate", CT_RATE, 0, 100000000000000ull),
	U(struct conf_dcqcn, rpg_hai_rate_bps, "rpg_hai_rate", CT_RATE, 0, 100000000000000ull),
	U(struct conf_dcqcn, rpg_gd, "rpg_gd", CT_U32, 1, 31),
	U(struct conf_dcqcn, rpg_min_dec_fac, "rpg_min_dec_fac", CT_U32, 0, 100),
	U(struct conf_dcqcn, rpg_min_rate_bps, "rpg_min_rate", CT_RATE, 1000000,
		100000000000000ull),
	U(struct conf_dcqcn, rpg_max_rate_bps, "rpg_max_rate", CT_RATE, 0, 100000000000000ull),
	U(struct conf_dcqcn, rate_to_set_on_first_cnp_bps, "rate_to_set_on_first_cnp", CT_RATE,
		0, 100000000000000ull),
	U(struct conf_dcqcn, dce_tcp_g, "dce_tcp_g", CT_U32, 0, 1023),
	U(struct conf_dcqcn, dce_tcp_rtt_ps, "dce_tcp_rtt", CT_TIME, 1000000, 131071000000ull),
	U(struct conf_dcqcn, initial_alpha_value, "initial_alpha_value", CT_U32, 1, 1023),
	U(struct conf_dcqcn, rate_reduce_monitor_period_ps, "rate_reduce_monitor_period", CT_TIME,
		1000000, PS_PER_S),
	B(struct conf_dcqcn, clamp_tgt_rate, "clamp_tgt_rate"),
	B(struct conf_dcqcn, clamp_tgt_rate_after_time_inc, "clamp_tgt_rate_after_time_inc"),
	U(struct conf_dcqcn, min_time_between_cnps_ps, "min_time_between_cnps", CT_TIME, 0,
		PS_PER_S),
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
	SEC(struct conf_cc, dcqcn, "dcqcn", dcqcn_tbl, NULL),
	END
};

static const struct cf qp_tbl[] = {
	U(struct conf_qp, mpr, "mpr", CT_U32, 1, 255),
	U(struct conf_qp, max_wimm, "max_wimm", CT_U32, 1, 65535),
	U(struct conf_qp, timeout, "timeout", CT_U32, 0, 24),
	U(struct conf_qp, retry_linear, "retry_linear", CT_U32, 0, 7),
	U(struct conf_qp, retry_exp, "retry_exp", CT_U32, 0, 25),
	U(struct conf_qp, ack_req_every, "ack_req_every", CT_U32, 0, 32640),
	END
};

static const struct cf dscp_tbl[] = {
	U(struct conf_dscp, data, "data", CT_U8, 0, 63),
	U(struct conf_dscp, ctrl, "ctrl", CT_U8, 0, 63),
	U(struct conf_dscp, rtx, "rtx", CT_U8, 0, 63),
	U(struct conf_dscp, trimmed, "trimmed", CT_U8, 0, 63),
	U(struct conf_dscp, trimmed_lasthop, "trimmed_lasthop", CT_U8, 0, 63),
	U(struct conf_dscp, cnp, "cnp", CT_U8, 0, 63),
	END
};

static const struct cf mrc_tbl[] = {
	E(struct conf_mrc, transport, "transport", conf_transport_names),
	E(struct conf_mrc, ev_format, "ev_format", conf_ev_format_names),
	B(struct conf_mrc, srh, "srh"),
	SEC(struct conf_mrc, ev, "ev", ev_tbl, conf_check_ev),
	SEC(struct conf_mrc, cc, "cc", cc_tbl, NULL),
	SEC(struct conf_mrc, qp, "qp", qp_tbl, NULL),
	U(struct conf_mrc, mtu, "mtu", CT_U32, 256, 9000),
	U(struct conf_mrc, reorder_threshold, "reorder_threshold", CT_U32, 1, 8192),
	U(struct conf_mrc, sack_every_bytes, "sack_every", CT_SIZE, 1, 1ull << 32),
	U(struct conf_mrc, sack_ooo_every, "sack_ooo_every", CT_U32, 0, 64),
	B(struct conf_mrc, rtt_ensemble, "rtt_ensemble"),
	B(struct conf_mrc, rcv_cwnd_pen, "rcv_cwnd_pen"),
	U(struct conf_mrc, skip_hold_ps, "skip_hold", CT_TIME, 0, 10 * PS_PER_S),
	U(struct conf_mrc, sack_delay_ps, "sack_delay", CT_TIME, 0, PS_PER_S / 100),
	U(struct conf_mrc, probe_backoff_ps, "probe_backoff", CT_TIME, 1, 10 * PS_PER_S),
	B(struct conf_mrc, probe_damping, "probe_damping"),
	B(struct conf_mrc, path_fate, "path_fate"),
	B(struct conf_mrc, icrc_outer, "icrc_outer"),
	B(struct conf_mrc, rx_checks, "rx_checks"),
	U(struct conf_mrc, hop_limit, "hop_limit", CT_U8, 1, 255),
	SEC(struct conf_mrc, dscp, "dscp", dscp_tbl, NULL),
	END
};

static const struct cf phase_tbl[] = {
	{ .name = "pattern", .t = CT_ENUM, .off = offsetof(struct conf_phase, pattern),
		.names = conf_pattern_names, HAS(struct conf_phase, has_pattern) },
	{ .name = "algorithm", .t = CT_ENUM, .off = offsetof(struct conf_phase, algorithm),
		.names = conf_algorithm_names, HAS(struct conf_phase, has_algorithm) },
	{ .name = "size", .t = CT_SIZE, .off = offsetof(struct conf_phase, size), .min = 1,
		.max = 1ull << 40, HAS(struct conf_phase, has_size) },
	{ .name = "gap", .t = CT_TIME, .off = offsetof(struct conf_phase, gap_ps), .min = 0,
		.max = 10 * PS_PER_S, HAS(struct conf_phase, has_gap) },
	B(struct conf_phase, transpose, "transpose"),
	END
};

const struct cf conf_traffic_tbl[] = {
	E(struct conf_traffic, pattern, "pattern", conf_pattern_names),
	E(struct conf_traffic, algorithm, "algorithm", conf_algorithm_names),
	{ .name = "sizes", .t = CT_SIZES, .off = offsetof(struct conf_traffic, sizes) },
	E(struct conf_traffic, dtype, "dtype", conf_dtype_names),
	U(struct conf_traffic, iterations, "iterations", CT_U32, 1, 1000000),
	U(struct conf_traffic, warmup, "warmup", CT_U32, 0, 1000000),
	{ .name = "verify", .t = CT_ENUM, .off = offsetof(struct conf_traffic, verify),
		.names = conf_verify_names, .bools = true },
	U(struct conf_traffic, ranks, "ranks", CT_U32, 0, 1024 * 1024),
	S(struct conf_traffic, root, "root"),
	U(struct conf_traffic, depth, "depth", CT_U32, 1, 65536),
	U(struct conf_traffic, messages, "messages", CT_U32, 1, 1000000),
	B(struct conf_traffic, bidirectional, "bidirectional"),
	S(struct conf_traffic, hosts, "hosts"),
	S(struct conf_traffic, matrix, "matrix"),
	U(struct conf_traffic, gap_ps, "gap", CT_TIME, 0, 10 * PS_PER_S),
	D(struct conf_traffic, zipf, "zipf", 0, 10),
	S(struct conf_traffic, name, "name"),
	U(struct conf_traffic, start_ps, "start", CT_TIME, 0, 1000000 * PS_PER_S),
	S(struct conf_traffic, after, "after"),
	B(struct conf_traffic, share, "share"),
	LIST(struct conf_traffic, phases, n_phases, "phases", phase_tbl, struct conf_phase,
		conf_check_phase),
	U(struct conf_traffic, rate_bps, "rate", CT_RATE, 0, 1000000000000000ull),
	E(struct conf_traffic, mode, "mode", conf_bg_mode_names),
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

static const struct cf sweep_tbl[] = {
	U(struct conf_sweep, cover, "cover", CT_U32, 0, 100000),
	U(struct conf_sweep, probes, "probes", CT_U32, 1, 100000),
	U(struct conf_sweep, rate, "rate", CT_U32, 1, 10000000),
	U(struct conf_sweep, outstanding, "outstanding", CT_U32, 1, 64),
	U(struct conf_sweep, timeout_ps, "timeout", CT_TIME, 1000000, 10 * PS_PER_S),
	U(struct conf_sweep, max_time_ps, "max_time", CT_TIME, 1000000, 100000 * PS_PER_S),
	D(struct conf_sweep, min_score, "min_score", 0, 1e9),
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
		.esize = sizeof(struct conf_capture), .check = conf_check_capture,
		.init = init_capture },
	SEC(struct conf_output, hist, "hist", hist_tbl, conf_check_hist),
	B(struct conf_output, report, "report"),
	B(struct conf_output, plots, "plots"),
	B(struct conf_output, hlog, "hlog"),
	END
};

static const struct cf sim_tbl[] = {
	U(struct conf_sim, workers, "workers", CT_U32, 1, 1024),
	END
};

/* Table order is conversion order: the fabric comes before the names that refer to it. */
const struct cf conf_job_tbl[] = {
	U(struct conf_job, seed, "seed", CT_U64, 0, MAXU64),
	SEC(struct conf_job, fabric, "fabric", fabric_tbl, conf_check_fabric),
	SEC(struct conf_job, wire, "wire", wire_tbl, conf_check_wire),
	SEC(struct conf_job, mrc, "mrc", mrc_tbl, conf_check_mrc),
	{ .name = "traffic", .t = CT_JOBS, .off = offsetof(struct conf_job, traffic),
		.sub = conf_traffic_tbl, .check = conf_check_traffic },
	LIST(struct conf_job, faults, n_faults, "faults", fault_tbl, struct conf_fault,
		conf_check_fault),
	SEC(struct conf_job, sweep, "sweep", sweep_tbl, NULL),
	SEC(struct conf_job, output, "output", output_tbl, conf_check_output),
	SEC(struct conf_job, sim, "sim", sim_tbl, NULL),
	END
};

const struct cf conf_sizes_range_tbl[] = {
	U(struct conf_sizes, min, "min", CT_SIZE, 1, 1ull << 40),
	U(struct conf_sizes, max, "max", CT_SIZE, 1, 1ull << 40),
	U(struct conf_sizes, factor, "factor", CT_U32, 2, 1024),
	END
};

const struct cf conf_size_elem_tbl[] = {
	{ .name = NULL, .t = CT_SIZE, .off = 0, .min = 1, .max = 1ull << 40 },
};

const struct cf *conf_tbl_find(const struct cf *tbl, const char *name)
{
	for (; tbl->name; tbl++)
		if (strcmp(tbl->name, name) == 0)
			return tbl;
	return NULL;
}

/* ---- freeing through the schema -------------------------------------------------------- */

void conf_free_field(const struct cf *f, void *base)
{
	char *p = (char *)base + f->off;

	switch (f->t) {
	case CT_STR:
	case CT_NODE:
		free(*(char **)p);
		*(char **)p = NULL;
		break;
	case CT_SECTION:
		conf_free_fields(f->sub, p, false);
		break;
	case CT_JOBS: { /* only in conf_job_tbl: @base is the job */
		struct conf_job *j = base;

		conf_free_fields(f->sub, p, false);
		for (size_t i = 0; i < j->n_more_traffic; i++)
			conf_free_fields(f->sub, &j->more_traffic[i], false);
		free(j->more_traffic);
		j->more_traffic = NULL;
		j->n_more_traffic = 0;
		break;
	}
	case CT_LIST: {
		char *arr = *(char **)p;
		size_t *n = (size_t *)((char *)base + f->noff);

		if (f->sub[0].name)
			for (size_t i = 0; arr && i < *n; i++)
				conf_free_fields(f->sub, arr + i * f->esize, false);
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

void conf_free_fields(const struct cf *tbl, void *base, bool scalar_list)
{
	(void)scalar_list;
	for (; tbl->name; tbl++)
		conf_free_field(tbl, base);
}

void conf_free(struct conf_job *job)
{
	if (!job)
		return;
	conf_free_fields(conf_job_tbl, job, false);
	free(job->source);
	memset(job, 0, sizeof(*job));
}

/* ---- defaults ------------------------------------------------------------------------- */

/* One job's defaults (docs/config.md "traffic"), into a zeroed @t. 0 or -ENOMEM (what was
 * made is @t's, freed through conf_traffic_tbl). */
int conf_traffic_defaults(struct conf_traffic *t)
{
	t->pattern = CONF_PAT_ALLREDUCE;
	t->algorithm = CONF_ALG_RING;
	t->sizes.list = malloc(sizeof(*t->sizes.list));
	t->root = strdup("h0");
	t->hosts = strdup("");
	t->matrix = strdup("");
	t->name = strdup("");
	t->after = strdup("");
	t->dtype = CONF_DT_FLOAT32;
	t->iterations = 10;
	t->warmup = 2;
	t->verify = CONF_VERIFY_ON;
	t->depth = 128;	    /* perftest's DEF_TX_BW (src/perftest_parameters.h) */
	t->messages = 1000; /* perftest's DEF_ITERS */
	if (!t->sizes.list || !t->root || !t->hosts || !t->matrix || !t->name || !t->after)
		return -ENOMEM;
	t->sizes.list[0] = 64ull * 1024 * 1024;
	t->sizes.n_list = 1;
	return 0;
}

int conf_defaults(struct conf_job *job)
{
	static const double pct[] = { 50, 90, 99, 99.9, 99.99, 100 };
	struct conf_fabric *f = &job->fabric;
	struct conf_mrc *m = &job->mrc;
	struct conf_traffic *t = &job->traffic;
	struct conf_output *o = &job->output;
	struct conf_sweep *sw = &job->sweep;

	memset(job, 0, sizeof(*job));
	job->seed = 1;
	job->sim.workers = 1;

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
	f->ecn_pmax = 0.01;			/* DCQCN (Zhu et al., SIGCOMM 2015): Pmax 1% */
	f->ecn_last_hop = false;
	f->trim = true;
	f->trim_size_bytes = 256;
	f->pfc.xoff_bytes = 60000;		/* htsim main_roce.cpp: 15 and 12 packets of */
	f->pfc.xon_bytes = 48000;		/* its default 4000 B */
	f->pfc.control = CONF_PFC_LOSSY;
	f->addressing.block = 0xfc000000u;
	f->addressing.usid_plane_bits = 4;
	f->addressing.plan = CONF_PLAN_GENERATED;
	f->addressing.host_prefix[0] = 0xfd;
	f->addressing.host_prefix_len = 64;
	f->ecmp.hash_fields = malloc(5 * sizeof(*f->ecmp.hash_fields));
	f->ecmp.seed = 1;
	f->ecmp.seed_mode = CONF_SEED_PER_SWITCH;
	f->routing.bfd_interval_ps = 300 * PS_PER_S / 1000;	/* FRR bfdd's default */
	f->routing.bfd_multiplier = 3;				/* idem */
	f->routing.convergence_ps = 100 * PS_PER_S / 1000;

	job->wire.dataplane = CONF_DP_SOCKET;
	job->wire.xdp_copy = CONF_XC_AUTO;
	job->wire.xdp_queue = 0;
	job->wire.xdp_threads = 1;	/* the measured choice (docs/wire-xdp.md "Threads") */

	m->transport = CONF_TRANSPORT_MRC;
	m->ev_format = CONF_EV_SRV6;
	m->srh = false;
	m->ev.ev_count = 128;
	m->ev.ev_min_active = 16;
	m->ev.plane = (struct conf_ev_rule){ 0, 0xf, 0, 0xf };
	m->ev.spine = (struct conf_ev_rule){ 0, 0xfff, 0, 0xfff };
	m->ev.salt = (struct conf_ev_rule){ 0, 0xffff, 0, 0xffff };
	m->cc.algorithm = CONF_CC_NSCC; /* dcqcn with transport roce (conf_check_mrc) */
	/* DCQCN: NVIDIA ConnectX's defaults (mrc_dcqcn_defaults, docs/config.md) */
	m->cc.dcqcn = (struct conf_dcqcn){
		.rpg_time_reset_ps = 300000000,
		.rpg_byte_reset = 32767,
		.rpg_threshold = 1,
		.rpg_ai_rate_bps = 5000000,
		.rpg_hai_rate_bps = 50000000,
		.rpg_gd = 11,
		.rpg_min_dec_fac = 50,
		.rpg_min_rate_bps = 1000000,
		.dce_tcp_g = 1019,
		.dce_tcp_rtt_ps = 1000000,
		.initial_alpha_value = 1023,
		.rate_reduce_monitor_period_ps = 4000000,
		.clamp_tgt_rate_after_time_inc = true,
		.min_time_between_cnps_ps = 4000000,
	};
	m->qp.mpr = 8;
	m->qp.max_wimm = 64;
	m->qp.timeout = 8;
	m->qp.retry_linear = 7;
	m->qp.retry_exp = 25;
	m->qp.ack_req_every = 64; /* Linux rxe's RXE_MAX_PKT_PER_ACK */
	m->mtu = 4096;
	m->reorder_threshold = 1024;
	m->sack_every_bytes = 16 * 1024;
	m->sack_ooo_every = 0;
	m->rtt_ensemble = true;
	m->rcv_cwnd_pen = true;
	m->skip_hold_ps = 0;
	m->sack_delay_ps = 0;
	m->probe_backoff_ps = 100000000;	/* 100 us */
	m->probe_damping = true;
	m->path_fate = true;
	m->icrc_outer = false;
	m->rx_checks = false;
	m->hop_limit = 64;
	m->dscp = (struct conf_dscp){ .data = 26, .ctrl = 46, .rtx = 28, .trimmed = 12,
				      .trimmed_lasthop = 13, .cnp = 48 };


	/* docs/sweep.md "The plan" and "Bounds": 8 paths a link, 16 probes a path, 10000
	 * probes a second per host (about 10 Mb/s of 120-byte probes), 16 in flight; an answer
	 * within 2 ms (OCP examples/mrc_ctl_ev_probes.md); a minute at most; a suspect must make
	 * the losses e^10 times likelier */
	sw->cover = 8;
	sw->probes = 16;
	sw->rate = 10000;
	sw->outstanding = 16;
	sw->timeout_ps = 2000000000ull;
	sw->max_time_ps = 60 * PS_PER_S;
	sw->min_score = 10;

	o->dir = strdup("out/");
	o->hist.lowest_ns = 1;
	o->hist.highest_ns = 3600000000000ull;
	o->hist.sigfigs = 3;
	o->hist.percentiles = malloc(sizeof(pct));
	o->report = true;
	o->plots = true;
	o->hlog = true;
	if (conf_traffic_defaults(t) || !o->dir || !o->hist.percentiles || !f->ecmp.hash_fields) {
		conf_free(job);
		return -ENOMEM;
	}
	for (int k = CONF_HF_SRC; k <= CONF_HF_DPORT; k++) /* the 5-tuple */
		f->ecmp.hash_fields[f->ecmp.n_hash_fields++] = k;
	memcpy(o->hist.percentiles, pct, sizeof(pct));
	o->hist.n_percentiles = sizeof(pct) / sizeof(pct[0]);
	return 0;
}
