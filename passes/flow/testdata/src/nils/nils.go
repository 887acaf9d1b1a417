package nils

import "errors"

func nilHere(error) {}

func run(i int) error {
	if i > 3 {
		return errors.New("big")
	}
	return nil
}

// Each round that goes on has tested err == nil.
func loop(n int, stop <-chan struct{}) error {
	var err error
	for i := range n { // want `no working round skips check`
		select {
		case <-stop:
			nilHere(err) // want `nil here`
			return err
		default:
		}
		if err = run(i); err != nil {
			return err
		}
	}
	nilHere(err) // want `nil here`
	return nil
}

// A failure that does not return keeps err set for the next round.
func loopLogged(n int, stop <-chan struct{}) {
	var err error
	for i := range n { // want `no working round skips check`
		select {
		case <-stop:
			nilHere(err) // want `maybe non-nil here`
			return
		default:
		}
		err = run(i)
	}
}

func params(err error) {
	nilHere(err) // want `maybe non-nil here`
	if err != nil {
		return
	}
	nilHere(err) // want `nil here`
}

func named(i int) (err error) {
	nilHere(err) // want `nil here`
	err = run(i)
	nilHere(err) // want `maybe non-nil here`
	if err == nil {
		nilHere(err) // want `nil here`
	}
	return err
}

func addressed(i int) {
	var err error
	set(&err)
	nilHere(err) // want `maybe non-nil here`
}

func set(p *error) { *p = errors.New("x") }

func captured(i int) {
	var err error
	f := func() { err = run(i) }
	f()
	nilHere(err) // want `maybe non-nil here`
}

// A range loop's value is assigned at the loop's head each round.
func rangeValue(errs []error) {
	for _, err := range errs { // want `no working round skips check`
		nilHere(err) // want `maybe non-nil here`
	}
}

// Past the failure's return inside a loop, err is nil.
func pastReturn(last func() (int, error), stop func() bool) int {
	for { // want `no working round skips check`
		n, err := last()
		if err != nil {
			return 0
		}
		if stop() {
			nilHere(err) // want `nil here`
			return n
		}
	}
}

// A package variable declared after the function is not a local.
func sentinelLater() {
	nilHere(errLater) // want `maybe non-nil here`
}

var errLater = errors.New("later")
