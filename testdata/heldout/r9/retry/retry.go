// Package retry holds retry, poll and reconnect loops, some of which keep
// going after their context is done.
package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Generic retry helper (avast/retry-go#61)
// ---------------------------------------------------------------------------

// RetryableFunc is the operation being retried.
type RetryableFunc func() error

// Config holds retry options.
type Config struct {
	attempts uint // 0 means retry until success
	delay    time.Duration
	maxDelay time.Duration
	ctx      context.Context
	onRetry  func(n uint, err error)
	retryIf  func(error) bool
}

// Option configures a retry.
type Option func(*Config)

// Attempts sets the number of attempts; 0 retries forever.
// ok: retrycancel
func Attempts(n uint) Option { return func(c *Config) { c.attempts = n } }

// Context sets the context that bounds the retry.
// ok: retrycancel
func Context(ctx context.Context) Option { return func(c *Config) { c.ctx = ctx } }

// Delay sets the base delay.
// ok: retrycancel
func Delay(d time.Duration) Option { return func(c *Config) { c.delay = d } }

// ok: retrycancel
func newConfig(opts []Option) *Config {
	c := &Config{
		attempts: 10,
		delay:    100 * time.Millisecond,
		maxDelay: 30 * time.Second,
		ctx:      context.Background(),
		onRetry:  func(uint, error) {},
		retryIf:  func(error) bool { return true },
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// ok: retrycancel
func (c *Config) backoff(n uint) time.Duration {
	d := c.delay << min(n, 16)
	if d <= 0 || d > c.maxDelay {
		d = c.maxDelay
	}
	return d
}

// Do runs fn until it succeeds, the attempts run out, or the context ends.
//
// From: avast/retry-go#61
// bug: retrycancel
func Do(fn RetryableFunc, opts ...Option) error {
	cfg := newConfig(opts)
	if err := cfg.ctx.Err(); err != nil {
		return err
	}

	if cfg.attempts == 0 {
		// Infinite mode: the context was only looked at once, before the
		// first attempt, and the wait below is a bare sleep.
		var n uint
		for {
			err := fn()
			if err == nil {
				return nil
			}
			if !cfg.retryIf(err) {
				return err
			}
			cfg.onRetry(n, err)
			time.Sleep(cfg.backoff(n))
			n++
		}
	}

	var errs []error
	for n := uint(0); n < cfg.attempts; n++ {
		err := fn()
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		if !cfg.retryIf(err) || n == cfg.attempts-1 {
			break
		}
		cfg.onRetry(n, err)
		select {
		case <-time.After(cfg.backoff(n)):
		case <-cfg.ctx.Done():
			return errors.Join(append(errs, cfg.ctx.Err())...)
		}
	}
	return errors.Join(errs...)
}

// DoNearMiss runs fn until it succeeds, the attempts run out, or the context
// ends.
//
// ok: retrycancel
func DoNearMiss(fn RetryableFunc, opts ...Option) error {
	cfg := newConfig(opts)
	if err := cfg.ctx.Err(); err != nil {
		return err
	}

	if cfg.attempts == 0 {
		var n uint
		for {
			err := fn()
			if err == nil {
				return nil
			}
			if !cfg.retryIf(err) {
				return err
			}
			cfg.onRetry(n, err)
			t := time.NewTimer(cfg.backoff(n))
			select {
			case <-t.C:
			case <-cfg.ctx.Done():
				t.Stop()
				return fmt.Errorf("%w (last error: %w)", cfg.ctx.Err(), err)
			}
			n++
		}
	}

	var errs []error
	for n := uint(0); n < cfg.attempts; n++ {
		err := fn()
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		if !cfg.retryIf(err) || n == cfg.attempts-1 {
			break
		}
		cfg.onRetry(n, err)
		select {
		case <-time.After(cfg.backoff(n)):
		case <-cfg.ctx.Done():
			return errors.Join(append(errs, cfg.ctx.Err())...)
		}
	}
	return errors.Join(errs...)
}

// ---------------------------------------------------------------------------
// Registry client reconnect (pilot-protocol/pilotprotocol#145)
// ---------------------------------------------------------------------------

// RegistryClient keeps a TCP connection to the registry.
type RegistryClient struct {
	mu      sync.Mutex
	addr    string
	conn    net.Conn
	dialer  net.Dialer
	backoff []time.Duration
	logger  *log.Logger
}

// Reconnect replaces a broken connection, retrying with backoff.
//
// From: pilot-protocol/pilotprotocol#145
// bug: retrycancel
func (c *RegistryClient) Reconnect(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
	var lastErr error
	for attempt, wait := range c.backoff {
		conn, err := c.dialer.DialContext(ctx, "tcp", c.addr)
		if err == nil {
			c.conn = conn
			return nil
		}
		// Once ctx is canceled every dial fails immediately, yet the loop
		// keeps sleeping through the whole schedule (about 15s) during
		// daemon shutdown.
		lastErr = err
		c.logger.Printf("registry reconnect attempt %d failed: %v", attempt+1, err)
		time.Sleep(wait)
	}
	return fmt.Errorf("registry reconnect: %w", lastErr)
}

// ReconnectNearMiss replaces a broken connection, retrying with backoff.
//
// ok: retrycancel
func (c *RegistryClient) ReconnectNearMiss(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
	var lastErr error
	for attempt, wait := range c.backoff {
		conn, err := c.dialer.DialContext(ctx, "tcp", c.addr)
		if err == nil {
			c.conn = conn
			return nil
		}
		lastErr = err
		c.logger.Printf("registry reconnect attempt %d failed: %v", attempt+1, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return fmt.Errorf("registry reconnect: %w", lastErr)
}

// ---------------------------------------------------------------------------
// Reconnecting websocket (recws-org/recws#28)
// ---------------------------------------------------------------------------

// WSConn is a websocket connection.
type WSConn interface {
	ReadMessage() (int, []byte, error)
	Close() error
}

// WSDialer opens websocket connections.
type WSDialer interface {
	Dial(ctx context.Context, url string) (WSConn, error)
}

// RecConn is a websocket that reconnects on its own.
type RecConn struct {
	mu          sync.RWMutex
	url         string
	dialer      WSDialer
	conn        WSConn
	isConnected bool
	closed      chan struct{}
	ctx         context.Context
	cancel      context.CancelFunc
	minWait     time.Duration
	maxWait     time.Duration
	logger      *log.Logger
}

// Close tears down the connection and stops the client.
// ok: retrycancel
func (rc *RecConn) Close() {
	rc.cancel()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.conn != nil {
		_ = rc.conn.Close()
	}
	rc.isConnected = false
}

// connect is run in its own goroutine and dials until a connection is up.
//
// From: recws-org/recws#28
// bug: retrycancel
func (rc *RecConn) connect() {
	wait := rc.minWait
	for {
		conn, err := rc.dialer.Dial(rc.ctx, rc.url)
		rc.mu.Lock()
		rc.conn = conn
		rc.isConnected = err == nil
		rc.mu.Unlock()
		if err == nil {
			rc.logger.Printf("websocket connected to %s", rc.url)
			return
		}
		// Close() cancels rc.ctx, but the loop only ever exits on success, so
		// after Close it keeps dialing (and failing) forever.
		rc.logger.Printf("websocket dial %s failed, retrying in %s: %v", rc.url, wait, err)
		time.Sleep(wait)
		wait = min(2*wait, rc.maxWait)
	}
}

// connectNearMiss is run in its own goroutine and dials until a connection is
// up or the client is closed.
//
// ok: retrycancel
func (rc *RecConn) connectNearMiss() {
	wait := rc.minWait
	for {
		conn, err := rc.dialer.Dial(rc.ctx, rc.url)
		rc.mu.Lock()
		rc.conn = conn
		rc.isConnected = err == nil
		rc.mu.Unlock()
		if err == nil {
			rc.logger.Printf("websocket connected to %s", rc.url)
			return
		}
		rc.logger.Printf("websocket dial %s failed, retrying in %s: %v", rc.url, wait, err)
		select {
		case <-rc.ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, rc.maxWait)
	}
}

// ---------------------------------------------------------------------------
// Chat websocket connect loop (mautrix/signal#626)
// ---------------------------------------------------------------------------

// ChatSocket is the authenticated Signal chat websocket.
type ChatSocket interface {
	Run(ctx context.Context) error
}

// SignalClient owns the chat connection of one user.
type SignalClient struct {
	open   func(ctx context.Context) (ChatSocket, error)
	logger *log.Logger
}

// StartChat keeps the chat websocket connected until ctx ends.
//
// From: mautrix/signal#626
// bug: retrycancel
func (cli *SignalClient) StartChat(ctx context.Context) error {
	backoff := time.Second
	for {
		sock, err := cli.open(ctx)
		if err != nil {
			cli.logger.Printf("failed to open chat socket, retrying in %s: %v", backoff, err)
			// Neither the sleep nor the retry path looks at ctx: after a
			// logout every open fails at once with ctx.Err() and the loop
			// keeps sleeping and retrying forever.
			time.Sleep(backoff)
			backoff = min(backoff*2, time.Minute)
			continue
		}
		backoff = time.Second
		if err := sock.Run(ctx); err != nil {
			cli.logger.Printf("chat socket closed: %v", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// StartChatNearMiss keeps the chat websocket connected until ctx ends.
//
// ok: retrycancel
func (cli *SignalClient) StartChatNearMiss(ctx context.Context) error {
	backoff := time.Second
	for {
		sock, err := cli.open(ctx)
		if err != nil {
			cli.logger.Printf("failed to open chat socket, retrying in %s: %v", backoff, err)
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
			backoff = min(backoff*2, time.Minute)
			continue
		}
		backoff = time.Second
		if err := sock.Run(ctx); err != nil {
			cli.logger.Printf("chat socket closed: %v", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// ---------------------------------------------------------------------------
// HTTP client with retries (gojek/heimdall#145)
// ---------------------------------------------------------------------------

// Backoff computes the wait before retry n.
type Backoff interface {
	Next(retry int) time.Duration
}

// Client is an HTTP client that retries failed requests.
type Client struct {
	http       *http.Client
	retryCount int
	backoff    Backoff
}

// Do sends request, retrying 5xx responses and transport errors.
//
// From: gojek/heimdall#145
// bug: retrycancel
func (c *Client) Do(request *http.Request) (*http.Response, error) {
	var (
		resp *http.Response
		err  error
	)
	for i := 0; i <= c.retryCount; i++ {
		if resp != nil {
			resp.Body.Close()
		}
		resp, err = c.http.Do(request)
		if err == nil && resp.StatusCode < http.StatusInternalServerError {
			return resp, nil
		}
		if i < c.retryCount {
			// request.Context() may already be canceled; the loop still
			// sleeps the full backoff and fires the remaining attempts.
			time.Sleep(c.backoff.Next(i))
		}
	}
	return resp, err
}

// DoNearMiss sends request, retrying 5xx responses and transport errors.
//
// ok: retrycancel
func (c *Client) DoNearMiss(request *http.Request) (*http.Response, error) {
	var (
		resp *http.Response
		err  error
	)
	ctx := request.Context()
	for i := 0; i <= c.retryCount; i++ {
		if resp != nil {
			resp.Body.Close()
		}
		resp, err = c.http.Do(request)
		if err == nil && resp.StatusCode < http.StatusInternalServerError {
			return resp, nil
		}
		if i < c.retryCount {
			t := time.NewTimer(c.backoff.Next(i))
			select {
			case <-ctx.Done():
				t.Stop()
				if resp != nil {
					resp.Body.Close()
				}
				return nil, ctx.Err()
			case <-t.C:
			}
		}
	}
	return resp, err
}

// ---------------------------------------------------------------------------
// Stream replicator (choria-legacy/stream-replicator#12)
// ---------------------------------------------------------------------------

// Message is one replicated message.
type Message struct {
	Subject string
	Data    []byte
	Seq     uint64
}

// Publisher publishes to the target stream.
type Publisher interface {
	Publish(ctx context.Context, m Message) error
}

// Replicator copies messages from a source stream to a target.
type Replicator struct {
	target        Publisher
	retryInterval time.Duration
	logger        *log.Logger
	lastSeq       uint64
}

// copier drains inbox into the target, retrying a publish until it works.
//
// From: choria-legacy/stream-replicator#12
// bug: retrycancel
func (r *Replicator) copier(ctx context.Context, inbox <-chan Message) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-inbox:
			for {
				err := r.target.Publish(ctx, m)
				if err == nil {
					r.lastSeq = m.Seq
					break
				}
				// The inner loop never looks at ctx: after shutdown every
				// Publish fails at once and the copier spins here forever.
				r.logger.Printf("publishing seq %d failed, retrying in %s: %v", m.Seq, r.retryInterval, err)
				time.Sleep(r.retryInterval)
			}
		}
	}
}

// copierNearMiss drains inbox into the target, retrying a publish until it
// works or the replicator stops.
//
// ok: retrycancel
func (r *Replicator) copierNearMiss(ctx context.Context, inbox <-chan Message) {
	for {
		select {
		case <-ctx.Done():
			return
		case m := <-inbox:
			for {
				err := r.target.Publish(ctx, m)
				if err == nil {
					r.lastSeq = m.Seq
					break
				}
				r.logger.Printf("publishing seq %d failed, retrying in %s: %v", m.Seq, r.retryInterval, err)
				timer := time.NewTimer(r.retryInterval)
				select {
				case <-ctx.Done():
					timer.Stop()
					return
				case <-timer.C:
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------
// LLM backend with rate-limit backoff (qf-studio/pilot#3311)
// ---------------------------------------------------------------------------

// APIError is returned by the model API.
type APIError struct {
	Status     int
	Overloaded bool
}

// ok: retrycancel
func (e *APIError) Error() string { return fmt.Sprintf("api error: status %d", e.Status) }

// AnthropicBackend calls the messages API.
type AnthropicBackend struct {
	send       func(ctx context.Context, body []byte) ([]byte, error)
	retryWaits []time.Duration
}

var defaultRetryWaits = []time.Duration{5 * time.Second, 20 * time.Second, 60 * time.Second, 180 * time.Second}

// ok: retrycancel
func (b *AnthropicBackend) waits() []time.Duration {
	if b.retryWaits != nil {
		return b.retryWaits
	}
	return defaultRetryWaits
}

// CallAPI sends body, backing off on 429 and overloaded responses.
//
// From: qf-studio/pilot#3311
// bug: retrycancel
func (b *AnthropicBackend) CallAPI(ctx context.Context, body []byte) ([]byte, error) {
	waits := b.waits()
	for attempt := 0; ; attempt++ {
		out, err := b.send(ctx, body)
		if err == nil {
			return out, nil
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || (apiErr.Status != http.StatusTooManyRequests && !apiErr.Overloaded) {
			return nil, err
		}
		if attempt >= len(waits) {
			return nil, fmt.Errorf("giving up after %d attempts: %w", attempt+1, err)
		}
		// Up to 180s of sleep that a canceled task cannot interrupt.
		time.Sleep(waits[attempt])
	}
}

// CallAPINearMiss sends body, backing off on 429 and overloaded responses.
//
// ok: retrycancel
func (b *AnthropicBackend) CallAPINearMiss(ctx context.Context, body []byte) ([]byte, error) {
	waits := b.waits()
	for attempt := 0; ; attempt++ {
		out, err := b.send(ctx, body)
		if err == nil {
			return out, nil
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || (apiErr.Status != http.StatusTooManyRequests && !apiErr.Overloaded) {
			return nil, err
		}
		if attempt >= len(waits) {
			return nil, fmt.Errorf("giving up after %d attempts: %w", attempt+1, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(waits[attempt]):
		}
	}
}

// ---------------------------------------------------------------------------
// Event receiver loop (cloudevents/sdk-go#580)
// ---------------------------------------------------------------------------

// Event is a received cloud event.
type Event struct {
	ID   string
	Data []byte
}

// Receiver is a protocol receiver. Implementations are supposed to return
// io.EOF once ctx is done, but some (e.g. the pubsub one) return ctx.Err().
type Receiver interface {
	Receive(ctx context.Context) (Event, error)
}

// EventClient dispatches received events to a handler.
type EventClient struct {
	receiver Receiver
	logger   *log.Logger
}

// StartReceiver blocks, handing every event to fn, until the receiver ends.
//
// From: cloudevents/sdk-go#580
// bug: retrycancel
func (c *EventClient) StartReceiver(ctx context.Context, fn func(context.Context, Event)) error {
	for {
		ev, err := c.receiver.Receive(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// A receiver that answers a done ctx with ctx.Err() instead of
			// io.EOF turns this into a hot loop that never ends.
			c.logger.Printf("error while receiving a message: %v", err)
			continue
		}
		fn(ctx, ev)
	}
}

// StartReceiverNearMiss blocks, handing every event to fn, until the
// receiver ends or ctx is done.
//
// ok: retrycancel
func (c *EventClient) StartReceiverNearMiss(ctx context.Context, fn func(context.Context, Event)) error {
	for {
		ev, err := c.receiver.Receive(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return nil
			default:
			}
			c.logger.Printf("error while receiving a message: %v", err)
			continue
		}
		fn(ctx, ev)
	}
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious
// ---------------------------------------------------------------------------

// PollUntil polls check with a ticker until it reports done; the ticker wait
// is a select that also watches ctx.
//
// ok: retrycancel
func PollUntil(ctx context.Context, every time.Duration, check func(context.Context) (bool, error)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		done, err := check(ctx)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// RetryWithJitter sleeps with time.Sleep, but checks ctx.Err() before every
// attempt and keeps each sleep short, so at most one short nap happens after
// cancellation.
//
// ok: retrycancel
func RetryWithJitter(ctx context.Context, attempts int, op func(context.Context) error) error {
	var err error
	for i := 0; i < attempts; i++ {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err = op(ctx); err == nil {
			return nil
		}
		time.Sleep(time.Duration(rand.IntN(50)) * time.Millisecond)
	}
	return err
}

// LoadConfigFile retries a local read a few times; it has no context because
// it runs once at process start, before anything could cancel it.
//
// ok: retrycancel
func LoadConfigFile(read func() ([]byte, error)) ([]byte, error) {
	var lastErr error
	for i := 0; i < 3; i++ {
		b, err := read()
		if err == nil {
			return b, nil
		}
		lastErr = err
		time.Sleep(200 * time.Millisecond)
	}
	return nil, lastErr
}

// ConsumeUntilDone keeps reading after transient errors; the loop condition
// is the context itself and the pause between failures is ctx-aware.
//
// ok: retrycancel
func ConsumeUntilDone(ctx context.Context, r Receiver, handle func(Event), pause time.Duration) {
	for ctx.Err() == nil {
		ev, err := r.Receive(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
			continue
		}
		handle(ev)
	}
}
