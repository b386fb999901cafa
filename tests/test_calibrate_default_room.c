/*
 * calibrate's default bootstrap (the base's draw count) is the command's
 * choice, not the user's: when that many draws would take the file over
 * its 64 MiB it is capped at as many as surely fit, with a warning
 * (docs/calibration.md). It was refused ("--bootstrap: 140000 draws ...")
 * although no --bootstrap was given. The base here is the paper profile
 * whose fine-tuning draws fill the file to within a few KB of the limit,
 * so only some tens of inference draws fit.
 */
#include "data/data.h"
#include "fit/calibrate.h"
#include "models/catalog.h"
#include "tests/support/support.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wc_runs_table *
one_run(void)
{
	wc_runs_table *t = wc_runs_new();
	wc_run r;
	wc_run_init(&r);
	snprintf(r.run_id, sizeof r.run_id, "a");
	snprintf(r.platform, sizeof r.platform, "H100");
	snprintf(r.model, sizeof r.model, "Qwen3-8B");
	r.tp = 1;
	r.active_params_b = wc_model_lookup("Qwen3-8B")->active_params_b;
	r.running = 32;
	r.mean_power_w = 560;
	CHECK_INT(wc_runs_append(t, &r, NULL), WC_OK);
	return t;
}

/* `n` fine-tuning draws (e0, kappa) into `p`. */
static void
ft_draws(wc_params *p, int n)
{
	static const char names[2][WC_LABEL_MAX] = { WC_FT_DRAW_E0, WC_FT_DRAW_KAPPA };
	double *v = malloc((size_t)n * 2 * sizeof *v);
	for (int r = 0; r < n; r++) {
		v[2 * r] = 2176.3123456789012;
		v[2 * r + 1] = 4.5241123456789012;
	}
	CHECK_INT(wc_draws_set(&p->finetune.draws, n, 2, names, v, NULL), WC_OK);
	free(v);
}

static size_t
dump_len(const wc_params *p)
{
	char *s = wc_params_dump(p, 1, NULL);
	size_t n = s ? strlen(s) : 0;
	free(s);
	return n;
}

int
main(void)
{
	wc_params base = WC_PARAMS_INIT;
	wc_error err;
	gsl_set_error_handler_off();
	wc_params_default(&base);
	/* The dump grows linearly in the fine-tuning rows: pick the count
	 * that leaves room for a few tens of draws of 2 parameters. */
	ft_draws(&base, 1000);
	size_t a = dump_len(&base);
	ft_draws(&base, 2000);
	size_t b = dump_len(&base);
	double per_row = (double)(b - a) / 1000.0;
	double target = (double)WC_PARAMS_MAX_BYTES - (64 << 10) - 2 * (WC_LABEL_MAX + 16) - 4000.0 - 4096.0;
	int n = 1000 + (int)((target - (double)a) / per_row);
	ft_draws(&base, n);
	long room = wc_params_draws_room(&base, 2, &err);
	printf("  %d fine-tuning draws: room for %ld draws of 2 parameters\n", n, room);
	CHECK(room >= 4 && room < 200);

	/* Inference draws of delta, more than fit. */
	int nd = (int)room + 40;
	static const char dn[1][WC_LABEL_MAX] = { "delta" };
	double *dv = malloc((size_t)nd * sizeof *dv);
	for (int r = 0; r < nd; r++)
		dv[r] = base.delta.value;
	CHECK_INT(wc_params_set_draws(&base, nd, 1, dn, dv, &err), WC_OK);
	free(dv);

	wc_runs_table *t = one_run();
	wc_calibrate_options o = WC_CALIBRATE_OPTIONS_INIT;
	wc_calibrate_result r;
	memset(&r, 0, sizeof r);
	o.seed = 1;
	o.threads = 1;
	int rc = wc_calibrate(&base, t, &o, &r, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		printf("  %s\n", err.msg);
	CHECK(r.params.n_draws >= 2 && r.params.n_draws <= room);
	int warned = 0;
	for (int i = 0; i < r.n_warnings; i++)
		warned |= strstr(r.warnings[i], "as many as surely fit") != NULL;
	CHECK(warned);
	char *s = wc_params_dump(&r.params, 1, &err);
	CHECK(s != NULL && strlen(s) + 1 <= WC_PARAMS_MAX_BYTES);
	free(s);

	/* Asked for, the same count is refused naming the flag's words. */
	wc_calibrate_result_clear(&r);
	o.replicates = nd;
	CHECK(wc_calibrate(&base, t, &o, &r, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "surely fit");
	wc_calibrate_result_clear(&r);
	wc_runs_free(t);
	wc_params_clear(&base);
	return check_report("test_calibrate_default_room");
}
