/*
 * The coverage of `validate capacity`'s cross-conformal intervals on
 * ML.ENERGY (leave one model out, `--profile paper` and `--profile
 * measured`) as docs/results.md, docs/intervals.md and docs/validation.md
 * quote it: the counts, shares, P-values and widths the binary prints now
 * (label realdata; skipped without ../shared). After the capacity law's
 * tau_EP the pages still gave H100 energy per token 136 of 153 (88.9 %,
 * P = 0.002), throughput 309 (95.1 %), widths 121.6 / 150.6 % and
 * `measured`'s B200 energy 156 of 172, where the binary gave 137 (89.5 %,
 * P = 0.004), 310 (95.4 %), 117.5 / 145.3 % and 157, and no test saw it.
 */
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
says(const char *rel, const char *phrase)
{
	CHECK(test_doc_says(rel, phrase));
}

/* P(X <= k) for X ~ Binomial(n, 0.95): the chance of so few runs inside
 * were they independent (the pages' P). */
static double
binom_cdf(int k, int n)
{
	double sum = 0.0;
	for (int i = 0; i <= k; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) - lgamma(n - i + 1.0) + i * log(0.95) + (n - i) * log(0.05));
	return sum;
}

typedef struct {
	int n, in;
	double pct, width;
} cell;

/* quantity `q` ("throughput_lomo", "energy_per_token_lomo"), platform
 * `plat` (NULL: overall) of a `validate capacity --json` report */
static cell
cell_of(const json_t *j, const char *q, const char *plat)
{
	char path[128];
	if (plat)
		snprintf(path, sizeof path, "%s/platforms/%s/", q, plat);
	else
		snprintf(path, sizeof path, "%s/overall/", q);
	char a[160], b[160], c[160];
	snprintf(a, sizeof a, "%sn_interval", path);
	snprintf(b, sizeof b, "%scoverage_95", path);
	snprintf(c, sizeof c, "%smedian_rel_width", path);
	cell x = { (int)test_json_num(j, a), 0, 100.0 * test_json_num(j, b), 100.0 * test_json_num(j, c) };
	x.in = (int)lround(x.pct * x.n / 100.0);
	return x;
}

static json_t *
report(const char *ml, const char *profile)
{
	const char *argv[] = { "wattcast", "validate", "capacity", ml, "--profile", profile, "--json", NULL };
	return test_run_json(argv, NULL);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *ml = path_join(shared, "data/real/mlenergy/configurations_text.csv");
	char s[512];

	json_t *j = report(ml, "paper");
	const cell tb = cell_of(j, "throughput_lomo", "B200"), th = cell_of(j, "throughput_lomo", "H100"),
	           ta = cell_of(j, "throughput_lomo", NULL), eb = cell_of(j, "energy_per_token_lomo", "B200"),
	           eh = cell_of(j, "energy_per_token_lomo", "H100"), ea = cell_of(j, "energy_per_token_lomo", NULL);
	snprintf(s, sizeof s, "holds energy per output token on %d of %d runs (%.1f %%) and throughput on %d (%.1f %%)",
	         ea.in, ea.n, ea.pct, ta.in, ta.pct);
	says("docs/results.md", s);
	snprintf(s, sizeof s, "H100 energy per token %d of %d (%.1f %%; P(X ≤ %d) = %.3f for", eh.in, eh.n, eh.pct, eh.in,
	         binom_cdf(eh.in, eh.n));
	says("docs/results.md", s);
	snprintf(s, sizeof s, "B200 throughput %d of %d (%.1f %%; P = %.3f); B200 energy %.1f %%, H100 throughput %.1f %%",
	         tb.in, tb.n, tb.pct, binom_cdf(tb.in, tb.n), eb.pct, th.pct);
	says("docs/results.md", s);
	snprintf(s, sizeof s, "| B200 | %.1f %% / %.1f %% | %.1f %% / %.1f %% | | H100 | %.1f %% / %.1f %% | %.1f %% / "
	         "%.1f %% | | all %d | %.1f %% (%d) | %.1f %% (%d) |", tb.pct, tb.width, eb.pct, eb.width, th.pct, th.width,
	         eh.pct, eh.width, ta.n, ta.pct, ta.in, ea.pct, ea.in);
	says("docs/intervals.md", s);
	snprintf(s, sizeof s, "H100 energy per output token's %d of %d has P(X ≤ %d) = %.3f and B200 throughput's %d of %d "
	         "P = %.3f", eh.in, eh.n, eh.in, binom_cdf(eh.in, eh.n), tb.in, tb.n, binom_cdf(tb.in, tb.n));
	says("docs/intervals.md", s);
	snprintf(s, sizeof s, "cover energy per output token on %.1f %% (%d), throughput on %.1f %%, but H100 energy per "
	         "token on %.1f %% (%d of %d; P(X ≤ %d) = %.3f", ea.pct, ea.in, ta.pct, eh.pct, eh.in, eh.n, eh.in,
	         binom_cdf(eh.in, eh.n));
	says("docs/intervals.md", s);
	snprintf(s, sizeof s, "interval on %d of %d runs (%.1f %%) — H100 %d of %d (%.1f %%; P(X ≤ %d) = %.3f at 95 %%)",
	         ea.in, ea.n, ea.pct, eh.in, eh.n, eh.pct, eh.in, binom_cdf(eh.in, eh.n));
	says("docs/validation.md", s);
	snprintf(s, sizeof s, "and throughput on %d (%.1f %%) but B200 %d of %d (%.1f %%)", ta.in, ta.pct, tb.in, tb.n,
	         tb.pct);
	says("docs/validation.md", s);
	json_decref(j);

	j = report(ml, "measured");
	const cell mtb = cell_of(j, "throughput_lomo", "B200"), mth = cell_of(j, "throughput_lomo", "H100"),
	           mta = cell_of(j, "throughput_lomo", NULL), meb = cell_of(j, "energy_per_token_lomo", "B200"),
	           meh = cell_of(j, "energy_per_token_lomo", "H100"), mea = cell_of(j, "energy_per_token_lomo", NULL);
	snprintf(s, sizeof s, "energy per output token on B200 %d of %d (%.1f %%, below nominal; P(X ≤ %d) = %.3f;",
	         meb.in, meb.n, meb.pct, meb.in, binom_cdf(meb.in, meb.n));
	says("docs/results.md", s);
	snprintf(s, sizeof s, "H100 %d of %d (%.1f %%; Llama-4-Maverick's 2 below), %.1f %% of all %d", meh.in, meh.n,
	         meh.pct, mea.pct, mea.n);
	says("docs/results.md", s);
	snprintf(s, sizeof s, "| %.1f %% (%d) | %.1f %% (%d) / %.1f %% | | H100 | 153 | 98.0 %% (150) / 74.2 %% | %.1f %% "
	         "(%d) | %.1f %% (%d) / %.1f %% | | all | 325 | 94.8 %% (308) | %.1f %% (%d) | %.1f %% (%d) / %.1f %% |",
	         mtb.pct, mtb.in, meb.pct, meb.in, meb.width, mth.pct, mth.in, meh.pct, meh.in, meh.width, mta.pct, mta.in,
	         mea.pct, mea.in, mea.width);
	says("docs/intervals.md", s);
	snprintf(s, sizeof s, "energy per output token's %d of %d has P(X ≤ %d) = %.3f for", meb.in, meb.n, meb.in,
	         binom_cdf(meb.in, meb.n));
	says("docs/intervals.md", s);
	/* "Coverage by load": the two capacity columns, band by band */
	const json_t *tbands = json_object_get(json_object_get(j, "throughput_lomo"), "coverage_by_load");
	const json_t *ebands = json_object_get(json_object_get(j, "energy_per_token_lomo"), "coverage_by_load");
	CHECK_INT((int)json_array_size(tbands), 4);
	for (size_t k = 0; k < json_array_size(tbands) && k < json_array_size(ebands); k++) {
		snprintf(s, sizeof s, "%% | %.1f %% | %.1f %% |",
		         100.0 * json_number_value(json_object_get(json_array_get(tbands, k), "coverage_95")),
		         100.0 * json_number_value(json_object_get(json_array_get(ebands, k), "coverage_95")));
		says("docs/intervals.md", s);
	}
	json_decref(j);
	free(ml);
	return check_report("test_real_docs_capacity_coverage");
}
