package knowledge

import (
	"go/constant"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"time"
)

// parsers are the standard library's pure parsing functions, run here on
// a call's constant argument: whether that call can fail is known before
// the program runs (url.Parse("https://example.com/api") never does).
var parsers = map[string]func(string) error{
	"net/url.Parse":           func(s string) error { _, err := url.Parse(s); return err },
	"net/url.ParseRequestURI": func(s string) error { _, err := url.ParseRequestURI(s); return err },
	"regexp.Compile":          func(s string) error { _, err := regexp.Compile(s); return err },
	"regexp.CompilePOSIX":     func(s string) error { _, err := regexp.CompilePOSIX(s); return err },
	"time.ParseDuration":      func(s string) error { _, err := time.ParseDuration(s); return err },
	"strconv.Atoi":            func(s string) error { _, err := strconv.Atoi(s); return err },
	"strconv.ParseBool":       func(s string) error { _, err := strconv.ParseBool(s); return err },
	"net/netip.ParseAddr":     func(s string) error { _, err := netip.ParseAddr(s); return err },
	"net/netip.ParsePrefix":   func(s string) error { _, err := netip.ParsePrefix(s); return err },
	"net/netip.ParseAddrPort": func(s string) error { _, err := netip.ParseAddrPort(s); return err },
	"net/url.PathUnescape":    func(s string) error { _, err := url.PathUnescape(s); return err },
	"net/url.QueryUnescape":   func(s string) error { _, err := url.QueryUnescape(s); return err },
	"strconv.Unquote":         func(s string) error { _, err := strconv.Unquote(s); return err },
}

// ConstantParseFails reports, for a call of the parsing function pkg.name
// whose only argument is the constant arg, whether it fails; known is
// false when the function is not one of these parsers or arg is not a
// constant string.
func ConstantParseFails(pkg, name string, arg constant.Value) (fails, known bool) {
	p := parsers[pkg+"."+name]
	if p == nil || arg == nil || arg.Kind() != constant.String {
		return false, false
	}
	return p(constant.StringVal(arg)) != nil, true
}
