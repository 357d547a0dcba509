/*
 * gl_error.c: reading GL's error flags (gfx_gl_internal.h). Every part of the GL renderer (the
 * renderer itself, the shaders, the instance ring) checks its calls through these two, so they
 * live apart from all of them. Main thread only, like every gl* call.
 */
#include "gfx_gl_internal.h"

#include "common.h"

static const char *error_name(GLenum e) {
    switch (e) {
    case GL_INVALID_ENUM:
        return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE:
        return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION:
        return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION:
        return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY:
        return "GL_OUT_OF_MEMORY";
    default:
        return "GL error";
    }
}

/* Clears errors left by earlier calls, so that a check after the next calls sees only theirs. */
void ona__gl_clear_errors(void) {
    for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++)
        ;
}

/* Logs and returns the first pending GL error (GL_NO_ERROR when none), draining the rest. */
GLenum ona__gl_check(const char *what) {
    GLenum first = glGetError();
    if (first == GL_NO_ERROR)
        return first;
    ona__gl_clear_errors();
    ona_log(ONA_LOG_ERROR, "gfx", "%s: %s (0x%04x)", what, error_name(first), (unsigned)first);
    return first;
}
