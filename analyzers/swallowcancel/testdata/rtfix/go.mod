module example.com/rtfix

go 1.22

require github.com/cancelcheck/cancelcheck/rt v0.0.0

replace github.com/cancelcheck/cancelcheck/rt => ../../../../rt
