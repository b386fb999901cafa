/*
 * wattcast ingest --prometheus URL | --prometheus-json FILE | --scrapes FILE:
 * fleet telemetry (DCGM exporter power, vLLM load) from a Prometheus
 * server or saved files -> a runs table with one row per window of
 * steady load of each engine and its GPUs (docs/fleet.md).
 */
#include "cli.h"
#include "models/grow.h"
#include "data/data.h"
#include "trace/fleet.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage[] =
	"usage: wattcast ingest --prometheus URL --start T --end T [--step S] [--selector '{...}']\n"
	"                       -o RUNS.csv [options]\n"
	"       wattcast ingest (--prometheus-json FILE | --scrapes FILE)... [--start T] [--end T]\n"
	"                       [--step S] [--selector '{...}'] -o RUNS.csv [options]\n"
	"options: [--group-by LABELS] [--hold S] [--min-window S] [--platform NAME]\n"
	"         [--model NAME] [--active-params B] [--page-steps N] [--timeout S]\n"
	"         [--verbose] [--quiet]\n\n"
	"Reads GPU power (DCGM_FI_DEV_POWER_USAGE, else its _INSTANT field), the\n"
	"framebuffer each GPU holds (DCGM_FI_DEV_FB_USED: a GPU no engine holds is\n"
	"left out of its group's TP and power), and vLLM's load and token counters\n"
	"from a Prometheus server's query_range API,\n"
	"or from saved query_range responses (--prometheus-json, repeatable) or files\n"
	"of text-exposition scrapes (--scrapes, repeatable; '# wattcast-scrape TIME\n"
	"[INSTANCE]' lines date them).\n"
	"T is RFC 3339 or epoch seconds; S is seconds (default 15 from a server, the\n"
	"sparsest series' scrape interval from files). GPUs and engines are grouped by host,\n"
	"namespace and pod (--group-by); each group's steps are cut into windows of\n"
	"steady load (running requests off the window's mean by more than 25 % and 2\n"
	"for --hold seconds, default 10 or three steps, the longer), one row each;\n"
	"windows shorter than --min-window (60 s), and idle ones (mean running below\n"
	"0.5), get an exclude reason. Counter resets, series that appear\n"
	"or vanish, NaN samples and missing samples are reported with the series and\n"
	"the time. --platform and --model name what a GPU's modelName or an engine's\n"
	"model_name does not (where they do, the flag is not applied, said).\n"
	"--selector's matchers on labels only engines carry (model_name, engine,\n"
	"dp_rank, ...) select engines, and the GPUs of their groups; on labels only\n"
	"DCGM's series carry (Hostname, UUID, modelName, ...) GPUs, and the engines\n"
	"of their groups; others apply to GPU and engine series alike.\n"
	"--verbose prints the PromQL (docs/fleet.md). A query covers at most\n"
	"--page-steps steps (2000, at most 10000; Prometheus allows 11000 points per\n"
	"series); a request waits --timeout seconds for its answer (300).\n";

enum { OPT_PROM = 1000, OPT_JSON, OPT_SCRAPES, OPT_START, OPT_END, OPT_STEP, OPT_SELECTOR,
       OPT_GROUP, OPT_HOLD, OPT_MINWIN, OPT_PLATFORM, OPT_MODEL, OPT_ACTIVE, OPT_VERBOSE,
       OPT_PAGE, OPT_TIMEOUT };

static const struct option opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "prometheus", required_argument, NULL, OPT_PROM },
	{ "prometheus-json", required_argument, NULL, OPT_JSON },
	{ "scrapes", required_argument, NULL, OPT_SCRAPES },
	{ "start", required_argument, NULL, OPT_START },
	{ "end", required_argument, NULL, OPT_END },
	{ "step", required_argument, NULL, OPT_STEP },
	{ "selector", required_argument, NULL, OPT_SELECTOR },
	{ "group-by", required_argument, NULL, OPT_GROUP },
	{ "hold", required_argument, NULL, OPT_HOLD },
	{ "min-window", required_argument, NULL, OPT_MINWIN },
	{ "platform", required_argument, NULL, OPT_PLATFORM },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "active-params", required_argument, NULL, OPT_ACTIVE },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "page-steps", required_argument, NULL, OPT_PAGE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

typedef struct {
	const char *out, *url, *selector;
	char shown[WC_PROM_URL_SHOWN];    /* url as messages and the table show it (wc_prom_url_mask) */
	const char **json, **scrapes;
	size_t n_json, n_scrapes;
	wc_fleet_options o;
	int verbose, help;
} prom_args;

static void
print_line(const char *msg, void *payload)
{
	fprintf(stderr, "wattcast ingest: %s%s\n", payload ? "warning: " : "", msg);
}

static void
print_verbose(const char *msg, void *payload)
{
	(void)payload;
	fprintf(stderr, "wattcast ingest: %s\n", msg);
}

int
cli_ingest_is_prometheus(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		for (int k = 1; k <= 3; k++)
			if (strncmp(argv[i], "--", 2) == 0 &&
			    strncmp(argv[i] + 2, opts[k].name, strlen(opts[k].name)) == 0 &&
			    (argv[i][2 + strlen(opts[k].name)] == '\0' || argv[i][2 + strlen(opts[k].name)] == '='))
				return 1;
	return 0;
}

/* A number in another unit is named as a sample time's is
 * (docs/formats/prometheus.md, "Times"): --start 1796515781000 was
 * "neither RFC 3339 nor epoch seconds", with no word of milliseconds. */
static int
parse_time(const char *flag, const char *text, double *out)
{
	char why[200];
	int rc = wc_prom_parse_time_checked(text, out, why, sizeof why);
	if (rc == WC_ERANGE)
		return cli_usage_error("ingest", "%s: %s", flag, why);
	if (rc != WC_OK)
		return cli_usage_error("ingest", "%s: '%s' is neither RFC 3339 (2026-01-01T00:00:00Z) nor "
		                       "epoch seconds", flag, text);
	*out = wc_prom_time_whole_ms(text, *out);
	return CLI_OK;
}

static int
push(const char ***list, size_t *n, const char *value)
{
	const char **nl = wc_resize_array(*list, *n + 1, sizeof *nl);
	if (!nl)
		return cli_fail("ingest", "out of memory");
	*list = nl;
	(*list)[(*n)++] = value;
	return CLI_OK;
}

/* One flag into `a`. */
static int
apply_flag(int opt, prom_args *a)
{
	const char *cmd = "ingest";
	wc_fleet_options *o = &a->o;
	switch (opt) {
	case 'o': a->out = optarg; return CLI_OK;
	case OPT_PROM:
		/* A base URL the query_range path is appended to: another scheme
		 * waited 10 s (ftp) or read a local file (file), a query string
		 * got a redirect page (docs/cli.md). */
		a->url = optarg;
		wc_prom_url_mask(optarg, a->shown, sizeof a->shown); /* no password in messages */
		if (strncasecmp(optarg, "http://", 7) != 0 && strncasecmp(optarg, "https://", 8) != 0)
			return cli_usage_error(cmd, "--prometheus: '%.100s' is not an http:// or https:// base URL "
			                       "(http://prometheus:9090)", a->shown);
		if (strpbrk(optarg, "?#"))
			return cli_usage_error(cmd, "--prometheus: '%.100s' has a query or fragment; give the "
			                       "server's base URL (http://prometheus:9090)", a->shown);
		/* The API's own path, to which the query_range path was appended
		 * again: a bare "HTTP 404: 404 page not found" (docs/cli.md). */
		const char *api = strstr(a->shown, "/api/v1");
		if (api && (api[7] == '\0' || api[7] == '/'))
			return cli_usage_error(cmd, "--prometheus: '%.100s' names the API path %.40s; give the server's "
			                       "base URL, '%.*s'", a->shown, api, (int)(api - a->shown > 100 ? 100 : api - a->shown),
			                       a->shown);
		return CLI_OK;
	case OPT_JSON: return push(&a->json, &a->n_json, optarg);
	case OPT_SCRAPES: return push(&a->scrapes, &a->n_scrapes, optarg);
	case OPT_START: return parse_time("--start", optarg, &o->start);
	case OPT_END: return parse_time("--end", optarg, &o->end);
	case OPT_STEP: {
		/* steps are whole milliseconds (docs/cli.md): 1.0005 gave rows of 300.150 s;
		 * and at least 2 ms, so that the query's range, one ms short of the
		 * step, is 1 ms at least (docs/fleet.md, "Queries") */
		int rc = cli_parse_double_unbounded(cmd, "--step", optarg, WC_FLEET_MIN_STEP, 1, &o->step);
		if (rc == CLI_OK && fabs(o->step * 1000.0 - round(o->step * 1000.0)) > 1e-6 * o->step * 1000.0)
			return cli_usage_error(cmd, "--step: whole milliseconds, got '%s'", optarg);
		return rc;
	}
	case OPT_SELECTOR: {
		wc_error err;
		a->selector = optarg;
		return wc_fleet_selector_check(optarg, &err) == WC_OK ? CLI_OK : cli_usage_error(cmd, "%s", err.msg);
	}
	case OPT_GROUP: o->group_by = optarg; return CLI_OK;
	case OPT_HOLD: return cli_parse_double_unbounded(cmd, "--hold", optarg, 0.0, 1, &o->hold_s);
	case OPT_MINWIN: return cli_parse_double_unbounded(cmd, "--min-window", optarg, 0.0, 1, &o->min_window_s);
	case OPT_PLATFORM: o->platform = optarg; return CLI_OK;
	case OPT_MODEL: o->model = optarg; return CLI_OK;
	case OPT_ACTIVE: return cli_parse_double_max(cmd, "--active-params", optarg, 0.0, 0, WC_MODEL_MAX_PARAMS_B,
	                                             &o->active_params_b);
	case OPT_VERBOSE: a->verbose = 1; return CLI_OK;
	case OPT_PAGE: {
		long v;
		int rc = cli_parse_int(cmd, "--page-steps", optarg, 1, WC_FLEET_PAGE_STEPS, &v);
		o->page_steps = (size_t)v;
		return rc;
	}
	case OPT_TIMEOUT: return cli_parse_double_max(cmd, "--timeout", optarg, 0.001, 1, 86400.0, &o->timeout_s);
	case 'h': fputs(usage, stdout); a->help = 1; return CLI_OK;
	default: return -1;
	}
}

/* --help wins wherever it stands (before a lone "--"): `ingest --help`
 * points to `--prometheus --help`, where getopt took "--help" for the URL
 * and the command failed with "-o RUNS.csv is required" (docs/cli.md). */
static int
wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	return 0;
}

static int
parse_args(int argc, char **argv, prom_args *a)
{
	const char *cmd = "ingest";
	int opt, rc = CLI_OK, index = 0;
	if (wants_help(argc, argv))
		return apply_flag('h', a);
	cli_reset_getopt();
	while (rc == CLI_OK && !a->help && (opt = cli_getopt(argc, argv, ":o:h", opts, &index)) != -1)
		if ((rc = apply_flag(opt, a)) == -1)
			rc = cli_bad_option(cmd, opt, argv);
	if (rc != CLI_OK || a->help)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "%s: run folders cannot be mixed with --prometheus, "
		                       "--prometheus-json or --scrapes", argv[optind]);
	if (!a->out)
		return cli_usage_error(cmd, "-o RUNS.csv is required");
	if (cli_check_output(cmd, "-o", a->out, a->json, a->n_json) != CLI_OK ||
	    cli_check_output(cmd, "-o", a->out, a->scrapes, a->n_scrapes) != CLI_OK)
		return CLI_USAGE;
	if (a->url && (a->n_json || a->n_scrapes))
		return cli_usage_error(cmd, "--prometheus cannot be mixed with --prometheus-json or "
		                       "--scrapes");
	if (a->url && !(isfinite(a->o.start) && isfinite(a->o.end)))
		return cli_usage_error(cmd, "--prometheus needs --start and --end");
	if (a->url && isnan(a->o.step))
		a->o.step = 15.0;
	if (isfinite(a->o.start) && isfinite(a->o.end) && a->o.end < a->o.start)
		return cli_usage_error(cmd, "--end: before --start");
	return CLI_OK;
}

static void
print_summary(const wc_runs_table *t, const char *path)
{
	/* Platforms whole: cut to 9, A100-PCIe-40GB read A100-PCIe, another
	 * board of the catalog (docs/cli.md). */
	printf("%-48s %-14s %3s %9s %7s %9s %8s\n", "run_id", "platform", "tp", "power_w", "n_mean",
	       "gen_tok_s", "dur_s");
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_run *r = &t->runs[i];
		const char *dur = wc_runs_get_extra(t, i, "duration_s");
		char gen[32]; /* "-" where the CSV cell is empty (no token counter), not "nan" */
		printf("%-48.48s %-14s %3d %9.1f %7.2f %9s %8s%s\n", r->run_id, r->platform, r->tp,
		       r->mean_power_w, r->running, cli_cell(gen, sizeof gen, r->throughput_tok_s, 1), dur ? dur : "",
		       r->exclude[0] ? " (excluded)" : "");
	}
	printf("wrote %zu row%s to %s\n", t->n_runs, t->n_runs == 1 ? "" : "s", path);
}

int
cli_cmd_ingest_prometheus(int argc, char **argv)
{
	prom_args a = { NULL };
	wc_runs_table *t = NULL;
	wc_error err;
	char comment[1400];
	wc_fleet_options_init(&a.o);
	int rc = parse_args(argc, argv, &a);
	if (rc == CLI_OK && !a.help) {
		a.o.warn = cli_quiet() ? NULL : print_line; /* --quiet stands anywhere (cli/main.c) */
		a.o.warn_payload = (void *)1;
		a.o.verbose = a.verbose ? print_verbose : NULL;
		rc = a.url ? wc_fleet_ingest_http(a.url, a.selector, &a.o, &t, &err)
		     : wc_fleet_ingest_files(a.json, a.n_json, a.scrapes, a.n_scrapes, a.selector, &a.o, &t,
		                                 &err);
		snprintf(comment, sizeof comment, "wattcast ingest from %s%s (docs/fleet.md)",
		         a.url ? "Prometheus at " : "saved Prometheus data",
		         a.url ? a.shown : "");
		if (rc == WC_OK)
			rc = wc_runs_write(a.out, t, comment, &err);
		if (rc == WC_OK)
			print_summary(t, a.out);
		rc = rc == WC_OK ? CLI_OK : cli_fail("ingest", "%s", err.msg);
	}
	wc_runs_free(t);
	free(a.json);
	free(a.scrapes);
	return rc;
}
