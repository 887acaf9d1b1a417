package roots

import (
	"context"
	"net/http"
)

type tenantKey struct{}

// newTenantContext starts a root context for jobs that have no parent.
func newTenantContext(tenant string) context.Context {
	return context.WithValue(context.Background(), tenantKey{}, tenant)
}

// withTenant tags a parent.
func withTenant(parent context.Context, tenant string) context.Context {
	return context.WithValue(parent, tenantKey{}, tenant)
}

type issuer interface {
	Issue(ctx context.Context, client string) (string, error)
}

type tokens struct{ issuer issuer }

// token builds its context with the root helper: the request's
// cancellation and deadline are gone.
func (t *tokens) token(w http.ResponseWriter, r *http.Request) {
	ctx := newTenantContext(r.Header.Get("X-Tenant")) // want `newTenantContext\(...\), which returns a context made from context.Background\(\), in token cuts off r.Context\(\): work under t.issuer.Issue keeps running`
	tok, err := t.issuer.Issue(ctx, r.FormValue("client_id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	w.Write([]byte(tok))
}

// tokenTagged tags the request's context.
func (t *tokens) tokenTagged(w http.ResponseWriter, r *http.Request) {
	ctx := withTenant(r.Context(), r.Header.Get("X-Tenant"))
	tok, err := t.issuer.Issue(ctx, r.FormValue("client_id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	w.Write([]byte(tok))
}

// cron has no context to inherit: a root is its only choice.
func (t *tokens) cron(tenant string) (string, error) {
	return t.issuer.Issue(newTenantContext(tenant), "cron")
}

type vm struct {
	ctx context.Context
	run func(ctx context.Context) error
}

// SetContext only stores the context: the VM's lifetime.
func (v *vm) SetContext(ctx context.Context) { v.ctx = ctx }

// Exec runs under the context it is given.
func (v *vm) Exec(ctx context.Context) error { return v.run(ctx) }

// invoke resets the pooled VM after the call: nothing runs for the caller
// under the reset context.
func invoke(ctx context.Context, v *vm) error {
	v.SetContext(ctx)
	err := v.Exec(ctx)
	v.SetContext(context.Background())
	return err
}

// invokeDetached runs the call itself under a fresh root.
func invokeDetached(ctx context.Context, v *vm) error {
	return v.Exec(context.Background()) // want `context.Background\(\) in invokeDetached cuts off ctx`
}
