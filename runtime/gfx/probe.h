/*
 * probe.h: what the gfx layer tells ona_about and ona_video_probe (runtime/about.c) about SDL
 * and the GL driver (runtime/gfx/probe.c). Internal.
 */
#ifndef ONA_PROBE_H
#define ONA_PROBE_H

#include <stddef.h>

/* Writes the SDL version linked at run time ("2.26.5") to `buf` (always NUL-terminated when
 * `size` > 0). Any thread: SDL_GetVersion needs no initialisation. */
void ona__probe_sdl_version(char *buf, size_t size);

/* ona_video_probe's body (ona/about.h): same contract, buf and size already checked. */
int ona__probe_video(char *buf, size_t size);

#endif
