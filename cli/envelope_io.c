/*
 * `wattcast envelope`, files out and text: the band written as CSV and as
 * an SVG chart (band, mean and a measured trace), atomically; the length
 * and rate-profile flags; the summary and plan lines. The files read in
 * are cli/envelope_logs.c's.
 */
#include "cli_envelope.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/data.h"
#include "models/grow.h"

void
cli_envelope_inputs_free(cli_envelope_inputs *in)
{
	free(in->arrival_s);
	free(in->arrival_in);
	free(in->arrival_out);
	free(in->series);
	free(in->series_hold);
	free(in->in_values);
	free(in->out_values);
	free(in->profile_until);
	free(in->profile_rate);
	free(in->measured_t);
	free(in->measured_w);
	free(in->warnings);
	memset(in, 0, sizeof *in);
}

/* --------------------------------------------------------------- CSV */

int
cli_write_band_csv(const char *cmd, const char *path, const wc_envelope_result *r, const cli_envelope_inputs *in)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return cli_fail(cmd, "out of memory");
	const wc_envelope_band *s = &r->server_band, *fl = &r->fleet_band;
	const int meas = in && in->n_measured > 0; /* --measured: the run's own power beside the band, as the SVG has it */
	fprintf(f, "t_s,mean_w,p5_w,p95_w,mean_running%s%s\n",
	        r->fleet_size > 1 ? ",fleet_mean_w,fleet_p5_w,fleet_p95_w,fleet_mean_running" : "",
	        meas ? ",measured_w" : "");
	size_t i = 0;
	for (size_t k = 0; k < s->n_bins; k++) {
		fprintf(f, "%.3f,%.10g,%.10g,%.10g,%.10g", s->t_s[k], s->mean_w[k], s->p5_w[k], s->p95_w[k],
		        s->mean_running[k]);
		if (r->fleet_size > 1)
			fprintf(f, ",%.10g,%.10g,%.10g,%.10g", fl->mean_w[k], fl->p5_w[k], fl->p95_w[k],
			        fl->mean_running[k]);
		if (meas) { /* the mean of the samples in [t, t + bin); empty where none */
			double sum = 0.0, end = s->t_s[k] + s->bin_s;
			size_t n = 0;
			for (; i < in->n_measured && in->measured_t[i] < end; i++)
				if (in->measured_t[i] >= s->t_s[k]) {
					sum += in->measured_w[i];
					n++;
				}
			if (n)
				fprintf(f, ",%.10g", sum / (double)n);
			else
				fputc(',', f);
		}
		fputc('\n', f);
	}
	return cli_write_memstream(cmd, path, f, &buf, &len);
}

/* --------------------------------------------------------------- SVG */

typedef struct {
	double x0, x1, y0, y1;  /* data ranges */
	double w, h, left, top; /* plot area in px */
} frame;

static double
px(const frame *fr, double x)
{
	return fr->left + (x - fr->x0) / (fr->x1 - fr->x0) * fr->w;
}

static double
py(const frame *fr, double y)
{
	return fr->top + fr->h - (y - fr->y0) / (fr->y1 - fr->y0) * fr->h;
}

/* Text for an SVG element: XML's special characters escaped. */
static void
svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void
svg_axes(FILE *f, const frame *fr, const char *title)
{
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">", fr->left);
	svg_text(f, title);
	fputs("</text>\n", f);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n",
	        fr->left, fr->top, fr->w, fr->h);
	/* ticks on round values, each label its own position (a fifth of a
	 * 6.5-s axis, 1.3 s, printed "1" sat 0.3 s from its label) */
	double t[16];
	int dec, n = cli_svg_ticks(fr->y0, fr->y1, 5, t, 16, &dec);
	for (int i = 0; i < n; i++)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.*f</text>\n",
		        fr->left - 4, py(fr, t[i]) + 4, dec, t[i]);
	n = cli_svg_ticks(fr->x0, fr->x1, 5, t, 16, &dec);
	for (int i = 0; i < n; i++)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.*f</text>\n",
		        px(fr, t[i]), fr->top + fr->h + 15, dec, t[i]);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">time (s)</text>\n",
	        fr->left + fr->w / 2, fr->top + fr->h + 32);
	fprintf(f, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 14 %.1f)\" "
	        "text-anchor=\"middle\">power (W)</text>\n", fr->top + fr->h / 2, fr->top + fr->h / 2);
}

/* A bin's point: the middle of its span within the horizon, so a last
 * bin the horizon cuts (6.0-6.5 s of 1-s bins) is drawn at 6.25 s, not
 * past the axis's end (docs/envelopes.md, "Outputs"). */
static double
bin_mid(const frame *fr, const wc_envelope_band *b, size_t k)
{
	return px(fr, 0.5 * (b->t_s[k] + fmin(b->t_s[k] + b->bin_s, fr->x1)));
}

static void
svg_band(FILE *f, const frame *fr, const wc_envelope_band *b)
{
	fprintf(f, "<polygon fill=\"#9ecae1\" fill-opacity=\"0.6\" stroke=\"none\" points=\"");
	for (size_t k = 0; k < b->n_bins; k++)
		fprintf(f, "%.1f,%.1f ", bin_mid(fr, b, k), py(fr, b->p95_w[k]));
	for (size_t k = b->n_bins; k-- > 0;)
		fprintf(f, "%.1f,%.1f ", bin_mid(fr, b, k), py(fr, b->p5_w[k]));
	fprintf(f, "\"/>\n<polyline fill=\"none\" stroke=\"#08519c\" stroke-width=\"1.5\" points=\"");
	for (size_t k = 0; k < b->n_bins; k++)
		fprintf(f, "%.1f,%.1f ", bin_mid(fr, b, k), py(fr, b->mean_w[k]));
	fprintf(f, "\"/>\n");
}

/* The time axis is the horizon's, as the CSV's and JSON's t_s are. */
static void
svg_range(const wc_envelope_band *b, const cli_envelope_inputs *in, double horizon_s, frame *fr)
{
	fr->x0 = 0;
	fr->x1 = horizon_s > 0 ? horizon_s : 1;
	fr->y0 = INFINITY;
	fr->y1 = -INFINITY;
	for (size_t k = 0; k < b->n_bins; k++) {
		fr->y0 = fmin(fr->y0, b->p5_w[k]);
		fr->y1 = fmax(fr->y1, b->p95_w[k]);
	}
	for (size_t i = 0; i < in->n_measured; i++) {
		fr->y0 = fmin(fr->y0, in->measured_w[i]);
		fr->y1 = fmax(fr->y1, in->measured_w[i]);
	}
	fr->y0 = fmax(0.0, floor(fr->y0 / 50.0) * 50.0);
	fr->y1 = ceil(fr->y1 / 50.0) * 50.0 + 50.0;
}

int
cli_write_band_svg(const char *cmd, const char *path, const wc_envelope_result *r,
                   const cli_envelope_inputs *in, double horizon_s, const char *title)
{
	/* The run measured one server: beside its trace, the one server's band,
	 * not a fleet's K times higher (docs/envelopes.md, "Replaying a
	 * measured run"); the CSV and JSON keep the fleet's beside it. */
	const int one = r->fleet_size > 1 && in->n_measured > 0;
	const wc_envelope_band *b = r->fleet_size > 1 && !one ? &r->fleet_band : &r->server_band;
	frame fr = { 0, 1, 0, 1, 820, 360, 70, 40 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return cli_fail(cmd, "out of memory");
	svg_range(b, in, horizon_s, &fr);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"920\" height=\"460\" "
	        "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	svg_axes(f, &fr, title);
	svg_band(f, &fr, b);
	if (in->n_measured) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1\" points=\"");
		for (size_t i = 0; i < in->n_measured && in->measured_t[i] <= fr.x1; i++) /* the axis's span */
			fprintf(f, "%.1f,%.1f ", px(&fr, in->measured_t[i]), py(&fr, in->measured_w[i]));
		fprintf(f, "\"/>\n");
	}
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\" fill=\"#08519c\">mean over replicas; band: %s"
	        "5th-95th percentile per %g s bin%s</text>\n", fr.left, fr.top + fr.h + 50,
	        one ? "one server's (the run measured one; the fleet's is in --csv, --json) " : "", b->bin_s,
	        in->n_measured ? "; red: measured" : "");
	fprintf(f, "</svg>\n");
	return cli_write_memstream(cmd, path, f, &buf, &len);
}

/* ------------------------------------------------ flags and text */

int
cli_parse_length(const char *cmd, const char *flag, const char *spec, int output, wc_length_dist *d,
                 cli_envelope_inputs *in)
{
	char *end;
	if (strncmp(spec, "lognormal:", 10) == 0) {
		d->kind = WC_LENGTH_LOGNORMAL;
		d->mean = strtod(spec + 10, &end);
		if (*end != ':' || (d->sd = strtod(end + 1, &end), *end != '\0'))
			return cli_usage_error(cmd, "%s: expected lognormal:MEAN:SD, got '%s'", flag, spec);
		return CLI_OK;
	}
	if (strncmp(spec, "empirical:", 10) == 0) {
		d->kind = WC_LENGTH_EMPIRICAL;
		if (cli_read_lengths(cmd, flag, spec + 10, output, in) != CLI_OK)
			return CLI_FAIL; /* a refused file: exit 1 (docs/cli.md) */
		d->values = output ? in->out_values : in->in_values;
		d->n_values = output ? in->n_out_values : in->n_in_values;
		return CLI_OK;
	}
	d->kind = WC_LENGTH_FIXED;
	return cli_parse_double(cmd, flag, spec, 1, 1, &d->mean);
}

int
cli_parse_rate_profile(const char *cmd, const char *spec, cli_envelope_inputs *in)
{
	size_t n = 1;
	for (const char *p = spec; *p; p++)
		n += *p == ',';
	in->profile_until = wc_alloc_zeroed(n, sizeof(double));
	in->profile_rate = wc_alloc_zeroed(n, sizeof(double));
	if (!in->profile_until || !in->profile_rate)
		return cli_fail(cmd, "out of memory");
	const char *p = spec;
	for (size_t i = 0; i < n; i++) {
		char *end;
		in->profile_until[i] = strtod(p, &end);
		if (end == p || *end != ':')
			return cli_usage_error(cmd, "--rate-profile: expected UNTIL:RATE,..., got '%s'", spec);
		p = end + 1;
		in->profile_rate[i] = strtod(p, &end);
		if (end == p || (*end != ',' && *end != '\0'))
			return cli_usage_error(cmd, "--rate-profile: expected UNTIL:RATE,..., got '%s'", spec);
		p = end + (*end == ',');
	}
	in->n_profile = n;
	return CLI_OK;
}

void
cli_print_envelope_interval(const wc_envelope_interval *iv, const wc_power_map *pm)
{
	if (!isfinite(iv->mean_lo) && !isfinite(iv->p95_lo)) {
		printf("  95 %% predictive interval: none (%s; the spread above is the simulation's, not an interval)\n",
		       pm->has_pe ? WC_ENVELOPE_IDLE : WC_ENVELOPE_NO_PE);
		return;
	}
	printf("  95 %% predictive interval (%sthe law's %s, %s/%s, %d runs; not the Monte-Carlo spread):"
	       " mean_w [%.5g, %.5g] W, p95_w [%.5g, %.5g] W\n", wc_power_map_draws_covered(iv->draws),
	       wc_power_map_covers(pm), pm->pe.platform[0] ? pm->pe.platform : "pooled",
	       pm->pe.source[0] ? pm->pe.source : "any", pm->pe.n, iv->mean_lo, iv->mean_hi, iv->p95_lo, iv->p95_hi);
}

void
cli_print_envelope_summary(const char *title, const wc_envelope_summary *s, int replicas,
                           const wc_envelope_options *o, const wc_trace_metrics *meas)
{
	/* The spread of the simulation's replicas, not an interval for the
	 * prediction (docs/envelopes.md, "Outputs"); one replica has none,
	 * and its "[x, x]" read as no simulation uncertainty at all. */
	printf("%s%*s %12s  %s%s\n", title, (int)(30 - strlen(title)), "", "value",
	       replicas > 1 ? "Monte-Carlo spread [5 %, 95 %] over replicas" : "one replica: no Monte-Carlo spread",
	       meas ? "   measured" : "");
	/* why a metric can be undefined (docs/trace-metrics.md): JSON's null is
	 * "none" here with the reason, never "nan" */
	/* A ramp needs samples spanning two whole seconds (docs/trace-metrics.md):
	 * the horizon's samples at the grid's cadence may span less, or the
	 * cadence asked leaves too few (a 3-s horizon sampled every 1.5 s). */
	char ramp[160];
	const size_t ns = wc_envelope_samples(o->horizon_s, o->sample_s);
	const double span = ns > 0 ? (double)(ns - 1) * o->sample_s : 0.0;
	const size_t fine = wc_envelope_samples(o->horizon_s, WC_ENVELOPE_GRID_S);
	if (fine > 0 && (double)(fine - 1) * WC_ENVELOPE_GRID_S >= 2.0)
		snprintf(ramp, sizeof ramp, "a ramp needs samples spanning two whole seconds: %zu samples every %g s "
		         "(--sample) span %g s", ns, o->sample_s, span);
	else
		snprintf(ramp, sizeof ramp, "a ramp needs samples spanning two whole seconds, more than a %g s "
		         "horizon holds", o->horizon_s);
	const char *entropy = "fewer than 8 samples of the metrics' cadence, or a constant trace";
	const char *token = "no output tokens served: an n(t) has no requests, and a short horizon may serve none "
	                    "(a replayed request of 0 output tokens generates none)";
	const struct { const char *n; const wc_envelope_stat *v; double m; const char *u, *why; } rows[] = {
		{ "mean_w", &s->mean_w, meas ? meas->mean_w : NAN, "W", "" },
		{ "p5_w", &s->p5_w, meas ? meas->p5_w : NAN, "W", "" },
		{ "p50_w", &s->p50_w, meas ? meas->p50_w : NAN, "W", "" },
		{ "p95_w", &s->p95_w, meas ? meas->p95_w : NAN, "W", "" },
		{ "max_w", &s->max_w, meas ? meas->max_w : NAN, "W", "" },
		{ "ramp_w_per_s", &s->ramp_w_per_s, meas ? meas->ramp_w_per_s : NAN, "W/s", ramp },
		{ "ramp_p95_w_per_s", &s->ramp_p95_w_per_s, meas ? meas->ramp_p95_w_per_s : NAN, "W/s", ramp },
		{ "spectral_entropy", &s->spectral_entropy, meas ? meas->spectral_entropy : NAN, "", entropy },
		{ "energy_j", &s->energy_j, meas ? meas->energy_j : NAN, "J", "" },
		{ "energy_per_output_token_j", &s->energy_per_token_j, NAN, "J", token },
		{ "mean_running", &s->mean_running, NAN, "", "" },
		{ "output_tokens", &s->output_tokens, NAN, "", "" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		if (!isfinite(rows[i].v->value))
			printf("  %-28s %12s  (%s)", rows[i].n, "none", rows[i].why[0] ? rows[i].why : "undefined here");
		else if (replicas > 1)
			printf("  %-28s %12.5g  [%.5g, %.5g] %-3s", rows[i].n, rows[i].v->value, rows[i].v->lo,
			       rows[i].v->hi, rows[i].u);
		else
			printf("  %-28s %12.5g  %-3s", rows[i].n, rows[i].v->value, rows[i].u);
		if (isfinite(rows[i].m))
			printf(" %10.5g", rows[i].m);
		putchar('\n');
	}
}

void
cli_envelope_runs_text(const wc_envelope_workload *w, const wc_envelope_options *o, int budget, int once,
                       char *buf, size_t cap)
{
	/* the kinds run once (predict/envelope_once.c) */
	const char *what = w->kind == WC_ENVELOPE_SERIES ? "an n(t)" : w->kind == WC_ENVELOPE_CLOSED
	                   ? "a closed loop of fixed lengths" : "the replay";
	/* a plan of a workload that draws nothing uses no seed either
	 * (docs/envelopes.md, "Budget plans"): its lockstep servers are one
	 * simulated once, as the envelope's; a shared arrival process splits it
	 * afresh per probe, the same for any seed */
	const int plan_fixed = budget && wc_envelope_draws_nothing(w);
	if (plan_fixed && !wc_envelope_fleet_lockstep(w, o->fleet_mode))
		snprintf(buf, cap, " x one path per fleet size probed: %s draws nothing at random, so --seed changes "
		         "nothing", what);
	else if (once || plan_fixed)
		snprintf(buf, cap, ", simulated once: %s draws nothing at random, so --seed and --replicas change "
		         "nothing", what);
	else /* a budget plan simulates one path per probe, not replicas */
		snprintf(buf, cap, " x %s%.0d%s (seed %llu)", budget ? "one path per fleet size probed" : "",
		         budget ? 0 : o->replicas, budget ? "" : " replicas", (unsigned long long)o->seed);
}

void
cli_print_budget_plan(const wc_budget_options *bo, const wc_budget_plan *plan, const char *mode, double secs,
                      const wc_power_map *pm)
{
	/* the budget as given (the shortest text that reads back as it) and
	 * the statistics to the digit that decides the comparison (4000 W is
	 * over 3999.999 W; docs/cli.md) */
	const char *stat = bo->stat == WC_BUDGET_MAX ? "max" : "p95";
	char bt[32], st[32];
	wc_num_text(bt, bo->budget_w);
	if (plan->fleet_size == 0)
		printf("budget plan: 0 servers: not even one keeps the aggregate %s of %g s means <= %s W", stat,
		       bo->bin_s, bt); /* no statistic at 0 servers to print */
	else
		printf("budget plan: %d server%s (%s) keep%s the aggregate %s of %g s means at %s W <= %s W",
		       plan->fleet_size, plan->fleet_size == 1 ? "" : "s", mode,
		       plan->fleet_size == 1 ? "s" : "", stat, bo->bin_s,
		       wc_budget_stat_text(st, plan->stat_w, bo->budget_w), bt);
	if (plan->fleet_size == 0 && isfinite(plan->next_stat_w))
		printf(" (one server draws %s W)", wc_budget_stat_text(st, plan->next_stat_w, bo->budget_w));
	else if (isfinite(plan->next_stat_w))
		printf("; %d would draw %s W", plan->fleet_size + 1,
		       wc_budget_stat_text(st, plan->next_stat_w, bo->budget_w));
	if (plan->at_bound && plan->simulation_bound)
		printf("; the search stopped at the simulation's limit, %d servers sharing one arrival process over "
		       "this horizon (below --max-fleet %d)", plan->search_bound, bo->max_fleet);
	else if (plan->at_bound)
		printf("; the search bound --max-fleet %d was reached", bo->max_fleet);
	if (isfinite(plan->stat_hi_w))
		printf("\n95 %% predictive interval of that %s (%sthe law's %s, not the Monte-Carlo spread): "
		       "[%.6g, %.6g] W%s", stat, wc_power_map_draws_covered(plan->stat_draws),
		       wc_power_map_covers(pm), plan->stat_lo_w,
		       plan->stat_hi_w,
		       plan->stat_hi_w > bo->budget_w ? "; its upper end is over the budget: the plan holds at the "
		                                        "estimate, not at the interval's top" : "");
	else if (plan->fleet_size > 0)
		printf("\n95 %% predictive interval of that %s: none (%s)", stat,
		       pm->has_pe ? WC_ENVELOPE_IDLE : WC_ENVELOPE_NO_PE);
	printf("\n%d fleet size%s probed, %d server%s simulated, %.3f s\n", plan->probes, plan->probes == 1 ? "" : "s",
	       plan->servers_simulated, plan->servers_simulated == 1 ? "" : "s", secs);
	for (int i = 0; i < plan->n_warnings; i++)
		printf("warning: %s\n", plan->warnings[i]);
}
