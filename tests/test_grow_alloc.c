/* The overflow-checked allocation helpers of models/grow.h: a byte count
 * that would wrap is refused (NULL) instead of giving a short block; a
 * zero count gives a valid block; the zeroed form is zeroed. */
#include "tests/support/support.h"
#include "models/grow.h"

#include <stdint.h>
#include <stdlib.h>

int
main(void)
{
	size_t huge = SIZE_MAX / 8 + 2; /* huge * 8 wraps */
	CHECK(wc_alloc_array(huge, 8) == NULL);
	CHECK(wc_alloc_zeroed(huge, 8) == NULL);
	double *v = wc_alloc_array(4, sizeof *v);
	CHECK(v != NULL);
	CHECK(wc_resize_array(v, huge, 8) == NULL); /* v untouched, still ours */
	free(v);

	void *empty = wc_alloc_zeroed(0, sizeof(double));
	CHECK(empty != NULL);
	free(empty);

	size_t n = 1000;
	unsigned *z = wc_alloc_zeroed(n, sizeof *z);
	CHECK(z != NULL);
	size_t nonzero = 0;
	for (size_t i = 0; z && i < n; i++)
		nonzero += z[i] != 0;
	CHECK_INT((long long)nonzero, 0);
	free(z);
	return check_report("test_grow_alloc");
}
