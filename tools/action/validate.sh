#!/usr/bin/env bash
# action.yml, step 2: validates the files the patterns name, prints the findings in the log,
# writes SARIF, and sets the outputs `sarif-file` and `status`.
#   INPUT_FILES  INPUT_KUBERNETES_VERSION  INPUT_FEATURE_GATES  INPUT_SARIF_FILE  INPUT_FAIL_ON_ERROR
set -uo pipefail
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set (this runs as a GitHub Actions step)}"
sarif="${INPUT_SARIF_FILE:-restartkit.sarif}"
case "${INPUT_FAIL_ON_ERROR:-true}" in
  true | false) ;;
  *) echo "::error::restartkit action: fail-on-error must be \"true\" or \"false\", not \"${INPUT_FAIL_ON_ERROR}\""; exit 2 ;;
esac

# Patterns are split on white space and expanded here, not by the runner's shell word rules.
shopt -s globstar nullglob
files=()
read -r -d '' -a patterns <<<"${INPUT_FILES:-}" || true
for pattern in "${patterns[@]}"; do
  # Unquoted on purpose: this is where the pattern is expanded (globstar, nullglob).
  # shellcheck disable=SC2206
  matched=($pattern)
  if ((${#matched[@]} == 0)); then
    echo "::error::restartkit action: no file matches \"$pattern\""
    exit 2
  fi
  files+=("${matched[@]}")
done
if ((${#files[@]} == 0)); then
  echo "::error::restartkit action: 'files' names no file"
  exit 2
fi

opts=()
[[ -n "${INPUT_KUBERNETES_VERSION:-}" ]] && opts+=(--kubernetes-version "$INPUT_KUBERNETES_VERSION")
[[ -n "${INPUT_FEATURE_GATES:-}" ]] && opts+=(--feature-gates "$INPUT_FEATURE_GATES")

mkdir -p "$(dirname "$sarif")"

# The findings in the log as a person reads them, then the same run as SARIF for code scanning.
restartkit validate "${opts[@]}" -- "${files[@]}"
restartkit validate --output sarif "${opts[@]}" -- "${files[@]}" >"$sarif"
status=$?
{
  echo "sarif-file=$sarif"
  echo "status=$status"
} >>"$GITHUB_OUTPUT"
if ((status == 2)) || { ((status == 1)) && [[ "${INPUT_FAIL_ON_ERROR:-true}" == true ]]; }; then
  exit "$status"
fi
exit 0
