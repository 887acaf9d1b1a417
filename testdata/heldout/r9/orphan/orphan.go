// Package orphan holds goroutines that deliver a result on a channel whose
// receiver may already have given up.
package orphan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"time"
)

// ---------------------------------------------------------------------------
// Object reader request loop (minio/minio-go#1666)
// ---------------------------------------------------------------------------

type getRequest struct {
	offset int64
	buf    []byte
}

type getResponse struct {
	n   int
	err error
}

// RangeFetcher reads a byte range of a remote object.
type RangeFetcher func(ctx context.Context, offset int64, p []byte) (int, error)

// Object is a lazily fetched remote object. Reads are served by a
// background goroutine that owns the HTTP stream.
type Object struct {
	reqCh  chan getRequest
	resCh  chan getResponse
	ctx    context.Context
	cancel context.CancelFunc
	offset int64
}

// GetObject starts the request loop for one object.
//
// From: minio/minio-go#1666
// bug: orphansend
func GetObject(ctx context.Context, fetch RangeFetcher) *Object {
	ctx, cancel := context.WithCancel(ctx)
	o := &Object{
		reqCh:  make(chan getRequest),
		resCh:  make(chan getResponse),
		ctx:    ctx,
		cancel: cancel,
	}
	go func() {
		defer close(o.resCh)
		for {
			select {
			case <-ctx.Done():
				return
			case req, ok := <-o.reqCh:
				if !ok {
					return
				}
				n, err := fetch(ctx, req.offset, req.buf)
				// Read gives up on ctx.Done and Close cancels ctx, so when the
				// caller has stopped reading this send has no receiver and
				// the goroutine is stuck here forever.
				o.resCh <- getResponse{n: n, err: err}
			}
		}
	}()
	return o
}

// GetObjectNearMiss starts the request loop for one object.
//
// ok: orphansend
func GetObjectNearMiss(ctx context.Context, fetch RangeFetcher) *Object {
	ctx, cancel := context.WithCancel(ctx)
	o := &Object{
		reqCh:  make(chan getRequest),
		resCh:  make(chan getResponse),
		ctx:    ctx,
		cancel: cancel,
	}
	go func() {
		defer close(o.resCh)
		for {
			select {
			case <-ctx.Done():
				return
			case req, ok := <-o.reqCh:
				if !ok {
					return
				}
				n, err := fetch(ctx, req.offset, req.buf)
				select {
				case o.resCh <- getResponse{n: n, err: err}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return o
}

// Read reads the next chunk of the object.
// ok: orphansend
func (o *Object) Read(p []byte) (int, error) {
	select {
	case o.reqCh <- getRequest{offset: o.offset, buf: p}:
	case <-o.ctx.Done():
		return 0, o.ctx.Err()
	}
	select {
	case res, ok := <-o.resCh:
		if !ok {
			return 0, io.ErrClosedPipe
		}
		o.offset += int64(res.n)
		return res.n, res.err
	case <-o.ctx.Done():
		return 0, o.ctx.Err()
	}
}

// Close stops the request loop.
// ok: orphansend
func (o *Object) Close() error {
	o.cancel()
	return nil
}

// ---------------------------------------------------------------------------
// Timeout middleware (slok/goresilience#30)
// ---------------------------------------------------------------------------

// ErrTimeout is returned when the wrapped call did not finish in time.
var ErrTimeout = errors.New("timeout while executing")

// Runner executes a unit of work.
type Runner interface {
	Run(ctx context.Context, f func(ctx context.Context) error) error
}

// TimeoutRunner bounds the execution time of the next runner.
type TimeoutRunner struct {
	timeout time.Duration
	next    Runner
}

// Run executes f through the next runner, giving up after the timeout.
//
// From: slok/goresilience#30
// bug: orphansend
func (t *TimeoutRunner) Run(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()

	errc := make(chan error)
	go func() {
		// Unbuffered: after the timeout branch below returns, nobody ever
		// receives from errc and this goroutine leaks.
		errc <- t.next.Run(ctx, f)
	}()

	select {
	case <-ctx.Done():
		return ErrTimeout
	case err := <-errc:
		return err
	}
}

// RunNearMiss executes f through the next runner, giving up after the
// timeout.
//
// ok: orphansend
func (t *TimeoutRunner) RunNearMiss(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()

	errc := make(chan error, 1)
	go func() {
		errc <- t.next.Run(ctx, f)
	}()

	select {
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrTimeout, ctx.Err())
	case err := <-errc:
		return err
	}
}

// ---------------------------------------------------------------------------
// Scheduler client registration (buildbuddy-io/buildbuddy#4984)
// ---------------------------------------------------------------------------

// RegistrationStream is the bidi stream to the scheduler.
type RegistrationStream interface {
	Send(msg string) error
	Recv() (string, error)
}

// Registration keeps an executor registered with the scheduler.
type Registration struct {
	open   func(ctx context.Context) (RegistrationStream, error)
	taskCh chan<- string
	logger *log.Logger
}

// maintainRegistration runs one registration stream until it fails or ctx
// ends.
//
// From: buildbuddy-io/buildbuddy#4984
// bug: orphansend
func (r *Registration) maintainRegistration(ctx context.Context) error {
	stream, err := r.open(ctx)
	if err != nil {
		return err
	}
	schedulerErr := make(chan error)
	go func() {
		for {
			msg, err := stream.Recv()
			if err != nil {
				// The loop below may already have returned on ctx.Done;
				// then this send blocks forever.
				schedulerErr <- err
				return
			}
			r.taskCh <- msg
		}
	}()

	ping := time.NewTicker(10 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-schedulerErr:
			return fmt.Errorf("scheduler stream: %w", err)
		case <-ping.C:
			if err := stream.Send("ping"); err != nil {
				return err
			}
		}
	}
}

// maintainRegistrationNearMiss runs one registration stream until it fails
// or ctx ends.
//
// ok: orphansend
func (r *Registration) maintainRegistrationNearMiss(ctx context.Context) error {
	stream, err := r.open(ctx)
	if err != nil {
		return err
	}
	schedulerErr := make(chan error, 1)
	go func() {
		for {
			msg, err := stream.Recv()
			if err != nil {
				schedulerErr <- err
				return
			}
			select {
			case r.taskCh <- msg:
			case <-ctx.Done():
				return
			}
		}
	}()

	ping := time.NewTicker(10 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-schedulerErr:
			return fmt.Errorf("scheduler stream: %w", err)
		case <-ping.C:
			if err := stream.Send("ping"); err != nil {
				return err
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Controller manager start (kubernetes-sigs/controller-runtime#2527)
// ---------------------------------------------------------------------------

// RunnableGroup starts a set of runnables.
type RunnableGroup interface {
	Start(ctx context.Context) error
}

// ControllerManager owns caches, webhooks and controllers.
type ControllerManager struct {
	caches      RunnableGroup
	controllers RunnableGroup
	logger      *log.Logger
}

// Start runs the manager until ctx is done or a runnable fails.
//
// From: kubernetes-sigs/controller-runtime#2527
// bug: orphansend
func (cm *ControllerManager) Start(ctx context.Context) error {
	if err := cm.caches.Start(ctx); err != nil {
		return fmt.Errorf("failed to start caches: %w", err)
	}

	errChan := make(chan error)
	go func() {
		if err := cm.controllers.Start(ctx); err != nil {
			// When Start has already returned on ctx.Done, the error from a
			// controller shutting down has nowhere to go.
			errChan <- err
		}
	}()

	select {
	case <-ctx.Done():
		cm.logger.Printf("stopping manager")
		return nil
	case err := <-errChan:
		return err
	}
}

// StartNearMiss runs the manager until ctx is done or a runnable fails.
//
// ok: orphansend
func (cm *ControllerManager) StartNearMiss(ctx context.Context) error {
	if err := cm.caches.Start(ctx); err != nil {
		return fmt.Errorf("failed to start caches: %w", err)
	}

	errChan := make(chan error, 1)
	go func() {
		if err := cm.controllers.Start(ctx); err != nil {
			errChan <- err
		}
	}()

	select {
	case <-ctx.Done():
		cm.logger.Printf("stopping manager")
		return nil
	case err := <-errChan:
		return err
	}
}

// ---------------------------------------------------------------------------
// Blobber selection fan-out (0chain/0chain#1248)
// ---------------------------------------------------------------------------

// Blobber is a storage provider.
type Blobber struct {
	ID       string
	Capacity int64
}

// StorageSmartContract validates allocations.
type StorageSmartContract struct {
	getBlobber func(ctx context.Context, id string) (*Blobber, error)
}

// getAllocationBlobbers loads every blobber of an allocation in parallel.
//
// From: 0chain/0chain#1248
// bug: orphansend
func (sc *StorageSmartContract) getAllocationBlobbers(ctx context.Context, ids []string) ([]*Blobber, error) {
	blobberCh := make(chan *Blobber, len(ids))
	errorCh := make(chan error)
	for _, id := range ids {
		go func() {
			b, err := sc.getBlobber(ctx, id)
			if err != nil {
				// Only the first error is received; every other failing
				// goroutine blocks on this send forever.
				errorCh <- fmt.Errorf("blobber %s: %w", id, err)
				return
			}
			blobberCh <- b
		}()
	}

	blobbers := make([]*Blobber, 0, len(ids))
	for range ids {
		select {
		case err := <-errorCh:
			return nil, err
		case b := <-blobberCh:
			blobbers = append(blobbers, b)
		}
	}
	return blobbers, nil
}

// getAllocationBlobbersNearMiss loads every blobber of an allocation in
// parallel.
//
// ok: orphansend
func (sc *StorageSmartContract) getAllocationBlobbersNearMiss(ctx context.Context, ids []string) ([]*Blobber, error) {
	blobberCh := make(chan *Blobber, len(ids))
	errorCh := make(chan error, len(ids))
	for _, id := range ids {
		go func() {
			b, err := sc.getBlobber(ctx, id)
			if err != nil {
				errorCh <- fmt.Errorf("blobber %s: %w", id, err)
				return
			}
			blobberCh <- b
		}()
	}

	blobbers := make([]*Blobber, 0, len(ids))
	for range ids {
		select {
		case err := <-errorCh:
			return nil, err
		case b := <-blobberCh:
			blobbers = append(blobbers, b)
		}
	}
	return blobbers, nil
}

// ---------------------------------------------------------------------------
// Request/response multiplexing over one connection (erigontech/erigon#16782)
// ---------------------------------------------------------------------------

type response struct {
	id   uint64
	body []byte
	err  error
}

// RPCConn multiplexes requests over a single connection. A single read loop
// goroutine delivers each response to the channel registered for its ID.
type RPCConn struct {
	mu      sync.Mutex
	nextID  uint64
	pending map[uint64]chan response
	write   func(id uint64, body []byte) error
}

// readLoop delivers responses; it runs for the life of the connection.
// ok: orphansend
func (c *RPCConn) readLoop(read func() (response, error)) {
	for {
		r, err := read()
		if err != nil {
			return
		}
		c.mu.Lock()
		ch, ok := c.pending[r.id]
		delete(c.pending, r.id)
		c.mu.Unlock()
		if ok {
			ch <- r
		}
	}
}

// Call sends body and waits for the matching response.
//
// From: erigontech/erigon#16782
// bug: orphansend
func (c *RPCConn) Call(ctx context.Context, body []byte) ([]byte, error) {
	// Unbuffered: if ctx ends first, the read loop's send for this ID has no
	// receiver, blocks forever, and stalls every other caller's response.
	ch := make(chan response)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.write(id, body); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, err
	}
	select {
	case r := <-ch:
		return r.body, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// CallNearMiss sends body and waits for the matching response.
//
// ok: orphansend
func (c *RPCConn) CallNearMiss(ctx context.Context, body []byte) ([]byte, error) {
	ch := make(chan response, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()

	if err := c.write(id, body); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, err
	}
	select {
	case r := <-ch:
		return r.body, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// ---------------------------------------------------------------------------
// Payment manager rescan (decred/dcrpool#394)
// ---------------------------------------------------------------------------

// RescanResponse lists the blocks a wallet rescan found.
type RescanResponse struct {
	BlockHashes []string
}

// RescanStream streams rescan results.
type RescanStream interface {
	Recv() (*RescanResponse, error)
}

// PaymentMgr confirms coinbase payments.
type PaymentMgr struct {
	rescan func(ctx context.Context, hashes []string) (RescanStream, error)
}

// confirmCoinbases waits until every coinbase in txHashes is confirmed.
//
// From: decred/dcrpool#394
// bug: orphansend
func (pm *PaymentMgr) confirmCoinbases(ctx context.Context, txHashes []string) error {
	stream, err := pm.rescan(ctx, txHashes)
	if err != nil {
		return err
	}
	respCh := make(chan *RescanResponse)
	go func() {
		for {
			resp, err := stream.Recv()
			if err != nil {
				close(respCh)
				return
			}
			// The receiver below returns on ctx.Done; this send does not
			// respect the context and leaks the goroutine.
			respCh <- resp
		}
	}()

	remaining := make(map[string]struct{}, len(txHashes))
	for _, h := range txHashes {
		remaining[h] = struct{}{}
	}
	for len(remaining) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case resp, ok := <-respCh:
			if !ok {
				return fmt.Errorf("rescan ended with %d coinbases unconfirmed", len(remaining))
			}
			for _, h := range resp.BlockHashes {
				delete(remaining, h)
			}
		}
	}
	return nil
}

// confirmCoinbasesNearMiss waits until every coinbase in txHashes is
// confirmed.
//
// ok: orphansend
func (pm *PaymentMgr) confirmCoinbasesNearMiss(ctx context.Context, txHashes []string) error {
	stream, err := pm.rescan(ctx, txHashes)
	if err != nil {
		return err
	}
	respCh := make(chan *RescanResponse)
	go func() {
		defer close(respCh)
		for {
			resp, err := stream.Recv()
			if err != nil {
				return
			}
			select {
			case respCh <- resp:
			case <-ctx.Done():
				return
			}
		}
	}()

	remaining := make(map[string]struct{}, len(txHashes))
	for _, h := range txHashes {
		remaining[h] = struct{}{}
	}
	for len(remaining) > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case resp, ok := <-respCh:
			if !ok {
				return fmt.Errorf("rescan ended with %d coinbases unconfirmed", len(remaining))
			}
			for _, h := range resp.BlockHashes {
				delete(remaining, h)
			}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Batch stream receive helper (weaviate/weaviate#12750)
// ---------------------------------------------------------------------------

// BatchRequest is one client message on the batch stream.
type BatchRequest struct {
	Objects [][]byte
}

// BatchStream is the server side of the bidi batch stream.
type BatchStream interface {
	Context() context.Context
	Recv() (*BatchRequest, error)
}

// StreamHandler serves batch streams.
type StreamHandler struct{}

// recv pumps stream.Recv into channels consumed by the receiver loop, which
// exits on the stream context (client disconnect, shutdown, grace period).
//
// From: weaviate/weaviate#12750
// bug: orphansend
func (h *StreamHandler) recv(stream BatchStream) (<-chan *BatchRequest, <-chan error) {
	reqCh := make(chan *BatchRequest)
	errCh := make(chan error)
	go func() {
		for {
			req, err := stream.Recv()
			if err != nil {
				errCh <- err
				return
			}
			reqCh <- req
		}
	}()
	return reqCh, errCh
}

// recvNearMiss pumps stream.Recv into channels consumed by the receiver
// loop.
//
// ok: orphansend
func (h *StreamHandler) recvNearMiss(stream BatchStream) (<-chan *BatchRequest, <-chan error) {
	reqCh := make(chan *BatchRequest)
	errCh := make(chan error)
	done := stream.Context().Done()
	go func() {
		for {
			req, err := stream.Recv()
			if err != nil {
				select {
				case errCh <- err:
				case <-done:
				}
				return
			}
			select {
			case reqCh <- req:
			case <-done:
				return
			}
		}
	}()
	return reqCh, errCh
}

// receiver consumes what recv produces until the stream context ends.
// ok: orphansend
func (h *StreamHandler) receiver(stream BatchStream, reqCh <-chan *BatchRequest, errCh <-chan error, handle func(*BatchRequest)) error {
	ctx := stream.Context()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errCh:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case req := <-reqCh:
			handle(req)
		}
	}
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious
// ---------------------------------------------------------------------------

// Race returns the first answer from several replicas; the channel has room
// for every replica, so late answers never block.
//
// ok: orphansend
func Race(ctx context.Context, replicas []func(context.Context) (string, error)) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		v   string
		err error
	}
	answers := make(chan answer, len(replicas))
	for _, r := range replicas {
		go func() {
			v, err := r(ctx)
			answers <- answer{v, err}
		}()
	}
	var errs []error
	for range replicas {
		select {
		case a := <-answers:
			if a.err == nil {
				return a.v, nil
			}
			errs = append(errs, a.err)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return "", errors.Join(errs...)
}

// Produce sends on an unbuffered channel, but every send also selects on
// ctx.Done, so an abandoned consumer cannot strand it.
//
// ok: orphansend
func Produce(ctx context.Context, items []string) <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		for _, it := range items {
			select {
			case out <- it:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// Compute waits unconditionally for the unbuffered result: the receiver never
// gives up, so the send always completes.
//
// ok: orphansend
func Compute(input []int) int {
	sum := make(chan int)
	go func() {
		total := 0
		for _, v := range input {
			total += v
		}
		sum <- total
	}()
	return <-sum
}

// WaitDone signals completion by closing a channel instead of sending on it,
// which never blocks.
//
// ok: orphansend
func WaitDone(ctx context.Context, work func()) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
