// Package httpx holds small HTTP helpers shared by the lease examples.
package httpx

import (
	"io"
)

// DrainAndClose discards what is left of body so the connection can be reused, then closes it.
// ok: leaseleak
func DrainAndClose(body io.ReadCloser) error {
	_, copyErr := io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	closeErr := body.Close()
	if copyErr != nil {
		return copyErr
	}
	return closeErr
}
