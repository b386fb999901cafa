/*
 * Verdicts on a fleet ingest's groups (docs/fleet.md, "Problems in the
 * data"): a group left out, GPUs no engine uses, an engine without GPUs,
 * a server's note of a partial answer. Said past the 50 warnings' budget
 * of wc__fleet_warn (trace/fleet.c), as said_no_rows (fleet_rows.c) says
 * the groups without rows: in a fleet of 100 hosts each host's first load
 * change spent the budget, and a host left out vanished from the table,
 * exit 0, without a word. --quiet (no warn function) still silences them.
 */
#include "fleet_internal.h"

#include <stdarg.h>
#include <stdio.h>

void
wc__fleet_verdict(wc_fleet *f, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (!f->o.warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (f->n_warnings < f->o.max_warnings) {
		wc__fleet_warn(f, "%s", msg);
		return;
	}
	f->o.warn(msg, f->o.warn_payload);
}
