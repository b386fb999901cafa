/* Must NOT compile: models/ knows no files (docs/architecture.md, "Data
 * flow"), so data's headers are not visible to it (tests/CMakeLists.txt). */
#include "data/data.h"

int layering_probe_models_files(void);
int layering_probe_models_files(void) { return 0; }
