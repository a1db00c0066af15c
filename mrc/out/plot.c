/* SPDX-License-Identifier: BSD-2-Clause */
/* plot: PNG plots through gnuplot; see plot.h. */
#include "mrc/out/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

int mrc_plot_png(const char *base, const struct mrc_plot *p)
{
	char path[4096], cmd[4200];
	FILE *f;
	int st;

	snprintf(path, sizeof(path), "%s.dat", base);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	for (size_t i = 0; i < p->n; i++)
		fprintf(f, "%.9g %.9g\n", p->x[i], p->y[i]);
	if (fclose(f))
		return -EIO;

	snprintf(path, sizeof(path), "%s.gp", base);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "set terminal pngcairo size 1000,560 noenhanced font ',10'\n"
		   "set output '%s.png'\nset grid\nset key off\n", base);
	fputs("set title ", f);
	gp_str(f, p->title);
	fputs("\nset xlabel ", f);
	gp_str(f, p->xlabel);
	fputs("\nset ylabel ", f);
	gp_str(f, p->ylabel);
	fputc('\n', f);
	if (p->logx)
		fputs("set logscale x\n", f);
	if (p->logy)
		fputs("set logscale y\n", f);
	if (p->xtics)
		fprintf(f, "set xtics %s\n", p->xtics);
	for (size_t i = 0; i < p->n_markers; i++) {
		fprintf(f, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dt 2 lc rgb 'red'\n",
			p->markers[i].x, p->markers[i].x);
		fprintf(f, "set label %zu at %.9g, graph 0.96 ", i + 1, p->markers[i].x);
		gp_str(f, p->markers[i].label);
		fputs(" offset 0.5,0 tc rgb 'red'\n", f);
	}
	fprintf(f, "plot '%s.dat' using 1:2 with %s lw 2 lc rgb '#1f77b4'\n", base,
		p->steps ? "steps" : "linespoints pt 7 ps 0.6");
	if (fclose(f))
		return -EIO;

	/* The base path is ours (output.dir + fixed names), quoted for the shell anyway. */
	snprintf(cmd, sizeof(cmd), "gnuplot '%s.gp' 2>/dev/null", base);
	if (strchr(base, '\''))
		return -EINVAL;
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		return -ENOENT;
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -EIO;
	return 0;
}
