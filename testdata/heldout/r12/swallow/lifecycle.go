package swallow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log"
	"sync"
)

// FunctionSpec is a serverless function configuration.
type FunctionSpec struct {
	Name    string
	Memory  int
	Timeout int
}

// LambdaAPI updates function configuration.
type LambdaAPI interface {
	UpdateConfiguration(ctx context.Context, fn FunctionSpec) (string, error)
}

// ErrConflict is returned while a previous update is still in progress.
var ErrConflict = errors.New("resource conflict: update in progress")

// LambdaClient deploys functions.
type LambdaClient struct {
	api         LambdaAPI
	maxAttempts int
	logger      *log.Logger
}

// UpdateFunction updates the configuration, retrying while an update is in progress.
// From: pipe-cd/pipecd#1597
// bug: swallowcancel
func (c *LambdaClient) UpdateFunction(ctx context.Context, fn FunctionSpec) error {
	var err error
	for attempt := 0; attempt < c.maxAttempts; attempt++ {
		_, err := c.api.UpdateConfiguration(ctx, fn)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			break
		}
		c.logger.Printf("update %s: attempt %d conflicted, retrying", fn.Name, attempt)
	}
	if err != nil {
		return fmt.Errorf("update function %s: %w", fn.Name, err)
	}
	return nil
}

// UpdateFunctionNearMiss assigns to the outer error so the last failure is returned.
// ok: swallowcancel
func (c *LambdaClient) UpdateFunctionNearMiss(ctx context.Context, fn FunctionSpec) error {
	var err error
	for attempt := 0; attempt < c.maxAttempts; attempt++ {
		_, err = c.api.UpdateConfiguration(ctx, fn)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrConflict) {
			break
		}
		c.logger.Printf("update %s: attempt %d conflicted, retrying", fn.Name, attempt)
	}
	if err != nil {
		return fmt.Errorf("update function %s: %w", fn.Name, err)
	}
	return nil
}

// PDU is one SNMP variable binding.
type PDU struct {
	OID   string
	Value []byte
}

// BulkGetter issues GETBULK requests.
type BulkGetter interface {
	GetBulk(ctx context.Context, oid string, maxReps int) ([]PDU, error)
}

// Session is an SNMP session.
type Session struct {
	agent   BulkGetter
	maxReps int
}

// inSubtree reports whether oid is below root.
// ok: swallowcancel
func inSubtree(root, oid string) bool {
	return len(oid) > len(root) && oid[:len(root)] == root && oid[len(root)] == '.'
}

// BulkWalk walks the subtree under root with GETBULK requests.
// From: gosnmp/gosnmp#42
// bug: swallowcancel
func (s *Session) BulkWalk(ctx context.Context, root string) (pdus []PDU, err error) {
	oid := root
	for {
		resp, err := s.agent.GetBulk(ctx, oid, s.maxReps)
		if err != nil {
			break
		}
		if len(resp) == 0 {
			break
		}
		for _, p := range resp {
			if !inSubtree(root, p.OID) {
				return pdus, nil
			}
			pdus = append(pdus, p)
		}
		oid = resp[len(resp)-1].OID
	}
	return pdus, err
}

// BulkWalkNearMiss assigns the request error to the named result.
// ok: swallowcancel
func (s *Session) BulkWalkNearMiss(ctx context.Context, root string) (pdus []PDU, err error) {
	oid := root
	for {
		var resp []PDU
		resp, err = s.agent.GetBulk(ctx, oid, s.maxReps)
		if err != nil {
			break
		}
		if len(resp) == 0 {
			break
		}
		for _, p := range resp {
			if !inSubtree(root, p.OID) {
				return pdus, nil
			}
			pdus = append(pdus, p)
		}
		oid = resp[len(resp)-1].OID
	}
	return pdus, err
}

// Proc is a child process managed by the reload runner.
type Proc interface {
	Interrupt() error
	Wait(ctx context.Context) error
}

// Runner rebuilds and restarts the application.
type Runner struct {
	mu    sync.Mutex
	name  string
	proc  Proc
	spawn func() (Proc, error)
}

// Restart stops the running process and starts a new one.
// From: codegangsta/gin#95
// bug: swallowcancel
func (r *Runner) Restart(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc != nil {
		if err := r.proc.Interrupt(); err != nil {
			return fmt.Errorf("interrupt %s: %w", r.name, err)
		}
		r.proc.Wait(ctx)
		r.proc = nil
	}
	p, err := r.spawn()
	if err != nil {
		return fmt.Errorf("spawn %s: %w", r.name, err)
	}
	r.proc = p
	return nil
}

// RestartNearMiss only spawns the replacement once the old process has exited.
// ok: swallowcancel
func (r *Runner) RestartNearMiss(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc != nil {
		if err := r.proc.Interrupt(); err != nil {
			return fmt.Errorf("interrupt %s: %w", r.name, err)
		}
		if err := r.proc.Wait(ctx); err != nil {
			return fmt.Errorf("wait for %s to exit: %w", r.name, err)
		}
		r.proc = nil
	}
	p, err := r.spawn()
	if err != nil {
		return fmt.Errorf("spawn %s: %w", r.name, err)
	}
	r.proc = p
	return nil
}

// Group runs functions on goroutines and collects the first error.
type Group struct {
	wg   sync.WaitGroup
	once sync.Once
	err  error
}

// Go runs f on a new goroutine tracked by the group.
// ok: swallowcancel
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.once.Do(func() { g.err = err })
		}
	}()
}

// Wait blocks until every function returned and reports the first error.
// ok: swallowcancel
func (g *Group) Wait() error {
	g.wg.Wait()
	return g.err
}

// Instance is one consensus instance.
type Instance interface {
	Run(ctx context.Context) error
}

// Module runs consensus instances.
type Module struct {
	instances []Instance
	bootstrap func(ctx context.Context) error
}

// Run starts all instances, bootstraps, and waits for the instances on return.
// From: filecoin-project/go-f3#403
// bug: swallowcancel
func (m *Module) Run(ctx context.Context) error {
	var err error
	var workers Group
	defer func() {
		if werr := workers.Wait(); werr != nil && err == nil {
			err = werr
		}
	}()
	for _, inst := range m.instances {
		workers.Go(func() error { return inst.Run(ctx) })
	}
	err = m.bootstrap(ctx)
	return err
}

// RunNearMiss uses a named result so the deferred assignment is returned.
// ok: swallowcancel
func (m *Module) RunNearMiss(ctx context.Context) (err error) {
	var workers Group
	defer func() {
		if werr := workers.Wait(); werr != nil && err == nil {
			err = werr
		}
	}()
	for _, inst := range m.instances {
		workers.Go(func() error { return inst.Run(ctx) })
	}
	err = m.bootstrap(ctx)
	return err
}

// HSMSession is a token session checked out of a pool.
type HSMSession interface {
	SignDigest(ctx context.Context, keyID string, digest []byte) ([]byte, error)
}

// SessionPool hands out HSM sessions.
type SessionPool interface {
	Acquire(ctx context.Context) (HSMSession, error)
	Release(s HSMSession) error
}

// Signer signs digests with keys held in the HSM.
type Signer struct {
	pool SessionPool
}

// Sign signs digest with a pooled session.
// From: eclipse-keypont/crypto11#27
// bug: swallowcancel
func (s *Signer) Sign(ctx context.Context, keyID string, digest []byte) (sig []byte, err error) {
	sess, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire session: %w", err)
	}
	defer func() {
		err = s.pool.Release(sess)
	}()
	return sess.SignDigest(ctx, keyID, digest)
}

// SignNearMiss only reports the release error when signing itself succeeded.
// ok: swallowcancel
func (s *Signer) SignNearMiss(ctx context.Context, keyID string, digest []byte) (sig []byte, err error) {
	sess, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire session: %w", err)
	}
	defer func() {
		if rerr := s.pool.Release(sess); err == nil {
			err = rerr
		}
	}()
	return sess.SignDigest(ctx, keyID, digest)
}

// Image is a cached build image.
type Image struct {
	Ref  string
	Size int64
}

// ImageStore lists and removes cached images.
type ImageStore interface {
	Images(ctx context.Context) iter.Seq2[Image, error]
	Remove(ctx context.Context, ref string) error
}

// HostLock serialises host cleanup between processes.
type HostLock interface {
	Lock(ctx context.Context, name string) error
	Unlock(name string) error
}

// Cleaner frees disk space on the build host.
type Cleaner struct {
	store ImageStore
	lock  HostLock
	keep  func(Image) bool
	freed int64
}

// Cleanup removes images that are no longer kept, holding the host lock.
// From: werf/werf#6732
// bug: swallowcancel
func (c *Cleaner) Cleanup(ctx context.Context) (err error) {
	if err := c.lock.Lock(ctx, "host-cleanup"); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() {
		err = c.lock.Unlock("host-cleanup")
	}()
	for img, ierr := range c.store.Images(ctx) {
		if ierr != nil {
			return fmt.Errorf("list images: %w", ierr)
		}
		if c.keep(img) {
			continue
		}
		if err := c.store.Remove(ctx, img.Ref); err != nil {
			return fmt.Errorf("remove %s: %w", img.Ref, err)
		}
		c.freed += img.Size
	}
	return nil
}

// CleanupNearMiss keeps the first error when unlocking.
// ok: swallowcancel
func (c *Cleaner) CleanupNearMiss(ctx context.Context) (err error) {
	if err := c.lock.Lock(ctx, "host-cleanup"); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() {
		err = errors.Join(err, c.lock.Unlock("host-cleanup"))
	}()
	for img, ierr := range c.store.Images(ctx) {
		if ierr != nil {
			return fmt.Errorf("list images: %w", ierr)
		}
		if c.keep(img) {
			continue
		}
		if err := c.store.Remove(ctx, img.Ref); err != nil {
			return fmt.Errorf("remove %s: %w", img.Ref, err)
		}
		c.freed += img.Size
	}
	return nil
}
