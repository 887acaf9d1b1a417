package retry

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
)

type API struct {
	hc  *http.Client
	url string
}

// Modelled on an API client that honoured Retry-After on 429 with
// time.Sleep.
//
// bug: retrycancel
func (a *API) Get(ctx context.Context) (*http.Response, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		resp.Body.Close()
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		time.Sleep(time.Duration(secs) * time.Second)
	}
}

// waitSlot sleeps until the next slot boundary; it takes no context.
//
// ok: retrycancel
func waitSlot(slot time.Duration) {
	time.Sleep(time.Until(time.Now().Truncate(slot).Add(slot)))
}

// Modelled on a duty loop that waited for a slot boundary with a
// context-less sleep helper before each submission.
//
// bug: retrycancel
func (a *Agent) SubmitEachSlot(ctx context.Context, name string) error {
	for {
		waitSlot(12 * time.Second)
		if err := a.reg.Heartbeat(ctx, name); err != nil {
			return err
		}
	}
}

// Modelled on a transaction retry state whose backoff slept
// unconditionally.
//
// bug: retrycancel
func (a *Agent) Txn(ctx context.Context, name string, maxTries int) error {
	var errs []error
	delay := 50 * time.Millisecond
	for try := 0; try < maxTries; try++ {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		time.Sleep(delay)
		delay *= 2
	}
	return errors.Join(errs...)
}

// The retry loop keeps going when the parent's deadline is what failed.
//
// bug: retrycancel
func (a *Agent) Resolve2(ctx context.Context, name string) ([]string, error) {
	for attempt := 1; ; attempt++ {
		addrs, err := a.reg.Lookup(ctx, name)
		switch {
		case err == nil:
			return addrs, nil
		case errors.Is(err, context.DeadlineExceeded) && attempt < 5:
			continue
		default:
			return nil, err
		}
	}
}

// ok: retrycancel
func (a *API) GetOK(ctx context.Context) (*http.Response, error) {
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url, nil)
		if err != nil {
			return nil, err
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusTooManyRequests {
			return resp, nil
		}
		resp.Body.Close()
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		t := time.NewTimer(time.Duration(secs) * time.Second)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// ok: retrycancel
func (a *Agent) TxnOK(ctx context.Context, name string, maxTries int) error {
	var errs []error
	delay := 50 * time.Millisecond
	for try := 0; try < maxTries; try++ {
		err := a.reg.Register(ctx, name, a.addr)
		if err == nil {
			return nil
		}
		errs = append(errs, err)
		select {
		case <-ctx.Done():
			return errors.Join(append(errs, ctx.Err())...)
		case <-time.After(delay):
		}
		delay *= 2
	}
	return errors.Join(errs...)
}

// A one-shot startup delay before a single attempt is not a retry.
//
// ok: retrycancel
func (a *Agent) DelayedRegister(ctx context.Context, name string) error {
	time.Sleep(20 * time.Millisecond)
	return a.reg.Register(ctx, name, a.addr)
}

// The per-attempt timeout is derived inside the loop; its deadline is
// retried, the parent's is not.
//
// ok: retrycancel
func (a *Agent) ResolvePerAttempt(ctx context.Context, name string) ([]string, error) {
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		addrs, err := a.reg.Lookup(actx, name)
		cancel()
		switch {
		case err == nil:
			return addrs, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) && attempt < 5:
			continue
		default:
			return nil, err
		}
	}
}
