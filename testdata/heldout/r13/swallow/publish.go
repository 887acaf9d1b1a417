package swallow

import "context"

// Doc is a compliance document.
type Doc struct {
	Name        string
	NeedsRender bool
	Body        []byte
}

// Renderer turns a document template into its final form.
type Renderer interface {
	Render(ctx context.Context, d Doc) ([]byte, error)
}

// DocStore persists rendered documents.
type DocStore interface {
	Put(ctx context.Context, d Doc) error
}

// Publisher renders and stores a set of documents.
type Publisher struct {
	renderer Renderer
	store    DocStore
}

// PublishAll stops at the first failure. The render error is assigned to
// an err declared inside the if block, so the loop breaks and the outer
// err, still nil, is returned.
// From: strongdm/comply#122
// bug: swallowcancel
func (p *Publisher) PublishAll(ctx context.Context, docs []Doc) error {
	var err error
	for _, d := range docs {
		if d.NeedsRender {
			body, err := p.renderer.Render(ctx, d)
			if err != nil {
				break
			}
			d.Body = body
		}
		if err = p.store.Put(ctx, d); err != nil {
			break
		}
	}
	return err
}

// PublishAllNearMiss assigns to the outer err.
// ok: swallowcancel
func (p *Publisher) PublishAllNearMiss(ctx context.Context, docs []Doc) error {
	var err error
	for _, d := range docs {
		if d.NeedsRender {
			var body []byte
			body, err = p.renderer.Render(ctx, d)
			if err != nil {
				break
			}
			d.Body = body
		}
		if err = p.store.Put(ctx, d); err != nil {
			break
		}
	}
	return err
}
