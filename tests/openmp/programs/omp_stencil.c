/* A Jacobi sweep, two parallel loops per step (guided and runtime
 * schedules), STEPS from the command line: a program that stays inside
 * parallel regions for as long as it runs. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define N 2000
int main(int argc, char** argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 50;
    static double a[N][N], b[N][N];
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) a[i][j] = (i * 7 + j) % 13;
    double sum = 0;
    for (int s = 0; s < steps; s++) {
        #pragma omp parallel for schedule(guided)
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                b[i][j] = 0.25 * (a[i-1][j] + a[i+1][j] + a[i][j-1] + a[i][j+1]);
        #pragma omp parallel for reduction(+:sum) schedule(runtime)
        for (int i = 1; i < N - 1; i++) { for (int j = 1; j < N - 1; j++) a[i][j] = b[i][j]; sum += a[i][i]; }
    }
    printf("sum %.6f\n", sum);
    return 0;
}
