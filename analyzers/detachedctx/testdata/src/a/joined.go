package a

import (
	"context"
	"sync"
)

func fetchID(ctx context.Context, id int) error { return ctx.Err() }

// waitsForWorkers waits for its goroutines: their work is its own, and a
// fresh root in them escapes its caller's deadline.
func waitsForWorkers(ctx context.Context, ids []int) {
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fetchID(context.Background(), id) // want `context.Background\(\) in a function literal in waitsForWorkers cuts off ctx`
		}()
	}
	wg.Wait()
}

// firesAndForgets starts a goroutine nothing waits for and that never
// looks at ctx: detached on purpose.
func firesAndForgets(ctx context.Context, id int) {
	go func() {
		fetchID(context.Background(), id)
	}()
}

func before(ctx context.Context) error { return ctx.Err() }

func after(ctx context.Context) error { return ctx.Err() }

// reassigned runs only after under the fresh context: before saw the
// caller's.
func reassigned(ctx context.Context) {
	before(ctx)
	ctx = context.Background() // want `context.Background\(\) in reassigned cuts off ctx: work under after keeps running`
	after(ctx)
}

type store struct {
	ctx context.Context
}

// Get runs its query under the store's lifetime context, not its caller's.
func (s *store) Get(ctx context.Context, id int) error {
	return fetchID(s.ctx, id) // want `Get is given its caller.s ctx but runs fetchID under the receiver.s stored context s.ctx: the call ignores the caller.s deadline and cancellation and runs until s.ctx ends`
}

// Run is the store's worker: it lives as long as the store's context.
func (s *store) Run(ctx context.Context, ids <-chan int) {
	for {
		select {
		case <-s.ctx.Done():
			return
		case id := <-ids:
			fetchID(s.ctx, id)
		}
	}
}

// Warm starts work for the store's lifetime in a goroutine.
func (s *store) Warm(ctx context.Context, id int) {
	go func() { fetchID(s.ctx, id) }()
}

// Close runs its teardown under the store's context.
func (s *store) Close(ctx context.Context) error { return fetchID(s.ctx, 0) }

// Peek takes no context: the stored one is all it has.
func (s *store) Peek(id int) error { return fetchID(s.ctx, id) }

func queryBoth(ctx, life context.Context) error { return ctx.Err() }

// Both hands the callee its caller's context and the stored one: the
// callee decides what each is for.
func (s *store) Both(ctx context.Context) error { return queryBoth(ctx, s.ctx) }

// bgStore's context is Background wherever the package sets it.
type bgStore struct {
	ctx context.Context
}

func newBGStore() *bgStore { return &bgStore{ctx: context.Background()} }

func (s *bgStore) Get(ctx context.Context, id int) error {
	return fetchID(s.ctx, id) // want `Get is given its caller's ctx but runs fetchID under the receiver's stored context s.ctx: the call ignores the caller's deadline and cancellation and is never canceled \(every value the package stores in s.ctx is a context that cannot end\)`
}

// Delete uses the stored context twice: one finding, the second use related.
func (s *bgStore) Delete(ctx context.Context, id int) error {
	if err := fetchID(s.ctx, id); err != nil { // want `Delete is given its caller's ctx but runs fetchID under the receiver's stored context s.ctx`
		return err
	}
	return fetchID(s.ctx, id+1)
}

// Start stores its caller's context and then runs under the field: on
// every path the field holds the caller's context there.
func (s *store) Start(ctx context.Context) error {
	s.ctx = ctx
	return fetchID(s.ctx, 1)
}

// StartDerived stores a context derived from its caller's.
func (s *store) StartDerived(ctx context.Context, short bool) error {
	if short {
		var cancel context.CancelFunc
		s.ctx, cancel = context.WithCancel(ctx)
		defer cancel()
	} else {
		s.ctx = context.WithValue(ctx, storeKey{}, 1)
	}
	return fetchID(s.ctx, 2)
}

type storeKey struct{}

// StartMaybe stores the caller's context on one path only: on the other
// the field still holds whatever an earlier call left in it.
func (s *store) StartMaybe(ctx context.Context, reset bool) error {
	if reset {
		s.ctx = ctx
	}
	return fetchID(s.ctx, 3) // want `StartMaybe is given its caller's ctx but runs fetchID under the receiver's stored context s.ctx`
}

// StartLate reads the field before it stores the caller's context.
func (s *store) StartLate(ctx context.Context) error {
	err := fetchID(s.ctx, 4) // want `StartLate is given its caller's ctx but runs fetchID under the receiver's stored context s.ctx`
	s.ctx = ctx
	return err
}

// StartDetached stores a context that keeps only the caller's values.
func (s *store) StartDetached(ctx context.Context) error {
	s.ctx = context.WithoutCancel(ctx)
	return fetchID(s.ctx, 5) // want `StartDetached is given its caller's ctx but runs fetchID under the receiver's stored context s.ctx`
}
