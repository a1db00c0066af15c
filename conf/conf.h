/* SPDX-License-Identifier: BSD-2-Clause */
/* conf: the job configuration — plain structs loaded strictly from one YAML file. */
#ifndef CONF_CONF_H
#define CONF_CONF_H

/*
 * One YAML file describes a whole job (docs/config.md). conf_load()
 * reads it with libyaml's document API, applies --set overrides, checks every field and
 * fills a struct conf_job; conf_dump() prints the effective config back as YAML that
 * loads to an identical struct. Field names follow docs/wire-format.md and the OCP mrc_ctl.h
 * objects. Units inside the structs: bytes, bits per second, picoseconds (suffix _ps),
 * nanoseconds (suffix _ns) — the suffix says which.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One name of an enum value; tables end with { 0, NULL }. Parser and printer share them. */
struct conf_name {
	int val;
	const char *name;
};

/* Returns the name of @val in @tbl, or "?" when absent. */
const char *conf_name_of(const struct conf_name *tbl, int val);

enum conf_driver { CONF_DRIVER_SIM, CONF_DRIVER_WIRE };
/* The wire driver's dataplane (docs/wire-xdp.md): raw sockets, AF_XDP, or AF_XDP where it
 * opens on every port and raw sockets elsewhere. */
enum conf_dataplane { CONF_DP_SOCKET, CONF_DP_XDP, CONF_DP_AUTO };
enum conf_xdp_copy { CONF_XC_AUTO, CONF_XC_ZEROCOPY, CONF_XC_COPY };
enum conf_plan { CONF_PLAN_GENERATED, CONF_PLAN_EXPLICIT, CONF_PLAN_SEQUENTIAL };
enum conf_transport { CONF_TRANSPORT_MRC, CONF_TRANSPORT_ROCE };
enum conf_ev_format { CONF_EV_SRV6, CONF_EV_STEV, CONF_EV_UDP };
enum conf_cc_algo { CONF_CC_NSCC, CONF_CC_FIXED, CONF_CC_DCQCN };
/* In mrc/job/coll.h's enum mrc_coll_pattern order (a cast maps one onto the other); but
 * background, no collective: open-loop load at a rate (docs/config.md "Background"). */
enum conf_pattern {
	CONF_PAT_ALLREDUCE, CONF_PAT_ALLTOALL, CONF_PAT_SENDRECV, CONF_PAT_INCAST,
	CONF_PAT_WRITE_BW, CONF_PAT_WRITE_LAT, CONF_PAT_ALLGATHER, CONF_PAT_REDUCESCATTER,
	CONF_PAT_BROADCAST, CONF_PAT_REDUCE, CONF_PAT_ALLTOALLV, CONF_PAT_GATHER, CONF_PAT_SCATTER,
	CONF_PAT_BACKGROUND,
};
/* Where a background job's messages go: a random other host each, or a fixed derangement. */
enum conf_bg_mode { CONF_BG_UNIFORM, CONF_BG_PERMUTATION };
/* ring|tree for allreduce, parallel|shift for alltoall, direct for sendrecv and incast. */
enum conf_algorithm {
	CONF_ALG_RING, CONF_ALG_TREE, CONF_ALG_PARALLEL, CONF_ALG_SHIFT, CONF_ALG_DIRECT,
};
enum conf_dtype { CONF_DT_FLOAT32, CONF_DT_INT32, CONF_DT_FLOAT64 };
enum conf_fault_action {
	CONF_FA_DOWN, CONF_FA_UP, CONF_FA_LOSS, CONF_FA_DELAY, CONF_FA_FLAP, CONF_FA_BLACKHOLE,
	CONF_FA_CLEAR,
};
enum conf_direction { CONF_DIR_BOTH, CONF_DIR_FORWARD, CONF_DIR_REVERSE };
enum conf_cap_dir { CONF_CAP_BOTH, CONF_CAP_INGRESS, CONF_CAP_EGRESS };
enum conf_tsresol { CONF_TS_NS, CONF_TS_US };
/* traffic.verify: false, true (descriptors in the simulator, bytes on the wire), bytes */
enum conf_verify { CONF_VERIFY_OFF, CONF_VERIFY_ON, CONF_VERIFY_BYTES };
/* Header fields a switch's ECMP hash reads (fabric.ecmp.hash_fields; mrc/sim/ecmp.h). */
enum conf_hash_field {
	CONF_HF_SRC, CONF_HF_DST, CONF_HF_NEXT_HEADER, CONF_HF_SPORT, CONF_HF_DPORT,
	CONF_HF_FLOW_LABEL,
};
enum conf_seed_mode { CONF_SEED_PER_SWITCH, CONF_SEED_SAME };
enum conf_pfc_control { CONF_PFC_LOSSY, CONF_PFC_LOSSLESS };

extern const struct conf_name conf_driver_names[], conf_dataplane_names[], conf_xdp_copy_names[],
	conf_plan_names[], conf_transport_names[],
	conf_ev_format_names[], conf_cc_algo_names[], conf_pattern_names[],
	conf_algorithm_names[], conf_dtype_names[], conf_fault_action_names[],
	conf_direction_names[], conf_cap_dir_names[], conf_tsresol_names[],
	conf_hash_field_names[], conf_seed_mode_names[], conf_pfc_control_names[],
	conf_verify_names[], conf_bg_mode_names[];

/* Bytes per element of @dt (4, 4, 8). */
unsigned conf_dtype_size(enum conf_dtype dt);

/*
 * A named element of the topology. Names (docs/config.md "Node names"): hosts "h0".."h{N-1}";
 * switches "p{plane}.t0.{i}", "p{plane}.t1.{j}"; host NIC ports "h{n}.p{plane}"; links
 * "p0.t0.1-p0.t1.2" (T0-T1) and "h3.p0-p0.t0.0" (host port - its T0). A link written
 * upper tier first ("p0.t1.2-p0.t0.1", "p0.t0.0-h3.p0") is the same link with
 * @reverse set: "forward" is from the first name to the second. Numbers are decimal
 * without leading zeros.
 */
enum conf_node_kind {
	CONF_NODE_HOST,
	CONF_NODE_PORT,		/* host NIC port: host, plane */
	CONF_NODE_T0,		/* plane, t0 */
	CONF_NODE_T1,		/* plane, t1 */
	CONF_NODE_LINK_HOST_T0,	/* plane, host, t0 (= host / hosts_per_t0) */
	CONF_NODE_LINK_T0_T1,	/* plane, t0, t1 */
};

struct conf_node {
	enum conf_node_kind kind;
	uint32_t plane, host, t0, t1;
	bool reverse;
};

/* Addressing plan (docs/wire-format.md "SRv6 uSID addressing", RFC 9800 F3216). */
struct conf_usid_entry {
	char *node;		/* a switch "p0.t1.2" or a host port "h3.p0" */
	struct conf_node n;	/* @node resolved */
	uint16_t usid;		/* 1..0xffff */
};

struct conf_addressing {
	uint32_t block;		/* the 32-bit uSID block, e.g. 0xfc000000 for "fc00:0::" */
	/* 0..4, default 4 (docs/wire-format.md): the plane's bits in a generated uSID; 0 = a uSID
	 * space per plane, plane p under block + p (mrc/engine/srv6.h struct mrc_srv6_params) */
	uint8_t usid_plane_bits;
	bool has_usid_plane_bits;	/* given in the file (only 0 combines with explicit) */
	enum conf_plan plan;
	struct conf_usid_entry *usids;	/* plan explicit: every switch and host port */
	size_t n_usids;
	uint8_t host_prefix[16];	/* inner port addresses are generated inside it */
	uint8_t host_prefix_len;	/* 8..80 bits (plane:host:1 fills the rest) */
};

/* One switch's own ECMP seed (fabric.ecmp.seeds[]). */
struct conf_switch_seed {
	char *sw;			/* "p0.t0.1": a T0 or T1 switch */
	struct conf_node node;		/* @sw resolved */
	uint64_t seed;
};

/* ECMP at the switches (docs/roce-baseline.md "ECMP hashing"). */
struct conf_ecmp {
	int *hash_fields;		/* enum conf_hash_field, each once; default the 5-tuple */
	size_t n_hash_fields;
	uint64_t seed;			/* default 1 */
	enum conf_seed_mode seed_mode;	/* per_switch: each derives its own from @seed */
	struct conf_switch_seed *seeds;	/* overrides, each switch once */
	size_t n_seeds;
};

/* Routing reconvergence (docs/roce-baseline.md "Routing reconvergence"). */
struct conf_routing {
	uint64_t bfd_interval_ps;	/* BFD transmit/receive interval, default 300 ms */
	uint32_t bfd_multiplier;	/* detect multiplier, default 3 (RFC 5880 §6.8.4) */
	uint64_t convergence_ps;	/* detection to every ECMP group updated, 100 ms */
};

/* PFC lossless mode of the simulated fabric (docs/pfc.md), per ingress link and class. */
struct conf_pfc {
	bool enabled;			/* the data class is lossless (needs trim off) */
	uint64_t xoff_bytes, xon_bytes;	/* pause past xoff, resume at or below xon */
	uint64_t headroom_bytes;	/* above xoff; 0 = the rule (mrc_job_pfc_headroom) */
	enum conf_pfc_control control;	/* the control class: lossy or lossless too */
};

struct conf_fabric {
	enum conf_driver driver;
	uint32_t planes;		/* 1..16 (4 plane bits in the uSID plan and the EV) */
	uint32_t t0, t1;		/* switches per plane: 1..1024, 1..1023 with plan generated
					 * and usid_plane_bits 4 */
	uint32_t hosts_per_t0;		/* 1..1024; t0 * hosts_per_t0 <= 2^(14 - plane bits) - 1
					 * with plan generated, <= 1024 with explicit */
	uint64_t link_rate_bps;
	uint64_t host_link_delay_ps, fabric_link_delay_ps;	/* propagation */
	uint64_t switch_delay_ps;
	uint64_t buffer_bytes;		/* per output port */
	uint64_t ecn_threshold_bytes;	/* data-queue depth that marks CE (a step) */
	/* DCQCN's RED marking: probability 0 up to kmin, pmax at kmax, 1 above; each
	 * defaults to ecn_threshold (filled in by the check; has_*: written) */
	uint64_t ecn_kmin_bytes, ecn_kmax_bytes;
	bool has_ecn_kmin, has_ecn_kmax;
	double ecn_pmax;
	bool ecn_last_hop;		/* mark on the switch port facing a host too */
	bool trim;			/* default true, but false under mrc.transport roce */
	uint64_t trim_size_bytes;
	struct conf_pfc pfc;
	struct conf_addressing addressing;
	struct conf_ecmp ecmp;
	struct conf_routing routing;
};

/* Number of hosts: t0 * hosts_per_t0 (the same hosts are attached in every plane). */
static inline uint32_t conf_fabric_hosts(const struct conf_fabric *f)
{
	return f->t0 * f->hosts_per_t0;
}

/* One EV field rule of mrc_ctl.h's generated EV profile: value init, stepped within mask. */
struct conf_ev_rule {
	uint32_t init, mask, min, max;
};

/* EV layout of docs/wire-format.md: plane(4) | spine(12) | salt(16). */
struct conf_ev {
	uint32_t ev_count;		/* EVs per QP, 1..65536 */
	uint32_t ev_min_active;		/* floor of usable EVs, <= ev_count */
	uint32_t *evs;			/* explicit list (overrides the rules when n_evs > 0) */
	size_t n_evs;
	struct conf_ev_rule plane, spine, salt;
	uint32_t *deny;			/* EVs set DENIED by configuration */
	size_t n_deny;
};

/*
 * DCQCN (mrc/engine/dcqcn.h), the RoCE baseline's congestion control, with NVIDIA ConnectX's
 * knob names and defaults (docs/config.md "mrc.cc.dcqcn"). Rates b/s, times ps.
 */
struct conf_dcqcn {
	uint64_t rpg_time_reset_ps, rpg_byte_reset;
	uint32_t rpg_threshold;
	uint64_t rpg_ai_rate_bps, rpg_hai_rate_bps;
	uint32_t rpg_gd, rpg_min_dec_fac;
	uint64_t rpg_min_rate_bps, rpg_max_rate_bps; /* max 0: the line rate */
	uint64_t rate_to_set_on_first_cnp_bps;	   /* 0: off */
	uint32_t dce_tcp_g;
	uint64_t dce_tcp_rtt_ps;
	uint32_t initial_alpha_value;
	uint64_t rate_reduce_monitor_period_ps;
	bool clamp_tgt_rate, clamp_tgt_rate_after_time_inc;
	uint64_t min_time_between_cnps_ps;
};

/* NSCC parameters (mrc_ctl.h names); 0 means "derive from link rate and base RTT". */
struct conf_cc {
	enum conf_cc_algo algorithm;	/* default: dcqcn with transport roce, else nscc */
	uint64_t fixed_cwnd_bytes;	/* algorithm fixed: the window; 0 = one BDP */
	uint64_t base_rtt_ps, target_delay_ps;
	double eta, fi, fi_scale, gamma, max_md_jump;
	uint64_t max_cwnd_bytes;
	uint64_t qa_threshold_ps;
	double qa_gate;
	uint64_t adjust_bytes_threshold;
	uint64_t adjust_period_threshold_ps;
	bool disable_qa;
	struct conf_dcqcn dcqcn;
};

/* QP attributes (mrc_ctl.h). */
struct conf_qp {
	uint32_t mpr;			/* receive window, units of 128 PSNs: 1..255 */
	uint32_t max_wimm;		/* outstanding write-with-immediate, 1..65535 */
	uint32_t timeout;		/* exponent t: RTO = 1.024 us * 2^t, 0..31 */
	uint32_t retry_linear, retry_exp;	/* 0..7 each */
	uint32_t ack_req_every;		/* RoCE: AckReq on every Nth packet too; 0: message ends */
};

/* DSCP per traffic class (0..63). */
struct conf_dscp {
	uint8_t data, ctrl, rtx, trimmed, trimmed_lasthop, cnp;
};

struct conf_mrc {
	enum conf_transport transport;
	enum conf_ev_format ev_format;
	bool srh;			/* add an SRH when a path needs more than 6 uSIDs */
	struct conf_ev ev;
	struct conf_cc cc;
	struct conf_qp qp;
	uint32_t mtu;			/* payload bytes per packet, 256..9000 */
	uint32_t reorder_threshold;	/* PSNs, 1..8192 */
	uint64_t sack_every_bytes;
	uint32_t sack_ooo_every;	/* also SACK every N out-of-order arrivals, 0 (off)..64 */
	bool rtt_ensemble;		/* QPs of an endpoint share RTT samples (RFC 9040) */
	bool rcv_cwnd_pen;		/* responders send rcv_cwnd_pen as bottlenecks */
	uint64_t skip_hold_ps;		/* SKIP -> GOOD; 0 = after one rotation */
	uint64_t sack_delay_ps;		/* longest a SACK is held; 0 = the base RTT */
	uint64_t probe_backoff_ps;	/* first probe delay of an ASSUMED_BAD EV */
	bool probe_damping;		/* a flapping EV keeps its grown probe backoff */
	bool path_fate;			/* a lost EV takes its QP's EVs on its path along */
	bool icrc_outer;
	bool rx_checks;			/* sim: verify UDP checksum and ICRC on receive too */
	uint8_t hop_limit;		/* first IPv6 header's initial hop limit, 1..255 */
	struct conf_dscp dscp;
};

/* Message sizes: an explicit list, or min..max stepping by an integer factor. */
struct conf_sizes {
	bool range;
	uint64_t *list;			/* !range */
	size_t n_list;
	uint64_t min, max;		/* range: min, min*f, ... <= max */
	uint32_t factor;		/* >= 2 */
};

/* One phase of a training step (traffic.phases[], docs/config.md "Phases"): a collective
 * of one size, or a compute gap. */
struct conf_phase {
	enum conf_pattern pattern;
	enum conf_algorithm algorithm;
	uint64_t size;			/* bytes, as traffic.sizes' */
	uint64_t gap_ps;		/* a gap phase: its length */
	bool transpose;			/* alltoallv: rank a sends what b would send a */
	bool has_pattern, has_algorithm, has_size, has_gap;	/* given in the config */
};

struct conf_traffic {
	enum conf_pattern pattern;
	enum conf_algorithm algorithm;
	struct conf_sizes sizes;
	enum conf_dtype dtype;
	uint32_t iterations, warmup;
	enum conf_verify verify;
	uint32_t ranks;			/* hosts h0..h{ranks-1} take part; 0 = all */
	char *root;			/* incast: the receiving host, default "h0" */
	uint32_t root_host;		/* its number */
	uint32_t depth;			/* write_bw: writes in flight per QP */
	uint32_t messages;		/* write_bw: writes per QP and iteration */
	bool bidirectional;		/* write_bw: both hosts of a pair send */
	uint64_t gap_ps;		/* compute gap before every iteration but the first */
	char *matrix;			/* alltoallv: "" or a file of n x n per-pair weights */
	double zipf;			/* alltoallv: 0, or the skew of destinations */
	char *hosts;			/* "" = h0..h{ranks-1}; else the host set, rank g
					 * on its g-th host (conf_hosts_expand) */
	/* several jobs at once (traffic as a list, docs/config.md "Several jobs") */
	char *name;			/* [A-Za-z0-9_-], unique; default job{index} */
	uint64_t start_ps;		/* first iteration's start, after @after's end if given */
	char *after;			/* "" or the name of the job whose end starts this one */
	bool share;			/* may share hosts with another job that shares too */
	struct conf_phase *phases;	/* a step's sequence, run every iteration; none: the
					 * pattern of every size */
	size_t n_phases;
	uint64_t rate_bps;		/* background: what each host offers */
	enum conf_bg_mode mode;		/* background: destinations */
};

/* Most sizes one job may list or step through (a run keeps a row of results for each). */
#define CONF_SIZES_MAX 64

/*
 * Expands @s into at most @cap sizes in @out (ascending for a range). Returns the count
 * (which may exceed @cap: then only @cap were written).
 */
size_t conf_sizes_expand(const struct conf_sizes *s, uint64_t *out, size_t cap);

struct conf_fault {
	bool has_at, has_at_iteration;	/* exactly one is set */
	bool has_rate, has_delay, has_period, has_duty, has_duration;	/* given in the config */
	uint64_t at_ps;
	uint32_t at_iteration;		/* at the start of that measured iteration (0-based) */
	char *target;
	struct conf_node node;		/* @target resolved */
	enum conf_fault_action action;
	double rate;			/* loss: drop probability 0..1 */
	uint64_t delay_ps;		/* delay: added one-way delay */
	uint64_t period_ps;		/* flap: one down+up cycle */
	double duty;			/* flap: fraction of the period spent down, 0..1 */
	uint64_t duration_ps;		/* 0 = until changed; else auto-revert after it */
	enum conf_direction direction;
};

struct conf_capture {
	char *point;
	struct conf_node node;
	enum conf_cap_dir dir;
	uint32_t snaplen;		/* 1..262144 (C05: 0 is rejected) */
	enum conf_tsresol tsresol;
};

struct conf_hist {
	uint64_t lowest_ns, highest_ns;	/* trackable range, lowest >= 1, highest >= 2*lowest */
	uint32_t sigfigs;		/* 1..5 */
	double *percentiles;		/* 0..100 scale, ascending */
	size_t n_percentiles;
};

struct conf_output {
	char *dir;
	struct conf_capture *captures;
	size_t n_captures;
	struct conf_hist hist;
	bool report, plots, hlog;
};

/* The wire driver's dataplane (docs/config.md "wire", docs/wire-xdp.md). */
struct conf_wire {
	enum conf_dataplane dataplane;	/* socket (default), xdp, auto */
	enum conf_xdp_copy xdp_copy;	/* auto: zero copy where the driver has it, else copy */
	uint32_t xdp_queue;		/* the NIC queue each port's AF_XDP socket binds to */
	uint32_t xdp_threads;		/* dataplane threads, 1..fabric.planes; 0: one per port */
};

/* `mrcgen sweep`: the probe plan, its bounds and the inference (docs/sweep.md). */
struct conf_sweep {
	uint32_t cover;			/* 0: every EV of every pair; k: each link on >= k paths */
	uint32_t probes;		/* EV probes per path */
	uint32_t rate;			/* probes a second, per host */
	uint32_t outstanding;		/* probes in flight, per host: 1..64 (MRC_EP_PROBES_MAX) */
	uint64_t timeout_ps;		/* an answer later than this is a loss */
	uint64_t max_time_ps;		/* no probe leaves after this, from the sweep's start */
	double min_score;		/* least log-likelihood gain of a suspect */
};

/* The simulator itself (docs/config.md "sim"). */
struct conf_sim {
	uint32_t workers;		/* threads of a parallel run: 1 serial (docs/architecture.md
					 * "Parallel simulation") */
};

struct conf_job {
	uint64_t seed;
	struct conf_sim sim;
	struct conf_fabric fabric;
	struct conf_wire wire;
	struct conf_mrc mrc;
	struct conf_traffic traffic;	/* the (first) job */
	struct conf_traffic *more_traffic; /* traffic as a list: the jobs after the first */
	size_t n_more_traffic;
	bool traffic_list;		/* traffic was written as a list (of one or more jobs) */
	struct conf_fault *faults;
	size_t n_faults;
	struct conf_sweep sweep;
	struct conf_output output;
	char *source;			/* the file it came from, for reports */
};

/* Jobs of @job: 1 + n_more_traffic. */
static inline size_t conf_jobs(const struct conf_job *job)
{
	return 1 + job->n_more_traffic;
}

/* Job @i of @job (i < conf_jobs): traffic, then more_traffic[i - 1]. */
static inline const struct conf_traffic *conf_job_traffic(const struct conf_job *job, size_t i)
{
	return i ? &job->more_traffic[i - 1] : &job->traffic;
}

/*
 * Fills @job with every default (docs/config.md "Keys"). Returns 0 or -ENOMEM; on success the
 * caller owns @job and releases it with conf_free().
 */
int conf_defaults(struct conf_job *job);

/*
 * Loads @path into @job: the defaults, then the file, then the @n_sets overrides of
 * @sets ("key.path=value", a list element as "faults[0].rate=0.1"; the value is YAML, so
 * "traffic.sizes=[1MiB,4MiB]" works). Strict (docs/config.md "Strictness"): unknown
 * or duplicate keys, wrong types, bad units, out-of-range values, unknown topology
 * names, an empty file (no document; "{}" gives the defaults), nesting deeper than 64
 * levels and more than 200000 YAML nodes are errors. On error returns a negative errno
 * (-EINVAL for a bad config, -ENOENT or another from fopen or read, -EFBIG above 64 MiB,
 * -ENOMEM), writes "FILE:LINE:COL: key.path: reason 'value'"
 * (1-based) into @err and leaves @job zeroed: nothing half-loaded survives.
 */
int conf_load(const char *path, const char *const *sets, size_t n_sets, struct conf_job *job,
	char *err, size_t errlen);

/* As conf_load() from a string; @name stands for the file name in messages. */
int conf_load_string(const char *text, size_t len, const char *name, const char *const *sets,
	size_t n_sets, struct conf_job *job, char *err, size_t errlen);

/*
 * A whole-job check that needs more than conf/ knows: the engine's addressing plan, EV
 * profile, packet sizes and collectives (mrc/job/job.c's mrc_job_check). Returns 0, or a
 * negative errno with the dotted key path of the field at fault in @key ("fabric.t0",
 * "traffic.sizes[1]", "mrc.ev.deny[0]") and the reason, ending in the quoted value, in
 * @msg; -ENOMEM may leave both empty.
 */
typedef int (*conf_check_fn)(const struct conf_job *job, char *key, size_t keylen, char *msg,
	size_t msglen);

/*
 * As conf_load() (and conf_load_string()), then @check on the loaded job while the
 * positions are still known: its error becomes "FILE:LINE:COL: key: reason" pointing at
 * the value of @key, or at the nearest enclosing mapping that was written when the key
 * itself was defaulted ("FILE: key: reason" when nothing on its path was), or
 * "--set K=V: key: reason" when an override set it. @check NULL checks nothing more.
 */
int conf_load_checked(const char *path, const char *const *sets, size_t n_sets,
	conf_check_fn check, struct conf_job *job, char *err, size_t errlen);
int conf_load_string_checked(const char *text, size_t len, const char *name,
	const char *const *sets, size_t n_sets, conf_check_fn check, struct conf_job *job,
	char *err, size_t errlen);

/*
 * As conf_load_checked(), and @path may also be a report.json of `mrcgen run`, or an
 * output directory holding one: the config embedded in it (its "config" string, the
 * effective config with its seed) is loaded with @sets on top. A path is a report when it
 * is a directory, its name ends in ".json", or it is a regular file holding a JSON object
 * with a "schema" key (a pipe is read once: as YAML).
 * Errors name the report: "REPORT: not an mrcgen report: ...", "DIR: a directory without
 * report.json: ...", and inside the embedded config "REPORT: config:LINE:COL: key: reason".
 * When the report's "wire" object holds a base RTT the wire run measured (or defaulted)
 * and the job runs on the simulator with mrc.cc.base_rtt 0 and no --set of it, that RTT
 * becomes mrc.cc.base_rtt (before @sets). The job's source is the report's path.
 */
int conf_load_any_checked(const char *path, const char *const *sets, size_t n_sets,
	conf_check_fn check, struct conf_job *job, char *err, size_t errlen);

/* Releases everything @job owns and zeroes it; safe on a zeroed or defaulted job. */
void conf_free(struct conf_job *job);

/*
 * Writes the effective config of @job to @f as YAML, every field included, in units that
 * parse back exactly: conf_load() of the output gives an identical struct.
 * Returns 0 or -EIO.
 */
int conf_dump(const struct conf_job *job, FILE *f);

/* conf_dump() into a malloc'ed NUL-terminated string (*@len bytes when @len is not
 * NULL); the caller frees it. NULL on -ENOMEM or a write error. */
char *conf_dump_string(const struct conf_job *job, size_t *len);

/*
 * Resolves the node name @name against @fab (see struct conf_node). Returns 0, -EINVAL
 * when @name is not a node name at all, -ENOENT when it names something outside the
 * topology (a plane, switch, host or link that does not exist).
 */
int conf_node_parse(const struct conf_fabric *fab, const char *name, struct conf_node *out);

/*
 * Expands a host set (traffic.hosts: "h0-h15", "h0,h8,h16", "h0-h3,h8-h11"; ranges
 * inclusive, ascending, spaces around commas allowed) into at most @cap host numbers in
 * @out, in the written order. Returns the count (which may exceed @cap), -EINVAL for a
 * syntax error or a host outside @fab, -EEXIST for a host named twice; then @bad (when
 * not NULL) gets the offending item (at most 48 bytes).
 */
long conf_hosts_expand(const struct conf_fabric *fab, const char *set, uint32_t *out,
	size_t cap, char *bad);

/*
 * Loads traffic.matrix @path: @n rows of @n non-negative numbers (per-pair weights, row =
 * sender), separated by spaces or commas; blank lines and '#' comments skipped. Returns 0,
 * or a negative errno with "PATH:LINE: reason" in @err: -ENOENT (or fopen's) when it cannot
 * be read, -EINVAL for a row of the wrong length, a bad number, too few or too many rows.
 */
int conf_matrix_load(const char *path, uint32_t n, double *w, char *err, size_t errlen);

/* Writes the canonical name of @n into @buf (48 bytes are enough); returns @buf. */
char *conf_node_format(const struct conf_node *n, char *buf, size_t len);

/*
 * The file name (no directory) a capture writes in output.dir: its point with '>' and '/'
 * made '_', then ".pcap" ("h0.p0.pcap"); cut to @len - 1 bytes. Two captures with the
 * same file name are refused when a config is loaded. Returns @buf.
 */
char *conf_capture_file(const struct conf_capture *c, char *buf, size_t len);

/*
 * Command-line options shared by the subcommands that read a config: "--set K=V" and
 * "--set=K=V" (repeatable), "-o DIR"/"--out DIR"/"--out=DIR" (an override of
 * output.dir). Other arguments are left, in order, in @rest.
 */
struct conf_args {
	const char **sets;		/* points into argv, and at the --out override */
	size_t n_sets;
	const char **rest;
	size_t n_rest;
	char *out_set;			/* owned "output.dir=DIR" string */
};

/*
 * Parses @argc/@argv (argv[0] is the subcommand name and is skipped). Returns 0, or
 * -EINVAL with a message in @err ("--set: missing value", "--set: 'x': expected
 * KEY=VALUE"), or -ENOMEM. Release with conf_args_free().
 */
int conf_args_parse(int argc, char **argv, struct conf_args *a, char *err, size_t errlen);
void conf_args_free(struct conf_args *a);

#endif
