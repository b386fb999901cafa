/*
 * A serving run folder for ingest tests, as a PowerTrace-Sim run lays it
 * out: power.csv (nvidia-smi, one GPU, 0.25 s), engine.csv (the running
 * gauge) and wattcast-run.json (an A100 running Qwen3-8B, UTC).
 */
#ifndef WC_TESTS_SYNTH_FOLDER_H
#define WC_TESTS_SYNTH_FOLDER_H

/** Write folder `root`/`name` with run_id `run_id`: `secs` seconds from
 *  the UTC time `t0` at `running` requests, power 250 W +- 10 W. Returns
 *  the folder's path (malloc'd); exits the test when a file cannot be
 *  opened. */
char *synth_run_folder(const char *root, const char *name, const char *run_id, double t0, int secs, int running);

#endif
