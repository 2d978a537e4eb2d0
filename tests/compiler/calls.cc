// Compiler instrumentation test program (C++): a class, a template, an
// exception leaving an instrumented function. Call counts follow from the
// arguments: with N = argv[1]
//   Counter::Counter() 1, Counter::add(int) N, Counter::total() const 1,
//   scale<double>(double) N, scale<int>(int) 2N, thrower(int) N (throws on
//   odd i, N/2 rounded down... see below), main 1.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

class Counter {
public:
    Counter();
    void add(int x);
    long total() const;
private:
    long sum_;
};

Counter::Counter() : sum_(0) {}
__attribute__((noinline)) void Counter::add(int x) { sum_ += x; }
__attribute__((noinline)) long Counter::total() const { return sum_; }

template <typename T>
__attribute__((noinline)) T scale(T x) { return x * 3; }

__attribute__((noinline)) int thrower(int i)
{
    if (i % 2) throw std::runtime_error("odd");
    return i;
}

int main(int argc, char** argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    Counter c;
    double d = 0;
    int caught = 0;
    for (int i = 0; i < n; i++) {
        c.add(i);
        d += scale<double>(i);
        c.add(scale<int>(i) + scale<int>(1));
        try {
            thrower(i);
        } catch (const std::exception&) {
            caught++;
        }
    }
    std::printf("total=%ld d=%.1f caught=%d\n", c.total(), d, caught);
    return 0;
}
