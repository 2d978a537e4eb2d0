"""Library wrapping: the header front-end (header.py and the modules it
composes) turns a preprocessed library header into Procedure objects, the
symbol check (link_check.py) tells which of their symbols the library
exports, the back-end renders wrappers; docs/LIBWRAP_FRONTEND.md maps the
modules."""
