/*
 * sound.c: the sound registry (sound.h): decoded sounds behind handles.
 *
 * Design note. A sound is decoded once, when first asked for, on the thread asking (a system's
 * turn), by sound_decode.c. The registry works like the texture registry (gfx/texture.c): handles
 * are generation-checked (core/handle.h), a slot freed by an unload (main, at the frame boundary)
 * is reused with the next generation, and decoding happens outside the lock. Which path has which
 * handle is the asset registry's (services/assets.c), which loads each path once. A file that
 * cannot be read or decoded is logged by name and gets a silent sound of its own (0 frames),
 * which plays as nothing until a reload gives it the file's samples. A reload (main, at the frame
 * boundary) decodes again and swaps the samples under the same handle; audio.c re-points playing
 * voices under the device's lock.
 */
#include "sound.h"

#include "common.h"
#include "handle.h"

static ona__sound *slot_of(ona__sounds *s, uint32_t id) {
    return ONA__HANDLE_LOOKUP(s->slots, ona__sound, ONA__MAX_SOUNDS, id);
}

void ona__pcm_free(ona__pcm *pcm) {
    if (pcm) {
        ona__free(pcm->frames);
        ona__free(pcm);
    }
}

/* Called with the lock held; takes `pcm`. A slot freed by ona__sounds_unload is reused first,
 * with the next generation. */
static int insert(ona__sounds *s, ona__pcm *pcm, ona_sound *out) {
    uint32_t index;
    if (!ona__handle_take_slot(s->free_slots, &s->free_count, &s->used, ONA__MAX_SOUNDS, &index))
        return ONA_ELIMIT;
    ona__sound *slot = &s->slots[index];
    slot->generation = ona__handle_next_generation(slot->generation);
    slot->pcm = pcm;
    out->id = ona__handle_make(index, slot->generation);
    /* release: readers that see the id see the fields above. */
    atomic_store_explicit(&slot->id, out->id, memory_order_release);
    return 0;
}

int ona__sounds_init(ona__sounds *s) {
    memset(s, 0, sizeof *s);
    for (uint32_t i = 0; i < ONA__MAX_SOUNDS; i++)
        atomic_init(&s->slots[i].id, 0);
    if (uv_mutex_init(&s->lock))
        return ONA_ENOMEM;
    ona__pcm *silent = ona__calloc(1, sizeof *silent);
    if (!silent) {
        uv_mutex_destroy(&s->lock);
        return ONA_ENOMEM;
    }
    insert(s, silent, &s->placeholder);
    return 0;
}

void ona__sounds_free(ona__sounds *s) {
    for (uint32_t i = 0; i < s->used; i++)
        ona__pcm_free(s->slots[i].pcm);
    s->used = 0;
    uv_mutex_destroy(&s->lock);
}

int ona__sounds_load(ona__sounds *s, const char *path, const char *who, ona_sound *out) {
    out->id = s->placeholder.id;
    ona__pcm *pcm = NULL;
    int rc = ona__sound_decode(path, who, &pcm);
    if (rc) /* the file's own silence, which a reload replaces when the file can be read */
        pcm = ona__calloc(1, sizeof *pcm);
    if (!pcm)
        return rc ? rc : ONA_ENOMEM;
    uv_mutex_lock(&s->lock);
    int made = insert(s, pcm, out);
    uv_mutex_unlock(&s->lock);
    if (made) {
        ona__pcm_free(pcm);
        out->id = s->placeholder.id;
        ona_log(ONA_LOG_ERROR, who, "sound %s: %s (at most %d sounds); playing silence instead",
                path, ona_strerror(made), ONA__MAX_SOUNDS);
    }
    return rc ? rc : made;
}

bool ona__sounds_valid(ona__sounds *s, ona_sound sound) {
    return slot_of(s, sound.id) != NULL;
}

const ona__pcm *ona__sounds_pcm(ona__sounds *s, uint32_t id) {
    ona__sound *slot = slot_of(s, id);
    if (!slot)
        return NULL;
    uv_mutex_lock(&s->lock);
    const ona__pcm *pcm = slot->pcm;
    uv_mutex_unlock(&s->lock);
    return pcm;
}

ona__pcm *ona__sounds_unload(ona__sounds *s, uint32_t id) {
    ona__sound *slot = slot_of(s, id);
    if (!slot || id == s->placeholder.id)
        return NULL;
    uv_mutex_lock(&s->lock);
    /* release: the frame's start orders this before any turn that could look the id up. */
    atomic_store_explicit(&slot->id, 0, memory_order_release);
    ona__pcm *old = slot->pcm;
    slot->pcm = NULL;
    s->free_slots[s->free_count++] = (uint32_t)(slot - s->slots);
    uv_mutex_unlock(&s->lock);
    return old;
}

uint32_t ona__sounds_live(ona__sounds *s) {
    uv_mutex_lock(&s->lock);
    uint32_t n = s->used - s->free_count;
    uv_mutex_unlock(&s->lock);
    return n;
}

ona__pcm *ona__sounds_swap(ona__sounds *s, uint32_t id, ona__pcm *pcm) {
    ona__sound *slot = slot_of(s, id);
    if (!slot)
        return pcm;
    uv_mutex_lock(&s->lock);
    ona__pcm *old = slot->pcm;
    slot->pcm = pcm;
    uv_mutex_unlock(&s->lock);
    return old;
}
