/*
 * Bad-line bookkeeping shared by the telemetry readers: each bad line
 * warned (up to max_warnings) and counted, the first one kept for the
 * refusal, and the refusal when the share of bad lines is over the bound
 * (docs/formats/telemetry.md, "Bad lines").
 */
#include "telemetry_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void
wc__bad_lines_count(wc__bad_lines *b, size_t line)
{
	b->bad++;
	if (b->lo_line == 0 || line < b->lo_line)
		b->lo_line = line;
	if (line > b->hi_line)
		b->hi_line = line;
}

static void
bad_report(wc__bad_lines *b, size_t line, int column, const char *fmt, va_list ap)
{
	int first = b->bad == 0;
	wc__bad_lines_count(b, line);
	int show = b->opt && b->opt->warn && (int)b->shown < b->opt->max_warnings;
	if (!first && !show)
		return;
	char reason[WC_ERROR_MSG_MAX];
	wc_error_vformat(reason, sizeof reason, fmt, ap);
	if (first) {
		b->first_line = line;
		b->first_column = column;
		wc_error_format(b->first_reason, sizeof b->first_reason, "%s", reason);
	}
	if (!show)
		return;
	if (column > 0)
		wc__warn(b->opt, b->path, ":%zu:%d: %s", line, column, reason);
	else
		wc__warn(b->opt, b->path, ":%zu: %s", line, reason);
	b->shown++;
}

void
wc__bad_line(wc__bad_lines *b, size_t line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bad_report(b, line, 0, fmt, ap);
	va_end(ap);
}

void
wc__bad_cell(wc__bad_lines *b, size_t line, int column, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bad_report(b, line, column, fmt, ap);
	va_end(ap);
}

/* "; the first: line 9:23", the refusal's last words before the first
 * bad line's reason: the message names the file already, and the
 * location is part of the text the path rule keeps whole, so a long
 * reason is what gets cut, not the line:column nor a path that fits
 * (docs/architecture.md, "Errors"). */
static const char *
first_bad(const wc__bad_lines *b, char *buf, size_t size)
{
	if (b->first_line == 0)
		return "";
	if (b->first_column > 0)
		snprintf(buf, size, "; the first: line %zu:%d", b->first_line, b->first_column);
	else
		snprintf(buf, size, "; the first: line %zu", b->first_line);
	return buf;
}

/* The message of `path` and `text` (its words to the first bad line's
 * line:column), then that line's reason. A path that fits beside the
 * words is kept whole and the reason takes the room left; else the path
 * gives way by the one rule for all of it (docs/architecture.md,
 * "Errors"). */
static int
refuse_first(const wc__bad_lines *b, wc_error *err, const char *text)
{
	const char *path = b->path;
	if (b->first_line == 0)
		return wc_error_set_path(err, WC_EPARSE, path, "%s", text);
	if ((path ? strlen(path) : 0) + strlen(text) < WC_ERROR_MSG_MAX) {
		wc_error_set_path(err, WC_EPARSE, path, "%s", text);
		if (err) {
			size_t used = strlen(err->msg);
			wc_error_format(err->msg + used, sizeof err->msg - used, ": %s", b->first_reason);
			wc_error_printable(err->msg);
		}
		return WC_EPARSE;
	}
	return wc_error_set_path(err, WC_EPARSE, path, "%s: %s", text, b->first_reason);
}

size_t
wc__bad_lines_counted(const wc__bad_lines *b)
{
	return b->bad - (b->one_cause < b->bad ? b->one_cause : 0);
}

int
wc_telemetry_bad_over(size_t counted, size_t data_lines, double share)
{
	return counted > 0 && (double)counted > share * (double)data_lines;
}

int
wc__bad_lines_finish(wc__bad_lines *b, size_t data_lines, wc_error *err)
{
	char first[64];
	if (b->bad > b->shown)
		wc__warn(b->opt, b->path, ": %zu more malformed lines not shown", b->bad - b->shown);
	double limit = b->opt ? b->opt->max_bad_fraction : WC_TELEMETRY_MAX_BAD;
	/* When every line is bad, allowing more would read nothing: the hint
	 * to raise the share is left out. */
	const char *option = b->opt && b->bad < data_lines ? b->opt->max_bad_option : NULL;
	/* A run of bad lines of one cause (a clock glitch's rows) counts once
	 * toward the share; the count said is every bad line, and how many
	 * the share counted when fewer. */
	size_t counted = wc__bad_lines_counted(b);
	char once[64] = "";
	if (counted < b->bad)
		snprintf(once, sizeof once, ", %zu counting a clock glitch's rows once", counted);
	int over = wc_telemetry_bad_over(counted, data_lines, limit);
	/* Keeping one side of the pause is the whole remedy only when the
	 * pause's lines are what push the share over; else the other bad
	 * lines need fixing too. One side, not a split: a run folder holds
	 * one power.csv, and the edit works in place for metrics too
	 * (docs/formats/telemetry.md, "Time gaps"). */
	int own_over = counted > b->split_bad && (double)(counted - b->split_bad) > limit * (double)data_lines;
	if (over && b->split_line > 0 && !own_over)
		return wc_error_set_path(err, WC_EPARSE,
		                    b->path, ":%zu: the log pauses here for over %.0f s (the later lines are bad against "
		                    "the sample before it): %zu of %zu data lines are malformed (more than %g %%); keep "
		                    "one side: delete the data lines before line %zu, or from it on", b->split_line,
		                    WC_TELEMETRY_MAX_GAP_S, b->bad, data_lines, 100.0 * limit, b->split_line);
	if (over && b->split_line > 0) {
		char text[WC_ERROR_MSG_MAX + 64];
		snprintf(text, sizeof text, ": fix the bad lines%s%s%s and keep one side of the pause at line %zu (over %.0f "
		         "s): %zu of %zu data lines are malformed%s (more than %g %%), %zu after the pause%s",
		         option ? " or allow more with " : "", option ? option : "", option ? " FRACTION" : "",
		         b->split_line, WC_TELEMETRY_MAX_GAP_S, b->bad, data_lines, once, 100.0 * limit, b->split_bad,
		         first_bad(b, first, sizeof first));
		return refuse_first(b, err, text);
	}
	if (over) {
		char text[WC_ERROR_MSG_MAX + 64];
		snprintf(text, sizeof text, ": fix the bad lines%s%s%s: %zu of %zu data lines are malformed%s (more "
		         "than %g %%)%s", option ? " or allow more with " : "", option ? option : "",
		         option ? " FRACTION" : "", b->bad, data_lines, once, 100.0 * limit,
		         first_bad(b, first, sizeof first));
		return refuse_first(b, err, text);
	}
	return WC_OK;
}
