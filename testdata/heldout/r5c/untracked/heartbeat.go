package untracked

import (
	"net"
	"time"
)

var pingFrame = []byte{0x89, 0x00}

// StartHeartbeat pings conn every interval and returns a stop function. stop
// only closes the connection: the ticker loop never learns about it and keeps
// waking up and failing to write for the life of the process.
// From: raff/godet#38
// bug: untrackedgo
func StartHeartbeat(conn net.Conn, interval time.Duration) (stop func()) {
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for range t.C {
			_ = conn.SetWriteDeadline(time.Now().Add(interval))
			_, _ = conn.Write(pingFrame)
		}
	}()
	return func() { conn.Close() }
}

// StartKeepalive is the near-miss of StartHeartbeat: stop closes a done
// channel the loop selects on and then waits for the loop to exit.
// From: raff/godet#38
// ok: untrackedgo
func StartKeepalive(conn net.Conn, interval time.Duration) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = conn.SetWriteDeadline(time.Now().Add(interval))
				_, _ = conn.Write(pingFrame)
			}
		}
	}()
	return func() {
		close(done)
		<-exited
		conn.Close()
	}
}
