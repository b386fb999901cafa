/* Rows of a two-GPU nvidia-smi log (tests/support/nvsmi_rows.h). */
#include "tests/support/nvsmi_rows.h"

#include <stdio.h>
#include <string.h>

const char *const test_nvsmi_uuids[2] = { "GPU-c5d32af0-0857-3b36-6541-1a688a9ec165",
                                                "GPU-e2681f6e-8d94-2d66-484f-43ea602335f9" };
static const char *const headers[NVSMI_FORMS] = { "timestamp, index, uuid, power.draw [W]\n",
                                                  "timestamp, uuid, power.draw [W]\n",
                                                  "timestamp, power.draw [W]\n",
                                                  "timestamp, index, power.draw [W]\n" };

const char *
test_nvsmi_header(int form)
{
	return headers[form];
}

void
test_nvsmi_row(char *text, size_t cap, int form, int k, int g, double shift)
{
	double at = 3600.0 * 15 + 0.1 * k + 0.002 * g + shift;
	int s = (int)(at + 1e-9), ms = (int)((at - s) * 1000.0 + 0.5);
	char key[64] = "";
	if (form == NVSMI_BOTH)
		snprintf(key, sizeof key, " %d, %s,", g, test_nvsmi_uuids[g]);
	else if (form == NVSMI_UUID_ONLY)
		snprintf(key, sizeof key, " %s,", test_nvsmi_uuids[g]);
	else if (form == NVSMI_INDEX_ONLY)
		snprintf(key, sizeof key, " %d,", g);
	snprintf(text + strlen(text), cap - strlen(text), "2026/07/18 %02d:%02d:%02d.%03d,%s %d.00 W\n",
	         s / 3600 % 24, s / 60 % 60, s % 60, ms, key, 100 * (g + 1));
}
