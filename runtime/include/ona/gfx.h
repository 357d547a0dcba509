/*
 * ona/gfx.h: video (window or offscreen), sprites, textures, canvases, game shaders, cameras,
 * input events; the runtime's video functions and drawing from native systems.
 *
 * Only the main thread calls SDL or GL. Systems draw by pushing sprites to their thread's render
 * queue (no lock, no atomic); after the frame's turns the main thread merges the queues in a
 * deterministic order (layer, then system spawn order, then submission order), writes the
 * instances once into a persistent-mapped buffer and draws one instanced draw per run of sprites
 * sharing a texture. The picture is the same whatever the number of threads.
 */
#ifndef ONA_GFX_H
#define ONA_GFX_H

#include "ona/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ona_video {
    ONA_VIDEO_NONE = 0,  /* no SDL video, no GL: systems may still draw (it is discarded) */
    ONA_VIDEO_WINDOW,    /* a window; falls back to OFFSCREEN where no display exists */
    ONA_VIDEO_OFFSCREEN, /* SDL's offscreen driver (EGL): renders, screenshots, no display */
} ona_video;

typedef enum ona_vsync {
    ONA_VSYNC_DEFAULT = 0, /* on */
    ONA_VSYNC_ON,
    ONA_VSYNC_OFF,
} ona_vsync;

/* Every 0 means the default. */
typedef struct ona_window_desc {
    const char *title; /* "Ona" */
    int width, height; /* 1280 x 720 */
    bool resizable;
    bool fullscreen; /* desktop fullscreen */
    ona_vsync vsync;
    const char *shader_dir; /* folder of sprite.vert/sprite.frag; NULL = the built-in path */
} ona_window_desc;

/* A texture handle (generation-checked; 0 is invalid). */
typedef struct ona_texture {
    uint32_t id;
} ona_texture;

/* One sprite (48 bytes), the layout the GPU reads; Lua fills arrays of these through the FFI
 * (ona.gfx.sprites(n)). A zeroed sprite is invisible (scale 0, tint 0): set scale and tint. */
typedef struct ona_sprite {
    float x, y;               /* world position of the sprite's origin point */
    float origin_x, origin_y; /* the pivot, in source pixels from the source rect's top-left */
    float scale_x, scale_y;   /* 1 = the source rect's size in world units (pixels at zoom 1) */
    float rotation;           /* radians; positive turns clockwise on screen (y points down) */
    float src_x, src_y, src_w, src_h; /* source rect in texels; src_w <= 0: the whole texture */
    uint32_t tint; /* RGBA8 with R in the lowest byte (0xAABBGGRR); 0xFFFFFFFF = as is */
} ona_sprite;

/* Shapes: an ona_sprite whose src_w is exactly ONA_SPRITE_QUAD is a "free quad", not a
 * sprite: its four corners are given in world space, in triangle-strip order (triangles 0-1-2
 * and 1-2-3; a triangle repeats a corner): (x, y), (origin_x, origin_y), (scale_x, scale_y),
 * (rotation, src_x); it is filled with the one texel at (src_y, src_h) in texels, times tint.
 * Every other src_w keeps its meaning above. ona/shapes.h makes these. */
#define ONA_SPRITE_QUAD (-65536.0f)

/* An ona_sprite whose src_w is exactly ONA_SPRITE_AFFINE is a textured parallelogram: texel
 * (u, v) of its source rect lands at (x, y) + u * (origin_x, origin_y) + v * (scale_x, scale_y);
 * the source rect is (rotation, src_x, src_y, src_h) as (x, y, w, h) in texels, w <= 0 the whole
 * texture. The draw-state stack (ona_ctx_gfx_push) makes these from sprites a transform skews. */
#define ONA_SPRITE_AFFINE (-131072.0f)

/* ona_sprite's tint from 0..255 components. */
#define ONA_RGBA(r, g, b, a)                                                                       \
    ((uint32_t)(r) | ((uint32_t)(g) << 8) | ((uint32_t)(b) << 16) | ((uint32_t)(a) << 24))

/* --- Input events ---------------------------------------------------------------------------- */

typedef enum ona_event_type {
    ONA_EVENT_NONE = 0,
    ONA_EVENT_KEY_DOWN,
    ONA_EVENT_KEY_UP,
    ONA_EVENT_TEXT,
    ONA_EVENT_MOUSE_MOVE,
    ONA_EVENT_MOUSE_DOWN,
    ONA_EVENT_MOUSE_UP,
    ONA_EVENT_MOUSE_WHEEL,
    ONA_EVENT_WINDOW_RESIZED,
    ONA_EVENT_WINDOW_FOCUS,
    ONA_EVENT_WINDOW_BLUR,
    ONA_EVENT_QUIT,
    /* Gamepads and input, appended so that the values above keep their numbers
     * (ona/input.h). */
    ONA_EVENT_GAMEPAD_ADDED,
    ONA_EVENT_GAMEPAD_REMOVED,
    ONA_EVENT_GAMEPAD_BUTTON_DOWN,
    ONA_EVENT_GAMEPAD_BUTTON_UP,
    ONA_EVENT_GAMEPAD_AXIS,
} ona_event_type;

/* One input event. Every system sees the same immutable list of a frame's events. */
typedef struct ona_event {
    ona_event_type type;
    union {
        struct {
            char name[32]; /* lower-case SDL key name: "a", "space", "left", "escape" */
            int scancode;  /* SDL scancode (filled from the name when pushed from C with 0) */
            bool repeat;
        } key;
        struct {
            char text[32]; /* UTF-8 */
        } text;
        struct {
            float x, y, dx, dy;
            int button; /* 1 left, 2 middle, 3 right */
        } mouse;
        struct {
            float dx, dy;
        } wheel;
        struct {
            int width, height;
        } window;
        /* Gamepads and input: GAMEPAD_* events (ona/input.h). */
        struct {
            int index;     /* the pad's slot, 1..ONA_GAMEPAD_MAX */
            char name[16]; /* button or axis: "a", "dpleft", "leftx", "righttrigger"; "" else */
            float value;   /* axis: after the dead zone; button: 1 down, 0 up */
        } gamepad;
    } as;
} ona_event;

/* --- Draw state (cameras per layer range, canvases, shaders, blend modes) -------------------- */

/* How a draw's colour meets what is already there. */
typedef enum ona_blend {
    ONA_BLEND_DEFAULT = 0,   /* the layer's default (ona.gfx.layer), else alpha */
    ONA_BLEND_ALPHA,         /* src * a + dst * (1 - a) */
    ONA_BLEND_PREMULTIPLIED, /* src + dst * (1 - a): textures whose colour is already times a */
    ONA_BLEND_ADD,           /* dst + src * a: light, fire, particles */
    ONA_BLEND_MULTIPLY,      /* dst * src (alpha ignored: transparent texels should be white) */
} ona_blend;

/* A game fragment shader (ona_runtime_shader_load); generation-checked like textures; 0 is none. */
typedef struct ona_shader {
    uint32_t id;
} ona_shader;

/* How a native system's sprites are drawn (ona_ctx_draw_ex). Every 0 means the default. */
typedef struct ona_draw_desc {
    int layer;          /* lower layers first; within a layer, systems in spawn order */
    ona_blend blend;    /* 0: the layer's default, else alpha */
    ona_shader shader;  /* 0: the layer's, else the runtime's sprite shader */
    ona_texture target; /* a canvas (ona_runtime_canvas) to draw into; 0: the screen */
} ona_draw_desc;

/* A camera (ona_ctx_camera): the world point (x, y) shown at the viewport's centre, the zoom,
 * the layers it applies to and the part of the window drawn into. Every 0 means the default. */
typedef struct ona_camera_desc {
    float x, y;
    float zoom;             /* 0: 1 */
    bool layer_range;       /* true: only layers layer_lo..layer_hi; false: every layer */
    int layer_lo, layer_hi; /* inclusive */
    float viewport_x, viewport_y, viewport_w, viewport_h; /* pixels; w or h 0: the whole window */
} ona_camera_desc;

/* --- The runtime's video: screenshots, textures, shaders, its mode and size -------------------
 * Textures, canvases and shaders belong to the runtime, which frees them when it is destroyed;
 * their handles are valid on every thread. */

/* Writes the next presented frame to a PNG file at `path`. Any thread. Errors: ONA_EINVAL,
 * ONA_EGFX (no video: nothing will be written). */
ONA_API int ona_runtime_screenshot(ona_runtime *rt, const char *path);

/* Loads a PNG texture (path absolute or under a script root), once per path, and takes a
 * reference for the embedder (ona_runtime_texture_release gives it back; a native system calling
 * this through ona_ctx_runtime loads as the embedder too). Any thread. On a missing or corrupt
 * file returns ONA_ENOENT / ONA_EFORMAT, logs the path, and still sets *out to a visible
 * placeholder texture (the file's own: filled in when the file is fixed and watched, or, without
 * watching, at the frame after a later load of it). */
ONA_API int ona_runtime_texture_load(ona_runtime *rt, const char *path, ona_texture *out);
/* Gives back the reference a ona_runtime_texture_load took (one per load). A texture nobody
 * holds (the embedder, or a system that loaded it and is still running) is freed at the next
 * frame boundary, GL texture included; its handle is stale from then on: drawing it draws the
 * placeholder, ona_runtime_texture_size returns ONA_ESTALE, and the Lua calls raise. Any thread.
 * Errors: ONA_EINVAL (no runtime), ONA_ESTALE (not a texture the embedder holds: released as
 * often as loaded, never loaded, or a canvas). */
ONA_API int ona_runtime_texture_release(ona_runtime *rt, ona_texture texture);
/* The size of a texture. Errors: ONA_ESTALE. Any thread. */
ONA_API int ona_runtime_texture_size(ona_runtime *rt, ona_texture texture, int *width, int *height);
/* Recompiles the sprite shaders from their files; a broken file logs file:line and keeps the
 * old program. Main thread, between frames. Errors: ONA_EGFX (no video, or the new shaders
 * failed), ONA_ETHREAD. */
ONA_API int ona_runtime_reload_shaders(ona_runtime *rt);

/* The video actually running: WINDOW, OFFSCREEN (asked for, or the fallback where no display
 * exists) or NONE. Any thread. */
ONA_API ona_video ona_runtime_video_mode(const ona_runtime *rt);

/* The drawable size in pixels (the window's, or the desc's size without video); 0 x 0 for a
 * NULL runtime. Either out pointer may be NULL. */
ONA_API void ona_runtime_video_size(ona_runtime *rt, int *width, int *height);

/* --- Drawing from a native system's callbacks ---------------------------------------------- */

/* Draws `count` sprites with `texture` on `layer` (lower layers first), in this frame. The
 * sprites are copied into the thread's render queue (the caller keeps its array). Only inside a
 * callback, on its thread. Errors: ONA_EINVAL (no sprites with a count), ONA_ETHREAD (not inside
 * a turn: an exit callback), ONA_ENOMEM. */
ONA_API int ona_ctx_draw(ona_ctx *ctx, ona_texture texture, int layer, const ona_sprite *sprites,
                         uint32_t count);

/* Makes a canvas: a width x height texture (RGBA8, transparent at first) that draws can target
 * (ona_draw_desc.target) and that is drawn like any texture, in the same frame (the merge draws
 * a canvas's pass before any pass that samples it) or later. It keeps its contents from frame
 * to frame until cleared (ona.gfx.canvas_clear). Its GL objects are made by main before the next
 * frame is drawn; with ONA_VIDEO_NONE the handle works and drawing into it is discarded. The
 * runtime owns it until it is destroyed. Any thread. Errors: ONA_EINVAL (a side <= 0 or over
 * 16384), ONA_ELIMIT (the texture table is full). */
ONA_API int ona_runtime_canvas(ona_runtime *rt, int width, int height, ona_texture *out);

/* Loads a game fragment shader (path absolute or under a script root), linked with the
 * runtime's sprite vertex stage (the interface is in shaders/sprite.frag's comment: inputs
 * v_uv and v_tint, output o_color, sampler u_texture at binding 0, uniforms u_texture_size and
 * u_time). It is compiled by main before the next frame is drawn and recompiled when its file
 * changes (a compile error logs "path:line: message" and keeps the old program; one that never
 * compiled draws with the sprite shader, said once). The same path gives the same handle. Any
 * thread. Errors: ONA_EINVAL, ONA_ENOENT (no such file; logged), ONA_ELIMIT (256 shaders). */
ONA_API int ona_runtime_shader_load(ona_runtime *rt, const char *path, ona_shader *out);

/* ona_ctx_draw with the full draw options (layer, blend, shader, target). The sprites are
 * copied. Errors: ONA_EINVAL (a stale shader, a target that is not a canvas, a canvas drawn into
 * itself, a blend outside ona_blend), ONA_ENOMEM. Only inside a callback, on its thread. */
ONA_API int ona_ctx_draw_ex(ona_ctx *ctx, ona_texture texture, const ona_draw_desc *desc,
                            const ona_sprite *sprites, uint32_t count);

/* Sets the camera of a layer range from the next frame on (the last setter in spawn order
 * wins, per layer). Errors: ONA_EINVAL (no desc, layer_lo > layer_hi, a negative viewport side;
 * logged naming the function: a zoom that is negative, NaN or infinite, a position or viewport
 * that is not finite, as Lua's ona.gfx.camera raises),
 * ONA_ETHREAD (not inside a turn), ONA_ENOMEM. Only inside a callback, on its thread. */
ONA_API int ona_ctx_camera(ona_ctx *ctx, const ona_camera_desc *desc);

/* --- The draw-state stack of a native system's turn -------------------------------------------
 * As ona.gfx.push/pop/translate/rotate/scale/origin and set_target in Lua: every draw of the
 * calling system's turn (sprites, shapes, text, tile maps) goes through its transform, before
 * the layer cameras, and into its target unless the draw's desc names one. Each turn starts with
 * the identity, the screen as target and nothing pushed. Composition is LÖVE's: the last call
 * acts first on what is drawn. A sprite the transform skews is drawn as an ONA_SPRITE_AFFINE
 * instance. All of them: only inside a callback, on its thread; ONA_EINVAL for a NULL ctx. */

/* What ona_ctx_gfx_push saves. */
typedef enum ona_gfx_push_what {
    ONA_GFX_PUSH_TRANSFORM = 0, /* the transform */
    ONA_GFX_PUSH_ALL,           /* the transform and the target */
} ona_gfx_push_what;

/* Saves the state for ona_ctx_gfx_pop. Errors: ONA_EINVAL (a `what` outside the enum),
 * ONA_ELIMIT (64 pushes without a pop this turn), ONA_ENOMEM. */
ONA_API int ona_ctx_gfx_push(ona_ctx *ctx, ona_gfx_push_what what);
/* Restores the last push. Errors: ONA_EEMPTY (nothing pushed this turn). */
ONA_API int ona_ctx_gfx_pop(ona_ctx *ctx);
/* Composes a translation, a rotation (radians, clockwise on screen) or a scale onto the
 * transform. Errors: ONA_EINVAL (a value that is not finite, or a scale of 0; logged naming the
 * function, as Lua raises). */
ONA_API int ona_ctx_gfx_translate(ona_ctx *ctx, float x, float y);
ONA_API int ona_ctx_gfx_rotate(ona_ctx *ctx, float radians);
ONA_API int ona_ctx_gfx_scale(ona_ctx *ctx, float sx, float sy);
/* The identity transform (the target stays). */
ONA_API int ona_ctx_gfx_origin(ona_ctx *ctx);
/* (x, y) through the transform, or back through it (inverse), into *ox, *oy. Errors:
 * ONA_EINVAL (a NULL pointer). */
ONA_API int ona_ctx_gfx_transform_point(ona_ctx *ctx, bool inverse, float x, float y, float *ox,
                                        float *oy);
/* The canvas draws go into unless their desc names a target; {0} is the screen. Errors:
 * ONA_EINVAL (not a canvas: ona_runtime_canvas). */
ONA_API int ona_ctx_gfx_set_target(ona_ctx *ctx, ona_texture canvas);
/* The target set now ({0}: the screen; also for a NULL ctx). */
ONA_API ona_texture ona_ctx_gfx_target(ona_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* ONA_GFX_H */
