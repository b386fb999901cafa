/*
 * Private to server/: an answer's JSON, shared by the routes and the
 * CLI's --json (render*.c), and the one way every answer is printed.
 */
#ifndef WC_SERVER_RENDER_INTERNAL_H
#define WC_SERVER_RENDER_INTERNAL_H

#include <jansson.h>

#include "server/server.h"

/** Print an answer's JSON (10 significant digits, keys in order; compact
 *  unless `indent` > 0) and release it (the reference is stolen). A
 *  malloc'd string, or NULL with `err` set. Every wc_render_* ends here. */
char *wc__render_dump(json_t *o, int indent, wc_error *err);
/** Every whole-valued real in `o` (to 2^53) made an integer, in place:
 *  the one rule by which answers write whole numbers as integers
 *  (docs/http-api.md), applied by wc__render_dump and wc_response_json*. */
void wc__render_whole(json_t *o);

/** A number written with the digits of `text` (a number as printf's %g
 *  writes it) rather than the answer's ten: a budget plan's budget as
 *  sent and its statistics to the digit that sets them beside it
 *  (wc_budget_stat_text; docs/http-api.md, "POST /v1/plan/budget"). A
 *  string marked by a leading U+0001 until wc__render_digits_fix, which
 *  wc__render_dump and wc_response_json* apply, writes it bare; null
 *  for a text that is not a finite number. */
json_t *wc__render_digits(const char *text);
/** Every "\u0001<number>" string of a printed answer written as its
 *  number, in place; the text's new length. */
size_t wc__render_digits_fix(char *s, size_t len);

/** New reference: the JSON object of a power-flexibility sweep. */
json_t *wc_flexibility_json(const wc_inference_query *q, const wc_flexibility *f, const char *params_version);
/** New reference: the JSON object of one inference prediction. */
json_t *wc_inference_json(const wc_inference_query *q, const wc_inference_prediction *pred,
                          const wc_capacity_prediction *cap, double max_fit,
                          const char *params_version);

/** New reference: the JSON object of one fine-tuning prediction. */
json_t *wc_finetune_json(const wc_finetune_query *q, const wc_finetune_prediction *pred,
                         const char *params_version);
/** New references: the JSON objects behind wc_render_envelope and
 *  wc_render_budget (server/render_envelope.c). */
json_t *wc_envelope_json(const wc_envelope_render *ctx, const wc_envelope_result *res);
/** The per-bin arrays of one band of an envelope answer (t_s, mean_w,
 *  p5_w, p95_w, mean_running): what WC_HTTP_MAX_BIN_VALUES counts. */
#define WC_ENVELOPE_BAND_ARRAYS 5
json_t *wc_budget_json(const wc_envelope_render *ctx, const wc_budget_options *bo,
                       const wc_budget_plan *plan);

/** jansson flags of every JSON answer (the CLI's --json uses the same). */
#define WC_JSON_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10) | JSON_COMPACT)

#endif
