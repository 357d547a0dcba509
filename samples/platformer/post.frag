#version 460 core
// post.frag: the platformer's post effect, a game shader (see the README's "Game shaders"): a
// soft vignette, faint scanlines and a slow shimmer of warm light over the world's canvas.

layout(binding = 0) uniform sampler2D u_texture;
uniform float u_game_time; // ona.time(), set by post.lua: the same in every run
uniform vec2 u_resolution;

in vec2 v_uv;
in vec4 v_tint;

layout(location = 0) out vec4 o_color;

void main() {
    vec4 c = texture(u_texture, v_uv) * v_tint;
    vec2 p = gl_FragCoord.xy / max(u_resolution, vec2(1.0));
    float vignette = smoothstep(0.95, 0.35, distance(p, vec2(0.5)));
    float scan = 0.94 + 0.06 * sin(gl_FragCoord.y * 3.14159);
    float shimmer = 0.03 * sin(u_game_time * 0.8 + p.x * 6.0);
    c.rgb = c.rgb * (0.55 + 0.45 * vignette) * scan + vec3(0.06, 0.03, 0.0) * (1.0 + shimmer * 10.0) * vignette;
    o_color = c;
}
