/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * loop: the wire driver's io_uring event loop — multishot recvmsg into a provided-buffer
 * ring, batched sendmsg from a preallocated send pool the caller encodes into directly (no
 * second copy), every queued send submitted by one io_uring_enter per turn, a wait bounded
 * by the caller (the engine's next timer), and counters for every way a packet can go
 * missing (case C13).
 */
#ifndef MRC_LOOP_H
#define MRC_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr_in6;
struct mrc_loop;

/* Ancillary data of one received datagram; fields absent from the cmsgs read as said. */
struct mrc_loop_rx_info {
	int tclass;		/* IPV6_TCLASS (DSCP<<2 | ECN), -1 when not delivered */
	uint64_t ts_ns;		/* SO_TIMESTAMPNS, CLOCK_REALTIME ns; 0 when not delivered */
	uint32_t sock_drops;	/* SO_RXQ_OVFL: drops of this socket so far (cumulative) */
	bool has_drops;		/* sock_drops was delivered (the kernel omits it while 0) */
	bool truncated;		/* MSG_TRUNC: the datagram was longer than the buffer */
	uint32_t full_len;	/* the datagram's length before truncation, bytes */
	int ifindex;		/* IPV6_PKTINFO: the interface it arrived on; 0 when not
				   delivered (the socket did not ask for IPV6_RECVPKTINFO) */
};

/*
 * Receive callback: @buf/@len is the payload (for a protocol-41 raw socket: the inner IPv6
 * packet), valid only during the call; @sock_idx is what mrc_loop_add_rx_socket returned.
 */
typedef void (*mrc_loop_rx_fn)(void *ctx, int sock_idx, const uint8_t *buf, size_t len,
	const struct mrc_loop_rx_info *info);

/* Sizes. Zero fields take the defaults in brackets. */
struct mrc_loop_params {
	unsigned sq_entries;	/* submission queue entries [256]; the CQ gets 8x */
	unsigned rx_bufs;	/* provided receive buffers, a power of two <= 32768 [1024] */
	unsigned rx_buf_size;	/* bytes per receive buffer incl. the C13 header area, rounded
				   up to 8 [10240]; the name area is 32 (28 aligned) */
	unsigned tx_bufs;	/* send-pool slots: sends in flight at once [1024] */
	unsigned tx_buf_size;	/* largest packet mrc_loop_send accepts, bytes [9216] */
};

/* Counters; never reset. "Never silent": every loss inside the host shows up here. */
struct mrc_loop_counters {
	uint64_t rx;		  /* datagrams handed to a callback */
	uint64_t rx_bytes;
	uint64_t tx;		  /* sendmsg completions with res >= 0 */
	uint64_t tx_bytes;
	uint64_t send_errors;	  /* sendmsg completions with res < 0 */
	int last_send_error;	  /* that res (negative errno), 0 when none */
	uint64_t tx_pool_full;	  /* mrc_loop_send refused: every send slot in flight */
	uint64_t rearms;	  /* multishot recvmsg re-armed (CQE without F_MORE) */
	uint64_t enobufs_rearms;  /* ... of which after -ENOBUFS (buffer ring ran dry) */
	uint64_t rx_errors;	  /* recvmsg CQEs with another negative res */
	uint64_t truncated;	  /* datagrams with MSG_TRUNC (longer than a buffer) */
	uint64_t cq_overflow;	  /* loop turns that found IORING_SQ_CQ_OVERFLOW set */
	uint64_t cq_dropped;	  /* CQEs the kernel dropped (cq.koverflow), lost for good */
	uint64_t sock_drops;	  /* latest SO_RXQ_OVFL totals summed over the sockets */
};

/*
 * Probes the running kernel for what the loop needs: io_uring itself, IORING_FEAT_NODROP,
 * IORING_FEAT_EXT_ARG (bounded waits), IORING_FEAT_FAST_POLL, the RECVMSG and SENDMSG
 * opcodes, provided-buffer rings (5.19) and multishot recvmsg (6.0). Returns 0, or
 * -EOPNOTSUPP (or the io_uring_setup errno) with "io_uring: NAME: reason" in @err naming
 * the first missing feature.
 */
int mrc_loop_probe(char *err, size_t errlen);

/*
 * Creates the loop: probes (as above), sets up the ring and registers the buffer ring
 * (group 0) the liburing 2.3 way. Returns 0 or a negative errno with a message in @err.
 */
int mrc_loop_new(const struct mrc_loop_params *p, struct mrc_loop **out, char *err,
	size_t errlen);

/* Cancels outstanding requests, unregisters the buffers and frees the loop. NULL is fine. */
void mrc_loop_free(struct mrc_loop *loop);

/*
 * Adds a receive socket (not owned: the caller closes it after mrc_loop_free) and arms a
 * multishot recvmsg on it; @cb runs for each datagram. Returns the socket index (>= 0), or
 * -ENOSPC (too many sockets, MRC_LOOP_MAX_SOCKS), -EINVAL.
 */
int mrc_loop_add_rx_socket(struct mrc_loop *loop, int fd, mrc_loop_rx_fn cb, void *ctx);

/* Adds a send-only socket (not owned). Returns its socket index, or -ENOSPC. */
int mrc_loop_add_tx_socket(struct mrc_loop *loop, int fd);

#define MRC_LOOP_MAX_SOCKS 256

/* A poll watch's callback: @revents as poll(2) reports them. */
typedef void (*mrc_loop_poll_fn)(void *ctx, int idx, unsigned revents);

/*
 * Adds a poll watch on @fd (not owned; an AF_XDP socket of the xdp dataplane), not yet
 * armed. Returns its index (>= 0, in the sockets' numbering), -ENOSPC or -EINVAL.
 */
int mrc_loop_add_poll(struct mrc_loop *loop, int fd, mrc_loop_poll_fn cb, void *ctx);

/*
 * Arms watch @idx for @events (POLLIN, POLLOUT): one IORING_OP_POLL_ADD, submitted with
 * the next turn, whose completion calls the callback once; a watch already armed keeps
 * its events until it fires. Returns 0, -EBADF (not a watch) or -EBUSY (no SQE).
 */
int mrc_loop_arm_poll(struct mrc_loop *loop, int idx, unsigned events);

/*
 * Queues one datagram on socket @sock_idx to @dst (NULL: a connected socket): the bytes
 * are copied into a send-pool slot, the sendmsg SQE goes out with the next
 * mrc_loop_run_once (one submit per turn). Returns 0, -EMSGSIZE (len > tx_buf_size),
 * -ENOBUFS (every slot in flight: run the loop, then retry; counted), -EBADF (bad index).
 */
int mrc_loop_send(struct mrc_loop *loop, int sock_idx, const void *buf, size_t len,
	const struct sockaddr_in6 *dst);

/*
 * Zero-copy sending, in two steps: mrc_loop_tx_buf() lends the free send-pool slot the
 * next commit will use (@cap: tx_buf_size bytes; NULL when every slot is in flight), the
 * caller writes its packet there, then mrc_loop_tx_commit() queues @len bytes of it as
 * mrc_loop_send() would. Not committing is fine: the slot stays free. Commit returns 0,
 * -EMSGSIZE, -ENOBUFS (no slot was free; counted), -EBADF, -EBUSY (no SQE).
 */
uint8_t *mrc_loop_tx_buf(struct mrc_loop *loop, size_t *cap);
int mrc_loop_tx_commit(struct mrc_loop *loop, int sock_idx, size_t len,
	const struct sockaddr_in6 *dst);

/* Send-pool slots free now (mrc_loop_tx_buf succeeds while this is > 0). */
unsigned mrc_loop_tx_free(const struct mrc_loop *loop);

/*
 * One loop turn: submits what is queued, waits at most @timeout_ns (0: do not wait) for a
 * completion, then handles every completion that is ready: receive callbacks, send-slot
 * returns, re-arms, the overflow check. Returns the number of CQEs handled (>= 0), or a
 * negative errno for a failure of the ring itself (a per-request error is counted, not
 * returned).
 */
int mrc_loop_run_once(struct mrc_loop *loop, uint64_t timeout_ns);

/* Copies the counters out. */
void mrc_loop_get_counters(const struct mrc_loop *loop, struct mrc_loop_counters *out);

/* Sends queued or in flight (not yet completed). */
unsigned mrc_loop_tx_inflight(const struct mrc_loop *loop);

/*
 * The C13 layout of one multishot recvmsg buffer: struct io_uring_recvmsg_out (16 bytes),
 * the name area (@namelen, as set in the msghdr), the control area (@controllen, as set),
 * then the payload. From the CQE's @res (bytes the kernel wrote) and the buffer size, gives
 * the payload offset, the payload length (res - offset: always from res, never from the
 * buffer size) and the most payload a buffer can hold. Returns 0, or -EMSGSIZE when @res is
 * negative or smaller than the header area, or the buffer cannot hold the header area.
 */
struct mrc_loop_layout {
	size_t payload_off;
	size_t payload_len;
	size_t payload_cap;
};

int mrc_loop_rx_layout(uint32_t namelen, uint32_t controllen, int res, size_t buf_size,
	struct mrc_loop_layout *out);

#endif
