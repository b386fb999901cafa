/*
 * `wattcast envelope --svg`: the time axis is the horizon's and each tick
 * label reads its own position (docs/envelopes.md, "Outputs"). A 6.5-s
 * horizon used to be drawn to 7 s with ticks at 1.4 s steps labelled
 * 0 1 3 4 6 7, a 2-s one labelled 0 0 1 1 2 2, and a 10-s horizon in 3-s
 * bins to 12 s with its last bin's point at 10.5 s.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* The plot area of cli/envelope_io.c: x from 70 px, 820 px wide. */
#define LEFT 70.0
#define WIDTH 820.0

static void
axis(const char *dir, const char *horizon, const char *bin)
{
	char *svg = path_join(dir, "axis.svg");
	const char *argv[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "3",
		               "--horizon", horizon, "--bin", bin, "--replicas", "2", "--svg", svg, "--quiet", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	char *text = NULL;
	size_t len = 0;
	wc_error err;
	CHECK_INT(wc_read_file(svg, 1 << 20, &text, &len, &err), WC_OK);
	const double h = atof(horizon);
	/* the frame spans the horizon: 820 px are h seconds */
	CHECK_CONTAINS(text, "<rect x=\"70.0\" y=\"40.0\" width=\"820.0\"");
	int ticks = 0;
	double last = -1.0;
	for (const char *p = text; (p = strstr(p, "<text x=\"")) != NULL; p++) {
		double x;
		char label[32];
		if (sscanf(p, "<text x=\"%lf\" y=\"415.0\" font-size=\"11\" text-anchor=\"middle\">%31[^<]", &x, label) != 2)
			continue;
		const double at = (x - LEFT) / WIDTH * h, v = atof(label);
		CHECK(label[0] != '-');
		/* the label is the time at its position, to the 0.05 px printed */
		CHECK_NEAR(v, at, 0.051 / WIDTH * h);
		CHECK(v > last);
		CHECK(v <= h);
		last = v;
		ticks++;
	}
	CHECK(ticks >= 3);
	/* every point of the band and mean within the axis: none past the horizon */
	for (const char *p = text; (p = strstr(p, "points=\"")) != NULL;) {
		p += strlen("points=\"");
		while (*p && *p != '"') {
			double x, y;
			int used = 0;
			if (sscanf(p, "%lf,%lf %n", &x, &y, &used) != 2 || used == 0)
				break;
			CHECK(x >= LEFT && x <= LEFT + WIDTH + 0.05);
			p += used;
		}
	}
	free(text);
	free(svg);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_svg_axis");
	axis(dir, "6.5", "1");  /* a partial last bin, 6-6.5 s */
	axis(dir, "2", "0.05");
	axis(dir, "10", "3");   /* 9-10 s of a 3-s bin */
	free(dir);
	return check_report("test_cli_envelope_svg_axis");
}
