/* SPDX-License-Identifier: BSD-2-Clause */
/* epparams_test: unit tests of mrc/job/epparams.c (`mrcgen-test epparams`). */
#include "mrc/job/epparams.c"
#include "mrc/base/st.h"

#include <string.h>

MRC_SELFTEST(epparams)
{
	struct conf_fabric f;
	struct conf_job j;
	struct mrc_job_srv6 m;
	struct mrc_ep_params p;
	char err[256];

	mrc_st_case(st, "serialization: 4096 B at 100 Gb/s = 327680 ps; 4200 B at 400G = 84000");
	ST_EQ(st, mrc_ser_ps(4096, 100000000000ull), 327680);
	ST_EQ(st, mrc_ser_ps(4200, 400000000000ull), 84000);
	ST_EQ(st, mrc_ser_ps(1, 3), 2666666666667ull); /* rounds up */

	/*
	 * 100G: 80 ps a byte. data 4096 + 150 = 4246 B = 339680 ps, SACK 160 B = 12800 ps;
	 * 4 x 352480 = 1409920, links 4 x (1 us + 0.5 us) = 6000000, switches 6 x 0.3 us =
	 * 1800000: 9209920 ps.
	 */
	mrc_st_case(st, "base RTT: 4 x (ser(mtu+150) + ser(160)) + 4 x links + 6 x switches");
	memset(&f, 0, sizeof(f));
	f.link_rate_bps = 100000000000ull;
	f.host_link_delay_ps = 1000000;
	f.fabric_link_delay_ps = 500000;
	f.switch_delay_ps = 300000;
	ST_EQ(st, mrc_run_base_rtt_ps(&f, 4096), 9209920);

	mrc_st_case(st, "NSCC's base RTT: mrc.cc.base_rtt, else the caller's, else the formula");
	if (!ST_TRUE(st, conf_defaults(&j) == 0))
		return;
	if (!ST_TRUE(st, mrc_job_srv6(&j, &m, err, sizeof(err)) == 0)) {
		conf_free(&j);
		return;
	}
	ST_EQ_I(st, mrc_run_ep_params(&j, &m, 4, 0, &p), 0);
	ST_EQ(st, p.cc_params.base_rtt_ps, mrc_run_base_rtt_ps(&j.fabric, j.mrc.mtu));
	ST_EQ(st, p.max_qps, 4);
	ST_EQ(st, p.ev.n_evs, m.n_evs);
	mrc_run_ep_params_free(&p);
	ST_TRUE(st, p.ev.evs == NULL && p.ev.deny == NULL);
	ST_EQ_I(st, mrc_run_ep_params(&j, &m, 4, 123000000, &p), 0);
	ST_EQ(st, p.cc_params.base_rtt_ps, 123000000);
	mrc_run_ep_params_free(&p);
	j.mrc.cc.base_rtt_ps = 7000000;
	ST_EQ_I(st, mrc_run_ep_params(&j, &m, 4, 123000000, &p), 0);
	ST_EQ(st, p.cc_params.base_rtt_ps, 7000000);
	mrc_run_ep_params_free(&p);
	mrc_job_srv6_free(&m);
	conf_free(&j);
}
