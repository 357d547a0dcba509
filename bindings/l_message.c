/*
 * l_message.c: the Lua side of the message codec (runtime/core/message.h): encoding values from a
 * sender's stack into a message, committing the buffer moves, and decoding a message onto a
 * receiver's stack. The byte format and the writer are message.c's.
 *
 * Design note. Encoding walks the values with the C writer, so the format has one producer and
 * a failure rolls back through ona_message_writer_end. It never raises a Lua error: it only uses
 * API calls that cannot raise on the values it meets (lua_checkstack for room, lua_rawgeti and
 * lua_next for traversal, lua_tolstring only on values that already are strings), and it reports
 * refusals as ONA_EENCODE / ONA_ELIMIT with the path of the bad value ("msg.enemies[3].cb is a
 * function"). Cycles are found by keeping the tables on the current path (at most
 * ONA_MESSAGE_MAX_DEPTH), so a table reached twice along different paths is simply copied
 * twice; the message size limit bounds that. Buffers are not moved by encoding: their handles
 * are recorded in ona__moves and killed by ona__message_commit_moves once the message is in a
 * mailbox, so a send that parks or fails leaves the sender's handles alive.
 *
 * Decoding first checks the whole message (ona__message_check), so a malformed one pushes
 * nothing, then pushes values. It may raise a Lua memory error; each reference is cleared from
 * the bytes only after the userdata that takes it owns it (its metatable with __gc is set), so
 * after a raise ona_message_release frees exactly what Lua did not get.
 */
#include "common.h"

#include "l_types.h"
#include "l_message.h"
#include "l_physics.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>

#define PTR_SIZE sizeof(void *)
#define LUA_TCDATA_ 10 /* LuaJIT's lua_type for FFI cdata (not in lua.h) */

/* --- Paths ----------------------------------------------------------------------------------- */

typedef struct path_key {
    int type; /* LUA_TSTRING, LUA_TNUMBER or LUA_TBOOLEAN */
    const char *s;
    size_t len;
    double n;
} path_key;

typedef struct encoder {
    lua_State *L;
    ona_message_writer w;
    ona__moves *moves;
    char *err;
    size_t errsize;
    const char *name; /* what `err` calls the root values: "msg", "msg#2" */
    int root;         /* 1-based position of the top-level value being encoded */
    int roots;        /* how many top-level values */
    int depth;        /* tables open on the current path */
    const void *tables[ONA_MESSAGE_MAX_DEPTH];
    path_key keys[ONA_MESSAGE_MAX_DEPTH]; /* keys[k]: the key taken inside tables[k] */
} encoder;

static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) ONA_PRINTF(4, 5);
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...) {
    if (*len + 1 >= size)
        return;
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(buf + *len, size - *len, fmt, args);
    va_end(args);
    if (n > 0)
        *len = ONA_MIN(*len + (size_t)n, size - 1);
}

static bool is_identifier(const char *s, size_t len) {
    static const char *const reserved[] = {"and",   "break", "do",       "else", "elseif", "end",
                                           "false", "for",   "function", "goto", "if",     "in",
                                           "local", "nil",   "not",      "or",   "repeat", "return",
                                           "then",  "true",  "until",    "while"};
    if (len == 0 || len > 40)
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
            return false;
    }
    for (size_t i = 0; i < ONA_ARRAY_COUNT(reserved); i++)
        if (strlen(reserved[i]) == len && memcmp(reserved[i], s, len) == 0)
            return false;
    return true;
}

static void append_key(char *buf, size_t size, size_t *len, const path_key *k) {
    if (k->type == LUA_TBOOLEAN) {
        append(buf, size, len, "[%s]", k->n != 0 ? "true" : "false");
    } else if (k->type == LUA_TNUMBER) {
        if (k->n == floor(k->n) && fabs(k->n) < 9007199254740992.0)
            append(buf, size, len, "[%lld]", (long long)k->n);
        else
            append(buf, size, len, "[%.17g]", k->n);
    } else if (is_identifier(k->s, k->len)) {
        append(buf, size, len, ".%.*s", (int)k->len, k->s);
    } else {
        enum { SHOWN = 24 };
        append(buf, size, len, "[\"");
        for (size_t i = 0; i < k->len && i < SHOWN; i++) {
            unsigned char c = (unsigned char)k->s[i];
            if (c == '"' || c == '\\')
                append(buf, size, len, "\\%c", c);
            else if (c == '\n')
                append(buf, size, len, "\\n");
            else if (c < 0x20 || c == 0x7f)
                append(buf, size, len, "\\%u", (unsigned)c);
            else
                append(buf, size, len, "%c", c);
        }
        append(buf, size, len, "%s\"]", k->len > SHOWN ? "..." : "");
    }
}

/* The path of the value reached through the first `levels` keys of the current path. */
static void format_path(const encoder *e, int levels, char *buf, size_t size) {
    size_t len = 0;
    buf[0] = '\0';
    if (e->roots > 1)
        append(buf, size, &len, "%s#%d", e->name, e->root);
    else
        append(buf, size, &len, "%s", e->name);
    for (int k = 0; k < levels; k++)
        append_key(buf, size, &len, &e->keys[k]);
}

/* Records a refusal of the value at the current path: "<path> <what>". */
static int refuse(encoder *e, int code, int levels, const char *what) {
    if (e->err && e->errsize) {
        char path[256];
        format_path(e, levels, path, sizeof path);
        snprintf(e->err, e->errsize, "%s %s", path, what);
    }
    return code;
}

/* Turns a writer error into the caller's error text. */
static int writer_refusal(encoder *e) {
    int rc = e->w.error;
    char what[128];
    if (rc == ONA_ENOMEM)
        snprintf(what, sizeof what, "could not be encoded: out of memory");
    else if (rc == ONA_ERANGE)
        snprintf(what, sizeof what, "makes the message larger than %u bytes",
                 (unsigned)ONA_MESSAGE_MAX_SIZE);
    else
        snprintf(what, sizeof what, "could not be encoded: %s", ona_strerror(rc));
    return refuse(e, rc, e->depth, what);
}

/* 0 while the writer has no error (inlined: it follows every token). */
static inline int check_writer(encoder *e) {
    return e->w.error == 0 ? 0 : writer_refusal(e);
}

/* --- Encoding -------------------------------------------------------------------------------- */

static int encode_value(encoder *e, int idx);

/* A string key or value: short ones through the writer's fast path (message.h), which skips
 * the public writer's per-token checks (a string may go anywhere, and the writer has no error
 * here: every token before was followed by check_writer). */
static inline void put_string(encoder *e, const char *s, size_t len) {
    if (len <= UINT8_MAX)
        ona__message_put_string8(&e->w, s, len);
    else
        ona_message_write_string(&e->w, s, len);
}

/* Writes the key at `idx` and records it as the current path's last key (for error texts).
 * One lua_type and one lua_tolstring per key: recording and writing used to read it twice. */
static int encode_key(encoder *e, int idx) {
    lua_State *L = e->L;
    path_key *k = &e->keys[e->depth - 1];
    int type = lua_type(L, idx);
    k->type = type;
    k->s = NULL;
    k->len = 0;
    k->n = 0;
    switch (type) {
    case LUA_TSTRING:
        k->s = lua_tolstring(L, idx, &k->len);
        put_string(e, k->s, k->len);
        break;
    case LUA_TNUMBER:
        k->n = lua_tonumber(L, idx); /* never NaN: a Lua table refuses NaN keys */
        ona__message_put_number(&e->w, k->n);
        break;
    case LUA_TBOOLEAN:
        k->n = lua_toboolean(L, idx);
        ona_message_write_boolean(&e->w, k->n != 0);
        break;
    default: {
        char what[64];
        snprintf(what, sizeof what, "has a %s key",
                 type == LUA_TLIGHTUSERDATA ? "light userdata" : lua_typename(L, type));
        return refuse(e, ONA_EENCODE, e->depth - 1, what);
    }
    }
    return check_writer(e);
}

/* A value inside a table: numbers and strings inline here (no call, one lua_type), the rest
 * through encode_value. */
static inline int encode_field(encoder *e, int idx) {
    lua_State *L = e->L;
    int type = lua_type(L, idx);
    if (type == LUA_TNUMBER) {
        ona__message_put_number(&e->w, lua_tonumber(L, idx));
    } else if (type == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        put_string(e, s, len);
    } else {
        return encode_value(e, idx);
    }
    return check_writer(e);
}

static int encode_table(encoder *e, int idx) {
    lua_State *L = e->L;
    if (lua_getmetatable(L, idx)) {
        lua_pop(L, 1);
        return refuse(e, ONA_EENCODE, e->depth, "is a table with a metatable");
    }
    const void *self = lua_topointer(L, idx);
    for (int k = 0; k < e->depth; k++) {
        if (e->tables[k] == self) {
            char back[256], what[300];
            format_path(e, k, back, sizeof back);
            snprintf(what, sizeof what, "refers back to %s (cycle)", back);
            return refuse(e, ONA_EENCODE, e->depth, what);
        }
    }
    if (e->depth >= ONA_MESSAGE_MAX_DEPTH) {
        char what[64];
        snprintf(what, sizeof what, "is nested deeper than %d tables", ONA_MESSAGE_MAX_DEPTH);
        return refuse(e, ONA_ELIMIT, e->depth, what);
    }
    /* The key and value of this level, and two slots for a userdata's metatable check. */
    if (!lua_checkstack(L, 6))
        return refuse(e, ONA_ELIMIT, e->depth, "does not fit the Lua stack");
    ona_message_write_table_begin(&e->w);
    int rc = check_writer(e);
    if (rc)
        return rc;
    e->tables[e->depth++] = self;

    /* The array part 1..n first, so the receiver's table gets it as its array. */
    size_t n = lua_objlen(L, idx);
    int slot = lua_gettop(L) + 1; /* where this level's values go */
    if (n > INT32_MAX)
        n = INT32_MAX;
    for (size_t i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, (int)i);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            continue;
        }
        path_key *k = &e->keys[e->depth - 1];
        k->type = LUA_TNUMBER;
        k->n = (double)i;
        ona__message_put_number(&e->w, (double)i);
        if ((rc = check_writer(e)) != 0 || (rc = encode_field(e, slot)) != 0)
            return rc; /* the caller resets the stack */
        lua_pop(L, 1);
    }
    /* Then every other key: lua_next leaves each pair at slot, slot + 1. */
    lua_pushnil(L);
    int key = slot;
    while (lua_next(L, idx)) {
        if (n > 0 && lua_type(L, key) == LUA_TNUMBER) {
            double k = lua_tonumber(L, key);
            if (k >= 1 && k <= (double)n && k == floor(k)) {
                lua_pop(L, 1);
                continue;
            }
        }
        if ((rc = encode_key(e, key)) != 0 || (rc = encode_field(e, key + 1)) != 0)
            return rc;
        lua_pop(L, 1);
    }
    e->depth--;
    ona_message_write_table_end(&e->w);
    return check_writer(e);
}

static int encode_buffer(encoder *e, l_buffer *b) {
    ona__moves *moves = e->moves;
    if (!b->buffer)
        return refuse(e, ONA_EENCODE, e->depth, "is a buffer that was already moved");
    for (uint32_t i = 0; i < moves->count; i++)
        if (moves->handles[i] == &b->buffer)
            return refuse(e, ONA_EENCODE, e->depth, "is a buffer that is already in this message");
    if (moves->count >= ONA__MAX_MOVES) {
        char what[80];
        snprintf(what, sizeof what, "is a buffer past the limit of %d per message", ONA__MAX_MOVES);
        return refuse(e, ONA_ELIMIT, e->depth, what);
    }
    if (e->w.msg->flags & ONA__MESSAGE_OWNS_BUFFERS)
        return refuse(e, ONA_EINVAL, e->depth,
                      "is a buffer, but the message already owns buffers written from C");
    ona__message_write_buffer_lent(&e->w, b->buffer);
    int rc = check_writer(e);
    if (rc == 0)
        moves->handles[moves->count++] = &b->buffer;
    return rc;
}

static int encode_value(encoder *e, int idx) {
    lua_State *L = e->L;
    int type = lua_type(L, idx);
    switch (type) {
    case LUA_TNIL:
        ona_message_write_nil(&e->w);
        break;
    case LUA_TBOOLEAN:
        ona_message_write_boolean(&e->w, lua_toboolean(L, idx));
        break;
    case LUA_TNUMBER:
        ona__message_put_number(&e->w, lua_tonumber(L, idx));
        break;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        put_string(e, s, len);
        break;
    }
    case LUA_TTABLE:
        return encode_table(e, idx);
    case LUA_TUSERDATA: {
        ona_string *s = ona__lua_to_string(L, idx);
        if (s) {
            ona_message_write_ona_string(&e->w, s);
            break;
        }
        l_buffer *b = ona__lua_to_buffer(L, idx);
        if (b)
            return encode_buffer(e, b);
        const char *physics = ona__lua_physics_refusal(L, idx);
        return refuse(e, ONA_EENCODE, e->depth, physics ? physics : "is a userdata");
    }
    case LUA_TLIGHTUSERDATA:
        return refuse(e, ONA_EENCODE, e->depth, "is a light userdata");
    case LUA_TFUNCTION:
        return refuse(e, ONA_EENCODE, e->depth, "is a function");
    case LUA_TTHREAD:
        return refuse(e, ONA_EENCODE, e->depth, "is a thread");
    case LUA_TCDATA_:
        return refuse(e, ONA_EENCODE, e->depth, "is a cdata");
    default: {
        char what[64];
        snprintf(what, sizeof what, "is a %s", lua_typename(L, type));
        return refuse(e, ONA_EENCODE, e->depth, what);
    }
    }
    return check_writer(e);
}

int ona__message_encode_lua(ona_message *m, lua_State *L, int first, int last, ona__moves *moves,
                            char *err, size_t errsize) {
    return ona__message_encode_lua_named(m, L, first, last, moves, "msg", err, errsize);
}

int ona__message_encode_lua_named(ona_message *m, lua_State *L, int first, int last,
                                  ona__moves *moves, const char *name, char *err, size_t errsize) {
    if (err && errsize)
        err[0] = '\0';
    if (!m || !L || !moves)
        return ONA_EINVAL;
    moves->count = 0;
    /* Scalars only: tables[] and keys[] are written for a depth before they are read, and
     * clearing them (1.5 KB) cost more than encoding a small message. */
    encoder e;
    e.depth = 0;
    e.root = 0;
    e.L = L;
    e.moves = moves;
    e.err = err;
    e.errsize = errsize;
    e.name = name;
    e.roots = last >= first ? last - first + 1 : 0;
    ona_message_writer_begin(&e.w, m);
    int top = lua_gettop(L);
    int rc = 0;
    /* Room for a top-level userdata's metatable check. */
    if (e.roots > 0 && !lua_checkstack(L, 4))
        rc = refuse(&e, ONA_ELIMIT, 0, "does not fit the Lua stack");
    for (int i = first; i <= last && rc == 0; i++) {
        e.root = i - first + 1;
        e.depth = 0;
        rc = encode_value(&e, i);
    }
    /* A successful encode pops what it pushed (each pair, then lua_next's last key); only a
     * refusal leaves values behind. lua_settop was ~1% of a table message. */
    if (rc)
        lua_settop(L, top);
    ONA_ASSERT(lua_gettop(L) == top);
    if (rc && !e.w.error)
        e.w.error = rc; /* makes writer_end roll back what this call wrote */
    int end = ona_message_writer_end(&e.w);
    if (end) {
        moves->count = 0;
        if (!rc) {
            rc = end;
            if (err && errsize)
                snprintf(err, errsize, "message could not be encoded: %s", ona_strerror(rc));
        }
    }
    return rc;
}

/* --- Decoding -------------------------------------------------------------------------------- */

typedef struct decoder {
    lua_State *L;
    const uint8_t *bytes;
    uint8_t *slots; /* the message's bytes, where moved references are cleared; NULL for bytes */
    uint32_t size;
    uint32_t offset;
} decoder;

static void next_token(decoder *d, ona__token *t) {
    /* Well formed: checked by ona__message_check, or written by the writer (see decode). */
    ONA_ASSERT(d->offset < d->size);
    ona__message_token_trusted(d->bytes, &d->offset, t);
    ONA_ASSERT(d->offset <= d->size);
}

static void push_value(decoder *d, const ona__token *t);

/* Pushes the token at d->offset and steps past it when it is a short string, a number or a
 * boolean, read straight from the bytes: false for any other tag (nothing pushed). Inlined into
 * the table loop, so a small table's keys and values cost no call and no token struct: this and
 * push_next were ~300 of a 5,200-instruction `{x, y, name}` message. */
static inline bool push_scalar(decoder *d) {
    lua_State *L = d->L;
    const uint8_t *p = d->bytes + d->offset;
    ONA_ASSERT(d->offset < d->size);
    switch (p[0]) {
    case ONA__TAG_STRING8:
        lua_pushlstring(L, (const char *)p + 2, p[1]);
        d->offset += 3u + p[1];
        break;
    case ONA__TAG_NUMBER: {
        double v;
        memcpy(&v, p + 1, sizeof v);
        lua_pushnumber(L, v);
        d->offset += 1u + (uint32_t)sizeof v;
        break;
    }
    case ONA__TAG_FALSE:
    case ONA__TAG_TRUE:
        lua_pushboolean(L, p[0] == ONA__TAG_TRUE);
        d->offset += 1;
        break;
    default:
        return false;
    }
    ONA_ASSERT(d->offset <= d->size);
    return true;
}

/* Pushes the token at d->offset, whatever it is, and steps past it. */
static void push_next(decoder *d) {
    if (push_scalar(d))
        return;
    ona__token t;
    next_token(d, &t);
    push_value(d, &t);
}

static void push_value(decoder *d, const ona__token *t) {
    lua_State *L = d->L;
    switch (t->tag) {
    case ONA__TAG_FALSE:
    case ONA__TAG_TRUE:
        lua_pushboolean(L, t->tag == ONA__TAG_TRUE);
        break;
    case ONA__TAG_NUMBER:
        lua_pushnumber(L, t->as.number);
        break;
    case ONA__TAG_STRING:
    case ONA__TAG_STRING8:
        lua_pushlstring(L, t->as.str.bytes, t->as.str.size);
        break;
    case ONA__TAG_SHORT_STRING: {
        ona_string s;
        ona_string_create(&s, t->as.str.bytes, t->as.str.size); /* inline: cannot fail */
        ona__lua_push_string(L, &s);
        break;
    }
    case ONA__TAG_STRING_REF: {
        if (!t->as.ref.heap || !d->slots) {
            lua_pushnil(L);
            break;
        }
        ona_string s;
        memset(&s, 0, sizeof s);
        s.h.heap = t->as.ref.heap;
        s.h.size = (size_t)t->as.ref.size;
        s.h.tag = ONA__STRING_HEAP_TAG;
        /* If this raises, the message still holds the reference; once it returns the userdata
         * does, and the slot is cleared before anything else can raise. */
        ona__lua_push_string(L, &s);
        memset(d->slots + t->slot, 0, PTR_SIZE);
        break;
    }
    case ONA__TAG_BUFFER_REF:
        if (!t->as.buffer || !d->slots) {
            lua_pushnil(L);
            break;
        }
        ona__lua_push_buffer(L, t->as.buffer); /* as for strings above */
        memset(d->slots + t->slot, 0, PTR_SIZE);
        break;
    case ONA__TAG_TABLE:
        lua_createtable(L, (int)t->as.table.array_size, (int)t->as.table.hash_size);
        while (d->bytes[d->offset] != ONA__TAG_END) {
            if (!push_scalar(d)) /* the key */
                push_next(d);
            if (!push_scalar(d)) /* its value */
                push_next(d);
            lua_rawset(L, -3);
        }
        d->offset++; /* the END */
        break;
    default: /* NIL; END and unknown tags were refused by the check */
        lua_pushnil(L);
        break;
    }
}

/* Checks, makes stack room, pushes. `slots` is NULL for untrusted bytes. */
static int decode(lua_State *L, const uint8_t *bytes, uint8_t *slots, size_t size, bool trusted,
                  const ona_message *m, char *err, size_t errsize) {
    uint32_t count = 0, buffers = 0;
    if (m) {
        /* A message's bytes were written by the writer, the format's one producer (message.c):
         * well formed, m->count top-level values, and buffers not yet owned exactly while
         * ONA__MESSAGE_LENT_BUFFERS is set. Walking them again cost ~570 instructions of a
         * 7,100-instruction table message, so the check runs only as an assertion in
         * debug and sanitizer builds; bytes from outside (m == NULL) are always checked. */
#if defined(ONA_DEBUG) || defined(ONA_SANITIZER_BUILD)
        int checked = ona__message_check(bytes, size, trusted, &count, &buffers, err, errsize);
        ONA_ASSERT(checked == 0 && count == m->count);
        ONA_ASSERT(!buffers ||
                   (m->flags & (ONA__MESSAGE_OWNS_BUFFERS | ONA__MESSAGE_LENT_BUFFERS)));
#endif
        count = m->count;
        buffers = (m->flags & ONA__MESSAGE_LENT_BUFFERS) ? 1 : 0;
    } else {
        int rc = ona__message_check(bytes, size, trusted, &count, &buffers, err, errsize);
        if (rc)
            return rc;
    }
    if (m && count != m->count) {
        if (err && errsize)
            snprintf(err, errsize, "malformed message: %u values, but its count says %u",
                     (unsigned)count, (unsigned)m->count);
        return ONA_EDECODE;
    }
    if (m && buffers && !(m->flags & ONA__MESSAGE_OWNS_BUFFERS)) {
        if (err && errsize)
            snprintf(err, errsize, "message holds buffers it does not own (not committed)");
        return ONA_EINVAL;
    }
    /* Every top-level value, plus a table, key and value for each nesting level. */
    int room = 3 * (ONA_MESSAGE_MAX_DEPTH + 1) + LUA_MINSTACK;
    if (count > (uint32_t)(INT32_MAX - room) || !lua_checkstack(L, (int)count + room)) {
        if (err && errsize)
            snprintf(err, errsize, "message has too many values (%u) for the Lua stack",
                     (unsigned)count);
        return trusted ? ONA_ELIMIT : ONA_EDECODE;
    }
    decoder d = {L, bytes, slots, (uint32_t)size, 0};
    for (uint32_t i = 0; i < count; i++)
        push_next(&d);
    return (int)count;
}

int ona__message_decode_lua(ona_message *m, lua_State *L, char *err, size_t errsize) {
    if (err && errsize)
        err[0] = '\0';
    if (!m || !L)
        return ONA_EINVAL;
    uint8_t *bytes = ona__message_bytes(m);
    return decode(L, bytes, bytes, m->size, true, m, err, errsize);
}

int ona__message_decode_bytes_lua(const void *bytes, size_t size, lua_State *L, char *err,
                                  size_t errsize) {
    if (err && errsize)
        err[0] = '\0';
    if (!L)
        return ONA_EINVAL;
    return decode(L, bytes, NULL, size, false, NULL, err, errsize);
}
