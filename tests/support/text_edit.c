/* Test helpers that edit a text in memory (a parameter file's JSON
 * as wc_params_dump writes it): each edits `s`, replacing it when the
 * text grows, and returns the text the caller frees (support.h). */
#include "tests/support/support.h"

#include "data/params_file.h"
#include "models/params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
test_replaced(char *s, const char *from, const char *to)
{
	char *at = s ? strstr(s, from) : NULL;
	CHECK(at != NULL);
	if (!at)
		return s;
	char *o = malloc(strlen(s) - strlen(from) + strlen(to) + 1);
	if (!o)
		return s;
	memcpy(o, s, (size_t)(at - s));
	strcpy(o + (at - s), to);
	strcat(o, at + strlen(from));
	free(s);
	return o;
}

char *
test_simulated_as_measured(char *s)
{
	while (s && strstr(s, "\"source\": \"simulated\""))
		s = test_replaced(s, "\"source\": \"simulated\"", "\"source\": \"measured\"");
	return s;
}

char *
test_without_object(char *s, const char *section, const char *key)
{
	char needle[64];
	snprintf(needle, sizeof needle, ",\n      \"%s\": {", key);
	char *from = s ? strstr(s, section) : NULL;
	for (char *at = from ? strstr(from, needle) : NULL; at; at = strstr(at, needle)) {
		char *end = strchr(at + strlen(needle), '}'), *close = strstr(from, "\n  ]");
		if (!end || (close && close < at))
			break;
		memmove(at, end + 1, strlen(end + 1) + 1);
	}
	return s;
}

json_t *
test_paper_json(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	char *s = wc_params_dump(&p, 1, NULL);
	json_t *j = s ? json_loads(s, 0, NULL) : NULL;
	CHECK(j != NULL);
	free(s);
	wc_params_clear(&p);
	return j;
}
