package bodies

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// Status check returns before the deferred close is registered.
func status(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed on the path through the return when resp.StatusCode != http.StatusOK, so the connection cannot be reused`
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", resp.Status)
	}
	defer resp.Body.Close()
	return nil
}

// The body is decoded but never closed.
func decode(url string, v any) error {
	resp, err := http.Get(url) // want `the response body resp.Body from http.Get is not closed on the path through the return, so`
	if err != nil {
		return err
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// err != nil || status: the status branch leaks.
func combined(url string) ([]byte, error) {
	resp, err := http.Get(url) // want `is not closed on the path through the return when err != nil \|\| resp.StatusCode != 200`
	if err != nil || resp.StatusCode != 200 {
		return nil, errors.New("failed")
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// Cancellation checked after the request.
func afterCtx(ctx context.Context, req *http.Request) ([]byte, error) {
	resp, err := http.DefaultClient.Do(req.WithContext(ctx)) // want `when ctx.Err\(\) != nil`
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return b, err
}

// ---- near misses ----

func good(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// resp != nil check before err check.
func nilCheck(url string) error {
	resp, err := http.Get(url)
	if resp != nil {
		defer resp.Body.Close()
	}
	return err
}

// Returned to the caller, who owns it.
func open(c *http.Client, req *http.Request) (*http.Response, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 500 {
		resp.Body.Close()
		return nil, errors.New("server error")
	}
	return resp, nil
}

// The body is returned.
func body(url string) (io.ReadCloser, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Given to a helper that drains and closes it.
func drained(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	drainAndClose(resp)
	return nil
}

func drainAndClose(r *http.Response) {
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
}

// Closed through a helper taking the body.
func closedBody(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	closeQuietly(resp.Body)
	return nil
}

func closeQuietly(c io.Closer) { _ = c.Close() }

// errors.Is on the acquisition error.
func errorsIs(url string) error {
	resp, err := http.Get(url)
	if errors.Is(err, context.Canceled) {
		return err
	}
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// Closed in a deferred closure that checks the error.
func deferredErr(url string) (err error) {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := resp.Body.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	_, err = io.ReadAll(resp.Body)
	return err
}

// The response is sent to a consumer.
func produce(url string, out chan<- *http.Response) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	out <- resp
	return nil
}

// Read to EOF: the transport takes the connection back by itself.
func readAll(url string) (int, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	return len(b), err
}

// Only failure is expected: the success path ends the program.
func mustFail(url string) error {
	_, err := http.Get(url)
	if err == nil {
		panic("want an error")
	}
	return err
}

func discardedOK(url string) error {
	_, err := http.Get(url) // want `the response body from http.Get is discarded, so it can never be closed`
	return err
}

// t.Fatalf does not return: the status path ends the test.
func checkStatus(t *testing.T, url string) {
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	defer resp.Body.Close()
}

var errSkip = errors.New("skip")

// A sentinel error compared with == means the call failed.
func alt(rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	if resp, err := rt.RoundTrip(req); err != errSkip {
		return resp, err
	}
	return nil, nil
}

// A nil Body has nothing to close.
func nilBody(rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.Body == nil {
		return nil, errors.New("nil body")
	}
	return resp, nil
}

// The first response is overwritten by the second request.
func twoRequests(c *http.Client, a, b string) error {
	resp, err := c.Get(a) // want `the response body resp.Body from \(\*http.Client\).Get is not closed before resp is overwritten`
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusNotFound {
		resp, err = c.Get(b)
		if err != nil {
			return err
		}
	}
	defer resp.Body.Close()
	return nil
}

// Near miss: closed before the variable is reused.
func closedFirst(c *http.Client, a, b string) error {
	resp, err := c.Get(a)
	if err != nil {
		return err
	}
	resp.Body.Close()
	resp, err = c.Get(b)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// bodyAlias closes the body through a variable holding resp.Body: that
// releases resp.
func bodyAlias(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	body := resp.Body
	defer body.Close()
	rc := body
	_ = rc
	return nil
}

// bodyAliasRead only reads through the alias: the body stays open.
func bodyAliasRead(ctx context.Context, c *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed`
	if err != nil {
		return nil, err
	}
	body := resp.Body
	return io.ReadAll(body)
}

// bareGet drops the response with every other result.
func bareGet(ctx context.Context, c *http.Client, req *http.Request) {
	c.Do(req) // want `the response body from \(\*http.Client\).Do is discarded, so it can never be closed`
}

// printed formats the response: fmt keeps no reference, the body stays
// open.
func printed(c *http.Client, req *http.Request) {
	resp, err := c.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed`
	if err != nil {
		return
	}
	fmt.Println(resp.Status, resp)
}

// printedClosed is printed with the body closed.
func printedClosed(c *http.Client, req *http.Request) {
	resp, err := c.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	fmt.Println(resp)
}

// deferredNoop hands the body to a deferred literal that ignores it.
func deferredNoop(c *http.Client, req *http.Request) {
	resp, err := c.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed`
	if err != nil {
		return
	}
	defer func(body io.ReadCloser) {}(resp.Body)
}

// deferredClose hands it to one that closes it.
func deferredClose(c *http.Client, req *http.Request) {
	resp, err := c.Do(req)
	if err != nil {
		return
	}
	defer func(body io.Closer) { body.Close() }(resp.Body)
}

// deadCloser builds a closer and throws it away.
func deadCloser(c *http.Client, req *http.Request) {
	resp, err := c.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed`
	if err != nil {
		return
	}
	_ = func() { resp.Body.Close() }
}

// calledCloser builds one and calls it.
func calledCloser(c *http.Client, req *http.Request) {
	resp, err := c.Do(req)
	if err != nil {
		return
	}
	closer := func() { resp.Body.Close() }
	closer()
}

// limitedDropped wraps the body and drops the wrapper: nothing closes it.
func limitedDropped(c *http.Client, req *http.Request) {
	resp, err := c.Do(req) // want `the response body resp.Body from \(\*http.Client\).Do is not closed`
	if err != nil {
		return
	}
	_ = http.MaxBytesReader(nil, resp.Body, 1<<20)
}

// limitedClosed closes the wrapper, which closes the body.
func limitedClosed(c *http.Client, req *http.Request) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	body := http.MaxBytesReader(nil, resp.Body, 1<<20)
	defer body.Close()
	_, err = io.ReadAll(body)
	return err
}

// limitedReturned hands the wrapper, and the body in it, to the caller.
func limitedReturned(c *http.Client, req *http.Request) (io.ReadCloser, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	return http.MaxBytesReader(nil, resp.Body, 1<<20), nil
}
