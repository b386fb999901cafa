/*
 * wattcast ingest, fine-tuning runs (docs/cli.md, "ingest"): the flags that
 * fill a fine-tuning manifest's gaps, and the folders -> a fine-tuning
 * runs table (docs/formats/finetune-runs.md). A folder is a fine-tuning
 * run when its wattcast-run.json has a "finetune" object or it holds a
 * step log (trace/finetune_trace.h); --method treats every folder as one.
 */
#include "cli.h"
#include "data/data.h"
#include "models/limits.h"
#include "trace/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
cli_ingest_finetune_flag(const char *cmd, const char *name, const char *value, wc_run_manifest *d)
{
	wc_run_finetune *f = &d->finetune;
	long v;
	int rc = CLI_OK;
	struct { const char *flag; int *field; long max; } ints[] = {
		{ "micro-batch", &f->micro_batch, WC_FT_MAX_INT }, { "seq-len", &f->seq_len, WC_FT_MAX_INT },
		{ "grad-accum", &f->grad_accum, WC_FT_MAX_INT }, { "gpus", &f->gpus, WC_FT_MAX_GPUS },
		{ "data-parallel", &f->data_parallel, WC_FT_MAX_GPUS }, { "lora-rank", &f->lora_rank, WC_FT_MAX_LORA_RANK },
	};
	char flag[32];
	snprintf(flag, sizeof flag, "--%s", name);
	for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
		if (strcmp(name, ints[i].flag) == 0) {
			if ((rc = cli_parse_int(cmd, flag, value, 1, ints[i].max, &v)) == CLI_OK)
				*ints[i].field = (int)v;
			return rc;
		}
	if (strcmp(name, "method") == 0) {
		wc_ft_method m;
		if (wc_ft_method_from_name(value, &m) != WC_OK)
			return cli_usage_error(cmd, "--method: expected %s, got '%s'", wc_ft_method_choices(), value);
		f->method = (int)m;
	} else if (strcmp(name, "checkpointing") == 0) {
		if (strcmp(value, "true") && strcmp(value, "false"))
			return cli_usage_error(cmd, "--checkpointing: expected true or false, got '%s'", value);
		f->checkpointing = strcmp(value, "true") == 0;
	} else if (strcmp(name, "steps") == 0) {
		/* whole, from 1 to 10^9, as finetune.steps and global_step
		 * (data/step_log.h): 2.5 was read, and its warning quoted "2" */
		if ((rc = cli_parse_int(cmd, "--steps", value, 1, (long)WC_STEP_LOG_MAX_STEP, &v)) == CLI_OK)
			f->steps = (double)v;
	}
	return rc;
}

static void
print_summary(const wc_ft_table *t, const char *path)
{
	int pw = 6; /* "plat", and the platform names as they were before RTX-PRO-6000 */
	for (size_t i = 0; i < t->n_runs; i++)
		pw = cli_column_width(pw, t->runs[i].platform);
	printf("%-40s %-*s %4s %-5s %7s %-13s %11s %9s %10s\n", "run_id", pw, "plat", "gpus", "meth", "steps",
	       "step_source", "J/step", "J/token", "excluded_s");
	for (size_t i = 0; i < t->n_runs; i++) {
		const wc_ft_run *r = &t->runs[i];
		const char *steps = wc_ft_table_get_extra(t, i, "steps"), *src = wc_ft_table_get_extra(t, i, "step_source");
		const char *ept = wc_ft_table_get_extra(t, i, "energy_per_token_j");
		const char *ex = wc_ft_table_get_extra(t, i, "excluded_s");
		char id[48]; /* 40 bytes: a longer id loses its middle, never half a character */
		printf("%-40s %-*s %4d %-5s %7s %-13s %11.1f %9s %10s\n", cli_fit_id(r->run_id, 40, id, sizeof id), pw,
		       r->platform, r->config.gpus,
		       wc_ft_method_name(r->config.method), steps ? steps : "", src ? src : "", r->energy_per_step_j,
		       ept ? ept : "", ex ? ex : "");
	}
	printf("wrote %zu fine-tuning row%s to %s\n", t->n_runs, t->n_runs == 1 ? "" : "s", path);
}

int
cli_ingest_finetune(const char *cmd, char *const *runs, size_t n, const wc_ingest_options *o, const char *out)
{
	wc_ft_table *t = wc_ft_table_new();
	wc_error err;
	int failed = 0, rc = CLI_FAIL;
	const char *first = NULL; /* the first run refused */
	if (!t)
		return cli_fail(cmd, "out of memory");
	/* Which argument each row came from, to name both folders of a
	 * repeated run_id: the table's readers refuse one (a copied
	 * wattcast-run.json template), so it is refused here, before writing
	 * a table that `fit` could not read. */
	size_t *from = calloc(1, sizeof *from), cap_from = 1;
	if (!from) {
		wc_ft_table_free(t);
		return cli_fail(cmd, "out of memory");
	}
	/* Serving-only flags have nothing to apply to in a fine-tuning run:
	 * said, as flags a run overrides are (docs/cli.md, "ingest"); they
	 * vanished without a word, --tp 4 on a 1-GPU job (meant --gpus) too. */
	char unused[96] = "";
	if (o->defaults.tp > 0)
		strcat(unused, ", --tp");
	if (o->defaults.workload != WC_WORKLOAD_UNKNOWN)
		strcat(unused, ", --workload");
	if (o->power_only)
		strcat(unused, ", --power-only");
	if (unused[0] && o->warn) {
		char msg[160];
		snprintf(msg, sizeof msg, "%s: not applied; serving flags, not for fine-tuning runs (--gpus gives "
		         "the GPU count)", unused + 2);
		o->warn(msg, o->warn_payload);
	}
	for (size_t i = 0; i < n; i++) {
		size_t before = t->n_runs;
		if (wc_ft_ingest_run(runs[i], o, t, &err) != WC_OK) {
			cli_fail(cmd, "%s", err.msg);
			if (failed++ == 0)
				first = runs[i];
			continue;
		}
		if (t->n_runs > cap_from) {
			size_t *grown = realloc(from, 2 * t->n_runs * sizeof *from);
			if (!grown) {
				cli_fail(cmd, "out of memory");
				failed++;
				break;
			}
			from = grown;
			cap_from = 2 * t->n_runs;
		}
		for (size_t r = before; r < t->n_runs; r++) {
			from[r] = i;
			for (size_t q = 0; q < r; q++)
				if (strcmp(t->runs[q].run_id, t->runs[r].run_id) == 0) {
					cli_fail(cmd, "%s: run_id '%s' is also the id of a run of %s (run ids must be unique: "
					         "set run_id in one wattcast-run.json)", runs[i], t->runs[r].run_id, runs[from[q]]);
					if (failed++ == 0)
						first = runs[i];
					break;
				}
		}
	}
	free(from);
	if (failed) {
		cli_fail_refused(cmd, failed, first);
		goto done;
	}
	char comment[256], now[24];
	cli_created_time(now); /* SOURCE_DATE_EPOCH pins it, so a re-ingest hashes the same */
	snprintf(comment, sizeof comment,
	         "wattcast ingest %s, %s: %zu fine-tuning runs; energy per optimizer step over all GPUs, "
	         "checkpoint saves excluded (docs/finetune.md)", WC_VERSION, now, t->n_runs);
	if (wc_ft_table_write(out, t, comment, &err) != WC_OK) {
		cli_fail(cmd, "%s", err.msg);
		goto done;
	}
	print_summary(t, out);
	rc = CLI_OK;
done:
	wc_ft_table_free(t);
	return rc;
}
