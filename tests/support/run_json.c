/* A command's JSON answer and its numbers by path (tests/support/run_json.h). */
#include "tests/support/run_json.h"

#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

json_t *
test_run_json(const char *const *argv, char **err)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	if (err)
		*err = strdup(r.err ? r.err : "");
	run_result_free(&r);
	return j;
}

double
test_json_num(const json_t *j, const char *path)
{
	char key[64];
	const char *p = path;
	while (j && *p) {
		size_t n = 0;
		while (p[n] && p[n] != '/' && n + 1 < sizeof key) {
			key[n] = p[n];
			n++;
		}
		key[n] = '\0';
		j = json_object_get(j, key);
		p += n + (p[n] == '/');
	}
	return j && json_is_number(j) ? json_number_value(j) : NAN;
}
