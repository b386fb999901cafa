/* wattcast validate: placeholder until its issue lands. */
#include "cli/cli.h"

int
cli_cmd_validate(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("validate", "not available in this build yet");
}
