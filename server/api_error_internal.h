/*
 * Private to server/: the API's errors before they become an answer
 * (errors.c; docs/http-api.md, "Errors"), and the helpers that quote
 * client text in their messages and name fields by JSON pointer.
 */
#ifndef WC_SERVER_API_ERROR_INTERNAL_H
#define WC_SERVER_API_ERROR_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "server/server.h"

/** An API error before it becomes an HTTP body (or a batch item). `field`
 *  is a JSON pointer relative to the validated item ("" = the item itself);
 *  has_field = 0 leaves it out of the answer. */
typedef struct {
	int status;
	const char *code;
	int has_field;
	char field[160];
	char message[WC_ERROR_MSG_MAX];
	int line, column; /* > 0 for malformed JSON */
} wc_api_error;

void wc_api_error_set(wc_api_error *e, int status, const char *code, const char *field,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/** 422 `wrong_type` at `field`: "NAME: expected WANT, got TYPE". Returns -1. */
int wc_api_wrong_type(wc_api_error *e, const char *field, const char *want, const json_t *got);
/** 422 invalid_value on the first member of `obj` that is the empty
 *  string (field `at`/key); 0 when none is. */
int wc_api_check_nonempty(const json_t *obj, const char *at, wc_api_error *e);
/** Every key of the object `obj` must be in `known` or `more` (NULL-ended
 *  lists; `more` may be NULL): the first other one is refused with 422
 *  `unknown_field` at the JSON pointer `at` + key. Returns 0 or -1. */
int wc_api_check_fields(const json_t *obj, const char *at, const char *const *known,
                        const char *const *more, wc_api_error *e);
/** `v` as the shortest text that reads back as the same double
 *  (wc_num_text; docs/http-api.md, "Errors"). */
const char *wc_api_num_text(char buf[32], double v);
/** 422 `invalid_value` at `field`: "NAME: WHAT, got V", WHAT formatted
 *  from `fmt` and V printed in full (wc_api_num_text). A limit of
 *  models/limits.h is worded as the predictor words it (predict/capacity.c)
 *  so that the CLI and every route say the same. Returns -1. */
int wc_api_invalid(wc_api_error *e, const char *field, double v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/** The number `x` read from `v` as sent: a JSON integer's own digits
 *  (exact to 2^63 - 1) where the double rounds them; an integer literal
 *  past 64 bits, read as a double (server/body.c), by the digits the
 *  body held, when the request's body had one literal of that double
 *  (wc_api_wide_note); else wc_api_num_text. Returns `buf`. */
const char *wc_api_value_text(char buf[32], const json_t *v, double x);
/** The integer literals past 64 bits of the body being read, each read as
 *  the double `x`, kept per thread for wc_api_value_text: a request's
 *  handler thread clears them (wc_api_wide_clear) before it reads its
 *  body, and the reader notes each one (`text`, `len` bytes). */
void wc_api_wide_clear(void);
void wc_api_wide_note(const char *text, size_t len, double x);
/** A library's refusal `msg` of the number `x` read from `v` (a message
 *  that starts with the field's name and ends "got X", X as wc_num_text
 *  prints x: wc_predict_money_check, wc_ft_steps_check) as 422
 *  invalid_value at `field`, X replaced by the value as sent
 *  (wc_api_value_text): the library sees only the double. Returns -1. */
int wc_api_refused_value(wc_api_error *e, const char *field, const json_t *v, double x, const char *msg);
/** wc_api_invalid quoting `v` as sent (wc_api_value_text). Returns -1. */
int wc_api_invalid_json(wc_api_error *e, const char *field, const json_t *v, double x, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/** The whole number `v` at `field` into `*x`: not a number is 422
 *  `wrong_type` naming what came (wc_api_wrong_type), a fraction 422
 *  `wrong_type` with its value ("NAME: expected an integer, got 1.5");
 *  2.0 is 2, as in JSON Schema. One rule for tp, the architecture's
 *  counts and every whole wc_api_bounded. Returns 0 or -1. */
int wc_api_whole(wc_api_error *e, const char *field, const json_t *v, double *x);
/** The number obj[name] in [lo, hi] (lo exclusive when `open`; a whole
 *  number when `whole`: 2.0 is 2), its field `at`/`name`: not a number,
 *  or a fraction where a whole number is asked, is 422 `wrong_type`
 *  naming what came (wc_api_wrong_type); out of range 422
 *  `invalid_value` with the value as sent (wc_api_invalid). Every
 *  bounded number of a request is checked so (docs/http-api.md,
 *  "Errors"). 1 = absent, 0 = `*out` set, -1 = refused. */
int wc_api_bounded(const json_t *obj, const char *at, const char *name, int whole, double lo, int open, double hi,
                   double *out, wc_api_error *e);
/** 404 `unknown_model` at /model: `name` is no catalog model. Every route
 *  that takes a model refuses it in these words, with the catalog entry it
 *  is likely a typo of (wc_model_suggest, as the CLI's refusal;
 *  docs/http-api.md, "Errors") and `instead`, how that route takes a
 *  model of one's own. Returns -1. */
int wc_api_unknown_model(wc_api_error *e, const char *name, const char *instead);
/** The same refusal at the JSON pointer `field` (a calibration run's
 *  /runs/I/model), its message opening with the field's name. Returns -1. */
int wc_api_unknown_model_at(wc_api_error *e, const char *field, const char *name, const char *instead);
/** The seed at obj[key], when present: a JSON integer 0..2^63-1 (as the
 *  CLI's --seed), or a whole number up to 2^53 written otherwise; 422
 *  naming /key else. Returns 0 or -1. */
int wc_api_seed(const json_t *obj, const char *key, uint64_t *out, wc_api_error *e);
/** Bytes of `s` to keep so that at most `max` remain (for "%.*s" quotes
 *  of client text in messages): a cut inside a UTF-8 character is left for
 *  wc_api_error_set, whose formatting makes it "..." as on the CLI. */
size_t wc_utf8_prefix(const char *s, size_t max);
/** Make `s` valid UTF-8 in place: a character cut at the end is dropped,
 *  any other invalid byte becomes '?'. */
void wc_utf8_repair(char *s);
/** Append `key` to a JSON pointer, escaping '~' and '/' (RFC 6901); a key
 *  that does not fit is cut between characters. */
void wc_json_pointer_append(char *ptr, size_t cap, const char *key);
/** New reference: {"status", "code", "message", "field"?, "line"?, "column"?}
 *  with `prefix` put in front of the field (a batch item's "/3"). */
json_t *wc_api_error_json(const wc_api_error *e, const char *prefix);

#endif
