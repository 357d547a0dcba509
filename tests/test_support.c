/*
 * test_support.c: capturing logger, fault-injecting allocator and the suite runner shared by the
 * Check suites. The logger is guarded by a mutex because systems log from worker threads.
 */
#include "test_support.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <pthread.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *log_text;
static size_t log_size, log_cap;

static void capture_sink(void *user, ona_log_level level, const char *where, const char *msg) {
    (void)user;
    char line[4096];
    int n = snprintf(line, sizeof line, "%s: %s: %s\n", ona_log_level_name(level), where, msg);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    pthread_mutex_lock(&log_lock);
    if (log_size + len + 1 > log_cap) {
        size_t cap = log_cap ? log_cap * 2 : 4096;
        while (cap < log_size + len + 1)
            cap *= 2;
        char *grown = realloc(log_text, cap);
        if (grown) {
            log_text = grown;
            log_cap = cap;
        }
    }
    if (log_size + len + 1 <= log_cap) {
        memcpy(log_text + log_size, line, len);
        log_size += len;
        log_text[log_size] = '\0';
    }
    pthread_mutex_unlock(&log_lock);
    if (getenv("ONA_TEST_VERBOSE"))
        fputs(line, stderr);
}

void capture_logs_begin(void) {
    pthread_mutex_lock(&log_lock);
    log_size = 0;
    if (log_text)
        log_text[0] = '\0';
    pthread_mutex_unlock(&log_lock);
    ona_log_set_sink(capture_sink, NULL, ONA_LOG_DEBUG);
}

void capture_logs_end(void) {
    ona_log_set_sink(NULL, NULL, ONA_LOG_INFO);
    pthread_mutex_lock(&log_lock);
    free(log_text);
    log_text = NULL;
    log_size = log_cap = 0;
    pthread_mutex_unlock(&log_lock);
}

int captured_logs_count(const char *needle) {
    int count = 0;
    pthread_mutex_lock(&log_lock);
    const char *p = log_text;
    while (p && (p = strstr(p, needle)) != NULL) {
        count++;
        p += strlen(needle) ? strlen(needle) : 1;
    }
    pthread_mutex_unlock(&log_lock);
    return count;
}

bool captured_logs_contain(const char *needle) {
    return captured_logs_count(needle) > 0;
}

const char *captured_logs_text(void) {
    /* Read without the lock: callers use it in failure messages after the threads stopped. */
    return log_text ? log_text : "";
}

static atomic_long alloc_count;
static long fail_at;
static bool fail_sticky;

static void *fault_realloc(void *user, void *ptr, size_t size) {
    (void)user;
    /* relaxed: a plain counter; tests read it after joining their threads. */
    long n = atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed) + 1;
    if (fail_at > 0 && (n == fail_at || (fail_sticky && n > fail_at)))
        return NULL;
    return realloc(ptr, size);
}

static void fault_free(void *user, void *ptr) {
    (void)user;
    free(ptr);
}

void fault_alloc_begin(long nth, bool sticky) {
    atomic_store_explicit(&alloc_count, 0, memory_order_relaxed);
    fail_at = nth;
    fail_sticky = sticky;
    ona_allocator a = {fault_realloc, fault_free, NULL};
    ona_set_allocator(&a);
}

long fault_alloc_count(void) {
    return atomic_load_explicit(&alloc_count, memory_order_relaxed);
}

void fault_alloc_end(void) {
    ona_set_allocator(NULL);
}

int run_suite(Suite *suite) {
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* --- The collector: a native system that records what it receives ----------------------------- */

collector *coll;

static int collect_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    collector *c = ona_ctx_user(ctx);
    ona_message *m;
    while (ona_ctx_try_receive(ctx, &m) == 0) {
        ona_message_reader r;
        ona_message_reader_begin(&r, m);
        ona_value v;
        while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END && c->count < MAX_ITEMS) {
            item *it = &c->items[c->count++];
            memset(it, 0, sizeof *it);
            it->type = v.type;
            it->sender = ona_message_sender(m);
            if (v.type == ONA_VALUE_NUMBER)
                it->number = v.as.number;
            else if (v.type == ONA_VALUE_BOOLEAN)
                it->boolean = v.as.boolean;
            else if (v.type == ONA_VALUE_STRING)
                snprintf(it->text, sizeof it->text, "%s", v.as.string.bytes);
        }
    }
    return 0;
}

ona_system spawn_collector(ona_runtime *rt) {
    coll = calloc(1, sizeof *coll);
    ona_system_desc d = {
        .name = "collector", .process = collect_process, .user = coll, .mailbox_capacity = 1024};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &h), 0);
    return h;
}

bool collected_contains(const char *needle) {
    for (int i = 0; coll && i < coll->count; i++)
        if (coll->items[i].type == ONA_VALUE_STRING && strstr(coll->items[i].text, needle))
            return true;
    return false;
}

const char *collected_text(void) {
    static char buf[16384];
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; coll && i < coll->count && len + 200 < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s\n", coll->items[i].text);
    return buf;
}

void collector_free(void) {
    free(coll);
    coll = NULL;
}

/* Writes a table {report = <report>, <key> = <value>...} from "key=value" pairs where a value
 * that parses as a number is a number, "true"/"false" are booleans, and anything else a string. */
ona_message make_args(ona_system report, const char *pairs) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_table_begin(&w);
    if (report.id) {
        ona_message_write_string(&w, "report", 6);
        ona_message_write_number(&w, report.id);
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", pairs ? pairs : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        ck_assert_ptr_nonnull(eq);
        *eq = '\0';
        const char *value = eq + 1;
        ona_message_write_string(&w, tok, strlen(tok));
        char *end;
        double d = strtod(value, &end);
        if (*value && *end == '\0')
            ona_message_write_number(&w, d);
        else if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0)
            ona_message_write_boolean(&w, value[0] == 't');
        else
            ona_message_write_string(&w, value, strlen(value));
    }
    ona_message_write_table_end(&w);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    return m;
}

ona_system_stats named_stats(ona_runtime *rt, const char *name) {
    ona_system h;
    ck_assert_msg(ona_runtime_lookup(rt, name, &h) == 0, "no system named %s", name);
    ona_system_stats st;
    ck_assert_int_eq(ona_runtime_system_stats(rt, h, &st), 0);
    return st;
}

ona_system spawn_lua(ona_runtime *rt, const char *script, const char *name, ona_system report,
                     const char *pairs, uint32_t mailbox, ona_failure_policy policy) {
    ona_message args = make_args(report, pairs);
    ona_spawn_desc d = {.script = script,
                        .name = name,
                        .args = &args,
                        .mailbox_capacity = mailbox,
                        .policy = policy};
    ona_system h;
    int rc = ona_runtime_spawn(rt, &d, &h);
    ck_assert_msg(rc == 0, "spawn %s: %s; log:\n%s", script, ona_strerror(rc),
                  captured_logs_text());
    return h;
}

#if defined(__SANITIZE_THREAD__)
#define CHILD_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHILD_UNDER_TSAN 1
#endif
#endif

extern char **environ;

char **child_environment(void) {
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    ck_assert_ptr_nonnull(env);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
#ifdef CHILD_UNDER_TSAN
        if (strncmp(environ[i], "TSAN_OPTIONS=", 13) == 0)
            continue;
#endif
        env[kept++] = environ[i];
    }
#ifdef CHILD_UNDER_TSAN
    env[kept++] = (char *)"TSAN_OPTIONS=report_bugs=0";
#endif
    env[kept] = NULL;
    return env;
}

static char game_dir_path[256];

void game_dir_begin(const char *what) {
    snprintf(game_dir_path, sizeof game_dir_path, "/tmp/ona-%s-XXXXXX", what);
    ck_assert_ptr_nonnull(mkdtemp(game_dir_path));
}

void game_dir_end(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", game_dir_path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", game_dir_path);
}

const char *game_dir(void) {
    return game_dir_path;
}

void game_write(const char *name, const char *text) {
    char path[512], tmp[520];
    snprintf(path, sizeof path, "%s/%s", game_dir_path, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    ck_assert_int_eq(rename(tmp, path), 0);
}

void game_write_in_place(const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", game_dir_path, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

int lua_marked_line(const char *script, const char *mark) {
    char path[1024], needle[80], line[512];
    snprintf(path, sizeof path, "%s/tests/lua/%s", ONA_SOURCE_DIR, script);
    snprintf(needle, sizeof needle, "[%s]", mark);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    int n = 0, found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        n++;
        if (strstr(line, needle))
            found = n;
    }
    fclose(f);
    ck_assert_msg(found > 0, "no line marked %s in %s", needle, script);
    return found;
}

void assert_game_clean(ona_runtime *rt, uint32_t systems) {
    const char *log = captured_logs_text();
    for (const char *line = log; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        ck_assert_msg(strncmp(line, "error:", 6) != 0 && strncmp(line, "warn:", 5) != 0,
                      "logged:\n%s", log);
    }
    ona_system list[64];
    uint32_t n = ona_runtime_systems(rt, list, 64);
    ck_assert_uint_eq(n, systems);
    for (uint32_t i = 0; i < n; i++) {
        ona_system_stats st;
        ck_assert_int_eq(ona_runtime_system_stats(rt, list[i], &st), 0);
        ck_assert_msg(st.errors == 0 && st.restarts == 0, "%s: %u errors, %u restarts\n%s", st.name,
                      st.errors, st.restarts, log);
        ck_assert_msg(st.status == ONA_SYSTEM_RUNNING, "%s is not running\n%s", st.name, log);
    }
}

uint8_t *assert_same_on_1_2_and_4_threads(uint8_t *(*render)(uint32_t threads), size_t bytes) {
    uint8_t *one = render(1), *two = render(2), *four = render(4);
    long differ2 = 0, differ4 = 0;
    for (size_t i = 0; i < bytes; i++) {
        differ2 += one[i] != two[i];
        differ4 += one[i] != four[i];
    }
    ck_assert_msg(differ2 == 0 && differ4 == 0,
                  "bytes that differ from 1 thread: %ld on 2 threads, %ld on 4", differ2, differ4);
    stbi_image_free(two);
    stbi_image_free(four);
    return one;
}

void assert_scripts_without(const char *dir, const char *text) {
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot open %s", dir);
    int scripts = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        ck_assert_msg(f != NULL, "cannot open %s", path);
        static char source[1 << 16];
        size_t n = fread(source, 1, sizeof source - 1, f);
        ck_assert_msg(feof(f), "%s is larger than %zu bytes", path, sizeof source - 1);
        fclose(f);
        source[n] = 0;
        ck_assert_msg(strstr(source, text) == NULL, "%s has %s", path, text);
        scripts++;
    }
    closedir(d);
    ck_assert_msg(scripts > 0, "no scripts in %s", dir);
}

/* --- Runtimes and pictures ------------------------------------------------------------------ */

ona_runtime *create_runtime(const ona_runtime_desc *desc) {
    ona_runtime *rt = NULL;
    int rc = ona_runtime_create(desc, &rt);
    ck_assert_msg(rc == 0, "create: %s\n%s", ona_strerror(rc), captured_logs_text());
    return rt;
}

void step_frames(ona_runtime *rt, int frames) {
    for (int i = 0; i < frames; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

void send_number(ona_runtime *rt, ona_system to, double v) {
    ona_message m;
    ona_message_init(&m);
    ona_message_writer w;
    ona_message_writer_begin(&w, &m);
    ona_message_write_number(&w, v);
    ck_assert_int_eq(ona_message_writer_end(&w), 0);
    ck_assert_int_eq(ona_runtime_send(rt, to, &m), 0);
}

uint8_t *shoot_frames(ona_runtime *rt, int frames, double dt, const char *path, int w, int h) {
    for (int i = 1; i <= frames; i++) {
        if (i == frames)
            ck_assert_int_eq(ona_runtime_screenshot(rt, path), 0);
        ck_assert_int_eq(ona_runtime_step(rt, dt), 0);
    }
    int got_w, got_h, n;
    uint8_t *pixels = stbi_load(path, &got_w, &got_h, &n, 4);
    ck_assert_msg(pixels != NULL, "no screenshot at %s\n%s", path, captured_logs_text());
    ck_assert_int_eq(got_w, w);
    ck_assert_int_eq(got_h, h);
    unlink(path);
    return pixels;
}

static const char *golden_path(const char *name, const char *suffix) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/tests/golden/%s%s", ONA_SOURCE_DIR, name, suffix);
    return path;
}

uint8_t *golden_load(const char *name, const uint8_t *got, int w, int h) {
    const char *golden = golden_path(name, ".png");
    if (getenv("ONA_UPDATE_GOLDEN")) {
        ck_assert(stbi_write_png(golden, w, h, 4, got, w * 4));
        fprintf(stderr, "wrote %s\n", golden);
    }
    int got_w, got_h, n;
    uint8_t *want = stbi_load(golden, &got_w, &got_h, &n, 4);
    ck_assert_msg(want != NULL, "missing %s (run with ONA_UPDATE_GOLDEN=1 once)", golden);
    ck_assert_int_eq(got_w, w);
    ck_assert_int_eq(got_h, h);
    return want;
}

const char *golden_write_actual(const char *name, const uint8_t *got, int w, int h) {
    const char *path = golden_path(name, ".actual.png");
    if (!stbi_write_png(path, w, h, 4, got, w * 4))
        fprintf(stderr, "cannot write %s\n", path);
    return path;
}

void expect_golden(const uint8_t *got, int w, int h, const char *name) {
    uint8_t *want = golden_load(name, got, w, h);
    long values = (long)w * h * 4, differing = 0;
    double total = 0;
    for (long i = 0; i < values; i++) {
        int d = abs((int)got[i] - (int)want[i]);
        total += d;
        if (d > 24)
            differing++;
    }
    stbi_image_free(want);
    if (differing <= values / 200 && total / values < 2.0)
        return;
    const char *actual = golden_write_actual(name, got, w, h);
    ck_abort_msg("%s: %ld channel values differ by more than 24, mean difference %.2f (the "
                 "picture drawn is %s)",
                 name, differing, total / values, actual);
}

/* --- Sound files ---------------------------------------------------------------------------- */

static void put16(FILE *f, uint16_t v) {
    fputc(v & 255, f);
    fputc(v >> 8, f);
}

static void put32(FILE *f, uint32_t v) {
    put16(f, (uint16_t)(v & 0xFFFF));
    put16(f, (uint16_t)(v >> 16));
}

/* Writes a 16-bit PCM WAV of `frames` frames of `value` (on every channel). */
void wav_write(const char *path, uint32_t rate, uint16_t channels, uint32_t frames, int16_t value) {
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    uint32_t data = frames * channels * 2;
    fwrite("RIFF", 1, 4, f);
    put32(f, 36 + data);
    fwrite("WAVEfmt ", 1, 8, f);
    put32(f, 16);
    put16(f, 1); /* PCM */
    put16(f, channels);
    put32(f, rate);
    put32(f, rate * channels * 2);
    put16(f, (uint16_t)(channels * 2));
    put16(f, 16);
    fwrite("data", 1, 4, f);
    put32(f, data);
    for (uint32_t i = 0; i < frames * channels; i++)
        put16(f, (uint16_t)value);
    fclose(f);
}

void file_save_copy(const char *from, const char *to) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s.tmp", to);
    FILE *in = fopen(from, "rb");
    ck_assert_msg(in != NULL, "cannot open %s", from);
    FILE *out = fopen(tmp, "wb");
    ck_assert_ptr_nonnull(out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
    ck_assert_int_eq(rename(tmp, to), 0);
}

/* --- Recordings ------------------------------------------------------------------------------ */

uint8_t *run_session(const game_session *s, uint64_t *diverged, char *why, size_t size) {
    const char *roots[] = {s->root, NULL};
    /* A fresh save folder each run: saves read are not recorded, so every run starts with none. */
    static int runs;
    char saves[96], cmd[128];
    snprintf(saves, sizeof saves, "/tmp/ona-test-session-saves-%d-%d", (int)getpid(), ++runs);
    ona_runtime_desc desc = {.threads = s->threads,
                             .script_roots = roots,
                             .video = s->video,
                             .fixed_dt = s->dt > 0 ? s->dt : ONA_DT_MEASURED,
                             .record_path = s->record,
                             .replay_path = s->replay,
                             .save_dir = saves,
                             .window = {.width = 320, .height = 240}};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "main.lua", "main", report, s->args, 0, 0);
    char shot[128] = "";
    if (s->video == ONA_VIDEO_OFFSCREEN)
        snprintf(shot, sizeof shot, "/tmp/ona-test-session-%d.png", (int)getpid());
    int rc = 0;
    for (int frame = 1; frame <= s->frames && rc == 0 && !ona_runtime_quit_requested(rt); frame++) {
        if (s->input)
            s->input(rt, frame);
        if (shot[0] && frame == s->frames)
            ck_assert_int_eq(ona_runtime_screenshot(rt, shot), 0);
        rc = ona_runtime_step(rt, ona_runtime_frame_dt(rt));
    }
    ck_assert_msg(rc == 0 || rc == ONA_EDIVERGED, "a step failed: %s", ona_strerror(rc));
    *diverged = ona_runtime_replay_diverged(rt, why, size);
    ona_runtime_destroy(rt);
    collector_free();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", saves);
    ck_assert_int_eq(system(cmd), 0);
    if (!shot[0] || *diverged)
        return NULL;
    int w, h, n;
    uint8_t *pixels = stbi_load(shot, &w, &h, &n, 4);
    ck_assert_msg(pixels != NULL, "no screenshot at %s\n%s", shot, captured_logs_text());
    ck_assert_int_eq(w, 320);
    ck_assert_int_eq(h, 240);
    unlink(shot);
    return pixels;
}

void assert_recording_replays(game_session s) {
    char why[768];
    uint64_t diverged;
    s.replay = NULL;
    uint8_t *recorded = run_session(&s, &diverged, why, sizeof why);
    s.replay = s.record;
    s.record = NULL;
    for (uint32_t threads = 1; threads <= 4; threads *= 2) {
        s.threads = threads;
        uint8_t *replayed = run_session(&s, &diverged, why, sizeof why);
        ck_assert_msg(diverged == 0, "%s on %u threads: replay diverged at frame %llu: %s\n%s",
                      s.root, threads, (unsigned long long)diverged, why, captured_logs_text());
        ck_assert_msg((recorded == NULL) == (replayed == NULL) &&
                          (!recorded || memcmp(recorded, replayed, 320 * 240 * 4) == 0),
                      "%s on %u threads: the replay's last picture differs from the recording's",
                      s.root, threads);
        stbi_image_free(replayed);
    }
    stbi_image_free(recorded);
}

/* --- The launcher -------------------------------------------------------------------------- */

static char *read_all(int fd) {
    off_t size = lseek(fd, 0, SEEK_END);
    ck_assert_int_ge(size, 0);
    char *text = malloc((size_t)size + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(pread(fd, text, (size_t)size, 0), size);
    text[size] = '\0';
    return text;
}

launcher_result launcher_run(const char *launcher, const char *scratch, const char *const *args,
                             const char *stdin_path) {
    int n = 0;
    while (args[n])
        n++;
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    ck_assert_ptr_nonnull(argv);
    argv[0] = (char *)launcher;
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    char out_path[512], err_path[512];
    snprintf(out_path, sizeof out_path, "%s/stdout-XXXXXX", scratch);
    snprintf(err_path, sizeof err_path, "%s/stderr-XXXXXX", scratch);
    int out = mkstemp(out_path), err = mkstemp(err_path);
    ck_assert(out >= 0 && err >= 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
    if (stdin_path)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, stdin_path, O_RDONLY, 0);
    pid_t pid;
    char **env = child_environment();
    int rc = posix_spawn(&pid, launcher, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    ck_assert_msg(rc == 0, "posix_spawn %s: %s", launcher, strerror(rc));
    int wstatus;
    ck_assert_int_eq(waitpid(pid, &wstatus, 0), pid);
    launcher_result r = {.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1};
    r.out = read_all(out);
    r.err = read_all(err);
    close(out);
    close(err);
    unlink(out_path);
    unlink(err_path);
    free(argv);
    return r;
}

void launcher_result_free(launcher_result *r) {
    free(r->out);
    free(r->err);
}

/* --- Game files and disk audio ---------------------------------------------------------------- */

const char *game_dir_file(const char *name) {
    static char path[4][1024];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 1024, "%s/%s", game_dir(), name);
    return p;
}

float *disk_audio_read(const char *path, size_t *frames) {
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "no output file %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    float *data = malloc((size_t)n + 8);
    ck_assert(data != NULL && fread(data, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *frames = (size_t)n / 8;
    return data;
}

size_t audio_first_sound(const float *out, size_t frames) {
    for (size_t f = 0; f < frames; f++)
        if (out[f * 2] != 0 || out[f * 2 + 1] != 0)
            return f;
    ck_abort_msg("the output is silent");
    return 0;
}
