/*
 * `wattcast ingest` of run folders: what is said of a board the platform
 * catalog lacks (docs/formats/telemetry.md, "The platform"). Its power
 * limit is unknown, so no reading is held to it; `predict` warns the
 * same note (docs/capacity.md, "A board the catalog lacks"), and so does
 * ingest now, where before a GB200 row was written without a word --
 * the serving and the fine-tuning ingest alike.
 */
#include "ingest_internal.h"

#include <stdio.h>
#include <string.h>

#include "models/catalog.h"
#include "models/warnings.h"

const char *
wc__ingest_platform_unnamed(const char *power_path, char *buf, size_t cap)
{
	char name[64];
	buf[0] = '\0';
	/* The log names a board the catalog lacks: said, so the refusal does
	 * not read as if nothing named one (NVIDIA GB200, RTX 6000 Ada). */
	if (wc_nvsmi_product_name(power_path, name, sizeof name) == WC_OK && !wc_platform_lookup(name))
		snprintf(buf, cap, "; power.csv's '%.48s' is not in the platform catalog", name);
	return buf;
}

const char *
wc__ingest_platform_note(const char *platform, char *buf, size_t cap)
{
	char note[160];
	buf[0] = '\0';
	if (platform[0] && !wc_platform_lookup(platform))
		wc_error_format(buf, cap, "platform %s, so no power reading is checked against the board's limit",
		                wc_platform_unknown_note(platform, note, sizeof note));
	return buf;
}

void
wc__ingest_warn_platform(const run_ctx *rc, const wc_ingest_options *opt)
{
	char note[WC_WARNING_LEN], msg[WC_ERROR_MSG_MAX];
	if (!opt->warn || !wc__ingest_platform_note(rc->m.platform, note, sizeof note)[0])
		return;
	wc_error_format_path(msg, sizeof msg, rc->dir, ": %s", note);
	opt->warn(msg, opt->warn_payload);
}
