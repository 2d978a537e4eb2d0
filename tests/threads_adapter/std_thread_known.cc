// C++ threads (std::thread, std::mutex), for test_pthread_adapter.py: three
// threads, all started before any goes on (so each has a location of its
// own), each take the mutex 10 times. libstdc++ makes the pthread_create
// call (with its own start routine), the program's objects the
// pthread_mutex_lock/unlock calls (std::mutex inlines them).
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex m;
static long total;
static std::atomic<int> started;

static void work(int n)
{
    started++;
    while (started.load() < 3)
        std::this_thread::yield();
    for (int i = 0; i < n; i++) {
        std::lock_guard<std::mutex> hold(m);
        total += i;
    }
}

int main()
{
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; i++)
        threads.emplace_back(work, 10);
    for (auto& t : threads)
        t.join();
    std::printf("total %ld\n", total);
}
