/* SPDX-License-Identifier: BSD-2-Clause */
/* spsc: a lock-free single-producer single-consumer ring (see spsc.h). */
#include "mrc/wire/spsc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mrc_spsc_init(struct mrc_spsc *r, uint32_t cap, uint32_t esize)
{
	memset(r, 0, sizeof(*r));
	if (cap < 2 || (cap & (cap - 1)) || !esize)
		return -EINVAL;
	r->buf = calloc(cap, esize);
	if (!r->buf)
		return -ENOMEM;
	r->mask = cap - 1;
	r->esize = esize;
	return 0;
}

void mrc_spsc_free(struct mrc_spsc *r)
{
	free(r->buf);
	r->buf = NULL;
}

bool mrc_spsc_push(struct mrc_spsc *r, const void *e)
{
	uint32_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint32_t h = atomic_load_explicit(&r->head, memory_order_acquire);

	if (t - h > r->mask)
		return false;
	memcpy(r->buf + (size_t)(t & r->mask) * r->esize, e, r->esize);
	/* the entry's bytes before the index that publishes them */
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return true;
}

bool mrc_spsc_pop(struct mrc_spsc *r, void *e)
{
	uint32_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint32_t t = atomic_load_explicit(&r->tail, memory_order_acquire);

	if (h == t)
		return false;
	memcpy(e, r->buf + (size_t)(h & r->mask) * r->esize, r->esize);
	/* the slot is read before the producer may write it again */
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return true;
}

uint32_t mrc_spsc_count(struct mrc_spsc *r)
{
	return atomic_load_explicit(&r->tail, memory_order_acquire) -
	       atomic_load_explicit(&r->head, memory_order_acquire);
}
