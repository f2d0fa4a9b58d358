#!/usr/bin/env bash
# action.yml, step 1: installs restartkit (the wheel: the `restartkit` command, no Rust needed)
# into its own venv under RUNNER_TEMP and puts that venv's bin/ on the job's PATH.
#   INPUT_VERSION   restartkit version from PyPI        INPUT_PACKAGE  a pip requirement instead
set -euo pipefail
: "${RUNNER_TEMP:?RUNNER_TEMP is not set (this runs as a GitHub Actions step)}"
: "${GITHUB_PATH:?GITHUB_PATH is not set (this runs as a GitHub Actions step)}"
requirement="${INPUT_PACKAGE:-}"
if [[ -z "$requirement" ]]; then
  [[ -n "${INPUT_VERSION:-}" ]] || { echo "::error::restartkit action: give 'version' or 'package'"; exit 2; }
  requirement="restartkit==${INPUT_VERSION}"
fi
venv="$RUNNER_TEMP/restartkit-venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement"
echo "$venv/bin" >>"$GITHUB_PATH"
"$venv/bin/restartkit" --version
