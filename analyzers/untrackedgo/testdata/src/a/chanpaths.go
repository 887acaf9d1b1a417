package a

import "context"

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

// A goroutine that reports only its error does its work for the side
// effects: returning early leaves that work running, cut off by ctx.
func workEarly(ctx context.Context, check func() error) error {
	errc := make(chan error, 1)
	go func() { // want `goroutine uses the context ctx of workEarly, which can return without waiting for it`
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

// Near-miss: n workers started by a counted loop, and a loop with the same
// count that collects one result each: it runs at least once, since the
// goroutines started.
func countedCollect(ctx context.Context, n int) error {
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			errc <- work(ctx, i)
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
