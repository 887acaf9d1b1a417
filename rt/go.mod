module github.com/cancelcheck/cancelcheck/rt

go 1.21
