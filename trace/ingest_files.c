/*
 * `wattcast ingest`, reading side: what a run folder holds (power log,
 * engine counters, request log, manifests), what the run is (manifests,
 * then the caller's defaults, then the catalog), whether its clocks agree,
 * and n(t) on the 50 ms grid (docs/formats/telemetry.md). Files are read
 * only through data/.
 */
#include "ingest_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/prom.h"
#include "models/catalog.h"
#include "models/grow.h"
#include "models/warnings.h"
#include "trace/load.h"

int
wc__file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int
wc__ingest_dir_run_id(const char *dir, char *out, size_t cap, wc_error *err)
{
	/* "." or "../x/.." name no folder of their own: take the real one. */
	char real[4096];
	const char *path = realpath(dir, real) ? real : dir;
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t s = n;
	while (s > 0 && path[s - 1] != '/')
		s--;
	/* Refused, never cut: two long folders cut to one id were "the same
	 * id", and a cut could split a character (docs/cli.md, "ingest"). */
	if (n - s >= cap) {
		/* The folder's end (where two copies differ) and the remedy,
		 * within a message's 255 bytes: a long path gives way at its
		 * start, at a character's boundary. */
		const char *shown = dir;
		size_t len = strlen(dir);
		if (len > 120)
			shown = dir + wc_utf8_keep_end(dir, len, 117);
		return wc_error_set(err, WC_EINVAL, "%s%s: folder name too long for a run_id: %zu bytes, at most %zu; "
		                    "set \"run_id\" in wattcast-run.json",
		                    shown == dir ? "" : "...", shown, n - s, cap - 1);
	}
	snprintf(out, cap, "%.*s", (int)(n - s), path + s);
	char why[48]; /* a Latin-1 folder: the table's run_id would be refused by fit */
	return wc_utf8_refuse(out, why, sizeof why) ? wc_error_set_path(err, WC_EINVAL, dir, ": folder name is no run_id: %s; "
	                                                                "set \"run_id\" in wattcast-run.json", why) : WC_OK;
}

void
wc__ingest_platform_from_log(wc_run_manifest *m, const char *power_path, char *note, size_t cap)
{
	char name[256];
	note[0] = '\0';
	/* Any name the catalog knows is written as its catalog entry
	 * (models/catalog.h matches nvidia-smi's spellings). */
	const wc_platform_info *named = wc_nvsmi_product_name(power_path, name, sizeof name) == WC_OK
	                                ? wc_platform_lookup(name) : NULL;
	if (!m->platform[0] && named)
		snprintf(m->platform, sizeof m->platform, "%s", named->name);
	else if (named && wc_platform_lookup(m->platform) && wc_platform_lookup(m->platform) != named)
		/* The manifest wins, but the board the driver names is measured:
		 * one of the two is wrong (a manifest copied from another run),
		 * and board variants differ by more than half
		 * (docs/formats/telemetry.md, "The platform"). */
		snprintf(note, cap, "platform %s (manifest), but power.csv's name is '%.64s' (%s); %s kept, "
		         "check which is right", m->platform, name, named->name, m->platform);
}

int
wc__ingest_load_manifests(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	char path[1024];
	int r;
	wc_run_manifest_init(&rc->m);
	rc->platform_source = NULL;
	snprintf(path, sizeof path, "%.*s/manifest.json", wc__ingest_dir_len(rc->dir), rc->dir);
	if (wc__file_exists(path) && (r = wc_run_manifest_load(path, &rc->m, err)) != WC_OK)
		return r;
	if (rc->m.platform[0])
		rc->platform_source = "manifest.json";
	rc->offset_source = isnan(rc->m.utc_offset_s) ? NULL : "manifest.json";
	const double offset_before = rc->m.utc_offset_s;
	char before[sizeof rc->m.platform];
	const int uuids = rc->m.n_gpu_uuids; /* manifest.json's, unless wattcast-run.json names others */
	memcpy(before, rc->m.platform, sizeof before);
	snprintf(path, sizeof path, "%.*s/wattcast-run.json", wc__ingest_dir_len(rc->dir), rc->dir);
	rc->m.utc_offset_s = INFINITY; /* left so when wattcast-run.json states none (null: unknown) */
	if (wc__file_exists(path) && (r = wc_run_manifest_load(path, &rc->m, err)) != WC_OK)
		return r;
	if (strcmp(before, rc->m.platform) != 0)
		rc->platform_source = "wattcast-run.json";
	if (isinf(rc->m.utc_offset_s))
		rc->m.utc_offset_s = offset_before;
	else
		rc->offset_source = isnan(rc->m.utc_offset_s) ? NULL : "wattcast-run.json";
	/* The platform the run states, its manifest's or the power log's
	 * (docs/formats/telemetry.md, "The platform"), before the --platform
	 * fallback. */
	char note[WC_WARNING_LEN];
	const int stated = rc->m.platform[0] != '\0';
	wc__ingest_platform_from_log(&rc->m, rc->power_path, note, sizeof note);
	if (!stated && rc->m.platform[0])
		rc->platform_source = "power.csv's name";
	if (note[0] && opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, rc->dir, ": %s", note);
		opt->warn(msg, opt->warn_payload);
	}
	/* Flags fill what the manifests leave unknown; a manifest's value
	 * wins. Said where a flag names another value, so a flag the run
	 * overrides is not thought to have applied (`--platform A100` on a
	 * folder holding an H100 run gave H100 rows without a word). */
	const wc_run_manifest *d = &opt->defaults;
	if (opt->warn) {
		char msg[WC_ERROR_MSG_MAX], over[600];
		wc_run_manifest_overruled(&rc->m, d, 0, over, sizeof over);
		/* one of the two is hours off, and the clock check aligns the
		 * logs by the manifest's; said once the power log is read, as
		 * neither applies to timestamps that carry their zone */
		rc->offset_overruled = !isnan(d->utc_offset_s) && !isnan(rc->m.utc_offset_s) &&
		                       d->utc_offset_s != rc->m.utc_offset_s;
		if (over[0]) {
			wc_error_format_path(msg, sizeof msg, rc->dir, ": %s: not applied; what a run states (its manifest, or nvidia-smi's "
			         "product name) wins over a flag", over);
			opt->warn(msg, opt->warn_payload);
		}
	}
	if (!rc->m.platform[0] && d->platform[0])
		rc->platform_source = "--platform";
	if (isnan(rc->m.utc_offset_s) && !isnan(d->utc_offset_s))
		rc->offset_source = "--utc-offset";
	wc_run_manifest_fill(&rc->m, &opt->defaults);
	if ((r = wc__ingest_check_uuids(rc, uuids, err)) != WC_OK)
		return r;
	if (rc->m.platform[0] && wc_platform_lookup(rc->m.platform))
		snprintf(rc->m.platform, sizeof rc->m.platform, "%s", wc_platform_lookup(rc->m.platform)->name);
	if (!rc->m.run_id[0] && (r = wc__ingest_dir_run_id(rc->dir, rc->m.run_id, sizeof rc->m.run_id, err)) != WC_OK)
		return r;
	const wc_model_info *mi = rc->m.model[0] ? wc_model_lookup(rc->m.model) : NULL;
	if (isnan(rc->m.active_params_b) && mi)
		rc->m.active_params_b = mi->active_params_b;
	/* Everything the run lacks, said at once: a run without manifests
	 * was refused once per missing flag, one attempt each. The UTC offset
	 * joins them when a load log will need it (checked again there). A
	 * message holds 255 bytes: the run's folder, then the names. */
	if (!rc->m.platform[0] || isnan(rc->m.active_params_b) || !rc->m.model[0]) {
		const int plat = !rc->m.platform[0], model = !rc->m.model[0],
		          offset = isnan(rc->m.utc_offset_s) && (rc->engine_path[0] || rc->req_path[0]);
		const char *what[3], *flag[3];
		int n = 0;
		if (plat)
			what[n] = "platform", flag[n++] = "--platform";
		if (model)
			what[n] = "model", flag[n++] = "--model";
		else if (isnan(rc->m.active_params_b))
			what[n] = "active parameters (model not in the catalog)", flag[n++] = "--active-params";
		if (offset)
			what[n] = "UTC offset", flag[n++] = "--utc-offset";
		char a[160] = "", b[96] = "", log[96] = "", hint[64] = "";
		for (int k = 0; k < n; k++) {
			const char *sep = k == 0 ? "" : k == n - 1 ? " and " : ", ";
			snprintf(a + strlen(a), sizeof a - strlen(a), "%s%s", sep, what[k]);
			snprintf(b + strlen(b), sizeof b - strlen(b), "%s%s", sep, flag[k]);
		}
		/* The offset the engine clock suggests, as when the offset alone
		 * is missing (docs/formats/telemetry.md, "Clocks and UTC
		 * offsets"): dropped here, a second attempt only to learn it. */
		if (offset)
			wc__ingest_offset_hint(rc, opt, hint, sizeof hint);
		return wc_error_set_path(err, WC_EINVAL, rc->dir,
		                         ": %s unknown (no manifest states %s%s); give %s%s%s", a, n == 1 ? "it" : "them",
		                         plat ? wc__ingest_platform_unnamed(rc->power_path, log, sizeof log) : "", b, hint,
		                         !model ? "" : hint[0] ? ", and --active-params for a model the catalog lacks"
		                         : " (and --active-params for a model the catalog lacks)");
	}
	if (mi && isnan(rc->m.total_params_b))
		rc->m.total_params_b = mi->total_params_b;
	if (mi && rc->m.architecture == WC_ARCH_UNKNOWN)
		rc->m.architecture = mi->architecture;
	return WC_OK;
}

static void
fwd_warn(const char *msg, void *payload)
{
	const wc_ingest_options *opt = payload;
	if (opt->warn)
		opt->warn(msg, opt->warn_payload);
}

wc_telemetry_options
wc__ingest_reader_options(const wc_ingest_options *opt)
{
	wc_telemetry_options t = WC_TELEMETRY_OPTIONS_INIT;
	/* 0 allows no bad line, as in metrics: no 0 read as unset (docs/cli.md) */
	t.max_bad_fraction = opt->max_bad_fraction;
	t.max_bad_option = opt->max_bad_option;
	t.max_warnings = opt->max_warnings;
	t.warn = fwd_warn;
	t.warn_payload = (void *)opt;
	return t;
}

void
wc__ingest_power_bound(wc_telemetry_options *t, const char *platform, const char *source, char *buf,
                       size_t cap)
{
	const wc_platform_info *pi = wc_platform_lookup(platform);
	t->max_power_w = pi && pi->max_power_w > 0 ? WC_TELEMETRY_POWER_LIMIT_FACTOR * pi->max_power_w : 0.0;
	snprintf(buf, cap, "%s (from %s)", pi ? pi->name : "", source ? source : "the run");
	t->platform_origin = t->max_power_w > 0 ? buf : NULL;
}

wc_telemetry_options
wc__ingest_power_options(const run_ctx *rc, const wc_ingest_options *opt, const char **uuids)
{
	wc_telemetry_options t = wc__ingest_reader_options(opt);
	t.utc_offset_s = isnan(rc->m.utc_offset_s) ? 0.0 : rc->m.utc_offset_s;
	t.epoch_offset_s = rc->m.power_epoch_offset_s;
	t.n_gpus = wc__ingest_run_gpus(rc);
	for (int g = 0; g < rc->m.n_gpu_uuids; g++)
		uuids[g] = rc->m.gpu_uuids[g];
	t.gpu_uuids = rc->m.n_gpu_uuids ? uuids : NULL;
	t.n_gpu_uuids = (size_t)rc->m.n_gpu_uuids;
	return t;
}

int
wc__ingest_read_files(run_ctx *rc, const wc_ingest_options *opt, wc_error *err)
{
	const char *uuids[WC_TELEMETRY_MAX_GPUS];
	/* Power first; an unknown UTC offset is refused after it, with the
	 * offset the engine clock suggests. */
	wc_telemetry_options t = wc__ingest_power_options(rc, opt, uuids);
	int r;
	char origin[WC_NAME_MAX + 48];
	wc__ingest_power_bound(&t, rc->m.platform, rc->platform_source, origin, sizeof origin);
	if ((r = wc_power_trace_read(rc->power_path, &t, opt->max_samples, &rc->pt, err)) != WC_OK)
		return r;
	rc->bad_lines += rc->pt->info.bad_lines;
	if (rc->pt->info.implausible_lines > 0 && opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, rc->power_path, ": %zu power reading%s beyond %.0f W per GPU skipped "
		                     "as bad lines", rc->pt->info.implausible_lines,
		                     rc->pt->info.implausible_lines == 1 ? "" : "s",
		         t.max_power_w > 0 ? t.max_power_w : WC_TELEMETRY_MAX_POWER_W);
		opt->warn(msg, opt->warn_payload);
	}
	if (rc->pt->info.wide_sweeps > 0 && opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		wc_error_format_path(msg, sizeof msg, rc->power_path, ": %zu sweep%s spread over more than %.0f ms (widest %.3f s); each "
		         "read as one sample of %d GPUs (told apart by %s)",
		         rc->pt->info.wide_sweeps, rc->pt->info.wide_sweeps == 1 ? "" : "s",
		         1000.0 * WC_NVSMI_SWEEP_TOL_S, rc->pt->info.max_sweep_span_s, rc->pt->info.n_gpus,
		         rc->pt->info.gpu_count_source);
		opt->warn(msg, opt->warn_payload);
	}
	/* Times that carry their zone need no UTC offset
	 * (docs/formats/telemetry.md, "Timestamps"); one given is not applied. */
	if (rc->pt->info.utc_stamps) {
		char msg[WC_ERROR_MSG_MAX];
		wc__ingest_zoned_offset_note(rc->power_path, rc->offset_overruled, rc->m.utc_offset_s,
		                             opt->defaults.utc_offset_s, msg, sizeof msg);
		if (msg[0] && opt->warn)
			opt->warn(msg, opt->warn_payload);
		rc->m.utc_offset_s = 0.0;
	} else if (rc->offset_overruled && opt->warn) {
		char msg[WC_ERROR_MSG_MAX];
		/* manifest.json's offset has an override, not the flag: say it */
		const int pts = rc->offset_source && strcmp(rc->offset_source, "manifest.json") == 0;
		wc_error_format_path(msg, sizeof msg, rc->dir, ": --utc-offset %g (the run says %g): not applied; what a run states "
		         "(its manifest) wins over a flag%s", opt->defaults.utc_offset_s, rc->m.utc_offset_s,
		         pts ? "; wattcast-run.json's \"utc_offset_s\" wins over manifest.json's" : "");
		opt->warn(msg, opt->warn_payload);
	}
	if (rc->pt->n < 2)
		return wc_error_set_path(err, WC_EPARSE, rc->power_path, ": fewer than two samples");
	rc->t0 = rc->pt->t[0];
	rc->t1 = rc->pt->t[rc->pt->n - 1];
	if (rc->m.tp <= 0)
		rc->m.tp = rc->pt->info.n_gpus;
	else if ((r = wc__ingest_check_run_gpus(rc, err)) != WC_OK)
		return r;
	if (rc->replica && (r = wc__ingest_replica_power(rc, opt, err)) != WC_OK)
		return r;

	t = wc__ingest_reader_options(opt);
	t.epoch_offset_s = rc->m.engine_epoch_offset_s;
	t.engine_only = rc->replica;
	if (rc->engine_path[0]) {
		if ((r = wc_engine_read(rc->engine_path, &t, 0, &rc->eng, err)) != WC_OK)
			return r;
		if ((r = wc__ingest_replica_engines(rc, opt, err)) != WC_OK)
			return r;
		rc->bad_lines += rc->eng->bad_lines;
		if (rc->eng->n == 0)
			return wc_error_set_path(err, WC_EPARSE, rc->engine_path, ": no rows");
	}
	if (rc->req_path[0] && (r = wc_request_log_read(rc->req_path, &t, &rc->req, err)) != WC_OK) {
		/* A refused log is the one file between the run and engine.csv's
		 * n(t) (docs/formats/telemetry.md, "Request logs"): say so. The
		 * remedy is kept whole: the path and the reader's text share the
		 * room left beside it by wc_error_format_path's rule (the run
		 * folder's name kept when it fits; docs/architecture.md,
		 * "Errors"), where the whole was cut at its end, mid-word. */
		static const char aside[] = "; engine.csv has n(t): move this log aside to ingest without it";
		const char *text = err && r != WC_ENOMEM ? wc_error_path_text(err->msg, rc->req_path) : NULL;
		char why[WC_ERROR_MSG_MAX], head[WC_ERROR_MSG_MAX - sizeof aside + 1];
		if (text && rc->eng && rc->eng->col[WC_ENG_RUNNING] && snprintf(why, sizeof why, "%s", text) > 0) {
			wc_error_format_path(head, sizeof head, rc->req_path, "%s", why);
			wc_error_set(err, r, "%s%s", head, aside);
		}
		return r;
	}
	if (rc->req && (r = wc__ingest_place_requests(rc, opt, err)) != WC_OK)
		return r;

	if (isnan(rc->m.utc_offset_s)) {
		char hint[64];
		return wc_error_set_path(err, WC_EINVAL, rc->dir,
		                         ": power timestamps are local time and the UTC offset is unknown; give --utc-offset%s",
		                         wc__ingest_offset_hint(rc, opt, hint, sizeof hint));
	}
	wc__ingest_check_offset(rc, opt);
	return WC_OK;
}

/* The refusal of logs an offset misaligns, with the offset the other
 * log's clock suggests (wc__ingest_suggest_offset, as when no offset is
 * known) and the override that works where it came from: a flag does
 * not override a manifest's, wattcast-run.json's does (docs/formats/
 * telemetry.md, "Clocks and UTC offsets"). 0 when there is nothing to
 * suggest: power times carrying their zone, or the suggestion the offset
 * used. The spans give way to the remedy, in 255 bytes. */
static int
misaligned_hint(const run_ctx *rc, double other_t0, const char *other, wc_error *err)
{
	const double used = rc->m.utc_offset_s;
	const double hint = wc__ingest_suggest_offset(used, rc->t0, other_t0);
	const char *src = rc->offset_source;
	if (rc->pt->info.utc_stamps || isnan(used) || !isfinite(hint) || hint == used || !src)
		return 0;
	char fix[128];
	if (strcmp(src, "--utc-offset") == 0)
		snprintf(fix, sizeof fix, "give --utc-offset %.0f", hint);
	else if (strcmp(src, "wattcast-run.json") == 0)
		snprintf(fix, sizeof fix, "set wattcast-run.json's \"utc_offset_s\" to %.0f", hint);
	else
		snprintf(fix, sizeof fix, "wattcast-run.json's \"utc_offset_s\": %.0f overrides manifest.json's (a flag "
		         "does not)", hint);
	const double lead = rc->t0 - other_t0;
	wc_error_set_path(err, WC_EINVAL, rc->dir, ": clocks cannot be aligned at UTC offset %.0f s: power starts "
	                  "%.1f s %s the %s; it suggests %.0f: %s", used, fabs(lead), lead >= 0 ? "after" : "before",
	                  other, hint, fix);
	return 1;
}

/* Power and engine/request clocks must overlap once converted. */
int
wc__ingest_check_alignment(run_ctx *rc, wc_error *err)
{
	if (rc->eng) {
		double a = fmax(rc->t0, rc->eng->t[0]), b = fmin(rc->t1, rc->eng->t[rc->eng->n - 1]);
		if (!(b > a) && misaligned_hint(rc, rc->eng->t[0], "engine", err))
			return WC_EINVAL;
		if (!(b > a))
			return wc_error_set_path(err, WC_EINVAL, rc->dir,
			                         ": clocks cannot be aligned: power covers epoch %.3f-%.3f, engine "
			                         "%.3f-%.3f (UTC offset %.0f s); check the offset", rc->t0,
			                         rc->t1, rc->eng->t[0], rc->eng->t[rc->eng->n - 1], rc->m.utc_offset_s);
	}
	if (rc->req) {
		/* The span the log knows its requests ran: to each one's end as
		 * n(t) takes it (wc_trace_request_end), else its arrival -- a log
		 * with no output length has no completion, which is no clock
		 * error (docs/formats/telemetry.md, "Missing token counts"). */
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < rc->req->n; i++) {
			const double end = wc_trace_request_end(rc->req, i);
			lo = fmin(lo, rc->req->arrival[i]);
			hi = fmax(hi, isfinite(end) ? end : rc->req->arrival[i]);
		}
		/* one request with no end known is a point: inside power's span */
		const int overlap = hi > lo ? fmin(rc->t1, hi) > fmax(rc->t0, lo) : lo >= rc->t0 && lo <= rc->t1;
		if (!overlap && misaligned_hint(rc, lo, "requests", err))
			return WC_EINVAL;
		if (!overlap)
			return wc_error_set_path(err, WC_EINVAL, rc->dir,
			                         ": clocks cannot be aligned: power covers epoch %.3f-%.3f, requests "
			                         "%.3f-%.3f (UTC offset %.0f s); check the offset", rc->t0,
			                         rc->t1, lo, hi, rc->m.utc_offset_s);
	}
	return WC_OK;
}

/* Quiet power samples: no request runs or waits (docs/trace-metrics.md,
 * "Idle power") -- the engine's running and waiting gauges are 0 and no
 * logged request lies between its arrival and completion (queueing and
 * prefill included). */
static int
mark_quiet(run_ctx *rc, wc_error *err)
{
	const double dt = WC_INGEST_GRID_S;
	double *active = NULL;
	if (rc->req) {
		if (!(active = wc_alloc_array(rc->ngrid, sizeof *active)))
			return wc_error_set_path(err, WC_ENOMEM, rc->dir, ": out of memory");
		wc_trace_running_from_requests(rc->req, rc->t0, dt, rc->ngrid, active);
	}
	for (size_t i = 0; i < rc->pt->n; i++) {
		double t = rc->pt->t[i];
		int quiet = 1;
		if (rc->eng && rc->eng->col[WC_ENG_RUNNING]) {
			double r = wc_engine_value_at(rc->eng, WC_ENG_RUNNING, t);
			double w = rc->eng->col[WC_ENG_WAITING] ? wc_engine_value_at(rc->eng, WC_ENG_WAITING, t) : 0.0;
			/* before a gauge's first value: unknown, not quiet */
			quiet = r == 0.0 && !(w > 0) && !isnan(w);
		}
		if (active) {
			size_t k = (size_t)floor((t - rc->t0) / dt);
			quiet = quiet && active[k < rc->ngrid ? k : rc->ngrid - 1] == 0.0;
		}
		rc->quiet[i] = (unsigned char)quiet;
	}
	free(active);
	return WC_OK;
}

int
wc_ingest_running_ok(double n)
{
	return n >= 0.0 && n <= WC_INGEST_MAX_RUNNING;
}

/* The engine's running counts, checked before they become n(t): a
 * negative or absurd gauge would be written into the runs table, which
 * its own reader (or the fit) then refuses (docs/formats/telemetry.md,
 * "`engine.csv`: vLLM engine counters"). Missing values (NaN) are holes, not errors. */
static int
check_running(const run_ctx *rc, wc_error *err)
{
	const double *n = rc->eng->col[WC_ENG_RUNNING];
	for (size_t i = 0; i < rc->eng->n; i++)
		if (!isnan(n[i]) && !wc_ingest_running_ok(n[i]))
			return wc_error_set_path(err, WC_ERANGE, rc->engine_path,
			                         ": num_requests_running = %.10g at timestamp %.3f (sample %zu) is "
			                         "not a running count: expected 0 to %.10g; nothing was written", n[i],
			                         rc->eng->t[i], i + 1, (double)WC_INGEST_MAX_RUNNING);
	return WC_OK;
}

int
wc__ingest_build_load(run_ctx *rc, wc_error *err)
{
	const double dt = WC_INGEST_GRID_S;
	if ((rc->t1 - rc->t0) / dt >= (double)WC_INGEST_MAX_GRID_CELLS)
		return wc_error_set_path(err, WC_ERANGE, rc->power_path,
		                         ": the power log spans %.0f s, more than %zu cells of the %g s grid "
		                         "(%.1f days); split the run", rc->t1 - rc->t0, WC_INGEST_MAX_GRID_CELLS, dt,
		                         (double)WC_INGEST_MAX_GRID_CELLS * dt / 86400.0);
	rc->ngrid = (size_t)floor((rc->t1 - rc->t0) / dt + 1e-9) + 1;
	rc->grid_n = wc_alloc_array(rc->ngrid, sizeof *rc->grid_n);
	rc->quiet = wc_alloc_array(rc->pt->n, 1);
	if (!rc->grid_n || !rc->quiet)
		return wc_error_set_path(err, WC_ENOMEM, rc->dir, ": out of memory");
	/* the gauge is checked whichever source n(t) takes: it holds the
	 * request log's count under the engine's queue limit */
	int r = rc->eng && rc->eng->col[WC_ENG_RUNNING] ? check_running(rc, err) : WC_OK;
	if (r != WC_OK)
		return r;
	/* One rule with replay's (trace/load.h): the request log where it
	 * places its requests, else the engine gauge. */
	const char *source = wc_trace_running_series(rc->req, rc->log_accounts, rc->eng, rc->t0, dt, rc->ngrid, rc->grid_n);
	if (source) {
		rc->n_source = source;
	} else if (rc->power_only) {
		/* Nothing known about the load: no n(t), and no sample is known
		 * to be quiet (idle only from a stated idle window). */
		rc->n_source = "";
		memset(rc->quiet, 0, rc->pt->n);
		for (size_t k = 0; k < rc->ngrid; k++)
			rc->grid_n[k] = NAN;
		return WC_OK;
	} else if (rc->eng && rc->eng->engine_without[WC_ENG_RUNNING][0]) {
		/* the gauge read as absent: one engine's count is unknown, so
		 * the sum is (docs/formats/telemetry.md, "Missing cells") */
		return wc_error_set_path(err, WC_EINVAL, rc->engine_path,
		                         ": no n(t): num_requests_running{%s} has no column while that engine's "
		                         "others do: the running sum is unknown, and no request log; `ingest "
		                         "--power-only` gives the power metrics", rc->eng->engine_without[WC_ENG_RUNNING]);
	} else if (rc->eng) {
		/* engine.csv was read: say that none of its columns is the
		 * gauge, and the spellings read as one (docs/formats/telemetry.md,
		 * "`engine.csv`: vLLM engine counters"). */
		return wc_error_set_path(err, WC_EINVAL, rc->engine_path,
		                         ": no n(t): read, but no column is a running count (num_requests_running, "
		                         "SGLang's num_running_reqs, TGI's tgi_batch_current_size) and no request "
		                         "log; `ingest --power-only` gives the power metrics");
	} else {
		return wc_error_set_path(err, WC_EINVAL, rc->dir,
		                         ": no n(t): needs engine.csv with num_requests_running "
		                         "or a request log (requests.json / requests.csv); `ingest --power-only` gives "
		                         "the power metrics without them");
	}
	return mark_quiet(rc, err);
}

void
wc__ingest_zoned_offset_note(const char *power_path, int overruled, double offset, double flag, char *msg,
                             size_t cap)
{
	if (overruled)
		wc_error_format_path(msg, cap, power_path, ": timestamps carry their zone; neither the run's UTC offset %.0f s nor "
		         "--utc-offset %g is applied", offset, flag);
	else if (offset != 0 && !isnan(offset))
		wc_error_format_path(msg, cap, power_path, ": timestamps carry their zone; the UTC offset %.0f s is not applied",
		         offset);
	else
		msg[0] = '\0';
}
