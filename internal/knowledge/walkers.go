package knowledge

// walkers are the standard library's tree walks whose callback may end
// the walk with a skip sentinel; walkSkips are those sentinels. A walk
// turns a SkipAll (and a SkipDir) its callback returns into a nil error of
// its own: the caller of the walk sees success.
var (
	walkers = map[string]bool{
		"path/filepath.Walk":    true,
		"path/filepath.WalkDir": true,
		"io/fs.WalkDir":         true,
	}
	walkSkips = map[string]bool{
		"path/filepath.SkipAll": true,
		"path/filepath.SkipDir": true,
		"io/fs.SkipAll":         true,
		"io/fs.SkipDir":         true,
	}
)

// Walker reports whether pkgPath.name is a walk that turns its callback's
// skip sentinels into a nil error.
func Walker(pkgPath, name string) bool { return walkers[pkgPath+"."+name] }

// WalkSkip reports whether the package variable pkgPath.name is a skip
// sentinel of those walks.
func WalkSkip(pkgPath, name string) bool { return walkSkips[pkgPath+"."+name] }
