/*
 * models/ -- what both sides of wattcast share, one topic per header:
 *   models/error.h    status codes and the wc_error detail
 *   models/pcg32.h    the PCG32 random generator (explicit seeds, streams)
 *   models/grow.h     overflow-checked growth of dynamic arrays
 *   models/strmap.h   a string -> int hash map
 *   models/law.h      the inference law's forms, inputs and kernel
 *   models/scalar.h   one parameter value with its interval and source
 *   models/params.h   parameter sets (frozen laws) and their named view
 *   models/evaluate.h evaluating a set: one law for the point and every draw
 *   models/catalog.h  platform and model facts
 *   models/draws.h    bootstrap draw matrices of the separately fitted sections
 *   models/interval.h 95 % intervals: from draws, and the law's held-out error
 *   models/capacity_model.h the capacity model (step times, memory) and its section
 *   models/finetune_law.h the fine-tuning law's section of a parameter set
 *   models/response.h how power follows load in time: its section and kernel
 *   models/parallel.h running a set of jobs on threads
 * Nothing here needs a library beyond libc (POSIX threads included) and libm; every function is
 * reentrant and keeps no global state. Units: W, J, s, billions of
 * parameters (B), MHz; log is the natural log.
 */
#ifndef WC_MODELS_H
#define WC_MODELS_H

#include "models/capacity_model.h"
#include "models/catalog.h"
#include "models/draws.h"
#include "models/finetune_law.h"
#include "models/error.h"
#include "models/evaluate.h"
#include "models/grow.h"
#include "models/interval.h"
#include "models/law.h"
#include "models/parallel.h"
#include "models/params.h"
#include "models/pcg32.h"
#include "models/scalar.h"
#include "models/strmap.h"
#include "models/response.h"

#endif
