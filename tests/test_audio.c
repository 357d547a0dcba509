/*
 * test_audio.c: audio.
 *
 * The mixer alone, without a device: volume, pan, pitch, loop, stop, groups, music fades, a
 * reloaded sound, and the same samples from the same commands whether they were merged from one
 * queue or two. Then sounds: WAV written by this file and tests/audio/tone.ogg (made once with
 * `oggenc -q 0` from a 440 Hz sine, 0.25 s at 22050 Hz) decode to the mixer's format; missing and
 * corrupt files log their name and give the silent placeholder. Then real SDL output through the
 * `disk` driver (SDL_DISKAUDIOFILE; SDL_DISKAUDIODELAY=1 ms a buffer so the driver's thread
 * drains the runtime's frames fast): a sound played by a native system and by a Lua system is in
 * the file from the frame its list was handed over, with its pan and volume, a stopped voice
 * stops, music streams. Lua misuse raises at the author's line.
 *
 * Output checks are exact, not timed: with the disk driver the runtime mixes on game time (each
 * frame's dt at 48 kHz, 800 frames for 1/60 s), and records the mixer's frame count at each
 * hand-off (ona__audio.handoff_frame), which is where that frame's commands start in the file.
 * The file may open with silent buffers SDL wrote before the device was unpaused, so the first
 * sound is found, and every later position is checked from there. Voices (set, playing, the voice
 * limit, game time) are test_audio_voices.c's.
 */
#include "test_support.h"

#include "runtime_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- Helpers --------------------------------------------------------------------------------- */

/* A pcm of `count` frames whose left and right samples are given by f(i). */
static ona__pcm *make_pcm(uint32_t count, float (*f)(uint32_t i, int ch)) {
    ona__pcm *p = calloc(1, sizeof *p);
    p->frames = calloc((size_t)count * 2 + 2, sizeof(float));
    p->count = count;
    for (uint32_t i = 0; i < count; i++) {
        p->frames[i * 2] = f(i, 0);
        p->frames[i * 2 + 1] = f(i, 1);
    }
    return p;
}

static void free_pcm(ona__pcm *p) {
    free(p->frames);
    free(p);
}

static float half(uint32_t i, int ch) {
    (void)i;
    (void)ch;
    return 0.5f;
}

static float ramp(uint32_t i, int ch) {
    return (float)i / 1000.0f * (ch ? -1.0f : 1.0f);
}

static ona__audio_cmd play_cmd(uint64_t voice, const ona__pcm *pcm, float volume, float pan,
                               float pitch, bool loop) {
    return (ona__audio_cmd){.op = ONA__AUDIO_PLAY,
                            .voice = voice,
                            .pcm = pcm,
                            .volume = volume,
                            .pan = pan,
                            .pitch = pitch,
                            .loop = loop,
                            .group = ONA__GROUP_NONE};
}

static ona__mixer *new_mixer(void) {
    ona__mixer *m = malloc(sizeof *m);
    ona__mixer_init(m);
    return m;
}

#define NEAR(a, b) (fabsf((a) - (b)) < 1e-5f)

/* --- The mixer alone ------------------------------------------------------------------------- */

START_TEST(test_audio_mixer_volume_and_pan) {
    ona__mixer *m = new_mixer();
    ona__pcm *p = make_pcm(100, half);
    ona__audio_cmd c[] = {play_cmd(1, p, 0.5f, -0.5f, 1, false),
                          play_cmd(2, p, 1.0f, 1.0f, 1, false)};
    ona__mixer_apply(m, c, 2);
    float out[64 * 2];
    ona__mixer_mix(m, out, 64);
    /* voice 1: left 0.5 * 0.5 = 0.25, right 0.25 * (1 - 0.5); voice 2: right only, 0.5 */
    for (int f = 0; f < 64; f++) {
        ck_assert_msg(NEAR(out[f * 2], 0.25f), "left %f at %d", out[f * 2], f);
        ck_assert_msg(NEAR(out[f * 2 + 1], 0.125f + 0.5f), "right %f at %d", out[f * 2 + 1], f);
    }
    ck_assert_uint_eq(ona__mixer_voices(m), 2);
    ona__mixer_mix(m, out, 64); /* 36 frames left, then silence and the voices end */
    ck_assert(NEAR(out[35 * 2], 0.25f));
    ck_assert(out[36 * 2] == 0 && out[36 * 2 + 1] == 0);
    ck_assert_uint_eq(ona__mixer_voices(m), 0);
    free_pcm(p);
    free(m);
}
END_TEST

START_TEST(test_audio_mixer_pitch) {
    ona__mixer *m = new_mixer();
    ona__pcm *p = make_pcm(1000, ramp);
    ona__audio_cmd c[] = {play_cmd(1, p, 1, 0, 2.0f, false)};
    ona__mixer_apply(m, c, 1);
    float out[600 * 2];
    ona__mixer_mix(m, out, 600);
    for (int f = 0; f < 500; f++) /* twice as fast: frame f plays sample 2f */
        ck_assert_msg(NEAR(out[f * 2], (float)(2 * f) / 1000.0f), "f %d: %f", f, out[f * 2]);
    ck_assert(NEAR(out[10 * 2 + 1], -0.02f));
    ck_assert(out[500 * 2] == 0); /* and ends after 500 frames */
    ona__audio_cmd slow[] = {play_cmd(2, p, 1, 0, 0.5f, false)};
    ona__mixer_apply(m, slow, 1);
    ona__mixer_mix(m, out, 600);
    for (int f = 0; f < 600; f++) /* half speed: interpolated between samples */
        ck_assert_msg(NEAR(out[f * 2], (float)f / 2000.0f), "f %d: %f", f, out[f * 2]);
    free_pcm(p);
    free(m);
}
END_TEST

START_TEST(test_audio_mixer_loop_and_stop) {
    ona__mixer *m = new_mixer();
    ona__pcm *p = make_pcm(10, ramp);
    ona__audio_cmd c[] = {play_cmd(7, p, 1, 0, 1, true)};
    ona__mixer_apply(m, c, 1);
    float out[35 * 2];
    ona__mixer_mix(m, out, 35);
    for (int f = 0; f < 35; f++)
        ck_assert(NEAR(out[f * 2], (float)(f % 10) / 1000.0f));
    /* A stale voice (never played) and a stopped one: the first is ignored, the second stops. */
    ona__audio_cmd stop[] = {{.op = ONA__AUDIO_STOP, .voice = 99},
                             {.op = ONA__AUDIO_STOP, .voice = 7}};
    ona__mixer_apply(m, stop, 1);
    ck_assert_uint_eq(ona__mixer_voices(m), 1);
    ona__mixer_apply(m, stop + 1, 1);
    ck_assert_uint_eq(ona__mixer_voices(m), 0);
    ona__mixer_mix(m, out, 35);
    for (int f = 0; f < 35 * 2; f++)
        ck_assert(out[f] == 0);
    ona__mixer_apply(m, stop + 1, 1); /* stopping it again is harmless */
    free_pcm(p);
    free(m);
}
END_TEST

START_TEST(test_audio_mixer_groups) {
    ona__mixer *m = new_mixer();
    ona__pcm *p = make_pcm(100, half);
    ona__audio_cmd c[] = {play_cmd(1, p, 1, 0, 1, true),
                          play_cmd(2, p, 1, 0, 1, true),
                          {.op = ONA__AUDIO_VOLUME, .group = 2, .volume = 0.5f}};
    c[0].group = 2; /* voice 1 in group 2; voice 2 in none */
    ona__mixer_apply(m, c, 3);
    float out[8 * 2];
    ona__mixer_mix(m, out, 8);
    ck_assert(NEAR(out[0], 0.25f + 0.5f));
    ona__audio_cmd master[] = {
        {.op = ONA__AUDIO_VOLUME, .group = ONA__GROUP_MASTER, .volume = 0.5f}};
    ona__mixer_apply(m, master, 1);
    ona__mixer_mix(m, out, 8);
    ck_assert(NEAR(out[0], 0.125f + 0.25f));
    ck_assert(NEAR(out[1], 0.125f + 0.25f));
    free_pcm(p);
    free(m);
}
END_TEST

/* A stream of constant 1.0 that counts the frames read and whether it was closed. */
typedef struct test_stream {
    ona__stream base;
    uint32_t frames_left; /* UINT32_MAX: endless */
    bool *closed;
} test_stream;

static uint32_t test_read(ona__stream *s, float *out, uint32_t frames) {
    test_stream *t = (test_stream *)s;
    uint32_t n = frames < t->frames_left ? frames : t->frames_left;
    for (uint32_t i = 0; i < n * 2; i++)
        out[i] = 1.0f;
    if (t->frames_left != UINT32_MAX)
        t->frames_left -= n;
    return n;
}

static void test_close(ona__stream *s) {
    *((test_stream *)s)->closed = true;
    free(s);
}

static ona__stream *new_stream(uint32_t frames, bool *closed) {
    test_stream *t = calloc(1, sizeof *t);
    *t = (test_stream){{test_read, test_close, frames}, frames, closed};
    *closed = false;
    return &t->base;
}

START_TEST(test_audio_mixer_music_fades) {
    ona__mixer *m = new_mixer();
    bool closed_a, closed_b;
    /* Music a at volume 0.5, at once; then music b fading in over 480 frames (0.01 s) while a
     * fades out; a is retired once silent. */
    ona__audio_cmd a[] = {
        {.op = ONA__AUDIO_MUSIC, .stream = new_stream(UINT32_MAX, &closed_a), .volume = 0.5f}};
    ona__mixer_apply(m, a, 1);
    static float out[1024 * 2];
    ona__mixer_mix(m, out, 16);
    ck_assert(NEAR(out[0], 0.5f) && NEAR(out[31], 0.5f));
    ona__audio_cmd b[] = {{.op = ONA__AUDIO_MUSIC,
                           .stream = new_stream(UINT32_MAX, &closed_b),
                           .volume = 1.0f,
                           .fade = 0.01f}};
    ona__mixer_apply(m, b, 1);
    ona__mixer_mix(m, out, 1024);
    ck_assert(NEAR(out[0], 0.5f));                  /* a at 0.5, b at 0 */
    ck_assert(fabsf(out[240 * 2] - 0.75f) < 0.01f); /* halfway: a 0.25 + b 0.5 */
    ck_assert(NEAR(out[600 * 2], 1.0f));            /* b alone */
    ona__stream *retired[8];
    ck_assert_uint_eq(ona__mixer_take_retired(m, retired, 8), 1);
    retired[0]->close(retired[0]);
    ck_assert(closed_a && !closed_b);
    /* Stop with a fade, then the stream is retired; an ending stream retires itself. */
    ona__audio_cmd stop[] = {{.op = ONA__AUDIO_MUSIC_STOP, .fade = 0.001f}};
    ona__mixer_apply(m, stop, 1);
    ona__mixer_mix(m, out, 1024);
    ck_assert(out[100 * 2] == 0);
    ck_assert_uint_eq(ona__mixer_take_retired(m, retired, 8), 1);
    retired[0]->close(retired[0]);
    ck_assert(closed_b);
    ona__audio_cmd c[] = {
        {.op = ONA__AUDIO_MUSIC, .stream = new_stream(100, &closed_a), .volume = 1.0f}};
    ona__mixer_apply(m, c, 1);
    ona__mixer_mix(m, out, 200);
    ck_assert(NEAR(out[99 * 2], 1.0f) && out[100 * 2] == 0);
    ck_assert_uint_eq(ona__mixer_take_retired(m, retired, 8), 1);
    retired[0]->close(retired[0]);
    ck_assert(closed_a);
    free(m);
}
END_TEST

START_TEST(test_audio_mixer_replace) {
    ona__mixer *m = new_mixer();
    ona__pcm *p = make_pcm(100, half), *q = make_pcm(50, ramp), *empty = make_pcm(0, half);
    ona__audio_cmd c[] = {play_cmd(1, p, 1, 0, 1, false), play_cmd(2, p, 1, 0, 1, true)};
    ona__mixer_apply(m, c, 2);
    float out[60 * 2];
    ona__mixer_mix(m, out, 20);
    ona__mixer_replace(m, p, q); /* both continue from frame 20 of the new samples */
    ona__mixer_mix(m, out, 1);
    ck_assert(NEAR(out[0], 2 * 0.020f));
    ona__mixer_replace(m, q, empty); /* nothing left to play: they end */
    ck_assert_uint_eq(ona__mixer_voices(m), 0);
    free_pcm(p);
    free_pcm(q);
    free_pcm(empty);
    free(m);
}
END_TEST

/* A looping voice whose sound is replaced by a shorter one past the new end goes on looping,
 * from where it is in its cycle; a voice that does not loop has finished. */
START_TEST(test_audio_mixer_replace_shorter_keeps_looping) {
    ona__mixer *m = new_mixer();
    ona__pcm *p = make_pcm(100, half), *q = make_pcm(30, ramp);
    ona__audio_cmd c[] = {play_cmd(1, p, 1, 0, 1, true), play_cmd(2, p, 1, 0, 1, false)};
    ona__mixer_apply(m, c, 2);
    float out[200 * 2];
    ona__mixer_mix(m, out, 80);
    ona__mixer_replace(m, p, q);
    ck_assert_uint_eq(ona__mixer_voices(m), 1); /* the loop; the one-shot was past the end */
    ona__mixer_mix(m, out, 1);
    ck_assert(NEAR(out[0], 0.020f)); /* frame 80 of the cycle is frame 20 of the 30 */
    ona__mixer_mix(m, out, 200);     /* many times round the new sound */
    ck_assert_uint_eq(ona__mixer_voices(m), 1);
    free_pcm(p);
    free_pcm(q);
    free(m);
}
END_TEST

/* Two systems' commands, pushed to one queue (one thread ran both) or to two (each on its own
 * thread, the second system's first), merge into the same list and mix into the same samples. */
START_TEST(test_audio_mixer_same_mix_from_one_or_two_queues) {
    ona__pcm *p = make_pcm(300, ramp), *h = make_pcm(200, half);
    ona__audio_cmd sys1[4], sys2[4];
    for (uint32_t i = 0; i < 4; i++) {
        sys1[i] = play_cmd(((uint64_t)1 << 32) | (i + 1), i % 2 ? p : h, 0.3f + 0.1f * (float)i,
                           -0.25f * (float)i, 1.0f + 0.25f * (float)i, i == 3);
        sys1[i].order = 1;
        sys1[i].seq = i;
        sys2[i] = play_cmd(((uint64_t)2 << 32) | (i + 1), i % 2 ? h : p, 0.7f, 0.2f * (float)i,
                           0.75f, i == 0);
        sys2[i].order = 2;
        sys2[i].seq = i;
    }
    sys2[3] = (ona__audio_cmd){
        .op = ONA__AUDIO_STOP, .voice = ((uint64_t)1 << 32) | 2, .order = 2, .seq = 3};
    ona__audio_queue one = {0}, two[2] = {{0}, {0}};
    for (uint32_t i = 0; i < 4; i++) { /* interleaved, as one thread running both */
        ck_assert_int_eq(ona__audio_queue_push(&one, &sys1[i], NULL), 0);
        ck_assert_int_eq(ona__audio_queue_push(&one, &sys2[i], NULL), 0);
    }
    for (uint32_t i = 0; i < 4; i++) {
        ck_assert_int_eq(ona__audio_queue_push(&two[0], &sys2[i], NULL), 0);
        ck_assert_int_eq(ona__audio_queue_push(&two[1], &sys1[i], NULL), 0);
    }
    ona__audio_queue *q1[] = {&one}, *q2[] = {&two[0], &two[1]};
    ona__audio_list l1 = {0}, l2 = {0};
    ck_assert_int_eq(ona__audio_merge(q1, 1, &l1), 0);
    ck_assert_int_eq(ona__audio_merge(q2, 2, &l2), 0);
    ck_assert_uint_eq(l1.count, 8);
    ck_assert_uint_eq(l2.count, 8);
    for (uint32_t i = 0; i < 8; i++) { /* sorted: system 1's four, then system 2's */
        ck_assert_uint_eq(l1.cmds[i].order, i < 4 ? 1 : 2);
        ck_assert_uint_eq(l1.cmds[i].voice, l2.cmds[i].voice);
        /* the queues do not carry resolved samples: main sets them, the same for both */
        l1.cmds[i].pcm = l2.cmds[i].pcm =
            l1.cmds[i].op == ONA__AUDIO_PLAY ? (i < 4 ? sys1[i] : sys2[i - 4]).pcm : NULL;
    }
    ona__mixer *m1 = new_mixer(), *m2 = new_mixer();
    ona__mixer_apply(m1, l1.cmds, l1.count);
    ona__mixer_apply(m2, l2.cmds, l2.count);
    static float a[2048 * 2], b[2048 * 2];
    ona__mixer_mix(m1, a, 2048);
    ona__mixer_mix(m2, b, 2048);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    bool sound = false;
    for (uint32_t i = 0; i < 2048 * 2; i++)
        sound |= a[i] != 0;
    ck_assert(sound);
    /* and mixing the other order (system 2 first) would differ: the order is what is fixed */
    ona__audio_queue_free(&one);
    ona__audio_queue_free(&two[0]);
    ona__audio_queue_free(&two[1]);
    ona__audio_list_free(&l1);
    ona__audio_list_free(&l2);
    free(m1);
    free(m2);
    free_pcm(p);
    free_pcm(h);
}
END_TEST

/* --- Sounds ---------------------------------------------------------------------------------- */

static void sounds_setup(void) {
    capture_logs_begin();
    game_dir_begin("audio");
    unsetenv("SDL_AUDIODRIVER");
}

static void sounds_teardown(void) {
    game_dir_end();
    capture_logs_end();
}

START_TEST(test_audio_decode_wav_and_ogg) {
    wav_write(game_dir_file("half.wav"), 48000, 1, 4800, 16384);
    ona__pcm *p = NULL;
    ck_assert_int_eq(ona__sound_decode(game_dir_file("half.wav"), "test", &p), 0);
    ck_assert_uint_eq(p->count, 4800); /* same rate: no resampling, mono spread to both sides */
    ck_assert(p->frames[0] == 0.5f && p->frames[1] == 0.5f && p->frames[4799 * 2 + 1] == 0.5f);
    ona__pcm_free(p);
    wav_write(game_dir_file("low.wav"), 24000, 2, 2400, -8192);
    ck_assert_int_eq(ona__sound_decode(game_dir_file("low.wav"), "test", &p), 0);
    ck_assert_msg(p->count >= 4790 && p->count <= 4810, "24 kHz resampled: %u", p->count);
    ck_assert_msg(fabsf(p->frames[1000 * 2] + 0.25f) < 1e-3f, "%f", p->frames[1000 * 2]);
    ona__pcm_free(p);
    /* CD rate, mono: what the invaders' sounds are; loaded in a runtime that never opens a
     * device (no_audio), where SDL's own converters do not exist. */
    wav_write(game_dir_file("cd.wav"), 44100, 1, 44100, 8192);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime *rt;
    ck_assert_int_eq(
        ona_runtime_create(
            &(ona_runtime_desc){.threads = 1, .script_roots = roots, .no_audio = true}, &rt),
        0);
    ona_sound cd;
    ck_assert_int_eq(ona_runtime_sound_load(rt, "cd.wav", &cd), 0);
    ona_runtime_destroy(rt);
    ck_assert_int_eq(ona__sound_decode(game_dir_file("cd.wav"), "test", &p), 0);
    ck_assert_uint_eq(p->count, 48000);
    ck_assert(p->frames[2 * 24000] == 0.25f && p->frames[2 * 24000 + 1] == 0.25f);
    ona__pcm_free(p);
    /* 0.25 s of a 440 Hz sine at 22050 Hz: about 12000 frames at 48 kHz, and loud */
    ck_assert_int_eq(ona__sound_decode(ONA_SOURCE_DIR "/tests/audio/tone.ogg", "test", &p), 0);
    ck_assert_msg(p->count > 11000 && p->count < 13000, "ogg frames: %u", p->count);
    float peak = 0;
    for (uint32_t i = 0; i < p->count * 2; i++)
        peak = fmaxf(peak, fabsf(p->frames[i]));
    ck_assert_msg(peak > 0.3f && peak <= 1.0f, "ogg peak %f", peak);
    ona__pcm_free(p);
}
END_TEST

START_TEST(test_audio_missing_and_corrupt_files) {
    ona_runtime_desc desc = {.threads = 1};
    const char *roots[] = {game_dir(), NULL};
    desc.script_roots = roots;
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ona_sound s = {0};
    ck_assert_int_eq(ona_runtime_sound_load(rt, "nope.wav", &s), ONA_ENOENT);
    ck_assert_uint_ne(s.id, 0); /* the silent placeholder, still playable */
    ck_assert(captured_logs_contain("nope.wav: no such file"));
    game_write("bad.wav", "RIFF\x10\x10\x10\x10WAVEfmt garbage");
    ck_assert_int_eq(ona_runtime_sound_load(rt, "bad.wav", &s), ONA_EFORMAT);
    ck_assert_msg(captured_logs_contain("bad.wav: not a readable WAV file"), "%s",
                  captured_logs_text());
    game_write("bad.ogg", "OggS and then nothing a decoder wants");
    ck_assert_int_eq(ona_runtime_sound_load(rt, "bad.ogg", &s), ONA_EFORMAT);
    ck_assert(captured_logs_contain("bad.ogg: not a readable OGG Vorbis file"));
    game_write("text.wav", "hello");
    ck_assert_int_eq(ona_runtime_sound_load(rt, "text.wav", &s), ONA_EFORMAT);
    ck_assert(captured_logs_contain("text.wav: not a WAV or OGG file"));
    ck_assert_uint_ne(s.id, 0);
    /* Loading twice gives the same handle; the placeholder is not a loaded path. */
    wav_write(game_dir_file("ok.wav"), 48000, 1, 10, 100);
    ona_sound a, b;
    ck_assert_int_eq(ona_runtime_sound_load(rt, "ok.wav", &a), 0);
    ck_assert_int_eq(ona_runtime_sound_load(rt, game_dir_file("ok.wav"), &b), 0);
    ck_assert_uint_eq(a.id, b.id);
    ck_assert_uint_ne(a.id, s.id);
    ck_assert_int_eq(ona_runtime_sound_load(rt, NULL, &s), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_audio_hot_reload) {
    ona_runtime_desc desc = {.threads = 1};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    wav_write(game_dir_file("r.wav"), 48000, 1, 100, 16384);
    ona_sound s;
    ck_assert_int_eq(ona_runtime_sound_load(rt, game_dir_file("r.wav"), &s), 0);
    ck_assert(ona__sounds_pcm(&rt->services.audio.sounds, s.id)->frames[0] == 0.5f);
    wav_write(game_dir_file("r.wav"), 48000, 1, 200, 8192);
    ck_assert_int_eq(ona_runtime_reload(rt, game_dir_file("r.wav")), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    const ona__pcm *p = ona__sounds_pcm(&rt->services.audio.sounds, s.id);
    ck_assert_uint_eq(p->count, 200);
    ck_assert(p->frames[0] == 0.25f);
    ck_assert(captured_logs_contain("r.wav: 1 reloaded"));
    /* A broken save keeps the old sound. */
    game_write_in_place("r.wav", "RIFF broken");
    ck_assert_int_eq(ona_runtime_reload(rt, game_dir_file("r.wav")), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(ona__sounds_pcm(&rt->services.audio.sounds, s.id)->count, 200);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Real output: the disk driver ------------------------------------------------------------ */

static char out_path[1024];

static void disk_setup(void) {
    sounds_setup();
    snprintf(out_path, sizeof out_path, "%s/out.raw", game_dir());
    setenv("SDL_AUDIODRIVER", "disk", 1);
    setenv("SDL_DISKAUDIOFILE", out_path, 1);
    setenv("SDL_DISKAUDIODELAY", "1", 1);
}

static void disk_teardown(void) {
    unsetenv("SDL_AUDIODRIVER");
    sounds_teardown();
}

/* Steps frames of 1/60 s (800 frames of audio each) until the mixer has written `frames` past
 * the last hand-off. */
static void wait_mixed(ona_runtime *rt, uint64_t frames) {
    uint64_t target = rt->services.audio.handoff_frame + frames;
    for (int i = 0; i < 1000 && ona__audio_frames_mixed(&rt->services.audio) < target; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_msg(ona__audio_frames_mixed(&rt->services.audio) >= target,
                  "the mixer did not advance");
}

typedef struct player {
    ona_sound sound;
    ona_voice voice;
    int rc;
} player;

static int player_init(ona_ctx *ctx, void *state) {
    player *p = ona_ctx_user(ctx);
    (void)state;
    p->rc = ona_ctx_audio_play(
        ctx, p->sound, &(ona_play_desc){.volume = 0.5f, .pan = 0.5f, .group = "sfx"}, &p->voice);
    return 0;
}

/* A native system plays a 4800-frame sound of 0.5 at volume 0.5, pan 0.5: from the hand-off on,
 * the file has left 0.125 and right 0.25 for 4800 frames, silence before and after. */
START_TEST(test_audio_disk_native_play_pan_volume) {
    wav_write(game_dir_file("half.wav"), 48000, 1, 4800, 16384);
    ona_runtime_desc desc = {.threads = 2};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    player p = {0};
    ck_assert_int_eq(ona_runtime_sound_load(rt, game_dir_file("half.wav"), &p.sound), 0);
    ona_system sys;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "player", .init = player_init, .user = &p}, &sys),
        0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(p.rc, 0);
    ck_assert_uint_eq(p.voice.id >> 32, sys.id & 0xFFFFF); /* the system's slot, first play */
    ck_assert_uint_eq(p.voice.id & 0xFFFFFFFFu, 1);
    ck_assert_msg(rt->services.audio.open, "the disk device did not open:\n%s",
                  captured_logs_text());
    wait_mixed(rt, 4800 + 2048);
    ona_runtime_destroy(rt);
    size_t frames;
    float *out = disk_audio_read(out_path, &frames);
    size_t at = audio_first_sound(out, frames);
    ck_assert_uint_ge(frames, at + 4800 + 1024);
    for (size_t f = 0; f < at; f++)
        ck_assert(out[f * 2] == 0 && out[f * 2 + 1] == 0);
    for (size_t f = at; f < at + 4800; f++)
        ck_assert_msg(NEAR(out[f * 2], 0.125f) && NEAR(out[f * 2 + 1], 0.25f), "frame %zu: %f %f",
                      f, out[f * 2], out[f * 2 + 1]);
    for (size_t f = at + 4800; f < at + 4800 + 1024; f++)
        ck_assert(out[f * 2] == 0 && out[f * 2 + 1] == 0);
    free(out);
}
END_TEST

/* Lua: a looping sound plays from the first hand-off and stops at the third frame's. */
START_TEST(test_audio_disk_lua_stop) {
    wav_write(game_dir_file("loop.wav"), 48000, 1, 100, 16384);
    game_write("looper.lua",
               "local s = assert(ona.audio.sound('loop.wav'))\n"
               "local voice\n"
               "return {\n"
               "  init = function() voice = ona.audio.play(s, {loop = true, volume = 0.5}) end,\n"
               "  process = function() if ona.frame() == 3 then ona.audio.stop(voice) end end,\n"
               "}\n");
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    spawn_lua(rt, "looper.lua", NULL, (ona_system){0}, "", 0, 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    uint64_t start = rt->services.audio.handoff_frame;
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(rt->services.audio.handoffs, 2);
    uint64_t stop = rt->services.audio.handoff_frame;
    ck_assert_uint_eq(stop, start + 1600); /* two frames of game time later */
    wait_mixed(rt, 4096);
    ona_runtime_destroy(rt);
    size_t frames;
    float *out = disk_audio_read(out_path, &frames);
    /* The voice starts with the first list and ends exactly where the third was handed over. */
    size_t shift = audio_first_sound(out, frames) - start;
    start += shift;
    stop += shift;
    ck_assert_uint_ge(frames, stop + 4096);
    for (size_t f = start; f < stop; f++)
        ck_assert_msg(NEAR(out[f * 2], 0.25f) && NEAR(out[f * 2 + 1], 0.25f),
                      "frame %zu of %llu..%llu: %f %f", f, (unsigned long long)start,
                      (unsigned long long)stop, out[f * 2], out[f * 2 + 1]);
    for (size_t f = stop; f < frames; f++)
        ck_assert_msg(out[f * 2] == 0 && out[f * 2 + 1] == 0, "frame %zu after the stop", f);
    free(out);
}
END_TEST

/* Music streamed from the OGG is in the output; a missing music file is logged by name. */
START_TEST(test_audio_disk_music) {
    game_write("dj.lua",
               "return {\n"
               "  init = function() ona.audio.music('missing.ogg') end,\n"
               "  process = function()\n"
               "    if ona.frame() == 2 then ona.audio.music('tone.ogg', {volume = 0.5}) end\n"
               "  end,\n"
               "}\n");
    file_save_copy(ONA_SOURCE_DIR "/tests/audio/tone.ogg", game_dir_file("tone.ogg"));
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    spawn_lua(rt, "dj.lua", NULL, (ona_system){0}, "", 0, 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert(captured_logs_contain("missing.ogg: no such file"));
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(rt->services.audio.handoffs, 2);
    wait_mixed(rt, 16384);
    ona_runtime_destroy(rt);
    size_t frames;
    float *out = disk_audio_read(out_path, &frames);
    size_t at = audio_first_sound(out, frames); /* the missing music played nothing before */
    float peak_after = 0;
    for (size_t f = at; f < at + 12000; f++)
        peak_after = fmaxf(peak_after, fabsf(out[f * 2]));
    ck_assert_msg(peak_after > 0.15f && peak_after <= 0.5f, "music peak %f", peak_after);
    /* played once: silent after its 0.25 s */
    for (size_t f = at + 13000; f < at + 16000; f++)
        ck_assert(out[f * 2] == 0);
    free(out);
}
END_TEST

/* A WAV over 10 minutes, as a sound and as music: refused by name, with the advice that holds for
 * both (a WAV is decoded whole; OGG music streams); the game runs on. */
START_TEST(test_audio_wav_over_ten_minutes_refused_with_the_right_advice) {
    wav_write(game_dir_file("long.wav"), 1000, 1, 1000 * 601, 1000);
    game_write("dj.lua", "local s = ona.audio.sound('long.wav')\n"
                         "return {\n"
                         "  init = function() ona.audio.music('long.wav') end,\n"
                         "  process = function() end,\n"
                         "}\n");
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    spawn_lua(rt, "dj.lua", NULL, (ona_system){0}, "", 0, 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    const char *advice = "long.wav: longer than 10 minutes; not loaded (a WAV is decoded whole, "
                         "as music too: make it OGG Vorbis and play it with ona.audio.music, "
                         "which streams)";
    ck_assert_msg(captured_logs_count(advice) == 2, "%s", captured_logs_text());
    ck_assert(!captured_logs_contain("stream it as music instead"));
    ona_runtime_destroy(rt);
}
END_TEST

/* --- No device, and Lua misuse --------------------------------------------------------------- */

START_TEST(test_audio_silent_without_device) {
    /* no_audio: nothing opens; the dummy driver: opens and plays into nothing. */
    game_write("p.lua", "local s = ona.audio.sound('none.wav')\n"
                        "return { init = function() print('voice', ona.audio.play(s)) end }\n");
    const char *roots[] = {game_dir(), NULL};
    for (int dummy = 0; dummy < 2; dummy++) {
        if (dummy)
            setenv("SDL_AUDIODRIVER", "dummy", 1);
        ona_runtime_desc desc = {.threads = 1, .script_roots = roots, .no_audio = !dummy};
        ona_runtime *rt;
        ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
        spawn_lua(rt, "p.lua", NULL, (ona_system){0}, "", 0, 0);
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        ck_assert(rt->services.audio.open == (dummy == 1));
        ona_runtime_destroy(rt);
    }
    ck_assert_int_eq(captured_logs_count("voice\t"), 2);
    unsetenv("SDL_AUDIODRIVER");
}
END_TEST

START_TEST(test_audio_lua_misuse) {
    wav_write(game_dir_file("ok.wav"), 48000, 1, 10, 100);
    game_write("misuse.lua",
               "local function try(f, ...) local ok, e = pcall(f, ...) print('ERR', e) end\n"
               "local s, err = ona.audio.sound('none.wav')\n"
               "print('missing', type(s), err)\n"
               "try(function() ona.audio.play(s) end)\n" /* line 4: outside a turn */
               "local ok = ona.audio.sound('ok.wav')\n"
               "return { init = function()\n"
               "  try(function() ona.audio.play('x') end)\n"                    /* 7 */
               "  try(function() ona.audio.play(ok, {pan = 2}) end)\n"          /* 8 */
               "  try(function() ona.audio.play(ok, {loop = 1}) end)\n"         /* 9 */
               "  try(function() ona.audio.play(123456) end)\n"                 /* 10 */
               "  try(function() ona.audio.stop() end)\n"                       /* 11 */
               "  try(function() ona.audio.volume('', 1) end)\n"                /* 12 */
               "  try(function() ona.audio.volume('sfx', -1) end)\n"            /* 13 */
               "  try(function() ona.audio.music({}) end)\n"                    /* 14 */
               "  try(function() ona.audio.music('a.ogg', {fade = 'x'}) end)\n" /* 15 */
               "  try(function() ona.audio.sound() end)\n"                      /* 16 */
               "  print('fine', ona.audio.play(ok, {group = 'sfx', pitch = 2}))\n"
               "end }\n");
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots, .no_audio = true};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    spawn_lua(rt, "misuse.lua", NULL, (ona_system){0}, "", 0, 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    static const char *const expect[] = {
        "missing\tnumber\tsound ",
        "misuse.lua:4: ona.audio.play: can only be called during a turn",
        "misuse.lua:7: ona.audio.play: bad argument #1 (not a sound handle: got string)",
        "misuse.lua:8: ona.audio.play: bad argument #2 (pan must be -1..1)",
        "misuse.lua:9: ona.audio.play: bad argument #2 (opts.loop must be a boolean)",
        "misuse.lua:10: ona.audio.play: bad argument #1 (not a sound handle",
        "misuse.lua:11: ona.audio.stop: bad argument #1 (not a voice handle: got no value)",
        "misuse.lua:12: ona.audio.volume: bad argument #1 (group must be a name of 1..31 bytes)",
        "misuse.lua:13: ona.audio.volume: bad argument #2 (volume must be 0..16)",
        "misuse.lua:14: ona.audio.music: bad argument #1",
        "misuse.lua:15: ona.audio.music: bad argument #2 (opts.fade must be a number)",
        "misuse.lua:16: ona.audio.sound: bad argument #1",
        "fine\t",
    };
    for (size_t i = 0; i < sizeof expect / sizeof *expect; i++)
        ck_assert_msg(captured_logs_contain(expect[i]), "expected \"%s\" in:\n%s", expect[i],
                      captured_logs_text());
    ck_assert(captured_logs_contain("none.wav: no such file"));
    ona_runtime_destroy(rt);
}
END_TEST

/* The C API's refusals, from inside a native system's callback and outside one. */
typedef struct c_calls {
    ona_sound sound;
    int rc[12];
    int named; /* group names taken before the one refused */
    ona_voice voice;
} c_calls;

static int c_calls_init(ona_ctx *ctx, void *state) {
    c_calls *c = ona_ctx_user(ctx);
    (void)state;
    char long_name[40];
    memset(long_name, 'g', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    c->rc[0] = ona_ctx_audio_play(ctx, (ona_sound){12345}, NULL, &c->voice);
    c->rc[1] = ona_ctx_audio_play(ctx, c->sound, &(ona_play_desc){.pan = 2}, NULL);
    c->rc[2] = ona_ctx_audio_play(ctx, c->sound, &(ona_play_desc){.pitch = 100}, NULL);
    c->rc[3] = ona_ctx_audio_play(ctx, c->sound, &(ona_play_desc){.group = long_name}, NULL);
    c->rc[4] = ona_ctx_audio_volume(ctx, NULL, 1);
    c->rc[5] = ona_ctx_audio_volume(ctx, "sfx", -1);
    c->rc[6] = ona_ctx_audio_music(ctx, "x.ogg", &(ona_music_desc){.fade = -1}, NULL);
    c->rc[7] = ona_ctx_audio_stop(ctx, (ona_voice){42});   /* never played: fine */
    c->rc[8] = ona_ctx_audio_music(ctx, NULL, NULL, NULL); /* no music: fine */
    c->rc[9] = ona_ctx_audio_volume(ctx, "music", 0.5f);
    c->rc[10] = ona_ctx_audio_play(ctx, c->sound, NULL, &c->voice);
    for (int g = 0; g < ONA_AUDIO_MAX_GROUPS + 1 && c->rc[11] == 0; g++) {
        char name[16];
        snprintf(name, sizeof name, "group%d", g);
        c->rc[11] = ona_ctx_audio_volume(ctx, name, 1);
        c->named += c->rc[11] == 0;
    }
    return 0;
}

START_TEST(test_audio_c_api_errors) {
    ona_runtime_desc desc = {.threads = 1, .no_audio = true};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    c_calls c = {0};
    wav_write(game_dir_file("ok.wav"), 48000, 1, 10, 100);
    ck_assert_int_eq(ona_runtime_sound_load(rt, game_dir_file("ok.wav"), &c.sound), 0);
    ona_system sys;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "c_calls", .init = c_calls_init, .user = &c}, &sys),
        0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    static const int expect[] = {ONA_ESTALE, ONA_EINVAL, ONA_EINVAL, ONA_EINVAL,
                                 ONA_EINVAL, ONA_EINVAL, ONA_EINVAL, 0,
                                 0,          0,          0,          ONA_ELIMIT};
    for (int i = 0; i < 12; i++)
        ck_assert_msg(c.rc[i] == expect[i], "call %d: %d, expected %d", i, c.rc[i], expect[i]);
    /* "music" (set above) is not one of the game's names */
    ck_assert_int_eq(c.named, ONA_AUDIO_MAX_GROUPS);
    /* the second play of this system's slot (the first was refused before it counted) */
    ck_assert_uint_eq(c.voice.id, ((sys.id & 0xFFFFF) << 32) | 1);
    ck_assert_int_eq(ona_ctx_audio_play(NULL, c.sound, NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_audio_stop(NULL, c.voice), ONA_EINVAL);
    ck_assert_int_eq(ona_runtime_sound_load(NULL, "ok.wav", &c.sound), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *audio_suite(void) {
    Suite *s = suite_create("audio");
    TCase *mixer = tcase_create("mixer");
    tcase_add_test(mixer, test_audio_mixer_volume_and_pan);
    tcase_add_test(mixer, test_audio_mixer_pitch);
    tcase_add_test(mixer, test_audio_mixer_loop_and_stop);
    tcase_add_test(mixer, test_audio_mixer_groups);
    tcase_add_test(mixer, test_audio_mixer_music_fades);
    tcase_add_test(mixer, test_audio_mixer_replace);
    tcase_add_test(mixer, test_audio_mixer_replace_shorter_keeps_looping);
    tcase_add_test(mixer, test_audio_mixer_same_mix_from_one_or_two_queues);
    suite_add_tcase(s, mixer);
    TCase *sounds = tcase_create("sounds");
    tcase_add_checked_fixture(sounds, sounds_setup, sounds_teardown);
    tcase_add_test(sounds, test_audio_decode_wav_and_ogg);
    tcase_add_test(sounds, test_audio_missing_and_corrupt_files);
    tcase_add_test(sounds, test_audio_hot_reload);
    tcase_add_test(sounds, test_audio_silent_without_device);
    tcase_add_test(sounds, test_audio_lua_misuse);
    tcase_add_test(sounds, test_audio_c_api_errors);
    suite_add_tcase(s, sounds);
    TCase *disk = tcase_create("disk");
    tcase_add_checked_fixture(disk, disk_setup, disk_teardown);
    tcase_add_test(disk, test_audio_disk_native_play_pan_volume);
    tcase_add_test(disk, test_audio_disk_lua_stop);
    tcase_add_test(disk, test_audio_disk_music);
    tcase_add_test(disk, test_audio_wav_over_ten_minutes_refused_with_the_right_advice);
    suite_add_tcase(s, disk);
    return s;
}

int main(void) {
    return run_suite(audio_suite());
}
