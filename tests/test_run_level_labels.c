/*
 * Two load levels of one run whose labels make one run id part
 * (`run_id#<label>`, its bytes other than A-Z a-z 0-9 . - _ read as '_';
 * docs/formats/telemetry.md, "Load levels and idle windows"): the same
 * label twice, or `a/b` and `a_b`. ingest wrote two rows of one id and
 * refused them as "its folder ... was read twice (inside two folders
 * given)" when one folder was given; the manifest is now refused at the
 * later level's label, naming the clash, in both manifest formats.
 */
#include "data/data.h"
#include "data/run_manifest.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

static int
load(const char *text, const char *path, wc_error *err)
{
	wc_run_manifest m;
	wc_run_manifest_init(&m);
	return wc_run_manifest_load_buffer(text, strlen(text), path, &m, err);
}

/* wattcast-run.json, two levels labelled `a` and `b`. */
static int
own(const char *a, const char *b, wc_error *err)
{
	char text[512];
	snprintf(text, sizeof text, "{\"schema\": \"wattcast.run/3\", \"levels\": ["
	         "{\"label\": \"%s\", \"start_epoch\": 1784415160.0, \"end_epoch\": 1784415165.0}, "
	         "{\"label\": \"%s\", \"start_epoch\": 1784415165.0, \"end_epoch\": 1784415170.0}]}", a, b);
	return load(text, "wattcast-run.json", err);
}

int
main(void)
{
	wc_error err;

	CHECK_INT(own("a", "b", &err), WC_OK);
	CHECK_INT(own("a/b", "a.b", &err), WC_OK);

	CHECK_INT(own("a", "a", &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:1:123: /levels/1/label: 'a' is level 0's label too: both rows' run ids "
	                        "would end in '#a'; give each its own");
	CHECK(strlen(err.msg) <= 255);

	CHECK_INT(own("a/b", "a_b", &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:1:125: /levels/1/label: 'a_b' and level 0's 'a/b' both end a run id in "
	                        "'#a_b' (a label keeps A-Z a-z 0-9 . - _, the rest '_', 39 bytes); give each its own");
	CHECK(strlen(err.msg) <= 255);

	/* Alike only past the 39 bytes a run id keeps of a label. */
	CHECK_INT(own("sharegpt_rate4.0_burst1.0_concurrency_64_x", "sharegpt_rate4.0_burst1.0_concurrency_64_y", &err),
	          WC_EPARSE);
	CHECK_CONTAINS(err.msg, "/levels/1/label: 'sharegpt_rate4.0_burst1.0_concurrency_64_y' and level 0's");

	/* An unlabelled level's id part is its default, L<n>: the clash was
	 * quoted as level 1's label '' at /levels/1/label, which it has not. */
	const char *unl = "{\"schema\": \"wattcast.run/3\", \"levels\": ["
	                  "{\"label\": \"L1\", \"start_epoch\": 1784415160.0, \"end_epoch\": 1784415165.0}, "
	                  "{\"start_epoch\": 1784415165.0, \"end_epoch\": 1784415170.0}]}";
	CHECK_INT(load(unl, "wattcast-run.json", &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:1:114: /levels/1: level 1 is unlabelled, so its run id ends in its "
	                        "default '#L1', as level 0's label 'L1' does; give either a label");
	CHECK(strstr(err.msg, "''") == NULL && strlen(err.msg) <= 255);
	const char *unl0 = "{\"schema\": \"wattcast.run/3\", \"levels\": ["
	                   "{\"start_epoch\": 1784415160.0, \"end_epoch\": 1784415165.0}, "
	                   "{\"label\": \"L0\", \"start_epoch\": 1784415165.0, \"end_epoch\": 1784415170.0}]}";
	CHECK_INT(load(unl0, "wattcast-run.json", &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:1:109: /levels/1/label: 'L0' ends a run id in '#L0', level 0's default "
	                        "(it is unlabelled); give either a label");
	CHECK(strstr(err.msg, "''") == NULL && strlen(err.msg) <= 255);

	/* powertrace-sim's manifest.json: the clash is named at its entry of
	 * /probe/levels, past a level between them (a level without a window
	 * beside levels with one is refused itself: test_real_level_window_stated). */
	const char *pt = "{\"manifest_version\": 2, \"probe\": {\"levels\": ["
	                 "{\"label\": \"r 4\", \"t_start_epoch\": 1784415160.0, \"t_end_epoch\": 1784415165.0}, "
	                 "{\"label\": \"mid\", \"t_start_epoch\": 1784415165.0, \"t_end_epoch\": 1784415166.0}, "
	                 "{\"label\": \"r_4\", \"t_start_epoch\": 1784415166.0, \"t_end_epoch\": 1784415170.0}]}}";
	CHECK_INT(load(pt, "manifest.json", &err), WC_EPARSE);
	CHECK_CONTAINS(err.msg, "manifest.json:1:");
	CHECK_CONTAINS(err.msg, ": /probe/levels/2/label: 'r_4' and level 0's 'r 4' both end a run id in '#r_4'");
	return check_report("test_run_level_labels");
}
