/* SPDX-License-Identifier: BSD-2-Clause */
/* stop: a signal's request that the run stop early, set by mrcgen, read by the drivers. */
#include "mrc/job/stop.h"

volatile sig_atomic_t mrc_stop_signal;
