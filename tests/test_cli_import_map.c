/*
 * `import csv --map` refuses a source column mapped twice in one --map
 * (exit 2 naming the column; docs/cli.md, "import"): it silently kept one
 * of the two mappings. The same map without the repeat imports.
 *
 * A table whose n_series paths are relative (to its folder,
 * docs/formats/runs-table.md) imported into another folder gets them
 * rewritten relative to the output's folder: copied as they were, they
 * named no file there and `fit` refused the import.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_import_map");
	char *src = path_join(dir, "bench.csv"), *out = path_join(dir, "runs.csv");
	CHECK(write_text(src, "id,gpu,gpus,name,params,batch,watts,idle\n"
	                      "a,H100,1,m,8,8,400,90\nb,H100,1,m,8,32,520,90\nc,H100,1,m,8,64,600,90\n") == 0);
	const char *base = "id=run_id,gpu=platform,gpus=tp,name=model,params=active_params_b,batch=running,"
	                   "watts=mean_power_w,idle=idle_power_w";
	char twice[512];
	snprintf(twice, sizeof twice, "%s,idle=exclude", base);
	run_result r;
	const char *dup[] = { "wattcast", "import", "csv", src, "--map", twice, "-o", out, NULL };
	CHECK(run_wattcast(dup, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "wattcast import csv: --map: column 'idle' is mapped twice ('idle_power_w' and 'exclude')");
	run_result_free(&r);

	const char *once[] = { "wattcast", "import", "csv", src, "--map", base, "-o", out, NULL };
	CHECK(run_wattcast(once, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "wrote 3 runs");
	run_result_free(&r);

	/* n_series relative to the source's folder, the output elsewhere */
	char *sdir = path_join(dir, "src"), *odir = path_join(dir, "imp");
	char *ser = path_join(sdir, "s"), *sfile = path_join(ser, "r1.csv");
	char *tsrc = path_join(sdir, "runs.csv"), *tout = path_join(odir, "copy.csv");
	const char *mk[] = { sdir, ser, odir };
	for (int i = 0; i < 3; i++) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "mkdir -p '%s'", mk[i]);
		CHECK(system(cmd) == 0);
	}
	CHECK(write_text(sfile, "t_s,running\n0,0\n0.5,4\n1.0,4\n") == 0);
	CHECK(write_text(tsrc, "run_id,platform,tp,model,active_params_b,n_series,mean_power_w\n"
	                       "r1,H100,1,m,8,s/r1.csv,400\n") == 0);
	const char *imp[] = { "wattcast", "import", "csv", tsrc, "--map", "run_id=run_id", "-o", tout, NULL };
	CHECK(run_wattcast(imp, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *text = test_slurp(tout);
	CHECK_CONTAINS(text, ",../src/s/r1.csv,");
	free(text);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(tout, &t, &err), WC_OK);
	CHECK(t && t->n_runs == 1 && t->runs[0].series.len > 0);
	wc_runs_free(t);
	free(sdir);
	free(odir);
	free(ser);
	free(sfile);
	free(tsrc);
	free(tout);
	free(src);
	free(out);
	free(dir);
	return check_report("test_cli_import_map");
}
