/* The prefill activity of a replayed run on the envelope grid
 * (predict/prefill_grid.h). */
#include "predict/prefill_grid.h"

#include <math.h>
#include <string.h>

void
wc_prefill_grid(const wc_prefill_requests *rq, const wc_service_times *st, double dt, size_t n_grid,
                double *out)
{
	memset(out, 0, n_grid * sizeof *out);
	for (size_t i = 0; i < rq->n; i++) {
		double lo = rq->lo_s[i], hi = rq->hi_s[i];
		double in = isfinite(rq->input[i]) ? rq->input[i] : rq->mean_input;
		double busy = rq->exact[i] ? hi - lo : (isfinite(in) ? st->prefill_s(st->ctx, in) : 0.0);
		if (!(busy > 0))
			continue;
		if (!(hi > lo))
			hi = lo + busy;
		double density = busy / (hi - lo);
		for (size_t k = lo > 0 ? (size_t)(lo / dt) : 0; k < n_grid && (double)k * dt < hi; k++) {
			double o = fmin(hi, (double)(k + 1) * dt) - fmax(lo, (double)k * dt);
			if (o > 0)
				out[k] = fmin(dt, out[k] + density * o);
		}
	}
}
