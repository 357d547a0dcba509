/*
 * gamepad.h: SDL game controllers as slots, their per-frame state, and the per-thread queues of
 * gamepad commands (rumble, dead zones). Internal; see gamepad.c for who calls what.
 */
#ifndef ONA_GAMEPAD_H
#define ONA_GAMEPAD_H

#include "ona/input.h"

/* How many gamepad commands one thread may queue in one frame. */
#define ONA__PAD_COMMANDS 64

typedef enum ona__pad_command_kind {
    ONA__PAD_RUMBLE = 1,
    ONA__PAD_DEADZONE,
} ona__pad_command_kind;

typedef struct ona__pad_command {
    uint32_t order, seq; /* the system's spawn order and submission number: the merge order */
    uint8_t kind;        /* ona__pad_command_kind */
    uint8_t slot;        /* 0-based */
    float a, b;          /* rumble: low, high; dead zone: stick, trigger */
    uint32_t ms;         /* rumble duration */
} ona__pad_command;

/* One thread's commands this frame: written only by that thread during the turns, read and
 * cleared by main after them (the frame's end orders the two). */
typedef struct ona__pad_queue {
    ona__pad_command items[ONA__PAD_COMMANDS];
    uint32_t count;
} ona__pad_queue;

typedef struct ona__gamepads {
    bool active;                        /* SDL's game controller subsystem is started */
    void *controllers[ONA_GAMEPAD_MAX]; /* SDL_GameController *, NULL for an empty slot */
    int32_t instance[ONA_GAMEPAD_MAX];  /* SDL joystick instance id of each slot */
    /* The frame's snapshot: written by main before the turns, read-only while they run. */
    ona_gamepad_state state[ONA_GAMEPAD_MAX];
    ona__pad_queue *queues; /* one per thread that runs turns */
    uint32_t queue_count;
    ona__pad_command *merge; /* main's merge buffer (queue_count * COMMANDS) */
} ona__gamepads;

/* Sets up the slots (default dead zones) and `threads` command queues. Errors: ONA_ENOMEM. */
int ona__gamepads_init(ona__gamepads *p, uint32_t threads);
/* Main, once SDL video runs: starts SDL's game controller subsystem (connected pads then arrive
 * as added events). Failure is logged and leaves gamepads off. */
void ona__gamepads_start(ona__gamepads *p);
/* Main: closes the pads, stops the subsystem if started, frees the queues. */
void ona__gamepads_free(ona__gamepads *p);

/* Main, for each SDL event polled (a `const SDL_Event *`): handles controller hot-plug and
 * buttons, writing an event to *out when there is one to report (returns true then). Events
 * that are not a controller's return false. */
bool ona__gamepads_translate(ona__gamepads *p, const void *sdl_event, ona_event *out);
/* Main, after the frame's SDL events: reads every pad into the snapshot, applies dead zones, and
 * appends an AXIS event per axis whose value changed (up to `max` in all); returns how many. */
uint32_t ona__gamepads_update(ona__gamepads *p, ona_event *events, uint32_t max);

/* A thread running a turn (its index `thread`, ona__runq_thread_index) queues `c` for the system
 * with spawn order `order` and submission counter *seq (advanced; the counter drawing uses, so
 * one system's draws and commands share one sequence). Errors: ONA_ETHREAD (not in a turn: no
 * queue), ONA_ELIMIT (ONA__PAD_COMMANDS already queued on this thread this frame). */
int ona__gamepads_command(ona__gamepads *p, int thread, uint32_t order, uint32_t *seq,
                          ona__pad_command *c);
/* Main, after the turns: applies every queued command in (order, seq) order, then clears the
 * queues. */
void ona__gamepads_apply(ona__gamepads *p);

/* Applies a radial dead zone to a stick (x, y in -1..1), and a linear one to a value. */
void ona__gamepad_stick_deadzone(float *x, float *y, float zone);
float ona__gamepad_deadzone(float v, float zone);

#endif
