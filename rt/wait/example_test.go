package wait_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cancelcheck/cancelcheck/rt/stop"
	"github.com/cancelcheck/cancelcheck/rt/wait"
)

func ExampleSleep() {
	ctx, cancel := stop.WithCancel(context.Background())
	cancel(stop.ErrShutdown)

	err := wait.Sleep(ctx, time.Hour) // returns at once
	fmt.Println(err)
	fmt.Println(stop.Classify(ctx, err))
	// Output:
	// context canceled: shut down
	// shut down
}

func ExampleRecv() {
	results := make(chan string, 1)
	results <- "done"
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()

	v, ok, err := wait.Recv(ctx, results)
	fmt.Println(v, ok, err)

	close(results)
	v, ok, err = wait.Recv(ctx, results)
	fmt.Printf("%q %v %v\n", v, ok, err)
	// Output:
	// done true <nil>
	// "" false <nil>
}

func ExampleSend() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	unbuffered := make(chan int) // nobody receives

	err := wait.Send(ctx, unbuffered, 1)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true
}
