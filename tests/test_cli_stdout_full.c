/*
 * An answer on stdout that cannot be written is exit 1, saying so on
 * stderr (`wattcast CMD: stdout: write failed (...)`), as a failed -o,
 * --csv or --svg file is (docs/cli.md, "Conventions"): every command
 * exited 0 with its stdout on /dev/full, a script's `> answer.json` on a
 * full disk getting an empty file. A stdout closed before the start that
 * nothing is written to stays no failure.
 */
#include "tests/support/support.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run `argv` with stdout on /dev/full (or closed when `closed`); stderr
 * read back into `err` (malloc'd); the exit status. */
static int
run_full(const char *const *argv, int closed, char **err)
{
	char *dir = test_tmpdir("stdout_full");
	char *path = path_join(dir, "stderr.txt");
	pid_t pid = fork();
	if (pid == 0) {
		int e = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(e, 2);
		close(e);
		if (closed) {
			close(1);
		} else {
			int o = open("/dev/full", O_WRONLY);
			dup2(o, 1);
			close(o);
		}
		size_t n = 0;
		while (argv[n])
			n++;
		char **args = calloc(n + 1, sizeof *args);
		args[0] = (char *)test_env("WATTCAST_BIN", "wattcast");
		for (size_t i = 1; i < n; i++)
			args[i] = (char *)argv[i];
		execv(args[0], args);
		_exit(127);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	*err = test_slurp(path);
	free(path);
	free(dir);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
refused(const char *const *argv, const char *cmd)
{
	char *err = NULL;
	CHECK_INT(run_full(argv, 0, &err), 1);
	char want[96];
	snprintf(want, sizeof want, "%s: stdout: write failed (No space left on device)", cmd);
	CHECK_CONTAINS(err, want);
	free(err);
}

int
main(void)
{
	if (access("/dev/full", W_OK) != 0) {
		fprintf(stderr, "test_cli_stdout_full: skipped: no writable /dev/full\n");
		return TEST_SKIP;
	}
	const char *inf[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		              "--concurrency", "8", "--json", NULL };
	refused(inf, "wattcast predict");
	const char *flex[] = { "wattcast", "predict", "flexibility", "--platform", "H100", "--model", "Qwen3-8B",
		               "--concurrency", "8", "--input-tokens", "500", "--output-tokens", "100", NULL };
	refused(flex, "wattcast predict");
	const char *models[] = { "wattcast", "models", NULL };
	refused(models, "wattcast models");
	const char *version[] = { "wattcast", "--version", NULL };
	refused(version, "wattcast");

	/* nothing written to a closed stdout: the usage error's own exit 2
	 * and message, no word about stdout */
	const char *bad[] = { "wattcast", "predict", "inference", "--platform", "H100", NULL };
	char *err = NULL;
	CHECK_INT(run_full(bad, 1, &err), 2);
	CHECK(strstr(err, "stdout") == NULL);
	free(err);
	return check_report("test_cli_stdout_full");
}
