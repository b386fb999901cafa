/*
 * The size and count limits of wattcast in one place, each with its
 * reason (docs/architecture.md, "Limits"). A limit here is what every
 * reader, command and route that takes the quantity enforces; a module
 * keeps a private limit only when it bounds something no other module
 * sees.
 */
#ifndef WC_MODELS_LIMITS_H
#define WC_MODELS_LIMITS_H

/** Bootstrap draws one command may ask for (`--bootstrap` of fit,
 *  calibrate and fit response): a million draws is already far past the
 *  point where a 95 % interval stops moving, and bounds the time and the
 *  memory of a parameter file's draws. */
#define WC_BOOTSTRAP_MAX 1000000

/** Worker threads of the computing commands (`--threads` of fit,
 *  calibrate, envelope, validate envelope): well above any machine's core
 *  count the work would use, low enough that a typo cannot exhaust the
 *  process's thread and stack space. */
#define WC_THREADS_MAX 256

#endif
