/*
 * GCC plugin: compiler instrumentation of user functions (scorep, default on).
 *
 * For every function it instruments, the plugin creates a file-local
 * handle variable (unsigned, zero-initialised) and wraps the function body,
 * before lowering, into
 *
 *     if (handle != FILTERED) __scorep_compiler_region_enter(&handle, name, symbol, file, line, end_line);
 *     try { <body> } finally {
 *         if (handle != FILTERED) __scorep_compiler_exit(&handle);
 *     }
 *
 * the same shape GCC's -finstrument-functions gives a function, so every
 * way out (return, C++ exception) leaves the region. The name, linker symbol,
 * file and lines are known here, at compile time: the run time needs no
 * symbol table, and a filtered function costs a load and a branch at entry
 * and at exit (the handle says FILTERED after its first call). Functions the
 * compile-time filter (-fplugin-arg-scorep_instrument-filter=FILE) excludes
 * get no instrumentation at all.
 *
 * The region is described as Score-P's GCC plugin describes it, so that
 * Cube matches the call paths of both tools (by name, file, begin and end
 * line): the file is the real absolute path of the function's source file
 * (relative names are taken from the compiler's working directory), the
 * begin line the function's declaration, the end line the function's
 * closing brace (Fortran: its END statement).
 *
 * Not instrumented: compiler-generated functions, gfortran's C `main` (it
 * only calls the program unit, MAIN__, which is the program's region), functions declared inline
 * when optimising (they stay inlined and cost nothing; at -O0 GCC inlines
 * nothing, so they are instrumented there), always_inline and
 * no_instrument_function functions, and functions defined in system and
 * library headers (below): a program's std:: or Qt template instantiations
 * and inline functions are the libraries' code, called in tight loops, and
 * measuring each of them made a small Qt program 4x slower.
 *
 * A function counts as a system or library header's when the file of its
 * definition (DECL_SOURCE_FILE: for a template instantiation, the template's)
 * is a system header to GCC (found in a system include directory, -isystem,
 * #pragma GCC system_header) or lies below one of the directories of the
 * plugin argument library-dirs=DIR:DIR:... (scorep passes the compiler's
 * system include directories, so that /usr/include/.../qt5 reached through
 * Qt's -I is one, the command's -isystem directories, which gfortran does
 * not mark, and the include directories of --libwrap libraries).
 * A header of the program's own (-I of its own directories) is neither.
 * The argument library-headers instruments them all the same.
 *
 * OpenMP (plugin argument openmp, which scorep gives where the OpenMP adapter
 * measures the program): the pass runs after GCC's omplower, where every
 * construct is still a GIMPLE_OMP_* statement at its pragma's location.
 * Before a construct that calls libgomp the plugin tells the adapter the
 * pragma's file and line (and the construct's last line, which names its
 * implicit barrier), so that its regions carry Score-P's names rather than
 * the debug line of the call; around the constructs GCC computes inline (a
 * loop with a static schedule, master, flush, an atomic update) it puts
 * explicit begin and end calls (runtime/omp_adapter/scorep_omp_sites.h,
 * omp_sites.c). This part ignores the filter: constructs are not functions.
 *
 * Runs inside cc1, cc1plus and f951 of GCC 12 (built against its
 * gcc-12-plugin-dev headers); the instrumenter passes it with -fplugin.
 */
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "tree-pass.h"
#include "context.h"
#include "stringpool.h"
#include "attribs.h"
#include "langhooks.h"
#include "varasm.h"
#include "cgraph.h"
#include "diagnostic-core.h"
#include "gimplify.h"

#include "omp-general.h"

#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "omp_adapter/scorep_omp_sites.h"

/* the measurement's filter (runtime/util/filter.c, compiled into the plugin):
 * the same rules and messages at compile time as at run time */
extern "C" {
typedef struct scorep_filter scorep_filter;
scorep_filter* scorep_filter_load(const char* path, char* error, size_t error_size);
bool scorep_filter_excludes(const scorep_filter* filter, const char* region_name,
                            const char* file_name, const char* mangled_name);
}

int plugin_is_GPL_compatible;   /* required by GCC to load a plugin; BSD code is compatible */

static const unsigned FILTERED = 0xFFFFFFFFu;   /* handle value of a filtered region (see compiler.c) */
static scorep_filter* compile_time_filter;
static tree enter_fn, exit_fn;
static unsigned handle_counter;
static bool verbose;
static bool instrument_library_headers;            /* library-headers */
static std::vector<std::string> library_dirs;     /* library-dirs=DIR:DIR:..., real paths */

typedef char* (*demangle_fn)(const char*, int);

/* The name a user knows: demangled C++ (as c++filt prints it), Fortran module
 * procedures as module::name, otherwise the source name. */
static std::string region_name(tree fndecl, const char* symbol)
{
    std::string sym = symbol;
    /* gfortran: __<module>_MOD_<name> */
    if (sym.compare(0, 2, "__") == 0) {
        size_t mod = sym.find("_MOD_", 2);
        if (mod != std::string::npos && mod > 2)
            return sym.substr(2, mod - 2) + "::" + sym.substr(mod + 5);
    }
    if (sym.compare(0, 2, "_Z") == 0) {
        /* libiberty's demangler is part of the compiler; looked up, not linked */
        static demangle_fn demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "cplus_demangle");
        if (demangle) {
            char* d = demangle(symbol, 1 /* DMGL_PARAMS */ | 2 /* DMGL_ANSI */);
            if (d) {
                std::string out = d;
                free(d);
                return out;
            }
        }
        return lang_hooks.decl_printable_name(fndecl, 2);
    }
    if (sym == "MAIN__") {
        /* the Fortran main program: its own name if the front end kept it */
        const char* n = IDENTIFIER_POINTER(DECL_NAME(fndecl));
        return strcmp(n, "MAIN__") == 0 ? std::string("MAIN__") : std::string(n);
    }
    return IDENTIFIER_POINTER(DECL_NAME(fndecl));
}

static bool below(const std::string& path, const std::string& dir)
{
    if (dir.empty()) return false;
    if (dir == "/") return true;
    return path.compare(0, dir.size(), dir) == 0 && (path.size() == dir.size() || path[dir.size()] == '/');
}

/* Whether a function is defined in a system or library header (see the top).
 * The answer per file is kept: a translation unit has few files and many
 * functions. */
static bool in_library_header(tree fndecl)
{
    if (DECL_IN_SYSTEM_HEADER(fndecl)) return true;
    const char* file = DECL_SOURCE_FILE(fndecl);
    if (!file || !file[0] || library_dirs.empty()) return false;
    static std::map<std::string, bool> known;
    auto found = known.find(file);
    if (found != known.end()) return found->second;
    /* the real path, as scorep gives the directories: a header reached
     * through a symbolic link or "dir/../" is the same header */
    char real[PATH_MAX];
    std::string path = realpath(file, real) ? real : file;
    bool result = false;
    for (const std::string& dir : library_dirs)
        if (below(path, dir)) {
            result = true;
            break;
        }
    known[file] = result;
    return result;
}

static bool is_fortran(void)
{
    /* "GNU Fortran", later "GNU Fortran2008" */
    return strncmp(lang_hooks.name, "GNU Fortran", 11) == 0;
}

/* The real absolute path of a source file name as GCC spells it. */
static std::string absolute_source(const char* file)
{
    if (!file || !file[0]) return "";
    std::string path = file;
    if (path[0] != '/') {
        const char* cwd = getpwd();
        if (cwd) path = std::string(cwd) + "/" + path;
    }
    char real[PATH_MAX];
    return realpath(path.c_str(), real) ? std::string(real) : path;
}

static bool should_instrument(tree fndecl)
{
    if (!fndecl || DECL_ARTIFICIAL(fndecl) || DECL_IS_UNDECLARED_BUILTIN(fndecl)) return false;
    /* (GCC sets DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT on every function
     * without -finstrument-functions: the attribute is what the user wrote) */
    if (lookup_attribute("no_instrument_function", DECL_ATTRIBUTES(fndecl))) return false;
    if (lookup_attribute("always_inline", DECL_ATTRIBUTES(fndecl))) return false;
    if (optimize > 0 && DECL_DECLARED_INLINE_P(fndecl)) return false;
    if (!DECL_NAME(fndecl)) return false;
    /* the instrumentation's own functions and GCC-internal helpers */
    const char* n = IDENTIFIER_POINTER(DECL_NAME(fndecl));
    if (strncmp(n, "__scorep", 8) == 0 || strncmp(n, "scorep_", 7) == 0) return false;
    if (is_fortran() && strcmp(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl)), "main") == 0) return false;
    /* members of the measurement's classes (scorep_user.h's SCOREP_User_Region,
     * whose constructor begins a user region: measured at -O0, its exit would
     * leave while the user region it began is still open) */
    tree context = DECL_CONTEXT(fndecl);
    if (context && TYPE_P(context) && TYPE_NAME(context)) {
        tree type_name = TYPE_NAME(context);
        if (TREE_CODE(type_name) == TYPE_DECL) type_name = DECL_NAME(type_name);
        if (type_name && TREE_CODE(type_name) == IDENTIFIER_NODE &&
            strncmp(IDENTIFIER_POINTER(type_name), "SCOREP_", 7) == 0)
            return false;
    }
    if (!instrument_library_headers && in_library_header(fndecl)) {
        if (verbose) inform(DECL_SOURCE_LOCATION(fndecl), "scorep: '%s' left out: defined in a system or library header",
                            lang_hooks.decl_printable_name(fndecl, 2));
        return false;
    }
    return true;
}

static tree declare_hook(const char* name, bool with_description)
{
    tree type = with_description
        ? build_function_type_list(void_type_node, ptr_type_node, const_ptr_type_node,
                                   const_ptr_type_node, const_ptr_type_node, integer_type_node,
                                   integer_type_node, NULL_TREE)
        : build_function_type_list(void_type_node, ptr_type_node, NULL_TREE);
    tree decl = build_fn_decl(name, type);
    TREE_NOTHROW(decl) = 1;
    DECL_IGNORED_P(decl) = 1;
    return decl;
}

static tree literal(const std::string& s)
{
    return build_string_literal(s.size() + 1, s.c_str());
}

/* if (handle != FILTERED) call */
static void add_guarded_call(gimple_seq* seq, tree handle, gcall* call)
{
    tree value = create_tmp_var(unsigned_type_node, "scorep_handle");
    gimple_seq_add_stmt(seq, gimple_build_assign(value, handle));
    tree do_call = create_artificial_label(UNKNOWN_LOCATION);
    tree skip = create_artificial_label(UNKNOWN_LOCATION);
    gimple_seq_add_stmt(seq, gimple_build_cond(NE_EXPR, value, build_int_cst(unsigned_type_node, FILTERED),
                                               do_call, skip));
    gimple_seq_add_stmt(seq, gimple_build_label(do_call));
    gimple_seq_add_stmt(seq, call);
    gimple_seq_add_stmt(seq, gimple_build_label(skip));
}

/* ---- OpenMP constructs ----------------------------------------------------- */

static bool openmp_sites;              /* openmp */
static tree omp_site_fn, omp_site_named_fn, omp_begin_fn, omp_end_fn;

/* a source file's lines, read once per translation unit */
static const std::vector<std::string>& source_lines(const std::string& path)
{
    static std::map<std::string, std::vector<std::string>> files;
    auto found = files.find(path);
    if (found != files.end()) return found->second;
    std::vector<std::string>& lines = files[path];
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/* The last line of the C statement after the pragma at line (1-based), as
 * OPARI2 ends the construct: the closing brace of a block, the semicolon
 * of a statement (a loop's body's). A scan, not a parse: 0 where it finds
 * no end. */
static int c_end_line(const std::vector<std::string>& lines, int line)
{
    size_t n = line;   /* 0-based index of the line after the pragma */
    while (n - 1 < lines.size() && !lines[n - 1].empty() && lines[n - 1].back() == '\\') n++;
    int paren = 0, brace = 0;
    bool block_comment = false;
    for (; n < lines.size(); n++) {
        const std::string& l = lines[n];
        size_t first = l.find_first_not_of(" \t");
        if (!block_comment && first != std::string::npos && l[first] == '#') {
            while (n < lines.size() && !lines[n].empty() && lines[n].back() == '\\') n++;
            continue;   /* a directive: a nested pragma, #if */
        }
        for (size_t i = 0; i < l.size(); i++) {
            char c = l[i];
            if (block_comment) {
                if (c == '*' && i + 1 < l.size() && l[i + 1] == '/') block_comment = false, i++;
                continue;
            }
            if (c == '/' && i + 1 < l.size() && l[i + 1] == '/') break;
            if (c == '/' && i + 1 < l.size() && l[i + 1] == '*') {
                block_comment = true;
                i++;
            } else if (c == '"' || c == '\'') {
                for (i++; i < l.size() && l[i] != c; i++)
                    if (l[i] == '\\') i++;
            } else if (c == '(') {
                paren++;
            } else if (c == ')') {
                paren--;
            } else if (c == '{' && paren == 0) {
                brace++;
            } else if (c == '}' && paren == 0) {
                if (--brace == 0) return (int)n + 1;
            } else if (c == ';' && paren == 0 && brace == 0) {
                return (int)n + 1;
            }
        }
    }
    return 0;
}

/* the directive of a Fortran line "!$omp [end] <directive> [clauses]"
 * ("" if none), with end */
static std::string fortran_directive(const std::string& line, bool* end)
{
    static const char* const names[] = {"parallel do simd", "parallel do", "parallel sections", "parallel workshare",
                                        "parallel", "do simd", "do", "sections", "section", "single", "workshare",
                                        "master", "masked", "critical", "ordered", "taskgroup", "task", "atomic"};
    std::string l;
    for (char c : line) l += (char)tolower((unsigned char)c);
    size_t at = l.find_first_not_of(" \t");
    if (at == std::string::npos || l.compare(at, 5, "!$omp") != 0) return "";
    at = l.find_first_not_of(" \t", at + 5);
    if (at == std::string::npos) return "";
    *end = l.compare(at, 3, "end") == 0 && (at + 3 >= l.size() || !isalnum((unsigned char)l[at + 3]));
    if (*end) at = l.find_first_not_of(" \t", at + 3);
    if (at == std::string::npos) return "";
    /* words as the source spells them: one blank between them */
    std::string words;
    for (size_t i = at; i < l.size() && (isalpha((unsigned char)l[i]) || l[i] == ' ' || l[i] == '\t'); i++) {
        if (isalpha((unsigned char)l[i]))
            words += l[i];
        else if (!words.empty() && words.back() != ' ')
            words += ' ';
    }
    /* "enddo" spelt together is rare in directives: not handled */
    for (const char* name : names) {
        size_t len = strlen(name);
        if (words.compare(0, len, name) == 0 && (words.size() == len || words[len] == ' ')) return name;
    }
    return "";
}

/* a Fortran statement's words, lower case, one blank between words, without
 * a construct label ("outer: do i = ...") and a trailing comment */
static std::string fortran_words(const std::string& line)
{
    std::string words;
    for (char c : line) {
        if (c == '!') break;
        if (isspace((unsigned char)c)) {
            if (!words.empty() && words.back() != ' ') words += ' ';
        } else {
            words += (char)tolower((unsigned char)c);
        }
    }
    size_t colon = words.find(':');
    if (colon != std::string::npos && words.compare(colon, 2, "::") != 0) {
        size_t i = 0;
        while (i < colon && (isalnum((unsigned char)words[i]) || words[i] == '_')) i++;
        if (i > 0 && words.find_first_not_of(' ', i) == colon) {
            size_t rest = words.find_first_not_of(' ', colon + 1);
            words = rest == std::string::npos ? std::string() : words.substr(rest);
        }
    }
    return words;
}

static bool keyword(const std::string& words, const char* word)
{
    size_t len = strlen(word);
    return words.compare(0, len, word) == 0 &&
           (words.size() == len || !(isalnum((unsigned char)words[len]) || words[len] == '_'));
}

/* A loop directive ends with its loop: the line of the DO's END DO, or of
 * the directive's end directive right after it. 0 for a loop this does not
 * follow (a labelled DO ... CONTINUE). */
static int fortran_loop_end_line(const std::vector<std::string>& lines, int line, const std::string& directive)
{
    int depth = 0;
    for (size_t n = line; n < lines.size(); n++) {
        std::string w = fortran_words(lines[n]);
        if (w.empty()) continue;
        if (keyword(w, "do")) {
            if (w.size() > 3 && isdigit((unsigned char)w[3])) return 0;   /* do 10 i = ... */
            depth++;
        } else if (keyword(w, "enddo") || keyword(w, "end do")) {
            if (--depth > 0) continue;
            for (size_t m = n + 1; m < lines.size(); m++) {
                bool end = false;
                if (fortran_directive(lines[m], &end) == directive && end) return (int)m + 1;
                if (!fortran_words(lines[m]).empty() || lines[m].find("!$") != std::string::npos) break;
            }
            return (int)n + 1;
        } else if (depth == 0) {
            return 0;   /* no DO after the directive */
        }
    }
    return 0;
}

/* The line of the "!$omp end <directive>" of the directive at line, the
 * same directives nested in between counted (a loop directive's: above);
 * 0 without one. */
static int fortran_end_line(const std::vector<std::string>& lines, int line)
{
    if (line < 1 || (size_t)line > lines.size()) return 0;
    bool end = false;
    std::string directive = fortran_directive(lines[line - 1], &end);
    if (directive.empty() || end) return 0;
    if (directive == "do" || directive == "parallel do" || directive == "do simd" || directive == "parallel do simd")
        return fortran_loop_end_line(lines, line, directive);
    int depth = 1;
    for (size_t n = line; n < lines.size(); n++) {
        std::string d = fortran_directive(lines[n], &end);
        if (d != directive) continue;
        depth += end ? -1 : 1;
        if (depth == 0) return (int)n + 1;
    }
    return 0;
}

static int construct_end_line(const std::string& file, int line)
{
    const std::vector<std::string>& lines = source_lines(file);
    return is_fortran() ? fortran_end_line(lines, line) : c_end_line(lines, line);
}

/* The line of the directive with word of stmt: its own line or (GCC
 * sometimes gives an atomic update its statement's line) the one before;
 * 0 if neither has it: GCC makes atomic updates of its own (a reduction's)
 * and a program may call __sync_synchronize, without the pragma. */
static int directive_line(gimple* stmt, const char* word)
{
    location_t loc = gimple_location(stmt);
    if (loc == UNKNOWN_LOCATION || !LOCATION_FILE(loc)) return 0;
    const std::vector<std::string>& lines = source_lines(absolute_source(LOCATION_FILE(loc)));
    for (int line = LOCATION_LINE(loc); line >= 1 && line >= LOCATION_LINE(loc) - 1; line--) {
        if ((size_t)line > lines.size()) return 0;
        std::string l;
        for (char c : lines[line - 1]) l += (char)tolower((unsigned char)c);
        if (l.find("omp") != std::string::npos && l.find(word) != std::string::npos) return line;
    }
    return 0;
}

static void declare_omp_hooks(void)
{
    if (omp_site_fn) return;
    tree site_type = build_function_type_list(void_type_node, integer_type_node, const_ptr_type_node,
                                              integer_type_node, integer_type_node, NULL_TREE);
    tree begin_type = build_function_type_list(void_type_node, integer_type_node, const_ptr_type_node,
                                               integer_type_node, NULL_TREE);
    tree end_type = build_function_type_list(void_type_node, integer_type_node, NULL_TREE);
    tree named_type = build_function_type_list(void_type_node, integer_type_node, const_ptr_type_node,
                                               integer_type_node, const_ptr_type_node, NULL_TREE);
    omp_site_fn = build_fn_decl("__scorep_omp_site", site_type);
    omp_site_named_fn = build_fn_decl("__scorep_omp_site_named", named_type);
    omp_begin_fn = build_fn_decl("__scorep_omp_begin", begin_type);
    omp_end_fn = build_fn_decl("__scorep_omp_end", end_type);
    for (tree fn : {omp_site_fn, omp_site_named_fn, omp_begin_fn, omp_end_fn}) {
        TREE_NOTHROW(fn) = 1;
        DECL_IGNORED_P(fn) = 1;
    }
}

static tree int_arg(int value)
{
    return build_int_cst(integer_type_node, value);
}

/* a construct's site: the pragma's file and line, and with_end its last line */
struct omp_site {
    std::string file;
    int line, end_line;
};

static omp_site site_of(gimple* stmt, bool with_end)
{
    omp_site site;
    location_t loc = gimple_location(stmt);
    site.file = absolute_source(LOCATION_FILE(loc));
    site.line = LOCATION_LINE(loc);
    site.end_line = with_end && site.line > 0 && !site.file.empty() ? construct_end_line(site.file, site.line) : 0;
    return site;
}

/* (NULL without a location: the adapter names the construct by its call) */
static gcall* site_call(int kind, const omp_site& site, int line, int end_line)
{
    if (line <= 0 || site.file.empty()) return NULL;
    gcall* call = gimple_build_call(omp_site_fn, 4, int_arg(kind), literal(site.file), int_arg(line), int_arg(end_line));
    return call;
}

static gcall* begin_call(int kind, const omp_site& site)
{
    return gimple_build_call(omp_begin_fn, 3, int_arg(kind), literal(site.file), int_arg(site.line));
}

static gcall* end_call(int kind)
{
    return gimple_build_call(omp_end_fn, 1, int_arg(kind));
}

/* Whether GCC computes a loop construct inline, without libgomp's loop
 * calls: a static schedule (the default) without ordered, as
 * expand_omp_for decides. */
static bool inline_loop(gomp_for* loop)
{
    tree clauses = gimple_omp_for_clauses(loop);
    if (omp_find_clause(clauses, OMP_CLAUSE_ORDERED)) return false;
    tree schedule = omp_find_clause(clauses, OMP_CLAUSE_SCHEDULE);
    if (!schedule) return true;
    int kind = OMP_CLAUSE_SCHEDULE_KIND(schedule) & OMP_CLAUSE_SCHEDULE_MASK;
    return kind == OMP_CLAUSE_SCHEDULE_STATIC;
}

/* the first OpenMP statement of a sequence, through binds and C++'s trys */
static gimple* first_omp_statement(gimple_seq seq)
{
    for (gimple_stmt_iterator gsi = gsi_start(seq); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple* stmt = gsi_stmt(gsi);
        if (gimple_code(stmt) == GIMPLE_BIND) {
            if (gimple* inner = first_omp_statement(gimple_bind_body(as_a<gbind*>(stmt)))) return inner;
        } else if (gimple_code(stmt) == GIMPLE_TRY) {
            if (gimple* inner = first_omp_statement(gimple_try_eval(stmt))) return inner;
        } else if (is_gimple_omp(stmt)) {
            return stmt;
        }
    }
    return NULL;
}

/* an open construct of a sequence, until its GIMPLE_OMP_RETURN */
struct open_construct {
    int kind;            /* SCOREP_OMP_SITE_NONE: none the adapter needs */
    bool inline_begun;   /* the plugin's begin call opened it */
    omp_site site;
    tree master_body, master_end;   /* master: the labels of its body and of its end */
};

static void omp_sites_in(gimple_seq* seq, std::vector<open_construct>& open, std::map<gimple*, omp_site>& combined);

static void omp_sites_in_statement(gimple_stmt_iterator* gsi, std::vector<open_construct>& open,
                                   std::map<gimple*, omp_site>& combined)
{
    gimple* stmt = gsi_stmt(*gsi);
    auto before = [&](gimple* call) {
        if (call) gsi_insert_before(gsi, call, GSI_SAME_STMT);
    };
    auto after = [&](gimple* call) {
        if (call) gsi_insert_after(gsi, call, GSI_NEW_STMT);
    };
    auto is_combined = [&](gimple* s) { return combined.count(s) != 0; };
    switch (gimple_code(stmt)) {
    case GIMPLE_BIND:
        omp_sites_in(gimple_bind_body_ptr(as_a<gbind*>(stmt)), open, combined);
        return;
    case GIMPLE_TRY:
        omp_sites_in(gimple_try_eval_ptr(stmt), open, combined);
        omp_sites_in(gimple_try_cleanup_ptr(stmt), open, combined);
        return;
    case GIMPLE_CATCH:
        omp_sites_in(gimple_catch_handler_ptr(as_a<gcatch*>(stmt)), open, combined);
        return;
    case GIMPLE_EH_FILTER:
        omp_sites_in(gimple_eh_filter_failure_ptr(stmt), open, combined);
        return;
    case GIMPLE_OMP_PARALLEL: {
        omp_site site = site_of(stmt, true);
        int kind = SCOREP_OMP_SITE_PARALLEL;
        if (gimple_omp_parallel_combined_p(stmt)) {
            /* the combined construct: opened by the adapter's fork */
            gimple* inner = first_omp_statement(gimple_omp_body(stmt));
            if (inner && (gimple_code(inner) == GIMPLE_OMP_FOR || gimple_code(inner) == GIMPLE_OMP_SECTIONS)) {
                combined[inner] = site;
                if (gimple_code(inner) == GIMPLE_OMP_FOR && inline_loop(as_a<gomp_for*>(inner)))
                    kind = SCOREP_OMP_SITE_PARALLEL_FOR;
            }
            /* (a combined loop GCC does not give libgomp combined, one with
             * a reduction, starts inside: its site says it is combined) */
        }
        before(site_call(kind, site, site.line, site.end_line));
        std::vector<open_construct> inside;
        omp_sites_in(gimple_omp_body_ptr(stmt), inside, combined);
        return;
    }
    case GIMPLE_OMP_TASK: {
        if (!gimple_omp_task_taskloop_p(stmt)) {
            omp_site site = site_of(stmt, false);
            before(site_call(SCOREP_OMP_SITE_TASK, site, site.line, 0));
        }
        std::vector<open_construct> inside;
        omp_sites_in(gimple_omp_body_ptr(stmt), inside, combined);
        return;
    }
    case GIMPLE_OMP_FOR: {
        open_construct c = {SCOREP_OMP_SITE_NONE, false, {}, NULL_TREE, NULL_TREE};
        bool inlined = inline_loop(as_a<gomp_for*>(stmt));
        if (gimple_omp_for_kind(stmt) == GF_OMP_FOR_KIND_FOR && !(is_combined(stmt) && inlined)) {
            c.kind = is_combined(stmt) ? SCOREP_OMP_SITE_COMBINED_FOR : SCOREP_OMP_SITE_FOR;
            /* a combined loop is named after its parallel region's pragma
             * (gfortran gives the loop the line of its body) */
            c.site = is_combined(stmt) ? combined.at(stmt) : site_of(stmt, true);
            c.inline_begun = inlined;
            before(c.inline_begun ? begin_call(SCOREP_OMP_SITE_FOR, c.site)
                                  : site_call(c.kind, c.site, c.site.line, c.site.end_line));
        }
        open.push_back(c);
        omp_sites_in(gimple_omp_body_ptr(stmt), open, combined);   /* empty once lowered */
        return;
    }
    case GIMPLE_OMP_SECTIONS:
    case GIMPLE_OMP_SINGLE:
    case GIMPLE_OMP_CRITICAL:
    case GIMPLE_OMP_ORDERED:
    case GIMPLE_OMP_TASKGROUP: {
        static const std::map<int, int> kinds = {
            {GIMPLE_OMP_SECTIONS, SCOREP_OMP_SITE_SECTIONS}, {GIMPLE_OMP_SINGLE, SCOREP_OMP_SITE_SINGLE},
            {GIMPLE_OMP_CRITICAL, SCOREP_OMP_SITE_CRITICAL}, {GIMPLE_OMP_ORDERED, SCOREP_OMP_SITE_ORDERED},
            {GIMPLE_OMP_TASKGROUP, SCOREP_OMP_SITE_TASKGROUP}};
        open_construct c = {SCOREP_OMP_SITE_NONE, false, {}, NULL_TREE, NULL_TREE};
        if (!is_combined(stmt)) {
            c.kind = kinds.at(gimple_code(stmt));
            c.site = site_of(stmt, c.kind == SCOREP_OMP_SITE_SECTIONS || c.kind == SCOREP_OMP_SITE_SINGLE);
            tree name = c.kind == SCOREP_OMP_SITE_CRITICAL ? gimple_omp_critical_name(as_a<gomp_critical*>(stmt))
                                                            : NULL_TREE;
            if (name && c.site.line > 0 && !c.site.file.empty())
                before(gimple_build_call(omp_site_named_fn, 4, int_arg(c.kind), literal(c.site.file),
                                         int_arg(c.site.line), literal(IDENTIFIER_POINTER(name))));
            else
                before(site_call(c.kind, c.site, c.site.line, c.site.end_line));
        }
        open.push_back(c);
        omp_sites_in(gimple_omp_body_ptr(stmt), open, combined);
        return;
    }
    case GIMPLE_OMP_MASTER:
    case GIMPLE_OMP_MASKED: {
        /* lowered to "if (omp_get_thread_num () == 0) goto body; else goto
         * end; body: ... end:" in this sequence: the region is the body's */
        open_construct c = {SCOREP_OMP_SITE_MASTER, false, site_of(stmt, false), NULL_TREE, NULL_TREE};
        gimple_stmt_iterator next = *gsi;
        for (gsi_next(&next); !gsi_end_p(next); gsi_next(&next))
            if (gcond* cond = dyn_cast<gcond*>(gsi_stmt(next))) {
                c.master_body = gimple_cond_true_label(cond);
                c.master_end = gimple_cond_false_label(cond);
                break;
            }
        open.push_back(c);
        omp_sites_in(gimple_omp_body_ptr(stmt), open, combined);
        return;
    }
    case GIMPLE_OMP_SECTION:
    case GIMPLE_OMP_SCOPE:
    case GIMPLE_OMP_SCAN: {
        open_construct c = {SCOREP_OMP_SITE_NONE, false, {}, NULL_TREE, NULL_TREE};
        open.push_back(c);
        omp_sites_in(gimple_omp_body_ptr(stmt), open, combined);
        return;
    }
    case GIMPLE_LABEL: {
        tree label = gimple_label_label(as_a<glabel*>(stmt));
        for (open_construct& c : open) {
            if (c.kind != SCOREP_OMP_SITE_MASTER) continue;
            if (label == c.master_body && c.master_body) {
                after(begin_call(SCOREP_OMP_SITE_MASTER, c.site));
                c.inline_begun = true;
            } else if (label == c.master_end && c.master_end && c.inline_begun) {
                before(end_call(SCOREP_OMP_SITE_MASTER));
                c.inline_begun = false;
            }
        }
        return;
    }
    case GIMPLE_OMP_RETURN: {
        if (open.empty()) return;
        open_construct c = open.back();
        open.pop_back();
        bool barrier = !gimple_omp_return_nowait_p(stmt);
        if (barrier && (c.kind == SCOREP_OMP_SITE_FOR || c.kind == SCOREP_OMP_SITE_SECTIONS ||
                        c.kind == SCOREP_OMP_SITE_SINGLE))
            before(site_call(SCOREP_OMP_SITE_IMPLICIT_BARRIER, c.site, c.site.line,
                             c.site.end_line > 0 ? c.site.end_line : c.site.line));
        if (c.kind == SCOREP_OMP_SITE_FOR && c.inline_begun) after(end_call(SCOREP_OMP_SITE_FOR));
        return;
    }
    case GIMPLE_OMP_ATOMIC_LOAD:
        if (int line = directive_line(stmt, "atomic")) {
            omp_site site = site_of(stmt, false);
            site.line = line;
            before(begin_call(SCOREP_OMP_SITE_ATOMIC, site));
        }
        return;
    case GIMPLE_OMP_ATOMIC_STORE:
        if (directive_line(stmt, "atomic")) after(end_call(SCOREP_OMP_SITE_ATOMIC));
        return;
    case GIMPLE_CALL: {
        tree fn = gimple_call_fndecl(stmt);
        if (!fn || !fndecl_built_in_p(fn, BUILT_IN_NORMAL)) return;
        switch (DECL_FUNCTION_CODE(fn)) {
        case BUILT_IN_GOMP_BARRIER: {
            omp_site site = site_of(stmt, false);
            before(site_call(SCOREP_OMP_SITE_BARRIER, site, site.line, 0));
            break;
        }
        case BUILT_IN_GOMP_TASKWAIT: {
            omp_site site = site_of(stmt, false);
            before(site_call(SCOREP_OMP_SITE_TASKWAIT, site, site.line, 0));
            break;
        }
        case BUILT_IN_SYNC_SYNCHRONIZE:   /* flush */
        {
            int line = directive_line(stmt, "flush");
            if (!line) break;
            omp_site site = site_of(stmt, false);
            site.line = line;
            before(begin_call(SCOREP_OMP_SITE_FLUSH, site));
            after(end_call(SCOREP_OMP_SITE_FLUSH));
            break;
        }
        default:
            break;
        }
        return;
    }
    default:
        return;
    }
}

/* open: the constructs open around seq. A construct's GIMPLE_OMP_RETURN is
 * in its own sequence, or after the try that C++ wraps its body in: the
 * nested sequences of binds and trys share the stack, a parallel region's
 * or task's body (its return inside) has its own. */
static void omp_sites_in(gimple_seq* seq, std::vector<open_construct>& open, std::map<gimple*, omp_site>& combined)
{
    for (gimple_stmt_iterator gsi = gsi_start(*seq); !gsi_end_p(gsi); gsi_next(&gsi))
        omp_sites_in_statement(&gsi, open, combined);
}

static void omp_sites(function* fun)
{
    gimple_seq body = gimple_body(fun->decl);
    if (!body) return;
    declare_omp_hooks();
    std::map<gimple*, omp_site> combined;
    std::vector<open_construct> open;
    omp_sites_in(&body, open, combined);
    gimple_set_body(fun->decl, body);
}

static unsigned int instrument(function* fun)
{
    tree fndecl = fun->decl;
    if (openmp_sites && flag_openmp) omp_sites(fun);
    if (!should_instrument(fndecl)) return 0;
    const char* symbol = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fndecl));
    std::string name = region_name(fndecl, symbol);
    std::string source = absolute_source(DECL_SOURCE_FILE(fndecl));
    const char* file = source.c_str();
    int line = DECL_SOURCE_LINE(fndecl);
    int end_line = fun->function_end_locus != UNKNOWN_LOCATION ? LOCATION_LINE(fun->function_end_locus) : 0;
    if (compile_time_filter && scorep_filter_excludes(compile_time_filter, name.c_str(), file, symbol)) {
        if (verbose) inform(DECL_SOURCE_LOCATION(fndecl), "scorep: '%s' filtered at compile time", name.c_str());
        return 0;
    }
    if (!enter_fn) {
        enter_fn = declare_hook("__scorep_compiler_region_enter", true);
        exit_fn = declare_hook("__scorep_compiler_exit", false);
    }
    char var_name[64];
    snprintf(var_name, sizeof var_name, "__scorep_region_handle.%u", handle_counter++);
    tree handle = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(var_name), unsigned_type_node);
    TREE_STATIC(handle) = 1;
    TREE_PUBLIC(handle) = 0;
    TREE_ADDRESSABLE(handle) = 1;
    TREE_USED(handle) = 1;
    DECL_ARTIFICIAL(handle) = 1;
    DECL_IGNORED_P(handle) = 1;
    DECL_INITIAL(handle) = build_int_cst(unsigned_type_node, 0);
    varpool_node::finalize_decl(handle);
    tree handle_addr = build_fold_addr_expr(handle);

    gimple_seq body = gimple_body(fndecl);
    gimple_seq enter = NULL, cleanup = NULL, outer = NULL;
    add_guarded_call(&enter, handle,
                     gimple_build_call(enter_fn, 6, handle_addr, literal(name), literal(symbol),
                                       literal(file), build_int_cst(integer_type_node, line),
                                       build_int_cst(integer_type_node, end_line)));
    add_guarded_call(&cleanup, handle, gimple_build_call(exit_fn, 1, handle_addr));
    gtry* tf = gimple_build_try(body, cleanup, GIMPLE_TRY_FINALLY);
    gimple_seq_add_seq(&outer, enter);
    gimple_seq_add_stmt(&outer, tf);
    gbind* bind = gimple_build_bind(NULL_TREE, outer, NULL_TREE);
    gimple_set_body(fndecl, gimple_seq_alloc_with_stmt(bind));
    if (verbose) inform(DECL_SOURCE_LOCATION(fndecl), "scorep: instrumented '%s'", name.c_str());
    return 0;
}

namespace {
const pass_data instrument_pass_data = {
    GIMPLE_PASS, "scorep_instrument", OPTGROUP_NONE, TV_NONE,
    PROP_gimple_any, 0, 0, 0, 0,
};

struct instrument_pass : gimple_opt_pass {
    instrument_pass(gcc::context* ctxt) : gimple_opt_pass(instrument_pass_data, ctxt) {}
    unsigned int execute(function* fun) override { return instrument(fun); }
    opt_pass* clone() override { return new instrument_pass(m_ctxt); }
};
}  // namespace

int plugin_init(struct plugin_name_args* info, struct plugin_gcc_version* version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("scorep: the instrumentation plugin was built for GCC %s", gcc_version.basever);
        return 1;
    }
    for (int i = 0; i < info->argc; i++) {
        const char* key = info->argv[i].key;
        const char* value = info->argv[i].value;
        if (strcmp(key, "filter") == 0 && value && value[0]) {
            char message[600];
            compile_time_filter = scorep_filter_load(value, message, sizeof message);
            if (!compile_time_filter) {
                error("scorep: instrument filter %s: %s", value, message);
                return 1;
            }
        } else if (strcmp(key, "verbose") == 0) {
            verbose = true;
        } else if (strcmp(key, "openmp") == 0) {
            openmp_sites = true;
        } else if (strcmp(key, "library-headers") == 0) {
            instrument_library_headers = true;
        } else if (strcmp(key, "library-dirs") == 0 && value) {
            std::string dirs = value;
            for (size_t start = 0; start <= dirs.size();) {
                size_t end = dirs.find(':', start);
                if (end == std::string::npos) end = dirs.size();
                std::string dir = dirs.substr(start, end - start);
                while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
                if (!dir.empty()) library_dirs.push_back(dir);
                start = end + 1;
            }
        } else {
            error("scorep: unknown plugin argument '%s'", key);
            return 1;
        }
    }
    struct register_pass_info pass;
    pass.pass = new instrument_pass(g);
    /* before lowering: the body is still one GIMPLE sequence (as right after
     * gimplification), exceptions are not lowered yet, nothing is inlined */
    pass.reference_pass_name = "lower";
    pass.ref_pass_instance_number = 1;
    pass.pos_op = PASS_POS_INSERT_BEFORE;
    register_callback(info->base_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
    return 0;
}
