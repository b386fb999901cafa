/* The validation metric (docs/validation.md): residuals in log(P̄ − G·P0). */
#include "validation_internal.h"

#include <math.h>

double
wc__log_residual(const wc_params *p, const wc_run *run)
{
	wc_power pw;
	if (!wc_params_level(p, run->platform) || wc_fit_predict_run(p, run, &pw, NULL) != WC_OK)
		return NAN;
	double measured = run->mean_power_w - pw.idle_power_w;
	if (!(measured > 0) || !(pw.dynamic_w > 0))
		return NAN;
	return log(pw.dynamic_w) - log(measured);
}
