"""Loading libclang: the Python bindings, the library (SCOREP_LIBWRAP_LIBCLANG
or the newest LLVM installed), and the few functions the front-end calls that
the bindings of LLVM 16 do not wrap."""
import ctypes
import glob
import os

from ..errors import SpecError


class HeaderError(SpecError):
    """The header cannot be scanned: libclang missing or the header does not parse."""


class _RawCXString(ctypes.Structure):
    """A CXString without the bindings' __del__ (a string set frees its own)."""
    _fields_ = [("data", ctypes.c_void_p), ("private_flags", ctypes.c_uint)]


class _CXStringSet(ctypes.Structure):
    _fields_ = [("strings", ctypes.POINTER(_RawCXString)), ("count", ctypes.c_uint)]


def _libclang_candidates():
    env = os.environ.get("SCOREP_LIBWRAP_LIBCLANG")
    found = [env] if env else []
    found += ["/usr/lib/llvm-16/lib/libclang.so.1", "/usr/lib/llvm-16/lib/libclang-16.so.1"]
    found += sorted(glob.glob("/usr/lib/llvm-*/lib/libclang.so.1"), reverse=True)
    found += sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libclang-*.so.1"), reverse=True)
    return [f for f in found if f and os.path.exists(f)]


_cindex = None


def load_cindex():
    """clang.cindex with its library loaded and the few functions this module
    calls that the Python bindings of LLVM 16 do not wrap."""
    global _cindex
    if _cindex is not None:
        return _cindex
    try:
        import clang.cindex as ci
    except ImportError as exc:
        raise HeaderError(
            "the Python bindings of libclang are missing (Debian/Ubuntu: apt-get install "
            f"python3-clang-16; they must be importable by this interpreter): {exc}") from None
    if not ci.Config.loaded and not ci.Config.library_file and not ci.Config.library_path:
        candidates = _libclang_candidates()
        if candidates:
            ci.Config.set_library_file(candidates[0])
    try:
        lib = ci.conf.lib
    except Exception as exc:        # clang.cindex.LibclangError
        raise HeaderError(
            "libclang cannot be loaded (Debian/Ubuntu: apt-get install libclang1-16; "
            f"or set SCOREP_LIBWRAP_LIBCLANG to its path): {exc}") from None
    c_uint = ctypes.c_uint
    registered = {entry[0] for entry in getattr(ci, "functionList", ())}
    for fname, argtypes, restype in (
            ("clang_getPresumedLocation", [ci.SourceLocation, ctypes.POINTER(ci._CXString),
                                           ctypes.POINTER(c_uint), ctypes.POINTER(c_uint)], None),
            ("clang_Location_isInSystemHeader", [ci.SourceLocation], ctypes.c_int),
            ("clang_isInvalidDeclaration", [ci.Cursor], c_uint),
            ("clang_Cursor_isFunctionInlined", [ci.Cursor], c_uint),
            ("clang_Type_getModifiedType", [ci.Type], ci.Type),
            ("clang_getCursorLinkage", [ci.Cursor], ctypes.c_int),
            ("clang_getCXXAccessSpecifier", [ci.Cursor], ctypes.c_int),
            ("clang_getCursorAvailability", [ci.Cursor], ctypes.c_int),
            ("clang_getExceptionSpecificationType", [ci.Type], ctypes.c_int),
            ("clang_getCursorExceptionSpecificationType", [ci.Cursor], ctypes.c_int),
            ("clang_Type_getCXXRefQualifier", [ci.Type], ctypes.c_int),
            ("clang_CXXMethod_isStatic", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isConst", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isVirtual", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isPureVirtual", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isDefaulted", [ci.Cursor], c_uint),
            ("clang_CXXMethod_isDeleted", [ci.Cursor], c_uint),
            ("clang_Cursor_getNumTemplateArguments", [ci.Cursor], ctypes.c_int),
            ("clang_isFunctionTypeVariadic", [ci.Type], c_uint),
            ("clang_isConstQualifiedType", [ci.Type], c_uint),
            ("clang_isVolatileQualifiedType", [ci.Type], c_uint),
            ("clang_isRestrictQualifiedType", [ci.Type], c_uint),
            ("clang_Type_getNumTemplateArguments", [ci.Type], ctypes.c_int),
            ("clang_getArraySize", [ci.Type], ctypes.c_longlong),
            ("clang_Cursor_getCXXManglings", [ci.Cursor], ctypes.POINTER(_CXStringSet)),
            ("clang_disposeStringSet", [ctypes.POINTER(_CXStringSet)], None)):
        try:
            func = getattr(lib, fname)
        except AttributeError:
            raise HeaderError(f"libclang ({ci.Config.library_file or 'default'}) lacks {fname}; "
                              "libclang 16 or newer is needed") from None
        if fname in registered:          # the bindings' own registration stays
            continue
        func.argtypes = argtypes
        func.restype = restype
        if restype is ci.Type:
            func.errcheck = ci.Type.from_result
    raw_cstring = lib["clang_getCString"]        # a function object of its own
    raw_cstring.argtypes = [_RawCXString]
    raw_cstring.restype = ctypes.c_char_p
    ci._scorep_raw_cstring = raw_cstring
    _cindex = ci
    return ci
