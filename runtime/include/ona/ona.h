/*
 * ona.h: the one header an embedder includes.
 *
 * Ona is an actor-model game runtime: every game system is an actor (a Lua script with its own
 * LuaJIT state, or a native C system) scheduled on worker threads and talking to other systems
 * only through bounded mailboxes.
 *
 *   ona/base.h     version, error codes, logging hook, allocator hook
 *   ona/string.h   ona_string, the immutable string threads share without copying
 *   ona/message.h  messages built and read from C; buffers, the payload that moves
 *   ona/runtime.h  runtimes, Lua and native systems, frames, events, statistics, reloads
 *   ona/gfx.h      video, textures, canvases, shaders, cameras, drawing from native systems
 *   ona/time.h     steady time, frame pacing, random numbers
 *   ona/save.h     saves, replaced atomically
 *   ona/about.h    the versions built with, and a probe of the graphics driver
 *   ona/input.h    what native systems read of a frame's input; gamepads
 *   ona/audio.h    sounds, voices, groups and streamed music
 *   ona/text.h     TrueType fonts: print and measure UTF-8 text
 *   ona/shapes.h   rectangles, lines, circles, polygons and tile maps as sprites
 *
 * Conventions used by every public function:
 *  - Fallible calls return 0 on success or a negative ONA_E* code; ona_strerror() names it.
 *  - "Any thread" means the call is safe concurrently from any thread; "main thread" means the
 *    thread that created the runtime.
 *  - The creator of an object destroys it.
 */
#ifndef ONA_ONA_H
#define ONA_ONA_H

#include "ona/base.h"
#include "ona/string.h"
#include "ona/message.h"
#include "ona/gfx.h"
#include "ona/runtime.h"
#include "ona/time.h"
#include "ona/save.h"
#include "ona/about.h"
#include "ona/input.h"
#include "ona/audio.h"
#include "ona/text.h"
#include "ona/shapes.h"
#include "ona/physics.h"

#endif /* ONA_ONA_H */
