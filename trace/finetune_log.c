/*
 * A fine-tuning run's steps.csv as the step analysis wants it: its steps
 * by their step numbers and the pauses it states (docs/finetune.md,
 * "Counting steps"), and the warnings of how its rows became them.
 */
#include "finetune_trace_internal.h"

#include <math.h>
#include <string.h>

/* Steps a step row without a step number before it ends: the gap to the
 * next step number of its segment (a log written every k steps starts at
 * step k), else one. */
static double
first_gap(const wc_step_log *l, size_t i)
{
	for (size_t j = i + 1; j < l->n && l->step[j] >= l->step[i]; j++)
		if (l->event[j] == WC_STEP_STEP && l->step[j] > l->step[i])
			return l->step[j] - l->step[i];
	return 1.0;
}

/* A pause the log states: from the row before row i to row i; `restart`
 * when it is a resume's restart (row i starts a train() call), not a save
 * or evaluation. */
static void
logged_pause(const wc_step_log *l, size_t i, double *buf, unsigned char *restarts, size_t *np, int restart)
{
	buf[l->n + *np] = l->t[i - 1];
	restarts[*np] = (unsigned char)restart;
	buf[2 * l->n + (*np)++] = l->t[i];
}

/* The steps save and eval rows end before their pauses (below) timed at
 * the log's median step, from the pause's start; the rest of the row is
 * the pause (all of it the steps' when shorter). `buf` as the walk lays
 * it out for `n` rows; its fifth n holds, per pause, its step entry plus
 * one (0 none), its sixth is scratch. Without a median step (no step row
 * timed: a log of start and eval rows alone) nothing times them: the rows
 * stay pauses and their steps go to the next step row of the segment, as
 * before such rows ended steps. */
static void
time_leads(wc_ft_steps_info *in, size_t n, double *buf, int *lines, unsigned char *resumed, ft_log_notes *notes)
{
	double *pause_from = buf + n, *count = buf + 3 * n, *lead = buf + 4 * n, *is_lead = buf + 5 * n;
	double md = wc__ft_median_step(in, is_lead);
	notes->lead_step_s = md;
	if (isfinite(md)) {
		for (size_t j = 0; j < in->n_logged; j++) {
			if (lead[j] < 1)
				continue;
			size_t e = (size_t)lead[j] - 1;
			buf[e] = pause_from[j] = fmin(pause_from[j] + md * count[e], in->pause_to[j]);
		}
		return;
	}
	for (size_t e = 0; e < in->n_step_end; e++)
		is_lead[e] = 0;
	for (size_t j = 0; j < in->n_logged; j++)
		if (lead[j] >= 1)
			is_lead[(size_t)lead[j] - 1] = 1;
	size_t m = 0;
	double carry = 0;
	unsigned char seg = 0;
	for (size_t e = 0; e < in->n_step_end; e++) {
		if (resumed[e])
			carry = 0;
		seg |= resumed[e];
		if (is_lead[e]) {
			carry += count[e];
			continue;
		}
		buf[m] = buf[e];
		count[m] = count[e] + carry;
		lines[m] = lines[e];
		resumed[m++] = seg;
		carry = 0;
		seg = 0;
	}
	in->n_step_end = m;
	notes->leads = 0;
}

/* The step log as the analysis wants it; arrays into `buf` (6 n doubles).
 * Steps are counted from the step numbers, not the rows: a row repeating
 * the step number of the step row before it (every rank writing its row)
 * is the same step, its first row's time kept; a row ending step k after
 * step j ends k - j steps (a log written every k steps). A step number
 * going back is a run resumed from a checkpoint: a new segment, whose
 * re-run steps count (they were executed and cost energy); the time from
 * the row before it to the segment's start -- its start row, else its
 * first row, whose own steps are then not timed nor counted -- is not
 * step time, as any start row after the first. A save or eval row
 * numbered past the step row before it ends those steps, then its pause
 * (rows every logging_steps, evaluations between: the row from step 20 to
 * the evaluation at 25 holds steps 21-25, then the evaluation; taken whole
 * as the evaluation, 120 s of 400 3-s steps were left out, -10 % energy
 * per step; docs/finetune.md, "Counting steps"). */
void
wc__ft_log_walk(const wc_step_log *l, wc_ft_steps_info *in, double *buf, int *lines, unsigned char *resumed,
                unsigned char *restarts, ft_log_notes *notes)
{
	int segment = 0; /* a resumed segment begins: its next timed step is its first */
	size_t ns = 0, np = 0;
	int have_prev = 0, prev = 0, prev_is_step = 0; /* the last step number of the segment */
	double prev_t = 0;                             /* the time of its first row */
	unsigned kinds = 0;  /* start, save and eval rows kept since the last step row, by kind */
	int kinds_num = 0;   /* ... and their step number */
	double *count = buf + 3 * l->n, *lead = buf + 4 * l->n;
	memset(notes, 0, sizeof *notes);
	for (size_t j = 0; j < l->n; j++)
		lead[j] = 0; /* restarts too are pauses */
	for (size_t i = 0; i < l->n; i++) {
		int num = l->step[i], ev = l->event[i];
		if (i > 0 && num < l->step[i - 1]) {
			if (notes->resumes++ == 0) {
				notes->resume_line = l->line[i];
				notes->resume_from = l->step[i - 1];
				notes->resume_to = num;
			}
			have_prev = 0;
			segment = 1;
			kinds = 0;
			if (ev == WC_STEP_STEP) {
				logged_pause(l, i, buf, restarts, &np, 1);
				have_prev = prev_is_step = 1;
				prev = num;
				prev_t = l->t[i];
				continue;
			}
		}
		/* Every rank writing its rows repeats the saves and evaluations
		 * as it does the steps: one pause each, as a step number is one
		 * step (8 ranks read 32 logged pauses for 4). Its end is the last
		 * rank's row. */
		if (ev != WC_STEP_STEP && (kinds >> ev & 1u) && num == kinds_num) {
			if (notes->pause_repeats++ == 0)
				notes->pause_repeat_line = l->line[i];
			if (ev == WC_STEP_START && ns == 0)
				continue;
			for (size_t j = np; j-- > 0;)
				if (buf[2 * l->n + j] <= l->t[i]) {
					buf[2 * l->n + j] = fmax(buf[2 * l->n + j], l->t[i]);
					break;
				}
			continue;
		}
		if (ev != WC_STEP_STEP) {
			kinds = num == kinds_num ? kinds | 1u << ev : 1u << ev;
			kinds_num = num;
		}
		if (ev == WC_STEP_STEP) {
			if (have_prev && prev_is_step && num == prev) {
				if (notes->repeats++ == 0)
					notes->repeat_line = l->line[i];
				notes->repeat_lag_s = fmax(notes->repeat_lag_s, l->t[i] - prev_t);
				continue;
			}
			/* a step numbered as the start row before it: numbering from 0 */
			double k = !have_prev ? first_gap(l, i) : num > prev ? num - prev : 1.0;
			if (k > 1 && notes->gaps++ == 0)
				notes->gap_line = l->line[i];
			notes->gap_max = k > notes->gap_max ? (int)k : notes->gap_max;
			buf[ns] = l->t[i];
			lines[ns] = l->line[i];
			resumed[ns] = (unsigned char)segment;
			segment = 0;
			count[ns++] = k;
			have_prev = prev_is_step = 1;
			prev = num;
			prev_t = l->t[i];
			kinds = 0;
		} else if (ev == WC_STEP_START) {
			if (ns == 0)
				in->start = l->t[i];
			else
				logged_pause(l, i, buf, restarts, &np, 1);
			have_prev = 1;
			prev_is_step = 0;
			prev = num;
		} else if (i > 0) {
			/* its steps first, ending where the row before does until
			 * timed (time_leads) */
			if (have_prev && num > prev) {
				if (notes->leads++ == 0)
					notes->lead_line = l->line[i];
				buf[ns] = l->t[i - 1];
				lines[ns] = l->line[i];
				resumed[ns] = (unsigned char)segment;
				segment = 0;
				count[ns++] = num - prev;
				lead[np] = (double)ns;
				prev_is_step = 1;
				prev = num;
				prev_t = l->t[i];
			}
			logged_pause(l, i, buf, restarts, &np, 0);
		}
	}
	in->step_end = buf;
	in->step_count = count;
	in->step_line = lines;
	in->resumed = resumed;
	in->n_step_end = ns;
	in->pause_from = buf + l->n;
	in->pause_to = buf + 2 * l->n;
	in->n_logged = np;
	in->pause_restart = restarts;
	if (notes->leads)
		time_leads(in, l->n, buf, lines, resumed, notes);
}

/* One line each for rows that are not one step each: the count is right,
 * but a log read as one row per step would have been 8x or 1/10 off, so
 * the rule is said (docs/finetune.md, "Counting steps"). */
void
wc__ft_log_warnings(const ft_log_notes *n, wc_ft_steps_result *res)
{
	/* The folder is said before each warning (finetune_row.c); a long
	 * path here would cut the rule off the end of the line. */
	const char *f = "steps.csv";
	if (n->repeats)
		/* The lag tells rows of ranks (milliseconds) from a log whose step
		 * column does not count steps (seconds): said, as the count differs
		 * by the rows per step. */
		WC_WARN(res, "%s:%d: %zu rows repeat the step number of the row before, up to %.3f s after its first "
		        "(every rank writing its row?); each step number is one step, timed by its first row", f,
		        n->repeat_line, n->repeats, n->repeat_lag_s);
	if (n->pause_repeats)
		WC_WARN(res, "%s:%d: %zu start, save or eval rows repeat one of the same kind and step since the last step "
		        "(every rank writing its row?); each is one pause, ending at its last row", f,
		        n->pause_repeat_line, n->pause_repeats);
	if (n->gaps)
		WC_WARN(res, "%s:%d: steps are logged with gaps (up to %d steps, %zu rows); a row ending step k after "
		        "step j counts k - j steps", f, n->gap_line, n->gap_max, n->gaps);
	if (n->leads)
		WC_WARN(res, "%s:%d: %zu save or eval rows end steps after the step row before them (rows every k "
		        "steps); those steps are timed at the median step, %.2f s, the rest of each row is its pause", f,
		        n->lead_line, n->leads, n->lead_step_s);
	if (n->resumes)
		WC_WARN(res, "%s:%d: the step number goes back from %d to %d: a resumed run (%zu time%s); the re-run "
		        "steps are counted, the restart is not step time", f, n->resume_line, n->resume_from,
		        n->resume_to, n->resumes, n->resumes == 1 ? "" : "s");
}


/* A row ending k > 1 steps whose steps would each be far shorter than the
 * log's median step -- under 1/WC_FT_LONG_STEP_FACTOR of it, the bound a
 * row far longer is held to (finetune_steps.c) -- is a mistyped step
 * number, not a log written every k steps: the last row's 40 typed 400
 * read 361 steps in 1.3 s, a tenth of the energy per step, and 10^9 for 5
 * a ten-millionth, with only the gap and resume warnings
 * (docs/finetune.md, "Counting steps"). Refused at its step cell. */
int
wc__ft_log_typos(const wc_step_log *l, const char *path, const wc_ft_steps_info *in, double *scratch, wc_error *err)
{
	const double md = wc__ft_median_step(in, scratch);
	for (size_t i = 0; isfinite(md) && i < in->n_step_end; i++) {
		const double k = in->step_count[i], d = in->step_end[i] - wc__ft_step_start(in, i, md);
		if (!(k > 1) || !(d > 0) || !(d / k < md / WC_FT_LONG_STEP_FACTOR))
			continue;
		size_t r = 0;
		while (r + 1 < l->n && l->line[r] != in->step_line[i])
			r++;
		return wc_error_set_path(err, WC_EINVAL, path, ":%d:%d: column 'step': %d ends %.0f steps in %.3g s, "
		                         "%.2g s each, under 1/%.0f of the log's median step %.3g s: a mistyped step "
		                         "number? correct it", l->line[r], l->column[r], l->step[r], k, d, d / k,
		                         WC_FT_LONG_STEP_FACTOR, md);
	}
	return WC_OK;
}
