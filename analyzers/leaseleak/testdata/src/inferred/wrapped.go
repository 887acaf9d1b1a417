package inferred

import (
	"compress/gzip"
	"crypto/tls"
	"encoding/xml"
	"fmt"
	"net"
	"os"
)

// Near-miss: the function closes the file itself; the gzip writer's Close
// only finishes the stream (it does not close f), so the return that
// skips it after a failed encode leaks nothing.
func writeReport(path string, report any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gzw := gzip.NewWriter(f)
	_, err = fmt.Fprint(gzw, xml.Header)
	enc := xml.NewEncoder(gzw)
	if err == nil {
		err = enc.Encode(report)
	}
	if err == nil {
		err = gzw.Close()
	}
	if err != nil {
		return fmt.Errorf("writing report: %v", err)
	}
	return nil
}

// The TLS client takes the connection over: the function closes only the
// client, and the failed handshake's return leaves both open.
func dialTLS(addr string, cfg *tls.Config) (string, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	tc := tls.Client(conn, cfg) // want `the tls.Conn tc from tls.Client is not closed on the path through the return when err != nil`
	if err := tc.Handshake(); err != nil {
		return "", err
	}
	v := tc.ConnectionState().NegotiatedProtocol
	tc.Close()
	return v, nil
}
