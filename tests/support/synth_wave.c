/* Piecewise-constant waveforms for synthetic fine-tuning runs
 * (synth_wave.h). */
#include "tests/support/synth_wave.h"

#include "models/pcg32.h"
#include "tests/support/support.h"
#include "tests/support/synth_ft_files.h"

#include <stdio.h>
#include <stdlib.h>

void
synth_wave_clear(synth_wave *v)
{
	v->n = 0;
	v->t = 0.0;
}

void
synth_wave_add(synth_wave *v, double len, double w, int step)
{
	CHECK(v->n < v->cap);
	if (v->n >= v->cap)
		return;
	v->s[v->n++] = (synth_seg){ v->t, v->t + len, w, step };
	v->t += len;
}

const synth_seg *
synth_wave_at(const synth_wave *v, double t)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) { /* the first segment ending after t */
		size_t m = (lo + hi) / 2;
		if (v->s[m].b <= t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < v->n && v->s[lo].a <= t ? &v->s[lo] : NULL;
}

double
synth_wave_power(const synth_wave *v, const synth_draw *d, double t)
{
	const synth_seg *s = synth_wave_at(v, t);
	if (!s)
		return d->idle_w;
	return d->tail_s > 0 && s->step && t - s->a >= (s->b - s->a) - d->tail_s ? d->tail_w : s->w;
}

void
synth_wave_state_run(synth_wave *v, const synth_state_run *r)
{
	synth_wave_clear(v);
	synth_wave_add(v, 20.0, 70.0, 0);
	synth_wave_add(v, 45.0, 130.0, 0); /* loading the model */
	for (int k = 1; k <= r->steps; k++) {
		synth_wave_add(v, r->step_s, r->train_w, 1);
		if (k % r->eval_steps == 0)
			synth_wave_add(v, 30.0, r->eval_w, 0);
		if (k % 100 == 0 || k == r->steps)
			synth_wave_add(v, r->save_s, r->save_w, 0);
	}
}

double
synth_state_run_truth(const synth_state_run *r, const synth_draw *d, int gpus)
{
	return gpus * ((r->step_s - d->tail_s) * r->train_w + d->tail_s * d->tail_w);
}

void
synth_wave_nvsmi_write(const char *run, const synth_wave *v, const synth_draw *d, const synth_sampling *s)
{
	char *path = path_join(run, "power.csv");
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f) {
		free(path);
		return;
	}
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, s->seed, 0);
	fprintf(f, "timestamp, index, uuid, name, %s [W]\n", s->averaged ? "power.draw" : "power.draw.instant");
	for (double t = 0.037; t < v->t + 30.0; t += s->dt + 0.006 * wc_pcg32_uniform(&rng)) {
		double w = 0;
		/* a 1-s mean: of the second before the sample */
		for (int m = 0; s->averaged && m < 100; m++)
			w += synth_wave_power(v, d, t - 1.0 + (m + 0.5) * 0.01) / 100;
		w = s->averaged ? w : synth_wave_power(v, d, t);
		for (int g = 0; g < s->gpus; g++)
			synth_ft_nvsmi_row(f, t, g, w + s->noise_w * wc_pcg32_normal(&rng));
	}
	fclose(f);
	free(path);
}
