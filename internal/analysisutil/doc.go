// Package analysisutil holds the helpers shared by cancelcheck's passes and
// checks: documentation extraction, type predicates for contexts and errors,
// callee matching, fix construction, and reporting with suppression
// directives. Keeping them here means every check answers "is this a
// context?" the same way.
package analysisutil
