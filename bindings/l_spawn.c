/*
 * l_spawn.c: ona.spawn, the `ona` function that starts a system from a script, and the reading
 * of its options table (name, mailbox, memory, restarts, budget, policy, after, sandbox).
 *
 * Design note. Split from l_ona.c so that file keeps messages, addressing and logging and this
 * one the checking of what a script asks a new system to be; l_ona.c registers l_ona_spawn in
 * the `ona` table (declared in l_ona.h). Every option is validated before anything is built and
 * a misuse raises at the author's line (ona__lua_argerror, l_ona.c). The args value is encoded
 * into the calling system's `outgoing` message, owned by the system struct, not the C stack, so
 * nothing leaks when Lua raises; it is released before the function returns. The script path is
 * confined to the game folder (ona__paths_resolve_game): one outside it, or with a NUL byte, is
 * a misuse and raises; a missing file or a FIFO is `nil, reason`. A sandboxed system's children
 * are sandboxed: it may leave `sandbox` out, and `sandbox = false` raises.
 */
#include "l_ona.h"
#include "lua_check.h"

#include "l_message.h"
#include "lua_host.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

static ona_failure_policy check_policy(lua_State *L, int opts) {
    lua_getfield(L, opts, "policy");
    ona_failure_policy policy = ONA_POLICY_DEFAULT;
    if (!lua_isnil(L, -1)) {
        const char *p = lua_tostring(L, -1);
        if (p && strcmp(p, "restart") == 0)
            policy = ONA_POLICY_RESTART;
        else if (p && strcmp(p, "stop") == 0)
            policy = ONA_POLICY_STOP;
        else
            ona__lua_argerror(L, opts, "ona.spawn", "opts.policy must be \"restart\" or \"stop\"");
    }
    lua_pop(L, 1);
    return policy;
}

static lua_Number opt_number_field(lua_State *L, int idx, const char *field, lua_Number lo,
                                   lua_Number hi) {
    lua_getfield(L, idx, field);
    lua_Number v = 0;
    if (!lua_isnil(L, -1)) {
        if (!lua_isnumber(L, -1) || lua_tonumber(L, -1) < lo || lua_tonumber(L, -1) > hi) {
            lua_pushfstring(L, "opts.%s must be a number from %f to %f", field, lo, hi);
            ona__lua_argerror(L, idx, "ona.spawn", lua_tostring(L, -1));
        }
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

/* opts.after: a name, a handle, or a list of them (at most ONA_MAX_AFTER), into `desc`. The
 * names point into Lua strings held by the options table, which lives to the spawn's end. */
static void check_after(lua_State *L, int opts, ona_spawn_desc *desc, ona_system *handles,
                        const char **names) {
    lua_getfield(L, opts, "after");
    int t = lua_gettop(L);
    if (lua_isnil(L, t)) {
        lua_pop(L, 1);
        return;
    }
    int n = lua_istable(L, t) ? (int)lua_objlen(L, t) : 1;
    if (n > ONA_MAX_AFTER)
        ona__lua_argerror(L, opts, "ona.spawn", "opts.after has more than 64 entries");
    for (int i = 1; i <= n; i++) {
        if (lua_istable(L, t))
            lua_rawgeti(L, t, i);
        else
            lua_pushvalue(L, t);
        if (lua_type(L, -1) == LUA_TSTRING) {
            names[desc->after_name_count++] = lua_tostring(L, -1);
        } else if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) >= 1 &&
                   lua_tonumber(L, -1) < 9007199254740992.0) {
            handles[desc->after_count++].id = (uint64_t)lua_tonumber(L, -1);
        } else {
            lua_pushfstring(L, "opts.after[%d] must be a system's name or handle, not %s", i,
                            luaL_typename(L, -1));
            ona__lua_argerror(L, opts, "ona.spawn", lua_tostring(L, -1));
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    desc->after = handles;
    desc->after_names = names;
}

/* opts.sandbox: true or false, else raises; a sandboxed spawner's children are sandboxed. */
static bool check_sandbox(lua_State *L, int opts, bool spawner_sandboxed) {
    lua_getfield(L, opts, "sandbox");
    bool given = !lua_isnil(L, -1), on = lua_toboolean(L, -1);
    if (given && !lua_isboolean(L, -1))
        ona__lua_argerror(L, opts, "ona.spawn", "opts.sandbox must be true or false");
    lua_pop(L, 1);
    if (spawner_sandboxed && given && !on)
        ona__lua_argerror(L, opts, "ona.spawn",
                          "opts.sandbox = false: a sandboxed system spawns only sandboxed systems");
    return on || spawner_sandboxed;
}

/* ona.spawn(script, args, opts) -> handle | nil, reason
 * opts: name, mailbox (capacity), memory (cap in bytes), policy ("restart"/"stop"), restarts,
 * budget (turn budget in ms; 0 = none), after (a name, a handle or a list of them: the systems
 * whose turn comes first in every frame), sandbox (true: lua_sandbox.c). A cycle or a bad entry
 * in `after`, and a script path outside the game folder, raise. */
int l_ona_spawn(lua_State *L) {
    ona__lua *lua = ona__lua_of(L);
    ona__system *sys = lua->sys;
    size_t script_len;
    const char *script = ona__lua_checkstring(L, 1, "ona.spawn", &script_len);
    if (strlen(script) != script_len)
        ona__lua_argerror(L, 1, "ona.spawn", "the script path holds a NUL byte");
    int nargs = lua_gettop(L);
    if (nargs >= 3 && !lua_isnil(L, 3))
        ona__lua_checktable(L, 3, "ona.spawn");
    ona_spawn_desc desc = {.script = script, .sandbox = lua->sandboxed};
    ona_system after_handles[ONA_MAX_AFTER];
    const char *after_names[ONA_MAX_AFTER];
    char name[64] = {0};
    if (nargs >= 3 && lua_istable(L, 3)) {
        lua_getfield(L, 3, "name");
        if (!lua_isnil(L, -1)) {
            if (!lua_isstring(L, -1))
                ona__lua_argerror(L, 3, "ona.spawn", "opts.name must be a string");
            snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
            desc.name = name;
        }
        lua_pop(L, 1);
        desc.mailbox_capacity = (uint32_t)opt_number_field(L, 3, "mailbox", 1, 1 << 24);
        desc.memory_cap = (size_t)opt_number_field(L, 3, "memory", 0, 1e15);
        desc.restart_limit = (uint32_t)opt_number_field(L, 3, "restarts", 0, 1e6);
        lua_getfield(L, 3, "budget");
        bool has_budget = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (has_budget) {
            lua_Number ms = opt_number_field(L, 3, "budget", 0, 1e9);
            desc.budget_ms = ms == 0 ? ONA_BUDGET_OFF : (uint32_t)ONA_MAX(ms, 1);
        }
        desc.policy = check_policy(L, 3);
        check_after(L, 3, &desc, after_handles, after_names);
        desc.sandbox = check_sandbox(L, 3, lua->sandboxed);
    }
    /* The args value is encoded into a message owned by the system struct while Lua may raise. */
    char err[1024];
    ona_message *args = &sys->outgoing;
    ona_message_release(args);
    if (nargs >= 2) {
        int rc = ona__message_encode_lua(args, L, 2, 2, &sys->moves, err, sizeof err);
        if (rc) {
            ona_message_release(args);
            return ona__lua_raise(L, "ona.spawn", "bad argument #2 (%s)", err);
        }
        desc.args = args;
    }
    ona_system out;
    int rc = ona__lua_spawn(lua->svc, &desc, true, &out, err, sizeof err);
    ona_message_release(args);
    if (rc == ONA_EPATH || rc == ONA_ERANGE)
        return ona__lua_raise(L, "ona.spawn", "bad argument #1 (%s)", err);
    if (rc == ONA_EINVAL && desc.after_count + desc.after_name_count > 0 &&
        (strstr(err, "is a cycle") || strncmp(err, "after", 5) == 0))
        return ona__lua_raise(L, "ona.spawn", "%s", err);
    if (rc) {
        lua_pushnil(L);
        lua_pushstring(L, err);
        return 2;
    }
    lua_pushnumber(L, (lua_Number)out.id);
    return 1;
}
