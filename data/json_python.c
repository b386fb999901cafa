/*
 * JSON as Python writes it. json.dump's default (allow_nan=True) writes a
 * float nan or inf as the bare tokens NaN, Infinity and -Infinity, which
 * JSON has no room for and jansson refuses; real files carry them: a
 * Hugging Face trainer_state.json after an fp16 overflow ("grad_norm":
 * NaN), vLLM's benchmark result when a statistic had no requests. Such a
 * token, where a value stands, reads as null (the value is unknown), and
 * jansson parses the rest (docs/formats/telemetry.md).
 */
#include "json_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tokens[] = { "-Infinity", "Infinity", "NaN" };

/* The length of a non-finite token at p, where a value may start, else 0. */
static size_t
token_at(const char *p, const char *end)
{
	for (size_t k = 0; k < sizeof tokens / sizeof *tokens; k++) {
		size_t n = strlen(tokens[k]);
		if ((size_t)(end - p) >= n && memcmp(p, tokens[k], n) == 0 &&
		    (p + n == end || !(p[n] == '_' || (p[n] >= '0' && p[n] <= '9') ||
		                       ((p[n] | 0x20) >= 'a' && (p[n] | 0x20) <= 'z'))))
			return n;
	}
	return 0;
}

/* One "null" of the copy in place of a token of n bytes: the copy is
 * longer by 4 - n bytes on its line from `col` on (1-based, jansson's). */
typedef struct {
	int line, col, grow;
} shift;

json_t *
wc__json_load_python(const char *buf, size_t len, size_t flags, json_error_t *jerr, size_t *replaced)
{
	/* "NaN" grows by one byte into "null": at most len / 3 more. */
	char *copy = calloc(len + len / 3 + 1, 1);
	shift *sh = NULL;
	size_t n_sh = 0, cap_sh = 0, o = 0;
	int line = 1, col = 1, in_str = 0, esc = 0;
	char prev = 0; /* the last byte outside a string and blanks */
	json_t *root = NULL;
	*replaced = 0;
	if (!copy) {
		memset(jerr, 0, sizeof *jerr);
		snprintf(jerr->text, sizeof jerr->text, "out of memory");
		return NULL;
	}
	for (const char *p = buf, *end = buf + len; p < end;) {
		size_t n;
		if (!in_str && (prev == ':' || prev == '[' || prev == ',' || prev == 0) &&
		    (n = token_at(p, end)) > 0) {
			if (n_sh == cap_sh) {
				size_t c = cap_sh ? 2 * cap_sh : 16;
				shift *g = realloc(sh, c * sizeof *g);
				if (!g) {
					free(sh);
					free(copy);
					memset(jerr, 0, sizeof *jerr);
					snprintf(jerr->text, sizeof jerr->text, "out of memory");
					return NULL;
				}
				sh = g;
				cap_sh = c;
			}
			sh[n_sh++] = (shift){ line, col, 4 - (int)n };
			memcpy(copy + o, "null", 4);
			o += 4;
			p += n;
			col += (int)n;
			prev = 'l';
			(*replaced)++;
			continue;
		}
		char c = *p++;
		copy[o++] = c;
		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
			prev = '"';
		} else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
			prev = c;
		}
		if (c == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)c & 0xC0) != 0x80) {
			col++; /* jansson counts characters, not UTF-8 continuation bytes */
		}
	}
	root = json_loadb(copy, o, flags, jerr);
	const char *near = root ? NULL : strstr(jerr->text, "near '");
	if (near && json_error_code(jerr) == json_error_end_of_input_expected && (near[6] == '{' || near[6] == '[')) {
		/* Appended runs, one document a line (SGLang's bench_serving
		 * --output-file): say that, not what the grammar expects. The
		 * text's last byte keeps the code. */
		snprintf(jerr->text, sizeof jerr->text - 1, "a second JSON document begins here (several, one "
		         "per line: appended runs?); keep one per file");
	}
	if (!root) {
		/* Report the column of the file, not of the copy. */
		int back = 0;
		for (size_t i = 0; i < n_sh; i++)
			if (sh[i].line == jerr->line && sh[i].col + back + 4 <= jerr->column)
				back += sh[i].grow;
		jerr->column -= back;
	}
	free(sh);
	free(copy);
	return root;
}
