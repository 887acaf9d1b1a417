package deadline_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/deadline"
)

func ExampleFormat() {
	fmt.Println(deadline.Format(1500 * time.Millisecond))
	fmt.Println(deadline.Format(2 * time.Hour))
	fmt.Println(deadline.Format(-time.Second))
	// Output:
	// 1500000u
	// 7200000m
	// 0n
}

func ExampleParse() {
	fmt.Println(deadline.Parse("1500m"))
	fmt.Println(deadline.Parse("1.5S"))
	// Output:
	// 1.5s <nil>
	// 0s deadline: malformed timeout "1.5S"
}

func ExampleHandler() {
	h := deadline.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dl, ok := r.Context().Deadline()
		fmt.Println(ok, time.Until(dl) <= 3*time.Second)
	}))

	req := httptest.NewRequest("GET", "/search", nil)
	req.Header.Set(deadline.Header, "3S") // sent by the caller's Inject or Transport
	h.ServeHTTP(httptest.NewRecorder(), req)
	// Output:
	// true true
}

func ExampleInject() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := http.Header{}
	deadline.Inject(ctx, h)
	d, _ := deadline.Parse(h.Get(deadline.Header))
	fmt.Println(d > 59*time.Second && d <= time.Minute)
	// Output:
	// true
}
