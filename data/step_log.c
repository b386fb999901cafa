/*
 * Step logs of fine-tuning runs (data/step_log.h,
 * docs/formats/finetune-telemetry.md, "Step logs"): steps.csv read strictly with
 * file:line:column, and the facts of a Hugging Face trainer_state.json.
 */
#include "data/data.h"
#include "data/step_log.h"
#include "data/prom.h"
#include "models/limits.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/fileio.h"
#include "data_internal.h"
#include "json_internal.h"
#include "telemetry_internal.h"
#include "models/grow.h"


static const char *const event_names[WC_STEP_EVENT_COUNT] = { "start", "step", "save", "eval" };

const char *
wc_step_event_name(wc_step_event e)
{
	return (unsigned)e < WC_STEP_EVENT_COUNT ? event_names[e] : "";
}

void
wc_step_log_free(wc_step_log *l)
{
	free(l->t);
	free(l->step);
	free(l->event);
	free(l->line);
	free(l->column);
	memset(l, 0, sizeof *l);
}

typedef struct {
	const char *path;
	int line;
	int col_step, col_t, col_event;
	size_t cap;
	wc_error *err;
} step_reader;

static int
bad(step_reader *rd, const wc__csv_field *f, const char *what, const char *detail)
{
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path, ":%d:%d: column '%s': %s", rd->line,
	                         f ? f->column : 1, what, detail);
}

/* The header's names are trimmed with every cell (wc_step_log_read_buffer);
 * one missing names the columns the header has, as "epoch" or "time" for
 * epoch_s is then plain (docs/formats/finetune-telemetry.md, "Step logs"). */
static int
map_header(step_reader *rd, const wc__csv_field *fields, int n)
{
	char names[128];
	rd->col_step = rd->col_t = rd->col_event = -1;
	for (int i = 0; i < n; i++) {
		if (strcmp(fields[i].text, "step") == 0)
			rd->col_step = i;
		else if (strcmp(fields[i].text, "epoch_s") == 0)
			rd->col_t = i;
		else if (strcmp(fields[i].text, "event") == 0)
			rd->col_event = i;
	}
	if (rd->col_step >= 0 && rd->col_t >= 0)
		return WC_OK;
	wc__csv_header_names(fields, n, names, sizeof names);
	return wc_error_set_path(rd->err, WC_EPARSE, rd->path,
	                         ":%d:1: missing required column '%s': the header has " WC_QUOTE_OPEN "%s" WC_QUOTE_CLOSE,
	                         rd->line, rd->col_step < 0 ? "step" : "epoch_s", names);
}

/* A step count past any run's: the one text of that refusal. */
static void
steps_past(char *why, size_t cap, const char *value)
{
	snprintf(why, cap, "%s optimizer steps is past %.0f, more than any run's", value, WC_STEP_LOG_MAX_STEP);
}

/* One row, checked against the one before. */
static int
read_row(step_reader *rd, const wc__csv_field *f, wc_step_log *l)
{
	double step, t;
	char why[128];
	int ev = WC_STEP_STEP;
	/* Each check its own reason: a step number past the cap was refused
	 * as "expected a whole number >= 0, got '1000000201'", which it is
	 * (docs/formats/finetune-telemetry.md, "Step logs"). */
	if (wc_parse_decimal(f[rd->col_step].text, &step) != 0 || step < 0) {
		snprintf(why, sizeof why, "expected a whole number >= 0, got '%.40s'", f[rd->col_step].text);
		return bad(rd, &f[rd->col_step], "step", why);
	}
	if (step != floor(step)) {
		snprintf(why, sizeof why, "expected a whole number, got '%.40s', a fraction", f[rd->col_step].text);
		return bad(rd, &f[rd->col_step], "step", why);
	}
	if (step > WC_STEP_LOG_MAX_STEP) {
		char value[48];
		snprintf(value, sizeof value, "'%.40s'", f[rd->col_step].text);
		steps_past(why, sizeof why, value);
		return bad(rd, &f[rd->col_step], "step", why);
	}
	if (wc_parse_decimal(f[rd->col_t].text, &t) != 0) {
		snprintf(why, sizeof why, "expected Unix seconds, got '%.40s'", f[rd->col_t].text);
		return bad(rd, &f[rd->col_t], "epoch_s", why);
	}
	/* Milliseconds (int(time.time() * 1000)) were read as seconds and
	 * refused later as a clock offset of -1.8e12 s, outside what
	 * --utc-offset takes; named at the cell, as power.csv's are
	 * (docs/formats/finetune-telemetry.md, "Step logs"). */
	if (wc_prom_time_other_unit(t, why, sizeof why))
		return bad(rd, &f[rd->col_t], "epoch_s", why);
	if (rd->col_event >= 0 && f[rd->col_event].text[0]) {
		for (ev = 0; ev < WC_STEP_EVENT_COUNT && strcmp(f[rd->col_event].text, event_names[ev]); ev++)
			;
		if (ev == WC_STEP_EVENT_COUNT) {
			snprintf(why, sizeof why, "expected start, step, save or eval, got '%.40s'", f[rd->col_event].text);
			return bad(rd, &f[rd->col_event], "event", why);
		}
	}
	/* Every rank writing its own row repeats a step within a millisecond,
	 * often at the same millisecond; a step number going back is a run
	 * resumed from a checkpoint. Both are counted by the step numbers,
	 * not refused (docs/formats/finetune-telemetry.md, "Step logs"). */
	int repeat = l->n > 0 && (int)step == l->step[l->n - 1] && ev == l->event[l->n - 1];
	if (l->n > 0 && !(t > l->t[l->n - 1]) && !(repeat && t == l->t[l->n - 1]))
		return bad(rd, &f[rd->col_t], "epoch_s", "must be later than the row before");
	size_t cap = rd->cap;
	double *nt = wc_grow(l->t, &cap, l->n + 1, sizeof *nt, 256);
	if (nt)
		l->t = nt;
	int *ns = nt ? wc_resize_array(l->step, cap, sizeof *ns) : NULL;
	if (ns)
		l->step = ns;
	unsigned char *ne = ns ? wc_resize_array(l->event, cap, sizeof *ne) : NULL;
	if (ne)
		l->event = ne;
	int *nl = ne ? wc_resize_array(l->line, cap, sizeof *nl) : NULL;
	if (nl)
		l->line = nl;
	int *nc = nl ? wc_resize_array(l->column, cap, sizeof *nc) : NULL;
	if (!nc)
		return wc_error_set_path(rd->err, WC_ENOMEM, rd->path, ": out of memory");
	l->column = nc;
	rd->cap = cap;
	l->line[l->n] = rd->line;
	l->column[l->n] = f[rd->col_step].column;
	l->t[l->n] = t;
	l->step[l->n] = (int)step;
	l->event[l->n++] = (unsigned char)ev;
	return WC_OK;
}

int
wc_step_log_read_buffer(const char *buf, size_t len, const char *path, wc_step_log *out, wc_error *err)
{
	step_reader rd = { path, 0, -1, -1, -1, 0, err };
	wc__csv_field fields[WC_STEPS_COLUMNS_MAX];
	wc__csv_lines it;
	const char *reason = NULL;
	int n, n_header = 0, rc = WC_OK;
	memset(out, 0, sizeof *out);
	wc__csv_lines_init(&it, buf, len);
	char why[160];
	while (rc == WC_OK && (n = wc__csv_lines_next(&it, fields, WC_STEPS_COLUMNS_MAX, &reason)) != 0) {
		int col = n_header == 0 && n != WC_ENOMEM ? wc__csv_not_text(it.raw, it.raw_len, why, sizeof why) : 0;
		const int row = n_header > 0;
		rd.line = it.line;
		/* "step, epoch_s, event" and "0, 100.0, start", as power.csv is
		 * written (nvidia-smi's ", "): blanks around a cell are no part of
		 * it, as in every table reader (docs/formats/finetune-telemetry.md,
		 * "Step logs"), and a refusal names the value's own column. */
		if (n > 0)
			wc__csv_trim_fields(fields, n);
		if (n == WC_ENOMEM)
			rc = wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
		else if (col > 0) /* gzip, ';' separators: as every CSV reader's header says */
			rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: %s", rd.line, col, why);
		else if (n == WC__CSV_BAD && n_header == 0 && reason == wc__csv_too_many_fields)
			rc = wc__header_too_wide(path, (size_t)rd.line, it.stop, WC_STEPS_COLUMNS_MAX,
			                         ", such as the trainer's metrics (step,epoch_s,event are enough)", err);
		else if (n == WC__CSV_BAD)
			rc = wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: %s", rd.line, it.stop, reason);
		else if (n_header == 0)
			rc = map_header(&rd, fields, n), n_header = n;
		else if (n != n_header)
			rc = wc__csv_field_count_refuse(err, path, rd.line, fields, n, n_header, it.stop);
		else if (strcmp(fields[rd.col_step].text, "step") == 0 && strcmp(fields[rd.col_t].text, "epoch_s") == 0)
			continue; /* the header again: a resumed run appended its own log (as power.csv may) */
		else
			rc = read_row(&rd, fields, out);
		/* An unfinished last line (no newline: the log cut while being
		 * written, a run still training) that does not read is half a
		 * row: dropped and said, as power.csv's and engine.csv's are
		 * (docs/formats/telemetry.md, "A log still being written"); it
		 * refused the whole run as "expected 3 fields". The header's is
		 * no row. */
		if (rc == WC_EPARSE && row && it.raw + it.raw_len == buf + len) {
			out->unfinished_line = rd.line;
			rc = WC_OK;
		}
	}
	wc__csv_lines_free(&it);
	if (rc == WC_OK && n_header == 0)
		rc = wc_error_set_path(err, WC_EPARSE, path, ":1:1: no header row (empty step log)");
	if (rc != WC_OK)
		wc_step_log_free(out);
	return rc;
}

int
wc_step_log_read(const char *path, wc_step_log *out, wc_error *err)
{
	char *buf;
	size_t len;
	int rc = wc_read_file(path, WC_STEP_LOG_MAX_BYTES, &buf, &len, err);
	if (rc != WC_OK)
		return rc;
	rc = wc_step_log_read_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------- trainer_state.json */

/* obj[key] as a number when present and not null; a wrong type is refused. */
static int
state_number(wc__json_loader *ld, json_t *obj, const char *path, const char *key, double *out)
{
	json_t *v = json_object_get(obj, key);
	char p[WC__JSON_PATH_MAX];
	if (!v || json_is_null(v))
		return WC_OK;
	wc__json_join(p, path, key);
	return wc__json_number(ld, v, p, out);
}

/* A value's text as the file writes it, cut with "..." past 19 bytes. */
static void
value_text(char tok[24], size_t cap, const char *text, size_t n)
{
	snprintf(tok, cap, "%.*s%s", n < 20 ? (int)n : 16, text, n < 20 ? "" : "...");
}

/* A step count of the state, `key` (global_step, max_steps): one rule for
 * both, a whole number from 1 to WC_STEP_LOG_MAX_STEP, each refusal
 * quoting the value and naming its reason at file:line:column
 * (docs/formats/finetune-telemetry.md, "Step logs"). max_steps 400.5 was
 * cut to 400 and 2147483648 ignored where global_step was refused; null,
 * Python's Infinity (read as null) and 0 were all "expected ... (>= 1)".
 * Absent leaves *out NaN, for the caller to require. */
static int
state_steps(wc__json_loader *ld, const char *buf, size_t len, json_t *root, const char *key, const char *what,
            double *out)
{
	json_t *v = json_object_get(root, key);
	double d = v && json_is_number(v) ? json_number_value(v) : NAN;
	char why[192], tok[24] = "", p[WC__JSON_PATH_MAX];
	int line, col;
	size_t at, n;
	*out = NAN;
	wc__json_join(p, "", key);
	/* the value as the file writes it (1e15, not 1e+15) */
	if (v && wc__json_value_at(buf, len, p, &line, &col, &at, &n)) {
		value_text(tok, sizeof tok, buf + at, n);
	} else if (isfinite(d)) {
		snprintf(tok, sizeof tok, "%.15g", d);
	}
	if (v && json_is_string(v)) { /* whole, a comma within it too */
		char text[24];
		value_text(text, sizeof text, json_string_value(v), strlen(json_string_value(v)));
		snprintf(tok, sizeof tok, "'%.21s'", text);
	}
	/* max_steps null, 0 or -1 is a count not stated: TrainerState's
	 * default is 0, TrainingArguments' -1 ("train by epochs") */
	if (strcmp(key, "max_steps") == 0 && v &&
	    ((json_is_null(v) && (!tok[0] || strcmp(tok, "null") == 0)) || (json_is_number(v) && (d == 0 || d == -1))))
		return WC_OK;
	if (v && json_is_null(v) && strcmp(tok, "Infinity") == 0)
		steps_past(why, sizeof why, tok);
	else if (v && json_is_null(v) && strcmp(tok, "-Infinity") == 0)
		snprintf(why, sizeof why, "-Infinity is below 1: expected %s (>= 1)", what);
	else if (v && json_is_null(v) && strcmp(tok, "NaN") == 0)
		snprintf(why, sizeof why, "NaN is not a number: expected %s (a whole number from 1 to %.0f)", what,
		         WC_STEP_LOG_MAX_STEP);
	else if (!v)
		snprintf(why, sizeof why, "missing: expected %s (a whole number from 1 to %.0f)", what,
		         WC_STEP_LOG_MAX_STEP);
	else if (!json_is_number(v))
		snprintf(why, sizeof why, "%s is the wrong type: expected %s (a whole number from 1 to %.0f)",
		         json_is_array(v) ? "an array" : json_is_object(v) ? "an object" : tok,
		         what, WC_STEP_LOG_MAX_STEP);
	else if (d < 1)
		snprintf(why, sizeof why, "%s is below 1: expected %s (>= 1)", tok, what);
	else if (d != floor(d))
		snprintf(why, sizeof why, "%s is not a whole number of optimizer steps", tok);
	else if (d > WC_STEP_LOG_MAX_STEP)
		steps_past(why, sizeof why, tok);
	else {
		*out = d;
		return WC_OK;
	}
	if (!v && strcmp(key, "global_step") != 0)
		return WC_OK; /* max_steps may be unknown */
	return wc__json_fail(ld, p, "%s", why); /* at the value's line:column (wc_trainer_state_read_within) */
}

/* A text jansson does not parse: a step count too large for it (1e400,
 * 99999999999999999999) at its line:column is the step rule's refusal,
 * with the bound, not jansson's "real number overflow". */
static int
step_overflow(wc__json_loader *ld, const char *buf, size_t len, const json_error_t *jerr)
{
	static const char *const keys[] = { "/global_step", "/max_steps" };
	int line, col;
	size_t at, n;
	for (size_t k = 0; json_error_code(jerr) == json_error_numeric_overflow && k < 2; k++)
		if (wc__json_value_at(buf, len, keys[k], &line, &col, &at, &n) && line == jerr->line &&
		    jerr->column >= col && jerr->column < col + (int)n + 1) {
			char tok[24], why[96];
			value_text(tok, sizeof tok, buf + at, n);
			steps_past(why, sizeof why, tok);
			return wc__json_fail(ld, keys[k], "%s", why);
		}
	return wc_json_error_set(ld->err, ld->source, "", jerr, buf, len);
}

/* An interval in steps: a ratio below 1 is a share of max_steps (newer
 * Trainer versions accept both). */
static double
as_steps(double v, int max_steps)
{
	if (!(v > 0))
		return 0;
	return v < 1 && max_steps > 0 ? ceil(v * max_steps) : v;
}

/* The evaluation time of one log_history entry: `eval_runtime`, and
 * `eval_<name>_runtime` -- the Trainer given a dict of eval datasets
 * evaluates each with the prefix eval_<name> (docs/finetune.md,
 * "Evaluations a trainer state lists"); NaN when it holds none. */
static int
entry_eval_runtime(wc__json_loader *ld, json_t *e, const char *path, double *out)
{
	const char *key;
	json_t *v;
	int rc;
	*out = NAN;
	json_object_foreach(e, key, v) {
		size_t n = strlen(key);
		double r = NAN;
		char p[WC__JSON_PATH_MAX];
		if (strcmp(key, "eval_runtime") != 0 &&
		    !(n > strlen("eval__runtime") && strncmp(key, "eval_", 5) == 0 && strcmp(key + n - 8, "_runtime") == 0))
			continue;
		if ((rc = state_number(ld, e, path, key, &r)))
			return rc;
		/* Seconds an evaluation took: below 0, or past a week
		 * (WC_FT_MAX_EVAL_S), no Trainer wrote. -20 s read +2.6 % energy
		 * per step without a word, 1e300 s printed 300 digits (NaN, Python's
		 * json.dump of an unknown, is read as none). Nothing in
		 * the run's files bounds one more tightly: a resumed run's log keeps
		 * a crashed session's evaluations, which its own power log need not
		 * hold; one that cannot fit in it is left unplaced, not refused
		 * (docs/formats/finetune-telemetry.md, "Step logs"). */
		wc__json_join(p, path, key);
		if (r < 0)
			return wc__json_fail(ld, p, "expected the evaluation's seconds (>= 0), got %.6g", r);
		if (r > WC_FT_MAX_EVAL_S)
			return wc__json_fail(ld, p, "%.6g s is longer than a week (%.0f s), past any evaluation: not a real "
			                     "eval_runtime", r, WC_FT_MAX_EVAL_S);
		if (isfinite(r))
			*out = isfinite(*out) ? *out + r : r;
	}
	return WC_OK;
}

static int
state_history(wc__json_loader *ld, json_t *hist, double span_s, wc_trainer_state *out)
{
	char p[WC__JSON_PATH_MAX];
	size_t i;
	json_t *e;
	int rc;
	if (!hist || json_is_null(hist))
		return WC_OK;
	if (!json_is_array(hist))
		return wc__json_fail(ld, "/log_history", "expected an array, got %s", wc_json_type_name(hist));
	size_t n = json_array_size(hist);
	double prev = NAN, trained_s = 0.0;
	int prev_eval = 0, trained = -1; /* the evaluations up to the last train_runtime entry */
	out->eval_at = wc_alloc_array(n ? n : 1, sizeof *out->eval_at);
	out->eval_s = wc_alloc_array(n ? n : 1, sizeof *out->eval_s);
	if (!out->eval_at || !out->eval_s)
		return wc_error_set_path(ld->err, WC_ENOMEM, ld->source, ": out of memory");
	json_array_foreach(hist, i, e) {
		double runtime = NAN, train = NAN, tokens = NAN, step = NAN;
		wc__json_join_index(p, "/log_history", i);
		if (!json_is_object(e))
			return wc__json_fail(ld, p, "expected an object, got %s", wc_json_type_name(e));
		if ((rc = entry_eval_runtime(ld, e, p, &runtime)) ||
		    (rc = state_number(ld, e, p, "train_runtime", &train)) ||
		    (rc = state_number(ld, e, p, "num_input_tokens_seen", &tokens)) ||
		    (rc = state_number(ld, e, p, "step", &step)))
			return rc;
		/* A resumed Trainer reloads the checkpoint's log, so its log
		 * goes on from the save; a step going back is a log that kept
		 * the first session's entries past it (docs/finetune.md,
		 * "Evaluations a trainer state lists"). */
		if (isfinite(step) && isfinite(prev) && step < prev) {
			if (out->n_restarts++ == 0) {
				out->back_from = prev;
				out->back_to = step;
			}
			out->rerun_steps += prev - step;
		}
		prev = isfinite(step) ? step : prev;
		/* One evaluation of several datasets logs one entry per dataset,
		 * one after the other at the same step: one pause, their sum. */
		if (isfinite(runtime) && prev_eval && isfinite(step) && out->eval_at[out->n_evals - 1] == step)
			out->eval_s[out->n_evals - 1] += runtime;
		else if (isfinite(runtime)) {
			out->eval_at[out->n_evals] = step;
			out->eval_s[out->n_evals++] = runtime;
		}
		out->eval_runtime_s += isfinite(runtime) ? runtime : 0.0;
		prev_eval = isfinite(runtime);
		if (isfinite(train)) {
			out->train_runtime_s = train;
			trained = out->n_evals;
			trained_s = out->eval_runtime_s;
		}
		/* The running count at the last entry holding one, over that
		 * entry's step: entries come every logging_steps, and the steps
		 * after the last one hold tokens it does not (600000 at step 100
		 * of 120 was read over 120 steps: -17 % tokens per step); a
		 * resumed log's last entry is the run's, not its highest. */
		if (isfinite(tokens) && tokens > 0 && step >= 1) {
			out->tokens_seen = tokens;
			out->tokens_step = step;
		}
		out->n_log_entries++;
	}
	/* An evaluation up to the last train_runtime entry ran during
	 * training (in a checkpoint's state, with no such entry, all do); one
	 * longer than the power log (when given) from its first sample to its
	 * last is not in it: a crashed session's, kept in the log from the
	 * checkpoint -- the log does not say where a session began -- or no
	 * real value. Either way it is not placed: taken out of the list and
	 * counted, for ingest to say so (docs/finetune.md, "Measuring energy
	 * per step"). Those after the last entry are trainer.evaluate() after
	 * train(), which the power log need not hold. */
	int during = trained >= 0 ? trained : out->n_evals, kept = 0;
	for (int j = 0; j < out->n_evals; j++) {
		if (j < during && !isnan(span_s) && out->eval_s[j] > span_s) {
			if (out->n_evals_long++ == 0) {
				out->long_at = out->eval_at[j];
				out->long_s = out->eval_s[j];
			}
			out->long_sum_s += out->eval_s[j];
			continue;
		}
		out->eval_at[kept] = out->eval_at[j];
		out->eval_s[kept++] = out->eval_s[j];
	}
	if (trained >= 0)
		trained -= out->n_evals - kept;
	out->n_evals = kept;
	out->eval_runtime_s -= out->long_sum_s;
	trained_s -= out->long_sum_s;
	out->long_span_s = span_s;
	/* Entries after the last train_runtime one were logged after train()
	 * returned: trainer.evaluate() called after it, past training's end
	 * and its final save. They are no evaluation of the run (docs/finetune.md,
	 * "An evaluation after train()"): listed, one at global_step was taken
	 * out of the steps (-5.1 % energy per step). */
	if (trained >= 0 && trained < out->n_evals) {
		out->n_post_evals = out->n_evals - trained;
		out->post_eval_s = out->eval_runtime_s - trained_s;
		out->n_evals = trained;
		out->eval_runtime_s = trained_s;
	}
	return WC_OK;
}

int
wc_trainer_state_read(const char *path, wc_trainer_state *out, wc_error *err)
{
	return wc_trainer_state_read_within(path, NAN, out, err);
}

int
wc_trainer_state_read_within(const char *path, double span_s, wc_trainer_state *out, wc_error *err)
{
	wc__json_loader ld = { .source = path, .err = err };
	json_error_t jerr;
	char *buf;
	size_t len;
	double gs = NAN, ms = NAN, ls = NAN, ss = NAN, es = NAN, tokens = NAN;
	int rc = wc_read_file(path, WC_STEP_LOG_MAX_BYTES, &buf, &len, err);
	memset(out, 0, sizeof *out);
	out->train_runtime_s = out->tokens_seen = out->tokens_step = out->tokens_top_bad = NAN;
	if (rc != WC_OK)
		return rc;
	/* Every refusal of a value names its line:column, not only the step
	 * counts' (docs/formats/finetune-telemetry.md, "Step logs"). */
	ld.text = buf;
	ld.text_len = len;
	size_t nonfinite = 0; /* a NaN loss or grad_norm: counts nothing here */
	json_t *root = wc__json_load_python(buf, len, 0, &jerr, &nonfinite);
	if (!root) {
		rc = step_overflow(&ld, buf, len, &jerr);
		free(buf);
		return rc;
	}
	if (!json_is_object(root))
		rc = wc__json_fail(&ld, "", "expected an object, got %s", wc_json_type_name(root));
	else if (!(rc = state_steps(&ld, buf, len, root, "global_step", "the number of optimizer steps done", &gs)) &&
	         !(rc = state_steps(&ld, buf, len, root, "max_steps", "the steps the run was set to take", &ms)) &&
	         !(rc = state_number(&ld, root, "", "logging_steps", &ls)) &&
	         !(rc = state_number(&ld, root, "", "save_steps", &ss)) &&
	         !(rc = state_number(&ld, root, "", "eval_steps", &es)) &&
	         !(rc = state_number(&ld, root, "", "num_input_tokens_seen", &tokens)))
		rc = state_history(&ld, json_object_get(root, "log_history"), span_s, out);
	free(buf);
	ld.text = NULL;
	if (rc != WC_OK)
		wc_trainer_state_free(out);
	if (rc == WC_OK) {
		out->global_step = (int)gs;
		out->max_steps = isfinite(ms) ? (int)ms : 0;
		out->logging_steps = as_steps(ls, out->max_steps);
		out->save_steps = as_steps(ss, out->max_steps);
		out->eval_steps = as_steps(es, out->max_steps);
		/* The TrainerState's own running total, at global_step, wins over
		 * log_history's; 0 is its default when tokens are not counted
		 * (docs/formats/finetune-telemetry.md, "Step logs"). One below 0,
		 * or below the count the log holds at an earlier step, is no
		 * running total of the same tokens: 1000 over a log's 3600000 at
		 * step 600 read 1.67 tokens per step. The log's is kept, and the
		 * value set aside for the warning. */
		if (isfinite(tokens) && (tokens < 0 || (tokens > 0 && tokens < out->tokens_seen)))
			out->tokens_top_bad = tokens;
		else if (isfinite(tokens) && tokens > 0) {
			out->tokens_seen = tokens;
			out->tokens_step = gs;
		}
	}
	json_decref(root);
	return rc;
}

void
wc_trainer_state_free(wc_trainer_state *s)
{
	free(s->eval_at);
	free(s->eval_s);
	s->eval_at = s->eval_s = NULL;
	s->n_evals = 0;
	s->eval_runtime_s = 0;
}

double
wc_trainer_state_run_steps(const wc_trainer_state *s)
{
	return s->global_step + s->rerun_steps + s->n_restarts * s->logging_steps;
}
