// Package orphan holds goroutines whose result send blocks forever because
// the receiver already gave up.
package orphan

import (
	"context"
	"sync"
	"time"
)

// Revision is a datastore revision.
type Revision uint64

// Datastore answers revision queries.
type Datastore interface {
	HeadRevision(ctx context.Context) (Revision, error)
}

type revResult struct {
	rev Revision
	err error
}

// HedgingProxy sends a second request when the first is slow.
type HedgingProxy struct {
	delegate   Datastore
	hedgeAfter time.Duration
}

// HeadRevision returns the first answer of up to two hedged requests.
// From: authzed/spicedb#235
// results is unbuffered, so the slower request, or both when ctx ends
// first, blocks forever on its send once HeadRevision has returned
//
// bug: orphansend
func (p *HedgingProxy) HeadRevision(ctx context.Context) (Revision, error) {
	results := make(chan revResult)
	run := func() {
		rev, err := p.delegate.HeadRevision(ctx)
		results <- revResult{rev: rev, err: err}
	}
	go run()

	t := time.NewTimer(p.hedgeAfter)
	defer t.Stop()
	select {
	case r := <-results:
		return r.rev, r.err
	case <-t.C:
		go run()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case r := <-results:
		return r.rev, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// HeadRevisionNearMiss returns the first answer of up to two hedged
// requests; results has room for both, so neither sender can block.
// From: authzed/spicedb#235
//
// ok: orphansend
func (p *HedgingProxy) HeadRevisionNearMiss(ctx context.Context) (Revision, error) {
	results := make(chan revResult, 2)
	run := func() {
		rev, err := p.delegate.HeadRevision(ctx)
		results <- revResult{rev: rev, err: err}
	}
	go run()

	t := time.NewTimer(p.hedgeAfter)
	defer t.Stop()
	select {
	case r := <-results:
		return r.rev, r.err
	case <-t.C:
		go run()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case r := <-results:
		return r.rev, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// Peer is a cluster member that can answer queries.
type Peer struct {
	Name string
	Addr string
}

type peerResponse[T any] struct {
	peer string
	data T
	err  error
}

// querySpeculative asks every peer and collects one answer per peer.
// From: grafana-cold-storage/metrictank#1332
// responses holds a single item; when ctx ends the function returns and the
// remaining askPeer goroutines block forever on their send
//
// bug: orphansend
func querySpeculative[T any](ctx context.Context, peers []Peer, ask func(ctx context.Context, p Peer) (T, error)) (map[string]T, error) {
	responses := make(chan peerResponse[T], 1)
	for _, p := range peers {
		go func() {
			data, err := ask(ctx, p)
			responses <- peerResponse[T]{peer: p.Name, data: data, err: err}
		}()
	}
	out := make(map[string]T, len(peers))
	for range peers {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-responses:
			if r.err != nil {
				return nil, r.err
			}
			out[r.peer] = r.data
		}
	}
	return out, nil
}

// querySpeculativeNearMiss asks every peer; responses has a slot per peer so
// no askPeer goroutine blocks after an early return.
// From: grafana-cold-storage/metrictank#1332
//
// ok: orphansend
func querySpeculativeNearMiss[T any](ctx context.Context, peers []Peer, ask func(ctx context.Context, p Peer) (T, error)) (map[string]T, error) {
	responses := make(chan peerResponse[T], len(peers))
	for _, p := range peers {
		go func() {
			data, err := ask(ctx, p)
			responses <- peerResponse[T]{peer: p.Name, data: data, err: err}
		}()
	}
	out := make(map[string]T, len(peers))
	for range peers {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case r := <-responses:
			if r.err != nil {
				return nil, r.err
			}
			out[r.peer] = r.data
		}
	}
	return out, nil
}

// PermissionRequest asks the user to approve a tool call.
type PermissionRequest struct {
	Tool   string
	Action string
}

// Prompter shows a request to the user and waits for the answer.
type Prompter interface {
	Prompt(req PermissionRequest) bool
}

// PermissionService gates tool calls on user approval.
type PermissionService struct {
	ui Prompter
}

// ask prompts the user and delivers the answer.
//
// ok: orphansend
func (s *PermissionService) ask(req PermissionRequest, answer chan<- bool) {
	answer <- s.ui.Prompt(req)
}

// Request waits for the user's decision on req.
// From: charmbracelet/crush#904
// answer is unbuffered; when ctx is cancelled before the user answers, the
// ask goroutine blocks forever delivering the late answer
//
// bug: orphansend
func (s *PermissionService) Request(ctx context.Context, req PermissionRequest) (bool, error) {
	answer := make(chan bool)
	go s.ask(req, answer)
	select {
	case ok := <-answer:
		return ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// RequestNearMiss waits for the user's decision on req; the answer channel
// is buffered so a late answer does not block.
// From: charmbracelet/crush#904
//
// ok: orphansend
func (s *PermissionService) RequestNearMiss(ctx context.Context, req PermissionRequest) (bool, error) {
	answer := make(chan bool, 1)
	go s.ask(req, answer)
	select {
	case ok := <-answer:
		return ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Frame is one STOMP frame.
type Frame struct {
	Command string
	Body    []byte
}

// Subscription delivers MESSAGE frames for one destination.
type Subscription struct {
	C      chan *Frame
	frames chan *Frame
	done   chan struct{}
	once   sync.Once
}

// NewSubscription builds a subscription with a buffer of n messages.
//
// ok: orphansend
func NewSubscription(n int) *Subscription {
	return &Subscription{
		C:      make(chan *Frame, n),
		frames: make(chan *Frame),
		done:   make(chan struct{}),
	}
}

// Unsubscribe tells the read loop the client stopped reading C.
//
// ok: orphansend
func (s *Subscription) Unsubscribe() {
	s.once.Do(func() { close(s.done) })
}

// readLoop forwards frames from the connection to C.
// From: jjeffery/stomp#12
// once the client unsubscribes and stops reading C, the loop blocks forever
// on the send as soon as the buffer is full
//
// bug: orphansend
func (s *Subscription) readLoop() {
	for f := range s.frames {
		if f.Command != "MESSAGE" {
			continue
		}
		s.C <- f
	}
	close(s.C)
}

// readLoopNearMiss forwards frames to C and stops as soon as the client has
// unsubscribed.
// From: jjeffery/stomp#12
//
// ok: orphansend
func (s *Subscription) readLoopNearMiss() {
	defer close(s.C)
	for f := range s.frames {
		if f.Command != "MESSAGE" {
			continue
		}
		select {
		case s.C <- f:
		case <-s.done:
			return
		}
	}
}

// subscriber is one client of the event bus.
type subscriber struct {
	out      chan any
	canceled chan struct{}
}

// EventBus routes published messages to subscribers.
type EventBus struct {
	mu   sync.Mutex
	subs map[string]*subscriber
}

// Subscribe registers id; the subscription ends when ctx does.
//
// ok: orphansend
func (b *EventBus) Subscribe(ctx context.Context, id string, buf int) <-chan any {
	s := &subscriber{out: make(chan any, buf), canceled: make(chan struct{})}
	b.mu.Lock()
	b.subs[id] = s
	b.mu.Unlock()
	context.AfterFunc(ctx, func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
		close(s.canceled)
	})
	return s.out
}

// snapshot copies the current subscribers.
//
// ok: orphansend
func (b *EventBus) snapshot() []*subscriber {
	b.mu.Lock()
	defer b.mu.Unlock()
	subs := make([]*subscriber, 0, len(b.subs))
	for _, s := range b.subs {
		subs = append(subs, s)
	}
	return subs
}

// Publish hands msg to every subscriber.
// From: tendermint/tendermint#1811
// the send to each subscriber blocks; a subscriber that returned on its own
// context without draining stalls Publish forever
//
// bug: orphansend
func (b *EventBus) Publish(ctx context.Context, msg any) error {
	for _, s := range b.snapshot() {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.out <- msg
	}
	return nil
}

// PublishNearMiss hands msg to every subscriber and skips those whose
// subscription has ended.
// From: tendermint/tendermint#1811
//
// ok: orphansend
func (b *EventBus) PublishNearMiss(ctx context.Context, msg any) error {
	for _, s := range b.snapshot() {
		select {
		case s.out <- msg:
		case <-s.canceled:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Message is one pub/sub message.
type Message struct {
	UUID    string
	Payload []byte
}

// channelSub is one subscriber of a topic.
type channelSub struct {
	ctx    context.Context
	output chan *Message
}

// GoChannel is an in-process pub/sub.
type GoChannel struct {
	mu     sync.RWMutex
	topics map[string][]*channelSub
	wg     sync.WaitGroup
}

// Publish fans msg out to the topic's subscribers, one goroutine each.
// From: ThreeDotsLabs/watermill#247
// a subscriber whose context was cancelled stops reading its output, so the
// goroutine delivering to it blocks forever on the send
//
// bug: orphansend
func (g *GoChannel) Publish(topic string, msg *Message) {
	g.mu.RLock()
	subs := g.topics[topic]
	g.mu.RUnlock()
	for _, s := range subs {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			s.output <- msg
		}()
	}
}

// PublishNearMiss fans msg out to the topic's subscribers and gives up on a
// subscriber once its context is done.
// From: ThreeDotsLabs/watermill#247
//
// ok: orphansend
func (g *GoChannel) PublishNearMiss(topic string, msg *Message) {
	g.mu.RLock()
	subs := g.topics[topic]
	g.mu.RUnlock()
	for _, s := range subs {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			select {
			case s.output <- msg:
			case <-s.ctx.Done():
			}
		}()
	}
}

// Close waits for in-flight deliveries.
//
// ok: orphansend
func (g *GoChannel) Close() {
	g.wg.Wait()
}
