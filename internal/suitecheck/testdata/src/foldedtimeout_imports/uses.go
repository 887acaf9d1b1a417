package foldedtimeout_imports

import "fmt"

func describe(n int) string { return fmt.Sprint(n) }
