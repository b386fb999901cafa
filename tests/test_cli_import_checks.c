/*
 * `import` says what it found (docs/cli.md, "import"):
 *  - a zero avg_power_watts is refused at its line and column, with the
 *    field named (it said "8:1: active params, power and batch size must
 *    be positive");
 *  - rows repeated in full are kept with one warning naming their lines
 *    (they were numbered "#2" silently);
 *  - the provenance comment is the whole command, --map included, so it
 *    replays (`import csv` dropped the map);
 *  - a model_id longer than a model name may be (95 bytes) is refused at
 *    its cell naming the limit, as `import csv` refuses it, and so is a
 *    run_id the row makes longer than 95 bytes (both were cut at 95
 *    bytes, two models that differ late became one, "#2");
 *  - --help says what `fit` does with the table's missing idle power: a
 *    board the prior lacks gets P0 estimated from its power limit (the
 *    help said B200's was fitted).
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

static const char me_header[] =
	"task,model_id,architecture,total_params_billions,activated_params_billions,weight_precision,"
	"gpu_model,num_gpus,max_num_seqs,avg_batch_size,avg_output_len,avg_power_watts,"
	"energy_per_token_joules,output_throughput_tokens_per_sec\n";

/* Row `i` of a small table: a distinct configuration per i. */
static void
me_row(char *buf, size_t cap, int i, const char *power)
{
	snprintf(buf, cap, "chat,m%d,Dense,8,8,bfloat16,H100,1,%d,7.9,800,%s,1.0,300\n", i, 8 * (i + 1),
	         power);
}

static char *
table(const char *dir, const char *name, const char *zero_power_row, int dup_rows)
{
	char text[4096], row[256];
	size_t len = (size_t)snprintf(text, sizeof text, "%s", me_header);
	for (int i = 0; i < 6; i++) {
		me_row(row, sizeof row, i, zero_power_row && i == 4 ? zero_power_row : "500");
		len += (size_t)snprintf(text + len, sizeof text - len, "%s", row);
	}
	for (int i = 0; i < dup_rows; i++) { /* copies of rows 1-3 (lines 2-4) */
		me_row(row, sizeof row, i, "500");
		len += (size_t)snprintf(text + len, sizeof text - len, "%s", row);
	}
	/* A repeat with another power is a second measurement: no warning. */
	me_row(row, sizeof row, 5, "510");
	snprintf(text + len, sizeof text - len, "%s", row);
	char *path = path_join(dir, name);
	CHECK(write_text(path, text) == 0);
	return path;
}

int
main(void)
{
	char *dir = test_tmpdir("cli_import_checks");
	char *out = path_join(dir, "runs.csv");
	run_result r;

	/* Zero power on line 6: avg_power_watts starts at column 46. */
	char *zero = table(dir, "m_zero.csv", "0", 0);
	const char *z[] = { "wattcast", "import", "mlenergy", zero, "-o", out, NULL };
	CHECK(run_wattcast(z, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "m_zero.csv:6:46: column 'avg_power_watts': must be positive, got '0'");
	run_result_free(&r);

	/* 99 999 W on one GPU: what fit would refuse is refused here, at the
	 * source's line (it was written with a warning, and fit then named a
	 * line of the converted file). */
	char *huge = table(dir, "m_huge.csv", "99999", 0);
	const char *hv[] = { "wattcast", "import", "mlenergy", huge, "-o", out, NULL };
	remove(out);
	CHECK(run_wattcast(hv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "m_huge.csv:6: run ");
	CHECK_CONTAINS(r.err, "mean_power_w: must be at most 5000 W (5000 W per GPU of its tp 1");
	CHECK(!test_exists(out));
	run_result_free(&r);
	free(huge);

	/* A throughput or an ITL no run measures is refused at the source's
	 * line, as the runs-table reader refuses it (it was written, and fit
	 * capacity dropped -5 tok/s saying "0 skipped" and fitted 1e300). */
	char tput_text[512];
	snprintf(tput_text, sizeof tput_text, "%.*s,median_itl_ms\n"
	         "chat,m0,Dense,8,8,bfloat16,H100,1,8,7.9,800,500,1.0,-5,20\n"
	         "chat,m1,Dense,8,8,bfloat16,H100,1,16,7.9,800,500,1.0,300,abc\n",
	         (int)strlen(me_header) - 1, me_header);
	char *tput = test_fixture(dir, "m_tput.csv", tput_text);
	const char *tv[] = { "wattcast", "import", "mlenergy", tput, "-o", out, NULL };
	remove(out);
	CHECK(run_wattcast(tv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "m_tput.csv:2: run ");
	CHECK_CONTAINS(r.err, "throughput_tok_s: must be >= 0 and at most 1e+07 tokens/s");
	CHECK(!test_exists(out));
	run_result_free(&r);
	snprintf(tput_text, sizeof tput_text, "%.*s,median_itl_ms\n"
	         "chat,m1,Dense,8,8,bfloat16,H100,1,16,7.9,800,500,1.0,300,abc\n",
	         (int)strlen(me_header) - 1, me_header);
	free(tput);
	tput = test_fixture(dir, "m_itl.csv", tput_text);
	const char *iv[] = { "wattcast", "import", "mlenergy", tput, "-o", out, NULL };
	CHECK(run_wattcast(iv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "m_itl.csv:2: run ");
	CHECK_CONTAINS(r.err, "median_itl_ms: expected a number, got 'abc'");
	CHECK(!test_exists(out));
	run_result_free(&r);
	free(tput);

	/* Three rows copied in full, plus one second measurement. */
	char *dup = table(dir, "m_dup.csv", NULL, 3);
	const char *d[] = { "wattcast", "import", "mlenergy", dup, "-o", out, NULL };
	CHECK(run_wattcast(d, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "warning: ");
	CHECK_CONTAINS(r.err, "m_dup.csv: 3 row(s) repeat an earlier row in full "
	                      "(line 8 = line 2, line 9 = line 3, line 10 = line 4)");
	CHECK(!strstr(r.err, "line 11"));
	CHECK_CONTAINS(r.err, "wrote 10 runs");
	run_result_free(&r);
	char *text = test_slurp(out);
	CHECK_CONTAINS(text, "chat|m0|H100|1gpu|seqs8#2");
	free(text);

	/* Names limited in bytes are refused, never cut
	 * (docs/formats/runs-table.md): two 110-byte models that differ
	 * only at the end were written as one model, the second "#2". */
	char long_text[1024], name[128];
	memset(name, 'x', 100);
	name[100] = '\0';
	snprintf(long_text, sizeof long_text, "%schat,org/%s-alpha,Dense,8,8,bfloat16,H100,1,8,7.9,800,500,1.0,300\n"
	         "chat,org/%s-beta,Dense,8,8,bfloat16,H100,1,8,7.9,800,500,1.0,300\n", me_header, name, name);
	char *lng = test_fixture(dir, "m_long.csv", long_text);
	const char *lv[] = { "wattcast", "import", "mlenergy", lng, "-o", out, NULL };
	remove(out);
	CHECK(run_wattcast(lv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "m_long.csv:2:6: column 'model_id': value too long: 110 bytes, at most 95");
	CHECK(!test_exists(out));
	run_result_free(&r);
	free(lng);
	/* An 84-byte name fits, but "chat|<name>|H100|1gpu|seqs8" does not. */
	name[80] = '\0';
	snprintf(long_text, sizeof long_text, "%schat,org/%s,Dense,8,8,bfloat16,H100,1,8,7.9,800,500,1.0,300\n",
	         me_header, name);
	lng = test_fixture(dir, "m_long_id.csv", long_text);
	lv[3] = lng;
	CHECK(run_wattcast(lv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "m_long_id.csv:2:6: column 'model_id': the run_id it makes");
	CHECK_CONTAINS(r.err, "is 105 bytes, at most 95");
	CHECK(!test_exists(out));
	run_result_free(&r);
	free(lng);

	/* No copies, no warning. */
	char *clean = table(dir, "m_clean.csv", NULL, 0);
	const char *c[] = { "wattcast", "import", "mlenergy", clean, "-o", out, NULL };
	CHECK(run_wattcast(c, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK(r.err && !strstr(r.err, "warning"));
	run_result_free(&r);

	/* import csv: the comment is the command with its --map, replayable. */
	char *src = path_join(dir, "bench.csv"), *spaced = path_join(dir, "my runs.csv");
	CHECK(write_text(src, "id,gpu,gpus,name,params,batch,watts\na,H100,1,m,8,8,400\n") == 0);
	const char *map = "id=run_id,gpu=platform,gpus=tp,name=model,params=active_params_b,batch=running,"
	                  "watts=mean_power_w";
	const char *m[] = { "wattcast", "import", "csv", src, "--map", map, "-o", spaced, NULL };
	CHECK(run_wattcast(m, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char want[1024];
	snprintf(want, sizeof want, "# Imported by: wattcast import csv %s --map %s -o '%s'\n", src, map, spaced);
	text = test_slurp(spaced);
	CHECK_CONTAINS(text, want);
	free(text);

	free(zero);
	free(dup);
	free(clean);
	free(src);
	free(spaced);
	free(out);
	free(dir);
	const char *help[] = { "wattcast", "import", "--help", NULL };
	run_result h;
	CHECK(run_wattcast(help, NULL, &h) == 0);
	CHECK_INT(h.status, 0);
	CHECK_CONTAINS(h.out, "estimates it from the board's power limit (B200; source 'estimated')");
	CHECK(h.out && strstr(h.out, "fits it") == NULL);
	run_result_free(&h);
	return check_report("test_cli_import_checks");
}
