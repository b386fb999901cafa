/* Flag parsing helpers shared by every command. */
#include "cli.h"
#include "data/data.h"
#include "fit/fit.h"
#include "models/catalog.h"
#include "models/profile_measured.h"
#include "models/limits.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

/* "wattcast CMD: message" (docs/cli.md): a library message that starts
 * with the command's own name ("serve: cannot listen ...", "profile:
 * unknown profile ...") is not prefixed with it twice. */
static void
vreport(const char *cmd, const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	char *msg = n >= 0 ? malloc((size_t)n + 4) : NULL; /* + room for a mended cut's "..." */
	if (!msg) {
		fprintf(stderr, "wattcast %s: ", cmd);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		return;
	}
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	wc_text_mend_cut(msg, (size_t)n + 4); /* a "%.64s" of a UTF-8 name (models/error.h) */
	size_t k = strlen(cmd);
	const char *text = strncmp(msg, cmd, k) == 0 && msg[k] == ':' && msg[k + 1] == ' ' ? msg + k + 2 : msg;
	char typed[WC_ERROR_MSG_MAX + 64];
	fprintf(stderr, "wattcast %s: %s\n", cmd, cli_quote_typed_huge(text, typed, sizeof typed));
	free(msg);
}

int
cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(cmd, fmt, ap);
	va_end(ap);
	return CLI_USAGE;
}

int
cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(cmd, fmt, ap);
	va_end(ap);
	return CLI_FAIL;
}

int
cli_fail_path(const char *cmd, const char *path, const char *fmt, ...)
{
	char msg[WC_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	wc_error_vformat_path(msg, sizeof msg, path, fmt, ap);
	va_end(ap);
	return cli_fail(cmd, "%s", msg);
}

int
cli_fail_refused(const char *cmd, int failed, const char *first)
{
	if (!first)
		return cli_fail(cmd, "%d run%s refused; nothing written", failed, failed == 1 ? "" : "s");
	if (failed == 1)
		return cli_fail_path(cmd, first, ": 1 run refused; nothing written");
	return cli_fail_path(cmd, first, ": %d runs refused, this the first; nothing written", failed);
}

int
cli_fail_flag_path(const char *cmd, const char *flag, const char *path, const char *fmt, ...)
{
	char msg[WC_ERROR_MSG_MAX];
	int k = snprintf(msg, sizeof msg, "%.64s: ", flag);
	va_list ap;
	va_start(ap, fmt);
	wc_error_vformat_path(msg + k, sizeof msg - (size_t)k, path, fmt, ap);
	va_end(ap);
	return cli_fail(cmd, "%s", msg);
}

void
cli_flag_message(char *buf, size_t size, const char *flag, const char *path, const char *msg)
{
	int n = snprintf(buf, size, "%.64s: ", flag);
	size_t k = n < 0 ? 0 : (size_t)n;
	const char *text = path ? wc_error_path_text(msg, path) : NULL;
	if (text)
		wc_error_format_path(buf + k, size - k, path, "%s", text);
	else
		wc_error_format(buf + k, size - k, "%s", msg);
}

/* `text` as strtod reads it into *v; 1 when it is a number, and then
 * refused only by the bounds of its flag (docs/cli.md, "Conventions"):
 * the whole text, finite; or an underflow (ERANGE with a result at most the
 * least normal double, C11 7.22.1.3: 1e-320), the tiny number it is
 * (*tiny 1); or an overflow (ERANGE with +-HUGE_VAL: 1e999), a number past
 * every bound, left at +-infinity so the bound it passes names it. */
static int
read_number(const char *text, double *v, int *tiny)
{
	char *end = NULL;
	errno = 0;
	*v = wc_decimal_syntax(text, 1, 0) ? strtod(text, &end) : NAN;
	int whole = end && *end == '\0', erange = errno == ERANGE;
	*tiny = whole && erange && fabs(*v) <= DBL_MIN;
	if (!whole || isnan(*v))
		return 0;
	return !erange || *tiny || isinf(*v);
}

int
cli_parse_double_max(const char *cmd, const char *flag, const char *text, double min,
                     int min_inclusive, double max, double *out)
{
	double v;
	int tiny;
	if (!read_number(text, &v, &tiny))
		return cli_usage_error(cmd, "%s: expected a number, got '%s'", flag, text);
	if (min_inclusive ? v < min : v <= min)
		return cli_usage_error(cmd, "%s: must be %s %g, got '%s'", flag,
		                       min_inclusive ? ">=" : ">", min, text);
	/* The text as given, not %g of it: 1000001 would read "1e+06", the
	 * limit it is refused for. */
	if (v > max)
		return cli_usage_error(cmd, "%s: must be at most %g, got '%s'", flag, max, text);
	if (isinf(v)) /* no bound of its own: the largest double is one */
		return cli_usage_error(cmd, "%s: must be at most %g (the largest double), got '%s'", flag, DBL_MAX,
		                       text);
	*out = v;
	return CLI_OK;
}

int
cli_parse_range(const char *cmd, const char *flag, const char *text, double lo, double hi, double *out)
{
	double v;
	int tiny;
	if (!read_number(text, &v, &tiny))
		return cli_usage_error(cmd, "%s: expected a number, got '%s'", flag, text);
	if (!(v >= lo && v <= hi)) /* the text as given: %g would round it */
		return cli_usage_error(cmd, "%s: must be between %g and %g, got '%s'", flag, lo, hi, text);
	*out = v;
	return CLI_OK;
}

int
cli_parse_load(const char *cmd, const char *flag, const char *text, int zero_ok, double least, double max,
               const char *unit, double *out)
{
	double v;
	int tiny;
	read_number(text, &v, &tiny);
	if (tiny && text[0] == '-')
		return cli_usage_error(cmd, "%s: must be %s 0, got '%s'", flag, zero_ok ? ">=" : ">", text);
	if (!tiny) {
		int rc = cli_parse_double_max(cmd, flag, text, 0, zero_ok, max, out);
		if (rc != CLI_OK || *out == 0 || *out >= least)
			return rc;
	}
	if (zero_ok)
		return cli_usage_error(cmd, "%s: must be 0 (idle) or at least %g %s, got '%s'", flag, least, unit, text);
	return cli_usage_error(cmd, "%s: must be at least %g %s, got '%s'", flag, least, unit, text);
}

int
cli_parse_double_unbounded(const char *cmd, const char *flag, const char *text, double min, int min_inclusive,
                           double *out)
{
	return cli_parse_double_max(cmd, flag, text, min, min_inclusive, INFINITY, out);
}

int
cli_parse_double(const char *cmd, const char *flag, const char *text, double min, int min_inclusive,
                 double *out)
{
	double v;
	int tiny;
	/* Past every double (1e999): +-HUGE_VAL, for the range this flag is
	 * checked against after it to refuse in the words it refuses 1e300
	 * with (docs/cli.md, "Conventions"). */
	if (read_number(text, &v, &tiny) && isinf(v) && (v > 0 || !(min > -INFINITY))) {
		cli_remember_huge(flag, text);
		*out = v;
		return CLI_OK;
	}
	cli_remember_huge(flag, NULL);
	return cli_parse_double_unbounded(cmd, flag, text, min, min_inclusive, out);
}

int
cli_parse_max_bad(const char *cmd, const char *text, double *out)
{
	double v = 0;
	int rc = cli_parse_double(cmd, "--max-bad", text, 0, 1, &v);
	if (rc == CLI_OK && v > 1)
		rc = cli_usage_error(cmd, "--max-bad: must be a fraction in [0, 1], got '%s'", text);
	if (rc == CLI_OK)
		*out = v;
	return rc;
}

int
cli_parse_int(const char *cmd, const char *flag, const char *text, long min, long max, long *out)
{
	char *end = NULL;
	errno = 0;
	long v = wc_decimal_syntax(text, 0, 0) ? strtol(text, &end, 10) : 0;
	if (!end || *end != '\0' || errno == ERANGE) {
		/* A whole number in exponent form (1e3) is one, and one past every
		 * range (1e999, 99999999999999999999) gets the flag's range, as
		 * the float flags do (docs/cli.md, "Conventions"); 1.5 or 1e-3
		 * is no whole number. */
		double d;
		int tiny;
		if (!read_number(text, &d, &tiny) || tiny || d != floor(d))
			return cli_usage_error(cmd, "%s: expected a whole number, got '%s'", flag, text);
		if (!(d >= (double)min && d <= (double)max && fabs(d) < 0x1p63)) /* (long)d defined */
			return cli_usage_error(cmd, "%s: must be between %ld and %ld, got '%s'", flag, min, max, text);
		/* a double past 2^53 - 1 may be another whole number than the
		 * text's (9007199254740993e0 reads ...992): plain digits say it */
		if (fabs(d) > WC_WHOLE_EXACT_MAX)
			return cli_usage_error(cmd, "%s: must be between %ld and %ld, in plain digits above %.0f, "
			                       "got '%s'", flag, min, max, WC_WHOLE_EXACT_MAX, text);
		v = (long)d;
	}
	if (v < min || v > max)
		return cli_usage_error(cmd, "%s: must be between %ld and %ld, got '%s'", flag, min, max, text);
	*out = v;
	return CLI_OK;
}

int
cli_parse_bootstrap(const char *cmd, const char *text, long *out)
{
	int rc = cli_parse_int(cmd, "--bootstrap", text, 0, WC_BOOTSTRAP_MAX, out);
	/* one draw is no spread: refused before any warning about its tails */
	if (rc == CLI_OK && *out == 1)
		return cli_usage_error(cmd, "--bootstrap: must be 0 or at least 2");
	if (rc == CLI_OK && *out > 0 && *out < WC_BOOTSTRAP_MIN_95) {
		fprintf(stderr, "wattcast %s: warning: --bootstrap %ld: ", cmd, *out);
		fprintf(stderr, WC_BOOTSTRAP_FEW_TEXT "\n", WC_BOOTSTRAP_MIN_95);
	}
	return rc;
}

int
cli_check_bootstrap_room(const char *cmd, long boot, int k, const wc_params *set)
{
	wc_error err;
	long room = wc_params_draws_room(set, k, &err);
	/* A set that cannot be dumped is the writer's to refuse, in its words. */
	if (room < 0 || boot <= room)
		return CLI_OK;
	return cli_usage_error(cmd, "--bootstrap: %ld draws of %d parameters would take the parameter file over "
	                       "its %zu MiB; at most %ld surely fit (docs/fitting.md, \"Bootstrap intervals\")", boot, k,
	                       WC_PARAMS_MAX_BYTES >> 20, room);
}

int
cli_check_finetune_bootstrap_room(const char *cmd, long boot, const wc_params *base)
{
	wc_params tmp = WC_PARAMS_INIT;
	wc_error err;
	int rc;
	if (wc_params_copy(&tmp, base, &err) != WC_OK) {
		rc = cli_fail(cmd, "%s", err.msg);
	} else {
		/* the new section's own values are in the room's slack */
		wc_finetune_params_clear(&tmp.finetune);
		rc = cli_check_bootstrap_room(cmd, boot, WC_FT_DRAW_COUNT, &tmp);
	}
	wc_params_clear(&tmp);
	return rc;
}

void
cli_drop_stale_errors(const char *cmd, wc_params *set, const int *q, int n, const char *quantity)
{
	char names[128] = "";
	for (int i = 0; i < n; i++) {
		if (!set->quantity_error[q[i]].present)
			continue;
		size_t used = strlen(names);
		snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", wc_pe_quantity_name(q[i]));
		memset(&set->quantity_error[q[i]], 0, sizeof set->quantity_error[q[i]]);
	}
	if (names[0])
		fprintf(stderr, "wattcast %s: warning: dropped the held-out error of %s, measured on the section "
		        "this fit replaces; intervals cover the parameters only until `wattcast fit intervals "
		        "--quantity %s` measures the new one\n", cmd, names, quantity);
}

int
cli_parse_threads(const char *cmd, const char *text, long *out)
{
	return cli_parse_int(cmd, "--threads", text, 1, WC_THREADS_MAX, out);
}

int
cli_parse_u64(const char *cmd, const char *flag, const char *text, uint64_t *out)
{
	/* Seeds are stored as JSON integers, which jansson keeps signed: 0 ..
	 * 2^63 - 1, parsed as every whole-number flag is (1e3, -0, 4.0). */
	_Static_assert(LONG_MAX >= INT64_MAX, "a seed is a long");
	long v = 0;
	int rc = cli_parse_int(cmd, flag, text, 0, INT64_MAX, &v);
	if (rc == CLI_OK)
		*out = (uint64_t)v;
	return rc;
}

int
cli_expect_one_operand(const char *cmd, int argc, const char *what)
{
	if (optind >= argc)
		return cli_usage_error(cmd, "%s is required (see --help)", what);
	if (optind != argc - 1)
		return cli_usage_error(cmd, "exactly one %s expected (see --help)", what);
	return CLI_OK;
}

void
cli_made_by_truth(char *header, size_t cap, const char *params_path, const char *profile)
{
	char *line = strstr(header, "Made by: "), flag[512];
	if (!line || !(params_path || profile))
		return;
	const char *v = params_path ? params_path : profile;
	int plain = v[0] && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+-=,:@") == strlen(v);
	int n = snprintf(flag, sizeof flag, plain ? " --%s %s" : " --%s '%s'", params_path ? "params" : "profile", v);
	char *end = line + strcspn(line, "\n");
	size_t len = strlen(header);
	if (n < 0 || (size_t)n >= sizeof flag || len + (size_t)n >= cap || (!plain && strchr(v, '\'')))
		return; /* a path the line cannot carry: the Truth line names it */
	memmove(end + n, end, len - (size_t)(end - header) + 1);
	memcpy(end, flag, (size_t)n);
}

int
cli_load_params(const char *cmd, const char *params_path, const char *profile, wc_params *out)
{
	wc_error err;
	int rc = params_path ? wc_params_load_file(params_path, out, &err)
	                     : wc_params_profile(profile ? profile : "paper", out, &err);
	/* A profile name the command line gave that is none of the built-in
	 * ones is a usage error (exit 2) naming the flag, with the list. */
	if (rc == WC_ENOTFOUND && !params_path)
		return cli_usage_error(cmd, "--%s", err.msg);
	if (rc != WC_OK)
		return cli_fail(cmd, "%s", err.msg);
	return CLI_OK;
}

int
cli_load_params_rewritable(const char *cmd, const char *params_path, const char *profile, wc_params *out)
{
	int rc = cli_load_params(cmd, params_path, profile, out);
	if (rc == CLI_OK && params_path)
		wc_input_may_be_replaced(params_path);
	return rc;
}

int
cli_terms_mode(const char *name)
{
	static const struct { const char *name; int mode; } modes[] = {
		{ "all", WC_TERMS_PER_LEVEL }, { "pooled", WC_TERMS_POOLED },
		{ "as-bf16", WC_TERMS_AS_BF16 }, { "none", WC_TERMS_NONE },
	};
	for (size_t i = 0; name && i < sizeof modes / sizeof modes[0]; i++)
		if (strcmp(name, modes[i].name) == 0)
			return modes[i].mode;
	return -1;
}

int
cli_parse_terms(const char *cmd, const char *text, int *mode)
{
	if ((*mode = cli_terms_mode(text)) < 0)
		return cli_usage_error(cmd, "--terms: expected all, pooled, as-bf16 or none, got '%s'", text);
	return CLI_OK;
}

int
cli_parse_law_terms(const char *cmd, const char *text, unsigned *mask)
{
	wc_error e;
	if (wc_law_terms_parse(text, mask, &e) != WC_OK)
		return cli_usage_error(cmd, "--%s", e.msg);
	return CLI_OK;
}

int
cli_check_list(const char *cmd, const char *flag, const char *text)
{
	size_t n = strlen(text);
	if (n == 0 || text[0] == ',' || text[n - 1] == ',' || strstr(text, ",,"))
		return cli_usage_error(cmd, "%s: empty item in '%.64s' (comma-separated values, none blank)", flag,
		                       text);
	return CLI_OK;
}

int
cli_load_answer_params(const char *cmd, const char *params_path, const char *profile, wc_params *out)
{
	return cli_load_params(cmd, params_path, profile ? profile : WC_DEFAULT_PROFILE, out);
}

int
cli_parse_set_name(const char *cmd, const char *text)
{
	wc_error err;
	/* the loader's rule (data/params_ranges.c), asked before any work */
	if (wc_params_check_name(text, &err) != WC_OK)
		return cli_usage_error(cmd, "--%s", err.msg);
	return CLI_OK;
}

void
cli_created_time(char out[24])
{
	/* The reproducible-builds.org specification: a non-negative decimal
	 * integer of seconds since the epoch; here at most 9999-12-31T23:59:59Z,
	 * the last time created_utc's YYYY-MM-DDTHH:MM:SSZ can hold. Anything
	 * else is ignored with a warning (docs/cli.md, "`fit inference`", SOURCE_DATE_EPOCH): a date
	 * made up from garbage ("abc" was 1970) is worse than the real one. */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	if (sde && *sde) {
		char *end;
		errno = 0;
		long long v = strtoll(sde, &end, 10);
		if (isdigit((unsigned char)sde[0]) && !*end && errno == 0 && v <= 253402300799LL) {
			time_t t = (time_t)v;
			struct tm tm;
			gmtime_r(&t, &tm);
			strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &tm);
			return;
		}
		fprintf(stderr, "wattcast: warning: SOURCE_DATE_EPOCH '%.40s' is not a whole number of seconds "
		        "from 0 to 253402300799: ignored, created_utc is the current time\n", sde);
	}
	wc_utc_now(out);
}

void
cli_print_json_report(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) : NULL;
	if (s)
		puts(s);
	free(s);
	json_decref(o);
}

/* Close the memory stream (which sets *buf and *len) and write it. */
int
cli_write_memstream(const char *cmd, const char *path, FILE *f, char **buf, size_t *len)
{
	wc_error err;
	if (fclose(f) != 0) {
		free(*buf);
		return cli_fail(cmd, "out of memory");
	}
	int rc = wc_write_file_atomic(path, *buf, *len, &err);
	free(*buf);
	return rc == WC_OK ? CLI_OK : cli_fail(cmd, "%s", err.msg);
}

const char *
cli_cell(char *buf, size_t cap, double v, int decimals)
{
	if (isfinite(v))
		snprintf(buf, cap, "%.*f", decimals, v);
	else
		snprintf(buf, cap, "-");
	return buf;
}

int
cli_field_width(const char *text, int columns)
{
	int extra = 0; /* bytes beyond one per character: UTF-8 continuation bytes */
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		extra += (*c & 0xC0) == 0x80;
	return columns + extra;
}

const char *
cli_fit_id(const char *id, size_t width, char *buf, size_t cap)
{
	size_t n = strlen(id);
	if (n <= width || width < 8 || cap <= width)
		return id;
	size_t tail = (width - 3) * 3 / 5, head = width - 3 - tail;
	/* whole UTF-8 sequences on both sides of the dots */
	head = wc_utf8_keep(id, head);
	size_t from = wc_utf8_keep_end(id, n, tail);
	snprintf(buf, cap, "%.*s...%s", (int)head, id, id + from);
	return buf;
}

int
cli_column_width(int width, const char *cell)
{
	size_t n = strlen(cell);
	return n > (size_t)width && n < INT_MAX ? (int)n : width;
}

int
cli_parse_engine(const char *cmd, const char *text, const char **out)
{
	wc_error err;
	if (wc_engine_parse(text, out, &err) != WC_OK)
		return cli_usage_error(cmd, "--%s", err.msg);
	return CLI_OK;
}

int
cli_svg_ticks(double lo, double hi, int target, double *ticks, int cap, int *decimals)
{
	*decimals = 0;
	if (!(hi > lo) || !isfinite(lo) || !isfinite(hi) || target < 1 || cap < 1)
		return 0;
	/* 1, 2 or 5 x 10^e: the smallest such step giving at most `target`
	 * intervals, so every multiple prints exactly in `decimals` places */
	const double raw = (hi - lo) / target;
	int e = (int)floor(log10(raw));
	double mag = pow(10.0, e), r = raw / mag;
	double m = r <= 1.0 + 1e-9 ? 1.0 : r <= 2.0 + 1e-9 ? 2.0 : r <= 5.0 + 1e-9 ? 5.0 : 10.0;
	if (m == 10.0) {
		m = 1.0;
		e++;
		mag *= 10.0;
	}
	*decimals = e < 0 ? -e : 0;
	const double step = m * mag, tol = 1e-9 * (hi - lo);
	int n = 0;
	for (double k = ceil((lo - tol) / step); n < cap && k * step <= hi + tol; k++)
		ticks[n++] = k * step + 0.0; /* + 0.0: -0 prints "-0" */
	return n;
}
