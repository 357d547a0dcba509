/*
 * fuzz_message.c: the message-codec fuzz target. Untrusted bytes go through
 * ona_message_validate (the C checker) and, when it accepts them, through the Lua byte decoder
 * (ona__message_decode_bytes_lua) into a lua_State; what the decoder pushed is encoded back with
 * the Lua encoder and checked again.
 *
 * Design note. One file, two builds: with ONA_BUILD_FUZZ and clang it is linked with
 * -fsanitize=fuzzer,address into `fuzz_message`; everywhere it is also compiled plainly into
 * test_fuzz_corpus, which replays tests/fuzz/corpus/message/ through the same function, so every
 * input the fuzzer ever made us fix stays a test on every build. Properties, each an abort():
 * the two decoders agree on valid/invalid and on the value count, nothing is pushed for invalid
 * bytes, and decoded values always re-encode to a message the checker accepts with the same
 * count. The lua_State is made once (a fresh one per input would spend the fuzzer's time in
 * luaL_openlibs) and emptied after each input; the decode runs under lua_cpcall, because it may
 * raise a Lua memory error, which must not reach the panic handler.
 */
#include "fuzz_message.h"

#include "l_message.h"
#include "l_types.h"
#include "message.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct decode_call {
    const uint8_t *data;
    size_t size;
    int pushed;
    char err[128];
} decode_call;

/* Under lua_cpcall: the decoded values are left on the stack above the light userdata. */
static int decode_protected(lua_State *L) {
    decode_call *call = lua_touserdata(L, 1);
    lua_pop(L, 1);
    call->pushed =
        ona__message_decode_bytes_lua(call->data, call->size, L, call->err, sizeof call->err);
    /* lua_cpcall drops the results; keep them in a table in the registry for the re-encode. */
    if (call->pushed > 0) {
        lua_createtable(L, call->pushed, 0);
        lua_insert(L, 1);
        for (int i = call->pushed; i >= 1; i--)
            lua_rawseti(L, 1, i);
        lua_setfield(L, LUA_REGISTRYINDEX, "ona_fuzz_values");
    }
    return 0;
}

static void fail(const char *what, const uint8_t *data, size_t size) {
    fprintf(stderr, "fuzz_message: %s (%zu bytes:", what, size);
    for (size_t i = 0; i < size && i < 64; i++)
        fprintf(stderr, " %02x", data[i]);
    fprintf(stderr, "%s)\n", size > 64 ? " ..." : "");
    abort();
}

static lua_State *state(void) {
    static lua_State *L;
    if (!L) {
        L = luaL_newstate();
        if (!L)
            abort();
        luaL_openlibs(L);
        ona__lua_register_types(L);
    }
    return L;
}

int ona_fuzz_message(const uint8_t *data, size_t size) {
    uint32_t count = 0;
    int rc = ona_message_validate(data, size, &count);
    if (rc != 0 && rc != ONA_EDECODE)
        fail("validate answered neither 0 nor ONA_EDECODE", data, size);

    lua_State *L = state();
    decode_call call = {.data = data, .size = size, .pushed = 0};
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "ona_fuzz_values");
    if (lua_cpcall(L, decode_protected, &call) != 0) {
        /* Only a memory error may escape the decoder; say which. */
        fprintf(stderr, "fuzz_message: decoder raised: %s\n", lua_tostring(L, -1));
        lua_settop(L, 0);
        return rc;
    }
    if (lua_gettop(L) != 0)
        fail("the decoder left values on the stack", data, size);
    if ((rc == 0) != (call.pushed >= 0))
        fail("validate and the Lua decoder disagree", data, size);
    if (rc != 0) {
        if (call.pushed != ONA_EDECODE)
            fail("the Lua decoder failed with another error than ONA_EDECODE", data, size);
        return rc;
    }
    if ((uint32_t)call.pushed != count)
        fail("validate and the Lua decoder count different values", data, size);

    /* Re-encode what was decoded: it must be a valid message again, with as many values. */
    lua_getfield(L, LUA_REGISTRYINDEX, "ona_fuzz_values");
    int n = call.pushed;
    if (n > 0) {
        if (!lua_istable(L, -1) || !lua_checkstack(L, n + 1))
            fail("lost the decoded values", data, size);
        for (int i = 1; i <= n; i++)
            lua_rawgeti(L, 1, i);
    }
    ona_message m;
    ona_message_init(&m);
    ona__moves moves;
    char err[256];
    int enc = ona__message_encode_lua(&m, L, 2, 1 + n, &moves, err, sizeof err);
    if (enc != 0) {
        fprintf(stderr, "fuzz_message: re-encode failed: %s\n", err);
        fail("decoded values do not encode again", data, size);
    }
    uint32_t again = 0;
    if (ona__message_check(ona__message_bytes(&m), m.size, true, &again, NULL, err, sizeof err) !=
            0 ||
        again != count || ona_message_count(&m) != count)
        fail("the re-encoded message is not valid or counts differently", data, size);
    ona_message_release(&m);
    lua_settop(L, 0);
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, "ona_fuzz_values");
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ona_fuzz_message(data, size);
    return 0;
}
