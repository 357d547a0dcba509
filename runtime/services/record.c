/*
 * record.c: recording a runtime's session and replaying it (record.h); the file format is
 * record_format.c's.
 *
 * Design note. Under ordered delivery a game is a function of its inputs: each frame's events
 * and dt (and the game's files, args and seeds). Recording writes those per frame, with a digest
 * of what every system took and gave in the frame (digest.h), and flushes the file after each
 * frame, so a crash loses at most the frame it happened in. Replaying feeds the recorded events
 * and dt in place of the devices and compares each frame's digests with the recorded ones; the
 * first difference names the frame, the system (by spawn order, which is the same on every
 * thread count) and what differed, and stops the replay. Everything here runs on main between
 * frames; the systems' digests are only read after the frame's turns, when no turn runs.
 */
#include "record.h"

#include "actor.h"

#include <errno.h>

static void record_fail(ona__record *r, const char *what) {
    ona_log(ONA_LOG_ERROR, "record", "%s %s: %s; the recording stops here", what, r->path,
            strerror(errno));
    if (r->out)
        fclose(r->out);
    r->out = NULL;
    r->recording = false;
}

/* Writes the buffer's chunks and flushes them, so what was recorded survives a crash. */
static void record_flush(ona__record *r) {
    if (!r->out)
        return;
    if (r->buf.failed) {
        errno = ENOMEM;
        record_fail(r, "out of memory recording to");
    } else if (fwrite(r->buf.bytes, 1, r->buf.size, r->out) != r->buf.size || fflush(r->out) != 0) {
        record_fail(r, "cannot write");
    }
    r->buf.size = 0;
}

int ona__record_begin(ona__record *r, const char *path, const ona__rec_header *header) {
    snprintf(r->path, sizeof r->path, "%s", path);
    r->out = fopen(path, "wb");
    if (!r->out) {
        ona_log(ONA_LOG_ERROR, "record", "cannot create the recording %s: %s", path,
                strerror(errno));
        return ONA_EIO;
    }
    r->recording = true;
    if (ona__record_saves_begin(r) != 0) {
        errno = ENOMEM;
        record_fail(r, "out of memory recording to");
        return ONA_ENOMEM;
    }
    if (header->delivery == ONA_DELIVERY_IMMEDIATE)
        ona_log(ONA_LOG_WARN, "record",
                "recording under immediate delivery: what systems receive depends on timing, so "
                "a replay may diverge (ordered delivery is deterministic)");
    ona__rec_put_header(&r->buf, header);
    ona__record_note_files(r); /* those loaded before (none from the launcher) */
    record_flush(r);
    return r->recording ? 0 : ONA_EIO;
}

int ona__replay_begin(ona__record *r, const char *path) {
    char err[1200];
    int rc = ona__recording_load(path, &r->rec, err, sizeof err);
    if (rc) {
        ona_log(ONA_LOG_ERROR, "replay", "%s", err);
        ona__recording_free(&r->rec);
        return rc;
    }
    if (strcmp(r->rec.runtime_version, ONA_VERSION_STRING) != 0)
        ona_log(ONA_LOG_WARN, "replay", "%s was recorded by Ona %s; this is %s", path,
                r->rec.runtime_version, ONA_VERSION_STRING);
    if (r->rec.truncated)
        ona_log(ONA_LOG_WARN, "replay",
                "%s stops inside a chunk (a crash while recording?): replaying its %u whole "
                "frames",
                path, r->rec.frame_count);
    r->replaying = true;
    if (ona__record_saves_begin(r) != 0) {
        ona_log(ONA_LOG_ERROR, "replay", "out of memory replaying %s", path);
        return ONA_ENOMEM;
    }
    uint32_t left_out = r->rec.left_out;
    for (uint32_t i = 0; i < r->rec.file_count; i++)
        left_out += r->rec.version >= 3 && r->rec.files[i].frame && r->rec.files[i].size &&
                    !r->rec.files[i].has_content;
    if (left_out)
        ona_log(ONA_LOG_WARN, "replay",
                "%s left out the content of %u loaded saves or reloaded files (past what a "
                "recording keeps): the replay cannot be exact where they are used",
                path, left_out);
    return 0;
}

const ona__rec_frame *ona__replay_next(ona__record *r, const ona_event **events) {
    if (r->next >= r->rec.frame_count) {
        if (!r->ended_logged)
            ona_log(ONA_LOG_INFO, "replay", "the recording ends after %u frames",
                    r->rec.frame_count);
        r->ended_logged = true;
        return NULL;
    }
    static const ona_event none[1]; /* a frame without events still replaces them */
    const ona__rec_frame *f = &r->rec.frames[r->next];
    *events = r->rec.events ? r->rec.events + f->first_event : none;
    return f;
}

void ona__record_steps(ona__record *r, uint64_t frame, uint32_t count, double alpha) {
    if (r->recording)
        ona__rec_put_steps(&r->buf, frame, count, alpha); /* flushed with the frame */
}

bool ona__replay_steps(ona__record *r, uint32_t *count, double *alpha) {
    *count = 1;
    *alpha = 0;
    if (r->next >= r->rec.frame_count) {
        const ona_event *unused;
        ona__replay_next(r, &unused); /* says once that the recording ended */
        return false;
    }
    uint64_t frame = r->rec.frames[r->next].frame;
    while (r->next_steps < r->rec.steps_count && r->rec.steps[r->next_steps].frame < frame)
        r->next_steps++;
    if (r->next_steps < r->rec.steps_count && r->rec.steps[r->next_steps].frame == frame) {
        const ona__rec_steps *st = &r->rec.steps[r->next_steps++];
        *count = ONA_MIN(st->count, r->rec.frame_count - r->next);
        *alpha = st->alpha;
    }
    return true;
}

/* This frame's digests, one entry per system that did something, in spawn order; the systems'
 * digests are cleared for the next frame. */
static int gather(ona__record *r, ona__core *core) {
    r->now_count = 0;
    r->interrupted_count = 0;
    for (uint32_t i = 0; i < core->system_count; i++) {
        ona__system *sys = core->systems[i];
        if (sys->interrupted) {
            sys->interrupted = false;
            if (!ona__rec_grow((void **)&r->interrupted, &r->interrupted_cap, r->interrupted_count,
                               sizeof *r->interrupted))
                return ONA_ENOMEM;
            r->interrupted[r->interrupted_count++] = sys->spawn_order;
        }
        ona__rec_digest d = {.order = sys->spawn_order};
        for (int k = 0; k < ONA__DIGEST_KINDS; k++)
            if (sys->digest_count[k]) {
                d.mask |= (uint8_t)(1u << k);
                d.count[k] = sys->digest_count[k];
                d.hash[k] = (uint32_t)sys->digest[k];
            }
        d.detail_count = ONA_MIN(d.count[ONA__DIGEST_RECEIVED], ONA__DETAIL_MESSAGES);
        memcpy(d.detail_from, sys->detail_from, d.detail_count * sizeof *d.detail_from);
        memcpy(d.detail_hash, sys->detail_hash, d.detail_count * sizeof *d.detail_hash);
        memset(sys->digest, 0, sizeof sys->digest);
        memset(sys->digest_count, 0, sizeof sys->digest_count);
        if (!d.mask)
            continue;
        if (!ona__rec_grow((void **)&r->now, &r->now_cap, r->now_count, sizeof *r->now))
            return ONA_ENOMEM;
        r->now[r->now_count++] = d;
    }
    return 0;
}

static const char *system_name(const ona__record *r, ona__core *core, uint32_t order) {
    const char *name = ona__recording_system_name(&r->rec, order);
    for (uint32_t i = 0; !name && i < core->system_count; i++)
        if (core->systems[i]->spawn_order == order)
            name = core->systems[i]->name;
    return name ? name : "?";
}

/* The name of the sender `from` (spawn order + 1; 0: C). */
static const char *sender_name(const ona__record *r, ona__core *core, uint32_t from) {
    return from ? system_name(r, core, from - 1) : "C (ona_runtime_send)";
}

/* The text of message `i` that system `order` took this frame, when the replay kept it. */
static const char *taken_text(ona__core *core, uint32_t order, uint32_t i) {
    for (uint32_t s = 0; s < core->system_count; s++)
        if (core->systems[s]->spawn_order == order)
            return core->systems[s]->detail_text && i < ONA__DETAIL_MESSAGES
                       ? core->systems[s]->detail_text + i * ONA__DETAIL_TEXT
                       : NULL;
    return NULL;
}

/* The first of the frame's first messages that differs (sender or content) between the
 * recording and now: written into the divergence, true; false when those are the same. */
static bool describe_message(ona__record *r, ona__core *core, const char *name,
                             const ona__rec_digest *was, const ona__rec_digest *now) {
    uint32_t order = was->mask ? was->order : now->order;
    if (was->count[ONA__DIGEST_RECEIVED] && !was->detail_count) /* a version 1 recording */
        return false;
    uint32_t n = ONA_MAX(was->detail_count, now->detail_count);
    for (uint32_t i = 0; i < n; i++) {
        bool in_was = i < was->detail_count, in_now = i < now->detail_count;
        if (in_was && in_now && was->detail_from[i] == now->detail_from[i] &&
            was->detail_hash[i] == now->detail_hash[i])
            continue;
        const char *value = in_now ? taken_text(core, order, i) : NULL;
        if (!in_now)
            snprintf(r->divergence, sizeof r->divergence,
                     "'%s' received message %u from '%s' in the recording, none now", name, i + 1,
                     sender_name(r, core, was->detail_from[i]));
        else if (!in_was)
            snprintf(r->divergence, sizeof r->divergence,
                     "'%s' received message %u from '%s': %s now, none in the recording", name,
                     i + 1, sender_name(r, core, now->detail_from[i]), value ? value : "?");
        else if (was->detail_from[i] != now->detail_from[i])
            snprintf(r->divergence, sizeof r->divergence,
                     "'%s' received message %u from '%s' now (%s), from '%s' in the recording",
                     name, i + 1, sender_name(r, core, now->detail_from[i]), value ? value : "?",
                     sender_name(r, core, was->detail_from[i]));
        else
            snprintf(r->divergence, sizeof r->divergence,
                     "'%s' received message %u from '%s': %s now, another one in the recording",
                     name, i + 1, sender_name(r, core, now->detail_from[i]), value ? value : "?");
        return true;
    }
    return false;
}

static const char *const kind_verbs[ONA__DIGEST_KINDS] = {"received", "drew", "played"};
static const char *const kind_nouns[ONA__DIGEST_KINDS] = {"messages", "draw calls",
                                                          "sound commands"};

/* Writes what differs between a recorded digest and this run's for one system (either may be
 * empty: the system did nothing that frame). */
static void describe(ona__record *r, ona__core *core, const ona__rec_digest *was,
                     const ona__rec_digest *now) {
    uint32_t order = was ? was->order : now->order;
    const char *name = system_name(r, core, order);
    ona__rec_digest none = {0};
    was = was ? was : &none;
    now = now ? now : &none;
    for (int k = 0; k < ONA__DIGEST_KINDS; k++) {
        if (k == ONA__DIGEST_RECEIVED &&
            (was->count[k] != now->count[k] || was->hash[k] != now->hash[k]) &&
            describe_message(r, core, name, was, now))
            return;
        if (was->count[k] != now->count[k]) {
            snprintf(r->divergence, sizeof r->divergence, "'%s' %s %u %s in the recording, %u now",
                     name, kind_verbs[k], was->count[k], kind_nouns[k], now->count[k]);
            return;
        }
        if (was->hash[k] != now->hash[k]) {
            snprintf(r->divergence, sizeof r->divergence,
                     "'%s' %s %u %s, as recorded, but not the same ones", name, kind_verbs[k],
                     now->count[k], kind_nouns[k]);
            return;
        }
    }
}

static bool same(const ona__rec_digest *a, const ona__rec_digest *b) {
    return a->mask == b->mask && memcmp(a->count, b->count, sizeof a->count) == 0 &&
           memcmp(a->hash, b->hash, sizeof a->hash) == 0;
}

/* Compares this frame's digests with the recorded frame's: the first system, in spawn order,
 * whose digests differ. */
static int compare(ona__record *r, ona__core *core, const ona__rec_frame *f) {
    const ona__rec_digest *was = r->rec.digests ? r->rec.digests + f->first_digest : NULL;
    uint32_t i = 0, j = 0;
    while (i < f->digest_count || j < r->now_count) {
        const ona__rec_digest *a = i < f->digest_count ? &was[i] : NULL;
        const ona__rec_digest *b = j < r->now_count ? &r->now[j] : NULL;
        if (a && b && a->order == b->order) {
            if (!same(a, b)) {
                describe(r, core, a, b);
                return ONA_EDIVERGED;
            }
            i++, j++;
            continue;
        }
        if (a && (!b || a->order < b->order))
            describe(r, core, a, NULL);
        else
            describe(r, core, NULL, b);
        return ONA_EDIVERGED;
    }
    return 0;
}

static bool named(ona__record *r, uint32_t order) {
    uint32_t word = order / 32;
    if (word >= r->named_words) {
        uint32_t n = word + 1 > r->named_words * 2 ? word + 1 : r->named_words * 2;
        uint32_t *grown = ona__realloc(r->named, n * sizeof *grown);
        if (!grown)
            return true; /* the name is left out; the frames are still written */
        memset(grown + r->named_words, 0, (n - r->named_words) * sizeof *grown);
        r->named = grown;
        r->named_words = n;
    }
    bool was = r->named[word] & (1u << (order % 32));
    r->named[word] |= 1u << (order % 32);
    return was;
}

/* Remembers the last frame, up to this one, where a budget interrupt ended a turn, in the
 * recording or in this replay: a divergence after it says so. */
static void note_interrupt(ona__record *r, const ona__rec_frame *f) {
    if (f->interrupted_count) {
        r->interrupt_frame = f->frame;
        r->interrupt_order = r->rec.interrupted[f->first_interrupted];
        r->interrupt_recorded = true;
    } else if (r->interrupted_count) {
        r->interrupt_frame = f->frame;
        r->interrupt_order = r->interrupted[0];
        r->interrupt_recorded = false;
    }
}

int ona__record_frame(ona__record *r, ona__core *core, double dt, const ona_event *events,
                      uint32_t event_count) {
    if (!r->recording && !r->replaying)
        return 0;
    if (gather(r, core) != 0) {
        ona_log(ONA_LOG_ERROR, "record", "out of memory gathering frame %llu's digests",
                (unsigned long long)core->frame);
        return ONA_ENOMEM;
    }
    if (r->replaying) {
        const ona__rec_frame *f = &r->rec.frames[r->next++];
        note_interrupt(r, f);
        if (r->diverged_frame) /* resimulating past the first divergence: nothing to compare */
            return 0;
        int rc = compare(r, core, f);
        if (!rc)
            return 0;
        r->diverged_frame = f->frame;
        if (r->interrupt_frame) {
            size_t n = strlen(r->divergence);
            snprintf(r->divergence + n, sizeof r->divergence - n,
                     " (a runaway interrupt ended a turn of '%s' in frame %llu %s: the turn "
                     "budget is wall time, so where it stops differs between runs)",
                     system_name(r, core, r->interrupt_order),
                     (unsigned long long)r->interrupt_frame,
                     r->interrupt_recorded ? "of the recording" : "of this replay");
        }
        if (r->resimulate) {
            ona_log(ONA_LOG_INFO, "replay",
                    "replay diverged at frame %llu: %s; resimulating with the current files, "
                    "the replay goes on to the end",
                    (unsigned long long)f->frame, r->divergence);
            return 0;
        }
        ona_log(ONA_LOG_DEBUG, "replay", "replay diverged at frame %llu: %s",
                (unsigned long long)f->frame, r->divergence);
        return rc;
    }
    ona__record_note_files(r);
    ona__record_saves_flush(r); /* the frame's loads, before it */
    for (uint32_t i = 0; i < r->now_count; i++)
        if (!named(r, r->now[i].order))
            for (uint32_t s = 0; s < core->system_count; s++)
                if (core->systems[s]->spawn_order == r->now[i].order)
                    ona__rec_put_system(&r->buf, r->now[i].order, core->systems[s]->name);
    ona__rec_put_frame(&r->buf, core->frame, dt, events, event_count, r->now, r->now_count,
                       r->interrupted, r->interrupted_count);
    record_flush(r);
    r->frames++;
    return 0;
}

size_t ona__record_send(ona__record *r, ona__core *core, uint64_t to, ona_message *m) {
    size_t mark = r->buf.size;
    ona__system *sys = r->recording ? ona__actor_resolve(core, to) : NULL;
    if (sys)
        ona__rec_put_send(&r->buf, core->frame + 1, sys->spawn_order, m);
    return mark;
}

void ona__record_unsend(ona__record *r, size_t mark) {
    if (r->recording && !r->buf.failed)
        r->buf.size = mark;
}

void ona__replay_sends(ona__record *r, ona__core *core, uint64_t frame) {
    for (; r->next_send < r->rec.send_count && r->rec.sends[r->next_send].frame <= frame;
         r->next_send++) {
        const ona__rec_send *s = &r->rec.sends[r->next_send];
        if (s->frame < frame)
            continue;
        ona__system *to = NULL;
        for (uint32_t i = 0; i < core->system_count && !to; i++)
            if (core->systems[i]->spawn_order == s->order)
                to = core->systems[i];
        ona_message m;
        int rc = to ? ona__rec_send_decode(r->rec.send_bytes + s->offset, s->size, &m) : ONA_ESTALE;
        if (rc == 0)
            rc = ona__actor_send(core, NULL, to->id, &m, NULL, NULL, 0);
        if (rc) {
            if (to)
                ona_message_release(&m);
            ona_log(ONA_LOG_WARN, "replay",
                    "frame %llu: the message sent from C to '%s' could not be replayed: %s",
                    (unsigned long long)frame, system_name(r, core, s->order), ona_strerror(rc));
        }
    }
}

void ona__record_end(ona__record *r) {
    bool replayed = r->replaying || r->replayed;
    if (r->out) {
        ona__record_saves_flush(r);
        ona__rec_put_end(&r->buf, r->frames);
        record_flush(r);
        if (r->out && fclose(r->out) != 0)
            ona_log(ONA_LOG_ERROR, "record", "cannot close %s: %s", r->path, strerror(errno));
        r->out = NULL;
    }
    ona__rec_buf_free(&r->buf);
    ona__free(r->named);
    ona__free(r->now);
    ona__free(r->interrupted);
    ona__record_files_free(r);
    ona__record_saves_end(r);
    ona__recording_free(&r->rec);
    memset(r, 0, sizeof *r);
    r->replayed = replayed; /* the systems' exits, after this, still keep off the save folder */
}
