/*
 * ctx_input.c: input from a C system's callbacks (ona/input.h): the frame's events, keys, the
 * mouse, gamepads, rumble and dead zones.
 *
 * Design note. The frame's input is main's, written before the turns and read-only during them
 * (video.c), so any thread may read it in a turn. Rumble and dead zones are commands queued like
 * draws, in the system's order, and applied by main after the turns.
 */
#include "native.h"

#include <stdio.h>

static ona__video *ctx_video(ona_ctx *ctx) {
    return &ona__ctx_services(ctx)->video;
}

const ona_event *ona_ctx_events(ona_ctx *ctx, uint32_t *count) {
    ona__video *v = ctx ? ctx_video(ctx) : NULL;
    uint32_t n = v ? v->event_count : 0;
    if (count)
        *count = n;
    return n ? v->events : NULL;
}

int ona_ctx_key_down(ona_ctx *ctx, const char *name) {
    if (!ctx || !name)
        return ONA_EINVAL;
    ona_event e = {.type = ONA_EVENT_KEY_DOWN};
    snprintf(e.as.key.name, sizeof e.as.key.name, "%s", name);
    ona__services_normalise_key(&e);
    if (e.as.key.scancode <= 0)
        return ONA_EINVAL;
    return e.as.key.scancode < ONA__MAX_SCANCODES && ctx_video(ctx)->keys[e.as.key.scancode];
}

int ona_ctx_mouse(ona_ctx *ctx, float *x, float *y, uint32_t *buttons) {
    if (!ctx)
        return ONA_EINVAL;
    ona__video *v = ctx_video(ctx);
    if (x)
        *x = v->mouse_x;
    if (y)
        *y = v->mouse_y;
    if (buttons)
        *buttons = v->mouse_buttons;
    return 0;
}

int ona_ctx_gamepad(ona_ctx *ctx, int index, ona_gamepad_state *out) {
    if (!ctx || !out || index < 1 || index > ONA_GAMEPAD_MAX)
        return ONA_EINVAL;
    *out = ctx_video(ctx)->pads.state[index - 1];
    return 0;
}

static int pad_command(ona_ctx *ctx, ona__pad_command *c) {
    return ona__system_pad_command(ctx->sys, c);
}

int ona_ctx_rumble(ona_ctx *ctx, int index, float low, float high, double seconds) {
    if (!ctx || index < 1 || index > ONA_GAMEPAD_MAX || !(low >= 0 && low <= 1) ||
        !(high >= 0 && high <= 1) || !(seconds >= 0 && seconds <= 60))
        return ONA_EINVAL;
    const ona_gamepad_state *s = &ctx_video(ctx)->pads.state[index - 1];
    if (!s->connected || !s->rumble)
        return 0;
    ona__pad_command c = {.kind = ONA__PAD_RUMBLE,
                          .slot = (uint8_t)(index - 1),
                          .a = low,
                          .b = high,
                          .ms = (uint32_t)(seconds * 1000 + 0.5)};
    int rc = pad_command(ctx, &c);
    return rc ? rc : 1;
}

int ona_ctx_gamepad_deadzone(ona_ctx *ctx, int index, float stick, float trigger) {
    if (!ctx || index < 1 || index > ONA_GAMEPAD_MAX || !(stick >= 0 && stick <= 0.95f) ||
        !(trigger >= 0 && trigger <= 0.95f))
        return ONA_EINVAL;
    ona__pad_command c = {
        .kind = ONA__PAD_DEADZONE, .slot = (uint8_t)(index - 1), .a = stick, .b = trigger};
    return pad_command(ctx, &c);
}
