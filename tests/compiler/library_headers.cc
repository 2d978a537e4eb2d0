/* std::vector and std::sort (templates and inline functions of the system
 * headers) next to the program's own functions, one of them from the
 * program's own header (include/own_header.h through -I). */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "own_header.h"

static int key(int i) { return (i * 7919) % 101; }

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    std::vector<int> values;
    for (int i = 0; i < n; i++) values.push_back(key(i));
    std::sort(values.begin(), values.end());
    printf("first=%d last=%d checksum=%ld\n", values.front(), values.back(), own::checksum(values));
    return 0;
}
