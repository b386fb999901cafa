/* wattcast ingest: placeholder until its issue lands. */
#include "cli/cli.h"

int
cli_cmd_ingest(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail("ingest", "not available in this build yet");
}
