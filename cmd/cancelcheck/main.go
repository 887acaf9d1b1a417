// Command cancelcheck finds cancellation misuse in Go code.
//
// It runs standalone (cancelcheck ./...) or as a vet tool
// (go vet -vettool=$(command -v cancelcheck) ./...). See the README.
package main

import (
	"fmt"
	"os"

	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/cancelcheck/cancelcheck/analyzers"
)

func main() {
	if len(os.Args) == 3 && (os.Args[1] == "-explain" || os.Args[1] == "--explain") {
		c, ok := analyzers.Lookup(os.Args[2])
		if !ok {
			fmt.Fprintf(os.Stderr, "cancelcheck: no check named %q\n", os.Args[2])
			os.Exit(2)
		}
		fmt.Println(c.Analyzer.Doc)
		return
	}
	multichecker.Main(analyzers.All()...)
}
