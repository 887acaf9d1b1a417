package testfilesoff

import (
	"net/http"
	"testing"
)

func TestGet(t *testing.T) {
	resp, err := http.Get("http://example.com")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		return
	}
	resp.Body.Close()
}
