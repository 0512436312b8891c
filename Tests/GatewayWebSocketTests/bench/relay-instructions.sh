#!/usr/bin/env bash
# Instructions per relayed round trip, apart from the load on the machine: service-bench under
# callgrind at two lengths (SHORT and LONG seconds), raw lanes and WebSocket lanes, the
# difference of the instructions divided by the difference of the round trips (set-up and
# shutdown cancel out). Counted inside the event loops' run (--toggle-collect), per thread:
# the gateway's loops (the threads that relay: relayOnLoop) apart from the load's loops (the
# lanes and readers: the Lean* handlers); plus the inclusive instructions of the relay's steps
# per round trip. valgrind 3.19 cannot read the release binary's DWARF 5: a copy without debug
# information is measured. Under callgrind the process runs tens of times slower, one thread
# at a time: a run's count of loop wake-ups, and so its instructions per round trip, still
# varies by a few per cent; compare functions for small steps.
#
#   Tests/GatewayWebSocketTests/bench/relay-instructions.sh <release bin dir> <results dir>
#   PAIRS=16 SHORT=4 LONG=16 LANES="raw websocket"
set -euo pipefail
BIN=$1; OUT=$2
PAIRS=${PAIRS:-16}; SHORT=${SHORT:-4}; LONG=${LONG:-16}; LANES=${LANES:-raw websocket}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/relay-instructions.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
objcopy --strip-debug "$BIN/service-bench" "$WORK/service-bench"
for lanes in $LANES; do
  for seconds in $SHORT $LONG; do
    dir="$WORK/$lanes-$seconds"; mkdir -p "$dir"
    echo "== callgrind: $lanes lanes, $PAIRS pairs, ${seconds}s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    (cd "$dir" && valgrind --tool=callgrind --separate-threads=yes --toggle-collect='$s16GatewayEventLoop0bC0C3runyyF' \
      "$WORK/service-bench" --pairs "$PAIRS" --lanes "$lanes" --duration "${seconds}s" --warmup 1s > result.json 2> valgrind.log)
  done
done
python3 - "$WORK" "$OUT/relay-instructions.md" "$SHORT" "$LONG" "$LANES" "$PAIRS" <<'PY'
import glob, json, re, subprocess, sys
work, out, short, long_, lanes, pairs = sys.argv[1:7]
# Steps of the relay, by symbol (each a regular expression on the mangled name).
steps = [
    ("gateway: lane's call on the loop (SDKCommands.relayOnLoop, the command's way down)", r"11SDKCommandsV11relayOnLoop.*ResultVYbctF04"),
    ("gateway: registry, session check and registration (ReaderRegistry.commandRequested)", r"ReaderB0V16commandRequested_10connection"),
    ("gateway: registry, the reader's answer matched (ReaderRegistry.commandAnswered)", r"ReaderB0V15commandAnswered_4link"),
    ("gateway: completion (answer to the lane, the event)", r"CommandOutcomeOIeghg_ACytIeghnr_TRTA$"),
    ("gateway: registry, the event's reader, account and session read (commandEventSubject; before: session(token:))", r"ReaderB0V19commandEventSubject5token|ReaderB0V7session5token"),
    ("gateway: the event built and queued (SDKEventRecorder.commandEnded)", r"SDKEventRecorderV12commandEnded_6reader"),
    ("load: a WebSocket lane's read (LeanWebSocketLane.bytesReceived)", r"17LeanWebSocketLaneC13bytesReceived_2on"),
    ("load: a raw lane's read (LeanLane.bytesReceived)", r"8LeanLaneC13bytesReceived_2on"),
    ("load: a reader's read (LeanReader.bytesReceived)", r"10LeanReaderC13bytesReceived_2on"),
]
def run(lanes, seconds):
    d = f"{work}/{lanes}-{seconds}"
    result = json.load(open(f"{d}/result.json"))
    kinds = {"gateway": 0, "load": 0}
    functions = [0] * len(steps)
    for path in glob.glob(f"{d}/callgrind.out.*"):
        text = open(path, errors="replace").read()
        total = re.search(r"^(?:totals|summary):\s+(\d+)", text, re.M)
        if not total or int(total.group(1)) == 0: continue
        if "relayOnLoop" in text: kinds["gateway"] += int(total.group(1))
        elif "LeanReader" in text: kinds["load"] += int(total.group(1))
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path], capture_output=True, text=True).stdout
        # A step's symbols in one thread are wrappers of each other (thunks, specializations):
        # the largest inclusive count is the step's.
        largest = [0] * len(steps)
        for line in annotated.splitlines():
            m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+\S*?:(\S+)", line)
            if not m: continue
            for i, (_, pattern) in enumerate(steps):
                if re.search(pattern, m.group(2)): largest[i] = max(largest[i], int(m.group(1).replace(",", "")))
        functions = [a + b for a, b in zip(functions, largest)]
    return result["round_trips_all"], kinds, functions
lines = [f"Instructions per round trip ({pairs} pairs; callgrind at {short} s and {long_} s, the difference over the difference in round trips)", "",
         "| | " + " | ".join(f"{l} lanes" for l in lanes.split()) + " |", "|---|" + "---|" * len(lanes.split())]
table = {}
for l in lanes.split():
    (n0, k0, f0), (n1, k1, f1) = run(l, short), run(l, long_)
    rts = n1 - n0
    table[l] = {"gateway loops": (k1["gateway"] - k0["gateway"]) / rts, "load loops (lanes and readers)": (k1["load"] - k0["load"]) / rts}
    for i, (name, _) in enumerate(steps):
        table[l][name] = (f1[i] - f0[i]) / rts
for row in table[lanes.split()[0]]:
    values = [table[l][row] for l in lanes.split()]
    if all(v == 0 for v in values): continue
    lines.append(f"| {row} | " + " | ".join(f"{v:,.0f}" for v in values) + " |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
