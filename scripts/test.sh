#!/usr/bin/env bash
# The test command: formatting, vet, staticcheck, every test of the analyzer
# module, and the runtime module's tests under the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(git ls-files '*.go' | grep -v '/testdata/' | xargs gofmt -l || true)
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...
echo "== staticcheck"
go tool staticcheck ./...

echo "== go test (analyzers)"
go test ./...

if [ -d rt ]; then
	echo "== go test -race (runtime module rt/)"
	(cd rt && go vet ./... && go test -race ./...)
fi
