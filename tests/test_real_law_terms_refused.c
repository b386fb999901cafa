/*
 * A structure term the refits of a held-out analysis leave out is said,
 * once per term, in the fit's own words (docs/fitting.md, "Structure
 * terms"): on ML.ENERGY, where NVIDIA-Nemotron-Nano-12B-v2 is the only
 * hybrid, `validate lomo`, `validate capacity` and `validate forms --real`
 * with `--law-terms hybrid` printed the no-terms figures (lomo H100 10.44 %,
 * B200 16.35 %) without a word, which read as "hybrid changes nothing";
 * only `fit inference` warned. The refit holding Nemotron out has no
 * hybrid run, and refuses the term because its covariate does not vary:
 * each reason is said with its own count (until 2026-12-07 the first
 * refit's words were given for all 12).
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char refused[] = "warning: structure term arch_hybrid: only one model (NVIDIA-Nemotron-Nano-12B-v2) "
                              "identifies it, so it would be that model's own offset; not fitted (in ";

static const char no_vary[] = "warning: structure term arch_hybrid: its covariate does not vary over the runs; "
                              "not fitted (in ";

/* Each of the two reasons once, with its count. */
static void
check_warns(const char *const *argv, const char *count, const char *count_no_vary)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	char want[512];
	snprintf(want, sizeof want, "%s%s", refused, count);
	CHECK_CONTAINS(r.err, want);
	snprintf(want, sizeof want, "%s%s", no_vary, count_no_vary);
	CHECK_CONTAINS(r.err, want);
	/* once per reason, whatever the folds */
	const char *first = r.err ? strstr(r.err, refused) : NULL;
	CHECK(first && !strstr(first + 1, refused));
	first = r.err ? strstr(r.err, no_vary) : NULL;
	CHECK(first && !strstr(first + 1, no_vary));
	run_result_free(&r);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return 77;
	char *ml = path_join(shared, "data/real/mlenergy/configurations_text.csv");
	const char *lomo[] = { "wattcast", "validate", "lomo", ml, "--law-terms", "hybrid", NULL };
	check_warns(lomo, "11 of 12 refits)\n", "1 of 12 refits)\n");
	const char *cap[] = { "wattcast", "validate", "capacity", ml, "--law-terms", "hybrid", NULL };
	check_warns(cap, "11 of 12 refits)\n", "1 of 12 refits)\n");
	const char *real[] = { "wattcast", "validate", "forms", "--real", ml, "--law-terms", "hybrid", NULL };
	check_warns(real, "78 of 84 refits)\n", "6 of 84 refits)\n");
	/* a term the refits fit says nothing */
	const char *moe[] = { "wattcast", "validate", "lomo", ml, "--law-terms", "moe", NULL };
	run_result r;
	CHECK_INT(run_wattcast(moe, NULL, &r), 0);
	CHECK(r.err && !strstr(r.err, "structure term"));
	run_result_free(&r);
	free(ml);
	return check_report("test_real_law_terms_refused");
}
