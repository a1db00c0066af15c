// SPDX-License-Identifier: BSD-2-Clause
/*
 * fuzz_wrtt: libFuzzer entry for the receive side of the wire driver's base-RTT echo
 * (mrc/wire/wrtt.h, mrc_wrtt_rx and mrc_wrtt_on_reply) at rank 0 of 4 hosts on a 2-plane
 * plan (2 T0 + 2 T1 a plane, 2 hosts a T0), with 4 of its probes in flight. The input is
 * a sequence of records (harness/fuzz/fuzz_wrtt.h): raw inner packets, or echo probes
 * built from fields (requester, plane, EV, probe id, flags, DestQP) and encoded by
 * mrc_wire_encode so they pass the checksums. abort() on: an answer that is not the
 * request's echo (a REPLY, same probe id, tx_ts and EV, from rank 0 to the host the
 * request's source address names, on the EV's plane, within the buffer); an answer to a
 * source that is no other host of the job; a reply taken that answers no probe in flight,
 * or with an RTT longer than the time since the measurement began; more answers than
 * probes sent.
 */
#include "mrc/wire/wrtt.h"
#include "harness/fuzz/fuzz_wrtt.h"

#include "mrc/base/bytes.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct mrc_srv6_plan *fw_plan;
static struct mrc_wire_cfg fw_cfg;

static int fw_init(void)
{
	struct mrc_srv6_params sp;

	mrc_srv6_params_default(&sp);
	sp.planes = 2;
	sp.t0 = 2;
	sp.t1 = 2;
	sp.hosts_per_t0 = 2;
	mrc_wire_cfg_default(&fw_cfg);
	return mrc_srv6_plan_new(&sp, &fw_plan, NULL, 0);
}

/* The answer @rep (@n bytes, whole packet, to send on @plane) to request @req. */
static void fw_check_answer(const struct mrc_pkt *req, const uint8_t *rep, size_t n,
	unsigned plane)
{
	struct mrc_srv6_path path;
	struct mrc_pkt a;
	unsigned spl, dpl;
	uint32_t from, to;
	size_t io;

	if (n < MRC_IP6_HLEN || n > FW_REPLY_CAP)
		abort();
	io = MRC_IP6_HLEN + (rep[6] == 43 ? ((size_t)rep[41] + 1) * 8 : 0);
	if (io >= n || mrc_wrtt_classify(&fw_cfg, rep + io, n - io, &a) != MRC_WRTT_REPLY)
		abort();
	if (a.peth.probe_id != req->peth.probe_id || a.peth.tx_ts != req->peth.tx_ts ||
		a.ev != req->ev)
		abort();
	/* the requester: a host of the job other than rank 0, the answer's destination */
	if (mrc_srv6_addr_host(fw_plan, &req->src, &spl, &from) || from == FW_RANK ||
		from >= FW_NRANKS)
		abort();
	if (mrc_srv6_addr_host(fw_plan, &a.dst, &dpl, &to) || to != from ||
		mrc_srv6_addr_host(fw_plan, &a.src, &dpl, &to) || to != FW_RANK)
		abort();
	if (mrc_srv6_path(fw_plan, FW_RANK, from, req->ev, &path) || path.plane != plane ||
		plane >= FW_PLANES)
		abort();
}

/* Builds the echo probe of record fields @r into @buf: its inner packet's offset, or -1. */
static int fw_template(struct fz_rd *r, uint8_t *buf, size_t cap, size_t *len)
{
	struct mrc_pkt p;
	uint8_t who = fz_rd8(r), plane = fz_rd8(r);
	uint32_t ev = fz_rd32(r);
	int n;

	memset(&p, 0, sizeof(p));
	if (mrc_srv6_address(fw_plan, who % 4 == FW_RANK ? 1 : who % 4, FW_RANK, ev, &p))
		memset(&p, 0, sizeof(p));
	if (who >= 4) /* another source: host who % 8 (past the job from 4), plane as given */
		mrc_srv6_host_addr(fw_plan, plane % 3, who % 8, &p.src);
	p.hop_limit = 64;
	p.ecn = 2;
	p.ev = ev;
	p.opcode = MRC_OP_PROBE;
	p.pkey = 0xffff;
	p.flags = fz_rd8(r);
	p.dest_qp = fz_rd8(r) & 1 ? fz_rd32(r) & 0xffffff : 0;
	p.peth.probe_id = fz_rd16(r);
	p.peth.tx_ts = fz_rd16(r);
	p.n_segs = 0;
	n = mrc_wire_encode(&fw_cfg, &p, buf, cap);
	if (n <= MRC_IP6_HLEN)
		return -1;
	*len = (size_t)n - MRC_IP6_HLEN;
	return MRC_IP6_HLEN;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t evs[] = {0x00000000, 0x00010000, 0x10000000, 0x10010000};
	const struct mrc_wrtt_host h = {fw_plan, &fw_cfg, FW_RANK, FW_NRANKS, FW_PLANES};
	struct mrc_wrtt_params tp = {.cfg = &fw_cfg, .rank = FW_RANK, .nranks = FW_NRANKS,
		.evs = evs, .n_evs = 4, .per_peer = 8, .window = 4,
		.probe_timeout_ns = 1000000, .budget_ns = 50000000, .percentile = 10};
	static uint8_t buf[MRC_PKT_MAX], rep[FW_REPLY_CAP];
	struct fz_rd r = {data, size};
	struct mrc_wrtt_stats s;
	struct mrc_wrtt *t;
	uint64_t now = FW_T0;
	unsigned plane;

	if (!fw_plan && fw_init())
		abort();
	tp.plan = fw_plan;
	if (mrc_wrtt_new(&tp, FW_T0, &t))
		abort();
	while (r.n) {
		uint8_t head = fz_rd8(&r);
		struct mrc_wrtt_stats before;
		const uint8_t *in = buf;
		struct mrc_pkt p;
		size_t len = 0, n;
		int kind, off;

		now += (uint64_t)fz_rd8(&r) * FW_DELTA_NS;
		/* the measurement sends whatever its window lets it */
		while (mrc_wrtt_next(t, now, buf, sizeof(buf), &plane) > 0)
			;
		if (head & FW_RAW) {
			in = fz_rd_bytes(&r, fz_rd16(&r) % MRC_PKT_MAX, &len);
		} else if ((off = fw_template(&r, buf, sizeof(buf), &len)) >= 0) {
			in = buf + off;
		} else {
			continue;
		}
		kind = mrc_wrtt_rx(&h, in, len, &p, head & FW_NO_ROOM ? NULL : rep, sizeof(rep),
			&n, &plane);
		if (kind == MRC_WRTT_REQUEST && n)
			fw_check_answer(&p, rep, n, plane);
		if ((kind != MRC_WRTT_REQUEST || head & FW_NO_ROOM) && n)
			abort();
		mrc_wrtt_stats(t, now, &before);
		if (kind == MRC_WRTT_REPLY && mrc_wrtt_on_reply(t, &p, now)) {
			mrc_wrtt_stats(t, now, &s);
			if (s.answered != before.answered + 1 || s.max_ns > now - FW_T0)
				abort();
		}
	}
	mrc_wrtt_stats(t, now, &s);
	if (s.answered > s.sent || s.answered + s.lost > s.sent || s.min_ns > s.max_ns)
		abort();
	mrc_wrtt_free(t);
	return 0;
}
