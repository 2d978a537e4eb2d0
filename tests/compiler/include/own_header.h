/* A header of the test program's own project, found through -I: its
 * functions are the program's and stay instrumented. */
#ifndef OWN_HEADER_H
#define OWN_HEADER_H

namespace own {

inline int twice(int x) { return 2 * x; }

template <typename Container>
long checksum(const Container& values)
{
    long sum = 0;
    for (int v : values) sum = sum * 31 % 1000003 + twice(v);
    return sum;
}

}  // namespace own

#endif
