package driver

import (
	"strings"
	"testing"
)

func TestDropUnusedImports(t *testing.T) {
	const before = `package p

import (
	"errors"
	"strings"
	"context"
	str "strconv"
	_ "embed"
)

func f(err error) bool { return strings.Contains(err.Error(), "context deadline exceeded") }

var _ = str.Itoa(1)
var _ = errors.New
`
	fixed := strings.Replace(before, `strings.Contains(err.Error(), "context deadline exceeded")`, `errors.Is(err, context.DeadlineExceeded)`, 1)
	got := string(dropUnusedImports([]byte(before), []byte(fixed)))
	if strings.Contains(got, `"strings"`) {
		t.Errorf("the import the fix left unused is still there:\n%s", got)
	}
	for _, keep := range []string{`"errors"`, `"context"`, `str "strconv"`, `_ "embed"`} {
		if !strings.Contains(got, keep) {
			t.Errorf("%s was removed:\n%s", keep, got)
		}
	}

	// Still used elsewhere: kept.
	twice := strings.Replace(before, "var _ = errors.New", "var _ = errors.New\nvar _ = strings.ToUpper", 1)
	fixedTwice := strings.Replace(twice, `strings.Contains(err.Error(), "context deadline exceeded")`, `errors.Is(err, context.DeadlineExceeded)`, 1)
	if got := string(dropUnusedImports([]byte(twice), []byte(fixedTwice))); !strings.Contains(got, `"strings"`) {
		t.Errorf("strings is still used, yet removed:\n%s", got)
	}
	// Unchanged source: unchanged.
	if got := string(dropUnusedImports([]byte(before), []byte(before))); got != before {
		t.Errorf("no fix, yet changed:\n%s", got)
	}
}
