"""Explicit rules that turn a C prototype from mpi.h into apis.json parameters.

Each rule is data: (parameter-name pattern, C-type pattern, procedure pattern) ->
value; patterns are fnmatch globs, None matches anything, the first matching rule
wins. Types are normalised (`const int *`, `MPI_Comm *`). What these rules cannot
know lives in specs/extract/overrides-4.0.json.

A kind found here is the small-count kind; `POLY` is prefixed when the `_c`
variant in the header changes the parameter's type (see extract.py).
"""

# C handle and opaque types: the type alone decides.
TYPE_KINDS = {
    "MPI_Comm": "COMMUNICATOR", "MPI_Group": "GROUP", "MPI_Datatype": "DATATYPE",
    "MPI_Request": "REQUEST", "MPI_Op": "OPERATION", "MPI_Info": "INFO",
    "MPI_Errhandler": "ERRHANDLER", "MPI_Win": "WINDOW", "MPI_File": "FILE",
    "MPI_Message": "MESSAGE", "MPI_Session": "SESSION", "MPI_Status": "STATUS",
    "MPI_F08_status": "F08_STATUS",
    "MPI_T_enum": "TOOLS_ENUM", "MPI_T_cvar_handle": "CVAR", "MPI_T_pvar_handle": "PVAR",
    "MPI_T_pvar_session": "PVAR_SESSION", "MPI_T_event_registration": "EVENT_REGISTRATION",
    "MPI_T_event_instance": "EVENT_INSTANCE", "MPI_T_cb_safety": "CALLBACK_SAFETY",
    "MPI_T_source_order": "SOURCE_ORDERING",
}

# Callback typedefs of the MPI_T event interface have kinds of their own.
EVENT_FUNCTION_TYPES = {
    "MPI_T_event_cb_function": "EVENT_CB_FUNCTION",
    "MPI_T_event_free_cb_function": "EVENT_FREE_CB_FUNCTION",
    "MPI_T_event_dropped_cb_function": "EVENT_DROP_CB_FUNCTION",
}

# Other callback typedefs: kind FUNCTION, the typedef goes to func_type.
FUNCTION_TYPES = (
    "MPI_Comm_copy_attr_function", "MPI_Comm_delete_attr_function",
    "MPI_Comm_errhandler_function", "MPI_Copy_function", "MPI_Delete_function",
    "MPI_Datarep_conversion_function", "MPI_Datarep_conversion_function_c",
    "MPI_Datarep_extent_function", "MPI_File_errhandler_function",
    "MPI_Grequest_cancel_function", "MPI_Grequest_free_function",
    "MPI_Grequest_query_function", "MPI_Session_errhandler_function",
    "MPI_Type_copy_attr_function",
    "MPI_Type_delete_attr_function", "MPI_User_function", "MPI_User_function_c",
    "MPI_Win_copy_attr_function", "MPI_Win_delete_attr_function",
    "MPI_Win_errhandler_function",
    # MPICH spells these with the older names:
    "MPI_Comm_errhandler_fn", "MPI_File_errhandler_fn", "MPI_Win_errhandler_fn",
    "MPI_Session_errhandler_fn",
)

# Parameter names some headers spell differently from the standard: (header name,
# procedure, standard name). MPICH 4.0.2 says `indx` for `index`, `session` for the
# MPI_T performance-variable session, `dest` in MPI_Precv_init.
RENAMES = [
    ("indx", "*", "index"),
    ("session", "MPI_T_pvar_*", "pe_session"),
    ("dest", "MPI_Precv_init", "source"),
]

# (name, base type without const/pointers, procedure) -> kind. First match wins,
# so specific procedures come before the general rule for a name.
NAME_KINDS = [
    # --- buffers, addresses, opaque user data
    ("attribute_val", "void", "MPI_Attr_*", "ATTRIBUTE_VAL_10"),
    ("attribute_val*", "void", "*", "ATTRIBUTE_VAL"),
    ("extra_state", "void", "MPI_Keyval_create", "EXTRA_STATE2"),
    ("extra_state", "void", "*", "EXTRA_STATE"),
    ("user_data", "void", "MPI_T_*", "EXTRA_STATE"),
    ("obj_handle", "void", "MPI_T_*", "TOOL_MPI_OBJ"),
    ("buffer", "void", "MPI_T_event_*", "C_BUFFER"),
    ("baseptr", "void", "*", "C_BUFFER"),
    ("buffer_addr", "void", "MPI_Buffer_detach", "C_BUFFER2"),
    ("*", "void", "*", "BUFFER"),
    ("address", "MPI_Aint", "MPI_Get_address", "DISPLACEMENT"),
    ("base", "MPI_Aint", "*", "LOCATION_SMALL"),
    ("addr*", "MPI_Aint", "*", "LOCATION_SMALL"),
    # --- strings and the command line
    ("argv", "char", "MPI_Comm_spawn", "STRING_ARRAY"),
    ("array_of_commands", "char", "*", "STRING_ARRAY"),
    ("array_of_argv", "char", "*", "STRING_2DARRAY"),
    ("argv", "char", "*", "ARGUMENT_LIST"),
    ("argc", "int", "*", "ARGUMENT_COUNT"),
    ("*", "char", "*", "STRING"),
    ("buflen", "int", "MPI_Info_get_string", "INFO_VALUE_LENGTH"),
    ("valuelen", "int", "*", "INFO_VALUE_LENGTH"),
    ("resultlen", "int", "*", "STRING_LENGTH"),
    ("*_len", "int", "*", "STRING_LENGTH"),
    # --- the MPI_T tool interface
    ("cvar_index", "int", "MPI_T_cvar_handle_alloc", "CVAR_INDEX_SPECIAL"),
    ("cat_index", "int", "MPI_T_*", "CAT_INDEX"),
    ("cvar_index", "int", "MPI_T_*", "CVAR_INDEX"),
    ("pvar_index", "int", "MPI_T_*", "PVAR_INDEX"),
    ("event_index", "int", "MPI_T_*", "EVENT_INDEX"),
    ("source_index", "int", "MPI_T_*", "SOURCE_INDEX"),
    ("element_index", "int", "MPI_T_*", "INDEX"),
    ("index", "int", "MPI_T_enum_get_item", "TOOLENUM_INDEX"),
    ("num", "int", "MPI_T_enum_get_info", "TOOLENUM_SIZE"),
    ("indices", "int", "MPI_T_category_get_cvars", "CVAR_INDEX"),
    ("indices", "int", "MPI_T_category_get_pvars", "PVAR_INDEX"),
    ("indices", "int", "MPI_T_category_get_*", "CAT_INDEX"),
    ("len", "int", "MPI_T_category_get_*", "ARRAY_LENGTH"),
    ("num_cat", "int", "MPI_T_*", "CAT_INDEX"),
    ("num_cvar*", "int", "MPI_T_*", "CVAR_INDEX"),
    ("num_pvar*", "int", "MPI_T_*", "PVAR_INDEX"),
    ("num_events", "int", "MPI_T_*", "EVENT_INDEX"),
    ("num_sources", "int", "MPI_T_*", "SOURCE_INDEX"),
    ("num_elements", "int", "MPI_T_*", "ARRAY_LENGTH_NNI"),
    ("count", "int", "MPI_T_*", "TOOLS_NUM_ELEM_SMALL"),
    ("readonly", "int", "MPI_T_*", "LOGICAL_OPTIONAL"),
    ("array_of_displacements", "MPI_Aint", "MPI_T_*", "DISPLACEMENT_NNI"),
    ("*", "MPI_Count", "MPI_T_*", "TOOLS_TICK_COUNT"),
    ("verbosity", "int", "*", "TOOL_VAR_VERBOSITY"),
    ("bind", "int", "*", "BIND_TYPE"),
    ("scope", "int", "*", "VARIABLE_SCOPE"),
    ("var_class", "int", "*", "PVAR_CLASS"),
    ("update_number", "int", "*", "UPDATE_NUMBER"),
    ("num_categories", "int", "MPI_T_*", "CAT_INDEX"),
    ("value", "int", "MPI_T_enum_get_item", "TOOL_VAR_VALUE"),
    ("continuous", "int", "MPI_T_*", "LOGICAL_OPTIONAL"),
    ("atomic", "int", "MPI_T_*", "LOGICAL_OPTIONAL"),
    # --- ranks, tags, communicator sizes
    ("target_rank", "int", "*", "RANK_NNI"),
    ("rank", "int", "MPI_Win_*", "RANK_NNI"),
    ("rank", "int", "MPI_Type_create_darray", "RANK_NNI"),
    ("sources", "int", "MPI_Dist_graph_*", "RANK_NNI"),
    ("destinations", "int", "MPI_Dist_graph_*", "RANK_NNI"),
    ("dest", "int", "*", "RANK"),
    ("source", "int", "*", "RANK"),
    ("root", "int", "*", "RANK"),
    ("*rank*", "int", "*", "RANK"),
    ("*_leader", "int", "*", "RANK"),
    ("neighbors", "int", "*", "RANK"),
    ("ranges", "int", "*", "RANK"),
    ("edges", "int", "*", "RANK"),
    ("*tag", "int", "*", "TAG"),
    ("size", "int", "MPI_Type_create_darray", "COMM_SIZE_PI"),
    ("size", "int", "MPI_Comm_size", "COMM_SIZE"), ("size", "int", "MPI_Comm_remote_size", "COMM_SIZE"),
    ("size", "int", "MPI_Group_size", "COMM_SIZE"),
    ("nnodes", "int", "MPI_Graph_map", "ARRAY_LENGTH"), ("nnodes", "int", "MPI_Graphdims_get", "ARRAY_LENGTH"),
    ("nnodes", "int", "*", "COMM_SIZE"),
    ("*maxprocs", "int", "*", "COMM_SIZE"),
    ("color", "int", "*", "COLOR"),
    ("key", "int", "*", "KEY"),
    ("split_type", "int", "*", "SPLIT_TYPE"),
    # --- errors, attributes, flags, modes
    ("errorcode", "int", "*", "ERROR_CODE"),
    ("array_of_errcodes", "int", "*", "ERROR_CODE"),
    ("errorclass", "int", "*", "ERROR_CLASS"),
    ("*keyval", "int", "*", "KEYVAL"),
    ("*flag", "int", "*", "LOGICAL"),
    ("high", "int", "*", "LOGICAL"),
    ("reorder", "int", "*", "LOGICAL"),
    ("periods", "int", "*", "LOGICAL"),
    ("remain_dims", "int", "*", "LOGICAL"),
    ("weighted", "int", "*", "LOGICAL"),
    ("commute", "int", "*", "LOGICAL"),
    ("required", "int", "*", "THREAD_LEVEL"),
    ("provided", "int", "*", "THREAD_LEVEL"),
    ("level", "int", "MPI_Pcontrol", "PROFILE_LEVEL"),
    ("level", "int", "*", "THREAD_LEVEL"),
    ("*version", "int", "*", "VERSION"),
    ("fd", "int", "*", "FILE_DESCRIPTOR"),
    ("assert", "int", "*", "ASSERT"),
    ("lock_type", "int", "*", "LOCK_TYPE"),
    ("amode", "int", "*", "ACCESS_MODE"),
    ("whence", "int", "*", "UPDATE_MODE"),
    ("order", "int", "*", "ORDER"),
    ("combiner", "int", "*", "COMBINER"),
    ("typeclass", "int", "*", "TYPECLASS"),
    ("size", "int", "MPI_Type_match_size", "TYPECLASS_SIZE"),
    ("p", "int", "*", "MATH"),
    ("r", "int", "*", "MATH"),
    ("status", "int", "MPI_Topo_test", "TOPOLOGY_TYPE"),
    ("result", "int", "MPI_Comm_compare", "COMM_COMPARISON"),
    ("result", "int", "MPI_Group_compare", "GROUP_COMPARISON"),
    # --- topologies
    ("ndims", "int", "MPI_Type_*", "ARRAY_LENGTH_PI"),
    ("ndims", "int", "*", "NUM_DIMS"),
    ("max*", "int", "MPI_Cart_*", "ARRAY_LENGTH"),
    ("max*", "int", "MPI_Graph*", "ARRAY_LENGTH"),
    ("max*degree", "int", "*", "ARRAY_LENGTH_NNI"),
    ("dims", "int", "*", "DIMENSION"),
    ("coords", "int", "*", "COORDINATE"),
    ("direction", "int", "MPI_Cart_shift", "INDEX"),
    ("disp", "int", "MPI_Cart_shift", "DIMENSION"),
    ("index", "int", "*", "INDEX"),
    ("array_of_indices", "int", "*", "INDEX"),
    ("indegree", "int", "*", "DEGREE"),
    ("outdegree", "int", "*", "DEGREE"),
    ("degrees", "int", "*", "DEGREE"),
    ("*weights", "int", "*", "WEIGHT"),
    ("nneighbors", "int", "*", "ARRAY_LENGTH"),
    ("nedges", "int", "*", "ARRAY_LENGTH"),
    # --- lengths of arrays and lists
    ("count", "int", "MPI_Comm_spawn_multiple", "ARRAY_LENGTH_PI"),
    ("count", "int", "MPI_Wait*", "ARRAY_LENGTH_NNI"),
    ("count", "int", "MPI_Test*", "ARRAY_LENGTH_NNI"),
    ("count", "int", "MPI_Startall", "ARRAY_LENGTH_NNI"),
    ("incount", "int", "MPI_*some", "ARRAY_LENGTH_NNI"),
    ("outcount", "int", "MPI_*some", "ARRAY_LENGTH"),
    ("n", "int", "MPI_Dist_graph_create", "ARRAY_LENGTH_NNI"),
    ("n", "int", "MPI_Info_get_nthkey", "KEY_INDEX"),
    ("nkeys", "int", "*", "KEY_INDEX"),
    ("n", "int", "MPI_Session_get_nth_pset", "INDEX"),
    ("npset_names", "int", "*", "ARRAY_LENGTH_NNI"),
    ("n", "int", "*", "ARRAY_LENGTH"),
    ("length", "int", "*", "ARRAY_LENGTH"),
    ("partition*", "int", "*", "PARTITION"),
    ("array_of_partitions", "int", "*", "PARTITION"),
    # --- datatype constructors and queries
    ("max_*", "*", "MPI_Type_get_contents", "NUM_PARAM_VALUES"),
    ("num_*", "*", "MPI_Type_get_envelope", "NUM_PARAM_VALUES"),
    ("array_of_integers", "int", "*", "GENERIC_DTYPE_INT"),
    ("array_of_large_counts", "MPI_Count", "*", "GENERIC_DTYPE_COUNT"),
    ("array_of_addresses", "MPI_Aint", "*", "DISPLACEMENT"),
    ("array_of_distribs", "int", "*", "DISTRIB_ENUM"),
    ("array_of_dargs", "int", "*", "DTYPE_DISTRIBUTION"),
    ("array_of_psizes", "int", "*", "PROCESS_GRID_SIZE"),
    ("array_of_starts", "int", "*", "DTYPE_NUM_ELEM_NNI"),
    ("array_of_*sizes", "int", "*", "DTYPE_NUM_ELEM_PI"),
    ("count", "int", "MPI_Type_*", "DTYPE_NUM_ELEM_NNI"),
    ("*blocklength*", "int", "*", "DTYPE_NUM_ELEM_NNI"),
    ("stride", "MPI_Aint", "*", "DTYPE_STRIDE_BYTES"),
    ("stride", "int", "*", "DTYPE_NUM_ELEM"),
    ("array_of_displacements", "MPI_Aint", "*", "DISPLACEMENT_AINT_COUNT"),
    ("array_of_displacements", "int", "*", "DISPLACEMENT_COUNT"),
    ("*", "MPI_Count", "MPI_Type_*_x", "XFER_NUM_ELEM"),
    ("*", "MPI_Count", "MPI_Status_set_elements_x", "XFER_NUM_ELEM"),
    ("count", "MPI_Count", "MPI_Get_elements_x", "NUM_BYTES"),
    ("*lb", "MPI_Aint", "*", "DISPLACEMENT_AINT_COUNT"),
    ("*extent", "MPI_Aint", "MPI_File_*", "DISPOFFSET"),
    ("*extent", "MPI_Aint", "*", "DISPLACEMENT_AINT_COUNT"),
    ("size", "int", "MPI_Type_size", "XFER_NUM_ELEM"),
    # --- pack/unpack
    ("incount", "int", "MPI_Pack_external*", "DTYPE_NUM_ELEM"),
    ("incount", "int", "MPI_Pack*", "DTYPE_NUM_ELEM_NNI"),
    ("outcount", "int", "MPI_Unpack*", "DTYPE_NUM_ELEM"),
    ("*size", "MPI_Aint", "MPI_*ack_external*", "DTYPE_PACK_SIZE"),
    ("position", "MPI_Aint", "MPI_*ack_external", "LOCATION"),
    ("position", "int", "*", "DISPLACEMENT_COUNT"),
    ("*size", "int", "MPI_*ack*", "NUM_BYTES_NNI"),
    # --- point-to-point and collective transfers
    ("count", "int", "MPI_Get_elements", "DTYPE_NUM_ELEM"),
    ("count", "int", "MPI_Get_count", "XFER_NUM_ELEM"),
    ("count", "int", "MPI_File_*", "XFER_NUM_ELEM"),
    ("count", "int", "MPI_Status_set_elements", "XFER_NUM_ELEM_SMALL"),
    ("*count", "int", "*", "XFER_NUM_ELEM_NNI"),
    ("count", "MPI_Count", "MPI_P*_init", "XFER_NUM_ELEM_NNI"),
    ("*counts", "int", "*", "XFER_NUM_ELEM_NNI"),
    ("*displs", "int", "*", "DISPLACEMENT"),
    ("*displs", "MPI_Aint", "*", "DISPLACEMENT"),
    # --- RMA, memory, buffers
    ("target_disp", "MPI_Aint", "*", "RMA_DISPLACEMENT_NNI"),
    ("disp_unit", "int", "*", "RMA_DISPLACEMENT"),
    ("size", "MPI_Aint", "MPI_Win_attach", "WIN_ATTACH_SIZE"),
    ("size", "MPI_Aint", "MPI_Win_*", "WINDOW_SIZE"),
    ("size", "MPI_Aint", "MPI_Alloc_mem", "ALLOC_MEM_NUM_BYTES"),
    ("size", "int", "MPI_Buffer_attach", "NUM_BYTES_NNI"),
    ("size", "int", "MPI_Buffer_detach", "NUM_BYTES"),
    # --- I/O
    ("*", "MPI_Offset", "*", "OFFSET"),
    ("disp", "MPI_Aint", "*", "DISPLACEMENT"),
    # --- Fortran status conversions
    ("*", "MPI_Fint", "*", "F90_STATUS"),
]

# Direction when the header's pointer-ness says otherwise: (name, procedure,
# direction). Without a rule, value and const-pointer parameters are "in" and
# other pointers "out".
DIRECTIONS = [
    # handles the procedure frees or completes: read, then set to *_NULL
    ("request", "MPI_Wait", "inout"), ("request", "MPI_Test", "inout"),
    ("request", "MPI_Start", "inout"), ("request", "MPI_Request_free", "inout"),
    ("array_of_requests", "MPI_Wait*", "inout"), ("array_of_requests", "MPI_Test*", "inout"),
    ("array_of_requests", "MPI_Startall", "inout"),
    ("comm", "MPI_Comm_free", "inout"), ("comm", "MPI_Comm_disconnect", "inout"),
    ("group", "MPI_Group_free", "inout"), ("datatype", "MPI_Type_free", "inout"),
    ("datatype", "MPI_Type_commit", "inout"), ("op", "MPI_Op_free", "inout"),
    ("info", "MPI_Info_free", "inout"), ("errhandler", "MPI_Errhandler_free", "inout"),
    ("win", "MPI_Win_free", "inout"), ("fh", "MPI_File_close", "inout"),
    ("session", "MPI_Session_finalize", "inout"), ("*keyval", "MPI_*_free_keyval", "inout"),
    ("keyval", "MPI_Keyval_free", "inout"), ("message", "MPI_*mrecv", "inout"),
    ("message", "MPI_Mrecv", "inout"), ("handle", "MPI_T_*_handle_free", "inout"),
    ("pe_session", "MPI_T_pvar_session_free", "inout"),
    # values updated in place
    ("status", "MPI_Status_set_*", "inout"), ("position", "MPI_*ack*", "inout"),
    ("buffer", "MPI_Bcast*", "inout"), ("buffer", "MPI_Ibcast", "inout"),
    ("buf", "MPI_*endrecv_replace", "inout"), ("inoutbuf", "*", "inout"),
    ("dims", "MPI_Dims_create", "inout"), ("argc", "*", "inout"),
    ("argv", "MPI_Init*", "inout"), ("argv", "MPI_Info_create_env", "inout"),
    ("*_len", "MPI_T_*_get_info", "inout"), ("name_len", "MPI_T_*", "inout"),
    ("buflen", "MPI_Info_get_string", "inout"), ("pset_len", "*", "inout"),
    ("num_elements", "MPI_T_event_get_info", "inout"),
    # pointers that are only read (no const in C for historical reasons)
    ("request", "MPI_Cancel", "in"), ("*", "MPI_*_set_attr", "in"),
    ("attribute_val", "MPI_Attr_put", "in"), ("buffer", "MPI_Buffer_attach", "in"),
    ("base", "MPI_Free_mem", "in"), ("base", "MPI_Win_*", "in"),
    ("extra_state", "*", "in"), ("user_data", "*", "in"), ("obj_handle", "*", "in"),
    ("argv", "MPI_Comm_spawn", "in"), ("array_of_errcodes", "*", "out"),
    ("array_of_*", "MPI_Comm_spawn_multiple", "in"), ("array_of_partitions", "MPI_Pready_list", "in"),
    ("ranges", "MPI_Group_range_*", "in"),
]

# Array lengths: (name, procedure, length). Arrays matching no rule get "*"
# (the length is known only at run time, e.g. the group size).
LENGTHS = [
    ("array_of_statuses", "*", "*"), ("array_of_indices", "*", "*"),
    ("array_of_requests", "MPI_*some", "incount"), ("array_of_requests", "*", "count"),
    ("array_of_errcodes", "*", "*"), ("array_of_commands", "*", None),
    ("array_of_errcodes", "*", "*"), ("array_of_*", "MPI_Comm_spawn_multiple", "count"),
    ("argv", "MPI_Comm_spawn", None), ("argv", "*", "argc"),
    ("dims", "MPI_Cart_get", "maxdims"), ("periods", "MPI_Cart_get", "maxdims"),
    ("coords", "MPI_Cart_get", "maxdims"), ("coords", "MPI_Cart_coords", "maxdims"),
    ("dims", "*", "ndims"), ("periods", "*", "ndims"),
    ("index", "MPI_Graph_get", "maxindex"), ("edges", "MPI_Graph_get", "maxedges"),
    ("index", "*", "nnodes"), ("neighbors", "*", "maxneighbors"),
    ("sources", "MPI_Dist_graph_neighbors", "maxindegree"),
    ("destinations", "MPI_Dist_graph_neighbors", "maxoutdegree"),
    ("sources", "MPI_Dist_graph_create_adjacent", "indegree"),
    ("destinations", "MPI_Dist_graph_create_adjacent", "outdegree"),
    ("sources", "MPI_Dist_graph_create", "n"), ("degrees", "MPI_Dist_graph_create", "n"),
    ("ranks*", "*", "n"), ("ranges", "*", ["n", "3"]),
    ("indices", "MPI_T_*", "len"), ("array_of_*", "MPI_T_*", "num_elements"),
    ("array_of_partitions", "*", "length"),
    ("array_of_integers", "*", "max_integers"), ("array_of_addresses", "*", "max_addresses"),
    ("array_of_large_counts", "*", "max_large_counts"),
    ("array_of_datatypes", "*", "max_datatypes"),
    ("array_of_*", "MPI_Type_create_*array", "ndims"),
    ("array_of_*", "MPI_Type_*", "count"),
]

# Output strings whose buffer must hold a constant's number of characters.
STRING_LENGTHS = [
    ("*_name", "MPI_*_get_name", "MPI_MAX_OBJECT_NAME"),
    ("string", "MPI_Error_string", "MPI_MAX_ERROR_STRING"),
    ("version", "MPI_Get_library_version", "MPI_MAX_LIBRARY_VERSION_STRING"),
    ("name", "MPI_Get_processor_name", "MPI_MAX_PROCESSOR_NAME"),
    ("port_name", "MPI_Open_port", "MPI_MAX_PORT_NAME"),
    ("port_name", "MPI_Lookup_name", "MPI_MAX_PORT_NAME"),
    ("value", "MPI_Info_get", "valuelen"),
    ("datarep", "MPI_*ack_external*", "*"),
]

# Procedures without a Fortran binding: the MPI_T_ tool interface is C only, and
# handle conversions exist to cross from C to Fortran.
NO_FORTRAN = ("MPI_*_c2f", "MPI_*_f2c", "MPI_Status_c2f08", "MPI_Status_f082c", "MPI_T_*")
# C-only conversions that have no language-independent form either.
NO_LIS = ("MPI_*_c2f", "MPI_*_f2c", "MPI_Status_c2f08", "MPI_Status_f082c")
# Deprecated procedures that use mpif.h-only handle types: no `use mpi_f08` binding.
NO_F08 = ("MPI_Attr_delete", "MPI_Attr_get", "MPI_Attr_put", "MPI_Keyval_create",
          "MPI_Keyval_free")

# Return kinds of procedures that do not return an error code.
RETURN_KINDS = [
    ("MPI_Wtick", "TICK_RESOLUTION"), ("MPI_Wtime", "WALL_TIME"),
    ("MPI_Aint_add", "LOCATION_SMALL"), ("MPI_Aint_diff", "DISPLACEMENT"),
]
