/*
 * A capacity level for a catalog board the set was not fitted on
 * (docs/capacity.md, "Platforms without a capacity level"): the board's
 * datasheet numbers, each per-level kind the median of the levels whose
 * rows identified it (those on the board's own die when it has any), the
 * same median in every draw; fitted levels and
 * their aliases bind as before; the answer says it is a transfer, names
 * its level source and widens its intervals by the datasheet stratum.
 * The transfer's note, remembered per thread, is the one formatted
 * afresh, whatever was noted before and whatever buffer it is cut to.
 */
#include "data/data.h"
#include "predict/capacity_predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

static void
add_level(wc_capacity_params *c, const char *name, double eta, double t0, wc_source t0_source)
{
	const wc_platform_info *info = wc_platform_board(name, NULL);
	wc_capacity_level *l = &c->levels[c->n_levels++];
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	l->bandwidth_tb_s = info->bandwidth_tb_s;
	l->bf16_tflops = info->bf16_tflops;
	l->memory_gb = info->memory_gb;
	for (int k = 0; k < WC_CAP_KINDS; k++)
		l->p[k] = (wc_param){ NAN, NAN, NAN, WC_SRC_ASSUMED };
	l->p[WC_CAP_ETA] = (wc_param){ eta, NAN, NAN, WC_SRC_FITTED };
	l->p[WC_CAP_T0] = (wc_param){ t0, NAN, NAN, t0_source };
}

/* Three levels: eta 0.6 / 0.8 / 0.7, t0 1 ms / 3 ms / 1 µs at its bound;
 * t1, eta_c and tau shared. */
static void
section(wc_capacity_params *c)
{
	wc_capacity_params_init(c);
	c->present = 1;
	add_level(c, "A100", 0.6, 1e-3, WC_SRC_FITTED);
	add_level(c, "H100", 0.8, 3e-3, WC_SRC_FITTED);
	add_level(c, "B200", 0.7, 1e-6, WC_SRC_BOUND);
	const wc_capacity_kind shared[] = { WC_CAP_T1, WC_CAP_ETAC, WC_CAP_TAU };
	const double v[] = { 2e-5, 0.8, 1e-5 };
	for (int i = 0; i < 3; i++) {
		c->shared[shared[i]] = 1;
		c->shared_p[shared[i]] = (wc_param){ v[i], NAN, NAN, WC_SRC_FITTED };
	}
	wc_capacity_tie_tau_ep(c); /* as a section without tau_ep loads */
}

static void
binding(void)
{
	wc_capacity_params c;
	wc_capacity_binding b, f;
	wc_capacity_point pt;
	wc_error err;
	section(&c);
	CHECK_INT(wc_capacity_params_validate(&c, &err), WC_OK);
	/* The board's own datasheet, the median of what was identified:
	 * eta of all three (0.7), t0 of A100 and H100 only (2 ms, not the
	 * bound's 1 µs, which would make the median 1 ms). */
	CHECK_INT(wc_capacity_bind(&c, "L40S", &b, &err), WC_ENOTFOUND);
	CHECK_INT(wc_capacity_bind_any(&c, "L40S", &b, &err), WC_OK);
	const wc_platform_info *l40s = wc_platform_board("L40S", NULL);
	CHECK(b.datasheet && strcmp(b.level->name, "L40S") == 0);
	CHECK(b.n_src[WC_CAP_ETA] == 3 && b.n_src[WC_CAP_T0] == 2);
	CHECK_NEAR(b.hw.bandwidth_b_s, l40s->bandwidth_tb_s * 1e12, 1.0);
	CHECK_NEAR(b.hw.flops_s, l40s->bf16_tflops * 1e12, 1.0);
	CHECK_NEAR(b.hw.memory_bytes, wc_platform_memory_bytes("L40S", l40s->memory_gb), 1.0);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.eta, 0.7, 1e-15);
	CHECK_NEAR(pt.t0, 2e-3, 1e-15);
	CHECK_NEAR(pt.t1, 2e-5, 0);
	CHECK_NEAR(pt.etac, 0.8, 0);
	CHECK(b.level->p[WC_CAP_ETA].source == WC_SRC_DATASHEET);
	char note[WC_WARNING_LEN];
	wc_capacity_transfer_note(&b, note, sizeof note);
	CHECK_CONTAINS(note, "platform: no fitted capacity level for L40S: its datasheet");
	CHECK_CONTAINS(note, "median efficiency 0.7 (of A100, H100, B200)");
	CHECK_CONTAINS(note, "step overhead 2 ms (of A100, H100)");
	/* A fitted level binds as wc_capacity_bind does, and an alias of it
	 * (nvidia-smi's product name) is that level, not a transfer. */
	CHECK_INT(wc_capacity_bind_any(&c, "H100", &b, &err), WC_OK);
	CHECK_INT(wc_capacity_bind(&c, "H100", &f, &err), WC_OK);
	CHECK(!b.datasheet && b.level == f.level && memcmp(b.base, f.base, sizeof b.base) == 0);
	wc_capacity_transfer_note(&b, note, sizeof note);
	CHECK(note[0] == '\0');
	CHECK_INT(wc_capacity_bind_any(&c, "NVIDIA H100 80GB HBM3", &b, &err), WC_OK);
	CHECK(!b.datasheet && strcmp(b.level->name, "H100") == 0);
	/* Nothing the catalog knows: refused naming the platform. */
	CHECK_INT(wc_capacity_bind_any(&c, "XPU-9000", &b, &err), WC_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "platform: the capacity model has no level 'XPU-9000'");
	/* Every level's overhead at a bound: the median of them all. */
	c.levels[0].p[WC_CAP_T0].source = c.levels[1].p[WC_CAP_T0].source = WC_SRC_BOUND;
	CHECK_INT(wc_capacity_bind_any(&c, "L40S", &b, &err), WC_OK);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.t0, 1e-3, 1e-15);
	wc_capacity_params_clear(&c);
}

/* A board whose die has fitted levels takes the median of those alone
 * (an H200 NVL from the H100 and H200, an A100-40GB from the A100): held
 * out, H100 from H200 and H200 from H100 missed less than from every
 * level (docs/capacity.md, "Platforms without a capacity level"); every
 * level's median gave an H200 NVL eta 0.75 and t0 2 ms here. A die level
 * whose rows did not identify the kind yields to the other levels. */
static void
same_die(void)
{
	wc_capacity_params c;
	wc_capacity_binding b;
	wc_capacity_point pt;
	wc_error err;
	char note[WC_WARNING_LEN];
	section(&c);
	add_level(&c, "H200", 0.9, 2e-3, WC_SRC_FITTED);
	CHECK_INT(wc_capacity_params_validate(&c, &err), WC_OK);
	CHECK_INT(wc_capacity_bind_any(&c, "H200 NVL", &b, &err), WC_OK);
	CHECK(b.datasheet && b.n_src[WC_CAP_ETA] == 2 && b.n_src[WC_CAP_T0] == 2);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.eta, 0.85, 1e-15);
	CHECK_NEAR(pt.t0, 2.5e-3, 1e-15);
	wc_capacity_transfer_note(&b, note, sizeof note);
	CHECK_CONTAINS(note, "median efficiency 0.85 (of H100, H200: same GH100 die)");
	CHECK_CONTAINS(note, "step overhead 2.5 ms (of H100, H200: same GH100 die)");
	CHECK_INT(wc_capacity_bind_any(&c, "A100-40GB", &b, &err), WC_OK);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.eta, 0.6, 0);
	CHECK_NEAR(pt.t0, 1e-3, 0);
	wc_capacity_transfer_note(&b, note, sizeof note);
	CHECK_CONTAINS(note, "median efficiency 0.6 (of A100: same GA100 die)");
	/* No level on its die: every level's median, and no die said. */
	CHECK_INT(wc_capacity_bind_any(&c, "L40S", &b, &err), WC_OK);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.eta, 0.75, 1e-15);
	CHECK_NEAR(pt.t0, 2e-3, 1e-15);
	wc_capacity_transfer_note(&b, note, sizeof note);
	CHECK_CONTAINS(note, "median efficiency 0.75 (of A100, H100, B200, H200) and");
	/* H200's overhead at a bound: H100's alone; both: the other levels'. */
	c.levels[3].p[WC_CAP_T0].source = WC_SRC_BOUND;
	CHECK_INT(wc_capacity_bind_any(&c, "H200-NVL", &b, &err), WC_OK);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.eta, 0.85, 1e-15);
	CHECK_NEAR(pt.t0, 3e-3, 0);
	c.levels[1].p[WC_CAP_T0].source = WC_SRC_BOUND;
	CHECK_INT(wc_capacity_bind_any(&c, "H200-NVL", &b, &err), WC_OK);
	wc_capacity_bound_point(&b, NULL, &pt);
	CHECK_NEAR(pt.t0, 1e-3, 0);
	wc_capacity_transfer_note(&b, note, sizeof note);
	CHECK_CONTAINS(note, "step overhead 1 ms (of A100);");
	wc_capacity_params_clear(&c);
}

/* The note as it was formatted at every answer (models/capacity_transfer.c
 * before it was remembered), from the sources named here: an AMD board's
 * (no level here is one) with the vendor caveat, its datasheet figures
 * left out when the note would pass 255 bytes. (The sources said once,
 * or counted, do not arise here: tests catalog_notes.) */
static void
note_afresh(const wc_capacity_binding *b, const char *eta, const char *t0, char *buf, size_t cap)
{
	const char *vendor = strncmp(b->own.name, "MI", 2) == 0 ? ": an AMD board (CDNA 3) can miss by more" : "";
	char full[512], facts[64];
	for (int brief = 0; brief < 2; brief++) {
		snprintf(facts, sizeof facts, brief ? "" : " (%.3g TB/s, %.4g TFLOPS)", b->own.bandwidth_tb_s,
		         b->own.bf16_tflops);
		snprintf(full, sizeof full,
		         "platform: no fitted capacity level for %s: its datasheet%s with the median efficiency %.3g (of "
		         "%s) and step overhead %.3g ms (of %s); a transfer, not a fit%s (docs/capacity.md)",
		         b->own.name, facts, b->base[WC_CAP_ETA], eta, 1e3 * b->base[WC_CAP_T0], t0, vendor);
		if (strlen(full) < WC_WARNING_LEN)
			break;
	}
	snprintf(buf, cap, "%s", full);
}

/* Every catalog board under every built-in profile: a transfer's note
 * fits 255 bytes whole, its words yielding (models/capacity_transfer.c,
 * format_note). An AMD board's under `measured` (four levels named twice
 * and the vendor caveat) was 257 bytes, cut to "... (docs/capacity.m". */
static void
catalog_notes(void)
{
	static const char *const profiles[] = { "measured", "paper", "paper-prefill" };
	static const char tail[] = " (docs/capacity.md)";
	int notes = 0, amd = 0, shortened = 0;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		wc_params p = WC_PARAMS_INIT;
		wc_error err;
		CHECK_INT(wc_params_profile(profiles[i], &p, &err), WC_OK);
		for (size_t k = 0; k < wc_platform_count(); k++) {
			const char *name = wc_platform_at(k)->name;
			wc_capacity_binding b;
			if (wc_capacity_bind_any(&p.capacity, name, &b, &err) != WC_OK || !b.datasheet)
				continue;
			char note[512];
			wc_capacity_transfer_note(&b, note, sizeof note);
			const size_t n = strlen(note);
			int depth = 0;
			for (size_t c = 0; c < n; c++)
				depth += note[c] == '(' ? 1 : note[c] == ')' ? -1 : 0;
			notes++;
			amd += wc_platform_amd(wc_platform_board(name, NULL));
			shortened += strstr(note, "TFLOPS)") == NULL;
			CHECK(n < WC_WARNING_LEN && n > sizeof tail && strcmp(note + n - (sizeof tail - 1), tail) == 0 &&
			      depth == 0);
			if (!(n < WC_WARNING_LEN && n > sizeof tail && strcmp(note + n - (sizeof tail - 1), tail) == 0))
				fprintf(stderr, "%s, %s: %zu bytes: %s\n", profiles[i], name, n, note);
		}
		wc_params_clear(&p);
	}
	CHECK(notes > 0 && amd > 0 && shortened > 0);
	/* Sources that differ between the kinds, too many to name: counted. */
	wc_capacity_params c;
	wc_capacity_binding b;
	wc_error err;
	char note[512];
	section(&c);
	add_level(&c, "H200", 0.75, 2e-3, WC_SRC_FITTED);
	add_level(&c, "H100-NVL", 0.7, 2e-3, WC_SRC_FITTED);
	add_level(&c, "A100-40GB", 0.7, 2e-3, WC_SRC_FITTED);
	CHECK_INT(wc_capacity_bind_any(&c, "MI300X", &b, &err), WC_OK);
	wc_capacity_transfer_note(&b, note, sizeof note);
	CHECK_CONTAINS(note, "median efficiency 0.7 (of 6 levels) and step overhead 2 ms (of 5 levels)");
	CHECK(strlen(note) < WC_WARNING_LEN);
	wc_capacity_params_clear(&c);
}

/* Each note against the one made afresh: boards in turn, buffers cut
 * short, and a set changed in place (same address, other names and
 * values), which must not be answered with the note remembered. */
static void
remembered_note(void)
{
	static const char *const boards[] = { "L40S", "MI300X", "L40S", "H200-NVL", "MI300X", "L40S" };
	static const size_t caps[] = { 1, 2, 40, 80, WC_WARNING_LEN };
	wc_capacity_params c;
	wc_capacity_binding b;
	wc_error err;
	char got[WC_WARNING_LEN], want[WC_WARNING_LEN];
	section(&c);
	for (int round = 0; round < 3; round++) {
		const char *eta = round == 0 ? "A100, H100, B200" : "A100, H100, H200";
		if (round == 1) /* another level where B200's was, its eta 0.9: the median 0.8 */
			snprintf(c.levels[2].name, sizeof c.levels[2].name, "H200");
		if (round == 2) /* the t0 that was at its bound now identified: three sources */
			c.levels[2].p[WC_CAP_T0].source = WC_SRC_FITTED;
		c.levels[2].p[WC_CAP_ETA].value = round ? 0.9 : 0.7;
		const char *t0 = round == 2 ? "A100, H100, H200" : "A100, H100";
		/* H200 NVL's: the GH100 levels whose rows identified the kind */
		const char *h100 = "H100: same GH100 die", *both = "H100, H200: same GH100 die";
		for (size_t i = 0; i < sizeof boards / sizeof boards[0]; i++)
			for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
				const int nvl = strcmp(boards[i], "H200-NVL") == 0;
				CHECK_INT(wc_capacity_bind_any(&c, boards[i], &b, &err), WC_OK);
				memset(got, 'x', sizeof got);
				wc_capacity_transfer_note(&b, got, caps[k]);
				note_afresh(&b, nvl ? (round ? both : h100) : eta, nvl ? (round == 2 ? both : h100) : t0, want,
				            caps[k]);
				CHECK(strcmp(got, want) == 0);
				if (strcmp(got, want) != 0)
					fprintf(stderr, "round %d, %s, cap %zu:\n  got  %s\n  want %s\n", round, boards[i], caps[k],
					        got, want);
			}
	}
	CHECK_CONTAINS(got, "median efficiency 0.8 (of A100, H100, H200)"); /* round 2, L40S */
	wc_capacity_params_clear(&c);
}

/* A draw row gives the median of the same levels' columns of that row. */
static void
draws(void)
{
	wc_capacity_params c;
	wc_capacity_binding b;
	wc_capacity_point pt;
	wc_error err;
	section(&c);
	char names[4][WC_LABEL_MAX];
	wc_capacity_label(WC_CAP_ETA, "A100", names[0], sizeof names[0]);
	wc_capacity_label(WC_CAP_ETA, "H100", names[1], sizeof names[1]);
	wc_capacity_label(WC_CAP_ETA, "B200", names[2], sizeof names[2]);
	wc_capacity_label(WC_CAP_ETAC, NULL, names[3], sizeof names[3]);
	const double rows[2][4] = { { 0.5, 0.9, 0.6, 0.7 }, { 0.95, 0.55, 0.65, 0.9 } };
	CHECK_INT(wc_draws_set(&c.draws, 2, 4, (const char (*)[WC_LABEL_MAX])names, &rows[0][0], &err), WC_OK);
	CHECK_INT(wc_capacity_bind_any(&c, "L40S", &b, &err), WC_OK);
	wc_capacity_bound_point(&b, wc_draws_row(&c.draws, 0), &pt);
	CHECK_NEAR(pt.eta, 0.6, 0);
	CHECK_NEAR(pt.etac, 0.7, 0);
	CHECK_NEAR(pt.t0, 2e-3, 1e-15); /* no columns: the point values' median */
	wc_capacity_bound_point(&b, wc_draws_row(&c.draws, 1), &pt);
	CHECK_NEAR(pt.eta, 0.65, 0);
	CHECK_NEAR(pt.etac, 0.9, 0);
	wc_capacity_params_clear(&c);
}

/* The built-in profile answers an unfitted board: level source, warning,
 * an interval around the estimate at least as wide as the datasheet
 * stratum says, and the same answer for a fitted board as before. */
static void
answer(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_capacity_prediction cp;
	wc_error err;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_inference_query q = { .config = test_catalog_config("L40S", 1, "Qwen3-8B", 16), .want_interval = 1 };
	q.config.input_tokens = 1000;
	q.config.output_tokens = 300;
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cp, &err), WC_OK);
	CHECK(strcmp(cp.level_source, "datasheet") == 0);
	int warned = 0;
	for (int w = 0; w < cp.n_warnings; w++)
		warned |= strstr(cp.warnings[w], "platform: no fitted capacity level for L40S") != NULL;
	CHECK(warned);
	const wc_pred_error *lat = &p.quantity_error[WC_PEQ_LATENCY];
	const wc_pe_stratum *ds = wc_pe_find(lat, "L40S", "datasheet");
	CHECK(ds && strcmp(ds->source, "datasheet") == 0);
	for (int k = WC_CAPQ_LATENCY; k <= WC_CAPQ_E_REQUEST; k++) {
		if (k == WC_CAPQ_TTFT)
			continue;
		CHECK(cp.lo[k] < cp.value[k] && cp.value[k] < cp.hi[k]);
	}
	CHECK(cp.hi[WC_CAPQ_LATENCY] >= cp.value[WC_CAPQ_LATENCY] * exp(ds->q_hi) * (1 - 1e-12));
	CHECK_CONTAINS(cp.covers[WC_CAPQ_LATENCY], "of latency of datasheet transfers");
	CHECK_CONTAINS(cp.covers[WC_CAPQ_E_TOKEN], "of energy per output token of datasheet transfers");
	/* node power in the power answer's own words (it said "of mean power") */
	CHECK_CONTAINS(cp.covers[WC_CAPQ_POWER], "of mean power of datasheet transfers");
	const wc_pe_stratum *dse = wc_pe_find(&p.quantity_error[WC_PEQ_ENERGY_TOKEN], "L40S", "datasheet");
	CHECK(dse && strcmp(dse->source, "datasheet") == 0);
	CHECK(cp.hi[WC_CAPQ_E_TOKEN] >= cp.value[WC_CAPQ_E_TOKEN] * exp(dse->q_hi) * (1 - 1e-12));
	/* the summary too (it said just "held-out error") */
	CHECK(strcmp(wc_predict_capacity_covers(&cp), "held-out error of datasheet transfers") == 0);
	/* A set written before energy's datasheet stratum: energy adds the
	 * latency and power transfer errors, and says so. */
	wc_predictor_free(pr);
	p.quantity_error[WC_PEQ_ENERGY_TOKEN].n_strata = 1;
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cp, &err), WC_OK);
	CHECK_CONTAINS(cp.covers[WC_CAPQ_E_TOKEN], "of latency and mean power of datasheet transfers");
	/* L40S has less bandwidth than an A100: slower at the same load. */
	double l40s = cp.value[WC_CAPQ_LATENCY];
	q.config.platform = "A100";
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cp, &err), WC_OK);
	CHECK(strcmp(cp.level_source, "fitted") == 0);
	CHECK(l40s > cp.value[WC_CAPQ_LATENCY]);
	CHECK_CONTAINS(cp.covers[WC_CAPQ_LATENCY], "held-out error of latency");
	CHECK(strstr(cp.covers[WC_CAPQ_LATENCY], "datasheet") == NULL);
	CHECK(strcmp(wc_predict_capacity_covers(&cp), "held-out error") == 0);
	wc_predictor_free(pr);
	wc_params_clear(&p);
}

/* The levels a transfer's span warnings name are those it takes its
 * numbers from (its die's when it has any, else every level's), each
 * once, and every warning stays whole in 255 bytes, for every catalog
 * board under every built-in profile (docs/capacity.md, "Warnings"): they
 * named every level, "transferred from (A100, H100, B200, H200)", beside
 * the note "(of H100, H200: same GH100 die)" of the same answer. */
static void
span_names(void)
{
	static const char *const profiles[] = { "measured", "paper", "paper-prefill" };
	static const char key[] = "transferred from (";
	int named = 0, die = 0;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
		wc_params p = WC_PARAMS_INIT;
		wc_predictor *pr = NULL;
		wc_error err;
		CHECK_INT(wc_params_profile(profiles[i], &p, &err), WC_OK);
		CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
		for (size_t k = 0; pr && k < wc_platform_count(); k++) {
			const char *name = wc_platform_at(k)->name;
			wc_capacity_binding b;
			if (wc_capacity_bind_any(&p.capacity, name, &b, &err) != WC_OK || !b.datasheet)
				continue;
			/* the levels used, in the section's order, each once */
			char want[WC_WARNING_LEN] = "";
			int used[WC_CAPACITY_MAX_LEVELS] = { 0 }, n_used = 0;
			for (int c = 0; c < WC_CAP_KINDS; c++)
				for (int j = 0; !p.capacity.shared[c] && j < b.n_src[c]; j++)
					used[b.src[c][j]] = 1;
			for (int j = 0; j < p.capacity.n_levels; j++)
				if (used[j] && p.capacity.levels[j].range.rows > 0) {
					size_t len = strlen(want);
					snprintf(want + len, sizeof want - len, "%s%s", n_used++ ? ", " : "", p.capacity.levels[j].name);
				}
			/* every span left: tp, load, prompt and output */
			wc_inference_query q = { .config = test_catalog_config(name, 16, "Qwen3-8B", 5000) };
			q.config.input_tokens = 60000;
			q.config.output_tokens = 60000;
			wc_capacity_prediction cp;
			if (wc_predict_capacity(pr, &q, NAN, NAN, &cp, &err) != WC_OK)
				continue;
			for (int w = 0; w < cp.n_warnings; w++) {
				const char *msg = cp.warnings[w], *at = strstr(msg, key);
				const size_t len = strlen(msg);
				CHECK(len < WC_WARNING_LEN && !(len >= 3 && strcmp(msg + len - 3, "...") == 0));
				if (!at)
					continue;
				char got[WC_WARNING_LEN];
				snprintf(got, sizeof got, "%s", at + sizeof key - 1);
				char *end = strchr(got, ')');
				if (end)
					*end = '\0';
				named++;
				die += wc_platform_same_die(wc_platform_board(name, NULL),
				                            wc_platform_board(p.capacity.levels[b.src[WC_CAP_ETA][0]].name, NULL)) &&
				       n_used < p.capacity.n_levels;
				CHECK(end && strcmp(got, want) == 0 && strstr(end + 1, key) == NULL);
				if (!end || strcmp(got, want) != 0)
					fprintf(stderr, "%s, %s: names (%s), uses (%s): %s\n", profiles[i], name, got, want, msg);
			}
		}
		wc_predictor_free(pr);
		wc_params_clear(&p);
	}
	printf("  %d span warnings named their levels, %d of them a die's\n", named, die);
	CHECK(named > 0 && die > 0);
}

int
main(void)
{
	binding();
	same_die();
	remembered_note();
	catalog_notes();
	span_names();
	draws();
	answer();
	return check_report("test_capacity_transfer");
}
