/*
 * l_modules.c: the one list of the ona.* Lua modules and the tables they fill (l_modules.h).
 * The Lua host opens them through ona__lua_open_modules only; no module opens another.
 *
 * Design note: groups opened on first use. ona.gfx (with its drawing, text, shapes, sheets and
 * tile maps), ona.input and ona.audio are most of the module: ~70 C functions, whose names are
 * interned and inserted one by one, and four metatables, about a fifth of a spawn's instructions
 * and 6 KB of every state's heap, while most systems use none of them. Each is therefore in
 * `ona` from the start, as the same table for the state's life, but empty, with a metatable
 * whose __index and __newindex open the group into that very table (every module of the group,
 * in the list's order) and then remove the metatable: from the first read or write of any of
 * its fields the table is the plain table it always was (the JIT sees no metamethod), a field
 * missing from the group still reads nil, and `pairs(ona)` lists the same names. Only a raw look
 * (pairs, next, rawget) at a group nobody has touched yet sees it empty; its metatable is
 * protected (getmetatable returns false). The mechanism is lua_lazy.c's, shared with the lazy
 * standard libraries.
 */
#include "l_modules.h"

#include "l_ona.h"
#include "lua_lazy.h"

#include "common.h"

#include <lauxlib.h>
#include <string.h>

typedef struct module {
    const char *group; /* the `ona` field it fills, opened on first use; NULL: `ona` itself */
    void (*open)(lua_State *L); /* adds its fields to the table on top of the stack */
} module;

/* In the order the fields go in: `ona`'s own, the groups' stubs, then time and saves. */
static const module modules[] = {
    {NULL, ona__lua_open_ona},
    {"gfx", ona__lua_open_gfx},
    {"gfx", ona__lua_open_draw},
    {"gfx", ona__lua_open_text},
    {"gfx", ona__lua_open_shapes},
    {"gfx", ona__lua_open_sheet},
    {"gfx", ona__lua_open_tilemap},
    {"gfx", ona__lua_open_transform},
    {"input", ona__lua_open_input},
    {"audio", ona__lua_open_audio},
    {"fs", ona__lua_open_fs},
    {"physics", ona__lua_open_physics},
    {NULL, ona__lua_open_time},
    {NULL, ona__lua_open_save},
};

static bool same_group(const module *m, const char *group) {
    return m->group && strcmp(m->group, group) == 0;
}

/* The groups' filler (lua_lazy.h): fill(group table, index in `modules` of the group's first
 * module) opens every module of the group. */
static int group_fill(lua_State *L) {
    size_t first = (size_t)lua_tointeger(L, 2);
    if (first >= ONA_ARRAY_COUNT(modules) || !modules[first].group)
        return luaL_error(L, "no lazy group %d", (int)first);
    lua_settop(L, 1);
    for (size_t i = first; i < ONA_ARRAY_COUNT(modules); i++) {
        if (same_group(&modules[i], modules[first].group))
            modules[i].open(L);
    }
    return 0;
}

/* True when modules[i] is the first of its group: the one that makes the group's stub. */
static bool first_of_group(size_t i) {
    for (size_t j = 0; j < i; j++) {
        if (same_group(&modules[j], modules[i].group))
            return false;
    }
    return true;
}

void ona__lua_open_modules(lua_State *L) {
    lua_createtable(L, 0, 32); /* `ona`'s fields and the prelude's: no rehash as it fills */
    int ona = lua_gettop(L);
    ona__lua_lazy_push_methods(L);
    lua_pushcfunction(L, group_fill);
    for (size_t i = 0; i < ONA_ARRAY_COUNT(modules); i++) {
        if (!modules[i].group) {
            lua_pushvalue(L, ona);
            modules[i].open(L);
            lua_pop(L, 1);
        } else if (first_of_group(i)) {
            ona__lua_lazy_table(L, ona + 1, ona + 3, (lua_Integer)i);
            lua_setfield(L, ona, modules[i].group);
        }
    }
    lua_pop(L, 3);
    ona__lua_push_raw(L);
}
