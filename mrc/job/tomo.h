/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tomo: link inference (loss tomography) from per-path results alone (docs/sweep.md
 * "Inference"). It sees paths as sequences of named nodes and three counts each, never
 * the fabric or its faults, so a sweep's live results and `mrcgen sweep --from
 * sweep.json` give the same suspects.
 *
 * A path's requests cross its links in travel order (one-way observation "forward": sent
 * requests, delivered ones), its answers cross them back ("reverse": delivered, answered).
 * Each observation's probes survive with probability (1 - background) x the product of
 * (1 - x) over the suspects it crosses, x a suspect's loss. Candidates are a link in one
 * direction, a link in both (one rate), and a switch (a node inside some path: every
 * observation through it, once). Greedy maximum likelihood: the candidate whose best
 * loss rate raises the log-likelihood most joins while that gain is at least min_score;
 * the members' rates are refitted together (coordinate ascent), and a member whose
 * leave-one-out gain falls below min_score leaves. A candidate on no lossy observation
 * gains nothing: links only on good paths are good. Suspects are the members, the
 * members on one link merged into one, best leave-one-out gain first. When candidates tie
 * (the same observations), a switch goes before a link and a link before a direction, and
 * the suspect lists the others as alike.
 */
#ifndef MRC_TOMO_H
#define MRC_TOMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The survival every observation has without any suspect: 1 - 1e-4. */
#define MRC_TOMO_BACKGROUND 1e-4

/* Alike elements kept per suspect (struct mrc_tomo_suspect). */
#define MRC_TOMO_ALIKE 8

/* Evidence paths kept per suspect (the lossy paths crossing it, lowest index first). */
#define MRC_TOMO_EVIDENCE 32

struct mrc_tomo;

/* A new, empty problem. Returns 0 or -ENOMEM. */
int mrc_tomo_new(struct mrc_tomo **out);
void mrc_tomo_free(struct mrc_tomo *t);

/*
 * Adds path number (its index, in call order) with @n nodes (2..8, names as fault targets
 * name them) in travel order, @sent requests, @delivered of them seen by the last node's
 * endpoint and @answered answers. Counts are made consistent (an answer proves a
 * delivery: delivered := max(delivered, answered), both at most sent). Returns 0,
 * -EINVAL (n out of range, a node twice, an empty name) or -ENOMEM.
 */
int mrc_tomo_path(struct mrc_tomo *t, const char *const *nodes, unsigned n, uint64_t sent,
	uint64_t delivered, uint64_t answered);

/* Directions of a link suspect, in the order its name writes its nodes. */
enum mrc_tomo_dir {
	MRC_TOMO_BOTH,	  /* both ways bad, or the data cannot tell them apart */
	MRC_TOMO_FORWARD, /* from the first node of the name to the second */
	MRC_TOMO_REVERSE,
};

struct mrc_tomo_suspect {
	bool is_switch;
	char name[64];		/* "h0.p1-p1.t0.0" (a link, lower tier first) or "p1.t1.2" */
	enum mrc_tomo_dir dir;	/* links only */
	double score;		/* log-likelihood lost without it (natural log) */
	double loss;		/* its loss rate: the bad direction's, or both directions' mean */
	uint64_t sent, lost;	/* one-way probes over it (its directions), and lost there */
	uint32_t n_lossy;	/* lossy paths crossing it */
	uint32_t paths[MRC_TOMO_EVIDENCE]; /* the first of them (path numbers) */
	uint32_t n_paths;
	/* Elements the paths cannot tell from it: links (or switches) crossed by exactly the
	 * observations it is (a T1 of a fabric with 2 T0s and its 2 links, say) */
	char alike[MRC_TOMO_ALIKE][64];
	unsigned n_alike;
};

/*
 * Runs the inference with @min_score (the least gain of a member, natural log). Fills
 * *@out (malloc'd, release with free) with *@n suspects, best first. Returns 0 or
 * -ENOMEM.
 */
int mrc_tomo_run(struct mrc_tomo *t, double min_score, struct mrc_tomo_suspect **out,
	size_t *n);

#endif
