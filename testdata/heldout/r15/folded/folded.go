// Package folded holds functions where context.Canceled and
// context.DeadlineExceeded lose their identity on the way to the caller.
package folded

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ---------------------------------------------------------------------------
// Packet capture writer.

// Handle is an open capture handle.
type Handle interface {
	WritePacketData(ctx context.Context, data []byte) error
}

// PacketWriter writes raw frames to a capture handle.
type PacketWriter struct {
	h       Handle
	written uint64
}

// WritePacket writes one frame. The handle's error, which is the context's
// error when the write deadline passes, is formatted into a new message, so
// callers cannot tell a timed-out write from a broken handle.
// From: google/gopacket#1214
// bug: foldedtimeout
func (w *PacketWriter) WritePacket(ctx context.Context, data []byte) error {
	if err := w.h.WritePacketData(ctx, data); err != nil {
		return fmt.Errorf("pcap: write packet (%d bytes): %v", len(data), err)
	}
	w.written += uint64(len(data))
	return nil
}

// WritePacketNearMiss is WritePacket wrapping the cause with %w.
// ok: foldedtimeout
func (w *PacketWriter) WritePacketNearMiss(ctx context.Context, data []byte) error {
	if err := w.h.WritePacketData(ctx, data); err != nil {
		return fmt.Errorf("pcap: write packet (%d bytes): %w", len(data), err)
	}
	w.written += uint64(len(data))
	return nil
}

// ---------------------------------------------------------------------------
// Transaction proposer with a private mempool.

// TxCandidate is a transaction ready to be sent.
type TxCandidate struct {
	Nonce uint64
	Data  []byte
}

// TxManager sends transactions to a mempool.
type TxManager interface {
	Send(ctx context.Context, tx TxCandidate, private bool) error
}

// Proposer submits block proposals.
type Proposer struct {
	txmgr   TxManager
	private bool
}

// SendTx sends through the private mempool and falls back to the public one
// for failures other than the deadline. The deadline is recognised by
// comparing message strings, so a wrapped deadline error ("txmgr: send:
// context deadline exceeded") does not match and the transaction is resent
// after the caller's time is up.
// From: taikoxyz/taiko-mono#19482
// bug: foldedtimeout
func (p *Proposer) SendTx(ctx context.Context, tx TxCandidate) error {
	err := p.txmgr.Send(ctx, tx, p.private)
	if err == nil {
		return nil
	}
	if p.private && err.Error() != context.DeadlineExceeded.Error() {
		if perr := p.txmgr.Send(ctx, tx, false); perr != nil {
			return fmt.Errorf("send tx %d (public fallback): %w", tx.Nonce, perr)
		}
		return nil
	}
	return fmt.Errorf("send tx %d: %w", tx.Nonce, err)
}

// SendTxNearMiss recognises the deadline with errors.Is.
// ok: foldedtimeout
func (p *Proposer) SendTxNearMiss(ctx context.Context, tx TxCandidate) error {
	err := p.txmgr.Send(ctx, tx, p.private)
	if err == nil {
		return nil
	}
	if p.private && !errors.Is(err, context.DeadlineExceeded) {
		if perr := p.txmgr.Send(ctx, tx, false); perr != nil {
			return fmt.Errorf("send tx %d (public fallback): %w", tx.Nonce, perr)
		}
		return nil
	}
	return fmt.Errorf("send tx %d: %w", tx.Nonce, err)
}

// ---------------------------------------------------------------------------
// Upload outcome metrics.

// Outcome classifies a finished upload.
type Outcome int

// Outcomes reported to metrics.
const (
	OutcomeOK Outcome = iota
	OutcomeCanceled
	OutcomeFailed
)

// Metrics counts upload outcomes.
type Metrics struct {
	mu     sync.Mutex
	counts map[Outcome]int
}

// Inc bumps the counter for o.
// ok: foldedtimeout
func (m *Metrics) Inc(o Outcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.counts == nil {
		m.counts = make(map[Outcome]int)
	}
	m.counts[o]++
}

// ClassifyUpload maps an upload error to an outcome. Only a bare
// context.Canceled is recognised; the database layer wraps it, so uploads the
// client abandoned are counted as failures.
// From: storj/storj#1752
// bug: foldedtimeout
func ClassifyUpload(err error) Outcome {
	switch {
	case err == nil:
		return OutcomeOK
	case err == context.Canceled:
		return OutcomeCanceled
	default:
		return OutcomeFailed
	}
}

// ClassifyUploadNearMiss looks through the wrapping with errors.Is.
// ok: foldedtimeout
func ClassifyUploadNearMiss(err error) Outcome {
	switch {
	case err == nil:
		return OutcomeOK
	case errors.Is(err, context.Canceled):
		return OutcomeCanceled
	default:
		return OutcomeFailed
	}
}

// ---------------------------------------------------------------------------
// RPC system errors.

// SystemErrCode is the wire code of a system error.
type SystemErrCode byte

// Wire codes.
const (
	ErrCodeTimeout    SystemErrCode = 0x01
	ErrCodeCancelled  SystemErrCode = 0x02
	ErrCodeUnexpected SystemErrCode = 0x05
)

// SystemError is an error carried in a call-response frame.
type SystemError struct {
	code SystemErrCode
	msg  string
}

// Error implements error.
// ok: foldedtimeout
func (e SystemError) Error() string {
	return fmt.Sprintf("tchannel error %#x: %s", byte(e.code), e.msg)
}

// Code reports the wire code.
// ok: foldedtimeout
func (e SystemError) Code() SystemErrCode { return e.code }

// callError converts the error that ended an outbound call into the error the
// caller sees. Context errors are flattened into the message of a
// SystemError, so errors.Is(err, context.DeadlineExceeded) is false for a
// call that timed out.
// From: uber/tchannel-go#934
// bug: foldedtimeout
func callError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		code := ErrCodeCancelled
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			code = ErrCodeTimeout
		}
		return SystemError{code: code, msg: ctxErr.Error()}
	}
	return SystemError{code: ErrCodeUnexpected, msg: err.Error()}
}

// wrappedSystemError is a SystemError that keeps its cause.
type wrappedSystemError struct {
	SystemError
	cause error
}

// Unwrap exposes the cause to errors.Is and errors.As.
// ok: foldedtimeout
func (e wrappedSystemError) Unwrap() error { return e.cause }

// callErrorNearMiss is callError keeping the context error as the cause.
// ok: foldedtimeout
func callErrorNearMiss(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		code := ErrCodeCancelled
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			code = ErrCodeTimeout
		}
		return wrappedSystemError{SystemError{code: code, msg: ctxErr.Error()}, ctxErr}
	}
	return wrappedSystemError{SystemError{code: ErrCodeUnexpected, msg: err.Error()}, err}
}

// ---------------------------------------------------------------------------
// DNS exchange with package-level sentinels.

// Msg is a DNS message.
type Msg struct {
	ID      uint16
	Answers []string
}

var errCanceled = errors.New("operation was canceled")

// canceledError is a sentinel that also matches context.Canceled.
type canceledError struct{}

// Error implements error.
// ok: foldedtimeout
func (canceledError) Error() string { return "operation was canceled" }

// Is makes the sentinel match context.Canceled. Comparing with == is right
// here: Is is asked about one target at a time.
// ok: foldedtimeout
func (canceledError) Is(target error) bool { return target == context.Canceled }

var errCanceledNearMiss error = canceledError{}

// Resolver matches answers read off the wire to pending queries.
type Resolver struct {
	mu      sync.Mutex
	pending map[uint16]chan *Msg
}

// register creates the buffered slot an answer for id is delivered to.
// ok: foldedtimeout
func (r *Resolver) register(id uint16) chan *Msg {
	ch := make(chan *Msg, 1)
	r.mu.Lock()
	if r.pending == nil {
		r.pending = make(map[uint16]chan *Msg)
	}
	r.pending[id] = ch
	r.mu.Unlock()
	return ch
}

// forget drops the slot for id.
// ok: foldedtimeout
func (r *Resolver) forget(id uint16) {
	r.mu.Lock()
	delete(r.pending, id)
	r.mu.Unlock()
}

// Dispatch hands an answer read by the socket reader to its waiter. The slot
// is buffered, so the reader never blocks.
// ok: foldedtimeout
func (r *Resolver) Dispatch(m *Msg) {
	r.mu.Lock()
	ch, ok := r.pending[m.ID]
	delete(r.pending, m.ID)
	r.mu.Unlock()
	if ok {
		ch <- m
	}
}

// waitAnswer waits for the answer to id. When the caller's context ends it
// returns the package's own errCanceled, which is not context.Canceled, so a
// caller checking errors.Is(err, context.Canceled) treats it as a DNS failure.
// From: golang/go#51428
// bug: foldedtimeout
func (r *Resolver) waitAnswer(ctx context.Context, id uint16) (*Msg, error) {
	ch := r.register(id)
	defer r.forget(id)
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return nil, errCanceled
	}
}

// waitAnswerNearMiss returns a sentinel that still matches the context error.
// ok: foldedtimeout
func (r *Resolver) waitAnswerNearMiss(ctx context.Context, id uint16) (*Msg, error) {
	ch := r.register(id)
	defer r.forget(id)
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, errCanceledNearMiss
		}
		return nil, fmt.Errorf("dns exchange: %w", ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// HTTP-ish fetcher that hard-codes the cancel reason.

// Response is a fetched document.
type Response struct {
	Status int
	Body   []byte
}

// Fetcher waits for responses produced by a connection pool.
type Fetcher struct {
	pool interface {
		Submit(ctx context.Context, url string) <-chan *Response
	}
}

// Fetch waits for the pool's answer. When the context ends it reports
// context.Canceled even if the deadline expired, so a timed-out fetch looks
// like the user walked away and retry-on-timeout never fires.
// From: golang/go#17711
// bug: foldedtimeout
func (f *Fetcher) Fetch(ctx context.Context, url string) (*Response, error) {
	select {
	case resp := <-f.pool.Submit(ctx, url):
		return resp, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("fetch %s: %w", url, context.Canceled)
	}
}

// FetchNearMiss reports the context's actual error.
// ok: foldedtimeout
func (f *Fetcher) FetchNearMiss(ctx context.Context, url string) (*Response, error) {
	select {
	case resp := <-f.pool.Submit(ctx, url):
		return resp, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("fetch %s: %w", url, ctx.Err())
	}
}

// ---------------------------------------------------------------------------
// Correct code that only looks suspicious.

// CopyRecords copies records until the reader reports io.EOF. Comparing the
// reader's own return value with io.EOF directly is the io.Reader contract.
// ok: foldedtimeout
func CopyRecords(dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 32*1024)
	var n int64
	for {
		r, err := src.Read(buf)
		if r > 0 {
			w, werr := dst.Write(buf[:r])
			n += int64(w)
			if werr != nil {
				return n, werr
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// CloseSession closes a session and joins the context error with any close
// error, keeping both identities.
// ok: foldedtimeout
func CloseSession(ctx context.Context, closeFn func() error) error {
	cerr := closeFn()
	if err := ctx.Err(); err != nil {
		return errors.Join(fmt.Errorf("session aborted: %w", err), cerr)
	}
	return cerr
}

// DescribeFailure formats an error for a log line with %v and returns the
// original error untouched.
// ok: foldedtimeout
func DescribeFailure(op string, err error, log func(string)) error {
	log(fmt.Sprintf("%s failed: %v", op, err))
	return err
}
