/*
 * One RUN_DIR given twice is refused naming the folder as given (cli/
 * run_replay.c), and docs/cli.md quotes those words as the binary prints
 * them for the commands it shows: `runs runs` and `./runs runs/` (two
 * spellings of one folder). The docs quoted the first form alone, read as
 * a fixed "runs:" prefix where the binary prints the path.
 */
#include "tests/support/support.h"
#include "tests/support/synth_folder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* stderr of `wattcast ARGS` run in `dir`, after its "wattcast CMD: " */
static char *
said_in(const char *dir, const char *args, const char *cmd)
{
	char line[4096], prefix[64];
	snprintf(line, sizeof line, "cd '%s' && '%s' %s 2>&1 >/dev/null", dir, test_env("WATTCAST_BIN", "wattcast"),
	         args);
	FILE *p = popen(line, "r");
	size_t n = p ? fread(line, 1, sizeof line - 1, p) : 0;
	line[n] = '\0';
	CHECK(p && pclose(p) != 0);
	line[strcspn(line, "\n")] = '\0';
	snprintf(prefix, sizeof prefix, "wattcast %s: ", cmd);
	CHECK(strncmp(line, prefix, strlen(prefix)) == 0);
	return strdup(strncmp(line, prefix, strlen(prefix)) == 0 ? line + strlen(prefix) : line);
}

static void
quoted_in_docs(const char *dir, const char *args, const char *cmd)
{
	char *msg = said_in(dir, args, cmd), quoted[512];
	snprintf(quoted, sizeof quoted, "`%s`", msg);
	CHECK(test_doc_says("docs/cli.md", quoted));
	free(msg);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_given_twice_docs");
	char *runs = path_join(dir, "runs");
	mkdir(runs, 0755);
	free(synth_run_folder(runs, "r1", "r1", 1784415439.0, 20, 8));
	quoted_in_docs(dir, "ingest runs runs -o t.csv --quiet", "ingest");
	quoted_in_docs(dir, "ingest ./runs runs/ -o t.csv --quiet", "ingest");
	quoted_in_docs(dir, "validate envelope --profile paper runs runs --quiet", "validate envelope");
	quoted_in_docs(dir, "validate envelope --profile paper ./runs runs/ --quiet", "validate envelope");
	free(runs);
	free(dir);
	return check_report("test_cli_given_twice_docs");
}
