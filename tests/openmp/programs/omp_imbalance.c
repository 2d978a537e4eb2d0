/* A load imbalance of known size: ROUNDS times a team of 2 whose member
 * 0 computes for BUSY_MS while member 1 returns at once and waits in the
 * parallel region's implicit barrier; between the rounds the program
 * computes SERIAL_MS alone, which no member's barrier may hold. Prints
 * what each member did (unchanged by a measurement). */
#include <omp.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 2
#define BUSY_MS 200
#define SERIAL_MS 100

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* a busy loop, not a sleep: the time is the thread's work */
static long compute(int milliseconds)
{
    long steps = 0;
    double end = seconds() + milliseconds * 1e-3;
    while (seconds() < end) steps++;
    return steps > 0;
}

int main(void)
{
    long busy = 0, idle = 0, serial = 0;
    for (int r = 0; r < ROUNDS; r++) {
        #pragma omp parallel num_threads(2) reduction(+ : busy, idle)
        {
            if (omp_get_thread_num() == 0)
                busy += compute(BUSY_MS);
            else
                idle += 1;
        }
        serial += compute(SERIAL_MS);
    }
    printf("rounds %d busy %ld idle %ld serial %ld\n", ROUNDS, busy, idle, serial);
    return 0;
}
