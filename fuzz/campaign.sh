#!/usr/bin/env bash
# Runs each fuzz target for FUZZ_SECONDS (default 600), one after the other, one job each (the
# machine is small and shared), and keeps libFuzzer's log per target. The working corpus and the
# artifacts live outside the clone; the committed seeds in fuzz/corpus/<target> are read-only input.
#   fuzz/campaign.sh [target...]
set -euo pipefail
cd "$(dirname "$0")"
SECS=${FUZZ_SECONDS:-600}
WORK=${FUZZ_WORK:-$HOME/.cache/restartkit/fuzz}
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$HOME/.cache/restartkit/target-fuzz-nightly}
: "${RESTARTKIT_PLUGIN:?set RESTARTKIT_PLUGIN to the built restartkit_plugin.wasm (make plugin-wasm)}"
export RESTARTKIT_PLUGIN
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(source_reader validate_object eval_ops plugin_abi)
# No sanitizer: the core forbids `unsafe`, so ASan would only slow the search; panics, aborts,
# OOMs and timeouts are what is looked for. Coverage instrumentation stays on.
cargo +nightly fuzz build -O -s none
BIN=$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release
for t in "${targets[@]}"; do
  mkdir -p "$WORK/corpus/$t" "$WORK/artifacts/$t"
  echo "== $t for ${SECS}s ($(date -u +%H:%M:%S))"
  # fork=1 + ignore_*: a finding is saved and the run goes on, so every target gets its full time.
  nice -n 10 "$BIN/$t" "$WORK/corpus/$t" "corpus/$t" -dict=k8s.dict -max_total_time="$SECS" \
    -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$WORK/artifacts/$t/" \
    > "$WORK/$t.log" 2>&1 || true
  tail -n 3 "$WORK/$t.log"
  echo "artifacts: $(ls "$WORK/artifacts/$t" | wc -l)"
done
