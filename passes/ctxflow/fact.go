package ctxflow

// CarriesCancel is an object fact on a *types.Func: the function's error
// result may carry the cancellation of a context it reaches even though no
// context or request is passed to it (it holds one in its receiver, or it
// returns what such a call returned).
type CarriesCancel struct{}

// AFact marks CarriesCancel as an analysis fact.
func (*CarriesCancel) AFact() {}

func (*CarriesCancel) String() string { return "carriesCancel" }
