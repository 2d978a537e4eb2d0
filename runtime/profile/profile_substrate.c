/* The profile substrate's table: its event callbacks (profile.c), its short
 * form's part (profile_fast.c), its per-file I/O totals (io_files.c) and its
 * output (profile_write.c). The top of the profile's files: none of them
 * calls back up here. */
#include "profile_events.h"


const scorep_substrate* scorep_profile_substrate(void)
{
    static scorep_substrate table;
    table = scorep_profile_event_callbacks;
    table.needs_io_handles = 1;
    table.activation_changed = scorep_profile_activation_changed;
    table.close_open = scorep_profile_close_open;
    table.io_transfer_begin = scorep_profile_io_transfer_begin;
    table.io_transfer_end = scorep_profile_io_transfer_end;
    table.write = scorep_profile_write;
    return &table;
}
