/*
 * gl_ring.c: the persistent-mapped instance ring the sprites are written into, its fences, and
 * its growth.
 *
 * Design note. Main thread only, with the GL context current (part of the GL side; see
 * gfx_gl.c). The instance buffer is created once with glBufferStorage(PERSISTENT | COHERENT |
 * WRITE) and mapped once for its whole life. Persistent mapping lets the caller write a frame's
 * instances directly into memory the GPU reads: no glBufferSubData copy, no map/unmap per frame
 * and no driver-side orphaning. The price is that we must never overwrite instances the GPU may
 * still be reading, so the buffer is a ring of 3 equal regions, one per frame in flight. A frame
 * takes the next region, first waiting (glClientWaitSync) on the fence placed after the draws of
 * the frame that last used it, three frames ago; ona__gfx_end places the new fence
 * (glFenceSync). With three regions the CPU only waits when it is more than two frames ahead of
 * the GPU. Coherent mapping makes our writes visible to the GPU without explicit flushes.
 *
 * When a frame needs more instances than a region holds, the ring grows: glFinish (no region is
 * in use after it), a bigger buffer is made and mapped, and only then is the old one deleted, so
 * a failed growth leaves the old ring working. Growth is logged: it means the configured
 * capacity is too small, and it costs a pipeline stall.
 */
#include "gfx_gl_internal.h"
#include "common.h"

#include <stdint.h>

/* A fence wait is sliced so that a GPU that stops progressing is reported, not waited on for
 * ever: 10 slices of 1 s each. */
#define FENCE_SLICE_NS 1000000000ull
#define FENCE_SLICES 10

/* Makes and maps a ring buffer of ONA__GL_RING_FRAMES regions of `capacity` instances. */
int ona__gl_ring_create(uint32_t capacity, GLuint *buffer, ona__sprite **mapped) {
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    uint64_t bytes = (uint64_t)capacity * ONA__GL_RING_FRAMES * sizeof(ona__sprite);
    if (bytes > (uint64_t)PTRDIFF_MAX)
        return ONA_ENOMEM;
    ona__gl_clear_errors();
    GLuint b = 0;
    glCreateBuffers(1, &b);
    glNamedBufferStorage(b, (GLsizeiptr)bytes, NULL, flags);
    GLenum e = ona__gl_check("allocating the instance ring");
    void *p = e == GL_NO_ERROR ? glMapNamedBufferRange(b, 0, (GLsizeiptr)bytes, flags) : NULL;
    if (!p) {
        if (e == GL_NO_ERROR)
            e = ona__gl_check("mapping the instance ring");
        glDeleteBuffers(1, &b);
        return e == GL_OUT_OF_MEMORY || e == GL_NO_ERROR ? ONA_ENOMEM : ONA_EGFX;
    }
    *buffer = b;
    *mapped = p;
    return 0;
}

void ona__gl_ring_delete(ona__gfx *g) {
    for (int i = 0; i < ONA__GL_RING_FRAMES; i++) {
        if (g->fences[i])
            glDeleteSync(g->fences[i]);
        g->fences[i] = NULL;
    }
    if (g->ring) {
        if (g->mapped)
            glUnmapNamedBuffer(g->ring);
        glDeleteBuffers(1, &g->ring);
    }
    g->ring = 0;
    g->mapped = NULL;
}

void ona__gl_ring_attach(ona__gfx *g) {
    glVertexArrayVertexBuffer(g->vao, 1, g->ring, 0, sizeof(ona__sprite));
}

static int ring_grow(ona__gfx *g, uint32_t needed) {
    uint64_t capacity = g->capacity;
    while (capacity < needed)
        capacity *= 2;
    if (capacity > UINT32_MAX)
        capacity = needed;
    GLuint buffer = 0;
    ona__sprite *mapped = NULL;
    glFinish(); /* every region is idle from here: the fences can go */
    int rc = ona__gl_ring_create((uint32_t)capacity, &buffer, &mapped);
    if (rc != 0) {
        ona_log(ONA_LOG_ERROR, "gfx", "cannot grow the instance ring to %llu instances a frame: %s",
                (unsigned long long)capacity, ona_strerror(rc));
        return rc;
    }
    ona__gl_ring_delete(g);
    ona_log(ONA_LOG_INFO, "gfx",
            "instance ring grown from %u to %u instances a frame (a frame drew %u)", g->capacity,
            (unsigned)capacity, needed);
    g->ring = buffer;
    g->mapped = mapped;
    g->capacity = (uint32_t)capacity;
    g->region = 0;
    ona__gl_ring_attach(g);
    return 0;
}

/* Waits until the GPU has finished reading a region, then forgets its fence. */
static bool wait_fence(GLsync *fence) {
    if (!*fence)
        return true;
    GLenum r = GL_TIMEOUT_EXPIRED;
    for (int i = 0; i < FENCE_SLICES && r == GL_TIMEOUT_EXPIRED; i++)
        r = glClientWaitSync(*fence, GL_SYNC_FLUSH_COMMANDS_BIT, FENCE_SLICE_NS);
    if (r != GL_ALREADY_SIGNALED && r != GL_CONDITION_SATISFIED) {
        ona_log(ONA_LOG_ERROR, "gfx", "waiting for the GPU to release an instance region %s",
                r == GL_TIMEOUT_EXPIRED ? "timed out" : "failed");
        return false;
    }
    glDeleteSync(*fence);
    *fence = NULL;
    return true;
}

ona__sprite *ona__gfx_instances(ona__gfx *g, uint32_t count) {
    ONA_ASSERT(g && !g->frame_has_region);
    if (count > g->capacity) {
        if (ring_grow(g, count) != 0)
            return NULL;
    } else if (!wait_fence(&g->fences[g->region])) {
        return NULL;
    }
    g->frame_has_region = true;
    g->frame_count = count;
    return g->mapped + (size_t)g->region * g->capacity;
}

void ona__gfx_end(ona__gfx *g) {
    if (!g->frame_has_region)
        return;
    /* The region's fence covers every draw of this frame; the region is reused
     * ONA__GL_RING_FRAMES frames from now, after waiting on it. */
    ONA_ASSERT(g->fences[g->region] == NULL);
    g->fences[g->region] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    g->region = (g->region + 1) % ONA__GL_RING_FRAMES;
    g->frame_has_region = false;
    g->frame_count = 0;
}
