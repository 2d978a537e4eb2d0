/* The C header of the front-end tests: every shape of C declaration. */
#ifndef CFRONT_H
#define CFRONT_H
#include "cfront_types.h"

/* plain functions, unnamed parameters, typedef'd integer types */
int cf_add(int a, int b);
size_t cf_length(const char *text);
cf_offset cf_seek(cf_handle h, cf_offset off, int);
void cf_reset(void);
double cf_scale(float f, long double ld, double);
bool cf_flag(bool on);
unsigned char *cf_bytes(unsigned char *buf, size_t n);
char *cf_copy(char *restrict dst, const char *restrict src);
int cf_names(const char *const *names, int count);
volatile int *cf_volatile(volatile int *p, const int *const q);

/* declared twice: once without names, once with; appears once */
int cf_twice(int, double);
int cf_twice(int first, double second);

/* names the wrapper needs itself, and duplicates after renaming */
int cf_clash(int scorep_result, int arg1, int);

/* typedef'd arrays, arrays, pointers to arrays */
void cf_fft(cplx *in, cplx *out, cplx one, int n);
void cf_matrix(int n, double m[][3], double row[3]);
double (*cf_rows(int n))[3];

/* function pointers: parameters, typedef'd, returned */
void cf_on(cf_callback cb, void *user);
void cf_sort(void *base, size_t n, int (*compare)(const void *, const void *));
void (*cf_signal(int sig, void (*handler)(int)))(int);
cf_callback cf_current(void);

/* records, unions, enums by value and by pointer */
struct cf_point cf_move(struct cf_point p, const struct cf_point *by);
union cf_value cf_pick(union cf_value v);
enum cf_color cf_paint(enum cf_color c, cf_color_t t);
cf_pair cf_swap(cf_pair p);
cf_handle cf_open(const char *path, const char *mode);

/* a struct and a function of the same name (like struct stat / stat()) */
struct cf_stat { long size; };
int cf_stat(const char *path, struct cf_stat *buf);

/* variadic and K&R */
int cf_printf(cf_handle h, const char *format, ...);
int cf_legacy();
int cf_modern(void);

/* an assembler label: the symbol is not the name */
int cf_labelled(int x) __asm__("cf_real_symbol");

/* not wrappable */
static int cf_hidden(int x);
static inline int cf_inline_static(int x) { return x + 1; }
inline int cf_inline(int x) { return x; }

#endif
