"""scorep-view: the demo (examples/halo2d.c, built with scorep mpicc, 2 ranks,
profile and trace) served with speedscope on 127.0.0.1 and loaded in headless
Chromium: the flame graph and the timeline render and show the program's
regions. Screenshots are left in the test's temporary directory."""
import json
import pathlib
import socket
import subprocess
import sys
import urllib.request

import pytest

from conftest import REPO, mpirun
from headless_browser import Browser, chromium

HERE = pathlib.Path(__file__).resolve().parent
RANKS = 2
# the regions every rank of halo2d calls; with compiler instrumentation (on by
# default in scorep) `main` too, which the test then expects as well
HALO2D_REGIONS = {"MPI_Init", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce", "MPI_Finalize"}


@pytest.fixture(scope="module")
def experiment(build_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("view")
    program = work / "halo2d"
    proc = subprocess.run([sys.executable, str(build_dir / "runtime" / "mpi_adapter" / "scorep"), "mpicc", "-O2",
                           str(REPO / "examples" / "halo2d.c"), "-o", str(program), "-lm"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    directory = work / "experiment"
    mpirun(RANKS, [program, 64, 20], env={"SCOREP_ENABLE_PROFILING": "true", "SCOREP_ENABLE_TRACING": "true",
                                          "SCOREP_EXPERIMENT_DIRECTORY": str(directory)})
    assert (directory / "profile.json").is_file() and (directory / "traces.otf2").is_file()
    assert not (directory / "trace.json").exists()   # scorep-view exports the trace itself
    return directory


@pytest.fixture(scope="module")
def profile(experiment):
    return json.loads((experiment / "profile.json").read_text())


def start_view(command, experiment):
    """Starts scorep-view; returns (process, {view: url})."""
    proc = subprocess.Popen([sys.executable, str(command), str(experiment)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    urls = {}
    for line in proc.stdout:
        if line.startswith("serving on 127.0.0.1"):
            return proc, urls
        view, url = line.split(None, 1)
        if url.startswith("http://"):
            urls[view.rstrip(":")] = url.strip()
    proc.wait(10)
    raise AssertionError(f"scorep-view exited {proc.returncode} before serving: {proc.stderr.read()}")


def stop_view(proc):
    proc.terminate()
    assert proc.wait(10) == 0


@pytest.fixture(scope="module")
def view(build_dir, experiment):
    command = build_dir / "tools" / "scorep-view"
    proc, urls = start_view(command, experiment)
    yield urls
    stop_view(proc)


def fetch(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read()


def file_url(url):
    """The URL of the file a speedscope URL opens (#profileURL=/<file>)."""
    base, fragment = url.split("#", 1)
    params = dict(part.split("=", 1) for part in fragment.split("&"))
    return base.rsplit("/speedscope/", 1)[0] + urllib.request.unquote(params["profileURL"])


def region_names_with_time(profile, location=None):
    """Names of the frames on every call path that has exclusive time:
    what a flame graph of the profile (of one location, or all) shows."""
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    names = set()
    for row in profile["rows"]:
        if row["time_excl_ns"] <= 0 or (location is not None and row["location"] != location):
            continue
        node = row["callpath"]
        while node is not None:
            cp = callpaths[node]
            p = cp.get("parameter")
            names.add(f'{p["name"]}={p["value"]}' if p else regions[cp["region"]])
            node = cp["parent"]
    return names


def heaviest_root(profile):
    regions = {r["id"]: r["name"] for r in profile["regions"]}
    callpaths = {c["id"]: c for c in profile["callpaths"]}
    incl = {}
    for row in profile["rows"]:
        cp = callpaths[row["callpath"]]
        if cp["parent"] is None:
            incl[regions[cp["region"]]] = incl.get(regions[cp["region"]], 0) + row["time_incl_ns"]
    return max(incl, key=incl.get)


def test_urls_are_local_and_serve_speedscope_and_both_files(view, profile, experiment):
    assert set(view) == {"profile", "trace"}
    for url in view.values():
        assert url.startswith("http://127.0.0.1:")
    assert "view=left-heavy" in view["profile"] and "view=time-ordered" in view["trace"]
    page = fetch(view["profile"].split("#")[0]).decode()
    assert "<title>speedscope</title>" in page
    # the profile as speedscope's own format: one summed profile, then one per location
    document = json.loads(fetch(file_url(view["profile"])))
    assert [p["unit"] for p in document["profiles"]] == ["nanoseconds"] * (1 + len(profile["locations"]))
    summed = document["profiles"][0]
    assert sum(summed["weights"]) == sum(r["time_excl_ns"] for r in profile["rows"])
    frames = [f["name"] for f in document["shared"]["frames"]]
    assert {frames[i] for stack in summed["samples"] for i in stack} == region_names_with_time(profile)
    trace = json.loads(fetch(file_url(view["trace"])))
    assert trace["otherData"]["messages"] > 0 and trace["otherData"]["unmatched_messages"] == 0
    # the export is also kept in the experiment, flow events (message arrows) included
    kept = json.loads((experiment / "trace.json").read_text())
    assert kept == trace
    assert sum(1 for e in kept["traceEvents"] if e["ph"] == "s") == trace["otherData"]["messages"]


def test_server_listens_on_loopback_only(view):
    port = int(view["profile"].split(":")[2].split("/")[0])
    # this machine's address on its default route (a UDP connect sends nothing)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
            address = probe.getsockname()[0]
        except OSError:
            pytest.skip("no network interface besides loopback")
    if address.startswith("127.") or address == "0.0.0.0":
        pytest.skip(f"no address besides loopback ({address})")
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    with pytest.raises(OSError):
        socket.create_connection((address, port), timeout=5).close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not chromium():
        pytest.fail("chromium is not installed (make deps installs the Debian package chromium)")
    instance = Browser(str(tmp_path_factory.mktemp("chromium-profile")))
    yield instance
    instance.close()


FLAME_ROW_Y = 153       # first row of speedscope's flame chart at 1280x800 (below the minimap)


def hover_names(page, xs, y=FLAME_ROW_Y):
    """The frame names speedscope's hover tooltip shows at (x, y) for each x."""
    names = []
    for x in xs:
        page.move_mouse(x, y)
        text = page.wait_for(lambda: tooltip(page), timeout=3, what="the hover tooltip") if x == xs[0] else \
            tooltip(page)
        if text:
            names.append(text)
    return names


def tooltip(page):
    """speedscope's hover tooltip, '<time> (<percent>%) <frame name>', as the frame name."""
    lines = page.text().splitlines()
    for line in lines:
        parts = line.split(") ", 1)
        if len(parts) == 2 and parts[0].endswith("%") and "(" in parts[0]:
            return parts[1].strip()
    return None


def sandwich_names(page):
    """Switches to speedscope's Sandwich view and returns its table's text."""
    rect = page.evaluate("""(() => {
        const tab = [...document.querySelectorAll('div')].find(
            d => d.children.length <= 1 && d.textContent.trim().endsWith('Sandwich'));
        const r = tab.getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2];
    })()""")
    page.click(*rect)
    return page.wait_for(lambda: "Self" in page.text() and page.text(), what="the sandwich table")


def coloured_columns(rows, y):
    """How many pixels of screenshot row y are neither white nor grey (drawn frames)."""
    return sum(1 for (r, g, b) in rows[y] if max(r, g, b) - min(r, g, b) > 20)


def test_flame_graph_of_the_profile_renders_with_the_regions(view, browser, profile, tmp_path):
    page = browser.new_page(view["profile"])
    page.wait_for(lambda: f"all ranks and threads summed ({RANKS} rank(s)" in page.text()
                  and f"(1/{1 + RANKS})" in page.text(), what="the profile's name and its 1 + 2 views")
    assert "Left Heavy" in page.text()
    # the flame graph's first row starts with the heaviest root call path
    names = hover_names(page, [5, 640, 1270])
    assert names and names[0] == heaviest_root(profile), names
    assert set(names) <= region_names_with_time(profile)
    shot = tmp_path / "flamegraph.png"
    width, _, rows = page.screenshot(shot, max_rows=FLAME_ROW_Y + 10)
    print(f"screenshot: {shot}")
    assert coloured_columns(rows, FLAME_ROW_Y) > width * 0.9   # the roots fill the first row
    shown = region_names_with_time(profile)
    assert HALO2D_REGIONS <= shown
    if any(r["name"] == "main" for r in profile["regions"]):
        assert "main" in shown
    table = sandwich_names(page)
    page.screenshot(tmp_path / "flamegraph-sandwich.png", max_rows=1)
    for name in shown:
        assert name in table, f"{name} missing from speedscope's table"


def test_timeline_of_the_trace_renders_one_view_per_rank_with_the_regions(view, browser, profile, tmp_path):
    page = browser.new_page(view["trace"])
    page.wait_for(lambda: "MPI Rank 0" in page.text() and f"(1/{RANKS})" in page.text(),
                  what="rank 0's timeline of 2")
    assert "Time Order" in page.text()
    rank0 = next(loc["id"] for loc in profile["locations"] if loc["rank"] == 0)
    names = hover_names(page, [5] + list(range(40, 1280, 40)))
    assert names, "no region under the mouse along the timeline's first row"
    all_regions = {r["name"] for r in profile["regions"]}
    assert set(names) <= all_regions
    shot = tmp_path / "timeline.png"
    width, _, rows = page.screenshot(shot, max_rows=FLAME_ROW_Y + 10)
    print(f"screenshot: {shot}")
    assert coloured_columns(rows, FLAME_ROW_Y) > 20
    table = sandwich_names(page)
    assert HALO2D_REGIONS <= region_names_with_time(profile, rank0)
    for name in region_names_with_time(profile, rank0):
        assert name in table, f"{name} missing from rank 0's timeline"


def test_installed_scorep_view_serves_the_installed_speedscope(installed_prefix, experiment):
    command = installed_prefix / "bin" / "scorep-view"
    assert (installed_prefix / "share" / "scorep-wrapgen" / "speedscope" / "index.html").is_file(), \
        "speedscope not installed: run 'make viewer' before installing"
    proc, urls = start_view(command, experiment)
    try:
        assert "<title>speedscope</title>" in fetch(urls["profile"].split("#")[0]).decode()
        assert json.loads(fetch(file_url(urls["trace"])))["traceEvents"]
    finally:
        stop_view(proc)


def test_a_directory_without_measurements_is_refused(build_dir, tmp_path):
    proc = subprocess.run([sys.executable, str(build_dir / "tools" / "scorep-view"), str(tmp_path)],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "neither profile.json, profile.folded nor traces.otf2" in proc.stderr
