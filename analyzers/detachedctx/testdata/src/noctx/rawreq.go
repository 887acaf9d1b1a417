package noctx

import (
	"bufio"
	"context"
	"net"
	"net/http"
)

// A request written by hand onto a connection the function dialed: no
// client reads its context (the connection's own deadline governs).
func upgrade(ctx context.Context, conn net.Conn, url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Upgrade", "derp")
	brw := bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
	if err := req.Write(brw); err != nil {
		return nil, err
	}
	if err := brw.Flush(); err != nil {
		return nil, err
	}
	return http.ReadResponse(brw.Reader, req)
}

// Near miss: the request goes to a client, which reads its context.
func fetchVia(ctx context.Context, c *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil) // want `http.NewRequest takes no context although ctx is in reach`
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}
