/* fit/ — placeholder; the fitting engine lands with issue 3. */
#ifndef WC_FIT_H
#define WC_FIT_H
#include "models/models.h"
#endif
