/*
 * gamepad.c: SDL game controllers (gamepad.h, ona/input.h).
 *
 * Design note. Everything SDL happens on main: the subsystem starts with the video (there is no
 * SDL without it, so ONA_VIDEO_NONE has no gamepads), pads are opened when SDL reports them added
 * (which it also does at start for pads already plugged in) and closed when removed. Each pad
 * takes the lowest free slot and keeps it while connected. Before the turns, main translates the
 * controllers' SDL events (hot-plug, buttons) in SDL's order among the window's events, then reads
 * every pad into a snapshot with dead zones applied and reports each axis that changed as one
 * AXIS event (so a stick's jitter inside its dead zone produces no events, and a frame has at most
 * one event per axis). The snapshot is read-only while the turns run.
 *
 * Commands from systems (rumble, dead zones) go to the command queue of the thread running the
 * turn (no lock: one writer per queue during the turns), tagged with the system's spawn order
 * and submission number; after the turns main sorts them by that tag and applies them, so the
 * result is the same on any number of threads. SDL joystick events are allowed while the window
 * has no focus (SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, unless the environment says
 * otherwise): an offscreen window never has focus, and games read pads from a second screen.
 */
#include "gamepad.h"

#include "common.h"
#include "pin.h"

#include <SDL.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)ONA_GAMEPAD_BUTTON_COUNT == (int)SDL_CONTROLLER_BUTTON_MAX, "as SDL's");
_Static_assert((int)ONA_GAMEPAD_AXIS_COUNT == (int)SDL_CONTROLLER_AXIS_MAX, "as SDL's");
_Static_assert((int)ONA_GAMEPAD_TOUCHPAD == (int)SDL_CONTROLLER_BUTTON_TOUCHPAD, "as SDL's");
_Static_assert((int)ONA_GAMEPAD_TRIGGERRIGHT == (int)SDL_CONTROLLER_AXIS_TRIGGERRIGHT, "as SDL's");

/* SDL's own names (SDL_GameControllerGetStringForButton/Axis), kept here so that they work
 * without SDL (ONA_VIDEO_NONE) and from any thread. */
static const char *const button_names[ONA_GAMEPAD_BUTTON_COUNT] = {
    "a",
    "b",
    "x",
    "y",
    "back",
    "guide",
    "start",
    "leftstick",
    "rightstick",
    "leftshoulder",
    "rightshoulder",
    "dpup",
    "dpdown",
    "dpleft",
    "dpright",
    "misc1",
    "paddle1",
    "paddle2",
    "paddle3",
    "paddle4",
    "touchpad",
};
static const char *const axis_names[ONA_GAMEPAD_AXIS_COUNT] = {
    "leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger",
};

const char *ona_gamepad_button_name(ona_gamepad_button button) {
    return (unsigned)button < ONA_GAMEPAD_BUTTON_COUNT ? button_names[button] : NULL;
}

const char *ona_gamepad_axis_name(ona_gamepad_axis axis) {
    return (unsigned)axis < ONA_GAMEPAD_AXIS_COUNT ? axis_names[axis] : NULL;
}

int ona_gamepad_button_from_name(const char *name) {
    for (int i = 0; name && i < ONA_GAMEPAD_BUTTON_COUNT; i++)
        if (strcmp(name, button_names[i]) == 0)
            return i;
    return -1;
}

int ona_gamepad_axis_from_name(const char *name) {
    for (int i = 0; name && i < ONA_GAMEPAD_AXIS_COUNT; i++)
        if (strcmp(name, axis_names[i]) == 0)
            return i;
    return -1;
}

void ona__gamepad_stick_deadzone(float *x, float *y, float zone) {
    float m = sqrtf(*x * *x + *y * *y);
    if (m <= zone || m <= 0) {
        *x = *y = 0;
        return;
    }
    float scaled = (fminf(m, 1) - zone) / (1 - zone);
    *x = *x / m * scaled;
    *y = *y / m * scaled;
}

float ona__gamepad_deadzone(float v, float zone) {
    float m = fabsf(v);
    if (m <= zone)
        return 0;
    float scaled = (fminf(m, 1) - zone) / (1 - zone);
    return v < 0 ? -scaled : scaled;
}

int ona__gamepads_init(ona__gamepads *p, uint32_t threads) {
    memset(p, 0, sizeof *p);
    p->queue_count = threads ? threads : 1;
    p->queues = ona__calloc(p->queue_count, sizeof *p->queues);
    p->merge = ona__calloc((size_t)p->queue_count * ONA__PAD_COMMANDS, sizeof *p->merge);
    if (!p->queues || !p->merge) {
        ona__free(p->queues);
        ona__free(p->merge);
        p->queues = NULL;
        p->merge = NULL;
        return ONA_ENOMEM;
    }
    for (int i = 0; i < ONA_GAMEPAD_MAX; i++) {
        p->instance[i] = -1;
        p->state[i].deadzone_stick = ONA_GAMEPAD_DEADZONE_STICK;
        p->state[i].deadzone_trigger = ONA_GAMEPAD_DEADZONE_TRIGGER;
    }
    return 0;
}

void ona__gamepads_start(ona__gamepads *p) {
    SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
    if (SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER) != 0) {
        ona_log(ONA_LOG_WARN, "gamepad", "no gamepads: SDL's game controllers failed to start: %s",
                SDL_GetError());
        return;
    }
    p->active = true;
    ona__gfx_pin_libraries(); /* libudev came with the game controllers */
}

static void clear_slot(ona__gamepads *p, int slot) {
    ona_gamepad_state *s = &p->state[slot];
    float stick = s->deadzone_stick, trigger = s->deadzone_trigger;
    memset(s, 0, sizeof *s);
    s->deadzone_stick = stick;
    s->deadzone_trigger = trigger;
    p->controllers[slot] = NULL;
    p->instance[slot] = -1;
}

void ona__gamepads_free(ona__gamepads *p) {
    for (int i = 0; i < ONA_GAMEPAD_MAX; i++) {
        if (p->controllers[i])
            SDL_GameControllerClose(p->controllers[i]);
        clear_slot(p, i);
    }
    if (p->active)
        SDL_QuitSubSystem(SDL_INIT_GAMECONTROLLER);
    p->active = false;
    ona__free(p->queues);
    ona__free(p->merge);
    p->queues = NULL;
    p->merge = NULL;
    p->queue_count = 0;
}

static int slot_of(const ona__gamepads *p, SDL_JoystickID id) {
    for (int i = 0; i < ONA_GAMEPAD_MAX; i++)
        if (p->controllers[i] && p->instance[i] == id)
            return i;
    return -1;
}

/* Opens the controller at SDL device index `device` in the lowest free slot; -1 when it is
 * already open, no slot is free, or SDL cannot open it (both logged). */
static int open_pad(ona__gamepads *p, int device) {
    SDL_JoystickID id = SDL_JoystickGetDeviceInstanceID(device);
    if (id < 0 || slot_of(p, id) >= 0)
        return -1;
    int slot = 0;
    while (slot < ONA_GAMEPAD_MAX && p->controllers[slot])
        slot++;
    if (slot == ONA_GAMEPAD_MAX) {
        ona_log(ONA_LOG_WARN, "gamepad", "ignoring gamepad '%s': all %d slots are taken",
                SDL_GameControllerNameForIndex(device) ? SDL_GameControllerNameForIndex(device)
                                                       : "?",
                ONA_GAMEPAD_MAX);
        return -1;
    }
    SDL_GameController *gc = SDL_GameControllerOpen(device);
    if (!gc) {
        ona_log(ONA_LOG_WARN, "gamepad", "cannot open gamepad %d: %s", device, SDL_GetError());
        return -1;
    }
    clear_slot(p, slot);
    p->controllers[slot] = gc;
    p->instance[slot] = id;
    ona_gamepad_state *s = &p->state[slot];
    s->connected = true;
    s->rumble = SDL_GameControllerHasRumble(gc) == SDL_TRUE;
    const char *name = SDL_GameControllerName(gc);
    snprintf(s->name, sizeof s->name, "%s", name ? name : "gamepad");
    ona_log(ONA_LOG_INFO, "gamepad", "gamepad %d connected: %s%s", slot + 1, s->name,
            s->rumble ? " (rumble)" : "");
    return slot;
}

bool ona__gamepads_translate(ona__gamepads *p, const void *sdl_event, ona_event *out) {
    const SDL_Event *s = sdl_event;
    if (!p->active)
        return false;
    int slot;
    switch (s->type) {
    case SDL_CONTROLLERDEVICEADDED:
        slot = open_pad(p, s->cdevice.which);
        if (slot < 0)
            return false;
        memset(out, 0, sizeof *out);
        out->type = ONA_EVENT_GAMEPAD_ADDED;
        out->as.gamepad.index = slot + 1;
        return true;
    case SDL_CONTROLLERDEVICEREMOVED:
        slot = slot_of(p, s->cdevice.which);
        if (slot < 0)
            return false;
        ona_log(ONA_LOG_INFO, "gamepad", "gamepad %d disconnected: %s", slot + 1,
                p->state[slot].name);
        SDL_GameControllerClose(p->controllers[slot]);
        clear_slot(p, slot);
        memset(out, 0, sizeof *out);
        out->type = ONA_EVENT_GAMEPAD_REMOVED;
        out->as.gamepad.index = slot + 1;
        return true;
    case SDL_CONTROLLERBUTTONDOWN:
    case SDL_CONTROLLERBUTTONUP:
        slot = slot_of(p, s->cbutton.which);
        if (slot < 0 || s->cbutton.button >= ONA_GAMEPAD_BUTTON_COUNT)
            return false;
        memset(out, 0, sizeof *out);
        out->type = s->type == SDL_CONTROLLERBUTTONDOWN ? ONA_EVENT_GAMEPAD_BUTTON_DOWN
                                                        : ONA_EVENT_GAMEPAD_BUTTON_UP;
        out->as.gamepad.index = slot + 1;
        snprintf(out->as.gamepad.name, sizeof out->as.gamepad.name, "%s",
                 button_names[s->cbutton.button]);
        out->as.gamepad.value = s->type == SDL_CONTROLLERBUTTONDOWN ? 1.0f : 0.0f;
        return true;
    default:
        return false;
    }
}

static float axis_value(SDL_GameController *gc, SDL_GameControllerAxis axis) {
    float v = (float)SDL_GameControllerGetAxis(gc, axis) / 32767.0f;
    return v < -1 ? -1 : (v > 1 ? 1 : v);
}

uint32_t ona__gamepads_update(ona__gamepads *p, ona_event *events, uint32_t max) {
    uint32_t n = 0;
    for (int slot = 0; slot < ONA_GAMEPAD_MAX; slot++) {
        SDL_GameController *gc = p->controllers[slot];
        if (!gc)
            continue;
        ona_gamepad_state *s = &p->state[slot];
        uint32_t buttons = 0;
        for (int b = 0; b < ONA_GAMEPAD_BUTTON_COUNT; b++)
            if (SDL_GameControllerGetButton(gc, (SDL_GameControllerButton)b))
                buttons |= 1u << b;
        s->buttons = buttons;
        float a[ONA_GAMEPAD_AXIS_COUNT];
        for (int i = 0; i < ONA_GAMEPAD_AXIS_COUNT; i++)
            a[i] = axis_value(gc, (SDL_GameControllerAxis)i);
        ona__gamepad_stick_deadzone(&a[ONA_GAMEPAD_LEFTX], &a[ONA_GAMEPAD_LEFTY],
                                    s->deadzone_stick);
        ona__gamepad_stick_deadzone(&a[ONA_GAMEPAD_RIGHTX], &a[ONA_GAMEPAD_RIGHTY],
                                    s->deadzone_stick);
        a[ONA_GAMEPAD_TRIGGERLEFT] =
            ona__gamepad_deadzone(a[ONA_GAMEPAD_TRIGGERLEFT], s->deadzone_trigger);
        a[ONA_GAMEPAD_TRIGGERRIGHT] =
            ona__gamepad_deadzone(a[ONA_GAMEPAD_TRIGGERRIGHT], s->deadzone_trigger);
        for (int i = 0; i < ONA_GAMEPAD_AXIS_COUNT; i++) {
            if (a[i] != s->axes[i] && n < max) {
                ona_event *e = &events[n++];
                memset(e, 0, sizeof *e);
                e->type = ONA_EVENT_GAMEPAD_AXIS;
                e->as.gamepad.index = slot + 1;
                snprintf(e->as.gamepad.name, sizeof e->as.gamepad.name, "%s", axis_names[i]);
                e->as.gamepad.value = a[i];
            }
            s->axes[i] = a[i];
        }
    }
    return n;
}

int ona__gamepads_command(ona__gamepads *p, int thread, uint32_t order, uint32_t *seq,
                          ona__pad_command *c) {
    if (thread < 0 || (uint32_t)thread >= p->queue_count)
        return ONA_ETHREAD;
    ona__pad_queue *q = &p->queues[thread];
    if (q->count >= ONA__PAD_COMMANDS)
        return ONA_ELIMIT;
    c->order = order;
    c->seq = (*seq)++;
    q->items[q->count++] = *c;
    return 0;
}

static int cmp_command(const void *a, const void *b) {
    const ona__pad_command *x = a, *y = b;
    if (x->order != y->order)
        return x->order < y->order ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

void ona__gamepads_apply(ona__gamepads *p) {
    uint32_t n = 0;
    for (uint32_t q = 0; q < p->queue_count; q++) {
        memcpy(p->merge + n, p->queues[q].items, p->queues[q].count * sizeof *p->merge);
        n += p->queues[q].count;
        p->queues[q].count = 0;
    }
    if (n == 0)
        return;
    qsort(p->merge, n, sizeof *p->merge, cmp_command);
    for (uint32_t i = 0; i < n; i++) {
        const ona__pad_command *c = &p->merge[i];
        if (c->slot >= ONA_GAMEPAD_MAX)
            continue;
        if (c->kind == ONA__PAD_DEADZONE) {
            p->state[c->slot].deadzone_stick = c->a;
            p->state[c->slot].deadzone_trigger = c->b;
        } else if (c->kind == ONA__PAD_RUMBLE && p->controllers[c->slot]) {
            Uint16 low = (Uint16)lroundf(c->a * 65535), high = (Uint16)lroundf(c->b * 65535);
            if (SDL_GameControllerRumble(p->controllers[c->slot], low, high, c->ms) != 0)
                ona_log(ONA_LOG_DEBUG, "gamepad", "gamepad %d: rumble failed: %s", c->slot + 1,
                        SDL_GetError());
        }
    }
}
