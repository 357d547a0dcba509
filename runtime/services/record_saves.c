/*
 * record_saves.c: saves in a recorded or replayed session (record.h). While recording, every
 * save a system (or C) loads is read from the save folder as always, and what the load returned
 * (the save's payload, or "no such save", or the error) is written as an 'L' chunk. A replay
 * answers each load from the recording and never reads the save folder, and it writes nothing
 * there: a save is checked as it would be (one value, no buffer) and dropped.
 *
 * Design note. The recording holds what every load returned, not a copy of the folder: the
 * recorded run's saves are already in what its later loads returned, so dropping the replay's
 * saves keeps it identical to the recorded run, even where two systems saved and loaded one name
 * in the same frame (whose order is timing) or something outside the game changed the folder.
 * A load is matched by who made it and its rank among that loader's loads (a system's loads are
 * in its turns' order, the same on every thread count), then checked by name. One the recording
 * has not (the code changed: resimulate) gets the recording's last answer for that name up to
 * the frame, else "no such save", with a warning. Loads and saves run on any thread (a system's
 * turn, or C): the loads' chunks and counters are under `load_lock`; the parsed recording is
 * only read. A save past ONA__RECORD_CONTENT_FILE_BYTES, or past the recording's total, is
 * written as loaded without its content, with a warning; its replay answers "no such save" and
 * says it cannot be exact.
 */
#include "record.h"

#include "save.h"

#include <stdlib.h>

static int by_key(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ona__record_saves_begin(ona__record *r) {
    if (uv_mutex_init(&r->load_lock) != 0)
        return ONA_ENOMEM;
    r->load_lock_ready = true;
    if (!r->replaying || !r->rec.load_count)
        return 0;
    /* By loader, then in file order: each load's key is (loader, index), sorted. */
    uint64_t *keys = ona__malloc(r->rec.load_count * sizeof *keys);
    r->load_index = ona__malloc(r->rec.load_count * sizeof *r->load_index);
    if (!keys || !r->load_index) {
        ona__free(keys);
        return ONA_ENOMEM;
    }
    for (uint32_t i = 0; i < r->rec.load_count; i++)
        keys[i] = (uint64_t)r->rec.loads[i].loader << 32 | i;
    qsort(keys, r->rec.load_count, sizeof *keys, by_key);
    for (uint32_t i = 0; i < r->rec.load_count; i++)
        r->load_index[i] = (uint32_t)keys[i];
    ona__free(keys);
    return 0;
}

void ona__record_saves_flush(ona__record *r) {
    if (!r->load_lock_ready)
        return;
    uv_mutex_lock(&r->load_lock);
    ona__rec_put_bytes(&r->buf, r->load_buf.bytes, r->load_buf.size);
    if (r->load_buf.failed)
        r->buf.failed = true; /* a load's chunk is lost: the recording stops, saying so */
    r->load_buf.size = 0;
    r->load_buf.failed = false;
    uv_mutex_unlock(&r->load_lock);
}

void ona__record_saves_end(ona__record *r) {
    if (r->load_lock_ready)
        uv_mutex_destroy(&r->load_lock);
    r->load_lock_ready = false;
    ona__rec_buf_free(&r->load_buf);
    ona__free(r->load_seq);
    ona__free(r->load_index);
    r->load_seq = r->load_index = NULL;
    r->load_seq_cap = 0;
}

int ona__record_save(ona__record *r, const char *dir, const char *name, ona_message *value,
                     char *err, size_t errsize) {
    if (r && (r->replaying || r->replayed))
        return ona__save_check_value(name, value, err, errsize);
    return ona__save_write_message(dir, name, value, err, errsize);
}

/* Who is loading: the running system of `core` (spawn order + 1), else C (0). */
static uint32_t loader_of(ona__core *core) {
    ona__system *sys = ona__core_running();
    return sys && sys->core == core ? sys->spawn_order + 1 : 0;
}

/* The frame a load runs in: the running turn's, or main's between frames; 0 for C elsewhere. */
static uint64_t frame_of(ona__core *core) {
    return ona__core_running() || ona__core_on_main(core) ? core->frame : 0;
}

/* The recording's answer to load number `seq` of `loader`, or NULL. */
static const ona__rec_load *recorded(const ona__record *r, uint32_t loader, uint32_t seq) {
    uint32_t lo = 0, hi = r->rec.load_count;
    while (lo < hi) { /* the first of `loader`'s loads in the index */
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->rec.loads[r->load_index[mid]].loader < loader)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t at = (uint64_t)lo + seq;
    if (at >= r->rec.load_count || r->rec.loads[r->load_index[at]].loader != loader)
        return NULL;
    return &r->rec.loads[r->load_index[at]];
}

/* The recording's last answer for `name` up to `frame`, or NULL. */
static const ona__rec_load *last_of(const ona__record *r, const char *name, uint64_t frame) {
    const ona__rec_load *found = NULL;
    for (uint32_t i = 0; i < r->rec.load_count; i++)
        if (r->rec.loads[i].frame <= frame && strcmp(r->rec.loads[i].name, name) == 0)
            found = &r->rec.loads[i];
    return found;
}

/* True the first time for `flag` in this replay (under the lock: loads run on any thread), so
 * a game that loads every frame warns once, not every frame. */
static bool first_time(ona__record *r, bool *flag) {
    if (!r->load_lock_ready)
        return false;
    uv_mutex_lock(&r->load_lock);
    bool first = !*flag;
    *flag = true;
    uv_mutex_unlock(&r->load_lock);
    return first;
}

static int answer(ona__record *r, const ona__rec_load *l, const char *name, uint8_t **bytes,
                  size_t *size, char *err, size_t errsize) {
    const uint8_t *at = r->rec.contents + l->offset;
    if (l->rc) {
        snprintf(err, errsize, "%.*s", (int)l->size, (const char *)at);
        return l->rc;
    }
    if (!l->kept) {
        ona_log(first_time(r, &r->left_out_warned) ? ONA_LOG_WARN : ONA_LOG_DEBUG, "replay",
                "save %s, loaded in frame %llu of the recording, was past what a recording keeps "
                "(%u KiB a save, %u MiB in all): answered as missing, so the replay cannot be "
                "exact from here",
                name, (unsigned long long)l->frame, ONA__RECORD_CONTENT_FILE_BYTES >> 10,
                ONA__RECORD_CONTENT_TOTAL_BYTES >> 20);
        snprintf(err, errsize, "save %s: no such save (its content is not in the recording)", name);
        return ONA_ENOENT;
    }
    uint8_t *copy = ona__malloc(l->size ? l->size : 1);
    if (!copy) {
        snprintf(err, errsize, "save %s: out of memory for %u bytes", name, l->size);
        return ONA_ENOMEM;
    }
    memcpy(copy, at, l->size);
    *bytes = copy;
    *size = l->size;
    return 0;
}

static int replay_load(ona__record *r, ona__core *core, const char *name, uint8_t **bytes,
                       size_t *size, char *err, size_t errsize) {
    uint32_t loader = loader_of(core);
    uint64_t frame = frame_of(core);
    uint32_t seq = 0;
    if (r->replaying && r->load_lock_ready) {
        uv_mutex_lock(&r->load_lock);
        if (loader >= r->load_seq_cap) {
            uint32_t cap = r->load_seq_cap ? r->load_seq_cap : 64;
            while (cap <= loader)
                cap *= 2;
            uint32_t *grown = ona__realloc(r->load_seq, cap * sizeof *grown);
            if (grown) {
                memset(grown + r->load_seq_cap, 0, (cap - r->load_seq_cap) * sizeof *grown);
                r->load_seq = grown;
                r->load_seq_cap = cap;
            }
        }
        if (loader < r->load_seq_cap)
            seq = r->load_seq[loader]++;
        uv_mutex_unlock(&r->load_lock);
    }
    if (!r->replaying) { /* the runtime's end, after the recording was closed */
        snprintf(err, errsize, "save %s: no such save (loaded after the replay ended)", name);
        return ONA_ENOENT;
    }
    const ona__rec_load *l = recorded(r, loader, seq);
    if (l && strcmp(l->name, name) == 0)
        return answer(r, l, name, bytes, size, err, errsize);
    const ona__rec_load *last = last_of(r, name, frame);
    ona_log(first_time(r, &r->mismatch_warned) ? ONA_LOG_WARN : ONA_LOG_DEBUG, "replay",
            "frame %llu: save %s is loaded where the recording %s%s%s: answered %s (the save "
            "folder is not read during a replay)",
            (unsigned long long)frame, name, l ? "loaded " : "loaded nothing", l ? l->name : "",
            l ? " instead" : "", last ? "with the recording's last answer for it" : "as missing");
    if (last)
        return answer(r, last, name, bytes, size, err, errsize);
    snprintf(err, errsize, "save %s: no such save (not in the recording)", name);
    return ONA_ENOENT;
}

int ona__record_load(ona__record *r, ona__core *core, const char *dir, const char *name,
                     uint8_t **bytes, size_t *size, char *err, size_t errsize) {
    *bytes = NULL;
    *size = 0;
    int rc = ona__save_check_name(name, err, errsize);
    if (rc)
        return rc;
    if (r && (r->replaying || r->replayed))
        return replay_load(r, core, name, bytes, size, err, errsize);
    rc = ona__save_read(dir, name, bytes, size, err, errsize);
    if (!r || !r->recording || !r->load_lock_ready)
        return rc;
    uint32_t loader = loader_of(core);
    uint64_t frame = frame_of(core);
    uv_mutex_lock(&r->load_lock);
    bool kept = rc == 0 && *size <= ONA__RECORD_CONTENT_FILE_BYTES &&
                r->save_bytes + *size <= ONA__RECORD_CONTENT_TOTAL_BYTES;
    if (kept)
        r->save_bytes += *size;
    ona__rec_put_load(&r->load_buf, frame, loader, name, rc, kept ? *bytes : NULL, *size, err);
    uv_mutex_unlock(&r->load_lock);
    if (rc == 0 && !kept)
        ona_log(ONA_LOG_WARN, "record",
                "save %s (%zu bytes), loaded in frame %llu, is past what a recording keeps (%u KiB "
                "a save, %u MiB in all): its content is not recorded, so a replay cannot be exact "
                "from here",
                name, *size, (unsigned long long)frame, ONA__RECORD_CONTENT_FILE_BYTES >> 10,
                ONA__RECORD_CONTENT_TOTAL_BYTES >> 20);
    return rc;
}
