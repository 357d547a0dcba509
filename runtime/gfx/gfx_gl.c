/*
 * gfx_gl.c: the sprite renderer's GL side: shaders, the instance ring, textures, drawing,
 * pixel read-back and screenshots.
 *
 * Design note. Main thread only, with the GL context current; this is the only file that calls
 * gl*. Every sprite is one instance of a 4-vertex triangle strip over a static unit quad; its
 * 48-byte ona__sprite record is read straight from the instance buffer as per-instance
 * attributes (divisor 1), and each run of instances sharing a texture is one
 * glDrawArraysInstancedBaseInstance call whose base instance selects the run's records.
 *
 * The instance buffer is created once with glBufferStorage(PERSISTENT | COHERENT | WRITE) and
 * mapped once for its whole life. Persistent mapping lets the caller write a frame's instances
 * directly into memory the GPU reads: no glBufferSubData copy, no map/unmap per frame and no
 * driver-side orphaning. The price is that we must never overwrite instances the GPU may still be
 * reading, so the buffer is a ring of 3 equal regions, one per frame in flight. A frame takes the
 * next region, first waiting (glClientWaitSync) on the fence placed after the draws of the frame
 * that last used it, three frames ago; ona__gfx_end places the new fence (glFenceSync). With
 * three regions the CPU only waits when it is more than two frames ahead of the GPU. Coherent
 * mapping makes our writes visible to the GPU without explicit flushes.
 *
 * When a frame needs more instances than a region holds, the ring grows: glFinish (no region is
 * in use after it), a bigger buffer is made and mapped, and only then is the old one deleted, so
 * a failed growth leaves the old ring working. Growth is logged: it means the configured
 * capacity is too small, and it costs a pipeline stall.
 *
 * Shaders come from files so they can be hot-reloaded; a reload that fails keeps the program
 * that works. Compile errors are logged with where = "path:line", parsed from the driver's log.
 */
#include "gfx_gl.h"
#include "common.h"

#include <GL/glew.h>
#include <stb_image_write.h>

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#define RING_FRAMES 3
#define DEFAULT_CAPACITY 65536u
/* A fence wait is sliced so that a GPU that stops progressing is reported, not waited on for
 * ever: 10 slices of 1 s each. */
#define FENCE_SLICE_NS 1000000000ull
#define FENCE_SLICES 10
#define LOG_LINE 1024

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
    ona__sprite *mapped; /* RING_FRAMES * capacity instances */
    uint32_t capacity;   /* instances per region */
    GLsync fences[RING_FRAMES];
    uint32_t region;       /* the region of the current frame */
    uint32_t frame_count;  /* instances handed out this frame */
    bool frame_has_region; /* ona__gfx_instances was called this frame */

    int width, height; /* the viewport of the last ona__gfx_begin */
    float view[4];     /* clip = world * view.xy + view.zw */
};

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

static const gl_name gl_errors[] = {
    {GL_INVALID_ENUM, "GL_INVALID_ENUM"},
    {GL_INVALID_VALUE, "GL_INVALID_VALUE"},
    {GL_INVALID_OPERATION, "GL_INVALID_OPERATION"},
    {GL_INVALID_FRAMEBUFFER_OPERATION, "GL_INVALID_FRAMEBUFFER_OPERATION"},
    {GL_OUT_OF_MEMORY, "GL_OUT_OF_MEMORY"},
};

/* Clears errors left by earlier calls, so that a check after the next calls sees only theirs. */
static void clear_gl_errors(void) {
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++)
        ;
}

/* Logs and returns the first pending GL error (GL_NO_ERROR when none), draining the rest. */
static GLenum check_gl(const char *what) {
    GLenum first = glGetError();
    if (first == GL_NO_ERROR)
        return first;
    clear_gl_errors();
    ona_log(ONA_LOG_ERROR, "gfx", "%s: %s (0x%04x)", what, NAME_OF(gl_errors, first, "GL error"),
            (unsigned)first);
    return first;
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

/* --- Shaders ------------------------------------------------------------------------------- */

/* Reads a whole file into a NUL-terminated buffer (ona__free it). Logs and returns NULL. */
static char *read_text_file(const char *path, int *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        ona_log(ONA_LOG_ERROR, path, "cannot open: %s", strerror(errno));
        *err = ONA_EGFX;
        return NULL;
    }
    size_t size = 0, cap = 4096;
    char *text = ona__malloc(cap);
    while (text) {
        size += fread(text + size, 1, cap - 1 - size, f);
        if (size < cap - 1)
            break;
        char *grown = ona__realloc(text, cap * 2);
        if (!grown) {
            ona__free(text);
            text = NULL;
            break;
        }
        text = grown;
        cap *= 2;
    }
    bool failed = text && ferror(f);
    fclose(f);
    if (!text) {
        ona_log(ONA_LOG_ERROR, path, "out of memory reading the file");
        *err = ONA_ENOMEM;
        return NULL;
    }
    if (failed) {
        ona_log(ONA_LOG_ERROR, path, "read error");
        ona__free(text);
        *err = ONA_EGFX;
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* Rewrites a "#version 460" directive as "#version 450" in place (same length, so every line
 * and column the driver reports still matches the file). False when there is none. */
static bool downgrade_version(char *src) {
    for (char *p = src; (p = strstr(p, "#version")) != NULL; p += 8) {
        char *v = p + 8;
        while (*v == ' ' || *v == '\t')
            v++;
        if (strncmp(v, "460", 3) == 0 && !(v[3] >= '0' && v[3] <= '9')) {
            v[1] = '5';
            return true;
        }
    }
    return false;
}

static bool parse_uint(const char **p, int *value) {
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return false;
    long v = 0;
    while (*s >= '0' && *s <= '9') {
        if (v < 100000000)
            v = v * 10 + (*s - '0');
        s++;
    }
    *p = s;
    *value = (int)v;
    return true;
}

/* Finds the source line in one line of a driver's info log. Mesa writes "0:12(5): error: ...",
 * NVIDIA "0(12) : error C0000: ...", AMD and others "ERROR: 0:12: ...". Returns the line (or -1)
 * and sets *message to the text after the location. */
static int parse_log_line(const char *text, const char **message) {
    const char *p = text;
    int string_index, line;
    *message = text;
    if (strncmp(p, "ERROR: ", 7) == 0 || strncmp(p, "WARNING: ", 9) == 0)
        p = strchr(p, ' ') + 1;
    if (!parse_uint(&p, &string_index))
        return -1;
    if (*p == ':' && (p++, parse_uint(&p, &line))) {
        if (*p == '(') { /* Mesa: column in parentheses */
            int column;
            p++;
            if (!parse_uint(&p, &column) || *p++ != ')')
                return -1;
        }
        if (*p++ != ':')
            return -1;
    } else if (*p == '(' && (p++, parse_uint(&p, &line)) && *p == ')') { /* NVIDIA */
        p++;
        while (*p == ' ')
            p++;
        if (*p++ != ':')
            return -1;
    } else {
        return -1;
    }
    while (*p == ' ')
        p++;
    /* A leading "ERROR: " is dropped with the location: the log level says as much. */
    *message = p;
    return line;
}

/* Logs a driver info log line by line, as "path:line: message" where the line is known. */
static void log_info_log(ona_log_level level, const char *path, const char *info) {
    char line[LOG_LINE];
    char where[LOG_LINE];
    while (*info) {
        size_t len = strcspn(info, "\n");
        size_t n = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, info, n);
        line[n] = '\0';
        info += len + (info[len] == '\n');
        while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' '))
            line[--n] = '\0';
        if (n == 0)
            continue;
        const char *message;
        int at = parse_log_line(line, &message);
        if (at >= 0) {
            snprintf(where, sizeof where, "%s:%d", path, at);
            ona_log(level, where, "%s", message);
        } else {
            ona_log(level, path, "%s", line);
        }
    }
}

/* Fetches a shader's or program's info log and logs it. */
static void log_object_log(GLuint object, bool is_program, ona_log_level level, const char *path) {
    GLint len = 0;
    if (is_program)
        glGetProgramiv(object, GL_INFO_LOG_LENGTH, &len);
    else
        glGetShaderiv(object, GL_INFO_LOG_LENGTH, &len);
    if (len <= 1)
        return;
    char *info = ona__malloc((size_t)len);
    if (!info) {
        ona_log(level, path, "(the driver's message is lost: out of memory)");
        return;
    }
    if (is_program)
        glGetProgramInfoLog(object, len, NULL, info);
    else
        glGetShaderInfoLog(object, len, NULL, info);
    info[len - 1] = '\0';
    log_info_log(level, path, info);
    ona__free(info);
}

static GLuint compile(GLenum stage, const char *src, GLint *ok) {
    GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &src, NULL);
    glCompileShader(shader);
    glGetShaderiv(shader, GL_COMPILE_STATUS, ok);
    return shader;
}

/* Compiles one stage from its file. The sources say "#version 460"; a driver that offers less
 * (Mesa's llvmpipe reports GLSL 4.50 even when its GL version is overridden to 4.6) gets them as
 * "#version 450", which they are written to stay within. The choice is made from
 * GL_SHADING_LANGUAGE_VERSION before compiling rather than by retrying after a failed 4.60
 * compile: Mesa's on-disk shader cache keys a source without the GLSL version override, so once
 * any process with MESA_GLSL_VERSION_OVERRIDE=460 has compiled the 4.60 source, Mesa reports
 * that compile as successful (deferred) here too and only fails later, at link. */
static int compile_stage(ona__gfx *g, GLenum stage, const char *path, GLuint *out) {
    int err = 0;
    char *src = read_text_file(path, &err);
    if (!src)
        return err;
    if (g->glsl_version < 460 && downgrade_version(src) && !g->glsl_fallback) {
        g->glsl_fallback = true;
        ona_log(ONA_LOG_INFO, path,
                "the driver offers GLSL %s, not 4.60: shaders are compiled as #version 450",
                (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
    }
    GLint ok = GL_FALSE;
    GLuint shader = compile(stage, src, &ok);
    ona__free(src);
    log_object_log(shader, false, ok ? ONA_LOG_WARN : ONA_LOG_ERROR, path);
    if (!ok) {
        glDeleteShader(shader);
        return ONA_EGFX;
    }
    *out = shader;
    return 0;
}

/* Builds the program from sprite.vert and sprite.frag; on failure nothing is left behind. */
static int build_program(ona__gfx *g, GLuint *out) {
    GLuint vs = 0, fs = 0;
    int rc = compile_stage(g, GL_VERTEX_SHADER, g->vert_path, &vs);
    if (rc == 0)
        rc = compile_stage(g, GL_FRAGMENT_SHADER, g->frag_path, &fs);
    if (rc != 0) {
        glDeleteShader(vs);
        return rc;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDetachShader(program, vs);
    glDetachShader(program, fs);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    log_object_log(program, true, ok ? ONA_LOG_WARN : ONA_LOG_ERROR, g->frag_path);
    if (!ok) {
        ona_log(ONA_LOG_ERROR, g->frag_path, "linking with %s failed", g->vert_path);
        glDeleteProgram(program);
        return ONA_EGFX;
    }
    *out = program;
    return 0;
}

/* Looked up rather than assumed, so that a shader being edited may drop a uniform and still
 * draw: GL ignores location -1. */
static void find_uniforms(ona__gfx *g) {
    g->u_view = glGetUniformLocation(g->program, "u_view");
    g->u_texture_size = glGetUniformLocation(g->program, "u_texture_size");
}

int ona__gfx_reload_shaders(ona__gfx *g) {
    if (!g)
        return ONA_EINVAL;
    GLuint program = 0;
    int rc = build_program(g, &program);
    if (rc != 0) {
        ona_log(ONA_LOG_WARN, "gfx", "shader reload failed: the previous shaders stay in use");
        return rc;
    }
    glDeleteProgram(g->program);
    g->program = program;
    find_uniforms(g);
    ona_log(ONA_LOG_INFO, "gfx", "shaders reloaded from %s and %s", g->vert_path, g->frag_path);
    return 0;
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

/* --- The instance ring --------------------------------------------------------------------- */

/* Makes and maps a ring buffer of RING_FRAMES regions of `capacity` instances. */
static int ring_create(uint32_t capacity, GLuint *buffer, ona__sprite **mapped) {
    const GLbitfield flags = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    uint64_t bytes = (uint64_t)capacity * RING_FRAMES * sizeof(ona__sprite);
    if (bytes > (uint64_t)PTRDIFF_MAX)
        return ONA_ENOMEM;
    clear_gl_errors();
    GLuint b = 0;
    glCreateBuffers(1, &b);
    glNamedBufferStorage(b, (GLsizeiptr)bytes, NULL, flags);
    GLenum e = check_gl("allocating the instance ring");
    void *p = e == GL_NO_ERROR ? glMapNamedBufferRange(b, 0, (GLsizeiptr)bytes, flags) : NULL;
    if (!p) {
        if (e == GL_NO_ERROR)
            e = check_gl("mapping the instance ring");
        glDeleteBuffers(1, &b);
        return e == GL_OUT_OF_MEMORY || e == GL_NO_ERROR ? ONA_ENOMEM : ONA_EGFX;
    }
    *buffer = b;
    *mapped = p;
    return 0;
}

static void ring_delete(ona__gfx *g) {
    for (int i = 0; i < RING_FRAMES; i++) {
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

static void ring_attach(ona__gfx *g) {
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
    int rc = ring_create((uint32_t)capacity, &buffer, &mapped);
    if (rc != 0) {
        ona_log(ONA_LOG_ERROR, "gfx", "cannot grow the instance ring to %llu instances a frame: %s",
                (unsigned long long)capacity, ona_strerror(rc));
        return rc;
    }
    ring_delete(g);
    ona_log(ONA_LOG_INFO, "gfx",
            "instance ring grown from %u to %u instances a frame (a frame drew %u)", g->capacity,
            (unsigned)capacity, needed);
    g->ring = buffer;
    g->mapped = mapped;
    g->capacity = (uint32_t)capacity;
    g->region = 0;
    ring_attach(g);
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

/* --- Creation ------------------------------------------------------------------------------ */

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
    return check_gl("making the vertex array") == GL_NO_ERROR ? 0 : ONA_EGFX;
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
    clear_gl_errors();

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

    int rc = build_program(g, &g->program);
    if (rc == 0) {
        find_uniforms(g);
        rc = make_vertex_array(g);
    }
    if (rc == 0) {
        rc = ring_create(g->capacity, &g->ring, &g->mapped);
        if (rc != 0)
            ona_log(ONA_LOG_ERROR, "gfx", "cannot make an instance ring of %u instances a frame",
                    g->capacity);
    }
    if (rc != 0) {
        ona__gfx_destroy(g);
        return rc;
    }
    ring_attach(g);
    *out = g;
    return 0;
}

void ona__gfx_destroy(ona__gfx *g) {
    if (!g)
        return;
    ring_delete(g);
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
    clear_gl_errors();
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
    if (check_gl("uploading a texture") != GL_NO_ERROR) {
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
    /* No camera means world units are framebuffer pixels from the top-left corner. A zoom that
     * is not a positive number (a script's mistake) draws at zoom 1 rather than nothing. */
    float cx = camera ? camera->x : (float)g->width * 0.5f;
    float cy = camera ? camera->y : (float)g->height * 0.5f;
    float zoom = camera && camera->zoom > 0.0f && isfinite(camera->zoom) ? camera->zoom : 1.0f;
    /* The camera's viewport, clamped to the framebuffer; none means all of it. */
    int vx = 0, vy = 0, vw = g->width, vh = g->height;
    if (camera && camera->viewport_w > 0 && camera->viewport_h > 0) {
        vx = (int)camera->viewport_x;
        vy = (int)camera->viewport_y;
        vw = (int)camera->viewport_w;
        vh = (int)camera->viewport_h;
        vx = vx < 0 ? 0 : (vx > g->width ? g->width : vx);
        vy = vy < 0 ? 0 : (vy > g->height ? g->height : vy);
        vw = vx + vw > g->width ? g->width - vx : vw;
        vh = vy + vh > g->height ? g->height - vy : vh;
    }
    float sx = vw > 0 ? 2.0f * zoom / (float)vw : 0.0f;
    float sy = vh > 0 ? -2.0f * zoom / (float)vh : 0.0f;
    g->view[0] = sx;
    g->view[1] = sy;
    g->view[2] = -cx * sx;
    g->view[3] = -cy * sy;

    glViewport(0, 0, g->width, g->height);
    glDisable(GL_SCISSOR_TEST);
    if (clear)
        glClearColor(clear[0], clear[1], clear[2], clear[3]);
    else
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (vw != g->width || vh != g->height) {
        /* GL's viewport origin is the bottom-left corner. */
        glViewport(vx, g->height - vy - vh, vw, vh);
        glScissor(vx, g->height - vy - vh, vw, vh);
        glEnable(GL_SCISSOR_TEST);
    }
}

void ona__gfx_draw(ona__gfx *g, const ona__gfx_run *runs, uint32_t run_count) {
    if (run_count == 0)
        return;
    if (!g->frame_has_region) {
        ona_log(ONA_LOG_ERROR, "gfx", "draw without ona__gfx_instances this frame: skipped");
        return;
    }
    glUseProgram(g->program);
    glBindVertexArray(g->vao);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE); /* a negative scale or a rotation may flip a quad's winding */
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUniform4fv(g->u_view, 1, g->view);
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
        glBindTextureUnit(0, run->texture);
        glUniform2f(g->u_texture_size, (float)run->width, (float)run->height);
        glDrawArraysInstancedBaseInstance(GL_TRIANGLE_STRIP, 0, 4, (GLsizei)run->count,
                                          base + run->first);
    }
    glBindVertexArray(0);
}

void ona__gfx_end(ona__gfx *g) {
    if (!g->frame_has_region)
        return;
    /* The region's fence covers every draw of this frame; the region is reused RING_FRAMES
     * frames from now, after waiting on it. */
    ONA_ASSERT(g->fences[g->region] == NULL);
    g->fences[g->region] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    g->region = (g->region + 1) % RING_FRAMES;
    g->frame_has_region = false;
    g->frame_count = 0;
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

const char *ona__gfx_vertex_path(ona__gfx *g) {
    return g->vert_path;
}

const char *ona__gfx_fragment_path(ona__gfx *g) {
    return g->frag_path;
}
