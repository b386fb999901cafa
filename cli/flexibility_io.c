/*
 * `wattcast predict flexibility`: the sweep (predict/flexibility.h) for
 * people, as JSON (the API's object), as CSV (one row per step) and as an
 * SVG plot of node power against throughput with the knee marked
 * (docs/capacity.md, "Power flexibility"). Files are written atomically.
 */
#include "cli_flexibility.h"
#include "data/data.h"
#include "server/server.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
print_human(const wc_inference_query *q, const wc_flexibility *f, const char *name, const char *version)
{
	const wc_config *c = &q->config;
	/* the requests that run, as predict inference's header gives them: a
	 * concurrency the KV cache holds fewer of runs fewer, an open loop its
	 * mean at the unconstrained point (docs/cli.md, "predict flexibility") */
	char load[64] = "";
	if (c->request_rate > 0)
		snprintf(load, sizeof load, "rate %g, ", c->request_rate);
	printf("platform %s, tp %d, active params %g B, %s input + %s output tokens, %srunning %g, engine %s\n",
	       c->platform, c->tp, c->active_params_b, WC_NUM_TEXT(c->input_tokens), WC_NUM_TEXT(c->output_tokens), load, f->ref_mean_running,
	       wc_config_engine(c));
	printf("  unconstrained: node power %.1f W, throughput %.5g tokens/s, energy per output token %.4g J, "
	       "latency %.4g s\n", f->ref_node_power_w, f->ref_throughput_tok_s, f->ref_energy_per_output_token_j,
	       f->ref_latency_s);
	/* each quantity's interval with what it covers, or "none" and why, as
	 * the JSON's covers_by_quantity says it (docs/capacity.md, "Power
	 * flexibility"): never a NaN range */
	static const struct { const char *name, *fmt, *unit; } iq[WC_FLEX_IQ] = {
		[WC_FLEX_POWER] = { "node power", "%.1f-%.1f", "W" },
		[WC_FLEX_THROUGHPUT] = { "throughput", "%.5g-%.5g", "tokens/s" },
		[WC_FLEX_E_TOKEN] = { "energy per output token", "%.4g-%.4g", "J" },
		[WC_FLEX_LATENCY] = { "latency", "%.4g-%.4g", "s" },
	};
	printf("  95 %% interval of the unconstrained point (each step's: --json, --csv)%s:\n",
	       f->n_draws > 0 ? "" : ", no parameter draws");
	for (int k = 0; k < WC_FLEX_IQ; k++) {
		const char *covers = f->covers[k] ? f->covers[k] : "none";
		printf("    %s ", iq[k].name);
		if (isfinite(f->ref_lo[k]) && isfinite(f->ref_hi[k])) {
			printf(iq[k].fmt, f->ref_lo[k], f->ref_hi[k]);
			printf(" %s (covers %s)\n", iq[k].unit, covers);
		} else {
			printf("%s\n", strncmp(covers, "none", 4) == 0 ? covers : "none");
		}
	}
	/* the running count's, as predict inference gives it */
	if (isfinite(f->ref_running_lo) && isfinite(f->ref_running_hi))
		printf("    mean running requests %.4g-%.4g (covers %s)\n", f->ref_running_lo, f->ref_running_hi,
		       f->running_covers ? f->running_covers : "none");
	else
		printf("    mean running requests %s\n", f->running_covers ? f->running_covers : "none");
	printf("  %9s %11s %10s %9s %12s %9s %10s %7s\n", "clock MHz", "cap W/GPU", "node W", "shed W", "tokens/s",
	       "lost %", "J/token", "PFI");
	for (int i = 0; i < f->n_steps; i++) {
		const wc_flex_step *s = &f->steps[i];
		printf("  %9.0f %11.1f %10.1f %9.1f %12.5g %9.2f %10.4g ", s->sm_clock_mhz, s->power_cap_w, s->node_power_w,
		       s->power_shed_w, s->throughput_tok_s, s->throughput_lost_pct, s->energy_per_output_token_j);
		if (isfinite(s->pfi))
			printf("%7.3g", s->pfi);
		else
			printf("%7s", "-");
		/* numbers at capacity: the rate is not served there (docs/capacity.md, "Power flexibility") */
		printf("%s\n", s->over_capacity ? "  over capacity" : "");
	}
	/* a knee no cap holds is given as its clock alone (docs/capacity.md, "Power flexibility") */
	if (isnan(f->energy_optimal_clock_mhz))
		printf("  knee none, energy-optimal clock none: no step serves the rate\n");
	else if (isfinite(f->knee_power_cap_w))
		printf("  knee %.0f MHz (cap %.1f W per GPU); energy-optimal clock %.0f MHz\n", f->knee_clock_mhz,
		       f->knee_power_cap_w, f->energy_optimal_clock_mhz);
	else
		printf("  knee %.0f MHz (lock the clock: its cap column does not hold it); energy-optimal clock %.0f MHz\n",
		       f->knee_clock_mhz, f->energy_optimal_clock_mhz);
	printf("  PFI: fraction of power shed per fraction of throughput lost ('-': nothing lost)\n");
	printf("  parameters     %s (%s)\n", name, version);
	printf("  level source   power %s, capacity %s\n", f->level_source ? f->level_source : "-",
	       f->capacity_level_source ? f->capacity_level_source : "-");
	for (int i = 0; i < f->n_warnings; i++)
		printf("  warning: %s\n", f->warnings[i]);
}

static int
write_csv(const char *cmd, const char *path, const wc_flexibility *fl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return cli_fail(cmd, "out of memory");
	fprintf(f, "sm_clock_mhz,power_cap_w,node_power_w,throughput_tok_s,energy_per_output_token_j,latency_s,"
	           "power_shed_w,throughput_lost_pct,pfi,knee,energy_optimal,node_power_lo_w,node_power_hi_w,"
	           "throughput_lo_tok_s,throughput_hi_tok_s,energy_per_output_token_lo_j,energy_per_output_token_hi_j,"
	           "latency_lo_s,latency_hi_s,over_capacity\n");
	for (int i = 0; i < fl->n_steps; i++) {
		const wc_flex_step *s = &fl->steps[i];
		fprintf(f, "%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,", s->sm_clock_mhz, s->power_cap_w,
		        s->node_power_w, s->throughput_tok_s, s->energy_per_output_token_j, s->latency_s, s->power_shed_w,
		        s->throughput_lost_pct);
		if (isfinite(s->pfi))
			fprintf(f, "%.10g", s->pfi);
		fprintf(f, ",%d,%d", s->sm_clock_mhz == fl->knee_clock_mhz, s->sm_clock_mhz == fl->energy_optimal_clock_mhz);
		/* the 95 % intervals, blank where there is none */
		for (int k = 0; k < WC_FLEX_IQ; k++)
			if (isfinite(s->lo[k]))
				fprintf(f, ",%.10g,%.10g", s->lo[k], s->hi[k]);
			else
				fprintf(f, ",,");
		fprintf(f, ",%d\n", s->over_capacity);
	}
	return cli_write_memstream(cmd, path, f, &buf, &len);
}

/* Node power (y) against throughput (x); the knee circled in red. */
static int
write_svg(const char *cmd, const char *path, const wc_flexibility *fl, const wc_config *c)
{
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	const double L = 80, T = 40, W = 780, H = 360;
	for (int i = 0; i < fl->n_steps; i++) {
		x0 = fmin(x0, fl->steps[i].throughput_tok_s);
		x1 = fmax(x1, fl->steps[i].throughput_tok_s);
		y0 = fmin(y0, fl->steps[i].node_power_w);
		y1 = fmax(y1, fl->steps[i].node_power_w);
	}
	if (!(x1 > x0))
		x1 = x0 + 1;
	if (!(y1 > y0))
		y1 = y0 + 1;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return cli_fail(cmd, "out of memory");
#define PX(v) (L + ((v) - x0) / (x1 - x0) * W)
#define PY(v) (T + H - ((v) - y0) / (y1 - y0) * H)
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"920\" height=\"470\" font-family=\"sans-serif\">\n"
	           "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"22\" font-size=\"14\">Power flexibility: %s, %s, tp %d (%s sweep)</text>\n", L,
	        c->platform, c->arch && c->arch->name ? c->arch->name : "model", c->tp, fl->by_cap ? "power-cap" : "clock");
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#444\"/>\n", L, T, W, H);
	double t[16]; /* round ticks, each label its own position (cli_svg_ticks) */
	int dec, n = cli_svg_ticks(x0, x1, 4, t, 16, &dec);
	for (int i = 0; i < n; i++)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%.*f</text>\n", PX(t[i]),
		        T + H + 15, dec, t[i]);
	n = cli_svg_ticks(y0, y1, 4, t, 16, &dec);
	for (int i = 0; i < n; i++)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%.*f</text>\n", L - 4,
		        PY(t[i]) + 4, dec, t[i]);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">throughput (output tokens/s)</text>\n",
	        L + W / 2, T + H + 34);
	fprintf(f, "<text x=\"16\" y=\"%.0f\" font-size=\"12\" transform=\"rotate(-90 16 %.0f)\" text-anchor=\"middle\">"
	           "node power (W)</text>\n", T + H / 2, T + H / 2);
	fprintf(f, "<polyline fill=\"none\" stroke=\"#08519c\" stroke-width=\"1.5\" points=\"");
	for (int i = 0; i < fl->n_steps; i++)
		fprintf(f, "%.1f,%.1f ", PX(fl->steps[i].throughput_tok_s), PY(fl->steps[i].node_power_w));
	fprintf(f, "\"/>\n");
	for (int i = 0; i < fl->n_steps; i++) {
		const wc_flex_step *s = &fl->steps[i];
		int knee = s->sm_clock_mhz == fl->knee_clock_mhz;
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>%.0f MHz, %.1f W, %.5g tokens/s"
		           "</title></circle>\n", PX(s->throughput_tok_s), PY(s->node_power_w), knee ? 6 : 3,
		        knee ? "#d62728" : "#08519c", s->sm_clock_mhz, s->node_power_w, s->throughput_tok_s);
		if (knee)
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#d62728\">knee %.0f MHz</text>\n",
			        PX(s->throughput_tok_s) + 8, PY(s->node_power_w) - 8, s->sm_clock_mhz);
	}
#undef PX
#undef PY
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">one point per step, highest clock at the top right; "
	           "below the knee throughput falls faster than power</text>\n</svg>\n", L, T + H + 52);
	return cli_write_memstream(cmd, path, f, &buf, &len);
}

int
cli_flexibility_run(const char *cmd, const wc_params *params, const wc_inference_query *q, const cli_flex_options *o)
{
	wc_predictor *pred = NULL;
	wc_error err;
	char version[17];
	int rc = CLI_OK;
	wc_flexibility *fl = malloc(sizeof *fl);
	if (!fl)
		return cli_fail(cmd, "out of memory");
	if (wc_predictor_new(params, &pred, &err) != WC_OK || wc_params_fingerprint(params, version, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
	} else if (wc_predict_flexibility(pred, q, o->by_cap, o->steps, fl, &err) != WC_OK) {
		rc = o->config_error(cmd, &err);
	} else {
		wc_predict_note_ignored(fl->warnings, &fl->n_warnings, o->price_per_kwh, o->grams_co2_per_kwh, 0,
		                        WC_IGNORED_SWEEP);
		if (o->json) {
			char *s = wc_render_flexibility(q, fl, version, 2, &err);
			if (s)
				puts(s);
			else
				rc = cli_fail(cmd, "%s", err.msg);
			free(s);
		} else {
			print_human(q, fl, params->name, version);
		}
		if (rc == CLI_OK && o->csv)
			rc = write_csv(cmd, o->csv, fl);
		if (rc == CLI_OK && o->svg)
			rc = write_svg(cmd, o->svg, fl, &q->config);
	}
	wc_predictor_free(pred);
	free(fl);
	return rc;
}
