/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * spsc: a bounded single-producer single-consumer ring of fixed-size entries between two
 * threads, lock-free (C11 acquire/release on the head and tail indices, each written by
 * one side only, as in Lamport's ring): the xdp dataplane's per-port rings between its
 * threads (docs/wire-xdp.md "Threads"). Capacity a power of two.
 */
#ifndef MRC_SPSC_H
#define MRC_SPSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mrc_spsc {
	_Alignas(64) _Atomic uint32_t head;	/* next to read: the consumer's */
	_Alignas(64) _Atomic uint32_t tail;	/* next to write: the producer's */
	_Alignas(64) uint32_t mask, esize;
	uint8_t *buf;
};

/* Makes a ring of @cap entries (a power of two, >= 2) of @esize bytes. 0, -EINVAL, -ENOMEM. */
int mrc_spsc_init(struct mrc_spsc *r, uint32_t cap, uint32_t esize);
void mrc_spsc_free(struct mrc_spsc *r);

/* Producer: copies @e in; false when the ring is full (nothing written). */
bool mrc_spsc_push(struct mrc_spsc *r, const void *e);
/* Consumer: copies the oldest entry out into @e; false when the ring is empty. */
bool mrc_spsc_pop(struct mrc_spsc *r, void *e);
/* Entries in the ring now (either side; a snapshot). */
uint32_t mrc_spsc_count(struct mrc_spsc *r);

#endif
