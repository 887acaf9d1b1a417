package roots

import (
	"context"
	"net/http"

	"roots/lib"
)

func get(ctx context.Context) error { return ctx.Err() }

func sync() { get(context.TODO()) }

func syncAll() { sync() }

func Handle(ctx context.Context) error {
	sync()           // want `sync takes no context and runs its work under context.TODO\(\) \(roots.go:12\): called here with ctx in reach, that work keeps running after ctx's deadline passes or it is canceled`
	syncAll()        // the same root as sync's: a related position of the finding above
	lib.Refresh()    // want `Refresh takes no context and calls Warm, which runs its work under context.Background\(\) \(lib.go:14\)`
	defer sync()     // cleanup after the work
	go lib.Warm("x") // its own goroutine
	lib.Later("y")
	lib.WarmBounded("z") // bounded by its own deadline
	_ = lib.Describe()
	req, err := lib.NewRequest("http://x")
	if err != nil {
		return err
	}
	_, err = http.DefaultClient.Do(req.WithContext(ctx))
	return err
}

func flush() { get(context.Background()) }

func flushAll() { flush() }

// Refresh reaches flush's root through flushAll: the chain is named.
func Refresh(ctx context.Context) error {
	flushAll() // want `flushAll takes no context and calls flush, which runs its work under context.Background\(\)`
	flush()    // the same root: a related position of the finding above
	return ctx.Err()
}

// NoContext has none in reach: nothing to cut off.
func NoContext() { sync() }

// cleaner owns the lifetime of its cleanup loop: Shutdown cancels it.
type cleaner struct{ shutdown context.CancelFunc }

func (c *cleaner) run(ctx context.Context) error { return get(ctx) }

func (c *cleaner) Shutdown() { c.shutdown() }

// newCleaner's root is the object's own lifetime: its cancel is kept in
// the value it returns.
func newCleaner() *cleaner {
	ctx, cancel := context.WithCancel(context.Background())
	c := &cleaner{shutdown: cancel}
	_ = c.run(ctx)
	return c
}

// newCleanerDropped defers its cancel: the work runs under a root nobody
// else can end.
func newCleanerDropped() *cleaner {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &cleaner{}
	_ = c.run(ctx)
	return c
}

func Setup(ctx context.Context) error {
	_ = newCleaner()
	_ = newCleanerDropped() // want `newCleanerDropped takes no context and runs its work under context.Background\(\)`
	return ctx.Err()
}
