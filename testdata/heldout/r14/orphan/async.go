package orphan

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Response wraps an HTTP response or the error that prevented one.
type Response struct {
	Ok         bool
	StatusCode int
	Body       []byte
	Error      error
}

// RequestOptions configures a request.
type RequestOptions struct {
	Headers map[string]string
	Client  *http.Client
}

// Get performs a blocking GET.
//
// ok: orphansend
func Get(url string, ro *RequestOptions) *Response {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return &Response{Error: err}
	}
	for k, v := range ro.Headers {
		req.Header.Set(k, v)
	}
	resp, err := ro.Client.Do(req)
	if err != nil {
		return &Response{Error: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return &Response{Ok: resp.StatusCode < 400, StatusCode: resp.StatusCode, Body: b, Error: err}
}

// GetAsync starts a GET and returns a channel that will deliver the
// response.
//
// From: levigross/grequests#1
// bug: orphansend
func GetAsync(url string, ro *RequestOptions) <-chan *Response {
	ch := make(chan *Response)
	go func() {
		ch <- Get(url, ro)
	}()
	return ch
}

// GetAsyncNearMiss returns a channel with room for the response, so callers
// that stop waiting do not strand the request goroutine.
//
// ok: orphansend
func GetAsyncNearMiss(url string, ro *RequestOptions) <-chan *Response {
	ch := make(chan *Response, 1)
	go func() {
		ch <- Get(url, ro)
	}()
	return ch
}

// FetchOrGiveUp waits for an async GET until ctx ends.
//
// ok: orphansend
func FetchOrGiveUp(ctx context.Context, url string, ro *RequestOptions) (*Response, error) {
	select {
	case r := <-GetAsyncNearMiss(url, ro):
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Timeout runs fn and returns a channel that yields true when fn finishes
// or false when d passes first. The caller reads it once.
//
// From: rakyll/coop#5
// bug: orphansend
func Timeout(d time.Duration, fn func()) <-chan bool {
	done := make(chan bool)
	go func() {
		fn()
		done <- true
	}()
	go func() {
		time.Sleep(d)
		done <- false
	}()
	return done
}

// TimeoutNearMiss gives both racers a slot.
//
// ok: orphansend
func TimeoutNearMiss(d time.Duration, fn func()) <-chan bool {
	done := make(chan bool, 2)
	go func() {
		fn()
		done <- true
	}()
	go func() {
		time.Sleep(d)
		done <- false
	}()
	return done
}
