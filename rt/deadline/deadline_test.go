package deadline_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/deadline"
	"github.com/cancelcheck/cancelcheck/rt/stop"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0n"},
		{0, "0n"},
		{1, "1n"},
		{99999999, "99999999n"},
		{100000000, "100000u"},
		{1500 * time.Millisecond, "1500000u"},
		{100*time.Second + 999, "100000m"}, // rounds down
		{30 * time.Minute, "1800000m"},
		{48 * time.Hour, "172800S"},
		{math.MaxInt64, "2562047H"},
	} {
		if got := deadline.Format(tc.d); got != tc.want {
			t.Errorf("Format(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want time.Duration
	}{
		{"0n", 0},
		{"1n", 1},
		{"1500m", 1500 * time.Millisecond},
		{"00000001S", time.Second},
		{"99999999n", 99999999},
		{"2M", 2 * time.Minute},
		{"2562047H", 2562047 * time.Hour},
		{"7u", 7 * time.Microsecond},
	} {
		if got, err := deadline.Parse(tc.s); err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.s, got, err, tc.want)
		}
	}
	for _, s := range []string{
		"", "S", "1", "10", "1s", "1h", "-1S", "+1S", " 1S", "1S ", "1 S", "1.5S",
		"123456789S", "0x10S", "１S", "1SS", "S1", "1\x00S",
	} {
		if d, err := deadline.Parse(s); !errors.Is(err, deadline.ErrSyntax) {
			t.Errorf("Parse(%q) = %v, %v; want ErrSyntax", s, d, err)
		}
	}
	for _, s := range []string{"99999999H", "2562048H"} {
		if d, err := deadline.Parse(s); !errors.Is(err, deadline.ErrRange) {
			t.Errorf("Parse(%q) = %v, %v; want ErrRange", s, d, err)
		}
	}
	_, err := deadline.Parse("soon")
	if want := `deadline: malformed timeout "soon"`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// checkRoundTrip asserts that Format(d) parses back to at most d and to
// within the precision of 5 significant digits, the least Format keeps.
func checkRoundTrip(t *testing.T, d time.Duration) {
	t.Helper()
	s := deadline.Format(d)
	got, err := deadline.Parse(s)
	if err != nil {
		t.Fatalf("Parse(Format(%v) = %q) failed: %v", d, s, err)
	}
	if d <= 0 {
		if got != 0 {
			t.Fatalf("Format(%v) = %q parses as %v, want 0", d, s, got)
		}
		return
	}
	if got > d || d-got > d/100000 {
		t.Fatalf("Format(%v) = %q parses as %v", d, s, got)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{math.MinInt64, -1, 0, 1, 99999999, 100000000, 123456789012, math.MaxInt64} {
		checkRoundTrip(t, d)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1500m", "0n", "99999999H", "2562047H", "", "-1S", "1.5S", "123456789n", "7"} {
		f.Add(s, int64(1500*time.Millisecond))
	}
	f.Fuzz(func(t *testing.T, s string, d int64) {
		got, err := deadline.Parse(s)
		if err != nil {
			if got != 0 || !(errors.Is(err, deadline.ErrSyntax) || errors.Is(err, deadline.ErrRange)) {
				t.Fatalf("Parse(%q) = %v, %v", s, got, err)
			}
		} else if got < 0 {
			t.Fatalf("Parse(%q) = %v, negative", s, got)
		} else if len(s) > 9 {
			t.Fatalf("Parse(%q) accepted more than 8 digits", s)
		}
		checkRoundTrip(t, time.Duration(d))
	})
}

func TestEncodeInjectExtract(t *testing.T) {
	if v, ok := deadline.Encode(context.Background()); ok || v != "" {
		t.Errorf("Encode(no deadline) = %q, %v", v, ok)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	h := http.Header{}
	deadline.Inject(ctx, h)
	d, err := deadline.Parse(h.Get(deadline.Header))
	if err != nil || d > time.Hour || d < 59*time.Minute {
		t.Fatalf("Inject wrote %q (%v, %v)", h.Get(deadline.Header), d, err)
	}
	got, cancel2, err := deadline.Extract(context.Background(), h)
	defer cancel2()
	if err != nil {
		t.Fatal(err)
	}
	if dl, ok := got.Deadline(); !ok || time.Until(dl) > time.Hour || time.Until(dl) < 58*time.Minute {
		t.Errorf("extracted deadline %v, %v", dl, ok)
	}
	// No deadline: the header is removed.
	deadline.Inject(context.Background(), h)
	if _, ok := h[deadline.Header]; ok {
		t.Error("Inject without a deadline left the header")
	}
	same, cancel3, err := deadline.Extract(ctx, h)
	cancel3()
	if same != ctx || err != nil {
		t.Errorf("Extract without header = %v, %v; want ctx unchanged", same, err)
	}
	// The earlier deadline wins.
	h.Set(deadline.Header, "99999999S")
	got, cancel4, _ := deadline.Extract(ctx, h)
	defer cancel4()
	if dl, _ := got.Deadline(); time.Until(dl) > time.Hour {
		t.Errorf("the header extended the parent's deadline to %v", dl)
	}
}

func TestExtractExpired(t *testing.T) {
	h := http.Header{deadline.Header: {"0n"}}
	ctx, cancel, err := deadline.Extract(context.Background(), h)
	defer cancel()
	if err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), deadline.ErrCallerDeadline) || stop.Classify(ctx, ctx.Err()) != stop.TimedOut {
		t.Errorf("cause %v, class %v", context.Cause(ctx), stop.Classify(ctx, ctx.Err()))
	}
}

func TestExtractBad(t *testing.T) {
	for _, h := range []http.Header{
		{deadline.Header: {"soon"}},
		{deadline.Header: {"1S", "2S"}},
		{deadline.Header: {"99999999H"}},
	} {
		ctx, cancel, err := deadline.Extract(context.Background(), h)
		if err == nil || ctx != context.Background() || cancel == nil {
			t.Errorf("Extract(%v) = %v, %v", h, ctx, err)
		}
		cancel()
	}
}

func TestHandler(t *testing.T) {
	var seen time.Duration
	h := deadline.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dl, ok := r.Context().Deadline(); ok {
			seen = time.Until(dl)
		}
	}))
	req := httptest.NewRequest("GET", "/", nil)
	req.Header.Set(deadline.Header, "2S")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || seen <= 0 || seen > 2*time.Second {
		t.Errorf("code %d, deadline in %v", rec.Code, seen)
	}

	req.Header.Set(deadline.Header, "-2S")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "malformed timeout") {
		t.Errorf("bad header: code %d, body %q", rec.Code, rec.Body.String())
	}
}

func TestTransport(t *testing.T) {
	srv := httptest.NewServer(deadline.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.Header.Get(deadline.Header))
	})))
	defer srv.Close()
	client := &http.Client{Transport: &deadline.Transport{}}
	defer client.CloseIdleConnections()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	req.Header.Set(deadline.Header, "1n") // stale, must be replaced
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d, err := deadline.Parse(string(body))
	if err != nil || d < 50*time.Second || d > time.Minute {
		t.Errorf("server saw %q (%v, %v)", body, d, err)
	}
	if req.Header.Get(deadline.Header) != "1n" {
		t.Error("Transport modified the caller's request")
	}
}

func BenchmarkEncode(b *testing.B) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		deadline.Encode(ctx)
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := deadline.Parse("1500000u"); err != nil {
			b.Fatal(err)
		}
	}
}
