/*
 * What "node power" covers (docs/envelopes.md, "Power"): node power, idle
 * power, envelopes and budget plans are the GPU boards' draw as nvidia-smi
 * measures it, but nothing said so: a planner read "node power 3278.2 W"
 * for 8 x H100 and "34 servers <= 100000 W" as whole servers, whose hosts
 * add more than 1 kW each. The README's quick answer, envelopes.md (Power
 * and Budget plans), planner.md, http-api.md and the OpenAPI descriptions
 * of node_power_w, idle_power_w and budget_w now say it.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* how many times `needle` occurs in `s` */
static int
count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s ? strstr(s, needle) : NULL; p; p = strstr(p + 1, needle))
		n++;
	return n;
}

int
main(void)
{
	static const char phrase[] = "the GPU boards' draw as nvidia-smi measures it";
	static const struct {
		const char *file;
		int at_least;
	} docs[] = { { "README.md", 1 }, { "docs/envelopes.md", 2 }, { "docs/planner.md", 1 },
		     { "docs/http-api.md", 2 }, { "server/openapi.json", 3 } };
	for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
		char *s = test_doc_text(docs[i].file); /* white space as one space */
		const int n = count(s, phrase);
		CHECK(n >= docs[i].at_least);
		if (n < docs[i].at_least)
			fprintf(stderr, "  %s says '%s' %d times, wanted %d\n", docs[i].file, phrase, n, docs[i].at_least);
		free(s);
	}
	return check_report("test_power_scope_docs");
}
