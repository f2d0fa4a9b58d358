#!/usr/bin/env bash
# Clean-room installs of the release artifacts in dist/ (make test-dist): each in a fresh
# temporary directory, as a user would install it, with no cargo or rustc on PATH (the sdist is
# the exception: building from source is its point). Checks that every artifact reports the
# workspace version.
#   tools/dist/test-dist.sh DIST_DIR VERSION
# Needs python3 (with venv), node/npm, chromium; installs esbuild, vite and playwright-core from
# npm into the temporary projects (npm's own cache in ~/.npm keeps re-runs quick).
set -euo pipefail
DIST=$(cd "$1" && pwd)
VERSION=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# The interpreter itself (not a pyenv shim, which needs pyenv on PATH).
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
WORK=$(mktemp -d "${TMPDIR:-/tmp}/restartkit-dist.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The clean PATH: system directories only, no ~/.cargo/bin.
CLEAN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false NPM_CONFIG_UPDATE_NOTIFIER=false
step() { printf '\n== %s (%ss)\n' "$*" "$SECONDS"; }
fail() { echo "test-dist: $*" >&2; exit 1; }
clean() { env PATH="$CLEAN_PATH" "$@"; }
max_glibc() { # the newest GLIBC_x.y symbol version a binary needs
  objdump -T "$1" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1
}
glibc_at_most_2_17() {
  local v; v=$(max_glibc "$1")
  [ "$(printf '%s\n2.17\n' "$v" | sort -V | tail -n1)" = 2.17 ] || fail "$1 needs glibc $v (> 2.17)"
  echo "$(basename "$1"): needs glibc $v at most"
}
one() { # the single file matching a glob in dist/
  local m=("$DIST"/$1)
  [ ${#m[@]} = 1 ] && [ -f "${m[0]}" ] || fail "expected one dist/$1, found: ${m[*]}"
  echo "${m[0]}"
}

if env PATH="$CLEAN_PATH" sh -c 'command -v cargo || command -v rustc' >/dev/null; then
  fail "cargo or rustc is on the clean PATH ($CLEAN_PATH)"
fi

step "SHA256SUMS"
(cd "$DIST" && sha256sum -c --quiet SHA256SUMS)
# Every release file is listed.
for f in "$DIST"/restartkit*; do grep -q " $(basename "$f")\$" "$DIST/SHA256SUMS" || fail "$(basename "$f") is not in SHA256SUMS"; done

WHEEL=$(one "restartkit-$VERSION-cp310-abi3-manylinux*_x86_64*.whl")
SDIST=$(one "restartkit-$VERSION.tar.gz")
WASM_TGZ=$(one "restartkit-wasm-$VERSION.tgz")
NODE_TGZ=$(one "restartkit-node-$VERSION.tgz")
NODE_PLATFORM_TGZ=$(one "restartkit-node-linux-x64-gnu-$VERSION.tgz")
CLI_TGZ=$(one "restartkit-$VERSION-x86_64-unknown-linux-musl.tar.gz")
PLUGIN_TGZ=$(one "restartkit-plugin-$VERSION-wasm32.tar.gz")
case "$(basename "$WHEEL")" in *manylinux2014_x86_64*|*manylinux_2_17_x86_64*) ;; *) fail "the wheel is not manylinux2014: $WHEEL";; esac

step "CLI tarball"
mkdir "$WORK/cli" && tar -xzf "$CLI_TGZ" -C "$WORK/cli"
CLI="$WORK/cli/restartkit-$VERSION-x86_64-unknown-linux-musl/restartkit"
[ "$(clean "$CLI" --version)" = "restartkit $VERSION" ] || fail "CLI --version: $(clean "$CLI" --version)"
# Static: no program interpreter (no dynamic loader, so no glibc needed).
! readelf -l "$CLI" | grep -q INTERP || fail "the CLI is dynamically linked"
(cd "$ROOT" && clean "$CLI" validate examples/*.yaml)
(cd "$ROOT" && clean "$CLI" evaluate examples/training-jobset.yaml --container trainer --exit-code 42)
(cd "$ROOT" && clean "$CLI" backoff -k 1.33 --restarts 4 >/dev/null)
# kubectl's plugin: the same binary under the plugin's name, answering `kubectl restartkit …`.
[ "$(readlink "$(dirname "$CLI")/kubectl-restartkit")" = restartkit ] || fail "the CLI tarball has no kubectl-restartkit link"
clean "$(dirname "$CLI")/kubectl-restartkit" explain --help | grep -q 'job/NAME' || fail "kubectl-restartkit explain --help"

step "plugin tarball"
mkdir "$WORK/plugin" && tar -xzf "$PLUGIN_TGZ" -C "$WORK/plugin"
P="$WORK/plugin/restartkit-plugin-$VERSION-wasm32"
[ -f "$P/ABI.md" ] || fail "plugin tarball without ABI.md"
clean node -e '
  const m = new WebAssembly.Module(require("fs").readFileSync(process.argv[1]));
  const names = WebAssembly.Module.exports(m).map((e) => e.name);
  for (const n of ["memory", "restartkit_alloc", "restartkit_free"]) if (!names.includes(n)) throw new Error("no export " + n);
  console.log("plugin module ok:", names.length, "exports");' "$P/restartkit_plugin.wasm"

step "Python wheel in a new venv"
clean "$PYTHON" -m venv "$WORK/venv"
clean "$WORK/venv/bin/pip" install -q --disable-pip-version-check "$WHEEL"
glibc_at_most_2_17 "$(ls "$WORK"/venv/lib/python3*/site-packages/restartkit/_native*.so)"
(cd "$WORK" && clean "$WORK/venv/bin/python" "$HERE/python_smoke.py" "$VERSION")
# `python -m restartkit` and the `restartkit` console command are the CLI run in-process: the
# same stdout, stderr and exit status as the CLI tarball's binary, byte for byte.
printf 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: 5\n' > "$WORK/bad.yaml"
for f in examples/training-jobset.yaml examples/container-recreate-request.yaml examples/pod-sidecar-keystone.yaml "$WORK/bad.yaml" "$WORK/missing.yaml"; do
  for args in "-o json" "-o sarif" ""; do
    set +e
    (cd "$ROOT" && clean "$CLI" validate $args "$f" >"$WORK/cli.out" 2>"$WORK/cli.err"); cli_rc=$?
    (cd "$ROOT" && clean "$WORK/venv/bin/python" -m restartkit validate $args "$f" >"$WORK/py.out" 2>"$WORK/py.err"); py_rc=$?
    (cd "$ROOT" && clean "$WORK/venv/bin/restartkit" validate $args "$f" >"$WORK/cmd.out" 2>"$WORK/cmd.err"); cmd_rc=$?
    set -e
    [ "$cli_rc" = "$py_rc" ] && [ "$cli_rc" = "$cmd_rc" ] || fail "validate $args $f: exit $cli_rc (CLI) vs $py_rc (python -m) vs $cmd_rc (restartkit command)"
    for o in py cmd; do
      for s in out err; do
        cmp -s "$WORK/cli.$s" "$WORK/$o.$s" || { diff "$WORK/cli.$s" "$WORK/$o.$s" | head -20; fail "validate $args $f: std$s of $o differs from the CLI's"; }
      done
    done
  done
  echo "validate $f: exit $cli_rc and the same output from the CLI, python -m restartkit and the restartkit command"
done
# The wheel's kubectl plugin is the CLI's `kubectl` command.
clean "$WORK/venv/bin/kubectl-restartkit" explain --help | grep -q 'job/NAME' || fail "the wheel's kubectl-restartkit explain --help"

step "Python sdist builds from source in another venv (cargo on PATH)"
command -v cargo >/dev/null || fail "the sdist check needs cargo"
"$PYTHON" -m venv "$WORK/venv-sdist"
"$WORK/venv-sdist/bin/pip" install -q --disable-pip-version-check "$SDIST"
(cd "$WORK" && "$WORK/venv-sdist/bin/python" "$HERE/python_smoke.py" "$VERSION")

step "restartkit-wasm in a new npm project: Node ESM and CJS, esbuild and Vite pages in Chromium"
W="$WORK/wasm-app"
mkdir -p "$W" && cp -r "$HERE/page" "$W/page"
cp "$HERE/wasm_smoke.mjs" "$HERE/wasm_smoke.cjs" "$HERE/run_page.mjs" "$W/"
# "type": "module", as a web project's package.json says (npm init writes "commonjs", under which
# esbuild wraps page/main.js as CommonJS and the package's top-level await breaks).
(cd "$W" && clean npm init -y >/dev/null && clean npm pkg set type=module && clean npm install -q "$WASM_TGZ" esbuild@0.28 vite@8 playwright-core@1)
(cd "$W" && clean node wasm_smoke.mjs "$VERSION" && clean node wasm_smoke.cjs "$VERSION")
# esbuild bundles the JavaScript; the module's two parts are fetched at run time from
# new URL('./web/restartkit_wasm_bg.wasm' and './web/restartkit_wasm_lazy.wasm', import.meta.url),
# so they go next to the bundle.
mkdir -p "$W/out-esbuild/web"
(cd "$W" && clean npx esbuild page/main.js --bundle --format=esm --platform=browser --outfile=out-esbuild/main.js --log-level=warning)
cp "$W/page/index.html" "$W/out-esbuild/"
cp "$W/node_modules/restartkit-wasm/web/restartkit_wasm_bg.wasm" "$W/node_modules/restartkit-wasm/web/restartkit_wasm_lazy.wasm" "$W/out-esbuild/web/"
(cd "$W" && clean node run_page.mjs out-esbuild "$VERSION")
# Vite finds the module through the same new URL(...) and emits it as an asset by itself.
(cd "$W" && clean npx vite build page --outDir ../out-vite --emptyOutDir --logLevel warn)
[ "$(ls "$W"/out-vite/assets/*.wasm | wc -l)" -eq 2 ] || fail "vite did not emit the module's two .wasm parts"
(cd "$W" && clean node run_page.mjs out-vite "$VERSION")

step "@restartkit/node (main + linux-x64-gnu platform package) in a new npm project"
N="$WORK/node-app"
mkdir -p "$N" && cp "$HERE/node_smoke.mjs" "$HERE/node_smoke.cjs" "$N/"
tar -tzf "$NODE_TGZ" | grep -q '\.node$' && fail "the main @restartkit/node package carries a binary"
(cd "$N" && clean npm init -y >/dev/null && clean npm install -q "$NODE_PLATFORM_TGZ" "$NODE_TGZ")
(cd "$N" && clean node node_smoke.mjs "$VERSION" && clean node node_smoke.cjs "$VERSION")
glibc_at_most_2_17 "$N/node_modules/@restartkit/node-linux-x64-gnu/restartkit.linux-x64-gnu.node"

step "VS Code extension (.vsix) unpacked into a fresh extensions directory, as VS Code installs it"
VSIX=$(one "restartkit-vscode-$VERSION-linux-x64.vsix")
EXT="$WORK/vscode-extensions/restartkit.restartkit-$VERSION-linux-x64"
mkdir -p "$EXT" && clean "$PYTHON" -m zipfile -e "$VSIX" "$WORK/vsix" && cp -r "$WORK/vsix/extension/." "$EXT/"
# Python's zipfile drops the mode bits the archive records (and VS Code's unzip restores): the
# binary must be recorded executable.
clean "$PYTHON" -c 'import sys, zipfile; m = zipfile.ZipFile(sys.argv[1]).getinfo("extension/bin/linux-x64/restartkit").external_attr >> 16; sys.exit(0 if m & 0o111 else "the bundled binary is not executable in the .vsix")' "$VSIX"
chmod +x "$EXT/bin/linux-x64/restartkit"
clean node "$HERE/vsix_check.mjs" "$EXT" "$WORK/vsix/extension.vsixmanifest" "$VERSION" "$ROOT/examples/editor/job-fix-me.yaml"

step "all artifacts installed and agree on version $VERSION"
