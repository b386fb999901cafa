/*
 * The power column an nvidia-smi log is read from (docs/formats/telemetry.md,
 * "`power.csv`: nvidia-smi"): power.draw.instant, else power.draw (a 1-s
 * mean on boards newer than the A100, which was read before the instant
 * one), else power.draw.average -- the most preferred one with a value on
 * the first line that has any, for the whole file. A log whose power.draw.instant is
 * all [N/A] next to a valid power.draw.average was refused ("every data line
 * malformed", each message naming power.draw); it is now read from the
 * average, which is said, and messages name the column actually read.
 */
#include "data/nvsmi.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *hdr = "timestamp, index, power.draw.instant [W], power.draw.average [W]\n";

/* Two GPUs, 40 samples every 100 ms; the instant column `na` as given
 * (NULL = a value 1 W above the average). */
static char *
write_log(const char *dir, const char *name, const char *na, int na_from)
{
	char *path = path_join(dir, name);
	FILE *f = fopen(path, "w");
	fputs(hdr, f);
	for (int i = 0; i < 40; i++)
		for (int g = 0; g < 2; g++) {
			double avg = 300 + 10 * g + i;
			char inst[32];
			if (na && i >= na_from)
				snprintf(inst, sizeof inst, "%s", na);
			else
				snprintf(inst, sizeof inst, "%.2f W", avg + 1);
			fprintf(f, "2026/07/19 10:00:%02d.%03d, %d, %s, %.2f W\n", i / 10, 100 * (i % 10), g, inst, avg);
		}
	fclose(f);
	return path;
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_power_column");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	test_warnings w;
	wc_power_trace *pt = NULL;
	wc_error err = { 0, "" };
	opt.warn = test_collect_warning;
	opt.warn_payload = &w;

	/* Instant all [N/A]: read from the average, said once. */
	memset(&w, 0, sizeof w);
	char *all_na = write_log(dir, "all_na.csv", "[N/A]", 0);
	CHECK_INT(wc_power_trace_read(all_na, &opt, 0, &pt, &err), WC_OK);
	if (pt) {
		CHECK_INT((int)pt->n, 40);
		CHECK(strcmp(pt->info.power_column, "power.draw.average") == 0);
		CHECK_NEAR(pt->power[1][5], 315.0, 1e-9);
		CHECK_INT((int)pt->info.bad_lines, 0);
		wc_power_trace_free(pt);
		pt = NULL;
	}
	CHECK_INT(w.count, 1);
	CHECK_CONTAINS(w.text, "all_na.csv:2: power.draw.instant has no value, power.draw.average has: power is read "
	               "from power.draw.average");

	/* Instant valid: read from it (preferred), not the average. */
	memset(&w, 0, sizeof w);
	char *ok = write_log(dir, "ok.csv", NULL, 0);
	CHECK_INT(wc_power_trace_read(ok, &opt, 0, &pt, &err), WC_OK);
	if (pt) {
		CHECK(strcmp(pt->info.power_column, "power.draw.instant") == 0);
		CHECK_NEAR(pt->power[1][5], 316.0, 1e-9);
		wc_power_trace_free(pt);
		pt = NULL;
	}
	CHECK_INT(w.count, 0);

	/* Instant gone after 39 samples: the column is settled per file, so the
	 * last sample's lines are bad lines naming power.draw.instant, not a
	 * switch to the average mid-trace. */
	memset(&w, 0, sizeof w);
	opt.max_bad_fraction = 0.5;
	char *late = write_log(dir, "late_na.csv", "[N/A]", 39);
	CHECK_INT(wc_power_trace_read(late, &opt, 0, &pt, &err), WC_OK);
	if (pt) {
		CHECK_INT((int)pt->n, 39);
		CHECK(strcmp(pt->info.power_column, "power.draw.instant") == 0);
		wc_power_trace_free(pt);
		pt = NULL;
	}
	CHECK_CONTAINS(w.text, "no power reading (power.draw.instant is '[N/A]')");
	CHECK(strstr(w.text, "read from power.draw.average") == NULL);
	/* GPU 1 never reports power (no sensor): no sweep is complete, so the
	 * refusal names it and what helps, not --max-bad, whatever its value
	 * (it said "allow more with --max-bad", then "no complete sample"). */
	char *silent = path_join(dir, "silent.csv");
	FILE *f = fopen(silent, "w");
	fputs("timestamp, index, power.draw [W]\n", f);
	for (int i = 0; i < 40; i++)
		fprintf(f, "2026/07/19 10:00:%02d.%03d, 0, 300.00 W\n2026/07/19 10:00:%02d.%03d, 1, [N/A]\n", i / 10,
		        100 * (i % 10), i / 10, 100 * (i % 10));
	fclose(f);
	for (int k = 0; k < 2; k++) {
		opt.max_bad_fraction = k ? 0.6 : 0.01;
		CHECK_INT(wc_power_trace_read(silent, &opt, 0, &pt, &err), WC_EPARSE);
		/* the remedy must survive a long path (messages stop at 255 bytes) */
		CHECK_CONTAINS(err.msg, "silent.csv: GPU index 1 never reports power (power.draw missing on its 40 "
		               "lines: no sensor?); no --max-bad helps: log the others only (nvidia-smi -i)");
	}
	/* Keyed by uuid alone: the uuid names the GPU ("GPU GPU-..." said it
	 * twice). */
	char *silent_uuid = path_join(dir, "silent_uuid.csv");
	f = fopen(silent_uuid, "w");
	fputs("timestamp, uuid, power.draw [W]\n", f);
	for (int i = 0; i < 40; i++)
		fprintf(f, "2026/07/19 10:00:%02d.%03d, GPU-aa, 300.00 W\n2026/07/19 10:00:%02d.%03d, GPU-bb, [N/A]\n",
		        i / 10, 100 * (i % 10), i / 10, 100 * (i % 10));
	fclose(f);
	CHECK_INT(wc_power_trace_read(silent_uuid, &opt, 0, &pt, &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "silent_uuid.csv: GPU-bb never reports power (power.draw missing on its 40 lines");
	free(silent_uuid);
	/* All three columns: the instantaneous one is read, without a word. */
	memset(&w, 0, sizeof w);
	char *three = path_join(dir, "three.csv");
	f = fopen(three, "w");
	fputs("timestamp, index, power.draw [W], power.draw.average [W], power.draw.instant [W]\n", f);
	for (int i = 0; i < 40; i++)
		fprintf(f, "2026/07/19 10:00:%02d.%03d, 0, 300.00 W, 300.00 W, %d.00 W\n", i / 10, 100 * (i % 10), 400 + i);
	fclose(f);
	CHECK_INT(wc_power_trace_read(three, &opt, 0, &pt, &err), WC_OK);
	if (pt) {
		CHECK(strcmp(pt->info.power_column, "power.draw.instant") == 0);
		CHECK_NEAR(pt->power[0][5], 405.0, 1e-9);
		wc_power_trace_free(pt);
		pt = NULL;
	}
	CHECK_INT(w.count, 0);
	free(three);
	free(silent);
	free(all_na);
	free(ok);
	free(late);
	free(dir);
	return check_report("test_nvsmi_power_column");
}
