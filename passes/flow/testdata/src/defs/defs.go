package defs

import "errors"

func defsHere(error) {}

func try(i int) error { return nil }

var errBusy = errors.New("busy")

// The last failure of a retry loop reaches the return after it, and so
// does the nil it starts with.
func lastFailure(n int, stop <-chan struct{}) error {
	var last error
	for i := 0; i < n; i++ { // want `no working round skips check`
		select {
		case <-stop:
			defsHere(last) // want `defs 14 23=err 25=errBusy`
			return last
		default:
		}
		if err := try(i); err != nil {
			last = err
		} else {
			last = errBusy
		}
	}
	return last
}

// An assignment on every path hides the ones before it.
func overwritten(err error) error {
	defsHere(err) // want `defs entry`
	err = errBusy
	if err != nil {
		err = errors.New("x")
	}
	defsHere(err) // want `defs 34=errBusy 36=errors.New\("x"\)`
	return err
}

// A literal that assigns the variable hides its definitions.
func captured() error {
	var err error
	f := func() { err = errBusy }
	f()
	defsHere(err) // want `defs unknown`
	return err
}

// A range clause and a select case's receive define their variables.
func received(errs <-chan error, all []error) {
	for _, e := range all { // want `no working round skips check`
		defsHere(e) // want `defs 53`
	}
	select {
	case e := <-errs:
		defsHere(e) // want `defs 57=<-errs`
	default:
	}
}

// An assignment later in a loop reaches the next round's use.
func carried(n int) error {
	var err error
	for i := range n { // want `no working round skips check`
		defsHere(err) // want `defs 65 68=try\(i\)`
		err = try(i)
	}
	return err
}
