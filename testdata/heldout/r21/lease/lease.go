// Package lease holds acquired resources that are not released on every
// path.
package lease

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// HTTPWrapper decodes JSON answers of connector APIs.
type HTTPWrapper struct {
	client *http.Client
}

// Do sends req and decodes the body into expected or errBody.
// From: formancehq/payments#753
// the body is only closed after the early returns for a nil expected or
// errBody, so those calls leak the connection
//
// bug: leaseleak
func (w *HTTPWrapper) Do(ctx context.Context, req *http.Request, expected, errBody any) (int, error) {
	resp, err := w.client.Do(req.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("failed to make request: %w", err)
	}
	failed := resp.StatusCode >= http.StatusBadRequest
	if !failed && expected == nil {
		return resp.StatusCode, nil
	}
	if failed && errBody == nil {
		return resp.StatusCode, fmt.Errorf("unexpected status code: %d", resp.StatusCode)
	}
	defer resp.Body.Close()

	target := expected
	if failed {
		target = errBody
	}
	if err := json.NewDecoder(resp.Body).Decode(target); err != nil {
		return resp.StatusCode, fmt.Errorf("failed to decode response: %w", err)
	}
	if failed {
		return resp.StatusCode, fmt.Errorf("unexpected status code: %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// DoNearMiss sends req and decodes the body, draining and closing it on
// every path.
// From: formancehq/payments#753
//
// ok: leaseleak
func (w *HTTPWrapper) DoNearMiss(ctx context.Context, req *http.Request, expected, errBody any) (int, error) {
	resp, err := w.client.Do(req.WithContext(ctx))
	if err != nil {
		return 0, fmt.Errorf("failed to make request: %w", err)
	}
	defer func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}()
	failed := resp.StatusCode >= http.StatusBadRequest
	if !failed && expected == nil {
		return resp.StatusCode, nil
	}
	if failed && errBody == nil {
		return resp.StatusCode, fmt.Errorf("unexpected status code: %d", resp.StatusCode)
	}

	target := expected
	if failed {
		target = errBody
	}
	if err := json.NewDecoder(resp.Body).Decode(target); err != nil {
		return resp.StatusCode, fmt.Errorf("failed to decode response: %w", err)
	}
	if failed {
		return resp.StatusCode, fmt.Errorf("unexpected status code: %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// MailClient talks to the mail-send API.
type MailClient struct {
	http    *http.Client
	retries int
	backoff time.Duration
}

// waitBackoff sleeps d or until ctx ends.
//
// ok: leaseleak
func waitBackoff(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// doRequest sends a GET to url, retrying 5xx answers; the caller closes the
// returned body.
// From: mailjet/mailjet-apiv3-go#14
// a 5xx response is dropped for the next attempt without closing its body,
// so every retried attempt leaks a connection
//
// bug: leaseleak
func (c *MailClient) doRequest(ctx context.Context, url string) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < http.StatusInternalServerError || attempt >= c.retries {
			return resp, nil
		}
		if err := waitBackoff(ctx, c.backoff*time.Duration(attempt)); err != nil {
			return nil, err
		}
	}
}

// doRequestNearMiss sends a GET to url, retrying 5xx answers, and closes
// each discarded response.
// From: mailjet/mailjet-apiv3-go#14
//
// ok: leaseleak
func (c *MailClient) doRequestNearMiss(ctx context.Context, url string) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode < http.StatusInternalServerError || attempt >= c.retries {
			return resp, nil
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if err := waitBackoff(ctx, c.backoff*time.Duration(attempt)); err != nil {
			return nil, err
		}
	}
}

var errNoBanner = errors.New("ftp: no banner on any port")

// FTPProbe grabs FTP banners.
type FTPProbe struct {
	timeout time.Duration
	grab    func(ctx context.Context, host string, port int) (string, error)
}

// attemptContext bounds one probe attempt.
//
// ok: leaseleak
func (p *FTPProbe) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, p.timeout)
}

// Probe tries each candidate port in turn.
// From: cyprob/cyprob#269
// each attempt's cancel is only called at the start of the next iteration,
// so the context of the last attempt is never cancelled on return
//
// bug: leaseleak
func (p *FTPProbe) Probe(ctx context.Context, host string, ports []int) (string, error) {
	cancel := context.CancelFunc(func() {})
	for _, port := range ports {
		cancel()
		var actx context.Context
		actx, cancel = p.attemptContext(ctx)
		banner, err := p.grab(actx, host, port)
		if err == nil {
			return banner, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
	}
	return "", errNoBanner
}

// ProbeNearMiss tries each candidate port in turn and cancels every
// attempt's context before moving on or returning.
// From: cyprob/cyprob#269
//
// ok: leaseleak
func (p *FTPProbe) ProbeNearMiss(ctx context.Context, host string, ports []int) (string, error) {
	try := func(port int) (string, error) {
		actx, cancel := p.attemptContext(ctx)
		defer cancel()
		return p.grab(actx, host, port)
	}
	for _, port := range ports {
		banner, err := try(port)
		if err == nil {
			return banner, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
	}
	return "", errNoBanner
}

// Lease is a held distributed lock.
type Lease interface {
	Unlock(ctx context.Context) error
}

// Locker hands out distributed locks with a TTL.
type Locker interface {
	Lock(ctx context.Context, key string, ttl time.Duration) (Lease, error)
}

// NarStore stores NAR archives.
type NarStore interface {
	Put(ctx context.Context, hash string, r io.Reader) error
}

// Cache serialises writers of the same NAR through a distributed lock.
type Cache struct {
	locks   Locker
	store   NarStore
	lockTTL time.Duration
}

// PutNar stores a NAR while holding its lock.
// From: kalbasit/ncps#913
// the lock is released with the request context; when the request was
// cancelled the unlock call fails at once and the lock stays held until its
// TTL expires
//
// bug: leaseleak
func (c *Cache) PutNar(ctx context.Context, hash string, r io.Reader) (err error) {
	lease, err := c.locks.Lock(ctx, "nar:"+hash, c.lockTTL)
	if err != nil {
		return fmt.Errorf("locking nar %s: %w", hash, err)
	}
	defer func() {
		err = errors.Join(err, lease.Unlock(ctx))
	}()
	return c.store.Put(ctx, hash, r)
}

// PutNarNearMiss stores a NAR while holding its lock and releases the lock
// on a context that survives the request's cancellation.
// From: kalbasit/ncps#913
//
// ok: leaseleak
func (c *Cache) PutNarNearMiss(ctx context.Context, hash string, r io.Reader) (err error) {
	lease, err := c.locks.Lock(ctx, "nar:"+hash, c.lockTTL)
	if err != nil {
		return fmt.Errorf("locking nar %s: %w", hash, err)
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		err = errors.Join(err, lease.Unlock(uctx))
	}()
	return c.store.Put(ctx, hash, r)
}

// Part is one object part to upload.
type Part struct {
	Key  string
	Data []byte
}

// PartUploader limits concurrent part uploads with a semaphore.
type PartUploader struct {
	sem  chan struct{}
	open func(ctx context.Context, key string) (io.WriteCloser, error)
}

// acquire takes one upload slot or gives up when ctx ends.
//
// ok: leaseleak
func (u *PartUploader) acquire(ctx context.Context) error {
	select {
	case u.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release returns one upload slot.
//
// ok: leaseleak
func (u *PartUploader) release() {
	<-u.sem
}

// Upload writes part under an upload slot.
// From: AutoMQ/automq#2382
// when opening the object fails the slot is never released, so after enough
// failures every later upload blocks in acquire
//
// bug: leaseleak
func (u *PartUploader) Upload(ctx context.Context, part Part) (err error) {
	if err := u.acquire(ctx); err != nil {
		return err
	}
	w, err := u.open(ctx, part.Key)
	if err != nil {
		return fmt.Errorf("opening %s: %w", part.Key, err)
	}
	defer u.release()
	defer func() {
		err = errors.Join(err, w.Close())
	}()
	_, err = w.Write(part.Data)
	return err
}

// UploadNearMiss writes part under an upload slot and releases the slot on
// every path.
// From: AutoMQ/automq#2382
//
// ok: leaseleak
func (u *PartUploader) UploadNearMiss(ctx context.Context, part Part) (err error) {
	if err := u.acquire(ctx); err != nil {
		return err
	}
	defer u.release()
	w, err := u.open(ctx, part.Key)
	if err != nil {
		return fmt.Errorf("opening %s: %w", part.Key, err)
	}
	defer func() {
		err = errors.Join(err, w.Close())
	}()
	_, err = w.Write(part.Data)
	return err
}

// Span is one trace span.
type Span interface {
	End(err error)
}

// Tracer starts spans.
type Tracer interface {
	Start(ctx context.Context, name string) (context.Context, Span)
}

// ReadRequest reads documents from a collection.
type ReadRequest struct {
	Collection string
	Filter     []byte
}

// QueryService serves document reads.
type QueryService struct {
	tracer    Tracer
	authorize func(ctx context.Context, req ReadRequest) error
	read      func(ctx context.Context, req ReadRequest) ([][]byte, error)
}

// Read authorizes and runs req inside a span.
// From: tigrisdata-archive/tigrisdb#591
// when authorization fails the function returns before span.End, so the
// span is never finished and stays in the tracer's buffers
//
// bug: leaseleak
func (s *QueryService) Read(ctx context.Context, req ReadRequest) ([][]byte, error) {
	ctx, span := s.tracer.Start(ctx, "query.read")
	if err := s.authorize(ctx, req); err != nil {
		return nil, fmt.Errorf("read %s: %w", req.Collection, err)
	}
	docs, err := s.read(ctx, req)
	span.End(err)
	return docs, err
}

// ReadNearMiss authorizes and runs req inside a span that is ended on every
// path.
// From: tigrisdata-archive/tigrisdb#591
//
// ok: leaseleak
func (s *QueryService) ReadNearMiss(ctx context.Context, req ReadRequest) (docs [][]byte, err error) {
	ctx, span := s.tracer.Start(ctx, "query.read")
	defer func() { span.End(err) }()
	if err := s.authorize(ctx, req); err != nil {
		return nil, fmt.Errorf("read %s: %w", req.Collection, err)
	}
	return s.read(ctx, req)
}
