#!/bin/sh
# A class of ten for `outboxlab class` and `outboxlab index`, made by real
# runs; the forgeries are those runs' reports edited by hand. Run from the
# repository's root:
#
#   testdata/class-of-ten/build.sh /tmp/ten        # outboxlab on PATH, or LAB=/path/to/outboxlab
#   outboxlab class /tmp/ten/class --reference /tmp/ten/ref --regrade
#   outboxlab index --report-dir /tmp/ten/class
#
# README.md says what each student handed in and how class stands it.
set -eu
OUT=$1; LAB=${LAB:-outboxlab}
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
case $LAB in */*) LAB=$(cd "$(dirname "$LAB")" && pwd)/$(basename "$LAB") ;; esac
PYREF=$PWD/workers/reference/python/worker.py
OK16=$OUT/ok16
[ -f "$PYREF" ] || { echo "build.sh: run it from the repository's root" >&2; exit 2; }
[ ! -e "$OUT" ] || { echo "build.sh: $OUT exists already" >&2; exit 3; }
mkdir -p "$OUT"
go build -o "$OK16" ./grade/testdata/ok16   # a genuine passing worker, not a shipped one
mkdir -p "$OUT/ref" "$OUT/runs"
for s in ana ben cho dev eve fay gus hal ivy jo; do mkdir -p "$OUT/class/$s"; done
cd "$OUT"
newest() { ls -t "$1"/*/*.txt | head -1; }
run() { d=runs/$1; shift; "$LAB" "$@" --report-dir "$d" >/dev/null || true; newest "$d"; }
grade() { d=runs/$1; shift; "$LAB" grade session-16 --report-dir "$d" "$@" >/dev/null || true; newest "$d"; }
hand() { mkdir -p "class/$1/day16"; printf '%s\n' "$2" > "class/$1/day16/outboxlab-worker.json"; }
# References: the lab's own Day 16 pair, and the Python reference worker's grade.
cp "$(run ref-b session-16-poison-message-retried-forever)" ref/day16-before.txt
cp "$(run ref-a retry-with-dead-letter)" ref/day16-after.txt
cp "$(grade ref-g -- python3 "$PYREF")" ref/day16-grade.txt
# ana: her own worker (genuine), its grade, and the pair at the defaults.
hand ana '{"day": "session-16", "command": ["./worker"]}'; cp "$OK16" class/ana/day16/worker
(cd class/ana/day16 && "$LAB" grade session-16 --report-dir ../../../runs/ana -- ./worker >/dev/null || true)
cp "$(newest runs/ana)" class/ana/grade.txt
cp "$(run ana-b session-16-poison-message-retried-forever --student ana)" class/ana/before.txt
cp "$(run ana-a retry-with-dead-letter --student ana)" class/ana/after.txt
# ben: a worker with a bug (counts attempts on failure), its genuine failing grade.
hand ben '{"day": "session-16", "command": ["sh", "run.sh"]}'; cp "$OK16" class/ben/day16/worker
echo 'OK16_BUG=count-on-failure exec ./worker' > class/ben/day16/run.sh
(cd class/ben/day16 && "$LAB" grade session-16 --report-dir ../../../runs/ben -- sh run.sh >/dev/null || true)
cp "$(newest runs/ben)" class/ben/grade.txt
cp "$(run ben-a retry-with-dead-letter)" class/ben/after.txt
# cho: the shipped Python reference, renamed and recommented, and its (passing) grade.
hand cho '{"day": "session-16", "command": ["python3", "mine.py"]}'
sed -e 's/time_text/as_text/g; s/parse_time/from_text/g; s/# /# mine: /' "$PYREF" > class/cho/day16/mine.py
(cd class/cho/day16 && "$LAB" grade session-16 --report-dir ../../../runs/cho -- python3 mine.py >/dev/null || true)
cp "$(newest runs/cho)" class/cho/grade.txt
# dev: ben's bug, and ben's failing grade edited to pass in its header (checks, exit, verdict).
hand dev '{"day": "session-16", "command": ["sh", "run.sh"]}'; cp "$OK16" class/dev/day16/worker; cp class/ben/day16/run.sh class/dev/day16/
total=$(sed -n 's|^checks:   [0-9]*/\([0-9]*\) passed$|\1|p' class/ben/grade.txt)
sed -e "s|^checks:   [0-9]*/$total passed|checks:   $total/$total passed|; s|^exit:     1|exit:     0|" \
    -e "s|^verdict:  .*|verdict:  [PASS ✅] every check held|" class/ben/grade.txt > class/dev/grade.txt
# eve: ana's passing grade report copied under her name, with a worker of her own that fails.
hand eve '{"day": "session-16", "command": ["sh", "run.sh"]}'; cp "$OK16" class/eve/day16/worker
echo 'OK16_BUG=count-on-failure exec ./worker' > class/eve/day16/run.sh
cp class/ana/grade.txt class/eve/grade.txt
# fay: the untouched starter, and its failing grade.
"$LAB" exercise session-16 class/fay/day16 >/dev/null
(cd class/fay/day16 && "$LAB" grade session-16 --report-dir ../../../runs/fay -- go run . >/dev/null || true)
cp "$(newest runs/fay)" class/fay/grade.txt
# gus: the pair at the defaults, renamed, and a stray file.
cp "$(run gus-b session-16-poison-message-retried-forever)" "class/gus/my before run.txt"
cp "$(run gus-a retry-with-dead-letter)" class/gus/day16.log
echo "notes: ask about backoff" > class/gus/notes.md
# hal: the AFTER with a failing flag (no dead letter), then again at --max-attempts 5.
cp "$(run hal-a retry-with-dead-letter --dead-letter=false)" class/hal/after-1.txt
sleep 1
cp "$(run hal-a2 retry-with-dead-letter --dead-letter=false --max-attempts 5)" class/hal/after-2.txt
# ivy: a failing AFTER whose verdict she edited to PASS (header and body).
f=$(run ivy-a retry-with-dead-letter --dead-letter=false)
sed -e 's|^exit:     1|exit:     0|' -e 's|^VERDICT: \[FAIL ❌\]|VERDICT: [PASS ✅]|' "$f" > class/ivy/after.txt
# jo: the AFTER where nothing exercised it (no poison key, no dead letter).
cp "$(run jo-a retry-with-dead-letter --poison-key none --dead-letter=false)" class/jo/after.txt
rm -rf runs ok16
