/*
 * Synthetic nvidia-smi logs of fine-tuning runs with known truth (the
 * acceptance logs of docs/finetune.md, "Measuring energy per step"):
 * G GPUs written one row after another with no index or uuid column,
 * sweeps that now and then spread over up to a second, checkpoint saves
 * at a chosen share of the training power and cadence, instantaneous
 * samples or 1 s averages. Deterministic for a seed (PCG32).
 */
#ifndef WC_TESTS_SYNTH_LOG_H
#define WC_TESTS_SYNTH_LOG_H

#include <stdint.h>

typedef struct {
	int gpus;                  /* GPUs, one row each per sweep */
	int steps;                 /* optimizer steps */
	double step_s;             /* step length, s (80 % compute, 20 % lighter) */
	int save_every;            /* a checkpoint save after every N steps (not after the last) */
	double save_s;             /* save length, s */
	double save_share;         /* save power / mean training power */
	double dt;                 /* sampling interval, s */
	int average;               /* 1: each row is the mean over the dt before it (power.draw.average) */
	double wide_share;         /* share of sweeps spread over up to max_spread_s */
	double max_spread_s;
	double noise;              /* relative, per GPU and row */
	uint64_t seed;
} synth_ft_design;

/** The design of the acceptance logs: 8 GPUs, 1 s steps, 17 s saves,
 *  1 % of sweeps spread up to 0.96 s, 3 % noise. */
void synth_ft_default(synth_ft_design *d);

typedef struct {
	double energy_per_step_j;  /* true group energy of one step */
	double train_w;            /* mean group power while training */
	int saves;                 /* saves written */
	double max_spread_s;       /* widest sweep written */
	long sweeps;
} synth_ft_truth;

/** Write the log to `path` (header "timestamp, power.draw [W]" or
 *  "timestamp, power.draw.average [W]"). 0 on success. */
int synth_ft_write(const char *path, const synth_ft_design *d, synth_ft_truth *truth);

#endif
