/* Must NOT compile: fit/ depends on data/, but only on its public headers;
 * data's private helpers stay inside data/ (tests/CMakeLists.txt). */
#include "data/data_internal.h"

int layering_probe_internal(void);
int layering_probe_internal(void) { return 0; }
