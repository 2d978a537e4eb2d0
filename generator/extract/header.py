"""Read C function prototypes and function-like macros from a header with libclang."""
import glob
import re
from dataclasses import dataclass

from ..errors import SpecError


@dataclass(frozen=True)
class CParam:
    name: str
    type: str           # normalised spelling: "const int *", "MPI_Comm *", "char ***"
    is_array: bool      # declared with [] in the header
    is_const: bool      # pointee (or array element) is const


@dataclass(frozen=True)
class CFunction:
    name: str
    result: str
    params: tuple
    variadic: bool


def load_libclang():
    import clang.cindex as ci
    if not ci.Config.loaded:
        candidates = sorted(glob.glob("/usr/lib/llvm-*/lib/libclang-*.so.1"), reverse=True)
        if candidates:
            ci.Config.set_library_file(candidates[0])
    return ci


def normalise(spelling):
    """`const MPI_Count[]` -> `const MPI_Count *`; collapses spaces."""
    s = spelling.replace("[]", "*")
    s = re.sub(r"\s*\*", " *", s)
    s = re.sub(r"\*\s+\*", "**", s).replace("* *", "**")
    s = re.sub(r"\s+", " ", s).strip()
    return s.replace("* *", "**")


def parse_header(path, args=(), prefix="MPI_"):
    ci = load_libclang()
    index = ci.Index.create()
    import os
    include_dir = os.path.dirname(os.path.abspath(path))
    tu = index.parse(str(path), args=["-x", "c", f"-I{include_dir}", *args],
                     options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise SpecError(f"libclang cannot parse the header: {errors[0].spelling} "
                        f"(line {errors[0].location.line})", file=path)
    functions, macros = {}, {}
    for cur in tu.cursor.get_children():
        if not cur.spelling.startswith(prefix):
            continue
        if cur.kind == ci.CursorKind.FUNCTION_DECL and cur.spelling not in functions:
            params = []
            for arg in cur.get_arguments():
                spelling = arg.type.spelling
                is_array = "[" in spelling
                params.append(CParam(arg.spelling, normalise(spelling), is_array,
                                     spelling.startswith("const ")))
            functions[cur.spelling] = CFunction(cur.spelling, normalise(cur.result_type.spelling),
                                                tuple(params), cur.type.is_function_variadic())
        elif cur.kind == ci.CursorKind.MACRO_DEFINITION and cur.spelling not in macros:
            tokens = list(cur.get_tokens())
            # Function-like: the "(" touches the name ("#define F(x)", not "#define C (x)").
            if (len(tokens) > 2 and tokens[1].spelling == "("
                    and tokens[1].extent.start.offset == tokens[0].extent.end.offset):
                close = [t.spelling for t in tokens].index(")")
                macros[cur.spelling] = tuple(t.spelling for t in tokens[2:close] if t.spelling != ",")
    return functions, macros
