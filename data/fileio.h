/*
 * File helpers every reader and writer uses: whole-file reads with a size
 * limit, atomic writes (temporary file beside the target, fsync, rename),
 * SHA-256 fingerprints, UTC timestamps. Ownership: buffers returned through
 * `char **` are malloc'd; the caller frees them.
 */
#ifndef WC_DATA_FILEIO_H
#define WC_DATA_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** SHA-256 (FIPS 180-4) of a buffer / a whole file, as 64 lowercase hex
 *  digits plus NUL. */
void wc_sha256_hex(const void *data, size_t len, char out[65]);
int wc_sha256_file_hex(const char *path, char out[65], wc_error *err);

/** Write `len` bytes to `path` atomically (mkstemp beside it, fsync,
 *  rename, fsync of the folder). On failure the old file is untouched and
 *  no temporary file is left behind. The temporary is named
 *  `<path>.tmp.<pid>.XXXXXX`; a writer killed before its rename leaves it,
 *  and the next write of `path` (or a batch of its folder,
 *  wc_write_batch_begin) removes every such file whose pid is no longer
 *  alive. A link to a regular file replaces the file it names (the
 *  link stays); a path that exists and is not a regular file (/dev/null,
 *  /dev/stdout, a FIFO) is written in place, not replaced; a folder is
 *  refused, and so is a file this process read (wc_open_input), nothing
 *  written. */
int wc_write_file_atomic(const char *path, const void *data, size_t len, wc_error *err);

/** Many atomic writes into one folder (ingest's series folder): the
 *  folder is listed once, at wc_write_batch_begin, which removes the
 *  temporaries `<name>.tmp.<pid>.XXXXXX` of every target in it whose pid
 *  is no longer alive; wc_write_batch_file then writes as
 *  wc_write_file_atomic does, without listing that folder again (a file
 *  outside it, a link's target elsewhere, is swept as a single write is).
 *  Listing the folder for each file made writing N files into it take
 *  time in N squared. A live writer's temporary is never touched. Each
 *  caller keeps its own batch (no shared state; threads may each have
 *  one); a batch holds nothing to free. */
typedef struct wc_write_batch {
	int swept;                   /* the folder was listed */
	unsigned long long dev, ino; /* which folder, by device and inode */
} wc_write_batch;

/** Sweep folder `dir` and remember it in `batch` (a folder that cannot
 *  be read is not remembered: its files are then written singly). */
void wc_write_batch_begin(wc_write_batch *batch, const char *dir);

/** wc_write_file_atomic of a file of `batch`'s folder; `batch` NULL: a
 *  single write. */
int wc_write_batch_file(const wc_write_batch *batch, const char *path, const void *data, size_t len,
                        wc_error *err);

/** Create an empty file named as a temporary of `path`
 *  (`<path>.tmp.<pid>.XXXXXX`, mkstemp: a name no other writer has) and
 *  set `*out` to its name (malloc'd); WC_OK, or an error (`*out` NULL). For a file written
 *  under that name and renamed to `path` later (ingest's pending series):
 *  if the writer dies first, the next write of `path` or batch of its
 *  folder removes it as any dead writer's temporary. */
int wc_temporary_reserve(const char *path, char **out, wc_error *err);

/** fsync folder `dir`, making the renames and creations in it durable;
 *  0, or -1 when it cannot be opened or synced (some filesystems refuse:
 *  callers treat it as best effort). */
int wc_fsync_dir(const char *dir);

/** Open an input file for reading (binary), or NULL with `err` naming
 *  why: the system's reason, or a folder, which fopen opens and whose
 *  first read then fails with a bare "read error". The caller fcloses.
 *  Once wc_input_guard_on was called, a regular file opened here is
 *  remembered (device and inode) for the life of the process, and
 *  wc_write_file_atomic refuses to replace it, by any path (docs/cli.md,
 *  "Conventions"). Every input file is read through this function
 *  (wc_read_file, the line reader, SHA-256). */
FILE *wc_open_input(const char *path, wc_error *err);

/** Turn on the guard of wc_open_input: for a process that runs one
 *  command and writes its outputs (the command line), not for one that
 *  reads files for ever and writes none (the server, whose record would
 *  only grow) nor a library user that may rewrite what it read. */
void wc_input_guard_on(void);

/** Forget that the file at `path` was read, so that an output may replace
 *  it: for a file read whole before any work and meant to be written back
 *  (a parameter file given as `--params` and `-o`, docs/cli.md). */
void wc_input_may_be_replaced(const char *path);

/** WC_EPARSE and a message of `path` when buf[0..len) begins with a
 *  UTF-16 byte order mark (FF FE or FE FF, as PowerShell's `>` writes a
 *  log) or is UTF-16 without one (its first bytes alternate 0x00 with
 *  ASCII text), else WC_OK: every text reader reads UTF-8, and such a file
 *  showed as a control byte or a JSON syntax error at its first line
 *  (docs/formats/telemetry.md, "Bad lines"). The one test, for the line
 *  reader and wc_read_file alike. */
int wc_text_refuse_utf16(const char *buf, size_t len, const char *path, wc_error *err);
/** The test of wc_text_refuse_utf16 alone, for a text that is no file (an
 *  HTTP request's body): NULL when buf[0..len) is not UTF-16, else the
 *  encoding's iconv name ("UTF-16", "UTF-16LE", "UTF-16BE") with `what`
 *  describing it ("UTF-16LE text (no byte order mark)"). */
const char *wc_text_utf16_what(const char *buf, size_t len, char what[48]);

/** 1 when buf[0..len) begins with gzip's magic bytes 1F 8B (RFC 1952,
 *  2.3.1), else 0: no text input is compressed, and a gzip file read as
 *  text was named by its first bytes, as JSON that is not JSON at 1:1 or
 *  as a scrape that is an error page. The one test, for wc_read_file and
 *  every CSV reader's header (docs/formats/telemetry.md, "Bad lines"). */
int wc_text_is_gzip(const char *buf, size_t len);

/** 3 when buf[0..len) begins with a UTF-8 byte order mark (EF BB BF),
 *  else 0: the mark is not part of any text input, file or HTTP body, and
 *  is skipped (docs/formats/telemetry.md, "Bad lines"). The one test. */
size_t wc_text_bom_len(const char *buf, size_t len);
/** When buf[0..len) begins with a UTF-8 byte order mark and another
 *  follows it, past blanks and line ends alone, that second mark's line
 *  and column (1-based, counted after the first mark, as a reader that
 *  skipped it counts), else 0 for both: the second is no text either, and
 *  a reader that skipped the first would quote it as an invisible
 *  '<U+FEFF>' (a JSON parser's "near" token). Every file wc_read_file
 *  reads and an HTTP body are refused with WC_TEXT_SECOND_BOM at that
 *  place (docs/formats/telemetry.md, "Bad lines"). The one test. */
int wc_text_second_bom(const char *buf, size_t len, int *column);
#define WC_TEXT_SECOND_BOM "a second byte-order mark (U+FEFF)"
/** WC_EPARSE "PATH:L:C: a second byte-order mark (U+FEFF) after the
 *  first: save at most one" when wc_text_second_bom finds one in buf (a
 *  file read whole, or the first block of a CSV log read line by line),
 *  else WC_OK: the one refusal of both readers. */
int wc_text_refuse_second_bom(const char *buf, size_t len, const char *path, wc_error *err);

/** Read a whole file into a malloc'd, NUL-terminated buffer (caller frees).
 *  Files over `max_bytes` are refused, and so are gzip-compressed ones
 *  (wc_text_is_gzip: `PATH:1:1: a gzip-compressed file ...: decompress
 *  it first`; no decompressor is linked). A leading UTF-8 byte order mark is
 *  dropped (every text input may carry one). */
int wc_read_file(const char *path, size_t max_bytes, char **out, size_t *len_out,
                 wc_error *err);

/** Current UTC time as YYYY-MM-DDTHH:MM:SSZ. */
void wc_utc_now(char out[24]);

/** Name of a JSON value's type for messages ("object", "number", ...).
 *  Declared on jansson's struct so this header needs no jansson include. */
struct json_t;
const char *wc_json_type_name(const struct json_t *v);

/** Where jansson refused a text, 1-based as every position a message
 *  gives (a file's "path:L:C", the API's "line"/"column"): jansson says
 *  column 0 before a line's first character (a text ending after a
 *  newline) and line 0 before any, which are 1. jansson gives the column
 *  of the last character it read; the fault is placed instead: a bad
 *  escape in a string at its backslash, a control character or line end
 *  in a string at itself, any other error at the first character of the
 *  token jansson read, whatever its length (its "near" quote holds 20
 *  bytes at most, so `text`, the len bytes jansson was given or the
 *  caller's text it was made from, is looked at; NULL: the quote only).
 *  One rule for files and request bodies (docs/http-api.md, "Errors"). */
struct json_error_t;
void wc_json_error_at(const struct json_error_t *e, const char *text, size_t len, int *line, int *column);
/** jansson's reason, but a byte-order mark as its "near" token named as
 *  "... near a byte-order mark (U+FEFF): remove it" (written into buf)
 *  rather than quoted invisible. The one rule for files and bodies. */
#define WC_JSON_ERROR_TEXT_MAX 192
const char *wc_json_error_text(const struct json_error_t *e, char *buf, size_t cap);
/** WC_EPARSE with "SOURCE:L:C: LEAD<jansson's reason>" (wc_json_error_at's
 *  position in `text`, the len bytes read; `lead` "" or e.g. "malformed JSON: "): every file reader's
 *  refusal of text that is not JSON. */
int wc_json_error_set(wc_error *err, const char *source, const char *lead, const struct json_error_t *e,
                      const char *text, size_t len);

#ifdef __cplusplus
}
#endif
#endif
