package driver

import (
	"math/rand"
	"strings"
	"testing"
)

// TestLineDiff checks that the edit script turns a into b and keeps every
// line of a, for random small inputs.
func TestLineDiff(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	gen := func() []string {
		n := rng.Intn(12)
		var ls []string
		for range n {
			ls = append(ls, string(rune('a'+rng.Intn(4)))+"\n")
		}
		return ls
	}
	for i := range 2000 {
		a, b := gen(), gen()
		var gotA, gotB []string
		for _, o := range lineDiff(a, b) {
			switch o.kind {
			case ' ':
				gotA, gotB = append(gotA, o.text), append(gotB, o.text)
			case '-':
				gotA = append(gotA, o.text)
			case '+':
				gotB = append(gotB, o.text)
			}
		}
		if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
			t.Fatalf("case %d: lineDiff(%q, %q) does not reproduce its inputs", i, a, b)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n"
	want := `--- a
+++ b
@@ -1,6 +1,6 @@
 1
 2
-3
+three
 4
 5
 6
@@ -10,3 +10,4 @@
 10
 11
 12
+13
`
	if got := unifiedDiff("a", "b", a, b); got != want {
		t.Errorf("unifiedDiff:\n%s\nwant:\n%s", got, want)
	}
	if got := unifiedDiff("a", "b", a, a); got != "" {
		t.Errorf("diff of equal texts: %q", got)
	}
}

func TestParsePosn(t *testing.T) {
	for in, want := range map[string]Position{
		"/a/b.go:3:4":   {"/a/b.go", 3, 4},
		"/a/b.go:3":     {"/a/b.go", 3, 0},
		"C:/x/b.go:3:4": {"C:/x/b.go", 3, 4},
		"-":             {"-", 0, 0},
	} {
		if got := parsePosn(in); got != want {
			t.Errorf("parsePosn(%q) = %v, want %v", in, got, want)
		}
	}
}
