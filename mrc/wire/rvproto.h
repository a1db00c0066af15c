/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rvproto: the pure parts of the wire driver's rendezvous protocol (wirerun.h): framing,
 * the HELLO body and its admission rules, the job token. No I/O, so the parsers can be
 * fuzzed (harness/fuzz/fuzz_rdv.c) and tested alone (`mrcgen-test rvproto`); bootstrap.c
 * does the sockets. docs/wire-driver.md "Rendezvous" describes the behaviour.
 *
 * A frame is a be32 length of what follows (type byte + body, so at least 1), the type
 * byte, then the body. Before a connection is admitted (a valid HELLO) its frames may be
 * MRC_RV_MAX_HELLO bytes long at most; after, MRC_RV_MAX_MSG (a RESULT with its three
 * histograms fits easily). A longer length is refused as soon as its 4 bytes are in: no
 * buffer is grown for it.
 *
 * HELLO body, version MRC_WIRERUN_PROTO (3), 22 + T bytes:
 *   version u32, rank u32, nranks u32, config hash u64, token length T u16, T token bytes
 * (T is 0 when the job has no token; at most MRC_RV_TOKEN_MAX).
 */
#ifndef MRC_RVPROTO_H
#define MRC_RVPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRC_RV_MAX_MSG	  (64u << 20) /* a frame of an admitted rank, after the length */
#define MRC_RV_MAX_HELLO  512u	      /* a frame before admission: HELLO with a full token */
#define MRC_RV_TOKEN_MAX  256u	      /* job token bytes */
#define MRC_RV_HELLO_BASE 22u	      /* HELLO bytes before the token */
#define MRC_RV_TOKEN_ENV  "MRCGEN_JOB_TOKEN"

/* One frame: its type and body (pointing into the buffer parsed). */
struct mrc_rv_frame {
	uint8_t type;
	const uint8_t *body;
	size_t len;
};

/*
 * The first frame of the @have bytes at @buf, whose length field may be @max at most.
 * Returns 1 with *@f set and *@used the frame's bytes (4 + length); 0 when the frame is not
 * complete yet, with *@used the bytes it will take once its length is known (0 before
 * that: fewer than 4 bytes); -EPROTO when the length is 0 or above @max (*@used = 0).
 */
int mrc_rv_frame_parse(const uint8_t *buf, size_t have, uint32_t max, struct mrc_rv_frame *f,
	size_t *used);

/* A HELLO's fields; token points into the body parsed (or the caller's token). */
struct mrc_rv_hello {
	uint32_t version, rank, nranks;
	uint64_t hash;
	const uint8_t *token;
	size_t token_len;
};

/*
 * Writes HELLO @h into @buf (@cap bytes). Returns its length (MRC_RV_HELLO_BASE +
 * token_len), or -EINVAL when the token is longer than MRC_RV_TOKEN_MAX or @cap too small.
 */
int mrc_rv_hello_encode(const struct mrc_rv_hello *h, uint8_t *buf, size_t cap);

/*
 * Reads a HELLO body of @len bytes. Returns 0, or -EPROTO with the reason in @why: shorter
 * than the version field, another protocol version (checked first, so an old build is told
 * so), a length that is not MRC_RV_HELLO_BASE + the token length, a token longer than
 * MRC_RV_TOKEN_MAX.
 */
int mrc_rv_hello_parse(const uint8_t *body, size_t len, struct mrc_rv_hello *h, char *why,
	size_t whylen);

/*
 * Rank 0's admission rule for HELLO @h in a job of @nranks ranks with config hash @hash and
 * job token @token (@token_len bytes, 0: none): the token first (compared in constant time,
 * mrc_rv_token_equal), then the rank (1..nranks-1, not @joined[rank] already), the job size
 * and the hash. Returns 0, -EACCES (token) or -EPROTO, with the reason in @why, which names
 * neither token.
 */
int mrc_rv_hello_admit(const struct mrc_rv_hello *h, uint32_t nranks, uint64_t hash,
	const uint8_t *token, size_t token_len, const bool *joined, char *why, size_t whylen);

/*
 * True when tokens @a (@alen bytes) and @b (@blen) are equal. Takes the same time whatever
 * their bytes (it reads MRC_RV_TOKEN_MAX bytes of each, zero-padded; a length above that is
 * never equal), so a client cannot guess a token byte by byte from the time rank 0 takes.
 */
bool mrc_rv_token_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/*
 * The job token: the contents of @file when non-NULL (a trailing newline or CR LF removed),
 * else $MRCGEN_JOB_TOKEN when set and not empty. Returns 1 with the token in @tok (@cap >=
 * MRC_RV_TOKEN_MAX bytes) and its length in *@len, 0 when there is none, or -EINVAL /
 * -errno with "rendezvous: ..." in @err (file unreadable, empty, longer than
 * MRC_RV_TOKEN_MAX bytes).
 */
int mrc_rv_token_load(const char *file, uint8_t *tok, size_t cap, size_t *len, char *err,
	size_t errlen);

/* True when rendezvous address @addr is a unix socket ("unix:PATH" or a path with a '/'). */
bool mrc_rv_addr_unix(const char *addr);

#endif
