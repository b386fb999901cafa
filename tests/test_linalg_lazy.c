/*
 * OpenBLAS/LAPACKE are loaded on first use, not at start-up
 * (docs/architecture.md, "Linking"): libquadmath, which OpenBLAS pulls in
 * through libgfortran, registers printf handlers that slow down every
 * printf of the process. Before any LAPACK call (pinning included) none of
 * them is mapped; a fit of the fine-tuning law (LAPACK dgels) loads
 * OpenBLAS and recovers the simulated law's coefficients, so the loaded
 * library works.
 */
#include "data/data.h"
#include "fit/fit.h"
#include "fit/finetune_fit.h"
#include "validation/validation.h"
#include "tests/support/support.h"

#include <stdlib.h>

/* 1 when a mapping of the process names `lib`. */
static int
mapped(const char *lib)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	int found = 0;
	CHECK(f != NULL);
	while (f && fgets(line, sizeof line, f))
		found |= strstr(line, lib) != NULL;
	if (f)
		fclose(f);
	return found;
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_ft_simulate_options so = { 3, 0.0 };
	wc_ft_table *t = NULL;
	wc_ft_fit_result r;
	wc_linalg_pin_single_thread();
	CHECK(!mapped("libopenblas"));
	CHECK(!mapped("liblapacke"));
	CHECK(!mapped("libquadmath"));
	CHECK(!mapped("libgfortran"));
	wc_params_default(&paper);
	CHECK_INT(wc_simulate_finetune(&paper, &so, &t, NULL), WC_OK);
	CHECK_INT(wc_fit_finetune(t, NULL, &r, NULL), WC_OK);
	CHECK(mapped("libopenblas"));
	CHECK(mapped("liblapacke"));
	/* Without noise the compute law comes back (energies rounded to 0.1 J). */
	CHECK_NEAR(r.section.e0.value, 2176.3, 0.5);
	CHECK_NEAR(r.section.kappa.value, 4.5241, 1e-3);
	wc_ft_fit_result_clear(&r);
	wc_ft_table_free(t);
	wc_params_clear(&paper);
	return check_report("test_linalg_lazy");
}
