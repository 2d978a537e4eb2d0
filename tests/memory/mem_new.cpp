// C++ new and delete of known sizes and one leaked object
// (tests/memory/test_memory.py). With -O1, g++ calls the sized operator
// delete (_ZdlPvm) for `delete b` and the unsized one (_ZdaPv) for delete[].
#include <cstdio>
#include <cstring>

struct Block {
    char data[200];
};

// keeps the compiler from eliding a new/delete pair it can see
static __attribute__((noinline)) int touch(void* p, std::size_t n)
{
    std::memset(p, 1, n);
    return static_cast<unsigned char*>(p)[n - 1];
}

// 200 (new Block) + 100 (new int[25]) bytes, both deleted
static __attribute__((noinline)) int work()
{
    Block* b = new Block;
    int* a = new int[25];
    int sum = touch(b, sizeof *b) + touch(a, 25 * sizeof *a);
    delete b;
    delete[] a;
    return sum;
}

// the leak: one Block, never deleted
static __attribute__((noinline)) int leak()
{
    Block* l = new Block;
    return touch(l, sizeof *l);
}

int main()
{
    static char out[4096];
    std::setvbuf(stdout, out, _IOFBF, sizeof out);
    int w = work();
    int l = leak();
    std::printf("work %d leak %d\n", w, l);
    return 0;
}
