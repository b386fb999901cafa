/*
 * The GPU's product name from an nvidia-smi CSV (docs/formats/telemetry.md):
 * what ingest maps to the platform catalog when no manifest names the
 * platform (models/catalog.h matches nvidia-smi's spellings).
 */
#include "data/nvsmi.h"
#include "data/fileio.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Field `k` of a comma-separated line, trimmed, into buf; 0 when absent. */
static int
field(const char *line, int k, char *buf, size_t cap)
{
	const char *s = line;
	for (int i = 0; i < k; i++) {
		s = strchr(s, ',');
		if (!s)
			return 0;
		s++;
	}
	const char *e = s + strcspn(s, ",\r\n");
	while (s < e && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	snprintf(buf, cap, "%.*s", (int)(e - s), s);
	return 1;
}

int
wc_nvsmi_product_name(const char *path, char *buf, size_t cap)
{
	char *head = NULL, *line = NULL;
	size_t hcap = 0, lcap = 0;
	int rc = WC_ENOTFOUND;
	FILE *f = wc_open_input(path, NULL);
	if (!f)
		return WC_ENOTFOUND;
	if (getline(&head, &hcap, f) > 0 && getline(&line, &lcap, f) > 0) {
		char name[64];
		/* the header's "name" column (units never follow it) */
		for (int k = 0; rc != WC_OK && field(head, k, name, sizeof name); k++)
			if (strcasecmp(name, "name") == 0 && field(line, k, buf, cap) && buf[0])
				rc = WC_OK;
	}
	free(head);
	free(line);
	fclose(f);
	return rc;
}
