/*
 * gfx_gl.h: the OpenGL 4.6 (4.5 accepted) sprite renderer's GL side. Internal.
 *
 * Main thread only, with the GL context current: this is the only module that calls gl*.
 * It knows nothing of systems, queues or Lua: it gets a frame's instances already merged and
 * sorted (render_queue.c) as runs of instances sharing a texture, and draws each run with one
 * instanced draw from a persistent-mapped instance buffer.
 */
#ifndef ONA_GFX_GL_H
#define ONA_GFX_GL_H

#include "ona/ona.h"

/* One sprite instance, exactly as the vertex shader reads it (48 bytes; per-instance
 * attributes with divisor 1). This is also the public `ona_sprite` layout (ona/gfx.h). */
typedef struct ona__sprite {
    float x, y;               /* world position of the sprite's origin point */
    float origin_x, origin_y; /* the pivot, in source pixels from the source rect's top-left */
    float scale_x, scale_y;   /* 1 = the source rect's size in world units */
    float rotation;           /* radians; positive turns clockwise on screen (y points down) */
    float src_x, src_y, src_w, src_h; /* source rect in texels; src_w <= 0: the whole texture */
    uint32_t tint; /* RGBA8, R in the lowest byte (0xAABBGGRR); multiplied with the texel */
} ona__sprite;

_Static_assert(sizeof(ona__sprite) == 48, "the instance layout is 48 bytes");

/* The 2D camera: the world point shown at the viewport's centre, and the zoom (2 = things look
 * twice as big). World units are pixels at zoom 1, y down. */
typedef struct ona__camera {
    float x, y;
    float zoom;
    /* The part of the framebuffer drawn into, in pixels from its top-left corner; a width or
     * height <= 0 means the whole framebuffer. (x, y) above is shown at this rectangle's centre. */
    float viewport_x, viewport_y, viewport_w, viewport_h;
} ona__camera;

typedef struct ona__gfx_run {
    uint32_t texture;  /* GL texture name */
    int width, height; /* its size in texels */
    uint32_t first;    /* first instance (index into this frame's instances) */
    uint32_t count;
    /* Draw state; zeroes are the defaults, so a run made with only the fields above
     * draws as before. */
    uint32_t program; /* a game program (ona__gfx_program_build); 0: the sprite program */
    uint32_t blend;   /* ona_blend; 0 (default) is alpha */
    bool has_view;    /* view and viewport below; false: those of ona__gfx_begin */
    float view[4];    /* clip = world * view.xy + view.zw */
    int viewport[4];  /* x, y (GL's: from the bottom-left), w, h in framebuffer pixels */
} ona__gfx_run;

/* The view of `camera` (NULL: framebuffer pixels from the top-left corner, the default camera)
 * on a framebuffer of width x height: view as in ona__gfx_run, viewport in GL's coordinates
 * (the camera's viewport clamped to the framebuffer; ignored when `canvas`). A canvas is drawn
 * with y flipped so that its texel row 0 is its top, as with textures loaded from files. A zoom
 * that is not a positive number counts as 1. Pure arithmetic: any thread. */
void ona__camera_view(const ona__camera *camera, int width, int height, bool canvas, float view[4],
                      int viewport[4]);

typedef struct ona__gfx ona__gfx;

typedef struct ona__gfx_desc {
    const char *shader_dir;     /* folder holding sprite.vert and sprite.frag */
    uint32_t instance_capacity; /* per frame, initial; 0 = 65536 (grows when a frame needs more) */
    bool debug_output;          /* glDebugMessageCallback into the log (debug builds) */
} ona__gfx_desc;

/* Creates the renderer in the current context: compiles the shaders (a compile or link error is
 * logged as "path:line: message" and returned as ONA_EGFX), makes the vertex array and the
 * persistent-mapped instance ring (3 frames, fenced). Errors: ONA_EGFX, ONA_ENOMEM, ONA_EINVAL. */
int ona__gfx_create(const ona__gfx_desc *desc, ona__gfx **out);
void ona__gfx_destroy(ona__gfx *g);

/* Recompiles the shaders from their files. On failure logs file:line, keeps the old program and
 * returns ONA_EGFX. */
int ona__gfx_reload_shaders(ona__gfx *g);

/* Uploads width*height RGBA8 pixels (rows top to bottom) as a texture with nearest filtering
 * and clamp-to-edge. Errors: ONA_EINVAL, ONA_EGFX. */
int ona__gfx_texture_upload(ona__gfx *g, int width, int height, const uint8_t *rgba,
                            uint32_t *texture);
void ona__gfx_texture_free(ona__gfx *g, uint32_t texture);

/* Starts a frame: viewport (framebuffer pixels), clear colour (RGBA 0..1), camera. */
void ona__gfx_begin(ona__gfx *g, int width, int height, const float clear[4],
                    const ona__camera *camera);

/* Space for `count` instances of this frame in the mapped ring (waits on the fence of the frame
 * that last used that region; grows the ring when `count` exceeds its capacity). The caller
 * writes the instances once, then calls ona__gfx_draw. Returns NULL only on ONA_ENOMEM/GL
 * failure (logged). Call at most once per frame. */
ona__sprite *ona__gfx_instances(ona__gfx *g, uint32_t count);

/* Draws the runs (one instanced draw each) from the instances written this frame, in order. */
void ona__gfx_draw(ona__gfx *g, const ona__gfx_run *runs, uint32_t run_count);

/* --- Draw state ------------------------------------------------------------------------------- */

/* Makes a width x height RGBA8 texture (cleared to transparent) and a framebuffer drawing into
 * it. Errors: ONA_EINVAL, ONA_EGFX. */
int ona__gfx_canvas_create(ona__gfx *g, int width, int height, uint32_t *texture,
                           uint32_t *framebuffer);
void ona__gfx_canvas_free(ona__gfx *g, uint32_t texture, uint32_t framebuffer);
/* Clears a canvas's framebuffer to rgba (0..1). */
void ona__gfx_canvas_clear(ona__gfx *g, uint32_t framebuffer, const float rgba[4]);
/* Directs the following ona__gfx_draw calls into `framebuffer` (width x height), or with 0 to
 * the screen (ona__gfx_begin's size). Runs without has_view then draw with the default camera
 * (pixel space) on a canvas and with ona__gfx_begin's camera on the screen. */
void ona__gfx_target(ona__gfx *g, uint32_t framebuffer, int width, int height);

/* Builds a game program: the sprite vertex stage with the fragment shader at frag_path (errors
 * logged as "frag_path:line: message"; nothing left behind). Errors: ONA_EGFX, ONA_ENOMEM. */
int ona__gfx_program_build(ona__gfx *g, const char *frag_path, uint32_t *program);
void ona__gfx_program_free(ona__gfx *g, uint32_t program);
/* Sets a float/vecN uniform of a game program by name, checked against the program's active
 * uniforms first, so GL never sees a mismatch: 0; ONA_ENOENT when the program has no active
 * uniform of that name (`why`: its active uniforms, for the report); ONA_EINVAL when its type
 * cannot take `components` floats (`why`: "is an int, not a float"). Nothing is set on an
 * error. */
int ona__gfx_program_uniform(ona__gfx *g, uint32_t program, const char *name, uint32_t components,
                             const float value[4], char *why, size_t whysize);
/* The seconds every program's `u_time` uniform holds from now on. */
void ona__gfx_set_time(ona__gfx *g, float seconds);

/* Ends the frame: fences the ring region it used. The caller swaps buffers. */
void ona__gfx_end(ona__gfx *g);

/* Reads the current framebuffer's pixels (call after drawing, before the swap) as RGBA8 rows
 * top to bottom. Errors: ONA_EINVAL. */
int ona__gfx_read_pixels(ona__gfx *g, int x, int y, int width, int height, uint8_t *rgba);

/* Writes the current framebuffer (width x height) to a PNG file. Errors: ONA_EIO (with the
 * path logged), ONA_ENOMEM. */
int ona__gfx_screenshot(ona__gfx *g, int width, int height, const char *path);

/* The shader files the program is built from. */
const char *ona__gfx_vertex_path(ona__gfx *g);
const char *ona__gfx_fragment_path(ona__gfx *g);

/* The GL_VERSION and GL_RENDERER strings of the context. */
const char *ona__gfx_gl_version(ona__gfx *g);
const char *ona__gfx_gl_renderer(ona__gfx *g);

/* --- The debug font (font.c) ----------------------------------------------------------------- */

/* The built-in 8x8 monospace bitmap font (printable ASCII 32..126), as a 128x48 RGBA atlas of
 * 16 x 6 glyphs, white on transparent. */
#define ONA__FONT_GLYPH 8
#define ONA__FONT_ATLAS_W 128
#define ONA__FONT_ATLAS_H 48
/* Fills rgba (ONA__FONT_ATLAS_W * ONA__FONT_ATLAS_H * 4 bytes). */
void ona__font_atlas(uint8_t *rgba);
/* The glyph's source rect in the atlas for byte `c` ('?' for bytes outside 32..126). */
void ona__font_glyph(unsigned char c, float *src_x, float *src_y);

#endif
