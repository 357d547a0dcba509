/*
 * trace.c: recording turn slices per thread and writing them as Chrome trace events.
 *
 * Design note. Recording is an append to the running thread's own buffer: the buffer grows by
 * doubling and keeps its memory across frames, so after the first frames tracing allocates
 * nothing. Writing happens on main after the frame's turns, when every worker's last turn is
 * ordered before it by the frame's end. Tracks: process 1 holds one track per thread (turn
 * slices, named after the system) and a "frames" track; process 2 holds one track per system
 * for its parked time. Main's track also has a "draw" slice (the merge and the GL calls) and a
 * "present" slice (the swap) after each picture. Timestamps are microseconds since the trace began.
 * The same slices feed the inspector's last-frame timeline (`core->timeline`): main reads them
 * after the frame, before they are written (or, without a file, cleared).
 */
#include "trace.h"

#include "common.h"
#include "core.h"

void ona__trace_record(ona__trace_buffer *b, const ona__system *sys, uint8_t kind,
                       uint64_t start_ns, uint64_t end_ns) {
    if (b->count == b->capacity) {
        uint32_t cap = b->capacity ? b->capacity * 2 : 1024;
        ona__trace_event *grown = ona__realloc(b->events, cap * sizeof *grown);
        if (!grown) {
            b->dropped++;
            return;
        }
        b->events = grown;
        b->capacity = cap;
    }
    b->events[b->count++] = (ona__trace_event){sys, start_ns, end_ns, kind};
}

void ona__trace_buffer_free(ona__trace_buffer *b) {
    ona__free(b->events);
    memset(b, 0, sizeof *b);
}

/* Writes a JSON string (escaped) without the quotes' allocation. */
static void put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void separator(ona__trace *t) {
    if (!t->first)
        fputs(",\n", t->file);
    t->first = false;
}

static void metadata(ona__trace *t, int pid, uint32_t tid, const char *kind, const char *name) {
    separator(t);
    fprintf(t->file, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"%s\",\"args\":{\"name\":", pid,
            tid, kind);
    put_json_string(t->file, name);
    fputs("}}", t->file);
}

int ona__trace_begin(ona__core *core, const char *path) {
    if (!path || strlen(path) >= sizeof core->trace.path)
        return ONA_EINVAL;
    if (core->trace.file)
        ona__trace_end(core);
    FILE *f = fopen(path, "w");
    if (!f) {
        ona_log(ONA_LOG_ERROR, "trace", "cannot write %s", path);
        return ONA_EIO;
    }
    ona__trace *t = &core->trace;
    t->file = f;
    t->first = true;
    t->origin_ns = ona__now_ns();
    snprintf(t->path, sizeof t->path, "%s", path);
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", f);
    metadata(t, 1, 0, "process_name", "ona threads");
    metadata(t, 2, 0, "process_name", "ona systems (parked time)");
    for (uint32_t i = 0; i < core->thread_count; i++) {
        char name[32];
        snprintf(name, sizeof name, i == 0 ? "main" : "ona-worker-%u", i);
        metadata(t, 1, i, "thread_name", name);
    }
    metadata(t, 1, 1000, "thread_name", "frames");
    core->tracing = true;
    return 0;
}

static double us(const ona__trace *t, uint64_t ns) {
    return ns >= t->origin_ns ? (double)(ns - t->origin_ns) / 1000.0 : 0.0;
}

static void clear_slices(ona__core *core) {
    for (uint32_t w = 0; w < core->thread_count; w++) {
        core->workers[w].trace.count = 0;
        core->workers[w].trace.dropped = 0;
    }
}

void ona__trace_write_frame(ona__core *core, uint64_t frame_start_ns, uint64_t frame_end_ns) {
    ona__trace *t = &core->trace;
    if (!t->file) {
        clear_slices(core); /* the slices were the timeline's alone */
        return;
    }
    FILE *f = t->file;
    for (uint32_t w = 0; w < core->thread_count; w++) {
        ona__trace_buffer *b = &core->workers[w].trace;
        for (uint32_t i = 0; i < b->count; i++) {
            const ona__trace_event *e = &b->events[i];
            const ona__system *sys = e->sys;
            separator(t);
            fputs("{\"name\":", f);
            put_json_string(f, e->kind == ONA__TRACE_PARKED ? "parked" : sys->name);
            if (e->kind == ONA__TRACE_TURN) {
                fprintf(f,
                        ",\"cat\":\"turn\",\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
                        "\"dur\":%.3f,\"args\":{\"frame\":%llu,\"system\":%llu",
                        w, us(t, e->start_ns), (double)(e->end_ns - e->start_ns) / 1000.0,
                        (unsigned long long)core->frame, (unsigned long long)sys->id);
                /* Its place in the declared order, and how long its predecessors kept it. */
                if (sys->order_place)
                    fprintf(f, ",\"order\":%u,\"waited_us\":%.3f", sys->order_place,
                            (double)sys->order_wait_ns / 1000.0);
                fputs("}}", f);
            } else
                fprintf(f,
                        ",\"cat\":\"parked\",\"ph\":\"X\",\"pid\":2,\"tid\":%u,\"ts\":%.3f,"
                        "\"dur\":%.3f,\"args\":{\"frame\":%llu}}",
                        sys->spawn_order, us(t, e->start_ns),
                        (double)(e->end_ns - e->start_ns) / 1000.0, (unsigned long long)core->frame);
        }
        if (b->dropped)
            ona_log(ONA_LOG_WARN, "trace", "%u events of thread %u lost (out of memory)",
                    b->dropped, w);
        b->count = 0;
        b->dropped = 0;
    }
    /* Name each system's parked track once, the first frame it appears. */
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *sys = core->systems[i];
        if (!sys->trace_named) {
            metadata(t, 2, sys->spawn_order, "thread_name", sys->name);
            sys->trace_named = true;
        }
    }
    separator(t);
    fprintf(f,
            "{\"name\":\"frame %llu\",\"cat\":\"frame\",\"ph\":\"X\",\"pid\":1,\"tid\":1000,"
            "\"ts\":%.3f,\"dur\":%.3f}",
            (unsigned long long)core->frame, us(t, frame_start_ns),
            (double)(frame_end_ns - frame_start_ns) / 1000.0);
}

void ona__trace_write_main(ona__core *core, uint64_t draw_ns, uint64_t swap_ns, uint64_t end_ns) {
    ona__trace *t = &core->trace;
    if (!t->file)
        return;
    static const char *const names[2] = {"draw", "present"};
    uint64_t at[3] = {draw_ns, swap_ns, end_ns};
    for (int i = 0; i < 2; i++) {
        separator(t);
        fprintf(t->file,
                "{\"name\":\"%s\",\"cat\":\"main\",\"ph\":\"X\",\"pid\":1,\"tid\":0,"
                "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"frame\":%llu}}",
                names[i], us(t, at[i]), (double)(at[i + 1] - at[i]) / 1000.0,
                (unsigned long long)core->frame);
    }
}

int ona__trace_end(ona__core *core) {
    ona__trace *t = &core->trace;
    core->tracing = core->timeline; /* the inspector's timeline keeps the slices coming */
    if (!t->file)
        return 0;
    fputs("\n]}\n", t->file);
    int rc = fclose(t->file) == 0 ? 0 : ONA_EIO;
    if (rc)
        ona_log(ONA_LOG_ERROR, "trace", "writing %s failed", t->path);
    t->file = NULL;
    return rc;
}
