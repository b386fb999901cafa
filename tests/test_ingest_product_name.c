/*
 * Ingest takes the platform from nvidia-smi's product name (the `name`
 * column of `--query-gpu=timestamp,name,...`) when no manifest states one,
 * through the catalog's nvidia-smi spellings (models/catalog.h): "NVIDIA
 * H100 80GB HBM3" is the catalog's H100 and "NVIDIA H100 NVL" its
 * H100-NVL, ahead of the --platform fallback; a manifest's name the
 * catalog knows is written as the catalog entry; a product the catalog
 * does not know leaves the platform unknown, and ingest says so, naming
 * it; one the catalog lacks given by flag or manifest is warned. A
 * manifest's platform wins over the product name, but a product of another
 * board is warned about (one of the two is wrong). A flag the run
 * overrides (--platform, --utc-offset, --workload) is said not to
 * apply.
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A 60-s power-only run of one GPU named `product`, in nvidia-smi's CSV
 * format (spaces after commas, units in the header). */
static char *
make_run(const char *dir, const char *id, const char *product, const char *manifest_platform)
{
	char *run = path_join(dir, id), *power = path_join(run, "power.csv"), *man = path_join(run, "wattcast-run.json");
	char cmd[1200], *text = malloc(1 << 16), head[512];
	size_t n = 0;
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", run);
	CHECK_INT(system(cmd), 0);
	n += (size_t)snprintf(text + n, (1 << 16) - n, "timestamp, name, index, uuid, power.draw [W]\n");
	for (int i = 0; i < 240; i++)
		n += (size_t)snprintf(text + n, (1 << 16) - n,
		                      "2026/07/18 17:%02d:%02d.%03d, %s, 0, GPU-171e341c-4c74-fca8-094f-1cbff4dbdd21, %.2f\n",
		                      57 + i / 240, (i / 4) % 60, (i % 4) * 250, product, 300.0 + (i % 7));
	CHECK_INT(write_text(power, text), 0);
	snprintf(head, sizeof head,
	         "{\"schema\": \"wattcast.run/2\", \"run_id\": \"%s\", %s%s%s\"model\": \"Qwen/Qwen3-8B\", "
	         "\"utc_offset_s\": 0}\n",
	         id, manifest_platform ? "\"platform\": \"" : "", manifest_platform ? manifest_platform : "",
	         manifest_platform ? "\", " : "");
	CHECK_INT(write_text(man, head), 0);
	free(text);
	free(power);
	free(man);
	return run;
}

/* Ingest `run` (with `extra` flags) and return the platform column of its
 * row, or "" when ingest failed (its stderr into err_out). */
static void
ingest_platform(const char *dir, const char *run, const char *extra, char *platform, size_t cap,
                char *err_out, size_t err_cap)
{
	char *out = path_join(dir, "runs.csv");
	const char *argv[] = { "wattcast", "ingest", run, "-o", out, "--power-only", extra, NULL };
	run_result r;
	platform[0] = '\0';
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	snprintf(err_out, err_cap, "%s", r.err ? r.err : "");
	if (r.status == 0) {
		FILE *f = fopen(out, "r");
		char line[4096];
		int col = -1;
		while (f && fgets(line, sizeof line, f)) {
			if (line[0] == '#')
				continue;
			char *save = NULL, *tok = strtok_r(line, ",\n", &save);
			for (int k = 0; tok; k++, tok = strtok_r(NULL, ",\n", &save)) {
				if (col < 0 && strcmp(tok, "platform") == 0)
					col = k;
				else if (col >= 0 && k == col && strcmp(tok, "platform") != 0)
					snprintf(platform, cap, "%s", tok);
			}
		}
		if (f)
			fclose(f);
	}
	run_result_free(&r);
	free(out);
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_product_name");
	char platform[64], err[4096];
	char *sxm = make_run(dir, "sxm", "NVIDIA H100 80GB HBM3", NULL);
	ingest_platform(dir, sxm, "--platform=A100", platform, sizeof platform, err, sizeof err);
	CHECK(strcmp(platform, "H100") == 0);
	/* the flag the run overrides is said not to apply (it gave H100 rows
	 * without a word); one naming the same board is no override */
	CHECK_CONTAINS(err, "--platform A100 (the run says H100): not applied");
	ingest_platform(dir, sxm, "--platform=h100", platform, sizeof platform, err, sizeof err);
	CHECK(strcmp(platform, "H100") == 0 && strstr(err, "not applied") == NULL);
	char *nvl = make_run(dir, "nvl", "NVIDIA H100 NVL", NULL);
	ingest_platform(dir, nvl, NULL, platform, sizeof platform, err, sizeof err);
	CHECK(strcmp(platform, "H100-NVL") == 0);
	char *named = make_run(dir, "named", "NVIDIA H100 NVL", "h100 nvl");
	ingest_platform(dir, named, NULL, platform, sizeof platform, err, sizeof err);
	CHECK(strcmp(platform, "H100-NVL") == 0);
	CHECK(strstr(err, "power.csv's name") == NULL);
	/* a manifest copied from another run: the driver names another board */
	char *other = make_run(dir, "other", "NVIDIA H100 80GB HBM3", "A100");
	ingest_platform(dir, other, NULL, platform, sizeof platform, err, sizeof err);
	CHECK(strcmp(platform, "A100") == 0);
	CHECK_CONTAINS(err, "other: platform A100 (manifest), but power.csv's name is 'NVIDIA H100 80GB HBM3' "
	               "(H100); A100 kept, check which is right");
	/* the UTC offset as platform, model and tp: the run's (0) wins, said */
	ingest_platform(dir, other, "--utc-offset=3600", platform, sizeof platform, err, sizeof err);
	CHECK_CONTAINS(err, "--utc-offset 3600 (the run says 0): not applied");
	ingest_platform(dir, other, "--utc-offset=0", platform, sizeof platform, err, sizeof err);
	CHECK(strstr(err, "not applied") == NULL);
	/* the workload as the others: a manifest's poisson kept, said */
	char *man = path_join(other, "wattcast-run.json");
	CHECK_INT(write_text(man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"other\", \"platform\": "
	                          "\"A100\", \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, "
	                          "\"workload\": \"poisson\"}\n"),
	          0);
	ingest_platform(dir, other, "--workload=replay", platform, sizeof platform, err, sizeof err);
	CHECK_CONTAINS(err, "--workload replay (the run says poisson): not applied");
	ingest_platform(dir, other, "--workload=poisson", platform, sizeof platform, err, sizeof err);
	CHECK(strstr(err, "not applied") == NULL);
	free(man);
	char *unknown = make_run(dir, "unknown", "NVIDIA Hypothetical X1", NULL);
	ingest_platform(dir, unknown, NULL, platform, sizeof platform, err, sizeof err);
	CHECK(platform[0] == '\0');
	/* the refusal says what the log names: "platform unknown (no manifest
	 * states it)" hid that power.csv names a board the catalog lacks */
	CHECK_CONTAINS(err, "unknown: platform unknown (no manifest states it; power.csv's 'NVIDIA Hypothetical X1' "
	               "is not in the platform catalog); give --platform");
	/* A board the catalog lacks, by flag or manifest, is written with the
	 * note `predict` gives (docs/capacity.md): it was written in silence. */
	ingest_platform(dir, unknown, "--platform=X1", platform, sizeof platform, err, sizeof err);
	CHECK(strcmp(platform, "X1") == 0);
	CHECK_CONTAINS(err, "unknown: platform X1 is not in the platform catalog: its board power limit and clock "
	               "range are unknown, so no power reading is checked against the board's limit");
	char *ada = make_run(dir, "ada", "NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada");
	ingest_platform(dir, ada, NULL, platform, sizeof platform, err, sizeof err);
	CHECK(strcmp(platform, "RTX 6000 Ada") == 0);
	CHECK_CONTAINS(err, "ada: platform RTX 6000 Ada is not in the platform catalog");
	/* a catalog board says nothing of the kind */
	ingest_platform(dir, nvl, NULL, platform, sizeof platform, err, sizeof err);
	CHECK(strstr(err, "platform catalog") == NULL);
	free(ada);
	free(sxm);
	free(nvl);
	free(named);
	free(unknown);
	free(other);
	free(dir);
	return check_report("test_ingest_product_name");
}
