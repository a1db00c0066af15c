/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * netns: entering a named network namespace (/run/netns/NAME, as `ip netns add` makes it)
 * with setns(2), for `mrcgen wire-ping --netns` and `mrcgen run --netns`
 * (docs/wire-driver.md "Launching under srun or mpirun"). setns(CLONE_NEWNET) moves the
 * calling thread only: sockets made before stay in the namespace they were made in (a
 * launcher's connection, a rendezvous), those made after are the namespace's.
 */
#ifndef MRC_NETNS_H
#define MRC_NETNS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The namespace name of rank @rank from template @tmpl: every "{rank}" replaced by the
 * rank in decimal ("mrcnet-7-h{rank}" -> "mrcnet-7-h2"), into @buf (@len bytes). Returns 0,
 * or -EINVAL with "netns: ..." in @err when the name is empty, ".", "..", holds a '/' or
 * does not fit (a name is a file under /run/netns).
 */
int mrc_netns_name(const char *tmpl, uint32_t rank, char *buf, size_t len, char *err,
	size_t errlen);

/*
 * Enters namespace @name; with @saved non-NULL the current one is kept open in *@saved
 * (for mrc_netns_leave; -1 when none was entered). Returns 0 or -errno with "WHO: netns:
 * 'NAME': ..." in @err (@who: the caller's name, "wire-ping"), e.g. no such namespace or
 * no CAP_SYS_ADMIN.
 */
int mrc_netns_enter(const char *name, int *saved, const char *who, char *err, size_t errlen);

/* Goes back to namespace @saved (from mrc_netns_enter; -1: nothing) and closes it. */
void mrc_netns_leave(int saved, const char *who);

#endif
