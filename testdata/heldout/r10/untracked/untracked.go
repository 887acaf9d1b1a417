// Package untracked holds service code that starts goroutines and has to
// make sure they end before their owner does.
package untracked

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Process handlers.

// Request asks for a handler process.
type Request struct {
	ID   string
	Args []string
}

// Proc is a running handler process.
type Proc interface {
	Wait() error
	Kill() error
}

// Spawner starts handler processes. The lines channel is closed by the
// spawner when the process exits; it is never closed if Spawn fails.
type Spawner interface {
	Spawn(ctx context.Context, args []string, lines chan<- string) (Proc, error)
}

// Handle is a launched handler.
type Handle struct {
	id   string
	proc Proc
}

// ProcessManager launches handler processes and forwards their output.
type ProcessManager struct {
	spawner Spawner
	logger  *log.Logger
	mu      sync.Mutex
	handles map[string]*Handle
	wg      sync.WaitGroup
}

// ok: untrackedgo
func (m *ProcessManager) forward(id string, lines <-chan string) {
	for line := range lines {
		m.logger.Printf("[%s] %s", id, line)
	}
}

// Launch starts the handler process for req and forwards its output to the log.
// From: livekit/egress#1291
// bug: untrackedgo
func (m *ProcessManager) Launch(ctx context.Context, req Request) (*Handle, error) {
	if req.ID == "" {
		return nil, errors.New("request without id")
	}
	lines := make(chan string, 64)
	go m.forward(req.ID, lines)
	proc, err := m.spawner.Spawn(ctx, req.Args, lines)
	if err != nil {
		return nil, fmt.Errorf("spawn handler %s: %w", req.ID, err)
	}
	h := &Handle{id: req.ID, proc: proc}
	m.mu.Lock()
	m.handles[req.ID] = h
	m.mu.Unlock()
	return h, nil
}

// LaunchNearMiss starts the handler process for req and forwards its output
// to the log. The forwarder starts only once the spawner owns the channel,
// and Shutdown waits for it.
// ok: untrackedgo
func (m *ProcessManager) LaunchNearMiss(ctx context.Context, req Request) (*Handle, error) {
	if req.ID == "" {
		return nil, errors.New("request without id")
	}
	lines := make(chan string, 64)
	proc, err := m.spawner.Spawn(ctx, req.Args, lines)
	if err != nil {
		return nil, fmt.Errorf("spawn handler %s: %w", req.ID, err)
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.forward(req.ID, lines)
	}()
	h := &Handle{id: req.ID, proc: proc}
	m.mu.Lock()
	m.handles[req.ID] = h
	m.mu.Unlock()
	return h, nil
}

// Shutdown kills every handler and waits for their forwarders.
// ok: untrackedgo
func (m *ProcessManager) Shutdown() error {
	m.mu.Lock()
	var errs []error
	for id, h := range m.handles {
		if err := h.proc.Kill(); err != nil {
			errs = append(errs, fmt.Errorf("kill %s: %w", id, err))
		}
		delete(m.handles, id)
	}
	m.mu.Unlock()
	m.wg.Wait()
	return errors.Join(errs...)
}

// ---------------------------------------------------------------------------
// Finality waiting.

// Peer confirms that a transaction is final on its ledger.
type Peer interface {
	Confirm(ctx context.Context, txID string) error
}

// FinalityWaiter waits for a transaction to be final on every peer.
type FinalityWaiter struct {
	peers []Peer
}

// WaitFinality asks every peer to confirm txID and waits up to timeout for all of them.
// From: LFDT-Panurus/panurus#2124
// bug: untrackedgo
func (f *FinalityWaiter) WaitFinality(ctx context.Context, txID string, timeout time.Duration) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i, p := range f.peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Confirm(ctx, txID); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("peer %d: %w", i, err))
				mu.Unlock()
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
		mu.Lock()
		defer mu.Unlock()
		return errors.Join(errs...)
	case <-t.C:
		return fmt.Errorf("finality of %s not confirmed by all peers within %s", txID, timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitFinalityNearMiss asks every peer to confirm txID and waits up to
// timeout for all of them. The confirmations run under the timeout's
// context and are always waited for.
// ok: untrackedgo
func (f *FinalityWaiter) WaitFinalityNearMiss(ctx context.Context, txID string, timeout time.Duration) error {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i, p := range f.peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Confirm(cctx, txID); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("peer %d: %w", i, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := cctx.Err(); err != nil {
		return fmt.Errorf("finality of %s not confirmed by all peers within %s: %w", txID, timeout, err)
	}
	return errors.Join(errs...)
}

// ---------------------------------------------------------------------------
// Task workers.

// TaskClient talks to the task frontend.
type TaskClient interface {
	Register(ctx context.Context, taskList string) error
	Poll(ctx context.Context, taskList string) (func(context.Context) error, error)
	Heartbeat(ctx context.Context, taskList string) error
}

// Worker polls a task list. Stop cancels the worker and waits on wg.
type Worker struct {
	client   TaskClient
	taskList string
	pollers  int
	interval time.Duration
	logger   *log.Logger
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// ok: untrackedgo
func (w *Worker) poll(ctx context.Context, id int) {
	for ctx.Err() == nil {
		task, err := w.client.Poll(ctx, w.taskList)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.logger.Printf("poller %d: %v", id, err)
			continue
		}
		if err := task(ctx); err != nil && ctx.Err() == nil {
			w.logger.Printf("poller %d: task failed: %v", id, err)
		}
	}
}

// ok: untrackedgo
func (w *Worker) heartbeat(ctx context.Context) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := w.client.Heartbeat(ctx, w.taskList); err != nil && ctx.Err() == nil {
				w.logger.Printf("heartbeat: %v", err)
			}
		}
	}
}

// Start registers the task list and launches the pollers and the heartbeat loop.
// From: cadence-workflow/cadence-go-client#1129
// bug: untrackedgo
func (w *Worker) Start(ctx context.Context) error {
	if err := w.client.Register(ctx, w.taskList); err != nil {
		return fmt.Errorf("register %s: %w", w.taskList, err)
	}
	ctx, w.cancel = context.WithCancel(ctx)
	for i := 0; i < w.pollers; i++ {
		w.wg.Add(1)
		go func(id int) {
			defer w.wg.Done()
			w.poll(ctx, id)
		}(i)
	}
	go w.heartbeat(ctx)
	return nil
}

// StartNearMiss registers the task list and launches the pollers and the
// heartbeat loop, all of them tracked by wg.
// ok: untrackedgo
func (w *Worker) StartNearMiss(ctx context.Context) error {
	if err := w.client.Register(ctx, w.taskList); err != nil {
		return fmt.Errorf("register %s: %w", w.taskList, err)
	}
	ctx, w.cancel = context.WithCancel(ctx)
	for i := 0; i < w.pollers; i++ {
		w.wg.Add(1)
		go func(id int) {
			defer w.wg.Done()
			w.poll(ctx, id)
		}(i)
	}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		w.heartbeat(ctx)
	}()
	return nil
}

// Stop cancels the worker and waits for its goroutines.
// ok: untrackedgo
func (w *Worker) Stop() {
	if w.cancel != nil {
		w.cancel()
	}
	w.wg.Wait()
}

// ---------------------------------------------------------------------------
// Request handlers.

// SignupRequest is the signup form.
type SignupRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// User is a created account.
type User struct {
	ID    string
	Email string
}

// UserStore creates accounts.
type UserStore interface {
	Create(ctx context.Context, email, password string) (*User, error)
}

// Mailer sends mail synchronously.
type Mailer interface {
	Send(to, subject, body string) error
}

// AuditLog appends audit records synchronously.
type AuditLog interface {
	Append(kind, subject string, at time.Time) error
}

// SignupHandler creates accounts. Drain waits on bg before the process exits.
type SignupHandler struct {
	users  UserStore
	mailer Mailer
	audit  AuditLog
	logger *log.Logger
	bg     sync.WaitGroup
}

// ok: untrackedgo
func (h *SignupHandler) sendVerification(u *User) {
	if err := h.mailer.Send(u.Email, "Verify your account", "Welcome, follow the link to verify."); err != nil {
		h.logger.Printf("verification mail to %s: %v", u.ID, err)
	}
}

// ok: untrackedgo
func (h *SignupHandler) recordSignup(u *User, at time.Time) {
	if err := h.audit.Append("signup", u.ID, at); err != nil {
		h.logger.Printf("audit signup %s: %v", u.ID, err)
	}
}

// ServeHTTP creates the account, then sends the verification mail and the
// audit record in the background.
// From: authorizerdev/authorizer#696
// bug: untrackedgo
func (h *SignupHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req SignupRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "malformed request", http.StatusBadRequest)
		return
	}
	user, err := h.users.Create(r.Context(), req.Email, req.Password)
	if err != nil {
		http.Error(w, "could not create account", http.StatusInternalServerError)
		return
	}
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		h.sendVerification(user)
	}()
	go h.recordSignup(user, time.Now())
	w.WriteHeader(http.StatusCreated)
	_, _ = fmt.Fprintf(w, `{"id":%q}`, user.ID)
}

// ServeHTTPNearMiss creates the account, then sends the verification mail
// and the audit record in the background, both tracked by bg.
// ok: untrackedgo
func (h *SignupHandler) ServeHTTPNearMiss(w http.ResponseWriter, r *http.Request) {
	var req SignupRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "malformed request", http.StatusBadRequest)
		return
	}
	user, err := h.users.Create(r.Context(), req.Email, req.Password)
	if err != nil {
		http.Error(w, "could not create account", http.StatusInternalServerError)
		return
	}
	now := time.Now()
	h.bg.Add(2)
	go func() {
		defer h.bg.Done()
		h.sendVerification(user)
	}()
	go func() {
		defer h.bg.Done()
		h.recordSignup(user, now)
	}()
	w.WriteHeader(http.StatusCreated)
	_, _ = fmt.Fprintf(w, `{"id":%q}`, user.ID)
}

// Drain waits for the background work of every handled request.
// ok: untrackedgo
func (h *SignupHandler) Drain() {
	h.bg.Wait()
}

// ---------------------------------------------------------------------------
// Refilling limiters.

// BurstLimiter hands out slots that are refilled at a steady rate.
type BurstLimiter struct {
	slots chan time.Time
	done  chan struct{}
	once  sync.Once
	wg    sync.WaitGroup
}

// Take blocks until a slot is free or ctx ends.
// ok: untrackedgo
func (l *BurstLimiter) Take(ctx context.Context) error {
	select {
	case <-l.slots:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// NewBurstLimiter returns a limiter that allows burst takes at once and
// refills one slot every interval.
// From: mmcgrana/gobyexample#152
// bug: untrackedgo
func NewBurstLimiter(burst int, interval time.Duration) *BurstLimiter {
	l := &BurstLimiter{slots: make(chan time.Time, burst), done: make(chan struct{})}
	for i := 0; i < burst; i++ {
		l.slots <- time.Now()
	}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for now := range t.C {
			l.slots <- now
		}
	}()
	return l
}

// NewBurstLimiterNearMiss returns a limiter that allows burst takes at once
// and refills one slot every interval until Close.
// ok: untrackedgo
func NewBurstLimiterNearMiss(burst int, interval time.Duration) *BurstLimiter {
	l := &BurstLimiter{slots: make(chan time.Time, burst), done: make(chan struct{})}
	for i := 0; i < burst; i++ {
		l.slots <- time.Now()
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-l.done:
				return
			case now := <-t.C:
				select {
				case l.slots <- now:
				case <-l.done:
					return
				}
			}
		}
	}()
	return l
}

// Close stops the refill loop and waits for it.
// ok: untrackedgo
func (l *BurstLimiter) Close() {
	l.once.Do(func() { close(l.done) })
	l.wg.Wait()
}
