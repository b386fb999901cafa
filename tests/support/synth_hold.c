#include "tests/support/synth_hold.h"
#include "tests/support/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
synth_hold_body(const char *tail, const char *response)
{
	size_t cap = SYNTH_HOLD_SAMPLES * 4 + strlen(tail) + strlen(response) + 512;
	char *b = malloc(cap), *p = b;
	if (!b)
		return NULL;
	p += sprintf(p, "{\"platform\":\"A100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"workload\":{\"type\":\"n_series\","
	                "\"dt_s\":0.25,\"running_series\":[");
	for (int i = 0; i < SYNTH_HOLD_SAMPLES; i++)
		p += sprintf(p, "%s%d", i ? "," : "", i % 2 == 0 ? 32 : 0);
	sprintf(p, "]},%s%s%s}", tail, response[0] ? "," : "", response);
	return b;
}

int
synth_hold_series_file(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "t_s,running\n");
	for (int i = 0; i < SYNTH_HOLD_SAMPLES; i++)
		fprintf(f, "%.2f,%d\n", i * 0.25, i % 2 == 0 ? 32 : 0);
	return fclose(f) == 0 ? 0 : -1;
}

const char *
synth_hold_warning(const json_t *ws)
{
	const char *found = NULL;
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const char *m = json_string_value(json_array_get(ws, i));
		if (m && strncmp(m, "hold_s:", 7) == 0) {
			CHECK(found == NULL);
			found = m;
		}
	}
	return found;
}
