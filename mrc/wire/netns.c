/* SPDX-License-Identifier: BSD-2-Clause */
/* netns: named network namespaces (netns.h). */
#include "mrc/wire/netns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int mrc_netns_name(const char *tmpl, uint32_t rank, char *buf, size_t len, char *err,
	size_t errlen)
{
	static const char key[] = "{rank}";
	size_t k = 0;

	for (const char *p = tmpl; *p;) {
		int n;

		if (!strncmp(p, key, sizeof(key) - 1)) {
			n = snprintf(buf + k, k < len ? len - k : 0, "%u", rank);
			p += sizeof(key) - 1;
		} else {
			n = snprintf(buf + k, k < len ? len - k : 0, "%c", *p++);
		}
		k += (size_t)n;
		if (k >= len) {
			snprintf(err, errlen, "netns: longer than %zu bytes '%s'", len - 1, tmpl);
			return -EINVAL;
		}
	}
	if (len)
		buf[k] = 0;
	if (!k || strchr(buf, '/') || !strcmp(buf, ".") || !strcmp(buf, "..")) {
		snprintf(err, errlen, "netns: not a namespace name (a file under /run/netns) '%s'",
			tmpl);
		return -EINVAL;
	}
	return 0;
}

int mrc_netns_enter(const char *name, int *saved, const char *who, char *err, size_t errlen)
{
	char path[300];
	int fd, cur = -1;

	if (saved)
		*saved = -1;
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: netns: '%s': %s", who, name, strerror(e));
		return -e;
	}
	if (saved)
		cur = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if ((saved && cur < 0) || setns(fd, CLONE_NEWNET) < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: netns: '%s': setns: %s", who, name, strerror(e));
		close(fd);
		if (cur >= 0)
			close(cur);
		return -e;
	}
	close(fd);
	if (saved)
		*saved = cur;
	return 0;
}

void mrc_netns_leave(int saved, const char *who)
{
	if (saved < 0)
		return;
	if (setns(saved, CLONE_NEWNET) < 0)
		fprintf(stderr, "%s: netns: setns back: %s\n", who, strerror(errno));
	close(saved);
}
