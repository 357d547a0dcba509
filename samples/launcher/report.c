/*
 * The launcher's statistics (--stats): once a second a report in the log (frame time
 * percentiles, and per system its turns, turn time, messages, mailbox high-water mark and
 * memory over that second, busiest first with its share of the second), and at the end of the run a
 * table on stdout: the main thread's draw and present time, then the systems, busiest first, each
 * with its share of the frame time (turn time over frame time: with several threads the shares may
 * add up past 100%).
 *
 * Design note. Everything comes from the public stats calls of ona/ona.h, as an embedder would
 * read them. A period keeps at most MAX_PERIOD_FRAMES frame times (frames past that in one
 * second are not counted in its percentiles) and the previous counters of at most MAX_REPORTED
 * systems, so that each report shows what happened since the last one. The state is allocated
 * once, before the first frame. A paused system (it failed while files are watched, and waits
 * for a fix) is marked PAUSED with its queued messages: when its mailbox is full, its senders
 * are waiting on it.
 */
#include "launcher.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t ona__launcher_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

enum { MAX_REPORTED = 256, MAX_PERIOD_FRAMES = 8192 };

/* What --stats remembers between two reports. */
struct ona__launcher_stats {
    double frame_ms[MAX_PERIOD_FRAMES];
    int frames;
    uint64_t started_ns;
    ona_system_stats last[MAX_REPORTED];
    uint32_t last_count;
};

static const ona_system_stats *previous(const ona__launcher_stats *p, ona_system h) {
    for (uint32_t i = 0; i < p->last_count; i++)
        if (p->last[i].handle.id == h.id)
            return &p->last[i];
    return NULL;
}

/* Logs the last second: frame time percentiles, and per system, busiest first, its turns, turn
 * time and share of the second, messages in and out, mailbox high-water mark and memory. */
static void report_period(ona_runtime *rt, ona__launcher_stats *p) {
    double seconds = (double)(ona__launcher_now_ns() - p->started_ns) / 1e9;
    if (p->frames > 0) {
        qsort(p->frame_ms, (size_t)p->frames, sizeof p->frame_ms[0], cmp_double);
        int n = p->frames;
        ona_log(ONA_LOG_INFO, "stats",
                "%d frames in %.2f s: frame ms p50 %.2f  p90 %.2f  p99 %.2f  max %.2f", n, seconds,
                p->frame_ms[n / 2], p->frame_ms[(n * 9) / 10], p->frame_ms[(n * 99) / 100],
                p->frame_ms[n - 1]);
    }
    ona_system list[MAX_REPORTED];
    uint32_t n = ona_runtime_systems(rt, list, MAX_REPORTED);
    n = n < MAX_REPORTED ? n : MAX_REPORTED;
    ona_system_stats now[MAX_REPORTED];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        ona_system_stats *st = &now[kept];
        if (ona_runtime_system_stats(rt, list[i], st) == 0 && st->status != ONA_SYSTEM_STOPPED)
            kept++;
    }
    /* Busiest over the period first. */
    uint64_t busy_of[MAX_REPORTED];
    uint32_t rank[MAX_REPORTED];
    for (uint32_t i = 0; i < kept; i++) {
        const ona_system_stats *was = previous(p, now[i].handle);
        busy_of[i] = now[i].turn_ns_total - (was ? was->turn_ns_total : 0);
        rank[i] = i;
        for (uint32_t j = i; j > 0 && busy_of[rank[j]] > busy_of[rank[j - 1]]; j--) {
            uint32_t t = rank[j];
            rank[j] = rank[j - 1];
            rank[j - 1] = t;
        }
    }
    for (uint32_t k = 0; k < kept; k++) {
        const ona_system_stats *st = &now[rank[k]];
        const ona_system_stats *was = previous(p, st->handle);
        uint64_t turns = st->turns - (was ? was->turns : 0);
        uint64_t busy = st->turn_ns_total - (was ? was->turn_ns_total : 0);
        if (st->status == ONA_SYSTEM_PAUSED)
            ona_log(ONA_LOG_WARN, "stats",
                    "  %-16s PAUSED until a fix is saved: %u/%u messages queued%s", st->name,
                    st->mailbox_size, st->mailbox_capacity,
                    st->mailbox_size >= st->mailbox_capacity ? " (full: its senders wait)" : "");
        char order[64] = "";
        if (st->order_place)
            snprintf(order, sizeof order, "  order #%u, waited %.1f us", st->order_place,
                     (double)st->order_wait_ns / 1e3);
        ona_log(ONA_LOG_INFO, "stats",
                "  %-16s %5llu turns %8.1f us/turn %5.1f%%  in %6llu  out %6llu  mailbox hw "
                "%u/%u  %.0f KB%s",
                st->name, (unsigned long long)turns,
                turns ? (double)busy / (double)turns / 1e3 : 0.0,
                seconds > 0 ? 100.0 * (double)busy / (seconds * 1e9) : 0.0,
                (unsigned long long)(st->messages_in - (was ? was->messages_in : 0)),
                (unsigned long long)(st->messages_out - (was ? was->messages_out : 0)),
                st->mailbox_high_water, st->mailbox_capacity, (double)st->memory / 1024.0, order);
    }
    memcpy(p->last, now, kept * sizeof now[0]);
    p->last_count = kept;
    p->frames = 0;
    p->started_ns = ona__launcher_now_ns();
}

ona__launcher_stats *ona__launcher_stats_begin(void) {
    ona__launcher_stats *p = calloc(1, sizeof *p);
    if (p)
        p->started_ns = ona__launcher_now_ns();
    return p;
}

void ona__launcher_stats_frame(ona_runtime *rt, ona__launcher_stats *p) {
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    if (p->frames < MAX_PERIOD_FRAMES)
        p->frame_ms[p->frames++] = (double)rs.last_frame_ns / 1e6;
    if (ona__launcher_now_ns() - p->started_ns >= 1000000000ull)
        report_period(rt, p);
}

void ona__launcher_stats_end(ona__launcher_stats *p) {
    free(p);
}

/* Longest total turn time first; ties in spawn order. */
static int cmp_busiest(const void *a, const void *b) {
    const ona_system_stats *x = a, *y = b;
    if (x->turn_ns_total != y->turn_ns_total)
        return x->turn_ns_total > y->turn_ns_total ? -1 : 1;
    return x->spawn_order < y->spawn_order ? -1 : x->spawn_order > y->spawn_order;
}

void ona__launcher_stats_print(ona_runtime *rt) {
    ona_runtime_stats rs;
    ona_runtime_stats_get(rt, &rs);
    printf("\n%llu frames, mean %.3f ms, max %.3f ms; %u threads; %llu messages; %llu turns; "
           "%llu steals\n",
           (unsigned long long)rs.frames,
           rs.frames ? (double)rs.total_frame_ns / (double)rs.frames / 1e6 : 0.0,
           (double)rs.max_frame_ns / 1e6, rs.threads, (unsigned long long)rs.messages,
           (unsigned long long)rs.turns, (unsigned long long)rs.steals);
    double total = (double)rs.total_frame_ns;
    if (rs.pictures)
        printf("main thread: %llu pictures, draw %.3f ms (%.1f%%), present %.3f ms (%.1f%%) "
               "each on average\n",
               (unsigned long long)rs.pictures,
               (double)rs.total_draw_ns / (double)rs.pictures / 1e6,
               total > 0 ? 100.0 * (double)rs.total_draw_ns / total : 0.0,
               (double)rs.total_present_ns / (double)rs.pictures / 1e6,
               total > 0 ? 100.0 * (double)rs.total_present_ns / total : 0.0);
    printf("%-16s %-10s %8s %10s %7s %8s %8s %10s %10s %10s %6s %8s\n", "system", "status", "turns",
           "turn us", "share", "parks", "in", "out", "mailbox hw", "memory KB", "order", "wait us");
    static ona_system list[256];
    static ona_system_stats all[256];
    uint32_t n = ona_runtime_systems(rt, list, 256), kept = 0;
    for (uint32_t i = 0; i < n && i < 256; i++)
        if (ona_runtime_system_stats(rt, list[i], &all[kept]) == 0)
            kept++;
    qsort(all, kept, sizeof all[0], cmp_busiest);
    for (uint32_t i = 0; i < kept; i++) {
        const ona_system_stats st = all[i];
        static const char *const status[] = {"running", "restarting", "stopped", "paused"};
        char place[16] = "-";
        if (st.order_place)
            snprintf(place, sizeof place, "#%u", st.order_place);
        printf("%-16s %-10s %8llu %10.1f %6.1f%% %8llu %8llu %10llu %5u/%-4u %10.1f %6s %8.1f\n",
               st.name, st.status <= ONA_SYSTEM_PAUSED ? status[st.status] : "?",
               (unsigned long long)st.turns,
               st.turns ? (double)st.turn_ns_total / (double)st.turns / 1e3 : 0.0,
               total > 0 ? 100.0 * (double)st.turn_ns_total / total : 0.0,
               (unsigned long long)st.parks, (unsigned long long)st.messages_in,
               (unsigned long long)st.messages_out, st.mailbox_high_water, st.mailbox_capacity,
               (double)st.memory / 1024.0, place, (double)st.order_wait_ns / 1e3);
    }
}
