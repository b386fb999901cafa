/*
 * A run without a run_id in its manifest is named by its folder, and a
 * run_id holds 95 bytes (docs/cli.md, "ingest"). A longer folder name is
 * refused naming the limit and the remedy, for serving and fine-tuning
 * runs alike: it was cut to 95 bytes without a word, so two long folders
 * that differ at the end were refused as "the same id", and a CJK name
 * was cut inside a character. The messages about a name's length say
 * bytes, with the length: "--model: expected a name of 1-95 characters"
 * refused 32 CJK characters (96 bytes) as if they were fewer than 95.
 * The fine-tuning summary's run_id column cut a 91-byte CJK id at 40
 * bytes, inside a character: it loses its middle now, as the serving
 * summary's, between characters.
 */
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <stdio.h>
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

	/* A fine-tuning run that ingests: 205 s of training between idles. */
	char *ok = path_join(dir, "ok"), *okman = path_join(ok, "wattcast-run.json");
	char *okpow = path_join(ok, "power.csv"), *ckpt = path_join(ok, "checkpoint-100");
	char *state = path_join(ckpt, "trainer_state.json");
	mkdir(ok, 0755);
	mkdir(ckpt, 0755);
	id = long_name("運行", 15, "x"); /* 91 bytes */
	snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"H100\", "
	         "\"model\": \"Llama-3.1-8B\", \"utc_offset_s\": 0, \"finetune\": {\"method\": \"qlora\", "
	         "\"micro_batch\": 8, \"seq_len\": 1024, \"grad_accum\": 4, \"gpus\": 1, \"lora_rank\": 64, "
	         "\"checkpointing\": false}}\n", id);
	CHECK(write_text(okman, text) == 0);
	CHECK(write_text(state, "{\"global_step\": 100, \"max_steps\": 100, \"log_history\": [{\"step\": 10, "
	                        "\"loss\": 1.3}, {\"step\": 100, \"train_runtime\": 205.0, \"train_loss\": 1.1}]}\n") == 0);
	FILE *f = fopen(okpow, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("timestamp,index,uuid,power.draw [W]\n", f);
		for (int i = 0; i < 2300; i++)
			fprintf(f, "2026/07/18 15:%02d:%02d.%d00,0,GPU-a,%.1f\n", i / 600, i / 10 % 60, i % 10,
			        i >= 100 && i < 2150 ? 550.0 + (i % 7) : 80.0 + (i % 3));
		fclose(f);
	}
	char *okout = path_join(dir, "ok.csv");
	const char *ov[] = { "wattcast", "ingest", ok, "-o", okout, NULL };
	CHECK_INT(run_wattcast(ov, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	const char *line = r.out ? strchr(r.out, '\n') : NULL;
	CHECK(line != NULL);
	if (line) {
		/* the start and the end, whole characters on both sides */
		CHECK(strncmp(line + 1, "運行運行運", 15) == 0);
		const char *dots = strstr(line, "...");
		CHECK(dots && dots - line - 1 <= 40 && ((unsigned char)dots[3] & 0xC0) != 0x80);
		CHECK(dots && ((unsigned char)dots[-1] & 0xC0) == 0x80 && ((unsigned char)dots[-3] & 0xF0) == 0xE0);
		CHECK_CONTAINS(line, "運行x H100");
	}
	run_result_free(&r);
	free(okout);
	free(id);
	free(state);
	free(ckpt);
	free(okpow);
	free(okman);
	free(ok);

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
