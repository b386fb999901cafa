/* The platform catalog: names and aliases resolve case-insensitively
 * (nvidia-smi's product names included), board variants stay apart, the
 * list used in error messages names every row, and each board says how
 * many GPUs its NVLink joins. A lookup remembered per thread finds what a
 * fresh one does, whatever was looked up before. */
#include "models/catalog.h"
#include "tests/support/check.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The names looked up below: every name and alias, as nvidia-smi and a
 * user spell them, garbage, and many unknown names, more than the memo
 * has slots, so they evict each other. */
#define N_NAMES 400
static char names_asked[N_NAMES][48];

static int
names_make(void)
{
	int n = 0;
	for (size_t i = 0; i < wc_platform_count(); i++) {
		const wc_platform_info *p = wc_platform_at(i);
		snprintf(names_asked[n++], sizeof names_asked[0], "%s", p->name);
		snprintf(names_asked[n++], sizeof names_asked[0], "NVIDIA %s", p->name);
		snprintf(names_asked[n++], sizeof names_asked[0], " %s ", p->name);
		for (size_t a = 0; p->aliases[a]; a++) {
			snprintf(names_asked[n++], sizeof names_asked[0], "%s", p->aliases[a]);
			snprintf(names_asked[n], sizeof names_asked[0], "%s", p->aliases[a]);
			for (char *c = names_asked[n++]; *c; c++) /* another case: the same board */
				*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
		}
	}
	while (n < N_NAMES) {
		snprintf(names_asked[n], sizeof names_asked[0], n % 3 ? "GPU-%d" : "H%d", n);
		n++;
	}
	return n;
}

typedef struct {
	const char *name;
	const wc_platform_info *found;
} fresh_lookup;

static void *
lookup_fresh(void *arg)
{
	fresh_lookup *f = arg;
	f->found = wc_platform_lookup(f->name);
	return NULL;
}

/* Each name looked up on a thread of its own, which has looked nothing
 * up before, and again here after all the others, in three orders, and
 * from one buffer rewritten between lookups (the memo goes by the name's
 * bytes, not its address). */
static void
check_memo(void)
{
	static const wc_platform_info *fresh[N_NAMES];
	int n = names_make();
	for (int i = 0; i < n; i++) {
		fresh_lookup f = { names_asked[i], NULL };
		pthread_t t;
		CHECK_INT(pthread_create(&t, NULL, lookup_fresh, &f), 0);
		pthread_join(t, NULL);
		fresh[i] = f.found;
	}
	int known = 0, differ = 0;
	for (int round = 0; round < 3; round++)
		for (int j = 0; j < n; j++) {
			int i = round == 0 ? j : round == 1 ? n - 1 - j : (j * 7) % n;
			char buf[48];
			snprintf(buf, sizeof buf, "%s", names_asked[i]);
			differ += wc_platform_lookup(buf) != fresh[i] || wc_platform_lookup(names_asked[i]) != fresh[i];
			known += fresh[i] != NULL;
		}
	CHECK_INT(differ, 0);
	CHECK(known > 3 * 100); /* the catalog's names among them */
}

static void
expect(const char *asked, const char *canonical)
{
	const wc_platform_info *p = wc_platform_lookup(asked);
	if (!p || strcmp(p->name, canonical) != 0)
		fprintf(stderr, "'%s' should find %s, found %s\n", asked, canonical, p ? p->name : "nothing");
	CHECK(p != NULL);
	if (p)
		CHECK(strcmp(p->name, canonical) == 0);
}

int
main(void)
{
	expect("H100", "H100");
	expect("h100", "H100");
	expect("NVIDIA H100 80GB HBM3", "H100");
	expect("H100-SXM5-80GB", "H100");
	expect("H100 NVL", "H100-NVL");
	expect("h100-nvl", "H100-NVL");
	expect("NVIDIA H100 NVL", "H100-NVL");
	expect("NVIDIA H100 PCIe", "H100-PCIe");
	expect("NVIDIA A100-SXM4-80GB", "A100");
	expect("NVIDIA A100-SXM4-40GB", "A100-40GB");
	expect("NVIDIA A100 80GB PCIe", "A100-PCIe");
	expect("NVIDIA A100-PCIE-40GB", "A100-PCIe-40GB");
	expect("NVIDIA GH200 480GB", "GH200");
	expect("NVIDIA L4", "L4");
	expect("NVIDIA A10G", "A10G");
	expect("l40s", "L40S");
	expect("AMD Instinct MI300X", "MI300X");
	expect("AMD Instinct MI325X", "MI325X");
	expect("NVIDIA H200 NVL", "H200-NVL");
	expect("NVIDIA H200", "H200");
	expect("nvidia b200", "B200");
	CHECK(wc_platform_lookup("H100-locked") == NULL);
	CHECK(wc_platform_lookup("") == NULL && wc_platform_lookup(NULL) == NULL);
	CHECK(wc_platform_lookup("TPUv5") == NULL);
	/* Punctuation is not ignored: only spaces, hyphens and underscores
	 * separate, and only where the catalog's name or alias does
	 * (docs/http-api.md, "POST /v1/predict/inference"); these were H100,
	 * B200 and L4. Real board names (above) and spelled-out aliases still
	 * match. */
	static const char *const garbage[] = { "H100#$%", "B200!!", "H 1 0 0", "H10 0", "H100.", "(H100)",
	                                       "H100/SXM", "-H100", "H100_", "A1 00", "NVIDIA H 100", "L 4", NULL };
	for (const char *const *g = garbage; *g; g++) {
		CHECK(wc_platform_lookup(*g) == NULL);
		if (wc_platform_lookup(*g))
			fprintf(stderr, "\"%s\" matched %s\n", *g, wc_platform_lookup(*g)->name);
	}
	expect(" H100 ", "H100");
	expect("H100 SXM", "H100");
	expect("h100_sxm5", "H100");
	expect("H100SXM5", "H100");
	expect("a100 pcie 40gb", "A100-PCIe-40GB");
	expect("NVIDIA  H100  80GB  HBM3", "H100");
	/* The board behind a level: its name, the level it shares S with, or
	 * the name before its first '-'. */
	CHECK(wc_platform_board("H100-locked", NULL) == wc_platform_lookup("H100"));
	CHECK(wc_platform_board("A100-PCIe-40GB", NULL) == wc_platform_lookup("A100-PCIe-40GB"));
	CHECK(wc_platform_board("mine", "H200") == wc_platform_lookup("H200"));
	CHECK(wc_platform_board("TPUv5-pod", NULL) == NULL && wc_platform_board(NULL, NULL) == NULL);

	const wc_platform_info *nvl = wc_platform_lookup("H100-NVL"), *sxm = wc_platform_lookup("H100");
	CHECK(nvl && sxm && nvl->max_power_w < 0.6 * sxm->max_power_w);
	const wc_platform_info *h200nvl = wc_platform_lookup("H200 NVL"), *h200 = wc_platform_lookup("H200");
	CHECK(h200nvl && h200 && h200nvl->max_power_w < h200->max_power_w);

	const char *names = wc_platform_names();
	size_t listed = 1;
	for (const char *c = names; *c; c++)
		listed += *c == ',';
	CHECK(listed == wc_platform_count());
	for (size_t i = 0; i < wc_platform_count(); i++) {
		const wc_platform_info *p = wc_platform_at(i);
		CHECK(strstr(names, p->name) != NULL);
		CHECK(p->memory_gb > 0 && p->bandwidth_tb_s > 0 && p->bf16_tflops > 0 &&
		          p->max_power_w > 0 && p->max_sm_clock_mhz > p->min_sm_clock_mhz &&
		          p->min_sm_clock_mhz > 0 && p->source && p->source[0]);
		CHECK(p->idle_power_w == 0 || (p->idle_source && p->idle_power_w < p->max_power_w));
		CHECK(wc_platform_lookup(p->name) == p);
		/* the driver's total is never below the datasheet's capacity read in
		 * binary units by more than 3 % (ECC and reserved memory) nor above it */
		if (p->memory_mib > 0)
			CHECK(p->memory_mib <= p->memory_gb * 1024.0 && p->memory_mib > 0.93 * p->memory_gb * 1024.0);
	}
	/* A TP group larger than the GPUs the board's link joins crosses what
	 * lies beyond it (docs/capacity.md, "Warnings"): PCIe for any group on
	 * a board without a link, a group above 2 on the bridged pair boards
	 * (the H100 NVL, H100 PCIe and A100 PCIe were taken as NVLink-joined at
	 * any tp), above 4 on the H200 NVL; the network above a baseboard's 8,
	 * whose GPUs are a node (the MI300X's group of 16 was said to cross
	 * PCIe, over "NVLink"); never on the GH200, whose system decides, nor
	 * an unknown board. */
	static const struct { const char *board; int domain; const char *link, *beyond; } domains[] = {
		{ "L40S", 1, NULL, "PCIe" }, { "A10G", 1, NULL, "PCIe" }, { "L4", 1, NULL, "PCIe" },
		{ "H100-NVL", 2, "NVLink", "PCIe" }, { "H100-PCIe", 2, "NVLink", "PCIe" },
		{ "A100-PCIe", 2, "NVLink", "PCIe" }, { "A100-PCIe-40GB", 2, "NVLink", "PCIe" },
		{ "H200-NVL", 4, "NVLink", "PCIe" }, { "H100", 8, "NVLink", "the network" },
		{ "B200", 8, "NVLink", "the network" }, { "MI300X", 8, "Infinity Fabric", "the network" },
		{ "MI325X", 8, "Infinity Fabric", "the network" }, { "GH200", 0, NULL, NULL },
	};
	for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++) {
		const wc_platform_info *p = wc_platform_lookup(domains[i].board);
		CHECK(p && p->link_domain == domains[i].domain);
		if (!p)
			continue;
		CHECK(domains[i].link ? p->link && strcmp(p->link, domains[i].link) == 0 : !p->link);
		const char *b = wc_platform_tp_crossing(p, domains[i].domain + 1);
		CHECK(!wc_platform_tp_crossing(p, 1));
		CHECK((wc_platform_tp_crossing(p, 2) != NULL) == (domains[i].domain == 1));
		CHECK(!wc_platform_tp_crossing(p, domains[i].domain));
		CHECK(domains[i].beyond ? b && strcmp(b, domains[i].beyond) == 0 : !b);
	}
	CHECK(strcmp(wc_platform_tp_crossing(wc_platform_lookup("H100-NVL"), 8), "PCIe") == 0);
	CHECK(!wc_platform_tp_crossing(NULL, 8));
	for (size_t i = 0; i < wc_platform_count(); i++) /* only the GH200 leaves it to the system */
		CHECK(wc_platform_at(i)->link_domain > 0 || strcmp(wc_platform_at(i)->name, "GH200") == 0);
	/* Memory in bytes: the driver's total for a board that records it, at
	 * its datasheet capacity, whatever the level's suffix; the datasheet's
	 * GB otherwise (docs/capacity.md, "Memory as vLLM does it"). */
	CHECK_NEAR(wc_platform_memory_bytes("A100", 80), 81920.0 * 1048576.0, 0);
	CHECK_NEAR(wc_platform_memory_bytes("NVIDIA H100 80GB HBM3", 80), 81559.0 * 1048576.0, 0);
	CHECK_NEAR(wc_platform_memory_bytes("H100-locked", 80), 81559.0 * 1048576.0, 0);
	/* the PCIe and NVL variants report what their SXM twins do (they were
	 * taken as decimal 80 / 141 / 40 GB: 2 x H100 PCIe refused a 70 B
	 * model 2 x H100 SXM serves) */
	CHECK_NEAR(wc_platform_memory_bytes("NVIDIA H100 PCIe", 80), 81559.0 * 1048576.0, 0);
	CHECK_NEAR(wc_platform_memory_bytes("NVIDIA H200 NVL", 141), 143771.0 * 1048576.0, 0);
	CHECK_NEAR(wc_platform_memory_bytes("A100-PCIE-40GB", 40), 40960.0 * 1048576.0, 0);
	CHECK_NEAR(wc_platform_memory_bytes("B200", 180), 183359.0 * 1048576.0, 0);
	CHECK_NEAR(wc_platform_memory_bytes("A100", 40), 40e9, 0);            /* not this board's capacity */
	CHECK_NEAR(wc_platform_memory_bytes("MI325X", 256), 256e9, 0);        /* no figure recorded */
	CHECK_NEAR(wc_platform_memory_bytes("my-accelerator", 64), 64e9, 0);  /* not in the catalog */
	check_memo();
	return check_report("platform_catalog");
}
