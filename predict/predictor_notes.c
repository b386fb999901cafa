/*
 * The notes an inference answer carries about what it covers and what it
 * could not answer (docs/intervals.md, docs/capacity.md).
 */
#include "predict/predict.h"
#include "predict_internal.h"
#include "models/warnings.h"

#include <stdio.h>
#include <string.h>

int
wc_predict_capacity_absent(const wc_error *err)
{
	return err->code == WC_ENOTFOUND && (strncmp(err->msg, "platform: the capacity model has no level", 41) == 0 ||
	                                    strncmp(err->msg, "capacity: the parameter set has no capacity", 43) == 0);
}

void
wc_predict_note_no_capacity(wc_inference_prediction *out, const char *why)
{
	WC_WARN(out, "capacity: none: %s; the mean power is answered, latency, throughput and energy are not (fit "
	        "capacity on the platform's runs, docs/capacity.md)", why);
}

const char *
wc_predict_power_covers(const wc_inference_prediction *pred)
{
	const int ds = pred->pe_stratum && strcmp(pred->pe_stratum->source, "datasheet") == 0;
	return wc_interval_covers(pred->n_draws, pred->pe_stratum != NULL, ds ? "mean power of datasheet transfers" : NULL);
}
