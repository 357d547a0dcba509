/*
 * lua_watchdog.c: the Lua half of the turn budget: how a Lua system's run is described to the
 * watchdog (runtime/watchdog.c), and the hook that interrupts it.
 *
 * Design note.
 *  - The watchdog thread calls lua_sethook on the system's main lua_State, which the Lua manual
 *    allows from another thread or a signal handler ("this function can be called
 *    asynchronously"); LuaJIT's own `luajit` interrupts Ctrl-C the same way. In LuaJIT the hook
 *    lives in the global state, so it fires in whichever coroutine of the system runs. The
 *    watchdog only sets it while the run cannot end (its slot is claimed, see watchdog.c), and
 *    the run's thread clears it when the run ends, so a hook never outlives its run.
 *  - The hook counts every instruction and raises the same error each time until the run ends:
 *    a pcall (or xpcall with a Lua handler) in the runaway code catches it once, and the next
 *    instruction raises it again, so the error reaches the turn and the policy applies.
 *  - A turn that runs past its budget share (a quarter of the budget, 250 ms by default, then
 *    10 ms more of its thread's CPU time: watchdog.c) is suspended by another hook (slice_hook),
 *    set once by the watchdog, and continued in the next frame, so the frame goes on without it;
 *    from then on it runs 10 ms a frame (ONA__LUA_TURN_SLICE_NS) until it ends or its budget,
 *    counted from its first run, runs out. Turns shorter than the share are never split. A
 *    chunk, exit or reload run cannot step aside (nothing could continue it). A loop inside a
 *    coroutine the script resumed steps aside too: the prelude's resume passes the suspension
 *    up the chain of resumers (l_raw_slice_of).
 *  - Limit of a LuaJIT built without LUAJIT_ENABLE_CHECKHOOK (Debian's): machine code of a
 *    compiled trace never checks for hooks, so a loop the JIT compiled (`while true do end`) is
 *    not interrupted; the watchdog names it once a second instead. Loops the JIT does not compile
 *    (jit.off(), or a body that calls something the trace compiler cannot handle) are.
 */
#include "lua_watchdog.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

static const char *base_name(const char *source) {
    if (source[0] == '@' || source[0] == '=')
        source++;
    const char *slash = strrchr(source, '/');
    return slash ? slash + 1 : source;
}

/* Which of the script's callbacks (init, receive, process, exit, reload) is on the turn's stack: the
 * outermost one. NULL when none is (a chunk). A callback is known by its function's chunk and
 * first line, so the turn's own coroutine can be searched from a coroutine it resumed (L)
 * without pushing anything on a stack that is not running. */
static const char *callback_name(lua_State *L, ona__lua *lua) {
    static const char *const names[] = {"init", "receive", "process", "exit", "reload"};
    if (lua->module_ref == LUA_NOREF || !lua_checkstack(L, 3))
        return NULL;
    const char *source[ONA_ARRAY_COUNT(names)] = {0};
    int line[ONA_ARRAY_COUNT(names)] = {0};
    lua_rawgeti(L, LUA_REGISTRYINDEX, lua->module_ref);
    for (size_t i = 0; i < ONA_ARRAY_COUNT(names); i++) {
        lua_getfield(L, -1, names[i]);
        lua_Debug fn;
        if (lua_isfunction(L, -1) && lua_getinfo(L, ">S", &fn) && fn.linedefined > 0) {
            source[i] = fn.source; /* the prototype's chunk name, alive while the module is */
            line[i] = fn.linedefined;
        } else {
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    lua_State *stacks[2] = {L, lua->co && lua->co != L ? lua->co : NULL};
    const char *found = NULL;
    for (int k = 1; k >= 0; k--) { /* outermost first: the turn's coroutine, then L */
        if (!stacks[k])
            continue;
        lua_Debug ar;
        for (int level = 0; lua_getstack(stacks[k], level, &ar); level++) {
            if (!lua_getinfo(stacks[k], "S", &ar))
                continue;
            for (size_t i = 0; i < ONA_ARRAY_COUNT(names); i++)
                if (source[i] && ar.source == source[i] && ar.linedefined == line[i])
                    found = names[i];
        }
        if (found)
            return found;
    }
    return NULL;
}

/* The innermost Lua line running: "file:line", or "?" */
static void where(lua_State *L, char *buf, size_t size) {
    lua_Debug ar;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
            snprintf(buf, size, "%s:%d", base_name(ar.source), ar.currentline);
            return;
        }
    }
    snprintf(buf, size, "?");
}

static void budget_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    ona__lua *lua = ona__lua_of(L);
    ona__watch_scope *scope = ona__watchdog_current();
    /* Only the run that was interrupted raises (see the design note: nothing else can be). */
    if (!scope || scope->watch.target != (void *)lua->L)
        return;
    if (!scope->raised) {
        char at[160];
        where(L, at, sizeof at);
        const char *cb = strcmp(scope->watch.what, "turn") == 0 ? callback_name(L, lua) : NULL;
        unsigned long long ms = (ona__now_ns() - scope->started_ns) / 1000000u;
        snprintf(scope->message, sizeof scope->message, "runaway %s: %llu ms%s%s at %s",
                 scope->watch.what, ms, cb ? " in " : "", cb ? cb : "", at);
        scope->raised = true;
        lua->sys->interrupted = true; /* a recording notes where a wall-time budget cut in */
    }
    lua_pushstring(L, scope->message);
    lua_error(L);
}

/* Set once the turn ran past its slice: suspends it at the first instruction where a yield is
 * allowed (not in a Lua function called by C, such as a sort comparator, nor between an `ona`
 * function's park and its yield); until then it fires again at each instruction. LuaJIT lets a
 * count hook yield (lua_yield's "yield from hook"); the resume continues at the hooked
 * instruction. In a coroutine the script resumed, the yield goes to the prelude's
 * coroutine.resume / wrap, which passes it up to the turn's coroutine (raw.slice_of) and resumes
 * the coroutine where it stopped when the turn goes on; where a resumer up the chain cannot
 * yield, nested coroutines are left alone for the rest of the run. */
static void slice_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    ona__lua *lua = ona__lua_of(L);
    ona__watch_scope *scope = ona__watchdog_current();
    if (!scope || scope->watch.target != (void *)lua->L ||
        (L != lua->co && lua->slice_nested_off) || lua->park != ONA__PARK_NONE ||
        !lua_isyieldable(L))
        return;
    lua->park = ONA__PARK_SLICE;
    lua_yield(L, 0);
}

/* raw.slice_of() -> 0, 1 or 2, asked by the prelude's coroutine.resume / wrap after a resume
 * returned: 0, the coroutine yielded (or returned) of its own accord; 1, the slice hook suspended
 * it and the caller, which can yield, passes the suspension up (it yields, then resumes the
 * coroutine); 2, the hook suspended it but the caller cannot yield, so it resumes the coroutine
 * at once and the hook leaves nested coroutines alone until the run ends. */
static int l_raw_slice_of(lua_State *L) {
    ona__lua *lua = ona__lua_of(L);
    int how = 0;
    if (lua->park == ONA__PARK_SLICE) {
        how = lua_isyieldable(L) ? 1 : 2;
        if (how == 2) {
            lua->park = ONA__PARK_NONE;
            lua->slice_nested_off = true;
        }
    }
    lua_pushinteger(L, how);
    return 1;
}

void ona__lua_open_watchdog(lua_State *L) {
    lua_pushcfunction(L, l_raw_slice_of);
    lua_setfield(L, -2, "slice_of");
}

/* The watchdog's thread: see the design note. */
static void interrupt(void *target) {
    lua_sethook(target, budget_hook, LUA_MASKCOUNT, 1);
}

static void preempt(void *target) {
    lua_sethook(target, slice_hook, LUA_MASKCOUNT, 1);
}

/* The run's own thread, as the run ends. */
static void disarm(void *target) {
    lua_sethook(target, NULL, 0, 0);
}

void ona__lua_watch_begin(ona__lua *lua, const char *what, ona__watch_scope *scope) {
    lua->slice_nested_off = false;
    /* Described in place: ona__watchdog_begin does not copy a watch that is the scope's own. */
    scope->watch = (ona__watch){
        .system = lua->sys->name,
        .what = what,
        .script = lua->script_path,
        .budget_ns = lua->budget_ns,
        .interrupt = interrupt,
        .disarm = disarm,
        .target = lua->L,
    };
    uint64_t slice = lua->turn_since_ns ? ONA__LUA_TURN_SLICE_NS
                                        : ONA_MAX(lua->budget_ns / 4, ONA__LUA_TURN_SLICE_NS);
    if (strcmp(what, "turn") == 0 && slice < lua->budget_ns) {
        scope->watch.slice_ns = slice;
        scope->watch.slice_cpu_ns = lua->turn_since_ns ? 0 : ONA__LUA_TURN_SLICE_NS;
        scope->watch.preempt = preempt;
        scope->watch.since_ns = lua->turn_since_ns;
    }
    ona__watchdog_begin(lua->svc->watchdog, &scope->watch, scope);
}
