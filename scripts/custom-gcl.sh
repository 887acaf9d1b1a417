#!/usr/bin/env bash
# Build golangci-lint with the cancelcheck plugin compiled in, from a local
# checkout of cancelcheck and golangci-lint's source on the Go module proxy:
# no git clone of golangci-lint (which `golangci-lint custom` needs) and no
# published cancelcheck release.
#
#   scripts/custom-gcl.sh [output]        (default output: ./custom-gcl)
#
# Environment: GCL_VERSION (default v2.15.0, the version the plugin is
# built and tested against); the usual GOPROXY/GOFLAGS apply. The plugin's
# end-to-end test (plugin/e2e_test.go) builds its binary with this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-custom-gcl}
case $out in /*) ;; *) out="$PWD/$out" ;; esac
version=${GCL_VERSION:-v2.15.0}
export GOWORK=off GOFLAGS=-mod=mod

src=$(cd "$root" && go mod download -json "github.com/golangci/golangci-lint/v2@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ -z "$src" ] || [ ! -d "$src" ]; then
	echo "custom-gcl.sh: could not download golangci-lint $version from the module proxy" >&2
	exit 1
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -R "$src/." "$work/"
chmod -R u+w "$work"
cd "$work"
printf 'package main\n\nimport _ "github.com/cancelcheck/cancelcheck/plugin"\n' > cmd/golangci-lint/plugins.go
go mod edit -require=github.com/cancelcheck/cancelcheck@v0.0.0 -replace=github.com/cancelcheck/cancelcheck="$root"
go mod tidy
go build -o "$out.tmp" ./cmd/golangci-lint
mv "$out.tmp" "$out"
echo "built $out (golangci-lint $version with cancelcheck from $root)"
