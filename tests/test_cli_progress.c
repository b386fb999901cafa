/* Progress on long work (docs/cli.md, "Progress"): a terminal sees the
 * bootstrap's count reach its total; --quiet, or stderr that is not a
 * terminal, sees none; the file written is the same either way; Ctrl-C
 * during the work leaves neither the file nor a temporary. The terminal is
 * a pseudo-terminal from util-linux's `script`. */
#include "tests/support/support.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *
under_pty(const char *args)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "SOURCE_DATE_EPOCH=1700000000 script -qec \"%s %s\" /dev/null 2>&1",
	         test_env("WATTCAST_BIN", "wattcast"), args);
	FILE *p = popen(cmd, "r");
	char *text = calloc(1, 1 << 20);
	size_t n = p ? fread(text, 1, (1 << 20) - 1, p) : 0;
	text[n] = '\0';
	if (p)
		pclose(p);
	return text;
}

static int
temporaries_in(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));)
		n += strstr(e->d_name, ".tmp.") != NULL;
	if (d)
		closedir(d);
	return n;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_progress");
	char *table = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	char *a = path_join(dir, "a.json"), *b = path_join(dir, "b.json"), args[4096];

	snprintf(args, sizeof args, "fit inference %s -o %s --bootstrap 400 --seed 3 --threads 2", table, a);
	char *out = under_pty(args);
	CHECK_CONTAINS(out, "bootstrap draws: 400/400 (100 %)");
	free(out);
	snprintf(args, sizeof args, "--quiet fit inference %s -o %s --bootstrap 400 --seed 3 --threads 2", table, b);
	out = under_pty(args);
	CHECK(out && strstr(out, "bootstrap draws:") == NULL);
	CHECK_CONTAINS(out, "wrote");
	free(out);
	char *fa = test_slurp(a), *fb = test_slurp(b);
	CHECK(fa && fb && strcmp(fa, fb) == 0); /* progress never changes a result */
	free(fa);
	free(fb);

	/* Not a terminal: nothing on stderr about progress. */
	run_result rr;
	const char *fit[] = { "wattcast", "fit", "inference", table, "-o", b, "--bootstrap", "100", NULL };
	CHECK(run_wattcast(fit, NULL, &rr) == 0 && rr.status == 0);
	CHECK(rr.err && strstr(rr.err, "bootstrap draws:") == NULL);
	run_result_free(&rr);

	/* Ctrl-C in the middle of a long bootstrap (100 000 draws: within
	 * what a parameter file holds, so it is not refused up front). */
	char *c = path_join(dir, "c.json");
	pid_t pid = fork();
	if (pid == 0) {
		const char *bin = test_env("WATTCAST_BIN", "wattcast");
		freopen("/dev/null", "w", stderr);
		freopen("/dev/null", "w", stdout);
		execl(bin, bin, "fit", "inference", table, "-o", c, "--bootstrap", "100000", "--threads", "1",
		      (char *)NULL);
		_exit(127);
	}
	struct timespec pause = { 0, 700000000 };
	nanosleep(&pause, NULL);
	kill(pid, SIGINT);
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
	struct stat st;
	CHECK(stat(c, &st) != 0);
	CHECK_INT(temporaries_in(dir), 0);

	free(c);
	free(a);
	free(b);
	free(table);
	free(dir);
	return check_report("cli_progress");
}
