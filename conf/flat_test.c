/* SPDX-License-Identifier: BSD-2-Clause */
/* flat_test: unit tests of conf/flat.c (`mrcgen-test flat`). */
#include "conf/flat.c"
#include "mrc/base/st.h"

MRC_SELFTEST(flat)
{
	struct conf_flat f = { 0 };

	mrc_st_case(st, "flatten: dotted keys in document order");
	/* flattening: nested mappings, block and flow sequences, document order */
	ST_EQ_I(st, conf_flatten("seed: 1\nfabric:\n  planes: 2\n  link: {rate: 100Gbps}\n"
		"traffic:\n  sizes: [64KiB, 1MiB]\n  faults:\n    - action: link_down\n"
		"      at_us: 5\nlast: x\n", &f), 0);
	ST_EQ(st, f.n, 8u);
	ST_EQ_STR(st, f.kv[0].key, "seed");
	ST_EQ_STR(st, f.kv[1].key, "fabric.planes");
	ST_EQ_STR(st, f.kv[2].key, "fabric.link.rate");
	ST_EQ_STR(st, f.kv[3].key, "traffic.sizes[0]");
	ST_EQ_STR(st, f.kv[4].key, "traffic.sizes[1]");
	ST_EQ_STR(st, f.kv[5].key, "traffic.faults[0].action");
	ST_EQ_STR(st, f.kv[6].key, "traffic.faults[0].at_us");
	ST_EQ_STR(st, f.kv[7].key, "last");
	ST_EQ_STR(st, conf_flat_get(&f, "traffic.sizes[1]"), "1MiB");
	ST_TRUE(st, conf_flat_get(&f, "traffic") == NULL);
	conf_flat_free(&f);
	ST_EQ_I(st, conf_flatten("a: [unclosed\n", &f), -EINVAL);
	conf_flat_free(&f);
}
