/*
 * A sweep's caveats, each kind once (docs/capacity.md, "Power
 * flexibility"). A100 Qwen3-8B at 64 running, 512 + 256 tokens, said the
 * prefill caveat over "at 210-1301 MHz: ... 31-63 %" and then again "at
 * 428 MHz: ... 57 %" and "at 646 MHz: ... 47 %", the optimum's and the
 * knee's own lines, clocks inside the range with a number beside it; and
 * the bandwidth caveat at 210-646 MHz, then again as knee_clock_mhz's and
 * energy_optimal_clock_mhz's. Now each kind is one line, whose clocks
 * and value range cover every step it holds at, the knee's and the
 * optimum's among them, each line within a warning's length.
 */
#include "models/warnings.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The caveat past "at F MHz: " and its first field ("sm_clock_mhz: ",
 * "knee_clock_mhz: "): what it says, whoever it is said for. */
static const char *
body(const char *w)
{
	const char *end = strncmp(w, "at ", 3) == 0 ? strstr(w, " MHz: ") : NULL;
	const char *b = end ? end + 6 : w;
	const char *colon = strstr(b, ": ");
	return colon ? colon + 2 : b;
}

/* Is a step's (or a pick's) line, not the unconstrained point's, which is
 * given in predict inference's words at the top clock, outside the steps'
 * range? */
static int
of_steps(const char *w)
{
	return strncmp(w, "at ", 3) == 0 || strncmp(w, "knee_clock_mhz: ", 16) == 0 ||
	       strncmp(w, "energy_optimal_clock_mhz: ", 26) == 0;
}

/* Are a and b one caveat, numbers, ranges "a-b" and lists "a/b" aside? */
static int
same_kind(const char *a, const char *b)
{
	while (*a && *b) {
		int na = isdigit((unsigned char)*a), nb = isdigit((unsigned char)*b);
		if (na != nb)
			return 0;
		if (na) {
			a += strspn(a, "0123456789./-");
			b += strspn(b, "0123456789./-");
		} else if (*a++ != *b++) {
			return 0;
		}
	}
	return *a == *b;
}

/* The "  warning: " lines of `out`, at most `cap`. */
static int
warnings(const char *out, char (*w)[512], int cap)
{
	int n = 0;
	for (const char *l = out ? strstr(out, "  warning: ") : NULL; l && n < cap; l = strstr(l + 1, "  warning: "))
		snprintf(w[n++], sizeof w[0], "%.*s", (int)strcspn(l + 11, "\n"), l + 11);
	return n;
}

/* Does range line `w` ("at F1-F2 MHz: ... lo-hi % ...") cover clock `mhz`
 * and the number `v` where it gives a range? */
static int
covers(const char *w, double mhz, double v)
{
	double lo = 0, hi = 0, a = 0, b = 0;
	if (sscanf(w, "at %lf-%lf MHz:", &lo, &hi) != 2 || !(lo - 0.5 <= mhz && mhz < hi + 0.5))
		return 0;
	const char *t = strstr(w, "takes ");
	return t && sscanf(t, "takes %lf-%lf %%", &a, &b) == 2 && a <= v && v <= b;
}

/* predict inference's prefill share at clock `mhz` ("prefill takes N %"). */
static double
prefill_at(const char *const *args, int n_args, double mhz)
{
	const char *argv[40] = { "wattcast", "predict", "inference" };
	char clock[32];
	snprintf(clock, sizeof clock, "%.7g", mhz);
	for (int i = 0; i < n_args; i++)
		argv[3 + i] = args[i];
	argv[3 + n_args] = "--sm-clock";
	argv[4 + n_args] = clock;
	run_result r;
	double v = -1;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	const char *t = r.out ? strstr(r.out, "prefill takes ") : NULL;
	CHECK(t != NULL);
	if (t)
		v = strtod(t + 14, NULL);
	run_result_free(&r);
	return v;
}

int
main(void)
{
	static const char *const a100[] = { "--platform", "A100", "--model", "Qwen3-8B", "--concurrency", "64",
		                            "--input-tokens", "512", "--output-tokens", "256" };
	static const char *const h100[] = { "--platform", "H100", "--model", "Llama-3.1-8B", "--concurrency", "32",
		                            "--input-tokens", "512", "--output-tokens", "256", "--steps", "4" };
	const struct {
		const char *const *args;
		int n;
	} cases[] = { { a100, 10 }, { h100, 12 } };
	for (int k = 0; k < 2; k++) {
		const char *argv[40] = { "wattcast", "predict", "flexibility" };
		for (int i = 0; i < cases[k].n; i++)
			argv[3 + i] = cases[k].args[i];
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		static char w[64][512];
		int n = warnings(r.out, w, 64);
		CHECK(n > 0);
		for (int i = 0; i < n; i++) {
			CHECK(strlen(w[i]) < WC_WARNING_LEN);
			for (int j = i + 1; j < n; j++)
				if (of_steps(w[i]) && of_steps(w[j]) && same_kind(body(w[i]), body(w[j]))) {
					fprintf(stderr, "one caveat twice:\n  %s\n  %s\n", w[i], w[j]);
					CHECK(0);
				}
		}
		run_result_free(&r);
	}
	/* the A100 range covers the optimum's 428 MHz and the knee's 646 MHz,
	 * with the numbers predict inference gives there */
	const char *argv[40] = { "wattcast", "predict", "flexibility", "--json" };
	for (int i = 0; i < 10; i++)
		argv[4 + i] = a100[i];
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	const char *kt = r.out ? strstr(r.out, "\"knee_clock_mhz\":") : NULL;
	const char *ot = r.out ? strstr(r.out, "\"energy_optimal_clock_mhz\":") : NULL;
	CHECK(kt && ot);
	double knee = kt ? strtod(kt + 17, NULL) : 0, opt = ot ? strtod(ot + 27, NULL) : 0;
	run_result_free(&r);
	const char *text[40] = { "wattcast", "predict", "flexibility" };
	for (int i = 0; i < 10; i++)
		text[3 + i] = a100[i];
	CHECK_INT(run_wattcast(text, NULL, &r), 0);
	static char w[64][512];
	int n = warnings(r.out, w, 64), ranges = 0;
	for (int i = 0; i < n; i++)
		if (strncmp(w[i], "at ", 3) == 0 && strstr(w[i], "prefill takes ")) {
			ranges++;
			CHECK(covers(w[i], knee, prefill_at(a100, 10, knee)));
			CHECK(covers(w[i], opt, prefill_at(a100, 10, opt)));
		}
	CHECK_INT(ranges, 1);
	run_result_free(&r);
	return check_report("test_flexibility_once");
}
