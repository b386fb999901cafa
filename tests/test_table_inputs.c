/*
 * Several capacity inputs (data/table_inputs.c): the provenance of a fit
 * on them names them all, or the first and how many more, and their
 * fingerprint covers every one. It named only the first file, and two
 * fits whose 17th input differed carried the same input_sha256 (only the
 * first 16 were hashed). One input's fingerprint is its file's SHA-256.
 */
#include "data/data.h"
#include "data/table_inputs.h"
#include "fit/capacity_fit.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(void)
{
	char *dir = test_tmpdir("table_inputs");
	char *src = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/published-periods.csv");
	char *text = test_slurp(src);
	char *paths[18], name[32], a[65], b[65];
	for (int i = 0; i < 17; i++) {
		snprintf(name, sizeof name, "p%02d.csv", i + 1);
		paths[i] = test_fixture(dir, name, text);
	}
	/* An 18th input with other bytes than the 17th. */
	size_t n = strlen(text);
	char *other = malloc(n + 32);
	snprintf(other, n + 32, "%s", text);
	other[n - 1] = '\n'; /* keep the last line's end */
	snprintf(other + n, 32, "# another comment\n");
	paths[17] = test_fixture(dir, "other.csv", other);

	wc_table_inputs_fingerprint(paths, 17, a);
	char *swapped[17];
	memcpy(swapped, paths, sizeof swapped);
	swapped[16] = paths[17];
	wc_table_inputs_fingerprint(swapped, 17, b);
	CHECK_INT((int)strlen(a), 64);
	CHECK(strcmp(a, b) != 0);

	wc_runs_table *runs = NULL;
	wc_periods_table *periods = NULL;
	wc_error err;
	CHECK_INT(wc_table_inputs_read(paths, 17, &runs, &periods, &err), WC_OK);
	CHECK_CONTAINS(runs->path, "p01.csv and 16 more (17 inputs)");
	CHECK(strlen(runs->path) < WC_INPUTS_LABEL_MAX);
	wc_runs_free(runs);
	wc_periods_free(periods);
	CHECK_INT(wc_table_inputs_read(paths, 2, &runs, &periods, &err), WC_OK);
	CHECK(strstr(runs->path, "p01.csv, ") != NULL && strstr(runs->path, "p02.csv") != NULL);
	wc_runs_free(runs);
	wc_periods_free(periods);

	/* One input given twice, or a run in two inputs, would count twice:
	 * refused (fit capacity took the same table twice as 22 rows). */
	char *twice[2] = { paths[0], paths[0] };
	CHECK(wc_table_inputs_read(twice, 2, &runs, &periods, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "p01.csv: given twice");
	wc_runs_free(runs);
	wc_periods_free(periods);
	char *sim = path_join(dir, "sim.csv");
	const char *argv[] = { "wattcast", "simulate", "inference", "--seed", "2", "-o", sim, NULL };
	test_run_ok(argv);
	char *sim_text = test_slurp(sim), *copy = test_fixture(dir, "sim_copy.csv", sim_text);
	char *both[2] = { sim, copy };
	CHECK(wc_table_inputs_read(both, 2, &runs, &periods, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "is in more than one input (a table given twice?)");
	wc_runs_free(runs);
	wc_periods_free(periods);
	/* One input, as fit capacity reads it (a runs table and the empty
	 * periods table beside it): its fingerprint is the file's SHA-256. It
	 * was the SHA-256 of that hash's hex, so one file had two hashes in
	 * one parameter file. */
	for (int k = 0; k < 2; k++) {
		char *one[1] = { k ? paths[0] : sim }, file_sha[65];
		wc_capacity_data d = WC_CAPACITY_DATA_INIT;
		CHECK_INT(wc_table_inputs_read(one, 1, &runs, &periods, &err), WC_OK);
		CHECK_INT(wc_capacity_data_add_runs(&d, runs, &err), WC_OK);
		CHECK_INT(wc_capacity_data_add_periods(&d, periods, &err), WC_OK);
		CHECK_INT(wc_sha256_file_hex(one[0], file_sha, &err), WC_OK);
		CHECK(strcmp(d.sha256, file_sha) == 0);
		wc_capacity_data_clear(&d);
		wc_runs_free(runs);
		wc_periods_free(periods);
	}
	free(sim);
	free(sim_text);
	free(copy);

	for (int i = 0; i < 18; i++)
		free(paths[i]);
	free(other);
	free(text);
	free(src);
	free(dir);
	return check_report("test_table_inputs");
}
