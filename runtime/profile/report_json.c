/* profile.json: the table-like layout documented in docs/PROFILE_FORMAT.md. */
#include <inttypes.h>
#include <stdio.h>

#include "multiprocess.h"
#include "report_names.h"
#include "timer.h"
#include "profile_cube.h"

static void json_string(FILE* f, const char* s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void json_id(FILE* f, uint32_t id)
{
    if (id == SCOREP_INVALID_ID) fputs("null", f);
    else fprintf(f, "%u", id);
}

int scorep_report_write_json(const scorep_report* r, const char* path)
{
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    const scorep_unified_definitions* d = r->defs;
    fputs("{\n\"format\": \"scorep-wrapgen-profile\", \"version\": 1,\n\"experiment\": {", f);
    fprintf(f, "\"ranks\": %d, \"mpi\": %s, \"timer\": ", r->ranks,
            scorep_multiprocess_is_registered() ? "true" : "false");
    json_string(f, r->timer);
    fputs(", \"start\": ", f);
    json_string(f, r->start);
    fputs(", \"command\": ", f);
    json_string(f, r->command);
    fprintf(f, ", \"partial\": %s, \"time_unit\": \"ns\"", r->partial ? "true" : "false");
    if (r->hosts) {
        /* the host (node) of each rank */
        fputs(",\n  \"hosts\": [", f);
        for (int i = 0; i < r->ranks; i++) {
            fputs(i ? ", " : "", f);
            json_string(f, r->hosts + (size_t)i * SCOREP_CUBE_HOST_NAME_MAX);
        }
        fputs("]", f);
    }
    if (r->clock_offsets) {
        /* per rank: its clock's offsets to rank 0's, in timer ticks (docs/CLOCKS.md) */
        fprintf(f, ",\n  \"timer_resolution\": %" PRIu64 ", \"clock_offsets\": [", r->ticks_per_second);
        for (int i = 0; i < r->ranks; i++) {
            const scorep_clock_offset* p = &r->clock_offsets[2 * i];
            fprintf(f, "%s\n    [{\"time\": %" PRIu64 ", \"offset\": %" PRId64 ", \"stddev\": %.1f}, "
                       "{\"time\": %" PRIu64 ", \"offset\": %" PRId64 ", \"stddev\": %.1f}]",
                    i ? "," : "", p[0].local, p[0].offset, p[0].stddev, p[1].local, p[1].offset, p[1].stddev);
        }
        fputs("]", f);
    }
    fputs("},\n", f);

    fputs("\"locations\": [", f);
    for (uint32_t i = 0; i < d->location_count; i++) {
        fprintf(f, "%s\n  {\"id\": %u, \"rank\": %u, \"thread\": %u, \"events\": %" PRIu64, i ? "," : "", i,
                d->location_rank[i], d->location_thread[i], d->location_event_count[i]);
        /* the thread adapter's: which thread (of the same rank) created it */
        if (d->location_creator && d->location_creator[i] != SCOREP_INVALID_ID)
            fprintf(f, ", \"creator\": %u", d->location_creator[i]);
        /* a member of an OpenMP team: its number in the team that made it */
        if (d->location_team_member && d->location_team_member[i] > 0)
            fprintf(f, ", \"team_member\": %u", d->location_team_member[i]);
        /* its team nested in that many of the forking location's own teams */
        if (d->location_team_level && d->location_team_level[i] > 0)
            fprintf(f, ", \"team_level\": %u", d->location_team_level[i]);
        fputs("}", f);
    }
    fputs("],\n\"regions\": [", f);
    for (uint32_t i = 0; i < d->region_count; i++) {
        const scorep_region_def* rg = &d->regions[i];
        fprintf(f, "%s\n  {\"id\": %u, \"name\": ", i ? "," : "", i);
        json_string(f, rg->name);
        fprintf(f, ", \"paradigm\": \"%s\", \"group\": ", scorep_paradigm_name(rg->paradigm));
        json_string(f, rg->group);
        fprintf(f, ", \"role\": \"%s\", \"file\": ", scorep_role_name(rg->role));
        json_string(f, rg->file);
        if (rg->line) fprintf(f, ", \"line\": %u", rg->line);
        else fputs(", \"line\": null", f);
        if (rg->end_line) fprintf(f, ", \"end_line\": %u", rg->end_line);
        else fputs(", \"end_line\": null", f);
        fputs(", \"canonical_name\": ", f);
        json_string(f, rg->canonical ? rg->canonical : rg->name);
        fprintf(f, ", \"filtered\": %s}", rg->filtered ? "true" : "false");
    }
    fputs("],\n\"metrics\": [", f);
    for (uint32_t i = 0; i < d->metric_count; i++) {
        fprintf(f, "%s\n  {\"id\": %u, \"name\": ", i ? "," : "", i);
        json_string(f, d->metrics[i].name);
        fputs(", \"unit\": ", f);
        json_string(f, d->metrics[i].unit);
        fputs(", \"description\": ", f);
        json_string(f, d->metrics[i].description);
        fprintf(f, ", \"kind\": \"%s\"}", scorep_metric_kind_name(d->metrics[i].kind));
    }
    /* per file (io_files.c): the transfers on it, their bytes and time, over
     * all locations; name null: the files beyond the per-process table */
    fputs("],\n\"io_files\": [", f);
    for (size_t i = 0; i < r->io_file_count; i++) {
        const scorep_io_file_total* t = &r->io_files[i];
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        json_string(f, t->name);
        fprintf(f, ", \"visits\": %" PRIu64 ", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %" PRIu64
                   ", \"time_ns\": %" PRIu64 "}",
                t->visits, t->bytes_read, t->bytes_written, t->time_ns);
    }
    fputs("],\n\"callpaths\": [", f);
    for (uint32_t i = 0; i < r->callpath_count; i++) {
        const scorep_report_callpath* cp = &r->callpaths[i];
        fprintf(f, "%s\n  {\"id\": %u, \"region\": ", i ? "," : "", i);
        json_id(f, cp->region);
        fputs(", \"parent\": ", f);
        json_id(f, cp->parent);
        if (cp->parameter != SCOREP_INVALID_ID && cp->parameter < d->parameter_count) {
            const scorep_parameter_def* p = &d->parameters[cp->parameter];
            fputs(", \"parameter\": {\"name\": ", f);
            json_string(f, p->name);
            fputs(", \"value\": ", f);
            if (p->type == SCOREP_PARAMETER_STRING)
                json_string(f, (uint64_t)cp->parameter_value < d->string_count ? d->strings[cp->parameter_value]
                                                                                : NULL);
            else
                fprintf(f, "%" PRId64, cp->parameter_value);
            fputc('}', f);
        }
        fputc('}', f);
    }
    fputs("],\n\"rows\": [", f);
    for (size_t i = 0; i < r->row_count; i++) {
        const scorep_report_row* row = &r->rows[i];
        const scorep_profile_numbers* n = &row->n;
        fprintf(f, "%s\n  {\"location\": ", i ? "," : "");
        json_id(f, row->location);
        fprintf(f,
                ", \"callpath\": %u, \"visits\": %" PRIu64 ", \"time_incl_ns\": %" PRIu64
                ", \"time_excl_ns\": %" PRIu64 ", \"time_min_ns\": %" PRIu64 ", \"time_max_ns\": %" PRIu64
                ", \"bytes_sent\": %" PRIu64 ", \"bytes_received\": %" PRIu64 ", \"messages_sent\": %" PRIu64
                ", \"messages_received\": %" PRIu64 ", \"collectives\": %" PRIu64 ", \"bytes_read\": %" PRIu64
                ", \"bytes_written\": %" PRIu64 ", \"bytes_put\": %" PRIu64 ", \"bytes_get\": %" PRIu64,
                row->callpath, n->visits, n->time_incl, row->time_excl, n->time_min, n->time_max, n->bytes_sent,
                n->bytes_received, n->messages_sent, n->messages_received, n->collectives, n->bytes_read,
                n->bytes_written, n->bytes_put, n->bytes_get);
        if (n->hits) fprintf(f, ", \"hits\": %" PRIu64, n->hits);
        int any = 0;
        for (uint32_t m = 0; m < d->metric_count && m < SCOREP_PROFILE_MAX_METRICS; m++)
            if (row->metrics[m]) {
                fprintf(f, "%s\"%u\": %" PRId64, any ? ", " : ", \"metrics\": {", m, row->metrics[m]);
                any = 1;
            }
        if (any) fputc('}', f);
        any = 0;
        for (uint32_t m = 0; m < d->metric_count && m < SCOREP_PROFILE_MAX_METRICS; m++)
            if (scorep_report_metric_is_strict(&d->metrics[m]) && row->metrics_excl[m]) {
                fprintf(f, "%s\"%u\": %" PRId64, any ? ", " : ", \"metrics_excl\": {", m, row->metrics_excl[m]);
                any = 1;
            }
        if (any) fputc('}', f);
        fputc('}', f);
    }
    fputs("]\n}\n", f);
    int bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}
