/*
 * Preloaded into wattcast by a test (LD_PRELOAD, tests/test_prom_scale.c):
 * counts its calls of strcmp, the operation a scan over series or groups
 * repeats, and writes the count to the file $WC_COUNT_STRCMP_OUT at exit.
 * How the count grows with the input is the test's measure of work, where
 * a time would depend on the machine and its load.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long calls;

int strcmp(const char *a, const char *b);

int
strcmp(const char *a, const char *b)
{
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
	while (*p && *p == *q) {
		p++;
		q++;
	}
	return (int)*p - (int)*q;
}

__attribute__((destructor)) static void
report(void)
{
	const char *out = getenv("WC_COUNT_STRCMP_OUT");
	FILE *f = out ? fopen(out, "w") : NULL;
	if (!f)
		return;
	fprintf(f, "%llu\n", __atomic_load_n(&calls, __ATOMIC_RELAXED));
	fclose(f);
}
