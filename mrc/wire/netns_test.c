/* SPDX-License-Identifier: BSD-2-Clause */
/* netns_test: unit tests of mrc/wire/netns.c (`mrcgen-test netns`). */
#include "mrc/wire/netns.c"
#include "mrc/base/st.h"

MRC_SELFTEST(netns)
{
	char buf[16], err[128];

	mrc_st_case(st, "names: every {rank} is the rank; no template, the name as is");
	ST_EQ_I(st, mrc_netns_name("ns-h{rank}", 3, buf, sizeof(buf), err, sizeof(err)), 0);
	ST_EQ_STR(st, buf, "ns-h3");
	ST_EQ_I(st, mrc_netns_name("{rank}-{rank}", 12, buf, sizeof(buf), err, sizeof(err)), 0);
	ST_EQ_STR(st, buf, "12-12");
	ST_EQ_I(st, mrc_netns_name("fixed", 7, buf, sizeof(buf), err, sizeof(err)), 0);
	ST_EQ_STR(st, buf, "fixed");
	ST_EQ_I(st, mrc_netns_name("{ran}k", 7, buf, sizeof(buf), err, sizeof(err)), 0);
	ST_EQ_STR(st, buf, "{ran}k");

	mrc_st_case(st, "names: empty, '/', '.', '..' and too long are refused");
	ST_EQ_I(st, mrc_netns_name("", 0, buf, sizeof(buf), err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, mrc_netns_name("a/b", 0, buf, sizeof(buf), err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "not a namespace name") != NULL);
	ST_EQ_I(st, mrc_netns_name(".", 0, buf, sizeof(buf), err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, mrc_netns_name("..", 0, buf, sizeof(buf), err, sizeof(err)), -EINVAL);
	/* 15 bytes and the NUL fit in 16; rank 1000000 makes "ns-h{rank}" 11 bytes */
	ST_EQ_I(st, mrc_netns_name("abcdefghijklmno", 0, buf, sizeof(buf), err, sizeof(err)), 0);
	ST_EQ_I(st, mrc_netns_name("abcdefghijklmnop", 0, buf, sizeof(buf), err, sizeof(err)),
		-EINVAL);
	ST_TRUE(st, strstr(err, "longer than 15 bytes") != NULL);
	ST_EQ_I(st, mrc_netns_name("abcdefghijk{rank}", 12345, buf, sizeof(buf), err,
			sizeof(err)), -EINVAL);

	mrc_st_case(st, "enter: a namespace that does not exist is named, errno kept");
	ST_EQ_I(st, mrc_netns_enter("mrcgen-test-no-such-ns", NULL, "run", err, sizeof(err)),
		-ENOENT);
	ST_EQ_STR(st, err, "run: netns: 'mrcgen-test-no-such-ns': No such file or directory");
}
