/*
 * Fleet ingest (trace/fleet.h, docs/fleet.md): the metrics and their
 * PromQL, the options, and the life of a wc_fleet (pages fed in order,
 * then the rows).
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/engine_log.h"
#include "models/catalog.h"
#include "models/grow.h"
#include "models/limits.h"

/* The metrics engine.csv reads too take their names from its table, the
 * stacks' exposition names (wc_engine_column_exported; docs/fleet.md,
 * "Metrics"): vLLM's the metric's own, SGLang's and TGI's its other names.
 * One table, so that a stack engine.csv reads is read from Prometheus
 * too (TGI's tgi_batch_current_size was refused there as no engine
 * load). */
static int
engine_column(int m)
{
	switch (m) {
	case WC_FLEET_RUNNING:
		return WC_ENG_RUNNING;
	case WC_FLEET_WAITING:
		return WC_ENG_WAITING;
	case WC_FLEET_PROMPT:
		return WC_ENG_PROMPT_TOKENS;
	case WC_FLEET_GENERATION:
		return WC_ENG_GENERATION_TOKENS;
	default:
		return -1;
	}
}

static const char *const names[WC_FLEET_N_METRICS] = {
	[WC_FLEET_POWER] = "DCGM_FI_DEV_POWER_USAGE",
	[WC_FLEET_FB_USED] = "DCGM_FI_DEV_FB_USED",
	[WC_FLEET_TTFT_SUM] = "vllm:time_to_first_token_seconds_sum",
	[WC_FLEET_TTFT_COUNT] = "vllm:time_to_first_token_seconds_count",
	[WC_FLEET_ITL_SUM] = "vllm:time_per_output_token_seconds_sum",
	[WC_FLEET_ITL_COUNT] = "vllm:time_per_output_token_seconds_count",
};

/* Other names of the other metrics, in order of preference (docs/fleet.md,
 * "Metrics"): what newer vLLM releases emit instead (the same histogram
 * under its new name, so one engine never exports only the old one for
 * long), and SGLang's names of the same histograms (an engine exports one
 * family, never both). */
static const char *const aliases[WC_FLEET_N_METRICS][WC_FLEET_MAX_ALIASES + 1] = {
	/* DCGM 3.3's instantaneous reading, for exporters configured with
	 * it alone; the averaged field is preferred where both are exported
	 * (a mean over a step is better estimated from averages). */
	[WC_FLEET_POWER] = { "DCGM_FI_DEV_POWER_USAGE_INSTANT" },
	[WC_FLEET_TTFT_SUM] = { "sglang:time_to_first_token_seconds_sum" },
	[WC_FLEET_TTFT_COUNT] = { "sglang:time_to_first_token_seconds_count" },
	[WC_FLEET_ITL_SUM] = { "vllm:inter_token_latency_seconds_sum", "sglang:inter_token_latency_seconds_sum",
	                       "sglang:time_per_output_token_seconds_sum" },
	[WC_FLEET_ITL_COUNT] = { "vllm:inter_token_latency_seconds_count",
	                         "sglang:inter_token_latency_seconds_count",
	                         "sglang:time_per_output_token_seconds_count" },
};

/* Metrics whose own name is preferred to its aliases (the aliases are
 * fallbacks, not successors). */
static int
primary_first(int m)
{
	return m == WC_FLEET_POWER;
}

const char *
wc_fleet_metric_name(int m)
{
	if (m < 0 || m >= WC_FLEET_N_METRICS)
		return "";
	return engine_column(m) >= 0 ? wc_engine_column_exported((wc_engine_column)engine_column(m), 0) : names[m];
}

const char *
wc_fleet_metric_alias(int m, int k)
{
	if (m < 0 || m >= WC_FLEET_N_METRICS || k < 0 || k >= WC_FLEET_MAX_ALIASES)
		return NULL;
	return engine_column(m) >= 0 ? wc_engine_column_exported((wc_engine_column)engine_column(m), k + 1)
	                             : aliases[m][k];
}

int
wc_fleet_metric_rank(int m, const char *name)
{
	const char *n;
	for (int r = 0; name && (n = wc_fleet_metric_ranked(m, r)); r++)
		if (strcmp(n, name) == 0)
			return r;
	return -1;
}

const char *
wc_fleet_metric_ranked(int m, int r)
{
	if (m < 0 || m >= WC_FLEET_N_METRICS || r < 0 || r > WC_FLEET_MAX_ALIASES)
		return NULL;
	int n = 0;
	while (wc_fleet_metric_alias(m, n))
		n++;
	if (primary_first(m))
		return r == 0 ? wc_fleet_metric_name(m) : r <= n ? wc_fleet_metric_alias(m, r - 1) : NULL;
	return r < n ? wc_fleet_metric_alias(m, r) : r == n ? wc_fleet_metric_name(m) : NULL;
}

int
wc_fleet_metric_from_name(const char *name)
{
	for (int m = 0; m < WC_FLEET_N_METRICS; m++)
		if (wc_fleet_metric_rank(m, name) >= 0)
			return m;
	return -1;
}

void
wc__fleet_load_names(char *buf, size_t size)
{
	const char *name[WC_FLEET_MAX_ALIASES + 1];
	int n = 0;
	size_t len = 0;
	name[n++] = wc_fleet_metric_name(WC_FLEET_RUNNING);
	for (int k = 0; n <= WC_FLEET_MAX_ALIASES && wc_fleet_metric_alias(WC_FLEET_RUNNING, k); k++)
		name[n++] = wc_fleet_metric_alias(WC_FLEET_RUNNING, k);
	if (size)
		buf[0] = '\0';
	for (int k = 0; k < n && len < size; k++) {
		int w = snprintf(buf + len, size - len, "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ", name[k]);
		len += w > 0 ? (size_t)w : 0;
	}
}

int
wc_fleet_query(int m, const char *selector, double step, char *buf, size_t size, wc_error *err)
{
	fleet_matcher mt[FLEET_MAX_MATCHERS];
	char sel[2][2048];
	size_t n_mt = 0;
	long long ms = llround(step * 1000.0);
	if (m < 0 || m >= WC_FLEET_N_METRICS)
		return wc_error_set(err, WC_EINVAL, "metric %d: unknown", m);
	if (!(ms >= llround(WC_FLEET_MIN_STEP * 1000.0) && fabs((double)ms - step * 1000.0) < 1e-6))
		return wc_error_set(err, WC_EINVAL, "--step: %g s is not a whole number of milliseconds >= %g s (the "
		                    "query's range is one ms shorter)", step, WC_FLEET_MIN_STEP);
	int rc = wc__fleet_selector_parse(selector, mt, &n_mt, err);
	if (rc != WC_OK)
		return rc;
	/* A GPU's series with a namespace or pod matcher: those that carry
	 * the GPU's pod under exported_*, then those that do not (docs/fleet.md,
	 * "Queries"); `{namespace="llm"}` found no GPU of a Kubernetes fleet. */
	int sides = wc__fleet_gpu_metric(m) && wc__fleet_selector_k8s(mt, n_mt) ? 2 : 1;
	for (int k = 0; k < sides; k++)
		if (wc__fleet_selector_text(mt, n_mt, m, sides == 1 ? 0 : k ? -1 : 1, sel[k], sizeof sel[k]) != WC_OK)
			return wc_error_set(err, WC_EINVAL, "--selector: the query does not fit in %zu bytes", size);
	/* The range is one millisecond short of the step: Prometheus 2 selects
	 * [t - range, t], so this is (t - step, t] for millisecond timestamps
	 * and each sample falls into exactly one step (docs/fleet.md). With
	 * aliases, `or` keeps the first name's series and adds each later
	 * name's only for label sets the earlier ones lack (set operators
	 * match labels without the name, so an engine exporting two counts
	 * once). Each name's series gets its own name back: one name for all
	 * called the new ITL histogram's values (1117.61) by the old name,
	 * exported beside them at 100 x, and a warning named the series it
	 * did not quote (docs/fleet.md, "Queries"). */
	const char *fn = m < WC_FLEET_FIRST_COUNTER ? "avg" : "last";
	long long range = ms - 1;
	size_t used = 0;
	int w = 0;
	for (int r = 0, first = 1; w >= 0 && (used += (size_t)w) < size; r++) {
		const char *name = wc_fleet_metric_ranked(m, r);
		if (!name)
			break;
		/* A name read for one label's series (SGLang's realtime decode
		 * tokens, wc_engine_exported_label) asks for those alone. */
		const char *need = wc_engine_exported_label(name);
		w = 0;
		for (int k = 0; k < sides && w >= 0 && used + (size_t)w < size; k++, first = 0)
			w += snprintf(buf + used + w, size - used - (size_t)w,
			              "%slabel_replace(%s_over_time(%s{%s%s%s}[%lldms]), \"__name__\", \"%s\", \"\", \"\")",
			              first ? "" : " or ", fn, name, need ? need : "", need && sel[k][0] ? "," : "", sel[k],
			              range, name);
	}
	if (w < 0 || used >= size)
		return wc_error_set(err, WC_EINVAL, "--selector: the query does not fit in %zu bytes", size);
	return WC_OK;
}

/* The hold when --hold is not given: 10 s, and at least three steps. A
 * step of 10-15 s (files' scrape interval, a server's 15) already lasted
 * the 10 s, so a single step whose mean strayed by more than max(2, 25 %)
 * cut the window: Poisson fluctuation of a steady load split it into
 * many short excluded windows (docs/fleet.md, "Windows"). */
static double
hold_default(double step)
{
	return fmax(10.0, 3.0 * step);
}

void
wc_fleet_options_init(wc_fleet_options *o)
{
	memset(o, 0, sizeof *o);
	o->start = o->end = o->step = NAN;
	o->hold_s = NAN; /* wc_fleet_new: hold_default */
	o->rel_tol = 0.25;
	o->abs_tol = 2.0;
	o->min_window_s = 60.0;
	o->active_params_b = NAN;
	o->max_warnings = 50;
}

/* A server's note (data/prom_json.c), once per text: the same partial
 * answer came with each of a page's ten queries (docs/fleet.md,
 * "Problems in the data"). A verdict: a partial answer may lack a host. */
static void
server_note(const char *msg, void *payload)
{
	wc_fleet *f = payload;
	if (wc_strmap_get(&f->server_said, msg, NULL))
		return;
	if (wc_strmap_put(&f->server_said, msg, 1) != WC_OK)
		return;
	wc__fleet_verdict(f, "%s", msg);
}

int
wc__fleet_query(wc_fleet *f, const char *url, const char *query, double start, double end, double step,
                const char *metric, wc_prom_set *set, wc_error *err)
{
	int rc = wc_prom_http_query_range(url, query, start, end, step, f->o.timeout_s, metric, set, server_note, f,
	                                  err);
	/* A server that aligns start to the step (VictoriaMetrics; Thanos or
	 * Mimir with align_queries_with_step) answers on another grid, whose
	 * values were taken as the steps asked for, 7 s late unsaid. Its
	 * times must lie on start + k x step, as a saved answer's must lie on
	 * the first's grid (docs/fleet.md, "Queries"). */
	long long a = llround(start * 1000.0), d = llround(step * 1000.0);
	for (size_t i = 0; rc == WC_OK && d > 0 && i < set->n; i++)
		for (size_t j = 0; j < set->s[i].n; j++) {
			long long t = llround(set->s[i].t[j] * 1000.0);
			if ((t - a) % d == 0)
				continue;
			char tt[40], ts[40], shown[WC_PROM_URL_SHOWN];
			wc_prom_format_time((double)t / 1000.0, tt, sizeof tt);
			wc_prom_format_time(start, ts, sizeof ts);
			wc_prom_url_mask(url, shown, sizeof shown);
			return wc_error_set(err, WC_EINVAL, "%.80s: a value at %s, off the grid asked for (every %.10g s "
			                    "from %s): the server aligns start to the step? give --start a multiple of "
			                    "--step", shown, tt, step, ts);
		}
	return rc;
}

int
wc__fleet_error(wc_error *err, int code, const char *series, const char *fmt, ...)
{
	char rest[WC_ERROR_MSG_MAX], head[WC_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	wc_error_vformat(rest, sizeof rest, fmt, ap);
	va_end(ap);
	wc_error_name_cut(series, wc_error_name_room(strlen(rest) + 2, 1), head, sizeof head);
	return wc_error_set(err, code, "%s: %s", head, rest);
}

int
wc_fleet_new(const wc_fleet_options *o, wc_fleet **out, wc_error *err)
{
	*out = NULL;
	if (!(isfinite(o->start) && isfinite(o->end) && isfinite(o->step)))
		return wc_error_set(err, WC_EINVAL, "start, end and step: unknown");
	if (!(o->step >= 0.001))
		return wc_error_set(err, WC_EINVAL, "step: must be >= 0.001 s");
	if (!(o->end >= o->start))
		return wc_error_set(err, WC_EINVAL, "end: before start");
	/* The grid's step count, here alone: (end - start) / step is whole
	 * for a grid's own end, but decimal times make it fall just short
	 * (1796559568.6 - 1796559249.3 over 3.1 s gives 102.99999998), and
	 * the floor dropped the last step with every value held there; a
	 * range of one 2.3 s step was refused as shorter than the step. A
	 * range within 1e-6 s of whole steps (far below Prometheus's
	 * milliseconds, as the samples' times are matched in fleet_samples.c)
	 * is whole steps (docs/fleet.md, "Queries"). */
	double q = (o->end - o->start) / o->step, whole = round(q);
	if (fabs(q - whole) * o->step <= 1e-6)
		q = whole;
	/* A step longer than the range made one row claiming the whole step,
	 * --step 1e9 a duration of 1e9 s from the files' first scrape alone:
	 * no row may claim more time than the range holds (docs/fleet.md). */
	if (q < 1.0) {
		char a[40], b[40];
		wc_prom_format_time(o->start, a, sizeof a);
		wc_prom_format_time(o->end, b, sizeof b);
		if (o->end == o->start)
			return wc_error_set(err, WC_EINVAL, "the range is one instant (%s): a later --end, or "
			                    "files with more than one power sample, gives it a length", a);
		return wc_error_set(err, WC_EINVAL, "--step %g s is longer than the range: --step %g or "
		                    "shorter (%s to %s, %g s)", o->step, floor((o->end - o->start) * 1000.0) / 1000.0,
		                    a, b, o->end - o->start);
	}
	double steps = floor(q) + 1.0;
	wc_fleet *f = calloc(1, sizeof *f);
	if (!f)
		return wc_error_set(err, WC_ENOMEM, "out of memory");
	f->o = *o;
	if (!isfinite(f->o.hold_s))
		f->o.hold_s = hold_default(o->step);
	f->n_steps = (size_t)steps;
	*out = f;
	return WC_OK;
}

/* The grid's steps beyond WC_FLEET_MAX_STEPS, refused naming the flags
 * that make them and what to give. Not in wc_fleet_new: files' scrape
 * interval is known before the first step is walked, and a step shorter
 * than it is refused first, with the step to take (--step 0.01 over a
 * year of 2 s scrapes is both; the interval's advice is the one that
 * helps). A server's interval needs a page fetched, so there the count
 * is checked before any query (docs/fleet.md, "Queries"). */
int
wc__fleet_count_check(const wc_fleet *f, wc_error *err)
{
	if ((double)f->n_steps <= WC_FLEET_MAX_STEPS)
		return WC_OK;
	char a[40], b[40];
	wc_prom_format_time(f->o.start, a, sizeof a);
	wc_prom_format_time(f->o.end, b, sizeof b);
	/* The least step in whole ms that leaves at most the limit. */
	double least = ceil((f->o.end - f->o.start) / (WC_FLEET_MAX_STEPS - 1.0) * 1000.0) / 1000.0;
	return wc_error_set(err, WC_EINVAL, "--start/--end/--step: %zu steps of %g s from %s to %s, more than the "
	                    "%.0e a range may hold: give a shorter range, or --step %.10g or longer", f->n_steps,
	                    f->o.step, a, b, WC_FLEET_MAX_STEPS, least);
}

static void
free_page(wc_fleet *f)
{
	free(f->cursor);
	free(f->metric);
	free(f->group);
	f->cursor = NULL;
	f->metric = NULL;
	f->group = NULL;
}

int
wc_fleet_feed(wc_fleet *f, const wc_prom_set *set, size_t k0, size_t k1, wc_error *err)
{
	if (k1 > f->n_steps)
		k1 = f->n_steps;
	free_page(f);
	size_t n = set->n ? set->n : 1;
	f->cursor = wc_alloc_array(n, sizeof *f->cursor);
	f->metric = wc_alloc_array(n, sizeof *f->metric);
	f->group = wc_alloc_array(n, sizeof *f->group);
	int rc = !f->cursor || !f->metric || !f->group ? wc_error_set(err, WC_ENOMEM, "out of memory")
	         : wc__fleet_assign(f, set, err);
	if (rc == WC_OK)
		rc = wc__fleet_check_interval(f, set, err);
	if (rc == WC_OK)
		rc = wc__fleet_count_check(f, err);
	if (rc == WC_OK && k0 < k1)
		rc = wc__fleet_steps(f, set, k0, k1, err);
	free_page(f);
	return rc;
}

/* Groups on a board the platform catalog lacks (--platform named it for
 * GPUs whose modelName the catalog does not know): said once, with the
 * note `predict` and run-folder ingest give (models/catalog.h,
 * wc_platform_unknown_note; docs/capacity.md, "A board the catalog
 * lacks"), as their rows are not held to a board limit. */
static void
warn_unknown_board(wc_fleet *f)
{
	size_t n = 0;
	const char *name = NULL;
	for (size_t i = 0; i < f->n_groups; i++)
		if (f->g[i].ever_gpu && f->g[i].platform[0] && !wc_platform_lookup(f->g[i].platform)) {
			name = name ? name : f->g[i].platform;
			n++;
		}
	if (name) {
		char note[160];
		wc__fleet_warn(f, "%zu group%s on %s: %s, so no power reading is checked against the board's limit", n,
		               n == 1 ? "" : "s", name, wc_platform_unknown_note(name, note, sizeof note));
	}
}

/* --platform where the GPUs' modelName names another platform of the
 * catalog: not applied, since it names the platform only for a modelName
 * the catalog lacks (docs/fleet.md, "Grouping"), and said as run-folder
 * ingest says a flag the run overrides (trace/ingest_files.c): `--platform
 * FOO` on H100 GPUs was accepted without a word. */
static void
warn_platform_unused(wc_fleet *f)
{
	if (!f->o.platform || !f->o.platform[0])
		return;
	const wc_platform_info *asked = wc_platform_lookup(f->o.platform);
	const char *name = asked ? asked->name : f->o.platform, *first = NULL, *on = NULL;
	size_t n = 0;
	for (size_t i = 0; i < f->n_groups; i++)
		if (f->g[i].ever_gpu && f->g[i].platform[0] && strcmp(f->g[i].platform, name) != 0) {
			first = first ? first : f->g[i].name;
			on = on ? on : f->g[i].platform;
			n++;
		}
	if (n)
		wc__fleet_warn(f, "--platform %.64s%s: not applied to %zu group%s ('%.40s' first): their GPUs' modelName "
		               "names %s, and what the data states wins over a flag", f->o.platform,
		               asked ? "" : " (not in the platform catalog)", n, n == 1 ? "" : "s", first, on);
}

/* A group of engines and no GPU: read, or left out for its engines (only
 * add_engine leaves a group out, fleet_groups.c). A group left out still
 * held engine series: `--group-by job` put all three vLLM servers in group
 * 'vllm', left out as two engines, and the GPUs in 'dcgm' were told there
 * was no engine series at all (docs/fleet.md, "Grouping"). */
static int
engines_only(const fleet_group *g)
{
	return (g->ever_engine || g->left_out[0]) && !g->ever_gpu && !g->left_gpu;
}

int
wc_fleet_finish(wc_fleet *f, wc_runs_table **out, wc_error *err)
{
	*out = NULL;
	int rc0 = wc__fleet_check_interval_end(f, err);
	if (rc0 != WC_OK)
		return rc0;
	/* No engine series in the whole range is no matter of grouping: the
	 * metric is named otherwise (vllm_num_requests_running) or --selector
	 * left it out, as "only engines'" says of power (docs/fleet.md,
	 * "Problems in the data"). --group-by was blamed. */
	int any_gpu = 0, any_engine = 0;
	for (size_t i = 0; i < f->n_groups; i++) {
		any_gpu |= f->g[i].ever_gpu;
		any_engine |= f->g[i].ever_engine || f->g[i].left_out[0];
	}
	char load[128];
	wc__fleet_load_names(load, sizeof load);
	if (any_gpu && !any_engine)
		return wc_error_set(err, WC_EINVAL, "no engine load series (%s) in the range, only GPU power: is the "
		                    "engine's metric named so, and does --selector match its series?", load);
	int read = 0;
	for (size_t i = 0; i < f->n_groups; i++)
		read |= f->g[i].ever_gpu && f->g[i].ever_engine;
	for (size_t i = 0; i < f->n_groups; i++) {
		fleet_group *g = &f->g[i];
		if (read && engines_only(g) && wc__fleet_unselected_engines(f, g))
			continue; /* the engines of GPUs --selector left out */
		/* A group left out (fleet_groups.c) is said beside the groups
		 * read; with none, it is the refusal (fleet_rows.c). */
		if (g->left_out[0] && read)
			wc__fleet_verdict(f, "%s", g->left_out);
		if (g->left_out[0])
			continue;
		if (g->ever_gpu && !g->ever_engine) {
			/* Engines whose groups have no GPU are named: scraped by IP
			 * (instance="10.0.0.5:8000") beside DCGM's Hostname, no
			 * --group-by joins them; relabelling does (docs/fleet.md,
			 * "Grouping"). */
			char only[80] = "";
			for (size_t j = 0; j < f->n_groups; j++)
				if (engines_only(&f->g[j]) && !f->g[j].host[0] && wc__fleet_by_host(f))
					return wc__fleet_error(err, WC_EINVAL, f->g[j].engine_series, "engine series without "
					                       "an 'instance' label, so no host; the GPUs of group '%.40s' "
					                       "have no engine series (keep the instance Prometheus adds, "
					                       "or --group-by a label both carry)", g->name);
			for (size_t j = 0; j < f->n_groups; j++)
				if (engines_only(&f->g[j]) && strlen(only) + strlen(f->g[j].name) + 6 < sizeof only)
					snprintf(only + strlen(only), sizeof only - strlen(only), "%s'%s'", only[0] ? ", " : "",
					         f->g[j].name);
			for (size_t j = 0; j < f->n_groups; j++) {
				char label[40], vg[40], ve[40];
				if (engines_only(&f->g[j]) && wc__fleet_label_apart(f, g, &f->g[j], label, vg, ve, sizeof label))
					return wc__fleet_error(err, WC_EINVAL, g->gpu_series, "GPU with no engine series in group "
					                       "'%.40s'; engines without GPUs in %s: the hosts match, --group-by "
					                       "label '%s' differs ('%s' on GPUs, '%s' on engines): leave it "
					                       "out", g->name, only, label, vg, ve);
			}
			for (size_t j = 0; j < f->n_groups; j++) {
				char rest[64];
				if (engines_only(&f->g[j]) && wc__fleet_host_apart(f, g, &f->g[j], rest, sizeof rest))
					/* The remedy before the list of groups, which
					 * pod names lengthen past the 255 bytes. */
					return wc__fleet_error(err, WC_EINVAL, g->gpu_series, "GPU with no engine series in group "
					                       "'%.40s': --group-by %s (only the hosts differ, an exporter's pod "
					                       "beside the engine's?); engines without GPUs in %s", g->name,
					                       rest, only);
			}
			if (only[0])
				return wc__fleet_error(err, WC_EINVAL, g->gpu_series, "GPU with no engine series in group '%.40s'; "
				                       "engines without GPUs in %s: relabel their host to DCGM's Hostname, "
				                       "or --group-by", g->name, only);
			/* Every engine has its GPUs and these have none: GPUs no
			 * engine uses (a node's free GPU under Kubernetes, where
			 * DCGM gives it the exporter's own namespace and pod). No
			 * --group-by joins them to an engine, and refusing them
			 * refused the whole fleet naming --group-by; they are left
			 * out, said (docs/fleet.md, "Grouping"). With no group
			 * read there is nothing to keep, and it stays refused. */
			if (read && wc__fleet_unselected_gpus(f, g))
				continue;
			if (read) {
				char series[80];
				wc_error_name_cut(g->gpu_series, 60, series, sizeof series);
				wc__fleet_verdict(f, "%s: GPU with no engine series in group '%.40s', and every engine has "
				               "GPUs: %zu GPU series no engine uses, left out (--selector drops them from "
				               "the queries)", series, g->name, g->n_gpus);
				continue;
			}
			return wc__fleet_error(err, WC_EINVAL, g->gpu_series,
			                       "GPU with no engine series: no %s of group '%s' (--group-by matches "
			                       "them differently)", load, g->name);
		}
		if (!g->ever_gpu && g->ever_engine)
			wc__fleet_verdict(f, "%.160s: engine with no GPU series (DCGM_FI_DEV_POWER_USAGE) in "
			               "group '%s': left out", g->engine_series, g->name);
		if (f->n_steps)
			wc__fleet_range_end(f, g);
		int rc = wc__fleet_close(f, g, err);
		if (rc != WC_OK)
			return rc;
		if (f->n_steps)
			wc__fleet_partial_end(f, g, f->o.start + (double)(f->n_steps - 1) * f->o.step);
		if (g->n_power_dropped > 1)
			wc__fleet_warn(f, "group '%s': %zu power samples in all not averaged (beyond the plausible 0 "
			               "to %.0f W per GPU; the first is named above)", g->name, g->n_power_dropped,
			               WC_TELEMETRY_MAX_POWER_W);
		if (g->n_mixed > 1)
			wc__fleet_warn(f, "group '%s': %zu steps in all (%.10g s) left out of the rows where the load "
			               "changed within them; the first is named above", g->name, g->n_mixed,
			               (double)g->n_mixed * f->o.step);
	}
	wc__fleet_say_in_use(f);
	wc__fleet_say_unselected(f);
	warn_unknown_board(f);
	warn_platform_unused(f);
	wc__fleet_say_model_unused(f);
	return wc__fleet_table(f, out, err);
}

void
wc_fleet_free(wc_fleet *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_groups; i++) {
		fleet_group *g = &f->g[i];
		wc__fleet_members_free(g);
		for (int m = 0; m < WC_FLEET_N_METRICS; m++)
			for (int k = 0; k < FLEET_MAX_ENGINES; k++)
				free(g->slot_key[m][k]);
		free(g->pending);
		free(g->gpus);
		free(g->fb);
		free(g->fbs);
	}
	free(f->g);
	wc_strmap_free(&f->group_index);
	wc_strmap_free(&f->server_said);
	free(f->rows);
	free_page(f);
	free(f);
}
