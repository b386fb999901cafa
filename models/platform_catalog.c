/*
 * Platform facts (docs/capacity.md, "Platforms"). A100, H100, H200 and
 * L40S memory, bandwidth, BF16 throughput and power limit as the
 * LLM-PowerTrace appendix publishes them (../shared/data/paper/platforms.csv);
 * every other row and every FP8 figure from the vendor's datasheet, dense
 * throughput being half the sparse figure the datasheets headline. Idle
 * power is filled only where it was measured or published; elsewhere it is
 * 0 and wc_params_estimated_idle_w estimates it from the board limit.
 * Names carry the board variant because power limits differ by more than
 * half between SXM, PCIe and NVL boards of one GPU.
 */
#include "models/catalog.h"
#include "thread_scratch_internal.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PAPER "LLM-PowerTrace appendix, platforms table"
#define PAPER_P0 "LLM-PowerTrace Table 13 (measured loaded idle)"

/* memory_mib: the total the driver reports (nvidia-smi memory.total,
 * rocm-smi's VRAM total), read off published nvidia-smi / rocm-smi
 * outputs of each board: what vLLM's gpu_memory_utilization is a share
 * of (docs/capacity.md, "Memory as vLLM does it"). A board's PCIe or NVL
 * variant with the same HBM reports what its SXM twin does (nvidia-smi:
 * "NVIDIA H100 PCIe ... 81559MiB", "NVIDIA H200 NVL ... 143771MiB");
 * the A100 PCIe 40 GB reports 40960 MiB as its SXM4 twin with current
 * drivers ("NVIDIA A100-PCIE-40GB, 40960 MiB", driver 595; R450-era
 * drivers printed 40536). Boards without a recorded figure (MI325X)
 * keep the datasheet's decimal GB.
 *
 * link_domain: how many GPUs one NVLink domain joins, from the same
 * datasheets: none on A10G, L4 and L40S; a 2-way NVLink bridge on the
 * A100 PCIe, H100 PCIe and H100 NVL cards (pairs); a 2- or 4-way bridge
 * on the H200 NVL; the 8-GPU NVSwitch baseboard (HGX) of the SXM boards
 * and B200; the MI300X and MI325X platform's 8 GPUs fully joined by
 * Infinity Fabric. The GH200's NVLink-C2C joins its GPU to its own CPU
 * only; whether other superchips share its NVLink (none on a node of
 * one, two on an NVL2, up to 256 over an NVLink Switch System) is the
 * system's, so it records none (0). A TP group larger than its domain
 * crosses what lies beyond it (wc_platform_tp_crossing; docs/capacity.md,
 * "Warnings"): PCIe between the cards of one node, bridged or not; the
 * network past a baseboard, whose 8 GPUs are its node. */
#define NO_LINK .link_domain = 1, .beyond_link = "PCIe"
#define BRIDGE(n) .link_domain = (n), .link = "NVLink", .beyond_link = "PCIe"
#define BASEBOARD(name) .link_domain = 8, .link = (name), .beyond_link = "the network"
static const wc_platform_info platforms[] = {
	{ .name = "A10G", .die = "GA102", .architecture = "Ampere",
	  .memory_gb = 24, .memory_mib = 23028, .bandwidth_tb_s = 0.6,
	  .bf16_tflops = 70, .max_power_w = 300, .max_sm_clock_mhz = 1710, .min_sm_clock_mhz = 210,
	  .source = "NVIDIA A10G (AWS G5) specifications", NO_LINK,
	  .aliases = { "A10G-24GB", NULL } },
	{ .name = "L4", .die = "AD104", .architecture = "Ada Lovelace",
	  .memory_gb = 24, .memory_mib = 23034, .bandwidth_tb_s = 0.3,
	  .bf16_tflops = 121, .fp8_tflops = 242.5, .max_power_w = 72, .max_sm_clock_mhz = 2040,
	  .min_sm_clock_mhz = 210, .source = "NVIDIA L4 datasheet", NO_LINK,
	  .aliases = { "L4-24GB", NULL } },
	{ .name = "L40S", .die = "AD102", .architecture = "Ada Lovelace",
	  .memory_gb = 48, .memory_mib = 46068, .bandwidth_tb_s = 0.864,
	  .bf16_tflops = 362, .fp8_tflops = 733, .max_power_w = 350, .max_sm_clock_mhz = 2520,
	  .min_sm_clock_mhz = 210, .source = PAPER "; FP8 from the NVIDIA L40S datasheet", NO_LINK,
	  .aliases = { "L40S-48GB", NULL } },
	{ .name = "A100", .die = "GA100", .architecture = "Ampere",
	  .memory_gb = 80, .memory_mib = 81920, .bandwidth_tb_s = 2.04,
	  .bf16_tflops = 312, .max_power_w = 400, .max_sm_clock_mhz = 1410, .min_sm_clock_mhz = 210,
	  .idle_power_w = 72.9, .idle_source = PAPER_P0, .source = PAPER, BASEBOARD("NVLink"),
	  .aliases = { "A100-SXM4-80GB", "A100-SXM", "A100-80GB", "A100-SXM-80GB", NULL } },
	{ .name = "A100-40GB", .die = "GA100", .architecture = "Ampere",
	  .memory_gb = 40, .memory_mib = 40960, .bandwidth_tb_s = 1.555,
	  .bf16_tflops = 312, .max_power_w = 400, .max_sm_clock_mhz = 1410, .min_sm_clock_mhz = 210,
	  .source = "NVIDIA A100 datasheet (SXM4 40 GB)", BASEBOARD("NVLink"),
	  .aliases = { "A100-SXM4-40GB", "A100-SXM-40GB", NULL } },
	{ .name = "A100-PCIe", .die = "GA100", .architecture = "Ampere",
	  .memory_gb = 80, .memory_mib = 81920, .bandwidth_tb_s = 1.935,
	  .bf16_tflops = 312, .max_power_w = 300, .max_sm_clock_mhz = 1410, .min_sm_clock_mhz = 210,
	  .source = "NVIDIA A100 datasheet (PCIe 80 GB)", BRIDGE(2),
	  .aliases = { "A100-80GB-PCIe", "A100-PCIE-80GB", "A100-PCIe-80GB", NULL } },
	{ .name = "A100-PCIe-40GB", .die = "GA100", .architecture = "Ampere", .memory_gb = 40, .memory_mib = 40960,
	  .bandwidth_tb_s = 1.555, .bf16_tflops = 312, .max_power_w = 250,
	  .max_sm_clock_mhz = 1410, .min_sm_clock_mhz = 210,
	  .source = "NVIDIA A100 datasheet (PCIe 40 GB)", BRIDGE(2),
	  .aliases = { "A100-PCIE-40GB", "A100-40GB-PCIe", NULL } },
	{ .name = "H100", .die = "GH100", .architecture = "Hopper",
	  .memory_gb = 80, .memory_mib = 81559, .bandwidth_tb_s = 3.35,
	  .bf16_tflops = 989, .fp8_tflops = 1979, .max_power_w = 700, .max_sm_clock_mhz = 1980,
	  .min_sm_clock_mhz = 345, .idle_power_w = 126.3, .idle_source = PAPER_P0,
	  .source = PAPER "; FP8 from the NVIDIA H100 datasheet", BASEBOARD("NVLink"),
	  .aliases = { "H100-SXM", "H100-SXM5", "H100-SXM5-80GB", "H100-80GB-HBM3", "H100-SXM-80GB",
	               NULL } },
	{ .name = "H100-PCIe", .die = "GH100", .architecture = "Hopper",
	  .memory_gb = 80, .memory_mib = 81559, .bandwidth_tb_s = 2.0,
	  .bf16_tflops = 756, .fp8_tflops = 1513, .max_power_w = 350, .max_sm_clock_mhz = 1755,
	  .min_sm_clock_mhz = 345, .source = "NVIDIA H100 datasheet (PCIe)", BRIDGE(2),
	  .aliases = { "H100-PCIe-80GB", "H100-80GB-PCIe", NULL } },
	{ .name = "H100-NVL", .die = "GH100", .architecture = "Hopper",
	  .memory_gb = 94, .memory_mib = 95830, .bandwidth_tb_s = 3.9,
	  .bf16_tflops = 835, .fp8_tflops = 1671, .max_power_w = 400, .max_sm_clock_mhz = 1785,
	  .min_sm_clock_mhz = 345, .source = "NVIDIA H100 datasheet (NVL)", BRIDGE(2),
	  .aliases = { "H100-NVL-94GB", "H100NVL", NULL } },
	{ .name = "H200", .die = "GH100", .architecture = "Hopper",
	  .memory_gb = 141, .memory_mib = 143771, .bandwidth_tb_s = 4.8,
	  .bf16_tflops = 989, .fp8_tflops = 1979, .max_power_w = 700, .max_sm_clock_mhz = 1980,
	  .min_sm_clock_mhz = 345, .idle_power_w = 120.9, .idle_source = PAPER_P0,
	  .source = PAPER "; FP8 from the NVIDIA H200 datasheet", BASEBOARD("NVLink"),
	  .aliases = { "H200-SXM", "H200-141GB", "H200-SXM-141GB", "H200-141GB-HBM3e", NULL } },
	{ .name = "H200-NVL", .die = "GH100", .architecture = "Hopper",
	  .memory_gb = 141, .memory_mib = 143771, .bandwidth_tb_s = 4.8,
	  .bf16_tflops = 835, .fp8_tflops = 1671, .max_power_w = 600, .max_sm_clock_mhz = 1785,
	  .min_sm_clock_mhz = 345, .source = "NVIDIA H200 datasheet (NVL)", BRIDGE(4),
	  .aliases = { "H200-NVL-141GB", "H200NVL", NULL } },
	/* The GH200 module's limit covers the Grace CPU and memory as well;
	 * 900 W is the module limit nvidia-smi reports as the GPU's
	 * power.limit by default (captured `nvidia-smi --query-gpu` samples:
	 * "NVIDIA GH200 480GB, 97871, ..., 900.0"; the datasheet's module TDP
	 * is configurable 450-1000 W). Kept, since it is what a run's
	 * power.limit shows; answers on it say the limit is the module's
	 * (docs/fitting.md, "Platforms without a fitted level"). */
	{ .name = "GH200", .die = "GH100", .architecture = "Hopper",
	  .memory_gb = 96, .memory_mib = 97871, .bandwidth_tb_s = 4.0,
	  .bf16_tflops = 989, .fp8_tflops = 1979, .max_power_w = 900, .max_sm_clock_mhz = 1980,
	  .min_sm_clock_mhz = 345, .source = "NVIDIA GH200 Grace Hopper Superchip datasheet (96 GB HBM3)",
	  .module_limit = 1,
	  .aliases = { "GH200-480GB", "GH200-96GB", "GH200-Grace-Hopper", NULL } },
	{ .name = "B200", .die = "GB100", .architecture = "Blackwell",
	  .memory_gb = 180, .memory_mib = 183359, .bandwidth_tb_s = 8.0,
	  .bf16_tflops = 2250, .fp8_tflops = 4500, .max_power_w = 1000, .max_sm_clock_mhz = 1965,
	  .min_sm_clock_mhz = 345, .source = "NVIDIA HGX B200 datasheet", BASEBOARD("NVLink"),
	  .aliases = { "B200-180GB", "B200-SXM", NULL } },
	{ .name = "MI300X", .die = "MI300X", .architecture = "CDNA 3",
	  .memory_gb = 192, .memory_mib = 196288, .bandwidth_tb_s = 5.3,
	  .bf16_tflops = 1307, .fp8_tflops = 2615, .max_power_w = 750, .max_sm_clock_mhz = 2100,
	  .min_sm_clock_mhz = 500, .source = "AMD Instinct MI300X datasheet", BASEBOARD("Infinity Fabric"),
	  .aliases = { "MI300X-192GB", "MI300", NULL } },
	{ .name = "MI325X", .die = "MI300X", .architecture = "CDNA 3", .memory_gb = 256, .bandwidth_tb_s = 6.0,
	  .bf16_tflops = 1307, .fp8_tflops = 2615, .max_power_w = 1000, .max_sm_clock_mhz = 2100,
	  .min_sm_clock_mhz = 500, .source = "AMD Instinct MI325X datasheet", BASEBOARD("Infinity Fabric"),
	  .aliases = { "MI325X-256GB", NULL } },
};

size_t
wc_platform_count(void)
{
	return sizeof platforms / sizeof platforms[0];
}

const wc_platform_info *
wc_platform_at(size_t i)
{
	return i < wc_platform_count() ? &platforms[i] : NULL;
}

/* Names are matched on their letters and digits, case-insensitively,
 * with a leading vendor word dropped ("NVIDIA A100-SXM4-80GB" is
 * "a100sxm480gb"). Only spaces, hyphens and underscores may separate
 * them, where the catalog's name or alias does (docs/http-api.md, "POST
 * /v1/predict/inference"): any other character, or a split elsewhere, makes the name
 * unknown, not the board it resembles ("H100#$%", "B200!!", "H 1 0 0"). */
static int
platform_separator(char c)
{
	return c == ' ' || c == '-' || c == '_';
}

/* The key of `name` into `out` (empty when the name is not one: a
 * character beyond letters, digits and separators, a separator at either
 * end other than spaces). `sep[i]` is 1 where a separator stands before
 * key[i]: a name may split only where the catalog's name or alias does
 * ("H100 SXM" is "H100-SXM"; "H 1 0 0" is not "H100"). */
static void
platform_key(const char *name, char *out, unsigned char *sep, size_t cap)
{
	static const char *const vendors[] = { "nvidia", "amdinstinct", "amd" };
	size_t n = 0, end = strlen(name);
	int pending = 0;
	while (end > 0 && name[end - 1] == ' ')
		end--;
	while (*name == ' ')
		name++, end--;
	memset(sep, 0, cap);
	out[0] = '\0';
	if (end == 0 || platform_separator(name[0]) || platform_separator(name[end - 1]))
		return;
	for (size_t i = 0; i < end && n + 1 < cap; i++) {
		unsigned char c = (unsigned char)name[i];
		if (platform_separator((char)c)) {
			pending = 1;
			continue;
		}
		if (!isalnum(c)) {
			out[0] = '\0';
			return;
		}
		if (pending && n > 0)
			sep[n] = 1;
		pending = 0;
		out[n++] = (char)tolower(c);
	}
	out[n] = '\0';
	for (size_t v = 0; v < sizeof vendors / sizeof vendors[0]; v++) {
		size_t len = strlen(vendors[v]);
		if (n > len && strncmp(out, vendors[v], len) == 0) {
			memmove(out, out + len, n - len + 1);
			memmove(sep, sep + len, cap - len);
			memset(sep + cap - len, 0, len);
			sep[0] = 0; /* the vendor word's own separator */
			return;
		}
	}
}

/* Every name's and alias's key, made once: a lookup is on the path of
 * every answer, and normalising the whole table on each call was about
 * 5 % of a fresh one (docs/results.md, "Server speed"). An unused slot is
 * "", which no lookup key matches (an empty key finds nothing). */
#define KEY_MAX 96
#define KEYS_PER_PLATFORM (1 + sizeof platforms[0].aliases / sizeof platforms[0].aliases[0])
static char keys[sizeof platforms / sizeof platforms[0]][KEYS_PER_PLATFORM][KEY_MAX];
static unsigned char key_seps[sizeof platforms / sizeof platforms[0]][KEYS_PER_PLATFORM][KEY_MAX];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void
keys_make(void)
{
	for (size_t i = 0; i < wc_platform_count(); i++) {
		platform_key(platforms[i].name, keys[i][0], key_seps[i][0], KEY_MAX);
		for (size_t a = 0; platforms[i].aliases[a]; a++)
			platform_key(platforms[i].aliases[a], keys[i][a + 1], key_seps[i][a + 1], KEY_MAX);
	}
}

/* The name's letters and digits are the entry's, and every split the
 * name makes the entry makes too. */
static int
key_matches(const char *key, const unsigned char *sep, size_t i, size_t k)
{
	if (strcmp(keys[i][k], key) != 0)
		return 0;
	for (size_t j = 0; key[j]; j++)
		if (sep[j] && !key_seps[i][k][j])
			return 0;
	return 1;
}

static const wc_platform_info *
lookup_by_key(const char *name)
{
	char key[KEY_MAX];
	unsigned char sep[KEY_MAX];
	platform_key(name, key, sep, sizeof key);
	if (!key[0])
		return NULL;
	pthread_once(&keys_once, keys_make);
	for (size_t i = 0; i < wc_platform_count(); i++)
		for (size_t k = 0; k < KEYS_PER_PLATFORM; k++)
			if (key_matches(key, sep, i, k))
				return &platforms[i];
	return NULL;
}

/* The names this thread looked up, by their bytes (a lookup depends on
 * nothing else, so a remembered row is the one it would find again). An
 * answer on a board without a level of the set looks the same few names
 * up hundreds of times (the board's, each level's to find the one asked
 * and the datasheet's sources) and a power cap's clock takes up to 278
 * answers: each lookup normalised the name and compared it with every
 * key, over half of such an answer's time (docs/http-api.md, "POST
 * /v1/predict/batch"). Per thread, on the heap (models/thread_scratch_internal.h):
 * server workers look up at once. */
#define MEMO_SLOTS 64
typedef struct {
	char name[KEY_MAX];
	const wc_platform_info *info;
} memo_slot;

const wc_platform_info *
wc_platform_lookup(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n >= KEY_MAX)
		return NULL;
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	memo_slot *memo = wc__thread_scratch(WC_SCRATCH_PLATFORM_LOOKUP, MEMO_SLOTS * sizeof *memo);
	if (!memo)
		return lookup_by_key(name); /* out of memory: as it comes */
	memo_slot *m = &memo[h % MEMO_SLOTS];
	if (memcmp(m->name, name, n + 1) != 0) {
		m->info = lookup_by_key(name);
		memcpy(m->name, name, n + 1);
	}
	return m->info;
}

const char *
wc_platform_canonical(const char *name)
{
	const wc_platform_info *pi = wc_platform_lookup(name);
	return pi ? pi->name : name;
}

const wc_platform_info *
wc_platform_board(const char *name, const char *shared_with)
{
	const wc_platform_info *pi = wc_platform_lookup(name);
	if (!pi && shared_with && shared_with[0])
		pi = wc_platform_lookup(shared_with);
	size_t n = name ? strcspn(name, "-") : 0;
	if (!pi && n > 0 && name[n] == '-' && n < KEY_MAX) {
		char base[KEY_MAX];
		memcpy(base, name, n);
		base[n] = '\0';
		pi = wc_platform_lookup(base);
	}
	return pi;
}

int
wc_platform_clock_in_range(const wc_platform_info *pi, double mhz)
{
	if (!pi || !(pi->max_sm_clock_mhz > 0))
		return 1;
	double lo = pi->min_sm_clock_mhz > 0 ? pi->min_sm_clock_mhz : 0.0;
	return mhz >= lo && mhz <= pi->max_sm_clock_mhz;
}

const char *
wc_platform_tp_crossing(const wc_platform_info *pi, int tp)
{
	return pi && pi->link_domain > 0 && tp > pi->link_domain ? pi->beyond_link : NULL;
}

int
wc_platform_power_draw_averaged(const wc_platform_info *pi)
{
	/* NVML's nvmlDeviceGetPowerUsage, which power.draw reads: "On Ampere
	 * (except GA100) or newer GPUs, the API returns power averaged over 1
	 * sec interval"; GA100 and older return instantaneous power. The
	 * catalog's GA100 boards are its A100s; CDNA boards have no NVML. */
	static const char *const averaging[] = { "Ampere", "Ada Lovelace", "Hopper", "Blackwell" };
	if (!pi || !pi->architecture || strncmp(pi->name, "A100", 4) == 0)
		return 0;
	for (size_t i = 0; i < sizeof averaging / sizeof averaging[0]; i++)
		if (strcmp(pi->architecture, averaging[i]) == 0)
			return 1;
	return 0;
}

int
wc_platform_same_die(const wc_platform_info *a, const wc_platform_info *b)
{
	return a && b && a->die && b->die && strcmp(a->die, b->die) == 0;
}

int
wc_platform_amd(const wc_platform_info *pi)
{
	return pi && pi->architecture && strncmp(pi->architecture, "CDNA", 4) == 0;
}

int
wc_platform_vendor_caveat(const wc_platform_info *me, int sources_amd, char *buf, size_t cap)
{
	const int said = wc_platform_amd(me) && !sources_amd;
	if (cap)
		snprintf(buf, cap, "%s%s%s", said ? "an AMD board (" : "", said ? me->architecture : "",
		         said ? ") can miss by more" : "");
	return said;
}

double
wc_platform_memory_bytes(const char *level, double memory_gb)
{
	const wc_platform_info *pi = wc_platform_board(level, NULL);
	if (pi && pi->memory_mib > 0.0 && fabs(pi->memory_gb - memory_gb) < 1e-9)
		return pi->memory_mib * 1048576.0;
	return memory_gb * 1e9;
}

const char *
wc_platform_names(void)
{
	/* A literal, so that no thread builds it; test_platform_catalog checks
	 * that it lists the table. */
	return "A10G, L4, L40S, A100, A100-40GB, A100-PCIe, A100-PCIe-40GB, H100, H100-PCIe, "
	       "H100-NVL, H200, H200-NVL, GH200, B200, MI300X, MI325X";
}

const char *
wc_platform_unknown_note(const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, "%.64s is not in the platform catalog: its board power limit and clock range are unknown",
	         name ? name : "");
	return buf;
}
