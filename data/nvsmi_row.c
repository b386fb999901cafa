/*
 * nvidia-smi power logs, one data line: its fields split at the commas,
 * its time, GPU and power reading read into a row (the header and the
 * power column in nvsmi_columns.c, the timestamps' text in nvsmi_stamp.c,
 * the read loop in nvsmi_csv.c). Rows become samples in nvsmi_sweep.c.
 */
#include "nvsmi_internal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bytes of w equal to zero get their high bit set (and, through the
 * borrow, maybe a byte above a true one: callers check the byte). */
#define NV_ONES 0x0101010101010101ULL
static uint64_t
zero_bytes(uint64_t w)
{
	return (w - NV_ONES) & ~w & (NV_ONES << 7);
}

/* Field `nf` ends at `q`; the next begins after it. 0, or the field count
 * that means too many. */
static int
end_field(char *q, char **field, int *nf, char **start, size_t *flen)
{
	if (*nf == NV_MAX_FIELDS)
		return NV_MAX_FIELDS + 1;
	start[*nf] = *field;
	flen[(*nf)++] = (size_t)(q - *field);
	*field = q + 1;
	return 0;
}

/* Split a line at its commas (nvidia-smi does not quote) into at most
 * NV_MAX_FIELDS fields; one more than that means too many; -1 - column
 * (0-based) of a NUL byte, which would cut a value short and make it read
 * as another number. Commas and NUL bytes are found together, sixteen
 * (SSE2) or eight bytes at a time: a dozen short memchr calls per line
 * cost 45 ns, eight bytes at a time 28 ns (docs/results.md, telemetry
 * reading). */
static int
scan_fields(char *line, size_t len, char **start, size_t *flen)
{
	int nf = 0, many;
	char *p = line, *field = line, *end = line + len;
#if defined(__SSE2__)
	/* Sixteen bytes at a time where SSE2 is there (every x86-64). */
	const __m128i comma = _mm_set1_epi8(','), nul = _mm_setzero_si128();
	for (; end - p >= 16; p += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, nul)));
		for (; m; m &= m - 1) {
			char *q = p + __builtin_ctz(m);
			if (*q == '\0')
				return -1 - (int)(q - line);
			if ((many = end_field(q, &field, &nf, start, flen)) != 0)
				return many;
		}
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; end - p >= 8; p += 8) {
		uint64_t w;
		memcpy(&w, p, sizeof w);
		for (uint64_t m = zero_bytes(w ^ (NV_ONES * ',')) | zero_bytes(w); m; m &= m - 1) {
			char *q = p + (__builtin_ctzll(m) >> 3);
			if (*q == '\0')
				return -1 - (int)(q - line);
			if (*q == ',' && (many = end_field(q, &field, &nf, start, flen)) != 0)
				return many;
		}
	}
#endif
	for (; p < end; p++) {
		if (*p == '\0')
			return -1 - (int)(p - line);
		if (*p == ',' && (many = end_field(p, &field, &nf, start, flen)) != 0)
			return many;
	}
	return (many = end_field(end, &field, &nf, start, flen)) != 0 ? many : nf;
}

static int
split_fields(char *line, size_t len, char **start, size_t *flen)
{
	int nf = scan_fields(line, len, start, flen);
	if (nf > NV_MAX_FIELDS) {
		/* too many fields, unless a NUL byte comes first or further on */
		const char *nul = memchr(line, '\0', len);
		if (nul)
			return -1 - (int)(nul - line);
	}
	return nf;
}

/* Whether n bytes at a and b are equal: eight at a time, inline (a
 * timestamp is about 23 bytes; libc's memcmp call cost more). */
static int
same_bytes(const char *a, const char *b, size_t n)
{
	for (; n >= 8; a += 8, b += 8, n -= 8) {
		uint64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	for (; n > 0; a++, b++, n--)
		if (*a != *b)
			return 0;
	return 1;
}

/* The row's time in epoch seconds; the rows of one sweep repeat the same
 * text, so the last conversion is reused. nvidia-smi writes local wall
 * time (converted with the UTC offset); a log stamped in RFC 3339 with a
 * zone, or in epoch seconds, needs no offset (docs/formats/telemetry.md,
 * "Timestamps"). The form of the first time read holds for the log. -1 =
 * bad line (reported); WC_EPARSE (err set) when the first time read is in
 * no accepted form: one error naming the forms, not one per line. */
static int
row_time(nv_reader *rd, char *text, size_t tl, size_t line_no, int col, double *t)
{
	char *ts = wc__trim(text, &tl);
	if (tl == rd->ts_len && tl > 0 && same_bytes(ts, rd->ts_text, tl)) {
		*t = rd->ts_val;
		return 0;
	}
	double v;
	char why[160] = "";
	int kind = NV_STAMP_LOCAL, z = 0;
	if (wc_nvsmi_parse_time(ts, tl, &v) != 0)
		kind = (z = wc__parse_zoned_time(ts, tl, &v, why, sizeof why)) == 0 ? NV_STAMP_ZONED : 0;
	col += (int)(ts - text);
	if (kind == 0 && !rd->stamp_kind && tl > 0 && ts[0] == '"')
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: quoted field '%.*s': power logs are read unquoted, "
		                    "as nvidia-smi writes them (remove the quotes)", line_no, col,
		                    (int)(tl > 40 ? 40 : tl), ts);
	if (kind == 0 && !rd->stamp_kind && why[0]) /* a number in another unit: the unit named */
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: timestamp: %s", line_no, col, why);
	if (kind == 0 && !rd->stamp_kind)
		return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%zu:%d: timestamp '%.*s': expected " WC__TIME_FORMS,
		                         line_no, col, (int)(tl > 40 ? 40 : tl), ts);
	if (kind == 0 || (rd->stamp_kind && kind != rd->stamp_kind)) {
		wc__bad_cell(&rd->bad, line_no, col, "unreadable timestamp '%.*s'%s", (int)(tl > 40 ? 40 : tl), ts,
		             kind ? ": not in the form of the log's first" : "");
		return -1;
	}
	rd->stamp_kind = kind;
	rd->info->utc_stamps = kind == NV_STAMP_ZONED;
	*t = v - (kind == NV_STAMP_LOCAL ? rd->opt->utc_offset_s : 0.0) + rd->opt->epoch_offset_s;
	if (tl < sizeof rd->ts_text) {
		memcpy(rd->ts_text, ts, tl);
		rd->ts_len = tl;
		rd->ts_val = *t;
	}
	return 0;
}

/* A row of the GPU `row` names, with a power reading (`read`) or without:
 * counted for name_silent_gpu. */
static void
hear_gpu(nv_reader *rd, const nv_row *row, int read)
{
	const char *k = row->idx ? row->idx : row->uuid;
	size_t kl = row->idx ? row->il : row->ul;
	int g = 0;
	if (!k || kl == 0 || kl >= sizeof rd->heard[0].key)
		return;
	while (g < rd->n_heard && !wc_telemetry_uuid_same(rd->heard[g].key, k, kl))
		g++;
	if (g == rd->n_heard) {
		if (g == WC_TELEMETRY_MAX_GPUS)
			return;
		memcpy(rd->heard[g].key, k, kl);
		rd->heard[g].key[kl] = '\0';
		rd->n_heard++;
	}
	if (read)
		rd->heard[g].read++;
	else
		rd->heard[g].missing++;
}

/* A row of a GPU that gpu_uuids does not name. */
static int
outside_selection(const nv_reader *rd, const nv_row *row)
{
	if (!rd->selecting || !row->uuid)
		return 0;
	for (int g = 0; g < rd->n_gpus; g++)
		if (wc_telemetry_uuid_same(rd->info->uuid[g], row->uuid, row->ul))
			return 0;
	return 1;
}

/* Fields of a data line into `row`; -1 = bad line (reported). The GPU is
 * read before the power: a row whose power reading is missing or
 * unreadable still names its GPU (row->idx, row->uuid), which keeps its
 * place in the sweep (nvsmi_sweep.c). */
int
wc__nv_parse_row(nv_reader *rd, char *line, size_t len, size_t line_no, nv_row *row)
{
	char *start[NV_MAX_FIELDS];
	size_t flen[NV_MAX_FIELDS];
	row->idx = row->uuid = NULL;
	row->il = row->ul = 0;
	int nf = split_fields(line, len, start, flen);
	if (nf < 0) {
		wc__bad_line(&rd->bad, line_no, "NUL byte at column %zu", (size_t)(-1 - nf) + 1);
		return -1;
	}
	int glued = wc__nv_glued_row(rd, line, len, line_no, nf <= NV_MAX_FIELDS ? start[nf - 1] : NULL,
	                             nf <= NV_MAX_FIELDS ? flen[nf - 1] : 0);
	if (glued == NV_GLUED_CUT)
		return -1;
	if (glued == NV_GLUED_WHOLE) /* the row is what comes before the header */
		nf = split_fields(line, len = rd->glued_at, start, flen);
	if (nf != rd->n_cols) {
		/* The column where the fields ran out: one past the line's end
		 * when short, the first extra field's start when long (1 when
		 * it lies beyond the fields kept), as every other bad cell
		 * names one (docs/formats/telemetry.md, "Bad lines"). */
		int col = wc__field_count_column(nf, rd->n_cols, (int)len + 1, rd->n_cols < NV_MAX_FIELDS
		                                 ? (int)(start[rd->n_cols] - line) + 1 : 1);
		/* The split stops one field past the NV_MAX_FIELDS it keeps; the
		 * count said is the line's own, its commas and one (a line of
		 * 140 fields read "found 129"). Bad lines only: no cost else. */
		if (nf > NV_MAX_FIELDS) {
			nf = 1;
			for (const char *c = line; (c = memchr(c, ',', len - (size_t)(c - line))) != NULL; c++)
				nf++;
		}
		wc__bad_cell(&rd->bad, line_no, col, "expected %d fields, found %d", rd->n_cols, nf);
		return -1;
	}
	int trc = row_time(rd, start[rd->col_time], flen[rd->col_time], line_no,
	                   (int)(start[rd->col_time] - line) + 1, &row->t);
	if (trc != 0)
		return trc;
	rd->frac_rows += row->t != floor(row->t);
	if (rd->col_index >= 0) {
		row->il = flen[rd->col_index];
		row->idx = wc__trim(start[rd->col_index], &row->il);
	}
	if (rd->col_uuid >= 0) {
		row->ul = flen[rd->col_uuid];
		row->uuid = wc__trim(start[rd->col_uuid], &row->ul);
		if ((rd->mode == NV_KEY_UUID || rd->selecting) && wc__is_missing(row->uuid, row->ul)) {
			/* With gpu_uuids, a log whose every uuid cell is empty is
			 * read again by index (read_log), or refused saying so
			 * without an index column (wc__nv_unseen_selected): such
			 * lines are counted quietly until a uuid comes, then said in
			 * one warning (docs/formats/telemetry.md, "Empty uuid
			 * column"). */
			const wc_telemetry_options *shown = rd->bad.opt;
			if (rd->selecting && rd->uuids_empty++ == 0)
				rd->uuids_empty_line = line_no;
			if (rd->selecting && rd->uuids_named == 0) {
				if (rd->uuids_blank++ == 0)
					rd->uuids_blank_line = line_no;
				rd->bad.opt = NULL;
			}
			/* Where the value starts, past the blank after the comma, as
			 * the power and timestamp cells are named (columns count
			 * bytes, docs/formats/telemetry.md, "Bad lines"). */
			wc__bad_cell(&rd->bad, line_no, (int)(row->uuid - line) + 1, "no GPU uuid");
			rd->bad.opt = shown;
			row->uuid = NULL;
			return -1;
		}
		if (rd->selecting && rd->uuids_named++ == 0 && rd->uuids_blank > 0) {
			wc__warn(rd->opt, rd->path, ":%zu: no GPU uuid on the %zu data lines before line %zu; bad lines",
			         rd->uuids_blank_line, rd->uuids_blank, line_no);
			rd->bad.shown += rd->uuids_blank; /* said, not "not shown" */
		}
	}
	size_t pl = flen[rd->col_power];
	char *pw = wc__trim(start[rd->col_power], &pl);
	nv_power pv;
	if (outside_selection(rd, row)) {
		/* A GPU the run does not use: its reading, never averaged, is
		 * no bad line nor sign of a wrong platform; the sweep learns the
		 * node's GPUs from the row (docs/formats/telemetry.md, "GPUs"). */
		rd->other_lines++;
		int kind = wc__is_missing(pw, pl) ? NV_POWER_UNREADABLE : wc__nv_parse_power(rd, pw, pl, &pv);
		if (kind == NV_POWER_UNIT) /* an unknown unit word: the log's, refused */
			return wc__nv_power_take(rd, &pv, pw, pl, line_no, (size_t)(pw - line) + 1, &row->watts);
		if (kind != NV_POWER_OK && rd->other_bad++ == 0)
			rd->other_bad_line = line_no;
		row->watts = 0.0; /* not read: the sweep drops the row */
		return 0;
	}
	if (wc__is_missing(pw, pl) && !rd->power_settled && wc__nv_choose_power(rd, start, flen, line_no)) {
		pl = flen[rd->col_power];
		pw = wc__trim(start[rd->col_power], &pl);
	}
	if (wc__is_missing(pw, pl)) {
		wc__bad_cell(&rd->bad, line_no, (int)(pw - line) + 1, "no power reading (%s is '%.*s')",
		             wc__nv_power_names[rd->power_rank], (int)(pl > 40 ? 40 : pl), pw);
		hear_gpu(rd, row, 0);
		wc__nv_note_line_time(rd, row->t);
		return -1;
	}
	wc__nv_parse_power(rd, pw, pl, &pv);
	int prc = wc__nv_power_take(rd, &pv, pw, pl, line_no, (size_t)(pw - line) + 1, &row->watts);
	rd->power_settled |= prc == 0;
	if (prc >= -1)
		wc__nv_note_line_time(rd, row->t);
	if (prc == 0)
		hear_gpu(rd, row, 1);
	return prc;
}
