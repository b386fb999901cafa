/*
 * `wattcast ingest` of run folders: what is said of a board the platform
 * catalog lacks (docs/formats/telemetry.md, "The platform"). Its power
 * limit is unknown, so no reading is held to it; `predict` warns the
 * same note (docs/capacity.md, "A board the catalog lacks"), and so does
 * ingest now, where before a GB200 row was written without a word.
 */
#include "ingest_internal.h"

#include <stdio.h>
#include <string.h>

#include "models/catalog.h"

const char *
wc__ingest_platform_unnamed(const run_ctx *rc, char *buf, size_t cap)
{
	char name[64];
	buf[0] = '\0';
	/* The log names a board the catalog lacks: said, so the refusal does
	 * not read as if nothing named one (NVIDIA GB200, RTX 6000 Ada). */
	if (wc_nvsmi_product_name(rc->power_path, name, sizeof name) == WC_OK && !wc_platform_lookup(name))
		snprintf(buf, cap, "; power.csv's '%.48s' is not in the platform catalog", name);
	return buf;
}

void
wc__ingest_warn_platform(const run_ctx *rc, const wc_ingest_options *opt)
{
	char note[160], msg[400];
	if (!opt->warn || !rc->m.platform[0] || wc_platform_lookup(rc->m.platform))
		return;
	snprintf(msg, sizeof msg, "%s: platform %s, so no power reading is checked against the board's limit", rc->dir,
	         wc_platform_unknown_note(rc->m.platform, note, sizeof note));
	opt->warn(msg, opt->warn_payload);
}
