/* wattcast import: placeholder until its issue lands. */
#include "cli/cli.h"

int
cli_cmd_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("import", "not available in this build yet");
}
