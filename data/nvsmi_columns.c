/*
 * nvidia-smi power logs, the header and the power column
 * (docs/formats/telemetry.md, "nvidia-smi power logs"): column names and
 * units, the power column read and its readings. The rest of a line is
 * read in nvsmi_csv.c.
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

/* The power columns nvidia-smi can write, in order of preference. */
const char *const wc__nv_power_names[NV_POWER_COLUMNS] = { "power.draw", "power.draw.instant", "power.draw.average" };

/* A power reading "250.31", "250.31 W", "250000 mW" or "0.25 kW" in W;
 * without a unit word, the header's unit. -1 = bad line (reported), or a
 * WC_* error for a unit that is not a power unit. */
int
wc__nv_parse_power(nv_reader *rd, const char *pw, size_t pl, size_t line_no, size_t col, double *out)
{
	size_t k = 0;
	while (k < pl && pw[k] != ' ' && pw[k] != '\t')
		k++;
	size_t u = k;
	while (u < pl && (pw[u] == ' ' || pw[u] == '\t'))
		u++;
	double scale = rd->power_scale, v = 0;
	if (u < pl && power_unit(pw + u, pl - u, &scale) != 0) {
		int alpha = 1;
		for (size_t j = u; j < pl; j++)
			alpha = alpha && ((pw[j] >= 'a' && pw[j] <= 'z') || (pw[j] >= 'A' && pw[j] <= 'Z'));
		if (alpha)
			return wc_error_set(rd->err, WC_EPARSE, "%s:%zu:%zu: unknown power unit '%.*s' (W, mW or kW)",
			                    rd->path, line_no, col + u, (int)(pl - u > 16 ? 16 : pl - u), pw + u);
	}
	if (wc__parse_number(pw, k, &v) != 0 || v < 0 || (u < pl && k == u)) {
		wc__bad_line(&rd->bad, line_no, "%s %s '%.*s'", v < 0 ? "negative" : "unreadable",
		             wc__nv_power_names[rd->power_rank], (int)(pl > 40 ? 40 : pl), pw);
		return -1;
	}
	*out = v * scale;
	if (*out > rd->max_power_w) {
		wc__bad_line(&rd->bad, line_no, "%s %.6g W is beyond the plausible %.0f W per GPU "
		             "(docs/formats/telemetry.md); not averaged", wc__nv_power_names[rd->power_rank], *out,
		             rd->max_power_w);
		rd->info->implausible_lines++;
		return -1;
	}
	return 0;
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
		wc__warn(rd->opt, "%s:%zu: %s has no value, %s has: power is read from %s (docs/formats/telemetry.md)",
		         rd->path, line_no, wc__nv_power_names[rd->power_rank], wc__nv_power_names[r], wc__nv_power_names[r]);
		use_power(rd, r);
		return 1;
	}
	return 0;
}

int
wc__nv_parse_header(nv_reader *rd, char *line, size_t len, size_t line_no)
{
	size_t pos = 0;
	for (int r = 0; r < NV_POWER_COLUMNS; r++) {
		rd->power_col[r] = -1;
		rd->power_col_scale[r] = 1.0;
	}
	if (len >= 3 && (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
	    (unsigned char)line[2] == 0xBF)
		pos = 3; /* UTF-8 byte order mark */
	rd->col_time = rd->col_index = rd->col_uuid = rd->col_power = -1;
	rd->n_cols = 0;
	while (pos <= len) {
		char *start = line + pos;
		char *comma = memchr(start, ',', len - pos);
		size_t flen = comma ? (size_t)(comma - start) : len - pos;
		char name[64], unit[16];
		if (rd->n_cols >= NV_MAX_FIELDS)
			return wc_error_set(rd->err, WC_EPARSE, "%s:%zu: more than %d columns", rd->path,
			                    line_no, NV_MAX_FIELDS);
		column_name(start, flen, name, sizeof name, &rd->info->has_units, unit, sizeof unit);
		int c = rd->n_cols++;
		if (strcasecmp(name, "timestamp") == 0)
			rd->col_time = c;
		else if (strcasecmp(name, "index") == 0)
			rd->col_index = c;
		else if (strcasecmp(name, "uuid") == 0)
			rd->col_uuid = c;
		for (int r = 0; r < NV_POWER_COLUMNS; r++)
			if (strcasecmp(name, wc__nv_power_names[r]) == 0 && rd->power_col[r] < 0) {
				if (power_unit(unit, strlen(unit), &rd->power_col_scale[r]) != 0)
					return wc_error_set(rd->err, WC_EPARSE, "%s:%zu:%zu: unknown power unit '[%s]' "
					                    "(W, mW or kW)", rd->path, line_no, pos + 1, unit);
				rd->power_col[r] = c;
			}
		if (!comma)
			break;
		pos += flen + 1;
	}
	for (int r = NV_POWER_COLUMNS - 1; r >= 0; r--)
		if (rd->power_col[r] >= 0)
			use_power(rd, r);
	if (rd->col_power < 0 || rd->col_time < 0) {
		const char *first = line + (len >= 3 && (unsigned char)line[0] == 0xEF ? 3 : 0);
		int data_like = *first >= '0' && *first <= '9';
		return wc_error_set(rd->err, WC_EPARSE, "%s:%zu: %s", rd->path, line_no,
		                    data_like ? "no header line (log with --format=csv, without noheader)"
		                    : rd->col_power < 0 ? "no 'power.draw' column in the header"
		                                        : "no 'timestamp' column in the header");
	}
	rd->info->has_index = rd->col_index >= 0;
	rd->info->has_uuid = rd->col_uuid >= 0;
	rd->mode = rd->col_index >= 0 ? NV_KEY_INDEX : rd->col_uuid >= 0 ? NV_KEY_UUID : NV_KEY_POSITION;
	rd->selecting = rd->opt->gpu_uuids && rd->opt->n_gpu_uuids > 0 && rd->col_uuid >= 0;
	if (rd->selecting) {
		if (rd->opt->n_gpu_uuids > WC_TELEMETRY_MAX_GPUS)
			return wc_error_set(rd->err, WC_EINVAL, "%s: more than %d GPUs selected", rd->path,
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
			return wc_error_set(rd->err, WC_EINVAL, "%s: more than %d GPUs per sample", rd->path,
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

