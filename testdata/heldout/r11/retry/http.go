package retry

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"time"
)

// Client retries idempotent HTTP requests with exponential backoff.
type Client struct {
	hc         *http.Client
	maxRetries int
	baseDelay  time.Duration
}

// ok: retrycancel
func (c *Client) backoff(attempt int) time.Duration {
	d := c.baseDelay << attempt
	jitter := time.Duration(rand.Int64N(int64(c.baseDelay)))
	return d + jitter
}

// ok: retrycancel
func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// Do sends req, retrying transport errors and retryable statuses.
// From: sethgrid/pester#44
// bug: retrycancel
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		if attempt > 0 {
			time.Sleep(c.backoff(attempt))
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		if !retryableStatus(resp.StatusCode) {
			return resp, nil
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		lastErr = fmt.Errorf("%s %s: status %d", req.Method, req.URL, resp.StatusCode)
	}
	return nil, lastErr
}

// DoNearMiss waits out the backoff only while the request is still wanted.
// ok: retrycancel
func (c *Client) DoNearMiss(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var lastErr error
	for attempt := 0; attempt <= c.maxRetries; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(c.backoff(attempt))
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, errors.Join(ctx.Err(), lastErr)
			case <-t.C:
			}
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			lastErr = err
			continue
		}
		if !retryableStatus(resp.StatusCode) {
			return resp, nil
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		lastErr = fmt.Errorf("%s %s: status %d", req.Method, req.URL, resp.StatusCode)
	}
	return nil, lastErr
}

// RetryPolicy decides whether and how long to wait before another attempt.
type RetryPolicy struct {
	MaxAttempts int
	WaitTime    time.Duration
	MaxWaitTime time.Duration
}

// Backoff runs operation until it succeeds or attempts run out.
// From: go-resty/resty#238
// bug: retrycancel
func Backoff(ctx context.Context, p RetryPolicy, operation func(context.Context) (*http.Response, error)) (*http.Response, error) {
	var resp *http.Response
	var err error
	wait := p.WaitTime
	for attempt := 1; attempt <= p.MaxAttempts; attempt++ {
		resp, err = operation(ctx)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		if attempt == p.MaxAttempts {
			break
		}
		log.Printf("request attempt %d failed, waiting %s", attempt, wait)
		<-time.After(wait)
		wait = min(2*wait, p.MaxWaitTime)
	}
	if err == nil {
		err = fmt.Errorf("giving up after %d attempts: status %d", p.MaxAttempts, resp.StatusCode)
	}
	return nil, err
}

// BackoffNearMiss wakes up as soon as ctx is cancelled.
// ok: retrycancel
func BackoffNearMiss(ctx context.Context, p RetryPolicy, operation func(context.Context) (*http.Response, error)) (*http.Response, error) {
	var resp *http.Response
	var err error
	wait := p.WaitTime
	for attempt := 1; attempt <= p.MaxAttempts; attempt++ {
		resp, err = operation(ctx)
		if err == nil && resp.StatusCode < 500 {
			return resp, nil
		}
		if resp != nil {
			resp.Body.Close()
		}
		if attempt == p.MaxAttempts {
			break
		}
		log.Printf("request attempt %d failed, waiting %s", attempt, wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, p.MaxWaitTime)
	}
	if err == nil {
		err = fmt.Errorf("giving up after %d attempts: status %d", p.MaxAttempts, resp.StatusCode)
	}
	return nil, err
}

// Requester is a small REST client with a retry condition hook.
type Requester struct {
	hc       *http.Client
	attempts int
	interval time.Duration
}

// Get fetches url, retrying on any transport error.
// From: imroc/req#339
// bug: retrycancel
func (r *Requester) Get(ctx context.Context, url string) ([]byte, error) {
	var lastErr error
	for i := 0; i < r.attempts; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := r.hc.Do(req)
		if err != nil {
			lastErr = err
			t := time.NewTimer(r.interval)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", url, err)
		}
		return body, nil
	}
	return nil, fmt.Errorf("get %s after %d attempts: %w", url, r.attempts, lastErr)
}

// GetNearMiss stops retrying when the failure came from the caller's ctx.
// ok: retrycancel
func (r *Requester) GetNearMiss(ctx context.Context, url string) ([]byte, error) {
	var lastErr error
	for i := 0; i < r.attempts; i++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := r.hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("get %s: %w", url, ctx.Err())
			}
			lastErr = err
			t := time.NewTimer(r.interval)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("get %s: %w", url, ctx.Err())
			}
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", url, err)
		}
		return body, nil
	}
	return nil, fmt.Errorf("get %s after %d attempts: %w", url, r.attempts, lastErr)
}

type gatewayNode interface {
	URL() string
	FetchBlock(ctx context.Context, cid string) ([]byte, error)
}

// Pool fetches content from a weighted list of gateway nodes.
type Pool struct {
	nodes  func(key string, n int) []gatewayNode
	fanout int
}

// FetchBlock tries successive nodes until one returns the block.
// From: filecoin-saturn/caboose#82
// bug: retrycancel
func (p *Pool) FetchBlock(ctx context.Context, cid string) ([]byte, error) {
	var errs []error
	for _, node := range p.nodes(cid, p.fanout) {
		blk, err := node.FetchBlock(ctx, cid)
		if err == nil {
			return blk, nil
		}
		log.Printf("fetch %s from %s: %v", cid, node.URL(), err)
		errs = append(errs, fmt.Errorf("%s: %w", node.URL(), err))
	}
	return nil, fmt.Errorf("fetch %s: all nodes failed: %w", cid, errors.Join(errs...))
}

// FetchBlockNearMiss does not move on to another node once ctx is done.
// ok: retrycancel
func (p *Pool) FetchBlockNearMiss(ctx context.Context, cid string) ([]byte, error) {
	var errs []error
	for _, node := range p.nodes(cid, p.fanout) {
		blk, err := node.FetchBlock(ctx, cid)
		if err == nil {
			return blk, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("fetch %s: %w", cid, ctxErr)
		}
		log.Printf("fetch %s from %s: %v", cid, node.URL(), err)
		errs = append(errs, fmt.Errorf("%s: %w", node.URL(), err))
	}
	return nil, fmt.Errorf("fetch %s: all nodes failed: %w", cid, errors.Join(errs...))
}

// EventStream is a server-sent-events subscription that reconnects.
type EventStream struct {
	hc        *http.Client
	retryWait time.Duration
	onEvent   func(line string)
	onError   func(error)
}

// ok: retrycancel
func (s *EventStream) consume(resp *http.Response) error {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("stream status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			s.onEvent(line)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// Subscribe connects to the stream and re-subscribes after every failure.
// From: launchdarkly/eventsource#71
// bug: retrycancel
func (s *EventStream) Subscribe(req *http.Request) error {
	for {
		resp, err := s.hc.Do(req)
		if err == nil {
			err = s.consume(resp)
		}
		s.onError(err)
		t := time.NewTimer(s.retryWait)
		<-t.C
		log.Printf("event stream %s: reconnecting", req.URL)
	}
}

// SubscribeNearMiss treats the request context as the subscription's lifetime.
// ok: retrycancel
func (s *EventStream) SubscribeNearMiss(req *http.Request) error {
	ctx := req.Context()
	for {
		resp, err := s.hc.Do(req)
		if err == nil {
			err = s.consume(resp)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s.onError(err)
		t := time.NewTimer(s.retryWait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		log.Printf("event stream %s: reconnecting", req.URL)
	}
}
