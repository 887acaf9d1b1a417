package a

import (
	"context"
	"sync"
)

// A result channel joins only the paths that receive from it: the default
// arm returns with every goroutine still running.
func resizeAll(ctx context.Context, imgs []string) error {
	errc := make(chan error, len(imgs))
	for _, img := range imgs {
		go func() { // want `goroutine uses the context ctx of resizeAll, which can return without waiting for it`
			if _, err := fetch(ctx, img); err != nil {
				errc <- err
			}
		}()
	}
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// Near-miss: every path collects one result per element.
func resizeAllCollected(ctx context.Context, imgs []string) error {
	errc := make(chan error, len(imgs))
	for _, img := range imgs {
		go func() {
			_, err := fetch(ctx, img)
			errc <- err
		}()
	}
	var first error
	for range imgs {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

type reader struct {
	ctx context.Context
	r   interface{ Read([]byte) (int, error) }
}

// Near-miss: a racer that reports back; on the cancellation path its result
// is not wanted, and nothing reads what it writes.
func (cr *reader) read(b []byte) (int, error) {
	done := make(chan struct{})
	var n int
	var err error
	go func() {
		n, err = cr.r.Read(b)
		close(done)
	}()
	select {
	case <-cr.ctx.Done():
		return 0, cr.ctx.Err()
	case <-done:
		return n, err
	}
}

// Near-miss: goroutines per element that touch no owner state, collected
// under a timeout of the owner's.
func closeAll(conns []string, closeOne func(string, chan struct{}), timeout <-chan struct{}) {
	ch := make(chan struct{}, len(conns))
	for _, c := range conns {
		go closeOne(c, ch)
	}
	for range conns {
		select {
		case <-ch:
		case <-timeout:
			return
		}
	}
}

func refresh(ctx context.Context) error { return ctx.Err() }

// Near-miss: the owner detaches the context before starting the work.
func refreshOnRead(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	go func() {
		_ = refresh(ctx)
	}()
}

// Near-miss: detached inline.
func refreshInline(ctx context.Context) {
	go func(c context.Context) {
		_ = refresh(c)
	}(context.WithoutCancel(ctx))
}

// The detach happens on one path only: the other starts the goroutine on
// the caller's context.
func refreshSome(ctx context.Context, detach bool) {
	if detach {
		ctx = context.WithoutCancel(ctx)
	}
	go func() { // want `goroutine uses the context ctx of refreshSome`
		_ = refresh(ctx)
	}()
}

func compute(ctx context.Context, i int) int { return i }

func work(ctx context.Context, i int) error { return ctx.Err() }

func sent(int) {}

// Near-miss: a future. Its one result goes into a buffer with room for it
// and sending is the last thing it does; the owner that returns early
// abandons the value on purpose, and the goroutine ends with its work.
func futureEarly(ctx context.Context, check func() error) (int, error) {
	res := make(chan int, 1)
	go func() {
		res <- compute(ctx, 1)
	}()
	if err := check(); err != nil {
		return 0, err
	}
	return <-res, nil
}

// Near-miss: a future of an error (a probe's outcome) is a future too
// (Kubernetes' fix for an abandoned probe gave the channel one slot).
func workEarly(ctx context.Context, check func() error) error {
	errc := make(chan error, 1)
	go func() {
		errc <- work(ctx, 1)
	}()
	if err := check(); err != nil {
		return err
	}
	return <-errc
}

// A future that goes on after its send is not done when it has sent.
func futureThenMore(ctx context.Context, check func() error) (int, error) {
	res := make(chan int, 1)
	go func() { // want `goroutine uses the context ctx of futureThenMore, which can return without waiting for it`
		res <- compute(ctx, 1)
		_ = work(ctx, 2)
	}()
	if err := check(); err != nil {
		return 0, err
	}
	return <-res, nil
}

// A goroutine that reports only its failure does its work for its side
// effects: returning early leaves that work running, cut off by ctx.
func failEarly(ctx context.Context, check func() error) error {
	errc := make(chan error, 1)
	go func() { // want `goroutine uses the context ctx of failEarly, which can return without waiting for it`
		if err := work(ctx, 1); err != nil {
			errc <- err
		}
	}()
	if err := check(); err != nil {
		return err
	}
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// Near-miss: n workers started by a counted loop, and a loop with the same
// count that collects one result each: it runs at least once, since the
// goroutines started.
func countedCollect(ctx context.Context, n int) error {
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			errc <- work(ctx, i)
			sent(i) // not a future: work goes on after the send
		}()
	}
	var first error
	for i := 0; i < n; i++ {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// The collecting loop has another count: it may not run at all.
func countedOther(ctx context.Context, n, m int) error {
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() { // want `goroutine uses the context ctx of countedOther, which can return without waiting for it`
			errc <- work(ctx, i)
			sent(i)
		}()
	}
	var first error
	for i := 0; i < m; i++ {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

type page struct{ body []byte }

func load(ctx context.Context, u string) (*page, error) { return &page{}, ctx.Err() }

// Near-miss: a future with one send per path (an early failure sends a
// zero): each path sends once, into a slot that is always free.
func sizeOf(ctx context.Context, u string, check func() error) (int, error) {
	sizes := make(chan int, 1)
	go func() {
		p, err := load(ctx, u)
		if err != nil {
			sizes <- 0
			return
		}
		sizes <- len(p.body)
	}()
	if err := check(); err != nil {
		return 0, err
	}
	return <-sizes, nil
}

// Near-miss: the goroutine writes the owner's p before it reports, and the
// owner reads p only after receiving the report: the write is part of the
// result, and the timeout path abandons both.
func fetchTimeout(u string, d <-chan struct{}) (*page, error) {
	errc := make(chan error, 1)
	var p *page
	go func() {
		var err error
		p, err = load(context.Background(), u)
		errc <- err
	}()
	select {
	case err := <-errc:
		return p, err
	case <-d:
		return nil, context.DeadlineExceeded
	}
}

// The owner reads p on the timeout path too, without a receive: a race.
func fetchTimeoutRacy(u string, d <-chan struct{}) (*page, error) {
	errc := make(chan error, 1)
	var p *page
	go func() { // want `goroutine writes p, a variable of fetchTimeoutRacy`
		var err error
		p, err = load(context.Background(), u)
		errc <- err
	}()
	select {
	case err := <-errc:
		return p, err
	case <-d:
		return p, context.DeadlineExceeded
	}
}

// State shared by the goroutines the owner starts, under a lock, and never
// read by the owner again: no result for the owner, nothing lost.
func startQueue(stop <-chan struct{}, reqs <-chan int) {
	var mu sync.Mutex
	stopped := false
	go func() {
		<-stop
		mu.Lock()
		stopped = true
		mu.Unlock()
	}()
	go func() {
		for r := range reqs {
			mu.Lock()
			if stopped {
				mu.Unlock()
				return
			}
			_ = r
			mu.Unlock()
		}
	}()
}

// The owner reads what its goroutine writes: the write races.
func startQueueRead(stop <-chan struct{}) bool {
	stopped := false
	go func() { // want `goroutine writes stopped, a variable of startQueueRead`
		<-stop
		stopped = true
	}()
	return stopped
}
