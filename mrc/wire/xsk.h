/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xsk: one NIC port of the xdp dataplane (docs/wire-xdp.md) — the XDP program
 * (mrc/wire/bpf/mrc_xdp.c, rule mrc/wire/xdpcls.h) attached in native mode through a BPF
 * link (detached when the process ends, however it ends), a UMEM and an AF_XDP socket on
 * one queue through libxdp, batched TX, completion and fill rings, need_wakeup, and zero
 * copy where the driver has it with copy mode as the fallback.
 *
 * UMEM layout (frames of 4096 bytes, the most a page-aligned chunk may be):
 *   [rx_frames receive frames | reasm reassembly slots | tx_slots send slots]
 * A send slot is as many consecutive frames as the largest frame needs; the engine encodes
 * its packet straight into the slot after the 14-byte Ethernet header (no copy), and a
 * packet longer than one frame goes out as a multi-buffer packet (one descriptor per frame,
 * XDP_PKT_CONTD on all but the last; AF_XDP multi-buffer, Linux 6.6). A received packet
 * longer than a frame arrives in several frames; it is copied into a reassembly slot so
 * the engine reads it whole (counted in rx_reassembled).
 *
 * Single-threaded: every call on one port comes from the thread that owns it, except
 * mrc_xsk_slot_buf (arithmetic only). Slots lent to another thread (mrc_xsk_lend) come
 * back through the done callback.
 */
#ifndef MRC_XSK_H
#define MRC_XSK_H

#include "mrc/wire/xdpcls.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRC_XSK_FRAME	  4096u
#define MRC_XSK_MAX_FRAME 9216u	/* the engine's largest packet (MRC_PKT_MAX) + Ethernet */

/* The linked-in BPF object (xskprog.c). */
extern const unsigned char mrc_xdp_obj_start[], mrc_xdp_obj_end[];

enum mrc_xsk_copy {
	MRC_XSK_AUTO = 0,	/* zero copy where the driver has it, else copy mode */
	MRC_XSK_ZEROCOPY,	/* zero copy or an error */
	MRC_XSK_COPY,		/* copy mode */
};

struct mrc_xsk_params {
	const char *ifname;
	unsigned queue;		/* the queue the socket binds to */
	enum mrc_xsk_copy copy;
	uint32_t max_frame;	/* largest frame sent or received, Ethernet header included */
	unsigned rx_frames;	/* receive frames (a power of two) [8192] */
	unsigned tx_slots;	/* send slots [1024] */
	unsigned reasm_slots;	/* reassembly slots [512] */
	bool hugepages;		/* try a UMEM of 2 MiB pages first */
	struct mrc_xdp_cfg addrs; /* the port's locator and inner address (xdpcls.h) */
};

/* What the port runs with, after the fallbacks. */
struct mrc_xsk_info {
	unsigned ifindex, queues;	/* queues: the device's receive queues */
	bool zero_copy, need_wakeup, multi_buffer, hugepages;
	uint32_t slot_frames;		/* frames per send slot */
	char driver[32];		/* ethtool's driver name ("veth") */
	uint8_t mac[6], nexthop_mac[6];
};

/* Counters; never reset. The kernel's and the program's are read on demand. */
struct mrc_xsk_stats {
	uint64_t rx, rx_bytes;		/* packets handed out by mrc_xsk_rx */
	uint64_t rx_reassembled;	/* multi-buffer packets copied into a reassembly slot */
	uint64_t rx_dropped;		/* too long, or no reassembly slot free: dropped here */
	uint64_t tx, tx_bytes;		/* packets completed */
	uint64_t tx_kicks, tx_kick_errors; /* wakeup syscalls, and those that failed */
	int last_kick_error;		/* its negative errno (-ENETDOWN: the link is down) */
	/* the kernel's (XDP_STATISTICS) */
	uint64_t k_rx_dropped, k_rx_invalid, k_tx_invalid, k_rx_ring_full, k_fill_empty;
	/* the program's, summed over CPUs (enum mrc_xdp_verdict) */
	uint64_t prog[MRC_XDP_NCOUNT];
};

struct mrc_xsk;

/*
 * Opens the port: checks the interface and its queues, loads and attaches the program,
 * maps the UMEM, binds the socket (zero copy first when @p->copy allows, need_wakeup,
 * multi-buffer when max_frame needs it), fills the fill ring, and learns the port's MAC.
 * Returns 0, or a negative errno with a message naming the port and, where one applies,
 * what to fall back to in @err: -ENODEV (no such interface), -ERANGE (queue past the
 * device's queues), -EPERM (no CAP_NET_ADMIN/CAP_BPF), -EOPNOTSUPP (no native XDP, no
 * zero copy when it was demanded, no multi-buffer AF_XDP for frames above one frame),
 * -EBUSY (another XDP program on the port), -ENOMEM.
 */
int mrc_xsk_open(const struct mrc_xsk_params *p, struct mrc_xsk **out, char *err,
	size_t errlen);
void mrc_xsk_close(struct mrc_xsk *x);
const struct mrc_xsk_info *mrc_xsk_info(const struct mrc_xsk *x);
/* The AF_XDP socket, for the event loop's poll. */
int mrc_xsk_fd(const struct mrc_xsk *x);

/*
 * Finds the Ethernet address frames to @dst (an outer destination the port sends to) must
 * carry: the gateway of the kernel's route to @dst out of the port (or @dst itself on
 * link), looked up in the neighbour table, with neighbour discovery started and awaited
 * (at most @wait_ms) when it has no entry. Sets it as the port's next hop. Returns 0, or
 * -EHOSTUNREACH (no route out of this port, no answer) with a message in @err.
 */
int mrc_xsk_resolve(struct mrc_xsk *x, const uint8_t dst[16], unsigned wait_ms, char *err,
	size_t errlen);
/* Sets the next hop's Ethernet address by hand. */
void mrc_xsk_set_nexthop(struct mrc_xsk *x, const uint8_t mac[6]);

/* ---- send ---- */

/*
 * The next free send slot's packet area (after the Ethernet header), *@cap bytes; NULL
 * when every slot is in flight (reap completions: mrc_xsk_poll). Not committing is fine.
 */
uint8_t *mrc_xsk_tx_buf(struct mrc_xsk *x, size_t *cap);
/*
 * Queues the @len-byte IPv6 packet written at the last mrc_xsk_tx_buf: writes the Ethernet
 * header before it and its descriptors into the TX ring (submitted by mrc_xsk_flush).
 * Returns 0, -EMSGSIZE, -ENOBUFS (no slot, or the ring is full).
 */
int mrc_xsk_tx_commit(struct mrc_xsk *x, size_t len);
/* Send slot @slot's packet area (any thread); the slot must be the caller's. */
uint8_t *mrc_xsk_slot_buf(const struct mrc_xsk *x, uint32_t slot, size_t *cap);
/* Queues @len bytes of slot @slot (one lent out and handed back to be sent). */
int mrc_xsk_tx_slot(struct mrc_xsk *x, uint32_t slot, size_t len);
/*
 * Lends up to @n free slots to another thread (@lane, 0..254): their numbers into @slots.
 * Once sent, a lent slot comes back through @done (not to the free slots). Returns how
 * many were lent.
 */
unsigned mrc_xsk_lend(struct mrc_xsk *x, unsigned n, uint32_t *slots, uint8_t lane);
void mrc_xsk_set_done(struct mrc_xsk *x, void (*done)(void *ctx, uint8_t lane, uint32_t slot),
	void *ctx);

/*
 * Submits the queued descriptors and the released receive frames, wakes the kernel where
 * need_wakeup asks for it (and always in copy mode, whose sends run in that syscall),
 * and reaps the completion ring. Returns the number of packets completed.
 */
unsigned mrc_xsk_flush(struct mrc_xsk *x);
/* Send slots free now. */
unsigned mrc_xsk_tx_free(const struct mrc_xsk *x);

/* ---- receive ---- */

struct mrc_xsk_pkt {
	const uint8_t *ip6;	/* the frame after its Ethernet header */
	uint32_t len;
	uint64_t handle;	/* for mrc_xsk_rx_release */
};

/*
 * Up to @max received packets into @pkts (multi-buffer ones reassembled). Each stays valid
 * until mrc_xsk_rx_release of its handle, which gives its frames back to the fill ring
 * (batched, at the next flush).
 */
unsigned mrc_xsk_rx(struct mrc_xsk *x, struct mrc_xsk_pkt *pkts, unsigned max);
void mrc_xsk_rx_release(struct mrc_xsk *x, uint64_t handle);
/* Frames ready in the RX ring (a turn with some does not wait). */
bool mrc_xsk_rx_ready(struct mrc_xsk *x);

void mrc_xsk_get_stats(const struct mrc_xsk *x, struct mrc_xsk_stats *s);

/*
 * Runs the linked-in program once on @frame (BPF_PROG_TEST_RUN, no device needed, as
 * root) with @addrs in its config map; returns the XDP action (XDP_PASS 2, XDP_DROP 1,
 * XDP_REDIRECT 4) and adds the program's counters into @counts, or a negative errno.
 */
int mrc_xsk_prog_test(const struct mrc_xdp_cfg *addrs, const uint8_t *frame, size_t len,
	uint64_t counts[MRC_XDP_NCOUNT]);

#endif
