/* SPDX-License-Identifier: BSD-2-Clause */
/* rvproto: rendezvous framing, HELLO and the job token, without I/O (rvproto.h). */
#include "mrc/wire/rvproto.h"

#include "mrc/base/bytes.h"
#include "mrc/wire/wirerun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mrc_rv_frame_parse(const uint8_t *buf, size_t have, uint32_t max, struct mrc_rv_frame *f,
	size_t *used)
{
	uint32_t len;

	*used = 0;
	if (have < 4)
		return 0;
	len = get_be32(buf);
	if (len == 0 || len > max)
		return -EPROTO;
	*used = 4 + (size_t)len;
	if (have < *used)
		return 0;
	f->type = buf[4];
	f->body = buf + 5;
	f->len = len - 1;
	return 1;
}

int mrc_rv_hello_encode(const struct mrc_rv_hello *h, uint8_t *buf, size_t cap)
{
	size_t n = MRC_RV_HELLO_BASE + h->token_len;

	if (h->token_len > MRC_RV_TOKEN_MAX || cap < n)
		return -EINVAL;
	put_be32(buf, h->version);
	put_be32(buf + 4, h->rank);
	put_be32(buf + 8, h->nranks);
	put_be64(buf + 12, h->hash);
	put_be16(buf + 20, (uint16_t)h->token_len);
	if (h->token_len)
		memcpy(buf + MRC_RV_HELLO_BASE, h->token, h->token_len);
	return (int)n;
}

int mrc_rv_hello_parse(const uint8_t *body, size_t len, struct mrc_rv_hello *h, char *why,
	size_t whylen)
{
	memset(h, 0, sizeof(*h));
	if (len < 4) {
		snprintf(why, whylen, "a %zu-byte HELLO, too short for its version", len);
		return -EPROTO;
	}
	h->version = get_be32(body);
	if (h->version != MRC_WIRERUN_PROTO) {
		snprintf(why, whylen, "rendezvous protocol %u, rank 0 speaks %u (the same mrcgen "
			 "build on every host)", h->version, MRC_WIRERUN_PROTO);
		return -EPROTO;
	}
	if (len < MRC_RV_HELLO_BASE) {
		snprintf(why, whylen, "a %zu-byte HELLO, version %u has %u bytes and the token",
			len, MRC_WIRERUN_PROTO, MRC_RV_HELLO_BASE);
		return -EPROTO;
	}
	h->rank = get_be32(body + 4);
	h->nranks = get_be32(body + 8);
	h->hash = get_be64(body + 12);
	h->token_len = get_be16(body + 20);
	if (h->token_len > MRC_RV_TOKEN_MAX) {
		snprintf(why, whylen, "a %zu-byte token, at most %u", h->token_len,
			MRC_RV_TOKEN_MAX);
		return -EPROTO;
	}
	if (len != MRC_RV_HELLO_BASE + h->token_len) {
		snprintf(why, whylen, "a %zu-byte HELLO with a %zu-byte token (%zu bytes expected)",
			len, h->token_len, MRC_RV_HELLO_BASE + h->token_len);
		return -EPROTO;
	}
	h->token = body + MRC_RV_HELLO_BASE;
	return 0;
}

bool mrc_rv_token_equal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	unsigned diff = (alen != blen) | (alen > MRC_RV_TOKEN_MAX) | (blen > MRC_RV_TOKEN_MAX);

	for (size_t i = 0; i < MRC_RV_TOKEN_MAX; i++) {
		uint8_t x = i < alen ? a[i] : 0, y = i < blen ? b[i] : 0;

		diff |= (unsigned)(x ^ y);
	}
	return diff == 0;
}

int mrc_rv_hello_admit(const struct mrc_rv_hello *h, uint32_t nranks, uint64_t hash,
	const uint8_t *token, size_t token_len, const bool *joined, char *why, size_t whylen)
{
	if (!mrc_rv_token_equal(h->token, h->token_len, token, token_len)) {
		snprintf(why, whylen, "%s job token (%s or --token-file, the same on every rank)",
			h->token_len ? "wrong" : "no", MRC_RV_TOKEN_ENV);
		return -EACCES;
	}
	if (h->nranks != nranks || h->rank == 0 || h->rank >= nranks) {
		snprintf(why, whylen, "rank %u of %u does not fit this job of %u ranks", h->rank,
			h->nranks, nranks);
		return -EPROTO;
	}
	if (joined[h->rank]) {
		snprintf(why, whylen, "rank %u (h%u) joined twice", h->rank, h->rank);
		return -EPROTO;
	}
	if (h->hash != hash) {
		snprintf(why, whylen, "config hash mismatch: h%u runs 0x%016llx, rank 0 runs "
			 "0x%016llx (same file and --set options everywhere)", h->rank,
			(unsigned long long)h->hash, (unsigned long long)hash);
		return -EPROTO;
	}
	return 0;
}

int mrc_rv_token_load(const char *file, uint8_t *tok, size_t cap, size_t *len, char *err,
	size_t errlen)
{
	const char *env = getenv(MRC_RV_TOKEN_ENV);
	size_t n = 0;

	*len = 0;
	if (file) {
		FILE *f = fopen(file, "rb");
		uint8_t extra[MRC_RV_TOKEN_MAX + 3];

		if (!f) {
			int e = errno;

			snprintf(err, errlen, "rendezvous: --token-file: %s: %s", file,
				strerror(e));
			return -e;
		}
		n = fread(extra, 1, sizeof(extra), f);
		fclose(f);
		if (n && extra[n - 1] == '\n')
			n--;
		if (n && extra[n - 1] == '\r')
			n--;
		if (n == 0 || n > MRC_RV_TOKEN_MAX || n > cap) {
			snprintf(err, errlen, "rendezvous: --token-file: %s: %s (1 to %u bytes)",
				file, n ? "token too long" : "empty", MRC_RV_TOKEN_MAX);
			return -EINVAL;
		}
		memcpy(tok, extra, n);
	} else if (env && *env) {
		n = strlen(env);
		if (n > MRC_RV_TOKEN_MAX || n > cap) {
			snprintf(err, errlen, "rendezvous: %s: token too long (%zu bytes, at most "
				 "%u)", MRC_RV_TOKEN_ENV, n, MRC_RV_TOKEN_MAX);
			return -EINVAL;
		}
		memcpy(tok, env, n);
	} else {
		return 0;
	}
	*len = n;
	return 1;
}

bool mrc_rv_addr_unix(const char *addr)
{
	return !strncmp(addr, "unix:", 5) || strchr(addr, '/');
}
