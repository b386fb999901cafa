/*
 * nvidia-smi power logs (`nvidia-smi --query-gpu=timestamp,index,...,
 * power.draw --format=csv[,nounits] -lms 100`), the read loop: lines to
 * the header (nvsmi_columns.c) or to rows (nvsmi_row.c, a line's fields),
 * a last line still being written, and the refusals at the log's end.
 * Rows become samples (one power value per GPU at one time, the traces of
 * docs/trace-metrics.md) in nvsmi_sweep.c (nvsmi_sweep_pos.c without
 * index or uuid). Timestamps are local wall time and are converted with
 * the UTC offset of the logging host.
 */
#include "nvsmi_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

/* A log refused (too many bad lines, no complete sample) where one GPU
 * has no power reading on any line while others have: every sweep lacks
 * it, so allowing more bad lines cannot help -- the refusal names the GPU
 * and what does (docs/formats/telemetry.md, "Bad lines"). */
static void
name_silent_gpu(const nv_reader *rd, wc_error *err)
{
	int silent = -1, others = 0;
	for (int g = 0; g < rd->n_heard; g++) {
		if (rd->heard[g].read == 0 && rd->heard[g].missing > 0 && silent < 0)
			silent = g;
		others += rd->heard[g].read > 0;
	}
	if (silent >= 0 && others > 0)
		wc_error_set_path(err, WC_EPARSE, rd->path, ": %s%s never reports power (%s missing on its %zu lines: no "
		             "sensor?); no --max-bad helps: log the others only (nvidia-smi -i) or drop its rows",
		             rd->col_index >= 0 ? "GPU index " : wc_telemetry_gpu_word(rd->heard[silent].key),
		             rd->heard[silent].key, wc__nv_power_names[rd->power_rank], rd->heard[silent].missing);
}

/* A line the file ends in without a newline: nvidia-smi was still
 * writing it when the file was read (a live log). The line reader puts
 * the NUL where the newline was, so only such a line ends exactly where
 * the bytes read end. */
static int
unfinished_line(const wc__line_reader *lr, const char *line, size_t len)
{
	return lr->eof && lr->start == lr->end && line + len == lr->buf + lr->end;
}

/* An unfinished last line that does not parse is half a row, not a
 * malformed one: dropped with a warning and left out of the bad-line
 * share, as an incomplete last sample is (docs/formats/telemetry.md, "A
 * log still being written"). So is one whose reading lacks the unit word
 * every reading before it had: "488.79 W" cut to "4" parses, as 4 W. It
 * is not taken into a sweep: the sweep it began is the incomplete last
 * sample. WC_OK when it was dropped, else 1. */
static int
drop_unfinished(nv_reader *rd, char *line, size_t len, size_t line_no, nv_row *row)
{
	wc__bad_lines kept = rd->bad;
	size_t implausible = rd->info->implausible_lines, beyond = rd->beyond_board;
	size_t worded = rd->power_worded, bare = rd->power_bare;
	int code = rd->err ? rd->err->code : 0;
	rd->bad.opt = NULL; /* counted, not shown: undone below */
	int prc = wc__nv_parse_row(rd, line, len, line_no, row);
	rd->bad = kept;
	const int cut = prc == 0 && worded > 0 && bare == 0 && rd->power_bare > 0;
	if (prc == 0 && !cut)
		return 1;
	rd->power_worded = worded;
	rd->power_bare = bare;
	rd->info->implausible_lines = implausible;
	rd->beyond_board = beyond;
	if (rd->err)
		rd->err->code = code; /* an unknown unit word may be a cut-off one */
	wc__warn(rd->opt, rd->path, ":%zu: " WC_UNFINISHED_LINE_DROPPED "%s",
	         line_no, cut ? " (its power reading lacks the unit every other line's has)" : "");
	return WC_OK;
}

static int
data_line(nv_reader *rd, char *line, size_t len, size_t line_no, int unfinished)
{
	nv_row row;
	int prc;
	rd->glued_at = 0;
	rd->glued_whole = 0;
	if (unfinished && drop_unfinished(rd, line, len, line_no, &row) == WC_OK)
		return WC_OK;
	prc = unfinished ? 0 : wc__nv_parse_row(rd, line, len, line_no, &row);
	if (prc < -1)
		return prc; /* refused: an unknown unit */
	row.ok = prc == 0;
	if (!row.ok)
		row.t = row.watts = NAN;
	size_t at = rd->glued_at;
	if (at > 0 && rd->glued_whole)
		wc__warn(rd->opt, rd->path, ":%zu:%zu: a whole row, then a header glued after it (no newline: the logger "
		         "restarted?); %s, the header read as a second header", line_no, at + 1,
		         row.ok ? "the row is kept" : "the row is a bad line (above)");
	prc = wc__nv_take_row(rd, &row, line_no);
	/* the cut row holds its place, then the header is read as a header
	 * repeated (docs/formats/telemetry.md, "A second header") */
	return prc == WC_OK && at > 0 ? wc__nv_reheader(rd, line + at, len - at, line_no) : prc;
}

/* A reader over `path` with its row buffer; NULL when out of memory. */
static nv_reader *
reader_new(const char *path, const wc_telemetry_options *opt, wc_nvsmi_sample_fn on_sample,
           void *payload, wc_nvsmi_info *info, wc_error *err)
{
	nv_reader *rd;
	rd = calloc(1, sizeof *rd);
	if (rd && !(rd->held = wc_alloc_array(NV_GUESS_ROWS, sizeof *rd->held))) {
		free(rd);
		rd = NULL;
	}
	if (!rd)
		return NULL;
	rd->path = path;
	rd->opt = opt;
	rd->bad.path = path;
	rd->bad.opt = opt;
	rd->info = info;
	rd->gaps.user = on_sample;
	rd->gaps.user_payload = payload;
	rd->on_sample = wc__nv_gap_sample;
	rd->payload = rd;
	rd->err = err;
	rd->power_scale = 1.0;
	rd->max_power_w = opt->max_power_w > 0 ? opt->max_power_w : WC_TELEMETRY_MAX_POWER_W;
	wc__nv_forget_gpus(rd);
	return rd;
}

int
wc_nvsmi_read(const char *path, const wc_telemetry_options *opt, wc_nvsmi_sample_fn on_sample,
              void *payload, wc_nvsmi_info *info, wc_error *err)
{
	return wc__nvsmi_read_gaps(path, opt, on_sample, payload, NULL, NULL, info, err);
}

/* The log read; `uuid_empty`: a second reading by index, of a log whose
 * every uuid cell is empty while gpu_uuids named the run's GPUs. */
static int
read_log(const char *path, const wc_telemetry_options *opt, wc_nvsmi_sample_fn on_sample, void *payload,
         wc__nv_gap_fn on_gap, void *gap_payload, wc_nvsmi_info *info, wc_error *err, int uuid_empty)
{
	wc__line_reader lr;
	wc_telemetry_options by_index;
	nv_reader *rd = NULL;
	char *line;
	size_t len;
	int too_long, got, rc, header = 0, again = 0;
	memset(info, 0, sizeof *info);
	info->t_first = info->t_last = NAN;
	if (err)
		err->code = 0;
	if ((rc = wc__lr_open(&lr, path, opt, err)) != WC_OK)
		return rc;
	lr.long_header_hint = NV_HEADER_HINT;
	if (!(rd = reader_new(path, opt, on_sample, payload, info, err))) {
		wc__lr_close(&lr);
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	}
	rd->gaps.on_gap = on_gap;
	rd->gaps.gap_payload = gap_payload;
	rd->uuid_empty = uuid_empty;
	while ((got = wc__lr_next(&lr, &line, &len, &too_long)) == 1) {
		if (too_long) {
			if (!header) {
				rc = wc__lr_header_too_long(&lr, path, err);
				goto done;
			}
			info->data_lines++;
			wc__bad_cell(&rd->bad, lr.line_no, WC__LINE_MAX_COLUMN, "line longer than %d bytes", WC_TELEMETRY_LINE_MAX);
			/* still a GPU's row: it keeps its place in the sweep */
			nv_row bad_row = { .t = NAN, .watts = NAN, .ok = 0 };
			if ((rc = wc__nv_take_row(rd, &bad_row, lr.line_no)) != WC_OK)
				goto done;
			continue;
		}
		/* Blank and comment lines are skipped; a line that starts with
		 * neither a blank nor '#' is neither (the common case, without
		 * trimming it). */
		if (len == 0 || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '\r') {
			size_t tl = len;
			char *tr = wc__trim(line, &tl);
			if (tl == 0 || tr[0] == '#')
				continue;
		}
		if (!header) {
			if ((rc = wc__nv_parse_header(rd, line, len, lr.line_no)) != WC_OK)
				goto done;
			header = 1;
			continue;
		}
		/* a data line begins with a digit (a time or an index): only
		 * other lines may be a header repeated */
		if (!(line[0] >= '0' && line[0] <= '9') && wc__nv_is_header(line, len)) {
			if ((rc = wc__nv_reheader(rd, line, len, lr.line_no)) != WC_OK)
				goto done;
			continue;
		}
		info->data_lines++;
		info->bytes_read = wc__lr_offset(&lr);
		if ((rc = data_line(rd, line, len, lr.line_no, unfinished_line(&lr, line, len))) != WC_OK)
			goto done;
	}
	if (got < 0) {
		rc = wc_error_set_path(err, WC_EIO, path, ": read error");
		goto done;
	}
	if (!header) {
		rc = wc_error_set_path(err, WC_EPARSE, path, ": empty file (no header)");
		goto done;
	}
	if (rd->selecting && !rd->refusal_held && rd->col_index >= 0 && rd->uuids_named == 0 && rd->uuids_blank > 0) {
		/* Every uuid cell empty: gpu_uuids cannot pick the GPUs out,
		 * which "in no row of the log: it holds other GPUs only" hid
		 * behind a bad line a row; the index tells them apart, the
		 * selection's size the count (docs/formats/telemetry.md,
		 * "Empty uuid column"). No sample was taken: each row was bad. */
		wc__warn(opt, path, ":%zu: the uuid column is empty on every line, so gpu_uuids cannot pick the run's %d "
		         "GPUs out; the GPUs are read by index", rd->uuids_blank_line, rd->n_gpus);
		by_index = *opt;
		by_index.gpu_uuids = NULL;
		by_index.n_gpu_uuids = 0;
		if (by_index.n_gpus <= 0)
			by_index.n_gpus = rd->n_gpus;
		again = 1;
		goto done;
	}
	if ((rc = wc__nv_finish(rd)) != WC_OK)
		goto done;
	info->bad_lines = rd->bad.bad;
	if (rd->pause_bad > 1) {
		rd->bad.split_line = rd->pause_line;
		rd->bad.split_bad = rd->pause_bad;
	}
	if (rd->other_bad > 0)
		wc__warn(opt, path, ":%zu: %zu lines of GPUs outside gpu_uuids have no plausible power reading; "
		         "ignored, as those GPUs are (the run does not use them)", rd->other_bad_line, rd->other_bad);
	if ((rc = wc__nv_whole_seconds(rd)) != WC_OK)
		goto done;
	if ((rc = wc__bad_lines_finish(&rd->bad, info->data_lines - rd->other_lines, err)) != WC_OK) {
		if (!wc__nv_name_wrong_platform(rd, 0.0) && !wc__nv_name_late_gpus(rd))
			name_silent_gpu(rd, err);
		goto done;
	}
	/* Allowed by --max-bad, the pause still drops every later sample: said
	 * with what was lost, beyond the first bad lines' own warnings
	 * (docs/formats/telemetry.md, "Time gaps"). */
	if (rd->pause_bad > 1)
		wc__warn(opt, path, ":%zu: the log pauses for %.0f s here (over %.0f s): %zu samples to line %zu, "
		         "%.1f s of the log, were skipped as bad lines; to keep them, delete the data lines before line %zu",
		         rd->pause_line, rd->pause_s, WC_TELEMETRY_MAX_GAP_S, rd->pause_bad, rd->pause_last_line, rd->pause_t1 - rd->pause_t0, rd->pause_line);
	if (info->samples == 0) {
		rc = wc_error_set_path(err, WC_EPARSE, path, ": no complete sample");
		name_silent_gpu(rd, err);
		goto done;
	}
	if ((rc = wc__nv_gaps_finish(rd)) != WC_OK) {
		if (rc == WC_EPARSE)
			wc__nv_name_wrong_platform(rd, info->gap_s);
		goto done;
	}
	if ((rc = wc__nv_ends_finish(rd)) != WC_OK)
		goto done;
	info->n_gpus = rd->n_gpus;
	rc = WC_OK;
done:
	info->bad_lines = rd->bad.bad;
	free(rd->held);
	free(rd);
	wc__lr_close(&lr);
	if (again)
		return read_log(path, &by_index, on_sample, payload, on_gap, gap_payload, info, err, 1);
	return rc;
}

int
wc__nvsmi_read_gaps(const char *path, const wc_telemetry_options *opt, wc_nvsmi_sample_fn on_sample,
                    void *payload, wc__nv_gap_fn on_gap, void *gap_payload, wc_nvsmi_info *info,
                    wc_error *err)
{
	static const wc_telemetry_options defaults = WC_TELEMETRY_OPTIONS_INIT;
	return read_log(path, opt ? opt : &defaults, on_sample, payload, on_gap, gap_payload, info, err, 0);
}

