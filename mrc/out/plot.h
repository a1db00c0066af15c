/* SPDX-License-Identifier: BSD-2-Clause */
/* plot: PNG plots through gnuplot — the data (.dat) and script (.gp) are kept beside them. */
#ifndef MRC_PLOT_H
#define MRC_PLOT_H

#include <stddef.h>

/* A vertical marker line at @x labelled @label (a fault, a recovery). */
struct mrc_plot_marker {
	double x;
	const char *label;
};

/* One plot: @n points (x[i], y[i]); axes labels; log-scale flags. */
struct mrc_plot {
	const char *title, *xlabel, *ylabel;
	const double *x, *y;
	size_t n;
	const struct mrc_plot_marker *markers;
	size_t n_markers;
	int logx, logy;
	int steps;	   /* draw as steps (a time series of bins) instead of points+lines */
	const char *xtics; /* gnuplot xtics spec, or NULL */
};

/*
 * Writes @base.dat and @base.gp and runs `gnuplot @base.gp` to make @base.png.
 * Returns 0, -ENOENT when gnuplot is not installed (the .dat/.gp stay, so the plot can be
 * made later), -EIO when gnuplot failed, or a negative errno from writing the files.
 */
int mrc_plot_png(const char *base, const struct mrc_plot *p);

#endif
