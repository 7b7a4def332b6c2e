#!/usr/bin/env bash
# The audit log's cost on writes (PRODUCT part 23: at most ~15%): the create and receipt paths of
# bench/audit.ts, each store, from this checkout ("after": today, an audit entry per change) and
# from a copy of the same commit whose audit writer writes nothing ("before": src/audit/record.ts's
# recordAudit returns at once and auditRows gives no rows; nothing else differs), in alternated
# rounds (after first, then before first, ...). Prints each run, then per store and path the
# median CPU and wall time per operation of each and the median of the paired ratios after/before,
# with the load average at the start and the end.
#   usage: bench/audit-write.sh [ROUNDS=4] [OPS=1000] [STORES="sqlite postgres"] [PATHS="create receipt"]
set -euo pipefail
rounds=${1:-4}
ops=${2:-1000}
stores=${3:-sqlite postgres}
paths=${4:-create receipt}
here=$(cd "$(dirname "$0")/.." && pwd)
before=$(mktemp -d /tmp/audit-off.XXXXXX)
out=$(mktemp /tmp/audit-write.XXXXXX)
trap 'rm -rf "$before" "$out"' EXIT
git -C "$here" archive HEAD | tar -x -C "$before"
ln -s "$here/node_modules" "$before/node_modules"
record="$before/src/audit/record.ts"
sed -i 's/  if (entries.length === 0) return;/  if (entries.length >= 0) return;/; s/= entries.map((e) => ({/= entries.slice(0, 0).map((e) => ({/' "$record"
grep -q 'entries.length >= 0) return' "$record" && grep -q 'entries.slice(0, 0).map' "$record" ||
  { echo "the no-audit copy could not be made: src/audit/record.ts changed" >&2; exit 1; }
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
run() { # arm dir store path
  (cd "$2" && npx tsx bench/audit.ts write --store "$3" --path "$4" --ops "$ops") | sed "s/^{/{\"arm\":\"$1\",\"load\":$(cut -d' ' -f1 /proc/loadavg),/" | tee -a "$out"
}
for store in $stores; do
  for path in $paths; do
    for ((r = 0; r < rounds; r++)); do
      if ((r % 2 == 0)); then run after "$here" "$store" "$path"; run before "$before" "$store" "$path"
      else run before "$before" "$store" "$path"; run after "$here" "$store" "$path"; fi
    done
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const groups = new Map();
for (const r of rows) { const k = `${r.store} ${r.path}`; if (!groups.has(k)) groups.set(k, { after: [], before: [] }); groups.get(k)[r.arm].push(r); }
console.log("| store, path | before CPU µs/op | after CPU µs/op | CPU after/before | before wall µs/op | after wall µs/op | wall after/before | load |");
console.log("|---|---|---|---|---|---|---|---|");
for (const [k, g] of groups) {
  const n = Math.min(g.after.length, g.before.length);
  const pairs = (f) => Array.from({ length: n }, (_, i) => g.after[i][f] / g.before[i][f]);
  const load = [...g.after, ...g.before].map((r) => r.load);
  console.log(`| ${k} | ${median(g.before.map((r) => r.cpuUsPerOp))} | ${median(g.after.map((r) => r.cpuUsPerOp))} | ${median(pairs("cpuUsPerOp")).toFixed(3)} | ${median(g.before.map((r) => r.wallUsPerOp))} | ${median(g.after.map((r) => r.wallUsPerOp))} | ${median(pairs("wallUsPerOp")).toFixed(3)} | ${Math.min(...load)}-${Math.max(...load)} |`);
}' "$out"
