package orphan

import (
	"io"
	"net"
)

// Modelled on TCP proxies that returned after the first direction ended:
// the other copier's send on errc blocks forever.
//
// bug: orphansend
func Pipe(a, b net.Conn) error {
	errc := make(chan error)
	go func() {
		_, err := io.Copy(a, b)
		errc <- err
	}()
	go func() {
		_, err := io.Copy(b, a)
		errc <- err
	}()
	return <-errc
}

// ok: orphansend
func PipeOK(a, b net.Conn) error {
	errc := make(chan error, 2)
	go func() {
		_, err := io.Copy(a, b)
		errc <- err
	}()
	go func() {
		_, err := io.Copy(b, a)
		errc <- err
	}()
	return <-errc
}
