/*
 * `import csv --map` refuses a source column mapped twice in one --map
 * (exit 2 naming the column; docs/cli.md, "import"): it silently kept one
 * of the two mappings. The same map without the repeat imports.
 */
#include "tests/support/support.h"

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

	free(src);
	free(out);
	free(dir);
	return check_report("test_cli_import_map");
}
