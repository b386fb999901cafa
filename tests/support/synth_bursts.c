/*
 * Bursty engine runs through the response kernel (synth_bursts.h).
 */
#include "tests/support/synth_bursts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
synth_bursts_make(synth_bursts *s, size_t n_grid, size_t n_samples, wc_pcg32 *rng, const wc_law_point *law,
                  double hold, double decay, wc_response_run *r)
{
	const double dt = 0.05;
	memset(s, 0, sizeof *s);
	s->n_grid = n_grid;
	s->n_samples = n_samples;
	s->running = calloc(n_grid, sizeof *s->running);
	s->prefill = calloc(n_grid, sizeof *s->prefill);
	s->t = calloc(n_samples, sizeof *s->t);
	s->p = calloc(n_samples, sizeof *s->p);
	double *grid = calloc(n_grid, sizeof *grid), *y = calloc(n_grid, sizeof *y);
	if (!s->running || !s->prefill || !s->t || !s->p || !grid || !y) {
		free(grid);
		free(y);
		synth_bursts_free(s);
		return -1;
	}
	wc_response_grid g = { dt, n_grid, grid, NULL, NULL, NULL };
	wc_response_state st;
	wc_response_state_init(&st, law->p0, 0.5 * wc_law_point_dynamic(law, 32), hold);
	wc_response_state_decay(&st, decay);
	for (size_t k = 0; k < n_grid;) {
		int busy = 20 + (int)(40 * wc_pcg32_uniform(rng)), idle = 10 + (int)(30 * wc_pcg32_uniform(rng));
		double n = 1 + floor(16 * wc_pcg32_uniform(rng));
		for (int j = 0; j < busy && k < n_grid; j++, k++) {
			s->running[k] = n;
			s->prefill[k] = j == 0 ? 0.02 : 0.0;
			wc_response_add(&g, &st, k * dt, (k + 1) * dt, n, wc_law_point_dynamic(law, n), s->prefill[k] / dt);
		}
		for (int j = 0; j < idle && k < n_grid; j++, k++)
			s->running[k] = s->prefill[k] = 0.0;
	}
	wc_response_finish(&g, &st, n_grid * dt);
	for (size_t k = 0; k < n_grid; k++)
		grid[k] /= dt;
	wc_response_filter(grid, n_grid, dt, 0.1, law->p0, y);
	for (size_t i = 0; i < n_samples; i++) {
		s->t[i] = i * 0.1 + 0.01;
		s->p[i] = y[(size_t)(s->t[i] / dt)] + 2.0 * wc_pcg32_normal(rng);
	}
	free(grid);
	free(y);
	memset(r, 0, sizeof *r);
	r->run_id = r->platform = "A100";
	r->dt = dt;
	r->n_grid = n_grid;
	r->running = s->running;
	r->prefill = s->prefill;
	r->n_samples = n_samples;
	r->t_s = s->t;
	r->power_w = s->p;
	r->law = *law;
	return 0;
}

void
synth_bursts_free(synth_bursts *s)
{
	free(s->running);
	free(s->prefill);
	free(s->t);
	free(s->p);
	memset(s, 0, sizeof *s);
}
