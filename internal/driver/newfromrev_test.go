package driver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewFromRevGitConfig checks that the user's diff settings do not
// change which lines count as changed: with diff.mnemonicPrefix the diff
// names files "w/a/a.go", with diff.noprefix "a/a.go" (no "b/"), and both
// used to make -new-from-rev report nothing.
func TestNewFromRevGitConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, setting := range []string{"diff.mnemonicPrefix", "diff.noprefix", "diff.relative"} {
		t.Run(setting, func(t *testing.T) {
			dir := fixture(t)
			gitInit(t, dir)
			cmd := exec.Command("git", "config", setting, "true")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git config: %v\n%s", err, out)
			}
			editFile(t, filepath.Join(dir, "a", "a.go"), func(s string) string {
				return strings.Replace(s, "func Quiet() int { return Good() }", "func Quiet() int { return Bad() }", 1)
			})
			stdout, stderr, code := run(t, dir, "-format=text", "-new-from-rev=HEAD", "./a")
			if code != ExitFindings || !strings.Contains(stdout, "so Quiet computes") || strings.Count(strings.TrimSpace(stdout), "\n") != 0 {
				t.Errorf("with %s=true: exit %d, want the one changed line reported:\n%s%s", setting, code, stdout, stderr)
			}
		})
	}
}

// TestNewFromRevRelated checks that a finding whose related places touch
// changed lines is new even when its own line did not change: a lease
// acquired on an old line and leaked by a newly added early return.
func TestNewFromRevRelated(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.go")
	if err := os.WriteFile(file, []byte("package a\n\nfunc f() {\n\tacquire()\n\tif x {\n\t\treturn\n\t}\n\trelease()\n}\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	file = canonical(file)
	cs := changedSet{file: {5: true, 6: true, 7: true}}
	leak := &Finding{Check: "leaseleak", Pos: Position{File: file, Line: 4}, Message: "leak",
		Related: []Related{{Pos: Position{File: file, Line: 6}, Message: "this return leaks it"}}}
	old := &Finding{Check: "leaseleak", Pos: Position{File: file, Line: 4}, Message: "old leak",
		Related: []Related{{Pos: Position{File: file, Line: 9}, Message: "this return leaks it"}}}
	other := &Finding{Check: "leaseleak", Pos: Position{File: filepath.Join(dir, "b.go"), Line: 6}, Message: "elsewhere"}
	got := cs.filter([]*Finding{leak, old, other})
	if len(got) != 1 || got[0] != leak {
		t.Errorf("filter kept %v, want only the finding whose related return changed", got)
	}
}

// TestNewFromRevDeletion: deleting the release between the acquisition and
// the leaking return makes the leak new, though no line of it changed; a
// deletion elsewhere in the file does not.
func TestNewFromRevDeletion(t *testing.T) {
	file := canonical(filepath.Join(t.TempDir(), "a.go"))
	leak := &Finding{Check: "leaseleak", Pos: Position{File: file, Line: 4}, End: Position{File: file, Line: 4}, Message: "leak",
		Related: []Related{{Pos: Position{File: file, Line: 9}, Message: "this return leaks it"}}}
	// defer cancel() was on the line after 4.
	if got := (changedSet{file: {deletedKey(4): true}}).filter([]*Finding{leak}); len(got) != 1 {
		t.Errorf("a deletion between the acquisition and the return: kept %v, want the leak", got)
	}
	if got := (changedSet{file: {deletedKey(20): true}}).filter([]*Finding{leak}); len(got) != 0 {
		t.Errorf("a deletion after the return: kept %v, want nothing", got)
	}
	if got := (changedSet{file: {deletedKey(9): true}}).filter([]*Finding{leak}); len(got) != 0 {
		t.Errorf("a deletion right after the return: kept %v, want nothing", got)
	}
}
