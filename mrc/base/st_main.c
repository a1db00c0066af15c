/* SPDX-License-Identifier: BSD-2-Clause */
/* st_main: main() of mrcgen-test, the unit-test binary — `mrcgen-test [MODULE|--list]`. */
#include "mrc/base/st.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Exit codes as mrcgen's: 0 every case passed, 1 a case failed, 2 usage (an unknown module
 * or too many arguments).
 */
int main(int argc, char **argv)
{
	const char *only = NULL;
	int failed;

	if (argc > 2) {
		fprintf(stderr, "mrcgen-test: too many arguments\n");
		return 2;
	}
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		printf("usage: mrcgen-test [MODULE|--list]\n"
		       "Runs mrcgen's unit tests: every module's, or MODULE's (see --list).\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		mrc_st_list();
		return 0;
	}
	if (argc == 2)
		only = argv[1];
	failed = mrc_st_run(only);
	if (failed == -ENOENT) {
		fprintf(stderr, "mrcgen-test: no module '%s' (see: mrcgen-test --list)\n", only);
		return 2;
	}
	return failed ? 1 : 0;
}
