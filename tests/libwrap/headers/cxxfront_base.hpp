// Types for cxxfront.hpp: a second file, so declarations carry different files.
#ifndef CXXFRONT_BASE_HPP
#define CXXFRONT_BASE_HPP
#include <cstddef>

namespace geo {
typedef double real;
using index_t = std::size_t;
enum class Shape { Circle, Square };
struct Point { real x, y; };
typedef double rgb[3];                  // a typedef'd array

int base_version();
}  // namespace geo
#endif
