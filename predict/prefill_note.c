/*
 * The caveat of a power law without a prefill term where prefill may draw
 * more than the decode power it answers (docs/inference-law.md,
 * "Prefill-aware form"): its share of the engine's time at a quarter or
 * more, or at any share outside the set's runs on both counts. Where it
 * sends the reader is the caller's (wc_inference_query.prefill_profile):
 * a profile the reader can take there.
 */
#include "predict_internal.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>

/* The longest mean prompt of the workloads the set records (the runs its
 * laws were fitted on whose prompts the fit estimated); 0 when none. */
static double
longest_prompt(const wc_params *p)
{
	double top = 0.0;
	for (int i = 0; p->capacity.present && i < p->capacity.n_workloads; i++)
		top = fmax(top, p->capacity.workloads[i].input_tokens.value);
	return top;
}

int
wc__predict_prefill_note(const wc_params *p, const wc_level *lvl, double input_tokens, double rho, double load,
                         const char *profile, char *buf, size_t cap)
{
	/* Below the level's running span -- the one the `concurrency`
	 * warning names, a transfer's being the levels' it comes from -- with
	 * prompts longer than any workload the set was fitted on, both
	 * outside its runs: there a small batch's decode draws little and
	 * prefill's share, however small, is power the law never saw (the
	 * A100 smoke replays). */
	const double longest = longest_prompt(p);
	const int outside = wc__predict_below_power_span(p, lvl, load) && longest > 0.0 && input_tokens > longest;
	if (!(rho >= WC_PREFILL_SHARE_WARN) && !(outside && rho > 0.0))
		return 0;
	/* a profile the reader can take: the CLI's --profile (NULL), one a
	 * server serves, or none served there ("") and how to serve it */
	char remedy[96];
	if (profile && !*profile)
		snprintf(remedy, sizeof remedy, "not served: serve --params `profile export paper-prefill`");
	else
		snprintf(remedy, sizeof remedy, "profile %.48s models it", profile ? profile : "paper-prefill");
	/* a share that rounds to 0 is no share of 0 */
	char share[24];
	if (100.0 * rho < 0.5)
		snprintf(share, sizeof share, "under 1 %%");
	else
		snprintf(share, sizeof share, "%.0f %%", 100.0 * rho);
	if (rho >= WC_PREFILL_SHARE_WARN)
		/* kept short: a flexibility step prefixes its clock */
		wc_error_format(buf, cap, "input_tokens: prefill takes %s of the engine's time here, and this set's power "
		                "law has no prefill term: power is decode's at the same running count; prefill may draw "
		                "more (%s)", share, remedy);
	else
		wc_error_format(buf, cap, "input_tokens: prefill takes %s of the engine's time at a load below and prompts "
		                "above (%.0f tokens) this set's runs; its law has no prefill term: power is decode's, "
		                "prefill may draw more (%s)", share, longest, remedy);
	return 1;
}
