package detached

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"heldoutr5b/internal/store"
)

// Feeder copies log checkpoints to a witness.
type Feeder struct {
	src, witness *store.Client
	log          *log.Logger
}

// FeedOnce reads each checkpoint with context.Background() although ctx is
// right there, so when the feeder is told to stop it keeps blocking on
// slow checkpoint reads instead of bailing out.
// From: google/trillian-examples#619
// bug: detachedctx
func (f *Feeder) FeedOnce(ctx context.Context, logIDs []string) error {
	for _, id := range logIDs {
		cp, err := f.src.Get(context.Background(), "checkpoints/"+id)
		if err != nil {
			return fmt.Errorf("read checkpoint %s: %w", id, err)
		}
		if err := f.witness.Put(ctx, "witnessed/"+id, cp); err != nil {
			return fmt.Errorf("witness %s: %w", id, err)
		}
	}
	return nil
}

// FeedOnceCtx uses the passed-in context for both calls.
// ok: detachedctx
func (f *Feeder) FeedOnceCtx(ctx context.Context, logIDs []string) error {
	for _, id := range logIDs {
		cp, err := f.src.Get(ctx, "checkpoints/"+id)
		if err != nil {
			return fmt.Errorf("read checkpoint %s: %w", id, err)
		}
		if err := f.witness.Put(ctx, "witnessed/"+id, cp); err != nil {
			return fmt.Errorf("witness %s: %w", id, err)
		}
	}
	return nil
}

// withBudget runs op under its own 30s root context. It has no caller
// context to inherit from, which is fine for its context-free callers.
// ok: detachedctx
func withBudget(d time.Duration, op func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return op(ctx)
}

// withBudgetCtx runs op under d, bounded also by the caller's ctx.
// ok: detachedctx
func withBudgetCtx(ctx context.Context, d time.Duration, op func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return op(ctx)
}

// Provisioner registers nodes.
type Provisioner struct {
	c *store.Client
}

// Provision goes through withBudget, which builds its own root context, so
// the deadline and cancellation of the provisioning request never reach
// the registry write; an aborted rollout still registers the node.
// From: scaling-lightning/scaling-lightning#47
// bug: detachedctx
func (p *Provisioner) Provision(ctx context.Context, node string, spec []byte) error {
	return withBudget(30*time.Second, func(bctx context.Context) error {
		return p.c.Put(bctx, "nodes/"+node, spec)
	})
}

// ProvisionCtx uses the variant that derives from the caller's ctx.
// ok: detachedctx
func (p *Provisioner) ProvisionCtx(ctx context.Context, node string, spec []byte) error {
	return withBudgetCtx(ctx, 30*time.Second, func(bctx context.Context) error {
		return p.c.Put(bctx, "nodes/"+node, spec)
	})
}

// ProvisionBatchJob is the nightly batch entry point; it has no caller
// context, so the self-bounded withBudget is the right helper here.
// ok: detachedctx
func (p *Provisioner) ProvisionBatchJob(specs map[string][]byte) error {
	var errs []error
	for node, spec := range specs {
		errs = append(errs, withBudget(30*time.Second, func(bctx context.Context) error {
			return p.c.Put(bctx, "nodes/"+node, spec)
		}))
	}
	return errors.Join(errs...)
}

// Server is an agent that loads defaults at start-up.
type Server struct {
	c        *store.Client
	defaults map[string][]byte
}

// Bootstrap calls store.LoadDefaults, which makes its own five second root
// context in another package. Bootstrap's ctx (cancelled by SIGTERM) is not
// passed on, so a shutdown during start-up waits out the whole load.
// From: pinpoint-apm/pinpoint-go-agent#143
// bug: detachedctx
func (s *Server) Bootstrap(ctx context.Context) error {
	d, err := store.LoadDefaults(s.c)
	if err != nil {
		return fmt.Errorf("load defaults: %w", err)
	}
	s.defaults = d
	return nil
}

// BootstrapCtx calls the context-taking variant.
// ok: detachedctx
func (s *Server) BootstrapCtx(ctx context.Context) error {
	d, err := store.LoadDefaultsContext(ctx, s.c)
	if err != nil {
		return fmt.Errorf("load defaults: %w", err)
	}
	s.defaults = d
	return nil
}

// InboundCall is one in-flight RPC; it remembers the context it arrived
// with.
type InboundCall struct {
	ctx    context.Context
	c      *store.Client
	method string
}

// NewInboundCall records the call's arrival context.
// ok: detachedctx
func NewInboundCall(ctx context.Context, c *store.Client, method string) *InboundCall {
	return &InboundCall{ctx: ctx, c: c, method: method}
}

// Forward is handed a ctx (with the handler's tighter downstream deadline)
// but reads with the receiver's stored arrival context, so the downstream
// deadline is ignored.
// From: uber/zanzibar#513
// bug: detachedctx
func (ic *InboundCall) Forward(ctx context.Context, key string) ([]byte, error) {
	return ic.c.Get(ic.ctx, ic.method+"/"+key)
}

// ForwardCtx uses the ctx parameter.
// ok: detachedctx
func (ic *InboundCall) ForwardCtx(ctx context.Context, key string) ([]byte, error) {
	return ic.c.Get(ctx, ic.method+"/"+key)
}

// Releaser rolls back deployed releases.
type Releaser struct {
	c *store.Client
}

// rollback restores a release's previous manifest.
// ok: detachedctx
func (r *Releaser) rollback(ctx context.Context, name string) error {
	prev, err := r.c.Get(ctx, "releases/"+name+"/previous")
	if err != nil {
		return err
	}
	return r.c.Put(ctx, "releases/"+name+"/current", prev)
}

// RollbackAll waits for one goroutine per release, but each runs on
// context.Background(); when the HTTP request is canceled the handler
// stays blocked in wg.Wait until every rollback finishes anyway.
// From: kubernetes-sigs/headlamp#6301
// bug: detachedctx
func (r *Releaser) RollbackAll(ctx context.Context, names []string) error {
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Go(func() {
			errs[i] = r.rollback(context.Background(), name)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// RollbackAllCtx passes the request context into each goroutine.
// ok: detachedctx
func (r *Releaser) RollbackAllCtx(ctx context.Context, names []string) error {
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, name := range names {
		wg.Go(func() {
			errs[i] = r.rollback(ctx, name)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// MCPServer is a tool server the gateway initialises.
type MCPServer struct {
	Name string
	c    *store.Client
}

// Initialize performs the server's handshake.
// ok: detachedctx
func (m *MCPServer) Initialize(ctx context.Context) error {
	_, err := m.c.Get(ctx, "mcp/"+m.Name+"/capabilities")
	return err
}

// Gateway fronts several MCP servers.
type Gateway struct {
	servers []*MCPServer
}

// InitServers initialises servers in an errgroup, but each goroutine gives
// itself a 60s context rooted at Background instead of the group context,
// so shutdown during start-up waits for every handshake to time out.
// From: ferro-labs/ai-gateway#181
// bug: detachedctx
func (g *Gateway) InitServers(ctx context.Context) error {
	var eg errgroup.Group
	for _, s := range g.servers {
		eg.Go(func() error {
			ictx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := s.Initialize(ictx); err != nil {
				return fmt.Errorf("init %s: %w", s.Name, err)
			}
			return nil
		})
	}
	return eg.Wait()
}

// InitServersCtx derives each 60s budget from the group's context.
// ok: detachedctx
func (g *Gateway) InitServersCtx(ctx context.Context) error {
	eg, gctx := errgroup.WithContext(ctx)
	for _, s := range g.servers {
		eg.Go(func() error {
			ictx, cancel := context.WithTimeout(gctx, 60*time.Second)
			defer cancel()
			if err := s.Initialize(ictx); err != nil {
				return fmt.Errorf("init %s: %w", s.Name, err)
			}
			return nil
		})
	}
	return eg.Wait()
}

// Locker holds advisory locks in the store.
type Locker struct {
	c *store.Client
}

// WithLock runs fn holding key. The release deliberately leaves the
// caller's cancellation behind with context.WithoutCancel (bounded by its
// own timeout): when fn returns because ctx was canceled, the lock must
// still be deleted, which a canceled ctx could not do.
// ok: detachedctx
func (l *Locker) WithLock(ctx context.Context, key string, fn func(context.Context) error) (err error) {
	if err := l.c.Put(ctx, "locks/"+key, []byte("held")); err != nil {
		return fmt.Errorf("lock %s: %w", key, err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if rerr := l.c.Delete(rctx, "locks/"+key); rerr != nil && err == nil {
			err = fmt.Errorf("unlock %s: %w", key, rerr)
		}
	}()
	return fn(ctx)
}

// Compactor runs for the life of its owner; its lifetime context is stored
// at construction and its methods take no ctx parameter.
type Compactor struct {
	ctx      context.Context
	c        *store.Client
	interval time.Duration
}

// NewCompactor binds the compactor to its owner's lifetime context.
// ok: detachedctx
func NewCompactor(ctx context.Context, c *store.Client, interval time.Duration) *Compactor {
	return &Compactor{ctx: ctx, c: c, interval: interval}
}

// Run compacts until the stored lifetime context ends. Using the stored
// context is correct here: there is no per-call ctx parameter to prefer.
// ok: detachedctx
func (cp *Compactor) Run() error {
	for {
		if err := cp.c.Delete(cp.ctx, "tombstones/oldest"); err != nil {
			return err
		}
		if err := store.Sleep(cp.ctx, cp.interval); err != nil {
			return err
		}
	}
}

// Main is the process entry point: a root context from Background with
// signal handling is exactly what main should create.
// ok: detachedctx
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &Server{c: store.NewClient(time.Millisecond)}
	if err := srv.BootstrapCtx(ctx); err != nil {
		log.Printf("bootstrap: %v", err)
		return 1
	}
	if err := NewCompactor(ctx, srv.c, time.Minute).Run(); err != nil && !errors.Is(err, context.Canceled) {
		log.Printf("compactor: %v", err)
		return 1
	}
	return 0
}
