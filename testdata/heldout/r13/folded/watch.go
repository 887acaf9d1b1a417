package folded

import (
	"context"
	"encoding/json"
	"net/http"
)

// Event is one key change from a watch stream.
type Event struct {
	Action string `json:"action"`
	Key    string `json:"key"`
}

// Watcher long-polls a key for changes.
type Watcher struct {
	http Doer
	url  string
}

// Next waits for the next event. On cancellation it closes the body to
// abort the read and returns the read's error, which is "use of closed
// network connection" rather than the context error.
// From: etcd-io/etcd#3216
// bug: foldedtimeout
func (w *Watcher) Next(ctx context.Context) (*Event, error) {
	req, err := http.NewRequest(http.MethodGet, w.url+"?wait=true", http.NoBody)
	if err != nil {
		return nil, err
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return nil, err
	}
	var ev Event
	var readErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		readErr = json.NewDecoder(resp.Body).Decode(&ev)
	}()
	select {
	case <-ctx.Done():
		_ = resp.Body.Close()
		<-done
		return nil, readErr
	case <-done:
		_ = resp.Body.Close()
		if readErr != nil {
			return nil, readErr
		}
		return &ev, nil
	}
}

// NextNearMiss returns the context error after aborting the read.
// ok: foldedtimeout
func (w *Watcher) NextNearMiss(ctx context.Context) (*Event, error) {
	req, err := http.NewRequest(http.MethodGet, w.url+"?wait=true", http.NoBody)
	if err != nil {
		return nil, err
	}
	resp, err := w.http.Do(req)
	if err != nil {
		return nil, err
	}
	var ev Event
	var readErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		readErr = json.NewDecoder(resp.Body).Decode(&ev)
	}()
	select {
	case <-ctx.Done():
		_ = resp.Body.Close()
		<-done
		return nil, ctx.Err()
	case <-done:
		_ = resp.Body.Close()
		if readErr != nil {
			return nil, readErr
		}
		return &ev, nil
	}
}
