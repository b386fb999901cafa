/*
 * Verdicts on a fleet ingest's groups (docs/fleet.md, "Problems in the
 * data"): every fleet warning goes through wc__fleet_warn, the one
 * place it meets its 255 bytes; verdicts (a group left out, GPUs no
 * engine uses, an engine without GPUs, a server's note of a partial
 * answer) are said past its 50 warnings' budget too, as said_no_rows (fleet_rows.c) says
 * the groups without rows: in a fleet of 100 hosts each host's first load
 * change spent the budget, and a host left out vanished from the table,
 * exit 0, without a word. --quiet (no warn function) still silences them.
 */
#include "fleet_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include "models/warnings.h"

void
wc__fleet_warn(wc_fleet *f, const char *fmt, ...)
{
	/* The one bound of every fleet warning (docs/fleet.md, "Problems in
	 * the data"): a vsnprintf into 512 bytes let a series with all its
	 * labels take it past 255, or cut it silently. wc_error_vformat's rule:
	 * the marked series (WC_QUOTE_OPEN) gives way first, ending in "...",
	 * so that what went wrong and its numbers arrive whole. */
	char msg[WC_WARNING_LEN];
	va_list ap;
	if (!f->o.warn || f->n_warnings > f->o.max_warnings)
		return;
	if (f->n_warnings++ == f->o.max_warnings) {
		f->o.warn("further warnings suppressed", f->o.warn_payload);
		return;
	}
	va_start(ap, fmt);
	wc_error_vformat(msg, sizeof msg, fmt, ap);
	va_end(ap);
	f->o.warn(msg, f->o.warn_payload);
}

void
wc__fleet_verdict(wc_fleet *f, const char *fmt, ...)
{
	/* bounded as wc__fleet_warn bounds: past the budget it goes to the
	 * warn function directly, and 512 bytes let it pass 255 */
	char msg[WC_WARNING_LEN];
	va_list ap;
	if (!f->o.warn)
		return;
	va_start(ap, fmt);
	wc_error_vformat(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (f->n_warnings < f->o.max_warnings) {
		wc__fleet_warn(f, "%s", msg);
		return;
	}
	f->o.warn(msg, f->o.warn_payload);
}
