/* The target library of the run-time wrapper test (libtest_libwrap_rt_lib.so). */
int lwrt_add(int a, int b) { return a + b; }
int lwrt_sub(int a, int b) { return a - b; }
int lwrt_mul(int a, int b) { return a * b; }
/* not wrapped: a program that calls it needs the library itself */
int lwrt_version(void) { return 3; }
