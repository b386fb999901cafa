/*
 * What each interval of a capacity answer covers, and why one has none
 * (docs/intervals.md, "Where it applies"): the held-out error that widens
 * each quantity, the words of an interval of draws alone that vary only
 * one of the two laws behind it, and the reason of a null interval.
 */
#include "predict_internal.h"

#include <math.h>

/* Latency's error widens latency, throughput and an open loop's running
 * count (each is a rate times or over latency: the same |log residual|);
 * energy per output token's its own, and per request, cost and CO2 per
 * request or token scale with it; node power, energy per hour and the
 * hourly cost and CO2 are power's. Without the energy section the
 * per-token quantities fall back to power's error alone, and say so. TTFT
 * has none: no table at hand measures it. An open loop below capacity
 * serves rate x output tokens exactly, so its per-token and per-request
 * figures are its power over the rate: power's error, and its ceiling. */
int
wc__capacity_widened_by(int k, const wc_capacity_prediction *out)
{
	switch (k) {
	case WC_CAPQ_LATENCY: case WC_CAPQ_THROUGHPUT: return WC__BY_LATENCY;
	case WC_CAPQ_RUNNING: return out->open_loop ? WC__BY_LATENCY : WC__BY_NONE;
	case WC_CAPQ_E_TOKEN: case WC_CAPQ_E_REQUEST: case WC_CAPQ_COST_REQUEST: case WC_CAPQ_COST_MTOK:
	case WC_CAPQ_CO2_REQUEST: case WC_CAPQ_CO2_MTOK:
		return out->open_loop && !out->over_capacity ? WC__BY_POWER : WC__BY_ENERGY;
	case WC_CAPQ_POWER: case WC_CAPQ_E_HOUR: case WC_CAPQ_COST_HOUR: case WC_CAPQ_CO2_HOUR: return WC__BY_POWER;
	default: return WC__BY_NONE;
	}
}

int
wc__capacity_per_token(int k)
{
	switch (k) {
	case WC_CAPQ_E_TOKEN: case WC_CAPQ_E_REQUEST: case WC_CAPQ_COST_REQUEST: case WC_CAPQ_COST_MTOK:
	case WC_CAPQ_CO2_REQUEST: case WC_CAPQ_CO2_MTOK: return 1;
	default: return 0;
	}
}

/* One rule for what latency's and throughput's intervals leave out, as the
 * power answer says its own (wc_predict_note_params_only): no held-out
 * error of latency at all, or none of a datasheet level's transfer
 * (docs/intervals.md, "Capacity levels from a datasheet"). No set has a
 * held-out error of TTFT (no table at hand measures it): the first warning
 * names it beside latency, whose draws are its draws. */
void
wc__capacity_latency_note(int datasheet, const wc_pe_stratum *lat, int ds_lat, int lat_drew,
                          wc_capacity_prediction *out)
{
	if (!lat && lat_drew)
		WC_WARN(out, "interval_95: latency, throughput and TTFT cover the capacity parameters' uncertainty only: "
		        "the parameter set has no held-out error of latency%s (of TTFT no set has; docs/intervals.md)",
		        datasheet ? ", of fitted levels or of this datasheet transfer" : "");
	else if (datasheet && lat && !ds_lat)
		wc_predict_note_no_transfer(out->warnings, &out->n_warnings, "capacity", "latency and throughput");
}

const char *
wc__capacity_draws_covers(int k, const wc_capacity_prediction *out, int latency_drew, int power_drew)
{
	/* Energy per output token is power x latency over the tokens: when the
	 * draws vary only one of the two, the interval is that one's spread
	 * alone, and says which part it leaves out. */
	if (wc__capacity_widened_by(k, out) != WC__BY_ENERGY || latency_drew == power_drew)
		return wc_interval_covers(1, 0, NULL);
	return latency_drew ? WC_COVERS_PARAMETERS_NOT_POWER : WC_COVERS_PARAMETERS_NOT_LATENCY;
}

void
wc__capacity_power_share_covers(int power_share, int power_drew, wc_capacity_prediction *out)
{
	/* Power's interval over the point throughput is all mean power's
	 * error and the power law's draws give (docs/intervals.md, "Where it
	 * applies"); the capacity draws, which vary the throughput, are in
	 * the answer only where they reach past it: a `fit capacity
	 * --bootstrap` set beside the paper's power law (no draws) said
	 * "parameters and ..." of 0.2999-0.5875 J, which is 0.4421 J x
	 * 393.06 / 579.50 and x 770 / 579.50, its draws' own 0.3587-0.5205 J
	 * inside it. */
	const double pw = out->value[WC_CAPQ_POWER], tie = 1e-12;
	if (!power_share || power_drew)
		return;
	for (int k = 0; k < WC_CAPQ_COUNT; k++) {
		if (wc__capacity_widened_by(k, out) != WC__BY_ENERGY || !isfinite(out->lo[k]) || !isfinite(out->hi[k]))
			continue;
		const double r = out->value[k] / pw;
		const int past = !(r * out->lo[WC_CAPQ_POWER] <= out->lo[k] * (1 + tie)) ||
		                 !(r * out->hi[WC_CAPQ_POWER] >= out->hi[k] * (1 - tie));
		if (past)
			out->covers[k] = wc_interval_covers(1, 1, "mean power (not of latency)");
	}
}

/* Why a quantity has no interval, by the law it comes from: the capacity
 * section's (latency, throughput, TTFT), the power law's (power and what
 * is proportional to it) or both (energy per token and per request). */
static const char *
none_reason(int by, const wc_params *p)
{
	if (by == WC__BY_POWER) /* as the power answer says it (wc_predict_inference) */
		return "none: the power law has no bootstrap draws that vary it here and the parameter set no held-out "
		       "error of mean power here (docs/intervals.md)";
	if (by == WC__BY_ENERGY)
		return "none: neither the capacity section's nor the power law's bootstrap draws vary it here, and the "
		       "parameter set has no held-out error of it or of mean power (docs/intervals.md)";
	return p->capacity.draws.n < 2 ? "none: the capacity section has no bootstrap draws and the parameter set no "
	                                 "held-out error of this quantity (docs/intervals.md)"
	                               : "none: the draws do not vary it";
}

void
wc__capacity_null_covers(const wc_params *p, int by_arrivals, wc_capacity_prediction *out)
{
	for (int k = 0; k < WC_CAPQ_COUNT; k++) {
		if (isfinite(out->lo[k]))
			continue;
		out->covers[k] = NULL; /* not asked */
		if (!isfinite(out->value[k]))
			continue;
		/* A closed loop's n is no estimate: the concurrency asked, or the
		 * requests the KV cache holds (memory facts, not fitted), so its
		 * interval is null and says why, as every null interval does
		 * (docs/http-api.md, the capacity answer's interval_95). */
		if (k == WC_CAPQ_RUNNING && !out->open_loop)
			out->covers[k] = "none: a closed loop's running count is the concurrency asked (or the requests "
			                 "the KV cache holds, when fewer), not an estimate";
		/* over capacity at both ends of latency's interval the count is
		 * the limit at every latency in it (docs/intervals.md) */
		else if (k == WC_CAPQ_RUNNING && out->over_capacity && isfinite(out->lo[WC_CAPQ_LATENCY]))
			out->covers[k] = "none: the rate exceeds the capacity at every latency in latency's interval, so "
			                 "the running count is the requests the engine and the KV cache admit, not an "
			                 "estimate";
		else if (k == WC_CAPQ_THROUGHPUT && by_arrivals)
			out->covers[k] = "none: set by the arrival rate (an open loop below capacity serves rate x "
			                 "output tokens)";
		/* price (intensity) 0: the cost (CO2) is 0 whatever the energy */
		else if (k >= WC_CAPQ_COST_REQUEST && k <= WC_CAPQ_COST_HOUR && out->price_per_kwh == 0.0)
			out->covers[k] = "none: the price per kWh is 0, so the cost is 0 exactly";
		else if (k >= WC_CAPQ_CO2_REQUEST && k <= WC_CAPQ_CO2_HOUR && out->grams_co2_per_kwh == 0.0)
			out->covers[k] = "none: the carbon intensity is 0, so the CO2 is 0 exactly";
		else
			out->covers[k] = none_reason(wc__capacity_widened_by(k, out), p);
	}
}

const char *
wc_predict_capacity_covers(const wc_capacity_prediction *cp)
{
	/* on a datasheet board it said "held-out error" beside each
	 * quantity's "... of datasheet transfers" */
	return wc_interval_covers(cp->n_draws, cp->pe_stratum != NULL, cp->pe_datasheet ? WC_COVERS_DATASHEET : NULL);
}
