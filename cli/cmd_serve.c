/* wattcast serve: placeholder until its issue lands. */
#include "cli/cli.h"

int
cli_cmd_serve(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("serve", "not available in this build yet");
}
