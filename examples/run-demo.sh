#!/usr/bin/env bash
# The main job: build the demo with the instrumenter, run it measured on 4 ranks
# with profiling and tracing, print the profile report and export the trace.
set -euo pipefail
build=${1:-build}
python=${PYTHON:-/usr/bin/python3}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$build/demo
mkdir -p "$work"
echo "== compiling examples/halo2d.c with: scorep mpicc"
"$python" "$build/runtime/mpi_adapter/scorep" mpicc -O2 "$top/examples/halo2d.c" -o "$work/halo2d" -lm
experiment=$work/scorep-halo2d-$(date -u +%Y%m%d_%H%M%S)
echo "== running on 4 ranks, profiling and tracing into $experiment"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SCOREP_ENABLE_PROFILING=true SCOREP_ENABLE_TRACING=true SCOREP_EXPERIMENT_DIRECTORY=$experiment \
    mpirun --oversubscribe -n 4 -x SCOREP_ENABLE_PROFILING -x SCOREP_ENABLE_TRACING \
    -x SCOREP_EXPERIMENT_DIRECTORY "$work/halo2d" 256 200
echo
cat "$experiment/profile.txt"
echo
"$python" "$top/tools/scorep-trace-export" "$experiment" -o "$experiment/trace.json"
echo "== CUBE4 profile: $experiment/profile.cubex (cube, cube_stat, scorep-score; scorep-info cube-summary)"
echo "== OTF2 trace: $experiment/traces.otf2 (otf2-print, Vampir)"
echo "== Chrome/Perfetto trace: $experiment/trace.json (open in ui.perfetto.dev or speedscope)"
