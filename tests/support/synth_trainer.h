/*
 * A synthetic one-GPU fine-tuning run for ingest tests: a power wave of
 * segments (model loading, 2-s steps of 1.6 s at 550 W and 0.4 s at
 * 350 W, 16-s saves at 150 W, optional evaluations), written as an
 * nvidia-smi power.csv at 100 ms beside a trainer_state.json and a
 * wattcast-run.json (H100, Llama-3.1-8B LoRA), and ingested to its row.
 */
#ifndef WC_TESTS_SYNTH_TRAINER_H
#define WC_TESTS_SYNTH_TRAINER_H

#include "data/data.h"

#include <stddef.h>

typedef struct {
	double a, b, w;
} synth_trainer_seg;

typedef struct {
	synth_trainer_seg s[1024];
	size_t n;
	double t; /* the end of the last segment */
} synth_trainer_wave;

/** Append `len` seconds at `w` watts. */
void synth_trainer_add(synth_trainer_wave *v, double len, double w);

/** Loading (30 s at 130 W), then steps first..last, a save after every
 *  `save`-th (preceded by a 30-s evaluation at `eval_w` if > 0), none
 *  after step `crash` (0: no crash), where the session ends. */
void synth_trainer_session(synth_trainer_wave *v, int first, int last, int save, int crash, double eval_w);

/** Write the run folder `dir`/`name` (returned, malloc'd): the wave to
 *  20 s past its end, 2 % noise from PCG32 stream `seed`; no sample in
 *  [cut_a, cut_b) and the header again after it (a logger appending, as
 *  `>>` does) when cut_b > cut_a; `state` as trainer_state.json. */
char *synth_trainer_folder(const char *dir, const char *name, const synth_trainer_wave *v, unsigned seed, double cut_a,
                      double cut_b, const char *state);

/** Write `run`/trainer_state.json of a run of `steps` steps: the loss
 *  logged every 10, a 30-s evaluation (eval_runtime) after every
 *  `eval_steps`-th, `save_steps` as stated, train_runtime `runtime`. */
void synth_trainer_state_write(const char *run, int steps, int save_steps, int eval_steps, double runtime);

/** `wattcast ingest run -o dir/out.csv`: its row (one; NULL and a failed
 *  check otherwise), its stderr in `*err` (the caller frees). */
wc_ft_table *synth_trainer_ingest(const char *dir, const char *run, char **err);

#endif
