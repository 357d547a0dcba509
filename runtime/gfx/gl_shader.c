/*
 * gl_shader.c: the sprite program: reading sprite.vert and sprite.frag, compiling and linking
 * them, reporting the driver's errors by file and line, and hot-reloading them.
 *
 * Design note. Main thread only, with the GL context current (part of the GL side; see
 * gfx_gl.c). Shaders come from files so they can be hot-reloaded; a reload that fails keeps the
 * program that works: the new program is built completely before the old one is deleted. Compile
 * errors are logged with where = "path:line", parsed from the driver's log (Mesa, NVIDIA and AMD
 * each write the location differently). The sources say "#version 460"; a driver that offers
 * less is given them as "#version 450", decided before compiling (compile_stage says why).
 */
#include "gfx_gl_internal.h"
#include "common.h"
#include "paths.h"

#include <errno.h>
#include <stdio.h>

#define LOG_LINE 1024
#define MAX_SHADER_BYTES (16u << 20) /* far past any hand-written shader */

/* Reads a whole file into a NUL-terminated buffer (ona__free it). Logs and returns NULL. Read by
 * ona__read_file, so a FIFO or a folder in the shader's place is refused without blocking. */
static char *read_text_file(const char *path, int *err) {
    uint8_t *text = NULL;
    size_t size = 0;
    int rc = ona__read_file(path, MAX_SHADER_BYTES, &text, &size);
    if (rc) {
        ona_log(ONA_LOG_ERROR, path, "cannot read the shader: %s", ona__paths_why(rc, path));
        *err = rc == ONA_ENOMEM ? ONA_ENOMEM : ONA_EGFX;
        return NULL;
    }
    return (char *)text;
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
        /* Under "gfx", the video driver's reports the launcher shows only with -v. */
        ona_log(ONA_LOG_INFO, "gfx",
                "%s: the driver offers GLSL %s, not 4.60: shaders are compiled as #version 450",
                path, (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
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
int ona__gl_shader_build(ona__gfx *g, GLuint *out) {
    return ona__gl_shader_build_from(g, g->vert_path, g->frag_path, out);
}

int ona__gl_shader_build_from(ona__gfx *g, const char *vert_path, const char *frag_path,
                              GLuint *out) {
    GLuint vs = 0, fs = 0;
    int rc = compile_stage(g, GL_VERTEX_SHADER, vert_path, &vs);
    if (rc == 0)
        rc = compile_stage(g, GL_FRAGMENT_SHADER, frag_path, &fs);
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
    log_object_log(program, true, ok ? ONA_LOG_WARN : ONA_LOG_ERROR, frag_path);
    if (!ok) {
        ona_log(ONA_LOG_ERROR, frag_path, "linking with %s failed", vert_path);
        glDeleteProgram(program);
        return ONA_EGFX;
    }
    *out = program;
    return 0;
}

/* Looked up rather than assumed, so that a shader being edited may drop a uniform and still
 * draw: GL ignores location -1. */
void ona__gl_shader_find_uniforms(ona__gfx *g) {
    g->u_view = glGetUniformLocation(g->program, "u_view");
    g->u_texture_size = glGetUniformLocation(g->program, "u_texture_size");
}

int ona__gfx_reload_shaders(ona__gfx *g) {
    if (!g)
        return ONA_EINVAL;
    GLuint program = 0;
    int rc = ona__gl_shader_build(g, &program);
    if (rc != 0) {
        ona_log(ONA_LOG_WARN, "gfx", "shader reload failed: the previous shaders stay in use");
        return rc;
    }
    glDeleteProgram(g->program);
    g->program = program;
    ona__gl_shader_find_uniforms(g);
    ona_log(ONA_LOG_INFO, "hot reload", "shaders reloaded from %s and %s", g->vert_path,
            g->frag_path);
    return 0;
}

/* Game programs: a game's fragment shader linked with the sprite vertex stage, so the
 * instance layout, u_view (location 0) and u_texture_size (location 1) are the runtime's. */
int ona__gfx_program_build(ona__gfx *g, const char *frag_path, uint32_t *program) {
    if (!g || !frag_path || !program)
        return ONA_EINVAL;
    GLuint p = 0;
    int rc = ona__gl_shader_build_from(g, g->vert_path, frag_path, &p);
    if (rc == 0)
        *program = p;
    return rc;
}

void ona__gfx_program_free(ona__gfx *g, uint32_t program) {
    (void)g;
    if (program)
        glDeleteProgram(program);
}

/* The GLSL name of a uniform type and how many floats ona.gfx.uniform gives it (0: none). */
static const char *type_name(GLenum type, uint32_t *floats) {
    static const struct {
        GLenum type;
        uint32_t floats;
        const char *name;
    } types[] = {
        {GL_FLOAT, 1, "float"},       {GL_FLOAT_VEC2, 2, "vec2"},
        {GL_FLOAT_VEC3, 3, "vec3"},   {GL_FLOAT_VEC4, 4, "vec4"},
        {GL_INT, 0, "int"},           {GL_INT_VEC2, 0, "ivec2"},
        {GL_INT_VEC3, 0, "ivec3"},    {GL_INT_VEC4, 0, "ivec4"},
        {GL_UNSIGNED_INT, 0, "uint"}, {GL_BOOL, 0, "bool"},
        {GL_FLOAT_MAT2, 0, "mat2"},   {GL_FLOAT_MAT3, 0, "mat3"},
        {GL_FLOAT_MAT4, 0, "mat4"},   {GL_SAMPLER_2D, 0, "sampler2D"},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].type == type) {
            *floats = types[i].floats;
            return types[i].name;
        }
    *floats = 0;
    return "a type other than float or vecN";
}

static const char *const float_names[] = {"", "a float", "a vec2", "a vec3", "a vec4"};

int ona__gfx_program_uniform(ona__gfx *g, uint32_t program, const char *name, uint32_t components,
                             const float value[4], char *why, size_t whysize) {
    (void)g;
    GLint count = 0;
    glGetProgramiv(program, GL_ACTIVE_UNIFORMS, &count);
    size_t listed = 0;
    if (whysize)
        why[0] = '\0';
    for (GLint i = 0; i < count; i++) {
        char active[64];
        GLint size = 0;
        GLenum type = 0;
        glGetActiveUniform(program, (GLuint)i, sizeof active, NULL, &size, &type, active);
        char *bracket = strchr(active, '['); /* an array's first element: "u_k[0]" */
        if (bracket)
            *bracket = '\0';
        if (strcmp(active, name) != 0) {
            /* Every other active uniform, for a report of a name that is not there. */
            int n = snprintf(why + listed, whysize - listed, "%s%s", listed ? ", " : "", active);
            if (n > 0 && listed + (size_t)n < whysize)
                listed += (size_t)n;
            continue;
        }
        uint32_t floats;
        const char *glsl = type_name(type, &floats);
        if (floats != components) {
            if (floats)
                snprintf(why, whysize, "it is a %s, not %s", glsl,
                         components >= 1 && components <= 4 ? float_names[components] : "that");
            else
                snprintf(why, whysize,
                         "it is %s%s: ona.gfx.uniform sets float, vec2, vec3 and vec4 uniforms",
                         glsl[0] == 'a' && glsl[1] == ' ' ? ""
                         : strchr("aeiou", glsl[0])       ? "an "
                                                          : "a ",
                         glsl);
            return ONA_EINVAL;
        }
        GLint at = glGetUniformLocation(program, name);
        switch (components) {
        case 1:
            glProgramUniform1f(program, at, value[0]);
            break;
        case 2:
            glProgramUniform2f(program, at, value[0], value[1]);
            break;
        case 3:
            glProgramUniform3f(program, at, value[0], value[1], value[2]);
            break;
        default:
            glProgramUniform4f(program, at, value[0], value[1], value[2], value[3]);
            break;
        }
        return 0;
    }
    return ONA_ENOENT;
}

const char *ona__gfx_vertex_path(ona__gfx *g) {
    return g->vert_path;
}

const char *ona__gfx_fragment_path(ona__gfx *g) {
    return g->frag_path;
}
