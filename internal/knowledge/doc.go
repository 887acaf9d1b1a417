// Package knowledge holds what cancelcheck knows about particular APIs
// rather than derives from their code: tables of functions by package
// path and name, one table per topic, shared by every check that needs
// it. A rule that can be decided from types, control flow or a fact about
// the callee does not belong here; a second copy of a table elsewhere is a
// bug waiting to disagree.
package knowledge
