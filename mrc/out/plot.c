/* SPDX-License-Identifier: BSD-2-Clause */
/* plot: PNG plots through gnuplot; see plot.h. */
#include "mrc/out/plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Curve colours, in turn (matplotlib's tab10). */
static const char *const colours[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
	"#8c564b", "#e377c2", "#17becf", "#bcbd22" };

/* Quotes @s for a gnuplot double-quoted string. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The title and axis labels of a plot, one `set` line each. */
static void gp_labels(FILE *f, const char *title, const char *xlabel, const char *ylabel)
{
	fputs("set title ", f);
	gp_str(f, title);
	fputs("\nset xlabel ", f);
	gp_str(f, xlabel);
	fputs("\nset ylabel ", f);
	gp_str(f, ylabel);
	fputc('\n', f);
}

/* Marker label width per character, as a fraction of the frame's width (font 10 is about
 * 7 pixels a character; the frame about 800 of the 1000, less with a key outside). */
#define LABEL_CHAR_FRAC (1.0 / 110)

/* The x range: @p->xrange's when it gives both ends (a linear axis), else the span of the
 * inline points and the markers. False when that is empty or one value. */
static int x_span(const struct mrc_plot *p, double *lo, double *hi)
{
	if (!p->logx && p->xrange && sscanf(p->xrange, "[%lf:%lf]", lo, hi) == 2)
		return *hi > *lo;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t s = 0; s < p->n_series; s++)
		for (size_t i = 0; !p->series[s].file && i < p->series[s].n; i++) {
			*lo = fmin(*lo, p->series[s].x[i]);
			*hi = fmax(*hi, p->series[s].x[i]);
		}
	for (size_t i = 0; i < p->n_markers; i++) {
		*lo = fmin(*lo, p->markers[i].x);
		*hi = fmax(*hi, p->markers[i].x);
	}
	return *hi > *lo;
}

/* Whether marker @m's label goes left of its line (right-aligned): when it does not fit
 * right of it and fits left of it, or fits neither side and has more room left. */
static int label_left(const struct mrc_plot_marker *m, int span, double lo, double hi)
{
	double at, w = (double)(strlen(m->label ? m->label : "") + 2) * LABEL_CHAR_FRAC;

	if (!span)
		return 0;
	at = (m->x - lo) / (hi - lo);
	if (at + w <= 1)
		return 0;
	return at - w >= 0 || at > 0.5;
}

int mrc_plot_write_script(FILE *f, const char *name, const struct mrc_plot *p)
{
	static const char *const with[] = { [MRC_PLOT_LINESPOINTS] = "linespoints pt 7 ps 0.6",
		[MRC_PLOT_STEPS] = "steps", [MRC_PLOT_LINES] = "lines" };
	const char *key = p->key ? p->key : "inside right bottom";
	double lo, hi;
	int span = x_span(p, &lo, &hi), keyed = 0, outside;
	size_t block = 0;

	if (!p->n_series)
		return -EINVAL;
	for (size_t s = 0; s < p->n_series; s++)
		keyed |= p->series[s].title != NULL;
	/* a key outside the frame: gnuplot sizes the right margin to hold it */
	outside = keyed && strncmp(key, "outside", 7) == 0;
	/* margins in character cells: the y tic labels and label on the left, half of the last
	 * x tic label on the right (or a key outside), x tic labels and label below, the
	 * title above */
	fprintf(f, "set terminal pngcairo size 1000,560 noenhanced font ',10'\n"
		   "set output '%s.png'\n"
		   "set lmargin 12\n%sset tmargin 3\nset bmargin 4.5\n"
		   "set grid\n", name, outside ? "" : "set rmargin 7\n");
	gp_labels(f, p->title, p->xlabel, p->ylabel);
	if (p->logx)
		fputs("set logscale x\n", f);
	if (p->logy)
		fputs("set logscale y\n", f);
	if (p->xtics)
		fprintf(f, "set xtics %s\n", p->xtics);
	if (p->xrange)
		fprintf(f, "set xrange %s\n", p->xrange);
	if (p->yrange)
		fprintf(f, "set yrange %s\n", p->yrange);
	/* a little room left and right of the first and last point (an automatic linear x
	 * axis), and above the data for the marker labels */
	fprintf(f, "set offsets %s, graph %s, 0\n",
		p->logx || p->xrange ? "0, 0" : "graph 0.02, graph 0.02",
		p->n_markers ? "0.2" : "0.05");
	if (keyed)
		fprintf(f, "set key %s Left reverse opaque box\n", key);
	else
		fputs("set key off\n", f);
	for (size_t i = 0; i < p->n_markers; i++) {
		double x = p->markers[i].x;
		int right = label_left(&p->markers[i], span, lo, hi);

		fprintf(f,
			"set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lc rgb 'red'\n",
			x, x);
		fprintf(f, "set label %zu at %.9g, graph %.2f ", i + 1, x,
			0.96 - 0.05 * (double)(i % 3));
		gp_str(f, p->markers[i].label);
		fprintf(f, " %s offset %s,0 tc rgb 'red'\n", right ? "right" : "left",
			right ? "-0.5" : "0.5");
	}
	fputs("plot", f);
	for (size_t s = 0; s < p->n_series; s++) {
		const struct mrc_plot_series *c = &p->series[s];

		if (c->file)
			fprintf(f, "%s'%s' using %s", s ? ", \\\n    " : " ", c->file, c->using);
		else
			fprintf(f, "%s'%s.dat' index %zu using 1:2", s ? ", \\\n    " : " ", name,
				block++);
		fprintf(f, " with %s lw 2 lc rgb '%s' ", with[p->style],
			colours[s % (sizeof(colours) / sizeof(colours[0]))]);
		if (c->title) {
			fputs("title ", f);
			gp_str(f, c->title);
		} else {
			fputs("notitle", f);
		}
	}
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

/* @dir/@name.dat: the inline series, one block each (two blank lines apart: gnuplot's
 * index). */
static int write_dat(const char *path, const struct mrc_plot *p)
{
	FILE *f;
	int first = 1;
	size_t inline_n = 0;

	for (size_t s = 0; s < p->n_series; s++)
		inline_n += !p->series[s].file;
	if (!inline_n) /* every curve reads a file of its own */
		return 0;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (size_t s = 0; s < p->n_series; s++) {
		const struct mrc_plot_series *c = &p->series[s];

		if (c->file)
			continue;
		fprintf(f, "%s# %s\n", first ? "" : "\n\n", c->title ? c->title : "");
		first = 0;
		for (size_t i = 0; i < c->n; i++)
			fprintf(f, "%.9g %.9g\n", c->x[i], c->y[i]);
	}
	if (ferror(f) | fclose(f))
		return -EIO;
	return 0;
}

/* Runs `gnuplot @name.gp` in @dir: 0, -ENOENT (no gnuplot) or -EIO. */
static int run_gnuplot(const char *dir, const char *name)
{
	char cmd[4300];
	int st;

	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		return -ENOENT;
	snprintf(cmd, sizeof(cmd), "cd '%s' && gnuplot '%s.gp' 2>/dev/null", dir, name);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -EIO;
	return 0;
}

/* Writes @dir/@name.gp through @script. */
static int write_gp(const char *dir, const char *name, int (*script)(FILE *, const char *,
	const void *), const void *p)
{
	char path[4096];
	FILE *f;
	int e;

	snprintf(path, sizeof(path), "%s/%s.gp", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	e = script(f, name, p);
	if (fclose(f) || e)
		return -EIO;
	return 0;
}

static int plot_script(FILE *f, const char *name, const void *p)
{
	return mrc_plot_write_script(f, name, p);
}

int mrc_plot_png(const char *dir, const char *name, const struct mrc_plot *p)
{
	char path[4096];
	int e;

	/* dir and name are ours (output.dir + fixed names), quoted for the shell anyway */
	if (strchr(dir, '\'') || strchr(name, '\'') || !p->n_series)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	e = write_dat(path, p);
	e = e ?: write_gp(dir, name, plot_script, p);
	return e ?: run_gnuplot(dir, name);
}

/* ---- heat maps ---- */

int mrc_plot_heat_write_script(FILE *f, const char *name, const struct mrc_plot_heat *h)
{
	size_t step = h->ny > 64 ? (h->ny + 63) / 64 : 1, height = 150 + 14 * h->ny;

	if (!h->nx || !h->ny)
		return -EINVAL;
	if (height < 560)
		height = 560;
	if (height > 4000)
		height = 4000;
	fprintf(f, "set terminal pngcairo size 1000,%zu noenhanced font ',9'\n"
		   "set output '%s.png'\n"
		   "set lmargin 20\nset rmargin 12\nset tmargin 3\nset bmargin 4.5\n",
		height, name);
	gp_labels(f, h->title, h->xlabel, h->ylabel);
	/* percent; -2 (nothing measured) grey, then white at 0 to dark red at 100 */
	fputs("set cbrange [-2:100]\nset cblabel \"loss %\"\n"
	      "set palette defined (-2 '#c8c8c8', -0.01 '#c8c8c8', 0 '#ffffff', 1 '#fee8c8', "
	      "5 '#fdbb84', 20 '#e34a33', 100 '#7f0000')\n"
	      "set cbtics ('none' -2, '0' 0, '20' 20, '40' 40, '60' 60, '80' 80, '100' 100)\n",
		f);
	fprintf(f, "set xrange [-0.5:%zu.5]\nset yrange [%zu.5:-0.5]\nset key off\n",
		h->nx - 1, h->ny - 1);
	fputs("set xtics (", f);
	for (size_t x = 0; x < h->nx; x++) {
		fputs(x ? ", " : "", f);
		gp_str(f, h->xtics[x]);
		fprintf(f, " %zu", x);
	}
	fputs(")\nset ytics (", f);
	for (size_t y = 0; y < h->ny; y += step) {
		fputs(y ? ", " : "", f);
		gp_str(f, h->ytics[y]);
		fprintf(f, " %zu", y);
	}
	fprintf(f, ")\nplot '%s.dat' using 1:2:3 with image\n", name);
	return ferror(f) ? -EIO : 0;
}

static int heat_script(FILE *f, const char *name, const void *p)
{
	return mrc_plot_heat_write_script(f, name, p);
}

int mrc_plot_heat_png(const char *dir, const char *name, const struct mrc_plot_heat *h)
{
	char path[4096];
	FILE *f;
	int e;

	if (strchr(dir, '\'') || strchr(name, '\'') || !h->nx || !h->ny)
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (size_t y = 0; y < h->ny; y++)
		for (size_t x = 0; x < h->nx; x++) {
			double v = h->v[y * h->nx + x];

			fprintf(f, "%zu %zu %.4f\n", x, y, isnan(v) ? -2.0 : 100 * v);
		}
	if (ferror(f) | fclose(f))
		return -EIO;
	e = write_gp(dir, name, heat_script, h);
	return e ?: run_gnuplot(dir, name);
}
