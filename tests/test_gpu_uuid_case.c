/*
 * GPU UUIDs are hex: the same GPU in upper or lower case
 * (data/gpu_uuid.c, wc_telemetry_uuid_same; docs/formats/telemetry.md,
 * "`power.csv`: nvidia-smi"). A PowerTrace-Sim manifest naming its GPUs in
 * upper case beside nvidia-smi's lower-case power.csv was refused, "GPU
 * GPU-C5D32AF0-... of the run's 2 (gpu_uuids) is in no row of the log",
 * though both GPUs were in every sweep; a repeat differing only in case
 * passed the manifest's duplicate check.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 50

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	int *n = payload;
	(void)t;
	(void)w;
	*n += n_gpus == 2;
	return 0;
}

int
main(void)
{
	char *dir = test_tmpdir("gpu_uuid_case");
	wc_error err;

	CHECK(wc_telemetry_uuid_same("GPU-c5d32af0-0857", "GPU-C5D32AF0-0857", 17));
	CHECK(!wc_telemetry_uuid_same("GPU-c5d32af0-0857", "GPU-C5D32AF0-0858", 17));
	CHECK(!wc_telemetry_uuid_same("GPU-c5d32af0", "GPU-C5D32AF0-0857", 17));

	/* nvidia-smi's lower case, the run's GPUs named in upper case */
	char *p = path_join(dir, "power.csv");
	size_t cap = 2 * SWEEPS * 96 + 64, used = 0;
	char *text = malloc(cap);
	used += (size_t)snprintf(text, cap, "timestamp, uuid, power.draw [W]\n");
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < 2; g++)
			used += (size_t)snprintf(text + used, cap - used, "2026/07/18 15:00:%02d.%03d, %s, %d.00\n",
			                         k / 10, 100 * (k % 10) + 5 * g,
			                         g ? "GPU-0aa1b2c3-0001" : "GPU-c5d32af0-0000", 100 + k);
	CHECK_INT(write_text(p, text), 0);
	static const char *const upper[] = { "GPU-C5D32AF0-0000", "GPU-0AA1B2C3-0001" };
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.gpu_uuids = upper;
	opt.n_gpu_uuids = 2;
	wc_nvsmi_info info;
	int n = 0, rc = wc_nvsmi_read(p, &opt, keep, &n, &info, &err);
	if (rc != WC_OK)
		fprintf(stderr, "refused: %s\n", err.msg);
	CHECK_INT(rc, WC_OK);
	CHECK_INT(n, SWEEPS);
	CHECK_INT(info.bad_lines, 0);
	free(p);
	free(text);

	/* a manifest naming one GPU twice, once in each case */
	wc_run_manifest m;
	wc_run_manifest_init(&m);
	p = path_join(dir, "wattcast-run.json");
	CHECK_INT(write_text(p, "{\"schema\": \"wattcast.run/3\", \"run_id\": \"r\", \"platform\": \"A100\", \"tp\": 2, "
	                        "\"gpu_uuids\": [\"GPU-c5d32af0-0000\", \"GPU-C5D32AF0-0000\"]}\n"),
	          0);
	CHECK_INT(wc_run_manifest_load(p, &m, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "/gpu_uuids/1: GPU-C5D32AF0-0000 repeats /gpu_uuids/0");
	free(p);

	free(dir);
	return check_report("test_gpu_uuid_case");
}
