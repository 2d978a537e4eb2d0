"""Finding the target libraries as the linker finds them: the -L directories,
the compiler's and the linker's search path, -Bstatic/-Bdynamic, and GNU ld
text scripts (libc.so) followed to the files they name."""
import dataclasses
import functools
import os
import pathlib
import re
import shlex
import subprocess

from .tool_run import SymbolCheckError, cc_words, run, tail, words


@dataclasses.dataclass
class LibraryFile:
    """One target library as the linker finds it.

    name         the library name (`z` for `-lz` and for `/x/libz.a`)
    shared_path  the shared object (`libz.so` or, when that is a GNU ld text
                 script like libc.so, the first shared object the script names)
    static_path  the archive (`libz.a`)
    flag         the `--libs` item as given (`-lz`, `/x/libz.a`)
    linked_path  the file the linker takes for that item (first directory with
                 either file, the shared one preferred; the archive under -static
                 or -Bstatic)
    script       the linker script the shared name turned out to be, if any
    script_inputs  every file that script names (shared objects and archives)
    """
    name: str
    shared_path: str = None
    static_path: str = None
    flag: str = None
    linked_path: str = None
    script: str = None
    script_inputs: tuple = ()

    @property
    def linked_files(self):
        """The files whose symbols the linker sees for this item."""
        if self.linked_path and self.script and self.linked_path == self.shared_path:
            return list(self.script_inputs)
        return [self.linked_path] if self.linked_path else []


def library_dirs(words, what):
    """The -L directories of a flag list, in order; a missing one is an error."""
    dirs = []
    i = 0
    while i < len(words):
        word = words[i]
        found = []
        if word == "-L" and i + 1 < len(words):
            found, i = [words[i + 1]], i + 1
        elif word.startswith("-L"):
            found = [word[2:]]
        elif word.startswith("-Wl,"):
            parts = word[4:].split(",")
            for j, part in enumerate(parts):
                if part.startswith("-L") and len(part) > 2:
                    found.append(part[2:])
                elif part in ("-L", "--library-path") and j + 1 < len(parts):
                    found.append(parts[j + 1])
                elif part.startswith("--library-path="):
                    found.append(part.split("=", 1)[1])
        for d in found:
            if not os.path.isdir(d):
                problem = "does not exist" if not os.path.exists(d) else "is not a directory"
                raise SymbolCheckError(f"{what}: '-L{d}': the library directory {problem}")
            dirs.append(d)
        i += 1
    return dirs


@functools.lru_cache(maxsize=None)
def compiler_dirs(cc):
    """The compiler's own library search path, then the linker's default one."""
    cc = list(cc)
    proc = run(cc + ["-print-search-dirs"])
    if proc.returncode != 0:
        raise SymbolCheckError(f"compiler '{shlex.join(cc)}' fails on -print-search-dirs "
                               f"(exit {proc.returncode}):\n{tail(proc.stderr + proc.stdout)}")
    dirs = []
    for line in proc.stdout.splitlines():
        if line.startswith("libraries:"):
            dirs += [d for d in line.split(":", 1)[1].strip().lstrip("=").split(":") if d]
    ld = run(cc + ["-print-prog-name=ld"]).stdout.strip() or "ld"
    try:
        script = subprocess.run([ld, "--verbose"], capture_output=True, text=True,
                                errors="replace").stdout
    except OSError:
        script = ""
    dirs += [d.lstrip("=") for d in re.findall(r'SEARCH_DIR\("([^"]*)"\)', script)]
    seen, ordered = set(), []
    for d in dirs:
        if not os.path.isdir(d):
            continue
        short = os.path.normpath(d)     # '/usr/lib/gcc/x/12/../../../y' -> '/usr/lib/y'
        if short != d and os.path.isdir(short) and os.path.samefile(short, d):
            d = short
        key = os.path.realpath(d)
        if key not in seen:
            seen.add(key)
            ordered.append(d)
    return tuple(ordered)


def file_kind(path):
    """'elf', 'archive', 'script' (text) or None (unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return None
    if head.startswith(b"\x7fELF"):
        return "elf"
    if head.startswith(b"!<arch>") or head.startswith(b"!<thin>"):
        return "archive"
    return "script"


def script_inputs(path, dirs):
    """The files a GNU ld text script (INPUT/GROUP, with AS_NEEDED) names."""
    try:
        text = pathlib.Path(path).read_text(errors="replace")
    except OSError:
        return []
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    tokens = re.findall(r"[()]|[^\s(),]+", text)
    inputs, depth, inside = [], 0, False
    for i, tok in enumerate(tokens):
        if tok in ("GROUP", "INPUT") and i + 1 < len(tokens) and tokens[i + 1] == "(" and depth == 0:
            inside = True
            continue
        if not inside:
            continue
        if tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth == 0:
                inside = False
        elif tok != "AS_NEEDED":
            inputs.append(tok)
    here = os.path.dirname(path)
    found = []
    for item in inputs:
        if item.startswith("-l"):
            lib = _search(item[2:], dirs, static=False)[0]
            if lib:
                found.append(lib)
        elif os.path.isabs(item.lstrip("=")):
            if os.path.exists(item.lstrip("=")):
                found.append(item.lstrip("="))
        else:
            for d in [here] + list(dirs):
                if os.path.exists(os.path.join(d, item)):
                    found.append(os.path.join(d, item))
                    break
    return found


def _search(name, dirs, static):
    """(linked, shared, static) paths for -lNAME (-l:FILE when name starts with ':')."""
    if name.startswith(":"):
        for d in dirs:
            p = os.path.join(d, name[1:])
            if os.path.isfile(p):
                shared = p if not p.endswith(".a") else None
                return p, shared, (p if shared is None else None)
        return None, None, None
    linked = shared = archive = None
    for d in dirs:
        so, a = os.path.join(d, f"lib{name}.so"), os.path.join(d, f"lib{name}.a")
        so_ok, a_ok = os.path.isfile(so), os.path.isfile(a)
        if so_ok and shared is None:
            shared = so
        if a_ok and archive is None:
            archive = a
        if linked is None:
            if static and a_ok:
                linked = a
            elif not static and (so_ok or a_ok):
                linked = so if so_ok else a
    return linked, shared, archive


def _library_name(path):
    base = os.path.basename(path)
    m = re.match(r"^(?:lib)?(.+?)(?:\.so(?:\.[0-9.]+)?|\.a)?$", base)
    return m.group(1) if m else base


def _resolve_script(lib, dirs):
    """When the shared file is a linker script, follow it."""
    if lib.shared_path and file_kind(lib.shared_path) == "script":
        script = lib.shared_path
        inputs = script_inputs(script, dirs)
        shared = [p for p in inputs if file_kind(p) == "elf"]
        lib.script = script
        lib.script_inputs = tuple(inputs)
        lib.shared_path = shared[0] if shared else None
        if lib.linked_path == script:
            lib.linked_path = lib.shared_path
    return lib


def _linker_mode(word, static):
    """Whether -l finds archives only after `word`: the linker's -Bstatic /
    -Bdynamic (and their aliases) passed with -Wl, switch it."""
    if word.startswith("-Wl,"):
        for part in word[4:].split(","):
            if part in ("-Bstatic", "-dn", "-non_shared", "-static"):
                static = True
            elif part in ("-Bdynamic", "-dy", "-call_shared"):
                static = False
    return static


def find_libraries(libs, ldflags, cc):
    """Resolve each `-lNAME` of libs as the linker would (the -L directories of
    ldflags and libs, then the compiler's search directories, then the linker's
    defaults) and each literal library path; a library found nowhere, a -L
    directory that does not exist or a missing path raises SymbolCheckError."""
    lib_words, flag_words = words(libs), words(ldflags)
    dirs = library_dirs(flag_words, "--ldflags") + library_dirs(lib_words, "--libs")
    all_dirs = None
    static = any(w in ("-static", "--static") for w in flag_words + lib_words)
    found = []
    for word in flag_words:
        static = _linker_mode(word, static)
    i = 0
    while i < len(lib_words):
        word = lib_words[i]
        static = _linker_mode(word, static)
        name = None
        if word == "-l" and i + 1 < len(lib_words):
            name, flag = lib_words[i + 1], f"-l{lib_words[i + 1]}"
            i += 1
        elif word.startswith("-l") and len(word) > 2:
            name, flag = word[2:], word
        elif not word.startswith("-") and ("/" in word or re.search(r"\.(a|so(\.[0-9.]+)?)$", word)):
            if not os.path.isfile(word):
                raise SymbolCheckError(f"--libs: '{word}': no such library file")
            kind = file_kind(word)
            lib = LibraryFile(_library_name(word), flag=word, linked_path=word)
            if kind == "archive":
                lib.static_path = word
            elif kind == "script" or ".so" in os.path.basename(word):
                lib.shared_path = word          # (an object file is neither)
            if all_dirs is None:
                all_dirs = tuple(dirs) + compiler_dirs(tuple(cc_words(cc)))
            found.append(_resolve_script(lib, all_dirs))
        if name is not None:
            if all_dirs is None:
                all_dirs = tuple(dirs) + compiler_dirs(tuple(cc_words(cc)))
            linked, shared, archive = _search(name, all_dirs, static)
            if linked is None:
                wanted = name[1:] if name.startswith(":") else (
                    f"lib{name}.a" if static else f"lib{name}.so or lib{name}.a")
                where = ", ".join(dirs) if dirs else "no -L directory given"
                raise SymbolCheckError(
                    f"--libs: '{flag}': library not found: no {wanted} in the -L directories "
                    f"({where}) nor in the compiler's and linker's search path")
            lib = LibraryFile(name.lstrip(":") if name.startswith(":") else name, shared, archive,
                              flag=flag, linked_path=linked)
            if name.startswith(":"):
                lib.name = _library_name(name[1:])
            found.append(_resolve_script(lib, all_dirs))
        i += 1
    return found
