/*
 * Timestamps of the telemetry logs that carry their own zone: RFC 3339
 * with `Z` or an offset, and epoch seconds. Read by the Prometheus path's
 * one parser (wc_prom_parse_time), so power.csv, engine.csv and the
 * scrapes agree on what such a time is (docs/formats/telemetry.md,
 * "Timestamps").
 */
#include "telemetry_internal.h"
#include "data/prom.h"

#include <string.h>

int
wc__parse_zoned_time(const char *s, size_t len, double *out, char *why, size_t cap)
{
	char text[64];
	double v;
	if (why && cap)
		why[0] = '\0';
	if (len == 0 || len >= sizeof text)
		return -1;
	memcpy(text, s, len);
	text[len] = '\0';
	/* A plain number is epoch seconds only where it lands in the
	 * plausible years; another unit is named (a millisecond stamp). */
	if (strpbrk(text, "-:Tt") == NULL) {
		if (wc_parse_decimal(text, &v) != 0)
			return -1;
		if (wc_prom_time_check(v, 0, why, cap) != WC_OK)
			return -2;
	} else if (wc_prom_parse_time(text, &v) != WC_OK) {
		/* RFC 3339 without a zone is local time: nvidia-smi's own
		 * form (wc_nvsmi_parse_time); wc_prom_parse_time refuses it. */
		return -1;
	}
	*out = v;
	return 0;
}
