/* wattcast simulate: placeholder until its issue lands. */
#include "cli/cli.h"

int
cli_cmd_simulate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("simulate", "not available in this build yet");
}
