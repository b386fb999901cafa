/*
 * nvidia-smi rows grouped into sweeps (data/nvsmi_sweep.c,
 * docs/formats/telemetry.md "nvidia-smi"): every reading of these logs
 * says which sweep it belongs to (GPU g reads 100 (g + 1) + k W in sweep
 * k), so a sample pairing rows of two sweeps is seen.
 *
 * - A bad line of the first GPU of a sweep ([N/A], [Unknown Error], -1.00,
 *   or a row cut so short that its GPU cannot be read) drops its own sweep
 *   only, with an index or a uuid column: skipping it would let the next
 *   sweep's row of that GPU complete the sample, and every later sample
 *   would pair two sweeps. A header repeated by an appended log drops
 *   none and is no bad line.
 * - Without index or uuid, the GPU count is read off the gaps between
 *   rows: 8 rows 6 ms apart (a sweep 42 ms wide) every 250 ms are 8 GPUs,
 *   as are 8 rows 30 ms apart every second; a 1-GPU log with pauses, even
 *   regular ones, is one GPU; a count given overrides.
 * - A last line without a newline (a log still being written) that does
 *   not parse is dropped with a warning, not counted as malformed; the
 *   same line with its newline, or in the middle, still counts.
 * - A row lost (of the first, a middle or the last GPU), a stray row of a
 *   GPU, in 2-, 4- and 8-GPU logs with index, uuid or neither (the count
 *   read off the timestamps or given), costs its own sweep only; a line
 *   written twice costs nothing. The group's samples, mean and max are
 *   those of the log without that sweep, computed here from the design;
 *   energy = mean x duration.
 * - A log cut at its head within a sweep drops the partial sweep and pairs
 *   no two sweeps after it, also with the GPUs named by gpu_uuids.
 * - A GPU of gpu_uuids in no row of the log is named in one refusal, one
 *   whose rows begin later costs the sweeps before, skipped; rows
 *   of two per-GPU loggers merged by time are said to change the GPU order
 *   within a sweep, not to miss a GPU.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SWEEPS 200

typedef struct {
	int n, misaligned, gpus;
	int sweep[MAX_SWEEPS];    /* sweep k of each sample, -1 if misaligned */
	double group_w[MAX_SWEEPS];
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	int k = (int)lround(w[0] - 100.0);
	double sum = 0.0;
	(void)t;
	for (int g = 0; g < n_gpus; g++) {
		if (lround(w[g] - 100.0 * (g + 1)) != k)
			k = -1;
		sum += w[g];
	}
	s->misaligned += k < 0;
	s->gpus = n_gpus;
	if (s->n < MAX_SWEEPS) {
		s->sweep[s->n] = k;
		s->group_w[s->n] = sum;
	}
	s->n++;
	return 0;
}

/* Sweep k's row of GPU g at t0 + k dt + g dg: "timestamp[,index][,uuid],
 * power [W]" as the columns say, or `bad` for that one row: its power
 * field (whole = 0), the whole line (1), or a line before it (2); or that
 * row absent (3, a write lost), written twice (4), or followed by a stray
 * row of the same GPU and time reading 999 W (5). */
typedef struct {
	int gpus, sweeps, index, uuid;
	double dt, dg;
	int bad_k, bad_g, whole;
	const char *bad;
} design;

static void
timestamp(char *out, size_t cap, double t)
{
	long ms = lround(t * 1000.0), s = ms / 1000;
	snprintf(out, cap, "2026/07/18 %02ld:%02ld:%02ld.%03ld", 15 + s / 3600, s / 60 % 60, s % 60,
	         ms % 1000);
}

static char *
log_text(const design *d)
{
	size_t cap = (size_t)d->gpus * (size_t)d->sweeps * 80 + 256, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp%s%s, power.draw [W]\n", d->index ? ", index" : "",
	                         d->uuid ? ", uuid" : "");
	for (int k = 0; k < d->sweeps; k++)
		for (int g = 0; g < d->gpus; g++) {
			char ts[40], idx[16] = "", uuid[24] = "", pw[32];
			int bad = k == d->bad_k && g == d->bad_g;
			if (bad && d->whole == 3)
				continue;
			if (bad && d->whole >= 1 && d->whole <= 2) {
				used += (size_t)snprintf(s + used, cap - used, "%s\n", d->bad);
				if (d->whole == 1)
					continue;
				bad = 0;
			}
			timestamp(ts, sizeof ts, 3.0 + k * d->dt + g * d->dg);
			if (d->index)
				snprintf(idx, sizeof idx, ", %d", g);
			if (d->uuid)
				snprintf(uuid, sizeof uuid, ", GPU-%04d", g);
			snprintf(pw, sizeof pw, "%d.00", 100 * (g + 1) + k);
			used += (size_t)snprintf(s + used, cap - used, "%s%s%s, %s\n", ts, idx, uuid,
			                         bad && d->whole == 0 ? d->bad : pw);
			if (bad && d->whole >= 4)
				used += (size_t)snprintf(s + used, cap - used, "%s%s%s, %s\n", ts, idx, uuid,
				                         d->whole == 4 ? pw : "999.00");
		}
	return s;
}

/* Read `text` (written to `dir`/`name`) with `gpus` given (0 = none), and
 * the GPUs GPU-0000 .. GPU-(select - 1) named as gpu_uuids (0 = none); bad
 * lines allowed up to `max_bad` (0 = the default), raised by "--max-bad". */
static int
read_with(const char *dir, const char *name, const char *text, int gpus, int select, double max_bad,
          seen *s, wc_nvsmi_info *info, test_warnings *w, wc_error *err)
{
	static const char *const uuids[] = { "GPU-0000", "GPU-0001", "GPU-0002", "GPU-0003",
		                             "GPU-0004", "GPU-0005", "GPU-0006", "GPU-0007" };
	char *p = path_join(dir, name);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.n_gpus = gpus;
	opt.gpu_uuids = select > 0 ? uuids : NULL;
	opt.n_gpu_uuids = (size_t)select;
	opt.max_bad_option = "--max-bad";
	if (max_bad > 0)
		opt.max_bad_fraction = max_bad;
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(s, 0, sizeof *s);
	memset(w, 0, sizeof *w);
	CHECK(write_text(p, text) == 0);
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	free(p);
	return rc;
}

static int
read_text(const char *dir, const char *name, const char *text, int gpus, seen *s,
          wc_nvsmi_info *info, test_warnings *w, wc_error *err)
{
	return read_with(dir, name, text, gpus, 0, 0.0, s, info, w, err);
}

/* A bad row of GPU 0 in sweep 50 of 100 drops that sweep alone. */
static void
bad_first_gpu(const char *dir, int gpus, int index, int uuid, int whole, const char *bad)
{
	design d = { gpus, 100, index, uuid, 0.25, 0.003, 50, 0, whole, bad };
	int lost = whole < 2; /* a line before the row drops nothing */
	char *text = log_text(&d);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "%d GPUs%s%s, GPU 0 of sweep 50 %s '%s'\n", gpus, index ? ", index" : "",
	        uuid ? ", uuid" : "", lost ? "is" : "comes after", bad);
	CHECK_INT(read_text(dir, "bad_first.csv", text, 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.n_gpus, gpus);
	CHECK_INT(info.bad_lines, whole < 2); /* a header again is no line (telemetry.md) */
	CHECK_INT(info.dropped_samples, lost);
	CHECK_INT(info.samples, 100 - lost);
	CHECK_INT(s.misaligned, 0);
	CHECK_INT(info.wide_sweeps, 0);
	CHECK(info.max_sweep_span_s < 0.003 * gpus);
	CHECK(s.sweep[49] == 49 && s.sweep[50] == 50 + lost && s.sweep[99 - lost] == 99);
	CHECK(strstr(w.text, "incomplete") == NULL);
	free(text);
}

/* Group power of sweep k of a `gpus`-GPU log: sum over g of 100 (g + 1) + k. */
static double
sweep_group_w(int gpus, int k)
{
	return 50.0 * gpus * (gpus + 1) + (double)gpus * k;
}

static const char *const fault_name[] = { "", "", "", "is absent", "is written twice",
	                                  "is followed by a stray row" };

/* A row of GPU g in sweep 50 of 200 absent (fault 3), written twice (4) or
 * followed by a stray row (5): the sweep is dropped (kept whole for a
 * duplicate) and every other sweep is read as written, so the group's
 * samples, mean and max are those of the log without that sweep. With
 * `given`, the GPU count is given. */
static void
faulty_row(const char *dir, int gpus, int index, int uuid, int given, int g, int fault)
{
	design d = { gpus, 200, index, uuid, 0.25, 0.003, 50, g, fault, NULL };
	int lost = fault != 4;
	char *text = log_text(&d), *p = path_join(dir, "faulty.csv");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_power_trace *pt = NULL;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "%d GPUs%s%s%s, GPU %d of sweep 50 %s\n", gpus, index ? ", index" : "",
	        uuid ? ", uuid" : "", given ? " (given)" : "", g, fault_name[fault]);
	memset(&w, 0, sizeof w);
	opt.n_gpus = given ? gpus : 0;
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;
	CHECK(write_text(p, text) == 0);
	CHECK_INT(wc_power_trace_read(p, &opt, 0, &pt, &err), WC_OK);
	free(text);
	free(p);
	if (!pt) {
		fprintf(stderr, "  %s\n", err.msg);
		return;
	}
	CHECK_INT(pt->info.n_gpus, gpus);
	CHECK(given || strcmp(pt->info.gpu_count_source, index ? "index" : uuid ? "uuid" : "timestamps") == 0);
	CHECK_INT(pt->info.samples, 200 - lost);
	CHECK_INT(pt->info.wide_sweeps, 0);
	/* a lost row is reported once, as a bad line; a duplicate not at all */
	if (fault != 5)
		CHECK_INT(pt->info.bad_lines, fault == 3);
	CHECK(fault == 4 || (pt->info.bad_lines >= 1 && pt->info.dropped_samples >= 1));
	/* the samples themselves: sweep k, all GPUs of one sweep */
	double t_exp[200], w_exp[200];
	size_t n = 0, wrong = 0;
	for (int k = 0; k < 200; k++)
		if (!(lost && k == 50)) {
			t_exp[n] = 0.25 * k;
			w_exp[n++] = sweep_group_w(gpus, k);
		}
	CHECK_INT(pt->n, n);
	for (size_t i = 0; i < n && i < pt->n; i++) {
		int k = (int)lround(pt->power[0][i] - 100.0);
		for (int j = 0; j < gpus; j++)
			wrong += lround(pt->power[j][i] - 100.0 * (j + 1)) != k;
		wrong += fabs(pt->group[i] - w_exp[i]) > 1e-9 || fabs(pt->t[i] - pt->t[0] - t_exp[i]) > 1e-6;
	}
	CHECK_INT(wrong, 0);
	/* the group's metrics are those of the log without the sweep */
	double energy = 0.0, max = w_exp[0];
	for (size_t i = 1; i < n; i++) {
		energy += (t_exp[i] - t_exp[i - 1]) * (w_exp[i] + w_exp[i - 1]) / 2.0;
		max = fmax(max, w_exp[i]);
	}
	wc_trace_metrics m;
	CHECK_INT(wc_trace_metrics_compute(pt->t, pt->group, pt->n, &m, &err), WC_OK);
	CHECK_NEAR(m.mean_w, energy / t_exp[n - 1], 1e-9 * m.mean_w);
	CHECK_NEAR(m.max_w, max, 1e-9);
	CHECK_NEAR(m.energy_j, m.mean_w * m.duration_s, 1e-9 * m.energy_j);
	CHECK_NEAR(m.duration_s, t_exp[n - 1], 1e-6);
	wc_power_trace_free(pt);
}

/* A log cut at its head within a sweep (its first `cut` rows are GPUs
 * gpus - cut .. gpus - 1 of sweep 0), each sweep's rows stamped with one
 * time as nvidia-smi writes them: the partial sweep is dropped with a
 * warning and every later sample holds one sweep, its GPUs in their
 * order; with the GPUs named by gpu_uuids (`select`, which needs `uuid`)
 * too, as a real manifest names them. */
static void
head_cut(const char *dir, int gpus, int index, int uuid, int cut, int select)
{
	design d = { gpus, 100, index, uuid, 0.25, 0.0, -1, -1, 0, NULL };
	char *text = log_text(&d), *from = strchr(text, '\n') + 1, *to = from;
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "%d GPUs%s%s%s, the log's first %d row(s) cut off\n", gpus, index ? ", index" : "",
	        uuid ? ", uuid" : "", select ? ", gpu_uuids" : "", gpus - cut);
	for (int r = 0; r < gpus - cut; r++)
		to = strchr(to, '\n') + 1;
	memmove(from, to, strlen(to) + 1);
	CHECK_INT(read_with(dir, "head_cut.csv", text, 0, select ? gpus : 0, 0.0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.n_gpus, gpus);
	CHECK_INT(info.samples, 99);
	CHECK_INT(s.misaligned, 0);
	CHECK(s.sweep[0] == 1 && s.sweep[98] == 99);
	CHECK_INT(info.wide_sweeps, 0);
	CHECK_INT(info.bad_lines, 0);
	CHECK_CONTAINS(w.text, "the log begins within a sweep");
	free(text);
}

/* A 2-GPU log (uuid) naming both GPUs by gpu_uuids, GPU-0001's rows only
 * from sweep `from` on (100: never, one GPU's log of a 2-GPU run): a GPU in
 * no row refuses the log naming it, without the hint to allow more bad
 * lines (allowing more cannot help); the sweeps before one that comes late
 * are skipped in one warning, as with the count given (no bad line). */
static void
selected_gpu_absent(const char *dir, int from)
{
	design d = { 2, 100, 0, 1, 0.25, 0.003, -1, -1, 0, NULL };
	char *text = log_text(&d), *line = strchr(text, '\n') + 1, *out = line;
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "2 GPUs named by gpu_uuids, GPU-0001 from sweep %d on\n", from);
	for (int r = 0; r < 200; r++) {
		char *next = strchr(line, '\n') + 1;
		size_t n = (size_t)(next - line);
		if (!(r % 2 == 1 && r / 2 < from)) {
			memmove(out, line, n);
			out += n;
		}
		line = next;
	}
	*out = '\0';
	int rc = read_with(dir, "absent.csv", text, 0, 2, from == 100 ? 0.0 : 0.5, &s, &info, &w, &err);
	if (from == 100) {
		CHECK_INT(rc, WC_EPARSE);
		CHECK_CONTAINS(err.msg, "GPU-0001 of the run's 2 (gpu_uuids) is in no row of the log");
		CHECK(strstr(err.msg, "GPU GPU-") == NULL); /* the uuid names the GPU */
		CHECK(strstr(err.msg, "--max-bad") == NULL);
		CHECK(strstr(w.text, "missing") == NULL);
	} else {
		CHECK_INT(rc, WC_OK);
		CHECK_INT(info.samples, 100 - from);
		CHECK_INT(info.bad_lines, 0);
		CHECK_INT(s.misaligned, 0);
		CHECK_CONTAINS(w.text, "lack some GPUs; skipped, samples read from here");
		CHECK(strstr(w.text, "missing") == NULL && strstr(w.text, "not shown") == NULL); /* all said */
	}
	free(text);
}

/* A 2-GPU log (index) merged from two per-GPU loggers and sorted by time:
 * GPU 1's rows 30 ms before GPU 0's in every third sweep from the second,
 * after them in the others, so the GPU order changes within a sweep. Each
 * sweep is one sample, no sample pairs two sweeps, and no message says a
 * GPU is missing (its row is the next line); one warning says the order
 * changed. */
static void
merged_loggers(const char *dir)
{
	char *text = malloc(200 * 64 + 64);
	size_t used = (size_t)sprintf(text, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k < 100; k++) {
		char t0[40], t1[40];
		double t = 3.0 + 0.25 * k, dt1 = k % 3 == 1 ? -0.03 : 0.03;
		timestamp(t0, sizeof t0, t);
		timestamp(t1, sizeof t1, t + dt1);
		if (dt1 < 0)
			used += (size_t)sprintf(text + used, "%s, 1, %d.00\n%s, 0, %d.00\n", t1, 200 + k, t0, 100 + k);
		else
			used += (size_t)sprintf(text + used, "%s, 0, %d.00\n%s, 1, %d.00\n", t0, 100 + k, t1, 200 + k);
	}
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "2 GPUs of two loggers merged by time\n");
	CHECK_INT(read_with(dir, "merged.csv", text, 0, 0, 0.0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.samples, 100);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(s.misaligned, 0);
	CHECK_CONTAINS(w.text, "merged.csv:5: the GPU order changed within 33 sweeps (GPU 0 0.030 s after GPU 1");
	CHECK(strstr(w.text, "missing") == NULL);
	/* one sweep of 4 GPUs written backwards is one sweep (its 3 rows out
	 * of order were counted: "within 3 sweeps") */
	used = (size_t)sprintf(text, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k < 20; k++)
		for (int g = 0; g < 4; g++) {
			char ts[40];
			timestamp(ts, sizeof ts, 3.0 + 0.25 * k);
			used += (size_t)sprintf(text + used, "%s, %d, %d.00\n", ts, k == 10 ? 3 - g : g, 100 + g);
		}
	CHECK_INT(read_with(dir, "reversed.csv", text, 0, 0, 0.0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.samples, 20);
	CHECK_CONTAINS(w.text, "reversed.csv:43: the GPU order changed within 1 sweep (GPU 2 0.000 s after GPU 3");
	free(text);
}

/* 8 GPUs, no index or uuid, rows `dg` apart, sweeps every `dt`. */
static void
positional(const char *dir, double dt, double dg)
{
	design d = { 8, 100, 0, 0, dt, dg, -1, -1, 0, NULL };
	char *text = log_text(&d);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "8 GPUs by position, rows %.0f ms apart every %.0f ms\n", 1e3 * dg, 1e3 * dt);
	CHECK_INT(read_text(dir, "position.csv", text, 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.n_gpus, 8);
	CHECK(strcmp(info.gpu_count_source, "timestamps") == 0);
	CHECK_INT(info.samples, 100);
	CHECK_INT(s.misaligned, 0);
	CHECK_NEAR(info.max_sweep_span_s, 7 * dg, 1e-3);
	/* every watt delivered: sweep 0 sums 100 + 200 + ... + 800 */
	CHECK_NEAR(s.group_w[0], 3600.0, 1e-9);
	CHECK_NEAR(s.group_w[99], 3600.0 + 8 * 99, 1e-9);
	/* a count given smaller than the sweeps: position cannot pick 4 of
	 * 8 GPUs out (counted off 4 at a time each sweep read as two samples
	 * of the wrong GPUs), refused as rows at one timestamp are
	 * (docs/formats/telemetry.md, "GPU count from the timestamps") */
	CHECK_INT(read_text(dir, "position.csv", text, 4, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "8 rows make each sweep");
	CHECK_CONTAINS(err.msg, "more than the 4 GPUs given");
	CHECK_CONTAINS(err.msg, "add uuid (or index) to --query-gpu");
	free(text);
}

/* 1 GPU every 100 ms with a 2 s pause after every `every`-th row, or
 * after a few rows here and there: one GPU. The pauses make a jump in the
 * gaps, but rows 100 ms apart are not rows of one sweep. */
static void
one_gpu_with_pauses(const char *dir, int every)
{
	char *text = malloc(300 * 48 + 64);
	size_t used = (size_t)sprintf(text, "timestamp, power.draw [W]\n");
	double t = 3.0;
	for (int k = 0; k < 300; k++) {
		char ts[40];
		int pause = every ? k % every == every - 1 : k == 23 || k == 61 || k == 140 || k == 177;
		t += pause ? 2.0 : 0.1 + 0.002 * (k % 5);
		timestamp(ts, sizeof ts, t);
		used += (size_t)sprintf(text + used, "%s, %d.00\n", ts, 100 + k);
	}
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	CHECK_INT(read_text(dir, "pauses.csv", text, 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.n_gpus, 1);
	CHECK_INT(info.samples, 300);
	free(text);
}

/* 27 one-GPU rows and a 28th: 1 bad line of 28 is over the 1 % share. */
static void
unfinished_last_line(const char *dir)
{
	design d = { 1, 27, 1, 1, 0.25, 0.0, -1, -1, 0, NULL };
	char *good = log_text(&d), text[8192];
	const char *cut = "2026/07/18 15:00:09.750, 0, GPU-00"; /* a row being written */
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;

	snprintf(text, sizeof text, "%s%s", good, cut);
	CHECK_INT(read_text(dir, "unfinished.csv", text, 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.samples, 27);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(info.data_lines, 28);
	CHECK_CONTAINS(w.text, ":29: unfinished last line");
	CHECK_INT(w.count, 1);
	/* a unit word cut off is not an unknown unit */
	snprintf(text, sizeof text, "%s2026/07/18 15:00:09.750, 0, GPU-0000, 250.3 k", good);
	CHECK_INT(read_text(dir, "unfinished_unit.csv", text, 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 0);
	CHECK_CONTAINS(w.text, ":29: unfinished last line");
	/* an unfinished line that parses is a row like any other */
	snprintf(text, sizeof text, "%s2026/07/18 15:00:09.750, 0, GPU-0000, 250.00", good);
	CHECK_INT(read_text(dir, "unfinished_ok.csv", text, 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.samples, 28);
	CHECK_INT(w.count, 0);
	/* the same line finished by a newline is malformed */
	snprintf(text, sizeof text, "%s%s\n", good, cut);
	CHECK_INT(read_text(dir, "finished.csv", text, 0, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "1 of 28 data lines are malformed");
	/* and so is a malformed line in the middle */
	char *nl = strchr(strchr(good, '\n') + 1, '\n') + 1;
	snprintf(text, sizeof text, "%.*s%s\n%s2026/07/18 15:00:09.750, 0, GPU-0000, 250.00",
	         (int)(nl - good), good, cut, nl);
	CHECK_INT(read_text(dir, "middle.csv", text, 0, &s, &info, &w, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "1 of 29 data lines are malformed");
	free(good);
}

/* A daylight-saving change of the local time nvidia-smi writes: an hour
 * forward (or back) between two samples 0.1 s apart is taken out of every
 * later sample, said once; an hour and a half-minute gap (cadence not
 * resumed) is a gap like any other (docs/formats/telemetry.md). */
static void
daylight_saving(const char *dir, double jump, double extra, int zoned)
{
	char *text = malloc(200 * 2 * 64 + 64);
	size_t used = (size_t)sprintf(text, "timestamp, index, power.draw [W]\n");
	for (int k = 0; k < 200; k++)
		for (int g = 0; g < 2; g++) {
			char ts[40];
			double at = 7203.0 + 0.1 * k + 0.002 * g + (k >= 100 ? jump + extra : 0.0);
			if (zoned) /* epoch seconds carry their zone: no daylight saving */
				snprintf(ts, sizeof ts, "%.3f", 1784408400.0 + at);
			else
				timestamp(ts, sizeof ts, at);
			used += (size_t)sprintf(text + used, "%s, %d, %d.00\n", ts, g, 100 * (g + 1) + k);
		}
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	int rc = read_text(dir, "dst.csv", text, 0, &s, &info, &w, &err);
	if (extra == 0.0 && !zoned) {
		CHECK_INT(rc, WC_OK);
		CHECK_INT(info.samples, 200);
		CHECK_INT(info.bad_lines, 0);
		CHECK_INT(s.misaligned, 0);
		CHECK_NEAR(info.t_last - info.t_first, 19.9, 1e-6); /* the run's own length */
		CHECK_CONTAINS(w.text, jump > 0 ? ":202: the clock jumps +3600 s" : ":202: the clock jumps -3600 s");
		CHECK_INT(w.count, 1);
	} else {
		CHECK(strstr(w.text, "daylight-saving") == NULL);
		CHECK(rc != WC_OK || info.samples < 200);
	}
	free(text);
}

/* A bad row of GPU 0 in the very first sweep drops that sweep alone: the
 * next, good one was dropped as well (the bad line counted as "near" it
 * after its own sweep had been dropped for it). */
static void
bad_first_sweep(const char *dir, int gpus, int index, int uuid, const char *bad)
{
	design d = { gpus, 100, index, uuid, 0.25, 0.003, 0, 0, 0, bad };
	char *text = log_text(&d);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "%d GPUs, GPU 0 of the first sweep is '%s'\n", gpus, bad);
	CHECK_INT(read_text(dir, "bad_first_sweep.csv", text, 0, &s, &info, &w, &err), WC_OK);
	CHECK_INT(info.bad_lines, 1);
	CHECK_INT(info.dropped_samples, 1);
	CHECK_INT(info.samples, 99);
	CHECK_INT(s.misaligned, 0);
	CHECK_INT(s.sweep[0], 1);
	free(text);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_sweeps");
	bad_first_gpu(dir, 2, 1, 1, 0, "[N/A]");
	bad_first_gpu(dir, 8, 1, 1, 0, "[Unknown Error]");
	bad_first_gpu(dir, 2, 1, 0, 0, "-1.00");
	bad_first_gpu(dir, 4, 0, 1, 0, "[N/A]");
	bad_first_sweep(dir, 1, 1, 0, "-1.00");
	bad_first_sweep(dir, 2, 1, 1, "[N/A]");
	/* a row cut short: its GPU cannot be read, it is the one after the last */
	bad_first_gpu(dir, 2, 1, 1, 1, "2026/07/18 15:00:15.500, 0");
	bad_first_gpu(dir, 4, 0, 1, 1, "2026/07/18 15:00");
	/* a header again where a second nvidia-smi appended to the log */
	bad_first_gpu(dir, 2, 1, 1, 2, "timestamp, index, uuid, power.draw [W]");
	/* and without index or uuid: the bad line's place is its position;
	 * a header again makes its sweep a row too many and is left out */
	bad_first_gpu(dir, 4, 0, 0, 0, "[N/A]");
	bad_first_gpu(dir, 8, 0, 0, 1, "2026/07/18 15:00");
	bad_first_gpu(dir, 2, 0, 0, 2, "timestamp, power.draw [W]");
	positional(dir, 0.25, 0.006);
	positional(dir, 1.0, 0.03);
	positional(dir, 0.1, 0.0);
	one_gpu_with_pauses(dir, 37);
	one_gpu_with_pauses(dir, 0);
	unfinished_last_line(dir);
	daylight_saving(dir, 3600.0, 0.0, 0);
	daylight_saving(dir, -3600.0, 0.0, 0);
	daylight_saving(dir, 3600.0, 30.0, 0);
	daylight_saving(dir, 3600.0, 0.0, 1);
	daylight_saving(dir, -3600.0, 0.0, 1);
	head_cut(dir, 2, 1, 1, 1, 0);
	head_cut(dir, 4, 1, 0, 3, 0);
	head_cut(dir, 8, 0, 1, 2, 0);
	head_cut(dir, 2, 1, 1, 1, 1);
	head_cut(dir, 4, 0, 1, 1, 1);
	head_cut(dir, 8, 1, 1, 5, 1);
	selected_gpu_absent(dir, 100);
	selected_gpu_absent(dir, 10);
	merged_loggers(dir);
	/* a row lost, doubled or stray, of the first, a middle or the last
	 * GPU: with index, uuid or neither (the count read off the
	 * timestamps, or given) */
	static const int keys[4][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 0 }, { 0, 0, 1 } };
	for (int gpus = 2; gpus <= 8; gpus *= 2)
		for (int key = 0; key < 4; key++)
			for (int fault = 3; fault <= 5; fault++)
				for (int first_mid_last = 0; first_mid_last < 3; first_mid_last++)
					faulty_row(dir, gpus, keys[key][0], keys[key][1], keys[key][2],
					           (gpus - 1) * first_mid_last / 2, fault);
	free(dir);
	return check_report("test_nvsmi_sweeps");
}
