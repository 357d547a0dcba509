/*
 * l_about.h: what the Lua bindings tell ona_about (runtime/about.c) about LuaJIT
 * (bindings/l_about.c). Internal.
 */
#ifndef ONA_L_ABOUT_H
#define ONA_L_ABOUT_H

/* The LuaJIT version the library was compiled against ("LuaJIT 2.1.0-beta3"): a static string.
 * Any thread. */
const char *ona__lua_version(void);

#endif
