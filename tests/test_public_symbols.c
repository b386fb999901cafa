/*
 * Every global symbol a module's library defines starts with wc_ (public,
 * wc_module_verb) or wc__ (shared inside its folder) (docs/architecture.md,
 * "Module boundaries"): the libraries are linked into embedders'
 * programs through wattcast_all, where an unprefixed `fit_solve` or
 * `cap_value` would collide with theirs. A code audit found 47 such
 * names in the fit library, which nothing checked.
 */
#include "tests/support/support.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	const char *bin = test_env("WATTCAST_BIN", NULL);
	if (!bin) {
		fprintf(stderr, "WATTCAST_BIN is not set\n");
		return 1;
	}
	char *copy = strdup(bin), cmd[4096], line[1024];
	snprintf(cmd, sizeof cmd, "nm -g --defined-only %s/libwc_*.a 2>&1", dirname(copy));
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	int symbols = 0, libraries = 0;
	while (p && fgets(line, sizeof line, p)) {
		char addr[64], kind[8], name[512];
		if (strstr(line, ".a:") || strstr(line, ".o:")) {
			libraries += strstr(line, ".a:") != NULL;
			continue;
		}
		if (sscanf(line, "%63s %7s %511s", addr, kind, name) != 3)
			continue;
		/* names beginning with __ are the implementation's (C11 7.1.3):
		 * the sanitizers' __odr_asan.* markers, not the project's */
		if (strncmp(name, "__", 2) == 0)
			continue;
		symbols++;
		int ok = strncmp(name, "wc_", 3) == 0;
		if (!ok)
			fprintf(stderr, "global symbol without the wc_ prefix: %s", line);
		CHECK(ok);
	}
	if (p)
		CHECK_INT(pclose(p), 0);
	/* nm reads the libraries one by one: finding few symbols means the
	 * scan, not the code, is wrong. */
	CHECK(symbols > 500);
	free(copy);
	return check_report("test_public_symbols");
}
