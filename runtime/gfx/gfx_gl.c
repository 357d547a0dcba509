/*
 * gfx_gl.c: the sprite renderer's GL side: creation, textures, drawing, pixel read-back and
 * screenshots. The shaders are gl_shader.c's and the instance ring gl_ring.c's; what the three
 * files share is in gfx_gl_internal.h.
 *
 * Design note. Main thread only, with the GL context current; the GL side (this file,
 * gl_shader.c and gl_ring.c) is the only code that calls gl*. Every sprite is one instance of a
 * 4-vertex triangle strip over a static unit quad; its 48-byte ona__sprite record is read
 * straight from the instance buffer as per-instance attributes (divisor 1), and each run of
 * instances sharing a texture is one glDrawArraysInstancedBaseInstance call whose base instance
 * selects the run's records. A run also carries its draw state (program, blend mode,
 * view and viewport); the draw loop changes GL state only where it differs from the previous
 * run's. Canvases are textures with a framebuffer; ona__gfx_target switches between them and
 * the screen, and a canvas is drawn y-flipped so that its row 0 is its top like a file's. A frame
 * is ona__gfx_begin (viewport, clear, camera), ona__gfx_instances (gl_ring.c: the frame's region of
 * the ring), ona__gfx_draw, ona__gfx_end (gl_ring.c: the region's fence).
 *
 * The heap. A software driver (Mesa's llvmpipe) allocates its vertex and binning
 * buffers on the calling thread's heap at every draw, a few MB at a bunnymark's counts, and
 * frees them at the end of the frame. glibc then returns the top of its heap to the kernel
 * (brk) when more than M_TRIM_THRESHOLD is free there, so that every frame faults the same
 * memory back in, zeroed: ~5 brk calls and ~110 page faults a frame at 3,500 sprites, 2-3 ms of
 * main-thread CPU a frame taken from the rasteriser threads, in 2 runs of 3 (glibc's dynamic
 * thresholds depend on the order of earlier frees). ona__gfx_create fixes both thresholds once
 * per process (glibc only) when the renderer is llvmpipe or softpipe: blocks under 32 MiB come
 * from the heap, and the heap keeps up to 128 MiB free at its top. A bigger resident heap in
 * exchange for no per-frame faults. An embedder that tunes malloc itself sets
 * ONA_MALLOC_DEFAULTS=1 (README, embedding) and the runtime leaves malloc alone.
 */
#include "gfx_gl_internal.h"
#include "common.h"

#include <errno.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stb_image_write.h>

#define DEFAULT_CAPACITY 65536u

/* --- Small helpers ------------------------------------------------------------------------- */

typedef struct gl_name {
    GLenum value;
    const char *name;
} gl_name;

#define NAME_OF(table, value, other) name_of(table, ONA_ARRAY_COUNT(table), value, other)
static const char *name_of(const gl_name *table, size_t n, GLenum value, const char *other) {
    for (size_t i = 0; i < n; i++)
        if (table[i].value == value)
            return table[i].name;
    return other;
}

/* "4.6 (Core Profile) Mesa..." or "4.50" as 460 / 450; 0 when it cannot be read. */
static int parse_version(const char *text) {
    int major = 0, minor = 0;
    if (!text || sscanf(text, "%d.%d", &major, &minor) != 2)
        return 0;
    while (minor >= 100)
        minor /= 10;
    return major * 100 + (minor < 10 ? minor * 10 : minor);
}

/* --- GL debug output ----------------------------------------------------------------------- */

static const gl_name debug_sources[] = {
    {GL_DEBUG_SOURCE_API, "api"},
    {GL_DEBUG_SOURCE_WINDOW_SYSTEM, "window system"},
    {GL_DEBUG_SOURCE_SHADER_COMPILER, "shader compiler"},
    {GL_DEBUG_SOURCE_THIRD_PARTY, "third party"},
    {GL_DEBUG_SOURCE_APPLICATION, "application"},
};

static const gl_name debug_types[] = {
    {GL_DEBUG_TYPE_ERROR, "error"},
    {GL_DEBUG_TYPE_DEPRECATED_BEHAVIOR, "deprecated"},
    {GL_DEBUG_TYPE_UNDEFINED_BEHAVIOR, "undefined behaviour"},
    {GL_DEBUG_TYPE_PORTABILITY, "portability"},
    {GL_DEBUG_TYPE_PERFORMANCE, "performance"},
};

static void GLAPIENTRY debug_message(GLenum source, GLenum type, GLuint id, GLenum severity,
                                     GLsizei length, const GLchar *message, const void *user) {
    (void)user;
    ona_log_level level;
    switch (severity) {
    case GL_DEBUG_SEVERITY_HIGH:
        level = ONA_LOG_ERROR;
        break;
    case GL_DEBUG_SEVERITY_MEDIUM:
        level = ONA_LOG_WARN;
        break;
    case GL_DEBUG_SEVERITY_LOW:
        level = ONA_LOG_INFO;
        break;
    default:
        return; /* notifications: one per buffer or shader the driver makes, too chatty */
    }
    if (length < 0)
        length = (GLsizei)strlen(message);
    ona_log(level, "gl", "%s %s %u: %.*s", NAME_OF(debug_sources, source, "other"),
            NAME_OF(debug_types, type, "other"), (unsigned)id, (int)length, message);
}

/* --- Creation ------------------------------------------------------------------------------ */

/* See "The heap" above. Setting either threshold turns glibc's dynamic adjustment off, so both
 * are set. Only under a software rasteriser, where the per-draw buffers were measured, and not
 * when the embedder keeps malloc's settings its own (ONA_MALLOC_DEFAULTS=1 in the environment):
 * the setting is the whole process's. */
static void keep_heap(void) {
#if defined(__GLIBC__)
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    const char *keep = getenv("ONA_MALLOC_DEFAULTS");
    if (!renderer || (keep && strcmp(keep, "1") == 0) ||
        (!strstr(renderer, "llvmpipe") && !strstr(renderer, "softpipe")))
        return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}

static int make_vertex_array(ona__gfx *g) {
    static const float corners[8] = {0, 0, 1, 0, 0, 1, 1, 1}; /* a triangle strip */
    glCreateBuffers(1, &g->quad);
    glNamedBufferStorage(g->quad, sizeof corners, corners, 0);
    glCreateVertexArrays(1, &g->vao);
    glVertexArrayVertexBuffer(g->vao, 0, g->quad, 0, 2 * sizeof(float));
    glEnableVertexArrayAttrib(g->vao, 0);
    glVertexArrayAttribFormat(g->vao, 0, 2, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribBinding(g->vao, 0, 0);

    static const struct {
        GLuint location;
        GLint size;
        GLenum type;
        GLboolean normalized;
        GLuint offset;
    } attrs[] = {
        {1, 2, GL_FLOAT, GL_FALSE, offsetof(ona__sprite, x)},
        {2, 2, GL_FLOAT, GL_FALSE, offsetof(ona__sprite, origin_x)},
        {3, 2, GL_FLOAT, GL_FALSE, offsetof(ona__sprite, scale_x)},
        {4, 1, GL_FLOAT, GL_FALSE, offsetof(ona__sprite, rotation)},
        {5, 4, GL_FLOAT, GL_FALSE, offsetof(ona__sprite, src_x)},
        {6, 4, GL_UNSIGNED_BYTE, GL_TRUE, offsetof(ona__sprite, tint)},
    };
    for (size_t i = 0; i < ONA_ARRAY_COUNT(attrs); i++) {
        glEnableVertexArrayAttrib(g->vao, attrs[i].location);
        glVertexArrayAttribFormat(g->vao, attrs[i].location, attrs[i].size, attrs[i].type,
                                  attrs[i].normalized, attrs[i].offset);
        glVertexArrayAttribBinding(g->vao, attrs[i].location, 1);
    }
    glVertexArrayBindingDivisor(g->vao, 1, 1);
    return ona__gl_check("making the vertex array") == GL_NO_ERROR ? 0 : ONA_EGFX;
}

int ona__gfx_create(const ona__gfx_desc *desc, ona__gfx **out) {
    if (!out)
        return ONA_EINVAL;
    *out = NULL;
    if (!desc || !desc->shader_dir)
        return ONA_EINVAL;
    const char *version = (const char *)glGetString(GL_VERSION);
    if (!version) {
        ona_log(ONA_LOG_ERROR, "gfx", "no current OpenGL context");
        return ONA_EGFX;
    }
    if (parse_version(version) < 450 || !glBufferStorage || !glCreateVertexArrays ||
        !glDrawArraysInstancedBaseInstance || !glDebugMessageCallback) {
        ona_log(ONA_LOG_ERROR, "gfx", "OpenGL 4.5 or newer is needed; the context offers %s",
                version);
        return ONA_EGFX;
    }

    keep_heap();
    size_t dir_len = strlen(desc->shader_dir);
    size_t path_size = dir_len + sizeof "/sprite.vert";
    ona__gfx *g = ona__calloc(1, sizeof *g + 2 * path_size);
    if (!g)
        return ONA_ENOMEM;
    g->vert_path = (char *)(g + 1);
    g->frag_path = g->vert_path + path_size;
    snprintf(g->vert_path, path_size, "%s/sprite.vert", desc->shader_dir);
    snprintf(g->frag_path, path_size, "%s/sprite.frag", desc->shader_dir);
    g->version = version;
    g->renderer = (const char *)glGetString(GL_RENDERER);
    g->glsl_version = parse_version((const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
    g->capacity = desc->instance_capacity ? desc->instance_capacity : DEFAULT_CAPACITY;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &g->max_texture_size);
    ona__gl_clear_errors();

    if (desc->debug_output) {
        g->debug_output = true;
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS); /* messages arrive inside the offending call */
        glDebugMessageCallback(debug_message, g);
        /* Compile and link logs are reported by path and line below; the driver's copies of
         * them would only repeat those. */
        glDebugMessageControl(GL_DEBUG_SOURCE_SHADER_COMPILER, GL_DONT_CARE, GL_DONT_CARE, 0, NULL,
                              GL_FALSE);
    }
    ona_log(ONA_LOG_INFO, "gfx", "OpenGL %s on %s, GLSL %s", version,
            g->renderer ? g->renderer : "?",
            (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));

    int rc = ona__gl_shader_build(g, &g->program);
    if (rc == 0) {
        ona__gl_shader_find_uniforms(g);
        rc = make_vertex_array(g);
    }
    if (rc == 0) {
        rc = ona__gl_ring_create(g->capacity, &g->ring, &g->mapped);
        if (rc != 0)
            ona_log(ONA_LOG_ERROR, "gfx", "cannot make an instance ring of %u instances a frame",
                    g->capacity);
    }
    if (rc != 0) {
        ona__gfx_destroy(g);
        return rc;
    }
    ona__gl_ring_attach(g);
    *out = g;
    return 0;
}

void ona__gfx_destroy(ona__gfx *g) {
    if (!g)
        return;
    ona__gl_ring_delete(g);
    glDeleteVertexArrays(1, &g->vao);
    glDeleteBuffers(1, &g->quad);
    glDeleteProgram(g->program);
    if (g->debug_output) {
        glDebugMessageCallback(NULL, NULL);
        glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
        glDisable(GL_DEBUG_OUTPUT);
    }
    ona__free(g);
}

const char *ona__gfx_gl_version(ona__gfx *g) {
    return g && g->version ? g->version : "";
}

const char *ona__gfx_gl_renderer(ona__gfx *g) {
    return g && g->renderer ? g->renderer : "";
}

/* --- Textures ------------------------------------------------------------------------------ */

int ona__gfx_texture_upload(ona__gfx *g, int width, int height, const uint8_t *rgba,
                            uint32_t *texture) {
    if (!g || !rgba || !texture || width <= 0 || height <= 0 || width > g->max_texture_size ||
        height > g->max_texture_size)
        return ONA_EINVAL;
    ona__gl_clear_errors();
    GLuint t = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, GL_RGBA8, width, height);
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    /* Rows go up top first, so texel row 0 (t = 0) is the image's top row, as the shader
     * expects: its texture coordinates grow downwards like the source rect. */
    glTextureSubImage2D(t, 0, 0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    if (ona__gl_check("uploading a texture") != GL_NO_ERROR) {
        glDeleteTextures(1, &t);
        return ONA_EGFX;
    }
    *texture = t;
    return 0;
}

void ona__gfx_texture_free(ona__gfx *g, uint32_t texture) {
    (void)g;
    GLuint t = texture;
    if (t)
        glDeleteTextures(1, &t);
}

/* --- Frames -------------------------------------------------------------------------------- */

void ona__camera_view(const ona__camera *camera, int width, int height, bool canvas, float view[4],
                      int viewport[4]) {
    width = width > 0 ? width : 0;
    height = height > 0 ? height : 0;
    /* No camera means world units are framebuffer pixels from the top-left corner. A zoom that
     * is not a positive number (a script's mistake) draws at zoom 1 rather than nothing. */
    float cx = camera ? camera->x : (float)width * 0.5f;
    float cy = camera ? camera->y : (float)height * 0.5f;
    float zoom = camera && camera->zoom > 0.0f && isfinite(camera->zoom) ? camera->zoom : 1.0f;
    /* The camera's viewport, clamped to the framebuffer; none means all of it. */
    int vx = 0, vy = 0, vw = width, vh = height;
    if (!canvas && camera && camera->viewport_w > 0 && camera->viewport_h > 0) {
        vx = (int)camera->viewport_x;
        vy = (int)camera->viewport_y;
        vw = (int)camera->viewport_w;
        vh = (int)camera->viewport_h;
        vx = vx < 0 ? 0 : (vx > width ? width : vx);
        vy = vy < 0 ? 0 : (vy > height ? height : vy);
        vw = vx + vw > width ? width - vx : vw;
        vh = vy + vh > height ? height - vy : vh;
    }
    float sx = vw > 0 ? 2.0f * zoom / (float)vw : 0.0f;
    float sy = vh > 0 ? (canvas ? 2.0f : -2.0f) * zoom / (float)vh : 0.0f;
    view[0] = sx;
    view[1] = sy;
    view[2] = -cx * sx;
    view[3] = -cy * sy;
    /* GL's viewport origin is the bottom-left corner. */
    viewport[0] = vx;
    viewport[1] = height - vy - vh;
    viewport[2] = vw;
    viewport[3] = vh;
}

void ona__gfx_begin(ona__gfx *g, int width, int height, const float clear[4],
                    const ona__camera *camera) {
    /* A frame left without ona__gfx_end still gets its fence, so its region is not rewritten
     * while the GPU may read it. */
    if (g->frame_has_region)
        ona__gfx_end(g);
    g->width = width > 0 ? width : 0;
    g->height = height > 0 ? height : 0;
    g->frame_has_region = false;
    g->frame_count = 0;
    ona__camera_view(camera, g->width, g->height, false, g->view, g->viewport);
    g->scissor = g->viewport[2] != g->width || g->viewport[3] != g->height;
    g->target = 0;
    g->target_width = g->width;
    g->target_height = g->height;

    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, g->width, g->height);
    glDisable(GL_SCISSOR_TEST);
    if (clear)
        glClearColor(clear[0], clear[1], clear[2], clear[3]);
    else
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
}

void ona__gfx_target(ona__gfx *g, uint32_t framebuffer, int width, int height) {
    g->target = framebuffer;
    g->target_width = framebuffer ? width : g->width;
    g->target_height = framebuffer ? height : g->height;
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
}

/* GL blend factors for each ona_blend; colour and alpha separately, so that what is drawn into a
 * canvas keeps a meaningful alpha for when the canvas itself is drawn. */
static void set_blend(uint32_t blend) {
    switch (blend) {
    case ONA_BLEND_PREMULTIPLIED:
        glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
        break;
    case ONA_BLEND_ADD:
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE, GL_ZERO, GL_ONE);
        break;
    case ONA_BLEND_MULTIPLY:
        glBlendFuncSeparate(GL_DST_COLOR, GL_ZERO, GL_ZERO, GL_ONE);
        break;
    default: /* alpha */
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
        break;
    }
}

void ona__gfx_draw(ona__gfx *g, const ona__gfx_run *runs, uint32_t run_count) {
    if (run_count == 0)
        return;
    if (!g->frame_has_region) {
        ona_log(ONA_LOG_ERROR, "gfx", "draw without ona__gfx_instances this frame: skipped");
        return;
    }
    glBindVertexArray(g->vao);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE); /* a negative scale or a rotation may flip a quad's winding */
    glEnable(GL_BLEND);
    /* The default view: ona__gfx_begin's camera on the screen, pixel space on a canvas. */
    float canvas_view[4];
    int canvas_viewport[4];
    const float *frame_view = g->view;
    const int *frame_viewport = g->viewport;
    bool frame_scissor = g->scissor;
    if (g->target) {
        ona__camera_view(NULL, g->target_width, g->target_height, true, canvas_view,
                         canvas_viewport);
        frame_view = canvas_view;
        frame_viewport = canvas_viewport;
        frame_scissor = false;
    }
    GLuint program = UINT32_MAX;
    uint32_t blend = UINT32_MAX;
    const GLuint base = g->region * g->capacity;
    for (uint32_t i = 0; i < run_count; i++) {
        const ona__gfx_run *run = &runs[i];
        if (run->count == 0)
            continue;
        if (run->first > g->frame_count || run->count > g->frame_count - run->first ||
            run->width <= 0 || run->height <= 0) {
            ona_log(ONA_LOG_ERROR, "gfx",
                    "run %u (instances %u+%u of %u, texture %ux%d x %d) is invalid: skipped", i,
                    run->first, run->count, g->frame_count, run->texture, run->width, run->height);
            continue;
        }
        GLuint want = run->program ? run->program : g->program;
        if (want != program) {
            program = want;
            glUseProgram(program);
            GLint at_time = glGetUniformLocation(program, "u_time");
            if (at_time >= 0)
                glUniform1f(at_time, g->time);
        }
        if (run->blend != blend) {
            blend = run->blend;
            set_blend(blend);
        }
        const float *view = run->has_view ? run->view : frame_view;
        const int *vp = run->has_view ? run->viewport : frame_viewport;
        bool scissor = run->has_view ? (vp[0] != 0 || vp[1] != 0 || vp[2] != g->target_width ||
                                        vp[3] != g->target_height)
                                     : frame_scissor;
        /* u_view is location 0 in the runtime's vertex stage, which every program shares. */
        glUniform4fv(program == g->program ? g->u_view : 0, 1, view);
        glViewport(vp[0], vp[1], vp[2], vp[3]);
        if (scissor) {
            glScissor(vp[0], vp[1], vp[2], vp[3]);
            glEnable(GL_SCISSOR_TEST);
        } else {
            glDisable(GL_SCISSOR_TEST);
        }
        glBindTextureUnit(0, run->texture);
        glUniform2f(program == g->program ? g->u_texture_size : 1, (float)run->width,
                    (float)run->height);
        glDrawArraysInstancedBaseInstance(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)run->count,
                                          base + run->first);
    }
    glDisable(GL_SCISSOR_TEST);
    glBindVertexArray(0);
}

void ona__gfx_set_time(ona__gfx *g, float seconds) {
    g->time = seconds;
}

/* --- Canvases ------------------------------------------------------------------------------ */

int ona__gfx_canvas_create(ona__gfx *g, int width, int height, uint32_t *texture,
                           uint32_t *framebuffer) {
    if (!g || !texture || !framebuffer || width <= 0 || height <= 0 ||
        width > g->max_texture_size || height > g->max_texture_size)
        return ONA_EINVAL;
    ona__gl_clear_errors();
    GLuint t = 0, f = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &t);
    glTextureStorage2D(t, 1, GL_RGBA8, width, height);
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTextureParameteri(t, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glCreateFramebuffers(1, &f);
    glNamedFramebufferTexture(f, GL_COLOR_ATTACHMENT0, t, 0);
    bool complete = glCheckNamedFramebufferStatus(f, GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    if (ona__gl_check("making a canvas") != GL_NO_ERROR || !complete) {
        glDeleteFramebuffers(1, &f);
        glDeleteTextures(1, &t);
        return ONA_EGFX;
    }
    static const float transparent[4] = {0, 0, 0, 0};
    glClearNamedFramebufferfv(f, GL_COLOR, 0, transparent);
    *texture = t;
    *framebuffer = f;
    return 0;
}

void ona__gfx_canvas_free(ona__gfx *g, uint32_t texture, uint32_t framebuffer) {
    (void)g;
    GLuint f = framebuffer, t = texture;
    if (f)
        glDeleteFramebuffers(1, &f);
    if (t)
        glDeleteTextures(1, &t);
}

void ona__gfx_canvas_clear(ona__gfx *g, uint32_t framebuffer, const float rgba[4]) {
    (void)g;
    if (framebuffer)
        glClearNamedFramebufferfv(framebuffer, GL_COLOR, 0, rgba);
}

/* --- Reading pixels ------------------------------------------------------------------------ */

int ona__gfx_read_pixels(ona__gfx *g, int x, int y, int width, int height, uint8_t *rgba) {
    if (!g || !rgba || width <= 0 || height <= 0 || x < 0 || y < 0 || x > g->width - width ||
        y > g->height - height)
        return ONA_EINVAL;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(x, g->height - y - height, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    /* GL returns rows bottom to top: swap them in place, a chunk at a time, without a heap
     * buffer. */
    size_t stride = (size_t)width * 4;
    uint8_t chunk[256];
    for (int r = 0; r < height / 2; r++) {
        uint8_t *a = rgba + (size_t)r * stride;
        uint8_t *b = rgba + (size_t)(height - 1 - r) * stride;
        for (size_t off = 0; off < stride; off += sizeof chunk) {
            size_t n = ONA_MIN(sizeof chunk, stride - off);
            memcpy(chunk, a + off, n);
            memcpy(a + off, b + off, n);
            memcpy(b + off, chunk, n);
        }
    }
    return 0;
}

int ona__gfx_screenshot(ona__gfx *g, int width, int height, const char *path) {
    if (!g || !path || width <= 0 || height <= 0 || width > g->width || height > g->height)
        return ONA_EINVAL;
    uint8_t *pixels = ona__malloc((size_t)width * (size_t)height * 4);
    if (!pixels) {
        ona_log(ONA_LOG_ERROR, path, "out of memory for a %dx%d screenshot", width, height);
        return ONA_ENOMEM;
    }
    int rc = ona__gfx_read_pixels(g, 0, 0, width, height, pixels);
    if (rc == 0) {
        /* The window shows the framebuffer as opaque whatever its alpha holds; so does the PNG. */
        for (size_t i = 3; i < (size_t)width * (size_t)height * 4; i += 4)
            pixels[i] = 255;
        errno = 0;
        if (!stbi_write_png(path, width, height, 4, pixels, width * 4)) {
            ona_log(ONA_LOG_ERROR, path, "cannot write the screenshot%s%s", errno ? ": " : "",
                    errno ? strerror(errno) : "");
            rc = ONA_EIO;
        }
    }
    ona__free(pixels);
    return rc;
}
