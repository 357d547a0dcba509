/*
 * ona/input.h: what native systems read of a frame's input (events, keyboard, mouse, gamepads)
 * and the gamepad controls they have (rumble, dead zones).
 *
 * The main thread builds a frame's input before its turns: the events of the frame (SDL's, and
 * those pushed with ona_runtime_push_event) and a snapshot of the keyboard, the mouse and every
 * gamepad. While the turns run nothing changes them, so every system on every thread reads the
 * same input without locks. Commands (rumble, dead zones) are queued by the thread running the
 * turn and applied by main after the turns, in system spawn order then call order, so the
 * outcome does not depend on the number of threads.
 *
 * Gamepads are SDL game controllers (buttons and axes by SDL's standard names). They exist only
 * with video (ONA_VIDEO_WINDOW or ONA_VIDEO_OFFSCREEN): with ONA_VIDEO_NONE SDL is not started,
 * and no gamepad is ever connected. A gamepad occupies a slot, numbered 1..ONA_GAMEPAD_MAX (the
 * lowest free one when it is plugged in), for as long as it stays connected.
 *
 * Every ona_ctx_* function here is valid only inside a native system's callback, on the thread
 * running it (see ona/runtime.h); pointers returned are borrowed until the callback returns.
 */
#ifndef ONA_INPUT_H
#define ONA_INPUT_H

#include "ona/base.h"
#include "ona/gfx.h"
#include "ona/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How many gamepads may be connected at once; slots are 1..ONA_GAMEPAD_MAX. */
#define ONA_GAMEPAD_MAX 8

/* Buttons, with SDL_GameControllerButton's values; their names (events, Lua) are SDL's:
 * "a", "b", "x", "y", "back", "guide", "start", "leftstick", "rightstick", "leftshoulder",
 * "rightshoulder", "dpup", "dpdown", "dpleft", "dpright", "misc1", "paddle1".."paddle4",
 * "touchpad". */
typedef enum ona_gamepad_button {
    ONA_GAMEPAD_A = 0,
    ONA_GAMEPAD_B,
    ONA_GAMEPAD_X,
    ONA_GAMEPAD_Y,
    ONA_GAMEPAD_BACK,
    ONA_GAMEPAD_GUIDE,
    ONA_GAMEPAD_START,
    ONA_GAMEPAD_LEFTSTICK,
    ONA_GAMEPAD_RIGHTSTICK,
    ONA_GAMEPAD_LEFTSHOULDER,
    ONA_GAMEPAD_RIGHTSHOULDER,
    ONA_GAMEPAD_DPUP,
    ONA_GAMEPAD_DPDOWN,
    ONA_GAMEPAD_DPLEFT,
    ONA_GAMEPAD_DPRIGHT,
    ONA_GAMEPAD_MISC1,
    ONA_GAMEPAD_PADDLE1,
    ONA_GAMEPAD_PADDLE2,
    ONA_GAMEPAD_PADDLE3,
    ONA_GAMEPAD_PADDLE4,
    ONA_GAMEPAD_TOUCHPAD,
    ONA_GAMEPAD_BUTTON_COUNT,
} ona_gamepad_button;

/* Axes, with SDL_GameControllerAxis's values; names "leftx", "lefty", "rightx", "righty",
 * "lefttrigger", "righttrigger" (SDL_GameControllerGetStringForAxis). */
typedef enum ona_gamepad_axis {
    ONA_GAMEPAD_LEFTX = 0,
    ONA_GAMEPAD_LEFTY,
    ONA_GAMEPAD_RIGHTX,
    ONA_GAMEPAD_RIGHTY,
    ONA_GAMEPAD_TRIGGERLEFT,
    ONA_GAMEPAD_TRIGGERRIGHT,
    ONA_GAMEPAD_AXIS_COUNT,
} ona_gamepad_axis;

/* Dead zones a slot starts with: radial on each stick, linear on each trigger. */
#define ONA_GAMEPAD_DEADZONE_STICK 0.2f
#define ONA_GAMEPAD_DEADZONE_TRIGGER 0.1f

/* One gamepad as this frame sees it. */
typedef struct ona_gamepad_state {
    bool connected;
    bool rumble;      /* the pad has rumble motors (ona_ctx_rumble can work) */
    char name[64];    /* SDL's name for the controller */
    uint32_t buttons; /* bit (1u << ona_gamepad_button) per button held */
    /* Sticks -1..1 (y down is positive, as SDL reports), triggers 0..1, after the dead zones:
     * a stick inside its radial dead zone reads 0, 0 and outside it is rescaled so that it
     * moves from 0 at the zone's edge to 1 at full tilt; triggers the same, linearly. */
    float axes[ONA_GAMEPAD_AXIS_COUNT];
    float deadzone_stick, deadzone_trigger; /* the slot's dead zones, 0..0.95 */
} ona_gamepad_state;

/* The name of a button or axis ("a", "leftx"), NULL out of range; and back, -1 for an unknown
 * name. Any thread. */
ONA_API const char *ona_gamepad_button_name(ona_gamepad_button button);
ONA_API const char *ona_gamepad_axis_name(ona_gamepad_axis axis);
ONA_API int ona_gamepad_button_from_name(const char *name);
ONA_API int ona_gamepad_axis_from_name(const char *name);

/* This frame's events, in order (*count set; NULL and 0 when none). Borrowed: valid until the
 * callback returns. Gamepad events: GAMEPAD_ADDED/REMOVED (as.gamepad.index), BUTTON_DOWN/UP
 * (index, name, value 1/0), AXIS (index, name, value: the axis after its dead zone, one event
 * per axis that changed since the last frame). Errors: NULL with *count 0 for a NULL ctx. */
ONA_API const ona_event *ona_ctx_events(ona_ctx *ctx, uint32_t *count);

/* 1 when the key named `name` is held this frame, else 0: SDL's key names in any case ("a",
 * "space", "left shift", "keypad enter") or LÖVE's ("lshift", "kpenter"; the README's "Key
 * names" table lists both). Errors: ONA_EINVAL (NULL, unknown name). */
ONA_API int ona_ctx_key_down(ona_ctx *ctx, const char *name);

/* LÖVE's name for a key event's (lower-cased SDL) name: "left shift" -> "lshift", "keypad
 * enter" -> "kpenter"; `name` itself where LÖVE spells the key alike or has no name for it;
 * NULL for NULL. A pushed event (ona_runtime_push_event) may name its key either way: it is
 * delivered with SDL's name. Pure: any thread. */
ONA_API const char *ona_key_love_name(const char *name);

/* The mouse this frame: position in window pixels and a bit (button - 1) per button held
 * (1 left, 2 middle, 4 right). NULL outputs are skipped. Errors: ONA_EINVAL (NULL ctx). */
ONA_API int ona_ctx_mouse(ona_ctx *ctx, float *x, float *y, uint32_t *buttons);

/* Copies slot `index`'s state (1..ONA_GAMEPAD_MAX) into *out; an empty slot reads
 * connected = false and zeroes (with the slot's dead zones). Errors: ONA_EINVAL (NULL, index out
 * of range). */
ONA_API int ona_ctx_gamepad(ona_ctx *ctx, int index, ona_gamepad_state *out);

/* Asks slot `index`'s pad to rumble: low and high frequency motors 0..1 for `seconds` (0..60;
 * 0 stops it). Applied by main after this frame's turns, in spawn order then call order (the
 * last request of the frame wins). Returns 1 when queued, 0 when the slot has no pad or the pad
 * has no rumble. Errors: ONA_EINVAL (NULL ctx, index or values out of range), ONA_ETHREAD (not
 * inside a turn), ONA_ELIMIT (more than 64 gamepad commands on one thread in one frame). */
ONA_API int ona_ctx_rumble(ona_ctx *ctx, int index, float low, float high, double seconds);

/* Sets slot `index`'s dead zones (stick radial, trigger linear; each 0..0.95), from the next
 * frame on; they stay with the slot across hot-plugs. Queued and applied like ona_ctx_rumble.
 * Errors: ONA_EINVAL, ONA_ETHREAD, ONA_ELIMIT. */
ONA_API int ona_ctx_gamepad_deadzone(ona_ctx *ctx, int index, float stick, float trigger);

#ifdef __cplusplus
}
#endif

#endif /* ONA_INPUT_H */
