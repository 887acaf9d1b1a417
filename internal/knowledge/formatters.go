package knowledge

// formatters are the packages and types whose functions and methods only
// format or log their operands: they keep no reference to them after they
// return, so passing a lease to them neither releases it nor hands it to a
// new owner (fmt.Print(resp) leaves resp.Body open). Their bodies cannot
// show it: fmt stores each operand in a pooled printer's field and clears
// it when the printer is freed, which a summary of the body reads as a
// store that keeps it.
var formatters = map[string]bool{
	"fmt":                   true,
	"log":                   true,
	"log.Logger":            true,
	"log/slog":              true,
	"log/slog.Logger":       true,
	"testing.T":             true,
	"testing.B":             true,
	"testing.F":             true,
	"testing.TB":            true,
	"testing.common":        true,
	"golang.org/x/exp/slog": true,
}

// Formats reports whether the function or method named by pkg, typ (""
// for a function) and name only formats or logs its operands.
func Formats(pkg, typ, name string) bool {
	if typ != "" {
		return formatters[pkg+"."+typ]
	}
	return formatters[pkg]
}
