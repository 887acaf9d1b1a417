package fix

import (
	"context"
	"fmt"
)

type crawl struct {
	pages      int
	incomplete []error
}

func runCrawl(ctx context.Context, hosts []string) *crawl { return &crawl{} }

// crawlRecorded records the end in the result and reports success.
func crawlRecorded(ctx context.Context, hosts []string) (*crawl, error) {
	res := runCrawl(ctx, hosts)
	if ctx.Err() != nil { // want `when ctx has ended this branch goes on to return a nil error, so crawlRecorded reports success for work that was canceled`
		res.incomplete = append(res.incomplete, fmt.Errorf("interrupted: %w", ctx.Err()))
	}
	return res, nil
}
