package a

import (
	"context"
	"fmt"
	"log"
)

type crawlResult struct {
	pages      int
	incomplete []error
}

func crawlAll(ctx context.Context, hosts []string) *crawlResult { return &crawlResult{} }

// crawlLogged notes the end in a log and returns the partial result as
// complete.
func crawlLogged(ctx context.Context, hosts []string) (*crawlResult, error) {
	res := crawlAll(ctx, hosts)
	if ctx.Err() != nil { // want `when ctx has ended this branch goes on to return a nil error, so crawlLogged reports success for work that was canceled; return ctx.Err\(\) from the branch`
		log.Printf("crawl interrupted after %d pages", res.pages)
	}
	total := res.pages
	_ = total
	return res, nil
}

// Near-miss: a later test returns the context's error.
func crawlChecked(ctx context.Context, hosts []string) (*crawlResult, error) {
	res := crawlAll(ctx, hosts)
	if ctx.Err() != nil {
		log.Printf("crawl interrupted after %d pages", res.pages)
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("crawl: %w", err)
	}
	return res, nil
}

// Near-miss: the branch sets the error the function returns.
func crawlNamed(ctx context.Context, hosts []string) (res *crawlResult, err error) {
	res = crawlAll(ctx, hosts)
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return res, err
}

// Near-miss: the branch leaves.
func crawlPanics(ctx context.Context, hosts []string) (*crawlResult, error) {
	res := crawlAll(ctx, hosts)
	if ctx.Err() != nil {
		panic("canceled")
	}
	return res, nil
}

// Near-miss: in a loop the next round decides; another rule's business.
func crawlEach(ctx context.Context, hosts []string) (int, error) {
	n := 0
	for _, h := range hosts {
		if ctx.Err() != nil {
			log.Printf("skipping %s", h)
		}
		n++
	}
	return n, nil
}

// Near-miss: the function has no error result.
func crawlQuiet(ctx context.Context, hosts []string) *crawlResult {
	res := crawlAll(ctx, hosts)
	if ctx.Err() != nil {
		log.Print("interrupted")
	}
	return res
}
