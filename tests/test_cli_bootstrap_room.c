/*
 * A --bootstrap B inside the documented range whose draws no parameter
 * file can hold (64 MiB) is refused before the draws are made, naming the
 * most that surely fit (docs/fitting.md, "Bootstrap intervals"): `fit
 * inference --bootstrap 200000` ran 61 s and then failed in the writer
 * ("the file would be 71.3 MB"). Each command that writes draws is run
 * under a CPU limit a bootstrap of that size cannot meet. The count named
 * is checked against a real file's bytes per draw: at or below it, the
 * file fits.
 */
#include "data/data.h"
#include "models/limits.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Refused with `status` and `needle` within a few CPU seconds. */
static void
refused(const char *const *argv, int status, const char *needle)
{
	run_result r;
	CHECK(run_wattcast_limited(argv, NULL, 10, &r) == 0);
	CHECK_INT(r.status, status);
	CHECK_CONTAINS(r.err, needle);
	CHECK_CONTAINS(r.err, "surely fit (docs/fitting.md, \"Bootstrap intervals\")");
	if (r.err)
		CHECK(strlen(r.err) <= 256);
	run_result_free(&r);
}

/* The count wc_params_draws_room names for `path`'s set fits at the bytes
 * per draw its own draws take, and is not absurdly below it. */
static void
room_fits(const char *path)
{
	wc_params p = WC_PARAMS_INIT, bare = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(path, &p, &err), WC_OK);
	CHECK_INT(p.n_draws, 200);
	CHECK_INT(wc_params_copy(&bare, &p, &err), WC_OK);
	CHECK_INT(wc_params_set_draws(&bare, 0, 0, NULL, NULL, &err), WC_OK);
	char *with = wc_params_dump(&p, 1, &err), *without = wc_params_dump(&bare, 1, &err);
	CHECK(with && without);
	if (with && without) {
		double per = (double)(strlen(with) - strlen(without)) / p.n_draws;
		long room = wc_params_draws_room(&bare, p.n_draw_params, &err);
		double at_room = (double)strlen(without) + 1 + per * (double)room;
		printf("  %d parameters: %.1f bytes per draw, room %ld draws, %.1f MB at the room\n", p.n_draw_params,
		       per, room, at_room / 1e6);
		CHECK(room > 0 && at_room <= (double)WC_PARAMS_MAX_BYTES);
		CHECK(at_room > 0.7 * (double)WC_PARAMS_MAX_BYTES);
	}
	free(with);
	free(without);
	wc_params_clear(&p);
	wc_params_clear(&bare);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_bootstrap_room");
	const char *src = test_env("WC_SOURCE_DIR", ".");
	char *sim = path_join(dir, "sim.csv"), *fit = path_join(dir, "fit.json"), *out = path_join(dir, "out.json");
	char *periods = path_join(src, "data/default/published-periods.csv");
	char *ft = path_join(src, "data/default/finetune-design-seed42.csv");
	const char *s[] = { "wattcast", "simulate", "inference", "--seed", "7", "-o", sim, NULL };
	test_run_ok(s);
	const char *f[] = { "wattcast", "fit", "inference", sim, "--bootstrap", "200", "-o", fit, NULL };
	test_run_ok(f);
	room_fits(fit);

	const char *big[] = { "wattcast", "fit", "inference", sim, "--bootstrap", "200000", "--threads", "2",
		              "-o", out, NULL };
	refused(big, 2, "fit inference: --bootstrap: 200000 draws of 12 parameters would take the parameter file "
	                "over its 64 MiB; at most ");
	const char *cap[] = { "wattcast", "fit", "capacity", periods, "--bootstrap", "1000000", "-o", out, NULL };
	refused(cap, 2, "fit capacity: --bootstrap: 1000000 draws of 9 parameters");
	const char *fft[] = { "wattcast", "fit", "finetune", ft, "--bootstrap", "1000000", "-o", out, NULL };
	refused(fft, 2, "fit finetune: --bootstrap: 1000000 draws of 2 parameters");
	const char *cft[] = { "wattcast", "calibrate", "finetune", ft, "--profile", "paper", "--bootstrap", "1000000",
		              "-o", out, NULL };
	refused(cft, 2, "calibrate finetune: --bootstrap: 1000000 draws of 2 parameters");

	char *one = test_fixture(dir, "one.csv", "run_id,platform,tp,model,running,mean_power_w,idle_power_w\n"
	                                         "r1,H100,1,Qwen3-8B,32,574,124.4\n");
	const char *cal[] = { "wattcast", "calibrate", "--params", fit, one, "--bootstrap", "300000", "-o", out, NULL };
	/* a usage error as every other command's (it was exit 1) */
	refused(cal, 2, "calibrate: --bootstrap: 300000 draws of 13 parameters");
	FILE *written = fopen(out, "r");
	CHECK(written == NULL);
	if (written)
		fclose(written);

	free(one);
	free(ft);
	free(periods);
	free(out);
	free(fit);
	free(sim);
	free(dir);
	return check_report("test_cli_bootstrap_room");
}
