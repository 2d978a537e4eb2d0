/* The FFTW example of the library-wrapping tests: transforms of known sizes,
 * a fixed number of calls of each function (the test's EXPECTED_CALLS), and
 * results printed so that measurement must not change them. */
#include <math.h>
#include <stdio.h>

#include "libwrap.h"

static const int sizes_1d[] = {8, 16, 16, 32};
static const int rows_2d[] = {4, 8, 8};
#define EXECUTIONS 3

static double checksum(const fftw_complex* x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += fabs(x[i][0]) + fabs(x[i][1]);
    return s;
}

int main(void)
{
    for (int k = 0; k < 4; k++) {
        int n = sizes_1d[k];
        fftw_complex* in = fftw_malloc(sizeof(fftw_complex) * n);
        fftw_complex* out = fftw_malloc(sizeof(fftw_complex) * n);
        fftw_plan plan = fftw_plan_dft_1d(n, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
        for (int e = 0; e < EXECUTIONS; e++) {
            for (int i = 0; i < n; i++) { in[i][0] = cos(i * (e + 1)); in[i][1] = 0.5 * i; }
            fftw_execute(plan);
            printf("1d n=%d run %d: %.6f\n", n, e, checksum(out, n));
        }
        fftw_destroy_plan(plan);
        fftw_free(in);
        fftw_free(out);
    }
    for (int k = 0; k < 3; k++) {
        int n0 = rows_2d[k], n1 = 4;
        fftw_complex* data = fftw_malloc(sizeof(fftw_complex) * n0 * n1);
        fftw_plan plan = fftw_plan_dft_2d(n0, n1, data, data, FFTW_BACKWARD, FFTW_ESTIMATE);
        for (int i = 0; i < n0 * n1; i++) { data[i][0] = i % 3; data[i][1] = -i; }
        fftw_execute(plan);
        printf("2d %dx%d: %.6f\n", n0, n1, checksum(data, n0 * n1));
        fftw_destroy_plan(plan);
        fftw_free(data);
    }
    return 0;
}
