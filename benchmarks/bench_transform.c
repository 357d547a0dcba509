/*
 * bench_transform: what the draw-state stack costs per sprite (ona.gfx.push/translate/pop).
 *
 * One Lua system (benchmarks/bench_transform.lua) draws COUNT sprites a frame, one way per run:
 *   plain        ona.gfx.draw(tex, x, y) per sprite: the peer every row is read against;
 *   push         push, translate(x, y), draw(tex, 0, 0), pop per sprite;
 *   rotate       the same with a rotate (a rotation: the sprite stays a sprite);
 *   skew         the same with scale(2, 1) then rotate (skewed: an affine instance);
 *   opts         ona.gfx.draw(tex, x, y, {rotation = 0.5}): the rotate row's peer;
 *   batch        one ona.gfx.draw_sprites of COUNT sprites, under the identity;
 *   batch_moved  the same under one translate (every sprite goes through the transform in C).
 * Headless (video none: the sprites are merged and discarded), 2 threads. After WARMUP frames,
 * FRAMES frames are timed by the drawing system's turn (last_turn_ns of
 * ona_runtime_system_stats: the turn runs on one thread without waiting). Medians in us, and
 * ns per sprite.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include <stdlib.h>
#include <string.h>

enum { COUNT = 10000, WARMUP = 20, FRAMES = 200 };

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks",
                                    ONA_SOURCE_DIR "/samples/bunnymark", NULL};

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_transform: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

static bench_stats run(const char *mode) {
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots, .video = ONA_VIDEO_NONE};
    ona_runtime *rt = bench_runtime(&desc, "bench_transform");
    ona_message args;
    ona_message_init(&args);
    ona_message_writer w;
    ona_message_writer_begin(&w, &args);
    static const char texture[] = "bunny.png";
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "mode", 4);
    ona_message_write_string(&w, mode, strlen(mode));
    ona_message_write_string(&w, "texture", 7);
    ona_message_write_string(&w, texture, strlen(texture));
    ona_message_write_table_end(&w);
    int rc = ona_message_writer_end(&w);
    if (rc)
        die("args", rc);
    ona_system sys;
    ona_spawn_desc d = {.script = "bench_transform.lua", .name = "drawer", .args = &args};
    if ((rc = ona_runtime_spawn(rt, &d, &sys)) != 0)
        die("spawn", rc);
    double *turns = calloc(FRAMES, sizeof *turns);
    if (!turns)
        die("calloc", ONA_ENOMEM);
    for (int f = 0; f < WARMUP + FRAMES; f++) {
        bench_step(rt, "bench_transform");
        ona_system_stats after;
        ona_runtime_system_stats(rt, sys, &after);
        if (after.status != ONA_SYSTEM_RUNNING)
            die(mode, ONA_ESCRIPT);
        if (f >= WARMUP)
            turns[f - WARMUP] = (double)after.last_turn_ns / 1000.0;
    }
    ona_runtime_destroy(rt);
    bench_stats s = bench_summarise(turns, FRAMES);
    free(turns);
    return s;
}

int main(void) {
    static const struct {
        const char *mode, *what;
    } modes[] = {
        {"plain", "peer: draw per sprite"},
        {"push", "push, translate, draw, pop per sprite"},
        {"rotate", "push, translate, rotate, draw, pop per sprite"},
        {"skew", "push, translate, scale(2, 1), rotate, draw, pop per sprite (affine)"},
        {"opts", "peer: draw per sprite with opts.rotation"},
        {"batch", "peer: one draw_sprites of 10,000, identity"},
        {"batch_moved", "one draw_sprites of 10,000 under a translate"},
    };
    enum { MODES = sizeof modes / sizeof modes[0] };
    char load[64];
    bench_load_text(load, sizeof load);
    bench_stats results[MODES];
    for (int i = 0; i < MODES; i++)
        results[i] = run(modes[i].mode);
    bench_report *r = bench_report_open(
        "transform", "Transforms: push/translate/draw/pop per sprite",
        "a plain ona.gfx.draw per sprite; a draw with opts.rotation; one draw_sprites batch");
    bench_report_printf(r,
                        "%d sprites a frame from one Lua system, headless (the sprites are "
                        "merged and discarded), 2 threads, %d frames after %d of warm-up. "
                        "*turn*: the drawing system's turn (last_turn_ns of "
                        "ona_runtime_system_stats). Microseconds; per sprite in ns. Run: "
                        "`build/release/bench_transform` (the `release` preset).\n\n",
                        COUNT, FRAMES, WARMUP);
    bench_report_printf(r, "| what | turn median | turn mean | per sprite | vs plain draw |\n");
    bench_report_printf(r, "|---|---:|---:|---:|---:|\n");
    bench_report_chart(r, "10,000 sprites a frame: the drawing turn's median (lower is better)",
                       "us", false, 1, (const char *const[]){"turn median"});
    for (int i = 0; i < MODES; i++) {
        bench_report_chart_row(r, modes[i].mode, (double[]){results[i].median});
        bench_report_printf(r, "| %s | %.1f | %.1f | %.1f ns | %.2fx |\n", modes[i].what,
                            results[i].median, results[i].mean, results[i].median * 1000.0 / COUNT,
                            results[i].median / results[0].median);
    }
    bench_report_printf(r,
                        "\nLoad average before the runs (1, 5, 15 min; running/total): %s. The "
                        "machine is shared with other builds, so the means carry other people's "
                        "work; the medians are the figures to read.\n",
                        load);
    return bench_report_close(r) == 0 ? 0 : 1;
}
