/*
 * A run folder for the envelope commands: power.csv (nvidia-smi, one
 * A100, 0.25 s) and requests.json (two bursts), no manifest.
 */
#ifndef WC_TESTS_SYNTH_ENVELOPE_H
#define WC_TESTS_SYNTH_ENVELOPE_H

/** Write folder `dir`/`name`: an A100 serving two bursts, its power
 *  `offset` W above the base. Returns the folder's path (malloc'd). */
char *synth_envelope_run(const char *dir, const char *name, double offset);

#endif
