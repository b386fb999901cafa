/*
 * A saved answer none of whose series is read (docs/fleet.md, "Queries"):
 * an OTel or remote-write pipeline names vLLM's counters with '_' for
 * ':' (vllm_generation_tokens_total), and such a file was passed over
 * unsaid while gen_tok_s and J/token came out blank. One line names the
 * file and the metrics it holds. Apart from fleet_source.c, which reads
 * the files.
 */
#include "fleet_internal.h"
#include "data/prom.h"

#include <stdio.h>
#include <string.h>

static int
is_read(const char *metric)
{
	for (int m = 0; m < WC_FLEET_N_METRICS; m++) {
		if (strcmp(metric, wc_fleet_metric_name(m)) == 0)
			return 1;
		for (int k = 0; wc_fleet_metric_alias(m, k); k++)
			if (strcmp(metric, wc_fleet_metric_alias(m, k)) == 0)
				return 1;
	}
	return 0;
}

void
wc__fleet_say_unread(const char *file, const wc_prom_set *set, const size_t *before, size_t n_before,
                     const wc_fleet_options *o)
{
	char names[80] = "";
	size_t used = 0, n_new = 0;
	for (size_t i = 0; i < set->n; i++) {
		const wc_prom_series *s = &set->s[i];
		if (i < n_before && s->n == before[i])
			continue; /* not in this file */
		if (is_read(s->metric))
			return;
		n_new++;
		/* each name once, as many as fit */
		if (!strstr(names, s->metric) && used + strlen(s->metric) + 3 < sizeof names)
			used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", s->metric);
	}
	if (!n_new || !o->warn)
		return;
	/* the path by the one rule of a message quoting a file: its middle
	 * gives way, its file name stays (a cut head lost the name) */
	char msg[WC_ERROR_MSG_MAX];
	wc_error_format_path(msg, sizeof msg, file, ": no series read (%s): no metric docs/fleet.md \"Metrics\" "
	                     "names; save the answers of the queries --verbose prints", names);
	o->warn(msg, o->warn_payload);
}
