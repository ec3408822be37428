#!/bin/sh
# How tests/data/chrome/startup.json was recorded (Debian's chromium 156,
# headless): a --trace-startup JSON trace of busy.html, with V8's sampling
# profiler on, trimmed to the metadata, the renderer's CPU profile and the
# renderer main thread's duration events (their args dropped), so that the
# fixture stays near 300 KB.  RENDERER_PID is the pid whose ProfileChunk
# nodes name spin, outer, middle and leaf.  Not run by the tests.
set -e
out=${1:-/tmp/t.json}
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$(mktemp -d)" \
	--trace-startup='disabled-by-default-v8.cpu_profiler,v8.execute,devtools.timeline,toplevel,blink.user_timing,__metadata' \
	--trace-startup-format=json --trace-startup-file="$out" --trace-startup-duration=3 \
	"file://$(cd "$(dirname "$0")" && pwd)/busy.html" &
sleep 15
kill $! 2> /dev/null || true
python3 - "$out" "${RENDERER_PID:?set RENDERER_PID}" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
pid, keep = int(sys.argv[2]), []
for e in ev:
    ph = e.get("ph")
    if ph == "M" or (e.get("name") in ("Profile", "ProfileChunk") and e["pid"] == pid):
        keep.append(e)
    elif ph in ("X", "B", "E") and e["pid"] == pid and e["tid"] == pid:
        keep.append({k: v for k, v in e.items() if k not in ("args", "tts", "tdur")})
    elif ph in ("B", "E"):
        keep.append(e)
print(json.dumps({"traceEvents": keep}, separators=(",", ":")))
PY
