package rounds

import (
	"fmt"
	"net/http"
	"time"
)

type httpRetrier struct {
	hc    *http.Client
	sleep func(time.Duration)
}

// The default clause of a tagless switch after `case err != nil:` runs on
// success only: its return is no exit on the error.
func (c *httpRetrier) Do(req *http.Request) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= 4; attempt++ { // want `this retry loop in Do calls c.hc.Do again after it fails without checking req.Context\(\)`
		resp, err := c.hc.Do(req)
		switch {
		case err != nil:
			lastErr = err
		case resp.StatusCode >= 500:
			resp.Body.Close()
			lastErr = fmt.Errorf("server returned %s", resp.Status)
		default:
			return resp, nil
		}
		c.sleep(time.Duration(1<<attempt) * time.Millisecond)
	}
	return nil, fmt.Errorf("giving up: %w", lastErr)
}

// Near miss: a failed request is returned at once.
func (c *httpRetrier) DoOnce(req *http.Request) (*http.Response, error) {
	var lastErr error
	for attempt := 0; attempt <= 4; attempt++ {
		resp, err := c.hc.Do(req)
		switch {
		case err != nil:
			return nil, err
		case resp.StatusCode >= 500:
			resp.Body.Close()
			lastErr = fmt.Errorf("server returned %s", resp.Status)
		default:
			return resp, nil
		}
		c.sleep(time.Duration(1<<attempt) * time.Millisecond)
	}
	return nil, fmt.Errorf("giving up: %w", lastErr)
}
