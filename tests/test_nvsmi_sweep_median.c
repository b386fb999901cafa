/*
 * The GPU count of a positional nvidia-smi log (no index or uuid) read
 * off its timestamps (docs/formats/telemetry.md, "GPU count from the
 * timestamps") takes the cut below the largest jump in the sorted gaps
 * when the median gap below it is at most 40 ms. That median is the one
 * rule (docs/statistics.md): for an even count the mean of the two middle
 * gaps. 3 GPUs whose rows come 20 ms and then 50 ms apart, sweeps every
 * second: the gaps below the jump are as many of 20 ms as of 50 ms, their
 * median 35 ms, so the log is 3 GPUs. The upper middle gap (50 ms) was
 * taken instead: the cut was refused and the rows were cut at every gap
 * over 40 ms, into sweeps of 2 and 1 rows.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 40

static int
count(double t, const double *w, int n_gpus, void *payload)
{
	int *n = payload;
	(void)t;
	(void)w;
	(void)n_gpus;
	(*n)++;
	return 0;
}

int
main(void)
{
	static const int offset_ms[3] = { 0, 20, 70 };
	char *dir = test_tmpdir("nvsmi_sweep_median"), *path = path_join(dir, "position.csv");
	char *text = malloc(SWEEPS * 3 * 64 + 64);
	size_t used = (size_t)sprintf(text, "timestamp, power.draw [W]\n");
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < 3; g++) {
			long ms = 3000L + 1000L * k + offset_ms[g], s = ms / 1000;
			used += (size_t)sprintf(text + used, "2026/07/18 15:%02ld:%02ld.%03ld, %d.00\n", s / 60 % 60,
			                        s % 60, ms % 1000, 100 * (g + 1) + k);
		}
	CHECK(write_text(path, text) == 0);

	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w;
	memset(&w, 0, sizeof w);
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	wc_nvsmi_info info;
	wc_error err;
	int samples = 0;
	CHECK_INT(wc_nvsmi_read(path, &opt, count, &samples, &info, &err), WC_OK);
	fprintf(stderr, "%s", w.text);
	CHECK_INT(info.n_gpus, 3);
	CHECK(strcmp(info.gpu_count_source, "timestamps") == 0);
	CHECK_INT(samples, SWEEPS);

	free(text);
	free(path);
	free(dir);
	return check_report("test_nvsmi_sweep_median");
}
