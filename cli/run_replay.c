/*
 * Measured runs as the envelope commands use them (`fit response`,
 * `validate envelope`, `envelope --measured`): the flags that fill what a
 * run's manifests leave unknown (shared with `ingest`), and run folders
 * turned into replays (trace/replay.h) and then into the inputs of the
 * response fit and of the envelope validation (docs/envelopes.md,
 * "Replaying a measured run").
 */
#include "cli_replay.h"

#include <stdio.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/grow.h"
#include "predict/prefill_grid.h"

int
cli_run_default_flag(const char *cmd, const char *flag, const char *value, wc_run_manifest *d)
{
	long tp;
	int rc = CLI_OK;
	if (strcmp(flag, "platform") == 0) {
		/* Limits are in bytes, as the tables' (docs/formats/runs-table.md):
		 * 16 CJK characters are 48. */
		if (strlen(value) >= sizeof d->platform)
			return cli_usage_error(cmd, "--platform: %zu bytes, more than the %zu a platform name may have",
			                       strlen(value), sizeof d->platform - 1);
		if (!value[0] || strchr(value, ','))
			return cli_usage_error(cmd, "--platform: expected a name of 1-%zu bytes without commas",
			                       sizeof d->platform - 1);
		snprintf(d->platform, sizeof d->platform, "%s", value);
	} else if (strcmp(flag, "tp") == 0) {
		rc = cli_parse_int(cmd, "--tp", value, 1, WC_TELEMETRY_MAX_GPUS, &tp);
		d->tp = (int)tp;
	} else if (strcmp(flag, "model") == 0) {
		if (strlen(value) >= sizeof d->model)
			return cli_usage_error(cmd, "--model: %zu bytes, more than the %zu a model name may have",
			                       strlen(value), sizeof d->model - 1);
		if (!value[0])
			return cli_usage_error(cmd, "--model: expected a name of 1-%zu bytes", sizeof d->model - 1);
		snprintf(d->model, sizeof d->model, "%s", value);
	} else if (strcmp(flag, "active-params") == 0) {
		rc = cli_parse_double_max(cmd, "--active-params", value, 0, 0, WC_MODEL_MAX_PARAMS_B, &d->active_params_b);
	} else if (strcmp(flag, "utc-offset") == 0) {
		rc = cli_parse_double(cmd, "--utc-offset", value, -50400, 1, &d->utc_offset_s);
		if (rc == CLI_OK && d->utc_offset_s > 50400)
			rc = cli_usage_error(cmd, "--utc-offset: must be within +-50400 s, got '%s'", value);
	} else if (strcmp(flag, "workload") == 0) {
		if (!value[0] || wc_workload_from_name(value, &d->workload) != WC_OK)
			rc = cli_usage_error(cmd, "--workload: expected %s, got '%s'", wc_workload_choices(), value);
	}
	return rc;
}

/* ------------------------------------------------------------ runs */

/* Whether two folder arguments are one folder: the same file (links,
 * "dir/" and "dir"), or, where one cannot be looked at, the same text
 * but for trailing slashes. */
static int
same_folder(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	size_t la = strlen(a), lb = strlen(b);
	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && strncmp(a, b, la) == 0;
}

int
cli_run_dirs_distinct(const char *cmd, char *const *dirs, int n)
{
	/* Each of its runs would be read twice, and refused as a run id
	 * repeated, naming one folder as its two places (docs/cli.md,
	 * "validate"): said here, naming the arguments. */
	for (int i = 1; i < n; i++)
		for (int j = 0; j < i; j++) {
			if (!same_folder(dirs[j], dirs[i]))
				continue;
			if (strcmp(dirs[j], dirs[i]) == 0)
				return cli_fail(cmd, "%.180s: given twice (RUN_DIRs %d and %d): each run counts once", dirs[i],
				                j + 1, i + 1);
			return cli_fail(cmd, "%.80s and %.80s: one folder given twice (RUN_DIRs %d and %d): each run "
			                "counts once", dirs[j], dirs[i], j + 1, i + 1);
		}
	return CLI_OK;
}

/* Printed and kept: one reader's words for stderr and an answer's
 * "warnings" alike (docs/formats/telemetry.md, "Bad lines", "Time gaps"). */
static void
keep_warning(const char *msg, void *payload)
{
	cli_run_set *s = payload;
	if (!s->quiet)
		fprintf(stderr, "wattcast %s: warning: %s\n", s->cmd, msg);
	/* out of memory: printed; an answer without it is still the answer */
	(void)wc_warnings_keep(&s->warnings, &s->n_warnings, &s->cap_warnings, msg);
}

/* Append the replays of every run folder under `dir`. */
static int
load_dir(const char *cmd, const char *dir, const wc_ingest_options *opt, cli_run_set *s)
{
	char **found = NULL;
	size_t n = 0;
	wc_error err;
	int rc = CLI_OK;
	if (wc_ingest_find_runs(dir, &found, &n, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	for (size_t i = 0; i < n; i++) {
		wc_trace_replay *r = NULL;
		size_t m = 0;
		if (rc == CLI_OK && wc_trace_replay_load(found[i], opt, &r, &m, &err) != WC_OK)
			rc = cli_fail(cmd, "%s", err.msg);
		if (rc == CLI_OK) {
			size_t cap = s->cap;
			wc_trace_replay *nr = wc_grow(s->replays, &cap, s->n + m, sizeof *nr, 8);
			if (!nr) {
				rc = cli_fail(cmd, "out of memory");
				wc_trace_replay_free(r, m);
			} else {
				s->replays = nr;
				s->cap = cap;
				memcpy(s->replays + s->n, r, m * sizeof *r);
				s->n += m;
				free(r); /* the arrays moved into the set */
			}
		}
		free(found[i]);
	}
	free(found);
	return rc;
}

static const char *
replay_id(size_t i, const void *replays)
{
	return ((const wc_trace_replay *)replays)[i].run_id;
}

static const char *
replay_dir(size_t i, const void *replays)
{
	return ((const wc_trace_replay *)replays)[i].dir;
}

int
cli_run_set_load(const char *cmd, char **dirs, int n_dirs, const wc_run_manifest *defaults,
                 int quiet, const char *idle_fallback, cli_run_set *s)
{
	wc_error err;
	wc_ingest_options opt;
	memset(s, 0, sizeof *s);
	wc_ingest_options_init(&opt);
	opt.defaults = *defaults;
	s->cmd = cmd;
	s->quiet = quiet;
	opt.warn = keep_warning;
	opt.warn_payload = s;
	opt.idle_fallback = idle_fallback;
	if (cli_run_dirs_distinct(cmd, dirs, n_dirs) != CLI_OK)
		return CLI_FAIL;
	for (int i = 0; i < n_dirs; i++)
		if (load_dir(cmd, dirs[i], &opt, s) != CLI_OK)
			return CLI_FAIL;
	if (s->n == 0)
		return cli_fail(cmd, "no run to replay");
	/* a run read twice would weigh twice in a response's fit, or in a
	 * validation's medians and coverage: refused as ingest refuses it
	 * (docs/envelopes.md) */
	if (wc_ingest_check_ids(s->n, replay_id, replay_dir, s->replays, &err) != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	return CLI_OK;
}

void
cli_run_set_free(cli_run_set *s)
{
	for (size_t i = 0; s->checks && i < s->n; i++) {
		free(s->checks[i].prefill);
		free(s->checks[i].arrival_s);
	}
	free(s->checks);
	free(s->warnings);
	wc_trace_replay_free(s->replays, s->n);
	memset(s, 0, sizeof *s);
}

/* ----------------------------------------------------------- prepare */

static void
config_of(const wc_trace_replay *r, wc_config *c)
{
	const wc_run_manifest *m = &r->m;
	*c = (wc_config)WC_CONFIG_INIT;
	c->platform = m->platform;
	c->tp = r->tp;
	c->active_params_b = m->active_params_b;
	c->weights = m->weights >= 0 ? (wc_precision)m->weights : WC_PREC_BF16;
	c->kv = m->kv >= 0 ? (wc_precision)m->kv : WC_PREC_BF16;
	c->sm_clock_mhz = isfinite(m->sm_clock_mhz) ? m->sm_clock_mhz : 0.0;
	c->idle_power_w = isfinite(r->idle_w) ? r->idle_w : 0.0;
	c->model = m->model[0] ? m->model : NULL; /* its model terms apply, as in predict */
	c->arch = wc_model_lookup(m->model);
}

/* Seconds of prefill in each 50 ms bin (predict/prefill_grid.h). */
static void
prefill_grid(const wc_trace_replay *r, const wc_service_times *st, double *out)
{
	const wc_prefill_requests rq = { .n = r->n_arrivals, .lo_s = r->prefill_lo_s, .hi_s = r->prefill_hi_s,
		                         .exact = r->prefill_exact, .input = r->input, .mean_input = r->mean_input };
	wc_prefill_grid(&rq, st, WC_ENVELOPE_GRID_S, r->n_grid, out);
}

/* Lengths for requests the replay does not know: the mean of those it knows. */
static double
mean_known(const double *v, size_t n, double fallback)
{
	double s = 0.0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			s += v[i];
			m++;
		}
	return m ? fmax(1.0, round(s / (double)m)) : fallback;
}

static int
prepare_workload(const wc_trace_replay *r, cli_check *c)
{
	const double dt = WC_ENVELOPE_GRID_S;
	wc_envelope_check_run *run = &c->run;
	double first = r->n_arrivals ? r->arrival_s[0] : 0.0;
	run->warmup_s = first < 0 ? ceil(-first / dt - 1e-9) * dt : 0.0;
	run->horizon_s = (double)r->n_grid * dt;
	if (!(c->arrival_s = wc_alloc_array(r->n_arrivals ? r->n_arrivals : 1, sizeof(double))))
		return WC_ENOMEM;
	for (size_t i = 0; i < r->n_arrivals; i++)
		c->arrival_s[i] = r->arrival_s[i] + run->warmup_s;
	wc_envelope_workload *w = &run->workload;
	wc_envelope_workload_init(w);
	w->kind = WC_ENVELOPE_REPLAY;
	w->n_arrivals = r->n_arrivals;
	w->arrival_s = c->arrival_s;
	w->arrival_input = r->input;
	w->arrival_output = r->output;
	w->input.mean = mean_known(r->input, r->n_arrivals, 512);
	w->output.mean = mean_known(r->output, r->n_arrivals, 256);
	return WC_OK;
}

static int
prepare_one(const char *cmd, const wc_trace_replay *r, const wc_params *p, int max_running,
            wc_service_choice service, cli_check *c)
{
	wc_envelope_check_run *run = &c->run;
	wc_law_binding b;
	wc_service_times st;
	wc_error err;
	wc_params *tmp = NULL;
	run->run_id = r->run_id;
	config_of(r, &run->config);
	/* A catalog board without a level of the set is replayed on its
	 * datasheet transfer, as a point answer and a forecast take it; the
	 * binding's numbers are copied below, so the transfer is freed. */
	int rc = wc_predict_resolve_platform(p, &run->config, &tmp, &err);
	if (rc == WC_OK)
		rc = wc_law_bind(tmp ? tmp : p, &run->config, &b, &err);
	if (rc == WC_OK)
		wc_law_bound_point(&b, NULL, &run->response_run.law);
	free(tmp);
	if (rc != WC_OK)
		return cli_fail(cmd, "%s: %s", r->run_id, err.msg);
	if (wc_service_select(p, &run->config, service, &c->service, &st, &err) != WC_OK)
		return strncmp(err.msg, "service:", 8) == 0 ? cli_usage_error(cmd, "--%s (run %s)", err.msg, r->run_id)
		                                            : cli_fail(cmd, "%s: %s", r->run_id, err.msg);
	if (!(c->prefill = wc_alloc_array(r->n_grid, sizeof(double))) || prepare_workload(r, c) != WC_OK)
		return cli_fail(cmd, "out of memory");
	prefill_grid(r, &st, c->prefill);
	wc_response_run *rr = &run->response_run;
	rr->run_id = r->run_id;
	rr->platform = r->m.platform;
	rr->dt = WC_ENVELOPE_GRID_S;
	rr->n_grid = r->n_grid;
	rr->running = r->running;
	rr->prefill = c->prefill;
	rr->n_samples = r->n_power;
	rr->t_s = r->power_t;
	rr->power_w = r->power_w;
	double k = round(r->sample_s / WC_ENVELOPE_GRID_S);
	run->sample_s = (isfinite(k) && k >= 1 ? k : 1.0) * WC_ENVELOPE_GRID_S;
	run->max_running = max_running;
	run->arrival_source = r->arrival_source;
	/* counter arrivals with a mean prompt but not from prompt tokens */
	run->prompts_stated = strcmp(r->arrival_source, "engine_running") == 0 && isfinite(r->mean_input);
	run->measured = (wc_envelope_metrics){ r->metrics.mean_w, r->metrics.p5_w, r->metrics.p95_w,
		                               r->metrics.max_w, r->metrics.ramp_w_per_s };
	return CLI_OK;
}

/* Lengths the replay does not know are drawn (prepare_workload): said,
 * with how many and from what, as `envelope --replay` says it of a log
 * (docs/envelopes.md, "Replaying a measured run") -- an engine without
 * prompt_tokens_total and a manifest stating no input tokens replayed
 * 512-token prompts without a word. */
static void
warn_drawn(cli_run_set *s, const wc_trace_replay *r, const double *v, const wc_length_dist *d, const char *field)
{
	size_t missing = 0, n = r->n_arrivals;
	char msg[WC_WARNING_LEN];
	for (size_t i = 0; i < n; i++)
		missing += !isfinite(v[i]);
	if (missing == 0)
		return;
	if (missing == n)
		wc_error_format(msg, sizeof msg, "run %s: none of its %zu arrivals (from %s) has %s; drawn from the "
		                "default, a fixed %g", r->run_id, n, r->arrival_source, field, d->mean);
	else
		wc_error_format(msg, sizeof msg, "run %s: %zu of its %zu replayed arrivals (from %s) have no %s; drawn "
		                "from a fixed %g, the mean of the other %zu arrivals'", r->run_id, missing, n,
		                r->arrival_source, field, d->mean, n - missing);
	keep_warning(msg, s);
}

int
cli_run_set_prepare(const char *cmd, cli_run_set *s, const wc_params *p, int max_running,
                    wc_service_choice service)
{
	int rc;
	if (!(s->checks = wc_alloc_zeroed(s->n, sizeof *s->checks)))
		return cli_fail(cmd, "out of memory");
	for (size_t i = 0; i < s->n; i++) {
		const wc_trace_replay *r = &s->replays[i];
		if ((rc = prepare_one(cmd, r, p, max_running, service, &s->checks[i])) != CLI_OK)
			return rc;
		warn_drawn(s, r, r->input, &s->checks[i].run.workload.input, "input_tokens");
		warn_drawn(s, r, r->output, &s->checks[i].run.workload.output, "output_tokens");
	}
	return CLI_OK;
}

int
cli_parse_linger(const char *cmd, const char *text, wc_response_fit_options *fo)
{
	if (strcmp(text, "nested") == 0) {
		fo->linger_nested = 1;
		fo->linger_max_s = 0.0;
		return CLI_OK;
	}
	double v;
	int rc = cli_parse_double(cmd, "--linger-bound", text, 0.0, 0, &v);
	if (rc == CLI_OK && v > WC_RESPONSE_MAX_DECAY_S)
		rc = cli_usage_error(cmd, "--linger-bound: expected nested or seconds in (0, %g], got '%s'",
		                     WC_RESPONSE_MAX_DECAY_S, text);
	if (rc == CLI_OK) {
		fo->linger_nested = 0;
		fo->linger_max_s = v;
	}
	return rc;
}
