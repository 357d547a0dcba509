#version 460 core
// sprite.frag: the texel times the instance's tint; blending is straight alpha
// (GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA), set by the renderer.

layout(binding = 0) uniform sampler2D u_texture;

in vec2 v_uv;
in vec4 v_tint;

layout(location = 0) out vec4 o_color;

void main() {
    o_color = texture(u_texture, v_uv) * v_tint;
}
