/* validation/ — placeholder; held-out reports land with issue 3. */
#ifndef WC_VALIDATION_H
#define WC_VALIDATION_H
#include "models/models.h"
#endif
