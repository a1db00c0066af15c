/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_wrtt.h: the record format of fuzz_wrtt's inputs, shared with its corpus generator.
 * Each record:
 *
 *   u8 head   FW_RAW: raw bytes follow, else template fields; FW_NO_ROOM: no buffer for
 *             the answer (a full reply queue)
 *   u8 delta  time run before the record, in FW_DELTA_NS: rank 0 sends what it may
 *   FW_RAW:   u16 length (big endian, mod MRC_PKT_MAX), then that many bytes (fewer if the
 *             input ends): an inner IPv6 packet as the protocol-41 socket delivers it
 *   template: u8 source (mod 4: that host's address for EV, rank 0 naming host 1; from 4:
 *             the address of host (mod 8) on u8 plane (mod 3), in or out of the job), u32 EV,
 *             u8 BTH flags (0x80: a request), u8 DestQP sel (odd: u32 raw, else 0),
 *             u16 probe id (rank 0's are 1, 2, ...), u16 tx_ts
 *
 * Fields past the input's end read as 0.
 */
#ifndef HARNESS_FUZZ_FUZZ_WRTT_H
#define HARNESS_FUZZ_FUZZ_WRTT_H

#include "harness/fuzz/rd.h"

#define FW_RAW	    0x01
#define FW_NO_ROOM  0x02
#define FW_RANK	    0u
#define FW_NRANKS   4u
#define FW_PLANES   2u
#define FW_T0	    1000000000ull
#define FW_DELTA_NS 10000ull
#define FW_REPLY_CAP 128 /* the wire driver's answer slot (struct rtt_reply) */

#endif
