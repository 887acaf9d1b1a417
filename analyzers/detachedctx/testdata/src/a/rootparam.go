package a

import (
	"bufio"
	"context"
	"net"
	"net/http"
)

// resolveSecret is only ever given context.Background(): the context in
// its reach never ends, so a request made without it cuts nothing off.
func resolveSecret(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return http.DefaultClient.Do(req.WithContext(context.Background()))
}

func loadAuth() error {
	_, err := resolveSecret(context.Background(), "http://vault/auth")
	return err
}

func loadOIDC() error {
	_, err := resolveSecret(context.TODO(), "http://vault/oidc")
	return err
}

// fetchToken has one caller that passes its own context.
func fetchToken(ctx context.Context, url string) (*http.Response, error) {
	return http.Get(url) // want `http.Get takes no context although ctx is in reach`
}

func refresh(ctx context.Context) error {
	_, err := fetchToken(ctx, "http://idp/token")
	return err
}

func warm() error {
	_, err := fetchToken(context.Background(), "http://idp/token")
	return err
}

// proxyConn serves requests read off a raw connection: their context is
// context.Background(), so dialing without it cuts nothing off.
func proxyConn(conn net.Conn) error {
	req, err := http.ReadRequest(bufio.NewReader(conn))
	if err != nil {
		return err
	}
	return forward(req)
}

func forward(r *http.Request) error {
	c, err := net.Dial("tcp", r.Host)
	if err != nil {
		return err
	}
	return c.Close()
}

// Near-miss: a handler's request ends when its client goes away.
func forwardHandler(w http.ResponseWriter, r *http.Request) {
	c, err := net.Dial("tcp", r.Host) // want `net.Dial takes no context although r.Context\(\) is in reach`
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	c.Close()
}
