package ctxflow

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// Verb is one formatting directive of a Printf-style format string.
type Verb struct {
	Arg    int  // operand index (0 = first operand after the format)
	Letter byte // the verb letter
	Offset int  // offset of the letter in the format string
	Plain  bool // no flags, width or precision: "%v" or "%[2]v"
}

// ParseFormat returns the directives of format in order. Explicit argument
// indexes ("%[2]w") are honoured; a '*' width or precision consumes an
// operand and yields no Verb. Parsing stops at a malformed index.
func ParseFormat(format string) []Verb {
	var verbs []Verb
	argNum := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		plain := true
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
			plain = false
		}
	modifiers:
		for i < len(format) {
			switch c := format[i]; {
			case c == '[':
				end := strings.IndexByte(format[i:], ']')
				if end < 0 {
					return verbs
				}
				n := 0
				for _, d := range format[i+1 : i+end] {
					if d < '0' || d > '9' {
						n = -1
						break
					}
					n = n*10 + int(d-'0')
				}
				if n > 0 {
					argNum = n - 1
				}
				i += end + 1
			case c == '*':
				argNum++
				i++
				plain = false
			case c == '.' || (c >= '0' && c <= '9'):
				i++
				plain = false
			default:
				break modifiers
			}
		}
		if i >= len(format) {
			break
		}
		verbs = append(verbs, Verb{Arg: argNum, Letter: format[i], Offset: i, Plain: plain})
		argNum++
	}
	return verbs
}

// WrapVerbs returns the verb letter used for each operand of a fmt.Errorf
// (or Printf-like) call whose format is the first argument: 'w', 'v', 's'...
// (0 for an operand no verb formats). It returns nil when the format is not
// a constant.
func WrapVerbs(info *types.Info, call *ast.CallExpr) []byte {
	if len(call.Args) == 0 {
		return nil
	}
	tv, ok := info.Types[call.Args[0]]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return nil
	}
	letters := make([]byte, len(call.Args)-1)
	for _, v := range ParseFormat(constant.StringVal(tv.Value)) {
		if v.Arg < len(letters) {
			letters[v.Arg] = v.Letter
		}
	}
	return letters
}
