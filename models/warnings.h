/*
 * The one warnings list (docs/statistics.md, "Warnings"): every result
 * that carries warnings (fits, calibrations, predictions, envelopes,
 * fine-tuning traces) holds them as
 *     char warnings[WC_WARNINGS_MAX][WC_WARNING_LEN]; int n_warnings;
 * and adds to them with wc_warnings_add (or WC_WARN), printf-style:
 * a warning longer than WC_WARNING_LEN - 1 bytes ends in "..." there
 * (wc_error_format: never overrun, never cut silently), and once the list
 * is full further warnings are dropped.
 * Warnings streamed to a callback while reading (ingest, fleet telemetry)
 * are not lists and do not use this.
 *
 * Ownership: the list is part of its result struct (plain arrays).
 */
#ifndef WC_MODELS_WARNINGS_H
#define WC_MODELS_WARNINGS_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Warnings one result keeps; more are dropped. */
#define WC_WARNINGS_MAX 16
/** Bytes of one warning, NUL included (= WC_ERROR_MSG_MAX). */
#define WC_WARNING_LEN 256

/** Append a printf-formatted warning to list[0..*n); returns 1 when
 *  added, 0 when the list was full. */
int wc_warnings_add(char (*list)[WC_WARNING_LEN], int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int wc_warnings_vadd(char (*list)[WC_WARNING_LEN], int *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/** A growable list (warnings kept from a reader's callback, which has no
 *  bound of its own): append `msg` to (*list)[0..*n), growing *list and
 *  *cap as needed (owned by the caller, free()d). Returns 1 when added, 0
 *  out of memory (the list as it was). */
int wc_warnings_keep(char (**list)[WC_WARNING_LEN], size_t *n, size_t *cap, const char *msg);

/** Add to the list of a struct with the fields above. */
#define WC_WARN(obj, ...) wc_warnings_add((obj)->warnings, &(obj)->n_warnings, __VA_ARGS__)

#ifdef __cplusplus
}
#endif
#endif
