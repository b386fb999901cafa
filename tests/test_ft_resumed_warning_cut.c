/*
 * The warning that a trainer state's count is short of the trace's steps
 * because of a resume (docs/finetune.md, "A stated count against the
 * trace") gives its cause and remedy first: ingest prints it after the
 * run's folder and cuts the line at 255 bytes, and with the counts first
 * a realistic folder left "... ran twice; used as s...", the remedy lost.
 * It said "ran twice" of 400 steps against a count of 100 (+300 %); the
 * steps ran again, however often.
 */
#include "tests/support/support.h"
#include "tests/support/synth_trainer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
main(void)
{
	char *base = test_tmpdir("ft_resumed_warning_cut");
	/* a 150-byte folder path and more, its name near the 95 bytes of a run_id */
	char *dir = path_join(base, "runs2026-h100-2x-qlora-sweeps-resumed-after-preemption");
	mkdir(dir, 0755);
	const char *name = "llama-3.1-8b-qlora-r64-b8-seq1024-ga6-lr2e-4-warmup0.03-cosine-resumed-from-ckpt-80";
	static synth_trainer_wave v;
	synth_trainer_session(&v, 1, 400, 80, 0, 0.0);
	/* 400 steps in the trace, 100 in the state */
	char *run = synth_trainer_folder(dir, name, &v, 7, 0, 0,
	                                 "{\"global_step\": 100, \"max_steps\": 100, \"save_steps\": 20,\n"
	                                 " \"log_history\": [{\"step\": 100, \"train_runtime\": 860}]}\n");
	CHECK(strlen(run) >= 150);
	/* grad_accum 6: 4 periods a step are no micro-steps of it */
	char *man = path_join(run, "wattcast-run.json");
	char *text = test_replaced(test_slurp(man), "\"grad_accum\": 4", "\"grad_accum\": 6");
	CHECK(write_text(man, text) == 0);
	free(text);
	free(man);
	char *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	char *line = test_line_with(err ? err : "", "steps: re-run steps of a resume");
	fprintf(stderr, "%s\n", line);
	CHECK_CONTAINS(line, "steps: re-run steps of a resume, or unlisted evaluations? give finetune.steps or "
	                     "steps.csv; used as s");
	CHECK(strlen(line) <= strlen("wattcast ingest: warning: ") + 255);
	CHECK(strstr(err ? err : "", "ran twice") == NULL);
	/* the row's warnings column holds it whole, counts and all */
	const char *w = t ? wc_ft_table_get_extra(t, 0, "warnings") : NULL;
	CHECK(w != NULL);
	if (w) {
		CHECK_CONTAINS(w, "steps: re-run steps of a resume, or unlisted evaluations? give finetune.steps or "
		                  "steps.csv; used as stated: trainer_state.json gives 100, the trace's period (2.0");
		CHECK_CONTAINS(w, " 400 (+300.");
		CHECK_CONTAINS(w, "known to ");
	}
	wc_ft_table_free(t);
	free(line);
	free(err);
	free(run);
	/* The other warnings naming a resume, the same way: 170 steps in the
	 * trace, 200 in the state, as train_runtime holds (a last session
	 * alone?), and 100 of 2 s (steps of 1 s, or a last session?) */
	static const struct {
		int steps;
		const char *state, *head, *whole;
	} other[] = {
		{ 170, "{\"global_step\": 200, \"max_steps\": 200, \"save_steps\": 1000,\n"
		       " \"log_history\": [{\"step\": 200, \"train_runtime\": 340}]}\n",
		  "steps: a resumed run's last session alone? train_runtime 340 s holds the trace's steps: give "
		  "finetune.steps or steps.csv; used as s",
		  "(-15.0 %, known to 5.0 %)" },
		{ 100, "{\"global_step\": 200, \"max_steps\": 200, \"save_steps\": 1000,\n"
		       " \"log_history\": [{\"step\": 200, \"train_runtime\": 216}]}\n",
		  "steps: steps of 1.000 s, 2 per period of the trace, or a resumed run's last session? used as "
		  "stated: give steps.csv; ",
		  "over 200 s (to 5.0 %, evaluations at training power out)" },
	};
	for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) {
		static synth_trainer_wave u;
		memset(&u, 0, sizeof u);
		synth_trainer_session(&u, 1, other[k].steps, 1000, 0, 0.0);
		char *sub = path_join(dir, k ? "b" : "a");
		mkdir(sub, 0755);
		run = synth_trainer_folder(sub, name, &u, 11, 0, 0, other[k].state);
		char *m = path_join(run, "wattcast-run.json");
		char *mt = test_replaced(test_slurp(m), "\"grad_accum\": 4", "\"grad_accum\": 6");
		CHECK(write_text(m, mt) == 0);
		free(mt);
		free(m);
		t = synth_trainer_ingest(sub, run, &err);
		line = test_line_with(err ? err : "", "steps: ");
		fprintf(stderr, "%s\n", line);
		CHECK_CONTAINS(line, other[k].head);
		w = t ? wc_ft_table_get_extra(t, 0, "warnings") : NULL;
		CHECK(w != NULL);
		if (w) {
			CHECK_CONTAINS(w, other[k].head);
			CHECK_CONTAINS(w, other[k].whole);
		}
		wc_ft_table_free(t);
		free(line);
		free(err);
		free(run);
		free(sub);
	}
	free(dir);
	free(base);
	return check_report("test_ft_resumed_warning_cut");
}
