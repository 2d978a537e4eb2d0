"""The trace's OpenMP task records (otf2-print's output), checked against
the rules Score-P records tasks by; shared by the GCC (GOMP) and clang
(OMPT) builds' tests."""
import collections
import re

RECORD = re.compile(r'^(THREAD_TASK_\w+|ENTER|LEAVE)\s+(\d+)\s+\d+\s+(?:Thread Team: ("[^"]*") <\d+>, '
                    r'Creating Thread: (\d+) \("([^"]+)" <\d+>\), Generation Number: (\d+)|Region: "([^"@]+))')


def check(events, location_names, tasks_per_thread):
    """ThreadTaskCreate/Switch/Complete in events (otf2-print's lines; the
    locations by id in location_names): every location creates
    tasks_per_thread tasks, numbered by its thread number and its count of
    created tasks from 1; each task is switched to once, on the location
    that then enters and leaves its `!$omp task` region, and completed
    there; a location goes back to its implicit task (its own number,
    generation 0) only after running a task, before it leaves the construct
    it ran the task in; every record names one team."""
    created, switched, completed, teams = collections.Counter(), collections.Counter(), collections.Counter(), set()
    running = {}   # location: the explicit task it runs
    ran_since_switch_back = collections.Counter()
    for line in events:
        m = RECORD.match(line)
        if not m:
            continue
        kind, location, team, _, creator_name, generation, region = m.groups()
        if kind.startswith("THREAD_TASK"):
            teams.add(team)
            task = (creator_name, int(generation))
        if kind == "THREAD_TASK_CREATE":
            assert creator_name == location_names[location], line
            created[task] += 1
        elif kind == "THREAD_TASK_SWITCH" and task[1] == 0:
            assert creator_name == location_names[location] and ran_since_switch_back[location] > 0, line
            ran_since_switch_back[location] = 0
        elif kind == "THREAD_TASK_SWITCH":
            assert location not in running, line
            running[location] = task
            switched[task] += 1
        elif kind == "THREAD_TASK_COMPLETE":
            assert running.pop(location) == task, line
            completed[task] += 1
            ran_since_switch_back[location] += 1
        elif region.strip() == "!$omp task":
            assert location in running, line
    tasks = {(name, generation) for name in location_names.values() for generation in range(1, tasks_per_thread + 1)}
    assert created == switched == completed == {task: 1 for task in tasks}, (created, switched, completed)
    assert not running, running
    assert len(teams) == 1, teams
