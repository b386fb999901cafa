/*
 * A step's own stall with a step log (docs/finetune.md, "Counting
 * steps"): 200 5-s steps of 2 s at 600 W then a 3-s data-loading stall at
 * 80 W, a 20-s save at 90 W after every 50th step, its row in the log,
 * sampled every 100 ms. The stall is a near-idle run over half the median
 * step; it was cut as a save at every step (200 saves, -26 % energy per
 * step). With a step log the saves are stated: only near-idle runs at a
 * logged save stay out, a stall inside a logged step is step time.
 */
#include "models/models.h"
#include "trace/trace.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 200
#define STEP_S 5.0
#define HI_S 2.0
#define SAVE_EVERY 50
#define SAVE_S 20.0
#define DT 0.1

int
main(void)
{
	const double t0 = 1784415400.0, start = t0 + 30.0;
	double step_end[STEPS], from[STEPS / SAVE_EVERY], to[STEPS / SAVE_EVERY];
	size_t nl = 0;
	double t = start;
	for (int i = 0; i < STEPS; i++) {
		t += STEP_S;
		step_end[i] = t;
		if ((i + 1) % SAVE_EVERY == 0) {
			from[nl] = t;
			t += SAVE_S;
			to[nl++] = t;
		}
	}
	const double end = t;
	size_t n = (size_t)((end + 30.0 - t0) / DT);
	double *ts = malloc(n * sizeof *ts), *p = malloc(n * sizeof *p);
	wc_pcg32 rng;
	CHECK(ts && p);
	wc_pcg32_seed(&rng, 8, 1);
	for (size_t i = 0; i < n; i++) {
		double u = t0 + DT * (double)i + 0.013, w = 70.0;
		ts[i] = u;
		if (u >= start && u < end) {
			/* the step this sample is in, or the save after it */
			size_t s = 0;
			while (s < STEPS && step_end[s] <= u)
				s++;
			double s0 = s == 0 ? start : step_end[s - 1];
			for (size_t j = 0; j < nl; j++)
				if (u >= from[j] && u < to[j])
					s0 = NAN;
			for (size_t j = 0; j < nl; j++)
				if (s > 0 && to[j] > step_end[s - 1] && to[j] <= u)
					s0 = to[j];
			w = isnan(s0) ? 90.0 : u - s0 < HI_S ? 600.0 : 80.0;
		}
		p[i] = w * (1 + 0.01 * wc_pcg32_normal(&rng));
	}
	double truth = HI_S * 600.0 + (STEP_S - HI_S) * 80.0;
	wc_ft_steps_info in;
	wc_ft_steps_result r;
	wc_error err = { 0, "" };
	wc_ft_steps_info_init(&in);
	in.step_end = step_end;
	in.n_step_end = STEPS;
	in.start = start;
	in.pause_from = from;
	in.pause_to = to;
	in.n_logged = nl;
	CHECK_INT(wc_ft_steps_analyse(ts, p, n, &in, &r, &err), WC_OK);
	fprintf(stderr, "%s: %.1f steps, %.1f J/step (truth %.1f, %+.2f %%), step %.3f s, %d saves, %d logged\n",
	        r.step_source, r.steps, r.energy_per_step_j, truth, 100 * (r.energy_per_step_j / truth - 1), r.step_s,
	        r.n_saves, r.n_logged);
	for (int i = 0; i < r.n_warnings; i++)
		fprintf(stderr, "  warning: %s\n", r.warnings[i]);
	CHECK(fabs(r.energy_per_step_j / truth - 1) <= 0.02);
	CHECK(fabs(r.step_s / STEP_S - 1) <= 0.02);
	CHECK(r.n_saves <= (int)nl);
	free(ts);
	free(p);
	return check_report("test_ft_steplog_stall");
}
