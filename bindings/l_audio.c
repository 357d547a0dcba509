/*
 * l_audio.c: the `ona.audio` Lua module: sounds, voices, groups, music.
 *
 *   ona.audio.sound(path) -> handle [, error]
 *   ona.audio.release(sound)
 *   ona.audio.play(sound [, {volume, pan, pitch, loop, group}]) -> voice | nil, message
 *   ona.audio.set(voice, {volume, pan, pitch})
 *   ona.audio.stop(voice)
 *   ona.audio.playing(voice) -> boolean
 *   ona.audio.volume(group, v)
 *   ona.audio.music(path [, {loop, fade, volume}]) -> voice / ona.audio.music(nil [, {fade}])
 *
 * Design note. Like drawing, playing never reaches the device: play, stop, volume and music
 * append a command to the audio queue of the thread running the turn (runtime/audio/audio.c),
 * which main merges in spawn order after the frame, so they may only be called during a turn.
 * Loading a sound decodes it on the calling thread, so `sound` works in the main chunk too.
 * Misuse (a wrong type, a value out of range, a stale sound) raises at the author's line under
 * the function's public name (ona__lua_raise, l_ona.h); a missing or broken file is not misuse:
 * `sound` returns the silent placeholder and the error, and the file is logged by name. Neither
 * is a play past the voice limit: it returns nil and a message, and the system's first one is
 * logged with the author's line. `playing` reads the runtime's clock of voices (ona/audio.h), so
 * game code may branch on it and stay deterministic.
 */
#include "l_modules.h"
#include "lua_check.h"
#include "lua_draw_args.h"

#include "lua_host.h"
#include "paths.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

static ona__services *services(lua_State *L) {
    return ona__lua_of(L)->svc;
}

/* Queues `cmd`; raises for a misuse. Returns 0 or ONA_EBUSY (a play past the voice limit). */
static int push_cmd(lua_State *L, const char *fn, ona__audio_cmd *cmd, const char *path,
                    uint64_t *voice) {
    int rc = ona__system_audio_push(ona__lua_of(L)->sys, cmd, path, voice);
    if (rc == ONA_EBUSY)
        return rc;
    if (rc == ONA_ETHREAD)
        ona__lua_raise(L, fn,
                       "can only be called during a turn (init or process), not in the "
                       "main chunk");
    if (rc)
        ona__lua_raise(L, fn, "out of memory");
    return 0;
}

/* A handle argument: a positive integer below 2^53. */
static uint64_t check_id(lua_State *L, int idx, const char *fn, const char *what) {
    if (!lua_isnumber(L, idx)) {
        lua_pushfstring(L, "not a %s handle: got %s", what, luaL_typename(L, idx));
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    lua_Number n = lua_tonumber(L, idx);
    if (!(n >= 1 && n < 9007199254740992.0) || n != floor(n)) {
        lua_pushfstring(L, "not a %s handle: %f", what, n);
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
    return (uint64_t)n;
}

static void check_opts(lua_State *L, int idx, const char *fn) {
    if (!lua_isnoneornil(L, idx) && !lua_istable(L, idx)) {
        lua_pushfstring(L, "options table expected, got %s", luaL_typename(L, idx));
        ona__lua_argerror(L, idx, fn, lua_tostring(L, -1));
    }
}

static bool opt_bool(lua_State *L, int t, const char *name, const char *fn) {
    if (lua_isnoneornil(L, t))
        return false;
    lua_getfield(L, t, name);
    if (!lua_isnil(L, -1) && !lua_isboolean(L, -1)) {
        lua_pushfstring(L, "opts.%s must be a boolean", name);
        ona__lua_argerror(L, t, fn, lua_tostring(L, -1));
    }
    bool b = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return b;
}

static lua_Number opt_number(lua_State *L, int t, const char *name, lua_Number dflt,
                             const char *fn) {
    return lua_isnoneornil(L, t) ? dflt : ona__lua_opt_field(L, t, name, dflt, fn);
}

/* ona.audio.sound(path) -> handle [, error]: a missing or broken file gives the silent
 * placeholder and the reason. */
static int l_audio_sound(lua_State *L) {
    const char *name = ona__lua_checkstring(L, 1, "ona.audio.sound", NULL);
    ona__lua *lua = ona__lua_of(L);
    char path[4096];
    ona__lua_check_game_path(L, 1, "ona.audio.sound", name,
                             ona__services_locate(lua->svc, name, path, sizeof path));
    ona_sound s;
    int rc = ona__services_sound_load(lua->svc, path, lua->sys->name, lua->sys->id, &s);
    lua_pushnumber(L, s.id);
    if (rc == 0)
        return 1;
    lua_pushfstring(L, "sound %s: %s", path,
                    rc == ONA_EFORMAT ? "not a readable WAV or OGG file"
                                      : ona__paths_why(rc, path));
    return 2;
}

/* ona.audio.release(sound): gives back one reference this system took with ona.audio.sound; a
 * sound nobody holds is freed at the next frame boundary (its voices stop) and its handle goes
 * stale. */
static int l_audio_release(lua_State *L) {
    static const char fn[] = "ona.audio.release";
    uint64_t id = check_id(L, 1, fn, "sound");
    ona__lua *lua = ona__lua_of(L);
    if (id > UINT32_MAX ||
        ona__services_sound_release(lua->svc, (ona_sound){(uint32_t)id}, lua->sys->id) != 0) {
        lua_pushfstring(L,
                        "sound %d is not held by this system (released as often as loaded, or "
                        "not loaded here with ona.audio.sound)",
                        (int)id);
        ona__lua_argerror(L, 1, fn, lua_tostring(L, -1));
    }
    return 0;
}

/* ona.audio.play(sound [, opts]) -> voice */
static int l_audio_play(lua_State *L) {
    static const char fn[] = "ona.audio.play";
    uint64_t id = check_id(L, 1, fn, "sound");
    check_opts(L, 2, fn);
    double volume = opt_number(L, 2, "volume", 1, fn);
    double pan = opt_number(L, 2, "pan", 0, fn);
    double pitch = opt_number(L, 2, "pitch", 1, fn);
    bool loop = opt_bool(L, 2, "loop", fn);
    const char *group = NULL;
    if (!lua_isnoneornil(L, 2)) {
        lua_getfield(L, 2, "group");
        if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING)
            ona__lua_argerror(L, 2, fn, "opts.group must be a string");
        group = lua_tostring(L, -1); /* kept alive by opts until we return */
        lua_pop(L, 1);
    }
    ona__audio_cmd cmd;
    const char *why = NULL;
    if (id > UINT32_MAX || ona__services_play_cmd(services(L), (ona_sound){(uint32_t)id}, volume,
                                                  pan, pitch, loop, group, &cmd, &why) != 0) {
        if (!why)
            why = "not a sound handle (stale or never valid)";
        ona__lua_argerror(L, id > UINT32_MAX || !strncmp(why, "not a", 5) ? 1 : 2, fn, why);
    }
    uint64_t voice = 0;
    if (push_cmd(L, fn, &cmd, NULL, &voice) == ONA_EBUSY) {
        ona__system *sys = ona__lua_of(L)->sys;
        char at[512];
        ona__lua_author_line(L, 1, at, sizeof at);
        if (ona__system_audio_warn_once(sys))
            ona_log(ONA_LOG_WARN, "audio",
                    "%s: %sall %d voices are busy: ona.audio.play returned nil (stop voices, or "
                    "play fewer at once; said once per system)",
                    sys->name, at, ONA_AUDIO_MAX_VOICES);
        lua_pushnil(L);
        lua_pushfstring(L, "all %d voices are busy", ONA_AUDIO_MAX_VOICES);
        return 2;
    }
    lua_pushnumber(L, (lua_Number)voice);
    return 1;
}

/* ona.audio.set(voice, {volume, pan, pitch}): a finished or stale voice is ignored. */
static int l_audio_set(lua_State *L) {
    static const char fn[] = "ona.audio.set";
    uint64_t voice = check_id(L, 1, fn, "voice");
    if (!lua_istable(L, 2)) {
        lua_pushfstring(L, "options table expected, got %s", luaL_typename(L, 2));
        ona__lua_argerror(L, 2, fn, lua_tostring(L, -1));
    }
    static const char *const names[] = {"volume", "pan", "pitch"};
    static const unsigned bits[] = {ONA__SET_VOLUME, ONA__SET_PAN, ONA__SET_PITCH};
    /* A key of another call ({loop = true}, {vol = 1}) is a mistake to say, not to ignore. */
    for (lua_pushnil(L); lua_next(L, 2); lua_pop(L, 1)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        bool known = false;
        for (int i = 0; i < 3 && key; i++)
            known |= strcmp(key, names[i]) == 0;
        if (!known) {
            lua_pushfstring(L, "opts.%s is not a field of it (volume, pan, pitch)",
                            key ? key : luaL_typename(L, -2));
            ona__lua_argerror(L, 2, fn, lua_tostring(L, -1));
        }
    }
    double v[3] = {1, 0, 1};
    unsigned set = 0;
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, 2, names[i]);
        bool given = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (given) {
            v[i] = ona__lua_opt_field(L, 2, names[i], v[i], fn);
            set |= bits[i];
        }
    }
    ona__audio_cmd cmd;
    const char *why = NULL;
    if (ona__services_set_cmd(voice, set, v[0], v[1], v[2], &cmd, &why) != 0)
        ona__lua_argerror(L, 2, fn, why);
    if (set)
        push_cmd(L, fn, &cmd, NULL, NULL);
    return 0;
}

/* ona.audio.playing(voice) -> boolean: the clock of voices at the frame's start, with this
 * system's own plays and stops of this frame. */
static int l_audio_playing(lua_State *L) {
    static const char fn[] = "ona.audio.playing";
    uint64_t voice = check_id(L, 1, fn, "voice");
    int rc = 0;
    bool playing = ona__system_audio_playing(ona__lua_of(L)->sys, voice, &rc);
    if (rc == ONA_ETHREAD)
        ona__lua_raise(L, fn,
                       "can only be called during a turn (init or process), not in the "
                       "main chunk");
    lua_pushboolean(L, playing);
    return 1;
}

/* ona.audio.stop(voice): a finished or stale voice is ignored. */
static int l_audio_stop(lua_State *L) {
    ona__audio_cmd cmd = {.op = ONA__AUDIO_STOP,
                          .voice = check_id(L, 1, "ona.audio.stop", "voice")};
    push_cmd(L, "ona.audio.stop", &cmd, NULL, NULL);
    return 0;
}

/* ona.audio.volume(group, v) */
static int l_audio_volume(lua_State *L) {
    static const char fn[] = "ona.audio.volume";
    const char *group = ona__lua_checkstring(L, 1, fn, NULL);
    lua_Number v = ona__lua_checknumber(L, 2, fn);
    ona__audio_cmd cmd;
    const char *why = NULL;
    if (ona__services_volume_cmd(services(L), group, v, &cmd, &why) != 0)
        ona__lua_argerror(L, strncmp(why, "volume", 6) == 0 ? 2 : 1, fn, why);
    push_cmd(L, fn, &cmd, NULL, NULL);
    return 0;
}

/* ona.audio.music(path [, {loop, fade, volume}]) ; ona.audio.music(nil [, {fade}]) stops. */
static int l_audio_music(lua_State *L) {
    static const char fn[] = "ona.audio.music";
    const char *name = NULL;
    if (!lua_isnil(L, 1))
        name = ona__lua_checkstring(L, 1, fn, NULL);
    check_opts(L, 2, fn);
    double volume = opt_number(L, 2, "volume", 1, fn);
    double fade = opt_number(L, 2, "fade", 0, fn);
    bool loop = opt_bool(L, 2, "loop", fn);
    ona__audio_cmd cmd;
    const char *why = NULL;
    if (ona__services_music_cmd(name != NULL, volume, fade, loop, &cmd, &why) != 0)
        ona__lua_argerror(L, 2, fn, why);
    char path[4096];
    if (name) {
        ona__system *sys = ona__lua_of(L)->sys;
        ona__services *svc = ona__lua_of(L)->svc;
        char found[4096];
        ona__lua_check_game_path(L, 1, fn, name,
                                 ona__services_locate(svc, name, found, sizeof found));
        /* Registered and watched: a change of the file restarts it (a missing one logs). It
         * writes the path to open, except where there is no music kind (no audio). */
        snprintf(path, sizeof path, "%s", found);
        ona__services_music_load(svc, found, sys->name, sys->id, path, sizeof path);
    }
    uint64_t voice = 0;
    push_cmd(L, fn, &cmd, name ? path : NULL, &voice);
    if (!name)
        return 0;
    lua_pushnumber(L, (lua_Number)voice);
    return 1;
}

void ona__lua_open_audio(lua_State *L) {
    static const luaL_Reg functions[] = {
        {"sound", l_audio_sound}, {"play", l_audio_play},       {"stop", l_audio_stop},
        {"set", l_audio_set},     {"playing", l_audio_playing}, {"volume", l_audio_volume},
        {"music", l_audio_music}, {"release", l_audio_release}, {NULL, NULL},
    };
    luaL_register(L, NULL, functions);
}
