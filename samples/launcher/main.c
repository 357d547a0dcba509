/*
 * ona: the launcher. Until the actor core lands it reports what it was built with and which GL
 * renderer it can create, offscreen when no display exists.
 */
#include "ona/ona.h"

#include <GL/glew.h>
#include <SDL.h>
#include <lua.h>
#include <luajit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

/* Creates a hidden GL 4.6 (else 4.5) core context and prints its renderer. Uses SDL's offscreen
 * (EGL) driver when no display is set, so it works on a headless CI machine. */
static int report_gl(void) {
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !getenv("SDL_VIDEODRIVER"))
        SDL_SetHint(SDL_HINT_VIDEODRIVER, "offscreen");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "ona: SDL_Init failed: %s\n", SDL_GetError());
        return 1;
    }
    SDL_Window *window = NULL;
    SDL_GLContext context = NULL;
    static const int minors[] = {6, 5};
    for (size_t i = 0; i < 2 && !context; i++) {
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, minors[i]);
        SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
        window = SDL_CreateWindow("ona", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, 64, 64,
                                  SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
        if (window)
            context = SDL_GL_CreateContext(window);
        if (!context && window) {
            SDL_DestroyWindow(window);
            window = NULL;
        }
    }
    if (!context) {
        fprintf(stderr, "ona: no OpenGL 4.5+ core context: %s\n", SDL_GetError());
        SDL_Quit();
        return 1;
    }
    glewExperimental = GL_TRUE;
    GLenum glew = glewInit();
    /* On EGL, GLEW reports NO_GLX_DISPLAY although every entry point loaded. */
    if (glew != GLEW_OK && glew != GLEW_ERROR_NO_GLX_DISPLAY)
        fprintf(stderr, "ona: glewInit: %s\n", glewGetErrorString(glew));
    printf("video      %s\n", SDL_GetCurrentVideoDriver());
    printf("GL         %s\n", (const char *)glGetString(GL_VERSION));
    printf("renderer   %s\n", (const char *)glGetString(GL_RENDERER));
    SDL_GL_DeleteContext(context);
    SDL_DestroyWindow(window);
    SDL_Quit();
    return 0;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: ona [--version]\n");
            return 0;
        }
    }
    SDL_version sdl;
    SDL_GetVersion(&sdl);
    printf("ona        %s (%s)\n", ona_version(), ona_build_type());
    printf("LuaJIT     %s\n", LUAJIT_VERSION);
    printf("libuv      %s\n", uv_version_string());
    printf("SDL        %d.%d.%d\n", sdl.major, sdl.minor, sdl.patch);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--version") == 0)
            return 0;
    return report_gl();
}
