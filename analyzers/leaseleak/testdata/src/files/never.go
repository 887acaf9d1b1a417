package files

import (
	"net/url"
	"os"
)

type options struct{ mode os.FileMode }

type option func(*options) error

// withDefaults fills the options; it cannot fail.
func withDefaults(o *options) error {
	o.mode = 0o600
	return nil
}

// The parse of a constant URL and the default options cannot fail: the
// early returns are never taken.
func openReport(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse("https://example.com/reports")
	if err != nil {
		return nil, err
	}
	var o options
	if err := withDefaults(&o); err != nil {
		return nil, err
	}
	_ = u
	return f, nil
}

// Near-miss: a URL built at run time may not parse.
func openReportAt(name, base string) (*os.File, error) {
	f, err := os.Open(name) // want `the file f from os.Open is not closed on the path through the return when err != nil`
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	_ = u
	return f, nil
}

// Near-miss: a constant that does not parse fails every time.
func openReportBad(name string) (*os.File, error) {
	f, err := os.Open(name) // want `the file f from os.Open is not closed on the path through the return when err != nil`
	if err != nil {
		return nil, err
	}
	if _, err := url.Parse("http://[::1"); err != nil {
		return nil, err
	}
	return f, nil
}
