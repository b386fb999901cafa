/*
 * The embedded synthetic fine-tuning table
 * (data/default/finetune-design-seed42.csv) is what `wattcast simulate
 * finetune --seed 42` writes, byte for byte, and says in its header that
 * it is synthetic.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>

int
main(void)
{
	char *dir = test_tmpdir("finetune_default");
	char *fresh = path_join(dir, "regenerated.csv");
	char *shipped = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/finetune-design-seed42.csv");
	const char *argv[] = { "wattcast", "simulate", "finetune", "--seed", "42", "-o", fresh, NULL };
	run_result r;
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_INT(wc_read_file(shipped, 1u << 24, &a, &la, NULL), WC_OK);
	CHECK_INT(wc_read_file(fresh, 1u << 24, &b, &lb, NULL), WC_OK);
	CHECK(a && b && la == lb && memcmp(a, b, la) == 0);
	const char *banner = "# SYNTHETIC fine-tuning runs table - not measured data.\n";
	CHECK(a && strncmp(a, banner, strlen(banner)) == 0);
	wc_ft_table *t = NULL;
	CHECK_INT(wc_ft_table_read(shipped, &t, NULL), WC_OK);
	CHECK(t && t->n_runs == 63);
	wc_ft_table_free(t);
	run_result_free(&r);
	free(a);
	free(b);
	free(fresh);
	free(shipped);
	free(dir);
	return check_report("test_finetune_default");
}
