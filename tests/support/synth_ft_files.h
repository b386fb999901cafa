/*
 * The files of a synthetic fine-tuning run folder that the fine-tuning
 * ingest tests write alike: nvidia-smi power rows of H100s as
 * `--query-gpu=timestamp,index,uuid,name,power.draw --format=csv` prints
 * them (docs/formats/telemetry.md), and the run's wattcast-run.json
 * (docs/formats/run-folder.md).
 */
#ifndef WC_TESTS_SYNTH_FT_FILES_H
#define WC_TESTS_SYNTH_FT_FILES_H

#include <stdio.h>

/** One row of H100 GPU `g` (index g, a uuid of g) drawing `w` W, `s`
 *  seconds after 2026/12/01 10:00:00, to `f`. */
void synth_ft_nvsmi_row(FILE *f, double s, int g, double w);

/** `run`/wattcast-run.json of an H100 Llama-3.1-8B LoRA run (micro-batch
 *  4, 2048 tokens, rank 16, no checkpointing, UTC offset 0) on `gpus`
 *  GPUs with `grad_accum`; a failed write is a failed CHECK. */
void synth_ft_manifest_write(const char *run, int gpus, int grad_accum);

#endif
