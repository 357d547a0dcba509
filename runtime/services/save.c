/*
 * save.c: saves on disk (ona.save / ona.load, ona_runtime_save / ona_ctx_save): the file
 * format, atomic replacement, and the checks that keep a torn or corrupt file from loading.
 *
 * Design note.
 *  - Format (little-endian): "ONASAVE\0" (8 bytes), u32 format version (2), u32 flags (0), u64
 *    payload length, u32 CRC32 of the payload, u32 CRC32 of the 28 bytes before it; then the
 *    payload: the message codec's bytes for exactly one value, with no string or buffer
 *    references (shared strings are written as plain strings, buffers are refused). A reader
 *    checks the header's CRC before trusting the length, the length against the file's size,
 *    the payload's CRC, and finally the value's structure (ona_message_validate), so no byte
 *    pattern on disk decodes into garbage.
 *  - Atomicity (ona__save_write_atomic, which ona.fs.write shares): write a temporary file
 *    (mkstemp, ".<name>.save.tmp-XXXXXX") in the save's own folder, fsync it, rename it over the
 * save (atomic on POSIX file systems), then fsync the folder so the rename itself is on disk. A
 * process killed at any point leaves the old save or the new one; at worst a temporary file stays
 * behind, which is never read.
 *  - Threads: no shared state. Two systems saving the same name at once each write their own
 *    temporary file; the last rename wins and both files are whole. A load during a save reads
 *    the old or the new file, never a mix.
 *  - The runtime's saves (the end of this file): the folder is set once at creation, and every
 *    failure is logged here, so both hosts and the C API report a save the same way.
 */
#include "save.h"
#include "record.h"
#include "services.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- CRC32 ----------------------------------------------------------------------------------- */

/* One entry of the CRC32 table (reflected polynomial 0xEDB88320). */
static uint32_t crc_byte(uint32_t c) {
    for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    return c;
}

uint32_t ona__crc32(uint32_t crc, const void *bytes, size_t size) {
    /* A table on the stack, built per call: no shared state between threads, and 256 short
     * loops cost nothing beside the fsync of a save. */
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++)
        table[i] = crc_byte(i);
    const uint8_t *p = bytes;
    crc = ~crc;
    for (size_t i = 0; i < size; i++)
        crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    return ~crc;
}

/* --- Names and folders ----------------------------------------------------------------------- */

static void put_err(char *err, size_t errsize, const char *fmt, ...) ONA_PRINTF(3, 4);
static void put_err(char *err, size_t errsize, const char *fmt, ...) {
    if (!err || !errsize)
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, errsize, fmt, args);
    va_end(args);
}

static bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

int ona__save_check_name(const char *name, char *err, size_t errsize) {
    if (!name || !*name) {
        put_err(err, errsize, "a save name may not be empty");
        return ONA_EINVAL;
    }
    size_t n = strlen(name);
    if (n > ONA__SAVE_MAX_NAME) {
        put_err(err, errsize, "the save name is %zu bytes long (at most %d)", n,
                ONA__SAVE_MAX_NAME);
        return ONA_EINVAL;
    }
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        put_err(err, errsize, "'%s' is not a save name", name);
        return ONA_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!name_char(name[i])) {
            put_err(err, errsize,
                    "the save name '%.64s' has a '%c' (only letters, digits, '_', '.' and '-')",
                    name, name[i] >= 32 && name[i] < 127 ? name[i] : '?');
            return ONA_EINVAL;
        }
    }
    return 0;
}

bool ona__save_valid_id(const char *id) {
    return ona__save_check_name(id, NULL, 0) == 0;
}

int ona__save_default_dir(const char *game_id, char *out, size_t size) {
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    int n;
    /* The XDG spec: a relative XDG_DATA_HOME is invalid and is ignored. */
    if (xdg && xdg[0] == '/')
        n = snprintf(out, size, "%s/ona/%s", xdg, game_id);
    else if (home && home[0] == '/')
        n = snprintf(out, size, "%s/.local/share/ona/%s", home, game_id);
    else
        return ONA_ENOENT;
    return n > 0 && (size_t)n < size ? 0 : ONA_ERANGE;
}

int ona__save_path(const char *dir, const char *name, char *out, size_t size, char *err,
                   size_t errsize) {
    int rc = ona__save_check_name(name, err, errsize);
    if (rc)
        return rc;
    int n = snprintf(out, size, "%s/%s.save", dir, name);
    if (n < 0 || (size_t)n >= size) {
        put_err(err, errsize, "save %s: the path in '%.200s' is too long", name, dir);
        return ONA_ERANGE;
    }
    return 0;
}

/* mkdir -p: each missing parent in turn. */
static int make_dirs(const char *dir) {
    char path[4096];
    int n = snprintf(path, sizeof path, "%s", dir);
    if (n < 0 || (size_t)n >= sizeof path)
        return ENAMETOOLONG;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return errno;
        *p = '/';
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return errno;
    return 0;
}

/* --- Writing --------------------------------------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p) {
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The path of the value being copied, for the error about a buffer: "value.a[3]". */
typedef struct flat_path {
    int depth;
    bool want_key[ONA_MESSAGE_MAX_DEPTH + 1];
    char keys[ONA_MESSAGE_MAX_DEPTH + 1][48];
} flat_path;

static void describe_path(const flat_path *fp, char *buf, size_t size) {
    size_t len = (size_t)snprintf(buf, size, "value");
    for (int d = 1; d <= fp->depth && len + 1 < size; d++)
        len += (size_t)snprintf(buf + len, size - len, "%s", fp->keys[d]);
}

/* Copies `value` into `out` with every shared string written as plain bytes; refuses buffers.
 * The value is read, never changed. */
static int flatten(ona_message *value, ona_message *out, char *what, size_t whatsize) {
    ona_message_init(out);
    ona_message_writer w;
    ona_message_writer_begin(&w, out);
    ona_message_reader r;
    ona_message_reader_begin(&r, value);
    flat_path fp = {0};
    for (;;) {
        ona_value v;
        int rc = ona_message_read(&r, &v);
        if (rc) {
            ona_message_writer_end(&w);
            ona_message_release(out);
            snprintf(what, whatsize, "the value is malformed");
            return rc;
        }
        if (v.type == ONA_VALUE_END)
            break;
        bool is_key = fp.depth > 0 && fp.want_key[fp.depth] && v.type != ONA_VALUE_TABLE_END;
        if (is_key) {
            char *k = fp.keys[fp.depth];
            size_t ks = sizeof fp.keys[fp.depth];
            if (v.type == ONA_VALUE_NUMBER)
                snprintf(k, ks, "[%.17g]", v.as.number);
            else if (v.type == ONA_VALUE_STRING)
                snprintf(k, ks, ".%.40s", v.as.string.bytes);
            else if (v.type == ONA_VALUE_ONA_STRING)
                snprintf(k, ks, ".%.40s", ona_string_data(v.as.ona_string));
            else if (v.type == ONA_VALUE_BOOLEAN)
                snprintf(k, ks, "[%s]", v.as.boolean ? "true" : "false");
            fp.want_key[fp.depth] = false;
        } else if (fp.depth > 0 && v.type != ONA_VALUE_TABLE_END) {
            fp.want_key[fp.depth] = true; /* after this value, the next key */
        }
        /* The copy is the plain one but for shared strings (saved as their bytes), buffers
         * (refused) and the depth kept for error paths. */
        if (v.type != ONA_VALUE_TABLE_BEGIN && v.type != ONA_VALUE_TABLE_END &&
            ona__message_copy_plain(&w, &v))
            continue;
        switch (v.type) {
        case ONA_VALUE_ONA_STRING:
            ona_message_write_string(&w, ona_string_data(v.as.ona_string),
                                     ona_string_length(v.as.ona_string));
            break;
        case ONA_VALUE_BUFFER: {
            char path[256];
            describe_path(&fp, path, sizeof path);
            snprintf(what, whatsize,
                     "%s is a buffer (buffers cannot be saved: copy it into a table)", path);
            ona_message_writer_end(&w);
            ona_message_release(out);
            return ONA_EENCODE;
        }
        case ONA_VALUE_TABLE_BEGIN:
            ona_message_write_table_begin(&w);
            if (fp.depth < ONA_MESSAGE_MAX_DEPTH) {
                fp.depth++;
                fp.want_key[fp.depth] = true;
                fp.keys[fp.depth][0] = '\0';
            }
            break;
        case ONA_VALUE_TABLE_END:
            ona_message_write_table_end(&w);
            if (fp.depth > 0)
                fp.depth--;
            break;
        default:
            break;
        }
    }
    int rc = ona_message_writer_end(&w);
    if (rc)
        snprintf(what, whatsize, "%s", ona_strerror(rc));
    return rc;
}

int ona__save_write_atomic(const char *dir, const char *path, const void *head, size_t head_size,
                           const void *body, size_t body_size, const char **step) {
    *step = "create the folder for it";
    int e = make_dirs(dir);
    if (e)
        return e;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char tmp[4096 + 32];
    int n = snprintf(tmp, sizeof tmp, "%s/.%s.tmp-XXXXXX", dir, base);
    if (n < 0 || (size_t)n >= sizeof tmp)
        return ENAMETOOLONG;
    *step = "create a temporary file for it";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return errno;
    *step = "write it";
    e = fchmod(fd, 0644) != 0 ? errno : 0;
    if (!e)
        e = write_all(fd, head, head_size);
    if (!e)
        e = write_all(fd, body, body_size);
    if (!e && fsync(fd) != 0) {
        e = errno;
        *step = "flush it";
    }
    if (close(fd) != 0 && !e) {
        e = errno;
        *step = "close it";
    }
    if (!e && rename(tmp, path) != 0) {
        e = errno;
        *step = "rename the temporary file over it";
    }
    if (e) {
        unlink(tmp);
        return e;
    }
    /* The rename is only durable once the folder's entry is on disk. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        if (fsync(dfd) != 0)
            ona_log(ONA_LOG_WARN, "save", "%s: the folder could not be synced: %s", path,
                    strerror(errno));
        close(dfd);
    }
    return 0;
}

/* The path of save `name` in `dir`, checking the name first: 0, the error of ona__save_path, or
 * ONA_ENOENT when there is no save folder, reported as "save <name>: <no_folder>". */
static int locate(const char *dir, const char *name, char *path, size_t size, char *err,
                  size_t errsize, const char *no_folder) {
    int rc = ona__save_path(dir ? dir : "", name, path, size, err, errsize);
    if (rc)
        return rc;
    if (!dir || !*dir) {
        put_err(err, errsize, "save %s: %s", name, no_folder);
        return ONA_ENOENT;
    }
    return 0;
}

int ona__save_check_value(const char *name, ona_message *value, char *err, size_t errsize) {
    int rc = ona__save_check_name(name, err, errsize);
    if (rc)
        return rc;
    if (!value || ona_message_count(value) != 1) {
        put_err(err, errsize, "save %s: a save holds exactly one value, got %u", name,
                value ? ona_message_count(value) : 0);
        return ONA_EINVAL;
    }
    ona_message flat;
    char what[320];
    rc = flatten(value, &flat, what, sizeof what);
    if (rc) {
        put_err(err, errsize, "save %s: %s", name, what);
        return rc;
    }
    ona_message_release(&flat);
    return 0;
}

int ona__save_write_message(const char *dir, const char *name, ona_message *value, char *err,
                            size_t errsize) {
    char path[4096];
    int rc = locate(dir, name, path, sizeof path, err, errsize,
                    "no save folder (neither XDG_DATA_HOME nor HOME is set; set "
                    "ona_runtime_desc.save_dir or the launcher's --save-dir)");
    if (rc)
        return rc;
    if (!value || ona_message_count(value) != 1) {
        put_err(err, errsize, "save %s (%s): a save holds exactly one value, got %u", name, path,
                value ? ona_message_count(value) : 0);
        return ONA_EINVAL;
    }
    ona_message flat;
    char what[320];
    rc = flatten(value, &flat, what, sizeof what);
    if (rc) {
        put_err(err, errsize, "save %s (%s): %s", name, path, what);
        return rc;
    }
    const uint8_t *payload = ona__message_bytes(&flat);
    uint8_t header[ONA__SAVE_HEADER_SIZE] = {0};
    memcpy(header, ONA__SAVE_MAGIC, sizeof ONA__SAVE_MAGIC); /* with its NUL: 8 bytes */
    put_u32(header + 8, ONA__SAVE_VERSION);
    put_u32(header + 12, 0);
    put_u64(header + 16, flat.size);
    put_u32(header + 24, ona__crc32(0, payload, flat.size));
    put_u32(header + 28, ona__crc32(0, header, 28));

    const char *step;
    int e = ona__save_write_atomic(dir, path, header, sizeof header, payload, flat.size, &step);
    ona_message_release(&flat);
    if (e) {
        put_err(err, errsize, "save %s (%s): cannot %s: %s", name, path, step, strerror(e));
        return ONA_EIO;
    }
    return 0;
}

/* --- Reading --------------------------------------------------------------------------------- */

int ona__save_read(const char *dir, const char *name, uint8_t **bytes, size_t *size, char *err,
                   size_t errsize) {
    *bytes = NULL;
    *size = 0;
    char path[4096];
    int rc = locate(dir, name, path, sizeof path, err, errsize,
                    "no such save (no save folder: neither XDG_DATA_HOME nor HOME is set)");
    if (rc)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) {
            put_err(err, errsize, "save %s (%s): no such save", name, path);
            return ONA_ENOENT;
        }
        put_err(err, errsize, "save %s (%s): cannot open it: %s", name, path, strerror(e));
        return ONA_EIO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        put_err(err, errsize, "save %s (%s): not a regular file", name, path);
        return ONA_EIO;
    }
    uint64_t file_size = (uint64_t)st.st_size;
    const char *corrupt = NULL;
    char why[160];
    uint8_t header[ONA__SAVE_HEADER_SIZE];
    uint8_t *payload = NULL;
    uint64_t length = 0;
    if (file_size < ONA__SAVE_HEADER_SIZE) {
        snprintf(why, sizeof why, "corrupt: truncated (%llu bytes, shorter than the header)",
                 (unsigned long long)file_size);
        corrupt = why;
    } else if (pread(fd, header, sizeof header, 0) != (ssize_t)sizeof header) {
        corrupt = "corrupt: the header could not be read";
    } else if (memcmp(header, ONA__SAVE_MAGIC, sizeof ONA__SAVE_MAGIC) != 0) {
        corrupt = "not a save file (wrong magic)";
    } else if (get_u32(header + 28) != ona__crc32(0, header, 28)) {
        corrupt = "corrupt: header checksum mismatch";
    } else if (get_u32(header + 8) < ONA__SAVE_VERSION_OLDEST ||
               get_u32(header + 8) > ONA__SAVE_VERSION) {
        snprintf(why, sizeof why,
                 "made by another version of Ona (format %u, this one reads %u to %u)",
                 get_u32(header + 8), ONA__SAVE_VERSION_OLDEST, ONA__SAVE_VERSION);
        corrupt = why;
    } else if ((length = get_u64(header + 16)) > ONA_MESSAGE_MAX_SIZE) {
        corrupt = "corrupt: the length is past the largest value";
    } else if (length != file_size - ONA__SAVE_HEADER_SIZE) {
        snprintf(why, sizeof why, "corrupt: truncated (%llu of %llu bytes)",
                 (unsigned long long)(file_size - ONA__SAVE_HEADER_SIZE),
                 (unsigned long long)length);
        if (length < file_size - ONA__SAVE_HEADER_SIZE)
            snprintf(why, sizeof why, "corrupt: %llu bytes past the end of the value",
                     (unsigned long long)(file_size - ONA__SAVE_HEADER_SIZE - length));
        corrupt = why;
    }
    if (!corrupt) {
        payload = ona__malloc(length ? (size_t)length : 1);
        if (!payload) {
            close(fd);
            put_err(err, errsize, "save %s (%s): out of memory for %llu bytes", name, path,
                    (unsigned long long)length);
            return ONA_ENOMEM;
        }
        size_t got = 0;
        while (got < length) {
            ssize_t n = pread(fd, payload + got, (size_t)length - got,
                              (off_t)(ONA__SAVE_HEADER_SIZE + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        uint32_t count = 0;
        if (got != length)
            corrupt = "corrupt: truncated while reading";
        else if (get_u32(header + 24) != ona__crc32(0, payload, (size_t)length))
            corrupt = "corrupt: checksum mismatch";
        else if (ona_message_validate(payload, (size_t)length, &count) != 0 || count != 1)
            corrupt = "corrupt: the value is malformed";
    }
    close(fd);
    if (corrupt) {
        ona__free(payload);
        put_err(err, errsize, "save %s (%s): %s", name, path, corrupt);
        return ONA_EFORMAT;
    }
    *bytes = payload;
    *size = (size_t)length;
    return 0;
}

int ona__save_read_message(const char *dir, const char *name, ona_message *out, char *err,
                           size_t errsize) {
    ona_message_init(out);
    uint8_t *bytes;
    size_t size;
    int rc = ona__save_read(dir, name, &bytes, &size, err, errsize);
    if (rc)
        return rc;
    rc = ona__save_decode(bytes, size, out);
    ona__free(bytes);
    if (rc)
        put_err(err, errsize, "save %s: %s", name, ona_strerror(rc));
    return rc;
}

int ona__save_decode(const uint8_t *bytes, size_t size, ona_message *out) {
    ona_message_init(out);
    /* Checked bytes without references: copy them token by token through the writer, the one
     * producer of the format. This is also the conversion of older versions: a version 1 file's
     * STRING tokens come out as the writer writes strings today (STRING8 when short). */
    ona_message_writer w;
    ona_message_writer_begin(&w, out);
    uint32_t offset = 0;
    while (offset < size) {
        ona__token t;
        if (ona__message_token(bytes, (uint32_t)size, &offset, &t) != 0)
            break;
        switch (t.tag) {
        case ONA__TAG_NIL:
            ona_message_write_nil(&w);
            break;
        case ONA__TAG_FALSE:
        case ONA__TAG_TRUE:
            ona_message_write_boolean(&w, t.tag == ONA__TAG_TRUE);
            break;
        case ONA__TAG_NUMBER:
            ona_message_write_number(&w, t.as.number);
            break;
        case ONA__TAG_STRING:
        case ONA__TAG_STRING8:
        case ONA__TAG_SHORT_STRING:
            ona_message_write_string(&w, t.as.str.bytes, t.as.str.size);
            break;
        case ONA__TAG_TABLE:
            ona_message_write_table_begin(&w);
            break;
        case ONA__TAG_END:
            ona_message_write_table_end(&w);
            break;
        default:
            break;
        }
    }
    int rc = ona_message_writer_end(&w);
    if (rc)
        ona_message_release(out);
    return rc;
}

/* --- The runtime's saves (services.h) -------------------------------------------------------- */

int ona__services_init_saves(ona__services *s, const char *save_dir, const char *game_id) {
    char dir[4096];
    if (save_dir && *save_dir) {
        snprintf(dir, sizeof dir, "%s", save_dir);
    } else if (ona__save_default_dir(game_id ? game_id : "default", dir, sizeof dir) != 0) {
        ona_log(ONA_LOG_WARN, "save",
                "no save folder: neither XDG_DATA_HOME nor HOME is an absolute path (saves will "
                "fail; set ona_runtime_desc.save_dir or the launcher's --save-dir)");
        return 0;
    }
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    s->save_dir = ona__malloc(n + 1);
    if (!s->save_dir)
        return ONA_ENOMEM;
    memcpy(s->save_dir, dir, n + 1);
    return 0;
}

int ona__services_save(ona__services *s, const char *name, ona_message *value) {
    char err[512];
    int rc = ona__record_save(s->record, s->save_dir, name, value, err, sizeof err);
    if (rc)
        ona_log(ONA_LOG_ERROR, "save", "%s", err);
    return rc;
}

int ona__services_load(ona__services *s, const char *name, ona_message *out) {
    char err[512];
    uint8_t *bytes;
    size_t size;
    ona_message_init(out);
    int rc =
        ona__record_load(s->record, s->core, s->save_dir, name, &bytes, &size, err, sizeof err);
    if (rc == 0) {
        rc = ona__save_decode(bytes, size, out);
        ona__free(bytes);
        if (rc)
            snprintf(err, sizeof err, "save %s: %s", name, ona_strerror(rc));
    }
    if (rc)
        ona_log(rc == ONA_ENOENT ? ONA_LOG_DEBUG : ONA_LOG_ERROR, "save", "%s", err);
    return rc;
}
