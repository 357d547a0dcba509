/*
 * bench_audio: the cost of 1,000 audio plays in one frame.
 *
 * One system makes 1,000 calls in every turn; after WARMUP frames, FRAMES frames are timed:
 *   - the system's turn (the runtime's own turn statistics: the calls themselves, appending to
 *     the thread's audio queue), reported per call after subtracting an empty turn;
 *   - the whole ona_runtime_step (wall time), which adds main's merge of the queues, resolving
 *     the sounds and the hand-off to the mixer under the device's lock.
 * Rows: Lua ona.audio.play with an options table and without, a native system's
 * ona_ctx_audio_play, and, as the peer, Lua ona.gfx.draw (the same queue-and-merge design for
 * sprites; no video, so nothing is drawn) and an idle system. Threads = 1 and 2. Without a
 * window the runtime mixes on game time on main (SDL_AUDIODRIVER=dummy unless set: no device),
 * so the step also holds each frame's mix (800 frames of up to 256 voices). 256 voices at most
 * play: once they are busy a play is refused at the call (nil, ONA_EBUSY) without being queued,
 * so most of the 1,000 calls of a frame measure the refusal. Last, the mixer alone: one
 * 1024-frame buffer with 256 voices playing.
 */
#include "bench_support.h"
#include "ona/ona.h"

#include "runtime_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { WARMUP = 50, FRAMES = 600, CALLS = 1000 };

static const char *const roots[] = {ONA_SOURCE_DIR "/benchmarks", NULL};
static char wav_path[256];

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_audio: %s: %s\n", what, ona_strerror(rc));
    exit(1);
}

/* 0.1 s of a quiet square wave, 16-bit mono 48 kHz. */
static void write_wav(const char *path) {
    FILE *f = fopen(path, "wb");
    if (!f)
        die(path, ONA_EIO);
    uint32_t frames = 4800, data = frames * 2;
    uint32_t h32[] = {36 + data, 16, 48000, 96000};
    fwrite("RIFF", 1, 4, f);
    fwrite(&h32[0], 4, 1, f);
    fwrite("WAVEfmt ", 1, 8, f);
    fwrite(&h32[1], 4, 1, f);
    uint16_t fmt[] = {1, 1};
    fwrite(fmt, 2, 2, f);
    fwrite(&h32[2], 4, 2, f);
    uint16_t align[] = {2, 16};
    fwrite(align, 2, 2, f);
    fwrite("data", 1, 4, f);
    fwrite(&data, 4, 1, f);
    for (uint32_t i = 0; i < frames; i++) {
        int16_t v = (i / 50) % 2 ? 3000 : -3000;
        fwrite(&v, 2, 1, f);
    }
    fclose(f);
}

/* The 1-minute load average (/proc/loadavg), to say how busy the shared machine was. */
static double load_average(void) {
    double load = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1)
            load = -1;
        fclose(f);
    }
    return load;
}

static ona_message lua_args(const char *mode, int n) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    ona_message_write_string(&w, "mode", 4);
    ona_message_write_string(&w, mode, strlen(mode));
    ona_message_write_string(&w, "n", 1);
    ona_message_write_number(&w, n);
    ona_message_write_string(&w, "sound", 5);
    ona_message_write_string(&w, wav_path, strlen(wav_path));
    ona_message_write_string(&w, "texture", 7);
    const char *tex = ONA_SOURCE_DIR "/samples/invaders/pixel.png";
    ona_message_write_string(&w, tex, strlen(tex));
    ona_message_write_table_end(&w);
    int rc = ona_message_writer_end(&w);
    if (rc)
        die("args", rc);
    return m;
}

static ona_sound native_sound;

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)state;
    (void)dt;
    ona_play_desc d = {.volume = 0.5f, .pan = 0.25f};
    for (int i = 0; i < CALLS; i++) {
        int rc = ona_ctx_audio_play(ctx, native_sound, &d, NULL);
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct result {
    bench_stats step, turn; /* us */
} result;

static result run(const char *mode, uint32_t threads) {
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots};
    ona_runtime *rt;
    int rc = ona_runtime_create(&desc, &rt);
    if (rc)
        die("ona_runtime_create", rc);
    ona_system h;
    if (strcmp(mode, "native") == 0) {
        if ((rc = ona_runtime_sound_load(rt, wav_path, &native_sound)))
            die("sound", rc);
        ona_system_desc d = {.name = "native_player", .process = native_process};
        if ((rc = ona_runtime_spawn_native(rt, &d, &h)))
            die("spawn native", rc);
    } else {
        ona_message args = lua_args(mode, CALLS);
        ona_spawn_desc d = {.script = "bench_audio.lua", .args = &args};
        if ((rc = ona_runtime_spawn(rt, &d, &h)))
            die("spawn bench_audio.lua", rc);
    }
    for (int i = 0; i < WARMUP; i++)
        ona_runtime_step(rt, 1.0 / 60);
    static double samples[FRAMES], turns[FRAMES];
    for (int i = 0; i < FRAMES; i++) {
        uint64_t t0 = bench_now_ns();
        ona_runtime_step(rt, 1.0 / 60);
        samples[i] = (double)(bench_now_ns() - t0) / 1000.0;
        ona_system_stats st;
        ona_runtime_system_stats(rt, h, &st);
        turns[i] = (double)st.last_turn_ns / 1000.0;
    }
    result r = {.step = bench_summarise(samples, FRAMES), .turn = bench_summarise(turns, FRAMES)};
    if (strcmp(mode, "none") != 0 && strcmp(mode, "draw") != 0 && !rt->services.audio.open)
        fprintf(stderr, "bench_audio: warning: no audio device opened (the hand-off is skipped)\n");
    ona_runtime_destroy(rt);
    return r;
}

/* The mixer alone: ns to mix one 1024-frame buffer with every voice playing. */
static double mix_ns(void) {
    static ona__mixer m;
    ona__mixer_init(&m);
    ona__pcm *pcm = NULL;
    if (ona__sound_decode(wav_path, "bench", &pcm))
        die("decode", ONA_EFORMAT);
    ona__audio_cmd cmds[ONA_AUDIO_MAX_VOICES];
    for (uint32_t i = 0; i < ONA_AUDIO_MAX_VOICES; i++)
        cmds[i] = (ona__audio_cmd){.op = ONA__AUDIO_PLAY,
                                   .voice = i + 1,
                                   .pcm = pcm,
                                   .volume = 0.1f,
                                   .pan = 0.1f,
                                   .pitch = 1.0f + (float)i / 512,
                                   .loop = true,
                                   .group = ONA__GROUP_NONE};
    ona__mixer_apply(&m, cmds, ONA_AUDIO_MAX_VOICES);
    static float out[1024 * 2];
    static double samples[400];
    for (int i = 0; i < 400; i++) {
        uint64_t t0 = bench_now_ns();
        ona__mixer_mix(&m, out, 1024);
        bench_escape(out);
        samples[i] = (double)(bench_now_ns() - t0);
    }
    ona__pcm_free(pcm);
    return bench_summarise(samples, 400).median;
}

int main(void) {
    setenv("SDL_AUDIODRIVER", getenv("SDL_AUDIODRIVER") ? getenv("SDL_AUDIODRIVER") : "dummy", 1);
    ona_log_set_sink(NULL, NULL, ONA_LOG_WARN);
    snprintf(wav_path, sizeof wav_path, "/tmp/bench_audio_%d.wav", (int)getpid());
    write_wav(wav_path);
    static const struct {
        const char *mode, *label;
    } rows[] = {
        {"none", "idle Lua system (baseline)"},
        {"play", "1,000 ona.audio.play(s, {volume, pan})"},
        {"play_plain", "1,000 ona.audio.play(s)"},
        {"native", "1,000 ona_ctx_audio_play (native)"},
        {"draw", "peer: 1,000 ona.gfx.draw (no video)"},
    };
    enum { ROWS = sizeof rows / sizeof rows[0] };
    result res[ROWS][2];
    double load_before = load_average();
    for (int r = 0; r < ROWS; r++)
        for (uint32_t t = 0; t < 2; t++)
            res[r][t] = run(rows[r].mode, t + 1);
    bench_report *rep = bench_report_open(
        "audio", "1,000 audio plays in one frame",
        "the same frame with an idle system, with a native system's ona_ctx_audio_play, and "
        "with 1,000 ona.gfx.draw (the render queues' path), in the same run");
    bench_report_printf(
        rep,
        "One system makes 1,000 calls in every turn; %d frames timed after %d "
        "warm-up frames, runtime threads = 1 and 2, SDL audio driver `%s`. "
        "*turn* is the system's turn (the runtime's statistics, read after each frame); *per call* "
        "subtracts the idle turn's median; *step* is the wall time of "
        "`ona_runtime_step`, which adds main's merge and the hand-off to the "
        "mixer.\n\n",
        FRAMES, WARMUP, getenv("SDL_AUDIODRIVER"));
    bench_report_printf(rep,
                        "| calls per frame | threads | turn median us | per call ns (median) | "
                        "turn mean us | step median us | step mean us | step stddev us |\n"
                        "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    bench_report_chart(rep, "1,000 calls in one turn: the turn's median (lower is better)", "us",
                       false, 2, (const char *const[]){"threads = 1", "threads = 2"});
    for (int r = 0; r < ROWS; r++)
        bench_report_chart_row(rep, rows[r].label,
                               (double[]){res[r][0].turn.median, res[r][1].turn.median});
    for (int r = 0; r < ROWS; r++)
        for (int t = 0; t < 2; t++) {
            result *x = &res[r][t];
            double per_call =
                r == 0 ? 0 : (x->turn.median - res[0][t].turn.median) * 1000.0 / CALLS;
            bench_report_printf(rep, "| %s | %d | %.1f | %.0f | %.1f | %.1f | %.1f | %.1f |\n",
                                rows[r].label, t + 1, x->turn.median, per_call, x->turn.mean,
                                x->step.median, x->step.mean, x->step.stddev);
        }
    double mix = mix_ns();
    bench_report_printf(rep,
                        "\nThe machine's 1-minute load average was %.1f before the runs and %.1f "
                        "after (2 cores, shared with other builds and tests): means and "
                        "deviations carry that; medians less so.\n",
                        load_before, load_average());
    bench_report_printf(rep,
                        "\nThe mixer alone (audio thread): one 1024-frame buffer (21.3 ms of "
                        "sound) with all %d voices playing, pitch-shifted: %.1f us median "
                        "(%.2f%% of the buffer's duration).\n",
                        ONA_AUDIO_MAX_VOICES, mix / 1000.0, mix / 1e9 / (1024.0 / 48000) * 100);
    remove(wav_path);
    return bench_report_close(rep) ? 1 : 0;
}
