/*
 * The power mapping of trace envelopes (docs/envelopes.md, "Power"): per-GPU power
 * as a function of the engine's state, from the frozen law with a prefill
 * increment and the power response. predict/envelope.h runs the
 * simulation through it.
 *
 * Ownership: the store holds what the callbacks read; it must outlive the
 * wc_power_map filled from it. Reentrant.
 */
#ifndef WC_PREDICT_ENVELOPE_POWER_H
#define WC_PREDICT_ENVELOPE_POWER_H

#include "models/models.h"

/* Why an envelope's or a budget plan's predictive interval is null: its
 * one part is the law's held-out error of mean power (docs/intervals.md,
 * "Where it applies"). The reason the text prints, and the warning the
 * JSON and HTTP answers carry (wc_envelope_setup_warnings), in one place. */
#define WC_ENVELOPE_NO_PE "the parameter set has no prediction_error for this level"
#define WC_ENVELOPE_NO_INTERVAL_NOTE                                                                                  \
	"interval_95: none: " WC_ENVELOPE_NO_PE ", and the law's held-out error of mean power is the whole of the "  \
	"mean's and p95's interval; a spread over replicas is the simulation's, not one (docs/intervals.md)"

/* Why they are null when nothing runs (n = 0 throughout): the answer is
 * the servers' idle draw, as predict's at concurrency 0 (docs/intervals.md,
 * "Where it applies"). */
#define WC_ENVELOPE_IDLE "nothing runs (n = 0 throughout), so the power is the servers' idle draw; " \
	WC_INTERVAL_LOADED_ONLY
#define WC_ENVELOPE_IDLE_NOTE "interval_95: none: " WC_ENVELOPE_IDLE " (docs/intervals.md)"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ power map */

/** Per-GPU power as a function of the engine's state: P0 + dynamic_w(n)
 *  + prefill_w while a prefill runs. The law-based map below is one
 *  implementation; a workload-aware law can provide another. */
typedef struct {
	double (*dynamic_w)(const void *ctx, double running); /* W per GPU above P0 */
	const void *ctx;
	double idle_w;     /* P0 per GPU */
	double prefill_w;  /* increment per GPU while prefilling (prefill_level_w 0) */
	double prefill_level_w; /* > 0: a prefill draws this level above P0, the
	                         * increment max(0, level - dynamic_w(n)) */
	double max_w;      /* the board's power limit per GPU (0 or INFINITY: unknown);
	                    * the power never exceeds it */
	int tp;            /* GPUs per server */
	char source[48];
	/* The law's held-out error for this level (the parameter set's
	 * prediction_error stratum, docs/intervals.md); has_pe 0: none, and
	 * the answer says so (WC_ENVELOPE_NO_INTERVAL_NOTE). */
	int has_pe;
	wc_pe_stratum pe;
	/* 1: the level or model term is calibrated, and its intervals add the
	 * calibration's draws to pe (wc_power_map_pe; docs/intervals.md,
	 * "Calibrated sets") */
	int pe_calibrated;
	/* What answered, as every answer says it (docs/http-api.md): the
	 * parameter set's name, how the platform's level was obtained, and for
	 * a level transferred from a datasheet the warning line ("" else). */
	char profile[WC_NAME_MAX];
	char level[WC_NAME_MAX];  /* the platform's level, as the set or catalog names it */
	char level_source[16];
	char level_note[256];
	char module_note[256];    /* a module's limit taken as the GPU's ("" none): the power answer's words */
	char precision_note[256]; /* a precision without a term ("" none): the power answer's words */
	char clock_note[256];     /* a clock asked beyond the calibration ("" none): the power answer's words */
	char clock_low_note[256]; /* a clock below half the top clock ("" none): the power answer's words */
	char engine_note[256];    /* a stack other than the calibrated one ("" none): the power answer's words */
	char model_note[256];     /* a model name with a word not read, answered as the catalog's entry ("" none):
	                           * the power answer's words (docs/capacity.md, "Model names") */
	char idle_note[256];      /* P0 estimated from the board's limit ("" measured or given): said where
	                           * nothing runs, the power answer's words */
	/* the law's calibrated span (tp, model size) left, and the bound or
	 * saturation caveat beyond it: the power answer's words, the load not
	 * judged (docs/envelopes.md) */
	char span_notes[5][256];
	int n_span_notes;
	/* What wc_power_map_from_law bound it from (params NULL: a map made
	 * otherwise): an envelope settles the clock under the board's limit
	 * from them as `predict` does and binds the map again at that clock
	 * (docs/envelopes.md, "Board limit"). Borrowed: the parameter set,
	 * and what the configuration's pointers name, must outlive the map. */
	const wc_params *params;
	wc_config config;
	int has_response;
	wc_response_params response;
} wc_power_map;

/** Storage of the law-based map (the frozen law bound to a configuration). */
typedef struct {
	wc_law_point law;
	double scale;     /* the response's dynamic_scale (1: the law as frozen) */
} wc_power_map_law;

/** The law-based map: dynamic power = the frozen law's at n (its point
 *  estimate, the configuration's measured idle power replacing P0 when
 *  given); while prefilling, for a prefill-aware law (saturating_prefill)
 *  the level A = phi x (P_max - P0) x clock factor, the increment
 *  max(0, A - D(n)); for other laws a constant increment
 *  response->prefill_ratio times the law's dynamic power at n = 32. The
 *  power never exceeds the platform's board limit (catalog max_power_w).
 *  `store` must outlive `out`, and `p` and the strings and architecture
 *  `c` points to must too (out->params, out->config). */
int wc_power_map_from_law(const wc_params *p, const wc_config *c,
                          const wc_response_params *response, wc_power_map_law *store,
                          wc_power_map *out, wc_error *err);

/** The stratum an envelope's or plan's mean power is widened with: pm->pe,
 *  and for a calibrated level (pe_calibrated) the calibration's draws of
 *  node power at `running` requests per server folded in, as the power
 *  answer adds them (wc_pe_calibrated_stratum). Returns has_pe.
 *  `*n_draws` (may be NULL): the draws folded in, 0 when none -- an
 *  interval from fewer than WC_BOOTSTRAP_MIN_95 carries predict's caveat
 *  (wc_predict_note_few_draws; docs/intervals.md). */
int wc_power_map_pe(const wc_power_map *pm, double running, wc_pe_stratum *out, int *n_draws);

/** What an envelope's or plan's interval of the law's error covers, in the
 *  power answer's words (wc_predict_pe_covers): "held-out error of mean
 *  power", "... of datasheet transfers" for a transferred level (static
 *  text; for a map with has_pe, the only one that has such an interval). */
const char *wc_power_map_covers(const wc_power_map *pm);
/** The words that open such an interval's covers: "the calibration's
 *  draws and " when `draws`, the count wc_power_map_pe folded in, is above
 *  0 -- draws that vary this answer, by predict's rule -- else "" (a
 *  calibrated set whose draws are on another platform or model; predict
 *  says "held-out error" there too; docs/intervals.md, "Calibrated sets"). */
const char *wc_power_map_draws_covered(int draws);
/** The whole `covers` text of such an interval (docs/envelopes.md,
 *  "Outputs"): the draws' opening, the law's error it is, and that it is
 *  not the Monte-Carlo spread (`spread` says where that spread is given;
 *  "" to say nothing of where) nor the service times' error. One wording
 *  for envelope's and plan's answers and validate envelope's runs; cut
 *  to `cap` bytes. */
void wc_power_map_interval_covers(const wc_power_map *pm, int draws, const char *spread, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
