/* Types for cfront.h: a second file, so declarations carry different files. */
#ifndef CFRONT_TYPES_H
#define CFRONT_TYPES_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef double cplx[2];                 /* a typedef'd array, like fftw_complex */
typedef struct cf_opaque *cf_handle;    /* an opaque handle, like gzFile */
typedef void (*cf_callback)(int code, void *user);
typedef struct { int a, b; } cf_pair;   /* an unnamed struct with a typedef name */
struct cf_point { int x, y; };
union cf_value { int i; double d; };
enum cf_color { CF_RED, CF_GREEN };
typedef enum cf_color cf_color_t;
typedef int64_t cf_offset;

int cf_types_version(void);
#endif
