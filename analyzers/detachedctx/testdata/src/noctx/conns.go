package noctx

import (
	"context"
	"net"
	"os/exec"
)

type connKey struct{}

func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// acceptLoop gives each connection a fresh context with a value added.
func acceptLoop(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go handleConn(withConn(context.Background(), c), c)
		go handleCancelable(withConn(context.TODO(), c), c)
	}
}

// Near miss: every caller gives a context that cannot end, values added to
// Background: exec.Command cuts nothing off.
func handleConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	_ = exec.Command("true").Run()
}

func serveOne(ctx context.Context, l net.Listener) {
	c, err := l.Accept()
	if err != nil {
		return
	}
	handleCancelable(withConn(ctx, c), c)
}

// One caller gives a context that can end.
func handleCancelable(ctx context.Context, c net.Conn) {
	defer c.Close()
	_ = exec.Command("true").Run() // want `exec.Command takes no context although ctx is in reach`
}
