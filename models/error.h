/*
 * Status codes and the caller-supplied error detail every wattcast
 * function reports through (docs/architecture.md, "Errors").
 */
#ifndef WC_MODELS_ERROR_H
#define WC_MODELS_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes: 0 = success, negative = failure. */
enum {
	WC_OK = 0,
	WC_EINVAL = -1,    /* invalid argument or input value */
	WC_ENOMEM = -2,    /* allocation failed, or a size overflowed */
	WC_ENOTFOUND = -3, /* unknown name (platform, model, file) */
	WC_EIO = -4,       /* read/write failure */
	WC_EPARSE = -5,    /* malformed file or text */
	WC_ENOCONV = -6,   /* a fit did not converge */
	WC_ERANGE = -7     /* a value outside what the law can evaluate */
};

#define WC_ERROR_MSG_MAX 256

/** Caller-supplied error detail (like jansson's json_error_t): no hidden
 *  thread-local state. `msg` is one line, without a "failed to" prefix. */
typedef struct {
	int code;
	char msg[WC_ERROR_MSG_MAX];
} wc_error;

/** Fill `err` (may be NULL) and return `code`, so callers can write
 *  `return wc_error_set(err, WC_EINVAL, "tp: must be >= 1");`. */
int wc_error_set(wc_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** printf into buf[0..size) (size >= 4): text that does not fit ends with
 *  "..." after the last whole UTF-8 character that leaves room for it, so
 *  a cut is never silent nor half a character (docs/architecture.md,
 *  "Errors"). Returns 1 when the text was cut, else 0. What wc_error_set
 *  and the warnings list (models/warnings.h) do to each message. */
int wc_error_format(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int wc_error_vformat(char *buf, size_t size, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/** `path` then printf's text into buf[0..size) (16 <= size <= WC_ERROR_MSG_MAX),
 *  the one rule for a message that quotes a file's path before its text
 *  (docs/architecture.md, "Errors"): when the two do not fit, the path
 *  loses its middle -- its head and its file name kept, joined by "...",
 *  never inside a UTF-8 character -- so the text, the reason, stays whole;
 *  the text's quoted parts (WC_QUOTE_OPEN) are shortened before the file's
 *  folder is dropped, when that keeps it; a text too long even beside
 *  "...<file name>" is cut at its end as wc_error_vformat cuts. Returns 1
 *  when anything was cut, else 0. */
int wc_error_format_path(char *buf, size_t size, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int wc_error_vformat_path(char *buf, size_t size, const char *path, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
/** Around a part of such a text that quotes its input (a GPU's uuid):
 *  when the path's folder and file name would not fit beside the text,
 *  the quoted part is shortened first, ending in "...", so the folder
 *  that says which run stays (docs/architecture.md, "Errors"). The marks
 *  are control bytes, never shown; every wc_error format removes them. */
#define WC_QUOTE_OPEN "\x1e"
#define WC_QUOTE_CLOSE "\x1f"
/** wc_error_set of `path` then the text, by wc_error_vformat_path's rule. */
int wc_error_set_path(wc_error *err, int code, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** Bytes `path` takes at least in a message wc_error_vformat_path writes
 *  of it: "..." and the file's (or folder's) name, which it keeps. */
size_t wc_error_path_least(const char *path);
/** Bytes left for each of `n` names (a series with all its labels, often
 *  150 bytes and more) in a message with `fixed` other bytes, at least 16
 *  each: the name gives way so that what went wrong and the flag that
 *  fixes it arrive whole, where a cut at the message's end lost them
 *  (docs/fleet.md, "Problems in the data"). */
size_t wc_error_name_room(size_t fixed, size_t n);
/** `name` in at most `room` bytes (and `size` - 1) into `out`: when
 *  longer, cut by wc_error_format's rule (at a character, ending "..."). */
void wc_error_name_cut(const char *name, size_t room, char *out, size_t size);

/** The text of `msg`, a message wc_error_set_path wrote of `path`: what
 *  follows the path or its shortened form ("head...<file name>"); NULL
 *  when it quotes neither. For a caller that puts words of its own
 *  (a flag) in front and quotes the path again in the room left. */
const char *wc_error_path_text(const char *msg, const char *path);

/** In place, in buf[0..size): a UTF-8 character cut short inside the text
 *  (a lead byte with fewer continuation bytes than it announces, as a
 *  "%.64s" of a name leaves it) becomes "..." (or is dropped when there is
 *  no room); other bytes are kept. wc_error_vformat does it to each
 *  message; the CLI's own messages too. */
void wc_text_mend_cut(char *buf, size_t size);

/** Bytes of `s` to keep so that at most `max` remain without cutting a
 *  UTF-8 character in two: strlen(s) when it fits, else `max` moved back
 *  to a character's first byte. Every cut of a name or id at a byte count
 *  goes through it. */
size_t wc_utf8_keep(const char *s, size_t max);
/** The other end: the offset in s[0..len) from which at most `max` bytes
 *  remain, moved forward to a character's first byte. Every cut that keeps
 *  a path's or an id's end goes through it. */
size_t wc_utf8_keep_end(const char *s, size_t len, size_t max);

/** The one UTF-8 validity rule (no overlong forms, surrogates or code
 *  points above U+10FFFF: what jansson requires of every string): the
 *  offset of the first byte of s[0..len) that does not start a valid
 *  sequence, or `len` when all are valid. */
size_t wc_utf8_check(const char *s, size_t len);
/** When `s` is not valid UTF-8, "not valid UTF-8 at byte K" (K 1-based in
 *  `s`) into why[0..cap) and 1; else 0. How every reader and flag refuses
 *  a name jansson could not write (docs/architecture.md, "Errors"). */
int wc_utf8_refuse(const char *s, char *why, size_t cap);
/** `s` as UTF-8 text in out[0..cap): each byte that does not start a
 *  valid sequence (by wc_utf8_check) becomes U+FFFD, valid characters are
 *  copied, and a character that would not fit whole is left out with all
 *  after it. For bytes that are not a name but must be shown in JSON: a
 *  file's path (docs/architecture.md, "Errors"). Returns the number of
 *  bytes replaced. */
size_t wc_utf8_mend(const char *s, char *out, size_t cap);

/** The first control byte of `s` (below 0x20, and 0x7f), 1-based; 0
 *  when it has none. The one test of a name that must print on one line:
 *  a set's label (wc_params_check_name), the names a calibration writes
 *  into a set (server/calibrate_request.c), each message's bytes. */
size_t wc_text_control_at(const char *s);
/** Replace every control byte of `msg` (wc_text_control_at) with '?',
 *  in place: what wc_error_set does to each message. */
void wc_error_printable(char *msg);

/** `v` as the shortest text that reads back as the same double, in `buf`:
 *  %g's six digits print 1000001 as "1e+06", the very limit a message
 *  refuses it for (docs/architecture.md, "Errors"). Returns `buf`. */
const char *wc_num_text(char buf[32], double v);
/** The same into a buffer that lives until the end of the enclosing block
 *  (a compound literal): for a message's argument, "got %s" with
 *  WC_NUM_TEXT(x) quotes the value as given where "%g" rounded 604800.05
 *  to the bound it broke. */
#define WC_NUM_TEXT(v) wc_num_text((char[32]){ 0 }, (v))
/** `v` with the fewest significant digits (4 at least) whose text still
 *  stands to `other` as `v` does (above, below or equal): for a derived
 *  value a message compares with the user's, "170 W is at or below the
 *  idle power, 178.5 W" where the shortest round trip printed
 *  178.46428571428575. Returns `buf`. */
const char *wc_num_against(char buf[32], double v, double other);
#define WC_NUM_AGAINST(v, other) wc_num_against((char[32]){ 0 }, (v), (other))

/* ---------------------------------------------- lists of names in messages */

/* A list of names inside a message (docs/architecture.md, "Errors"): the
 * names a refusal offers instead of the one asked ("known: A100, H100,
 * ...", "serving: ..."), joined with ", " within a byte budget. A list
 * that does not fit ends at a whole name and says how many it left out
 * ("A100, H100 and 9 more"), so that the message's own end -- the pointer
 * to the route that lists them all -- stays, where a cut at the budget
 * ended inside a name ("Custom-Accelerator-Number-04-Exte...") or, on the
 * CLI, dropped the rest without a word. The one place such a list is cut
 * (models/name_list.c). The list writes into the caller's buffer. */
/* Names whose start a list remembers, newest first, to give their room to
 * " and N more": it frees at most 21 bytes (" and 2147483647 more"), and
 * each name given back frees at least 3 (", x") but the first. */
#define WC_NAME_LIST_BACK 16

typedef struct {
	char *buf;
	size_t cap;   /* bytes of buf, its NUL included: at most cap - 1 are written */
	size_t used;  /* bytes written */
	size_t full;  /* bytes the whole list would take */
	int shown;    /* names written */
	int left;     /* names left out */
	size_t starts[WC_NAME_LIST_BACK]; /* where the last names written start (a ring) */
} wc_name_list;

/** Start an empty list in buf[0..cap) (cap 0: measure only, `full`). */
void wc_name_list_init(wc_name_list *l, char *buf, size_t cap);
/** Add the `len` bytes of `name`: written after ", " when it fits, else
 *  counted with the names left out, as is every name after one left out
 *  (the list keeps its order). */
void wc_name_list_add(wc_name_list *l, const char *name, size_t len);
/** End the list: when names were left out, " and N more" (or "N names"
 *  when none fits beside it), taking the room of the last names written
 *  when it needs it. Returns the buffer. */
const char *wc_name_list_end(wc_name_list *l);

/** How `room` bytes are shared by two lists whose whole texts take
 *  `full_a` and `full_b`: each whole when both fit, else the first at
 *  least half (and all the second leaves). Returns the first's room; the
 *  second takes what the first's text leaves of `room`. */
size_t wc_name_lists_share(size_t room, size_t full_a, size_t full_b);

#ifdef __cplusplus
}
#endif
#endif
