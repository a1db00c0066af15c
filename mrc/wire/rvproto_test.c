/* SPDX-License-Identifier: BSD-2-Clause */
/* rvproto_test: unit tests of mrc/wire/rvproto.c (`mrcgen-test rvproto`): framing, HELLO. */
#include "mrc/wire/rvproto.c"
#include "mrc/base/st.h"

#include <unistd.h>

MRC_SELFTEST(rvproto)
{
	/* length 3 = type byte + 2 body bytes, then the next frame's first byte */
	static const uint8_t fr[] = { 0, 0, 0, 3, 7, 0xaa, 0xbb, 0 };
	/* rank 2 of 4, hash 0x0102030405060708, token "ab": 22 + 2 bytes */
	static const uint8_t hello[] = { 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 4, 1, 2, 3, 4, 5, 6, 7,
		8, 0, 2, 'a', 'b' };
	uint8_t buf[MRC_RV_HELLO_BASE + MRC_RV_TOKEN_MAX + 8], big[300];
	struct mrc_rv_hello h = { .version = 3, .rank = 2, .nranks = 4,
		.hash = 0x0102030405060708ull, .token = (const uint8_t *)"ab", .token_len = 2 };
	struct mrc_rv_frame f;
	bool joined[4] = { false, true, false, false };
	char why[256], path[] = "/tmp/mrcgen-rvtok-XXXXXX", *env;
	uint8_t tok[MRC_RV_TOKEN_MAX];
	size_t used = 99, tl = 99;
	FILE *fp;
	int fd;

	mrc_st_case(st, "frames: complete, incomplete, length 0 and above the cap refused");
	ST_EQ_I(st, mrc_rv_frame_parse(fr, 8, 512, &f, &used), 1);
	ST_EQ(st, f.type, 7);
	ST_EQ(st, f.len, 2);
	ST_EQ(st, f.body[1], 0xbb);
	ST_EQ(st, used, 7); /* 4 + 3 */
	ST_EQ_I(st, mrc_rv_frame_parse(fr, 6, 512, &f, &used), 0);
	ST_EQ(st, used, 7);
	ST_EQ_I(st, mrc_rv_frame_parse(fr, 3, 512, &f, &used), 0);
	ST_EQ(st, used, 0);
	memset(buf, 0, 8);
	ST_EQ_I(st, mrc_rv_frame_parse(buf, 8, 512, &f, &used), -EPROTO); /* length 0 */
	put_be32(buf, 513);
	ST_EQ_I(st, mrc_rv_frame_parse(buf, 4, 512, &f, &used), -EPROTO);
	put_be32(buf, 512);
	ST_EQ_I(st, mrc_rv_frame_parse(buf, 4, 512, &f, &used), 0);
	ST_EQ(st, used, 516);
	put_be32(buf, 60u << 20); /* refused from its 4 bytes alone */
	ST_EQ_I(st, mrc_rv_frame_parse(buf, 4, MRC_RV_MAX_HELLO, &f, &used), -EPROTO);

	mrc_st_case(st, "HELLO: the hand-built 24 bytes, both ways");
	ST_EQ_I(st, mrc_rv_hello_encode(&h, buf, sizeof(buf)), 24);
	ST_EQ_MEM(st, buf, hello, sizeof(hello));
	ST_EQ_I(st, mrc_rv_hello_encode(&h, buf, 23), -EINVAL);
	memset(&h, 0xff, sizeof(h));
	ST_EQ_I(st, mrc_rv_hello_parse(hello, sizeof(hello), &h, why, sizeof(why)), 0);
	ST_EQ(st, h.version, 3);
	ST_EQ(st, h.rank, 2);
	ST_EQ(st, h.nranks, 4);
	ST_EQ(st, h.hash, 0x0102030405060708ull);
	ST_EQ(st, h.token_len, 2);
	ST_EQ_MEM(st, h.token, "ab", 2);

	mrc_st_case(st, "HELLO refused: short, another version, token length, body length");
	ST_EQ_I(st, mrc_rv_hello_parse(hello, 3, &h, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "a 3-byte HELLO, too short for its version");
	memcpy(buf, hello, sizeof(hello));
	buf[3] = 2; /* protocol 2: the 20-byte HELLO of the build before */
	ST_EQ_I(st, mrc_rv_hello_parse(buf, 20, &h, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "rendezvous protocol 2, rank 0 speaks 3 (the same mrcgen build on "
		  "every host)");
	ST_EQ_I(st, mrc_rv_hello_parse(hello, 21, &h, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "a 21-byte HELLO, version 3 has 22 bytes and the token");
	ST_EQ_I(st, mrc_rv_hello_parse(hello, 23, &h, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "a 23-byte HELLO with a 2-byte token (24 bytes expected)");
	memcpy(buf, hello, sizeof(hello));
	put_be16(buf + 20, 257);
	ST_EQ_I(st, mrc_rv_hello_parse(buf, 22 + 257, &h, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "a 257-byte token, at most 256");

	mrc_st_case(st, "admission: token first, then rank, size, twice, hash");
	ST_EQ_I(st, mrc_rv_hello_parse(hello, sizeof(hello), &h, why, sizeof(why)), 0);
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 4, 0x0102030405060708ull, (const uint8_t *)"ab", 2,
			    joined, why, sizeof(why)), 0);
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 4, 0x0102030405060708ull, (const uint8_t *)"ac", 2,
			    joined, why, sizeof(why)), -EACCES);
	ST_EQ_STR(st, why, "wrong job token (MRCGEN_JOB_TOKEN or --token-file, the same on every "
		  "rank)");
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 4, 7, NULL, 0, joined, why, sizeof(why)), -EACCES);
	h.token_len = 0;
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 4, 7, (const uint8_t *)"ab", 2, joined, why,
			    sizeof(why)), -EACCES);
	ST_EQ_STR(st, why, "no job token (MRCGEN_JOB_TOKEN or --token-file, the same on every "
		  "rank)");
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 3, 7, NULL, 0, joined, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "rank 2 of 4 does not fit this job of 3 ranks");
	h.rank = 1;
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 4, 7, NULL, 0, joined, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "rank 1 (h1) joined twice");
	h.rank = 3;
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 4, 7, NULL, 0, joined, why, sizeof(why)), -EPROTO);
	ST_EQ_STR(st, why, "config hash mismatch: h3 runs 0x0102030405060708, rank 0 runs "
		  "0x0000000000000007 (same file and --set options everywhere)");
	h.rank = 0;
	ST_EQ_I(st, mrc_rv_hello_admit(&h, 4, h.hash, NULL, 0, joined, why, sizeof(why)),
		-EPROTO);

	mrc_st_case(st, "token comparison: equal only in length and every byte");
	ST_TRUE(st, mrc_rv_token_equal((const uint8_t *)"abc", 3, (const uint8_t *)"abc", 3));
	ST_TRUE(st, !mrc_rv_token_equal((const uint8_t *)"abc", 3, (const uint8_t *)"abd", 3));
	ST_TRUE(st, !mrc_rv_token_equal((const uint8_t *)"abc", 3, (const uint8_t *)"abc", 4));
	ST_TRUE(st, mrc_rv_token_equal(NULL, 0, NULL, 0));
	memset(big, 'x', sizeof(big));
	ST_TRUE(st, mrc_rv_token_equal(big, 256, big, 256));
	ST_TRUE(st, !mrc_rv_token_equal(big, 257, big, 257)); /* above the cap: never */

	mrc_st_case(st, "the job token: --token-file (newline dropped), else the environment");
	env = getenv(MRC_RV_TOKEN_ENV) ? strdup(getenv(MRC_RV_TOKEN_ENV)) : NULL;
	unsetenv(MRC_RV_TOKEN_ENV);
	ST_EQ_I(st, mrc_rv_token_load(NULL, tok, sizeof(tok), &tl, why, sizeof(why)), 0);
	ST_EQ(st, tl, 0);
	setenv(MRC_RV_TOKEN_ENV, "xyz", 1);
	ST_EQ_I(st, mrc_rv_token_load(NULL, tok, sizeof(tok), &tl, why, sizeof(why)), 1);
	ST_EQ(st, tl, 3);
	ST_EQ_MEM(st, tok, "xyz", 3);
	fd = mkstemp(path);
	ST_TRUE(st, fd >= 0);
	fp = fdopen(fd, "w");
	fputs("file-token\r\n", fp);
	fclose(fp);
	ST_EQ_I(st, mrc_rv_token_load(path, tok, sizeof(tok), &tl, why, sizeof(why)), 1);
	ST_EQ(st, tl, 10); /* "file-token" without its CR LF; the file wins over the env */
	ST_EQ_MEM(st, tok, "file-token", 10);
	fp = fopen(path, "w");
	fputs("\n", fp);
	fclose(fp);
	ST_EQ_I(st, mrc_rv_token_load(path, tok, sizeof(tok), &tl, why, sizeof(why)), -EINVAL);
	ST_TRUE(st, strstr(why, ": empty (1 to 256 bytes)") != NULL);
	unlink(path);
	ST_EQ_I(st, mrc_rv_token_load(path, tok, sizeof(tok), &tl, why, sizeof(why)), -ENOENT);
	if (env)
		setenv(MRC_RV_TOKEN_ENV, env, 1);
	else
		unsetenv(MRC_RV_TOKEN_ENV);
	free(env);

	mrc_st_case(st, "unix or TCP: unix:PATH and paths with a '/' are unix");
	ST_TRUE(st, mrc_rv_addr_unix("unix:rv.sock"));
	ST_TRUE(st, mrc_rv_addr_unix("/run/rv.sock"));
	ST_TRUE(st, !mrc_rv_addr_unix("10.0.0.1:7000"));
	ST_TRUE(st, !mrc_rv_addr_unix("[::1]:7000"));
}
