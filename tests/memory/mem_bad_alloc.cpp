// operator new[] that throws std::bad_alloc (no memory for 2^62 bytes),
// caught, then an allocation of 4 bytes (tests/memory/test_memory.py).
#include <cstdio>
#include <new>

int main()
{
    static char out[4096];
    std::setvbuf(stdout, out, _IOFBF, sizeof out);
    try {
        char* p = new char[std::size_t(1) << 62];
        p[0] = 1;
        std::puts("allocated");
    } catch (const std::bad_alloc&) {
        std::puts("bad_alloc caught");
    }
    int* q = new int(3);
    int v = *q;
    delete q;
    std::printf("v %d\n", v);
    return 0;
}
