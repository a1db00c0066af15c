/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * mrc_xdp: the XDP program of the xdp dataplane (docs/wire-xdp.md), one instance per NIC
 * port: the host's MRC frames (mrc/wire/xdpcls.h) go to the AF_XDP socket bound to the
 * queue they came in on, everything else to the kernel; malformed MRC frames and MRC
 * frames of a queue without a socket are dropped. Each verdict is counted per CPU.
 * Built by make with clang -target bpf; the object is linked into mrcgen (xskprog.c) and
 * loaded by mrc/wire/xsk.c. The "xdp.frags" section lets it see multi-buffer frames
 * (jumbo MTUs), whose headers sit in the first buffer.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mrc/wire/xdpcls.h"

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} mrc_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_xdp_cfg);
} mrc_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRC_XDP_NCOUNT);
	__type(key, __u32);
	__type(value, __u64);
} mrc_counts SEC(".maps");

static __always_inline int verdict(__u32 v, int action)
{
	__u64 *n = bpf_map_lookup_elem(&mrc_counts, &v);

	if (n)
		*n += 1;
	return action;
}

SEC("xdp.frags")
int mrc_xdp(struct xdp_md *ctx)
{
	const __u8 *p = (const __u8 *)(long)ctx->data, *end = (const __u8 *)(long)ctx->data_end;
	__u32 zero = 0, q = ctx->rx_queue_index;
	const struct mrc_xdp_cfg *c = bpf_map_lookup_elem(&mrc_cfg, &zero);
	int v;

	if (!c)
		return XDP_PASS;
	v = mrc_xdp_classify(p, end, (__u32)bpf_xdp_get_buff_len(ctx), c);
	if (v == MRC_XDP_PASS)
		return verdict(MRC_XDP_PASS, XDP_PASS);
	if (v == MRC_XDP_MALFORMED)
		return verdict(MRC_XDP_MALFORMED, XDP_DROP);
	if (!bpf_map_lookup_elem(&mrc_xsks, &q))
		return verdict(MRC_XDP_NO_XSK, XDP_DROP);
	verdict(MRC_XDP_OURS, 0);
	return bpf_redirect_map(&mrc_xsks, q, XDP_DROP);
}

char _license[] SEC("license") = "Dual BSD/GPL";
