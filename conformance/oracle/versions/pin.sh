#!/usr/bin/env bash
# Pins the oracle to one Kubernetes release: writes versions/go.1.<minor>.mod (and its go.sum)
# requiring k8s.io/kubernetes at that release, every staging module it requires at v0.0.0
# replaced by the matching v0.<minor>.<patch> (as its own go.mod replaces them with ./staging),
# and every other dependency at the version the release itself requires (the module requires
# nothing else, so minimal version selection keeps the release's own pins). The oracle is built
# per minor with `go build -modfile=versions/go.1.<minor>.mod`.
#   usage: versions/pin.sh 1.34.4
set -euo pipefail
cd "$(dirname "$0")/.."
v=${1:?usage: versions/pin.sh 1.34.4}
minor=$(echo "$v" | cut -d. -f2)
mf=versions/go.1.$minor.mod
gomod=$(go mod download -json "k8s.io/kubernetes@v$v" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
[ -n "$gomod" ] || { echo "the module proxy does not serve k8s.io/kubernetes@v$v" >&2; exit 1; }
cat > "$mf" <<MOD
module restartkit.dev/conformance/oracle

go $(awk '$1 == "go" {print $2; exit}' go.mod)

require k8s.io/kubernetes v$v
MOD
for m in $(awk '$2 == "v0.0.0" && $1 ~ /^k8s.io\// {print $1}' "$gomod"); do
  go mod edit -modfile="$mf" -replace="$m=$m@v0.$(echo "$v" | cut -d. -f2-)"
done
rm -f "versions/go.1.$minor.sum"
GOFLAGS=-mod=mod go mod tidy -modfile="$mf" -e >/dev/null
# Check what tidy may have moved: every dependency of the release at the release's own version.
go list -modfile="$mf" -m all | awk 'NR > 1 {print $1, $2}' | sort > "/tmp/oracle-pin-$minor.have"
awk '/^require \(/{r=1;next} /^\)/{r=0} (r || $1 == "require") && $NF != "v0.0.0" && $0 !~ /v0.0.0 *$/ {print}' "$gomod" \
  | sed 's/^require //; s/ *\/\/ indirect//' | awk 'NF == 2 {print $1, $2}' | sort > "/tmp/oracle-pin-$minor.want"
moved=$(join "/tmp/oracle-pin-$minor.want" "/tmp/oracle-pin-$minor.have" | awk '$2 != $3')
if [ -n "$moved" ]; then echo "versions differ from k8s.io/kubernetes@v$v's own:"; echo "$moved"; exit 1; fi
echo "$mf: k8s.io/kubernetes v$v"
