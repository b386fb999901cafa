/*
 * Power readings of nvidia-smi logs go through the number parser's fast
 * path (data/line_reader.c: [-]digits[.digits], at most 15 digits, an
 * exact integer over an exact power of ten) or through strtod; either way
 * the value must be strtod's to the bit, so that no output depends on
 * which path a number took. 200 000 readings in a 1-GPU log: random
 * values printed with 0 to 17 decimals (so both sides of the 15-digit
 * rule), leading zeros, a bare fraction (".5"), a trailing dot ("5."),
 * exponents and unit words; each delivered sample is compared with strtod
 * of the text that was written.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_LINES 200000

typedef struct {
	const double *want;
	size_t n, wrong;
	long first_wrong;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	(void)n_gpus;
	if (s->n < N_LINES && memcmp(&w[0], &s->want[s->n], sizeof(double)) != 0 && s->wrong++ == 0)
		s->first_wrong = (long)s->n;
	s->n++;
	return 0;
}

/* A power reading as text, of a kind chosen by k. */
static void
reading(uint64_t *state, int k, char *out, size_t cap)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL; /* fixed seed: see main */
	double u = (double)(*state >> 11) * 0x1p-53;
	switch (k % 8) {
	case 0: snprintf(out, cap, "%.*f", k % 18, 4999.0 * u); break;      /* 0..17 decimals */
	case 1: snprintf(out, cap, "%.17g", 4999.0 * u); break;             /* 17 digits: strtod */
	case 2: snprintf(out, cap, "0.%015d", (int)(u * 1e9)); break;       /* leading zeros */
	case 3: snprintf(out, cap, ".%d", (int)(u * 1e6)); break;           /* bare fraction */
	case 4: snprintf(out, cap, "%d.", (int)(u * 4999)); break;          /* trailing dot */
	case 5: snprintf(out, cap, "%.6e", 4999.0 * u); break;              /* exponent: strtod */
	case 6: snprintf(out, cap, "%.2f W", 4999.0 * u); break;            /* unit word */
	default: snprintf(out, cap, "%012.4f", 4999.0 * u); break;          /* padded: 15-16 digits */
	}
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_numbers"), *p = path_join(dir, "numbers.csv");
	double *want = malloc(N_LINES * sizeof *want);
	FILE *f = fopen(p, "wb");
	CHECK(f && want);
	fprintf(f, "timestamp,index,power.draw [W]\n");
	uint64_t state = 42;
	for (int i = 0; i < N_LINES; i++) {
		char text[64], num[64];
		reading(&state, i, text, sizeof text);
		/* what strtod makes of the number (the unit word cut off) */
		snprintf(num, sizeof num, "%s", text);
		char *blank = strchr(num, ' ');
		if (blank)
			*blank = '\0';
		want[i] = strtod(num, NULL);
		int s = i / 10, ms = i % 10;
		fprintf(f, "2026/07/18 %02d:%02d:%02d.%d00,0,%s\n", s / 3600, s / 60 % 60, s % 60, ms, text);
	}
	CHECK(fclose(f) == 0);

	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	wc_error err;
	seen s = { want, 0, 0, -1 };
	CHECK_INT(wc_nvsmi_read(p, &opt, keep, &s, &info, &err), WC_OK);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(s.n, N_LINES);
	if (s.wrong)
		fprintf(stderr, "%zu readings differ from strtod, the first on data line %ld\n", s.wrong,
		        s.first_wrong + 1);
	CHECK_INT(s.wrong, 0);
	free(want);
	free(p);
	free(dir);
	return check_report("test_nvsmi_numbers");
}
