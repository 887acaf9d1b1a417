package a

import (
	"context"
	"net/http"
)

var newRequestVar = http.NewRequest

// noCallerContext has no context in reach: however the request is built,
// its context is not a caller's, so Do's error cannot carry a caller's
// cancellation.
func noCallerContext(cli *http.Client, url string) {
	newRequest := http.NewRequest
	req, _ := newRequest(http.MethodPost, url, nil)
	cli.Do(req)

	req2, _ := newRequestVar(http.MethodPost, url, nil)
	cli.Do(req2)

	req3, _ := func() (*http.Request, error) {
		return http.NewRequest(http.MethodPost, url, nil)
	}()
	cli.Do(req3)
	println("done")
}

func buildRequest(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
}

// callerContext builds the request through a helper from the caller's
// context: Do fails with its cancellation.
func callerContext(ctx context.Context, cli *http.Client, url string) error {
	req, err := buildRequest(ctx, url)
	if err != nil {
		return err
	}
	cli.Do(req) // want `the error of cli.Do may carry the caller's cancellation and is dropped`
	return nil
}

// helperValue is noCallerContext's shape with a context in reach: the
// helper may bind it.
func helperValue(ctx context.Context, cli *http.Client, mk func(context.Context) (*http.Request, error)) error {
	req, err := mk(ctx)
	if err != nil {
		return err
	}
	cli.Do(req) // want `the error of cli.Do may carry the caller's cancellation and is dropped`
	return nil
}
