/*
 * The grid's step count (docs/fleet.md, "Queries"): an end on the grid is
 * its last step. (end - start) / step over decimal times falls just short
 * of a whole number (1796559568.6 - 1796559249.3 over 3.1 s gives
 * 102.99999998), and the floor dropped the last step: saved answers and a
 * server with a value at 12:19:28.6 for every series gave no step there,
 * h1's last window 1011.6 tok/s instead of 811.1. Every end on such grids
 * must count every step; an end between grid times counts those up to it.
 */
#include "tests/support/support.h"
#include "trace/fleet_internal.h"

#include <math.h>
#include <stdio.h>

static size_t
count(double start, double end, double step)
{
	wc_fleet_options o;
	wc_fleet_options_init(&o);
	o.start = start;
	o.end = end;
	o.step = step;
	wc_fleet *f = NULL;
	wc_error err = { 0 };
	CHECK(wc_fleet_new(&o, &f, &err) == WC_OK);
	size_t n = f ? f->n_steps : 0;
	wc_fleet_free(f);
	return n;
}

int
main(void)
{
	CHECK(count(1796559249.3, 1796559568.6, 3.1) == 104);
	const double starts[] = { 1796559249.3, 1767225600.0, 1796559000.7 };
	const double steps[] = { 3.1, 0.1, 2.3, 7.7, 15.0, 0.3 };
	size_t bad = 0;
	for (size_t a = 0; a < sizeof starts / sizeof *starts; a++)
		for (size_t b = 0; b < sizeof steps / sizeof *steps; b++)
			for (long n = 1; n <= 3000; n++) {
				/* the end as a timestamp of milliseconds, as Prometheus gives it */
				double end = round((starts[a] + (double)n * steps[b]) * 1000.0) / 1000.0;
				if (count(starts[a], end, steps[b]) != (size_t)n + 1 && bad++ < 3)
					fprintf(stderr, "start %.3f end %.3f step %g: want %ld steps\n", starts[a], end,
					        steps[b], n + 1);
				/* half a step short of the grid time: the step before is the last */
				if (n > 1 && count(starts[a], end - steps[b] / 2, steps[b]) != (size_t)n && bad++ < 3)
					fprintf(stderr, "start %.3f end %.3f step %g: want %ld steps\n", starts[a],
					        end - steps[b] / 2, steps[b], n);
			}
	CHECK(bad == 0);
	return check_report("test_prom_grid_end");
}
