/* The OpenAPI document passes Redocly's recommended ruleset with no error
 * and no warning (docs/http-api.md). Redocly CLI comes from npm: the test
 * command installs it into build/tools (cli/bootstrap.sh); without it the
 * test is skipped with a message. A copy with the security declaration
 * removed must fail, so the lint is known to bite. */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int
lint(const char *redocly, const char *file, char *out, size_t cap)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd,
	         "REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true '%s' lint --extends recommended "
	         "--format=summary '%s' 2>&1",
	         redocly, file);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t n = fread(out, 1, cap - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int
main(void)
{
	const char *src = test_env("WC_SOURCE_DIR", ".");
	char redocly[2048], doc[2048];
	const char *env = getenv("WC_REDOCLY");
	snprintf(redocly, sizeof redocly, "%s", env && *env ? env : "");
	if (!redocly[0])
		snprintf(redocly, sizeof redocly, "%s/build/tools/node_modules/.bin/redocly", src);
	if (access(redocly, X_OK) != 0) {
		printf("SKIP: Redocly CLI not found at %s (sh cli/bootstrap.sh test installs it from npm)\n",
		       redocly);
		return TEST_SKIP;
	}
	snprintf(doc, sizeof doc, "%s/server/openapi.json", src);
	static char out[1 << 16];
	int rc = lint(redocly, doc, out, sizeof out);
	/* Summary lines are "error RULE: N" / "warning RULE: N"; Node's own
	 * deprecation banner also says "warning", so only those lines count. */
	int problems = strstr(out, "\nwarning ") != NULL || strstr(out, "\nerror ") != NULL ||
	               strstr(out, " warnings") != NULL;
	if (rc != 0 || problems)
		fprintf(stderr, "%s\n", out);
	CHECK_INT(rc, 0);
	CHECK(!problems);
	CHECK_CONTAINS(out, "is valid");

	/* The same document without its security declaration. */
	char *tmp = test_tmpdir("openapi_lint"), broken[2300], cmd[4700];
	snprintf(broken, sizeof broken, "%s/openapi.json", tmp);
	snprintf(cmd, sizeof cmd, "grep -v '^  \"security\": \\[\\],$' '%s' > '%s'", doc, broken);
	CHECK_INT(system(cmd), 0);
	rc = lint(redocly, broken, out, sizeof out);
	CHECK(rc != 0);
	CHECK_CONTAINS(out, "security-defined");
	free(tmp);
	return check_report("openapi_lint");
}
