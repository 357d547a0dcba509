#!/bin/sh
# record_cost.sh BUILD_DIR [ROUNDS]: what recording costs, and how fast a replay runs.
#
# Side by side in one run, alternating so that a loaded machine slows both alike: bunnymark
# (5000 bunnies) and invaders (autoplay) headless for 600 frames with --fixed-dt, recording
# off and on; then the invaders recording replayed headless (no frame cap headless) against the same
# game headless with --fixed-dt. Prints the median wall time of each, in milliseconds.
set -eu
build=${1:?usage: record_cost.sh BUILD_DIR [ROUNDS]}
rounds=${2:-5}
ona="$build/ona"
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=offscreen

ms() { # ms CMD...: wall milliseconds of one run
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    echo $((($(date +%s%N) - start) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

common="--headless --frames 600 --fixed-dt 0.016667 --no-audio --no-watch --workers 2"
for i in $(seq "$rounds"); do
    ms "$ona" "$root/samples/bunnymark" $common >>"$tmp/bunny_off"
    ms "$ona" "$root/samples/bunnymark" $common --record "$tmp/b.onarec" >>"$tmp/bunny_on"
    ms "$ona" "$root/samples/invaders" $common autoplay=1 >>"$tmp/inv_off"
    ms "$ona" "$root/samples/invaders" $common --record "$tmp/i.onarec" autoplay=1 >>"$tmp/inv_on"
    ms "$ona" --replay "$tmp/i.onarec" --headless --no-audio --no-watch \
        --workers 2 >>"$tmp/inv_replay"
done
printf '| run | median ms (%s rounds) |\n|---|---|\n' "$rounds"
for f in bunny_off bunny_on inv_off inv_on inv_replay; do
    printf '| %s | %s |\n' "$f" "$(median <"$tmp/$f")"
done
printf '\nbunnymark recording: %s bytes; invaders recording: %s bytes (600 frames)\n' \
    "$(wc -c <"$tmp/b.onarec")" "$(wc -c <"$tmp/i.onarec")"
