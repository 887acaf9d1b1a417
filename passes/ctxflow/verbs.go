package ctxflow

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// WrapVerbs returns the verb letter used for each operand of a fmt.Errorf
// (or Printf-like) call whose format is the first argument: 'w', 'v', 's'...
// It returns nil when the format is not a constant. Explicit argument
// indexes ("%[2]w") are honoured; '*' widths consume an operand and are
// recorded as '*'.
func WrapVerbs(info *types.Info, call *ast.CallExpr) []byte {
	if len(call.Args) == 0 {
		return nil
	}
	tv, ok := info.Types[call.Args[0]]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return nil
	}
	format := constant.StringVal(tv.Value)
	verbs := make([]byte, len(call.Args)-1)
	argNum := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		// flags
		for i < len(format) && strings.IndexByte("+-# 0", format[i]) >= 0 {
			i++
		}
		// [n] index, width, precision
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
				continue
			case c == '*':
				if argNum < len(verbs) {
					verbs[argNum] = '*'
				}
				argNum++
				i++
				continue
			case c == '.' || (c >= '0' && c <= '9'):
				i++
				continue
			}
			break
		}
		if i >= len(format) {
			break
		}
		if argNum < len(verbs) {
			verbs[argNum] = format[i]
		}
		argNum++
	}
	return verbs
}
