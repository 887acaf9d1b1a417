package fixbreak

import "context"

func publish(ctx context.Context, events chan<- int, items []int) {
	for _, it := range items {
		select {
		case <-ctx.Done():
			break // want `this break leaves the select, not the loop`
		case events <- it:
		}
	}
}

func publishLabelUsed(ctx context.Context, events chan<- int, items [][]int) {
	for _, batch := range items {
	loop:
		for _, it := range batch {
			select {
			case <-ctx.Done():
				break // want `this break leaves the select, not the loop`
			case events <- it:
				if it < 0 {
					break loop
				}
			}
		}
	}
}
