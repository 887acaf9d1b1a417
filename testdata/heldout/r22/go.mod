module heldoutr22

go 1.26

require golang.org/x/sync v0.0.0

replace golang.org/x/sync => ./third_party/golang.org/x/sync
