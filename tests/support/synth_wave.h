/*
 * A piecewise-constant power waveform per GPU for synthetic fine-tuning
 * runs: segments laid end to end from t = 0, each a power and whether it
 * is an optimizer step (whose own shape the test draws). The fine-tuning
 * ingest tests sample it as nvidia-smi would and compare the energy per
 * step with the truth they built.
 *
 * Ownership: the segments are the caller's array (`s`, `cap` of them);
 * the wave borrows it.
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

#endif
