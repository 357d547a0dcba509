/*
 * gfx_gl_internal.h: what the GL renderer's files share, and nothing else sees: the renderer's
 * state and the few calls one of them makes into another. gfx_gl.c is the renderer (creation,
 * textures, frames, pixels), gl_shader.c loads and reloads the shaders, gl_ring.c owns the
 * persistent-mapped instance ring. The rest of the runtime knows the module through gfx_gl.h.
 * Main thread only, with the GL context current, like everything on the GL side.
 */
#ifndef ONA_GFX_GL_INTERNAL_H
#define ONA_GFX_GL_INTERNAL_H

#include "gfx_gl.h"

#include <GL/glew.h>

/* The instance ring's regions: one per frame in flight (gl_ring.c). */
#define ONA__GL_RING_FRAMES 3

struct ona__gfx {
    char *vert_path, *frag_path; /* in the same allocation as the struct */
    GLuint program;
    GLint u_view,
        u_texture_size; /* uniform locations; -1 (ignored by GL) when a shader lacks one */
    int glsl_version;   /* GL_SHADING_LANGUAGE_VERSION as 450, 460, ... */
    bool glsl_fallback; /* the driver lacks GLSL 4.60: sources were compiled as 450 (logged) */
    bool debug_output;
    GLint max_texture_size;
    const char *version, *renderer;

    GLuint vao, quad, ring;
    ona__sprite *mapped; /* ONA__GL_RING_FRAMES * capacity instances */
    uint32_t capacity;   /* instances per region */
    GLsync fences[ONA__GL_RING_FRAMES];
    uint32_t region;       /* the region of the current frame */
    uint32_t frame_count;  /* instances handed out this frame */
    bool frame_has_region; /* ona__gfx_instances was called this frame */

    int width, height; /* the viewport of the last ona__gfx_begin */
    float view[4];     /* clip = world * view.xy + view.zw */
    int viewport[4];   /* GL viewport of ona__gfx_begin's camera */
    bool scissor;      /* that viewport is smaller than the framebuffer */
    /* The current target (ona__gfx_target): 0 is the screen. */
    uint32_t target;
    int target_width, target_height;
    float time; /* u_time */
};

/* --- gfx_gl.c: GL errors --------------------------------------------------------------------- */

/* Clears errors left by earlier calls, so that a check after the next calls sees only theirs. */
void ona__gl_clear_errors(void);
/* Logs and returns the first pending GL error (GL_NO_ERROR when none), draining the rest. */
GLenum ona__gl_check(const char *what);

/* --- gl_shader.c: the sprite program --------------------------------------------------------- */

/* Builds the program from g->vert_path and g->frag_path; compile and link errors are logged as
 * "path:line: message". On failure nothing is left behind and *out is untouched.
 * Errors: ONA_EGFX, ONA_ENOMEM. */
int ona__gl_shader_build(ona__gfx *g, GLuint *out);
/* Builds a program from the vertex file and a fragment file (ona__gl_shader_build's work). */
int ona__gl_shader_build_from(ona__gfx *g, const char *vert_path, const char *frag_path,
                              GLuint *out);
/* Looks up g->program's uniform locations (-1 for one the shaders lack). */
void ona__gl_shader_find_uniforms(ona__gfx *g);

/* --- gl_ring.c: the instance ring ------------------------------------------------------------ */

/* Makes and maps a ring buffer of ONA__GL_RING_FRAMES regions of `capacity` instances.
 * Errors: ONA_ENOMEM, ONA_EGFX. */
int ona__gl_ring_create(uint32_t capacity, GLuint *buffer, ona__sprite **mapped);
/* Deletes the ring's fences, unmaps and deletes its buffer; g->ring is 0 afterwards. */
void ona__gl_ring_delete(ona__gfx *g);
/* Binds g->ring as the vertex array's per-instance buffer (binding 1). */
void ona__gl_ring_attach(ona__gfx *g);

#endif /* ONA_GFX_GL_INTERNAL_H */
