/*
 * test_keys.c: key names. LÖVE's names (love.keyboard's KeyConstant list) are accepted beside
 * SDL's in pushed events, in ona.input.key_down and in ona_ctx_key_down; events carry SDL's name
 * in `key` and LÖVE's in `love_key`; every LÖVE constant is accepted, and the shifted characters
 * no scancode carries are refused with their own message.
 */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

static const char *roots[2];

static void setup(void) {
    capture_logs_begin();
    roots[0] = ONA_SOURCE_DIR "/tests/lua";
    roots[1] = NULL;
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

static void push_key(ona_runtime *rt, ona_event_type type, const char *name) {
    ona_event e = {.type = type};
    snprintf(e.as.key.name, sizeof e.as.key.name, "%s", name);
    ck_assert_int_eq(ona_runtime_push_event(rt, &e), 0);
}

START_TEST(test_keys_both_names_in_events_and_queries) {
    ona_runtime_desc desc = {.threads = 2, .script_roots = roots};
    ona_runtime *rt = create_runtime(&desc);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "keys_probe.lua", "probe", report, "", 0, 0);
    /* Named LÖVE's way, SDL's way and in SDL's case: each arrives under both names, held. */
    const char *pushed[] = {"lshift",    "kpenter", "PageUp", "return",    "escape", "space",
                            "backspace", "kp0",     "lctrl",  "Right Alt", "lgui",   "a"};
    for (size_t i = 0; i < sizeof pushed / sizeof pushed[0]; i++)
        push_key(rt, ONA_EVENT_KEY_DOWN, pushed[i]);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ASSERT_COLLECTED("key left shift | lshift | true true");
    ASSERT_COLLECTED("key keypad enter | kpenter | true true");
    ASSERT_COLLECTED("key pageup | pageup | true true");
    ASSERT_COLLECTED("key return | return | true true");
    ASSERT_COLLECTED("key escape | escape | true true");
    ASSERT_COLLECTED("key space | space | true true");
    ASSERT_COLLECTED("key backspace | backspace | true true");
    ASSERT_COLLECTED("key keypad 0 | kp0 | true true");
    ASSERT_COLLECTED("key left ctrl | lctrl | true true");
    ASSERT_COLLECTED("key right alt | ralt | true true");
    ASSERT_COLLECTED("key left gui | lgui | true true");
    ASSERT_COLLECTED("key a | a | true true");
    /* Every LÖVE constant: none refused but the shifted characters, which all were. */
    bool checked = false;
    for (int i = 0; i < coll->count; i++) {
        if (coll->items[i].type == ONA_VALUE_STRING &&
            strcmp(coll->items[i].text, "love names") == 0) {
            ck_assert(coll->items[i + 1].number == 146);
            ck_assert_msg(coll->items[i + 2].text[0] == '\0', "refused: %s",
                          coll->items[i + 2].text);
            checked = true;
        }
    }
    ck_assert_msg(checked, "%s", collected_text());
    /* Released under the other name: up in both. */
    push_key(rt, ONA_EVENT_KEY_UP, "left shift");
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ASSERT_COLLECTED("key left shift | lshift | false false");
    ona_runtime_destroy(rt);
}
END_TEST

static int held_love, held_sdl, unknown;

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    held_love = ona_ctx_key_down(ctx, "kpenter");
    held_sdl = ona_ctx_key_down(ctx, "Keypad Enter");
    unknown = ona_ctx_key_down(ctx, "kpreturn");
    return 0;
}

START_TEST(test_keys_c_api) {
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots};
    ona_runtime *rt = create_runtime(&desc);
    ona_system sys;
    ck_assert_int_eq(ona_runtime_spawn_native(
                         rt, &(ona_system_desc){.name = "native", .process = native_process}, &sys),
                     0);
    push_key(rt, ONA_EVENT_KEY_DOWN, "kpenter");
    ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
    ck_assert_int_eq(held_love, 1);
    ck_assert_int_eq(held_sdl, 1);
    ck_assert_int_eq(unknown, ONA_EINVAL);
    ck_assert_str_eq(ona_key_love_name("left shift"), "lshift");
    ck_assert_str_eq(ona_key_love_name("keypad 7"), "kp7");
    ck_assert_str_eq(ona_key_love_name("ac back"), "appback");
    ck_assert_str_eq(ona_key_love_name("return"), "return");
    ck_assert_str_eq(ona_key_love_name("f24"), "f24"); /* LÖVE stops at f18: SDL's name */
    ck_assert_ptr_null(ona_key_love_name(NULL));
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *keys_suite(void) {
    Suite *s = suite_create("keys");
    TCase *tc = tcase_create("keys");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_keys_both_names_in_events_and_queries);
    tcase_add_test(tc, test_keys_c_api);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(keys_suite());
}
