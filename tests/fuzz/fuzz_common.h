/*
 * Shared by the fuzz harnesses (tests/fuzz/fuzz_*.c): each defines
 * LLVMFuzzerTestOneInput(data, size) and feeds the bytes to one parser
 * through the same entry point users reach. Built two ways
 * (tests/fuzz/CMakeLists.txt): with libFuzzer (clang, -DWC_FUZZ=ON,
 * bench/fuzz.sh) to search, and with tests/fuzz/replay_main.c on the
 * normal build, where ctest replays every input kept under
 * tests/fuzz/regressions/<parser>/.
 *
 * Readers that take a path get the bytes as a file in a private folder
 * under /dev/shm (or $TMPDIR), made once per process and removed at exit.
 * A harness states what must hold for every input it accepts; a broken
 * invariant is a finding (abort), like a crash or a sanitizer report.
 */
#ifndef WC_FUZZ_COMMON_H
#define WC_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[256];

static inline void
fuzz_cleanup(void)
{
	char cmd[300];
	if (fuzz_dir[0]) {
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz: could not remove %s\n", fuzz_dir);
	}
}

/* The private folder (created on first use). */
static inline const char *
fuzz_folder(void)
{
	if (!fuzz_dir[0]) {
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof fuzz_dir, "%s/wattcast-fuzz.XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(fuzz_dir)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(fuzz_cleanup);
	}
	return fuzz_dir;
}

/* Write `size` bytes to `name` in the private folder; returns its path
 * (static buffer per call site is not needed: callers copy if they keep
 * two). */
static inline const char *
fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", fuzz_folder(), name);
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
		perror("fuzz: write");
		abort();
	}
	return path;
}

/* Set by a harness when its parser accepted the input. The seed replay
 * (replay_main.c --seeds, test_fuzz_seeds_<parser>) fails a seed that
 * does not parse: a seed cut short or out of date would otherwise keep
 * the fuzzer in the parser's first lines. One harness per executable
 * includes this header, so the definition is unique. */
extern int wc_fuzz_parsed;
int wc_fuzz_parsed;
#define FUZZ_PARSED() (wc_fuzz_parsed = 1)

/* A broken invariant: report it like a crash. */
/* A refusal's message is one printable line (docs/architecture.md, "Errors"). */
#define FUZZ_ONE_LINE(msg)                                                                   \
	do {                                                                                 \
		for (const char *fuzz_c = (msg); *fuzz_c; fuzz_c++)                          \
			FUZZ_ASSERT((unsigned char)*fuzz_c >= 0x20 && *fuzz_c != 0x7f);      \
	} while (0)

#define FUZZ_ASSERT(cond)                                                                    \
	do {                                                                                 \
		if (!(cond)) {                                                               \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                             \
		}                                                                            \
	} while (0)

/* Does the input name a device or kernel file? Readers that follow paths
 * (n(t) series of a runs table) would then read /dev/zero or /dev/stdin:
 * legitimate for a user, useless (and blocking) for a search. */
static inline int
fuzz_names_device(const uint8_t *data, size_t size)
{
	static const char *const bad[] = { "/dev", "/proc", "/sys", NULL };
	for (const char *const *b = bad; *b; b++) {
		size_t k = strlen(*b);
		for (size_t i = 0; i + k <= size; i++)
			if (memcmp(data + i, *b, k) == 0)
				return 1;
	}
	return 0;
}

#endif
