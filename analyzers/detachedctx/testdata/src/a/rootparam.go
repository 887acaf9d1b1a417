package a

import (
	"context"
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
