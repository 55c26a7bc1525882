#!/usr/bin/env bash
# The jar of each patch release against the oracle at that release. (The table in
# docs/evidence/patch-releases.md was made at 6efa979 with --flink X.Y, the oracle of the minor:
# there, every cell that is not "ok" is a patch-level change.)
# usage: docs/evidence/patch_scan.sh OUTDIR [RELEASE ...]   (default: every patch that is not its minor's newest)
set -u
out=${1:?OUTDIR}; shift
releases=${*:-$(python -c 'from oracle.versions import RELEASES; print(" ".join(r.release for r in RELEASES if not r.is_newest_patch))')}
for v in $releases; do
  flinkspec jars fetch "$v" >&2
  flinkspec check --impl "flink:$v" --flink "$v" --examples 1000 --seed 0 --strict-messages --report "$out/$v" > "$out/$v.out" 2>&1
  echo "$v: exit $? $(tail -2 "$out/$v.out" | head -1)"
done
