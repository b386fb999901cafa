/* Must NOT compile: fit/ never serves (docs/architecture.md, "Data
 * flow"), so the server's header is not visible to it
 * (tests/CMakeLists.txt). */
#include "server/server.h"

int layering_probe_fit_serves(void);
int layering_probe_fit_serves(void) { return 0; }
