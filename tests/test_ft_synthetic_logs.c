/*
 * Fine-tuning logs with known truth, end to end through the nvidia-smi
 * reader (docs/finetune.md, "Measuring energy per step";
 * docs/formats/telemetry.md, "`power.csv`: nvidia-smi"): 8 GPUs written one
 * row after another with no index column, 1 % of sweeps spread over up to
 * 0.96 s, checkpoint saves at 15 %, 27 % and 45 % of the training power,
 * a save after every step and after every 1000 steps, 100 ms samples of
 * 1 s steps and 1 s averages of 5 s steps (tests/support/synth_log.c
 * writes them). The GPU count is
 * read off the timestamps; energy per step, saves left out, is within 5 %
 * of the truth, and the two cadences within 5 % of each other.
 */
#include "data/nvsmi.h"
#include "trace/trace.h"
#include "tests/support/support.h"
#include "tests/support/synth_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double
one(const char *dir, double share, int every, int average, int give_gpus)
{
	synth_ft_design d;
	synth_ft_truth truth;
	char name[64];
	synth_ft_default(&d);
	d.save_share = share;
	d.save_every = every;
	d.steps = every == 1 ? 60 : 2100;
	d.average = average;
	d.dt = average ? 1.0 : 0.1;
	/* 1 s averages cannot resolve 1 s steps between saves: every bin
	 * mixes a step with a save (docs/finetune.md); such logs get 10 s steps. */
	d.step_s = average ? 10.0 : 1.0;
	d.seed = (uint64_t)(1000 * share) + (uint64_t)every + 7u * (uint64_t)average;
	snprintf(name, sizeof name, "ft_%02d_%d_%s.csv", (int)lround(100 * share), every, average ? "avg" : "inst");
	char *path = path_join(dir, name);
	CHECK_INT(synth_ft_write(path, &d, &truth), 0);

	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.n_gpus = give_gpus ? d.gpus : 0;
	wc_power_trace *pt = NULL;
	wc_error err = { 0, "" };
	CHECK_INT(wc_power_trace_read(path, &opt, 0, &pt, &err), WC_OK);
	if (!pt) {
		fprintf(stderr, "%s: %s\n", name, err.msg);
		free(path);
		return NAN;
	}
	CHECK_INT(pt->info.n_gpus, d.gpus);
	CHECK_INT((int)pt->info.samples, (int)truth.sweeps);
	CHECK(strcmp(pt->info.gpu_count_source, give_gpus ? "given" : "timestamps") == 0);
	CHECK_NEAR(pt->info.max_sweep_span_s, truth.max_spread_s, 0.002);
	CHECK(pt->info.wide_sweeps > 0);

	wc_ft_steps_info in;
	wc_ft_steps_result r;
	wc_ft_steps_info_init(&in);
	in.steps = d.steps;
	in.steps_source = "trainer_state";
	CHECK_INT(wc_ft_steps_analyse(pt->t, pt->group, pt->n, &in, &r, &err), WC_OK);
	double rel = r.energy_per_step_j / truth.energy_per_step_j - 1;
	fprintf(stderr, "%-24s %s: %.1f J/step (truth %.1f, %+.2f %%), %d saves found of %d, widest sweep %.3f s\n",
	        name, give_gpus ? "given G " : "evident G", r.energy_per_step_j, truth.energy_per_step_j,
	        100 * rel, r.n_saves, truth.saves, pt->info.max_sweep_span_s);
	CHECK(fabs(rel) <= 0.05);
	CHECK(abs(r.n_saves - truth.saves) <= 1);
	wc_power_trace_free(pt);
	remove(path);
	free(path);
	return r.energy_per_step_j;
}

int
main(void)
{
	char *dir = test_tmpdir("ft_synthetic_logs");
	static const double shares[] = { 0.15, 0.27, 0.45 };
	for (int average = 0; average <= 1; average++)
		for (int s = 0; s < 3; s++) {
			double every = one(dir, shares[s], 1, average, 0);
			double rare = one(dir, shares[s], 1000, average, 0);
			fprintf(stderr, "  cadences differ by %+.2f %%\n", 100 * (every / rare - 1));
			CHECK(fabs(every / rare - 1) <= 0.05);
		}
	/* The count given (--gpus, tp) reads the same log the same way. */
	one(dir, 0.27, 1, 0, 1);
	free(dir);
	return check_report("test_ft_synthetic_logs");
}
