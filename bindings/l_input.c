/*
 * l_input.c: the `ona.input` Lua module and the frame's events as Lua tables: keyboard, mouse,
 * gamepads (gamepads and input).
 *
 * Design note. Queries read the input main wrote before the turns began (video.c, gamepad.c):
 * it does not change while turns run, so every system on every thread sees the same values
 * without locks. Rumble and dead-zone changes are commands: they go to the command queue of the
 * thread running the turn, tagged with the system's spawn order and submission number, and main
 * applies them after the turns in that order (gamepad.c), so the outcome does not depend on the
 * thread count. A dead zone set this frame shows from the next frame on.
 *
 * Gamepad slots are 1..ONA_GAMEPAD_MAX, as in C. Misuse raises at the author's line under the
 * function's public name (ona__lua_raise, l_ona.h).
 */
#include "l_input.h"
#include "l_modules.h"
#include "lua_check.h"

#include "lua_host.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static ona__video *video(lua_State *L) {
    return &ona__lua_of(L)->svc->video;
}

/* ona.input.key_down(name) -> boolean: SDL's name ("a", "space", "left shift") or LÖVE's
 * ("lshift", "kpenter"); the README's "Key names" table lists both. */
static int l_input_key_down(lua_State *L) {
    ona_event e = {.type = ONA_EVENT_KEY_DOWN};
    static const char fn[] = "ona.input.key_down";
    size_t len;
    const char *name = ona__lua_checkstring(L, 1, fn, &len);
    if (len < sizeof e.as.key.name)
        memcpy(e.as.key.name, name, len + 1);
    ona__services_normalise_key(&e);
    if (e.as.key.scancode <= 0 || len >= sizeof e.as.key.name || strlen(name) != len) {
        if (ona__services_key_is_character(name))
            lua_pushfstring(L,
                            "\"%s\" is a character typed with shift, not a key of its own: ask "
                            "for the key it is on (see \"Key names\" in the README)",
                            name);
        else
            lua_pushfstring(L,
                            "unknown key name \"%s\" (SDL's or LÖVE's names: see \"Key names\" "
                            "in the README)",
                            name);
        return ona__lua_argerror(L, 1, fn, lua_tostring(L, -1));
    }
    lua_pushboolean(L, e.as.key.scancode < ONA__MAX_SCANCODES && video(L)->keys[e.as.key.scancode]);
    return 1;
}

/* ona.input.mouse() -> x, y, buttons (a bit per button: 1 left, 2 middle, 4 right) */
static int l_input_mouse(lua_State *L) {
    ona__video *v = video(L);
    lua_pushnumber(L, v->mouse_x);
    lua_pushnumber(L, v->mouse_y);
    lua_pushnumber(L, v->mouse_buttons);
    return 3;
}

/* The gamepad slot (1..ONA_GAMEPAD_MAX) at `arg`, 0-based. */
static int check_slot(lua_State *L, int arg, const char *fn) {
    lua_Number n = ona__lua_checknumber(L, arg, fn);
    if (n < 1 || n > ONA_GAMEPAD_MAX || n != floor(n)) {
        lua_pushfstring(L, "a gamepad slot from 1 to %d expected, got %f", ONA_GAMEPAD_MAX, n);
        ona__lua_argerror(L, arg, fn, lua_tostring(L, -1));
    }
    return (int)n - 1;
}

/* A number from lo to hi at `arg`; `what` names it in the error. */
static float check_range(lua_State *L, int arg, const char *fn, const char *what, lua_Number lo,
                         lua_Number hi) {
    lua_Number n = ona__lua_checknumber(L, arg, fn);
    if (!(n >= lo && n <= hi)) {
        lua_pushfstring(L, "%s must be from %f to %f", what, lo, hi);
        ona__lua_argerror(L, arg, fn, lua_tostring(L, -1));
    }
    return (float)n;
}

/* ona.input.gamepads() -> {{index =, name =, rumble =}, ...}: the connected pads, by slot. */
static int l_input_gamepads(lua_State *L) {
    const ona__gamepads *p = &video(L)->pads;
    lua_newtable(L);
    int n = 0;
    for (int i = 0; i < ONA_GAMEPAD_MAX; i++) {
        const ona_gamepad_state *s = &p->state[i];
        if (!s->connected)
            continue;
        lua_createtable(L, 0, 3);
        lua_pushnumber(L, i + 1);
        lua_setfield(L, -2, "index");
        lua_pushstring(L, s->name);
        lua_setfield(L, -2, "name");
        lua_pushboolean(L, s->rumble);
        lua_setfield(L, -2, "rumble");
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

/* ona.input.gamepad(i) -> {connected = true, index, name, rumble, buttons = {a = true, ...},
 * axes = {leftx = 0.3, ...}, deadzone = {stick =, trigger =}} | nil when slot i is empty. */
static int l_input_gamepad(lua_State *L) {
    static const char fn[] = "ona.input.gamepad";
    int slot = check_slot(L, 1, fn);
    const ona_gamepad_state *s = &video(L)->pads.state[slot];
    if (!s->connected) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 7);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "connected");
    lua_pushnumber(L, slot + 1);
    lua_setfield(L, -2, "index");
    lua_pushstring(L, s->name);
    lua_setfield(L, -2, "name");
    lua_pushboolean(L, s->rumble);
    lua_setfield(L, -2, "rumble");
    lua_createtable(L, 0, 4);
    for (int b = 0; b < ONA_GAMEPAD_BUTTON_COUNT; b++) {
        if (s->buttons & (1u << b)) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, ona_gamepad_button_name((ona_gamepad_button)b));
        }
    }
    lua_setfield(L, -2, "buttons");
    lua_createtable(L, 0, ONA_GAMEPAD_AXIS_COUNT);
    for (int a = 0; a < ONA_GAMEPAD_AXIS_COUNT; a++) {
        lua_pushnumber(L, s->axes[a]);
        lua_setfield(L, -2, ona_gamepad_axis_name((ona_gamepad_axis)a));
    }
    lua_setfield(L, -2, "axes");
    lua_createtable(L, 0, 2);
    lua_pushnumber(L, s->deadzone_stick);
    lua_setfield(L, -2, "stick");
    lua_pushnumber(L, s->deadzone_trigger);
    lua_setfield(L, -2, "trigger");
    lua_setfield(L, -2, "deadzone");
    return 1;
}

/* Queues a gamepad command for this system; raises outside a turn or when the queue is full. */
static void command(lua_State *L, const char *fn, ona__pad_command *c) {
    ona__system *sys = ona__lua_of(L)->sys;
    int rc = ona__system_pad_command(sys, c);
    if (rc == ONA_ETHREAD)
        ona__lua_raise(L, fn,
                       "can only be called during a turn (init or process), not in the "
                       "main chunk");
    if (rc)
        ona__lua_raise(L, fn, "more than %d gamepad commands on one thread in one frame",
                       ONA__PAD_COMMANDS);
}

/* ona.input.rumble(i, low, high, seconds) -> boolean: asks pad i's motors (0..1 each) to rumble
 * for `seconds` (0..60; 0 stops), from the end of this frame. false when slot i has no pad or the
 * pad cannot rumble. */
static int l_input_rumble(lua_State *L) {
    static const char fn[] = "ona.input.rumble";
    int slot = check_slot(L, 1, fn);
    ona__pad_command c = {.kind = ONA__PAD_RUMBLE, .slot = (uint8_t)slot};
    c.a = check_range(L, 2, fn, "low", 0, 1);
    c.b = check_range(L, 3, fn, "high", 0, 1);
    c.ms = (uint32_t)lround(check_range(L, 4, fn, "seconds", 0, 60) * 1000);
    const ona_gamepad_state *s = &video(L)->pads.state[slot];
    if (!s->connected || !s->rumble) {
        lua_pushboolean(L, 0);
        return 1;
    }
    command(L, fn, &c);
    lua_pushboolean(L, 1);
    return 1;
}

/* ona.input.deadzone(i, stick [, trigger]): slot i's dead zones (0..0.95; trigger keeps its value
 * when absent), from the next frame on; they stay with the slot across hot-plugs. */
static int l_input_deadzone(lua_State *L) {
    static const char fn[] = "ona.input.deadzone";
    int slot = check_slot(L, 1, fn);
    ona__pad_command c = {.kind = ONA__PAD_DEADZONE, .slot = (uint8_t)slot};
    c.a = check_range(L, 2, fn, "stick", 0, 0.95);
    c.b = lua_isnoneornil(L, 3) ? video(L)->pads.state[slot].deadzone_trigger
                                : check_range(L, 3, fn, "trigger", 0, 0.95);
    command(L, fn, &c);
    return 0;
}

static const char *event_name(ona_event_type t) {
    static const char *const names[] = {
        "none",
        "key_down",
        "key_up",
        "text",
        "mouse_move",
        "mouse_down",
        "mouse_up",
        "mouse_wheel",
        "window_resized",
        "window_focus",
        "window_blur",
        "quit",
        "gamepad_added",
        "gamepad_removed",
        "gamepad_button_down",
        "gamepad_button_up",
        "gamepad_axis",
    };
    return (unsigned)t < ONA_ARRAY_COUNT(names) ? names[t] : "unknown";
}

void ona__lua_push_events(lua_State *L, const ona__video *v) {
    lua_createtable(L, (int)v->event_count, 0);
    for (uint32_t i = 0; i < v->event_count; i++) {
        const ona_event *e = &v->events[i];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, event_name(e->type));
        lua_setfield(L, -2, "type");
        switch (e->type) {
        case ONA_EVENT_KEY_DOWN:
        case ONA_EVENT_KEY_UP:
            lua_pushlstring(L, e->as.key.name, strnlen(e->as.key.name, sizeof e->as.key.name));
            lua_setfield(L, -2, "key");
            if (strnlen(e->as.key.name, sizeof e->as.key.name) < sizeof e->as.key.name)
                lua_pushstring(L, ona__services_love_key(e->as.key.name));
            else
                lua_pushlstring(L, e->as.key.name, sizeof e->as.key.name);
            lua_setfield(L, -2, "love_key");
            lua_pushnumber(L, e->as.key.scancode);
            lua_setfield(L, -2, "scancode");
            lua_pushboolean(L, e->as.key.repeat);
            lua_setfield(L, -2, "is_repeat");
            break;
        case ONA_EVENT_TEXT:
            /* Bounded: a pushed event's text may fill all 32 bytes (it is refused, but a Lua
             * string is never read past the field). */
            lua_pushlstring(L, e->as.text.text, strnlen(e->as.text.text, sizeof e->as.text.text));
            lua_setfield(L, -2, "text");
            break;
        case ONA_EVENT_MOUSE_MOVE:
        case ONA_EVENT_MOUSE_DOWN:
        case ONA_EVENT_MOUSE_UP:
            lua_pushnumber(L, e->as.mouse.x);
            lua_setfield(L, -2, "x");
            lua_pushnumber(L, e->as.mouse.y);
            lua_setfield(L, -2, "y");
            lua_pushnumber(L, e->as.mouse.dx);
            lua_setfield(L, -2, "dx");
            lua_pushnumber(L, e->as.mouse.dy);
            lua_setfield(L, -2, "dy");
            lua_pushnumber(L, e->as.mouse.button);
            lua_setfield(L, -2, "button");
            break;
        case ONA_EVENT_MOUSE_WHEEL:
            lua_pushnumber(L, e->as.wheel.dx);
            lua_setfield(L, -2, "dx");
            lua_pushnumber(L, e->as.wheel.dy);
            lua_setfield(L, -2, "dy");
            break;
        case ONA_EVENT_WINDOW_RESIZED:
            lua_pushnumber(L, e->as.window.width);
            lua_setfield(L, -2, "width");
            lua_pushnumber(L, e->as.window.height);
            lua_setfield(L, -2, "height");
            break;
        case ONA_EVENT_GAMEPAD_ADDED:
        case ONA_EVENT_GAMEPAD_REMOVED:
            lua_pushnumber(L, e->as.gamepad.index);
            lua_setfield(L, -2, "index");
            break;
        case ONA_EVENT_GAMEPAD_BUTTON_DOWN:
        case ONA_EVENT_GAMEPAD_BUTTON_UP:
            lua_pushnumber(L, e->as.gamepad.index);
            lua_setfield(L, -2, "index");
            lua_pushstring(L, e->as.gamepad.name);
            lua_setfield(L, -2, "button");
            break;
        case ONA_EVENT_GAMEPAD_AXIS:
            lua_pushnumber(L, e->as.gamepad.index);
            lua_setfield(L, -2, "index");
            lua_pushstring(L, e->as.gamepad.name);
            lua_setfield(L, -2, "axis");
            lua_pushnumber(L, e->as.gamepad.value);
            lua_setfield(L, -2, "value");
            break;
        default:
            break;
        }
        lua_rawseti(L, -2, (int)i + 1);
    }
}

void ona__lua_open_input(lua_State *L) {
    static const luaL_Reg input[] = {
        {"key_down", l_input_key_down},
        {"mouse", l_input_mouse},
        {"gamepads", l_input_gamepads},
        {"gamepad", l_input_gamepad},
        {"rumble", l_input_rumble},
        {"deadzone", l_input_deadzone},
        {NULL, NULL},
    };
    luaL_register(L, NULL, input);
}
