"""Installed library wrappers: where they are (SCOREP_LIBWRAP_PATH, then the
installation prefix's share/scorep-wrapgen/libwrap), what `scorep --libwrap` adds
to a link, and what scorep-exec preloads. Needs no Jinja2 or libclang: the
instrumenter imports it."""
import json
import os
import pathlib
from dataclasses import dataclass

MODES = ("linktime", "runtime")


class WrapperNotFound(Exception):
    pass


@dataclass
class InstalledWrapper:
    name: str
    description: pathlib.Path
    metadata: dict

    @property
    def libdir(self):
        return (self.description.parent / self.metadata["libdir"]).resolve()

    def library(self, mode, static=False):
        return self.libdir / f"libscorep_libwrap_{self.name}_{mode}.{'a' if static else 'so'}"

    @property
    def linktime_flags(self):
        return self.description.parent / self.metadata["linktime_flags"]

    @property
    def functions(self):
        return self.metadata.get("functions", 0)

    def modes(self):
        return [m for m in MODES if m == "linktime" or self.metadata.get("runtime")]

    def library_for(self, mode, static=False):
        """The wrapper library of a mode; an error if the wrapper has none."""
        if mode not in self.modes():
            raise WrapperNotFound(f"wrapper '{self.name}' has no run-time mode (its library has no "
                                  f"shared version): relink with scorep --libwrap=linktime:{self.name}")
        return self.library(mode, static)


def wrapper_share(prefix):
    """Where a prefix holds installed wrappers' descriptions (their libraries go
    to PREFIX/lib): the wrapper layout, the same under the installation's own
    prefix (make install's default) as under any other, whatever datadir the
    installation itself was configured with."""
    return pathlib.Path(prefix) / "share" / "scorep-wrapgen" / "libwrap"


def search_dirs(default_share):
    """SCOREP_LIBWRAP_PATH (colon-separated; a directory holding *.libwrap.json,
    or a prefix that has wrapper_share(prefix)), then the default."""
    dirs = []
    for entry in os.environ.get("SCOREP_LIBWRAP_PATH", "").split(":"):
        if not entry:
            continue
        path = pathlib.Path(entry)
        nested = wrapper_share(path)
        dirs.append(nested if nested.is_dir() else path)
    dirs.append(pathlib.Path(default_share))
    return dirs


def find(name, default_share):
    dirs = search_dirs(default_share)
    for d in dirs:
        description = d / f"{name}.libwrap.json"
        if description.is_file():
            return InstalledWrapper(name, description, json.loads(description.read_text()))
    raise WrapperNotFound(f"no installed library wrapper '{name}' (looked for {name}.libwrap.json in "
                          f"{', '.join(str(d) for d in dirs)}; run make install in its working "
                          f"directory, or add its prefix to SCOREP_LIBWRAP_PATH)")


def all_installed(default_share):
    seen = {}
    for d in search_dirs(default_share):
        for description in sorted(pathlib.Path(d).glob("*.libwrap.json")):
            name = description.name[:-len(".libwrap.json")]
            if name not in seen:
                seen[name] = InstalledWrapper(name, description, json.loads(description.read_text()))
    return list(seen.values())


def parse_libwrap_option(value):
    """`[linktime:|runtime:]N[,M]` -> (mode, [names]); linktime by default."""
    mode, sep, names = value.partition(":")
    if not sep:
        mode, names = "linktime", value
    if mode not in MODES:
        raise WrapperNotFound(f"--libwrap={value}: unknown mode '{mode}' (linktime or runtime)")
    names = [n for n in names.split(",") if n]
    if not names:
        raise WrapperNotFound(f"--libwrap={value}: no wrapper named")
    return mode, names


def link_arguments(value, default_share, static=False):
    """What --libwrap adds to a link, ahead of the program's own libraries:
    link time: the --wrap flags and the wrapper library; run time: the
    wrapper library, kept even if --as-needed (its definitions must come
    before the target library's)."""
    mode, names = parse_libwrap_option(value)
    args = []
    for name in names:
        wrapper = find(name, default_share)
        library = wrapper.library_for(mode, static)
        if mode == "linktime":
            args.append(f"@{wrapper.linktime_flags}")
        args += ["-Wl,--push-state,--no-as-needed", str(library), "-Wl,--pop-state"]
        if not static:
            args.append(f"-Wl,-rpath,{wrapper.libdir}")
    return args


def runtime_libraries(values, default_share):
    """What scorep-exec preloads for its --libwrap=[runtime:]N[,M] values: the
    run-time library of each wrapper (a bare name means run time there)."""
    libraries = []
    for value in values:
        mode, names = parse_libwrap_option(value if ":" in value else f"runtime:{value}")
        if mode != "runtime":
            raise WrapperNotFound(f"--libwrap={value}: scorep-exec preloads run-time wrappers into an "
                                  f"unmodified program; link-time ones need relinking with scorep")
        libraries += [find(name, default_share).library_for("runtime") for name in names]
    return libraries
