/*
 * nvidia-smi power logs (`nvidia-smi --query-gpu=timestamp,index,...,
 * power.draw --format=csv[,nounits] -lms 100`), streamed into samples: one
 * power value per GPU at one time (the traces of docs/trace-metrics.md).
 *
 * nvidia-smi writes one row per GPU per sweep. Rows are grouped into a
 * sample until a GPU repeats or a row's timestamp is more than
 * WC_NVSMI_SWEEP_TOL_S away from the sample's first row. GPUs are told
 * apart by `index`, else `uuid`, else by their position in the sweep; the
 * first complete sample fixes the set of GPUs. Timestamps are local wall
 * time and are converted with the UTC offset of the logging host.
 */
#include "telemetry_internal.h"

#include <math.h>
#include "models/grow.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NV_MAX_FIELDS 128
#define NV_MAX_INDEX 1024

enum { KEY_INDEX, KEY_UUID, KEY_POSITION };

typedef struct {
	const char *path;
	const wc_telemetry_options *opt;
	wc__bad_lines bad;
	wc_nvsmi_info *info;
	wc_nvsmi_sample_fn on_sample;
	void *payload;
	wc_error *err;
	int n_cols, col_time, col_index, col_uuid, col_power;
	int mode, selecting, frozen, n_gpus;
	short slot_of_index[NV_MAX_INDEX];
	/* the sample being assembled */
	int open, rows;
	double t;
	size_t first_line;
	uint64_t mask;
	double vals[WC_TELEMETRY_MAX_GPUS];
	/* ordering and bad-line context */
	int have_last;
	double last_t;
	size_t last_bad_line;
	/* timestamp cache: rows of one sweep repeat the same text */
	char ts_text[64];
	size_t ts_len;
	double ts_val;
} nv_reader;

/* ------------------------------------------------------------ timestamps */

static int
digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil). */
static long
days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
wc_nvsmi_parse_time(const char *s, size_t len, double *out)
{
	int y, mo, d, h, mi, se;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (len < 19 || (s[4] != '/' && s[4] != '-') || s[7] != s[4] ||
	    (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
		return -1;
	if (digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d) ||
	    digits(s + 11, 2, &h) || digits(s + 14, 2, &mi) || digits(s + 17, 2, &se))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
		return -1;
	double frac = 0.0, scale = 0.1;
	size_t i = 19;
	if (i < len && s[i] == '.') {
		if (++i == len)
			return -1;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, scale *= 0.1)
			frac += (s[i] - '0') * scale;
	}
	if (i != len)
		return -1;
	*out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + se + frac;
	return 0;
}

/* --------------------------------------------------------------- header */

/* Column name without blanks and without a " [unit]" suffix. */
static void
column_name(char *s, size_t len, char *out, size_t cap, int *had_unit)
{
	s = wc__trim(s, &len);
	char *br = memchr(s, '[', len);
	if (br) {
		*had_unit = 1;
		len = (size_t)(br - s);
		s = wc__trim(s, &len);
	}
	if (len >= cap)
		len = cap - 1;
	memcpy(out, s, len);
	out[len] = '\0';
}

static int
parse_header(nv_reader *rd, char *line, size_t len, size_t line_no)
{
	int power_rank = 0; /* prefer power.draw, then .instant, then .average */
	size_t pos = 0;
	if (len >= 3 && (unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
	    (unsigned char)line[2] == 0xBF)
		pos = 3; /* UTF-8 byte order mark */
	rd->col_time = rd->col_index = rd->col_uuid = rd->col_power = -1;
	rd->n_cols = 0;
	while (pos <= len) {
		char *start = line + pos;
		char *comma = memchr(start, ',', len - pos);
		size_t flen = comma ? (size_t)(comma - start) : len - pos;
		char name[64];
		if (rd->n_cols >= NV_MAX_FIELDS)
			return wc_error_set(rd->err, WC_EPARSE, "%s:%zu: more than %d columns", rd->path,
			                    line_no, NV_MAX_FIELDS);
		column_name(start, flen, name, sizeof name, &rd->info->has_units);
		int c = rd->n_cols++;
		if (strcasecmp(name, "timestamp") == 0)
			rd->col_time = c;
		else if (strcasecmp(name, "index") == 0)
			rd->col_index = c;
		else if (strcasecmp(name, "uuid") == 0)
			rd->col_uuid = c;
		else if (strcasecmp(name, "power.draw") == 0 && power_rank < 3) {
			rd->col_power = c;
			power_rank = 3;
		} else if (strcasecmp(name, "power.draw.instant") == 0 && power_rank < 2) {
			rd->col_power = c;
			power_rank = 2;
		} else if (strcasecmp(name, "power.draw.average") == 0 && power_rank < 1) {
			rd->col_power = c;
			power_rank = 1;
		}
		if (!comma)
			break;
		pos += flen + 1;
	}
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
	rd->mode = rd->col_index >= 0 ? KEY_INDEX : rd->col_uuid >= 0 ? KEY_UUID : KEY_POSITION;
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
	} else if (rd->mode == KEY_POSITION && rd->opt->n_gpus > 0) {
		rd->n_gpus = rd->opt->n_gpus;
		rd->frozen = 1;
		for (int g = 0; g < rd->n_gpus; g++)
			rd->info->index[g] = g;
	}
	return WC_OK;
}

/* -------------------------------------------------------------- samples */

static void
gpu_label(const nv_reader *rd, int g, char *buf, size_t cap)
{
	if (rd->info->index[g] >= 0)
		snprintf(buf, cap, "%d", rd->info->index[g]);
	else if (rd->info->uuid[g][0])
		snprintf(buf, cap, "%s", rd->info->uuid[g]);
	else
		snprintf(buf, cap, "#%d", g);
}

static void
forget_gpus(nv_reader *rd)
{
	rd->n_gpus = 0;
	for (int i = 0; i < NV_MAX_INDEX; i++)
		rd->slot_of_index[i] = -1;
}

/* Close the open sample; `line` is the line that caused it (0 at the end). */
static int
close_sample(nv_reader *rd, size_t line)
{
	int at_end = line == 0;
	int bad_near = rd->last_bad_line > 0 &&
	               rd->last_bad_line + (size_t)(rd->n_gpus > 0 ? rd->n_gpus : 1) >= rd->first_line;
	rd->open = 0;
	if (!rd->frozen) {
		if (bad_near) {
			/* A bad line in the first sweep would hide a GPU: wait for
			 * a clean one before fixing the set. */
			rd->info->dropped_samples++;
			forget_gpus(rd);
			return WC_OK;
		}
		int want = rd->opt->n_gpus;
		if (want > 0 && rd->n_gpus != want && !(rd->mode == KEY_POSITION))
			return wc_error_set(rd->err, WC_EPARSE,
			                    "%s:%zu: the first sample holds %d GPU%s, expected %d%s", rd->path,
			                    rd->first_line, rd->n_gpus, rd->n_gpus == 1 ? "" : "s", want,
			                    rd->n_gpus > want ? " (name the run's GPUs with gpu_uuids)" : "");
		rd->frozen = 1;
	}
	if (rd->rows < rd->n_gpus) {
		if (bad_near) {
			rd->info->dropped_samples++;
			return WC_OK;
		}
		int g = 0;
		while (g < rd->n_gpus && (rd->mask >> g & 1))
			g++;
		char label[64];
		gpu_label(rd, g, label, sizeof label);
		if (at_end) {
			wc__warn(rd->opt, "%s:%zu: last sample is incomplete (GPU %s missing); dropped",
			         rd->path, rd->first_line, label);
			rd->info->dropped_samples++;
			return WC_OK;
		}
		return wc_error_set(rd->err, WC_EPARSE, "%s:%zu: GPU %s is missing from the sample at line %zu",
		                    rd->path, line, label, rd->first_line);
	}
	if (rd->have_last && !(rd->t > rd->last_t)) {
		wc__bad_line(&rd->bad, rd->first_line, "sample is not later than the one before; skipped");
		rd->last_bad_line = rd->first_line;
		return WC_OK;
	}
	if (rd->have_last && rd->t - rd->last_t > WC_TELEMETRY_MAX_GAP_S) {
		wc__bad_line(&rd->bad, rd->first_line,
		             "sample is %.0f s after the one before (gaps over %.0f s are not bridged); skipped",
		             rd->t - rd->last_t, WC_TELEMETRY_MAX_GAP_S);
		rd->last_bad_line = rd->first_line;
		return WC_OK;
	}
	rd->have_last = 1;
	rd->last_t = rd->t;
	if (rd->info->samples == 0)
		rd->info->t_first = rd->t;
	rd->info->t_last = rd->t;
	rd->info->samples++;
	rd->info->n_gpus = rd->n_gpus;
	if (rd->on_sample && rd->on_sample(rd->t, rd->vals, rd->n_gpus, rd->payload) != 0) {
		if (rd->err && rd->err->code == 0)
			wc_error_set(rd->err, WC_EINVAL, "%s: stopped by the caller", rd->path);
		return rd->err && rd->err->code ? rd->err->code : WC_EINVAL;
	}
	return WC_OK;
}

/* Slot of the GPU of a row, assigning one in the first sweep; -1 = bad
 * line (reported), -2 = a GPU outside the selection (ignored). */
static int
find_slot(nv_reader *rd, const char *idx, size_t idx_len, const char *uuid, size_t uuid_len,
          size_t line)
{
	if (rd->selecting) {
		for (int g = 0; g < rd->n_gpus; g++)
			if (strlen(rd->info->uuid[g]) == uuid_len && memcmp(rd->info->uuid[g], uuid, uuid_len) == 0)
				return g;
		return -2;
	}
	if (rd->mode == KEY_INDEX) {
		int v = 0;
		if (idx_len == 0 || idx_len > 4 || digits(idx, (int)idx_len, &v) || v >= NV_MAX_INDEX) {
			wc__bad_line(&rd->bad, line, "unreadable GPU index '%.*s'", (int)idx_len, idx);
			return -1;
		}
		if (rd->slot_of_index[v] >= 0)
			return rd->slot_of_index[v];
		if (rd->frozen) {
			wc__bad_line(&rd->bad, line, "GPU %d was not in the first sample", v);
			return -1;
		}
		if (rd->n_gpus >= WC_TELEMETRY_MAX_GPUS) {
			wc__bad_line(&rd->bad, line, "more than %d GPUs", WC_TELEMETRY_MAX_GPUS);
			return -1;
		}
		int g = rd->n_gpus++;
		rd->slot_of_index[v] = (short)g;
		rd->info->index[g] = v;
		rd->info->uuid[g][0] = '\0';
		if (uuid && uuid_len < sizeof rd->info->uuid[g]) {
			memcpy(rd->info->uuid[g], uuid, uuid_len);
			rd->info->uuid[g][uuid_len] = '\0';
		}
		return g;
	}
	/* KEY_UUID */
	for (int g = 0; g < rd->n_gpus; g++)
		if (strlen(rd->info->uuid[g]) == uuid_len && memcmp(rd->info->uuid[g], uuid, uuid_len) == 0)
			return g;
	if (rd->frozen) {
		wc__bad_line(&rd->bad, line, "GPU %.*s was not in the first sample", (int)uuid_len, uuid);
		return -1;
	}
	if (rd->n_gpus >= WC_TELEMETRY_MAX_GPUS || uuid_len >= sizeof rd->info->uuid[0]) {
		wc__bad_line(&rd->bad, line, "too many GPUs or uuid too long");
		return -1;
	}
	int g = rd->n_gpus++;
	memcpy(rd->info->uuid[g], uuid, uuid_len);
	rd->info->uuid[g][uuid_len] = '\0';
	rd->info->index[g] = -1;
	return g;
}

/* One data row's readings; idx and uuid point into the line (NULL when
 * the log has no such column). */
typedef struct {
	double t, watts;
	const char *idx, *uuid;
	size_t il, ul;
} nv_row;

/* Split a line at its commas (nvidia-smi does not quote) into at most
 * NV_MAX_FIELDS fields; one more than that means too many. */
static int
split_fields(char *line, size_t len, char **start, size_t *flen)
{
	int nf = 0;
	char *p = line, *end = line + len;
	for (;;) {
		char *comma = memchr(p, ',', (size_t)(end - p));
		if (nf == NV_MAX_FIELDS) {
			nf++;
			break;
		}
		start[nf] = p;
		flen[nf] = comma ? (size_t)(comma - p) : (size_t)(end - p);
		nf++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return nf;
}

/* The row's time in epoch seconds; the rows of one sweep repeat the same
 * text, so the last conversion is reused. -1 = bad line (reported). */
static int
row_time(nv_reader *rd, char *text, size_t tl, size_t line_no, double *t)
{
	char *ts = wc__trim(text, &tl);
	if (tl == rd->ts_len && tl > 0 && memcmp(ts, rd->ts_text, tl) == 0) {
		*t = rd->ts_val;
		return 0;
	}
	double local;
	if (wc_nvsmi_parse_time(ts, tl, &local) != 0) {
		wc__bad_line(&rd->bad, line_no, "unreadable timestamp '%.*s'", (int)(tl > 40 ? 40 : tl), ts);
		return -1;
	}
	*t = local - rd->opt->utc_offset_s + rd->opt->epoch_offset_s;
	if (tl < sizeof rd->ts_text) {
		memcpy(rd->ts_text, ts, tl);
		rd->ts_len = tl;
		rd->ts_val = *t;
	}
	return 0;
}

/* Fields of a data line into `row`; -1 = bad line (reported). */
static int
parse_row(nv_reader *rd, char *line, size_t len, size_t line_no, nv_row *row)
{
	char *start[NV_MAX_FIELDS];
	size_t flen[NV_MAX_FIELDS];
	int nf = split_fields(line, len, start, flen);
	if (nf != rd->n_cols) {
		wc__bad_line(&rd->bad, line_no, "expected %d fields, found %d", rd->n_cols, nf);
		return -1;
	}
	size_t pl = flen[rd->col_power];
	char *pw = wc__trim(start[rd->col_power], &pl);
	if (row_time(rd, start[rd->col_time], flen[rd->col_time], line_no, &row->t) != 0)
		return -1;
	if (wc__is_missing(pw, pl)) {
		wc__bad_line(&rd->bad, line_no, "no power reading (power.draw is '%.*s')",
		             (int)(pl > 40 ? 40 : pl), pw);
		return -1;
	}
	if (wc__parse_number(pw, pl, &row->watts) != 0 || row->watts < 0) {
		wc__bad_line(&rd->bad, line_no, "unreadable power.draw '%.*s'", (int)(pl > 40 ? 40 : pl), pw);
		return -1;
	}
	row->idx = row->uuid = NULL;
	row->il = row->ul = 0;
	if (rd->col_index >= 0) {
		row->il = flen[rd->col_index];
		row->idx = wc__trim(start[rd->col_index], &row->il);
	}
	if (rd->col_uuid >= 0) {
		row->ul = flen[rd->col_uuid];
		row->uuid = wc__trim(start[rd->col_uuid], &row->ul);
		if ((rd->mode == KEY_UUID || rd->selecting) && wc__is_missing(row->uuid, row->ul)) {
			wc__bad_line(&rd->bad, line_no, "no GPU uuid");
			return -1;
		}
	}
	return 0;
}

/* Slot of a row when GPUs are told apart by their place in the sweep:
 * the next one of the open sample, or the first of a new sample.
 * *slot = -1 for a bad line (reported). */
static int
position_slot(nv_reader *rd, double t, size_t line_no, int *slot)
{
	if (rd->open && (fabs(t - rd->t) > WC_NVSMI_SWEEP_TOL_S ||
	                 (rd->frozen && rd->rows >= rd->n_gpus))) {
		int rc = close_sample(rd, line_no);
		if (rc != WC_OK)
			return rc;
	}
	*slot = rd->open ? rd->rows : 0;
	if (!rd->frozen) {
		if (*slot >= WC_TELEMETRY_MAX_GPUS) {
			wc__bad_line(&rd->bad, line_no, "more than %d GPUs in one sample", WC_TELEMETRY_MAX_GPUS);
			*slot = -1;
			return WC_OK;
		}
		if (*slot >= rd->n_gpus) {
			rd->n_gpus = *slot + 1;
			rd->info->index[*slot] = *slot;
		}
	}
	return WC_OK;
}

/* Slot of a row when GPUs are told apart by index or uuid, closing the
 * open sample when this GPU repeats or the time moved on. *slot as from
 * find_slot. */
static int
keyed_slot(nv_reader *rd, const nv_row *row, size_t line_no, int *slot)
{
	*slot = find_slot(rd, row->idx, row->il, row->uuid, row->ul, line_no);
	if (*slot < 0)
		return WC_OK;
	if (rd->open && ((rd->mask >> *slot & 1) || fabs(row->t - rd->t) > WC_NVSMI_SWEEP_TOL_S)) {
		int rc = close_sample(rd, line_no);
		if (rc != WC_OK)
			return rc;
		/* The first sweep may just have been dropped, forgetting
		 * the slots: look the GPU up again. */
		if (!rd->frozen && rd->n_gpus == 0)
			*slot = find_slot(rd, row->idx, row->il, row->uuid, row->ul, line_no);
	}
	return WC_OK;
}

static int
data_line(nv_reader *rd, char *line, size_t len, size_t line_no)
{
	nv_row row;
	int slot, rc;
	if (parse_row(rd, line, len, line_no, &row) != 0)
		goto bad;
	if (rd->mode == KEY_POSITION && !rd->selecting)
		rc = position_slot(rd, row.t, line_no, &slot);
	else
		rc = keyed_slot(rd, &row, line_no, &slot);
	if (rc != WC_OK)
		return rc;
	if (slot == -2)
		return WC_OK;
	if (slot < 0)
		goto bad;
	if (!rd->open) {
		rd->open = 1;
		rd->t = row.t;
		rd->first_line = line_no;
		rd->mask = 0;
		rd->rows = 0;
	}
	rd->vals[slot] = row.watts;
	rd->mask |= (uint64_t)1 << slot;
	rd->rows++;
	return WC_OK;
bad:
	rd->last_bad_line = line_no;
	return WC_OK;
}

int
wc_nvsmi_read(const char *path, const wc_telemetry_options *opt, wc_nvsmi_sample_fn on_sample,
              void *payload, wc_nvsmi_info *info, wc_error *err)
{
	static const wc_telemetry_options defaults = WC_TELEMETRY_OPTIONS_INIT;
	wc__line_reader lr;
	nv_reader *rd = NULL;
	char *line;
	size_t len;
	int too_long, got, rc, header = 0;
	if (!opt)
		opt = &defaults;
	memset(info, 0, sizeof *info);
	info->t_first = info->t_last = NAN;
	if (err)
		err->code = 0;
	if ((rc = wc__lr_open(&lr, path, err)) != WC_OK)
		return rc;
	rd = calloc(1, sizeof *rd);
	if (!rd) {
		wc__lr_close(&lr);
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
	}
	rd->path = path;
	rd->opt = opt;
	rd->bad.path = path;
	rd->bad.opt = opt;
	rd->info = info;
	rd->on_sample = on_sample;
	rd->payload = payload;
	rd->err = err;
	forget_gpus(rd);
	while ((got = wc__lr_next(&lr, &line, &len, &too_long)) == 1) {
		if (too_long) {
			if (!header) {
				rc = wc_error_set(err, WC_EPARSE, "%s:%zu: header line longer than %d bytes",
				                  path, lr.line_no, WC_TELEMETRY_LINE_MAX);
				goto done;
			}
			info->data_lines++;
			wc__bad_line(&rd->bad, lr.line_no, "line longer than %d bytes", WC_TELEMETRY_LINE_MAX);
			rd->last_bad_line = lr.line_no;
			continue;
		}
		size_t tl = len;
		char *tr = wc__trim(line, &tl);
		if (tl == 0 || tr[0] == '#')
			continue;
		if (!header) {
			if ((rc = parse_header(rd, line, len, lr.line_no)) != WC_OK)
				goto done;
			header = 1;
			continue;
		}
		info->data_lines++;
		if ((rc = data_line(rd, line, len, lr.line_no)) != WC_OK)
			goto done;
	}
	if (got < 0) {
		rc = wc_error_set(err, WC_EIO, "%s: read error", path);
		goto done;
	}
	if (!header) {
		rc = wc_error_set(err, WC_EPARSE, "%s: empty file (no header)", path);
		goto done;
	}
	if (rd->open && (rc = close_sample(rd, 0)) != WC_OK)
		goto done;
	info->bad_lines = rd->bad.bad;
	if ((rc = wc__bad_lines_finish(&rd->bad, info->data_lines, err)) != WC_OK)
		goto done;
	if (info->samples == 0) {
		rc = wc_error_set(err, WC_EPARSE, "%s: no complete sample", path);
		goto done;
	}
	info->n_gpus = rd->n_gpus;
	rc = WC_OK;
done:
	info->bad_lines = rd->bad.bad;
	free(rd);
	wc__lr_close(&lr);
	return rc;
}

/* ------------------------------------------------------ trace in memory */

typedef struct {
	wc_power_trace *pt;
	size_t cap, max;
	wc_error *err;
	const char *path;
} trace_sink;

static int
trace_push(double t, const double *w, int n_gpus, void *payload)
{
	trace_sink *s = payload;
	wc_power_trace *pt = s->pt;
	if (pt->n == s->cap) {
		if (pt->n >= s->max) {
			wc_error_set(s->err, WC_ERANGE, "%s: more than %zu samples (use `wattcast metrics`, which streams)",
			             s->path, s->max);
			return -1;
		}
		size_t cap = wc_next_capacity(s->cap, pt->n + 1, 4096, s->max);
		double *nt = cap ? wc_resize_array(pt->t, cap, sizeof *nt) : NULL;
		if (nt)
			pt->t = nt;
		double *ng = nt ? wc_resize_array(pt->group, cap, sizeof *ng) : NULL;
		if (ng)
			pt->group = ng;
		int ok = nt && ng;
		for (int g = 0; ok && g < n_gpus; g++) {
			double *np = wc_resize_array(pt->power[g], cap, sizeof *np);
			if (np)
				pt->power[g] = np;
			else
				ok = 0;
		}
		if (!ok) {
			wc_error_set(s->err, WC_ENOMEM, "%s: out of memory (%zu samples)", s->path, cap);
			return -1;
		}
		s->cap = cap;
	}
	double sum = 0.0;
	for (int g = 0; g < n_gpus; g++) {
		pt->power[g][pt->n] = w[g];
		sum += w[g];
	}
	pt->t[pt->n] = t;
	pt->group[pt->n] = sum;
	pt->n++;
	return 0;
}

int
wc_power_trace_read(const char *path, const wc_telemetry_options *opt, size_t max_samples,
                    wc_power_trace **out, wc_error *err)
{
	wc_power_trace *pt = calloc(1, sizeof *pt);
	*out = NULL;
	if (!pt)
		return wc_error_set(err, WC_ENOMEM, "%s: out of memory", path);
	trace_sink sink = { pt, 0, max_samples ? max_samples : (size_t)1 << 26, err, path };
	int rc = wc_nvsmi_read(path, opt, trace_push, &sink, &pt->info, err);
	if (rc != WC_OK) {
		wc_power_trace_free(pt);
		return rc;
	}
	*out = pt;
	return WC_OK;
}

void
wc_power_trace_free(wc_power_trace *pt)
{
	if (!pt)
		return;
	free(pt->t);
	free(pt->group);
	for (int g = 0; g < WC_TELEMETRY_MAX_GPUS; g++)
		free(pt->power[g]);
	free(pt);
}
