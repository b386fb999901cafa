/*
 * The extra columns of a table (data/extra_columns.h): a list of names and
 * a row-major matrix of optional strings that grows with the table's rows
 * and, when a column is added, is laid out again with the new column blank.
 */
#include "data_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models/grow.h"

void
wc__extra_clear(wc_extra_columns *x, size_t rows)
{
	for (size_t i = 0; i < rows * x->n; i++)
		free(x->values[i]);
	for (size_t j = 0; j < x->n; j++)
		free(x->names[j]);
	free(x->values);
	free(x->names);
	memset(x, 0, sizeof *x);
}

long
wc__extra_index(const wc_extra_columns *x, const char *name)
{
	for (size_t j = 0; j < x->n; j++)
		if (strcmp(x->names[j], name) == 0)
			return (long)j;
	return -1;
}

int
wc__extra_add(wc_extra_columns *x, size_t rows, const char *name)
{
	size_t k = x->n, cells = 0;
	int ok = k < SIZE_MAX;
	if (ok)
		cells = wc_size_mul(rows, k + 1, &ok);
	char *copy = strdup(name);
	char **names = ok ? wc_alloc_array(k + 1, sizeof *names) : NULL;
	char **values = ok && cells ? wc_alloc_zeroed(cells, sizeof *values) : NULL;
	if (!copy || !names || (cells && !values)) {
		free(copy);
		free(names);
		free(values);
		return WC_ENOMEM;
	}
	for (size_t r = 0; r < rows; r++)
		for (size_t j = 0; j < k; j++)
			values[r * (k + 1) + j] = x->values[r * k + j];
	if (k)
		memcpy(names, x->names, k * sizeof *names);
	free(x->names);
	free(x->values);
	x->names = names;
	x->values = values;
	x->cap_values = cells;
	x->names[k] = copy;
	x->n = k + 1;
	return WC_OK;
}

int
wc__extra_add_row(wc_extra_columns *x, size_t rows)
{
	if (x->n == 0)
		return WC_OK;
	int ok = 1;
	size_t cells = wc_size_mul(rows + 1, x->n, &ok);
	char **nv = ok ? wc_grow(x->values, &x->cap_values, cells, sizeof *nv, 64) : NULL;
	if (!nv)
		return WC_ENOMEM;
	x->values = nv;
	for (size_t j = 0; j < x->n; j++)
		x->values[rows * x->n + j] = NULL;
	return WC_OK;
}

int
wc__extra_put(wc_extra_columns *x, size_t row, size_t j, const char *value)
{
	char *copy = strdup(value ? value : "");
	if (!copy)
		return WC_ENOMEM;
	char **slot = &x->values[row * x->n + j];
	free(*slot);
	*slot = copy;
	return WC_OK;
}

int
wc__extra_set(wc_extra_columns *x, size_t rows, size_t row, const char *name, const char *value)
{
	long j = wc__extra_index(x, name);
	int rc;
	if (j < 0) {
		if ((rc = wc__extra_add(x, rows, name)) != WC_OK)
			return rc;
		j = (long)x->n - 1;
	}
	return wc__extra_put(x, row, (size_t)j, value);
}

const char *
wc__extra_get(const wc_extra_columns *x, size_t rows, size_t row, const char *name)
{
	long j = wc__extra_index(x, name);
	if (j < 0 || row >= rows)
		return NULL;
	const char *v = x->values[row * x->n + (size_t)j];
	return v ? v : "";
}

void
wc__extra_write_names(FILE *f, const wc_extra_columns *x)
{
	for (size_t j = 0; j < x->n; j++) {
		fputc(',', f);
		wc__csv_put(f, x->names[j]);
	}
}

void
wc__extra_write_row(FILE *f, const wc_extra_columns *x, size_t row)
{
	for (size_t j = 0; j < x->n; j++) {
		const char *v = x->values[row * x->n + j];
		fputc(',', f);
		wc__csv_put(f, v ? v : "");
	}
}
