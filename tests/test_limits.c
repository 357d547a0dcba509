/*
 * test_limits.c: limits that are errors of one system, never a crash of the process: the
 * default heap cap and ONA_MEMORY_UNCAPPED, memory bombs under a cap, a failed
 * allocation injected anywhere in a Lua system's turn, deep C recursion (coroutines, gsub
 * callbacks, metamethods, pcall chains) on the main thread and on a worker, images refused from
 * their header, and the launcher's --memory-cap. The Lua side is in tests/lua/limits/.
 *
 * Worker coverage: with 2 threads a frame is shared once the last frame's turns were long, so a
 * "busy" system keeps every frame long and the recursion systems, spawned several times each,
 * run on both threads; the limits are the same on either (8 MiB stacks everywhere).
 */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL};

static ona_runtime *make_runtime(uint32_t threads, size_t memory_cap) {
    /* No turn budget: a bomb under ThreadSanitizer can take more than the default second to reach
     * its cap, and this suite is about the cap. */
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .memory_cap = memory_cap,
                             .turn_budget_ms = ONA_BUDGET_OFF};
    ona_runtime *rt = NULL;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    return rt;
}

static void step(ona_runtime *rt, int frames) {
    for (int i = 0; i < frames; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

static uint64_t turns_of(ona_runtime *rt, ona_system h) {
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, h, &st), 0);
    return st.turns;
}

/* --- Memory ---------------------------------------------------------------------------------- */

START_TEST(test_limits_default_cap_is_an_eighth_of_ram) {
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t expect = ram / 8;
    if (expect < (64ull << 20))
        expect = 64ull << 20;
    if (expect > (4ull << 30))
        expect = 4ull << 30;
    ona_runtime *rt = make_runtime(1, 0);
    ona_system none = {0};
    ona_system h = spawn_lua(rt, "counter.lua", "counter", none, "", 0, 0);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, h, &st), 0);
    ck_assert_uint_eq(st.memory_cap, expect);
    /* A spawn may still lift it. */
    ona_spawn_desc d = {.script = "counter.lua", .name = "free", .memory_cap = ONA_MEMORY_UNCAPPED};
    ona_system free_h;
    ck_assert_int_eq(ona_runtime_spawn(rt, &d, &free_h), 0);
    ck_assert_int_eq(ona_runtime_system_stats(rt, free_h, &st), 0);
    ck_assert_uint_eq(st.memory_cap, 0);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_limits_uncapped_runtime_reports_no_cap) {
    ona_runtime *rt = make_runtime(1, ONA_MEMORY_UNCAPPED);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "limits/memory.lua", "memory", report, "", 0, 0);
    step(rt, 2);
    ck_assert_int_eq(coll->count, 2);
    ck_assert_double_gt(coll->items[0].number, 0);
    ck_assert_str_eq(coll->items[1].text, "none");
    ona_runtime_destroy(rt);
}
END_TEST

/* Each bomb, under the runtime's cap (the default's mechanism, at a size a test can reach),
 * fails its own system with a memory error; the bystander keeps its turns. */
static void bomb(const char *kind, uint32_t threads) {
    capture_logs_begin();
    ona_runtime *rt = make_runtime(threads, 32u << 20);
    ona_system none = {0};
    ona_system alive = spawn_lua(rt, "counter.lua", "alive", none, "", 0, 0);
    char pairs[64];
    snprintf(pairs, sizeof pairs, "kind=%s", kind);
    spawn_lua(rt, "limits/bombs.lua", "bomb", none, pairs, 0, ONA_POLICY_STOP);
    step(rt, 40);
    ck_assert_msg(captured_logs_contain("bomb: exceeded its memory cap of 33554432 bytes") ||
                      captured_logs_contain("bomb: not enough memory"),
                  "%s", captured_logs_text());
    ck_assert_msg(captured_logs_contain("bomb: stopped (its policy is stop)"), "%s",
                  captured_logs_text());
    ck_assert(!captured_logs_contain("unprotected"));
    ck_assert_uint_eq(turns_of(rt, alive), 40);
    ona_runtime_destroy(rt);
}

START_TEST(test_limits_table_bomb) {
    bomb("table", 1);
    bomb("table", 2);
}
END_TEST

START_TEST(test_limits_string_bombs) {
    bomb("double", 1);
    bomb("rep", 2);
}
END_TEST

/* Fails allocation n of the third frame (counted from its start) once, for every n that frame
 * makes, each in a fresh runtime: wherever it lands, in the script's code or in the runtime's,
 * the process goes on; a system whose allocation failed fails with a memory error and is
 * restarted; the bystander is never harmed. */
static long fail_one_allocation(long n, bool *memory_error) {
    capture_logs_begin();
    ona_runtime *rt = make_runtime(1, 0);
    ona_system none = {0};
    ona_system alive = spawn_lua(rt, "counter.lua", "alive", none, "", 0, 0);
    ona_system churn = spawn_lua(rt, "limits/churn.lua", "churn", none, "", 0, 0);
    step(rt, 2);
    fault_alloc_begin(n, n > 0);
    int rc = ona_runtime_step(rt, 1.0 / 60);
    long count = fault_alloc_count();
    fault_alloc_end();
    ck_assert_msg(rc == 0 || rc == ONA_ENOMEM, "allocation %ld: %s", n, ona_strerror(rc));
    step(rt, 3); /* a restart, if it failed, happens here; then it runs again */
    ck_assert_msg(!captured_logs_contain("unprotected"), "allocation %ld: %s", n,
                  captured_logs_text());
    *memory_error = captured_logs_contain("churn: not enough memory");
    if (*memory_error)
        ck_assert_msg(captured_logs_contain("churn: restarting"), "%s", captured_logs_text());
    ck_assert_uint_eq(turns_of(rt, alive), 6);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, churn, &st), 0);
    ck_assert_int_eq(st.status, ONA_SYSTEM_RUNNING);
    ona_runtime_destroy(rt);
    return count;
}

START_TEST(test_limits_failed_allocation_anywhere_in_a_turn) {
    bool failed;
    long per_frame = fail_one_allocation(0, &failed);
    ck_assert(!failed);
    ck_assert_int_gt(per_frame, 50);
    int memory_errors = 0;
    for (long n = 1; n <= per_frame; n++) {
        fail_one_allocation(n, &failed);
        memory_errors += failed;
    }
    /* Most of a turn's allocations are the script's: most of the failures were its errors. */
    ck_assert_msg(memory_errors > per_frame / 2, "%d of %ld", memory_errors, per_frame);
}
END_TEST

/* Runs the launcher (no display: it falls back to no video) with `args`; returns its exit status
 * and leaves its stdout and stderr in `out`. */
static int run_launcher(const char *args, char *out, size_t size) {
    char path[] = "/tmp/ona_limits_out_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && SDL_VIDEODRIVER=dummy '%s' %s >'%s' 2>&1",
             ONA_SOURCE_DIR "/tests/lua/limits", ONA_LAUNCHER_PATH, args, path);
    int status = system(cmd);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(out, 1, size - 1, f);
    out[n] = '\0';
    fclose(f);
    unlink(path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(test_limits_launcher_memory_cap) {
    static char out[65536];
    ck_assert_int_eq(run_launcher("--turn-budget 0 --memory-cap 16M capgame --frames 5 --no-watch "
                                  "hog=1",
                                  out, sizeof out),
                     0);
    ck_assert_msg(strstr(out, "main: memory cap 16777216"), "%s", out);
    ck_assert_msg(strstr(out, "hog: exceeded its memory cap of 16777216 bytes"), "%s", out);
    ck_assert_msg(strstr(out, "alive: alive turn 5"), "%s", out);
    ck_assert_int_eq(run_launcher("--turn-budget 0 --memory-cap=none capgame --frames 5 --no-watch",
                                  out, sizeof out),
                     0);
    ck_assert_msg(strstr(out, "main: memory cap nil"), "%s", out);
    const char *bad[] = {"12X", "0", "-5", "1K", "99999999999999999999G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[128];
        snprintf(args, sizeof args, "--memory-cap=%s capgame --frames 1", bad[i]);
        ck_assert_int_eq(run_launcher(args, out, sizeof out), 2);
        ck_assert_msg(strstr(out, "--memory-cap needs"), "%s: %s", bad[i], out);
    }
}
END_TEST

/* --- Deep C recursion ------------------------------------------------------------------------ */

static const char *const shapes[] = {"co", "wrap", "gsub", "lua", "meta", "pcall", "mixed"};
enum { SHAPES = sizeof shapes / sizeof shapes[0], COPIES = 3 };

static const char *expected_error(const char *shape) {
    bool c_nesting = strcmp(shape, "co") == 0 || strcmp(shape, "wrap") == 0 ||
                     strcmp(shape, "gsub") == 0 || strcmp(shape, "mixed") == 0;
    return c_nesting ? "C stack overflow" : "stack overflow";
}

/* Uncaught: each recursion fails its system (policy stop) with the expected error. */
static void recursion_fails_the_system(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, 0);
    ona_system none = {0};
    ona_system busy = spawn_lua(rt, "limits/busy.lua", "busy", none, "", 0, 0);
    for (int s = 0; s < (int)SHAPES; s++) {
        for (int c = 0; c < COPIES; c++) {
            char name[32], pairs[64];
            snprintf(name, sizeof name, "%s%d", shapes[s], c);
            snprintf(pairs, sizeof pairs, "shape=%s catch=false", shapes[s]);
            spawn_lua(rt, "limits/deep.lua", name, none, pairs, 0, ONA_POLICY_STOP);
        }
    }
    step(rt, 4);
    /* The copies of a shape fail alike, in the same frame: one error line names all of them
     * (ona__actor_log_failures), where each copy once had its own line. */
    for (int s = 0; s < (int)SHAPES; s++) {
        char group[96];
        snprintf(group, sizeof group, "%s0, %s1, %s2", shapes[s], shapes[s], shapes[s]);
        ck_assert_msg(captured_logs_contain(group), "%s: %s", group, captured_logs_text());
        for (int c = 0; c < COPIES; c++) {
            char needle[96];
            snprintf(needle, sizeof needle, "%s%d: stopped (its policy is stop)", shapes[s], c);
            ck_assert_msg(captured_logs_contain(needle), "%s: %s", needle, captured_logs_text());
        }
        ck_assert_msg(captured_logs_count(expected_error(shapes[s])) >= 1, "%s: %s", shapes[s],
                      captured_logs_text());
    }
    /* Four shapes nest C calls: at most one line each, not one per copy. */
    int c_lines = captured_logs_count("C stack overflow");
    ck_assert_msg(c_lines >= 1 && c_lines <= 4, "%d: %s", c_lines, captured_logs_text());
    ck_assert_uint_eq(turns_of(rt, busy), 4);
    ona_runtime_destroy(rt);
}

START_TEST(test_limits_recursion_fails_the_system_main_thread) {
    recursion_fails_the_system(1);
}
END_TEST

START_TEST(test_limits_recursion_fails_the_system_on_workers) {
    recursion_fails_the_system(2);
}
END_TEST

/* Caught: pcall gets the error, and the system keeps running turn after turn. */
static void recursion_is_catchable(uint32_t threads) {
    ona_runtime *rt = make_runtime(threads, 0);
    ona_system none = {0};
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "limits/busy.lua", "busy", none, "", 0, 0);
    ona_system hs[SHAPES];
    for (int s = 0; s < (int)SHAPES; s++) {
        char name[32], pairs[64];
        snprintf(name, sizeof name, "%s", shapes[s]);
        snprintf(pairs, sizeof pairs, "shape=%s catch=true", shapes[s]);
        hs[s] = spawn_lua(rt, "limits/deep.lua", name, report, pairs, 0, ONA_POLICY_STOP);
    }
    enum { FRAMES = 4 };
    step(rt, FRAMES);
    for (int s = 0; s < (int)SHAPES; s++)
        ck_assert_uint_eq(turns_of(rt, hs[s]), FRAMES);
    /* What was sent after the collector's turn in the last frame arrives in the next. */
    ck_assert_msg(coll->count >= (int)SHAPES * (FRAMES - 1), "%d: %s", coll->count,
                  captured_logs_text());
    int c_overflows = 0;
    for (int i = 0; i < coll->count; i++) {
        ck_assert_msg(strstr(coll->items[i].text, "stack overflow"), "%s", coll->items[i].text);
        c_overflows += strstr(coll->items[i].text, "C stack overflow") != NULL;
    }
    ck_assert_int_eq(c_overflows * (int)SHAPES, 4 * coll->count);
    ck_assert(!captured_logs_contain("stopped"));
    ona_runtime_destroy(rt);
}

START_TEST(test_limits_recursion_is_catchable_main_thread) {
    recursion_is_catchable(1);
}
END_TEST

START_TEST(test_limits_recursion_is_catchable_on_workers) {
    recursion_is_catchable(2);
}
END_TEST

/* Nesting under the limit works, also after many errors caught inside gsub callbacks. */
START_TEST(test_limits_nesting_under_the_limit_works) {
    ona_runtime *rt = make_runtime(1, 0);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "limits/nesting.lua", "nesting", report, "depth=190 caught=0", 0,
              ONA_POLICY_STOP);
    spawn_lua(rt, "limits/nesting.lua", "after_errors", report, "depth=190 caught=1000", 0,
              ONA_POLICY_STOP);
    step(rt, 3);
    ck_assert_msg(coll->count >= 12, "%d: %s", coll->count, captured_logs_text());
    for (int i = 0; i < coll->count; i += 3) {
        ck_assert_str_eq(coll->items[i].text, "ok");
        ck_assert_double_eq(coll->items[i + 1].number, 190);
        ck_assert_double_eq(coll->items[i + 2].number, 190);
    }
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Textures -------------------------------------------------------------------------------- */

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* The CRC-32 of PNG chunks (ISO 3309), bit by bit. */
static uint32_t crc32_of(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

/* Writes a PNG signature, an IHDR claiming w x h RGBA8 and an empty IDAT (no pixel data) to
 * `path`: libpng reads the header up to the first IDAT, so the file is sized before decoding. */
static void write_png_header(const char *path, uint32_t w, uint32_t h) {
    unsigned char png[8 + 25 + 12] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    put32(png + 8, 13);
    memcpy(png + 12, "IHDR", 4);
    put32(png + 16, w);
    put32(png + 20, h);
    png[24] = 8; /* bit depth */
    png[25] = 6; /* RGBA */
    /* compression, filter, interlace 0; then the CRC of the type and data, which libpng checks */
    put32(png + 29, crc32_of(png + 12, 17));
    put32(png + 33, 0);
    memcpy(png + 37, "IDAT", 4);
    put32(png + 41, crc32_of(png + 37, 4));
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(png, 1, sizeof png, f), sizeof png);
    fclose(f);
}

START_TEST(test_limits_huge_image_refused_from_its_header) {
    char dir[] = "/tmp/ona_limits_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char huge[512], big_ok[512];
    snprintf(huge, sizeof huge, "%s/huge.png", dir);
    snprintf(big_ok, sizeof big_ok, "%s/fits.png", dir);
    write_png_header(huge, 16000, 16000);
    write_png_header(big_ok, 4096, 4096);
    ona_runtime *rt = make_runtime(1, 0);
    ona_texture tex;
    ck_assert_int_eq(ona_runtime_texture_load(rt, huge, &tex), ONA_ELIMIT);
    char needle[600];
    snprintf(needle, sizeof needle, "texture %s: 16000x16000 is too large", huge);
    ck_assert_msg(captured_logs_contain(needle), "%s", captured_logs_text());
    /* One within the limit gets past the header and is decoded (and fails there: no pixels). */
    ck_assert_int_eq(ona_runtime_texture_load(rt, big_ok, &tex), ONA_EFORMAT);
    snprintf(needle, sizeof needle, "texture %s: not a readable PNG", big_ok);
    ck_assert_msg(captured_logs_contain(needle), "%s", captured_logs_text());
    ona_runtime_destroy(rt);
    unlink(huge);
    unlink(big_ok);
    rmdir(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("limits");
    TCase *mem = tcase_create("memory");
    tcase_add_checked_fixture(mem, setup, teardown);
    tcase_set_timeout(mem, 120);
    tcase_add_test(mem, test_limits_default_cap_is_an_eighth_of_ram);
    tcase_add_test(mem, test_limits_uncapped_runtime_reports_no_cap);
    tcase_add_test(mem, test_limits_table_bomb);
    tcase_add_test(mem, test_limits_string_bombs);
    tcase_add_test(mem, test_limits_failed_allocation_anywhere_in_a_turn);
    tcase_add_test(mem, test_limits_launcher_memory_cap);
    suite_add_tcase(s, mem);
    TCase *rec = tcase_create("recursion");
    tcase_add_checked_fixture(rec, setup, teardown);
    tcase_set_timeout(rec, 120);
    tcase_add_test(rec, test_limits_recursion_fails_the_system_main_thread);
    tcase_add_test(rec, test_limits_recursion_fails_the_system_on_workers);
    tcase_add_test(rec, test_limits_recursion_is_catchable_main_thread);
    tcase_add_test(rec, test_limits_recursion_is_catchable_on_workers);
    tcase_add_test(rec, test_limits_nesting_under_the_limit_works);
    suite_add_tcase(s, rec);
    TCase *tex = tcase_create("textures");
    tcase_add_checked_fixture(tex, setup, teardown);
    tcase_add_test(tex, test_limits_huge_image_refused_from_its_header);
    suite_add_tcase(s, tex);
    return run_suite(s);
}
