/*
 * l_about.c: the LuaJIT version for ona_about (bindings/l_about.h).
 *
 * Design note. Only bindings/ includes LuaJIT's headers; this file keeps the version string on
 * that side of the line so that runtime/about.c can report it without including luajit.h. The
 * version is the compile-time one (LUAJIT_VERSION): LuaJIT has no C call that reports the
 * version of the library loaded at run time.
 */
#include "l_about.h"

#include <luajit.h>

const char *ona__lua_version(void) {
    return LUAJIT_VERSION;
}
