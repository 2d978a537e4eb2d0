// The C++ "library" of test_libwrap_cxx: a function in a namespace, linked
// from an object file of its own so that --wrap=_ZN2ns5twiceEi applies.
namespace ns {
int twice(int x) { return 2 * x; }
}
