/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fault: the `faults:` timeline of a job and its bookkeeping in the result, the same for
 * both drivers (the simulator applies faults in its fabric, the wire driver at the
 * endpoints, wire/epfault.h): README "Report schema", faults[] and faults_not_applied[].
 */
#ifndef MRC_FAULT_H
#define MRC_FAULT_H

#include "conf/conf.h"

/*
 * The fraction of the fabric's capacity left while fault @cf is in force, both drivers'
 * faults[].capacity_left (README "Report schema"): 1 - 1/(planes x t1) for a T1, 1 -
 * 1/planes for a T0 or a host port or its link (the collective follows its slowest rank),
 * 1 - 1/(planes x t1 x t0) for a T0-T1 link, 0 for a host; 1 for up, clear, loss and delay
 * (every link stays up: the goodput target is the clean level).
 */
double mrc_run_capacity_left(const struct conf_fabric *f, const struct conf_fault *cf);

#endif
