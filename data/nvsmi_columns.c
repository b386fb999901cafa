/*
 * nvidia-smi power logs, the header and the power column
 * (docs/formats/telemetry.md, "`power.csv`: nvidia-smi"): column names and
 * units, the power column read and its readings. The rest of a line is
 * read in nvsmi_row.c.
 */
#include "nvsmi_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* --------------------------------------------------------------- header */

/* Column name without blanks and without a " [unit]" suffix; the unit
 * (without brackets) into `unit`. */
static void
column_name(char *s, size_t len, char *out, size_t cap, int *had_unit, char *unit, size_t ucap)
{
	s = wc__trim(s, &len);
	char *br = memchr(s, '[', len);
	unit[0] = '\0';
	if (br) {
		*had_unit = 1;
		char *close = memchr(br, ']', len - (size_t)(br - s));
		size_t ul = close ? (size_t)(close - br - 1) : len - (size_t)(br - s) - 1;
		char *u = wc__trim(br + 1, &ul);
		snprintf(unit, ucap, "%.*s", (int)(ul < ucap ? ul : ucap - 1), u);
		len = (size_t)(br - s);
		s = wc__trim(s, &len);
	}
	if (len >= cap)
		len = cap - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

/* Watts per unit of a power unit word: W, mW, kW (empty = W). */
static int
power_unit(const char *u, size_t n, double *scale)
{
	if (n == 0 || (n == 1 && u[0] == 'W'))
		*scale = 1.0;
	else if (n == 2 && u[0] == 'm' && u[1] == 'W')
		*scale = 1e-3;
	else if (n == 2 && u[0] == 'k' && u[1] == 'W')
		*scale = 1e3;
	else
		return -1;
	return 0;
}

/* The power columns nvidia-smi can write, in order of preference: the
 * instantaneous reading on every GPU first, then power.draw, which newer
 * boards average over a second as .average does (models/catalog.h,
 * wc_platform_power_draw_averaged; docs/formats/telemetry.md). */
const char *const wc__nv_power_names[NV_POWER_COLUMNS] = { "power.draw.instant", "power.draw", "power.draw.average" };

/* A power reading "250.31", "250.31 W", "250000 mW" or "0.25 kW" in W;
 * without a unit word, the header's unit. What the cell holds, nothing
 * counted or said: the caller does (wc__nv_power_take), or not, for a GPU
 * the run does not use (nvsmi_row.c). */
int
wc__nv_parse_power(const nv_reader *rd, const char *pw, size_t pl, nv_power *p)
{
	size_t k = 0;
	while (k < pl && pw[k] != ' ' && pw[k] != '\t')
		k++;
	size_t u = k;
	while (u < pl && (pw[u] == ' ' || pw[u] == '\t'))
		u++;
	double scale = rd->power_scale, v = 0;
	p->w = 0.0;
	p->worded = u < pl;
	p->unit_at = u;
	if (u < pl && power_unit(pw + u, pl - u, &scale) != 0) {
		int alpha = 1;
		for (size_t j = u; j < pl; j++)
			alpha = alpha && ((pw[j] >= 'a' && pw[j] <= 'z') || (pw[j] >= 'A' && pw[j] <= 'Z'));
		if (alpha)
			return p->kind = NV_POWER_UNIT;
	}
	if (wc__parse_number(pw, k, &v) != 0 || v < 0 || (u < pl && k == u))
		return p->kind = v < 0 ? NV_POWER_NEGATIVE : NV_POWER_UNREADABLE;
	p->w = v * scale;
	return p->kind = p->w > rd->max_power_w ? NV_POWER_BEYOND : NV_POWER_OK;
}

int
wc__nv_power_take(nv_reader *rd, const nv_power *p, const char *pw, size_t pl, size_t line_no, size_t col,
                  double *out)
{
	switch (p->kind) {
	case NV_POWER_UNIT:
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%zu: unknown power unit '%.*s' (W, mW or kW)",
		                         line_no, col + p->unit_at, (int)(pl - p->unit_at > 16 ? 16 : pl - p->unit_at),
		                         pw + p->unit_at);
	case NV_POWER_UNREADABLE:
	case NV_POWER_NEGATIVE:
		wc__bad_cell(&rd->bad, line_no, (int)col, "%s %s '%.*s'", p->kind == NV_POWER_NEGATIVE ? "negative"
		             : "unreadable", wc__nv_power_names[rd->power_rank], (int)(pl > 40 ? 40 : pl), pw);
		return -1;
	case NV_POWER_BEYOND:
		wc__bad_cell(&rd->bad, line_no, (int)col, "%s %.6g W is beyond the plausible %.0f W per GPU "
		             "(docs/formats/telemetry.md); not averaged", wc__nv_power_names[rd->power_rank], p->w,
		             rd->max_power_w);
		rd->info->implausible_lines++;
		rd->beyond_board += p->w <= WC_TELEMETRY_MAX_POWER_W;
		return -1;
	default:
		*out = p->w;
		rd->power_worded += p->worded;
		rd->power_bare += !p->worded;
		return 0;
	}
}

/* A board that draws twice its limit is another board: when readings
 * beyond the platform's bound are most of what refuses a log, the
 * platform is what is wrong, not the lines. --max-bad would average only
 * the readings left below the bound, and the gaps they leave refuse the
 * log next (to keep one side of a gap, with no gap in it): both sent
 * the user away from the label (docs/formats/telemetry.md, "Bad lines").
 * Readings beyond any board (WC_TELEMETRY_MAX_POWER_W) are a unit's or a
 * typo's, not a platform's. A refusal by gaps is theirs when the readings
 * dropped span half of them at the log's cadence. */
int
wc__nv_name_wrong_platform(const nv_reader *rd, double gap_s)
{
	const char *origin = rd->opt ? rd->opt->platform_origin : NULL;
	size_t beyond = rd->beyond_board;
	if (!origin || !origin[0] || !rd->err || beyond == 0 || 2 * beyond <= rd->bad.bad)
		return 0;
	if (gap_s > 0 && (double)beyond / (rd->n_gpus > 1 ? rd->n_gpus : 1) * rd->gaps.cadence < 0.5 * gap_s)
		return 0;
	wc_error_set_path(rd->err, WC_EPARSE, rd->path, ": %zu of %zu lines read above %.0f W per GPU, %g x the %.0f W board "
	             "limit of %s: the platform is likely wrong; correct it there, not with --max-bad",
	             beyond, rd->info->data_lines, rd->max_power_w, WC_TELEMETRY_POWER_LIMIT_FACTOR,
	             rd->max_power_w / WC_TELEMETRY_POWER_LIMIT_FACTOR, origin);
	return 1;
}

/* Whole-second stamps at a sub-second cadence: each second's rows of a
 * GPU share a time, so every loaded second is dropped as "again at the
 * time of its row" and no share of bad lines allowed gives a right row
 * (a real 0.25 s A100 log so cut kept its idle first 12 s: 82 W for 251
 * W); refused naming the cause (docs/formats/telemetry.md, "Timestamps"). */
int
wc__nv_whole_seconds(const nv_reader *rd)
{
	size_t lines = rd->info->data_lines - rd->other_lines;
	if (rd->frac_rows > 0 || !wc_telemetry_bad_over(rd->again_rows, lines, WC_TELEMETRY_MAX_BAD))
		return WC_OK;
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ": timestamps have whole seconds, but %zu of %zu lines are "
	             "a GPU again within its second: log with milliseconds (nvidia-smi writes .fff) or sample at 1 s "
	             "or slower; no --max-bad helps", rd->again_rows, lines);
}

/* Read power from column `rank` of power_names. */
static void
use_power(nv_reader *rd, int rank)
{
	rd->power_rank = rank;
	rd->col_power = rd->power_col[rank];
	rd->power_scale = rd->power_col_scale[rank];
	snprintf(rd->info->power_column, sizeof rd->info->power_column, "%s", wc__nv_power_names[rank]);
}

/* The power column is settled per file by the first line with a power
 * value: the most preferred column with a value on it. Before that, a
 * line whose column is missing while a less preferred one has a value
 * moves the read to that one -- nvidia-smi writes power.draw.instant as
 * [N/A] on GPUs and drivers that do not support it, next to a valid
 * power.draw.average, and the whole log was refused. Not per line: the
 * instant and averaged readings differ in timing (the average lags by
 * half its window), and a trace mixing them would not be one signal
 * (docs/formats/telemetry.md). 1 when it moved. */
int
wc__nv_choose_power(nv_reader *rd, char **start, size_t *flen, size_t line_no)
{
	for (int r = rd->power_rank + 1; r < NV_POWER_COLUMNS; r++) {
		if (rd->power_col[r] < 0)
			continue;
		size_t l = flen[rd->power_col[r]];
		char *v = wc__trim(start[rd->power_col[r]], &l);
		if (wc__is_missing(v, l))
			continue;
		wc__warn(rd->opt, rd->path, ":%zu: %s has no value, %s has: power is read from %s (docs/formats/telemetry.md)",
		         line_no, wc__nv_power_names[rd->power_rank], wc__nv_power_names[r], wc__nv_power_names[r]);
		use_power(rd, r);
		return 1;
	}
	return 0;
}

int
wc__nv_not_a_header(const char *line, size_t len, const char *missing, char *why, size_t cap)
{
	size_t b = wc_text_bom_len(line, len), p = b;
	int col = wc__csv_not_text(line, len, why, cap); /* gzip, control bytes, ';' (as every CSV reader) */
	if (col > 0)
		return col;
	while (p < len && (line[p] == ' ' || line[p] == '\t'))
		p++;
	const char *quote = memchr(line, '"', len), *comma = memchr(line, ',', len);
	if (p < len && line[p] >= '0' && line[p] <= '9' && !comma)
		snprintf(why, cap, "no header line and no commas (nvidia-smi dmon output?): record with "
		         "--query-gpu=timestamp,index,power.draw --format=csv");
	else if (p < len && line[p] >= '0' && line[p] <= '9')
		snprintf(why, cap, "no header line (log with --format=csv, without noheader)");
	else if (quote) {
		snprintf(why, cap, "quoted field at column %zu: power logs are read unquoted, as nvidia-smi "
		         "writes them (remove the quotes)", (size_t)(quote - line) + 1);
		return (int)(quote - line) + 1;
	} else
		snprintf(why, cap, "no '%s' column in the header", missing);
	return (int)b + 1; /* the line is no header from its start (past a byte order mark) */
}

/* The columns a header line names (docs/formats/telemetry.md, "Header"):
 * the time, the GPU keys and the power columns with their units. WC_OK,
 * or a WC_* error naming the line and what it lacks. A `second` header
 * may lack every power column: wc__nv_reheader refuses it as a second
 * header ("A second header"), not as a file without the column. */
static int
read_columns(nv_reader *rd, char *line, size_t len, size_t line_no, int second, nv_columns *c)
{
	size_t pos = 0;
	memset(c, 0, sizeof *c);
	for (int r = 0; r < NV_POWER_COLUMNS; r++) {
		c->power_col[r] = -1;
		c->power_col_scale[r] = 1.0;
	}
	pos = wc_text_bom_len(line, len); /* a UTF-8 byte order mark */
	c->col_time = c->col_index = c->col_uuid = -1;
	while (pos <= len) {
		char *start = line + pos;
		char *comma = memchr(start, ',', len - pos);
		size_t flen = comma ? (size_t)(comma - start) : len - pos;
		char name[64], unit[16];
		if (c->n_cols >= NV_MAX_FIELDS)
			return wc__header_too_wide(rd->path, line_no, (int)pos + 1, NV_MAX_FIELDS, NV_HEADER_HINT, rd->err);
		column_name(start, flen, name, sizeof name, &c->has_units, unit, sizeof unit);
		int k = c->n_cols++;
		if (strcasecmp(name, "timestamp") == 0)
			c->col_time = k;
		else if (strcasecmp(name, "index") == 0)
			c->col_index = k;
		else if (strcasecmp(name, "uuid") == 0)
			c->col_uuid = k;
		for (int r = 0; r < NV_POWER_COLUMNS; r++)
			if (strcasecmp(name, wc__nv_power_names[r]) == 0 && c->power_col[r] < 0) {
				if (power_unit(unit, strlen(unit), &c->power_col_scale[r]) != 0)
					return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%zu: unknown power unit '[%s]' "
					                    "(W, mW or kW)", line_no, pos + 1, unit);
				c->power_col[r] = k;
			}
		if (!comma)
			break;
		pos += flen + 1;
	}
	int any_power = 0;
	for (int r = 0; r < NV_POWER_COLUMNS; r++)
		any_power |= c->power_col[r] >= 0;
	if ((!any_power && !second) || c->col_time < 0) {
		char why[160];
		int col = wc__nv_not_a_header(line, len, !any_power ? "power.draw" : "timestamp", why, sizeof why);
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: %s", line_no, col, why);
	}
	return WC_OK;
}

/* The columns `c` become those the lines are read by. */
static void
apply_columns(nv_reader *rd, const nv_columns *c)
{
	rd->n_cols = c->n_cols;
	rd->col_time = c->col_time;
	rd->col_index = c->col_index;
	rd->col_uuid = c->col_uuid;
	for (int r = 0; r < NV_POWER_COLUMNS; r++) {
		rd->power_col[r] = c->power_col[r];
		rd->power_col_scale[r] = c->power_col_scale[r];
	}
	rd->info->has_units |= c->has_units;
}

int
wc__nv_is_header(const char *line, size_t len)
{
	size_t pos = wc_text_bom_len(line, len);
	while (pos < len && (line[pos] == ' ' || line[pos] == '\t'))
		pos++;
	if (pos == len || !((line[pos] >= 'a' && line[pos] <= 'z') || (line[pos] >= 'A' && line[pos] <= 'Z')))
		return 0; /* a data line: a time or an index comes first */
	while (pos <= len) {
		const char *comma = memchr(line + pos, ',', len - pos);
		size_t flen = comma ? (size_t)(comma - (line + pos)) : len - pos;
		char name[64], unit[16];
		int had_unit = 0;
		column_name((char *)line + pos, flen, name, sizeof name, &had_unit, unit, sizeof unit);
		if (strcasecmp(name, "timestamp") == 0)
			return 1;
		if (!comma)
			break;
		pos += flen + 1;
	}
	return 0;
}

/* Whether the fields of line[p, len) after its first are column names:
 * a letter first and no '-' (nvidia-smi's names have none; a uuid, GPU-...,
 * has). */
static int
names_after(const char *line, size_t p, size_t len)
{
	const char *c = memchr(line + p, ',', len - p);
	while (c) {
		size_t at = (size_t)(c - line) + 1, fl;
		const char *next = memchr(line + at, ',', len - at);
		fl = next ? (size_t)(next - (line + at)) : len - at;
		char *f = wc__trim((char *)line + at, &fl);
		if (fl == 0 || !((f[0] >= 'a' && f[0] <= 'z') || (f[0] >= 'A' && f[0] <= 'Z')) || memchr(f, '-', fl))
			return 0;
		c = next;
	}
	return 1;
}

size_t
wc__nv_glued_header(const char *line, size_t len)
{
	static const char *const keys[] = { "timestamp", "index", "uuid" };
	size_t best = 0, t = 1;
	/* a header names the timestamp (wc__nv_is_header): none, no header */
	while (t + 9 <= len && !((line[t] | 0x20) == 't' && strncasecmp(line + t, "timestamp", 9) == 0))
		t++;
	if (t + 9 > len)
		return 0;
	for (int k = 0; k < 3 + NV_POWER_COLUMNS; k++) {
		const char *key = k < 3 ? keys[k] : wc__nv_power_names[k - 3];
		size_t kl = strlen(key);
		for (size_t p = 1; p + kl <= len && (best == 0 || p < best); p++) {
			if (strncasecmp(line + p, key, kl) != 0)
				continue;
			const char *comma = memchr(line + p, ',', len - p);
			size_t fl = comma ? (size_t)(comma - (line + p)) : len - p;
			char name[64], unit[16];
			int had_unit = 0;
			column_name((char *)line + p, fl, name, sizeof name, &had_unit, unit, sizeof unit);
			if (strcasecmp(name, key) == 0 && wc__nv_is_header(line + p, len - p) && names_after(line, p, len))
				best = p;
		}
	}
	return best;
}

/* nvidia-smi killed mid-row, then restarted appending (`>>`), writes its
 * header on the cut row's line. A line whose last field begins with a
 * letter (a reading is a number: one test a line) is looked at for it
 * (wc__nv_glued_header); data_line (nvsmi_csv.c) then reads the header as
 * a header repeated (docs/formats/telemetry.md, "A second header"). Not
 * seen, the lines after a header with other columns were each a bad line
 * (148 of 298, refused). The row before it is cut short when it lacks
 * fields or its last is empty (cut after a comma): one bad line, said
 * where the header begins. With all its fields, the logger stopped
 * between two lines whose newline was lost: nothing was cut, and the row
 * is read as any other (a bad line only of its own cause); it was said
 * "a row cut short" and dropped. */
int
wc__nv_glued_row(nv_reader *rd, const char *line, size_t len, size_t line_no, const char *last, size_t last_len)
{
	size_t i = 0;
	if (!last) { /* past the fields kept: after the line's last comma */
		const char *c = line + len;
		while (c > line && c[-1] != ',')
			c--;
		last = c;
		last_len = (size_t)(line + len - c);
	}
	while (i < last_len && (last[i] == ' ' || last[i] == '\t'))
		i++;
	if (i == last_len || !((last[i] >= 'a' && last[i] <= 'z') || (last[i] >= 'A' && last[i] <= 'Z')) ||
	    (rd->glued_at = wc__nv_glued_header(line, len)) == 0)
		return NV_GLUED_NONE;
	size_t at = rd->glued_at, tail = at;
	int fields = 1;
	for (size_t k = 0; k < at; k++)
		fields += line[k] == ',';
	while (tail > 0 && (line[tail - 1] == ' ' || line[tail - 1] == '\t'))
		tail--;
	if (fields >= rd->n_cols && tail > 0 && line[tail - 1] != ',') {
		rd->glued_whole = 1;
		return NV_GLUED_WHOLE;
	}
	wc__bad_cell(&rd->bad, line_no, (int)at + 1, "a row cut short, then a header: the logger restarted?");
	return NV_GLUED_CUT;
}

/* The GPU key columns ('index', 'uuid') header `a` has and `b` lacks, in
 * words ("'uuid'", "'index' and 'uuid'"); "" for none. */
static const char *
keys_only_in(int a_index, int a_uuid, int b_index, int b_uuid)
{
	int i = a_index >= 0 && b_index < 0, u = a_uuid >= 0 && b_uuid < 0;
	return i && u ? "'index' and 'uuid'" : i ? "'index'" : u ? "'uuid'" : "";
}

/* A second header with other GPU key columns than the first: the lines
 * after it cannot be joined to those before by GPU. A run folder holds
 * one power.csv, so the remedy is to edit it to one set of key columns
 * -- remove from each part the key the other lacks; a log by index only,
 * or by position, is read (docs/formats/telemetry.md, "A second header") --
 * not to split it. */
static int
refuse_other_keys(nv_reader *rd, const nv_columns *c, size_t line_no)
{
	const char *gone = keys_only_in(rd->col_index, rd->col_uuid, c->col_index, c->col_uuid);
	const char *added = keys_only_in(c->col_index, c->col_uuid, rd->col_index, rd->col_uuid);
	char what[96], fix[96];
	if (gone[0] && added[0])
		snprintf(what, sizeof what, "has %s but not line %zu's %s", added, rd->header_line, gone);
	else if (gone[0])
		snprintf(what, sizeof what, "lacks line %zu's %s column", rd->header_line, gone);
	else
		snprintf(what, sizeof what, "has a %s column line %zu lacks", added, rd->header_line);
	if (gone[0] && added[0])
		snprintf(fix, sizeof fix, "%s from lines %zu-%zu and %s from line %zu on", gone, rd->header_line,
		         line_no - 1, added, line_no);
	else if (gone[0])
		snprintf(fix, sizeof fix, "%s from lines %zu-%zu", gone, rd->header_line, line_no - 1);
	else
		snprintf(fix, sizeof fix, "%s from line %zu on", added, line_no);
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu: a second header %s (nvidia-smi restarted?), "
	                         "so GPUs cannot be matched across it: remove %s, then read it again",
	                         line_no, what, fix);
}

/* A second header without the power column the lines before it were read
 * from. A run folder holds one power.csv, so the remedy works in place, as
 * for the key columns: where both headers have a less preferred power
 * column, removing the first part's preferred one(s) reads that column
 * throughout; where the second has only another one (an instant and an
 * averaged reading are not one signal) or none, one part is kept
 * (docs/formats/telemetry.md, "A second header"). */
static int
refuse_other_power(nv_reader *rd, const nv_columns *c, size_t line_no)
{
	const char *read = wc__nv_power_names[rd->power_rank];
	size_t h = rd->header_line, last = line_no - 1;
	int shared = -1, other = -1;
	for (int r = NV_POWER_COLUMNS - 1; r >= 0; r--) {
		if (c->power_col[r] >= 0 && rd->power_col[r] >= 0)
			shared = r;
		if (c->power_col[r] >= 0)
			other = r;
	}
	if (shared >= 0) {
		char gone[80] = "";
		for (int r = 0; r < shared; r++)
			if (rd->power_col[r] >= 0)
				snprintf(gone + strlen(gone), sizeof gone - strlen(gone), "%s'%s'", gone[0] ? " and " : "",
				         wc__nv_power_names[r]);
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu: a second header has no '%s' column, which "
		                         "lines %zu-%zu were read from; both have '%s': remove %s from lines %zu-%zu, then "
		                         "read it again", line_no, read, h, last, wc__nv_power_names[shared], gone, h, last);
	}
	if (other >= 0)
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu: a second header has '%s' but not '%s', which "
		                         "lines %zu-%zu were read from, and one trace cannot mix them: keep one part (delete "
		                         "lines %zu-%zu, or line %zu on), then read it again", line_no,
		                         wc__nv_power_names[other], read, h, last, h, last, line_no);
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu: a second header has no power column (nvidia-smi "
	                         "restarted without '%s'?), so the lines after it hold no reading: delete line %zu on, "
	                         "then read it again", line_no, read, line_no);
}

/* A header after the first (a second nvidia-smi appended to the log,
 * maybe with another --query-gpu list): the columns read -- time, GPU
 * keys, the power column read -- in the same places, it drops nothing
 * and counts as no line; in other places, the lines after it are read by
 * it, said once; when it lacks the power column read or tells GPUs apart
 * otherwise, the lines after it cannot be joined to those before and the
 * file is refused naming both headers (docs/formats/telemetry.md, "A
 * second header"). Reading on through the old columns took a
 * temperature for the power. */
int
wc__nv_reheader(nv_reader *rd, char *line, size_t len, size_t line_no)
{
	nv_columns c;
	int rc = read_columns(rd, line, len, line_no, 1, &c);
	if (rc != WC_OK)
		return rc;
	if ((c.col_index >= 0) != (rd->col_index >= 0) || (c.col_uuid >= 0) != (rd->col_uuid >= 0))
		return refuse_other_keys(rd, &c, line_no);
	if (c.power_col[rd->power_rank] < 0)
		return refuse_other_power(rd, &c, line_no);
	rd->reheader_line = line_no; /* where a second log may begin: wc__nv_joined_logs */
	int same = c.n_cols == rd->n_cols && c.col_time == rd->col_time && c.col_index == rd->col_index &&
	           c.col_uuid == rd->col_uuid;
	for (int r = 0; r < NV_POWER_COLUMNS; r++)
		same = same && c.power_col[r] == rd->power_col[r] && c.power_col_scale[r] == rd->power_col_scale[r];
	if (same)
		return WC_OK;
	apply_columns(rd, &c);
	rd->col_power = rd->power_col[rd->power_rank];
	rd->power_scale = rd->power_col_scale[rd->power_rank];
	wc__warn(rd->opt, rd->path, ":%zu: a second header with other columns than line %zu's (nvidia-smi restarted "
	         "with another query, appending): the lines after it are read by its columns",
	         line_no, rd->header_line);
	return WC_OK;
}

int
wc__nv_parse_header(nv_reader *rd, char *line, size_t len, size_t line_no)
{
	nv_columns c;
	int rc = read_columns(rd, line, len, line_no, 0, &c);
	if (rc != WC_OK)
		return rc;
	apply_columns(rd, &c);
	rd->header_line = line_no;
	for (int r = NV_POWER_COLUMNS - 1; r >= 0; r--)
		if (rd->power_col[r] >= 0)
			use_power(rd, r);
	rd->info->has_index = rd->col_index >= 0;
	rd->info->has_uuid = rd->col_uuid >= 0;
	rd->mode = rd->col_index >= 0 ? NV_KEY_INDEX : rd->col_uuid >= 0 ? NV_KEY_UUID : NV_KEY_POSITION;
	rd->selecting = rd->opt->gpu_uuids && rd->opt->n_gpu_uuids > 0 && rd->col_uuid >= 0;
	if (rd->selecting) {
		if (rd->opt->n_gpu_uuids > WC_TELEMETRY_MAX_GPUS)
			return wc_error_set_path(rd->err, WC_EINVAL, rd->path, ": more than %d GPUs selected",
			                    WC_TELEMETRY_MAX_GPUS);
		/* The selection fixes the GPUs and their order from the start. */
		rd->n_gpus = (int)rd->opt->n_gpu_uuids;
		rd->frozen = 1;
		for (int g = 0; g < rd->n_gpus; g++) {
			snprintf(rd->info->uuid[g], sizeof rd->info->uuid[g], "%s", rd->opt->gpu_uuids[g]);
			rd->info->index[g] = -1;
		}
	} else if (rd->mode == NV_KEY_POSITION && rd->opt->n_gpus > 0) {
		if (rd->opt->n_gpus > WC_TELEMETRY_MAX_GPUS)
			return wc_error_set_path(rd->err, WC_EINVAL, rd->path, ": more than %d GPUs per sample",
			                    WC_TELEMETRY_MAX_GPUS);
		rd->n_gpus = rd->opt->n_gpus;
		rd->frozen = 1;
		for (int g = 0; g < rd->n_gpus; g++)
			rd->info->index[g] = g;
	}
	snprintf(rd->info->gpu_count_source, sizeof rd->info->gpu_count_source, "%s",
	         rd->selecting ? "gpu_uuids" : rd->mode == NV_KEY_INDEX ? "index" : rd->mode == NV_KEY_UUID ? "uuid"
	         : rd->frozen ? "given" : "timestamps");
	return WC_OK;
}

