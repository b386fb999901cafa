/*
 * A PowerTrace-Sim level without a window (label realdata): the real A100
 * validate run (rate 4) with its one level split into two halves,
 * 'first' and 'second' (summary removed), read by `wattcast ingest` in
 * place. Split whole, the run is two rows (#first, #second). The second
 * without `t_end_epoch`, with an end before its start, or with neither
 * time (beside the first's window) is refused naming the key at the
 * level's line:column, as wattcast-run.json's level is refused
 * (docs/formats/telemetry.md, "powertrace-sim manifest.json"); it was
 * left out without a word, and the run was one row, the first half's
 * (189.9 W), its second half gone from the table.
 * Skipped (77) when ../shared is absent.
 */
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { WHOLE, NO_END, BACK, BARE };

/* A copy of the run at `src` in `run` with its level split as `how`. */
static void
make_run(const char *src, const char *run, int how)
{
	const char *files[] = { "power.csv", "engine.csv", "manifest.json" };
	char *text[3] = { NULL, NULL, NULL };
	mkdir(run, 0755);
	if (!test_read_texts(src, files, 3, text))
		return;
	for (int k = 0; k < 2; k++)
		free(test_fixture(run, files[k], text[k]));
	json_error_t je;
	json_t *m = json_loads(text[2], 0, &je), *levels = json_object_get(json_object_get(m, "probe"), "levels");
	json_t *a = json_array_get(levels, 0);
	CHECK(a != NULL && json_array_size(levels) == 1);
	if (a) {
		json_object_del(a, "summary");
		json_t *b = json_deep_copy(a);
		double s = json_number_value(json_object_get(a, "t_start_epoch"));
		double e = json_number_value(json_object_get(a, "t_end_epoch")), mid = (s + e) / 2;
		json_object_set_new(a, "label", json_string("first"));
		json_object_set_new(b, "label", json_string("second"));
		json_object_set_new(a, "t_end_epoch", json_real(mid));
		json_object_set_new(b, "t_start_epoch", json_real(mid));
		if (how == NO_END || how == BARE)
			json_object_del(b, "t_end_epoch");
		if (how == BARE)
			json_object_del(b, "t_start_epoch");
		if (how == BACK)
			json_object_set_new(b, "t_end_epoch", json_real(mid - 1));
		json_array_append_new(levels, b);
	}
	char *out = json_dumps(m, JSON_INDENT(1));
	free(test_fixture(run, "manifest.json", out));
	free(out);
	json_decref(m);
	for (int k = 0; k < 3; k++)
		free(text[k]);
}

/* Ingest `dir`: its status, the error in `err`, the rows in `res`. */
static int
ingest(const char *dir, wc_ingest_result *res, wc_error *err)
{
	wc_ingest_options o;
	test_warnings w;
	wc_ingest_options_init(&o);
	return test_ingest_with(dir, &o, res, &w, err);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b_a100/"
	                              "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439");
	char *root = test_tmpdir("real_level_window_stated");
	const char *names[] = { "whole", "no_end", "back", "bare" };
	const char *said[] = { NULL,
		               "/probe/levels/1/t_end_epoch: not stated, but t_start_epoch is: a level's row is "
		               "cut to its window, which needs both",
		               "/probe/levels/1/t_end_epoch: must be after t_start_epoch: ",
		               "/probe/levels/1/t_start_epoch: not stated, nor t_end_epoch, but level 0 states its "
		               "window" };
	for (int how = WHOLE; how <= BARE; how++) {
		char *run = path_join(root, names[how]);
		wc_ingest_result res = { NULL, 0, 0 };
		wc_error err = { 0, "" };
		make_run(src, run, how);
		int rc = ingest(run, &res, &err);
		if (how == WHOLE) {
			CHECK_INT(rc, WC_OK);
			CHECK_INT(res.n_rows, 2);
			if (res.n_rows == 2) {
				CHECK_CONTAINS(res.rows[0].run.run_id, "#first");
				CHECK_CONTAINS(res.rows[1].run.run_id, "#second");
			}
		} else {
			fprintf(stderr, "%s: %s\n", names[how], err.msg);
			CHECK(rc != WC_OK);
			CHECK_INT(res.n_rows, 0);
			CHECK_CONTAINS(err.msg, said[how]);
			/* at the level's line:column: the key itself may be absent */
			CHECK_CONTAINS(err.msg, "/manifest.json:");
			const char *c = strstr(err.msg, "manifest.json:");
			int line = 0, col = 0;
			CHECK(c && sscanf(c, "manifest.json:%d:%d:", &line, &col) == 2 && line > 1 && col > 0);
		}
		wc_ingest_result_clear(&res);
		free(run);
	}
	free(root);
	free(src);
	return check_report("test_real_level_window_stated");
}
