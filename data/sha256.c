/*
 * SHA-256 (FIPS 180-4) for provenance fingerprints of input tables and
 * parameter files. None of the project's libraries exports a hash, so this
 * small implementation is ours; tests/test_sha256.c checks the FIPS vectors.
 */
#include "data/fileio.h"

#include <stdio.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

typedef struct {
	uint32_t h[8];
	uint64_t total;
	unsigned char block[64];
	size_t used;
} sha256_ctx;

static uint32_t
rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void
compress(sha256_ctx *c, const unsigned char *b)
{
	uint32_t w[64], s[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		       (uint32_t)b[4 * i + 2] << 8 | (uint32_t)b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(s, c->h, sizeof s);
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = rotr(s[4], 6) ^ rotr(s[4], 11) ^ rotr(s[4], 25);
		uint32_t ch = (s[4] & s[5]) ^ (~s[4] & s[6]);
		uint32_t t1 = s[7] + S1 + ch + K[i] + w[i];
		uint32_t S0 = rotr(s[0], 2) ^ rotr(s[0], 13) ^ rotr(s[0], 22);
		uint32_t maj = (s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]);
		uint32_t t2 = S0 + maj;
		/* Shift the working variables by hand: a memmove per round was
		 * 20 % of a fuzz execution under ASan (docs/results.md, "Fuzzing"). */
		s[7] = s[6];
		s[6] = s[5];
		s[5] = s[4];
		s[4] = s[3] + t1;
		s[3] = s[2];
		s[2] = s[1];
		s[1] = s[0];
		s[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		c->h[i] += s[i];
}

static void
sha256_init(sha256_ctx *c)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(c->h, h0, sizeof h0);
	c->total = 0;
	c->used = 0;
}

static void
sha256_update(sha256_ctx *c, const unsigned char *p, size_t len)
{
	c->total += len;
	while (len > 0) {
		size_t take = 64 - c->used < len ? 64 - c->used : len;
		memcpy(c->block + c->used, p, take);
		c->used += take;
		p += take;
		len -= take;
		if (c->used == 64) {
			compress(c, c->block);
			c->used = 0;
		}
	}
}

static void
sha256_final_hex(sha256_ctx *c, char out[65])
{
	uint64_t bits = c->total * 8u;
	unsigned char pad = 0x80, zero = 0, len[8];
	sha256_update(c, &pad, 1);
	while (c->used != 56)
		sha256_update(c, &zero, 1);
	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(c, len, 8);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", c->h[i]);
}

void
wc_sha256_hex(const void *data, size_t len, char out[65])
{
	sha256_ctx c;
	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final_hex(&c, out);
}

int
wc_sha256_file_hex(const char *path, char out[65], wc_error *err)
{
	unsigned char buf[65536];
	sha256_ctx c;
	size_t got;
	FILE *f = wc_open_input(path, err);
	if (!f)
		return WC_EIO;
	sha256_init(&c);
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		sha256_update(&c, buf, got);
	int bad = ferror(f);
	fclose(f);
	if (bad)
		return wc_error_set_path(err, WC_EIO, path, ": read error");
	sha256_final_hex(&c, out);
	return WC_OK;
}
