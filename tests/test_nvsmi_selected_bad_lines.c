/*
 * Bad lines whose GPU cannot be read (an empty uuid cell, a line cut
 * short) in a log read by uuid: with gpu_uuids, or a uuid column alone
 * (data/nvsmi_sweep.c; docs/formats/telemetry.md "Bad lines in a sweep").
 * Such a line takes the place of the GPU the sweep order says comes next,
 * so the sweep it falls in is dropped and no sample pairs two sweeps. With
 * gpu_uuids it held no place: in a 2-GPU log GPU 1 of sweep 50 and GPU 0
 * of sweep 51 unnamed made one sample of GPU 0 of sweep 50 and GPU 1 of
 * sweep 51 ("1 sweep spread over more than 40 ms"), as in a real TP 2 log
 * so edited (test_real_ingest_selected). An unnamed row of a GPU the
 * selection leaves out holds the next GPU's place only until that GPU's
 * own row follows, so it drops nothing. GPU g reads 1000 (g + 1) + k W in
 * sweep k.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 200

typedef struct {
	int n, misaligned;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	long k = lround(w[0]) % 1000;
	(void)t;
	for (int g = 1; g < n_gpus; g++)
		s->misaligned += lround(w[g]) % 1000 != k;
	s->n++;
	return 0;
}

/* A log of `gpus` GPUs at 0.25 s, rows 5 ms apart; the rows (sweep, GPU) in
 * `hit[0..n_hit)` spoilt: `cut` 0 their uuid cell emptied, 1 the line cut
 * short after the index (or uuid) field. */
static char *
log_text(int gpus, int index, const int (*hit)[2], int n_hit, int cut)
{
	size_t cap = (size_t)gpus * SWEEPS * 80 + 128, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp%s, uuid, power.draw [W]\n", index ? ", index" : "");
	for (int k = 0; k < SWEEPS; k++)
		for (int g = 0; g < gpus; g++) {
			long ms = 3000 + 250L * k + 5L * g;
			int spoilt = 0;
			for (int i = 0; i < n_hit; i++)
				spoilt |= hit[i][0] == k && hit[i][1] == g;
			char idx[16] = "", uu[24];
			if (index)
				snprintf(idx, sizeof idx, ", %d", g);
			snprintf(uu, sizeof uu, ", GPU-000%d", g);
			if (spoilt && !cut)
				snprintf(uu, sizeof uu, ", ");
			used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:%02ld:%02ld.%03ld%s%s", ms / 60000,
			                         ms / 1000 % 60, ms % 1000, idx, uu);
			if (!(spoilt && cut))
				used += (size_t)snprintf(s + used, cap - used, ", %d.00", 1000 * (g + 1) + k);
			used += (size_t)snprintf(s + used, cap - used, "\n");
		}
	return s;
}

/* `text` read with the GPUs `sel` (n_sel of them; 0: none named). */
static int
read_log(const char *dir, const char *text, const char *const *sel, int n_sel, seen *s, wc_nvsmi_info *info,
         test_warnings *w, wc_error *err)
{
	char *p = path_join(dir, "power.csv");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.gpu_uuids = n_sel ? sel : NULL;
	opt.n_gpu_uuids = (size_t)n_sel;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(s, 0, sizeof *s);
	memset(w, 0, sizeof *w);
	CHECK(write_text(p, text) == 0);
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	if (rc != WC_OK)
		fprintf(stderr, "  refused: %s\n", err->msg);
	free(p);
	return rc;
}

/* The last GPUs of sweep 50 and GPU 0 of sweep 51 unnamed (`gpus` - 1
 * rows of the one, GPU 0 of the other): both sweeps dropped, every other
 * read, none pairing two sweeps. */
static void
neighbours(const char *dir, int gpus, int index, int cut, const char *const *sel, const char *what)
{
	int hit[3][2] = { { 51, 0 }, { 50, 1 }, { 50, 2 } };
	char *text = log_text(gpus, index, (const int (*)[2])hit, gpus, cut);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "%s\n", what);
	CHECK_INT(read_log(dir, text, sel, sel ? gpus : 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(s.n, SWEEPS - 2);
	CHECK_INT(s.misaligned, 0);
	CHECK_INT(info.bad_lines, (size_t)gpus);
	CHECK_INT(info.dropped_samples, 2);
	CHECK_INT(info.wide_sweeps, 0);
	CHECK(info.max_sweep_span_s < 0.011);
	CHECK(strstr(w.text, "spread over") == NULL);
	if (s.n != SWEEPS - 2 || s.misaligned || info.wide_sweeps)
		fprintf(stderr, "  %d samples, %d misaligned, %zu wide; warnings: %.300s\n", s.n, s.misaligned,
		        info.wide_sweeps, w.text);
	free(text);
}

/* The row of GPU `left` (outside the selection) of sweep 80 unnamed: no
 * GPU's place; every sample read. */
static void
left_out(const char *dir, int left, const char *const *sel, const char *what)
{
	const int hit[1][2] = { { 80, left } };
	char *text = log_text(3, 1, hit, 1, 0);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "%s\n", what);
	CHECK_INT(read_log(dir, text, sel, 2, &s, &info, &w, &err), WC_OK);
	CHECK_INT(s.n, SWEEPS);
	CHECK_INT(s.misaligned, 0);
	CHECK_INT(info.bad_lines, 1);
	CHECK_INT(info.dropped_samples, 0);
	free(text);
}

int
main(void)
{
	static const char *const all[] = { "GPU-0000", "GPU-0001", "GPU-0002" };
	static const char *const turned[] = { "GPU-0001", "GPU-0000", "GPU-0002" };
	static const char *const ends[] = { "GPU-0000", "GPU-0002" }, *const first[] = { "GPU-0000", "GPU-0001" };
	char *dir = test_tmpdir("nvsmi_selected_bad_lines");
	neighbours(dir, 2, 1, 0, all, "2 GPUs, gpu_uuids, index column: two neighbouring uuid cells empty");
	neighbours(dir, 2, 1, 1, all, "2 GPUs, gpu_uuids, index column: two neighbouring lines cut short");
	neighbours(dir, 2, 0, 0, all, "2 GPUs, gpu_uuids, no index column: two neighbouring uuid cells empty");
	neighbours(dir, 3, 1, 0, all, "3 GPUs, gpu_uuids: three neighbouring uuid cells empty");
	neighbours(dir, 3, 1, 0, turned, "3 GPUs, gpu_uuids in another order than the log's sweeps");
	neighbours(dir, 2, 0, 0, NULL, "2 GPUs, uuid column alone: two neighbouring uuid cells empty");
	neighbours(dir, 3, 0, 1, NULL, "3 GPUs, uuid column alone: three neighbouring lines cut short");
	left_out(dir, 1, ends, "a GPU left out between the selected ones, its uuid cell empty");
	left_out(dir, 2, first, "a GPU left out after the selected ones, its uuid cell empty");
	free(dir);
	return check_report("test_nvsmi_selected_bad_lines");
}
