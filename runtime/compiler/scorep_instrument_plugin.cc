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

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <map>
#include <string>
#include <vector>

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

static unsigned int instrument(function* fun)
{
    tree fndecl = fun->decl;
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
