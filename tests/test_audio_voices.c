/*
 * test_audio_voices.c: voices you can control: ona.audio.set, stop and playing, music as a voice,
 * the voice limit, and mixing on game time.
 *
 * Sounds here are WAVs written by the test at 48 kHz, so a sound of 4800 frames lasts exactly six
 * frames of 1/60 s (800 frames of audio each). `playing` is answered from the runtime's clock of
 * voices, which follows game time: the tests check it frame by frame, on 1 and 4 threads, without
 * a device (no_audio) as with one. Real output goes through SDL's disk driver
 * (SDL_DISKAUDIOFILE, SDL_DISKAUDIODELAY=1 ms a buffer), which on game time records every frame
 * the runtime mixed: the checks on the file are exact, not timed.
 */
#include "test_support.h"

#include "runtime_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char out_path[1024];

static void setup(void) {
    capture_logs_begin();
    game_dir_begin("voices");
    unsetenv("SDL_AUDIODRIVER");
}

static void teardown(void) {
    unsetenv("SDL_AUDIODRIVER");
    game_dir_end();
    capture_logs_end();
}

static void disk_setup(void) {
    setup();
    snprintf(out_path, sizeof out_path, "%s/out.raw", game_dir());
    setenv("SDL_AUDIODRIVER", "disk", 1);
    setenv("SDL_DISKAUDIOFILE", out_path, 1);
    setenv("SDL_DISKAUDIODELAY", "1", 1);
}

/* The root mean square of one channel over [from, to). */
static double rms(const float *out, size_t from, size_t to, int channel) {
    double sum = 0;
    for (size_t f = from; f < to; f++)
        sum += (double)out[f * 2 + channel] * out[f * 2 + channel];
    return sqrt(sum / (double)(to - from));
}

static ona_runtime *start(uint32_t threads, bool no_audio, const char *script, const char *name) {
    const char *roots[] = {game_dir(), NULL};
    ona_runtime_desc desc = {.threads = threads, .script_roots = roots, .no_audio = no_audio};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    spawn_lua(rt, script, name, (ona_system){0}, "", 0, 0);
    return rt;
}

static void steps(ona_runtime *rt, int n) {
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

#define EXPECT_LOG(text)                                                                           \
    ck_assert_msg(captured_logs_contain(text), "expected \"%s\" in:\n%s", text,                    \
                  captured_logs_text())

/* --- The mixer and the clock alone ---------------------------------------------------------- */

static ona__pcm *make_pcm(uint32_t count, float (*f)(uint32_t i)) {
    ona__pcm *p = calloc(1, sizeof *p);
    p->frames = calloc((size_t)count * 2 + 2, sizeof(float));
    p->count = count;
    for (uint32_t i = 0; i < count; i++)
        p->frames[i * 2] = p->frames[i * 2 + 1] = f(i);
    return p;
}

static float ramp(uint32_t i) {
    return (float)i / 1000.0f;
}

static float half(uint32_t i) {
    (void)i;
    return 0.5f;
}

static ona__audio_cmd play(uint64_t voice, const ona__pcm *pcm, float pitch, bool loop) {
    return (ona__audio_cmd){.op = ONA__AUDIO_PLAY,
                            .voice = voice,
                            .sound = (uint32_t)voice,
                            .pcm = pcm,
                            .volume = 1,
                            .pitch = pitch,
                            .loop = loop,
                            .group = ONA__GROUP_NONE};
}

/* SET changes a playing voice's volume, pan and pitch from the next frame mixed; a SET or STOP
 * of a handle nothing plays changes nothing. */
START_TEST(test_audio_voices_mixer_set) {
    ona__mixer *m = malloc(sizeof *m);
    ona__mixer_init(m);
    ona__pcm *p = make_pcm(1000, ramp);
    ona__audio_cmd c[] = {play(1, p, 1, false)};
    ona__mixer_apply(m, c, 1);
    float out[100 * 2];
    ona__mixer_mix(m, out, 10);
    ona__audio_cmd set[] = {{.op = ONA__AUDIO_SET,
                             .voice = 1,
                             .set = ONA__SET_VOLUME | ONA__SET_PAN | ONA__SET_PITCH,
                             .volume = 0.5f,
                             .pan = 0.5f,
                             .pitch = 2},
                            {.op = ONA__AUDIO_SET, .voice = 77, .set = ONA__SET_VOLUME},
                            {.op = ONA__AUDIO_STOP, .voice = 78}};
    ona__mixer_apply(m, set, 3);
    ona__mixer_mix(m, out, 100);
    for (int f = 0; f < 100; f++) { /* from sample 10 on, two at a time, left halved by the pan */
        float x = (float)(10 + 2 * f) / 1000.0f * 0.5f;
        ck_assert_msg(fabsf(out[f * 2] - x * 0.5f) < 1e-6f && fabsf(out[f * 2 + 1] - x) < 1e-6f,
                      "frame %d: %f %f", f, out[f * 2], out[f * 2 + 1]);
    }
    ck_assert_uint_eq(ona__mixer_voices(m), 1);
    free(p->frames);
    free(p);
    free(m);
}
END_TEST

/* A stream of the ramp i / 1000, `count` frames long. */
typedef struct ramp_stream {
    ona__stream base;
    uint32_t at, count;
} ramp_stream;

static uint32_t ramp_read(ona__stream *s, float *out, uint32_t frames) {
    ramp_stream *r = (ramp_stream *)s;
    uint32_t n = 0;
    for (; n < frames && r->at < r->count; n++, r->at++)
        out[n * 2] = out[n * 2 + 1] = ramp(r->at);
    return n;
}

static void ramp_close(ona__stream *s) {
    free(s);
}

/* Music takes SET by its handle: pitch 2 reads the stream twice as fast (across its read-ahead's
 * refills), pan balances it; STOP by its handle retires it at once. */
START_TEST(test_audio_voices_mixer_music_set_and_stop) {
    ona__mixer *m = malloc(sizeof *m);
    ona__mixer_init(m);
    ramp_stream *r = calloc(1, sizeof *r);
    *r = (ramp_stream){{ramp_read, ramp_close, 5000}, 0, 5000};
    ona__audio_cmd c[] = {{.op = ONA__AUDIO_MUSIC, .voice = 9, .stream = &r->base, .volume = 1},
                          {.op = ONA__AUDIO_SET,
                           .voice = 9,
                           .set = ONA__SET_PITCH | ONA__SET_PAN,
                           .pitch = 2,
                           .pan = -1}};
    ona__mixer_apply(m, c, 2);
    static float out[2000 * 2];
    ona__mixer_mix(m, out, 2000);
    for (int f = 0; f < 2000; f++)
        ck_assert_msg(fabsf(out[f * 2] - fminf(1.0f, ramp(2 * (uint32_t)f))) < 1e-6f &&
                          out[f * 2 + 1] == 0,
                      "frame %d: %f %f", f, out[f * 2], out[f * 2 + 1]);
    ona__audio_cmd stop[] = {{.op = ONA__AUDIO_STOP, .voice = 9}};
    ona__mixer_apply(m, stop, 1);
    ck_assert(m->music.stream == NULL);
    ona__mixer_mix(m, out, 16);
    ck_assert(out[0] == 0);
    free(m);
}
END_TEST

/* The clock ends every voice in the mix call the mixer ends it, whatever the pitches and the
 * sizes of the calls: what the game is told is what is heard, on game time. */
START_TEST(test_audio_voices_clock_agrees_with_the_mixer) {
    ona__mixer *m = malloc(sizeof *m);
    ona__clock *k = malloc(sizeof *k);
    ona__mixer_init(m);
    ona__clock_init(k);
    ona__pcm *p = make_pcm(3001, half), *q = make_pcm(777, half);
    ona__audio_cmd c[40];
    for (uint32_t i = 0; i < 40; i++)
        c[i] = play(i + 1, i % 3 ? p : q, 1.0f / 16 + 0.37f * (float)i, i == 39);
    ona__mixer_apply(m, c, 40);
    ona__clock_apply(k, c, 40);
    static float out[1024 * 2];
    uint32_t sizes[] = {800, 1, 735, 1024, 799, 3};
    for (int i = 0; i < 200; i++) {
        uint32_t n = sizes[i % 6];
        ona__mixer_mix(m, out, n);
        ona__clock_advance(k, n);
        ck_assert_msg(ona__mixer_voices(m) == k->live, "call %d: mixer %u, clock %u", i,
                      ona__mixer_voices(m), k->live);
        for (uint32_t v = 0; v < 40; v++) {
            bool mixed = false;
            for (uint32_t s = 0; s < ONA_AUDIO_MAX_VOICES; s++)
                mixed |= m->voices[s].handle == v + 1;
            ck_assert(mixed == ona__clock_playing(k, v + 1));
        }
    }
    ck_assert_uint_eq(k->live, 1); /* the loop */
    free(p->frames);
    free(p);
    free(q->frames);
    free(q);
    free(m);
    free(k);
}
END_TEST

/* --- Game time ------------------------------------------------------------------------------- */

static const char looper[] = "local s = assert(ona.audio.sound('half.wav'))\n"
                             "return { init = function() ona.audio.play(s, {loop = true}) end }\n";

/* Without a window the mix follows game time: 600 frames of 1/60 s are 480,000 frames of audio,
 * the clock's and the mixer's, however fast the frames ran. */
START_TEST(test_audio_voices_600_frames_headless_are_10_seconds) {
    wav_write(game_dir_file("half.wav"), 48000, 1, 100, 16384);
    game_write("looper.lua", looper);
    setenv("SDL_AUDIODRIVER", "dummy", 1);
    ona_runtime *rt = start(2, false, "looper.lua", NULL);
    steps(rt, 600);
    ck_assert(rt->services.audio.open && rt->services.audio.offline);
    ck_assert_uint_eq(rt->services.audio.clock.frames, 480000);
    ck_assert_uint_eq(ona__audio_frames_mixed(&rt->services.audio), 480000);
    ck_assert_uint_eq(ona__mixer_voices(&rt->services.audio.mixer), 1);
    ona_runtime_destroy(rt);
}
END_TEST

/* With the disk driver every one of those frames is in the file: a loop started in the first
 * frame sounds for exactly 480,000 frames, then the file is silent. */
START_TEST(test_audio_voices_600_frames_on_disk_are_10_seconds) {
    wav_write(game_dir_file("half.wav"), 48000, 1, 100, 16384);
    game_write("looper.lua", looper);
    ona_runtime *rt = start(2, false, "looper.lua", NULL);
    steps(rt, 600);
    ck_assert_msg(rt->services.audio.device && rt->services.audio.offline, "%s",
                  captured_logs_text());
    ona_runtime_destroy(rt);
    size_t frames;
    float *out = disk_audio_read(out_path, &frames);
    size_t at = audio_first_sound(out, frames);
    size_t end = at;
    while (end < frames && out[end * 2] != 0)
        end++;
    ck_assert_uint_eq(end - at, 480000);
    for (size_t f = end; f < frames; f++)
        ck_assert_msg(out[f * 2] == 0 && out[f * 2 + 1] == 0, "frame %zu after the end", f);
    free(out);
}
END_TEST

/* --- set, stop, playing ---------------------------------------------------------------------- */

/* A voice's volume and pan changed in frame 4 are in the recording from that frame's hand-off
 * on (3 frames = 2400 frames of audio after the start): the RMS drops to a quarter, then the
 * left side goes silent. */
START_TEST(test_audio_voices_volume_change_is_audible_on_disk) {
    wav_write(game_dir_file("half.wav"), 48000, 1, 100, 16384);
    game_write("mixer.lua", "local s = assert(ona.audio.sound('half.wav'))\n"
                            "local v\n"
                            "return {\n"
                            "  init = function() v = ona.audio.play(s, {loop = true}) end,\n"
                            "  process = function()\n"
                            "    if ona.frame() == 4 then ona.audio.set(v, {volume = 0.25}) end\n"
                            "    if ona.frame() == 6 then ona.audio.set(v, {pan = 1}) end\n"
                            "  end,\n"
                            "}\n");
    ona_runtime *rt = start(2, false, "mixer.lua", NULL);
    steps(rt, 8);
    ona_runtime_destroy(rt);
    size_t frames;
    float *out = disk_audio_read(out_path, &frames);
    size_t at = audio_first_sound(out, frames);
    ck_assert_uint_ge(frames, at + 8 * 800);
    double before = rms(out, at, at + 2400, 0), after = rms(out, at + 2400, at + 4000, 0);
    ck_assert_msg(fabs(before - 0.5) < 1e-4 && fabs(after - 0.125) < 1e-4, "rms %f then %f", before,
                  after);
    ck_assert(fabs(rms(out, at + 2400, at + 4000, 1) - 0.125) < 1e-4);
    ck_assert(rms(out, at + 4000, at + 6400, 0) == 0); /* panned right: the left is silent */
    ck_assert(fabs(rms(out, at + 4000, at + 6400, 1) - 0.125) < 1e-4);
    free(out);
}
END_TEST

/* playing, frame by frame: a sound of six frames plays in frames 1..6, at pitch 2 in frames
 * 1..3 (half the time); a loop plays until stopped, and reads false at once after the stop; a
 * finished voice is stale: set and stop do nothing, and so for a handle never given. The same
 * on 1 and 4 threads, and without a device. */
START_TEST(test_audio_voices_playing_follows_game_time) {
    wav_write(game_dir_file("six.wav"), 48000, 1, 4800, 16384);
    game_write("watch.lua",
               "local s = assert(ona.audio.sound('six.wav'))\n"
               "local a, b, l\n"
               "local ended = {}\n"
               "local function watch(name, v)\n"
               "  if not ended[name] and not ona.audio.playing(v) then\n"
               "    ended[name] = true\n"
               "    print('ended', name, ona.frame())\n"
               "  end\n"
               "end\n"
               "return {\n"
               "  init = function()\n"
               "    a = ona.audio.play(s)\n"
               "    b = ona.audio.play(s, {pitch = 2})\n"
               "    l = ona.audio.play(s, {loop = true})\n"
               "    print('started', ona.audio.playing(a), ona.audio.playing(b),\n"
               "          ona.audio.playing(l))\n"
               "  end,\n"
               "  process = function()\n"
               "    watch('a', a) watch('b', b) watch('l', l)\n"
               "    if ona.frame() == 10 then\n"
               "      ona.audio.stop(l)\n"
               "      print('stopped', ona.audio.playing(l))\n"
               "      ona.audio.set(a, {volume = 0.5}) ona.audio.stop(a)\n"
               "      print('stale', ona.audio.playing(a), ona.audio.playing(123456789))\n"
               "    end\n"
               "  end,\n"
               "}\n");
    for (int run = 0; run < 3; run++) {
        uint32_t threads = run == 1 ? 4 : 1;
        ona_runtime *rt = start(threads, run == 2, "watch.lua", NULL);
        capture_logs_begin();
        steps(rt, 12);
        EXPECT_LOG("started\ttrue\ttrue\ttrue");
        EXPECT_LOG("ended\ta\t7");
        EXPECT_LOG("ended\tb\t4");
        EXPECT_LOG("stopped\tfalse");
        EXPECT_LOG("ended\tl\t11");
        EXPECT_LOG("stale\tfalse\tfalse");
        ck_assert_int_eq(captured_logs_count("ended\t"), 3);
        capture_logs_end();
        ck_assert_uint_eq(rt->services.audio.clock.live, 0);
        ona_runtime_destroy(rt);
    }
}
END_TEST

/* Music is a voice too: ona.audio.music returns it; it plays until its end (a WAV of six frames,
 * at pitch 2 three), is changed with set and stopped with stop; a music replaced by another reads
 * false at once; a missing file's music does not play. */
START_TEST(test_audio_voices_music_is_a_voice) {
    wav_write(game_dir_file("six.wav"), 48000, 1, 4800, 16384);
    game_write("dj.lua",
               "local m\n"
               "local function say(what) print(what, ona.frame(), ona.audio.playing(m)) end\n"
               "return {\n"
               "  init = function()\n"
               "    m = ona.audio.music('six.wav')\n"
               "    ona.audio.set(m, {pitch = 2, volume = 0.5, pan = -1})\n"
               "    say('music')\n"
               "  end,\n"
               "  process = function()\n"
               "    local f = ona.frame()\n"
               "    if f == 3 or f == 4 then say('pitched') end\n"
               "    if f == 5 then m = ona.audio.music('six.wav', {loop = true}) end\n"
               "    if f == 20 then say('looping') end\n"
               "    if f == 21 then\n"
               "      local old = m\n"
               "      m = ona.audio.music('six.wav', {fade = 1})\n"
               "      print('replaced', ona.audio.playing(old), ona.audio.playing(m))\n"
               "    end\n"
               "    if f == 22 then ona.audio.stop(m) say('stopped') end\n"
               "    if f == 23 then say('after stop') m = ona.audio.music('none.wav') end\n"
               "    if f == 24 then say('missing') end\n"
               "  end,\n"
               "}\n");
    setenv("SDL_AUDIODRIVER", "dummy", 1);
    ona_runtime *rt = start(2, false, "dj.lua", NULL);
    steps(rt, 25);
    EXPECT_LOG("music\t1\ttrue");
    EXPECT_LOG("pitched\t3\ttrue");
    EXPECT_LOG("pitched\t4\tfalse");
    EXPECT_LOG("looping\t20\ttrue");
    EXPECT_LOG("replaced\tfalse\ttrue");
    EXPECT_LOG("stopped\t22\tfalse");
    EXPECT_LOG("after stop\t23\tfalse");
    EXPECT_LOG("missing\t24\tfalse");
    EXPECT_LOG("none.wav: no such file");
    ona_runtime_destroy(rt);
}
END_TEST

/* Music's volume, pan and pitch are heard: a six-frame WAV at pitch 2, volume 0.5, pan -1 sounds
 * on the left only at 0.25, for 2400 frames. */
START_TEST(test_audio_voices_music_set_is_audible_on_disk) {
    wav_write(game_dir_file("six.wav"), 48000, 1, 4800, 16384);
    game_write("dj.lua", "return { init = function()\n"
                         "  local m = ona.audio.music('six.wav')\n"
                         "  ona.audio.set(m, {pitch = 2, volume = 0.5, pan = -1})\n"
                         "end }\n");
    ona_runtime *rt = start(1, false, "dj.lua", NULL);
    steps(rt, 6);
    ona_runtime_destroy(rt);
    size_t frames;
    float *out = disk_audio_read(out_path, &frames);
    size_t at = audio_first_sound(out, frames);
    ck_assert_uint_ge(frames, at + 4800);
    for (size_t f = at; f < at + 2400; f++)
        ck_assert_msg(fabsf(out[f * 2] - 0.25f) < 1e-5f && out[f * 2 + 1] == 0, "frame %zu: %f %f",
                      f - at, out[f * 2], out[f * 2 + 1]);
    for (size_t f = at + 2400; f < at + 4800; f++)
        ck_assert_msg(out[f * 2] == 0, "frame %zu after the end: %f", f - at, out[f * 2]);
    free(out);
}
END_TEST

/* --- Record and replay ----------------------------------------------------------------------- */

static void wall_time(ona_runtime *rt, int frame) {
    (void)rt;
    (void)frame;
    usleep(2000); /* frames of real, uneven wall time: the recording's dts */
}

/* A game that plays its next sound when the last one ends, with measured time (each frame's dt
 * the wall time, ~2 ms and uneven): recorded, then replayed on 1, 2 and 4 threads, every play
 * comes in the same frame with the same settings, since `playing` follows the recorded dts. */
START_TEST(test_audio_voices_playing_replays) {
    wav_write(game_dir_file("blip.wav"), 48000, 1, 1000, 8192);
    game_write("main.lua", "local s = assert(ona.audio.sound('blip.wav'))\n"
                           "local v, n = nil, 0\n"
                           "return {\n"
                           "  init = function() v = ona.audio.play(s, {pitch = 1.5}) end,\n"
                           "  process = function()\n"
                           "    if not ona.audio.playing(v) then\n"
                           "      n = n + 1\n"
                           "      v = ona.audio.play(s, {pitch = 0.5 + n % 4 * 0.5})\n"
                           "      if n % 10 == 0 then print('plays', n) end\n"
                           "    end\n"
                           "    ona.audio.set(v, {pan = n % 5 / 5})\n"
                           "  end,\n"
                           "}\n");
    game_session session = {.root = game_dir(),
                            .threads = 2,
                            .video = ONA_VIDEO_NONE,
                            .frames = 150,
                            .record = game_dir_file("voices.rec"),
                            .input = wall_time};
    assert_recording_replays(session);
    EXPECT_LOG("plays\t10"); /* the sounds did end and start again */
}
END_TEST

/* --- The voice limit ------------------------------------------------------------------------- */

/* One system's 300 plays in a frame: 256 give voices, the rest nil and a message, and the
 * system is warned once, with its line; a stop frees a voice for a play in the same frame. Two
 * systems that together pass the limit in one frame: the newest plays in merge order are dropped
 * and logged, and read as not playing from the next frame. */
START_TEST(test_audio_voices_limit_is_reported) {
    wav_write(game_dir_file("long.wav"), 48000, 1, 48000, 1000);
    game_write("crowd.lua", "local s = assert(ona.audio.sound('long.wav'))\n"
                            "local first\n"
                            "local function burst(n)\n"
                            "  local got, refused, why = 0, 0, nil\n"
                            "  for i = 1, n do\n"
                            "    local v, err = ona.audio.play(s)\n"
                            "    if v then got = got + 1 first = first or v\n"
                            "    else refused = refused + 1 why = err end\n"
                            "  end\n"
                            "  print('burst', ona.frame(), got, refused, why)\n"
                            "end\n"
                            "return {\n"
                            "  init = function() burst(300) end,\n"
                            "  process = function()\n"
                            "    if ona.frame() == 2 then burst(1) end\n"
                            "    if ona.frame() == 3 then ona.audio.stop(first) burst(2) end\n"
                            "  end,\n"
                            "}\n");
    ona_runtime *rt = start(2, true, "crowd.lua", "crowd");
    steps(rt, 4);
    EXPECT_LOG("burst\t1\t256\t44\tall 256 voices are busy");
    EXPECT_LOG("burst\t2\t0\t1\tall 256 voices are busy");
    EXPECT_LOG("burst\t3\t1\t1\tall 256 voices are busy");
    EXPECT_LOG("warn: audio: crowd: /");
    EXPECT_LOG("/crowd.lua:6: all 256 voices are busy: ona.audio.play returned nil");
    ck_assert_int_eq(captured_logs_count("voices are busy: ona.audio.play"), 1);
    ck_assert_uint_eq(rt->services.audio.clock.live, 256);
    ona_runtime_destroy(rt);

    game_write("pair.lua", "local s = assert(ona.audio.sound('long.wav'))\n"
                           "local mine = {}\n"
                           "return {\n"
                           "  init = function()\n"
                           "    for i = 1, 200 do mine[i] = ona.audio.play(s) end\n"
                           "  end,\n"
                           "  process = function()\n"
                           "    if ona.frame() == 2 then\n"
                           "      local n = 0\n"
                           "      for i = 1, 200 do if ona.audio.playing(mine[i]) then n = n + 1 "
                           "end end\n"
                           "      print('playing', n)\n"
                           "    end\n"
                           "  end,\n"
                           "}\n");
    const char *roots[] = {game_dir(), NULL};
    ck_assert_int_eq(
        ona_runtime_create(
            &(ona_runtime_desc){.threads = 2, .script_roots = roots, .no_audio = true}, &rt),
        0);
    spawn_lua(rt, "pair.lua", "first", (ona_system){0}, "", 0, 0);
    spawn_lua(rt, "pair.lua", "second", (ona_system){0}, "", 0, 0);
    steps(rt, 2);
    EXPECT_LOG("144 plays dropped this frame, the first from second: all 256 voices were busy");
    EXPECT_LOG("playing\t200");
    EXPECT_LOG("playing\t56");
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Misuse ---------------------------------------------------------------------------------- */

START_TEST(test_audio_voices_lua_misuse) {
    wav_write(game_dir_file("ok.wav"), 48000, 1, 4800, 100);
    game_write("misuse.lua",
               "local function try(f, ...) local ok, e = pcall(f, ...) print('ERR', e) end\n"
               "try(function() ona.audio.playing(1) end)\n" /* line 2: outside a turn */
               "local s = ona.audio.sound('ok.wav')\n"
               "return { init = function()\n"
               "  local v = ona.audio.play(s)\n"
               "  try(function() ona.audio.set('x', {}) end)\n"           /* 6 */
               "  try(function() ona.audio.set(v, 5) end)\n"              /* 7 */
               "  try(function() ona.audio.set(v, {volume = 17}) end)\n"  /* 8 */
               "  try(function() ona.audio.set(v, {pan = 'left'}) end)\n" /* 9 */
               "  try(function() ona.audio.set(v, {pitch = 100}) end)\n"  /* 10 */
               "  try(function() ona.audio.playing() end)\n"              /* 11 */
               "  try(function() ona.audio.playing(-3) end)\n"            /* 12 */
               "  try(function() ona.audio.set(v, {pan = -2}) end)\n"     /* 13 */
               "  try(function() ona.audio.set(v, {loop = true}) end)\n"  /* 14 */
               "  ona.audio.set(v, {})\n"
               "  print('fine', ona.audio.playing(v))\n"
               "end }\n");
    ona_runtime *rt = start(1, true, "misuse.lua", NULL);
    steps(rt, 1);
    static const char *const expect[] = {
        "misuse.lua:2: ona.audio.playing: can only be called during a turn",
        "misuse.lua:6: ona.audio.set: bad argument #1 (not a voice handle: got string)",
        "misuse.lua:7: ona.audio.set: bad argument #2 (options table expected, got number)",
        "misuse.lua:8: ona.audio.set: bad argument #2 (volume must be 0..16)",
        "misuse.lua:9: ona.audio.set: bad argument #2 (opts.pan must be a number",
        "misuse.lua:10: ona.audio.set: bad argument #2 (pitch must be 1/16..16)",
        "misuse.lua:11: ona.audio.playing: bad argument #1 (not a voice handle: got no value)",
        "misuse.lua:12: ona.audio.playing: bad argument #1 (not a voice handle",
        "misuse.lua:13: ona.audio.set: bad argument #2 (pan must be -1..1)",
        "misuse.lua:14: ona.audio.set: bad argument #2 (opts.loop is not a field of it (volume, "
        "pan, pitch))",
        "fine\ttrue",
    };
    for (size_t i = 0; i < sizeof expect / sizeof *expect; i++)
        EXPECT_LOG(expect[i]);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- The C API ------------------------------------------------------------------------------- */

typedef struct c_voices {
    ona_sound sound;
    ona_voice voice, music;
    int rc[8];
    bool playing[4];
    int frames;
} c_voices;

static int c_voices_process(ona_ctx *ctx, void *state, double dt) {
    c_voices *c = ona_ctx_user(ctx);
    (void)state;
    (void)dt;
    c->frames++;
    if (c->frames == 1) {
        c->rc[0] = ona_ctx_audio_play(ctx, c->sound, NULL, &c->voice);
        c->rc[1] = ona_ctx_audio_set(
            ctx, c->voice,
            &(ona_voice_set){.fields = ONA_VOICE_VOLUME | ONA_VOICE_PITCH, .pitch = 2});
        c->rc[2] =
            ona_ctx_audio_set(ctx, c->voice, &(ona_voice_set){.fields = ONA_VOICE_PAN, .pan = 3});
        c->rc[3] = ona_ctx_audio_set(ctx, c->voice, NULL);
        c->rc[4] = ona_ctx_audio_set(ctx, c->voice, &(ona_voice_set){.fields = 8});
        c->rc[5] = ona_ctx_audio_music(ctx, "tone.wav", NULL, &c->music);
        c->playing[0] = ona_ctx_audio_playing(ctx, c->voice);
    }
    if (c->frames == 4) /* at pitch 2 the six-frame sound ended after three */
        c->playing[1] = ona_ctx_audio_playing(ctx, c->voice);
    if (c->frames == 5) {
        c->playing[2] = ona_ctx_audio_playing(ctx, c->music);
        c->rc[6] = ona_ctx_audio_stop(ctx, c->music);
        c->playing[3] = ona_ctx_audio_playing(ctx, c->music);
    }
    return 0;
}

START_TEST(test_audio_voices_c_api) {
    wav_write(game_dir_file("six.wav"), 48000, 1, 4800, 100);
    wav_write(game_dir_file("tone.wav"), 48000, 1, 48000, 100);
    const char *roots[] = {game_dir(), NULL};
    ona_runtime *rt;
    ck_assert_int_eq(
        ona_runtime_create(
            &(ona_runtime_desc){.threads = 1, .script_roots = roots, .no_audio = true}, &rt),
        0);
    c_voices c = {0};
    ck_assert_int_eq(ona_runtime_sound_load(rt, "six.wav", &c.sound), 0);
    ona_system sys;
    ck_assert_int_eq(
        ona_runtime_spawn_native(
            rt, &(ona_system_desc){.name = "c_voices", .process = c_voices_process, .user = &c},
            &sys),
        0);
    steps(rt, 6);
    static const int expect[] = {0, 0, ONA_EINVAL, ONA_EINVAL, ONA_EINVAL, 0, 0, 0};
    for (int i = 0; i < 8; i++)
        ck_assert_msg(c.rc[i] == expect[i], "call %d: %d, expected %d", i, c.rc[i], expect[i]);
    ck_assert(c.playing[0] && !c.playing[1] && c.playing[2] && !c.playing[3]);
    ck_assert_uint_ne(c.music.id, 0);
    ck_assert_uint_ne(c.music.id, c.voice.id);
    ck_assert(!ona_ctx_audio_playing(NULL, c.voice));
    ck_assert_int_eq(ona_ctx_audio_set(NULL, c.voice, &(ona_voice_set){0}), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *voices_suite(void) {
    Suite *s = suite_create("audio_voices");
    TCase *mixer = tcase_create("mixer");
    tcase_add_test(mixer, test_audio_voices_mixer_set);
    tcase_add_test(mixer, test_audio_voices_mixer_music_set_and_stop);
    tcase_add_test(mixer, test_audio_voices_clock_agrees_with_the_mixer);
    suite_add_tcase(s, mixer);
    TCase *voices = tcase_create("voices");
    tcase_add_checked_fixture(voices, setup, teardown);
    tcase_add_test(voices, test_audio_voices_600_frames_headless_are_10_seconds);
    tcase_add_test(voices, test_audio_voices_playing_follows_game_time);
    tcase_add_test(voices, test_audio_voices_music_is_a_voice);
    tcase_add_test(voices, test_audio_voices_limit_is_reported);
    tcase_add_test(voices, test_audio_voices_lua_misuse);
    tcase_add_test(voices, test_audio_voices_c_api);
    tcase_add_test(voices, test_audio_voices_playing_replays);
    suite_add_tcase(s, voices);
    TCase *disk = tcase_create("disk");
    tcase_add_checked_fixture(disk, disk_setup, teardown);
    tcase_set_timeout(disk, 60);
    tcase_add_test(disk, test_audio_voices_600_frames_on_disk_are_10_seconds);
    tcase_add_test(disk, test_audio_voices_volume_change_is_audible_on_disk);
    tcase_add_test(disk, test_audio_voices_music_set_is_audible_on_disk);
    suite_add_tcase(s, disk);
    return s;
}

int main(void) {
    return run_suite(voices_suite());
}
