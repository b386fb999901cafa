/*
 * Files of one range that overlap in time (docs/fleet.md, "The path end
 * to end"): two scrape logs of one target, or saved pages, that hold
 * samples of a series at the same times. Read one after the other, the
 * second's first such sample came before the first file's last and was
 * refused as "not after the previous one ... give the scrape logs in time
 * order (a clock set back?)", of files given in order. The refusal names
 * the two files and the window both hold instead.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The span of the samples file `path` holds of the series read (keep:
 * the metrics, for scrapes), into a and b; 0 when it holds none or
 * cannot be read. */
static int
file_span(const char *path, int json, const char *const *keep, double *a, double *b)
{
	wc_prom_set set = { 0 };
	wc_error e;
	int rc = json ? wc_prom_json_read(path, &set, NULL, NULL, &e)
	              : wc_prom_text_read(path, keep, &set, NULL, NULL, &e);
	*a = INFINITY;
	*b = -INFINITY;
	for (size_t i = 0; rc == WC_OK && i < set.n; i++)
		if (set.s[i].n) {
			*a = fmin(*a, set.s[i].t[0]);
			*b = fmax(*b, set.s[i].t[set.s[i].n - 1]);
		}
	wc_prom_set_clear(&set);
	return rc == WC_OK && *a <= *b;
}

void
wc__fleet_name_overlap(const char *const *files, size_t n, size_t failed, int json, const char *const *keep,
                       wc_error *err)
{
	double a, b, a0, b0;
	if (!err || err->code != WC_EINVAL || !strstr(err->msg, "is not after the previous one") || failed >= n ||
	    !file_span(files[failed], json, keep, &a, &b))
		return;
	for (size_t k = 0; k < failed; k++) {
		if (!file_span(files[k], json, keep, &a0, &b0) || a > b0 || a0 > b)
			continue;
		char from[40], to[40], other[96];
		wc_prom_format_time(fmax(a, a0), from, sizeof from);
		wc_prom_format_time(fmin(b, b0), to, sizeof to);
		/* its middle, not its file name, gives way (a long folder cut the name) */
		wc_error_format_path(other, 61, files[k], "%s", "");
		/* The time of day alone where the dates agree. */
		const char *end = strncmp(from, to, 11) == 0 ? to + 11 : to;
		wc_error_set_path(err, WC_EINVAL, files[failed], ": overlaps %s from %s to %s (both hold samples "
		                  "there): %s", other, from, end,
		                  json ? "save pages of a query with start = the previous page's end + step"
		                       : "give scrape logs that do not overlap in time (a log copied twice?)");
		return;
	}
}
