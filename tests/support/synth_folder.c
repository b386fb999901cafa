#include "tests/support/synth_folder.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

char *
synth_run_folder(const char *root, const char *name, const char *run_id, double t0, int secs, int running)
{
	char *dir = path_join(root, name), *p = path_join(dir, "power.csv");
	char *e = path_join(dir, "engine.csv"), *m = path_join(dir, "wattcast-run.json"), man[512];
	mkdir(dir, 0755);
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,num_requests_running\n");
	for (int k = 0; k < 4 * secs; k++) {
		double t = t0 + 0.25 * k;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, 250.0 + 10.0 * sin(0.3 * k));
		fprintf(fe, "%.3f,%d\n", t, running);
	}
	fclose(fp);
	fclose(fe);
	snprintf(man, sizeof man, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"%s\", \"platform\": \"A100\", "
	         "\"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"workload\": \"closed\"}\n", run_id);
	CHECK(write_text(m, man) == 0);
	free(p);
	free(e);
	free(m);
	return dir;
}
