/*
 * save.h: the save file format and its atomic writes (runtime/services/save.c), shared by
 * the Lua binding (bindings/l_save.c) and the C API (ona_runtime_save / ona_ctx_save). No Lua here.
 *
 * A save is one value of the message codec (runtime/core/message.c) in a file
 * <folder>/<name>.save: a 32-byte header, then the value's message bytes. Every error text
 * starts "save <name> (<path>): " so that the log and the script both name the file.
 */
#ifndef ONA_SAVE_FORMAT_H
#define ONA_SAVE_FORMAT_H

#include "common.h"
#include "message.h"

/* The longest save name, in bytes. Names are [A-Za-z0-9_.-], not "." or "..". */
#define ONA__SAVE_MAX_NAME 64

/* The header: magic, format version, flags, payload length, payload CRC32, header CRC32. */
#define ONA__SAVE_MAGIC "ONASAVE"
/* Version 2 may hold the STRING8 tag; version 1 files hold a subset of version 2's
 * bytes, so they load as they are (the load rewrites every token through the writer). */
#define ONA__SAVE_VERSION 2u
#define ONA__SAVE_VERSION_OLDEST 1u
#define ONA__SAVE_HEADER_SIZE 32u

/* Checks a save name; 0, or ONA_EINVAL with the reason ("has a '/'", ...) in err. */
int ona__save_check_name(const char *name, char *err, size_t errsize);

/* Checks a game id (the same rules as a save name). */
bool ona__save_valid_id(const char *id);

/* The per-user folder of a game's saves: $XDG_DATA_HOME/ona/<game_id> when XDG_DATA_HOME is
 * an absolute path, else $HOME/.local/share/ona/<game_id>. 0, or ONA_ENOENT when neither
 * variable is usable, ONA_ERANGE when it does not fit. */
int ona__save_default_dir(const char *game_id, char *out, size_t size);

/* The file of save `name` in `dir`. 0, or ONA_EINVAL (bad name, reason in err), ONA_ERANGE. */
int ona__save_path(const char *dir, const char *name, char *out, size_t size, char *err,
                   size_t errsize);

/* Writes `value` (one value; buffers refused, shared strings written as plain strings) as save
 * `name` in `dir` (created, with its parents, when missing), atomically: a temporary file in
 * the same folder is written, flushed to disk (fsync), renamed over the save, and the folder is
 * synced, so a crash at any point leaves the old save or the new one, never a mix. Any thread.
 * Returns 0 or: ONA_EINVAL (bad name; no value or more than one), ONA_EENCODE (a buffer, with
 * its path "value.x is a buffer"), ONA_EIO (the file system refused; errno's text), ONA_ENOENT
 * (no folder: dir is empty), ONA_ENOMEM. err gets "save <name> (<path>): <reason>". */
int ona__save_write_message(const char *dir, const char *name, ona_message *value, char *err,
                            size_t errsize);

/* Writes `head` then `body` as the file `path` in folder `dir` (made with its parents, when
 * missing) atomically: a temporary file ".<file name>.tmp-XXXXXX" beside it is written, fsynced,
 * renamed over `path`, and the folder is synced, so a crash leaves the old file or the new one,
 * never a mix. Any thread. 0, or errno with *step naming what failed ("write it"). */
int ona__save_write_atomic(const char *dir, const char *path, const void *head, size_t head_size,
                           const void *body, size_t body_size, const char **step);

/* Reads save `name` from `dir`, checks it whole (header, length, CRC32, well-formed value) and
 * returns its payload: *bytes (ona__malloc'd, the caller frees with ona__free) of *size bytes,
 * a message body holding exactly one value with no references. Any thread. Errors: ONA_ENOENT
 * ("no such save"), ONA_EFORMAT ("corrupt: checksum mismatch", "corrupt: truncated", "not a
 * save file", "made by a newer version"), ONA_EIO, ONA_EINVAL (bad name), ONA_ENOMEM. */
int ona__save_read(const char *dir, const char *name, uint8_t **bytes, size_t *size, char *err,
                   size_t errsize);

/* Checks what ona__save_write_message would before writing (the name, one value, no buffer),
 * writing nothing: 0 or its errors, err "save <name>: <reason>". Any thread. */
int ona__save_check_value(const char *name, ona_message *value, char *err, size_t errsize);

/* Decodes a checked payload (ona__save_read's) into `out` (initialised here; empty on error):
 * 0, or the writer's error (ONA_ENOMEM). */
int ona__save_decode(const uint8_t *bytes, size_t size, ona_message *out);

/* As ona__save_read, into `out` (initialised here; empty on error). */
int ona__save_read_message(const char *dir, const char *name, ona_message *out, char *err,
                           size_t errsize);

/* The CRC32 (IEEE 802.3, as zlib's crc32) of `size` bytes, continuing from `crc` (0 to start). */
uint32_t ona__crc32(uint32_t crc, const void *bytes, size_t size);

#endif
