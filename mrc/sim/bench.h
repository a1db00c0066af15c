/* SPDX-License-Identifier: BSD-2-Clause */
/* bench: fixed performance scenarios of the simulator behind `mrcgen bench` / `make bench`. */
#ifndef MRC_BENCH_H
#define MRC_BENCH_H

#include <stdio.h>

/*
 * Runs the scenario named @only (all when NULL) and prints one line per scenario to @out:
 * simulated packets, packet-hops, events, wall time, packet-hops and events per wall
 * second, peak RSS, bytes per host and per packet in flight. Scenarios: "evq" (event
 * queue hold model, heap against wheel), "fabric-128" (128 hosts, 4 planes, synthetic
 * sprayed all-to-all at line rate), "fabric-1k" (1020 hosts, 8 planes: docs/wire-format.md's
 * generated plan numbers at most 1023 host ports per plane), "fabric-8k" (8192 hosts,
 * 8 planes, a uSID space per plane: usid_plane_bits 0), and the real jobs run by
 * `mrcgen run` in a child (peak RSS per child: mrc_bench_child_init; figures from its
 * report.json):
 * "job-quickstart" (both queues), "job-a2a128", "job-perm128", "job-perm1k",
 * "job-perm8k" (conf/examples/, relative to the working directory), each compared with
 * the fabric-only scenario of its scale measured in the same run (no stored figures; htsim
 * side by side: harness/htsim/compare.sh). @queue: "heap", "wheel" or NULL (default
 * backend). Returns 0, -ESRCH for an unknown scenario, -ENOENT for a missing config
 * (said on @out), -EIO for a failed job (its log kept and named on @out), -EINVAL for an
 * unknown queue or a topology the plan rejects (said on @out), -ENOMEM.
 */
int mrc_bench_run(const char *only, const char *queue, FILE *out);

/*
 * Called first by main. When MRCGEN_BENCH_HWM names a file (mrc_bench_run sets it for the
 * jobs it runs), the process writes its peak RSS there in KiB as it exits: VmHWM of
 * /proc/self/status, the program's own from its exec on. wait4's ru_maxrss also counts the
 * forking parent's pages (the bench process's 5.6 MB, after its in-process scenarios, was
 * taken for `mrcgen check`'s 4.5 MB floor: 9 KB per host at 128 hosts).
 */
void mrc_bench_child_init(void);

#endif
