#version 460 core
// sprite.vert: one instance per sprite (ona__sprite in runtime/gfx_gl.h, 48 bytes, divisor 1),
// drawn as a 4-vertex triangle strip over the unit quad. World units are pixels at zoom 1, y down.
// An instance whose src.w is exactly -65536 (ONA_SPRITE_QUAD, ona/gfx.h) is a "free quad": its
// four strip corners are given in world space, in position, origin, scale and (rotation, src.x),
// and it is coloured by the one texel at (src.y, src.h) (shapes, runtime/gfx/shapes.c).
// One whose src.w is exactly -131072 (ONA_SPRITE_AFFINE) is a textured parallelogram: texel
// (u, v) of the source rect (rotation, src.x, src.y, src.w) lands at position + u * origin +
// v * scale (a sprite a draw transform skews, runtime/services/draw_transform.c).

layout(location = 0) in vec2 a_corner;   // unit quad corner, (0,0) top-left .. (1,1)
layout(location = 1) in vec2 a_position; // world position of the origin point
layout(location = 2) in vec2 a_origin;   // pivot in source pixels from the source rect's top-left
layout(location = 3) in vec2 a_scale;
layout(location = 4) in float a_rotation; // radians, clockwise on screen
layout(location = 5) in vec4 a_src;       // x, y, w, h in texels; w <= 0: the whole texture
layout(location = 6) in vec4 a_tint;      // normalized RGBA8

// World to clip space: clip = world * u_view.xy + u_view.zw (camera, zoom and y flip folded in).
layout(location = 0) uniform vec4 u_view;
// The size in texels of the run's texture.
layout(location = 1) uniform vec2 u_texture_size;

out vec2 v_uv;
out vec4 v_tint;

void main() {
    if (a_src.z == -65536.0) {
        int i = int(a_corner.x) + 2 * int(a_corner.y);
        vec2 p = i == 0 ? a_position : (i == 1 ? a_origin : (i == 2 ? a_scale : vec2(a_rotation, a_src.x)));
        gl_Position = vec4(p * u_view.xy + u_view.zw, 0.0, 1.0);
        v_uv = a_src.yw / u_texture_size;
        v_tint = a_tint;
        return;
    }
    if (a_src.z == -131072.0) {
        vec4 rect = vec4(a_rotation, a_src.x, a_src.y, a_src.w);
        rect = rect.z > 0.0 ? rect : vec4(0.0, 0.0, u_texture_size);
        vec2 texels = a_corner * rect.zw;
        vec2 p = a_position + a_origin * texels.x + a_scale * texels.y;
        gl_Position = vec4(p * u_view.xy + u_view.zw, 0.0, 1.0);
        v_uv = (rect.xy + texels) / u_texture_size;
        v_tint = a_tint;
        return;
    }
    vec4 src = a_src.z > 0.0 ? a_src : vec4(0.0, 0.0, u_texture_size);
    vec2 local = (a_corner * src.zw - a_origin) * a_scale;
    float c = cos(a_rotation);
    float s = sin(a_rotation);
    // With y pointing down, this standard rotation turns clockwise on screen.
    vec2 world = a_position + vec2(c * local.x - s * local.y, s * local.x + c * local.y);
    gl_Position = vec4(world * u_view.xy + u_view.zw, 0.0, 1.0);
    v_uv = (src.xy + a_corner * src.zw) / u_texture_size;
    v_tint = a_tint;
}
