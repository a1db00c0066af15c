/* SPDX-License-Identifier: BSD-2-Clause */
/* plot_test: unit tests of mrc/out/plot.c (`mrcgen-test plot`); includes plot.c. */
#include "mrc/out/plot.c"
#include "mrc/base/st.h"

#include <stdint.h>
#include <unistd.h>

/* The script mrc_plot_write_script writes for @p, as plot @name (malloc'ed; NULL on error). */
static char *st_script(const char *name, const struct mrc_plot *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (mrc_plot_write_script(f, name, p)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

/* True when @text has the line @line (without its newline). */
static bool st_has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *s = text; s && (s = strstr(s, line)); s++)
		if ((s == text || s[-1] == '\n') && (s[n] == '\n' || s[n] == 0))
			return true;
	return false;
}

/* Checks that @text has each line of the NULL-terminated @want, naming any missing. */
static void st_lines(struct mrc_st *st, const char *text, const char *const *want)
{
	for (; *want; want++)
		mrc_st_check(st, st_has_line(text, *want), __FILE__, __LINE__, "no line '%s'",
			*want);
}

/* The text of file @path (malloc'ed), or NULL. */
static char *st_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n >= 0 ? calloc(1, (size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static const double xa[] = { -2, -1, 0, 1, 2, 3, 4, 5, 6, 7 };
static const double ya[] = { 556, 556, 556, 555, 555, 556, 622, 556, 556, 556 };
static const double yb[] = { 80, 81, 80, 80, 80, 80, 95, 80, 80, 80 };

/*
 * Two sizes' CCT per iteration from 0, with 4 faults: the axes and margins, one data
 * block per curve, the key (the curves have titles), each marker label right of its line
 * where it fits in the x range -2.5..7.5 (a label of N characters takes (N + 2) / 110 of
 * it): at x 0, 2, 4 it does; "d up" at 7 would end at 0.95 + 6/110 > 1, so it goes left.
 * Heights 0.96, 0.91, 0.86, then 0.96 again. A label too long for either side goes
 * where there is more room.
 */
static void st_two_curves(struct mrc_st *st)
{
	const struct mrc_plot_series c[] = {
		{ .title = "64KiB", .x = xa, .y = ya, .n = 10 },
		{ .title = "8\"MiB\\", .x = xa, .y = yb, .n = 10 },
	};
	const struct mrc_plot_marker m[] = { { 0, "a down" }, { 2, "b" }, { 4, "c" },
		{ 7, "d up" } };
	char *t = st_script("cct", &(struct mrc_plot){ .title = "CCT", .xlabel = "iteration",
		.ylabel = "CCT (us)", .series = c, .n_series = 2, .markers = m, .n_markers = 4,
		.xrange = "[-2.5:7.5]", .yrange = "[0:*]", .xtics = "1" });

	ST_TRUE(st, t != NULL);
	if (!t)
		return;
	/* a fixed x range: no x offsets; room above the data for the labels */
	st_lines(st, t, (const char *const[]){
		"set terminal pngcairo size 1000,560 noenhanced font ',10'",
		"set output 'cct.png'",
		"set lmargin 12",
		"set rmargin 7",
		"set bmargin 4.5",
		"set tmargin 3",
		"set title \"CCT\"",
		"set yrange [0:*]",
		"set xrange [-2.5:7.5]",
		"set xtics 1",
		"set offsets 0, 0, graph 0.2, 0",
		"set key inside right bottom Left reverse opaque box",
		NULL });
	ST_TRUE(st, !strstr(t, "logscale"));
	st_lines(st, t, (const char *const[]){
		"set arrow from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb 'red'",
		"set label 1 at 0, graph 0.96 \"a down\" left offset 0.5,0 tc rgb 'red'",
		"set label 2 at 2, graph 0.91 \"b\" left offset 0.5,0 tc rgb 'red'",
		"set label 3 at 4, graph 0.86 \"c\" left offset 0.5,0 tc rgb 'red'",
		"set label 4 at 7, graph 0.96 \"d up\" right offset -0.5,0 tc rgb 'red'",
		"plot 'cct.dat' index 0 using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb "
		"'#1f77b4' title \"64KiB\", \\",
		/* the second curve: its own block and colour, its title quoted */
		"    'cct.dat' index 1 using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb "
		"'#ff7f0e' title \"8\\\"MiB\\\\\"",
		NULL });
	free(t);
	/* labels of 60 characters (62 / 110 = 0.56 of the range): neither fits right of x 2
	 * (at 0.45) or 4 (0.65); 2 has more room right, 4 fits left */
	{
		static const char l60[] = "01234567890123456789012345678901234567890123456789"
					  "0123456789";
		const struct mrc_plot_marker w[] = { { 2, l60 }, { 4, l60 } };

		t = st_script("cct", &(struct mrc_plot){ .series = c, .n_series = 1, .markers = w,
			.n_markers = 2, .xrange = "[-2.5:7.5]" });
		ST_TRUE(st, t && strstr(t, "\nset label 1 at 2, graph 0.96 \"0123"));
		ST_TRUE(st, t && strstr(t, "789\" left offset 0.5,0 "));
		ST_TRUE(st, t && strstr(t, "\nset label 2 at 4, graph 0.91 \"0123"));
		ST_TRUE(st, t && strstr(t, "789\" right offset -0.5,0 "));
		free(t);
	}
	/* a key outside: the right margin is gnuplot's, to fit it */
	t = st_script("cct", &(struct mrc_plot){ .series = c, .n_series = 2, .logy = 1,
		.key = "outside right top" });
	ST_TRUE(st, t && st_has_line(t, "set key outside right top Left reverse opaque box"));
	ST_TRUE(st, t && st_has_line(t, "set logscale y"));
	ST_TRUE(st, t && !strstr(t, "rmargin") && strstr(t, "\nset lmargin 12\n"));
	free(t);
}

/* A spectrum: curves read from .hgrm files (column 4 against 1), a log x axis (no x
 * offsets), lines; an untitled curve turns the key off. */
static void st_spectrum(struct mrc_st *st)
{
	const struct mrc_plot_series c = { .file = "../hist/step.hgrm", .using = "4:1" };
	char *t = st_script("spectrum_step", &(struct mrc_plot){ .title = "Step", .xlabel = "p",
		.ylabel = "us", .series = &c, .n_series = 1, .logx = 1, .style = MRC_PLOT_LINES,
		.xtics = "('0%%' 1, '90%%' 10)", .xrange = "[1:*]", .yrange = "[0:*]" });

	ST_TRUE(st, t != NULL);
	if (!t)
		return;
	st_lines(st, t, (const char *const[]){
		"set output 'spectrum_step.png'",
		"set logscale x",
		"set xtics ('0%%' 1, '90%%' 10)",
		"set xrange [1:*]",
		"set offsets 0, 0, graph 0.05, 0",
		"set key off",
		"plot '../hist/step.hgrm' using 4:1 with lines lw 2 lc rgb '#1f77b4' notitle",
		NULL });
	ST_TRUE(st, !strstr(t, "set arrow") && !strstr(t, ".dat"));
	free(t);
}

/* An automatic linear x axis gets 2 % of room either side. */
static void st_auto_x(struct mrc_st *st)
{
	const struct mrc_plot_series c = { .x = xa, .y = ya, .n = 3 };
	char *t = st_script("g", &(struct mrc_plot){ .series = &c, .n_series = 1,
		.style = MRC_PLOT_STEPS });

	ST_TRUE(st, t && st_has_line(t, "set offsets graph 0.02, graph 0.02, graph 0.05, 0"));
	ST_TRUE(st, t && strstr(t, "\nplot 'g.dat' index 0 using 1:2 with steps lw 2 "));
	ST_TRUE(st, t && !strstr(t, "range"));
	free(t);
}

/*
 * mrc_plot_png in a fresh directory: NAME.dat holds the inline curves only, one block
 * each two blank lines apart; NAME.gp is the script; with gnuplot installed, NAME.png is a
 * 1000x560 PNG (its IHDR), and a plot of files only writes no .dat.
 */
static void st_files(struct mrc_st *st)
{
	char dir[] = "/tmp/mrc-plot-XXXXXX", path[256];
	const struct mrc_plot_series c[] = {
		{ .title = "a", .x = xa, .y = ya, .n = 2 },
		{ .title = "f", .file = "f.txt", .using = "1:2" },
		{ .title = "b", .x = xa + 2, .y = yb + 2, .n = 1 },
	};
	int have_gp = system("command -v gnuplot >/dev/null 2>&1") == 0, e;
	char *t;
	FILE *f;

	ST_TRUE(st, mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/f.txt", dir);
	f = fopen(path, "w");
	ST_TRUE(st, f != NULL);
	if (f) {
		fputs("1 5\n2 6\n", f);
		fclose(f);
	}
	e = mrc_plot_png(dir, "p", &(struct mrc_plot){ .title = "t", .series = c, .n_series = 3 });
	ST_EQ_I(st, e, have_gp ? 0 : -ENOENT);
	snprintf(path, sizeof(path), "%s/p.dat", dir);
	t = st_slurp(path);
	ST_EQ_STR(st, t ? t : "", "# a\n-2 556\n-1 556\n\n\n# b\n0 80\n");
	free(t);
	snprintf(path, sizeof(path), "%s/p.gp", dir);
	t = st_slurp(path);
	ST_TRUE(st, t && strstr(t, "plot 'p.dat' index 0 using 1:2 "));
	ST_TRUE(st, t && strstr(t, "    'f.txt' using 1:2 "));
	ST_TRUE(st, t && strstr(t, "    'p.dat' index 1 using 1:2 "));
	free(t);
	if (have_gp) {
		uint8_t h[24] = { 0 };

		snprintf(path, sizeof(path), "%s/p.png", dir);
		f = fopen(path, "rb");
		ST_TRUE(st, f && fread(h, 1, sizeof(h), f) == sizeof(h));
		if (f)
			fclose(f);
		ST_EQ_MEM(st, h, "\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR", 16);
		ST_EQ(st, (uint64_t)h[16] << 24 | h[17] << 16 | h[18] << 8 | h[19], 1000);
		ST_EQ(st, (uint64_t)h[20] << 24 | h[21] << 16 | h[22] << 8 | h[23], 560);
		unlink(path);
	}
	/* files only: no .dat */
	e = mrc_plot_png(dir, "q", &(struct mrc_plot){ .series = c + 1, .n_series = 1 });
	ST_EQ_I(st, e, have_gp ? 0 : -ENOENT);
	snprintf(path, sizeof(path), "%s/q.dat", dir);
	ST_TRUE(st, access(path, F_OK) != 0);
	ST_EQ_I(st, mrc_plot_png(dir, "it's", &(struct mrc_plot){ .n_series = 0 }), -EINVAL);
	for (const char *const *n = (const char *const[]){ "p.dat", "p.gp", "q.gp", "q.png",
		     "f.txt", NULL }; *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	ST_EQ_I(st, rmdir(dir), 0);
}

/* The heat map's script of @ny rows x 2 columns (rows "r0", "r1", ...). */
static char *st_heat(size_t ny)
{
	static char names[100][8];
	static const char *rows[100];
	static const char *const cols[] = { "p0", "p1" };
	double v[200] = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct mrc_plot_heat h = { .title = "t", .xlabel = "plane", .ylabel = "link", .nx = 2,
		.ny = ny, .xtics = cols, .ytics = rows, .v = v };

	for (size_t i = 0; i < 100; i++) {
		snprintf(names[i], sizeof(names[i]), "r%zu", i);
		rows[i] = names[i];
	}
	if (!f)
		return NULL;
	if (mrc_plot_heat_write_script(f, "hm", &h)) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

static void st_heatmap(struct mrc_st *st)
{
	char *s = st_heat(3);

	/* 3 rows: 150 + 3 x 14 under the 560 floor; rows top down, every one labelled */
	if (ST_TRUE(st, s != NULL)) {
		ST_TRUE(st, strstr(s, "size 1000,560 ") != NULL);
		ST_TRUE(st, strstr(s, "set yrange [2.5:-0.5]\n") != NULL);
		ST_TRUE(st, strstr(s, "set ytics (\"r0\" 0, \"r1\" 1, \"r2\" 2)\n") != NULL);
		ST_TRUE(st, strstr(s, "set xtics (\"p0\" 0, \"p1\" 1)\n") != NULL);
		ST_TRUE(st, strstr(s, "plot 'hm.dat' using 1:2:3 with image\n") != NULL);
	}
	free(s);
	/* 100 rows: 150 + 1400 pixels; a label every ceil(100 / 64) = 2 rows */
	s = st_heat(100);
	if (ST_TRUE(st, s != NULL)) {
		ST_TRUE(st, strstr(s, "size 1000,1550 ") != NULL);
		ST_TRUE(st, strstr(s, "\"r98\" 98)") != NULL);
		ST_TRUE(st, strstr(s, "\"r1\" 1") == NULL);
	}
	free(s);
	ST_TRUE(st, st_heat(0) == NULL); /* no cell */
}

MRC_SELFTEST(plot)
{
	mrc_st_case(st, "two curves from 0 with four faults: axes, margins, key, data blocks, "
			"each marker label inside the frame");
	st_two_curves(st);
	mrc_st_case(st, "a percentile spectrum read from an .hgrm: log x, no key for an "
			"untitled curve");
	st_spectrum(st);
	mrc_st_case(st, "an automatic linear x axis has room either side");
	st_auto_x(st);
	mrc_st_case(st, "files: .dat holds the inline curves only; the PNG is 1000x560");
	st_files(st);
	mrc_st_case(st, "a heat map: 14 pixels a row (560 at least), rows from the top, a "
			"label every ceil(rows / 64) rows");
	st_heatmap(st);
}
