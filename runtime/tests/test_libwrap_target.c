/* The "library" test_libwrap wraps: plain functions in an object file of
 * their own, so that the linker's --wrap redirects the program's calls to
 * them (--wrap affects only references between object files). */

int lw_work(int x) { return x + 1; }

int lw_inner(int x) { return x + 3; }

/* calls back into the program: given lw_inner, the call goes through
 * __wrap_lw_inner (the program took lw_inner's address, which --wrap turned
 * into the wrapper's), like a library calling another wrapped function */
int lw_apply(int (*f)(int), int x) { return 2 * f(x); }

/* stands for a C++ function ns::named(int): test_libwrap gives its region
 * that name and the symbol _ZN2ns5namedEi */
int lw_named(int x) { return 3 * x; }
