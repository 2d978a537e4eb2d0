/* The zlib example of the library-wrapping tests: a fixed number of calls
 * of each function (the test's EXPECTED_CALLS), printing results that must
 * not change under measurement. */
#include <stdio.h>
#include <string.h>

#include "libwrap.h"

#define ROUNDS 3        /* compress + uncompress per round */
#define CHECKSUMS 5     /* crc32 calls */
#define LINES 4         /* gzprintf calls */

int main(int argc, char** argv)
{
    const char* path = argc > 1 ? argv[1] : "zlib_example.gz";
    unsigned char text[4096], packed[8192], unpacked[4096];
    for (size_t i = 0; i < sizeof text; i++) text[i] = (unsigned char)("measure me "[i % 11] + i / 512);
    printf("zlib %s\n", zlibVersion());
    for (int r = 0; r < ROUNDS; r++) {
        uLongf packed_len = sizeof packed, unpacked_len = sizeof unpacked;
        int c = compress(packed, &packed_len, text, sizeof text - (uLong)r * 100);
        int u = uncompress(unpacked, &unpacked_len, packed, packed_len);
        printf("round %d: %d %d %lu -> %lu, equal %d\n", r, c, u, (unsigned long)(sizeof text - r * 100),
               (unsigned long)packed_len, memcmp(text, unpacked, unpacked_len) == 0);
    }
    uLong crc = 0;
    for (int i = 0; i < CHECKSUMS; i++) crc = crc32(crc, text + i * 100, 100);
    printf("crc %lu\n", crc);
    gzFile out = gzopen(path, "wb");
    for (int i = 0; i < LINES; i++) gzprintf(out, "line %d of %s\n", i, "the example");
    printf("gzclose %d\n", gzclose(out));
    return 0;
}
