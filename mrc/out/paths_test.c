/* SPDX-License-Identifier: BSD-2-Clause */
/* paths_test: unit tests of mrc/out/paths.c (`mrcgen-test paths`). */
#include "mrc/out/paths.c"
#include "mrc/base/st.h"

/* ---- selftest: expected listings written out by hand ---- */


/* Start columns of the space-separated fields of @line (up to its newline), at most @max;
 * a header's leading "#" is not a field. Returns the number found. */
static size_t t_starts(const char *line, size_t *out, size_t max)
{
	size_t n = 0, i = line[0] == '#' ? 1 : 0;

	for (; line[i] && line[i] != '\n' && n < max; i++)
		if (line[i] != ' ' && (i == 0 || line[i - 1] == ' '))
			out[n++] = i;
	return n;
}

/* Every line of @text starting with @row_prefix has its fields where the header line
 * starting with @head puts its labels (the first field excepted: the header's holds "# "). */
static void t_aligned(struct mrc_st *st, const char *text, const char *head,
	const char *row_prefix, size_t want_fields)
{
	size_t hs[16], rs[16], nh = 0, rows = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, head, strlen(head))) {
			nh = t_starts(l, hs, 16);
			ST_EQ(st, nh, want_fields);
		} else if (nh && !strncmp(l, row_prefix, strlen(row_prefix))) {
			size_t nr = t_starts(l, rs, 16);

			ST_EQ(st, nr, nh);
			for (size_t i = 1; i < nr && i < nh; i++)
				ST_EQ(st, rs[i], hs[i]);
			rows++;
		}
	}
	ST_TRUE(st, rows > 0);
}

MRC_SELFTEST(paths)
{
	struct mrc_srv6_params par;
	struct mrc_srv6_plan *plan;
	struct mrc_srv6_ev_entry evs[2] = {{0x1003beef, false}, {0x00010000, true}};
	struct mrc_paths_query q = {.from = 0, .to = 3, .has_ev = true, .ev = 0x1003beef};
	char *text = NULL, err[128];
	size_t len = 0;
	FILE *f;

	mrc_srv6_params_default(&par);
	par.planes = 2;
	par.t0 = 2;
	par.t1 = 2;
	par.hosts_per_t0 = 2;
	if (mrc_srv6_plan_new(&par, &plan, NULL, 0))
		return;

	mrc_st_case(st, "text: h0 -> h3, EV 0x1003beef (plane 1, T1 3 mod 2 = 1), tables crossed");
	f = open_memstream(&text, &len);
	if (f) {
		ST_EQ_I(st, mrc_paths_print(f, plan, evs, 2, &q, err, sizeof(err)), 0);
		fclose(f);
		/* widths: src/dst "h3" -> 3 ("src"), plane 5 ("plane"), T0/T1 "p1.t0.1" 7,
		 * port "h3.p1" 5, table port: ports 0..2+2-1 -> 4 ("port") */
		ST_EQ_STR(st, text,
			"# fabric planes 2 t0 2 t1 2 hosts_per_t0 2 block fc00::/32\n"
			"# ev       state    src dst plane t0      t1      t0      port  "
			"container\n"
			"0x1003beef good     h0  h3  1     p1.t0.0 p1.t1.1 p1.t0.1 h3.p1 "
			"fc00:0:1401:1802:1402:1004::\n"
			"\n# table p1.t0.0 usid 0x1401\n"
			"# prefix                 usid   action  port to\n"
			"fc00:0:1001::/48         0x1001 forward 0    h0.p1\n"
			"fc00:0:1002::/48         0x1002 forward 1    h1.p1\n"
			"fc00:0:1401::/48         0x1401 uN      -    p1.t0.0\n"
			"fc00:0:1801::/48         0x1801 forward 2    p1.t1.0\n"
			"fc00:0:1802::/48         0x1802 forward 3    p1.t1.1\n"
			"\n# table p1.t0.1 usid 0x1402\n"
			"# prefix                 usid   action  port to\n"
			"fc00:0:1003::/48         0x1003 forward 0    h2.p1\n"
			"fc00:0:1004::/48         0x1004 forward 1    h3.p1\n"
			"fc00:0:1402::/48         0x1402 uN      -    p1.t0.1\n"
			"fc00:0:1801::/48         0x1801 forward 2    p1.t1.0\n"
			"fc00:0:1802::/48         0x1802 forward 3    p1.t1.1\n"
			"\n# table p1.t1.1 usid 0x1802\n"
			"# prefix                 usid   action  port to\n"
			"fc00:0:1401::/48         0x1401 forward 0    p1.t0.0\n"
			"fc00:0:1402::/48         0x1402 forward 1    p1.t0.1\n"
			"fc00:0:1802::/48         0x1802 uN      -    p1.t1.1\n");
		free(text);
	}

	mrc_st_case(st, "text: h1 -> h0 over the profile: same T0, denied EV, no tables of T1");
	q = (struct mrc_paths_query){.from = 1, .to = 0};
	text = NULL;
	f = open_memstream(&text, &len);
	if (f) {
		ST_EQ_I(st, mrc_paths_print(f, plan, evs, 2, &q, err, sizeof(err)), 0);
		fclose(f);
		ST_TRUE(st,
			strstr(text, "0x1003beef good     h1  h0  1     p1.t0.0 -       "
				     "p1.t0.0 h0.p1 fc00:0:1401:1001::\n") != NULL);
		ST_TRUE(st,
			strstr(text, "0x00010000 denied   h1  h0  0     p0.t0.0 -       "
				     "p0.t0.0 h0.p0 fc00:0:401:1::\n") != NULL);
		ST_TRUE(st, strstr(text, "# table p1.t1") == NULL);
		ST_TRUE(st, strstr(text, "# table p0.t0.1") == NULL);
		free(text);
	}

	mrc_st_case(st, "bad queries: host out of range, src == dst, EV plane out of range");
	q = (struct mrc_paths_query){.from = 0, .to = 4};
	ST_EQ_I(st, mrc_paths_print(stdout, plan, evs, 2, &q, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "paths: --to: 'h4' is not in the fabric (h0..h3)");
	q = (struct mrc_paths_query){.from = 7, .to = 1};
	ST_EQ_I(st, mrc_paths_print(stdout, plan, evs, 2, &q, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "paths: --from: 'h7' is not in the fabric (h0..h3)");
	q = (struct mrc_paths_query){.from = 0, .to = 0};
	ST_EQ_I(st, mrc_paths_print(stdout, plan, evs, 2, &q, err, sizeof(err)), -EINVAL);
	q = (struct mrc_paths_query){.from = 0, .to = 1, .has_ev = true, .ev = 0x20000000};
	ST_EQ_I(st, mrc_paths_print(stdout, plan, evs, 2, &q, err, sizeof(err)), -EINVAL);
	ST_EQ_STR(st, err, "paths: --ev: '0x20000000' is in plane 2; the fabric has 2 planes");
	mrc_srv6_plan_free(plan);

	mrc_st_case(st, "text: headers line up with h9999, h9999.p0 and 5-digit table ports");
	{
		/* explicit plan: 1 plane, 1 T0 with 10000 hosts, 1 T1; uSIDs 1..10000, then
		 * 0xa000 (T0) and 0xb000 (T1) */
		enum { H = 10000 };
		struct mrc_srv6_assign *as = calloc(H + 2, sizeof(*as));
		struct mrc_srv6_ev_entry ev1 = {0x00000000, false};

		mrc_srv6_params_default(&par);
		par.planes = 1;
		par.t0 = 1;
		par.t1 = 1;
		par.hosts_per_t0 = H;
		for (uint32_t h = 0; as && h < H; h++)
			as[h] = (struct mrc_srv6_assign){{MRC_SRV6_HOST, 0, h}, h + 1};
		if (as) {
			as[H] = (struct mrc_srv6_assign){{MRC_SRV6_T0, 0, 0}, 0xa000};
			as[H + 1] = (struct mrc_srv6_assign){{MRC_SRV6_T1, 0, 0}, 0xb000};
		}
		par.usids = as;
		par.n_usids = H + 2;
		q = (struct mrc_paths_query){.from = H - 1, .to = 0};
		text = NULL;
		f = as && !mrc_srv6_plan_new(&par, &plan, err, sizeof(err)) ?
			open_memstream(&text, &len) : NULL;
		ST_TRUE(st, f != NULL);
		if (f) {
			ST_EQ_I(st, mrc_paths_print(f, plan, &ev1, 1, &q, err, sizeof(err)), 0);
			fclose(f);
			/* same T0: no T1; h0 has uSID 1 */
			ST_TRUE(st,
				strstr(text, "\n0x00000000 good     h9999 h0    0     "
					     "p0.t0.0 -       p0.t0.0 h0.p0    fc00:0:a000:1::\n"));
			t_aligned(st, text, "# ev ", "0x", 10);
			/* T0 ports 0..9999 to hosts, 10000 to the T1: 5 digits */
			ST_TRUE(st, strstr(text, "\nfc00:0:b000::/48         0xb000 forward 10000 "
						 "p0.t1.0\n"));
			t_aligned(st, text, "# prefix ", "fc00:", 5);
			free(text);
			/* every pair of 10000 hosts: 9999 x 10000 = 99990000 rows; one source
			 * 9999, 2^22 = 4194304 at most */
			q = (struct mrc_paths_query){.from = -1, .to = -1};
			ST_EQ_I(st, mrc_paths_print(stdout, plan, &ev1, 1, &q, err, sizeof(err)),
				-EINVAL);
			ST_EQ_STR(st, err, "paths: the query lists 99990000 paths (99990000 host "
					   "pairs x 1 EVs), more than 4194304: narrow it with "
					   "--from, --to or --ev");
			mrc_srv6_plan_free(plan);
		}
		free(as);
	}

	mrc_st_case(st, "text: headers line up with p15.t1.1022 (16 planes, 1023 T1)");
	mrc_srv6_params_default(&par);
	par.planes = 16;
	par.t0 = 2;
	par.t1 = 1023;
	par.hosts_per_t0 = 1;
	q = (struct mrc_paths_query){.from = 0, .to = 1, .has_ev = true, .ev = 0xf3fe0000};
	text = NULL;
	f = !mrc_srv6_plan_new(&par, &plan, err, sizeof(err)) ? open_memstream(&text, &len) : NULL;
	ST_TRUE(st, f != NULL);
	if (f) {
		ST_EQ_I(st, mrc_paths_print(f, plan, evs, 2, &q, err, sizeof(err)), 0);
		fclose(f);
		/* spine field 0x3fe = 1022; T0 0 of plane 15: 0xf000 | 0x400 | 1, T1 1022:
		 * 0xf000 | 0x800 | 1023 = 0xfbff, T0 1: 0xf402, h1: 0xf002 */
		ST_TRUE(st,
			strstr(text, "\n0xf3fe0000 unlisted h0  h1  15    p15.t0.0 "
				     "p15.t1.1022 p15.t0.1 h1.p15 fc00:0:f401:fbff:f402:f002::\n"));
		t_aligned(st, text, "# ev ", "0x", 10);
		t_aligned(st, text, "# prefix ", "fc00:", 5);
		free(text);
		mrc_srv6_plan_free(plan);
	}
}
