/*
 * cli/ — the `wattcast` entry point. One file per command; this header
 * lists them and the small helpers every command uses so that all report
 * usage errors the same way: exit status 2 and one line naming the flag.
 *
 * Exit status: 0 success, 1 the work failed (bad file, fit error),
 * 2 the command line was wrong.
 */
#ifndef WC_CLI_H
#define WC_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "models/models.h"
#include "trace/ingest.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

typedef struct {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the command name */
	const char *reads;  /* progress task of a command that reads files ("MB read"), or NULL */
} cli_command;

/** One subcommand of a command that has them (`fit inference`): its
 *  name, its handler (argv[0] is the subcommand's name) and its lines of
 *  the usage block (the first without "usage: ", continuation lines
 *  indented as printed). */
typedef struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} cli_subcommand;

/** A command's subcommands (cli/subcommands.c): the table the branch,
 *  the "unknown NOUN" error and the usage block all come from. */
typedef struct {
	const char *cmd;             /* "fit" */
	const char *noun;            /* what a subcommand is called: "target", "analysis" */
	const cli_subcommand *subs;
	size_t n;
	const char *about;           /* the help after the usage block */
} cli_subcommands;

/** The usage block (every entry's usage) and the rest of the help. */
void cli_subcommands_usage(const cli_subcommands *t, FILE *out);
/** Run the subcommand argv[1] names; --help/-h prints the help on stdout,
 *  no subcommand prints it on stderr (exit 2), an unknown one is a usage
 *  error listing the table's names. */
int cli_subcommands_run(const cli_subcommands *t, int argc, char **argv);

/** Progress on stderr for long work (cli/progress.c): installed when stderr
 *  is a terminal and `quiet` is 0. */
void cli_progress_setup(int quiet);
/** A usage error for a platform neither the parameter set nor the catalog
 *  knows, listing the set's levels and the datasheet boards (one wording
 *  for every command that answers a configuration; cli/cmd_predict.c). */
int cli_unknown_platform(const char *cmd, const wc_params *params, const char *platform);
/** Whether --quiet stood anywhere on the line (main takes it out before a
 *  command parses its flags, so the commands whose --quiet also silences
 *  warnings ask here). */
int cli_quiet(void);
/** Seconds on the monotonic clock (for elapsed times). */
double cli_now_s(void);

/* Commands (cli/cmd_*.c). */
int cli_cmd_predict(int argc, char **argv);
int cli_cmd_fit(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_simulate(int argc, char **argv);
int cli_cmd_import(int argc, char **argv);
int cli_cmd_ingest(int argc, char **argv);
int cli_cmd_metrics(int argc, char **argv);
int cli_cmd_serve(int argc, char **argv);
int cli_cmd_calibrate(int argc, char **argv);
/** `validate fewshot` (cmd_validate_fewshot.c); argv[0] is "fewshot". */
int cli_validate_fewshot(int argc, char **argv);
int cli_cmd_envelope(int argc, char **argv);
int cli_cmd_profile(int argc, char **argv);
int cli_cmd_models(int argc, char **argv);
/** The refusal of --model `model` the catalog does not know (exit 2): the
 *  entry it is most likely a typo of (wc_model_suggest), where the list
 *  is, and `instead`, what else the command takes (cmd_models.c). */
int cli_model_unknown(const char *cmd, const char *model, const char *instead);
/* Subcommands in files of their own. */
int cli_fit_response(int argc, char **argv);      /* fit response */
int cli_fit_intervals(int argc, char **argv);     /* fit intervals */
int cli_validate_envelope(int argc, char **argv); /* validate envelope */

/** Print "wattcast CMD: message" on stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Print "wattcast CMD: message" on stderr; returns CLI_FAIL. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** cli_fail of `path` then the text, the path quoted by the one rule
 *  (wc_error_format_path, docs/architecture.md "Errors"): the message
 *  after "wattcast CMD: " within 255 bytes, the reason whole. */
int cli_fail_path(const char *cmd, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** The last line of an ingest that refused `failed` runs, naming the
 *  first refused (`first`, a run folder or RUN_DIR; NULL names none):
 *  with --quiet it is what says which run (docs/cli.md, "ingest"). */
int cli_fail_refused(const char *cmd, int failed, const char *first);
/** cli_fail_path with "FLAG: " in front: the path quoted in the room the
 *  flag leaves, so the reason stays whole. */
int cli_fail_flag_path(const char *cmd, const char *flag, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/** "FLAG: " then `msg`, a reader's message of `path`, into buf[0..size)
 *  (80 <= size <= WC_ERROR_MSG_MAX): the path quoted again in the room the flag
 *  leaves, so the reason stays whole (wc_error_path_text). */
void cli_flag_message(char *buf, size_t size, const char *flag, const char *path, const char *msg);
/** Close the memory stream `f` (open_memstream(buf, len)) and write its
 *  bytes to `path` atomically; frees *buf. CLI_OK, or CLI_FAIL after
 *  saying why. */
int cli_write_memstream(const char *cmd, const char *path, FILE *f, char **buf, size_t *len);
/** An SVG axis's ticks in [lo, hi]: the multiples of one step of 1, 2 or
 *  5 x 10^e giving at most `target` intervals, into ticks[0..cap); returns
 *  how many. `decimals`: the places that print each one exactly, so a
 *  label reads its own position (cli/envelope_io.c, cli/flexibility_io.c). */
int cli_svg_ticks(double lo, double hi, int target, double *ticks, int cap, int *decimals);
/** Print a report's JSON object on stdout as every `validate` analysis
 *  does (indented, keys in order, 6 significant digits) and release it
 *  (the reference is stolen; NULL prints nothing). */
struct json_t;
void cli_print_json_report(struct json_t *o);

/** Report what getopt_long returned for a bad option (':' missing value,
 *  '?' unknown flag) as a usage error; call from the `default:` branch. */
int cli_bad_option(const char *cmd, int opt, char **argv);

/** getopt_long, but a flag given an empty value ("-o ''", "--output=")
 *  comes back as CLI_OPT_EMPTY, which cli_bad_option reports naming the
 *  flag (docs/cli.md, "Conventions"). Every command parses with it. */
/** A name flag's value (--model, --platform, --name, --relative-to,
 *  --share) that is not valid UTF-8 comes back as CLI_OPT_NOT_UTF8, which
 *  cli_bad_option reports ("--model: not valid UTF-8 at byte 4"). */
enum { CLI_OPT_EMPTY = -2, CLI_OPT_NOT_UTF8 = -3 };
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               int *longindex);

/** The folder a file path names: the text before its last '/', "/" for a
 *  file at the root, "." for none; into `buf`, which comes back. */
const char *cli_folder_of(const char *path, char *buf, size_t cap);
/** Refuse, before any work, an output (`flag`'s value `out`; NULL: none)
 *  whose folder does not exist or is not a folder, that is itself a
 *  folder, or that is the same file as one of the `n` inputs (NULL entries
 *  skipped), compared by device and inode so links and "./" paths are
 *  caught: the usage error naming the flag (and the folder), or CLI_OK
 *  (also when `out` does not exist yet). Every command that writes a file
 *  calls it or cli_check_outputs. */
int cli_check_output(const char *cmd, const char *flag, const char *out, const char *const *inputs,
                     size_t n);

/** cli_check_output for each of the `n_out` outputs (NULL entries skipped;
 *  `flags[i]` names `outs[i]`), and no two outputs one file: the usage
 *  error naming both flags, or CLI_OK. */
int cli_check_outputs(const char *cmd, const char *const *flags, const char *const *outs, size_t n_out,
                      const char *const *inputs, size_t n_in);

/** After getopt_long: exactly one operand left (`what`, e.g. "RUNS.csv"),
 *  at argv[optind]. CLI_OK, or the usage error naming what is missing or
 *  repeated. */
int cli_expect_one_operand(const char *cmd, int argc, const char *what);

/** Strict number parsing for flag values: the whole text must be a
 *  decimal number within the bounds (no blanks, no hex form, no "inf" or
 *  "nan": docs/cli.md, "Conventions"); otherwise a usage error naming
 *  `flag` and quoting the text. A text too small for a double (1e-320) is
 *  the tiny number it is; one too large (1e999) gets the flag's own range,
 *  as 1e300 does. Which of the three a flag takes says where that range is:
 *  - cli_parse_double: checked after the number is read (the envelope's
 *    --horizon, --warmup, ..., a clock against the platform's, --max-bad's
 *    1): a text past every double comes back as +HUGE_VAL, CLI_OK, for that
 *    check to refuse with the range it gives 1e300; -1e999 is below `min`
 *    (unless `min` is -INFINITY), refused here. The caller MUST refuse
 *    +inf after.
 *  - cli_parse_double_max: `max` here (a limit of models/limits.h).
 *  - cli_parse_double_unbounded: no upper bound at all (--power-cap,
 *    --concurrency): 1e999 is refused as past the largest double. */
int cli_parse_double(const char *cmd, const char *flag, const char *text, double min,
                     int min_inclusive, double *out);
int cli_parse_double_max(const char *cmd, const char *flag, const char *text, double min,
                         int min_inclusive, double max, double *out);
int cli_parse_double_unbounded(const char *cmd, const char *flag, const char *text, double min, int min_inclusive,
                               double *out);
/** `text`, the flag's value past every double that cli_parse_double handed
 *  on (NULL: the flag's last value was a double), kept for the refusal
 *  that follows (cli/typed_huge.c). */
void cli_remember_huge(const char *flag, const char *text);
/** `msg` with the value of the flag it starts with ("--horizon: ... got
 *  inf") quoted as typed ("got '1e999'") when that flag's text was past
 *  every double, written into `out`; else `msg` itself. Every CLI message
 *  passes it (cli_usage_error, cli_fail). */
const char *cli_quote_typed_huge(const char *msg, char *out, size_t cap);
/** A number in [lo, hi] (a limit of predict/envelope.h or models/limits.h),
 *  anything outside it -- 0, a negative, a text too small for a double
 *  (strtod underflows: 1e-320) -- refused with the range, as the HTTP
 *  routes refuse it; a text that is no number as "expected a number". */
int cli_parse_range(const char *cmd, const char *flag, const char *text, double lo, double hi, double *out);
/** A load (`--concurrency`, `--rate`) as cli_parse_double_max takes it
 *  (>= 0 with `zero_ok`, else > 0; at most `max`), and a positive value
 *  below `least` (models/limits.h) refused naming that bound and `unit`,
 *  also when the text is too small for a double (strtod underflows). */
int cli_parse_load(const char *cmd, const char *flag, const char *text, int zero_ok, double least,
                   double max, const char *unit, double *out);
/** A whole number in [min, max]: plain digits, exactly, or a whole number
 *  written with an exponent or a fraction part (`8e0`, `4.0`) up to
 *  WC_WHOLE_EXACT_MAX; one past every long (1e999) gets the range. */
int cli_parse_int(const char *cmd, const char *flag, const char *text, long min, long max,
                  long *out);
/** `--max-bad FRACTION` of ingest and metrics, one rule for both: the share
 *  of malformed lines above which a file is refused, 0 to 1, where 0 allows
 *  no bad line (docs/cli.md, `ingest`). */
int cli_parse_max_bad(const char *cmd, const char *text, double *out);
/** A seed, 0 .. 2^63 - 1, as cli_parse_int reads a whole number: `1e3`,
 *  `4.0` and `-0` are seeds; one written with an exponent or a fraction
 *  part is taken to 2^53 - 1 (WC_WHOLE_EXACT_MAX), one above in plain digits,
 *  exactly, as over HTTP. */
int cli_parse_u64(const char *cmd, const char *flag, const char *text, uint64_t *out);
/** `--engine NAME`: the serving stack (wc_engine_parse's name into
 *  `*out`), or a usage error naming --engine, a likely typo's stack and
 *  the accepted names (docs/cli.md, "predict inference"). */
int cli_parse_engine(const char *cmd, const char *text, const char **out);
/** `v` with `decimals` into buf for a text table, "-" when it is unknown
 *  (not finite), never "nan"; returns buf. */
const char *cli_cell(char *buf, size_t cap, double v, int decimals);
/** The printf field width ("%*s") that right-aligns `text` in `columns`
 *  display columns, one per UTF-8 character: "%13s" counts bytes, and
 *  the 3-byte "–" of a cell without a number drifted its column 2 to the
 *  left of the numbers'. Every text table's "–" cell is padded by it. */
int cli_field_width(const char *text, int columns);
/** `width` widened to hold `cell` whole: a text table's platform column is
 *  as wide as its longest name (H100-NVL, RTX-PRO-6000 were cut to 6). */
int cli_column_width(int width, const char *cell);
/** `id` in at most `width` bytes for a summary's run_id column: a longer
 *  one loses its middle ("..."), never its end (where the "#seg3" of a
 *  segment and a run's timestamp are), and is cut only between UTF-8
 *  characters (docs/cli.md, "ingest"). Returns `id` or `buf` (cap >
 *  width). The serving and fine-tuning summaries both. */
const char *cli_fit_id(const char *id, size_t width, char *buf, size_t cap);
/** The shared flags, one parse and one limit each (models/limits.h):
 *  --bootstrap B (0 to WC_BOOTSTRAP_MAX draws) and --threads T (1 to
 *  WC_THREADS_MAX). */
int cli_parse_bootstrap(const char *cmd, const char *text, long *out);
/** --bootstrap `boot` draws of `k` parameters each, to be added to `set`
 *  (the set as it will be written but for them): CLI_OK when the file can
 *  hold them, else a usage error naming the most it surely holds
 *  (wc_params_draws_room) -- before any draw is made. */
int cli_check_bootstrap_room(const char *cmd, long boot, int k, const wc_params *set);
/** The same for `base` with its fine-tuning section replaced by one of
 *  `boot` draws (`fit finetune`, `calibrate finetune`). */
int cli_check_finetune_bootstrap_room(const char *cmd, long boot, const wc_params *base);
/** A section refitted in `set` (`fit capacity`, `fit finetune`) leaves the
 *  held-out errors measured on the one it replaced stale: quantities
 *  `q[0..n)` are dropped, as `fit inference --prior` drops its prior's,
 *  with a warning naming the `fit intervals --quantity QUANTITY` that
 *  measures the new section's (docs/intervals.md, "The set's own form"). */
void cli_drop_stale_errors(const char *cmd, wc_params *set, const int *q, int n, const char *quantity);
int cli_parse_threads(const char *cmd, const char *text, long *out);

/** The WC_TERMS_* mode of a --terms name (all, pooled, as-bf16, none;
 *  fit/fit.h), or -1. */
int cli_terms_mode(const char *name);
/** --terms TEXT into *mode (cli_terms_mode), else the usage error naming
 *  the choices; CLI_OK / CLI_USAGE. */
int cli_parse_terms(const char *cmd, const char *text, int *mode);
/** --law-terms TEXT into *mask (wc_law_terms_parse), else the usage error
 *  naming the bad item; CLI_OK / CLI_USAGE. */
int cli_parse_law_terms(const char *cmd, const char *text, unsigned *mask);
/** CLI_OK when the comma-separated list `text` of flag `flag` ("--k")
 *  has no empty item (",", "1,,3", ",1", "1,"), else the usage error
 *  naming the flag (docs/cli.md, "Conventions": values are parsed
 *  strictly; strtok skipped empty items, so "--k ," asked for no k). */
int cli_check_list(const char *cmd, const char *flag, const char *text);

/** Load --params FILE or the built-in profile (NULL = "paper": the prior
 *  of the fitting commands). Errors are printed; returns CLI_OK, CLI_USAGE
 *  for an unknown profile name (naming --profile, listing the names) or
 *  CLI_FAIL.
 *  `out` is cleared by the caller. */
int cli_load_params(const char *cmd, const char *params_path, const char *profile,
                    wc_params *out);
/** cli_load_params for a command that may write its result back over the
 *  parameter file (`fit finetune|intervals|capacity|response --params P
 *  -o P`, docs/cli.md "Conventions"): the file, read whole, may then be
 *  replaced by the finished output; every other file read stays refused. */
int cli_load_params_rewritable(const char *cmd, const char *params_path, const char *profile,
                               wc_params *out);
/** Add the truth's flag (--params FILE, quoted when the shell would split
 *  it, or --profile NAME; neither: nothing) to the end of a simulated
 *  table's "Made by: " line in `header` (room `cap`), so the line run
 *  as written makes the same file (docs/cli.md, simulate). */
void cli_made_by_truth(char *header, size_t cap, const char *params_path, const char *profile);
/** The same for commands that answer (predict, serve, envelope): NULL =
 *  the default profile, "measured" (models/profile_measured.h). */
int cli_load_answer_params(const char *cmd, const char *params_path, const char *profile,
                           wc_params *out);

/** --name TEXT, the label of a written set: refused (usage error naming
 *  --name and the limit) when the loader would refuse it; CLI_OK or
 *  CLI_USAGE. */
int cli_parse_set_name(const char *cmd, const char *text);
/** Provenance time of a written parameter file (UTC); SOURCE_DATE_EPOCH
 *  (reproducible-builds convention) pins it so a refit can be
 *  byte-identical. */
void cli_created_time(char out[24]);

/* The fine-tuning targets of fit, validate, predict and simulate
 * (cli/cmd_*_finetune.c); argv[0] is the target name. */
int cli_fit_finetune(int argc, char **argv);
int cli_calibrate_finetune(int argc, char **argv);
/** `wattcast calibrate --http-worker FOLDER`: POST /v1/calibrate's
 *  estimation, in a process of its own (cli/calibrate_worker.c; internal,
 *  in no help text). */
int cli_calibrate_http_worker(int argc, char **argv);
int cli_validate_finetune(int argc, char **argv);
int cli_predict_finetune(int argc, char **argv);

int cli_simulate_finetune(int argc, char **argv);
/* wattcast ingest of fine-tuning run folders (cli/cmd_ingest_finetune.c):
 * one flag (by its long name without "--") into the defaults, and the
 * folders into a fine-tuning runs table at `out`. */
int cli_ingest_finetune_flag(const char *cmd, const char *name, const char *value,
                             wc_run_manifest *defaults);
int cli_ingest_finetune(const char *cmd, char *const *runs, size_t n, const wc_ingest_options *o,
                        const char *out);

/* wattcast ingest of Prometheus data (cli/cmd_ingest_prometheus.c): does
 * argv ask for it (--prometheus, --prometheus-json, --scrapes), and the
 * command itself. */
int cli_ingest_is_prometheus(int argc, char **argv);
int cli_cmd_ingest_prometheus(int argc, char **argv);

/** Reset getopt for a fresh parse of a sub-argv. */
void cli_reset_getopt(void);

#endif
