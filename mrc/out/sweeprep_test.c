/* SPDX-License-Identifier: BSD-2-Clause */
/* sweeprep_test: unit tests of mrc/out/sweeprep.c (`mrcgen-test sweeprep`); includes
 * sweeprep.c to reach its statics. */
#include "mrc/out/sweeprep.c"
#include "mrc/base/st.h"

#include <unistd.h>

/* Writes @text to a temporary file; its name in @path. */
static int srt_file(const char *text, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "/tmp/mrcgen-sweeprep-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

#define SRT_HEAD "{\"schema\": \"mrcgen-sweep/1\", \"driver\": \"sim\", " \
	"\"fabric\": {\"planes\": 1, \"t0\": 1, \"t1\": 1, \"hosts_per_t0\": 2}, " \
	"\"sweep\": {\"cover\": 1, \"probes\": 16, \"min_score\": 10}, \"paths\": ["
#define SRT_PATH(src, dst, nodes, sent, del, ans) "{\"src\": " #src ", \"dst\": " #dst \
	", \"ev\": \"0x00000000\", \"plane\": 0, \"nodes\": " nodes ", \"sent\": " #sent \
	", \"delivered\": " #del ", \"answered\": " #ans ", \"ce\": 0, \"reordered\": 0}"

MRC_SELFTEST(sweeprep)
{
	struct mrc_sweeprep *r = NULL;
	char path[64], err[512];
	char **rows = NULL;
	size_t nr = 0;
	double *v = NULL;

	mrc_st_case(st, "R01 --from: paths read back; h0's link dead one way is the suspect (h1's "
			"alike), its heat-map cell 1, the other links' 0");
	if (!ST_TRUE(st, srt_file(SRT_HEAD
			SRT_PATH(0, 1, "[\"h0.p0\", \"p0.t0.0\", \"h1.p0\"]", 16, 0, 0) ", "
			SRT_PATH(1, 0, "[\"h1.p0\", \"p0.t0.0\", \"h0.p0\"]", 16, 16, 0) ", "
			SRT_PATH(2, 3, "[\"h2.p0\", \"p0.t0.1\", \"h3.p0\"]", 16, 16, 16)
			"]}", path, sizeof(path)) == 0))
		return;
	ST_EQ_I(st, mrc_sweeprep_load(path, &r, err, sizeof(err)), 0);
	if (!r)
		return;
	ST_EQ(st, r->n_paths, 3);
	ST_EQ(st, r->paths[1].delivered, 16);
	ST_EQ_STR(st, r->paths[2].nodes[1], "p0.t0.1");
	ST_EQ(st, r->knobs.probes, 16);
	ST_EQ_I(st, mrc_sweeprep_infer(r, 10), 0);
	ST_EQ(st, r->n_suspects, 1);
	if (r->n_suspects) {
		/* h0 -> T0 carries h0's requests and h1's answers, both lost; so does T0 -> h1,
		 * alike: the first link met is named */
		ST_EQ_STR(st, r->suspects[0].name, "h0.p0-p0.t0.0");
		ST_EQ(st, r->suspects[0].dir, MRC_TOMO_FORWARD);
		ST_EQ(st, r->suspects[0].n_alike, 1);
		ST_EQ_STR(st, r->suspects[0].alike[0], "h1.p0-p0.t0.0");
	}
	ST_EQ_I(st, mrc_sweeprep_heat(r, &rows, &nr, &v), 0);
	/* rows h0..h3 by host (plane 0 only) */
	ST_EQ(st, nr, 4);
	if (nr == 4) {
		ST_EQ_STR(st, rows[0], "h0-t0.0");
		ST_EQ_STR(st, rows[2], "h2-t0.1");
		ST_EQ_D(st, v[0], 1, 1e-6);
		ST_EQ_D(st, v[1], 0, 0);
	}
	mrc_sweeprep_heat_free(rows, nr, v);
	mrc_sweeprep_free(r);
	unlink(path);

	mrc_st_case(st, "R02 --from refuses another schema, a path missing a count, counts "
			"out of order, a node name too long; names the file and the path");
	{
		static const char *const bad[] = {
			"{\"schema\": \"mrcgen-report/1\", \"paths\": []}",
			SRT_HEAD "{\"src\": 0}]}",
			SRT_HEAD SRT_PATH(0, 1, "[\"h0.p0\", \"h1.p0\"]", 4, 5, 0) "]}",
			SRT_HEAD SRT_PATH(0, 1, "[\"h0.p0\", \"h1.p0xxxxxxxxxxxxxxxxxxxxxxx\"]", 4, 4,
				4) "]}",
			"not json",
		};
		static const char *const want[] = { "not an mrcgen sweep", "paths[0]: a field",
			"paths[0]: a field", "paths[0]: a field", "not JSON" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (!ST_TRUE(st, srt_file(bad[i], path, sizeof(path)) == 0))
				continue;
			ST_EQ_I(st, mrc_sweeprep_load(path, &r, err, sizeof(err)), -EINVAL);
			ST_TRUE(st, r == NULL);
			ST_TRUE(st, strstr(err, want[i]) != NULL && strstr(err, path) == err);
			unlink(path);
		}
	}
	ST_EQ_I(st, mrc_sweeprep_load("/nonexistent/sweep.json", &r, err, sizeof(err)),
		-ENOENT);
}
