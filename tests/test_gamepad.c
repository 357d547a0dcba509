/*
 * test_gamepad.c: gamepads and native input, with SDL's virtual joysticks as game
 * controllers under the offscreen video driver: hot-plug events reach Lua and native systems;
 * buttons and axes read by name; dead zones applied and changed from Lua and C; rumble reaches
 * the pad in spawn order (a virtual pad's rumble callback records it) and is refused by a pad
 * without motors; a native system reads the key and mouse events pushed with
 * ona_runtime_push_event; misuse from Lua raises at the author's line. The runtime tests run on
 * 1 and 2 worker threads and expect the same results.
 */
#include "test_support.h"

#include <SDL.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const roots[] = {ONA_SOURCE_DIR "/tests/lua", NULL};

static void setup(void) {
    capture_logs_begin();
}

static void teardown(void) {
    capture_logs_end();
    collector_free();
}

static ona_runtime *make_runtime(uint32_t threads, ona_video video) {
    ona_runtime_desc desc = {.threads = threads,
                             .script_roots = roots,
                             .video = video,
                             .window = {.width = 64, .height = 64}};
    return create_runtime(&desc);
}

static void step(ona_runtime *rt, int frames) {
    for (int i = 0; i < frames; i++)
        ck_assert_int_eq(ona_runtime_step(rt, 1.0 / 60), 0);
}

/* --- Virtual pads ----------------------------------------------------------------------------- */

enum { MAX_RUMBLES = 16 };

/* What a virtual pad's rumble callback received, in order. Called on main (by the runtime's
 * present, or SDL's update), read by the test on main. */
typedef struct rumble_log {
    int count;
    Uint16 low[MAX_RUMBLES], high[MAX_RUMBLES];
} rumble_log;

static int SDLCALL on_rumble(void *user, Uint16 low, Uint16 high) {
    rumble_log *r = user;
    if (r->count < MAX_RUMBLES) {
        r->low[r->count] = low;
        r->high[r->count] = high;
    }
    r->count++;
    return 0;
}

/* Attaches a virtual game controller with every standard button and axis (rumble motors when
 * `rumble` is given) and opens it as a joystick, so the test can move its sticks. */
static SDL_Joystick *attach_pad(const char *name, rumble_log *rumble) {
    SDL_VirtualJoystickDesc d;
    SDL_zero(d);
    d.version = SDL_VIRTUAL_JOYSTICK_DESC_VERSION;
    d.type = SDL_JOYSTICK_TYPE_GAMECONTROLLER;
    d.naxes = SDL_CONTROLLER_AXIS_MAX;
    d.nbuttons = SDL_CONTROLLER_BUTTON_MAX;
    d.button_mask = (1u << SDL_CONTROLLER_BUTTON_MAX) - 1;
    d.axis_mask = (1u << SDL_CONTROLLER_AXIS_MAX) - 1;
    d.name = name;
    if (rumble) {
        d.Rumble = on_rumble;
        d.userdata = rumble;
    }
    int device = SDL_JoystickAttachVirtualEx(&d);
    ck_assert_msg(device >= 0, "attach: %s", SDL_GetError());
    SDL_Joystick *j = SDL_JoystickOpen(device);
    ck_assert_msg(j != NULL, "open: %s", SDL_GetError());
    return j;
}

static void detach_pad(SDL_Joystick *j) {
    SDL_JoystickID id = SDL_JoystickInstanceID(j);
    SDL_JoystickClose(j);
    for (int i = 0; i < SDL_NumJoysticks(); i++) {
        if (SDL_JoystickGetDeviceInstanceID(i) == id) {
            ck_assert_int_eq(SDL_JoystickDetachVirtual(i), 0);
            return;
        }
    }
    ck_abort_msg("virtual pad %d not found", (int)id);
}

static void set_axis(SDL_Joystick *j, SDL_GameControllerAxis axis, float v) {
    ck_assert_int_eq(SDL_JoystickSetVirtualAxis(j, axis, (Sint16)lroundf(v * 32767)), 0);
}

/* A trigger from released (0) to fully pressed (1): SDL maps a virtual controller's trigger axes
 * from the whole joystick range. */
static void set_trigger(SDL_Joystick *j, SDL_GameControllerAxis axis, float t) {
    Sint16 raw = (Sint16)lroundf(-32768.0f + t * 65535.0f);
    ck_assert_int_eq(SDL_JoystickSetVirtualAxis(j, axis, raw), 0);
}

/* --- What the systems saw --------------------------------------------------------------------- */

/* A native system that records its view of the input each frame and, on chosen frames, queues
 * rumble and dead-zone commands. It runs on a worker; the test reads `seen` after a step (the
 * frame's end orders the two). */
typedef struct native_view {
    ona_event events[64];
    int event_count;
    ona_gamepad_state pad;
    int pad_rc, bad_slot_rc;
    int space, bad_key;
    float mouse_x, mouse_y;
    uint32_t mouse_buttons;
    uint64_t rumble_at, deadzone_at;
    int rumble_slot;
    float low, high, stick, trigger;
    int rumble_rc, deadzone_rc, bad_rumble_rc;
} native_view;

static native_view seen;

static int native_process(ona_ctx *ctx, void *state, double dt) {
    (void)state, (void)dt;
    uint32_t n = 0;
    const ona_event *events = ona_ctx_events(ctx, &n);
    for (uint32_t i = 0; i < n && seen.event_count < 64; i++)
        seen.events[seen.event_count++] = events[i];
    seen.pad_rc = ona_ctx_gamepad(ctx, 1, &seen.pad);
    ona_gamepad_state ignored;
    seen.bad_slot_rc = ona_ctx_gamepad(ctx, ONA_GAMEPAD_MAX + 1, &ignored);
    seen.space = ona_ctx_key_down(ctx, "space");
    seen.bad_key = ona_ctx_key_down(ctx, "no such key");
    ona_ctx_mouse(ctx, &seen.mouse_x, &seen.mouse_y, &seen.mouse_buttons);
    seen.bad_rumble_rc = ona_ctx_rumble(ctx, 1, 2.0f, 0, 1);
    if (ona_ctx_frame(ctx) == seen.rumble_at)
        seen.rumble_rc = ona_ctx_rumble(ctx, seen.rumble_slot, seen.low, seen.high, 30);
    if (ona_ctx_frame(ctx) == seen.deadzone_at)
        seen.deadzone_rc = ona_ctx_gamepad_deadzone(ctx, 1, seen.stick, seen.trigger);
    return 0;
}

static void spawn_native(ona_runtime *rt) {
    memset(&seen, 0, sizeof seen);
    ona_system_desc d = {.name = "native", .process = native_process};
    ona_system h;
    ck_assert_int_eq(ona_runtime_spawn_native(rt, &d, &h), 0);
}

/* The native system saw an event of `type` for slot `index` (and `name` unless NULL). */
static const ona_event *native_saw(ona_event_type type, int index, const char *name) {
    for (int i = 0; i < seen.event_count; i++) {
        const ona_event *e = &seen.events[i];
        if (e->type == type && e->as.gamepad.index == index &&
            (!name || strcmp(e->as.gamepad.name, name) == 0))
            return e;
    }
    return NULL;
}

/* The index in the collector of the last message starting with the string `tag`, or -1. */
static int last_report(const char *tag) {
    for (int i = coll->count - 1; i >= 0; i--)
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, tag) == 0)
            return i;
    return -1;
}

/* The probe reported ("event", type, index, name, value): returns the index of the value. */
static int lua_saw(const char *type, int index, const char *name) {
    for (int i = 0; i + 4 < coll->count; i++) {
        const item *it = coll->items + i;
        if (it[0].type == ONA_VALUE_STRING && strcmp(it[0].text, "event") == 0 &&
            strcmp(it[1].text, type) == 0 && it[2].number == index &&
            (!name || strcmp(it[3].text, name) == 0))
            return i + 4;
    }
    return -1;
}

static int lua_count(const char *type, const char *name) {
    int n = 0;
    for (int i = 0; i + 4 < coll->count; i++) {
        const item *it = coll->items + i;
        if (it[0].type == ONA_VALUE_STRING && strcmp(it[0].text, "event") == 0 &&
            strcmp(it[1].text, type) == 0 && strcmp(it[3].text, name) == 0)
            n++;
    }
    return n;
}

/* The probe's last ("state", connected, a, dpleft, leftx, lefty, triggerright, count, name). */
typedef struct lua_state_report {
    bool connected, a, dpleft;
    double leftx, lefty, triggerright;
    int count;
    const char *name;
} lua_state_report;

static lua_state_report lua_state(void) {
    int i = last_report("state");
    ck_assert_msg(i >= 0 && i + 8 < coll->count, "no state report\n%s", captured_logs_text());
    const item *it = coll->items + i;
    return (lua_state_report){it[1].boolean, it[2].boolean, it[3].boolean,     it[4].number,
                              it[5].number,  it[6].number,  (int)it[7].number, it[8].text};
}

#define ck_assert_near(a, b)                                                                       \
    ck_assert_msg(fabs((double)(a) - (double)(b)) < 2e-3, "%f != %f", (double)(a), (double)(b))

/* --- Tests ------------------------------------------------------------------------------------ */

START_TEST(test_gamepad_hotplug_reaches_lua_and_native) {
    ona_runtime *rt = make_runtime((uint32_t)_i, ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "gamepad/probe.lua", "probe", report, "", 0, 0);
    spawn_native(rt);
    step(rt, 2);
    ck_assert(!lua_state().connected);
    ck_assert_int_eq(lua_state().count, 0);
    ck_assert(!seen.pad.connected);

    SDL_Joystick *j = attach_pad("Ona Test Pad", NULL);
    step(rt, 3);
    ck_assert_msg(lua_saw("gamepad_added", 1, NULL) >= 0, "no added event in Lua\n%s",
                  captured_logs_text());
    ck_assert_ptr_nonnull(native_saw(ONA_EVENT_GAMEPAD_ADDED, 1, NULL));
    lua_state_report s = lua_state();
    ck_assert(s.connected);
    ck_assert_int_eq(s.count, 1);
    ck_assert_str_eq(s.name, seen.pad.name);
    ck_assert(seen.pad.connected);
    ck_assert(!seen.pad.rumble);
    ck_assert_int_eq(seen.pad_rc, 0);
    ck_assert_int_eq(seen.bad_slot_rc, ONA_EINVAL);
    ck_assert(captured_logs_contain("gamepad 1 connected"));

    detach_pad(j);
    step(rt, 3);
    ck_assert(lua_saw("gamepad_removed", 1, NULL) >= 0);
    ck_assert_ptr_nonnull(native_saw(ONA_EVENT_GAMEPAD_REMOVED, 1, NULL));
    ck_assert(!lua_state().connected);
    ck_assert_int_eq(lua_state().count, 0);
    ck_assert(!seen.pad.connected);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_gamepad_buttons_and_axes_by_name) {
    ona_runtime *rt = make_runtime((uint32_t)_i, ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "gamepad/probe.lua", "probe", report, "", 0, 0);
    spawn_native(rt);
    SDL_Joystick *j = attach_pad("Ona Test Pad", NULL);
    step(rt, 2);
    ck_assert_int_eq(SDL_JoystickSetVirtualButton(j, SDL_CONTROLLER_BUTTON_A, 1), 0);
    ck_assert_int_eq(SDL_JoystickSetVirtualButton(j, SDL_CONTROLLER_BUTTON_DPAD_LEFT, 1), 0);
    set_axis(j, SDL_CONTROLLER_AXIS_LEFTX, 0.5f);
    set_trigger(j, SDL_CONTROLLER_AXIS_TRIGGERRIGHT, 1);
    step(rt, 3);

    /* Outside the stick's 0.2 radial dead zone, 0.5 is rescaled to (0.5 - 0.2) / 0.8. */
    lua_state_report s = lua_state();
    ck_assert(s.a && s.dpleft);
    ck_assert_near(s.leftx, 0.375);
    ck_assert_near(s.lefty, 0);
    ck_assert_near(s.triggerright, 1);
    ck_assert(lua_saw("gamepad_button_down", 1, "a") >= 0);
    ck_assert(lua_saw("gamepad_button_down", 1, "dpleft") >= 0);
    int v = lua_saw("gamepad_axis", 1, "leftx");
    ck_assert_msg(v >= 0, "no leftx event\n%s", captured_logs_text());
    ck_assert_near(coll->items[v].number, 0.375);
    /* One axis event when the axis changed, none for the frames after. */
    ck_assert_int_eq(lua_count("gamepad_axis", "leftx"), 1);
    ck_assert_int_eq(lua_count("gamepad_axis", "lefty"), 0);

    ck_assert_uint_eq(seen.pad.buttons, (1u << ONA_GAMEPAD_A) | (1u << ONA_GAMEPAD_DPLEFT));
    ck_assert_near(seen.pad.axes[ONA_GAMEPAD_LEFTX], 0.375);
    ck_assert_near(seen.pad.axes[ONA_GAMEPAD_TRIGGERRIGHT], 1);
    const ona_event *e = native_saw(ONA_EVENT_GAMEPAD_AXIS, 1, "righttrigger");
    ck_assert_ptr_nonnull(e);
    ck_assert_near(e->as.gamepad.value, 1);
    ck_assert_ptr_nonnull(native_saw(ONA_EVENT_GAMEPAD_BUTTON_DOWN, 1, "a"));

    ck_assert_int_eq(SDL_JoystickSetVirtualButton(j, SDL_CONTROLLER_BUTTON_A, 0), 0);
    step(rt, 3);
    ck_assert(lua_saw("gamepad_button_up", 1, "a") >= 0);
    ck_assert_ptr_nonnull(native_saw(ONA_EVENT_GAMEPAD_BUTTON_UP, 1, "a"));
    ck_assert(!lua_state().a && lua_state().dpleft);
    ck_assert_uint_eq(seen.pad.buttons, 1u << ONA_GAMEPAD_DPLEFT);

    /* The names both ways, and the same as SDL's. */
    for (int b = 0; b < ONA_GAMEPAD_BUTTON_COUNT; b++)
        ck_assert_str_eq(ona_gamepad_button_name((ona_gamepad_button)b),
                         SDL_GameControllerGetStringForButton((SDL_GameControllerButton)b));
    for (int a = 0; a < ONA_GAMEPAD_AXIS_COUNT; a++)
        ck_assert_str_eq(ona_gamepad_axis_name((ona_gamepad_axis)a),
                         SDL_GameControllerGetStringForAxis((SDL_GameControllerAxis)a));
    ck_assert_str_eq(ona_gamepad_button_name(ONA_GAMEPAD_DPLEFT), "dpleft");
    ck_assert_str_eq(ona_gamepad_axis_name(ONA_GAMEPAD_TRIGGERRIGHT), "righttrigger");
    ck_assert_int_eq(ona_gamepad_button_from_name("rightshoulder"), ONA_GAMEPAD_RIGHTSHOULDER);
    ck_assert_int_eq(ona_gamepad_axis_from_name("lefty"), ONA_GAMEPAD_LEFTY);
    ck_assert_int_eq(ona_gamepad_button_from_name("nope"), -1);
    ck_assert_ptr_null(ona_gamepad_axis_name(ONA_GAMEPAD_AXIS_COUNT));
    detach_pad(j);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_gamepad_dead_zones) {
    ona_runtime *rt = make_runtime((uint32_t)_i, ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(rt);
    /* Frame 5: the probe narrows the dead zones to 0.05 (stick) and 0.02 (trigger). */
    spawn_lua(rt, "gamepad/probe.lua", "probe", report, "deadzone_at=5 stick=0.05 trigger=0.02", 0,
              0);
    spawn_native(rt);
    SDL_Joystick *j = attach_pad("Ona Test Pad", NULL);
    step(rt, 1);
    /* Inside the defaults: the stick at (0.1, 0.1) is 0.14 from the centre (< 0.2), the trigger
     * at 0.05 (< 0.1). */
    set_axis(j, SDL_CONTROLLER_AXIS_LEFTX, 0.1f);
    set_axis(j, SDL_CONTROLLER_AXIS_LEFTY, 0.1f);
    set_trigger(j, SDL_CONTROLLER_AXIS_TRIGGERRIGHT, 0.05f);
    step(rt, 3);
    lua_state_report s = lua_state();
    ck_assert(s.connected);
    ck_assert_near(s.leftx, 0);
    ck_assert_near(s.lefty, 0);
    ck_assert_near(s.triggerright, 0);
    ck_assert_int_eq(lua_count("gamepad_axis", "leftx"), 0);
    ck_assert_int_eq(lua_count("gamepad_axis", "righttrigger"), 0);
    ck_assert_near(seen.pad.deadzone_stick, ONA_GAMEPAD_DEADZONE_STICK);
    ck_assert_near(seen.pad.deadzone_trigger, ONA_GAMEPAD_DEADZONE_TRIGGER);

    /* After the probe's change (frame 5, seen from frame 6). */
    step(rt, 3);
    double m = sqrt(0.02), scaled = (m - 0.05) / 0.95;
    s = lua_state();
    ck_assert_near(s.leftx, 0.1 / m * scaled);
    ck_assert_near(s.lefty, 0.1 / m * scaled);
    ck_assert_near(s.triggerright, (0.05 - 0.02) / 0.98);
    ck_assert_near(seen.pad.deadzone_stick, 0.05);
    ck_assert_int_eq(lua_count("gamepad_axis", "leftx"), 1);

    /* From C: a wide zone puts the stick back at rest. */
    seen.stick = 0.5f, seen.trigger = 0.5f;
    seen.deadzone_at = 8;
    step(rt, 3);
    ck_assert_int_eq(seen.deadzone_rc, 0);
    ck_assert_near(seen.pad.deadzone_stick, 0.5);
    ck_assert_near(seen.pad.axes[ONA_GAMEPAD_LEFTX], 0);
    ck_assert_near(seen.pad.axes[ONA_GAMEPAD_TRIGGERRIGHT], 0);
    ck_assert_near(lua_state().leftx, 0);
    ck_assert_ptr_nonnull(native_saw(ONA_EVENT_GAMEPAD_AXIS, 1, "leftx"));
    detach_pad(j);
    ona_runtime_destroy(rt);
}
END_TEST

START_TEST(test_gamepad_rumble_in_spawn_order) {
    ona_runtime *rt = make_runtime((uint32_t)_i, ONA_VIDEO_OFFSCREEN);
    ona_system report = spawn_collector(rt);
    rumble_log motors = {0};
    SDL_Joystick *with = attach_pad("Rumble Pad", &motors);
    SDL_Joystick *without = attach_pad("Quiet Pad", NULL);
    /* Both ask on frame 3; the later-spawned one's request is applied last, on any threads. */
    spawn_lua(rt, "gamepad/probe.lua", "first", report, "rumble_at=3 low=0.25 high=0.5", 0, 0);
    spawn_lua(rt, "gamepad/probe.lua", "second", report, "rumble_at=3 low=1 high=0.75", 0, 0);
    spawn_lua(rt, "gamepad/probe.lua", "quiet", report, "rumble_at=3 slot=2 low=1 high=1", 0, 0);
    spawn_native(rt);
    seen.rumble_at = 3;
    seen.rumble_slot = 2;
    seen.low = seen.high = 1;
    step(rt, 5);
    int results = 0, accepted = 0;
    for (int i = 0; i + 1 < coll->count; i++) {
        if (coll->items[i].type == ONA_VALUE_STRING && strcmp(coll->items[i].text, "rumble") == 0) {
            results++;
            accepted += coll->items[i + 1].boolean;
        }
    }
    ck_assert_int_eq(results, 3);
    ck_assert_int_eq(accepted, 2); /* the quiet pad has no motors */
    ck_assert_int_eq(seen.rumble_rc, 0);
    ck_assert_int_eq(seen.bad_rumble_rc, ONA_EINVAL);
    ck_assert_msg(motors.count >= 2, "rumble calls: %d", motors.count);
    ck_assert_uint_eq(motors.low[0], 16384); /* lround(0.25 * 65535) */
    ck_assert_uint_eq(motors.high[0], 32768);
    ck_assert_uint_eq(motors.low[1], 65535);
    ck_assert_uint_eq(motors.high[1], 49151);

    /* A native system rumbles the first pad. */
    int before = motors.count;
    seen.rumble_slot = 1;
    seen.low = 0.5f, seen.high = 0;
    seen.rumble_at = 6; /* the next frame */
    step(rt, 2);
    ck_assert_int_eq(seen.rumble_rc, 1);
    /* SDL also calls the motors' callback with 0, 0 when a rumble's time is up: look for ours
     * among the calls since, wherever it is. */
    bool found = false;
    for (int i = before; i < motors.count && i < MAX_RUMBLES; i++)
        found = found || (motors.low[i] == 32768 && motors.high[i] == 0);
    ck_assert_msg(found, "the native rumble did not reach the pad (%d calls)", motors.count);
    detach_pad(without);
    detach_pad(with);
    ona_runtime_destroy(rt);
}
END_TEST

/* Without video there is no SDL: no gamepads, but pushed key and mouse events reach native
 * systems, through the event list and the input state. */
START_TEST(test_gamepad_native_reads_keys_and_mouse) {
    ona_runtime *rt = make_runtime((uint32_t)_i, ONA_VIDEO_NONE);
    ona_system report = spawn_collector(rt);
    spawn_lua(rt, "gamepad/probe.lua", "probe", report, "rumble_at=1 low=1 high=1", 0, 0);
    spawn_native(rt);
    ona_event key = {.type = ONA_EVENT_KEY_DOWN};
    snprintf(key.as.key.name, sizeof key.as.key.name, "Space");
    ck_assert_int_eq(ona_runtime_push_event(rt, &key), 0);
    ona_event click = {.type = ONA_EVENT_MOUSE_DOWN};
    click.as.mouse.x = 12, click.as.mouse.y = 34, click.as.mouse.button = 3;
    ck_assert_int_eq(ona_runtime_push_event(rt, &click), 0);
    step(rt, 1);
    ck_assert_int_eq(seen.event_count, 2);
    ck_assert_int_eq(seen.events[0].type, ONA_EVENT_KEY_DOWN);
    ck_assert_str_eq(seen.events[0].as.key.name, "space");
    ck_assert_int_eq(seen.events[1].type, ONA_EVENT_MOUSE_DOWN);
    ck_assert_int_eq(seen.events[1].as.mouse.button, 3);
    ck_assert_int_eq(seen.space, 1);
    ck_assert_int_eq(seen.bad_key, ONA_EINVAL);
    ck_assert(seen.mouse_x == 12 && seen.mouse_y == 34);
    ck_assert_uint_eq(seen.mouse_buttons, 4);
    ck_assert_int_eq(seen.pad_rc, 0);
    ck_assert(!seen.pad.connected);
    ck_assert_near(seen.pad.deadzone_stick, ONA_GAMEPAD_DEADZONE_STICK);

    ona_event up = {.type = ONA_EVENT_KEY_UP};
    snprintf(up.as.key.name, sizeof up.as.key.name, "space");
    ck_assert_int_eq(ona_runtime_push_event(rt, &up), 0);
    step(rt, 2);
    ck_assert_int_eq(seen.space, 0);
    ck_assert_int_eq(seen.event_count, 3); /* no event in the last frame */

    /* No pads: Lua lists none and its rumble says false. */
    ck_assert_int_eq(lua_state().count, 0);
    int r = last_report("rumble");
    ck_assert(r >= 0 && !coll->items[r + 1].boolean);

    uint32_t n = 99;
    ck_assert_ptr_null(ona_ctx_events(NULL, &n));
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(ona_ctx_key_down(NULL, "a"), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_mouse(NULL, NULL, NULL, NULL), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_rumble(NULL, 1, 0, 0, 0), ONA_EINVAL);
    ck_assert_int_eq(ona_ctx_gamepad_deadzone(NULL, 1, 0, 0), ONA_EINVAL);
    ona_runtime_destroy(rt);
}
END_TEST

/* --- Lua misuse ------------------------------------------------------------------------------- */

typedef struct misuse_case {
    const char *mark;
    const char *expect; /* what follows "misuse.lua:<line>: " */
} misuse_case;

static const misuse_case cases[] = {
    {"slot_type", "ona.input.gamepad: bad argument #1 (number expected, got string)"},
    {"slot_range", "ona.input.gamepad: bad argument #1 (a gamepad slot from 1 to 8 expected, "
                   "got 0)"},
    {"slot_fraction", "ona.input.rumble: bad argument #1 (a gamepad slot from 1 to 8 expected, "
                      "got 1.5)"},
    {"rumble_low", "ona.input.rumble: bad argument #2 (low must be from 0 to 1)"},
    {"rumble_seconds", "ona.input.rumble: bad argument #4 (seconds must be from 0 to 60)"},
    {"rumble_missing", "ona.input.rumble: bad argument #3 (number expected, got no value)"},
    {"deadzone", "ona.input.deadzone: bad argument #2 (stick must be from 0 to 0.95)"},
};

START_TEST(test_gamepad_lua_misuse_names_line_and_function) {
    const misuse_case *c = &cases[_i];
    ona_runtime *rt = make_runtime(0, ONA_VIDEO_NONE);
    char args[64];
    snprintf(args, sizeof args, "case=%s", c->mark);
    spawn_lua(rt, "gamepad/misuse.lua", "misuse", (ona_system){0}, args, 0, ONA_POLICY_STOP);
    step(rt, 2);
    char needle[256];
    snprintf(needle, sizeof needle, "misuse.lua:%d: %s",
             lua_marked_line("gamepad/misuse.lua", c->mark), c->expect);
    ck_assert_msg(captured_logs_contain(needle), "expected \"%s\" in the log:\n%s", needle,
                  captured_logs_text());
    ck_assert(captured_logs_contain("misuse: stopped (its policy is stop)"));
    ona_runtime_destroy(rt);
}
END_TEST

/* Commands need a turn: in a script's main chunk the spawn fails and says where. */
START_TEST(test_gamepad_lua_command_in_main_chunk) {
    ona_runtime *rt = make_runtime(0, ONA_VIDEO_NONE);
    ona_message args = make_args((ona_system){0}, "case=deadzone_chunk chunk=true");
    ona_spawn_desc d = {.script = "gamepad/misuse.lua", .name = "misuse", .args = &args};
    ona_system h;
    ck_assert_int_ne(ona_runtime_spawn(rt, &d, &h), 0);
    char needle[256];
    snprintf(needle, sizeof needle,
             "misuse.lua:%d: ona.input.deadzone: can only be called during a turn (init or "
             "process), not in the main chunk",
             lua_marked_line("gamepad/misuse.lua", "deadzone_chunk"));
    ck_assert_msg(captured_logs_contain(needle), "expected \"%s\" in the log:\n%s", needle,
                  captured_logs_text());
    ona_runtime_destroy(rt);
}
END_TEST

static Suite *gamepad_suite(void) {
    Suite *s = suite_create("gamepad");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    /* _i is the number of worker threads: 1, then 2. */
    tcase_add_loop_test(tc, test_gamepad_hotplug_reaches_lua_and_native, 1, 3);
    tcase_add_loop_test(tc, test_gamepad_buttons_and_axes_by_name, 1, 3);
    tcase_add_loop_test(tc, test_gamepad_dead_zones, 1, 3);
    tcase_add_loop_test(tc, test_gamepad_rumble_in_spawn_order, 1, 3);
    tcase_add_loop_test(tc, test_gamepad_native_reads_keys_and_mouse, 1, 3);
    tcase_add_loop_test(tc, test_gamepad_lua_misuse_names_line_and_function, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_gamepad_lua_command_in_main_chunk);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    return run_suite(gamepad_suite());
}
