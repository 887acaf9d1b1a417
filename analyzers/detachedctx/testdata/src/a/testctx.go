package a

import (
	"context"
	"net"
	"testing"
)

func dialFixture(ctx context.Context, addr string) (net.Conn, error) {
	return net.Dial("tcp", addr)
}

// BootstrapFixture is a test helper in a non-test file: the test's
// context ends only after the test, so the dial cuts nothing off.
func BootstrapFixture(t *testing.T, addr string) net.Conn {
	c, err := dialFixture(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func dialLive(ctx context.Context, addr string) (net.Conn, error) {
	return net.Dial("tcp", addr) // want `net.Dial takes no context although ctx is in reach`
}

// Near-miss: a caller with a live context.
func Connect(ctx context.Context, addr string) (net.Conn, error) {
	return dialLive(ctx, addr)
}
