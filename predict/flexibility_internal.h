/*
 * The caveats of a flexibility sweep's steps (predict/flexibility.c,
 * docs/capacity.md "Power flexibility"): gathered step by step as
 * `predict inference` gives them at the step's clock, then said one line
 * per kind, naming every step the kind holds at.
 */
#ifndef WC_PREDICT_FLEXIBILITY_INTERNAL_H
#define WC_PREDICT_FLEXIBILITY_INTERNAL_H

#include "predict/flexibility.h"

typedef struct {
	int step;                     /* index into wc_flexibility.steps */
	char text[WC_WARNING_LEN];
} wc__flex_caveat;

typedef struct {
	int n, cap;
	wc__flex_caveat *at;          /* on the heap: server handler stacks are small */
} wc__flex_caveats;

/** Keep caveat `text` of step `step`; WC_OK or WC_ENOMEM (said in err). */
int wc__flex_caveat_add(wc__flex_caveats *c, int step, const char *text, wc_error *err);

/** Does a step at clock `mhz` carry caveat `text`, in those words? (f
 *  analysed; before wc__flex_caveats_say, which frees what was kept) */
int wc__flex_caveats_hold(const wc__flex_caveats *c, const wc_flexibility *f, double mhz, const char *text);

/** Say the caveats kept into f's warnings: those the unconstrained point
 *  says in the same words left out, the rest one line per kind (the text
 *  with its numbers set aside), "at F1, F2 MHz: " naming every step's clock
 *  it holds at, lowest first, with each number that differs between them
 *  given per step ("44/35/28"), or as the range of the steps' values where
 *  that line would not fit a warning: each kind once, the knee's and the
 *  optimum's steps within it (f analysed). Frees what was kept. */
void wc__flex_caveats_say(wc__flex_caveats *c, wc_flexibility *f);

#endif
