/* SPDX-License-Identifier: BSD-2-Clause */
/* num: strict decimal numbers (num.h). */
#include <errno.h>
#include <stdlib.h>

#include "mrc/base/num.h"

int mrc_parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL; /* strtoull would take a sign or leading space */
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}
