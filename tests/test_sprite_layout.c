/*
 * test_sprite_layout.c: the sprite struct is declared twice, in C (ona/gfx.h, what the renderer
 * reads) and as an FFI cdef in scripts/prelude.lua (what ona.gfx.sprites gives Lua to fill).
 * This suite checks that the two agree: size, alignment and every field's offset as LuaJIT's FFI
 * sees them, and the values of a sprite filled in Lua read back through the C struct (which also
 * catches a field whose type differs but whose size does not, such as a float tint).
 *
 * Design note. The field list lives here once, with each field's C offset and a distinct value;
 * a Lua system (tests/lua/lifecycle/sprite_layout.lua) gets the names and values as its spawn
 * args, reports what the FFI says to the collector, fills a one-sprite buffer and sends it to a
 * native system here that keeps it. The sum of the listed fields' sizes must equal
 * sizeof(ona_sprite), so a field added to gfx.h but not to this list fails the test too.
 */
#include "test_support.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua/lifecycle", NULL};

typedef struct field {
    const char *name;
    size_t offset, size;
    bool is_float; /* else uint32_t */
    double value;  /* what Lua writes; exact in a float and in a uint32_t */
} field;

#define FLOAT_FIELD(f, v)                                                                          \
    { #f, offsetof(ona_sprite, f), sizeof(((ona_sprite *)0)->f), true, v }

static const field fields[] = {
    FLOAT_FIELD(x, 1.5),
    FLOAT_FIELD(y, 2.5),
    FLOAT_FIELD(origin_x, 3.5),
    FLOAT_FIELD(origin_y, 4.5),
    FLOAT_FIELD(scale_x, 5.5),
    FLOAT_FIELD(scale_y, 6.5),
    FLOAT_FIELD(rotation, 7.5),
    FLOAT_FIELD(src_x, 8.5),
    FLOAT_FIELD(src_y, 9.5),
    FLOAT_FIELD(src_w, 10.5),
    FLOAT_FIELD(src_h, 11.5),
    {"tint", offsetof(ona_sprite, tint), sizeof(((ona_sprite *)0)->tint), false, 2712847316.0},
};
enum { FIELD_COUNT = sizeof fields / sizeof fields[0] };

/* The sink: keeps the first buffer it receives (read after the frame). */
typedef struct sink {
    ona_buffer *buffer;
} sink;

static int sink_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    sink *s = ona_ctx_user(ctx);
    ona_message *m;
    while (ona_ctx_try_receive(ctx, &m) == 0) {
        ona_message_reader r;
        ona_message_reader_begin(&r, m);
        ona_value v;
        while (ona_message_read(&r, &v) == 0 && v.type != ONA_VALUE_END)
            if (v.type == ONA_VALUE_BUFFER && !s->buffer)
                s->buffer = ona_message_take_buffer(&r);
    }
    return 0;
}

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

/* The number reported after the string `tag` (and, when `name` is given, after `tag`, `name`). */
static bool reported(const char *tag, const char *name, double *out) {
    for (int i = 0; i < coll->count; i++) {
        const item *it = &coll->items[i];
        if (it->type != ONA_VALUE_STRING || strcmp(it->text, tag) != 0)
            continue;
        int at = i + 1;
        if (name) {
            if (at >= coll->count || strcmp(coll->items[at].text, name) != 0)
                continue;
            at++;
        }
        if (at < coll->count && coll->items[at].type == ONA_VALUE_NUMBER) {
            *out = coll->items[at].number;
            return true;
        }
    }
    return false;
}

START_TEST(test_sprite_layout_list_covers_the_struct) {
    size_t total = 0;
    for (int i = 0; i < FIELD_COUNT; i++) {
        total += fields[i].size;
        ck_assert_uint_eq(fields[i].size, 4);
    }
    ck_assert_msg(total == sizeof(ona_sprite),
                  "the fields listed here cover %zu of the %zu bytes of ona_sprite: a field was "
                  "added to ona/gfx.h; add it here (and to the prelude's cdef)",
                  total, sizeof(ona_sprite));
}
END_TEST

START_TEST(test_sprite_layout_ffi_cdef_matches_c_struct) {
    ona_runtime_desc desc = {.threads = 1, .script_roots = roots, .video = ONA_VIDEO_NONE};
    ona_runtime *rt;
    ck_assert_int_eq(ona_runtime_create(&desc, &rt), 0);
    ona_system report = spawn_collector(rt);
    sink s = {0};
    ona_system_desc sd = {.name = "sprite_sink", .process = sink_process, .user = &s};
    ona_system sink_h;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &sd, &sink_h), 0);

    char list[512] = "", args[600];
    size_t len = 0;
    for (int i = 0; i < FIELD_COUNT; i++) {
        int n = snprintf(list + len, sizeof list - len, "%s%s:%.1f", i ? "," : "", fields[i].name,
                         fields[i].value);
        ck_assert(n > 0 && (size_t)n < sizeof list - len);
        len += (size_t)n;
    }
    snprintf(args, sizeof args, "sink=sprite_sink fields=%s", list);
    spawn_lua(rt, "sprite_layout.lua", "layout", report, args, 0, 0);
    ona_runtime_step(rt, 1.0 / 60);
    ona_runtime_step(rt, 1.0 / 60);

    double v;
    ck_assert_msg(reported("size", NULL, &v), "no size reported; log:\n%s", captured_logs_text());
    ck_assert_msg(v == sizeof(ona_sprite), "ffi.sizeof(\"ona_sprite\") is %g, sizeof is %zu", v,
                  sizeof(ona_sprite));
    ck_assert(reported("align", NULL, &v));
    ck_assert_msg(v == _Alignof(ona_sprite), "ffi.alignof is %g, _Alignof is %zu", v,
                  _Alignof(ona_sprite));
    for (int i = 0; i < FIELD_COUNT; i++) {
        const field *f = &fields[i];
        ck_assert_msg(reported("field", f->name, &v), "field %s not reported", f->name);
        ck_assert_msg(v == (double)f->offset,
                      "ffi.offsetof(\"ona_sprite\", \"%s\") is %g, C says %zu", f->name, v,
                      f->offset);
    }

    /* The sprite Lua filled, read as the C struct. */
    ck_assert_msg(s.buffer != NULL, "the sink got no buffer; log:\n%s", captured_logs_text());
    ck_assert_str_eq(ona_buffer_type(s.buffer), "ona_sprite");
    ck_assert_uint_eq(ona_buffer_elem_size(s.buffer), sizeof(ona_sprite));
    ck_assert_uint_eq(ona_buffer_count(s.buffer), 1);
    const unsigned char *bytes = ona_buffer_data(s.buffer);
    for (int i = 0; i < FIELD_COUNT; i++) {
        const field *f = &fields[i];
        double got;
        if (f->is_float) {
            float x;
            memcpy(&x, bytes + f->offset, sizeof x);
            got = x;
        } else {
            uint32_t x;
            memcpy(&x, bytes + f->offset, sizeof x);
            got = x;
        }
        ck_assert_msg(got == f->value, "field %s: Lua wrote %.1f, C reads %.1f", f->name, f->value,
                      got);
    }
    ona_buffer_destroy(s.buffer);
    ona_runtime_destroy(rt);
}
END_TEST

int main(void) {
    Suite *suite = suite_create("sprite_layout");
    TCase *tc = tcase_create("layout");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_sprite_layout_list_covers_the_struct);
    tcase_add_test(tc, test_sprite_layout_ffi_cdef_matches_c_struct);
    suite_add_tcase(suite, tc);
    return run_suite(suite);
}
