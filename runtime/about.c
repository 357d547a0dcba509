/*
 * about.c: ona/about.h: the versions the library was built with, and the graphics probe.
 *
 * Design note. This file sits at the top of the library, above the three layers, so it may ask
 * each for its part without any of them including another's headers: the core gives Ona's
 * version and build type, libuv its own, bindings/ LuaJIT's (l_about.c) and gfx/ SDL's and the
 * driver probe (probe.c). Nothing here holds state; ona_about is safe from any thread.
 */
#include "common.h"
#include "l_about.h"
#include "probe.h"

#include <stdio.h>
#include <uv.h>

int ona_about(char *buf, size_t size) {
    if (!buf || size == 0)
        return ONA_EINVAL;
    char sdl[32];
    ona__probe_sdl_version(sdl, sizeof sdl);
    int n = snprintf(buf, size,
                     "ona        %s (%s)\n"
                     "LuaJIT     %s\n"
                     "libuv      %s\n"
                     "SDL        %s\n",
                     ona_version(), ona_build_type(), ona__lua_version(), uv_version_string(), sdl);
    return n >= 0 && (size_t)n < size ? 0 : ONA_ERANGE;
}

int ona_video_probe(char *buf, size_t size) {
    if (!buf || size == 0)
        return ONA_EINVAL;
    return ona__probe_video(buf, size);
}
