/* wattcast fit: placeholder until its issue lands. */
#include "cli/cli.h"

int
cli_cmd_fit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("fit", "not available in this build yet");
}
