/*
 * Warnings that mean something (docs/capacity.md, "Warnings"): on the
 * default `measured` profile an ordinary question (Qwen3-8B, 32 running,
 * 512 + 256 tokens on H100 or B200) gets no warning at all, while a
 * prompt beyond every level's rows, a decode context beyond the level's,
 * and a level calibrated at one point still say so, once; a group whose
 * size does not divide the model's attention heads is refused.
 */
#include "data/params_file.h"
#include "predict/capacity_predict.h"
#include "tests/support/support.h"

#include <math.h>
#include <string.h>

/* The capacity answer and the power answer for one question; returns the
 * number of warnings of both, and checks those containing `needle`. */
static int
ask(const wc_predictor *pr, const char *platform, double in, double out_tokens, const char *needle)
{
	wc_inference_query q = { .config = test_catalog_config(platform, 1, "Qwen3-8B", 32) };
	wc_capacity_prediction cap;
	wc_inference_prediction pw;
	wc_error err;
	q.config.input_tokens = in;
	q.config.output_tokens = out_tokens;
	q.want_interval = 1;
	CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
	CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_OK);
	for (int i = 0; i < cap.n_warnings; i++)
		printf("  %s %g+%g: %s\n", platform, in, out_tokens, cap.warnings[i]);
	if (needle)
		CHECK_INT(test_warnings_with(cap.warnings, cap.n_warnings, needle), 1);
	return cap.n_warnings + pw.n_warnings;
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_error err;
	CHECK_INT(ask(pr, "H100", 512, 256, NULL), 0);
	CHECK_INT(ask(pr, "B200", 512, 256, NULL), 0);
	CHECK_INT(ask(pr, "B200", 1024, 1024, NULL), 0);
	ask(pr, "H100", 8000, 256, "input_tokens: 8000 is outside the capacity calibration's span");
	ask(pr, "B200", 512, 32000, "output_tokens: the decode context, input + output / 2 = 16512 tokens");
	ask(pr, "H200", 512, 256, "capacity: calibrated only at running 32");
	/* A load outside the span never prints as its bound (predict/span_text.c):
	 * H100's rows start at 5.13237 running, and 5.13 read "load 5.13 is
	 * outside the capacity calibration's span 5.13-1915". */
	{
		wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 5.13) };
		wc_capacity_prediction cap;
		q.config.input_tokens = 512;
		q.config.output_tokens = 256;
		CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		CHECK_INT(test_warnings_with(cap.warnings, cap.n_warnings,
		                             "load 5.13 is outside the capacity calibration's span 5.132-1915 on H100"), 1);
	}
	/* One load, one line (docs/capacity.md, "Warnings"): a rate whose load
	 * leaves both the power law's span and the capacity calibration's is
	 * one line naming both spans, the load in one format (it was two
	 * lines, "load 2.09 ... 7.9-1915" and "load 2.08698 ... 5.13-1915"). */
	{
		wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 0) };
		wc_capacity_prediction cap;
		wc_inference_prediction pw;
		q.config.request_rate = 1;
		q.config.input_tokens = 512;
		q.config.output_tokens = 256;
		CHECK_INT(wc_predict_capacity_settled(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		wc_predict_take_running(&q, &cap);
		CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_OK);
		wc_predict_join_span_lines(&pw, &cap);
		CHECK_INT(test_warnings_with(pw.warnings, pw.n_warnings, "rate: load ") +
		                  test_warnings_with(cap.warnings, cap.n_warnings, "rate: load "), 1);
		CHECK_INT(test_warnings_with(pw.warnings, pw.n_warnings,
		                             "rate: load 2.15 is outside the calibrated span 7.9-1915 and the "
		                             "capacity calibration's span 5.13-1915 on H100"), 1);
	}
	/* One quantity, one line, for every quantity both calibrations span:
	 * a group or a model size outside both is one line naming both spans,
	 * as the load is (each was two lines, "tp: 16 is outside the
	 * calibrated span 1-8" and "... the capacity calibration's span 1-8"). */
	{
		static const struct {
			const char *platform, *model;
			int tp;
			wc_precision w;
			double running, in, out;
			const char *field, *line;
		} both[] = {
			{ "H100", "Llama-3.1-70B", 16, WC_PREC_BF16, 64, 1000, 500, "tp: ",
			  "tp: 16 is outside the calibrated span 1-8 and the capacity calibration's span 1-8 on H100" },
			{ "A100", "Llama-3.1-405B", 16, WC_PREC_FP8, 64, 1000, 500, "tp: ",
			  "tp: 16 is outside the calibrated span 1-4 and the capacity calibration's span 1-4 on A100" },
			{ "H100", "Qwen3-0.6B", 1, WC_PREC_BF16, 32, 512, 256, "active_params_b: ",
			  "active_params_b: 0.6 B is outside the calibrated span 3-70 B and the capacity calibration's span "
			  "3.3-70.6 B on H100" },
		};
		for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
			wc_inference_query q = { .config = test_catalog_config(both[i].platform, both[i].tp, both[i].model,
			                                                       both[i].running) };
			wc_capacity_prediction cap;
			wc_inference_prediction pw;
			q.config.weights = both[i].w;
			q.config.input_tokens = both[i].in;
			q.config.output_tokens = both[i].out;
			CHECK_INT(wc_predict_capacity_settled(pr, &q, NAN, NAN, &cap, &err), WC_OK);
			wc_predict_take_running(&q, &cap);
			CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_OK);
			wc_predict_join_span_lines(&pw, &cap);
			int before = check_failures;
			CHECK_INT(test_warnings_with(pw.warnings, pw.n_warnings, both[i].line), 1);
			/* the field's span lines, in both answers: this one alone */
			int lines = 0;
			for (int k = 0; k < pw.n_warnings + cap.n_warnings; k++) {
				const char *wk = k < pw.n_warnings ? pw.warnings[k] : cap.warnings[k - pw.n_warnings];
				lines += strncmp(wk, both[i].field, strlen(both[i].field)) == 0 && strstr(wk, " span ") != NULL;
			}
			CHECK_INT(lines, 1);
			if (check_failures != before)
				for (int k = 0; k < pw.n_warnings + cap.n_warnings; k++)
					fprintf(stderr, "  %s\n", k < pw.n_warnings ? pw.warnings[k] : cap.warnings[k - pw.n_warnings]);
		}
	}
	/* The prompt's span prints alike at either end, with the digits a
	 * whole number of tokens just outside it needs: 329 read "span
	 * 329.3-4613" and 4613 "span 329.58-4612.6", the first as if 4613
	 * were inside, the second as if 4613 were not the bound quoted (the
	 * span's lower end is gpqa's fitted 33.27 tokens since the profile's
	 * refit with tau_ep; lm-arena-chat's 329.58 before). */
	ask(pr, "H100", 33, 256, "input_tokens: 33 is outside the capacity calibration's span 33.27-4612.6 over");
	ask(pr, "H100", 4613, 256, "input_tokens: 4613 is outside the capacity calibration's span 33.27-4612.6 over");
	for (int in = 34; in <= 4612; in += 4612 - 34) { /* inside: no capacity warning */
		wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 32) };
		wc_capacity_prediction cap;
		q.config.input_tokens = in;
		q.config.output_tokens = 256;
		CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		CHECK_INT(cap.n_warnings, 0);
	}
	/* A group past a fitted board's 8-GPU NVLink baseboard crosses the
	 * network, as on a transferred board (wc_platform_tp_crossing): the
	 * fitted boards said only that tp left their span. Within it, no
	 * such line. */
	{
		const char *const fitted[] = { "H100", "B200", "A100", "H200" };
		for (size_t i = 0; i < sizeof fitted / sizeof fitted[0]; i++)
			for (int tp = 8; tp <= 16; tp += 8) {
				wc_inference_query q = { .config = test_catalog_config(fitted[i], tp, "Qwen3-8B", 32) };
				wc_capacity_prediction cap;
				q.config.input_tokens = 512;
				q.config.output_tokens = 256;
				CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
				CHECK_INT(test_warnings_with(cap.warnings, cap.n_warnings,
				                             "its NVLink joins at most 8 GPUs, so a group of 16 "
				                             "crosses the network and this likely understates it"),
				          tp == 16);
				CHECK_INT(test_warnings_with(cap.warnings, cap.n_warnings, "crosses"), tp == 16);
			}
	}
	/* A model far smaller than the level's rows: the capacity answer
	 * names the size field once, as the power law does for its span (it
	 * said nothing). */
	{
		wc_inference_query q = { .config = test_catalog_config("A100", 1, "Qwen3-0.6B", 32) };
		wc_capacity_prediction cap;
		q.config.input_tokens = 512;
		q.config.output_tokens = 256;
		CHECK_INT(wc_predict_capacity(pr, &q, NAN, NAN, &cap, &err), WC_OK);
		CHECK_INT(test_warnings_with(cap.warnings, cap.n_warnings, "active_params_b: "), 1);
		CHECK_INT(test_warnings_with(cap.warnings, cap.n_warnings,
		                             "is outside the capacity calibration's span 4-32.8 B on A100"), 1);
	}
	/* A prompt long enough for prefill to take a large share of the
	 * engine's time: the power answer says its law has no prefill term
	 * (none at the ordinary questions above). */
	{
		wc_inference_query q = { .config = test_catalog_config("H100", 1, "Qwen3-8B", 4) };
		wc_inference_prediction pw;
		q.config.input_tokens = 32000;
		q.config.output_tokens = 256;
		CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_OK);
		CHECK_INT(test_warnings_with(pw.warnings, pw.n_warnings,
		                             "of the engine's time here, and this set's power law has no prefill term"), 1);
	}
	/* A group vLLM cannot start (3 GPUs for 32 attention heads) is
	 * refused on /tp, as weights that do not fit are (it was answered
	 * with a warning); 2 and 4 are fine. */
	for (int tp = 2; tp <= 4; tp++) {
		wc_inference_query q = { .config = test_catalog_config("H100", tp, "Qwen3-8B", 32) };
		wc_inference_prediction pw;
		CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), tp == 3 ? WC_EINVAL : WC_OK);
		if (tp == 3)
			CHECK_CONTAINS(err.msg, "tp: 3 does not divide Qwen3-8B's 32 attention heads");
	}
	/* expert_parallel skipped the check (200 at tp 3): a dense model is
	 * answered tensor parallel, and an MoE model's expert-parallel group
	 * with data_parallel 1 splits its attention as tensor parallel does. */
	{
		wc_inference_query q = { .config = test_catalog_config("H100", 3, "Qwen3-8B", 8) };
		wc_inference_prediction pw;
		q.config.expert_parallel = 1;
		CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "tp: 3 does not divide Qwen3-8B's 32 attention heads");
		q.config = test_catalog_config("H100", 3, "Qwen3-30B-A3B", 8);
		q.config.expert_parallel = 1;
		CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_EINVAL);
		CHECK_CONTAINS(err.msg, "tp: 3 does not divide Qwen3-30B-A3B's 32 attention heads");
		q.config.expert_parallel = 0;
		CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_EINVAL);
	}
	wc_predictor_free(pr);
	/* A level of a board the catalog lacks: nothing holds its power under
	 * a limit nor checks its memory, and the answer says so once (a
	 * catalog board's answers above did not). */
	snprintf(p.levels[0].name, sizeof p.levels[0].name, "%s", "RTX6000Ada");
	CHECK_INT(wc_predictor_new(&p, &pr, &err), WC_OK);
	{
		wc_inference_query q = { .config = test_catalog_config("RTX6000Ada", 1, "Qwen3-8B", 32) };
		wc_inference_prediction pw;
		CHECK_INT(wc_predict_inference(pr, &q, &pw, &err), WC_OK);
		CHECK_INT(test_warnings_with(pw.warnings, pw.n_warnings,
		                             "platform: RTX6000Ada is not in the platform catalog: its board "
		                             "power limit and clock range are unknown, so nothing holds the "
		                             "answer under a limit and the model's fit in memory is not "
		                             "checked"), 1);
	}
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_capacity_warnings");
}
