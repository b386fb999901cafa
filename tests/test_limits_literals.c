/*
 * The limits more than one place enforces live in models/limits.h
 * (docs/architecture.md, "Limits"): the CLI, the HTTP routes, the readers
 * and models/ take them from there, and their messages print the constant,
 * so raising one cannot leave a copy -- a bound or the number a message
 * quotes -- behind. Each file below once wrote its bound as a literal
 * (tp 4096 in code and messages, architecture integers 10^6, the fine-tuning shape 10^5 / 10^7 /
 * 10^6, params_b 1e5, GPUs 65536, a parameter file's draws 10^6); the code
 * of each, comments aside, must not hold those numbers again.
 */
#include "models/law.h"
#include "models/limits.h"
#include "server/server.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The text with its comments blanked (strings kept: a message's number is
 * a copy too). */
static void
strip_comments(char *s)
{
	int in_str = 0;
	for (char *p = s; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = 0;
		} else if (*p == '"') {
			in_str = 1;
		} else if (p[0] == '/' && p[1] == '*') {
			char *end = strstr(p + 2, "*/");
			char *stop = end ? end + 2 : p + strlen(p);
			memset(p, ' ', (size_t)(stop - p));
			p = stop - 1;
		} else if (p[0] == '/' && p[1] == '/') {
			while (*p && *p != '\n')
				*p++ = ' ';
			p--;
		}
	}
}

/* `number` as a whole token of `code` (not inside a longer number or name). */
static int
holds_number(const char *code, const char *number)
{
	size_t n = strlen(number);
	for (const char *p = strstr(code, number); p; p = strstr(p + 1, number)) {
		int before = p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '.' || p[-1] == '_');
		int after = isalnum((unsigned char)p[n]) || p[n] == '.' || p[n] == '_';
		if (!before && !after)
			return 1;
	}
	return 0;
}

static void
no_literals(const char *file, const char *const *numbers)
{
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), file);
	char *code = test_slurp(path);
	CHECK(code != NULL);
	if (code) {
		strip_comments(code);
		for (size_t i = 0; numbers[i]; i++)
			if (holds_number(code, numbers[i])) {
				fprintf(stderr, "%s: the literal %s, where models/limits.h has the bound\n", file,
				        numbers[i]);
				CHECK(0);
			}
	}
	free(code);
	free(path);
}

int
main(void)
{
	static const char *const tp_arch[] = { "4096", "1000000", NULL };
	static const char *const ft_shape[] = { "100000", "10000000", "1000000", NULL };
	static const char *const ft_check[] = { "1e5", "100000", "10000000", "1000000", "65536", NULL };
	static const char *const draws[] = { "1000000 draws", "4096 names", NULL };
	no_literals("server/request.c", tp_arch);
	no_literals("cli/cmd_predict.c", tp_arch);
	no_literals("data/periods.c", tp_arch);
	no_literals("cli/cmd_predict_finetune.c", ft_shape);
	no_literals("cli/cmd_ingest_finetune.c", ft_shape);
	no_literals("server/request_finetune.c", ft_shape);
	no_literals("data/run_manifest.c", ft_shape);
	no_literals("models/finetune.c", ft_check);
	/* The draws' message names the bound; 4096 is the reader's own. */
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "data/params_read.c");
	char *code = test_slurp(path);
	CHECK(code != NULL);
	for (size_t i = 0; code && draws[i]; i++)
		CHECK(strstr(code, draws[i]) == NULL);
	free(code);
	free(path);
	/* The values the messages and docs/architecture.md quote. */
	CHECK_INT(WC_LAW_MAX_TP, 4096);
	CHECK_INT(WC_MODEL_MAX_ARCH_INT, 1000000);
	CHECK_INT(WC_FT_MAX_LAYERS, 100000);
	CHECK_INT(WC_FT_MAX_HEADS, 100000);
	CHECK_INT(WC_FT_MAX_D_MODEL, 10000000);
	CHECK_INT(WC_FT_MAX_LORA_RANK, 1000000);
	CHECK_INT(WC_SERVER_CALIBRATE_MAX_RUNS, 1000);
	return check_report("test_limits_literals");
}
