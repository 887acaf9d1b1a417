package roots

import (
	"context"
	"net/http"

	"roots/lib"
)

func get(ctx context.Context) error { return ctx.Err() }

func sync() { get(context.TODO()) }

func syncAll() { sync() }

func Handle(ctx context.Context) error {
	sync()           // want `sync takes no context and runs its work under context.TODO\(\) \(roots.go:12\): called here with ctx in reach, that work keeps running after ctx's deadline passes or it is canceled`
	syncAll()        // want `syncAll takes no context and calls sync, which runs its work under context.TODO\(\)`
	lib.Refresh()    // want `Refresh takes no context and calls Warm, which runs its work under context.Background\(\) \(lib.go:14\)`
	defer sync()     // cleanup after the work
	go lib.Warm("x") // its own goroutine
	lib.Later("y")
	_ = lib.Describe()
	req, err := lib.NewRequest("http://x")
	if err != nil {
		return err
	}
	_, err = http.DefaultClient.Do(req.WithContext(ctx))
	return err
}

// NoContext has none in reach: nothing to cut off.
func NoContext() { sync() }
