#!/usr/bin/env bash
# The three sweep examples of docs/sweeps.md: brace atlas, Painlevé rod, RHex flip map.
# Usage: examples/sweeps.sh OUTDIR [extra options for contactmodes sweep, e.g. --workers 2]
# Writes OUTDIR/{brace_atlas,painleve,flip_map}.{csv,png} (the sweeps write their tables with --output); a few minutes on 2 cores (the flip map most).
set -euo pipefail
out=${1:?usage: examples/sweeps.sh OUTDIR [--workers N]}
shift
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
python "$here/sweep_brace_atlas.py" --out "$out" "$@" > "$out/brace_atlas.txt"
contactmodes sweep analyze "$here/painleve_rod.toml" --vary contacts.0.mu=0.25:3:12 \
    --vary state.qdot.x=-2:2:9 --mode L --unambiguous --inconsistency-box=-20:20 \
    --plot "$out/painleve.png" --output "$out/painleve.csv" "$@"
contactmodes sweep flip --vary mu_toe=0.05:1.5:9 --vary controller=blind,max-thrust \
    --plot "$out/flip_map.png" --output "$out/flip_map.csv" "$@"
echo "wrote $out/brace_atlas.png $out/painleve.png $out/flip_map.png (tables beside them)"
