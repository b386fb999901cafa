/*
 * The runs a fit leaves out while it builds its rows (docs/fitting.md,
 * "Which runs enter", "Runs beyond physical bounds"): counted by reason,
 * said in one warning per reason naming the first four, and -- when a
 * level keeps none -- said in the refusal, since the warnings die with
 * the problem: a table whose L40S rows were all kW-scale readings got
 * "level L40S has no usable runs" and no reason.
 */
#include "fit_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A board the catalog does not know is held to WC_FIT_S_MAX_UNKNOWN_W. */
static double
level_limit_w(const fit_problem *pb, int L)
{
	return isfinite(pb->p_max[L]) ? pb->p_max[L] : WC_FIT_S_MAX_UNKNOWN_W;
}

/* Mean power per GPU beyond WC_FIT_ROW_POWER_FACTOR times the board limit
 * (docs/fitting.md, "Physical bounds") is a unit error or a broken meter,
 * not a measurement: such a run would pull S to megawatts. */
int
wc__fit_row_beyond_bounds(const fit_problem *pb, int L, const wc_run *r)
{
	double per_gpu = r->mean_power_w / (r->tp > 0 ? r->tp : 1);
	return !(isfinite(per_gpu) && per_gpu <= WC_FIT_ROW_POWER_FACTOR * level_limit_w(pb, L));
}

static const char *
run_name(const wc_run *r)
{
	return r->run_id[0] ? r->run_id : "(no id)";
}

void
wc__fit_out_count(fit_runs_out *o, int L, int why, size_t i, const wc_run *r)
{
	/* the first four are named in the warning, so that the user can
	 * find them */
	size_t len = strlen(o->ids[why]);
	if (o->n[why]++ < 4)
		snprintf(o->ids[why] + len, sizeof o->ids[why] - len, "%s%s", len ? ", " : "", run_name(r));
	if (o->level_n[L][why]++ == 0)
		o->level_first[L][why] = i;
}

void
wc__fit_out_warn(fit_problem *pb, const fit_runs_out *o)
{
	const int *n = o->n;
	if (n[FIT_OUT_LOW_POWER])
		wc__fit_problem_warn(pb, "%d run(s) with mean power <= G*P0 left out of the fit (check the unit: W, not "
		                     "kW; and idle_power_w): %s%s", n[FIT_OUT_LOW_POWER], o->ids[FIT_OUT_LOW_POWER],
		                     n[FIT_OUT_LOW_POWER] > 4 ? ", ..." : "");
	if (n[FIT_OUT_BOUND])
		wc__fit_problem_warn(pb, "%d run(s) with mean power per GPU above %g x the board limit left out of "
		                     "the fit as not physical: %s%s", n[FIT_OUT_BOUND], WC_FIT_ROW_POWER_FACTOR,
		                     o->ids[FIT_OUT_BOUND], n[FIT_OUT_BOUND] > 4 ? ", ..." : "");
	if (n[FIT_OUT_NO_TERM])
		wc__fit_problem_warn(pb, "%d run(s) whose precision setting has no kept term left out of the fit",
		                     n[FIT_OUT_NO_TERM]);
}

/* Level L kept no row: the refusal names each check that left its runs
 * out, with the count and one id (under 255 bytes whole). */
static int
level_unused(const fit_problem *pb, const wc_runs_table *t, int L, const fit_runs_out *o, wc_error *err)
{
	/* Wide enough never to cut: the ids go whole (an ML.ENERGY id is 55-70
	 * bytes, its first 32 shared by a whole sweep), and the message's
	 * bound alone cuts, with its "..." (docs/architecture.md, "Errors"). */
	char why[4 * WC_ERROR_MSG_MAX] = "";
	size_t len = 0;
	for (int k = 0; k < FIT_OUT_KINDS && len < sizeof why; k++) {
		const int n = o->level_n[L][k];
		if (!n)
			continue;
		const char *sep = len ? "; " : ": ", *id = run_name(&t->runs[o->level_first[L][k]]);
		if (k == FIT_OUT_BOUND)
			len += (size_t)snprintf(why + len, sizeof why - len, "%s%d above %g x its board limit of %.0f W per "
			                        "GPU, not physical (wrong unit, platform or tp? run %s)", sep, n,
			                        WC_FIT_ROW_POWER_FACTOR, level_limit_w(pb, L), id);
		else if (k == FIT_OUT_LOW_POWER)
			len += (size_t)snprintf(why + len, sizeof why - len, "%s%d at or below G x P0 (kW for W? "
			                        "idle_power_w? run %s)", sep, n, id);
		else
			len += (size_t)snprintf(why + len, sizeof why - len, "%s%d with no kept precision term", sep, n);
	}
	return wc_error_set(err, WC_EINVAL, "fit: level %s has no usable runs%s", pb->levels[L].name, why);
}

int
wc__fit_levels_used(const fit_problem *pb, const wc_runs_table *t, const fit_runs_out *o, wc_error *err)
{
	for (int L = 0; L < pb->n_levels; L++) {
		int used = 0;
		for (size_t i = 0; i < pb->n_rows && !used; i++)
			used = pb->lvl[i] == L;
		if (!used)
			return level_unused(pb, t, L, o, err);
	}
	char why[160];
	if (pb->n_rows == 0)
		return wc_error_set(err, WC_EINVAL, "fit: no usable runs in %.80s%s%s", t->path[0] ? t->path : "the table",
		                    wc_runs_excluded_note(t->n_runs, wc_runs_excluded(t), why, sizeof why) ? ": " : "", why);
	return WC_OK;
}
