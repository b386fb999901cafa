/*
 * Where a calibration's idle power P0 comes from (docs/calibration.md): a
 * new level's (platform scope), and a model term's (model scope), which
 * answers naming the model on the level take as P0, since its shift was
 * fitted above it.
 */
#include "calibrate_internal.h"
#include "models/catalog.h"
#include "models/warnings.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The idle given (--idle-power, the body's idle_power_w) held to the bound
 * a run's idle_power_w is held to (wc_params_check_idle, docs/cli.md
 * "calibrate"), refused naming the option as its caller spells it: the
 * words' first token ("--idle-power", "idle_power_w", which the server
 * maps to /idle_power_w). A refusal marks out->idle_refused: the caller's
 * option is at fault, not a run, and a caller that calibrates many times
 * (validate fewshot) refuses with it as calibrate does. */
static int
check_given_idle(const wc_calibrate_options *o, const char *level, const char *shared_with,
                 wc_calibrate_result *out, wc_error *err)
{
	const char *w = wc__cal_words(o)->idle_power;
	char field[48];
	snprintf(field, sizeof field, "%.*s", (int)strcspn(w, " "), w);
	if (wc_params_check_idle(level, shared_with, o->idle_power_w, field, err) == WC_OK)
		return WC_OK;
	out->idle_refused = 1;
	return WC_EINVAL;
}

/* P0 of the new level: the runs' measured idle, else the option, else the
 * platform catalog's typical idle, else the estimate from the platform's
 * power limit (docs/fitting.md); the last two say so. */
int
wc__cal_new_level_p0(const cal_setup *s, const wc_calibrate_options *o, const char *name, wc_param *p0,
                     wc_calibrate_result *out, wc_error *err)
{
	double sum = 0;
	int n = 0, synth = 0;
	const char *give = wc__cal_words(o)->idle_power;
	for (int i = 0; i < s->n_runs; i++)
		if (isfinite(s->runs[i].run->idle_power_w)) {
			sum += s->runs[i].run->idle_power_w;
			synth |= s->runs[i].run->synthetic;
			n++;
		}
	if (n > 0) {
		*p0 = (wc_param){ sum / n, NAN, NAN, wc_runs_idle_source(synth) };
		if (synth)
			WC_WARN(out, "P0[%s]: %.1f W is the idle_power_w of a synthetic runs table (its first line says "
			        "so): source simulated, not a measurement (docs/fitting.md)", name, sum / n);
		return WC_OK;
	}
	/* The idle given is held to the board only where it is used: runs
	 * with their own idle leave it unused (docs/cli.md "calibrate"). */
	if (check_given_idle(o, name, NULL, out, err) != WC_OK)
		return WC_EINVAL;
	if (o->idle_power_w > 0) {
		*p0 = (wc_param){ o->idle_power_w, NAN, NAN, WC_SRC_ASSUMED };
		return WC_OK;
	}
	const wc_platform_info *hw = wc_platform_lookup(name);
	if (hw && hw->idle_power_w > 0) {
		*p0 = (wc_param){ hw->idle_power_w, NAN, NAN, WC_SRC_PUBLISHED };
		WC_WARN(out, "P0[%s]: the runs carry no measured idle power (idle_power_w of the runs); %.1f W, the "
		        "platform catalog's typical idle (%s; give %s to set it)", name, hw->idle_power_w, hw->idle_source,
		        give);
		return WC_OK;
	}
	double est = wc_params_estimated_idle_w(name);
	if (isfinite(est)) {
		*p0 = (wc_param){ est, NAN, NAN, WC_SRC_ESTIMATED };
		WC_WARN(out, "P0[%s]: the runs carry no measured idle power (idle_power_w of the runs); %.1f W "
		        "estimated from the platform's power limit (give %s to set it)", name, est, give);
		return WC_OK;
	}
	return wc_error_set(err, WC_EINVAL,
	                    "idle_power_w: the runs carry no measured idle power (idle_power_w of the runs), "
	                    "none was given (%s) and the catalog does not know '%s'; a new level's P0 "
	                    "cannot be fitted from a few runs", give, name);
}

/* A model term's idle: the mean idle_power_w of its runs that carry one
 * (per GPU, measured), else the idle given (assumed), as a new level's P0
 * is chosen; its runs without one are fitted above it too, so that every
 * run is fitted above the P0 the term answers with. 0 when there is
 * neither: the base level's P0, as before (docs/calibration.md). */
int
wc__cal_term_idle(const wc_params *base, const wc_calibrate_options *o, cal_group *groups, int n_groups,
                  wc_calibrate_result *out, wc_error *err)
{
	for (int j = 0; j < n_groups; j++) {
		cal_group *g = &groups[j];
		const wc_level *l = wc_params_level(base, g->level);
		double sum = 0.0;
		int n = 0, synth = 0;
		for (int i = 0; i < g->n_runs; i++)
			if (isfinite(g->runs[i]->run->idle_power_w) && g->runs[i]->run->idle_power_w > 0.0) {
				sum += g->runs[i]->run->idle_power_w;
				synth |= g->runs[i]->run->synthetic;
				n++;
			}
		/* Only a term none of whose runs has an idle takes the one
		 * given: its board bounds it, not another term's (a table of
		 * A100 runs with their idle and H100 runs without was refused
		 * at A100's 400 W; docs/cli.md "calibrate"). */
		if (n == 0 && check_given_idle(o, g->level, l ? l->s_shared_with : NULL, out, err) != WC_OK)
			return WC_EINVAL;
		g->p0_w = n ? sum / n : o->idle_power_w > 0.0 ? o->idle_power_w : 0.0;
		g->p0_src = n ? wc_runs_idle_source(synth) : WC_SRC_ASSUMED;
		for (int i = 0; i < g->n_runs; i++)
			g->runs[i]->idle_w = g->p0_w;
	}
	return WC_OK;
}
