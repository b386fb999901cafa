/*
 * Fine-tuning step logs (docs/formats/finetune-telemetry.md, "Step logs"):
 * steps.csv reads its events and refuses bad rows with file:line:column;
 * trainer_state.json gives its steps, intervals (ratios resolved),
 * evaluations, runtime and tokens, and refuses a used key of the wrong
 * type with its JSON path; Python's NaN and Infinity tokens read as
 * unknown values.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>

static void
steps_csv(void)
{
	const char *ok = "# callback\nstep,epoch_s,event\n0,100.0,start\n1,101.5,\n2,103.0,step\n2,118.0,save\n3,119.6,step\n";
	wc_step_log l = WC_STEP_LOG_INIT;
	wc_error err;
	CHECK_INT(wc_step_log_read_buffer(ok, strlen(ok), "steps.csv", &l, &err), WC_OK);
	CHECK_INT(l.n, 5);
	CHECK_INT(l.event[0], WC_STEP_START);
	CHECK_INT(l.event[1], WC_STEP_STEP);
	CHECK_INT(l.event[3], WC_STEP_SAVE);
	CHECK_NEAR(l.t[4], 119.6, 1e-12);
	CHECK_INT(l.line[0], 3);
	CHECK_INT(l.line[4], 7);
	wc_step_log_free(&l);
	/* Every rank's row of a step (the same step at the same millisecond)
	 * and a step number going back (a run resumed from a checkpoint) are
	 * read as written; the counting is the ingest's (docs/finetune.md). */
	const char *ranks = "step,epoch_s,event\n0,100.000,start\n1,101.000,step\n1,101.000,step\n1,101.001,step\n"
	                    "2,102.000,step\n137,300.0,step\n100,360.0,start\n101,361.0,step\n";
	CHECK_INT(wc_step_log_read_buffer(ranks, strlen(ranks), "steps.csv", &l, &err), WC_OK);
	CHECK_INT(l.n, 8);
	CHECK_INT(l.step[6], 100);
	CHECK_INT(l.line[6], 8);
	wc_step_log_free(&l);
	/* a resumed run that appended its own log repeats the header: skipped */
	const char *appended = "step,epoch_s,event\n0,100.0,start\n1,101.0,step\nstep,epoch_s,event\n0,200.0,start\n"
	                       "1,201.0,step\n";
	CHECK_INT(wc_step_log_read_buffer(appended, strlen(appended), "steps.csv", &l, &err), WC_OK);
	CHECK_INT(l.n, 4);
	CHECK_INT(l.line[2], 5);
	wc_step_log_free(&l);
	static const struct { const char *text, *msg; } bad[] = {
		{ "step,epoch_s\n1,100\n1,99\n", "steps.csv:3:3: column 'epoch_s': must be later than the row before" },
		{ "step,epoch_s,event\n1,100,step\n1,100,save\n", "steps.csv:3:3: column 'epoch_s': must be later than the row before" },
		{ "step,epoch_s,event\n1,100,ckpt\n", "steps.csv:2:7: column 'event': expected start, step, save or eval, got 'ckpt'" },
		{ "step,epoch_s\n-1,100\n", "steps.csv:2:1: column 'step': expected a whole number >= 0, got '-1'" },
		{ "step,epoch_s\n2.5,100\n", "steps.csv:2:1: column 'step': expected a whole number, got '2.5', a fraction" },
		/* past the cap: it said "expected a whole number >= 0", which
		 * 1000000201 is */
		{ "step,epoch_s\n1000000201,100\n", "steps.csv:2:1: column 'step': '1000000201' optimizer steps is past "
		  "1000000000, more than any run's" },
		{ "step,epoch_s\n1,12:00\n", "steps.csv:2:3: column 'epoch_s': expected Unix seconds, got '12:00'" },
		{ "step,time\n1,100\n", "steps.csv:1:1: missing required column 'epoch_s'" },
		/* int(time.time() * 1000): named at its cell, not taken for a
		 * clock offset of -1.8e12 s */
		{ "step,epoch_s,event\n0,1780000020000,start\n", "steps.csv:2:3: column 'epoch_s': time 1780000020000 "
		  "(seconds since the epoch) is after 2100-01-01; it looks like milliseconds" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		wc_error e = { 0, "" };
		CHECK(wc_step_log_read_buffer(bad[i].text, strlen(bad[i].text), "steps.csv", &l, &e) == WC_EPARSE);
		CHECK_CONTAINS(e.msg, bad[i].msg);
		CHECK(l.n == 0 && l.t == NULL);
	}
}

static void
trainer_state(void)
{
	char *dir = test_tmpdir("step_log");
	char *path = path_join(dir, "trainer_state.json");
	wc_trainer_state st;
	wc_error err = { 0, "" };
	CHECK_INT(write_text(path, "{\"global_step\": 400, \"max_steps\": 400, \"logging_steps\": 10, \"save_steps\": 0.25,\n"
	                           " \"eval_steps\": 100, \"log_history\": [{\"loss\": 2.0, \"step\": 10, \"num_input_tokens_seen\": 81920},\n"
	                           "  {\"eval_loss\": 1.9, \"eval_runtime\": 31.5, \"step\": 100},\n"
	                           "  {\"eval_loss\": 1.8, \"eval_runtime\": 30.5, \"step\": 200, \"num_input_tokens_seen\": 1638400},\n"
	                           "  {\"train_runtime\": 1234.5, \"step\": 400}], \"trial_name\": null}\n"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_INT(st.global_step, 400);
	CHECK_NEAR(st.save_steps, 100, 0); /* 0.25 of max_steps */
	CHECK_NEAR(st.eval_steps, 100, 0);
	CHECK_INT(st.n_evals, 2);
	CHECK_NEAR(st.eval_runtime_s, 62.0, 1e-12);
	CHECK_NEAR(st.train_runtime_s, 1234.5, 0);
	/* the last entry holding it, at its step: over global_step 400 it
	 * read half the tokens per step */
	CHECK_NEAR(st.tokens_seen, 1638400, 0);
	CHECK_NEAR(st.tokens_step, 200, 0);
	/* each evaluation at its step, for placing it in the trace */
	CHECK_NEAR(st.eval_at[0], 100, 0);
	CHECK_NEAR(st.eval_s[1], 30.5, 0);
	CHECK_INT(st.n_restarts, 0);
	wc_trainer_state_free(&st);
	/* a log whose steps go back: a resumed run that kept both sessions' entries */
	CHECK_INT(write_text(path, "{\"global_step\": 200, \"log_history\": [{\"loss\": 2.0, \"step\": 130},\n"
	                           " {\"loss\": 1.9, \"step\": 110}, {\"eval_runtime\": 30, \"step\": 150}]}\n"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_INT(st.n_restarts, 1);
	CHECK_NEAR(st.rerun_steps, 20, 0); /* 130 back to 110: steps run again */
	CHECK_NEAR(st.back_from, 130, 0);
	CHECK_NEAR(st.back_to, 110, 0);
	CHECK_NEAR(st.eval_at[0], 150, 0);
	CHECK_NEAR(wc_trainer_state_run_steps(&st), 220, 0); /* no logging_steps: short by one */
	wc_trainer_state_free(&st);
	/* the state's own running total, at global_step, wins over the log's;
	 * a top-level 0 (the Trainer's default when it does not count) does not */
	CHECK_INT(write_text(path, "{\"global_step\": 120, \"num_input_tokens_seen\": 720000, \"logging_steps\": 25,\n"
	                           " \"log_history\": [{\"step\": 100, \"num_input_tokens_seen\": 580000}]}\n"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_NEAR(st.tokens_seen / st.tokens_step, 6000, 0);
	CHECK_NEAR(st.tokens_step, 120, 0);
	CHECK_NEAR(wc_trainer_state_run_steps(&st), 120, 0);
	wc_trainer_state_free(&st);
	CHECK_INT(write_text(path, "{\"global_step\": 120, \"num_input_tokens_seen\": 0,\n"
	                           " \"log_history\": [{\"step\": 100, \"num_input_tokens_seen\": 580000}]}\n"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_NEAR(st.tokens_seen / st.tokens_step, 5800, 0);
	wc_trainer_state_free(&st);
	/* a top level below the log's own count, or below 0, is no running
	 * total: the log's is kept, the value set aside for the warning */
	CHECK_INT(write_text(path, "{\"global_step\": 120, \"num_input_tokens_seen\": 1000,\n"
	                           " \"log_history\": [{\"step\": 100, \"num_input_tokens_seen\": 580000}]}\n"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_NEAR(st.tokens_seen / st.tokens_step, 5800, 0);
	CHECK_NEAR(st.tokens_top_bad, 1000, 0);
	wc_trainer_state_free(&st);
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"num_input_tokens_seen\": \"many\"}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:1:46: /num_input_tokens_seen: expected a number, got string");
	/* a dict of eval datasets: one entry per dataset, eval_<name>_runtime,
	 * at the same step -- one evaluation, their sum; at step 0 with
	 * eval_on_start; entries of one step apart are two */
	CHECK_INT(write_text(path, "{\"global_step\": 200, \"log_history\": [\n"
	                           " {\"eval_a_loss\": 1, \"eval_a_runtime\": 10, \"step\": 0},\n"
	                           " {\"eval_dolly_15k_loss\": 1, \"eval_dolly_15k_runtime\": 5, \"step\": 0},\n"
	                           " {\"loss\": 1.9, \"step\": 100}, {\"eval_a_runtime\": 11, \"step\": 100},\n"
	                           " {\"loss\": 1.9, \"step\": 100}, {\"eval_a_runtime\": 12, \"step\": 100},\n"
	                           " {\"eval_dolly_15k_runtime\": 6, \"eval_x_runtime\": 1, \"step\": 100}]}\n"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_INT(st.n_evals, 3);
	CHECK_NEAR(st.eval_runtime_s, 45.0, 1e-12);
	if (st.n_evals == 3) {
		CHECK_NEAR(st.eval_at[0], 0, 0);
		CHECK_NEAR(st.eval_s[0], 15.0, 1e-12);
		CHECK_NEAR(st.eval_s[1], 11.0, 1e-12);
		CHECK_NEAR(st.eval_s[2], 19.0, 1e-12);
	}
	wc_trainer_state_free(&st);
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"log_history\": [{\"eval_b_runtime\": [1]}]}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:1:56: /log_history/0/eval_b_runtime: expected a number, got array");
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"log_history\": [{\"eval_runtime\": \"fast\"}]}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:1:54: /log_history/0/eval_runtime: expected a number, got string");
	/* Seconds no evaluation took: below 0, or past a week (-20 s read
	 * +2.6 % energy per step without a word, 1e300 s printed 300 digits),
	 * also after the last train_runtime entry. */
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"log_history\": [{\"eval_runtime\": -20, \"step\": 5}]}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:1:54: /log_history/0/eval_runtime: expected the evaluation's seconds "
	               "(>= 0), got -20");
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"log_history\": [{\"eval_runtime\": 20, \"step\": 5},\n"
	                           " {\"eval_x_runtime\": 1e300, \"step\": 10}, {\"train_runtime\": 99.5, \"step\": 10}]}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "trainer_state.json:2:21: /log_history/1/eval_x_runtime: 1e+300 s is longer than "
	               "a week (604800 s)");
	CHECK(strlen(err.msg) < 255);
	/* Not by train_runtime: a session that crashed logs none, and the
	 * resumed call's does not hold the evaluations the log kept from it
	 * (300 s at step 140, a resume from checkpoint-140 training to 200 in
	 * 120 s was refused). */
	CHECK_INT(write_text(path, "{\"global_step\": 200, \"log_history\": [{\"eval_runtime\": 300, \"step\": 140},\n"
	                           " {\"loss\": 1.4, \"step\": 200}, {\"train_runtime\": 120, \"step\": 200}]}"), 0);
	CHECK_INT(wc_trainer_state_read_within(path, 1483.0, &st, &err), WC_OK);
	CHECK_INT(st.n_evals, 1);
	wc_trainer_state_free(&st);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	wc_trainer_state_free(&st);
	/* one longer than the power log is not in it (an earlier session's,
	 * or no real value): left out and counted, not refused; a
	 * checkpoint's state (no train_runtime yet) lists training's only */
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"log_history\": [{\"eval_runtime\": 800, \"step\": 5},\n"
	                           " {\"eval_runtime\": 30, \"step\": 10}]}"), 0);
	CHECK_INT(wc_trainer_state_read_within(path, 700.0, &st, &err), WC_OK);
	CHECK_INT(st.n_evals, 1);
	CHECK_NEAR(st.eval_s[0], 30.0, 0);
	CHECK_NEAR(st.eval_runtime_s, 30.0, 1e-9);
	CHECK_INT(st.n_evals_long, 1);
	CHECK_NEAR(st.long_at, 5.0, 0);
	CHECK_NEAR(st.long_s, 800.0, 0);
	wc_trainer_state_free(&st);
	CHECK_INT(write_text(path, "{\"global_step\": 10, \"log_history\": [{\"eval_runtime\": 20, \"step\": 5},\n"
	                           " {\"train_runtime\": 99.5, \"step\": 10}, {\"eval_runtime\": 150, \"step\": 10}]}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_INT(st.n_evals, 1);
	CHECK_INT(st.n_post_evals, 1);
	wc_trainer_state_free(&st);
	CHECK_INT(wc_trainer_state_read_within(path, 100.0, &st, &err), WC_OK);
	wc_trainer_state_free(&st);
	/* Python's json.dump writes a NaN loss or an overflowed grad_norm as
	 * bare NaN / Infinity: read as unknown, the rest as it is. */
	CHECK_INT(write_text(path, "{\"global_step\": 20, \"log_history\": [{\"loss\": NaN, \"grad_norm\": Infinity,\n"
	                           " \"note\": \"NaN, Infinity\", \"step\": 10}, {\"loss\": -Infinity, \"eval_runtime\": NaN},\n"
	                           " {\"train_runtime\": 99.5, \"step\": 20}]}\n"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	CHECK_INT(st.global_step, 20);
	CHECK_INT(st.n_evals, 0);
	CHECK_NEAR(st.train_runtime_s, 99.5, 0);
	wc_trainer_state_free(&st);
	/* A syntax error after such tokens is placed at the file's column:
	 * the same as with numbers of the same width in their place. */
	wc_error e1 = { 0, "" }, e2 = { 0, "" };
	CHECK_INT(write_text(path, "{\"global_step\": 2, \"a\": [NaN, -Infinity, NaN], \"b\": tru}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &e1) == WC_EPARSE);
	CHECK_INT(write_text(path, "{\"global_step\": 2, \"a\": [1.0, -1.000000, 2.0], \"b\": tru}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &e2) == WC_EPARSE);
	CHECK_CONTAINS(e1.msg, "trainer_state.json:1:");
	CHECK(strcmp(e1.msg, e2.msg) == 0);
	CHECK_INT(write_text(path, "{\"global_step\": 2, \"a\": NaNa}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &e1) == WC_EPARSE); /* not a token of its own */
	CHECK_INT(write_text(path, "{\"log_history\": []}"), 0);
	CHECK(wc_trainer_state_read(path, &st, &err) == WC_EINVAL);
	CHECK_CONTAINS(err.msg, "/global_step: missing: expected the number of optimizer steps done");
	/* each reason by name: these were all "expected ... (>= 1)" */
	const struct {
		const char *value, *why;
	} bad[] = {
		{ "400.5", "/global_step: 400.5 is not a whole number of optimizer steps" },
		{ "2147483648", "/global_step: 2147483648 optimizer steps is past 1000000000, more than any run's" },
		{ "1e15", "/global_step: 1e15 optimizer steps is past 1000000000, more than any run's" },
		{ "0", "/global_step: 0 is below 1: expected the number of optimizer steps done (>= 1)" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[96];
		snprintf(text, sizeof text, "{\"global_step\": %s, \"log_history\": []}", bad[i].value);
		CHECK_INT(write_text(path, text), 0);
		CHECK(wc_trainer_state_read(path, &st, &err) == WC_EINVAL);
		CHECK_CONTAINS(err.msg, bad[i].why);
	}
	CHECK_INT(write_text(path, "{\"global_step\": 1000000000, \"log_history\": []}"), 0);
	CHECK_INT(wc_trainer_state_read(path, &st, &err), WC_OK);
	wc_trainer_state_free(&st);
	free(path);
	free(dir);
}

int
main(void)
{
	steps_csv();
	trainer_state();
	return check_report("test_step_log");
}
