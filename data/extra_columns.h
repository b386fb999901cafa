/*
 * Columns a table does not know, kept verbatim so that rewriting a table
 * loses nothing (docs/formats/runs-table.md, "Columns"). The runs table
 * and the fine-tuning runs table each own one; their wc_*_set_extra and
 * wc_*_get_extra functions change and read it.
 */
#ifndef WC_DATA_EXTRA_COLUMNS_H
#define WC_DATA_EXTRA_COLUMNS_H

#include <stddef.h>

typedef struct {
	size_t n;            /* columns */
	char **names;        /* n names (malloc'd, owned) */
	char **values;       /* one row of n values per table row, row-major;
	                        NULL = blank (each malloc'd, owned) */
	size_t cap_values;   /* capacity of values, in values */
} wc_extra_columns;

#endif
