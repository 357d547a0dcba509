/*
 * ona/base.h: what every part of the public API shares (included by each public header; an
 * embedder includes ona/ona.h).
 *
 * Ona is an actor-model game runtime: every game system is an actor (a Lua script with its own
 * LuaJIT state, or a native C system) scheduled on worker threads and talking to other systems
 * only through bounded mailboxes. This header holds what every part of the API shares: the
 * version, the error codes, the logging hook and the allocator hook.
 *
 * Conventions used by every public function:
 *  - Fallible calls return 0 on success or a negative ONA_E* code; ona_strerror() names it.
 *  - "Any thread" means the call is safe concurrently from any thread; "main thread" means the
 *    thread that created the runtime.
 *  - The creator of an object destroys it.
 */
#ifndef ONA_BASE_H
#define ONA_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ONA_API marks the exported symbols; everything else is built with hidden visibility. */
#if defined(ONA_SHARED) && defined(ONA_BUILDING)
#define ONA_API __attribute__((visibility("default")))
#elif defined(ONA_SHARED)
#define ONA_API
#else
#define ONA_API __attribute__((visibility("default")))
#endif

#if defined(__GNUC__)
#define ONA_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define ONA_PRINTF(fmt_index, first_arg)
#endif

/* --- Version --------------------------------------------------------------------------------- */

#define ONA_VERSION_MAJOR 0
#define ONA_VERSION_MINOR 1
#define ONA_VERSION_PATCH 0
#define ONA_VERSION_STRING "0.1.0"
/* One integer that orders versions: 0xMMmmpp. */
#define ONA_VERSION_NUMBER                                                                         \
    ((ONA_VERSION_MAJOR << 16) | (ONA_VERSION_MINOR << 8) | ONA_VERSION_PATCH)

/* The version the library was built as (may differ from the header an embedder compiled with).
 * Any thread. */
ONA_API const char *ona_version(void);

/* The build type the library was compiled with, such as "Release" or "Debug+address". Any
 * thread. */
ONA_API const char *ona_build_type(void);

/* --- Errors ---------------------------------------------------------------------------------- */

/* One list gives every error: X(code name, value, text). Values are negative and stable. */
#define ONA_ERROR_LIST(X)                                                                          \
    X(ONA_EINVAL, -1, "invalid argument")                                                          \
    X(ONA_ENOMEM, -2, "out of memory")                                                             \
    X(ONA_ERANGE, -3, "value out of range")                                                        \
    X(ONA_EFORMAT, -4, "malformed format string or data")                                          \
    X(ONA_ENOENT, -5, "no such file, system or name")                                              \
    X(ONA_EIO, -6, "input/output error")                                                           \
    X(ONA_ESCRIPT, -7, "script error")                                                             \
    X(ONA_EFULL, -8, "mailbox is full")                                                            \
    X(ONA_EEMPTY, -9, "mailbox is empty")                                                          \
    X(ONA_ESTALE, -10, "stale or invalid handle")                                                  \
    X(ONA_EENCODE, -11, "value cannot be encoded in a message")                                    \
    X(ONA_EDECODE, -12, "malformed message")                                                       \
    X(ONA_EDEAD, -13, "system is stopped or killed")                                               \
    X(ONA_ELIMIT, -14, "a configured limit was reached")                                           \
    X(ONA_EDEADLOCK, -15, "systems are blocked on each other")                                     \
    X(ONA_ETHREAD, -16, "called from the wrong thread")                                            \
    X(ONA_EGFX, -17, "graphics error")                                                             \
    X(ONA_EBUSY, -18, "resource is busy")                                                          \
    X(ONA_EPATH, -19, "path outside the game folder")                                              \
    X(ONA_ENOTFILE, -20, "not a regular file")                                                     \
    X(ONA_EDIVERGED, -21, "the replay diverged from its recording")

typedef enum ona_error {
    ONA_OK = 0,
#define ONA__ERROR_ENUM(name, value, text) name = value,
    ONA_ERROR_LIST(ONA__ERROR_ENUM)
#undef ONA__ERROR_ENUM
} ona_error;

/* The text of an error code ("out of memory"); "unknown error" for a code not in the list and
 * "success" for 0. The returned string is static. Any thread. */
ONA_API const char *ona_strerror(int code);

/* The symbolic name of an error code ("ONA_ENOMEM"), or "ONA_UNKNOWN". Any thread. */
ONA_API const char *ona_error_name(int code);

/* --- Logging --------------------------------------------------------------------------------- */

typedef enum ona_log_level {
    ONA_LOG_DEBUG = 0,
    ONA_LOG_INFO = 1,
    ONA_LOG_WARN = 2,
    ONA_LOG_ERROR = 3,
} ona_log_level;

/* A log sink. `where` names the place the message is about (a module, "system 'player'",
 * "scripts/main.lua:12"); it is never NULL. `message` has no trailing newline. The sink may be
 * called from any thread at once, so it must be thread-safe; the runtime never holds one of its
 * own locks while calling it. */
typedef void (*ona_log_fn)(void *user, ona_log_level level, const char *where, const char *message);

/* Replaces the process-wide log sink; NULL restores the default, which writes
 * "ona: <level>: <where>: <message>" to stderr. Messages below `min_level` are dropped before
 * formatting. Call it before creating runtimes or while none runs: a sink swapped while other
 * threads log may still receive one message after the swap. Any thread. */
ONA_API void ona_log_set_sink(ona_log_fn fn, void *user, ona_log_level min_level);

/* Logs through the current sink. Any thread. */
ONA_API void ona_log(ona_log_level level, const char *where, const char *fmt, ...) ONA_PRINTF(3, 4);
ONA_API void ona_logv(ona_log_level level, const char *where, const char *fmt, va_list args);

/* The lower-case name of a level ("warn"). */
ONA_API const char *ona_log_level_name(ona_log_level level);

/* --- Memory ---------------------------------------------------------------------------------- */

/* The allocator the runtime's C core uses (strings, mailboxes, messages, system bookkeeping;
 * not LuaJIT's own states, which get a per-system counting allocator). `realloc` follows C's
 * realloc contract; `free` accepts NULL. Returning NULL from realloc is reported as ONA_ENOMEM
 * by the caller, never a crash. Tests install a fault-injecting allocator through this. */
typedef struct ona_allocator {
    void *(*realloc)(void *user, void *ptr, size_t size);
    void (*free)(void *user, void *ptr);
    void *user;
} ona_allocator;

/* A runtime (ona/runtime.h: ona_runtime_create), and the context a native system's callbacks get
 * (valid only during the callback). Opaque. */
typedef struct ona_runtime ona_runtime;
typedef struct ona_ctx ona_ctx;

/* Sets the process-wide allocator; NULL restores the C library's. Only while no Ona object
 * exists: memory must be freed by the allocator that made it. Main thread. */
ONA_API void ona_set_allocator(const ona_allocator *allocator);

#ifdef __cplusplus
}
#endif

#endif /* ONA_BASE_H */
