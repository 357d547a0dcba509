/*
 * test_inspect_page.c: the inspector with a running sample (samples/invaders, autoplaying,
 * offscreen): paused from the inspector, the window is still drawn and polled; and, where
 * Debian's chromium is installed, the page in a real headless Chromium, driven over the DevTools
 * protocol (--remote-debugging-pipe): the systems table lists the sample's systems, an eval typed
 * key by key into the console pane changes a value the next frames show, and a screenshot is
 * left in the build folder's test-output/.
 *
 * The browser is driven from a thread of the test's while main steps the game's frames; that
 * thread never calls Check: it stores what it saw, and main asserts after joining it.
 */
#include "inspect_client.h"

#include <SDL.h>
#include <stb_image.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The sample's systems, as its main.lua names them. */
static const char *const sample_systems[] = {
    "input", "game", "player", "invaders", "bullets", "shields", "collisions", "score", "ui", NULL};

static void start(void) {
    capture_logs_begin();
    game_dir_begin("inspect_page");
    static const char *const roots[] = {ONA_SOURCE_DIR "/samples/invaders", NULL};
    ona_runtime_desc d = {.threads = 2,
                          .script_roots = roots,
                          .video = ONA_VIDEO_OFFSCREEN,
                          .no_audio = true,
                          .window = {.width = 640, .height = 480},
                          .inspect = "127.0.0.1:0",
                          .inspect_token = TOKEN};
    ck_assert_msg(ona_runtime_create(&d, &rt) == 0, "%s", captured_logs_text());
    inspect_client_attach();
    ona_message args = make_args((ona_system){0}, "autoplay=1");
    ona_system main_system;
    ck_assert_msg(ona_runtime_spawn(rt, &(ona_spawn_desc){.script = "main.lua", .args = &args},
                                    &main_system) == 0,
                  "%s", captured_logs_text());
    ona_message_release(&args);
    for (int i = 0; i < 30; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

static void stop(void) {
    ona_runtime_destroy(rt);
    rt = NULL;
    game_dir_end();
    capture_logs_end();
}

static uint64_t frames(void) {
    ona_runtime_stats st;
    ck_assert_int_eq(ona_runtime_stats_get(rt, &st), 0);
    return st.frames;
}

/* --- The window while paused ----------------------------------------------------------------- */

START_TEST(test_inspect_paused_game_keeps_its_window_drawn_and_polled) {
    ck_assert_int_eq(POST("/api/pause", "{}"), 200);
    uint64_t at = frames();
    char first[512], second[512];
    snprintf(first, sizeof first, "%s/held-1.png", game_dir());
    snprintf(second, sizeof second, "%s/held-2.png", game_dir());
    /* A screenshot is taken when a frame is presented: held steps present the last one. */
    ck_assert_int_eq(ona_runtime_screenshot(rt, first), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(ona_runtime_screenshot(rt, second), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_uint_eq(frames(), at);
    int w1, h1, w2, h2, n;
    unsigned char *a = stbi_load(first, &w1, &h1, &n, 4);
    unsigned char *b = stbi_load(second, &w2, &h2, &n, 4);
    ck_assert_msg(a && b, "no screenshot while paused:\n%s", captured_logs_text());
    ck_assert_int_eq(w1, w2);
    ck_assert_int_eq(h1, h2);
    ck_assert_msg(memcmp(a, b, (size_t)w1 * (size_t)h1 * 4) == 0,
                  "the held picture changed while paused");
    /* The last frame, not a cleared screen: the picture has more than one colour. */
    uint32_t colours = 0, first_px;
    memcpy(&first_px, a, 4);
    for (size_t i = 0; i < (size_t)w1 * (size_t)h1; i++) {
        uint32_t px;
        memcpy(&px, a + i * 4, 4);
        colours += px != first_px;
    }
    ck_assert_msg(colours > 100, "the held picture is blank (%u pixels differ)", colours);
    stbi_image_free(a);
    stbi_image_free(b);
    /* The window is polled: closing it while paused ends the game. */
    ck_assert(!ona_runtime_quit_requested(rt));
    SDL_Event quit = {.type = SDL_QUIT};
    ck_assert_int_eq(SDL_PushEvent(&quit), 1);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert(ona_runtime_quit_requested(rt));
    ck_assert_uint_eq(frames(), at);
}
END_TEST

#ifdef ONA_CHROMIUM_PATH
/* --- The page in a real browser -------------------------------------------------------------- */

#include "cdp_client.h"

#include <pthread.h>

/* What the browser's thread saw. */
typedef struct page_run {
    char url[256], profile[512], log[512], shot[512];
    char error[1400];
    char rows[1024];
    double heap_before, heap_after;
    char console[1024];
    atomic_bool done;
} page_run;

/* The score system's heap in the table, in KB. */
#define HEAP_JS                                                                                    \
    "+document.querySelector('#systems tbody tr[data-name=\"score\"]').cells[7].textContent"
#define EVAL_TYPED "state.ballast = string.rep(\"x\", 4000000) return #state.ballast"

static double number_of(cdp *c, const char *expr, bool *ok) {
    json_t *v = *ok ? cdp_eval(c, expr) : NULL;
    *ok = *ok && json_is_number(v);
    double n = json_number_value(v);
    json_decref(v);
    return n;
}

static void text_of(cdp *c, const char *expr, char *out, size_t size, bool *ok) {
    json_t *v = *ok ? cdp_eval(c, expr) : NULL;
    *ok = *ok && json_is_string(v);
    snprintf(out, size, "%s", json_is_string(v) ? json_string_value(v) : "");
    json_decref(v);
}

static void *drive(void *arg) {
    page_run *p = arg;
    cdp *c = cdp_open(ONA_CHROMIUM_PATH, p->profile, p->log, 1400, 1000);
    bool ok = c != NULL;
    /* The page is live and lists the systems. */
    ok = ok && cdp_navigate(c, p->url) &&
         cdp_wait_for(c, "document.getElementById('conn').textContent === 'live' && "
                         "document.querySelector('#systems tbody tr[data-name=\"ui\"]') !== null");
    text_of(c,
            "' ' + Array.from(document.querySelectorAll('#systems tbody tr'))"
            ".map((r) => r.dataset.name).join(' ') + ' '",
            p->rows, sizeof p->rows, &ok);
    p->heap_before = number_of(c, HEAP_JS, &ok);
    /* An eval typed into the console pane, key by key, then Enter. */
    char picked[64];
    text_of(c,
            "(() => { const p = document.getElementById('picker'); p.value = 'score'; "
            "document.getElementById('code').focus(); "
            "return document.activeElement.id + ':' + p.value; })()",
            picked, sizeof picked, &ok);
    ok = ok && strcmp(picked, "code:score") == 0 && cdp_type(c, EVAL_TYPED, true) &&
         cdp_wait_for(c, "Array.from(document.querySelectorAll('#console-out .res'))"
                         ".some((d) => d.textContent === '4000000')");
    /* Its effect in the frames that follow: the 4 MB string is on score's heap. */
    char heap_grew[256];
    snprintf(heap_grew, sizeof heap_grew, "%s > %f", HEAP_JS, p->heap_before + 3000);
    ok = ok && cdp_wait_for(c, heap_grew);
    p->heap_after = number_of(c, HEAP_JS, &ok);
    text_of(c, "document.getElementById('console-out').textContent", p->console, sizeof p->console,
            &ok);
    /* The mailbox of a system clicked in the table, the graph's message rates, then the
     * picture. */
    json_decref(ok ? cdp_eval(c, "document.querySelector('#systems tbody "
                                 "tr[data-name=\"collisions\"]').click()")
                   : NULL);
    ok = ok &&
         cdp_wait_for(c, "document.getElementById('mailbox').textContent.includes('from ')") &&
         cdp_wait_for(c, "+document.getElementById('graph').dataset.flowing > 0") &&
         cdp_screenshot(c, p->shot);
    if (!ok)
        snprintf(p->error, sizeof p->error, "%s", cdp_error(c));
    cdp_close(c);
    atomic_store_explicit(&p->done, true, memory_order_release); /* main reads it next */
    return NULL;
}

static const char *log_tail(const char *path) {
    static char text[4096];
    text[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return text;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size > 4000 ? size - 4000 : 0, SEEK_SET);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

START_TEST(test_inspect_page_in_chromium_lists_systems_and_runs_a_typed_eval) {
    static page_run p;
    memset(&p, 0, sizeof p);
    ck_assert_int_eq(ona_runtime_inspect_url(rt, p.url, sizeof p.url), 0);
    snprintf(p.profile, sizeof p.profile, "%s/profile", game_dir());
    snprintf(p.log, sizeof p.log, "%s/chromium.log", game_dir());
    snprintf(p.shot, sizeof p.shot, "%s/inspect-page.png", ONA_TEST_OUTPUT_DIR);
    unlink(p.shot);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, drive, &p), 0);
    /* The game runs at about 60 frames a second meanwhile, leaving the browser a core. */
    while (!atomic_load_explicit(&p.done, memory_order_acquire)) {
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
        usleep(12000);
    }
    pthread_join(t, NULL);
    ck_assert_msg(!p.error[0], "%s\nconsole pane: %s\nChromium's log:\n%s", p.error, p.console,
                  log_tail(p.log));
    for (const char *const *name = sample_systems; *name; name++) {
        char word[64];
        snprintf(word, sizeof word, " %s ", *name);
        ck_assert_msg(strstr(p.rows, word), "no row for %s in the table:%s", *name, p.rows);
    }
    ck_assert_msg(strstr(p.console, "score> " EVAL_TYPED), "the typed eval: %s", p.console);
    ck_assert_msg(p.heap_after > p.heap_before + 3000, "score's heap %.0f KB -> %.0f KB",
                  p.heap_before, p.heap_after);
    struct stat st;
    ck_assert_msg(stat(p.shot, &st) == 0 && st.st_size > 1000, "no screenshot at %s", p.shot);
}
END_TEST
#endif

int main(void) {
    Suite *s = suite_create("inspect_page");
    TCase *window = tcase_create("window");
    tcase_add_checked_fixture(window, start, stop);
    tcase_set_timeout(window, 240);
    tcase_add_test(window, test_inspect_paused_game_keeps_its_window_drawn_and_polled);
    suite_add_tcase(s, window);
#ifdef ONA_CHROMIUM_PATH
    TCase *page = tcase_create("chromium");
    tcase_add_checked_fixture(page, start, stop);
    tcase_set_timeout(page, 300);
    tcase_add_test(page, test_inspect_page_in_chromium_lists_systems_and_runs_a_typed_eval);
    suite_add_tcase(s, page);
#endif
    return run_suite(s);
}
