/*
 * The README's main command runs to its end (cli/main-job.sh, what
 * `sh cli/bootstrap.sh main` executes after the build): every step of the
 * main job on the embedded default, then the server with its example
 * answers (WC_MAIN_NO_WAIT=1 stops it after them). Its sixth step adds
 * the fine-tuning law to the parameter file it read (-o = --params); a
 * same-file check refused that, exit 2, and the main job never served,
 * while no test ran the script.
 */
#include "data/fileio.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int
main(void)
{
	const char *src = getenv("WC_SOURCE_DIR"), *bin = getenv("WATTCAST_BIN");
	if (!src || !bin) {
		fprintf(stderr, "test_main_job: WC_SOURCE_DIR and WATTCAST_BIN must be set (ctest sets them)\n");
		return 1;
	}
	char *dir = test_tmpdir("main_job");
	char *params = path_join(dir, "params.json"), *log = path_join(dir, "out.txt"), cmd[4096];
	snprintf(cmd, sizeof cmd, "cd '%s' && params='%s' WC_MAIN_NO_WAIT=1 sh cli/main-job.sh '%s' >'%s' 2>&1", src,
	         params, bin, log);
	int st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	char *out = NULL;
	size_t n = 0;
	CHECK_INT(wc_read_file(log, 1u << 24, &out, &n, NULL), WC_OK);
	if (out) {
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			fprintf(stderr, "%s\n", out);
		for (int k = 1; k <= 8; k++) {
			char head[16];
			snprintf(head, sizeof head, "\n== %d. ", k);
			CHECK_CONTAINS(out, k == 1 ? "== 1. " : head);
		}
		CHECK(strstr(out, "is the input") == NULL);
		CHECK_CONTAINS(out, "== wattcast serve --params ");
		CHECK_CONTAINS(out, "Try:");
		/* the frozen file holds both laws the steps fitted */
		char *p = NULL;
		size_t pn = 0;
		CHECK_INT(wc_read_file(params, 1u << 26, &p, &pn, NULL), WC_OK);
		CHECK(p && strstr(p, "\"finetune\"") && strstr(p, "\"levels\""));
		free(p);
		/* with curl on the machine the examples were answered */
		if (system("command -v curl >/dev/null 2>&1") == 0)
			CHECK_CONTAINS(out, "\"energy_per_step_j\"");
		CHECK_CONTAINS(out, "wattcast serve: stopped");
	}
	free(out);
	free(params);
	free(log);
	free(dir);
	return check_report("test_main_job");
}
