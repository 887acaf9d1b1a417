// Package verifier declares interfaces whose implementations in the
// package decide what their errors can carry.
package verifier

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Verifier checks a token.
type Verifier interface {
	Verify(ctx context.Context, token string) (string, error)
}

type idTokenVerifier struct{ hc *http.Client }

// Verify flattens the transport's error: no cancellation identity is left
// in what it returns.
func (v *idTokenVerifier) Verify(ctx context.Context, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://issuer.example/keys", nil)
	if err != nil {
		return "", fmt.Errorf("build request: %v", err)
	}
	resp, err := v.hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetch keys: %v", err) // want `fmt.Errorf formats err with %v`
	}
	resp.Body.Close()
	return token, err // nil here: every failure returned above
}

// New returns the package's verifier.
func New(hc *http.Client) Verifier { return &idTokenVerifier{hc: hc} }

// Fetcher fetches a document.
type Fetcher interface {
	Fetch(ctx context.Context, url string) ([]byte, error)
}

type flatFetcher struct{ hc *http.Client }

func (f flatFetcher) Fetch(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("request: %v", err)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get: %v", err) // want `fmt.Errorf formats err with %v`
	}
	resp.Body.Close()
	return nil, nil
}

type wrappingFetcher struct{ hc *http.Client }

// Fetch keeps the transport's error, cancellation included.
func (f *wrappingFetcher) Fetch(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	resp.Body.Close()
	return nil, nil
}

// Groups lists a user's groups, logging a failed lookup and going on: its
// error is always nil.
func Groups(ctx context.Context, hc *http.Client, user string) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://graph.example/"+user, nil)
	if err != nil {
		fmt.Println("groups:", err)
		return nil, nil
	}
	resp, err := hc.Do(req)
	if err != nil {
		fmt.Println("groups:", err)
		return nil, nil
	}
	resp.Body.Close()
	return []string{"staff"}, nil
}

// Recorder records an event.
type Recorder interface {
	Record(ctx context.Context, event string) error
}

type logRecorder struct{ events []string }

// Record reads only a value of its context.
func (l *logRecorder) Record(ctx context.Context, event string) error {
	if ctx.Value("trace") != nil {
		event += " (traced)"
	}
	if event == "" {
		return fmt.Errorf("empty event: %w", errEmpty)
	}
	l.events = append(l.events, event)
	return nil
}

var errEmpty = fmt.Errorf("empty")

// Handler handles a request.
type Handler interface {
	Handle(ctx context.Context, req string) error
}

// retrying delegates to the next handler: what that one does with ctx is
// not known here.
type retrying struct{ next Handler }

func (r retrying) Handle(ctx context.Context, req string) error {
	if req == "" {
		return errEmpty
	}
	return r.next.Handle(ctx, req)
}

// Plugin handles an operation.
type Plugin interface {
	Send(ctx context.Context, op string) error
}

type httpPlugin struct {
	url string
	hc  *http.Client
}

// Send sends the operation with its context bound to the request.
func (p *httpPlugin) Send(ctx context.Context, op string) error {
	return p.do(ctx, op)
}

func (p *httpPlugin) do(ctx context.Context, op string) error {
	req, err := http.NewRequest(http.MethodPost, p.url+"?op="+op, nil)
	if err != nil {
		return fmt.Errorf("bad url %q", p.url)
	}
	req = req.WithContext(ctx)
	resp, err := p.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// CloseAll tells every plugin; the only Plugin sends requests bound to
// ctx, so its error may be the cancellation.
func CloseAll(ctx context.Context, ps []Plugin) error {
	var errs []string
	for _, p := range ps {
		if err := p.Send(ctx, "close"); err != nil {
			errs = append(errs, fmt.Sprintf("%v", err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("close: %s", strings.Join(errs, "; ")) // want `fmt.Errorf builds a new error from strings.Join`
	}
	return nil
}
