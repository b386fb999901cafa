/* SHA-256 against the FIPS 180-4 example vectors. */
#include "data/data.h"
#include "tests/support/check.h"

#include <stdlib.h>

int
main(void)
{
	char hex[65];
	wc_sha256_hex("abc", 3, hex);
	CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
	wc_sha256_hex("", 0, hex);
	CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	wc_sha256_hex(two, strlen(two), hex);
	CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
	/* One million 'a' (multi-block, length field across blocks). */
	char *a = malloc(1000000);
	memset(a, 'a', 1000000);
	wc_sha256_hex(a, 1000000, hex);
	CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
	free(a);
	return check_report("test_sha256");
}
