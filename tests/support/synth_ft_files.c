/* The files of a synthetic fine-tuning run folder (synth_ft_files.h). */
#include "tests/support/synth_ft_files.h"

#include <math.h>
#include <stdlib.h>

#include "tests/support/check.h"
#include "tests/support/support.h"

void
synth_ft_nvsmi_row(FILE *f, double s, int g, double w)
{
	long long ms = (long long)llround(1000 * s);
	fprintf(f, "2026/12/01 %02lld:%02lld:%02lld.%03lld, %d, GPU-%08d-1111-2222-3333-444455556666, "
	        "NVIDIA H100 80GB HBM3, %.2f W\n", 10 + ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000, g, g, w);
}

void
synth_ft_manifest_write(const char *run, int gpus, int grad_accum)
{
	char *m = path_join(run, "wattcast-run.json"), text[512];
	snprintf(text, sizeof text,
	         "{\"schema\": \"wattcast.run/3\", \"platform\": \"H100\", \"model\": \"Llama-3.1-8B\",\n"
	         " \"utc_offset_s\": 0, \"finetune\": {\"method\": \"lora\", \"micro_batch\": 4,\n"
	         " \"seq_len\": 2048, \"grad_accum\": %d, \"gpus\": %d, \"lora_rank\": 16,\n"
	         " \"checkpointing\": false}}\n", grad_accum, gpus);
	CHECK_INT(write_text(m, text), 0);
	free(m);
}
