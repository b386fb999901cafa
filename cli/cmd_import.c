/* wattcast import mlenergy|csv: other tables as runs tables. */
#include "cli.h"
#include "data/data.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char import_usage[] =
	"usage: wattcast import mlenergy CONFIGS.csv -o RUNS.csv\n"
	"       wattcast import csv FILE --map SRC=DST[,SRC=DST...] -o RUNS.csv\n\n"
	"mlenergy  converts the ML.ENERGY Leaderboard v3 configuration table: one run per\n"
	"          configuration; tp = num_gpus (the GPUs summed in avg_power_watts),\n"
	"          running = avg_batch_size, weights from weight_precision (mxfp4 -> int4),\n"
	"          set = task. The table has no idle power: `wattcast fit` takes P0 from its\n"
	"          prior (H100 from the published profile) or, for a board the prior lacks,\n"
	"          estimates it from the board's power limit (B200; source 'estimated').\n"
	"csv       renames columns of any CSV to the runs-table names (docs/formats/runs-table.md: run_id,\n"
	"          platform, tp, model, active_params_b, running or n_series, mean_power_w,\n"
	"          ...) and checks it as `wattcast fit` would; other columns are kept.\n";

#define MAX_MAP 64

/* `n_series` is relative to the table's folder (docs/formats/runs-table.md):
 * a relative path of the source, copied as it is into a table in another
 * folder, names no file there and `fit` refused the import. Each is
 * rewritten relative to the output's folder (resolved through realpath,
 * climbing with "..") -- absolute when that does not fit the column. */
static int
rebase_series(wc_runs_table *t, const char *src, const char *out, wc_error *err)
{
	char sd[PATH_MAX], od[PATH_MAX], from[PATH_MAX], to[PATH_MAX], full[2 * PATH_MAX];
	if (!realpath(cli_folder_of(src, sd, sizeof sd), from) || !realpath(cli_folder_of(out, od, sizeof od), to))
		return wc_error_set_path(err, WC_EIO, src, ": cannot resolve the folders of the source and -o");
	if (strcmp(from, to) == 0)
		return WC_OK;
	for (size_t i = 0; i < t->n_runs; i++) {
		wc_run *r = &t->runs[i];
		char target[PATH_MAX], rel[2 * PATH_MAX] = "";
		if (!r->n_series[0] || r->n_series[0] == '/')
			continue;
		snprintf(full, sizeof full, "%s/%s", from, r->n_series);
		if (!realpath(full, target))
			return wc_error_set_path(err, WC_EIO, src, ":%d: column 'n_series': %.80s: cannot resolve",
			                         r->line, r->n_series);
		/* the common leading folders of `to` and `target`, then ".." for
		 * each folder of `to` below them */
		size_t common = 0;
		for (size_t k = 0; to[k] && to[k] == target[k]; k++)
			if (to[k] == '/')
				common = k;
		size_t tl = strcmp(to, "/") == 0 ? 0 : strlen(to); /* the root: no folder to climb */
		if (strncmp(to, target, tl) == 0 && target[tl] == '/')
			common = tl;
		for (const char *p = to + common; tl > 0 && *p; p++)
			if (*p == '/')
				strcat(rel, "../");
		snprintf(rel + strlen(rel), sizeof rel - strlen(rel), "%s", target + common + 1);
		const char *use = strlen(rel) < sizeof r->n_series ? rel : target;
		if (strlen(use) >= sizeof r->n_series)
			return wc_error_set_path(err, WC_ERANGE, src, ":%d: column 'n_series': the path from -o's folder "
			                         "is longer than %zu bytes", r->line, sizeof r->n_series - 1);
		memcpy(r->n_series, use, strlen(use) + 1); /* its length checked just above */
	}
	return WC_OK;
}

static int
parse_map(const char *cmd, char *spec, const char **src, const char **dst, int *n)
{
	for (char *tok = strtok(spec, ","); tok; tok = strtok(NULL, ",")) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok || !eq[1] || *n >= MAX_MAP)
			return cli_usage_error(cmd, "--map: expected SRC=DST pairs separated by commas, got '%s'", tok);
		*eq = '\0';
		/* One source column, one name: a second mapping of the same
		 * column would silently lose one of the two. */
		for (int i = 0; i < *n; i++)
			if (strcmp(src[i], tok) == 0)
				return cli_usage_error(cmd, "--map: column '%s' is mapped twice ('%s' and '%s')", tok,
				                       dst[i], eq + 1);
		src[*n] = tok;
		dst[(*n)++] = eq + 1;
	}
	return CLI_OK;
}

/* The command as typed, each word shell-quoted when it needs it, so the
 * provenance comment replays: `import csv` without its --map could not. */
static char *
command_line(int argc, char **argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return NULL;
	fputs("wattcast import", f);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		fputc(' ', f);
		if (*a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=,:+@%-") ==
		                  strlen(a)) {
			fputs(a, f);
			continue;
		}
		fputc('\'', f);
		for (; *a; a++)
			if (*a == '\'')
				fputs("'\\''", f);
			else
				fputc(*a, f);
		fputc('\'', f);
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void
import_warn(const char *msg, void *payload)
{
	fprintf(stderr, "wattcast %s: warning: %s\n", (const char *)payload, msg);
}

static int
import_run(int argc, char **argv, const char *typed)
{
	static const struct option opts[] = {
		{ "map", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(import_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? CLI_USAGE : CLI_OK;
	}
	const char *what = argv[1], *output = NULL;
	char cmd[32], *map = NULL;
	const char *src[MAX_MAP], *dst[MAX_MAP];
	int n_map = 0, opt, rc = CLI_OK;
	if (strcmp(what, "mlenergy") != 0 && strcmp(what, "csv") != 0)
		return cli_usage_error("import", "unknown source '%s' (mlenergy, csv)", what);
	snprintf(cmd, sizeof cmd, "import %s", what);
	argc--;
	argv++;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:m:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'm':
			free(map);
			if (!(map = strdup(optarg)))
				return cli_fail(cmd, "out of memory");
			n_map = 0;
			rc = parse_map(cmd, map, src, dst, &n_map);
			break;
		case 'h': fputs(import_usage, stdout); free(map); return CLI_OK;
		default: free(map); return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK) {
			free(map);
			return rc;
		}
	}
	if (optind != argc - 1)
		rc = cli_usage_error(cmd, "exactly one input file expected (see --help)");
	else if (!output)
		rc = cli_usage_error(cmd, "-o RUNS.csv is required");
	else if (strcmp(what, "mlenergy") == 0 && n_map)
		rc = cli_usage_error(cmd, "--map applies to `import csv` only");
	else
		rc = cli_check_output(cmd, "-o", output, (const char *const *)argv + optind, 1);
	if (rc != CLI_OK) {
		free(map);
		return rc;
	}
	wc_runs_table *t = NULL;
	wc_error err;
	char *comment = NULL;
	size_t comment_len = 0;
	rc = strcmp(what, "mlenergy") == 0
	             ? wc_import_mlenergy_warn(argv[optind], &t, cli_quiet() ? NULL : import_warn, cmd, &err)
	             : wc_import_csv(argv[optind], src, dst, n_map, &t, &err);
	/* What the runs-table reader refuses is refused here, at the source's
	 * line: a table `fit` cannot read is no import (docs/cli.md). */
	for (size_t i = 0; rc == WC_OK && i < t->n_runs; i++) {
		char why[160];
		const char *col = wc_run_out_of_bounds(&t->runs[i], why, sizeof why);
		for (size_t k = 0; !col && k < t->extra.n; k++)
			col = wc_run_timing_extra_bad(t->extra.names[k], wc_runs_get_extra(t, i, t->extra.names[k]), why,
			                              sizeof why);
		if (col)
			rc = wc_error_set_path(&err, WC_EINVAL, argv[optind], ":%d: run %s: %s: %s", t->runs[i].line,
			                       t->runs[i].run_id, col, why);
	}
	for (size_t i = 0; rc == WC_OK && !cli_quiet() && i < t->n_runs; i++) {
		char why[200], msg[WC_ERROR_MSG_MAX];
		if (wc_run_power_over_board(&t->runs[i], NAN, why, sizeof why)) {
			wc_error_format_path(msg, sizeof msg, argv[optind], ":%d: run %s: %s", t->runs[i].line,
			                     t->runs[i].run_id, why);
			import_warn(msg, cmd);
		}
	}
	if (rc == WC_OK)
		rc = rebase_series(t, argv[optind], output, &err);
	if (rc == WC_OK) {
		FILE *cf = typed ? open_memstream(&comment, &comment_len) : NULL;
		if (cf) {
			fprintf(cf, "Imported by: %s\nSource SHA-256: %s", typed, t->sha256);
			if (fclose(cf) != 0) {
				free(comment);
				comment = NULL;
			}
		}
		rc = comment ? wc_runs_write(output, t, comment, &err)
		             : wc_error_set(&err, WC_ENOMEM, "out of memory");
	}
	if (rc != WC_OK)
		rc = cli_fail(cmd, "%s", err.msg);
	else
		fprintf(stderr, "wrote %zu runs to %s\n", t->n_runs, output);
	wc_runs_free(t);
	free(comment);
	free(map);
	return rc == WC_OK ? CLI_OK : rc;
}

int
cli_cmd_import(int argc, char **argv)
{
	/* Taken before getopt reorders argv, so the comment reads as typed. */
	char *typed = command_line(argc, argv);
	int rc = import_run(argc, argv, typed);
	free(typed);
	return rc;
}
