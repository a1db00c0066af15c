/* SPDX-License-Identifier: BSD-2-Clause */
/* stop: a signal's request that the run stop early, set by mrcgen, read by the drivers. */
#ifndef MRC_STOP_H
#define MRC_STOP_H

#include <signal.h>

/*
 * The signal (SIGINT, SIGTERM) that asked the running job to stop, or 0. mrcgen's handler
 * sets it; a driver checks it between event batches (the simulator every few thousand
 * events, the wire driver every turn of its loop), ends the run as failed with the error
 * "interrupted by SIGNAME", and the outputs of what was measured are written as for any
 * failed run, report.json saying "interrupted": true.
 */
extern volatile sig_atomic_t mrc_stop_signal;

#endif
