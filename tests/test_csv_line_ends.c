/*
 * A CSV whose lines end CR CR LF (a CRLF file converted to CRLF again)
 * reads like its LF form (docs/formats/runs-table.md): `import mlenergy`
 * kept the second CR in a last column it does not recognise (header
 * "p99_itl_ms\r", values "21.4\r"), and the runs-table reader in an extra
 * last column the same way. CRLF itself already read like LF.
 */
#include "data/data.h"
#include "data/fileio.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static const char *const lines[] = {
	"task,model_id,architecture,total_params_billions,activated_params_billions,weight_precision,"
	"gpu_model,num_gpus,avg_batch_size,avg_power_watts,avg_output_len,energy_per_token_joules,"
	"output_throughput_tokens_per_sec,p99_itl_ms",
	"chat,org/M,MoE,30,3,bfloat16,H100,2,31.5,820,600,0.4,2000,21.43",
	"chat,org/M,MoE,30,3,bfloat16,H100,2,63,900,600,0.3,3000,25.5",
};

/* The three lines joined with `eol` into `path`. */
static void
write_with(const char *path, const char *eol)
{
	char text[2048] = "";
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		strcat(text, lines[i]);
		strcat(text, eol);
	}
	CHECK(write_text(path, text) == 0);
}

/* The imported table without its two comment lines (they name the source). */
static char *
imported(const char *src, const char *out)
{
	run_result r;
	const char *argv[] = { "wattcast", "import", "mlenergy", src, "-o", out, NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *s = NULL;
	size_t n = 0;
	CHECK_INT(wc_read_file(out, 1u << 20, &s, &n, NULL), WC_OK);
	char *body = s ? strstr(s, "\nrun_id") : NULL;
	char *copy = body ? strdup(body) : NULL;
	free(s);
	return copy;
}

int
main(void)
{
	char *dir = test_tmpdir("csv_line_ends");
	char *lf = path_join(dir, "lf.csv"), *crcrlf = path_join(dir, "crcrlf.csv");
	char *out_lf = path_join(dir, "out-lf.csv"), *out_cr = path_join(dir, "out-cr.csv");
	write_with(lf, "\n");
	write_with(crcrlf, "\r\r\n");
	char *a = imported(lf, out_lf), *b = imported(crcrlf, out_cr);
	CHECK(a && b && strcmp(a, b) == 0);
	CHECK(b && strchr(b, '\r') == NULL);
	CHECK_CONTAINS(b, ",p99_itl_ms\n");

	/* The runs-table reader: the extra last column without a CR. */
	const char *runs = "run_id,platform,tp,model,active_params_b,running,mean_power_w,note\r\r\n"
	                   "r1,A100,1,Qwen3-8B,8.19,32,362.5,first\r\r\n";
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read_buffer(runs, strlen(runs), "runs.csv", &t, &err), WC_OK);
	const char *note = t ? wc_runs_get_extra(t, 0, "note") : NULL;
	CHECK(note && strcmp(note, "first") == 0);
	wc_runs_free(t);

	free(a);
	free(b);
	free(lf);
	free(crcrlf);
	free(out_lf);
	free(out_cr);
	free(dir);
	return check_report("test_csv_line_ends");
}
