/*
 * keys.h: LÖVE's key names beside SDL's (keys.c). Constant data: any thread.
 */
#ifndef ONA_KEYS_H
#define ONA_KEYS_H

#include "ona/input.h"

typedef struct ona__key_name {
    const char *love; /* LÖVE's KeyConstant */
    const char *sdl;  /* SDL's lower-cased scancode name where it differs; NULL: the same */
    bool no_scancode; /* a character typed with shift on a US keyboard: no key of its own */
} ona__key_name;

/* The whole LÖVE list, in its documentation's order. */
const ona__key_name *ona__keys_table(uint32_t *count);
/* SDL's name for a LÖVE name that differs ("lshift" -> "left shift"); NULL otherwise. */
const char *ona__keys_from_love(const char *name);
/* LÖVE's name for an SDL name (lower-cased): "left shift" -> "lshift"; `name` itself when LÖVE
 * spells it alike or has no name for it. */
const char *ona__keys_love_name(const char *name);
/* Whether `name` is one of LÖVE's shifted characters ("!", "@"): no scancode carries it. */
bool ona__keys_is_character_only(const char *name);

#endif
