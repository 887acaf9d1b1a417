// Package orphan holds examples of orphaned sends: a goroutine's result send
// blocks forever because the receiver already gave up.
package orphan

import (
	"io"
	"net"
)

// Pipe copies bytes both ways between client and backend and returns when
// either direction ends. Both copy goroutines report on one unbuffered
// channel but only the first report is received; after the conns are closed
// the other io.Copy returns and its goroutine blocks on `errCh <- err` forever.
// From: kubevirt/kubevirt#6168
// bug: orphansend
func Pipe(client, backend net.Conn) error {
	errCh := make(chan error)
	go func() {
		_, err := io.Copy(backend, client)
		errCh <- err
	}()
	go func() {
		_, err := io.Copy(client, backend)
		errCh <- err
	}()
	err := <-errCh
	client.Close()
	backend.Close()
	return err
}

// Splice is the near-miss of Pipe: after closing both conns it receives the
// second report too, so neither send is left without a receiver.
// From: kubevirt/kubevirt#6168
// ok: orphansend
func Splice(client, backend net.Conn) error {
	errCh := make(chan error)
	go func() {
		_, err := io.Copy(backend, client)
		errCh <- err
	}()
	go func() {
		_, err := io.Copy(client, backend)
		errCh <- err
	}()
	err := <-errCh
	client.Close()
	backend.Close()
	<-errCh
	return err
}
