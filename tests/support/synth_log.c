/*
 * Synthetic nvidia-smi logs of fine-tuning runs (tests/support/synth_log.h).
 * The run: 30 s idle, the steps (each 80 % at 550 W and 20 % at 350 W per
 * GPU) with a save after every save_every-th, 30 s idle. nvidia-smi reads
 * one GPU after another: row j of a sweep is written, and its power read,
 * a little after row j-1; a wide sweep spreads its rows over up to
 * max_spread_s and delays the next sweep, as a busy host does.
 */
#include "tests/support/synth_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "models/pcg32.h"

#define IDLE_W 72.0
#define HIGH_W 550.0
#define LOW_W 350.0
#define IDLE_S 30.0

void
synth_ft_default(synth_ft_design *d)
{
	*d = (synth_ft_design){ 8, 60, 1.0, 1, 17.0, 0.27, 0.1, 0, 0.01, 0.96, 0.03, 42 };
}

typedef struct {
	const synth_ft_design *d;
	double t_train, t_end;     /* training from t_train; idle again from t_end */
	double save_w;
} run;

/* Per-GPU power at time t (before noise). */
static double
power_at(const run *r, double t)
{
	const synth_ft_design *d = r->d;
	if (t < r->t_train || t >= r->t_end)
		return IDLE_W;
	double u = t - r->t_train, cycle = d->step_s * d->save_every + d->save_s;
	double in = fmod(u, cycle);
	if (d->save_every > 0 && in >= d->step_s * d->save_every)
		return r->save_w;
	double phase = fmod(in, d->step_s) / d->step_s;
	return phase < 0.8 ? HIGH_W : LOW_W;
}

/* Mean over the dt before t (10 ms resolution), or the value at t. */
static double
reading(const run *r, double t)
{
	if (!r->d->average)
		return power_at(r, t);
	double sum = 0.0;
	int m = 0;
	for (double u = t - r->d->dt + 0.005; u < t; u += 0.01, m++)
		sum += power_at(r, u);
	return sum / m;
}

static void
timestamp(FILE *f, double t)
{
	/* 2026/07/18 00:00:00 local time plus t seconds */
	long ms = lround(t * 1000.0), s = ms / 1000;
	fprintf(f, "2026/07/18 %02ld:%02ld:%02ld.%03ld", s / 3600, s / 60 % 60, s % 60, ms % 1000);
}

int
synth_ft_write(const char *path, const synth_ft_design *d, synth_ft_truth *truth)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	run r = { d, IDLE_S, 0, 0 };
	double mean_train = 0.8 * HIGH_W + 0.2 * LOW_W;
	int saves = d->save_every > 0 ? (d->steps - 1) / d->save_every : 0;
	r.save_w = d->save_share * mean_train;
	/* The last step is not followed by a save: the run ends with steps. */
	double cycle = d->step_s * d->save_every + d->save_s;
	r.t_end = r.t_train + (d->save_every > 0 ? saves * cycle + (d->steps - saves * d->save_every) * d->step_s
	                                         : d->steps * d->step_s);
	truth->energy_per_step_j = d->gpus * mean_train * d->step_s;
	truth->train_w = d->gpus * mean_train;
	truth->saves = saves;
	truth->max_spread_s = 0.0;
	truth->sweeps = 0;
	wc_pcg32 rng;
	wc_pcg32_seed(&rng, d->seed, 7);
	fprintf(f, "timestamp, %s [W]\n", d->average ? "power.draw.average" : "power.draw");
	double t = 0.5, t_stop = r.t_end + IDLE_S;
	while (t < t_stop) {
		int wide = wc_pcg32_uniform(&rng) < d->wide_share;
		double spread = wide ? d->max_spread_s * (0.3 + 0.7 * wc_pcg32_uniform(&rng)) : 0.004 * (d->gpus - 1);
		double last = t;
		for (int g = 0; g < d->gpus; g++) {
			double tg = t + spread * g / (d->gpus > 1 ? d->gpus - 1 : 1);
			double w = reading(&r, tg) * (1.0 + d->noise * wc_pcg32_normal(&rng));
			timestamp(f, tg);
			fprintf(f, ", %.2f W\n", w);
			last = tg;
		}
		if (last - t > truth->max_spread_s)
			truth->max_spread_s = last - t;
		truth->sweeps++;
		/* a slow sweep delays the next one */
		t = fmax(t + d->dt, last + 0.01);
	}
	return fclose(f) == 0 ? 0 : -1;
}
