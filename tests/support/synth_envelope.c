#include "tests/support/synth_envelope.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* A run folder with a request log: an A100 serving two bursts. */
char *
synth_envelope_run(const char *dir, const char *name, double offset)
{
	char *run = path_join(dir, name), *p;
	char buf[8192];
	size_t n = 0;
	mkdir(run, 0755);
	p = path_join(run, "power.csv");
	n = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < 80; i++) {
		double t = i * 0.25, w = (t > 2 && t < 6) || (t > 11 && t < 15) ? 300 : 85;
		if ((t > 2 && t < 2.4) || (t > 11 && t < 11.4))
			w = 480;
		n += (size_t)snprintf(buf + n, sizeof buf - n, "2026/07/18 10:00:%02d.%03d,0,%.1f\n", (int)t,
		                      (int)((t - (int)t) * 1000), w + offset);
	}
	write_text(p, buf);
	free(p);
	p = path_join(run, "requests.json");
	write_text(p, "{\"request_timestamps\":[1784368802.0,1784368811.0],\"input_lens\":[3000,3000],"
	              "\"output_lens\":[250,250],\"ttfts\":[0.4,0.4],\"itls\":[0.0144,0.0144]}");
	free(p);
	return run;
}
