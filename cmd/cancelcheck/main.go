// Command cancelcheck finds cancellation misuse in Go code.
//
// It runs standalone (cancelcheck ./...) or as a vet tool
// (go vet -vettool=$(command -v cancelcheck) ./...). See docs/index.md.
package main

//go:generate go run ../../internal/docgen -dir ../../docs

import (
	"os"

	"github.com/cancelcheck/cancelcheck/analyzers"
	"github.com/cancelcheck/cancelcheck/internal/driver"
)

func main() {
	os.Exit(driver.Main(analyzers.Checks))
}
