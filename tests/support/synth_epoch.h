/*
 * Logs of a powertrace-sim run folder on the Unix-epoch clock (a manifest
 * with "power_timestamp_basis"/"engine_timestamp_basis": "unix_epoch"):
 * an nvidia-smi power.csv "index,timestamp,power.draw" at 0.1 s in UTC,
 * and TGI's engine.csv gauges. Each writes one file into an existing
 * folder and counts one check that it was written.
 */
#ifndef WC_TESTS_SYNTH_EPOCH_H
#define WC_TESTS_SYNTH_EPOCH_H

/** `dir`/power.csv: `n` samples at 0.1 s from `t0` (a whole second),
 *  sample i at `w0` + `dw` x i watts. */
void synth_epoch_power(const char *dir, double t0, int n, double w0, double dw);

/** `dir`/engine.csv: TGI's tgi_batch_current_size `running`[k] at
 *  `t0` + `dt` x k, k < `n`, and an empty queue. */
void synth_epoch_tgi(const char *dir, double t0, double dt, const int *running, int n);

#endif
