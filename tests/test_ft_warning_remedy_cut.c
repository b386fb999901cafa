/*
 * The fine-tuning warnings that name a remedy give it first, the counts
 * after: ingest prints each after the run's folder and cuts the line at
 * 255 bytes, and under a long path "if the run went on, give
 * finetune.steps in wa...", "(check the clocks and that the power log
 * c..." and "log power.draw.instant" cut to "l..." lost what to do
 * (docs/finetune.md, "A stated count against the trace"). A run of 100
 * steps whose checkpoint-90 state says global_step 90 of max_steps 100
 * and a train_runtime of 400 s, longer than the trace's training (a
 * shorter one would read as a resumed run's last session), its power.draw
 * an H100's 1-s mean.
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
	char *dir = test_tmpdir("ft_warning_remedy_cut");
	char *deep = test_deep_dir(dir); /* a cluster's scratch tree */
	static synth_trainer_wave v;
	synth_trainer_session(&v, 1, 100, 20, 0, 0.0);
	char *run = synth_trainer_folder(deep, "llama-3.1-8b-qlora-r64-b8-seq1024-very-long-experiment-name", &v, 5, 0,
	                                 0, "{\"global_step\": 90, \"max_steps\": 100, \"save_steps\": 20,\n"
	                                    " \"log_history\": [{\"step\": 90, \"train_runtime\": 400}]}\n");
	CHECK(strlen(run) > 200);
	/* the state of checkpoint-90, saved before the run's end */
	char *ck = path_join(run, "checkpoint-90"), *from = path_join(run, "trainer_state.json");
	char *to = path_join(ck, "trainer_state.json");
	mkdir(ck, 0755);
	CHECK_INT(rename(from, to), 0);
	char *err = NULL;
	wc_ft_table *t = synth_trainer_ingest(dir, run, &err);
	fprintf(stderr, "%s", err ? err : "");
	static const struct {
		const char *head, *whole;
	} want[] = {
		{ "checkpoint: if the run went on past its last save, give finetune.steps in wattcast-run.json: ",
		  "steps past it are in the power log but not in the count; checkpoint-90/trainer_state.json" },
		{ "window: check the clocks and that the power log covers the run: training lasted ",
		  " s by the trainer state" },
		{ "power: log power.draw.instant every 100 ms; H100's power.draw (a 1-s mean) smears the ", " per step" },
	};
	const char *w = t ? wc_ft_table_get_extra(t, 0, "warnings") : NULL;
	CHECK(w != NULL);
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		/* the printed line, cut after the run's folder: the remedy whole */
		char *line = test_line_with(err ? err : "", want[k].head);
		CHECK_CONTAINS(line, want[k].head);
		CHECK_CONTAINS(line, ".../llama-3.1-8b-qlora-r64-b8-seq1024-very-long-experiment-name: ");
		CHECK(strlen(line) <= strlen("wattcast ingest: warning: ") + 255);
		/* the row's warnings column, the counts and all */
		if (w) {
			CHECK_CONTAINS(w, want[k].head);
			CHECK_CONTAINS(w, want[k].whole);
		}
		free(line);
	}
	wc_ft_table_free(t);
	free(err);
	free(to);
	free(from);
	free(ck);
	free(run);
	free(deep);
	free(dir);
	return check_report("test_ft_warning_remedy_cut");
}
