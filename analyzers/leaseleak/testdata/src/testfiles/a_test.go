package testfiles

import (
	"net/http"
	"testing"
)

func TestGet(t *testing.T) {
	resp, err := http.Get("http://example.com") // want `the response body resp.Body from http.Get is not closed`
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		return
	}
	resp.Body.Close()
}
