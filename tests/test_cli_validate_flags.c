/*
 * `wattcast validate`: a flag given to an analysis that does not take it is
 * a usage error naming the analyses it applies to (docs/cli.md,
 * "validate"), and that list is true. Every flag of the validate family is
 * given to every analysis: each refusal must say "--F applies to LIST
 * only", the same LIST whichever analysis refused it, and the analyses of
 * LIST -- and only they -- take the flag. The lists named too few
 * analyses (--per-run left out fewshot, capacity, finetune and envelope;
 * --terms and --law-terms left out capacity), and another analysis's flag
 * was an "unknown flag" (--k, --per-set, --scope, --plain, --replicas).
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *name;       /* as a list names it: "forms --real" */
	const char *args[4];    /* after "validate" and before the flag */
} variant;

typedef struct {
	const char *flag, *value; /* value NULL: a switch */
} flag_case;

/* Whether LIST ("a, b and c") names variant `v`: by its own name, or by
 * its analysis's name alone ("forms" covers "forms --real"). */
static int
list_names(const char *list, const char *v)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *p = buf; *p;) {
		char *comma = strstr(p, ", "), *and = strstr(p, " and ");
		char *end = comma && (!and || comma < and) ? comma : and;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if ((strlen(v) == len || (strlen(v) > len && v[len] == ' ')) && strncmp(v, p, len) == 0)
			return 1;
		if (!end)
			break;
		p = end + (end == comma ? 2 : 5);
	}
	return 0;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_validate_flags");
	char *missing = path_join(dir, "missing.csv"), *out = path_join(dir, "out.csv");
	char *params = path_join(dir, "missing.json"), *runs_dir = path_join(dir, "no_runs");
	const variant variants[] = {
		{ "forms", { "forms", missing } },
		{ "forms --real", { "forms", "--real", missing } },
		{ "precision", { "precision", missing } },
		{ "heldout", { "heldout", "--profile", "paper", missing } },
		{ "lomo", { "lomo", missing } },
		{ "fewshot", { "fewshot", "--profile", "paper", missing } },
		{ "fewshot --lomo", { "fewshot", "--lomo", missing } },
		{ "capacity", { "capacity", missing } },
		{ "finetune", { "finetune", missing } },
		{ "envelope", { "envelope", "--profile", "paper", runs_dir } },
	};
	const flag_case flags[] = {
		{ "--json", NULL }, { "--prior", params }, { "--profile", "paper" }, { "--params", params },
		{ "--datasheet", NULL }, { "--real", NULL }, { "--form", "power_law" }, { "--terms", "all" },
		{ "--law-terms", "none" }, { "--per-run", out }, { "--lomo", NULL }, { "--k", "1,3" },
		{ "--scope", "model" }, { "--idle-power", "50" }, { "--run-scatter", "0.1" }, { "--per-set", NULL },
		{ "--per-level", "eta" }, { "--robust", NULL }, { "--plain", NULL }, { "--weights", "run" },
		{ "--folds", "model" }, { "--response", "params" }, { "--replicas", "2" }, { "--seed", "1" },
		{ "--threads", "1" }, { "--max-running", "8" }, { "--platform", "A100" }, { "--tp", "1" },
		{ "--model", "Qwen/Qwen3-8B" }, { "--active-params", "8" }, { "--utc-offset", "0" },
		{ "--service", "auto" }, { "--level", "zero-shot" }, { "--linger-bound", "nested" },
	};
	enum { NV = sizeof variants / sizeof variants[0], NF = sizeof flags / sizeof flags[0] };
	for (int f = 0; f < NF; f++) {
		char said[NV][256], list[256] = "";
		int refused[NV];
		for (int v = 0; v < NV; v++) {
			const char *argv[12] = { "wattcast", "validate" };
			int n = 2;
			for (int i = 0; i < 4 && variants[v].args[i]; i++)
				argv[n++] = variants[v].args[i];
			argv[n++] = flags[f].flag;
			if (flags[f].value)
				argv[n++] = flags[f].value;
			argv[n] = NULL;
			run_result r;
			CHECK(run_wattcast(argv, NULL, &r) == 0);
			const char *err = r.err ? r.err : "", *at = strstr(err, ": --");
			refused[v] = strstr(err, " applies to ") != NULL;
			said[v][0] = '\0';
			if (strstr(err, "unknown flag")) {
				fprintf(stderr, "validate %s: %s unknown: %s", variants[v].name, flags[f].flag, err);
				CHECK(!"a validate flag called unknown");
			}
			if (refused[v]) {
				CHECK_INT(r.status, 2);
				snprintf(said[v], sizeof said[v], "%s", at ? at + 2 : err);
				const char *from = strstr(said[v], " applies to "), *to = strstr(said[v], " only (see --help)");
				CHECK(from && to && to > from);
				if (from && to && to > from && !list[0])
					snprintf(list, sizeof list, "%.*s", (int)(to - from - 12), from + 12);
			}
			run_result_free(&r);
		}
		for (int v = 0; v < NV; v++) {
			int named = list_names(list, variants[v].name);
			if (list[0] && refused[v] == named) { /* taken where named, refused elsewhere */
				fprintf(stderr, "validate %s %s: %s, the list says '%s'\n", variants[v].name, flags[f].flag,
				        refused[v] ? "refused" : "taken", list);
				CHECK(!"a flag taken or refused against its applies-to list");
			}
			if (refused[v]) { /* one list, whichever analysis says it */
				char first[256] = "";
				for (int u = 0; u < NV && !first[0]; u++)
					if (refused[u])
						snprintf(first, sizeof first, "%s", said[u]);
				CHECK(strcmp(said[v], first) == 0);
			}
		}
	}

	/* the cases as reported */
	const char *pr[] = { "wattcast", "validate", "forms", missing, "--per-run", out, NULL };
	test_usage_error(pr, "validate forms: --per-run applies to forms --real, heldout, lomo, fewshot, capacity, "
	                     "finetune and envelope only (see --help)");
	const char *tm[] = { "wattcast", "validate", "heldout", "--profile", "paper", missing, "--terms", "all", NULL };
	test_usage_error(tm, "validate heldout: --terms applies to forms --real, lomo, fewshot --lomo and capacity only");
	const char *k[] = { "wattcast", "validate", "heldout", "--profile", "paper", missing, "--k", "3", NULL };
	test_usage_error(k, "validate heldout: --k applies to fewshot only (see --help)");
	const char *k_eq[] = { "wattcast", "validate", "capacity", missing, "--k=3", NULL };
	test_usage_error(k_eq, "validate capacity: --k applies to fewshot only (see --help)");
	/* heldout takes no --prior: said so, not that --prior and --profile
	 * exclude each other */
	const char *hp[] = { "wattcast", "validate", "heldout", "--profile", "paper", missing, "--prior", params, NULL };
	test_usage_error(hp, "validate heldout: --prior applies to forms, precision, lomo and fewshot --lomo only");
	/* fewshot without --lomo fits no base: its --form is refused so */
	const char *ff[] = { "wattcast", "validate", "fewshot", "--profile", "paper", missing, "--form", "power_law",
		             NULL };
	test_usage_error(ff, "validate fewshot: --form applies to precision, lomo and fewshot --lomo only");
	/* a flag no analysis takes is unknown */
	const char *bogus[] = { "wattcast", "validate", "lomo", missing, "--bogus", NULL };
	test_usage_error(bogus, "validate lomo: unknown flag '--bogus' (see --help)");
	/* a --law-terms list that asks two things: none beside a term, or a
	 * term twice (arch is moe and hybrid), was read as the union, exit 0 */
	const char *lt_none[] = { "wattcast", "validate", "lomo", missing, "--law-terms", "none,moe", NULL };
	test_usage_error(lt_none, "validate lomo: --law-terms: 'none' beside other items in 'none,moe': give none alone, "
	                          "or the terms without it");
	const char *lt_twice[] = { "wattcast", "validate", "capacity", missing, "--law-terms", "moe,moe", NULL };
	test_usage_error(lt_twice, "validate capacity: --law-terms: 'moe' names a term given already in 'moe,moe': "
	                           "name each term once");
	const char *lt_arch[] = { "wattcast", "validate", "forms", "--real", missing, "--law-terms", "arch,hybrid", NULL };
	test_usage_error(lt_arch, "--law-terms: 'hybrid' names a term given already in 'arch,hybrid' (arch is moe and "
	                          "hybrid): name each term once");
	/* every built-in profile is named, not paper alone: measured is the one results.md uses */
	const char *np[] = { "wattcast", "validate", "envelope", missing, NULL };
	test_usage_error(np, "validate envelope: --params FILE (or --profile measured|paper|paper-prefill) is required");
	const char *nh[] = { "wattcast", "validate", "heldout", missing, NULL };
	test_usage_error(nh, "validate heldout: --params FILE (or --profile measured|paper|paper-prefill) is required");

	free(missing);
	free(out);
	free(params);
	free(runs_dir);
	free(dir);
	return check_report("test_cli_validate_flags");
}
