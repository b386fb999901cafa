/* wattcast simulate finetune: a synthetic fine-tuning runs table. */
#include "cli.h"
#include "data/data.h"
#include "predict/predict.h"
#include "predict/finetune_predict.h"
#include "validation/validation.h"

#include <math.h>
#include <string.h>

static const char usage[] =
	"usage: wattcast simulate finetune [--seed S] [--noise SD]\n"
	"                                  [--params FILE | --profile measured|paper|paper-prefill] -o RUNS.csv\n\n"
	"Draws a fine-tuning runs table (docs/formats/finetune-runs.md) from the compute\n"
	"law of a parameter set (default: the built-in published profile): QLoRA rank 64\n"
	"on one H200, a model-size, a sequence-length and a micro-batch sweep, three\n"
	"repeats each (docs/finetune.md), with multiplicative noise SD on energy per step\n"
	"(default 0.02). The same seed gives the same file byte for byte; the file says\n"
	"in its header that it is synthetic.\n";

enum { OPT_SEED = 1000, OPT_NOISE, OPT_PARAMS, OPT_PROFILE };

/* The design (QLoRA rank 64 on one H200) against the law's calibration:
 * a law fitted on 8-GPU H100 LoRA runs drew 63 rows outside it with no
 * word. Predict's own warnings (platform, method, GPUs, ranges) for each
 * row, each field said once with the rows it concerns (docs/finetune.md,
 * "Predicting"). */
static void
design_warnings(const char *cmd, const wc_params *truth, const wc_ft_table *t)
{
	enum { FIELDS = 16 };
	char first[FIELDS][WC_WARNING_LEN];
	size_t count[FIELDS], nf = 0;
	wc_predictor *pred = NULL;
	if (wc_predictor_new(truth, &pred, NULL) != WC_OK)
		return;
	for (size_t i = 0; i < t->n_runs; i++) {
		wc_finetune_query q = { .config = t->runs[i].config, .platform = t->runs[i].platform, .steps = NAN };
		wc_finetune_prediction out;
		if (wc_predict_finetune(pred, &q, &out, NULL) != WC_OK)
			continue;
		for (int w = 0; w < out.n_warnings; w++) {
			size_t key = strcspn(out.warnings[w], ":"), f = 0;
			while (f < nf && !(strncmp(first[f], out.warnings[w], key) == 0 && first[f][key] == ':'))
				f++;
			if (f == nf && nf < FIELDS) {
				snprintf(first[nf], sizeof first[nf], "%s", out.warnings[w]);
				count[nf++] = 0;
			}
			if (f < nf)
				count[f]++;
		}
	}
	for (size_t f = 0; f < nf; f++) {
		char msg[WC_WARNING_LEN]; /* a warning's bytes, as everywhere */
		wc_error_format(msg, sizeof msg, "%zu of %zu design rows: %s", count[f], t->n_runs, first[f]);
		fprintf(stderr, "wattcast %s: warning: %s\n", cmd, msg);
	}
	wc_predictor_free(pred);
}

int
cli_simulate_finetune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "noise", required_argument, NULL, OPT_NOISE },
		{ "params", required_argument, NULL, OPT_PARAMS },
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = "simulate finetune", *params_path = NULL, *profile = NULL, *output = NULL;
	wc_ft_simulate_options so = WC_FT_SIMULATE_OPTIONS_INIT;
	int opt, rc;
	cli_reset_getopt();
	while ((opt = cli_getopt(argc, argv, ":ho:", opts, NULL)) != -1) {
		rc = CLI_OK;
		switch (opt) {
		case OPT_SEED: rc = cli_parse_u64(cmd, "--seed", optarg, &so.seed); break;
		case OPT_NOISE:
			rc = cli_parse_double(cmd, "--noise", optarg, 0, 1, &so.noise);
			if (rc == CLI_OK && so.noise > 1)
				rc = cli_usage_error(cmd, "--noise: must be between 0 and 1, got '%s'", optarg);
			break;
		case OPT_PARAMS: params_path = optarg; break;
		case OPT_PROFILE: profile = optarg; break;
		case 'o': output = optarg; break;
		case 'h': fputs(usage, stdout); return CLI_OK;
		default: return cli_bad_option(cmd, opt, argv);
		}
		if (rc != CLI_OK)
			return rc;
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s' (see --help)", argv[optind]);
	if (!output)
		return cli_usage_error(cmd, "-o RUNS.csv is required");
	const char *in[] = { params_path };
	if (cli_check_output(cmd, "-o", output, in, 1) != CLI_OK)
		return CLI_USAGE;
	if (params_path && profile)
		return cli_usage_error(cmd, "give at most one of --params and --profile");
	wc_params truth = WC_PARAMS_INIT;
	wc_ft_table *t = NULL;
	wc_error err;
	char header[1024];
	if ((rc = cli_load_params(cmd, params_path, profile, &truth)) != CLI_OK)
		return rc;
	rc = CLI_OK;
	wc_simulate_finetune_header(&so, &truth, header, sizeof header);
	cli_made_by_truth(header, sizeof header, params_path, profile);
	if (wc_simulate_finetune(&truth, &so, &t, &err) != WC_OK || wc_ft_table_write(output, t, header, &err) != WC_OK)
		rc = cli_fail(cmd, "%s", err.msg);
	else {
		design_warnings(cmd, &truth, t);
		fprintf(stderr, "wrote %zu synthetic fine-tuning runs to %s\n", t->n_runs, output);
	}
	wc_ft_table_free(t);
	wc_params_clear(&truth);
	return rc;
}
