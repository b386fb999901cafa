/* wattcast metrics: placeholder until its issue lands. */
#include "cli/cli.h"

int
cli_cmd_metrics(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("metrics", "not available in this build yet");
}
