/* One parallel region, each thread in the same hot function. */
#include <omp.h>
#include <stdio.h>
__attribute__((noinline)) double work(long n, int t){ double s=0; for(long i=0;i<n;i++) s+=(double)(i^t)*1e-9/(1.0+(i&7)); return s;}
int main(void){ double total=0;
#pragma omp parallel reduction(+:total)
 { total += work(200000000, omp_get_thread_num()); }
 printf("%.3f\n", total); return 0; }
