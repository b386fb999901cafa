/*
 * A piecewise-constant power waveform per GPU for synthetic fine-tuning
 * runs: segments laid end to end from t = 0, each a power and whether it
 * is an optimizer step (whose own shape the test draws). The fine-tuning
 * ingest tests sample it as nvidia-smi would and compare the energy per
 * step with the truth they built.
 *
 * Ownership: the segments are the caller's array (`s`, `cap` of them);
 * the wave borrows it. synth_wave_nvsmi_write opens, writes and closes
 * its file.
 */
#ifndef WC_TESTS_SYNTH_WAVE_H
#define WC_TESTS_SYNTH_WAVE_H

#include <stddef.h>

/** Power per GPU `w` over [a, b); `step` for an optimizer step. */
typedef struct {
	double a, b, w;
	int step;
} synth_seg;

typedef struct {
	synth_seg *s; /* borrowed, `cap` long */
	size_t n, cap;
	double t; /* the end of the last segment */
} synth_wave;

/** Empty the wave, keeping its array. */
void synth_wave_clear(synth_wave *v);
/** A segment of `len` s at `w` W after the last (CHECKs the room). */
void synth_wave_add(synth_wave *v, double len, double w, int step);
/** The segment holding `t`, or NULL before the first and after the last. */
const synth_seg *synth_wave_at(const synth_wave *v, double t);

/** How a wave draws per GPU: `idle_w` outside it, and a step's last
 *  `tail_s` s at `tail_w` (its data loading or optimizer; 0: the step
 *  flat at its segment's power). */
typedef struct {
	double idle_w, tail_s, tail_w;
} synth_draw;

/** Per-GPU power at `t` of `v` drawn as `d`. */
double synth_wave_power(const synth_wave *v, const synth_draw *d, double t);

/** How nvidia-smi samples a wave: from 0.037 s to 30 s past its end,
 *  every `dt` s and up to 6 ms later (as `-lms` keeps them); each sample
 *  the mean of the second before it (`averaged`, H100's power.draw) or
 *  instantaneous (power.draw.instant); a row for each of `gpus` GPUs with
 *  normal noise of `noise_w` W, all draws from PCG32 stream `seed`. */
typedef struct {
	double dt;
	int averaged, gpus;
	unsigned seed;
	double noise_w;
} synth_sampling;

/** A run as synth_trainer_state_write states it: 20 s at 70 W, 45 s
 *  loading the model at 130 W, then `steps` steps of `step_s` s at
 *  `train_w` W, a 30-s evaluation at `eval_w` after every
 *  `eval_steps`-th, and a save of `save_s` s at `save_w` after every
 *  100th and after the last. */
typedef struct {
	int steps, eval_steps;
	double step_s, train_w, eval_w, save_s, save_w;
} synth_state_run;

/** `v` emptied and laid out as `r`. */
void synth_wave_state_run(synth_wave *v, const synth_state_run *r);
/** The truth of `r` drawn as `d`: energy per step of `gpus` GPUs, J. */
double synth_state_run_truth(const synth_state_run *r, const synth_draw *d, int gpus);

/** `run`/power.csv: `v` drawn as `d`, sampled as `s`
 *  (docs/formats/telemetry.md). */
void synth_wave_nvsmi_write(const char *run, const synth_wave *v, const synth_draw *d, const synth_sampling *s);

#endif
