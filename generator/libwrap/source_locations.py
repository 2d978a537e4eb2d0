"""Where a declaration is, as the line markers of the preprocessed header say
(the header the line came from, not libwrap.i), as absolute paths."""
import ctypes
import os


class PresumedLocations:
    def __init__(self, ci, path):
        self.ci = ci
        self.lib = ci.conf.lib
        self.base_dir = os.path.dirname(os.path.abspath(str(path)))
        self._file_cache = {}

    def presumed(self, location):
        name = self.ci._CXString()
        line, col = ctypes.c_uint(), ctypes.c_uint()
        self.lib.clang_getPresumedLocation(location, ctypes.byref(name), ctypes.byref(line),
                                           ctypes.byref(col))
        filename = self.ci._CXString.from_result(name)
        return self.absolute(filename), line.value, col.value

    def absolute(self, filename):
        if not filename:
            return filename
        cached = self._file_cache.get(filename)
        if cached is None:
            if filename.startswith("<"):          # <built-in>, <command-line>
                cached = filename
            else:
                cached = os.path.normpath(os.path.join(self.base_dir, filename))
            self._file_cache[filename] = cached
        return cached
