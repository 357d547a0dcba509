#version 460 core
// sprite.frag: the texel times the instance's tint; the blend mode (alpha by default) is set by
// the renderer per draw.
//
// This is also the interface of a game's fragment shader (ona.gfx.shader("glow.frag")), which
// is linked with the runtime's sprite.vert. It may use:
//   in vec2 v_uv;        texture coordinates, 0..1, (0, 0) the texture's top-left
//   in vec4 v_tint;      the draw's tint (RGBA 0..1)
//   layout(binding = 0) uniform sampler2D u_texture;  the texture or canvas drawn
//   layout(location = 1) uniform vec2 u_texture_size;  its size in texels (set by the runtime;
//                                  declared with that location, as in sprite.vert)
//   uniform float u_time;         seconds since the runtime started (set by the runtime)
// and any float/vec2/vec3/vec4 uniforms of its own (ona.gfx.uniform); it writes
//   layout(location = 0) out vec4 o_color;
// Start it with "#version 460 core" (drivers with only GLSL 4.50 get it as 450, like this file).

layout(binding = 0) uniform sampler2D u_texture;

in vec2 v_uv;
in vec4 v_tint;

layout(location = 0) out vec4 o_color;

void main() {
    o_color = texture(u_texture, v_uv) * v_tint;
}
