package knowledge

// ContextForm says how to give the caller's context to a call of an API
// that has no context parameter, when the API's context-aware form is not
// the mechanical one (same name plus Context, WithContext or Ctx, taking
// the context first and then the same parameters), which checks find from
// the types.
type ContextForm struct {
	// Advice is what to call instead, for the message.
	Advice string
	// Rename and Args, when Rename is set, describe a mechanical fix: call
	// Rename with the context first, then Args in place of the call's
	// arguments (%s stands for them).
	Rename, Args string
	// CallOnly says the context form's context bounds only the call
	// itself, not the value it returns (DialContext: once connected, the
	// context's end does not affect the connection), so a result kept by a
	// longer-lived owner does not make the call part of the owner's life.
	CallOnly bool
}

// contextless maps "pkg.Func" and "pkg.Type.Method" to the context form of
// APIs whose context-aware form is not mechanical.
var contextless = map[string]ContextForm{
	"net/http.Get":             {Advice: "http.NewRequestWithContext(ctx, http.MethodGet, url, nil) and Client.Do"},
	"net/http.Head":            {Advice: "http.NewRequestWithContext(ctx, http.MethodHead, url, nil) and Client.Do"},
	"net/http.Post":            {Advice: "http.NewRequestWithContext(ctx, http.MethodPost, url, body) and Client.Do"},
	"net/http.PostForm":        {Advice: "http.NewRequestWithContext(ctx, http.MethodPost, url, body) and Client.Do"},
	"net/http.Client.Get":      {Advice: "http.NewRequestWithContext(ctx, http.MethodGet, url, nil) and Client.Do"},
	"net/http.Client.Head":     {Advice: "http.NewRequestWithContext(ctx, http.MethodHead, url, nil) and Client.Do"},
	"net/http.Client.Post":     {Advice: "http.NewRequestWithContext(ctx, http.MethodPost, url, body) and Client.Do"},
	"net/http.Client.PostForm": {Advice: "http.NewRequestWithContext(ctx, http.MethodPost, url, body) and Client.Do"},
	"net.Dial":                 {Advice: "(&net.Dialer{}).DialContext(ctx, network, address)", CallOnly: true},
	"net.DialTimeout":          {Advice: "(&net.Dialer{Timeout: timeout}).DialContext(ctx, network, address)", CallOnly: true},
	// The mechanical forms whose context bounds only the dial: a
	// connection kept by a longer-lived owner was still dialed without the
	// caller's context.
	"net.Dialer.Dial":         {Advice: "DialContext", Rename: "DialContext", Args: "%s", CallOnly: true},
	"crypto/tls.Dialer.Dial":  {Advice: "DialContext", Rename: "DialContext", Args: "%s", CallOnly: true},
	"net.LookupHost":          {Advice: "net.DefaultResolver.LookupHost(ctx, host)"},
	"net.LookupAddr":          {Advice: "net.DefaultResolver.LookupAddr(ctx, addr)"},
	"net.LookupCNAME":         {Advice: "net.DefaultResolver.LookupCNAME(ctx, host)"},
	"net.LookupIP":            {Advice: "net.DefaultResolver.LookupIPAddr(ctx, host)"},
	"net.LookupMX":            {Advice: "net.DefaultResolver.LookupMX(ctx, name)"},
	"net.LookupNS":            {Advice: "net.DefaultResolver.LookupNS(ctx, name)"},
	"net.LookupPort":          {Advice: "net.DefaultResolver.LookupPort(ctx, network, service)"},
	"net.LookupSRV":           {Advice: "net.DefaultResolver.LookupSRV(ctx, service, proto, name)"},
	"net.LookupTXT":           {Advice: "net.DefaultResolver.LookupTXT(ctx, name)"},
	"database/sql.DB.Begin":   {Advice: "BeginTx(ctx, nil)", Rename: "BeginTx", Args: "nil"},
	"database/sql.Conn.Begin": {Advice: "BeginTx(ctx, nil)", Rename: "BeginTx", Args: "nil"},
}

// Contextless returns the context form of the function or method named by
// pkg, typ ("" for a function) and name, when it is one whose context form
// is not mechanical.
func Contextless(pkg, typ, name string) (ContextForm, bool) {
	f, ok := contextless[key(pkg, typ, name)]
	return f, ok
}

// key is the tables' key of a function ("pkg.Func", typ "") or method
// ("pkg.Type.Method").
func key(pkg, typ, name string) string {
	if typ == "" {
		return pkg + "." + name
	}
	return pkg + "." + typ + "." + name
}

// ContextSuffixes are the names that, appended to a function's name, name
// its context-aware form: Query and QueryContext, Do and DoWithContext,
// Get and GetCtx.
var ContextSuffixes = []string{"Context", "WithContext", "Ctx"}

// DetachReasons are the words of a comment that says why a fresh context
// root must not end with the caller's (placed on the line of the root or
// right above it): the author detached it knowingly, and saying so is
// the review the check asks for. The table is the check's last resort,
// for what the code alone cannot show (a cache refresh that must outlive
// the request that triggered it).
var DetachReasons = []string{
	"intentional", "deliberate", "on purpose", "outlive",
	"must not be cancel", "should not be cancel", "not be canceled", "not be cancelled",
	"even if the", "even after", "even when the",
	"not propagate", "not to propagate", "don't propagate", "avoid early cancel",
	"not tied to", "independent of the",
}
