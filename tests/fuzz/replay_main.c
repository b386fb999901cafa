/*
 * The driver of the fuzz harnesses on the normal build (no libFuzzer):
 * runs LLVMFuzzerTestOneInput over every file named on the command line
 * or found in a named folder, as libFuzzer would when replaying a corpus.
 * ctest runs it over tests/fuzz/regressions/<parser>/ and the seed corpus
 * tests/fuzz/seeds/<parser>/: an input that crashed once must not crash
 * again, and a parser without regressions still replays its seeds (a run
 * that replays no input at all fails). Each input gets a CPU-time bound
 * (SIGXCPU ends the run), so a hang found once fails instead of stalling.
 *
 * With --seeds, the folders that follow hold the harness's seed corpus
 * (tests/fuzz/seeds/<parser>/): every seed must parse (the harness sets
 * wc_fuzz_parsed), and the corpus must not be empty, so a fuzzer cannot
 * again start from seeds its parser refuses (test_fuzz_seeds_<parser>).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
extern int wc_fuzz_parsed;

/* --seeds: each input must parse. */
static int must_parse;

#define INPUT_CPU_BOUND_S 60

static int
replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 1 << 16, len = 0, got;
	uint8_t *buf = malloc(cap);
	while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	/* The bound counts from now: CPU already used plus the budget. */
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	struct rlimit rl;
	rl.rlim_cur = (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec + INPUT_CPU_BOUND_S;
	rl.rlim_max = RLIM_INFINITY;
	setrlimit(RLIMIT_CPU, &rl);
	/* libFuzzer hands over a copy of exactly `len` bytes. */
	uint8_t *copy = malloc(len ? len : 1);
	if (len)
		memcpy(copy, buf, len);
	free(buf);
	printf("replay %s (%zu bytes)\n", path, len);
	fflush(stdout);
	wc_fuzz_parsed = 0;
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	if (must_parse && !wc_fuzz_parsed) {
		fprintf(stderr, "%s: the seed does not parse (%zu bytes): fix or remove it\n", path, len);
		return -1;
	}
	return 0;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
replay_folder(const char *dir, int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int rc = 0;
	if (!d) {
		perror(dir);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof *names);
		if (!nn)
			break;
		names = nn;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			rc |= replay_file(path);
			++*count;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	int count = 0, rc = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (strcmp(argv[i], "--seeds") == 0) {
			must_parse = 1;
			continue;
		}
		if (stat(argv[i], &st) != 0) {
			/* A parser without regressions yet has no folder. */
			printf("%s: no such folder; nothing to replay\n", argv[i]);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			rc |= replay_folder(argv[i], &count);
		} else {
			rc |= replay_file(argv[i]);
			count++;
		}
	}
	printf("%d inputs replayed without a finding\n", count);
	if (must_parse && count == 0) {
		fprintf(stderr, "no seeds: every harness needs a non-empty seed corpus\n");
		return 1;
	}
	/* A replay of nothing proves nothing: it must not pass. */
	if (count == 0) {
		fprintf(stderr, "no inputs: nothing was replayed\n");
		return 1;
	}
	return rc ? 1 : 0;
}
