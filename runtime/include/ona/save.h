/*
 * ona/save.h: saves. A save is one value of the message codec in <save folder>/<name>.save,
 * written to a temporary file, flushed and renamed over the old one, so a crash at any point
 * leaves the old save or the new one (README: Saves). The folder is ona_runtime_desc.save_dir,
 * else the per-user folder of ona_runtime_desc.game_id. Every function here may run on any
 * thread: two systems saving the same name at once each write a whole file, the last rename wins.
 * While a session is replayed (ona_runtime_desc.replay_path) the save folder is neither read
 * nor written: loads return what the recording says they returned, saves are checked and
 * dropped.
 */
#ifndef ONA_SAVE_H
#define ONA_SAVE_H

#include "ona/base.h"
#include "ona/message.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Saves `value` (a message of exactly one value: nil, booleans, numbers, strings, tables;
 * buffers are refused) as save `name` ([A-Za-z0-9_.-], at most 64 bytes) in the game's save
 * folder (ona_runtime_desc.save_dir / game_id), atomically: a crash at any point leaves the old
 * save or the new one. `value` is only read. Any thread. Errors (logged with the file's path):
 * ONA_EINVAL (NULLs, a bad name, not one value), ONA_EENCODE (a buffer), ONA_ENOENT (no save
 * folder: neither XDG_DATA_HOME nor HOME), ONA_EIO, ONA_ENOMEM. */
ONA_API int ona_runtime_save(ona_runtime *rt, const char *name, ona_message *value);
/* Loads save `name` into `out` (initialised here; release it), checking its header, length and
 * CRC32 first: a torn or corrupt file is reported, never loaded. Any thread. Errors: ONA_EINVAL,
 * ONA_ENOENT (no such save; logged at debug level only), ONA_EFORMAT (corrupt, or not a save:
 * logged with the reason and the path), ONA_EIO, ONA_ENOMEM. */
ONA_API int ona_runtime_load(ona_runtime *rt, const char *name, ona_message *out);
/* The folder saves go to ("" when there is none, or for NULL). Any thread. */
ONA_API const char *ona_runtime_save_dir(const ona_runtime *rt);
/* As ona_runtime_save / ona_runtime_load, from inside a native system's callback (ONA_EINVAL
 * for a NULL ctx). */
ONA_API int ona_ctx_save(ona_ctx *ctx, const char *name, ona_message *value);
ONA_API int ona_ctx_load(ona_ctx *ctx, const char *name, ona_message *out);

#ifdef __cplusplus
}
#endif

#endif /* ONA_SAVE_H */
