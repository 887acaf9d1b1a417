package a

import "errors"

var errItem = errors.New("bad item")

type index struct{ n int }

// ingest closes the channel only when every item was sent: an early return
// leaves the adder ranging over it forever.
func (ix *index) ingest(items []int) error {
	ch := make(chan int, 8)
	go func() { // want `goroutine ranges over ch, which ingest can return without closing: nothing else can close it, so on that path the goroutine blocks in the range forever`
		for v := range ch {
			ix.n += v
		}
	}()
	for _, it := range items {
		if it < 0 {
			return errItem
		}
		ch <- it
	}
	close(ch)
	return nil
}

// ingestDeferred closes the channel on every path.
func (ix *index) ingestDeferred(items []int) error {
	ch := make(chan int, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for v := range ch {
			ix.n += v
		}
	}()
	defer func() { close(ch); <-done }()
	for _, it := range items {
		if it < 0 {
			return errItem
		}
		ch <- it
	}
	return nil
}

// ingestHanded passes the channel on: whoever gets it may close it.
func (ix *index) ingestHanded(items []int, feed func(chan<- int) error) error {
	ch := make(chan int, 8)
	go func() {
		for v := range ch {
			ix.n += v
		}
	}()
	return feed(ch)
}

// ingestPrefilled fills and closes the channel before starting its reader.
func (ix *index) ingestPrefilled(items []int) error {
	ch := make(chan int, len(items))
	for _, it := range items {
		ch <- it
	}
	close(ch)
	go func() {
		for v := range ch {
			ix.n += v
		}
	}()
	if len(items) == 0 {
		return errItem
	}
	return nil
}
