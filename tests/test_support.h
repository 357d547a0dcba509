/*
 * test_support.h: what every Check suite shares: a capturing logger (so tests assert on what was
 * reported), a fault-injecting allocator (fail the Nth allocation), a main() helper, and the
 * picture helpers of the rendering suites (screenshots, golden images).
 */
#ifndef ONA_TEST_SUPPORT_H
#define ONA_TEST_SUPPORT_H

#include <check.h>
#include <stdbool.h>
#include "ona/ona.h"

/* Starts capturing every log message (all levels) in memory instead of printing it. */
void capture_logs_begin(void);
/* Stops capturing and restores the default sink; frees the captured text. */
void capture_logs_end(void);
/* True when some captured message (formatted "level: where: message") contains `needle`. */
bool captured_logs_contain(const char *needle);
/* How many captured messages contain `needle`. */
int captured_logs_count(const char *needle);
/* All captured text, one message a line (for failure messages). */
const char *captured_logs_text(void);

/* Installs an allocator that fails the `nth` allocation from now (1 = the next one), and every
 * one after it if `sticky`. 0 never fails but still counts. */
void fault_alloc_begin(long nth, bool sticky);
/* How many allocations were attempted since fault_alloc_begin. */
long fault_alloc_count(void);
/* Restores the C library allocator. */
void fault_alloc_end(void);

/* --- The collector ----------------------------------------------------------------------------
 * A native system that records every value it receives, in order, so a test can assert on what
 * Lua systems sent. It runs on whatever thread the scheduler picks; read it only after
 * ona_runtime_step returned (the frame's end orders it). */

enum { MAX_ITEMS = 4096 };

typedef struct item {
    ona_value_type type;
    double number;
    bool boolean;
    char text[160];
    uint64_t sender;
} item;

typedef struct collector {
    item items[MAX_ITEMS];
    int count;
} collector;

/* The collector of the last spawn_collector (freed by collector_free). */
extern collector *coll;

/* True when some collected string contains `needle`. */
bool collected_contains(const char *needle);
/* Every collected string, one a line (for failure messages; static storage). */
const char *collected_text(void);
/* Fails the test, showing what was collected and logged, unless a collected string contains
 * `needle`. */
#define ASSERT_COLLECTED(needle)                                                                   \
    ck_assert_msg(collected_contains(needle), "'%s' not reported; got:\n%s\nlog:\n%s", (needle),   \
                  collected_text(), captured_logs_text())

/* Spawns the collector (named "collector", mailbox 1024) and returns its handle. */
ona_system spawn_collector(ona_runtime *rt);
void collector_free(void);

/* A table {report = <report>, key = value...} from "key=value key=value": numbers, true/false,
 * else strings. report.id 0 leaves `report` out. */
ona_message make_args(ona_system report, const char *pairs);

/* Spawns `script` with make_args(report, pairs) and the given mailbox capacity and policy
 * (0 = defaults); fails the test (with the captured log) when the spawn fails. */
ona_system spawn_lua(ona_runtime *rt, const char *script, const char *name, ona_system report,
                     const char *pairs, uint32_t mailbox, ona_failure_policy policy);

/* The statistics of the live system called `name`; fails the test when there is none. */
ona_system_stats named_stats(ona_runtime *rt, const char *name);

/* Runs one suite with Check and returns the process exit status. */
int run_suite(Suite *suite);

/* The environment for a child process that runs the built launcher: this process's. Under
 * ThreadSanitizer, though, a launcher that opened video dies at exit when EGL unloads the GL
 * driver (TSan treats unloading a library named by a called_from_lib suppression, as
 * tests/tsan.supp names Mesa's, as fatal). So there children run without the suppressions and with
 * reports off: the launcher suites check what the launcher says and how it exits; the runtime's
 * threads are checked in process by the other suites. Free the array (not its strings) with free().
 */
char **child_environment(void);

/* What a launcher run printed and how it ended: `status` its exit status (-1 when killed),
 * `out` and `err` its whole stdout and stderr (malloc'd; launcher_result_free). */
typedef struct launcher_result {
    int status;
    char *out, *err;
} launcher_result;

/* Runs `launcher` with `args` (NULL-terminated, without argv[0]) in child_environment(), its
 * stdout and stderr captured through files in `scratch` and its stdin `stdin_path` (NULL: this
 * process's), and waits for it. */
launcher_result launcher_run(const char *launcher, const char *scratch, const char *const *args,
                             const char *stdin_path);
void launcher_result_free(launcher_result *r);

/* A scratch folder for a test's game files: made by game_dir_begin (under /tmp, named after
 * `what`), removed with everything in it by game_dir_end. game_dir() is its path. */
void game_dir_begin(const char *what);
void game_dir_end(void);
const char *game_dir(void);
/* game_dir()/name, in one of 4 static buffers used in turn (a few may be held at once). */
const char *game_dir_file(const char *name);

/* --- Audio written by SDL's disk driver (SDL_DISKAUDIOFILE: 48 kHz stereo float frames) --- */

/* The whole file at `path` (malloc'd) and its frame count, read after the runtime is destroyed
 * (which closes it); fails the test without one. */
float *disk_audio_read(const char *path, size_t *frames);
/* The first frame of `out` that is not silent; fails the test when all are. The file may open
 * with silent buffers the device wrote before it was unpaused (no mix counted them), so tests
 * find where the first hand-off landed this way, then check later positions exactly. */
size_t audio_first_sound(const float *out, size_t frames);
/* Saves `text` as `name` in the game folder the way editors do: a new file renamed over the old
 * one. */
void game_write(const char *name, const char *text);
/* Rewrites `name` in place (truncate, then write), as some editors do. */
void game_write_in_place(const char *name, const char *text);
/* The number of the first line of tests/lua/<script> holding "[mark]" (a misuse test's way to
 * name the line an error must point at); fails the test when there is none. */
int lua_marked_line(const char *script, const char *mark);

/* Copies the file `from` to `to` the way editors save: a new file beside it, renamed over it. */
void file_save_copy(const char *from, const char *to);
/* Writes a 16-bit PCM WAV of `frames` frames of `value` (on every channel) at `path`. */
void wav_write(const char *path, uint32_t rate, uint16_t channels, uint32_t frames, int16_t value);

/* For the sample games' suites: no error or warning was logged, and exactly `systems` systems
 * exist, each running, with no error and no restart. */
void assert_game_clean(ona_runtime *rt, uint32_t systems);

/* Renders with render(threads) on 1, 2 and 4 threads and fails the test unless the three
 * pictures (`bytes` bytes each) are byte-identical. Returns the 1-thread picture (free with
 * stbi_image_free). */
uint8_t *assert_same_on_1_2_and_4_threads(uint8_t *(*render)(uint32_t threads), size_t bytes);

/* Fails the test when a script (*.lua) in the folder `dir` contains `text`, or there is none. */
void assert_scripts_without(const char *dir, const char *text);

/* --- Recordings ------------------------------------------------------------------------------
 * "Run this game with these inputs for N frames and compare with a recording" in a few lines:
 *
 *   game_session s = {.root = ..., .args = "autoplay=1", .threads = 2, .frames = 600,
 *                     .dt = 1.0 / 60, .video = ONA_VIDEO_OFFSCREEN, .record = path};
 *   assert_recording_replays(s);
 */
typedef struct game_session {
    const char *root; /* the game folder (its main.lua is spawned, after the collector) */
    const char *args; /* main.lua's "key=value" args (make_args) */
    uint32_t threads;
    ona_video video;    /* ONA_VIDEO_NONE (headless) or ONA_VIDEO_OFFSCREEN (320 x 240) */
    int frames;         /* frames to run (a replay stops earlier at its recording's end) */
    double dt;          /* each frame's dt; 0: the measured time, as a window has */
    const char *record; /* record into this file, or */
    const char *replay; /* replay this one */
    void (*input)(ona_runtime *rt, int frame); /* before each frame (1 = the first); or NULL */
} game_session;

/* Runs the session: returns the last frame's RGBA pixels (free with stbi_image_free) when the
 * video is offscreen, else NULL; *diverged is the frame where a replay diverged (0: none), its
 * reason in `why`. */
uint8_t *run_session(const game_session *s, uint64_t *diverged, char *why, size_t size);

/* Records `s` into s.record, then replays it on 1, 2 and 4 threads: fails the test at a
 * divergence or when a replay's last picture differs from the recording's by a byte. */
void assert_recording_replays(game_session s);

/* --- Runtimes and pictures -------------------------------------------------------------------
 * Rendering is tested for real (offscreen SDL + llvmpipe): a frame's screenshot is read back and
 * compared with a small golden image, tests/golden/<name>.png, with a tolerance. */

/* Creates a runtime from `desc`; fails the test (with the captured log) when that fails. */
ona_runtime *create_runtime(const ona_runtime_desc *desc);

/* Steps `frames` frames of 1/60 s; fails the test when a step fails. */
void step_frames(ona_runtime *rt, int frames);

/* Sends `to` one number from C; fails the test when the send fails. */
void send_number(ona_runtime *rt, ona_system to, double v);

/* Steps `frames` frames of `dt` seconds, taking a screenshot of the last one to `path`, and
 * returns its RGBA pixels (free with stbi_image_free); fails the test unless the picture is
 * `w` x `h`. The file is removed. */
uint8_t *shoot_frames(ona_runtime *rt, int frames, double dt, const char *path, int w, int h);

/* tests/golden/<name>.png as `w` x `h` RGBA pixels (free with stbi_image_free); fails the test
 * when it is missing or of another size. With ONA_UPDATE_GOLDEN set, `got` is written there
 * first (that is how goldens are made). */
uint8_t *golden_load(const char *name, const uint8_t *got, int w, int h);

/* Writes `got` as tests/golden/<name>.actual.png, beside the golden it failed to match, so the
 * two can be looked at side by side; returns that path (static storage). */
const char *golden_write_actual(const char *name, const uint8_t *got, int w, int h);

/* Compares `got` (w x h RGBA) with tests/golden/<name>.png: at most 0.5% of the channel values
 * may differ by more than 24 and the mean difference must stay under 2 (rasterisers may differ
 * on an edge pixel's coverage, not on the picture). On a mismatch the actual picture is written
 * beside the golden (golden_write_actual) and the test fails. */
void expect_golden(const uint8_t *got, int w, int h, const char *name);

#endif
