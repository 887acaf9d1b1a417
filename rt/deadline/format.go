package deadline

import (
	"errors"
	"strconv"
	"time"
)

// maxValue is the largest value the format allows: 8 digits.
const maxValue = 99999999

// units lists the unit letters from finest to coarsest.
var units = [...]struct {
	letter byte
	d      time.Duration
}{
	{'n', time.Nanosecond},
	{'u', time.Microsecond},
	{'m', time.Millisecond},
	{'S', time.Second},
	{'M', time.Minute},
	{'H', time.Hour},
}

// Format returns d in the header format, using the finest unit in which it
// fits in 8 digits and rounding down. A d of zero or less is "0n", which
// means the deadline has passed.
func Format(d time.Duration) string {
	if d <= 0 {
		return "0n"
	}
	for _, u := range units {
		if v := d / u.d; v <= maxValue {
			return strconv.FormatInt(int64(v), 10) + string(u.letter)
		}
	}
	// Unreachable: the largest Duration is about 2562047 hours.
	return strconv.FormatInt(maxValue, 10) + "H"
}

// ErrSyntax is matched by the errors of [Parse] for malformed values.
var ErrSyntax = errors.New("malformed timeout")

// ErrRange is matched by the errors of [Parse] for values too large for a
// [time.Duration].
var ErrRange = errors.New("timeout out of range")

// Parse reads a timeout in the header format: 1 to 8 ASCII digits and a
// unit letter, with no sign, space or other characters. It returns a
// Duration of zero or more, or an error matching [ErrSyntax] or
// [ErrRange]; it never panics.
func Parse(s string) (time.Duration, error) {
	if len(s) < 2 || len(s) > 9 {
		return 0, &parseError{s, ErrSyntax}
	}
	unit := time.Duration(0)
	for _, u := range units {
		if s[len(s)-1] == u.letter {
			unit = u.d
			break
		}
	}
	if unit == 0 {
		return 0, &parseError{s, ErrSyntax}
	}
	var v int64
	for i := 0; i < len(s)-1; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, &parseError{s, ErrSyntax}
		}
		v = v*10 + int64(c-'0')
	}
	if v > int64(maxDuration/unit) {
		return 0, &parseError{s, ErrRange}
	}
	return time.Duration(v) * unit, nil
}

const maxDuration = time.Duration(1<<63 - 1)

type parseError struct {
	s   string
	err error
}

func (e *parseError) Error() string {
	return "deadline: " + e.err.Error() + " " + strconv.Quote(e.s)
}

func (e *parseError) Unwrap() error { return e.err }
