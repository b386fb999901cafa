/*
 * A run without a run_id in its manifest is named by its folder, and a
 * run_id holds 95 bytes (docs/cli.md, "ingest"). A longer folder name is
 * refused naming the limit and the remedy, for serving and fine-tuning
 * runs alike: it was cut to 95 bytes without a word, so two long folders
 * that differ at the end were refused as "the same id", and a CJK name
 * was cut inside a character. The messages about a name's length say
 * bytes, with the length: "--model: expected a name of 1-95 characters"
 * refused 32 CJK characters (96 bytes) as if they were fewer than 95.
 */
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *
long_name(const char *unit, int times, const char *tail)
{
	size_t n = strlen(unit) * (size_t)times + strlen(tail) + 1;
	char *s = malloc(n);
	s[0] = '\0';
	for (int i = 0; i < times; i++)
		strcat(s, unit);
	strcat(s, tail);
	return s;
}

int
main(void)
{
	char *dir = test_tmpdir("ingest_long_folder");
	run_result r;

	/* Serving: two 104-byte folders, no run_id in their manifests. */
	char *root = path_join(dir, "serving");
	mkdir(root, 0755);
	char *one = long_name("a", 100, "_one"), *two = long_name("a", 100, "_two");
	const char *names[2] = { one, two };
	for (int k = 0; k < 2; k++) {
		char *folder = synth_run_folder(root, names[k], "drop_me", 1784415439.0, 20, 8);
		char *man = path_join(folder, "wattcast-run.json");
		char *text = test_replaced(test_slurp(man), "\"run_id\": \"drop_me\", ", "");
		CHECK(write_text(man, text) == 0);
		free(text);
		free(man);
		free(folder);
	}
	char *out = path_join(dir, "out.csv");
	const char *sv[] = { "wattcast", "ingest", root, "-o", out, "--quiet", NULL };
	CHECK_INT(run_wattcast(sv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "_one: folder name too long for a run_id: 104 bytes, at most 95; "
	                      "set \"run_id\" in wattcast-run.json");
	CHECK_CONTAINS(r.err, "_two: folder name too long for a run_id: 104 bytes");
	CHECK(r.err && !strstr(r.err, "appears twice"));
	CHECK(!test_exists(out));
	run_result_free(&r);

	/* Fine-tuning: 40 CJK characters, 120 bytes, cut inside one before. */
	char *ft = long_name("模", 40, "");
	char *run = path_join(dir, ft);
	mkdir(run, 0755);
	char *man = path_join(run, "wattcast-run.json"), *power = path_join(run, "power.csv");
	CHECK(write_text(man, "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Llama-3.1-8B\", "
	                      "\"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", \"micro_batch\": 8, "
	                      "\"seq_len\": 1024, \"grad_accum\": 4, \"lora_rank\": 64}}\n") == 0);
	CHECK(write_text(power, "timestamp,index,uuid,power.draw [W]\n"
	                        "2026/07/18 15:00:00.000,0,GPU-a,82.0\n"
	                        "2026/07/18 15:00:00.100,0,GPU-a,83.0\n") == 0);
	const char *fv[] = { "wattcast", "ingest", run, "-o", out, NULL };
	CHECK_INT(run_wattcast(fv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, ": folder name too long for a run_id: 120 bytes, at most 95; "
	                      "set \"run_id\" in wattcast-run.json");
	CHECK(!test_exists(out));
	run_result_free(&r);

	/* Flags and a manifest's run_id: bytes, with the length. */
	char *model = long_name("模", 32, ""), *plat = long_name("平", 16, ""), *id = long_name("運行", 16, "");
	const char *mv[] = { "wattcast", "ingest", root, "-o", out, "--model", model, NULL };
	CHECK_INT(run_wattcast(mv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--model: 96 bytes, more than the 95 a model name may have");
	run_result_free(&r);
	const char *pv[] = { "wattcast", "ingest", root, "-o", out, "--platform", plat, NULL };
	CHECK_INT(run_wattcast(pv, NULL, &r), 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "--platform: 48 bytes, more than the 47 a platform name may have");
	run_result_free(&r);
	char text[1024];
	snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"H100\", "
	         "\"model\": \"Llama-3.1-8B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", "
	         "\"micro_batch\": 8, \"seq_len\": 1024, \"grad_accum\": 4, \"lora_rank\": 64}}\n", id);
	CHECK(write_text(man, text) == 0);
	CHECK_INT(run_wattcast(fv, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "/run_id: string too long: 96 bytes, at most 95");
	run_result_free(&r);
	free(model);
	free(plat);
	free(id);

	free(man);
	free(power);
	free(run);
	free(ft);
	free(out);
	free(one);
	free(two);
	free(root);
	free(dir);
	return check_report("test_ingest_long_folder");
}
