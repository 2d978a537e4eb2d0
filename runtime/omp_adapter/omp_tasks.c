/* The task the calling thread runs, for the trace's task records (adapter.h,
 * scorep_thread_task_event): one account for both front-ends of the OpenMP
 * adapter, the GOMP wrappers' task trampoline (omp_adapter.c) and the OMPT
 * callbacks (ompt.c), so that a task is numbered and switched alike.
 *
 * As Score-P records tasks: a task is numbered at its creation by its
 * creating thread's number in the team and that thread's count of created
 * tasks (from 1); the thread that runs it switches to it and completes it;
 * a thread that ran tasks inside a construct (a barrier, taskwait, the
 * creation of an undeferred task) switches back to the task that waits
 * there just before that construct ends. Thread-local, no lock. */
#include "scorep_omp_adapter.h"

static SCOREP_OMP_TLS scorep_omp_task_id running = {SCOREP_IMPLICIT_TASK, 0};
SCOREP_OMP_TLS int scorep_omp_task_switch_back_due;
static SCOREP_OMP_TLS uint32_t created;

static int numbered(scorep_omp_task_id task)
{
    return task.generation != 0 || task.creator == SCOREP_IMPLICIT_TASK;
}

scorep_omp_task_id scorep_omp_task_create(const scorep_thread_team* team, uint32_t creator)
{
    scorep_omp_task_id task = {creator, ++created};
    if (task.generation == 0) task.generation = ++created;   /* 2^32 tasks later: 0 is no number */
    scorep_thread_task_event(SCOREP_THREAD_TASK_CREATE, team, task.creator, task.generation);
    return task;
}

scorep_omp_task_id scorep_omp_task_begin(const scorep_thread_team* team, scorep_omp_task_id task)
{
    scorep_omp_task_id before = running;
    running = task;
    scorep_omp_task_switch_back_due = 0;
    if (numbered(task)) scorep_thread_task_event(SCOREP_THREAD_TASK_SWITCH, team, task.creator, task.generation);
    return before;
}

void scorep_omp_task_end(const scorep_thread_team* team, scorep_omp_task_id task, scorep_omp_task_id back_to,
                         int waits_in_construct)
{
    if (numbered(task)) scorep_thread_task_event(SCOREP_THREAD_TASK_COMPLETE, team, task.creator, task.generation);
    running = back_to;
    scorep_omp_task_switch_back_due = waits_in_construct;
}

void scorep_omp_task_switch_back_now(const scorep_thread_team* team)
{
    scorep_omp_task_switch_back_due = 0;
    if (numbered(running))
        scorep_thread_task_event(SCOREP_THREAD_TASK_SWITCH, team, running.creator, running.generation);
}

scorep_omp_task_state scorep_omp_tasks_enter_part(void)
{
    scorep_omp_task_state outside = {running, scorep_omp_task_switch_back_due};
    running = SCOREP_OMP_IMPLICIT_TASK;
    scorep_omp_task_switch_back_due = 0;
    return outside;
}

void scorep_omp_tasks_leave_part(scorep_omp_task_state outside)
{
    running = outside.running;
    scorep_omp_task_switch_back_due = outside.switch_back_due;
}
