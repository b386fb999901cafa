/*
 * validation/ -- held-out reports composed of fit + predict, and the
 * synthetic runs tables they are checked on (docs/validation.md):
 *   validation/simulate.h   runs tables drawn from a known law
 *   validation/forms.h      candidate forms scored by held-out tests
 *   validation/precision.h  precision terms from paired runs
 *   validation/accuracy.h   frozen-law accuracy per set; leave one model out
 *   validation/finetune_validate.h   the fine-tuning law: level-held-out accuracy, simulation
 *   validation/fewshot.h    calibration on k runs of each model or platform
 *   validation/capacity_validate.h   held-out throughput, energy per token and periods
 *   validation/envelope_validate.h   trace envelopes replayed on measured runs
 */
#ifndef WC_VALIDATION_H
#define WC_VALIDATION_H

#include "validation/accuracy.h"
#include "validation/finetune_validate.h"
#include "validation/fewshot.h"
#include "validation/capacity_validate.h"
#include "validation/envelope_validate.h"
#include "validation/forms.h"
#include "validation/intervals.h"
#include "validation/precision.h"
#include "validation/simulate.h"

#endif
