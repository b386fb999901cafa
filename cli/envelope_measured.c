/*
 * `wattcast envelope --measured RUN_DIR` (docs/envelopes.md, "Replaying a
 * measured run"): the run folder read as `validate envelope` reads it,
 * and its first load window turned into the envelope's own workload --
 * the run's arrivals with their token counts, over the run's window
 * (the requests still running at its start simulated first, as a
 * warm-up), at the meter's cadence -- with its measured group trace and
 * metrics to print and draw beside the prediction.
 */
#include "cli_envelope.h"
#include "cli_replay.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "models/catalog.h"
#include "models/grow.h"

/* Copy n doubles (NULL stays NULL). */
static int
copy_array(const double *src, size_t n, double **dst)
{
	free(*dst);
	*dst = NULL;
	if (!src)
		return WC_OK;
	if (!(*dst = wc_alloc_array(n ? n : 1, sizeof **dst)))
		return WC_ENOMEM;
	if (n)
		memcpy(*dst, src, n * sizeof **dst);
	return WC_OK;
}

static int
take_workload(const cli_check *c, cli_envelope_inputs *in, wc_envelope_workload *w)
{
	const wc_envelope_workload *rw = &c->run.workload;
	size_t n = rw->n_arrivals;
	if (copy_array(rw->arrival_s, n, &in->arrival_s) || copy_array(rw->arrival_input, n, &in->arrival_in) ||
	    copy_array(rw->arrival_output, n, &in->arrival_out))
		return WC_ENOMEM;
	*w = *rw;
	w->arrival_s = in->arrival_s;
	w->arrival_input = in->arrival_in;
	w->arrival_output = in->arrival_out;
	in->n_arrivals = n;
	return WC_OK;
}

static int
take_trace(const wc_trace_replay *r, cli_envelope_inputs *in)
{
	free(in->measured_t);
	free(in->measured_w);
	in->measured_t = wc_alloc_array(r->n_power ? r->n_power : 1, sizeof(double));
	in->measured_w = wc_alloc_array(r->n_power ? r->n_power : 1, sizeof(double));
	if (!in->measured_t || !in->measured_w)
		return WC_ENOMEM;
	for (size_t i = 0; i < r->n_power; i++) {
		in->measured_t[i] = r->power_t[i];
		in->measured_w[i] = r->power_w[i] * r->tp;
	}
	in->n_measured = r->n_power;
	return WC_OK;
}

int
cli_load_measured(const char *cmd, const char *dir, const wc_run_manifest *defaults, const wc_params *p,
                  int max_running, wc_service_choice service, cli_envelope_inputs *in, wc_envelope_workload *w,
                  cli_measured_window *win)
{
	cli_run_set set = { 0 };
	char **found = NULL;
	size_t n_found = 0;
	wc_error ferr;
	int rc;
	/* Only the run replayed is read -- the folder's first window is in
	 * its first run folder (docs/envelopes.md, "Replaying a measured
	 * run"): the others' missing UTC offset refused the command, and the
	 * first run's platform and model, given to them as defaults, were
	 * said "not applied" of flags never given. */
	if (wc_ingest_find_runs(dir, &found, &n_found, &ferr) != WC_OK)
		return cli_fail(cmd, "%s", ferr.msg);
	char *dirs[1] = { found[0] };
	/* the run's bad lines, gaps and clock jumps are said as `ingest` and
	 * `validate envelope` say them: the "measured" column is partly a
	 * straight line across a gap (docs/formats/telemetry.md, "Time gaps") */
	/* no fit runs here: without the run's idle the envelope takes the
	 * level's P0, or the one --idle-power gives (cmd_envelope.c) */
	rc = cli_run_set_load(cmd, dirs, 1, defaults, cli_quiet(),
	                      "the envelope predicts with the platform's P0 (or --idle-power's)", &set);
	for (size_t i = 0; i < n_found; i++)
		free(found[i]);
	free(found);
	if (rc != CLI_OK || (rc = cli_run_set_prepare(cmd, &set, p, max_running, service)) != CLI_OK) {
		cli_run_set_free(&set);
		return rc;
	}
	const wc_trace_replay *r = &set.replays[0];
	const cli_check *c = &set.checks[0];
	if (r->n_arrivals == 0) {
		cli_run_set_free(&set);
		return cli_fail_flag_path(cmd, "--measured", dir, ": the run's window has no request to replay");
	}
	if (take_workload(c, in, w) != WC_OK || take_trace(r, in) != WC_OK) {
		cli_run_set_free(&set);
		return cli_fail(cmd, "out of memory");
	}
	win->horizon_s = c->run.horizon_s;
	win->warmup_s = c->run.warmup_s;
	win->sample_s = c->run.sample_s;
	win->idle_w = r->idle_w;
	win->metrics = r->metrics;
	win->runs = set.n;
	win->run_folders = n_found;
	snprintf(win->run_id, sizeof win->run_id, "%s", r->run_id);
	snprintf(win->platform, sizeof win->platform, "%s", r->m.platform);
	snprintf(win->model, sizeof win->model, "%s", r->m.model);
	win->tp = r->tp;
	win->active_params_b = r->m.active_params_b;
	/* the run's clock and precisions as `validate envelope` binds them */
	win->sm_clock_mhz = c->run.config.sm_clock_mhz;
	win->weights = c->run.config.weights;
	win->kv = c->run.config.kv;
	for (size_t i = 0; i < set.n_warnings; i++) /* the JSON answer carries them */
		cli_envelope_keep_warning(in, set.warnings[i]);
	snprintf(win->arrival_source, sizeof win->arrival_source, "%s",
	         c->run.arrival_source ? c->run.arrival_source : "");
	cli_run_set_free(&set);
	return CLI_OK;
}

/* The run replayed -- the first run folder at or under `dir`, as
 * cli_load_measured takes it -- as ingest knows it (wc_ingest_manifest:
 * its manifests, else nvidia-smi's product name for the platform). */
int
cli_measured_identity(const char *dir, wc_run_manifest *d, const char **platform, const char **model,
                      double *active_params_b, wc_error *err)
{
	char **found = NULL;
	size_t n = 0;
	wc_error ferr;
	wc_ingest_options opt;
	wc_run_manifest m;
	int rc = WC_OK;
	wc_ingest_options_init(&opt);
	wc_run_manifest_init(&m);
	/* A path that holds no run is said here, before the flags it would
	 * have named (docs/cli.md, `--measured`): as the reader says it, since
	 * the platform and the model default to the run's, and "--platform is
	 * required" blamed a flag the run would have filled. */
	if ((rc = wc_ingest_find_runs(dir, &found, &n, &ferr)) != WC_OK)
		return wc_error_set(err, rc, "%s", ferr.msg);
	/* What is missing is said by the flags' checks; a manifest that does
	 * not parse is said here, naming file:line:column -- it read as
	 * "--platform is required". */
	if (n > 0 && wc_ingest_manifest(found[0], &opt, &m, &ferr) == WC_EPARSE)
		rc = wc_error_set(err, WC_EPARSE, "%s", ferr.msg);
	for (size_t i = 0; i < n; i++)
		free(found[i]);
	free(found);
	if (rc != WC_OK)
		return rc;
	/* What the run states goes to its reader as its own (`d`), the flags
	 * given not: a flag naming another board or model asks for a what-if
	 * prediction of the run's workload (cli_measured_config says so), while
	 * the run read -- its measured power -- stays the run's. Given to the
	 * reader, such a flag was said "not applied; what a run states wins",
	 * which is true of `validate envelope` (the run's configuration is
	 * predicted there) but not here, where the prediction took it. */
	if (m.platform[0])
		snprintf(d->platform, sizeof d->platform, "%s", m.platform);
	if (m.model[0])
		snprintf(d->model, sizeof d->model, "%s", m.model);
	if (!*platform && m.platform[0])
		*platform = d->platform;
	if (!*model && !(*active_params_b > 0) && m.model[0]) {
		if (wc_model_lookup(m.model))
			*model = d->model;
		else if (m.active_params_b > 0)
			*active_params_b = m.active_params_b;
	}
	return WC_OK;
}

/* Said on stderr and kept for --json's "warnings", in the same words
 * (one message of at most 255 bytes: no run id, which `measured` names). */
static void
say(const char *cmd, cli_envelope_inputs *in, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(const char *cmd, cli_envelope_inputs *in, const char *fmt, ...)
{
	char msg[WC_WARNING_LEN];
	va_list ap;
	va_start(ap, fmt);
	wc_error_vformat(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "wattcast %s: warning: %s\n", cmd, msg);
	cli_envelope_keep_warning(in, msg);
}

/* A flag naming another configuration than the run's: the answer is the
 * flag's, the "measured" columns the run's -- said in one form for every
 * such flag (docs/envelopes.md, "Replaying a measured run"). */
static void
what_if(const char *cmd, cli_envelope_inputs *in, const char *flag, const char *ran, const char *predicted,
        const char *measured)
{
	say(cmd, in, "%s, but the run %s: the prediction is for %s, the measured values are %s (a what-if replay, "
	    "docs/envelopes.md)", flag, ran, predicted, measured);
}

/* The run's SM clock, 0 not locked, in words after "the run". */
static void
clock_words(double mhz, char *ran, size_t ran_cap, char *at, size_t at_cap)
{
	if (mhz > 0) {
		snprintf(ran, ran_cap, "locked its SM clock at %g MHz", mhz);
		snprintf(at, at_cap, "at %g MHz", mhz);
	} else {
		snprintf(ran, ran_cap, "did not lock its SM clock");
		snprintf(at, at_cap, "at the board's own clocks");
	}
}

/* --sm-clock, --weights and --kv: the run's own unless given; given and
 * another than the run's, a what-if said as such. */
static void
clock_and_precision(const char *cmd, const cli_measured_window *win, const cli_measured_given *g, wc_config *c,
                    cli_envelope_inputs *in)
{
	char flag[64], ran[64], pred[64], meas[64];
	if (!g->sm_clock)
		c->sm_clock_mhz = win->sm_clock_mhz;
	else if (c->sm_clock_mhz != win->sm_clock_mhz) {
		snprintf(flag, sizeof flag, "--sm-clock %g", c->sm_clock_mhz);
		clock_words(win->sm_clock_mhz, ran, sizeof ran, meas, sizeof meas);
		snprintf(pred, sizeof pred, "%g MHz", c->sm_clock_mhz);
		what_if(cmd, in, flag, ran, pred, meas);
	}
	const struct { int given; wc_precision *want, ran; const char *name, *what; } prec[] = {
		{ g->weights, &c->weights, (wc_precision)win->weights, "--weights", "weights" },
		{ g->kv, &c->kv, (wc_precision)win->kv, "--kv", "KV cache" },
	};
	for (size_t i = 0; i < sizeof prec / sizeof prec[0]; i++) {
		if (!prec[i].given) {
			*prec[i].want = prec[i].ran;
			continue;
		}
		if (*prec[i].want == prec[i].ran)
			continue;
		snprintf(flag, sizeof flag, "%s %s", prec[i].name, wc_precision_name(*prec[i].want));
		snprintf(ran, sizeof ran, "ran with %s %s", wc_precision_name(prec[i].ran), prec[i].what);
		snprintf(pred, sizeof pred, "%s %s", wc_precision_name(*prec[i].want), prec[i].what);
		snprintf(meas, sizeof meas, "with %s %s", wc_precision_name(prec[i].ran), prec[i].what);
		what_if(cmd, in, flag, ran, pred, meas);
	}
}

int
cli_measured_config(const char *cmd, const cli_measured_window *win, const cli_measured_given *g, const char *model,
                    wc_config *c, cli_envelope_inputs *in)
{
	char flag[160], ran[160], pred[160], meas[160];
	int same_board = 1;
	if (!g->tp && win->tp > 0)
		c->tp = win->tp;
	else if (win->tp > 0 && win->tp != c->tp) {
		snprintf(flag, sizeof flag, "--tp %d", c->tp);
		snprintf(ran, sizeof ran, "used %d GPU%s", win->tp, win->tp > 1 ? "s" : "");
		snprintf(pred, sizeof pred, "%d GPU%s", c->tp, c->tp > 1 ? "s" : "");
		snprintf(meas, sizeof meas, "of %d", win->tp);
		what_if(cmd, in, flag, ran, pred, meas);
	}
	if (win->platform[0]) {
		const wc_platform_info *want = wc_platform_lookup(c->platform), *ran_on = wc_platform_lookup(win->platform);
		if (want && ran_on ? want != ran_on : strcasecmp(c->platform, win->platform) != 0) {
			same_board = 0;
			snprintf(flag, sizeof flag, "--platform %.60s", c->platform);
			snprintf(ran, sizeof ran, "ran on %.60s", win->platform);
			snprintf(pred, sizeof pred, "%.60s with its level's idle power", c->platform);
			snprintf(meas, sizeof meas, "%.60s's", win->platform);
			what_if(cmd, in, flag, ran, pred, meas);
		}
	}
	if (model && win->model[0]) {
		const wc_model_info *want = wc_model_lookup(model), *served = wc_model_lookup(win->model);
		if (want && served ? want != served : strcasecmp(model, win->model) != 0) {
			snprintf(flag, sizeof flag, "--model %.60s", model);
			snprintf(ran, sizeof ran, "served %.60s", win->model);
			snprintf(pred, sizeof pred, "%.60s", model);
			snprintf(meas, sizeof meas, "%.60s's", win->model);
			what_if(cmd, in, flag, ran, pred, meas);
		}
	}
	clock_and_precision(cmd, win, g, c, in);
	/* The run's own model is predicted with the parameter count its
	 * manifest states, as `validate envelope` binds it (config_of in
	 * cli/run_replay.c), not the catalog's rounded one: 8.190427 B, not
	 * 8.19 B, put the two 0.006 W apart on one run. */
	if (g->own_model && isfinite(win->active_params_b) && win->active_params_b > 0)
		c->active_params_b = win->active_params_b;
	return same_board;
}

/* The flags --measured replaces with the run's own (docs/envelopes.md,
 * "Replaying a measured run"): said, not dropped without a word. */
void
cli_measured_unused_note(const char *cmd, int workload, int horizon, int warmup, int sample)
{
	const char *names[4];
	int n = 0;
	if (workload)
		names[n++] = "the workload flags";
	if (horizon)
		names[n++] = "--horizon";
	if (warmup)
		names[n++] = "--warmup";
	if (sample)
		names[n++] = "--sample";
	if (n == 0)
		return;
	fprintf(stderr, "wattcast %s: note: --measured replays the run's own arrivals, lengths, window and cadence; ",
	        cmd);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? (i == n - 1 ? " and " : ", ") : "", names[i]);
	fprintf(stderr, " given %s not used\n", n > 1 || workload ? "are" : "is");
}

char *
cli_envelope_json_warnings(char *text, const cli_envelope_inputs *in)
{
	if (!text || in->n_warnings == 0)
		return text;
	json_t *o = json_loads(text, 0, NULL);
	free(text);
	json_t *warnings = json_object_get(o, "warnings");
	for (size_t i = 0; json_is_array(warnings) && i < in->n_warnings; i++)
		json_array_append_new(warnings, json_string(in->warnings[i]));
	char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
	json_decref(o);
	return s;
}

char *
cli_measured_json(const char *text, const cli_measured_window *win, size_t arrivals)
{
	json_t *o = json_loads(text, 0, NULL);
	if (!o)
		return NULL;
	const wc_trace_metrics *m = &win->metrics;
	const struct { const char *k; double v; } vals[] = {
		{ "mean_w", m->mean_w }, { "p5_w", m->p5_w }, { "p50_w", m->p50_w }, { "p95_w", m->p95_w },
		{ "max_w", m->max_w }, { "ramp_w_per_s", m->ramp_w_per_s }, { "ramp_p95_w_per_s", m->ramp_p95_w_per_s },
		{ "spectral_entropy", m->spectral_entropy }, { "energy_j", m->energy_j },
	};
	json_t *meas = json_pack("{s:s,s:I,s:s,s:f,s:f,s:I}", "run_id", win->run_id, "arrivals", (json_int_t)arrivals,
	                         "arrival_source", win->arrival_source, "horizon_s", win->horizon_s, "warmup_s",
	                         win->warmup_s, "windows_in_folder", (json_int_t)win->runs);
	if (meas && win->run_folders > 1) /* the others not read: their windows not counted */
		json_object_set_new(meas, "run_folders", json_integer((json_int_t)win->run_folders));
	for (size_t i = 0; meas && i < sizeof vals / sizeof vals[0]; i++)
		json_object_set_new(meas, vals[i].k, isfinite(vals[i].v) ? json_real(vals[i].v) : json_null());
	char *s = NULL;
	if (meas && json_object_set_new(o, "measured", meas) == 0)
		s = json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(o);
	return s;
}
