/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * plot: PNG plots through gnuplot. Each plot NAME in a directory DIR is DIR/NAME.png, made
 * by the script DIR/NAME.gp from DIR/NAME.dat (its inline series) and the files its other
 * series name; script and data stay, and the script names them relative to DIR, so
 * `cd DIR && gnuplot NAME.gp` makes the plot again wherever DIR is moved.
 */
#ifndef MRC_PLOT_H
#define MRC_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* A vertical marker line at @x labelled @label (a fault, a recovery). */
struct mrc_plot_marker {
	double x;
	const char *label;
};

/*
 * One curve: either @n inline points (x[i], y[i]), written to NAME.dat as one data block,
 * or, when @file is set, columns of that file (a path relative to DIR) picked by @using
 * (gnuplot's using spec, e.g. "4:1"; rows that have no such number are skipped). @title
 * is its key entry; NULL for none.
 */
struct mrc_plot_series {
	const char *title;
	const double *x, *y;
	size_t n;
	const char *file, *using;
};

enum mrc_plot_style {
	MRC_PLOT_LINESPOINTS,	/* a point per value, joined */
	MRC_PLOT_STEPS,		/* a time series of bins */
	MRC_PLOT_LINES,		/* a dense curve (a percentile spectrum) */
};

/* One plot of @n_series curves on the same axes. */
struct mrc_plot {
	const char *title, *xlabel, *ylabel;
	const struct mrc_plot_series *series;
	size_t n_series;
	const struct mrc_plot_marker *markers;
	size_t n_markers;
	int logx, logy;
	enum mrc_plot_style style;
	const char *xtics;	    /* gnuplot xtics spec, or NULL */
	const char *xrange, *yrange; /* gnuplot ranges, e.g. "[0:*]", or NULL (automatic) */
	const char *key;	    /* where the key goes (gnuplot's words, e.g. "outside right
				     * top"); NULL: "inside right bottom" */
};

/*
 * Writes the gnuplot script of plot @name (DIR/@name.gp's text) to @f: a 1000x560 PNG
 * @name.png with margins wide enough for every tic label, axis label and title (the right
 * one left to gnuplot for a key outside), the key (only when some series has a title)
 * where @key says, each marker a dashed red line
 * with its label right of it where it fits in the frame (the x range: @xrange's ends, or
 * the data's), else left of it, at one of three heights in turn, and headroom above the
 * data for those labels. Returns 0, -EINVAL for a plot of no curve, or -EIO on a write error.
 */
int mrc_plot_write_script(FILE *f, const char *name, const struct mrc_plot *p);

/*
 * Writes @dir/@name.dat (the inline series, one block each, in order) and @dir/@name.gp,
 * then runs gnuplot in @dir to make @dir/@name.png. Returns 0, -ENOENT when gnuplot is
 * not installed (the .dat/.gp stay, so the plot can be made later), -EIO when gnuplot
 * failed, -EINVAL for a @dir or @name with a quote in it or no curve, or a negative errno
 * from writing the files.
 */
int mrc_plot_png(const char *dir, const char *name, const struct mrc_plot *p);

/*
 * A heat map: @ny rows by @nx columns, cell (row, col) coloured by v[row * nx + col], a
 * fraction 0..1 shown in percent from white through orange to dark red, NaN (nothing
 * measured) grey; @xtics / @ytics label every column / row (rows from the top; above 64
 * rows every ceil(ny / 64)-th).
 */
struct mrc_plot_heat {
	const char *title, *xlabel, *ylabel;
	size_t nx, ny;
	const char *const *xtics, *const *ytics;
	const double *v;
};

/* Writes the heat map's script (DIR/@name.gp's text) to @f: a PNG 1000 wide, 14 pixels a
 * row (at least 560, at most 4000). Returns 0, -EINVAL (no cell) or -EIO. */
int mrc_plot_heat_write_script(FILE *f, const char *name, const struct mrc_plot_heat *h);

/*
 * Writes @dir/@name.dat (one "col row percent" line per cell, NaN as -2) and @dir/@name.gp
 * and runs gnuplot in @dir to make @dir/@name.png. Returns as mrc_plot_png().
 */
int mrc_plot_heat_png(const char *dir, const char *name, const struct mrc_plot_heat *h);

#endif
