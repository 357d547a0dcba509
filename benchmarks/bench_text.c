/*
 * bench_text: the cost of 10,000 glyphs a frame (text with real fonts).
 *
 * A frame prints LINES lines of COLUMNS characters (printable ASCII, so every glyph is in the
 * atlas after the first frame) with the default font at 12 px:
 *   C print      one native system, ona_ctx_print per line;
 *   Lua print    one Lua system (benchmarks/bench_text.lua), ona.gfx.print per line;
 *   C draw       the peer: one native system pushing the same number of sprites, already laid
 *                out, with one ona_ctx_draw (no decoding, no layout, no glyph lookup).
 * Each runs headless (video none: the sprites are merged and discarded) and offscreen (Mesa
 * llvmpipe renders them at 1280x720), with 2 threads. After WARMUP frames, FRAMES frames are
 * timed: the printing system's turn (ona_runtime_system_stats' last_turn_ns: the turn runs on
 * one thread without waiting, so this is the print's CPU time plus the turn's own overhead) and
 * the frame's wall time (ona_runtime_step). Medians and means in us.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <stdlib.h>
#include <string.h>

enum { LINES = 100, COLUMNS = 100, WARMUP = 20, FRAMES = 200 };

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks", NULL};

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_text: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

typedef enum mode { MODE_C_PRINT, MODE_LUA_PRINT, MODE_C_DRAW } mode;

typedef struct bench_state {
    mode mode;
    ona_font font;
    ona_texture texture;
    char lines[LINES][COLUMNS + 1];
    ona_sprite sprites[LINES * COLUMNS];
} bench_state;

static bench_state state; /* one native system at a time */

static int native_process(ona_ctx *ctx, void *unused, double dt) {
    (void)unused, (void)dt;
    int rc = 0;
    if (state.mode == MODE_C_PRINT) {
        ona_text_desc d = {.tint = ONA_RGBA(230, 230, 230, 255)};
        for (int i = 0; i < LINES && rc == 0; i++)
            rc = ona_ctx_print(ctx, state.font, state.lines[i], COLUMNS, 4, 4 + (float)i * 7, &d);
    } else {
        rc = ona_ctx_draw(ctx, state.texture, 0, state.sprites, LINES * COLUMNS);
    }
    return rc;
}

typedef struct result {
    bench_stats turn, frame;
} result;

static result run(mode m, ona_video video) {
    ona_runtime_desc desc = {
        .threads = 2,
        .script_roots = roots,
        .video = video,
        .window = {.width = 1280, .height = 720, .vsync = ONA_VSYNC_OFF},
    };
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc)
        die("ona_runtime_create", rc);
    state.mode = m;
    double *turns = calloc(FRAMES, sizeof *turns), *frames = calloc(FRAMES, sizeof *frames);
    if (!turns || !frames)
        die("calloc", ONA_ENOMEM);
    if ((rc = ona_runtime_font_load(rt, NULL, 12, &state.font)) != 0)
        die("ona_runtime_font_load", rc);
    ona_system sys;
    if (m == MODE_LUA_PRINT) {
        ona_spawn_desc d = {.script = "bench_text.lua", .name = "printer"};
        rc = ona_runtime_spawn(rt, &d, &sys);
    } else {
        ona_system_desc d = {.name = "printer", .process = native_process};
        if ((rc = ona_runtime_texture_load(rt, ONA_SOURCE_DIR "/samples/invaders/invaders.png",
                                           &state.texture)) != 0)
            die("ona_runtime_texture_load", rc);
        rc = ona_runtime_spawn_native(rt, &d, &sys);
    }
    if (rc)
        die("spawn", rc);
    for (int f = 0; f < WARMUP + FRAMES; f++) {
        ona_system_stats after;
        uint64_t t0 = bench_now_ns();
        if ((rc = ona_runtime_step(rt, 1.0 / 60)) != 0)
            die("ona_runtime_step", rc);
        uint64_t t1 = bench_now_ns();
        ona_runtime_system_stats(rt, sys, &after);
        if (f >= WARMUP) {
            frames[f - WARMUP] = (double)(t1 - t0) / 1000.0;
            turns[f - WARMUP] = (double)after.last_turn_ns / 1000.0;
        }
    }
    ona_runtime_destroy(rt);
    result r = {bench_summarise(turns, FRAMES), bench_summarise(frames, FRAMES)};
    free(turns);
    free(frames);
    return r;
}

int main(void) {
    /* Printable ASCII, shifted per line so lines differ. */
    for (int i = 0; i < LINES; i++) {
        for (int c = 0; c < COLUMNS; c++)
            state.lines[i][c] = (char)(33 + (i + c * 7) % 94);
        state.lines[i][COLUMNS] = '\0';
    }
    for (int i = 0; i < LINES * COLUMNS; i++) {
        ona_sprite *s = &state.sprites[i];
        memset(s, 0, sizeof *s);
        s->x = 4 + (float)(i % COLUMNS) * 7;
        s->y = 4 + (float)(i / COLUMNS) * 7;
        s->scale_x = s->scale_y = 1;
        s->src_w = s->src_h = 8;
        s->tint = 0xFFFFFFFFu;
    }
    static const struct {
        mode m;
        const char *name;
    } modes[] = {
        {MODE_C_PRINT, "C print (ona_ctx_print)"},
        {MODE_LUA_PRINT, "Lua print (ona.gfx.print)"},
        {MODE_C_DRAW, "peer: C draw, 10,000 sprites laid out"},
    };
    static const struct {
        ona_video v;
        const char *name;
    } videos[] = {{ONA_VIDEO_NONE, "headless"}, {ONA_VIDEO_OFFSCREEN, "offscreen llvmpipe"}};
    /* The machine is shared: the load before the runs goes into the table. */
    char load[64];
    bench_load_text(load, sizeof load);
    result results[3][2];
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 3; i++)
            results[i][v] = run(modes[i].m, videos[v].v);

    bench_report *r = bench_report_open(
        "text", "Text: 10,000 glyphs a frame",
        "the same 10,000 sprites pushed with one ona_ctx_draw, already laid out (no UTF-8, "
        "layout or glyph lookup)");
    bench_report_printf(r,
                        "%d lines of %d printable ASCII characters a frame, the default font "
                        "(DejaVu Sans) at 12 px, 2 threads, %d frames after %d of warm-up "
                        "(every glyph is in the atlas then). *turn*: the printing system's turn "
                        "(last_turn_ns of ona_runtime_system_stats); *frame*: the wall time "
                        "of ona_runtime_step (merge, and with video the upload and llvmpipe's "
                        "drawing). Microseconds.\n\n",
                        LINES, COLUMNS, FRAMES, WARMUP);
    bench_report_printf(r, "| what | video | turn median | turn mean | frame median | frame mean "
                           "| per glyph (turn median) |\n");
    bench_report_printf(r, "|---|---|---:|---:|---:|---:|---:|\n");
    bench_report_chart(r, "10,000 glyphs a frame: the printing turn's median (lower is better)",
                       "us", false, 2, (const char *const[]){videos[0].name, videos[1].name});
    for (int i = 0; i < 3; i++)
        bench_report_chart_row(r, modes[i].name,
                               (double[]){results[i][0].turn.median, results[i][1].turn.median});
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < 3; i++)
            bench_report_printf(r, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f ns |\n",
                                modes[i].name, videos[v].name, results[i][v].turn.median,
                                results[i][v].turn.mean, results[i][v].frame.median,
                                results[i][v].frame.mean,
                                results[i][v].turn.median * 1000.0 / (LINES * COLUMNS));
    bench_report_printf(r,
                        "\nLoad average before the runs (1, 5, 15 min; running/total): %s. The "
                        "machine is shared, so the means carry other people's work; the medians "
                        "are the figures to read.\n",
                        load);
    return bench_report_close(r) == 0 ? 0 : 1;
}
