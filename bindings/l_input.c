/*
 * l_input.c: the `ona.input` Lua module and the frame's events as Lua tables: keyboard, mouse.
 *
 * Design note. Queries read the input main wrote before the turns began (video.c): it
 * does not change while turns run, so every system on every thread sees the same values
 * without locks.
 *
 * Misuse raises at the author's line under the function's public name (ona__lua_raise, l_ona.h).
 */
#include "l_gfx.h"
#include "l_ona.h"

#include "lua_host.h"

#include <lauxlib.h>
#include <stdio.h>

static ona__video *video(lua_State *L) {
    return &ona__runtime_of(ona__lua_of(L)->sys->core)->video;
}

/* ona.input.key_down(name) -> boolean ("a", "space", "left", "escape", ...) */
static int l_input_key_down(lua_State *L) {
    ona_event e = {.type = ONA_EVENT_KEY_DOWN};
    static const char fn[] = "ona.input.key_down";
    snprintf(e.as.key.name, sizeof e.as.key.name, "%s", ona__lua_checkstring(L, 1, fn, NULL));
    ona__window_normalise_key(&e);
    if (e.as.key.scancode <= 0)
        return ona__lua_argerror(L, 1, fn,
                                 "unknown key name (SDL key names: \"a\", \"space\", \"left\")");
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

static const char *event_name(ona_event_type t) {
    static const char *const names[] = {
        "none",     "key_down",    "key_up",         "text",         "mouse_move",  "mouse_down",
        "mouse_up", "mouse_wheel", "window_resized", "window_focus", "window_blur", "quit",
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
            lua_pushstring(L, e->as.key.name);
            lua_setfield(L, -2, "key");
            lua_pushnumber(L, e->as.key.scancode);
            lua_setfield(L, -2, "scancode");
            lua_pushboolean(L, e->as.key.repeat);
            lua_setfield(L, -2, "is_repeat");
            break;
        case ONA_EVENT_TEXT:
            lua_pushstring(L, e->as.text.text);
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
        {NULL, NULL},
    };
    lua_newtable(L);
    luaL_register(L, NULL, input);
    lua_setfield(L, -2, "input");
}
