"""Run the runtime's C test programs (built by meson under <build>/runtime/tests)."""
import json
import os
import subprocess


def program(build_dir, name):
    path = build_dir / "runtime" / "tests" / name
    assert path.exists(), f"{path} missing: build with 'ninja -C {build_dir}'"
    return path


def run(build_dir, name, *args, env=None, cwd=None, check=True, timeout=120):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("SCOREP_")}
    full_env.update(env or {})
    proc = subprocess.run([str(program(build_dir, name)), *map(str, args)], env=full_env, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{name} {args} exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                             f"stderr:\n{proc.stderr}")
    return proc


def load_profile(path):
    with open(path) as f:
        return json.load(f)


class Profile:
    """profile.json with lookups by call path written as 'main/foo/bar'."""

    def __init__(self, data):
        self.data = data
        self.regions = {r["id"]: r for r in data["regions"]}
        self.callpaths = {c["id"]: c for c in data["callpaths"]}

    def frame(self, cp):
        p = cp.get("parameter")
        if p:
            return f'{p["name"]}={p["value"]}'
        return self.regions[cp["region"]]["name"]

    def path(self, cp_id):
        names = []
        while cp_id is not None:
            cp = self.callpaths[cp_id]
            names.append(self.frame(cp))
            cp_id = cp["parent"]
        return "/".join(reversed(names))

    def rows(self, path=None, location=None):
        out = []
        for row in self.data["rows"]:
            if path is not None and self.path(row["callpath"]) != path:
                continue
            if location is not None and row["location"] != location:
                continue
            out.append(row)
        return out

    def row(self, path, location=0):
        rows = self.rows(path, location)
        assert len(rows) == 1, f"{len(rows)} rows for {path} at location {location}"
        return rows[0]
