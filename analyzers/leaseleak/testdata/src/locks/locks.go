package locks

import (
	"context"
	"errors"
	"sync"

	"golang.org/x/sync/semaphore"
)

type dispatcher struct {
	mu    sync.Mutex
	cond  *sync.Cond
	state int
}

// The lock is kept when the context ends (after a real swarmkit bug).
func (d *dispatcher) markReady(ctx context.Context) error {
	d.mu.Lock() // want `d.mu is locked here but the mutex is not unlocked on the path through the return in case <-ctx.Done\(\), so the next Lock blocks forever`
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	d.cond.Wait()
	d.mu.Unlock()
	return nil
}

// An error return between Lock and Unlock.
func (d *dispatcher) set(v int) error {
	d.mu.Lock() // want `d.mu is locked here but the mutex is not unlocked on the path through the return when v < 0`
	if v < 0 {
		return errors.New("negative")
	}
	d.state = v
	d.mu.Unlock()
	return nil
}

type cache struct {
	mu sync.RWMutex
	m  map[string]int
}

func (c *cache) get(k string) (int, bool) {
	c.mu.RLock() // want `c.mu is read-locked here but the read lock is not released on the path through the return when !ok`
	v, ok := c.m[k]
	if !ok {
		return 0, false
	}
	c.mu.RUnlock()
	return v, true
}

var sem = semaphore.NewWeighted(4)

// The weight is kept when the work fails.
func limited(ctx context.Context, f func() error) error {
	if err := sem.Acquire(ctx, 1); err != nil { // want `sem is acquired here but the semaphore weight is not released on the path through the return when err != nil, so later Acquire calls block forever`
		return err
	}
	if err := f(); err != nil {
		return err
	}
	sem.Release(1)
	return nil
}

// ---- near misses ----

func (d *dispatcher) deferred(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	d.state++
	return nil
}

func (d *dispatcher) branches(v int) error {
	d.mu.Lock()
	if v < 0 {
		d.mu.Unlock()
		return errors.New("negative")
	}
	d.state = v
	d.mu.Unlock()
	return nil
}

// A function that only locks hands the lock to its caller.
func (d *dispatcher) lock() { d.mu.Lock() }

// Unlocked through a helper of the same type.
func (d *dispatcher) viaHelper(v int) error {
	d.mu.Lock()
	if v < 0 {
		d.unlockAndSignal()
		return errors.New("negative")
	}
	d.state = v
	d.mu.Unlock()
	return nil
}

func (d *dispatcher) unlockAndSignal() {
	d.cond.Broadcast()
	d.mu.Unlock()
}

// The weight is released by the goroutine.
func spawn(ctx context.Context, f func()) error {
	if err := sem.Acquire(ctx, 1); err != nil {
		return err
	}
	go func() {
		defer sem.Release(1)
		f()
	}()
	return nil
}

// Lock and unlock in a loop.
func (c *cache) sum(keys []string) int {
	n := 0
	for _, k := range keys {
		c.mu.RLock()
		n += c.m[k]
		c.mu.RUnlock()
	}
	return n
}

var cache10 struct {
	sync.Mutex
	table []int
}

// The lock is taken and released under the same unchanging condition.
func table(b int) []int {
	var t []int
	if b == 10 {
		cache10.Lock()
		t = cache10.table
	}
	if len(t) == 0 {
		t = make([]int, 4)
	}
	if b == 10 {
		cache10.Unlock()
	}
	return t
}

// Called with the lock held: unlock, wait, lock again.
func (d *dispatcher) waitUnlocked(ctx context.Context) error {
	d.mu.Unlock()
	err := ctx.Err()
	d.mu.Lock()
	if err != nil {
		return err
	}
	return nil
}

// A deferred unlock registered before the re-lock covers it.
func (d *dispatcher) relock(slow func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mu.Unlock()
	slow()
	d.mu.Lock()
}

type rows struct {
	closemu  sync.RWMutex
	scanHold bool
}

// The owner records that it still holds the read lock.
func (r *rows) scan(raw bool) error {
	r.closemu.RLock()
	if raw {
		r.scanHold = true
	} else {
		r.closemu.RUnlock()
	}
	return nil
}

// The unlock is handed to the caller as a method value.
func (r *rows) grab() (func(), error) {
	r.closemu.RLock()
	if r.scanHold {
		r.closemu.RUnlock()
		return nil, errors.New("held")
	}
	return r.release, nil
}

func (r *rows) release() { r.closemu.RUnlock() }

// A mutex used to wait for a goroutine: the goroutine unlocks it.
func waitWithMutex(work func()) {
	var m sync.Mutex
	m.Lock()
	go func() {
		work()
		m.Unlock()
	}()
	m.Lock() // wait
}

// The unlock is in a callback that runs elsewhere; the final Lock reads
// the shared state at the end.
func callbacks(register func(func())) bool {
	var mu sync.Mutex
	seen := false
	register(func() {
		mu.Lock()
		seen = true
		mu.Unlock()
	})
	mu.Lock()
	return seen
}

// Weights are counted: a Release of another weight does not pair with this
// Acquire (a test of the semaphore itself).
func counted(ctx context.Context, s *semaphore.Weighted) bool {
	s.Release(2)
	_ = s.Acquire(ctx, 1)
	return s.TryAcquire(1)
}

// ---- double unlock ----

// An explicit unlock before a return, with the deferred one still pending.
func (d *dispatcher) early(v int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if v < 0 {
		d.mu.Unlock() // want `d.mu is unlocked here and again by the deferred Unlock when the function returns through the return when v < 0, so the program dies with "fatal error: sync: unlock of unlocked mutex"`
		return 0
	}
	return d.state
}

// Unlocked in a branch, then again after it.
func (d *dispatcher) twice(v int) {
	d.mu.Lock()
	if v > 0 {
		d.state = v
		d.mu.Unlock()
	}
	d.mu.Unlock() // want `d.mu is unlocked here although it was already unlocked on the way and not locked again`
}

// Near miss: unlock, slow work, lock again before the deferred unlock.
func (d *dispatcher) unlockForWork(work func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mu.Unlock()
	work()
	d.mu.Lock()
}

// Near miss: each branch unlocks once.
func (d *dispatcher) once(v int) {
	d.mu.Lock()
	if v > 0 {
		d.state = v
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
}

// Near miss: unlock and lock in a loop.
func (d *dispatcher) loop(n int, work func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := 0; i < n; i++ {
		d.mu.Unlock()
		work()
		d.mu.Lock()
	}
}

type node struct {
	mu   sync.Mutex
	next *node
}

// Near miss: hand-over-hand locking; y names another node after y = l.
func walk(x *node) {
	y := x
	for y.next != nil {
		l := y.next
		if y != x {
			y.mu.Unlock()
		}
		l.mu.Lock()
		y = l
	}
	if y != x {
		y.mu.Unlock()
	}
}

// Near miss: TryLock locks again.
func hammer(m *sync.Mutex, n int) {
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			if m.TryLock() {
				m.Unlock()
			}
			continue
		}
		m.Lock()
		m.Unlock()
	}
}

// Near miss: read locks are counted.
func (c *cache) nested() {
	c.mu.RLock()
	c.mu.RLock()
	c.mu.RUnlock()
	c.mu.RUnlock()
}

// Near-miss: a closure of the function unlocks, and the error path
// relocks before calling it (an async publisher's ack handler).
func (d *dispatcher) ack(id int, fail func(int) error) {
	d.mu.Lock()
	doErr := func(err error) {
		d.state = -1
		d.mu.Unlock()
	}
	if id < 0 {
		d.mu.Unlock()
		if err := fail(id); err != nil {
			d.mu.Lock()
			doErr(err)
		}
		return
	}
	d.state = id
	d.mu.Unlock()
}

// The closure unlocks another lock: the error path still leaks d.mu.
func (d *dispatcher) ackOther(id int, other *sync.Mutex, fail func(int) error) {
	d.mu.Lock()
	doErr := func(err error) {
		other.Unlock()
	}
	if id < 0 {
		d.mu.Unlock()
		if err := fail(id); err != nil {
			d.mu.Lock() // want `d.mu is locked here but the mutex is not unlocked on the path through the return`
			doErr(err)
		}
		return
	}
	d.mu.Unlock()
}

// Near-miss: the same from a retry callback that relocks and calls its
// parent's closure.
func (d *dispatcher) ackLater(id int, fail func(int) error) {
	d.mu.Lock()
	doErr := func(err error) {
		d.state = -1
		d.mu.Unlock()
	}
	if id < 0 {
		go func() {
			d.mu.Lock()
			if id == -1 {
				d.mu.Unlock()
				return
			}
			d.mu.Unlock()
			if err := fail(id); err != nil {
				d.mu.Lock()
				doErr(err)
			}
		}()
		d.mu.Unlock()
		return
	}
	d.state = id
	d.mu.Unlock()
}

// One bug, one finding: the re-Lock in the wait loop leaks through the same
// return as the first Lock, and is not reported again.
func (d *dispatcher) take(ctx context.Context, wait func()) error {
	d.mu.Lock() // want `d.mu is locked here but the mutex is not unlocked on the path through the return when err != nil`
	for d.state == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		d.mu.Unlock()
		wait()
		d.mu.Lock()
	}
	d.state--
	d.mu.Unlock()
	return nil
}

// Near-miss: a goroutine takes the lock and leaves it held for this
// function, which unlocks it once the goroutine says so.
func (d *dispatcher) waitForRoom(ctx context.Context) {
	d.mu.Lock()
	if d.state > 0 {
		d.state--
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.mu.Lock()
		for d.state == 0 {
			d.cond.Wait()
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		go func() {
			d.mu.Lock()
			d.state = -1
			d.mu.Unlock()
			d.cond.Broadcast()
		}()
		<-done
	}
	d.state--
	d.mu.Unlock()
}

// Near-miss: the hold is recorded in a flag, and the early return unlocks
// when the flag says so.
func (d *dispatcher) lookup(key int, cache map[int]int) int {
	v, ok := cache[key]
	held := false
	if !ok {
		d.mu.Lock()
		held = true
		v = d.state
		cache[key] = v
	}
	if v == 0 {
		if held {
			d.mu.Unlock()
		}
		return 0
	}
	if !held {
		d.mu.Lock()
	}
	d.state++
	d.mu.Unlock()
	return v
}

// The flag is set, but the early return forgets it.
func (d *dispatcher) lookupLeak(key int, cache map[int]int) int {
	v, ok := cache[key]
	held := false
	if !ok {
		d.mu.Lock() // want `d.mu is locked here but the mutex is not unlocked on the path through the return when v == 0`
		held = true
		v = d.state
	}
	if v == 0 {
		return 0
	}
	if held {
		d.mu.Unlock()
	}
	return v
}

// Near-miss: the Lock and the Unlock sit under the same parameter, which
// never changes: a path that skipped one skips the other.
func applyOps(mu *sync.Mutex, recovering bool, ops []int) {
	for _, op := range ops {
		switch op {
		case 1:
			mu.Lock()
			mu.Unlock()
		case 2:
			if recovering {
				mu.Lock()
			}
			if recovering {
				mu.Unlock()
			}
		}
	}
}

// The flag changes between the two tests: the second Unlock may run
// without the Lock.
func applyOpsChanged(mu *sync.Mutex, recovering bool, ops []int) {
	for _, op := range ops {
		switch op {
		case 1:
			mu.Lock()
			mu.Unlock()
		case 2:
			if recovering {
				mu.Lock() // want `mu is locked here but the mutex is not unlocked on the path through the return`
			}
			recovering = op > 1
			if recovering {
				mu.Unlock() // want `mu is unlocked here although it was already unlocked on the way`
			}
		}
	}
}

type sub struct {
	mu     sync.Mutex
	client *int
}

// Near-miss: both under a field the function never assigns.
func (s *sub) deliver(msgs []int) {
	for range msgs {
		if s.client != nil {
			s.mu.Lock()
		}
		if s.client != nil {
			s.mu.Unlock()
		}
	}
}

// The field is assigned between the tests.
func (s *sub) deliverReset(msgs []int, c *int) {
	for range msgs {
		if s.client != nil {
			s.mu.Lock() // want `s.mu is locked here but the mutex is not unlocked`
		}
		s.client = c
		if s.client != nil {
			s.mu.Unlock()
		}
	}
}
