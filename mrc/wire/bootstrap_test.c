/* SPDX-License-Identifier: BSD-2-Clause */
/* bootstrap_test: unit tests of mrc/wire/bootstrap.c (`mrcgen-test bootstrap`). */
#include "mrc/wire/bootstrap.c"
#include "mrc/base/st.h"

/* ---- selftest ---- */


MRC_SELFTEST(bootstrap)
{
	static const char *const vars[] = { "SLURM_PROCID", "SLURM_NTASKS",
		"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE" };
	char *saved[6], err[256], path[108];
	struct sockaddr_storage ss;
	struct conf_job a, b;
	socklen_t sl;
	uint64_t ha = 0, hb = 0, ha2 = 0;
	uint32_t r = 99;

	for (int i = 0; i < 6; i++) {
		const char *v = getenv(vars[i]);

		saved[i] = v ? strdup(v) : NULL;
		unsetenv(vars[i]);
	}
	mrc_st_case(st, "rank from --host: h3 of 4 is 3; h4 and h03 are refused");
	ST_EQ_I(st, mrc_wirerun_rank("h3", 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 3);
	ST_EQ_I(st, mrc_wirerun_rank("h4", 4, &r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "'h4' takes no part: the job has 4 ranks (h0..h3)") != NULL);
	ST_EQ_I(st, mrc_wirerun_rank("h03", 4, &r, err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, mrc_wirerun_rank("x1", 4, &r, err, sizeof(err)), -EINVAL);

	mrc_st_case(st, "rank from the launcher: Slurm first, then Open MPI, then PMI");
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), -ENOENT);
	setenv("PMI_RANK", "1", 1);
	setenv("PMI_SIZE", "4", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 1);
	setenv("OMPI_COMM_WORLD_RANK", "2", 1);
	setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 2);
	setenv("SLURM_PROCID", "0", 1);
	setenv("SLURM_NTASKS", "8", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), -EINVAL);
	ST_TRUE(st, strstr(err, "SLURM_NTASKS: the launcher starts '8' processes") != NULL);
	setenv("SLURM_NTASKS", "4", 1);
	ST_EQ_I(st, mrc_wirerun_rank(NULL, 4, &r, err, sizeof(err)), 0);
	ST_EQ(st, r, 0);
	ST_EQ_I(st, mrc_wirerun_rank("h3", 4, &r, err, sizeof(err)), 0); /* --host wins */
	ST_EQ(st, r, 3);
	for (int i = 0; i < 6; i++) {
		if (saved[i])
			setenv(vars[i], saved[i], 1);
		else
			unsetenv(vars[i]);
		free(saved[i]);
	}

	mrc_st_case(st, "config hash: equal for equal configs, differs with the seed");
	ST_EQ_I(st, conf_load_string("seed: 1\n", 8, "a", NULL, 0, &a, err, sizeof(err)), 0);
	ST_EQ_I(st, conf_load_string("seed: 2\n", 8, "b", NULL, 0, &b, err, sizeof(err)), 0);
	ST_EQ_I(st, mrc_wirerun_conf_hash(&a, &ha), 0);
	ST_EQ_I(st, mrc_wirerun_conf_hash(&a, &ha2), 0);
	ST_EQ_I(st, mrc_wirerun_conf_hash(&b, &hb), 0);
	ST_EQ(st, ha, ha2);
	ST_TRUE(st, ha != hb);
	conf_free(&a);
	conf_free(&b);

	mrc_st_case(st, "rendezvous addresses: unix path, host:port, [v6]:port, refusals");
	ST_EQ_I(st, rv_addr("unix:rv.sock", &ss, &sl, path, err, sizeof(err)), 0);
	ST_EQ(st, ss.ss_family, AF_UNIX);
	ST_TRUE(st, strcmp(path, "rv.sock") == 0);
	ST_EQ_I(st, rv_addr("127.0.0.1:7000", &ss, &sl, path, err, sizeof(err)), 0);
	ST_EQ(st, ss.ss_family, AF_INET);
	ST_EQ(st, ntohs(((struct sockaddr_in *)&ss)->sin_port), 7000);
	ST_EQ(st, path[0], 0);
	ST_EQ_I(st, rv_addr("[::1]:7001", &ss, &sl, path, err, sizeof(err)), 0);
	ST_EQ(st, ss.ss_family, AF_INET6);
	ST_EQ(st, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port), 7001);
	ST_EQ_I(st, rv_addr("::1:7001", &ss, &sl, path, err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, rv_addr("nohostport", &ss, &sl, path, err, sizeof(err)), -EINVAL);
	ST_EQ_I(st, rv_addr("unix:", &ss, &sl, path, err, sizeof(err)), -EINVAL);
}
