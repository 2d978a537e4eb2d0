/* The support header of the generated system adapters (generated/io/, from
 * tasks/posix_io.json and tasks/isoc_io.json by generator/system_backend.py):
 * what their wrappers and task snippets (tasks/io_*.c.j2) need besides the
 * library wrapper API.
 *
 * The declarations are the system's own: the same headers and feature macros
 * the catalogues' header front-end scanned ("header" in tasks/posix_io.json,
 * tasks/isoc_io.json), so the types of the wrappers' parameters (__off_t,
 * mode_t, struct iovec, FILE, fpos64_t) are the ones the program was
 * compiled against.
 *
 * What the measurement itself does (starting, spilling trace buffers,
 * writing the experiment) runs with event generation off on its thread
 * (lifecycle.c, trace/trace_blocks.c): the wrappers' recording test
 * (scorep_libwrap_should_record) sends those calls straight to the C library,
 * so they neither recurse into the measurement nor show up in its data. */
#ifndef SCOREP_IO_ADAPTER_H
#define SCOREP_IO_ADAPTER_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#ifndef _LARGEFILE64_SOURCE
#define _LARGEFILE64_SOURCE
#endif
/* the wrappers define the plain symbols (open, read, fprintf, ...): no
 * fortified inline versions of them in this translation unit */
#undef _FORTIFY_SOURCE

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>   /* strlen: the bytes of fputs, puts, fgets */
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <scorep_wrapgen/adapter.h>   /* scorep_io_bytes */

#endif /* SCOREP_IO_ADAPTER_H */
